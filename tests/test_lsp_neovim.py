"""A real editor: Neovim, headless, with its built-in LSP client configured by the
snippet in docs/editors.md, on the bundled example file.

Skipped when ``nvim`` is not installed (Debian: ``apt-get install neovim``).
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NVIM = shutil.which("nvim")
BIN = str(Path(sys.executable).parent)

pytestmark = [
    pytest.mark.skipif(NVIM is None, reason="nvim is not installed (apt-get install neovim)"),
    pytest.mark.skipif(shutil.which("jaxlint", path=BIN) is None,
                       reason="no `jaxlint` script next to the interpreter for the editor to start"),
]

# What a user does by hand: wait for the findings, put the cursor on the first one,
# `:lua vim.lsp.buf.code_action()` and pick the noqa action from the menu (the pick is
# the only thing scripted: vim.ui.select chooses the entry whose title has "noqa").
CHECK = r"""
local out = { diagnostics = {}, titles = {} }
vim.wait(120000, function() return #vim.diagnostic.get(0) > 0 end, 50)
for _, d in ipairs(vim.diagnostic.get(0)) do
  table.insert(out.diagnostics, { lnum = d.lnum, col = d.col, end_col = d.end_col, source = d.source,
                                  code = d.code or (d.user_data and d.user_data.lsp.code), message = d.message })
end
local d = vim.diagnostic.get(0)[1]
if d and vim.env.JAXLINT_NVIM_ACTION == "noqa" then
  vim.ui.select = function(items, opts, on_choice)
    -- (parentheses: format_item may return more than the title)
    for _, item in ipairs(items) do table.insert(out.titles, (opts.format_item(item))) end
    for i, item in ipairs(items) do
      if opts.format_item(item):find("noqa", 1, true) then return on_choice(item, i) end
    end
    on_choice(nil, nil)
  end
  vim.api.nvim_win_set_cursor(0, { d.lnum + 1, d.col })
  vim.lsp.buf.code_action()
  vim.wait(60000, function()
    return vim.api.nvim_buf_get_lines(0, d.lnum, d.lnum + 1, false)[1]:find("noqa", 1, true) ~= nil
  end, 50)
  out.line = vim.api.nvim_buf_get_lines(0, d.lnum, d.lnum + 1, false)[1]
  vim.wait(60000, function() return #vim.diagnostic.get(0) == 0 end, 50)
  out.after = #vim.diagnostic.get(0)
end
local f = io.open(vim.env.JAXLINT_NVIM_OUT, "w")
f:write(vim.fn.json_encode(out))
f:close()
vim.cmd("qa!")
"""


def docs_snippet() -> str:
    """The Neovim snippet of docs/editors.md that needs no plugin and runs on 0.7+."""
    doc = (ROOT / "docs" / "editors.md").read_text(encoding="utf-8")
    blocks = [b for b in re.findall(r"```lua\n(.*?)```", doc, re.S) if "vim.lsp.start_client" in b]
    assert len(blocks) == 1, "docs/editors.md must keep one plugin-free Neovim snippet"
    return blocks[0]


def run_nvim(tmp_path: Path, name: str, source: str, action: str = "") -> dict:
    (tmp_path / "init.lua").write_text(docs_snippet())
    (tmp_path / "check.lua").write_text(CHECK)
    (tmp_path / name).write_text(source, encoding="utf-8")
    out = tmp_path / "out.json"
    env = dict(os.environ, PATH=BIN + os.pathsep + os.environ.get("PATH", ""), HOME=str(tmp_path),
               XDG_CONFIG_HOME=str(tmp_path / "config"), XDG_DATA_HOME=str(tmp_path / "data"),
               XDG_STATE_HOME=str(tmp_path / "state"), XDG_CACHE_HOME=str(tmp_path / "cache"),
               JAXLINT_NVIM_OUT=str(out), JAXLINT_NVIM_ACTION=action)
    # the waits in CHECK: the server's start as lsp_session.TIMEOUT allows it (a loaded machine
    # starts pygls and jaxlint in tens of seconds), then 60 s for each answer; nvim's own
    # limit is above their sum, so that a slow run fails with what nvim saw, not a timeout
    proc = subprocess.run([NVIM, "--headless", "-i", "NONE", "-u", "init.lua", "-c", "luafile check.lua", name],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert out.exists(), f"nvim wrote no result (exit {proc.returncode}):\n{proc.stdout}\n{proc.stderr}"
    return json.loads(out.read_text())


def test_neovim_shows_the_example_files_finding_and_the_noqa_action_silences_it(tmp_path):
    source = (ROOT / "examples" / "captured_weights.py").read_text(encoding="utf-8")
    res = run_nvim(tmp_path, "captured_weights.py", source, action="noqa")
    (d,) = res["diagnostics"]
    lines = source.splitlines()
    line = next(i for i, text in enumerate(lines) if "x @ W1" in text)
    assert (d["lnum"], d["col"], d["code"], d["source"]) == (line, lines[line].index("W1"), "JAX101", "jaxlint")
    assert "W1" in d["message"]
    assert res["titles"] == ["Suppress with `# noqa: JAX101`"]
    assert res["line"] == lines[line] + "  # noqa: JAX101"
    assert res["after"] == 0


def test_neovim_places_findings_after_emoji_at_the_right_column(tmp_path):
    source = textwrap.dedent("""\
        import jax
        import numpy as np

        W = np.random.randn(1024, 1024)


        @jax.jit
        def predict(x):
            return {"😀 é": x @ W}["😀 é"]
        """)
    (d,) = run_nvim(tmp_path, "emoji.py", source)["diagnostics"]
    line = source.splitlines()[8]
    # Neovim counts bytes; it gets there from the server's UTF-16 columns
    assert (d["lnum"], d["col"], d["end_col"]) == (8, len(line[:line.index("W}")].encode()),
                                                   len(line[:line.index("W}") + 1].encode()))
