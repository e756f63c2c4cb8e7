"""A NumPy scalar is not a Python number: ``np.float64`` subclasses ``float``, but jit takes
it as an array of its dtype (float32 with x64 off), never weak. The recorder took it for a
weak Python number, so JAX208 named a leaf that never changed (the fourteenth blind
dynamic judgement: tinygp's ``log_diag``, made by ``np.log``). Real jax, real ``record``."""
from __future__ import annotations

import re

import pytest

from helpers import run_cli

pytest.importorskip("jax")

PROGRAM = '''
import jax
import jax.numpy as jnp
import numpy as np


@jax.jit
def loss(params):
    return params["mean"] + params["scale"]


if __name__ == "__main__":
    params = {"mean": 0.0, "scale": np.log(np.float64(2.0))}
    for _ in range(3):
        value = loss(params)
        params = jax.tree_util.tree_map(lambda v: jnp.asarray(v, jnp.float32) * 0.9, params)
'''


def test_a_numpy_scalar_is_not_taken_for_a_weak_python_number(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.jaxlint]\nselect = ["JAX208"]\n')
    (tmp_path / "prog.py").write_text(PROGRAM.lstrip())
    rec = run_cli("record", "--", "python", "prog.py", cwd=tmp_path)
    assert rec.returncode == 0, rec.stderr[-3000:]
    proc = run_cli("check", "--dynamic", "--no-cache", "--output-format", "concise", "prog.py", cwd=tmp_path)
    found = re.findall(r"^prog\.py:\d+:\d+: JAX208 (.*)$", proc.stdout, re.M)
    assert len(found) == 1, proc.stdout + proc.stderr[-2000:]
    # the Python float 0.0 comes back as a float32 array: one compile more, named ...
    assert "mean" in found[0], found[0]
    # ... while the NumPy float64 scalar was a strong float32 array from the first call
    assert "scale" not in found[0], found[0]
