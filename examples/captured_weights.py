"""Weights closed over instead of passed in (JAX101; JAX201 with --dynamic)."""
import jax
import jax.numpy as jnp
import numpy as np

HIDDEN = 2048
W1 = np.random.randn(784, HIDDEN).astype(np.float32)  # 6 MiB, baked into every compile
W2 = np.random.randn(HIDDEN, 10).astype(np.float32)


@jax.jit
def predict(x):
    h = jnp.tanh(x @ W1)  # JAX201 (JAX101 without --dynamic): W1 is a constant of the compiled program
    return h @ W2


if __name__ == "__main__":
    print(predict(jnp.ones((8, 784))).shape)
