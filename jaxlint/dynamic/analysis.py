"""The per-function analysis object: a trace rule's context (compile rules get a
``CompileContext`` built from its ``compile_facts``).

Lives in the worker; imports jax through :mod:`jaxlint.dynamic.adapter` only. A trace
rule's ``check(ctx)`` reads ``ctx.jaxpr`` (a ClosedJaxpr, or ``None`` when tracing
failed and ``ctx.error`` holds the exception), walks it with ``ctx.levels()`` /
``ctx.equations()``, asks ``ctx.site(eqn)`` for the user's source line of an equation,
and calls ``ctx.report(where, message, ...)``. Findings are mapped to the user's file,
never to a line inside jax.
"""
from __future__ import annotations

import ast
import functools
import os
import re
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterator, Mapping, Sequence

from jaxlint.diagnostic import Diagnostic, Position, Related, Severity
from jaxlint.findings.measured import MeasuredIn, measured_diagnostic
from jaxlint.rule import Rule, in_dependency_order
from jaxlint.findings.supersede import absorbed, refuted_predictions, replace_earlier

if TYPE_CHECKING:
    from jaxlint.dynamic import adapter  # jax: imported where a method uses it
    from jaxlint.compile.facts import CompileFacts
    from jaxlint.dynamic.signatures import Signature


#: a Python loop of the source: ``for``/``while``, or a comprehension's ``for`` clause
Loop = ast.For | ast.AsyncFor | ast.While | ast.comprehension
#: the keywords of a jit (``jax.jit``, ``jax.pmap``, ``equinox.filter_jit``) that donate arguments
DONATE_KEYWORDS = frozenset({"donate_argnums", "donate_argnames", "donate"})


def _adapter():
    """jax's version adapter, imported on first use: the analysis object and
    :func:`run_rules` load without jax (``jaxlint inspect`` runs the compile rules in a
    process that never imports it)."""
    from jaxlint.dynamic import adapter

    return adapter


@dataclass(frozen=True)
class Site:
    """A place in user code."""

    path: str  # absolute
    line: int
    column: int = 1
    end_line: int | None = None
    end_column: int | None = None

    def related(self, message: str) -> Related:
        return Related(self.path, Position(self.line, self.column),
                       Position(self.end_line or self.line, self.end_column or self.column), message)


@dataclass(frozen=True)
class CallFacts:
    """What one real call of the function showed: a program observed by `jaxlint
    record` (the worker traces abstract inputs and has none)."""

    #: the user's line that made the call
    site: Site | None = None
    #: (donated argument, other argument) pairs that are one and the same buffer
    donated_twice: tuple[tuple[str, str], ...] = ()
    #: warnings jax raised while the call traced, lowered and compiled
    warnings: tuple[str, ...] = ()
    #: the ``jax.sharding.Sharding`` of each array argument of the call, in order
    shardings: tuple = ()
    #: the arguments that hold one array at two places (one buffer twice)
    sharing: tuple[str, ...] = ()


@dataclass
class FunctionAnalysis:
    """Everything known about one traced entry point: what a trace rule (and, with
    ``compile_facts``, a compile rule) reads, and where it reports (:meth:`report`).
    jax's own objects (``jitted``, ``traced``, ``jaxpr``) are typed ``Any``: their classes
    differ between jax versions, and the rules reach them through the version adapter."""

    path: str  # the checked file, absolute
    module: str
    qualname: str
    entry: Mapping[str, Any]
    spec: Mapping[str, Any] | None
    versions: Mapping[str, str]
    #: every distinct recorded signature of this function (may be empty)
    signatures: Sequence[Signature] = ()
    #: {argument name: whether the program used it again after a call}, as `jaxlint
    #: record` saw it (:mod:`jaxlint.dynamic.callers`); empty when not seen (unknown)
    reused: Mapping[str, bool] = field(default_factory=dict)
    #: ``@LINE`` for an earlier definition of a name defined again (see
    #: :attr:`jaxlint.findings.measured.MeasuredIn.redefined_at`), else empty
    redefined_at: str = ""
    #: where the program made float64 its policy (``prog.py:7 turns jax_enable_x64 on``): x64
    #: was on while it traced and jaxlint's own ``x64`` setting did not turn it on; else None
    x64_policy: str | None = None
    function: Any = None  # the original Python function (partials and decorators removed)
    #: what jit wrapped, decorators kept (``jax.vmap``'s wrapper of ``@jit @vmap``)
    wrapped: Any = None
    #: the ``functools.partial`` jit wrapped, when it did (its bound arguments are
    #: captured by the traced program), else None
    bound: functools.partial | None = None
    jitted: Any = None
    traced: Any = None  # jax.stages.Traced
    jaxpr: Any = None  # ClosedJaxpr
    error: BaseException | None = None
    #: the real call this analysis comes from, when a program observed by `jaxlint
    #: record` made it
    call: CallFacts | None = None
    #: how it was traced: with symbolic shapes (True) or concrete sizes (False); None when
    #: not decided (a program observed by `jaxlint record` traces its real arguments)
    symbolic: bool | None = None
    #: traced once more with concrete sizes for the compile tier (XLA compiles concrete shapes only)
    concrete_retrace: bool = False
    #: why compiling is not worth it, from a trace rule that stayed quiet because another
    #: finding names the cause (with its figures); see ``TraceRule.skip_compile_reason``
    skip_compile: str | None = None
    #: the executable a program observed by `jaxlint record --compile` built for this trace
    #: (``jaxlint.dynamic.adapter.CapturedCompile``): read by the compile tier, not compiled again
    captured: adapter.CapturedCompile | None = None
    #: what the compile tier measured (the ``compile`` level)
    compile_facts: CompileFacts | None = None
    #: the compile tier's summary of the function for the run's summary and page: equations,
    #: constant bytes, compile seconds, flops, memory, or why it was not compiled (JSON)
    compile_report: dict[str, Any] | None = None
    #: every stage as text, as ``jaxlint inspect`` shows it (the ``ir`` level, `record --keep-ir`)
    ir: dict[str, Any] | None = None
    #: seconds each rule's check took, by code
    rule_seconds: dict[str, float] = field(default_factory=dict)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    # set by the engine around each rule's check()
    rule: type[Rule] | None = None
    #: code -> rule class of every rule run on this function so far (every level)
    rules_run: dict[str, type[Rule]] = field(default_factory=dict)
    options: Mapping[str, Any] = field(default_factory=dict)
    _frames: dict = field(default_factory=dict)
    _consumer_frames: list = field(default_factory=list)
    _code_span: tuple[int, int] | None = None
    _levels: list | None = None
    _outputs: set[int] | None = None

    # ------------------------------------------------------------------ program
    def levels(self) -> list[adapter.Level]:
        if self.jaxpr is None:
            return []
        if self._levels is None:
            self._levels = list(_adapter().walk(self.jaxpr))
        return self._levels

    def equations(self) -> Iterator[tuple[Any, adapter.Level]]:
        for lv in self.levels():
            for eqn in lv.jaxpr.eqns:
                yield eqn, lv

    def is_output(self, var) -> bool:
        """Whether ``var`` is what the function returns: one of the program's outputs, or
        the value a sub-program (a nested jit, a branch, a loop's carry) hands out as one of
        them (the same position and shape), so that the compiled program writes it to an
        output buffer rather than as an intermediate."""
        if self._outputs is None:
            self._outputs = set()
            ad = _adapter()
            for lv in self.levels():  # outermost first: a level's caller is settled before it
                if lv.parent_eqn is None:
                    self._outputs.update(id(v) for v in lv.jaxpr.outvars)
                    continue
                for outer, inner in zip(lv.parent_eqn.outvars, lv.jaxpr.outvars):
                    if id(outer) in self._outputs and \
                            ad.shape_of(ad.aval_of(outer)) == ad.shape_of(ad.aval_of(inner)):
                        self._outputs.add(id(inner))
        return id(var) in self._outputs

    def outputs_by_line(self, keep, eqn_keep=None) -> Iterator[tuple[Any, Any, Site]]:
        """(equation, output aval, site) of the first output per user source line for
        which ``keep(aval)`` holds (of an equation for which ``eqn_keep(eqn)`` holds, when
        given): one finding per line, however many equations it made."""
        seen: set[tuple[str, int]] = set()
        for eqn, level in self.equations():
            if eqn_keep is not None and not eqn_keep(eqn):
                continue
            for v in eqn.outvars:
                aval = _adapter().aval_of(v)
                if not keep(aval):
                    continue
                site = self.site(eqn, level)
                if site is not None and (site.path, site.line) not in seen:
                    seen.add((site.path, site.line))
                    yield eqn, aval, site
                break

    def consumers(self, var, jaxpr, depth: int = 0) -> list:
        """Equations that read ``var``, followed into sub-programs (jit, scan, cond)
        when operands map positionally onto the body's inputs and the body's readers
        have a user line (else the calling equation is the reader)."""
        out = []
        for eqn in jaxpr.eqns:
            idx = [i for i, v in enumerate(eqn.invars) if v is var]
            if not idx:
                continue
            inner: list = []
            if depth < 8:
                for sub, _ in _adapter().sub_jaxprs(eqn):
                    off = len(eqn.invars) - len(sub.invars)
                    if off not in (0, 1):  # 1: cond's branch index comes first
                        continue
                    for i in idx:
                        if 0 <= i - off < len(sub.invars):
                            inner += self.consumers(sub.invars[i - off], sub, depth + 1)
            if not any(self.site(e) is not None for e in inner):
                inner = []
            out.extend(inner or [eqn])
        return out

    def sites(self, eqns) -> list[Site]:
        """Distinct user sites of some equations, in order."""
        out: list[Site] = []
        seen = set()
        for e in eqns:
            s = self.site(e)
            if s is not None and (s.path, s.line) not in seen:
                seen.add((s.path, s.line))
                out.append(s)
        return out

    # ------------------------------------------------------------------ source
    @property
    def source_lines(self) -> list[str]:
        return _source(self.path)[0]

    @property
    def tree(self) -> ast.Module | None:
        return _source(self.path)[1]

    def user_frames(self, eqn) -> list[adapter.Frame]:
        # several rules ask for the same equation's stack, and reading it is the
        # costliest part of a rule: compute it once per equation
        key = id(eqn)
        hit = self._frames.get(key)
        if hit is None:
            hit = self._frames[key] = (self._within_trace(_adapter().frames(eqn.source_info)), eqn)
        return hit[0]

    def _within_trace(self, frames: list[adapter.Frame]) -> list[adapter.Frame]:
        """The frames of the trace: up to the traced function's own outermost frame. jax
        before 0.10 also keeps the frames that called it, which in a program observed by
        `jaxlint record` are the program's (its training loop is no loop of the trace)."""
        code = getattr(self.function, "__code__", None)
        if code is None or not frames:
            return frames
        span = self._span(code)
        for i in range(len(frames) - 1, -1, -1):
            f = frames[i]
            if span[0] <= f.line <= span[1] and _same_file(f.file, code.co_filename):
                return frames[:i + 1]
        return frames

    def _span(self, code) -> tuple[int, int]:
        """First and last line of the traced function's code (nested functions included)."""
        if self._code_span is None:
            lines = [ln for _, _, ln in code.co_lines() if ln] if hasattr(code, "co_lines") else []
            self._code_span = (min(lines + [code.co_firstlineno]), max(lines + [code.co_firstlineno]))
        return self._code_span

    def trace_lines(self) -> set[tuple[str, int]]:
        """(file, line) of every user frame of every equation: the code the trace
        entered (the jitted function and its callees), one stack read per distinct stack."""
        out: set[tuple[str, int]] = set()
        seen: set = set()
        for eqn, _ in self.equations():
            try:
                key = _adapter().stack_key(eqn.source_info)
            except Exception:
                key = id(eqn)
            if key in seen:
                continue
            seen.add(key)
            out.update((f.file, f.line) for f in self.user_frames(eqn))
        return out

    def site(self, eqn, level: adapter.Level | None = None) -> Site | None:
        """Where the user's code made the equation. Equations inside jax's own jitted
        helpers (``jnp.take`` ...) have no user frame: given their ``level``, the site of
        the enclosing call equation stands in. ``None`` when nothing is known."""
        site = self.site_of_frames(self.user_frames(eqn))
        while site is None and level is not None and level.parent_eqn is not None:
            site = self.site_of_frames(self.user_frames(level.parent_eqn))
            level = level.parent
        return site

    def site_of_frames(self, frames: Sequence[adapter.Frame]) -> Site | None:
        """The innermost user frame: the project line that made the equation, even when
        it sits in a helper module the checked function calls."""
        pick = frames[0] if frames else None
        if pick is None:
            return None
        return Site(os.path.abspath(pick.file), pick.line, pick.column, pick.end_line, pick.end_column)

    def findings_of(self, fact: str) -> list[Diagnostic]:
        """The findings so far of the rules that declare the trace fact ``fact``
        (``TraceRule.trace_fact``); the rule asking must declare it in ``reads``, so the
        engine has run those rules first."""
        if fact not in getattr(self.rule, "reads", ()):
            raise LookupError(f"{getattr(self.rule, 'code', '?')} reads the trace fact {fact!r} without declaring "
                              "it in `reads`")
        return [d for d in self.diagnostics if getattr(self.rules_run.get(d.code), "trace_fact", None) == fact]

    def is_checked_file(self, path: str) -> bool:
        return _same_file(path, self.path)

    def entry_site(self) -> Site:
        """Where the function is jitted (decorator or ``jax.jit(...)`` call)."""
        return Site(self.path, int(self.entry.get("line") or 1), int(self.entry.get("column") or 1))

    def donation_site(self) -> Site | None:
        """The ``donate_argnums``/``donate_argnames`` keyword (equinox's ``donate``) of the
        jit that wraps the function: in the call on its jit line (``@partial(jax.jit,
        donate_argnums=0)``, ``jax.jit(step, donate_argnums=0)``), the innermost such call
        when they nest. None when the line passes none (a ``**kwargs``) or is unknown."""
        tree, line = self.tree, int(self.entry.get("line") or 0)
        if tree is None or not line:
            return None
        best = None
        for n in ast.walk(tree):
            if isinstance(n, ast.Call) and n.lineno <= line <= (n.end_lineno or n.lineno):
                kw = next((k for k in n.keywords if k.arg in DONATE_KEYWORDS), None)
                if kw is not None and (best is None or n.lineno >= best[0].lineno):
                    best = (n, kw)
        if best is None:
            return None
        kw = best[1]
        return Site(self.path, kw.lineno, kw.col_offset + 1, kw.end_lineno, (kw.end_col_offset or 0) + 1)

    def call_site(self) -> Site | None:
        """The ``jax.jit(f, ...)``/``jax.pmap(f, ...)`` call that made the function, when
        a call on a line of its own made it (``learn = jax.pmap(learn, axis_name="i")``),
        not a decorator: where ``donate_argnums`` goes. None otherwise."""
        line, tree = int(self.entry.get("line") or 0), self.tree
        if self.entry.get("form") != "call" or not line or tree is None or line == self.def_site().line:
            return None
        calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and n.lineno == line]
        if not calls:
            return None
        n = min(calls, key=lambda c: c.col_offset)  # the outermost call of the line
        return Site(self.path, line, n.col_offset + 1, n.end_lineno, (n.end_col_offset or 0) + 1)

    def def_site(self) -> Site:
        line = int(self.entry.get("def_line") or self.entry.get("line") or 1)
        text = self.source_lines[line - 1] if 0 < line <= len(self.source_lines) else ""
        col = len(text) - len(text.lstrip()) + 1
        return Site(self.path, line, col, line, len(text) + 1)

    def definition(self) -> Related:
        """The function's definition as a related location of a finding made elsewhere."""
        return self.def_site().related(f"`{self.qualname.rsplit('.', 1)[-1]}` is defined here")

    def enclosing_loop(self, line: int, path: str | None = None) -> Loop | None:
        """The innermost Python ``for``/``while`` whose body contains ``line``, or the
        ``for`` clause of a comprehension whose element does, in the checked file or
        in ``path`` (a project file the traced code calls into)."""
        tree = self.tree if path is None or self.is_checked_file(path) else _source(path)[1]
        if tree is None:
            return None
        best: Loop | None = None
        best_line = -1
        for n in ast.walk(tree):
            if isinstance(n, (ast.For, ast.AsyncFor, ast.While)) and n.body:
                if n.body[0].lineno <= line <= (n.body[-1].end_lineno or n.lineno) and n.lineno > best_line:
                    best, best_line = n, n.lineno
            elif isinstance(n, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)) and n.generators:
                elt = n.elt if not isinstance(n, ast.DictComp) else n.key
                if elt.lineno <= line <= (getattr(n, "end_lineno", None) or elt.lineno) and n.lineno > best_line:
                    best, best_line = n.generators[0], n.lineno
        return best

    # ------------------------------------------------------------------ names of constants
    def name_of_value(self, value, site: Site | None = None) -> str | None:
        """The global or closed-over name whose value is (or views) ``value``: searched
        in the traced function's closure and globals, then in the module of ``site``."""
        arr = _adapter().const_array(value)
        fn = self.function
        scopes: list[Mapping[str, Any]] = []
        if fn is not None:
            code = getattr(fn, "__code__", None)
            cells = getattr(fn, "__closure__", None) or ()
            if code is not None and cells:
                try:
                    scopes.append({n: c.cell_contents for n, c in zip(code.co_freevars, cells)})
                except ValueError:  # empty cell
                    pass
            scopes.append(getattr(fn, "__globals__", {}) or {})
            owner = getattr(fn, "__self__", None)  # a jitted bound method: its instance's attributes
            if code is not None and code.co_argcount and isinstance(getattr(owner, "__dict__", None), dict):
                me = code.co_varnames[0]
                scopes.append({f"{me}.{k}": v for k, v in vars(owner).items()})
        if site is not None and not _same_file(site.path, self.path):
            import sys

            for mod in list(sys.modules.values()):
                f = getattr(mod, "__file__", None)
                if f and _same_file(f, site.path):
                    scopes.append(vars(mod))
                    break
        import numpy as np

        def same(v) -> bool:
            if isinstance(v, np.ndarray) and arr is not None and v.size >= 16 and v.size * v.itemsize >= 1024:
                try:
                    return bool(np.shares_memory(v, arr))
                except Exception:
                    return False
            return False

        for scope in scopes:
            for name, v in list(scope.items()):
                if v is value:
                    return name
        for scope in scopes:
            for name, v in list(scope.items()):
                if same(v):
                    return name
        # held by an object or a container the function reads (`model(x)` where `model.w`
        # is the array, `PARAMS['w']`): its path from the name
        for scope in scopes:
            found = _path_in_objects(scope, lambda v: v is value or same(v))
            if found is not None:
                return found
        return None

    def capture_of(self, value, uses: Sequence[Site]) -> tuple[str | None, Site | None, Related | None]:
        """(name, where the traced function takes hold of ``value``, where the name is
        assigned or bound, as a related location) for a captured constant used at
        ``uses``. An argument bound by ``functools.partial`` is captured where the
        function is jitted (and bound where the partial is made); a global, a
        closed-over variable or an object holding the array, on the traced function's
        own line that leads to the use (a lambda's ``foo(y, W)``, the closure's ``x @ w``,
        ``model(x)``; see :meth:`_capture_frame`)."""
        if self.bound is not None:
            call = self._partial_call()
            name = _partial_leaf_name(self.bound, value, self.function, _bound_arg_texts(call))
            if name is not None:
                made = Site(self.path, call.lineno, call.col_offset + 1) if call is not None else None
                return name, self.entry_site(), made.related(
                    f"`{name.split('[', 1)[0]}` is bound here") if made is not None else None
        site = uses[0] if uses else None
        name = self.name_of_value(value, site)
        if name is None:
            return None, None, None
        capture = self._capture_frame(name)
        # `params['w']` and `self.table` as assigned; `model.w` where `model` is
        what = name.split("[", 1)[0]
        assigned = self._assignment(what, capture or site)
        if assigned is None and _root_name(name) != what:
            assigned, what = self._assignment(_root_name(name), capture or site), _root_name(name)
        return name, capture, assigned.related(f"`{what}` is assigned here") if assigned is not None else None

    def _partial_call(self) -> ast.Call | None:
        """The ``partial(...)`` call jit wrapped: on the jit line, or assigned to a name
        the jit line passes (``g = partial(apply, params)`` ... ``jax.jit(g)``)."""
        tree = self.tree
        line = int(self.entry.get("line") or 0)
        if tree is None or not line:
            return None
        names = set()
        for n in ast.walk(tree):
            if isinstance(n, ast.Call) and n.lineno <= line <= (n.end_lineno or n.lineno):
                if _is_partial(n):
                    return n
                names |= {a.id for a in n.args if isinstance(a, ast.Name)}
        best: tuple[int, ast.Call] | None = None  # (line, the partial call) of the last assignment
        for n in ast.walk(tree):
            if isinstance(n, ast.Assign) and n.lineno < line and isinstance(n.value, ast.Call) \
                    and _is_partial(n.value) and any(isinstance(t, ast.Name) and t.id in names for t in n.targets):
                if best is None or n.lineno > best[0]:
                    best = (n.lineno, n.value)
        return best[1] if best is not None else None

    def _capture_frame(self, name: str) -> Site | None:
        """The outermost frame of the constant's first consumer whose line reads the name
        (``model`` of ``model.w``): where the traced code takes hold of it (the lambda's
        ``foo(y, W)``, ``model(x)`` when the module-level ``model`` holds the array, the
        helper's ``x @ W`` when ``W`` is the helper's global)."""
        pattern = re.compile(rf"(?<![\w.]){re.escape(_root_name(name))}\b")
        for f in reversed(self._consumer_frames):
            lines = _source(os.path.abspath(f.file))[0]
            if 0 < f.line <= len(lines) and pattern.search(lines[f.line - 1]):
                return Site(os.path.abspath(f.file), f.line, f.column, f.end_line, f.end_column)
        return None

    def own_line_of_consumer(self) -> Site | None:
        """The line of the traced function's own body that leads to the constant's first
        consumer (``helper(x)`` when the helper reads the array), or None."""
        own = [f for f in self._consumer_frames if self._in_body(f)]
        if not own:
            return None
        f = own[-1]
        return Site(os.path.abspath(f.file), f.line, f.column, f.end_line, f.end_column)

    def _in_body(self, f: adapter.Frame) -> bool:
        """The frame's line is in the traced function's own source (its body, nested
        functions and lambdas included)."""
        code = getattr(self.function, "__code__", None)
        if code is None or not _same_file(f.file, code.co_filename):
            return False
        first, last = self._span(code)
        return first <= f.line <= last

    def consumer_frames(self, eqns) -> None:
        """Remember the user frames of a constant's first consumer (read by :meth:`capture_of`)."""
        for e in eqns:
            frames = self.user_frames(e)
            if frames:
                self._consumer_frames = frames
                return
        self._consumer_frames = []

    def _assignment(self, name: str, site: Site | None) -> Site | None:
        """Where ``name`` is assigned in the file that uses it: the last assignment
        before the traced function's definition (a global or an enclosing function's
        local), else the first."""
        code = getattr(self.function, "__code__", None)
        path = site.path if site is not None else code.co_filename if code is not None else self.path
        if code is not None and not _same_file(code.co_filename, path):
            code = None
        tree = _source(os.path.abspath(path))[1]
        if tree is None:
            return None
        found: list[ast.Assign | ast.AnnAssign | ast.AugAssign] = []
        owner, _, attr = name.partition(".")  # `self.table`: assigned as an attribute (in __init__)
        for n in ast.walk(tree):
            if isinstance(n, ast.Assign):
                targets = n.targets
            elif isinstance(n, (ast.AnnAssign, ast.AugAssign)):
                targets = [n.target]
            else:
                continue
            for t in targets:
                for x in ast.walk(t):
                    if (isinstance(x, ast.Name) and x.id == name) or (
                            attr and isinstance(x, ast.Attribute) and x.attr == attr
                            and isinstance(x.value, ast.Name) and x.value.id == owner):
                        found.append(n)
        if not found:
            return None
        limit = code.co_firstlineno if code is not None else 10 ** 9
        before = [n for n in found if n.lineno < limit]
        n = max(before, key=lambda n: n.lineno) if before else min(found, key=lambda n: n.lineno)
        return Site(os.path.abspath(path), n.lineno, n.col_offset + 1)

    # ------------------------------------------------------------------ reporting
    def report(self, where: Site | None, message: str, *, severity: Severity | None = None,
               data: Mapping[str, Any] | None = None, related: Sequence[Related] = (), key: str = "") -> None:
        """Report a finding at ``where`` (the function's ``def`` when None). ``key``: what
        tells this finding from others of the rule in the function, line-independent and
        free of measured figures (default: the reported line's code), for the baseline."""
        site = where if where is not None else self.def_site()
        if not key:
            key = " ".join(self.line_text(site).split("#", 1)[0].split())[:200]
        self.diagnostics.append(measured_diagnostic(
            self.rule, self.measured_in(), message=message, path=site.path,
            start=Position(site.line, site.column),
            end=Position(site.end_line or site.line, site.end_column or site.column),
            key=key, severity=severity, related=related, data=data))

    def line_text(self, site: Site) -> str:
        """The source line of ``site`` ("" when it cannot be read)."""
        lines = self.source_lines if self.is_checked_file(site.path) else _source(site.path)[0]
        return lines[site.line - 1] if 0 < site.line <= len(lines) else ""

    def measured_in(self) -> MeasuredIn:
        """What every finding of this function carries: its name, the versions, where its
        inputs came from and whether its shapes were symbolic."""
        inputs = shapes = None
        if self.spec:
            inputs = self.spec.get("source", "?")
            if self.symbolic is not None:
                shapes = "symbolic" if self.symbolic else "concrete"
        return MeasuredIn(self.qualname, dict(self.versions), inputs, shapes, self.redefined_at)


# ---------------------------------------------------------------------------- running rules and levels
# One code path for every place a traced function is analysed: the dynamic phase's
# worker (abstract inputs) and a program observed by `jaxlint record` (its real calls).

#: what a level computes for its rules: ``fn(fa)`` leaves its results in ``fa``'s fields
#: (the compile tier: ``fa.compile_facts``) and may raise to mark the level failed for
#: that function
Analyser = Callable[["FunctionAnalysis"], None]
#: level -> its analysers, handed in by whoever runs the analysis (the worker, the
#: recorder's observer, ``inspect``): this package imports no level of its own
Analysers = Mapping[str, Sequence[Analyser]]


def run_analysers(fa: FunctionAnalysis, level: str, analysers: Analysers) -> None:
    """The analysers of ``level`` (after the trace, before the level's rules)."""
    if level not in analysers:
        raise RuntimeError(f"no analyser given for level {level!r}")
    for analyser in analysers[level]:
        analyser(fa)


def called_once(calls: int | None, inlined: int = 0) -> bool:
    """Whether a recording saw a function called exactly once, never inside another
    function's trace: the findings of rules marked ``repeated_calls_only`` are then not
    problems of this program. ``calls`` None: not recorded (unknown)."""
    return calls == 1 and not inlined


def recorded_calls(signatures: Sequence[Any]) -> int | None:
    """The calls the recording counted over ``signatures`` (None when one lacks a count)."""
    counts = [c for s in signatures if isinstance(s, Mapping) and isinstance(c := s.get("calls"), int)]
    return sum(counts) if counts and len(counts) == len(signatures) else None


def drop_repeated_calls_only(diagnostics: list, rule_of: Callable[[str], Any]) -> list:
    """``diagnostics`` without the findings of rules marked ``repeated_calls_only``."""
    return [d for d in diagnostics if not getattr(rule_of(d.code), "repeated_calls_only", False)]


def run_rules(fa: FunctionAnalysis, rules: Sequence[Any]) -> list[str]:
    """Run ``rules`` on ``fa``, a rule after the rules whose findings it reads
    (``Rule.reads``); a rule's new findings replace the earlier ones they supersede.
    Returns one line per rule that failed (its findings are dropped, the other rules' kept)."""
    errors = []
    spent = fa.rule_seconds
    rules = [r for r in rules if not getattr(r, "program_level", False)]  # the recording's, once per program
    fa.rules_run.update((r.code, type(r)) for r in rules)
    for rule in in_dependency_order(rules):
        fa.rule = type(rule)
        fa.options = rule.opts
        before = len(fa.diagnostics)
        t0 = time.perf_counter()
        try:
            rule.check_function(fa)
        except Exception as e:  # a rule bug must not lose the other rules' findings
            del fa.diagnostics[before:]
            errors.append(f"rule {rule.code} failed on {fa.qualname}: {type(e).__name__}: {e}")
        spent[rule.code] = round(time.perf_counter() - t0, 6)
        _supersede(fa, before)
    return errors


#: the rule an analysis error names: ``rule JAX206 failed on ...`` (:func:`run_rules`, the
#: eager rules), ``JAX304's finding on ... outside the project: left out`` (the recorder)
_RULE_OF_ERROR = re.compile(r"(?:rule )?(JAX\d+)(?: failed on |'s finding on )")


def rule_of_error(error: str) -> str | None:
    """The code of the rule an analysis error is about, or None (a step of jaxlint's own)."""
    found = _RULE_OF_ERROR.match(error)
    return found.group(1) if found else None


def _supersede(fa: FunctionAnalysis, before: int) -> None:
    """The rule's new findings replace the earlier ones they supersede (the problem keeps
    its identity: baseline, SARIF fingerprint)."""
    earlier, new = fa.diagnostics[:before], fa.diagnostics[before:]
    rule = fa.rule
    if rule is not None and new:  # a cause an earlier finding reports at its line: one finding
        earlier, new = absorbed(earlier, new, rule)
    found = replace_earlier(earlier, new, fa.rules_run.get)
    # a prediction the measurement shows is not there
    fa.diagnostics[:] = refuted_predictions(found, rule, fa) if rule is not None else found


def unbind(fun: Any) -> tuple[Any, Any]:
    """(the Python function, the ``functools.partial`` around it or None) of what jit
    wrapped: partials and decorator chains removed."""
    bound = None
    seen = 0
    while seen < 16:
        seen += 1
        if isinstance(fun, functools.partial):
            bound = bound or fun
            fun = fun.func
        elif hasattr(fun, "__wrapped__"):
            fun = fun.__wrapped__
        else:
            break
    return fun, bound


def _root_name(name: str) -> str:
    """``model`` of ``model.layers[0].w``: the name the code reads."""
    return re.split(r"[.\[]", name, maxsplit=1)[0]


#: what is never searched for a captured array (see :func:`_path_in_objects`)
_OPAQUE = (str, bytes, int, float, complex, bool, type(None), type, type(os), functools.partial)


def _path_in_objects(scope: Mapping[str, Any], match: Callable[[Any], bool], depth: int = 3,
                     budget: int = 4000) -> str | None:
    """``model.layers[0].w``: the path from a name of ``scope`` to a value ``match``
    accepts, through instance attributes, lists, tuples and dicts (breadth first, at most
    ``depth`` steps and ``budget`` values looked at)."""
    import types

    todo: list[tuple[str, Any, int]] = [(k, v, 0) for k, v in list(scope.items()) if not k.startswith("__")]
    seen: set[int] = set()
    i = 0
    while i < len(todo) and i < budget:
        path, obj, d = todo[i]
        i += 1
        if id(obj) in seen or isinstance(obj, _OPAQUE) or callable(obj) and isinstance(
                obj, (types.FunctionType, types.BuiltinFunctionType, types.MethodType)):
            continue
        seen.add(id(obj))
        if d and match(obj):
            return path
        if d >= depth:
            continue
        if isinstance(obj, dict):
            items = [(f"{path}[{k!r}]", v) for k, v in list(obj.items())[:64] if isinstance(k, (str, int))]
        elif isinstance(obj, (list, tuple)):
            items = [(f"{path}[{j}]", v) for j, v in enumerate(obj[:64])]
        else:
            attrs = getattr(obj, "__dict__", None)
            if not isinstance(attrs, dict) or type(obj).__module__ in ("builtins", "numpy") \
                    or type(obj).__module__.startswith(("jax", "jaxlib", "numpy")):
                continue
            items = [(f"{path}.{k}", v) for k, v in list(attrs.items())[:64] if not k.startswith("__")]
        todo.extend((p, v, d + 1) for p, v in items)
    return None


def _is_partial(call: ast.Call) -> bool:
    return bool(call.args) and (getattr(call.func, "attr", None) == "partial"
                                or getattr(call.func, "id", None) == "partial")


def _bound_arg_texts(call: ast.Call | None) -> dict[int | str, str]:
    """The source text of the arguments a ``partial(...)`` binds (``{0: "params"}``),
    so a constant is named as the user wrote it."""
    out: dict[int | str, str] = {}
    if call is None:
        return out
    for i, a in enumerate(call.args[1:]):
        if isinstance(a, (ast.Name, ast.Attribute, ast.Subscript)):
            out[i] = ast.unparse(a)
    for k in call.keywords:
        if k.arg and isinstance(k.value, (ast.Name, ast.Attribute, ast.Subscript)):
            out[k.arg] = ast.unparse(k.value)
    return out


def _partial_leaf_name(bound: Any, value, function: Any, texts: Mapping[int | str, str]) -> str | None:
    """``params['w1']``: the path of ``value`` among a partial's bound arguments, named
    as the jit line writes them (``texts``), else by the function's parameters."""
    import jax

    arr = _adapter().const_array(value)
    try:
        import inspect

        params = list(inspect.signature(function).parameters)
    except (TypeError, ValueError):
        params = []
    named = [(texts.get(i) or (params[i] if i < len(params) else f"<arg {i}>"), a) for i, a in enumerate(bound.args)]
    named += [(texts.get(k) or k, v) for k, v in bound.keywords.items()]
    for top, tree in named:
        for path, leaf in jax.tree_util.tree_flatten_with_path(tree)[0]:
            if leaf is value or _shares(leaf, arr):
                return top + jax.tree_util.keystr(path)
    return None


def _shares(leaf, arr) -> bool:
    if arr is None:
        return False
    try:
        import numpy as np

        mine = _adapter().const_array(leaf)
        return mine is not None and mine.size >= 16 and mine.shape == arr.shape and bool(np.shares_memory(mine, arr)) \
            or (mine is not None and mine.shape == arr.shape and mine.dtype == arr.dtype and mine.size >= 16
                and bool((mine == arr).all()))
    except Exception:
        return False


def read_code(path: str) -> str:
    """A code file's text; for code that is in no file on disk, what ``linecache`` keeps
    of it (IPython keeps each Jupyter cell it ran there). OSError when there is neither."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        import linecache

        name = os.path.basename(path) if os.path.basename(path).startswith("<") else path
        lines = linecache.getlines(name)
        if not lines:
            raise
        return "".join(lines)


@functools.lru_cache(maxsize=64)
def _source(path: str) -> tuple[list[str], ast.Module | None]:
    """Lines and syntax tree of a file, read once per worker (every function of a
    file shares them)."""
    try:
        text = read_code(path)
    except OSError:
        return [], None
    try:
        return text.splitlines(), ast.parse(text)
    except (SyntaxError, ValueError):
        return text.splitlines(), None


@functools.lru_cache(maxsize=4096)
def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.abspath(a) == os.path.abspath(b)
