"""Targets: checking the program for the chip it will run on, from any machine.

The config and the local-TPU detection run everywhere. The compile tests build the TPU's
program deviceless with libtpu (installed by the README's test command on x86-64 Linux)
and skip with the reason where it is absent.
"""
from __future__ import annotations

import importlib.util
import json
import os
import textwrap
from pathlib import Path

import pytest

from helpers import run_cli
from jaxlint.config import ConfigError, load_settings
from jaxlint.config.inputspec import SpecError, parse_spec_expr
from jaxlint.targets import Target, TargetError, implicit, local_tpu, parse_topology, target_from_table

needs_libtpu = pytest.mark.skipif(importlib.util.find_spec("libtpu") is None,
                                  reason="libtpu is not installed (pip install \"jaxlint[tpu]\"): no deviceless "
                                         "TPU compile here")


# ---------------------------------------------------------------------------- config
def _config(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "jaxlint.toml"
    p.write_text(textwrap.dedent(text))
    return p


def test_a_named_target_and_a_topology_by_itself(tmp_path):
    p = _config(tmp_path, """
        [targets.v5e-8]
        topology = "v5e:2x4"
        mesh = { data = 4, model = 2 }
        axis-map = { batch = "data" }
        [dynamic]
        target = "v5e-8"
    """)
    t = load_settings(p).dynamic.target_spec
    assert (t.name, t.backend, t.topology, t.mesh) == ("v5e-8", "tpu", "v5e:2x4", (("data", 4), ("model", 2)))
    assert t.device_count() == 8 and t.hbm_bytes() == 16 << 30
    assert t.label() == "v5e-8 (v5e:2x4, mesh data=4 model=2)"
    # --config and --target (the same override) replace the file's choice; a topology needs no table
    t2 = load_settings(p, {"inline": ['dynamic.target = "v4:2x2x1"']}).dynamic.target_spec
    assert (t2.topology, t2.device_count(), t2.mesh) == ("v4:2x2x1", 4, ())
    assert Target.from_json(t.to_json()) == t


@pytest.mark.parametrize("table, says", [
    ('[targets.x]\ntopology = "v5e:2x2x1"', 'a v5e slice has 2 dimensions ("v5e:2x2")'),
    ('[targets.x]\ntopology = "v9:2x2"', "unknown chip generation `v9`"),
    ('[targets.x]\ntopology = "v5e"', "must be a chip generation and its chips per dimension"),
    ('[targets.x]\ntopology = "v5e:2x4"\nmesh = { data = 4 }', "the mesh must use every device of the slice"),
    ('[targets.x]\ntopology = "v5e:2x2"\nmesh = { data = 4 }\naxis-map = { batch = "model" }',
     "maps to `model`, which is not an axis of its `mesh`"),
    ('[targets.x]\ntopology = "v5e:2x2"\ncolour = 1', "unknown key `colour`"),
    ('[targets.x]\nmesh = { data = 4 }', "needs a `topology`"),
    ('[targets.x]\ntopology = "v5e:1x1"\nhbm-gib = -1', "`targets.x.hbm-gib` must be a positive number"),
    ('[dynamic]\ntarget = "v5e-8"', "target `v5e-8` is neither a [tool.jaxlint.targets] name"),
])
def test_a_bad_target_is_one_line_naming_the_file_and_key(tmp_path, table, says):
    p = _config(tmp_path, table)
    with pytest.raises(ConfigError) as e:
        load_settings(p)
    assert str(p.resolve()) in str(e.value) and says in str(e.value)


def test_topologies():
    assert parse_topology("v5e:2x4").host_bounds() == (2, 2, 1)
    assert parse_topology("v5e:1x1").host_bounds() == (1, 1, 1)  # libtpu refuses (2, 2, 1) for one chip
    assert parse_topology("v4:2x2x2").chips == 8
    assert implicit("v5p:2x2x1").hbm_bytes() == 95 << 30
    with pytest.raises(TargetError):
        parse_topology("v5e:0x4")


def test_the_cli_rejects_an_unknown_target_with_exit_2(tmp_path):
    (tmp_path / "m.py").write_text("import jax\n")
    r = run_cli("check", "--target", "v5e:9x9x9", "m.py", cwd=tmp_path)
    assert r.returncode == 2 and "a v5e slice has 2 dimensions" in r.stderr and "Traceback" not in r.stderr


def test_input_specs_place_arrays_on_mesh_axes():
    node = parse_spec_expr('(f32[8192,1024] @ P("data", None), bf16[8,4] @ P(("data", "model")), i32[4])')
    assert node["tuple"][0]["sharding"] == {"spec": [["data"]]}  # trailing None dropped, as jit does
    assert node["tuple"][1]["sharding"] == {"spec": [["data", "model"]]}
    assert "sharding" not in node["tuple"][2]
    for bad, says in [('f32[8] @ P("a", "b")', "2 dimensions of a 1-dimensional array"),
                      ("f32[8] @ Q(1)", "partition spec such as"), ("(1,) @ P()", "places an array"),
                      ('f32[8] @ P(1)', "an axis name or a tuple of them")]:
        with pytest.raises(SpecError, match=says.replace("(", r"\(").replace(")", r"\)")):
            parse_spec_expr(bad)


# ---------------------------------------------------------------------------- the local TPU
def _fake_host(root: Path, chips: int, device_id: str = "0x0063") -> None:
    (root / "dev" / "vfio").mkdir(parents=True)
    (root / "dev" / "vfio" / "vfio").write_text("")
    for i in range(chips):
        (root / "dev" / "vfio" / str(i + 2)).write_text("")
    for i in range(4):  # a host's PCI bus lists every chip of the board, visible or not
        d = root / "sys" / "bus" / "pci" / "devices" / f"0000:00:0{i + 8}.0"
        d.mkdir(parents=True)
        (d / "vendor").write_text("0x1ae0\n")
        (d / "device").write_text(device_id + "\n")


def test_the_local_tpu_is_found_without_opening_it(tmp_path):
    # what a v5e host lent here shows: one chip's vfio group, four chips on the PCI bus
    _fake_host(tmp_path, 1)
    t = local_tpu({"TPU_ACCELERATOR_TYPE": "v5litepod-4"}, root=str(tmp_path))
    assert t is not None and t.topology == "v5e:1x1"


def test_the_local_tpu_generation_and_size(tmp_path):
    _fake_host(tmp_path / "a", 4, "0x005e")
    assert local_tpu({}, root=str(tmp_path / "a")).topology == "v4:2x2x1"  # type: ignore[union-attr]
    (tmp_path / "b" / "dev" / "vfio").mkdir(parents=True)
    (tmp_path / "b" / "dev" / "vfio" / "0").write_text("")
    # no PCI ids: the accelerator type names the generation
    assert local_tpu({"TPU_ACCELERATOR_TYPE": "v6e-1"}, root=str(tmp_path / "b")).topology == "v6e:1x1"  # type: ignore[union-attr]
    assert local_tpu({}, root=str(tmp_path / "empty")) is None


def test_the_chips_are_counted_without_opening_them(tmp_path):
    from jaxlint.targets import tpu_chips

    _fake_host(tmp_path / "a", 4, "0x005e")
    assert tpu_chips(str(tmp_path / "a")) == 4 and tpu_chips(str(tmp_path / "empty")) == 0


OWN_JAX = """
import os, subprocess, sys
sys.path.insert(0, {tests!r})
from own_jax import keep_own_jax_on_the_cpu

assert not keep_own_jax_on_the_cpu(0) and "jax" not in sys.modules  # no TPU: nothing at all
os.environ["JAX_PLATFORMS"] = ""  # the user's choice (jax's own pick) is kept
assert not keep_own_jax_on_the_cpu(1) and "jax" not in sys.modules
del os.environ["JAX_PLATFORMS"]
assert keep_own_jax_on_the_cpu(1)
import jax
from jax._src import config

assert config.jax_platforms.value == "cpu" and jax.devices()[0].platform == "cpu"
assert "JAX_PLATFORMS" not in os.environ
child = "from jax._src import config; print(config.jax_platforms.value)"
print("child:", subprocess.run([sys.executable, "-c", child], capture_output=True, text=True).stdout.strip())
"""


def test_pytests_own_jax_runs_on_the_cpu_on_a_tpu_host_and_the_programs_it_starts_do_not(tmp_path):
    """tests/conftest.py on a TPU host: jax in pytest's process never holds the chip (the
    programs later tests start failed with the chip busy); a process a test starts sees
    the machine as it is (jax's own choice there: not "cpu")."""
    import subprocess
    import sys

    pytest.importorskip("jax")
    env = {k: v for k, v in os.environ.items() if k != "JAX_PLATFORMS"}
    r = subprocess.run([sys.executable, "-c", OWN_JAX.format(tests=str(Path(__file__).parent))],
                       capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "child:" in r.stdout and "child: cpu" not in r.stdout, r.stdout


def test_backend_tpu_without_a_tpu_says_how_to_compile_for_one(tmp_path):
    if local_tpu() is not None:
        pytest.skip("this machine has a TPU")
    (tmp_path / "m.py").write_text("import jax\n\n@jax.jit\ndef f(x):\n    return x + 1\n\nf(jax.numpy.ones(3))\n")
    r = run_cli("check", "--dynamic", "--compile", "--config", 'dynamic.backend = "tpu"', "--no-cache", "m.py",
                cwd=tmp_path)
    assert r.returncode == 2, r.stdout + r.stderr
    assert "this machine has no TPU" in r.stderr and "--target v5e:1x1" in r.stderr
    assert "Traceback" not in r.stderr and "internal error" not in r.stderr


# ---------------------------------------------------------------------------- deviceless compiles
STEP = '''
import jax
import jax.numpy as jnp

# jaxlint: args={args}
@jax.jit
def adam_step(w, m, v, x):
    def loss(w):
        return jnp.mean(jnp.tanh(x @ w) ** 2)

    g = jax.grad(loss)(w)
    m = 0.9 * m + 0.1 * g
    v = 0.999 * v + 0.001 * g * g
    return w - 1e-3 * m / (jnp.sqrt(v) + 1e-8), m, v
'''


def _report(tmp_path: Path, *args: str) -> tuple[dict, str]:
    out = tmp_path / "report.json"
    r = run_cli("check", "--no-cache", "--report", str(out), *args, cwd=tmp_path)
    assert r.returncode in (0, 1), r.stdout + r.stderr
    rows = json.loads(out.read_text())["functions"]
    return {f["qualname"]: f for f in rows}, r.stdout + r.stderr


def _chip_figures(fn_source: str, name: str, shapes: list, topology: str = "v5e:1x1",
                  donate: tuple = ()) -> dict:
    """The same function compiled deviceless in a process of its own, with jax's API only."""
    import subprocess
    import sys

    code = textwrap.dedent(f'''
        import json, jax, jax.numpy as jnp
        from jax.experimental import topologies
        from jaxlint.targets import parse_topology
        top = parse_topology({topology!r})
        devs = topologies.get_topology_desc(top.name, "tpu", chips_per_host_bounds=top.host_bounds()).devices
        s = jax.sharding.SingleDeviceSharding(devs[0])
    ''') + textwrap.dedent(fn_source) + textwrap.dedent(f'''
        args = [jax.ShapeDtypeStruct(sh, jnp.dtype(dt), sharding=s) for sh, dt in {shapes!r}]
        c = jax.jit({name}, donate_argnums={donate!r}).trace(*args).lower(lowering_platforms=("tpu",)).compile()
        m = c.memory_analysis()
        print(json.dumps({{"argument": m.argument_size_in_bytes, "output": m.output_size_in_bytes,
                           "alias": m.alias_size_in_bytes, "temp": m.temp_size_in_bytes,
                           "peak": m.peak_memory_in_bytes, "flops": c.cost_analysis()["flops"]}}))
    ''')
    import os

    env = dict(os.environ, JAX_PLATFORMS="cpu", ALLOW_MULTIPLE_LIBTPU_LOAD="1")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


@needs_libtpu
def test_a_function_is_compiled_for_the_tpu_target_with_the_chips_figures(tmp_path):
    (tmp_path / "step.py").write_text(STEP.format(args="(f32[1024,512], f32[1024,512], f32[1024,512], f32[3,1024])"))
    rows, out = _report(tmp_path, "--target", "v5e:1x1", "step.py")
    assert "target v5e:1x1, compiled deviceless" in out
    rep = rows["adam_step"]["report"]
    assert rep["platform"] == "tpu" and rep["requested_backend"] == "tpu"
    env = rep["budget"]["environment"]
    assert (env["backend"], env["device_kind"], env["target"], env["devices"]) == ("tpu", "TPU v5 lite", "v5e:1x1", 1)
    shapes = [((1024, 512), "float32")] * 3 + [((3, 1024), "float32")]
    chip = _chip_figures(STEP.split("# jaxlint")[1].split("\n", 1)[1].replace("@jax.jit\n", ""), "adam_step", shapes)
    figures = rep["budget"]["figures"]
    assert (figures["argument_bytes"], figures["output_bytes"], figures["peak_bytes"], figures["flops"]) == \
        (chip["argument"], chip["output"], chip["peak"], int(chip["flops"]))
    # the TPU's tiles show in the figures: x, f32[3,1024], is 12,288 bytes of data and more in tiles
    assert chip["argument"] > 3 * 1024 * 512 * 4 + 3 * 1024 * 4
    # the CPU's program of the same step is another one
    cpu, _ = _report(tmp_path, "--dynamic", "--compile", "step.py")
    assert cpu["adam_step"]["report"]["platform"] == "cpu"


@needs_libtpu
def test_a_step_too_big_for_one_chip_fits_a_slice_with_its_state_sharded(tmp_path):
    spec = '(f32[65536,16384] @ P("data", None), f32[65536,16384] @ P("data", None), ' \
           'f32[65536,16384] @ P("data", None), f32[64,65536] @ P(None, "data"))'
    (tmp_path / "step.py").write_text(STEP.format(args=spec))
    (tmp_path / "jaxlint.toml").write_text('[targets.v5e-8]\ntopology = "v5e:2x4"\nmesh = { data = 8 }\n')
    one, _ = _report(tmp_path, "--target", "v5e:1x1", "step.py")
    eight, out = _report(tmp_path, "--target", "v5e-8", "step.py")
    assert "target v5e-8 (v5e:2x4, mesh data=8), compiled deviceless" in out
    hbm = 16 << 30
    big, small = one["adam_step"]["report"], eight["adam_step"]["report"]
    assert big["platform"] == small["platform"] == "tpu"
    assert big["peak_bytes"] > hbm > small["peak_bytes"] > 0
    # the error (JAX315) for one chip, with XLA's own figures; none for the slice
    r1 = run_cli("check", "--target", "v5e:1x1", "step.py", cwd=tmp_path)
    r8 = run_cli("check", "--target", "v5e-8", "step.py", cwd=tmp_path)
    assert r1.returncode == 1 and "JAX315" in r1.stdout and "does not fit" in r1.stdout, r1.stdout + r1.stderr
    assert "24.0 GiB per chip" in r1.stdout and "`w` f32[65536,16384] 4.0 GiB" in r1.stdout
    assert "JAX315" not in r8.stdout, r8.stdout
    assert small["budget"]["environment"]["devices"] == 8
    # each chip holds an eighth of the three 4 GiB states (and x's share)
    assert small["budget"]["figures"]["argument_bytes"] < 3 * (4 << 30) // 8 + (64 * 65536 * 4)


@needs_libtpu
def test_a_recording_on_the_cpu_is_carried_onto_the_targets_mesh(tmp_path):
    """Recorded with two forced host devices and a `batch` axis; checked for a v5e-8 whose
    mesh calls it `data`: the batch is split eight ways on the slice."""
    (tmp_path / "dp.py").write_text(textwrap.dedent('''
        import jax
        import jax.numpy as jnp
        import numpy as np
        from jax.sharding import Mesh, NamedSharding, PartitionSpec as P


        @jax.jit
        def step(w, x):
            return jnp.tanh(x @ w).sum(), w * 0.99


        if __name__ == "__main__":
            mesh = Mesh(np.array(jax.devices()[:2]), ("batch",))
            w = jax.device_put(jnp.ones((512, 256)), NamedSharding(mesh, P()))
            x = jax.device_put(jnp.ones((1024, 512)), NamedSharding(mesh, P("batch")))
            for _ in range(2):
                loss, w = step(w, x)
    '''))
    (tmp_path / "jaxlint.toml").write_text('[targets.v5e-8]\ntopology = "v5e:2x4"\nmesh = { data = 8 }\n'
                                           'axis-map = { batch = "data" }\n'
                                           '[targets.odd]\ntopology = "v5e:2x4"\nmesh = { model = 8 }\n')
    r = run_cli("record", "--", "python", "dp.py", cwd=tmp_path,
                env={"XLA_FLAGS": "--xla_force_host_platform_device_count=2"})
    assert r.returncode == 0, r.stdout + r.stderr
    rows, _ = _report(tmp_path, "--target", "v5e-8", "dp.py")
    rep = rows["step"]["report"]
    assert rep["platform"] == "tpu" and rep["budget"]["environment"]["devices"] == 8
    # w replicated (512x256 f32 in tiles = 524,288 B) and an eighth of x (128x512 f32 = 262,144 B) per chip
    assert rep["budget"]["figures"]["argument_bytes"] == 512 * 256 * 4 + 128 * 512 * 4
    # a mesh without the recorded axis, and no axis-map for it: a clear skip, not a finding
    rows, _ = _report(tmp_path, "--target", "odd", "--show-skipped", "dp.py")
    assert rows["step"]["status"] == "skipped"
    assert "the recording's mesh axis `batch` is not an axis of its mesh (model)" in rows["step"]["reason"]


@needs_libtpu
def test_workers_compile_for_the_target_side_by_side(tmp_path):
    """Two workers load libtpu at once (its lock file would refuse the second)."""
    for i in range(2):
        (tmp_path / f"m{i}.py").write_text(STEP.format(args="(f32[256,128], f32[256,128], f32[256,128], f32[8,256])"))
    rows, out = _report(tmp_path, "--target", "v5e:1x1", "--config", "dynamic.workers = 2", "m0.py", "m1.py")
    assert "2 functions analysed, 0 skipped, 0 failed" in out, out
    assert all(r["report"]["platform"] == "tpu" for r in rows.values())


def test_a_libtpu_that_does_not_load_is_one_line_saying_what_to_install(tmp_path):
    """A Python path whose `libtpu` cannot be imported stands for a broken or mismatched one."""
    shadow = tmp_path / "shadow" / "libtpu"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("raise ImportError('no libtpu in this environment')\n")
    (tmp_path / "m.py").write_text("import jax\n\n# jaxlint: args=(f32[8],)\n@jax.jit\ndef f(x):\n    return x + 1\n")
    # TPU_LIBRARY_PATH (set by any earlier import of libtpu in this process) would let jax
    # load the library without importing the package. The shadow goes before the path the
    # suite already has, which may be how jaxlint itself is found (a checkout, not installed).
    path = os.pathsep.join(p for p in (str(tmp_path / "shadow"), os.environ.get("PYTHONPATH", "")) if p)
    r = run_cli("check", "--target", "v5e:1x1", "--no-cache", "m.py", cwd=tmp_path,
                env={"PYTHONPATH": path, "TPU_LIBRARY_PATH": ""})
    assert r.returncode == 2, r.stdout + r.stderr
    assert "libtpu cannot be loaded here" in r.stderr and 'pip install "jaxlint[tpu]"' in r.stderr
    assert "Traceback" not in r.stderr


LOOP = """
import jax
import jax.numpy as jnp

VOCAB, D = 1000, 256


def init(key):
    k1, k2 = jax.random.split(key)
    return {"emb": jax.random.normal(k1, (VOCAB, D)) * 0.02, "w": jax.random.normal(k2, (D, D)) * 0.02}


def loss_fn(params, tokens):
    h = jnp.tanh(params["emb"][tokens[:, :-1]] @ params["w"])
    logp = jax.nn.log_softmax(h @ params["emb"].T)
    return -jnp.take_along_axis(logp, tokens[:, 1:, None], axis=-1).mean()


@jax.jit
def train_step(params, opt_state, tokens):
    loss, g = jax.value_and_grad(loss_fn)(params, tokens)
    m = jax.tree_util.tree_map(lambda a, b: 0.9 * a + 0.1 * b, opt_state, g)
    return jax.tree_util.tree_map(lambda p, a: p - 1e-3 * a, params, m), m, loss


if __name__ == "__main__":
    params = init(jax.random.key(0))
    opt_state = jax.tree_util.tree_map(jnp.zeros_like, params)
    for i in range(3):
        tokens = jax.random.randint(jax.random.key(i), (16, 65), 0, VOCAB)
        params, opt_state, loss = train_step(params, opt_state, tokens)
"""


@needs_libtpu
def test_a_loop_recorded_on_the_cpu_gets_jax302_for_the_tpu_with_the_tpus_figures(tmp_path):
    (tmp_path / "train.py").write_text(LOOP)
    r = run_cli("record", "--", "python", "train.py", cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    rows, out = _report(tmp_path, "--target", "v5e:1x1", "--output-format", "json", "train.py")
    rep = rows["train_step"]["report"]
    assert rep["platform"] == "tpu" and rep["budget"]["environment"]["target"] == "v5e:1x1"
    found = [d for d in json.loads(out[:out.rindex("]") + 1]) if d["code"] == "JAX302"]
    assert found and "opt_state" in found[0]["message"], out
    # the TPU's figures: emb's 1000 rows take 1000 (8-row tiles); the CPU's program is another
    cpu, _ = _report(tmp_path, "--dynamic", "--compile", "train.py")
    assert cpu["train_step"]["report"]["platform"] == "cpu"
    assert rep["peak_bytes"] != cpu["train_step"]["report"]["peak_bytes"]


@needs_libtpu
def test_budgets_per_target_and_inspect_for_a_target(tmp_path):
    (tmp_path / "step.py").write_text(STEP.format(args="(f32[512,256], f32[512,256], f32[512,256], f32[3,512])"))
    r = run_cli("budget", "update", "--target", "v5e:1x1", "step.py", cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert (tmp_path / "jaxlint-budgets.v5e-1x1.json").is_file() and not (tmp_path / "jaxlint-budgets.json").exists()
    env = json.loads((tmp_path / "jaxlint-budgets.v5e-1x1.json").read_text())["functions"]["step:adam_step"]
    assert env["environment"]["target"] == "v5e:1x1"
    r = run_cli("check", "--target", "v5e:1x1", "step.py", cwd=tmp_path)
    assert r.returncode == 0 and "jaxlint-budgets.v5e-1x1.json" in r.stdout and "0 %" in r.stdout, r.stdout
    r = run_cli("inspect", "step.py::adam_step", "--target", "v5e:1x1", cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "tpu (TPU v5 lite)" in r.stdout and "not present" not in r.stdout
    assert "T(8,128)" in r.stdout  # the TPU's tiled layouts in the optimized program


CLOSURE = """
import jax
import jax.numpy as jnp


def main():
    @jax.jit
    def update(params, x):
        return jax.tree_util.tree_map(lambda p: p - 0.01 * jnp.tanh(x).mean(), params)

    params = {"w": jnp.ones((1024, 512)), "b": jnp.ones((512,))}
    for _ in range(3):
        params = update(params, jnp.ones((8, 512)))


if __name__ == "__main__":
    main()
"""


@needs_libtpu
def test_a_function_only_the_program_reaches_is_compiled_for_the_target_by_record(tmp_path):
    """`main.<locals>.update` cannot be imported: a CPU recording's compile is not the
    target's (its compile findings are left out, with the reason); `record --target`
    compiles it for the target in the program."""
    (tmp_path / "prog.py").write_text(CLOSURE)
    # the program runs on the CPU even on a TPU host, whose own recording would be the chip's
    # (and so the v5e:1x1 target's) compile
    r = run_cli("record", "--compile", "--", "python", "prog.py", cwd=tmp_path, env={"JAX_PLATFORMS": "cpu"})
    assert r.returncode == 0, r.stdout + r.stderr
    cpu = run_cli("check", "--dynamic", "--compile", "--config", 'dynamic.backend = "cpu"', "prog.py", cwd=tmp_path)
    assert "JAX302" in cpu.stdout, cpu.stdout
    rows, out = _report(tmp_path, "--target", "v5e:1x1", "--show-skipped", "prog.py")
    assert "JAX302" not in out
    rep = rows["main.<locals>.update"]["report"]
    assert "not compiled for the target: `jaxlint record` compiled it for cpu" in rep["compile_skipped"]
    r = run_cli("record", "--target", "v5e:1x1", "--replace", "--", "python", "prog.py", cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    rows, out = _report(tmp_path, "--target", "v5e:1x1", "prog.py")
    rep = rows["main.<locals>.update"]["report"]
    assert rep["platform"] == "tpu" and rep["budget"]["environment"]["target"] == "v5e:1x1"
    assert "JAX302" in out and "`params` (2 arrays, 2.0 MiB)" in out
    # a recording for one target is not another's: for the CPU it is not compiled either
    rows, _ = _report(tmp_path, "--dynamic", "--compile", "--config", 'dynamic.backend = "cpu"', "prog.py")
    assert "compile_skipped" in rows["main.<locals>.update"]["report"]


@needs_libtpu
def test_a_targets_hbm_gib_is_the_chip_memory_jax315_holds_the_program_to(tmp_path):
    (tmp_path / "step.py").write_text(STEP.format(args="(f32[4096,4096], f32[4096,4096], f32[4096,4096], f32[64,4096])"))
    (tmp_path / "jaxlint.toml").write_text('[targets.small]\ntopology = "v5e:1x1"\nhbm-gib = 0.1\n')
    assert "JAX315" not in run_cli("check", "--target", "v5e:1x1", "step.py", cwd=tmp_path).stdout
    r = run_cli("check", "--target", "small", "step.py", cwd=tmp_path)
    assert r.returncode == 1 and "JAX315" in r.stdout and "configured for" in r.stdout, r.stdout + r.stderr
