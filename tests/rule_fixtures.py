"""A rule's examples, as the tests read them: the documented ones (its ``VALID`` /
``INVALID``, which its page prints) and its fixture files under
``tests/fixtures/rules/<CODE>/`` (the format: tests/fixtures/rules/README.md).

Each example comes with every finding it must give, as ``(line, code)``: a fixture's
``# expect:`` markers; a documented INVALID's ``lines``, or ``count`` findings (one when
not given) on its ``line``; none for a VALID one."""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from jaxlint.rule import Invalid, Rule, Valid, iter_rule_examples

FIXTURES = Path(__file__).parent / "fixtures" / "rules"
#: the marker at the end of a line: the findings expected there (a code twice: two findings)
MARK = re.compile(r"  # expect: (JAX\d{3}(?:, JAX\d{3})*)$")
#: a header line at the top of a fixture: one of the example's settings, as JSON
SETTING = re.compile(r"#: (options|select|message|run) = (.*)$")
FIXED = ".fixed.py"  # the sidecar holding the code after the rule's fixes


@dataclass(frozen=True)
class Case:
    ident: str
    rule: type[Rule]
    example: Valid | Invalid
    #: (line, code) of every finding the example must give, sorted; None: not pinned
    expected: tuple[tuple[int, str], ...] | None
    #: the fixture file, and how many header lines stand above its code (None: documented)
    path: Path | None = None
    header: int = 0

    def where(self, line: int) -> str:
        """Where a line of the example is, for a failure's message."""
        return (f"{self.path.relative_to(FIXTURES.parents[2]).as_posix()}:{line + self.header}" if self.path
                else f"{self.ident} line {line}")


def documented(rule: type[Rule]) -> list[Case]:
    out = []
    for ident, ex in iter_rule_examples(rule):
        if isinstance(ex, Valid):
            out.append(Case(ident, rule, ex, ()))
            continue
        lines = ex.lines or ((ex.line,) * (ex.count or 1) if ex.line is not None else None)
        out.append(Case(ident, rule, ex, None if lines is None else tuple((n, rule.code) for n in lines)))
    return out


def read_fixture(rule: type[Rule], path: Path) -> Case:
    """One fixture file: its header settings, its code (markers taken off: the code the
    rule reads is the example as written), the findings its markers expect, and its
    sidecars (``<name>.fixed.py``, the folder ``<name>/`` of the files beside it)."""
    text = path.read_text(encoding="utf-8")
    rows = text.split("\n")
    settings: dict = {}
    header = 0
    while header < len(rows) and rows[header].startswith("#: "):
        m = SETTING.match(rows[header])
        if m:
            settings[m.group(1)] = json.loads(m.group(2))
        header += 1
    code_rows, expected = [], []
    for n, row in enumerate(rows[header:], start=1):
        m = MARK.search(row)
        if m:
            expected += [(n, c) for c in m.group(1).split(", ")]
            row = row[:m.start()]
        code_rows.append(row)
    code = "\n".join(code_rows)
    name = path.name[:-len(".py")]
    fixed = path.with_name(name + FIXED)
    side = path.with_name(name)
    files = {p.relative_to(side).as_posix(): p.read_text(encoding="utf-8")
             for p in sorted(side.rglob("*")) if p.is_file()} if side.is_dir() else {}
    common = dict(options=settings.get("options", {}), files=files, select=tuple(settings.get("select", ())),
                  run=bool(settings.get("run", False)))
    if name.startswith("invalid"):
        assert expected, f"{path}: an invalid_ fixture with no `# expect: CODE` marker"
        ex: Valid | Invalid = Invalid(code, lines=tuple(n for n, _ in expected), message=settings.get("message"),
                                      expected_fix=fixed.read_text(encoding="utf-8") if fixed.exists() else None,
                                      **common)
    else:
        assert name.startswith("valid") and not expected and not fixed.exists() and "message" not in settings, (
            f"{path}: a fixture is named valid_* (no marker, no fix, no message) or invalid_*")
        ex = Valid(code, **common)
    return Case(f"{rule.code}/{path.name}", rule, ex, tuple(sorted(expected)), path, header)


def fixtures(rule: type[Rule]) -> list[Case]:
    folder = FIXTURES / rule.code
    if not folder.is_dir():
        return []
    return [read_fixture(rule, p) for p in sorted(folder.glob("*.py")) if not p.name.endswith(FIXED)]


@lru_cache(maxsize=None)
def _cases(rule: type[Rule]) -> tuple[Case, ...]:
    return (*documented(rule), *fixtures(rule))


def cases(rule: type[Rule]) -> list[Case]:
    """Every example of ``rule``: the documented ones first, then its fixtures."""
    return list(_cases(rule))


def invalid(rule: type[Rule], index: int) -> Invalid:
    """The INVALID example that was ``rule.INVALID[index]`` before its move to a
    fixture (``invalid_<index>.py``), documented or not."""
    if index < len(rule.INVALID):
        return rule.INVALID[index]
    ex = read_fixture(rule, FIXTURES / rule.code / f"invalid_{index:02d}.py").example
    assert isinstance(ex, Invalid)
    return ex


def load_module(code: str, name: str, prefix: str = "_fixture"):
    """Import the fixture ``tests/fixtures/rules/<code>/<name>.py`` as a module, to run its
    code with real jax (the proof behind what the rule claims of it)."""
    import importlib.util

    path = FIXTURES / code / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"{prefix}_{code}_{name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
