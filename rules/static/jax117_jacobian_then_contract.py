from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from jaxlint.diagnostic import Severity
from jaxlint.rule import Invalid, StaticRule, Valid

if TYPE_CHECKING:
    from jaxlint.static.checker import StaticContext
    from jaxlint.static.semantic import ModuleModel

#: the transforms that make a whole Jacobian, and what one costs
JACOBIANS = {
    "jax.jacfwd": "one forward pass per input element",
    "jax.jacrev": "one reverse pass per output element",
    "jax.jacobian": "one reverse pass per output element",
    "jax.hessian": "one forward pass over the gradient per input element",
}
#: contractions of two operands: (the vector first, the array second) contracts the array's
#: leading (output) side for ``dot``/``matmul``/``tensordot(axes=1)``, the trailing side the other way round
PRODUCTS = {"jax.numpy.dot", "jax.numpy.matmul", "jax.numpy.tensordot", "jax.numpy.inner", "jax.numpy.vdot"}
EINSUM = "jax.numpy.einsum"
TREE_MAPS = {"jax.tree.map", "jax.tree_util.tree_map"}
#: calls that make a 1-D array from a length (an int literal, or a one-element tuple of one)
VECTORS_OF_LENGTH = {"jax.numpy.ones", "jax.numpy.zeros", "jax.numpy.empty", "jax.numpy.full"}


class JacobianThenContract(StaticRule):
    """
    ## What it does
    Finds a whole Jacobian (`jax.jacfwd`, `jax.jacrev`, `jax.jacobian`, or a Hessian,
    `jax.hessian`) that is only ever contracted with a vector: every use of the value is
    `v @ J`, `J @ v`, `jnp.dot`/`matmul`/`tensordot(..., axes=1)`/`inner`/`vdot` with `v`,
    a two-operand `jnp.einsum` whose subscripts give the vector one index that the
    Jacobian shares and the result drops (`einsum('j,j...->...', v, J)`), or the same
    contraction applied to each leaf by `jax.tree.map(lambda x: ..., J)`. The vector must
    be one as the code shows it (`J.T @ v` is `v @ J`): an operand an einsum gives a single index (there, or
    elsewhere in the scope for a name bound once), or `jnp.ones(n)`, `jnp.zeros(n)`,
    `jnp.arange`, `jnp.linspace` between two numbers. A Jacobian used in any other way
    (returned, indexed, kept) is not reported.

    ## Why is this bad?
    `jax.jacfwd` builds the Jacobian column by column, one forward (JVP) pass per input
    element (`jax.jacrev` row by row, one reverse pass per output element), and then the
    contraction throws all but one combination of them away. A vector times the Jacobian
    on its output side is a vector-Jacobian product, which `jax.vjp` gives in one reverse
    pass; on its input side a Jacobian-vector product, one `jax.jvp` (or
    `jax.linearize`) pass; a Hessian times a vector is `jax.jvp` of `jax.grad`, and the
    Hessians of a vector function's outputs weighted by a vector (a Lagrangian's) are the
    one Hessian of the weighted sum. With `n`
    inputs the whole Jacobian costs about `n` times as much, and holds `n` times the memory.
    In a neural ODE's adjoint, whose right-hand side took `jax.jacfwd` of the model with
    respect to all its parameters and contracted it with the adjoint state at every solver
    stage, one `jax.vjp` made the training step 19 times faster (1.011 s to 0.052 s), with
    the same losses and parameters.

    It assumes the Jacobian's function maps vectors to vectors (or to and from pytrees of
    them) so that the contracted axis is its whole output (or input) side: with
    higher-rank outputs the product is still cheaper by `jax.vjp`, with a cotangent
    shaped like the output.

    ## Example
    ```python
    def adjoint_rhs(params, y, a):
        J = jax.jacfwd(model, argnums=0)(params, y)   # a full Jacobian: one pass per parameter
        return jax.tree.map(lambda x: jnp.einsum("j,j...->...", -a, x), J)
    ```

    ## Use instead
    ```python
    def adjoint_rhs(params, y, a):
        _, pullback = jax.vjp(lambda p: model(p, y), params)
        (g,) = pullback(-a)                            # one reverse pass
        return g
    ```

    ## Options

    ## References
    * [jax.vjp](https://docs.jax.dev/en/latest/_autosummary/jax.vjp.html)
    * [Autodiff cookbook: Jacobian-vector and vector-Jacobian products](https://docs.jax.dev/en/latest/notebooks/autodiff_cookbook.html)
    """

    code = "JAX117"
    group = "nursery"
    name = "jacobian-then-contract"
    summary = "a whole Jacobian computed only to be contracted with a vector: `jax.vjp`/`jax.jvp` give the product in one pass"
    fix_hint = "take the product with `jax.vjp` (a vector on the output side) or `jax.jvp` (on the input side)"
    severity = Severity.WARNING

    VALID = [
        Valid(
            """
            import jax
            import jax.numpy as jnp

            def newton_step(f, x):
                J = jax.jacfwd(f)(x)          # the whole Jacobian is needed: it is solved with
                return x - jnp.linalg.solve(J, f(x))
            """
        ),
        Valid(
            """
            import jax
            import jax.numpy as jnp

            def project(f, x, basis):
                return basis @ jax.jacrev(f)(x)   # a matrix of vectors: no evidence of one vector
            """
        ),
    ]
    INVALID = [
        Invalid(
            """
            import jax
            import jax.numpy as jnp

            def adjoint_rhs(model, params, y, a):
                J = jax.jacfwd(model, argnums=0)(params, y)
                return jax.tree.map(lambda x: jnp.einsum("j,j...->...", -a, x), J)
            """,
            line=5,
            message="`jax.vjp` (a vector on the output side)",
        ),
        Invalid(
            """
            import jax
            import jax.numpy as jnp

            def dynamics(f, y, t):
                dfdy = jax.jacfwd(lambda y: f(y, t))
                a = jnp.ones(3)
                return a @ dfdy(y)
            """,
            line=7,
            message="a contraction with the vector `a`",
        ),
        Invalid(
            """
            import jax
            import jax.numpy as jnp

            def curvature(loss, w, v):
                H = jax.hessian(loss)(w)
                return jnp.einsum("ij,j->i", H, v)
            """,
            line=5,
            message="`jax.jvp` of `jax.grad`",
        ),
    ]

    def check(self, ctx: StaticContext) -> None:
        if "jac" not in ctx.source and "hessian" not in ctx.source:
            return
        model = ctx.model
        for call in model.nodes(ast.Call):
            transform = _jacobian(model, call)
            if transform is None:
                continue
            uses = _uses(model, call)
            if not uses:
                continue
            vectors = list(dict.fromkeys(ast.unparse(v) for v, _ in uses))
            sides = {side for _, side in uses}
            if transform == "jax.hessian" and sides == {"input"}:
                how = "a Hessian-vector product: `jax.jvp` of `jax.grad` gives it in one pass"
            elif transform == "jax.hessian" and sides == {"output"}:
                how = ("the Hessian of the outputs weighted by the vector: `jax.hessian` of that one weighted "
                       "sum (`lambda x: v @ f(x)`) gives it, one Hessian instead of one per output")
            elif transform == "jax.hessian":
                how = "`jax.jvp` of `jax.grad` (a Hessian-vector product) or the Hessian of one weighted sum gives it"
            elif sides == {"output"}:
                how = "a vector-Jacobian product: `jax.vjp` (a vector on the output side) gives it in one reverse pass"
            elif sides == {"input"}:
                how = "a Jacobian-vector product: `jax.jvp` (a vector on the input side) gives it in one forward pass"
            else:
                how = "`jax.vjp` (a vector on the output side) or `jax.jvp` (on the input side) gives it in one pass"
            shown = ", ".join(f"`{v}`" for v in vectors[:2])
            ctx.report(call, f"`{ast.unparse(call)[:60]}` computes a whole Jacobian with `{transform}` "
                             f"({JACOBIANS[transform]}), and {'every use of it is' if len(uses) > 1 else 'its only use is'} "
                             f"a contraction with the vector {shown}: {how}",
                       data={"transform": transform, "vectors": vectors})


def _has_aux(call: ast.Call) -> bool:
    return any(k.arg == "has_aux" and not (isinstance(k.value, ast.Constant) and k.value.value is False)
               for k in call.keywords)


def _jacobian(model: ModuleModel, call: ast.Call) -> str | None:
    """The transform when ``call`` makes a Jacobian value: ``jax.jacfwd(f)(x)``, or a call of
    a name bound once to ``jax.jacfwd(f)`` (a ``has_aux`` Jacobian returns a pair: not one)."""
    func: ast.expr | None = call.func
    if isinstance(func, ast.Name):
        _, bindings = model.lookup(func.id, model.function_of(call))
        func = bindings[0].value if len(bindings) == 1 and bindings[0].kind == "assign" else None
    if isinstance(func, ast.Call) and not _has_aux(func):
        q = model.resolve_call(func)
        if q in JACOBIANS:
            return q
    return None


def _unsigned(model: ModuleModel, node: ast.expr) -> ast.expr:
    """``node`` with the unary signs around it: ``-J`` is contracted as ``J`` is."""
    p = model.parent(node)
    while isinstance(p, ast.UnaryOp) and isinstance(p.op, (ast.USub, ast.UAdd)):
        node, p = p, model.parent(p)
    return node


def _loads(model: ModuleModel, name: str, at: ast.AST) -> list[ast.Name] | None:
    """Every read of ``name`` bound once where ``at`` binds it, or None when it is bound more."""
    owner, bindings = model.lookup(name, model.function_of(at))
    if len(bindings) != 1:
        return None
    out = []
    for n in model.nodes(ast.Name):
        if n.id == name and isinstance(n.ctx, ast.Load):
            o, b = model.lookup(name, model.function_of(n))
            if o is owner and b is bindings:
                out.append(n)
    return out


def _uses(model: ModuleModel, value: ast.Call) -> list[tuple[ast.expr, str]] | None:
    """(the vector, the side of the Jacobian it meets) of every use of the Jacobian ``value``,
    or None when any use is not a contraction with a vector (or there is none)."""
    node = _unsigned(model, value)
    p = model.parent(node)
    if isinstance(p, ast.Assign) and p.value is node and len(p.targets) == 1 and isinstance(p.targets[0], ast.Name):
        loads = _loads(model, p.targets[0].id, p)
        if not loads:
            return None
        out = []
        for load in loads:
            found = _contraction(model, load)
            if found is None:
                return None
            out.append(found[:2])
        return out
    found = _contraction(model, value)
    return None if found is None else [found[:2]]


def _contraction(model: ModuleModel, value: ast.expr) -> tuple[ast.expr, str, ast.expr] | None:
    """(the vector, "output"/"input"/"" for the side, the contracting expression) when the
    array ``value`` is contracted with a vector where it is read; else None."""
    node = _unsigned(model, value)
    p = model.parent(node)
    flipped = False
    if isinstance(p, ast.Attribute) and p.attr == "T" and p.value is node:  # `J.T @ v` is `v @ J`
        flipped, node = True, _unsigned(model, p)
        p = model.parent(node)
    if isinstance(p, ast.BinOp) and isinstance(p.op, ast.MatMult):
        other, side = (p.left, "output") if p.right is node else (p.right, "input")
        if flipped:
            side = "input" if side == "output" else "output"
        return (other, side, p) if _vector(model, other) else None
    if flipped:
        return None
    if not isinstance(p, ast.Call) or node not in p.args:
        return None
    q = model.resolve_call(p)
    if q in TREE_MAPS and len(p.args) == 2 and p.args[1] is node and not p.keywords:
        fn = p.args[0]
        if isinstance(fn, ast.Lambda) and len(fn.args.args) == 1 and not fn.args.vararg:
            leaf = fn.args.args[0].arg
            reads = [n for n in ast.walk(fn.body) if isinstance(n, ast.Name) and n.id == leaf]
            inner = _contraction(model, reads[0]) if len(reads) == 1 else None
            if inner is not None and _unsigned(model, inner[2]) is fn.body:
                return inner[0], inner[1], p
        return None
    if q == EINSUM:
        return _einsum(p, node)
    if q in PRODUCTS and len(p.args) in (2, 3):
        if q == "jax.numpy.tensordot":
            axes = p.args[2] if len(p.args) == 3 else next((k.value for k in p.keywords if k.arg == "axes"), None)
            if not (isinstance(axes, ast.Constant) and axes.value == 1):
                return None
        elif len(p.args) != 2 or p.keywords:
            return None
        first = p.args[0] is node
        other = p.args[1] if first else p.args[0]
        side = "" if q in ("jax.numpy.inner", "jax.numpy.vdot") else "input" if first else "output"
        return (other, side, p) if _vector(model, other) else None
    return None


def _einsum(call: ast.Call, node: ast.expr) -> tuple[ast.expr, str, ast.expr] | None:
    """A two-operand einsum that contracts ``node`` with an operand its subscripts give one
    index (so a vector: einsum raises otherwise), an index ``node`` has and the result drops."""
    spec = _spec(call)
    if spec is None or len(call.args) != 3:
        return None
    (left, right), out = spec
    mine, theirs = (left, right) if call.args[1] is node else (right, left)
    other = call.args[2] if call.args[1] is node else call.args[1]
    if len(theirs) != 1 or not theirs.isalpha() or theirs not in mine or theirs in out:
        return None
    letters = mine.replace("...", "")
    side = "output" if letters.startswith(theirs) and not mine.startswith("...") else \
        "input" if letters.endswith(theirs) and not mine.endswith("...") else ""
    return other, side, call


def _spec(call: ast.Call) -> tuple[tuple[str, str], str] | None:
    """((first operand's subscripts, second's), the result's) of an explicit two-operand spec."""
    if not call.args or not isinstance(call.args[0], ast.Constant) or not isinstance(call.args[0].value, str):
        return None
    text = call.args[0].value.replace(" ", "")
    ins, arrow, out = text.partition("->")
    parts = ins.split(",")
    if not arrow or len(parts) != 2:
        return None
    return (parts[0], parts[1]), out


def _number(expr: ast.expr) -> bool:
    while isinstance(expr, ast.UnaryOp) and isinstance(expr.op, (ast.USub, ast.UAdd)):
        expr = expr.operand
    return isinstance(expr, ast.Constant) and type(expr.value) in (int, float)


def _vector(model: ModuleModel, expr: ast.expr, depth: int = 0) -> bool:
    """The code shows ``expr`` is a 1-D array."""
    while isinstance(expr, ast.UnaryOp) and isinstance(expr.op, (ast.USub, ast.UAdd)):
        expr = expr.operand
    if isinstance(expr, ast.Call):
        q = model.resolve_call(expr)
        if q == "jax.numpy.arange":
            return True
        if q == "jax.numpy.linspace":
            return all(_number(a) for a in expr.args[:2]) and not any(k.arg in ("start", "stop")
                                                                        for k in expr.keywords)
        if q in VECTORS_OF_LENGTH and expr.args:
            n = expr.args[0]
            if isinstance(n, ast.Tuple) and len(n.elts) == 1:
                n = n.elts[0]
            return isinstance(n, ast.Constant) and type(n.value) is int
        return False
    if not isinstance(expr, ast.Name) or depth > 2:
        return False
    owner, bindings = model.lookup(expr.id, model.function_of(expr))
    if len(bindings) != 1:
        return False
    if bindings[0].value is not None and _vector(model, bindings[0].value, depth + 1):
        return True
    # an einsum elsewhere gives the same value one index: it is a vector there, so here
    for load in _loads(model, expr.id, expr) or ():
        p = model.parent(_unsigned(model, load))
        if isinstance(p, ast.Call) and model.resolve_call(p) == EINSUM and load is not expr:
            spec = _spec(p)
            if spec is not None and len(p.args) == 3:
                sub = spec[0][0] if p.args[1] is _unsigned(model, load) else spec[0][1]
                if len(sub) == 1 and sub.isalpha():
                    return True
    return False
