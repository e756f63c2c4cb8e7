"""Real jax behind blind56/blind56b's false-finding fixes (issue 36, tuning after the blind
figures): the VALID fixtures run as the rule now says they do, the INVALID ones fail as it
says."""
import jax
import jax.numpy as jnp
import pytest

from rule_fixtures import FIXTURES, load_module


def _load(code: str, name: str):
    return load_module(code, name, "_blind56")


def test_a_stored_transform_nothing_calls_traces_nothing():
    valid = _load("JAX105", "valid_stored_wrapper")
    mass = jnp.array([1.0, -2.0, 3.0])
    mesh = valid.Mesh(mass)
    # the method builds two vmaps of `change` and runs it eagerly: its `if` sees concrete values
    changes = mesh.step(2.0)
    assert [float(c) for c in changes] == [2.0, 2.0, 6.0]
    assert float(valid.clipped_total(mass)) == 2.0
    # building the wrappers ran nothing under a trace; calling one is what would trace `change`
    with pytest.raises(jax.errors.TracerBoolConversionError):
        mesh.vec_change(2.0, jnp.arange(3))


@pytest.mark.parametrize("name", ["invalid_stored_wrapper_named_elsewhere", "invalid_stored_wrapper_called"])
def test_a_stored_transform_that_is_called_traces_its_function(name):
    invalid = _load("JAX105", name)
    mesh = invalid.Mesh(jnp.array([1.0, -2.0, 3.0]))
    mesh.step(2.0)
    with pytest.raises(jax.errors.TracerBoolConversionError):
        mesh.vec_change(2.0, jnp.arange(3))


def test_the_only_runs_of_a_function_under_its_stored_or_returned_wrapper_raise():
    invalid = _load("JAX105", "invalid_stored_wrapper_called")
    mesh = invalid.Mesh(jnp.ones(2))
    mesh.step(1.0)
    with pytest.raises(jax.errors.TracerBoolConversionError):
        mesh.step_all(1.0)
    grid = invalid.Grid()
    grid.build()
    with pytest.raises(jax.errors.TracerBoolConversionError):
        grid._relax(jnp.ones((2, 3)))
    with pytest.raises(jax.errors.TracerBoolConversionError):
        invalid.make_clip()(jnp.ones((2, 3)))


def test_a_body_run_by_an_unknown_decorators_own_trace_never_sees_a_jax_tracer(monkeypatch):
    """The toy DSL of the VALID fixture (beside it, the package the model does not know) runs
    the body once on its own Python number when the kernel is built; under `jax.jit` the
    kernel's call computes with what it recorded: the body's `if` never meets a tracer."""
    monkeypatch.syspath_prepend(str(FIXTURES / "JAX105" / "valid_opaque_decorator"))
    valid = _load("JAX105", "valid_opaque_decorator")
    assert float(valid.run(jnp.float32(1.5), 1.0)) == 4.5
    assert float(valid.run(jnp.float32(1.5), -1.0)) == -1.5


@pytest.mark.parametrize("name", ["scale", "clip", "shift", "flip"])
def test_a_known_own_or_wrapping_decorator_runs_the_body_under_the_callers_trace(monkeypatch, name):
    monkeypatch.syspath_prepend(str(FIXTURES / "JAX105" / "invalid_transparent_decorator"))
    invalid = _load("JAX105", "invalid_transparent_decorator")
    with pytest.raises(jax.errors.TracerBoolConversionError):
        jax.jit(getattr(invalid, name))(jnp.float32(1.5))
    getattr(invalid, name)(jnp.float32(1.5))  # eagerly, the same body runs
