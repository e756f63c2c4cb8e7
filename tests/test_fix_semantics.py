"""What the codemod fixes do when the code runs: each fixed module is executed with real
jax (CPU), in one child process, next to the original where the original runs at all.

The fixes are unsafe (behaviour may change: that is what the flag says); these tests
show what does not change where it should not (fori_loop and hoisted jit compute the
same values), and what changes where it should (code that could not trace now does;
a reused key now gives independent draws; a 64-bit request no longer warns)."""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap

from helpers import fixed

LOOPS = """
    import jax
    import jax.numpy as jnp

    @jax.jit
    def damped(x, w):
        for _ in range(20):
            h = jnp.tanh(x @ w)  # project
            x = x + 0.1 * h
        return x

    @jax.jit
    def affine(x):
        for _ in range(30):
            x = x * 0.9 + 1.0
        return x

    @jax.jit
    def accumulate(x):
        for _ in range(1, 40):
            x += jnp.sin(x)
        return x
    """

WHERE = """
    import jax

    @jax.jit
    def relu(x):
        if x > 0:
            return x
        return 0.0

    @jax.jit
    def clip(x, lo):
        if x < lo:
            y = lo
        elif x > 10:
            y = x / 10
        else:
            y = x
        return y

    @jax.jit
    def sign(x):
        return 1.0 if x >= 0 else -1.0
    """

UPDATES = """
    import jax
    import numpy as np

    @jax.jit
    def double_at(x, i):
        x[i] = x[i] * 2
        return x / x.sum()

    @jax.jit
    def bump(x):
        x.at[0].add(10.0)
        return np.sum(np.abs(x))
    """

HOIST = """
    import jax

    def step(x):
        return x * 2 + 1

    def run(x, n):
        for _ in range(n):
            x = jax.jit(step)(x)
        return x
    """

KEYS = """
    import jax

    def two_draws(key):
        a = jax.random.uniform(key, (4,))
        b = jax.random.uniform(key, (4,))
        return a, b
    """

WIDE = """
    import jax
    import jax.numpy as jnp

    @jax.jit
    def widen(x):
        return x.astype(jnp.float64) * 2
    """

RUNNER = r"""
import json, sys, warnings
import numpy as np
import jax
import jax.numpy as jnp

def load(path):
    ns = {"__name__": path}
    exec(compile(open(path).read(), path, "exec"), ns)
    return ns

def attempt(fn, *args):
    try:
        return ("ok", np.asarray(fn(*args)).tolist())
    except Exception as e:
        return ("error", type(e).__name__)

out = {}
x = jnp.linspace(-1.0, 1.0, 8).reshape(2, 4)
w = jnp.eye(4) * 0.5
old, new = load("loops_old.py"), load("loops_new.py")
for name, args in (("damped", (x, w)), ("affine", (x,)), ("accumulate", (x,))):
    out["loops:" + name] = [attempt(old[name], *args), attempt(new[name], *args)]

old, new = load("where_old.py"), load("where_new.py")
for name, args in (("relu", (2.0,)), ("relu", (-3.0,)), ("clip", (-5.0, 1.0)), ("clip", (50.0, 1.0)),
                   ("clip", (4.0, 1.0)), ("sign", (-0.5,)), ("sign", (0.0,))):
    with jax.disable_jit():
        python = attempt(old[name], *args)
    out[f"where:{name}{args}"] = [attempt(old[name], *args), python, attempt(new[name], *args)]

old, new = load("updates_old.py"), load("updates_new.py")
v = jnp.arange(4.0)
out["updates:double_at"] = [attempt(old["double_at"], v, 1), attempt(new["double_at"], v, 1)]
out["updates:bump"] = [attempt(old["bump"], -v), attempt(new["bump"], -v)]

old, new = load("hoist_old.py"), load("hoist_new.py")
out["hoist"] = [attempt(old["run"], v, 3), attempt(new["run"], v, 3)]

old, new = load("keys_old.py"), load("keys_new.py")
k = jax.random.PRNGKey(0)
a0, b0 = old["two_draws"](k)
a1, b1 = new["two_draws"](k)
out["keys"] = {"old_equal": bool(np.array_equal(a0, b0)), "new_equal": bool(np.array_equal(a1, b1))}

old, new = load("wide_old.py"), load("wide_new.py")
for which, ns in (("old", old), ("new", new)):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = ns["widen"](v)
    out["wide:" + which] = [str(r.dtype), np.asarray(r).tolist(), [str(c.message)[:60] for c in caught]]
json.dump(out, sys.stdout)
"""


def _run_fixed_pairs(tmp_path, pairs: dict[str, tuple[str, str]]) -> dict:
    for stem, (codes, src) in pairs.items():
        src = textwrap.dedent(src).lstrip("\n")
        (tmp_path / f"{stem}_old.py").write_text(src)
        for code in codes.split():
            src = fixed(code, src)
        (tmp_path / f"{stem}_new.py").write_text(src)
    proc = subprocess.run([sys.executable, "-c", RUNNER], cwd=tmp_path, capture_output=True, text=True,
                          timeout=300, env={"JAX_PLATFORMS": "cpu", "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout)


def test_fixed_code_runs_and_keeps_what_it_should(tmp_path):
    out = _run_fixed_pairs(tmp_path, {
        "loops": ("JAX102", LOOPS), "where": ("JAX105", WHERE), "updates": ("JAX110 JAX104", UPDATES),
        "hoist": ("JAX103", HOIST), "keys": ("JAX114", KEYS), "wide": ("JAX112", WIDE),
    })
    new_loops = (tmp_path / "loops_new.py").read_text()
    assert new_loops.count("jax.lax.fori_loop(") == 3 and "for _ in" not in new_loops
    # fori_loop computes what the unrolled loop computed
    for name in ("damped", "affine", "accumulate"):
        (s_old, v_old), (s_new, v_new) = out[f"loops:{name}"]
        assert s_old == s_new == "ok" and _close(v_old, v_new), name
    # jnp.where: the original cannot trace; the fix gives what Python's `if` gives on concrete values
    for key in (k for k in out if k.startswith("where:")):
        jitted, python, new = out[key]
        assert jitted == ["error", "TracerBoolConversionError"] and python[0] == new[0] == "ok", (key, out[key])
        assert _close(python[1], new[1]), key
    # item assignment raised; the .at[] update computes it; the discarded update is kept now, and
    # jnp.sum traces where np.sum could not
    assert out["updates:double_at"][0] == ["error", "TypeError"]
    assert _close(out["updates:double_at"][1][1], [0.0, 2 / 7, 2 / 7, 3 / 7])
    assert out["updates:bump"][0][0] == "error" and out["updates:bump"][1] == ["ok", 16.0]
    # a hoisted jit wrapper computes the same
    assert out["hoist"][0] == out["hoist"][1] == ["ok", [7.0, 15.0, 23.0, 31.0]]
    # a reused key drew the same numbers twice; split, it does not
    assert out["keys"] == {"old_equal": True, "new_equal": False}
    # float64 without x64 was silently float32 (with a warning); float32 is asked for now
    (old_dtype, old_values, old_warnings), (new_dtype, new_values, new_warnings) = out["wide:old"], out["wide:new"]
    assert old_dtype == new_dtype == "float32" and old_values == new_values
    assert any("float64" in w for w in old_warnings) and not new_warnings


def _close(a, b) -> bool:
    import numpy as np

    return bool(np.allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float), rtol=1e-5, atol=1e-6))
