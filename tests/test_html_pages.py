"""The HTML pages as a reader sees them: rendered by headless Chromium, checked by the
geometry of their elements (no pane spills over the sections below, each scrolls within
its row), opened on the function, and saying what the CLI says. Real inspect and check
runs (jax traces and compiles)."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest

from helpers import run_cli

pytest.importorskip("jax")
BROWSER = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(BROWSER is None, reason="headless Chromium is not installed "
                                                       "(apt-get install -y --no-install-recommends chromium)")

LICENCE = "".join(f"# Copyright {i}: a licence header nobody opens the page to read.\n" for i in range(60))
MODEL = LICENCE + textwrap.dedent(
    """
    import jax
    import jax.numpy as jnp
    import numpy as np

    W = np.random.randn(256, 256).astype(np.float32)


    def helper(x):
        return jnp.tanh(x) * 2.0


    @jax.jit  # jaxlint: args=(f32[64,256],)
    def step(x):
        for i in range(40):
            x = helper(x @ W) + i
        y = jnp.take(x, jnp.array([0, 1]), axis=0)
        return x.sum() + y.sum()
    """
)

# measured in the page after its own scripts ran; written into the DOM for --dump-dom
PROBE = """
<script>
(function(){
  function box(e){ var r = e.getBoundingClientRect(); return {top: r.top, bottom: r.bottom, left: r.left,
                                                              right: r.right}; }
  function measure(stage){
    var src = stage.querySelector('.src'), ir = stage.querySelector('.ir');
    var fn = src.querySelector('div[data-line="' + src.dataset.open + '"]');
    var start = ir.querySelector('div[data-start]');
    var lines = {};
    ir.querySelectorAll('div[data-line]').forEach(function(d){ lines[d.dataset.line] = (lines[d.dataset.line] || 0) + 1; });
    return {id: stage.id, stage: box(stage), src: box(src), ir: box(ir), after: box(document.querySelector('.grid2')),
            ir_scrolls: ir.scrollHeight > ir.clientHeight + 1, src_scroll: src.scrollTop, ir_scroll: ir.scrollTop,
            fn_top: fn ? fn.offsetTop - src.offsetTop : null, src_height: src.clientHeight,
            start_top: start ? start.offsetTop - ir.offsetTop : null, open: src.dataset.open, start_text: start ? start.textContent : null,
            rows_by_line: lines};
  }
  var out = [];
  document.querySelectorAll('.tabs button').forEach(function(b){
    b.click(); out.push(measure(document.getElementById(b.dataset.stage)));
  });
  var pre = document.createElement('pre'); pre.id = 'geometry'; pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>
"""


def render(page: Path, width: int = 1300, height: int = 900) -> str:
    probe = page.with_name("probe-" + page.name)
    probe.write_text(page.read_text().replace("</body>", PROBE + "</body>"))
    dom = subprocess.run([BROWSER, "--headless", "--no-sandbox", "--disable-gpu", f"--window-size={width},{height}",
                          "--dump-dom", probe.as_uri()], capture_output=True, text=True, timeout=600)
    assert dom.returncode == 0, dom.stderr[-2000:]
    return dom.stdout


@pytest.fixture(scope="module")
def inspected(tmp_path_factory):
    root = tmp_path_factory.mktemp("inspect")
    (root / "model.py").write_text(MODEL)
    page = root / "step.html"
    r = run_cli("inspect", "model.py::step", "--format", "html", "-o", str(page), "--no-cache", cwd=root,
                timeout=300)
    assert r.returncode == 0, r.stderr
    text = run_cli("inspect", "model.py::step", "--stage", "jaxpr", "--no-cache", cwd=root, timeout=300).stdout
    dom = render(page)
    geometry = json.loads(re.search(r'<pre id="geometry">(.*?)</pre>', dom, re.S).group(1)
                          .replace("&quot;", '"').replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">"))
    return {g["id"]: g for g in geometry}, text, MODEL.splitlines()


def test_each_program_pane_scrolls_within_its_row_and_nothing_spills_below(inspected):
    geometry, _, _ = inspected
    assert set(geometry) == {"stage-jaxpr", "stage-stablehlo", "stage-hlo"}
    for g in geometry.values():
        for pane in ("src", "ir"):
            assert g[pane]["bottom"] <= g["stage"]["bottom"] + 1, (g["id"], pane, g)
        assert g["src"]["right"] <= g["ir"]["left"] + 1  # side by side, not on top of each other
        assert g["after"]["top"] >= g["stage"]["bottom"] - 1, g  # the tables below start below
        assert g["ir_scrolls"], g["id"]  # 40 unrolled iterations: longer than the pane, so it scrolls


def test_the_page_opens_on_the_function_not_the_licence_header(inspected):
    geometry, _, source = inspected
    def_line = next(i + 1 for i, line in enumerate(source) if line.startswith("def step"))
    for g in geometry.values():
        # the def line is in the visible part of the source pane
        assert g["src_scroll"] <= g["fn_top"] < g["src_scroll"] + g["src_height"], g
        assert g["src_scroll"] > 0  # scrolled past the licence
    hlo = geometry["stage-hlo"]
    assert hlo["start_text"].strip().startswith("ENTRY") and abs(hlo["ir_scroll"] - hlo["start_top"]) <= 1, hlo
    assert "@main" in geometry["stage-stablehlo"]["start_text"]
    assert {g["open"] for g in geometry.values()} == {str(def_line)}


def test_the_jaxpr_gutter_and_the_per_line_table_count_the_same_equations(inspected):
    geometry, text, source = inspected
    gutter = {int(k): v for k, v in geometry["stage-jaxpr"]["rows_by_line"].items()}
    table = {}
    for row in text.split("== per source line ==", 1)[1].split("\n\n", 1)[0].splitlines()[2:]:
        cells = row.split()
        if cells and cells[0].isdigit() and int(cells[1]) > 0:
            table[int(cells[0])] = int(cells[1])
    assert gutter == table, (gutter, table)
    loop = next(i + 1 for i, line in enumerate(source) if "x = helper(x @ W) + i" in line)
    take = next(i + 1 for i, line in enumerate(source) if "jnp.take" in line)
    assert gutter[loop] >= 40 and gutter[take] >= 2  # jnp.take's own helper counts at the call
    rows = [r for r in text.split("== jaxpr", 1)[1].split("== per source line", 1)[0].splitlines()[2:]
            if " = " in r or re.search(r"\|\s+\w+(\[.*\])? \w", r)]
    assert all(r.split("|", 1)[0].strip() for r in rows if " = " in r), "an equation without a line"


RUN_PROJECT = {
    "ok.py": "import jax\n\n\n@jax.jit  # jaxlint: args=(f32[8],)\ndef ok(x):\n    return x * 2\n\n\n"
             "@jax.jit\ndef no_inputs(x):\n    return x + 1\n",
    "broken.py": "import jax\nraise RuntimeError('no import for you')\n\n\n@jax.jit  # jaxlint: args=(f32[8],)\n"
                 "def f(x):\n    return x\n",
}


def test_the_run_page_counts_as_the_cli_does_and_says_why_functions_were_skipped(tmp_path):
    for name, text in RUN_PROJECT.items():
        (tmp_path / name).write_text(text)
    r = run_cli("check", "--no-cache", "--dynamic", "--compile", "--report", "run.html", "ok.py", "broken.py",
                cwd=tmp_path, timeout=300)
    summary = next(line for line in r.stdout.splitlines() if line.startswith("Dynamic phase"))
    counts = re.search(r"(\d+) functions? analysed, (\d+) skipped, (\d+) failed", summary).groups()
    dom = render(tmp_path / "run.html")
    head = re.search(r'id="counts">([^<]*)<', dom).group(1)
    assert re.search(r"(\d+) functions? analysed, (\d+) skipped, (\d+) failed", head).groups() == counts, (head, summary)
    assert counts == ("1", "1", "1")
    table = dom.split('id="functions"', 1)[1].split("</table>", 1)[0]
    rows = [row for row in re.findall(r"<tr>(.*?)</tr>", table, re.S) if "<td" in row]
    by_fn = {re.findall(r"<code>([^<]*)</code>", row)[1]: row for row in rows}
    assert "no inputs" in by_fn["no_inputs"]  # the reason, on the page, not in a tooltip
    assert "no import for you" in by_fn["(module)"] and "failed" in by_fn["(module)"]
