"""Generate the rule documentation from the registry.

``python -m jaxlint.docgen [ROOT]`` rewrites the README's rule table (between the
``rules-table`` markers) and ``docs/rules/<CODE>.md`` for every rule. A test fails
when the committed files differ from what this produces.
"""
from __future__ import annotations

import sys
import textwrap
from pathlib import Path

from jaxlint.registry import all_rules
from jaxlint.rule import example_source

START = "<!-- rules-table-start -->"
END = "<!-- rules-table-end -->"


def rules_table() -> str:
    tiers = {"static": "static", "trace": "trace (jaxpr)", "compile": "compile (HLO)"}
    lines = ["| code | name | tier | what it finds | fix |", "|---|---|---|---|---|"]
    for r in all_rules():
        name = f"[{r.name}](docs/rules/{r.code}.md)"
        off = " (off by default)" if not r.default_enabled else ""
        fix = r.fixable.value if r.fixable else ""
        lines.append(f"| {r.code} | {name} | {tiers[r.phase.value]} | {r.summary}{off} | {fix} |")
    return "\n".join(lines)


def rule_page(r) -> str:
    page = r.markdown()
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


def readme_with_table(text: str) -> str:
    if START not in text or END not in text:
        return text
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{START}\n{rules_table()}\n{END}{tail}"


def expected_files(root: Path) -> dict[Path, str]:
    out = {root / "docs" / "rules" / f"{r.code}.md": rule_page(r) for r in all_rules()}
    readme = root / "README.md"
    if readme.exists():
        out[readme] = readme_with_table(readme.read_text(encoding="utf-8"))
    return out


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    root = Path(argv[0]) if argv else Path.cwd()
    (root / "docs" / "rules").mkdir(parents=True, exist_ok=True)
    for path, text in expected_files(root).items():
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
