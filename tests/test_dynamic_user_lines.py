"""The tenth judgement's dynamic findings away from the line the user changes, at that line
now (issue 37). Real `jaxlint record`, then `jaxlint check --dynamic`:

* JAX302 for a function made jitted by a call (`learn = jax.pmap(learn, axis_name="i")`,
  the flashbax DQN's; `step = jax.jit(plain_step)`) is reported at that call, where
  `donate_argnums` goes, with the `def` related; a decorated one stays at its `def`;
* JAX208 for a weak-typed value inside a tuple the loop rebinds (the diffrax SDE's
  `beta_opt = jnp.array(1.0)` into `args_opt = (alpha_opt, beta_opt, gamma_opt)`) is
  reported where the value is made, the call that compiled again related;
* a function the worker traces again outside the program keeps the jax transform under
  its jit or pmap (`@logged @jax.jit @jax.vmap`, `jax.pmap(jax.vmap(f))`), which
  `inspect.unwrap` dropped: no trace error for keys the vmap splits one by one; the
  recorder tells `jax.jit(logged(jax.grad(loss)))` from `jax.jit(loss)`;
* the recompile for leaves never read, under static arguments and `equinox.filter_jit`.
"""
from __future__ import annotations

import json

import pytest

from helpers import json_findings, run_cli

pytest.importorskip("jax")

PROGRAM = '''
import jax
import jax.numpy as jnp


def get_learner_fn(lr):
    def learner_fn(state, x):  # DEF_LEARNER
        g = jnp.tanh(x @ state["w"]).mean()
        return {"w": state["w"] - lr * g}, g

    return learner_fn


def plain_step(state, x):  # DEF_PLAIN
    return {"w": state["w"] * 0.9 + x.mean()}


@jax.jit
def decorated(state, x):  # DEF_DECORATED
    return {"w": state["w"] * 0.5 + x.mean()}


learn = get_learner_fn(0.1)
learn = jax.pmap(learn, axis_name="i")  # PMAP_CALL
step = jax.jit(plain_step)  # JIT_CALL

alpha = 0.5 * jnp.ones((3,))
beta = jnp.array(1.0)  # BETA
args = (alpha, beta)


@jax.jit
def fit(i, args):
    g = jax.grad(lambda a: jnp.sum(a[0] * a[1]) ** 2)(args)
    return jax.tree_util.tree_map(lambda p, u: p - u * jnp.float32(0.1), args, g)


if __name__ == "__main__":
    state = {"w": jnp.ones((1, 512, 512))}
    x = jnp.ones((1, 8, 512))
    for _ in range(3):
        state, g = learn(state, x)
    s = {"w": jnp.ones((512, 512))}
    d = {"w": jnp.ones((512, 512))}
    for _ in range(3):
        s = step(s, x[0])
        d = decorated(d, x[0])
    for i in range(4):
        args = fit(i, args)  # FIT_CALL
'''

TRANSFORMED = '''
import functools

import jax


def logged(f):
    @functools.wraps(f)
    def inner(*args, **kwargs):
        return f(*args, **kwargs)

    return inner


@logged
@jax.jit
@jax.vmap
def draw(key):
    a, b = jax.random.split(key)
    return jax.random.normal(a, (3,)) + jax.random.normal(b, (3,))


def draw_one(key):
    a, b = jax.random.split(key)
    return jax.random.normal(a, (3,)) * jax.random.normal(b, (3,))


draw_all = jax.pmap(jax.vmap(draw_one))


def loss(w, x):
    return (x @ w).sum() ** 2


value = jax.jit(loss)
slope = jax.jit(logged(jax.grad(loss)))  # another program than `value`'s, though both are `loss`'s

if __name__ == "__main__":
    keys = jax.random.split(jax.random.PRNGKey(0), 10)
    print(draw(keys[:5]).sum(), draw_all(keys[None, 5:]).sum())
    print(value(jax.numpy.ones((4, 4)), jax.numpy.ones((2, 4))), slope(jax.numpy.ones((4, 4)), jax.numpy.ones((2, 4))))
'''


def _line(source: str, marker: str) -> int:
    return next(i for i, text in enumerate(source.lstrip("\n").splitlines(), 1) if f"# {marker}" in text)


def _recorded(tmp_path, name: str, source: str, recording: tuple, checking: tuple, config: str = ""):
    """`jaxlint record RECORDING -- python NAME`, then `jaxlint check --dynamic CHECKING` (json)."""
    (tmp_path / "pyproject.toml").write_text("[tool.jaxlint]\n" + config)
    (tmp_path / name).write_text(source.lstrip("\n"))
    rec = run_cli("record", *recording, "--", "python", name, cwd=tmp_path, timeout=600)
    assert rec.returncode == 0, rec.stderr[-3000:]
    check = run_cli("check", "--dynamic", "--no-cache", "--output-format", "json", *checking, name, cwd=tmp_path,
                    timeout=600)
    assert check.returncode in (0, 1), check.stderr[-3000:]
    return check


def test_donation_and_weak_values_are_reported_at_the_line_to_change(tmp_path):
    check = _recorded(tmp_path, "run.py", PROGRAM, ("--compile",), ("--compile",))
    donations = {d["location"]["row"]: d for d in json_findings(check, "JAX302")}
    related = {row: [(r["location"]["row"], r["message"]) for r in d.get("related") or ()]
               for row, d in donations.items()}
    pmap_call, jit_call = _line(PROGRAM, "PMAP_CALL"), _line(PROGRAM, "JIT_CALL")
    assert set(donations) == {pmap_call, jit_call, _line(PROGRAM, "DEF_DECORATED")}, donations
    assert donations[pmap_call]["location"]["column"] == 9  # the `jax.pmap(...)` call
    assert (_line(PROGRAM, "DEF_LEARNER"), "`learner_fn` is defined here") in related[pmap_call]
    assert "donate_argnums" in donations[pmap_call]["message"]
    assert (_line(PROGRAM, "DEF_PLAIN"), "`plain_step` is defined here") in related[jit_call]
    assert not any("is defined here" in m for _, m in related[_line(PROGRAM, "DEF_DECORATED")])

    [weak] = [d for d in json_findings(check, "JAX208") if d["message"].startswith("`fit`")]
    assert weak["location"]["row"] == _line(PROGRAM, "BETA"), weak["message"]
    assert "`args[1]` is made weak-typed at line" in weak["message"]
    assert (_line(PROGRAM, "FIT_CALL"), "the call that compiles again") in \
        [(r["location"]["row"], r["message"]) for r in weak["related"]]


def test_a_jax_transform_under_the_jit_is_traced_again_with_it(tmp_path):
    # recorded without analysis: the worker traces both functions again, outside the program
    check = _recorded(tmp_path, "draw.py", TRANSFORMED, ("--no-analysis",), ("--report", "run.json"))
    rows = {r["qualname"]: r for r in json.loads((tmp_path / "run.json").read_text())["functions"]}
    # without the vmap, `split` of the batch of keys fails: skipped as out of date before
    assert rows["draw"]["status"] == "analysed", rows["draw"]
    assert rows["draw_one"]["status"] == "analysed", rows["draw_one"]
    assert not json_findings(check, "JAX205")
    # the recorder tells the grad's jit from the plain one through the project's decorator
    [loss] = [f for k, f in json.loads((tmp_path / ".jaxlint" / "signatures.json").read_text())["functions"].items()
              if k.endswith(":loss")]
    assert sorted(str((s.get("bound") or {}).get("transform")) for s in loss["signatures"]) == ["None", "grad"], loss


UNREAD_LEAVES = '''
from typing import Any, NamedTuple

import equinox as eqx
import jax
import jax.numpy as jnp


class TimeStep(NamedTuple):  # dm_env's: no reward or discount at a restart
    reward: Any
    discount: Any
    observation: Any


def act_first(greedy, params, timestep):
    q = timestep.observation @ params
    return jnp.argmax(q) if greedy else jnp.argmin(q)


def act_last(params, timestep, greedy):
    q = timestep.observation @ params
    return jnp.argmax(q) if greedy else jnp.argmin(q)


@eqx.filter_jit
def act_eqx(params, timestep):
    return jnp.argmax(timestep.observation @ params)


@eqx.filter_jit
def learn_eqx(params, timestep):
    if timestep.reward is None:
        return params
    return params + timestep.reward * jnp.mean(timestep.observation)


by_name = jax.jit(act_first, static_argnames="greedy")
from_end = jax.jit(act_last, static_argnums=-1)

if __name__ == "__main__":
    params = jnp.ones((4, 3))
    for episode in range(3):
        timestep = TimeStep(None, None, jnp.zeros(4))
        for t in range(5):
            by_name(True, params, timestep)  # BY_NAME
            from_end(params, timestep, True)  # FROM_END
            act_eqx(params, timestep)  # EQX
            params = learn_eqx(params, timestep)  # READS
            timestep = TimeStep(jnp.float32(1.0), jnp.float32(0.99), jnp.ones(4) * t)
'''


def test_leaves_never_read_are_found_with_static_arguments_and_under_filter_jit(tmp_path):
    """The recompile for leaves the function never reads (a `TimeStep` whose `reward` is None
    at a restart) under `static_argnames` (a static parameter before the others), a negative
    `static_argnums` (counted from the end of the call's arguments) and `equinox.filter_jit`
    (its flat array leaves mapped back to the call's arguments); a function that reads the
    reward when it is there stays quiet."""
    pytest.importorskip("equinox")
    check = _recorded(tmp_path, "prog.py", UNREAD_LEAVES, (), (), config='select = ["JAX208"]\n')
    found = {d["location"]["row"]: d["message"] for d in json_findings(check, "JAX208")}
    assert set(found) == {_line(UNREAD_LEAVES, m) for m in ("BY_NAME", "FROM_END", "EQX")}, found
    for msg in found.values():
        assert ("the function never reads `timestep.reward` or `timestep.discount`" in msg
                and "(`timestep` read only at `timestep.observation`)" in msg), msg
