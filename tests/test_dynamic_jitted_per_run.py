"""A function that jits its step and makes its optimizer on each run (issue 37, the fourteenth
blind judgement's ott flow matching, in our own words): `train` makes `nnx.jit(fit_step)` and
`nnx.Optimizer(model, optax.adam(1e-3))` anew each time it runs, so the step compiles once per
run: the signatures differ only in the optimizer's `tx` (a new optax transformation, which
compares by identity), and a new `nnx.jit` of the same function compiles again even for the
same signature. JAX208 took them for a factory's jits each used as meant. Real `jaxlint record`
of small flax programs, then `check --dynamic`: the finding is where the object is made (or,
with the optimizer shared, where the function is jitted), the call and the jit related; a jit
of a new closure per run (a factory) and jits made once stay quiet."""
from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import textwrap

import pytest

from helpers import run_cli

pytestmark = pytest.mark.skipif(not all(importlib.util.find_spec(m) for m in ("flax", "optax")),
                                reason="needs flax and optax")

PROGRAM = '''
import jax.numpy as jnp
import optax
from flax import nnx


class Net(nnx.Module):
    def __init__(self, rngs):
        self.lin = nnx.Linear(4, 4, rngs=rngs)

    def __call__(self, x):
        return self.lin(x)


def fit_step(model, optimizer, x):
    def loss_fn(m):
        return ((m(x) - x) ** 2).mean()

    loss, grads = nnx.value_and_grad(loss_fn)(model)
    optimizer.update(model, grads)
    return loss


SHARED_TX = optax.adam(1e-3)
@SHARED_STEP@


def train(model, x, steps=8):
    @MAKE_TX@
    optimizer = nnx.Optimizer(model, @TX@, wrt=nnx.Param)
    step = @STEP@
    for _ in range(steps):
        loss = step(model, optimizer, x)
    return loss


if __name__ == "__main__":
    x = jnp.ones((8, 4))
    for seed in range(3):
        train(Net(nnx.Rngs(seed)), x)
'''


def _program(tx: str, step: str, make_tx: str = "pass") -> str:
    # a jit made once at module level only where the run uses it: the recording names the
    # function's jit line by the first jitted function object made of it
    shared = "SHARED_STEP = nnx.jit(fit_step)" if step == "SHARED_STEP" else ""
    return textwrap.dedent(PROGRAM).lstrip("\n").replace("@MAKE_TX@", make_tx).replace("@TX@", tx) \
        .replace("@STEP@", step).replace("@SHARED_STEP@", shared)


def _check(root, src: str) -> tuple[list[dict], list[str]]:
    (root / "pyproject.toml").write_text('[tool.jaxlint]\nselect = ["JAX208"]\n')
    (root / "prog.py").write_text(src)
    rec = run_cli("record", "--", sys.executable, "prog.py", cwd=root, timeout=600)
    assert rec.returncode == 0, rec.stderr[-3000:]
    proc = run_cli("check", "--dynamic", "--no-cache", "--output-format", "json", "prog.py", cwd=root, timeout=600)
    assert proc.returncode in (0, 1), proc.stderr[-3000:]
    return [d for d in json.loads(proc.stdout) if d["code"] == "JAX208"], src.splitlines()


def _line(lines: list[str], text: str) -> int:
    return next(i for i, ln in enumerate(lines, 1) if text in ln)


def _compiles(root, src: str) -> int:
    """How many times jax compiled `fit_step` running the program alone (no jaxlint)."""
    (root / "alone.py").write_text(src)
    proc = subprocess.run([sys.executable, "alone.py"], cwd=root, capture_output=True, text=True, timeout=600,
                          env={**__import__("os").environ, "JAX_LOG_COMPILES": "1"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    return sum("Compiling" in ln and "fit_step" in ln for ln in proc.stderr.splitlines())


@pytest.mark.parametrize("made", ["in the constructor", "bound before it"])
def test_an_optimizer_and_a_jit_made_per_run_are_reported_where_the_optimizer_is_made(tmp_path, made):
    if made == "in the constructor":
        src = _program("optax.adam(1e-3)", "nnx.jit(fit_step)")
        at_text = "nnx.Optimizer(model, optax.adam(1e-3)"
    else:  # the flow-matching page's idiom: the name rebound to the optimizer that holds it
        src = _program("optimizer", "nnx.jit(fit_step)", make_tx="optimizer = optax.adam(1e-3)")
        at_text = "optimizer = optax.adam(1e-3)"
    assert _compiles(tmp_path, src) == 3  # jax compiles the step once per run
    found, lines = _check(tmp_path, src)
    assert len(found) == 1, found
    d = found[0]
    at = _line(lines, at_text)
    assert d["location"]["row"] == at, d
    assert lines[at - 1][d["location"]["column"] - 1:].startswith("optax.adam(1e-3)"), d["location"]
    jit = _line(lines, "step = nnx.jit(fit_step)")
    msg = d["message"]
    assert "`fit_step` was compiled 3 times, once for each of 3 jitted function objects of it" in msg, msg
    assert "differ only in `optimizer`'s static field `tx`" in msg, msg
    assert (f"`train` makes that object anew at line {at} and jits `fit_step` anew at line {jit} on each of its "
            "runs: make both once, outside `train`, and reuse them") in msg, msg
    rel = [(r["location"]["row"], r["message"]) for r in d["related"]]
    assert rel == [(_line(lines, "loss = step(model, optimizer, x)"), "the call that compiles again"),
                   (jit, "`fit_step` is jitted here")], rel


def test_a_jit_made_per_run_with_a_shared_optimizer_is_reported_where_it_is_jitted(tmp_path):
    src = _program("SHARED_TX", "nnx.jit(fit_step)")
    assert _compiles(tmp_path, src) == 3  # a new nnx.jit of the same function compiles again
    found, lines = _check(tmp_path, src)
    assert len(found) == 1, found
    d = found[0]
    jit = _line(lines, "step = nnx.jit(fit_step)")
    assert d["location"]["row"] == jit, d
    assert (f"for the same signature: `train` jits `fit_step` anew at line {jit} on each of its runs, and each new "
            "jitted function compiles again; jit it once, outside `train`, and reuse it") in d["message"], d
    assert [r["location"]["row"] for r in d["related"]] == [_line(lines, "loss = step(model, optimizer, x)")]


def test_a_jit_and_an_optimizer_made_once_are_quiet(tmp_path):
    src = _program("SHARED_TX", "SHARED_STEP")
    assert _compiles(tmp_path, src) == 1
    found, _ = _check(tmp_path, src)
    assert found == []


FACTORY = '''
import jax
import jax.numpy as jnp


def make_step(scale):
    def fit_step(w, x):
        return w - scale * jnp.mean(x * w)
    return jax.jit(fit_step)


def train(scale, x, steps=8):
    step = make_step(scale)
    w = jnp.ones(4)
    for _ in range(steps):
        w = step(w, x)
    return w


if __name__ == "__main__":
    for scale in (0.1, 0.2, 0.3):
        train(scale, jnp.ones(4))
'''


def test_a_new_closure_jitted_per_run_is_a_factory_and_stays_quiet(tmp_path):
    src = textwrap.dedent(FACTORY).lstrip("\n")
    assert _compiles(tmp_path, src) == 3  # each closure is a function of its own
    found, _ = _check(tmp_path, src)
    assert found == []
