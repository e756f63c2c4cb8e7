"""The figures rule messages and docs quote, measured with real jax on this machine.

* **JAX103** (jit-per-call): a reused jitted function's call; ``jax.jit(f)(x)`` with a
  module-level ``f`` (the compiled code is found in jax's cache, the wrapper is new);
  ``jax.jit(lambda v: f(v))(x)`` (a new function object: traced and compiled again).
  A tiny function (``jnp.sin(x) * 2 + 1`` on ``f32[16]``), per call, median of the
  repeats, each a loop of calls after a warm-up.
* **JAX202** (unrolled-loop): the rule's own example, a 1,000-step Python loop of
  ``jnp.tanh(x @ x) * 0.5 + x`` on ``f32[64,64]`` under ``jax.jit``, against the same
  loop as ``lax.fori_loop``: ``.lower(x)`` and ``.compile()`` seconds.
* **JAX209** (constant-fold): a 100 MB captured numpy array of random floats, scaled
  inside ``jax.jit`` (``x * (jnp.asarray(W) * 2 + 1)``, ``x`` a scalar), which XLA folds
  at compile time: lower and compile seconds and the process's peak memory growth while
  compiling, against the same computation on the array passed as an argument.

Each measurement runs in a fresh interpreter (no compilation cache, no warm jit
caches, a clean peak-memory count); jax's persistent compilation cache stays off.
The script needs jax only, so it runs under any jax install (CI's second one too):

    python benchmarks/bench_claims.py [--repeat 3] [--only jax103,jax202,jax209] [--json out.json]
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time

CASES = ("jax103", "jax202", "jax209")


# ---------------------------------------------------------------------------- in the child
def _jax103(calls_fast: int = 2000, calls_slow: int = 20) -> dict:
    import jax
    import jax.numpy as jnp

    def f(v):
        return jnp.sin(v) * 2 + 1

    x = jnp.ones(16)
    reused = jax.jit(f)
    reused(x).block_until_ready()  # compiled once, before timing
    jax.jit(f)(x).block_until_ready()

    def per_call(call, n: int) -> float:
        t0 = time.perf_counter()
        for _ in range(n):
            call().block_until_ready()
        return (time.perf_counter() - t0) / n

    return {
        "reused_wrapper_us": per_call(lambda: reused(x), calls_fast) * 1e6,
        "rewrapped_module_function_us": per_call(lambda: jax.jit(f)(x), calls_fast) * 1e6,
        "new_lambda_ms": per_call(lambda: jax.jit(lambda v: f(v))(x), calls_slow) * 1e3,
    }


def _jax202() -> dict:
    import jax
    import jax.numpy as jnp

    def simulate(x):
        for _ in range(1000):
            x = jnp.tanh(x @ x) * 0.5 + x
        return x

    def simulate_fori(x):
        return jax.lax.fori_loop(0, 1000, lambda i, x: jnp.tanh(x @ x) * 0.5 + x, x)

    x = jnp.ones((64, 64), jnp.float32)
    jax.jit(lambda v: v + 1).lower(x).compile()  # backend start-up, outside the timings
    out = {}
    for name, fn in (("unrolled", simulate), ("fori_loop", simulate_fori)):
        t0 = time.perf_counter()
        lowered = jax.jit(fn).lower(x)
        t1, c1 = time.perf_counter(), time.process_time()
        lowered.compile()
        t2, c2 = time.perf_counter(), time.process_time()
        out[f"{name}_lower_s"] = t1 - t0
        out[f"{name}_compile_s"] = t2 - t1
        out[f"{name}_compile_cpu_s"] = c2 - c1  # all of XLA's threads: less sensitive to load
    return out


def _peak_rss_bytes() -> int | None:
    try:
        import resource
    except ImportError:  # Windows
        return None
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024


def _jax209() -> dict:
    import numpy as np

    import jax
    import jax.numpy as jnp

    # 100 MB of random floats (a splat such as np.ones lowers to one value and costs nothing)
    W = np.random.default_rng(0).standard_normal(25_000_000, dtype=np.float32)

    def folded(x):  # computed from the captured array only: XLA folds it at compile time
        return x * (jnp.asarray(W) * 2 + 1)

    def passed(x, w):  # the same computation on an argument
        return x * (w * 2 + 1)

    x = jnp.float32(3.0)
    jax.jit(lambda v: v + 1).lower(x).compile()  # backend start-up, outside the timings
    out: dict = {"captured_mb": W.nbytes / 1e6}
    t0 = time.perf_counter()
    lowered = jax.jit(passed).lower(x, jnp.asarray(W))
    t1 = time.perf_counter()
    lowered.compile()
    out["argument_lower_s"], out["argument_compile_s"] = t1 - t0, time.perf_counter() - t1
    t0 = time.perf_counter()
    lowered = jax.jit(folded).lower(x)
    t1 = time.perf_counter()
    before, c1 = _peak_rss_bytes(), time.process_time()
    lowered.compile()
    t2, c2 = time.perf_counter(), time.process_time()
    after = _peak_rss_bytes()
    out.update({"folded_lower_s": t1 - t0, "folded_compile_s": t2 - t1, "folded_compile_cpu_s": c2 - c1,
                "folded_compile_peak_rss_growth_mib": (after - before) / 2 ** 20 if before is not None else None})
    return out


def child(case: str) -> None:
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    import jax

    result = {"_jax103": _jax103, "_jax202": _jax202, "_jax209": _jax209}[f"_{case}"]()
    result["jax"] = jax.__version__
    print(json.dumps(result))


# ---------------------------------------------------------------------------- the parent
def run_case(case: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "JAX_COMPILATION_CACHE_DIR"}
    env.setdefault("JAX_PLATFORMS", "cpu")
    proc = subprocess.run([sys.executable, __file__, "--child", case], capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        raise SystemExit(f"bench_claims: {case} failed:\n{proc.stderr[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3, help="fresh processes per case; the median is reported")
    ap.add_argument("--only", default=",".join(CASES), help="comma-separated cases (default: all)")
    ap.add_argument("--json", help="also write the results here")
    ap.add_argument("--child", choices=CASES, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.child)
        return 0
    cases = [c for c in args.only.split(",") if c]
    results: dict = {"machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                                 "platform": platform.platform(), "load_before": _load()}}
    for case in cases:
        runs = [run_case(case) for _ in range(args.repeat)]
        keys = [k for k in runs[0] if k != "jax" and isinstance(runs[0][k], (int, float))]
        results[case] = {k: statistics.median(r[k] for r in runs) for k in keys}
        results[case]["runs"] = runs
        results["jax"] = runs[0]["jax"]
    results["machine"]["load_after"] = _load()
    m = results["machine"]
    print(f"jax {results.get('jax')} on CPU; {m['cpus']} CPUs, Python {m['python']}; median of {args.repeat} "
          f"fresh processes; load average {m['load_before']} before, {m['load_after']} after")
    for case in cases:
        print(f"\n{case}")
        for k, v in results[case].items():
            if k != "runs":
                print(f"  {k:32s} {v:10.3f}" if isinstance(v, float) else f"  {k:32s} {v}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(results, f, indent=1)
    return 0


def _load() -> list[float] | None:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


if __name__ == "__main__":
    sys.exit(main())
