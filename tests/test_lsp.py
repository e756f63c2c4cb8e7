"""``jaxlint server`` driven over stdio by a real LSP client (pygls' LanguageClient)."""
from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("pygls", reason="the `lsp` extra (pygls) is not installed")

from lsprotocol import types as T  # noqa: E402
from pygls.exceptions import JsonRpcException  # noqa: E402

from jaxlint.diagnostic import Applicability, Position  # noqa: E402
from jaxlint.lsp.editing import noqa_edit, smallest_replacement  # noqa: E402
from jaxlint.lsp.positions import from_units, to_units  # noqa: E402
from jaxlint.textutil import split_lines  # noqa: E402
from jaxlint.registry import all_rules  # noqa: E402
from jaxlint.rule import Invalid, example_source  # noqa: E402
from rule_fixtures import cases  # noqa: E402
from lsp_session import TIMEOUT, Session, capabilities, clean, run, session  # noqa: E402

CAPTURED = """
import jax
import numpy as np

W = np.zeros((1024, 1024))

@jax.jit
def f(x):
    return x @ W
"""
CLEAN = """
import jax
import numpy as np

W = np.zeros((1024, 1024))

@jax.jit
def f(x, W):
    return x @ W
"""


def codes(items) -> list[str]:
    return [d.code for d in items]


# -- lifecycle ----------------------------------------------------------------------


def test_initialize_advertises_pull_diagnostics_code_actions_and_incremental_sync(tmp_path):
    async def go():
        async with session(tmp_path) as s:
            caps = s.init_result.capabilities
            assert s.init_result.server_info.name == "jaxlint"
            assert caps.diagnostic_provider.identifier == "jaxlint"
            assert caps.diagnostic_provider.inter_file_dependencies is False
            kinds = caps.code_action_provider.code_action_kinds
            assert {"quickfix", "source.fixAll.jaxlint"} <= set(kinds)
            assert caps.text_document_sync.change == T.TextDocumentSyncKind.Incremental
            assert caps.text_document_sync.save is not None
            assert caps.position_encoding == T.PositionEncodingKind.Utf16
            # the server watches config files where the client can watch for it
            await s.wait_for(lambda: s.registrations, "registration of config watchers")
            reg = s.registrations[0]
            assert reg.method == T.WORKSPACE_DID_CHANGE_WATCHED_FILES
            globs = {w["globPattern"] for w in reg.register_options["watchers"]}  # LSPAny: plain JSON
            assert globs == {"**/pyproject.toml", "**/jaxlint.toml", "**/.jaxlint.toml"}

    run(go())


def test_shutdown_then_exit_ends_the_server_with_status_0(tmp_path):
    async def go():
        async with session(tmp_path) as s:
            pass
        assert s.client._server.returncode == 0

    run(go())


def test_exit_without_shutdown_ends_the_server_with_status_1(tmp_path):
    async def go():
        async with session(tmp_path) as s:
            s.client.exit(None)
            await asyncio.wait_for(s.client._server.wait(), TIMEOUT)
            assert s.client._server.returncode == 1

    run(go())


def test_missing_lsp_extra_is_a_clear_error_not_a_traceback():
    code = ("import sys; sys.modules['pygls'] = None; from jaxlint.cli import main; "
            "sys.exit(main(['server']))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert 'pip install "jaxlint[lsp] @ git+https://github.com/jaxlint/jaxlint"' in proc.stderr
    assert "Traceback" not in proc.stderr


# -- push and pull ------------------------------------------------------------------


def test_client_without_pull_support_gets_diagnostics_pushed_on_open(tmp_path):
    async def go():
        async with session(tmp_path, pull=False) as s:
            uri = s.open("model.py", CAPTURED)
            pub = await s.next_publish(uri)
            assert pub.version == 1
            (d,) = pub.diagnostics
            assert d.code == "JAX101"
            assert d.source == "jaxlint"
            assert d.severity == T.DiagnosticSeverity.Warning
            assert d.code_description.href.endswith("/rules/JAX101.md")
            line = clean(CAPTURED).splitlines()[7]
            col = line.index("W")
            assert (d.range.start.line, d.range.start.character) == (7, col)
            assert (d.range.end.line, d.range.end.character) == (7, col + 1)
            # related information points at the array's definition
            (rel,) = d.related_information
            assert rel.location.uri == uri
            assert rel.location.range.start.line == 3
            assert "defined here" in rel.message
            assert d.data["noqa_row"] == 8
            assert d.data["fix"] is None
            assert d.data["version"] == 1

    run(go())


def test_pull_returns_full_report_then_unchanged_for_the_same_result_id(shared_server, request):
    async def body(s, folder):
        uri = s.open(f"{folder}/model.py", CAPTURED)
        report = await s.pull(uri)
        assert report.kind == "full"
        assert codes(report.items) == ["JAX101"]
        assert report.items[0].data["group"] == "perf"  # the rule's lint group, where the editor shows it
        again = await s.pull(uri, previous=report.result_id)
        assert again.kind == "unchanged"
        assert again.result_id == report.result_id
        # a pulling client is not also pushed to (it would show everything twice)
        await asyncio.sleep(0.3)
        assert not s.published[uri]
        # a finding kind with a group of its own: JAX114 is in pedantic, its `same-numbers` kind
        # in suspicious, which is what the editor shows for it
        printed = s.open(f"{folder}/printed.py", "import jax\n\n\ndef f(key):\n    a = jax.random.normal(key)\n"
                                                 "    return a + jax.random.normal(key)\n")
        report = await s.pull(printed)
        assert codes(report.items) == ["JAX114"] and report.items[0].data["group"] == "suspicious"

    on_shared_server(shared_server, request, body)


def test_pull_reflects_unsaved_in_memory_changes(shared_server, request):
    async def body(s, folder):
        uri = s.open(f"{folder}/model.py", CLEAN)
        assert (await s.pull(uri)).items == ()
        line = clean(CLEAN).splitlines()[6]  # "def f(x, W):"
        # incremental change: delete ", W" (the disk copy stays clean)
        start = line.index(", W")
        s.change(uri, T.Range(T.Position(6, start), T.Position(6, start + 3)), "")
        report = await s.pull(uri)
        assert codes(report.items) == ["JAX101"]
        assert (s.root / folder / "model.py").read_text().splitlines()[6] == "def f(x, W):"  # not saved

    on_shared_server(shared_server, request, body)


def test_changes_are_debounced_into_one_publish_of_the_last_version(tmp_path):
    async def go():
        async with session(tmp_path, pull=False, init={"debounceMs": 400}) as s:
            uri = s.open("model.py", CLEAN)
            await s.next_publish(uri)
            text = clean(CLEAN)
            for i in range(5):  # typing: five quick edits
                s.replace_all(uri, text + f"# edit {i}\n")
            s.replace_all(uri, clean(CAPTURED))
            pub = await s.next_publish(uri, after=1)
            assert pub.version == 7
            assert codes(pub.diagnostics) == ["JAX101"]
            await asyncio.sleep(0.8)
            assert len(s.published[uri]) == 2, [p.version for p in s.published[uri]]

    run(go())


def test_save_lints_at_once_without_waiting_for_the_debounce(tmp_path):
    async def go():
        async with session(tmp_path, pull=False, init={"debounceMs": 60000}) as s:
            uri = s.open("model.py", CLEAN)
            await s.next_publish(uri)
            s.replace_all(uri, clean(CAPTURED))
            s.save(uri, "model.py")
            # well inside the 60 s debounce, with room for a loaded machine's lint
            pub = await s.next_publish(uri, after=1, timeout=30)
            assert codes(pub.diagnostics) == ["JAX101"]

    run(go())


def test_close_clears_the_documents_diagnostics(tmp_path):
    async def go():
        async with session(tmp_path, pull=False) as s:
            uri = s.open("model.py", CAPTURED)
            assert (await s.next_publish(uri)).diagnostics
            s.close(uri)
            pub = await s.next_publish(uri, after=1)
            assert pub.diagnostics == ()

    run(go())


# -- positions ----------------------------------------------------------------------

ASTRAL = """
import jax
import numpy as np

W = np.zeros((1024, 1024))  # 📦 weights

@jax.jit
def f(x):
    return {"😀é": x @ W}["😀é"]
"""


def _units(s: str, encoding: str) -> int:
    return len(s.encode("utf-16-le")) // 2 if encoding == "utf-16" else len(s.encode("utf-8"))


@pytest.mark.parametrize("encoding", ["utf-16", "utf-8"])
def test_columns_after_astral_characters_count_in_the_negotiated_encoding(tmp_path, encoding):
    async def go():
        async with session(tmp_path, pull=False, encodings=[encoding]) as s:
            assert s.init_result.capabilities.position_encoding == encoding
            uri = s.open("model.py", ASTRAL)
            (d,) = (await s.next_publish(uri)).diagnostics
            line = clean(ASTRAL).splitlines()[7]
            cp = line.index("W}")
            assert d.range.start.line == 7
            assert d.range.start.character == _units(line[:cp], encoding)
            assert d.range.end.character == _units(line[:cp + 1], encoding)
            assert d.range.start.character != cp  # the emoji makes the encodings differ

    run(go())


def test_position_conversion_round_trips_on_a_line_with_emoji():
    line = 'a = "😀"; b = "é"  # 𝄞'
    for cp_col in range(1, len(line) + 2):
        for enc in ("utf-8", "utf-16", "utf-32"):
            assert from_units(line, to_units(line, cp_col, enc), enc) == cp_col
    assert to_units(line, line.index("b") + 1, "utf-16") == line.index("b") + 1  # one emoji: +1 unit
    # an offset inside a surrogate pair rounds up, never splitting the character
    assert from_units(line, line.index("😀") + 1, "utf-16") == line.index("😀") + 2
    assert split_lines("a\r\nb\rc\nd") == ["a", "b", "c", "d"]


# -- code actions -------------------------------------------------------------------


def test_noqa_code_action_applied_and_relinted_hides_the_finding(shared_server, request):
    async def body(s, folder):
        uri = s.open(f"{folder}/model.py", CAPTURED)
        (d,) = (await s.pull(uri)).items
        actions = await s.actions(uri, [d])
        (noqa,) = [a for a in actions if "noqa" in a.title]
        assert noqa.title == "Suppress with `# noqa: JAX101`"
        assert noqa.kind == T.CodeActionKind.QuickFix
        new = s.apply(uri, noqa.edit)
        assert new.splitlines()[7] == "    return x @ W  # noqa: JAX101"
        assert (await s.pull(uri)).items == ()

    on_shared_server(shared_server, request, body)


def test_noqa_code_action_extends_an_existing_noqa_comment(tmp_path):
    src = clean(CAPTURED).replace("return x @ W", "return x @ W  # noqa: F401")

    async def go():
        async with session(tmp_path, document_changes=False) as s:
            uri = s.open("model.py", src)
            (d,) = (await s.pull(uri)).items
            (noqa,) = [a for a in await s.actions(uri, [d]) if "noqa" in a.title]
            assert noqa.edit.changes  # this client cannot take document_changes
            new = s.apply(uri, noqa.edit)
            assert new.splitlines()[7] == "    return x @ W  # noqa: F401, JAX101"
            assert (await s.pull(uri)).items == ()

    run(go())


def test_code_actions_come_from_the_current_text_when_data_is_missing(shared_server, request):
    async def body(s, folder):
        uri = s.open(f"{folder}/model.py", CAPTURED)
        (d,) = (await s.pull(uri)).items
        bare = T.Diagnostic(range=d.range, message=d.message, code=d.code, source=d.source)
        titles = [a.title for a in await s.actions(uri, [bare])]
        assert "Suppress with `# noqa: JAX101`" in titles
        # a diagnostic that is not the server's gets nothing
        other = T.Diagnostic(range=d.range, message="x", code="E501", source="flake8")
        assert [a for a in await s.actions(uri, [other], only=["quickfix"])] == []

    on_shared_server(shared_server, request, body)


def _fix_examples(applicability=None):
    out = []
    for rule in all_rules():
        if rule.phase.value != "static" or not rule.fixable:
            continue
        if applicability is not None and rule.fixable != applicability:
            continue
        for case in cases(rule):
            ex = case.example
            if isinstance(ex, Invalid) and ex.expected_fix is not None and not ex.options and not ex.files:
                out.append(pytest.param(rule, ex, id=case.ident))
    return out or [pytest.param(None, None, marks=pytest.mark.skip(reason="no static rule has a fix example yet"))]


@pytest.fixture(scope="module")
def shared_server(tmp_path_factory):
    """One server for the tests of this module that need no server of their own (starting
    one costs about 2.5 s of CPU; the ~40 fix examples alone started one each): each test
    sets its settings the way an editor changes them (workspace/didChangeConfiguration,
    which the server applies as it does initializationOptions) and works on files of its
    own in a folder named after it, closed when it is done."""
    root = tmp_path_factory.mktemp("shared-server")
    loop = asyncio.new_event_loop()

    async def start() -> Session:
        s = Session(root)
        await s.start(capabilities())
        return s

    s = loop.run_until_complete(asyncio.wait_for(start(), 2 * TIMEOUT))
    try:
        yield loop, s
    finally:
        loop.run_until_complete(asyncio.wait_for(s.stop(), 4 * TIMEOUT))
        loop.close()


def on_shared_server(shared_server, request, body, settings: dict | None = None) -> None:
    """Run ``body(session, folder)`` on the shared server, ``folder`` (relative to its root)
    being this test's own, with ``settings`` (none: the defaults, as a fresh server has)."""
    loop, s = shared_server
    folder = request.node.name

    async def go():
        s.client.workspace_did_change_configuration(T.DidChangeConfigurationParams(
            settings={"jaxlint": dict(settings or {})}))
        before = set(s.texts)
        try:
            await body(s, folder)
        finally:
            for uri in set(s.texts) - before:
                s.close(uri)

    loop.run_until_complete(asyncio.wait_for(go(), 600.0))


@pytest.mark.parametrize("rule, example", _fix_examples())
def test_fix_code_action_applied_and_relinted_gives_the_rules_expected_fix(shared_server, request, rule, example):
    async def body(s, folder):
        uri = s.open(f"{folder}/example.py", example_source(example))
        for _ in range(20):  # one fix at a time, re-linting in between, like a user would
            items = [d for d in (await s.pull(uri)).items if d.code == rule.code]
            fixes = [a for d in items for a in await s.actions(uri, [d], only=["quickfix"])
                     if not a.title.startswith("Suppress with")]
            if not fixes:
                break
            s.apply(uri, fixes[0].edit)
        assert s.texts[uri] == textwrap.dedent(example.expected_fix).lstrip("\n")

    on_shared_server(shared_server, request, body, {"select": [rule.code, *example.select]})


@pytest.mark.parametrize("rule, example", _fix_examples(Applicability.SAFE))
def test_fix_all_source_action_applies_the_safe_fixes(shared_server, request, rule, example):
    async def body(s, folder):
        uri = s.open(f"{folder}/example.py", example_source(example))
        await s.pull(uri)
        (fix_all,) = await s.actions(uri, [], only=["source.fixAll"])
        assert fix_all.kind == "source.fixAll.jaxlint"
        s.apply(uri, fix_all.edit)
        assert s.texts[uri] == textwrap.dedent(example.expected_fix).lstrip("\n")
        assert [d for d in (await s.pull(uri)).items if d.code == rule.code and d.data["fix"]] == []

    on_shared_server(shared_server, request, body, {"select": [rule.code, *example.select]})


def test_fix_all_offers_nothing_when_no_finding_has_a_safe_fix(shared_server, request):
    async def body(s, folder):
        uri = s.open(f"{folder}/model.py", CAPTURED)  # JAX101 has no fix
        await s.pull(uri)
        assert await s.actions(uri, [], only=["source.fixAll"]) == []

    on_shared_server(shared_server, request, body)


def test_noqa_edit_refuses_lines_where_a_comment_would_change_the_code():
    src = 'x = """a\nb\n"""\ny = 1 + \\\n    2\nz = 3  # type: ignore\n'
    assert noqa_edit(src, 2, "JAX101") is None  # inside a string
    assert noqa_edit(src, 4, "JAX101") is None  # after a backslash
    assert noqa_edit(src, 3, "JAX101") is not None  # the string's closing line is fine
    e = noqa_edit(src, 6, "JAX101")
    assert (e.start.line, e.content) == (6, "  # noqa: JAX101")
    assert noqa_edit("x = 1  # noqa\n", 1, "JAX101") is None  # a blanket noqa covers it
    assert noqa_edit("x = 1  # noqa: JAX101\n", 1, "JAX101") is None


def test_fix_all_edit_replaces_only_the_changed_lines():
    text = "a = 1\nb = 2\nc = 3\nd = 4"
    assert smallest_replacement(text, "a = 1\nB = 2\nc = 3\nd = 4") == (Position(2, 1), Position(3, 1), "B = 2\n")
    assert smallest_replacement(text, "a = 1\nd = 4") == (Position(2, 1), Position(4, 1), "")
    # an edit on the last line (no newline after it) ends at the end of the document
    assert smallest_replacement(text, "a = 1\nb = 2\nc = 3\nd = 5") == (Position(4, 1), Position(4, 6), "d = 5")


# -- configuration ------------------------------------------------------------------


def test_nearest_config_file_applies_per_document_across_workspace_folders(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    (a / "pkg").mkdir(parents=True)
    b.mkdir()
    (a / "pyproject.toml").write_text('[tool.jaxlint]\nignore = ["JAX101"]\n')

    async def go():
        async with session(tmp_path, folders=[a, b]) as s:
            ua = s.open("a/pkg/model.py", CAPTURED)
            ub = s.open("b/model.py", CAPTURED)
            assert (await s.pull(ua)).items == ()
            assert codes((await s.pull(ub)).items) == ["JAX101"]

    run(go())


def test_edited_config_file_is_reloaded_even_without_a_watcher_notification(tmp_path):
    cfg = tmp_path / "pyproject.toml"
    cfg.write_text('[tool.jaxlint]\nignore = ["JAX101"]\n')

    async def go():
        async with session(tmp_path, watch=False) as s:
            uri = s.open("model.py", CAPTURED)
            assert (await s.pull(uri)).items == ()
            cfg.write_text('[tool.jaxlint]\nignore = []  # JAX101 back on\n')
            assert codes((await s.pull(uri)).items) == ["JAX101"]

    run(go())


def test_watched_config_change_reloads_and_republishes_open_documents(tmp_path):
    cfg = tmp_path / "jaxlint.toml"
    cfg.write_text("select = []\n")

    async def go():
        async with session(tmp_path, pull=False) as s:
            uri = s.open("model.py", CAPTURED)
            assert (await s.next_publish(uri)).diagnostics == ()
            cfg.write_text('select = ["JAX1"]\n')
            s.client.workspace_did_change_watched_files(T.DidChangeWatchedFilesParams(changes=[
                T.FileEvent(uri=s.uri("jaxlint.toml"), type=T.FileChangeType.Changed)]))
            pub = await s.next_publish(uri, after=1)
            assert codes(pub.diagnostics) == ["JAX101"]

    run(go())


def test_a_pulling_client_is_asked_to_refresh_after_a_config_change(tmp_path):
    async def go():
        async with session(tmp_path) as s:
            uri = s.open("model.py", CAPTURED)
            assert codes((await s.pull(uri)).items) == ["JAX101"]
            (tmp_path / "jaxlint.toml").write_text('ignore = ["JAX101"]\n')
            s.client.workspace_did_change_watched_files(T.DidChangeWatchedFilesParams(changes=[
                T.FileEvent(uri=s.uri("jaxlint.toml"), type=T.FileChangeType.Created)]))
            await s.wait_for(lambda: s.refreshes, "workspace/diagnostic/refresh")
            assert (await s.pull(uri)).items == ()

    run(go())


def test_config_error_is_shown_on_the_config_file_and_the_server_keeps_linting(tmp_path):
    cfg = tmp_path / "pyproject.toml"
    cfg.write_text('[project]\nname = "x"\n\n[tool.jaxlint]\nselect = ["JAX1"]\nbogus-key = 1\n')

    async def go():
        async with session(tmp_path, pull=False) as s:
            uri = s.open("model.py", CAPTURED)
            # defaults apply meanwhile, so the document still gets its findings
            assert codes((await s.next_publish(uri)).diagnostics) == ["JAX101"]
            cfg_uri = s.uri("pyproject.toml")
            (problem,) = (await s.next_publish(cfg_uri)).diagnostics
            assert "bogus-key" in problem.message
            assert problem.severity == T.DiagnosticSeverity.Error
            assert problem.range.start.line == 5  # the line that has the bad key
            await s.wait_for(lambda: [m for m in s.messages if "bogus-key" in m.message], "a window message")
            # fixing the file clears the problem
            cfg.write_text('[project]\nname = "x"\n\n[tool.jaxlint]\nselect = ["JAX1"]\n')
            s.client.workspace_did_change_watched_files(T.DidChangeWatchedFilesParams(changes=[
                T.FileEvent(uri=cfg_uri, type=T.FileChangeType.Changed)]))
            cleared = await s.next_publish(cfg_uri, after=1)
            assert cleared.diagnostics == ()

    run(go())


def test_invalid_toml_is_reported_at_its_line(tmp_path):
    (tmp_path / "jaxlint.toml").write_text('select = ["JAX1"]\nignore = [1,,2]\n')

    async def go():
        async with session(tmp_path) as s:
            uri = s.open("model.py", CAPTURED)
            assert codes((await s.pull(uri)).items) == ["JAX101"]
            (problem,) = (await s.pull(s.uri("jaxlint.toml"))).items
            assert "invalid TOML" in problem.message
            assert problem.range.start.line == 1  # TOML's "at line 2"

    run(go())


def test_initialization_options_override_the_config_selection(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.jaxlint]\nselect = ["JAX1"]\n')

    async def go():
        async with session(tmp_path, init={"ignore": ["captured-array"]}) as s:
            uri = s.open("model.py", CAPTURED)
            assert (await s.pull(uri)).items == ()

    run(go())


def test_an_unknown_selector_in_initialization_options_is_reported_and_ignored(tmp_path):
    async def go():
        async with session(tmp_path, init={"select": ["NOPE1"]}) as s:
            await s.wait_for(lambda: [m for m in s.messages if "NOPE1" in m.message], "a message naming NOPE1")
            uri = s.open("model.py", CAPTURED)
            assert codes((await s.pull(uri)).items) == ["JAX101"]

    run(go())


# -- robustness ---------------------------------------------------------------------


def test_malformed_params_get_invalid_params_and_the_server_survives(tmp_path):
    async def go():
        async with session(tmp_path) as s:
            with pytest.raises(JsonRpcException) as err:
                await s.raw_request(T.TEXT_DOCUMENT_DIAGNOSTIC, {"textDocument": 5})
            assert err.value.code == -32602
            with pytest.raises(JsonRpcException) as err:
                await s.raw_request(T.TEXT_DOCUMENT_CODE_ACTION, {"range": "x"})
            assert err.value.code == -32602
            s.raw_notify(T.TEXT_DOCUMENT_DID_OPEN, {"textDocument": {"uri": 3}})
            s.raw_notify(T.TEXT_DOCUMENT_DID_CHANGE, {"textDocument": {"uri": s.uri("nope.py"), "version": 2},
                                                      "contentChanges": [{"text": "x"}]})
            s.raw_notify(T.TEXT_DOCUMENT_DID_SAVE, {"textDocument": {"uri": "untitled:Untitled-1"}})
            # a pull for a document that was never opened and does not exist is simply empty
            assert (await s.pull(s.uri("missing.py"))).items == ()
            assert (await s.pull("untitled:Untitled-2")).items == ()
            uri = s.open("model.py", CAPTURED)
            assert codes((await s.pull(uri)).items) == ["JAX101"]

    run(go())


def test_unknown_methods_get_method_not_found_and_the_server_survives(tmp_path):
    async def go():
        async with session(tmp_path) as s:
            with pytest.raises(JsonRpcException) as err:
                await s.raw_request("jaxlint/noSuchMethod", {})
            assert err.value.code == -32601
            s.raw_notify("jaxlint/noSuchNotification", {"x": 1})
            uri = s.open("model.py", CAPTURED)
            assert codes((await s.pull(uri)).items) == ["JAX101"]

    run(go())


def test_unparsable_files_give_a_parse_error_diagnostic_not_a_dead_server(tmp_path):
    async def go():
        async with session(tmp_path) as s:
            bad = s.open("bad.py", "import jax\ndef f(:\n    pass\n")
            (d,) = (await s.pull(bad)).items
            assert d.code == "JAX100"
            assert d.range.start.line == 1
            nul = s.open("nul.py", "import jax\nx = 1\x00\n")
            assert codes((await s.pull(nul)).items) == ["JAX100"]
            deep = s.open("deep.py", "import jax\nx = " + "(" * 5000 + ")" * 5000 + "\n")
            await s.pull(deep)
            # noqa and code actions on an unparsable file do not break either
            await s.actions(bad, [d])
            uri = s.open("model.py", CAPTURED)
            assert codes((await s.pull(uri)).items) == ["JAX101"]

    run(go())


def test_the_server_process_never_imports_jax(tmp_path):
    # jax is made unimportable in the server process: if the server imported it, the
    # lint (or the server) would fail and the finding would not arrive
    cmd = [sys.executable, "-c",
           "import sys; sys.modules['jax'] = None; sys.modules['jaxlib'] = None; "
           "from jaxlint.cli import main; sys.exit(main(['server']))"]

    async def go():
        async with session(tmp_path, command=cmd) as s:
            uri = s.open("model.py", CAPTURED)
            assert codes((await s.pull(uri)).items) == ["JAX101"]
            (noqa,) = [a for a in await s.actions(uri, list((await s.pull(uri)).items)) if "noqa" in a.title]
            assert noqa.edit is not None
            assert not [m for m in s.logs if "jax" in m.message.lower() and "error" in m.message.lower()]

    run(go())


# -- the dynamic phase on save ------------------------------------------------------

DYNAMIC = """
import jax
import numpy as np

W = np.random.randn(1024, 1024).astype(np.float32)


# jaxlint: args=(f32[8,1024])
@jax.jit
def f(x):
    return x @ W
"""


def _progress(s, kind: str) -> list:
    return [p for p in s.progress if isinstance(p.value, dict) and p.value.get("kind") == kind]


def test_dynamic_phase_runs_on_save_outside_the_server_and_supersedes_the_static_finding(tmp_path):
    pytest.importorskip("jax")
    # jax is unimportable in the server process: the trace must happen in a child
    cmd = [sys.executable, "-c",
           "import sys; sys.modules['jax'] = None; from jaxlint.cli import main; sys.exit(main(['server']))"]

    async def go():
        async with session(tmp_path, pull=False, init={"dynamic": True}, command=cmd) as s:
            uri = s.open("model.py", DYNAMIC)
            assert codes((await s.next_publish(uri)).diagnostics) == ["JAX101"]  # static, on open
            s.save(uri, "model.py")
            await s.next_publish(uri, after=1)  # the static re-lint on save comes first
            pub = await s.next_publish(uri, after=2, timeout=120)
            (d,) = pub.diagnostics
            assert d.code == "JAX201"  # measured by tracing; it supersedes JAX101 on that line
            assert d.range.start.line == 9  # line 10, 0-based
            assert d.data["phase"] == "trace"
            assert d.code_description.href.endswith("/rules/JAX201.md")
            (begin,), (end,) = _progress(s, "begin"), _progress(s, "end")
            assert begin.token == end.token
            assert "dynamic" in begin.value["title"]
            assert end.value["message"] == "1 finding(s)"
            # it stays while its line keeps its code (a new comment is fine) ...
            lines = s.texts[uri].splitlines(keepends=True)
            lines[9] = lines[9].rstrip("\n") + "  # a remark\n"
            s.replace_all(uri, "".join(lines))
            assert codes((await s.next_publish(uri, after=3)).diagnostics) == ["JAX201"]
            # ... and can be suppressed like any other finding
            (d,) = s.published[uri][3].diagnostics
            (noqa,) = [a for a in await s.actions(uri, [d]) if a.title.startswith("Suppress with")]
            assert noqa.title == "Suppress with `# noqa: JAX201`"
            s.apply(uri, noqa.edit)
            # the static guess it superseded stays gone too
            assert codes((await s.next_publish(uri, after=4)).diagnostics) == []

    run(go(), timeout=180)


def test_a_noqa_on_the_dynamic_finding_keeps_the_static_finding_it_supersedes_hidden_after_save(tmp_path):
    pytest.importorskip("jax")
    noqa = DYNAMIC.replace("    return x @ W", "    return x @ W  # noqa: JAX201")

    async def go():
        async with session(tmp_path, pull=False, init={"dynamic": True}) as s:
            uri = s.open("model.py", noqa)
            # the noqa names JAX201, and so hides its static twin JAX101 too (one problem, one finding)
            assert codes((await s.next_publish(uri)).diagnostics) == []
            s.save(uri, "model.py")
            await s.next_publish(uri, after=1)  # the static re-lint on save
            pub = await s.next_publish(uri, after=2, timeout=120)
            assert codes(pub.diagnostics) == []  # neither the noqa'd JAX201 nor the JAX101 it replaces
            (end,) = _progress(s, "end")
            assert end.value["message"] == "1 finding(s)"  # JAX201 was measured, then suppressed

    run(go(), timeout=180)


HELPER = """
def unrolled(x):
    for i in range(300):
        x = x * 1.0001 + i
    return x
"""

CALLER = """
import jax

from helpers import unrolled


# jaxlint: args=(f32[8])
@jax.jit
def f(x):
    return unrolled(x)
"""


def test_a_dynamic_finding_in_an_imported_module_is_published_to_that_module(tmp_path):
    """Saving model.py traces its jitted ``f``; the loop it unrolls is in helpers.py, where
    the finding is: it is published to helpers.py's document (moved with its line through
    the unsaved edits there), not dropped, and not shown in model.py's."""
    pytest.importorskip("jax")

    async def go():
        async with session(tmp_path, pull=False, init={"dynamic": True, "debounceMs": 0}) as s:
            helpers = s.open("helpers.py", HELPER)
            await s.next_publish(helpers)
            model = s.open("model.py", CALLER)
            await s.next_publish(model)
            helpers_before = len(s.published[helpers])
            # an unsaved line above the loop in helpers.py: the finding must follow the loop
            s.replace_all(helpers, "# a note\n" + HELPER)
            await s.next_publish(helpers, after=helpers_before)
            s.save(model, "model.py")
            pub = await s.next_publish(helpers, after=helpers_before + 1, timeout=120)
            (d,) = pub.diagnostics
            assert d.code == "JAX202" and d.data["phase"] == "trace"
            assert d.range.start.line == 3  # `for i in range(300):`, line 3 of the saved file, 4 now
            assert s.texts[helpers].splitlines()[3].strip().startswith("for i in range(300)")
            (end,) = _progress(s, "end")
            assert end.value["message"] == "1 finding(s)"
            assert codes(s.published[model][-1].diagnostics) == []

    run(go(), timeout=180)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except (FileNotFoundError, ProcessLookupError):
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc to see the worker end")
def test_a_newer_save_cancels_the_running_dynamic_analysis_and_its_worker(tmp_path):
    pytest.importorskip("jax")
    slow, pidfile = tmp_path / "slow", tmp_path / "worker.pid"
    src = clean(DYNAMIC).replace("import numpy as np\n", textwrap.dedent(f"""\
        import numpy as np
        import os, time
        if os.path.exists({str(slow)!r}):  # the first run hangs in the import
            open({str(pidfile)!r}, "w").write(str(os.getpid()))
            time.sleep(120)
        """))
    slow.write_text("")
    # the module works at import (it hangs there on purpose): allowed to be imported
    (tmp_path / "pyproject.toml").write_text("[tool.jaxlint.dynamic]\nimport-scripts = true\n")

    async def go():
        async with session(tmp_path, pull=False, init={"dynamic": True}) as s:
            uri = s.open("model.py", src)
            s.save(uri, "model.py")
            await s.wait_for(lambda: pidfile.exists() and pidfile.read_text(), "the first run's worker", 120)
            worker = int(pidfile.read_text())
            slow.unlink()
            s.save(uri, "model.py")
            await s.wait_for(lambda: len(_progress(s, "end")) == 2, "both runs to end", 120)
            first, second = (p.value["message"] for p in _progress(s, "end"))
            assert first == "cancelled"
            assert second == "1 finding(s)"
            await s.wait_for(lambda: codes(s.published[uri][-1].diagnostics) == ["JAX201"], "the dynamic finding")
            await s.wait_for(lambda: not _alive(worker), "the cancelled run's worker to end", 30)

    run(go(), timeout=240)
