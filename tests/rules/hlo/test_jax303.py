"""JAX303 slow-compile: tests beyond the rule's VALID/INVALID examples (which
tests/test_compile_rules.py runs), on real compiled output."""
from __future__ import annotations

import textwrap

import pytest

pytest.importorskip("jax")

from compile_helpers import compile_source, reported  # noqa: E402
from jaxlint.rules.hlo.jax303_slow_compile import SlowCompile  # noqa: E402


def test_slow_compile_lists_trace_tier_contributors(tmp_path):
    facts, _ = compile_source(SlowCompile.VALID[0].code, tmp_path,
                              trace_facts={"equations": 4100, "loops": [{"line": 7, "iterations": 500}],
                                           "constants": [{"shape": [1024, 1024], "dtype": "float32",
                                                          "bytes": 4 << 20}]})
    (f,) = reported(SlowCompile({"max-instructions": 0}), facts)
    assert "unrolled loop at line 7 (500 iterations)" in f.message
    assert "4100 jaxpr equations" in f.message and "4.0 MiB" in f.message
    assert f.related[0].start.line == 7


#: the rule's own examples in one module: an unrolled loop (its finding at line 6) and a fori_loop
PROGRAM = (textwrap.dedent(SlowCompile.INVALID[0].code).lstrip("\n")
           + textwrap.dedent(SlowCompile.VALID[0].code).replace("def simulate", "def looped"))


def test_the_same_program_gives_the_same_finding_on_a_busy_machine(tmp_path):
    import subprocess
    import sys

    from helpers import json_findings, run_cli

    (tmp_path / "pyproject.toml").write_text('[tool.jaxlint]\nselect = ["JAX202", "JAX303"]\n'
                                             '[tool.jaxlint.rules.slow-compile]\nmax-instructions = 100\n')
    (tmp_path / "sim.py").write_text(PROGRAM)

    def found():
        proc = run_cli("check", "--dynamic", "--compile", "--no-cache", "--output-format", "json", "sim.py",
                       cwd=tmp_path, timeout=600)
        return [(d["location"]["row"], d["data"]["hlo_instructions"], d["message"].split(" (compile measured")[0])
                for d in json_findings(proc, "JAX303")]

    quiet = found()
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    try:
        loaded = found()
    finally:
        for p in busy:
            p.kill()
            p.wait()
    assert quiet == loaded
    [(row, size, message)] = quiet  # the unrolled program only; the loop stays small
    assert row == SlowCompile.INVALID[0].line and size > 100 and f"compiles to {size} optimized HLO instructions (budget 100)" in message


#: an ordinary model step: a stack of dense layers (a Python loop over the layer list, the
#: architecture) and a scanned block stack, with the gradient and an SGD update
MODEL_STEP = """
import jax
import jax.numpy as jnp


def loss(params, x, y):
    for w in params["dense"]:
        x = jax.nn.gelu(x @ w)

    def block(h, w):
        return h + jnp.tanh(h @ w), None

    x, _ = jax.lax.scan(block, x, params["blocks"])
    return jnp.mean((x - y) ** 2)


# jaxlint: args=({"dense": [f32[32,32]] * 6, "blocks": f32[12,32,32]}, f32[16,32], f32[16,32])
@jax.jit
def train_step(params, x, y):
    grads = jax.grad(loss)(params, x, y)
    return jax.tree.map(lambda p, g: p - 0.01 * g, params, grads)


# jaxlint: args=(f32[32,32],)
@jax.jit
def simulate(x):
    for _ in range(20):
        x = jnp.tanh(x @ x) * 0.5 + x
    return x
"""


def test_size_alone_is_quiet_and_an_unrolled_loop_is_named_at_its_line(tmp_path):
    from helpers import json_findings, run_cli

    (tmp_path / "step.py").write_text(MODEL_STEP.lstrip())

    def found(size_alone: bool):
        (tmp_path / "pyproject.toml").write_text(
            '[tool.jaxlint]\nselect = ["JAX202", "JAX303"]\n[tool.jaxlint.rules.slow-compile]\n'
            f'max-instructions = 50\nsize-alone = {str(size_alone).lower()}\n')
        proc = run_cli("check", "--dynamic", "--compile", "--no-cache", "--output-format", "json", "step.py",
                       cwd=tmp_path, timeout=600)
        return {(d["code"], d["data"]["function"]): d for d in json_findings(proc)}

    quiet = found(False)
    # the model step, far above 50 instructions, names no cause; the unrolled loop is the
    # only cause of `simulate`'s size, so its measurement joins JAX202's finding at the loop
    assert set(quiet) == {("JAX202", "simulate")}, quiet
    loop = MODEL_STEP.lstrip().splitlines().index("    for _ in range(20):") + 1
    unrolled = quiet[("JAX202", "simulate")]
    assert unrolled["location"]["row"] == loop
    assert any(r["message"].startswith("JAX303: ") and f"an unrolled loop at line {loop} (20 iterations)" in r["message"]
               for r in unrolled["related"]), unrolled["related"]
    # as a plain size budget the model step too
    assert set(found(True)) == {("JAX303", "train_step"), ("JAX202", "simulate")}


#: two programs whose one removable cause is baked-in constants (2 MiB each): one table
#: JAX201 reports, and four of 512 KiB each, below JAX201's 1 MiB
CONSTANTS = """
import jax
import jax.numpy as jnp
import numpy as np

TABLE = np.linspace(0.0, 1.0, 512 * 1024, dtype=np.float32).reshape(512, 1024)
PIECES = [np.full((128, 1024), float(i), dtype=np.float32) for i in range(4)]


# jaxlint: args=(f32[64,64],)
@jax.jit
def table(x):
    return x + jnp.asarray(TABLE)[:64, :64] @ x


# jaxlint: args=(f32[64,64],)
@jax.jit
def pieces(x):
    for p in PIECES:
        x = x + jnp.asarray(p)[:64, :64]
    return x
"""


def test_baked_constants_another_finding_reports_join_it_and_unreported_ones_stand(tmp_path):
    from helpers import json_findings, run_cli

    (tmp_path / "pyproject.toml").write_text('[tool.jaxlint]\nselect = ["JAX201", "JAX303"]\n'
                                             '[tool.jaxlint.rules.slow-compile]\nmax-instructions = 1\n')
    (tmp_path / "consts.py").write_text(CONSTANTS.lstrip())
    proc = run_cli("check", "--dynamic", "--compile", "--no-cache", "--output-format", "json", "consts.py",
                   cwd=tmp_path, timeout=600)
    found = {(d["code"], d["data"]["function"]): d for d in json_findings(proc)}
    assert set(found) == {("JAX201", "table"), ("JAX303", "pieces")}, sorted(found)
    joined = [r["message"] for r in found[("JAX201", "table")]["related"] if r["message"].startswith("JAX303: ")]
    assert len(joined) == 1 and "1 baked-in constant(s) of 2.0 MiB" in joined[0], found[("JAX201", "table")]
    assert "4 baked-in constant(s) of 2.0 MiB" in found[("JAX303", "pieces")]["message"]
