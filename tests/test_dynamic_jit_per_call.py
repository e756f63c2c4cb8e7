"""A jitted function made again at every iteration of a loop (`jax.jit(step)(state)`),
which compiles nothing again (jax shares the compiled program between jits of one
function) but builds a new jitted function and misses jit's caches on each first call:
JAX208 reports it at the line that jits it, from the recording's count of jitted function
objects and its measured time per call (the eighth blind judgement's miss, blackjax's
cyclical SGLD). Real `jaxlint record` of a real jax program, then `check --dynamic`."""
from __future__ import annotations

import re

import pytest

from helpers import run_cli

pytest.importorskip("jax")

PROGRAM = '''
import jax
import jax.numpy as jnp


def step(state, lr):
    return {k: v - lr * jnp.sin(v) for k, v in state.items()}


def hoisted(state, lr):
    return {k: v * (1.0 - lr) for k, v in state.items()}


def make(scale):
    return jax.jit(lambda x: x * scale)


if __name__ == "__main__":
    state = {f"w{i}": jnp.ones((8,)) for i in range(8)}
    for i in range(120):
        state = jax.jit(step)(state, 0.01)
    fast = jax.jit(hoisted)
    for i in range(120):
        state = fast(state, 0.01)
    for scale in (1.0, 2.0, 3.0):  # a jit per closure, each called many times: meant
        f = make(scale)
        for i in range(40):
            state["w0"] = f(state["w0"])
'''


def _record(root, config: str) -> None:
    (root / "pyproject.toml").write_text("[tool.jaxlint]\n" + config)
    (root / "prog.py").write_text(PROGRAM.lstrip("\n"))
    rec = run_cli("record", "--", "python", "prog.py", cwd=root, timeout=600)
    assert rec.returncode == 0, rec.stderr[-3000:]


def _check(root, *args: str) -> list[tuple[int, str, str]]:
    proc = run_cli("check", "--dynamic", "--no-cache", "--output-format", "concise", *args, "prog.py",
                   cwd=root, timeout=600)
    assert proc.returncode in (0, 1), proc.stderr[-3000:]
    return [(int(m[0]), m[1], m[2]) for m in re.findall(r"prog\.py:(\d+):\d+: (JAX\d+) (.*)", proc.stdout)]


LOOP_LINE = PROGRAM.lstrip("\n").splitlines().index("        state = jax.jit(step)(state, 0.01)") + 1


def test_a_jit_made_at_every_iteration_is_reported_at_its_line_with_the_measured_cost(tmp_path):
    _record(tmp_path, "[tool.jaxlint.rules.recompilation]\nmade-per-call-seconds = 0\n")
    found = _check(tmp_path, "--select", "JAX208")
    assert [(line, code) for line, code, _ in found] == [(LOOP_LINE, "JAX208")], found
    message = found[0][2]
    assert message.startswith("`step` was called 120 times through 120 jitted functions made one after another"), message
    assert "jax compiled it once" in message
    assert re.search(r"making it and that call took \d+\.\d+ ms of CPU time a call in the recording \(\d+\.\d+ s in all\)",
                     message), message
    # the static rule's guess at the same line (pedantic) is replaced by the measurement
    both = _check(tmp_path, "--select", "JAX103,JAX208")
    assert [(line, code) for line, code, _ in both if line == LOOP_LINE] == [(LOOP_LINE, "JAX208")], both

