"""JAX108 static-arg-hazard: tests beyond the rule's VALID/INVALID examples (which
tests/test_rule_examples.py runs)."""
from __future__ import annotations

from helpers import lines, lint_source
from jaxlint.diagnostic import Severity
from static_rule_helpers import found


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
