"""The static phase over files: each file from the cache, or checked (in a process
pool for many files), with its suppressions applied."""
from __future__ import annotations

from dataclasses import field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from jaxlint import __version__
from jaxlint.files.cache import Cache, diagnostics_of, key_of, stamp_of
from jaxlint.diagnostic import Diagnostic
from jaxlint.files.discovery import FileTask, read_source
from jaxlint.process.cpus import usable_cpus
from jaxlint.findings.noqa import NoqaUsage, Suppressions
from jaxlint.records import dataclass
from jaxlint.registry import active_rules, active_static_rules, rules_by_code
from jaxlint.findings.result import RunResult
from jaxlint.rule import StaticRule, about_noqa_comments
from jaxlint.findings.suppress import apply_suppressions, per_file_ignored
from jaxlint.static.checker import (
    SourceError, StaticResult, check_bytes, check_text, collection_paused, decode_source, parse_error_diagnostic,
)
from jaxlint.static.project import NO_FACTS, ProjectFacts, project_facts
from jaxlint.static.tree import LISTING, Link
from jaxlint.textutil import LazyPattern

if TYPE_CHECKING:
    from jaxlint.files.notebook import CellMap

#: below this many files the pool costs more than it saves
POOL_THRESHOLD = 12
_NOQA_BYTES = LazyPattern(rb"(?i)noqa")


@dataclass
class FileOutcome:
    display: str
    diagnostics: list[Diagnostic]
    errors: list[str] = field(default_factory=list)
    skipped: bool = False
    cached: bool = False
    #: a notebook's cells in its virtual module (``jaxlint.files.notebook``): the findings above
    #: are on that module's lines until the report moves them into cells
    cells: "CellMap | None" = None
    #: the other modules of the tree the findings rest on (absolute paths, as read from
    #: disk): an editor re-checks the file when one of them is saved
    reads: tuple[str, ...] = ()


def lint_static(display: str, rules: Sequence[StaticRule], ignored: Sequence[str] = (), *,
                data: bytes | None = None, text: str | None = None,
                module_name: str | None = None, noqa: bool = True,
                confidence: str = "likely", project: ProjectFacts = NO_FACTS,
                link: Link | None = None) -> tuple[StaticResult, list[Diagnostic]]:
    """The static phase for one file's bytes or text, suppressions applied, then the
    rules that review suppressions. Returns the raw result and the kept findings.
    ``noqa=False`` (``--ignore-noqa``) reads no ``# noqa`` comment, so none is unused either.
    ``confidence``: the least confidence a kept finding has (findings below it are left
    out after suppressions, so a ``# noqa`` on one counts as used either way).
    ``link``: the file's place in its tree, whose other modules the summaries may read
    (``jaxlint.static.tree``); ``link.used`` then says which."""
    if text is None:
        assert data is not None
        result = check_bytes(display, data, rules, module_name=module_name, project=project, link=link)
    else:
        result = check_text(display, text, rules, module_name=module_name, project=project, link=link)
    if not result.diagnostics and not any(about_noqa_comments(type(r)) for r in rules):
        return result, []  # nothing to suppress, and no selected rule reads the noqa comments
    src = text
    if src is None and (result.diagnostics or _NOQA_BYTES().search(data or b"")):
        assert data is not None
        try:  # the same text the rules saw (coding cookie, BOM), so columns agree
            src = decode_source(data)
        except SourceError:
            src = data.decode("utf-8", errors="replace")
    kept, _, sup, used = apply_suppressions(result.diagnostics, src, ignored, None if noqa else Suppressions())
    if confidence != "possible":
        kept = [d for d in kept if d.confidence.at_least(confidence)]
    if sup is None:
        return result, kept
    # a file that did not parse ran no rule: nothing is known about its comments
    if (sup.lines or sup.file_comments) and (result.model is not None or result.skipped):
        failed = {code for code, _ in result.errors}
        usage = NoqaUsage(display, src or "", sup, {k: frozenset(v) for k, v in used.items()},
                          frozenset(r.code for r in rules if r.code not in failed), frozenset(rules_by_code()))
        extra: list[Diagnostic] = []
        for r in rules:
            ctx = replace(usage, rule=type(r), diagnostics=[])
            try:
                r.check_suppressions(ctx)
            except Exception as e:  # like a failing check: report, keep the rest
                result.errors.append((r.code, f"internal error: {type(e).__name__}: {e}"))
                continue
            extra.extend(ctx.diagnostics)
        if extra:
            more, *_ = apply_suppressions(extra, src, ignored, sup)
            kept = sorted(kept + more, key=lambda d: d.sort_key)
    return result, kept


def lint_task_text(task: FileTask, text: str) -> list[Diagnostic]:
    """The kept static findings of ``task``'s file as if it held ``text`` (no cache):
    the same rules, per-file-ignores and noqa handling as a run, for re-checking a
    file after fixes."""
    ignored = per_file_ignored(task.display, task.settings, task.path)
    return lint_static(task.display, active_static_rules(task.settings), ignored,
                       text=text, module_name=_module_name(task), noqa=not task.settings.ignore_noqa,
                       confidence=task.settings.confidence, project=_project(task), link=_link(task))[1]


def check_one(task: FileTask, cache_root: str | None, text: str | None = None,
              data: bytes | None = None) -> FileOutcome:
    """Check one file (runs in the pool workers too). ``text`` or ``data`` stand in for
    the file's content (stdin: decodable text, or raw bytes that are then reported)."""
    settings = task.settings
    rules = active_static_rules(settings)
    cache = Cache(Path(cache_root) if cache_root else None)
    if data is not None:
        pass
    elif text is None:
        try:
            data = read_source(task.path)
        except OSError as e:
            return _unreadable(task, e)
    else:
        data = text.encode("utf-8")
    project = _project(task)
    key = ""  # without a cache no key is needed (and hashing, json and hashlib cost a one-file check)
    if cache.enabled:
        key = key_of(__version__, stamp_of(rules), task.display, settings.fingerprint() + project.digest(),
                     ",".join(r.code for r in rules), data)
        hit = cache.get("static", key, lambda v: _cached_outcome(task.display, v, task))
        if hit is not None:
            return hit
    link = _link(task)
    ignored = per_file_ignored(task.display, settings, task.path)
    if _is_notebook(task.path):
        out = _check_notebook(task, rules, ignored, data)
    else:
        result, kept = lint_static(task.display, rules, ignored, data=data, text=text,
                                   module_name=_module_name(task), noqa=not settings.ignore_noqa,
                                   confidence=settings.confidence, project=project, link=link)
        errors = [f"{task.display}: rule {code} failed: {msg}" for code, msg in result.errors]
        out = FileOutcome(task.display, kept, errors, result.skipped, False)
        if link is not None and link.used:
            out.reads = tuple(str(link.tree.root / rel) for rel in sorted(link.used) if rel != LISTING)
        _release(result.model)
    if cache.enabled:
        entry = {"d": [d.to_dict() for d in out.diagnostics], "e": out.errors, "s": out.skipped}
        if out.cells is not None:
            entry["c"] = out.cells.to_json()
        if link is not None and link.used:
            # the other modules of the tree whose summaries the findings rest on: the
            # entry holds while each of them has these bytes
            entry["m"] = sorted(link.used.items())
        cache.put("static", key, entry)
    return out


def _release(model: object) -> None:
    """Drop what a checked file's model holds, once nothing will read it again. Its parts
    refer back to it (the jit map, the tracing, the summaries), so the file's tree and
    model would wait for the cyclic collector; without the model's own references they
    are freed at once, and the collector has nothing of the file left to traverse."""
    if model is not None:
        vars(model).clear()


def _cached_outcome(display: str, value: dict, task: FileTask | None = None) -> FileOutcome:
    """A static cache entry as written by :func:`check_one`; raises on any other shape,
    and when a module of the tree that the entry's findings read has changed since."""
    errors, skipped = value["e"], value["s"]
    if not (isinstance(errors, list) and all(type(e) is str for e in errors) and type(skipped) is bool):
        raise ValueError("not a static cache entry")
    deps = value.get("m", [])
    if not (isinstance(deps, list) and all(isinstance(d, list) and len(d) == 2 and all(type(x) is str for x in d)
                                           for d in deps)):
        raise ValueError("not a static cache entry")
    if deps:  # (the file's link is made only here: most entries read no other module)
        link = _link(task) if task is not None else None
        if link is None or not all(link.tree.current((rel, digest)) for rel, digest in deps):
            raise ValueError("a module the findings read has changed")
        reads = tuple(str(link.tree.root / rel) for rel, _ in deps if rel != LISTING)
    else:
        reads = ()
    return FileOutcome(display, diagnostics_of(value["d"]), errors, skipped, True, _cell_map(value.get("c")), reads)


def _is_notebook(path) -> bool:
    # jaxlint.files.notebook.is_notebook, without importing the module for Python files
    return str(path).lower().endswith(".ipynb")


def _cell_map(data) -> "CellMap | None":
    if data is None:
        return None
    from jaxlint.files.notebook import CellMap

    return CellMap.from_json(data)


def _check_notebook(task: FileTask, rules: Sequence[StaticRule], ignored: Sequence[str], data: bytes) -> FileOutcome:
    """A notebook: its code cells checked as one module (``jaxlint.files.notebook``). A file
    that is not a notebook, and each cell that does not parse, is a parse-error finding;
    the other cells are checked all the same."""
    from jaxlint.files import notebook

    try:
        module = notebook.load(data).module()
    except notebook.NotebookError as e:  # positions in the file: it has no cells to name
        diag = parse_error_diagnostic(task.display, SourceError(str(e), e.line, e.column))
        return FileOutcome(task.display, apply_suppressions([diag], None, ignored)[0])
    result, kept, module = lint_module(task, module, rules, ignored)
    errors = [f"{task.display}: rule {code} failed: {msg}" for code, msg in result.errors]
    return FileOutcome(task.display, kept, errors, result.skipped, False, module.map)


def lint_module(task: FileTask, module, rules: Sequence[StaticRule], ignored: Sequence[str]):
    """The static phase on a notebook's virtual module (the CLI's and the editor's): a
    cell that does not parse is blanked, reported, and the others are checked. Returns
    the raw result, the kept findings (module lines) and the module as checked."""
    from jaxlint.findings.engine import ParseError

    noqa = not task.settings.ignore_noqa
    name = _module_name(task)
    project = _project(task)
    result, kept = lint_static(task.display, rules, ignored, text=module.text, module_name=name, noqa=noqa,
                                confidence=task.settings.confidence, project=project)
    if any(d.code == ParseError.code for d in result.diagnostics):
        broken = module.find_broken()
        if broken:
            module = module.blank(broken)
            result, kept = lint_static(task.display, rules, ignored, text=module.text, module_name=name, noqa=noqa,
                                confidence=task.settings.confidence, project=project)
            problems = [parse_error_diagnostic(task.display, SourceError(msg, line, col))
                        for line, col, _, msg in module.parse_problems()]
            kept = sorted(kept + apply_suppressions(problems, None, ignored)[0], key=lambda d: d.sort_key)
    return result, kept, module


def _project(task: FileTask) -> ProjectFacts:
    """The facts of the project ``task``'s file is in (its settings' root)."""
    return project_facts(task.path, task.settings.root, task.real)


def _link(task: FileTask) -> Link | None:
    """``task``'s file in its tree (its settings' root), whose modules its summaries read."""
    return Link.for_file(task.path, task.settings.root, task.real)


def _unreadable(task: FileTask, e: OSError) -> FileOutcome:
    """A file that cannot be read is a parse-error finding, as in ruff (E902): the run goes on
    and per-file-ignores can silence it."""
    diag = parse_error_diagnostic(task.display, SourceError(f"cannot read file: {e.strerror or e}"))
    kept, *_ = apply_suppressions([diag], None, per_file_ignored(task.display, task.settings, task.path))
    return FileOutcome(task.display, kept)


def _module_name(task: FileTask) -> str:
    from jaxlint.static.checker import module_name_for

    try:
        rel = task.path.relative_to(task.settings.root.resolve()).as_posix()
    except ValueError:
        rel = task.path.name
    if rel.startswith("src/"):
        rel = rel[4:]
    if _is_notebook(rel):
        rel = rel[:-len(".ipynb")]
    return module_name_for(rel)


def _check_in_worker(args: tuple[FileTask, str | None]) -> FileOutcome:
    task, cache_root = args
    # held off until the file's result is dropped, then one young collection frees its model
    with collection_paused(young_after=True):
        try:
            return check_one(task, cache_root)
        except Exception as e:  # never lose the run for one file
            return FileOutcome(task.display, [], [f"{task.display}: internal error: {type(e).__name__}: {e}"])


def run_static(tasks: list[FileTask], cache_root: Path | None, jobs: int = 0,
               stdin_text: str | None = None, stdin_data: bytes | None = None) -> tuple[RunResult, list[FileOutcome]]:
    result = RunResult()
    outcomes: list[FileOutcome] = []
    root = str(cache_root) if cache_root else None
    if stdin_text is not None or stdin_data is not None:
        outcomes = [check_one(tasks[0], None, stdin_text, stdin_data)]
    else:
        jobs = jobs or usable_cpus()  # its affinity, not the machine's CPUs
        if jobs > 1 and len(tasks) >= POOL_THRESHOLD:
            # imported here: multiprocessing costs a one-file run (pre-commit, editors) ~5 ms
            from concurrent.futures import ProcessPoolExecutor

            if root is not None and not Cache(Path(root)).usable():
                root = None  # warned once here, not once per worker

            chunks = max(1, min(16, len(tasks) // (jobs * 4)))
            from jaxlint import registry

            # the pool's processes get the rules this one was handed (a spawned one has none)
            source = registry.source()
            handed: dict = {"initializer": registry.provide, "initargs": (source,)} if source else {}
            with ProcessPoolExecutor(max_workers=jobs, **handed) as ex:
                outcomes = list(ex.map(_check_in_worker, [(t, root) for t in tasks], chunksize=chunks))
        else:
            outcomes = [_check_in_worker((t, root)) for t in tasks]
    for t, o in zip(tasks, outcomes):
        if o.cells is not None:
            result.notebooks[o.display] = o.cells
        result.files += 1
        result.errors.extend(o.errors)
        result.diagnostics.extend(o.diagnostics)
        for r in active_rules(t.settings):
            result.rules[r.code] = type(r)
    result.diagnostics.sort(key=lambda d: d.sort_key)
    return result, outcomes
