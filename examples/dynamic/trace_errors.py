"""Functions that cannot be traced at all (JAX205), found before the first call."""
import jax
import jax.numpy as jnp


# jaxlint: args=(f32[16],)
@jax.jit
def clip_positive(x):
    if x.sum() > 0:  # JAX205 (JAX105 without --dynamic): TracerBoolConversionError
        return x
    return -x


# jaxlint: args=(f32[16], i32[])
@jax.jit
def first_n(x, n):
    return x[:n]  # JAX205: the slice size depends on a traced value


# jaxlint: args=(f32[16],)
@jax.jit
def fine(x):
    return jnp.where(x.sum() > 0, x, -x)
