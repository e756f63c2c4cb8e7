"""Issue 20: JAX302 (donation) on the steps real programs write, through the real
`jaxlint record --compile` on 8 forced host devices, then `jaxlint check --dynamic
--compile` (jax 0.10 and 0.4.38): a pmap step returning its replicated parameters, a
sharded jit step, a state whose rng key is replaced by `random.split` (haiku's
TrainingState), and an equinox `make_step` returning model and optimizer state are
reported; an equinox step that donates stays quiet."""
from __future__ import annotations

import pytest

from helpers import json_findings, run_cli

pytest.importorskip("jax")
pytest.importorskip("equinox")
pytest.importorskip("optax")

DEVICES = {"XLA_FLAGS": "--xla_force_host_platform_device_count=8"}

PROGRAM = '''
import functools
from typing import NamedTuple

import equinox as eqx
import jax
import jax.numpy as jnp
import optax
from jax.sharding import NamedSharding, PartitionSpec as P


def loss(params, x):
    return jnp.mean(jnp.tanh(x @ params["w"] + params["b"]))


@functools.partial(jax.pmap, axis_name="i")
def pmap_step(params, x):  # PMAP
    g = jax.lax.pmean(jax.grad(loss)(params, x), "i")
    return jax.tree.map(lambda p, d: p - 0.1 * d, params, g)


@jax.jit
def sharded_update(params, grads):  # SHARDED
    return jax.tree.map(lambda p, d: p - 0.1 * d, params, grads)


class TrainingState(NamedTuple):
    params: dict
    opt_state: dict
    rng_key: jax.Array


@jax.jit
def update(state, x):  # STATE
    g = jax.grad(loss)(state.params, x)
    m = jax.tree.map(lambda m, d: 0.9 * m + d, state.opt_state, g)
    params = jax.tree.map(lambda p, m: p - 0.1 * m, state.params, m)
    rng, _ = jax.random.split(state.rng_key)
    return TrainingState(params, m, rng), loss(params, x)


class MLP(eqx.Module):
    layers: list

    def __init__(self, key):
        k1, k2 = jax.random.split(key)
        self.layers = [eqx.nn.Linear(512, 512, key=k1), eqx.nn.Linear(512, 512, key=k2)]

    def __call__(self, x):
        for layer in self.layers:
            x = jnp.tanh(layer(x))
        return x


optim = optax.adam(1e-3)


@eqx.filter_jit
def make_step(model, opt_state, x):  # EQX
    grads = eqx.filter_grad(lambda m: jnp.mean(jax.vmap(m)(x) ** 2))(model)
    updates, opt_state = optim.update(grads, opt_state, eqx.filter(model, eqx.is_array))
    return eqx.apply_updates(model, updates), opt_state


@eqx.filter_jit(donate="all")
def donating_step(model, opt_state, x):  # EQX_DONATES
    grads = eqx.filter_grad(lambda m: jnp.mean(jax.vmap(m)(x) ** 2))(model)
    updates, opt_state = optim.update(grads, opt_state, eqx.filter(model, eqx.is_array))
    return eqx.apply_updates(model, updates), opt_state


if __name__ == "__main__":
    n = jax.local_device_count()
    params = {"w": jnp.ones((1024, 512)), "b": jnp.zeros(512)}
    replicated = jax.tree.map(lambda a: jnp.stack([a] * n), params)
    x = jnp.ones((n, 8, 1024))
    for _ in range(2):
        replicated = pmap_step(replicated, x)
    mesh = jax.make_mesh((8,), ("data",))
    sharded = jax.device_put(params, NamedSharding(mesh, P("data")))
    for _ in range(2):
        sharded = sharded_update(sharded, sharded)
    state = TrainingState(params, jax.tree.map(jnp.zeros_like, params), jax.random.PRNGKey(0))
    for _ in range(2):
        state, _ = update(state, x[0])
    model = MLP(jax.random.PRNGKey(0))
    opt_state = optim.init(eqx.filter(model, eqx.is_array))
    for _ in range(2):
        model, opt_state = make_step(model, opt_state, x[0, :, :512])
    for _ in range(2):
        model, opt_state = donating_step(model, opt_state, x[0, :, :512])
'''.lstrip("\n")

LINES = {m: i for i, text in enumerate(PROGRAM.splitlines(), 1)
         for m in ("PMAP", "SHARDED", "STATE", "EQX", "EQX_DONATES") if text.endswith(f"# {m}")}


@pytest.fixture(scope="module")
def found(tmp_path_factory):
    root = tmp_path_factory.mktemp("donation")
    (root / "pyproject.toml").write_text('[tool.jaxlint]\nselect = ["JAX302"]\n')
    (root / "prog.py").write_text(PROGRAM)
    rec = run_cli("record", "--compile", "--", "python", "prog.py", cwd=root, env=DEVICES, timeout=600)
    assert rec.returncode == 0, rec.stderr
    check = run_cli("check", "--dynamic", "--compile", "--no-cache", "--output-format", "json", "prog.py",
                    cwd=root, env=DEVICES, timeout=600)
    return json_findings(check, "JAX302")


def _of(found, function):
    return [d for d in found if d["data"]["function"] == function]


def test_a_pmap_step_returning_its_replicated_parameters_is_reported(found):
    # named as the step names them (`params`, not the vmapped body's `mapped[0]`)
    [d] = _of(found, "pmap_step")
    assert d["message"].startswith("argument `params` (2 arrays, 16.0 MiB) is updated and returned")
    assert "donate_argnums" in d["message"] and "pmap has no donate_argnames" in d["message"]
    assert d["location"]["row"] == LINES["PMAP"]


def test_a_sharded_update_is_reported(found):
    [d] = _of(found, "sharded_update")
    assert d["message"].startswith("argument `params` (2 arrays, 2.0 MiB) is updated and returned"), d["message"]
    assert "donate_argnames='params'" in d["message"]


def test_a_state_whose_key_is_split_is_reported_with_what_can_be_donated(found):
    # haiku's TrainingState: the rng key is a new value, not an update; the parameters
    # and moments still reuse their buffers when the state is donated
    [d] = _of(found, "update")
    assert "argument `state` (5 arrays, 4.0 MiB)" in d["message"]
    assert "4 of its 5 arrays (4.0 MiB) are updates of themselves" in d["message"]
    assert "`state.rng_key` is a new value" in d["message"]
    assert d["data"]["not_updated"] == ["state.rng_key"]
    assert sorted(d["data"]["donatable"]) == ["state.opt_state['b']", "state.opt_state['w']",
                                              "state.params['b']", "state.params['w']"]


def test_an_equinox_step_is_reported_and_one_that_donates_is_not(found):
    # one finding for both undonated arguments of `make_step` (one fix), named by their
    # paths; equinox donates by a mode, not an argument
    # (its executable returns one more result than the trace: the outputs are lined up)
    [d] = _of(found, "make_step")
    assert d["data"]["arguments"] == ["model", "opt_state"]
    assert d["message"].startswith("arguments `model` (4 arrays, 2.0 MiB) and `opt_state` (9 arrays, 4.0 MiB) "
                                   "are updated and returned"), d["message"]
    assert "donate='all'" in d["message"] and d["location"]["row"] == LINES["EQX"]
    assert "model.layers[0].weight" in d["data"]["donatable"]
    assert not _of(found, "donating_step")
