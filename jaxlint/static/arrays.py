"""Is this value a JAX array, as opposed to a pytree container holding arrays?

``Tracing.is_traced_expr`` says whether a value carries tracers, which is true of a
``dict`` of parameters as much as of an array. Rules about array-only operations
(item assignment, boolean masks) need the stronger fact that the value *is* one array:
produced by a ``jax.numpy`` / ``jax.random`` / ``jax.nn`` call, by arithmetic or methods
on such a value, or a parameter annotated as an array. Anything else is unknown, and
rules stay quiet. Also: the parameters a function uses as data (``data_params``), and a
name's bindings less those that only convert its array (``drop_conversions``).
"""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from jaxlint.static.scopes import Binding

if TYPE_CHECKING:  # the value model (flow) asks this module too: a module's Scopes is enough
    from jaxlint.static.data import FunctionInfo
    from jaxlint.static.scopes import Scopes as ModuleModel

#: jax.numpy functions that return a tuple or list of arrays, or a Python value.
_NOT_ONE_ARRAY = {
    "split", "array_split", "hsplit", "vsplit", "dsplit", "meshgrid", "nonzero", "where",
    "broadcast_arrays", "unravel_index", "tril_indices", "triu_indices", "diag_indices",
    "tril_indices_from", "triu_indices_from", "diag_indices_from", "mask_indices",
    "histogram", "histogram2d", "histogramdd", "frexp", "modf", "divmod", "unique",
    "atleast_1d", "atleast_2d", "atleast_3d", "unstack", "gradient", "ix_", "indices",
    "shape", "ndim", "size", "dtype", "result_type", "issubdtype", "iinfo", "finfo",
    "promote_types", "can_cast", "isdtype", "isscalar", "iscomplexobj", "isrealobj",
    "broadcast_shapes", "polyfit",
}
_JAX_ARRAY_MODULES = ("jax.numpy.", "jax.random.", "jax.nn.")
#: Array methods whose result is again one array.
_ARRAY_METHODS = {
    "astype", "reshape", "transpose", "swapaxes", "squeeze", "flatten", "ravel", "copy",
    "sum", "mean", "max", "min", "prod", "cumsum", "clip", "round", "conj", "dot",
    "set", "add", "subtract", "multiply", "mul", "divide", "power", "apply", "get",
}


def is_jax_array(model: ModuleModel, fn: FunctionInfo | None, expr: ast.AST | None, _depth: int = 0) -> bool:
    """True only when ``expr`` (read in ``fn``, or at module level) is surely one JAX array."""
    if expr is None or _depth > 6:
        return False
    d = _depth + 1
    if isinstance(expr, ast.Name):
        return _name_is_array(model, fn, expr.id, d)
    if isinstance(expr, ast.Call):
        q = model.resolve_call(expr)
        if q is not None:
            if not q.startswith(_JAX_ARRAY_MODULES):
                return False
            short = q.split(".", 2)[2]
            # jax.numpy.linalg.svd and friends return tuples; only top-level functions count
            return "." not in short and short not in _NOT_ONE_ARRAY
        func = expr.func
        if isinstance(func, ast.Attribute) and func.attr in _ARRAY_METHODS:
            base = func.value
            if is_at_helper(base):
                return True  # x.at[i].set(v): only JAX arrays have `.at[...]` updates
            return is_jax_array(model, fn, base, d)
        return False
    if isinstance(expr, ast.BinOp):
        return is_jax_array(model, fn, expr.left, d) or is_jax_array(model, fn, expr.right, d)
    if isinstance(expr, ast.UnaryOp) and not isinstance(expr.op, ast.Not):
        return is_jax_array(model, fn, expr.operand, d)
    if isinstance(expr, ast.Attribute) and expr.attr in ("T", "mT", "real", "imag"):
        return is_jax_array(model, fn, expr.value, d)
    if isinstance(expr, ast.Subscript):
        return is_jax_array(model, fn, expr.value, d)
    return False


#: `.at[...]` methods that return an updated copy (``get`` only reads, so it is left out).
AT_UPDATES = {"set", "add", "subtract", "multiply", "mul", "divide", "power", "min", "max", "apply"}


def at_update_base(call: ast.Call) -> ast.expr | None:
    """``x`` for ``x.at[i].set(v)`` (also chained ``x.at[i].add(1).at[j].set(2)``)."""
    func = call.func
    if not (isinstance(func, ast.Attribute) and func.attr in AT_UPDATES):
        return None
    if not is_at_helper(func.value):
        return None
    base = func.value.value.value  # type: ignore[attr-defined]
    if isinstance(base, ast.Call):
        inner = at_update_base(base)
        return inner if inner is not None else base
    return base


def is_at_helper(expr: ast.expr) -> bool:
    """``x.at[i]``: jax's indexed-update helper; its methods (``set``, ``add``, ``max``,
    ``min``, ``get``...) are scatters and gathers, never reductions."""
    return isinstance(expr, ast.Subscript) and isinstance(expr.value, ast.Attribute) and expr.value.attr == "at"


def _name_is_array(model: ModuleModel, fn: FunctionInfo | None, name: str, depth: int) -> bool:
    scope, bindings = model.lookup(name, fn)
    if scope is not fn:
        return False  # a closed-over or global name: too far away to be sure
    # `x += 1` keeps an array an array; what x was bound to before decides
    bindings = [b for b in bindings if not isinstance(b.node, ast.AugAssign)]
    if fn is not None:
        p = fn.param(name)
        if p is not None:
            # a parameter is only sure when annotated and never rebound to something else
            if not model.is_array_annotation(p.annotation) or ref_params(model, fn):
                return False
            if _given_other(model, fn, p.name):
                return False  # what the module's calls pass wins over the annotation
            bindings = [b for b in bindings if b.kind != "param"]
            return all(b.kind == "assign" and is_jax_array(model, fn, b.value, depth) for b in bindings)
    return bool(bindings) and all(
        b.kind == "assign" and b.value is not None and is_jax_array(model, fn, b.value, depth) for b in bindings)


def _jit_traced(fn: FunctionInfo, name: str) -> bool:
    """``name`` is a parameter a transform applied to ``fn`` itself traces: a tracer,
    whatever its callers hand the transform."""
    return name in fn.traced_params and any(not r.by_call for r in fn.traced_by)


def _given_other(model: ModuleModel, fn: FunctionInfo, name: str) -> bool:
    """Some call of the module hands parameter ``name`` of ``fn`` a value that is no jax
    array (``np.array(x)``, a list, a number), and no transform of ``fn`` makes it a tracer:
    the value, not the annotation, is what the body gets."""
    if _jit_traced(fn, name):
        return False
    from jaxlint.static.callers import Callers
    for given in Callers.of(model).values(fn, name) or ():
        value = given.value
        if isinstance(value, ast.Name):  # `x = np.array(x)` before `stencil(x)`: what reaches the call
            reaching = model.reaching_bindings(value, given.scope)
            if reaching and all(binding.kind == "assign" and binding.value is not None
                                and _host_value(model, binding.value) for binding in reaching):
                return True
        elif _host_value(model, value):
            return True
    return False


def _host_value(model: ModuleModel, value: ast.expr) -> bool:
    """A value the code shows is no jax array: a NumPy call's result, a display, a constant."""
    if isinstance(value, (ast.List, ast.Tuple, ast.Dict, ast.Set, ast.ListComp, ast.Constant)):
        return True
    return isinstance(value, ast.Call) and (model.resolve_call(value) or "").startswith("numpy.")


def annotated_only(model: ModuleModel, fn: FunctionInfo | None, expr: ast.AST) -> bool:
    """``expr`` is a parameter of ``fn`` that is a jax array only by its annotation: no
    transform of ``fn`` traces it, and the module's calls do not all show a jax array
    passed (an annotation is what the author says, not a value: a finding on it alone is
    no error)."""
    if fn is None or not isinstance(expr, ast.Name) or fn.param(expr.id) is None or _jit_traced(fn, expr.id):
        return False
    from jaxlint.static.callers import Callers
    held = Callers.of(model).held(fn, expr.id)
    return not held or not all(is_jax_array(model, scope, value) for value, scope in held)


def pallas_kernel(model: ModuleModel, fn: FunctionInfo) -> bool:
    """``fn`` is Pallas kernel code, whose parameters may be mutable ``Ref``s (``out_ref[...]
    += x`` writes its output block), whatever they are annotated: a kernel handed to a
    ``pallas_call`` (``pl.pallas_call(kernel, ...)``, through ``functools.partial``, as its
    decorator, or a library's wrapper of that name), a body handed to Pallas's
    ``run_scoped`` / ``emit_pipeline`` / ``run_state`` / ``with_scoped`` (it receives the
    scoped refs), a body handed to ``pl.kernel`` / ``plgpu.kernel``, a function whose own
    code calls Pallas that works only in a kernel (``pl.program_id``, ``@pl.when``), a
    function nested in one of these, or one that kernel code calls (it is handed the refs)."""
    known = model.__dict__.get("_pallas_kernels")
    if known is None:
        known = model.__dict__["_pallas_kernels"] = _kernel_code(model)
    return id(fn) in known


def ref_params(model: ModuleModel, fn: FunctionInfo) -> bool:
    """The parameters of ``fn`` may be mutable ``Ref``s, whatever they are annotated: ``fn`` is
    Pallas kernel code (``pallas_kernel``), or its module uses Pallas at all. Kernel authors
    annotate refs ``jax.Array``, and the model cannot follow every way a kernel reaches its
    helpers (a method its subclasses override, a helper of another module, a hook held in an
    attribute), so in a Pallas module a parameter's annotation or use is no proof that it
    holds an array, except in a jit-like entry point (``@jax.jit``: its caller hands it
    arrays); a value the module makes as one (``jnp.zeros(...)``) still is."""
    return pallas_kernel(model, fn) or (pallas_module(model) and not any(r.is_entry for r in fn.traced_by))


def pallas_module(model: ModuleModel) -> bool:
    """The module imports Pallas (``jax.experimental.pallas``, ``jax._src.pallas``) or names
    ``pallas_call``."""
    known = model.__dict__.get("_pallas_module")
    if known is None:
        known = model.__dict__["_pallas_module"] = (
            any(q is not None and (q + ".").startswith(_PALLAS) for q in model.aliases.values())
            or any(n.attr == "pallas_call" for n in model.nodes(ast.Attribute))
            or any(n.id == "pallas_call" for n in model.nodes(ast.Name)))
    return known


def pallas_ref(model: ModuleModel, fn: FunctionInfo | None, expr: ast.AST | None, _depth: int = 0) -> bool:
    """``expr`` (read in ``fn``) may be a mutable ``Ref``, whose ``.at[i].set(v)`` and
    ``ref[i] = v`` write the buffer in place (and ``set`` returns None): a parameter of
    Pallas kernel code (``pallas_kernel``: it is handed the kernel's blocks or scoped
    buffers), a parameter annotated as a ``Ref`` (``pl.Ref``, ``AbstractRef``,
    ``TransformedRef``...), a name bound to ``jax.new_ref(...)`` / ``jax.empty_ref(...)``,
    or ``r.at[i]`` of such a Ref. A name rebound only by updates of itself
    (``out_ref = out_ref.at[i].set(v)``) is what it was before them: its enclosing
    function's name when the function binds it nowhere else (the name the author meant)."""
    if _depth > 4 or expr is None:
        return False
    if isinstance(expr, ast.expr) and is_at_helper(expr):
        return pallas_ref(model, fn, expr.value.value, _depth + 1)  # type: ignore[attr-defined]
    if isinstance(expr, ast.Call):
        return (model.resolve_call(expr) or "") in _NEW_REFS
    if not isinstance(expr, ast.Name):
        return False
    scope, bindings = model.lookup(expr.id, fn)
    bindings = [b for b in bindings if not (b.kind == "assign" and _self_at_update(b, expr.id))]
    if not bindings and scope is not None:
        scope, bindings = model.lookup(expr.id, scope.parent)
    if not bindings:
        return False
    for b in bindings:
        if b.kind == "param" and scope is not None:
            p = scope.param(expr.id)
            if not (pallas_kernel(model, scope) or (p is not None and _ref_annotation(p.annotation))):
                return False
        elif not (b.kind == "assign" and pallas_ref(model, scope, b.value, _depth + 1)):
            return False
    return True


def ref_write(model: ModuleModel, fn: FunctionInfo | None, call: ast.Call) -> bool:
    """``r.at[i].set(v)`` of a name that may be a mutable Ref (``pallas_ref``): it writes the
    buffer in place. A Ref's ``.at[i]`` has ``set``, ``get`` and ``swap``; ``.add`` and the
    other updates are an array's."""
    return isinstance(call.func, ast.Attribute) and call.func.attr == "set" \
        and pallas_ref(model, fn, at_update_base(call))


#: calls that make a mutable Ref outside a kernel
_NEW_REFS = frozenset({"jax.new_ref", "jax.empty_ref", "jax.ref.new_ref", "jax.ref.empty_ref"})


def _self_at_update(b: Binding, name: str) -> bool:
    """``name = name.at[i].set(v)`` (any `.at[]` update, chained too)."""
    base = at_update_base(b.value) if isinstance(b.value, ast.Call) else None
    return isinstance(base, ast.Name) and base.id == name


def _ref_annotation(ann: ast.expr | None) -> bool:
    """An annotation naming a Ref type: ``pl.Ref``, ``jax.Ref``, ``AbstractRef``, ``"TransformedRef"``."""
    if isinstance(ann, ast.Subscript):
        ann = ann.value  # `Ref[jax.Array]`
    if isinstance(ann, ast.Constant) and isinstance(ann.value, str):
        return ann.value.rsplit(".", 1)[-1].split("[", 1)[0].endswith("Ref")
    last = ann.attr if isinstance(ann, ast.Attribute) else ann.id if isinstance(ann, ast.Name) else ""
    return last.endswith("Ref")


def _kernel_code(model: ModuleModel) -> frozenset[int]:
    """The functions of the module that run as Pallas kernel code (see ``pallas_kernel``)."""
    if not pallas_module(model):
        return frozenset()  # no Pallas in the module
    seeds = []
    for fn in model.functions:
        if any(isinstance(n, ast.Call) and _pallas_name(model.resolve_call(n)) in _IN_KERNEL_ONLY
               for n in fn.body_nodes()):
            seeds.append(fn)
        elif not isinstance(fn.node, ast.Lambda) and any(_takes_kernel(model, d) for d in fn.node.decorator_list):
            seeds.append(fn)  # `@functools.partial(pl.pallas_call, out_shape=...)`
    for call in model.nodes(ast.Call):
        if not _takes_kernel(model, call.func):
            continue
        for arg in [*call.args[:1], *(k.value for k in call.keywords if k.arg in ("kernel", "body"))]:
            target, _ = model.unwrap_target(arg, call)
            if target is not None:
                seeds.append(target)
    found: set[int] = set()
    while seeds:
        fn = seeds.pop()
        if id(fn) in found:
            continue
        found.add(id(fn))
        seeds.extend(f for f in model.functions if f.parent is fn)
        for node in fn.body_nodes():
            if isinstance(node, ast.Call):
                callee, _ = model.callee(node.func, fn)
                if callee is not None:
                    seeds.append(callee)
    return frozenset(found)


def _pallas_name(q: str | None) -> str:
    """The short name of a Pallas function (``jax.experimental.pallas.tpu.emit_pipeline``:
    ``emit_pipeline``), or ""."""
    return q.rsplit(".", 1)[-1] if q is not None and q.startswith(_PALLAS) else ""


def _takes_kernel(model: ModuleModel, func: ast.expr) -> bool:
    """``func`` (a callee or a decorator) runs the function it is handed as kernel code:
    ``pallas_call`` (Pallas's, a library's wrapper of that name, or either through
    ``functools.partial``), Pallas's ``run_scoped`` or ``emit_pipeline``."""
    if isinstance(func, ast.Call):
        if model.resolve_call(func) == "functools.partial" and func.args:
            return _takes_kernel(model, func.args[0])
        func = func.func  # `@pl.pallas_call(out_shape=...)`
    last = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    return last == "pallas_call" or _pallas_name(model.resolve(func)) in _TAKE_REFS


_PALLAS = ("jax.experimental.pallas.", "jax._src.pallas.")
#: Pallas functions that work only inside a kernel
_IN_KERNEL_ONLY = frozenset({"program_id", "num_programs", "when", "load", "store", "swap", "atomic_add",
                             "atomic_max", "atomic_min", "atomic_and", "atomic_or", "atomic_xchg", "atomic_cas"})
#: Pallas functions that call the function they are handed with refs (scoped buffers, blocks)
_TAKE_REFS = frozenset({"run_scoped", "emit_pipeline", "emit_pipeline_with_allocations", "kernel", "run_state",
                        "with_scoped"})

#: Attributes only arrays have (pytree containers have none of them).
_ARRAY_ONLY_ATTRS = {"shape", "ndim", "dtype", "at", "T", "mT", "astype", "reshape"}
#: Operators lists, tuples and dicts do not support.
_ARRAY_ONLY_OPS = (ast.MatMult, ast.Sub, ast.Div, ast.Pow, ast.FloorDiv)


def used_as_array(fn: FunctionInfo, name: str) -> bool:
    """True when ``fn``'s body uses ``name`` in a way only an array supports: ``x.shape``,
    ``x.at[...]``, ``x @ w``, ``x - y``. Evidence for unannotated parameters."""
    for node in fn.body_nodes():
        if isinstance(node, ast.Attribute) and node.attr in _ARRAY_ONLY_ATTRS:
            if isinstance(node.value, ast.Name) and node.value.id == name:
                return True
        elif isinstance(node, ast.BinOp) and isinstance(node.op, _ARRAY_ONLY_OPS):
            if any(isinstance(o, ast.Name) and o.id == name for o in (node.left, node.right)):
                return True
    return False


#: numpy functions that return one host array (a constructor, a loader, a sampler).
_HOST_ARRAY_FUNCS = {
    "array", "asarray", "arange", "zeros", "ones", "full", "empty", "eye", "identity", "linspace", "logspace",
    "geomspace", "zeros_like", "ones_like", "full_like", "empty_like", "concatenate", "stack", "vstack", "hstack",
    "tile", "repeat", "loadtxt", "genfromtxt", "fromfile", "frombuffer", "random.rand", "random.randn",
    "random.normal", "random.uniform", "random.randint", "random.random", "random.permutation", "indices",
}


def is_host_array(model: ModuleModel, fn: FunctionInfo | None, expr: ast.AST | None) -> bool:
    """True only when ``expr`` is surely a NumPy array: a name that every binding (in
    ``fn``, or at module level for a global) binds to a ``numpy`` constructor's result
    (``np.arange(n)``, ``np.zeros((3, 3))``, ``np.loadtxt(path)``), or such a call itself."""
    if isinstance(expr, ast.Call):
        q = model.resolve_call(expr) or ""
        return q.startswith("numpy.") and q[len("numpy."):] in _HOST_ARRAY_FUNCS
    if not isinstance(expr, ast.Name):
        return False
    scope, bindings = model.lookup(expr.id, fn)
    if scope is not None and scope is not fn:
        return False  # a closed-over name: too far away to be sure
    if bindings and all(b.kind == "for" and isinstance(b.node, (ast.For, ast.AsyncFor, ast.comprehension))
                        and isinstance(b.node.target, ast.Name) and is_host_array(model, fn, b.node.iter)
                        for b in bindings):
        return True  # `for g in np.indices(shape)`: a row of a NumPy array is NumPy too
    if not bindings or any(b.kind != "assign" or not isinstance(b.value, ast.Call) for b in bindings):
        return False
    for b in bindings:
        q = model.resolve_call(b.value) or ""  # type: ignore[arg-type]  # (a call, checked above)
        if not (q.startswith("numpy.") and q[len("numpy."):] in _HOST_ARRAY_FUNCS):
            return False
    return True


_DATA_FUNCS = ("jax.numpy.", "jax.lax.", "jax.nn.", "jax.image.", "jax.scipy.")


def data_params(model: ModuleModel, fn: FunctionInfo) -> set[str]:
    """Parameters ``fn`` uses as data: handed to a ``jax.numpy`` / ``lax`` function or
    to a method of an object (``cost_fn.all_pairs(x, u)``), an operand of ``@``,
    indexed, or the receiver of an array method (not only read for ``.shape``)."""
    params = {p.name for p in fn.params}
    out: set[str] = set()
    for n in fn.body_nodes():
        if not (isinstance(n, ast.Name) and n.id in params and isinstance(n.ctx, ast.Load)):
            continue
        parent = model.parent(n)
        if isinstance(parent, ast.Call) and n in parent.args and (model.resolve_call(parent) or "").startswith(_DATA_FUNCS):
            out.add(n.id)
        elif isinstance(parent, ast.Call) and n in parent.args and isinstance(parent.func, ast.Attribute) \
                and model.resolve_call(parent) is None:
            out.add(n.id)  # `cost_fn.all_pairs(x, u)`: a method of an object applied to the data
        elif isinstance(parent, ast.BinOp) and isinstance(parent.op, ast.MatMult):
            out.add(n.id)
        elif isinstance(parent, ast.Subscript) and parent.value is n:
            out.add(n.id)
        elif isinstance(parent, ast.Attribute) and parent.value is n and parent.attr not in (
                "shape", "ndim", "dtype", "size"):
            grand = model.parent(parent)
            if isinstance(grand, ast.Call) and grand.func is parent:
                out.add(n.id)
    return out


#: Calls that move or convert an array and keep its size: `W = jnp.asarray(W)`.
CONVERSIONS = {"jax.numpy.asarray", "jax.numpy.array", "jax.device_put", "numpy.asarray", "numpy.array",
                "numpy.ascontiguousarray"}


def drop_conversions(model: ModuleModel, name: str, bindings: list[Binding]) -> list[Binding]:
    """The bindings of ``name`` less those that only convert its previous value
    (``W = jnp.asarray(W)``, ``W = jax.device_put(W)``): the array keeps its size, so the
    first binding says how large it is."""
    if len(bindings) < 2:
        return bindings
    rest = []
    for b in bindings:
        v = b.value
        if b.kind == "assign" and isinstance(v, ast.Call) and v.args and isinstance(v.args[0], ast.Name) \
                and v.args[0].id == name and (model.resolve_call(v) or "") in CONVERSIONS:
            continue
        rest.append(b)
    return rest


#: The keywords jax.Array's reductions, sorts, ``reshape`` and ``repeat`` take: a method
#: call passing another one is not one of them (``critic.mean(x, zs=zs)``).
ARRAY_METHOD_KEYWORDS = frozenset({
    "axis", "dtype", "out", "keepdims", "initial", "where", "promote_integers", "ddof", "correction", "kind",
    "order", "stable", "descending", "shape", "repeats", "total_repeat_length", "copy", "out_sharding",
})


def not_an_array_method(model: ModuleModel, fn: FunctionInfo, call: ast.Call) -> bool:
    """``obj.mean(...)`` read in ``fn`` is surely not jax.Array's method of that name, though
    ``obj`` may carry tracers (a module, a pytree of arrays): the call passes a keyword no
    array method takes; ``obj`` is the ``self``/``cls`` of a method; it is a parameter
    annotated with a type that names no array or number (``critic: QNet``); or a class of
    this module defines a method of that name and ``obj`` is not known to be an array."""
    func = call.func
    if not isinstance(func, ast.Attribute):
        return False
    if any(k.arg is not None and k.arg not in ARRAY_METHOD_KEYWORDS for k in call.keywords):
        return True
    receiver = func.value
    if isinstance(receiver, ast.Name):
        owner, bindings = model.lookup(receiver.id, fn)
        if owner is not None and len(bindings) == 1 and bindings[0].kind == "param":
            p = owner.param(receiver.id)
            if p is not None and p.index == 0 and owner.class_name and p.name in ("self", "cls"):
                return True
            if p is not None and p.annotation is not None and _names_no_array(model, p.annotation):
                return True
    return any(isinstance(d, (ast.FunctionDef, ast.AsyncFunctionDef)) and d.name == func.attr
               for c in model.classes.values() for d in c.body) and not is_jax_array(model, fn, receiver)


def _names_no_array(model: ModuleModel, ann: ast.expr) -> bool:
    """An annotation of a class that is no array or number (``QNet``, ``nnx.Module``);
    an alias whose name says array or tensor (``ArrayLike``, ``Float[Tensor, ...]``) is
    taken for an array."""
    from jaxlint.static.containers import scalar_or_array_annotation
    if scalar_or_array_annotation(model, ann):
        return False
    text = ast.unparse(ann).lower()
    return not any(word in text for word in ("array", "tensor", "any", "float", "int", "scalar", "numeric"))
