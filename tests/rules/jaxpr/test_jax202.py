"""JAX202 unrolled-loop: tests beyond the rule's VALID/INVALID examples (which
tests/test_dynamic_rule_examples.py runs): a recorded program's loop around a jitted
call is not the loop unrolled inside it."""
from __future__ import annotations

import json

from helpers import run_cli


STEP_IN_A_LOOP = """\
import jax
import jax.numpy as jnp


def make_step(scale):
    @jax.jit
    def step(x):
        for _ in range(24):  # JAX202
            x = jnp.tanh(x) * scale
        return x
    return step


step = make_step(0.5)
for i in range(4):
    x = step(jnp.ones((8, 4)) * i)
"""


def test_a_loop_around_the_call_is_not_the_loop_unrolled_inside(tmp_path):
    # jax before 0.10 records the program's frames past the traced function in every
    # equation's traceback: the `for` that calls the jitted step is not the unrolled loop
    (tmp_path / "pyproject.toml").write_text("[tool.jaxlint]\n")
    (tmp_path / "steps.py").write_text(STEP_IN_A_LOOP)
    proc = run_cli("record", "--", "python", "steps.py", cwd=tmp_path, timeout=300)
    assert proc.returncode == 0, proc.stderr
    proc = run_cli("check", "--dynamic", "--no-cache", "--output-format", "json", "steps.py", cwd=tmp_path, timeout=300)
    found = {(d["location"]["row"], d["code"]) for d in json.loads(proc.stdout) if d["code"].startswith("JAX2")}
    assert found == {(line, "JAX202") for line in marked_lines(STEP_IN_A_LOOP, "JAX202")}


def marked_lines(text: str, code: str) -> list[int]:
    return [i for i, line in enumerate(text.splitlines(), 1) if line.rstrip().endswith(f"# {code}")]
