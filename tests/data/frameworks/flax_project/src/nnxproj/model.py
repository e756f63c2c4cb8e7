import jax
import jax.numpy as jnp
import numpy as np
from flax import nnx

# token embeddings kept as a numpy table and closed over: baked into every program
EMBEDDINGS = np.random.default_rng(0).normal(size=(4096, 64)).astype(np.float32)


class Classifier(nnx.Module):
    def __init__(self, rngs: nnx.Rngs, depth: int = 10):
        self.proj = nnx.Linear(64, 64, rngs=rngs)
        self.norm = nnx.LayerNorm(64, rngs=rngs)
        self.drop = nnx.Dropout(0.1, rngs=rngs)
        self.head = nnx.Linear(64, 4, rngs=rngs)
        self.depth = depth

    def __call__(self, tokens):
        h = jnp.asarray(EMBEDDINGS)[tokens].mean(axis=1)  # JAX201

        def scan_step(carry, _):
            carry = self.norm(carry + self.proj(carry))
            jax.debug.print("carry {c}", c=carry.sum())  # JAX203
            return carry, None

        h, _ = jax.lax.scan(scan_step, h, None, length=3)
        for _ in range(self.depth):  # JAX202
            h = jax.nn.gelu(self.proj(h)) + h
        return self.head(self.drop(h))
