"""Every rule's VALID / INVALID examples are tests (and its docs)."""
from __future__ import annotations

import pytest

from helpers import lint_source
from jaxlint.registry import all_rules
from jaxlint.rule import Invalid, example_source, iter_rule_examples

STATIC = [r for r in all_rules() if r.phase.value == "static"]
CASES = [(r, ident, ex) for r in STATIC for ident, ex in iter_rule_examples(r)]


@pytest.mark.parametrize("rule,ident,example", CASES, ids=[c[1] for c in CASES])
def test_rule_example(rule, ident, example):
    src = example_source(example)
    if rule.code == "JAX100":
        from jaxlint.static import check_text

        diags = check_text("example.py", src, [rule()]).diagnostics
    else:
        diags = lint_source(src, select=[rule.code], options={rule.code: dict(example.options)})
    if isinstance(example, Invalid):
        assert diags, f"{ident}: expected a {rule.code} finding in:\n{src}"
        if example.line is not None:
            assert diags[0].start.line == example.line, (ident, [str(d) for d in diags])
        if example.count is not None:
            assert len(diags) == example.count, (ident, diags)
        if example.message is not None:
            assert example.message in diags[0].message, (ident, diags[0].message)
        assert all(d.code == rule.code for d in diags)
    else:
        assert not diags, f"{ident}: expected no finding, got {[ (d.start.line, d.message) for d in diags]}"
