"""A mask built from constants inside jit, which XLA folds into a 4 MiB constant (JAX305)."""
import jax
import jax.numpy as jnp


# jaxlint: args=(f32[256,1024],)
@jax.jit
def masked(x):
    mask = jnp.zeros((1024, 1024)).at[0, :].set(1.0)
    return x @ mask  # JAX305: the folded mask is embedded in the executable
