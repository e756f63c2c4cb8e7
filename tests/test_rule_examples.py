"""Every static rule's examples are tests: the documented ones (its VALID / INVALID,
which its page prints) and its fixtures (tests/fixtures/rules/<CODE>/, see the README
there). Each is held to every finding it gives: code and line, no more, no fewer."""
from __future__ import annotations

import textwrap

import pytest

from helpers import lint_source
from jaxlint.registry import all_rules
from jaxlint.rule import PARSE_ERROR, Invalid, example_source
from rule_fixtures import FIXTURES, FIXED, cases

STATIC = [r for r in all_rules() if r.phase.value == "static"]
CASES = [c for r in STATIC for c in cases(r)]


@pytest.mark.parametrize("case", CASES, ids=[c.ident for c in CASES])
def test_rule_example(case):
    rule, ident, example = case.rule, case.ident, case.example
    src = example_source(example)
    if rule.role == PARSE_ERROR:  # reported by the engine before any rule runs
        from jaxlint.static.checker import check_text

        diags = check_text("example.py", src, [rule()]).diagnostics
    else:
        diags = _lint(rule, example, src)
    assert case.expected is not None, f"{ident}: pin every finding (`lines`, or `line` with `count`)"
    got = sorted((d.start.line, d.code) for d in diags)
    assert got == list(case.expected), (
        f"{ident}: findings differ (line, code)\n  expected: {[(case.where(n), c) for n, c in case.expected]}\n"
        f"  got:      {[(case.where(n), c) for n, c in got]}\n"
        + "\n".join(f"  {case.where(d.start.line)}: {d.code} {d.message}" for d in diags))
    if isinstance(example, Invalid):
        if example.message is not None:
            assert example.message in diags[0].message, (ident, diags[0].message)
        assert rule.fixable is not None or all(d.fix is None for d in diags), (
            f"{ident}: {rule.code} attaches fixes but does not declare `fixable`")
        if example.expected_fix is not None:
            _assert_fix(rule, ident, example, src, diags)


def test_the_fixture_tree_holds_static_rules_examples_only():
    """A folder per static rule, named by its code; in it fixtures (``*.py``), a fixture's
    ``.fixed.py`` and its folder of files beside it: nothing a test would not read."""
    static = {r.code for r in STATIC}
    stray = []
    for folder in FIXTURES.iterdir():
        if folder.name == "README.md":
            continue
        if folder.name not in static or not folder.is_dir():
            stray.append(folder.name)
            continue
        names = {p.name[:-3] for p in folder.glob("*.py") if not p.name.endswith(FIXED)}
        for p in folder.iterdir():
            owner = p.name[:-len(FIXED)] if p.name.endswith(FIXED) else p.name if p.is_dir() else None
            if (owner is not None and owner not in names) or (owner is None and p.suffix != ".py"):
                stray.append(f"{folder.name}/{p.name}")
    assert not stray, f"not a fixture, nor a fixture's sidecar, nor a static rule's folder: {stray}"


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
