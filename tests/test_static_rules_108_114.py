"""Fixture tests for the static rules JAX108-JAX114, beyond their VALID/INVALID examples."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from helpers import fixed, lines, lint_source
from jaxlint.diagnostic import Applicability, Severity


def found(code: str, src: str) -> list[tuple[int, str]]:
    """(line, message) of each ``code`` finding in ``src``."""
    return [(d.start.line, d.message) for d in lint_source(src, select=[code])]


# ---------------------------------------------------------------- JAX108 static-arg-hazard
def test_jax108_optional_and_union_list_annotations_are_unhashable():
    assert lines("JAX108", """
        import functools
        from typing import Optional
        import jax

        @functools.partial(jax.jit, static_argnames=("a", "b"))
        def f(x, a: Optional[list] = None, b: dict[str, int] | None = None):
            return x
        """) == [6, 6]


def test_jax108_a_hashable_alternative_in_the_annotation_keeps_it_quiet():
    assert lines("JAX108", """
        import functools
        import jax

        @functools.partial(jax.jit, static_argnums=1)
        def f(x, shape: tuple | list):
            return x
        """) == []


def test_jax108_name_bound_to_a_list_passed_at_a_call_site_is_an_error():
    diags = lint_source("""
        import jax

        def g(x, layers):
            return x

        f = jax.jit(g, static_argnames="layers")
        LAYERS = [64, 64]

        def run(x):
            return f(x, layers=LAYERS)
        """, select=["JAX108"])
    assert [(d.start.line, d.severity) for d in diags] == [(10, Severity.ERROR)]
    assert "`LAYERS` is a list" in diags[0].message


def test_jax108_array_passed_to_a_static_method_argument_through_self():
    assert lines("JAX108", """
        import functools
        import jax
        import jax.numpy as jnp

        class Model:
            def __hash__(self):
                return 0

            @functools.partial(jax.jit, static_argnums=(0, 2))
            def apply(self, x, mask):
                return x

            def run(self, x):
                return self.apply(x, jnp.ones(3))
        """) == [14]


def test_jax108_floats_from_one_literal_or_the_default_are_quiet():
    assert lines("JAX108", """
        import functools
        import jax

        @functools.partial(jax.jit, static_argnames="eps")
        def norm(x, eps: float = 1e-6):
            return x / eps

        a = norm(1.0)
        b = norm(2.0, eps=1e-5)
        c = norm(3.0, eps=1e-5)
        """) == []


def test_jax108_a_computed_value_for_a_float_annotated_static_param_is_reported():
    out = found("JAX108", """
        import functools
        import jax

        @functools.partial(jax.jit, static_argnames="temperature")
        def sample(logits, temperature: float):
            return logits / temperature

        def run(logits, t0, step):
            return sample(logits, temperature=max(t0 * step, 0.1))
        """)
    assert [line for line, _ in out] == [9] and "one program per value" in out[0][1]


def test_jax108_self_changed_from_outside_the_class_is_reported():
    out = found("JAX108", """
        import functools
        import jax

        class Scaler:
            def __init__(self):
                self.factor = 1.0

            @functools.partial(jax.jit, static_argnums=0)
            def __call__(self, x):
                return x * self.factor

        s = Scaler()
        y = s(1.0)
        s.factor = 2.0
        """)
    assert [line for line, _ in out] == [9] and "line 14" in out[0][1]


def test_jax108_static_self_of_frozen_dataclass_or_unknown_base_is_quiet():
    assert lines("JAX108", """
        import dataclasses
        import functools
        import jax
        import flax.linen as nn

        @dataclasses.dataclass(frozen=True)
        class Cfg:
            width: int

            @functools.partial(jax.jit, static_argnums=0)
            def apply(self, x):
                return x * self.width

            def widen(self):
                object.__setattr__(self, "width", 2)

        class Block(nn.Module):
            scale: float = 1.0

            @functools.partial(jax.jit, static_argnums=0)
            def run(self, x):
                return x * self.scale

            def set(self, s):
                self.scale = s
        """) == []


def test_jax108_subclass_inherits_identity_hashing_from_a_plain_base():
    assert lines("JAX108", """
        import functools
        import jax

        class Base:
            pass

        class Model(Base):
            @functools.partial(jax.jit, static_argnums=0)
            def __call__(self, x):
                return x * self.w

            def load(self, w):
                self.w = w
        """) == [9]


def test_jax108_non_literal_static_spec_is_not_guessed():
    assert lines("JAX108", """
        import functools
        import jax
        STATIC = ("items",)

        @functools.partial(jax.jit, static_argnames=STATIC)
        def f(x, items: list):
            return x
        """) == []


# ---------------------------------------------------------------- JAX109 host-callback
def test_jax109_severity_is_higher_in_loop_bodies_than_in_plain_traced_code():
    diags = lint_source("""
        import jax
        from jax.debug import print as dprint

        def cond_fun(c):
            jax.debug.callback(print, c)
            return c < 10

        def body_fun(c):
            return c + 1

        @jax.jit
        def f(x):
            dprint("start {}", x)
            return jax.lax.while_loop(cond_fun, body_fun, x)
        """, select=["JAX109"])
    assert [(d.start.line, d.severity) for d in diags] == [(5, Severity.WARNING), (13, Severity.INFO)]
    assert "lax.while_loop" in diags[0].message and "`jax.debug.print` in `f`" in diags[1].message


def test_jax109_flax_nnx_scan_bodies_count_as_loops():
    diags = lint_source("""
        import jax
        from flax import nnx

        def body(carry, x):
            jax.debug.print("{}", x)
            return carry, x

        def run(xs):
            return nnx.scan(body)(0, xs)
        """, select=["JAX109"])
    assert [(d.start.line, d.severity) for d in diags] == [(5, Severity.WARNING)]


def test_jax109_callback_reached_through_a_helper_called_from_jit():
    assert lines("JAX109", """
        import jax

        def log(v):
            jax.debug.print("v={}", v)

        @jax.jit
        def f(x):
            log(x)
            return x
        """) == [4]


# ---------------------------------------------------------------- JAX110 discarded-update
def test_jax110_fix_is_unsafe_and_only_for_plain_names():
    diags = lint_source("""
        import jax

        @jax.jit
        def f(x, state):
            x.at[0].set(1.0)
            state.buf.at[0].set(1.0)
            return x
        """, select=["JAX110"])
    assert [d.start.line for d in diags] == [5, 6]
    assert diags[0].fix is not None and diags[0].fix.applicability is Applicability.UNSAFE
    assert diags[1].fix is None
    assert all(d.severity is Severity.ERROR for d in diags)


def test_jax110_unsafe_fix_is_not_applied_without_unsafe_fixes():
    src = """
        import jax.numpy as jnp

        def f(n):
            x = jnp.zeros(n)
            x.at[0].set(1.0)
            return x
        """
    assert fixed("JAX110", src, unsafe=False) == textwrap.dedent(src).lstrip("\n")
    assert "    x = x.at[0].set(1.0)\n" in fixed("JAX110", src, unsafe=True)


def test_jax110_multiline_update_keeps_its_text_when_fixed():
    out = fixed("JAX110", """
        import jax.numpy as jnp

        def f(x: jnp.ndarray, i, v):
            x.at[i].set(
                v * 2,
            )
            return x
        """)
    assert "    x = x.at[i].set(\n        v * 2,\n    )\n" in out


def test_jax110_item_assignment_on_dicts_lists_and_numpy_arrays_is_quiet():
    assert lines("JAX110", """
        import jax
        import numpy as np

        @jax.jit
        def f(params, xs, i):
            params["w"] = params["w"] * 2
            out = list(xs)
            out[i] = xs[i] * 2
            host = np.asarray([1.0, 2.0])
            host[0] = 3.0
            return params, out
        """) == []


def test_jax110_item_assignment_on_an_unannotated_traced_array_param():
    diags = lint_source("""
        import jax

        @jax.jit
        def normalize(x):
            x[0] = 0.0
            return x / x.sum()

        @jax.jit
        def maybe_tree(x):
            x[0] = 0.0
            return x
        """, select=["JAX110"])
    # only the first: `maybe_tree` never uses `x` as an array, it may be a list pytree
    assert [d.start.line for d in diags] == [5]
    assert "raises TypeError" in diags[0].message


def test_jax110_jax_array_item_assignment_outside_jit_also_fails():
    assert lines("JAX110", """
        import jax.numpy as jnp

        x = jnp.arange(4)
        x[0] = 10
        """) == [4]


# ---------------------------------------------------------------- JAX111 data-dependent-shape
def test_jax111_size_none_is_still_data_dependent_and_three_argument_where_is_fine():
    assert lines("JAX111", """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def f(x):
            a = jnp.nonzero(x, size=None)
            b = jnp.where(x > 0, x, 0.0)
            c = jnp.where(x > 0, size=3)
            return a, b, c
        """) == [6]


def test_jax111_mask_from_a_static_shape_or_a_string_compare_is_quiet():
    assert lines("JAX111", """
        import functools
        import jax

        @functools.partial(jax.jit, static_argnames="mode")
        def f(x, mode):
            m = x.ndim > 1
            return x[m], x[mode == "a"]
        """) == []


def test_jax111_unique_of_a_constant_jnp_array_is_still_traced_under_jit():
    # jnp.arange(4) is staged out under jit, so jnp.unique of it cannot be traced either
    assert lines("JAX111", """
        import jax
        import jax.numpy as jnp
        import numpy as np

        @jax.jit
        def f(x):
            return x + jnp.unique(jnp.arange(4)).sum() + np.unique(np.arange(4)).sum()
        """) == [7]


def test_jax111_boolean_mask_in_a_vmapped_function():
    assert lines("JAX111", """
        import jax

        def per_row(row):
            return row[row != 0].sum()

        batched = jax.vmap(per_row)
        """) == [4]


# ---------------------------------------------------------------- JAX112 float64
def test_jax112_dtype_strings_and_complex128_in_traced_code():
    assert lines("JAX112", """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def f(x):
            a = x.astype("f8")
            b = jnp.asarray(x, dtype=jnp.complex128)
            c = jnp.ones(3, "float32")
            return a, b, c
        """) == [6, 7]


def test_jax112_float64_outside_traced_code_is_quiet():
    assert lines("JAX112", """
        import jax
        import jax.numpy as jnp

        def host(x):
            return jnp.asarray(x, dtype=jnp.float64)

        @jax.jit
        def f(x):
            return x
        """) == []


def test_jax112_enable_x64_through_setdefault_is_reported_once_and_hides_dtype_findings():
    assert lines("JAX112", """
        import os
        os.environ.setdefault("JAX_ENABLE_X64", "true")
        import jax
        import jax.numpy as jnp

        @jax.jit
        def f(x):
            return x.astype(jnp.float64)
        """) == [2]


# ---------------------------------------------------------------- JAX113 donation-misuse
DONATING = """
import functools
import jax

@functools.partial(jax.jit, donate_argnames=("state",))
def step(state, batch):
    return state + batch
"""


def test_jax113_keyword_donation_and_use_in_a_later_if_test():
    assert lines("JAX113", DONATING + """
def run(state, batch):
    out = step(batch=batch, state=state)
    if state.sum() > 0:
        return out
    return out
""") == [10]


def test_jax113_reassignment_in_the_same_statement_or_before_the_read_is_fine():
    assert lines("JAX113", DONATING + """
def run(state, batches):
    state = step(state, batches[0])
    new = step(state, batches[1])
    state = new
    return state.sum()
""") == []


def test_jax113_reads_after_a_return_in_another_branch_are_not_reached():
    assert lines("JAX113", DONATING + """
def run(state, batch, fast):
    if fast:
        return step(state, batch)
    return state
""") == []


def test_jax113_loop_that_breaks_right_after_the_call_is_fine():
    assert lines("JAX113", DONATING + """
def run(state, batches):
    for b in batches:
        out = step(state, b)
        break
    return out
""") == []


def test_jax113_immediately_called_jit_with_donation():
    out = found("JAX113", """
        import jax

        def add(x, y):
            return x + y

        def run(x, y):
            z = jax.jit(add, donate_argnums=0)(x, y)
            return z + x
        """)
    assert [line for line, _ in out] == [8] and "`x` was donated" in out[0][1]


def test_jax113_decorated_method_maps_arguments_after_self():
    assert lines("JAX113", """
        import functools
        import jax

        class Trainer:
            @functools.partial(jax.jit, static_argnums=0, donate_argnums=1)
            def step(self, params, batch):
                return params + batch

            def fit(self, params, batch):
                new = self.step(params, batch)
                print(batch)
                return new, params
        """) == [12]


def test_jax113_a_function_rebound_to_its_own_donating_jit_is_followed():
    assert lines("JAX113", """
        import jax

        def train(state, xs):
            for x in xs:
                new = step(state, x)
                print(state.sum())
                state = new
            return state

        def step(state, x):
            return state + x

        step = jax.jit(step, donate_argnums=0)
        local = step(1.0, 2.0)
        """) == [6]


def test_jax113_a_name_rebound_before_the_call_no_longer_aliases_the_donated_buffer():
    assert lines("JAX113", """
        import functools
        import jax

        @functools.partial(jax.jit, donate_argnums=(0, 1))
        def update(params, opt_state):
            return params, opt_state

        def train(params, fresh):
            old = params
            params = fresh(params)
            new, state = update(params, old)
            backup = state
            state = fresh(state)
            return update(new, backup), state
        """) == []


def test_jax113_finding_points_back_at_the_donating_call():
    diags = lint_source(DONATING + """
def run(state, batch):
    new = step(state, batch)
    return new, state
""", select=["JAX113"])
    assert len(diags) == 1 and diags[0].related and diags[0].related[0].start.line == 9


# ---------------------------------------------------------------- JAX114 prng-key-reuse
def test_jax114_one_key_for_different_draws_is_still_reuse_even_with_data():
    assert lines("JAX114", """
        import jax

        def sample(key, xs, ys, n):
            a = jax.random.choice(key, xs, (n,))
            b = jax.random.choice(key, ys, (2 * n,))
            c = jax.random.permutation(key, 10)
            d = jax.random.permutation(key, 10)
            return a, b, c, d
        """) == [5, 6, 7]


def test_jax114_a_helper_that_uses_its_argument_only_as_a_shape_is_not_alignment():
    assert lines("JAX114", """
        import jax

        def init_layer(key, n_in, n_out):
            return jax.random.normal(key, (n_in, n_out))

        def init(key, sizes):
            params = []
            for n_in, n_out in zip(sizes[:-1], sizes[1:]):
                params.append(init_layer(key, n_in, n_out))
            return params
        """) == [9]


def test_jax114_test_code_is_checked_when_asked():
    src = """
        import jax

        class SamplerTest:
            def test_two_draws(self):
                key = jax.random.PRNGKey(0)
                return jax.random.normal(key, (2,)), jax.random.normal(key, (2,))
        """
    assert lines("JAX114", src) == []
    assert lines("JAX114", src, **{"check-tests": True}) == [6]
    assert lint_source("import jax\ndef f(key):\n    return jax.random.normal(key), jax.random.normal(key)\n",
                       select=["JAX114"], path="pkg/sampler_test.py") == []


def test_jax114_reassigned_key_is_fresh_and_constant_subscripts_are_distinct_keys():
    assert lines("JAX114", """
        import jax

        def f(key):
            keys = jax.random.split(key, 3)
            a = jax.random.normal(keys[0])
            b = jax.random.normal(keys[1])
            key = keys[2]
            c = jax.random.normal(key)
            return a, b, c
        """) == []


def test_jax114_same_subscripted_key_twice_is_reuse():
    assert lines("JAX114", """
        import jax

        def f(key):
            keys = jax.random.split(key, 2)
            return jax.random.normal(keys[0]), jax.random.uniform(keys[0])
        """) == [5]


def test_jax114_early_return_branch_does_not_count_as_a_use():
    assert lines("JAX114", """
        import jax

        def f(key, n):
            if n == 0:
                return jax.random.normal(key)
            return jax.random.uniform(key, (n,))
        """) == []


def test_jax114_while_loop_and_try_bodies():
    assert lines("JAX114", """
        import jax
        from jax import random as jr

        def retry(key, ok):
            while True:
                x = jr.uniform(key)
                if ok(x):
                    return x

        def guarded(key):
            try:
                a = jr.normal(key)
            except ValueError:
                a = 0.0
            return a + jr.normal(key)
        """) == [6, 15]


def test_jax114_two_uses_in_one_lambda():
    assert lines("JAX114", """
        import jax

        noise = lambda key: jax.random.normal(key) + jax.random.normal(key)
        """) == [3]


def test_jax114_module_level_key_in_a_lax_body_and_split_results():
    assert lines("JAX114", """
        import jax

        KEY, SUB = jax.random.split(jax.random.PRNGKey(0))
        SEED_KEY = jax.random.key(1)

        def body(c, x):
            return c + jax.random.normal(SEED_KEY), x

        def run(xs):
            return jax.lax.scan(body, 0.0, xs)
        """) == [7]


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


def test_jax110_cli_fix_rewrites_the_file_only_with_unsafe_fixes(tmp_path, run_cli):
    path = tmp_path / "step.py"
    original = "import jax\n\n@jax.jit\ndef f(x):\n    x.at[0].set(0.0)\n    return x\n"
    path.write_text(original)
    safe_only = run_cli("check", "--isolated", "--no-cache", "--select", "JAX110", "--fix", str(path))
    assert safe_only.returncode == 1 and path.read_text() == original, safe_only.stdout + safe_only.stderr
    unsafe = run_cli("check", "--isolated", "--no-cache", "--select", "JAX110", "--fix", "--unsafe-fixes", str(path))
    assert unsafe.returncode == 0, unsafe.stdout + unsafe.stderr
    assert path.read_text() == original.replace("    x.at[0]", "    x = x.at[0]")


def test_jax110_updates_in_except_and_match_blocks_are_found_once():
    assert lines("JAX110", """
        import jax.numpy as jnp

        def f(x: jnp.ndarray, mode):
            try:
                pass
            except ValueError:
                x.at[0].set(1.0)
            match mode:
                case "a":
                    x.at[1].set(2.0)
            return x
        """) == [7, 10]


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


# ---------------------------------------------------------------- the rules' claims, on real jax
CLAIMS_SCRIPT = r'''
import functools, json, warnings
import jax, jax.numpy as jnp

def outcome(fn):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return repr(fn())
    except Exception as e:  # the claim is about which error
        return type(e).__name__

x = jnp.arange(4.0)

def assign(x):
    x[0] = 1.0
    return x

class Model:  # identity hash, attribute read in the trace (JAX108)
    def __init__(self):
        self.scale = 1.0
    @functools.partial(jax.jit, static_argnums=0)
    def __call__(self, x):
        return x * self.scale

m = Model()
first = float(m(1.0))
m.scale = 2.0
key = jax.random.key(0)
out = {
    "JAX110 item assignment": outcome(lambda: jax.jit(assign)(x)),
    "JAX110 discarded": float(jax.jit(lambda x: (x.at[0].set(9.0), x)[1])(x)[0]),
    "JAX111 mask": outcome(lambda: jax.jit(lambda x: x[x > 1])(x)),
    "JAX111 nonzero": outcome(lambda: jax.jit(lambda x: jnp.nonzero(x))(x)),
    "JAX111 sized": outcome(lambda: jax.jit(lambda x: jnp.nonzero(x, size=2)[0].shape)(x)),
    "JAX112 dtype": str(jax.jit(lambda x: x.astype(jnp.float64))(x).dtype),
    "JAX108 list static": outcome(lambda: jax.jit(lambda x, s: x, static_argnums=1)(x, [1, 2])),
    "JAX108 stale self": [first, float(m(1.0))],
    "JAX114 reuse": bool((jax.random.normal(key, (3,)) == jax.random.normal(key, (3,))).all()),
}
print(json.dumps(out))
'''


@pytest.fixture(scope="module")
def claims():
    proc = subprocess.run([sys.executable, "-c", CLAIMS_SCRIPT], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "JAX_PLATFORMS": "cpu"})
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_real_jax_confirms_what_the_messages_say(claims):
    assert claims["JAX110 item assignment"] == "TypeError"
    assert claims["JAX110 discarded"] == 0.0  # the discarded update never happened
    assert claims["JAX111 mask"] == "NonConcreteBooleanIndexError"
    assert claims["JAX111 nonzero"] == "ConcretizationTypeError"
    assert claims["JAX111 sized"] != "ConcretizationTypeError"
    assert claims["JAX112 dtype"] == "float32"  # silently 32-bit without jax_enable_x64
    assert claims["JAX108 list static"] == "ValueError"
    assert claims["JAX108 stale self"] == [1.0, 1.0]  # the new attribute value is ignored
    assert claims["JAX114 reuse"] is True  # one key, two draws: the same numbers


def test_jax109_callback_under_a_traced_condition_is_still_reported():
    # a Python `if` on a tracer is not an opt-in flag (JAX105 reports the `if` itself)
    assert lines("JAX109", """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def f(x):
            if jnp.any(x < 0):
                jax.debug.print("negative {}", x)
            return x
        """) == [7]


def test_jax109_a_branch_also_called_directly_is_reported():
    assert lines("JAX109", """
        import jax

        def warn(x):
            jax.debug.print("bad {}", x)
            return x

        @jax.jit
        def f(x):
            x = jax.lax.cond(x.sum() < 0, warn, lambda v: v, x)
            return warn(x)
        """) == [4]


def test_jax109_jitted_function_defined_only_when_a_flag_is_set_is_deliberate():
    assert lines("JAX109", """
        import jax

        def build(profile):
            if profile is not None:
                @jax.jit
                def kernel(x):
                    jax.debug.callback(profile.dump, x)
                    return x
                return kernel

            @jax.jit
            def plain(x):
                jax.debug.callback(print, x)
                return x
            return plain
        """) == [13]


# ---------------------------------------------------------------- JAX114 key hand-offs
def test_jax114_key_given_to_a_sampling_class_then_sampled_is_reuse():
    assert found("JAX114", """
        import jax

        class MLP:
            def __init__(self, key, n=4):
                self.w = jax.random.normal(key, (n, n))

        def make(key):
            model = MLP(key)
            x = jax.random.normal(key, (4,))
            return model, x
        """) == [(9, "PRNG key `key` was already consumed by `MLP` at line 8; reusing it in `jax.random.normal` "
                 "gives the same (or correlated) random numbers; split the key first")]


def test_jax114_linen_init_then_sampling_is_reuse_and_keyword_key_to_a_helper_counts():
    assert lines("JAX114", """
        import flax.linen as nn
        import jax

        class Net(nn.Module):
            @nn.compact
            def __call__(self, x):
                return nn.Dense(3)(x)

        def noise(shape, rng):
            return jax.random.normal(rng, shape)

        def setup(key, x):
            model = Net()
            params = model.init(key, x)
            return params, noise(x.shape, rng=key)
        """) == [15]


def test_jax114_equinox_layers_sharing_one_key_and_a_chain_of_helpers():
    assert lines("JAX114", """
        import equinox as eqx
        import jax

        def layer(k):
            return eqx.nn.Linear(3, 3, key=k)

        def two(key):
            a = eqx.nn.Linear(3, 3, key=key)
            b = layer(key)
            return a, b
        """) == [9]


def test_jax114_flax_and_equinox_idioms_with_key_hand_offs_stay_quiet():
    assert lines("JAX114", """
        import equinox as eqx
        import flax.linen as nn
        import jax

        def splitter(key):
            return jax.random.split(key)

        def folded(key, i):
            return jax.random.normal(jax.random.fold_in(key, i))

        def linen(key, x):
            model = nn.Dense(4)
            params = model.init(key, x)
            key, sub = jax.random.split(key)
            return params, jax.random.normal(sub)

        def equinox(key):
            key, subkey = jax.random.split(key)
            model = eqx.nn.MLP(2, 2, 8, 2, key=subkey)
            return model, jax.random.normal(key)

        def helpers(key):
            a, b = splitter(key)
            c = folded(key, 0)
            return jax.random.normal(key), a, b, c

        def unknown(key, x, model, make):
            net = make(key)
            params = model.init(key, x)
            cfg = dict(key=key)
            return net, params, cfg, jax.random.normal(key)
        """) == []


# ------------------------------------------------------------------ JAX114 fix in loops
def test_jax114_no_fix_where_a_split_in_the_loop_would_reuse_the_key_across_iterations():
    # key is never reassigned in the loop: a split before `normal` would take the key that
    # `normal` consumed on the iteration before; the reuse across loops gets no fix either
    src = """
        import jax

        def shapes(key, cases, more):
            for shape in cases:
                a = jax.random.normal(key, shape)
                b = jax.random.bernoulli(key, 0.5, shape)
            for shape in more:
                c = jax.random.normal(key, shape)
            return a, b, c
        """
    diags = lint_source(src, select=["JAX114"])
    assert len(diags) >= 3 and all(d.fix is None for d in diags)


def test_jax114_fix_in_a_loop_that_reassigns_the_key_each_iteration():
    out = fixed("JAX114", """
        import jax

        def bounds(key, n):
            for _ in range(n):
                key, subkey = jax.random.split(key)
                a = jax.random.normal(subkey, (2,))
                b = jax.random.bernoulli(subkey, 0.3, (2,))
            return a, b
        """)
    assert out == textwrap.dedent("""\
        import jax

        def bounds(key, n):
            for _ in range(n):
                key, subkey = jax.random.split(key)
                subkey, subsubkey = jax.random.split(subkey)
                a = jax.random.normal(subkey, (2,))
                b = jax.random.bernoulli(subsubkey, 0.3, (2,))
            return a, b
        """)
