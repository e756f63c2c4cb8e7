"""Real jax behind blind48's false-finding fixes (issue 36, fix48b): the VALID fixtures
run as the rule now says they do, the INVALID ones fail as it says."""
import jax
import jax.numpy as jnp
import pytest

from rule_fixtures import load_module


def _load(code: str, name: str):
    return load_module(code, name, "_blind48b")


def test_index_tricks_build_arrays_under_jit():
    valid = _load("JAX111", "valid_index_tricks")
    assert valid.run_starts(jnp.array([1, 1, 2, 3, 3])).tolist() == [True, False, True, True, False]
    stacked, part, head = valid.side_by_side(jnp.array([1.0, -1.0, 2.0]), jnp.array([4.0, 5.0, 6.0]))
    assert stacked.shape == (3, 2) and part.tolist() == [-1.0, 2.0] and head.tolist() == [1.0, -1.0]
    assert valid.grid_sum(jnp.zeros((3, 4))).shape == (3, 4)


def test_a_mask_index_inside_the_brackets_still_fails():
    invalid = _load("JAX111", "invalid_index_tricks")
    with pytest.raises(jax.errors.NonConcreteBooleanIndexError):
        invalid.distinct_sorted(jnp.array([1, 1, 2]))


def test_modules_built_from_one_rngs_stream_draw_different_weights(monkeypatch):
    from rule_fixtures import FIXTURES

    monkeypatch.syspath_prepend(str(FIXTURES / "JAX114" / "valid_rngs_stream"))
    valid = _load("JAX114", "valid_rngs_stream")
    first, second = valid.build(3, 2)
    assert not jnp.array_equal(first.proj.kernel[...], second.proj.kernel[...])
    tower = valid.Tower(3, 2, rngs=valid.nnx.Rngs(1))
    assert not jnp.array_equal(tower.blocks[0].proj.kernel[...], tower.blocks[1].proj.kernel[...])
    twin = valid.Twin(valid.Settings(3, 2, valid.nnx.Rngs(2)))
    assert not jnp.array_equal(twin.blocks[0].proj.kernel[...], twin.blocks[1].proj.kernel[...])


def test_one_key_taken_from_the_stream_gives_every_layer_the_same_weights():
    invalid = _load("JAX114", "invalid_rngs_stream")
    tower = invalid.Tower(3, 2, rngs=invalid.nnx.Rngs(0))
    assert jnp.array_equal(tower.layers[0].w, tower.layers[1].w)


def test_an_argument_filled_in_before_the_call_spares_the_draw():
    valid = _load("JAX114", "valid_filled_before_call")
    thetas = jnp.linspace(0.0, 1.0, 64)
    score, refs = valid.run(thetas, seed=3)
    assert bool(jnp.array_equal(refs, valid.references_for(jax.random.PRNGKey(3), thetas)))
    # given the references, the helper reads no key: any other key gives the same score
    assert float(score) == float(valid.coverage(jax.random.PRNGKey(99), thetas, refs))


def test_an_argument_left_none_draws_the_same_numbers_again():
    invalid = _load("JAX114", "invalid_filled_elsewhere")
    thetas = jnp.linspace(0.0, 1.0, 64)
    score, other = invalid.run(thetas, seed=3)
    assert float(score) == float(jnp.mean(other < thetas))  # the helper drew `other` again
def _bad_step(x):
    return int(x)  # a tracer cannot become a Python int: TypeError under jit


def test_a_handler_that_reraises_prints_once_on_the_way_out(capfd):
    valid = _load("JAX106", "valid_reraising_handler")
    with pytest.raises(TypeError):
        valid.run_all({"bad": _bad_step}, jnp.float32(1.0))
    assert "step bad failed while tracing:" in capfd.readouterr().out


def test_a_swallowing_handler_prints_at_trace_time_only(capfd):
    invalid = _load("JAX106", "invalid_swallowing_handler")
    steps = {"bad": _bad_step, "double": lambda x: x * 2}
    assert float(invalid.run_all(steps, jnp.float32(1.0))) == 2.0
    assert capfd.readouterr().out.count("step bad skipped:") == 1
