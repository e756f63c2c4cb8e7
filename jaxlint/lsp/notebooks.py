"""Notebook documents (LSP 3.17 ``notebookDocument/*``) for the language server.

An editor that opens a Jupyter notebook sends the notebook and one text document per
cell (pygls keeps them in its workspace). jaxlint checks the code cells as one module,
as the CLI does (:mod:`jaxlint.files.notebook`): a :class:`NotebookView` is that module for
the cells' current text, with the way back from module positions to each cell's
document, so diagnostics, quick fixes, ``# noqa`` edits and fix-all land in the cells.

Pure data: the server (``jaxlint.lsp.server``) owns the protocol, this module only maps.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from jaxlint.diagnostic import Diagnostic, Edit, Position
from jaxlint.files.notebook import Cell, Module, to_cells
from jaxlint.textutil import split_lines


@dataclass
class CellDoc:
    uri: str
    number: int  # 1-based among all cells, as the CLI numbers them
    text: str
    version: int | None


@dataclass
class NotebookView:
    """The code cells of one open notebook as one module."""

    uri: str
    module: Module
    #: code cells by number
    cells: dict[int, CellDoc]
    key: tuple = ()
    #: static findings on module lines (``jaxlint.files.notebook``), computed by the server
    findings: list[Diagnostic] = field(default_factory=list)

    @staticmethod
    def cells_of(notebook: Any, text_of) -> dict[int, CellDoc]:
        """The code cells of pygls' NotebookDocument by number; ``text_of(uri)`` gives a
        cell's (text, version)."""
        cells: dict[int, CellDoc] = {}
        for number, cell in enumerate(notebook.cells, 1):
            if getattr(cell.kind, "value", cell.kind) != 2:  # NotebookCellKind.Code
                continue
            text, version = text_of(cell.document)
            cells[number] = CellDoc(cell.document, number, text or "", version)
        return cells

    @staticmethod
    def key_of(notebook: Any, cells: dict[int, CellDoc]) -> tuple:
        return notebook.version, tuple((c.uri, c.version, hash(c.text)) for c in cells.values())

    @classmethod
    def of(cls, notebook: Any, cells: dict[int, CellDoc], key: tuple) -> "NotebookView":
        module = Module.build([Cell(c.number, "code", c.text) for c in cells.values()])
        return cls(notebook.uri, module, cells, key)

    def number_of(self, cell_uri: str) -> int | None:
        return next((n for n, c in self.cells.items() if c.uri == cell_uri), None)

    def in_cell(self, d: Diagnostic) -> tuple[int, Diagnostic] | None:
        """(cell number, ``d`` in that cell's lines) for a finding on module lines."""
        [placed] = to_cells([d], self.module.map)
        if placed.cell is None or placed.cell not in self.cells:
            return None
        return placed.cell, placed

    def edits(self, edits: tuple[Edit, ...] | list[Edit]) -> dict[int, list[Edit]] | None:
        """Module edits as edits of the cells' documents, by cell number; None when one
        falls outside the code cells or spans two."""
        out: dict[int, list[Edit]] = {}
        for e in edits:
            a = self.module.map.locate(e.start.line, e.start.column)
            b = self.module.map.locate(e.end.line, e.end.column, end=True)
            if a is None or b is None or a[0] != b[0] or a[0] not in self.cells:
                return None
            out.setdefault(a[0], []).append(replace(e, start=Position(a[1], a[2]), end=Position(b[1], b[2])))
        return out

    def fixed_cells(self, new_text: str) -> dict[int, str] | None:
        """The new text of each cell the fixed module ``new_text`` changes; None when the
        fixes cannot be put back into the cells."""
        try:
            return self.module.split(new_text)
        except ValueError:
            return None

    def lines(self, number: int) -> list[str]:
        return split_lines(self.cells[number].text)
