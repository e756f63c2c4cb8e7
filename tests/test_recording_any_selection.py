"""A recording serves any later selection (issue 37: the JAX204 move to `pedantic` broke ten
dynamic tests, because a recording made with the defaults went out of date for a check that
selected a rule the defaults leave off, and the re-trace from saved arguments lost the
recorded call order and the line that made the Python number).

Real `jaxlint record` of a small program with real jax, then `check --dynamic` with several
selections: the recording runs every trace rule, `check` reports the selected rules'
findings from it, the same finding (JAX208 as recorded) whatever else is selected,
and nothing is out of date; a rule's options changed since the recording still make it so."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from helpers import run_cli

PROGRAM = '''
import jax
import jax.numpy as jnp


@jax.jit
def step(state, scale):
    wide = state * jnp.ones(state.shape[-1], dtype=float)  # float64 when x64 is on
    return wide * scale


if __name__ == "__main__":
    jax.config.update("jax_enable_x64", True)
    state = jnp.zeros(4, jnp.float32)
    for _ in range(3):
        state = step(state, 2.0)  # float32 in, float64 out: the next call compiles again
'''


def _findings(out: str) -> dict[tuple[str, int], str]:
    return {(code, int(line)): msg for line, code, msg in re.findall(r"^prog\.py:(\d+):\d+: (JAX\d+) (.*)$", out, re.M)}


def _check(root: Path, *args: str) -> str:
    proc = run_cli("check", "--dynamic", "--no-cache", "--show-skipped", "--output-format", "concise", *args,
                   "prog.py", cwd=root, timeout=600)
    assert proc.returncode in (0, 1), proc.stderr[-3000:]
    assert "out of date" not in proc.stdout + proc.stderr, proc.stdout[-3000:]
    return proc.stdout


@pytest.fixture(scope="module")
def recorded(tmp_path_factory) -> Path:
    pytest.importorskip("jax")
    root = tmp_path_factory.mktemp("anysel")
    (root / "pyproject.toml").write_text("[tool.jaxlint]\n")
    (root / "prog.py").write_text(PROGRAM.lstrip())
    rec = run_cli("record", "--", "python", "prog.py", cwd=root, timeout=600)
    assert rec.returncode == 0, rec.stderr[-3000:]
    return root


def test_a_pedantic_rule_selected_after_a_default_recording_is_reported_from_it(recorded):
    default = _findings(_check(recorded))
    wider = _findings(_check(recorded, "--select", "JAX2"))
    assert not any(code == "JAX204" for code, _ in default), default  # pedantic: off by default
    assert any(code == "JAX204" for code, _ in wider), wider
    recompiles = {k: m for k, m in default.items() if k[0] == "JAX208"}
    assert recompiles, default
    # the same recompile finding, as the recording saw it, whatever else is selected
    assert {k: m for k, m in wider.items() if k[0] == "JAX208"} == recompiles
    assert all("float32 -> float64" in m for m in recompiles.values()), recompiles

def test_the_record_summary_counts_the_selected_rules_findings_only(recorded):
    rec = run_cli("record", "--", "python", "prog.py", cwd=recorded, timeout=600)
    assert rec.returncode == 0, rec.stderr[-3000:]
    said = re.search(r"(\d+) findings? \(`jaxlint check --dynamic` reports them\)", rec.stderr)
    assert said, rec.stderr[-3000:]
    assert int(said.group(1)) == len(_findings(_check(recorded))), rec.stderr[-3000:]


def test_a_rule_option_changed_since_the_recording_still_makes_it_out_of_date(recorded):
    (recorded / "pyproject.toml").write_text("[tool.jaxlint]\n[tool.jaxlint.rules.large-program]\nmax-equations = 1\n")
    try:
        proc = run_cli("check", "--dynamic", "--no-cache", "--output-format", "concise", "prog.py", cwd=recorded,
                       timeout=600)
        assert proc.returncode in (0, 1), proc.stderr[-3000:]
        assert "out of date since `jaxlint record`" in proc.stdout + proc.stderr, proc.stdout[-3000:]
    finally:
        (recorded / "pyproject.toml").write_text("[tool.jaxlint]\n")
