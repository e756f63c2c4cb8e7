"""Signals to an idle, connected `jaxlint server` end it at once with a clean exit
(issue 22, item 13): a real LSP client over stdio."""
from __future__ import annotations

import asyncio
import signal
import time

import pytest

from lsp_session import TIMEOUT, run, session


@pytest.mark.parametrize("sig", ["SIGTERM", "SIGHUP", "SIGINT"])
def test_a_signal_ends_an_idle_connected_server_promptly(tmp_path, sig):
    (tmp_path / "pyproject.toml").write_text("[tool.jaxlint]\n")

    async def body():
        async with session(tmp_path) as s:
            uri = s.open("m.py", "import jax\n\n@jax.jit\ndef f(x):\n    return x\n")
            await s.pull(uri)  # connected and answering
            proc = s.client._server
            await asyncio.sleep(0.5)  # idle: no message in flight
            t0 = time.monotonic()
            proc.send_signal(getattr(signal, sig))
            rc = await asyncio.wait_for(proc.wait(), TIMEOUT)
            return rc, time.monotonic() - t0

    rc, took = run(body())
    assert rc == 0
    # without the next message (before, it waited for one: the client's TIMEOUT); 30 s as
    # test_hardening_fuzz.PROMPT: a loaded machine tears a Python process down slowly
    assert took < 30, took
