"""The calls that took the recorder's full path every time until issue 37 (rlax's DQN:
1.35x) are keyed by its fast path now, and counted exactly as before: a jitted bound
method (per instance), a namedtuple with an ``IntEnum`` and ``None`` fields, a keyword
argument, numpy scalars, typed PRNG keys (shape and implementation), a registered
dataclass pytree node (its static field); a function whose earlier calls stayed
unkeyed (a static argument described by its text) never takes the one-signature path,
which would count those calls under the keyed one. The real ``jaxlint record``, real jax."""
from __future__ import annotations

import json

import pytest

from helpers import record_program
from record_shapes import DEFINITIONS

PROGRAM = DEFINITIONS + '''

class Config:
    def __eq__(self, other):
        return isinstance(other, Config)

    def __hash__(self):
        return 1

    def __repr__(self):  # a text of its own, which the fast key does not hold
        return "Config()"


x, x4 = jnp.ones(3), jnp.ones(4)
a, b = Agent(2.0), Agent(3.0)
for _ in range(3):
    a.step(x)
    a.step(x4)
    b.step(x)


@jax.jit
def observe(ts):
    return ts.observation + 1


for i in range(6):
    observe(TimeStep(StepType.FIRST, None, None, x) if i % 3 == 0 else TimeStep(StepType.MID, 0.5, 1.0, x))


@jax.jit
def flagged(x, flag):
    return x + 1


for i in range(5):
    flagged(x, flag=i % 2 == 0)
    flagged(x, flag=np.float32(i))


@jax.jit
def scalar(x, s):
    return x + s


for i in range(4):
    scalar(x, np.float64(i))
    scalar(x, np.int32(i))
    scalar(x, StepType.MID)


@jax.jit
def keyed(x, key):
    return x + 1


for i in range(3):
    keyed(x, jax.random.key(i))
    keyed(x, jax.random.split(jax.random.key(i), 2))
    keyed(x, jax.random.key(i, impl="rbg"))


@jax.jit
def node(s):
    return s.x + s.n


for i in range(4):
    node(State(x, i, "train" if i < 3 else "eval"))
    node(State(x, 0.5, "train"))


@functools.partial(jax.jit, static_argnums=1)
def static(x, o):
    return x + 1


cfg = Config()
static(x, cfg)  # unkeyed: a static argument described by its text
static(x, cfg)
static(x, 3)  # keyed
static(x, 3)
for _ in range(3):
    static(x, cfg)  # counted under its own signature, not under static(x, 3)'s
tables = {name: len(getattr(fn, "_fast", ())) for name, fn in
          [("a.step", a.step), ("b.step", b.step), ("observe", observe), ("flagged", flagged),
           ("scalar", scalar), ("keyed", keyed), ("node", node), ("static", static)]}
with open("tables.json", "w") as out:
    json.dump(tables, out)
'''


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    root = tmp_path_factory.mktemp("shapes")
    sigs, observed = record_program(root, PROGRAM)
    return sigs, observed, json.loads((root / "tables.json").read_text())


def _calls(sigs: dict, key: str) -> dict[str, int]:
    """The signature (its arguments, as the recording writes them) -> its calls."""
    out: dict[str, int] = {}
    for s in sigs[key]["signatures"]:
        form = json.dumps([s["args"], s["kwargs"], s.get("bound", {}).get("instance")], sort_keys=True)
        out[form] = out.get(form, 0) + s["calls"]
    return out


def test_every_shape_is_keyed_by_the_fast_path(recorded):
    *_, tables = recorded
    assert tables == {"a.step": 2, "b.step": 1, "observe": 2, "flagged": 2, "scalar": 3, "keyed": 3,
                      "node": 3, "static": 1}


def test_a_bound_method_counts_per_instance(recorded):
    sigs, observed, _ = recorded
    assert sorted(_calls(sigs, "prog:Agent.step").values()) == [3, 3, 3]
    assert {(s["args"][0], s["bound"]["instance"], s["calls"]) for s in sigs["prog:Agent.step"]["signatures"]} == \
        {("f32[3]", 1, 3), ("f32[4]", 1, 3), ("f32[3]", 2, 3)}
    assert observed["prog:Agent.step"]["calls"] == 9


def test_namedtuple_keyword_scalar_key_and_node_calls_count_under_their_signature(recorded):
    sigs, observed, _ = recorded
    first, mid = sorted(sigs["prog:observe"]["signatures"], key=lambda s: s["calls"])
    assert first["calls"] == 2 and first["args"][0]["fields"]["reward"] == {"value": None}
    assert mid["calls"] == 4 and mid["args"][0]["fields"]["reward"] == "f32[] weak"
    assert {s["kwargs"]["flag"]: s["calls"] for s in sigs["prog:flagged"]["signatures"]} == {"bool[]": 5, "f32[]": 5}
    assert sorted((s["args"][1], s["calls"]) for s in sigs["prog:scalar"]["signatures"]) == \
        [("f32[]", 4), ("i32[]", 4), ("object[] weak", 4)]  # np.float64 is an array to jit, not weak
    keys = {s["args"][1]: s["calls"] for s in sigs["prog:keyed"]["signatures"]}
    assert keys == {"key<threefry2x32>[]": 3, "key<threefry2x32>[2]": 3, "key<rbg>[]": 3}
    node = {(s["args"][0]["leaves"][".n"], s["args"][0]["static"], s["calls"]) for s in sigs["prog:node"]["signatures"]}
    assert sorted(calls for *_, calls in node) == [1, 3, 4] and len({static for _, static, _ in node}) == 2
    for key in ("prog:observe", "prog:flagged", "prog:scalar", "prog:keyed", "prog:node"):
        assert observed[key]["calls"] == sum(s["calls"] for s in sigs[key]["signatures"])


def test_unkeyed_calls_end_the_one_signature_path(recorded):
    sigs, observed, _ = recorded
    by_static = {json.dumps(s["args"][1]): s["calls"] for s in sigs["prog:static"]["signatures"]}
    assert by_static == {'{"value": 3}': 2, '{"repr": "Config()"}': 5}
    assert observed["prog:static"]["calls"] == 7

