"""The dynamic phase for the editor: ``jaxlint check --dynamic`` on a saved file, in a
child process.

The server never imports jax or the user's code: the child does (and its own worker
pool under it), so a crash, hang or ``sys.exit`` in user code cannot take the server
down. Cancelling a run (a newer save) interrupts the child, which closes its worker
pool on the way out (its workers live in sessions of their own); a child that does
not end within :data:`STOP_GRACE` seconds is killed with its process group.
"""
from __future__ import annotations

import asyncio
import json
import os
import signal
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Sequence

from jaxlint.process import procs
from jaxlint.process.launch import module_command
from jaxlint.config import Settings
from jaxlint.diagnostic import Diagnostic

#: children still running, killed when the server shuts down
RUNNING: set = set()
#: pid of a child -> the process tag of its run (see :mod:`jaxlint.process.procs`)
TAGS: dict[int, str] = {}

#: seconds an interrupted child gets to close its workers before it is killed
STOP_GRACE = 8.0

#: seconds allowed on top of the configured per-file timeout (the child's own start-up)
_GRACE = 60.0


@dataclass
class DynamicOutcome:
    diagnostics: list[Diagnostic] = field(default_factory=list)
    #: why the run gave nothing, for the user (None when it ran)
    error: str | None = None
    #: the installed jaxlint has no dynamic phase (say it once, then stop trying)
    unavailable: bool = False


def command(path: Path, settings: Settings, overrides: Mapping[str, Sequence[str]],
            explicit: Path | None, isolated: bool, recorded_only: bool = False) -> list[str]:
    """The child's command line; ``recorded_only``: only what `jaxlint record` observed
    (the dynamic phase is off: nothing of the user's is imported)."""
    cmd = [*module_command("jaxlint", "check"), "--dynamic", "--output-format", "json",
           "--exit-zero", "--quiet", "--ignore-noqa"]  # the server supersedes, then suppresses
    if recorded_only:  # what the recording compiled too: compiling nothing here
        cmd += ["--recorded-only", "--compile"]
    if explicit is not None:
        cmd += ["--config", str(explicit)]
    if isolated:
        cmd.append("--isolated")
    for key, flag in (("select", "--select"), ("extend_select", "--extend-select"), ("ignore", "--ignore")):
        if overrides.get(key):
            cmd += [flag, ",".join(overrides[key])]
    cmd.append(str(path))
    return cmd


async def run(cmd: list[str], cwd: Path, timeout: float) -> DynamicOutcome:
    """Run ``cmd``; cancelling the awaiting task kills the child's process group."""
    tag = procs.new_tag()  # the child's workers and what user code starts in them carry it too
    proc = await asyncio.create_subprocess_exec(
        *cmd, cwd=str(cwd), stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE, start_new_session=(os.name == "posix"),
        env=procs.tagged(dict(os.environ), tag),
    )
    TAGS[proc.pid] = tag
    RUNNING.add(proc)
    try:
        out, err = await asyncio.wait_for(proc.communicate(), timeout)
    except asyncio.TimeoutError:
        return DynamicOutcome(error=f"the dynamic phase took longer than {timeout:.0f} s and was stopped")
    finally:
        if proc.returncode is None:
            _stop(proc)
        else:
            RUNNING.discard(proc)
            TAGS.pop(proc.pid, None)
    stderr = err.decode("utf-8", errors="replace").strip()
    if proc.returncode != 0:
        unavailable = "--dynamic" in stderr and "unrecognized arguments" in stderr
        tail = stderr.splitlines()[-1] if stderr else f"exit status {proc.returncode}"
        return DynamicOutcome(error=tail, unavailable=unavailable)
    try:
        objs = json.loads(out.decode("utf-8", errors="replace") or "[]")
        diags = [Diagnostic.from_dict(o) for o in objs]
    except (ValueError, KeyError, TypeError) as e:
        return DynamicOutcome(error=f"unreadable output from the dynamic phase: {e}")
    found = [_absolute(d, cwd) for d in diags if d.phase.value != "static"]
    return DynamicOutcome(found)


def _absolute(d: Diagnostic, cwd: Path) -> Diagnostic:
    """The child names files relative to its working directory; the server uses absolute paths."""
    from dataclasses import replace

    related = tuple(replace(r, path=str((cwd / r.path).resolve())) for r in d.related)
    return replace(d, path=str((cwd / d.path).resolve()), related=related)


def _stop(proc: asyncio.subprocess.Process) -> None:
    """Interrupt ``proc`` now and kill it later if it lingers, without waiting here (a
    cancelled run must not hold up the newer one)."""
    try:
        proc.send_signal(signal.SIGINT)  # the CLI's KeyboardInterrupt path closes its pool
    except ProcessLookupError:
        RUNNING.discard(proc)
        return

    async def reap() -> None:
        try:
            await asyncio.wait_for(proc.wait(), STOP_GRACE)
        except asyncio.TimeoutError:
            _kill(proc)
            await proc.wait()
        finally:
            RUNNING.discard(proc)
            TAGS.pop(proc.pid, None)

    asyncio.ensure_future(reap())


async def stop_all() -> None:
    """Stop every running child (server shutdown), waiting at most :data:`STOP_GRACE`."""
    procs = [p for p in RUNNING if p.returncode is None]
    for p in procs:
        try:
            p.send_signal(signal.SIGINT)
        except ProcessLookupError:
            pass
    if procs:
        try:
            await asyncio.wait_for(asyncio.gather(*(p.wait() for p in procs)), STOP_GRACE)
        except asyncio.TimeoutError:
            kill_all()


def _kill(proc: asyncio.subprocess.Process) -> None:
    """Kill the child, its process group, and what it left in other sessions (its
    workers, daemons of user code): the child had no time to close its pool."""
    try:
        if os.name == "posix":
            os.killpg(proc.pid, signal.SIGKILL)
        else:  # pragma: no cover - Windows has no process groups here
            proc.kill()
    except (ProcessLookupError, PermissionError):
        pass
    tag = TAGS.pop(proc.pid, None)
    if tag is not None:
        procs.kill_tagged(tag)


def kill_all() -> None:
    for proc in list(RUNNING):
        if proc.returncode is None:
            _kill(proc)


def timeout_for(settings: Settings) -> float:
    return float(settings.dynamic.file_timeout) + _GRACE


def recording_of(path: Path, settings: Settings) -> Path | None:
    """The `jaxlint record` observations of ``path``'s project, if any: under the config's
    folder, else the nearest folder above with a ``.jaxlint/observed.json`` (up to a
    repository's top)."""
    folders = [settings.root] if settings.config_file else list(path.resolve().parents)
    for folder in folders:
        observed = Path(folder) / ".jaxlint" / "observed.json"
        if observed.is_file():
            return observed
        if (Path(folder) / ".git").exists():
            break
    return None
