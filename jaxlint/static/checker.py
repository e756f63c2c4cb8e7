"""The static phase for one file: decode, prefilter, parse, model, run rules, noqa.

Never imports jax and never imports or runs the checked code.
"""
from __future__ import annotations

import ast
import contextlib
import gc
import sys
import tokenize
import io
from dataclasses import field
from typing import Any, Iterable, Iterator, Mapping, Sequence

from jaxlint.diagnostic import Applicability, Confidence, Diagnostic, Edit, Fix, Phase, Position, Related, Severity
from jaxlint.findings.result import NEEDS_PYTHON
from jaxlint.records import dataclass
from jaxlint.rule import StaticRule, finding_severity
from jaxlint.static.apis import TRACED_LIBRARIES
from jaxlint.static.project import NO_FACTS, ProjectFacts
from jaxlint.static.semantic import ModuleModel
from jaxlint.static.traced import runs_traced
from jaxlint.static.tree import Link
from jaxlint.textutil import LINE_BREAK, LazyPattern, line_starts, split_lines


class SourceError(Exception):
    """The file cannot be read as Python source (encoding, NUL bytes, syntax)."""

    def __init__(self, message: str, line: int = 1, column: int = 1) -> None:
        super().__init__(message)
        self.line = line
        self.column = column
        #: the Python version whose syntax the file uses, when that is why it does not parse
        self.needs: str | None = None


#: Syntax a newer Python parses, recognised on the line a syntax error is at:
#: (pattern, the version that parses it, what it is)
_NEWER_SYNTAX = (  # compiled when a file does not parse
    (LazyPattern(r"^\s*type\s+[A-Za-z_]\w*\s*(\[.*\])?\s*="), (3, 12), "a `type` alias statement (PEP 695)"),
    (LazyPattern(r"^\s*(async\s+)?def\s+[A-Za-z_]\w*\s*\["), (3, 12), "type parameters (PEP 695)"),
    (LazyPattern(r"^\s*class\s+[A-Za-z_]\w*\s*\["), (3, 12), "type parameters (PEP 695)"),
    (LazyPattern(r"^\s*except\*"), (3, 11), "`except*` (PEP 654)"),
    (LazyPattern(r"^\s*except\s+[^:(]+,[^:]*:"), (3, 14), "`except` without parentheses (PEP 758)"),
)


def _newer_syntax(text: str, e: SyntaxError) -> tuple[tuple[int, int], str] | None:
    """The newer Python version and the construct a syntax error comes from, if it is
    syntax that version parses (PEP 695 under 3.11: not an error in the file)."""
    lines = text.splitlines()
    line = lines[e.lineno - 1] if e.lineno and 0 < e.lineno <= len(lines) else ""
    for pattern, version, what in _NEWER_SYNTAX:
        if version > sys.version_info[:2] and pattern().search(line):
            return version, what
    return None


def source_encoding(data: bytes) -> str:
    """The encoding of Python source bytes: its BOM or PEP 263 coding cookie, else UTF-8.
    Lines may end in a lone CR, as Python reads them (``tokenize`` looks for the cookie
    in the first two lines it splits at LF only). SyntaxError for a bad cookie."""
    probe = data[:4096]
    if b"\r" in probe:  # the cookie's lines, however they end (same length: the offsets hold)
        probe = probe.replace(b"\r\n", b" \n").replace(b"\r", b"\n")
    return tokenize.detect_encoding(io.BytesIO(probe).readline)[0]


def decode_source(data: bytes) -> str:
    """Decode Python source bytes honouring a PEP 263 coding cookie and a BOM."""
    try:
        encoding = source_encoding(data)
    except SyntaxError as e:
        raise SourceError(f"cannot decode file: {e}") from None
    try:
        text = data.decode(encoding)
    except (UnicodeDecodeError, LookupError) as e:
        if isinstance(e, UnicodeDecodeError):
            line = data.count(b"\n", 0, e.start) + 1
            col = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
            raise SourceError(
                f"file is not valid {encoding}: byte 0x{data[e.start]:02x} at line {line}, column {col}",
                line,
                col,
            ) from None
        raise SourceError(f"unknown encoding {encoding!r}") from None
    # the "utf-8-sig" codec has taken the byte-order mark off: another one is a character,
    # which Python rejects ("invalid non-printable character U+FEFF")
    if text.startswith("\ufeff"):
        raise SourceError("invalid non-printable character U+FEFF (a second byte-order mark)", 1, 1)
    return text


def parse_source(text: str, filename: str) -> ast.Module:
    if "\x00" in text:
        line = len(LINE_BREAK.findall(text, 0, text.index("\x00"))) + 1
        raise SourceError("file contains a NUL byte; it is not Python source", line, 1)
    try:
        return ast.parse(text, filename=filename, type_comments=False)
    except SyntaxError as e:
        newer = _newer_syntax(text, e)
        if newer is not None:
            (major, minor), what = newer
            err = SourceError(f"uses {what}, which Python {major}.{minor} parses: not checked under Python "
                              f"{sys.version_info[0]}.{sys.version_info[1]}; run jaxlint on Python {major}.{minor} "
                              "or newer to check it", e.lineno or 1, 1)
            err.needs = f"{major}.{minor}"
            raise err from None
        raise SourceError(f"syntax error: {e.msg}", e.lineno or 1, max(e.offset or 1, 1)) from None
    except (RecursionError, MemoryError):
        raise SourceError("expression nesting too deep to parse", 1, 1) from None
    except ValueError as e:
        raise SourceError(f"cannot parse: {e}", 1, 1) from None


class LineIndex:
    """Converts ast byte offsets to 1-based character columns and source segments, at a
    cost that depends on the lines involved, never on the size of the file."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.lines = text.splitlines(keepends=False) or [""]
        # splitlines splits on more than \n; ast counts only \n, \r\n, \r
        if any(c in text for c in "\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"):
            self.lines = split_lines(text)
        self._starts: list[int] | None = None

    def offset(self, lineno: int, byte_col: int) -> int:
        """The offset into the text of an ast position (1-based line, UTF-8 byte column)."""
        if self._starts is None:
            self._starts = line_starts(self.text)
        if not 1 <= lineno <= len(self._starts):
            return len(self.text) if lineno > 0 else 0
        return self._starts[lineno - 1] + self.char_col(lineno, byte_col) - 1

    def segment(self, node: ast.AST) -> str | None:
        """``ast.get_source_segment(text, node)`` without re-splitting the whole text per
        call (which made a file's findings cost the square of their number)."""
        ln, eln = getattr(node, "lineno", None), getattr(node, "end_lineno", None)
        col, ecol = getattr(node, "col_offset", None), getattr(node, "end_col_offset", None)
        if ln is None or eln is None or col is None or ecol is None:
            return None
        return self.text[self.offset(ln, col):self.offset(eln, ecol)]

    def line(self, lineno: int) -> str:
        if 1 <= lineno <= len(self.lines):
            return self.lines[lineno - 1]
        return ""

    def char_col(self, lineno: int, byte_col: int) -> int:
        line = self.line(lineno)
        if line.isascii():
            return byte_col + 1
        return len(line.encode("utf-8")[:byte_col].decode("utf-8", errors="ignore")) + 1

    def span(self, node: ast.AST) -> tuple[Position, Position]:
        ln = getattr(node, "lineno", 1)
        col = getattr(node, "col_offset", 0)
        eln = getattr(node, "end_lineno", None) or ln
        ecol = getattr(node, "end_col_offset", None)
        if ecol is None:
            ecol = col
        return Position(ln, self.char_col(ln, col)), Position(eln, self.char_col(eln, ecol))


@dataclass
class StaticContext:
    """What a static rule sees of one file, and how it reports."""

    path: str
    source: str
    tree: ast.Module
    model: ModuleModel
    index: LineIndex
    options: Mapping[str, Any] = field(default_factory=dict)
    rule: type[StaticRule] | None = None
    #: the severity configured for the rule (``[tool.jaxlint.rules.<rule>] severity``):
    #: every finding's; None: each finding's own, within the rule's group
    severity: Severity | None = None
    #: the groups of the rule's findings the selection took (``Rule.selected_groups``;
    #: None: all): a finding of a kind in another group is not reported
    groups: frozenset[str] | None = None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    #: what the project as a whole has chosen (``jaxlint.static.project``)
    project: ProjectFacts = NO_FACTS

    #: qualname -> the ``def`` line of its last definition in the module (see :meth:`_definition`)
    _last_defs: dict[str, int] | None = field(default=None, init=False, repr=False)

    def _definition(self, fn: Any) -> str:
        """``@LINE`` (its first line, decorators included) of an earlier definition of a name
        the module defines again (a notebook's cell per variant), as ``jaxlint record`` keys
        it: each definition has its own baseline entries; the last keeps the plain name."""
        node = fn.node
        if isinstance(node, ast.Lambda):
            return ""
        if self._last_defs is None:
            self._last_defs = {}
            for info in self.model.functions:
                if not isinstance(info.node, ast.Lambda):
                    self._last_defs[info.qualname] = max(self._last_defs.get(info.qualname, 0), info.node.lineno)
        if self._last_defs.get(fn.qualname, node.lineno) == node.lineno:
            return ""
        return f"@{min([node.lineno] + [d.lineno for d in node.decorator_list])}"

    @property
    def lines(self) -> list[str]:
        return self.index.lines

    def span(self, node: ast.AST) -> tuple[Position, Position]:
        return self.index.span(node)

    def segment(self, node: ast.AST) -> str:
        seg = self.index.segment(node)
        return seg if seg is not None else ast.unparse(node)

    def replace(self, node: ast.AST, content: str) -> Edit:
        start, end = self.span(node)
        return Edit(start, end, content)

    def insert_at(self, pos: Position, content: str) -> Edit:
        return Edit(pos, pos, content)

    def codemod(self, message: str, applicability: Applicability, **plan: Any) -> Fix:
        """A fix that the rule's ``codemod`` makes with libcst when it is computed
        (``jaxlint.fix.codemod``): ``plan`` is what the codemod needs, JSON data, with ast
        nodes given as themselves (kept as their spans, and found again in libcst's tree)."""
        return Fix(message, (), applicability, plan={k: self._plan_value(v) for k, v in plan.items()})

    def _plan_value(self, v: Any) -> Any:
        if isinstance(v, ast.AST):
            start, end = self.span(v)
            return {"span": [start.line, start.column, end.line, end.column]}
        if isinstance(v, (list, tuple)):
            return [self._plan_value(x) for x in v]
        return v

    def related(self, node: ast.AST, message: str) -> Related:
        start, end = self.span(node)
        return Related(self.path, start, end, message)

    def signature(self, node: ast.AST) -> str:
        fn = self.model.function_of(node)
        where = fn.qualname + self._definition(fn) if fn is not None else "<module>"
        try:
            text = ast.unparse(node)
        except Exception:  # pragma: no cover - unparse of exotic nodes
            text = type(node).__name__
        return f"{where}:{' '.join(text.split())[:200]}"

    def report(
        self,
        where: ast.AST,
        message: str,
        *,
        severity: Severity | None = None,
        data: Mapping[str, Any] | None = None,
        related: Sequence[Related] = (),
        fix: Fix | None = None,
        end_node: ast.AST | None = None,
        confidence: Confidence = Confidence.CERTAIN,
        kind: str | None = None,
        anchor: ast.AST | None = None,
    ) -> None:
        """Report a finding at the node ``where`` (to the end of ``end_node`` when given),
        with its ``fix`` (a ``Fix`` of :meth:`replace` edits, or :meth:`codemod`). ``kind``:
        the finding kind the rule's model gives it (``Rule.kinds``), else the rule's answer
        from the signature (``Rule.kind_of``); kept in ``data["kind"]``. ``anchor``: the node
        the finding is about, when it is shown at another place (a parameter made static,
        shown where the jit makes it so): its signature is the anchor's."""
        assert self.rule is not None
        if self.rule.traced_code and not runs_traced(self.model, where) and self.model.traced_function_of(where):
            return  # in a traced function, but in an arm the trace never takes: plain Python there
        signature = self.signature(anchor if anchor is not None else where)
        if kind is None and self.rule.kinds:
            kind = self.rule.kind_of(signature)
        if self.groups is not None and self.rule.group_of(signature, kind) not in self.groups:
            return  # a finding kind the selection did not take
        if kind is not None:
            data = {**(data or {}), "kind": kind}
        start, end = self.span(where)
        if end_node is not None:
            end = self.span(end_node)[1]
        self.diagnostics.append(
            Diagnostic(
                code=self.rule.code,
                name=self.rule.name,
                message=message,
                path=self.path,
                start=start,
                end=end,
                severity=self.severity or finding_severity(self.rule, severity),
                phase=Phase.STATIC,
                fix=fix,
                related=tuple(related),
                data=dict(data or {}),
                signature=signature,
                noqa_line=start.line,
                confidence=confidence,
            )
        )


def module_name_for(path: str) -> str:
    p = path.replace("\\", "/")
    if p.endswith(".py"):
        p = p[:-3]
    elif p.endswith(".pyi"):
        p = p[:-4]
    parts = [x for x in p.split("/") if x not in ("", ".", "..")]
    if parts and parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def parse_error_diagnostic(path: str, err: SourceError) -> Diagnostic:
    from jaxlint.findings.engine import ParseError as rule

    pos = Position(err.line, err.column)
    return Diagnostic(
        code=rule.code,
        name=rule.name,
        message=str(err),
        path=path,
        start=pos,
        end=pos,
        # syntax of a newer Python is no error in the file: one note naming the version
        severity=Severity.INFO if err.needs else rule.severity,
        phase=Phase.STATIC,
        data={NEEDS_PYTHON: err.needs} if err.needs else {},
        signature=f"<module>:{rule.name}",
        noqa_line=None,
    )


@dataclass
class StaticResult:
    diagnostics: list[Diagnostic]
    model: ModuleModel | None = None
    #: internal rule failures: (rule code, message); reported, never fatal
    errors: list[tuple[str, str]] = field(default_factory=list)
    skipped: bool = False  # the prefilter decided no rule can fire


def check_text(
    path: str,
    text: str,
    rules: Iterable[StaticRule],
    module_name: str | None = None,
    prefilter: bool = True,
    project: ProjectFacts = NO_FACTS,
    link: Link | None = None,
) -> StaticResult:
    """Run static rules over already decoded source text."""
    rules = list(rules)
    if prefilter and not may_fire(text, rules):
        return StaticResult([], skipped=True)
    with collection_paused():
        try:
            tree = parse_source(text, path)
        except SourceError as e:
            return StaticResult([parse_error_diagnostic(path, e)])
        with _analysis_stack():
            return _check_tree(path, text, tree, rules, module_name, project, link)


def may_fire(text: str, rules: Iterable[StaticRule]) -> bool:
    """Whether ``text`` holds a marker of one of ``rules`` (``StaticRule.markers``; none: any
    text). The marker "jax" stands for JAX code: the word, or the name of a library whose
    code JAX traces (``apis.TRACED_LIBRARIES``: a haiku-only module never writes "jax"). It is
    looked for first: nearly every file that holds any marker holds it, found at its imports."""
    markers = {m for r in rules for m in type(r).markers}
    if not markers:
        return True
    if "jax" in markers:
        if "jax" in text:
            return True
        markers.update(TRACED_LIBRARIES)
    return any(m in text for m in markers)


@contextlib.contextmanager
def collection_paused(young_after: bool = False) -> Iterator[None]:
    """The cyclic collector held off while a file is parsed, modelled and checked.

    Parsing and modelling a file allocate hundreds of thousands of long-lived nodes,
    which set off the collector's full passes again and again over a heap that is all
    live: a third of the CPU time of a 50k-line file went to them. Collection waits
    until the file is done; what the file left behind is collected then, by the usual
    thresholds, or at once by one young-generation collection (``young_after``: a
    static worker's file, whose whole model is garbage then; let back on while the model
    was still alive, the collector moved it into the older generations and traversed
    it there again, a third of the CPU time of a cold run over the benchmark's corpus,
    ``docs/performance.md``)."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
        if young_after and gc.get_count()[0] > gc.get_threshold()[0]:
            gc.collect(0)


@contextlib.contextmanager
def _analysis_stack() -> Iterator[None]:
    """``ast.parse`` accepts nesting up to about the recursion limit (a 990-term sum is a
    990-deep tree), and the model and rules recurse a few frames per level: analysis gets
    five times the room, so that a file that parses is also analysed."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, min(old * 5, 10_000)))
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


def _check_tree(path: str, text: str, tree: ast.Module, rules: list[StaticRule],
                module_name: str | None, project: ProjectFacts = NO_FACTS, link: Link | None = None) -> StaticResult:
    try:
        model = ModuleModel(tree, module_name if module_name is not None else module_name_for(path), link)
    except RecursionError:
        return StaticResult([], errors=[("model", "expression nesting too deep to analyse")])
    ctx = StaticContext(path, text, tree, model, LineIndex(text), project=project)
    errors: list[tuple[str, str]] = []
    for rule in rules:
        if rule.role is not None:  # the engine makes these findings itself
            continue
        ctx.rule = type(rule)
        ctx.options = rule.opts
        ctx.severity = rule.configured_severity  # `[tool.jaxlint.rules.<rule>] severity`
        ctx.groups = rule.selected_groups
        before = len(ctx.diagnostics)
        try:
            rule.check(ctx)
        except RecursionError:
            del ctx.diagnostics[before:]
            errors.append((rule.code, "expression nesting too deep to analyse"))
        except Exception as e:  # a rule bug must not lose the other rules' findings
            del ctx.diagnostics[before:]
            errors.append((rule.code, f"internal error: {type(e).__name__}: {e}"))
    return StaticResult(ctx.diagnostics, model, errors)


def check_bytes(path: str, data: bytes, rules: Iterable[StaticRule], module_name: str | None = None,
                project: ProjectFacts = NO_FACTS, link: Link | None = None) -> StaticResult:
    try:
        text = decode_source(data)
    except SourceError as e:
        return StaticResult([parse_error_diagnostic(path, e)])
    return check_text(path, text, rules, module_name, project=project, link=link)
