from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from jaxlint.rule import FindingKind, Invalid, Option, StaticRule, Valid
from jaxlint.static.taint import LIKELY, taint_of, describe, traced_how
from jaxlint.static.traced import only_differentiated
from jaxlint.static.consts import is_static, prints_a_value
from jaxlint.static.flow import in_trace_failure_handler

if TYPE_CHECKING:
    from jaxlint.static.checker import StaticContext

_CLOCKS = {
    "time.time", "time.time_ns", "time.perf_counter", "time.perf_counter_ns", "time.monotonic",
    "time.monotonic_ns", "time.process_time", "time.process_time_ns", "time.sleep",
    "datetime.datetime.now", "datetime.datetime.utcnow", "datetime.datetime.today", "datetime.date.today",
}
_LOG_METHODS = {"debug", "info", "warning", "warn", "error", "exception", "critical", "fatal", "log"}
_LOGGER_FACTORIES = {"logging.getLogger", "absl.logging.get_absl_logger", "logging.LoggerAdapter"}


class SideEffectInJit(StaticRule):
    """
    ## What it does
    Finds Python side effects in traced code: `print`, clocks (`time.time()`,
    `time.perf_counter()`, `datetime.now()`, `time.sleep`), the standard library's
    `random` module, `open()`, and logging calls (`logging.info`, `absl.logging`,
    `logger.info` on a `logging.getLogger(...)` logger, `warnings.warn`).

    A `print` or logging call whose arguments are all static (string constants,
    shapes, dtypes: `print("compiling", x.shape)`, a deprecation warning; fields a
    pytree class declares static, what a helper returns when its every return is
    static, comprehensions and conditionals and `" ".join(...)` of those) prints the
    same text at trace time as it would on every call: once per compilation is a
    deliberate way to report each compilation, and `jax.debug.print` would only repeat
    it. Such calls stay clean unless `report-static-print` / `report-static-logging` is
    set. A print or log of anything that may be traced is reported, and so is
    `.tolist()` or `.item()` of a traced value in its arguments
    (`log.error(f"bad data {data.tolist()}")`): the conversion itself raises under jit.
    A print in an `except` handler that re-raises (`except TypeError as e: print(name,
    e); raise`) is a diagnostic shown on the way out of a failed trace, and so is one in a
    handler that catches only jax's own errors (`except jax.errors.JAXTypeError as e:
    print("falling back:", e)`), which tracing alone raises: clean unless it prints a
    traced value.

    Code that is not traced stays clean: a `lax.scan`, `fori_loop`, `while_loop`,
    `cond` or `switch` body, or a `jax.jit(f)(x)`, called inside
    `with jax.disable_jit():` runs its Python with values, so its `print` prints them.

    A function traced only by `jax.grad` (or another differentiation transform)
    applied outside any trace runs on every call, with JVP tracers: there only a print
    or log of a traced value is reported (it shows the tracer). A function traced only
    abstractly (`jax.eval_shape`, `jax.make_jaxpr`) compiles nothing and runs once per
    evaluation: a print there shows shapes at that time, often on purpose, and is left
    alone.

    ## Why is this bad?
    A jitted function's Python body runs once per compilation, at trace time; the
    compiled program contains only the array operations. So a `print` shows a
    tracer (`JitTracer(float32[])` on jax 0.10) once and never again, a timestamp or a
    `random.random()` is frozen into the program as a constant, a file is read once
    and baked in, and a log line appears once instead of on every call.

    ## Example
    ```python
    @jax.jit
    def step(x):
        print("loss", x)
        start = time.time()
        return x * random.random()
    ```

    ## Use instead
    ```python
    @jax.jit
    def step(x, key):
        return x * jax.random.uniform(key), x

    y, loss = step(x, key)
    print("loss", loss)
    ```
    Return what you want to see and print or log it after the call, time the call
    from outside (after `.block_until_ready()`), read files before calling, and pass
    randomness in as a `jax.random` key. (`jax.debug.print` prints on every call, but
    it is a host callback that stops the compiled program: JAX109 reports it.)

    ## Options

    ## References
    * [JAX sharp bits: pure functions](https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html#pure-functions)
    * [jax.debug.print](https://docs.jax.dev/en/latest/_autosummary/jax.debug.print.html)
    * [Benchmarking JAX code](https://docs.jax.dev/en/latest/benchmarking.html)
    """

    code = "JAX106"
    traced_code = True  # about code under a trace: an eager-only branch is none of its business
    group = "nursery"
    #: its own blind figure (rule_figures.json); clocks, files, logging, prints of literals stay in the nursery
    kinds = {"print-of-value": FindingKind("nursery", "`print(...)` of a value, not only of literals and shapes: "
                                                         "under a trace it prints a tracer")}
    name = "side-effect-in-jit"
    summary = "a Python side effect in traced code runs once, at trace time"
    fix_hint = "return values and print or log them after the call; use jax.random with a key; time and read files outside"
    options = {
        "report-static-print": Option(
            False, "also report `print` calls whose arguments are all static (they print once per compilation, "
                   "which is usually the point: a warning, a shape report)", bool),
        "report-static-logging": Option(
            False, "also report logging calls whose arguments are all static (they log once per compilation)", bool),
    }

    VALID = [
        Valid(
            """
            import jax

            @jax.jit
            def f(x):
                print(" ** WARNING ** f is deprecated, use g")
                if x.shape[0] < 8:
                    print(f"f: the first axis ({x.shape[0]}) is small; dtype {x.dtype}")
                return x * 2
            """
        ),
        Valid(
            """
            import logging
            import jax

            @jax.jit
            def f(x):
                logging.info("compiling f for shape %s", x.shape)
                jax.debug.print("x = {}", x)
                return x * 2
            """
        ),
    ]
    INVALID = [
        Invalid(
            """
            import jax

            @jax.jit
            def f(x):
                print("x is", x)
                return x * 2
            """,
            line=5,
            message="prints the tracer",
        ),
        Invalid(
            """
            import time
            import jax

            @jax.jit
            def f(x):
                t0 = time.time()
                return x * t0
            """,
            line=6,
            message="`time.time()`",
        ),
        Invalid(
            """
            import random
            import jax

            def body(i, x):
                return x * random.random()

            def run(x):
                return jax.lax.fori_loop(0, 3, body, x)
            """,
            line=5,
            message="frozen",
        ),
    ]

    @classmethod
    def kind_of(cls, signature: str) -> str | None:
        """``print-of-value``: the construct prints a value (``consts.prints_a_value``)."""
        return "print-of-value" if prints_a_value(signature.partition(":")[2]) else None

    def check(self, ctx: StaticContext) -> None:
        model = ctx.model
        # not the functions traced only abstractly (`jax.eval_shape`, `make_jaxpr`): they run
        # once per evaluation, and a print there (of shapes, at trace time) is often the point
        for fn in model.traced_functions(differentiated=True, abstract=False):
            taint = taint_of(model, fn)
            # traced only by jax.grad (or the like) applied outside any trace: it runs on
            # every call (nothing is compiled), so clocks and static prints are fine, but a
            # print of a traced value prints a JVP tracer
            grad_only = only_differentiated(fn)
            for node in fn.body_nodes():
                if isinstance(node, ast.Call):
                    self._check_call(ctx, taint, fn, node, grad_only)

    def _check_call(self, ctx, taint, fn, call: ast.Call, grad_only: bool = False) -> None:
        model = ctx.model
        q = model.resolve_call(call) or ""
        where = traced_how(fn)
        shown = describe(call.func)
        args = [*call.args, *(k.value for k in call.keywords)]
        # a value from a call we cannot see into may be a string: only name sure tracers
        culprits = [f for f in map(taint.culprit, args) if f is not None]
        found = [f for f in culprits if f[0] >= LIKELY]
        traced = found[0][1] if found else None
        shows = q in ("builtins.print", "sys.stdout.write", "sys.stderr.write") or self._is_logging(model, call, q, fn)
        converted = None if found or grad_only or not shows else _converted_tracer(taint, args)
        if converted is not None:
            method = converted.func.attr if isinstance(converted.func, ast.Attribute) else "tolist"
            ctx.report(call, f"`{shown}(...)` in {where} shows `{describe(converted)}`: `.{method}()` "
                             "of a traced value needs its concrete value, so tracing raises a "
                             "ConcretizationTypeError (or TracerArrayConversionError) here; return the value and "
                             "show it after the call", data={"call": q or shown})
            return
        if grad_only and (traced is None or not (q in ("builtins.print", "sys.stdout.write", "sys.stderr.write")
                                                 or self._is_logging(model, call, q, fn))):
            return
        if grad_only and traced is not None:
            ctx.report(call, f"`{shown}(...)` in {where} {'prints' if q.startswith(('builtins.', 'sys.')) else 'logs'} "
                             f"a JVP tracer, not the value of `{describe(traced)}`: the differentiation transform "
                             "runs the function on tracers; return the value (`has_aux=True`) and print it after "
                             "the call", data={"call": q or shown})
            return
        if q in ("builtins.print", "sys.stdout.write", "sys.stderr.write"):
            if traced is not None:
                msg = (f"`{shown}(...)` in {where} prints the tracer, not the value of `{describe(traced)}`, "
                       "once at trace time; return the value and print it after the call (a `jax.debug.print` would be a host "
                       "callback, JAX109)")
            elif in_trace_failure_handler(model, call):
                return  # a trace-time diagnostic of a failed trace
            elif culprits or self.opts["report-static-print"] or not all(is_static(taint, a) for a in args):
                msg = (f"`{shown}(...)` in {where} runs once per compilation, at trace time, not on every call; "
                       "return what it should show and print it after the call")
            else:
                return
            ctx.report(call, msg, data={"call": q})
        elif q in _CLOCKS:
            verb = "sleeps" if q.endswith("sleep") else "reads the clock"
            ctx.report(call, f"`{describe(call)}` in {where} {verb} once, at trace time, and the result is frozen "
                             "into the compiled program; time or wait outside the jitted function", data={"call": q})
        elif q.startswith("random.") and q.count(".") == 1:
            ctx.report(call, f"`{describe(call)}` in {where} draws from Python's `random` once, at trace time: the "
                             "value is frozen into the compiled program; pass a `jax.random` key and sample with it",
                       data={"call": q})
        elif q in ("builtins.open", "io.open"):
            ctx.report(call, f"`{describe(call)}` in {where} does file I/O once, at trace time: the contents are "
                             "baked into the compiled program; read the file outside and pass the data in",
                       data={"call": q})
        elif self._is_logging(model, call, q, fn):
            if traced is not None:
                msg = (f"`{shown}(...)` in {where} logs the tracer, not the value of `{describe(traced)}`, once at "
                       "trace time; return the value and log it after the call")
            elif self.opts["report-static-logging"]:
                msg = (f"`{shown}(...)` in {where} logs once per compilation, at trace time, not on every call; "
                       "log after the call")
            else:
                return
            ctx.report(call, msg, data={"call": q or shown})

    @staticmethod
    def _is_logging(model, call: ast.Call, q: str, fn) -> bool:
        if q == "warnings.warn":
            return True
        func = call.func
        if not isinstance(func, ast.Attribute) or func.attr not in _LOG_METHODS:
            return False
        if q in (f"logging.{func.attr}", f"absl.logging.{func.attr}"):
            return True
        # `log = logging.getLogger(__name__)`, at module level or in the function
        if isinstance(func.value, ast.Name):
            _, bindings = model.lookup(func.value.id, fn)
            if len(bindings) == 1 and isinstance(bindings[0].value, ast.Call):
                return model.resolve_call(bindings[0].value) in _LOGGER_FACTORIES
        return False


def _converted_tracer(taint, args: list[ast.expr]) -> ast.Call | None:
    """``x.tolist()`` / ``x.item()`` of a value the model says is traced (at least
    likely), shown by a print or a log call: the conversion of a tracer fails."""
    for a in args:
        for n in ast.walk(a):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("tolist", "item") \
                    and not n.args and not n.keywords:
                found = taint.culprit(n.func.value)
                if found is not None and found[0] >= LIKELY:
                    return n
    return None
