"""Dynamic-phase (trace tier) benchmark: jaxlint vs bare ``jax.jit(f).trace(...)``.

Corpus: the bundled ``examples/dynamic`` and ``examples/compile`` programs plus a
generated module of realistic functions (an MLP training step with ``grad``, a
transformer block, a conv net, a scanned RNN, an Adam update over a parameter dict),
each with a ``# jaxlint: args=...`` directive. Everything is copied into a temporary
project so the runs never touch the repository's cache.

In one process and one run:

* bare:  in a fresh process (jax caches traces per function), import jax, import each
  module, ``jax.jit(f).trace(*ShapeDtypeStructs)`` every function once (after one
  warm-up trace): per-function time and module import time, median of ``--repeat``;
* start: a worker's one-time start (``python -c "import jax"`` in a subprocess);
* cold:  :func:`jaxlint.dynamic.driver.run_dynamic` with no cache and one worker
  (planning, worker start, import, trace, every trace rule, IPC); per-function
  trace+rules time comes back from the worker;
* warm:  the same with a filled cache.

Targets: cold <= 1.25 x (bare traces + module imports) + start; warm <= 0.1 x cold. ``--check`` exits 1 when
one is missed.

    python benchmarks/bench_dynamic.py [--repeat 3] [--check] [--json out.json]
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

GENERATED = '''
import jax
import jax.numpy as jnp


def _mlp(params, x):
    for w, b in params:
        x = jnp.tanh(x @ w + b)
    return x


# jaxlint: args=([(f32[784, 512], f32[512]), (f32[512, 512], f32[512]), (f32[512, 10], f32[10])], f32[128, 784], i32[128])
@jax.jit
def mlp_train_step(params, x, y):
    def loss(p):
        logits = _mlp(p, x)
        return -jnp.mean(jax.nn.log_softmax(logits)[jnp.arange(x.shape[0]), y])
    grads = jax.grad(loss)(params)
    return jax.tree.map(lambda p, g: p - 1e-3 * g, params, grads)


def _layer_norm(x, g, b):
    m = x.mean(-1, keepdims=True)
    v = ((x - m) ** 2).mean(-1, keepdims=True)
    return (x - m) / jnp.sqrt(v + 1e-5) * g + b


# jaxlint: args=({"wq": f32[256, 256], "wk": f32[256, 256], "wv": f32[256, 256], "wo": f32[256, 256], "w1": f32[256, 1024], "w2": f32[1024, 256], "g1": f32[256], "b1": f32[256], "g2": f32[256], "b2": f32[256]}, f32[8, 128, 256])
@jax.jit
def transformer_block(p, x):
    h = _layer_norm(x, p["g1"], p["b1"])
    q, k, v = h @ p["wq"], h @ p["wk"], h @ p["wv"]
    q, k, v = (t.reshape(t.shape[0], t.shape[1], 8, 32).transpose(0, 2, 1, 3) for t in (q, k, v))
    att = jax.nn.softmax(q @ k.transpose(0, 1, 3, 2) / jnp.sqrt(32.0), axis=-1)
    o = (att @ v).transpose(0, 2, 1, 3).reshape(x.shape)
    x = x + o @ p["wo"]
    h = _layer_norm(x, p["g2"], p["b2"])
    return x + jax.nn.gelu(h @ p["w1"]) @ p["w2"]


# jaxlint: args=(f32[16, 3, 3, 3], f32[32, 16, 3, 3], f32[8, 3, 32, 32])
@jax.jit
def conv_net(k1, k2, x):
    dn = ("NCHW", "OIHW", "NCHW")
    x = jax.nn.relu(jax.lax.conv_general_dilated(x, k1, (1, 1), "SAME", dimension_numbers=dn))
    x = jax.nn.relu(jax.lax.conv_general_dilated(x, k2, (2, 2), "SAME", dimension_numbers=dn))
    return x.mean(axis=(2, 3))


# jaxlint: args=(f32[64, 128], f32[128, 128], f32[200, 32, 64])
@jax.jit
def rnn(wx, wh, xs):
    def cell(h, x):
        h = jnp.tanh(x @ wx + h @ wh)
        return h, h
    return jax.lax.scan(cell, jnp.zeros((xs.shape[1], wh.shape[0])), xs)[1]


# jaxlint: args=({"a": f32[512, 512], "b": f32[512], "c": f32[512, 10]}, {"a": f32[512, 512], "b": f32[512], "c": f32[512, 10]}, {"a": f32[512, 512], "b": f32[512], "c": f32[512, 10]}, {"a": f32[512, 512], "b": f32[512], "c": f32[512, 10]}, i32[])
@jax.jit
def adam_update(params, grads, m, v, t):
    m = jax.tree.map(lambda m, g: 0.9 * m + 0.1 * g, m, grads)
    v = jax.tree.map(lambda v, g: 0.999 * v + 0.001 * g * g, v, grads)
    tf = t.astype(jnp.float32) + 1
    upd = jax.tree.map(lambda m, v: (m / (1 - 0.9 ** tf)) / (jnp.sqrt(v / (1 - 0.999 ** tf)) + 1e-8), m, v)
    return jax.tree.map(lambda p, u: p - 1e-3 * u, params, upd), m, v
'''


def build_corpus(root: Path) -> list[Path]:
    (root / "pyproject.toml").write_text("[tool.jaxlint]\n[tool.jaxlint.dynamic]\nenabled = true\nworkers = 1\n")
    files = [root / "models.py"]
    files[0].write_text(GENERATED.lstrip())
    for sub in ("dynamic", "compile"):
        for f in sorted((REPO / "examples" / sub).glob("*.py")):
            dst = root / f"{sub}_{f.name}"
            shutil.copy(f, dst)
            files.append(dst)
    return files


def plans(files: list[Path], root: Path):
    from jaxlint.config import load_settings
    from jaxlint.files.discovery import FileTask
    from jaxlint.dynamic.driver import plan_file

    settings = load_settings(root / "pyproject.toml")
    tasks = [FileTask(f, f.name, settings) for f in files]
    out = []
    for t in tasks:
        fp = plan_file(t, settings, {})
        if fp is not None:
            out.append(fp)
    return tasks, settings, out


BARE = r"""
import importlib, json, sys, time
t_start = time.perf_counter()
import jax
import jax.numpy as jnp
from jaxlint.dynamic.worker import trace_args
t_jax = time.perf_counter()
jobs = json.loads(sys.stdin.read())
sys.path.insert(0, jobs["root"])
jax.jit(lambda x: x + 1).trace(jax.ShapeDtypeStruct((2,), jnp.float32))  # warm-up
out, imports = {}, 0.0
for f in jobs["files"]:
    t0 = time.perf_counter()
    mod = importlib.import_module(f["module"])
    imports += time.perf_counter() - t0
    for fn in f["functions"]:
        obj = getattr(mod, fn["name"])
        orig = getattr(obj, "__wrapped__", obj)
        args, kwargs = trace_args(orig, fn["spec"], {}, False)
        t0 = time.perf_counter()
        try:
            jax.jit(orig, static_argnums=fn["nums"], static_argnames=fn["names"]).trace(*args, **kwargs)
        except Exception:
            pass  # trace errors are part of the corpus (JAX205): time them too
        out[f["display"] + ":" + fn["qualname"]] = time.perf_counter() - t0
print(json.dumps({"traces": out, "imports": imports, "import_jax": t_jax - t_start}))
"""


def bare(fplans, root: Path, repeat: int) -> tuple[dict[str, float], float]:
    """Per-function seconds of a bare ``jax.jit(f).trace(...)`` in a fresh process (jax
    caches traces per function, so a second trace in one process would be free), and
    the time to import the modules; medians over repeats."""
    jobs = {"root": str(root), "files": [
        {"module": fp.module, "display": fp.task.display, "functions": [
            {"name": p.entry.bound_name or p.entry.qualname, "qualname": p.entry.qualname, "spec": p.spec,
             "nums": list(p.entry.static_argnums), "names": list(p.entry.static_argnames)}
            for p in fp.plans if p.skip is None and p.spec is not None]}
        for fp in fplans]}
    runs = []
    for _ in range(repeat):
        proc = subprocess.run([sys.executable, "-c", BARE], input=json.dumps(jobs), capture_output=True,
                              text=True, check=True, cwd=root)
        runs.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    keys = runs[0]["traces"]
    traces = {k: statistics.median(r["traces"][k] for r in runs) for k in keys}
    return traces, statistics.median(r["imports"] for r in runs)


def worker_start() -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import jax, jaxlint.dynamic.adapter"], check=True)
    return time.perf_counter() - t0


def jaxlint_run(tasks, settings, cache: Path | None):
    from jaxlint.dynamic.driver import run_dynamic
    from jaxlint.registry import active_rules

    levels = ["trace"]
    t0 = time.perf_counter()
    report = run_dynamic(tasks, lambda t: t.settings, lambda s: [r for r in active_rules(s, tuple(levels))
                                                                  if r.code != "JAX200"],
                         levels, cache, None, workers=1)
    return time.perf_counter() - t0, report


def main() -> int:
    from jaxlint.inspect.levels import hand_rules

    hand_rules()  # the driver runs in this process
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--json")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="jaxlint-bench-dyn-"))
    try:
        files = build_corpus(work)
        tasks, settings, fplans = plans(files, work)
        colds, reports = [], []
        for _ in range(args.repeat):
            t, rep = jaxlint_run(tasks, settings, None)
            colds.append(t)
            reports.append(rep)
        cache = work / "cache"
        jaxlint_run(tasks, settings, cache)  # fill
        warms = [jaxlint_run(tasks, settings, cache)[0] for _ in range(args.repeat)]
        starts = [worker_start() for _ in range(args.repeat)]
        bare_t, imports = bare(fplans, work, args.repeat)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    per_fn: dict[str, list[float]] = {}
    for rep in reports:
        for f in rep.functions:
            if f.status == "analysed":
                per_fn.setdefault(f"{f.path}:{f.qualname}", []).append(f.seconds)
    jl = {k: statistics.median(v) for k, v in per_fn.items()}
    cold, warm, start = statistics.median(colds), statistics.median(warms), statistics.median(starts)
    bare_total = sum(bare_t.values())
    print(f"jax {reports[0].versions.get('jax')} on {platform.machine()}, python {platform.python_version()}, "
          f"{os.cpu_count()} cores; {len(bare_t)} functions in {len(fplans)} files; median of {args.repeat}")
    print(f"{'function':58s} {'bare trace':>11s} {'jaxlint':>9s} {'ratio':>6s}")
    for k in sorted(bare_t):
        b, j = bare_t[k], jl.get(k)
        js = f"{j * 1000:7.1f}ms" if j is not None else "      -  "
        rs = f"{j / b:5.2f}x" if j is not None and b > 0 else "     -"
        print(f"{k[:58]:58s} {b * 1000:9.1f}ms {js} {rs}")
    jl_total = sum(jl.values())
    budget = 1.25 * (bare_total + imports) + start
    print(f"\nbare traces, total             {bare_total * 1000:8.0f} ms")
    print(f"jaxlint trace+rules in worker  {jl_total * 1000:8.0f} ms  ({jl_total / bare_total:.2f}x bare)")
    print(f"importing the corpus modules   {imports * 1000:8.0f} ms  (paid by both)")
    print(f"worker start (import jax)      {start * 1000:8.0f} ms")
    print(f"jaxlint cold, whole phase      {cold * 1000:8.0f} ms  "
          f"(target <= 1.25 x (bare + imports) + start = {budget * 1000:.0f} ms)")
    print(f"jaxlint warm (cached)          {warm * 1000:8.0f} ms  ({warm / cold:.3f}x cold; target <= 0.1x)")
    ok = cold <= budget and warm <= 0.1 * cold
    if args.json:
        Path(args.json).write_text(json.dumps({
            "bare": bare_t, "imports": imports, "jaxlint": jl, "cold": cold, "warm": warm, "start": start,
            "versions": reports[0].versions, "ok": ok}, indent=2))
    print("targets met" if ok else "TARGET MISSED")
    return 0 if ok or not args.check else 1


if __name__ == "__main__":
    sys.exit(main())
