"""``json``: an array of ruff-compatible objects plus jaxlint's ``name``, ``phase``, ``data``."""
from __future__ import annotations

import json

from jaxlint.output.context import OutputContext, register
from jaxlint.findings.result import RunResult


def diagnostic_objects(result: RunResult) -> list[dict]:
    from jaxlint.registry import rules_by_code

    rules = rules_by_code()
    out = []
    for d in result.diagnostics:
        obj = d.to_dict()
        if obj["fix"] is not None:
            # a planned fix's edits are made by its codemod when it is computed (--fix,
            # --diff, an editor): a plain check leaves them empty, and its plan is internal
            obj["fix"].pop("plan", None)
        rule = rules.get(d.code)
        obj["url"] = rule.url() if rule is not None else None
        out.append(obj)
    return out


@register("json")
def json_output(result: RunResult, ctx: OutputContext) -> str:
    return json.dumps(diagnostic_objects(result), indent=2, ensure_ascii=False) + "\n"
