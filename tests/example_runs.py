"""Rule examples run through the real dynamic phase: all examples of the given rules in
one temporary tree (a folder per example, each with a ``pyproject.toml`` selecting only
that rule, the example's ``select`` and its options), checked by ONE ``jaxlint check``
run. In an example's extra files, ``{module}`` stands for the example's module name."""
from __future__ import annotations

import json
import textwrap
from collections import defaultdict
from pathlib import Path

from helpers import run_cli
from jaxlint.rule import example_source


def toml_value(v) -> str:
    return json.dumps(v) if not isinstance(v, bool) else ("true" if v else "false")


def run_examples(root: Path, cases, dynamic_toml: str) -> tuple[dict, dict, str]:
    """(example id -> file, file -> JSON diagnostics, stderr) for ``cases`` of
    (rule, id, example); ``dynamic_toml`` is the body of ``[tool.jaxlint.dynamic]``."""
    files = {}
    for rule, ident, ex in cases:
        mod = ident.lower().replace("-", "_")
        d = root / mod
        d.mkdir()
        opts = "".join(f"{k} = {toml_value(v)}\n" for k, v in ex.options.items())
        (d / "pyproject.toml").write_text(
            f'[tool.jaxlint]\nselect = {json.dumps([rule.code, *ex.select])}\n'
            + (f"[tool.jaxlint.rules.{rule.code}]\n{opts}" if opts else "")
            + f"[tool.jaxlint.dynamic]\n{dynamic_toml}"
        )
        for name, text in ex.files.items():
            p = d / name
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(textwrap.dedent(text).replace("{module}", mod).strip() + "\n")
        (d / f"{mod}.py").write_text(example_source(ex))
        files[ident] = f"{mod}/{mod}.py"
    proc = run_cli("check", "--no-cache", "--output-format", "json", "--show-skipped", ".", cwd=root, timeout=900)
    assert proc.returncode in (0, 1), proc.stderr
    by_file = defaultdict(list)
    for d in json.loads(proc.stdout):
        by_file[d["filename"]].append(d)
    return files, by_file, proc.stderr
