"""The run summary and `inspect`'s header say what happened, in words a reader can
trust: nothing "cached" on a --no-cache run, no doubled words. Real CLI, real workers."""
from __future__ import annotations

import textwrap

import pytest

from helpers import run_cli

pytest.importorskip("jax")

NO_INPUTS = textwrap.dedent(
    """
    import jax


    @jax.jit
    def f(x):
        return x + 1
    """
).lstrip()


def test_a_no_cache_run_that_traced_nothing_does_not_say_cached(tmp_path):
    (tmp_path / "m.py").write_text(NO_INPUTS)
    r = run_cli("check", "--no-cache", "--dynamic", "m.py", cwd=tmp_path, timeout=300)
    summary = [line for line in r.stdout.splitlines() if line.startswith("Dynamic phase")]
    assert len(summary) == 1 and summary[0].startswith(
        "Dynamic phase (trace; nothing traced): 0 functions analysed, 1 skipped, 0 failed ("), r.stdout
    assert "cache" not in r.stdout


RECORDED = textwrap.dedent(
    """
    import jax
    import jax.numpy as jnp


    @jax.jit
    def step(x):
        return x * 2


    if __name__ == "__main__":
        for _ in range(3):
            step(jnp.ones(4))
    """
).lstrip()


def test_inspect_names_recorded_inputs_once(tmp_path):
    (tmp_path / "run.py").write_text(RECORDED)
    rec = run_cli("record", "--", "python", "run.py", cwd=tmp_path, timeout=300)
    assert rec.returncode == 0, rec.stderr
    r = run_cli("inspect", "run.py::step", "--stage", "jaxpr", "--no-cache", cwd=tmp_path, timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[0] == "run.py::step  (inputs: recorded (3 calls))"
