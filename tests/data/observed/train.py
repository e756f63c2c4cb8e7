"""A training script written the way real ones are: configuration from the command
line, the jitted steps built inside main() and factories, run under __main__.

Every `# JAX2xx` / `# JAX3xx` comment marks a line `jaxlint record --compile` then
`jaxlint check --dynamic --compile` must report, and nothing else of those tiers fires.
"""
import argparse
import functools

import jax
import jax.numpy as jnp
import numpy as np

# a lookup table read by a jitted lambda: baked into its program
CLASS_TABLE = np.random.default_rng(0).normal(size=(512, 1024)).astype(np.float32)


def mlp(params, x):
    h = jnp.tanh(x @ params["w1"])
    return h @ params["w2"]


def make_train_step(lr):
    """A factory: the jitted step is a closure over `lr`."""
    def loss_fn(params, x, y):
        return jnp.mean((mlp(params, x) - y) ** 2)

    @jax.jit
    def train_step(params, x, y):
        grads = jax.grad(loss_fn)(params, x, y)
        return jax.tree.map(lambda p, g: p - lr * clip(g), params, grads)

    return train_step


@jax.jit
def clip(g):
    # called inside train_step's trace with every parameter's shape: inlined there
    return jnp.clip(g, -1.0, 1.0)


class Evaluator:
    def __init__(self, scale):
        self.scale = scale

    @functools.partial(jax.jit, static_argnums=0)
    def score(self, params, x):
        out = mlp(params, x)
        for _ in range(24):  # JAX202
            out = jnp.tanh(out) * self.scale
        return out.mean()


@functools.partial(jax.jit, donate_argnums=(0, 1))  # JAX302
def apply_decay(params, batch):
    return jax.tree.map(lambda p: p * (1.0 - 1e-4 * batch.mean()), params)


@jax.jit
def spread(points):
    def energy(p):
        d = jnp.sort(p[:, None, :] - p[None, :, :], axis=-1)  # JAX304
        return jnp.sum(d[..., 0] ** 2)
    return jax.grad(energy)(points)


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--batch", type=int, default=32)
    args = parser.parse_args(argv)
    k1, k2, k3, k4 = jax.random.split(jax.random.PRNGKey(0), 4)
    params = {"w1": jax.random.normal(k1, (64, 128)) * 0.1, "w2": jax.random.normal(k2, (128, 8)) * 0.1}

    def normalize(x):
        return (x - x.mean()) / (x.std() + 1e-6)
    normalize = jax.jit(normalize)

    train_step = make_train_step(0.01)
    data = np.random.default_rng(1).normal(size=(4 * args.batch + 20, 64)).astype(np.float32)
    for i in range(0, len(data), args.batch):
        x = normalize(jnp.asarray(data[i:i + args.batch]))  # JAX208
        y = jnp.zeros((x.shape[0], 8))
        params = train_step(params, x, y)  # JAX208
    print("score", Evaluator(0.5).score(params, x))

    embed = jax.jit(lambda ids: jnp.take(jnp.asarray(CLASS_TABLE), ids, axis=0))  # JAX201
    print(embed(jnp.arange(4)).shape)

    # a frozen copy of the model, bound by functools.partial: baked in as constants
    big = {"w1": jax.random.normal(k3, (64, 8192)), "w2": jax.random.normal(k4, (8192, 8))}
    predict = jax.jit(functools.partial(mlp, big))  # JAX201
    print(predict(x).shape)

    for scale in (1.0, 2.0, 3.0):
        print(jax.jit(lambda v: v * scale)(x).sum())  # JAX208

    params = apply_decay(params, jnp.ones((args.batch, 64)))
    print(spread(jnp.ones((1024, 8))).shape)
    return params


if __name__ == "__main__":
    @jax.jit
    def report(values):
        def body(c, v):
            jax.debug.print("value {v}", v=v)  # JAX203
            return c + v, None
        return jax.lax.scan(body, 0.0, values)[0]

    main()
    report(jnp.arange(3.0))
