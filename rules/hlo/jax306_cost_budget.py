from __future__ import annotations

import math
import re
from dataclasses import dataclass
from difflib import get_close_matches
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from jaxlint.config.errors import named, shown
from jaxlint.rule import BUDGET, BudgetRule, Invalid, Option, Valid
from jaxlint.textutil import figure as amount, signed_percent as signed

if TYPE_CHECKING:
    from jaxlint.compile.budgets import BudgetContext
    from jaxlint.diagnostic import Related


_ITEM = re.compile(r"^(?P<kind>\w+) (?P<shape>\S+) = (?P<amount>\d+) \((?P<op>.*)\)$")
#: the exact figures a tolerance applies to (jaxlint.compile.figures measures them;
#: compile time has its own ceiling, `compile-time-ratio` and `compile-time-slack`)
METRICS = ("flops", "transcendentals", "bytes_accessed", "loop_flops", "loop_bytes_accessed", "argument_bytes",
           "output_bytes", "alias_bytes", "temp_bytes", "peak_bytes", "collective_bytes")


def _percent(where: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{where} must be a percent (a number), got {shown(value)}")
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"{where} must be a finite percent >= 0, got {shown(value)}")
    return float(value)


def _metric_table(where: str, table: Mapping[Any, Any]) -> dict:
    out = {}
    for metric, value in table.items():
        if metric not in METRICS:
            hint = get_close_matches(str(metric), METRICS, 1)
            raise ValueError(f"{where} names no figure `{named(metric)}`"
                             + (f" (did you mean `{hint[0]}`?)" if hint else "") + f"; figures: {', '.join(METRICS)}")
        out[metric] = _percent(f"{where}.{metric}", value)
    return out


def _function_tables(key: str, value: Mapping[Any, Any]) -> dict:
    out: dict = {}
    for function, v in value.items():
        where = f"option {key!r}: `{named(function)}`"
        out[function] = _metric_table(where, v) if isinstance(v, Mapping) else _percent(where, v)
    return out


@dataclass(frozen=True)
class Assessment:
    """One figure of one function held against its budget."""

    metric: str
    budget: float | None
    now: float | None
    #: "over" (fails), "lower" (can be lowered), "same", "within" (up, inside its
    #: tolerance or the compile-time ceiling), "new" (no figure in the budget)
    status: str
    tolerance: float = 0.0  # percent (compile time: the ceiling's text)

    @property
    def change(self) -> float | None:
        """Relative change in percent (None without both figures, or from 0)."""
        if self.budget is None or self.now is None or not self.budget:
            return None
        return (self.now - self.budget) / self.budget * 100.0


class CostBudget(BudgetRule):
    """
    ## What it does
    Holds each compiled function against its entry in the committed budgets file
    (`jaxlint-budgets.json`, made by `jaxlint budget update`): every exact figure
    (flops, transcendentals, bytes accessed, argument/output/alias/temp/peak bytes,
    the bytes collectives move between devices, and the loop-scaled flops and bytes: a
    `scan`/`fori_loop`/`while` body times its known trip count) that is above its budget by more than its tolerance is a finding
    at the function's jit line. The message gives the figure, budget -> now and the
    change, and the largest buffers or ops that are new, with their source lines.
    Compile time is not exact (2-3x under load): it fails only past a loose ceiling
    (`compile-time-ratio` times the budget and `compile-time-slack` seconds more).

    A figure that went down never fails: the summary table says the budget can be
    lowered. A function without an entry is listed as "no budget" (a finding only with
    `require-budgets`). Budgets measured in another environment (jax or jaxlib version,
    backend, device kind or count, `XLA_FLAGS`, x64) are out of date: listed with the
    command that re-measures them, never compared.

    The figures are the ones the compile tier already measured (in workers, or in the
    program `jaxlint record --compile` observed): checking them compiles nothing.

    ## Why is this bad?
    A training step that quietly gets 30 % more flops, or a new 2 GiB temporary, is
    noticed only when a run is slower or runs out of memory on the cluster. Held
    against a committed budget, the change that caused it fails review, and accepting
    it is a reviewed diff of the budgets file.

    ## Example
    ```python
    @jax.jit
    def layer(x, w):  # w widened from 512 to 1024 columns: flops 2x over budget
        return jnp.maximum(x @ w, 0)
    ```

    ## Use instead
    Keep the cost, or accept it: `jaxlint budget update` rewrites the entry and the
    diff of `jaxlint-budgets.json` goes into the change for review.

    ## Options

    ## References
    * [Ahead-of-time lowering and compilation: cost and memory analysis](https://docs.jax.dev/en/latest/aot.html)
    * [docs/budgets.md](../budgets.md)
    """

    code = "JAX306"
    group = "perf"
    name = "cost-budget"
    summary = "a compiled function costs more than its committed budget (flops, bytes, memory, compile time)"
    fix_hint = "bring the cost back down, or accept it with `jaxlint budget update` and commit the diff"
    role = BUDGET
    options = {
        "tolerance": Option(0.0, "percent any exact figure may exceed its budget", (int, float), 0),
        "metric-tolerance": Option({}, "percent per figure, e.g. {temp_bytes = 5}", dict,
                                   check=lambda key, v: _metric_table(f"option {key!r}", v)),
        "function-tolerance": Option({}, "per function (`module:qualname`): a percent for all its figures, or a "
                                         "table of percent per figure", dict, check=_function_tables),
        "compile-time-ratio": Option(3.0, "compile time fails above this many times its budget ...", (int, float), 1),
        "compile-time-slack": Option(2.0, "... and this many seconds more", (int, float), 0),
        "require-budgets": Option(False, "a compiled function without a budget entry is a finding", bool),
        "fail-out-of-date": Option(True, "a function whose `jaxlint record` observation is out of date (the code "
                                         "it rests on changed) is a finding: record again", bool),
    }

    VALID = [
        Valid(
            """
            import jax
            import jax.numpy as jnp

            # jaxlint: args=(f32[128,256], f32[256,512])
            @jax.jit
            def layer(x, w):
                return jnp.maximum(x @ w, 0)
            """
        ),
    ]
    INVALID = [
        Invalid(
            """
            import jax
            import jax.numpy as jnp

            # jaxlint: args=(f32[128,256], f32[256,512])
            @jax.jit
            def layer(x, w):
                return jnp.maximum(x @ w, 0)
            """,
            options={"require-budgets": True},
            line=5,
            message="no budget",
        ),
    ]

    # ------------------------------------------------------------------ judging
    def tolerance(self, function: str, metric: str) -> float:
        per_fn = self.opts["function-tolerance"].get(function)
        if isinstance(per_fn, Mapping) and metric in per_fn:
            return float(per_fn[metric])
        if isinstance(per_fn, (int, float)) and not isinstance(per_fn, bool):
            return float(per_fn)
        if metric in self.opts["metric-tolerance"]:
            return float(self.opts["metric-tolerance"][metric])
        return float(self.opts["tolerance"])

    def assess(self, function: str, budget: Mapping[str, Any], now: Mapping[str, Any]) -> list[Assessment]:
        """Every figure of ``now`` (a measurement) against ``budget`` (its entry)."""
        out = []
        old_f, new_f = budget.get("figures") or {}, now.get("figures") or {}
        for metric in list(new_f) + [m for m in old_f if m not in new_f]:
            old, new = old_f.get(metric), new_f.get(metric)
            if old is None or new is None:
                out.append(Assessment(metric, old, new, "new" if old is None else "same"))
                continue
            plain = metric[len("loop_"):] if metric.startswith("loop_") else None
            if plain and (old_f.get(plain), new_f.get(plain)) == (old, new):  # no loop: the plain figure says it
                out.append(Assessment(metric, float(old), float(new), "same"))
                continue
            tol = self.tolerance(function, metric)
            if new > old * (1 + tol / 100.0):
                status = "over"
            elif new < old:
                status = "lower"
            else:
                status = "same" if new == old else "within"
            out.append(Assessment(metric, float(old), float(new), status, tol))
        old_s, new_s = budget.get("compile_seconds"), now.get("compile_seconds")
        if isinstance(old_s, (int, float)) and isinstance(new_s, (int, float)):
            ceiling = self.ceiling(old_s)
            # inside the ceiling it is load, not a change: reported as the same
            status = "over" if new_s > ceiling else ("lower" if self.ceiling(new_s) < old_s else "same")
            out.append(Assessment("compile_seconds", float(old_s), float(new_s), status))
        return out

    def ceiling(self, seconds: float) -> float:
        return max(seconds * self.opts["compile-time-ratio"], seconds + self.opts["compile-time-slack"])

    def check(self, ctx: BudgetContext) -> None:
        """One finding per function over budget, at its jit line; without a budget entry,
        one only with ``require-budgets``."""
        qualname, signature = ctx.function.qualname, ctx.function.signature
        if ctx.outdated and ctx.budget is not None and self.opts["fail-out-of-date"]:
            ctx.report(None, f"`{qualname}`'s cost figures are out of date: record again (`jaxlint record "
                             f"--compile -- <your command>`); changed since the recording: {ctx.outdated}",
                       data={"signature": signature, "out_of_date": ctx.outdated},
                       key=f"out-of-date:{ctx.function.name or signature}")
        if ctx.budget is None:
            if self.opts["require-budgets"]:
                ctx.report(None, f"`{qualname}` has no budget for ({signature}): add it with `jaxlint budget "
                                 "update` and commit jaxlint-budgets.json",
                           data={"signature": signature}, key=f"no-budget:{signature}")
            return
        over = [a for a in ctx.assessed if a.status == "over"]
        if not over:
            return
        parts = []
        for a in over:
            if a.budget is None:  # (an assessment over its budget has one)
                continue
            if a.metric == "compile_seconds":
                parts.append(f"compile time {a.budget:.2f} s -> {a.now:.2f} s (ceiling {self.ceiling(a.budget):.2f} s: "
                             f"{self.opts['compile-time-ratio']:g}x and +{self.opts['compile-time-slack']:g} s)")
            else:
                tol = f", tolerance {a.tolerance:g} %" if a.tolerance else ""
                parts.append(f"{a.metric} {amount(a.metric, a.budget)} -> {amount(a.metric, a.now)} "
                             f"({signed(a.change)}{tol})")
        why, related = self.causes(ctx, over)
        shapes = f" (its arguments changed: {ctx.shapes})" if ctx.shapes else ""
        msg = f"`{qualname}` is over its cost budget{shapes}: {'; '.join(parts)}"
        if why:
            msg += f"; {'; '.join(why)}"
        data = {"signature": signature, "metrics": {a.metric: {"budget": a.budget, "now": a.now} for a in over}}
        if ctx.shapes:
            data["shapes"] = ctx.shapes
        # the baseline's key: the budget's (short, the same when the shapes change)
        ctx.report(None, msg, data=data, related=related, key=f"budget:{ctx.function.name or signature}")

    def causes(self, ctx: BudgetContext, over: Sequence[Assessment]) -> tuple[list[str], list[Related]]:
        """What is new in the program: loops that run more often, the largest buffers
        (for bytes) or ops (for flops) that the budgeted program did not have; and their
        lines."""
        from jaxlint.compile.hlo import SourceLocation  # the compile tier's model: loaded where the gate runs

        budget, now = ctx.budget or {}, ctx.now
        why: list[str] = []
        related: list[Related] = []

        def relate(item: Mapping[str, Any], text: str) -> None:
            r = ctx.related(SourceLocation(item.get("file") or "", item.get("line") or 0), text)
            if r is not None:
                related.append(r)

        metrics = {a.metric for a in over}
        old_loops = {lp.get("op"): lp.get("trip_count") for lp in budget.get("loops") or ()}
        for lp in now.get("loops") or ():
            was = old_loops.get(lp.get("op"))
            if was is not None and lp.get("trip_count", 0) > was and metrics & {"loop_flops", "loop_bytes_accessed"}:
                why.append(f"the loop at {lp.get('where', '?')} runs {lp['trip_count']} times (budget: {was})")
                relate(lp, f"loop: {was} -> {lp['trip_count']} iterations")
        known = {}
        for item in budget.get("largest") or ():  # "buffer f32[128,1024] = 524288 (dot_general)"
            m = _ITEM.match(item) if isinstance(item, str) else None
            if m:
                known[(m["kind"], m["shape"], m["op"])] = int(m["amount"])
        for kind, label, wanted in (("buffer", "largest buffers new or grown", any("bytes" in m for m in metrics)),
                                    ("op", "largest ops new or grown", any("flops" in m or m == "transcendentals"
                                                                           for m in metrics))):
            if not wanted:
                continue
            unit = "bytes" if kind == "buffer" else "flops"
            grown = []
            for i in now.get("largest") or ():
                was = known.get((i.get("kind"), i.get("shape"), i.get("op")))
                text = f"{i['shape']} {amount(unit, i['amount'])}" + (f" (was {amount(unit, was)})" if was else "")
                if i.get("kind") == kind and (was is None or i.get("amount", 0) > was) and \
                        f"{text} at {i.get('where', '?')}" not in grown:
                    grown.append(f"{text} at {i.get('where', '?')}")
                    relate(i, f"{kind} {i['shape']}: {amount(unit, i['amount'])}")
            if grown:
                why.append(f"{label}: " + ", ".join(grown[:3]))
        return why, related
