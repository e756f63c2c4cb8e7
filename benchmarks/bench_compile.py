"""Compile-tier benchmark: jaxlint's cost over a bare ``.lower().compile()``.

Corpus: the bundled examples that have inputs (``examples/*.py``, ``examples/compile``)
plus a few realistic functions written here (an MLP train step with Adam, a
transformer block forward and its gradient, a scan-based RNN), each with an input
directive. Everything runs on the installed jax, on CPU, in subprocesses:

* bare:  one fresh Python process imports jax and the modules, traces every function
  and times ``traced.lower().compile()`` per function (no persistent cache);
* cold:  ``jaxlint check --dynamic --compile`` with an empty ``--cache-dir``; per
  function, the compile tier's own time (lowering, compiling, reading the HLO, cost
  and memory analysis, the JAX3xx rules), from ``--report FILE.json``;
* warm:  the same command again (jaxlint's result cache and jax's persistent
  compilation cache are both filled);
* xla-warm: the result cache removed, jax's persistent cache kept (what an edit to
  one file costs the others that import nothing from it).

Targets (docs/compile.md): the compile tier ≤ 1.15× the bare compiles, cold; the warm
run ≤ 0.2× the cold run. ``--check`` exits 1 when one is missed.

    python benchmarks/bench_compile.py [--repeat 3] [--check] [--json results.json]
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

EXTRA = '''
"""Realistic functions for the compile benchmark."""
import jax
import jax.numpy as jnp


def mlp(params, x):
    for w, b in params:
        x = jnp.tanh(x @ w + b)
    return x


# jaxlint: args=(LAYERS, LAYERS, LAYERS, f32[128,784], f32[128,10])
@jax.jit
def adam_step(params, m, v, x, y):
    def loss(p):
        return jnp.mean((mlp(p, x) - y) ** 2)

    g = jax.grad(loss)(params)
    m = jax.tree.map(lambda m, g: 0.9 * m + 0.1 * g, m, g)
    v = jax.tree.map(lambda v, g: 0.999 * v + 0.001 * g * g, v, g)
    params = jax.tree.map(lambda p, m, v: p - 1e-3 * m / (jnp.sqrt(v) + 1e-8), params, m, v)
    return params, m, v


def block(p, x):
    h = x @ p["wqkv"]
    q, k, v = jnp.split(h, 3, axis=-1)
    a = jax.nn.softmax(q @ k.swapaxes(-1, -2) / 8.0, axis=-1) @ v
    x = x + a @ p["wo"]
    x = x + jax.nn.gelu(x @ p["w1"]) @ p["w2"]
    return x / jnp.linalg.norm(x, axis=-1, keepdims=True)


# jaxlint: args=({"wqkv": f32[256,768], "wo": f32[256,256], "w1": f32[256,1024], "w2": f32[1024,256]}, f32[4,128,256])
@jax.jit
def transformer_block(p, x):
    return block(p, x)


# jaxlint: args=({"wqkv": f32[256,768], "wo": f32[256,256], "w1": f32[256,1024], "w2": f32[1024,256]}, f32[4,128,256])
@jax.jit
def transformer_grad(p, x):
    return jax.grad(lambda p: jnp.sum(block(p, x) ** 2))(p)


# jaxlint: args=(f32[256,256], f32[64,32,256])
@jax.jit
def rnn(w, xs):
    def cell(h, x):
        h = jnp.tanh(h @ w + x)
        return h, h.sum()
    return jax.lax.scan(cell, jnp.zeros(xs.shape[1:]), xs)
'''

#: inputs for bundled examples that jaxlint finds through their example calls
DIRECTIVES = {"predict": "(f32[8,784],)", "simulate": "(f32[3], f32[3])"}

BARE = r'''
import importlib.util, json, os, sys, time, inspect, ast
import jax
from jaxlint.dynamic import inputs as inp
from jaxlint.config.inputspec import spec_from_parts
from jaxlint.dynamic.worker import trace_args
jax.devices()  # the backend starts before any timing, as in a jaxlint worker
out = {}
for path in sys.argv[1:]:
    text = open(path).read()
    lines = text.splitlines()
    found = inp.directives(lines)
    name = os.path.splitext(os.path.basename(path))[0]
    spec_obj = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec_obj)
    sys.modules[name] = mod
    spec_obj.loader.exec_module(mod)
    for node in ast.parse(text).body:
        if not isinstance(node, ast.FunctionDef):
            continue
        d = inp.directive_for(lines, found, node)
        if d is None:
            continue
        args, kwargs, static, _ = inp.parse_directive(d[1])
        spec = spec_from_parts(args, kwargs, static, "directive", "")
        fn = getattr(mod, node.name)
        a, kw = trace_args(inspect.unwrap(fn), spec, {}, False)
        traced = fn.trace(*a, **kw)
        t0 = time.perf_counter()
        traced.lower().compile()
        out[f"{name}:{node.name}"] = time.perf_counter() - t0
print(json.dumps(out))
'''


def corpus(tmp: Path) -> Path:
    d = tmp / "corpus"
    d.mkdir()
    for f in [*sorted((ROOT / "examples").glob("*.py")), *sorted((ROOT / "examples" / "compile").glob("*.py"))]:
        text = f.read_text()
        for fn, spec in DIRECTIVES.items():  # the bare compile needs explicit inputs
            text = text.replace(f"@jax.jit\ndef {fn}(", f"# jaxlint: args={spec}\n@jax.jit\ndef {fn}(")
        if "# jaxlint: args=" in text:
            (d / f.name).write_text(text)
    layers = "[(f32[784,512], f32[512]), (f32[512,512], f32[512]), (f32[512,10], f32[10])]"
    (d / "realistic.py").write_text(textwrap.dedent(EXTRA).lstrip().replace("LAYERS", layers))
    (d / "pyproject.toml").write_text('[tool.jaxlint]\nselect = ["JAX3"]\n'
                                      "[tool.jaxlint.dynamic]\nworkers = 1\n")
    return d


def env() -> dict:
    e = dict(os.environ)
    e["JAX_PLATFORMS"] = "cpu"
    e.pop("JAXLINT_XLA_CACHE", None)
    return e


def bare(d: Path) -> dict[str, float]:
    files = [str(p) for p in sorted(d.glob("*.py")) if "# jaxlint: args=" in p.read_text()]
    proc = subprocess.run([sys.executable, "-c", BARE, *files], capture_output=True, text=True, cwd=d, env=env(),
                          timeout=900)
    if proc.returncode:
        raise SystemExit(f"bare compile failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def jaxlint(d: Path, cache: Path, report: Path) -> tuple[float, dict]:
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "jaxlint", "check", "--dynamic", "--compile", "--cache-dir",
                           str(cache), "--report", str(report), "-q", "."], capture_output=True, text=True, cwd=d,
                          env=env(), timeout=900)
    wall = time.perf_counter() - t0
    if proc.returncode not in (0, 1):
        raise SystemExit(f"jaxlint failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    return wall, json.loads(report.read_text())


def tier_seconds(rep: dict) -> dict[str, float]:
    out = {}
    for f in rep["functions"]:
        r = f.get("report") or {}
        if "tier_seconds" in r:
            out[f"{Path(f['path']).stem}:{f['qualname']}"] = r["tier_seconds"]
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--json")
    args = ap.parse_args()
    runs = []
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        d = corpus(tmp)
        for i in range(args.repeat):
            b = bare(d)
            cache = tmp / f"cache{i}"
            cold_wall, cold = jaxlint(d, cache, tmp / "cold.json")
            warm_wall, _ = jaxlint(d, cache, tmp / "warm.json")
            shutil.rmtree(cache / next(p.name for p in cache.iterdir() if p.name[0].isdigit()))
            xla_wall, xla = jaxlint(d, cache, tmp / "xla.json")
            runs.append({"bare": b, "cold": tier_seconds(cold), "xla_warm": tier_seconds(xla),
                         "cold_wall": cold_wall, "warm_wall": warm_wall, "xla_wall": xla_wall,
                         "versions": cold.get("versions")})
    names = sorted(set(runs[0]["bare"]) & set(runs[0]["cold"]))
    med = statistics.median
    print(f"{'function':<40} {'bare s':>8} {'jaxlint s':>10} {'ratio':>6} {'xla-warm s':>11}")
    for n in names:
        b = med(r["bare"][n] for r in runs)
        c = med(r["cold"][n] for r in runs)
        x = med(r["xla_warm"].get(n, float("nan")) for r in runs)
        print(f"{n:<40} {b:>8.3f} {c:>10.3f} {c / b:>6.2f} {x:>11.3f}")
    tot_b = med(sum(r["bare"][n] for n in names) for r in runs)
    tot_c = med(sum(r["cold"][n] for n in names) for r in runs)
    cold_wall = med(r["cold_wall"] for r in runs)
    warm_wall = med(r["warm_wall"] for r in runs)
    xla_wall = med(r["xla_wall"] for r in runs)
    overhead = tot_c / tot_b
    warm_ratio = warm_wall / cold_wall
    print(f"{'total':<40} {tot_b:>8.3f} {tot_c:>10.3f} {overhead:>6.2f}")
    print(f"\nwall: cold {cold_wall:.2f} s, warm {warm_wall:.2f} s ({warm_ratio:.2f}x cold), "
          f"xla-cache only {xla_wall:.2f} s ({xla_wall / cold_wall:.2f}x cold)")
    print(f"versions: {runs[0]['versions']}; {len(names)} functions; median of {args.repeat}")
    ok = overhead <= 1.15 and warm_ratio <= 0.2
    print(f"targets: compile tier <= 1.15x bare: {overhead:.2f}x {'ok' if overhead <= 1.15 else 'MISSED'}; "
          f"warm <= 0.2x cold: {warm_ratio:.2f}x {'ok' if warm_ratio <= 0.2 else 'MISSED'}")
    if args.json:
        Path(args.json).write_text(json.dumps({"runs": runs, "overhead": overhead, "warm_ratio": warm_ratio},
                                              indent=1))
    return 1 if args.check and not ok else 0


if __name__ == "__main__":
    sys.exit(main())
