"""The editor in a team's first week, through a real client over stdio: measured findings
follow their line through unsaved edits; no "suppress" action on a finding about noqa
comments. Real server subprocess, real dynamic run (in a child, on save)."""
from __future__ import annotations

import pytest

pytest.importorskip("pygls", reason="the `lsp` extra (pygls) is not installed")

from lsprotocol import types as T  # noqa: E402

from lsp_session import run, session  # noqa: E402

DYNAMIC = """
import jax
import numpy as np

W = np.random.randn(1024, 1024).astype(np.float32)


# jaxlint: args=(f32[8,1024])
@jax.jit
def f(x):
    return x @ W
"""


def _items(pub) -> list[tuple[str, int]]:
    return [(d.code, d.range.start.line) for d in pub.diagnostics]


def test_a_measured_finding_moves_with_its_line_through_unsaved_edits(tmp_path):
    pytest.importorskip("jax")

    async def go():
        async with session(tmp_path, pull=False, init={"dynamic": True, "debounceMs": 0}) as s:
            uri = s.open("model.py", DYNAMIC)
            await s.next_publish(uri)
            s.save(uri, "model.py")
            await s.wait_for(lambda: ("JAX201", 9) in _items(s.published[uri][-1]), "the measured finding", 120)
            n = len(s.published[uri])
            # two lines typed above the function, not saved: the finding follows its line
            s.change(uri, T.Range(T.Position(2, 0), T.Position(2, 0)), "import os\nimport sys\n")
            pub = await s.next_publish(uri, after=n)
            assert _items(pub) == [("JAX201", 11)], _items(pub)
            (d,) = pub.diagnostics
            assert d.data["noqa_row"] == 12  # a noqa goes on the line it now is on
            # the line's code edited: the measurement no longer holds, so it goes (the
            # static guess comes back until the next save measures again)
            n = len(s.published[uri])
            s.change(uri, T.Range(T.Position(11, 15), T.Position(11, 16)), "W.T")
            pub = await s.next_publish(uri, after=n)
            assert "JAX201" not in [c for c, _ in _items(pub)], _items(pub)
            # undone: back, at its moved line
            n = len(s.published[uri])
            s.change(uri, T.Range(T.Position(11, 15), T.Position(11, 18)), "W")
            pub = await s.next_publish(uri, after=n)
            assert _items(pub) == [("JAX201", 11)], _items(pub)
            # lines removed above move it up
            n = len(s.published[uri])
            s.change(uri, T.Range(T.Position(2, 0), T.Position(4, 0)), "")
            pub = await s.next_publish(uri, after=n)
            assert _items(pub) == [("JAX201", 9)], _items(pub)

    run(go(), timeout=180)


def test_an_unused_noqa_finding_offers_its_fix_but_no_suppression(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.jaxlint]\nextend-select = ["unused-noqa"]\n')

    async def go():
        async with session(tmp_path) as s:
            uri = s.open("m.py", "import jax\n\nx = 1  # noqa: JAX101\n")
            (item,) = (await s.pull(uri)).items
            assert item.code == "JAX190"
            titles = [a.title for a in await s.actions(uri, [item])]
            assert titles and not [t for t in titles if t.startswith("Suppress with")], titles
            assert any("JAX190" in t for t in titles), titles  # the fix: remove the unused code

    run(go())
