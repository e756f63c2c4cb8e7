"""JAX208 at the line where padding or bucketing is decided (issue 37): a program that pads
each batch before calling a jitted step recompiles per padded size. Real `jaxlint record` of
a small program with real jax, then `check --dynamic`: the finding sits at the `pad` call
that decides the size (followed from the call's argument back through the binding and a
function of the same file), with the call that compiled again related; padding to each
input's own size is a warning, power-of-two buckets (the fix, bounded by log2 of the longest
input) an info that says so."""
from __future__ import annotations

import json

import pytest

from helpers import run_cli

pytest.importorskip("jax")

PROGRAM = '''
import jax
import numpy as np


@jax.jit
def step(w, x):
    return w - 0.01 * (x @ w).mean(0)


@jax.jit
def bucketed_step(w, x):
    return w - 0.01 * (x @ w).mean(0)


def to_bucket(x):
    n = x.shape[0]
    size = 1 << (n - 1).bit_length()  # the next power of two
    return np.pad(x, ((0, size - n), (0, 0)))  # BUCKET


if __name__ == "__main__":
    w = np.ones((8, 8), np.float32)
    for n in (5, 9, 17, 23, 30, 41, 52, 63):
        x = np.ones((n, 8), np.float32)
        padded = np.pad(x, ((0, n % 4), (0, 0)))  # OWN SIZE
        w = step(w, padded)  # STEP CALL
        w = bucketed_step(w, to_bucket(x))  # BUCKET CALL
'''


def _line(marker: str) -> int:
    return next(i for i, text in enumerate(PROGRAM.lstrip().splitlines(), 1) if text.endswith(f"# {marker}"))


def test_padding_is_reported_where_the_padded_size_is_decided(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.jaxlint]\nselect = ["JAX208"]\n')
    (tmp_path / "prog.py").write_text(PROGRAM.lstrip())
    rec = run_cli("record", "--", "python", "prog.py", cwd=tmp_path, timeout=600)
    assert rec.returncode == 0, rec.stderr[-3000:]
    proc = run_cli("check", "--dynamic", "--no-cache", "--output-format", "json", "prog.py", cwd=tmp_path, timeout=600)
    assert proc.returncode == 1, proc.stderr[-3000:]
    found = {d["location"]["row"]: d for d in json.loads(proc.stdout) if d["code"] == "JAX208"}
    assert sorted(found) == sorted([_line("OWN SIZE"), _line("BUCKET")]), proc.stdout
    own, bucket = found[_line("OWN SIZE")], found[_line("BUCKET")]
    # padded to each input's own size: every new length compiles again, a warning
    assert own["severity"] == "warning", own
    assert f"`x` is padded at line {_line('OWN SIZE')} to a size computed from each input's length " \
           "(6, 10, 18, 26, 32, 42, 52, 66), so every new length compiles again" in own["message"], own["message"]
    assert (own["related"][0]["location"]["row"], own["related"][0]["message"]) == \
        (_line("STEP CALL"), "the call that compiles again"), own["related"]
    # power-of-two buckets: the fix, bounded; said as an info, at the pad in `to_bucket`
    assert bucket["severity"] == "info", bucket
    assert "to power-of-two buckets (8, 16, 32, 64): bucketing already bounds the compiles" in bucket["message"], \
        bucket["message"]
    assert "(4 buckets seen)" in bucket["message"], bucket["message"]
    assert bucket["related"][0]["location"]["row"] == _line("BUCKET CALL"), bucket["related"]
