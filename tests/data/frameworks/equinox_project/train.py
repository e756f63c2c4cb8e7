import threading

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import optax

from model import Encoder

optimizer = optax.adam(1e-3)
# a lookup table closed over by the loss: baked into every compiled program
CLASS_WEIGHTS = np.random.default_rng(0).uniform(size=(1024, 512)).astype(np.float32)
FREQS = np.arange(1024, dtype=np.float32)


def loss_fn(model, xs, labels):
    logits = jax.vmap(model)(xs)
    weights = jnp.asarray(CLASS_WEIGHTS)[labels, :4]  # JAX201
    return jnp.mean(optax.softmax_cross_entropy_with_integer_labels(logits * weights, labels))


@eqx.filter_jit
def train_step(model, opt_state, xs, labels):  # JAX206
    loss, grads = eqx.filter_value_and_grad(loss_fn)(model, xs, labels)
    updates, opt_state = optimizer.update(grads, opt_state, eqx.filter(model, eqx.is_array))
    model = eqx.apply_updates(model, updates)
    return model, opt_state, loss


@eqx.filter_jit
def predict(model, xs):
    return jax.vmap(model)(xs).argmax(-1)


@eqx.filter_jit
def spectral_features(signals):
    grid = jnp.asarray(FREQS)[:, None] * jnp.asarray(FREQS)[None, :]
    basis = jnp.cos(np.pi / 1024 * (grid + 0.5))  # JAX209
    return signals @ basis


@eqx.filter_jit
def summarize(model, xs):
    out = jax.vmap(model)(xs)
    if out.mean() > 0:  # JAX205
        return out.max()
    return out.min()


class Guarded(eqx.Module):
    scale: jax.Array
    lock: threading.Lock = eqx.field(static=True)


@eqx.filter_jit
def rescale(guarded, xs):
    return xs * guarded.scale


def main(steps=4):
    key = jax.random.PRNGKey(0)
    model = Encoder(key)
    opt_state = optimizer.init(eqx.filter(model, eqx.is_array))
    for step in range(steps):
        batch = 16 if step < steps - 1 else 10  # the last batch is smaller
        xs = jax.random.normal(jax.random.fold_in(key, step), (batch, 8, 32))
        labels = jnp.arange(batch) % 4
        model, opt_state, loss = train_step(model, opt_state, xs, labels)  # JAX208
        print("step", step, float(loss))
    print(predict(model, xs), model.embed(xs[:, 0]).shape)
    print(spectral_features(jnp.ones((16, 1024))).shape)
    print(rescale(Guarded(jnp.float32(2.0), threading.Lock()), xs).shape)
    try:
        summarize(model, xs)
    except Exception as e:  # the summary is optional
        print("no summary:", type(e).__name__)


if __name__ == "__main__":
    main()
