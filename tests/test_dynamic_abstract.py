"""Arguments saved abstractly by `jaxlint record` (jaxlint.dynamic.abstract): what comes
back from the pickle, and what becomes an honest skip. Real jax, real pickles."""
from __future__ import annotations

import json
import pickle
import sys
import textwrap
import types

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy

from jaxlint.dynamic import abstract  # noqa: E402  (imports jax)
from helpers import run_cli  # noqa: E402


def round_trip(*args, **kwargs):
    return abstract.loads(abstract.dumps(args, kwargs, None))


def test_traced_arrays_come_back_as_shape_dtype_structs_with_weak_types():
    (a, b, c), _ = round_trip(jnp.ones((3, 4), jnp.bfloat16), jnp.asarray(2.0), {"n": np.zeros(5, np.int32)})
    assert a == jax.ShapeDtypeStruct((3, 4), jnp.bfloat16)
    assert b.shape == () and b.weak_type
    assert c["n"] == jax.ShapeDtypeStruct((5,), np.int32)  # a pytree leaf: jit traces it


def test_prng_key_arrays_keep_their_key_dtype():
    (k,), _ = round_trip(jax.random.split(jax.random.key(0), 4))
    assert k.shape == (4,) and jax.dtypes.issubdtype(k.dtype, jax.dtypes.prng_key)


class Holder:
    """Not a pytree: its arrays are constants of the traced program, not inputs."""

    def __init__(self, table):
        self.table = table


def test_static_arrays_keep_values_when_small_and_shape_when_large():
    small, big = np.arange(6.0).reshape(2, 3), np.ones((512, 512), np.float32)
    (h_small, h_big), _ = round_trip(Holder(small), Holder(big))
    assert isinstance(h_small.table, np.ndarray) and (h_small.table == small).all()
    assert h_big.table.shape == big.shape and h_big.table.dtype == big.dtype
    assert len(np.unique(h_big.table)) > 1  # not a splat: its cost stays visible


def _make_closure(scale):
    def scaled(x):
        return x * scale
    return scaled


def test_closures_are_rebuilt_from_source_with_their_cell_values():
    (fn,), _ = round_trip(_make_closure(3.0))
    assert fn(2.0) == 6.0 and fn.__qualname__ == "_make_closure.<locals>.scaled"


def test_functions_without_source_become_stand_ins_that_say_so_when_called():
    made = types.FunctionType(compile("lambda x: x + 1", "<generated>", "eval").co_consts[0], {"__name__": __name__})
    (fn,), _ = round_trip(made)
    assert isinstance(fn, abstract.Unrecorded)
    with pytest.raises(abstract.UnrecordedValueError, match="<lambda>"):
        fn(1)


def test_local_classes_cannot_be_saved():
    class Local:
        pass

    with pytest.raises(pickle.PicklingError, match="not importable by name"):
        abstract.dumps((Local(),), {}, None)


def test_a_script_s_classes_are_saved_under_its_module_name():
    main = sys.modules["__main__"]
    cls = type("FromScript", (), {"__module__": "__main__", "__qualname__": "FromScript"})
    setattr(main, "FromScript", cls)
    try:
        data = abstract.dumps((cls(),), {}, "train")
    finally:
        delattr(main, "FromScript")
    assert b"train" in data and b"__main__" not in data


PROJECT = '''
from dataclasses import dataclass
from functools import partial

import jax
import jax.numpy as jnp

ACTIVATION = eval("lambda x: x * 2")  # no source to rebuild it from


@dataclass(frozen=True)
class Config:
    activation: object
    width: int


@partial(jax.jit, static_argnums=1)
def apply(x, config):
    return config.activation(x) + config.width


@partial(jax.jit, static_argnums=1)
def widen(x, config):
    return jnp.tile(x, config.width)


if __name__ == "__main__":
    config = Config(ACTIVATION, 3)
    apply(jnp.ones(4), config)
    widen(jnp.ones(4), config)
'''


def test_a_stand_in_called_while_tracing_is_a_skip_with_the_reason_not_a_trace_error(tmp_path):
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "app.py").write_text(textwrap.dedent(PROJECT).lstrip())
    # signatures only: the worker traces from the saved arguments (a recording that
    # analyses would trace `apply` inside the program, where the lambda exists)
    rec = run_cli("record", "--no-analysis", "--", "python", "app.py", cwd=tmp_path, timeout=300)
    assert rec.returncode == 0, rec.stderr
    sig = json.loads((tmp_path / ".jaxlint" / "signatures.json").read_text())["functions"]["app:apply"]
    assert sig["signatures"][0]["args"][1] == {"repr": "Config(activation=<function <lambda>>, width=3)"}
    proc = run_cli("check", "--dynamic", "--no-cache", "--show-skipped", "--select", "JAX2", cwd=tmp_path,
                   timeout=300)
    assert "JAX205" not in proc.stdout
    assert "1 function analysed, 1 skipped, 0 failed" in proc.stdout  # widen never calls it
    assert "skipped app.py:16 apply: the recorded argument holds `<lambda>`, a function whose code is not in" in proc.stdout, proc.stdout
