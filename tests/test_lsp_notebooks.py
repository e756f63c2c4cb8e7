"""Notebook documents (LSP 3.17 ``notebookDocument/*``) in ``jaxlint server``, driven over
stdio by a real client (pygls' LanguageClient): the code cells are checked as one module,
diagnostics arrive per cell at the cell's lines, and quick fixes, ``# noqa`` and fix-all
edit the cells."""
from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("pygls", reason="the `lsp` extra (pygls) is not installed")

from lsprotocol import types as T  # noqa: E402

from lsp_session import TIMEOUT, Session, apply_text_edits, capabilities, run  # noqa: E402

NB = "analysis.ipynb"
MARKDOWN = "# Notes\n\nNothing to check here."
SETUP = "%matplotlib inline\nimport jax\nimport numpy as np\nW = np.zeros((1024, 1024))"
CAPTURE = "@jax.jit\ndef f(x):\n    return x @ W"
NUMPY = "@jax.jit\ndef total(x):\n    return np.sum(x)\n\n%timeit total(W)"


class Notebook:
    """A notebook open in the client: its cells' URIs and texts, kept in step with the server."""

    def __init__(self, s, name: str, cells: list[tuple[str, str]]) -> None:
        self.s = s
        self.uri = s.uri(name)
        self.version = 1
        self.cells = [T.NotebookCell(kind=T.NotebookCellKind.Markup if kind == "markdown" else T.NotebookCellKind.Code,
                                     document=f"vscode-notebook-cell:{s.root / name}#C{i:04d}")
                      for i, (kind, _) in enumerate(cells)]
        self.texts = {c.document: text for c, (_, text) in zip(self.cells, cells)}
        self.versions = {c.document: 1 for c in self.cells}
        s.client.notebook_document_did_open(T.DidOpenNotebookDocumentParams(
            notebook_document=T.NotebookDocument(uri=self.uri, notebook_type="jupyter-notebook", version=1,
                                                 cells=self.cells),
            cell_text_documents=[T.TextDocumentItem(uri=c.document, version=1, text=self.texts[c.document],
                                                    language_id="markdown" if kind == "markdown" else "python")
                                 for c, (kind, _) in zip(self.cells, cells)]))

    def cell(self, i: int) -> str:
        return self.cells[i].document

    def set_text(self, cell_uri: str, text: str) -> None:
        """Replace a cell's text, as an editor sends a typed change."""
        self.version += 1
        self.versions[cell_uri] += 1
        old = self.texts[cell_uri]
        self.texts[cell_uri] = text
        lines = old.split("\n")
        whole = T.Range(start=T.Position(0, 0), end=T.Position(len(lines) - 1, len(lines[-1])))
        self.s.client.notebook_document_did_change(T.DidChangeNotebookDocumentParams(
            notebook_document=T.VersionedNotebookDocumentIdentifier(uri=self.uri, version=self.version),
            change=T.NotebookDocumentChangeEvent(cells=T.NotebookDocumentCellChanges(text_content=[
                T.NotebookDocumentCellContentChanges(
                    document=T.VersionedTextDocumentIdentifier(uri=cell_uri, version=self.versions[cell_uri]),
                    changes=[T.TextDocumentContentChangePartial(range=whole, text=text)])]))))

    def apply(self, edit: T.WorkspaceEdit) -> set[str]:
        """Apply a workspace edit to the cells it names, as an editor would; the cells changed."""
        by_uri: dict[str, list[T.TextEdit]] = {}
        for dc in edit.document_changes or []:
            assert dc.text_document.version in (None, self.versions[dc.text_document.uri]), "edit for a stale cell"
            by_uri.setdefault(dc.text_document.uri, []).extend(dc.edits)
        for uri, es in (edit.changes or {}).items():
            by_uri.setdefault(uri, []).extend(es)
        for uri, es in by_uri.items():
            self.set_text(uri, apply_text_edits(self.texts[uri], es))
        return set(by_uri)

    def close(self) -> None:
        self.s.client.notebook_document_did_close(T.DidCloseNotebookDocumentParams(
            notebook_document=T.NotebookDocumentIdentifier(uri=self.uri),
            cell_text_documents=[T.TextDocumentIdentifier(uri=c.document) for c in self.cells]))


def caps(pull: bool = True) -> T.ClientCapabilities:
    c = capabilities(pull=pull)
    c.notebook_document = T.NotebookDocumentClientCapabilities(
        synchronization=T.NotebookDocumentSyncClientCapabilities(execution_summary_support=False))
    return c


def notebook_session(tmp_path, pull: bool = True, init: dict | None = None):
    """A server started by a client that supports notebook documents."""
    # NUMPY's JAX104 (nursery) is the cells' finding with a fix
    (tmp_path / "pyproject.toml").write_text('[tool.jaxlint]\nextend-select = ["JAX104"]\n')

    class _Ctx:
        async def __aenter__(self):
            self.s = Session(tmp_path)
            await self.s.start(caps(pull), init=init)
            return self.s

        async def __aexit__(self, *exc):
            await self.s.stop()

    return _Ctx()


@pytest.fixture(scope="module")
def shared_server(tmp_path_factory):
    """One notebook-capable pulling server for the tests that need no server of their own
    (starting one costs about 2.5 s of CPU): each opens its notebook in a folder of its
    own and closes it when done; the settings are the defaults, as on a fresh server."""
    root = tmp_path_factory.mktemp("shared-notebook-server")
    loop = asyncio.new_event_loop()
    ctx = notebook_session(root)
    s = loop.run_until_complete(asyncio.wait_for(ctx.__aenter__(), 2 * TIMEOUT))
    try:
        yield loop, s
    finally:
        loop.run_until_complete(asyncio.wait_for(ctx.__aexit__(None, None, None), 4 * TIMEOUT))
        loop.close()


def on_shared_server(shared_server, request, cells: list[tuple[str, str]], body) -> None:
    """Open ``cells`` as ``<test name>/analysis.ipynb`` on the shared server, run
    ``body(session, notebook)``, then close the notebook."""
    loop, s = shared_server
    (s.root / request.node.name).mkdir()

    async def go():
        nb = Notebook(s, f"{request.node.name}/{NB}", cells)
        try:
            await body(s, nb)
        finally:
            nb.close()

    loop.run_until_complete(asyncio.wait_for(go(), 600.0))


async def pull(s, uri: str) -> list[T.Diagnostic]:
    report = await s.pull(uri)
    return list(report.items)


async def act(s, nb: Notebook, cell: int, title: str) -> set[str]:
    """Apply the code action whose title starts with ``title`` offered for the one finding
    of cell number ``cell`` (0-based); the cells it changed."""
    [item] = await pull(s, nb.cell(cell))
    [action] = [a for a in await s.actions(nb.cell(cell), [item]) if a.title.startswith(title)]
    return nb.apply(action.edit)


def test_server_advertises_notebook_sync_for_python_cells(tmp_path):
    async def go():
        ctx = notebook_session(tmp_path)
        async with ctx as s:
            sync = s.init_result.capabilities.notebook_document_sync
            assert sync is not None and sync.save is True
            [selector] = sync.notebook_selector
            assert selector.notebook == "jupyter-notebook" and [c.language for c in selector.cells] == ["python"]
        # the answer sent before the server's imports is the one the server itself gives
        assert "initialize was answered with" not in ctx.s.stderr
    run(go())


def test_each_cell_pulls_its_own_findings_at_its_own_lines(shared_server, request):
    async def body(s, nb):
        assert await pull(s, nb.cell(0)) == [] and await pull(s, nb.cell(1)) == []
        [captured] = await pull(s, nb.cell(2))
        # `W` (cell 2) is read in cell 3's jitted function: a name from an earlier cell
        assert captured.code == "JAX101" and captured.range.start == T.Position(2, 15)
        [related] = captured.related_information
        assert related.location.uri == nb.cell(1) and related.location.range.start.line == 3
        [numpy] = await pull(s, nb.cell(3))  # the %timeit line is masked, not a parse error
        assert numpy.code == "JAX104" and numpy.range.start == T.Position(2, 11)
    on_shared_server(shared_server, request,
                     [("markdown", MARKDOWN), ("code", SETUP), ("code", CAPTURE), ("code", NUMPY)], body)


def test_a_push_client_gets_each_cell_published_on_open_and_after_a_change(tmp_path):
    async def go():
        async with notebook_session(tmp_path, pull=False, init={"debounceMs": 50}) as s:
            nb = Notebook(s, NB, [("code", SETUP), ("code", CAPTURE)])
            first = await s.next_publish(nb.cell(1))
            assert [d.code for d in first.diagnostics] == ["JAX101"]
            assert not (await s.next_publish(nb.cell(0))).diagnostics
            # cell 2 now reads `V`, which no cell defines: nothing to report
            nb.set_text(nb.cell(1), CAPTURE.replace("W", "V"))
            assert not (await s.next_publish(nb.cell(1), after=1)).diagnostics
            # a change in cell 1 that defines V as a large array: cell 2 is re-checked
            nb.set_text(nb.cell(0), SETUP + "\nV = np.ones((2048, 2048))")
            third = await s.next_publish(nb.cell(1), after=2)
            assert [d.code for d in third.diagnostics] == ["JAX101"] and "`V`" in third.diagnostics[0].message
    run(go())


def test_a_quick_fix_in_a_cell_edits_the_cells_it_needs(shared_server, request):
    async def body(s, nb):
        # jnp is not imported: the import goes into cell 1, the call in cell 2 changes
        assert await act(s, nb, 1, "Replace `np.sum`") == {nb.cell(0), nb.cell(1)}
        assert "import jax.numpy as jnp" in nb.texts[nb.cell(0)]
        assert nb.texts[nb.cell(1)].splitlines()[2] == "    return jnp.sum(x)"
        assert nb.texts[nb.cell(1)].endswith("%timeit total(W)")  # the magic is kept as it was
        assert await pull(s, nb.cell(1)) == [] and await pull(s, nb.cell(0)) == []
    on_shared_server(shared_server, request, [("code", SETUP), ("code", NUMPY)], body)


def test_suppress_with_noqa_in_a_cell(shared_server, request):
    async def body(s, nb):
        assert await act(s, nb, 1, "Suppress with `# noqa: JAX101`") == {nb.cell(1)}
        assert nb.texts[nb.cell(1)] == "@jax.jit\ndef f(x):\n    return x @ W  # noqa: JAX101"
        assert await pull(s, nb.cell(1)) == []
    on_shared_server(shared_server, request, [("code", SETUP), ("code", CAPTURE)], body)


def test_fix_all_from_a_cell_fixes_the_notebook_cell_by_cell(tmp_path):
    async def go():
        async with notebook_session(tmp_path, init={"unsafeFixes": True}) as s:
            key_reuse = "key = jax.random.PRNGKey(0)\na = jax.random.normal(key, (3,))\nb = jax.random.normal(key, (3,))"
            nb = Notebook(s, NB, [("code", SETUP), ("code", NUMPY), ("markdown", MARKDOWN), ("code", key_reuse)])
            [item] = await pull(s, nb.cell(1))
            [action] = await s.actions(nb.cell(1), [item], only=["source.fixAll.jaxlint"])
            changed = nb.apply(action.edit)
            assert changed == {nb.cell(0), nb.cell(1), nb.cell(3)} and nb.texts[nb.cell(2)] == MARKDOWN
            for i in (0, 1, 3):
                assert await pull(s, nb.cell(i)) == [], nb.texts[nb.cell(i)]
    run(go())


def test_a_cell_that_does_not_parse_is_reported_and_the_others_are_still_checked(shared_server, request):
    async def body(s, nb):
        [err] = await pull(s, nb.cell(1))
        assert err.code == "JAX100" and "cell 2 does not parse" in err.message
        assert [d.code for d in await pull(s, nb.cell(2))] == ["JAX101"]
    on_shared_server(shared_server, request, [("code", SETUP), ("code", "def broken(:\n    pass"), ("code", CAPTURE)],
                     body)


def test_closing_the_notebook_clears_its_cells(tmp_path):
    async def go():
        async with notebook_session(tmp_path, pull=False) as s:
            nb = Notebook(s, NB, [("code", SETUP), ("code", CAPTURE)])
            assert (await s.next_publish(nb.cell(1))).diagnostics
            nb.close()
            await s.wait_for(lambda: len(s.published[nb.cell(1)]) >= 2 and not s.published[nb.cell(1)][-1].diagnostics,
                             "cleared diagnostics", TIMEOUT)
    run(go())
