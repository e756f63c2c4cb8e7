"""Baselines through the real CLI: record today's findings, fail only on new ones,
report and prune stale entries."""
from __future__ import annotations

import json
import textwrap

import pytest

from helpers import run_cli

LOOP = "    for i in range(500):\n        x = x + i\n"
MODULE = textwrap.dedent(
    """
    import jax
    import numpy as np
    W = np.ones((1024, 1024))

    @jax.jit
    def f(x):
        return x @ W

    @jax.jit
    def g(x):
    {loops}    return x
    """
).lstrip()


def _module(loops: int = 1, header: str = "") -> str:
    return header + MODULE.format(loops=LOOP * loops)


@pytest.fixture
def proj(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "m.py").write_text(_module())
    (tmp_path / "other.py").write_text(_module())
    r = run_cli("check", "--no-cache", "--write-baseline", "ci/baseline.json", ".", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "wrote 4 findings" in r.stderr
    return tmp_path


def _gate(proj, *args):
    return run_cli("check", "--no-cache", "--baseline", "ci/baseline.json", *args, cwd=proj)


def test_baseline_file_is_sorted_json_with_paths_relative_to_it(proj):
    data = json.loads((proj / "ci" / "baseline.json").read_text())
    assert data["version"] == 1
    keys = [(e["path"], e["code"], e["signature"]) for e in data["findings"]]
    assert keys == sorted(keys)
    assert {e["path"] for e in data["findings"]} == {"../other.py", "../pkg/m.py"}
    assert {(e["code"], e["name"], e["signature"]) for e in data["findings"]} == {
        ("JAX101", "captured-array", "f:W"),
        ("JAX102", "python-loop-in-jit", "g:for i in range(500): x = x + i"),
    }
    assert all(e["count"] == 1 for e in data["findings"])


def test_writing_the_baseline_twice_gives_identical_bytes(proj):
    before = (proj / "ci" / "baseline.json").read_bytes()
    run_cli("check", "--no-cache", "--write-baseline", "ci/baseline.json", ".", cwd=proj)
    assert (proj / "ci" / "baseline.json").read_bytes() == before


def test_baselined_findings_pass_the_gate(proj):
    r = _gate(proj, ".")
    assert r.returncode == 0, r.stdout
    assert "All checks passed!" in r.stdout and "4 baselined findings not shown" in r.stdout
    assert "stale" not in r.stderr


def test_edits_to_unrelated_lines_above_do_not_make_findings_new(proj):
    header = '"""A docstring."""\nimport os\n\nPATH = os.sep\n\n\n'
    (proj / "pkg" / "m.py").write_text(_module(header=header))
    r = _gate(proj, ".")
    assert r.returncode == 0, r.stdout


def test_a_second_identical_finding_in_the_same_function_is_exactly_one_new(proj):
    (proj / "pkg" / "m.py").write_text(_module(loops=2))
    r = _gate(proj, "--output-format", "json", ".")
    assert r.returncode == 1
    [new] = json.loads(r.stdout)
    assert new["code"] == "JAX102" and new["filename"] == "pkg/m.py"
    assert new["location"]["row"] == 13, "the later of the two identical loops is the new one"


def test_fixing_a_finding_reports_a_stale_entry_and_prune_removes_it(proj):
    (proj / "pkg" / "m.py").write_text(_module(loops=0).replace("return x @ W", "return x"))
    r = _gate(proj, ".")
    assert r.returncode == 0
    assert "2 findings in ci/baseline.json no longer found (stale)" in r.stderr
    before = (proj / "ci" / "baseline.json").read_text()
    r = _gate(proj, "--prune-baseline", ".")
    assert r.returncode == 0 and "pruned 2 findings" in r.stderr
    after = json.loads((proj / "ci" / "baseline.json").read_text())
    assert len(json.loads(before)["findings"]) == 4
    assert {e["path"] for e in after["findings"]} == {"../other.py"}
    assert "stale" not in _gate(proj, ".").stderr


def test_count_drops_when_one_of_two_identical_findings_is_fixed(proj):
    (proj / "pkg" / "m.py").write_text(_module(loops=2))
    run_cli("check", "--no-cache", "--write-baseline", "ci/baseline.json", ".", cwd=proj)
    counts = {(e["path"], e["code"]): e["count"] for e in json.loads((proj / "ci/baseline.json").read_text())["findings"]}
    assert counts[("../pkg/m.py", "JAX102")] == 2
    (proj / "pkg" / "m.py").write_text(_module(loops=1))
    r = _gate(proj, "--prune-baseline", ".")
    assert r.returncode == 0 and "pruned 1 finding " in r.stderr
    counts = {(e["path"], e["code"]): e["count"] for e in json.loads((proj / "ci/baseline.json").read_text())["findings"]}
    assert counts[("../pkg/m.py", "JAX102")] == 1


def test_files_outside_the_run_and_rules_not_selected_are_never_stale(proj):
    r = _gate(proj, "--prune-baseline", "--select", "JAX101", "pkg/m.py")
    assert r.returncode == 0 and "stale" not in r.stderr and "pruned" not in r.stderr
    assert len(json.loads((proj / "ci" / "baseline.json").read_text())["findings"]) == 4


def test_a_deleted_file_makes_its_entries_stale(proj):
    (proj / "other.py").unlink()
    r = _gate(proj, "pkg/m.py")
    assert r.returncode == 0 and "2 findings in ci/baseline.json no longer found" in r.stderr


def test_a_file_that_stops_parsing_keeps_its_entries(proj):
    (proj / "pkg" / "m.py").write_text("import jax\ndef f(x:\n")
    r = _gate(proj, "--prune-baseline", ".")
    assert r.returncode == 1 and "JAX100" in r.stdout and "stale" not in r.stderr
    assert len(json.loads((proj / "ci" / "baseline.json").read_text())["findings"]) == 4


def test_a_missing_or_broken_baseline_is_an_error_naming_the_file(proj):
    r = run_cli("check", "--baseline", "nope.json", ".", cwd=proj)
    assert r.returncode == 2 and "nope.json" in r.stderr
    (proj / "bad.json").write_text('{"findings": 3}')
    r = run_cli("check", "--baseline", "bad.json", ".", cwd=proj)
    assert r.returncode == 2 and "bad.json" in r.stderr and "not a jaxlint baseline" in r.stderr


def test_prune_baseline_needs_a_baseline(proj):
    r = run_cli("check", "--prune-baseline", ".", cwd=proj)
    assert r.returncode == 2 and "--baseline" in r.stderr
