"""Small programs whose optimized HLO for a TPU v5e (compiled deviceless, jax[tpu]) is
captured as parser test data (make_tpu_hlo.py): the TPU's layouts, memory spaces, memory
moves, multi-output fusions and host transfers, read without libtpu."""
import jax
import jax.numpy as jnp

from programs import chain


def loss(p, x, y):
    h = jnp.tanh(x @ p["w1"])
    return jnp.mean((h @ p["w2"] - y) ** 2)


def train_step(p, opt, x, y):
    l, g = jax.value_and_grad(loss)(p, x, y)
    m = jax.tree.map(lambda m, g: 0.9 * m + 0.1 * g, opt["m"], g)
    v = jax.tree.map(lambda v, g: 0.999 * v + 0.001 * g * g, opt["v"], g)
    p = jax.tree.map(lambda p, m, v: p - 1e-3 * m / (jnp.sqrt(v) + 1e-8), p, m, v)
    return p, {"m": m, "v": v}, l


def padded(x, w, b, s):
    return x @ w, b * 2, s + 1


def decay(xs):
    return jax.lax.scan(lambda c, x: (0.9 * c + jnp.tanh(x), None), jnp.zeros(xs.shape[1:]), xs)[0]


def programs(device):
    """name -> (function, abstract arguments on ``device``)."""
    sharding = jax.sharding.SingleDeviceSharding(device)

    def a(shape, dtype=jnp.float32):
        return jax.ShapeDtypeStruct(shape, dtype, sharding=sharding)

    w = {"w1": a((512, 1024)), "w2": a((1024, 512))}
    return {
        "train_step": (train_step, (w, {"m": dict(w), "v": dict(w)}, a((64, 512)), a((64, 512)))),
        "chain": (chain, (a((128, 256)), a((128, 256)))),
        # feature dimensions of 200 and 100, a bf16 batch of 3 rows, a scalar
        "padded": (padded, (a((1000, 200)), a((200, 100)), a((3, 200), jnp.bfloat16), a(()))),
        # a scan of 12 steps: the TPU's while carries no known_trip_count
        "decay": (decay, (a((12, 256, 256)),)),
    }


def fsdp_step(params, x, y):
    g = jax.grad(loss)(params, x, y)
    return jax.tree.map(lambda p, d: p - 0.01 * d, params, g)


def sharded_programs(devices):
    """name -> (function, jit keyword arguments, abstract arguments) on a v5e-8's
    ``devices``, a mesh of data 4 x model 2 (as tests/multi_device.py builds on the CPU)."""
    import numpy as np
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

    mesh = Mesh(np.array(devices).reshape(4, 2), ("data", "model"))

    def s(*spec):
        return NamedSharding(mesh, P(*spec))

    w = {"w1": s("data", None), "w2": s("data", None)}
    args = ({"w1": jax.ShapeDtypeStruct((512, 1024), jnp.float32), "w2": jax.ShapeDtypeStruct((1024, 512), jnp.float32)},
            jax.ShapeDtypeStruct((256, 512), jnp.float32), jax.ShapeDtypeStruct((256, 512), jnp.float32))
    return {"fsdp_step": (fsdp_step, {"in_shardings": (w, s("data"), s("data")), "out_shardings": w}, args)}
