"""``json-lines``: one JSON object per finding and line, the fields of ``json``."""
from __future__ import annotations

import json

from jaxlint.output.context import OutputContext, register
from jaxlint.output.json_format import diagnostic_objects
from jaxlint.findings.result import RunResult


@register("json-lines")
def json_lines(result: RunResult, ctx: OutputContext) -> str:
    return "".join(json.dumps(o, ensure_ascii=False) + "\n" for o in diagnostic_objects(result))
