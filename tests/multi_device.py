"""Small sharded programs of our own, checked on 8 forced host devices by ONE real
``jaxlint check --dynamic --compile`` run (``devices = 8``: the workers get
``--xla_force_host_platform_device_count=8``, the modules build their meshes at import).
The run is shared by every test file that asks for it (tests/rules/hlo/test_jax31x.py,
tests/test_multi_device.py), across xdist workers too: the first to come makes it under
a file lock, the others read its JSON.

Each program is its own file; ``MARK`` comments name the lines a finding must point at.
"""
from __future__ import annotations

import fcntl
import json
import textwrap
from pathlib import Path

from helpers import run_cli

SELECT = ["JAX310", "JAX311", "JAX312", "JAX313", "JAX314", "JAX200", "JAX205"]

PRELUDE = '''
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

mesh = Mesh(np.array(jax.devices()).reshape(4, 2), ("data", "model"))


def S(*spec):
    return NamedSharding(mesh, P(*spec))
'''

PROGRAMS = {
    # data parallel: weights replicated on purpose, the batch sharded, gradients all-reduced
    "dp_step": '''
def loss(params, x, y):
    h = jnp.tanh(x @ params["w1"])
    return jnp.mean((h @ params["w2"] - y) ** 2)


# jaxlint: args=({"w1": f32[512,1024], "w2": f32[1024,512]}, f32[256,512], f32[256,512])
@partial(jax.jit, in_shardings=({"w1": S(), "w2": S()}, S("data"), S("data")), out_shardings={"w1": S(), "w2": S()})
def dp_step(params, x, y):
    g = jax.grad(loss)(params, x, y)
    return jax.tree_util.tree_map(lambda p, d: p - 0.01 * d, params, g)
''',
    # FSDP: every weight sharded on its first dimension, gathered where it is used
    "fsdp_step": '''
def loss(params, x, y):
    h = jnp.tanh(x @ params["w1"])
    return jnp.mean((h @ params["w2"] - y) ** 2)


W = {"w1": S("data", None), "w2": S("data", None)}


# jaxlint: args=({"w1": f32[512,1024], "w2": f32[1024,512]}, f32[256,512], f32[256,512])
@partial(jax.jit, in_shardings=(W, S("data"), S("data")), out_shardings=W)
def fsdp_step(params, x, y):
    g = jax.grad(loss)(params, x, y)
    return jax.tree_util.tree_map(lambda p, d: p - 0.01 * d, params, g)
''',
    # FSDP with the embedding table left replicated (16 MiB on every device)
    "replicated_embedding": '''
SH = {"embed": S(), "proj": S("data", None)}


# jaxlint: args=({"embed": f32[8192,512], "proj": f32[512,4096]}, i32[256])
@partial(jax.jit, in_shardings=(SH, S("data")))
def forward(params, ids):
    h = params["embed"][ids]  # MARK: embed
    return jnp.tanh(h @ params["proj"]).sum()
''',
    # computed row-sharded, returned column-sharded
    "out_reshard": '''
# jaxlint: args=(f32[1024,1024],)
@partial(jax.jit, in_shardings=S("data", None), out_shardings=S(None, "model"))
def scale(x):
    return jnp.tanh(x) * 2  # MARK: reshard
''',
    # a constraint that disagrees with how the value is computed
    "constraint_reshard": '''
# jaxlint: args=(f32[1024,1024],)
@partial(jax.jit, in_shardings=S("data", None))
def constrained(x):
    y = jnp.sin(x)  # MARK: produced
    y = jax.lax.with_sharding_constraint(y, S(None, "data"))  # MARK: constraint
    return y * 2
''',
    # an explicit psum inside a scan: one all-reduce per iteration
    "scan_psum": '''
try:
    from jax import shard_map
    KW = {}
except ImportError:  # jax 0.4
    from jax.experimental.shard_map import shard_map
    KW = {"check_rep": False}


def body(c, x):
    y = jax.lax.psum(x * c, "data")  # MARK: psum
    return c + 1.0, y


def smooth(xs):
    return jax.lax.scan(body, jnp.float32(1), xs)[1]


# jaxlint: args=(f32[12,1024,4096],)
@jax.jit
def scan_psum(xs):
    return shard_map(smooth, mesh=mesh, in_specs=P(None, None, "data"), out_specs=P(None, None, "data"), **KW)(xs)
''',
    # two shardings the partitioner cannot convert: "Involuntary full rematerialization"
    "constraint_remat": '''
# jaxlint: args=(f32[16,16,16],)
@partial(jax.jit, in_shardings=S("model", None, "data"))
def regroup(x):
    y = jnp.tanh(x)  # MARK: tanh
    y = jax.lax.with_sharding_constraint(y, S(None, ("data", "model"), None))  # MARK: constraint
    return y * 3
''',
    # a host callback in the sharded step: gathered to one device (XLA's partitioner also
    # warns of an involuntary full rematerialization of `x`; jax never caches the program)
    "callback_step": '''
# jaxlint: args=(f32[64,256],)
@partial(jax.jit, in_shardings=S("data"))
def callback_step(x):
    y = jax.pure_callback(np.sin, jax.ShapeDtypeStruct(x.shape, x.dtype), x)  # MARK: callback
    return y + 1
''',
}


def marks(name: str) -> dict[str, int]:
    """``MARK: word`` comment -> its line in the written file."""
    out = {}
    for i, line in enumerate(source(name).splitlines(), 1):
        if "# MARK: " in line:
            out[line.split("# MARK: ", 1)[1].strip()] = i
    return out


def source(name: str) -> str:
    return textwrap.dedent(PRELUDE).lstrip("\n") + "\n" + textwrap.dedent(PROGRAMS[name]).lstrip("\n")


def write_project(root: Path) -> None:
    root.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text(
        f"[tool.jaxlint]\nselect = {json.dumps(SELECT)}\n"
        "[tool.jaxlint.dynamic]\nenabled = true\ncompile = true\ndevices = 8\n")
    for name in PROGRAMS:
        (root / f"{name}.py").write_text(source(name))


def check(root: Path, *extra: str) -> dict:
    """One real run: {"diagnostics": [...JSON...], "functions": [...run report rows...]}."""
    proc = run_cli("check", *extra, "--output-format", "json", "--report", "run.json", ".", cwd=root, timeout=900)
    assert proc.returncode in (0, 1), proc.stderr[-3000:]
    return {"diagnostics": json.loads(proc.stdout),
            "functions": json.loads((root / "run.json").read_text())["functions"],
            "stderr": proc.stderr}


def shared_run(base: Path) -> dict:
    """The run over every program, made once per test session (``base``: a folder all
    xdist workers share)."""
    import jax

    out = base / f"multi_device-{jax.__version__}.json"
    with open(base / "multi_device.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not out.exists():
            root = base / f"multi_device-{jax.__version__}"
            write_project(root)
            out.write_text(json.dumps(check(root, "--no-cache")))
    return json.loads(out.read_text())


def findings(run: dict, program: str, code: str | None = None) -> list[dict]:
    return [d for d in run["diagnostics"] if d["filename"] == f"{program}.py" and (code is None or d["code"] == code)]
