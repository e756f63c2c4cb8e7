"""The recording's files as input and output (issue 38): a recording made under another
jax is out of date, never used as current (its findings and versions are that jax's);
one written in another format is refused in one line; symlinked signatures and
observations stay links. The real CLI, a real recorded program."""
from __future__ import annotations

import json
import os
import shutil

import pytest

pytest.importorskip("jax")

from helpers import run_cli  # noqa: E402

PROGRAM = '''
import jax
import jax.numpy as jnp


@jax.jit
def step(x):
    for i in range(3):  # JAX102: unrolled
        x = x * 2 + i
    return x


if __name__ == "__main__":
    step(jnp.ones(4)).block_until_ready()
'''


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    root = tmp_path_factory.mktemp("recording")
    (root / "pyproject.toml").write_text("[tool.jaxlint]\n")
    (root / "prog.py").write_text(PROGRAM.lstrip("\n"))
    r = run_cli("record", "--", "python", "prog.py", cwd=root, timeout=600)
    assert r.returncode == 0, r.stderr
    return root


def copy(recorded, tmp_path):
    root = tmp_path / "p"
    shutil.copytree(recorded, root, symlinks=True)
    return root


def _edit(path, change):
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


def test_a_recording_of_another_jax_is_out_of_date_not_current(recorded, tmp_path):
    root = copy(recorded, tmp_path)
    fresh = run_cli("check", "--dynamic", "--show-skipped", cwd=root, timeout=600)
    assert "out of date" not in fresh.stderr + fresh.stdout, fresh.stderr

    def older(data):
        for e in data["functions"].values():
            e["versions"] = dict(e["versions"], jax="0.4.38")
    _edit(root / ".jaxlint" / "observed.json", older)
    r = run_cli("check", "--dynamic", "--show-skipped", cwd=root, timeout=600)
    out = r.stdout + r.stderr
    assert r.returncode in (0, 1), out
    assert "1 observed function (" in out and "out of date since `jaxlint record`" in out, out
    assert "prog.py:6 step (changed: jax 0.4.38 -> " in out, out
    assert "jax 0.4.38," not in out.split("out of date")[0]


@pytest.mark.parametrize("name", ["signatures.json", "observed.json"])
def test_a_recording_in_another_format_is_refused_in_one_line(recorded, tmp_path, name):
    root = copy(recorded, tmp_path)
    _edit(root / ".jaxlint" / name, lambda data: data.update(format=2))
    r = run_cli("check", "--dynamic", cwd=root, timeout=600)
    assert r.returncode == 2, r.stdout + r.stderr
    assert f"{name}: " in r.stderr and "in format 2, and this jaxlint reads format 1" in r.stderr, r.stderr
    assert "jaxlint record --replace" in r.stderr and "Traceback" not in r.stderr


def test_symlinked_signatures_and_observations_stay_links(recorded, tmp_path):
    root = copy(recorded, tmp_path)
    shared = tmp_path / "shared"
    shared.mkdir()
    for name in ("signatures.json", "observed.json"):
        (root / ".jaxlint" / name).rename(shared / name)
        (root / ".jaxlint" / name).symlink_to(shared / name)
        _edit(shared / name, lambda data: data["functions"].clear())
    r = run_cli("record", "--", "python", "prog.py", cwd=root, timeout=600)
    assert r.returncode == 0, r.stderr
    for name in ("signatures.json", "observed.json"):
        link = root / ".jaxlint" / name
        assert link.is_symlink() and os.readlink(link) == str(shared / name)
        assert "prog:step" in json.loads((shared / name).read_text())["functions"]
