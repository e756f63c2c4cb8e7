"""Issue 20: dynamic findings name the cause jax really compiled for, at the line the user
changes. One program of the patterns, run on 8 forced host devices through the real
`jaxlint record --compile`, then `jaxlint check --dynamic --compile` (jax 0.10 and 0.4.38)."""
from __future__ import annotations

import json
import os

import pytest

from helpers import json_findings, run_cli

DEVICES = {"XLA_FLAGS": "--xla_force_host_platform_device_count=8"}

TRAIN = '''
import functools
import time
import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",))


@jax.jit
def update(params, x):
    return jax.tree_util.tree_map(lambda p: p - 0.01 * x.mean(), params)


@jax.jit
def decode_step(tokens):
    return jnp.argmax(jnp.cumsum(tokens, axis=1), axis=1)


@functools.partial(jax.jit, static_argnames="train")
def step(x, train):
    return x * 2 if train else x


@jax.jit
def predict(x):
    return x.sum()


@jax.jit
def scaled(x):
    return x * 2


@jax.jit
def solve(y):
    def body(c):
        i, y = c
        y = eqx.error_if(y, jnp.any(jnp.isnan(y)), "the solver diverged")  # ERRORCHECK
        return i + 1, y * 0.5
    return jax.lax.while_loop(lambda c: c[0] < 10, body, (0, y))[1]


def noise(shape):
    key = jax.random.PRNGKey(0)  # SEED
    return jax.random.normal(key, shape)


@jax.jit
def sample(x):
    return x + noise(x.shape) * noise(x.shape)  # one line's key made twice: one finding


@jax.jit
def sample_step(x, step):
    key = jax.random.fold_in(jax.random.PRNGKey(0), step)
    return x + jax.random.normal(key, x.shape)


def row_loss(w, x):
    total = 0.0
    for row in x:  # ROWS
        total = total + jnp.tanh(row @ w).sum()
    return total


def pairwise(x):
    n = x.shape[0]
    out = jnp.zeros((n, n))
    for i in range(n):  # NESTED
        for j in range(n):
            out = out.at[i, j].set(jnp.sum((x[i] - x[j]) ** 2))
    return out


@eqx.filter_jit
def sample_one(y):
    for _ in range(12):  # EAGER
        y = jnp.sin(y) * 0.5 + y
    return y


LR = 0.1


@jax.jit
def opt_step(w, g):
    return w - LR * g


sgd_step = opt_step  # a notebook's cell: the step for one optimizer, then redefined for another


@jax.jit
def opt_step(w, g):
    return w * 0.9 - LR * g


@jax.jit
def ahead(x):
    for _ in range(40):
        x = jnp.tanh(x @ x) + 1.0
    return x


CORPUS = jnp.arange(300_000, dtype=jnp.int32)  # 1.1 MiB


@jax.jit
def take_batch(i, data):
    return jax.lax.dynamic_slice(data, (i,), (8,))  # CALLEE


@jax.jit
def lm_step(i, w):
    batch = take_batch(i, CORPUS)  # HOLD
    return w * batch.sum()


@jax.jit
def attack(x):
    for _ in range(12):  # INLINED
        x = jnp.sin(x) * 0.5 + x
    return x


@jax.jit
def robust_step(x):
    return attack(x).sum()


def make_update(n):
    @jax.jit
    def update(w, state):
        return w - 0.1 * sum(state), tuple(s * 0.9 for s in state)
    return update


def main_rows():
    w, x = jnp.ones(4), jnp.ones((16, 4))
    jax.jit(row_loss)(w, x)
    jax.jit(jax.grad(row_loss))(w, x)
    jax.jit(pairwise)(jnp.ones((6, 3)))
    for batch in (4, 6):  # a solve vmapped outside any jit: a program of its own, compiled per batch size
        jax.vmap(sample_one)(jnp.ones((batch, 3)))


if __name__ == "__main__":
    params = {"w": jnp.ones((16, 8)), "b": jnp.zeros(8)}  # PLACED
    x = jax.device_put(jnp.ones((16, 8)), NamedSharding(mesh, P("data")))
    for _ in range(4):
        params = update(params, x)  # RESHARD
    tokens = jnp.ones((1, 64), jnp.int32)
    for _ in range(6):
        nxt = decode_step(tokens)  # GROW
        tokens = jnp.concatenate([tokens, nxt[:, None]], axis=1)
    v = jnp.ones(3)
    step(v, train=True)
    step(v, train=True)
    step(v, train=False)
    for n in (32, 48, 32, 48, 32, 48):
        predict(jnp.ones(n))
    scaled(np.ones(4))
    for scale in (1.0, 2.0, 3.0):
        v = jax.jit(lambda a: a * scale)(v)  # REJIT
    solve(jnp.ones(4))
    for step in range(3):
        sample(jnp.ones(4))
        sample_step(jnp.ones(4), step)
    main_rows()
    for _ in range(3):
        sgd_step(jnp.ones(4), jnp.ones(4))
    for n in (8, 8, 8, 5):
        opt_step(jnp.ones(n), jnp.ones(n))  # REDEFINED
    for n in range(4, 10):
        jax.jit(jnp.cumsum)(jnp.ones(n))  # LIBRARY
    lowered = ahead.lower(jnp.ones((16, 16)))
    start = time.perf_counter()
    lowered.compile()  # compiled ahead of time, then called
    open("ahead_compile_seconds", "w").write(str(time.perf_counter() - start))
    ahead(jnp.ones((16, 16)))
    for n in range(1, 10):  # one jit per optimizer state, each reused
        update = make_update(n)
        for _ in range(2):
            update(jnp.ones(4), (jnp.ones(4),) * n)
    lm_step(3, 2.0)
    attack(jnp.ones(4))  # eagerly, as well as inside robust_step
    robust_step(jnp.ones(4))
    a = jnp.ones(4)
    scaled(a)
    jax.config.update("jax_enable_x64", True)
    scaled(a)  # SETTING
'''


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    root = tmp_path_factory.mktemp("causes")
    (root / "pyproject.toml").write_text('[tool.jaxlint]\nselect = ["JAX2", "JAX3"]\n')
    (root / "train.py").write_text(TRAIN.lstrip("\n"))
    rec = run_cli("record", "--compile", "--", "python", "train.py", cwd=root, env=DEVICES, timeout=600)
    assert rec.returncode == 0, rec.stderr
    check = run_cli("check", "--dynamic", "--compile", "--no-cache", "--output-format", "json", "train.py",
                    cwd=root, env=DEVICES, timeout=600)
    (root / "record.stderr").write_text(rec.stderr)
    lines = {m: i for i, line in enumerate(TRAIN.lstrip("\n").splitlines(), 1)
             for m in ("PLACED", "RESHARD", "GROW", "REJIT", "SETTING", "ERRORCHECK", "SEED", "ROWS", "NESTED", "EAGER",
                       "REDEFINED", "LIBRARY", "CALLEE", "HOLD", "INLINED") if f"# {m}" in line}
    return root, json_findings(check, "JAX208"), lines, json_findings(check)


def _at(found, line):
    return [d for d in found if d["location"]["row"] == line]


def test_signatures_keep_shardings_and_the_dtype_jax_compiles(recorded):
    root, *_ = recorded
    functions = json.loads((root / ".jaxlint" / "signatures.json").read_text())["functions"]
    update = [s["args"][0]["dict"]["w"] for s in functions["train:update"]["signatures"]]
    # the initial parameters are placed by default; the update returns them on the mesh
    assert "f32[16,8]" in update
    assert {"array": [16, 8], "dtype": "float32", "weak": False,
            "sharding": {"mesh": {"axes": ["data"], "sizes": [8]}, "spec": [], "committed": True}} in update
    x = functions["train:update"]["signatures"][0]["args"][1]
    assert x["sharding"] == {"mesh": {"axes": ["data"], "sizes": [8]}, "spec": [["data"]], "committed": True}
    # a numpy float64 argument is what jax compiles with x64 off: float32
    assert "f32[4]" in [s["args"][0] for s in functions["train:scaled"]["signatures"]]


def test_a_resharding_recompile_names_the_argument_and_the_change(recorded):
    # at the line that made the first call's parameters (placed by default; issue 37), the
    # call that compiled again related
    _, found, lines, _ = recorded
    assert _at(found, lines["RESHARD"]) == []
    [d] = _at(found, lines["PLACED"])
    assert "`update` was traced and compiled for 2 different signatures" in d["message"]
    assert ("`params['w']` changes sharding uncommitted on one device (the default) -> P() on mesh (data: 8)"
            in d["message"])
    assert "jax.device_put" in d["message"] and "new jitted function" not in d["message"]
    assert d["message"].endswith(f"the `params` of the first call is made at line {lines['PLACED']}: place it "
                                 f"there as the later calls get it"), d["message"]
    assert lines["RESHARD"] in [r["location"]["row"] for r in d["related"]], d["related"]


def test_a_growing_length_is_reported_with_its_trajectory(recorded):
    # at the line in the loop that makes the longer input (issue 37), the call related
    _, found, lines, _ = recorded
    [d] = _at(found, lines["GROW"] + 1)
    assert lines["GROW"] in [r["location"]["row"] for r in d["related"]], d["related"]
    assert d["message"].endswith("the `tokens` of each call is made at line %d" % (lines["GROW"] + 1))
    assert ("`tokens` grows along axis 1 call after call, (1, 64) -> (1, 65) -> (1, 66) -> (1, 67) -> (1, 68) "
            "-> (1, 69), and every new size compiles again" in d["message"])
    assert d["data"]["sizes"][0] == [1, 64] and d["data"]["sizes"][-1] == [1, 69]


def test_two_fixed_sizes_and_a_toggled_flag_stay_deliberate(recorded):
    _, found, _, _ = recorded
    assert not [d for d in found if d["data"]["function"] in ("predict", "step")]


def test_a_new_jitted_function_per_call_only_when_the_wrapper_changed(recorded):
    _, found, lines, _ = recorded
    [d] = _at(found, lines["REJIT"])
    assert "each call makes a new jitted function" in d["message"]
    # the same jitted function compiled again after a setting changed: not blamed on a wrapper
    [d] = _at(found, lines["SETTING"])
    assert "compiled 2 times for the same signature" in d["message"]
    assert "new jitted function" not in d["message"] and "JAX_EXPLAIN_CACHE_MISSES" in d["message"]


def test_a_function_defined_again_is_its_own_function(recorded):
    # `opt_step` is defined twice (a notebook's cell per optimizer), each jitted once: the
    # two are not one function recompiling; the second's own smaller last call still is
    root, found, lines, _ = recorded
    functions = json.loads((root / ".jaxlint" / "signatures.json").read_text())["functions"]
    first = next(k for k in functions if k.startswith("train:opt_step@"))
    assert [s["calls"] for s in functions[first]["signatures"]] == [3]
    assert sorted(s["calls"] for s in functions["train:opt_step"]["signatures"]) == [1, 3]
    [d] = [d for d in found if d["data"]["function"] == "opt_step"]
    assert d["location"]["row"] == lines["REDEFINED"]
    assert "`w` changes shape (8,) -> (5,)" in d["message"] and "(a smaller final batch" in d["message"]


def test_a_factory_jit_per_closure_is_not_recompilation(recorded):
    # nine jits of one inner function (one per optimizer state), each called twice with its
    # own state: nine compiles, each meant
    root, found, _, _ = recorded
    functions = json.loads((root / ".jaxlint" / "signatures.json").read_text())["functions"]
    assert len(functions["train:make_update.<locals>.update"]["signatures"]) == 9
    assert not [d for d in found if d["data"]["function"] == "make_update.<locals>.update"]


def test_a_library_function_jitted_by_the_program_is_recorded_at_its_jit(recorded):
    # `jnp.cumsum`'s code is jax's: keyed and reported at the project's jit call, where a
    # length that grows call after call compiles once per length
    root, found, lines, _ = recorded
    functions = json.loads((root / ".jaxlint" / "signatures.json").read_text())["functions"]
    assert len(functions[f"train:cumsum@jit{lines['LIBRARY']}"]["signatures"]) == 6
    [d] = [d for d in found if d["data"]["function"] == "cumsum"]
    assert d["location"]["row"] == lines["LIBRARY"]
    assert "grows along axis 0 call after call, (4,) -> (5,) -> (6,) -> (7,) -> (8,) -> (9,)" in d["message"]


def test_a_compile_ahead_of_time_is_the_compile_time_shown(recorded):
    # `.lower().compile()` then a call: the call reuses the executable (jax 0.10) and the
    # recording's own compile to read it is a cache hit (near 0 s); the time shown is the
    # program's, as the program itself timed it. Under jax 0.4 the call compiles again and
    # that compile, of the same function, is the one timed.
    root, *_ = recorded
    timings = json.loads((root / ".jaxlint" / "timings.json").read_text())["functions"]["train:ahead"]
    shown = timings["report"]["compile_seconds"]
    program = float((root / "ahead_compile_seconds").read_text())
    report = json.loads((root / ".jaxlint" / "observed.json").read_text())["functions"]["train:ahead"]["report"]
    if "compiled_again" in report:  # the call reused the program's executable
        assert "ahead of time" in report["compiled_again"]
        assert 0.6 * program <= shown <= program + 0.001, (shown, program)
    else:  # the call compiled it again (jax 0.4): a compile of its own, no cache hit
        assert shown >= 0.2 * program, (shown, program)


def test_error_checks_in_cond_branches_are_quiet(recorded):
    # equinox.error_if inside a while loop: a callback that only raises, in a lax.cond
    # branch taken only when the solver fails; not a per-step host round trip
    *_, everything = recorded
    assert not [d for d in everything if d["code"] == "JAX203"]
    assert not [d for d in everything if d["data"].get("function") == "solve"]


def test_the_record_summary_says_what_the_check_reports(recorded):
    # the finding count is the check's (a key made twice on one line is one finding); the
    # several-signature functions JAX208 found deliberate (two sizes, a toggled flag) are
    # not sent to look for it; jaxlint's own jit (re-tracing an equinox.filter_jit function)
    # is no library's
    root, found, _, everything = recorded
    rec = (root / "record.stderr").read_text()
    assert f"; {len(everything)} findings (`jaxlint check --dynamic` reports them)" in rec, rec
    with_208 = {d["data"]["function"] for d in found}
    assert "predict" not in with_208 and "step" not in with_208
    assert "see JAX208" not in rec and "; JAX208 reports a recompilation in " in rec, rec
    assert "jaxlint.dynamic" not in rec


def test_a_finding_kept_on_two_functions_is_counted_once(recorded):
    # `attack` is called eagerly and inside `robust_step`, which inlines it: its unrolled
    # loop is kept on both functions in the recording, and is one finding
    root, *_, lines, everything = recorded
    kept = json.loads((root / ".jaxlint" / "observed.json").read_text())["functions"]
    on = [k for k, e in kept.items() for d in e.get("diagnostics") or []
          if d["code"] == "JAX202" and d["location"]["row"] == lines["INLINED"]]
    assert sorted(on) == ["train:attack", "train:robust_step"], on
    assert len(_at([d for d in everything if d["code"] == "JAX202"], lines["INLINED"])) == 1


def test_a_global_passed_to_a_nested_jit_is_reported_where_the_jitted_function_passes_it(recorded):
    # `lm_step` passes the global `CORPUS` to the jitted `take_batch`, which reads it as its
    # parameter `data`: the fix is at lm_step's call, the callee's use is a related location
    *_, lines, everything = recorded
    [d] = [d for d in everything if d["code"] == "JAX201"]
    assert d["location"]["row"] == lines["HOLD"], d
    assert "`CORPUS`" in d["message"] and d["data"]["function"] == "lm_step"
    assert lines["CALLEE"] in [r["location"]["row"] for r in d["related"]], d["related"]


def test_a_key_made_from_a_literal_seed_in_a_jitted_function(recorded):
    *_, lines, everything = recorded
    [d] = [d for d in everything if d["code"] == "JAX211"]  # not sample_step: it folds in its step
    assert d["location"]["row"] == lines["SEED"]
    assert "made from the constant seed 0" in d["message"] and "every call of `sample`" in d["message"]


def test_loops_over_rows_and_nested_loops_in_functions_jitted_in_main(recorded):
    _, found, lines, everything = recorded
    unrolled = [d for d in everything if d["code"] == "JAX202"]
    [rows] = _at(unrolled, lines["ROWS"])
    assert "Python loop over the rows of `x` (a traced float32[16,4])" in rows["message"]
    # one row slice and one squeeze per copy (under jax.grad the first copy differs: 15 or 16 alike)
    assert rows["data"]["iterations"] in (15, 16) and rows["data"]["indexing_equations"] >= 2 * 15
    [nested] = _at(unrolled, lines["NESTED"])
    assert "nested Python loops" in nested["message"] and nested["data"]["iterations"] == 36
    # `jax.jit(row_loss)` and `jax.jit(jax.grad(row_loss))` are two programs, each compiled once
    assert not [d for d in found if d["data"]["function"] == "row_loss"]


def test_a_jitted_function_called_only_under_an_eager_vmap_is_analysed(recorded):
    # equinox filter_jit'd per-example function mapped by jax.vmap outside any jit: it is
    # compiled as a program of its own, so it is analysed (for one example), not counted
    # as "only inside other jitted functions"
    root, found, lines, everything = recorded
    [d] = _at([d for d in everything if d["code"] == "JAX202"], lines["EAGER"])
    assert d["data"]["iterations"] == 12
    sigs = json.loads((root / ".jaxlint" / "signatures.json").read_text())["functions"]["train:sample_one"]
    assert [s["under"] for s in sigs["signatures"]] == ["vmap"] and sigs["signatures"][0]["args"] == ["f32[3]"]
    assert not [d for d in found if d["data"]["function"] == "sample_one"]  # two batch sizes: not a finding


EDITED = '''
import jax
import jax.numpy as jnp

SCALE = None


@jax.jit
def step(x):
    return x * SCALE


if __name__ == "__main__":
    SCALE = 2.0
    for _ in range(3):
        step(jnp.ones(4))
'''


def test_a_one_line_edit_says_record_again_instead_of_a_finding(tmp_path):
    # the worker imports the module without running its main: SCALE is None there
    (tmp_path / "pyproject.toml").write_text("[tool.jaxlint]\n")
    (tmp_path / "run.py").write_text(EDITED.lstrip("\n"))
    rec = run_cli("record", "--compile", "--", "python", "run.py", cwd=tmp_path, timeout=600)
    assert rec.returncode == 0, rec.stderr
    (tmp_path / "run.py").write_text(EDITED.lstrip("\n").replace("return x * SCALE", "return x * SCALE + 0.0"))
    check = run_cli("check", "--dynamic", "--compile", "--no-cache", "--output-format", "json", "run.py",
                    cwd=tmp_path, timeout=600)
    assert not [d for d in json_findings(check) if d["code"] in ("JAX200", "JAX205")]
    summary = run_cli("check", "--dynamic", "--compile", "--no-cache", "run.py", cwd=tmp_path, timeout=600)
    assert "1 recorded function out of date: record again" in summary.stdout + summary.stderr


UNDER_A_MESH = '''
import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P

try:  # jax 0.10: a mesh's axes are explicit by default, where a constraint only asserts
    from jax.sharding import AxisType
    mesh = jax.make_mesh((8,), ("data",), axis_types=(AxisType.Auto,))
except ImportError:
    mesh = jax.make_mesh((8,), ("data",))


@jax.jit
def shard_rows(x):
    y = jax.lax.with_sharding_constraint(x * 2, P("data"))  # a bare spec: the context mesh
    return y.sum(axis=1)


def within(m):
    return jax.set_mesh(m) if hasattr(jax, "set_mesh") else m


if __name__ == "__main__":
    with within(mesh):
        for _ in range(3):
            shard_rows(jnp.ones((16, 4)))
'''


def test_a_worker_traces_again_with_the_recorded_devices_and_mesh(tmp_path):
    # the module needs 8 devices to import and the function the mesh it was called under;
    # after an edit the worker traces it again, without the program's XLA_FLAGS
    (tmp_path / "pyproject.toml").write_text('[tool.jaxlint]\nselect = ["JAX2", "JAX3"]\n')
    (tmp_path / "sharded.py").write_text(UNDER_A_MESH.lstrip("\n"))
    rec = run_cli("record", "--compile", "--", "python", "sharded.py", cwd=tmp_path, env=DEVICES, timeout=600)
    assert rec.returncode == 0, rec.stderr
    [sig] = json.loads((tmp_path / ".jaxlint" / "signatures.json").read_text())["functions"]["sharded:shard_rows"][
        "signatures"]
    assert sig["mesh"]["axes"] == ["data"] and sig["mesh"]["sizes"] == [8]
    (tmp_path / "sharded.py").write_text(UNDER_A_MESH.lstrip("\n").replace("return y.sum(axis=1)",
                                                                           "return y.sum(axis=1) + 0.0"))
    check = run_cli("check", "--dynamic", "--compile", "--no-cache", "--show-skipped", "sharded.py", cwd=tmp_path,
                    env={"XLA_FLAGS": ""}, timeout=600)
    out = check.stdout + check.stderr
    assert "1 function analysed, 0 skipped, 0 failed" in out, out
    assert "record again" not in out and "JAX205" not in out and "JAX200" not in out


OWN_DEVICES = '''
import jax
import jax.numpy as jnp
from jax.sharding import AxisType, PartitionSpec as P


@jax.jit
def spread(x):
    return jax.lax.with_sharding_constraint(x * 2, P("data")).sum(axis=1)  # the context mesh's axis


if __name__ == "__main__":
    jax.config.update("jax_num_cpu_devices", 8)  # the program asks for its devices itself
    with jax.set_mesh(jax.make_mesh((8,), ("data",), axis_types=(AxisType.Auto,))):
        for _ in range(2):
            spread(jnp.ones((16, 4)))
'''


def test_a_trace_only_recording_of_a_program_that_sets_its_devices_compiles_in_its_mesh(tmp_path):
    """The training cookbook's pattern: `jax_num_cpu_devices` set by the program's main
    and a `jax.set_mesh` mesh, recorded without --compile: the check's worker gets the 8
    devices the program ran on and re-enters the mesh (it was "out of date", the trace
    raising outside the mesh); a worker given fewer says so, not "out of date"."""
    if not hasattr(pytest.importorskip("jax").sharding, "AxisType"):
        pytest.skip("this jax has no explicit mesh axis types")
    from helpers import record_program

    record_program(tmp_path, OWN_DEVICES)
    [program] = json.loads((tmp_path / ".jaxlint" / "observed.json").read_text())["programs"]
    assert program["devices"] == {"count": 8, "platform": "cpu"}
    check = run_cli("check", "--dynamic", "--compile", "--no-cache", "--show-skipped", "prog.py", cwd=tmp_path,
                    timeout=600)
    out = check.stdout + check.stderr
    assert "1 function analysed, 0 skipped, 0 failed" in out and "out of date" not in out, out
    few = run_cli("check", "--dynamic", "--compile", "--no-cache", "--show-skipped", "--config",
                  "dynamic.devices = 2", "prog.py", cwd=tmp_path, timeout=600)
    out = few.stdout + few.stderr
    assert ("skipped prog.py:6 spread: the program called it under a mesh of 8 devices (data=8), and this worker "
            "has 2 cpu devices: `devices = 8` in [tool.jaxlint.dynamic] gives the CPU workers as many") in out, out
    assert "out of date" not in out


def test_the_devices_a_recording_needs_are_its_largest_mesh_where_the_program_did_not_say():
    from jaxlint.dynamic.driver import recorded_device_count

    sigs = {"m:f": {"signatures": [{"args": [], "mesh": {"axes": ["a", "b"], "sizes": [2, 4]}}, {"args": []}]},
            "m:g": {"signatures": [{"args": [], "mesh": {"axes": ["a"], "sizes": [4]}}]}}
    assert recorded_device_count([{"main": "m"}], sigs) == 8
    assert recorded_device_count([{"main": "m", "devices": {"count": 16}}], sigs) == 16
    assert recorded_device_count([{"main": "m"}], {"m:f": {"signatures": [{"args": []}]}}) == 0


LIBRARY = '''
import jax
import jax.numpy as jnp


def fit(x, steps=3):
    """A library's fitting loop: it jits its own step, anew for each fit."""
    def body(w, x):
        return w - 0.1 * jnp.mean(x * w)
    step = jax.jit(body)
    w = jnp.zeros(())
    for _ in range(steps):
        w = step(w, x)
    return w
'''


def test_functions_jitted_inside_libraries_are_named_as_not_analysed(tmp_path):
    # numpyro's SVI jits its own step: record analyses the project's jitted functions only,
    # and says which library jits it left alone, and the project's line that made several
    # (jaxopt's solver built anew per solve jits its step each time)
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "fitlib.py").write_text(LIBRARY.lstrip("\n"))
    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text("[tool.jaxlint]\n")
    (project / "run.py").write_text("import jax.numpy as jnp\nimport fitlib\n\n"
                                    "for n in (8, 9):\n    fitlib.fit(jnp.ones(n))\n")
    rec = run_cli("record", "--", "python", "run.py", cwd=project,
                  env={"PYTHONPATH": os.pathsep.join(filter(None, [str(tmp_path / "lib"),
                                                                   os.environ.get("PYTHONPATH")]))},
                  timeout=600)
    assert rec.returncode == 0, rec.stderr
    assert ("1 function jitted inside libraries, not analysed (jaxlint analyses the project's own jitted "
            "functions): fitlib:fit.<locals>.body (2 jits, all made by the call at run.py:5)") in rec.stderr, rec.stderr
