"""Real jax behind blind46's false-error fixes (issue 36): the VALID fixtures run under
jit without error and the INVALID ones raise what the rule says."""
import jax
import jax.numpy as jnp
import pytest

from rule_fixtures import load_module


def _load(code: str, name: str):
    return load_module(code, name, "_blind46")


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
    assert float(valid.checked_count(jnp.int32(3), jnp.float32(2.0))) == 2.0


@pytest.mark.parametrize("name", ["wrong_handler", "in_handler", "bool_only"])
def test_conversions_the_handler_does_not_catch_fail(name):
    invalid = _load("JAX105", "invalid_uncaught_conversion")
    with pytest.raises(jax.errors.ConcretizationTypeError):
        getattr(invalid, name)(jnp.float32(2.0))


def test_operator_index_raises_what_a_concretization_handler_does_not_catch():
    invalid = _load("JAX105", "invalid_uncaught_conversion")
    with pytest.raises(jax.errors.TracerIntegerConversionError):
        invalid.index_as_int(jnp.int32(2))
    assert not issubclass(jax.errors.TracerIntegerConversionError, jax.errors.ConcretizationTypeError)


def _cubic(x):
    return x ** 3 - 2.0


def test_factory_settings_stay_python_values_in_both_callers():
    valid = _load("JAX105", "valid_factory_settings")
    xs = jnp.array([1.2, 1.3])
    out = valid.solve_many(_cubic, xs, jnp.full(2, 0.1), tol=1.0, n_steps=3, damped=True)
    assert out.shape == (2,) and bool(jnp.all(jnp.isfinite(out)))
    compiled = valid.Compiled(_cubic, tol=1.0, n_steps=2, damped=False)
    x = compiled.run({"x0": jnp.float32(1.25), "scale": jnp.float32(0.1), "unused": jnp.zeros(3)})
    assert bool(jnp.isfinite(x))


def test_a_setting_passed_with_the_traced_inputs_fails():
    invalid = _load("JAX105", "invalid_factory_settings")
    compiled = invalid.Compiled(_cubic, n_steps=2, damped=False)
    with pytest.raises(jax.errors.ConcretizationTypeError):
        compiled.run({"x0": jnp.float32(1.25), "scale": jnp.float32(0.1), "tol": jnp.float32(1.0)})
    # the factory's own path still takes the tolerance as a Python value
    out = invalid.solve_many(_cubic, jnp.array([1.2]), jnp.array([0.1]), tol=1.0, n_steps=1)
    assert out.shape == (1,)
