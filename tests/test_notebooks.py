"""Jupyter notebooks, through the real CLI: discovered like Python files, their code cells
checked as one module in order, IPython syntax masked, findings named by cell (concise,
full, JSON), placed in the ``.ipynb`` file for SARIF (schema-valid), GitHub and GitLab,
``# noqa`` in cells, ``--fix``/``--diff``/``--add-noqa`` rewriting only the cells they
change, and bad notebooks reported while the run goes on.

The notebooks are in ``tests/data/notebooks/``. Every ``# JAX1xx`` comment in a code cell
marks a finding the static phase must report at that cell and line, and nothing else
may be reported (read here from the notebook's JSON, not through jaxlint)."""
from __future__ import annotations

import difflib
import json
import re
import shutil
from pathlib import Path

import pytest

from helpers import run_cli
from sarif_validation import validate_sarif

DATA = Path(__file__).resolve().parent / "data" / "notebooks"
_MARK = re.compile(r"#\s*(JAX1\d\d)\s*$")


def marked(nb_path: Path) -> set[tuple[int, int, str]]:
    """(cell, line, code) of every `# JAX1xx` mark in the notebook's code cells."""
    out = set()
    for number, cell in enumerate(json.loads(nb_path.read_text(encoding="utf-8"))["cells"], 1):
        src = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
        if cell["cell_type"] != "code":
            continue
        for line, text in enumerate(src.splitlines(), 1):
            m = _MARK.search(text)
            if m:
                out.add((number, line, m.group(1)))
    return out


def cell_sources(nb_path: Path) -> list[str]:
    return [c["source"] if isinstance(c["source"], str) else "".join(c["source"])
            for c in json.loads(nb_path.read_text(encoding="utf-8"))["cells"]]


@pytest.fixture
def project(tmp_path) -> Path:
    root = tmp_path / "proj"
    # observed/ and magics/ are the dynamic phase's projects (tests/test_dynamic_notebooks.py)
    shutil.copytree(DATA, root, ignore=shutil.ignore_patterns("observed", "magics"))
    # JAX104 (nursery) is the demo's rule with a fix: its notebooks are checked with it on
    (root / "pyproject.toml").write_text('[tool.jaxlint]\nextend-select = ["JAX104"]\n')
    (root / "script.py").write_text("import jax\nkey = jax.random.PRNGKey(0)\n"
                                    "a = jax.random.normal(key, (2,))\nb = jax.random.normal(key, (2,))\n")
    return root


def check(root: Path, *args: str):
    return run_cli("check", "--no-cache", *args, cwd=root)


def test_notebooks_are_discovered_in_folders_like_python_files(project):
    shown = check(project, "--show-files").stdout.split()
    assert "jax_steps.ipynb" in shown and "compact_layout.ipynb" in shown and "script.py" in shown
    assert "bad/broken_cell.ipynb" in shown


def test_include_and_exclude_decide_which_notebooks_are_checked(project):
    (project / "pyproject.toml").write_text('[tool.jaxlint]\nextend-exclude = ["*.ipynb"]\n')
    assert check(project, "--show-files").stdout.split() == ["script.py"]
    (project / "pyproject.toml").write_text('[tool.jaxlint]\ninclude = ["*.py"]\n')
    assert check(project, "--show-files").stdout.split() == ["script.py"]
    (project / "tool.pyw").write_text("import jax\n")
    (project / "pyproject.toml").write_text('[tool.jaxlint]\nextend-exclude = ["bad"]\nextend-include = ["*.pyw"]\n')
    assert check(project, "--show-files").stdout.split() == [
        "compact_layout.ipynb", "jax_steps.ipynb", "r_kernel.ipynb", "script.py", "tool.pyw"]
    # a notebook named on the command line is checked even when include leaves notebooks out
    (project / "pyproject.toml").write_text('[tool.jaxlint]\ninclude = ["*.py"]\n')
    assert "jax_steps.ipynb:cell 5:3:16: JAX101" in check(project, "jax_steps.ipynb").stdout


def test_every_marked_problem_is_reported_at_its_cell_and_line(project):
    proc = check(project, "--output-format", "json", "jax_steps.ipynb", "compact_layout.ipynb")
    assert proc.returncode == 1, proc.stderr
    got = {(d["filename"], d["cell"], d["location"]["row"], d["code"]) for d in json.loads(proc.stdout)}
    want = {(name, *m) for name in ("jax_steps.ipynb", "compact_layout.ipynb") for m in marked(project / name)}
    assert got == want and len(want) == 4


def test_concise_output_names_the_cell_as_ruff_does(project):
    out = check(project, "jax_steps.ipynb").stdout.splitlines()
    assert out[0].startswith("jax_steps.ipynb:cell 5:3:16: JAX101 traced code closes over `W`")
    assert out[1].startswith("jax_steps.ipynb:cell 6:3:23: JAX114 the same numbers: PRNG key `key` was "
                             "already consumed by "
                             "`jax.random.normal` at cell 6, line 2;")
    assert out[2].startswith("jax_steps.ipynb:cell 7:3:12: JAX104 `np.exp`")
    assert out[3] == "Found 3 findings."


def test_names_defined_in_one_cell_are_known_in_the_next(project):
    # predict (cell 5) closes over W (cell 3): found, and the related location names cell 3
    [d] = [d for d in json.loads(check(project, "--output-format", "json", "jax_steps.ipynb").stdout)
           if d["code"] == "JAX101"]
    assert d["data"]["name"] == "W" and d["data"]["bytes"] == 1024 * 1024 * 8
    [rel] = d["related"]
    assert rel["cell"] == 3 and rel["location"]["row"] == 1 and "`W` is defined here" in rel["message"]


def test_full_output_shows_the_line_of_the_cell(project):
    out = check(project, "--output-format", "full", "jax_steps.ipynb").stdout
    assert "   3 |     return x @ W  # JAX101\n     |                ^\n" in out
    assert "= related: jax_steps.ipynb:cell 3:1:" in out


def test_ipython_magics_and_shell_escapes_are_masked_not_parse_errors(project):
    # jax_steps has %matplotlib, !pip, %%time, %timeit, `files = !ls`, `np.random.randn?` and a
    # %%bash cell (not Python); text that only looks like a magic inside a string stays code
    out = check(project, "--output-format", "json", "--select", "ALL", "jax_steps.ipynb").stdout
    assert "JAX100" not in {d["code"] for d in json.loads(out)}
    src = cell_sources(project / "jax_steps.ipynb")
    assert src[5].startswith("%%time") and src[9].startswith("%%bash") and "!not a shell" in src[8]
    # the body of a %%time cell is checked (the JAX114 mark in cell 6 is found above)


def test_noqa_in_a_cell_suppresses_and_ignore_noqa_shows_it(project):
    ids = lambda proc: {(d["cell"], d["location"]["row"], d["code"]) for d in json.loads(proc.stdout)}  # noqa: E731
    plain = ids(check(project, "--output-format", "json", "jax_steps.ipynb"))
    assert (8, 3, "JAX101") not in plain  # `return x @ W  # noqa: JAX101` in cell 8
    shown = ids(check(project, "--output-format", "json", "--ignore-noqa", "jax_steps.ipynb"))
    assert shown - plain == {(8, 3, "JAX101")}


def test_json_carries_the_cell_and_the_line_in_it_and_python_files_have_cell_null(project):
    objs = json.loads(check(project, "--output-format", "json", "jax_steps.ipynb", "script.py").stdout)
    py = [o for o in objs if o["filename"] == "script.py"]
    assert py and all(o["cell"] is None for o in py)
    nb = [o for o in objs if o["filename"] == "jax_steps.ipynb"]
    assert {(o["cell"], o["location"]["row"], o["location"]["column"], o["noqa_row"]) for o in nb} == {
        (5, 3, 16, 3), (6, 3, 23, 3), (7, 3, 12, 3)}


def test_sarif_points_into_the_notebook_file_and_validates(project):
    proc = check(project, "--output-format", "sarif", "jax_steps.ipynb")
    doc = json.loads(proc.stdout)
    validate_sarif(doc)
    lines = (project / "jax_steps.ipynb").read_text(encoding="utf-8").splitlines()
    results = doc["runs"][0]["results"]
    assert len(results) == 3
    for res in results:
        loc = res["locations"][0]["physicalLocation"]
        assert loc["artifactLocation"]["uri"] == "jax_steps.ipynb"
        r = loc["region"]
        raw = lines[r["startLine"] - 1]
        # the region is the flagged code, inside the cell's source string in the JSON text
        flagged = raw[r["startColumn"] - 1:r["endColumn"] - 1]
        assert raw.lstrip().startswith('"') and flagged in {"W", "key", "np.exp(x)"}, (raw, flagged)
        props = res["properties"]
        assert (props["cell"], props["cellLine"]) in {(5, 3), (6, 3), (7, 3)}
    related = [rl for res in results for rl in res.get("relatedLocations", [])]
    assert related and all(rl["physicalLocation"]["region"]["startLine"] > 1 for rl in related)


def test_github_annotations_point_at_the_line_in_the_notebook_file(project):
    out = check(project, "--output-format", "github", "jax_steps.ipynb").stdout.splitlines()
    lines = (project / "jax_steps.ipynb").read_text(encoding="utf-8").splitlines()
    m = re.match(r"::warning file=jax_steps\.ipynb,line=(\d+),col=(\d+),endLine=\d+,endColumn=(\d+),"
                 r"title=jaxlint JAX101 \(captured-array\) at cell 5%2C line 3%2C column 16::JAX101 ", out[0])
    assert m, out[0]
    raw = lines[int(m.group(1)) - 1]
    assert raw[int(m.group(2)) - 1:int(m.group(3)) - 1] == "W" and "return x @ W" in raw


def test_gitlab_and_junit_reports_name_the_cell(project):
    gl = json.loads(check(project, "--output-format", "gitlab", "jax_steps.ipynb").stdout)
    assert any("(cell 5, line 3, column 16)" in i["description"] for i in gl)
    assert all(i["location"]["lines"]["begin"] > 3 for i in gl)  # lines of the .ipynb file
    junit = check(project, "--output-format", "junit", "jax_steps.ipynb").stdout
    assert "jax_steps.ipynb:cell 5:3:16" in junit


def _json_equal_except_sources(before: bytes, after: bytes, cells: set[int]) -> None:
    a, b = json.loads(before), json.loads(after)
    for i, (x, y) in enumerate(zip(a["cells"], b["cells"]), 1):
        if i not in cells:
            assert x == y, i
        else:
            assert {k: v for k, v in x.items() if k != "source"} == {k: v for k, v in y.items() if k != "source"}
    assert {k: v for k, v in a.items() if k != "cells"} == {k: v for k, v in b.items() if k != "cells"}


def test_fix_round_trip_changes_only_the_fixed_cell(project):
    nb = project / "jax_steps.ipynb"
    before = nb.read_bytes()
    proc = check(project, "--fix", "--unsafe-fixes", "--select", "JAX104", "jax_steps.ipynb")
    assert proc.returncode == 0 and "Fixed 1 finding." in proc.stdout, proc.stdout + proc.stderr
    after = nb.read_bytes()
    # one line of the file changed: the fixed line of cell 7, written in the same style
    changed = [(x, y) for x, y in zip(before.splitlines(), after.splitlines()) if x != y]
    assert changed == [(b'    "    return np.exp(x)  # JAX104\\n",', b'    "    return jnp.exp(x)  # JAX104\\n",')]
    assert len(before.splitlines()) == len(after.splitlines()) and after.endswith(b"}\n")
    _json_equal_except_sources(before, after, {7})
    # the fixed notebook is clean for that rule, and the other findings keep their cells
    assert check(project, "--select", "JAX104", "jax_steps.ipynb").returncode == 0
    assert "jax_steps.ipynb:cell 6:3:23: JAX114" in check(project, "jax_steps.ipynb").stdout


def test_a_fix_keeps_another_tool_s_layout_escapes_and_missing_final_newline(project):
    nb = project / "compact_layout.ipynb"
    before = nb.read_bytes()
    proc = check(project, "--fix", "--unsafe-fixes", "compact_layout.ipynb")
    assert "Fixed 1 finding." in proc.stdout, proc.stdout + proc.stderr
    after = nb.read_bytes()
    assert after.isascii() and not after.endswith(b"\n") and b"\\u00e9" in after
    ops = [op for op in difflib.SequenceMatcher(None, before, after, autojunk=False).get_opcodes() if op[0] != "equal"]
    # `np.exp` became `jnp.exp` in cell 3, and the numpy import left unused in cell 2 went
    assert [after[j1:j2] for _, _, _, j1, j2 in ops if j2 > j1] == [b"j"]
    assert [before[i1:i2] for _, i1, i2, _, _ in ops if i2 > i1] == [b"import numpy as np\\n"]
    _json_equal_except_sources(before, after, {2, 3})


def test_diff_shows_each_changed_cell_and_writes_nothing(project):
    before = (project / "jax_steps.ipynb").read_bytes()
    proc = check(project, "--diff", "--unsafe-fixes", "jax_steps.ipynb")
    assert proc.returncode == 1
    assert "--- a/jax_steps.ipynb:cell 6\n+++ b/jax_steps.ipynb:cell 6\n" in proc.stdout
    assert "+key, subkey = jax.random.split(key)\n" in proc.stdout
    assert "-    return np.exp(x)  # JAX104\n+    return jnp.exp(x)  # JAX104\n" in proc.stdout
    assert (project / "jax_steps.ipynb").read_bytes() == before


def test_add_noqa_writes_into_the_cells_and_the_next_check_passes(project):
    nb = project / "jax_steps.ipynb"
    before = nb.read_bytes()
    proc = check(project, "--add-noqa", "jax_steps.ipynb")
    assert proc.returncode == 0 and "Added 3 noqa directives." in proc.stderr, proc.stderr
    assert check(project, "jax_steps.ipynb").returncode == 0
    src = cell_sources(nb)
    assert src[4].splitlines()[2] == "    return x @ W  # JAX101  # noqa: JAX101"
    assert src[5].splitlines()[0] == "%%time"  # the masked magic line is written back as it was
    _json_equal_except_sources(before, nb.read_bytes(), {5, 6, 7})


def test_bad_notebooks_each_get_a_clear_finding_and_the_run_goes_on(project):
    proc = check(project, "--output-format", "json", "bad", "script.py")
    assert proc.returncode == 1, proc.stderr
    got = {(Path(d["filename"]).name, d["cell"], d["location"]["row"], d["code"], d["message"].split(":")[0])
           for d in json.loads(proc.stdout)}
    assert got == {
        ("empty.ipynb", None, 1, "JAX100", "empty notebook"),
        ("invalid_json.ipynb", None, 6, "JAX100", "not a Jupyter notebook"),
        ("nbformat3.ipynb", None, 1, "JAX100", "nbformat 3 notebooks are not supported"),
        ("broken_cell.ipynb", 2, 1, "JAX100", "cell 2 does not parse, so it was not checked"),
        # the cells around the broken one are still checked, and the other files too
        ("broken_cell.ipynb", 3, 2, "JAX114", "the same numbers"),
        ("script.py", None, 4, "JAX114", "the same numbers"),
    }
    assert "syntax error: '(' was never closed" in proc.stdout


def test_a_fix_next_to_a_cell_that_does_not_parse_leaves_that_cell_alone(project):
    nb = project / "bad" / "broken_cell.ipynb"
    before = cell_sources(nb)
    proc = check(project, "--fix", "--unsafe-fixes", "bad/broken_cell.ipynb")
    assert "Fixed 1 finding." in proc.stdout and "cell 2:1:6: JAX100" in proc.stdout, proc.stdout + proc.stderr
    after = cell_sources(nb)
    assert after[1] == before[1] and after[0] == before[0] and after[2] != before[2]


def test_a_notebook_of_another_language_is_not_checked(project):
    proc = check(project, "r_kernel.ipynb")
    assert proc.returncode == 0 and "All checks passed!" in proc.stdout


def test_a_notebook_read_from_stdin_is_checked_and_fixed(project):
    text = (project / "jax_steps.ipynb").read_text(encoding="utf-8")
    proc = run_cli("check", "--no-cache", "--stdin-filename", "jax_steps.ipynb", "-", cwd=project, input=text)
    assert "jax_steps.ipynb:cell 7:3:12: JAX104" in proc.stdout
    proc = run_cli("check", "--no-cache", "--fix", "--unsafe-fixes", "--select", "JAX104",
                   "--stdin-filename", "jax_steps.ipynb", "-", cwd=project, input=text)
    fixed = json.loads(proc.stdout)
    assert "jnp.exp(x)" in "".join(fixed["cells"][6]["source"]) and (project / "jax_steps.ipynb").read_text() == text


def test_cached_results_name_the_same_cells(project):
    first = run_cli("check", "jax_steps.ipynb", cwd=project).stdout
    assert run_cli("check", "jax_steps.ipynb", cwd=project).stdout == first
    assert "jax_steps.ipynb:cell 5:3:16: JAX101" in first
