from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Mapping

from jaxlint.diagnostic import Severity
from jaxlint.rule import Invalid, TraceRule, Valid

if TYPE_CHECKING:
    from jaxlint.dynamic.analysis import FunctionAnalysis

#: exception class name (or message fragment) -> what to do instead
HINTS = (
    ("TracerBoolConversionError", "Python `if`/`while`/`and` needs a concrete bool: use jnp.where or "
                                  "jax.lax.cond, or make the argument static"),
    ("TracerIntegerConversionError", "a traced value was used as a Python int (an index, a size or "
                                     "`range`): make the argument static or use jax.lax.dynamic_slice"),
    ("TracerArrayConversionError", "numpy cannot run on a traced value: use jax.numpy"),
    ("NonConcreteBooleanIndexError", "a boolean mask gives a data-dependent shape: use "
                                     "jnp.where(mask, x, 0) or a `where=` reduction"),
    ("ConcretizationTypeError", "a concrete value was needed from a traced one: mark the argument "
                                "static (static_argnums) or use jax.lax control flow"),
    ("UnexpectedTracerError", "a tracer escaped its transformation (stored in a global or an object)"),
    ("immutable", "JAX arrays are immutable: write `x = x.at[i].set(v)`"),
    ("Shapes must be 1D sequences of concrete values", "a shape depends on a traced value: make it static"),
    ("static start/stop/step", "slice bounds must be static: use jax.lax.dynamic_slice with a static "
                               "size, or make the bound a static argument"),
    ("Slice entries must be static", "slice bounds must be static: use jax.lax.dynamic_slice with a static "
                                     "size, or make the bound a static argument"),
)


class TraceError(TraceRule):
    """
    ## What it does
    Reports a jitted function that fails to trace with its inputs: a Python `if` on a
    traced value, a traced value used as a Python int or as a shape, numpy called on a
    tracer, a boolean-mask index, in-place assignment `x[i] = v`, a leaked tracer. The
    finding sits at your line where the error was raised, with the exception's
    essence and what to do instead; jaxlint never crashes on it.

    A size (a shape, `jnp.arange`'s stop, `jnp.pad`'s widths) that needs a value which
    is, by jax's own account of the tracer, only parameters of the jitted function, each
    a Python int in every recorded call of the signature that failed (`jnp.ones((length,))`
    in `example_fun`, called as `f(10, 4)`), cannot be fixed in the body: the finding sits
    where the function is jitted (the `jax.jit(...)` call or the decorator) and says the
    line to write there (`jax.jit(example_fun, static_argnames='length')`, the decorator's
    own `static_argnames` extended), with the body's line as a related location. A size
    from an array (`x.sum()`) and a Python `if` on a parameter stay at the body's line,
    where `jnp.where`, `lax.cond` or another shape is the fix.

    ## Why is this bad?
    The function cannot run under `jit` at all with such inputs; the error would
    surface at the first call, often far from the code that caused it.

    ## Example
    ```python
    # jaxlint: args=(f32[],)
    @jax.jit
    def relu(x):
        if x > 0:
            return x
        return 0.0
    ```

    ## Use instead
    ```python
    # jaxlint: args=(f32[],)
    @jax.jit
    def relu(x):
        return jnp.where(x > 0, x, 0.0)
    ```

    ## Options

    ## References
    * [JAX: common errors](https://docs.jax.dev/en/latest/errors.html)
    * [JAX: the sharp bits](https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html)
    """

    code = "JAX205"
    group = "correctness"
    means_trace_failed = True
    name = "trace-error"
    summary = "the jitted function fails to trace"
    fix_hint = "use jax.numpy / jax.lax control flow on traced values, or make the argument static"
    severity = Severity.ERROR
    #: numpy-on-tracer, traced-control-flow, data-dependent-shape: the static guesses of
    #: the errors this rule observes
    supersedes = ("JAX104", "JAX105", "JAX111")

    VALID = [
        Valid(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit  # jaxlint: args=(f32[4],)
            def relu(x):
                return jnp.where(x > 0, x, 0.0)
            """
        ),
    ]
    INVALID = [
        Invalid(
            """
            import jax

            @jax.jit  # jaxlint: args=(f32[],)
            def relu(x):
                if x > 0:
                    return x
                return 0.0
            """,
            line=5,
            message="TracerBoolConversionError",
        ),
        Invalid(
            """
            import jax

            @jax.jit  # jaxlint: args=(f32[4],)
            def set_first(x):
                x[0] = 1.0
                return x
            """,
            line=5,
            message="x = x.at[i].set(v)",
        ),
    ]

    def check(self, ctx: FunctionAnalysis) -> None:
        import traceback

        from jaxlint.dynamic.analysis import Site

        e = ctx.error
        if e is None:
            return
        frames = traceback.extract_tb(e.__traceback__)
        site = None
        for fr in reversed(frames):
            if fr.filename and _same(fr.filename, ctx.path):
                col = (getattr(fr, "colno", None) or 0) + 1
                end = getattr(fr, "end_colno", None)
                site = Site(ctx.path, fr.lineno or 1, col, getattr(fr, "end_lineno", None) or fr.lineno,
                            (end + 1) if end is not None else col)
                break
        text = str(e).strip().splitlines()
        first = text[0] if text else ""
        kind = type(e).__name__
        hint = next((h for key, h in HINTS if key in kind or key in first), None)
        msg = f"tracing `{ctx.qualname}` fails with {kind}: {first[:200].rstrip('.')}"
        static = _static_fix(ctx, e, kind) if site is not None else None
        if static is not None and site is not None:  # only the jit line can fix it: the finding goes there
            where, names, remedy = static
            shown = ", ".join(f"`{n}`" for n in names)
            msg += (f"; the size needs {shown}, a Python int that every call passes: mark {shown} static "
                    f"where `{ctx.qualname.rsplit('.', 1)[-1]}` is jitted: {remedy}")
            ctx.report(where, msg, data={"exception": kind, "static": list(names)},
                       related=[site.related(f"the size is computed from {shown} here")])
            return
        if hint:
            msg += f"; {hint}"
        ctx.report(site or ctx.def_site(), msg, data={"exception": kind})


#: jax's own words for the arguments a concrete value was needed from
_DEPENDS = re.compile(r"depends on the values? of the arguments? (.+?)\.?$", re.M)


def _static_fix(ctx: FunctionAnalysis, e: BaseException, kind: str):
    """(the jit's Site, the parameters, what to write) when a size (a shape, `jnp.arange`'s
    stop, `jnp.pad`'s widths) needs a traced value that is, by jax's own account, only
    parameters of the jitted function that every recorded call of the failing signature gave
    as a Python int: making them static at the jit line is the fix (the body cannot be
    changed to do without the size); None otherwise (the body is what changes)."""
    import inspect

    from jaxlint.dynamic.analysis import Site
    from jaxlint.dynamic.jitline import jit_node, with_static

    text = str(e)
    sized = ("Shapes must be 1D sequences of concrete values" in text if kind == "TypeError"
             else kind == "ConcretizationTypeError" and re.search(r"\bjnp\.\w+", text) is not None)
    found = _DEPENDS.search(text)
    entry = ctx.entry or {}
    if not sized or found is None or entry.get("kind") not in ("jit", "pjit") or entry.get("is_method") \
            or inspect.ismethod(ctx.function):
        return None
    names = [n.strip() for n in re.split(r",\s*(?:and\s+)?|\s+and\s+", found.group(1)) if n.strip()]
    try:
        params = list(inspect.signature(ctx.function).parameters)[int(entry.get("partial_bound") or 0):]
    except (TypeError, ValueError):
        return None
    traced = entry.get("traced_params")
    if not names or any(n not in params or (traced is not None and n not in traced) for n in names):
        return None  # a pytree's leaf, a bound argument, or a jit that already keeps it static
    call = ctx.call.site if ctx.call is not None else None
    sigs = [s for s in ctx.signatures or () if isinstance(s, dict) and not s.get("inlined")]
    mine = [s for s in sigs if call is not None and isinstance(fc := s.get("first_call"), dict)
            and fc.get("line") == call.line and _same(str(fc.get("file")), call.path)] or sigs
    if not mine or not all(_python_int(_arg(s, params, n)) for s in mine for n in names):
        return None  # an array (unhashable, cannot be static) or not recorded: the body changes
    node = jit_node(ctx.tree, int(entry.get("line") or 0), int(entry.get("column") or 0))
    if node is None:
        return None
    decorator = str(entry.get("form") or "").endswith("decorator")
    remedy = with_static(ctx.tree, node, names, decorator) if ctx.tree is not None else None
    if remedy is None:
        return None
    full, keyword = remedy
    where = Site(ctx.path, node.lineno, node.col_offset + (0 if decorator else 1), node.end_lineno,
                 (node.end_col_offset or 0) + 1)
    return where, names, f"`{full}`" if full else f"add `{keyword}` to it"


def _arg(sig: Mapping[str, Any], params: list[str], name: str) -> Any:
    """The recorded node of parameter ``name`` in a signature (by position or keyword)."""
    kwargs = sig.get("kwargs") or {}
    if name in kwargs:
        return kwargs[name]
    args, i = sig.get("args") or [], params.index(name)
    return args[i] if i < len(args) else None


def _python_int(node) -> bool:
    """A recorded leaf that is a Python int as jit traces it: a weak-typed integer scalar."""
    if isinstance(node, str):
        return bool(re.fullmatch(r"[iu]\d+\[\] weak", node))
    return isinstance(node, dict) and node.get("array") == [] and bool(node.get("weak")) \
        and str(node.get("dtype") or "").startswith(("int", "uint"))


def _same(a: str, b: str) -> bool:
    import os

    try:
        return os.path.samefile(a, b)
    except OSError:
        return False
