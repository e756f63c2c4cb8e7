"""A new user's run on real flax NNX and equinox projects: `jaxlint record -- python
train.py`, then `jaxlint check --dynamic` (and `--compile`).

The projects live in `tests/data/frameworks/`; every `# JAX2xx` comment marks a line
the trace tier must report there, and nothing else of the trace tier fires. Each
project is recorded and checked once (module-scoped runs); the tests read those runs.
They skip when flax / equinox / optax are not installed."""
from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import pytest

from helpers import marked, run_cli

DATA = Path(__file__).resolve().parent / "data" / "frameworks"


def _needs(*modules: str):
    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    return pytest.mark.skipif(bool(missing), reason=f"needs {', '.join(missing)} (pip install {' '.join(missing)})")


class Run:
    """One project copied to a temporary folder, recorded and checked."""

    def __init__(self, name: str, tmp: Path, command: list[str], env: dict | None = None) -> None:
        self.root = tmp / name
        shutil.copytree(DATA / name, self.root)
        self.env = env or {}
        self.record = run_cli("record", "--", *command, cwd=self.root, env=self.env, timeout=600)
        self.signatures = self.root / ".jaxlint" / "signatures.json"
        self.recorded = self.signatures.read_text() if self.signatures.exists() else "{}"
        self.check = run_cli("check", "--dynamic", "--no-cache", "--show-skipped", "--output-format", "json",
                             cwd=self.root, timeout=600)
        self.findings = json.loads(self.check.stdout or "[]")
        self.compiled = run_cli("check", "--compile", "--no-cache", "--show-skipped", cwd=self.root, timeout=600)

    def trace_findings(self) -> set[tuple[str, int, str]]:
        return {(d["filename"], d["location"]["row"], d["code"]) for d in self.findings if d["code"].startswith("JAX2")}

    def functions(self) -> dict:
        return json.loads(self.recorded)["functions"]


@pytest.fixture(scope="module")
def eqx_run(tmp_path_factory):
    return Run("equinox_project", tmp_path_factory.mktemp("eqx"), ["python", "train.py"])


@pytest.fixture(scope="module")
def nnx_run(tmp_path_factory):
    # a src/ layout, run as the user would after `pip install -e .`
    return Run("flax_project", tmp_path_factory.mktemp("nnx"), ["python", "-m", "nnxproj.train"],
               env={"PYTHONPATH": "src"})


# ---------------------------------------------------------------------------- equinox
@_needs("equinox", "optax")
def test_equinox_training_script_runs_under_record_and_keys_filter_jit_like_the_jit_map(eqx_run):
    assert eqx_run.record.returncode == 0, eqx_run.record.stderr[-3000:]
    functions = eqx_run.functions()
    assert sorted(functions) == ["model:Encoder.embed", "train:predict", "train:rescale", "train:spectral_features",
                                 "train:summarize", "train:train_step"]
    assert {e["transform"] for e in functions.values()} == {"filter_jit"}
    model = functions["train:train_step"]["signatures"][0]["args"][0]
    assert model["opaque"] == "model.Encoder"
    assert model["leaves"][".cell.weight"] == "f32[32,32]"


@_needs("equinox", "optax")
def test_equinox_planted_problems_are_reported_at_their_lines(eqx_run):
    assert eqx_run.trace_findings() == marked(eqx_run.root, r"JAX2\d\d"), eqx_run.check.stdout[-3000:]
    assert {c for *_, c in eqx_run.trace_findings()} == {f"JAX20{i}" for i in range(1, 10)}


@_needs("equinox", "optax")
def test_equinox_recompilation_names_the_arguments_that_change(eqx_run):
    msg = next(d["message"] for d in eqx_run.findings if d["code"] == "JAX208")
    assert msg.endswith("`xs` changes shape (16, 8, 32) -> (10, 8, 32); `labels` changes shape (16,) -> (10,) "
                        "(a smaller final batch or sequence: pad it to the full size or drop it)")


@_needs("equinox", "optax")
def test_summary_says_what_was_analysed_and_why_a_function_was_skipped(eqx_run):
    summary = eqx_run.compiled.stdout
    # `rescale` takes a lock, which no pickle can save for a worker: the recording traced
    # it in the program; without `record --compile` nothing compiled it
    assert "8 functions analysed, 0 skipped, 0 failed" in summary, summary
    assert ("train.py:56 rescale: not compiled: `jaxlint record` ran without --compile, and the function is not "
            "reachable after import") in summary


@_needs("equinox", "optax")
def test_recorded_models_are_compiled_by_the_compile_tier(eqx_run):
    summary = eqx_run.compiled.stdout
    assert "Dynamic phase (trace+compile;" in summary and "JAX200" not in summary, summary
    assert "train.py:23 train_step: not compiled: the trace tier found a program above the equation budget" in summary


@_needs("equinox", "optax")
def test_record_is_stable_across_runs_including_the_saved_models(eqx_run):
    pickles = sorted(p.name for p in (eqx_run.root / ".jaxlint" / "signatures.pickles").iterdir())
    assert pickles and all(len(p) == len("x" * 64 + ".pickle") for p in pickles)
    again = run_cli("record", "--", "python", "train.py", cwd=eqx_run.root, timeout=600)
    assert again.returncode == 0
    assert eqx_run.signatures.read_text() == eqx_run.recorded
    assert sorted(p.name for p in (eqx_run.root / ".jaxlint" / "signatures.pickles").iterdir()) == pickles


# ---------------------------------------------------------------------------- flax NNX
@_needs("flax", "optax")
def test_nnx_training_script_records_only_the_projects_functions(nnx_run):
    assert nnx_run.record.returncode == 0, nnx_run.record.stderr[-3000:]
    functions = nnx_run.functions()
    # nnx.jit calls jax.jit on its own wrapper of the user's function: not recorded twice
    assert sorted(functions) == ["nnxproj.train:evaluate", "nnxproj.train:predict",
                                 "nnxproj.train:smoothed_targets", "nnxproj.train:train_step"]
    step = functions["nnxproj.train:train_step"]
    assert step["transform"] == "nnx.jit" and len(step["signatures"]) == 2
    model, optimizer = step["signatures"][0]["args"][:2]
    assert model["opaque"] == "nnxproj.model.Classifier"
    assert optimizer["opaque"].endswith("Optimizer")
    assert any(v.startswith("key<") for v in model["leaves"].values())  # dropout's PRNG key


@_needs("flax", "optax")
def test_nnx_planted_problems_are_reported_at_their_lines(nnx_run):
    assert nnx_run.trace_findings() == marked(nnx_run.root, r"JAX2\d\d"), nnx_run.check.stdout[-3000:]
    assert {c for *_, c in nnx_run.trace_findings()} == {f"JAX20{i}" for i in range(10)}


@_needs("flax", "optax")
def test_nnx_fault_in_user_code_is_a_finding_and_the_rest_goes_on(nnx_run):
    failed = [d for d in nnx_run.findings if d["code"] == "JAX200"]
    assert [(d["filename"], d["location"]["row"]) for d in failed] == [("src/nnxproj/export.py", 6)]
    assert "called sys.exit" in failed[0]["message"]
    assert "6 functions analysed, 0 skipped, 1 failed" in nnx_run.compiled.stdout, nnx_run.compiled.stdout


@_needs("flax", "optax")
def test_nnx_models_and_optimizers_compile(nnx_run):
    out = nnx_run.compiled.stdout
    assert "Dynamic phase (trace+compile;" in out
    assert [ln for ln in out.splitlines() if "JAX200" in ln and "export.py" not in ln] == []


@_needs("equinox", "optax")
def test_inspect_traces_a_recorded_function_whose_argument_is_a_saved_model(eqx_run):
    # `predict(model, xs)`: the model comes only from the recording's saved pickle
    proc = run_cli("inspect", "train.py::predict", "--stage", "jaxpr", "--no-cache", cwd=eqx_run.root, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "(inputs: recorded" in proc.stdout and "dot_general" in proc.stdout, proc.stdout
