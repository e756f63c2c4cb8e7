"""Generate the rule documentation from the registry.

``python -m jaxlint.docgen [ROOT]`` rewrites the README's rule table (between the
``rules-table`` markers), ``docs/rules/<CODE>.md`` for every rule, the key tables of
docs/configuration.md (between the ``keys-table`` and ``dynamic-keys-table`` markers;
from jaxlint.config.keys) and the JSON schema of the configuration,
``jaxlint/schema/config.schema.json`` (:mod:`jaxlint.config.schema`) and the index of the
static rules in ``rules/__init__.py`` (``STATIC_INDEX``, between the ``static-index``
markers: what selecting each reads, so that a check imports only the rules it selects). An entry point:
it hands the registry jaxlint's rules. A test fails
when the committed files differ from what this produces.
"""
from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path
from typing import Mapping

from jaxlint.config import DynamicSettings, Settings, schema
from jaxlint.config.keys import DYNAMIC, TOP_LEVEL, Key
from jaxlint.inspect.levels import hand_rules
from jaxlint.registry import RuleEntry, all_rules
from jaxlint.rule import GROUPS, example_source

START = "<!-- rules-table-start -->"
END = "<!-- rules-table-end -->"


#: each rule's blind figure, written by benchmarks/rule_figures.py
FIGURES = Path("benchmarks") / "rule_figures.json"


def rules_table() -> str:
    tiers = {"static": "static", "trace": "trace (jaxpr)", "compile": "compile (HLO)"}
    lines = ["| code | name | tier | group | what it finds | fix |", "|---|---|---|---|---|---|"]
    for r in all_rules():
        name = f"[{r.name}](docs/rules/{r.code}.md)"
        on_kinds = [f"`{k}`, in {kind.group}" for k, kind in r.kinds.items() if GROUPS[kind.group].on]
        off = "" if r.default_enabled else (f" (off by default; on for its kind {'; '.join(on_kinds)})" if on_kinds
                                            else " (off by default)")
        fix = r.fixable.value if r.fixable else ""
        lines.append(f"| {r.code} | {name} | {tiers[r.phase.value]} | {r.group} | {r.summary}{off} | {fix} |")
    return "\n".join(lines)


def figure_section(r, figures: dict | None) -> str:
    """The rule's group and its measured (blind) figure, from ``rule_figures.json``."""
    head = (f"## Group and measured figure\n\nGroup: **{r.group}** "
            f"({'on' if r.default_enabled else 'off'} by default; docs/precision.md says how groups are set). ")
    if figures is None:
        return head + "\n" + kinds_section(r, {})
    fig = figures["rules"].get(r.code)
    if fig is None:
        return (head + "No blind figure: none of its findings is among the verdicts of a corpus judged blind.\n"
                + kinds_section(r, {}))
    b = fig["blind"]
    per = "; ".join(f"{c}: {f['true']} true, {f['debatable']} debatable, {f['false']} false"
                    for c, f in fig["corpora"].items())
    text = (head + f"Blind figure: {b['findings']} findings, {b['true']} true, {b['debatable']} debatable, "
            f"{b['false']} false ({b['precision']:.0%} true) ({per}).")
    if fig.get("on_by_proof"):
        text += (f" Below the {figures['threshold']:.0%} bar, it stays on by proof, a decision to review: what it "
                 f"reports raises under jax (evidence: {fig['on_by_proof']}); its false findings are the model's to fix.")
    if fig["confidence"]:
        text += " By confidence, where judged: " + "; ".join(
            f"{k}: {f['true']} true, {f['debatable']} debatable, {f['false']} false" for k, f in fig["confidence"].items()
        ) + "."
    return text + "\n" + kinds_section(r, fig.get("kinds", {}))


def kinds_section(r, figures: dict) -> str:
    """Each finding kind's group and blind figure (a kind with a group of its own)."""
    if not r.kinds:
        return ""
    lines = ["", "Finding kinds with a group of their own (the rule's other findings are in its group):", ""]
    for name, kind in r.kinds.items():
        f = figures.get(name)
        share = f" ({f['precision']:.0%} true)" if f and f["precision"] is not None else ""
        fig = (f"blind figure {f['findings']} findings, {f['true']} true, {f['debatable']} debatable, "
               f"{f['false']} false{share}" if f else "no blind figure")
        lines.append(f"* `{name}`: {kind.doc}. Group: **{kind.group}** "
                     f"({'on' if GROUPS[kind.group].on else 'off'} by default); {fig}.")
    return "\n".join(lines) + "\n"


def load_figures(root: Path) -> dict | None:
    path = root / FIGURES
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None


def rule_page(r, figures: dict | None = None) -> str:
    page = r.markdown() + "\n" + figure_section(r, figures)
    examples = []
    for title, items in (("Flagged", r.INVALID), ("Not flagged", r.VALID)):
        for ex in items[:3]:
            examples.append(f"### {title}\n\n```python\n{example_source(ex).rstrip()}\n```\n")
            fixed = getattr(ex, "expected_fix", None)
            if fixed is not None:
                how = "--fix" if r.fixable is not None and r.fixable.value == "safe" else "--fix --unsafe-fixes"
                body = textwrap.dedent(fixed).strip("\n")
                examples.append(f"After `jaxlint check {how}`:\n\n```python\n{body}\n```\n")
    return page + "\n## Examples (from the rule's tests)\n\n" + "\n".join(examples)


def between(text: str, start: str, end: str, body: str) -> str:
    """``text`` with what stands between the markers ``start`` and ``end`` replaced by ``body``."""
    if start not in text or end not in text:
        return text
    head, rest = text.split(start, 1)
    _, tail = rest.split(end, 1)
    return f"{head}{start}\n{body}\n{end}{tail}"


def readme_with_table(text: str) -> str:
    return between(text, START, END, rules_table())


def keys_table(keys: Mapping[str, Key], defaults: object) -> str:
    """A table of docs/configuration.md: each key's type, default and meaning, from its
    declaration (jaxlint.config.keys) and its settings field's default."""
    rows = ["| key | type | default | meaning |", "|---|---|---|---|"]
    return "\n".join(rows + [k.docs_row(getattr(defaults, k.field, None)) for k in keys.values()])


def configuration_with_tables(text: str) -> str:
    text = between(text, "<!-- keys-table-start -->", "<!-- keys-table-end -->", keys_table(TOP_LEVEL, Settings()))
    return between(text, "<!-- dynamic-keys-table-start -->", "<!-- dynamic-keys-table-end -->",
                   keys_table(DYNAMIC, DynamicSettings()))


INDEX_START = "# static-index-start: written by `python -m jaxlint.docgen` from _static_rules(), do not edit"
INDEX_END = "# static-index-end"


def static_index() -> str:
    """``STATIC_INDEX``: each static rule's entry (:class:`jaxlint.registry.RuleEntry`), from its class."""
    def text(value: object) -> str:
        if isinstance(value, tuple):
            return f"({', '.join(map(text, value))}{',' if len(value) == 1 else ''})"
        return json.dumps(value) if value is not None else "None"

    lines = ["STATIC_INDEX = ("]
    for r in all_rules():
        if r.phase.value == "static":
            code, name, group, kinds, role, module, qualname = RuleEntry.of(r)._fields()
            lines.append(f"    RuleEntry({text(code)}, {text(name)}, {text(group)}, {text(kinds)}, {text(role)},")
            lines.append(f"              {text(module)}, {text(qualname)}),")
    return "\n".join(lines + [")"])


def rules_with_index(text: str) -> str:
    return between(text, INDEX_START, INDEX_END, static_index())


def expected_files(root: Path) -> dict[Path, str]:
    figures = load_figures(root)
    out = {root / "docs" / "rules" / f"{r.code}.md": rule_page(r, figures) for r in all_rules()}
    for path, render in ((root / "README.md", readme_with_table),
                         (root / "docs" / "configuration.md", configuration_with_tables),
                         (root / "rules" / "__init__.py", rules_with_index)):
        if path.exists():
            out[path] = render(path.read_text(encoding="utf-8"))
    out[root / "jaxlint" / "schema" / "config.schema.json"] = schema.render()
    return out


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    root = Path(argv[0]) if argv else Path.cwd()
    hand_rules()
    (root / "docs" / "rules").mkdir(parents=True, exist_ok=True)
    (root / "jaxlint" / "schema").mkdir(parents=True, exist_ok=True)
    for path, text in expected_files(root).items():
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
