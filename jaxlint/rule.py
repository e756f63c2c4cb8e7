"""The rule API.

A rule is one class in one file under ``rules/``: its code, kebab-case name, default
severity, options, documentation (the class docstring, with fixed sections) and
VALID / INVALID examples that are both its tests and its documentation: the few its
page prints (``jaxlint.docgen``: the first three of each); a static rule's further
examples are fixture files, ``tests/fixtures/rules/<CODE>/*.py``, that pin every finding
(tests/fixtures/rules/README.md).

The engine only sees :class:`Rule` subclasses through the registry; a rule never
sees an output format.

Each tier hands its rules a typed context, and a rule reports through it, one way in
every tier: ``check(ctx) -> None`` calling ``ctx.report(where, message, *, severity=,
data=, related=, ...)``, where ``where`` is the tier's place (an ast node, a ``Site``, a
``SourceLocation``; None in the measured tiers: the function itself) and ``related`` a
list of ``Related`` made by the context (``ctx.related(where, message)``; a trace rule's
``site.related(message)``). What a tier adds: a static finding's ``fix`` (a ``Fix`` of
``ctx.replace`` edits, or ``ctx.codemod(...)``), ``end_node`` and ``confidence``; a
measured finding's baseline ``key``, and a compile finding's ``measured`` figures
(times). A static rule that reviews the ``# noqa`` comments once every rule ran
(``check_suppressions(ctx)``) reports the same way on a ``NoqaUsage``, ``where`` a
comment. (The engine makes the findings of the parse-error and analysis-failed roles
itself: those rules' ``check`` is never called.)

* :class:`StaticRule`: ``check(ctx: StaticContext)`` (``jaxlint.static.checker``): the
  file's tree and semantic model;
* :class:`TraceRule`: ``check(ctx: FunctionAnalysis)`` (``jaxlint.dynamic.analysis``):
  the traced program, through the version adapter;
* :class:`CompileRule`: ``check(ctx: CompileContext)`` (``jaxlint.compile.facts``): the
  compiled program's facts (``ctx.facts``). A rule subclasses ``rules.hlo._base.HloRule``,
  which builds the context from the function's analysis;
* :class:`BudgetRule`: ``check(ctx: BudgetContext)`` (``jaxlint.compile.budgets``): one
  compiled function of the run held against its committed cost budget (``ctx.budget``,
  ``ctx.now``, the rule's ``ctx.assessed`` figures; ``where`` a ``SourceLocation``, None:
  the function's jit line; a baseline ``key``). The budget gate calls it once the
  dynamic phase measured every function (the rule's ``role`` is ``BUDGET``).

The engine calls a dynamic-tier rule through ``check_function(fa)``, which hands
``check`` its tier's context.

This module names no tier's context, not even for type checking: each is a
:class:`Context` (it reports), and a rule's ``check`` names its own tier's type.
"""
from __future__ import annotations

import inspect
import math
import os
import re
from dataclasses import field
from typing import Any, Callable, ClassVar, Iterator, Mapping, Protocol, Sequence, TypeVar, runtime_checkable

from jaxlint.diagnostic import Applicability, Diagnostic, Phase, Severity
from jaxlint.config.errors import shown
from jaxlint.records import dataclass


@runtime_checkable
class Context(Protocol):
    """What every tier hands its rules (``StaticContext``, ``FunctionAnalysis``,
    ``CompileContext``, ``BudgetContext``, ``NoqaUsage``): the one way to report a
    finding. A rule names its own tier's context, which adds what that tier knows; this
    module names none of them (tests/test_architecture.py: no import circle, type-only
    ones included), so the tier bases below take any context and each rule's ``check``
    says which."""

    def report(self, *args: Any, **kwargs: Any) -> Any: ...


DOC_SECTIONS = (
    "What it does",
    "Why is this bad?",
    "Example",
    "Use instead",
    "Options",
    "References",
)

#: Engine roles (see ``Rule.role``): the engine finds these rules by role, never by code.
PARSE_ERROR = "parse-error"  # a file that cannot be read or parsed
ANALYSIS_FAILED = "analysis-failed"  # code the dynamic phase could not import or trace
BUDGET = "cost-budget"  # a compiled function held against its committed cost budget (jaxlint.compile.budgets)


@dataclass(frozen=True)
class Group:
    """A lint group (clippy's): how often a rule's findings are worth acting on, which
    decides its default. ``on``: selected by default; ``severity``: its rules' default
    severity (a rule may declare a lower one; a finding its model proves raises may ask
    for an error in any group; ``[tool.jaxlint.rules.<rule>] severity`` overrides both)."""

    name: str
    on: bool
    severity: Severity
    doc: str


#: The lint groups, in the order the docs list them. How a rule's group is set from its
#: measured figure: docs/precision.md ("Lint groups, set by measurement"), checked by
#: tests/test_groups.py against ``rule_figures.json``.
GROUPS: Mapping[str, Group] = {g.name: g for g in (
    Group("correctness", True, Severity.ERROR,
          "a raise or a wrong result, proven with real jax; its certain findings are errors"),
    Group("suspicious", True, Severity.WARNING, "code that is most likely not what was meant"),
    Group("perf", True, Severity.WARNING, "code that works but compiles again, unrolls, copies or waits"),
    Group("pedantic", False, Severity.WARNING,
          "right claims that are often not worth acting on (measured below 50 % true, mostly debatable)"),
    Group("nursery", False, Severity.WARNING,
          "rules measured below 50 % true with more false findings than debatable ones, or still being "
          "developed: on with --preview"),
)}

_SEVERITY_RANK = {Severity.INFO: 0, Severity.WARNING: 1, Severity.ERROR: 2}


@dataclass(frozen=True)
class FindingKind:
    """One kind of a rule's findings with a lint group of its own (JAX106's print of a
    traced value, in ``suspicious``, while its other side effects stay in ``nursery``): a
    kind earns its group by its own blind figure, as a rule does (docs/precision.md). The
    rule says which kind a finding is (:meth:`Rule.kind_of`), from its signature, so that
    a finding and a verdict on it (which keeps the signature) are of one kind."""

    group: str
    doc: str


def finding_severity(rule: "Rule | type[Rule]", asked: Severity | None) -> Severity:
    """What a finding of ``rule`` is reported as: the severity the user configured for
    the rule (``[tool.jaxlint.rules.<rule>] severity``), else the one the rule asked for
    this finding (where its model proves a raise: JAX108's list passed to a static
    argument), else the rule's default, its group's. A finding that is not certain is
    never an error (``Diagnostic`` lowers it)."""
    configured = getattr(rule, "configured_severity", None)
    if configured is not None:
        return configured
    return asked or rule.severity


@dataclass(frozen=True)
class Option:
    """A configurable rule option, set under ``[tool.jaxlint.rules.<name>]``."""

    default: Any
    doc: str
    type: type | tuple[type, ...] = int
    minimum: float | None = None
    #: what a table or list option holds, checked after its type: ``check(key, value)``
    #: returns the value or raises ValueError naming the key inside it
    check: Callable[[str, Any], Any] | None = None

    def validate(self, key: str, value: Any) -> Any:
        types = self.type if isinstance(self.type, tuple) else (self.type,)
        if isinstance(value, bool) and bool not in types:
            raise ValueError(f"option {key!r} must be {_type_names(types)}, got {shown(value)}")
        if float in types and isinstance(value, int) and not isinstance(value, bool):
            value = float(value) if int not in types else value
        if not isinstance(value, types):
            raise ValueError(f"option {key!r} must be {_type_names(types)}, got {shown(value)}")
        if isinstance(value, float) and not math.isfinite(value):
            raise ValueError(f"option {key!r} must be a finite number, got {shown(value)}")
        if self.minimum is not None and isinstance(value, (int, float)) and value < self.minimum:
            raise ValueError(f"option {key!r} must be >= {self.minimum}, got {shown(value)}")
        return value if self.check is None else self.check(key, value)


def _type_names(types: tuple[type, ...]) -> str:
    return " or ".join(t.__name__ for t in types)


@dataclass(frozen=True)
class Valid:
    """Code on which the rule must stay quiet."""

    code: str
    options: Mapping[str, Any] = field(default_factory=dict)
    #: Extra files (relative name -> source) written beside the example when it runs.
    files: Mapping[str, str] = field(default_factory=dict)
    #: Other rules that run with the example (for rules about other rules' findings).
    select: tuple[str, ...] = ()
    #: The example is a program: `jaxlint record` runs it (its `__main__` block) and the
    #: check reports what the recording observed (for rules about real calls).
    run: bool = False


@dataclass(frozen=True)
class Invalid:
    """Code on which the rule must fire.

    ``line`` (1-based, within the dedented ``code``) pins the first finding's line;
    ``count`` the number of findings; ``lines`` the line of every finding, in order
    (where they are not all on ``line``); ``expected_fix`` the code after applying all
    of this rule's fixes (unsafe included). A static example is held to every finding:
    ``lines``, or ``count`` findings (one when not given) all on ``line``.
    """

    code: str
    line: int | None = None
    count: int | None = None
    lines: tuple[int, ...] = ()
    message: str | None = None  # a substring the first message must contain
    expected_fix: str | None = None
    options: Mapping[str, Any] = field(default_factory=dict)
    files: Mapping[str, str] = field(default_factory=dict)
    select: tuple[str, ...] = ()
    run: bool = False


class Rule:
    """Base of all rules. Subclasses set the class attributes and implement a check."""

    code: ClassVar[str]
    name: ClassVar[str]
    summary: ClassVar[str]  # one line: what was found
    fix_hint: ClassVar[str] = ""  # one line: what to do instead
    #: its lint group (:data:`GROUPS`), set from its measured figure: it decides
    #: :attr:`default_enabled` and :attr:`severity` (a rule may set a lower severity)
    group: ClassVar[str]
    severity: ClassVar[Severity] = Severity.WARNING
    phase: ClassVar[Phase] = Phase.STATIC
    #: from the group: never set by a rule
    default_enabled: ClassVar[bool] = True
    #: ``[tool.jaxlint.rules.<rule>] severity`` on an instance: every finding's, over the
    #: group's and the rule's own
    configured_severity: Severity | None = None
    fixable: ClassVar[Applicability | None] = None
    options: ClassVar[Mapping[str, Option]] = {}
    #: Codes of lower-tier rules whose finding this rule's finding replaces when both
    #: name the same problem (:meth:`same_problem`): a measured trace finding supersedes
    #: the static guess, a compile finding the trace prediction it confirms. One problem,
    #: one finding; :mod:`jaxlint.findings.supersede` applies it, in the worker and in the parent.
    supersedes: ClassVar[tuple[str, ...]] = ()
    #: This rule looks at everything the guesses it :attr:`supersedes` are about, in every
    #: function it analyses (JAX201: every constant of the program): its silence there
    #: refutes them, and a static guess inside a function it analysed without a finding is
    #: dropped (:func:`jaxlint.findings.supersede.refuted`). The measurement wins.
    measures_all: ClassVar[bool] = False
    #: Set on a rule the engine finds by its role: one whose findings the engine itself
    #: makes (``PARSE_ERROR``, ``ANALYSIS_FAILED``: its ``check`` is never called), or
    #: the cost budget's (``BUDGET``: checked by the budget gate, not with its tier).
    role: ClassVar[str | None] = None
    #: Set on a rule whose finding says the function could not be traced at all: an
    #: observation holding one is not a clean recording (the worker's failure to trace
    #: it again is then a finding, not "out of date")
    means_trace_failed: ClassVar[bool] = False
    #: Set on the rule that reads recorded signatures (``jaxlint record`` names it)
    reads_signatures: ClassVar[bool] = False
    #: Set on a rule that reads what the program did with the arguments after a call
    #: (``FunctionAnalysis.reused``): a recording runs it once the calls after the first
    #: showed that (:mod:`jaxlint.dynamic.callers`)
    reads_callers: ClassVar[bool] = False
    #: Set on a rule whose finding is a problem only for a function the program calls
    #: more than once (a constant key draws the same numbers on every call: in an
    #: initialisation called once it is the documented pattern). A recording that saw the
    #: function called once, and never inside another trace, drops its findings
    #: (:func:`jaxlint.dynamic.analysis.called_once`); without a recording they stay.
    repeated_calls_only: ClassVar[bool] = False
    #: Cleared on a rule whose every finding is its own thing to act on (an unused
    #: ``# noqa`` comment, each removed by itself): the report does not make the places
    #: of one pattern in one function one finding (:mod:`jaxlint.findings.collapse`).
    one_per_function: ClassVar[bool] = True
    #: Set on a static rule whose findings are about code running under a trace (numpy
    #: on a tracer, a Python branch on one, a print at trace time): the engine drops a
    #: finding in a branch the trace never takes (``jaxlint.static.traced.runs_traced``:
    #: the eager-only arm of ``if not use_jit:`` in a function jitted only when ``use_jit``).
    traced_code: ClassVar[bool] = False
    #: Trace facts (``TraceRule.trace_fact`` keys) whose findings this rule reads: the
    #: engine runs the rules that declare them first (:func:`in_dependency_order`),
    #: and a trace rule reads them with ``ctx.findings_of(key)``.
    reads: ClassVar[tuple[str, ...]] = ()
    #: finding kinds with a group of their own (:class:`FindingKind`), by name; a finding
    #: of no kind (:meth:`kind_of` None) is in the rule's :attr:`group`. The default
    #: selection takes the kinds whose group is on; a selector naming the rule (its code,
    #: name, a prefix, ALL) takes them all, a group's name the kinds in that group.
    kinds: ClassVar[Mapping[str, FindingKind]] = {}
    #: on an instance: the groups of the rule's findings that the selection took (None:
    #: all of them); the context drops a finding of any other (:meth:`group_of`)
    selected_groups: frozenset[str] | None = None
    VALID: ClassVar[list[Valid]] = []
    INVALID: ClassVar[list[Invalid]] = []

    @classmethod
    def kind_of(cls, signature: str) -> str | None:
        """The kind (a key of :attr:`kinds`) of a finding with this signature
        (``function:construct``, the key a verdict and a baseline keep), or None. A rule
        whose model knows more than the text (JAX102's count through a name) passes the
        kind when it reports (``ctx.report(kind=...)``); the finding's ``data`` keeps it
        and a verdict on it too, and this answer from the text is for verdicts judged
        before kinds were kept: it may say None where the model knew, never a kind the
        model would not give."""
        return None

    @classmethod
    def group_of(cls, signature: str, kind: str | None = None) -> str:
        """The lint group of a finding with this signature (and ``kind``, where the rule
        gave it when reporting): its kind's, else the rule's."""
        if kind is None and cls.kinds:
            kind = cls.kind_of(signature)
        return cls.kinds[kind].group if kind is not None else cls.group

    @classmethod
    def finding_groups(cls) -> tuple[str, ...]:
        """The rule's group, then the other groups its kinds are in."""
        return tuple(dict.fromkeys([cls.group, *(k.group for k in cls.kinds.values())]))

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "group" not in cls.__dict__:
            return
        group = GROUPS.get(cls.group)
        if group is None:
            raise TypeError(f"{cls.__name__}: unknown group {cls.group!r}; one of {', '.join(GROUPS)}")
        if "default_enabled" in cls.__dict__:
            raise TypeError(f"{cls.__name__}: the group decides whether a rule is on by default")
        cls.default_enabled = group.on
        for name, kind in cls.__dict__.get("kinds", {}).items():
            if kind.group not in GROUPS:
                raise TypeError(f"{cls.__name__}: kind {name!r}: unknown group {kind.group!r}")
        own = cls.__dict__.get("severity")
        if own is None:
            cls.severity = group.severity
        elif _SEVERITY_RANK[own] > _SEVERITY_RANK[group.severity]:
            raise TypeError(f"{cls.__name__}: severity {own.value} is above its group's ({group.severity.value})")

    def __init__(self, options: Mapping[str, Any] | None = None) -> None:
        values = {k: o.default for k, o in self.options.items()}
        values.update(options or {})
        severity = values.pop("severity", None)  # `[tool.jaxlint.rules.<rule>] severity`, every rule's
        if severity is not None:
            self.severity = self.configured_severity = Severity(severity)  # type: ignore[misc]
        self.opts = values

    @classmethod
    def same_problem(cls, mine: Diagnostic, other: Diagnostic) -> bool:
        """Whether ``other`` (of a code in :attr:`supersedes`) is the problem ``mine``
        reports: by default at its line or at one of its related lines (a trace finding
        links the construct a static rule points at, e.g. the capture of a constant)."""
        return any(_same_place(other, path, pos.line)
                   for path, pos in [(mine.path, mine.start), *((r.path, r.start) for r in mine.related)])

    @classmethod
    def defers_to(cls, mine: Diagnostic, earlier: Diagnostic) -> bool:
        """Whether ``mine`` names only the cause that ``earlier`` (a finding made before it
        in the same function) already reports at the cause's line: ``mine`` then becomes a
        related location of ``earlier`` instead of a second finding. By default never."""
        return False

    @classmethod
    def refutes(cls, prediction: Diagnostic, measured: Any) -> bool:
        """Whether this rule's measurement shows that ``prediction`` (a finding of a code
        in :attr:`supersedes`, in the same function, that none of this rule's findings
        confirmed) is not there: the trace tier predicted a fold the compiled program
        does not contain. ``measured``: what the rule read (the worker's per-function
        analysis). By default a silence proves nothing."""
        return False

    @classmethod
    def docs(cls) -> str:
        import textwrap  # here and in example_source: a check reads no rule's docs

        return textwrap.dedent(inspect.cleandoc(cls.__doc__ or "")).strip()

    @classmethod
    def doc_sections(cls) -> dict[str, str]:
        """Split the docstring into its ``## Section`` parts."""
        sections: dict[str, str] = {}
        current = None
        for line in cls.docs().splitlines():
            m = re.match(r"^##\s+(.*\S)\s*$", line)
            if m:
                current = m.group(1)
                sections[current] = ""
            elif current is not None:
                sections[current] += line + "\n"
        return {k: v.strip() for k, v in sections.items()}

    @classmethod
    def url(cls) -> str:
        from jaxlint import DOCS_URL

        return f"{DOCS_URL}/rules/{cls.code}.md"

    @classmethod
    def markdown(cls) -> str:
        head = f"# {cls.name} ({cls.code})\n\n"
        meta = (
            f"Tier: {cls.phase.value} · group: {cls.group} · default severity: {cls.severity.value} · "
            f"{'enabled' if cls.default_enabled else 'disabled'} by default"
        )
        if cls.fixable:
            meta += f" · fix: {cls.fixable.value}"

        body = cls.docs()
        # the option list is generated from ``options`` so it cannot drift from the code
        if cls.options:
            opts = "\n".join(
                f"* `{k}` (default `{o.default!r}`): {o.doc}" for k, o in cls.options.items()
            )
            body = body.replace("## Options\n", f"## Options\n\n{opts}\n", 1) if "## Options\n" in body else body
        elif not cls.doc_sections().get("Options"):
            body = body.replace("## Options\n", "## Options\n\nNone.\n", 1)
        return head + meta + "\n\n" + body + "\n"


class StaticRule(Rule):
    """A rule over one file's syntax tree and semantic model (never imports jax)."""

    phase = Phase.STATIC
    #: Text that must appear in a file for this rule to be able to fire. The engine
    #: skips parsing files that contain none of the active rules' markers. The marker
    #: "jax" stands for JAX code: the word, or the name of a library whose code JAX traces
    #: (the static phase's list: a haiku network, a numpyro model, a file that jits with
    #: `eqx.filter_jit` or `nnx.jit` only, optax schedules, diffrax / optimistix functions,
    #: a keras 3 model on `keras.ops` may never write "jax").
    markers: ClassVar[tuple[str, ...]] = ("jax",)

    def check(self, ctx: Any) -> None:
        """Report the file's findings with ``ctx.report(...)``."""
        raise NotImplementedError

    def codemod(self, fx: Any) -> None:
        """Make the fix planned by ``ctx.codemod(...)`` for one finding, in libcst's tree
        of the file (``jaxlint.fix.codemod.FixContext``: the planned nodes, found again by
        position, and the changes to make). Import libcst here, never at module level: a
        check that computes no fix must not load it. Raise ``fx.cannot(reason)`` when
        the code turns out not to have the expected shape."""
        raise NotImplementedError

    def check_suppressions(self, ctx: Any) -> None:
        """Report findings about the file's noqa comments, given what they suppressed once
        every other rule ran, with ``ctx.report(comment, message, fix=..., key=...)``
        (``jaxlint.findings.noqa.NoqaUsage``). Only unused-noqa needs this."""


def about_noqa_comments(rule: type[Rule] | None) -> bool:
    """Whether a rule's findings are about the ``# noqa`` comments themselves (it reads
    what they suppressed): such a finding is answered by editing the comment, never by
    adding another ``# noqa`` (``--add-noqa``, the editor's suppress action)."""
    return (rule is not None and issubclass(rule, StaticRule)
            and rule.check_suppressions is not StaticRule.check_suppressions)


def iter_rule_examples(rule: type[Rule]) -> Iterator[tuple[str, Valid | Invalid]]:
    for i, valid in enumerate(rule.VALID):
        yield f"{rule.code}-valid-{i}", valid
    for i, invalid in enumerate(rule.INVALID):
        yield f"{rule.code}-invalid-{i}", invalid


def example_source(example: Valid | Invalid) -> str:
    import textwrap

    return textwrap.dedent(example.code).lstrip("\n")


class TraceRule(Rule):
    """A rule over a traced program (jaxpr). Runs only inside dynamic-phase workers.

    ``check(ctx)`` receives the worker's per-function analysis object
    (``jaxlint.dynamic.analysis.FunctionAnalysis``), which exposes the ClosedJaxpr through
    the version adapter and a ``report(...)`` method that maps findings to the user's
    source lines.
    Examples (VALID/INVALID) are whole modules with an input directive
    (``# jaxlint: args=(f32[8,128])``) and are run through the real dynamic phase.
    """

    phase = Phase.TRACE
    markers = ()
    #: A finding of this rule means the function is not worth compiling; the text says
    #: why ("a program above the equation budget"). A rule that stays quiet because
    #: another finding names the cause sets ``ctx.skip_compile`` to that text (with its
    #: figures) instead.
    skip_compile_reason: ClassVar[str | None] = None
    #: Findings carry ``data["bytes"]`` of constants that compiling would bake in or
    #: fold: above the compile tier's constant budget the function is not compiled.
    constant_finding: ClassVar[bool] = False
    #: The key under which this rule's findings reach other rules as a trace fact: trace
    #: rules that declare it in ``reads`` (``ctx.findings_of(key)``), and the compile rules
    #: (``CompileFacts.trace[key]``: a list of ``{"file", "line", **data}``; the key is
    #: declared in ``jaxlint.compile.facts.TraceFacts``).
    trace_fact: ClassVar[str | None] = None
    #: A rule over the whole recorded program, not over a function: ``check(ctx)`` is
    #: called by ``jaxlint record`` once per line of the project where the program
    #: compiled outside its jitted functions (``jaxlint.dynamic.eager.SiteContext``); the
    #: engine never runs it on a function, and its options are not part of a function's
    #: observation (changing them leaves those current).
    program_level: ClassVar[bool] = False

    def check(self, ctx: Any) -> None:
        """Report the function's findings with ``ctx.report(...)``."""
        raise NotImplementedError

    def check_function(self, fa: Any) -> None:
        """The engine's entry: a trace rule's context is the function's analysis itself."""
        self.check(fa)


class CompileRule(Rule):
    """A rule over the optimized HLO, cost and memory analysis of a compiled function."""

    phase = Phase.COMPILE
    markers = ()

    def check(self, ctx: Any) -> None:
        """Report the function's findings from ``ctx.facts`` with ``ctx.report(...)``."""
        raise NotImplementedError

    def check_function(self, fa: Any) -> None:
        """The engine's entry: ``check`` with a context over ``fa.compile_facts``
        (``rules.hlo._base.HloRule`` builds it: this module imports no tier)."""
        raise NotImplementedError


class BudgetRule(Rule):
    """The base of the cost budget gate's rule (which sets ``role = BUDGET``): it judges
    each compiled function's figures against its committed budget. The gate
    (``jaxlint.compile.budgets``) runs after the dynamic phase, in the parent, over what
    the compile tier measured; it calls ``check`` once per function and signature
    compared (or without a budget entry), never with the tier's rules."""

    phase = Phase.COMPILE
    markers = ()

    def check(self, ctx: Any) -> None:
        """Report the function's findings with ``ctx.report(...)``."""
        raise NotImplementedError


def _same_place(d: Diagnostic, path: str, line: int) -> bool:
    return d.start.line == line and same_path(d.path, path)


def reported_cause(mine: Diagnostic, earlier: Diagnostic) -> bool:
    """Whether ``earlier`` is the finding that ``mine`` names as its one removable cause:
    ``mine.data["cause"]`` is ``{"code", "file", "line"}`` of it (a size measurement whose
    every removable contributor another finding reports at its line). For a rule's
    :meth:`Rule.defers_to`: ``mine`` then joins ``earlier`` as a related location."""
    cause = (mine.data or {}).get("cause")
    return (isinstance(cause, Mapping) and earlier.code == cause.get("code") and earlier.start.line == cause.get("line")
            and same_path(earlier.path, str(cause.get("file"))))


def same_path(a: str, b: str) -> bool:
    """Display paths in the parent, absolute ones in the worker: compare them normalized."""
    return a == b or os.path.normpath(os.path.abspath(a)) == os.path.normpath(os.path.abspath(b))


def is_test_path(path: str) -> bool:
    """A test file by pytest's and unittest's naming (`test_*.py`, `*_test.py`,
    `conftest.py`): rules that judge how code is used leave tests alone unless their
    `check-tests` option is set."""
    base = path.replace("\\", "/").rsplit("/", 1)[-1]
    return base.startswith("test_") or base.endswith("_test.py") or base == "conftest.py"


#: a rule class or instance, kept as given
R = TypeVar("R", bound="Rule | type[Rule]")


def in_dependency_order(rules: Sequence[R]) -> list[R]:
    """``rules`` (instances or classes) with every rule after the rules whose trace facts
    it reads (``Rule.reads``, ``TraceRule.trace_fact``), otherwise in the order given:
    the findings do not depend on the order of the registry."""
    rules = list(rules)
    provides = {i: getattr(r, "trace_fact", None) for i, r in enumerate(rules)}
    if not any(r.reads for r in rules):
        return rules
    out: list[R] = []
    placed: set[int] = set()
    visiting: set[int] = set()

    def place(i: int) -> None:
        if i in placed:
            return
        if i in visiting:
            raise LookupError(f"rules read each other's trace facts in a cycle: {rules[i].code}")
        visiting.add(i)
        for j, fact in provides.items():
            if j != i and fact is not None and fact in rules[i].reads:
                place(j)
        visiting.discard(i)
        placed.add(i)
        out.append(rules[i])

    for i in range(len(rules)):
        place(i)
    return out
