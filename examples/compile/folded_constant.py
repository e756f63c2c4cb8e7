"""A selection matrix built from constants inside jit: XLA folds it into a 4 MiB
constant stored in the executable (JAX305)."""
import jax
import jax.numpy as jnp


# jaxlint: args=(f32[256,1024],)
@jax.jit
def masked(x):
    mask = jnp.zeros((1024, 1024)).at[0, 0].set(1.0)  # JAX209 without --compile, JAX305 with it: the folded mask is embedded in the executable
    return x @ mask  # keeps feature 0 only
