"""`# noqa` comments: the grammar, rewriting them, and unused-noqa (JAX190) through
the real static phase and the real CLI (cache included)."""
from __future__ import annotations

import json
import textwrap

import pytest

from helpers import lint_source, run_cli
from jaxlint.fix.apply import apply_edits
from jaxlint.findings.noqa import add_codes_edit, parse_suppressions, set_codes_edit

CAPTURE = textwrap.dedent(
    """
    import jax
    import numpy as np
    W = np.ones((1024, 1024))

    @jax.jit
    def f(x):
        return x @ W{comment}
    """
).lstrip()


def _jax190(src: str, *others: str):
    return [d for d in lint_source(src, select=["JAX190", *others]) if d.code == "JAX190"]


# ---------------------------------------------------------------------------- grammar
def test_noqa_codes_are_read_with_commas_or_spaces_and_any_case():
    sup = parse_suppressions("a = 1  # noqa: JAX101 jax102,E501\nb = 2  # NOQA\n")
    assert sup.lines[1].codes == ("JAX101", "JAX102", "E501")
    assert sup.lines[2].codes is None


def test_noqa_in_a_string_is_not_a_comment():
    sup = parse_suppressions('s = "# noqa: JAX101"\n')
    assert not sup.lines


def test_noqa_columns_point_at_the_directive_and_its_codes():
    line = "x = 1  # type: int  # noqa: JAX101"
    c = parse_suppressions(line + "\n").lines[1]
    assert line[c.column - 1:c.end_column - 1] == "# noqa: JAX101"
    assert line[c.codes_column - 1:] == "JAX101" and line[c.comment_column - 1] == "#" and c.comment_column == 8


def test_file_level_noqa_applies_to_every_line():
    sup = parse_suppressions("# jaxlint: noqa: JAX101\nx = 1\n")
    assert sup.suppresses("JAX101", 2) is sup.file_comments[0] and not sup.suppresses("JAX102", 2)


def test_file_level_noqa_columns_point_at_the_directive_and_its_codes():
    line = "import jax  # type: ignore  # jaxlint: noqa: JAX101"
    [c] = parse_suppressions(line + "\n").file_comments
    assert line[c.column - 1:c.end_column - 1] == "# jaxlint: noqa: JAX101"
    assert line[c.codes_column - 1:] == "JAX101" and c.comment_column == 13


# ------------------------------------------------------------------------- rewriting
@pytest.mark.parametrize("line,keep,expected", [
    ("x = 1  # noqa: E501, JAX101", ["E501"], "x = 1  # noqa: E501"),
    ("x = 1  # noqa: JAX101", [], "x = 1"),
    ("x = 1  # type: ignore  # noqa: JAX101", [], "x = 1  # type: ignore"),
    ("x = 1  # noqa: JAX101 -- see issue 4", [], "x = 1  # -- see issue 4"),
    ("x = 1  # NOQA:JAX101,JAX102", ["JAX102"], "x = 1  # NOQA:JAX102"),
])
def test_removing_codes_keeps_the_rest_of_the_comment(line, keep, expected):
    c = parse_suppressions(line + "\n").lines[1]
    assert apply_edits(line + "\n", [set_codes_edit(c, keep, line)]) == expected + "\n"


def test_removing_the_only_code_of_a_comment_alone_on_its_line_removes_the_line():
    text = "x = 1\n    # noqa: JAX101\ny = 2\n"
    c = parse_suppressions(text).lines[2]
    assert apply_edits(text, [set_codes_edit(c, [], "    # noqa: JAX101")]) == "x = 1\ny = 2\n"


def test_adding_a_code_to_a_blanket_noqa_changes_nothing():
    c = parse_suppressions("x = 1  # noqa\n").lines[1]
    assert add_codes_edit(1, "x = 1  # noqa", c, ["JAX101"]) is None


# ------------------------------------------------------------------------ unused-noqa
def test_unused_noqa_is_off_by_default():
    from jaxlint.registry import select_rules

    assert "JAX190" not in [r.code for r in select_rules(None, [], [])]
    assert "JAX190" in [r.code for r in select_rules(["ALL"], [], [])]


def test_used_noqa_is_not_reported():
    assert not _jax190(CAPTURE.format(comment="  # noqa: JAX101"), "JAX101")


def test_unused_code_is_reported_at_the_directive_with_a_safe_fix():
    src = CAPTURE.format(comment="  # noqa: JAX101, JAX102")
    [d] = _jax190(src, "JAX101", "JAX102")
    assert "unused: `JAX102`" in d.message and d.start.line == 7
    assert d.fix is not None and d.fix.applicability.value == "safe"
    assert apply_edits(src, d.fix.edits) == CAPTURE.format(comment="  # noqa: JAX101")


def test_noqa_for_a_rule_that_did_not_run_is_not_reported():
    assert not _jax190("import jax\nx = 1  # noqa: JAX101\n")


def test_trace_tier_codes_are_never_reported_by_the_static_phase():
    from jaxlint.registry import all_rules

    trace = [r.code for r in all_rules() if r.phase.value != "static"]
    if not trace:
        pytest.skip("no trace or compile tier rule registered")
    assert not _jax190(f"import jax\nx = 1  # noqa: {trace[0]}\n", "JAX101")


def test_unknown_jaxlint_code_is_reported_as_unknown_and_other_tools_codes_are_not():
    src = "import jax\nx = 1  # noqa: JAX999, E501, RUF100\ny = 2  # noqa\n"
    [d] = _jax190(src)
    assert "unknown: `JAX999`" in d.message and "E501" not in d.message
    assert apply_edits(src, d.fix.edits) == "import jax\nx = 1  # noqa: E501, RUF100\ny = 2  # noqa\n"


def test_lower_case_codes_are_codes_not_a_blanket_noqa():
    src = CAPTURE.format(comment="  # noqa: jax102")
    assert [d.code for d in lint_source(src, select=["JAX101"])] == ["JAX101"]


def test_noqa_made_redundant_by_a_file_level_noqa_is_unused():
    src = "# jaxlint: noqa: JAX101\n" + CAPTURE.format(comment="  # noqa: JAX101")
    [d] = _jax190(src, "JAX101")
    assert d.start.line == 8


def test_unused_noqa_can_itself_be_suppressed():
    assert not _jax190("import jax\nx = 1  # noqa: JAX101, JAX190\n", "JAX101")


def test_a_file_that_does_not_parse_gets_no_unused_noqa_findings():
    assert not _jax190("import jax\nx = 1  # noqa: JAX101\ndef f(:\n", "JAX101")


def test_file_without_jax_is_still_reviewed():
    # the prefilter skips the rules (nothing can fire), which makes every noqa unused
    [d] = _jax190("x = 1  # noqa: JAX101\n", "JAX101")
    assert "unused: `JAX101`" in d.message


def test_unused_noqa_through_the_cli_with_the_cache(tmp_path):
    (tmp_path / "m.py").write_text(CAPTURE.format(comment="  # noqa: JAX101, JAX102"))
    args = ("check", "--extend-select", "JAX190", "--output-format", "json", "m.py")
    first = run_cli(*args, cwd=tmp_path)
    second = run_cli(*args, cwd=tmp_path)
    assert first.returncode == second.returncode == 1
    assert first.stdout == second.stdout
    [item] = json.loads(second.stdout)
    assert item["code"] == "JAX190" and item["fix"]["applicability"] == "safe"
    assert any((tmp_path / ".jaxlint_cache").rglob("*.json")), "the second run read the cache"
    # without JAX190 selected the same cache directory gives no finding
    assert run_cli("check", "m.py", cwd=tmp_path).returncode == 0
    fixed = run_cli("check", "--extend-select", "JAX190", "--fix", "m.py", cwd=tmp_path)
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert (tmp_path / "m.py").read_text() == CAPTURE.format(comment="  # noqa: JAX101")


def test_per_file_ignore_of_unused_noqa_silences_it(tmp_path):
    (tmp_path / "m.py").write_text("import jax\nx = 1  # noqa: JAX999\n")
    (tmp_path / "jaxlint.toml").write_text('extend-select = ["JAX190"]\n[per-file-ignores]\n"m.py" = ["JAX190"]\n')
    assert run_cli("check", "--no-cache", "m.py", cwd=tmp_path).returncode == 0
    (tmp_path / "jaxlint.toml").write_text('extend-select = ["JAX190"]\n')
    assert run_cli("check", "--no-cache", "m.py", cwd=tmp_path).returncode == 1


# ------------------------------------------------------------ file-level comments
def test_unused_file_level_code_is_reported_at_its_directive():
    [d] = _jax190("import jax\nx = 1  # jaxlint: noqa: JAX102, JAX101\n", "JAX101", "JAX102")
    assert (d.start.line, d.start.column, d.end.column) == (2, 8, 39)
    assert d.message == "unused file-level `noqa` directive (unused: `JAX102`, `JAX101`)"


def test_file_level_code_whose_rule_found_something_is_used():
    assert not _jax190("# jaxlint: noqa: JAX101\n" + CAPTURE.format(comment=""), "JAX101")


def test_file_level_code_of_a_rule_that_did_not_run_is_not_reported():
    assert not _jax190("# jaxlint: noqa: JAX101, JAX201\nimport jax\nx = 1\n")


def test_blanket_file_level_noqa_is_not_reported():
    assert not _jax190("# jaxlint: noqa\nimport jax\nx = 1\n", "JAX101")


def test_file_level_code_named_twice_is_used_once_and_the_second_is_unused():
    src = "# jaxlint: noqa: JAX101\n" + CAPTURE.format(comment="") + "# jaxlint: noqa: JAX101, JAX999\n"
    [d] = _jax190(src, "JAX101")
    assert d.start.line == 9 and "unused: `JAX101`; unknown: `JAX999`" in d.message


def test_fix_removes_unused_file_level_codes_through_the_cli(tmp_path):
    (tmp_path / "alone.py").write_text("# jaxlint: noqa: JAX102\n" + CAPTURE.format(comment=""))
    (tmp_path / "kept.py").write_text("import jax  # type: ignore  # jaxlint: noqa: JAX102, JAX101\nx = 1\n")
    (tmp_path / "used.py").write_text("import numpy as np  # jaxlint: noqa: JAX101, JAX102\n"
                                      + CAPTURE.format(comment=""))
    args = ("check", "--no-cache", "--select", "JAX101,JAX102,JAX190")
    r = run_cli(*args, ".", cwd=tmp_path)
    assert r.returncode == 1 and r.stdout.count("JAX190 [*]") == 3, r.stdout
    assert "alone.py:1:1: JAX190" in r.stdout and "kept.py:1:29: JAX190" in r.stdout
    r = run_cli(*args, "--fix", ".", cwd=tmp_path)
    # alone.py's JAX101 finding was never suppressed: it remains, the comment is gone
    assert (tmp_path / "alone.py").read_text() == CAPTURE.format(comment="")
    assert (tmp_path / "kept.py").read_text() == "import jax  # type: ignore\nx = 1\n"
    assert (tmp_path / "used.py").read_text().startswith("import numpy as np  # jaxlint: noqa: JAX101\n")
    assert r.returncode == 1 and "JAX190" not in r.stdout.replace("Fixed", "") and "alone.py:7:16: JAX101" in r.stdout


# ------------------------------------------------------------ --ignore-noqa
def test_ignore_noqa_reports_what_line_and_file_comments_hide_and_the_cache_keeps_the_modes_apart(tmp_path):
    (tmp_path / "line.py").write_text(CAPTURE.format(comment="  # noqa: JAX101"))
    (tmp_path / "file.py").write_text("# jaxlint: noqa: JAX101\n" + CAPTURE.format(comment=""))
    args = ("check", "--extend-select", "JAX190", "--output-format", "json", "line.py", "file.py")
    assert run_cli(*args, cwd=tmp_path).stdout.strip() == "[]"
    shown = run_cli(*args, "--ignore-noqa", cwd=tmp_path)
    assert shown.returncode == 1, shown.stderr
    # both hidden findings, and no comment called unused because none was read
    assert sorted((d["filename"], d["code"], d["location"]["row"]) for d in json.loads(shown.stdout)) == [
        ("file.py", "JAX101", 8), ("line.py", "JAX101", 7)]
    assert any((tmp_path / ".jaxlint_cache").rglob("*.json")), "the runs wrote the cache"
    again = run_cli(*args, cwd=tmp_path)  # the cached --ignore-noqa results are not reused
    assert again.returncode == 0 and again.stdout.strip() == "[]"
    assert run_cli(*args, "--ignore-noqa", cwd=tmp_path).stdout == shown.stdout


def test_ignore_noqa_still_applies_per_file_ignores(tmp_path):
    (tmp_path / "m.py").write_text(CAPTURE.format(comment="  # noqa: JAX101"))
    r = run_cli("check", "--no-cache", "--ignore-noqa", "--per-file-ignores", "m.py:JAX101", "m.py", cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr


@pytest.mark.parametrize("nl", ["\n", "\r\n", "\r"], ids=["lf", "crlf", "cr"])
def test_one_comment_reader_numbers_lines_as_ast_does_for_noqa_and_the_rules(nl):
    from jaxlint.findings.noqa import comments
    from jaxlint.static.key_purpose import Comments

    src = nl.join(["import jax", "k = jax.random.key(0)  # Fixed key", "s = '''a", "# not a comment", "'''",
                   "# noqa: JAX114", "x = 1  # noqa", ""])
    found = comments(src)
    assert [(line, text) for line, _, text in found] == [(2, "# Fixed key"), (6, "# noqa: JAX114"), (7, "# noqa")]
    reader = Comments(src)
    assert [reader.at(i) for i in range(1, 8)] == [None, "# Fixed key", None, None, None, "# noqa: JAX114", "# noqa"]
    assert parse_suppressions(src).lines.keys() == {6, 7}
    # a file tokenize cannot read (an unclosed string) falls back to a scan of the same lines
    broken = nl.join(["x = 1  # one", "y = '''", "z = 2  # two"])
    assert [(line, text) for line, _, text in comments(broken)] == [(1, "# one"), (3, "# two")]
