import equinox as eqx
import jax
import jax.numpy as jnp


class Encoder(eqx.Module):
    cell: eqx.nn.Linear
    head: eqx.nn.Linear
    refine_steps: int = eqx.field(static=True)

    def __init__(self, key, refine_steps=12):
        k1, k2 = jax.random.split(key)
        self.cell = eqx.nn.Linear(32, 32, key=k1)
        self.head = eqx.nn.Linear(32, 4, key=k2)
        self.refine_steps = refine_steps

    def __call__(self, xs):
        def step(h, x):
            h = jnp.tanh(self.cell(h) + x)
            jax.debug.print("hidden norm {n}", n=jnp.linalg.norm(h))  # JAX203
            return h, h

        h, _ = jax.lax.scan(step, jnp.zeros(32), xs)
        for _ in range(self.refine_steps):  # JAX202
            h = jnp.tanh(self.cell(h)) + h
        return self.head(h)

    @eqx.filter_jit
    def embed(self, xs):
        return jax.vmap(self.cell)(xs)
