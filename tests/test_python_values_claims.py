"""Real jax (and equinox) behind the model's Python values (issue 36, fix50a): the VALID
fixtures run under their transforms without error, the INVALID ones raise what the rule
says."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from rule_fixtures import load_module


def _load(code: str, name: str):
    return load_module(code, name, "_pyvalues")


def test_filtered_transforms_keep_a_python_flag_static():
    valid = _load("JAX105", "valid_filter_static_flag")
    quality, permeability = jnp.ones((2, 3)), jnp.full((2, 3), 2.0)
    mapped, d_quality, d_permeability = valid.run(quality, permeability, weighted=True)
    assert mapped.tolist() == [6.0, 6.0]  # weighted (x3) and scaled (/3)
    assert d_quality.shape == (3,) and d_permeability.shape == (2, 3)
    assert float(valid.connectivity_vmap(quality, permeability, False, False)[0]) == 6.0


def test_a_flag_handed_on_from_jax_jit_is_a_tracer():
    invalid = _load("JAX105", "invalid_filter_static_flag")
    with pytest.raises(jax.errors.TracerBoolConversionError):
        invalid.d_permeability(jnp.ones(3), jnp.ones(3), True)


def test_dtypes_compare_as_python_values_under_jit():
    valid = _load("JAX105", "valid_dtype_compare")
    out = valid.bucket(jnp.ones(3, dtype=jnp.float32), 3.0)
    assert int(out) == 2 and out.dtype == jnp.float32  # float32 params: two boundaries below 3.0
    assert isinstance(valid.real_dtype(jnp.ones(2)) == jnp.float64, (bool, np.bool_))


def test_a_value_compared_with_a_scalar_type_is_traced():
    invalid = _load("JAX105", "invalid_dtype_compare")
    with pytest.raises(jax.errors.TracerBoolConversionError):
        invalid.normalise(jnp.ones(3))


def test_a_property_reading_python_values_is_a_python_bool_under_jit():
    valid = _load("JAX105", "valid_python_property")
    flip = jnp.array([[0.0, 1.0], [1.0, 0.0]])
    gates = [valid.Gate(flip, "theta"), valid.Fixed(flip, "theta"), valid.Gate(jnp.eye(2), 0.5)]
    out = valid.apply(jnp.array([1.0, 0.0]), gates, {"theta": 3.0})
    assert out.tolist() == [3.0, 0.0]  # flipped twice, scaled by theta once (the first gate only)


def test_a_property_computed_from_leaves_is_traced():
    invalid = _load("JAX105", "invalid_python_property")
    with pytest.raises(jax.errors.TracerBoolConversionError):
        invalid.apply(jnp.array([1.0, 0.0]), [invalid.Gate(jnp.eye(2), None)])


def test_a_check_on_python_arguments_in_init_runs_under_jit():
    valid = _load("JAX105", "valid_traced_constructor")
    assert int(valid.step(jnp.int32(0), jnp.int32(7))) == 3


def test_a_check_on_an_array_made_in_init_fails_under_jit():
    invalid = _load("JAX105", "invalid_traced_constructor")
    assert invalid.Spec(4).num_values.tolist() == 4  # eagerly the check passes
    with pytest.raises(jax.errors.TracerBoolConversionError):
        invalid.step(jnp.int32(0), jnp.int32(2))
    with pytest.raises(jax.errors.TracerBoolConversionError):
        invalid.clip(jnp.ones(3))


def test_an_array_indexed_by_a_tracer_runs():
    valid = _load("JAX105", "valid_list_traced_index")
    assert valid.apply_all(jnp.ones(2), [1.0, 2.0]).tolist() == [2.0, 2.0]
    assert valid.pick(jnp.ones(2), 1).tolist() == [6.0, 6.0]


def test_a_list_or_tuple_indexed_by_a_tracer_fails():
    invalid = _load("JAX105", "invalid_list_traced_index")
    with pytest.raises(jax.errors.TracerIntegerConversionError):
        invalid.apply_all(jnp.ones(2), [1.0, 2.0])
    with pytest.raises(jax.errors.TracerIntegerConversionError):
        invalid.pick(jnp.ones(2), 1)
