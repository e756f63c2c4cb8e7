"""``jaxlint rule CODE`` / ``jaxlint rule --all [--output-format json]``."""
from __future__ import annotations

import argparse
import json
import sys


def add_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser("rule", help="show a rule's documentation, or list all rules")
    p.add_argument("rule", nargs="?", help="rule code or name, e.g. JAX101 or captured-array")
    p.add_argument("--all", action="store_true", help="list every rule")
    p.add_argument("--output-format", choices=("text", "json"), default="text")
    return p


def rule_info(r) -> dict:
    return {
        "code": r.code,
        "name": r.name,
        "summary": r.summary,
        "phase": r.phase.value,
        "group": r.group,
        "severity": r.severity.value,
        "default_enabled": r.default_enabled,
        "fix": r.fixable.value if r.fixable else None,
        "options": {k: {"default": o.default, "doc": o.doc} for k, o in r.options.items()},
        "url": r.url(),
        "explanation": r.markdown(),
    }


def run(args) -> int:
    from jaxlint.output import write_report
    from jaxlint.registry import all_rules, rule_by_selector

    if args.all:
        rules = all_rules()
        if args.output_format == "json":
            write_report(json.dumps([rule_info(r) for r in rules], indent=2) + "\n", None)
        else:
            write_report("".join(f"{r.code}  {r.name:<24} {r.phase.value:<8} {r.group:<12} {r.summary}"
                                 f"{'' if r.default_enabled else '  (off by default)'}\n" for r in rules), None)
        return 0
    if not args.rule:
        print("jaxlint rule: give a rule code or name, or --all", file=sys.stderr)
        return 2
    found = rule_by_selector(args.rule.strip())
    if found is None:
        print(f"jaxlint rule: unknown rule `{args.rule}`", file=sys.stderr)
        return 2
    if args.output_format == "json":
        write_report(json.dumps(rule_info(found), indent=2) + "\n", None)
    else:
        write_report(found.markdown(), None)
    return 0
