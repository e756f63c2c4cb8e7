"""Every trace rule's VALID / INVALID examples, run through the real dynamic phase.

All examples of all rules are written into one temporary tree (one folder per example,
each with a ``pyproject.toml`` selecting only that rule and its options) and checked
by ONE ``jaxlint check --dynamic`` run: real worker subprocesses, real jax on CPU.
In an example's extra files, ``{module}`` stands for the example's module name.
"""
from __future__ import annotations

import json
import textwrap
from collections import defaultdict

import pytest

from helpers import run_cli
from jaxlint.registry import all_rules
from jaxlint.rule import Invalid, example_source, iter_rule_examples

TRACE = [r for r in all_rules() if r.phase.value == "trace"]
CASES = [(r, ident, ex) for r in TRACE for ident, ex in iter_rule_examples(r)]


def _toml_value(v) -> str:
    return json.dumps(v) if not isinstance(v, bool) else ("true" if v else "false")


@pytest.fixture(scope="module")
def dynamic_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("dyn_examples")
    files = {}
    for rule, ident, ex in CASES:
        mod = ident.lower().replace("-", "_")
        d = root / mod
        d.mkdir()
        opts = "".join(f"{k} = {_toml_value(v)}\n" for k, v in ex.options.items())
        (d / "pyproject.toml").write_text(
            f'[tool.jaxlint]\nselect = ["{rule.code}"]\n'
            + (f"[tool.jaxlint.rules.{rule.code}]\n{opts}" if opts else "")
            + "[tool.jaxlint.dynamic]\nenabled = true\nfunction-timeout = 60\n"
        )
        for name, text in ex.files.items():
            p = d / name
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(textwrap.dedent(text).replace("{module}", mod).strip() + "\n")
        (d / f"{mod}.py").write_text(example_source(ex))
        files[ident] = f"{mod}/{mod}.py"
    proc = run_cli("check", "--no-cache", "--output-format", "json", "--show-skipped", ".", cwd=root, timeout=600)
    assert proc.returncode in (0, 1), proc.stderr
    by_file = defaultdict(list)
    for d in json.loads(proc.stdout):
        by_file[d["filename"]].append(d)
    return files, by_file, proc.stderr


@pytest.mark.parametrize("rule,ident,example", CASES, ids=[c[1] for c in CASES])
def test_dynamic_rule_example(dynamic_run, rule, ident, example):
    files, by_file, stderr = dynamic_run
    diags = sorted(by_file.get(files[ident], []), key=lambda d: (d["location"]["row"], d["location"]["column"]))
    src = example_source(example)
    shown = [(d["code"], d["location"]["row"], d["message"]) for d in diags]
    if isinstance(example, Invalid):
        assert diags, f"{ident}: expected a {rule.code} finding in:\n{src}\n{stderr}"
        if example.line is not None:
            assert diags[0]["location"]["row"] == example.line, (ident, shown)
        if example.count is not None:
            assert len(diags) == example.count, (ident, shown)
        if example.message is not None:
            assert example.message in diags[0]["message"], (ident, shown)
        assert all(d["code"] == rule.code for d in diags), shown
        assert all(d["phase"] == "trace" for d in diags)
    else:
        assert not diags, f"{ident}: expected no finding, got {shown}"
