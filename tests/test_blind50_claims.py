"""Real jax behind blind50's false-finding fixes (issue 36): the VALID fixtures run as the rule
now says they do, the INVALID ones fail as it says."""
import jax
import jax.numpy as jnp
import pytest

from rule_fixtures import load_module


def _load(code: str, name: str):
    return load_module(code, name, "_blind50")


def test_a_helper_behind_an_unused_vmap_runs_eagerly_with_python_ints():
    valid = _load("JAX111", "valid_unused_wrapper")
    data = jnp.arange(10.0)
    parts = valid.down_pass(data, [(3, 4), (2, 5)])
    assert [p.shape[0] for p in parts] == [3, 4, 2, 5]


@pytest.mark.parametrize("name", ["invalid_called_wrapper", "invalid_exported_wrapper"])
def test_the_wrapper_when_called_traces_the_slice_bounds(name):
    invalid = _load("JAX111", name)
    data = jnp.ones((2, 10))
    call = invalid.down_pass if hasattr(invalid, "down_pass") else invalid.batched_split_edges
    with pytest.raises((IndexError, jax.errors.ConcretizationTypeError)):
        call(data, jnp.array([3, 2]), jnp.array([4, 5]))


def test_kernel_code_writes_through_its_refs():
    valid = _load("JAX110", "valid_pallas_kernel_code")
    x = jnp.arange(8.0)
    assert bool(jnp.array_equal(valid.scale(x, 3.0), x * 3.0))  # a partial kernel, its helper's stores
    assert bool(jnp.array_equal(valid.shifted(x), x + 1))  # a run_scoped body's scratch ref


def test_the_helper_outside_a_kernel_gets_an_immutable_array():
    invalid = _load("JAX110", "invalid_helper_outside_kernel")
    with pytest.raises(TypeError, match="immutable"):
        invalid.fill(jnp.arange(8.0))


def test_a_comprehension_variable_does_not_leak_into_the_loop_around_it():
    valid = _load("JAX105", "valid_comprehension_scope")
    x = jnp.arange(5.0)
    # pairs (0, 0), (1, 0), (1, 1) of offsets (0, 2, 5): spans start at 0, 0, 2, 0, 2, 2; count ends at 2
    assert float(valid.span_sums((2, 3), x)) == 3 * float(x[2]) + 3 * float(x[0]) + 2


def test_the_loop_variable_over_a_traced_array_is_a_tracer():
    invalid = _load("JAX105", "invalid_loop_variable")
    with pytest.raises(jax.errors.TracerIntegerConversionError):
        invalid.lengths(jnp.arange(3))


def test_a_register_static_config_is_a_python_value_under_jit():
    valid = _load("JAX111", "valid_register_static")
    out = valid.embed(valid.Config(), valid.Sizes(), jnp.array([1, 2]))
    assert out.shape == (2, 4) and jax.tree_util.tree_leaves(valid.Config()) == []


def test_a_register_dataclass_config_is_traced_under_jit():
    invalid = _load("JAX111", "invalid_registered_leaves")
    with pytest.raises((TypeError, jax.errors.ConcretizationTypeError)):
        invalid.embed(invalid.Config(), jnp.array([1, 2]))
