"""The static value model (``jaxlint/static/values.py``): kinds of value, declared-static
fields, function summaries; and the confidence every static finding carries."""
from __future__ import annotations

import ast
import json
import subprocess
import sys
import textwrap

import pytest

from helpers import lint_source
from jaxlint.diagnostic import Confidence, Diagnostic, Position, Severity
from jaxlint.static.semantic import ModuleModel
from jaxlint.static.values import Kind, Summaries, class_facts, static_field_names


def model_of(src: str) -> ModuleModel:
    return ModuleModel(ast.parse(textwrap.dedent(src)), "m")


# ---------------------------------------------------------------------- fields
@pytest.mark.parametrize("src,cls,static,leaves", [
    ("""
     from flax import struct
     @struct.dataclass
     class S:
         x: object
         n: int = struct.field(pytree_node=False)
     """, "S", {"n"}, {"x"}),
    ("""
     import dataclasses, jax
     @jax.tree_util.register_dataclass
     @dataclasses.dataclass
     class S:
         x: object
         n: int = dataclasses.field(metadata=dict(static=True))
         m: int = dataclasses.field(metadata={"static": True})
     """, "S", {"n", "m"}, {"x"}),
    ("""
     import equinox as eqx
     class M(eqx.Module):
         w: object
         act: object = eqx.field(static=True)
     """, "M", {"act"}, {"w"}),
    ("""
     from flax import nnx
     class M(nnx.Module):
         def __init__(self, din: int, rngs):
             self.din = din
             self.name = "m"
             self.linear = nnx.Linear(din, 3, rngs=rngs)
             self.scale = nnx.Param(1.0)
     """, "M", {"din", "name"}, {"linear", "scale"}),
    ("""
     import flax.linen as nn
     class M(nn.Module):
         features: int
         use_bias: bool = True
     """, "M", {"features", "use_bias"}, set()),
    ("""
     import dataclasses, jax
     @dataclasses.dataclass
     class S:
         x: object
         n: int
     jax.tree_util.register_dataclass(S, data_fields=["x"], meta_fields=["n"])
     """, "S", {"n"}, {"x"}),
    ("""
     import jax
     @jax.tree_util.register_pytree_node_class
     class S:
         def __init__(self, x, n):
             self.x, self.n = x, n
         def tree_flatten(self):
             return (self.x,), (self.n,)
     """, "S", {"n"}, {"x"}),
])
def test_declared_fields(src, cls, static, leaves):
    facts = class_facts(model_of(src))[cls]
    assert facts.pytree is not None
    assert facts.static_fields == static
    assert facts.leaf_fields == leaves


def test_a_name_some_class_declares_a_leaf_is_not_a_static_field():
    m = model_of("""
        from flax import struct
        @struct.dataclass
        class A:
            n: int = struct.field(pytree_node=False)
            k: int = struct.field(pytree_node=False)
        @struct.dataclass
        class B:
            n: object
    """)
    assert static_field_names(m) == {"k"}


# ---------------------------------------------------------------------- summaries
SUMMARY_SRC = """
    import jax.numpy as jnp
    from flax import struct

    @struct.dataclass
    class Buffer:
        items: object
        size: int = struct.field(pytree_node=False)

        def count(self):
            return len(self.items)

        def capacity(self):
            return self.size * 2

        def rows(self):
            return self.items.shape[0]

        def total(self):
            return jnp.sum(self.items)

        def forever(self):
            return self.forever()

        def opaque(self):
            return some_library(self.items)

    def half(n):
        return count_of(n) // 2

    def count_of(n):
        return len(n)
"""


@pytest.mark.parametrize("name,kind", [
    ("count", Kind.STATIC), ("capacity", Kind.STATIC), ("rows", Kind.STATIC), ("total", Kind.TRACED),
    ("forever", Kind.UNKNOWN), ("opaque", Kind.UNKNOWN), ("half", Kind.STATIC),
])
def test_function_summaries(name, kind):
    m = model_of(SUMMARY_SRC)
    fn = next(f for f in m.functions if f.name == name)
    assert Summaries.of(m).returns(fn) is kind


def test_summaries_are_computed_once():
    m = model_of(SUMMARY_SRC)
    s = Summaries.of(m)
    assert Summaries.of(m) is s
    fn = next(f for f in m.functions if f.name == "half")
    s.returns(fn)
    assert len(s._returns) == 2  # half and count_of, each once


# ---------------------------------------------------------------------- rules asking the model
STATE = """
    import jax
    import jax.numpy as jnp
    from flax import struct

    @struct.dataclass
    class State:
        obs: jax.Array
        items: jax.Array
        num_envs: int = struct.field(pytree_node=False)

        def count(self):
            return len(self.items)

        def total(self):
            return jnp.sum(self.items)
"""


@pytest.mark.parametrize("body", [
    "if state.num_envs > 1:\n        return state.obs\n    return -state.obs",  # a declared-static field
    "if state.count() > 0:\n        return state.obs\n    return -state.obs",  # a method returning len()
])
def test_static_values_of_pytrees_are_not_traced_control_flow(body):
    src = textwrap.dedent(STATE) + f"\n@jax.jit\ndef step(state):\n    {body}\n"
    assert lint_source(src, select=["JAX105"]) == []


def test_a_method_returning_an_array_is_traced_control_flow():
    src = textwrap.dedent(STATE) + "\n@jax.jit\ndef step(state):\n    if state.total() > 0:\n        return 1\n    return 0\n"
    found = lint_source(src, select=["JAX105"])
    assert [(d.start.line, d.confidence, d.severity) for d in found] == [(19, Confidence.CERTAIN, Severity.ERROR)]


def test_an_unknown_method_gives_a_possible_finding_only_under_preview():
    src = textwrap.dedent(STATE) + "\n@jax.jit\ndef step(state):\n    if state.valid():\n        return 1\n    return 0\n"
    assert lint_source(src, select=["JAX105"]) == []
    found = lint_source(src, select=["JAX105"], confidence="possible")
    assert [(d.confidence, d.severity) for d in found] == [(Confidence.POSSIBLE, Severity.WARNING)]


# ---------------------------------------------------------------------- confidence
def test_a_finding_is_an_error_only_when_certain():
    d = Diagnostic("JAX105", "x", "m", "a.py", Position(1, 1), Position(1, 2), Severity.ERROR, noqa_line=1,
                   confidence=Confidence.LIKELY)
    assert d.severity is Severity.WARNING
    assert Diagnostic.from_dict(d.to_dict()) == d
    assert d.to_dict()["confidence"] == "likely"


PREVIEW_SRC = """\
import jax

@jax.jit
def step(state):
    if state.valid():
        return 1
    return 0

@jax.jit
def scaled(x, cfg):
    if cfg.n > 1:
        return x
    return x

@jax.jit
def relu(x):
    if x > 0:
        return x
    return 0.0
"""


def _check(tmp_path, *args: str, config: str | None = None) -> list[dict]:
    (tmp_path / "m.py").write_text(PREVIEW_SRC)
    if config is not None:
        (tmp_path / "jaxlint.toml").write_text(config)
    r = subprocess.run([sys.executable, "-m", "jaxlint", "check", "--no-cache", "--select", "JAX105",
                        "--output-format", "json", *args, "m.py"], capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode in (0, 1), r.stderr
    return json.loads(r.stdout)


def test_cli_selects_findings_by_confidence(tmp_path):
    default = _check(tmp_path)
    assert [(f["location"]["row"], f["confidence"], f["severity"]) for f in default] == [(17, "certain", "error")]
    preview = _check(tmp_path, "--preview")
    assert [(f["location"]["row"], f["confidence"], f["severity"]) for f in preview] == [
        (5, "possible", "warning"), (17, "certain", "error")]
    certain = _check(tmp_path, config='confidence = "certain"\n')
    assert [f["location"]["row"] for f in certain] == [17]
    (tmp_path / "jaxlint.toml").write_text('confidence = "sure"\n')
    r = subprocess.run([sys.executable, "-m", "jaxlint", "check", "--no-cache", "m.py"],
                       capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 2 and "confidence" in r.stderr


# ---------------------------------------------------------------------- newer syntax
@pytest.mark.skipif(sys.version_info >= (3, 12), reason="3.12 parses PEP 695")
@pytest.mark.parametrize("src", ["type Vector = list[float]\n", "class Box[T]:\n    pass\n",
                                 "def first[T](xs: list[T]) -> T:\n    return xs[0]\n"])
def test_newer_syntax_is_one_informational_finding(src):
    found = lint_source("import jax\n" + src)
    assert [(d.code, d.severity, d.start.line) for d in found] == [("JAX100", Severity.INFO, 2)]
    assert "Python 3.12" in found[0].message and found[0].data["needs-python"] == "3.12"


def test_a_real_syntax_error_is_still_an_error():
    found = lint_source("import jax\ntype = 1 +\n")
    assert [(d.code, d.severity) for d in found] == [("JAX100", Severity.ERROR)]


# ---------------------------------------------------------------------- flow through tree maps and helpers
def test_a_tree_map_of_a_static_function_gives_static_leaves():
    src = """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def predict(X, X_test):
            matches = jax.tree_util.tree_map(
                lambda a, b: jnp.ndim(a) == jnp.ndim(b) and jnp.shape(a)[1:] == jnp.shape(b)[1:], X, X_test)
            if not jax.tree_util.tree_reduce(lambda a, b: a and b, matches):
                raise ValueError("X_test must match X")
            return X
    """
    assert lint_source(src, select=["JAX105"]) == []
    traced = src.replace("jnp.ndim(a) == jnp.ndim(b) and jnp.shape(a)[1:] == jnp.shape(b)[1:]", "a > b")
    assert [d.code for d in lint_source(traced, select=["JAX105"])] == ["JAX105"]


@pytest.mark.parametrize("mask,expected", [
    ("x > 0", [(Confidence.CERTAIN, Severity.ERROR)]),  # a comparison of a traced parameter
    ("unseen.check(x) > 0", []),  # a value from a call the model cannot see into: possible
])
def test_data_dependent_shape_findings_are_as_sure_as_the_mask(mask, expected):
    src = f"""
        import jax
        import unseen

        @jax.jit
        def positives(x):
            return x[{mask}]
    """
    assert [(d.confidence, d.severity) for d in lint_source(src, select=["JAX111"])] == expected
    assert len(lint_source(src, select=["JAX111"], confidence="possible")) == 1


# ---------------------------------------------------------------------- why a function is traced, as data
def test_reasons_are_data():
    import pickle

    from jaxlint.static.semantic import JIT_LIKE
    from jaxlint.static.traced import ENTRY_KINDS, Reason

    assert ENTRY_KINDS == set(JIT_LIKE.values())
    m = model_of("""
        import jax

        def helper(x):
            return x

        def body(c, x):
            return c, helper(x)

        def loss(p):
            return p

        @jax.jit
        def step(xs, p):
            jax.grad(loss)(p)
            return jax.lax.scan(body, 0, xs)
    """)
    by_name = {f.name: f for f in m.functions}
    (step,) = by_name["step"].traced_by
    assert (step.kind, step.line, step.is_entry, step.by_call) == ("jit", 13, True, False)
    (scan,) = by_name["body"].traced_by
    assert (scan.kind, scan.line, scan.is_entry) == ("scan", 16, False)
    (call,) = by_name["helper"].traced_by
    assert (call.by_call, call.caller, str(call)) == (True, "body", "called from body")
    call, grad = by_name["loss"].traced_by  # `jax.grad(loss)(p)` also calls it
    assert call.by_call
    assert (grad.kind, grad.caller, grad.line, str(grad)) == ("grad", "step", None, "grad in step")
    again = pickle.loads(pickle.dumps(grad))
    assert again == grad and (again.kind, again.caller) == ("grad", "step")
    assert not isinstance(Reason("jit", 3), str)  # data: rules read its fields, not a text


# ---------------------------------------------------------------------- containers and eager blocks
@pytest.mark.parametrize("init,expected", [
    ('{"n": x}', []),  # a dict carry: its truth value is static
    ("(x, 0)", []),  # a tuple carry
    ("x", [("JAX105", "likely")]),  # an array carry (an unannotated parameter: likely)
])
def test_the_truth_of_a_loop_carry_depends_on_what_starts_it(init, expected):
    src = f"""
        import jax

        def body(carry, x):
            if carry:
                return carry, x
            return carry, x

        @jax.jit
        def run(x, xs):
            return jax.lax.scan(body, {init}, xs)
    """
    assert [(d.code, d.confidence.value) for d in lint_source(src, select=["JAX105"])] == expected


def test_a_constant_computed_in_ensure_compile_time_eval_is_concrete():
    src = """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def f(x):
            with jax.ensure_compile_time_eval():
                n = jnp.sum(jnp.arange(4))
            if n > 3:
                return x
            return -x
    """
    assert lint_source(src, select=["JAX105"]) == []
    staged = src.replace("            with jax.ensure_compile_time_eval():\n    ", "")
    assert [d.code for d in lint_source(staged, select=["JAX105"])] == ["JAX105"]
