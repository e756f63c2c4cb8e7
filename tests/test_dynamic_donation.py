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
import os
import time
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


def mlp_loss(params, x):
    return jnp.mean(jnp.tanh(jnp.tanh(x @ params["w1"] + params["b1"]) @ params["w2"] + params["b2"]))


@jax.jit
def mask_weights(params, masks):  # MASK
    # a pure helper: the caller applies it to its live parameters and keeps them
    return {k: p * masks[k] if k in masks else p for k, p in params.items()}


@jax.jit
def momentum_updates(params, velocity, x):  # MOMENTUM
    g = jax.grad(mlp_loss)(params, x)
    velocity = jax.tree.map(lambda v, d: 0.9 * v + d, velocity, g)
    return jax.tree.map(lambda v: -0.01 * v, velocity), velocity


@jax.jit
def ema_update(params, avg_params):  # EMA
    # one output tree, two inputs of its shapes: one buffer to give, and the caller
    # uses `params` again on the next step
    return jax.tree.map(lambda p, a: 0.999 * a + 0.001 * p, params, avg_params)


def conv_loss(params, x):
    y = jax.lax.conv_general_dilated(x, params["k"], (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
    return jnp.mean(y ** 2)


@jax.jit
def conv_step(params, opt_state, x):  # CONV
    # adam (written out: optax's own jitted helper would be a second library signature);
    # XLA computes the kernel's gradient in another layout, so each moment adds a
    # transposed gradient to itself: an update of itself all the same
    g = jax.grad(conv_loss)(params, x)
    mu = jax.tree.map(lambda m, d: 0.9 * m + 0.1 * d, opt_state["mu"], g)
    nu = jax.tree.map(lambda v, d: 0.999 * v + 0.001 * d * d, opt_state["nu"], g)
    params = jax.tree.map(lambda p, m, v: p - 1e-3 * m / (jnp.sqrt(v) + 1e-8), params, mu, nu)
    return params, {"mu": mu, "nu": nu}


class MiniState(NamedTuple):
    params: dict
    step: jax.Array


def minibatches(state, xs):
    # an epoch's minibatches unrolled: each update reads the one before, so the returned
    # state is computed from the last update, not from the argument (flax ppo's train_step)
    for i in range(4):
        p = state.params
        state = MiniState({"w": p["w"] - 0.1 * (xs[i] @ p["w"]), "b": p["b"] - 0.1 * p["b"]}, state.step + 1)
    return state, jnp.sum(state.params["b"])


@jax.jit
def train_epoch(state, xs):  # EPOCH
    return minibatches(state, xs)


@jax.jit
def lookahead(state, xs):  # LOOKAHEAD
    # the same state returned, but the caller keeps the old one: not to donate
    return minibatches(state, xs)


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
    kernels = {"k": jnp.full((3, 3, 128, 128), 0.01, jnp.float32)}
    conv_state = {"mu": jax.tree.map(jnp.zeros_like, kernels), "nu": jax.tree.map(jnp.zeros_like, kernels)}
    for _ in range(2):
        kernels, conv_state = conv_step(kernels, conv_state, jnp.ones((2, 8, 8, 128)))
    mini = MiniState({"w": jnp.full((512, 512), 0.01), "b": jnp.ones(512)}, jnp.zeros((), jnp.int32))
    xs = jnp.full((4, 512, 512), 0.001)
    for _ in range(3):
        ahead, _ = lookahead(mini, xs)
        mini, _ = train_epoch(mini, xs)
    # magnitude pruning's loop: masked parameters for the gradient, an average for evaluation
    live = {"w1": jnp.ones((512, 512)), "b1": jnp.zeros(512), "w2": jnp.ones((512, 512)), "b2": jnp.zeros(512)}
    avg = live
    velocity = jax.tree.map(jnp.zeros_like, live)
    masks = {"w1": jnp.ones((512, 512)), "w2": jnp.ones((512, 512))}
    for _ in range(5):
        pruned = mask_weights(live, masks)
        updates, velocity = momentum_updates(pruned, velocity, x[0, :, :512])
        live = jax.tree.map(lambda p, u: p + u, live, updates)
        avg = ema_update(live, avg)
    # `update` was called twice: fewer than the 4 calls watched, so its JAX302 waits for the
    # watch to end (256 calls after the last new function); leaving through os._exit, with
    # no exit handler, shows it ran then, not at exit
    tick = jax.jit(lambda v: v + 1)
    t = jnp.zeros(3)
    for _ in range(300):
        t = tick(t)
    time.sleep(5.5)  # the recorder writes what it has every 5 s of calls
    tick(t).block_until_ready()
    os._exit(0)
'''.lstrip("\n")

LINES = {m: i for i, text in enumerate(PROGRAM.splitlines(), 1)
         for m in ("PMAP", "SHARDED", "STATE", "EQX", "EQX_DONATES", "MASK", "MOMENTUM", "EMA", "CONV", "EPOCH",
                   "LOOKAHEAD")
         if text.endswith(f"# {m}")}


@pytest.fixture(scope="module")
def found(tmp_path_factory):
    root = tmp_path_factory.mktemp("donation")
    (root / "pyproject.toml").write_text('[tool.jaxlint]\nselect = ["JAX302"]\n')
    (root / "prog.py").write_text(PROGRAM)
    rec = run_cli("record", "--compile", "--", "python", "prog.py", cwd=root, env=DEVICES, timeout=600)
    assert rec.returncode == 0, rec.stderr
    check = run_cli("check", "--dynamic", "--compile", "--no-cache", "--output-format", "json", "prog.py",
                    cwd=root, env=DEVICES, timeout=600)
    ROOT[:] = [root, rec.stderr]
    return json_findings(check, "JAX302")


#: the recorded project's folder (the fixture's)
ROOT: list = []


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
    # `state = update(state, x)`: the old state is gone by the next call, so said without the hedge
    assert "(the program had let it go by its next jitted call, in the calls `jaxlint record` watched)" in d["message"]
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


def test_a_helper_whose_argument_the_caller_uses_again_is_not_advised_to_donate_it(found):
    # `pruned = mask_weights(live, masks)`: `live` is used again on the same step; donating
    # it would break the loop. The recording saw the caller keep it
    assert not _of(found, "mask_weights")
    import json

    recorded = json.loads((ROOT[0] / ".jaxlint" / "signatures.json").read_text())["functions"]
    assert recorded["prog:mask_weights"]["reused"] == {"params": True, "masks": True}
    assert recorded["prog:ema_update"]["reused"] == {"params": True, "avg_params": False}
    assert recorded["prog:update"]["reused"]["state"] is False


def test_the_record_summary_names_no_jit_of_jaxlint_and_no_rule_not_selected(found):
    # jaxlint's own re-tracing jits (pmap and filter_jit bodies) are no library's; JAX208 is
    # not selected here, so the function with several signatures sends no one to it
    summary = [line for line in ROOT[1].splitlines() if line.startswith("jaxlint record:")]
    assert not [line for line in summary if "jaxlint.dynamic" in line], summary
    assert "(1 with several signatures)" in summary[0], summary
    assert "JAX208" not in "\n".join(summary)


def test_only_as_many_arguments_as_the_outputs_can_take_and_never_one_the_caller_reuses(found):
    # `avg = ema_update(live, avg)`: one output tree, so one argument's buffers; `params`
    # is the live parameters, passed again on the next step: `avg_params` alone
    [d] = _of(found, "ema_update")
    assert d["data"]["arguments"] == ["avg_params"] and d["data"]["reused_by_caller"] == ["params"]
    assert "donate_argnames='avg_params'" in d["message"] and "'params'" not in d["message"]
    assert "`params` could give its buffers too, but the program still held it at its next jitted call" in d["message"]
    assert d["location"]["row"] == LINES["EMA"]
    # the momentum step's velocity is rebound; its masked parameters are still bound to
    # `pruned` at the next call (the recording sees a name that holds them, not whether it is read)
    [d] = _of(found, "momentum_updates")
    assert d["data"]["arguments"] == ["velocity"], d["message"]


def test_adam_moments_of_a_convolution_kernel_are_updates_of_themselves(found):
    # the moments' kernels read the gradient transposed: not new values, so the state is
    # reported whole (before, only its step count was an update and it fell under the line)
    [d] = _of(found, "conv_step")
    assert d["location"]["row"] == LINES["CONV"]
    # (`params`, 576 KiB, is under the rule's 1 MiB on its own)
    assert d["data"]["arguments"] == ["opt_state"] and d["data"]["not_updated"] == [], d["message"]
    assert "opt_state['mu']['k']" in d["data"]["donatable"] and "opt_state['nu']['k']" in d["data"]["donatable"]
    assert "new value" not in d["message"]


def test_a_state_updated_several_times_in_a_row_that_the_caller_lets_go_is_reported(found):
    # flax ppo's 46 MiB TrainState (the sixth blind judgement's miss): the minibatch loop's
    # last update is what is returned, not an elementwise update of the argument; the
    # returned tree replaces the argument leaf for leaf and the caller lets the old one go
    [d] = _of(found, "train_epoch")
    assert d["location"]["row"] == LINES["EPOCH"]
    assert d["message"].startswith("argument `state` (3 arrays, 1.0 MiB) is updated and returned"), d["message"]
    assert "(the program had let it go by its next jitted call" in d["message"]
    # every array can alias an output: the bytes donation saves
    assert d["data"]["donatable_bytes"] == 512 * 512 * 4 + 512 * 4 + 4 and d["data"]["not_updated"] == []
    # the same step whose caller keeps the old state: nothing to donate
    assert not _of(found, "lookahead")
