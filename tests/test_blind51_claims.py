"""Real jax behind the fixes of blind51's (and blind50's last) false findings (issue 36): the
VALID fixtures run as the rule now says they do, the INVALID ones do what it reports."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from rule_fixtures import load_module


def _load(code: str, name: str):
    return load_module(code, name, "_blind51")


def test_a_helper_given_the_first_calls_masks_draws_nothing():
    valid = _load("JAX114", "valid_closure_drawn_unless_given")
    x = jnp.arange(12.0).reshape(3, 4)
    masks = jnp.array([[False, True, True, True]] * 3)
    # with its masks given, the closure never reaches its draw: any key gives the same result
    one = valid.paste(x, -x, jax.random.key(0), masks)
    other = valid.paste(x, -x, jax.random.key(1), masks)
    assert bool(jnp.array_equal(one[0], other[0])) and bool(jnp.array_equal(one[1], masks))
    # so the labels and the images get the one box drawn for the labels
    labels, images, _ = valid.cut_mix(jax.random.key(3), x, x)
    assert bool(jnp.array_equal(labels, images))


def test_each_call_given_none_draws_the_same_box_again():
    invalid = _load("JAX114", "invalid_closure_drawn_unless_given")
    x = jnp.arange(40.0).reshape(4, 10)
    _, _, label_masks, image_masks = invalid.cut_mix(jax.random.key(5), x, x * 2)
    assert bool(jnp.array_equal(label_masks, image_masks))  # the reused key: the same numbers


def test_the_python_if_sees_the_int_and_the_cond_the_tracer():
    valid = _load("JAX105", "valid_cond_or_python_if")
    x = jnp.ones(3)
    assert bool(jnp.array_equal(valid.update(x, 5), x * 2.0))  # steps 1: the Python `if`
    assert bool(jnp.array_equal(valid.update(x, 5, steps=2), x + 1.0))
    assert bool(jnp.array_equal(valid.update(x, 25, schedule=True), x + 1.0))  # steps 2, traced: the cond
    assert bool(jnp.array_equal(valid.update(x, 5, schedule=True), x * 2.0))


def test_the_python_if_on_the_traced_schedule_fails():
    invalid = _load("JAX105", "invalid_cond_or_python_if")
    with pytest.raises(jax.errors.TracerBoolConversionError):
        invalid.update(jnp.ones(3), 25)


def test_a_none_default_never_passed_stays_none_under_jit():
    valid = _load("JAX105", "valid_default_never_given")
    x = jnp.arange(3.0)
    assert bool(jnp.array_equal(valid.Stencil().run(x), x * 2.0))
    weighted = valid.WeightedStencil().run_weighted(x)  # the partial's NumPy weights: constants
    assert bool(jnp.array_equal(weighted, jnp.concatenate([x * 2.0, x * 2.0 * 3.0])))


def test_the_default_passed_to_the_jitted_method_is_traced():
    invalid = _load("JAX105", "invalid_default_given")
    with pytest.raises(jax.errors.TracerBoolConversionError):
        invalid.Stencil().run(jnp.arange(3.0), np.array([[0.0, 1.0], [0.0, 2.0]]))
