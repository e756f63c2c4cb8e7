"""Every rule's VALID / INVALID examples are tests (and its docs)."""
from __future__ import annotations

import textwrap

import pytest

from helpers import lint_source
from jaxlint.registry import all_rules
from jaxlint.rule import PARSE_ERROR, Invalid, example_source, iter_rule_examples

STATIC = [r for r in all_rules() if r.phase.value == "static"]
CASES = [(r, ident, ex) for r in STATIC for ident, ex in iter_rule_examples(r)]


@pytest.mark.parametrize("rule,ident,example", CASES, ids=[c[1] for c in CASES])
def test_rule_example(rule, ident, example):
    src = example_source(example)
    if rule.role == PARSE_ERROR:  # reported by the engine before any rule runs
        from jaxlint.static.checker import check_text

        diags = check_text("example.py", src, [rule()]).diagnostics
    else:
        diags = _lint(rule, example, src)
    if isinstance(example, Invalid):
        assert diags, f"{ident}: expected a {rule.code} finding in:\n{src}"
        if example.line is not None:
            assert diags[0].start.line == example.line, (ident, [str(d) for d in diags])
        if example.count is not None:
            assert len(diags) == example.count, (ident, diags)
        if example.message is not None:
            assert example.message in diags[0].message, (ident, diags[0].message)
        assert all(d.code == rule.code for d in diags)
        assert rule.fixable is not None or all(d.fix is None for d in diags), (
            f"{ident}: {rule.code} attaches fixes but does not declare `fixable`")
        if example.expected_fix is not None:
            _assert_fix(rule, ident, example, src, diags)
    else:
        assert not diags, f"{ident}: expected no finding, got {[ (d.start.line, d.message) for d in diags]}"


def _lint(rule, example, src):
    return lint_source(src, select=[rule.code, *example.select], options={rule.code: dict(example.options)},
                       files=example.files)


#: every static rule on by default: a fix is verified against all of them
DEFAULT_STATIC = [r.code for r in STATIC if r.default_enabled]


def _assert_fix(rule, ident, example, src, diags):
    """All of the rule's fixes (safe and unsafe), applied by the real fix engine as
    `--fix --unsafe-fixes` does and verified against every default rule, give exactly
    ``expected_fix``; fixing that again changes nothing."""
    from jaxlint.fix.apply import fix_until_stable

    assert any(d.fix is not None for d in diags), f"{ident}: expected_fix given but {rule.code} attached no fix"
    codes = list(dict.fromkeys([*DEFAULT_STATIC, rule.code, *example.select]))

    def relint(text):
        return lint_source(text, select=codes, options={rule.code: dict(example.options)})

    out = fix_until_stable(src, relint(src), relint, unsafe=True, path="example.py", codes={rule.code})
    expected = textwrap.dedent(example.expected_fix).lstrip("\n")
    assert out.text == expected, f"{ident}: fixed text differs:\n{out.text}\n--- expected ---\n{expected}"
    assert not out.rejected, f"{ident}: fixes that break the syntax: {out.rejected}"
    assert not out.declined, f"{ident}: fixes not made: {[(d.start.line, why) for d, why in out.declined]}"
    again = fix_until_stable(out.text, relint(out.text), relint, unsafe=True, path="example.py", codes={rule.code})
    assert again.text == out.text and not again.applied, f"{ident}: a second run changed:\n{again.text}"
