"""A test suite is the best recorder a project has: `jaxlint record -- pytest tests`."""
import jax
import jax.numpy as jnp


def test_accuracy_of_a_jitted_metric():
    @jax.jit
    def accuracy(logits, labels):
        hits = 0.0
        for i in range(12):  # JAX202
            hits = hits + (logits[i].argmax() == labels[i])
        return hits / 12

    assert float(accuracy(jnp.eye(12), jnp.arange(12))) == 1.0
