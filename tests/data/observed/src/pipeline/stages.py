"""Run as `python -m pipeline.stages --data synthetic`: configuration is read from the
command line at import time, as many research scripts do."""
import sys
import time

import jax
import jax.numpy as jnp

if "--data" not in sys.argv:
    raise SystemExit("usage: python -m pipeline.stages --data NAME")
DATA = sys.argv[sys.argv.index("--data") + 1]
DATASET = time.sleep(1.5) or DATA  # a slow start (loading a dataset, say)


def loss(w, x):
    for _ in range(16):  # JAX202
        x = jnp.tanh(x @ w)
    return x.sum()


loss = jax.jit(loss)


# jaxlint: args=(f32[8,8],)
@jax.jit
def unused_by_the_run(x):
    # not called by the recorded run: traced by `check --dynamic` from its directive,
    # which imports this module with the recorded argv
    for _ in range(12):  # JAX202
        x = jnp.sin(x) * 0.5 + x
    return x


if __name__ == "__main__":
    print(DATA, loss(jnp.eye(8), jnp.ones((4, 8))))
