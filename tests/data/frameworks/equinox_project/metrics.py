import jax
import jax.numpy as jnp
from jaxtyping import Array, Float

jax.config.update("jax_enable_x64", True)


@jax.jit
def log_likelihood(logits: Float[Array, "b c"]) -> Float[Array, ""]:
    return jnp.sum(jax.nn.log_softmax(logits * jnp.ones(logits.shape[-1], dtype=float)))  # JAX204


@jax.jit  # jaxlint: args=(f32[8192, 64],)
def pairwise_distances(x):
    return jnp.sqrt(((x[:, None, :] - x[None, :, :]) ** 2).sum(-1))  # JAX207
