"""`--fix` at scale (issue 38): a fix costs the same CPU time in a file of 100, 400 or
1,600 fixable findings, for `check --fix` and for the editor's fix-all (it was 7 ms and
then 80 ms a fix: a line diff quadratic in repeated lines, a region lookup per line and
the cyclic collector's passes over the libcst trees); a file with more fixes than one
run makes says so. Measured by ``benchmarks/bench_fixes.py --scaling`` in fresh processes
(CPU time, after a warm-up fix), real CLI code and a real language server."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from helpers import lint_source

ROOT = Path(__file__).resolve().parent.parent


def _bench():
    spec = importlib.util.spec_from_file_location("bench_fixes_under_test", ROOT / "benchmarks" / "bench_fixes.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("how", ["check --fix", "editor fix-all"])
def test_a_fix_costs_the_same_in_a_file_of_100_400_or_1600(how):
    bench = _bench()
    measure = bench.fix_cpu if how == "check --fix" else bench.fix_all_cpu
    # the best of two rounds per size: one slow stretch of a loaded machine read as growth
    # (2.22 ms a fix at 400, 3.6 at 1,600 in CI at d7efb9e; 2.15 and 2.58 alone)
    runs = [bench.scaling([100, 400, 1600], measure) for _ in range(2)]
    rows = [min(pair, key=lambda r: r["ms_per_fix"]) for pair in zip(*runs)]
    assert [r["left"] for run in runs for r in run] == [0] * 6, runs  # every fix made, in one run
    # 1.3x is the benchmark's figure on a quiet machine (docs/performance.md); under a
    # loaded suite a flat cost spread up to 1.54x here, and the quadratic cost this guards
    # against spread 11x (7 and 80 ms a fix at 100 and 400). What it guards is growth: a
    # smaller file's fixes costing more each (a fixed cost spread over fewer: 3.9 ms a fix
    # at 100 against 2.05 at 400 in a loaded CI run at e080cd2) is not the bug.
    per = [r["ms_per_fix"] for r in rows]
    assert max(per[j] / per[i] for i in range(len(per)) for j in range(i + 1, len(per))) <= 1.6, rows


def test_a_file_with_more_fixes_than_one_run_makes_is_told_so():
    from jaxlint.fix.apply import fix_until_stable

    text = _bench().fixable_file(40)

    def lint(t: str):
        return lint_source(t, select=["JAX104"])

    out = fix_until_stable(text, lint(text), lint, unsafe=True, max_codemods=30)
    assert out.capped == 30 and len(out.applied) == 30 and out.text.count("return np.sin") == 10
    whole = fix_until_stable(text, lint(text), lint, unsafe=True)
    assert whole.capped == 0 and whole.text.count("return np.sin") == 0
