"""Dynamic findings at real places: a module that fails to compile is reported at its
own file and line, never at ``<frozen importlib._bootstrap>``, in every format (SARIF
validated against the schema, GitHub annotations). Real workers, real imports."""
from __future__ import annotations

import json
import textwrap

import pytest

from helpers import run_cli
from sarif_validation import validate_sarif

pytest.importorskip("jax")

# `ast.parse` accepts it (the static phase is happy); Python's compiler does not
DOES_NOT_COMPILE = textwrap.dedent(
    """
    import jax


    @jax.jit  # jaxlint: args=(f32[4],)
    def f(x):
        return x + 1


    def g():
        nonlocal y
    """
).lstrip()

IMPORTS_BROKEN = textwrap.dedent(
    """
    import jax
    import broken_helper


    @jax.jit  # jaxlint: args=(f32[4],)
    def f(x):
        return x + 1
    """
).lstrip()


@pytest.fixture
def proj(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.jaxlint.dynamic]\nenabled = true\n")
    (tmp_path / "m.py").write_text(DOES_NOT_COMPILE)
    (tmp_path / "n.py").write_text(IMPORTS_BROKEN)
    (tmp_path / "broken_helper.py").write_text("def h(:\n    pass\n")
    return tmp_path


def _check(proj, fmt):
    r = run_cli("check", "--no-cache", "--select", "JAX200", "--output-format", fmt, "m.py", "n.py",
                cwd=proj, timeout=300)
    assert r.returncode == 1, r.stdout + r.stderr
    return r.stdout


def test_a_module_that_does_not_compile_is_reported_at_its_line(proj):
    out = _check(proj, "concise")
    assert "m.py:10:1: JAX200 could not analyze m.py: importing the module raised SyntaxError" in out, out
    # an import of a broken project module: at the import, in the checked file
    assert "n.py:2:1: JAX200 could not analyze n.py:" in out and "broken_helper.py, line 1" in out, out
    assert "<frozen" not in out


def test_sarif_and_github_locations_are_project_files(proj):
    doc = json.loads(_check(proj, "sarif"))
    validate_sarif(doc)
    places = sorted((loc["physicalLocation"]["artifactLocation"]["uri"], loc["physicalLocation"]["region"]["startLine"])
                    for res in doc["runs"][0]["results"] for loc in res["locations"])
    assert places == [("m.py", 10), ("n.py", 2)]
    gh = _check(proj, "github")
    assert "file=m.py,line=10," in gh and "file=n.py,line=2," in gh and "frozen" not in gh
