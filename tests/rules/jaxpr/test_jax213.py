"""Eager jax operations between the calls of a jitted step (JAX213): real programs run
under `jaxlint record`, then `jaxlint check --dynamic`. The recorder counts every call
jax's C++ jit runs from its cache outside the recorded jitted functions (the post-call
hook `jax_debug_nans` uses) at the project's line that issued it, with the time one
operation took there and the calls of each recorded jitted function it ran between."""
from __future__ import annotations

import json
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


def test_an_eager_policy_forward_on_every_move_is_reported_in_the_policy(tmp_path):
    proj = _project(tmp_path / "p", EAGER_POLICY)
    _record(proj)
    found = _found(proj)
    assert [d["location"]["row"] for d in found] == [FORWARD_LINE], found
    msg = found[0]["message"]
    # 8 moves between two updates: each layer's matmul, add, tanh on each (3 layers)
    assert msg.startswith("72 eager jax operations between calls of `update` at this line, in 11 of its 11"), msg
    # one finding for the work between two updates: the policy's other line and the loop's
    # own `jnp.asarray(obs)`s (8 an interval at the move, 1 at the update) are related, with the call
    assert f"(with lines {ARGMAX_LINE}, {MOVE_LINE}, {MOVE_LINE + 1}: " in msg, msg
    related = sorted((r["location"]["row"], r["message"]) for r in found[0]["related"])
    assert (MOVE_LINE, "called from here") in related and ARGMAX_LINE in {r for r, _ in related}, related


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
