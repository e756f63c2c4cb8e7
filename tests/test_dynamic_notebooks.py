"""The dynamic phase for notebooks: `jaxlint record -- jupyter execute nb.ipynb` (or a
script running it with nbclient) analyses the jitted functions the kernel runs, and
`jaxlint check --dynamic` reports them at the cell and line they came from.

The notebook, `tests/data/notebooks/observed/train.ipynb`, holds only functions no
import could reach: a closure made by a factory in one cell and called in another, a
lambda over an array from an earlier cell, a function whose last batch is ragged. Every
`# JAX2xx` comment in a cell marks a line the dynamic phase must report, and nothing
else of that tier fires. Real kernels (ipykernel), real jax."""
from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import sys
from pathlib import Path

import pytest

from helpers import run_cli

for _module in ("nbclient", "ipykernel"):
    if importlib.util.find_spec(_module) is None:  # pragma: no cover - the test extra installs both
        pytest.skip(f"{_module} is not installed (pip install 'jaxlint[test]'): no kernel to record",
                    allow_module_level=True)
if not (Path(sys.executable).parent / "jupyter").is_file():  # pragma: no cover
    pytest.skip("no `jupyter` command beside this interpreter (nbclient installs `jupyter execute`)",
                allow_module_level=True)

DATA = Path(__file__).resolve().parent / "data" / "notebooks" / "observed"
_MARK = re.compile(r"#\s*((?:JAX[23]\d\d\s*)+)$")


def marked(nb: Path) -> set[tuple[int, int, str]]:
    out = set()
    for number, cell in enumerate(json.loads(nb.read_text(encoding="utf-8"))["cells"], 1):
        if cell["cell_type"] != "code":
            continue
        for line, text in enumerate("".join(cell["source"]).splitlines(), 1):
            m = _MARK.search(text)
            if m:
                out |= {(number, line, c) for c in m.group(1).split()}
    return out


def dynamic_findings(root: Path, *args: str) -> set[tuple[int, int, str]]:
    proc = run_cli("check", "--dynamic", "--no-cache", "--output-format", "json", *args, "train.ipynb", cwd=root,
                   timeout=600)
    assert proc.returncode in (0, 1), proc.stderr
    return {(d["cell"], d["location"]["row"], d["code"]) for d in json.loads(proc.stdout)
            if d["code"][:4] in ("JAX2", "JAX3")}


@pytest.fixture(scope="module")
def recorded(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("nb") / "proj"
    shutil.copytree(DATA, root)
    proc = run_cli("record", "--", "jupyter", "execute", "train.ipynb", cwd=root, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert "5 jitted functions called: 5 traced" in proc.stderr, proc.stderr
    return root


def test_every_planted_problem_is_reported_at_its_cell_and_line(recorded):
    want = marked(recorded / "train.ipynb")
    assert len(want) == 6
    assert dynamic_findings(recorded) == want


def test_concise_output_names_the_cell_of_each_observed_finding(recorded):
    out = run_cli("check", "--dynamic", "--no-cache", "train.ipynb", cwd=recorded, timeout=600).stdout
    assert "train.ipynb:cell 4:4:9: JAX202 Python loop unrolled at trace time: 24 iterations" in out
    # (the column of the constant's use in the line differs between jax versions)
    assert re.search(r"^train\.ipynb:cell 7:1:\d+: JAX201 captured array `TABLE` \(float32\[512,1024\], 2\.0 MiB\)",
                     out, re.M), out
    assert "observed by `jaxlint record` in the running program: 5 jitted functions called: 5 traced" in out
    # the earlier definition of `lookup` is no name after the notebook ran: the recording alone has it
    assert "1 function analysed in the recording only (not reachable by import" in out, out


def test_observations_are_keyed_to_the_notebook_and_its_code(recorded):
    functions = json.loads((recorded / ".jaxlint" / "observed.json").read_text())["functions"]
    first = next(k for k in functions if k.startswith("train:lookup@"))
    assert set(functions) == {"train:make_step.<locals>.step", "train:normalize", "train:<lambda>@30",
                              "train:lookup", first}
    for e in functions.values():
        assert e["file"] == "train.ipynb" and set(e["code"]) == {"train.ipynb"}
        assert e["first_call"].startswith("train.ipynb:")
        assert all(d["filename"] == "train.ipynb" for d in e["diagnostics"])
    # recorded signatures name the notebook too (no kernel temp file leaks into them)
    sigs = json.loads((recorded / ".jaxlint" / "signatures.json").read_text())["functions"]
    assert {e["file"] for e in sigs.values()} == {"train.ipynb"} and len(sigs) == 5
    assert "ipykernel_" not in json.dumps(functions)  # no kernel cell file (/tmp/ipykernel_<pid>/...)


def test_a_function_defined_again_in_a_later_cell_has_its_own_baseline_entry(recorded, tmp_path):
    # two cells define `lookup` with the same line reading the table: two findings, two
    # baseline entries (the earlier definition keyed `lookup@LINE`, the last one as before)
    functions = json.loads((recorded / ".jaxlint" / "observed.json").read_text())["functions"]
    first = next(k for k in functions if k.startswith("train:lookup@"))
    [early] = functions[first]["diagnostics"]
    [last] = functions["train:lookup"]["diagnostics"]
    assert last["signature"].startswith("lookup:") and early["signature"].startswith(first.split(":", 1)[1] + ":")
    baseline = tmp_path / "baseline.json"
    proc = run_cli("check", "--dynamic", "--no-cache", "--write-baseline", str(baseline), "train.ipynb",
                   cwd=recorded, timeout=600)
    assert proc.returncode == 0, proc.stderr
    entries = json.loads(baseline.read_text())["findings"]
    assert len([e for e in entries if "lookup" in json.dumps(e)]) == 2, entries
    proc = run_cli("check", "--dynamic", "--no-cache", "--baseline", str(baseline), "--output-format", "json",
                   "train.ipynb", cwd=recorded, timeout=600)
    assert proc.returncode == 0 and json.loads(proc.stdout) == [], proc.stdout


def test_saved_outputs_keep_the_observations_and_edited_code_makes_them_out_of_date(recorded, tmp_path):
    root = tmp_path / "proj"
    shutil.copytree(recorded, root)
    nb_path = root / "train.ipynb"
    nb = json.loads(nb_path.read_text())
    for i, cell in enumerate(nb["cells"]):  # as if run and saved in Jupyter: counts and outputs change
        if cell["cell_type"] == "code":
            cell["execution_count"] = i + 10
            cell["outputs"] = [{"output_type": "stream", "name": "stdout", "text": ["ran\n"]}]
    nb["cells"].insert(1, {"cell_type": "markdown", "id": "new", "metadata": {}, "source": ["A new note."]})
    nb_path.write_text(json.dumps(nb, indent=1))
    # a markdown cell moved every code cell one down: the findings follow
    assert dynamic_findings(root) == {(c + 1, line, code) for c, line, code in marked(recorded / "train.ipynb")}
    nb["cells"][4]["source"] = ["def make_step(scale):\n", "    return jax.jit(lambda x: x * scale)\n",
                                "\n", "step = make_step(0.5)"]
    nb_path.write_text(json.dumps(nb, indent=1))
    out = run_cli("check", "--dynamic", "--no-cache", "train.ipynb", cwd=root, timeout=600).stdout
    assert "out of date since `jaxlint record`; run it again:" in out and "JAX2" not in out, out
    assert "(changed: train.ipynb: its code cells)" in out, out


def test_a_notebook_is_never_imported_and_unrecorded_functions_say_how_to_cover_them(tmp_path):
    root = tmp_path / "proj"
    shutil.copytree(DATA, root)
    # JAX102 named: the cell's 24-step loop is in the pedantic kind, off by default
    proc = run_cli("check", "--dynamic", "--no-cache", "--show-skipped", "--extend-select", "JAX102", "train.ipynb",
                   cwd=root, timeout=600)
    assert "JAX2" not in proc.stdout and not proc.stderr, proc.stdout + proc.stderr
    # the static findings are there, and each jitted function says why it was not traced, at its cell
    assert "train.ipynb:cell 4:4:9: JAX102" in proc.stdout
    assert ("skipped train.ipynb:cell 6:1 normalize: a notebook cannot be imported; run it under "
            "`jaxlint record -- jupyter execute train.ipynb`") in proc.stdout


def test_a_notebook_run_by_a_script_with_nbclient_is_recorded_too(tmp_path):
    root = tmp_path / "proj"
    shutil.copytree(DATA, root)
    proc = run_cli("record", "--", "python", "run_with_nbclient.py", cwd=root, timeout=600)
    assert proc.returncode == 0 and "executed 7 code cells" in proc.stdout, proc.stdout + proc.stderr
    assert dynamic_findings(root) == marked(root / "train.ipynb")


def test_each_timed_cell_is_placed_in_its_own_cell(tmp_path):
    # IPython compiles a one-line magic cell (`%time f(x, x)...`) to one line of
    # `get_ipython()` code, and a whole `%%time` cell too: matched by what IPython made of
    # each cell (not by a masked line taken to match any line), the eager indexing between
    # the calls of `f` in the `%%time` cell (cell 5) and the ragged batch of the `%time`
    # line (cell 7) are reported in their own cells, not at the first one-line magic (cell 3);
    # a cell with a `%time` line and a loop that compiles an eager `while_loop` again each
    # time (cell 8) has its JAX212 at the loop's line
    root = tmp_path / "proj"
    shutil.copytree(DATA.parent / "magics", root)
    # and a library beside the project that jits its own step anew for each fit, called
    # from a last cell: the summary names that cell's line as the one that made its jits
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "fitlib.py").write_text(
        "import jax\nimport jax.numpy as jnp\n\n\ndef fit(x):\n    step = jax.jit(lambda w: w - jnp.mean(x * w))\n"
        "    return step(step(jnp.ones(())))\n")
    nb = json.loads((root / "timed.ipynb").read_text())
    nb["cells"].append({"cell_type": "code", "id": "lib", "metadata": {}, "execution_count": None, "outputs": [],
                        "source": ["import fitlib\n", "\n", "for n in (8, 9):\n", "    fitlib.fit(jnp.ones(n))"]})
    (root / "timed.ipynb").write_text(json.dumps(nb))
    env = {"PYTHONPATH": os.pathsep.join(filter(None, [str(tmp_path / "lib"), os.environ.get("PYTHONPATH")]))}
    proc = run_cli("record", "--compile", "--", "jupyter", "execute", "timed.ipynb", cwd=root, env=env, timeout=600)
    assert proc.returncode == 0 and "2 jitted functions called: 2 traced, 2 compiled" in proc.stderr, proc.stderr
    assert "fitlib:fit.<locals>.<lambda> (2 jits, all made by the call at timed.ipynb:cell 9:4)" in proc.stderr, \
        proc.stderr
    proc = run_cli("check", "--dynamic", "--no-cache", "--select", "JAX208,JAX212,JAX213", "--output-format", "json",
                   "timed.ipynb", cwd=root, timeout=600)
    found = {(d["cell"], d["location"]["row"], d["code"]) for d in json.loads(proc.stdout)}
    # code under `%%time` runs as IPython's `<timed exec>`, no file of the notebook: its work is
    # the magic's line's, line 1 of its cell
    assert found == {(5, 1, "JAX213"), (7, 1, "JAX208"), (8, 4, "JAX212")}, proc.stdout
    from jaxlint.files import notebook

    cells = notebook.load((root / "timed.ipynb").read_bytes()).module().map
    functions = json.loads((root / ".jaxlint" / "observed.json").read_text())["functions"]
    first_calls = {k: [cells.locate(s["first_call"]["line"], 1)[:2] for s in e["signatures"]]
                   for k, e in functions.items()}
    assert first_calls == {"timed:f": [(3, 1), (5, 1)], "timed:normalize": [(7, 1), (7, 1)]}, first_calls
    # the compile tier's largest buffers (JAX306's related locations) are in the notebook too
    largest = functions["timed:normalize"]["report"]["budget"]["largest"]
    assert {(cells.locate(i["line"], 1)[:2], i["file"]) for i in largest if i["file"]} == \
        {((6, 3), str((root / "timed.ipynb").resolve()))}, largest
    assert "ipykernel_" not in json.dumps(functions)
