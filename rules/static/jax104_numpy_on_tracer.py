from __future__ import annotations

import ast
import os
from typing import TYPE_CHECKING

from jaxlint.diagnostic import Applicability, Confidence
from jaxlint.rule import Invalid, StaticRule, Valid
from jaxlint.static.arrays import is_host_array
from jaxlint.rules.static._fixplan import import_name
from jaxlint.rules.static._numpy_api import JNP_SAME_NAME, METHOD_DISPATCH, SHAPE_QUERIES
from jaxlint.rules.static._numpy_params import JNP_KEYWORDS, JNP_NONE_ONLY
from jaxlint.static.callers import argument_for
from jaxlint.static.taint import Taint, taint_of, confidence, describe, traced_how
from jaxlint.static.values import imported_host_params

if TYPE_CHECKING:
    from jaxlint.static.checker import StaticContext

#: jax.random functions with a numpy.random namesake, for the suggestion.
_JAX_RANDOM = {"normal", "uniform", "randint", "choice", "permutation", "bernoulli", "beta", "gamma",
               "poisson", "exponential", "laplace", "logistic", "gumbel", "multivariate_normal",
               "dirichlet", "categorical", "cauchy", "pareto", "weibull", "binomial", "chisquare",
               "geometric", "lognormal", "rayleigh", "t", "triangular", "wald"}


#: ``math`` functions that only do arithmetic on their arguments, which tracers support.
_MATH_ARITHMETIC = {"prod", "sumprod"}


class NumpyOnTracer(StaticRule):
    """
    ## What it does
    Finds `numpy` functions applied to traced values inside traced code
    (`np.sum(x)`, `np.asarray(x)`, `np.append(x, y)`, `np.linalg.norm(x)` where `x`
    is traced), a NumPy array indexed or sliced by a traced value
    (`positions = np.arange(n)`, then `positions[idx]`; `np.zeros((3, 3))[i]`; a row of one,
    `[g[i] for g in np.indices(shape)]`), and any use of `np.random`
    inside traced code. Also the other host libraries on traced values: `math`
    (`math.sqrt(x)`, `math.floor(x)`: they ask for a Python number; `math.prod`, which
    only multiplies, works and stays clean) and `scipy` (`scipy.special.expit(x)`: it
    converts to a NumPy array), under jit and grad alike. A function of another module
    of the checked tree (`from utils import to_host`) that hands its parameter to numpy
    on every call (`return np.asarray(x) * 2`: a plain statement with no branch, loop,
    `try` or `with` before it, the parameter never rebound) is reported at the traced
    call that passes it a tracer, naming the numpy call and its line there.

    `np`, `math` and `scipy` on static information stay clean: shapes, dtypes, static arguments and
    Python constants (`np.prod(x.shape)`, `math.sqrt(head_dim)`, `np.finfo(x.dtype)`,
    `np.zeros(3)` as a constant), and so does numpy on a value an `isinstance` test has
    shown to be a host value (`if isinstance(x, (int, float, np.ndarray)): np.reshape(x, s)`,
    the `else` of `if isinstance(x, jax.Array)`).

    ## Why is this bad?
    numpy computes on concrete host arrays; it does not trace. Given a tracer, most
    numpy functions try to convert it and fail with `TracerArrayConversionError`; the
    few that defer to array methods (`np.sum` calls `x.sum()`) work only by accident.
    `np.random` inside traced code runs once, at trace time: the samples become
    constants in the compiled program, so every call reuses the same "random" numbers.

    ## Example
    ```python
    import numpy as np
    import jax.numpy as jnp

    @jax.jit
    def f(x):
        noise = np.random.normal(size=x.shape)
        return np.sum(x) + noise
    ```

    ## Use instead
    ```python
    @jax.jit
    def f(x, key):
        noise = jax.random.normal(key, x.shape)
        return jnp.sum(x) + noise
    ```

    ## Fix safety
    `np.f(x)` is rewritten to `jnp.f(x)` when `jax.numpy` has a function of the same
    name: with the module's own alias of `jax.numpy`, or after adding
    `import jax.numpy as jnp` when it has none; a `numpy` import that nothing uses
    any more is removed. The fix is unsafe: a few functions differ in details (dtype
    promotion, unsupported keyword arguments such as `out=`). `np.random` has no
    automatic fix: it needs a key.

    ## Options

    ## References
    * [JAX sharp bits: 🔪 NumPy vs jax.numpy](https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html)
    * [TracerArrayConversionError](https://docs.jax.dev/en/latest/errors.html#jax.errors.TracerArrayConversionError)
    * [Pseudorandom numbers in JAX](https://docs.jax.dev/en/latest/random-numbers.html)
    """

    code = "JAX104"
    traced_code = True  # about code under a trace: an eager-only branch is none of its business
    group = "nursery"
    name = "numpy-on-tracer"
    summary = "a numpy function is applied to a traced value, or np.random runs at trace time"
    fix_hint = "use the jax.numpy function (jnp.f) and jax.random with a key"
    fixable = Applicability.UNSAFE

    VALID = [
        Valid(
            """
            import jax
            import jax.numpy as jnp
            import numpy as np

            def reshape(x, shape):
                if isinstance(x, (int, float, np.ndarray, np.generic)):
                    return np.reshape(x, shape)  # a host value here, never a tracer
                return jnp.reshape(x, shape)

            def as_host(x):
                if isinstance(x, jax.Array):
                    return x
                return np.asarray(x)

            @jax.jit
            def f(x, y):
                return reshape(x, (-1,)) + as_host(y)
            """
        ),
        Valid(
            """
            import jax
            import jax.numpy as jnp
            import numpy as np

            @jax.jit
            def attention(q, k):
                d = q.shape[-1]
                scale = 1.0 / np.sqrt(d)
                n = np.prod(q.shape[:-1])
                eps = np.finfo(q.dtype).eps
                table = np.arange(4)
                return jnp.einsum("...d,...d->...", q, k) * scale + n * eps + table.sum()
            """
        ),
        Valid(
            """
            from functools import partial
            import jax
            import numpy as np

            @partial(jax.jit, static_argnums=1)
            def f(x, sizes):
                return x * np.sum(sizes)
            """
        ),
    ]
    INVALID = [
        Invalid(
            """
            import jax
            import jax.numpy as jnp
            import numpy as np

            class ObsNormalizer:
                def __init__(self, mean, std):
                    self.mean = mean
                    self.std = std

                def __call__(self, obs):
                    return np.clip((obs - self.mean) / self.std, -5.0, 5.0)

            class Policy:
                def __init__(self, mean, std):
                    self.normalize = ObsNormalizer(mean, std)

                def __call__(self, params, obs):
                    return jnp.tanh(params @ self.normalize(obs))

            policy = Policy(0.0, 1.0)

            @jax.jit
            def act(params, obs):
                return policy(params, obs)
            """,
            line=11,
            message="in `ObsNormalizer.__call__` (called from traced `Policy.__call__`)",
        ),
        Invalid(
            """
            import jax
            import jax.numpy as jnp
            import numpy as np

            @jax.jit
            def f(x):
                return np.exp(np.abs(x)) + jnp.ones(())
            """,
            line=7,
            count=2,
            message="`np.exp` on traced value `np.abs(x)`",
            expected_fix="""
            import jax
            import jax.numpy as jnp

            @jax.jit
            def f(x):
                return jnp.exp(jnp.abs(x)) + jnp.ones(())
            """,
        ),
        Invalid(
            """
            import jax
            import numpy as onp

            @jax.jit
            def f(x):
                return onp.asarray(x) * 2
            """,
            line=6,
            message="jnp.asarray",
        ),
    ]

    def check(self, ctx: StaticContext) -> None:
        model = ctx.model
        for fn in model.traced_functions(differentiated=True):
            taint: Taint | None = None
            for node in fn.body_nodes():
                if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) \
                        and is_host_array(model, fn, node.value):
                    taint = taint or taint_of(model, fn)
                    self._host_index(ctx, fn, taint, node)
                    continue
                if not isinstance(node, ast.Call):
                    continue
                q = model.resolve_call(node)
                if q is None:
                    continue
                if model.link is not None and not q.startswith(("numpy.", "jax.", "math.", "scipy.")) \
                        and (node.args or node.keywords) and model.imported(node.func, fn):
                    # a helper of another module of the tree that hands its parameter to NumPy
                    taint = taint or taint_of(model, fn)
                    self._imported_helper(ctx, fn, taint, node)
                    continue
                if q.startswith(("math.", "scipy.")):
                    taint = taint or taint_of(model, fn)
                    self._host_library(ctx, fn, taint, node, q)
                    continue
                if not q.startswith("numpy."):
                    continue
                name = q[len("numpy."):]
                if name.startswith("random."):
                    self._report_random(ctx, fn, node, name)
                    continue
                if name in SHAPE_QUERIES:
                    continue
                taint = taint or taint_of(model, fn)
                found, best = _most_traced(taint, node)
                if found is None:
                    continue
                shown = _shown(ctx, node.func)
                fix = self._plan(ctx, fn, node, name, shown) if name in JNP_SAME_NAME else None
                instead = f"`jnp.{name}`" if name in JNP_SAME_NAME else "the `jax.numpy` equivalent"
                if _dispatched(taint, node, name):
                    # `np.sum(x)` calls `x.sum()`: it traces. Style, not a defect: a preview hint
                    ctx.report(
                        node,
                        f"`{shown}` on traced value `{describe(found)}` in {traced_how(fn)} works only because "
                        f"numpy hands a non-ndarray to its own `.{name}` method; {instead} says what runs",
                        fix=fix,
                        confidence=Confidence.POSSIBLE,
                        data={"function": q, "value": describe(found), "dispatched": True},
                    )
                    continue
                ctx.report(
                    node,
                    f"`{shown}` on traced value `{describe(found)}` in {traced_how(fn)}: numpy does not trace "
                    f"(on a tracer it raises TracerArrayConversionError or works only by accident); use {instead}",
                    fix=fix,
                    confidence=confidence(best),
                    data={"function": q, "value": describe(found)},
                )

    def _imported_helper(self, ctx, fn, taint: Taint, node: ast.Call) -> None:
        """``helper(x)`` with a traced ``x``, where ``helper`` is a function of another
        module of the tree whose every call hands that parameter to NumPy
        (``values.host_params``): NumPy runs on a tracer, reported at this call, where the
        tracer is passed (the helper's own module does not know it is traced)."""
        if not any(taint.level(a) is not None for a in [*node.args, *(k.value for k in node.keywords)]):
            return  # (no traced argument: the other module is not read)
        found = imported_host_params(ctx.model, node, fn)
        if found is None:
            return
        helper, path, params = found
        best_arg, best, via = None, -1, None
        for p in helper.params:
            host = params.get(p.name)
            if host is None:
                continue
            name = host.q[len("numpy."):]
            if name in SHAPE_QUERIES or name.startswith("random."):
                continue
            arg = argument_for(node, helper, p, 0)
            if not isinstance(arg, ast.expr):
                continue
            level = taint.level(arg)
            if level is not None and level > best:
                best_arg, best, via = arg, level, (p.name, host)
        if best_arg is None or via is None:
            return
        param, host = via
        shown = _shown(ctx, node.func)
        where = f"{os.path.basename(path)}:{host.line}"
        numpy = host.q.replace("numpy.", "np.", 1)
        ctx.report(
            node,
            f"`{shown}` is passed traced value `{describe(best_arg)}` in {traced_how(fn)}, and hands its parameter "
            f"`{param}` to `{numpy}` ({where}): numpy does not trace (on a tracer it raises "
            f"TracerArrayConversionError or works only by accident); use jax.numpy there, or pass a concrete value",
            confidence=confidence(best),
            data={"function": host.q, "value": describe(best_arg), "helper": helper.name},
        )

    def _host_library(self, ctx, fn, taint: Taint, node: ast.Call, q: str) -> None:
        """``math.sqrt(x)`` / ``scipy.special.expit(x)`` on a traced value: ``math`` asks
        its argument for a Python number (``__float__``/``__index__``), scipy converts it
        to a NumPy array; a tracer can give neither, under jit or grad alike."""
        module, name = q.split(".", 1)
        if module == "math" and name in _MATH_ARITHMETIC:
            return  # `math.prod` only multiplies: it works on tracers
        found, best = _most_traced(taint, node)
        if found is None:
            return
        shown = _shown(ctx, node.func)
        if module == "math":
            why = ("`math` functions need a Python number, which a tracer cannot give (ConcretizationTypeError; "
                   "TracerIntegerConversionError for the integer ones)")
            instead = f"`jnp.{name}`" if name in JNP_SAME_NAME else "the `jax.numpy` equivalent"
        else:
            why = "scipy converts its arguments to NumPy arrays, which a tracer cannot become " \
                  "(TracerArrayConversionError)"
            instead = f"`jax.{q}` where jax provides it"
        ctx.report(
            node,
            f"`{shown}` on traced value `{describe(found)}` in {traced_how(fn)}: {why}; use {instead}",
            confidence=confidence(best),
            data={"function": q, "value": describe(found)},
        )

    def _host_index(self, ctx, fn, taint: Taint, node: ast.Subscript) -> None:
        """A NumPy array indexed (or sliced) by a traced value: NumPy asks the index for
        a concrete integer or array, which a tracer cannot give."""
        parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        found, best = None, -1
        for part in parts:
            pieces = [part.lower, part.upper, part.step] if isinstance(part, ast.Slice) else [part]
            for piece in pieces:
                level = taint.level(piece) if piece is not None else None
                if level is not None and level > best:
                    found, best = piece, level
        if found is None:
            return
        array = ctx.segment(node.value)
        ctx.report(
            node,
            f"NumPy array `{array}` indexed by traced value `{describe(found)}` in {traced_how(fn)}: NumPy "
            f"needs a concrete index, so tracing raises TracerIntegerConversionError (or "
            f"TracerArrayConversionError); index a jax array instead (`jnp.asarray({array})[...]`)",
            confidence=confidence(best),
            data={"function": "numpy.ndarray.__getitem__", "value": describe(found)},
        )

    def _plan(self, ctx, fn, node: ast.Call, name: str, shown: str):
        if not _jnp_takes(node, name):
            return None
        jnp = import_name(ctx.model, "jax.numpy", fn, "jnp")
        root = node.func
        while isinstance(root, ast.Attribute):
            root = root.value
        if jnp is None or not isinstance(root, ast.Name):
            return None
        alias, add = jnp
        return ctx.codemod(f"Replace `{shown}` with `{alias}.{name}`" + (" (importing jax.numpy)" if add else ""),
                           Applicability.UNSAFE, func=node.func, new=f"{alias}.{name}", jnp=alias if add else None,
                           numpy=root.id)

    def codemod(self, fx) -> None:
        import libcst as cst

        fx.replace(fx.node("func", cst.Attribute, cst.Name), fx.expr(fx.arg("new")))
        if fx.arg("jnp"):
            fx.add_import("jax.numpy", fx.arg("jnp"))
        fx.release(fx.arg("numpy"))

    def _report_random(self, ctx, fn, node, name) -> None:
        short = name[len("random."):]
        instead = f"`jax.random.{short}` with a PRNG key" if short in _JAX_RANDOM else "`jax.random` with a PRNG key"
        ctx.report(
            node,
            f"`{_shown(ctx, node.func)}` in {traced_how(fn)} runs once, at trace time: its samples are baked into "
            f"the compiled program and every call reuses them; use {instead} passed in as an argument",
            data={"function": f"numpy.{name}"},
        )


def _most_traced(taint: Taint, call: ast.Call) -> tuple[ast.expr | None, int]:
    """The argument of ``call`` most surely traced, and how surely (-1: none is)."""
    found, best = None, -1
    for arg in [*call.args, *(k.value for k in call.keywords)]:
        level = taint.level(arg)
        if level is not None and level > best:
            found, best = arg, level
    return found, best


def _dispatched(taint: Taint, call: ast.Call, name: str) -> bool:
    """``np.sum(x, axis=0)`` with only ``x`` traced: numpy calls ``x.sum(axis=0)``
    (``METHOD_DISPATCH``), which traces. A traced value in another argument
    (``np.repeat(host, n)``) meets numpy's own method, which converts it."""
    if name not in METHOD_DISPATCH or not call.args or isinstance(call.args[0], ast.Starred):
        return False
    if taint.level(call.args[0]) is None:
        return False
    return all(taint.level(a) is None for a in [*call.args[1:], *(k.value for k in call.keywords)])


def _jnp_takes(node: ast.Call, name: str) -> bool:
    """Whether ``jnp.<name>`` accepts the call's keywords as written (``jnp.sort`` has
    no ``kind``, ``out=`` must be None): otherwise the rewrite raises on every call."""
    takes = JNP_KEYWORDS.get(name)
    if takes is None:
        return False
    if takes == "**":
        return True
    known, none_only = set(takes.split()), set(JNP_NONE_ONLY.get(name, "").split())
    for k in node.keywords:
        if k.arg is None or k.arg not in known:  # **kwargs, or a keyword jnp does not know
            return False
        if k.arg in none_only and not (isinstance(k.value, ast.Constant) and k.value.value is None):
            return False
    return True


def _shown(ctx, func: ast.AST) -> str:
    return " ".join(ctx.segment(func).split())

