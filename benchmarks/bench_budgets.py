"""What cost budgets add to a `check --dynamic --compile` run (docs/performance.md, "Cost budgets").

Two parts, both measured in one process on real compiles:

1. In the worker: the compile tier compiles a function once; the budget figures (loop
   scaling, largest buffers and ops, environment) are computed afterwards from the
   optimized HLO text it already has. We time `budget_figures` beside the compile.
2. In the parent: the budget stage of `jaxlint check` (load the JSON, compare, build
   the table and findings), timed around `jaxlint.pipeline.budgets` in a real check of
   a project whose results come from the cache.

    python benchmarks/bench_budgets.py
"""
from __future__ import annotations

import contextlib
import io
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

MODEL = (ROOT / "docs" / "budgets.md").read_text().split("```python\n", 1)[1].split("```", 1)[0]
LOOP = """
import jax
import jax.numpy as jnp


# jaxlint: args=(f32[64,64], f32[64,64])
@jax.jit
def iterate(x, w):
    def body(i, x):
        return jnp.tanh(x @ w) * 0.5 + x
    return jax.lax.fori_loop(0, 100, body, x)
"""


def worker_side(tmp: Path) -> None:
    from compile_helpers import compile_source
    from jaxlint.compile.figures import budget_figures

    print("worker: compile vs budget figures (ms, median of 5 figure runs)")
    sources = {"model.mlp": MODEL, "loop.iterate": LOOP}
    for f in sorted((ROOT / "examples" / "dynamic").glob("*.py")):
        sources[f"examples/dynamic/{f.stem}"] = f.read_text()
    for name, src in sources.items():
        if "# jaxlint: args=" not in src:
            continue
        try:
            facts, _ = compile_source(src, tmp)
        except Exception as e:  # an example whose first function is not compilable here
            print(f"  {name}: skipped ({type(e).__name__})")
            continue
        times = []
        for _ in range(5):
            t0 = time.perf_counter()
            budget_figures(facts)
            times.append(time.perf_counter() - t0)
        print(f"  {name:40s} compile {facts.compile_seconds * 1e3:8.1f}  figures {statistics.median(times) * 1e3:6.2f}"
              f"  ({len(facts.module.instructions)} HLO instructions)")


def parent_side(tmp: Path) -> None:
    from jaxlint import pipeline
    from jaxlint.pipeline import CheckOptions, check

    proj = tmp / "proj"
    proj.mkdir()
    (proj / "model.py").write_text(MODEL)
    (proj / "loop.py").write_text(LOOP.lstrip())
    (proj / "pyproject.toml").write_text("[tool.jaxlint]\n[tool.jaxlint.dynamic]\ncompile = true\n")
    timed: list[float] = []
    original = pipeline.budgets

    def stage(run):
        t0 = time.perf_counter()
        try:
            return original(run)
        finally:
            timed.append(time.perf_counter() - t0)

    os.chdir(proj)
    quiet = contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO())
    with quiet[0], quiet[1]:
        check(CheckOptions(dynamic=True, compile=True, update_budgets=True, exit_zero=True))
    pipeline.STAGES = tuple(stage if s is original else s for s in pipeline.STAGES)
    runs = []
    for _ in range(5):
        t0 = time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            check(CheckOptions(dynamic=True, compile=True))
        runs.append(time.perf_counter() - t0)
    print("parent: budget stage of a cached `check --dynamic --compile` (2 functions), 5 runs")
    print(f"  stage median {statistics.median(timed) * 1e3:.2f} ms (max {max(timed) * 1e3:.2f}); "
          f"whole check median {statistics.median(runs) * 1e3:.0f} ms")


def main() -> None:
    tmp = Path(tempfile.mkdtemp(prefix="bench_budgets_"))
    try:
        worker_side(tmp)
        parent_side(tmp)
    finally:
        os.chdir(ROOT)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
