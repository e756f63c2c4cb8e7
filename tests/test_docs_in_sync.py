"""The README rule table and docs/rules/*.md are generated from the registry."""
from pathlib import Path

from jaxlint.docgen import expected_files
from jaxlint.registry import all_rules

ROOT = Path(__file__).resolve().parents[1]


def test_readme_table_and_rule_pages_match_the_registry():
    stale = [
        str(p.relative_to(ROOT))
        for p, text in expected_files(ROOT).items()
        if not p.exists() or p.read_text(encoding="utf-8") != text
    ]
    assert not stale, f"regenerate with `python -m jaxlint.docgen`: {stale}"


def test_every_rule_appears_in_the_readme_table():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for r in all_rules():
        assert f"| {r.code} | [{r.name}]" in readme, r.code


def test_readme_starts_with_the_two_setup_commands():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = readme.split("```")
    first_code = blocks[1]
    commands = [l for l in first_code.splitlines()[1:] if l.strip() and not l.startswith("#")]
    assert len(commands) == 2, commands
    assert "jaxlint check" in commands[0] and "examples" in commands[0]
    assert "pytest" in commands[1]
    ci = (ROOT / ".ci" / "run").read_text()
    assert commands[1].strip() in ci
