"""Issue 37, the rest: dynamic findings at the line the user changes. Real `jaxlint record`
of small programs with real jax (and flax), then `check --dynamic`:

* an ``nnx.jit`` training step that updates its model and optimizer in place without
  donating them is JAX302 (it was silent: the program's own executable returns the graph
  objects' state before the step's outputs, so no output lined up with an update);
* a generation loop whose input grows by one token per call compiles once per length: JAX208
  says so after three lengths already."""
from __future__ import annotations

import re

import pytest

from helpers import run_cli

pytest.importorskip("jax")

NNX_STEP = '''
import jax.numpy as jnp
import optax
from flax import nnx


class Model(nnx.Module):
    def __init__(self, rngs):
        self.fc1 = nnx.Linear(512, 512, rngs=rngs)
        self.fc2 = nnx.Linear(512, 1, rngs=rngs)

    def __call__(self, x):
        return self.fc2(nnx.relu(self.fc1(x)))


@nnx.jit{donate}
def train_step(model, optimizer, x, y):
    def loss_fn(model):
        return jnp.mean((model(x) - y) ** 2)

    loss, grads = nnx.value_and_grad(loss_fn)(model)
    optimizer.update(model, grads)
    return loss


if __name__ == "__main__":
    model = Model(nnx.Rngs(0))
    optimizer = nnx.Optimizer(model, optax.adam(1e-3), wrt=nnx.Param)
    x, y = jnp.ones((8, 512)), jnp.zeros((8, 1))
    for _ in range(3):
        train_step(model, optimizer, x, y)
'''


def _record_and_check(root, *, compile_: bool) -> str:
    extra = ["--compile"] if compile_ else []
    rec = run_cli("record", *extra, "--", "python", "prog.py", cwd=root, timeout=600)
    assert rec.returncode == 0, rec.stderr[-3000:]
    proc = run_cli("check", "--dynamic", *extra, "--no-cache", "--output-format", "concise", "prog.py",
                   cwd=root, timeout=600)
    assert proc.returncode in (0, 1), proc.stderr[-3000:]
    return proc.stdout


def test_nnx_jit_step_updating_model_and_optimizer_in_place_is_told_to_donate(tmp_path):
    pytest.importorskip("flax")
    (tmp_path / "pyproject.toml").write_text('[tool.jaxlint]\nselect = ["JAX302"]\n')
    (tmp_path / "prog.py").write_text(NNX_STEP.format(donate="").lstrip())
    out = _record_and_check(tmp_path, compile_=True)
    found = re.findall(r"^prog\.py:(\d+):\d+: JAX302 (.*)$", out, re.M)
    lines = NNX_STEP.format(donate="").lstrip().splitlines()
    assert [int(n) for n, _ in found] == [lines.index("def train_step(model, optimizer, x, y):") + 1], out
    msg = found[0][1]
    # both graph objects, whole: every parameter and both adam moments are updates of themselves
    assert "arguments `model` (4 arrays, 1.0 MiB) and `optimizer` (" in msg, msg
    assert "add donate_argnames=('model', 'optimizer')" in msg, msg
    # nnx.jit updates the objects in place: the recording cannot see whether the caller
    # kept the old arrays, so the advice keeps its condition
    assert msg.endswith("if the caller does not reuse them"), msg


def test_nnx_jit_step_that_donates_is_quiet(tmp_path):
    pytest.importorskip("flax")
    (tmp_path / "pyproject.toml").write_text('[tool.jaxlint]\nselect = ["JAX302"]\n')
    (tmp_path / "prog.py").write_text(NNX_STEP.format(donate="(donate_argnums=(0, 1))").lstrip())
    out = _record_and_check(tmp_path, compile_=True)
    assert "JAX302" not in out, out


GROWING = '''
import jax
import jax.numpy as jnp


@jax.jit
def next_token(params, tokens):
    logits = jnp.take(params, tokens, axis=0).sum(axis=1)
    return jnp.argmax(logits, axis=-1)


if __name__ == "__main__":
    params = jnp.ones((16, 16))
    tokens = jnp.zeros((1, 6), jnp.int32)
    for _ in range(3):
        token = next_token(params, tokens)
        tokens = jnp.concatenate([tokens, token[:, None]], axis=1)  # grows
    print(tokens.shape)
'''


def _findings(out: str, code: str) -> list[tuple[int, int, str]]:
    return [(int(a), int(b), m) for a, b, m in re.findall(rf"^prog\.py:(\d+):(\d+): {code} (.*)$", out, re.M)]


def _line(program: str, marker: str) -> int:
    return next(i for i, text in enumerate(program.lstrip().splitlines(), 1) if marker in text)


def test_a_generation_loop_growing_one_token_a_call_is_reported_at_the_line_that_grows_it(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.jaxlint]\nselect = ["JAX208"]\n')
    (tmp_path / "prog.py").write_text(GROWING.lstrip())
    found = _findings(_record_and_check(tmp_path, compile_=False), "JAX208")
    # three lengths, one a call, from one line: growth, not three sizes a script meant
    assert [f[:2] for f in found] == [(_line(GROWING, "# grows"), 9)], found
    assert "`tokens` grows along axis 1 call after call, (1, 6) -> (1, 7) -> (1, 8)" in found[0][2]


def test_three_sizes_of_a_sweep_stay_quiet(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.jaxlint]\nselect = ["JAX208"]\n')
    sweep = GROWING.replace("tokens = jnp.zeros((1, 6), jnp.int32)", "tokens = jnp.zeros((1, 100), jnp.int32)") \
        .replace("tokens = jnp.concatenate([tokens, token[:, None]], axis=1)  # grows",
                 "tokens = jnp.zeros((1, tokens.shape[1] + 100), jnp.int32)")
    (tmp_path / "prog.py").write_text(sweep.lstrip())
    assert _findings(_record_and_check(tmp_path, compile_=False), "JAX208") == []


WEAK_STATE = '''
from typing import NamedTuple

import jax
import jax.numpy as jnp


class State(NamedTuple):
    w: jax.Array
    step: int


@jax.jit
def update(state, g):
    return State(state.w - 0.1 * g, state.step + jnp.ones((), jnp.int32))


if __name__ == "__main__":
    state = State(jnp.ones(4), step=0)  # made
    for _ in range(3):
        state = update(state, jnp.ones(4))  # called
'''

GYMNAX_STYLE = '''
from typing import NamedTuple

import jax
import jax.numpy as jnp


class EnvState(NamedTuple):
    x: jax.Array
    time: int


def reset():
    return EnvState(x=jnp.zeros(2), time=0)  # made


@jax.jit
def env_step(state, action):
    return EnvState(x=state.x + action, time=state.time + jnp.ones((), jnp.int32))


if __name__ == "__main__":
    state = reset()
    for _ in range(3):
        state = env_step(state, jnp.ones(2))  # called
'''

TRAIN_STATE = '''
import jax
import jax.numpy as jnp
import optax
from flax.training.train_state import TrainState


@jax.jit
def train_step(state, x):
    grads = jax.grad(lambda p: jnp.sum((x @ p["w"]) ** 2))(state.params)
    state = state.apply_gradients(grads=grads)
    return state.replace(step=jnp.asarray(state.step, jnp.int32))


if __name__ == "__main__":
    state = TrainState.create(apply_fn=None, params={"w": jnp.ones((4, 2))}, tx=optax.sgd(0.1))  # made
    for _ in range(3):
        state = train_step(state, jnp.ones((8, 4)))  # called
'''

# the seventh judgement's jaxopt lasso: `theta = 1.0`, a weak Python float, comes back from
# the update a strong float32 array (there through jaxopt's own jit, here the program's)
WEAK_SCALAR = '''
import jax
import jax.numpy as jnp


@jax.jit
def update(theta, g):
    return theta - 0.1 * g


if __name__ == "__main__":
    theta = 1.0  # made
    for _ in range(3):
        theta = update(theta, jnp.ones(()))  # called
'''


@pytest.mark.parametrize("program, field", [(WEAK_STATE, "state.step"), (GYMNAX_STYLE, "state.time"),
                                            (TRAIN_STATE, "state.step"), (WEAK_SCALAR, "theta")],
                         ids=["literal-in-constructor", "gymnax-style-reset", "flax-train-state", "python-float-start"])
def test_a_weak_typed_start_value_is_reported_where_it_is_made(tmp_path, program, field):
    if program is TRAIN_STATE:
        pytest.importorskip("flax")
    (tmp_path / "pyproject.toml").write_text('[tool.jaxlint]\nselect = ["JAX208"]\n')
    (tmp_path / "prog.py").write_text(program.lstrip())
    found = _findings(_record_and_check(tmp_path, compile_=False), "JAX208")
    made = _line(program, "# made")
    assert [f[0] for f in found] == [made], found
    msg = found[0][2]
    assert f"`{field}` changes weak type (a Python scalar -> an array)" in msg, msg
    assert f"`{field}` starts as the Python number made at line {made}" in msg, msg


WHILE_LOOP_FIRST = '''
import jax
import jax.numpy as jnp
from jax import lax


def minimise(x0):
    @jax.jit
    def cond_fn(val):
        x, i = val
        return jnp.logical_and(jnp.abs(x).max() > 1e-3, i < 100)

    @jax.jit
    def body_fn(val):
        x, i = val
        return x * 0.5, i + 1

    return lax.while_loop(cond_fn, body_fn, (x0, 0))


if __name__ == "__main__":
    print(minimise(jnp.ones(3)))
'''


def test_a_first_recorded_call_inside_a_trace_is_noted(tmp_path):
    # jax-md's minimisers: the program's first jitted calls come from a top-level
    # lax.while_loop's trace; the recorder took a tracer's type for the array type and then
    # failed on every call ("DynamicJaxprTracer has no attribute _committed")
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "prog.py").write_text(WHILE_LOOP_FIRST.lstrip())
    rec = run_cli("record", "--", "python", "prog.py", cwd=tmp_path, timeout=600)
    assert rec.returncode == 0, rec.stderr[-3000:]
    assert "the recorder failed" not in rec.stdout + rec.stderr, rec.stdout + rec.stderr[-3000:]
    assert "2 jitted functions called" in rec.stdout + rec.stderr


PLACED = '''
import jax
import jax.numpy as jnp
from flax import jax_utils


@jax.jit
def update(state, batch):
    return {"w": state["w"] - 0.1 * batch.mean(), "m": state["m"] * 0.9}


def init():
    return {"w": jnp.ones((64, 64)), "m": jnp.zeros((64, 64))}


def get_batch(i):
    return jax.device_put(jnp.full((8, 64), float(i)), jax.devices()[0])


def sgd(params, x):
    return jax.tree_util.tree_map(lambda p: p - 0.1 * x.mean(), params)


if __name__ == "__main__":
    state = init()  # made by default
    for i in range(4):
        state = update(state, get_batch(i))  # called with a committed batch
    p_sgd = jax.pmap(sgd, axis_name="batch")
    params_repl = jax_utils.replicate({"w": jnp.ones((32, 32))})  # replicated
    for _ in range(3):
        params_repl = p_sgd(params_repl, jnp.ones((1, 8, 32)))  # called under pmap
'''


def test_a_recompile_from_placement_is_reported_where_the_value_is_made(tmp_path):
    # the seventh judgement's two true JAX208s, reported at the call: numpyro tbip's state
    # from `init` (uncommitted) that the step returns committed to the batch's device, and
    # vit_jax's parameters replicated by flax (a `_device_put_sharded` mesh) that the pmap
    # returns on its own mesh. The line to change is where the first call's value is made
    pytest.importorskip("flax")
    (tmp_path / "pyproject.toml").write_text('[tool.jaxlint]\nselect = ["JAX208"]\n')
    (tmp_path / "prog.py").write_text(PLACED.lstrip())
    found = _findings(_record_and_check(tmp_path, compile_=True), "JAX208")
    made, replicated = _line(PLACED, "# made by default"), _line(PLACED, "# replicated")
    assert [f[0] for f in found] == [made, replicated], found
    by_line = {f[0]: f[2] for f in found}
    assert "`state['m']` changes sharding uncommitted on one device (the default) -> committed to" in by_line[made]
    assert by_line[made].endswith(f"the `state` of the first call is made at line {made}: place it there as the "
                                  f"later calls get it"), by_line[made]
    assert "changes sharding P('_device_put_sharded')" in by_line[replicated], by_line[replicated]
    assert f"the `params` of the first call is made at line {replicated}" in by_line[replicated]
