"""The dynamic phase in the editor (issue 39: ``server.py`` split by responsibility): a
saved file traced in a child process (``jaxlint.lsp.dynamic``) where the phase is on, or
what ``jaxlint record`` observed; ``$/progress`` for the run, which the client may cancel;
the last run's findings moved with their lines through the unsaved edits since, each
published to the document of the file it is in (a run of one file may find a problem in a
helper module it imports, or at a call a recording saw in another file).
``DynamicRuns`` is a part of ``server.JaxlintServer``; what it reads of the server is
declared for type checking below."""
from __future__ import annotations

import asyncio
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types as T

from jaxlint.config import Settings
from jaxlint.diagnostic import Diagnostic
from jaxlint.files.discovery import resolved
from jaxlint.lsp import dynamic
from jaxlint.lsp.documents import Doc
from jaxlint.lsp.settings import DocumentSettings
from jaxlint.textutil import line_map, split_lines

if TYPE_CHECKING:
    from pygls.progress import Progress


class DynamicRuns:
    """The dynamic runs of :class:`jaxlint.lsp.server.JaxlintServer`."""

    docs: dict[str, Doc]
    settings: DocumentSettings
    dynamic_option: bool | None
    _dynamic_unavailable: bool
    _dynamic_runs: dict[str, asyncio.Task]
    _dynamic_elsewhere: dict[Path, dict[str, tuple[list[Diagnostic], list[str]]]]

    if TYPE_CHECKING:  # the server's (and pygls's): declared, never defined here
        @property
        def pull(self) -> bool: ...
        @property
        def work_done_progress(self) -> Progress: ...
        def _capability(self, *path: str) -> Any: ...
        def _spawn(self, coro: Any) -> asyncio.Task: ...
        def _show_once(self, message: str, kind: T.MessageType) -> None: ...
        def _refresh_all(self) -> None: ...
        def _publish(self, uri: str) -> None: ...
        def _path_of(self, uri: str) -> Path: ...

    def _start_dynamic(self, doc: Doc, path: Path, settings: Settings) -> None:
        """The dynamic phase for a saved (or opened) file: traced in a child where it is on;
        where it is off, what `jaxlint record` observed, if the project has a recording
        (nothing of the user's is imported)."""
        enabled = self.dynamic_option if self.dynamic_option is not None else settings.dynamic.enabled
        recorded_only = not enabled and self.dynamic_option is not False and \
            dynamic.recording_of(path, settings) is not None
        if (enabled or recorded_only) and path.is_file() and not self._dynamic_unavailable:
            if doc.dynamic_task is not None:
                doc.dynamic_task.cancel()  # stops the older run and its workers
            doc.dynamic_task = self._spawn(self._run_dynamic(doc.uri, path, settings, recorded_only))

    def _current_dynamic(self, doc: Doc, uri: str, text: str) -> list[Diagnostic]:
        """Dynamic findings in this document's file: its own last save's, and those the last
        runs of other documents found in it; each moved with its line through the edits
        since the run (one whose line's code changed is dropped until the next run). Before
        suppressions (the child ran with ``--ignore-noqa``); a finding two runs found is
        shown once."""
        runs = [(doc.dynamic, doc.dynamic_code)] if doc.dynamic else []
        if self._dynamic_elsewhere:
            found_elsewhere = self._dynamic_elsewhere.get(resolved(self._path_of(uri)), {})
            runs += [found_elsewhere[origin] for origin in sorted(found_elsewhere) if origin != uri]
        if not runs:
            return []
        code = [_code_part(line) for line in split_lines(text)]
        path = self._path_of(uri).as_posix()
        out, seen = [], set()
        for found, measured_on in runs:
            moved = line_map(measured_on, code)
            for d in found:
                if d.start.line not in moved or d.end.line not in moved:
                    continue
                d = _moved(d, moved, path)
                if (d.code, d.start, d.end, d.message) not in seen:
                    seen.add((d.code, d.start, d.end, d.message))
                    out.append(d)
        return out

    def _found_elsewhere(self, origin: str, found: list[Diagnostic]) -> list[str]:
        """Keep what the run of ``origin`` found in other files (replacing its last run's),
        under each file's real path, with that file's code now; the URIs of open documents
        whose findings this changed."""
        touched = {p for p, runs in self._dynamic_elsewhere.items() if runs.pop(origin, None) is not None}
        by_file: dict[Path, list[Diagnostic]] = {}
        for d in found:
            by_file.setdefault(Path(d.path), []).append(d)
        for real, ds in by_file.items():
            try:
                saved = real.read_text(encoding="utf-8", errors="replace")
            except OSError:  # gone since the run: nothing to show it in
                continue
            self._dynamic_elsewhere.setdefault(real, {})[origin] = (ds, [_code_part(line) for line in split_lines(saved)])
            touched.add(real)
        self._dynamic_elsewhere = {p: runs for p, runs in self._dynamic_elsewhere.items() if runs}
        changed = []
        for uri, doc in list(self.docs.items()):
            if uri != origin and doc.notebook is None and resolved(self._path_of(uri)) in touched:
                doc.dynamic_generation += 1
                changed.append(uri)
        return changed

    # -- the dynamic phase ----------------------------------------------------------

    async def _run_dynamic(self, uri: str, path: Path, settings: Settings, recorded_only: bool = False) -> None:
        token = f"jaxlint-dynamic-{uuid.uuid4().hex}"
        progress = bool(self._capability("window", "work_done_progress"))
        if progress:
            try:
                await self.work_done_progress.create_async(token)
            except Exception:  # the client refused: run without progress
                progress = False
        if progress:
            self.work_done_progress.begin(token, T.WorkDoneProgressBegin(
                title="jaxlint: dynamic analysis", message=path.name, cancellable=True))
        cmd = dynamic.command(path, settings, self.settings.overrides, self.settings.explicit, self.settings.isolated,
                              recorded_only)
        end = "cancelled"
        task = asyncio.current_task()
        if task is not None:
            self._dynamic_runs[token] = task
        try:
            end = "failed"
            saved = path.read_text(encoding="utf-8", errors="replace")
            end = "cancelled"
            outcome = await dynamic.run(cmd, settings.root, dynamic.timeout_for(settings))
            end = f"{len(outcome.diagnostics)} finding(s)" if outcome.error is None else f"failed: {outcome.error}"
        finally:
            self._dynamic_runs.pop(token, None)
            if progress:
                self.work_done_progress.end(token, T.WorkDoneProgressEnd(message=end))
        if outcome.unavailable:
            self._dynamic_unavailable = True
            self._show_once("jaxlint: this installation has no dynamic phase; only static rules run",
                            T.MessageType.Warning)
            return
        if outcome.error is not None:
            self._show_once(f"jaxlint: dynamic analysis of {path.name} failed: {outcome.error}",
                            T.MessageType.Warning)
        real = resolved(path)  # the child names files by their real paths
        others = self._found_elsewhere(uri, [d for d in outcome.diagnostics if Path(d.path) != real])
        doc = self.docs.get(uri)
        if doc is not None:
            doc.dynamic = [_as_opened(d, real, path) for d in outcome.diagnostics if Path(d.path) == real]
            doc.dynamic_code = [_code_part(line) for line in split_lines(saved)]
            doc.dynamic_generation += 1
        if self.pull:
            self._refresh_all()
            return
        for changed in ([uri] if doc is not None else []) + others:
            self._publish(changed)

    def _progress_cancelled(self, params: T.WorkDoneProgressCancelParams) -> None:
        """The client cancelled a dynamic run from its progress: it stops as a newer save
        would stop it (its child and the child's workers end; its findings never come)."""
        task = self._dynamic_runs.get(str(params.token))
        if task is not None:
            task.cancel()


def _as_opened(d: Diagnostic, real: Path, path: Path) -> Diagnostic:
    """``d``, found in the file at ``real``, and its related places in that file, under
    ``path``: the document's path as the editor opened it (through a symlinked folder)."""
    from dataclasses import replace

    related = tuple(replace(r, path=str(path)) if Path(r.path) == real else r for r in d.related)
    return replace(d, path=str(path), related=related)


def _code_part(line: str) -> str:
    """A line without its trailing comment: a new ``# noqa`` or remark leaves the
    measured finding in place. (A ``#`` in a string cuts too early, on both sides alike.)"""
    return line.split("#", 1)[0].rstrip()


def _moved(d: Diagnostic, moved: dict[int, int], path: str) -> Diagnostic:
    """``d`` on the lines it moved to (related places in the same file move too; one
    whose line is gone is dropped)."""
    from dataclasses import replace

    from jaxlint.diagnostic import Position

    def at(p: Position) -> Position:
        return Position(moved[p.line], p.column)

    related = tuple(replace(r, path=path, start=at(r.start), end=at(r.end)) if r.path == d.path else r
                    for r in d.related if r.path != d.path or (r.start.line in moved and r.end.line in moved))
    noqa = moved.get(d.noqa_line) if d.noqa_line is not None else None
    return replace(d, path=path, start=at(d.start), end=at(d.end), related=related, noqa_line=noqa)
