"""The parent side of the workers: start, feed, time out, kill and replace them.

Workers are plain subprocesses speaking JSON lines (see :mod:`jaxlint.dynamic.worker`);
one ``select`` loop multiplexes them. Every way user code can go wrong ends here as
a *failure record* (reason + the user's line when one is known), never as an
exception or a hang of jaxlint:

* raises / ``sys.exit`` at import: reported by the worker itself;
* ``os._exit``, segfault, abort, OOM kill: the process ends; the reason comes from
  the exit status and the worker log (faulthandler writes the user's stack there);
* hangs: the step's deadline passes; the worker is asked for its stack (SIGUSR1,
  faulthandler), killed, and replaced; the file's remaining functions go on.
"""
from __future__ import annotations

import json
import os
import re
import select
import shutil
import signal
import subprocess
import tempfile
import time
from collections import Counter, deque
from dataclasses import dataclass, field, replace
from typing import Sequence

from jaxlint.process import procs
from jaxlint.config import DynamicSettings

STARTUP_TIMEOUT = 180.0
_FRAME = re.compile(r'^\s*File "(?P<file>[^"]+)", line (?P<line>\d+)')


@dataclass
class FileJob:
    id: int
    request: dict  # without "id"
    roots: list[str]
    #: functions not yet finished (qualnames, in order)
    remaining: list[str] = field(default_factory=list)
    deadline: float = 0.0  # absolute, for the whole file
    started: bool = False


@dataclass
class FileResult:
    functions: dict[str, dict] = field(default_factory=dict)
    #: import-time failure: {"reason", "path", "line"}
    failed: dict | None = None
    import_seconds: float | None = None
    x64: bool | None = None


class WorkerStartError(Exception):
    """No worker could start (jax missing, interpreter broken): the phase cannot run."""


class _Proc:
    def __init__(self, command: Sequence[str], env: dict, log_dir: str, n: int) -> None:
        self.log_path = os.path.join(log_dir, f"worker-{n}.log")
        self.log = open(self.log_path, "wb")
        # a working directory of its own, removed with the logs: what the user's code
        # writes to relative paths at import does not land in the project
        cwd = os.path.join(log_dir, f"cwd-{n}")
        os.makedirs(cwd, exist_ok=True)
        self.p = subprocess.Popen(
            list(command),
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log, env=env, cwd=cwd,
            start_new_session=True,  # a kill takes the user's child processes too
        )
        self.buf = b""
        self.ready = False
        self.versions: dict = {}
        self.job: FileJob | None = None
        self.step: str | None = None
        self.function: str | None = None
        self.step_deadline = float("inf")
        self.log_offset = 0
        self.started = time.monotonic()
        self.dead = False
        #: diagnostics of earlier levels of the function in flight (kept if a later level dies)
        self.partial: dict[str, list] = {}

    def fileno(self) -> int:
        assert self.p.stdout is not None
        return self.p.stdout.fileno()

    def send(self, obj: dict) -> bool:
        try:
            assert self.p.stdin is not None
            self.p.stdin.write((json.dumps(obj) + "\n").encode())
            self.p.stdin.flush()
            return True
        except (BrokenPipeError, OSError):
            return False

    def read_events(self) -> list[dict] | None:
        """Events available now; None at end of file (the process is gone)."""
        try:
            chunk = os.read(self.fileno(), 1 << 16)
        except OSError:
            chunk = b""
        if not chunk:
            return None
        self.buf += chunk
        events = []
        while b"\n" in self.buf:
            line, self.buf = self.buf.split(b"\n", 1)
            if line.strip():
                try:
                    events.append(json.loads(line))
                except ValueError:
                    continue
        return events

    def log_text(self, since: int = 0) -> str:
        try:
            self.log.flush()
            with open(self.log_path, "rb") as f:
                f.seek(since)
                return f.read().decode("utf-8", errors="replace")
        except OSError:
            return ""

    def log_size(self) -> int:
        try:
            return os.path.getsize(self.log_path)
        except OSError:
            return 0

    def rss_mb(self) -> float:
        """Resident memory of the worker (Linux ``/proc``; 0 where unavailable)."""
        try:
            with open(f"/proc/{self.p.pid}/statm", "rb") as f:
                return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / (1 << 20)
        except (OSError, ValueError, IndexError):
            return 0.0

    def kill(self, dump: bool) -> None:
        """Kill the worker and its process group (what user code started in it), even
        when the worker itself has already died."""
        if self.p.poll() is None and dump and hasattr(signal, "SIGUSR1"):
            try:
                os.kill(self.p.pid, signal.SIGUSR1)
                time.sleep(0.3)  # let faulthandler write the stack
            except OSError:
                pass
        procs.stop(self.p, None)
        self.dead = True

    def close(self, graceful: bool = True) -> None:
        if graceful and self.p.poll() is None and self.send({"op": "exit"}):
            try:
                self.p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
        self.kill(dump=False)
        for s in (self.p.stdin, self.p.stdout):
            try:
                s.close()  # type: ignore[union-attr]
            except Exception:
                pass
        self.log.close()


def worker_env(settings: DynamicSettings) -> dict:
    """The environment of a worker for these settings. Raises :class:`WorkerStartError`
    for a target that cannot be had here (``backend = "tpu"`` on a machine without one)."""
    from jaxlint.targets import LIBTPU_ENV, TargetError

    env = dict(os.environ)
    try:
        target = settings.resolved_target()
    except TargetError as e:
        raise WorkerStartError(str(e)) from None
    backend = settings.backend
    env.pop("JAXLINT_TARGET", None)
    if target is not None:
        env["JAXLINT_TARGET"] = target.to_json()
        if target.deviceless:
            # the worker compiles for the slice without its chips: jax runs on the CPU and
            # libtpu only describes the topology (LIBTPU_ENV says why its lock is not needed)
            backend = "cpu"
            env.update(LIBTPU_ENV)
        elif target.backend == "cpu" and target.devices > 1:
            settings = replace(settings, devices=target.devices)
    env["JAX_PLATFORMS"] = {"gpu": "cuda"}.get(backend, backend)
    # an address-space cap breaks accelerator runtimes (they reserve huge virtual ranges):
    # on CPU the worker caps itself; on every backend the pool also watches resident memory
    env["JAXLINT_MEMORY_LIMIT_MB"] = str(settings.memory_limit_mb if backend == "cpu" else 0)
    env.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")  # many workers share one GPU
    # warnings stay: the SPMD partitioner's (JAX314) is a W line of XLA's log on jax 0.10.
    # A user's 2 or 3 (set to quiet their own runs) would hide it: the worker's log is
    # jaxlint's to read, never shown as it is
    if os.environ.get("TF_CPP_MIN_LOG_LEVEL", "").strip() not in ("0", "1"):
        env["TF_CPP_MIN_LOG_LEVEL"] = "1"
    if settings.x64 is not None:
        env["JAX_ENABLE_X64"] = "1" if settings.x64 else "0"
    if backend == "cpu" and settings.devices > 1:
        env["XLA_FLAGS"] = with_host_devices(env.get("XLA_FLAGS", ""), settings.devices)
    env["PYTHONUNBUFFERED"] = "1"
    # importing the user's modules must not write `__pycache__` into their project (a
    # check edits nothing there); installed packages' bytecode is still read
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    if env.get("PYTHONPATH"):  # the workers run in a directory of their own
        env["PYTHONPATH"] = os.pathsep.join(os.path.abspath(p) if p else os.getcwd()
                                            for p in env["PYTHONPATH"].split(os.pathsep))
    return env


_HOST_DEVICES = re.compile(r"--xla_force_host_platform_device_count=(\d+)")


def with_host_devices(flags: str, n: int) -> str:
    """``XLA_FLAGS`` that give the CPU backend ``n`` devices (the SPMD partitioner then
    runs as on accelerators: meshes, shardings, collectives)."""
    flags = _HOST_DEVICES.sub("", flags).strip()
    return f"{flags} --xla_force_host_platform_device_count={n}".strip()


def host_devices(flags: str | None) -> int:
    """The host device count an ``XLA_FLAGS`` value forces (0 when it forces none)."""
    m = _HOST_DEVICES.search(flags or "")
    return int(m.group(1)) if m else 0


def exit_reason(rc: int | None, log: str, memory_limit_mb: int) -> str:
    oom = any(s in log for s in ("MemoryError", "std::bad_alloc", "Cannot allocate memory", "out of memory",
                                  "RESOURCE_EXHAUSTED"))
    if oom:
        return f"ran out of memory (memory limit {memory_limit_mb} MiB)"
    if rc is None:
        return "stopped answering"
    if rc < 0:
        sig = -rc
        name = {signal.SIGSEGV: "crashed with a segmentation fault", signal.SIGABRT: "aborted (fatal error in native code)",
                signal.SIGKILL: "was killed (out of memory?)", signal.SIGBUS: "crashed with a bus error",
                signal.SIGFPE: "crashed with a floating-point exception"}.get(sig)  # type: ignore[call-overload]
        return name or f"was killed by signal {sig}"
    if "Segmentation fault" in log:
        return "crashed with a segmentation fault"
    return f"exited with status {rc} (os._exit or a fatal error in user code)"


def stack_line(log: str, path: str, roots: list[str], stopped: bool = False) -> tuple[str, int] | None:
    """The user's line in the last faulthandler stack of ``log``: the most recent frame
    in the checked file, else in the project (never ``<frozen ...>`` or site-packages).

    ``stopped``: the worker was stopped at an arbitrary moment (a hang, too much memory),
    so its most recent line changes from run to run. Take instead the line most frames
    are at (a deep recursion's call), else the outermost frame, and move it up to the
    outermost loop around it in its function: lines that do not change."""
    head = log.rfind("most recent call first")
    frames = []
    for line in log[head if head >= 0 else 0:].splitlines():
        m = _FRAME.match(line)
        if m and not m.group("file").startswith("<"):  # <frozen runpy> and the like
            frames.append((os.path.abspath(m.group("file")), int(m.group("line"))))
    apath = os.path.abspath(path)
    from jaxlint.registry import code_dirs

    own = code_dirs()  # jaxlint's frames, also where the checked project holds jaxlint (its own checkout)
    mine = [fr for fr in frames if fr[0] == apath] or [
        fr for fr in frames if any(fr[0].startswith(r + os.sep) for r in roots) and "site-packages" not in fr[0]
        and not fr[0].startswith(own)]
    if not mine:
        return None
    if not stopped:
        return mine[0]
    count = Counter(mine)
    f, ln = max(reversed(mine), key=lambda fr: count[fr])  # ties: the outermost
    return f, outermost_loop(f, ln)


def outermost_loop(path: str, line: int) -> int:
    """The first line of the outermost ``for``/``while`` around ``line`` within the
    function (or module body) that holds it; ``line`` itself when there is none."""
    import ast

    try:
        with open(path, "rb") as f:
            tree = ast.parse(f.read())
    except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
        return line
    best = line
    scopes = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
    loops = (ast.For, ast.AsyncFor, ast.While)

    def visit(node: ast.AST, loop: int | None) -> None:
        nonlocal best
        for child in ast.iter_child_nodes(node):
            start, end = getattr(child, "lineno", None), getattr(child, "end_lineno", None)
            if start is None or end is None:
                visit(child, loop)  # arguments, comprehension parts: no position of their own
                continue
            if not start <= line <= end:
                continue
            if isinstance(child, scopes):
                best = line  # a new function: its loops, not the ones around its definition
                visit(child, None)
                continue
            here = loop if loop is not None else (start if isinstance(child, loops) else None)
            if here is not None:
                best = here
            visit(child, here)

    try:
        visit(tree, None)
    except RecursionError:
        return line
    return best


class Pool:
    def __init__(self, settings: DynamicSettings, workers: int, command: Sequence[str]) -> None:
        #: the argv of a worker (:func:`jaxlint.dynamic.worker.main` with its analysers)
        self.command = command
        self.settings = settings
        self.n = max(1, workers)
        #: in every worker's environment: finds what user code started, even daemonised
        self.tag = procs.new_tag()
        self.env = procs.tagged(worker_env(settings), self.tag)
        self.log_dir = tempfile.mkdtemp(prefix="jaxlint-workers-")
        self.procs: list[_Proc] = []
        self.count = 0
        self.versions: dict = {}
        #: worker restarts after a crash or timeout (for the summary)
        self.restarts = 0

    # ------------------------------------------------------------------ helpers
    def _spawn(self) -> _Proc:
        self.count += 1
        p = _Proc(self.command, self.env, self.log_dir, self.count)
        self.procs.append(p)
        return p

    def _timeout_for(self, step: str) -> float:
        if step == "import":
            return float("inf")  # bounded by the file deadline
        if step == "trace":
            return self.settings.function_timeout
        if step == "compile":
            return self.settings.compile_timeout
        return self.settings.function_timeout

    def _start(self, p: _Proc, job: FileJob) -> bool:
        now = time.monotonic()
        if not job.started:
            job.started = True
            job.deadline = now + self.settings.file_timeout
        p.job = job
        p.step = "import"
        p.function = None
        p.step_deadline = float("inf")
        p.log_offset = p.log_size()
        req = dict(job.request)
        req["id"] = job.id
        req["functions"] = [f for f in job.request["functions"] if f["qualname"] in job.remaining]
        return p.send(req)

    # ------------------------------------------------------------------ the loop
    def run(self, jobs: list[FileJob]) -> dict[int, FileResult]:
        results: dict[int, FileResult] = {j.id: FileResult() for j in jobs}
        pending: deque[FileJob] = deque(jobs)
        for j in jobs:
            j.remaining = [f["qualname"] for f in j.request["functions"]]
        #: the compile tier needs the configured backend's devices; tracing does not
        self.needs_backend = any("compile" in (j.request.get("levels") or ()) for j in jobs)
        want = min(self.n, len(jobs))
        while len([p for p in self.procs if not p.dead]) < want:
            self._spawn()
        start_failures = 0
        try:
            while pending or any(p.job is not None for p in self.procs if not p.dead):
                live = [p for p in self.procs if not p.dead]
                for p in live:
                    if p.ready and p.job is None and pending:
                        if not self._start(p, pending.popleft()):
                            self._crashed(p, results, pending, None)
                needed = min(self.n, len([p for p in live if p.job is not None]) + len(pending))
                while len([p for p in self.procs if not p.dead]) < needed:
                    self._spawn()
                live = [p for p in self.procs if not p.dead]
                now = time.monotonic()
                deadlines = [min(p.step_deadline, p.job.deadline) for p in live if p.job is not None]
                deadlines += [p.started + STARTUP_TIMEOUT for p in live if not p.ready]
                timeout = max(0.0, min(deadlines) - now) if deadlines else 1.0
                watch = 0.5 if self.settings.memory_limit_mb > 0 else 5.0
                ready, _, _ = select.select(live, [], [], min(timeout, watch))
                for p in ready:
                    events = p.read_events()
                    if events is None:
                        if not p.ready:
                            start_failures += 1
                            if start_failures >= 2:
                                raise WorkerStartError(self._start_error(p))
                        self._crashed(p, results, pending, None)
                        continue
                    for ev in events:
                        self._event(p, ev, results, pending)
                now = time.monotonic()
                for p in [p for p in self.procs if not p.dead]:
                    if not p.ready and now > p.started + STARTUP_TIMEOUT:
                        p.kill(dump=False)
                        raise WorkerStartError("a dynamic-phase worker did not start within "
                                               f"{STARTUP_TIMEOUT:.0f} s")
                    if p.job is None:
                        continue
                    limit_mb = self.settings.memory_limit_mb
                    if limit_mb > 0 and p.rss_mb() > limit_mb:
                        self._crashed(p, results, pending,
                                      f"used more memory than memory-limit-mb = {limit_mb} MiB and was stopped")
                    elif now > p.job.deadline:
                        self._crashed(p, results, pending,
                                      f"timed out: the file took longer than file-timeout = {self.settings.file_timeout:g} s",
                                      whole_file=True)
                    elif now > p.step_deadline:
                        limit = self._timeout_for(p.step or "trace")
                        what = "compiling" if p.step == "compile" else "tracing"
                        self._crashed(p, results, pending,
                                      f"timed out after {limit:g} s {what} the function (a hang or an endless loop?)")
        except BaseException:
            self.close(graceful=False)
            raise
        return results

    def _start_error(self, p: _Proc) -> str:
        p.kill(dump=False)
        tail = p.log_text().strip().splitlines()[-5:]
        n, mb = self.settings.devices, self.settings.memory_limit_mb
        if n > 1 and not any("Error" in line for line in tail):  # a crash, no Python error: say what it needs
            return (f"cannot start a dynamic-phase worker with {n} devices (forced host devices: `devices`, or as many as "
                    f"the recorded program had) under "
                    f"memory-limit-mb = {mb}: use fewer `devices`, or raise `memory-limit-mb` in "
                    "[tool.jaxlint.dynamic] (0 disables the cap)")
        return "cannot start a dynamic-phase worker" + (": " + " / ".join(tail) if tail else "")

    def _event(self, p: _Proc, ev: dict, results: dict[int, FileResult], pending: deque) -> None:
        kind = ev.get("event")
        if kind == "ready":
            if ev.get("unavailable") and getattr(self, "needs_backend", False):
                p.kill(dump=False)
                raise WorkerStartError(ev["unavailable"])
            p.ready = True
            p.versions = ev.get("versions", {})
            self.versions = self.versions or p.versions
            return
        if kind == "fatal":
            p.kill(dump=False)
            raise WorkerStartError(ev.get("reason", "the dynamic-phase worker failed to start"))
        job = p.job
        if job is None or ev.get("id") != job.id:
            return
        res = results[job.id]
        if kind == "begin":
            p.step = ev.get("step")
            p.function = ev.get("function")
            limit = self._timeout_for(p.step or "trace")
            p.step_deadline = time.monotonic() + limit
        elif kind == "partial":
            p.partial[ev["function"]] = ev.get("diagnostics", [])
        elif kind == "function":
            res.functions[ev["function"]] = ev
            if ev["function"] in job.remaining:
                job.remaining.remove(ev["function"])
            p.step_deadline = float("inf")
        elif kind == "file_failed":
            res.failed = {"reason": ev.get("reason"), "path": ev.get("path"), "line": ev.get("line")}
            job.remaining = []
            p.job = None
        elif kind == "done":
            res.import_seconds = ev.get("import_seconds")
            res.x64 = ev.get("x64")
            p.job = None

    def _crashed(self, p: _Proc, results: dict[int, FileResult], pending: deque, reason: str | None,
                 whole_file: bool = False) -> None:
        """The worker died or must die: record the failure, replace the worker, go on."""
        job, step, function = p.job, p.step, p.function
        partial = p.partial.get(function or "", [])
        p.kill(dump=reason is not None)
        log = p.log_text(p.log_offset)
        rc = p.p.returncode
        p.close()
        self.procs.remove(p)
        if job is None:
            return
        self.restarts += 1
        if reason is None:
            reason = f"the worker {exit_reason(rc, log, self.settings.memory_limit_mb)}"
        where = stack_line(log, job.request["path"], job.roots, stopped=reason is not None)
        res = results[job.id]
        if step == "import" or function is None or whole_file:
            if step == "import" or function is None:
                res.failed = {"reason": f"{reason} while importing the module", "path": where[0] if where else None,
                              "line": where[1] if where else None}
            else:
                for q in job.remaining:
                    res.functions[q] = {"status": "failed", "reason": reason,
                                        "path": where[0] if where and q == function else None,
                                        "line": where[1] if where and q == function else None, "diagnostics": []}
            job.remaining = []
            return
        res.functions[function] = {"status": "failed", "reason": reason,
                                   "path": where[0] if where else None, "line": where[1] if where else None,
                                   "diagnostics": partial}
        if function in job.remaining:
            job.remaining.remove(function)
        if job.remaining:
            pending.appendleft(job)  # the rest of the file goes on in a fresh worker

    def close(self, graceful: bool = True) -> None:
        """Stop every worker (asked to exit first when ``graceful``), kill everything
        they started, and remove the log folder. Safe to call again."""
        try:
            for p in list(self.procs):
                p.close(graceful)
                self.procs.remove(p)
        finally:  # a signal may cut the graceful part short: the rest kills, never waits on user code
            for p in list(self.procs):
                p.close(graceful=False)
            self.procs.clear()
            procs.kill_tagged(self.tag)
            shutil.rmtree(self.log_dir, ignore_errors=True)
