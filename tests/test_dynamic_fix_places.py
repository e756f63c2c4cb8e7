"""Issue 20: a dynamic finding sits where the fix goes. One program of the patterns, run
through the real `jaxlint record --compile`, then `jaxlint check --dynamic --compile`
(jax 0.10 and 0.4.38): a captured array read through a module-level object or a
helper is reported at the jitted function's own line that takes hold of it; a folded
constant and a big intermediate at the operation that makes them; an unusable donation
at its `donate_argnums`. The definition, the callee's read and the uses are related."""
from __future__ import annotations

import pytest

from helpers import json_findings, run_cli

pytest.importorskip("jax")

PROGRAM = '''
import functools
import jax
import jax.numpy as jnp
import numpy as np


class Dense:
    def __init__(self, n):
        self.w = np.random.rand(n, n).astype(np.float32)

    def __call__(self, x):
        return x @ self.w  # READ_CALL


class Table:
    def __init__(self):
        self.rows = np.random.rand(600, 600).astype(np.float32)

    def lookup(self, x):
        return x * self.rows  # READ_METHOD


model = Dense(512)  # MODEL
table = Table()  # TABLE
GLOBAL = np.random.rand(700, 700).astype(np.float32)  # GLOBAL
PARAMS = {"w": np.random.rand(800, 800).astype(np.float32)}  # PARAMS


def helper(x):
    return x + GLOBAL  # READ_HELPER


@jax.jit
def predict(x):  # DEF_PREDICT
    y = x + 1.0
    return model(y)  # TAKE_MODEL


@jax.jit
def look(x):
    return table.lookup(x)  # TAKE_TABLE


@jax.jit
def from_dict(x):
    return x @ PARAMS["w"]  # TAKE_DICT


@jax.jit
def via_helper(x):
    return helper(x) * 2  # TAKE_HELPER


@jax.jit
def masked(x):  # DEF_MASKED
    mask = jnp.zeros((1024, 1024)).at[0, 0].set(1.0)  # FOLD
    return x @ mask  # FOLD_USE


@jax.jit
def pairwise(x):  # DEF_PAIRWISE
    d = jnp.sort(x[:, None, :] - x[None, :, :], axis=-1)  # BIG
    return jnp.sqrt((d ** 2).sum(-1))


@functools.partial(jax.jit, donate_argnums=(0, 1))  # DONATE
def summarize(table, v):  # DEF_SUMMARIZE
    return jnp.sum(table, axis=0) + v.sum()


def train_step(params, x):  # DEF_TRAIN
    return params - 0.1 * jnp.mean(x)


if __name__ == "__main__":
    predict(jnp.ones((4, 512)))
    look(jnp.ones((600, 600)))
    via_helper(jnp.ones((700, 700)))
    from_dict(jnp.ones((4, 800)))
    masked(jnp.ones((256, 1024)))
    pairwise(jnp.ones((512, 64)))
    summarize(jnp.ones((1024, 512)), jnp.ones(8))
    step = jax.jit(train_step,
                   donate_argnums=(0, 1))  # DONATE_CALL
    p = jnp.ones((512, 512))
    for _ in range(2):
        p = step(p, jnp.ones((4, 512)))
'''.lstrip("\n")

LINES = {m: i for i, text in enumerate(PROGRAM.splitlines(), 1) for m in (
    "READ_CALL", "READ_METHOD", "MODEL", "TABLE", "PARAMS", "TAKE_DICT", "GLOBAL", "READ_HELPER", "DEF_PREDICT", "TAKE_MODEL", "TAKE_TABLE",
    "TAKE_HELPER", "DEF_MASKED", "FOLD", "FOLD_USE", "DEF_PAIRWISE", "BIG", "DONATE", "DEF_SUMMARIZE",
    "DEF_TRAIN", "DONATE_CALL") if text.endswith(f"# {m}")}


@pytest.fixture(scope="module")
def found(tmp_path_factory):
    root = tmp_path_factory.mktemp("places")
    (root / "pyproject.toml").write_text('[tool.jaxlint]\nselect = ["JAX2", "JAX3"]\n'
                                         '[tool.jaxlint.rules.memory-budget]\nmax-temp-bytes = 4194304\n')
    (root / "prog.py").write_text(PROGRAM)
    rec = run_cli("record", "--compile", "--", "python", "prog.py", cwd=root, timeout=600)
    assert rec.returncode == 0, rec.stderr
    check = run_cli("check", "--dynamic", "--compile", "--no-cache", "--output-format", "json", "prog.py",
                    cwd=root, timeout=600)
    return json_findings(check)


def _one(found, code, function):
    [d] = [d for d in found if d["code"] == code and d["data"]["function"] == function]
    return d


def _related(d):
    return [(r["location"]["row"], r["message"]) for r in d["related"]]


@pytest.mark.parametrize("function, take, read, name, assigned", [
    ("predict", "TAKE_MODEL", "READ_CALL", "model.w", "MODEL"),
    ("look", "TAKE_TABLE", "READ_METHOD", "table.rows", "TABLE"),
])
def test_an_array_held_by_an_object_is_reported_where_the_jitted_function_takes_hold_of_it(
        found, function, take, read, name, assigned):
    # not inside the layer's __call__ or the method: at the jitted function's line that
    # reads the module-level object
    d = _one(found, "JAX201", function)
    assert d["location"]["row"] == LINES[take], d
    assert f"captured array `{name}`" in d["message"]
    assert _related(d) == [(LINES[assigned], f"`{name.split('.')[0]}` is assigned here"),
                           (LINES[read], f"`{name}` is read here")]


def test_an_array_in_a_global_dict_is_named_by_its_key(found):
    d = _one(found, "JAX201", "from_dict")
    assert d["location"]["row"] == LINES["TAKE_DICT"]
    assert "captured array `PARAMS['w']` (float32[800,800], 2.4 MiB)" in d["message"], d["message"]
    assert _related(d) == [(LINES["PARAMS"], "`PARAMS` is assigned here")]


def test_a_helpers_global_is_reported_where_the_helper_reads_it(found):
    # the helper takes hold of its own global (one finding for every jitted function that
    # calls it); the jitted function's line that calls the helper is related
    d = _one(found, "JAX201", "via_helper")
    assert d["location"]["row"] == LINES["READ_HELPER"]
    assert _related(d) == [(LINES["GLOBAL"], "`GLOBAL` is assigned here"),
                           (LINES["TAKE_HELPER"], "`via_helper` reaches it here")]


def test_a_folded_constant_is_reported_at_the_operation_that_builds_it(found):
    d = _one(found, "JAX305", "masked")
    assert d["location"]["row"] == LINES["FOLD"]
    assert f"built at line {LINES['FOLD']} and used at line {LINES['FOLD_USE']}" in d["message"]
    assert _related(d)[:1] == [(LINES["FOLD_USE"], "used here")]
    assert (LINES["DEF_MASKED"], "`masked` is defined here") in _related(d)
    assert not [d for d in found if d["code"] == "JAX209" and d["data"]["function"] == "masked"]  # confirmed


def test_a_memory_budget_is_reported_at_the_operation_that_makes_the_big_intermediate(found):
    d = _one(found, "JAX304", "pairwise")
    assert d["location"]["row"] == LINES["BIG"]
    assert (LINES["DEF_PAIRWISE"], "`pairwise` is defined here") in _related(d)


@pytest.mark.parametrize("function, keyword, definition", [
    ("summarize", "DONATE", "DEF_SUMMARIZE"), ("train_step", "DONATE_CALL", "DEF_TRAIN")])
def test_an_unusable_donation_is_reported_at_its_donate_argnums(found, function, keyword, definition):
    d = _one(found, "JAX302", function)
    assert "could not be used" in d["message"]
    line = PROGRAM.splitlines()[LINES[keyword] - 1]
    assert (d["location"]["row"], d["location"]["column"]) == (LINES[keyword], line.index("donate_argnums") + 1)
    assert _related(d) == [(LINES[definition], f"`{function}` is defined here")]
