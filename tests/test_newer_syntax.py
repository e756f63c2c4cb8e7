"""A file in syntax of a newer Python than the one jaxlint runs on (PEP 695 under 3.11)
is not a finding: one line of the summary names the files not checked, and the run does
not fail for them (issue 36). Real CLI runs."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sarif_validation import validate_sarif

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.skipif(sys.version_info >= (3, 12), reason="3.12 parses PEP 695")


def jaxlint(tmp: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "jaxlint", "check", "--isolated", "--no-cache", *args],
                          cwd=tmp, env=env, capture_output=True, text=True, timeout=120)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "alias.py").write_text("import jax\ntype Vector = list[float]\n")
    (tmp_path / "generic.py").write_text("import jax\n\n\ndef first[T](xs: list[T]) -> T:\n    return xs[0]\n")
    (tmp_path / "ok.py").write_text("import jax\n\n\ndef f(x):\n    return x\n")
    return tmp_path


def test_the_summary_names_the_files_not_checked_and_the_run_passes(project):
    r = jaxlint(project, ".")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "JAX100" not in r.stdout
    assert ("2 files not checked: syntax of a newer Python than 3.11, which runs jaxlint: alias.py:2, "
            "generic.py:4; run jaxlint on Python 3.12 or newer to check them.") in r.stdout


def test_json_has_no_finding_and_the_line_goes_to_stderr(project):
    r = jaxlint(project, "--output-format", "json", "alias.py", "ok.py")
    assert r.returncode == 0 and json.loads(r.stdout) == []
    assert r.stderr == ("jaxlint: 1 file not checked: syntax of a newer Python than 3.11, which runs jaxlint: "
                        "alias.py:2; run jaxlint on Python 3.12 or newer to check it.\n")


def test_sarif_carries_a_note_per_file_not_checked(project):
    r = jaxlint(project, "--output-format", "sarif", "alias.py")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    validate_sarif(doc)
    run = doc["runs"][0]
    assert run["results"] == []
    [note] = run["invocations"][0]["toolExecutionNotifications"]
    assert note["level"] == "note" and "Python 3.12" in note["message"]["text"]
    assert note["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "alias.py"


def test_a_real_syntax_error_still_fails(project):
    (project / "broken.py").write_text("import jax\ndef f(x:\n")
    r = jaxlint(project, "broken.py", "alias.py")
    assert r.returncode == 1 and "broken.py:2:" in r.stdout and "JAX100" in r.stdout
    assert "1 file not checked" in r.stdout
