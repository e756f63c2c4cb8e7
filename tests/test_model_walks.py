"""The semantic model's speed-ups answer exactly what the plain tree walks answer.

``ModuleModel.nodes()`` replaces ``ast.walk(tree)`` and ``function_of`` reads the scope
recorded while collecting instead of walking up the parents; both are checked here
against straightforward reference implementations on code with every kind of scope.
"""
from __future__ import annotations

import ast
import textwrap

import pytest

from jaxlint.static.callers import Callers
from jaxlint.static.scopes import Scopes, walk
from jaxlint.static.semantic import ModuleModel

SOURCE = textwrap.dedent(
    """
    import functools
    import jax
    import jax.numpy as jnp

    SCALE = 2.0

    def deco(arg=lambda q: q + 1):
        return lambda f: f

    @functools.partial(jax.jit, static_argnums=(1,))
    def step(x, n: int = len([i for i in range(3)]), *, w=jnp.ones(3)) -> jax.Array:
        def inner(y, z=x):
            return [v * SCALE for v in (y, z) if v is not None]
        total = sum(inner(x))
        f = lambda a, b=total: a + b
        return f(total) if n else -x

    class Model(Base, metaclass=Meta):
        size = 3

        @deco(arg=lambda k: k)
        def __call__(self, x):
            class Local:
                def method(self):
                    return x
            return jax.lax.scan(lambda c, e: (c + e, None), x, jnp.arange(self.size))

    result = [step(a) for a in {k: k for k in range(2)}]
    """
)
SINGLETONS = (ast.expr_context, ast.operator, ast.unaryop, ast.cmpop, ast.boolop)
FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


@pytest.fixture(scope="module")
def model():
    return ModuleModel(ast.parse(SOURCE), "example")


def header_of(fn: ast.AST) -> list[ast.AST]:
    """What a def evaluates in the enclosing scope: decorators and default values."""
    args = fn.args  # type: ignore[attr-defined]
    out = list(getattr(fn, "decorator_list", [])) + list(args.defaults)
    return out + [d for d in args.kw_defaults if d is not None]


def reference_function_of(model: ModuleModel, node: ast.AST) -> ast.AST | None:
    for a in model.ancestors(node):
        if isinstance(a, FUNCTIONS):
            in_header = {id(n) for h in header_of(a) for n in ast.walk(h)}
            if id(node) not in in_header:
                return a
    return None


def test_nodes_is_ast_walk_without_the_shared_singletons(model):
    expected = [n for n in ast.walk(model.tree) if not isinstance(n, SINGLETONS)]
    assert list(model.nodes()) == expected


@pytest.mark.parametrize("types", [(ast.Call,), (ast.Name,), (ast.Lambda,), (ast.stmt,), (ast.Call, ast.Assign)],
                         ids=lambda t: "+".join(c.__name__ for c in t))
def test_nodes_of_types_keep_the_walk_order(model, types):
    expected = [n for n in ast.walk(model.tree) if isinstance(n, types)]
    assert list(model.nodes(*types)) == expected
    assert expected  # the example holds each kind


def test_function_of_matches_the_walk_up_the_parents_for_every_node(model):
    checked = 0
    for node in ast.walk(model.tree):
        if isinstance(node, SINGLETONS) or (node is not model.tree and model.parent(node) is None):
            continue  # no single parent: shared singletons; nodes the model does not visit
        fn = model.function_of(node)
        assert (fn.node if fn else None) is reference_function_of(model, node), ast.dump(node)[:80]
        checked += 1
    assert checked > 100


def test_body_nodes_stop_at_nested_scopes_and_repeat_identically(model):
    fn = next(f for f in model.functions if f.name == "step")
    first = list(fn.body_nodes())
    names = {n.id for n in first if isinstance(n, ast.Name)}
    # `z=x`, inner's default, runs in step; inner's comprehension does not
    assert {"x", "total", "sum", "inner"} <= names
    assert "v" not in names and "y" not in names
    assert list(fn.body_nodes()) == first


SCOPES_SOURCE = textwrap.dedent(
    """
    def outer(x, k=1):
        @deco(x)
        def nested(a, b=x + 1, *, c=k, d=None) -> x.shape:
            return a + b
        class C(Base[x], metaclass=Meta, flag=x.ndim):
            attr = x
            def method(self, m=x):
                return m
        f = lambda p, q=x * 2: p + q + x
        g = [lambda r: r + x for i in range(3)]
        async def co(y=(lambda z: z)(x)):
            await y
        return nested(x), C, f, g, co, {v: w for v, w in x}
    """
)


def reference_body(fn: ast.AST) -> list[ast.AST]:
    """A function's own body, depth first in source order: a nested def, lambda or class
    with its decorators, defaults and bases (evaluated here), not its body; class keywords
    are not part of it; shared singletons skipped."""
    out: list[ast.AST] = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, SINGLETONS):
            return
        out.append(node)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            header = list(getattr(node, "decorator_list", []))
            if not isinstance(node, ast.ClassDef):
                header += node.args.defaults + [d for d in node.args.kw_defaults if d is not None]
            else:
                header += node.bases
            for h in header:
                visit(h)
            return
        for child in ast.iter_child_nodes(node):
            visit(child)

    for stmt in ([fn.body] if isinstance(fn, ast.Lambda) else fn.body):  # type: ignore[attr-defined]
        visit(stmt)
    return out


@pytest.mark.parametrize("source", [SOURCE, SCOPES_SOURCE], ids=["example", "scopes"])
def test_body_nodes_of_every_function_match_a_recursive_walk(source):
    model = ModuleModel(ast.parse(source), "example")
    assert len(model.functions) >= 7
    for fn in model.functions:
        assert list(fn.body_nodes()) == reference_body(fn.node), fn.qualname


def test_walk_of_every_subtree_is_ast_walk_without_the_shared_singletons(model):
    # names and constants are listed, not read: the same nodes, the same order
    for node in model.nodes():
        expected = [n for n in ast.walk(node) if not isinstance(n, SINGLETONS)]
        assert walk(node) == expected, ast.dump(node)[:80]


PARAMS_SOURCE = textwrap.dedent(
    """
    import functools
    import jax
    import numpy as np
    import jax.numpy as jnp
    from jax import jit as J

    def apply(xnp, x):
        return xnp.sin(x) + helper(xnp, x)

    def helper(mod, x, again=None):
        return mod.cos(x) + (helper(mod, x) if again else 0) + apply(mod, x)

    def run(x):
        return apply(np, x) + apply(jnp, x) + helper(np, x)

    def hidden(f, x):
        return f(x)

    step = J(run)
    fast = functools.partial(jax.jit, static_argnums=0)(hidden)
    values = [jax.vmap(lambda v: np.sum(v))(x) for x in range(3)]
    """
)


@pytest.mark.parametrize("source", [SOURCE, SCOPES_SOURCE, PARAMS_SOURCE], ids=["example", "scopes", "params"])
def test_each_calls_target_is_worked_out_once_and_answers_as_resolve(source):
    # the model keeps what resolve_call answered for each call (the jit map and the
    # tracing ask it of every call): the answers of a model with nothing worked out yet
    tree = ast.parse(source)
    model = ModuleModel(tree, "example")
    fresh = Scopes(tree, "example")
    calls = model.nodes(ast.Call)
    expected = [fresh.resolve(c.func, c) for c in calls]
    assert [model.resolve_call(c) for c in calls] == expected
    assert all(c in model._call_targets for c in calls)  # all worked out while building the model
    assert any(q is not None for q in expected)


def test_a_parameter_resolves_through_its_callers_and_is_kept():
    source = PARAMS_SOURCE + "\ndef only_np(xnp, x):\n    return xnp.tanh(x)\n\nonly_np(np, 1.0)\n"
    m = ModuleModel(ast.parse(source), "example")
    by_attr = {c.func.attr: c for c in m.nodes(ast.Call) if isinstance(c.func, ast.Attribute)}
    # only_np is given numpy at its one call; apply numpy and jax.numpy; helper calls
    # itself and apply (the guard against recursion answers while it is worked out)
    assert [m.resolve_call(by_attr[a]) for a in ("tanh", "sin", "cos")] == ["numpy.tanh", None, None]
    assert not Callers.of(m).resolving()


def test_the_models_parents_are_keyed_by_node_everywhere():
    # `Scopes.parents` maps a node to its parent (an AST node hashes by identity), not an
    # id to it: a lookup by id() would find nothing, silently
    import re
    from pathlib import Path

    import jaxlint
    from jaxlint import rules

    by_id = re.compile(r"\.parents(?:\.get\(|\[)\s*id\(|id\([^()]*\)\s+(?:not\s+)?in\s+[\w.]*\.parents\b")
    found = []
    for top in (Path(jaxlint.__file__).parent, Path(rules.__file__).parent):
        for path in top.rglob("*.py"):
            found += [f"{path.name}:{n}" for n, line in enumerate(path.read_text().splitlines(), 1)
                      if by_id.search(line)]
    assert found == []
    m = ModuleModel(ast.parse("def f(x):\n    return g(x)\n"), "m")
    call = m.nodes(ast.Call)[0]
    assert m.parents[call].__class__ is ast.Return and m.parent(call) is m.parents[call]
