"""The bundled `examples/dynamic/` programs: every `# JAX2xx` comment marks a line the
trace tier must report, and nothing else of the trace tier fires there."""
from __future__ import annotations

import json
import re
from pathlib import Path

from helpers import run_cli

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "dynamic"
_MARK = re.compile(r"#\s*(JAX2\d\d)\b")


def expected() -> set[tuple[str, int, str]]:
    out = set()
    for f in sorted(EXAMPLES.glob("*.py")):
        for i, line in enumerate(f.read_text().splitlines(), 1):
            for code in _MARK.findall(line):
                out.add((f.name, i, code))
    return out


def test_bundled_dynamic_examples_show_every_trace_rule_at_the_marked_lines():
    proc = run_cli("check", "--dynamic", "--no-cache", "--output-format", "json", "--select", "JAX2",
                   str(EXAMPLES), cwd=ROOT, timeout=300)
    assert proc.returncode == 1, proc.stderr
    found = {(Path(d["filename"]).name, d["location"]["row"], d["code"]) for d in json.loads(proc.stdout)}
    assert found == expected()
    assert {c for *_, c in found} >= {"JAX201", "JAX202", "JAX203", "JAX204", "JAX205", "JAX209"}
