"""Idiomatic JAX, flax, equinox, haiku and optax code that every static rule must leave
alone, and syntax the rules must survive."""
from __future__ import annotations

import pytest

from helpers import lint_source
from static_rule_helpers import EQUINOX, FLAX_LINEN, HAIKU, LAX_IDIOMS, OPTAX_LOOP, RULES, all_findings, found


@pytest.mark.parametrize("src", [FLAX_LINEN, OPTAX_LOOP, EQUINOX, HAIKU, LAX_IDIOMS],
                         ids=["flax-linen", "optax-loop", "equinox", "haiku", "lax-idioms"])
def test_library_idioms_stay_clean(src):
    assert all_findings(src) == []


def test_rules_survive_unusual_syntax():
    # lint_source asserts that no rule raised; findings here are incidental
    lint_source("""
        import jax
        import jax.numpy as jnp
        import numpy as np

        @jax.jit
        async def agen(x, *a, k=lambda v=jnp.ones(2): v, **kw):
            async with ctx() as (p, q):
                pass
            match x:
                case [y, *rest] if (n := y) > 0:
                    return n
                case {"a": z}:
                    return z
            class Inner:
                def m(self, v):
                    nonlocal x
                    x = v
            del x
            return [w for w in (yield_ := a) if (u := w)]

        @jax.jit
        def star(*xs, **kw):
            global G
            G, *H = xs
            (lambda: jax.jit(lambda: 1)())()
            try:
                raise ValueError(np.sum(*xs))
            except ValueError as e:
                print(e)
            finally:
                jax.jit(star)(*xs)
            return {**kw, "x": xs}[0] if xs else -xs[0]
        """, select=RULES)


@pytest.mark.parametrize("code", ["JAX108", "JAX109", "JAX110", "JAX111", "JAX112", "JAX113", "JAX114"])
@pytest.mark.parametrize("source", ["IDIOMATIC", "ECOSYSTEM"])
def test_rules_stay_quiet_on_idiomatic_training_code(code, source):
    assert found(code, globals()[source]) == []


IDIOMATIC = """
import functools
import jax
import jax.numpy as jnp
import numpy as np
import optax

def init(key, sizes):
    params = []
    for n_in, n_out in zip(sizes[:-1], sizes[1:]):
        key, sub = jax.random.split(key)
        params.append({"w": jax.random.normal(sub, (n_in, n_out)) / np.sqrt(n_in), "b": jnp.zeros(n_out)})
    return params

def forward(params, x):
    for layer in params[:-1]:
        x = jax.nn.relu(x @ layer["w"] + layer["b"])
    last = params[-1]
    return x @ last["w"] + last["b"]

def loss_fn(params, x, y):
    logits = forward(params, x)
    if logits.ndim == 2:
        logits = logits - logits.max(axis=-1, keepdims=True)
    return optax.softmax_cross_entropy_with_integer_labels(logits, y).mean()

optimizer = optax.adam(1e-3)

@functools.partial(jax.jit, donate_argnums=(0, 1))
def train_step(params, opt_state, x, y):
    loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
    updates, opt_state = optimizer.update(grads, opt_state, params)
    params = optax.apply_updates(params, updates)
    return params, opt_state, loss

def main(key, data):
    key, init_key = jax.random.split(key)
    params = init(init_key, (784, 512, 10))
    opt_state = optimizer.init(params)
    for step, (x, y) in enumerate(data):
        key, drop_key = jax.random.split(key)
        params, opt_state, loss = train_step(params, opt_state, x, y)
        if step % 100 == 0:
            print(step, float(loss))
    return params
"""


ECOSYSTEM = """
from functools import partial
import equinox as eqx
import flax.linen as nn
import jax
import jax.numpy as jnp

class MLP(eqx.Module):
    layers: list

    def __init__(self, key, sizes):
        keys = jax.random.split(key, len(sizes) - 1)
        self.layers = [eqx.nn.Linear(i, o, key=k) for i, o, k in zip(sizes[:-1], sizes[1:], keys)]

    def __call__(self, x):
        for layer in self.layers[:-1]:
            x = jax.nn.relu(layer(x))
        return self.layers[-1](x)

def loss_fn(model, x, y):
    pred = jax.vmap(model)(x)
    return jnp.mean((pred - y) ** 2)

@eqx.filter_jit
def make_step(model, x, y, lr):
    loss, grads = eqx.filter_value_and_grad(loss_fn)(model, x, y)
    model = jax.tree_util.tree_map(lambda m, g: m - lr * g, model, grads)
    return loss, model

class Block(nn.Module):
    features: int

    @nn.compact
    def __call__(self, x, train: bool = False):
        x = nn.Dense(self.features)(x)
        if x.ndim == 3:
            x = x.reshape(x.shape[0], -1)
        return nn.Dropout(0.1, deterministic=not train)(x)

def sample(key, logits, temperature=1.0):
    def body(carry, _):
        key, tokens = carry
        key, sub = jax.random.split(key)
        tok = jax.random.categorical(sub, logits / temperature)
        tokens = tokens.at[0].set(tok)
        return (key, tokens), tok
    return jax.lax.scan(body, (key, jnp.zeros(4, jnp.int32)), None, length=8)

@partial(jax.jit, static_argnames=("num_steps", "deterministic"))
def rollout(params, key, x, num_steps: int, deterministic: bool = False):
    def step(carry, i):
        x, key = carry
        key, noise_key = jax.random.split(key)
        noise = jnp.where(deterministic, 0.0, jax.random.normal(noise_key, x.shape))
        x = x + params["w"] * noise
        x = x.at[i % x.shape[0]].add(1.0)
        return (x, key), jnp.sum(jnp.where(x > 0, x, 0.0))
    return jax.lax.scan(step, (x, key), jnp.arange(num_steps))

out = rollout({"w": jnp.ones(3)}, jax.random.key(0), jnp.zeros(3), num_steps=10)
"""
