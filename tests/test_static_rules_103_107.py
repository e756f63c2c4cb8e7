"""Fixture tests for the static rules JAX103-JAX107, beyond their VALID/INVALID examples:
tricky cases, library idioms that must stay clean, fixes, and the jit-map facts the
rules rely on. ``test_*_really_*`` run the snippets under real jax (CPU) to check that
what a rule claims (a trace-time failure, a leaked tracer, a recompile per call) is
what jax does, and that what it leaves alone runs."""
from __future__ import annotations

import ast
import contextlib
import io
import textwrap

import pytest

from helpers import fixed, lines, lint_source, messages
from jaxlint.diagnostic import Severity
from jaxlint.static.semantic import ModuleModel

RULES = ("JAX103", "JAX104", "JAX105", "JAX106", "JAX107")


def all_findings(src: str) -> list[str]:
    return [f"{d.code}@{d.start.line}: {d.message}" for d in lint_source(src, select=RULES)]


def traced_params(src: str) -> dict[str, set[str]]:
    model = ModuleModel(ast.parse(textwrap.dedent(src)), "m")
    return {f.qualname: set(f.traced_params) for f in model.functions if f.traced}


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


@pytest.mark.parametrize("src", [FLAX_LINEN, OPTAX_LOOP, EQUINOX, HAIKU, LAX_IDIOMS],
                         ids=["flax-linen", "optax-loop", "equinox", "haiku", "lax-idioms"])
def test_library_idioms_stay_clean(src):
    assert all_findings(src) == []


# ------------------------------------------------------------------ JAX103 jit-per-call
def test_jax103_immediate_jit_in_a_while_loop_and_comprehension_is_flagged():
    assert lines("JAX103", """
        import jax

        def f(x):
            return x + 1

        def run(x):
            while x.sum() < 10:
                x = jax.jit(f)(x)
            return [jax.jit(lambda v: v * 2)(v) for v in x]
        """) == [8, 9]


def test_jax103_jit_of_a_loop_variable_function_is_a_different_function_each_time():
    assert lines("JAX103", """
        import jax

        def bench(fns, x):
            for fn in fns:
                jax.jit(fn)(x)
            return {name: jax.jit(fn) for name, fn in zip("ab", fns)}
        """) == []


def test_jax103_wrapper_that_escapes_the_loop_is_a_table_not_a_rebuild():
    assert lines("JAX103", """
        import jax

        def build(cfgs):
            steps = []
            for cfg in cfgs:
                step = jax.jit(lambda x: x * 2)
                steps.append(step)
            return steps
        """) == []


def test_jax103_bound_method_and_nested_def_are_new_objects_each_call():
    msgs = messages("JAX103", """
        import jax

        class Model:
            def forward(self, x):
                return x * 2

            def predict(self, x):
                return jax.jit(self.forward)(x)

        def outer(x):
            def inner(v):
                return v + 1
            return jax.jit(inner)(x)
        """)
    assert len(msgs) == 2
    assert all("traced and compiled again" in m for m in msgs)
    assert "bound method `self.forward`" in msgs[0] and "nested def `inner`" in msgs[1]


def test_jax103_unknown_target_is_flagged_only_where_it_runs_repeatedly_with_a_hedged_message():
    src = """
        import jax

        def predict(model, x):
            return jax.jit(model.apply)(x)
        """
    assert messages("JAX103", src) == []
    (msg,) = messages("JAX103", src + """
        def serve(model, xs):
            while True:
                predict(model, xs)
        """)
    assert "if it is a new function object each time" in msg


def test_jax103_nested_jit_created_once_and_called_in_a_loop_is_fine():
    assert lines("JAX103", """
        import jax

        def train(params, batches):
            @jax.jit
            def step(p, b):
                return p - 0.1 * b
            for b in batches:
                params = step(params, b)
            return params

        def main(params, batches):
            for _ in range(3):
                train(params, batches)
        """) == []


def test_jax103_jit_inside_a_function_called_once_is_only_flagged_when_invoked_immediately():
    src = """
        import jax

        def evaluate(params, x):
            fwd = jax.jit(lambda p, v: p * v)
            return fwd(params, x)
        """
    assert lines("JAX103", src) == []
    assert lines("JAX103", src + """
        def main(params, data):
            return [evaluate(params, x) for x in data]
        """) == [4]


def test_jax103_repeated_calls_propagate_through_callers():
    assert lines("JAX103", """
        import jax

        def apply(p, x):
            f = jax.jit(lambda a, b: a * b)
            return f(p, x)

        def epoch(p, data):
            return apply(p, data)

        def train(p, data):
            for _ in range(10):
                epoch(p, data)
        """) == [4]


def test_jax103_test_code_is_skipped_unless_asked():
    src = """
        import jax

        def f(x):
            return x

        class ModelTest:
            def test_jit(self):
                for i in range(3):
                    self.check(jax.jit(f)(i) + 1)
        """
    assert lines("JAX103", src) == []
    assert lines("JAX103", src, **{"check-tests": True}) == [9]
    assert lint_source("import jax\ndef f(x):\n    for i in x:\n        jax.jit(f)(i)\n", select=["JAX103"],
                       path="pkg/model_test.py") == []


def test_jax103_pmap_and_filter_jit_are_jit_wrappers_too():
    assert lines("JAX103", """
        import equinox as eqx
        import jax

        def f(x):
            return x

        def run(xs):
            for x in xs:
                jax.pmap(f)(x)
                eqx.filter_jit(f)(x)
        """) == [9, 10]


def test_jax103_fix_reuses_an_existing_module_level_wrapper():
    assert fixed("JAX103", """
        import jax

        def f(x):
            return x * 2

        f_fast = jax.jit(f)

        def run(xs):
            return [jax.jit(f)(x) for x in xs]
        """) == textwrap.dedent("""\
        import jax

        def f(x):
            return x * 2

        f_fast = jax.jit(f)

        def run(xs):
            return [f_fast(x) for x in xs]
        """)


@pytest.mark.parametrize("src", [
    # a static_argnums that is not a literal may depend on the call
    """
    import jax

    def f(x, n):
        return x * n

    def run(xs, spec):
        return [jax.jit(f, static_argnums=spec)(x, 2) for x in xs]
    """,
    # a lambda has no name to hoist
    """
    import jax

    def run(xs):
        return [jax.jit(lambda v: v + 1)(x) for x in xs]
    """,
    # the function is redefined in the loop: each iteration jits a new one
    """
    import jax

    def run(xs):
        for x in xs:
            def f(v):
                return v + x
            print(jax.jit(f)(x))
    """,
], ids=["non-literal-static-argnums", "lambda", "redefined-in-the-loop"])
def test_jax103_no_fix_where_hoisting_is_not_well_defined(src):
    diags = lint_source(src, select=["JAX103"])
    assert all(d.fix is None for d in diags)


@pytest.mark.parametrize("src, expected", [
    # f is a nested def: the wrapper is made in the function, before the loop
    ("""
    import jax

    def run(xs):
        def f(x):
            return x
        return [jax.jit(f)(x) for x in xs]
    """, """
    import jax

    def run(xs):
        def f(x):
            return x
        f_jit = jax.jit(f)
        return [f_jit(x) for x in xs]
    """),
    # jax is imported inside the function: so is the wrapper made
    ("""
    def f(x):
        return x

    def run(xs):
        import jax
        return [jax.jit(f)(x) for x in xs]
    """, """
    def f(x):
        return x

    def run(xs):
        import jax
        f_jit = jax.jit(f)
        return [f_jit(x) for x in xs]
    """),
], ids=["nested-def", "local-import"])
def test_jax103_fix_makes_a_local_wrapper_before_the_outermost_loop(src, expected):
    assert fixed("JAX103", src) == textwrap.dedent(expected).lstrip("\n")


def test_jax103_fix_name_avoids_every_name_in_the_module():
    out = fixed("JAX103", """
        import jax

        def g(x):
            return x

        def run(x, g_jit):
            for _ in range(3):
                x = jax.jit(g)(x)
            return x
        """)
    assert "g_jit_2 = jax.jit(g)" in out and "x = g_jit_2(x)" in out
    ast.parse(out)


# ------------------------------------------------------------------ JAX104 numpy-on-tracer
def test_jax104_isinstance_narrowing_keeps_the_traced_branches():
    assert lines("JAX104", """
        import jax
        import numpy as np

        @jax.jit
        def f(x, y):
            if isinstance(x, jax.Array):
                a = np.sum(x)
            else:
                a = np.sum(x)
            if isinstance(y, (int, np.ndarray)) and y.ndim:
                b = np.sum(y)
            else:
                b = np.sum(y)
            if not isinstance(x, np.ndarray):
                return np.mean(x)
            return a + b
        """) == [7, 13, 15]


def test_jax104_numpy_on_shapes_static_args_and_constants_is_clean():
    assert lines("JAX104", """
        import functools
        import jax
        import jax.numpy as jnp
        import numpy as np

        @functools.partial(jax.jit, static_argnames="dims")
        def f(x, dims):
            size = np.prod(x.shape[1:])
            table = np.asarray(dims)
            eps = np.finfo(np.float32).eps
            ndim = np.ndim(x)
            return x.reshape(-1, size) * np.sqrt(size) + table.sum() + eps + ndim
        """) == []


def test_jax104_list_of_tracers_and_dtype_constructor_are_flagged():
    assert lines("JAX104", """
        import jax
        import numpy as np

        @jax.jit
        def f(x, y):
            pair = np.array([x, y])
            return np.float32(x) + pair
        """) == [6, 7]


def test_jax104_fix_imports_jax_numpy_when_missing_and_np_random_has_none():
    src = """
        import jax
        import numpy as np

        @jax.jit
        def f(x):
            return np.sum(x) + np.random.rand()
        """
    diags = lint_source(src, select=["JAX104"])
    assert [d.fix is not None for d in diags] == [True, False]
    assert fixed("JAX104", src) == textwrap.dedent("""\
        import jax
        import numpy as np
        import jax.numpy as jnp

        @jax.jit
        def f(x):
            return jnp.sum(x) + np.random.rand()
        """)


def test_jax104_fix_uses_the_modules_own_jax_numpy_alias():
    assert fixed("JAX104", """
        import jax
        import numpy as np
        from jax import numpy as xp

        @jax.jit
        def f(x):
            return np.linalg.norm(x) + np.fft.rfft(x).real.sum()
        """) == textwrap.dedent("""\
        import jax
        from jax import numpy as xp

        @jax.jit
        def f(x):
            return xp.linalg.norm(x) + xp.fft.rfft(x).real.sum()
        """)


def test_jax104_no_fix_when_the_alias_is_shadowed_where_the_call_is():
    diags = lint_source("""
        import jax
        import jax.numpy as jnp
        import numpy as np

        @jax.jit
        def f(x, jnp):
            return np.sum(x)
        """, select=["JAX104"])
    assert len(diags) == 1 and diags[0].fix is None


def test_jax104_numpy_inside_a_pure_callback_host_function_is_clean():
    assert lines("JAX104", """
        import jax
        import numpy as np

        @jax.jit
        def f(x):
            def host(v):
                return np.linalg.eigvals(np.asarray(v)).real
            return jax.pure_callback(host, jax.ShapeDtypeStruct(x.shape[:1], x.dtype), x)
        """) == []


# ------------------------------------------------------------------ JAX105 traced-control-flow
def test_jax105_each_python_conversion_is_reported_once():
    diags = lint_source("""
        import jax
        import jax.numpy as jnp

        @jax.jit
        def f(x, y):
            if x.sum() > 0 and not y.any():
                x = -x
            while bool(x.mean() > 1):
                x = x / 2
            return [v for v in x if v > 0]
        """, select=["JAX105"])
    assert [(d.start.line, d.data["construct"]) for d in diags] == [
        (6, "if"), (8, "bool()"), (10, "comprehension filter")]
    assert all(d.severity is Severity.ERROR for d in diags)


@pytest.mark.parametrize("test", [
    "x.shape[0] > 1", "x.ndim == 2 or x.size == 0", "x.dtype == jnp.float32", "len(x) > 3",
    "mask is None", "isinstance(x, tuple)", "jnp.issubdtype(x.dtype, jnp.floating)",
    "cfg.use_bias", "config.n > 2", "mode == 'train'", "args", "kwargs", "options",
    "jax.lax.axis_size('i') > 1", "jax.device_count() > 1", "extra",
])
def test_jax105_static_tests_stay_clean(test):
    assert lines("JAX105", f"""
        import jax
        import jax.numpy as jnp

        @jax.jit
        def f(x, cfg, config, mode, mask=None, *args, options=(), **kwargs):
            extra = jax.tree.map(lambda v: v, args)
            if {test}:
                x = x + 1
            return x
        """) == []


def test_jax105_declared_flag_of_a_jitted_function_is_an_error_and_a_bare_pytree_a_warning():
    diags = lint_source("""
        import jax

        @jax.jit
        def f(x, training: bool, batch):
            if training:
                x = x * 2
            if batch:
                x = x + 1
            return x
        """, select=["JAX105"])
    assert [(d.start.line, d.severity) for d in diags] == [(5, Severity.ERROR), (7, Severity.WARNING)]
    assert "make `training` a static argument" in diags[0].message
    assert "pytree container" in diags[1].message


def test_jax105_comprehension_variables_do_not_leak_between_comprehensions():
    assert lines("JAX105", """
        import operator
        import jax

        @jax.jit
        def f(x, sizes=(1, 2)):
            starts = [i * 2 for i in x]
            sizes = tuple(operator.index(i) for i in sizes)
            return starts, sizes
        """) == []


def test_jax105_helper_called_with_python_values_is_clean_and_with_tracers_is_not():
    src = """
        import jax

        def scale(x, factor):
            if factor > 1:
                return x * factor
            return x

        @jax.jit
        def f(x, y):
            return scale(x, 2.0) + scale(x, {arg})
        """
    assert lines("JAX105", src.replace("{arg}", "3")) == []
    assert lines("JAX105", src.replace("{arg}", "y")) == [4]


def test_jax105_grad_traces_only_argnums_and_vmap_in_axes_none_stays_python():
    assert traced_params("""
        import jax

        def loss(params, x, training):
            return params

        def g(x, n):
            return x

        @jax.jit
        def step(params, x):
            a = jax.grad(loss)(params, x, True)
            b = jax.grad(loss, argnums=(0, 1))
            return a, b, jax.vmap(g, in_axes=(0, None))
        """) == {"step": {"params", "x"}, "loss": {"params", "x"}, "g": {"x"}}


def test_jax105_non_literal_static_argnums_leaves_parameters_unknown():
    assert lines("JAX105", """
        import jax

        STATIC = (1,)

        def f(x, n):
            if n > 2:
                return x
            return -x

        g = jax.jit(f, static_argnums=STATIC)
        h = jax.jit(f, **{"static_argnums": 1})
        """) == []


def test_jax105_partial_keywords_bound_before_vmap_are_not_traced():
    assert lines("JAX105", """
        import functools
        import jax

        def kernel(q, k, block=16, normalize=True):
            assert q.shape[-1] % block == 0
            if normalize:
                q = q / 2
            return q @ k

        def run(q, k):
            inner = functools.partial(kernel, block=32, normalize=False)
            return jax.vmap(inner)(q, k)
        """) == []


def test_jax105_results_of_grad_and_vmap_transforms_are_certainly_traced():
    diags = lint_source("""
        import jax

        @jax.jit
        def step(params, batch):
            loss, grads = jax.value_and_grad(loss_fn)(params, batch)
            grad_fn = jax.grad(loss_fn)
            g2 = grad_fn(params, batch)
            if loss < 0.1 or g2 > 0:
                params = params * 0.5
            return params

        def loss_fn(p, b):
            return (p * b).sum()
        """, select=["JAX105"])
    assert [(d.start.line, d.severity) for d in diags] == [(8, Severity.ERROR)]


def test_grad_results_are_traced_even_through_an_annotated_pytree_parameter():
    # `state: TrainState` hides `state.params` (its fields may be static), but what the
    # gradient transform returns under jit is staged out whatever went in
    src = """
        import jax
        import numpy as np
        from flax.training.train_state import TrainState

        @jax.jit
        def train_step(state: TrainState, batch: dict):
            def loss_fn(params):
                logits = state.apply_fn({"params": params}, batch["image"])
                return logits.mean(), logits

            (loss, logits), grads = jax.value_and_grad(loss_fn, has_aux=True)(state.params)
            if loss > 10:
                loss = loss * 0.0
            return state.apply_gradients(grads=grads), np.argmax(logits, -1)
        """
    assert lines("JAX105", src) == [12]
    assert lines("JAX104", src) == [14]
    # a filtered transform may return Python values: no certainty there
    assert lines("JAX105", """
        import equinox as eqx

        @eqx.filter_jit
        def step(model: eqx.Module, x):
            out = eqx.filter_jit(lambda m: m.describe())(model)
            if out:
                return x
            return x * 2
        """) == []


# ------------------------------------------------------------------ JAX106 side-effect-in-jit
def test_jax106_static_prints_are_left_alone_unless_asked():
    src = """
        import jax

        @jax.jit
        def f(x):
            print("compiling f for", x.shape)
            print("x is", x)
            return x
        """
    assert lines("JAX106", src) == [6]
    assert lines("JAX106", src, **{"report-static-print": True}) == [5, 6]


def test_jax106_a_print_of_locals_built_from_shapes_is_static_and_one_of_unknown_values_is_not():
    # seen in jax-md (a warning about the folded grid's static sizes) and jaxmarl (a
    # debug print of an updated map): only the second may print a tracer
    assert lines("JAX106", """
        import jax

        def fold(data, factors=(2, 2)):
            sizes = []
            for i in range(data.ndim):
                sizes += [factors[i], data.shape[i] // factors[i]]
            if min(sizes) < 4:
                print(f"folded grid may be too small: {sizes}, shape {data.shape}")
            return data

        def flip(walls, i):
            new_walls = walls.at[i].set(1 - walls[i])
            print("new walls", new_walls)
            return new_walls

        @jax.jit
        def step(data, walls):
            return fold(data), flip(walls, 0)
        """) == [13]


def test_jax106_side_effects_outside_traced_code_are_clean():
    assert lines("JAX106", """
        import logging
        import random
        import time
        import jax

        log = logging.getLogger(__name__)

        @jax.jit
        def step(x):
            jax.debug.print("x={x}", x=x)
            jax.debug.callback(lambda v: log.info("value %s", v), x)
            return x * 2

        def train(x):
            t0 = time.perf_counter()
            for _ in range(random.randint(1, 3)):
                x = step(x)
            log.info("took %.3f", time.perf_counter() - t0)
            print("done", x)
            return x
        """) == []


def test_jax106_clocks_datetime_and_stdlib_random_in_a_scan_body_are_flagged():
    assert lines("JAX106", """
        import datetime
        import random
        import time
        import jax

        def body(c, x):
            stamp = datetime.datetime.now()
            time.sleep(0.1)
            return c + x * random.gauss(0, 1), stamp

        def run(xs):
            return jax.lax.scan(body, 0.0, xs)
        """) == [7, 8, 9]


def test_jax106_absl_logging_and_warnings_of_traced_values_are_flagged():
    assert lines("JAX106", """
        import warnings
        import jax
        from absl import logging

        @jax.jit
        def f(x):
            logging.info("x=%s", x)
            warnings.warn(f"bad value {x}")
            logging.info("compiling f")
            return x
        """) == [7, 8]


# ------------------------------------------------------------------ JAX107 tracer-leak
def test_jax107_helper_called_in_the_same_trace_may_write_to_its_callers_list():
    assert lines("JAX107", """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def f(xs):
            outs = []
            def emit(v):
                outs.append(v * 2)
            for i in range(3):
                emit(xs[i])
            return jnp.stack(outs)
        """) == []


def test_jax107_vmap_body_appending_to_the_enclosing_list_leaks():
    assert lines("JAX107", """
        import jax

        @jax.jit
        def f(xs):
            seen = []
            def g(x):
                seen.append(x)
                return x * 2
            ys = jax.vmap(g)(xs)
            return ys, seen[0]
        """) == [7]


def test_jax107_methods_named_like_container_mutators_are_not_containers():
    assert lines("JAX107", """
        import jax
        import optax

        def fit(params, grads):
            opt = optax.sgd(0.1)
            state = opt.init(params)
            metrics = MetricsWriter()

            @jax.jit
            def step(params, state, grads):
                updates, state = opt.update(grads, state, params)
                metrics.add(updates)
                return optax.apply_updates(params, updates), state
            return step(params, state, grads)
        """) == []


def test_jax107_module_state_attribute_and_global_dict_are_leaks():
    diags = lint_source("""
        import types
        import jax

        STATE = types.SimpleNamespace(last=None)
        HISTORY = {}

        @jax.jit
        def f(x):
            global HISTORY
            STATE.last = x
            HISTORY["x"] = x
            return x
        """, select=["JAX107"])
    assert [d.start.line for d in diags] == [10, 11]
    assert "module state" in diags[0].message and "a global" in diags[1].message


def test_jax107_self_container_is_a_leak_but_constructors_and_flax_modules_are_not():
    diags = lint_source("""
        from functools import partial
        import jax
        import flax.linen as nn

        class Tracker:
            def __init__(self):
                self.history = []

            @partial(jax.jit, static_argnums=0)
            def step(self, x):
                self.history.append(x)
                return x

        class Block(nn.Module):
            @nn.compact
            def __call__(self, x):
                self.last = x
                return x

        @jax.jit
        def build(x):
            return Tracker().step(x)
        """, select=["JAX107"])
    assert [d.start.line for d in diags] == [11]


def test_jax107_value_from_an_opaque_call_is_a_warning():
    (d,) = lint_source("""
        import jax

        CACHE = []

        @jax.jit
        def f(x):
            CACHE.append(model(x))
            return x
        """, select=["JAX107"])
    assert d.severity is Severity.WARNING


# ------------------------------------------------------------------ real jax: the claims hold
jax = pytest.importorskip("jax")


def run_module(src: str) -> dict:
    namespace: dict = {"__name__": "snippet"}
    exec(compile(textwrap.dedent(src), "snippet.py", "exec"), namespace)
    return namespace


def example(rule, index: int, call: str) -> str:
    """A rule's INVALID example with a line that exercises it: the documented example
    itself is what runs under jax."""
    return textwrap.dedent(rule.INVALID[index].code) + f"\nresult = lambda: {call}\n"


@pytest.mark.parametrize("index, call, error", [
    (0, "relu(1.0)", "TracerBoolConversionError"),
    (1, "solve(jnp.ones(3))", "TracerBoolConversionError"),
    (3, "f(1.0, 2)", "ConcretizationTypeError"),
    (4, "in_range(0.5)", "TracerBoolConversionError"),
    (5, "f(1.0, 2.0)", "TracerBoolConversionError"),
    (6, "run(1.0)", "TracerBoolConversionError"),
    (7, "f(1.0, 3)", "TracerIntegerConversionError"),
    (8, "train_step(__import__('collections').namedtuple('State', 'step')(3), 1.0)",
     "TracerBoolConversionError"),
])
def test_jax105_really_fails_at_trace_time(index, call, error):
    from jaxlint.rules.static.jax105_traced_control_flow import TracedControlFlow

    src = example(TracedControlFlow, index, call)
    assert lines("JAX105", src), "the rule must flag what jax rejects"
    with pytest.raises(Exception) as e:
        run_module(src)["result"]()
    assert type(e.value).__name__ == error


@pytest.mark.parametrize("src", [LAX_IDIOMS + """
    result = lambda: (rnn({"layers": [jnp.eye(3)]}, jnp.ones((4, 3)), 1),
                      batched(None, jnp.ones((2, 3)), 3), clip_step(jnp.ones(3)))
    """, """
    import jax
    def loss(params, x, training):
        if training:
            x = x * 2
        return (params * x).sum()
    @jax.jit
    def step(params, x):
        return jax.grad(loss)(params, x, True)
    result = lambda: step(1.0, 2.0)
    """, """
    import functools
    import jax
    def kernel(q, block=16, normalize=True):
        assert q.shape[-1] % block == 0
        if normalize:
            q = q / 2
        return q
    inner = functools.partial(kernel, block=2, normalize=False)
    result = lambda: jax.vmap(inner)(jax.numpy.ones((3, 4)))
    """], ids=["lax-idioms", "grad-python-flag", "vmap-partial-keywords"])
def test_jax105_really_clean_code_traces(src):
    assert all_findings(src) == []
    run_module(src)["result"]()


def test_jax107_really_leaks_a_tracer():
    from jaxlint.rules.static.jax107_tracer_leak import TracerLeak

    src = example(TracerLeak, 0, "(step(jax.numpy.ones(3)), losses[0] + 1)")
    assert lines("JAX107", src) == [8]
    with pytest.raises(jax.errors.UnexpectedTracerError):
        run_module(src)["result"]()


def test_jax106_really_prints_once_per_compilation_and_shows_a_tracer():
    src = """
        import jax

        @jax.jit
        def f(x):
            print("x is", x)
            return x * 2

        def result():
            for i in range(3):
                f(jax.numpy.float32(i))
        """
    assert lines("JAX106", src) == [5]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        run_module(src)["result"]()
    # the tracer's repr differs by version: JitTracer(...) / Traced<float32[]>with<...> (0.6)
    assert out.getvalue().count("x is") == 1 and ("Tracer(" in out.getvalue() or "Traced<" in out.getvalue())


def test_jax104_really_cannot_convert_a_tracer():
    src = """
        import jax
        import numpy as np

        @jax.jit
        def f(x):
            return np.asarray(x) * 2

        result = lambda: f(jax.numpy.ones(2))
        """
    assert lines("JAX104", src) == [6]
    with pytest.raises(jax.errors.TracerArrayConversionError):
        run_module(src)["result"]()


def test_jax103_really_retraces_a_lambda_but_not_a_module_function():
    src = """
        import jax

        TRACES = []

        def f(x):
            TRACES.append(1)
            return x + 1

        def with_lambda(x):
            for _ in range(3):
                x = jax.jit(lambda v: f(v))(x)
            return x

        def with_function(x):
            for _ in range(3):
                x = jax.jit(f)(x)
            return x
        """
    diags = lint_source(src, select=["JAX103"])
    assert [(d.start.line, d.data["recompiles"]) for d in diags] == [(11, True), (16, False)]
    ns = run_module(src)
    ns["with_lambda"](jax.numpy.ones(2))
    assert len(ns["TRACES"]) == 3
    ns["TRACES"].clear()
    ns["with_function"](jax.numpy.ones(2))
    assert len(ns["TRACES"]) == 1


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
