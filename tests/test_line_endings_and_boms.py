"""Files that other tools get wrong: CR-only line endings (old Mac files, some generated
code) and a file that starts with two byte-order marks. Through the real CLI."""
from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from helpers import run_cli
from jaxlint.registry import all_rules
from jaxlint.rule import Invalid
from jaxlint.static.runner import lint_static
from jaxlint.static.checker import SourceError, decode_source
from jaxlint.textutil import LINE_BREAK
from rule_fixtures import cases

CAPTURED = textwrap.dedent("""
    import jax
    import numpy as np
    W = np.ones((1024, 1024))

    @jax.jit
    def f(x):
        return x @ W  # noqa: JAX101

    @jax.jit
    def g(x):
        return x @ W
""").lstrip()


def with_endings(text: str, nl: str) -> str:
    return LINE_BREAK.sub(nl, text)


def report(tmp_path: Path, *args: str) -> list[tuple[str, str, int]]:
    r = run_cli("check", "--isolated", "--no-cache", "--output-format", "json", *args, cwd=tmp_path)
    assert r.returncode in (0, 1), r.stderr
    return sorted((d["filename"], d["code"], d["location"]["row"]) for d in json.loads(r.stdout))


@pytest.mark.parametrize("nl", ["\r", "\r\n", "\n"], ids=["cr", "crlf", "lf"])
def test_noqa_works_whatever_the_line_endings(tmp_path, nl):
    (tmp_path / "a.py").write_bytes(with_endings(CAPTURED, nl).encode())
    assert report(tmp_path, "a.py") == [("a.py", "JAX101", 11)]


def test_noqa_comments_of_a_cr_only_file_are_on_their_own_lines():
    from jaxlint.findings.noqa import lines_without_room, parse_suppressions

    src = "x = 1  # noqa: JAX101\ry = '''a\rb'''\rz = 2  # noqa\r"
    sup = parse_suppressions(src)
    assert sorted(sup.lines) == [1, 4] and sup.lines[1].codes == ("JAX101",) and sup.lines[4].codes is None
    assert lines_without_room(src) == {2}


def _examples():
    for rule in all_rules():
        if rule.phase.value == "static":
            for case in cases(rule):
                yield rule, textwrap.dedent(case.example.code).lstrip("\n"), dict(case.example.options)


@pytest.mark.parametrize("nl", ["\r", "\r\n"], ids=["cr", "crlf"])
def test_every_rule_finds_the_same_on_any_line_endings(nl):
    """Each static rule's examples give the same findings at the same places (and the
    same parse errors) whatever ends their lines."""
    def found(rule, code, options):
        _, kept = lint_static("x.py", [rule(options)], text=code)
        return [(d.code, d.start, d.end, LINE_BREAK.sub("\n", d.message)) for d in kept]

    checked = 0
    for rule, code, options in _examples():
        assert found(rule, with_endings(code, nl), options) == found(rule, code, options), (rule.code, code)
        checked += 1
    assert checked > 100


def _fixable_examples() -> dict[str, str]:
    """Every INVALID example of a rule that has a fix, as ``name -> source``."""
    out = {}
    for rule in all_rules():
        if rule.phase.value != "static":
            continue
        for i, case in enumerate(c for c in cases(rule) if isinstance(c.example, Invalid)):
            code = textwrap.dedent(case.example.code).lstrip("\n")
            res, kept = lint_static("x.py", [rule(dict(case.example.options))], text=code)
            if any(d.fix is not None for d in kept):
                out[f"{rule.code.lower()}_{i}.py"] = code
    return out


def test_fix_converges_on_cr_only_files_exactly_as_on_lf_files(tmp_path):
    examples = _fixable_examples()
    assert len(examples) >= 4
    results = {}
    for nl, name in (("\n", "lf"), ("\r", "cr")):
        d = tmp_path / name
        d.mkdir()
        for fname, code in examples.items():
            (d / fname).write_bytes(with_endings(code, nl).encode())
        first = run_cli("check", "--isolated", "--no-cache", "--select", "JAX1", "--fix", "--unsafe-fixes", ".", cwd=d)
        assert first.returncode in (0, 1) and "Fixed" in first.stdout, first.stdout + first.stderr
        second = run_cli("check", "--isolated", "--no-cache", "--select", "JAX1", "--fix", "--unsafe-fixes", ".", cwd=d)
        assert "Fixed" not in second.stdout, second.stdout  # the first run converged
        results[name] = {f: with_endings((d / f).read_bytes().decode(), "\n") for f in examples}
        if nl == "\r":  # the fixes kept the file's line endings
            assert not any(b"\n" in (d / f).read_bytes() for f in examples)
    assert results["cr"] == results["lf"]


def test_two_byte_order_marks_are_a_parse_error_as_python_says(tmp_path):
    data = b"\xef\xbb\xbf\xef\xbb\xbfimport jax\n"
    (tmp_path / "two.py").write_bytes(data)
    (tmp_path / "one.py").write_bytes(b"\xef\xbb\xbf" + CAPTURED.encode())
    assert report(tmp_path, "two.py", "one.py") == [("one.py", "JAX101", 11), ("two.py", "JAX100", 1)]
    r = run_cli("check", "--isolated", "--no-cache", "--fix", "two.py", cwd=tmp_path)
    assert r.returncode == 1 and "U+FEFF" in r.stdout
    assert (tmp_path / "two.py").read_bytes() == data  # --fix leaves a file it cannot parse alone
    with pytest.raises(SourceError):
        decode_source(data)
    assert decode_source(b"\xef\xbb\xbfx = 1\n") == "x = 1\n"


def test_two_byte_order_marks_on_stdin_are_a_parse_error(tmp_path):
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-m", "jaxlint", "check", "--isolated", "--no-cache", "--stdin-filename",
                           "s.py", "-"], input=b"\xef\xbb\xbf\xef\xbb\xbfimport jax\n", capture_output=True,
                          cwd=tmp_path, timeout=600)
    assert proc.returncode == 1 and b"JAX100" in proc.stdout and b"U+FEFF" in proc.stdout
