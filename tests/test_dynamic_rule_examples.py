"""Every trace rule's VALID / INVALID examples, run through the real dynamic phase.

All examples of all rules are written into one temporary tree (one folder per example,
each with a ``pyproject.toml`` selecting only that rule and its options) and checked
by ONE ``jaxlint check --dynamic`` run: real worker subprocesses, real jax on CPU.
In an example's extra files, ``{module}`` stands for the example's module name.
"""
from __future__ import annotations

import pytest

from jaxlint.registry import all_rules
from jaxlint.rule import Invalid, example_source, iter_rule_examples

TRACE = [r for r in all_rules() if r.phase.value == "trace"]
CASES = [(r, ident, ex) for r in TRACE for ident, ex in iter_rule_examples(r)]


@pytest.fixture(scope="module")
def dynamic_run(tmp_path_factory):
    from example_runs import run_examples

    return run_examples(tmp_path_factory.mktemp("dyn_examples"), CASES, "enabled = true\nfunction-timeout = 60\n")


@pytest.mark.parametrize("rule,ident,example", CASES, ids=[c[1] for c in CASES])
def test_dynamic_rule_example(dynamic_run, rule, ident, example):
    files, by_file, stderr, problems = dynamic_run
    # an example whose function was skipped or failed to trace tests nothing
    assert not problems[ident], f"{ident}: not analysed: {problems[ident]}"
    # rules the example selects besides this one run so that this rule can react to
    # their findings; their own findings are not this example's to check
    diags = sorted((d for d in by_file.get(files[ident], []) if d["code"] not in example.select),
                   key=lambda d: (d["location"]["row"], d["location"]["column"]))
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
