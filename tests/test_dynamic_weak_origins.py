"""Issue 37, the nineteenth judgement's two JAX208s, reported at the call that compiled
again and not where the weak value is made: real `jaxlint record` of small programs and
of a notebook run by a real kernel, real jax, equinox and optax.

* a step size that starts as a Python number (weak) and that the sampler's loop rebinds,
  after its burn-in, to what NumPy returns (`eps = np.exp(np.mean(np.log(eps_list)))`, a
  NumPy float64 that jit takes as a strong float32): JAX208 at that statement, `float(...)`
  the remedy;
* an `eqx.Module`'s fields made by `jnp.array(1.0)` in a function that builds the model,
  called by another that returns it in a tuple with the optimizer and its state, unpacked
  into module globals (`net, optimizer, opt_state = init_trainer()`) before the loop:
  followed through the unpacking, the returns and the constructor's parameters to the
  literals, said as arrays made weak (no dtype), not as Python scalars;
* in a notebook, the same two with every piece in its own cell: the source is the
  notebook's code cells, not the file's JSON."""
from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from helpers import run_cli
from test_dynamic_issue37 import _findings, _line, _record_and_check

pytest.importorskip("jax")

HOST_REBOUND = '''
import jax
import jax.numpy as jnp
import numpy as np


@jax.jit
def step(x, eps):
    return x - eps * x


def run(x, eps, n, burn_in):
    eps_list = np.full(4, eps)
    for i in range(n):
        for _ in range(3):
            x = step(x, eps)  # called
        if i >= burn_in:
            eps = np.exp(np.mean(np.log(eps_list)))  # made
        else:
            eps *= 1.01
            eps_list[1:] = eps_list[:-1]
            eps_list[0] = eps
    return x


if __name__ == "__main__":
    print(run(jnp.ones(3), 0.01, 8, 4))
'''


def _jax208(root: Path, program: str) -> list[tuple[int, int, str]]:
    """JAX208's findings on ``program`` after a real `jaxlint record` of it."""
    (root / "pyproject.toml").write_text('[tool.jaxlint]\nselect = ["JAX208"]\n')
    (root / "prog.py").write_text(program.lstrip())
    return _findings(_record_and_check(root, compile_=False), "JAX208")


def _at_made(root: Path, program: str) -> tuple[int, str]:
    """(the line marked `# made`, the message) of the one JAX208 of ``program``, at that line."""
    found, made = _jax208(root, program), _line(program, "# made")
    assert [f[0] for f in found] == [made], found
    return made, found[0][2]


def test_a_python_number_the_loop_makes_a_numpy_scalar_is_reported_where_numpy_makes_it(tmp_path):
    made, msg = _at_made(tmp_path, HOST_REBOUND)
    assert "`eps` changes weak type (a Python scalar -> an array)" in msg, msg
    assert (f"the loop rebinds it at line {made} to what NumPy returns (`np.exp(np.mean(np.log(eps_list)))`), "
            "a NumPy scalar that jit takes as a strong f32[]: keep it a Python number there (`float(...)`)") in msg, msg


def test_a_python_number_the_loop_keeps_one_is_not_sent_to_the_numpy_line(tmp_path):
    # `float(...)` at that line, the fix: one signature, no finding
    fixed = HOST_REBOUND.replace("eps = np.exp(", "eps = float(np.exp(").replace("(eps_list)))  # made", "(eps_list))))")
    assert _jax208(tmp_path, fixed) == []


WEAK_FIELDS_RETURNED = '''
import equinox as eqx
import jax
import jax.numpy as jnp
import optax


class Net(eqx.Module):
    layer: eqx.nn.Linear
    d: jax.Array
    w0: jax.Array

    def __init__(self, d, w0, key):
        self.layer = eqx.nn.Linear(1, 1, key=key)
        self.d = d
        self.w0 = w0

    def __call__(self, x):
        return self.layer(x) * self.w0 + self.d


def init_net(key):
    net = Net(
        d=jnp.array(1.0),  # made
        w0=jnp.array(10.0),  # also
        key=key,
    )
    return net


def init_trainer():
    net = init_net(jax.random.PRNGKey(0))
    optimizer = optax.adam(1e-3)
    opt_state = optimizer.init(eqx.filter(net, eqx.is_array))
    return net, optimizer, opt_state


net, optimizer, opt_state = init_trainer()


@eqx.filter_jit
def update(model, state, x):
    loss, grads = eqx.filter_value_and_grad(lambda m: jnp.sum(m(x) ** 2))(model)
    updates, state = optimizer.update(grads, state)
    return eqx.apply_updates(model, updates), state, loss


for _ in range(4):
    net, opt_state, loss = update(net, opt_state, jnp.ones(1))  # called
print(loss)
'''


def test_weak_fields_made_in_a_function_that_returns_the_model_are_reported_at_their_literals(tmp_path):
    pytest.importorskip("equinox")
    pytest.importorskip("optax")
    (made, msg), also = _at_made(tmp_path, WEAK_FIELDS_RETURNED), _line(WEAK_FIELDS_RETURNED, "# also")
    # equinox keeps a Python number static: a weak leaf it traces is an array made without a dtype
    assert "`model.d` changes weak type (a weak-typed array -> a strong one)" in msg, msg
    assert "Python scalar" not in msg and "Python number" not in msg, msg
    assert (f"`model.d` is made weak-typed at line {made} (`jnp.array(1.0)` has no dtype" in msg
            and "give it one there (`dtype=jnp.float32`)" in msg), msg
    assert f"`model.w0` is made weak-typed at line {also} (`jnp.array(10.0)`): give it a dtype there too" in msg, msg


WEAK_ARRAY_MADE_ELSEWHERE = '''
import equinox as eqx
import jax.numpy as jnp


@eqx.filter_jit
def step(y):
    return jnp.tanh(y + 1.0).astype(jnp.float32)


def start(v):
    return jnp.array(float(v))


y = start(3)  # made
for _ in range(3):
    y = step(y)
'''


def test_a_weak_typed_array_a_function_makes_is_not_called_a_python_number(tmp_path):
    # equinox keeps a Python number static: the weak `y` is an array (`jnp.array(float(v))` in
    # `start`), reported at the statement that made it as such, not as "the Python number made" there
    pytest.importorskip("equinox")
    made, msg = _at_made(tmp_path, WEAK_ARRAY_MADE_ELSEWHERE)
    assert "`y` changes weak type (a weak-typed array -> a strong one)" in msg, msg
    assert (f"`y` starts as a weak-typed array made at line {made}: give it the dtype the step returns there "
            "(`jnp.float32`)") in msg, msg
    assert "Python" not in msg, msg


def _cells(*sources: str) -> dict:
    return {"cells": [{"cell_type": "code", "execution_count": None, "id": f"c{i}", "metadata": {}, "outputs": [],
                       "source": src.strip("\n").splitlines(keepends=True)} for i, src in enumerate(sources)],
            "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}},
            "nbformat": 4, "nbformat_minor": 5}


def test_in_a_notebook_each_cause_is_followed_across_its_cells(tmp_path):
    """The two programs' notebooks: the model made in one cell, returned by a function of
    another, unpacked in a third and trained in a fourth; the sampler's step size rebound by
    NumPy in the cell of its loop. Before, the source was read from the notebook's JSON,
    which says nothing: both stayed at the calls."""
    pytest.importorskip("equinox")
    pytest.importorskip("optax")
    for module in ("nbclient", "ipykernel"):
        if importlib.util.find_spec(module) is None:  # pragma: no cover - the test extra installs both
            pytest.skip(f"{module} is not installed: no kernel to record")
    if not (Path(sys.executable).parent / "jupyter").is_file():  # pragma: no cover
        pytest.skip("no `jupyter` command beside this interpreter")
    src = WEAK_FIELDS_RETURNED.lstrip()
    model, trainer = src.index("def init_net"), src.index("def init_trainer")
    globals_, jitted = src.index("net, optimizer, opt_state ="), src.index("@eqx.filter_jit")
    host = HOST_REBOUND.lstrip()
    cells = [src[:src.index("class Net")], src[src.index("class Net"):model], src[model:trainer],
             src[trainer:globals_], src[globals_:jitted], src[jitted:],
             host[:host.index("if __name__")] + "print(run(jnp.ones(3), 0.01, 8, 4))\n"]
    (tmp_path / "pyproject.toml").write_text('[tool.jaxlint]\nselect = ["JAX208"]\n')
    (tmp_path / "nb.ipynb").write_text(json.dumps(_cells(*cells)))
    rec = run_cli("record", "--", "jupyter", "execute", "nb.ipynb", cwd=tmp_path, timeout=600)
    assert rec.returncode == 0, rec.stderr[-3000:]
    proc = run_cli("check", "--dynamic", "--no-cache", "--output-format", "json", "nb.ipynb", cwd=tmp_path,
                   timeout=600)
    assert proc.returncode in (0, 1), proc.stderr[-3000:]
    findings = sorted((d for d in json.loads(proc.stdout) if d["code"] == "JAX208"), key=lambda d: d["cell"])
    found = [(d["cell"], d["location"]["row"], d["message"]) for d in findings]

    def at(cell: int, marker: str) -> int:
        return _line(cells[cell - 1], marker)

    assert [f[:2] for f in found] == [(3, at(3, "# made")), (7, at(7, "# made"))], found
    weak, numpy = found[0][2], found[1][2]
    # the lines the messages name are the cells' too
    assert (f"`model.d` is made weak-typed at cell 3, line {at(3, '# made')} (`jnp.array(1.0)` has no dtype" in weak
            and f"`model.w0` is made weak-typed at cell 3, line {at(3, '# also')} (`jnp.array(10.0)`)" in weak), weak
    assert "Python scalar" not in weak, weak
    assert (f"the loop rebinds it at cell 7, line {at(7, '# made')} to what NumPy returns" in numpy
            and "keep it a Python number there (`float(...)`)" in numpy), numpy
    # the call that compiled again is related, in its cell (a kernel's cell file was left out before)
    related = [[(r.get("cell"), r["location"]["row"]) for r in d["related"]
                if r["message"] == "the call that compiles again"] for d in findings]
    assert related == [[(6, at(6, "# called"))], [(7, at(7, "# called"))]], related
