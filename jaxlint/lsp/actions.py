"""The language server's code actions (issue 39: ``server.py`` split by responsibility):
a finding's fix and ``# noqa: CODE`` for its line (quick fixes), and
``source.fixAll.jaxlint``, made on a request's own thread (``documents.Job``) as edits of
the document or, for a notebook, of its cells. ``CodeActions`` is a part of
``server.JaxlintServer``; what it reads of the server is declared below."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable, Sequence

from lsprotocol import types as T

from jaxlint.diagnostic import Applicability, Diagnostic, Edit, Phase
from jaxlint.fix.apply import applies, computed_fix
from jaxlint.lsp.documents import FIX_ALL_KIND, SOURCE, Doc, Job
from jaxlint.lsp.editing import NoqaEdits, fix_all, smallest_replacement
from jaxlint.lsp.notebooks import NotebookView
from jaxlint.registry import rules_by_code
from jaxlint.rule import about_noqa_comments
from jaxlint.textutil import split_lines


class CodeActions:
    """The code actions of :class:`jaxlint.lsp.server.JaxlintServer`."""

    #: open notebooks by URI, and whether unsafe fixes are offered (the server's)
    notebooks: dict[str, NotebookView]
    unsafe_fixes: bool

    def _capability(self, *path: str) -> Any:  # the server's: what the client can do
        raise NotImplementedError

    def _range(self, lines: list[str], start: Any, end: Any) -> T.Range:  # the server's
        raise NotImplementedError

    def _path_of(self, uri: str) -> Path:  # the server's
        raise NotImplementedError

    def _actions(self, doc: Doc, params: T.CodeActionParams, job: Job) -> list[T.CodeAction] | None:
        only = params.context.only
        actions: list[T.CodeAction] = []
        if _wants(only, T.CodeActionKind.QuickFix):
            # what every item needs is computed once per request: a client may send every
            # diagnostic of a big file, and each must cost its line, not the file
            lines, noqa, index = split_lines(doc.text), NoqaEdits(doc.text), _index(doc)
            for item in params.context.diagnostics:
                if item.source != SOURCE:
                    continue
                finding = _match(item, index)
                if finding is None:
                    continue
                actions.extend(self._quick_fixes(finding, item, doc, lines, noqa, job))
        if _wants(only, FIX_ALL_KIND) and doc.findings:
            action = self._fix_all(doc, job)
            if action is not None:
                actions.append(action)
        return actions or None

    def _quick_fixes(self, d: Diagnostic, item: T.Diagnostic, doc: Doc, lines: list[str],
                     noqa: NoqaEdits, job: Job) -> Iterable[T.CodeAction]:
        fix = self._made_fix(d, doc, job)
        edit = self._edit_for(doc, list(fix.edits), lines) if fix is not None else None
        if fix is not None and edit is not None:
            unsafe = fix.applicability == Applicability.UNSAFE
            yield T.CodeAction(
                title=f"{fix.message} ({d.code})" + (" [unsafe fix: review it]" if unsafe else ""),
                kind=T.CodeActionKind.QuickFix,
                diagnostics=[item],
                is_preferred=not unsafe,
                edit=edit,
            )
        if d.noqa_line is not None and not about_noqa_comments(rules_by_code().get(d.code)):
            noqa_edit = noqa.edit(d.noqa_line, d.code)
            edit = self._edit_for(doc, [noqa_edit], lines) if noqa_edit is not None else None
            if edit is not None:
                yield T.CodeAction(
                    title=f"Suppress with `# noqa: {d.code}`",
                    kind=T.CodeActionKind.QuickFix,
                    diagnostics=[item],
                    edit=edit,
                )

    def _edit_for(self, doc: Doc, edits: list[Edit], lines: list[str]) -> T.WorkspaceEdit | None:
        """Edits of ``doc``'s text (whose ``lines`` they are) as a workspace edit: of the
        document, or, for a notebook cell, of the cells they fall in (None when they cannot
        be put there)."""
        view = self.notebooks.get(doc.notebook) if doc.notebook else None
        if view is None:
            return self._workspace_edit(doc, [self._text_edit(lines, e) for e in edits])
        by_cell = view.edits(edits)
        if by_cell is None:
            return None
        return self._cells_edit(view, {n: [self._text_edit(view.lines(n), e) for e in es]
                                       for n, es in by_cell.items()})

    def _cells_edit(self, view: NotebookView, edits: dict[int, list[T.TextEdit]]) -> T.WorkspaceEdit:
        if self._capability("workspace", "workspace_edit", "document_changes"):
            return T.WorkspaceEdit(document_changes=[T.TextDocumentEdit(
                text_document=T.OptionalVersionedTextDocumentIdentifier(uri=view.cells[n].uri,
                                                                        version=view.cells[n].version),
                edits=es) for n, es in sorted(edits.items())])
        return T.WorkspaceEdit(changes={view.cells[n].uri: es for n, es in sorted(edits.items())})

    def _made_fix(self, d: Diagnostic, doc: Doc, job: Job):
        """``d``'s fix with its edits: a planned one is made by its libcst codemod and
        verified (as ``--fix`` does), once per text; None when it cannot be made."""
        if d.fix is None or d.fix.plan is None or d.fix.edits:
            return d.fix
        i = next((k for k, f in enumerate(doc.findings) if f is d), None)
        if i is not None and i in doc.made:
            return doc.made[i]
        path = self._path_of(doc.uri)
        fix, why = computed_fix(doc.text, d, job.lint, path.as_posix())
        if fix is None:
            job.notes.append(f"jaxlint: {path.name}:{d.start.line}: {d.code} fix not offered: {why}")
        if i is not None:
            doc.made[i] = fix
        return fix

    def _fix_all(self, doc: Doc, job: Job) -> T.CodeAction | None:
        # dynamic findings are not re-checked between passes: fix the static ones only
        static = [d for d in doc.findings if d.phase is Phase.STATIC]
        if not any(applies(d, self.unsafe_fixes) for d in static):
            return None
        new = fix_all(doc.text, static, job.lint, self.unsafe_fixes,
                      self._path_of(doc.uri).as_posix())
        if new == doc.text:
            return None
        title = "jaxlint: fix all safe fixes" if not self.unsafe_fixes else "jaxlint: fix all"
        view = self.notebooks.get(doc.notebook) if doc.notebook else None
        if view is not None:  # every cell the fixes change, each with one replacement
            cells = view.fixed_cells(new)
            if not cells:
                return None
            edits = {}
            for n, text in cells.items():
                start, end, content = smallest_replacement(view.cells[n].text, text)
                edits[n] = [self._text_edit(view.lines(n), Edit(start, end, content))]
            return T.CodeAction(title=title, kind=FIX_ALL_KIND, edit=self._cells_edit(view, edits))
        start, end, content = smallest_replacement(doc.text, new)
        edit = self._text_edit(split_lines(doc.text), Edit(start, end, content))
        return T.CodeAction(title=title, kind=FIX_ALL_KIND, edit=self._workspace_edit(doc, [edit]))

    def _text_edit(self, lines: list[str], e: Edit) -> T.TextEdit:
        return T.TextEdit(range=self._range(lines, e.start, e.end), new_text=e.content)

    def _workspace_edit(self, doc: Doc, edits: list[T.TextEdit]) -> T.WorkspaceEdit:
        # a versioned edit lets the client refuse it if the text changed since
        if self._capability("workspace", "workspace_edit", "document_changes") and doc.version is not None:
            return T.WorkspaceEdit(document_changes=[T.TextDocumentEdit(
                text_document=T.OptionalVersionedTextDocumentIdentifier(uri=doc.uri, version=doc.version),
                edits=edits)])
        return T.WorkspaceEdit(changes={doc.uri: edits})


def _wants(only: Sequence[str] | None, kind: str) -> bool:
    """LSP kind filtering: ``source`` asks for ``source.fixAll.jaxlint`` too."""
    if not only:
        return True
    return any(kind == k or kind.startswith(f"{k}.") for k in only)


def _index(doc: Doc) -> dict[tuple, list[tuple[Diagnostic, T.Diagnostic]]]:
    """The document's findings by (code, start line), in order: what :func:`_match` searches."""
    out: dict[tuple, list[tuple[Diagnostic, T.Diagnostic]]] = {}
    for d, mine in zip(doc.findings, doc.items):
        out.setdefault((mine.code, mine.range.start.line), []).append((d, mine))
    return out


def _match(item: T.Diagnostic, index: dict[tuple, list[tuple[Diagnostic, T.Diagnostic]]]) -> Diagnostic | None:
    """The current finding a client's diagnostic stands for: same code and range, else
    same code and start line (clients may round ranges). None if it is stale."""
    same_line = index.get((item.code, item.range.start.line), [])
    for d, mine in same_line:
        if mine.range == item.range:
            return d
    return same_line[0][0] if same_line else None
