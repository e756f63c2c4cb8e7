"""The recorder's fast path (a call whose signature was already seen goes straight to
jax) keeps the recording exact: every call counted under its own signature, from
threads too; weak type, committed placement, a mesh context and the dtype jax makes of a
numpy value under x64 still make new signatures; a call that compiles again for a signature it had
compiled (a setting changed) is counted; a buffer donated and passed again in the same
call (`f(x, x)`) is reported. The real `jaxlint record`, real jax (0.10 and 0.4.38)."""
from __future__ import annotations


import pytest

from helpers import record_program

PROGRAM = '''
import functools
import threading

import jax
import jax.numpy as jnp
import numpy as np


@jax.jit
def f(x):
    return x * 2


@jax.jit
def g(x):
    return x + 1


@jax.jit
def h(t):
    return t["k0"] + t["k9"]


@functools.partial(jax.jit, donate_argnums=(0,))
def add(x, y):
    return x + y


a = jnp.ones(3)
for _ in range(5):
    f(a)
s = jnp.zeros(())
w = f(1.0)  # a weak scalar array
for _ in range(2):
    f(s)
    f(w)
c = jax.device_put(jnp.ones(3), jax.devices()[0])  # committed to its device
for _ in range(3):
    f(c)
enter = jax.set_mesh if hasattr(jax, "set_mesh") else (lambda mesh: mesh)  # `with mesh:` on jax 0.4
for _ in range(2):
    with enter(jax.make_mesh((1,), ("d",))):
        f(a)  # in a mesh context: another signature
tree = {f"k{i}": jnp.ones(2) for i in range(11)}
threads = [threading.Thread(target=lambda: [h(tree) for _ in range(250)]) for _ in range(4)]
for t in threads:
    t.start()
for t in threads:
    t.join()
n = np.ones(3)
g(n)
g(n)
jax.config.update("jax_enable_x64", True)
g(n)  # float64 now: a new signature
g(n)
f(a)  # the same signature, compiled again for the new setting
d = jnp.ones(3)
try:
    add(d, d)  # DONATED: one buffer donated and passed again
except Exception as e:  # where jax refuses the call
    print(type(e).__name__)


def base(x):
    return x - 1


k1, k2 = jax.jit(base), jax.jit(base)  # two jits of one function share jax's cache
for _ in range(3):
    k1(a)
for _ in range(2):
    k2(jnp.ones(4))
    k1(jnp.ones(4))


@jax.jit
def q(x):
    return x * 3


q(a)
q(a)  # one signature so far: jax's cache keys the calls
jax.jit(lambda y: q(y) + 1)(a)  # inside another trace: inlined
jax.vmap(q)(jnp.ones((2, 3)))  # under an eager vmap
with jax.disable_jit():
    q(jnp.ones(5))  # run without jit: no cache of jax's keys it
jax.clear_caches()
q(a)  # jax's cache was emptied: the same signature


@jax.jit
def r(x):
    return x.reshape(4)


r(jnp.ones(4))
r(jnp.ones(4))
try:
    r(a)  # a new signature whose trace fails
except TypeError:
    pass
'''


def _form(arg) -> str:
    if isinstance(arg, str):
        return arg
    return f"{arg['dtype']}{arg['array']}{' weak' if arg.get('weak') else ''}" + \
        (" committed" if (arg.get("sharding") or {}).get("committed") else "")


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    return record_program(tmp_path_factory.mktemp("fast"), PROGRAM)


def _calls(sigs, key) -> dict[str, int]:
    out: dict[str, int] = {}
    for s in sigs[key]["signatures"]:
        arg = s["args"][0]
        form = (_form(arg) if not (isinstance(arg, dict) and "dict" in arg) else "tree") + \
            (" in a mesh" if s.get("mesh") else "")
        out[form] = out.get(form, 0) + s["calls"]
    return out


def test_every_call_is_counted_under_its_own_signature(recorded):
    sigs, observed = recorded
    f = _calls(sigs, "prog:f")
    assert f.pop("f32[3]") == 6
    assert f.pop("f32[]") == 2
    assert f.pop("f32[] weak") == 3  # f(1.0) and the weak array it returned, twice
    assert f.pop("f32[3] in a mesh") == 2
    [(committed, calls)] = f.items()
    assert "committed" in committed and calls == 3
    assert _calls(sigs, "prog:h") == {"tree": 1000}  # four threads, 250 calls each
    assert observed["prog:h"]["calls"] == 1000 and observed["prog:f"]["calls"] == 16


def test_x64_gives_a_numpy_value_a_new_signature(recorded):
    sigs, _ = recorded
    assert _calls(sigs, "prog:g") == {"f32[3]": 2, "f64[3]": 2}


def test_a_call_that_compiles_again_for_a_seen_signature_is_counted(recorded):
    _, observed = recorded
    [rec] = [s for s in observed["prog:f"]["signatures"] if _form(s["args"][0]) == "float32[3]" and not s.get("mesh")]
    assert rec["calls"] == 6 and rec["compiles"] == 2
    assert rec["again_at"]["line"] == PROGRAM.lstrip("\n").splitlines().index(
        "f(a)  # the same signature, compiled again for the new setting") + 1


def test_a_buffer_donated_and_passed_again_in_one_call_is_reported(recorded):
    _, observed = recorded
    [d] = [d for d in observed["prog:add"]["diagnostics"] if d["code"] == "JAX210"]
    assert "`x` is donated and also passed as `y`" in d["message"]
    assert d["location"]["row"] == next(i for i, line in enumerate(PROGRAM.lstrip("\n").splitlines(), 1)
                                        if "# DONATED" in line)


def _by_form(sigs, key) -> dict[str, int]:
    return {_form(s["args"][0]) + (" inlined" if s.get("inlined") else "") + (f" under {s['under']}" if s.get("under") else ""):
            s["calls"] for s in sigs[key]["signatures"]}


def test_calls_keyed_by_jax_are_counted_under_their_signature(recorded):
    """A function called with one signature so far is keyed by jax's own cache; a call
    that cache does not answer (a new signature, a trace, an eager transform, jit off,
    the cache emptied, a second jit of the function sharing it) is keyed by the recorder."""
    sigs, observed = recorded
    assert _by_form(sigs, "prog:base") == {"f32[3]": 3, "f64[4]": 4}  # x64 is on by then
    q = _by_form(sigs, "prog:q")
    assert q.pop("f32[3]") == 3 and q.pop("f64[5]") == 1
    assert q.pop("f32[3] inlined") == 1
    assert list(q.values()) == [1] and "under vmap" in next(iter(q))
    assert observed["prog:q"]["inlined_calls"] == 1
    assert _by_form(sigs, "prog:r") == {"f64[4]": 2, "f32[3]": 1}
    [failed] = [s for s in observed["prog:r"]["signatures"] if _form(s["args"][0]) == "float32[3]"]
    assert failed["calls"] == 1 and failed["first_call"]["line"] == PROGRAM.lstrip("\n").splitlines().index(
        "    r(a)  # a new signature whose trace fails") + 1
