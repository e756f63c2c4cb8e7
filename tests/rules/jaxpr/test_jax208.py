"""JAX208 recompilation: tests beyond the rule's VALID/INVALID examples (which
tests/test_dynamic_rule_examples.py runs): the changed leaves of recorded signatures, in
readable clauses; real `check --dynamic` runs on signature files."""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from helpers import json_findings, run_cli


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
    [d] = json_findings(proc)
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
    assert [d["message"].split("): ", 1)[1] for d in json_findings(proc)] == [
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
    changes = [d["message"].split("): ", 1)[1] for d in json_findings(proc)]
    assert changes == ["`state<leaf 1>` changes dtype float32 -> bfloat16 (the dtype drifts between calls)"]


def test_a_function_only_a_test_suite_called_is_left_alone_unless_check_tests(tmp_path):
    # `jaxlint record -- pytest`: a parameterised test calls one jitted function with
    # eleven shapes; in a test suite that is the point, in a program it is churn
    (tmp_path / "pyproject.toml").write_text('[tool.jaxlint]\nselect = ["JAX208"]\n')
    (tmp_path / "norm.py").write_text(
        "import jax\nimport jax.numpy as jnp\n\n\n@jax.jit\ndef normalize(x):\n    return x / jnp.linalg.norm(x)\n")
    (tmp_path / "test_norm.py").write_text(
        "import jax.numpy as jnp\nimport pytest\nfrom norm import normalize\n\n\n"
        "@pytest.mark.parametrize('n', range(1, 12))\ndef test_shape(n):\n"
        "    assert normalize(jnp.ones((n, 3))).shape == (n, 3)\n")
    rec = run_cli("record", "--", "python", "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_norm.py",
                  cwd=tmp_path, timeout=300)
    assert rec.returncode == 0, rec.stdout + rec.stderr
    proc = run_cli("check", "--dynamic", "--no-cache", "--output-format", "json", ".", cwd=tmp_path, timeout=300)
    assert json_findings(proc) == []
    with (tmp_path / "pyproject.toml").open("a") as f:
        f.write("[tool.jaxlint.rules.JAX208]\ncheck-tests = true\n")
    proc = run_cli("check", "--dynamic", "--no-cache", "--output-format", "json", ".", cwd=tmp_path, timeout=300)
    # the recording was made under other options: the worker runs the rule again on
    # the recorded signatures, at the jit site
    [d] = json_findings(proc)
    assert "11 different signatures" in d["message"], d


def test_every_recorded_signature_is_counted_with_no_cap(tmp_path):
    # issue 22 item 8: 1,000 recorded shapes are 1,000 signatures, not 64
    sizes = [(7 * i) % 1000 + 1 for i in range(1000)]  # all distinct, in no steady order
    root = _signatures_project(tmp_path, [
        {"args": [{"array": [n, 4], "dtype": "float32", "weak": False}, {"value": None}], "kwargs": {}, "calls": 1}
        for n in sizes])
    proc = run_cli("check", "--dynamic", "--no-cache", "--output-format", "json", cwd=root, timeout=300)
    [d] = json_findings(proc)
    assert "compiled for 1000 different signatures" in d["message"]
    assert d["data"]["signatures"] == 1000
    assert "and 988 more" in d["message"]  # the calls of the first dozen are listed
