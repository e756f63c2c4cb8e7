"""The editor and modules a document imports: a document's static findings that rest on
another module of the project (``jaxlint.static.tree``) are checked again when that module
is saved; before the save they rest on its file on disk, not on its unsaved text. A real
``jaxlint server`` over stdio."""
from __future__ import annotations

import pytest

pytest.importorskip("pygls", reason="the `lsp` extra (pygls) is not installed")

from lsp_session import run, session  # noqa: E402

SMALL = "import numpy as np\n\nTABLE = np.ones((8, 8))\n"
BIG = "import numpy as np\n\nTABLE = np.random.randn(2048, 2048)\n"
TRAIN = "import jax\nfrom data import TABLE\n\n\n@jax.jit\ndef predict(x):\n    return x @ TABLE\n"


def _codes(pub) -> list[str]:
    return [str(d.code) for d in getattr(pub, "diagnostics", None) or getattr(pub, "items", ())]


def test_saving_an_imported_module_rechecks_the_document_that_reads_it(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.jaxlint]\n")

    async def go():
        async with session(tmp_path, pull=False, init={"debounceMs": 0}) as s:
            s.write("data.py", SMALL)
            train = s.open("train.py", TRAIN)
            assert _codes(await s.next_publish(train)) == []
            data = s.open("data.py", SMALL)
            await s.next_publish(data)
            s.replace_all(data, BIG)  # unsaved: train.py's findings rest on the saved file
            await s.next_publish(data, after=1)
            assert len(s.published[train]) == 1
            s.save(data, "data.py")  # (writes the buffer's text to the file)
            pub = await s.next_publish(train, after=1, timeout=30)
            assert _codes(pub) == ["JAX101"]
            s.replace_all(data, SMALL)
            s.save(data, "data.py")
            assert _codes(await s.next_publish(train, after=2, timeout=30)) == []

    run(go())


def test_a_pulling_client_is_asked_to_pull_again(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.jaxlint]\n")

    async def go():
        async with session(tmp_path, pull=True) as s:
            s.write("data.py", SMALL)
            train = s.open("train.py", TRAIN)
            first = await s.pull(train)
            assert _codes(first) == []
            data = s.open("data.py", SMALL)
            before = s.refreshes
            s.replace_all(data, BIG)
            s.save(data, "data.py")  # (writes the buffer's text to the file)
            await s.wait_for(lambda: s.refreshes > before, "a diagnostic refresh", 30)
            again = await s.pull(train, first.result_id)
            assert _codes(again) == ["JAX101"]

    run(go())
