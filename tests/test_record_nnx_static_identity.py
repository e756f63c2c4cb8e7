"""A static value of a flax NNX graph that compares by identity (issue 37, the eleventh blind
judgement's digits VAE): each ``nnx.ModelAndOptimizer(model, optax.adam(1e-3))`` holds a new
optax ``GradientTransformation`` (a namedtuple of closures) in its static field ``tx``, and
``nnx.jit``'s cache, keyed on the ``GraphDef`` that compares it so, compiles again for each.
The recording wrote every optimizer alike (the text of its structure, addresses left out),
and JAX208 said "compiled N times for the same signature" with a guess at a jax setting. A
real program under the real ``jaxlint record --compile``: the recording must keep one
signature per program jax traced (the traces counted in the steps' bodies), the recorder's fast
path must count what its full path writes, and JAX208 must name ``tx`` at the line that made
the optimizer; one ``tx`` shared by several optimizers stays one signature."""
from __future__ import annotations

import importlib.util
import json

import pytest

from helpers import record_program, run_cli

# found, not imported: the program imports them, in its own process
pytestmark = pytest.mark.skipif(not all(importlib.util.find_spec(m) for m in ("flax", "optax")),
                                reason="needs flax and optax")

PROGRAM = '''
import json
from collections import Counter

import jax.numpy as jnp
import optax
from flax import nnx

from jaxlint.dynamic.record_signature import call_arguments
from jaxlint.dynamic.signatures import encode

TRACES = Counter()
WRITTEN = {}  # function key -> what the full path writes of each call -> calls


def note(fn, *args):
    text = json.dumps(encode(call_arguments(fn._meta, args, {})["args"]), sort_keys=True)
    WRITTEN.setdefault(fn._key, Counter())[text] += 1


def loss_fn(m, x):
    return (m(x) ** 2).mean()


@nnx.jit
def train_step(model, optimizer, x):
    TRACES["train_step"] += 1
    optimizer.update(nnx.grad(loss_fn)(model, x))


@nnx.jit
def shared_step(model, optimizer, x):
    TRACES["shared_step"] += 1
    optimizer.update(nnx.grad(loss_fn)(model, x))


x = jnp.ones((8, 4))
tx = optax.sgd(0.1)
for run in range(3):
    model = nnx.Linear(4, 2, rngs=nnx.Rngs(run))
    optimizer = nnx.ModelAndOptimizer(model, optax.adam(1e-3))
    for _ in range(3):
        note(train_step, model, optimizer, x)
        train_step(model, optimizer, x)
    same = nnx.ModelAndOptimizer(model, tx)
    for _ in range(3):
        note(shared_step, model, same, x)
        shared_step(model, same, x)

with open("written.json", "w") as out:
    json.dump({"traces": TRACES, "written": WRITTEN,
               "tables": {fn._key: len(fn._fast) for fn in (train_step, shared_step)}}, out)
'''


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    root = tmp_path_factory.mktemp("identity")
    sigs, _ = record_program(root, PROGRAM, "--compile")
    check = run_cli("check", "--dynamic", "--compile", "--select", "JAX208", "--output-format", "json", ".",
                    cwd=root, timeout=600)
    return sigs, json.loads((root / "written.json").read_text()), check


def test_one_signature_per_program_jax_traced(recorded):
    sigs, got, _ = recorded
    # nnx.jit traced train_step once per new optax object, three times as often as
    # shared_step (the recorder's analysis traces each signature once more, in both)
    assert got["traces"]["train_step"] == 3 * got["traces"]["shared_step"]
    assert len(sigs["prog:train_step"]["signatures"]) == 3
    assert len(sigs["prog:shared_step"]["signatures"]) == 1


def test_the_fast_path_counts_what_the_full_path_writes(recorded):
    sigs, got, _ = recorded
    for key, written in got["written"].items():
        counted: dict[str, int] = {}
        for s in sigs[key]["signatures"]:
            text = json.dumps(s["args"], sort_keys=True)
            counted[text] = counted.get(text, 0) + s["calls"]
        assert counted == written, key
    assert got["tables"] == {key: len(written) for key, written in got["written"].items()}


def test_jax208_names_the_new_object_where_it_is_made(recorded):
    _, _, check = recorded
    found = [d for d in json.loads(check.stdout) if d["code"] == "JAX208"]
    assert len(found) == 1, check.stdout[-3000:]
    d = found[0]
    lines = PROGRAM.lstrip("\n").splitlines()
    made = next(i for i, line in enumerate(lines, 1) if "ModelAndOptimizer(model, optax.adam" in line)
    assert d["location"]["row"] == made
    assert "static field `tx`" in d["message"] and "`train_step`" in d["message"]
    assert "same signature" not in d["message"]
