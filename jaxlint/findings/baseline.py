"""Baseline files: adopt jaxlint in an existing codebase by recording today's findings
and failing only on new ones.

An entry is keyed by the file's path (posix, relative to the baseline file's
directory), the rule code's problem family and the finding's line-independent
:attr:`~jaxlint.diagnostic.Diagnostic.signature` (enclosing function + normalized
source of the flagged expression), with a count of how many such findings there
are, and the finding's kind where its rule gave one (so that whether a rule looked for it,
under a selection that takes some of its kinds, is decided by the kind the model gave). Line numbers are never part of the key, so edits elsewhere in a file do not
turn baselined findings into new ones. The file is sorted JSON, one entry per
finding kind, so that a change to it reads well in review.

A measured finding (trace or compile tier) is keyed under the file of the jitted
function it was measured in, whether it is reported at the ``def`` or at the call a
recording saw, and its signature holds no message text and no measured figure.

A problem is one entry whichever tier found it: codes that ``supersedes`` links
(JAX101 captured array, JAX201 its measured constant) are one family
(:func:`jaxlint.registry.family_of`), and a measured finding carries the signature of
the static finding it replaced. So a baseline written by a static run holds under
``--dynamic`` and the other way round; the entry keeps the code that found it.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Mapping

from jaxlint.config import ConfigError
from jaxlint.diagnostic import Diagnostic

FORMAT_VERSION = 1

Key = tuple[str, str, str]  # (path, problem family of the code, signature)


def key_path(display: str, base_dir: Path, cwd: Path) -> str:
    """A checked file's path as the baseline spells it."""
    p = Path(display)
    absolute = p if p.is_absolute() else cwd / p
    return Path(os.path.relpath(os.path.abspath(absolute), os.path.abspath(base_dir))).as_posix()


class _Lines:
    """Source lines read on demand, for findings that carry no signature."""

    def __init__(self, cwd: Path) -> None:
        self.cwd = cwd
        self._files: dict[str, list[str]] = {}

    def get(self, display: str, line: int) -> str:
        lines = self._files.get(display)
        if lines is None:
            try:
                lines = (self.cwd / display).read_text(encoding="utf-8", errors="replace").splitlines()
            except OSError:
                lines = []
            self._files[display] = lines
        return lines[line - 1] if 1 <= line <= len(lines) else ""


def _signature(d: Diagnostic, lines: _Lines) -> str:
    if d.signature:
        return d.signature
    # no signature from the rule: the flagged line's text still survives moves
    return "line:" + " ".join(lines.get(d.path, d.start.line).split())


def _family(code: str) -> str:
    from jaxlint.registry import family_of

    return family_of(code)


def finding_key(d: Diagnostic, base_dir: Path, cwd: Path, lines: "_Lines | None" = None) -> Key:
    return key_path(_home(d), base_dir, cwd), _family(d.code), _signature(d, lines or _Lines(cwd))


def _home(d: Diagnostic) -> str:
    """The path a finding is keyed under: a measured finding's jitted function's file
    (a recompilation is one finding whether it is reported at the call a recording saw
    or at the ``def``), else where it is reported."""
    from jaxlint.diagnostic import Phase
    from jaxlint.findings.supersede import HOME

    home = d.data.get(HOME) if d.phase is not Phase.STATIC else None
    return home if isinstance(home, str) and home else d.path


@dataclass
class Baseline:
    counts: dict[Key, int] = field(default_factory=dict)
    #: code -> rule name, written beside each entry for the reader
    names: dict[str, str] = field(default_factory=dict)
    #: key -> the code written in the file (the tier that found it)
    codes: dict[Key, str] = field(default_factory=dict)
    #: key -> the finding kind its rule gave when reporting (``data["kind"]``), where it gave one
    kinds: dict[Key, str] = field(default_factory=dict)

    def add(self, key: Key, code: str, count: int = 1, kind: str | None = None) -> None:
        self.counts[key] = self.counts.get(key, 0) + count
        self.codes.setdefault(key, code)
        if kind:
            self.kinds.setdefault(key, kind)

    def code(self, key: Key) -> str:
        return self.codes.get(key, key[1])

    @classmethod
    def from_findings(cls, diags: Iterable[Diagnostic], base_dir: Path, cwd: Path) -> "Baseline":
        lines = _Lines(cwd)
        b = cls()
        for d in diags:
            kind = d.data.get("kind")
            b.add(finding_key(d, base_dir, cwd, lines), d.code, kind=kind if isinstance(kind, str) else None)
            b.names[d.code] = d.name
        return b

    @classmethod
    def load(cls, path: Path) -> "Baseline":
        from jaxlint.files import untrusted

        try:
            data = untrusted.read_json(path, "the baseline")
        except FileNotFoundError:
            raise ConfigError(f"--baseline: no such file: {path} (create it with --write-baseline)") from None
        if not isinstance(data, dict) or data.get("version") != FORMAT_VERSION or not isinstance(
                data.get("findings"), list):
            raise ConfigError(f"{path}: not a jaxlint baseline (expected version {FORMAT_VERSION} with `findings`)")
        b = cls()
        for i, e in enumerate(data["findings"]):
            ok = isinstance(e, dict) and all(isinstance(e.get(k), str) for k in ("path", "code", "signature"))
            count = e.get("count", 1) if isinstance(e, dict) else None
            if not ok or not isinstance(count, int) or isinstance(count, bool) or count < 1:
                raise ConfigError(f"{path}: baseline entry {i} needs `path`, `code`, `signature` and a count >= 1")
            kind = e.get("kind")
            if kind is not None and not isinstance(kind, str):
                raise ConfigError(f"{path}: baseline entry {i}: `kind` must be a string")
            b.add((e["path"], _family(e["code"]), e["signature"]), e["code"], count, kind)
            if isinstance(e.get("name"), str):
                b.names[e["code"]] = e["name"]
        return b

    def dumps(self) -> str:
        rows = sorted((p, self.code(k), s, n, self.kinds.get(k, "")) for k, n in self.counts.items()
                      for p, _, s in [k] if n > 0)
        findings = [{"path": p, "code": c, "name": self.names.get(c, ""), "signature": s, "count": n,
                     **({"kind": kind} if kind else {})}
                    for p, c, s, n, kind in rows]
        return json.dumps({"version": FORMAT_VERSION, "findings": findings}, indent=2, ensure_ascii=False) + "\n"

    def write(self, path: Path) -> None:
        from jaxlint.files.cache import replace_file

        path.parent.mkdir(parents=True, exist_ok=True)
        replace_file(path, self.dumps().encode("utf-8"))

    def without(self, stale: Mapping[Key, int]) -> "Baseline":
        counts = {k: n - stale.get(k, 0) for k, n in self.counts.items()}
        kept = {k: n for k, n in counts.items() if n > 0}
        return Baseline(kept, dict(self.names), {k: c for k, c in self.codes.items() if k in kept},
                        {k: c for k, c in self.kinds.items() if k in kept})


@dataclass
class Comparison:
    #: findings beyond what the baseline allows (these fail the gate)
    new: list[Diagnostic]
    #: findings the baseline covers
    matched: int
    #: baselined occurrences no longer found: key -> how many
    stale: dict[Key, int]


def compare(baseline: Baseline, diags: Iterable[Diagnostic], base_dir: Path, cwd: Path,
            judged: Mapping[str, Mapping[str, frozenset[str]]], superseded: Iterable[Diagnostic] = (),
            measured: Mapping[str, Mapping[str, frozenset[str]]] | None = None) -> Comparison:
    """Split ``diags`` into new and baselined findings.

    ``judged`` maps the baseline path of every file this run checked completely to
    the codes that ran on it, each with the groups of its findings the selection took: a
    baselined finding is stale only when its rule ran on its file for the finding's kind
    (:meth:`Rule.group_of`: a rule selected for some kinds only did not look for the
    others) and did not find it again, or when the file is gone. Entries for files
    outside this run are left alone (a pre-commit run sees a few files).
    ``superseded``: static findings a measured finding replaced beyond the one whose
    signature it carries (:func:`jaxlint.findings.suppress.merge_tiers`); still there, so
    their entries are neither new nor stale. ``measured``: baseline path -> function
    -> the trace and compile codes that analysed it to the end in this run; an entry of
    a measured finding (its signature starts with its function) is stale when its code
    ran on its function and did not find it again.
    """
    lines = _Lines(cwd)
    groups: dict[Key, list[Diagnostic]] = {}
    for d in sorted(diags, key=lambda d: d.sort_key):
        groups.setdefault(finding_key(d, base_dir, cwd, lines), []).append(d)
    present = {k: len(v) for k, v in groups.items()}
    for d in superseded:
        k = finding_key(d, base_dir, cwd, lines)
        present[k] = present.get(k, 0) + 1
    new: list[Diagnostic] = []
    matched = 0
    for key, found in groups.items():
        allowed = baseline.counts.get(key, 0)
        # with more findings than recorded, the later ones in the file are the new ones
        matched += min(allowed, len(found))
        new.extend(found[allowed:])
    stale: dict[Key, int] = {}
    for key, allowed in baseline.counts.items():
        path = key[0]
        missing = allowed - present.get(key, 0)
        if missing <= 0:
            continue
        code = baseline.code(key)
        ran = (measured or {}).get(path, {}).get(key[2].split(":", 1)[0], ())
        if _judged(judged.get(path, {}), code, key[2], baseline.kinds.get(key)) or code in ran or not (base_dir / path).exists():
            stale[key] = missing
    new.sort(key=lambda d: d.sort_key)
    return Comparison(new, matched, stale)


def _judged(codes: Mapping[str, frozenset[str]], code: str, signature: str, kind: str | None = None) -> bool:
    """Whether the static rule ``code`` ran on the file for the kind of this finding (the
    kind the baseline kept, else the rule's answer from the signature)."""
    groups = codes.get(code)
    if groups is None:
        return False
    from jaxlint.registry import rules_by_code

    rule = rules_by_code().get(code)
    if rule is None or not rule.kinds:
        return True
    return rule.group_of(signature, kind if kind in rule.kinds else None) in groups
