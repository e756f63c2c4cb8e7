"""Eager jax operations between the calls of a jitted step (JAX213): real programs run
under `jaxlint record`, then `jaxlint check --dynamic`. The recorder counts every call
jax's C++ jit runs from its cache outside the recorded jitted functions (the post-call
hook `jax_debug_nans` uses) at the project's line that issued it, with the time one
operation took there and the calls of each recorded jitted function it ran between."""
from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path

from helpers import run_cli

OPTIONS = '[tool.jaxlint]\nselect = ["JAX212", "JAX213"]\n{more}'

#: a regression fitted with the gradient jitted and the optax update applied eagerly
EAGER_OPTAX = """
import jax
import jax.numpy as jnp
import optax

@jax.jit
def grads(params, x, y):
    return jax.grad(lambda p: jnp.mean((x @ p["w"] + p["b"] - y) ** 2))(params)

def main():
    params = {"w": jnp.zeros((8, 1)), "b": jnp.zeros(1)}
    opt = optax.adam(1e-2)
    state = opt.init(params)
    x, y = jnp.ones((32, 8)), jnp.ones((32, 1))
    for _ in range(40):
        g = grads(params, x, y)
        updates, state = opt.update(g, state, params)
        params = optax.apply_updates(params, updates)
    print(float(params["b"][0]))

if __name__ == "__main__":
    main()
"""
UPDATE_LINE, APPLY_LINE, MAIN_CALL_LINE = 16, 17, 21

#: a policy's forward called without jit on every move of a Python environment
EAGER_POLICY = """
import jax
import jax.numpy as jnp

class Walk:
    def __init__(self):
        self.pos = 0
    def step(self, action):
        self.pos += int(action) - 1
        return [float(self.pos), 1.0, 0.0, 0.5]

def policy(params, obs):
    for w, b in params["hidden"]:
        obs = jnp.tanh(obs @ w + b)
    return jnp.argmax(obs @ params["out"])

@jax.jit
def update(params, obs):
    return jax.tree.map(lambda p: p * 0.999 + 0.001 * jnp.mean(obs), params)

def main():
    params = {"hidden": [(jnp.ones((4, 16)) * 0.1, jnp.zeros(16))] + [(jnp.ones((16, 16)) * 0.1, jnp.zeros(16))] * 2,
              "out": jnp.ones((16, 3)) * 0.1}
    env = Walk()
    for episode in range(12):
        obs = env.step(1)
        for move in range(8):
            obs = env.step(policy(params, jnp.asarray(obs)))
        params = update(params, jnp.asarray(obs))
    print(env.pos)

if __name__ == "__main__":
    main()
"""
FORWARD_LINE, ARGMAX_LINE, MOVE_LINE = 13, 14, 27


def _project(folder: Path, source: str, options: str = "") -> Path:
    folder.mkdir(exist_ok=True)
    (folder / "pyproject.toml").write_text(OPTIONS.format(more=options))
    (folder / "prog.py").write_text(textwrap.dedent(source).lstrip())
    return folder


def _record(folder: Path) -> str:
    rec = run_cli("record", "--", "python", "prog.py", cwd=folder, timeout=300)
    assert rec.returncode == 0, rec.stderr[-3000:]
    return rec.stdout + rec.stderr


def _found(folder: Path) -> list[dict]:
    proc = run_cli("check", "--dynamic", "--no-cache", "--output-format", "json", "prog.py", cwd=folder, timeout=300)
    assert proc.returncode in (0, 1), proc.stderr[-3000:]
    return [d for d in json.loads(proc.stdout) if d["code"] == "JAX213"]


def _sites(folder: Path) -> dict:
    return (json.loads((folder / ".jaxlint" / "observed.json").read_text()).get("eager") or {}).get("sites") or {}


def test_an_eager_optax_update_between_jitted_gradients_is_reported_at_its_line(tmp_path):
    proj = _project(tmp_path / "p", EAGER_OPTAX)
    said = _record(proj)
    assert "1 line where eager jax operations run between the calls of a jitted step, each dispatched on its own (JAX213)" in said, said
    found = _found(proj)
    assert [d["location"]["row"] for d in found] == [UPDATE_LINE], found
    msg = found[0]["message"]
    assert "eager jax operations between calls of `grads` at this line, in 39 of its 39 intervals" in msg, msg
    assert f"(with line {APPLY_LINE}: " in msg, msg
    assert "move this work into `grads`" in msg, msg
    assert "ms of eager dispatch per call of `grads`" in msg and "(at least " in msg, msg  # the run's figures, from timings.json
    related = [(r["location"]["row"], r["message"]) for r in found[0]["related"]]
    assert related == [(APPLY_LINE, "2 more eager operation(s) between calls of `grads`"),
                       (MAIN_CALL_LINE, "called from here")], related
    # adam's update is more than a handful of operations per step, each counted
    data = found[0]["data"]
    assert data["step"] == "prog:grads" and data["calls"] == 40, data
    assert data["lines"][str(UPDATE_LINE)] >= 10 * 39 and data["lines"][str(APPLY_LINE)] >= 2 * 39, data
    site = _sites(proj)[f"prog.py:{UPDATE_LINE}:main"]
    assert site["dispatch"]["prog:grads"]["intervals"] == 39, site
    assert "seconds" not in site and "op_seconds" not in site, "the committed part holds no timings"


def test_an_eager_policy_forward_on_every_move_is_reported_at_the_loops_call_of_the_policy(tmp_path):
    proj = _project(tmp_path / "p", EAGER_POLICY)
    _record(proj)
    found = _found(proj)
    # the policy's lines run under the loop's call of it: the line to change is that call
    # (jit the policy), its heaviest lines related
    assert [d["location"]["row"] for d in found] == [MOVE_LINE], found
    msg = found[0]["message"]
    # 8 moves between two updates: each layer's matmul, add, tanh (3 layers: 72), the output's
    # matmul and argmax (16), the loop's own `jnp.asarray(obs)` (8)
    assert msg.startswith("96 eager jax operations between calls of `update` under this call of `policy`, in 11 of "
                          f"its 11 intervals (the most at line {FORWARD_LINE})"), msg
    assert "jit `policy`" in msg, msg
    related = [(r["location"]["row"], r["message"]) for r in found[0]["related"]]
    assert related[:2] == [(FORWARD_LINE, "72 eager operation(s) of `policy` here between calls of `update`"),
                           (ARGMAX_LINE, "16 eager operation(s) of `policy` here between calls of `update`")], related
    assert found[0]["data"]["inner"] == {f"prog.py:{FORWARD_LINE}": 72 * 11, f"prog.py:{ARGMAX_LINE}": 16 * 11}


#: a step run eagerly: the loop calls `train_step` (gradient and update without jit) and a jitted helper
EAGER_TRAIN_STEP = """
import jax
import jax.numpy as jnp

@jax.jit
def renorm(p):
    return jax.tree.map(lambda a: a / (1.0 + jnp.max(jnp.abs(a))), p)

def loss_fn(p, x, y):
    h = jnp.tanh(x @ p["w1"] + p["b1"])
    return jnp.mean((h @ p["w2"] - y) ** 2)

def train_step(p, x, y):
    loss, g = jax.value_and_grad(loss_fn)(p, x, y)
    p = jax.tree.map(lambda a, b: a - 0.1 * b, p, g)
    return p, loss

def main():
    k1, k2 = jax.random.split(jax.random.key(0))
    p = {"w1": jax.random.normal(k1, (8, 16)), "b1": jnp.zeros(16), "w2": jax.random.normal(k2, (16, 1))}
    x, y = jnp.ones((32, 8)), jnp.ones((32, 1))
    for _ in range(40):
        p, loss = train_step(p, x, y)
        p = renorm(p)
    print(float(loss))

if __name__ == "__main__":
    main()
"""
GRAD_LINE, UPDATE_TREE_LINE, TRAIN_CALL_LINE = 13, 14, 22


def test_a_whole_step_run_eagerly_is_reported_at_the_loops_call_of_it(tmp_path):
    proj = _project(tmp_path / "p", EAGER_TRAIN_STEP)
    _record(proj)
    found = _found(proj)
    # the gradient's and the update's operations run under `train_step(...)`: jit it
    assert [d["location"]["row"] for d in found] == [TRAIN_CALL_LINE], found
    msg = found[0]["message"]
    assert "between calls of `renorm` under this call of `train_step`, in 39 of its 39 intervals" in msg, msg
    assert "jit `train_step`" in msg, msg
    inner = found[0]["data"]["inner"]
    assert set(inner) == {f"prog.py:{GRAD_LINE}", f"prog.py:{UPDATE_TREE_LINE}"}, inner
    heaviest = max(inner, key=inner.get)
    assert f"(the most at line {heaviest.rpartition(':')[2]})" in msg, msg
    assert found[0]["related"][0]["location"]["row"] == int(heaviest.rpartition(":")[2]), found[0]["related"]
    # the value and gradient: tens of operations a step; the update: one per parameter
    assert inner[f"prog.py:{GRAD_LINE}"] >= 10 * 39 and inner[f"prog.py:{UPDATE_TREE_LINE}"] >= 3 * 39, inner


#: a loop whose eager work (a plotted frame's) runs every 30th step only, with a slow draw
EVERY_NTH = """
import time
import jax
import jax.numpy as jnp

@jax.jit
def step(w):
    return w - 0.01 * jnp.tanh(w)

if __name__ == "__main__":
    w = jnp.linspace(-1.0, 1.0, 64)
    for i in range(150):
        w = step(w)
        if i % 30 == 15:                   # a frame: a few eager operations and a slow draw
            y = w
            for _ in range(10):
                y = y * 1.01 + 0.1
            time.sleep(0.2)
    print(float(w.sum()))
"""
FRAME_LINE = 16


def test_eager_work_in_a_few_intervals_is_a_share_of_all_of_them(tmp_path):
    # 20 operations in 5 of 149 intervals, beside 1 s of drawing: about 1 % of the loop, not
    # several times the step's own interval
    proj = _project(tmp_path / "p", EVERY_NTH)
    _record(proj)
    assert not _found(proj)
    every = _project(tmp_path / "all", EVERY_NTH, "[tool.jaxlint.rules.JAX213]\nmin-share = 0\n")
    _record(every)
    found = _found(every)
    assert [d["location"]["row"] for d in found] == [FRAME_LINE], found
    msg = found[0]["message"]
    assert "20 eager jax operations between calls of `step` at this line, in 5 of its 149 intervals" in msg, msg
    share, period = re.search(r", (\d+)% of the ([\d.]+) ms from one call to the next", msg).groups()
    # the mean interval holds the draws: at least 5 x 200 ms over 148 intervals
    assert float(period) >= 1000 / 148, msg
    assert int(share) < 5, msg


def test_noise_made_eagerly_per_step_is_reported_and_the_jitted_loop_is_quiet():
    from jaxlint.rules.jaxpr.jax213_eager_dispatch import EagerDispatch

    # the rule's own examples: the eager noise (INVALID) and the same loop jitted, and set-up
    # and evaluation done once (VALID), are run by tests/test_rule_examples.py; here, that
    # they are what this file says they are
    assert "jax.random.normal(sub, x.shape)" in EagerDispatch.INVALID[0].code
    assert "@jax.jit\n            def denoise(x, key, i):" in EagerDispatch.VALID[0].code


def test_set_up_and_evaluation_run_once_are_not_between_calls(tmp_path):
    from jaxlint.rules.jaxpr.jax213_eager_dispatch import EagerDispatch

    once = EagerDispatch.VALID[1].code  # eager set-up before the loop, an evaluation after it
    assert "jnp.linspace" in once and "jnp.std(w)" in once
    proj = _project(tmp_path / "p", once, "[tool.jaxlint.rules.JAX213]\nmin-share = 0\n")
    _record(proj)
    assert not _sites(proj), _sites(proj)  # not even with no share asked for
    assert not _found(proj)


def test_a_few_cheap_operations_beside_a_long_step_are_under_the_share(tmp_path):
    source = """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def step(w, x):
            body = lambda i, x: jnp.tanh(x * w + 0.1)
            return jax.lax.fori_loop(0, 1_000_000, body, x)

        if __name__ == "__main__":
            w = jnp.full((8,), 0.5)
            x = jnp.ones((8,))
            for i in range(10):
                x = step(w, x) + 1.0          # one eager operation per step
                print(float(x[0]))
    """
    proj = _project(tmp_path / "long", source)
    _record(proj)
    # an eager `add` and a read beside 1,000,000 dependent iterations a step: long on any
    # backend (24 512x512 matmuls were not: a TPU runs them in well under a millisecond)
    assert not _found(proj)
    everything = _project(tmp_path / "all", source, "[tool.jaxlint.rules.JAX213]\nmin-share = 0\n")
    _record(everything)
    found = _found(everything)  # with no share asked for, the same line is reported
    # one finding, at the line that costs most (the `add` or the read of `x[0]`, by their
    # measured times), the other named with it
    rows = [d["location"]["row"] for d in found]
    assert rows in ([13], [14]) and f"(with line {27 - rows[0]}: " in found[0]["message"], found


def test_jax_debug_nans_still_checks_eager_operations_under_the_recorder(tmp_path):
    proj = _project(tmp_path / "p", """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def step(x):
            return x * 0.5

        if __name__ == "__main__":
            jax.config.update("jax_debug_nans", True)
            x = jnp.ones(4)
            for _ in range(8):
                x = step(x) + 1.0
            try:
                jnp.log(x - 10.0)
            except FloatingPointError:
                print("caught the NaN")
    """, "[tool.jaxlint.rules.JAX213]\nmin-share = 0\n")
    said = _record(proj)
    assert "caught the NaN" in said, said
    assert [d["location"]["row"] for d in _found(proj)] == [12]


def test_counting_survives_a_thread_local_debug_nans_block(tmp_path):
    """jax wraps some of its own functions (`jax.random.choice`'s cumulative sum, a few
    reductions) in `with config.debug_nans(False)`; leaving such a block sets the thread's
    post-call hook, and a thread's None would hide the recorder's global one for the rest
    of the program."""
    proj = _project(tmp_path / "p", """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def step(x):
            return x * 0.5

        if __name__ == "__main__":
            with jax.debug_nans(False):
                x = jnp.ones(4)
            picked = jax.random.choice(jax.random.key(0), jnp.arange(10.0), (4,), replace=False)
            for _ in range(8):
                x = step(x) + picked
            print(float(x.sum()))
    """, "[tool.jaxlint.rules.JAX213]\nmin-share = 0\n")
    _record(proj)
    assert [d["location"]["row"] for d in _found(proj)] == [13]
