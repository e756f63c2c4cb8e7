"""A flax linen + optax training script in the common style: a TrainState, the step
jitted inside main() by rebinding it to its own name."""
import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax.training import train_state

# per-class loss weights read by the loss: a table baked into the compiled step
CLASS_WEIGHTS = np.linspace(0.5, 1.5, 10 * 32768).astype(np.float32).reshape(10, 32768)


class MLP(nn.Module):
    @nn.compact
    def __call__(self, x):
        x = nn.relu(nn.Dense(64)(x))
        return nn.Dense(10)(x)


def main(epochs=2):
    model = MLP()
    rng = jax.random.PRNGKey(0)
    params = model.init(rng, jnp.ones((1, 32)))["params"]
    state = train_state.TrainState.create(apply_fn=model.apply, params=params, tx=optax.adam(1e-3))

    def train_step(state, x, y):
        def loss_fn(params):
            logits = state.apply_fn({"params": params}, x)
            w = jnp.asarray(CLASS_WEIGHTS)[y, 0]  # JAX201
            return (w * optax.softmax_cross_entropy_with_integer_labels(logits, y)).mean()
        grads = jax.grad(loss_fn)(state.params)
        return state.apply_gradients(grads=grads)
    train_step = jax.jit(train_step)

    data = np.random.default_rng(0).normal(size=(100, 32)).astype(np.float32)
    labels = np.arange(100) % 10
    for _ in range(epochs):
        for i in range(0, 100, 32):  # three batches of 32, then one of 4
            state = train_step(state, jnp.asarray(data[i:i + 32]), jnp.asarray(labels[i:i + 32]))  # JAX208
    print("step", int(state.step))


if __name__ == "__main__":
    main()
