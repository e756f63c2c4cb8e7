"""What a ``jaxlint record`` run leaves behind when it cannot write its recording.

Each run keeps what its program's processes write (records, observations, pickles) in
a folder of its own, ``$TMPDIR/jaxlint-record-*``, beside ``run.json``: the run's
process (id and start time), the recording it writes and the tag its program's
processes carry. At its end the run merges the folder into the recording and removes
it. Two ends leave the folder behind:

* ``record`` killed by SIGKILL: nothing of it runs. Its program is stopped (the
  kernel's parent-death signal, the recorder's watch of ``record``) and writes what it
  observed into the folder as a stopped program does;
* a full disk when the recording is written (:func:`keep`): each file of the recording
  is the old one or the new one, and the run says where its parts are.

The next ``record`` into the same recording, or ``record --recover``, merges such a
folder as the run would have (one killed merges as an interrupted run does: it adds,
and removes nothing) and removes it. A folder left by a run into another recording is
named, not touched.

Never imports jax.
"""
from __future__ import annotations

import contextlib
import errno as errnos
import json
import os
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, Iterator

from jaxlint.process import procs

PREFIX = "jaxlint-record-"
RUN = "run.json"
#: seconds the processes a killed run left running get to end after SIGTERM
STRAGGLER_GRACE = 5.0


def where(target: Path) -> str:
    """The recording's file as runs name it: its folder resolved, whatever the cwd."""
    return str(target.parent.resolve() / target.name)


def new_run(target: Path, tag: str, root: Path | None = None) -> Path:
    """The folder of a new run, with its ``run.json`` (``root``: the recorded project's)."""
    from jaxlint.files.cache import atomic_write

    work = Path(tempfile.mkdtemp(prefix=PREFIX))
    info = {"pid": os.getpid(), "started": procs.start_time(os.getpid()), "target": where(target), "tag": tag}
    if root is not None:
        info["root"] = str(root)
    atomic_write(work / RUN, json.dumps(info).encode("utf-8"))
    return work


def keep(work: Path, replace: bool, complete: bool) -> None:
    """Mark a run's folder as kept by its run (it could not write the recording): how its
    parts are to be merged. A failure here leaves the default, an interrupted run's merge."""
    from jaxlint.files.cache import atomic_write

    try:
        info = json.loads((work / RUN).read_text("utf-8"))
        info.update(complete=complete, replace=replace)
        atomic_write(work / RUN, json.dumps(info).encode("utf-8"))
    except (OSError, ValueError):
        pass


def unwritten(target: Path, e: OSError, work: Path) -> str:
    """The one line for a recording that could not be written."""
    name = errnos.errorcode.get(e.errno or 0)
    cause = f"{e.strerror} ({name})" if e.strerror and name else str(e)
    return (f"cannot write the recording {target}: {cause}; each of its files is as it was or whole, and nothing "
            f"this run recorded is lost: its parts are kept in {work}. Make room, then `jaxlint record "
            f"--recover` merges them (so does the next `jaxlint record` into {target.name})")


def read_parts(out_dir: Path, kind: str) -> list[dict]:
    """What each process of a run wrote of ``kind`` (records, observed, errors, library);
    one it left unreadable (killed while writing) is left out, with a warning."""
    from jaxlint.config import ConfigError
    from jaxlint.files import untrusted

    parts = []
    for f in sorted(out_dir.glob(f"{kind}-*.json")):
        try:
            part = untrusted.read_json(f, f"the {kind} of one process")
        except (OSError, ConfigError) as e:  # a process killed while writing: say what is lost
            print(f"jaxlint record: warning: the {kind} of one process are unreadable and left out "
                  f"({type(e).__name__}: {e})", file=sys.stderr)
            continue
        if isinstance(part, dict):
            parts.append(part)
    return parts


def recover(target: Path, report: Callable[[str], None]) -> bool:
    """Merge into ``target`` what earlier runs into it left (see the module's docstring),
    saying what was done with each folder; False when one could not be written."""
    ok = True
    mine = where(target)
    for work, info in _stale():
        if info.get("target") != mine:
            report(f"{work} holds what a run of `jaxlint record` into {info.get('target')} left (it ended without "
                   f"writing it); `jaxlint record --recover --signatures {info.get('target')}` merges it")
            continue
        with _claimed(work) as claimed:
            if claimed:
                ok = _merge(work, target, info, report) and ok
    return ok


def _stale() -> Iterator[tuple[Path, dict]]:
    """The folders of this user's runs whose ``record`` process is gone."""
    from jaxlint.config import ConfigError
    from jaxlint.files import untrusted

    for work in sorted(Path(tempfile.gettempdir()).glob(PREFIX + "*")):
        try:
            if work.is_symlink() or not work.is_dir() or work.stat().st_uid != os.getuid():
                continue
            info = untrusted.read_json(work / RUN, "a record run's description")
        except (OSError, ConfigError):
            continue  # another program's folder, or one being made (its run.json comes next)
        if not isinstance(info, dict) or not isinstance(info.get("target"), str):
            continue
        pid, started = info.get("pid"), info.get("started")
        if isinstance(pid, int) and started is not None and procs.start_time(pid) == started:
            continue  # its run is under way
        yield work, info


@contextlib.contextmanager
def _claimed(work: Path) -> Iterator[bool]:
    """Whether this process holds the folder (two runs starting at once merge it once)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        yield True
        return
    try:
        fd = os.open(work, os.O_RDONLY)
    except OSError:
        yield False
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            yield False
            return
        yield work.exists()
    finally:
        os.close(fd)


def _stop_stragglers(tag: object, report: Callable[[str], None]) -> None:
    """Processes of a killed run's program still running (one that ignores SIGTERM, a
    shell's child): SIGTERM, then SIGKILL after :data:`STRAGGLER_GRACE` seconds."""
    if not isinstance(tag, str) or not tag:
        return
    pids = procs.tagged_pids(tag)
    if not pids:
        return
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + STRAGGLER_GRACE
    while procs.tagged_pids(tag) and time.monotonic() < deadline:
        time.sleep(0.1)
    procs.kill_tagged(tag)
    report(f"stopped {len(pids)} process{'es' if len(pids) != 1 else ''} an earlier run's program left running")


def _merge(work: Path, target: Path, info: dict, report: Callable[[str], None]) -> bool:
    from jaxlint.dynamic import recording

    _stop_stragglers(info.get("tag"), report)
    out = work / "out"
    records, observed, compiles = read_parts(out, "records"), read_parts(out, "observed"), read_parts(out, "compiles")
    if not records and not observed and not compiles:
        shutil.rmtree(work, ignore_errors=True)
        report(f"removed {work}: an earlier run left it with nothing recorded")
        return True
    pickles = {f.stem: f for f in (out / "pickles").glob("*.pickle")}
    complete = info.get("complete") is True
    try:
        saved = recording.save(target, records, pickles, observed, complete=complete,
                               replace=info.get("replace") is True, compile_parts=compiles,
                               root=Path(info["root"]) if isinstance(info.get("root"), str) else None)
    except OSError as e:
        report(unwritten(target, e, work))
        return False
    n = sum(len(e.get("signatures") or []) for e in saved.recorded.values())
    report(f"merged into {target} what an earlier run left in {work} (it ended without writing it: killed, or "
           f"the disk was full): {n} signature{'s' if n != 1 else ''} "
           f"of {len(saved.recorded)} jitted function{'s' if len(saved.recorded) != 1 else ''}"
           + (f", {len(saved.observed)} observed" if saved.observed else ""))
    shutil.rmtree(work, ignore_errors=True)
    return True
