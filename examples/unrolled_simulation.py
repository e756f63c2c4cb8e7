"""A physics step loop written as a Python loop under jit (JAX102; JAX202 with --dynamic)."""
import jax
import jax.numpy as jnp

STEPS = 500
DT = 0.01


def step(state):
    pos, vel = state
    vel = vel - DT * pos
    return pos + DT * vel, vel


@jax.jit
def simulate(pos, vel):
    state = (pos, vel)
    for _ in range(STEPS):  # JAX202 (JAX102 without --dynamic): unrolled into 500 copies of step()
        state = step(state)
    return state


if __name__ == "__main__":
    print(simulate(jnp.ones(3), jnp.zeros(3)))
