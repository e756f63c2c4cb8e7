"""What a function's own code says a value is (``jaxlint/static/usage.py``), and tree maps
of functions that return static values. Both were false findings on real programs nobody
here wrote (flax's wmt and imagenet examples: ``if state.dynamic_scale:``; haiku's
mnist_gan notebook: printing ``jax.tree.map(lambda x: x.shape, params)``), found in
review (benchmarks/static_on_programs.md). Each program here also runs under real jax,
so the verdict is jax's, not ours."""
from __future__ import annotations

import ast
import contextlib
import io
import re
import textwrap

import pytest

from helpers import lint_source
from jaxlint.static.semantic import ModuleModel
from jaxlint.static.usage import object_paths, path_of, used_as_object

# A field that holds None or an object with methods (a flax DynamicScale, say), tested
# for truth, and used as an object in the same function: its truth value is static.
OBJECT_FIELD = """
    import dataclasses
    import jax
    import jax.numpy as jnp


    class Scaler:
        def __init__(self, scale):
            self.scale = scale

        def value_and_grad(self, f):
            return jax.value_and_grad(lambda p: f(p) * self.scale)


    @jax.tree_util.register_dataclass
    @dataclasses.dataclass
    class State:
        params: jax.Array
        scaler: object = dataclasses.field(default=None, metadata=dict(static=True))


    def loss(p):
        return jnp.sum(p ** 2)


    def train_step(state, batch):
        if state.scaler:
            grad_fn = state.scaler.value_and_grad(loss)
        else:
            grad_fn = jax.value_and_grad(loss)
        value, grads = grad_fn(state.params)
        return state.params - 0.1 * grads * batch


    step = jax.jit(train_step)
"""

# The twin: the same test on a field the function uses as an array only.
ARRAY_FIELD = OBJECT_FIELD.replace("if state.scaler:", "if state.params:")


def _truth(src: str) -> BaseException | None:
    ns: dict = {}
    exec(compile(textwrap.dedent(src), "prog.py", "exec"), ns)  # noqa: S102 - our own program
    state = ns["State"](params=ns["jnp"].asarray(1.0), scaler=ns["Scaler"](2.0))
    try:
        ns["step"](state, 1.0)
    except Exception as e:  # noqa: BLE001 - the error is the verdict
        return e
    return None


def test_an_object_field_tested_for_truth_is_quiet():
    assert _truth(OBJECT_FIELD) is None  # jax runs it
    assert not lint_source(OBJECT_FIELD, select=["JAX105"], confidence="possible")


def test_an_array_field_tested_for_truth_is_reported():
    error = _truth(ARRAY_FIELD)
    assert error is not None and "Tracer" in type(error).__name__ + str(error)
    found = lint_source(ARRAY_FIELD, select=["JAX105"], confidence="possible")
    assert [d.start.line for d in found] == [textwrap.dedent(ARRAY_FIELD).lstrip("\n").splitlines().index(
        "    if state.params:") + 1]


def test_a_local_copy_used_as_an_object_is_quiet():
    src = OBJECT_FIELD.replace(
        "        if state.scaler:\n            grad_fn = state.scaler.value_and_grad(loss)",
        "        scaler = state.scaler\n        if scaler:\n            grad_fn = scaler.value_and_grad(loss)")
    assert "if scaler:" in src
    assert _truth(src) is None
    assert not lint_source(src, select=["JAX105"], confidence="possible")


@pytest.mark.parametrize("body,paths", [
    ("x.value_and_grad(f); y.sum(); z.shape; s.a.b.scale", {"x", "s", "s.a", "s.a.b"}),
    ("d.items(); e.at[0].set(1); self.w.foo", {"d", "self.w"}),
    ("(a + b).foo; c.__class__; v.value", set()),
])
def test_object_paths(body, paths):
    src = f"def f(x, y, z, s, d, e, a, b, c, v, self):\n    {body}\n"
    model = ModuleModel(ast.parse(src), "m")
    fn = next(f for f in model.functions if f.name == "f")
    assert object_paths(model, fn) == paths
    first = ast.parse(body.split(";")[0].strip(), mode="eval").body
    assert used_as_object(model, fn, first.func.value if isinstance(first, ast.Call) else first.value) \
        == bool(paths)


def test_path_of():
    assert path_of(ast.parse("a.b.c", mode="eval").body) == "a.b.c"
    assert path_of(ast.parse("a[0].b", mode="eval").body) is None


# ---------------------------------------------------------------- tree maps of shapes
SHAPES = """
    import jax
    import jax.numpy as jnp


    def tree_shape(xs):
        return jax.tree.map(lambda x: x.shape, xs)


    @jax.jit
    def init(params):
        print("shapes", tree_shape(params))
        print("direct", jax.tree.map(lambda x: x.shape, params))
        print("jnp", jax.tree.map(jnp.shape, params))
        return params
"""


def test_printing_a_tree_map_of_shapes_prints_shapes_and_is_quiet():
    ns: dict = {}
    exec(compile(textwrap.dedent(SHAPES), "prog.py", "exec"), ns)  # noqa: S102
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        ns["init"]({"w": ns["jnp"].ones((2, 3))})
    assert out.getvalue().count("(2, 3)") == 3 and "Traced" not in out.getvalue()
    assert not lint_source(SHAPES, select=["JAX106"], confidence="possible")


def test_printing_a_tree_map_of_arrays_prints_tracers_and_is_reported():
    src = SHAPES.replace("x.shape", "x + 1").replace("jnp.shape", "jnp.sin")
    ns: dict = {}
    exec(compile(textwrap.dedent(src), "prog.py", "exec"), ns)  # noqa: S102
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        ns["init"]({"w": ns["jnp"].ones((2, 3))})
    assert len(re.findall(r"Trac(?:er|ed)", out.getvalue())) == 3  # JitTracer(...) / Traced<...>
    assert len(lint_source(src, select=["JAX106"])) == 3
