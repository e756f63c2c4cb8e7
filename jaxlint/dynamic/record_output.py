"""Writing what a process recorded: every :data:`FLUSH_EVERY` seconds of calls, after an
observed call and at exit (:func:`flush`), its records, observations, saved arguments,
library jits and the recorder's failures go to ``$JAXLINT_RECORD_DIR`` as parts of their
own (``records-<pid>.json``, ``observed-<pid>.json``, ``pickles/``, ...), which
``jaxlint record`` merges (:mod:`jaxlint.dynamic.signatures`); with them, how the
program was started (:func:`program_entry`), for a re-import of its main module."""
from __future__ import annotations

import itertools
import json
import os
import re
import sys
import threading
import time
from pathlib import Path

from jaxlint.dynamic.record_state import RECORDER, in_project, placed_in_notebooks, record_root, recorder_error, recorder_errors


def _calls_counted(c: itertools.count) -> int:
    return int(repr(c)[6:-1])  # "count(N)": how many times next() was called


def fold_counts() -> None:
    """Add the fast path's calls to the signatures' counters (in the records and the
    observer's): before anything reads them. Tables of collected functions are folded
    one last time and dropped."""
    observed = []
    with RECORDER.lock:
        live = []
        for ref, table in RECORDER.tables:
            for seen in list(table.values()):
                for s in [seen, *(seen.placed or {}).values()]:
                    if s.entry is None:
                        continue
                    n = _calls_counted(s.count)
                    more, s.folded = n - s.folded, n
                    if more:
                        s.entry["calls"] += more
                        if s.cur is not None:
                            observed.append((s, more))
            if ref() is not None:
                live.append((ref, table))
        RECORDER.tables[:] = live
    for s, more in observed:  # under the observer's own lock
        s.observer.add_calls(s.state, s.cur, more)


#: seconds between writes of the records while the program runs (a forked child that
#: leaves through os._exit, or a killed program, keeps what was written)
FLUSH_EVERY = 5.0


def maybe_flush() -> None:
    now = time.monotonic()
    obs = RECORDER.observer
    if now - RECORDER.last_flush >= FLUSH_EVERY or (obs is not None and obs.dirty):
        RECORDER.last_flush = now
        if obs is not None:
            obs.dirty = False
        flush()


def at_exit() -> None:
    obs = RECORDER.observer
    try:
        fold_counts()
    except Exception as e:
        recorder_error("counting the calls", e)
    if obs is not None:
        try:
            obs.finish()
        except Exception as e:
            recorder_error("finishing the analysis", e)
    flush()


#: environment variables a re-import of a recorded script gets back (``check --dynamic``)
ENV_KEEP = re.compile(r"^(JAX_|XLA_|TF_CPP_|CUDA_VISIBLE_DEVICES$|TPU_|PYTHONHASHSEED$)")


#: the interpreter's options that take a separate argument
_OPTION_ARGS = {"-W", "-X", "--check-hash-based-pycs"}


def program_entry() -> dict:
    """How this process was started, read before the program runs (at exit CPython has
    already cleared ``__main__``): the project module it runs as its main (a script's
    path, or ``-m``'s module), its argv as the program sees it, its working directory
    and the allowed environment (:data:`ENV_KEEP`)."""
    args = list(getattr(sys, "orig_argv", None) or [])[1:]
    argv = list(sys.argv)
    main = None
    i = 0
    while i < len(args):
        a = args[i]
        if a == "-m" or (a.startswith("-m") and len(a) > 2):
            main = args[i + 1] if a == "-m" and i + 1 < len(args) else a[2:] if a != "-m" else None
            if argv and argv[0] == "-m":  # what __main__ will see: the module, not `-m`
                argv[0] = main or argv[0]
            break
        if a in _OPTION_ARGS:
            i += 2
            continue
        if a == "-" or a.startswith("-c") or not a.startswith("-"):
            if not a.startswith("-") and a.endswith(".py") and in_project(os.path.abspath(a)):
                from jaxlint.dynamic import project

                main = project.module_name(Path(a).resolve(), record_root())[0]
            break
        i += 1
    return {"main": main, "argv": argv, "cwd": os.getcwd(),
            "env": {k: v for k, v in os.environ.items() if ENV_KEEP.match(k)}}


def _program() -> dict:
    """How this process was started: what a re-import of its main script needs."""
    out = dict(RECORDER.program) if RECORDER.program is not None else _started()
    devices = _devices()  # the devices it ran on, which only the end of the run knows
    if devices is not None:
        out["devices"] = devices
    return out


def _started() -> dict:
    """How this process was started, read at its end (where :func:`program_entry` did
    not run at the start)."""
    main = sys.modules.get("__main__")
    spec = getattr(main, "__spec__", None)
    name = None
    if spec is not None and getattr(spec, "name", None):
        name = spec.name
    else:
        f = getattr(main, "__file__", None)
        if f and in_project(f):
            from jaxlint.dynamic import project

            name = project.module_name(Path(f).resolve(), record_root())[0]
    return {"main": name, "argv": list(sys.argv), "cwd": os.getcwd(),
            "env": {k: v for k, v in os.environ.items() if ENV_KEEP.match(k)}}


def _devices() -> dict | None:
    """The devices the program ran on (count and platform: a worker that traces its
    functions again forces as many host devices), once a jitted call has run."""
    if RECORDER.observer is None or "jax" not in sys.modules:
        return None
    try:
        import jax

        return {"count": jax.device_count(), "platform": jax.default_backend()}
    except Exception as e:
        recorder_error("counting the devices", e)
        return None


def flush() -> None:
    out = os.environ.get("JAXLINT_RECORD_DIR")
    if out:  # a program with no jitted function of its own has them too
        try:
            from jaxlint.dynamic import record_compiles

            compiles = record_compiles.part()
            if compiles is not None:
                _write(os.path.join(out, f"compiles-{os.getpid()}.json"), json.dumps(compiles).encode("utf-8"))
        except OSError as e:
            recorder_error("writing the compiles outside the jitted functions", e)
    if out and RECORDER.library_jits:
        try:
            with RECORDER.lock:
                library = json.dumps({name: {"jits": n, "sites": RECORDER.library_sites.get(name, {})}
                                      for name, n in RECORDER.library_jits.items()}).encode("utf-8")
            _write(os.path.join(out, f"library-{os.getpid()}.json"), library)
        except OSError as e:
            recorder_error("writing the library jits", e)
    if not out or not RECORDER.records:
        return
    try:
        fold_counts()
    except Exception as e:
        recorder_error("counting the calls", e)
    reused = RECORDER.watch.verdicts()
    with RECORDER.lock:
        data = {}
        for key, entry in RECORDER.records.items():
            data[key] = {k: v for k, v in entry.items() if k != "sigs"}
            data[key]["signatures"] = list(entry["sigs"].values())
            if reused.get(key):  # what the caller did with the arguments after the calls watched
                data[key]["reused"] = reused[key]
        blobs = dict(RECORDER.blobs)
    observed = None
    if RECORDER.observer is not None:
        try:
            observed = {"program": _program(), "functions": placed_in_notebooks(RECORDER.observer.to_json())}
        except Exception as e:
            recorder_error("writing the observations", e)
            observed = {"program": _program(), "functions": {}}
    errors = recorder_errors()
    if observed is not None and errors:
        observed["program"]["recorder_errors"] = errors
    try:
        os.makedirs(os.path.join(out, "pickles"), exist_ok=True)
        for sha, blob in blobs.items():
            dest = os.path.join(out, "pickles", f"{sha}.pickle")
            if not os.path.exists(dest):
                _write(dest, blob)
        _write(os.path.join(out, f"records-{os.getpid()}.json"), json.dumps(data).encode("utf-8"))
        if observed is not None:
            _write(os.path.join(out, f"observed-{os.getpid()}.json"),
                   json.dumps(observed, default=str).encode("utf-8"))
        if errors:
            _write(os.path.join(out, f"errors-{os.getpid()}.json"), json.dumps(errors).encode("utf-8"))
    except OSError as e:  # nowhere to write to: say so (once) where the user sees it
        if not RECORDER.write_failed:
            RECORDER.write_failed = True
            sys.stderr.write(f"jaxlint record: cannot write what this process recorded: {e}\n")


def _write(path: str, data: bytes) -> None:
    tmp = f"{path}.{os.getpid()}.{threading.get_ident()}.tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)
