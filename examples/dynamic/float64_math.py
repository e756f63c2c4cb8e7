"""x64 turned on lets 64-bit math in through a numpy constant (JAX204); JAX112 reports the setting with `report-x64-projects`."""
import jax
import jax.numpy as jnp
import numpy as np

jax.config.update("jax_enable_x64", True)  # float64 as policy: JAX112 with report-x64-projects

WINDOW = np.hanning(256)  # float64


# jaxlint: args=(f32[64, 256],)
@jax.jit
def spectrum(frames):
    return jnp.abs(jnp.fft.rfft(frames * WINDOW))  # JAX204: float64 / complex128


# jaxlint: args=(f32[64, 256],)
@jax.jit
def spectrum32(frames):
    return jnp.abs(jnp.fft.rfft(frames * WINDOW.astype(np.float32)))
