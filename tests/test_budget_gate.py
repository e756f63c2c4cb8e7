"""The cost gate as a user meets it when the model changes (issue 35): a budget belongs to
the function, so a wider layer is compared with its budget and fails, with the shape
change in the table; entries of functions no longer measured are stale; keys stay short.
Real compiles on CPU through the real CLI."""
from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("jax")

from helpers import run_cli  # noqa: E402

TINY = """
import jax
import jax.numpy as jnp


# jaxlint: args=(f32[8,8],)
@jax.jit
def f(x):
    return jnp.tanh(x @ x)
"""


def write(root: Path, name: str, text: str) -> None:
    (root / name).write_text(textwrap.dedent(text).lstrip("\n"))


def test_budget_update_takes_the_config_forms_of_check(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.jaxlint]\n")
    write(tmp_path, "m.py", TINY)
    r = run_cli("budget", "update", "--config", 'dynamic.budgets = "other.json"', cwd=tmp_path, timeout=600)
    assert r.returncode == 0, r.stderr
    assert "no such file" not in r.stderr and (tmp_path / "other.json").is_file(), r.stderr
    assert not (tmp_path / "jaxlint-budgets.json").exists()
    # a config file and an inline setting together, as `check` takes them
    (tmp_path / "alt.toml").write_text("[dynamic]\nbudgets = \"alt.json\"\n")
    r = run_cli("budget", "update", "--config", "alt.toml", "--config", "dynamic.function-timeout = 120",
                cwd=tmp_path, timeout=600)
    assert r.returncode == 0 and (tmp_path / "alt.json").is_file(), r.stderr
    two = run_cli("budget", "update", "--config", "a.toml", "--config", "b.toml", cwd=tmp_path)
    assert two.returncode == 2 and "one config file at most" in two.stderr, two.stderr


def test_inspect_takes_the_config_forms_of_check(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.jaxlint]\n")
    write(tmp_path, "m.py", TINY)
    r = run_cli("inspect", "m.py::f", "--stage", "jaxpr", "--config", 'dynamic.backend = "cpu"', cwd=tmp_path)
    assert r.returncode == 0 and "tanh" in r.stdout, r.stderr
    missing = run_cli("inspect", "m.py::f", "--config", "nofile.toml", cwd=tmp_path)
    assert missing.returncode == 2 and "--config: no such file: nofile.toml" in missing.stderr, missing.stderr
