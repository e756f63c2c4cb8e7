"""Real jax behind blind46's false-error fixes (issue 36): the VALID fixtures run under
jit without error and the INVALID ones raise what the rule says."""
import importlib.util
from pathlib import Path

import jax
import jax.numpy as jnp
import pytest

FIXTURES = Path(__file__).parent / "fixtures" / "rules"


def _load(code: str, name: str):
    path = FIXTURES / code / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"_blind46_{code}_{name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_at_scatter_max_min_are_no_reductions():
    valid = _load("JAX111", "valid_at_scatter")
    out = valid.column_scale(jnp.array([0, 1, 1]), jnp.array([1.0, -3.0, 2.0]))
    assert out.tolist() == [1.0, 3.0, 0.0]
    best = valid.first_index(jnp.array([0, 1, 1]), jnp.array([5.0, 3.0, 4.0]))
    assert best.tolist() == [5.0, 3.0, float("inf")]


def test_reduction_after_a_scatter_with_a_traced_axis_fails():
    invalid = _load("JAX111", "invalid_at_then_reduce")
    with pytest.raises(jax.errors.ConcretizationTypeError):
        invalid.scattered_max(jnp.ones((2, 3)), 0, 1)


def test_conversions_in_a_try_that_catches_what_jax_raises_trace():
    valid = _load("JAX105", "valid_caught_conversion")
    assert float(valid.growth(jnp.float32(0.5), jnp.float32(0.7))) == pytest.approx(0.35)
    assert float(valid.steps(jnp.int32(3), jnp.float32(2.0))) == 2.0  # the handlers ran


@pytest.mark.parametrize("name", ["wrong_handler", "in_handler", "bool_only"])
def test_conversions_the_handler_does_not_catch_fail(name):
    invalid = _load("JAX105", "invalid_uncaught_conversion")
    with pytest.raises(jax.errors.ConcretizationTypeError):
        getattr(invalid, name)(jnp.float32(2.0))
