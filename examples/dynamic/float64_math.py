"""64-bit math slipped in through a numpy constant once x64 is on (JAX204)."""
import jax
import jax.numpy as jnp
import numpy as np

jax.config.update("jax_enable_x64", True)

WINDOW = np.hanning(256)  # float64


# jaxlint: args=(f32[64, 256],)
@jax.jit
def spectrum(frames):
    return jnp.abs(jnp.fft.rfft(frames * WINDOW))  # JAX204: float64 / complex128


# jaxlint: args=(f32[64, 256],)
@jax.jit
def spectrum32(frames):
    return jnp.abs(jnp.fft.rfft(frames * WINDOW.astype(np.float32)))
