"""The tenth judgement's JAX302 advice (flashbax `anakin_dqn.py`): a state holding one
array at two places (`Params(online=p, target=p)`) cannot be donated (jax: "donate the
same buffer twice"), so the advice leaves it out and says why. Real `jaxlint record
--compile`, then `jaxlint check --dynamic --compile`."""
from __future__ import annotations

import pytest

from helpers import json_findings, run_cli

pytest.importorskip("jax")

PROGRAM = '''
from typing import NamedTuple

import jax
import jax.numpy as jnp


class Params(NamedTuple):
    online: dict
    target: dict


@jax.jit
def learn(params_state, opt_state, x):
    g = jax.grad(lambda p: jnp.mean(jnp.tanh(x @ p["w"])))(params_state.online)
    m = jax.tree.map(lambda m, d: 0.9 * m + d, opt_state, g)
    online = jax.tree.map(lambda p, m: p - 0.1 * m, params_state.online, m)
    target = jax.tree.map(lambda t, p: 0.99 * t + 0.01 * p, params_state.target, online)
    return Params(online, target), m


if __name__ == "__main__":
    p = {"w": jnp.ones((512, 512))}
    params_state = Params(online=p, target=p)  # one set of buffers twice until the first update
    opt_state = {"w": jnp.zeros((512, 512))}
    x = jnp.ones((8, 512))
    for _ in range(3):
        params_state, opt_state = learn(params_state, opt_state, x)
'''


def test_a_state_holding_one_buffer_twice_is_not_advised_for_donation(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.jaxlint]\n")
    (tmp_path / "run.py").write_text(PROGRAM.lstrip("\n"))
    rec = run_cli("record", "--compile", "--", "python", "run.py", cwd=tmp_path, timeout=600)
    assert rec.returncode == 0, rec.stderr[-3000:]
    check = run_cli("check", "--dynamic", "--compile", "--no-cache", "--output-format", "json", "run.py",
                    cwd=tmp_path, timeout=600)
    [d] = json_findings(check, "JAX302")
    assert d["data"]["arguments"] == ["opt_state"], d["message"]
    assert d["data"]["buffer_twice"] == ["params_state"]
    assert "`params_state` could give its buffers too" in d["message"]
    assert "donate the same buffer twice" in d["message"]
