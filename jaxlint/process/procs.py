"""Processes that run user code, and every process they start: none outlives jaxlint.

User code can fork, spawn (``subprocess.Popen(["sleep", "120"])``), or daemonise
(``setsid`` and a double fork), so neither a process group nor a session holds
everything it started. Each process jaxlint starts for user code therefore gets:

* a session of its own (``start_new_session``), whose process group is killed when it
  is done, on every exit path: normal, exception, SIGTERM, SIGHUP;
* a tag in its environment (:data:`TAG_VAR`), which its children inherit, also across
  ``setsid``; :func:`kill_tagged` finds and kills the stragglers by it (Linux ``/proc``;
  elsewhere the process group is all there is).

:func:`exit_on_signals` makes SIGTERM and SIGHUP raise ``SystemExit`` in the main
thread, so that the ``finally`` blocks that do this run when jaxlint itself is told
to stop.
"""
from __future__ import annotations

import contextlib
import os
import signal
import time
from typing import TYPE_CHECKING, Callable, Iterator

if TYPE_CHECKING:
    import subprocess

#: the environment variable that marks a process (and its descendants) as jaxlint's
TAG_VAR = "JAXLINT_PROCESS_TAG"


def new_tag() -> str:
    import uuid  # here: a check without worker processes (one file, static) never loads it

    return uuid.uuid4().hex


def tagged(env: dict, tag: str) -> dict:
    """``env`` with ``tag`` added for the processes started with it (tags add up: the
    workers of a ``jaxlint check`` started by the language server carry both)."""
    prev = env.get(TAG_VAR)
    return {**env, TAG_VAR: f"{prev}:{tag}" if prev else tag}


def tagged_pids(tag: str) -> list[int]:
    """Live processes whose environment carries ``tag`` (Linux; empty elsewhere)."""
    prefix = f"{TAG_VAR}=".encode()
    want = tag.encode()
    me = os.getpid()
    out: list[int] = []
    try:
        names = os.listdir("/proc")
    except OSError:
        return out
    for name in names:
        if not name.isdigit() or int(name) == me:
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as f:
                env = f.read()
        except OSError:  # gone, a zombie, or not ours
            continue
        for entry in env.split(b"\0"):
            if entry.startswith(prefix) and want in entry[len(prefix):].split(b":"):
                out.append(int(name))
                break
    return out


def kill_tagged(tag: str, rounds: int = 20) -> int:
    """SIGKILL every process carrying ``tag``, again until none is left (one may fork
    while the others die; a zombie shows no environment); the number killed."""
    killed: set[int] = set()
    for _ in range(rounds):
        pids = tagged_pids(tag)
        if not pids:
            break
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
                killed.add(pid)
            except OSError:
                pass
        time.sleep(0.01)
    return len(killed)


def start_time(pid: int) -> str | None:
    """When process ``pid`` started, in clock ticks since boot (``/proc/PID/stat``), which
    tells it from a later process given the same id; None when it is gone (or not Linux)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
        return stat[stat.rindex(b")") + 2:].split()[19].decode()
    except (OSError, ValueError, IndexError):
        return None


def die_with_parent() -> "Callable[[], None] | None":
    """A ``preexec_fn`` for a child that must not outlive this process: the kernel sends
    it SIGTERM when this process dies, also by SIGKILL (Linux's ``PR_SET_PDEATHSIG``);
    None where there is no such thing. Prepared here: between fork and exec the child
    only calls it (no import, no allocation to speak of)."""
    import ctypes

    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):  # pragma: no cover - not Linux
        return None
    parent = os.getpid()

    def preexec() -> None:
        prctl(1, signal.SIGTERM, 0, 0, 0)  # PR_SET_PDEATHSIG
        if os.getppid() != parent:  # died before the call above: the signal never comes
            os.kill(os.getpid(), signal.SIGTERM)

    return preexec


def kill_group(pid: int) -> None:
    """SIGKILL the process group led by ``pid`` (a process started in a new session)."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except (OSError, AttributeError):
        pass


def stop(proc: subprocess.Popen, tag: str | None, grace: float = 0.0) -> None:
    """End ``proc`` (started with ``start_new_session``) and everything it started:
    after ``grace`` seconds for it to end on its own, its process group is killed, it
    is reaped, and the processes carrying ``tag`` are killed. Safe to call twice."""
    import subprocess  # here: the CLI imports this module for exit_on_signals alone

    if grace > 0 and proc.poll() is None:
        try:
            proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            pass
    # kill the group before reaping the leader: until then its id cannot be reused
    kill_group(proc.pid)
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:  # pragma: no cover - SIGKILL is not refused
        pass
    if tag is not None:
        kill_tagged(tag)


class _Stop(SystemExit):
    """SIGTERM or SIGHUP, raised as ``SystemExit(128 + signal)``."""


@contextlib.contextmanager
def exit_on_signals() -> Iterator[None]:
    """While in this block (in the main thread), SIGTERM and SIGHUP raise ``SystemExit``
    (status 128 + the signal) so that cleanup runs; a second signal during that cleanup
    is ignored (it is bounded: kills, no waits on user code). Outside the main thread
    ``signal.signal`` refuses (``ValueError``), so nothing is installed there (and
    ``threading`` need not be imported to ask which thread this is)."""
    wanted = [s for s in ("SIGTERM", "SIGHUP") if hasattr(signal, s)]
    old = {}
    raised: list[int] = []

    def handler(signum, frame):
        if raised:
            return
        raised.append(signum)
        raise _Stop(128 + signum)

    for name in wanted:
        sig = getattr(signal, name)
        if signal.getsignal(sig) is signal.SIG_IGN:  # nohup: the user asked to ignore it
            continue
        try:
            old[sig] = signal.signal(sig, handler)
        except (OSError, ValueError):
            pass
    try:
        yield
    finally:
        for sig, h in old.items():
            try:
                signal.signal(sig, h)
            except (OSError, ValueError, TypeError):
                pass
