"""``jaxlint server``: the language server (pygls 2, stdio).

* Static rules run on the editor's in-memory text: at once on open and save, after a
  quiet period (``debounceMs``, 500 by default) on change. Clients that can pull
  (``textDocument/diagnostic``) pull; the others get ``publishDiagnostics``.
* The dynamic phase (opt-in) runs only on save, as ``jaxlint check --dynamic`` in a
  child process; a newer save cancels the running one; ``$/progress`` reports it, and
  cancelling that progress (``window/workDoneProgress/cancel``) cancels the run.
* Code actions: the rule's fix, ``# noqa: CODE`` for the line, ``source.fixAll.jaxlint``.
  They are made on a thread of their own (:class:`jaxlint.lsp.documents.Job`; the actions: :mod:`jaxlint.lsp.actions`), off the message loop: other
  documents' diagnostics are not held up, and ``$/cancelRequest`` stops them
  (answered with RequestCancelled); a request whose document changed meanwhile is
  answered with ContentModified.
* Notebooks (LSP 3.17 ``notebookDocument/*``): the code cells are checked as one module,
  as ``jaxlint check nb.ipynb`` does; each cell gets its own findings, and fixes and
  ``# noqa`` edits are edits of the cells (:mod:`jaxlint.lsp.notebooks`,
  :mod:`jaxlint.lsp.notebook_sync`).
* Settings: the nearest config file per document (reloaded when it changes), with the
  client's ``initializationOptions`` on top. A broken config file is reported on that
  file and in a message; the server keeps going with default settings.

The server process never imports jax and never imports or runs the checked code.
"""
from __future__ import annotations

import asyncio
import logging
import os
import threading
from pathlib import Path
from typing import Any, Callable, cast

from lsprotocol import types as T
from pygls.exceptions import JsonRpcContentModified, JsonRpcException
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.uris import from_fs_path, to_fs_path

from jaxlint import __version__
from jaxlint.config import ConfigError, Settings, load_settings
from jaxlint.diagnostic import Confidence, Diagnostic, Severity
from jaxlint.files.discovery import FileTask, is_excluded
from jaxlint.lsp import dynamic
from jaxlint.lsp.actions import CodeActions
from jaxlint.lsp.documents import FIX_ALL_KIND, SOURCE, Doc, Job, encodable, with_hints
from jaxlint.lsp.dynamic_runs import DynamicRuns
from jaxlint.lsp.notebook_sync import NotebookSync
from jaxlint.lsp.notebooks import NotebookView
from jaxlint.lsp.positions import UTF16, to_lsp
from jaxlint.lsp.settings import ConfigProblem, DocumentSettings, overrides_from
from jaxlint.lsp.signals import end_on_signals
from jaxlint.registry import rules_by_code
from jaxlint.static.runner import check_one, lint_task_text
from jaxlint.textutil import split_lines

logger = logging.getLogger("jaxlint.lsp")

DEFAULT_DEBOUNCE_MS = 500
PYTHON_SUFFIXES = (".py", ".pyi")

_SEVERITY = {
    Severity.ERROR: T.DiagnosticSeverity.Error,
    Severity.WARNING: T.DiagnosticSeverity.Warning,
    Severity.INFO: T.DiagnosticSeverity.Information,
}


class _Malformed:
    """A message whose params do not match the method's type (answered, not dropped)."""

    def __init__(self, msg_id: Any, method: str, error: Exception) -> None:
        self.id = msg_id
        self.method = method
        self.error = error


class JaxlintProtocol(LanguageServerProtocol):
    """pygls' protocol, answering malformed, pre-initialize and post-shutdown requests
    with an error.

    pygls drops a request whose params fail to deserialize, so the client waits forever
    for its answer; LSP wants InvalidParams (and InvalidRequest after ``shutdown``)."""

    #: request id -> the answer already sent for it (``initialize``, by ``jaxlint.lsp.early``)
    answered: dict

    def _send_response(self, msg_id: Any, result: Any = None, error: Any = None) -> None:
        sent = getattr(self, "answered", {}).pop(msg_id, None)
        if sent is None:
            return super()._send_response(msg_id, result, error)
        mine = self._converter.unstructure(result) if error is None else {"error": str(error)}
        if mine != sent:  # the early answer must be the one pygls would give
            logger.warning("initialize was answered with %s; the server would have said %s", sent, mine)

    def structure_message(self, data: dict) -> Any:
        try:
            return super().structure_message(data)
        except JsonRpcException as e:
            if isinstance(data, dict) and isinstance(data.get("method"), str):
                return _Malformed(data.get("id"), data["method"], e)
            raise

    def handle_message(self, message: Any) -> None:
        if isinstance(message, _Malformed):
            cause = message.error.__cause__ or message.error
            logger.warning("invalid params for %s: %s", message.method, cause)
            if message.id is not None:
                self._send_response(message.id, error=T.ResponseError(
                    code=T.ErrorCodes.InvalidParams, message=f"invalid params for {message.method}"))
            return
        method = getattr(message, "method", None)
        if method not in (None, T.INITIALIZE, T.EXIT) and getattr(message, "id", None) is not None \
                and getattr(self, "_workspace", None) is None:  # LSP: nothing but initialize before it
            self._send_response(message.id, error=T.ResponseError(
                code=T.ErrorCodes.ServerNotInitialized, message=f"{method} before initialize"))
            return
        if self._shutdown and method not in (None, T.EXIT) and getattr(message, "id", None) is not None:
            self._send_response(message.id, error=T.ResponseError(
                code=T.ErrorCodes.InvalidRequest, message="the server is shutting down"))
            return
        super().handle_message(message)


class JaxlintServer(CodeActions, DynamicRuns, NotebookSync, LanguageServer):
    def __init__(self) -> None:
        super().__init__("jaxlint", __version__, protocol_cls=JaxlintProtocol,
                         text_document_sync_kind=T.TextDocumentSyncKind.Incremental,
                         notebook_document_sync=T.NotebookDocumentSyncOptions(
                             # Jupyter notebooks (VS Code's notebook type for .ipynb), Python cells
                             notebook_selector=[T.NotebookDocumentFilterWithNotebook(
                                 notebook="jupyter-notebook", cells=[T.NotebookCellLanguage(language="python")])],
                             save=True))
        #: open notebooks, by URI: their code cells as one module, with its findings
        self.notebooks: dict[str, NotebookView] = {}
        self._notebook_debounce: dict[str, asyncio.Task] = {}
        self.debounce = DEFAULT_DEBOUNCE_MS / 1000
        self.dynamic_option: bool | None = None
        self.unsafe_fixes = False
        self.settings = DocumentSettings({})
        self.docs: dict[str, Doc] = {}
        self._told: set[str] = set()
        self._config_problems: dict[str, ConfigProblem] = {}
        # active_rules() caches by id(settings): keep every Settings alive so that an id
        # is never reused for different settings after a config reload
        self._alive: dict[int, Settings] = {}
        self._dynamic_unavailable = False
        #: requests at work on their own threads (cancelled at shutdown)
        self._jobs: set[Job] = set()
        #: dynamic runs by their progress token (the client may cancel them)
        self._dynamic_runs: dict[str, asyncio.Task] = {}
        #: dynamic findings a run of one document found in another file (a helper module's
        #: unrolled loop, a recording's call site): that file's real path -> the URI of the
        #: document whose run found them -> (the findings, that file's code when they came)
        self._dynamic_elsewhere: dict[Path, dict[str, tuple[list[Diagnostic], list[str]]]] = {}
        #: LSP: 0 when ``exit`` follows ``shutdown``, 1 otherwise
        self.exit_code = 1
        self._register()

    # -- capabilities of the client ------------------------------------------------

    @property
    def pull(self) -> bool:
        td = self.client_capabilities.text_document
        return td is not None and td.diagnostic is not None

    def _capability(self, *path: str) -> Any:
        cur: Any = self.client_capabilities
        for name in path:
            cur = getattr(cur, name, None)
            if cur is None:
                return None
        return cur

    @property
    def encoding(self) -> str:
        enc = self.workspace.position_encoding
        return str(getattr(enc, "value", enc) or UTF16)

    # -- registration -------------------------------------------------------------

    def _register(self) -> None:
        def f(name: str, options: Any = None) -> Callable:
            # pygls tags handlers with attributes, which bound methods cannot carry
            def register(method: Callable) -> None:
                async def run_async(*args: Any) -> Any:
                    return await method(*args)

                def run(*args: Any) -> Any:
                    return method(*args)

                self.feature(name, options)(run_async if asyncio.iscoroutinefunction(method) else run)

            return register

        f(T.INITIALIZE)(self._initialize)
        f(T.INITIALIZED)(self._initialized)
        f(T.SHUTDOWN)(self._shutdown)
        f(T.EXIT)(self._exit)
        f(T.TEXT_DOCUMENT_DID_OPEN)(self._did_open)
        f(T.TEXT_DOCUMENT_DID_CHANGE)(self._did_change)
        f(T.TEXT_DOCUMENT_DID_SAVE, T.SaveOptions(include_text=False))(self._did_save)
        f(T.TEXT_DOCUMENT_DID_CLOSE)(self._did_close)
        f(T.NOTEBOOK_DOCUMENT_DID_OPEN)(self._notebook_opened)
        f(T.NOTEBOOK_DOCUMENT_DID_CHANGE)(self._notebook_changed)
        f(T.NOTEBOOK_DOCUMENT_DID_SAVE)(self._notebook_saved)
        f(T.NOTEBOOK_DOCUMENT_DID_CLOSE)(self._notebook_closed)
        f(T.TEXT_DOCUMENT_DIAGNOSTIC, T.DiagnosticOptions(
            identifier=SOURCE, inter_file_dependencies=False, workspace_diagnostics=False))(self._pull)
        f(T.TEXT_DOCUMENT_CODE_ACTION, T.CodeActionOptions(
            code_action_kinds=[T.CodeActionKind.QuickFix, T.CodeActionKind.SourceFixAll, FIX_ALL_KIND],
            resolve_provider=False))(self._code_action)
        f(T.WORKSPACE_DID_CHANGE_WATCHED_FILES)(self._watched_files_changed)
        f(T.WINDOW_WORK_DONE_PROGRESS_CANCEL)(self._progress_cancelled)
        f(T.WORKSPACE_DID_CHANGE_CONFIGURATION)(self._configuration_changed)
        f(T.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)(self._folders_changed)

    # -- lifecycle ----------------------------------------------------------------

    def _initialize(self, params: T.InitializeParams) -> None:
        opts = params.initialization_options
        self._configure(opts if isinstance(opts, dict) else {})
        root = self._root_dir()
        if root is not None:
            # settings of files under no config file are rooted at the working directory
            try:
                os.chdir(root)
            except OSError:
                pass

    def _root_dir(self) -> Path | None:
        for folder in self.workspace.folders.values():
            p = to_fs_path(folder.uri)
            if p and Path(p).is_dir():
                return Path(p)
        p = self.workspace.root_path
        return Path(p) if p and Path(p).is_dir() else None

    def _configure(self, opts: dict) -> None:
        try:
            overrides = overrides_from(opts)
            load_settings(None, overrides)  # validates the selectors
        except ConfigError as e:
            self._show(f"jaxlint: {e}; using the config files' selection", T.MessageType.Error)
            overrides = {}
        explicit = None
        cfg = opts.get("configuration")
        if isinstance(cfg, str) and cfg:
            explicit = Path(cfg).expanduser()
            if not explicit.is_file():
                self._show(f"jaxlint: configuration file not found: {cfg}", T.MessageType.Error)
                explicit = None
        ms = opts.get("debounceMs", DEFAULT_DEBOUNCE_MS)
        if isinstance(ms, (int, float)) and not isinstance(ms, bool) and ms >= 0:
            self.debounce = ms / 1000
        dyn = opts.get("dynamic")
        self.dynamic_option = dyn if isinstance(dyn, bool) else None
        self.unsafe_fixes = opts.get("unsafeFixes") is True
        self.settings = DocumentSettings(overrides, explicit, opts.get("isolated") is True)

    def _initialized(self, params: T.InitializedParams) -> None:
        if self._capability("workspace", "did_change_watched_files", "dynamic_registration"):
            watchers = [T.FileSystemWatcher(glob_pattern=f"**/{name}")
                        for name in ("pyproject.toml", "jaxlint.toml", ".jaxlint.toml")]
            self.client_register_capability(T.RegistrationParams(registrations=[T.Registration(
                id="jaxlint-config-files", method=T.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                register_options=T.DidChangeWatchedFilesRegistrationOptions(watchers=watchers))]),
                callback=lambda *_: None)

    async def _shutdown(self, params: Any = None) -> None:
        for job in self._jobs:
            job.cancelled.set()
        for doc in self.docs.values():
            if doc.debounce is not None:
                doc.debounce.cancel()
        for task in self._notebook_debounce.values():
            task.cancel()
        await dynamic.stop_all()

    def _exit(self, params: Any = None) -> None:
        # pygls ends the process with SystemExit, which its loop swallows: keep the status
        self.exit_code = 0 if self.protocol._shutdown else 1
        for job in self._jobs:
            job.cancelled.set()
        dynamic.kill_all()

    # -- documents ----------------------------------------------------------------

    def _did_open(self, params: T.DidOpenTextDocumentParams) -> None:
        uri = params.text_document.uri
        doc = self.docs[uri] = Doc(uri)
        if not self.pull:
            self._publish(uri)
        path = self._path_of(uri)
        if self._is_python(uri) and path.is_file():  # a recording's findings, without waiting for a save
            settings, _ = self.settings.for_path(path)
            enabled = self.dynamic_option if self.dynamic_option is not None else settings.dynamic.enabled
            if not enabled:
                self._start_dynamic(doc, path, settings)

    def _did_change(self, params: T.DidChangeTextDocumentParams) -> None:
        doc = self.docs.get(params.text_document.uri)
        if doc is None or self.pull:
            return  # a pulling client asks when it wants the result
        if doc.debounce is not None:
            doc.debounce.cancel()
        doc.debounce = self._spawn(self._publish_later(doc.uri))

    async def _publish_later(self, uri: str) -> None:
        await asyncio.sleep(self.debounce)
        if uri in self.docs:
            self._publish(uri)

    def _spawn(self, coro) -> asyncio.Task:
        """A background task whose failure is logged, never lost (nobody awaits it)."""
        task = asyncio.ensure_future(coro)

        def done(t: asyncio.Task) -> None:
            error = None if t.cancelled() else t.exception()
            if error is not None:
                self.report_server_error(error, type(error))

        task.add_done_callback(done)
        return task

    def _did_save(self, params: T.DidSaveTextDocumentParams) -> None:
        uri = params.text_document.uri
        doc = self.docs.get(uri)
        if doc is None:
            return
        if doc.debounce is not None:
            doc.debounce.cancel()
        if not self.pull:
            self._publish(uri)
        path = self._path_of(uri)
        self._saved_module(uri, str(path))
        settings, _ = self.settings.for_path(path)
        self._start_dynamic(doc, path, settings)

    def _saved_module(self, uri: str, path: str) -> None:
        """``path`` was saved: the open documents whose static findings read it (a module
        they import, ``jaxlint.static.tree``) are checked again, published to a pushing
        client, and a pulling client is asked to pull again. Before the save, the other
        documents read its file on disk, never its unsaved text."""
        path = os.path.realpath(path)
        stale = [other for other in list(self.docs.values()) if other.uri != uri and path in other.reads]
        for other in stale:
            other.reads_saved += 1
            if not self.pull:
                self._publish(other.uri)
        if stale and self.pull and self._capability("workspace", "diagnostics", "refresh_support"):
            self.workspace_diagnostic_refresh(None, callback=lambda *_: None)

    def _did_close(self, params: T.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        doc = self.docs.pop(uri, None)
        if doc is not None:
            for task in (doc.debounce, doc.dynamic_task):
                if task is not None:
                    task.cancel()
        self.text_document_publish_diagnostics(T.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    # -- notebooks ----------------------------------------------------------------

    # -- linting ------------------------------------------------------------------

    def _path_of(self, uri: str) -> Path:
        p = to_fs_path(uri)
        if p:
            return Path(p).absolute()
        # an unsaved buffer: lint it as if it were a file at the workspace root
        name = uri.rsplit("/", 1)[-1].rsplit(":", 1)[-1] or "untitled"
        if not name.endswith((*PYTHON_SUFFIXES, ".ipynb")):
            name += ".py"
        return (self._root_dir() or Path.cwd()) / name

    def _is_python(self, uri: str) -> bool:
        doc = self.workspace.get_text_document(uri)
        if doc.language_id:
            return doc.language_id == "python"
        return self._path_of(uri).suffix in PYTHON_SUFFIXES

    def _text_of(self, uri: str) -> tuple[str | None, int | None]:
        doc = self.workspace.get_text_document(uri)
        try:
            return doc.source, doc.version
        except Exception:  # neither open nor a readable file (or not a file URI at all)
            return None, None

    def _settings_for(self, path: Path) -> Settings:
        """The settings of ``path``; a reloaded or broken config file is reported first."""
        generation = self.settings.generation
        settings, problem = self.settings.for_path(path)
        if self.settings.generation != generation:
            self._clear_config_problems()
        if problem is not None:
            self._report_config_problem(problem)
        self._alive[id(settings)] = settings
        return settings

    def lint_text(self, uri: str, text: str, reads: set[str] | None = None) -> list[Diagnostic]:
        """Static findings for ``text`` as the content of ``uri``, after suppressions (for
        a notebook cell, ``text`` is the notebook's module, and so are the findings).
        ``reads`` gets the other modules of the project the findings read: their saved
        files, never another document's unsaved text."""
        notes: list[str] = []
        found = self._linter(uri, notes, reads)(text)
        for note in notes:
            self._log_once(note)
        return found

    def _linter(self, uri: str, notes: list[str],
                reads: set[str] | None = None) -> Callable[[str], list[Diagnostic]]:
        """:meth:`lint_text` for ``uri`` with its settings resolved now: the function
        touches no server state (a job's thread calls it), and adds what it would log
        to ``notes``."""
        nb = self.workspace.get_notebook_document(cell_uri=uri)
        if nb is not None:
            path = self._path_of(nb.uri)
            settings, _ = self.settings.for_path(path)
            task = FileTask(path, path.as_posix(), with_hints(settings))
            return lambda text: lint_task_text(task, text)
        path = self._path_of(uri)
        settings = self._settings_for(path)
        if path.is_relative_to(settings.root.absolute()) and is_excluded(path, settings):
            return lambda text: []
        task = FileTask(path, path.as_posix(), with_hints(settings))

        def lint(text: str) -> list[Diagnostic]:
            outcome = check_one(task, None, encodable(text))
            notes.extend(f"jaxlint: {err}" for err in outcome.errors)
            if reads is not None:
                reads.update(outcome.reads)
            return outcome.diagnostics

        return lint

    def results(self, uri: str) -> Doc:
        """Findings for the current text of ``uri``, computed once per version."""
        nb = self.workspace.get_notebook_document(cell_uri=uri)
        if nb is not None:
            return self._cell_results(uri, nb)
        doc = self.docs.get(uri) or Doc(uri)
        text, version = self._text_of(uri)
        if text is None or not self._is_python(uri):
            doc.key, doc.items, doc.findings, doc.text = ("none",), [], [], text or ""
            return doc
        self.settings.for_path(self._path_of(uri))  # notices edited config files first
        key = (version, self.settings.generation, doc.dynamic_generation, hash(text), doc.reads_saved)
        if key == doc.key:
            return doc
        reads: set[str] = set()
        static = self.lint_text(uri, text, reads)
        doc.reads = frozenset(reads)
        dyn = self._current_dynamic(doc, uri, text)
        if dyn:
            from jaxlint.findings.suppress import merge_and_suppress

            path = self._path_of(uri)
            settings, _ = self.settings.for_path(path)
            # as `check` does: measured over static, then the measured ones suppressed
            static, dyn, _ = merge_and_suppress(static, dyn, lambda _display: (settings, text, path))
        findings = static + dyn
        findings.sort(key=lambda d: d.sort_key)
        doc.key, doc.version, doc.text, doc.findings = key, version, text, findings
        doc.made = {}
        lines = split_lines(text)
        others: dict[str, tuple[str, list[str]]] = {}  # related files, read once per run
        doc.items = [self._to_lsp(d, uri, lines, version, others) for d in findings]
        return doc

    def _to_lsp(self, d: Diagnostic, uri: str, lines: list[str], version: int | None,
                others: dict[str, tuple[str, list[str]]], view: NotebookView | None = None) -> T.Diagnostic:
        rule = rules_by_code().get(d.code)
        related = []
        for r in d.related:
            if view is not None and r.cell in view.cells:  # another cell of the notebook
                r_uri, r_lines = view.cells[r.cell].uri, view.lines(r.cell)
            elif r.path == d.path:
                r_uri, r_lines = uri, lines
            else:
                if r.path not in others:
                    others[r.path] = self._locate(r.path, uri, d.path, lines)
                r_uri, r_lines = others[r.path]
            related.append(T.DiagnosticRelatedInformation(
                location=T.Location(uri=r_uri, range=self._range(r_lines, r.start, r.end)), message=r.message))
        return T.Diagnostic(
            range=self._range(lines, d.start, d.end),
            message=d.message,
            severity=T.DiagnosticSeverity.Hint if d.confidence is Confidence.POSSIBLE
            else _SEVERITY.get(d.severity, T.DiagnosticSeverity.Warning),
            code=d.code,
            code_description=T.CodeDescription(href=rule.url()) if rule is not None else None,
            source=SOURCE,
            related_information=related or None,
            data={
                "name": d.name,
                # the finding's group: its kind's, where the rule's kinds have groups of their own
                "group": rule.group_of(d.signature, d.data.get("kind")) if rule is not None else None,
                "phase": d.phase.value,
                "fix": d.fix.to_dict() if d.fix else None,
                "noqa_row": d.noqa_line,
                "version": version,
            },
        )

    def _locate(self, path: str, uri: str, own_path: str, own_lines: list[str]) -> tuple[str, list[str]]:
        """URI and lines of a related location's file (the document itself, or another)."""
        if path == own_path:
            return uri, own_lines
        p = Path(path)
        if not p.is_absolute():
            p = (self._path_of(uri).parent / p).resolve()
        other = from_fs_path(str(p)) or uri
        open_doc = self.docs.get(other)
        if open_doc is not None and open_doc.text:
            return other, split_lines(open_doc.text)
        try:
            return other, split_lines(p.read_text(encoding="utf-8", errors="replace"))
        except OSError:
            return other, []

    def _range(self, lines: list[str], start, end) -> T.Range:
        sl, sc = to_lsp(lines, start, self.encoding)
        el, ec = to_lsp(lines, end, self.encoding)
        return T.Range(start=T.Position(line=sl, character=sc), end=T.Position(line=el, character=ec))

    def _publish(self, uri: str) -> None:
        doc = self.results(uri)
        self.text_document_publish_diagnostics(
            T.PublishDiagnosticsParams(uri=uri, diagnostics=doc.items, version=doc.version))

    def _pull(self, params: T.DocumentDiagnosticParams):
        uri = params.text_document.uri
        problem = self._config_problems.get(uri)
        if problem is not None:
            return T.FullDocumentDiagnosticReport(items=[self._problem_item(problem)])
        doc = self.results(uri)
        if params.previous_result_id is not None and params.previous_result_id == doc.result_id:
            return T.UnchangedDocumentDiagnosticReport(result_id=doc.result_id)
        return T.FullDocumentDiagnosticReport(items=doc.items, result_id=doc.result_id)

    def _refresh_all(self) -> None:
        """Results changed for a reason the client cannot see (config, dynamic run)."""
        if self.pull:
            if self._capability("workspace", "diagnostics", "refresh_support"):
                self.workspace_diagnostic_refresh(None, callback=lambda *_: None)
            return
        for uri in list(self.docs):
            self._publish(uri)

    # -- configuration ------------------------------------------------------------

    def _report_config_problem(self, problem: ConfigProblem) -> None:
        """Once per problem and reload: a diagnostic on the config file and a message."""
        uri = (from_fs_path(str(problem.path)) or str(problem.path)) if problem.path else ""
        if self._config_problems.get(uri) == problem:
            return
        self._config_problems[uri] = problem
        if uri:
            self.text_document_publish_diagnostics(
                T.PublishDiagnosticsParams(uri=uri, diagnostics=[self._problem_item(problem)]))
        self._show(f"jaxlint: {problem.message} (using default settings until it is fixed)", T.MessageType.Error)

    def _problem_item(self, problem: ConfigProblem) -> T.Diagnostic:
        line = max(problem.line - 1, 0)
        return T.Diagnostic(
            range=T.Range(start=T.Position(line=line, character=0), end=T.Position(line=line + 1, character=0)),
            message=problem.message, severity=T.DiagnosticSeverity.Error, source=SOURCE)

    def _clear_config_problems(self) -> None:
        for uri in self._config_problems:
            if uri:
                self.text_document_publish_diagnostics(T.PublishDiagnosticsParams(uri=uri, diagnostics=[]))
        self._config_problems.clear()

    def _watched_files_changed(self, params: T.DidChangeWatchedFilesParams) -> None:
        self.settings.reload()
        self._clear_config_problems()
        self._refresh_all()

    def _configuration_changed(self, params: T.DidChangeConfigurationParams) -> None:
        s = params.settings
        if isinstance(s, dict) and isinstance(s.get("jaxlint"), dict):
            self._configure(s["jaxlint"])
            self._clear_config_problems()
            self._refresh_all()

    def _folders_changed(self, params: T.DidChangeWorkspaceFoldersParams) -> None:
        self.settings.reload()
        self._refresh_all()

    # -- code actions -------------------------------------------------------------

    async def _code_action(self, params: T.CodeActionParams) -> list[T.CodeAction] | None:
        uri = params.text_document.uri
        doc = self.results(uri)
        if not doc.findings and not params.context.diagnostics:
            return None
        # a copy: a newer text replaces the document's findings (and its ``made``) while
        # the job works on these
        from dataclasses import replace

        snapshot = replace(doc)
        notes: list[str] = []
        job = Job(self._linter(uri, notes), notes)
        actions = await self._off_loop(job, lambda: self._actions(snapshot, params, job))
        if self.results(uri).key != snapshot.key:
            raise JsonRpcContentModified(f"{uri} changed while its code actions were made")
        return actions

    async def _off_loop(self, job: Job, work: Callable[[], Any]) -> Any:
        """``work()`` on a thread of its own, awaited: the loop keeps answering meanwhile.
        Cancelling the awaiting task (``$/cancelRequest``) stops the thread at its next
        check; its result is then dropped."""
        loop = asyncio.get_running_loop()
        done: asyncio.Future = loop.create_future()

        def settle(result: Any, error: BaseException | None) -> None:
            if done.done():
                return
            if error is not None:
                done.set_exception(error)
            else:
                done.set_result(result)

        def run() -> None:
            try:
                result = work()
            except BaseException as e:  # noqa: BLE001 -- handed to the awaiting task
                loop.call_soon_threadsafe(settle, None, e)
            else:
                loop.call_soon_threadsafe(settle, result, None)

        self._jobs.add(job)
        try:
            threading.Thread(target=run, name="jaxlint-job", daemon=True).start()
            return await done
        finally:
            job.cancelled.set()  # stops the thread if this task was cancelled; else a no-op
            self._jobs.discard(job)
            for note in list(job.notes):
                self._log_once(note)

    # -- messages -------------------------------------------------------------------

    def _show(self, message: str, kind: T.MessageType) -> None:
        self.window_show_message(T.ShowMessageParams(type=kind, message=message))
        self.window_log_message(T.LogMessageParams(type=kind, message=message))

    def _show_once(self, message: str, kind: T.MessageType) -> None:
        if message not in self._told:
            self._told.add(message)
            self._show(message, kind)

    def _log_once(self, message: str) -> None:
        if message not in self._told:
            self._told.add(message)
            self.window_log_message(T.LogMessageParams(type=T.MessageType.Warning, message=message))

    def report_server_error(self, error: BaseException, source: Any) -> None:
        # pygls would pop up a window for every bad notification; a log line is enough
        logger.error("%s: %s", getattr(source, "__name__", source), error)
        try:
            self.window_log_message(T.LogMessageParams(type=T.MessageType.Error, message=f"jaxlint: {error}"))
        except Exception:
            pass


def serve(stdin=None, stdout=None, answered: dict | None = None) -> int:
    """Run the server on stdio until the client says exit (or goes away); the exit
    status. ``stdin``: raw bytes, or a reader that already frames them (``FramedInput``,
    or the early start's ``Replay`` over one). ``answered``: request ids already
    answered (``initialize``, see ``jaxlint.lsp.early``) -> the answer sent."""
    import sys

    from jaxlint.lsp.early import Replay
    from jaxlint.lsp.framing import FramedInput

    server = JaxlintServer()
    cast(JaxlintProtocol, server.protocol).answered = dict(answered or {})
    end_on_signals()  # (already on when started by `jaxlint server`)
    # bad framing from the client costs one message, not the connection (see framing.py)
    reader = stdin if isinstance(stdin, (FramedInput, Replay)) else FramedInput(stdin or sys.stdin.buffer)
    server.start_io(reader, stdout)  # type: ignore[arg-type]
    dynamic.kill_all()
    return 0 if server.protocol._shutdown else server.exit_code
