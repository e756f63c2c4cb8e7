"""Jupyter notebooks: every notebook is checked as one Python module.

A notebook (``.ipynb``, nbformat 4) is JSON; its code cells are the program, run top
to bottom. jaxlint reads them as one *virtual module*: the code cells in document
order (the order "Run All" executes them; ``execution_count`` records one session's
history, not the program), each after a marker line ``# %% [jaxlint cell N]``, so names
defined in one cell are known in the next, exactly as in the kernel. Everything that
reads Python (the static rules, noqa, fixes, the dynamic phase's observations) works on
that text; only the edges know about cells:

* :func:`load` reads the JSON (a clear :class:`NotebookError` for invalid JSON, nbformat
  3, a file that is not a notebook); :meth:`Notebook.module` builds the virtual module;
* IPython syntax that is not Python (``%timeit``, ``!pip``, ``x = !ls``, ``obj?``,
  ``%%time``) is *masked*: each such line becomes ``pass`` at its indentation, so the
  line numbers of everything else stay; a cell magic whose body is not Python
  (``%%bash``, ``%%writefile``) masks its whole cell;
* a cell that still does not parse is blanked in the module (:meth:`Module.blank`) and
  reported on its own, so the other cells are checked;
* :class:`CellMap` turns module lines into (cell, line in the cell) for the report, and
  :func:`to_cells` does it for findings; :meth:`Module.split` and
  :meth:`Notebook.with_sources` write fixed code back into only the cells it changed,
  leaving every other byte of the file as it was;
* :meth:`Notebook.file_position` gives the line and column in the ``.ipynb`` file itself
  (SARIF, GitHub annotations), and :func:`match_cell` finds which cell a kernel ran
  (``jaxlint record -- jupyter execute nb.ipynb``).

Cells are numbered from 1 among *all* cells, markdown included (as ruff numbers them),
so ``cell 4`` is the fourth cell a reader sees. Never imports jax or nbformat.
"""
from __future__ import annotations

import ast
import bisect
import hashlib
import json
import re
import warnings
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterable, Mapping, Sequence

from jaxlint.textutil import LINE_BREAK, line_starts, parses, split_lines

SUFFIX = ".ipynb"

#: the line before each code cell in the virtual module
MARKER = "# %% [jaxlint cell {}]"
_MARKER = re.compile(r"# %% \[jaxlint cell (\d+)\]\Z")
#: what a masked line (IPython syntax) becomes, after its indentation
PLACEHOLDER = "pass  # IPython syntax, masked by jaxlint"

#: cell magics whose body is Python run in the kernel; any other cell magic
#: (``%%bash``, ``%%writefile``, ``%%html`` ...) masks its cell
PYTHON_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun", "debug"})


def is_notebook(path: object) -> bool:
    return str(path).lower().endswith(SUFFIX)


class NotebookError(Exception):
    """The file is not a notebook jaxlint can read; ``line``/``column`` are in the file."""

    def __init__(self, message: str, line: int = 1, column: int = 1) -> None:
        super().__init__(message)
        self.line = line
        self.column = column


# ---------------------------------------------------------------------------- reading
@dataclass(frozen=True)
class Cell:
    number: int  # 1-based, among all cells
    kind: str  # "code", "markdown", "raw"
    source: str


@dataclass
class Notebook:
    """A notebook's cells, and the file's text to write changed cells back into."""

    text: str  # the file's JSON text (no byte-order mark)
    cells: list[Cell]
    #: the kernel's language is Python (or not stated)
    python: bool = True
    bom: bool = False
    _spans: list[tuple[int, int] | None] | None = field(default=None, repr=False)
    _module: "Module | None" = field(default=None, repr=False)

    @property
    def code_cells(self) -> list[Cell]:
        return [c for c in self.cells if c.kind == "code"]

    def module(self) -> "Module":
        """The code cells as one module (built once)."""
        if self._module is None:
            self._module = Module.build(self.code_cells if self.python else [])
        return self._module

    # -- where things are in the file ---------------------------------------------
    def spans(self) -> list[tuple[int, int] | None]:
        """Per cell, the offsets in :attr:`text` of its ``source`` value (None if absent)."""
        if self._spans is None:
            self._spans = _source_spans(self.text)
        return self._spans

    def file_position(self, cell: int, line: int, column: int) -> tuple[int, int] | None:
        """(line, column), 1-based, in the ``.ipynb`` file of a position in a cell's source:
        the character as the JSON text spells it (inside its string literal)."""
        if not 1 <= cell <= len(self.cells):
            return None
        span = self.spans()[cell - 1]
        if span is None:
            return None
        offset = _raw_offset(self.text, span, self.cells[cell - 1].source, line, column)
        if offset is None:
            return None
        row = self.text.count("\n", 0, offset) + 1
        return row, offset - (self.text.rfind("\n", 0, offset) + 1) + 1

    # -- writing ------------------------------------------------------------------
    def with_sources(self, sources: Mapping[int, str]) -> bytes:
        """The file's bytes with the ``source`` of each cell in ``sources`` (by cell
        number) replaced, written as that cell wrote it (a list of lines or one string,
        the same indentation and escapes); every other byte is kept."""
        spans = self.spans()
        ascii_only = "\\u" in self.text and self.text.isascii()
        out, pos = [], 0
        for number in sorted(sources):
            span = spans[number - 1]
            if span is None:
                raise NotebookError(f"cell {number} has no `source` to write back into")
            a, b = span
            out.append(self.text[pos:a])
            out.append(_encode_source(self.text, a, b, sources[number], ascii_only))
            pos = b
        out.append(self.text[pos:])
        data = "".join(out).encode("utf-8")
        return b"\xef\xbb\xbf" + data if self.bom else data


def load(data: bytes) -> Notebook:
    """A notebook from a file's bytes; :class:`NotebookError` says why it is not one."""
    bom = data.startswith(b"\xef\xbb\xbf")
    try:
        text = data[3:].decode("utf-8") if bom else data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise NotebookError(f"not a Jupyter notebook: the file is not UTF-8 (byte 0x{data[e.start]:02x} "
                            f"at offset {e.start})") from None
    if not text.strip():
        raise NotebookError("empty notebook: the file has no content (a notebook is JSON with a `cells` list; "
                            "open and save it in Jupyter, or delete it)")
    try:
        nb = json.loads(text)
    except json.JSONDecodeError as e:
        raise NotebookError(f"not a Jupyter notebook: invalid JSON: {e.msg}", e.lineno, e.colno) from None
    except RecursionError:
        raise NotebookError("not a Jupyter notebook: JSON nested too deeply") from None
    if not isinstance(nb, dict):
        raise NotebookError("not a Jupyter notebook: the JSON is not an object with a `cells` list")
    major = nb.get("nbformat")
    if isinstance(major, int) and major < 4 or "worksheets" in nb:
        raise NotebookError(f"nbformat {major if isinstance(major, int) else 3} notebooks are not supported: "
                            "convert it with `jupyter nbconvert --to notebook --nbformat 4 --inplace <notebook>`")
    cells = nb.get("cells")
    if not isinstance(cells, list):
        raise NotebookError("not a Jupyter notebook: no `cells` list")
    out = []
    for i, c in enumerate(cells, 1):
        if not isinstance(c, dict):
            raise NotebookError(f"cell {i} is not a JSON object")
        src = c.get("source", "")
        if isinstance(src, list) and all(isinstance(s, str) for s in src):
            src = "".join(src)
        if not isinstance(src, str):
            raise NotebookError(f"cell {i}: `source` must be a string or a list of strings")
        out.append(Cell(i, str(c.get("cell_type", "code")), src))
    return Notebook(text, out, _is_python(nb.get("metadata")), bom)


def _is_python(meta: object) -> bool:
    if not isinstance(meta, dict):
        return True
    for key in ("language_info", "kernelspec"):
        info = meta.get(key)
        if isinstance(info, dict):
            lang = info.get("name" if key == "language_info" else "language")
            if isinstance(lang, str) and lang:
                return lang.lower() == "python"
    return True


def code_digest(data: bytes) -> str:
    """sha256 of a notebook's code: what its recorded observations rest on. Outputs,
    execution counts, metadata and markdown do not change it (running or re-saving the
    notebook leaves its observations current); a file that is not a notebook is hashed
    as bytes."""
    try:
        nb = load(data)
    except NotebookError:
        return hashlib.sha256(data).hexdigest()
    h = hashlib.sha256(b"jaxlint-notebook-code\0")
    for c in nb.code_cells:
        h.update(c.source.encode("utf-8"))
        h.update(b"\0")
    return h.hexdigest()


# ---------------------------------------------------------------------------- masking
_SHELL_OR_MAGIC = re.compile(r"\s*(?:%|!|\?)")
_ASSIGNED = re.compile(r"\s*[\w.\[\]'\",\s()*]+?=\s*(?:%|!)")
_HELP_AFTER = re.compile(r"\s*[\w.\[\]()]+\s*\?{1,2}\s*\Z")
_INSTALL = re.compile(r"\s*(?:pip|conda|mamba)\s+(?:install|uninstall)\b")


def _is_ipython_line(line: str) -> bool:
    return bool(_SHELL_OR_MAGIC.match(line) or _ASSIGNED.match(line) or _HELP_AFTER.match(line)
                or _INSTALL.match(line))


def _indent(line: str) -> str:
    return line[:len(line) - len(line.lstrip(" \t"))]


def mask(source: str) -> tuple[list[str], list[int]]:
    """A cell's lines with IPython syntax masked, and the 0-based indexes of the masked
    lines. Only lines that begin a logical line are looked at (never a line inside a
    string or brackets), and only when the cell is not plain Python already."""
    lines = split_lines(source)
    if lines and lines[-1] == "":
        lines.pop()
    if not any(c in source for c in "%!?") and not _INSTALL.search(source):
        return lines, []
    if parses("\n".join(lines)):
        return lines, []
    first = next((i for i, ln in enumerate(lines) if ln.strip()), None)
    if first is not None and lines[first].lstrip().startswith("%%"):
        name = lines[first].lstrip()[2:].split(None, 1)[0] if lines[first].lstrip()[2:].strip() else ""
        if name not in PYTHON_CELL_MAGICS:  # not Python: the whole cell is masked
            blank = [i for i, ln in enumerate(lines) if ln.strip()]
            return [PLACEHOLDER if i in blank else ln for i, ln in enumerate(lines)], blank
    out = list(lines)
    masked: list[int] = []
    depth, quote, continued = 0, "", False
    i = 0
    while i < len(lines):
        line = lines[i]
        if depth == 0 and not quote and not continued and _is_ipython_line(line):
            indent = _indent(line)
            out[i] = indent + PLACEHOLDER
            masked.append(i)
            while lines[i].rstrip().endswith("\\") and i + 1 < len(lines):  # `!cmd \` goes on
                i += 1
                out[i] = indent + PLACEHOLDER
                masked.append(i)
            i += 1
            continue
        depth, quote = _scan(line, depth, quote)
        continued = not quote and line.rstrip().endswith("\\") and "#" not in line
        i += 1
    return out, masked


def _scan(line: str, depth: int, quote: str) -> tuple[int, str]:
    """Bracket depth and open triple quote after ``line`` (strings and comments skipped)."""
    i, n = 0, len(line)
    while i < n:
        c = line[i]
        if quote:
            if c == "\\":
                i += 2
                continue
            if line.startswith(quote, i):
                i += len(quote)
                quote = ""
                continue
            i += 1
            continue
        if c == "#":
            break
        if c in "\"'":
            if line.startswith(c * 3, i):
                quote = c * 3
                i += 3
                continue
            j = i + 1
            while j < n and line[j] != c:
                j += 2 if line[j] == "\\" else 1
            i = j + 1
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth = max(depth - 1, 0)
        i += 1
    return depth, quote


def _syntax_error(text: str) -> tuple[str, int, int] | None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            ast.parse(text)
        except SyntaxError as e:
            return f"syntax error: {e.msg}", e.lineno or 1, max(e.offset or 1, 1)
        except (ValueError, RecursionError, MemoryError) as e:
            return f"cannot parse: {type(e).__name__}", 1, 1
    return None


# ---------------------------------------------------------------------------- the module
@dataclass(frozen=True)
class CellMap:
    """Lines of the virtual module <-> (cell number, line in the cell)."""

    #: per code cell: (cell number, module line of its first line, its line count)
    cells: tuple[tuple[int, int, int], ...]

    def locate(self, line: int, column: int = 1, end: bool = False) -> tuple[int, int, int] | None:
        """(cell, line, column) of a module position. A marker line stands for the first
        line of the cell after it, or, as the ``end`` of a range at its first column, for
        the end of the cell before it (where a range ending with that cell's last line
        ends)."""
        if not self.cells:
            return None
        k = bisect.bisect_right([s for _, s, _ in self.cells], line) - 1
        if k >= 0:
            number, start, count = self.cells[k]
            if line < start + count:
                return number, line - start + 1, column
            if (end and column == 1) or k + 1 == len(self.cells):
                return number, count + 1, 1
        return self.cells[k + 1][0], 1, 1

    def line_of(self, cell: int, line: int) -> int | None:
        """The module line of ``line`` in ``cell``."""
        for number, start, count in self.cells:
            if number == cell:
                return start + line - 1 if 1 <= line <= max(count, 1) + 1 else None
        return None

    def to_json(self) -> list[list[int]]:
        return [list(c) for c in self.cells]

    @classmethod
    def from_json(cls, data: Iterable[Sequence[int]]) -> "CellMap":
        return cls(tuple((int(a), int(b), int(c)) for a, b, c in data))


@dataclass(frozen=True)
class Module:
    """The code cells as one module: ``text`` and how its lines map to the cells."""

    text: str
    map: CellMap
    #: per cell number: its lines as written, and the indexes of its masked lines
    originals: Mapping[int, tuple[tuple[str, ...], tuple[int, ...]]]
    #: cells whose text is blank here because they do not parse: number -> (message, line, column)
    broken: Mapping[int, tuple[str, int, int]] = field(default_factory=dict)
    #: whether the cell source ended with a newline (kept when it is written back)
    trailing: Mapping[int, bool] = field(default_factory=dict)
    #: the separator lines cannot be told from a cell's own lines: no fix may be written
    ambiguous: bool = False
    #: per cell number: the line break its source uses (``\r\n`` and ``\r`` kept when written back)
    newlines: Mapping[int, str] = field(default_factory=dict)

    @classmethod
    def build(cls, cells: Sequence[Cell]) -> "Module":
        parts: list[str] = []
        entries = []
        originals = {}
        trailing = {}
        newlines = {}
        line = 1
        ambiguous = False
        for c in cells:
            brk = LINE_BREAK.search(c.source)
            newlines[c.number] = brk.group() if brk else "\n"
            masked_lines, masked = mask(c.source)
            parts.append(MARKER.format(c.number) + "\n")
            line += 1
            entries.append((c.number, line, len(masked_lines)))
            parts.extend(ln + "\n" for ln in masked_lines)
            line += len(masked_lines)
            originals[c.number] = (tuple(l for l in split_lines(c.source)[:len(masked_lines)]), tuple(masked))
            trailing[c.number] = c.source.endswith(("\n", "\r"))
            ambiguous = ambiguous or any(_MARKER.match(ln) for ln in masked_lines)
        return cls("".join(parts), CellMap(tuple(entries)), originals, {}, trailing, ambiguous, newlines)

    def find_broken(self) -> dict[int, tuple[str, int, int]]:
        """The cells that do not parse on their own (masked), with the syntax error."""
        out = {}
        lines = split_lines(self.text)
        for number, start, count in self.map.cells:
            err = _syntax_error("\n".join(lines[start - 1:start - 1 + count]))
            if err is not None:
                out[number] = err
        return out

    def blank(self, broken: Mapping[int, tuple[str, int, int]]) -> "Module":
        """This module with the ``broken`` cells' lines emptied (their line count kept)."""
        if not broken:
            return self
        lines = split_lines(self.text)
        for number, start, count in self.map.cells:
            if number in broken:
                lines[start - 1:start - 1 + count] = [""] * count
        return replace(self, text="\n".join(lines), broken={**self.broken, **broken})

    def parse_problems(self) -> list[tuple[int, int, int, str]]:
        """(module line, column, cell, message) of each broken cell's syntax error."""
        out = []
        for number, (msg, line, col) in sorted(self.broken.items()):
            at = self.map.line_of(number, line) or self.map.line_of(number, 1) or 1
            out.append((at, col, number, f"cell {number} does not parse, so it was not checked: {msg}"))
        return out

    def split(self, new_text: str) -> dict[int, str]:
        """The new source of every cell that ``new_text`` (this module after fixes)
        changed, masked lines restored. ValueError when the fixed text cannot be put back
        into the cells (a marker moved or a masked line changed)."""
        if self.ambiguous:
            raise ValueError("a cell contains a line that reads like jaxlint's cell separator")
        lines = split_lines(new_text)
        if lines and lines[-1] == "":
            lines.pop()
        marks = [(i, int(m.group(1))) for i, ln in enumerate(lines) for m in [_MARKER.match(ln)] if m]
        if [n for _, n in marks] != [n for n, _, _ in self.map.cells] or (marks and marks[0][0] != 0):
            raise ValueError("the fixed code no longer lines up with the notebook's cells")
        old = split_lines(self.text)
        out = {}
        for k, ((at, number), (_, start, count)) in enumerate(zip(marks, self.map.cells)):
            end = marks[k + 1][0] if k + 1 < len(marks) else len(lines)
            seg = lines[at + 1:end]
            if seg == old[start - 1:start - 1 + count]:
                continue
            if number in self.broken:
                raise ValueError(f"a fix would change cell {number}, which does not parse")
            written, masked = self.originals[number]
            restored = []
            pending = [written[i] for i in masked]
            for ln in seg:
                if ln.strip() == PLACEHOLDER:
                    if not pending:
                        raise ValueError(f"a fix would add IPython syntax to cell {number}")
                    restored.append(pending.pop(0))
                else:
                    restored.append(ln)
            if pending:
                raise ValueError(f"a fix would remove IPython syntax from cell {number}")
            nl = self.newlines.get(number, "\n")
            text = nl.join(restored)
            if restored and self.trailing.get(number, False):
                text += nl
            out[number] = text
        return out


# ---------------------------------------------------------------------------- findings
def to_cells(diagnostics: Iterable, cell_map: CellMap) -> list:
    """Findings of one notebook, from module lines to (cell, line in the cell): start,
    end, noqa line, related locations in the same notebook and fix edits."""
    from jaxlint.diagnostic import Position

    def at(p: Position, end: bool = False) -> tuple[int | None, Position]:
        hit = cell_map.locate(p.line, p.column, end)
        if hit is None:
            return None, p
        return hit[0], Position(hit[1], hit[2])

    out = []
    for d in diagnostics:
        if d.cell is not None:
            out.append(d)
            continue
        cell, start = at(d.start)
        _, end = at(d.end, end=True)
        if cell is None:
            out.append(d)
            continue
        if end < start:  # an end on a marker line: keep the range in its cell
            end = start
        at_noqa = cell_map.locate(d.noqa_line) if d.noqa_line is not None else None
        noqa = at_noqa[1] if at_noqa is not None else None
        related = []
        for r in d.related:
            if r.path == d.path and r.cell is None:
                rc, rs = at(r.start)
                _, re_ = at(r.end, end=True)
                r = replace(r, cell=rc, start=rs, end=max(re_, rs))
            related.append(r)
        fix = d.fix
        if fix is not None and fix.edits:
            edits = []
            for e in fix.edits:
                ec, es = at(e.start)
                _, ee = at(e.end, end=True)
                edits.append(replace(e, cell=ec, start=es, end=ee))
            fix = replace(fix, edits=tuple(edits))
        out.append(replace(d, cell=cell, start=start, end=end, noqa_line=noqa, related=tuple(related), fix=fix,
                           message=_cell_lines_in(d.message, cell_map)))
    return out


_LINE_WORD = re.compile(r"\bline (\d+)\b")


def _cell_lines_in(message: str, cell_map: CellMap) -> str:
    """A message's ``line N`` (rules name lines of the checked file) as ``cell C, line L``;
    code quoted in backticks is left alone."""
    if "line " not in message:
        return message

    def cell_line(m: re.Match) -> str:
        hit = cell_map.locate(int(m.group(1)))
        return f"cell {hit[0]}, line {hit[1]}" if hit else m.group()

    parts = message.split("`")
    return "`".join(_LINE_WORD.sub(cell_line, p) if i % 2 == 0 else p for i, p in enumerate(parts))


# ---------------------------------------------------------------------------- the JSON text
_WS = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


def _skip(s: str, i: int) -> int:
    return _WS.match(s, i).end()  # type: ignore[union-attr]


def _members(s: str, i: int, descend=None) -> tuple[list[tuple[str, int, int]], int]:
    """(key, value start, value end) of each member of the object at ``s[i]`` (valid
    JSON), and the offset after it. ``descend(key, start)`` may walk a value itself and
    return its end (None: the value is skipped)."""
    out: list[tuple[str, int, int]] = []
    i = _skip(s, i + 1)
    if s[i] == "}":
        return out, i + 1
    while True:
        key, i = _DECODER.raw_decode(s, i)
        i = _skip(s, _skip(s, i) + 1)
        end = descend(key, i) if descend is not None else None
        if end is None:
            _, end = _DECODER.raw_decode(s, i)
        out.append((key, i, end))
        i = _skip(s, end)
        if s[i] == "}":
            return out, i + 1
        i = _skip(s, i + 1)


def _elements(s: str, i: int) -> list[tuple[int, int]]:
    """(start, end) of each element of the array at ``s[i]``."""
    out: list[tuple[int, int]] = []
    i = _skip(s, i + 1)
    if s[i] == "]":
        return out
    while True:
        _, end = _DECODER.raw_decode(s, i)
        out.append((i, end))
        i = _skip(s, end)
        if s[i] == "]":
            return out
        i = _skip(s, i + 1)


def _source_spans(text: str) -> list[tuple[int, int] | None]:
    spans: list[tuple[int, int] | None] = []

    def cells(key: str, i: int) -> int | None:
        if key != "cells":
            return None
        j = _skip(text, i + 1)
        if text[j] == "]":
            return j + 1
        while True:
            members, j = _members(text, j)
            spans.append(next(((a, b) for k, a, b in members if k == "source"), None))
            j = _skip(text, j)
            if text[j] == "]":
                return j + 1
            j = _skip(text, j + 1)

    _members(text, _skip(text, 0), cells)
    return spans


def _string_tokens(text: str, a: int, b: int) -> list[tuple[int, int]]:
    """The (start, end) offsets of the JSON strings of a ``source`` value: itself, or
    the elements of its list."""
    return _elements(text, a) if text[a] == "[" else [(a, b)]


_ESCAPE = re.compile(r'\\u[0-9a-fA-F]{4}|\\.|[^\\"]', re.S)


def _raw_offset(text: str, span: tuple[int, int], source: str, line: int, column: int) -> int | None:
    """Offset in ``text`` of the character at (line, column) of a cell's source (just
    past its last character for a position at the end)."""
    starts = line_starts(source)
    target = starts[line - 1] + max(column - 1, 0) if 1 <= line <= len(starts) else len(source)
    seen, after = 0, None
    for a, b in _string_tokens(text, *span):
        for m in _ESCAPE.finditer(text, a + 1, b - 1):
            if seen >= target:
                return m.start()
            tok = m.group()
            # a UTF-16 surrogate pair is two escapes and one character
            seen += 0 if tok.startswith("\\u") and 0xD800 <= int(tok[2:], 16) <= 0xDBFF else 1
        after = b - 1
    return after if after is not None else span[0]


def _encode_source(text: str, a: int, b: int, source: str, ascii_only: bool) -> str:
    """A cell's new ``source`` value written as the old one was (``text[a:b]``)."""
    dump = lambda s: json.dumps(s, ensure_ascii=ascii_only)  # noqa: E731
    if text[a] != "[":
        return dump(source)
    old_tokens = _string_tokens(text, a, b)
    raw_of: dict[Any, Any] = {}
    for x, y in old_tokens:
        raw_of.setdefault(_DECODER.raw_decode(text, x)[0], text[x:y])
    lines = source.splitlines(keepends=True)
    if not lines:
        return "[]"
    items = [raw_of.get(ln) or dump(ln) for ln in lines]
    if old_tokens:
        first, sep = text[a + 1:old_tokens[0][0]], None
        if len(old_tokens) > 1:
            sep = text[old_tokens[0][1]:old_tokens[1][0]]
        close = text[old_tokens[-1][1]:b - 1]
        if sep is None:
            sep = "," + (first if first.strip() == "" else " ")
        return "[" + first + sep.join(items) + close + "]"
    # an empty list before: nbformat's layout, one line per item, one level deeper
    line_start = text.rfind("\n", 0, a) + 1
    key_indent = len(text[line_start:a]) - len(text[line_start:a].lstrip(" "))
    unit = _indent_unit(text)
    pad = "\n" + " " * (key_indent + unit)
    return "[" + pad + ("," + pad).join(items) + "\n" + " " * key_indent + "]"


def _indent_unit(text: str) -> int:
    m = re.match(r"\s*\{\n( +)\"", text)
    return len(m.group(1)) if m else 1


# ---------------------------------------------------------------------------- kernels
def match_cell(nb: Notebook, code: Sequence[str],
               transform: Callable[[str], str] | None = None) -> tuple[int, int] | None:
    """Which code cell a kernel ran as ``code`` (its lines, as IPython compiled them):
    (cell number, how many lines IPython dropped from the cell's top), or None.

    IPython removes leading blank lines and turns magics into ``get_ipython()`` calls
    (a line magic line for line, a cell magic's whole cell into one line). A cell without
    IPython syntax matches when every line is equal. A cell with some is compared with
    ``transform`` of its source (the kernel's own ``transform_cell``, what IPython
    compiled): a masked line alone says nothing of which magic ran (taken as matching
    any line, the first one-line ``%time ...`` cell matched every later one-line magic,
    a ``%%time`` cell's one line among them). Without ``transform`` such a cell matches
    nothing: unplaced rather than placed in another cell."""
    want = [ln.rstrip("\r\n") for ln in code]
    while want and not want[-1].strip():
        want.pop()
    module = nb.module()
    for c in nb.code_cells:
        written, masked_at = module.originals[c.number]
        lines, masked = list(written), list(masked_at)
        lead = 0
        while lead < len(lines) and not lines[lead].strip():
            lead += 1
        if masked:
            if transform is None:
                continue
            body = [ln.rstrip("\r\n") for ln in transform(c.source).splitlines()]
        else:
            body = lines[lead:]
        while body and not body[-1].strip():
            body.pop()
        if body == want:
            return c.number, lead
    return None


def present(diagnostics: Iterable, maps: Mapping[str, CellMap]) -> list:
    """A run's findings for the report: those of each notebook in ``maps`` (display path
    -> its cells) moved from module lines into cells, the others as they are."""
    out = []
    by_path: dict[str, list] = {}
    for d in diagnostics:
        if d.path in maps and d.cell is None:
            by_path.setdefault(d.path, []).append(d)
        else:
            out.append(d)
    for path, diags in by_path.items():
        out.extend(to_cells(diags, maps[path]))
    return sorted(out, key=lambda d: d.sort_key)


# ---------------------------------------------------------------------------- editing
@dataclass
class NotebookFile:
    """A notebook as ``--fix`` and ``--add-noqa`` edit it: ``text`` is its module (cells
    that do not parse blanked); :meth:`encode` puts an edited module back into the
    cells it changed (the file's other bytes untouched)."""

    path: object
    notebook: Notebook
    module: Module

    @classmethod
    def read(cls, path, data: bytes) -> "NotebookFile":
        nb = load(data)
        module = nb.module()
        if not parses(module.text):
            module = module.blank(module.find_broken())
        return cls(path, nb, module)

    @property
    def text(self) -> str:
        return self.module.text

    def changed_cells(self, text: str) -> dict[int, str]:
        """New source per changed cell; ValueError when ``text`` cannot go back into cells."""
        return self.module.split(text)

    def encode(self, text: str) -> bytes:
        return self.notebook.with_sources(self.changed_cells(text))

    def diff(self, display: str, text: str) -> str:
        """A unified diff per changed cell, headed ``path:cell N``."""
        from jaxlint.textutil import unified_diff

        before = {c.number: c.source for c in self.notebook.cells}
        return "".join(unified_diff(f"{display}:cell {n}", before[n], new)
                       for n, new in sorted(self.changed_cells(text).items()))

    def cells_after(self, text: str) -> CellMap:
        """The cell map of the module ``text`` (this notebook after an edit)."""
        return load(self.encode(text)).module().map


def read_module_text(path) -> str:
    """The virtual module of the notebook at ``path`` (cells that do not parse blanked),
    as the static phase checked it; OSError or :class:`NotebookError`."""
    from pathlib import Path

    return NotebookFile.read(path, Path(path).read_bytes()).text
