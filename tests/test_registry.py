import re

from jaxlint.registry import all_rules, in_dependency_order, rule_for_role, rules_by_code, select_rules
from jaxlint.rule import ANALYSIS_FAILED, BUDGET, DOC_SECTIONS, PARSE_ERROR


def test_codes_and_names_are_unique():
    rules = all_rules()
    assert len({r.code for r in rules}) == len(rules)
    assert len({r.name for r in rules}) == len(rules)


def test_codes_follow_the_tier_scheme():
    for r in all_rules():
        assert re.fullmatch(r"JAX[1-3][0-9]{2}", r.code), r.code
        tier = {"1": "static", "2": "trace", "3": "compile"}[r.code[3]]
        assert r.phase.value == tier, r.code


def test_each_engine_role_is_taken_by_exactly_one_rule_of_the_right_tier():
    assert rule_for_role(PARSE_ERROR).phase.value == "static"
    assert rule_for_role(ANALYSIS_FAILED).phase.value == "trace"
    assert rule_for_role(BUDGET).phase.value == "compile"
    assert {r.role for r in all_rules()} == {None, PARSE_ERROR, ANALYSIS_FAILED, BUDGET}


def test_superseded_codes_name_rules_of_an_earlier_tier():
    by_code = rules_by_code()
    for r in all_rules():
        for c in r.supersedes:
            assert c in by_code and c < r.code, (r.code, c)


def test_every_trace_fact_a_rule_reads_is_declared_by_a_rule_of_an_earlier_or_its_tier():
    provided = {r.trace_fact: r for r in all_rules() if getattr(r, "trace_fact", None)}
    for r in all_rules():
        for fact in r.reads:
            assert fact in provided, (r.code, fact)
            assert provided[fact].code[3] <= r.code[3], (r.code, fact)


def test_every_trace_fact_key_is_declared_in_the_compile_facts_type():
    """The compile rules read ``CompileFacts.trace`` through its TypedDict: a rule's
    ``trace_fact`` key must be one of its fields."""
    from jaxlint.compile.facts import TraceFacts

    keys = {r.trace_fact for r in all_rules() if getattr(r, "trace_fact", None)}
    assert keys and keys <= set(TraceFacts.__annotations__), keys - set(TraceFacts.__annotations__)


def test_rules_run_after_the_rules_they_read_whatever_the_registry_order():
    for order in (list(all_rules()), list(reversed(all_rules()))):
        ran = [r.code for r in in_dependency_order(order)]
        assert sorted(ran) == sorted(r.code for r in order)
        for r in order:
            for other in order:
                if getattr(other, "trace_fact", None) in r.reads:
                    assert ran.index(other.code) < ran.index(r.code), (other.code, r.code)


def test_names_are_kebab_case_and_name_the_pattern():
    for r in all_rules():
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", r.name), r.name
        assert not r.name.startswith(("no-", "banned-", "avoid-", "use-")), r.name


def test_every_rule_has_all_doc_sections_and_examples():
    for r in all_rules():
        sections = r.doc_sections()
        missing = [s for s in DOC_SECTIONS if s not in sections]
        assert not missing, f"{r.code} lacks doc sections {missing}"
        assert r.VALID and r.INVALID, f"{r.code} needs VALID and INVALID examples"
        assert r.summary and r.fix_hint, r.code


def test_every_option_is_documented_in_the_rendered_docs():
    for r in all_rules():
        md = r.markdown()
        for key in r.options:
            assert f"`{key}`" in md, (r.code, key)


def test_prefix_selects_a_tier_and_ignore_of_a_more_specific_code_wins():
    codes = [r.code for r in select_rules(["JAX1"], [], ["JAX101"])]
    assert "JAX102" in codes and "JAX101" not in codes
    codes = [r.code for r in select_rules(["JAX101"], [], ["JAX1"])]
    assert codes == ["JAX101"]


def test_the_light_tables_match_the_rule_classes():
    """A static check reads codes from ``STATIC_RULES`` and ``LAZY_CODES`` without
    importing the trace and compile rules: they must say what the classes say."""
    from jaxlint.rules import LAZY_CODES, STATIC_RULES

    rules = all_rules()
    assert list(rules[:len(STATIC_RULES)]) == STATIC_RULES
    assert {r.code for r in STATIC_RULES} == {r.code for r in rules if r.phase.value == "static"}
    for tier, codes in LAZY_CODES.items():
        assert codes == tuple(r.code for r in rules if r.phase.value == tier), tier
    assert list(rules_by_code()) == [r.code for r in rules]
    assert all(rules_by_code()[r.code] is r for r in rules)


def test_the_static_index_says_what_the_classes_say():
    """A check selects static rules from ``STATIC_INDEX`` without importing them: each entry
    holds what selection reads of its class (``python -m jaxlint.docgen`` writes it)."""
    from jaxlint.registry import RuleEntry, static_index
    from jaxlint.rules import STATIC_INDEX, STATIC_RULES

    assert STATIC_INDEX == static_index() == tuple(RuleEntry.of(r) for r in STATIC_RULES)
    for entry, rule in zip(STATIC_INDEX, STATIC_RULES):
        assert entry.load() is rule
        assert (entry.default_enabled, entry.finding_groups(), entry.phase) == (
            rule.default_enabled, rule.finding_groups(), rule.phase)


def test_selecting_from_the_index_selects_what_the_classes_would():
    """The static tier selected from its entries (a check) against the same selectors over
    every rule's class (``phases=None``: the trace and compile tiers loaded too)."""
    from jaxlint.registry import selected_groups

    cases = [(None, [], [], False), (None, [], [], True), (["ALL"], [], [], False), (["perf"], [], [], False),
             (["suspicious", "correctness"], [], [], False), (["JAX1"], [], ["JAX114"], False),
             (None, ["nursery"], ["pedantic"], False), (None, ["JAX103", "prng-key-reuse"], ["JAX101"], True),
             (["JAX11"], [], ["suspicious"], False), (["ALL"], [], ["JAX2", "JAX190"], True)]
    for select, extend, ignore, preview in cases:
        light = select_rules(select, extend, ignore, ("static",), preview)
        full = [r for r in select_rules(select, extend, ignore, None, preview) if r.phase.value == "static"]
        assert light == full, (select, extend, ignore, preview)
        groups = selected_groups(select, extend, ignore, ("static",), preview)
        assert groups == {c: g for c, g in selected_groups(select, extend, ignore, None, preview).items()
                          if rules_by_code()[c].phase.value == "static"}
    assert 0 < len(select_rules(None, [], [], ("static",))) < len(select_rules(["ALL"], [], [], ("static",)))


def test_a_stale_index_is_refused_with_what_to_run():
    """An entry that no longer says what its class says (its group moved, the index not
    written again) is refused when the rule loads, and so is an index that misses a rule."""
    import pytest

    from jaxlint import registry
    from jaxlint.inspect.levels import builtin_rules
    from jaxlint.rules import STATIC_INDEX, STATIC_RULES

    moved = [e for e in STATIC_INDEX if e.group == "nursery"][0]
    stale = registry.RuleEntry(moved.code, moved.name, "perf", moved.kind_groups, moved.role, moved.module,
                               moved.qualname)
    with pytest.raises(LookupError, match="python -m jaxlint.docgen"):
        stale.load()
    pack = builtin_rules()
    try:
        registry.provide(lambda: registry.RulePack(STATIC_INDEX[:-1], lambda: STATIC_RULES, pack.lazy_codes, pack.load,
                                                   pack.folder))
        with pytest.raises(LookupError, match="python -m jaxlint.docgen"):
            registry.static_rules()
    finally:
        registry.provide(builtin_rules)
    assert registry.static_rules() == tuple(STATIC_RULES)
