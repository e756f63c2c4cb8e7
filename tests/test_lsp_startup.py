"""`jaxlint server` answers `initialize` before its heavy imports (pygls, lsprotocol),
with the answer pygls itself would give. A real client over stdio; the server's import
of ``lsprotocol.types`` is held until the test has its answer, so the order is proven,
not timed."""
from __future__ import annotations

import sys

import pytest

pytest.importorskip("pygls", reason="the `lsp` extra (pygls) is not installed")

from lsprotocol import types as T  # noqa: E402

from jaxlint.lsp.early import initialize_result  # noqa: E402
from lsp_session import capabilities, run, session  # noqa: E402

HELD = """
import os, sys, time, importlib.abc
GATE = {gate!r}
class Hold(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name == "lsprotocol.types":
            while not os.path.exists(GATE):
                time.sleep(0.01)
        return None
sys.meta_path.insert(0, Hold())
from jaxlint.cli import main
sys.exit(main(["server"]))
"""


def test_initialize_is_answered_before_the_lsp_libraries_are_imported(tmp_path):
    gate = tmp_path / "gate"
    cmd = [sys.executable, "-c", HELD.format(gate=str(gate))]

    async def go():
        async with session(tmp_path, command=cmd) as s:
            # start() returned: initialize was answered while lsprotocol.types was held
            assert not gate.exists()
            assert s.init_result.server_info.name == "jaxlint"
            assert s.init_result.capabilities.diagnostic_provider.identifier == "jaxlint"
            gate.write_text("")
            uri = s.open("m.py", "import jax\nimport numpy as np\nW = np.ones((1024, 1024))\n\n"
                                 "@jax.jit\ndef f(x):\n    return x @ W\n")
            assert [d.code for d in (await s.pull(uri)).items] == ["JAX101"]
        assert "initialize was answered with" not in s.stderr

    run(go())


def _pygls_answer(caps: T.ClientCapabilities) -> dict:
    """What pygls computes for the registered features (its own ``initialize``)."""
    from jaxlint.lsp.server import JaxlintServer

    protocol = JaxlintServer().protocol
    steps = protocol.lsp_initialize(T.InitializeParams(capabilities=caps, process_id=None, root_uri=None))
    try:
        next(steps)  # the server's own initialize handler: not needed for the capabilities
        while True:
            steps.send(None)
    except StopIteration as done:
        return protocol._converter.unstructure(done.value)


@pytest.mark.parametrize("encodings", [None, ["utf-8"], ["utf-32", "utf-16"], ["latin-1", "utf-8"], ["latin-1"]])
@pytest.mark.parametrize("pull", [True, False])
@pytest.mark.parametrize("notebooks", [True, False])
def test_the_early_answer_is_the_one_pygls_gives(encodings, pull, notebooks):
    from lsprotocol import converters

    caps = capabilities(pull=pull, encodings=encodings)
    if notebooks:  # a client that syncs notebook documents is offered them
        caps.notebook_document = T.NotebookDocumentClientCapabilities(
            synchronization=T.NotebookDocumentSyncClientCapabilities())
    raw = converters.get_converter().unstructure(caps)
    answer = initialize_result({"capabilities": raw})
    assert answer == _pygls_answer(caps) and ("notebookDocumentSync" in answer["capabilities"]) is notebooks


@pytest.mark.parametrize("encodings, chosen", [(["utf-8"], "utf-8"), (["latin-1", "utf-32"], "utf-32"),
                                               (None, "utf-16")])
def test_the_negotiated_encoding_is_the_one_the_server_then_uses(tmp_path, encodings, chosen):
    async def go():
        async with session(tmp_path, encodings=encodings) as s:
            assert s.init_result.capabilities.position_encoding == chosen
            # a character past a non-ASCII one: its column is counted in the chosen units
            uri = s.open("m.py", "import jax\nimport numpy as np\nW = np.ones((1024, 1024))\n\n"
                                 "@jax.jit\ndef f(x):\n    é = 1; return x @ W\n")
            (d,) = (await s.pull(uri)).items
            assert d.range.start.character == {"utf-8": 23, "utf-16": 22, "utf-32": 22}[chosen]
        assert "initialize was answered with" not in s.stderr

    run(go())
