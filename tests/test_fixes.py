"""Applying fixes: the engine on real text, and `--fix` / `--unsafe-fixes` / `--diff` /
`--show-fixes` / `--add-noqa` through the real CLI on real files."""
from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import textwrap

import pytest

from helpers import lint_source, run_cli
from jaxlint.diagnostic import Applicability, Diagnostic, Edit, Fix, Position
from jaxlint.fix.apply import add_noqa_text, apply_edits, apply_once, fix_until_stable, parses
from jaxlint.registry import all_rules
from jaxlint.rule import Invalid, example_source
from rule_fixtures import cases


def _finding(line, col, end_line, end_col, content, code="JAX999", safe=True) -> Diagnostic:
    edit = Edit(Position(line, col), Position(end_line, end_col), content)
    fix = Fix("test edit", (edit,), Applicability.SAFE if safe else Applicability.UNSAFE)
    return Diagnostic(code, "test", "m", "t.py", Position(line, col), Position(end_line, end_col), fix=fix)


# ---------------------------------------------------------------------------- engine
def test_edits_use_one_based_lines_and_character_columns():
    text = "s = 'é'; x = 1\ny = 2\n"
    out = apply_once(text, [_finding(1, 10, 1, 11, "z")])  # `x` is the 10th character, not byte
    assert out.text == "s = 'é'; z = 1\ny = 2\n"


def test_only_safe_fixes_apply_unless_unsafe_is_asked_for():
    text = "a = 1\nb = 2\n"
    diags = [_finding(1, 1, 1, 2, "A"), _finding(2, 1, 2, 2, "B", safe=False)]
    assert apply_once(text, diags).text == "A = 1\nb = 2\n"
    assert apply_once(text, diags, unsafe=True).text == "A = 1\nB = 2\n"


def test_overlapping_fix_is_skipped_in_a_pass_and_applied_on_the_next():
    text = "value = 1\n"
    first = _finding(1, 1, 1, 6, "total")  # value -> total
    second = _finding(1, 3, 1, 10, "x = 2")  # overlaps the first

    def relint(new_text):
        # the second finding, found again on the new text
        return [_finding(1, 1, 1, 10, "x = 2")] if new_text == "total = 1\n" else []

    step = apply_once(text, [first, second])
    assert step.text == "total = 1\n" and step.applied == [first]
    out = fix_until_stable(text, [first, second], relint)
    assert out.text == "x = 2\n" and len(out.applied) == 2 and out.converged


def test_two_insertions_at_one_point_do_not_both_apply_in_one_pass():
    text = "x = 1\n"
    out = apply_once(text, [_finding(1, 1, 1, 1, "a"), _finding(1, 1, 1, 1, "b")])
    assert out.text == "ax = 1\n"


def test_a_fix_that_breaks_the_syntax_is_rejected_and_the_others_still_apply():
    text = "def f():\n    return 1\nx = 2\n"
    breaking = _finding(1, 1, 1, 4, "dfe")  # `dfe f():` is not Python
    fine = _finding(3, 1, 3, 2, "y")
    out = apply_once(text, [breaking, fine])
    assert out.text == "def f():\n    return 1\ny = 2\n"
    assert out.rejected == [breaking] and out.applied == [fine]
    assert parses(out.text)


def test_inserted_newlines_follow_the_file_line_endings():
    text = "a = 1\r\nb = 2\r\n"
    out = apply_once(text, [_finding(1, 6, 1, 6, "\nc = 3")])
    assert out.text == "a = 1\r\nc = 3\r\nb = 2\r\n"


def test_fixes_that_undo_each_other_stop_instead_of_looping():
    text = "a = 1\n"

    def flip(t):
        return [_finding(1, 1, 1, 2, "b" if t.startswith("a") else "a")]

    out = fix_until_stable(text, flip(text), flip, max_iterations=50)
    assert out.text in ("a = 1\n", "b = 1\n") and len(out.applied) <= 3 and not out.converged


# ---------------------------------------------------------------------------- the CLI
UNUSED = textwrap.dedent(
    """
    import jax
    import numpy as np
    W = np.ones((1024, 1024))

    @jax.jit
    def f(x):
        y = x + 1  # noqa: E501, JAX101
        return x @ W + y  # noqa: JAX101, JAX102
    """
).lstrip()
UNUSED_FIXED = UNUSED.replace("# noqa: E501, JAX101", "# noqa: E501").replace("JAX101, JAX102", "JAX101")


@pytest.fixture
def proj(tmp_path):
    (tmp_path / "m.py").write_text(UNUSED)
    return tmp_path


#: JAX104 (nursery: off by default) is the samples' rule with a codemod fix; turned on where they use it
ON = ("--extend-select", "JAX104")


def _check(proj, *args):
    return run_cli("check", "--no-cache", "--extend-select", "JAX190", *args, cwd=proj)


def test_check_without_fix_never_touches_a_file(proj):
    before = (proj / "m.py").stat()
    r = _check(proj, "m.py")
    assert r.returncode == 1 and r.stdout.count("JAX190 [*]") == 2
    after = (proj / "m.py").stat()
    assert (proj / "m.py").read_text() == UNUSED and after.st_mtime_ns == before.st_mtime_ns


def test_fix_applies_safe_fixes_and_reports_what_remains(proj):
    (proj / "loop.py").write_text("import jax\n\n@jax.jit\ndef g(x):\n    for i in range(500):\n        x = x + i\n"
                                  "    return x\n")
    r = _check(proj, "--fix", ".")
    assert (proj / "m.py").read_text() == UNUSED_FIXED
    assert r.returncode == 1, r.stdout + r.stderr  # the unfixable loop remains
    assert "loop.py:5:5: JAX102" in r.stdout and "JAX190" not in r.stdout.replace("Fixed", "")
    assert "Fixed 2 findings." in r.stdout
    again = _check(proj, "m.py")
    assert again.returncode == 0, again.stdout


def test_show_fixes_lists_applied_fixes_per_file_and_rule(proj):
    r = _check(proj, "--fix", "--show-fixes", "m.py")
    assert r.returncode == 0
    assert "Fixed 2 findings:" in r.stdout and "- m.py:" in r.stdout and "2 × JAX190 (unused-noqa)" in r.stdout


def test_diff_prints_a_unified_diff_writes_nothing_and_exits_1(proj):
    r = _check(proj, "--diff", "m.py")
    assert r.returncode == 1
    assert "--- a/m.py\n+++ b/m.py\n" in r.stdout
    assert "\n-    y = x + 1  # noqa: E501, JAX101\n" in r.stdout and "\n+    y = x + 1  # noqa: E501\n" in r.stdout
    assert (proj / "m.py").read_text() == UNUSED
    assert "Would fix 2 findings." in r.stderr


def test_diff_with_nothing_to_fix_exits_0(proj):
    (proj / "m.py").write_text(UNUSED_FIXED)
    r = _check(proj, "--diff", "m.py")
    assert r.returncode == 0 and r.stdout == ""


def test_fix_keeps_permissions_encoding_bom_and_line_endings(proj):
    body = UNUSED.replace("import jax\n", "import jax\nNAME = 'café'\n", 1)
    crlf = proj / "crlf.py"
    crlf.write_bytes(b"\xef\xbb\xbf" + body.replace("\n", "\r\n").encode("utf-8"))
    latin = proj / "latin.py"
    latin.write_bytes(("# -*- coding: latin-1 -*-\n" + body).encode("latin-1"))
    os.chmod(crlf, 0o754)
    r = _check(proj, "--fix", "crlf.py", "latin.py")
    assert r.returncode == 0, r.stdout + r.stderr
    fixed = UNUSED_FIXED.replace("import jax\n", "import jax\nNAME = 'café'\n", 1)
    assert crlf.read_bytes() == b"\xef\xbb\xbf" + fixed.replace("\n", "\r\n").encode("utf-8")
    assert latin.read_bytes() == ("# -*- coding: latin-1 -*-\n" + fixed).encode("latin-1")
    assert stat.S_IMODE(crlf.stat().st_mode) == 0o754
    assert sorted(p.name for p in proj.iterdir()) == ["crlf.py", "latin.py", "m.py"], "no temp file left"


def test_fix_through_a_symlink_writes_the_target_and_keeps_the_link(proj):
    real = proj / "real"
    real.mkdir()
    (proj / "m.py").rename(real / "m.py")
    (proj / "link.py").symlink_to(real / "m.py")
    r = _check(proj, "--fix", "link.py")
    assert r.returncode == 0, r.stdout + r.stderr
    assert (proj / "link.py").is_symlink()
    assert (real / "m.py").read_text() == UNUSED_FIXED


# ---------------------------------------------------------------------------- stdin
def _stdin(proj, data: bytes, *args):
    """``check`` on ``data`` read from stdin as ``m.py``, in bytes (stdout carries code)."""
    e = dict(os.environ)
    e.pop("JAXLINT_OUTPUT_FORMAT", None)
    return subprocess.run([sys.executable, "-m", "jaxlint", "check", "--no-cache", "--extend-select", "JAX190",
                           *args, "--stdin-filename", "m.py", "-"], cwd=proj, input=data, capture_output=True,
                          env=e, timeout=600)


def test_fix_on_stdin_prints_the_fixed_code_and_reports_on_stderr(proj):
    on_disk = (proj / "m.py").stat().st_mtime_ns
    src = UNUSED + "\n@jax.jit\ndef g(x):\n    for i in range(500):\n        x = x + i\n    return x\n"
    r = _stdin(proj, src.encode(), "--fix")
    assert r.stdout.decode() == UNUSED_FIXED + src[len(UNUSED):]
    err = r.stderr.decode()
    assert r.returncode == 1 and "m.py:12:5: JAX102" in err and "Fixed 2 findings." in err
    assert (proj / "m.py").read_text() == UNUSED and (proj / "m.py").stat().st_mtime_ns == on_disk
    assert sorted(p.name for p in proj.iterdir()) == ["m.py"]


def test_fix_on_stdin_with_everything_fixed_exits_0_and_json_goes_to_stderr(proj):
    r = _stdin(proj, UNUSED.encode(), "--fix", "--output-format", "json")
    assert r.returncode == 0 and r.stdout.decode() == UNUSED_FIXED
    note, report = r.stderr.decode().split("\n", 1)
    assert note == "Fixed 2 findings." and json.loads(report) == []


def test_fix_on_stdin_keeps_line_endings_bom_and_encoding(proj):
    body = UNUSED.replace("import jax\n", "import jax\nNAME = 'café'\n", 1)
    fixed = UNUSED_FIXED.replace("import jax\n", "import jax\nNAME = 'café'\n", 1)
    crlf = b"\xef\xbb\xbf" + body.replace("\n", "\r\n").encode("utf-8")
    assert _stdin(proj, crlf, "--fix").stdout == b"\xef\xbb\xbf" + fixed.replace("\n", "\r\n").encode("utf-8")
    latin = ("# -*- coding: latin-1 -*-\n" + body).encode("latin-1")
    assert _stdin(proj, latin, "--fix").stdout == ("# -*- coding: latin-1 -*-\n" + fixed).encode("latin-1")


@pytest.mark.parametrize("data", [UNUSED_FIXED.encode(), b"import jax\ndef f(:\n", b"x = '\xff'  # noqa: JAX101\n"],
                         ids=["nothing-to-fix", "syntax-error", "not-utf8"])
def test_fix_on_stdin_gives_back_code_it_cannot_or_need_not_fix_unchanged(proj, data):
    r = _stdin(proj, data, "--fix")
    assert r.stdout == data
    assert r.returncode == (0 if data == UNUSED_FIXED.encode() else 1), r.stderr


def test_fix_on_stdin_gives_back_an_excluded_file_unchanged(proj):
    (proj / "jaxlint.toml").write_text('extend-exclude = ["m.py"]\n')
    r = _stdin(proj, UNUSED.encode(), "--fix", "--force-exclude")
    assert r.returncode == 0 and r.stdout == UNUSED.encode()
    assert _stdin(proj, UNUSED.encode(), "--force-exclude").stdout == b""  # a plain check prints no code


def test_unsafe_fixes_on_stdin_apply_only_when_asked(tmp_path):
    rule, ex = _unsafe_example()
    if rule is None:
        pytest.skip("no registered rule has an unsafe fix with an expected_fix example")
    src = example_source(ex)
    r = run_cli("check", "--no-cache", "--select", rule.code, "--fix", "--stdin-filename", "u.py", "-",
                cwd=tmp_path, input=src)
    assert r.returncode == 1 and r.stdout == src
    r = run_cli("check", "--no-cache", "--select", rule.code, "--fix", "--unsafe-fixes", "--stdin-filename", "u.py",
                "-", cwd=tmp_path, input=src)
    assert r.stdout == textwrap.dedent(ex.expected_fix).lstrip("\n"), r.stderr
    assert not (tmp_path / "u.py").exists()


def test_diff_on_stdin_prints_the_diff_and_no_code(proj):
    r = _stdin(proj, UNUSED.encode(), "--diff")
    out = r.stdout.decode()
    assert r.returncode == 1 and out.startswith("--- a/m.py\n+++ b/m.py\n")
    assert "\n+    y = x + 1  # noqa: E501\n" in out and "Would fix 2 findings." in r.stderr.decode()
    assert (proj / "m.py").read_text() == UNUSED


def test_add_noqa_is_refused_for_stdin(proj):
    r = _stdin(proj, UNUSED.encode(), "--add-noqa")
    assert r.returncode == 2 and r.stdout == b""
    assert "--add-noqa cannot be used when reading from stdin" in r.stderr.decode()
    assert (proj / "m.py").read_text() == UNUSED


def _unsafe_example():
    for rule in all_rules():
        if rule.phase.value != "static" or rule.fixable is not Applicability.UNSAFE:
            continue
        for case in cases(rule):
            ex = case.example
            if isinstance(ex, Invalid) and ex.expected_fix is not None and not ex.options and not ex.select:
                return rule, ex
    return None, None


def test_unsafe_fixes_apply_only_with_unsafe_fixes(tmp_path):
    rule, ex = _unsafe_example()
    if rule is None:
        pytest.skip("no registered rule has an unsafe fix with an expected_fix example")
    src = example_source(ex)
    (tmp_path / "u.py").write_text(src)
    r = run_cli("check", "--no-cache", "--select", rule.code, "--fix", "u.py", cwd=tmp_path)
    assert r.returncode == 1 and (tmp_path / "u.py").read_text() == src
    assert "fixable with `--fix --unsafe-fixes`" in r.stdout
    r = run_cli("check", "--no-cache", "--select", rule.code, "--fix", "--unsafe-fixes", "u.py", cwd=tmp_path)
    assert (tmp_path / "u.py").read_text() == textwrap.dedent(ex.expected_fix).lstrip("\n"), r.stdout + r.stderr
    assert r.returncode == (1 if lint_source((tmp_path / "u.py").read_text(), select=[rule.code]) else 0)


# --------------------------------------------------------------------------- add-noqa
CAPTURE_AND_LOOP = textwrap.dedent(
    """
    import jax
    import numpy as np
    W = np.ones((1024, 1024))

    @jax.jit
    def f(x):
        return x @ W  # the weights  # noqa: E501

    @jax.jit
    def g(x):
        for i in range(500):
            x = x + i
        return x
    """
).lstrip()


def test_add_noqa_merges_into_existing_comments_and_then_the_check_passes(tmp_path):
    (tmp_path / "a.py").write_text(CAPTURE_AND_LOOP)
    r = run_cli("check", "--no-cache", "--add-noqa", "a.py", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "Added 2 noqa directives." in r.stderr
    text = (tmp_path / "a.py").read_text()
    assert "return x @ W  # the weights  # noqa: E501, JAX101\n" in text
    assert "for i in range(500):  # noqa: JAX102\n" in text
    assert run_cli("check", "--no-cache", "--extend-select", "JAX190", "a.py", cwd=tmp_path).returncode == 0
    again = run_cli("check", "--no-cache", "--add-noqa", "a.py", cwd=tmp_path)
    assert "Added 0 noqa directives." in again.stderr and (tmp_path / "a.py").read_text() == text


def test_add_noqa_never_duplicates_a_code_and_keeps_order():
    text = "x = 1  # noqa: E501,JAX102\n"
    out = add_noqa_text(text, {1: {"JAX102", "JAX101"}})
    assert out.text == "x = 1  # noqa: E501, JAX102, JAX101\n" and out.added == [1]


def test_add_noqa_skips_lines_that_end_inside_a_string_or_continuation():
    text = 'x = f("""a\nb""")\ny = 1 + \\\n    2\nz = 3\n'
    out = add_noqa_text(text, {1: {"JAX101"}, 3: {"JAX101"}, 5: {"JAX101"}})
    assert out.skipped == [1, 3] and out.added == [5]
    assert out.text == 'x = f("""a\nb""")\ny = 1 + \\\n    2\nz = 3  # noqa: JAX101\n'


def test_add_noqa_leaves_a_file_with_a_syntax_error_alone(tmp_path):
    bad = "import jax\ndef f(x:\n    return x\n"
    (tmp_path / "bad.py").write_text(bad)
    r = run_cli("check", "--no-cache", "--add-noqa", "bad.py", cwd=tmp_path)
    assert r.returncode == 0 and (tmp_path / "bad.py").read_text() == bad
    assert "does not parse" in r.stderr


# ------------------------------------------------------------- with the dynamic phase
def test_line_map_follows_lines_across_deleted_inserted_and_changed_lines():
    from jaxlint.fix.apply import line_map

    changed = line_map("a\nb\nc\n", "a\nB\nc\n")
    deleted = line_map("a\nb\nc\n", "a\nc\n")
    inserted = line_map("a\nb\n", "a\nx\ny\nb\n")
    assert [changed(n) for n in (1, 2, 3)] == [1, 2, 3]
    assert [deleted(n) for n in (1, 2, 3)] == [1, 2, 2]
    assert [inserted(n) for n in (1, 2)] == [1, 4]


DYNAMIC = textwrap.dedent(
    """
    import jax
    import jax.numpy as jnp
    import numpy as np
    # noqa: JAX101
    W = np.ones((1024, 1024), np.float32)


    @jax.jit
    def f(x):
        return x @ W


    f(jnp.ones((4, 1024), jnp.float32))
    """
).lstrip()


def test_dynamic_findings_follow_their_line_after_a_fix_and_keep_superseding(tmp_path):
    (tmp_path / "m.py").write_text(DYNAMIC)
    r = run_cli("check", "--no-cache", "--dynamic", "--extend-select", "JAX190", "--fix",
                "--output-format", "json", "m.py", cwd=tmp_path)
    assert "# noqa" not in (tmp_path / "m.py").read_text(), r.stderr
    found = json.loads(r.stdout)
    # the standalone comment line is gone: `return x @ W` moved from line 10 to 9, and the
    # static JAX101 the re-check finds there stays superseded by the measured JAX201
    assert [(d["code"], d["location"]["row"]) for d in found] == [("JAX201", 9)], r.stderr
    # a splat constant costs little: JAX201 says so as information, which is below the
    # default fail-on = "warning" (shown, not failing the run)
    assert found[0]["severity"] == "info"
    assert r.returncode == 0


# ---------------------------------------------------------------- libcst codemods
NUMPY_IN_JIT = textwrap.dedent(
    """
    import jax
    import numpy as np

    @jax.jit
    def f(x):
        return np.exp(x)
    """
).lstrip()


def test_a_plain_check_stars_only_safe_fixes_and_counts_the_unsafe_ones(tmp_path):
    (tmp_path / "m.py").write_text(NUMPY_IN_JIT)
    r = run_cli("check", "--no-cache", *ON, "m.py", cwd=tmp_path)
    assert "m.py:6:12: JAX104 `np.exp`" in r.stdout and "[*]" not in r.stdout
    assert "1 more fixable with `--fix --unsafe-fixes`." in r.stdout
    r = run_cli("check", "--no-cache", *ON, "--unsafe-fixes", "m.py", cwd=tmp_path)
    assert "m.py:6:12: JAX104 [*] `np.exp`" in r.stdout
    assert "[*] 1 fixable with `jaxlint check --fix --unsafe-fixes`." in r.stdout
    stats = run_cli("check", "--no-cache", *ON, "--statistics", "m.py", cwd=tmp_path).stdout
    assert "JAX104\t    numpy-on-tracer" in stats


def test_json_of_a_plain_check_names_the_planned_fix_without_computing_it(tmp_path):
    (tmp_path / "m.py").write_text(NUMPY_IN_JIT)
    (item,) = json.loads(run_cli("check", "--no-cache", *ON, "--output-format", "json", "m.py", cwd=tmp_path).stdout)
    assert item["fix"] == {"message": "Replace `np.exp` with `jnp.exp` (importing jax.numpy)",
                           "applicability": "unsafe", "edits": []}


def test_diff_shows_a_codemod_fix_with_its_import_and_writes_nothing(tmp_path):
    (tmp_path / "m.py").write_text(NUMPY_IN_JIT)
    safe_only = run_cli("check", "--no-cache", *ON, "--diff", "m.py", cwd=tmp_path)
    assert safe_only.returncode == 0 and safe_only.stdout == ""
    r = run_cli("check", "--no-cache", *ON, "--diff", "--unsafe-fixes", "m.py", cwd=tmp_path)
    assert r.returncode == 1
    assert "-import numpy as np\n+import jax.numpy as jnp\n" in r.stdout and "+    return jnp.exp(x)\n" in r.stdout
    assert "Would fix 1 finding." in r.stderr
    assert (tmp_path / "m.py").read_text() == NUMPY_IN_JIT


def test_codemod_fix_keeps_crlf_line_endings_bom_and_encoding(tmp_path):
    body = NUMPY_IN_JIT.replace("import jax\n", "import jax\nNAME = 'café'\n", 1)
    f = tmp_path / "m.py"
    f.write_bytes(b"\xef\xbb\xbf" + body.replace("\n", "\r\n").encode("utf-8"))
    r = run_cli("check", "--no-cache", *ON, "--fix", "--unsafe-fixes", "m.py", cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    expected = ("import jax\nimport jax.numpy as jnp\nNAME = 'café'\n\n@jax.jit\ndef f(x):\n"
                "    return jnp.exp(x)\n")
    assert f.read_bytes() == b"\xef\xbb\xbf" + expected.replace("\n", "\r\n").encode("utf-8")


NOQA_INSIDE_IF = textwrap.dedent(
    """
    import jax
    import numpy as np

    @jax.jit
    def f(x):
        if x.sum() > 0:
            y = np.abs(x)  # noqa: JAX104
        else:
            y = x
        return y
    """
).lstrip()


def test_a_fix_that_would_unsuppress_a_finding_is_not_made_and_says_why(tmp_path):
    # the jnp.where fix would move the noqa comment off its line: JAX104 would come back
    (tmp_path / "m.py").write_text(NOQA_INSIDE_IF)
    r = run_cli("check", "--no-cache", *ON, "--fix", "--unsafe-fixes", "m.py", cwd=tmp_path)
    assert (tmp_path / "m.py").read_text() == NOQA_INSIDE_IF
    assert r.returncode == 1 and "m.py:6:5: JAX105" in r.stdout
    assert "m.py:6:5: JAX105 fix not made: the fix would bring a new JAX104 (`np.abs` on traced value" in r.stderr


def test_a_fix_declined_for_another_finding_is_made_once_that_one_is_fixed():
    # JAX102's fori_loop body would hold the JAX104 call: fixed in turn, both go
    src = textwrap.dedent(
        """
        import jax
        import numpy as np

        @jax.jit
        def f(x):
            for _ in range(100):
                h = np.exp(x)
                x = x + h
            return x
        """
    ).lstrip()
    lint = lambda t: lint_source(t)  # noqa: E731
    out = fix_until_stable(src, lint(src), lint, unsafe=True)
    assert [d.code for d in out.applied] == ["JAX102", "JAX104"] and out.remaining == [] and not out.declined
    assert "h = jnp.exp(x)" in out.text and "x = jax.lax.fori_loop(0, 100, body, x)" in out.text
    assert "import numpy" not in out.text
    compile(out.text, "m.py", "exec")


# -- the verifier itself, on real re-checks
def _verify(text, new, regions):
    from jaxlint.fix.codemod import verify

    lint = lambda t: lint_source(t)  # noqa: E731
    (finding,) = [d for d in lint(text) if d.code == "JAX104"]
    return verify(text, new, finding, lint, None, regions)


def test_verify_accepts_a_fix_confined_to_its_region_and_gives_its_edits():
    out = _verify(NUMPY_IN_JIT, NUMPY_IN_JIT.replace("np.exp(x)", "x.sum()"), [(6, 6)])
    assert out.ok and [(e.start, e.end, e.content) for e in out.edits] == [
        (Position(6, 12), Position(6, 20), "x.sum(")]  # the smallest edit: ")" stays
    assert apply_edits(NUMPY_IN_JIT, out.edits) == out.text


def test_verify_refuses_a_change_outside_the_planned_region():
    new = NUMPY_IN_JIT.replace("np.exp(x)", "x.sum()").replace("def f(x)", "def f(y, x)")
    assert _verify(NUMPY_IN_JIT, new, [(6, 6)]).reason == "the fix would change line 5, outside the code it rewrites"


def test_verify_refuses_a_lost_comment_a_new_finding_a_kept_finding_and_broken_code():
    commented = NUMPY_IN_JIT.replace("return np.exp(x)", "return np.exp(x)  # the total")
    assert "lose the comment '# the total'" in _verify(commented, NUMPY_IN_JIT.replace("np.exp(x)", "x.sum()"),
                                                        [(6, 6)]).reason
    added = NUMPY_IN_JIT.replace("return np.exp(x)", "return x.sum() + np.log(x)")
    assert _verify(NUMPY_IN_JIT, added, [(6, 6)]).reason.startswith("the fix would bring a new JAX104 (`np.log`")
    kept = NUMPY_IN_JIT.replace("return np.exp(x)", "return np.exp(x)  ")
    assert _verify(NUMPY_IN_JIT, kept, [(6, 6)]).reason == "the finding is still there after the fix"
    broken = NUMPY_IN_JIT.replace("return np.exp(x)", "return np.exp(x) +")
    assert _verify(NUMPY_IN_JIT, broken, [(6, 6)]).reason == "the fixed code would not compile"
    scoped = NUMPY_IN_JIT.replace("return np.exp(x)", "nonlocal x")
    assert _verify(NUMPY_IN_JIT, scoped, [(6, 6)]).reason == "the fixed code would not compile"


def test_a_file_too_deep_for_libcst_keeps_its_finding_and_says_why(tmp_path):
    # ast (with the static phase's room) parses a 2,000-term sum; libcst's visitors do not
    src = "import jax\nimport numpy as np\nX = " + "+".join(["1"] * 2000) + "\n" + NUMPY_IN_JIT.split("\n", 2)[2]
    (tmp_path / "deep.py").write_text(src)
    r = run_cli("check", "--no-cache", *ON, "--fix", "--unsafe-fixes", "deep.py", cwd=tmp_path)
    assert r.returncode == 1 and (tmp_path / "deep.py").read_text() == src
    assert "deep.py:7:12: JAX104 fix not made: the code is nested too deeply for libcst" in r.stderr
    assert "deep.py:7:12: JAX104 `np.exp`" in r.stdout and "fixable" not in r.stdout  # no longer offered
