"""``.jaxlint/observed.json``: what ``jaxlint record`` saw the program compile, and what
the analysis of it found (:mod:`jaxlint.dynamic.observer` runs inside the program).

Beside the signatures file. One entry per jitted function the program called, keyed
like the signatures (``module:qualname``, ``main.<locals>.update`` included): where it
is defined, how often it was called and compiled, whether it was traced and compiled,
its findings (paths relative to the project root), the code they rest on (below), the
jax/jaxlib versions and backend it ran on, and a digest of the rules and options it was analysed with. ``check
--dynamic`` reports an entry's findings while that code is unchanged and counts
the others as out of date. With ``record --keep-ir`` each function's programs (what
``jaxlint inspect`` shows) are kept compressed in ``observed.ir/<sha256>.json.gz``.
An entry rests on ``code``: per file, the scopes (functions, top-level statements) its
traces entered and its findings point into, each with a digest
(:mod:`jaxlint.dynamic.codedigest`); an edit anywhere else leaves it current.

``programs`` keeps, per script the recording ran (``python train.py``, ``python -m
pkg.train``), its argv, working directory and an allow-list of environment variables,
so that a re-import of that script by ``check --dynamic`` sees what it saw.

Never imports jax.
"""
from __future__ import annotations

import contextlib
import gzip
import hashlib
import json
import os
import re
from pathlib import Path
from typing import Any, Container, Iterable, Iterator

from jaxlint.files.cache import atomic_write, replace_file
from jaxlint.findings import measured as measured_figures

FORMAT = 1
#: the skip reason of a function a worker could not trace again with its recorded
#: arguments (the summary counts them and says to record again)
OUT_OF_DATE = "out of date: record again"
#: what is said of an earlier definition of a name the module defines again
REDEFINED = "defined again further down, so not reachable by import: analysed in the recording only"
#: what is said of a library's function the program jits itself
LIBRARY_JIT = "a library's function jitted by the program here, not reachable by import: analysed in the recording only"
_STATUS_RANK: dict[str | None, int] = {"analysed": 4, "failed": 3, "skipped": 2, "inlined": 1, "called": 0}


def unreachable(key: str) -> str | None:
    """Why the function a recording keyed ``key`` cannot be imported again, or None: an
    earlier definition of a name its module defines again (``train_step@26``: the
    recorder keys each definition at another line apart; the last keeps the plain key),
    or a library's function the program jits (``apply_fn@jit190``, keyed at the jit
    call). Lambdas' ``<lambda>@LINE`` is their name."""
    last = key.rpartition(":")[2].rsplit(".", 1)[-1]
    if "@" not in last or last.startswith("<lambda>"):
        return None
    return LIBRARY_JIT if last.rpartition("@")[2].startswith("jit") else REDEFINED


def path_for(signatures: Path) -> Path:
    """The observations that live beside a signatures file."""
    return signatures.with_name("observed.json")


def ir_dir(observed: Path) -> Path:
    return observed.with_name(observed.stem + ".ir")


def timings_path(observed: Path) -> Path:
    """The side file of the run's timings (:func:`write`), which git ignores."""
    return observed.with_name("timings.json")


def load(path: Path) -> dict:
    """``{"programs": [...], "functions": {...}, "eager": {...}}``; empty when there is no
    file. A file that cannot be read is an error naming it. ``eager``: the program's
    compiles outside its jitted functions (:mod:`jaxlint.dynamic.eager`), ``{}`` in a
    recording made before them or in another format of that part."""
    from jaxlint.files import untrusted

    try:
        data = untrusted.read_json(path, "the observations of `jaxlint record`")
    except FileNotFoundError:
        return {"programs": [], "functions": {}, "eager": {}}
    untrusted.same_format(path, data, FORMAT, "the observations of `jaxlint record`",
                          "record again with `jaxlint record --replace`")
    if not isinstance(data, dict) or not isinstance(data.get("functions"), dict):
        from jaxlint.config import ConfigError

        raise ConfigError(f"{path}: not a jaxlint observations file (no `functions` table)")
    for key, entry in data["functions"].items():
        why = _damage(entry)
        if why:
            from jaxlint.config import ConfigError, named

            raise ConfigError(f"{path}: the observation of `{named(key)}` is damaged ({why}): run `jaxlint record` "
                              f"again with --replace")
    programs = data.get("programs") or []
    if not isinstance(programs, list) or not all(isinstance(p, dict) for p in programs):
        from jaxlint.config import ConfigError

        raise ConfigError(f"{path}: `programs` must be a list of tables: run `jaxlint record` again")
    eager = data.get("eager")
    if isinstance(eager, dict) and eager.get("format") == FORMAT:
        sites = eager.get("sites")
        for key, entry in (sites.items() if isinstance(sites, dict) else [("sites", None)]):
            why = _damage(entry)
            if why:
                from jaxlint.config import ConfigError

                raise ConfigError(f"{path}: the compiles observed at `{key}` are damaged ({why}): run `jaxlint record` "
                                  f"again with --replace")
    eager = {"format": FORMAT, "sites": eager_sites(eager)}
    timings = timings_path(path)
    _add_timings(data["functions"], _read_timings(timings))
    _add_timings(eager["sites"], _read_timings(timings, "eager"))
    return {"programs": programs, "functions": data["functions"], "eager": eager}


def eager_sites(part: Any) -> dict[str, dict]:
    """The entries of an ``eager`` part (the program's compiles outside its jitted
    functions, :mod:`jaxlint.dynamic.eager`), or none: no part (a recording made before
    it), another format of it, an entry that is not one."""
    if not isinstance(part, dict) or part.get("format") != FORMAT or not isinstance(part.get("sites"), dict):
        return {}
    return {k: e for k, e in part["sites"].items() if isinstance(e, dict) and isinstance(e.get("file"), str)
            and isinstance(e.get("diagnostics"), list)}


# ---------------------------------------------------------------------------- timings
# The seconds a run measured change on every run, so they are kept out of the committed
# observations (an unchanged program recorded again changes no byte) and written to
# ``timings.json`` beside it, which a ``.gitignore`` there keeps out of git. Each entry
# holds the digest of the observation it was measured with, so that timings of another
# recording (a colleague's committed one) are never put back into it.
_GITIGNORE = "# Written by `jaxlint record`: the run's timings change on every run.\ntimings.json\n"


def _digest(entry: dict) -> str:
    return hashlib.sha256(json.dumps(entry, sort_keys=True, default=str).encode("utf-8")).hexdigest()[:20]


def timings_of(entry: dict) -> dict:
    """What :func:`untimed` takes out of an entry: its analysis ``seconds``, the compile
    report's ``*_seconds`` and the cost budget's ``compile_seconds``."""
    out: dict = {}
    if isinstance(entry.get("seconds"), (int, float)):
        out["seconds"] = entry["seconds"]
    rep = entry.get("report")
    if isinstance(rep, dict):
        report: dict[str, Any] = {k: v for k, v in rep.items() if k.endswith("_seconds") and isinstance(v, (int, float))}
        budget = rep.get("budget")
        if isinstance(budget, dict) and isinstance(budget.get("compile_seconds"), (int, float)):
            report["budget"] = {"compile_seconds": budget["compile_seconds"]}
        if report:
            out["report"] = report
    notes = {str(i): note for i, d in enumerate(entry.get("diagnostics") or [])
             if isinstance(d, dict) for note in [measured_figures.without_measured(d)[1]] if note}
    if notes:
        out["diagnostics"] = notes  # a finding's measured figures (JAX303's compile time), by position
    return out


def _read_timings(path: Path, part: str = "functions") -> dict:
    """The side file's entries (of the functions, or of the ``eager`` sites); empty when it
    is missing or damaged (it is a convenience: the check and the budgets work without it,
    with no compile time to show)."""
    from jaxlint.files import untrusted
    from jaxlint.config import ConfigError

    try:
        data = untrusted.read_json(path, "the timings of `jaxlint record`")
    except (OSError, ConfigError):
        return {}
    functions = data.get(part) if isinstance(data, dict) else None
    return {k: v for k, v in functions.items() if isinstance(v, dict)} if isinstance(functions, dict) else {}


def _add_timings(functions: dict, timings: dict) -> None:
    """Put the timings back into the entries they were measured with."""
    for key, t in timings.items():
        entry = functions.get(key)
        if not isinstance(entry, dict) or t.get("of") != _digest(entry):
            continue
        if isinstance(t.get("seconds"), (int, float)):
            entry["seconds"] = t["seconds"]
        notes, diags = t.get("diagnostics"), entry.get("diagnostics")
        if isinstance(notes, dict) and isinstance(diags, list):
            entry["diagnostics"] = [measured_figures.with_measured(d, notes[str(i)])
                                    if isinstance(d, dict) and isinstance(notes.get(str(i)), str) else d
                                    for i, d in enumerate(diags)]
        rep, more = entry.get("report"), t.get("report")
        if isinstance(rep, dict) and isinstance(more, dict):
            for k, v in more.items():
                if k.endswith("_seconds") and isinstance(v, (int, float)):
                    rep[k] = v
            budget, seconds = rep.get("budget"), (more.get("budget") or {}).get("compile_seconds") \
                if isinstance(more.get("budget"), dict) else None
            if isinstance(budget, dict) and isinstance(seconds, (int, float)):
                budget["compile_seconds"] = seconds


def _write_timings(path: Path, functions: dict, measured: dict, sites: dict | None = None,
                   sites_measured: dict | None = None) -> None:
    """Keep the timings of the entries written (this run's measured ones, and the earlier
    ones of entries it left as they were), of the functions and of the ``eager`` sites;
    never fails the recording."""
    def kept(entries: dict, now: dict, part: str) -> dict:
        old = _read_timings(path, part)
        out = {}
        for key, entry in entries.items():
            t = now.get(key)
            if t is None:
                t = old.get(key)
                if t is None or t.get("of") != _digest(entry):
                    continue
            out[key] = dict(t, of=_digest(entry))
        return out

    data = {"format": FORMAT, "functions": kept(functions, measured, "functions")}
    if sites:
        data["eager"] = kept(sites, sites_measured or {}, "eager")
    try:
        gi = path.with_name(".gitignore")
        if not gi.exists():
            atomic_write(gi, _GITIGNORE.encode("utf-8"))
        atomic_write(path, (json.dumps(data, indent=1, sort_keys=True) + "\n").encode("utf-8"))
    except OSError:
        pass


def _damage(entry: Any) -> str:
    """What is wrong with one entry, or "" (each field ``check --dynamic`` reads)."""
    from jaxlint.files import untrusted
    from jaxlint.files.cache import check_diagnostic
    from jaxlint.diagnostic import Diagnostic, Related

    if not isinstance(entry, dict):
        return "not a table"
    for k, t in (("file", str), ("qualname", str), ("diagnostics", list)):
        if not isinstance(entry.get(k), t):
            return f"`{k}` is missing or not a {t.__name__}"
    if "code" in entry:
        code = entry["code"]
        if not isinstance(code, dict) or not all(
                isinstance(f, str) and isinstance(scopes, dict) and all(
                    isinstance(n, str) and isinstance(sc, dict) and isinstance(sc.get("digest"), str)
                    and isinstance(sc.get("line"), int) and isinstance(sc.get("end"), int)
                    for n, sc in scopes.items()) for f, scopes in code.items()):
            return "`code` must map paths to scopes ({name: {line, end, digest}})"
    elif not isinstance(entry.get("files"), dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in entry["files"].items()):
        return "`code` (or the `files` of earlier versions) is missing"
    for k, kind in (("levels", list), ("signatures", list), ("report", dict), ("versions", dict), ("line", int),
                    ("target", dict)):
        if entry.get(k) is not None and not isinstance(entry[k], kind):
            return f"`{k}` is not a {kind.__name__}"
    if entry.get("reused") is not None:
        from jaxlint.dynamic.signatures import reused_ok

        if not reused_ok(entry["reused"]):
            return "`reused` must map argument names to true or false"
    for i, d in enumerate(entry["diagnostics"]):
        try:
            diag = Diagnostic.from_dict(d)
        except Exception as e:
            return f"diagnostics[{i}]: {type(e).__name__}: {e}"[:160]
        places: list[tuple[str, Diagnostic | Related]] = [
            (f"diagnostics[{i}]", diag), *((f"diagnostics[{i}].related[{j}]", r) for j, r in enumerate(diag.related))]
        for where, place in places:
            why = untrusted.location(where, place.path, place.start.line, place.start.column) \
                or untrusted.location(where, place.path, place.end.line, place.end.column)
            if why:
                return why
        try:
            check_diagnostic(diag)
        except ValueError:
            return f"diagnostics[{i}]: a field of the wrong type"
    return ""


# ---------------------------------------------------------------------------- writing (jaxlint record)
def merge_parts(parts: Iterable[dict]) -> tuple[dict[str, dict], list[dict], dict[str, dict]]:
    """One run's per-process observations merged: (functions, programs, IR answers by key)."""
    functions: dict[str, dict] = {}
    programs: list[dict] = []
    irs: dict[str, dict] = {}
    for part in parts:
        prog = part.get("program")
        if isinstance(prog, dict):
            _add_program(programs, prog)
        for key, e in (part.get("functions") or {}).items():
            e = dict(e)
            ir = e.pop("ir", None)
            if ir is not None and key not in irs:
                irs[key] = ir
            cur = functions.get(key)
            if cur is None:
                functions[key] = e
                continue
            for n in ("calls", "inlined_calls", "compiles"):
                cur[n] = int(cur.get(n) or 0) + int(e.get(n) or 0)
            for n in ("traced", "compiled"):
                cur[n] = bool(cur.get(n)) or bool(e.get(n))
            if _STATUS_RANK.get(e.get("status"), 0) > _STATUS_RANK.get(cur.get("status"), 0):
                cur["status"], cur["reason"] = e.get("status"), e.get("reason")
            seen = {_dkey(d) for d in cur.get("diagnostics", [])}
            cur["diagnostics"] = cur.get("diagnostics", []) + [d for d in e.get("diagnostics", [])
                                                               if _dkey(d) not in seen]
            code = {f: dict(scopes) for f, scopes in (cur.get("code") or {}).items()}
            for f, scopes in (e.get("code") or {}).items():
                code[f] = {**scopes, **code.get(f, {})}
            cur["code"] = code
            cur["rule_errors"] = list(dict.fromkeys(cur.get("rule_errors", []) + e.get("rule_errors", [])))
            cur["report"] = cur.get("report") or e.get("report")
            cur["first_call"] = cur.get("first_call") or e.get("first_call")
            cur["seconds"] = round(float(cur.get("seconds") or 0) + float(e.get("seconds") or 0), 4)
    return functions, programs, irs


def _add_program(programs: list[dict], prog: dict) -> None:
    """One entry per program however many processes ran it; the recorder's failures
    (``recorder_errors``, per process) are added up."""
    same = {k: v for k, v in prog.items() if k != "recorder_errors"}
    for cur in programs:
        if {k: v for k, v in cur.items() if k != "recorder_errors"} == same:
            break
    else:
        programs.append(dict(same))
        cur = programs[-1]
    for doing, e in (prog.get("recorder_errors") or {}).items():
        errors = cur.setdefault("recorder_errors", {})
        mine = errors.setdefault(doing, {"count": 0, "first": e.get("first", "")})
        mine["count"] += int(e.get("count") or 0)


def _dkey(d: dict) -> tuple:
    loc = d.get("location") or {}
    return (d.get("code"), d.get("filename"), loc.get("row"), loc.get("column"))


def count_findings(functions: dict, codes: Container[str] | None = None) -> int:
    """The findings of the recording's functions as ``check`` reports them: one per code
    and place (a finding kept on two functions, one inlined in the other, is one); with
    ``codes``, those of the rules selected (the recording runs every rule)."""
    return len({_dkey(d) for e in functions.values() for d in e.get("diagnostics") or [] if isinstance(d, dict)
                and (codes is None or d.get("code") in codes)})


def write(path: Path, functions: dict, programs: list[dict], irs: dict[str, dict], replace: bool,
          merge: bool = False, eager: dict | None = None, eager_mains: Iterable[str | None] = ()) -> dict:
    """Merge one run into the file: entries of functions this run called replace theirs,
    others stay (``replace``: only this run's; ``merge``: a run that did not complete,
    whose entries add their signatures and findings to the old ones of the same code,
    :func:`merge_entry`). Timings are left out (they change on every run, the file is
    committed) and go to the side file git ignores, ``timings.json``; returns what was
    written. Compressed programs no entry names any more are left for
    :func:`remove_unnamed_irs`. ``eager``: this run's sites of compiles outside the
    jitted functions (:mod:`jaxlint.dynamic.eager`); a complete run replaces the earlier
    sites of the programs it ran (``eager_mains``), an incomplete one adds to them."""
    old = {"programs": [], "functions": {}} if replace else load(path)
    measured = {k: timings_of(e) for k, e in functions.items()}
    functions = {k: untimed(e) for k, e in functions.items()}
    if merge:
        functions = {k: merge_entry(old["functions"].get(k), e) for k, e in functions.items()}
    merged = {k: untimed(e) for k, e in {**old["functions"], **functions}.items()}
    folder = ir_dir(path)
    for key, answer in irs.items():
        blob = gzip.compress(json.dumps(answer, default=str).encode("utf-8"), mtime=0)
        sha = hashlib.sha256(blob).hexdigest()
        folder.mkdir(parents=True, exist_ok=True)
        dest = folder / f"{sha}.json.gz"
        if not dest.exists():
            atomic_write(dest, blob)
        merged[key] = dict(merged[key], ir=sha)
    mains = {p.get("main") for p in programs}
    progs = [p for p in old["programs"] if p.get("main") not in mains] + programs
    data: dict[str, Any] = {"format": FORMAT, "programs": progs, "functions": {k: merged[k] for k in sorted(merged)}}
    ran = set(eager_mains)
    sites = {k: e for k, e in (old.get("eager") or {}).get("sites", {}).items() if merge or e.get("program") not in ran}
    sites_measured = {k: timings_of(e) for k, e in (eager or {}).items()}
    sites.update({k: untimed(e) for k, e in (eager or {}).items()})
    sites = {k: untimed(e) for k, e in sites.items()}
    if sites:
        data["eager"] = {"format": FORMAT, "sites": {k: sites[k] for k in sorted(sites)}}
    path.parent.mkdir(parents=True, exist_ok=True)
    replace_file(path, (json.dumps(data, indent=1, sort_keys=True, default=str) + "\n").encode("utf-8"))
    _write_timings(timings_path(path), data["functions"], {k: t for k, t in measured.items() if t}, sites,
                   {k: t for k, t in sites_measured.items() if t})
    return data


def untimed(entry: dict) -> dict:
    """The entry without the timings of the run that made it (:func:`timings_of`)."""
    out = {k: v for k, v in entry.items() if k != "seconds"}
    if isinstance(out.get("diagnostics"), list):
        out["diagnostics"] = [measured_figures.without_measured(d)[0] if isinstance(d, dict) else d
                              for d in out["diagnostics"]]
    if isinstance(out.get("report"), dict):
        out["report"] = {k: v for k, v in out["report"].items() if not k.endswith("_seconds")}
        budget = out["report"].get("budget")
        if isinstance(budget, dict) and "compile_seconds" in budget:
            out["report"]["budget"] = {k: v for k, v in budget.items() if k != "compile_seconds"}
    return out


def _sig_id(sig: dict) -> str:
    return json.dumps({k: v for k, v in sig.items() if k not in ("calls", "compiles", "seq", "first_call", "again_at", "wrappers", "jit_ids",
                                                                 "jit_objects", "fresh_seconds", "unread", "program")},
                      sort_keys=True, default=str)


def merge_entry(old: dict | None, new: dict) -> dict:
    """An interrupted run's entry merged into the recorded one: when both rest on the
    same code (the same digests), the signatures and findings the old one holds and the
    new one did not see again are kept; else the new one alone."""
    if not isinstance(old, dict) or old.get("jaxlint") != new.get("jaxlint") or not _same_code(old, new):
        return new
    out = dict(new)
    out["code"] = {f: {**(old.get("code") or {}).get(f, {}), **scopes} for f, scopes in (new.get("code") or {}).items()}
    for f, scopes in (old.get("code") or {}).items():
        out["code"].setdefault(f, scopes)
    seen = {_sig_id(s) for s in new.get("signatures") or [] if isinstance(s, dict)}
    out["signatures"] = list(new.get("signatures") or []) + [
        s for s in old.get("signatures") or [] if isinstance(s, dict) and _sig_id(s) not in seen]
    have = {_dkey(d) for d in new.get("diagnostics") or []}
    out["diagnostics"] = list(new.get("diagnostics") or []) + [
        d for d in old.get("diagnostics") or [] if _dkey(d) not in have]
    for n in ("traced", "compiled"):
        out[n] = bool(old.get(n)) or bool(new.get(n))
    if _STATUS_RANK.get(old.get("status"), 0) > _STATUS_RANK.get(new.get("status"), 0):
        out["status"], out["reason"] = old.get("status"), old.get("reason")
    out["report"] = new.get("report") or old.get("report")
    if old.get("ir") and not new.get("ir"):
        out["ir"] = old["ir"]
    return out


def _same_code(old: dict, new: dict) -> bool:
    """Whether two entries rest on the same code: every scope both name has one digest."""
    a, b = old.get("code"), new.get("code")
    if not isinstance(a, dict) or not isinstance(b, dict):
        return False
    return all(a[f][n].get("digest") == sc.get("digest") for f, scopes in b.items() if isinstance(a.get(f), dict)
               for n, sc in scopes.items() if isinstance(a[f].get(n), dict))


def remove_unnamed_irs(path: Path) -> None:
    """Remove the compressed programs of ``observed.ir/`` that no entry of the
    observations file ``path`` names (after a complete run has written it)."""
    folder = ir_dir(path)
    if not folder.is_dir():
        return
    wanted = {e.get("ir") for e in load(path)["functions"].values() if isinstance(e, dict) and e.get("ir")}
    for f in folder.glob("*.json.gz"):
        if f.name[:-len(".json.gz")] not in wanted:
            f.unlink()


def read_ir(path: Path, sha: str) -> dict | None:
    if not sha or not all(c in "0123456789abcdef" for c in sha):
        return None
    from jaxlint.files import untrusted
    from jaxlint.config import ConfigError

    f = ir_dir(path) / f"{sha}.json.gz"
    try:
        blob = untrusted.read_bytes(f, "a kept program")
        if hashlib.sha256(blob).hexdigest() != sha:
            return None
        return untrusted.gunzip_json(f, blob, "a kept program")
    except (OSError, ConfigError):  # missing or damaged: shown as not kept
        return None


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on the folder of ``path`` (concurrent ``jaxlint record``
    runs merge into its files one after the other; no lock file is left behind)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX: the atomic writes still hold
        yield
        return
    fd = os.open(path.parent, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


# ---------------------------------------------------------------------------- coverage
def coverage(functions: dict[str, dict]) -> dict[str, Any]:
    """Counts of what a run analysed, and each function it did not, with the reason."""
    called = list(functions.values())
    traced = [e for e in called if e.get("traced")]
    compiled = [e for e in called if e.get("compiled")]
    inlined = [e for e in called if e.get("status") == "inlined"]
    missed = [e for e in called if not e.get("traced") and e.get("status") != "inlined"]
    return {"called": len(called), "traced": len(traced), "compiled": len(compiled), "inlined": len(inlined),
            "missed": missed}


def coverage_lines(functions: dict[str, dict], levels: list[str], indent: str = "  ") -> list[str]:
    c = coverage(functions)
    n = c["called"]
    head = (f"{n} jitted function{'s' if n != 1 else ''} called: {c['traced']} traced"
            + (f", {c['compiled']} compiled" if "compile" in levels else "")
            + (f", {c['inlined']} only inside other jitted functions (analysed as part of them)" if c["inlined"] else "")
            + (f"; {len(c['missed'])} not analysed" if c["missed"] else ""))
    lines = [head]
    for e in sorted(c["missed"], key=lambda e: (e.get("file", ""), e.get("line", 0))):
        why = e.get("reason") or "never traced"
        lines.append(f"{indent}not analysed: {e.get('file')}:{e.get('line')} {e.get('qualname')}: {why}")
    return lines


# ---------------------------------------------------------------------------- reading (check --dynamic)
def file_sha(path: Path) -> str:
    """What ``record_state.file_digest`` took in the program: a file's sha256, a notebook's
    code digest (its outputs and metadata may change without making its observations stale)."""
    try:
        data = path.read_bytes()
    except OSError:
        return "missing"
    if path.suffix == ".ipynb":
        from jaxlint.files.notebook import code_digest

        return code_digest(data)
    return hashlib.sha256(data).hexdigest()


def rules_digest(rules: Iterable[Any]) -> str:
    """A digest of the selected trace and compile rules and their options (the
    program-level rules' are the ``eager`` part's, :mod:`jaxlint.dynamic.eager`)."""
    text = repr(sorted((r.code, sorted(r.opts.items())) for r in rules if not getattr(r, "program_level", False)))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def rule_options(rules: Iterable[Any]) -> dict[str, str]:
    """Each rule that ran on the functions, with a digest of its options (not the
    program-level rules: the ``eager`` part keeps theirs)."""
    return {r.code: hashlib.sha256(repr(sorted(r.opts.items())).encode()).hexdigest()[:12] for r in rules
            if not getattr(r, "program_level", False)}


def made_by(entry: dict, rules: Iterable[Any]) -> bool:
    """Whether every rule selected now ran when the entry was observed, with the same
    options: an entry observed under other options (or without a rule now selected) is
    out of date. A narrower selection (`--select JAX202`) keeps it current."""
    ran = entry.get("rule_options")
    if not isinstance(ran, dict):
        return True  # written before options were kept per rule
    return all(ran.get(code) == digest for code, digest in rule_options(rules).items())


def other_versions(entry: dict, now: dict[str, str]) -> str:
    """"" when the entry was recorded under the jax and jaxlib of ``now`` (or either is
    unknown), else what differs (``jax 0.4.38 -> 0.10.2``): what another jax traced and
    compiled is out of date, never this one's."""
    was = entry.get("versions")
    if not isinstance(was, dict):
        return ""
    return ", ".join(f"{d} {was[d]} -> {now[d]}" for d in ("jax", "jaxlib")
                     if isinstance(was.get(d), str) and now.get(d, "missing") != "missing"
                     and not now[d].startswith("mtime=") and was[d] != now[d])


def is_current(entry: dict, root: Path, reader: Any = None) -> bool:
    """Whether the code the entry rests on is unchanged since the recording (and the
    same jaxlint version made its findings)."""
    return current(entry, root, reader) is not None


def current(entry: dict, root: Path, reader: Any = None) -> dict | None:
    """The entry as it reads now, or None when it is out of date: every scope of code it
    rests on (:mod:`jaxlint.dynamic.codedigest`) is found unchanged, and its findings
    move with the scopes they are in. Entries of earlier versions (whole-file digests)
    are current while their files are unchanged."""
    from jaxlint import __version__

    if entry.get("jaxlint") != __version__:  # another jaxlint's rules made them
        return None
    code = entry.get("code")
    if not isinstance(code, dict):
        files = entry.get("files") or {}
        ok = files and all(file_sha(Path(rel) if os.path.isabs(rel) else root / rel) == sha
                           for rel, sha in files.items())
        return entry if ok else None
    if not code:
        return None
    changed, shifts = _check_code(code, root, reader)
    if changed:
        return None
    if not any(shifts.values()):
        return entry
    return _moved(entry, code, shifts)


def changed_code(entry: dict, root: Path, reader: Any = None, shown: Any = None) -> list[str]:
    """What changed under an out-of-date entry: ``path: name`` of each changed scope
    (``path`` alone for entries of earlier versions); ``shown`` spells each root-relative
    ``path`` as the report shows it."""
    code = entry.get("code")
    if not isinstance(code, dict):
        return sorted((shown or str)(rel) for rel, sha in (entry.get("files") or {}).items()
                      if file_sha(Path(rel) if os.path.isabs(rel) else root / rel) != sha)
    return _check_code(code, root, reader, shown)[0]


def _check_code(code: dict, root: Path, reader: Any,
                shown: Any = None) -> tuple[list[str], dict[str, dict[str, int]]]:
    from jaxlint.dynamic.codedigest import Reader

    reader = reader if reader is not None else Reader()
    changed: list[str] = []
    shifts: dict[str, dict[str, int]] = {}
    for rel, scopes in code.items():
        p = Path(rel) if os.path.isabs(rel) else root / rel
        gone, moved = reader.changed(p, scopes)
        changed += [f"{(shown or str)(rel)}: {_shown_scope(n)}" for n in gone]
        shifts[rel] = moved
    return changed, shifts


def _shown_scope(name: str) -> str:
    if name.startswith("<stmt>@"):
        return "a top-level statement"
    if name == "<notebook>":
        return "its code cells"
    if name.endswith(".<class>"):
        return f"the fields of `{name[:-len('.<class>')]}`"
    return f"`{name}`"


def _moved(entry: dict, code: dict, shifts: dict[str, dict[str, int]]) -> dict:
    """The entry with the lines of its findings and its ``def`` moved as their scopes moved."""
    from jaxlint.dynamic.codedigest import moved

    def at(file: str, row: int) -> int:
        return moved(row, code.get(file) or {}, shifts.get(file) or {})

    def loc(d: dict) -> dict:
        f = d.get("filename")
        if not isinstance(f, str) or f not in code:
            return d
        d = dict(d)
        for k in ("location", "end_location"):
            if isinstance(d.get(k), dict) and isinstance(d[k].get("row"), int):
                d[k] = dict(d[k], row=at(f, d[k]["row"]))
        if isinstance(d.get("noqa_row"), int):
            d["noqa_row"] = at(f, d["noqa_row"])
        return d

    def text(d: dict) -> dict:
        """The line numbers a message names ("lines 32, 67", "train.py:14"), moved with it."""
        f, msg = d.get("filename"), d.get("message")
        if not isinstance(msg, str) or not isinstance(f, str):
            return d

        def rows(m: re.Match) -> str:
            return m.group(1) + re.sub(r"\d+", lambda n: str(at(f, int(n.group()))), m.group(2))

        def placed(m: re.Match) -> str:
            return f"{m.group(1)}:{at(m.group(1), int(m.group(2)))}" if m.group(1) in code else m.group(0)

        msg = re.sub(r"\b(lines? )(\d+(?:(?:, | and )\d+)*)\b", rows, msg)
        return dict(d, message=re.sub(r"([\w./-]+\.py):(\d+)", placed, msg))

    out = dict(entry)
    out["diagnostics"] = [dict(text(loc(d)), related=[loc(r) for r in d.get("related") or []])
                          for d in entry.get("diagnostics") or []]
    if isinstance(entry.get("line"), int) and entry.get("file") in code:
        out["line"] = at(entry["file"], entry["line"])
    return out
