"""JAX108 static-arg-hazard: tests beyond the rule's VALID/INVALID examples (which
tests/test_rule_examples.py runs)."""
from __future__ import annotations

import pytest

from helpers import lines, lint_source
from jaxlint.diagnostic import Severity
from static_rule_helpers import found, outcomes_under_jax


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
    # shown at the decorator that makes `self` static (recall48: round 11's reservoirpy-235)
    assert [line for line, _ in out] == [8] and "line 14" in out[0][1]


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
        """) == [8]  # the decorator's line


def test_jax108_non_literal_static_spec_is_not_guessed():
    assert lines("JAX108", """
        import functools
        import jax
        STATIC = ("items",)

        @functools.partial(jax.jit, static_argnames=STATIC)
        def f(x, items: list):
            return x
        """) == []


# ------------------------------------------- static fields and static objects (scope40)
# Each case: a program and an expression that runs it. The rule flags the lines marked
# `# <-` and nothing else; real jax agrees (test_jax108_real_jax_agrees_with_the_cases):
# every flagged program raises, or (stale) returns the first call's result again. A static
# field holding an array fails on the second call with another instance (jit compares the
# metadata with its cached program's), so the programs call twice.
_HEAD = "import dataclasses\nfrom typing import Any\nimport jax\nimport jax.numpy as jnp\nimport numpy as np\n"
#: two instances of a class whose method is jitted with a static parameter, reached through
#: attributes of another jitted object (recall round 16: JAXtronomy); ``update`` is filled in
_FIT = """
import functools

class Basis:
    def __init__(self, kinds):
        self.kinds = kinds

    @functools.partial(jax.jit, static_argnums=(0, 2))
    def fill(self, values, start):
        return [values[start + k] for k, _ in enumerate(self.kinds)], start + len(self.kinds)

class Fit:
    def __init__(self, source, light):
        self.source = Basis(source)
        self.light = Basis(light)

    def __hash__(self):
        return id(self)

    @functools.partial(jax.jit, static_argnums=0)
    def update(self, values):{update}

def main():
    return Fit(["a", "b"], ["c"]).update(jnp.arange(4.0))
"""
FLAGGED = {
    "a traced index passed to a static parameter of a jitted method of an instance attribute": (_FIT.format(update="""
        src, at = self.source.fill(values, 0)
        light, _ = self.light.fill(values, at)  # <-
        return src, light"""), "main()"),
    "an array annotation on an equinox static field": ("""
        import equinox as eqx

        class Agent(eqx.Module):
            A: jax.Array = eqx.field(static=True)  # <-
            beliefs: jax.Array

        @eqx.filter_jit
        def step(agent, obs):
            return agent.A[obs] + agent.beliefs

        def main():
            return [step(Agent(A=jnp.eye(3), beliefs=jnp.zeros(3)), 1) for _ in range(2)]
        """, "main()"),
    "an array annotation on a flax struct static field": ("""
        from flax import struct

        @struct.dataclass
        class Model:
            c: np.ndarray = struct.field(pytree_node=False)  # <-

        @jax.jit
        def f(model):
            return 1.0

        def main():
            return f(Model(np.ones(10))), f(Model(np.ones(10)))
        """, "main()"),
    "an array annotation on a flax struct static field no call of the module fills": ("""
        from flax import struct

        @struct.dataclass
        class Model:
            c: list[jax.Array] = struct.field(pytree_node=False)  # <-

        @jax.jit
        def f(model):
            return 1.0

        def main(make=lambda: [np.ones(10)]):
            return [f(Model(make())) for _ in range(2)]
        """, "main()"),
    "an array given to a registered dataclass's static field": ("""
        @jax.tree_util.register_dataclass
        @dataclasses.dataclass
        class Table:
            x: jax.Array
            lookup: Any = dataclasses.field(metadata=dict(static=True))

        @jax.jit
        def f(t):
            return t.x.sum()

        def main():
            first = f(Table(jnp.ones(2), np.arange(3)))  # <-
            return first, f(Table(jnp.ones(2), (0, 1, 2)))
        """, "main()"),
    "an unsafe_hash dataclass holding an array, passed static": ("""
        from functools import partial

        @dataclasses.dataclass(unsafe_hash=True)
        class Offset:
            name: str
            shift: Any

        @partial(jax.jit, static_argnums=1)
        def moved(points, offset):
            return points + offset.shift

        def main():
            base = jnp.arange(3.0)
            return moved(base, Offset("o", base))  # <-
        """, "main()"),
    "a frozen dataclass holding an array, passed static by keyword": ("""
        from functools import partial

        @dataclasses.dataclass(frozen=True)
        class Weights:
            w: Any

        @partial(jax.jit, static_argnames="cfg")
        def f(x, cfg):
            return x * cfg.w

        def main():
            return f(1.0, cfg=Weights(w=jnp.ones(2)))  # <-
        """, "main()"),
    "an identity-hashed static object changed between calls": ("""
        class Holder:
            def __init__(self, data):
                self.data = data

        def doubled(h):
            return h.data * 2

        doubled_jit = jax.jit(doubled, static_argnums=0)

        def main():
            h = Holder(jnp.arange(4))
            first = doubled_jit(h)
            h.data = h.data + 1
            second = doubled_jit(h)  # <-
            return first, second
        """, "'stale' if bool((main()[0] == main()[1]).all()) else 'fresh'"),
    "a list given to a wrapper that passes it on as a static argument": ("""
        from functools import partial

        @partial(jax.jit, static_argnums=(0, 1, 4))
        def _grid(func, bounds, params, scale, ticks):
            xs = jnp.linspace(bounds[0], bounds[1], ticks)
            return func(xs, params) * scale

        def grid(func, bounds, params, ticks=11):
            return _grid(func, bounds, params, 1.0, ticks)  # <-

        def square(x, p):
            return x ** 2 * p

        def run(params):
            lims = [-1, 1]
            return grid(square, lims, params)
        """, "run(2.0)"),
}
QUIET = {
    "Python ints passed to a static parameter of a jitted method of an instance attribute": (_FIT.format(update="""
        n = len(self.source.kinds)
        return self.source.fill(values, 0)[0], self.light.fill(values, n)[0]"""), "main() and 'ok'"),
    "hashable static fields and array leaves": ("""
        import equinox as eqx
        from flax import struct

        class Agent(eqx.Module):
            sizes: tuple = eqx.field(static=True)
            A: jax.Array

        @struct.dataclass
        class Model:
            name: str = struct.field(pytree_node=False)
            w: jax.Array = None

        @jax.jit
        def f(agent, model):
            return agent.A.sum() * len(agent.sizes) + model.w.sum()

        def main():
            return [f(Agent(sizes=(1, 2), A=jnp.ones(2)), Model("m", jnp.ones(3))) for _ in range(2)]
        """, "main()"),
    "list and dict annotations on static fields, of Python values (jit compares them by ==)": ("""
        from flax import struct

        @struct.dataclass
        class Model:
            sizes: list = struct.field(pytree_node=False)
            names: dict[str, int] = struct.field(pytree_node=False)
            w: jax.Array = None

        @jax.jit
        def f(model):
            return model.w.sum() * len(model.sizes)

        def main():
            return [f(Model([64, 64], {"a": 1}, jnp.ones(3))) for _ in range(2)]
        """, "main()"),
    "an array annotation on a static field the module fills with Python values": ("""
        from flax import struct

        @struct.dataclass
        class Model:
            grid: jax.Array = struct.field(pytree_node=False)
            w: jax.Array = None

        @jax.jit
        def f(model):
            return model.w.sum() * len(model.grid)

        def main():
            return [f(Model((1.0, 2.0), jnp.ones(3))) for _ in range(2)]
        """, "main()"),
    "a frozen dataclass of numbers passed static": ("""
        from functools import partial

        @dataclasses.dataclass(frozen=True)
        class Cfg:
            scale: float
            depth: int

        @partial(jax.jit, static_argnames="cfg")
        def f(x, cfg):
            return x * cfg.scale * cfg.depth

        def main():
            return f(1.0, cfg=Cfg(2.0, 3))
        """, "main()"),
    "a tuple given to a wrapper that passes it on as a static argument": ("""
        from functools import partial

        @partial(jax.jit, static_argnums=(0, 1, 4))
        def _grid(func, bounds, params, scale, ticks):
            xs = jnp.linspace(bounds[0], bounds[1], ticks)
            return func(xs, params) * scale

        def grid(func, bounds, params, ticks=11):
            return _grid(func, bounds, params, 1.0, ticks)

        def square(x, p):
            return x ** 2 * p

        def run(params):
            return grid(square, (-1, 1), params)
        """, "run(2.0)"),
    "an identity-hashed static object that does not change": ("""
        class Holder:
            def __init__(self, data):
                self.data = data

        def doubled(h):
            return h.data * 2

        doubled_jit = jax.jit(doubled, static_argnums=0)

        def main():
            h = Holder(jnp.arange(4))
            first = doubled_jit(h)
            other = Holder(jnp.arange(4) + 1)
            return first, doubled_jit(other)
        """, "main()"),
}


def _source(src: str) -> str:
    import textwrap
    return _HEAD + textwrap.dedent(src).lstrip("\n")


@pytest.mark.parametrize("name", sorted(FLAGGED))
def test_jax108_flags_static_fields_and_static_objects(name):
    text = _source(FLAGGED[name][0])
    marked = [i for i, line in enumerate(text.splitlines(), 1) if line.rstrip().endswith("# <-")]
    assert lines("JAX108", text) == marked


@pytest.mark.parametrize("name", sorted(QUIET))
def test_jax108_quiet_on_hashable_static_fields_and_unchanged_objects(name):
    assert lines("JAX108", _source(QUIET[name][0])) == []


def test_jax108_real_jax_agrees_with_the_cases():
    cases = {name: (_source(src), call) for name, (src, call) in {**FLAGGED, **QUIET}.items()}
    got = outcomes_under_jax(cases)
    assert {n: got[n] for n in QUIET} == {n: "ok" for n in QUIET}
    assert {n: got[n] for n in FLAGGED} == {
        n: "stale" if "changed between calls" in n else got[n] for n in FLAGGED}
    assert all(got[n] in ("ValueError", "TypeError", "stale") for n in FLAGGED), got


def test_instance_called_reaches_its_jitted_call_really():
    """``self(...)`` in a method and ``obj(...)`` run the class's jitted ``__call__`` (recall
    round 18, wobble-jax-150c43f): a tracer reaching its static parameter raises under real jax
    (fixture ``invalid_instance_called``); the same calls with a Python value run
    (``valid_instance_called``)."""
    pytest.importorskip("jax")
    from rule_fixtures import load_module

    bad = load_module("JAX108", "invalid_instance_called")
    for run in (bad.main, bad.method):
        with pytest.raises(ValueError, match="Non-hashable static arguments"):
            run()
    assert float(load_module("JAX108", "valid_instance_called").main()) >= 0.0


def test_a_lax_option_made_in_traced_code_is_static_really():
    """``jax.lax.Precision(...)`` made inside a jitted function and given to another jit's
    static parameter is an enum, not a tracer (blind40's fjformer flash attention, a false
    error of the tracer-to-static claim): real jax runs it; that jaxlint is quiet on the
    fixture, tests/test_rule_examples.py checks."""
    pytest.importorskip("jax")
    from rule_fixtures import load_module

    assert float(load_module("JAX108", "valid_lax_option").main()) == 8.0


def test_a_plain_dict_in_a_static_field_runs_really():
    """jit compares a pytree's static metadata with ``==``: a dict of Python values given to
    a static field passes for two instances (blind40's tunix sampling state, where JAX108 said
    it raises), while an array there raises; the fixture is quiet (tests/test_rule_examples.py)."""
    pytest.importorskip("flax")
    from rule_fixtures import load_module

    assert float(load_module("JAX108", "valid_static_field_plain").main()) == 12.0


def test_a_dict_annotated_static_field_compiles_again_and_does_not_raise_really():
    """jit compares a pytree's static metadata by ``==`` (5d154e9): a field annotated ``dict``
    and filled per call with another dict of Python values compiles again for each, and raises
    nothing (recall round 17's cryojax-81bbf18a); the finding says so, not that it raises."""
    pytest.importorskip("equinox")
    src = """
        import equinox as eqx
        import jax
        import jax.numpy as jnp

        TRACES = []

        class Particle(eqx.Module):
            offset: jax.Array
            meta: dict = eqx.field(static=True)

        def read(i, table):
            return Particle(offset=jnp.asarray(table["offset"][i]), meta={k: v[i] for k, v in table.items()})

        @eqx.filter_jit
        def shift(p):
            TRACES.append(1)
            return p.offset + 1.0

        def main():
            table = {"offset": [0.0, 0.1, 0.2], "name": ["a", "b", "c"]}
            [shift(read(i, table)) for i in range(3)]
            return str(len(TRACES))
    """
    messages = [d.message for d in lint_source(src, select=["JAX108"])]
    assert len(messages) == 1 and "compiles again" in messages[0] and "raises ValueError (an array" not in messages[0]
    import textwrap
    assert outcomes_under_jax({"dict": (textwrap.dedent(src), "main()")}) == {"dict": "3"}
