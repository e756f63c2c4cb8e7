"""The recorder's fast path (a call whose signature was already seen goes straight to
jax) keeps the recording exact: every call counted under its own signature, from
threads too; weak type, committed placement, a mesh context and the dtype jax makes of a
numpy value under x64 still make new signatures; a call that compiles again for a signature it had
compiled (a setting changed) is counted; a buffer donated and passed again in the same
call (`f(x, x)`) is reported. The real `jaxlint record`, real jax (0.10 and 0.4.38)."""
from __future__ import annotations

import json

import pytest

from helpers import run_cli

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
'''


def _form(arg) -> str:
    if isinstance(arg, str):
        return arg
    return f"{arg['dtype']}{arg['array']}{' weak' if arg.get('weak') else ''}" + \
        (" committed" if (arg.get("sharding") or {}).get("committed") else "")


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    root = tmp_path_factory.mktemp("fast")
    (root / "pyproject.toml").write_text("[tool.jaxlint]\n")
    (root / "prog.py").write_text(PROGRAM.lstrip("\n"))
    rec = run_cli("record", "--", "python", "prog.py", cwd=root, timeout=600)
    assert rec.returncode == 0, rec.stderr[-3000:]
    sigs = json.loads((root / ".jaxlint" / "signatures.json").read_text())["functions"]
    observed = json.loads((root / ".jaxlint" / "observed.json").read_text())["functions"]
    return sigs, observed


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
