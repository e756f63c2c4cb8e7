"""Rule lookup and selection. The engine reaches rules only through here.

The rules are handed in (:func:`provide`), never imported from here: the list itself
lives in ``jaxlint.rules`` (the top-level ``rules/`` folder, an explicit registry, so a
reader finds every rule in one place), whose ``PACK`` the entry points hand over: the
CLI (``jaxlint.cli``), the dynamic phase's worker and the recorder's shim
(``jaxlint.inspect.levels``), ``jaxlint.docgen``. The engine (core, the phases) thus
imports no rule, and the rules import the engine (tests/test_architecture.py).
"""
from __future__ import annotations

import functools
import importlib
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping, Protocol, Sequence, cast

from jaxlint.diagnostic import Phase
from jaxlint.records import dataclass
from jaxlint.rule import GROUPS, Rule, in_dependency_order  # noqa: F401 (re-exported: the engine's order of rules)
from jaxlint.textutil import LazyPattern

if TYPE_CHECKING:
    from jaxlint.rule import StaticRule


class Selection(Protocol):
    """What decides a file's active rules: the part of ``jaxlint.config.Settings`` the
    registry reads (the config package names the registry; the registry names no
    config type, so no import circle closes, type-only ones included)."""

    @property
    def select(self) -> tuple[str, ...] | None: ...
    @property
    def extend_select(self) -> tuple[str, ...]: ...
    @property
    def ignore(self) -> tuple[str, ...]: ...
    @property
    def per_file_ignores(self) -> Mapping[str, tuple[str, ...]]: ...
    @property
    def rule_options(self) -> Mapping[str, Mapping[str, Any]]: ...
    @property
    def ignore_noqa(self) -> bool: ...
    @property
    def confidence(self) -> str: ...
    @property
    def preview(self) -> bool: ...


_PREFIX = LazyPattern(r"^JAX[0-9]{0,3}$")


class RuleEntry:
    """A static rule as selecting it reads it (code, name, groups, role), known without
    importing its module: a check loads the rules it selects, not the others (each is a
    module and what only it needs of the model: 15 M instructions for the 12
    the default selection leaves out; docs/performance.md, speed59). The pack's index of
    them is written from the classes by ``python -m jaxlint.docgen``; a class that no
    longer says what its entry says is refused when it loads (:meth:`load`), and
    tests/test_docs_in_sync.py fails while the index is stale."""

    __slots__ = ("code", "name", "group", "kind_groups", "role", "module", "qualname")
    phase = Phase.STATIC

    def __init__(self, code: str, name: str, group: str, kind_groups: tuple[str, ...], role: str | None,
                 module: str, qualname: str) -> None:
        self.code, self.name, self.group, self.kind_groups = code, name, group, kind_groups
        self.role, self.module, self.qualname = role, module, qualname

    @classmethod
    def of(cls, rule: type[Rule]) -> RuleEntry:
        """The entry of a rule class (what the index says of it)."""
        kinds = tuple(dict.fromkeys(k.group for k in rule.kinds.values()))
        return cls(rule.code, rule.name, rule.group, kinds, rule.role, rule.__module__, rule.__qualname__)

    def _fields(self) -> tuple:
        return (self.code, self.name, self.group, self.kind_groups, self.role, self.module, self.qualname)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RuleEntry) and self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        return f"RuleEntry{self._fields()!r}"

    @property
    def default_enabled(self) -> bool:
        return GROUPS[self.group].on

    def finding_groups(self) -> tuple[str, ...]:
        """The rule's group, then the other groups its kinds are in (``Rule.finding_groups``)."""
        return tuple(dict.fromkeys([self.group, *self.kind_groups]))

    def load(self) -> type[Rule]:
        """The rule's class (imports its module)."""
        rule: type[Rule] = getattr(importlib.import_module(self.module), self.qualname)
        if RuleEntry.of(rule) != self:
            raise LookupError(f"the rules' index is stale (regenerate it: `python -m jaxlint.docgen`): "
                              f"{self!r}, but the class says {RuleEntry.of(rule)!r}")
        return rule


@dataclass(frozen=True)
class RulePack:
    """The rules an entry point hands the registry (``jaxlint.rules.PACK``)."""

    #: the static tier's rules as selecting them reads them, in the registry's order: a
    #: static check loads the rules it selects, and no other tier
    static_index: tuple[RuleEntry, ...]
    #: the static tier's rules, in the same order (imports every one)
    static: Callable[[], Sequence[type[Rule]]]
    #: tier -> the codes of its rules, known without importing them
    lazy_codes: Mapping[str, tuple[str, ...]]
    #: every rule, the static ones first (imports the trace and compile tiers)
    load: Callable[[], Sequence[type[Rule]]]
    #: the folder of the pack's code (a frame there is jaxlint's own)
    folder: str


#: what gives the rules: a function an entry point hands to :func:`provide`, called when a
#: rule is first needed (so a command that needs none imports none)
_source: Callable[[], RulePack] | None = None


def provide(source: Callable[[], RulePack]) -> None:
    """Hand the registry its rules: ``source()`` gives the pack when a rule is first needed.
    A module-level function, so that a process pool's workers can be handed it too."""
    global _source
    if source is not _source:
        _source = source
        for cached in (_pack, all_rules, static_rules, _light_table, _code_table, rule_for_role, static_names, _twins,
                       _families):
            cached.cache_clear()
        _RULES_CACHE.clear()


def source() -> Callable[[], RulePack] | None:
    """What :func:`provide` was handed (for a process that starts others to hand on)."""
    return _source


@functools.lru_cache(maxsize=1)
def _pack() -> RulePack:
    if _source is None:
        raise LookupError("jaxlint.registry has no rules: an entry point hands them over "
                          "(jaxlint.registry.provide; jaxlint.cli does)")
    return _source()


@functools.lru_cache(maxsize=1)
def all_rules() -> tuple[type[Rule], ...]:
    return tuple(_pack().load())


def code_dirs() -> tuple[str, ...]:
    """The folders of jaxlint's own code, the engine's and the rules' (installed apart:
    ``jaxlint.rules`` is the top-level ``rules/`` of a checkout), each ending in a separator."""
    import os

    import jaxlint

    return tuple(os.path.abspath(d) + os.sep for d in (os.path.dirname(jaxlint.__file__ or ""), _pack().folder))


@functools.lru_cache(maxsize=1)
def static_rules() -> tuple[type[Rule], ...]:
    """The static tier's classes, all of them, without importing the other tiers' (a check
    reads :func:`static_index` and loads the rules it selects)."""
    rules = tuple(_pack().static())
    if tuple(RuleEntry.of(r) for r in rules) != static_index():
        stale = [RuleEntry.of(r) for r in rules if RuleEntry.of(r) not in static_index()]
        raise LookupError("the rules' index is stale (regenerate it: `python -m jaxlint.docgen`): it does not say "
                          f"{stale or 'their order'}")
    return rules


def static_index() -> tuple[RuleEntry, ...]:
    """The static tier's rules as selecting them reads them, none imported."""
    return _pack().static_index


def _rules_of(phases: Iterable[str] | None) -> Iterable[type[Rule] | RuleEntry]:
    """The rules of ``phases`` to select from: for the static tier alone, its entries."""
    if phases is not None and set(phases) <= {"static"}:
        return static_index()
    return all_rules()


class _CodeTable(Mapping[str, "type[Rule]"]):
    """Code -> rule class. Its keys, and the static rules, are known without importing
    the trace and compile rules; looking one of those up imports them."""

    def __init__(self) -> None:
        self._static = {e.code: e for e in static_index()}
        self._loaded: dict[str, type[Rule]] = {}
        self._codes = tuple(self._static) + tuple(c for cs in _pack().lazy_codes.values() for c in cs)

    def __getitem__(self, code: str) -> type[Rule]:
        rule = self._loaded.get(code)
        if rule is None:
            entry = self._static.get(code)
            rule = self._loaded[code] = entry.load() if entry is not None else _code_table()[code]
        return rule

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self._codes)

    def __len__(self) -> int:
        return len(self._codes)

    def __contains__(self, code: object) -> bool:
        return code in self._static or code in self._codes


@functools.lru_cache(maxsize=1)
def _light_table() -> Mapping[str, type[Rule]]:
    return _CodeTable()


def rules_by_code() -> Mapping[str, type[Rule]]:
    """Code -> rule class (built once; read-only)."""
    return _light_table()


@functools.lru_cache(maxsize=1)
def _code_table() -> Mapping[str, type[Rule]]:
    return MappingProxyType({r.code: r for r in all_rules()})


@functools.lru_cache(maxsize=None)
def rule_for_role(role: str) -> type[Rule]:
    """The rule whose findings the engine makes itself for ``role`` (``Rule.role``).
    A static role is looked up in the static tier alone (tests/test_registry.py checks
    that each role is taken by exactly one rule of all)."""
    static = [e for e in static_index() if e.role == role]
    found = [e.load() for e in static] or [r for r in all_rules() if r.role == role]
    if len(found) != 1:
        raise LookupError(f"{len(found)} rules declare role {role!r}; the engine needs exactly one")
    return found[0]


def rule_by_selector(sel: str) -> type[Rule] | None:
    """A single rule by exact code or name (a static one without importing the others)."""
    for e in static_index():
        if sel == e.code or sel == e.name:
            return e.load()
    for r in all_rules():
        if sel == r.code or sel == r.name:
            return r
    return None


#: the group ``--preview`` (``preview = true``) turns on with the default selection
PREVIEW_GROUP = "nursery"

#: the specificity of a selector that names a rule (its code or name)
_EXACT = 100
#: the specificity of a group's name (``perf``): above ``ALL``, below any code prefix
_GROUP = 2


def _matches(sel: str, rule: type[Rule] | RuleEntry, group: str | None = None) -> int:
    """Specificity of ``sel`` for ``rule``'s findings in ``group`` (its own group when not
    given; a finding kind may have another: :attr:`Rule.kinds`) (0: no match). Names count
    as exact codes."""
    if sel == "ALL":
        return 1
    if sel == rule.name or sel == rule.code:
        return _EXACT
    if sel in GROUPS:
        return _GROUP if sel == (group or rule.group) else 0
    if _PREFIX().match(sel) and rule.code.startswith(sel):
        return 1 + len(sel)
    return 0


def validate_selectors(selectors: Iterable[str], where: str) -> None:
    from jaxlint.config.errors import ConfigError, named

    for sel in selectors:
        if sel in GROUPS:  # a group may be empty (nothing in nursery yet): still a name
            continue
        if not (any(_matches(sel, e) for e in static_index()) or any(_matches(sel, r) for r in all_rules())):
            hint = suggest_selector(sel) if isinstance(sel, str) else None
            raise ConfigError(f"{where}: unknown rule selector `{named(sel)}`"
                              + (f"; did you mean `{hint}`?" if hint else
                                 f"; a selector is a code (JAX101), a prefix (JAX1), a rule name, a lint group "
                                 f"({', '.join(GROUPS)}) or ALL (`jaxlint rule --all` lists them)"))


#: characters typed for digits in a code (``JAX1O4``, ``JAXl04``)
_DIGIT_LOOKALIKES = str.maketrans({"O": "0", "o": "0", "I": "1", "l": "1", "i": "1", "L": "1"})


def suggest_selector(sel: str) -> str | None:
    """The rule code or name ``sel`` was probably meant to be, or None."""
    import difflib

    s = sel.strip()
    code = s[:3].upper() + s[3:].translate(_DIGIT_LOOKALIKES) if s[:3].upper() == "JAX" else ""
    if code and (_PREFIX().match(code) and any(r.code.startswith(code) for r in all_rules())):
        return code
    name = s.lower().replace("_", "-").replace(" ", "-")
    names = [r.name for r in all_rules()] + list(GROUPS)
    if name in names:
        return name
    close = difflib.get_close_matches(name, names, n=1, cutoff=0.75)
    if close:
        return close[0]
    if code:
        codes = [r.code for r in all_rules() if abs(len(r.code) - len(code)) <= 1]
        close = difflib.get_close_matches(code, codes, n=1, cutoff=0.8)
        if close:
            return close[0]
    return None


def select_rules(
    select: Iterable[str] | None,
    extend_select: Iterable[str],
    ignore: Iterable[str],
    phases: Iterable[str] | None = None,
    preview: bool = False,
) -> list[type[Rule]]:
    """Resolve ruff-style selection: the most specific selector wins; ignore wins ties.
    Without ``select``, the rules of the groups on by default (``--preview``: and the
    nursery's) are selected."""
    return [rule for rule, _ in _selection(select, extend_select, ignore, phases, preview)]


def _selection(select: Iterable[str] | None, extend_select: Iterable[str], ignore: Iterable[str],
               phases: Iterable[str] | None, preview: bool) -> list[tuple[type[Rule], frozenset[str]]]:
    """Each selected rule of ``phases`` with the groups of its findings the selectors take
    (its own group, and those of its finding kinds, decided one by one); a static rule
    not selected is not loaded."""
    select = list(select) if select is not None else None
    extend = list(extend_select)
    ignore = list(ignore)
    out = []
    for rule in _rules_of(phases):
        if phases is not None and rule.phase.value not in phases:
            continue
        twin_ignored = _twins_may_match(ignore, rule) and any(_matches(s, t) == _EXACT for s in ignore
                                                              for t in twins(rule))
        taken = []
        for group in rule.finding_groups():
            if select is None:
                on = GROUPS[group].on if group != rule.group else rule.default_enabled
                best_on = 1 if on or (preview and group == PREVIEW_GROUP) else 0
            else:
                best_on = max((_matches(s, rule, group) for s in select), default=0)
            best_on = max([best_on] + [_matches(s, rule, group) for s in extend])
            best_off = max((_matches(s, rule, group) for s in ignore), default=0)
            if twin_ignored:
                best_off = max(best_off, _EXACT - 1)  # its twin ignored by name: off, unless selected by its own
            if best_on and best_on > best_off:
                taken.append(group)
        if taken:
            out.append((rule.load() if isinstance(rule, RuleEntry) else rule, frozenset(taken)))
    return out


def selected_groups(select: Iterable[str] | None, extend_select: Iterable[str], ignore: Iterable[str],
                    phases: Iterable[str] | None = None, preview: bool = False) -> dict[str, frozenset[str]]:
    """The selected rules' codes, each with the groups of its findings the selection takes
    (a rule whose finding kinds have groups of their own may be selected for some only)."""
    return {rule.code: groups for rule, groups in _selection(select, extend_select, ignore, phases, preview)}


def specificity(selectors: Iterable[str], rule: type[Rule]) -> int:
    """How specifically the most specific of ``selectors`` names ``rule`` (0: none does)."""
    return max((_matches(s, rule) for s in selectors), default=0)


def ignored_by(codes: Iterable[str], rule: type[Rule], signature: str = "", kind: str | None = None) -> bool:
    """Whether ``codes`` (per-file-ignores) turn off ``rule``'s finding with this signature:
    a selector that matches it (a group's name matches the group of the finding's kind,
    :meth:`Rule.group_of`; ``kind``: the one the rule gave it, ``data["kind"]``), or one that names its twin of another tier (ignoring JAX101
    ignores the JAX201 that measures it, and the other way round)."""
    codes = list(codes)
    group = rule.group_of(signature, kind) if rule.kinds else None
    return any(_matches(c, rule, group) for c in codes) or (
        _twins_may_match(codes, rule) and any(_matches(c, t) == _EXACT for c in codes for t in twins(rule)))


def _names_another_tier(selectors: Sequence[str]) -> bool:
    """Whether a selector can name a rule of the trace or compile tier exactly (a twin is
    matched only by its exact code or name): a check whose selectors name static rules
    alone never loads the other tiers' rules."""
    if not selectors:
        return False
    static = static_names()
    return any(s not in static and s != "ALL" and s not in GROUPS and not (_PREFIX().match(s) and len(s) < 6)
               for s in selectors)


def _twins_may_match(selectors: Sequence[str], rule: type[Rule] | RuleEntry) -> bool:
    """Whether looking up ``rule``'s twins can change a verdict: a rule of the trace or
    compile tier (every tier is loaded then), or selectors that name another tier's."""
    return rule.phase.value != "static" or _names_another_tier(selectors)


@functools.lru_cache(maxsize=1)
def static_names() -> frozenset[str]:
    """The codes and names of the static rules (loaded without the other tiers)."""
    return frozenset(x for e in static_index() for x in (e.code, e.name))


def twins(rule: type[Rule] | RuleEntry) -> tuple[type[Rule], ...]:
    """The rules of other tiers that report the same problem (its family: the codes linked
    by ``supersedes``), without the rule itself."""
    return _twins(rule.code)


@functools.lru_cache(maxsize=None)
def _twins(code: str) -> tuple[type[Rule], ...]:
    fam = family_of(code)
    return tuple(r for r in all_rules() if r.code != code and family_of(r.code) == fam)


@functools.lru_cache(maxsize=1)
def _families() -> Mapping[str, str]:
    """Code -> the code naming its problem family: the codes linked by ``supersedes``
    (a static guess, the trace finding that measures it, the compile finding that
    confirms that) are one problem found at different tiers. Named by the lowest code."""
    parent = {r.code: r.code for r in all_rules()}

    def root(c: str) -> str:
        while parent[c] != c:
            c = parent[c]
        return c

    for r in all_rules():
        for lower in r.supersedes:
            if lower in parent:
                a, b = root(r.code), root(lower)
                if a != b:
                    parent[max(a, b)] = min(a, b)
    return MappingProxyType({c: root(c) for c in parent})


def family_of(code: str) -> str:
    """The problem family of a rule code (itself for a code no rule links, or unknown)."""
    return _families().get(code, code)


_RULES_CACHE: dict[str, list[Rule]] = {}


def active_rules(settings: Selection, phases: Sequence[str] = ("static",)) -> list[Rule]:
    """The selected rules of ``phases`` for these settings, made with their options."""
    # keyed on what decides the rule set (not id(): a long-lived process, such as the
    # language server, reuses ids of settings it has dropped); the repr of the values
    # the fingerprint hashes, which tells apart all that it does, without loading json
    # and hashlib into a check that writes no cache
    key = repr((settings.select, settings.extend_select, settings.ignore, settings.rule_options,
                settings.per_file_ignores, settings.ignore_noqa, settings.confidence, settings.preview,
                tuple(phases)))
    rules = _RULES_CACHE.get(key)
    if rules is None:
        rules = []
        for cls, groups in _selection(settings.select, settings.extend_select, settings.ignore, phases,
                                      settings.preview):
            rule = cls(settings.rule_options.get(cls.code, {}))
            if len(groups) < len(cls.finding_groups()):
                rule.selected_groups = groups  # some of its finding kinds only
            rules.append(rule)
        _RULES_CACHE[key] = rules
    return rules


def every_rule(settings: Selection, phases: Sequence[str]) -> list[Rule]:
    """Every rule of ``phases``, selected or not, made with the options ``settings`` give it
    and with all its finding kinds: what `jaxlint record` runs, so that a recording serves
    any later selection (``check`` keeps the selected rules' findings)."""
    key = repr(("every", settings.rule_options, tuple(phases)))
    rules = _RULES_CACHE.get(key)
    if rules is None:
        every = static_rules() if set(phases) <= {"static"} else all_rules()
        rules = _RULES_CACHE[key] = [cls(settings.rule_options.get(cls.code, {})) for cls in every
                                     if cls.phase.value in phases]
    return rules


def active_static_rules(settings: Selection) -> list[StaticRule]:
    """The selected rules of the static phase, typed as what they are."""
    return cast("list[StaticRule]", active_rules(settings, ("static",)))


def _code_named(name: str) -> str | None:
    """The code of the rule called ``name`` (``# noqa: prng-key-reuse``), or None."""
    rule = rule_by_selector(name) if not _PREFIX().match(name) else None
    return rule.code if rule is not None else None


def _register_names() -> None:
    from jaxlint.findings import noqa

    noqa.RULE_NAMED = _code_named


_register_names()
