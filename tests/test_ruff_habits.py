"""What a ruff or flake8 user types (issue 38): the flags with an equal work as in ruff
(`--extend-ignore`, `-n`, `--no-fix`); the others, and ruff's output formats jaxlint does
not write, are one line naming what to use, exit 2. The real CLI."""
from __future__ import annotations

import pytest

from helpers import run_cli

#: the sample's rule, JAX104 (the nursery's: off by default), turned on for every run
ON = ("--extend-select", "JAX104")
CODE = "import jax\nimport numpy as np\n\n\n@jax.jit\ndef f(x):\n    return np.sin(x)\n"


@pytest.fixture
def project(tmp_path):
    (tmp_path / "m.py").write_text(CODE)
    return tmp_path


def test_extend_ignore_adds_to_ignore(project):
    assert "JAX104" in run_cli("check", *ON, "--isolated", "m.py", cwd=project).stdout
    for args in (("--extend-ignore", "JAX104"), ("--ignore", "JAX101", "--extend-ignore", "JAX104")):
        r = run_cli("check", *ON, "--isolated", *args, "m.py", cwd=project)
        assert r.returncode == 0 and "JAX104" not in r.stdout, (args, r.stdout, r.stderr)


def test_n_is_no_cache_and_no_fix_undoes_fix(project):
    r = run_cli("check", *ON, "--isolated", "-n", "--fix", "--unsafe-fixes", "--no-fix", "m.py", cwd=project)
    assert r.returncode == 1 and "JAX104" in r.stdout, r.stderr
    assert (project / "m.py").read_text() == CODE and not (project / ".jaxlint_cache").exists()


@pytest.mark.parametrize("flag, instead", [
    ("--count", "--statistics"), ("--fix-only", "--fix --exit-zero"), ("--exit-non-zero-on-fix", "--diff"),
    ("--show-source", "--output-format full")])
def test_ruff_flags_without_an_equal_say_what_to_use(project, flag, instead):
    r = run_cli("check", *ON, "--isolated", flag, "m.py", cwd=project)
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert f"{flag} is ruff's" in r.stderr and instead in r.stderr


@pytest.mark.parametrize("fmt, instead", [("grouped", "`full`"), ("pylint", "`concise`"), ("azure", "`sarif`"),
                                          ("rdjson", "`sarif`")])
def test_ruff_output_formats_say_what_to_use(project, fmt, instead):
    r = run_cli("check", *ON, "--isolated", "--output-format", fmt, "m.py", cwd=project)
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert f"unknown format `{fmt}` (ruff's); use {instead}" in r.stderr


@pytest.mark.parametrize("comment, hidden", [("# ruff: noqa", True), ("# flake8: noqa", True),
                                             ("# ruff: noqa: JAX104", True), ("# ruff: noqa: JAX101", False),
                                             ("# flake8: noqa: JAX104", False), ("# jaxlint: noqa", True)])
def test_file_level_noqa_of_ruff_and_flake8_as_ruff_reads_them(project, comment, hidden):
    """ruff honours `# ruff: noqa` (codes too) and flake8's `# flake8: noqa` file-wide, and
    ignores `# flake8: noqa: CODES` (flake8 takes no codes there)."""
    (project / "m.py").write_text(f"{comment}\n{CODE}")
    r = run_cli("check", *ON, "--isolated", "-n", "m.py", cwd=project)
    assert ("JAX104" not in r.stdout) is hidden, r.stdout


def test_noqa_by_rule_name_suppresses_as_select_names_it(project):
    (project / "m.py").write_text(CODE.replace("np.sin(x)", "np.sin(x)  # noqa: numpy-on-tracer")
                                  + "\n\n@jax.jit\ndef g(x):\n    return np.cos(x)  # noqa: some-other-tool\n")
    r = run_cli("check", *ON, "--isolated", "-n", "m.py", cwd=project)
    assert "m.py:7:" not in r.stdout and "m.py:12:12: JAX104" in r.stdout, r.stdout
    (project / "m.py").write_text("import jax\n\nx = 1  # noqa: numpy-on-tracer\n")  # nothing to hide
    unused = run_cli("check", "--isolated", "-n", "--extend-select", "JAX104,JAX190", "m.py", cwd=project)
    assert "m.py:3:8: JAX190" in unused.stdout and "unused: `JAX104`" in unused.stdout, unused.stdout


def test_per_rule_severity_in_the_config(project):
    """`[tool.jaxlint.rules.<rule>] severity` sets what its findings are reported as (and
    so what `--fail-on` counts); a value that is no severity is one line, exit 2."""
    import json

    (project / "pyproject.toml").write_text('[tool.jaxlint]\n[tool.jaxlint.rules.numpy-on-tracer]\nseverity = "info"\n')
    r = run_cli("check", *ON, "-n", "--output-format", "json", "m.py", cwd=project)
    assert [d["severity"] for d in json.loads(r.stdout)] == ["info"], r.stdout
    assert run_cli("check", *ON, "-n", "--fail-on", "warning", "m.py", cwd=project).returncode == 0
    (project / "pyproject.toml").write_text('[tool.jaxlint]\n[tool.jaxlint.rules.JAX104]\nseverity = "fatal"\n')
    r = run_cli("check", *ON, "-n", "m.py", cwd=project)
    assert r.returncode == 2 and "`rules.JAX104.severity` must be one of 'info', 'warning', 'error'" in r.stderr
