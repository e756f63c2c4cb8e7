"""What a new user's trial of the trace tier ran into, reproduced on real runs:
`jaxlint record` of a real program, `jaxlint check --dynamic` in real workers.

* JAX208 named a changed pytree leaf as a garbled dict, and reported a Python number
  leaf that jit traces as the same weak scalar as the array it becomes;
* JAX206 and JAX202 both reported one unrolled loop (and JAX206 at the decorator);
* the "needs jax: pip install" hint came with any import failure of the worker;
* typed PRNG keys (`jax.random.key`, flax NNX `Rngs`) in records stopped the check.

Tests marked ``xfail(strict=True)`` reproduce a fault in a file this suite's author
does not own; they fail loudly once it is fixed, to be turned into plain tests.
"""
from __future__ import annotations

import importlib.util
import json
import pickle
from pathlib import Path

import pytest

from helpers import run_cli

# ---------------------------------------------------------------------------- JAX208
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


def _findings(proc, code: str | None = None) -> list[dict]:
    return [d for d in json.loads(proc.stdout or "[]") if code is None or d["code"] == code]


def test_a_python_int_leaf_that_jit_traces_like_the_weak_array_it_becomes_is_one_signature(state_project):
    root, rec, check = state_project
    assert rec.returncode == 0, rec.stderr[-2000:]
    assert "traces {'weak': 1, 'strong': 2}" in rec.stderr  # what jit really did
    recorded = json.loads((root / ".jaxlint" / "signatures.json").read_text())["functions"]
    # recorded as jit sees it: the Python int leaf is the weak i32[] that `step + 1` returns
    [signature] = recorded["train:weak_step"]["signatures"]
    assert signature["calls"] == 3 and signature["args"][0]["leaves"][".step"] == "i32[] weak"
    assert not [d for d in _findings(check, "JAX208") if d["data"]["function"] == "weak_step"], check.stdout


def test_recompilation_names_the_changed_leaf_and_how_it_changes(state_project):
    _, _, check = state_project
    found = [d for d in _findings(check, "JAX208") if d["data"]["function"] == "strong_step"]
    assert len(found) == 1, check.stdout
    assert found[0]["message"] == (
        "`strong_step` was traced and compiled for 2 different signatures (calls: 2, 1): "
        "`state.step` changes weak type (an array -> a Python scalar) "
        "(a Python scalar in some calls and an array in others)")
    # at the call that made jax compile again (observed by `jaxlint record`), with the
    # jit line as a related location
    assert found[0]["location"]["row"] == 40
    assert [r["location"]["row"] for r in found[0]["related"]] == [24]


def _signatures_project(tmp_path: Path, signatures: list[dict], transform: str = "jit") -> Path:
    (tmp_path / "pyproject.toml").write_text('[tool.jaxlint]\nselect = ["JAX208"]\n')
    decorator = {"jit": "import jax\n\n\n@jax.jit", "filter_jit": "import equinox as eqx\n\n\n@eqx.filter_jit"}
    (tmp_path / "m.py").write_text(f"{decorator[transform]}\ndef train_step(state, batch):\n    return state\n")
    (tmp_path / ".jaxlint").mkdir()
    (tmp_path / ".jaxlint" / "signatures.json").write_text(json.dumps({"format": 1, "functions": {"m:train_step": {
        "file": "m.py", "line": 4, "qualname": "train_step", "transform": transform, "signatures": signatures}}}))
    return tmp_path


def _state(step, count="i32[]", w="f32[4,2]", static="5161") -> dict:
    return {"opaque": "flax.training.train_state.TrainState", "static": static,
            "leaves": {".step": step, ".opt_state[1][0].count": count, ".params['w']": w}}


def test_recompilation_lists_one_readable_clause_per_changed_leaf(tmp_path):
    root = _signatures_project(tmp_path, [
        {"args": [_state("i32[]"), {"dict": {"image": "f32[64,784]"}}], "kwargs": {}, "calls": 7},
        {"args": [_state({"value": 0}, count="i32[2]", w="bf16[4,2]", static="77aa"),
                  {"dict": {"image": "f32[52,784]"}}], "kwargs": {}, "calls": 1},
    ])
    proc = run_cli("check", "--dynamic", "--no-cache", "--output-format", "json", cwd=root, timeout=300)
    [d] = _findings(proc)
    assert d["message"].split("): ", 1)[1] == (
        "`state.opt_state[1][0].count` changes shape () -> (2,); "
        "`state.params['w']` changes dtype float32 -> bfloat16; "
        "`state.step` changes from i32[] to a Python int (traced as a weak-typed scalar); "
        "`state` changes a static (non-array) field: jit compares those by value "
        "(a Python scalar in some calls and an array in others)")
    assert "`batch['image']` changes shape (64, 784) -> (52, 784)" in d["data"]["changes"]
    assert not any("{" in c for c in d["data"]["changes"])  # never a dumped record


@pytest.mark.skipif(importlib.util.find_spec("equinox") is None, reason="needs equinox")
def test_under_filter_jit_python_numbers_are_static_so_a_new_value_recompiles(tmp_path):
    root = _signatures_project(tmp_path, [
        {"args": [_state({"value": 0}), {"value": 1}], "kwargs": {}, "calls": 3},
        {"args": [_state({"value": 5}), {"value": 1}], "kwargs": {}, "calls": 1},
    ], transform="filter_jit")
    proc = run_cli("check", "--dynamic", "--no-cache", "--output-format", "json", cwd=root, timeout=300)
    assert [d["message"].split("): ", 1)[1] for d in _findings(proc)] == [
        "`state.step` (static) changes value 0 -> 5 (a Python number kept static by the transform compiles once "
        "per value: pass it as an array)"]


def test_records_of_earlier_versions_listing_leaves_without_paths_still_read(tmp_path):
    old = {"opaque": "flax.training.train_state.TrainState", "treedef": "PyTreeDef(...)"}
    root = _signatures_project(tmp_path, [
        {"args": [dict(old, leaves=["i32[] weak", "f32[4,2]"]), "f32[8]"], "kwargs": {}, "calls": 3},
        {"args": [dict(old, leaves=["i32[] weak", "bf16[4,2]"]), "f32[8]"], "kwargs": {}, "calls": 1},
    ])
    proc = run_cli("check", "--dynamic", "--no-cache", "--output-format", "json", cwd=root, timeout=300)
    assert "rule JAX208 failed" not in proc.stdout + proc.stderr
    changes = [d["message"].split("): ", 1)[1] for d in _findings(proc)]
    assert changes == ["`state<leaf 1>` changes dtype float32 -> bfloat16 (the dtype drifts between calls)"]


# ---------------------------------------------------------------------------- JAX206 / JAX202
LOOPS = '''
import jax
import jax.numpy as jnp


# jaxlint: args=(f32[16],)
@jax.jit
def simulate(x):
    for _ in range(100):
        x = jnp.tanh(x) * 0.5 + x
    return x


def layer(x, w):
    return jnp.tanh(jnp.sin(x @ w) * 2.0 + jnp.cos(x)) * 0.5 + x


# jaxlint: args=([f32[8,8], f32[8,8], f32[8,8], f32[8,8], f32[8,8], f32[8,8], f32[8,8], f32[8,8]], f32[4,8])
@jax.jit
def model(layers, x):
    for _ in range(100):
        x = jnp.tanh(x) * 0.5 + x
    for w in layers:
        x = layer(x, w)
    return x
'''


@pytest.fixture(scope="module")
def loops_project(tmp_path_factory):
    root = tmp_path_factory.mktemp("loops")
    (root / "pyproject.toml").write_text("[tool.jaxlint]\n[tool.jaxlint.rules.large-program]\nmax-equations = 60\n")
    (root / "loops.py").write_text(LOOPS.lstrip("\n"))

    def check(*args):
        proc = run_cli("check", "--dynamic", "--no-cache", "--output-format", "json", *args, cwd=root, timeout=300)
        assert proc.returncode == 1, proc.stderr
        return sorted((d["code"], d["location"]["row"], d["message"]) for d in _findings(proc))

    both = check("--select", "JAX202,JAX206")
    alone = check("--select", "JAX206")
    compiled = run_cli("check", "--compile", "--no-cache", "--show-skipped", "--select", "JAX202,JAX206", cwd=root,
                       timeout=300)
    return both, alone, compiled


def test_a_program_large_only_by_an_unrolled_loop_is_reported_once_at_the_loop(loops_project):
    both, _, _ = loops_project
    assert [(c, row) for c, row, _ in both if row < 12] == [("JAX202", 8)]


def test_a_program_still_large_without_its_loop_is_reported_at_the_def_with_the_loops_share(loops_project):
    both, _, _ = loops_project
    assert [(c, row) for c, row, _ in both if row >= 12] == [("JAX202", 20), ("JAX206", 19)]
    msg = next(m for c, _, m in both if c == "JAX206")
    assert msg == ("traced program of `model` has 364 equations (budget 60); line 21: 300, line 14: 64; "
                   "300 of them come from the unrolled loop at line 20, reported there")


def test_with_the_loop_rule_off_large_programs_are_reported_at_their_def_lines(loops_project):
    _, alone, _ = loops_project
    assert [(c, row) for c, row, _ in alone] == [("JAX206", 7), ("JAX206", 19)]
    assert not any("reported there" in m for *_, m in alone)


def test_the_compile_tier_still_skips_a_program_the_loop_finding_explains(loops_project):
    *_, compiled = loops_project
    assert ("loops.py:6 simulate: not compiled: the trace tier found a program above the equation budget "
            "(JAX206: 300 equations, 300 of them from the unrolled loop at line 8, reported there)"
            ) in compiled.stdout, compiled.stdout


def test_the_large_program_rule_runs_after_the_rules_whose_loop_findings_it_reads():
    # the worker runs a function's trace rules in registry order: the facts JAX206 reads
    # must be in `fa.diagnostics` by then
    from jaxlint.registry import all_rules
    from jaxlint.rules.jaxpr import jax206_large_program as large

    order = [r for r in all_rules() if r.phase.value == "trace"]
    producers = [i for i, r in enumerate(order) if r.trace_fact == large.EXPLAINED_BY]
    assert producers and max(producers) < order.index(large.LargeProgram)


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
                   timeout=120)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    return proc.stderr


def test_a_broken_jax_dependency_is_not_reported_as_jax_missing(tmp_path):
    # jax is installed; a dependency of it fails to import (a numpy binary mismatch)
    err = _check_with_broken_import(tmp_path, "ml_dtypes",
                                    'raise ImportError("numpy.core.multiarray failed to import")\n')
    assert "numpy.core.multiarray failed to import" in err, err
    assert "pip install 'jaxlint[dynamic]'" not in err, err


def test_missing_jax_is_named_with_the_install_hint(tmp_path):
    # what Python raises for a package that is not installed, made to happen on `import jax`
    err = _check_with_broken_import(tmp_path, "jax",
                                    'raise ModuleNotFoundError("No module named \'jax\'", name="jax")\n')
    assert "pip install 'jaxlint[dynamic]'" in err, err


# ---------------------------------------------------------------------------- PRNG keys
def test_a_typed_prng_key_argument_is_recorded_and_traced(state_project):
    root, _, check = state_project
    recorded = json.loads((root / ".jaxlint" / "signatures.json").read_text())["functions"]
    assert recorded["train:sample"]["signatures"][0]["args"][0] == "key<threefry2x32>[]"
    assert check.returncode in (0, 1), check.stderr
    assert not _findings(check, "JAX200"), check.stdout
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
    assert not _findings(proc, "JAX200"), proc.stdout


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
