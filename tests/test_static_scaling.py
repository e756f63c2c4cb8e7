"""Static checks linear in what a file repeats (issue 38): stacked `@jax.jit` decorators
on one function (each looked up the whole stack again: 0.22 / 0.9 / 3.7 s for 500 /
1,000 / 2,000) and JAX102's loops in one jitted function (each read's reaching
bindings scanned every binding and block statement: 0.9 / 3.0 / 15.5 s for 625 /
1,250 / 2,500), and JAX102 in helpers a jitted function calls one after the other,
``x = h0(x)``, ``x = h1(x)``, ... (each read's reaching binding asked about the read
before it, answered afresh each time: 0.65 / 1.9 s of CPU for 100 / 200 helpers through
the CLI at 4419f18; linear since f6a30b8). CPU time in this process, the best of three rounds, per decorator or finding, flat
across a 4x range (after a warm-up check; ``LOAD_ROBUST`` says how flat)."""
from __future__ import annotations

import gc
import time
from typing import Callable

from jaxlint.registry import rules_by_code
from jaxlint.static.runner import lint_static


def _per_unit(sources: dict[int, str], codes: list[str], found: Callable[[int], int] | None = None) -> list[float]:
    """CPU seconds per repeat for each size, the best of ``ROUNDS``. The sizes take turns
    (small, middle, large, small, ...), so a slow stretch of a shared machine falls on all
    of them alike rather than on one size's three runs in a row."""
    by_code = rules_by_code()
    rules = [by_code[c]({}) for c in codes]
    lint_static("warm.py", rules, text=next(iter(sources.values()))[:200])  # what a first check compiles once
    best = {n: float("inf") for n in sources}
    # The suite's worker holds every earlier test's objects; a full collection walks them
    # all, and a larger check triggers more of them, which read as growth in the check
    # (0.49 / 0.69 / 0.91 ms a helper in CI at 24a385f, flat alone). Frozen, the runner's
    # heap is left out; jaxlint's own objects are still collected as a user's run has them.
    gc.collect()
    gc.freeze()
    try:
        for _ in range(ROUNDS):
            for n, source in sources.items():
                t = time.process_time()
                res, kept = lint_static("scaled.py", rules, text=source)
                best[n] = min(best[n], time.process_time() - t)
                assert not res.errors, res.errors
                if found is not None:
                    assert len(kept) == found(n), (n, len(kept))
    finally:
        gc.unfreeze()
    return [best[n] / n for n in sources]


ROUNDS = 3


#: The issue's 1.3x is the benchmark's figure on a quiet machine (``bench_scaling.py
#: --repeated``, docs/performance.md); a test shares two cores with the suite's other
#: worker and, on a loaded CI machine, with whatever else runs, which moved a flat cost by
#: up to 1.5x here. What the test guards is growth: a cost linear in the repeats (the bugs
#: above) spreads 16x across 4x-apart sizes, n log n over 1.3x, so 1.6x still fails them.
LOAD_ROBUST = 1.6


def _flat(per: list[float]) -> bool:
    return max(per) / min(per) <= LOAD_ROBUST


def test_stacked_jit_decorators_cost_the_same_each():
    static = [c for c, r in rules_by_code().items() if r.phase.value == "static"]
    stacked = {n: "import jax\n\n" + "@jax.jit\n" * n + "def f(x):\n    return x + 1\n" for n in (2000, 4000, 8000)}
    per = _per_unit(stacked, static)
    assert _flat(per), per


def _loops(n: int) -> str:
    lines = ["import jax", "", "@jax.jit", "def f(x):"]
    for _ in range(n):
        lines += ["    for i in range(100):", "        x = x + i"]
    return "\n".join(lines + ["    return x", ""])


def test_jax102_costs_the_same_per_loop_in_one_jitted_function():
    per = _per_unit({n: _loops(n) for n in (625, 1250, 2500)}, ["JAX102"], found=lambda n: n)
    assert _flat(per), per


def _helpers_called_in_turn(n: int) -> str:
    lines = ["import jax", ""]
    for i in range(n):
        lines += [f"def h{i}(x):", "    for i in range(100):", "        x = x + i", "    return x", ""]
    lines += ["@jax.jit", "def f(x):"] + [f"    x = h{i}(x)" for i in range(n)]
    return "\n".join(lines + ["    return x", ""])


def test_jax102_costs_the_same_per_helper_a_jitted_function_chains():
    per = _per_unit({n: _helpers_called_in_turn(n) for n in (250, 500, 1000)}, ["JAX102"], found=lambda n: n)
    assert _flat(per), per


def _helpers_calling_the_next(n: int) -> str:
    lines = ["import jax", ""]
    for i in range(n - 1):
        lines += [f"def h{i}(x):", "    for i in range(100):", "        x = x + i", f"    return h{i + 1}(x)", ""]
    lines += [f"def h{n - 1}(x):", "    return x", "", "@jax.jit", "def f(x):", "    return h0(x)", ""]
    return "\n".join(lines)


def test_jax102_costs_the_same_per_helper_in_a_chain_of_calls():
    """``h0`` calls ``h1`` calls ``h2`` ...: whether each is traced only abstractly was
    asked by a walk up to the jitted root, copying the path at each step (0.26 / 2.1 /
    20.9 s for 100 / 250 / 500 helpers at 1d37127)."""
    # Flat from 400 on. Below, the check's data still fits the caches: 0.52 ms a helper at
    # 100 against 0.70, and at 200 0.54 against 0.73 at 800 and 0.80 at 3,200, alone.
    sizes = (400, 800, 1600)
    per = _per_unit({n: _helpers_calling_the_next(n) for n in sizes}, ["JAX102"], found=lambda n: n - 1)
    assert _flat(per), per
