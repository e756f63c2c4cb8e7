"""Notebook documents in the editor (issue 39: ``server.py`` split by responsibility):
``notebookDocument/*`` opened, changed, saved and closed; the code cells checked as one
module once per version of the cells (``notebooks.NotebookView`` maps the findings back);
each cell's findings at its lines. ``NotebookSync`` is a part of
``server.JaxlintServer``; what it reads of the server is declared for type checking
below."""
from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types as T

from jaxlint.config import Settings
from jaxlint.diagnostic import Diagnostic
from jaxlint.files.discovery import FileTask, is_excluded
from jaxlint.findings.suppress import per_file_ignored
from jaxlint.lsp.documents import Doc, encodable, with_hints
from jaxlint.lsp.notebooks import NotebookView
from jaxlint.lsp.settings import DocumentSettings
from jaxlint.registry import active_static_rules
from jaxlint.static.runner import lint_module

if TYPE_CHECKING:
    from pygls.workspace import Workspace


class NotebookSync:
    """The notebooks of :class:`jaxlint.lsp.server.JaxlintServer`."""

    docs: dict[str, Doc]
    notebooks: dict[str, NotebookView]
    settings: DocumentSettings
    debounce: float
    _notebook_debounce: dict[str, asyncio.Task]

    if TYPE_CHECKING:  # the server's (and pygls's): declared, never defined here
        @property
        def pull(self) -> bool: ...
        @property
        def workspace(self) -> Workspace: ...
        def text_document_publish_diagnostics(self, params: T.PublishDiagnosticsParams) -> None: ...
        def _spawn(self, coro: Any) -> asyncio.Task: ...
        def _publish(self, uri: str) -> None: ...
        def _text_of(self, uri: str) -> tuple[str | None, int | None]: ...
        def _path_of(self, uri: str) -> Path: ...
        def _settings_for(self, path: Path) -> Settings: ...
        def _log_once(self, message: str) -> None: ...
        def _to_lsp(self, d: Diagnostic, uri: str, lines: list[str], version: int | None,
                    others: dict[str, tuple[str, list[str]]], view: NotebookView | None = None) -> T.Diagnostic: ...

    def _notebook_opened(self, params: T.DidOpenNotebookDocumentParams) -> None:
        if not self.pull:
            self._publish_cells(params.notebook_document.uri)

    def _notebook_changed(self, params: T.DidChangeNotebookDocumentParams) -> None:
        uri = params.notebook_document.uri
        structure = params.change.cells.structure if params.change.cells else None
        for gone in (structure.did_close or []) if structure else []:
            self.docs.pop(gone.uri, None)
            self.text_document_publish_diagnostics(T.PublishDiagnosticsParams(uri=gone.uri, diagnostics=[]))
        if self.pull:
            return  # a pulling client asks when it wants the result
        task = self._notebook_debounce.get(uri)
        if task is not None:
            task.cancel()
        self._notebook_debounce[uri] = self._spawn(self._publish_cells_later(uri))

    async def _publish_cells_later(self, uri: str) -> None:
        await asyncio.sleep(self.debounce)
        self._publish_cells(uri)

    def _notebook_saved(self, params: T.DidSaveNotebookDocumentParams) -> None:
        task = self._notebook_debounce.pop(params.notebook_document.uri, None)
        if task is not None:
            task.cancel()
        if not self.pull:
            self._publish_cells(params.notebook_document.uri)

    def _notebook_closed(self, params: T.DidCloseNotebookDocumentParams) -> None:
        uri = params.notebook_document.uri
        task = self._notebook_debounce.pop(uri, None)
        if task is not None:
            task.cancel()
        self.notebooks.pop(uri, None)
        for cell in params.cell_text_documents:
            self.docs.pop(cell.uri, None)
            self.text_document_publish_diagnostics(T.PublishDiagnosticsParams(uri=cell.uri, diagnostics=[]))

    def _publish_cells(self, uri: str) -> None:
        nb = self.workspace.get_notebook_document(notebook_uri=uri)
        if nb is None:
            return
        for cell in nb.cells:
            self._publish(cell.document)

    def _notebook_view(self, nb: T.NotebookDocument) -> NotebookView:
        """The notebook's code cells as one module, checked once per version of its cells."""
        def text_of(cell_uri: str) -> tuple[str | None, int | None]:
            text, version = self._text_of(cell_uri)
            return (encodable(text) if text is not None else None), version

        cells = NotebookView.cells_of(nb, text_of)
        path = self._path_of(nb.uri)
        settings = self._settings_for(path)
        key = (*NotebookView.key_of(nb, cells), self.settings.generation)
        cached = self.notebooks.get(nb.uri)
        if cached is not None and cached.key == key:
            return cached
        view = NotebookView.of(nb, cells, key)
        if not (path.is_relative_to(settings.root.absolute()) and is_excluded(path, settings)):
            task = FileTask(path, path.as_posix(), with_hints(settings))
            result, view.findings, view.module = lint_module(
                task, view.module, active_static_rules(settings), per_file_ignored(task.display, settings, path))
            for code, msg in result.errors:
                self._log_once(f"jaxlint: {task.display}: rule {code} failed: {msg}")
        self.notebooks[nb.uri] = view
        return view

    def _cell_results(self, uri: str, nb: T.NotebookDocument) -> Doc:
        """Findings of the notebook that lie in the cell ``uri``, at the cell's lines."""
        view = self._notebook_view(nb)
        number = view.number_of(uri)
        doc = self.docs.setdefault(uri, Doc(uri))
        key = (*view.key, number)
        if doc.key == key:
            return doc
        findings, items = [], []
        others: dict[str, tuple[str, list[str]]] = {}
        cell = view.cells.get(number) if number is not None else None
        if cell is not None:
            lines = view.lines(cell.number)
            for d in view.findings:
                hit = view.in_cell(d)
                if hit is not None and hit[0] == cell.number:
                    findings.append(d)
                    items.append(self._to_lsp(hit[1], uri, lines, cell.version, others, view))
        doc.key, doc.version, doc.notebook = key, cell.version if cell else None, nb.uri
        doc.text, doc.findings, doc.items, doc.made = view.module.text, findings, items, {}
        return doc
