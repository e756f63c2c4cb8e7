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


def test_the_list_a_starred_target_makes_has_a_static_truth():
    valid = _load("JAX105", "valid_starred_rest")
    one = jnp.ones(2)
    out = valid.combine([(one, one * 2.0, jnp.int32(1)), (one, one * 3.0)], jnp.array([10.0, 100.0]))
    assert out.tolist() == [[200.0, 200.0], [3.0, 3.0]]


def test_an_element_of_the_starred_list_is_traced():
    invalid = _load("JAX105", "invalid_starred_rest")
    with pytest.raises(jax.errors.TracerBoolConversionError):
        invalid.combine((jnp.ones(2), jnp.ones(2), jnp.int32(1)))
