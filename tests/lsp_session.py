"""Drive a real ``jaxlint server`` subprocess over stdio with pygls' LanguageClient.

Every wait has a timeout so that a hung server fails the test instead of the suite.
Arrays in server messages arrive as tuples on this side.
"""
from __future__ import annotations

import asyncio
import contextlib
import sys
import textwrap
from collections import defaultdict
from pathlib import Path
from typing import Any, Callable, Sequence

from lsprotocol import types as T
from pygls.lsp.client import LanguageClient
from pygls.uris import from_fs_path

TIMEOUT = 120.0  # a ceiling against hangs: a loaded machine starts a server (pygls, jaxlint) in tens of seconds


def run(coro, timeout: float = 600.0):
    """Run one async test body, failing (not hanging) after ``timeout`` seconds."""
    return asyncio.run(asyncio.wait_for(coro, timeout))


def clean(text: str) -> str:
    """Dedent a triple-quoted source that starts with a newline; keep anything else as is."""
    return textwrap.dedent(text).lstrip("\n") if text.startswith("\n") else text


def capabilities(pull: bool = True, encodings: Sequence[str] | None = None,
                 document_changes: bool = True, watch: bool = True, progress: bool = True) -> T.ClientCapabilities:
    return T.ClientCapabilities(
        general=T.GeneralClientCapabilities(position_encodings=list(encodings)) if encodings else None,
        text_document=T.TextDocumentClientCapabilities(
            synchronization=T.TextDocumentSyncClientCapabilities(did_save=True),
            publish_diagnostics=T.PublishDiagnosticsClientCapabilities(related_information=True,
                                                                      data_support=True),
            diagnostic=T.DiagnosticClientCapabilities(dynamic_registration=False) if pull else None,
            code_action=T.CodeActionClientCapabilities(data_support=True),
        ),
        workspace=T.WorkspaceClientCapabilities(
            workspace_edit=T.WorkspaceEditClientCapabilities(document_changes=document_changes),
            did_change_watched_files=T.DidChangeWatchedFilesClientCapabilities(dynamic_registration=watch),
            diagnostics=T.DiagnosticWorkspaceClientCapabilities(refresh_support=True) if pull else None,
            workspace_folders=True,
        ),
        window=T.WindowClientCapabilities(work_done_progress=progress),
    )


class Session:
    """One client connected to one server process."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.client = LanguageClient("jaxlint-tests", "1")
        self.published: dict[str, list[T.PublishDiagnosticsParams]] = defaultdict(list)
        self.messages: list[T.ShowMessageParams] = []
        self.logs: list[T.LogMessageParams] = []
        self.registrations: list[T.Registration] = []
        self.progress: list[T.ProgressParams] = []
        self.refreshes = 0
        self.versions: dict[str, int] = {}
        self.texts: dict[str, str] = {}
        self.init_result: T.InitializeResult | None = None
        #: what the server wrote to stderr (its log), read when it has ended
        self.stderr = ""
        #: seconds between looks while waiting (the latency benchmark lowers it)
        self.poll_interval = 0.02
        c = self.client

        @c.feature(T.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def _published(params):
            self.published[params.uri].append(params)

        @c.feature(T.WINDOW_SHOW_MESSAGE)
        def _shown(params):
            self.messages.append(params)

        @c.feature(T.WINDOW_LOG_MESSAGE)
        def _logged(params):
            self.logs.append(params)

        @c.feature(T.CLIENT_REGISTER_CAPABILITY)
        def _register(params):
            self.registrations.extend(params.registrations)

        @c.feature(T.WINDOW_WORK_DONE_PROGRESS_CREATE)
        def _progress_create(params):
            return None

        @c.feature(T.PROGRESS)
        def _progress(params):
            self.progress.append(params)

        @c.feature(T.WORKSPACE_DIAGNOSTIC_REFRESH)
        def _refresh(params):
            self.refreshes += 1

    # -- lifecycle --------------------------------------------------------------

    async def start(self, caps: T.ClientCapabilities, init: dict | None = None,
                    folders: Sequence[Path] | None = None, command: Sequence[str] | None = None) -> None:
        cmd = list(command or [sys.executable, "-m", "jaxlint", "server"])
        await self.client.start_io(cmd[0], *cmd[1:], cwd=str(self.root))
        folders = list(folders) if folders is not None else [self.root]
        self.init_result = await asyncio.wait_for(self.client.initialize_async(T.InitializeParams(
            capabilities=caps,
            process_id=None,
            root_uri=from_fs_path(str(self.root)),
            workspace_folders=[T.WorkspaceFolder(uri=from_fs_path(str(f)), name=f.name) for f in folders],
            initialization_options=init,
        )), TIMEOUT)
        self.client.initialized(T.InitializedParams())

    async def stop(self) -> int | None:
        proc = self.client._server
        if proc is not None and proc.returncode is None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.client.shutdown_async(None), TIMEOUT)
            with contextlib.suppress(Exception):
                self.client.exit(None)
            try:
                await asyncio.wait_for(proc.wait(), TIMEOUT)
            except asyncio.TimeoutError:
                proc.kill()
                await proc.wait()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.client.stop(), TIMEOUT)
        if proc is not None and proc.stderr is not None:
            with contextlib.suppress(Exception):
                self.stderr = (await asyncio.wait_for(proc.stderr.read(), TIMEOUT)).decode(errors="replace")
        return proc.returncode if proc is not None else None

    # -- documents --------------------------------------------------------------

    def uri(self, name: str) -> str:
        return from_fs_path(str(self.root / name))

    def write(self, name: str, text: str) -> Path:
        p = self.root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(clean(text), encoding="utf-8")
        return p

    def open(self, name: str, text: str | None = None, write: bool = True) -> str:
        """Open ``name`` (writing ``text`` to disk first unless ``write`` is false)."""
        if text is not None:
            text = clean(text)
        if text is None:
            text = (self.root / name).read_text(encoding="utf-8")
        elif write:
            self.write(name, text)
        uri = self.uri(name)
        self.versions[uri] = 1
        self.texts[uri] = text
        self.client.text_document_did_open(T.DidOpenTextDocumentParams(
            text_document=T.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)))
        return uri

    def replace_all(self, uri: str, text: str) -> None:
        """Send the whole new text, as a client with full sync does."""
        self.versions[uri] += 1
        self.texts[uri] = text
        self.client.text_document_did_change(T.DidChangeTextDocumentParams(
            text_document=T.VersionedTextDocumentIdentifier(uri=uri, version=self.versions[uri]),
            content_changes=[T.TextDocumentContentChangeWholeDocument(text=text)]))

    def change(self, uri: str, rng: T.Range, new_text: str) -> None:
        """An incremental change (what editors send while typing)."""
        self.versions[uri] += 1
        self.texts[uri] = apply_text_edits(self.texts[uri], [T.TextEdit(range=rng, new_text=new_text)])
        self.client.text_document_did_change(T.DidChangeTextDocumentParams(
            text_document=T.VersionedTextDocumentIdentifier(uri=uri, version=self.versions[uri]),
            content_changes=[T.TextDocumentContentChangePartial(range=rng, text=new_text)]))

    def save(self, uri: str, name: str) -> None:
        (self.root / name).write_text(self.texts[uri], encoding="utf-8")
        self.client.text_document_did_save(T.DidSaveTextDocumentParams(
            text_document=T.TextDocumentIdentifier(uri=uri)))

    def close(self, uri: str) -> None:
        self.client.text_document_did_close(T.DidCloseTextDocumentParams(
            text_document=T.TextDocumentIdentifier(uri=uri)))

    # -- requests ---------------------------------------------------------------

    async def pull(self, uri: str, previous: str | None = None):
        return await asyncio.wait_for(self.client.text_document_diagnostic_async(T.DocumentDiagnosticParams(
            text_document=T.TextDocumentIdentifier(uri=uri), identifier="jaxlint", previous_result_id=previous)),
            TIMEOUT)

    async def actions(self, uri: str, diagnostics: Sequence[T.Diagnostic], rng: T.Range | None = None,
                      only: Sequence[str] | None = None) -> list[T.CodeAction]:
        rng = rng or (diagnostics[0].range if diagnostics else T.Range(T.Position(0, 0), T.Position(0, 0)))
        res = await asyncio.wait_for(self.client.text_document_code_action_async(T.CodeActionParams(
            text_document=T.TextDocumentIdentifier(uri=uri), range=rng,
            context=T.CodeActionContext(diagnostics=list(diagnostics), only=list(only) if only else None))),
            TIMEOUT)
        return list(res or [])

    async def raw_request(self, method: str, params: Any, timeout: float = TIMEOUT) -> Any:
        """Send a request exactly as given (the client's typed API would refuse bad params)."""
        _, answer = self.send_request(method, params)
        return await asyncio.wait_for(answer, timeout)

    def send_request(self, method: str, params: Any) -> tuple[str, asyncio.Future]:
        """Send a request as given, without waiting: its id (for ``$/cancelRequest``) and
        its answer to await (an error answer raises pygls' ``JsonRpcException``)."""
        from concurrent.futures import Future

        proto = self.client.protocol
        msg_id = f"raw-{len(proto._request_futures)}-{id(params)}"
        fut: Future = Future()
        proto._request_futures[msg_id] = fut
        proto._send_data({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
        return msg_id, asyncio.wrap_future(fut)

    def raw_notify(self, method: str, params: Any) -> None:
        self.client.protocol._send_data({"jsonrpc": "2.0", "method": method, "params": params})

    async def wait_for(self, predicate: Callable[[], Any], what: str, timeout: float = TIMEOUT) -> Any:
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while True:
            value = predicate()
            if value:
                return value
            if loop.time() > end:
                raise AssertionError(f"timed out waiting for {what}")
            await asyncio.sleep(self.poll_interval)

    async def next_publish(self, uri: str, after: int = 0, timeout: float = TIMEOUT) -> T.PublishDiagnosticsParams:
        """The first publishDiagnostics for ``uri`` beyond the first ``after`` ones."""
        await self.wait_for(lambda: len(self.published[uri]) > after, f"diagnostics for {uri}", timeout)
        return self.published[uri][after]

    def apply(self, uri: str, edit: T.WorkspaceEdit) -> str:
        """Apply a WorkspaceEdit to our copy of the text, as an editor would, and send it."""
        edits: list[T.TextEdit] = []
        if edit.document_changes:
            for dc in edit.document_changes:
                assert dc.text_document.uri == uri
                assert dc.text_document.version in (None, self.versions[uri]), "edit for a stale version"
                edits.extend(dc.edits)
        for u, es in (edit.changes or {}).items():
            assert u == uri
            edits.extend(es)
        new = apply_text_edits(self.texts[uri], edits)
        self.replace_all(uri, new)
        return new


def _offset(text: str, pos: T.Position) -> int:
    """UTF-16 position -> str offset (the tests' client speaks UTF-16)."""
    lines = text.split("\n")
    off = sum(len(l) + 1 for l in lines[:pos.line])
    line = lines[pos.line] if pos.line < len(lines) else ""
    units = 0
    for i, ch in enumerate(line):
        if units >= pos.character:
            return off + i
        units += 2 if ord(ch) > 0xFFFF else 1
    return off + len(line)


def apply_text_edits(text: str, edits: Sequence[T.TextEdit]) -> str:
    spans = sorted(((_offset(text, e.range.start), _offset(text, e.range.end), e.new_text) for e in edits),
                   key=lambda s: (s[0], s[1]), reverse=True)
    for a, b, new in spans:
        text = text[:a] + new + text[b:]
    return text


@contextlib.asynccontextmanager
async def session(root: Path, *, pull: bool = True, init: dict | None = None, **kw):
    caps_kw = {k: kw.pop(k) for k in ("encodings", "document_changes", "watch", "progress") if k in kw}
    s = Session(root)
    await s.start(capabilities(pull=pull, **caps_kw), init=init, **kw)
    try:
        yield s
    finally:
        await s.stop()
