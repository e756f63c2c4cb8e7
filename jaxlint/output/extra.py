"""Machine formats for CI: ``json-lines``, ``sarif``, ``github``, ``junit``, ``gitlab``.

Every format reads only :class:`~jaxlint.diagnostic.Diagnostic`, the run summary and the
rule classes' own metadata (summary, docs, url). Paths in SARIF, GitHub annotations and
GitLab reports are relative to the repository root, because that is how code scanning,
the Actions UI and merge-request widgets find files.

A finding in a Jupyter notebook (``Diagnostic.cell`` set) is placed in those three at
the line and column of the ``.ipynb`` file itself, where its cell's source line is
written in the JSON (:meth:`jaxlint.notebook.Notebook.file_position`): code scanning
and annotations show and link lines of the file as stored, so that is the only place
they can point at. The cell and the line in the cell go with it (SARIF properties,
the annotation's title, the GitLab description), and fix edits, which are in the
cell's coordinates, are not offered as SARIF replacements of the JSON text.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path
from typing import Iterable, Mapping, Sequence
from urllib.parse import quote

from jaxlint import __version__
from jaxlint.diagnostic import Diagnostic, Position, Severity
from jaxlint.output import OutputContext, register
from jaxlint.output.json_format import diagnostic_objects
from jaxlint.output.text import location
from jaxlint.rule import Rule
from jaxlint.runner import RunResult

SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
SRCROOT = "%SRCROOT%"
INFORMATION_URI = "https://github.com/jaxlint/jaxlint"
#: the key under ``partialFingerprints``; bump the suffix if the recipe ever changes
FINGERPRINT_KEY = "jaxlint/v1"
#: GitHub renders at most this many annotations of each level per step
GITHUB_ANNOTATIONS_PER_LEVEL = 10


# ---------------------------------------------------------------- shared helpers

def repo_root(ctx: OutputContext) -> Path:
    """The root that report paths are relative to: the git work tree containing the
    project root when there is one (code scanning resolves paths from it), else the
    project root, else the working directory."""
    base = Path(os.path.normpath((ctx.root or ctx.cwd).absolute()))
    for d in (base, *base.parents):
        if (d / ".git").exists():
            return d
    return base


def relative_path(path: str, root: Path, cwd: Path) -> str | None:
    """``path`` (a display path, relative to ``cwd``) as a posix path relative to
    ``root``; None when the file lies outside it."""
    p = Path(path)
    absolute = Path(os.path.normpath(p if p.is_absolute() else cwd / p))
    for a, r in ((absolute, root), (absolute.resolve(), root.resolve())):
        try:
            return a.relative_to(r).as_posix()
        except ValueError:
            continue
    return None


def fingerprints(diagnostics: Sequence[Diagnostic], paths: Sequence[str]) -> list[str]:
    """One fingerprint per finding, independent of line numbers.

    The recipe is rule code + repository path + the finding's signature (enclosing
    function and normalized source of the flagged expression) + the occurrence number
    among findings that share those three, so two identical findings in one function
    still get distinct fingerprints and moving code up or down changes none of them.
    """
    seen: Counter = Counter()
    out = []
    for d, path in zip(diagnostics, paths):
        basis = d.signature or f"{d.name}:{d.message}"
        key = (d.code, path, basis)
        nth = seen[key]
        seen[key] += 1
        out.append(hashlib.sha256("\0".join((d.code, path, basis, str(nth))).encode()).hexdigest()[:32])
    return out


def _report_paths(diagnostics: Sequence[Diagnostic], ctx: OutputContext) -> list[str]:
    root = repo_root(ctx)
    return [relative_path(d.path, root, ctx.cwd) or d.path for d in diagnostics]


class _InFile:
    """Positions of notebook findings in the ``.ipynb`` file (each notebook read once)."""

    def __init__(self, cwd: Path) -> None:
        self.cwd = cwd
        self._notebooks: dict[str, object] = {}

    def _notebook(self, path: str):
        if path not in self._notebooks:
            from jaxlint.notebook import NotebookError, load

            p = Path(path)
            try:
                self._notebooks[path] = load((p if p.is_absolute() else self.cwd / p).read_bytes())
            except (OSError, NotebookError):
                self._notebooks[path] = None
        return self._notebooks[path]

    def span(self, path: str, cell: int | None, start: Position, end: Position) -> tuple[Position, Position]:
        """(start, end) in the file; a finding outside notebooks as it is. A notebook that
        can no longer be read (or has lost the cell) gives its first line."""
        if cell is None:
            return start, end
        nb = self._notebook(path)
        a = nb.file_position(cell, start.line, start.column) if nb is not None else None  # type: ignore[attr-defined]
        b = nb.file_position(cell, end.line, end.column) if nb is not None else None  # type: ignore[attr-defined]
        if a is None:
            return Position(1, 1), Position(1, 1)
        return Position(*a), Position(*b) if b is not None and b >= a else Position(*a)


def _cell_note(d: Diagnostic) -> str:
    return f"cell {d.cell}, line {d.start.line}, column {d.start.column}" if d.cell is not None else ""


def _rules_for(result: RunResult) -> dict[str, type[Rule] | None]:
    """The active rules plus any rule that produced a finding, by code."""
    from jaxlint.registry import rules_by_code

    known = rules_by_code()
    rules: dict[str, type[Rule] | None] = dict(result.rules)
    for d in result.diagnostics:
        if d.code not in rules:
            rules[d.code] = known.get(d.code)
    return dict(sorted(rules.items()))


def _related_lines(d: Diagnostic) -> list[str]:
    return [f"{location(r.path, r.cell, r.start.line, r.start.column)}: {r.message}" for r in d.related]


# ---------------------------------------------------------------- json-lines

@register("json-lines")
def json_lines(result: RunResult, ctx: OutputContext) -> str:
    return "".join(json.dumps(o, ensure_ascii=False) + "\n" for o in diagnostic_objects(result))


# ---------------------------------------------------------------- SARIF 2.1.0

def _region(start: Position, end: Position) -> dict:
    # jaxlint columns are 1-based code points with an exclusive end, as SARIF's are
    # when the run declares columnKind "unicodeCodePoints"
    return {"startLine": start.line, "startColumn": start.column, "endLine": end.line, "endColumn": end.column}


def _artifact(path: str, root: Path, cwd: Path) -> dict:
    rel = relative_path(path, root, cwd)
    if rel is not None:
        return {"uri": quote(rel, safe="/"), "uriBaseId": SRCROOT}
    p = Path(path)
    return {"uri": Path(os.path.normpath(p if p.is_absolute() else cwd / p)).as_uri()}


def _plain(markdown: str) -> str:
    """Rule docs as plain text: headings and code fences dropped, the rest kept."""
    lines = []
    for line in markdown.splitlines():
        if line.startswith("```"):
            continue
        lines.append(re.sub(r"^#+\s+", "", line))
    return "\n".join(lines).strip() + "\n"


def rule_descriptor(code: str, rule: type[Rule] | None, name: str = "") -> dict:
    if rule is None:  # a finding from a rule this jaxlint does not know (e.g. a merged report)
        return {"id": code, "name": name or code, "shortDescription": {"text": name or code}}
    what = rule.doc_sections().get("What it does") or rule.summary
    markdown = rule.markdown()
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": _plain(what).strip(), "markdown": what},
        "help": {"text": _plain(markdown), "markdown": markdown},
        "helpUri": rule.url(),
        "defaultConfiguration": {"level": rule.severity.sarif_level, "enabled": rule.default_enabled},
        "properties": {"tags": ["jax", rule.phase.value], "phase": rule.phase.value},
    }


def sarif_log(diagnostics: Sequence[Diagnostic], rules: Mapping[str, type[Rule] | None], ctx: OutputContext,
              errors: Iterable[str] = ()) -> dict:
    """A complete SARIF 2.1.0 log with one run."""
    root = repo_root(ctx)
    names = {d.code: d.name for d in diagnostics}
    codes = sorted(set(rules) | set(names))
    index = {code: i for i, code in enumerate(codes)}
    paths = _report_paths(diagnostics, ctx)
    in_file = _InFile(ctx.cwd)
    results = []
    for d, fp in zip(diagnostics, fingerprints(diagnostics, paths)):
        res: dict = {
            "ruleId": d.code,
            "ruleIndex": index[d.code],
            "level": d.severity.sarif_level,
            "message": {"text": d.message},
            "locations": [{"physicalLocation": {
                "artifactLocation": _artifact(d.path, root, ctx.cwd),
                "region": _region(*in_file.span(d.path, d.cell, d.start, d.end)),
            }}],
            "partialFingerprints": {FINGERPRINT_KEY: fp},
            "properties": {"name": d.name, "phase": d.phase.value, "severity": d.severity.value,
                           "data": dict(d.data)},
        }
        if d.cell is not None:
            res["properties"].update(cell=d.cell, cellLine=d.start.line, cellColumn=d.start.column)
        if d.related:
            res["relatedLocations"] = [
                {"id": i, "message": {"text": r.message}, "physicalLocation": {
                    "artifactLocation": _artifact(r.path, root, ctx.cwd),
                    "region": _region(*in_file.span(r.path, r.cell, r.start, r.end))}}
                for i, r in enumerate(d.related, 1)
            ]
        if d.fix is not None and (not d.fix.edits or d.cell is not None):
            # a planned fix (its codemod runs only when fixing), or edits of a notebook cell's
            # code rather than of the file's JSON: SARIF wants replacements in the file
            res["properties"]["fix"] = {"message": d.fix.message, "applicability": d.fix.applicability.value}
        elif d.fix is not None:
            res["fixes"] = [{
                "description": {"text": d.fix.message},
                "artifactChanges": [{
                    "artifactLocation": _artifact(d.path, root, ctx.cwd),
                    "replacements": [
                        {"deletedRegion": _region(e.start, e.end), "insertedContent": {"text": e.content}}
                        for e in d.fix.edits
                    ],
                }],
                "properties": {"applicability": d.fix.applicability.value},
            }]
        results.append(res)
    errors = list(errors)
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "jaxlint",
                "version": __version__,
                "semanticVersion": __version__,
                "informationUri": INFORMATION_URI,
                "rules": [rule_descriptor(c, rules.get(c), names.get(c, "")) for c in codes],
            }},
            "originalUriBaseIds": {SRCROOT: {"uri": root.as_uri().rstrip("/") + "/"}},
            "columnKind": "unicodeCodePoints",
            "invocations": [{
                "executionSuccessful": not errors,
                "toolExecutionNotifications": [{"level": "error", "message": {"text": e}} for e in errors],
            }],
            "results": results,
        }],
    }


@register("sarif")
def sarif(result: RunResult, ctx: OutputContext) -> str:
    log = sarif_log(result.diagnostics, _rules_for(result), ctx, result.errors)
    return json.dumps(log, indent=2, ensure_ascii=False, default=str) + "\n"


# ---------------------------------------------------------------- GitHub Actions

GITHUB_LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def github_data(s: str) -> str:
    """Escape the message part of a workflow command."""
    return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def github_property(s: str) -> str:
    """Escape a ``key=value`` property of a workflow command."""
    return github_data(s).replace(":", "%3A").replace(",", "%2C")


@register("github")
def github(result: RunResult, ctx: OutputContext) -> str:
    out = []
    paths = _report_paths(result.diagnostics, ctx)
    in_file = _InFile(ctx.cwd)
    for d, path in zip(result.diagnostics, paths):
        start, end = in_file.span(d.path, d.cell, d.start, d.end)
        title = f"jaxlint {d.code} ({d.name})" + (f" at {_cell_note(d)}" if d.cell is not None else "")
        props = ",".join([
            f"file={github_property(path)}",
            f"line={start.line}",
            f"col={start.column}",
            f"endLine={end.line}",
            f"endColumn={end.column}",
            f"title={github_property(title)}",
        ])
        message = "\n".join([f"{d.code} {d.message}", *_related_lines(d)])
        out.append(f"::{GITHUB_LEVELS[d.severity]} {props}::{github_data(message)}\n")
    levels = Counter(GITHUB_LEVELS[d.severity] for d in result.diagnostics)
    if any(n > GITHUB_ANNOTATIONS_PER_LEVEL for n in levels.values()):
        # plain text (not a workflow command) so it is always visible in the log
        counts = ", ".join(f"{n} {level}" for level, n in sorted(levels.items()))
        out.append(
            f"jaxlint: {len(result.diagnostics)} findings in total ({counts}); GitHub shows only "
            f"{GITHUB_ANNOTATIONS_PER_LEVEL} annotations of each level per step. "
            "Upload `--output-format sarif` to code scanning, or run with `--output-format concise`, "
            "to see all of them.\n"
        )
    return "".join(out)


# ---------------------------------------------------------------- JUnit XML

# characters XML 1.0 cannot carry at all, even escaped
_XML_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _xml(s: str) -> str:
    return _XML_INVALID.sub(lambda m: f"\\x{ord(m.group()):02x}", s)


@register("junit")
def junit(result: RunResult, ctx: OutputContext) -> str:
    n = len(result.diagnostics)
    suites = ET.Element("testsuites", name="jaxlint", tests=str(max(n, 1)), failures=str(n),
                        errors=str(len(result.errors)))
    by_file: dict[str, list[Diagnostic]] = {}
    for d in result.diagnostics:
        by_file.setdefault(d.path, []).append(d)
    for path, diags in by_file.items():
        suite = ET.SubElement(suites, "testsuite", name=_xml(path), tests=str(len(diags)),
                              failures=str(len(diags)), errors="0", skipped="0")
        for d in diags:
            where = location(d.path, d.cell, d.start.line, d.start.column)
            case = ET.SubElement(suite, "testcase", name=_xml(f"{d.code} {d.name} at {where}"),
                                 classname=_xml(path), file=_xml(path), line=str(d.start.line))
            failure = ET.SubElement(case, "failure", message=_xml(d.message), type=d.code)
            failure.text = _xml("\n".join([f"{where}: {d.code} {d.message}", *_related_lines(d)]))
    if result.errors or not n:
        # consumers reject an empty report; a passing case says the run happened
        suite = ET.SubElement(suites, "testsuite", name="jaxlint", tests=str(max(len(result.errors), 1)),
                              failures="0", errors=str(len(result.errors)), skipped="0")
        for err in result.errors:
            case = ET.SubElement(suite, "testcase", name=_xml(err), classname="jaxlint")
            ET.SubElement(case, "error", message=_xml(err), type="internal-error")
        if not result.errors:
            ET.SubElement(suite, "testcase", name="no findings", classname="jaxlint")
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"


# ---------------------------------------------------------------- GitLab Code Quality

GITLAB_SEVERITIES = {Severity.INFO: "info", Severity.WARNING: "major", Severity.ERROR: "critical"}


@register("gitlab")
def gitlab(result: RunResult, ctx: OutputContext) -> str:
    from jaxlint.registry import rules_by_code

    known = rules_by_code()
    paths = _report_paths(result.diagnostics, ctx)
    in_file = _InFile(ctx.cwd)
    issues = []
    for d, path, fp in zip(result.diagnostics, paths, fingerprints(result.diagnostics, paths)):
        start, end = in_file.span(d.path, d.cell, d.start, d.end)
        where = f" ({_cell_note(d)})" if d.cell is not None else ""
        issue: dict = {
            "type": "issue",
            "description": f"{d.code} {d.message}{where}",
            "check_name": d.code,
            "fingerprint": fp,
            "severity": GITLAB_SEVERITIES[d.severity],
            "location": {"path": path, "lines": {"begin": start.line, "end": end.line}},
        }
        rule = known.get(d.code)
        if rule is not None and rule.fix_hint:
            issue["content"] = {"body": f"{rule.fix_hint} ({rule.url()})"}
        issues.append(issue)
    return json.dumps(issues, indent=2, ensure_ascii=False) + "\n"
