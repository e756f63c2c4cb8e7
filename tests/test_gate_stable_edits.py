"""The dynamic gate holds across edits: a project is recorded, its findings baselined,
then edited. An unrelated edit (a helper appended to a file the trace entered, lines
inserted above the jitted function) leaves the observation current and the gate green;
an edit inside a function the trace entered makes exactly the observations that
traced through it stale, named in the summary, and the baselined recompilation is the
same finding when the worker reports it at the ``def`` instead of the call the
recording saw. The real CLI and `jaxlint record` in subprocesses, real jax."""
from __future__ import annotations

import json
import shutil

import pytest

from helpers import run_cli

UTILS = '''
import jax.numpy as jnp


def normalize(x):
    return x / (jnp.abs(x).max() + 1.0)
'''

MODEL = '''
import jax
import jax.numpy as jnp

from utils import normalize


@jax.jit
def train_step(w, x):
    return w - 0.1 * normalize(x @ w).mean()


@jax.jit
def evaluate(w, x):
    return jnp.tanh(x @ w).sum()
'''

TRAIN = '''
import sys

import jax.numpy as jnp

from model import evaluate, train_step


def main():
    w = jnp.ones((4, 4))
    for n in (64, 64, 64, 52):
        w = train_step(w, jnp.ones((n, 4)))
    evaluate(w, jnp.ones((8, 4))).block_until_ready()


if __name__ == "__main__":
    main()
'''

CHECK = ("check", "--dynamic", "--no-cache", "--select", "JAX2", "--output-format", "json")


def _project(tmp_path_factory, name: str):
    root = tmp_path_factory.mktemp(name)
    (root / "pyproject.toml").write_text("[tool.jaxlint]\n")
    for f, text in (("utils.py", UTILS), ("model.py", MODEL), ("train.py", TRAIN)):
        (root / f).write_text(text.lstrip("\n"))
    return root


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """A project recorded once and baselined: copied by each test that edits it."""
    root = _project(tmp_path_factory, "gate")
    rec = run_cli("record", "--", "python", "train.py", cwd=root, timeout=600)
    assert rec.returncode == 0, rec.stderr[-3000:]
    first = run_cli(*CHECK, cwd=root, timeout=600)
    wrote = run_cli("check", "--dynamic", "--no-cache", "--select", "JAX2", "--write-baseline", "baseline.json",
                    cwd=root, timeout=600)
    assert wrote.returncode == 0, wrote.stderr[-2000:]
    return root, json.loads(first.stdout)


def _copy(recorded, tmp_path):
    root = tmp_path / "proj"
    shutil.copytree(recorded[0], root)
    return root


def _gate(root):
    return run_cli("check", "--dynamic", "--no-cache", "--select", "JAX2", "--baseline", "baseline.json",
                   "--show-skipped", cwd=root, timeout=600)


def test_the_recording_finds_the_recompilation_at_the_call_that_compiled_again(recorded):
    _, found = recorded
    assert [(d["code"], d["filename"], d["location"]["row"]) for d in found] == [("JAX208", "train.py", 11)]


def test_an_unrelated_edit_leaves_the_observations_current_and_the_gate_green(recorded, tmp_path):
    root = _copy(recorded, tmp_path)
    with open(root / "utils.py", "a") as f:  # the 3-line helper, in a file the trace entered
        f.write("\n\ndef unrelated(x):\n    return x + 1\n")
    with open(root / "model.py", "a") as f:  # and an edit elsewhere in the jitted function's file
        f.write("\n\nLEARNING_RATE_NOTE = 'see the paper'\n")
    gate = _gate(root)
    assert gate.returncode == 0, gate.stdout[-3000:] + gate.stderr[-2000:]
    assert "out of date" not in gate.stdout, gate.stdout
    assert "2 jitted functions called: 2 traced" in gate.stdout, gate.stdout


def test_lines_inserted_above_move_the_recorded_findings_with_their_code(recorded, tmp_path):
    root = _copy(recorded, tmp_path)
    text = (root / "train.py").read_text()
    (root / "train.py").write_text(text.replace("def main():", "# a comment\n# and another\n\n\ndef main():"))
    found = json.loads(run_cli(*CHECK, cwd=root, timeout=600).stdout)
    assert [(d["code"], d["filename"], d["location"]["row"]) for d in found] == [("JAX208", "train.py", 15)]


def test_an_edit_inside_a_traced_callee_makes_exactly_the_observations_through_it_stale(recorded, tmp_path):
    root = _copy(recorded, tmp_path)
    text = (root / "utils.py").read_text()
    (root / "utils.py").write_text(text.replace("+ 1.0)", "+ 2.0)"))
    gate = _gate(root)
    # train_step traced through `normalize`; evaluate did not
    assert "1 observed function (1 finding) out of date" in gate.stdout, gate.stdout
    assert "model.py:8 train_step (changed: utils.py: `normalize`)" in gate.stdout, gate.stdout
    assert "evaluate" not in gate.stdout.split("out of date", 1)[1], gate.stdout
    # the worker traces train_step again, with what the recording saw it called with: its
    # recompilation, now reported at the `def`, is the finding the baseline holds
    assert gate.returncode == 0, gate.stdout[-3000:] + gate.stderr[-2000:]
    found = json.loads(run_cli(*CHECK, cwd=root, timeout=600).stdout)
    assert [(d["code"], d["filename"]) for d in found] == [("JAX208", "model.py")]


def test_a_real_regression_fails_the_gate(recorded, tmp_path):
    root = _copy(recorded, tmp_path)
    text = (root / "model.py").read_text()
    (root / "model.py").write_text(text.replace(
        "    return jnp.tanh(x @ w).sum()",
        "    for _ in range(40):  # unrolled into the program\n        x = jnp.tanh(x @ w)\n    return x.sum()"))
    gate = _gate(root)
    assert gate.returncode == 1, gate.stdout[-3000:]
    assert "model.py:14:5: JAX202" in gate.stdout, gate.stdout


def test_prune_drops_a_fixed_measured_finding(recorded, tmp_path):
    root = _copy(recorded, tmp_path)
    text = (root / "train.py").read_text()
    (root / "train.py").write_text(text.replace("(64, 64, 64, 52)", "(64, 64, 64, 64)"))  # the fix: full batches
    rec = run_cli("record", "--", "python", "train.py", cwd=root, timeout=600)
    assert rec.returncode == 0, rec.stderr[-2000:]
    pruned = run_cli("check", "--dynamic", "--no-cache", "--select", "JAX2", "--baseline", "baseline.json",
                     "--prune-baseline", cwd=root, timeout=600)
    assert pruned.returncode == 0, pruned.stdout + pruned.stderr
    assert "pruned 1 finding no longer found" in pruned.stderr, pruned.stderr
    assert json.loads((root / "baseline.json").read_text())["findings"] == []
