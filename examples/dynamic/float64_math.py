"""x64 turned on (JAX112) lets 64-bit math in through a numpy constant (JAX204)."""
import jax
import jax.numpy as jnp
import numpy as np

jax.config.update("jax_enable_x64", True)  # JAX112: x64 on in a module with traced code

WINDOW = np.hanning(256)  # float64


# jaxlint: args=(f32[64, 256],)
@jax.jit
def spectrum(frames):
    return jnp.abs(jnp.fft.rfft(frames * WINDOW))  # JAX204: float64 / complex128


# jaxlint: args=(f32[64, 256],)
@jax.jit
def spectrum32(frames):
    return jnp.abs(jnp.fft.rfft(frames * WINDOW.astype(np.float32)))
