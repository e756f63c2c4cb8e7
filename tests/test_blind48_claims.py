"""Real jax behind blind48's false-error fixes (issue 36): the VALID fixtures run under
jit without error and the INVALID ones raise what the rule says."""
import jax
import jax.numpy as jnp
import pytest

from rule_fixtures import load_module


def _load(code: str, name: str):
    return load_module(code, name, "_blind48")


def test_a_python_count_after_a_splat_stays_concrete():
    valid = _load("JAX105", "valid_after_splat")
    out = valid.step(jnp.ones(3), jnp.full(3, 4.0))
    assert out.tolist() == [0.5, 0.5, 0.5]  # n_shards == 2 took the Python branch


def test_a_traced_count_after_a_splat_fails():
    invalid = _load("JAX105", "invalid_after_splat")
    with pytest.raises(jax.errors.TracerBoolConversionError):
        invalid.step(jnp.ones(3), 2)


def test_a_static_keyword_through_a_splat_is_a_python_value():
    valid = _load("JAX105", "valid_static_splat_key")
    out = valid.smooth(jnp.arange(4.0), budget=float("inf"), passes=2)
    assert out.shape == (4,)
    assert valid.smooth(jnp.arange(4.0), budget=1.0, passes=0).tolist() == [0.0, 1.0, 1.0, 1.0]


def test_a_keyword_not_named_static_through_a_splat_fails():
    invalid = _load("JAX105", "invalid_static_splat_key")
    with pytest.raises(jax.errors.TracerBoolConversionError):
        invalid.shifted(jnp.ones(2), budget=2.0, offset=1.0)
