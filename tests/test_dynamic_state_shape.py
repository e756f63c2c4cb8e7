"""A jitted step that changes the shape (or dtype) of its own state (issue 37, the twelfth
judgement's flax-basics miss): the state a call returns is passed to the next call with
another shape than it was given, so that call compiles again. Real `jaxlint record` of
small real programs (flax linen, plain jax), then `check --dynamic`:

* a linen module whose running mean is updated with a `keepdims=True` mean: JAX208 says
  that the function changes the shape of its own state, at the line of the module that
  makes the returned mean, the call that compiled again related;
* a bfloat16 carry multiplied by float32 weights comes back float32: the step widens it, so
  the line to change is where the bfloat16 carry is made (every call after the first gets it
  float32 anyway), the step's line and the call related;
* the same programs with the state kept in its shape compile once: nothing;
* a second input size the program means (not a value the step returned) stays quiet, and so
  does a function applied again to its own output that changes it each time (a pyramid).
"""
from __future__ import annotations

import json

import pytest

from helpers import json_findings, run_cli

pytest.importorskip("jax")
pytest.importorskip("flax")
pytest.importorskip("optax")

RUNNING_MEAN = '''
import functools

import flax.linen as nn
import jax
import jax.numpy as jnp
import optax


class CenteredScale(nn.Module):
    momentum: float = 0.9

    @nn.compact
    def __call__(self, x):
        center = self.variable("stats", "center", jnp.zeros, x.shape[1:])
        gain = self.param("gain", nn.initializers.ones, x.shape[1:])
        if not self.is_initializing():
            seen = x.mean(axis=0, keepdims=KEEP)
            center.value = self.momentum * center.value + (1.0 - self.momentum) * seen  # MADE
        return (x - center.value) * gain


@functools.partial(jax.jit, static_argnums=(0,))
def fit_step(opt, params, stats, opt_state, x):
    def objective(p):
        y, changed = model.apply({"params": p, "stats": stats}, x, mutable=["stats"])
        return jnp.mean(y ** 2), changed["stats"]

    (value, stats), grads = jax.value_and_grad(objective, has_aux=True)(params)
    updates, opt_state = opt.update(grads, opt_state)
    return optax.apply_updates(params, updates), stats, opt_state, value


@jax.jit
def carry_step(h, w):
    return jnp.tanh(h * w)  # CARRY


@jax.jit
def score(w, x):
    return jnp.tanh(x @ w).sum()


@jax.jit
def halve(image):  # applied again to its own output: a pyramid, not a state
    return image.reshape(image.shape[0] // 2, 2, -1).mean(axis=1)


model = CenteredScale()
x = jax.random.normal(jax.random.PRNGKey(1), (16, 4))
variables = model.init(jax.random.PRNGKey(0), x)
params, stats = variables["params"], variables["stats"]
opt = optax.sgd(0.1)
opt_state = opt.init(params)
for _ in range(5):
    params, stats, opt_state, value = fit_step(opt, params, stats, opt_state, x)  # CALL
h = jnp.ones((8,), dtype=DTYPE)  # CARRY_MADE
w = jnp.full((8,), 0.5, dtype=jnp.float32)
for _ in range(4):
    h = carry_step(h, w)  # CARRY_CALL
w2 = jnp.ones((4, 3))
for size in (32, 32, 32, 64, 64, 64):  # a training and an evaluation size: meant
    print(score(w2, jnp.ones((size, 4))))
for _ in range(3):
    level = jnp.ones((64, 8))
    for _ in range(3):
        level = halve(level)  # 64 -> 32 -> 16 -> 8 rows
print(float(value), stats["center"].shape, h.dtype)
'''


def _line(source: str, marker: str) -> int:
    return next(i for i, text in enumerate(source.lstrip("\n").splitlines(), 1) if f"# {marker}" in text)


def _record_and_check(tmp_path, source: str):
    (tmp_path / "pyproject.toml").write_text("[tool.jaxlint]\n")
    (tmp_path / "fit.py").write_text(source.lstrip("\n"))
    rec = run_cli("record", "--", "python", "fit.py", cwd=tmp_path, timeout=600)
    assert rec.returncode == 0, rec.stderr[-3000:]
    check = run_cli("check", "--dynamic", "--no-cache", "--output-format", "json", "fit.py", cwd=tmp_path,
                    timeout=600)
    assert check.returncode in (0, 1), check.stderr[-3000:]
    return json_findings(check, "JAX208")


def test_a_step_that_changes_the_shape_and_dtype_of_its_state_is_reported_where_it_makes_it(tmp_path):
    source = RUNNING_MEAN.replace("KEEP", "True").replace("DTYPE", "jnp.bfloat16")
    found = {d["message"].split("`")[1]: d for d in _record_and_check(tmp_path, source)}
    # `score`'s two sizes are meant; `halve` makes a pyramid of its own outputs
    assert set(found) == {"fit_step", "carry_step"}, found

    fit = found["fit_step"]
    assert fit["location"]["row"] == _line(source, "MADE"), fit["message"]
    assert "`stats['center']` changes shape (4,) -> (1, 4)" in fit["message"]
    assert "the function changes the shape of its own state" in fit["message"]
    assert fit["data"]["reason"] == "the function changes the shape of its own state"
    related = [(r["location"]["row"], r["message"]) for r in fit["related"]]
    assert (_line(source, "CALL"), "the call that passes it back and compiles again") in related, related

    carry = found["carry_step"]
    assert carry["location"]["row"] == _line(source, "CARRY_MADE"), carry["message"]
    assert "`h` changes dtype bfloat16 -> float32" in carry["message"]
    assert "the function changes the dtype of its own state" in carry["message"]
    assert "make it float32 where it is made" in carry["message"]
    related = [(r["location"]["row"], r["message"]) for r in carry["related"]]
    assert (_line(source, "CARRY_CALL"), "the call that passes it back and compiles again") in related, related
    assert (_line(source, "CARRY"), "the step returns it float32 here") in related, related

    # what the recording saw: the leaf passed back, the signature that returned it, the line
    observed = json.loads((tmp_path / ".jaxlint" / "observed.json").read_text())["functions"]
    [fit_entry] = [v for k, v in observed.items() if k.endswith(":fit_step")]
    fed = {(where, path): node for s in fit_entry["signatures"] for where, path, node in s.get("fed") or ()}
    assert fed[(2, "['center']")]["made"] == {"file": "fit.py", "line": _line(source, "MADE"),
                                              "column": fed[(2, "['center']")]["made"]["column"]}
    assert fed[(2, "['center']")]["kept"] is True  # returned again as it was given: a state
    # the pyramid's levels are each passed back too, and each changed again: no state
    [halve] = [v for k, v in observed.items() if k.endswith(":halve")]
    passed = [node for s in halve["signatures"] for _, _, node in s.get("fed") or ()]
    assert len(passed) == 2 and not any(node.get("kept") for node in passed), halve["signatures"]


def test_a_state_kept_in_its_shape_and_dtype_compiles_once(tmp_path):
    source = RUNNING_MEAN.replace("KEEP", "False").replace("DTYPE", "jnp.float32")
    assert _record_and_check(tmp_path, source) == []
    signatures = json.loads((tmp_path / ".jaxlint" / "signatures.json").read_text())["functions"]
    assert [len(v["signatures"]) for k, v in sorted(signatures.items())] == [1, 1, 3, 2], signatures
