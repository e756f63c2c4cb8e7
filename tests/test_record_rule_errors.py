"""`jaxlint record` runs every trace and compile rule, selected or not, so that a recording
serves any later selection; a rule that fails there loses only its own findings. What the
user is told of such a failure follows the selection: a selected rule's failure is a
warning of `record`; a rule the project does not select reports nothing to the user, so its
failure is said only under `--verbose`, and `check --dynamic` never prints it.

No rule of jaxlint is known to fail on a real program (each such failure is a bug, fixed when
found), so the recorded program plants one: it makes two rules' checks raise, in its own
process, where the recorder runs them. The recording, the rules' run and the output are real."""
from __future__ import annotations

import json

import pytest

from helpers import run_cli

pytest.importorskip("jax")

PROGRAM = '''
import jax
import jax.numpy as jnp
from jaxlint.registry import rules_by_code


def planted(self, ctx):
    raise RuntimeError("planted failure")


for code in ("JAX206", "JAX208"):
    rules_by_code()[code].check = planted


@jax.jit
def step(x):
    return x * 2


if __name__ == "__main__":
    x = jnp.ones(8)
    for _ in range(3):
        x = step(x)
    step(jnp.ones(5))
'''


def _record(root, *flags: str):
    (root / "pyproject.toml").write_text('[tool.jaxlint]\nselect = ["JAX201", "JAX208"]\n')
    (root / "prog.py").write_text(PROGRAM.lstrip())
    rec = run_cli(*flags, "record", "--", "python", "prog.py", cwd=root, timeout=600)
    assert rec.returncode == 0, rec.stderr[-3000:]
    return rec.stderr


def test_a_failing_rule_that_is_not_selected_is_not_printed(tmp_path):
    err = _record(tmp_path)
    # both rules ran and failed in the recording (JAX206 at each signature's first call):
    # observed.json keeps every failure
    (entry,) = json.loads((tmp_path / ".jaxlint" / "observed.json").read_text())["functions"].values()
    failed = sorted(e.split(" failed on ")[0] for e in entry["rule_errors"])
    assert failed == ["rule JAX206", "rule JAX206", "rule JAX208"], entry["rule_errors"]
    # the selected one is a warning; the other is not the user's concern
    assert "jaxlint record: warning: rule JAX208 failed on step: RuntimeError: planted failure" in err, err
    assert "JAX206" not in err, err
    check = run_cli("check", "--dynamic", "--no-cache", "prog.py", cwd=tmp_path, timeout=600)
    assert check.returncode in (0, 1), check.stderr[-3000:]
    assert "JAX206" not in check.stdout + check.stderr, check.stdout + check.stderr


def test_verbose_says_the_failure_of_a_rule_that_is_not_selected(tmp_path):
    err = _record(tmp_path, "--verbose")
    assert ("jaxlint record: note: rule JAX206 failed on step: RuntimeError: planted failure "
            "(JAX206 is not selected)") in err, err
    assert "jaxlint record: warning: rule JAX208 failed on step" in err, err
