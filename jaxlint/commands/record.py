"""``jaxlint record [--compile] [--keep-ir] [--signatures FILE] -- CMD [ARGS...]``: run a
program and analyse every jitted function it calls.

The recording run is an analysis run: inside the program, the first call of each new
signature of every jitted function of the project is traced and checked with the
trace rules (``--compile``: the executable the program compiled is checked with the
compile rules too; nothing is compiled twice), and what jax really compiled is
counted (see :mod:`jaxlint.dynamic.observer`). The findings go to
``.jaxlint/observed.json`` beside the signatures (:mod:`jaxlint.dynamic.observed`);
``jaxlint check --dynamic``, the hooks and the editor report them while the code is
unchanged. ``--no-analysis`` records signatures only.

Runs CMD (``python train.py --steps 1``, ``pytest tests/test_model.py``,
``python -m pkg.train``) with the jit-like transforms (``jax.jit``, ``jax.pmap``,
``equinox.filter_jit``, ``flax.nnx.jit``) instrumented in every Python process it
starts (a ``sitecustomize`` shim on ``PYTHONPATH``; see
:mod:`jaxlint.dynamic.recorder`), then writes the distinct abstract signatures of each
jitted function of the project to ``.jaxlint/signatures.json`` at the project root:
sorted and stable, meant to be reviewed and committed (no timings: an unchanged program
recorded again changes no byte). Functions recorded by this run replace their old
entries; other entries are kept. A run that does not complete (the command fails, or
Ctrl-C) only adds to the recording: nothing it did not see again is removed
(:mod:`jaxlint.dynamic.recording`). Arguments that JSON cannot
rebuild (models, optimizer states) are saved abstractly beside the file, in
``.jaxlint/signatures.pickles/`` (content-addressed; commit it with the file).
Exit status: CMD's; 2 when the recording cannot be written (a full disk: the run's parts
are kept for ``--recover``, see :mod:`jaxlint.dynamic.leftovers`).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from jaxlint.dynamic import leftovers
from jaxlint.process import procs

SHIM = '''\
# Written by `jaxlint record`: instruments jax.jit and friends in this process, then runs any
# sitecustomize that this one shadows.
import importlib.util as _u
import os as _os
import sys as _sys

try:
    from {recorder} import install as _install
    from {levels} import analysers as _analysers, hand_rules as _hand_rules
    _hand_rules()
    _install(_analysers)
except Exception as _e:  # jaxlint not importable by this interpreter: record nothing
    _sys.stderr.write(f"jaxlint record: not recording in {{_sys.executable}}: {{_e}}\\n")

_here = _os.path.dirname(_os.path.abspath(__file__))
for _p in list(_sys.path):
    if _p and _os.path.abspath(_p) != _here:
        _f = _os.path.join(_p, "sitecustomize.py")
        if _os.path.isfile(_f):
            _s = _u.spec_from_file_location("_jaxlint_chained_sitecustomize", _f)
            if _s and _s.loader:
                _s.loader.exec_module(_u.module_from_spec(_s))
            break
'''


def shim() -> str:
    """The shim's text, naming the recorder and the analysis levels by the modules
    imported here (no module name written in a string: tests/test_architecture.py)."""
    from jaxlint.dynamic import recorder
    from jaxlint.inspect import levels

    return SHIM.format(recorder=recorder.__name__, levels=levels.__name__)


def add_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "record",
        help="run a command with jit instrumented and record the signatures it was called with",
        description="Record the abstract signatures of jitted functions while CMD runs, for "
                    "`jaxlint check --dynamic`. Example: jaxlint record -- python train.py --steps 1",
    )
    p.add_argument("--signatures", metavar="FILE",
                   help="where to write (default: .jaxlint/signatures.json at the project root)")
    p.add_argument("--root", metavar="DIR", help="project root (default: the config root, else the nearest "
                                                 "directory with pyproject.toml, setup.py or .git)")
    p.add_argument("--replace", action="store_true", help="drop entries of functions this run did not call")
    p.add_argument("--compile", action="store_true",
                   help="also check what XLA compiled for each function (JAX3xx), from the program's own compiles")
    p.add_argument("--keep-ir", action="store_true",
                   help="keep each function's jaxpr, StableHLO and optimized HLO for `jaxlint inspect` "
                        "(compressed, in .jaxlint/observed.ir/)")
    p.add_argument("--no-analysis", action="store_true", help="record signatures only; analyse nothing")
    p.add_argument("--recover", action="store_true",
                   help="run no command: merge into the recording what earlier runs left in the temporary "
                        "folder (a run killed by SIGKILL, or one that found the disk full)")
    from jaxlint.pipeline import add_check_flag

    # compile each function for a target in the program (what `check --target` cannot
    # import: functions defined inside others), instead of reading the program's compiles
    add_check_flag(p, "target")
    p.add_argument("cmd", nargs=argparse.REMAINDER, help="-- CMD [ARGS...]")
    return p


def _root(args) -> Path:
    from jaxlint.config import find_config_file
    from jaxlint.dynamic import project

    if args.root:
        return Path(args.root).resolve()
    cfg = find_config_file(Path.cwd())
    return project.project_root(Path.cwd() / "_", cfg.parent if cfg else None)


def run(args) -> int:
    from jaxlint.config import ConfigError
    from jaxlint.dynamic import recording, signatures
    from jaxlint.dynamic import observed as observations

    cmd = list(args.cmd)
    if cmd and cmd[0] == "--":
        cmd = cmd[1:]
    if args.recover and cmd:
        raise ConfigError("record: --recover runs no command; give either --recover or the command after `--`")
    if not cmd and not args.recover:
        raise ConfigError("record: give the command to run after `--`, e.g. jaxlint record -- python train.py")
    root = _root(args)
    target = Path(args.signatures) if args.signatures else root / ".jaxlint" / "signatures.json"
    if args.recover:
        _check_target(target, False, True)
        said: list[str] = []

        def report(line: str) -> None:
            said.append(line)
            _report(line)

        ok = leftovers.recover(target, report)
        if not said:
            _report(f"nothing to recover: no earlier run into {target} left anything in {tempfile.gettempdir()}")
        return 0 if ok else 2
    # `python` and `pytest` mean jaxlint's own interpreter: the recorder must be importable
    # there, and the dynamic phase will import the code with it anyway
    if cmd[0] in ("python", "python3"):
        cmd[0] = sys.executable
    elif cmd[0] == "pytest":
        cmd = [sys.executable, "-m", "pytest", *cmd[1:]]
    elif cmd[0] == "jupyter" and (Path(sys.executable).parent / "jupyter").is_file():
        # `jupyter execute nb.ipynb` (nbclient): its kernel is a child of that interpreter
        cmd[0] = str(Path(sys.executable).parent / "jupyter")
    levels = [] if args.no_analysis else ["trace"] + (["compile"] if args.compile or args.target else [])
    target_env = _target_env(args.target, root)
    _check_target(target, args.replace, bool(levels))
    leftovers.recover(target, _report)
    tag = procs.new_tag()
    try:
        work = leftovers.new_run(target, tag, root)
    except OSError as no_room:
        raise ConfigError(f"record: cannot write to the temporary folder {tempfile.gettempdir()} "
                          f"({no_room.strerror or no_room}); the command was not run: make room, or set TMPDIR") from None
    kept = False
    try:
        shim_dir = work / "shim"
        out_dir = work / "out"
        try:
            shim_dir.mkdir()
            out_dir.mkdir()
            (shim_dir / "sitecustomize.py").write_text(shim())
        except OSError as no_room:
            raise ConfigError(f"record: cannot write to the temporary folder {work} ({no_room.strerror or no_room}); "
                              f"the command was not run: make room, or set TMPDIR") from None
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([str(shim_dir), *[p for p in [env.get("PYTHONPATH")] if p]])
        env["JAXLINT_RECORD_DIR"] = str(out_dir)
        env["JAXLINT_RECORD_ROOT"] = str(root)
        env["JAXLINT_OBSERVE"] = ",".join(levels)
        env["JAXLINT_KEEP_IR"] = "1" if args.keep_ir else ""
        env.pop("JAXLINT_TARGET", None)
        env.update(target_env)
        # a Jupyter kernel finds which notebook cell it runs by content, in these notebooks
        notebooks = [str(Path(a).resolve()) for a in cmd[1:] if a.endswith(".ipynb") and Path(a).is_file()]
        env["JAXLINT_RECORD_NOTEBOOKS"] = os.pathsep.join(notebooks)
        # the program's processes watch this one: they stop if it is killed (`_watch_record`)
        env["JAXLINT_RECORD_PID"] = str(os.getpid())
        env["JAXLINT_RECORD_STARTED"] = procs.start_time(os.getpid()) or ""
        rc, stopped = _run(cmd, env, tag)
        complete = rc == 0 and stopped is None
        observed_parts = leftovers.read_parts(out_dir, "observed") if levels else []
        errors = _merge_errors(leftovers.read_parts(out_dir, "errors"))
        found = {f.stem: f for f in (out_dir / "pickles").glob("*.pickle")}
        try:
            saved = recording.save(target, leftovers.read_parts(out_dir, "records"), found, observed_parts,
                                   complete=complete, replace=args.replace,
                                   compile_parts=leftovers.read_parts(out_dir, "compiles") if levels else [],
                                   root=root)
        except OSError as full:  # a full disk: the parts stay where they are, for --recover
            kept = True
            leftovers.keep(work, complete and args.replace, complete)
            print(f"jaxlint record: {leftovers.unwritten(target, full, work)}", file=sys.stderr)
            return 2
        recorded, functions = saved.recorded, saved.observed
        if rc != 0 or stopped is not None:
            print("jaxlint record: the command did not complete: what it recorded is merged into the recording"
                  + (f" ({saved.kept_signatures} earlier signature{'s' if saved.kept_signatures != 1 else ''} "
                     "it did not call again kept)" if saved.kept_signatures else "")
                  + ("; --replace is ignored" if args.replace else ""), file=sys.stderr)
        n_sigs = sum(len(e["signatures"]) for e in recorded.values())
        # several records of one function are several compiles only where jit tells
        # them apart (the recompilation rule's notion, not a count of records)
        multi = [k for k, e in recorded.items()
                 if len(signatures.distinct([s for s in e["signatures"] if not s.get("inlined")],
                                            e.get("transform") != "filter_jit")) > 1]
        try:
            shown = target.resolve().relative_to(Path.cwd().resolve())
        except ValueError:
            shown = target
        print(f"jaxlint record: {n_sigs} signature{'s' if n_sigs != 1 else ''} of {len(recorded)} jitted "
              f"function{'s' if len(recorded) != 1 else ''} written to {shown}"
              + (f" ({len(multi)} with several signatures{_see_rule(multi, functions if levels else None, root)})"
                 if multi else ""), file=sys.stderr)
        if levels:
            lines = observations.coverage_lines(functions, levels)
            codes = _selected_codes(root, levels)
            found_n = observations.count_findings(functions, codes) + observations.count_findings(saved.eager, codes)
            lines[0] += (f"; {found_n} finding{'s' if found_n != 1 else ''}"
                         f" (`jaxlint check --dynamic` reports them)" if found_n else "; no findings")
            failed = sum(e["count"] for e in errors.values())
            if failed:
                lines[0] += f"; the recorder failed {failed} time{'s' if failed != 1 else ''} (below)"
            library = _library_jits(leftovers.read_parts(out_dir, "library"), root)
            if library:
                lines.insert(1, library)
            eager = _eager_line(saved.eager, codes)
            if eager:
                lines.insert(1, eager)
            verbose = bool(getattr(args, "verbose", False))
            for e in saved.eager.values():
                _rule_errors(e.get("rule_errors") or [], codes, verbose)
            for line in lines:
                print(f"jaxlint record: {line}", file=sys.stderr)
            for e in functions.values():
                _rule_errors(e.get("rule_errors") or [], codes, verbose)
                for why in (e.get("report") or {}).get("statistics_unavailable") or []:
                    print(f"jaxlint record: {e.get('file')}:{e.get('line')} {e.get('qualname')}: {why}",
                          file=sys.stderr)
        for doing, e in sorted(errors.items()):
            n = e["count"]
            print(f"jaxlint record: warning: the recorder failed {n} time{'s' if n != 1 else ''} {doing} "
                  f"(what it failed on went unrecorded): {e['first']}", file=sys.stderr)
        if stopped is not None:
            print(f"jaxlint record: stopped by {_signal_name(stopped)}; what the command observed until then "
                  f"is written", file=sys.stderr)
            return 128 + stopped
        if rc < 0:  # killed by a signal: the shell's convention, 128 + its number
            print(f"jaxlint record: the command was stopped by {_signal_name(-rc)}; what it observed until "
                  f"then is kept", file=sys.stderr)
            return 128 - rc
        if rc != 0:
            print(f"jaxlint record: the command exited with status {rc}", file=sys.stderr)
        return rc
    finally:
        _release_signals()
        if not kept:
            shutil.rmtree(work, ignore_errors=True)


def _rule_errors(errors: list[str], codes: frozenset[str] | None, verbose: bool) -> None:
    """Print what failed in the recording's analysis: a warning where it concerns a rule the
    project's settings select (or no rule); a rule that is not selected (the recording runs
    every rule) reports nothing to the user, so its failure is said only under --verbose."""
    from jaxlint.dynamic.analysis import rule_of_error

    for err in errors:
        code = rule_of_error(err)
        if codes is None or code is None or code in codes:
            print(f"jaxlint record: warning: {err}", file=sys.stderr)
        elif verbose:
            print(f"jaxlint record: note: {err} ({code} is not selected)", file=sys.stderr)


def _report(line: str) -> None:
    print(f"jaxlint record: {line}", file=sys.stderr)


def _signal_name(signum: int) -> str:
    import signal

    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"


def _target_env(name: str | None, root: Path) -> dict[str, str]:
    """What the program's environment gets for ``--target NAME``: the resolved target (a
    named one of the project's config, or a TPU topology) and what lets libtpu describe
    it beside the program's own backend. ConfigError for one that cannot be had."""
    if name is None:
        return {}
    from jaxlint.config import ConfigError
    from jaxlint.pipeline import config_resolver
    from jaxlint.targets import LIBTPU_ENV, TargetError

    settings = config_resolver([f"dynamic.target = {json.dumps(name)}"]).for_dir(root)
    try:
        target = settings.dynamic.resolved_target()
    except TargetError as e:
        raise ConfigError(f"record: {e}") from None
    env = {"JAXLINT_TARGET": target.to_json()}
    if target.deviceless:
        import importlib.util

        if importlib.util.find_spec("libtpu") is None:
            raise ConfigError(f"record --target {name}: compiling for a TPU target needs libtpu, which is not "
                              f"installed in this environment: pip install \"jaxlint[tpu]\"")
        env.update(LIBTPU_ENV)
    return env


def _check_target(target: Path, replace: bool, observing: bool) -> None:
    """Before the command runs: the recording it makes can be merged into what is there
    and written (a damaged file or a read-only folder found after a long run loses it)."""
    from jaxlint.config import ConfigError
    from jaxlint.dynamic import signatures
    from jaxlint.dynamic import observed as observations

    elsewhere = "or write elsewhere with --signatures PATH"
    for f in [target, *([observations.path_for(target)] if observing else [])]:
        if f.is_dir():
            raise ConfigError(f"record: {f} is a folder; the command was not run: remove it, {elsewhere}")
    folder = target.parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(dir=folder, prefix=".jaxlint-record-probe-")
        os.close(fd)
        os.unlink(probe)
    except OSError as e:
        raise ConfigError(f"record: cannot write to {folder} ({e.strerror or e}); the command was not run: "
                          f"make it writable, {elsewhere}") from None
    if not replace:
        try:
            signatures.load(target)
            if observing:
                observations.load(observations.path_for(target))
        except ConfigError as e:
            raise ConfigError(f"record: {e}; the command was not run: fix or remove the file, run with "
                              f"--replace to start the recording afresh, {elsewhere}") from None


#: seconds the command gets to write what it recorded after a forwarded SIGTERM or SIGHUP
STOP_GRACE = 20.0
#: Linux's si_code of a signal the kernel sent (a terminal's Ctrl-C), not another process
_SI_KERNEL = 0x80


def _run(cmd: list[str], env: dict, tag: str) -> tuple[int, int | None]:
    """Run the command to its end: (its exit status, the signal that stopped jaxlint
    or None). Signals to jaxlint go to the command, whose recorder writes what it
    observed before it ends:

    * SIGINT: Ctrl-C at a terminal reaches the command itself (same process group); a
      SIGINT sent to jaxlint alone (``kill -INT``) is forwarded to it;
    * SIGTERM, SIGHUP: forwarded to every process of the command; after
      :data:`STOP_GRACE` seconds (or a second signal) what is left is killed.

    Anything the command leaves running is killed when it ends (found by a tag in its
    environment, see :mod:`jaxlint.process.procs`). Should jaxlint be killed itself
    (SIGKILL: nothing of it runs), the command gets SIGTERM from the kernel and the
    processes it started stop on their own (``recorder._watch_record``)."""
    import signal

    from jaxlint.config import ConfigError

    try:
        proc = subprocess.Popen(cmd, env=procs.tagged(env, tag), preexec_fn=procs.die_with_parent())
    except FileNotFoundError:
        raise ConfigError(f"record: command not found: {cmd[0]}") from None
    except PermissionError as e:
        raise ConfigError(f"record: cannot run {cmd[0]}: {e}") from None
    stopped: list[int] = []
    try:
        if hasattr(signal, "sigtimedwait"):
            _wait_forwarding(proc, tag, stopped)
        else:  # pragma: no cover - not Linux: signals arrive as exceptions
            while proc.poll() is None:
                try:
                    proc.wait()
                except KeyboardInterrupt:
                    continue
                except SystemExit as e:
                    stopped.append(int(e.code or 0) - 128)
                    _forward(proc, tag, stopped[0])
        return proc.wait(), (stopped[0] if stopped else None)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        procs.kill_tagged(tag)  # daemons and forks left behind would write into a deleted folder


def _forward(proc: subprocess.Popen, tag: str, signum: int) -> None:
    """Send ``signum`` to the command and every process it started."""
    from jaxlint.process import procs

    for pid in [proc.pid, *(p for p in procs.tagged_pids(tag) if p != proc.pid)]:
        try:
            os.kill(pid, signum)
        except OSError:
            pass


def _wait_forwarding(proc: subprocess.Popen, tag: str, stopped: list[int]) -> None:
    """Wait for ``proc`` with SIGINT, SIGTERM and SIGHUP held and taken with
    ``sigtimedwait`` (which tells a terminal's Ctrl-C from a ``kill``); SIGCHLD wakes it
    when the command ends. The signals stay held until :func:`_release_signals`, so
    that writing the recording is not cut short."""
    import signal
    import time

    wanted = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGCHLD}
    signal.pthread_sigmask(signal.SIG_BLOCK, wanted)
    deadline = None
    while proc.poll() is None:
        timeout = 1.0 if deadline is None else max(0.0, min(1.0, deadline - time.monotonic()))
        info = signal.sigtimedwait(wanted, timeout)
        if deadline is not None and time.monotonic() >= deadline:
            proc.kill()
            continue
        if info is None or info.si_signo == signal.SIGCHLD:
            continue
        if info.si_signo == signal.SIGINT:
            if info.si_code != _SI_KERNEL:  # not the terminal's: the command did not get it
                try:
                    os.kill(proc.pid, signal.SIGINT)
                except OSError:
                    pass
            continue
        if stopped:  # a second SIGTERM or SIGHUP: no more waiting
            proc.kill()
            continue
        stopped.append(info.si_signo)
        _forward(proc, tag, info.si_signo)
        deadline = time.monotonic() + STOP_GRACE


def _release_signals() -> None:
    """Undo :func:`_wait_forwarding`'s hold: a SIGCHLD taken there is dropped, and a
    signal that came while the recording was written is handled now."""
    import signal

    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGCHLD})


def _library_jits(parts: list[dict], root: Path) -> str:
    """The summary's line for the functions libraries jitted themselves (numpyro's SVI
    step): not analysed, named with how many jits of each were made."""
    made: dict[str, int] = {}
    sites: dict[str, dict[str, int]] = {}
    for part in parts:
        for name, entry in part.items():
            n = entry.get("jits") if isinstance(entry, dict) else None
            if isinstance(n, int):
                made[name] = made.get(name, 0) + n
                for site, k in (entry.get("sites") or {}).items():
                    if isinstance(k, int):
                        sites.setdefault(name, {})[site] = sites.get(name, {}).get(site, 0) + k
    if not made:
        return ""
    shown = ", ".join(f"{k} ({v} jit{'s' if v != 1 else ''}{_made_from(v, sites.get(k) or {}, root)})"
                      for k, v in sorted(made.items(), key=lambda kv: -kv[1])[:4])
    more = f" and {len(made) - 4} more" if len(made) > 4 else ""
    return (f"{len(made)} function{'s' if len(made) != 1 else ''} jitted inside libraries, not analysed "
            f"(jaxlint analyses the project's own jitted functions): {shown}{more}")


def _made_from(n: int, sites: dict[str, int], root: Path) -> str:
    """Where the project's code led to a library's jits when one line of it made several:
    a new jitted function is traced and compiled again unless jax's cache knows the
    function (jaxopt's solver built anew for every solve jits its step again each time)."""
    if not sites:
        return ""
    site, k = max(sites.items(), key=lambda kv: kv[1])
    if k < 2:
        return ""
    return f", {'all' if k == n else k} made by the call at {_site_text(site, root)}"


def _site_text(site: str, root: Path) -> str:
    """``file:line`` as recorded; a notebook's line (of its module) as ``nb.ipynb:cell N:line``."""
    file, _, line = site.rpartition(":")
    if not file.endswith(".ipynb") or not line.isdigit():
        return site
    try:
        from jaxlint.files import notebook

        hit = notebook.load((root / file).read_bytes()).module().map.locate(int(line))
    except (OSError, notebook.NotebookError):
        return site
    return f"{file}:cell {hit[0]}:{hit[1]}" if hit else site


def _merge_errors(parts: list[dict]) -> dict[str, dict]:
    """The recorder's failures in all processes: {doing: {"count", "first"}}."""
    out: dict[str, dict] = {}
    for part in parts:
        for doing, e in part.items():
            cur = out.setdefault(doing, {"count": 0, "first": e.get("first", "")})
            cur["count"] += int(e.get("count") or 0)
    return out


def _eager_line(sites: dict[str, dict], codes: frozenset[str] | None) -> str:
    """What the program-level rules found in the work outside the jitted functions
    (:mod:`jaxlint.dynamic.eager`), and how to see it where the settings select none of them."""
    found = {(d.get("code"), d.get("filename"), (d.get("location") or {}).get("row"))
             for e in sites.values() for d in e.get("diagnostics") or [] if isinstance(d, dict)}
    if not found:
        return ""
    from jaxlint.registry import rules_by_code

    known = rules_by_code()
    parts = []
    for rule in sorted({c for c, _, _ in found if isinstance(c, str)}):
        n = sum(1 for c, _, _ in found if c == rule)
        off = codes is not None and rule not in codes
        about = known[rule].summary if rule in known else "the program's work outside its jitted functions"
        parts.append(f"{n} line{'s' if n != 1 else ''} where {about} ({rule}"
                     + (f"; not selected: `jaxlint check --dynamic --select {rule}` reports "
                        + ("it" if n == 1 else "them") if off else "") + ")")
    return "; ".join(parts)


def _selected_codes(root: Path, levels: list[str]) -> frozenset[str] | None:
    """The trace and compile rules the project's settings select (the recording runs every
    rule; ``check`` reports these); None when the settings cannot be read (the check says so)."""
    from jaxlint.files.discovery import SettingsResolver
    from jaxlint.registry import active_rules

    try:
        return frozenset(r.code for r in active_rules(SettingsResolver(None, False, {}).for_dir(root), tuple(levels)))
    except Exception:
        return None


def _see_rule(multi: list[str], functions: dict[str, dict] | None, root: Path) -> str:
    """What the rule that reads the signatures (JAX208) made of the functions ``multi``
    called with several: ``: see JAX208`` where it reported each of them; how many it
    reported where it did not (two fixed sizes, a toggled flag: deliberate); where the run
    was not analysed (``functions`` None), that ``check --dynamic`` runs it; nothing where
    the project's settings do not select it."""
    from jaxlint.files.discovery import SettingsResolver
    from jaxlint.registry import active_rules

    try:
        codes = [r.code for r in active_rules(SettingsResolver(None, False, {}).for_dir(root), ("trace",))
                 if r.reads_signatures]
    except Exception:  # settings that cannot be read: the check says so; the summary names no rule
        codes = []
    if not codes:
        return ""
    if functions is None:
        return f": `jaxlint check --dynamic` runs {codes[0]} on them"
    reported = sum(1 for k in multi if any(d.get("code") in codes
                                           for d in (functions.get(k) or {}).get("diagnostics") or []))
    if reported == len(multi):
        return f": see {codes[0]}"
    if reported == 0:
        return f"; {codes[0]} reports no recompilation in {'it' if len(multi) == 1 else 'them'}"
    return f"; {codes[0]} reports a recompilation in {reported} of them"
