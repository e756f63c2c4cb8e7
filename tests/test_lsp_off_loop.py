"""Long work in the server runs off its message loop (issue 22, item 12): a fix-all
over a file with 150 unsafe fixes does not hold up another document's diagnostics, and
``$/cancelRequest`` ends it with LSP's RequestCancelled and no edit. A real LSP client
over stdio. A fix-all of a document that changed meanwhile is answered with
ContentModified. The dynamic phase on save, in a child process, is cancelled from its
progress."""
from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

import pytest
from lsprotocol import types as T
from pygls.exceptions import JsonRpcException

from lsp_session import TIMEOUT, run, session

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from bench_scaling import module  # noqa: E402  (the benchmark's generator: one definition)

FIXES = 150
REQUEST_CANCELLED = -32800
CONTENT_MODIFIED = -32801


async def error_code(answer, what: str) -> int:
    """The error code ``answer`` ends with (it must not be a result)."""
    try:
        got = await asyncio.wait_for(answer, TIMEOUT)
    except JsonRpcException as e:
        return e.code
    raise AssertionError(f"{what} answered {str(got)[:200]}")


def test_fix_all_runs_off_the_loop_and_can_be_cancelled(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.jaxlint]\nselect = ["JAX104"]\n')
    big = module(FIXES, 0, True, per_fn=5)

    def fix_all_params(uri: str) -> dict:
        return {"textDocument": {"uri": uri},
                "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
                "context": {"diagnostics": [], "only": ["source.fixAll.jaxlint"]}}

    async def body():
        async with session(tmp_path, pull=False, init={"unsafeFixes": True}) as s:
            uri = s.open("big.py", big)
            first = await s.next_publish(uri)
            assert len(first.diagnostics) == FIXES

            # not cancelled: another document opened meanwhile gets its diagnostics first
            t0 = time.monotonic()
            _, answer = s.send_request("textDocument/codeAction", fix_all_params(uri))
            other = s.open("other.py", "import jax\nimport numpy as np\n\n@jax.jit\ndef g(x):\n    return np.exp(x)\n")
            published = await s.next_publish(other)
            other_took = time.monotonic() - t0
            fix_all_done = answer.done()
            (action,) = await asyncio.wait_for(answer, TIMEOUT)
            fix_all_took = time.monotonic() - t0

            # cancelled while at work: RequestCancelled, no edit, answered long before a fix-all
            # ends. The cancel goes a tenth of the way into the work, as this machine does a
            # warm fix-all of this text (timed just before): a fixed delay (0.3 s) lands after
            # the answer where the whole fix-all takes less
            t0 = time.monotonic()
            await asyncio.wait_for(s.send_request("textDocument/codeAction", fix_all_params(uri))[1], TIMEOUT)
            warm_took = time.monotonic() - t0
            msg_id, answer = s.send_request("textDocument/codeAction", fix_all_params(uri))
            await asyncio.sleep(warm_took / 10)
            t0 = time.monotonic()
            s.raw_notify("$/cancelRequest", {"id": msg_id})
            cancelled = await error_code(answer, "a cancelled fix-all")
            cancel_took = time.monotonic() - t0

            # the document changes while a fix-all works on it: ContentModified, no edit
            _, stale = s.send_request("textDocument/codeAction", fix_all_params(uri))
            fixed = s.apply(uri, s.client.protocol._converter.structure(action, T.CodeAction).edit)
            modified = await error_code(stale, "a fix-all of a changed document")
            return cancelled, cancel_took, published, other_took, fix_all_done, fix_all_took, fixed, modified

    cancelled, cancel_took, published, other_took, fix_all_done, fix_all_took, fixed, modified = run(body())
    print(f"fix-all of {FIXES} fixes {fix_all_took:.2f} s; other document's diagnostics after {other_took:.2f} s; "
          f"cancel answered after {cancel_took:.2f} s")
    assert cancelled == REQUEST_CANCELLED
    assert [d.code for d in published.diagnostics] == ["JAX104"]
    assert fixed.count("jnp.exp(") == FIXES  # the uncancelled fix-all did all the work
    # the other document did not wait for the fix-all (before: it waited for all of it)
    assert not fix_all_done and other_took < fix_all_took / 2, (other_took, fix_all_took)
    assert cancel_took < fix_all_took, (cancel_took, fix_all_took)
    assert modified == CONTENT_MODIFIED


def _children(pid: int) -> list[int]:
    """Processes whose parent is ``pid`` (from /proc)."""
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] not in ("Z", "X"):
            out.append(int(stat.parent.name))
    return out


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc to see the child end")
def test_a_dynamic_run_on_save_is_cancelled_from_its_progress(tmp_path):
    """The dynamic phase on save runs in a child process; cancelling its progress
    (``window/workDoneProgress/cancel``) ends the child and its findings never come."""
    pytest.importorskip("jax")
    (tmp_path / "pyproject.toml").write_text("[tool.jaxlint]\n")

    def progress(s, kind: str) -> list:
        return [p for p in s.progress if isinstance(p.value, dict) and p.value.get("kind") == kind]

    async def body():
        async with session(tmp_path, pull=False, init={"dynamic": True}) as s:
            uri = s.open("m.py", "import jax\n\n\n@jax.jit\ndef f(x):\n    return x * 2\n")
            await s.next_publish(uri)
            server = s.client._server.pid
            s.save(uri, "m.py")
            (begin,) = await s.wait_for(lambda: progress(s, "begin"), "the dynamic run's progress")
            assert begin.value["cancellable"] is True
            await s.wait_for(lambda: _children(server), "the dynamic run's child")
            s.raw_notify("window/workDoneProgress/cancel", {"token": begin.token})
            (end,) = await s.wait_for(lambda: progress(s, "end"), "the progress to end")
            await s.wait_for(lambda: not _children(server), "the child to end", 60)
            published = len(s.published[uri])
            await asyncio.sleep(1.0)
            return end.value["message"], len(s.published[uri]) - published

    message, later = run(body())
    assert message == "cancelled"
    assert later == 0  # no dynamic result published after the cancel
