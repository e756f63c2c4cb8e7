"""Terse helpers so tests read like the behaviour they check."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Iterable, Mapping

from jaxlint.registry import rules_by_code
from jaxlint.static.runner import lint_static


def lint_source(source: str, select: Iterable[str] | None = None, options: Mapping | None = None,
                path: str = "example.py", confidence: str = "likely", files: Mapping[str, str] | None = None):
    """The kept static findings of ``source``. ``files``: other modules of its tree
    (relative name -> source), written with it into a temporary folder whose modules
    its imports reach (``jaxlint.static.tree``)."""
    source = textwrap.dedent(source).lstrip("\n")
    by_code = rules_by_code()
    codes = list(select) if select is not None else [c for c, r in by_code.items() if r.phase.value == "static"]
    rules = [by_code[c]((options or {}).get(c, {}) if options and c in options else {}) for c in codes]
    if not files:
        res, kept = lint_static(path, rules, text=source, confidence=confidence)
        assert not res.errors, res.errors
        return sorted(kept, key=lambda d: d.sort_key)
    import tempfile

    from jaxlint.static.tree import Link

    with tempfile.TemporaryDirectory() as d:
        root = Path(d)
        for name, text in {**files, path: source}.items():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_text(textwrap.dedent(text).lstrip("\n"))
        res, kept = lint_static(path, rules, text=source, confidence=confidence,
                                link=Link.for_file(root / path, root))
    assert not res.errors, res.errors
    return sorted(kept, key=lambda d: d.sort_key)


def lines(code: str, src: str, **options) -> list[int]:
    """Lines of the ``code`` findings in ``src`` (the rule alone, with ``options``)."""
    return [d.start.line for d in lint_source(src, select=[code], options={code: options})]


def messages(code: str, src: str) -> list[str]:
    return [d.message for d in lint_source(src, select=[code])]


def fixed(code: str, src: str, unsafe: bool = True) -> str:
    """``src`` after every fix of ``code``, applied pass after pass as ``--fix`` does."""
    from jaxlint.fix.apply import fix_until_stable

    src = textwrap.dedent(src).lstrip("\n")
    out = fix_until_stable(src, lint_source(src, select=[code]), lambda t: lint_source(t, select=[code]),
                           unsafe=unsafe)
    assert not out.rejected, out.rejected
    return out.text


def run_cli(*args: str, cwd: Path | str | None = None, input: str | None = None, env: Mapping | None = None,
            timeout: float = 600) -> subprocess.CompletedProcess:
    e = dict(os.environ)
    e.pop("JAXLINT_OUTPUT_FORMAT", None)
    e.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "jaxlint", *args],
        cwd=cwd,
        input=input,
        capture_output=True,
        encoding="utf-8",  # what jaxlint writes to a pipe, whatever the locale's encoding
        env=e,
        timeout=timeout,
    )


def beside_a_library(tmp_path: Path, modules: Mapping[str, str]) -> tuple[Path, dict[str, str]]:
    """A project folder and, beside it (outside the project, in no site-packages), a
    folder of library ``modules`` (file name -> source) on PYTHONPATH: (the project's
    folder, the environment that makes the library importable)."""
    lib, proj = tmp_path / "lib", tmp_path / "proj"
    lib.mkdir()
    proj.mkdir()
    for name, source in modules.items():
        (lib / name).write_text(source.lstrip())
    return proj, {"PYTHONPATH": os.pathsep.join(p for p in (str(lib), os.environ.get("PYTHONPATH", "")) if p)}


def record_program(root: Path, program: str, *options: str) -> tuple[dict, dict | None]:
    """``jaxlint record OPTIONS -- python prog.py`` of ``program`` in a project at ``root``:
    its signatures and observations, per function key (None under ``--no-analysis``,
    which observes nothing)."""
    import json

    (root / "pyproject.toml").write_text("[tool.jaxlint]\n")
    (root / "prog.py").write_text(textwrap.dedent(program).lstrip("\n"))
    rec = run_cli("record", *options, "--", "python", "prog.py", cwd=root, timeout=600)
    assert rec.returncode == 0, rec.stderr[-3000:]
    sigs = json.loads((root / ".jaxlint" / "signatures.json").read_text())["functions"]
    if "--no-analysis" in options:
        return sigs, None
    observed = json.loads((root / ".jaxlint" / "observed.json").read_text())["functions"]
    return sigs, observed


def marked(root: Path, pattern: str) -> set[tuple[str, int, str]]:
    """(path, line, code) of every ``# CODE`` marker comment (codes matching ``pattern``,
    a regular expression such as ``JAX2\\d\\d``) in the ``.py`` files under ``root``:
    where a test project says a finding must be."""
    import re

    mark = re.compile(rf"#\s*((?:{pattern}\s*)+)$")
    out = set()
    for f in sorted(root.rglob("*.py")):
        for i, line in enumerate(f.read_text().splitlines(), 1):
            m = mark.search(line)
            if m:
                out |= {(f.relative_to(root).as_posix(), i, c) for c in m.group(1).split()}
    return out


def json_findings(proc, code: str | None = None) -> list[dict]:
    """The findings of a ``--output-format json`` run (only ``code``'s, if given)."""
    import json

    return [d for d in json.loads(proc.stdout or "[]") if code is None or d["code"] == code]


def hook_repo(dest: Path, root: Path = Path(__file__).resolve().parents[1]) -> Path:
    """A git repo at ``dest`` holding this checkout's pre-commit hook manifest and package.

    A clone of the checkout's HEAD when it is a git repo (as in CI): committed code is
    stable while work in progress in the working tree is not. Otherwise (an unpacked
    sdist) a copy of the files the package build needs, committed."""
    import shutil

    if (root / ".git").exists():
        subprocess.run(["git", "clone", "-q", str(root), str(dest)], check=True, capture_output=True)
        return dest
    dest.mkdir(parents=True)
    for name in (".pre-commit-hooks.yaml", "pyproject.toml", "README.md", "LICENSE"):
        if (root / name).is_file():
            shutil.copy2(root / name, dest / name)
    for package in ("jaxlint", "rules"):
        shutil.copytree(root / package, dest / package, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    git("init", "-q", cwd=dest)
    git("add", "-A", cwd=dest)
    git("commit", "-q", "-m", "snapshot for pre-commit tests", cwd=dest)
    return dest


def git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", "-c", "user.name=jaxlint-tests", "-c", "user.email=tests@jaxlint.invalid",
                    "-c", "commit.gpgsign=false", *args], cwd=cwd, check=True, capture_output=True)


def permissions_bypassed() -> bool:
    """Whether this process reads a ``chmod 000`` file (root with CAP_DAC_OVERRIDE): the
    tests of unreadable or read-only paths then skip. Probed, not read off the user id: root
    without that capability (a container that drops it) checks permissions as anyone."""
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        probe = Path(d) / "probe"
        probe.write_text("")
        probe.chmod(0)
        try:
            probe.open().close()
        except PermissionError:
            return False
        finally:
            probe.chmod(0o600)
    return True
