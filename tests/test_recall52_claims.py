"""Real jax behind recall round 14's model gaps built as general capabilities (fix52a, issue 36):
the VALID fixtures run without error and the INVALID ones raise what the rule says (or, for
JAX114, draw the same numbers twice)."""
import jax
import jax.numpy as jnp
import pytest

from rule_fixtures import load_module


def _load(code: str, name: str):
    return load_module(code, name, "_recall52")


X = jnp.array([1.0, -2.0, 3.0])


@pytest.mark.parametrize("call", [
    lambda m: m.normalise(X),
    lambda m: m.flip_rows(jnp.stack([X, -X])),
    lambda m: m.centre(X),
])
def test_a_class_method_jitted_vmapped_or_called_from_traced_code_is_traced(call):
    with pytest.raises(jax.errors.TracerBoolConversionError):
        call(_load("JAX105", "invalid_class_method_traced"))


def test_class_methods_branching_on_python_values_or_run_eagerly_work():
    valid = _load("JAX105", "valid_class_method_traced")
    assert valid.normalise(X).tolist() == [2.0, -2.0, 2.0]
    assert valid.flip_eagerly(-X).tolist() == X.tolist()
    assert valid.weighted(X).tolist() == [3.0, -4.0, 3.0]


@pytest.mark.parametrize("call", [
    lambda m: m.step(X, X, jnp.array(12)),
    lambda m: m.decay_step(X, X, jnp.array(3)),
])
def test_a_flag_handed_to_a_cond_branch_by_partial_is_traced(call):
    with pytest.raises(jax.errors.TracerBoolConversionError):
        call(_load("JAX105", "invalid_partial_flag"))


def test_a_python_flag_handed_to_a_cond_branch_by_partial_works():
    valid = _load("JAX105", "valid_partial_flag")
    assert valid.step(X, X, jnp.array(2)).shape == (3,)
    assert jnp.allclose(valid.plain_step(X, X, jnp.array(1)), 0.9 * X)


def test_stored_jitted_methods_given_one_key_draw_the_same_numbers():
    key = jax.random.PRNGKey(0)
    out = _load("JAX114", "invalid_stored_transform_keys").Trainer().run(key, X)
    noise = jax.random.normal(key, X.shape)
    assert jnp.allclose(out, 1.1 * noise)  # the step's noise is the initial draw again


def test_stored_jitted_methods_given_their_own_keys_differ():
    key = jax.random.PRNGKey(0)
    sampler = _load("JAX114", "valid_stored_transform_keys").Sampler()
    init_key, _ = jax.random.split(key)
    assert not jnp.allclose(sampler.run(key, X), 1.1 * jax.random.normal(init_key, X.shape))
    folded = jax.random.normal(jax.random.fold_in(key, 0), X.shape)
    assert not jnp.allclose(sampler.run_folded(key, X), 1.1 * folded)
    assert jnp.allclose(sampler.run_scaled(key, X), 2.0 * jax.random.normal(key, X.shape))


@pytest.mark.parametrize("call", [
    lambda m: m.masked_sum(X, 1),
    lambda m: m.normalised(X),
])
def test_a_parameter_annotated_int_given_a_tracer_holds_a_tracer(call):
    with pytest.raises(jax.errors.TracerBoolConversionError):
        call(_load("JAX105", "invalid_annotated_scalar"))


def test_a_parameter_annotated_int_given_python_values_works():
    valid = _load("JAX105", "valid_annotated_scalar")
    assert valid.masked_sum(X) == 1.0
    assert valid.masked_from(X, 2) == 3.0
