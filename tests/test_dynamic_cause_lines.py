"""Issue 37, the eighth judgement's misplaced findings: real `jaxlint record` of small
programs with real jax (equinox, flax), then `check --dynamic`, each finding at the line the
user changes:

* a smaller final batch made by the program's own generator (diffrax's latent ODE: the
  `dataloader` yields a last, shorter slice) is JAX208 at the generator's batch loop, with
  the call that compiled again related;
* a weak-typed value made in a class's `__init__` (diffrax's neural ODE:
  `self.out_scale = jnp.array(1.0)` in `Func`, reached as `model.func.out_scale`) is JAX208 at
  that assignment, saying it is an array without a dtype, not a Python number;
* an `nnx.jit` step that takes its `nnx.ModelAndOptimizer` after the batch (flax's digits
  diffusion: `train_step(model, data, rngs, optimizer)`) is JAX302 naming the model and the
  optimizer (nnx passes each argument's state where the argument stands; jaxlint's trace puts
  the graph objects' state first, and took the executable's parameters in its own order).

The ninth judgement's (optimistix interactive, rlax simple DQN):

* a weak start value that a later call had (the first compile had a strong one) is followed
  in that call to the line that made it;
* a second compile for leaves the function never reads (a `TimeStep` whose `reward` is None
  at a restart) is reported at the call that passes the whole structure."""
from __future__ import annotations

import pytest

from test_dynamic_issue37 import NNX_STEP, _findings, _line, _record_and_check

pytest.importorskip("jax")

LAST_BATCH = '''
import jax
import jax.numpy as jnp


def dataloader(x, batch_size):
    size = x.shape[0]
    while True:
        start, end = 0, batch_size
        while start < size:  # batches
            yield (x[start:end],)
            start, end = end, end + batch_size


@jax.jit
def step(w, xb):
    return w - 0.1 * (xb @ w).mean()


if __name__ == "__main__":
    w = jnp.ones((4, 4))
    data = jnp.ones((36, 4))
    for i, (xb,) in zip(range(6), dataloader(data, 8)):
        w = step(w, xb)  # called
'''


def test_a_smaller_final_batch_is_reported_at_the_generator_loop_that_makes_it(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.jaxlint]\nselect = ["JAX208"]\n')
    (tmp_path / "prog.py").write_text(LAST_BATCH.lstrip())
    out = _record_and_check(tmp_path, compile_=False)
    found = _findings(out, "JAX208")
    assert [f[0] for f in found] == [_line(LAST_BATCH, "# batches")], out
    msg = found[0][2]
    assert "`xb` changes shape (8, 4) -> (4, 4) (a smaller final batch or sequence" in msg, msg
    assert f"the batches of `xb` are made by the loop at line {_line(LAST_BATCH, '# batches')}" in msg, msg


def test_batches_the_loop_makes_itself_stay_at_the_call(tmp_path):
    """A batch sliced in the loop body, not by a generator of the file: the call, as before."""
    (tmp_path / "pyproject.toml").write_text('[tool.jaxlint]\nselect = ["JAX208"]\n')
    inline = LAST_BATCH.replace(
        "    for i, (xb,) in zip(range(6), dataloader(data, 8)):\n",
        "    for i in range(5):\n        xb = data[8 * i:8 * i + 8]\n")
    (tmp_path / "prog.py").write_text(inline.lstrip())
    found = _findings(_record_and_check(tmp_path, compile_=False), "JAX208")
    assert [f[0] for f in found] == [_line(inline, "# called")], found
    assert "made by the loop" not in found[0][2]


WEAK_FIELD = '''
import equinox as eqx
import jax
import jax.numpy as jnp


class Func(eqx.Module):
    out_scale: jax.Array
    w: jax.Array

    def __init__(self, size):
        self.out_scale = jnp.array(1.0)  # made
        self.w = jnp.ones((size, size))


class Model(eqx.Module):
    func: Func

    def __init__(self, size):
        self.func = Func(size)


@eqx.filter_jit
def make_step(model, x):
    return jax.tree_util.tree_map(lambda p: p - 0.1 * jnp.mean(x) * p, model)


if __name__ == "__main__":
    model = Model(4)
    for _ in range(3):
        model = make_step(model, jnp.ones(4))  # called
'''


def _weak_finding(tmp_path, program: str, column: int) -> tuple[int, str]:
    """Record and check ``program``: its one JAX208 must be at the line marked `# made` (and
    ``column``); that line and the finding's message."""
    (tmp_path / "pyproject.toml").write_text('[tool.jaxlint]\nselect = ["JAX208"]\n')
    (tmp_path / "prog.py").write_text(program.lstrip())
    found = _findings(_record_and_check(tmp_path, compile_=False), "JAX208")
    made = _line(program, "# made")
    assert [f[:2] for f in found] == [(made, column)], found
    return made, found[0][2]


def test_a_weak_typed_array_made_in_a_constructor_is_reported_at_its_assignment(tmp_path):
    pytest.importorskip("equinox")
    made, msg = _weak_finding(tmp_path, WEAK_FIELD, 26)
    # an array already, weak because it has no dtype: not "a Python number"
    assert "`model.func.out_scale` changes weak type (a weak-typed array -> a strong one)" in msg, msg
    assert (f"`model.func.out_scale` is made weak-typed at line {made} (`jnp.array(1.0)` has no dtype" in msg
            and "give it one there (`dtype=jnp.float32`)" in msg), msg
    assert "Python number" not in msg, msg


WEAK_THROUGH_A_PARAMETER = '''
import jax
import jax.numpy as jnp

y = jnp.array(0.0)  # made


@jax.jit
def step(y):
    return jnp.tanh(y + 1.0).astype(jnp.float32)


def solve(y):
    for _ in range(4):
        y = step(y)  # called
    return y


if __name__ == "__main__":
    solve(y)
    solve(y)
'''


def test_a_weak_typed_array_passed_through_a_parameter_is_reported_where_it_is_made(tmp_path):
    """The ninth judgement's optimistix program: the weak-typed start value is made at module
    level and reaches the jitted step through `solve`'s parameter (every call of `solve` passes
    the same binding): JAX208 at that line, said as an array without a dtype."""
    made, msg = _weak_finding(tmp_path, WEAK_THROUGH_A_PARAMETER, 1)
    assert "`y` changes weak type (a weak-typed array -> a strong one)" in msg, msg
    assert f"`y` is made weak-typed at line {made} (`jnp.array(0.0)` has no dtype" in msg, msg
    assert "Python number" not in msg, msg


WEAK_IN_A_LATER_CALL = '''
import jax
import jax.numpy as jnp

y = jnp.array(0.0)  # made


@jax.jit
def fn(y):
    return jnp.tanh(y + 1.0)


@jax.jit
def g(y):
    return jnp.sin(y)


def solve(y):
    fn(jnp.zeros((), jnp.float32))  # a strong value first, as a solver's init evaluates it
    g(jnp.zeros((), jnp.float32))
    for _ in range(4):
        print(fn(y))  # called
        z = jnp.array(float(y))
        print(g(z))  # computed
        y = (y - 0.5 * fn(y)).astype(jnp.float32)
    return y


if __name__ == "__main__":
    solve(y)
    solve(y)
'''


def test_a_weak_value_a_later_call_had_is_followed_where_it_is_made(tmp_path):
    """The ninth judgement's `fn` (optimistix interactive): its first compile had a strong
    `y`, the loop's first call the weak start value: followed in the call that had it, to the
    line that made it, the call related. `g`'s later weak value is computed
    (`jnp.array(float(y))`), no literal: nothing shows it made weak, so it stays at the call."""
    (tmp_path / "pyproject.toml").write_text('[tool.jaxlint]\nselect = ["JAX208"]\n')
    (tmp_path / "prog.py").write_text(WEAK_IN_A_LATER_CALL.lstrip())
    found = _findings(_record_and_check(tmp_path, compile_=False), "JAX208")
    made = _line(WEAK_IN_A_LATER_CALL, "# made")
    assert [f[0] for f in found] == [made, _line(WEAK_IN_A_LATER_CALL, "# computed")], found
    msg = found[0][2]
    assert "`y` changes weak type (a strong array -> a weak-typed one)" in msg, msg
    assert f"`y` is made weak-typed at line {made} (`jnp.array(0.0)` has no dtype" in msg, msg
    assert "(`dtype=jnp.float32`)" in msg, msg


UNREAD_LEAVES = '''
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp


class TimeStep(NamedTuple):  # dm_env's: no reward or discount at a restart
    reward: Any
    discount: Any
    observation: Any


class Agent:
    def __init__(self):
        self.act = jax.jit(self.act)  # a jitted bound method, as the DQN's actor_step

    def act(self, params, timestep):
        return jnp.argmax(timestep.observation @ params)


@jax.jit
def learn(params, timestep):
    if timestep.reward is None:
        return params
    return params + timestep.reward * jnp.mean(timestep.observation)


if __name__ == "__main__":
    params, agent = jnp.ones((4, 3)), Agent()
    for episode in range(3):
        timestep = TimeStep(None, None, jnp.zeros(4))
        for t in range(5):
            action = agent.act(params, timestep)  # whole
            params = learn(params, timestep)  # reads
            timestep = TimeStep(1.0, 0.99, jnp.ones(4) * t)
'''


def test_a_recompile_for_leaves_the_function_never_reads_is_reported_at_the_call(tmp_path):
    """The ninth judgement's DQN actor: a `TimeStep` whose `reward` and `discount` are None at a
    restart and floats after is a second compile for the same shapes; the actor reads only the
    observation (jax drops the unread leaves): avoidable for certain, reported at the call that
    passes the whole structure. `learn` reads the reward when it is there: its two programs
    differ, a pair it means, quiet."""
    (tmp_path / "pyproject.toml").write_text('[tool.jaxlint]\nselect = ["JAX208"]\n')
    (tmp_path / "prog.py").write_text(UNREAD_LEAVES.lstrip())
    found = _findings(_record_and_check(tmp_path, compile_=False), "JAX208")
    assert [f[0] for f in found] == [_line(UNREAD_LEAVES, "# whole")], found
    msg = found[0][2]
    assert msg.startswith("`Agent.act` was traced and compiled for 2 different signatures (calls: 12, 3): "), msg
    assert ("the function never reads `timestep.reward` or `timestep.discount`: jax traces the same program "
            "without them" in msg and "avoidable for certain; pass only what it reads "
            "(`timestep` read only at `timestep.observation`)" in msg), msg


def _model_and_optimizer() -> str:
    """The nnx step of test_dynamic_issue37, as the digits diffusion writes it: an
    `nnx.ModelAndOptimizer` (adamw behind gradient clipping) taken after the batch and an
    `nnx.Rngs` (whose key array is a `u32[2]` parameter of the executable)."""
    program = NNX_STEP.format(donate="")
    for old, new in (("def train_step(model, optimizer, x, y):",
                      "def train_step(model, x, y, rngs, optimizer):  # step\n    noise = rngs.normal(x.shape)"),
                     ("jnp.mean((model(x) - y) ** 2)", "jnp.mean((model(x + noise) - y) ** 2)"),
                     ("optimizer.update(model, grads)", "optimizer.update(grads)"),
                     ("nnx.Optimizer(model, optax.adam(1e-3), wrt=nnx.Param)",
                      "nnx.ModelAndOptimizer(model, optax.chain(optax.clip_by_global_norm(0.5), optax.adamw(1e-3)))"),
                     ("x, y = jnp.ones((8, 512)), jnp.zeros((8, 1))",
                      "x, y, rngs = jnp.ones((8, 512)), jnp.zeros((8, 1)), nnx.Rngs(1)"),
                     ("train_step(model, optimizer, x, y)", "train_step(model, x, y, rngs, optimizer)")):
        assert old in program, old
        program = program.replace(old, new)
    return program


def test_an_nnx_step_names_the_optimizer_it_takes_after_the_batch(tmp_path):
    pytest.importorskip("flax")
    (tmp_path / "pyproject.toml").write_text('[tool.jaxlint]\nselect = ["JAX302"]\n')
    program = _model_and_optimizer()
    (tmp_path / "prog.py").write_text(program.lstrip())
    found = _findings(_record_and_check(tmp_path, compile_=True), "JAX302")
    assert [f[0] for f in found] == [_line(program, "# step")], found
    msg = found[0][2]
    # adamw's two moments (2 MiB) and its counters are updated in place beside the model's 1 MiB
    assert "arguments `model` (4 arrays, 1.0 MiB) and `optimizer` (10 arrays, 2.0 MiB)" in msg, msg
    assert "add donate_argnames=('model', 'optimizer')" in msg, msg
