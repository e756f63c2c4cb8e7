"""``check --shard K/N`` and ``jaxlint merge``: the shards of a run, merged, are the run."""
from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from helpers import run_cli
from sarif_validation import validate_sarif
from jaxlint.sharding import parse_shard, select_shard, shard_of

N = 3

LOOP = """\
import jax


@jax.jit
def step{i}(x):
    for _ in range({n}):
        x = x + 1
    return x
"""

CAPTURE = """\
import jax
import numpy as np

TABLE = np.ones(({n}, 1024))


@jax.jit
def lookup(i):
    return TABLE[i]
"""


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    """A project of 24 files in nested packages: findings in most, some clean."""
    root = tmp_path_factory.mktemp("shards")
    (root / "pyproject.toml").write_text("[tool.jaxlint]\n")
    for i in range(24):
        pkg = root / f"pkg{i % 4}" / ("sub" if i % 3 == 0 else "")
        pkg.mkdir(parents=True, exist_ok=True)
        if i % 5 == 4:
            text = "import jax\n\n\ndef f(x):\n    return jax.numpy.sin(x)\n"
        elif i % 2:
            text = CAPTURE.format(n=1000 + i)
        else:
            text = LOOP.format(i=i, n=100 + i)
        (pkg / f"mod_{i}.py").write_text(text)
    return root


def check(cwd: Path, *args: str):
    return run_cli("check", "--no-cache", *args, cwd=cwd)


def files_of(cwd: Path, *args: str) -> list[str]:
    proc = check(cwd, "--show-files", *args)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.splitlines()


@pytest.fixture(scope="module")
def reports(corpus, tmp_path_factory) -> dict:
    """Unsharded and per-shard JSON and SARIF reports, written by the real CLI."""
    out = tmp_path_factory.mktemp("reports")
    written: dict = {"json": {}, "sarif": {}}
    for fmt in written:
        for k in [None, *range(1, N + 1)]:
            path = out / f"{k or 'all'}.{fmt}"
            shard = ["--shard", f"{k}/{N}"] if k else []
            proc = check(corpus, ".", "--output-format", fmt, "-o", str(path), *shard)
            assert proc.returncode in (0, 1), proc.stderr
            written[fmt][k] = path
    return written


def test_every_file_lands_in_exactly_one_shard(corpus):
    everything = files_of(corpus, ".")
    shards = [files_of(corpus, ".", "--shard", f"{k}/{N}") for k in range(1, N + 1)]
    assert len(everything) == 24
    assert sorted(f for s in shards for f in s) == sorted(everything)  # union, and no file twice
    assert all(shards), "24 files should reach each of 3 shards"


def test_shard_membership_does_not_depend_on_the_order_of_paths(corpus):
    dirs = [f"pkg{i}" for i in range(4)]
    forward = files_of(corpus, *dirs, "--shard", f"2/{N}")
    backward = files_of(corpus, *reversed(dirs), "--shard", f"2/{N}")
    assert sorted(forward) == sorted(backward) and forward


def test_shard_membership_does_not_depend_on_the_other_files(corpus):
    whole = set(files_of(corpus, ".", "--shard", f"1/{N}"))
    alone = set(files_of(corpus, "pkg1", "--shard", f"1/{N}"))
    assert alone == {f for f in whole if f.startswith("pkg1/")}


def test_select_shard_is_stable_under_shuffling_and_balanced():
    class Task:
        def __init__(self, display):
            self.display = display

    tasks = [Task(f"src/pkg{i % 17}/module_{i}.py") for i in range(2000)]
    shards = {k: {t.display for t in select_shard(tasks, f"{k}/4")} for k in range(1, 5)}
    shuffled = tasks[:]
    random.Random(0).shuffle(shuffled)
    assert {k: {t.display for t in select_shard(shuffled, (k, 4))} for k in range(1, 5)} == shards
    assert all(400 <= len(s) <= 600 for s in shards.values()), {k: len(s) for k, s in shards.items()}
    assert shard_of("./src/a.py", 4) == shard_of("src/a.py", 4)


@pytest.mark.parametrize("spec", ["0/3", "4/3", "1/0", "x", "1-3", "2/"])
def test_an_invalid_shard_is_a_usage_error(corpus, spec):
    proc = check(corpus, ".", "--shard", spec)
    assert proc.returncode == 2
    assert "--shard" in proc.stderr and spec in proc.stderr
    with pytest.raises(ValueError):
        parse_shard(spec)


def test_shard_with_stdin_is_a_usage_error(corpus):
    proc = run_cli("check", "--shard", "1/2", "--stdin-filename", "a.py", "-", cwd=corpus, input="import jax\n")
    assert proc.returncode == 2 and "stdin" in proc.stderr


def test_the_summary_names_the_shard(corpus):
    proc = check(corpus, ".", "--shard", f"2/{N}")
    n = len(files_of(corpus, ".", "--shard", f"2/{N}"))
    assert f"Shard 2/{N}: {n} files checked." in proc.stdout


def test_the_union_of_shard_findings_equals_the_unsharded_findings(reports):
    shard_objs = [o for k in range(1, N + 1) for o in json.loads(reports["json"][k].read_text())]
    whole = json.loads(reports["json"][None].read_text())
    assert len(whole) >= 15
    key = lambda o: json.dumps(o, sort_keys=True)  # noqa: E731
    assert sorted(map(key, shard_objs)) == sorted(map(key, whole))


def test_merging_shard_json_reproduces_the_unsharded_json_exactly(corpus, reports, tmp_path):
    out = tmp_path / "merged.json"
    shards = [str(reports["json"][k]) for k in (3, 1, 2)]
    proc = run_cli("merge", *shards, "-o", str(out), cwd=corpus)
    assert proc.returncode == 1, proc.stderr
    assert out.read_text() == reports["json"][None].read_text()


def test_merging_the_same_report_twice_does_not_double_findings(corpus, reports):
    proc = run_cli("merge", str(reports["json"][1]), str(reports["json"][1]), cwd=corpus)
    assert json.loads(proc.stdout) == json.loads(reports["json"][1].read_text())


def test_merge_accepts_json_lines_and_renders_any_check_format(corpus, reports, tmp_path):
    lines = tmp_path / "one.jsonl"
    proc = check(corpus, ".", "--shard", f"1/{N}", "--output-format", "json-lines", "-o", str(lines))
    assert proc.returncode == 1
    proc = run_cli("merge", str(lines), str(reports["json"][2]), str(reports["json"][3]),
                   "--output-format", "concise", cwd=corpus)
    assert proc.returncode == 1
    unsharded = check(corpus, ".")
    assert proc.stdout == unsharded.stdout and "Found" in proc.stdout


def _sarif_key(res: dict) -> tuple:
    loc = res["locations"][0]["physicalLocation"]
    return (res["ruleId"], loc["artifactLocation"]["uri"], json.dumps(loc["region"], sort_keys=True),
            res["message"]["text"], res["partialFingerprints"]["jaxlint/v1"])


def test_merged_sarif_validates_and_equals_the_unsharded_results(corpus, reports, tmp_path):
    out = tmp_path / "merged.sarif"
    proc = run_cli("merge", *(str(reports["sarif"][k]) for k in range(1, N + 1)), "-o", str(out), cwd=corpus)
    assert proc.returncode == 1, proc.stderr
    merged = json.loads(out.read_text())
    validate_sarif(merged)
    whole = json.loads(reports["sarif"][None].read_text())
    (run,) = merged["runs"]
    rule_ids = [r["id"] for r in run["tool"]["driver"]["rules"]]
    assert rule_ids == [r["id"] for r in whole["runs"][0]["tool"]["driver"]["rules"]]
    assert sorted(map(_sarif_key, run["results"])) == sorted(map(_sarif_key, whole["runs"][0]["results"]))
    assert len(run["invocations"]) == N


def test_merged_sarif_reindexes_rules_when_shards_saw_different_rules(corpus, tmp_path):
    only_loops = tmp_path / "loops.sarif"
    only_captures = tmp_path / "captures.sarif"
    for code, path in (("JAX102", only_loops), ("JAX101", only_captures)):
        assert check(corpus, ".", "--select", code, "--output-format", "sarif", "-o", str(path)).returncode == 1
    assert json.loads(only_captures.read_text())["runs"][0]["results"][0]["ruleIndex"] == 0
    proc = run_cli("merge", str(only_loops), str(only_captures), cwd=corpus)
    merged = json.loads(proc.stdout)
    validate_sarif(merged)  # also checks that every ruleIndex points at its ruleId
    rules = [r["id"] for r in merged["runs"][0]["tool"]["driver"]["rules"]]
    assert rules == ["JAX101", "JAX102"]
    assert {rules[r["ruleIndex"]] for r in merged["runs"][0]["results"]} == {"JAX101", "JAX102"}


def test_json_reports_merge_into_valid_sarif(corpus, reports):
    proc = run_cli("merge", *(str(reports["json"][k]) for k in range(1, N + 1)), "--output-format", "sarif",
                   cwd=corpus)
    merged = json.loads(proc.stdout)
    validate_sarif(merged)
    whole = json.loads(reports["sarif"][None].read_text())
    assert sorted(map(_sarif_key, merged["runs"][0]["results"])) == sorted(map(_sarif_key, whole["runs"][0]["results"]))


def test_merge_of_empty_reports_passes(tmp_path):
    (tmp_path / "clean.py").write_text("import jax\n\nprint(jax.numpy.zeros(3))\n")
    empty = tmp_path / "empty.json"
    empty_sarif = tmp_path / "empty.sarif"
    assert check(tmp_path, "clean.py", "--output-format", "json", "-o", str(empty)).returncode == 0
    assert check(tmp_path, "clean.py", "--output-format", "sarif", "-o", str(empty_sarif)).returncode == 0
    proc = run_cli("merge", str(empty), cwd=tmp_path)
    assert (proc.returncode, proc.stdout) == (0, "[]\n")
    proc = run_cli("merge", str(empty_sarif), str(empty_sarif), cwd=tmp_path)
    assert proc.returncode == 0
    validate_sarif(json.loads(proc.stdout))


def test_merge_exit_zero_keeps_findings_but_exits_zero(corpus, reports):
    proc = run_cli("merge", str(reports["json"][1]), "--exit-zero", cwd=corpus)
    assert proc.returncode == 0 and json.loads(proc.stdout)


def test_merge_rejects_a_file_that_is_not_a_report(corpus, tmp_path):
    bad = tmp_path / "notes.txt"
    bad.write_text("hello\n")
    proc = run_cli("merge", str(bad), cwd=corpus)
    assert proc.returncode == 2 and "notes.txt" in proc.stderr
    proc = run_cli("merge", str(tmp_path / "missing.json"), cwd=corpus)
    assert proc.returncode == 2 and "missing.json" in proc.stderr


def test_sarif_cannot_be_merged_into_json(corpus, reports):
    proc = run_cli("merge", str(reports["sarif"][1]), "--output-format", "json", cwd=corpus)
    assert proc.returncode == 2 and "SARIF" in proc.stderr


def test_merge_reports_a_failed_shard_with_exit_two(corpus, reports, tmp_path):
    failed = json.loads(reports["sarif"][1].read_text())
    failed["runs"][0]["invocations"] = [{"executionSuccessful": False, "toolExecutionNotifications": [
        {"level": "error", "message": {"text": "pkg0/x.py: rule JAX101 failed: boom"}}]}]
    path = tmp_path / "failed.sarif"
    path.write_text(json.dumps(failed))
    proc = run_cli("merge", str(path), str(reports["sarif"][2]), cwd=corpus)
    assert proc.returncode == 2 and "boom" in proc.stderr
    validate_sarif(json.loads(proc.stdout))
