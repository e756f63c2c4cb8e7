"""A debug print left in the body of a scan: a host round trip per step (JAX203)."""
import jax
import jax.numpy as jnp


def body(carry, x):
    carry = carry * 0.9 + x
    jax.debug.print("carry = {}", carry)  # JAX203 (JAX109 without --dynamic): runs on every iteration
    return carry, carry


# jaxlint: args=(f32[1000, 16],)
@jax.jit
def smooth(xs):
    _, ys = jax.lax.scan(body, jnp.zeros(xs.shape[1:]), xs)
    return ys
