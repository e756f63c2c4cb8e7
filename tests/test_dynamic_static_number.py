"""A Python number that `equinox.filter_jit` keeps static in the first call and that comes
back as an array (diffrax's CNF example: `step = 0` before a `while` loop whose
`make_step` returns the step as a `fori_loop` counter) compiles the step twice. Real
`jaxlint record` of small programs with real jax and equinox, then `check --dynamic`:
JAX208 reports it where the number is made (`step = 0`, `State(w, step=0)`, `lr = 0.1`),
with the call that compiled again related; the program fixed as the finding says compiles
once and is quiet."""
from __future__ import annotations

import json
import re

import pytest

from helpers import run_cli

pytest.importorskip("jax")
pytest.importorskip("equinox")

#: diffrax's continuous_normalising_flow.ipynb in small: the model, the optimizer state,
#: the step and the key carried from call to call of a filter_jit step in a `while` loop
CNF = '''
import equinox as eqx
import jax
import jax.numpy as jnp
import optax


class Model(eqx.Module):
    w: jax.Array

    def __call__(self, x):
        return jnp.tanh(x @ self.w)


def main(steps=4):
    model = Model(jnp.ones((4, 4)))
    optim = optax.adam(1e-2)
    opt_state = optim.init(eqx.filter(model, eqx.is_inexact_array))

    @eqx.filter_jit
    def make_step(model, opt_state, step, loss_key):
        x = jax.random.normal(loss_key, (8, 4))

        def body(i, carry):
            model, opt_state, step = carry
            grads = eqx.filter_grad(lambda m: jnp.mean(m(x) ** 2))(model)
            updates, opt_state = optim.update(grads, opt_state, model)
            return eqx.apply_updates(model, updates), opt_state, step + 1

        model, opt_state, step = jax.lax.fori_loop(0, 2, body, (model, opt_state, step))
        return model, opt_state, step, jax.random.split(loss_key)[0]

    key = jax.random.key(0)
    step = START
    while step < steps:
        model, opt_state, step, key = make_step(model, opt_state, step, key)
    return model


if __name__ == "__main__":
    main()
'''

#: a counter in an equinox module, given as a constructor's keyword, that the step
#: increments with jax
FIELD = '''
import equinox as eqx
import jax
import jax.numpy as jnp


class State(eqx.Module):
    w: jax.Array
    step: int


@eqx.filter_jit
def update(state, x):
    loss = jnp.sum(x @ state.w)
    return State(state.w - 0.01 * loss, jnp.where(loss > 0, state.step + 1, state.step))


if __name__ == "__main__":
    state = State(jnp.ones((4, 4)), step=START)
    x = jnp.ones((8, 4))
    for _ in range(4):
        state = update(state, x)
'''

#: a learning rate decayed with jax: a Python float first, a weak f32[] after
DECAY = '''
import equinox as eqx
import jax.numpy as jnp


@eqx.filter_jit
def sgd(w, x, lr):
    return w - lr * jnp.mean(x @ w), lr * jnp.exp(-0.01)


def train(steps, lr):
    w, x = jnp.ones((4, 4)), jnp.ones((8, 4))
    for _ in range(steps):
        w, lr = sgd(w, x, lr)
    return w


if __name__ == "__main__":
    lr = START
    train(4, lr)
'''


def _record_and_check(root) -> tuple[dict, list]:
    (root / "pyproject.toml").write_text('[tool.jaxlint]\nselect = ["JAX208"]\n')
    rec = run_cli("record", "--", "python", "prog.py", cwd=root, timeout=600)
    assert rec.returncode == 0, rec.stderr[-3000:]
    proc = run_cli("check", "--dynamic", "--no-cache", "--output-format", "json", "prog.py", cwd=root, timeout=600)
    assert proc.returncode in (0, 1), proc.stderr[-3000:]
    observed = json.loads((root / ".jaxlint" / "observed.json").read_text())["functions"]
    (entry,) = observed.values()
    return entry, [d for d in json.loads(proc.stdout) if d["code"] == "JAX208"]


def _line(program: str, marker: str) -> int:
    return next(i for i, text in enumerate(program.lstrip().splitlines(), 1) if marker in text)


# `at`: where on that line the finding points (the number itself where a constructor's
# keyword gives it, else the statement that binds it)
@pytest.mark.parametrize("program, start, label, made, at, call", [
    (CNF, "0", "step", "step = START", "step = 0", "model, opt_state, step, key = make_step("),
    (FIELD, "0", "state.step", "step=START", "0)", "state = update(state, x)"),
    (DECAY, "0.1", "lr", "lr = START", "lr = 0.1", "w, lr = sgd(w, x, lr)"),
], ids=["cnf-step", "module-field", "decayed-lr"])
def test_a_static_number_that_comes_back_as_an_array_is_reported_where_it_is_made(
        tmp_path, program, start, label, made, at, call):
    source = program.replace("START", start).lstrip()
    (tmp_path / "prog.py").write_text(source)
    entry, found = _record_and_check(tmp_path)
    # jax really compiled the step twice: once for the number, once for the array
    assert sum(s.get("compiles", 0) for s in entry["signatures"]) == 2, entry["signatures"]
    assert len(found) == 1, found
    (d,) = found
    row = _line(program, made)
    assert (d["location"]["row"], d["location"]["column"]) == (row, source.splitlines()[row - 1].index(at) + 1), d
    number = start
    assert re.search(rf"`{re.escape(label)}` changes from the Python (int|float) {re.escape(number)} \(static\) "
                     rf"to (i32|f32)\[\] weak", d["message"]), d["message"]
    assert (f"`{label}` starts as the Python number {number} made at line {_line(program, made)}, which "
            f"`equinox.filter_jit` keeps static") in d["message"], d["message"]
    assert f"make it an array there (`jnp.asarray({number})`)" in d["message"], d["message"]
    related = [(r["location"]["row"], r["message"]) for r in d["related"]]
    assert related[0] == (_line(program, call), "the call that compiles again"), related


@pytest.mark.parametrize("program, start", [(CNF, "jnp.asarray(0)"), (FIELD, "jnp.asarray(0)"),
                                            (DECAY, "jnp.asarray(0.1)")],
                         ids=["cnf-step", "module-field", "decayed-lr"])
def test_the_number_made_an_array_as_said_compiles_once_and_is_quiet(tmp_path, program, start):
    (tmp_path / "prog.py").write_text(program.replace("START", start).lstrip())
    entry, found = _record_and_check(tmp_path)
    assert sum(s.get("compiles", 0) for s in entry["signatures"]) == 1, entry["signatures"]
    assert found == [], found


def test_a_static_number_the_source_does_not_show_made_is_reported_at_the_call(tmp_path):
    # the start comes from the program's arguments: no line shows the number made, so the
    # finding stays at the call that compiled again, naming the change
    source = CNF.replace("def main(steps=4):", "def main(start, steps=4):").replace("step = START", "step = start") \
        .replace("    main()", "    import sys\n    main(int(sys.argv[1]) if len(sys.argv) > 1 else 0)").lstrip()
    (tmp_path / "prog.py").write_text(source)
    entry, found = _record_and_check(tmp_path)
    assert sum(s.get("compiles", 0) for s in entry["signatures"]) == 2, entry["signatures"]
    assert [d["location"]["row"] for d in found] == [_line(source, "model, opt_state, step, key = make_step(")], found
    assert "`step` changes from the Python int 0 (static) to i32[] weak" in found[0]["message"], found
    assert "starts as the Python number" not in found[0]["message"], found
