"""Real jax behind round 11's misses built as general capabilities (recall48, issue 36): the
VALID fixtures run without error and the INVALID ones raise (or return) what the rule says."""
import jax
import jax.numpy as jnp
import pytest

from rule_fixtures import FIXTURES, load_module

FIXTURES_105 = FIXTURES / "JAX105"


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


KERAS_PROOF = r"""
import importlib.util, os, sys
os.environ["KERAS_BACKEND"] = "jax"
import jax
import numpy as np
import keras

def load(name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(sys.argv[1], name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module

x = np.random.rand(2, 5).astype("float32")
invalid = load("invalid_keras_call")
model = invalid.FirstColumns()
assert model((x, np.array([2, 2]))).shape == (2, 2)  # an eager call of the model works
class Wrap(keras.Model):
    def __init__(self):
        super().__init__()
        self.inner = invalid.PositiveShift()
    def call(self, inputs):
        return self.inner(inputs)
for run in (lambda: model.predict((x, np.array([2, 2])), verbose=0), lambda: Wrap().predict(x, verbose=0)):
    try:
        run()
    except Exception as e:  # a jax tracer error (keras 3.15's error handler passes
        # TracerBoolConversionError a string, whose `_error_repr` its __init__ then asks for)
        assert isinstance(e, (jax.errors.ConcretizationTypeError, jax.errors.TracerBoolConversionError)) \
            or "_error_repr" in str(e), repr(e)
    else:
        raise AssertionError("predict traced call without error")
valid = load("valid_keras_static")
stack = valid.Stack([4, 3])
assert stack.predict(x, verbose=0).shape == (2, 1)
stack.compile(optimizer="sgd", loss="mse")
stack.fit(x, np.ones((2, 1), "float32"), epochs=1, verbose=0)
print("ok")
"""


def test_keras_predict_traces_call_on_the_jax_backend():
    """keras 3's `predict`/`fit` jit the model's step on the jax backend: the INVALID keras
    fixture's conversions and `if` raise there (an eager call works), the VALID one runs.
    keras is no test dependency: this runs where it is installed."""
    import subprocess
    import sys

    import importlib.util

    if importlib.util.find_spec("keras") is None:  # not imported here: keras picks its backend once, at import
        pytest.skip("keras is not installed")
    proc = subprocess.run([sys.executable, "-c", KERAS_PROOF, str(FIXTURES_105)], capture_output=True, text=True,
                          timeout=300, env={**__import__("os").environ, "JAX_PLATFORMS": "cpu"})
    assert proc.returncode == 0 and proc.stdout.strip().endswith("ok"), proc.stderr[-3000:]
