"""``sarif``: a SARIF 2.1.0 log for GitHub code scanning: the rules with their docs,
fingerprints stable across line moves, fixes and related locations. Fix edits of a
notebook cell are in the cell's coordinates, so they are not offered as replacements of
the ``.ipynb`` file's JSON text."""
from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Iterable, Mapping, Sequence
from urllib.parse import quote

from jaxlint import __version__
from jaxlint.diagnostic import Diagnostic, Position
from jaxlint.output.context import OutputContext, register
from jaxlint.output.shared import InFile, fingerprints, relative_path, repo_root, report_paths, rules_for
from jaxlint.findings.result import RunResult
from jaxlint.rule import Rule

SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
SRCROOT = "%SRCROOT%"
INFORMATION_URI = "https://github.com/jaxlint/jaxlint"
#: the key under ``partialFingerprints``; bump the suffix if the recipe ever changes
FINGERPRINT_KEY = "jaxlint/v1"


def _region(start: Position, end: Position) -> dict:
    # jaxlint columns are 1-based code points with an exclusive end, as SARIF's are
    # when the run declares columnKind "unicodeCodePoints"
    return {"startLine": start.line, "startColumn": start.column, "endLine": end.line, "endColumn": end.column}


def _artifact(path: str, root: Path, cwd: Path) -> dict:
    rel = relative_path(path, root, cwd)
    if rel is not None:
        return {"uri": quote(rel.encode("utf-8", "surrogateescape"), safe="/"), "uriBaseId": SRCROOT}
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
        "properties": {"tags": ["jax", rule.phase.value, rule.group], "phase": rule.phase.value,
                       "group": rule.group,
                       # finding kinds with a group of their own (JAX106's print of a value)
                       **({"kindGroups": {k: v.group for k, v in rule.kinds.items()}} if rule.kinds else {})},
    }


def sarif_log(diagnostics: Sequence[Diagnostic], rules: Mapping[str, type[Rule] | None], ctx: OutputContext,
              errors: Iterable[str] = (), not_checked: Sequence[Diagnostic] = ()) -> dict:
    """A complete SARIF 2.1.0 log with one run."""
    root = repo_root(ctx)
    names = {d.code: d.name for d in diagnostics}
    codes = sorted(set(rules) | set(names))
    index = {code: i for i, code in enumerate(codes)}
    paths = report_paths(diagnostics, ctx)
    in_file = InFile(ctx.cwd)
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
                "toolExecutionNotifications": [{"level": "error", "message": {"text": e}} for e in errors] + [
                    # a file in syntax of a newer Python: not checked, not a finding
                    {"level": "note", "message": {"text": f"not checked: {d.message}"}, "locations": [
                        {"physicalLocation": {"artifactLocation": _artifact(d.path, root, ctx.cwd),
                                              "region": _region(d.start, d.end)}}]}
                    for d in not_checked],
            }],
            "results": results,
        }],
    }


@register("sarif")
def sarif(result: RunResult, ctx: OutputContext) -> str:
    log = sarif_log(result.diagnostics, rules_for(result), ctx, result.errors, result.not_checked)
    return json.dumps(log, indent=2, ensure_ascii=False, default=str) + "\n"
