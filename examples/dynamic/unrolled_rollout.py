"""A physics rollout written as a Python loop: 200 copies of the step in the traced
program (JAX202), and the static JAX102 sees the same loop (reported once)."""
import jax
import jax.numpy as jnp

DT = 0.01


def step(state):
    pos, vel = state
    acc = -jnp.sin(pos)
    return pos + DT * vel, vel + DT * acc


# jaxlint: args=((f32[128], f32[128]),)
@jax.jit
def rollout(state):
    for _ in range(200):  # JAX202 (JAX102 without --dynamic): use jax.lax.fori_loop
        state = step(state)
    return state


def rollout_scan(state):
    """The fix: one `scan` equation however many steps."""
    return jax.lax.fori_loop(0, 200, lambda i, s: step(s), state)
