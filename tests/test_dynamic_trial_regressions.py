"""What a new user's trial of the trace tier ran into, reproduced on real runs:
`jaxlint record` of a real program, `jaxlint check --dynamic` in real workers.

* JAX208 named a changed pytree leaf as a garbled dict, and reported a Python number
  leaf that jit traces as the same weak scalar as the array it becomes (JAX208's tests
  on signature files: tests/rules/jaxpr/test_jax208.py);
* JAX206 and JAX202 both reported one unrolled loop (and JAX206 at the decorator):
  tests/rules/jaxpr/test_jax206.py;
* the "needs jax: pip install" hint came with any import failure of the worker;
* typed PRNG keys (`jax.random.key`, flax NNX `Rngs`) in records stopped the check.

Tests marked ``xfail(strict=True)`` reproduce a fault in a file this suite's author
does not own; they fail loudly once it is fixed, to be turned into plain tests."""
from __future__ import annotations

import importlib.util
import json
import pickle
from pathlib import Path

import pytest

from helpers import json_findings, run_cli


STATE = '''
import dataclasses
import sys

import jax
import jax.numpy as jnp


@jax.tree_util.register_dataclass
@dataclasses.dataclass
class State:
    step: object
    params: dict


TRACES = {"weak": 0, "strong": 0}


@jax.jit
def weak_step(state, x):
    TRACES["weak"] += 1
    return State(state.step + 1, {"w": state.params["w"] - 0.1 * x.mean()})


@jax.jit
def strong_step(state, x):
    TRACES["strong"] += 1
    return State(jnp.asarray(state.step + 1, jnp.int32), {"w": state.params["w"] - 0.1 * x.mean()})


@jax.jit
def sample(key, x):
    return x + jax.random.normal(key, x.shape)


if __name__ == "__main__":
    x = jnp.ones((8, 4))
    for fn in (weak_step, strong_step):
        state = State(0, {"w": jnp.zeros(4)})  # `step` starts as a Python int, as TrainState.create does
        for _ in range(3):
            state = fn(state, x)
    sample(jax.random.key(0), x)
    print("traces", TRACES, file=sys.stderr)
'''


@pytest.fixture(scope="module")
def state_project(tmp_path_factory):
    root = tmp_path_factory.mktemp("state")
    (root / "pyproject.toml").write_text("[tool.jaxlint]\n")
    (root / "train.py").write_text(STATE.lstrip("\n"))
    rec = run_cli("record", "--", "python", "train.py", cwd=root, timeout=300)
    check = run_cli("check", "--dynamic", "--no-cache", "--show-skipped", "--output-format", "json",
                    "--select", "JAX2", cwd=root, timeout=300)
    return root, rec, check


def test_a_python_int_leaf_that_jit_traces_like_the_weak_array_it_becomes_is_one_signature(state_project):
    root, rec, check = state_project
    assert rec.returncode == 0, rec.stderr[-2000:]
    assert "traces {'weak': 1, 'strong': 2}" in rec.stderr  # what jit really did
    recorded = json.loads((root / ".jaxlint" / "signatures.json").read_text())["functions"]
    # recorded as jit sees it: the Python int leaf is the weak i32[] that `step + 1` returns
    [signature] = recorded["train:weak_step"]["signatures"]
    assert signature["calls"] == 3 and signature["args"][0]["leaves"][".step"] == "i32[] weak"
    assert not [d for d in json_findings(check, "JAX208") if d["data"]["function"] == "weak_step"], check.stdout


def test_recompilation_names_the_changed_leaf_and_how_it_changes(state_project):
    _, _, check = state_project
    found = [d for d in json_findings(check, "JAX208") if d["data"]["function"] == "strong_step"]
    assert len(found) == 1, check.stdout
    assert found[0]["message"] == (
        "`strong_step` was traced and compiled for 2 different signatures (calls: 2, 1): "
        "`state.step` changes weak type (a Python scalar -> an array) "  # in the order the program met them
        "(a Python scalar in some calls and an array in others); `state.step` starts as the Python number "
        "made at line 38: make it an array there (`jnp.asarray(...)` with the dtype the step returns)")
    # at the line that made the Python number (issue 37: the line the user changes), with
    # the call that made jax compile again (observed by `jaxlint record`) and the jit line
    # as related locations
    assert found[0]["location"]["row"] == 38
    assert sorted(r["location"]["row"] for r in found[0]["related"]) == [24, 40]


# ---------------------------------------------------------------------------- worker start
def _check_with_broken_import(tmp_path: Path, package: str, init: str):
    """``check --dynamic`` of a one-function project with ``package`` shadowed on
    PYTHONPATH by one whose import runs ``init`` (the worker inherits the path)."""
    shadow = tmp_path / "shadow" / package
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text(init)
    root = tmp_path / "proj"
    root.mkdir()
    (root / "pyproject.toml").write_text("[tool.jaxlint]\n")
    (root / "m.py").write_text("import jax\n\n\n@jax.jit  # jaxlint: args=(f32[4],)\ndef f(x):\n    return x + 1\n")
    proc = run_cli("check", "--dynamic", "--no-cache", ".", cwd=root, env={"PYTHONPATH": str(shadow.parent)},
                   timeout=600)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    return proc.stderr


def test_a_broken_jax_dependency_is_not_reported_as_jax_missing(tmp_path):
    # jax is installed; a dependency of it fails to import (a numpy binary mismatch)
    err = _check_with_broken_import(tmp_path, "ml_dtypes",
                                    'raise ImportError("numpy.core.multiarray failed to import")\n')
    assert "numpy.core.multiarray failed to import" in err, err
    assert "jaxlint[dynamic]" not in err, err


def test_missing_jax_is_named_with_the_install_hint(tmp_path):
    # what Python raises for a package that is not installed, made to happen on `import jax`
    err = _check_with_broken_import(tmp_path, "jax",
                                    'raise ModuleNotFoundError("No module named \'jax\'", name="jax")\n')
    assert 'pip install "jaxlint[dynamic] @ git+https://github.com/jaxlint/jaxlint"' in err, err


# ---------------------------------------------------------------------------- PRNG keys
def test_a_typed_prng_key_argument_is_recorded_and_traced(state_project):
    root, _, check = state_project
    recorded = json.loads((root / ".jaxlint" / "signatures.json").read_text())["functions"]
    assert recorded["train:sample"]["signatures"][0]["args"][0] == "key<threefry2x32>[]"
    assert check.returncode in (0, 1), check.stderr
    assert not json_findings(check, "JAX200"), check.stdout
    summary = run_cli("check", "--dynamic", "--no-cache", "--select", "JAX2", cwd=root, timeout=300).stdout
    assert "3 functions analysed, 0 skipped, 0 failed" in summary, summary


NNX = '''
import jax
import jax.numpy as jnp
from flax import nnx


class Model(nnx.Module):
    def __init__(self, rngs):
        self.lin = nnx.Linear(4, 2, rngs=rngs)
        self.drop = nnx.Dropout(0.5, rngs=rngs)

    def __call__(self, x):
        return self.drop(self.lin(x))


@nnx.jit
def forward(model, x):
    return model(x)


@nnx.jit
def noise(rngs, x):
    return x + jax.random.normal(rngs.params(), x.shape)


if __name__ == "__main__":
    x = jnp.ones((3, 4))
    forward(Model(nnx.Rngs(0)), x)
    noise(nnx.Rngs(params=1), x)
'''


@pytest.mark.skipif(importlib.util.find_spec("flax") is None, reason="needs flax")
def test_flax_nnx_rngs_in_recorded_arguments_are_traced(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.jaxlint]\n")
    (tmp_path / "nn.py").write_text(NNX.lstrip("\n"))
    rec = run_cli("record", "--", "python", "nn.py", cwd=tmp_path, timeout=300)
    assert rec.returncode == 0, rec.stderr[-2000:]
    text = (tmp_path / ".jaxlint" / "signatures.json").read_text()
    assert "key<threefry2x32>[]" in text and "key<fry>" not in text
    proc = run_cli("check", "--dynamic", "--no-cache", "--select", "JAX2", cwd=tmp_path, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "2 functions analysed, 0 skipped, 0 failed" in proc.stdout, proc.stdout


def test_a_stale_record_with_a_key_dtype_tag_is_not_a_failure_of_the_users_code(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.jaxlint]\n")
    (tmp_path / "m.py").write_text("import jax\n\n\n@jax.jit\ndef sample(key, x):\n"
                                   "    return x + jax.random.normal(key, x.shape)\n")
    (tmp_path / ".jaxlint").mkdir()
    (tmp_path / ".jaxlint" / "signatures.json").write_text(json.dumps({"format": 1, "functions": {"m:sample": {
        "file": "m.py", "line": 4, "qualname": "sample", "signatures": [
            {"args": ["key<fry>[]", "f32[8]"], "kwargs": {}, "calls": 1}]}}}))
    proc = run_cli("check", "--dynamic", "--no-cache", "--output-format", "json", cwd=tmp_path, timeout=300)
    assert proc.returncode in (0, 1), proc.stderr
    assert not json_findings(proc, "JAX200"), proc.stdout


def test_saved_arguments_that_cannot_be_loaded_skip_the_function_with_the_reason(tmp_path):
    import hashlib
    import importlib

    class Gone:  # unpickles by importing a module that is not there (a renamed library class)
        def __reduce__(self):
            return importlib.import_module, ("no_such_module_jaxlint_test",)

    data = pickle.dumps(((Gone(),), {}), protocol=4)
    sha = hashlib.sha256(data).hexdigest()
    root = tmp_path
    (root / "pyproject.toml").write_text("[tool.jaxlint]\n")
    (root / "m.py").write_text("import jax\n\n\n@jax.jit\ndef step(model):\n    return model\n")
    (root / ".jaxlint" / "signatures.pickles").mkdir(parents=True)
    (root / ".jaxlint" / "signatures.pickles" / f"{sha}.pickle").write_bytes(data)
    (root / ".jaxlint" / "signatures.json").write_text(json.dumps({"format": 1, "functions": {"m:step": {
        "file": "m.py", "line": 4, "qualname": "step", "signatures": [
            {"args": [{"opaque": "lib.Model"}], "kwargs": {}, "calls": 1, "pickle": sha}]}}}))
    proc = run_cli("check", "--dynamic", "--no-cache", "--show-skipped", "--select", "JAX2", cwd=root, timeout=300)
    assert "NameError" not in proc.stdout, proc.stdout
    assert "skipped m.py:4 step: the recorded arguments cannot be rebuilt: ModuleNotFoundError" in proc.stdout, \
        proc.stdout
