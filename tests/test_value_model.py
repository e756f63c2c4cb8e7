"""The static value model (``jaxlint/static/values.py``): kinds of value, declared-static
fields, function summaries; and the confidence every static finding carries."""
from __future__ import annotations

import ast
import contextlib
import io
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


# ---------------------------------------------------------------------- transforms, samplers, aliases (issue 19, second round)
def test_a_transformed_function_called_in_traced_code_gives_tracers():
    from jaxlint.static.taint import CERTAIN, taint_of

    m = model_of("""
        import jax
        import jax.numpy as jnp

        def loss(p, data):
            return jnp.sum((data - p) ** 2)

        DATA = 3.0

        @jax.jit
        def step(x):
            g = jax.grad(loss)(1.0, DATA)
            value_and_grad = jax.value_and_grad(loss)
            v, h = value_and_grad(2.0, DATA)
            n = len(DATA)
            return x - g - h, n

        def eager():
            return jax.grad(loss)(1.0, DATA)
    """)
    step = next(f for f in m.functions if f.name == "step")
    assert {"g", "v", "h"} <= step.tainted and "n" not in step.tainted
    taint = taint_of(m, step)
    assert {taint.names[n] for n in ("g", "v", "h")} == {CERTAIN}
    eager = next(f for f in m.functions if f.name == "eager")
    assert not eager.traced  # outside a trace the same call gives concrete values


def test_numpyro_kernels_trace_the_model_and_its_sample_sites():
    from jaxlint.static.taint import taint_of

    m = model_of("""
        import numpyro
        import numpyro.distributions as dist
        from numpyro.infer import MCMC, NUTS, SVI

        def model(data, scale=1.0):
            z = numpyro.sample("z", dist.Normal(0.0, scale))
            y = numpyro.sample("y", dist.Normal(z, 1.0), obs=data)
            none = numpyro.sample("w", dist.Normal(0.0, 1.0), obs=None)
            return z, y, none

        def guide(data, scale=1.0):
            return numpyro.sample("z", dist.Normal(0.0, 1.0))

        def plain(data):
            return numpyro.sample("z", dist.Normal(0.0, 1.0))

        mcmc = MCMC(NUTS(model), num_warmup=10, num_samples=10)
        svi = SVI(model, guide, None, None)
    """)
    by_name = {f.name: f for f in m.functions}
    model = by_name["model"]
    assert sorted(r.kind for r in model.traced_by) == ["NUTS", "SVI"]
    assert model.traced_params == set()  # the data arguments pass through as the caller gives them
    assert [r.kind for r in by_name["guide"].traced_by] == ["SVI"]
    assert not by_name["plain"].traced  # run eagerly (a seed handler): concrete values
    names = taint_of(m, model).names
    assert "z" in names and "none" in names and "y" not in names  # an observed site returns the data


@pytest.mark.parametrize("body,held", [
    ('return {"z": params, "count": 0}', {"params"}),
    ("return params, state", {"params", "state"}),
    ("out = [params, 1]\n    return out", {"params"}),
    ("return jax.tree_util.tree_map(jnp.copy, params)", set()),
    ("params = params * 2\n    return {'z': params}", set()),  # rebound: a new array
    ("return state if state else {'z': params}", set()),
])
def test_which_arguments_a_function_returns_as_they_are(body, held):
    m = model_of(f"""
import jax
import jax.numpy as jnp

def init(params, state=None):
    {body}
""")
    (fn,) = m.functions
    assert Summaries.of(m).aliased_params(fn) == held


def test_a_numpy_array_is_known_by_its_constructor():
    from jaxlint.static.arrays import is_host_array

    m = model_of("""
        import numpy as np
        import jax.numpy as jnp

        TABLE = np.linspace(0.0, 1.0, 8)
        OTHER = jnp.zeros(3)

        def f(i, table):
            rows = np.arange(4)
            mixed = np.arange(3)
            mixed = jnp.arange(3)
            return TABLE[i], rows[i], OTHER[i], mixed[i], table[i], np.zeros((3, 3))[i], jnp.zeros(3)[i]
    """)
    fn = m.functions[0]
    ret = next(n for n in ast.walk(fn.node) if isinstance(n, ast.Return))
    hosts = [is_host_array(m, fn, e.value) for e in ret.value.elts]
    assert hosts == [True, True, False, False, False, True, False]


def test_a_name_is_traced_only_after_the_statement_that_makes_it_so():
    src = """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def f(x):
            n = 3
            if n > 2:
                x = x + 1
            n = jnp.sum(x)
            if n > 2:
                x = x - 1
            return x

        @jax.jit
        def g(x):
            m = 1
            for i in range(3):
                if m > 0:
                    x = x + 1
                m = jnp.sum(x)
            return x
    """
    # line 7 reads the Python int; line 10 the sum; line 18 the sum of the previous iteration
    assert [d.start.line for d in lint_source(src, select=["JAX105"])] == [10, 18]


def test_a_staticmethod_called_through_self_gets_no_self():
    m = model_of("""
        import jax

        class Dist:
            def sample(self, keys, n, logits):
                return jax.vmap(self._one, in_axes=(0, None, 0))(keys, n, logits)

            @staticmethod
            def _one(key, n, logits):
                return jax.random.categorical(key, logits, shape=(n,))
    """)
    one = next(f for f in m.functions if f.name == "_one")
    assert one.traced_params == {"key", "logits"}  # `n` is passed unmapped (in_axes None)


def test_a_function_a_factory_returns_is_what_a_transform_traces():
    m = model_of("""
        import jax
        from jax import lax

        def make_body(scale):
            def body(c, x):
                return c + scale * x, None
            return body

        def run(xs):
            return lax.scan(make_body(2.0), 0.0, xs)

        def other(xs):
            step = make_body(3.0)
            return lax.scan(step, 0.0, xs)
    """)
    body = next(f for f in m.functions if f.name == "body")
    assert body.traced_params == {"c", "x"} and [r.kind for r in body.traced_by] == ["scan", "scan"]


def test_a_defaulted_parameter_is_traced_when_a_call_passes_it():
    m = model_of("""
        import jax

        def radial(r, order=0, scale=1.0, *, mode="a"):
            return r

        radial_jit = jax.jit(radial, static_argnames=("mode",))

        @jax.jit
        def kept(x, training=False):
            return x

        def main(r):
            return radial_jit(r, 1), radial_jit(r, mode="b"), kept(r)
    """)
    by_name = {f.name: f for f in m.functions}
    assert by_name["radial"].traced_params == {"r", "order"}  # `scale` keeps its default; `mode` is static
    assert by_name["kept"].traced_params == {"x"}


# ---------------------------------------------------------------------- one answer to "is this value traced?"
_SHAPES = """
    import dataclasses
    import jax
    import jax.numpy as jnp
    import numpy as np
    from flax import struct

    @struct.dataclass
    class State:
        x: jax.Array
        n: int = struct.field(pytree_node=False)

    def count(xs):
        return len(xs)

    def double(x):
        return jnp.asarray(x) * 2

    SENTINEL = object()

    class Model:
        scale = 2.0

        @jax.jit
        def apply(self, x, cfg, state: State, key):
            a = self.scale * x
            b = cfg.depth + 1
            c = state.n
            d = state.x + 1
            e = int(x) + len(x)
            f = not x
            g = x is None
            h = x == "mean"
            i = x == SENTINEL
            j = count(x)
            k = double(x)
            m = f"{x}"
            o = jax.random.PRNGKey(0)
            p = np.sum(x)
            q = x.shape[0] + x.ndim
            r = [v for v in x]
            s = {kk: vv for kk, vv in state.items()}
            t = x.sum() if x.ndim > 1 else x
            u = jax.grad(double)(x)
            w = sum(x), max(x, 0), abs(x), round(x), pow(x, 2), divmod(x, 2)
            y = sum((1, 2)), max(3, 4), abs(-1), round(2.5), pow(2, 3)
            return a, b, c, d, e, f, g, h, i, j, k, m, o, p, q, r, s, t, u, w, y
"""


def test_the_tracing_fixpoint_and_the_rules_ask_one_function():
    """``Tracing.is_traced_expr`` (what marks traced names and parameters) and
    ``Taint.level`` (what the rules ask) are one decision, ``flow.Flow.culprit``: on a
    jitted function they agree on every expression, at the edges too (``self.x``, a
    static field, a config, ``not x``, ``is``, a string or sentinel comparison, a
    converter, a helper whose summary is static, an f-string, numpy on a tracer)."""
    from jaxlint.static.taint import taint_of

    m = model_of(_SHAPES)
    fn = next(f for f in m.functions if f.name == "apply")
    taint = taint_of(m, fn)
    exprs = [n for n in ast.walk(fn.node) if isinstance(n, ast.expr)]
    assert len(exprs) > 150
    disagree = [ast.unparse(e) for e in exprs
                if m.is_traced_expr(e, fn) != (taint.level(e) is not None)]
    assert disagree == []
    # what the one answer says of the names those lines bind
    # (an f-string of a tracer counts: it is what a print of a tracer shows)
    traced = {"a", "k", "m", "o", "p", "r", "t", "u", "w"}
    static = {"b", "c", "e", "f", "g", "h", "i", "j", "q", "y"}
    assert traced <= fn.tainted
    assert not static & fn.tainted


# ---------------------------------------------------------------------- what values are (third recall round, by class)
@pytest.mark.parametrize("expr", ["sum(x)", "max(x, y)", "min(x[0], 1.0)", "abs(x)", "round(x)", "pow(x, 2)",
                                  "divmod(x, 2)[0]", "sum(v * 2 for v in x)", "[v + 1 for v in x][0]",
                                  "sum(abs(v) for v in x)"])
def test_a_builtin_or_comprehension_of_tracers_is_traced(expr):
    """Builtins that compute from their arguments, and comprehensions, are as traced as
    what they are given: certain, so the finding on them is an error."""
    src = f"import jax\n\n@jax.jit\ndef f(x, y):\n    if {expr} > 0:\n        return x\n    return y\n"
    found = lint_source(src, select=["JAX105"])
    assert [(d.start.line, d.confidence, d.severity) for d in found] == [(5, Confidence.CERTAIN, Severity.ERROR)]


@pytest.mark.parametrize("expr", ["sum((1, 2))", "max(3, 4)", "min(x.shape)", "abs(-2)", "round(2.5)",
                                  "pow(2, x.ndim)", "divmod(len(x), 2)[0]", "sum(d for d in x.shape)",
                                  "max(len(v) for v in (x, y))"])
def test_a_builtin_or_comprehension_of_static_values_is_static(expr):
    src = f"import jax\n\n@jax.jit\ndef f(x, y):\n    if {expr} > 0:\n        return x\n    return y\n"
    assert lint_source(src, select=["JAX105"], confidence="possible") == []


# ---------------------------------------------------------------------- which code is traced (third recall round, by class)
_ENV = """
    import jax
    import jax.numpy as jnp

    class Env:
        def __init__(self, n):
            self.n = n

        def step(self, state, action):
            if self.n > 2:  # the bound instance: a Python value
                state = state * 2
            print("reward", state)
            if action > 0:
                state = state + 1
            return state

        @staticmethod
        def reset(key):
            if key > 0:
                return key
            return key
"""


@pytest.mark.parametrize("jit", [
    "env = Env(3)\nstep = jax.jit(env.step)\n",
    "def main():\n    env = Env(3)\n    step = jax.jit(env.step)\n    return step(jnp.ones(2), 1)\n",
    "class Runner:\n    def __init__(self):\n        self.env = Env(3)\n        self.step = jax.jit(self.env.step)\n",
    "env = Env(3)\nout = jax.jit(env.step, static_argnums=1)(jnp.ones(2), 1)\n",
])
def test_a_jitted_bound_method_of_an_instance_is_the_traced_method(jit):
    """``jax.jit(env.step)`` traces ``Env.step`` with ``self`` bound to the instance: its
    parameters are traced (the print and the `if action > 0` are findings), ``self.n``
    is not. A static argument counts from the bound method's first parameter."""
    src = textwrap.dedent(_ENV) + "\n" + jit
    found = sorted((d.code, d.start.line) for d in lint_source(src, select=["JAX105", "JAX106"]))
    if "static_argnums" in jit:
        assert found == [("JAX106", 11)]  # `action` is static
    else:
        assert found == [("JAX105", 12), ("JAX106", 11)]
    m = model_of(src)
    step = next(f for f in m.functions if f.qualname == "Env.step")
    assert "self" not in step.traced_params and "state" in step.traced_params


def test_a_jitted_staticmethod_of_an_instance_gets_no_self():
    src = textwrap.dedent(_ENV) + "\nenv = Env(3)\nreset = jax.jit(env.reset)\n"
    assert [(d.code, d.start.line) for d in lint_source(src, select=["JAX105"])] == [("JAX105", 18)]


def test_a_method_of_something_unknown_stays_unresolved():
    m = model_of(textwrap.dedent(_ENV) + "\ndef make(env):\n    return jax.jit(env.step)\n")
    assert not next(f for f in m.functions if f.qualname == "Env.step").traced
    assert len(m.entries_unresolved) == 1


@pytest.mark.parametrize("line,found", [
    ("a, b = x, 2\n    if b > 0:", False),        # each target its own value
    ("a, b = x, 2\n    if a > 0:", True),
    ("(a, b), c = (1, x), 3\n    if b > 0:", True),
    ("(a, b), c = (1, x), 3\n    if a + c > 0:", False),
    ("a, b = [x, 2]\n    if b > 0:", False),
    ("a, b = x\n    if b > 0:", True),             # unpacking a tracer gives tracers
    ("a, *b = x, 2, 3\n    if a > 0:", True),      # a starred target: the whole value
])
def test_an_unpacking_assignment_gives_each_target_its_own_value(line, found):
    src = f"import jax\n\n@jax.jit\ndef f(x):\n    {line}\n        return x\n    return x\n"
    assert [d.code for d in lint_source(src, select=["JAX105"], confidence="possible")] == (["JAX105"] if found else [])


@pytest.mark.parametrize("line,found", [
    ("d = {'x': x, 'n': 3}\n    if d['x'] > 0:", True),
    ("d = {'x': x, 'n': 3}\n    if d['n'] > 0:", False),
    ("d = dict_of(x)\n    if d['n'] > 0:", False),   # a helper the model cannot see into: possible at most
    ("ys = [{'v': x}]\n    if ys[0]['v'] > 0:", True),
])
def test_an_entry_of_a_dict_display_is_what_was_stored(line, found):
    src = f"import jax\n\n@jax.jit\ndef f(x):\n    {line}\n        return x\n    return x\n"
    assert [d.code for d in lint_source(src, select=["JAX105"])] == (["JAX105"] if found else [])


_PYTREES = """
    import dataclasses
    from typing import NamedTuple
    import jax
    from flax import struct

    class Pair(NamedTuple):
        x: jax.Array
        n: int

    @struct.dataclass
    class State:
        x: jax.Array
        n: int = struct.field(pytree_node=False)

    @jax.tree_util.register_pytree_node_class
    class Box:
        def __init__(self, x, n):
            self.x, self.n = x, n
        def tree_flatten(self):
            return (self.x,), (self.n,)
        @classmethod
        def tree_unflatten(cls, aux, children):
            return cls(*children, *aux)

    @dataclasses.dataclass
    class Plain:
        x: object
"""


@pytest.mark.parametrize("ann,attr,expected", [
    ("Pair", "x", (Confidence.CERTAIN, Severity.ERROR)),
    ("State", "x", (Confidence.CERTAIN, Severity.ERROR)),
    ("Box", "x", (Confidence.CERTAIN, Severity.ERROR)),
    ("State", "n", None),                                   # declared static
    ("Box", "n", None),                                     # aux data of the flatten
    ("Plain", "x", None),                                   # not a pytree: a declared non-array type
    ("State", "total", (Confidence.LIKELY, Severity.WARNING)),  # an attribute it does not declare
])
@pytest.mark.parametrize("how", ["jit", "helper"])
def test_a_field_of_a_parameter_annotated_with_a_pytree_class_is_what_the_class_declares(ann, attr, expected, how):
    if how == "jit":
        body = f"@jax.jit\ndef f(s: {ann}):\n    if s.{attr} > 0:\n        return 1\n    return 0\n"
    else:
        body = (f"def g(s: {ann}):\n    if s.{attr} > 0:\n        return 1\n    return 0\n\n"
                f"@jax.jit\ndef f(s):\n    return g(s)\n")
    src = textwrap.dedent(_PYTREES).lstrip("\n") + "\n\n" + body
    found = [(d.confidence, d.severity) for d in lint_source(src, select=["JAX105"])]
    if expected is None or (how == "helper" and expected[0] is Confidence.LIKELY):
        assert found == []  # (a helper's parameter fields are at most possible)
    elif how == "helper":  # traced only through its caller: at most likely (taint.through_callers)
        assert found == [(Confidence.LIKELY, Severity.WARNING)]
    else:
        assert found == [expected]


_HELPERS = """
    import jax
    import jax.numpy as jnp

    def double(v):
        return v * 2

    def scaled(v, n):
        return n * 2

    def first_minus_one(v):
        y = v[0] - 1
        return y

    def total(v):
        return v.sum() + 1

    half = lambda v: v / 2

    def rows(v):
        return v.shape[0]

    def pick(v, flag):
        if flag:
            return v
        return None
"""


@pytest.mark.parametrize("call,expected", [
    ("double(x)", Confidence.CERTAIN),
    ("first_minus_one(x)", Confidence.CERTAIN),
    ("total(x)", Confidence.CERTAIN),
    ("half(x)", Confidence.CERTAIN),   # a lambda bound to a name
    ("double(v=x)", Confidence.CERTAIN),
    ("scaled(x, 3)", None),           # computed from the static argument only
    ("double(3)", None),
    ("rows(x)", None),                # a shape: static (its summary)
    ("pick(x, True)", Confidence.POSSIBLE),  # None on one path: unknown, possible at most
])
def test_a_helper_computing_on_its_parameters_is_as_traced_as_their_arguments(call, expected):
    src = textwrap.dedent(_HELPERS).lstrip("\n") + f"\n\n@jax.jit\ndef f(x):\n    if {call} > 0:\n        return x\n    return x\n"
    found = [d.confidence for d in lint_source(src, select=["JAX105"], confidence="possible")]
    assert found == ([expected] if expected else [])


_BOXES = """
    import jax
    from typing import NamedTuple

    class Box:
        def __init__(self, v, scale=1.0):
            self.v = v
            self.twice = v * 2
            self.n = 3
            self.size = v.shape[0]

        @property
        def val(self):
            return self.v

        def get(self):
            return self.v

    class Pt(NamedTuple):
        x: object
        k: int

    class Holder:
        pass
"""


@pytest.mark.parametrize("setup,expr,found", [
    ("b = Box(x)", "b.v", True),
    ("b = Box(x)", "b.twice", True),
    ("b = Box(x)", "b.val", True),       # a property returning the field
    ("b = Box(x)", "b.get()", True),     # a method returning it
    ("b = Box(v=x)", "b.v", True),
    ("b = Box(x)", "b.n", False),        # a constant
    ("b = Box(x)", "b.size", False),     # a shape
    ("b = Box(3)", "b.v", False),        # made from a Python value
    ("p = Pt(x, 2)", "p.x", True),
    ("p = Pt(x, 2)", "p.k", False),
    ("h = Holder()\n    h.w = x + 1", "h.w", True),    # stored after it is made
    ("h = Holder()\n    h.w = 4", "h.w", False),
    ("self.v = x", "self.v", True),      # stored on self in traced code, read back
    ("self.n = x.shape[0]", "self.n", False),
])
def test_a_field_of_an_instance_made_in_traced_code_is_what_was_stored(setup, expr, found):
    """A traced value stored in a field of an instance made in traced code (by its
    constructor, a NamedTuple's fields, or an attribute store) and read back directly,
    through a property or through a method is traced; a constant or a shape stored there
    is not."""
    body = f"    def f(self, x):\n        {setup.replace(chr(10) + '    ', chr(10) + '        ')}\n" \
           f"        if {expr} > 0:\n            return x\n        return x\n"
    src = textwrap.dedent(_BOXES).lstrip("\n") + "\n\nclass Runner:\n    @jax.jit\n" + body
    codes = [(d.code, d.confidence) for d in lint_source(src, select=["JAX105"], confidence="possible")]
    assert codes == ([("JAX105", Confidence.CERTAIN)] if found else [])


_LOSS = """
    import time
    import jax
    import jax.numpy as jnp
    import numpy as np

    STORE = []

    def penalty(w):
        return np.sum(np.power(w, 2))

    def loss(w, x):
        if w.sum() > 0:            # works on JVP tracers: concrete primal
            w = w * 2
        for i in range(1000):      # nothing is compiled: no unrolling
            w = w + i
        t = time.time()            # runs on every call
        STORE.append(w)            # leaks a JVP tracer
        return jnp.mean(w * x) + np.mean(w) + penalty(w)
"""


@pytest.mark.parametrize("how", [
    "def main(w, x):\n    return jax.value_and_grad(loss)(w, x)\n",
    "grad_loss = jax.grad(loss)\n",
    "def main(w, x):\n    g = jax.jacrev(loss)\n    return g(w, x)\n",
])
def test_a_function_differentiated_outside_any_trace_runs_on_jvp_tracers(how):
    """``jax.grad(loss)`` applied outside jit traces ``loss`` with JVP tracers: numpy on
    them fails and storing them leaks (JAX104, JAX107, also in the helper it calls), while
    Python control flow, loops and clocks are fine there (nothing is staged or compiled)."""
    src = textwrap.dedent(_LOSS).lstrip("\n") + "\n\n" + how
    found = sorted({(d.code, d.start.line) for d in lint_source(src, confidence="possible")})
    assert found == [("JAX104", 9), ("JAX104", 18), ("JAX107", 17)]
    m = model_of(src)
    loss = next(f for f in m.functions if f.name == "loss")
    assert loss.traced and loss.traced_params == {"w"}  # `x` is passed through as given (argnums=0)
    assert loss not in m.traced_functions() and loss in m.traced_functions(differentiated=True)


def test_a_differentiated_function_under_jit_is_staged():
    src = textwrap.dedent(_LOSS).lstrip("\n") + "\n\nstep = jax.jit(jax.grad(loss))\n"
    codes = {d.code for d in lint_source(src, confidence="possible")}
    assert {"JAX104", "JAX105", "JAX107"} <= codes


@pytest.mark.parametrize("method,found", [
    ("return self.x * 2", True),        # a data field
    ("return self.x[0] - self.n", True),
    ("return self.n + 1", False),       # a declared-static field
    ("return self.x.shape[0]", False),  # a shape
    ("return helper(self.x)", None),    # not arithmetic: unknown, possible at most
])
def test_a_method_of_an_annotated_pytree_parameter_computing_on_its_fields(method, found):
    src = textwrap.dedent(_PYTREES).lstrip("\n").replace(
        "    @struct.dataclass\n    class State:\n        x: jax.Array\n        n: int = struct.field(pytree_node=False)\n",
        "").replace("@struct.dataclass\nclass State:\n    x: jax.Array\n    n: int = struct.field(pytree_node=False)\n",
                    "@struct.dataclass\nclass State:\n    x: jax.Array\n    n: int = struct.field(pytree_node=False)\n\n"
                    f"    def m(self):\n        {method}\n")
    src += "\n\ndef helper(v):\n    return v.item()\n\n@jax.jit\ndef f(s: State):\n    if s.m() > 0:\n        return 1\n    return 0\n"
    codes = [d.confidence for d in lint_source(src, select=["JAX105"], confidence="possible")]
    if found is None:
        assert codes in ([], [Confidence.POSSIBLE])
    else:
        assert codes == ([Confidence.CERTAIN] if found else [])


# ------------------------------------------------------------- static values (consts)
def _value_of_last(src: str):
    """The static value of the expression `probe(...)` is called with in `src`."""
    from jaxlint.static.consts import static_value
    model = model_of(src)
    call = next(n for n in ast.walk(model.tree) if isinstance(n, ast.Call)
                and isinstance(n.func, ast.Name) and n.func.id == "probe")
    return static_value(model, call.args[0])


@pytest.mark.parametrize("src,value", [
    ("probe(1000)", 1000),
    ("probe(-3)", -3),
    ("probe('ab' + 'c')", "abc"),
    ("probe(None)", None),
    ("STEPS = 1000\nprobe(STEPS)", 1000),
    ("STEPS = 1000\ndef f():\n    n = STEPS\n    probe(n)", 1000),
    ("def f(n):\n    n, m = 1000, 2\n    probe(n)", 1000),
    ("STEPS = 10\nprobe(STEPS * 2 ** 3 + 1 - 1)", 80),
    ("STEPS = 1000\nprobe(STEPS // 3 % 7)", 333 % 7),
    ("probe(7 / 2)", 3.5),
    ("SIZES = (1, (2, 3))\nprobe(SIZES)", (1, (2, 3))),
    ("SIZES = [4, 5]\nprobe(SIZES[-1])", 5),
    ("CFG = {'steps': 1000, 'w': object()}\nprobe(CFG['steps'])", 1000),
    ("CFG = {'a': {'b': 12}}\nprobe(CFG['a']['b'])", 12),
    ("probe(len((1, 2, 3)))", 3),
    ("N = 1000\nprobe(len(range(1, N, 3)))", 333),
    ("probe(len(range(10, 0, -3)))", 4),
    ("L = [0] \nprobe(len(L))", 1),
    ("probe(int(1e6))", 1000000),
    ("probe(max(3, 1000))", 1000),
    ("from typing import NamedTuple\nclass C(NamedTuple):\n    steps: int\n    k: int = 4\n"
     "CONFIG = C(steps=1000)\nprobe(CONFIG.steps)", 1000),
    ("from typing import NamedTuple\nclass C(NamedTuple):\n    steps: int\n    k: int = 4\n"
     "CONFIG = C(1000)\nprobe(CONFIG.k)", 4),
    ("import dataclasses\n@dataclasses.dataclass\nclass C:\n    lr: float\n    steps: int = 8\n"
     "CONFIG = C(0.1, 1000)\nprobe(CONFIG.steps)", 1000),
    ("STEPS = 1000\ndef n_steps():\n    return STEPS\nprobe(n_steps())", 1000),
    ("class C:\n    def __init__(self, steps, k=4):\n        self.steps = steps\n        self.k = k\n"
     "CONFIG = C(1000)\nprobe(CONFIG.steps)", 1000),
    ("class C:\n    def __init__(self, steps, k=4):\n        self.steps = steps\n        self.k = k\n"
     "CONFIG = C(steps=1000)\nprobe(CONFIG.k)", 4),
    ("class C:\n    def __init__(self):\n        self.steps = 10 ** 3\nCONFIG = C()\nprobe(CONFIG.steps)", 1000),
    ("class Config:\n    steps = 1000\n    lr: float = 0.1\nprobe(Config.steps)", 1000),
    ("class Config:\n    steps = 1000\n    lr: float = 0.1\ndef f():\n    probe(Config.lr)", 0.1),
])
def test_the_static_value_of_an_expression_is_computed(src, value):
    got = _value_of_last(src)
    assert got == value and type(got) is type(value)


@pytest.mark.parametrize("src", [
    "def f(n):\n    probe(n)",                                        # a parameter
    "STEPS = 1\nSTEPS = 1000\nprobe(STEPS)",                          # rebound
    "STEPS = 1\ndef f():\n    global STEPS\n    STEPS += 1\nprobe(STEPS)",
    "def f(n, c):\n    if c:\n        n = 3\n    probe(n)",          # only on one path
    "def f(x):\n    n = x.shape[0]\n    probe(n)",                     # a shape of a parameter
    "CFG = {'steps': 1000}\nprobe(CFG['other'])",                     # a key not there
    "CFG = {**BASE, 'steps': 1000}\nprobe(CFG['steps'])",             # a ** entry
    "from typing import NamedTuple\nclass C(NamedTuple):\n    steps: int\n"
    "    def __new__(cls, steps):\n        return super().__new__(cls, steps * 2)\n"
    "CONFIG = C(1000)\nprobe(CONFIG.steps)",                          # a constructor of its own
    "class C:\n    def __init__(self, steps):\n        self.steps = steps\nCONFIG = C(1000)\nCONFIG.steps = 3\n"
    "probe(CONFIG.steps)",                                            # stored to again
    "class C:\n    def __init__(self, steps):\n        steps = steps * 2\n        self.steps = steps\n"
    "CONFIG = C(1000)\nprobe(CONFIG.steps)",                          # the parameter rebound
    "class C:\n    def __init__(self, steps):\n        self.steps = steps\ndef f():\n    c = C(1000)\n"
    "    probe(c.steps)",                                             # not a module-level instance
    "def n_steps(k):\n    return 1000\nprobe(n_steps(3))",                # a helper taking arguments
    "def n_steps():\n    if X:\n        return 1\n    return 1000\nprobe(n_steps())",  # two values
    "import functools\n@functools.cache\ndef n_steps():\n    return 1000\nprobe(n_steps())",
    "probe(2 ** 10000)",                                              # too large to build
    "probe(1 // 0)",
    "class Config:\n    steps = 3\nConfig.steps = 1000\nprobe(Config.steps)",  # stored to elsewhere
    "class Config:\n    steps = 3\n    def grow(self):\n        self.steps = 1000\nprobe(Config.steps)",
    "class Config:\n    steps = 3\n    steps = 4\nprobe(Config.steps)",
    "class Config:\n    steps = 3\ndef f(Config):\n    probe(Config.steps)",  # shadowed
    "probe(len(range(0, 10, 0)))",
    "def f(n):\n    probe(len(range(n)))",
    "def f(x):\n    probe(x + 1)",
    "def f(x, c):\n    n = 3\n    if c:\n        n = 1000\n    probe(n)",  # two values reach the read
    "def f(x):\n    n = 3\n    for i in x:\n        probe(n)\n        n = 1000",  # the next iteration's
    "def f(x):\n    n = 3\n    def g():\n        probe(n)\n    n = 4",  # a closure of a name rebound
    "def f():\n    probe(f())",                                       # recursion
])
def test_a_static_value_not_computable_is_unknown(src):
    from jaxlint.static.consts import UNKNOWN
    assert _value_of_last(src) is UNKNOWN


_POLICIES = """
from functools import partial
import jax

STEPS = 4

@partial(jax.jit, static_argnums=(1,))
def f(x, n):
    k = 3
    probe(k * 2, STEPS, x.shape[0] + 1, {"a": 1}, x + 1, n, len(x))
"""


def test_one_evaluator_answers_each_question_by_its_policy():
    """consts.evaluate is the one evaluator; static_value, is_static and static_source
    are its policies VALUE, TRACE_TIME and JIT_ARG, which differ where their questions
    do: a module constant has a value but is not known at trace time under TRACE_TIME
    (it reads the traced function's own names), a dict display has a value but
    TRACE_TIME does not look inside one, a shape is known at trace time with no value."""
    from jaxlint.static.consts import (JIT_ARG, KNOWN, TRACE_TIME, UNKNOWN, VALUE, Ask, Known, evaluate,
                                       is_static, static_source, static_value)
    from jaxlint.static.taint import taint_of
    model = model_of(_POLICIES)
    fn = next(f for f in model.functions if f.name == "f")
    taint = taint_of(model, fn)
    call = next(n for n in ast.walk(model.tree) if isinstance(n, ast.Call)
                and isinstance(n.func, ast.Name) and n.func.id == "probe")
    doubled, steps, shape, display, traced, n, length = call.args
    values = [static_value(model, a) for a in call.args]
    assert values[:2] == [6, 4] and isinstance(values[3], dict) and set(values[3]) == {"a"}
    assert values[2] is UNKNOWN and values[4] is UNKNOWN and values[6] is UNKNOWN
    assert [is_static(taint, a) for a in call.args] == [True, False, True, False, False, True, True]
    assert [evaluate(Ask(model, TRACE_TIME, fn, taint), a) for a in (doubled, shape)] == [KNOWN, KNOWN]
    assert evaluate(Ask(model, VALUE), doubled) == static_value(model, doubled) == 6
    assert static_source(model, fn, n) == "n" and static_source(model, fn, steps) is None
    found = evaluate(Ask(model, JIT_ARG, fn), n)
    assert isinstance(found, Known) and found.source == "n"


_JITTED_HELPER = """
from functools import partial
import jax
import jax.numpy as jnp

{decorator}
def plus_one(i):
    return i + 1

@partial(jax.jit, static_argnums=(0,))
def grid(k):
    return jnp.arange(plus_one(k))

def main():
    return grid(5)
"""


@pytest.mark.parametrize("decorator,fails", [
    ("@partial(jax.jit, static_argnums=(0,))", True),   # staged out: a tracer, even of a static int
    ("@jax.jit", True),
    ("", False),                                         # plain Python: `k + 1` is an int
])
def test_a_jitted_function_called_in_traced_code_returns_a_tracer(decorator, fails):
    """Calling a ``jax.jit`` function inside a trace stages it out as one call: what it
    returns is a tracer of the enclosing trace whatever it is given, so a shape made from
    it is data-dependent (JAX111); the same helper undecorated returns a Python int.
    Checked with real jax."""
    import jax

    src = _JITTED_HELPER.format(decorator=decorator)
    found = {d.code for d in lint_source(src, select=["JAX111"])}
    assert found == ({"JAX111"} if fails else set())
    ns: dict = {}
    exec(compile(textwrap.dedent(src), "m.py", "exec"), ns)
    if fails:
        with pytest.raises(jax.errors.ConcretizationTypeError):
            ns["main"]()
    else:
        assert ns["main"]().shape == (6,)


_CHECKPOINTED = """
from functools import partial
import jax
import jax.numpy as jnp

@jax.remat
def rectify(x):
    if x > 0:
        return x
    return jnp.sin(x)

@partial(jax.checkpoint, static_argnums=(1,))
def scaled(x, flag):
    if flag:
        return x * 2
    return x

@partial(jax.checkpoint, static_argnums=(1,))
def above(x, floor):
    if x > floor:
        return x
    return floor
"""


def test_checkpoint_and_remat_as_decorators_trace_the_function():
    """``@jax.remat`` / ``@partial(jax.checkpoint, static_argnums=...)`` trace the
    function on every call, outside any jit: Python control flow on a traced parameter
    fails there (JAX105), on a ``static_argnums`` one it is fine. Checked with real jax."""
    import jax

    src = textwrap.dedent(_CHECKPOINTED)
    found = sorted((d.code, d.start.line) for d in lint_source(src, select=["JAX105"]))
    assert found == [("JAX105", 7), ("JAX105", 19)]
    ns: dict = {}
    exec(compile(src, "m.py", "exec"), ns)
    with pytest.raises(jax.errors.TracerBoolConversionError):
        ns["rectify"](3.0)
    assert float(ns["scaled"](1.0, True)) == 2.0
    with pytest.raises(jax.errors.TracerBoolConversionError):
        ns["above"](3.0, 0.0)


def test_an_annotated_module_parameter_rebound_by_a_tree_map_keeps_its_static_fields():
    # found in review on diffrax 0.7.2 (diffeqsolve's `saveat`): a tree_map over a
    # static argument was taken for a jax.numpy call, whose result is staged out
    src = """
        import equinox as eqx
        import jax.tree_util as jtu


        class SaveAt(eqx.Module):
            dense: bool = False


        def _fix(s):
            return s


        @eqx.filter_jit
        def solve(y0, saveat: SaveAt):
            saveat = jtu.tree_map(_fix, saveat)
            if saveat.dense:
                return y0
            return y0 + 1
    """
    assert not [d for d in lint_source(src, select=["JAX105"]) if d.code == "JAX105"]


# ---------------------------------------------------------------------- one argument held twice
DONATE = """
    from functools import partial
    import jax
    import jax.numpy as jnp

    def init(y):
        {body}

    @partial(jax.jit, donate_argnums=(0,))
    def step(state):
        return {{"y": state["y"] + 1.0, "resid": state["resid"] * 0.5}}

    def run(y):
        state = init(y)
        return step(state)  # <-
    """


@pytest.mark.parametrize("body,counts,found", [
    ('return {"y": y, "resid": y}', {"y": 2}, [("JAX113", 14)]),
    ('pair = (y, y)\n        return {"y": pair[0], "resid": y}', {"y": 1}, []),  # an index is not followed
    ('return [y, {"r": y}][1] if False else {"y": y, "resid": y}', {}, []),   # an expression: not held
    ('return {"y": y, "resid": y * 1.0}', {"y": 1}, []),
    ('if y is None:\n            return {"y": y, "resid": y}\n        return {"y": y, "resid": jnp.ones(3)}',
     {"y": 2}, [("JAX113", 16)]),                                            # the most over the returns
])
def test_a_helper_result_holding_one_argument_twice(body, counts, found):
    src = textwrap.dedent(DONATE.format(body=body))
    m = model_of(src)
    init = next(f for f in m.functions if f.name == "init")
    assert Summaries.of(m).aliased_counts(init) == counts
    assert [(d.code, d.start.line) for d in lint_source(src, select=["JAX113"])] == found


@pytest.mark.parametrize("body,fails", [('return {"y": y, "resid": y}', True),
                                        ('return {"y": y, "resid": y * 1.0}', False)])
def test_one_argument_held_twice_under_real_jax(tmp_path, body, fails):
    """The truth of the JAX113 cells: jax refuses to donate one buffer twice."""
    code = textwrap.dedent(DONATE.format(body=body)) + "\nprint(run(jnp.arange(4.0)))\n"
    (tmp_path / "p.py").write_text(code)
    r = subprocess.run([sys.executable, str(tmp_path / "p.py")], capture_output=True, text=True,
                       env={"JAX_PLATFORMS": "cpu", "PATH": "/usr/bin:/bin"})
    assert (r.returncode != 0 and "donate the same buffer twice" in r.stderr) == fails, r.stderr[-2000:]


# ---------------------------------------------------------------------- a leaf named like an array attribute
SIZE_FIELD = """
    from typing import NamedTuple
    import jax
    import jax.numpy as jnp
    from flax import struct

    class Cell(NamedTuple):
        size: jax.Array
        data: jax.Array

    @struct.dataclass
    class Box:
        shape: jax.Array
        n: int = struct.field(pytree_node=False)

    @jax.jit
    def grow(c{ann}, b: Box):
        if {cond}:
            return c.data * 2
        return c.data
    """


@pytest.mark.parametrize("ann,cond,found", [
    (": Cell", "c.size > 0", [("JAX105", 17)]),        # a leaf called `size`: a tracer
    (": Cell", "b.shape[0] > 0", [("JAX105", 17)]),     # a flax struct leaf called `shape`
    (": Cell", "c.data.size > 0", []),                 # the array's size: static
    (": Cell", "b.n > 0", []),                         # a declared static field
    ("", "c.size > 0", []),                            # unannotated: `size` of an array, maybe
])
def test_a_leaf_named_size_or_shape_is_traced(ann, cond, found):
    src = SIZE_FIELD.format(ann=ann, cond=cond)
    assert [(d.code, d.start.line) for d in lint_source(src, select=["JAX105"])] == found


def test_a_leaf_named_size_under_real_jax(tmp_path):
    code = textwrap.dedent(SIZE_FIELD.format(ann=": Cell", cond="c.size > 0")) + textwrap.dedent("""
        try:
            grow(Cell(jnp.ones(()), jnp.ones(3)), Box(jnp.ones(2), 1))
        except jax.errors.TracerBoolConversionError:
            print("raises")
        """)
    (tmp_path / "p.py").write_text(code)
    r = subprocess.run([sys.executable, str(tmp_path / "p.py")], capture_output=True, text=True,
                       env={"JAX_PLATFORMS": "cpu", "PATH": "/usr/bin:/bin"})
    assert r.stdout.strip() == "raises", r.stderr[-2000:]


# A class with its own tree_flatten decides its leaves there, not by its annotations:
# jax's BCOO annotates `shape` and flattens it into the aux data (a false JAX105 on
# jax 0.10.2's bcoo_squeeze, found in review on the speed corpus).
FLATTENED = """
    from typing import Sequence
    import jax
    import jax.numpy as jnp

    @jax.tree_util.register_pytree_node_class
    class Sparse:
        data: jax.Array
        shape: Sequence[int]

        def __init__(self, data, *, shape):
            self.data, self.shape = data, tuple(shape)

        def tree_flatten(self):
            return {children}, {aux}

        @classmethod
        def tree_unflatten(cls, aux, children):
            return cls(children[0], shape=aux["shape"] if aux else children[1])

    def squeeze(arr: Sparse):
        if arr.shape[0] != 1:
            raise ValueError("not 1")
        return arr.data

    @jax.jit
    def gather(arr: Sparse):
        return squeeze(arr).sum()

    try:
        print(gather(Sparse(jnp.ones(3), shape=(1, 3))))
    except jax.errors.TracerBoolConversionError:
        print("raises")
    """


@pytest.mark.parametrize("children,aux,truth,found", [
    ("(self.data,)", '{"shape": self.shape}', "3.0", []),                      # aux: static
    ("(self.data, jnp.asarray(self.shape))", "None", "raises", [("JAX105", 21)]),  # a leaf called shape
])
def test_a_flattened_class_declares_its_leaves_in_tree_flatten(children, aux, truth, found):
    src = FLATTENED.format(children=children, aux=aux)
    ns: dict = {}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(textwrap.dedent(src), "flattened.py", "exec"), ns)  # noqa: S102 - our own program
    assert out.getvalue().strip() == truth
    assert [(d.code, d.start.line) for d in lint_source(src, select=["JAX105"], confidence="possible")] == found
