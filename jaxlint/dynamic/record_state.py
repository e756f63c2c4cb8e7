"""What ``jaxlint record``'s recorder holds in a process, and where the code it sees is.

One :class:`Recorder`, :data:`RECORDER`, holds the recording (records, counters, the
observer, the watch of what the caller keeps, the recorder's own failures). Beside it:
which files are the project's (:meth:`Recorder.in_project`), their digests as the
program saw them (:func:`file_digest`) and the Jupyter cells a kernel ran, matched to
the notebooks' code (:func:`notebook_cell`, :func:`place`, :func:`placed_in_notebooks`).
The rest of the recorder (:mod:`jaxlint.dynamic.recorder`) reads and fills it.
"""
from __future__ import annotations

import hashlib
import itertools
import os
import sys
import threading
import weakref
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, TypedDict

from jaxlint.dynamic import callers

if TYPE_CHECKING:
    from jaxlint.dynamic.analysis import Analysers
    from jaxlint.dynamic.signatures import Signature


class Record(TypedDict, total=False):
    """What the recording keeps of one jitted function: its entry of the signatures file
    (:mod:`jaxlint.dynamic.signatures`; ``sigs``, by canonical text, is written as its
    ``signatures`` list, with what the caller did with the arguments as ``reused``)."""

    file: str  # under the project root
    line: int
    qualname: str
    static_argnums: list[int]
    static_argnames: list[str]
    transform: str  # the jit-like transform (``recorder.TARGETS``' kinds)
    pmap: dict[str, Any]  # ``axis_name``, ``in_axes`` of a pmap
    sigs: dict[str, Signature]


class Recorder:
    """This process's recording, in one place: what was recorded (the signatures and their
    counters, the saved arguments, the library jits), the observer analysing the calls,
    the watch of what the caller does with the arguments (:class:`~jaxlint.dynamic.callers.Watch`),
    how the program was started, which files are the project's, and the recorder's own
    failures. The one instance, :data:`RECORDER`, is handed to the
    :class:`~jaxlint.dynamic.observer.Observer` (which imports nothing of this module and
    reaches only :meth:`error` and :meth:`in_project`); the module's functions read it.
    Module-level names elsewhere hold only what jax is (types, getters), found once."""

    def __init__(self) -> None:
        #: guards the records, the fast-path tables and the counters below
        self.lock = threading.Lock()
        #: function key -> what is recorded of it
        self.records: dict[str, Record] = {}
        #: (the jitted function object, its fast-path table) of every recorded jitted function
        self.tables: list[tuple[weakref.ref, dict]] = []
        #: sha256 -> pickled arguments (see :mod:`jaxlint.dynamic.abstract`), written at exit
        self.blobs: dict[str, bytes] = {}
        #: "module:qualname" of a library function a library jitted -> how many jits of it were made
        self.library_jits: dict[str, int] = {}
        #: the same name -> {"file:line" of the project's call that led to the jit: how many}
        self.library_sites: dict[str, dict[str, int]] = {}
        #: function key -> [(weak reference to an instance, or the instance), its number]
        self.instances: dict[str, list] = {}
        #: function -> the recorded jitted function objects of it (weakly): jax shares one
        #: cache between jits of one function, so their ``_cache_size`` is no one's alone
        self.jits_of: Any = weakref.WeakKeyDictionary()
        #: file -> {qualname: the first line (decorators included) of its last definition}
        self.definitions: dict[str, dict[str, int]] = {}
        #: file -> sha256 of its bytes as the program saw them (:func:`file_digest`)
        self.digests: dict[str, str] = {}
        #: code file -> (notebook path, the line of the notebook's module that its line 1 is), or None
        self.cells: dict[str, tuple[str, int] | None] = {}
        #: the kernel's cell transform, cached (:func:`_kernel_transform`)
        self.transform: Callable[[str], str] | None = None
        #: (path, notebook) of the notebooks a kernel's cells are looked for in (:func:`_notebooks`)
        self.notebooks: list | None = None
        #: the process's :class:`~jaxlint.dynamic.observer.Observer` (``record_calls.the_observer``), and
        #: whether analysis is off (or could not start) in this process
        self.observer: Any = None
        self.observer_off = False
        #: the analysis levels past the trace, as ``recorder.install`` was given them
        self.analysers: Callable[[], Analysers] | None = None
        #: adapter.COMPILE_COUNT once compiles are counted (a list that never changes before)
        self.compiles = [0]
        #: when the records were last written (``record_output.maybe_flush``)
        self.last_flush = 0.0
        #: how this process was started (``record_output.program_entry``), taken when the recorder is installed
        self.program: dict | None = None
        self.installed = False
        #: whether this process's compiles are watched (:func:`jaxlint.dynamic.adapter.watch_compiles`)
        self.watching = False
        #: whether writing the records failed (said once)
        self.write_failed = False
        #: the pidfd of ``jaxlint record`` this process's watch waits on (``recorder._watch_record``)
        self.record_pidfd = -1
        #: by what it was doing: {"noting a call": [count, first message]}; the program
        #: goes on (unrecorded where it failed), and ``jaxlint record`` reports them
        self._errors: dict[str, list] = {}
        self._lock = threading.Lock()
        #: file name -> whether it is the project's (:meth:`in_project`)
        self._in_project: dict[str, bool] = {}
        #: what the program does with the arguments after its calls (:mod:`jaxlint.dynamic.callers`)
        self.watch = callers.Watch(self.error)
        #: numbers the recorded jitted function objects (ids are reused once one is collected)
        self.serials = itertools.count(1)
        #: the compiles outside the project's jitted functions (:mod:`jaxlint.dynamic.record_compiles`):
        #: (file, line, scope) -> {"functions": {name: [compiles, seconds]}, "caller": "file:line" or None},
        #: guarded by their own lock (a compile may happen while ``lock`` is held)
        self.eager_sites: dict[tuple[str, int, str], dict] = {}
        self.eager_lock = threading.Lock()
        #: whether this process listens to jax's compile events
        self.eager_listening = False
        #: the calls that compiled outside the jitted functions, numbered (one count for all lines)
        self.eager_calls = 0
        #: the seconds of every backend compile of this process so far (the time between two
        #: calls of a jitted function without its compiles)
        self.compile_seconds = 0.0
        #: the eager operations between the jitted calls (``record_dispatch.Dispatches``), once counted
        self.dispatch: Any = None
        #: ``record_dispatch.step``, told of each call of a recorded jitted function, once they are counted
        self.step_called: Callable[[str], None] | None = None

    def forget(self) -> None:
        """A forked child's recording starts empty: the parent's counters are the parent's."""
        for ref, table in self.tables:
            table.clear()
            rec = ref()
            if rec is not None:
                rec._single = None
        self.compiles = [0]
        self.compile_seconds = 0.0
        with self.eager_lock:
            self.eager_sites.clear()
        if self.dispatch is not None:
            self.dispatch.forget()
        self.records.clear()
        self.blobs.clear()
        self.definitions.clear()
        self.forget_errors()
        self.watch.forget()
        self.observer = None
        self.last_flush = 0.0

    def error(self, doing: str, e: BaseException) -> None:
        """Count a failure of the recorder while ``doing`` something (the first message
        of each kind is kept); written with the records, reported by ``jaxlint record``."""
        with self._lock:
            entry = self._errors.get(doing)
            if entry is None:
                self._errors[doing] = [1, f"{type(e).__name__}: {str(e)[:200]}"]
            else:
                entry[0] += 1

    def errors(self) -> dict[str, dict]:
        """This process's recorder failures: {doing: {"count": n, "first": message}}."""
        with self._lock:
            return {k: {"count": n, "first": msg} for k, (n, msg) in self._errors.items()}

    def forget_errors(self) -> None:
        with self._lock:
            self._errors.clear()

    def in_project(self, filename: str) -> bool:
        """A file of the project being recorded (a virtualenv inside it does not count),
        or a Jupyter cell of one of its notebooks (:func:`notebook_cell`)."""
        hit = self._in_project.get(filename)
        if hit is None:
            if notebook_cell(filename) is not None:
                hit = True
            elif not filename or filename.startswith("<"):
                hit = False
            else:
                path = Path(filename).resolve()
                root = record_root()
                hit = (root == path or root in path.parents) and not (
                    {"site-packages", "dist-packages"} & set(path.relative_to(root).parts))
            self._in_project[filename] = hit
        return hit


#: this process's recorder
RECORDER = Recorder()
recorder_error = RECORDER.error
recorder_errors = RECORDER.errors
in_project = RECORDER.in_project


def record_root() -> Path:
    return Path(os.environ.get("JAXLINT_RECORD_ROOT", os.getcwd()))


def file_digest(path: str) -> str:
    """sha256 of a file's bytes as the program saw it (read once per process); of a
    notebook, of its code (``jaxlint.files.notebook.code_digest``)."""
    hit = RECORDER.digests.get(path)
    if hit is None:
        try:
            with open(path, "rb") as f:
                data = f.read()
            if path.endswith(".ipynb"):
                from jaxlint.files.notebook import code_digest

                hit = code_digest(data)
            else:
                hit = hashlib.sha256(data).hexdigest()
        except OSError:
            hit = "missing"
        RECORDER.digests[path] = hit
    return hit


# ---------------------------------------------------------------------------- notebooks


def notebook_cell(filename: str) -> tuple[str, int] | None:
    """Where code that a Jupyter kernel ran is in the project: (the notebook's path, the
    line of its virtual module (``jaxlint.files.notebook``) that the code's line 1 is).

    IPython compiles each cell under a name that is no file on disk
    (``/tmp/ipykernel_<pid>/<hash>.py``; ``<ipython-input-N-...>`` before ipykernel 6)
    and keeps its text in ``linecache``; that text is matched to a code cell of the
    notebooks the recorded command names (``JAXLINT_RECORD_NOTEBOOKS``), else of those
    in the kernel's working directory (``jupyter execute``, ``nbclient``, ``papermill``
    and ``pytest --nbmake`` start it in the notebook's folder)."""
    if filename in RECORDER.cells:
        return RECORDER.cells[filename]
    hit = None
    if filename and "IPython" in sys.modules and not os.path.exists(filename):
        try:
            hit = _match_cell(filename)
        except Exception as e:  # never break the user's program
            recorder_error("matching a notebook cell", e)
            hit = None
    RECORDER.cells[filename] = hit
    return hit


def _match_cell(filename: str) -> tuple[str, int] | None:
    import linecache

    name = os.path.basename(filename) if os.path.basename(filename).startswith("<") else filename
    lines = linecache.getlines(name)
    if not lines:
        return None
    from jaxlint.files import notebook

    transform = _kernel_transform()
    for path, nb in _notebooks():
        found = notebook.match_cell(nb, lines, transform)
        if found is not None:
            number, lead = found
            first = nb.module().map.line_of(number, 1 + lead)
            return (path, first - 1) if first is not None else None
    return None


def _kernel_transform() -> Callable[[str], str] | None:
    """The running IPython shell's ``transform_cell`` (what it compiles a cell's source
    to), each source transformed once; None outside IPython."""
    if RECORDER.transform is None:
        shell = getattr(sys.modules.get("IPython"), "get_ipython", lambda: None)()
        if shell is None or not callable(getattr(shell, "transform_cell", None)):
            return None
        done: dict[str, str] = {}

        def transform(source: str) -> str:
            hit = done.get(source)
            if hit is None:
                hit = done[source] = shell.transform_cell(source)
            return hit

        RECORDER.transform = transform
    return RECORDER.transform


def _notebooks() -> list:
    """(path, notebook) of the notebooks a kernel's cells are looked for in, read once."""
    if RECORDER.notebooks is None:
        from jaxlint.files import notebook

        named = [p for p in os.environ.get("JAXLINT_RECORD_NOTEBOOKS", "").split(os.pathsep) if p]
        paths = named or sorted(str(p) for p in Path.cwd().glob("*.ipynb"))
        root = record_root().resolve()
        RECORDER.notebooks = []
        for p in paths:
            path = Path(p).resolve()
            if root != path and root not in path.parents:
                continue
            try:
                RECORDER.notebooks.append((str(path), notebook.load(path.read_bytes())))
            except (OSError, notebook.NotebookError):
                continue
            file_digest(str(path))  # the code the kernel runs, before anyone edits it
    return RECORDER.notebooks


def place(filename: str, line: int) -> tuple[str, int] | None:
    """(the notebook's path relative to the root, its module line) of ``line`` of a
    kernel's cell file; None for any other file."""
    cell = notebook_cell(filename)
    if cell is None:
        return None
    return Path(cell[0]).relative_to(record_root().resolve()).as_posix(), line + cell[1]


def where(filename: str, line: int) -> tuple[str, int]:
    """Where a recorded site is: the file relative to the recorded project and the line (a
    notebook cell's, in its notebook's module); the one way every site is made."""
    at = place(filename, line)
    if at is not None:
        return at
    try:
        return os.path.relpath(filename, record_root()).replace(os.sep, "/"), line
    except ValueError:
        return filename, line


def placed_in_notebooks(functions: dict) -> dict:
    """Observations of notebook code moved from the kernel's cell files into the
    notebook (path under the root, lines of its module, its code digest)."""
    root = record_root().resolve()

    def move(d: dict) -> None:
        if not isinstance(d.get("filename"), str):
            return
        at = place(d["filename"], 0)
        if at is None:
            return
        d["filename"] = at[0]
        for key in ("location", "end_location"):
            if isinstance(d.get(key), dict):
                d[key] = dict(d[key], row=d[key]["row"] + at[1])
        if isinstance(d.get("noqa_row"), int):
            d["noqa_row"] += at[1]

    def notebook_scope(f: str) -> dict:  # a notebook is one scope: its code
        return {"<notebook>": {"line": 1, "end": 1, "digest": file_digest(str(root / f))}}

    for e in functions.values():
        code = e.pop("_code_file", None)
        if code is not None:
            at = place(code, int(e.get("line") or 1))
            if at is not None:
                e["line"] = at[1]
        if str(e.get("file") or "").endswith(".ipynb") and not os.path.isabs(e["file"]):
            e.setdefault("code", {}).setdefault(e["file"], notebook_scope(e["file"]))
        for d in e.get("diagnostics") or []:
            move(d)
            for r in d.get("related") or []:
                move(r)
            for f in [d["filename"], *(r["filename"] for r in d.get("related") or [])]:
                if f.endswith(".ipynb") and not os.path.isabs(f):
                    e.setdefault("code", {}).setdefault(f, notebook_scope(f))
        budget = (e.get("report") or {}).get("budget")
        for item in [i for key in ("largest", "loops") for i in (budget or {}).get(key) or ()]:
            # the compile tier's largest buffers and loops (JAX306 relates them): where is a file here
            if isinstance(item, dict) and isinstance(item.get("file"), str) and isinstance(item.get("line"), int):
                at = place(item["file"], item["line"])
                if at is not None:
                    item["file"], item["line"] = str(root / at[0]), at[1]
        first = e.get("first_call")
        if isinstance(first, str) and ":" in first:
            f, _, line = first.rpartition(":")
            at = place(f, int(line)) if line.isdigit() else None
            if at is not None:
                e["first_call"] = f"{at[0]}:{at[1]}"
        for sig in e.get("signatures") or []:
            for key in ("first_call", "again_at"):
                call = sig.get(key)
                if isinstance(call, dict):
                    at = place(str(call.get("file")), int(call.get("line") or 0))
                    if at is not None:
                        sig[key] = dict(call, file=at[0], line=at[1])
    return functions


# a recording process: the weak values' origins read a kernel's cells in their notebook
from jaxlint.dynamic import origins as _origins  # noqa: E402  (after what it reads is defined)

_origins.RECORDING = sys.modules[__name__]
