"""What a team trips over in its first week with `jaxlint check`, through the real CLI:
selector typos, empty runs, `--config` from another folder, symlinked data folders,
the `[*]` marker."""
from __future__ import annotations

import sys
import textwrap

import pytest

from helpers import run_cli
from test_cli import CAPTURE

@pytest.mark.parametrize("typo, meant", [
    ("prng-key-resue", "prng-key-reuse"),
    ("JAX1O4", "JAX104"),
    ("jax104", "JAX104"),
    ("captured_array", "captured-array"),
])
def test_unknown_selector_suggests_the_rule_it_resembles(tmp_path, typo, meant):
    (tmp_path / "m.py").write_text(CAPTURE)
    r = run_cli("check", "--select", typo, "m.py", cwd=tmp_path)
    assert r.returncode == 2
    assert f"unknown rule selector `{typo}`; did you mean `{meant}`?" in r.stderr


def test_unknown_selector_in_the_config_file_suggests_too(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.jaxlint]\nignore = ["unroled-loop"]\n')
    (tmp_path / "m.py").write_text(CAPTURE)
    r = run_cli("check", "m.py", cwd=tmp_path)
    assert r.returncode == 2
    assert "did you mean `unrolled-loop`?" in r.stderr and "pyproject.toml" in r.stderr


def test_selector_like_nothing_gets_no_suggestion(tmp_path):
    (tmp_path / "m.py").write_text(CAPTURE)
    r = run_cli("check", "--select", "NOPE1", "m.py", cwd=tmp_path)
    assert r.returncode == 2
    assert "unknown rule selector `NOPE1`" in r.stderr and "did you mean" not in r.stderr


def test_bare_check_in_an_empty_folder_says_no_python_files(tmp_path):
    r = run_cli("check", "--no-cache", cwd=tmp_path)
    assert r.returncode == 0
    assert "no Python files found under the current directory" in r.stderr


def test_bare_check_in_a_fully_excluded_project_says_no_python_files(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.jaxlint]\nextend-exclude = ["src"]\n')
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "m.py").write_text(CAPTURE)
    sub = tmp_path / "src"
    r = run_cli("check", "--no-cache", cwd=sub)  # the config above decides the root
    assert r.returncode == 0, r.stdout
    assert "no Python files found" in r.stderr


def test_config_from_another_folder_checks_the_current_folder(tmp_path):
    """As ruff: `--config FILE` says how to lint, not where; the config's folder (a shared
    folder, a parent holding other checkouts) is not linted."""
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "jaxlint.toml").write_text('select = ["JAX1"]\n')
    (shared / "other_checkout.py").write_text(CAPTURE)
    here = tmp_path / "project"
    here.mkdir()
    (here / "mine.py").write_text(CAPTURE)
    r = run_cli("check", "--no-cache", "--config", "../shared/jaxlint.toml", cwd=here)
    assert r.returncode == 1, r.stderr
    assert "mine.py:7:16: JAX101" in r.stdout
    assert "other_checkout" not in r.stdout


@pytest.mark.skipif(sys.platform == "win32", reason="symlinks need privileges on Windows")
def test_sibling_directory_symlink_is_not_a_loop_and_the_real_folder_is_checked(tmp_path):
    data = tmp_path / "data"
    (data / "shakespeare_char").mkdir(parents=True)
    (data / "shakespeare_char" / "prepare.py").write_text(CAPTURE)
    (data / "shakespeare").symlink_to("shakespeare_char", target_is_directory=True)
    r = run_cli("check", "--no-cache", "--show-files", cwd=tmp_path)
    assert r.returncode == 0
    assert r.stdout.splitlines() == ["data/shakespeare_char/prepare.py"]
    assert "loop" not in r.stderr
    r = run_cli("check", "--no-cache", cwd=tmp_path)
    assert "data/shakespeare_char/prepare.py:7:16: JAX101" in r.stdout
    assert "data/shakespeare/" not in r.stdout and "loop" not in r.stderr


@pytest.mark.skipif(sys.platform == "win32", reason="symlinks need privileges on Windows")
def test_directory_symlink_out_of_the_tree_is_followed(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "m.py").write_text(CAPTURE)
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "vendored").symlink_to(outside, target_is_directory=True)
    r = run_cli("check", "--no-cache", "--show-files", ".", cwd=proj)
    assert r.stdout.splitlines() == ["vendored/m.py"], r.stderr


NUMPY_ON_TRACER = textwrap.dedent(
    """
    import jax
    import jax.numpy as jnp
    import numpy as np

    @jax.jit
    def f(x):
        return np.exp(x)
    """
).lstrip()


def test_star_marks_only_a_safe_fix_as_ruff_does(tmp_path):
    """JAX104's fix (np.exp -> jnp.exp) is unsafe: `--fix` alone does not apply it, so
    the line has no [*]; JAX190's removal of an unused noqa code is safe and has one."""
    (tmp_path / "m.py").write_text(NUMPY_ON_TRACER + "y = 1  # noqa: JAX101\n")
    r = run_cli("check", "--no-cache", "--extend-select", "unused-noqa,JAX104", "m.py", cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    unsafe = next(line for line in r.stdout.splitlines() if " JAX104 " in line)
    safe = next(line for line in r.stdout.splitlines() if " JAX190 " in line)
    assert "[*]" not in unsafe and " JAX190 [*] " in safe
    assert "[*] 1 fixable with `jaxlint check --fix`." in r.stdout
    assert "1 more fixable with `--fix --unsafe-fixes`." in r.stdout
    stats = run_cli("check", "--no-cache", "--extend-select", "unused-noqa,JAX104", "--statistics", "m.py",
                    cwd=tmp_path).stdout
    assert "\tJAX104\t    numpy-on-tracer" in stats and "\tJAX190\t[*] unused-noqa" in stats
