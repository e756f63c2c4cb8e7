"""Small sharded programs whose optimized HLO on 8 forced host devices is captured as
parser test data: ``python tests/data/hlo/sharded.py`` with each supported jax (it sets
``XLA_FLAGS`` itself). Absolute paths of this folder become ``tests/data/hlo``."""
import os
import sys

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P  # noqa: E402

try:
    from jax import shard_map
    KW = {}
except ImportError:  # jax 0.4
    from jax.experimental.shard_map import shard_map
    KW = {"check_rep": False}

HERE = os.path.dirname(os.path.abspath(__file__))
mesh = Mesh(np.array(jax.devices()).reshape(4, 2), ("data", "model"))


def S(*spec):
    return NamedSharding(mesh, P(*spec))


def loss(w, x):
    return jnp.mean(jnp.tanh(x @ w) ** 2)


def step(w, x):
    return w - 0.1 * jax.grad(loss)(w, x)


def scale(x):
    return jnp.tanh(x) * 2


def body(c, x):
    return c + 1.0, jax.lax.psum(x * c, "data")


def scanned(xs):
    return jax.lax.scan(body, jnp.float32(1), xs)[1]


def regroup(x):
    y = jnp.tanh(x)
    y = jax.lax.with_sharding_constraint(y, S(None, ("data", "model"), None))
    return y * 3


def mapped(x):
    return jax.lax.psum(x, "i")


F = jax.ShapeDtypeStruct
PROGRAMS = {
    "fsdp": lambda: jax.jit(step, in_shardings=(S("data", None), S("data")), out_shardings=S("data", None)).lower(
        F((256, 256), jnp.float32), F((64, 256), jnp.float32)),
    "out_reshard": lambda: jax.jit(scale, in_shardings=S("data", None), out_shardings=S(None, "model")).lower(
        F((512, 512), jnp.float32)),
    "scan_psum": lambda: jax.jit(shard_map(scanned, mesh=mesh, in_specs=P(None, None, "data"),
                                           out_specs=P(None, None, "data"), **KW)).lower(F((12, 256, 64), jnp.float32)),
    "regroup": lambda: jax.jit(regroup, in_shardings=S("model", None, "data")).lower(F((16, 16, 16), jnp.float32)),
    "pmap": lambda: jax.pmap(mapped, axis_name="i").lower(F((8, 128), jnp.float32)),
}

if __name__ == "__main__":
    for name, make in PROGRAMS.items():
        text = make().compile().as_text().replace(HERE, "tests/data/hlo")
        with open(os.path.join(HERE, f"sharded_{name}-{jax.__version__}.hlo"), "w") as f:
            f.write(text)
        print(name, jax.__version__, len(text), file=sys.stderr)
