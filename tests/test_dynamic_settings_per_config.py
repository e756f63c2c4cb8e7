"""Nearest config wins for the dynamic settings too: each file's worker runs under its
own config's timeouts, memory cap, backend and x64, and its cache entry says so.
Real workers, real tracing."""
from __future__ import annotations

import textwrap

import pytest

from helpers import run_cli

pytest.importorskip("jax")

SLOW = textwrap.dedent(
    """
    import time

    import jax


    @jax.jit  # jaxlint: args=(f32[4],)
    def slow(x):
        time.sleep(60)  # at trace time
        return x + 1
    """
).lstrip()

FLOAT64 = textwrap.dedent(
    """
    import jax
    import jax.numpy as jnp


    @jax.jit  # jaxlint: args=(f32[4],)
    def widen(x):
        return x.astype(jnp.float64) * 2
    """
).lstrip()


def test_each_folder_runs_under_its_own_function_timeout_and_x64(tmp_path):
    # the first file (sorted) has the default timeout of 60 s; the strict folder says 8 s
    (tmp_path / "a_default").mkdir()
    (tmp_path / "a_default" / "jaxlint.toml").write_text("[dynamic]\nenabled = true\nx64 = true\n")
    (tmp_path / "a_default" / "wide.py").write_text(FLOAT64)
    (tmp_path / "b_strict").mkdir()
    (tmp_path / "b_strict" / "jaxlint.toml").write_text("[dynamic]\nenabled = true\nfunction-timeout = 8\n")
    (tmp_path / "b_strict" / "slow.py").write_text(SLOW)
    (tmp_path / "b_strict" / "wide.py").write_text(FLOAT64)
    r = run_cli("check", "--no-cache", "--select", "JAX2", "a_default", "b_strict", cwd=tmp_path, timeout=300)
    out = r.stdout
    assert "b_strict/slow.py:" in out and "timed out after 8 s tracing" in out, out + r.stderr
    # x64 on in a_default only: the float64 op is measured there, truncated to f32 elsewhere
    assert "a_default/wide.py:7:" in out and " JAX204 " in out.split("a_default/wide.py:7:")[1].splitlines()[0], out
    assert "b_strict/wide.py" not in out, out
    filled = run_cli("check", "--select", "JAX2", "a_default", "b_strict", cwd=tmp_path, timeout=300)
    cached = run_cli("check", "--select", "JAX2", "a_default", "b_strict", cwd=tmp_path, timeout=300)
    assert "from cache" in cached.stdout
    assert cached.stdout.splitlines()[:-1] == filled.stdout.splitlines()[:-1] == out.splitlines()[:-1]
