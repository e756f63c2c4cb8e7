"""``jaxlint merge``: combine the reports of ``check --shard K/N`` runs into one.

JSON and json-lines reports are read back into diagnostics and rendered again, so the
merged report is exactly what one unsharded run would have printed, in any format.
SARIF logs are merged as SARIF: all runs' results go into one run whose rules are the
union of the inputs' rules, with every ``ruleIndex`` pointing into the new list. JSON
reports merged into SARIF are converted first, with paths taken relative to the
current directory (where the shards ran).
"""
from __future__ import annotations

import copy
import json
import sys
from pathlib import Path
from typing import Any

from jaxlint.config import ConfigError


def add_parser(sub):
    p = sub.add_parser("merge", help="combine the JSON or SARIF reports of sharded runs into one")
    p.add_argument("inputs", nargs="+", metavar="REPORT",
                   help="reports written by `jaxlint check --output-format json|json-lines|sarif`")
    p.add_argument("-o", "--output-file", help="write the merged report to this file")
    p.add_argument("--output-format", help="json or sarif, or any format of `check` for JSON inputs "
                                           "(default: sarif when any input is SARIF, else json)")
    p.add_argument("--exit-zero", action="store_true", help="exit 0 even when the merged report has findings")
    return p


def _load(path: str) -> tuple[str, Any]:
    """``("sarif", log)`` (a dict) or ``("json", [diagnostic objects])`` (a list)."""
    from jaxlint.files import untrusted

    what = "report"
    try:
        text = untrusted.decode(Path(path), untrusted.read_bytes(Path(path), what), what)
    except FileNotFoundError:
        raise ConfigError(f"{path}: cannot read report: no such file") from None
    try:
        doc = untrusted.parse_json(Path(path), text, what) if text.strip() else []
    except ConfigError:
        try:  # json-lines: one diagnostic object per line
            doc = [untrusted.parse_json(Path(path), line, what) for line in text.splitlines() if line.strip()]
        except ConfigError:
            raise ConfigError(f"{path}: not a JSON, json-lines or SARIF report") from None
    if isinstance(doc, dict) and "runs" in doc:
        if not isinstance(doc["runs"], list):
            raise ConfigError(f"{path}: SARIF `runs` must be a list")
        return "sarif", doc
    if isinstance(doc, dict):
        doc = [doc]  # a json-lines report with a single finding
    if not isinstance(doc, list) or not all(isinstance(o, dict) and "code" in o for o in doc):
        raise ConfigError(f"{path}: not a jaxlint JSON or SARIF report")
    return "json", doc


def _diagnostics(objects: list[dict], source: str):
    from jaxlint.files.cache import check_diagnostic
    from jaxlint.diagnostic import Diagnostic

    out, seen = [], set()
    for o in objects:
        try:
            d = Diagnostic.from_dict(o)
            check_diagnostic(d)
        except (KeyError, TypeError, ValueError, AttributeError) as e:
            raise ConfigError(f"{source}: malformed finding ({type(e).__name__}: {e})") from None
        key = json.dumps(d.to_dict(), sort_keys=True, default=str)
        if key not in seen:  # the same report passed twice must not double its findings
            seen.add(key)
            out.append(d)
    out.sort(key=lambda d: d.sort_key)
    return out


def _result_key(res: dict) -> tuple:
    try:
        loc = res["locations"][0]["physicalLocation"]
        uri, region = loc["artifactLocation"].get("uri", ""), loc.get("region", {})
    except (KeyError, IndexError, TypeError):
        uri, region = "", {}
    return (uri, region.get("startLine", 0), region.get("startColumn", 0), res.get("ruleId", ""),
            res.get("message", {}).get("text", ""))


def merge_sarif(logs: list[dict]) -> dict:
    """One SARIF log with one run holding every input run's results."""
    runs = [run for log in logs for run in log.get("runs", [])]
    tools = {run.get("tool", {}).get("driver", {}).get("name") for run in runs}
    if len(tools) > 1:
        raise ConfigError(f"cannot merge SARIF runs of different tools: {', '.join(sorted(map(str, tools)))}")
    rules: dict[str, dict] = {}
    for run in runs:
        for rule in run["tool"]["driver"].get("rules", []):
            rules.setdefault(rule["id"], rule)
    order = sorted(rules)
    index = {rid: i for i, rid in enumerate(order)}
    results, seen = [], set()
    for run in runs:
        old_rules = run["tool"]["driver"].get("rules", [])
        for res in run.get("results", []):
            res = copy.deepcopy(res)
            rid = res.get("ruleId") or res.get("rule", {}).get("id")
            if rid is None and isinstance(res.get("ruleIndex"), int) and res["ruleIndex"] < len(old_rules):
                rid = res["ruleId"] = old_rules[res["ruleIndex"]]["id"]
            if rid in index:
                res["ruleIndex"] = index[rid]
                if isinstance(res.get("rule"), dict):
                    res["rule"]["index"] = index[rid]
            else:
                res.pop("ruleIndex", None)
            key = json.dumps(res, sort_keys=True)
            if key not in seen:
                seen.add(key)
                results.append(res)
    results.sort(key=_result_key)
    first = copy.deepcopy(runs[0])
    first["tool"]["driver"]["rules"] = [rules[rid] for rid in order]
    first["results"] = results
    bases: dict = {}
    invocations: list = []
    for run in runs:
        for k, v in run.get("originalUriBaseIds", {}).items():
            bases.setdefault(k, v)  # shards on different runners share repo-relative URIs; keep one root
        invocations.extend(run.get("invocations", []))
    if bases:
        first["originalUriBaseIds"] = bases
    if invocations:
        first["invocations"] = invocations
    return {"$schema": logs[0].get("$schema"), "version": "2.1.0", "runs": [first]}


def run(args) -> int:
    from jaxlint.output import OutputContext, load_formats, write_report
    from jaxlint.output.sarif import sarif_log
    from jaxlint.registry import rules_by_code
    from jaxlint.findings.result import RunResult

    formats = load_formats()
    loaded = [(path, *_load(path)) for path in args.inputs]
    kinds = {kind for _, kind, _ in loaded}
    fmt = args.output_format or ("sarif" if "sarif" in kinds else "json")
    if fmt not in formats:
        raise ConfigError(f"--output-format: unknown format `{fmt}`; choose from {', '.join(sorted(formats))}")
    if "sarif" in kinds and fmt != "sarif":
        raise ConfigError(f"SARIF reports can only be merged into SARIF, not `{fmt}`")
    known = rules_by_code()
    ctx = OutputContext()

    if fmt == "sarif":
        logs = []
        for path, kind, doc in loaded:
            if kind == "json":
                diags = _diagnostics(doc, path)
                doc = sarif_log(diags, {d.code: known.get(d.code) for d in diags}, ctx)
            logs.append(doc)
        if not any(log.get("runs") for log in logs):
            logs.append(sarif_log([], {}, ctx))
        merged = merge_sarif(logs)
        write_report(json.dumps(merged, indent=2, ensure_ascii=False) + "\n", args.output_file)
        failures: list[str] = []
        for inv in merged["runs"][0].get("invocations", []):
            if not inv.get("executionSuccessful", True):
                notes = inv.get("toolExecutionNotifications") or [{"message": {"text": "a sharded run failed"}}]
                failures.extend(n.get("message", {}).get("text", "") for n in notes)
        findings = bool(merged["runs"][0]["results"])
    else:
        objects = [o for _, _, doc in loaded for o in doc]
        diags = _diagnostics(objects, ", ".join(args.inputs))
        result = RunResult(diagnostics=diags, rules={d.code: known[d.code] for d in diags if d.code in known})
        write_report(formats[fmt](result, ctx), args.output_file)
        failures, findings = [], bool(diags)
    for f in failures:
        print(f"jaxlint: error: {f}", file=sys.stderr)
    if failures:
        return 2
    return 1 if findings and not args.exit_zero else 0
