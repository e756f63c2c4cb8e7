"""Observed analysis: `jaxlint record` analyses every jitted function a real program
runs, inside the program, and `jaxlint check --dynamic --compile` reports it.

The programs live in `tests/data/observed/`, written the way real ones are: steps built
inside `main()` and factories, rebound to their own name, jitted inline in a loop, a
method, a `functools.partial` over a frozen model, a function defined under
`__main__`, a ragged last batch, a flax linen `TrainState` step, a jitted helper called inside another's trace; a
module run with `python -m` whose configuration reads `sys.argv` at import; functions
called from a thread and from forked and spawned processes; a pytest suite; a program
interrupted by Ctrl-C and one that leaves through `os._exit`. Every `# JAX2xx` /
`# JAX3xx` comment marks a line the dynamic phase must report, and nothing else of
those tiers fires. Real subprocesses, real jax."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import marked, run_cli


DATA = Path(__file__).resolve().parent / "data" / "observed"


class Trial:
    def __init__(self, root: Path) -> None:
        self.root = root
        pipe = {"PYTHONPATH": "src"}
        self.records = {
            "train": run_cli("record", "--compile", "--keep-ir", "--", "python", "train.py", "--batch", "32",
                             cwd=root, timeout=600),
            "linen": run_cli("record", "--", "python", "linen_train.py", cwd=root, timeout=600),
            "workers": run_cli("record", "--", "python", "workers.py", cwd=root, timeout=600),
            "interrupted": run_cli("record", "--", "python", "interrupted.py", cwd=root, timeout=600),
            "exits": run_cli("record", "--", "python", "exits.py", cwd=root, timeout=600),
            "pytest": run_cli("record", "--", "pytest", "-q", "-p", "no:cacheprovider", "tests", cwd=root,
                              timeout=600),
            "pipeline": run_cli("record", "--", "python", "-m", "pipeline.stages", "--data", "synthetic", cwd=root,
                                env=pipe, timeout=600),
        }
        self.check = run_cli("check", "--dynamic", "--compile", "--no-cache", "--output-format", "json",
                             "--report", "run.json", cwd=root, timeout=600)
        self.findings = json.loads(self.check.stdout or "[]")
        self.summary = run_cli("check", "--dynamic", "--compile", "--show-skipped", cwd=root, timeout=600).stdout
        self.observed = json.loads((root / ".jaxlint" / "observed.json").read_text())["functions"]

    def dynamic(self) -> set[tuple[str, int, str]]:
        return {(d["filename"], d["location"]["row"], d["code"]) for d in self.findings
                if d["code"][:4] in ("JAX2", "JAX3")}

    def finding(self, code: str, line: int, path: str = "train.py") -> dict:
        [d] = [d for d in self.findings if d["code"] == code and d["filename"] == path
               and d["location"]["row"] == line]
        return d


@pytest.fixture(scope="module")
def trial(tmp_path_factory) -> Trial:
    root = tmp_path_factory.mktemp("observed") / "proj"
    shutil.copytree(DATA, root)
    return Trial(root)


def test_every_planted_problem_is_reported_at_its_line(trial):
    for name, rec in trial.records.items():
        assert "jaxlint record:" in rec.stderr, (name, rec.stderr[-2000:])
    assert trial.check.returncode == 1, trial.check.stderr
    assert trial.dynamic() == marked(trial.root, r"JAX[23]\d\d"), trial.check.stdout[-4000:]


def test_the_program_s_jitted_functions_are_all_analysed(trial):
    rec = trial.records["train"]
    assert rec.returncode == 0, rec.stderr[-3000:]
    # 10 jitted functions ran: 9 on their own (all traced and compiled), `clip` only
    # inside train_step's trace; none missed
    assert ("jaxlint record: 10 jitted functions called: 9 traced, 9 compiled, 1 only inside other jitted "
            "functions (analysed as part of them); 9 findings") in rec.stderr, rec.stderr[-2000:]
    mine = {k: e for k, e in trial.observed.items() if e["file"] == "train.py"}
    assert {e["qualname"] for e in mine.values()} == {
        "make_train_step.<locals>.train_step", "clip", "Evaluator.score", "apply_decay", "spread",
        "main.<locals>.normalize", "<lambda>@86", "mlp", "<lambda>@95", "report"}
    assert mine["train:clip"]["status"] == "inlined"
    analysed = [e for e in mine.values() if e["traced"] or e["status"] == "inlined"]
    assert len(analysed) / len(mine) >= 0.95


def test_the_compile_tier_reads_what_the_program_compiled_and_compiles_nothing_again(trial):
    reports = {e["qualname"]: e["report"] for e in trial.observed.values() if e["file"] == "train.py" and e["report"]}
    assert len(reports) == 9
    assert all(r["observed"] and "compiled_again" not in r for r in reports.values()), reports
    # no lowering, no compile of ours (timings are left out of the committed observed.json,
    # so this holds where a report still carries one)
    assert all(r.get("lower_seconds", 0.0) == 0.0 for r in reports.values())


def test_recompilation_is_reported_at_the_call_that_compiled_again(trial):
    step = trial.finding("JAX208", 83)
    assert "`x` changes shape (32, 64) -> (20, 64); `y` changes shape (32, 8) -> (20, 8)" in step["message"]
    assert "smaller final batch" in step["message"]
    assert [(r["filename"], r["location"]["row"]) for r in step["related"]] == [("train.py", 28)]  # the jit line
    rejit = trial.finding("JAX208", 95)
    assert "compiled 3 times for the same signature" in rejit["message"]
    # the static guess at that line (a jit wrapper built in a loop) is the same problem: one finding
    assert not [d for d in trial.findings if d["code"] == "JAX103" and d["location"]["row"] == 95]
    # `clip` is called inside train_step's trace with each parameter's shape: no compile of its own
    assert not [d for d in trial.findings if d["code"] == "JAX208" and "clip" in d["message"]]


def test_a_captured_array_is_reported_where_it_is_captured(trial):
    bound = trial.finding("JAX201", 91)  # jax.jit(functools.partial(mlp, big))
    assert bound["message"].startswith("captured array `big['w1']` (float32[64,8192], 2.0 MiB)")
    assert ("train.py", 19) in {(r["filename"], r["location"]["row"]) for r in bound["related"]}  # its use in mlp
    table = trial.finding("JAX201", 86)  # the lambda that reads the global
    assert "`CLASS_TABLE`" in table["message"]
    assert ("train.py", 15) in {(r["filename"], r["location"]["row"]) for r in table["related"]}  # assigned there


def test_observations_are_keyed_by_content_versions_and_rules(trial):
    import hashlib

    entry = trial.observed["train:main.<locals>.normalize"]
    # the code it rests on: the function itself, and `main`, where its finding (the call
    # that compiled again) is; each with the digest of its source
    scopes = entry["code"]["train.py"]
    assert set(entry["code"]) == {"train.py"} and {"main.normalize", "main"} <= set(scopes), entry["code"]
    lines = (trial.root / "train.py").read_text().splitlines()
    n = scopes["main.normalize"]
    text = "\n".join(lines[n["line"] - 1:n["end"]])
    assert n["digest"] == hashlib.sha256(text.encode()).hexdigest()[:20] and text.lstrip().startswith("def normalize")
    assert set(entry["versions"]) == {"jax", "jaxlib", "backend"} and entry["levels"] == ["trace", "compile"]
    assert entry["calls"] == 5 and entry["compiles"] == 2 and entry["first_call"] == "train.py:81"


def test_a_program_interrupted_or_leaving_through_os_exit_keeps_what_was_observed(trial):
    interrupted, exits = trial.records["interrupted"], trial.records["exits"]
    assert interrupted.returncode == 130 and "stopped by SIGINT" in interrupted.stderr, interrupted.stderr[-2000:]
    assert exits.returncode == 3, exits.stderr[-2000:]
    assert trial.observed["interrupted:before_the_interrupt"]["traced"]
    assert trial.observed["exits:before_the_exit"]["traced"]


def test_a_linen_train_state_step_compiles_once_per_batch_size(trial):
    # `TrainState.create` stores step=0 as a Python int, then the weak int32[] the
    # step returns: jit compiles both alike, so only the smaller last batch recompiles
    entry = trial.observed["linen_train:main.<locals>.train_step"]
    assert entry["compiles"] == 2 and entry["calls"] == 8
    assert "`x` changes shape (32, 32) -> (4, 32)" in trial.finding("JAX208", 40, "linen_train.py")["message"]


def test_threads_and_forked_and_spawned_processes_are_recorded(trial):
    rec = trial.records["workers"]
    assert rec.returncode == 0, rec.stderr[-3000:]
    assert trial.observed["workers:in_thread"]["calls"] == 1
    assert trial.observed["workers:in_child"]["calls"] == 2  # one call in each child, merged


def test_a_test_suite_records_the_functions_its_tests_jit(trial):
    entry = trial.observed["tests.test_metrics:test_accuracy_of_a_jitted_metric.<locals>.accuracy"]
    assert entry["traced"] and entry["file"] == "tests/test_metrics.py"


def test_a_recorded_script_is_imported_with_its_argv_and_a_slow_import_is_explained(trial):
    # `unused_by_the_run` was not called: the worker imported the module (which exits
    # without `--data` on its command line) with the recorded argv, and traced it
    assert ("src/pipeline/stages.py", 29, "JAX202") in trial.dynamic()
    assert not [d for d in trial.findings if d["code"] == "JAX200"], trial.check.stdout[-3000:]
    assert "note: importing src/pipeline/stages.py took" in trial.check.stderr + trial.summary, trial.summary


def test_the_summary_counts_observed_functions(trial):
    # `pipeline.stages.loss` is rebound to its own jit (`loss = jax.jit(loss)`): the static jit
    # map knows it and a same-file call gives its inputs, so `check --dynamic --compile`
    # traces and compiles it itself rather than reporting the trace-only observation
    assert ("observed by `jaxlint record` in the running program: 12 jitted functions called: 11 traced, 9 "
            "compiled, 1 only inside other jitted functions (analysed as part of them)") in trial.summary, trial.summary
    assert "stages.py:15 loss: not compiled" not in trial.summary
    rows = json.loads((trial.root / "run.json").read_text())["functions"]
    observed = [r for r in rows if (r["report"] or {}).get("observed")]
    assert len(observed) == 9  # the --compile recording of train.py


def test_inspect_shows_an_observed_closure_from_the_kept_programs(trial):
    proc = run_cli("inspect", "train.py::normalize", cwd=trial.root, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert "train.py::main.<locals>.normalize  (inputs: observed by `jaxlint record`, first called at train.py:81)" \
        in proc.stdout
    assert "== optimized HLO (what XLA compiled) ==" in proc.stdout
    no_ir = run_cli("inspect", "workers.py::in_thread_nope", cwd=trial.root, timeout=600)
    assert no_ir.returncode == 2


def test_edited_code_makes_observations_out_of_date(trial, tmp_path):
    root = tmp_path / "proj"
    shutil.copytree(trial.root, root)
    train = root / "train.py"
    text = train.read_text()
    train.write_text(text + "\n# edited after the recording\n")  # elsewhere: every observation holds
    unrelated = run_cli("check", "--dynamic", "--no-cache", "--select", "JAX2", "train.py", cwd=root, timeout=600)
    assert "out of date" not in unrelated.stdout and "train.py:83" in unrelated.stdout, unrelated.stdout
    # inside `loss_fn`, which only train_step's trace entered
    train.write_text(text.replace("jnp.mean((mlp(params, x) - y) ** 2)", "jnp.mean(jnp.abs(mlp(params, x) - y))"))
    proc = run_cli("check", "--dynamic", "--no-cache", "--show-skipped", "--select", "JAX2", "train.py", cwd=root,
                   timeout=600)
    assert "1 observed function (" in proc.stdout and "out of date since `jaxlint record`; run it again:" \
        in proc.stdout, proc.stdout
    assert ("train.py:29 make_train_step.<locals>.train_step (changed: train.py: `make_train_step.loss_fn`)"
            in proc.stdout), proc.stdout
    assert ("skipped train.py:28 make_train_step.<locals>.train_step: its observation by `jaxlint record` is out of "
            "date (the code or the rules' settings changed), and defined inside a function") in proc.stdout
    # the closures only the program can reach are no longer reported
    assert "train.py:83" not in proc.stdout


def test_concurrent_recordings_merge_into_one_file(tmp_path):
    root = tmp_path / "proj"
    shutil.copytree(DATA, root)
    env = dict(os.environ)
    env.pop("JAXLINT_OUTPUT_FORMAT", None)
    procs = [subprocess.Popen([sys.executable, "-m", "jaxlint", "record", "--", "python", script], cwd=root,
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
             for script in ("interrupted.py", "exits.py")]
    for p in procs:
        p.communicate(timeout=300)
    observed = json.loads((root / ".jaxlint" / "observed.json").read_text())["functions"]
    recorded = json.loads((root / ".jaxlint" / "signatures.json").read_text())["functions"]
    assert {"interrupted:before_the_interrupt", "exits:before_the_exit"} <= set(observed) & set(recorded)


@pytest.mark.parametrize("damage", [
    "[1, 2]",
    '{"functions": {"m:f": 5}}',
    '{"functions": {"m:f": {"file": "m.py", "qualname": "f", "files": {"m.py": 3}, "diagnostics": []}}}',
    '{"functions": {"m:f": {"file": "m.py", "qualname": "f", "files": {}, "diagnostics": [{"code": "JAX201"}]}}}',
    '{"functions": {}, "programs": "x"}',
])
def test_a_damaged_observations_file_is_a_one_line_error(tmp_path, damage):
    (tmp_path / "pyproject.toml").write_text("[tool.jaxlint]\n")
    (tmp_path / "m.py").write_text("import jax\n\n@jax.jit\ndef f(x):\n    return x\n")
    (tmp_path / ".jaxlint").mkdir()
    (tmp_path / ".jaxlint" / "observed.json").write_text(damage)
    proc = run_cli("check", "--dynamic", "--no-cache", "m.py", cwd=tmp_path, timeout=600)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    [line] = proc.stderr.strip().splitlines()
    assert "observed.json" in line and "Traceback" not in proc.stderr
