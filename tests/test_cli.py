"""The `check` and `rule` commands, through the real CLI in a subprocess."""
from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path

import pytest

from helpers import run_cli

CAPTURE = textwrap.dedent(
    """
    import jax
    import numpy as np
    W = np.ones((1024, 1024))

    @jax.jit
    def f(x):
        return x @ W
    """
).lstrip()

CLEAN = "import jax\n\n@jax.jit\ndef f(x, w):\n    return x @ w\n"


@pytest.fixture
def project(tmp_path):
    (tmp_path / "bad.py").write_text(CAPTURE)
    (tmp_path / "good.py").write_text(CLEAN)
    return tmp_path


def test_findings_exit_1_and_concise_lines_are_path_line_col_code(project):
    r = run_cli("check", "--no-cache", ".", cwd=project)
    assert r.returncode == 1, r.stderr
    assert "bad.py:7:16: JAX101 " in r.stdout
    assert "good.py" not in r.stdout


def test_clean_file_exits_0(project):
    r = run_cli("check", "--no-cache", "good.py", cwd=project)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "All checks passed!" in r.stdout


def test_exit_zero_keeps_findings_but_exits_0(project):
    r = run_cli("check", "--no-cache", "--exit-zero", ".", cwd=project)
    assert r.returncode == 0
    assert "JAX101" in r.stdout


def test_unknown_selector_is_a_usage_error_naming_it(project):
    r = run_cli("check", "--select", "JAX101,NOPE1", ".", cwd=project)
    assert r.returncode == 2
    assert "NOPE1" in r.stderr


def test_ignore_by_name_and_select_by_prefix(project):
    r = run_cli("check", "--no-cache", "--ignore", "captured-array", ".", cwd=project)
    assert r.returncode == 0, r.stdout
    r = run_cli("check", "--no-cache", "--select", "JAX1", ".", cwd=project)
    assert r.returncode == 1 and "JAX101" in r.stdout


def test_json_output_has_ruff_fields_plus_name_phase_data(project):
    r = run_cli("check", "--no-cache", "--output-format", "json", "bad.py", cwd=project)
    items = json.loads(r.stdout)
    assert len(items) == 1
    d = items[0]
    for key in ("code", "name", "message", "filename", "location", "end_location", "severity", "url", "fix",
                "noqa_row", "phase", "data"):
        assert key in d, key
    assert d["code"] == "JAX101" and d["name"] == "captured-array" and d["phase"] == "static"
    assert d["location"] == {"row": 7, "column": 16}
    assert d["data"]["bytes"] == 1024 * 1024 * 8
    assert d["filename"] == "bad.py"


def test_full_output_shows_source_line_caret_and_hint(project):
    r = run_cli("check", "--no-cache", "--output-format", "full", "bad.py", cwd=project)
    assert "    return x @ W" in r.stdout
    assert "^" in r.stdout
    assert "help: pass the array as an argument" in r.stdout


def test_output_file_receives_the_report(project):
    r = run_cli("check", "--no-cache", "-o", "out/report.txt", "bad.py", cwd=project)
    assert r.returncode == 1
    assert "JAX101" in (project / "out" / "report.txt").read_text()
    assert r.stdout == ""


def test_stdin_with_stdin_filename_reports_under_that_name(project):
    r = run_cli("check", "--stdin-filename", "pkg/mod.py", "-", cwd=project, input=CAPTURE)
    assert r.returncode == 1
    assert "pkg/mod.py:7:16: JAX101" in r.stdout


def test_statistics_counts_per_rule(project):
    r = run_cli("check", "--no-cache", "--statistics", ".", cwd=project)
    assert r.returncode == 1
    assert r.stdout.splitlines()[0].split() == ["1", "JAX101", "captured-array"], r.stdout


def test_noqa_suppresses_and_other_codes_do_not(project):
    (project / "bad.py").write_text(CAPTURE.replace("return x @ W", "return x @ W  # noqa: JAX101"))
    assert run_cli("check", "--no-cache", "bad.py", cwd=project).returncode == 0
    (project / "bad.py").write_text(CAPTURE.replace("return x @ W", "return x @ W  # noqa: E501"))
    assert run_cli("check", "--no-cache", "bad.py", cwd=project).returncode == 1
    (project / "bad.py").write_text("# jaxlint: noqa: JAX101\n" + CAPTURE)
    assert run_cli("check", "--no-cache", "bad.py", cwd=project).returncode == 0


def test_config_selects_and_sets_rule_options(project):
    (project / "pyproject.toml").write_text(
        '[tool.jaxlint]\nselect = ["JAX101"]\n[tool.jaxlint.rules.captured-array]\nmax-bytes = 16000000\n'
    )
    assert run_cli("check", "--no-cache", ".", cwd=project).returncode == 0
    (project / "pyproject.toml").write_text('[tool.jaxlint.rules.JAX101]\nmax-bytes = 1000\n')
    assert run_cli("check", "--no-cache", ".", cwd=project).returncode == 1


def test_unknown_config_key_exits_2_naming_key_and_file(project):
    (project / "pyproject.toml").write_text('[tool.jaxlint]\nselcet = ["JAX101"]\n')
    r = run_cli("check", ".", cwd=project)
    assert r.returncode == 2
    assert "selcet" in r.stderr and "pyproject.toml" in r.stderr and "select" in r.stderr


def test_cache_gives_the_same_answer_and_is_tagged(project):
    first = run_cli("check", "--output-format", "json", ".", cwd=project)
    second = run_cli("check", "--output-format", "json", ".", cwd=project)
    assert first.stdout == second.stdout and json.loads(first.stdout)
    cache = project / ".jaxlint_cache"
    assert (cache / "CACHEDIR.TAG").is_file() and (cache / ".gitignore").read_text().strip().endswith("*")


def test_cache_dir_from_the_config_is_used_by_check_and_clean_relative_to_the_config(project):
    (project / "pyproject.toml").write_text('[tool.jaxlint]\ncache-dir = "build/lint-cache"\n')
    (project / "sub").mkdir()
    assert run_cli("check", ".", cwd=project).returncode == 1
    cache = project / "build" / "lint-cache"
    assert (cache / "CACHEDIR.TAG").is_file() and not (project / ".jaxlint_cache").exists()
    r = run_cli("clean", cwd=project / "sub")  # the config is found from a subfolder
    assert r.returncode == 0 and not cache.exists(), r.stdout + r.stderr
    # the environment variable and the flag override the config, in that order
    assert run_cli("check", ".", cwd=project, env={"JAXLINT_CACHE_DIR": str(project / "env")}).returncode == 1
    assert run_cli("check", "--cache-dir", "flag", ".", cwd=project,
                   env={"JAXLINT_CACHE_DIR": str(project / "env")}).returncode == 1
    assert (project / "env" / "CACHEDIR.TAG").is_file() and (project / "flag" / "CACHEDIR.TAG").is_file()
    assert not cache.exists()


def test_cache_files_are_readable_by_other_users_of_a_shared_cache(project):
    old = os.umask(0o022)  # the child inherits it
    try:
        assert run_cli("check", ".", cwd=project).returncode == 1
    finally:
        os.umask(old)
    files = [p for p in (project / ".jaxlint_cache").rglob("*") if p.is_file()]
    assert len(files) >= 3 and all(p.stat().st_mode & 0o777 == 0o644 for p in files), files


def test_rule_command_prints_docs_and_lists_all(project):
    r = run_cli("rule", "JAX101")
    assert r.returncode == 0 and "## Why is this bad?" in r.stdout and "`max-bytes`" in r.stdout
    r = run_cli("rule", "--all", "--output-format", "json")
    codes = [x["code"] for x in json.loads(r.stdout)]
    assert "JAX101" in codes and len(codes) == len(set(codes))
    assert run_cli("rule", "JAX999").returncode == 2


def test_missing_path_is_a_clear_error(project):
    r = run_cli("check", "does_not_exist.py", cwd=project)
    assert r.returncode == 2 and "does_not_exist.py" in r.stderr


def test_python_dash_m_and_console_script_agree(project):
    import subprocess
    import sys

    exe = Path(sys.executable).parent / "jaxlint"
    assert exe.exists(), "the console script is installed beside the interpreter"
    a = subprocess.run([exe, "check", "--no-cache", "bad.py"], cwd=project, capture_output=True, text=True)
    b = run_cli("check", "--no-cache", "bad.py", cwd=project)
    assert a.stdout == b.stdout and a.returncode == b.returncode == 1


#: runs jaxlint.cli.main in-process with the given argv, then prints its exit status and the
#: jaxlint modules that process loaded
_LOADED = r"""
import contextlib, io, json, sys
import jaxlint.cli
out = io.StringIO()
with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
    try:
        rc = jaxlint.cli.main(sys.argv[1:])
    except SystemExit as e:
        rc = e.code
print(json.dumps({"rc": rc, "out": out.getvalue(), "modules": sorted(m for m in sys.modules if m.startswith("jaxlint."))}))
"""


def test_a_command_line_naming_no_command_loads_no_command(project):
    """`--version`, `--help` and an empty command line build the top level from the commands'
    summaries: no command's module (each `add_parser` imports what its command needs), no
    configuration; their output is what the parser with every command prints."""
    import subprocess
    import sys

    from jaxlint.cli import COMMANDS, build_parser

    full, summary = build_parser(), build_parser(summary=True)
    assert summary.format_help() == full.format_help()  # each command's line as its add_parser gives it
    assert summary.format_usage() == full.format_usage()
    env = {**os.environ, "COLUMNS": "100"}
    for argv, rc, shown in ((["--version"], 0, "jaxlint 0.1.0"), (["--help"], 0, "combine the JSON or SARIF"),
                            ([], 2, "run the language server"), (["--verbose", "--version"], 0, "jaxlint 0.1.0"),
                            (["chek"], 2, "invalid choice: 'chek'")):
        r = subprocess.run([sys.executable, "-c", _LOADED, *argv], cwd=project, capture_output=True, text=True,
                           env=env, timeout=600)
        got = json.loads(r.stdout.splitlines()[-1])
        assert (got["rc"], shown in got["out"]) == (rc, True), (argv, got)
        loaded = [m for m in got["modules"] if m.startswith(("jaxlint.commands.", "jaxlint.config", "jaxlint.rules"))]
        assert loaded == [], (argv, loaded)
    # a command after a top-level option still gets its own parser, and only its own
    r = subprocess.run([sys.executable, "-c", _LOADED, "--verbose", "check", "--no-cache", "good.py"], cwd=project,
                       capture_output=True, text=True, env=env, timeout=600)
    got = json.loads(r.stdout.splitlines()[-1])
    assert got["rc"] == 0 and "All checks passed!" in got["out"], got
    assert [m for m in got["modules"] if m.startswith("jaxlint.commands.")] == ["jaxlint.commands.check"]
    assert set(COMMANDS) == set(full._subparsers._group_actions[0].choices)  # type: ignore[union-attr]
    # a command past an option the top level does not know: its parser is built when argparse reaches it
    r = run_cli("--bogus", "rule", "JAX101", cwd=project)
    assert r.returncode == 2 and "unrecognized arguments: --bogus" in r.stderr, r.stderr


def test_undecodable_stdin_is_a_parse_error_at_the_bad_byte(tmp_path):
    import subprocess
    import sys

    r = subprocess.run([sys.executable, "-m", "jaxlint", "check", "--stdin-filename", "a.py", "-"], cwd=tmp_path,
                       input=b'import jax\nx = "\xff"\n', capture_output=True, timeout=600)
    assert r.returncode == 1, r.stderr
    assert b"a.py:2:6: JAX100 file is not valid utf-8: byte 0xff" in r.stdout


def test_an_unwritable_cache_warns_once_and_the_run_goes_on(project):
    (project / "cachefile").write_text("not a directory")
    r = run_cli("check", "--cache-dir", "cachefile", ".", cwd=project)
    assert r.returncode == 1 and "bad.py:7:16: JAX101" in r.stdout
    assert r.stderr.count("cannot write the cache at") == 1, r.stderr


def test_quiet_prints_findings_only(project):
    r = run_cli("check", "--no-cache", "-q", ".", cwd=project)
    assert r.returncode == 1
    assert r.stdout.splitlines() == [l for l in r.stdout.splitlines() if ": JAX" in l] and "JAX101" in r.stdout
    clean = run_cli("check", "--no-cache", "-q", "good.py", cwd=project)
    assert clean.returncode == 0 and clean.stdout == ""


def test_per_file_ignores_on_the_command_line(project):
    r = run_cli("check", "--no-cache", "--per-file-ignores", "bad*.py:JAX101", ".", cwd=project)
    assert r.returncode == 0, r.stdout
    r = run_cli("check", "--no-cache", "--per-file-ignores", "other.py:JAX101", ".", cwd=project)
    assert r.returncode == 1
    r = run_cli("check", "--per-file-ignores", "bad.py:NOPE9", ".", cwd=project)
    assert r.returncode == 2 and "NOPE9" in r.stderr
    r = run_cli("check", "--per-file-ignores", "JAX101", ".", cwd=project)
    assert r.returncode == 2 and "GLOB:CODES" in r.stderr


def test_an_unwritable_cache_warns_once_with_the_process_pool_too(project):
    for i in range(20):  # above the pool threshold
        (project / f"m{i}.py").write_text(CAPTURE)
    (project / "cachefile").write_text("not a directory")
    r = run_cli("check", "--jobs", "2", "--cache-dir", "cachefile", ".", cwd=project)
    assert r.returncode == 1 and r.stdout.count("JAX101") == 21
    assert r.stderr.count("cannot write the cache at") == 1, r.stderr


def test_every_check_option_is_declared_once_with_its_flag():
    """`CheckOptions` declares each option with its flag and the parser is built from it:
    no option exists in one form only, and an empty command line gives the defaults."""
    from dataclasses import fields

    from jaxlint.cli import build_parser
    from jaxlint.pipeline import CheckOptions

    parser = build_parser("check")
    empty = CheckOptions.from_args(parser.parse_args(["check"]))
    assert empty == CheckOptions()
    # a flag for every field but the one derived from another (`--config 'k = v'`)
    assert [f.name for f in fields(CheckOptions) if not f.metadata.get("cli")] == ["config_overrides"]
    check = next(a for a in parser._subparsers._group_actions[0].choices["check"]._actions if a.dest == "paths")
    from jaxlint.pipeline import OTHER_LINTERS_FLAGS  # ruff's flags that only say what to use: no option

    refused = {f.lstrip("-").replace("-", "_") for f in OTHER_LINTERS_FLAGS}
    dests = {a.dest for a in check.container._actions} - {"help", "verbose"} - refused
    assert dests == {f.name for f in fields(CheckOptions)} - {"config_overrides"}
    given = CheckOptions.from_args(parser.parse_args(
        ["check", "--no-dynamic", "--config", "x.toml", "--config", "a = 1", "-j", "2", "--shard", "1/2",
         "--per-file-ignores", "t/*:JAX101", "--extend-select", "JAX2", "x.py"]))
    assert (given.dynamic, given.config, given.config_overrides, given.jobs, given.shard) == (
        False, "x.toml", ["a = 1"], 2, (1, 2))
    assert (given.per_file_ignores, given.extend_select, given.paths) == ([("t/*", ["JAX101"])], ["JAX2"], ("x.py",))
