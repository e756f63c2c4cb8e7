"""Real jax behind dev50's false-finding fixes (issue 36): the VALID fixtures run as the rule
now says they do, the INVALID ones fail as it says."""
import jax.numpy as jnp

from rule_fixtures import load_module


def _load(code: str, name: str):
    return load_module(code, name, "_dev50")


def _branchy(x):
    return x if x > 0 else -x  # a Python branch on a tracer: TracerBoolConversionError under jit


def test_a_handler_of_jax_errors_runs_only_when_the_trace_fails(capfd):
    valid = _load("JAX106", "valid_jax_error_handler")
    # the sampler does not trace: the handler reports it, once per trace, and falls back
    assert float(valid.run(_branchy, jnp.float32(-2.0))) == -2.0
    assert capfd.readouterr().out.count("the sampler does not trace") == 1
    # a sampler that traces raises none of jax's errors: the handler never runs
    assert float(valid.run(jnp.abs, jnp.float32(-2.0))) == 2.0
    assert "the sampler does not trace" not in capfd.readouterr().out


def test_an_or_that_falls_back_to_a_container_tests_the_structure():
    import jax

    valid = _load("JAX105", "valid_container_fallback")
    init = valid.make_init({"w": 3, "b": 2})
    params, extra = init(jax.random.key(0))
    assert sorted(params) == ["b", "w"] and float(extra[-1]) == 2.0
    given = {"w": jnp.ones(3)}
    params, extra = init(jax.random.key(0), given, [jnp.float32(7.0)])
    assert bool(jnp.array_equal(params["w"], jnp.ones(3))) and len(extra) == 2


def test_an_or_on_an_array_fails_under_jit():
    import jax
    import pytest

    invalid = _load("JAX105", "invalid_array_fallback")
    with pytest.raises(jax.errors.TracerBoolConversionError):
        invalid.bias_or_zero(jnp.float32(1.0))


def test_a_donation_in_a_loop_deletes_only_when_an_output_can_take_the_buffer():
    import warnings

    import pytest

    invalid = _load("JAX113", "invalid_loop_donation")
    batches = [jnp.ones(8), jnp.ones(8) * 2]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "Some donated buffers were not usable"
        params = jnp.ones(8)
        assert len(invalid.evaluate(params, batches)) == 2 and not params.is_deleted()  # kept: nothing aliases
        params = jnp.ones(8)
        with pytest.raises(ValueError, match="deleted or donated"):
            invalid.rescale(params, batches)  # the second pass passes the deleted buffer
