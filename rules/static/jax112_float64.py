from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Sequence

from jaxlint.diagnostic import Applicability, Confidence
from jaxlint.rule import Invalid, Option, StaticRule, Valid
from jaxlint.rules.static._sizes import in_test, is_test_path
from jaxlint.static.project import x64_policy
from jaxlint.static.semantic import ModuleModel

if TYPE_CHECKING:
    from jaxlint.static.checker import StaticContext

#: 64-bit dtypes by qualified name, and the dtype strings numpy accepts for them.
WIDE_DTYPES = {
    f"{mod}.{name}": name
    for mod in ("jax.numpy", "numpy")
    for name in ("float64", "int64", "uint64", "complex128", "double", "longlong", "ulonglong", "cdouble")
}
WIDE_STRINGS = {"float64", "int64", "uint64", "complex128", "double", "f8", "i8", "u8", "c16",
                "<f8", "<i8", "<u8", "<c16"}
#: jax functions that only ask questions about a dtype (no 64-bit value is made).
DTYPE_QUERIES = {"issubdtype", "finfo", "iinfo", "dtype", "result_type", "promote_types", "can_cast",
                 "isdtype"}
_TRUE = (True, 1, "1", "true", "True", "TRUE", "yes")
_WHY = "without `jax_enable_x64` JAX silently uses 32 bits instead; with it, 64-bit math is slow on GPUs and TPUs"
#: the 32-bit dtype the fix puts instead (names in numpy and jax.numpy alike; dtype strings)
NARROW = {"float64": "float32", "double": "float32", "int64": "int32", "longlong": "int32",
          "uint64": "uint32", "ulonglong": "uint32", "complex128": "complex64", "cdouble": "complex64",
          "f8": "f4", "i8": "i4", "u8": "u4", "c16": "c8", "<f8": "<f4", "<i8": "<i4", "<u8": "<u4", "<c16": "<c8"}


class Float64(StaticRule):
    """
    ## What it does
    Finds 64-bit dtypes in traced code: `jnp.float64` / `np.float64` (and `int64`,
    `uint64`, `complex128`) given as `dtype=`, to `.astype(...)`, as a constructor's
    dtype argument, or called as a function (`jnp.float64(x)`); dtype strings such
    as `dtype="float64"`; and dtype objects made from either (`np.dtype("float64")`,
    `jnp.dtype(jnp.float64)`). The Python types `float`, `int` and `complex` as dtypes
    are not 64-bit requests: they give JAX's default type (32-bit without
    `jax_enable_x64`, silently; checked with real jax). A module constant (`DTYPE = jnp.float64`) read by traced
    code is one finding, at the constant, naming the functions that use it. Also finds
    `jax_enable_x64` turned on
    (`jax.config.update("jax_enable_x64", True)`, `os.environ["JAX_ENABLE_X64"] = "1"`)
    in a module that has traced code.

    A project that turns `jax_enable_x64` on has made float64 its policy, and nothing
    is reported there unless `report-x64-projects` is set: a module that turns it on
    (`jax.config.update("jax_enable_x64", True)`, `os.environ["JAX_ENABLE_X64"] = "1"`)
    or warns when it is off, or whose project does so in a package's `__init__.py`,
    `conftest.py` or configuration module (`config.py`, `settings.py`) on the way up to
    the project root, or sets `JAX_ENABLE_X64` in its configuration (`pyproject.toml`,
    `setup.cfg`, `tox.ini`, `pytest.ini`, `.env`). With the option, the setting is
    reported where the module turns it on. Elsewhere a traced function gets one finding,
    at its first 64-bit dtype, counting the others. Test code that turns it on (a test file, a test
    function or class) is left alone unless `check-tests` is set: tests compare against
    64-bit references on purpose. Dtype checks (`x.dtype == jnp.float64`,
    `jnp.finfo(jnp.float64)`) are not reported.

    ## Why is this bad?
    Without `jax_enable_x64` (the default), JAX does not compute in 64 bits: it
    silently uses float32 / int32 instead and at most warns once, so code that asks
    for float64 precision or int64 range does not get it. With `jax_enable_x64`, every
    Python float and every new array defaults to 64 bits: memory and bandwidth double,
    consumer and many datacenter GPUs run float64 at 1/32-1/64 of float32 speed, and
    TPUs emulate it in software.

    ## Example
    ```python
    jax.config.update("jax_enable_x64", True)

    @jax.jit
    def loss(x):
        return jnp.sum(x.astype(jnp.float64) ** 2)
    ```

    ## Use instead
    ```python
    @jax.jit
    def loss(x):
        return jnp.sum(x.astype(jnp.float32) ** 2)
    ```
    When 64-bit precision is really needed (some scientific code on CPU), enable it
    for the whole program in one entry point, not in a library module, and suppress
    this finding there.

    ## Fix safety
    The fix puts the 32-bit dtype in place of the 64-bit one where it is written:
    `jnp.float64` -> `jnp.float32`, `np.int64` -> `np.int32`, `"float64"` ->
    `"float32"`, `"f8"` -> `"f4"` (a dtype imported bare, `from numpy import float64`,
    is left alone). It is unsafe: with `jax_enable_x64` on elsewhere in the program,
    the values really were 64-bit, and int32 overflows where int64 did not. No import
    is needed. `jax_enable_x64` itself has no fix.

    ## Options

    ## References
    * [JAX sharp bits: double (64bit) precision](https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html#double-64bit-precision)
    * [JAX type promotion semantics](https://docs.jax.dev/en/latest/type_promotion.html)
    """

    code = "JAX112"
    group = "pedantic"
    name = "float64"
    fixable = Applicability.UNSAFE
    summary = "64-bit dtypes in traced code, or jax_enable_x64 turned on in a module with traced code"
    fix_hint = "use float32/int32 (or bfloat16), or leave the dtype to JAX"
    options = {
        "check-tests": Option(False, "also check test files (`test_*.py`, `*_test.py`) and test functions and "
                                     "classes that turn `jax_enable_x64` on, where 64-bit references are usually "
                                     "the point (their setting is reported with `report-x64-projects`)", bool),
        "report-x64-projects": Option(
            False, "also report where the module or its project makes float64 its policy: it turns "
                   "`jax_enable_x64` on (at import, or `JAX_ENABLE_X64` in its configuration) or warns when it "
                   "is off", bool),
    }

    VALID = [
        Valid(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit
            def f(x):
                if x.dtype == jnp.float64:
                    x = x.astype(jnp.float32)
                eps = jnp.finfo(jnp.float64).eps
                return jnp.zeros(3, dtype=jnp.float32) + x * eps
            """
        ),
        Valid(
            """
            import numpy as np

            def load(path):
                return np.loadtxt(path).astype(np.float64)
            """
        ),
        Valid(
            """
            import jax

            jax.config.update("jax_enable_x64", True)

            def host_only(x):
                return x
            """
        ),
    ]
    INVALID = [
        Invalid(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit
            def loss(x):
                return jnp.sum(x.astype(jnp.float64) ** 2)
            """,
            line=6,
            message="`jnp.float64` in traced code",
            expected_fix="""
            import jax
            import jax.numpy as jnp

            @jax.jit
            def loss(x):
                return jnp.sum(x.astype(jnp.float32) ** 2)
            """,
        ),
        Invalid(
            """
            import jax
            import numpy as np
            import jax.numpy as jnp

            @jax.jit
            def f(x, key):
                a = jnp.zeros(x.shape, dtype="float64")
                b = jax.random.normal(key, (3,), np.float64)
                c = jnp.int64(x)
                return a + b + c
            """,
            line=7,
            message="(and 2 more in `f`)",
            expected_fix="""
            import jax
            import numpy as np
            import jax.numpy as jnp

            @jax.jit
            def f(x, key):
                a = jnp.zeros(x.shape, dtype="float32")
                b = jax.random.normal(key, (3,), np.float32)
                c = jnp.int32(x)
                return a + b + c
            """,
        ),
        Invalid(
            """
            import jax
            from jax import config

            config.update("jax_enable_x64", True)

            @jax.jit
            def f(x):
                return x.astype("float64")
            """,
            line=4,
            count=1,
            message="`jax_enable_x64`",
            options={"report-x64-projects": True},
        ),
    ]

    def check(self, ctx: StaticContext) -> None:
        model = ctx.model
        traced = model.traced_functions()
        if not traced:
            return
        enables = list(_x64_enabled(model)) if "x64" in ctx.source.lower() else []
        if enables and not self.opts["check-tests"] and (
                is_test_path(ctx.path) or all(in_test(model.function_of(n)) for n in enables)):
            return  # a test turns 64-bit on for its references: deliberate, and so are its dtypes
        if not self.opts["report-x64-projects"] and (
                enables or ctx.project.x64 or ("x64" in ctx.source and x64_policy(ctx.source.encode()))):
            return  # the module or its project makes float64 its policy (turns x64 on, or warns when off)
        for node in enables:
            ctx.report(
                node,
                "`jax_enable_x64` is turned on in a module with traced code: every Python float and new array "
                "becomes 64-bit, doubling memory and running at a fraction of float32 speed on GPUs and TPUs",
                data={"setting": "jax_enable_x64"}, confidence=Confidence.LIKELY,
            )
        if enables:
            return  # 64-bit dtypes are deliberate here; the setting itself was reported
        # a module constant (`DTYPE = jnp.float64`) is one choice, made where it is bound:
        # reported there once, naming the traced functions that use it
        constants: dict[int, tuple[ast.AST, str, list[str]]] = {}
        for fn in traced:
            # one finding per function: its first 64-bit dtype, counting the others
            found: list[ast.expr] = []
            for node in fn.body_nodes():
                if isinstance(node, ast.Call):
                    for dtype in _dtype_uses(model, node):
                        value = _module_constant(model, dtype)
                        if value is not None and isinstance(dtype, ast.Name):  # (a constant is read by name)
                            uses = constants.setdefault(id(value), (value, dtype.id, []))[2]
                            if fn.name not in uses:
                                uses.append(fn.name)
                            continue
                        found.append(dtype)
            if found:
                first = min(found, key=lambda n: (n.lineno, n.col_offset))
                label = _label(model, first)
                more = f" (and {len(found) - 1} more in `{fn.name}`)" if len(found) > 1 else ""
                ctx.report(
                    first,
                    f"{label} in traced code (`{fn.name}`){more}: {_WHY}",
                    data={"dtype": label.strip("`"), "uses": len(found)},
                    fix=_narrow_fix(ctx, first, [n for n in found if n is not first]),
                    confidence=Confidence.LIKELY,  # whether 64 bits are wanted is the project's choice
                )
        for value, name, uses in constants.values():
            label = _label(model, value)
            ctx.report(
                value,
                f"{label} (`{name}`) is used in traced code (`{'`, `'.join(uses)}`): {_WHY}",
                data={"dtype": label.strip("`")},
                fix=_narrow_fix(ctx, value),
                confidence=Confidence.LIKELY,
            )

    def codemod(self, fx) -> None:
        import libcst as cst

        for i in range(1 + fx.arg("more", 0)):
            suffix = f"_{i}" if i else ""
            node = fx.node(f"dtype{suffix}", cst.Attribute, cst.SimpleString)
            old, new = fx.arg(f"old{suffix}"), NARROW[fx.arg(f"old{suffix}")]
            if isinstance(node, cst.Attribute):
                fx.replace(node.attr, cst.Name(new))
            elif node.evaluated_value == old:
                fx.replace(node, node.with_changes(value=node.value.replace(old, new, 1)))
            else:
                raise fx.cannot("the dtype string is not written plainly")


def _narrowed(dtype: ast.AST) -> str | None:
    """The 64-bit name or string ``dtype`` spells that the fix can narrow, or None."""
    if isinstance(dtype, ast.Constant) and dtype.value in NARROW:
        return dtype.value
    if isinstance(dtype, ast.Attribute) and dtype.attr in NARROW:
        return dtype.attr
    return None


def _narrow_fix(ctx, dtype: ast.AST, others: Sequence[ast.AST] = ()):
    """Narrow ``dtype`` and the ``others`` of the same finding (a function's other 64-bit
    dtypes) together: one finding, one fix; none unless every one can be narrowed."""
    old = _narrowed(dtype)
    if old is None or any(_narrowed(o) is None for o in others):
        return None
    shown = f"`{ctx.segment(dtype.value)}.{NARROW[old]}`" if isinstance(dtype, ast.Attribute) else f'"{NARROW[old]}"'
    more: dict = {"more": len(others)} if others else {}
    for i, o in enumerate(others, 1):
        more[f"dtype_{i}"], more[f"old_{i}"] = o, _narrowed(o)
    what = f"Use {shown}" + (f" (and narrow the {len(others)} other 64-bit dtypes of the function)" if others else "")
    return ctx.codemod(what, Applicability.UNSAFE, dtype=dtype, old=old, **more)


def _module_constant(model: ModuleModel, dtype: ast.AST) -> ast.AST | None:
    """The value of the one module-level assignment a dtype name reads (`DTYPE =
    jnp.float64`), when that value is itself a 64-bit dtype."""
    if not isinstance(dtype, ast.Name):
        return None
    owner, bindings = model.lookup(dtype.id, model.function_of(dtype))
    if owner is not None or len(bindings) != 1 or bindings[0].kind != "assign":
        return None
    value = bindings[0].value
    return value if value is not None and _wide(model, value) else None


def _wide(model: ModuleModel, expr: ast.AST) -> bool:
    if isinstance(expr, ast.Constant):
        return isinstance(expr.value, str) and expr.value in WIDE_STRINGS
    made = _dtype_object_of(model, expr)
    if made is not None:
        return _wide(model, made)  # `np.dtype("float64")`, `jnp.dtype(jnp.float64)`
    return isinstance(expr, (ast.Name, ast.Attribute)) and model.resolve(expr) in WIDE_DTYPES


def _dtype_object_of(model: ModuleModel, expr: ast.AST) -> ast.expr | None:
    """``d`` of ``np.dtype(d)`` / ``jnp.dtype(d)``: a dtype object made from a name or string."""
    if isinstance(expr, ast.Call) and len(expr.args) == 1 and not expr.keywords \
            and model.resolve_call(expr) in ("numpy.dtype", "jax.numpy.dtype"):
        return expr.args[0]
    return None


def _label(model: ModuleModel, expr: ast.AST) -> str:
    made = _dtype_object_of(model, expr)
    if made is not None:
        return _label(model, made)
    if isinstance(expr, ast.Constant):
        return f"dtype {expr.value!r}"
    q = model.resolve(expr) or ""
    return f"`{q.replace('jax.numpy.', 'jnp.').replace('numpy.', 'np.')}`"


def _dtype_uses(model: ModuleModel, call: ast.Call) -> list[ast.expr]:
    """The 64-bit dtypes a call asks for: ``dtype=``, ``.astype(d)``, ``jnp.zeros(s, d)``,
    ``jnp.float64(x)``."""
    out = [k.value for k in call.keywords if k.arg == "dtype" and _wide(model, k.value)]
    if _wide(model, call.func):
        out.append(call.func)
        return out
    if isinstance(call.func, ast.Attribute) and call.func.attr in ("astype", "view") and call.args:
        if model.resolve(call.func) is None and _wide(model, call.args[0]):
            out.append(call.args[0])
        return out
    q = model.resolve_call(call) or ""
    if q.startswith(("jax.numpy.", "jax.lax.", "jax.random.")) and q.rsplit(".", 1)[-1] not in DTYPE_QUERIES:
        out.extend(a for a in call.args if _wide(model, a))
    return out


def _x64_enabled(model: ModuleModel):
    """Statements that turn on 64-bit mode for the process."""
    for node in model.nodes(ast.Call, ast.Assign):
        if isinstance(node, ast.Call) and len(node.args) >= 2:
            q = model.resolve_call(node)
            key, value = node.args[0], node.args[1]
            if q == "jax.config.update" and _const(key) == "jax_enable_x64" and _const(value) in _TRUE:
                yield node
            elif q == "os.environ.setdefault" and _const(key) == "JAX_ENABLE_X64" and _const(value) in _TRUE:
                yield node
        elif isinstance(node, ast.Assign) and len(node.targets) == 1:
            t = node.targets[0]
            if isinstance(t, ast.Subscript) and model.resolve(t.value) == "os.environ" \
                    and _const(t.slice) == "JAX_ENABLE_X64" and _const(node.value) in _TRUE:
                yield node


def _const(node: ast.AST) -> object:
    return node.value if isinstance(node, ast.Constant) else None
