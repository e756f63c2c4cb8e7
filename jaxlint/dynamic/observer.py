"""Observed analysis: a program that ``jaxlint record`` runs analyses its own jitted functions.

The recorder (:mod:`jaxlint.dynamic.recorder`) hands every call of a jitted function of
the project to :meth:`Observer.call`. At the first call of each new signature the call
is observed:

* **trace tier**: the function is traced with the call's real arguments (``jitted.trace``
  shares jax's trace cache with the call that follows, so the program traces once),
  and the selected trace rules (JAX2xx) run on that jaxpr through
  :func:`jaxlint.dynamic.analysis.run_rules`, the worker's code path;
* **compile tier** (``record --compile``): the executable XLA builds for the program's
  own call is captured (:func:`jaxlint.dynamic.adapter.capture_compiles`) and read as
  ``check --dynamic --compile`` reads a compile: nothing is compiled twice;
* **recompilation**: every call counts the compiles it caused, so what jax really
  compiled (a call inside another function's trace is inlined there, never a compile
  of its own) and the user line of the call that caused each compile are known; the
  rules that read signatures run on them when the process ends.

Everything here runs inside the user's program, so nothing may change what it does:
each analysis step is guarded, and the program's call, its result, its exceptions and
its warnings are its own. Results are written by the recorder at exit (and after
every observed call) as ``observed-<pid>.json``; ``jaxlint record`` merges them into
``.jaxlint/observed.json`` (:mod:`jaxlint.dynamic.observed`).
"""
from __future__ import annotations

import ast
import os
import sys
import threading
import time
import warnings
import weakref
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any, Callable, Iterator, Protocol

from jaxlint import __version__
from jaxlint.dynamic import adapter, placement
from jaxlint.dynamic.project import relative_finding, relative_path, set_project
from jaxlint.dynamic.signatures import jit_static_argnums, static_positions
from jaxlint.dynamic.analysis import (Analysers, CallFacts, FunctionAnalysis, Site, called_once, run_analysers, run_rules,
                                      unbind)

if TYPE_CHECKING:
    from jaxlint.dynamic.signatures import Call, Signature


def _same_function(fun: Any, first: Any) -> bool:
    """Whether ``fun`` is the function ``first`` (a bound method: of the same object)."""
    if fun is first:
        return True
    return hasattr(fun, "__self__") and hasattr(fun, "__func__") and \
        getattr(fun, "__self__", None) is getattr(first, "__self__", None) and \
        getattr(fun, "__func__", None) is getattr(first, "__func__", None)


class FunctionState:
    """What the program did with one jitted function, and what its analysis found."""

    def __init__(self, key: str, meta: dict, fun: Any, observer: "Observer") -> None:
        self.key = key
        self.meta = meta
        self.fun = fun
        #: the project file that defines the function (its settings, its observation's key)
        self.home = str((observer.root / meta["file"]).resolve())
        #: the file of its code: ``home``, or the cell file a Jupyter kernel ran it from
        #: (``record_state.notebook_cell``; analysed in that file's lines, placed in the notebook
        #: when written)
        self.path = meta.get("code_file") or self.home
        self.entry = observer.entry_for(self.path, dict(meta, line=meta.get("code_line", meta["line"])))
        self.calls = 0
        self.inlined = 0
        #: `record --target`: the first call's arguments, abstract, and the jitted object
        self.target_args: tuple = (None, None)
        self.rec: Any = None
        #: canonical signature -> {"sig", "calls", "compiles", "first_call", "compile_seconds"}
        self.sigs: dict[str, dict] = {}
        #: each jitted function object that called it (its serial) -> whether it wraps ``fun``
        #: itself (the same function jitted again, as a function that jits per run does) rather
        #: than another function of the same code (a factory's closure, a partial)
        self.same_fun: dict[int, bool] = {}
        self.diagnostics: list = []
        self.status = "called"  # -> analysed | failed | skipped (| inlined: only inside other traces)
        self.reason: str | None = None
        self.traced = False
        self.compiled = False
        self.report: dict | None = None
        self.rule_errors: list[str] = []
        self.first_call: tuple[str, int, int] | None = None
        #: arguments a call gave holding one array at two places (:func:`_sharing`)
        self.sharing: set[str] = set()
        self.ir: dict | None = None
        self.seconds = 0.0
        #: file -> the lines of it the traces entered (what the observation rests on)
        self.lines: dict[str, set[int]] = {}
        #: (analysis, rules) of the rules that read what the caller does with the
        #: arguments (``reads_callers``), waiting for it to be seen (:meth:`Observer.callers`)
        self.waiting: list[tuple[FunctionAnalysis, list]] = []
        #: what the latest first call of a signature returned (:func:`_returned`): (its
        #: signature's seq, {id of an output array: (a weak reference to it, its flat index)},
        #: per flat output the project line that made it or None); None before
        self.returned: tuple | None = None

    def analysis(self, observer: "Observer", site: tuple[str, int, int] | None, fun: Any = None) -> FunctionAnalysis:
        """``fun``: the jitted function of the call analysed (``a.step`` or ``b.step`` of
        one method), else the first one the program called."""
        where = f"{relative_path(site[0], observer.root)}:{site[1]}" if site else "?"
        fa = FunctionAnalysis(path=self.path, module=self.meta["module"], qualname=self.meta["qualname"],
                              entry=self.entry, spec={"source": "observed", "where": where},
                              versions=observer.versions, signatures=self.signature_records(observer),
                              redefined_at=_definition(self.key, self.meta["qualname"]),
                              x64_policy=observer.x64_policy(self.path))
        fa.wrapped = self.fun if fun is None else fun
        fa.function, fa.bound = unbind(fa.wrapped)
        fa.reused = observer.reused.get(self.key) or {}
        return fa

    def signature_records(self, observer: "Observer") -> list[Signature]:
        """Every signature the program called the function with at top level, with what
        jax really compiled for it and the user line of its first call."""
        out = []
        several = len({j for s in self.sigs.values() for j in s.get("jits") or ()}) > 1
        for s in self.sigs.values():
            sig: Signature = s["sig"]
            rec: Signature = {**sig, "calls": s["calls"], "compiles": s["compiles"], "seq": s["seq"]}
            if s.get("wrappers"):  # jitted function objects that compiled it (a fresh jit per call)
                rec["wrappers"] = s["wrappers"]
            if s.get("objects", 1) > 1:  # jitted function objects that called it, and what their first calls cost
                rec["jit_objects"] = s["objects"]
                rec["fresh_seconds"] = round(s.get("fresh_seconds", 0.0), 6)
            if several and s.get("jits"):  # the jitted function objects that called it (numbered per process)
                rec["jit_ids"] = list(s["jits"])
                if all(self.same_fun.get(j) for j in s["jits"]):  # each of them a jit of the function itself
                    rec["same_function"] = True
            if s.get("first_call"):
                rec["first_call"] = _call(s["first_call"])
            if s.get("program"):  # its program's digest without the leaves it never reads, and those
                rec["program"] = s["program"]
                if s.get("unread"):
                    rec["unread"] = s["unread"]
            if s.get("again_at"):
                rec["again_at"] = _call(s["again_at"])
            if s.get("fed"):  # leaves of its first call that the previous first call returned
                rec["fed"] = s["fed"]
            out.append(rec)
        return out


class RecorderLink(Protocol):
    """What the observer reaches of the recorder that made it: handed in
    (:class:`jaxlint.dynamic.record_state.Recorder`), so this module imports nothing of the
    recorder's."""

    def error(self, doing: str, e: BaseException) -> None: ...

    def in_project(self, filename: str) -> bool: ...


class Observer:
    def __init__(self, root: Path, levels: list[str], keep_ir: bool,
                 analysers: Callable[[], Analysers] | None, recorder: RecorderLink) -> None:
        self.root = root
        set_project(recorder.in_project)  # frames outside the project are libraries', wherever installed
        #: the recorder's failures and the project's files (``jaxlint.dynamic.record_state.RECORDER``)
        self.recorder = recorder
        self.levels = levels
        self.keep_ir = keep_ir
        #: the levels past the trace (``compile``, ``ir``), loaded at their first use
        self._load_analysers = analysers
        self._analysers: Analysers | None = None
        self.versions = adapter.versions()
        self.functions: dict[str, FunctionState] = {}
        self.lock = threading.RLock()
        self._models: dict[str, Any] = {}
        self._rules: dict[str, dict[str, list]] = {}
        self.errors: list[str] = []
        #: something new was observed since the records were last written
        self.dirty = False
        #: order of first calls of signatures, across functions
        self.seq = 0
        #: the scopes of the project's files, each read once (``codedigest``)
        from jaxlint.dynamic.codedigest import Reader

        self.scopes = Reader()
        self._x64: dict[str, str | None] = {}
        #: function key -> {argument: whether the caller used it again after a call}
        #: (:mod:`jaxlint.dynamic.callers`); ``settled``: every watched call was judged
        self.reused: dict[str, dict[str, bool]] = {}
        self.settled: set[str] = set()

    def x64_policy(self, path: str) -> str | None:
        """Where the program made float64 its policy (its code turns ``jax_enable_x64`` on,
        or it runs with ``JAX_ENABLE_X64`` set), when x64 is on now; None when it is off."""
        if not adapter.x64_enabled():
            return None
        if path not in self._x64:
            from jaxlint.static.project import program_x64

            main = getattr(sys.modules.get("__main__"), "__file__", None)
            self._x64[path] = program_x64(path, self.root, dict(os.environ), main) or self._library_x64()
        return self._x64[path]

    def _library_x64(self) -> str | None:
        """Where a library the program imported turns ``jax_enable_x64`` on (netket does
        when imported, as its documented default), as a sentence part, when x64 is on and
        neither the program's code nor its environment turns it on: the first imported
        module outside jax, jaxlib, jaxlint and the project whose code sets it to True
        (``netket/jax/_config.py:12 turns jax_enable_x64 on, imported by the program``);
        None when none does. Read once per process (only the files of imported modules
        that name the flag are scanned)."""
        if "library" not in self._x64:
            from jaxlint.static.project import x64_policy

            found = None
            for name, module in sorted(list(sys.modules.items())):
                file = getattr(module, "__file__", None)
                if not isinstance(file, str) or not file.endswith(".py") or self.recorder.in_project(file) \
                        or name.split(".", 1)[0] in ("jax", "jaxlib", "jaxlint") or not adapter.is_library_file(file):
                    continue
                try:
                    with open(file, "rb") as f:
                        data = f.read(_LIBRARY_BYTES)
                except OSError:
                    continue
                policy = x64_policy(data) if b"jax_enable_x64" in data else None
                if policy is not None and policy[1] == "turns jax_enable_x64 on":
                    found = f"`{name}` ({_library_path(file)}:{policy[0]}) turns jax_enable_x64 on, imported by the program"
                    break
            self._x64["library"] = found
        return self._x64["library"]

    # ------------------------------------------------------------------ setup

    def state(self, key: str, meta: dict, fun: Any) -> FunctionState:
        with self.lock:
            fs = self.functions.get(key)
            if fs is None:
                fs = self.functions[key] = FunctionState(key, meta, fun, self)
            return fs

    def analysers(self) -> Analysers:
        if self._analysers is None:
            if self._load_analysers is None:
                raise RuntimeError("no analysers were given for the levels past the trace")
            self._analysers = self._load_analysers()
        return self._analysers

    def rules_for(self, path: str) -> dict[str, list]:
        """Every trace and compile rule, with the options the nearest config of ``path``
        gives it, by phase: selected there or not, so that the recording serves any later
        selection (``check --select JAX2`` after a recording made with the defaults; it
        keeps the selected rules' findings) and goes out of date only when the code or a
        rule's options change."""
        folder = str(Path(path).parent)
        hit = self._rules.get(folder)
        if hit is None:
            from jaxlint.files.discovery import SettingsResolver
            from jaxlint.registry import every_rule

            settings = SettingsResolver(None, False, {}).for_dir(Path(folder))
            hit = {}
            for r in every_rule(settings, tuple(self.levels)):
                if r.role is None:
                    hit.setdefault(r.phase.value, []).append(r)
            self._rules[folder] = hit
        return hit

    def rules_digest(self, path: str) -> str:
        from jaxlint.dynamic.observed import rules_digest

        return rules_digest(r for rs in self.rules_for(path).values() for r in rs)

    def rule_options(self, path: str) -> dict[str, str]:
        from jaxlint.dynamic.observed import rule_options

        return rule_options(r for rs in self.rules_for(path).values() for r in rs)

    def entry_for(self, path: str, meta: dict) -> dict:
        """The static jit map's entry of the function (where it is jitted, its def line,
        its transform), else one built from what the program knows."""
        model = self._model(path, meta["module"])
        line = int(meta["line"])
        if model is not None:
            tree, entries = model
            def_line = _def_line(tree, line, meta["qualname"]) or line
            # a name defined twice (a notebook's later cell): the entry of this definition first
            mine = [e for e in entries if e.def_line == def_line] + list(entries)
            for e in mine:
                if e.qualname == meta["qualname"] or (e.def_line == def_line and e.kind == meta["kind"]):
                    d = e.to_dict()
                    d["def_line"] = def_line
                    return d
        else:
            def_line = line
        return {"kind": meta["kind"], "qualname": meta["qualname"], "name": meta["qualname"].rsplit(".", 1)[-1],
                "line": int(meta.get("jit_line") or def_line), "column": 1, "def_line": def_line, "form": "call",
                "static_argnums": jit_static_argnums(meta), "static_argnames": meta.get("static_names", []),
                "partial_bound": meta.get("partial_bound", 0)}

    def _model(self, path: str, module: str):
        if path not in self._models:
            try:
                from jaxlint.dynamic.analysis import read_code
                from jaxlint.static.semantic import ModuleModel

                tree = ast.parse(read_code(path))
                self._models[path] = (tree, list(ModuleModel(tree, module).entries))
            except Exception as e:  # a file we cannot read or parse: the program's facts alone
                self.recorder.error("reading a source file's jit map", e)
                self._models[path] = None
        return self._models[path]

    # ------------------------------------------------------------------ the caller
    def callers(self, key: str, reused: dict[str, bool], final: bool) -> None:
        """What the program did with ``key``'s arguments after the calls watched so far
        (:mod:`jaxlint.dynamic.callers`); once ``final``, the rules waiting for it run."""
        with self.lock:
            self.reused[key] = dict(reused)
            fs = self.functions.get(key)
            if not final or fs is None:
                return
            self.settled.add(key)
            waiting, fs.waiting = fs.waiting, []
        for fa, rules in waiting:
            self._run_waiting(fs, fa, rules)

    def _run_waiting(self, fs: FunctionState, fa: FunctionAnalysis, rules: list) -> None:
        """Run the rules that read the caller's reuse on an analysis kept for them."""
        try:
            fa.reused = self.reused.get(fs.key) or {}
            if fa.compile_facts is not None:
                fa.compile_facts.reused = dict(fa.reused)
            errors = run_rules(fa, rules)
            with self.lock:
                fs.rule_errors += errors
                _add_new(fs.diagnostics, fa.diagnostics)
                self.dirty = True
        except Exception as e:  # never break the user's program
            fs.rule_errors.append(f"jaxlint could not finish the analysis of {fs.meta['qualname']}: {e}")

    # ------------------------------------------------------------------ one call
    def call(self, rec: Any, args: tuple, kwargs: dict, canon: str, sig: Signature) -> Any:
        """Run the program's call of ``rec`` (a recorded jitted function), observing it
        when it is the first of its signature; returns (or raises) what the call does."""
        fs, cur, first_of_sig, fresh = self._count(rec, canon, sig)
        site = call_site(self.recorder.in_project) if first_of_sig else None
        traced = error = None
        donated: tuple = ()
        shardings: tuple = ()
        if first_of_sig:
            traced, error, donated, shardings = self._first(fs, cur, rec, args, kwargs, sig, site)
        caught: list = []
        with adapter.capture_compiles() as compiles:
            if first_of_sig:
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    try:
                        result = rec._jitted(*args, **kwargs)
                    except BaseException:
                        self._after(fs, cur, traced, error, compiles, caught, site, donated, rec._fun, shardings)
                        self.dirty = True
                        raise
            elif fresh:  # a new jitted function object's first call of a signature compiled before
                t0 = time.thread_time()  # CPU time: the wall clock moves with the machine's load
                result = rec._jitted(*args, **kwargs)
                spent = time.thread_time() - t0 + rec._made  # its making and its first call
                with self.lock:
                    cur["fresh_seconds"] = cur.get("fresh_seconds", 0.0) + spent
            else:
                result = rec._jitted(*args, **kwargs)
        if first_of_sig:
            _reemit(caught)
            self._keep_returned(fs, cur, traced, result)
            # the call ran: a buffer donated and passed again that XLA could not alias to an
            # output was kept, and nothing was refused (a refused call raised, above)
            donated = _deleted_by_the_call(donated)
            self._after(fs, cur, traced, error, compiles, caught, site, donated, rec._fun, shardings)
            self.dirty = True
        elif compiles:
            self._again(fs, cur, rec, compiles)
        return result

    def called(self, rec: Any, args: tuple, kwargs: dict, canon: str, sig: Signature, compiles: list,
               out: Any = None, has_out: bool = False) -> None:
        """A call of ``rec`` the recorder learnt was not the signature it expected only
        after it ran (``compiles``: what it compiled, read after it; ``out``: what it
        returned, where ``has_out``): counted, and analysed as :meth:`call` does when its
        signature is new, from the same arguments; what the call warned is not seen (it
        was not caught). Never raises."""
        try:
            fs, cur, first_of_sig, _ = self._count(rec, canon, sig)
            if not first_of_sig:
                if compiles:
                    self._again(fs, cur, rec, compiles)
                return
            site = call_site(self.recorder.in_project)
            traced, error, donated, shardings = self._first(fs, cur, rec, args, kwargs, sig, site)
            if has_out:
                self._keep_returned(fs, cur, traced, out)
            donated = _deleted_by_the_call(donated)  # read after the call ran, as in `call`
            self._after(fs, cur, traced, error, compiles, [], site, donated, rec._fun, shardings)
            self.dirty = True
        except Exception as e:
            self.recorder.error("analysing a call after it ran", e)

    def _count(self, rec: Any, canon: str, sig: Signature) -> tuple[FunctionState, dict, bool, bool]:
        """Count a call of ``rec`` with the signature ``canon``: (its function's state, the
        signature's counters, whether it is the signature's first call, whether it is the
        first call of the signature by a jitted function object made after every one
        that called it before: a ``jax.jit(f)`` made again, as in a loop)."""
        fs = self.state(rec._key, rec._meta, rec._fun)
        with self.lock:
            fs.calls += 1
            cur = fs.sigs.get(canon)
            first_of_sig = cur is None
            fresh = False
            if cur is None:
                fs.same_fun.setdefault(rec._serial, _same_function(rec._fun, fs.fun))
                self.seq += 1
                cur = fs.sigs[canon] = {"sig": sig, "calls": 0, "compiles": 0, "first_call": None,
                                        "compile_seconds": 0.0, "seq": self.seq, "wrapper": rec._serial,
                                        "jits": [rec._serial], "objects": 1, "last_jit": rec._serial}
            else:
                if rec._serial not in cur["jits"] and len(cur["jits"]) < _JITS_KEPT:
                    # another jitted function object of it (a factory's jit per closure, or a
                    # jit made per call): its first call with this signature
                    cur["jits"].append(rec._serial)
                    fs.same_fun.setdefault(rec._serial, _same_function(rec._fun, fs.fun))
                if rec._serial > cur["last_jit"]:  # serials grow: made after every one before
                    cur["last_jit"] = rec._serial
                    cur["objects"] += 1
                    fresh = True
            cur["calls"] += 1
        return fs, cur, first_of_sig, fresh

    def _first(self, fs: FunctionState, cur: dict, rec: Any, args: tuple, kwargs: dict, sig: Signature,
               site: tuple[str, int, int] | None) -> tuple[Any, Exception | None, tuple, tuple]:
        """What the first call of a signature is analysed from: (its trace, the trace's
        error, pairs of donated arguments that are one buffer, the arguments' shardings)."""
        traced = error = None
        donated: tuple = ()
        shardings: tuple = ()
        try:  # the mesh and the partition specs the program's call compiled with
            shardings = tuple(adapter.array_shardings((args, kwargs)))
        except Exception as e:
            self.recorder.error("reading the arguments' shardings", e)
        try:
            donated = _donated_twice(fs, args, kwargs)
            fs.sharing |= _sharing(fs, args, kwargs)
        except Exception as e:
            self.recorder.error("comparing donated arguments", e)
            donated = ()
        cur["first_call"] = site
        if fs.first_call is None:
            fs.first_call = site
        if fs.returned is not None:  # leaves the previous new signature's call returned, passed back
            try:
                fed = _fed_back(fs.returned, args, kwargs)
                if fed:
                    cur["fed"] = [entry for entry, _ in fed]
                    cur["fed_avals"] = [aval for _, aval in fed]  # read when the call has returned
            except Exception as e:
                self.recorder.error("comparing the arguments with the previous call's outputs", e)
        if placement.active() is not None and "compile" in self.levels:  # `record --target`
            try:
                fs.target_args, fs.rec = placement.abstract((args, kwargs)), rec
            except Exception as e:
                self.recorder.error("reading the arguments for the target", e)
        t0 = time.perf_counter()
        try:
            traced = self._trace(fs, rec, args, kwargs, sig)
        except Exception as e:  # the program's own call will fail the same way
            error = e
        if traced is not None and not sig.get("under"):
            _note_unread(fs, cur, traced, len(args))
        fs.seconds += time.perf_counter() - t0
        return traced, error, donated, shardings

    def _keep_returned(self, fs: FunctionState, cur: dict, traced: Any, result: Any) -> None:
        """Keep (weakly) the arrays the first call of a signature returned, and the project
        line that made each in its traced program: the next new signature's call may be
        passed them back (a state the function returns changed, :func:`_fed_back`)."""
        if fs.meta.get("kind") not in ("jit", "pjit") or (cur.get("sig") or {}).get("under"):
            return
        try:
            avals = cur.pop("fed_avals", None)
            if avals and cur.get("fed"):  # what was passed back, returned again as it was given: a state
                leaves = adapter.flatten(result)[0]
                for entry, (shape, dtype) in zip(cur["fed"], avals):
                    out = entry[2]["out"]
                    if out < len(leaves) and getattr(leaves[out], "shape", None) == shape \
                            and getattr(leaves[out], "dtype", None) == dtype:
                        entry[2]["kept"] = True
            fs.returned = _returned(cur["seq"], traced, result, self.recorder.in_project)
        except Exception as e:
            fs.returned = None
            self.recorder.error("keeping what the call returned", e)

    def _again(self, fs: FunctionState, cur: dict, rec: Any, compiles: list) -> None:
        """The same signature compiled again: note whether the jitted function object was
        another one than the one that compiled it before (a fresh ``jax.jit`` per call),
        and the first call that compiled it again."""
        mine = len(_mine(compiles, fs))
        with self.lock:
            cur["compiles"] += mine
            if not mine:
                return
            if rec._serial != cur.get("wrapper"):
                cur["wrapper"] = rec._serial
                cur["wrappers"] = cur.get("wrappers", 1) + 1
            if cur.get("again_at") is None:
                cur["again_at"] = call_site(self.recorder.in_project)

    def seen(self, rec: Any, canon: str) -> tuple[FunctionState, dict | None]:
        """The state of ``rec``'s function and the counters of its signature ``canon``,
        which :meth:`call` has already observed (None when it has not): the recorder's
        fast path counts later calls of it itself and adds them with :meth:`add_calls`."""
        fs = self.state(rec._key, rec._meta, rec._fun)
        with self.lock:
            return fs, fs.sigs.get(canon)

    def add_calls(self, fs: FunctionState, cur: dict, n: int) -> None:
        with self.lock:
            fs.calls += n
            cur["calls"] += n

    def inlined(self, rec: Any) -> None:
        """A call with tracers: inside another function's trace, inlined there."""
        fs = self.state(rec._key, rec._meta, rec._fun)
        with self.lock:
            fs.inlined += 1

    def _trace(self, fs: FunctionState, rec: Any, args: tuple, kwargs: dict, sig: Signature):
        kind = fs.meta["kind"]
        if sig.get("under"):  # called under an eager jax.vmap/grad: traced for one example
            args, kwargs = adapter.abstract_tracers((args, kwargs))
        if kind in ("jit", "pjit") and hasattr(rec._jitted, "trace"):
            return rec._jitted.trace(*args, **kwargs)
        from jaxlint.dynamic.transforms import PARTITIONED_KINDS, MappedJit, NotTraceable, PartitionedJit

        if kind in PARTITIONED_KINDS:
            return PartitionedJit(kind, adapter.under_jit(rec._fun), jit_static_argnums(fs.meta),
                                  fs.meta.get("static_names", ())).trace(*args, **kwargs)
        if kind == "pmap":  # what pmap mapped, as it mapped it: a partial keeps its bound arguments
            mapped = fs.meta.get("pmap") or {}
            return MappedJit(rec._fun, jit_static_argnums(fs.meta), mapped.get("axis_name"),
                             mapped.get("in_axes", 0), fs.meta.get("donate_nums", ())).trace(*args, **kwargs)
        raise NotTraceable(f"a `{kind}` function without `.trace`")

    def _trace_for_target(self, fs: FunctionState, fa, under: str | None):
        """The function traced again with its call's arguments placed on the target's devices
        (their shapes, dtypes and shardings carried over by axis name)."""
        args, kwargs = fs.target_args
        if under is not None or args is None:
            return fa.traced
        placed = placement.place((args, kwargs))
        return self._trace(fs, fs.rec, placed[0], placed[1], {})

    def _after(self, fs: FunctionState, cur: dict, traced, error, compiles, caught, site, donated=(),
               fun: Any = None, shardings: tuple = ()) -> None:
        """Count what the call compiled and analyse it; never raises."""
        t0 = time.perf_counter()
        donated = tuple(p[:2] for p in donated)  # (donated argument, other argument): the buffers let go
        try:
            mine = _mine(compiles, fs) if compiles is not None else None
            with self.lock:
                if mine:
                    cur["compiles"] += len(mine)
                    cur["compile_seconds"] += sum(c.seconds for c in mine)
                elif mine is None:  # this jax does not show its compiles: a new signature is one
                    cur["compiles"] += 1
            if error is not None and _not_traceable(error):  # jaxlint's emulation, not the user's code
                fs.status, fs.reason = "skipped", str(error)
                return
            if fs.traced and mine is not None and not mine and error is None:
                return  # nothing new was compiled: the same program as before
            self._analyse(fs, traced, error, mine, caught, site, donated, fun, shardings,
                          under=(cur.get("sig") or {}).get("under"))
        except Exception as e:  # never break the user's program
            fs.status, fs.reason = "failed", f"jaxlint could not analyse it: {type(e).__name__}: {e}"
        finally:
            fs.seconds += time.perf_counter() - t0

    def _analyse(self, fs: FunctionState, traced, error, compiles, caught, site, donated=(), fun: Any = None,
                 shardings: tuple = (), under: str | None = None) -> None:
        waiting: list = []  # rules that read the caller, run now (it is known)
        fa = fs.analysis(self, site, fun)
        fa.jitted = None
        fa.traced = traced
        if traced is not None:
            fa.jaxpr = traced.jaxpr
        fa.error = error
        fa.call = CallFacts(Site(*site) if site else None, donated, tuple(str(w.message) for w in caught),
                            shardings, tuple(sorted(fs.sharing)))
        rules = self.rules_for(fs.home)
        # the rules that read every signature of the function run once, at the end
        fs.rule_errors += run_rules(fa, [r for r in rules.get("trace", []) if not r.reads_signatures])
        fs.traced = fs.traced or fa.jaxpr is not None or fa.error is not None  # a trace error is a finding
        for file, line in fa.trace_lines():
            fs.lines.setdefault(file, set()).add(line)
        if fa.jaxpr is not None and "compile" in self.levels:
            # under an eager vmap the program compiled the batched function: the trace is one example's
            captured = _pick(compiles, fs) if under is None else None
            if placement.active() is not None:
                # `record --target`: the program's executable is its own backend's; compile the
                # function for the target instead, from its arguments placed on the target
                captured = None
                fa.traced = self._trace_for_target(fs, fa, under)
            if captured is not None:
                fa.captured = captured
            try:
                run_analysers(fa, "compile", self.analysers())
                aot = _ahead_of_time(fs) if captured is None and under is None else None
                if aot is not None and fa.compile_facts is not None:
                    # the program compiled it before calling it (`.lower(...).compile()`): the call
                    # reused that executable, so the compile here was a cache hit; that one is the real
                    fa.compile_facts.compile_seconds, fa.compile_facts.compile_cpu_seconds = aot.seconds, aot.cpu_seconds
                    if fa.compile_report is not None:
                        fa.compile_report["compile_seconds"] = round(aot.seconds, 4)
                        budget = fa.compile_report.get("budget")
                        if isinstance(budget, dict) and "compile_seconds" in budget:
                            budget["compile_seconds"] = round(aot.seconds, 3)
                now = [r for r in rules.get("compile", []) if not r.reads_callers]
                fs.rule_errors += run_rules(fa, now)
                later = [r for r in rules.get("compile", []) if r.reads_callers]
                if later and fa.compile_facts is not None:
                    if fs.key in self.settled or len(fs.waiting) >= _WAITING_KEPT:
                        waiting.append((fa, later))
                    else:  # until the program's next calls show what the caller keeps
                        fs.waiting.append((fa, later))
                fs.compiled = fs.compiled or fa.compile_facts is not None
                if fs.report is None:
                    fs.report = fa.compile_report
                    if fs.report is not None and captured is None:
                        fs.report["compiled_again"] = (
                            f"called under an eager jax.{under}: compiled once more for one example to read it"
                            if under else
                            "compiled ahead of time by the program (`.lower(...).compile()`), which the call reused: "
                            "compiled once more to read it; the compile time is the program's" if aot is not None else
                            "this jax version does not show the program's own compile: compiled once more to read it")
            except Exception as e:
                fs.rule_errors.append(f"the compile step failed on {fs.meta['qualname']}: {type(e).__name__}: {e}")
        if self.keep_ir and fs.ir is None and fa.jaxpr is not None:
            captured = _pick(compiles, fs)
            if captured is not None:
                fa.captured = captured
            try:
                run_analysers(fa, "ir", self.analysers())
                fs.ir = fa.ir
            except Exception as e:
                fs.ir = {"ok": False, "error": f"{type(e).__name__}: {e}"}
        with self.lock:
            _add_new(fs.diagnostics, fa.diagnostics)
            if fa.jaxpr is not None or fa.error is not None:
                fs.status = "analysed"
        for f, rs in waiting:
            self._run_waiting(fs, f, rs)
        if fs.waiting and fs.waiting[-1][0] is fa:
            fa.traced = None  # what is kept waiting holds no argument of the program's call

    # ------------------------------------------------------------------ the end
    def finish(self) -> None:
        """Run the rules that read a function's signatures (what the whole run called
        and compiled), once, when the program ends."""
        for fs in list(self.functions.values()):
            with self.lock:  # what the calls watched showed until now (the last ones unjudged: unknown)
                waiting, fs.waiting = fs.waiting, []
            for f, rs in waiting:
                self._run_waiting(fs, f, rs)
            if not fs.sigs:
                continue
            try:
                fa = fs.analysis(self, fs.first_call)
                rules = [r for rs in self.rules_for(fs.home).values() for r in rs if r.reads_signatures]
                fs.rule_errors += run_rules(fa, rules)
                with self.lock:
                    _add_new(fs.diagnostics, fa.diagnostics)
            except Exception as e:
                fs.rule_errors.append(f"jaxlint could not read the signatures of {fs.meta['qualname']}: {e}")

    def to_json(self) -> dict:
        """This process's observations, paths relative to the project root."""
        from jaxlint.registry import rules_by_code

        out = {}
        with self.lock:
            for key, fs in self.functions.items():
                status = fs.status
                if status == "called" and fs.inlined and not fs.sigs:
                    status = "inlined"
                lines: dict[str, set[int]] = {}
                if fs.path == fs.home:
                    lines[fs.meta["file"]] = {int(fs.entry.get("def_line") or fs.meta["line"])}
                for file, ls in fs.lines.items():
                    lines.setdefault(relative_path(file, self.root), set()).update(ls)
                diags, left_out = [], []
                # a function the program called once (an init): a fixed seed there is no reuse
                once = called_once(fs.calls, fs.inlined)
                for d in fs.diagnostics:
                    if once and getattr(rules_by_code().get(d.code), "repeated_calls_only", False):
                        continue
                    if not self.recorder.in_project(d.path):  # a place check could not show: the
                        # recording must stay readable (the library predicates should have kept it home)
                        left_out.append(f"{d.code}'s finding on {fs.meta['qualname']} is at {d.path}:"
                                        f"{d.start.line}, outside the project: left out")
                        continue
                    dd = relative_finding(d.to_dict(), self.root)
                    # a related place outside the project (a library installed beside it, not in a
                    # site-packages folder) cannot be shown where the project is checked: left out;
                    # a Jupyter kernel's cell of the project's notebook is placed in it when written
                    dd["related"] = [r for r in dd["related"] if not os.path.isabs(r["filename"])
                                     or self.recorder.in_project(r["filename"])]
                    for r in [dd, *dd["related"]]:
                        lines.setdefault(r["filename"], set()).add(int(r["location"]["row"]))
                    diags.append(dd)
                code = {f: self.scopes.scopes(self.root / f, ls) for f, ls in sorted(lines.items())
                        if not os.path.isabs(f) and not f.startswith("<")}
                out[key] = {
                    "file": fs.meta["file"], "line": fs.entry.get("def_line") or fs.meta["line"],
                    "qualname": fs.meta["qualname"], "transform": fs.meta["kind"], "status": status,
                    "reason": fs.reason, "calls": fs.calls, "inlined_calls": fs.inlined,
                    "compiles": sum(s["compiles"] for s in fs.sigs.values()),
                    "traced": fs.traced, "compiled": fs.compiled, "levels": list(self.levels),
                    "code": code, "rules": self.rules_digest(fs.home), "rule_options": self.rule_options(fs.home), "versions": dict(self.versions),
                    # `record --target`: compiled for this target, not for the program's backend
                    **({"target": placement.target_node()} if placement.active() is not None
                       and "compile" in self.levels else {}),
                    "jaxlint": __version__,
                    "diagnostics": diags, "report": fs.report, "rule_errors": fs.rule_errors + left_out,
                    "seconds": round(fs.seconds, 4),
                    "first_call": (f"{relative_path(fs.first_call[0], self.root)}:{fs.first_call[1]}"
                                   if fs.first_call else None),
                    # what jax compiled per signature, and the call that compiled it: what
                    # the recompilation rule reads, for a worker that traces the function too
                    "signatures": [_rel_call(r, self.root) for r in fs.signature_records(self)],
                }
                if self.reused.get(key):
                    out[key]["reused"] = dict(self.reused[key])
                if fs.ir is not None:
                    out[key]["ir"] = fs.ir
                if fs.path != fs.home:  # placed in its notebook by the recorder
                    out[key]["_code_file"] = fs.path
        return out


#: analyses of one function kept waiting for what its caller does (past that, the rules run
#: without it)
_WAITING_KEPT = 8

#: how many jitted function objects of one signature are told apart (past that, one more
#: makes no difference to what the recompilation rule concludes)
_JITS_KEPT = 64


def _not_traceable(error: BaseException) -> bool:
    """Whether tracing stopped on what jaxlint cannot emulate here (its pmap stand-in too
    few devices, ...): the function is skipped with the reason, never a trace error."""
    from jaxlint.dynamic.transforms import NotTraceable

    return isinstance(error, NotTraceable)


# ---------------------------------------------------------------------------- helpers
def _original(fun: Any) -> Any:
    """The user's Python function behind a partial or a decorator chain."""
    return unbind(fun)[0]


def _note_unread(fs: FunctionState, cur: dict, traced: Any, nargs: int) -> None:
    """Note on a signature the leaves of its arguments that its jit's traced program never
    reads, and the program's digest without them (two passes over its top-level equations).
    ``nargs``: the call's positional arguments, against which jax counts a negative
    ``static_argnums`` from the end. An ``equinox.filter_jit`` function's traced program
    takes its array leaves flat; their paths in the call come with it."""
    kind = fs.meta.get("kind")
    paths = getattr(traced, "jaxlint_leaf_paths", None)
    if kind not in ("jit", "pjit", "filter_jit") or kind == "filter_jit" and paths is None or \
            not hasattr(traced, "args_info"):
        return
    # a negative static_argnums: jax resolves it against this call's arguments; the leaves'
    # paths of a filter_jit count every argument, static ones too
    static = () if kind == "filter_jit" else tuple(sorted(static_positions(fs.meta, nargs)))
    try:
        unread, program = adapter.unread_inputs(traced, static, paths)
    except Exception:  # what jax's trace holds changed shape: nothing is noted
        return
    if program:
        cur["unread"], cur["program"] = unread, program


#: the most bytes of an imported library module read for a switch of x64 (:meth:`Observer._library_x64`)
_LIBRARY_BYTES = 1 << 20


def _library_path(file: str) -> str:
    """A library module's path from its package folder (``netket/jax/_config.py``)."""
    parts = Path(file).parts
    at = max((i for i, p in enumerate(parts) if p in ("site-packages", "dist-packages")), default=len(parts) - 3)
    return "/".join(parts[at + 1:]) or Path(file).name


#: most outputs of a call kept, and most leaves noted as passed back
_RETURNED_KEPT = 4096
_FED_KEPT = 64


def _returned(seq: int, traced: Any, result: Any, in_project: Callable[[str], bool]) -> tuple | None:
    """(``seq``, {id of an array ``result`` holds: (a weak reference to it, its flat index)},
    per flat output of ``traced``'s program the project line that made it, or None where
    none did or the program's outputs are not ``result``'s leaves)."""
    array = adapter.concrete_array_type()
    leaves = adapter.flatten(result)[0]
    if not leaves or len(leaves) > _RETURNED_KEPT:
        return None
    kept = {id(x): (weakref.ref(x), i) for i, x in enumerate(leaves) if type(x) is array}
    if not kept:
        return None
    lines: list = []
    jaxpr = getattr(getattr(traced, "jaxpr", None), "jaxpr", None)
    if jaxpr is not None and len(jaxpr.outvars) == len(leaves):
        lines = [_made_line(si, in_project) if si is not None else None for si in adapter.output_sources(jaxpr)]
    return seq, kept, lines


def _made_line(si: Any, in_project: Callable[[str], bool]) -> tuple[str, int, int] | None:
    """The innermost frame of the project that made an equation (file, line, column)."""
    for f in adapter.frames(si):
        if in_project(f.file):
            return f.file, int(f.line), int(f.column)
    return None


def _fed_back(returned: tuple, args: tuple, kwargs: dict) -> list:
    """([position or keyword, the leaf's path (``['mean']``), {"seq", "out" and "made": the line
    that made it}], (its shape, its dtype)) for each array of the call that is one the previous
    new signature's call returned (``returned``: :func:`_returned`'s). Once the call has
    returned, ``"kept": True`` is added where it returned the same output in the shape and
    dtype it was given (a state that stays so, not a pipeline applied to its own output)."""
    import jax

    seq, kept, lines = returned
    fed = []
    for where, tree in [*enumerate(args), *kwargs.items()]:
        for path, leaf in jax.tree_util.tree_flatten_with_path(tree)[0]:
            hit = kept.get(id(leaf))
            if hit is None or hit[0]() is not leaf:
                continue
            made = lines[hit[1]] if hit[1] < len(lines) else None
            fed.append(([where, jax.tree_util.keystr(path), {"seq": seq, "out": hit[1],
                                                             **({"made": _call(made)} if made else {})}],
                        (leaf.shape, leaf.dtype)))
            if len(fed) >= _FED_KEPT:
                return fed
    return fed


def _deleted_by_the_call(donated: tuple) -> tuple:
    """The pairs of :func:`_donated_twice` whose buffer the call that ran deleted: a
    donation no output could take leaves the array alive (jax 0.10.2: ``is_deleted()``
    is False after the call), and passing it twice was no error."""
    return tuple(p for p in donated if p[2].is_deleted())


def _named_leaves(fs: FunctionState, args: tuple, kwargs: dict) -> Iterator[tuple[str, str, Any, bool]]:
    """(argument, the leaf's path, the array, whether its argument is donated) of each
    array of the call."""
    import jax

    nums = set(fs.meta.get("donate_nums") or ())
    params = fs.meta.get("params") or []
    named = [(params[i] if i < len(params) else f"argument {i}", a, i in nums) for i, a in enumerate(args)]
    named += [(k, v, k in params and params.index(k) in nums) for k, v in kwargs.items()]
    for top, tree, is_donated in named:
        for path, leaf in jax.tree_util.tree_flatten_with_path(tree)[0]:
            if isinstance(leaf, jax.Array):
                yield top, top + jax.tree_util.keystr(path), leaf, is_donated


def _donated_twice(fs: FunctionState, args: tuple, kwargs: dict) -> tuple[tuple[str, str, Any], ...]:
    """(donated argument, other argument, their one buffer) of this call."""
    if not fs.meta.get("donate_nums"):
        return ()
    owner: dict[int, str] = {}
    donated: list[tuple[int, str]] = []
    pairs = []
    for _, name, leaf, is_donated in _named_leaves(fs, args, kwargs):
        first = owner.get(id(leaf))
        if first is None:
            owner[id(leaf)] = name
            if is_donated:
                donated.append((id(leaf), name))
        elif is_donated or any(i == id(leaf) for i, _ in donated):
            pairs.append((first, name, leaf))
    return tuple(pairs)


def _sharing(fs: FunctionState, args: tuple, kwargs: dict) -> set[str]:
    """The arguments of this call that hold one array at two places
    (``Params(online=p, target=p)``): jax refuses to donate them ("donate the same buffer
    twice"). One array passed in two arguments is JAX210's."""
    seen: set[tuple[str, int]] = set()
    shared: set[str] = set()
    for top, _, leaf, _ in _named_leaves(fs, args, kwargs):
        if (top, id(leaf)) in seen:
            shared.add(top)
        seen.add((top, id(leaf)))
    return shared


def _mine(compiles, fs: FunctionState) -> list:
    """The captured compiles of the function itself (not of a helper it called eagerly)."""
    if not compiles:
        return []
    name = getattr(_original(fs.fun), "__name__", "") or ""
    named = [c for c in compiles if name and c.module_name.split("_", 1)[-1] == name]
    return named or compiles[-1:]


def _ahead_of_time(fs: FunctionState) -> Any:
    """The program's latest compile of the function made outside any recorded call (its
    own ``.lower(...).compile()``), with its measured time; None when there is none."""
    name = getattr(_original(fs.fun), "__name__", "") or ""
    if not name:
        return None
    me = threading.get_ident()
    for _, thread, c in reversed(list(adapter.UNCAPTURED)):
        if thread == me and c.module_name.split("_", 1)[-1] == name and c.seconds > 0:
            return c
    return None


def _pick(compiles, fs: FunctionState):
    """The function's own compile among ``compiles`` with its executable (one seen but not
    kept, as a compile before the recorder knew the call was new can be: None, compiled again)."""
    mine = _mine(compiles, fs) if compiles else []
    return mine[-1] if mine and mine[-1].executable is not None else None


def _definition(key: str, qualname: str) -> str:
    """``@LINE`` of a key the recorder gave an earlier definition of a name defined again
    (``module:qualname@LINE``), else empty (a library jit's ``@jitLINE`` is its name)."""
    tail = key.rpartition(":")[2]
    rest = tail[len(qualname):] if tail.startswith(qualname) else ""
    return rest if rest[1:].isdigit() and rest.startswith("@") else ""


def _dkey(d) -> tuple:
    return (d.code, d.path, d.start.line, d.start.column)


def _add_new(kept: list, found: list) -> None:
    """Add to ``kept`` the findings of ``found`` at a place it has none of (one per code
    and place, as ``check`` reports them: a rule that reports one line twice, such as two
    draws of one key in a helper called twice, is one finding)."""
    seen = {_dkey(d) for d in kept}
    for d in found:
        if _dkey(d) not in seen:
            seen.add(_dkey(d))
            kept.append(d)


def _call(site: tuple[str, int, int]) -> Call:
    f, line, col = site
    return {"file": f, "line": line, "column": col}


def _rel_call(rec: Signature, root: Path) -> Signature:
    first, again = rec.get("first_call"), rec.get("again_at")
    if isinstance(first, dict):
        rec = {**rec, "first_call": {**first, "file": relative_path(first["file"], root)}}
    if isinstance(again, dict):
        rec = {**rec, "again_at": {**again, "file": relative_path(again["file"], root)}}
    if rec.get("fed"):
        rec = {**rec, "fed": [[where, path, {**node, "made": {**node["made"], "file": relative_path(node["made"]["file"], root)}}
                              if isinstance(node.get("made"), dict) else node] for where, path, node in rec["fed"]]}
    return rec


def _reemit(caught: list) -> None:
    """Give the program the warnings its call raised (they were recorded to be read)."""
    for w in caught:
        try:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno, source=w.source)
        except Exception:
            pass


def _def_line(tree: ast.Module, first_line: int, qualname: str) -> int | None:
    """The ``def`` (or lambda) line of a function whose code starts at ``first_line``
    (the first decorator's line when it is decorated)."""
    name = qualname.rsplit(".", 1)[-1]
    for n in ast.walk(tree):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == name:
            start = min([n.lineno] + [d.lineno for d in n.decorator_list])
            if start == first_line or n.lineno == first_line:
                return n.lineno
        elif isinstance(n, ast.Lambda) and name.startswith("<lambda>") and n.lineno == first_line:
            return n.lineno
    return None


_HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def call_site(in_project: Callable[[str], bool]) -> tuple[str, int, int] | None:
    """(file, line, column) of the innermost frame of the project that is running: the
    user's line that called the jitted function."""
    f: FrameType | None = sys._getframe(1)
    while f is not None:
        file = f.f_code.co_filename
        if not file.startswith(_HERE) and not file.startswith("<") and in_project(file):
            col = 1
            try:
                pos = list(f.f_code.co_positions())[f.f_lasti // 2]
                if pos[2] is not None:
                    col = pos[2] + 1
            except (AttributeError, IndexError):  # Python 3.10: no columns
                pass
            return os.path.abspath(file), f.f_lineno, col
        f = f.f_back
    return None
