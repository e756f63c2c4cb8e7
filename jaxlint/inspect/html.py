"""Self-contained HTML pages (no network assets): one function (``jaxlint inspect
--format html``) and a whole run (``jaxlint check --dynamic --report``)."""
from __future__ import annotations

import html
from typing import Iterable

from jaxlint.textutil import human_bytes
from jaxlint.inspect.view import STAGES, View, count_text, weight

CSS = """
:root { --bg:#fff; --fg:#1d2330; --dim:#6b7280; --line:#e5e7eb; --hot:255,99,71; --accent:#2563eb;
        --warn:#b45309; --err:#b91c1c; --code:#f8fafc; }
* { box-sizing: border-box; }
body { margin:0; font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif; color:var(--fg); background:var(--bg); }
header { padding:14px 20px; border-bottom:1px solid var(--line); background:#f3f4f6; }
header h1 { margin:0 0 4px; font-size:19px; }
header h1 code { font-size:19px; }
.meta { color:var(--dim); font-size:13px; }
.badges span { display:inline-block; margin:6px 6px 0 0; padding:2px 8px; border-radius:10px; background:#e0e7ff;
               font-size:12px; }
main { padding:14px 20px; }
h2 { font-size:15px; margin:22px 0 8px; }
code, pre, .src, .ir { font-family: ui-monospace,SFMono-Regular,Menlo,Consolas,monospace; font-size:12.5px; }
.findings { list-style:none; padding:0; margin:0; }
.findings li { border-left:4px solid var(--warn); background:#fffbeb; padding:6px 10px; margin:0 0 6px; }
.findings li.error { border-color:var(--err); background:#fef2f2; }
.findings b { margin-right:6px; }
.tabs button { font:inherit; padding:5px 12px; border:1px solid var(--line); background:#fff; cursor:pointer;
               border-radius:6px 6px 0 0; margin-right:2px; }
.tabs button[aria-selected="true"] { background:var(--accent); color:#fff; border-color:var(--accent); }
/* the row has a height of its own and each pane scrolls inside it: a long program
   never spills over the sections below */
.stage { display:grid; grid-template-columns:minmax(280px,38%) minmax(0,1fr); grid-template-rows:minmax(0,1fr);
         gap:0; border:1px solid var(--line); height:72vh; }
.stage[hidden] { display:none; }
.pane { overflow:auto; min-height:0; min-width:0; }
.pane + .pane { border-left:1px solid var(--line); }
.src div, .ir div { white-space:pre; padding:0 8px 0 0; min-height:1.45em; }
.src div { cursor:pointer; }
.src .no, .ir .no { display:inline-block; width:4.5em; padding-right:8px; text-align:right; color:var(--dim);
                    user-select:none; border-right:1px solid var(--line); margin-right:8px; }
.ir .no.other { color:#9ca3af; font-size:11px; }
.src div.sel, .ir div.sel { outline:2px solid var(--accent); outline-offset:-2px; }
.ir .kernel { font-weight:600; }
.ir .bytes { display:inline-block; width:5.5em; text-align:right; color:#9a3412; margin-right:10px;
             font-weight:400; user-select:none; }
.src div[data-hot="1"] .no { color:#b91c1c; font-weight:700; }
table { border-collapse:collapse; font-size:13px; }
th, td { border-bottom:1px solid var(--line); padding:4px 10px; text-align:right; }
th { background:#f9fafb; cursor:pointer; user-select:none; }
td.l, th.l { text-align:left; }
.grid2 { display:flex; gap:32px; flex-wrap:wrap; align-items:flex-start; }
.note { color:var(--warn); }
td.reason { max-width:36em; white-space:normal; color:var(--dim); }
"""

INSPECT_JS = """
(function(){
  var tabs = document.querySelectorAll('.tabs button');
  tabs.forEach(function(b){ b.addEventListener('click', function(){
    tabs.forEach(function(x){ x.setAttribute('aria-selected', x===b ? 'true':'false'); });
    document.querySelectorAll('.stage').forEach(function(s){ s.hidden = s.id !== b.dataset.stage; });
  }); });
  // the costliest source line of each stage view
  document.querySelectorAll('.src').forEach(function(src){
    var best = null, bw = 0;
    src.querySelectorAll('div[data-w]').forEach(function(d){
      var w = parseFloat(d.dataset.w); if (w > bw) { bw = w; best = d; } });
    if (best) best.setAttribute('data-hot', '1');
  });
  // open on the function: its source at the top of the source pane (a few lines of
  // context above), the program at its start (the ENTRY computation of optimized HLO,
  // not the first fused computation the text happens to list)
  function opening(stage){
    var src = stage.querySelector('.src'), ir = stage.querySelector('.ir');
    var fn = src.querySelector('div[data-line="' + src.dataset.open + '"]');
    if (fn) src.scrollTop = Math.max(0, fn.offsetTop - src.offsetTop - 3 * fn.offsetHeight);
    var start = ir.querySelector('div[data-start]');
    if (start) ir.scrollTop = start.offsetTop - ir.offsetTop;
    stage.dataset.opened = '1';
  }
  document.querySelectorAll('.stage:not([hidden])').forEach(opening);
  tabs.forEach(function(b){ b.addEventListener('click', function(){
    var s = document.getElementById(b.dataset.stage);
    if (s && !s.dataset.opened) opening(s);
  }); });
  // click a source line: select its rows in the program beside it
  document.querySelectorAll('.stage').forEach(function(stage){
    stage.querySelectorAll('.src div').forEach(function(d){ d.addEventListener('click', function(){
      stage.querySelectorAll('.sel').forEach(function(x){ x.classList.remove('sel'); });
      d.classList.add('sel');
      var first = null;
      stage.querySelectorAll('.ir div[data-line="' + d.dataset.line + '"]').forEach(function(r){
        r.classList.add('sel'); if (!first) first = r; });
      if (first) first.scrollIntoView({block:'nearest'});
    }); });
  });
})();
"""

SORT_JS = """
(function(){
  document.querySelectorAll('table.sortable th').forEach(function(th, i){
    th.addEventListener('click', function(){
      var tb = th.closest('table').tBodies[0], rows = Array.prototype.slice.call(tb.rows);
      var asc = th.dataset.asc !== '1'; th.dataset.asc = asc ? '1' : '0';
      rows.sort(function(a, b){
        var x = a.cells[i].dataset.v || a.cells[i].textContent, y = b.cells[i].dataset.v || b.cells[i].textContent;
        var nx = parseFloat(x), ny = parseFloat(y);
        var c = (!isNaN(nx) && !isNaN(ny)) ? nx - ny : x.localeCompare(y);
        return asc ? c : -c; });
      rows.forEach(function(r){ tb.appendChild(r); });
    });
  });
})();
"""


def _e(s: object) -> str:
    return html.escape(str(s), quote=True)


def _page(title: str, body: str, script: str) -> str:
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{_e(title)}</title><style>{CSS}</style></head>\n<body>\n{body}\n"
            f"<script>{script}</script>\n</body></html>\n")


def _findings(diags: Iterable, empty: str = "No compile-tier findings.") -> str:
    items = []
    for d in diags:
        cls = "error" if d.severity.value == "error" else ""
        items.append(f'<li class="{cls}"><b>{_e(d.code)}</b><code>{_e(d.path)}:{d.start.line}</code> '
                     f'{_e(d.message)}</li>')
    return f'<ul class="findings">{"".join(items)}</ul>' if items else f"<p>{_e(empty)}</p>"


def _source_range(view: View) -> range:
    """The lines worth showing: the whole file when short, else around the function."""
    n = len(view.source)
    if n <= 400:
        return range(1, n + 1)
    lines = list(view.lines) + ([view.def_line] if view.def_line else []) or [1]
    lo, hi = max(1, min(lines) - 15), min(n, max(lines) + 5)
    return range(lo, hi + 1)


def _source_pane(view: View, stage: str) -> str:
    shown = {r.line for r in view.stages.get(stage, ()) if r.line}
    weights = {ln: weight(st) for ln, st in view.lines.items() if ln in shown}
    top = max(weights.values(), default=0) or 1
    out = []
    for ln in _source_range(view):
        text = view.source[ln - 1] if ln <= len(view.source) else ""
        w = weights.get(ln)
        attrs = f' data-line="{ln}"'
        if w:
            alpha = 0.08 + 0.40 * (w / top)
            st = view.lines[ln]
            tip = f"{st.equations} equations, {st.instructions} HLO instructions, {st.kernels} kernels"
            if st.bytes:
                tip += f", {human_bytes(st.bytes)} written"
            attrs += f' data-w="{w:g}" style="background:rgba(var(--hot),{alpha:.2f})" title="{_e(tip)}"'
        out.append(f'<div{attrs}><span class="no">{ln}</span>{_e(text)}</div>')
    return f'<div class="pane src" data-open="{view.def_line or view.first_line}">{"".join(out)}</div>'


def _program_start(rows) -> int:
    """The row a program pane opens at: optimized HLO's ENTRY computation, StableHLO's
    public ``main``; the first row otherwise (a jaxpr starts with the function)."""
    for i, r in enumerate(rows):
        t = r.text.lstrip()
        if t.startswith("ENTRY ") or ("func.func public @main" in t):
            return i
    return 0


def _ir_pane(view: View, stage: str) -> str:
    out = []
    rows = view.stages.get(stage, ())
    start = _program_start(rows)
    for i, r in enumerate(rows):
        if r.line:
            gutter, attrs = f'<span class="no">{r.line}</span>', f' data-line="{r.line}"'
        elif r.where:
            gutter, attrs = f'<span class="no other">{_e(r.where)}</span>', ""
        else:
            gutter, attrs = '<span class="no"></span>', ""
        cls = ' class="kernel"' if r.kind in ("fusion", "kernel", "custom-call") else ""
        size = human_bytes(r.bytes) if r.bytes and r.kind else ""
        if i == start:
            attrs += " data-start"
        out.append(f'<div{attrs}{cls}>{gutter}<span class="bytes">{size}</span>{_e(r.text)}</div>')
    return f'<div class="pane ir">{"".join(out)}</div>'


def render_inspect(view: View) -> str:
    titles = {"jaxpr": "jaxpr", "stablehlo": "StableHLO", "hlo": "optimized HLO"}
    present = [s for s in STAGES if view.stages.get(s)]
    default = "hlo" if "hlo" in present else present[0]
    tabs = "".join(f'<button data-stage="stage-{s}" aria-selected="{"true" if s == default else "false"}">'
                   f'{titles[s]}</button>' for s in present)
    stages = "".join(f'<section class="stage" id="stage-{s}"{"" if s == default else " hidden"}>'
                     f'{_source_pane(view, s)}{_ir_pane(view, s)}</section>' for s in present)
    badges = "".join(f"<span>{_e(k)}: {_e(v)}</span>" for k, v in view.summary_pairs()
                     if k in ("backend", "versions", "compile time", "flops", "temp memory"))
    skipped = f'<p class="note">{_e(view.skipped)}</p>' if view.skipped else ""
    body = (
        f"<header><h1><code>{_e(view.function)}</code> in {_e(view.display)}</h1>"
        f'<div class="meta">inputs: {_e(view.inputs)} · jaxlint inspect</div><div class="badges">{badges}</div>'
        f"</header><main>{skipped}<h2>Findings</h2>{_findings(view.findings)}"
        f'<h2>Program, stage by stage</h2><p class="meta">Source lines are shaded by what XLA makes of them '
        f"(bytes their kernels write, else instruction count); click a line to select its instructions.</p>"
        f'<div class="tabs">{tabs}</div>{stages}'
        f'<div class="grid2"><div><h2>Per source line</h2>{_line_table(view)}</div>'
        f"<div><h2>Cost and memory</h2>{_pairs_table(view)}</div>"
        f"<div><h2>Constants</h2>{_constants_table(view)}</div></div></main>"
    )
    return _page(f"jaxlint inspect {view.function}", body, INSPECT_JS + SORT_JS)


def _line_table(view: View) -> str:
    from jaxlint.inspect.view import source_snippet

    rows = []
    for ln in sorted(view.lines):
        s = view.lines[ln]
        rows.append(f'<tr><td>{ln}</td><td>{s.equations}</td><td>{s.ops}</td><td>{s.instructions}</td>'
                    f'<td>{s.kernels}</td><td>{s.fusions}</td><td data-v="{s.bytes}">'
                    f'{human_bytes(s.bytes) if s.bytes else "-"}</td>'
                    f'<td class="l"><code>{_e(source_snippet(view, ln)[:70])}</code></td></tr>')
    head = ("<tr><th>line</th><th>equations</th><th>StableHLO ops</th><th>HLO instr.</th><th>kernels</th>"
            "<th>fusions</th><th>bytes</th><th class=\"l\">source</th></tr>")
    return f'<table class="sortable"><thead>{head}</thead><tbody>{"".join(rows)}</tbody></table>'


def _pairs_table(view: View) -> str:
    rows = "".join(f'<tr><td class="l">{_e(k)}</td><td class="l">{_e(v)}</td></tr>' for k, v in view.summary_pairs())
    return f"<table><tbody>{rows}</tbody></table>" if rows else "<p>Not compiled.</p>"


def _constants_table(view: View) -> str:
    if not view.constants:
        return "<p>None.</p>"
    rows = "".join(
        f'<tr><td class="l">{_e(c["stage"])}</td><td class="l">{_e(c["name"] or "?")}</td>'
        f'<td class="l">[{_e(",".join(map(str, c["shape"])))}]</td><td class="l">{_e(c["dtype"])}</td>'
        f'<td data-v="{c["bytes"]}">{human_bytes(c["bytes"])}</td><td>{c["line"] or "-"}</td></tr>'
        for c in sorted(view.constants, key=lambda c: -c["bytes"]))
    head = ('<tr><th class="l">stage</th><th class="l">name</th><th class="l">shape</th><th class="l">dtype</th>'
            "<th>bytes</th><th>line</th></tr>")
    return f'<table class="sortable"><thead>{head}</thead><tbody>{rows}</tbody></table>'


# ---------------------------------------------------------------------------- a whole run
RUN_COLUMNS = ("file", "function", "status", "reason", "equations", "constants", "compile s", "flops",
               "temp memory", "collectives", "findings")


def render_run(rows: list[dict], diagnostics: list, title: str = "jaxlint dynamic report") -> str:
    """One row per function: ``rows`` items have path, qualname, line, status, reason and
    the worker's ``report`` (equations, constant bytes, compile seconds, flops, temp bytes)."""
    by_fn: dict[tuple[str, str], list] = {}
    for d in diagnostics:
        fn = (d.data or {}).get("function")
        if fn:
            by_fn.setdefault((d.path, fn), []).append(d)
    body_rows = []
    for r in sorted(rows, key=lambda r: (r["path"], r["line"])):
        rep = r.get("report") or {}
        found = by_fn.get((r["path"], r["qualname"]), [])
        codes = ", ".join(sorted({d.code for d in found}))
        cells = [
            f'<td class="l"><code>{_e(r["path"])}:{r["line"]}</code></td>',
            f'<td class="l"><code>{_e(r["qualname"])}</code></td>',
            f'<td class="l">{_e(r["status"])}</td>',
            # why a function was skipped, failed, or not compiled: as the CLI's --show-skipped says it
            f'<td class="l reason">{_e(r.get("reason") or rep.get("compile_skipped") or "")}</td>',
            f'<td data-v="{rep.get("equations", "")}">{rep.get("equations", "-")}</td>',
            f'<td data-v="{rep.get("constant_bytes", 0)}">'
            f'{human_bytes(rep["constant_bytes"]) if rep.get("constant_bytes") else "-"}</td>',
            f'<td data-v="{rep.get("compile_seconds", "")}">'
            f'{"%.2f" % rep["compile_seconds"] if rep.get("compile_seconds") is not None else "-"}</td>',
            f'<td data-v="{rep.get("flops", "")}">{count_text(rep.get("flops"))}</td>',
            f'<td data-v="{rep.get("temp_bytes", "")}">'
            f'{human_bytes(rep["temp_bytes"]) if rep.get("temp_bytes") is not None else "-"}</td>',
            # bytes per call and per device through collectives (a program over several devices)
            f'<td data-v="{rep.get("collective_bytes", "")}">'
            f'{human_bytes(rep["collective_bytes"]) if rep.get("collective_bytes") is not None else "-"}</td>',
            f'<td class="l" data-v="{len(found)}" title="{_e(chr(10).join(d.message for d in found))}">'
            f'{len(found)}{" · " + _e(codes) if codes else ""}</td>',
        ]
        body_rows.append("<tr>" + "".join(cells) + "</tr>")
    head = "".join(f'<th class="{"l" if c in ("file", "function", "status", "reason", "findings") else ""}">{c}</th>'
                   for c in RUN_COLUMNS)
    table = (f'<table class="sortable" id="functions"><thead><tr>{head}</tr></thead>'
             f'<tbody>{"".join(body_rows)}</tbody></table>')
    # the CLI's summary words and counts (a file that could not be imported is one failure)
    counts = {k: sum(1 for r in rows if r["status"] == k) for k in ("analysed", "skipped", "failed")}
    total = len(diagnostics)
    body = (f"<header><h1>{_e(title)}</h1><div class=\"meta\" id=\"counts\">{counts['analysed']} function"
            f"{'s' if counts['analysed'] != 1 else ''} analysed, {counts['skipped']} skipped, "
            f"{counts['failed']} failed · "
            f"{total} finding{'s' if total != 1 else ''} · click a column to sort</div></header>"
            f"<main>{table}<h2>Findings</h2>{_findings(diagnostics, 'No trace or compile findings.')}</main>")
    return _page(title, body, SORT_JS)
