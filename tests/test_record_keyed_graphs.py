"""The recorder's fast path for the calls that took its full path every time until issue 37's
flax NNX view guide (1.42-1.58x): ``nnx.jit`` calls with NNX objects (a module, its views,
an ``Optimizer``, ``nnx.Rngs``, a list of modules), a ``jax.jit`` given an NNX module, an
``eqx.filter_jit`` given equinox modules whose leaves are functions (``jax.nn.relu``, a
function, a lambda), and a ``self`` passed static. A real program under the real
``jaxlint record``: before each call it writes down what the recorder's full path writes of
that call (``record_signature.call_arguments``, the same code); the recording must count
exactly those signatures, each as often, and have keyed every one of them (its fast-path
table holds one entry per signature, so all calls after each signature's first were counted
there). The structures that compare equal and are written differently (a shared layer
against two equal ones, a static ``1`` against ``True``) stay apart."""
from __future__ import annotations

import importlib.util
import json

import pytest

from helpers import record_program

# found, not imported: the program imports them, in its own process
pytestmark = pytest.mark.skipif(not all(importlib.util.find_spec(m) for m in ("flax", "equinox", "optax")),
                                reason="needs flax, equinox and optax")

PROGRAM = '''
import functools
import json
from collections import Counter

import equinox as eqx
import jax
import jax.numpy as jnp
import optax
from flax import nnx

from jaxlint.dynamic.record_signature import call_arguments
from jaxlint.dynamic.signatures import encode

WRITTEN = {}  # function key -> what the full path writes of each call -> calls


def call(fn, *args, **kwargs):
    written = call_arguments(fn._meta, args, kwargs)
    # as the recording writes it (arrays in the short form, `f32[4,3]`)
    text = json.dumps(encode([written["args"], written["kwargs"]]), sort_keys=True)
    WRITTEN.setdefault(fn._key, Counter())[text] += 1
    return fn(*args, **kwargs)


class Block(nnx.Module):
    def __init__(self, rngs, shared=False, flag=1):
        self.a = nnx.Linear(3, 3, rngs=rngs)
        self.b = self.a if shared else nnx.Linear(3, 3, rngs=rngs)
        self.bn = nnx.BatchNorm(3, rngs=rngs)
        self.do = nnx.Dropout(0.5)
        self.flag = flag

    def __call__(self, x, rngs=None):
        return self.do(self.bn(self.b(self.a(x))), rngs=rngs) * self.flag


@nnx.jit
def step(model, optimizer, x, rngs):
    grads = nnx.grad(lambda m, r: (m(x, rngs=r) ** 2).mean())(model, rngs)
    optimizer.update(model, grads)


@nnx.jit
def evaluate(model, x):
    return model(x).sum()


@nnx.jit
def total(models, x):
    return sum(m(x).sum() for m in models)


rngs = nnx.Rngs(0)
x, x5 = jnp.ones((4, 3)), jnp.ones((5, 3))
model = Block(rngs)
optimizer = nnx.Optimizer(model, optax.sgd(0.1), wrt=nnx.Param)
train = nnx.view(model, deterministic=False, use_running_average=False)
frozen = nnx.view(model, deterministic=True, use_running_average=True)
shared = nnx.view(Block(rngs, shared=True), deterministic=True, use_running_average=True)
flagged = [nnx.view(Block(rngs, flag=f), deterministic=True, use_running_average=True) for f in (1, True)]
for i in range(3):
    call(step, train, optimizer, x, rngs)
    call(evaluate, frozen, x)
    call(evaluate, frozen, x5)
    call(evaluate, shared, x)
    for f in flagged:
        call(evaluate, f, x)
    call(total, [frozen, shared], x)
    call(total, [frozen, frozen], x)

def applied(m, x):
    return m(x).sum()


applied = jax.jit(applied)
for i in range(3):
    call(applied, frozen, x)
    call(applied, shared, x)


def swish(v):
    return v * jax.nn.sigmoid(v)


keys = jax.random.split(jax.random.key(0), 3)
mlps = [eqx.nn.MLP(3, 3, 4, 1, key=keys[0]), eqx.nn.MLP(3, 3, 4, 1, activation=swish, key=keys[1]),
        eqx.nn.MLP(3, 3, 4, 1, activation=lambda v: v, key=keys[2])]


@eqx.filter_jit
def apply(mlp, v, scale):
    return mlp(v) * scale


for i in range(3):
    for mlp in mlps:
        call(apply, mlp, jnp.ones(3), 1.0)
    call(apply, mlps[0], jnp.ones(3), 2.0)


class Agent:
    def __init__(self, scale):
        self.scale = scale

    @functools.partial(jax.jit, static_argnums=0)
    def act(self, v):
        return v * self.scale


a, b = Agent(2.0), Agent(3.0)
for i in range(3):
    call(Agent.act, a, x)
    call(Agent.act, b, x)

functions = (step, evaluate, total, applied, apply, Agent.act)
with open("written.json", "w") as out:
    json.dump({"written": WRITTEN, "tables": {fn._key: len(fn._fast) for fn in functions}}, out)
'''


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    root = tmp_path_factory.mktemp("graphs")
    sigs, _ = record_program(root, PROGRAM, "--no-analysis")
    return sigs, json.loads((root / "written.json").read_text())


def _counted(sigs: dict, key: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for s in sigs[key]["signatures"]:
        text = json.dumps([s["args"], s["kwargs"]], sort_keys=True)
        out[text] = out.get(text, 0) + s["calls"]
    return out


def test_every_call_is_counted_under_what_the_full_path_writes(recorded):
    sigs, got = recorded
    assert set(got["written"]) == {"prog:step", "prog:evaluate", "prog:total", "prog:applied", "prog:apply",
                                   "prog:Agent.act"}
    for key, written in got["written"].items():
        assert _counted(sigs, key) == written, key


def test_every_signature_is_keyed(recorded):
    _, got = recorded
    assert got["tables"] == {key: len(written) for key, written in got["written"].items()}


def test_equal_structures_written_differently_stay_apart(recorded):
    _, got = recorded
    # evaluate: frozen x5 (3), shared (3), the static True (1: its first call; nnx.jit's own
    # cache, keyed on structures that compare equal, takes the static 1's program and
    # writes the 1 back into the module, so its two later calls are the 1's), frozen x4 with
    # the static 1 (3 + 3 + 2); total: the list of two, with and without sharing
    assert [len(got["written"][k]) for k in ("prog:step", "prog:evaluate", "prog:total")] == [1, 4, 2]
    assert sorted(got["written"]["prog:evaluate"].values()) == [1, 3, 3, 8]
    assert len(got["written"]["prog:applied"]) == 2
    # relu (a custom_jvp object), swish, the lambda; the scale by value
    assert len(got["written"]["prog:apply"]) == 4
    # one text for both agents (`<__main__.Agent object>`), whose calls jax compiles apart
    assert list(got["written"]["prog:Agent.act"].values()) == [6]
