"""The jit map and the traced-function model of ``jaxlint.static.semantic`` for every jit form."""
from __future__ import annotations

import ast
import json
import textwrap

import pytest

from jaxlint.static.jitmap import EntryPoint, JitMap
from jaxlint.static.semantic import ModuleModel
from jaxlint.static.traced import CALL, Reason


def model(src: str) -> ModuleModel:
    return ModuleModel(ast.parse(textwrap.dedent(src).lstrip("\n")), "mod")


def only_entry(m: ModuleModel) -> EntryPoint:
    assert len(m.entries) == 1, m.entries
    return m.entries[0]


def fn(m: ModuleModel, qualname: str):
    found = [f for f in m.functions if f.qualname == qualname]
    assert len(found) == 1, [f.qualname for f in m.functions]
    return found[0]


def traced_names(m: ModuleModel) -> set[str]:
    return {f.qualname for f in m.traced_functions()}


# ---------------------------------------------------------------- decorator forms
@pytest.mark.parametrize(
    "imports,decorator",
    [
        ("import jax", "@jax.jit"),
        ("from jax import jit", "@jit"),
        ("from jax import jit as J", "@J"),
        ("import jax as jx", "@jx.jit"),
        ("import jax", "@jax.jit()"),
    ],
)
def test_jit_decorator_is_an_entry_under_any_import_alias(imports, decorator):
    m = model(f"""
        {imports}
        {decorator}
        def f(x, y):
            return x + y
        """)
    e = only_entry(m)
    assert (e.kind, e.qualname, e.form, e.bound_name) == ("jit", "f", "decorator", "f")
    assert e.traced_params == ("x", "y") and e.static_params == ()
    assert fn(m, "f").traced_params == {"x", "y"}


@pytest.mark.parametrize("aliases,name", [
    ("jit = jax.jit", "jit"),
    ("J = jax.jit", "J"),
    ("jit = jax.jit; J = jit", "J"),
    ("from jax import jit as _j; J = _j", "J"),
])
def test_module_level_alias_of_jit_is_resolved_after_the_import(aliases, name):
    m = model(f"""
        import jax
        {aliases}

        @{name}
        def f(x):
            return x

        def g(x):
            return x * 2

        h = {name}(g)
        """)
    assert {(e.qualname, e.kind, e.bound_name) for e in m.entries} == {("f", "jit", "f"), ("g", "jit", "h")}
    assert traced_names(m) == {"f", "g"}


def test_module_statements_are_recorded_in_source_order():
    m = model("""
        import jax

        def a(x):
            return x

        a = jax.jit(a)

        def b(x):
            return x
        """)
    assert [f.qualname for f in m.functions] == ["a", "b"]
    assert [b.kind for b in m.module_bindings["a"]] == ["def", "assign"]


def test_a_local_function_named_jit_is_not_an_entry():
    m = model("""
        def jit(f):
            return f

        @jit
        def f(x):
            return x
        """)
    assert m.entries == [] and traced_names(m) == set()


@pytest.mark.parametrize("partial_import,partial", [
    ("import functools", "functools.partial"),
    ("from functools import partial", "partial"),
])
def test_partial_decorator_records_static_and_donated_argnums(partial_import, partial):
    m = model(f"""
        {partial_import}
        import jax

        @{partial}(jax.jit, static_argnums=(1,), donate_argnums=0)
        def step(state, n, batch):
            return state
        """)
    e = only_entry(m)
    assert e.form == "partial-decorator"
    assert e.static_argnums == (1,) and e.donate_argnums == (0,)
    assert e.static_params == ("n",) and e.traced_params == ("batch", "state")
    f = fn(m, "step")
    assert f.static_params == {"n"} and f.donated_params == {"state"}
    assert "n" not in f.tainted and {"state", "batch"} <= f.tainted


def test_static_and_donate_argnames_are_recorded_by_name():
    m = model("""
        import jax, functools

        @functools.partial(jax.jit, static_argnames=("mode",), donate_argnames="buf")
        def f(buf, x, mode):
            return buf
        """)
    e = only_entry(m)
    assert e.static_argnames == ("mode",) and e.donate_argnames == ("buf",)
    assert e.static_params == ("mode",) and e.traced_params == ("buf", "x")
    assert fn(m, "f").donated_params == {"buf"}


def test_negative_static_argnums_count_from_the_end():
    m = model("""
        import jax, functools

        @functools.partial(jax.jit, static_argnums=-1)
        def f(x, n):
            return x
        """)
    assert only_entry(m).static_params == ("n",)


def test_a_negative_static_argnum_with_defaults_is_the_calls_to_say(lint):
    """`static_argnums=-1` over `(x, n, scale=2.0)`: `smooth(x, 3)` makes `n` static, a call
    with `scale` makes `scale` static; no parameter is known traced (JAX111 was false on
    `n`). Without defaults the last parameter is static and the others traced."""
    src = textwrap.dedent("""
        import jax
        import jax.numpy as jnp

        def window(x, n, scale=2.0):
            return jnp.convolve(x, jnp.ones(n) / n) * scale

        def fixed(x, n, k):
            return jnp.convolve(x, jnp.ones(n) / k)

        smooth = jax.jit(window, static_argnums=-1)
        sharp = jax.jit(fixed, static_argnums=-1)
        """)
    entries = {e.name: e for e in model(src).entries}
    assert entries["window"].traced_params == () and entries["fixed"].traced_params == ("n", "x")
    line = src.lstrip("\n").splitlines().index("def fixed(x, n, k):") + 2
    assert [(d.code, d.start.line) for d in lint(src, select=("JAX111",))] == [("JAX111", line)]


def test_non_literal_specs_are_flagged_and_not_guessed():
    m = model("""
        import jax, functools
        STATIC = (1,)

        @functools.partial(jax.jit, static_argnums=STATIC)
        def f(x, n):
            return x
        """)
    e = only_entry(m)
    assert e.specs_literal is False and e.static_params == ()


def test_jit_with_keywords_only_used_as_decorator():
    m = model("""
        import jax

        @jax.jit(static_argnames="n")
        def f(x, n):
            return x
        """)
    e = only_entry(m)
    assert e.form == "decorator" and e.static_params == ("n",) and e.traced_params == ("x",)


# ---------------------------------------------------------------- call forms
def test_jit_call_binds_the_jitted_name():
    m = model("""
        import jax

        def g(x, n):
            return x * n

        f = jax.jit(g, static_argnums=1, donate_argnums=(0,))
        """)
    e = only_entry(m)
    assert (e.qualname, e.form, e.bound_name, e.line, e.def_line) == ("g", "call", "f", 6, 3)
    assert e.static_params == ("n",) and e.traced_params == ("x",) and e.donate_argnums == (0,)


def test_immediately_called_jit_is_an_entry():
    m = model("""
        import jax

        def g(x):
            return x

        y = jax.jit(g)(1.0)
        """)
    e = only_entry(m)
    assert e.form == "immediate" and e.qualname == "g" and e.bound_name is None


def test_jitted_lambda_is_an_entry_named_by_its_line():
    m = model("""
        import jax

        h = jax.jit(lambda x, y: x + y)
        """)
    e = only_entry(m)
    assert e.qualname == "<lambda>@3" and e.bound_name == "h" and e.traced_params == ("x", "y")


def test_jit_applied_inside_another_function_to_a_module_function():
    m = model("""
        from jax import jit

        def init(key, n):
            return key

        def main():
            jinit = jit(init, static_argnums=1)
            return jinit(0, 3)
        """)
    e = only_entry(m)
    assert (e.qualname, e.bound_name, e.line) == ("init", "jinit", 7)
    assert fn(m, "init").traced_params == {"key"} and fn(m, "init").static_params == {"n"}
    assert not fn(m, "main").traced


def test_jit_of_a_partial_counts_argnums_after_the_bound_arguments():
    m = model("""
        import functools, jax

        def f(a, b, c):
            return a

        g = jax.jit(functools.partial(f, 1), static_argnums=0)
        """)
    e = only_entry(m)
    assert e.partial_bound == 1 and e.static_params == ("b",) and e.traced_params == ("c",)


def test_jit_of_an_unknown_callable_is_kept_as_unresolved():
    m = model("""
        import jax

        def make(model):
            return jax.jit(model.apply)
        """)
    assert m.entries == [] and len(m.entries_unresolved) == 1


# ---------------------------------------------------------------- rebinding a name to its own jit
def test_module_level_rebinding_keeps_the_function_and_its_specs():
    m = model("""
        import jax

        def step(state, n, batch):
            return state

        step = jax.jit(step, static_argnums=1, donate_argnums=0)
        """)
    e = only_entry(m)
    assert (e.qualname, e.name, e.bound_name, e.form, e.def_line, e.line) == ("step", "step", "step", "call", 3, 6)
    assert e.static_params == ("n",) and e.traced_params == ("batch", "state")
    assert fn(m, "step").donated_params == {"state"}


def test_equinox_filter_jit_rebinding_and_rebinding_through_two_transforms():
    m = model("""
        import jax
        import equinox as eqx

        def loss(model, x):
            return model(x)

        loss = eqx.filter_jit(loss)

        def per_example(x):
            return x * 2

        per_example = jax.jit(jax.vmap(per_example))
        """)
    assert {(e.kind, e.qualname, e.bound_name, e.def_line) for e in m.entries} == {
        ("filter_jit", "loss", "loss", 4), ("jit", "per_example", "per_example", 9)}
    assert traced_names(m) == {"loss", "per_example"}


def test_rebinding_inside_a_function_and_a_loop_traces_the_local_def():
    m = model("""
        import jax

        def main(xs, W):
            def step(v):
                return W @ v
            step = jax.jit(step)
            for x in xs:
                def project(u):
                    return x @ u
                project = jax.jit(project)
                project(step(x))
        """)
    assert {(e.qualname, e.bound_name, e.def_line) for e in m.entries} == {
        ("main.<locals>.step", "step", 4), ("main.<locals>.project", "project", 8)}
    assert fn(m, "main.<locals>.project").traced_params == {"u"}


def test_a_call_of_the_rebound_name_from_traced_code_traces_the_def():
    m = model("""
        import jax

        def helper(x):
            return x + 1

        helper = jax.jit(helper)

        @jax.jit
        def f(x):
            return helper(x)
        """)
    assert Reason(CALL, caller="f") in fn(m, "helper").traced_by


def test_rebinding_to_something_else_is_not_followed():
    m = model("""
        import jax

        def f(x):
            return x

        f = jax.jit(f)
        f = make_other()

        def g(y):
            return y

        g = jax.jit(other_g)
        """)
    assert m.entries == [] and traced_names(m) == set()


# ---------------------------------------------------------------- other transforms
@pytest.mark.parametrize("imports,call,kind", [
    ("from jax.experimental.pjit import pjit", "pjit(g)", "pjit"),
    ("import jax", "jax.pmap(g, axis_name='i')", "pmap"),
    ("import equinox as eqx", "eqx.filter_jit(g)", "filter_jit"),
    ("from flax import nnx", "nnx.jit(g)", "nnx.jit"),
])
def test_other_jit_like_transforms_are_entries_of_their_kind(imports, call, kind):
    m = model(f"""
        {imports}

        def g(x):
            return x

        f = {call}
        """)
    e = only_entry(m)
    assert (e.kind, e.qualname, e.bound_name) == (kind, "g", "f")
    assert fn(m, "g").traced


def test_pmap_static_broadcasted_argnums_are_static():
    m = model("""
        import jax
        from functools import partial

        @partial(jax.pmap, axis_name="i", static_broadcasted_argnums=1)
        def f(x, n):
            return x
        """)
    e = only_entry(m)
    assert e.kind == "pmap" and e.static_params == ("n",) and e.traced_params == ("x",)


def test_filtered_jits_trace_only_parameters_annotated_as_arrays():
    m = model("""
        import jax
        import equinox as eqx

        @eqx.filter_jit
        def f(model, x: jax.Array, flag):
            return x
        """)
    e = only_entry(m)
    assert e.kind == "filter_jit" and e.traced_params == ("x",)


def test_flax_linen_jit_on_a_module_method():
    m = model("""
        import flax.linen as nn

        class Block(nn.Module):
            @nn.jit
            @nn.compact
            def __call__(self, x):
                return x
        """)
    e = only_entry(m)
    assert (e.kind, e.qualname, e.is_method) == ("linen.jit", "Block.__call__", True)
    assert "self" not in e.traced_params


# ---------------------------------------------------------------- methods, nesting
def test_jitted_method_with_static_self_traces_methods_it_calls():
    m = model("""
        import jax, functools

        class Model:
            @functools.partial(jax.jit, static_argnums=0)
            def __call__(self, x):
                return self.layer(x, 2)

            def layer(self, h, k):
                return h * k
        """)
    e = only_entry(m)
    assert e.qualname == "Model.__call__" and e.is_method and e.static_params == ("self",)
    assert e.traced_params == ("x",)
    layer = fn(m, "Model.layer")
    assert layer.traced and layer.traced_params == {"h"}
    assert Reason(CALL, caller="Model.__call__") in layer.traced_by


def test_jit_of_a_bound_method_counts_argnums_after_self():
    m = model("""
        import jax

        class Trainer:
            def __init__(self):
                self.step = jax.jit(self._step, static_argnums=0, donate_argnums=1)

            def _step(self, n, state):
                return state
        """)
    e = only_entry(m)
    assert (e.qualname, e.bound_name, e.partial_bound) == ("Trainer._step", "self.step", 1)
    assert e.static_params == ("n",) and e.traced_params == ("state",)
    assert fn(m, "Trainer._step").donated_params == {"state"}


def test_nested_jitted_function_and_functions_nested_in_a_jitted_body():
    m = model("""
        import jax

        def outer(w):
            @jax.jit
            def inner(x):
                def helper(z):
                    return z * 2
                return helper(x)
            return inner
        """)
    assert only_entry(m).qualname == "outer.<locals>.inner"
    assert traced_names(m) == {"outer.<locals>.inner", "outer.<locals>.inner.<locals>.helper"}
    assert fn(m, "outer.<locals>.inner.<locals>.helper").traced_params == {"z"}


def test_closure_over_traced_value_is_tainted_in_nested_body():
    m = model("""
        import jax

        @jax.jit
        def f(x, y):
            def body(i, c):
                return c + x
            return jax.lax.fori_loop(0, 3, body, y)
        """)
    body = fn(m, "f.<locals>.body")
    assert body.traced and {"i", "c", "x"} <= body.tainted


# ---------------------------------------------------------------- traced through
def test_functions_called_from_a_jitted_body_trace_only_the_traced_arguments():
    m = model("""
        import jax, functools

        def helper(a, n, scale=2.0):
            return a * n * scale

        def unrelated(v):
            return v

        @functools.partial(jax.jit, static_argnums=1)
        def f(x, n):
            return helper(x, n)

        unrelated(3)
        """)
    h = fn(m, "helper")
    assert h.traced and h.traced_params == {"a"}
    assert not fn(m, "unrelated").traced


def test_transitive_calls_are_traced():
    m = model("""
        import jax

        def c(z):
            return z
        def b(y):
            return c(y)
        def a(x):
            return b(x)

        f = jax.jit(a)
        """)
    assert traced_names(m) == {"a", "b", "c"}
    assert fn(m, "c").traced_params == {"z"}


def test_lax_control_flow_bodies_are_traced_with_all_their_parameters():
    m = model("""
        import jax
        from jax import lax

        def scan_body(carry, x):
            return carry, x
        def fori_body(i, c):
            return c
        def cond_fun(c):
            return c < 3
        def body_fun(c):
            return c + 1
        def yes(x):
            return x
        def no(x):
            return -x

        @jax.jit
        def f(xs):
            lax.scan(scan_body, 0.0, xs)
            lax.fori_loop(0, 3, fori_body, xs)
            lax.while_loop(cond_fun, body_fun, xs)
            return lax.cond(xs.sum() > 0, yes, no, xs)
        """)
    assert fn(m, "scan_body").traced_params == {"carry", "x"}
    assert fn(m, "fori_body").traced_params == {"i", "c"}
    assert fn(m, "cond_fun").traced and fn(m, "body_fun").traced
    assert fn(m, "yes").traced and fn(m, "no").traced
    assert any(r.kind == "scan" and r.line for r in fn(m, "scan_body").traced_by)
    assert any(r.kind == "fori_loop" and r.line for r in fn(m, "fori_body").traced_by)
    assert any(r.kind == "while_loop" and r.line for r in fn(m, "body_fun").traced_by)


def test_lax_bodies_are_traced_even_outside_jit():
    m = model("""
        from jax import lax

        def step(c, x):
            return c, x

        def run(xs):
            return lax.scan(step, 0.0, xs)
        """)
    assert traced_names(m) == {"step"} and not fn(m, "run").traced


def test_lambda_bodies_of_lax_loops_are_traced():
    m = model("""
        import jax

        @jax.jit
        def f(x):
            return jax.lax.fori_loop(0, 10, lambda i, c: c * 2, x)
        """)
    lam = fn(m, "f.<locals>.<lambda>")
    assert lam.traced_params == {"i", "c"}


def test_vmap_grad_and_value_and_grad_inside_jit_trace_their_function():
    m = model("""
        import jax

        def loss(params, x):
            return (params * x).sum()
        def per_example(x):
            return x
        def aux_loss(params):
            return params

        @jax.jit
        def step(params, xs):
            g = jax.grad(loss)(params, xs)
            v, g2 = jax.value_and_grad(aux_loss)(params)
            return jax.vmap(per_example)(xs) + g + g2
        """)
    assert fn(m, "loss").traced_params == {"params", "x"}
    assert fn(m, "aux_loss").traced_params == {"params"}
    assert fn(m, "per_example").traced_params == {"x"}
    assert Reason("grad", caller="step") in fn(m, "loss").traced_by


def test_grad_of_a_method_inside_jit_does_not_trace_self():
    m = model("""
        import jax, functools

        class Trainer:
            def loss(self, params, x):
                return params * x

            @functools.partial(jax.jit, static_argnums=0)
            def step(self, params, x):
                return jax.grad(self.loss)(params, x)
        """)
    assert fn(m, "Trainer.loss").traced_params == {"params", "x"}


def test_transform_bound_to_a_name_outside_jit_is_followed_when_called_inside():
    m = model("""
        import jax, functools

        def loss(params, x):
            return params * x
        def scaled(s, x):
            return s * x

        grad_fn = jax.grad(loss)
        double = functools.partial(scaled, 2.0)

        @jax.jit
        def step(params, x):
            return grad_fn(params, x) + double(x)
        """)
    assert fn(m, "loss").traced_params == {"params", "x"}
    assert fn(m, "scaled").traced_params == {"x"}  # `s` is bound to a Python float


def test_jit_of_vmap_and_of_grad_traces_the_inner_function():
    m = model("""
        import jax

        def f(x):
            return x
        def loss(p, x):
            return p * x

        batched = jax.jit(jax.vmap(f))
        grads = jax.jit(jax.grad(loss))
        """)
    assert {e.qualname for e in m.entries} == {"f", "loss"}
    assert fn(m, "loss").traced_params == {"p", "x"}


def test_static_arguments_stay_untainted_and_shape_reads_are_static():
    m = model("""
        import jax, functools

        @functools.partial(jax.jit, static_argnames="n")
        def f(x, n):
            k = n * 2
            d = x.shape[0]
            y = x * k
            return y
        """)
    f = fn(m, "f")
    assert "y" in f.tainted and "x" in f.tainted
    assert not {"n", "k", "d"} & f.tainted


def test_reaching_bindings_follow_straight_line_code_branches_and_loops():
    m = model("""
        def f(x, flag, xs):
            y = []
            y = y + [x] if y else [x]
            if flag:
                z = 1
            else:
                z = 2
            w = z
            for item in xs:
                acc = acc + item if item else item
                acc = item
            return y, w, acc
        """)
    f = fn(m, "f")

    def reaching(name: str, line: int) -> list[int]:
        read = next(n for n in f.body_nodes() if isinstance(n, ast.Name) and n.id == name
                    and isinstance(n.ctx, ast.Load) and n.lineno == line)
        return sorted(b.node.lineno for b in m.reaching_bindings(read, f))

    assert reaching("y", 3) == [2]  # not the statement's own binding
    assert reaching("z", 8) == [5, 7]  # both branches
    assert reaching("y", 12) == [3]  # the later straight-line assignment overwrites line 2
    assert reaching("acc", 10) == [10, 11]  # the loop brings both back


def test_calling_an_object_of_a_module_class_traces_its_call_method():
    m = model("""
        import jax

        class Scale:
            def __init__(self, k):
                self.k = k

            def __call__(self, x):
                return x * self.k

            def inverse(self, y):
                return y / self.k

        class Net:
            def __init__(self):
                self.scale = Scale(2.0)

            def __call__(self, x):
                return self.scale(x)

        net = Net()
        unit = Scale(1.0)

        @jax.jit
        def f(x):
            return net(x) + unit.inverse(x)
        """)
    assert {"Net.__call__", "Scale.__call__", "Scale.inverse"} <= traced_names(m)
    assert fn(m, "Scale.__call__").traced_params == {"x"}
    assert Reason(CALL, caller="Net.__call__") in fn(m, "Scale.__call__").traced_by


def test_pytree_keys_and_enumerate_counters_are_not_traced_when_iterating():
    m = model("""
        import jax

        @jax.jit
        def f(tree, xs, ys):
            for k, v in tree.items():
                pass
            for name in tree.keys():
                pass
            for i, row in enumerate(xs):
                pass
            for a, b in zip(xs, range(3)):
                pass
            return [key for key, leaf in tree.items()]
        """)
    tainted = fn(m, "f").tainted
    assert {"v", "row", "a"} <= tainted
    assert not {"k", "name", "i", "b"} & tainted


def test_a_jaxtyping_pytree_annotation_is_not_an_array_for_filtered_jits():
    m = model("""
        import equinox as eqx
        from jaxtyping import Array, PyTree

        @eqx.filter_jit
        def f(x: Array, state: PyTree):
            return x
        """)
    assert only_entry(m).traced_params == ("x",)


# ---------------------------------------------------------------- serialization
JITMAP_SOURCE = """
import functools
import jax
from jax import lax

def body(c, x):
    return c, x

@functools.partial(jax.jit, static_argnums=1, donate_argnames=("state",))
def step(state, n):
    return lax.scan(body, state, state)

class Model:
    def __init__(self):
        self.run = jax.jit(self._run)
    def _run(self, x):
        return x

h = jax.jit(lambda x: x * 2)
"""


def test_jit_map_round_trips_through_json():
    m = model(JITMAP_SOURCE)
    jm = m.jit_map()
    assert jm.module == "mod" and len(jm.entries) == 3
    back = JitMap.from_dict(json.loads(json.dumps(jm.to_dict())))
    assert back == jm
    assert {q for q, _, _ in back.traced} == {"step", "body", "Model._run", "<lambda>@18"}
    step = next(e for e in back.entries if e.qualname == "step")
    assert step.donate_argnames == ("state",) and step.static_params == ("n",)


def test_entry_site_gives_the_decorator_or_call_node():
    m = model(JITMAP_SOURCE)
    for e in m.entries:
        node, info = m.entry_site(e)
        assert node.lineno == e.line and info.node.lineno == e.def_line
