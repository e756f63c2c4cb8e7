"""Fixes as libcst codemods: ``ast`` reads, libcst writes.

The static phase finds problems on ``ast`` (fast; see docs/performance.md). A rule that
can fix a finding attaches a plan to it (``StaticContext.codemod``): what to change,
with the nodes involved given by their positions. When a fix is computed (``--fix``,
``--diff``, an editor's code action), this module parses that one file with libcst,
finds the planned nodes again by position (libcst's ``PositionProvider``), lets the
rule's ``codemod`` describe the change on libcst's tree and regenerates the file:
comments, blank lines and the author's formatting come back byte for byte outside the
nodes that changed, and imports are added and removed as statements.

Every fix is verified where it is made, and is not offered when a check fails:

* the result parses and compiles (``compile()``: scopes too) when the file did;
* the rest of the file is byte-identical: every changed line lies in a node the
  codemod replaced, at a statement it inserted beside, or in an import it added or
  removed;
* a re-check of the result (the same rules and suppressions) no longer has the
  finding, and has no finding the file did not have: so a second run has nothing
  left to do there, and the fix makes no new problem.

Only this module imports libcst, and only fixing imports this module.
"""
from __future__ import annotations

import ast
import bisect
import dataclasses
import io
import re
import tokenize
import warnings
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Sequence

import libcst as cst
from libcst.metadata import PositionProvider

from jaxlint.diagnostic import Diagnostic, Edit, Fix, Position
from jaxlint.textutil import common_affixes, line_opcodes, line_starts

Lint = Callable[[str], "list[Diagnostic]"]
_STATEMENT = (cst.SimpleStatementLine, cst.BaseCompoundStatement)


class CannotFix(Exception):
    """The code is not of the shape the codemod rewrites: no fix is offered."""


@dataclass
class Outcome:
    """A computed fix: the new text and its edits, or why there is none."""

    text: str | None = None
    edits: tuple[Edit, ...] = ()
    #: the re-check of ``text`` (findings, positions in ``text``)
    findings: list[Diagnostic] = field(default_factory=list)
    reason: str = ""

    @property
    def ok(self) -> bool:
        return self.text is not None


class Parsed:
    """One libcst parse of a text with position and parent metadata, shared by every
    fix computed on that text."""

    def __init__(self, text: str) -> None:
        from jaxlint.static.checker import _analysis_stack

        self.text = text
        # libcst drops the last line end of a file whose lines end in a lone CR (old Mac
        # files): it gets the text with LF in their place (same lines and columns) and
        # what it renders goes back to CR (see render)
        self.cr_only = "\r" in text and "\n" not in text
        try:
            with _analysis_stack():  # the room the static phase gives deeply nested code
                src = text.replace("\r", "\n") if self.cr_only else text
                self.module = cst.parse_module(src)
                # libcst drops a lone CR that ends the file: it comes back at render
                code = self.module.code
                self.tail = src[len(code):] if code != src and src.startswith(code) else ""
                if code + self.tail != src:
                    raise CannotFix("libcst does not give the file back as it is")
                self.positions = cst.MetadataWrapper(self.module, unsafe_skip_copy=True).resolve(PositionProvider)
        except RecursionError:
            raise CannotFix("the code is nested too deeply for libcst") from None
        except Exception as e:  # syntax libcst's parser does not accept
            raise CannotFix(f"libcst cannot parse the file: {str(e).splitlines()[0] if str(e) else type(e).__name__}")
        self._parents: dict[int, cst.CSTNode] = _parent_map(self.module)
        self._by_span: dict[tuple[int, int, int, int], list[cst.CSTNode]] | None = None

    def at(self, span: Sequence[int]) -> list[cst.CSTNode]:
        """Nodes whose range is ``span`` (1-based line, 1-based character column, as
        jaxlint's positions; libcst's columns are 0-based), outermost first."""
        if self._by_span is None:
            self._by_span = {}
            for node, r in self.positions.items():
                self._by_span.setdefault((r.start.line, r.start.column, r.end.line, r.end.column), []).append(node)
        line, col, end_line, end_col = span
        return self._by_span.get((line, col - 1, end_line, end_col - 1), [])

    def parent(self, node: cst.CSTNode) -> cst.CSTNode | None:
        return self._parents.get(id(node))

    def ancestors(self, node: cst.CSTNode) -> Iterable[cst.CSTNode]:
        p = self._parents.get(id(node))
        while p is not None:
            yield p
            p = self._parents.get(id(p))


_FIELDS: dict[type, tuple[str, ...]] = {}


def _parent_map(module: cst.Module) -> dict[int, cst.CSTNode]:
    """id(node) -> its parent, from the nodes' dataclass fields (a plain walk: libcst's
    ParentNodeProvider costs several times as much)."""
    out: dict[int, cst.CSTNode] = {}
    stack: list[cst.CSTNode] = [module]
    while stack:
        node = stack.pop()
        names = _FIELDS.get(type(node))
        if names is None:
            names = _FIELDS[type(node)] = tuple(f.name for f in dataclasses.fields(node))
        for name in names:
            value = getattr(node, name)
            if isinstance(value, cst.CSTNode):
                out[id(value)] = node
                stack.append(value)
            elif isinstance(value, (list, tuple)):
                for child in value:
                    if isinstance(child, cst.CSTNode):
                        out[id(child)] = node
                        stack.append(child)
    return out


class FixContext:
    """What a rule's ``codemod`` works with: the planned nodes in libcst's tree of the
    file, and the changes it asks for (made together when it returns)."""

    def __init__(self, parsed: Parsed, plan: dict) -> None:
        self.parsed = parsed
        self.module = parsed.module
        self.plan = plan
        self._replace: dict[int, tuple[cst.CSTNode, Any]] = {}
        self._before: dict[int, list[cst.BaseStatement]] = {}
        self._after: dict[int, list[cst.BaseStatement]] = {}
        self._imports: list[tuple[str, str | None]] = []
        self.released: set[str] = set()
        #: lines of the original text the changes may touch: (first, last) inclusive;
        #: text may also be inserted at the start of ``first`` or after ``last``
        self.regions: list[tuple[int, int]] = []

    # -- reading -----------------------------------------------------------------
    @staticmethod
    def cannot(reason: str) -> CannotFix:
        return CannotFix(reason)

    def arg(self, key: str, default: Any = None) -> Any:
        return self.plan.get(key, default)

    def node(self, key: str, *types: type) -> Any:
        """The node the plan's ``key`` names, of one of ``types``."""
        value = self.plan.get(key)
        if not isinstance(value, dict) or "span" not in value:
            raise CannotFix(f"the plan has no node {key!r}")
        found = [n for n in self.parsed.at(value["span"]) if not types or isinstance(n, types)]
        if not found:
            raise CannotFix(f"the {key} is not where the check found it")
        return found[0]

    def parent(self, node: cst.CSTNode) -> cst.CSTNode | None:
        return self.parsed.parent(node)

    def block_of(self, stmt: cst.BaseStatement) -> Sequence[cst.BaseStatement]:
        parent = self.parent(stmt)
        if isinstance(parent, (cst.Module, cst.IndentedBlock)):
            return parent.body
        raise CannotFix("the statement is not in a block")

    def expr(self, text: str) -> cst.BaseExpression:
        return cst.parse_expression(text, config=self.module.config_for_parsing)

    def stmt(self, text: str) -> cst.BaseStatement:
        return cst.parse_statement(text, config=self.module.config_for_parsing)

    # -- changing ------------------------------------------------------------------
    def replace(self, old: cst.CSTNode, new: Any) -> None:
        """Put ``new`` (a node, or ``cst.RemovalSentinel.REMOVE``) in place of ``old``.
        A statement keeps the comments above it and at the end of its line unless
        ``new`` brings its own."""
        self._claim(old)
        if isinstance(old, _STATEMENT) and isinstance(new, _STATEMENT) and not new.leading_lines:
            new = new.with_changes(leading_lines=old.leading_lines)
        if isinstance(old, cst.SimpleStatementLine) and isinstance(new, cst.SimpleStatementLine) \
                and old.trailing_whitespace.comment is not None and new.trailing_whitespace.comment is None:
            new = new.with_changes(trailing_whitespace=old.trailing_whitespace)
        self._replace[id(old)] = (old, new)
        self._region(old)

    def remove(self, stmt: cst.BaseStatement) -> None:
        self.replace(stmt, cst.RemovalSentinel.REMOVE)

    def insert_before(self, stmt: cst.BaseStatement, *new: cst.BaseStatement) -> None:
        """Insert statements before ``stmt``; they take the blank lines and comments
        above it, so that it keeps its place in the paragraph."""
        self.block_of(stmt)
        self._before.setdefault(id(stmt), []).extend(new)
        start = self.parsed.positions[stmt].start.line
        self.regions.append((start - len(getattr(stmt, "leading_lines", ())), start - 1))

    def insert_after(self, stmt: cst.BaseStatement, *new: cst.BaseStatement) -> None:
        self.block_of(stmt)
        self._after.setdefault(id(stmt), []).extend(new)
        end = self.parsed.positions[stmt].end.line
        self.regions.append((end + 1, end))

    def add_import(self, module: str, asname: str | None = None) -> None:
        """``import module as asname`` at module level, unless the file has it already
        (placed after the file's leading imports)."""
        self._imports.append((module, asname))

    def release(self, name: str) -> None:
        """The fix removes a use of ``name``: a module-level import of it that nothing
        uses any more is removed too."""
        self.released.add(name)

    def _claim(self, node: cst.CSTNode) -> None:
        """Refuse two replacements one inside the other (the outer would drop the inner)."""
        mine = {id(a) for a in self.parsed.ancestors(node)}
        for other, _ in self._replace.values():
            if other is node or id(other) in mine or id(node) in {id(a) for a in self.parsed.ancestors(other)}:
                raise CannotFix("two changes overlap")

    def _region(self, node: cst.CSTNode) -> None:
        r = self.parsed.positions[node]
        leading = len(node.leading_lines) if isinstance(node, _STATEMENT) else 0
        self.regions.append((r.start.line - leading, r.end.line))

    # -- making the new text ---------------------------------------------------------
    def render(self) -> str:
        self._place_imports()
        if not (self._replace or self._before or self._after):
            raise CannotFix("the fix changes nothing")
        try:
            new = self.module.visit(_Apply(self._replace, self._before, self._after))
        except Exception as e:  # a node libcst cannot render in that place
            raise CannotFix(f"libcst cannot make the change: {type(e).__name__}: {e}") from None
        code = new.code + self.parsed.tail  # type: ignore[union-attr]
        return code.replace("\n", "\r") if self.parsed.cr_only else code

    def _place_imports(self) -> None:
        wanted = [(m, a) for m, a in dict.fromkeys(self._imports) if not _has_import(self.module, m, a)]
        self._imports = []  # placed once, however often the text is rendered
        if not wanted:
            return
        stmts = [self.stmt(f"import {m}" + (f" as {a}" if a and a != m else "") + "\n") for m, a in wanted]
        body = self.module.body
        anchor = None
        for i, s in enumerate(body):
            if i == 0 and _is_docstring(s):
                anchor = s
            elif isinstance(s, cst.SimpleStatementLine) and all(isinstance(x, (cst.Import, cst.ImportFrom))
                                                                 for x in s.body):
                anchor = s
            else:
                break
        if anchor is not None:
            if _is_docstring(anchor):
                stmts[0] = stmts[0].with_changes(leading_lines=[cst.EmptyLine()])
            self.insert_after(anchor, *stmts)
        elif body:
            self.insert_before(body[0], *stmts)
        else:
            raise CannotFix("the module is empty")

    def drop_unused_imports(self, new_text: str, old_text: str, is_package_init: bool) -> bool:
        """Remove the imports of released names that ``new_text`` no longer uses (and
        ``old_text`` did). True when there was one to remove (render again)."""
        if not self.released or is_package_init:
            return False
        before, after = _name_uses(old_text), _name_uses(new_text)
        if before is None or after is None or "__all__" in after:
            return False
        dropped = False
        for name in sorted(self.released):
            if before.get(name, 0) == 0 or after.get(name, 0) != 0:
                continue
            found = _module_import_of(self.module, name)
            if found is None:
                continue
            stmt, alias = found
            small = stmt.body[0]
            try:
                if len(small.names) == 1:
                    nxt = _next_statement(self.module, stmt)
                    if any(line.comment is not None for line in stmt.leading_lines) and id(stmt) not in self._after:
                        if nxt is None:
                            continue  # a comment that would go with it
                        # the comments above the import stay, on the statement that follows
                        # (every concrete statement class has leading_lines; their base does not say so)
                        self.replace(nxt, nxt.with_changes(
                            leading_lines=[*stmt.leading_lines, *nxt.leading_lines]))  # type: ignore[attr-defined]
                    self.remove(stmt)
                else:
                    names = [a for a in small.names if a is not alias]
                    names[-1] = names[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
                    self.replace(small, small.with_changes(names=names))
            except CannotFix:
                continue  # the fix itself changes that statement: leave the import
            dropped = True
        return dropped


class _Apply(cst.CSTTransformer):
    def __init__(self, replace, before, after) -> None:
        super().__init__()
        self.replace, self.before, self.after = replace, before, after

    def on_leave(self, original, updated):  # type: ignore[override]
        key = id(original)
        hit = self.replace.get(key)
        out = updated if hit is None else hit[1]
        before, after = self.before.get(key, []), self.after.get(key, [])
        if not before and not after:
            return out
        if before and getattr(original, "leading_lines", None):
            # the inserted statements take the blank lines and comments above ``original``
            lines = original.leading_lines if out is cst.RemovalSentinel.REMOVE else out.leading_lines
            before = [before[0].with_changes(leading_lines=[*lines, *before[0].leading_lines]), *before[1:]]
            if out is not cst.RemovalSentinel.REMOVE:
                out = out.with_changes(leading_lines=[])
        if out is cst.RemovalSentinel.REMOVE and after and getattr(original, "leading_lines", None):
            after = [after[0].with_changes(leading_lines=[*original.leading_lines, *after[0].leading_lines]),
                     *after[1:]]
        items = [*before, *([] if out is cst.RemovalSentinel.REMOVE else [out]), *after]
        return cst.FlattenSentinel(items)


def _is_docstring(stmt: cst.CSTNode) -> bool:
    return (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Expr)
            and isinstance(stmt.body[0].value, (cst.SimpleString, cst.ConcatenatedString)))


def _dotted(expr: cst.BaseExpression) -> str:
    if isinstance(expr, cst.Name):
        return expr.value
    if isinstance(expr, cst.Attribute):
        return f"{_dotted(expr.value)}.{expr.attr.value}"
    return ""


def _has_import(module: cst.Module, name: str, asname: str | None) -> bool:
    for s in module.body:
        if isinstance(s, cst.SimpleStatementLine):
            for small in s.body:
                if isinstance(small, cst.Import):
                    for a in small.names:
                        local = a.asname.name.value if a.asname and isinstance(a.asname.name, cst.Name) else None
                        if _dotted(a.name) == name and (local or None) == (asname if asname != name else None):
                            return True
    return False


def _module_import_of(module: cst.Module, name: str):
    """The module-level ``import`` / ``from`` statement (alone on its line) binding ``name``."""
    for s in module.body:
        if not (isinstance(s, cst.SimpleStatementLine) and len(s.body) == 1
                and isinstance(s.body[0], (cst.Import, cst.ImportFrom))):
            continue
        small = s.body[0]
        if isinstance(small.names, cst.ImportStar):
            continue
        for a in small.names:
            if a.asname is not None:
                local = a.asname.name.value if isinstance(a.asname.name, cst.Name) else None
            else:
                local = _dotted(a.name).split(".")[0]
            if local == name:
                if s.trailing_whitespace.comment is not None:
                    return None  # `import numpy as np  # noqa: F401` and the like: the author's call
                return s, a
    return None


def _next_statement(module: cst.Module, stmt: cst.BaseStatement) -> cst.BaseStatement | None:
    body = list(module.body)
    i = next(k for k, s in enumerate(body) if s is stmt)
    return body[i + 1] if i + 1 < len(body) else None


def _name_uses(text: str) -> dict[str, int] | None:
    """How often each name occurs in ``text``: as a name anywhere, or as a word in a
    string (annotations in quotes, ``__all__``), conservatively; None if it does not parse."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    uses: dict[str, int] = {}

    def add(name: str) -> None:
        uses[name] = uses.get(name, 0) + 1

    for n in ast.walk(tree):
        if isinstance(n, ast.Name):
            add(n.id)
        elif isinstance(n, (ast.Global, ast.Nonlocal)):
            for x in n.names:
                add(x)
        elif isinstance(n, ast.Constant) and isinstance(n.value, str):
            for word in _WORD.findall(n.value):
                add(word)
    return uses


_WORD = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")


# ----------------------------------------------------------------------------- fixes
def compute(text: str, finding: Diagnostic, lint: Lint, baseline: Sequence[Diagnostic] | None = None,
            path: str = "", parsed: Parsed | None = None) -> Outcome:
    """The fix of ``finding`` (which has a planned fix) on ``text``, verified.
    ``lint`` re-checks a text; ``baseline`` is ``lint(text)`` when already known."""
    from jaxlint.registry import rules_by_code

    fix = finding.fix
    rule = rules_by_code().get(finding.code)
    if fix is None or fix.plan is None or rule is None:
        return Outcome(reason="no planned fix")
    from jaxlint.static.checker import _analysis_stack

    try:
        parsed = parsed if parsed is not None and parsed.text == text else Parsed(text)
        fx = FixContext(parsed, dict(fix.plan))
        with _analysis_stack():
            rule().codemod(fx)  # type: ignore[attr-defined]
            new = fx.render()
            if fx.drop_unused_imports(new, text, path.replace("\\", "/").endswith("__init__.py")):
                new = fx.render()
    except CannotFix as e:
        return Outcome(reason=str(e))
    except RecursionError:
        return Outcome(reason="the code is nested too deeply to rewrite")
    except Exception as e:  # a codemod bug must not lose the run
        return Outcome(reason=f"internal error in the {finding.code} codemod: {type(e).__name__}: {e}")
    return verify(text, new, finding, lint, baseline, fx.regions, path)


@dataclass
class Batch:
    """Fixes made together in one libcst pass and verified once (``--fix``): ``made``
    are in ``outcome.text``; ``declined`` could not be made (finding, why); ``deferred``
    touch a node another fix of the batch changes, for the next pass."""

    outcome: Outcome
    made: list[Diagnostic] = field(default_factory=list)
    declined: list[tuple[Diagnostic, str]] = field(default_factory=list)
    deferred: list[Diagnostic] = field(default_factory=list)


def compute_batch(text: str, findings: Sequence[Diagnostic], lint: Lint, baseline: Sequence[Diagnostic],
                  path: str = "", parsed: Parsed | None = None) -> Batch:
    """The fixes of ``findings`` made on one parse of ``text``, rendered once and
    verified once as :func:`verify` verifies one (the time is linear in their number).
    A codemod that cannot make its fix declines it; two that touch one node: the later
    waits for the next pass. When the whole does not verify, ``outcome`` says why and
    nothing is made (the caller goes fix by fix)."""
    from jaxlint.registry import rules_by_code
    from jaxlint.static.checker import _analysis_stack

    by_code = rules_by_code()
    batch = Batch(Outcome())
    try:
        parsed = parsed if parsed is not None and parsed.text == text else Parsed(text)
    except CannotFix as e:
        batch.declined = [(d, str(e)) for d in findings]
        batch.outcome = Outcome(reason=str(e))
        return batch
    whole = FixContext(parsed, {})
    claimed: set[int] = set()  # the nodes replaced so far
    around: set[int] = set()  # and every node around one of them
    inserted: set[tuple[str, int]] = set()  # the statements new ones go before or after
    with _analysis_stack():
        for d in findings:
            rule = by_code.get(d.code)
            if d.fix is None or d.fix.plan is None or rule is None:
                batch.declined.append((d, "no planned fix"))
                continue
            fx = FixContext(parsed, dict(d.fix.plan))
            try:
                rule().codemod(fx)  # type: ignore[attr-defined]
            except CannotFix as e:
                batch.declined.append((d, str(e)))
                continue
            except RecursionError:
                batch.declined.append((d, "the code is nested too deeply to rewrite"))
                continue
            except Exception as e:  # a codemod bug must not lose the run
                batch.declined.append((d, f"internal error in the {d.code} codemod: {type(e).__name__}: {e}"))
                continue
            olds = [old for old, _ in fx._replace.values()]
            # two insertions at one statement conflict too (two fixes hoisting the same
            # wrapper would each add it): the later one waits for the next pass, where
            # its codemod sees the first one's result
            anchors = {("before", k) for k in fx._before} | {("after", k) for k in fx._after}
            if anchors & inserted or any(
                    id(o) in claimed or id(o) in around or any(id(a) in claimed for a in parsed.ancestors(o))
                    for o in olds):
                batch.deferred.append(d)
                continue
            inserted |= anchors
            for o in olds:
                claimed.add(id(o))
                around.update(id(a) for a in parsed.ancestors(o))
            whole._replace.update(fx._replace)
            for mine, theirs in ((whole._before, fx._before), (whole._after, fx._after)):
                for k, v in theirs.items():
                    mine.setdefault(k, []).extend(v)
            whole._imports.extend(fx._imports)
            whole.released |= fx.released
            whole.regions.extend(fx.regions)
            batch.made.append(d)
        if not batch.made:
            batch.outcome = Outcome(reason="no fix could be made")
            return batch
        try:
            new = whole.render()
            if whole.drop_unused_imports(new, text, path.replace("\\", "/").endswith("__init__.py")):
                new = whole.render()
        except CannotFix as e:
            batch.outcome = Outcome(reason=str(e))
            return batch
        except RecursionError:
            batch.outcome = Outcome(reason="the code is nested too deeply to rewrite")
            return batch
    batch.outcome = verify(text, new, batch.made, lint, baseline, whole.regions, path)
    return batch


def verify(text: str, new: str, finding: Diagnostic | Sequence[Diagnostic], lint: Lint,
           baseline: Sequence[Diagnostic] | None, regions: Sequence[tuple[int, int]], path: str = "") -> Outcome:
    """Check a fixed text as the module docstring says; the outcome carries it when it passes."""
    if new == text:
        return Outcome(reason="the fix changes nothing")
    if not _compiles(new, path) and _compiles(text, path):
        return Outcome(reason="the fixed code would not compile")
    edits = text_edits(text, new)
    outside = _outside(text, new, regions)
    if outside is not None:
        return Outcome(reason=f"the fix would change line {outside}, outside the code it rewrites")
    lost = _lost_comment(text, new)
    if lost is not None:
        return Outcome(reason=f"the fix would lose the comment {lost!r}")
    before = list(baseline) if baseline is not None else lint(text)
    after = lint(new)
    problem = _compare(before, after, [finding] if isinstance(finding, Diagnostic) else finding, text, new, edits)
    if problem:
        return Outcome(reason=problem)
    return Outcome(new, edits, after)


def as_fix(finding: Diagnostic, outcome: Outcome) -> Fix:
    """The finding's fix with the computed edits (for an editor's code action)."""
    assert finding.fix is not None
    return Fix(finding.fix.message, outcome.edits, finding.fix.applicability)


def _compiles(text: str, path: str) -> bool:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            compile(text, path or "<fix>", "exec", dont_inherit=True)
        except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
            return False
    return True


def _lost_comment(text: str, new: str) -> str | None:
    """A comment of ``text`` that ``new`` no longer has (comments may move, not go)."""
    def comments(t: str) -> Counter | None:
        try:
            return Counter(tok.string for tok in tokenize.generate_tokens(io.StringIO(t).readline)
                           if tok.type == tokenize.COMMENT)
        except (tokenize.TokenError, SyntaxError, IndentationError):
            return None

    old, now = comments(text), comments(new)
    if old is None or now is None:
        return None
    missing = old - now
    return next(iter(missing), None)


def _keepends(text: str) -> list[str]:
    starts = line_starts(text)
    ends = starts[1:] + [len(text)]
    return [text[a:b] for a, b in zip(starts, ends) if a < b]


def _line_hunks(text: str, new: str) -> list[tuple[str, int, int, int, int]]:
    a, b = _keepends(text), _keepends(new)
    return [op for op in line_opcodes(a, b) if op[0] != "equal"]


def _outside(text: str, new: str, regions: Sequence[tuple[int, int]]) -> int | None:
    """The first line of ``text`` changed outside ``regions``, or None."""
    a, b = _keepends(text), _keepends(new)
    spans: list[list[int]] = []  # the regions' lines, as disjoint sorted runs (looked up by bisection)
    for first, last in sorted(regions):
        if spans and first <= spans[-1][1] + 1:
            spans[-1][1] = max(spans[-1][1], last)
        else:
            spans.append([first, last])
    firsts = [first for first, _ in spans]

    def run_at(line: int) -> list[int] | None:  # the run that starts at or before ``line``
        k = bisect.bisect_right(firsts, line) - 1
        return spans[k] if k >= 0 else None

    def at_point(i: int) -> bool:  # an insertion before line i + 1
        run = run_at(i + 1)
        return run is not None and i + 1 <= run[1] + 1

    def in_region(i1: int, i2: int) -> bool:  # lines i1 + 1 .. i2 replaced or deleted
        run = run_at(i1 + 1)
        return i2 <= i1 or (run is not None and i2 <= run[1])

    for _, i1, i2, j1, j2 in _line_hunks(text, new):
        if i1 == i2:
            # the same insertion can be shown at other places when the lines around it
            # repeat its own (blank lines, mostly): any of them will do
            block = b[j1:j2]
            if any(at_point(i) for i in _slides(a, i1, block)):
                continue
            return i1 + 1
        if j1 == j2 and any(in_region(i, i + (i2 - i1)) for i in _slides(a, i1, a[i1:i2], deleting=True)):
            continue
        if not in_region(i1, i2):
            return next(line for line in range(i1 + 1, i2 + 1) if not in_region(line - 1, line))
    return None


def _slides(a: list[str], i: int, block: list[str], deleting: bool = False) -> list[int]:
    """Where an insertion (or deletion) of ``block`` at line index ``i`` of ``a`` gives the
    same text: it moves up while the line above equals its last line, down while the
    line after equals its first."""
    out = [i]
    n = len(block)
    k, blk = i, list(block)
    while k > 0 and blk and a[k - 1] == blk[-1]:
        k -= 1
        blk = [blk[-1], *blk[:-1]]
        out.append(k)
    k, blk = i, list(block)
    after = (lambda k: k + n) if deleting else (lambda k: k)
    while blk and after(k) < len(a) and a[after(k)] == blk[0]:
        k += 1
        blk = [*blk[1:], blk[0]]
        out.append(k)
    return out


def text_edits(text: str, new: str) -> tuple[Edit, ...]:
    """The smallest edits, one per changed run of lines, that turn ``text`` into ``new``."""
    a, b = _keepends(text), _keepends(new)
    offs_a = [0]
    for line in a:
        offs_a.append(offs_a[-1] + len(line))
    starts = line_starts(text)
    out = []
    for _, i1, i2, j1, j2 in _line_hunks(text, new):
        start, end = offs_a[i1], offs_a[i2]
        old, content = text[start:end], "".join(b[j1:j2])
        p, s = common_affixes(old, content)
        out.append(Edit(_position(starts, start + p), _position(starts, end - s), content[p:len(content) - s]))
    return tuple(out)


def _position(starts: list[int], offset: int) -> Position:
    line = bisect.bisect_right(starts, offset)
    return Position(line, offset - starts[line - 1] + 1)


def _offset(starts: list[int], size: int, p: Position) -> int:
    if p.line > len(starts):
        return size
    return min(starts[p.line - 1] + p.column - 1, size)


_DIGITS = re.compile(r"\d+")


def _what(signature: str) -> str:
    """The code text part of a signature (``function:text``)."""
    return signature.split(":", 1)[-1]


def _compare(before: Sequence[Diagnostic], after: Sequence[Diagnostic], findings: Sequence[Diagnostic], text: str,
             new: str, edits: Sequence[Edit]) -> str | None:
    """Why the re-check refutes the fixes: a finding is still there, or a new one came."""
    old_starts, new_starts = line_starts(text), line_starts(new)
    spans = sorted((_offset(old_starts, len(text), e.start), _offset(old_starts, len(text), e.end), len(e.content))
                   for e in edits)

    firsts = [a for a, _, _ in spans]
    shift = [0]  # what the edits before each one add to the length
    for a, b, n in spans:
        shift.append(shift[-1] + n - (b - a))

    def moved(p: Position) -> set[Position]:
        o = _offset(old_starts, len(text), p)
        j, k = bisect.bisect_left(firsts, o), bisect.bisect_right(firsts, o)
        if j > 0 and spans[j - 1][1] > o:
            return set()  # inside replaced text: no position to follow
        delta = shift[j]
        out = set()
        for a, b, n in spans[j:k]:  # the edits that start right here
            if a == b:  # an insertion: the node may start before or after it
                out.add(_position(new_starts, o + delta))
            else:
                return out  # replaced from here on
            delta += n
        out.add(_position(new_starts, o + delta))
        return out

    def here(old: Diagnostic, new_d: Diagnostic) -> bool:
        return old.code == new_d.code and new_d.start in moved(old.start)

    def alike(old: Diagnostic, new_d: Diagnostic) -> bool:
        # moved code (statements a fix put into a new function): the same code text and
        # the same message but for numbers (line numbers in it)
        return (old.code == new_d.code and bool(old.signature) and _what(old.signature) == _what(new_d.signature)
                and _DIGITS.sub("", old.message) == _DIGITS.sub("", new_d.message))

    index: dict[tuple, list[Diagnostic]] = {}
    for d in before:
        index.setdefault((d.code, d.start, d.end), []).append(d)
    targets = []
    for finding in findings:
        target = next(iter(index.get((finding.code, finding.start, finding.end), ())), None)
        if target is None:
            return "the finding is not in a re-check of the file"
        targets.append(target)
    ids = {id(t) for t in targets}
    # the findings left: matched by where they were, then by what they say (each kept
    # in buckets, so that matching is linear in the number of findings)
    pool_here: dict[tuple, list[Diagnostic]] = {}
    pool_alike: dict[tuple, list[Diagnostic]] = {}
    for o in before:
        if id(o) in ids:
            continue
        for p in moved(o.start):
            pool_here.setdefault((o.code, p), []).append(o)
        if o.signature:
            pool_alike.setdefault((o.code, _what(o.signature), _DIGITS.sub("", o.message)), []).append(o)
    used: set[int] = set()

    def take(bucket: list[Diagnostic] | None) -> bool:
        for o in bucket or ():
            if id(o) not in used:
                used.add(id(o))
                return True
        return False

    unmatched = [d for d in after if not take(pool_here.get((d.code, d.start)))]
    unmatched = [d for d in unmatched
                 if not (d.signature and take(pool_alike.get((d.code, _what(d.signature), _DIGITS.sub("", d.message)))))]
    for d in unmatched:
        if any(here(t, d) or alike(t, d) for t in targets):
            return "the finding is still there after the fix"
    if unmatched:
        d = unmatched[0]
        msg = d.message if len(d.message) <= 90 else d.message[:87] + "..."
        return f"the fix would bring a new {d.code} ({msg})"
    return None
