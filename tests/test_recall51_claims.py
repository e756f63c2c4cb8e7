"""Real jax behind round 13's model gaps built as general capabilities (fix51a, issue 36): the
VALID fixtures run without error and the INVALID ones raise what the rule says."""
import jax
import jax.numpy as jnp
import pytest

from rule_fixtures import load_module


def _load(code: str, name: str):
    return load_module(code, name, "_recall51")


X = jnp.array([1.0, -2.0, 3.0])


@pytest.mark.parametrize("call", [
    lambda m: m.pick(X),
    lambda m: m.pick_rows(jnp.stack([X, X])),
    lambda m: m.Runner().run(X),
])
def test_a_transformed_callable_instance_traces_its_call(call):
    with pytest.raises(jax.errors.NonConcreteBooleanIndexError):
        call(_load("JAX111", "invalid_callable_instance"))


def test_a_callable_instance_keeping_shapes_or_called_eagerly_works():
    valid = _load("JAX111", "valid_callable_instance")
    assert valid.pick(X).tolist() == [0, -1, 2]
    assert valid.pick_eagerly(X).tolist() == [0, 2]


@pytest.mark.parametrize("call", [
    lambda m: m.train_step(X, m.init_fn(X)),
    lambda m: m.fit(X),
])
def test_a_function_of_a_factory_tuple_is_traced(call):
    with pytest.raises(jax.errors.TracerBoolConversionError):
        call(_load("JAX105", "invalid_factory_tuple"))


def test_a_factory_tuple_branching_on_python_values_works():
    valid = _load("JAX105", "valid_factory_tuple")
    assert valid.run(X).shape == (3,)


@pytest.mark.parametrize("name", ["odd_entries", "literal_mask", "all_but_last", "one_set", "nonzero_entries"])
def test_a_boolean_array_made_in_traced_code_is_a_traced_mask(name):
    with pytest.raises(jax.errors.NonConcreteBooleanIndexError):
        getattr(_load("JAX111", "invalid_constant_mask"), name)(jnp.arange(1.0, 7.0))


def test_a_concrete_mask_an_integer_index_or_a_mask_as_values_works():
    valid = _load("JAX111", "valid_constant_mask")
    x = jnp.arange(1.0, 7.0)
    assert valid.module_mask(x).tolist() == [1.0, 3.0, 5.0]
    assert valid.numpy_mask(x).tolist() == [2.0, 4.0, 6.0]
    assert valid.integer_index(x)[0].tolist() == [2.0, 1.0, 2.0]
    assert valid.masked_values(x).tolist() == [0.0, 2.0, 0.0, 4.0, 0.0, 6.0]


def test_stored_initializers_given_one_key_draw_the_same_numbers():
    invalid = _load("JAX114", "invalid_stored_initializer")
    key = jax.random.PRNGKey(0)
    for w, b in (invalid.Dense(3).new_weights(key), invalid.both(key)):
        assert jnp.allclose(b, 1e-2 * w)  # the bias is the kernel, scaled: one draw, twice


def test_stored_initializers_given_their_own_keys_differ():
    w, b = _load("JAX114", "valid_stored_initializer").Dense(3).new_weights(jax.random.PRNGKey(0))
    assert not jnp.allclose(b, 1e-2 * w)


def test_a_stored_function_jitted_through_its_attribute_is_traced():
    with pytest.raises(jax.errors.TracerBoolConversionError):
        _load("JAX105", "invalid_stored_step").Trainer().fit(X, X)


def test_a_stored_function_branching_on_python_values_works():
    jitted, eager = _load("JAX105", "valid_stored_step").Trainer().fit(X, X)
    assert jitted.shape == eager.shape == (3,)


def test_linen_init_and_apply_given_one_key_draw_the_same_numbers():
    invalid = _load("JAX114", "invalid_framework_keys")
    key, x = jax.random.PRNGKey(0), jnp.ones((1, 3))
    enc, dec = invalid.build(key, x)
    assert jnp.array_equal(enc["params"]["Dense_0"]["kernel"], dec["params"]["Dense_0"]["kernel"])
    a, b = invalid.twice(jnp.ones(64), key)
    assert jnp.array_equal(a, b)  # one dropout mask, twice
    (loss1, grad1), (loss2, grad2) = invalid.train(jnp.ones(64), 2)
    assert loss1 == loss2 and grad1 == grad2  # every step drops the same units


def test_linen_init_and_apply_given_their_own_keys_differ():
    valid = _load("JAX114", "valid_framework_keys")
    x = jnp.ones((1, 3))
    first, second = valid.build(jax.random.PRNGKey(0), x)
    assert not jnp.array_equal(first["params"]["Dense_0"]["kernel"], second["params"]["Dense_0"]["kernel"])
    dropped, kept = valid.evaluate(jnp.ones(64), jax.random.PRNGKey(0))
    assert jnp.array_equal(kept, jnp.ones(64)) and not jnp.array_equal(dropped, kept)
    (loss1, _), (loss2, _) = valid.train(jnp.ones(64), 2)
    assert loss1 != loss2



def test_a_traced_pytree_compared_with_an_empty_container_is_a_python_bool():
    valid = _load("JAX105", "valid_empty_container_compare")
    assert valid.plus_first((), X).tolist() == X.tolist()
    assert valid.plus_first((X,), X).tolist() == (2 * X).tolist()
    assert valid.scaled({"scale": 2.0}, X).tolist() == (2 * X).tolist()


def test_an_element_unpacked_from_a_carry_keeps_its_annotated_kind():
    assert _load("JAX105", "valid_unpacked_container").run(X)[1].tolist() == X.tolist()
    with pytest.raises(jax.errors.TracerBoolConversionError):
        _load("JAX105", "invalid_unpacked_array").run(X)
