from __future__ import annotations

import ast
import os
from typing import TYPE_CHECKING

from jaxlint.diagnostic import Confidence, Position, Related
from jaxlint.rule import Invalid, Option, StaticRule, Valid
from jaxlint.rules.static._sizes import LOADERS, Estimate, array_estimate, host_slice
from jaxlint.static.callers import Callers
from jaxlint.static.classes import class_attr_value, instance_field, method_field
from jaxlint.static.consts import display_entry
from jaxlint.static.values import imported_constant
from jaxlint.static.semantic import STATIC_ATTRS
from jaxlint.textutil import LazyPattern, human_bytes
from jaxlint.static.arrays import CONVERSIONS, drop_conversions

if TYPE_CHECKING:
    from jaxlint.static.checker import StaticContext


class CapturedArray(StaticRule):
    """
    ## What it does
    Finds traced code (a jitted function, or code traced through one) that reads an
    array defined outside it: at module level, in an enclosing function, as a default
    argument, as a `functools.partial`-bound argument (also through a name:
    `g = partial(f, W)`, `jax.jit(g)`), or as an attribute of a static `self` (also a
    field that `__init__` sets from its argument, holding the array the module's one
    module-level instance was made with: `m = Module(table)`), or as a field of a
    module-level instance of a class of the module, also through instances held in its
    fields (`sim.table`, `path.optics.table`, with `sim = Sim(...)`
    and `self.table` set once), or returned by its method without arguments
    (`BANK.lookup()` returning `self.table`), or an entry at a static index or key of a
    module-level tuple, list or dict mixing arrays and numbers (`TABLES[0]` of
    `TABLES = (np.ones(...), 1.0)`, the index computed by the value model), or an
    attribute bound once in the body of a class of the module (`Tables.GRID`, or
    `self.GRID` with a static `self`), unless something stores an attribute of that
    name, or a module-level array of another module of the checked tree that the module
    imports (`from .data import TABLE`, `data.TABLE` after `import data`, also
    re-exported by a package's `__init__`; its size from that module's constants): the
    array is baked into the compile of the module that reads it, so the finding is
    there, with the definition as its related location. Reports
    when the array's size, estimated from its constructor, reaches `max-bytes`, or when
    it is loaded from disk (`np.load`, `pickle.load`), whose size is unknown.

    Sizes follow module constants (`N, M = 1024, 512`, `int(1e6)`, `H * W * C`), names
    (`W = np.random.randn(...)` then `W.astype(np.float32)` or `jnp.array(W)`),
    `np.repeat`, `np.tile`, `np.concatenate` and `np.stack` of arrays of known size,
    `jax.device_put` of an array (`pulse = jax.device_put(np.random.rand(n))`), and
    dicts and lists of such arrays (`params = {"w1": W1, "w2": W2}`). An
    equinox or flax nnx layer (`eqx.nn.Linear`, `eqx.nn.MLP`, `nnx.Linear`, ...) counts by
    its weights: a captured model is baked in like an array. A slice of a NumPy array
    (`TABLE[:64, :32]`) is taken on the host: only the slice is baked in, and its size
    counts (a possible finding, `--preview`, when its bounds are not static:
    `TABLE[: x.shape[0]]`); a jax array is baked in whole, whatever the slice.

    ## Why is this bad?
    A closed-over array is not an argument: tracing bakes its *value* into the
    program as a constant. XLA then embeds it in every compiled executable, constant
    folds through it (a 100 MB array can take seconds to compile and a GiB of
    memory), and the program recompiles whenever the array object changes.

    ## Example
    ```python
    W = np.random.randn(4096, 4096)

    @jax.jit
    def predict(x):
        return x @ W
    ```

    ## Use instead
    ```python
    @jax.jit
    def predict(W, x):
        return x @ W

    predict(W, x)
    ```

    ## Options

    ## References
    * [JAX sharp bits: pure functions](https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html#pure-functions)
    * [jax_captured_constants_warn_bytes](https://docs.jax.dev/en/latest/config_options.html)
    """

    code = "JAX101"
    traced_code = True  # about code under a trace: an eager-only branch is none of its business
    group = "perf"
    name = "captured-array"
    summary = "traced code closes over a large array, which becomes a compile-time constant"
    fix_hint = "pass the array as an argument of the jitted function"
    options = {
        "max-bytes": Option(1 << 20, "arrays of this many bytes or more are reported", int, 0),
    }

    VALID = [
        Valid(
            """
            import jax
            import numpy as np
            TABLE = np.array([1.0, 2.0, 3.0])
            SCALE = 2.0

            @jax.jit
            def f(x):
                return x * SCALE + TABLE
            """
        ),
        Valid(
            """
            import jax
            import numpy as np
            W = np.zeros((4096, 4096))

            @jax.jit
            def f(x, W):
                return x @ W
            """
        ),
        Valid(
            """
            import jax
            import numpy as np
            W = np.zeros((4096, 4096))

            @jax.jit
            def f(x):
                return x.reshape(W.shape)
            """
        ),
    ]
    INVALID = [
        Invalid(
            """
            import jax
            import numpy as np

            CONSTS = (np.random.randn(1024, 1024), 0.5)

            @jax.jit
            def f(x):
                return x @ CONSTS[0] * CONSTS[1]
            """,
            line=8,
            count=1,
            message="closes over `CONSTS[0]`, a 8.0 MiB array",
        ),
        Invalid(
            """
            import jax
            import numpy as np

            class Bank:
                def __init__(self, table):
                    self.table = table

                def lookup(self):
                    return self.table

            BANK = Bank(np.random.randn(2048, 512))

            @jax.jit
            def f(x):
                return x @ BANK.lookup()
            """,
            line=15,
            count=1,
            message="reads `BANK.lookup()`, a field of a module-level instance, a 8.0 MiB array",
        ),
        Invalid(
            """
            import jax
            import numpy as np

            class Sim:
                def __init__(self, table):
                    self.table = table
                    self.steps = 3

            sim = Sim(np.random.randn(2048, 512))

            @jax.jit
            def step(x):
                # a module-level instance's field: its size and shape are static, its data is baked in
                return x @ sim.table.T * sim.steps + sim.table.shape[0]
            """,
            line=14,
            count=1,
            message="reads `sim.table`, a field of a module-level instance, a 8.0 MiB array",
        ),
    ]

    def check(self, ctx: StaticContext) -> None:
        model = ctx.model
        limit = self.opts["max-bytes"]
        for fn in model.traced_functions():
            reported: set[str] = set()
            for node in fn.body_nodes():
                if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                    if node.id in reported or node.id in fn.bindings:
                        continue
                    parent = model.parent(node)
                    if isinstance(parent, ast.Attribute) and parent.attr in STATIC_ATTRS:
                        continue
                    owner, bindings = model.lookup(node.id, fn.parent)
                    if owner is None and len(bindings) == 1 and bindings[0].kind == "class" \
                            and isinstance(parent, ast.Attribute) and isinstance(parent.ctx, ast.Load):
                        # `Tables.GRID`: an array bound in the body of a class of the module
                        shown = f"{node.id}.{parent.attr}"
                        value = class_attr_value(model, node.id, parent.attr)
                        above = model.parent(parent)
                        if value is not None and shown not in reported \
                                and not (isinstance(above, ast.Attribute) and above.attr in STATIC_ATTRS) \
                                and self._report(ctx, parent, shown, array_estimate(model, value), value, limit,
                                                 "class"):
                            reported.add(shown)
                        continue
                    if owner is not None and len(bindings) == 1 and bindings[0].kind == "param":
                        # a parameter of the factory that made this function: what its callers pass
                        held = Callers.of(model).held(owner, node.id)
                        if node.id in owner.traced_params or held is None \
                                or any(scope is not None and scope.traced for _, scope in held):
                            continue  # a tracer, not a constant
                        found = [(e, array_estimate(model, e)) for e, _ in held]
                        sized = [(e, est) for e, est in found if est is not None]
                        if sized and len(sized) == len(found):
                            held_value, held_est = max(sized, key=lambda f: f[1]["bytes"] or 0)
                            if self._report(ctx, node, node.id, held_est, held_value, limit, "param"):
                                reported.add(node.id)
                        continue
                    if owner is None and len(bindings) == 1 and bindings[0].kind == "import":
                        # `from .data import TABLE` / `data.TABLE`: a constant of another module of the tree
                        got = self._imported(ctx, fn, node, parent, limit, reported)
                        if got is not None:
                            reported.add(got)
                        continue
                    bindings = drop_conversions(model, node.id, bindings)
                    if len(bindings) != 1 or bindings[0].value is None:
                        continue
                    if owner is None and isinstance(parent, ast.Attribute) and isinstance(parent.ctx, ast.Load):
                        # `sim.table` of a module-level instance `sim = Sim(...)`: the array it holds,
                        # also through instances held in fields (`path.coronagraph.psf`), and
                        # `BANK.lookup()` of a method returning `self.table`
                        field = instance_field(model, bindings[0].value, parent.attr)
                        shown = f"{node.id}.{parent.attr}"
                        read: ast.expr = parent
                        if field is None:
                            field = method_field(model, bindings[0].value, parent)
                            call = model.parent(parent)
                            if field is not None and isinstance(call, ast.Call):
                                read, shown = call, f"{shown}()"
                        for _ in range(4):
                            outer = model.parent(read)
                            if not (isinstance(outer, ast.Attribute) and isinstance(outer.ctx, ast.Load)) \
                                    or field is None:
                                break
                            inner = instance_field(model, field, outer.attr)
                            if inner is None:
                                break
                            read, field, shown = outer, inner, f"{shown}.{outer.attr}"
                        above = model.parent(read)
                        if isinstance(above, ast.Attribute) and above.attr in STATIC_ATTRS:
                            continue  # `sim.table.shape`: a static figure
                        if field is not None and shown not in reported and self._report(
                                ctx, read, shown, array_estimate(model, field), field, limit, "field"):
                            reported.add(shown)
                        if field is not None:
                            continue
                    est = array_estimate(model, bindings[0].value)
                    if est is None and owner is None and isinstance(parent, ast.Subscript) and parent.value is node:
                        # `TABLES[0]` of a module-level display mixing arrays and numbers: the entry
                        entry = display_entry(model, bindings[0].value, parent.slice)
                        if entry is not None and self._report(ctx, parent, ctx.segment(parent),
                                                              array_estimate(model, entry), entry, limit, "defined"):
                            reported.add(node.id)
                        continue
                    if est is not None and isinstance(parent, ast.Subscript) and parent.value is node:
                        part = host_slice(model, est, parent)
                        if part is not None:
                            # `TABLE[:64, :32]` of a NumPy array: NumPy slices on the host, and only the
                            # slice is baked in (its size unknown when its bounds are: a possible finding)
                            if self._report(ctx, parent, ctx.segment(parent), part[0], bindings[0].value, limit,
                                            "defined", possible=not part[1]):
                                reported.add(node.id)
                            continue
                    if self._report(ctx, node, node.id, est, bindings[0].value, limit, "defined"):
                        reported.add(node.id)
                elif (
                    isinstance(node, ast.Attribute)
                    and isinstance(node.ctx, ast.Load)
                    and isinstance(node.value, ast.Name)
                    and node.value.id == "self"
                    and ("self" in fn.static_params or "self" in fn.partial_bound)
                    and f"self.{node.attr}" not in reported
                ):
                    parent = model.parent(node)
                    if isinstance(parent, ast.Attribute) and parent.attr in STATIC_ATTRS:
                        continue
                    value = self._self_attr_value(model, fn, node.attr)
                    if value is None and fn.class_name is not None:
                        value = class_attr_value(model, fn.class_name, node.attr)  # `TABLE = np.ones(...)` in the body
                    if value is not None and self._report(
                        ctx, node, f"self.{node.attr}", array_estimate(model, value), value, limit, "assigned"
                    ):
                        reported.add(f"self.{node.attr}")
            # default arguments that stay at their (array) default are constants
            for p in fn.params:
                if p.default is not None and p.name not in fn.traced_params:
                    est = array_estimate(model, p.default)
                    self._report(ctx, p.default, p.name, est, None, limit, "default")
        # functools.partial-bound arrays at jit entry points: `jax.jit(partial(f, W))`, and
        # `g = partial(f, W)` ... `jax.jit(g)`
        jitted: set[int] = set()  # ids of the partial calls that a jit wraps through a name
        jit_names = {q.rsplit(".", 1)[-1] for q in _JIT} | {n for n, q in model.aliases.items() if q in _JIT}
        partials: list[ast.Call] = []
        for node in model.nodes(ast.Call):
            # a cheap test of the called name first: resolving every call costs more
            short = node.func.attr if isinstance(node.func, ast.Attribute) else \
                node.func.id if isinstance(node.func, ast.Name) else None
            if short == "partial" or (short is not None and model.aliases.get(short) == "functools.partial"):
                partials.append(node)
            if short in jit_names and node.args and isinstance(node.args[0], ast.Name) \
                    and (model.resolve_call(node) or "") in _JIT:
                _, bindings = model.lookup(node.args[0].id, model.function_of(node))
                if len(bindings) == 1 and isinstance(bindings[0].value, ast.Call):
                    jitted.add(id(bindings[0].value))
        for node in partials:
            if model.resolve_call(node) == "functools.partial":
                parent = model.parent(node)
                if not (isinstance(parent, ast.Call) and node in parent.args
                        and (model.resolve_call(parent) or "") in _JIT) and id(node) not in jitted:
                    continue
                for arg in node.args[1:] + [k.value for k in node.keywords]:
                    if isinstance(arg, ast.Name):
                        scope = model.function_of(arg)
                        _, bindings = model.lookup(arg.id, scope)
                        if len(bindings) == 1 and bindings[0].value is not None:
                            est = array_estimate(model, bindings[0].value)
                            self._report(ctx, arg, arg.id, est, bindings[0].value, limit, "bound")
                    else:
                        self._report(ctx, arg, ctx.segment(arg), array_estimate(model, arg), None, limit, "bound")

    def _imported(self, ctx, fn, node: ast.Name, parent, limit, reported: set[str]) -> str | None:
        """``node`` (or ``node.attr``) read in traced ``fn`` names a module-level array of
        another module of the tree (``values.imported_constant``): report it here, where the
        array is baked into this module's compile. Returns what was reported."""
        model = ctx.model
        asked: ast.expr = node
        for _ in range(4):  # `pkg.data.TABLE`, or `TABLE.T`: the model says which prefix names the constant
            outer = model.parent(asked)
            if not (isinstance(outer, ast.Attribute) and isinstance(outer.ctx, ast.Load)):
                break
            asked = outer
        found = imported_constant(model, asked, fn.parent, _arrayish)
        if found is None:
            return None
        read, shown = found.read, ctx.segment(found.read)
        above = model.parent(read)
        if shown in reported or isinstance(above, ast.Attribute) and above.attr in STATIC_ATTRS:
            return None  # `data.TABLE.shape`: a static figure
        where = Related(_shown_path(ctx.path, model.link.path, found.path), Position(*found.start),
                        Position(*found.end), f"`{shown}` is defined here")
        est = array_estimate(found.model, found.value)
        theirs = found.model.link
        if theirs is not None and theirs.used and model.link is not None:
            model.link.use(set(theirs.used.items()))  # its size may rest on a third module's constants
        if not self._report(ctx, read, shown, est, None, limit, "defined", related=[where]):
            return None
        return shown

    def _self_attr_value(self, model, fn, attr: str):
        if fn.class_name is None:
            return None
        values = []
        for other in model.functions:
            if other.class_name != fn.class_name:
                continue
            for n in other.body_nodes():
                if isinstance(n, ast.Assign):
                    for t in n.targets:
                        if (isinstance(t, ast.Attribute) and t.attr == attr and isinstance(t.value, ast.Name)
                                and t.value.id == "self"):
                            v = n.value
                            if isinstance(v, ast.Call) and len(v.args) == 1 and isinstance(v.args[0], ast.Name) \
                                    and (model.resolve_call(v) or "") in CONVERSIONS:
                                v = v.args[0]  # `self.data = jnp.asarray(measurement)`: as large as its argument
                            values.append(v if not isinstance(v, ast.Name)
                                          else _constructed_with(model, other, v) or n.value)
        return values[0] if len(values) == 1 else None

    def _report(self, ctx, node, name, est: Estimate | None, def_node, limit, how, related=(),
                possible: bool = False) -> bool:
        if est is None or est.get("literal"):
            return False
        size = est["bytes"]
        src = est["source"].replace("numpy.", "np.").replace("jax.np.", "jnp.")
        if possible:  # a slice whose bounds are not static: at most the array
            if size is None or size < limit:
                return False
            what = f"a slice of up to {human_bytes(size)} (of an array from `{src}`; its bounds are not static)"
        elif size is None:
            if est["source"] not in LOADERS:
                return False
            what = (f"an array from `{src}`" if src.startswith("np.") else f"data loaded by `{src}`") \
                + " (size unknown statically)"
        else:
            if size < limit:
                return False
            shape = "x".join(map(str, est["shape"] or ()))
            if est.get("module"):
                what = f"a `{src}` layer with {human_bytes(size)} of weights"
            elif est.get("pytree"):
                what = f"{src} of {human_bytes(size)}"
            else:
                what = f"a {human_bytes(size)} array ({shape + ' ' if shape else ''}from `{src}`)"
        verb = {
            "defined": f"closes over `{name}`",
            "assigned": f"reads `{name}` from a static `self`",
            "field": f"reads `{name}`, a field of a module-level instance",
            "class": f"reads `{name}`, an attribute bound in the class body",
            "default": f"has parameter `{name}` defaulting to",
            "bound": f"binds `{name}` with functools.partial to",
            "param": f"closes over `{name}`, a parameter its callers bind to",
        }[how]
        if how in ("default", "bound"):
            msg = f"jitted function {verb} {what}; it is baked into the compiled program as a constant"
        else:
            msg = f"traced code {verb}, {what}; it is baked into the compiled program as a constant"
        related = list(related)
        if def_node is not None:
            related.append(ctx.related(def_node, f"`{name}` is defined here"))
        # certain when its size is computed; likely when it is loaded (size unknown here)
        ctx.report(node, msg, related=related, confidence=Confidence.POSSIBLE if possible else
                   Confidence.LIKELY if size is None else Confidence.CERTAIN,
                   data={"bytes": size, "shape": list(est["shape"]) if est["shape"] else None, "name": name})
        return True


#: what is assigned to a module-level name of another module that may be an array this
#: rule sizes (a call of a NumPy, jax, equinox or flax function, a loader, another name,
#: a display): a module whose assignment is anything else is not parsed
_ARRAYISH = LazyPattern(rb"\b(?:np|numpy|onp|jnp|jax|eqx|equinox|nnx|nn|pickle|joblib|cloudpickle|scipy)\.[\w.]*\s*\("
                       rb"|\b(?:load|loadtxt|device_put)\s*\(|^\s*[A-Za-z_]\w*\s*(?:#.*)?$|^\s*[\[{(]")


def _arrayish(text: bytes) -> bool:
    return _ARRAYISH().search(text) is not None


def _shown_path(display: str, checked, other) -> str:
    """``other`` (a file of the tree) as a path beside ``display``, the checked file as
    the report shows it (``checked`` is its real path)."""
    rel = os.path.relpath(other, os.path.dirname(checked))
    return os.path.normpath(os.path.join(os.path.dirname(display), rel)).replace(os.sep, "/")


_JIT = {"jax.jit", "jax.pmap", "jax.experimental.pjit.pjit", "equinox.filter_jit", "flax.nnx.jit"}


def _constructed_with(model, init, name: ast.Name) -> ast.expr | None:
    """What ``self.a = p`` in ``__init__`` holds when ``p`` is a parameter: the argument the
    module-level constructions of the class pass (``m = Module(table)``, ``[Loss(i, w) for
    ...]``, the value model's ``callers``), the largest when several pass arrays; None when
    one is made inside a function (one value per call, not one array) or passes anything
    else."""
    if init.name != "__init__" or init.param(name.id) is None or init.class_name is None:
        return None
    held = Callers.of(model).held(init, name.id)
    if not held or any(scope is not None for _, scope in held):
        return None
    if len(held) == 1:
        return held[0][0]
    sized = [(e, array_estimate(model, e)) for e, _ in held]
    if any(est is None for _, est in sized):
        return None
    return max(sized, key=lambda f: f[1]["bytes"] or 0)[0]  # type: ignore[index]


