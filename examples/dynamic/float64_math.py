"""64-bit math slipped in through a numpy constant once x64 is on (JAX112 for the
switch, JAX204 for the float64 math it lets in)."""
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
