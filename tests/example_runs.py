"""Rule examples run through the real dynamic phase: all examples of the given rules in
one temporary tree (a folder per example, each with a ``pyproject.toml`` selecting only
that rule, the example's ``select`` and its options), checked by ONE ``jaxlint check``
run. In an example's extra files, ``{module}`` stands for the example's module name.
An example marked ``run`` is a program: `jaxlint record` runs it first, and the check
reports what the recording observed.

An example proves something only if its functions were really traced: every run also
selects the analysis-failed and trace-error rules, and ``run_examples`` returns per
example what went wrong before the rule could look (a skipped function, a function
that failed to import, trace or compile), so a test can fail on a vacuous example."""
from __future__ import annotations

import json
import textwrap
from collections import defaultdict
from pathlib import Path

from helpers import run_cli
from jaxlint.rule import example_source

#: rules whose findings say an example's function was not analysed: analysis-failed
#: (import, trace tier or compile step failed) and trace-error (tracing raised)
GUARDS = ("JAX200", "JAX205")


def toml_value(v) -> str:
    return json.dumps(v) if not isinstance(v, bool) else ("true" if v else "false")


def run_examples(root: Path, cases, dynamic_toml: str) -> tuple[dict, dict, str, dict]:
    """(example id -> file, file -> JSON diagnostics, stderr, example id -> problems)
    for ``cases`` of (rule, id, example); ``dynamic_toml`` is the body of
    ``[tool.jaxlint.dynamic]``. Problems are the functions not analysed (skipped, failed, not compiled), the guard findings (see
    ``GUARDS``) of an example that neither tests nor selects that guard rule; those
    findings are left out of the diagnostics."""
    files, guarded = {}, {}
    for rule, ident, ex in cases:
        mod = ident.lower().replace("-", "_")
        d = root / mod
        d.mkdir()
        guards = [g for g in GUARDS if g != rule.code and g not in ex.select]
        guarded[ident] = set(guards)
        opts = "".join(f"{k} = {toml_value(v)}\n" for k, v in ex.options.items())
        (d / "pyproject.toml").write_text(
            f'[tool.jaxlint]\nselect = {json.dumps([rule.code, *ex.select, *guards])}\n'
            + (f"[tool.jaxlint.rules.{rule.code}]\n{opts}" if opts else "")
            + f"[tool.jaxlint.dynamic]\n{dynamic_toml}"
        )
        for name, text in ex.files.items():
            p = d / name
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(textwrap.dedent(text).replace("{module}", mod).strip() + "\n")
        (d / f"{mod}.py").write_text(example_source(ex))
        files[ident] = f"{mod}/{mod}.py"
        if getattr(ex, "run", False):  # a program: observed by `jaxlint record` as it runs
            flags = ["--compile"] if "compile = true" in dynamic_toml else []
            rec = run_cli("record", *flags, "--", "python", f"{mod}.py", cwd=d, timeout=300)
            assert rec.returncode in (0, 1), (ident, rec.stderr[-2000:])
    # the run's JSON report has one row per function with its status (the text summary
    # that lists skips is not part of the JSON output)
    proc = run_cli("check", "--no-cache", "--output-format", "json", "--report", "run.json", ".", cwd=root,
                   timeout=900)
    assert proc.returncode in (0, 1), proc.stderr
    by_file = defaultdict(list)
    problems = {ident: [] for ident in files}
    ident_of = {f: ident for ident, f in files.items()}
    for d in json.loads(proc.stdout):
        ident = ident_of.get(d["filename"])
        if ident is not None and d["code"] in guarded[ident]:
            problems[ident].append(f'{d["code"]} {d["location"]["row"]}: {d["message"]}')
        else:
            by_file[d["filename"]].append(d)
    analysed = set()
    for row in json.loads((root / "run.json").read_text())["functions"]:
        ident = ident_of.get(row["path"])
        if ident is None:
            continue
        if row["status"] == "analysed":
            analysed.add(ident)
        elif row["status"] == "skipped" or "JAX200" in guarded[ident]:  # failing is what JAX200 tests
            problems[ident].append(f'{row["qualname"]} {row["status"]}: {row["reason"]}')
        if (row.get("report") or {}).get("compile_skipped"):
            problems[ident].append(f'{row["qualname"]} not compiled: {row["report"]["compile_skipped"]}')
    for ident in files:
        if ident not in analysed and "JAX200" in guarded[ident]:
            problems[ident].append("no function was analysed")
    return files, by_file, proc.stderr, problems
