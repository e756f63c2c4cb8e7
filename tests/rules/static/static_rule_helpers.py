"""What the tests of several static rules share: library idioms that must stay
clean, and running a snippet or a rule's documented example under real jax."""
from __future__ import annotations

import textwrap

from helpers import lint_source
from rule_fixtures import invalid


RULES = ("JAX103", "JAX104", "JAX105", "JAX106", "JAX107")


def all_findings(src: str) -> list[str]:
    return [f"{d.code}@{d.start.line}: {d.message}" for d in lint_source(src, select=RULES)]


# ------------------------------------------------------------------ idioms that stay clean
FLAX_LINEN = """
    import functools
    import jax
    import jax.numpy as jnp
    import numpy as np
    import optax
    import flax.linen as nn
    from flax.training import train_state

    class MLP(nn.Module):
        features: tuple = (128, 10)
        dropout: float = 0.1

        @nn.compact
        def __call__(self, x, train: bool = False):
            if x.ndim > 2:
                x = x.reshape((x.shape[0], -1))
            for i, feat in enumerate(self.features):
                x = nn.Dense(feat, kernel_init=nn.initializers.normal(1 / np.sqrt(x.shape[-1])))(x)
                if i < len(self.features) - 1:
                    x = nn.relu(x)
                    x = nn.Dropout(self.dropout, deterministic=not train)(x)
            return x

    def create_train_state(rng, config):
        model = MLP()
        params = jax.jit(model.init)(rng, jnp.ones([1, 28, 28, 1]))["params"]
        tx = optax.adamw(config.learning_rate, weight_decay=config.weight_decay)
        return train_state.TrainState.create(apply_fn=model.apply, params=params, tx=tx)

    @functools.partial(jax.jit, static_argnames=("train",))
    def train_step(state, batch, dropout_rng, train=True):
        def loss_fn(params):
            logits = state.apply_fn({"params": params}, batch["image"], train=train,
                                    rngs={"dropout": dropout_rng})
            one_hot = jax.nn.one_hot(batch["label"], 10)
            loss = optax.softmax_cross_entropy(logits, one_hot).mean()
            return loss, logits
        (loss, logits), grads = jax.value_and_grad(loss_fn, has_aux=True)(state.params)
        state = state.apply_gradients(grads=grads)
        accuracy = jnp.mean(jnp.argmax(logits, -1) == batch["label"])
        return state, {"loss": loss, "accuracy": accuracy}

    def train_epoch(state, batches, rng):
        metrics = []
        for batch in batches:
            rng, dropout_rng = jax.random.split(rng)
            state, m = train_step(state, batch, dropout_rng)
            metrics.append(m)
        stacked = jax.tree_util.tree_map(lambda *xs: np.mean(xs), *jax.device_get(metrics))
        print("epoch", stacked)
        return state, stacked
"""


OPTAX_LOOP = """
    import jax
    import jax.numpy as jnp
    import optax

    def fit(params, data, steps, learning_rate=1e-3):
        optimizer = optax.chain(optax.clip_by_global_norm(1.0), optax.adam(learning_rate))
        opt_state = optimizer.init(params)

        @jax.jit
        def step(params, opt_state, batch):
            loss, grads = jax.value_and_grad(loss_fn)(params, batch)
            updates, opt_state = optimizer.update(grads, opt_state, params)
            params = optax.apply_updates(params, updates)
            return params, opt_state, loss

        losses = []
        for i, batch in zip(range(steps), data):
            params, opt_state, loss = step(params, opt_state, batch)
            losses.append(loss)
            if i % 100 == 0:
                print(f"step {i}, loss: {loss}")
        return params, losses

    def loss_fn(params, batch):
        x, y = batch
        pred = x @ params["w"] + params["b"]
        return jnp.mean(optax.l2_loss(pred, y))
"""


EQUINOX = """
    import equinox as eqx
    import jax
    import jax.numpy as jnp
    import jax.random as jr
    from jaxtyping import Array, Float

    class Linear(eqx.Module):
        weight: Array
        bias: Array
        use_bias: bool = eqx.field(static=True)

        def __init__(self, in_size, out_size, key, use_bias=True):
            wkey, bkey = jr.split(key)
            self.weight = jr.normal(wkey, (out_size, in_size))
            self.bias = jr.normal(bkey, (out_size,))
            self.use_bias = use_bias

        def __call__(self, x: Float[Array, "in"]) -> Float[Array, "out"]:
            y = self.weight @ x
            if self.use_bias:
                y = y + self.bias
            return y

    @eqx.filter_jit
    def loss(model, x: Float[Array, "batch in"], y: Float[Array, "batch out"], reduce="mean"):
        pred = jax.vmap(model)(x)
        if reduce == "mean":
            return jnp.mean((pred - y) ** 2)
        return jnp.sum((pred - y) ** 2)

    @eqx.filter_jit
    def make_step(model, x: Array, y: Array, opt_state, optim):
        grads = eqx.filter_grad(loss)(model, x, y)
        updates, opt_state = optim.update(grads, opt_state)
        model = eqx.apply_updates(model, updates)
        return model, opt_state
"""


HAIKU = """
    import haiku as hk
    import jax
    import jax.numpy as jnp
    import numpy as np

    class Attention(hk.Module):
        def __init__(self, num_heads, key_size, name=None):
            super().__init__(name=name)
            self.num_heads = num_heads
            self.key_size = key_size

        def __call__(self, q, k, v, mask=None):
            logits = jnp.einsum("...thd,...Thd->...htT", q, k) / np.sqrt(self.key_size)
            if mask is not None:
                logits = jnp.where(mask, logits, -1e30)
            return jnp.einsum("...htT,...Thd->...thd", jax.nn.softmax(logits), v)

    def forward(x, is_training: bool):
        net = hk.nets.MLP([64, 10])
        return net(x) if is_training else net(x) * 0.5

    model = hk.transform(forward)

    @jax.jit
    def apply(params, rng, x):
        return model.apply(params, rng, x, is_training=True)
"""


LAX_IDIOMS = """
    import functools
    import jax
    import jax.numpy as jnp
    from jax import lax

    def layer_norm(x, eps=1e-6):
        mean = x.mean(-1, keepdims=True)
        return (x - mean) / jnp.sqrt(x.var(-1, keepdims=True) + eps)

    @functools.partial(jax.jit, static_argnums=(2,))
    def rnn(params, xs, num_layers):
        def body(h, x, first=False):
            for layer in params["layers"][:num_layers]:
                h = jnp.tanh(h @ layer + x)
            if first:
                h = h * 0
            return h, layer_norm(h)
        h0 = jnp.zeros(xs.shape[-1])
        return lax.scan(body, h0, xs)

    def batched(f, xs, n):
        def g(x, n):
            return x * n if n > 2 else x
        return jax.vmap(g, in_axes=(0, None))(xs, n)

    @jax.jit
    def clip_step(x, tol=1e-3):
        def cond(c):
            return jnp.linalg.norm(c) > tol
        return lax.while_loop(cond, lambda c: c / 2, x)
"""


def run_module(src: str) -> dict:
    namespace: dict = {"__name__": "snippet"}
    exec(compile(textwrap.dedent(src), "snippet.py", "exec"), namespace)
    return namespace


def example(rule, index: int, call: str) -> str:
    """A rule's INVALID example (``rule.INVALID[index]``, or its fixture
    ``invalid_<index>.py``) with a line that exercises it: the example itself is what
    runs under jax."""
    return textwrap.dedent(invalid(rule, index).code) + f"\nresult = lambda: {call}\n"


def found(code: str, src: str) -> list[tuple[int, str]]:
    """(line, message) of each ``code`` finding in ``src``."""
    return [(d.start.line, d.message) for d in lint_source(src, select=[code])]


_OUTCOMES_SCRIPT = '''
import json, sys, warnings
warnings.simplefilter("ignore")
out = {}
for name, (src, call) in json.loads(sys.stdin.read()).items():
    ns = {}
    try:
        exec(compile(src, name, "exec"), ns)
        r = eval(call, ns)
        out[name] = r if isinstance(r, str) else "ok"
    except Exception as e:
        out[name] = type(e).__name__
print(json.dumps(out))
'''


def outcomes_under_jax(cases: dict[str, tuple[str, str]]) -> dict[str, str]:
    """Run each ``name -> (program, expression)`` under real jax (CPU) in one fresh
    process: "ok", the string the expression returns, or the name of the exception."""
    import json
    import os
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-c", _OUTCOMES_SCRIPT], input=json.dumps(cases), capture_output=True,
                          text=True, timeout=300, env={**os.environ, "JAX_PLATFORMS": "cpu"})
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def marked(src: str) -> list[int]:
    """The lines of ``src`` marked ``# INVALID`` (as ``helpers.lines`` numbers them)."""
    import textwrap

    text = textwrap.dedent(src).lstrip("\n")
    return [i for i, line in enumerate(text.splitlines(), 1) if "# INVALID" in line]
