"""Real jax behind round 11's misses built as general capabilities (recall48, issue 36): the
VALID fixtures run without error and the INVALID ones raise (or return) what the rule says."""
import jax
import jax.numpy as jnp
import pytest

from rule_fixtures import load_module


def _load(code: str, name: str):
    return load_module(code, name, "_recall48")


TABLE = jnp.array([[1.0, 2.0], [-1.0, 0.5], [3.0, jnp.nan]])


@pytest.mark.parametrize("call", [
    lambda m: m.rows_without_small(TABLE, 0.0),
    lambda m: m.finite_positive_rows(TABLE),
    lambda m: m.rows_with_positive(TABLE),
    lambda m: m.zero_nan_rows(TABLE),
])
def test_a_reduced_mask_indexing_a_traced_array_fails(call):
    with pytest.raises(jax.errors.NonConcreteBooleanIndexError):
        call(_load("JAX111", "invalid_reduced_mask"))


def test_a_reduced_mask_as_values_or_eagerly_keeps_working():
    valid = _load("JAX111", "valid_reduced_mask")
    zeroed, small = valid.zero_small_rows(TABLE, 0.0)
    assert zeroed.tolist()[0] == [1.0, 2.0] and zeroed.tolist()[1] == [0.0, 0.0] and int(small) == 1
    assert valid.eager_rows(TABLE, 0.0).shape == (2, 2)
    assert int(valid.count_rows(TABLE)) == 1


@pytest.mark.parametrize("call", [
    lambda m, x: m.tail_block(x, jnp.array([1, 2])),
    lambda m, x: m.tail_rows(x, jnp.array([1, 2])),
    lambda m, x: m.fill_missing(x, jnp.array([1, 2]), (2, -1)),  # the traced arm taken: it raises
])
def test_sizes_generated_from_traced_starts_fail(call):
    with pytest.raises((jax.errors.ConcretizationTypeError, TypeError)):
        call(_load("JAX111", "invalid_generated_sizes"), jnp.ones((4, 6)))


def test_sizes_generated_from_static_values_work():
    valid = _load("JAX111", "valid_generated_sizes")
    x = jnp.arange(24.0).reshape(4, 6)
    assert valid.half_block(x, jnp.array([1, 2])).shape == (2, 3)
    assert valid.fill_missing(x, jnp.array([1, 2]), (2, -1)).shape == (2, 6)
    invalid = _load("JAX111", "invalid_generated_sizes")
    assert invalid.fill_missing(x, jnp.array([1, 2]), (2, 3)).shape == (2, 3)  # the other arm: why it is likely
