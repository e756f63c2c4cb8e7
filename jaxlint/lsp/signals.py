"""SIGTERM, SIGHUP and SIGINT end the language server at once, idle or busy, from the
moment ``jaxlint server`` runs (before ``initialize`` is read): its children (dynamic
checks and their workers) are killed, the log is flushed, exit status 0.

Light on purpose (no pygls): it is installed before the server's heavy imports.
"""
from __future__ import annotations

import logging
import os
import signal
import threading

from jaxlint.lsp import dynamic

logger = logging.getLogger("jaxlint.lsp")

_installed = False


def end_on_signals() -> None:
    """Install the handling once (a second call does nothing).

    A signal may reach any thread, and the main thread may sleep in the event loop
    until the next message; so the signal's handler only wakes a thread of ours (through
    ``signal.set_wakeup_fd``), which ends the process. A signal ignored when the server
    started (``nohup``) stays ignored."""
    global _installed
    if _installed or threading.current_thread() is not threading.main_thread():
        return
    _installed = True
    wanted = set()
    for name in ("SIGTERM", "SIGHUP", "SIGINT"):
        sig = getattr(signal, name, None)
        if sig is None or signal.getsignal(sig) is signal.SIG_IGN:
            continue
        signal.signal(sig, lambda signum, frame: None)
        wanted.add(int(sig))
    if not wanted:
        return
    r, w = os.pipe()
    os.set_blocking(w, False)
    signal.set_wakeup_fd(w, warn_on_full_buffer=False)

    def watch() -> None:
        while True:
            got = os.read(r, 64)
            hit = next((b for b in got if b in wanted), None)
            if not got or hit is not None:
                break
        logger.info("stopped by %s", signal.Signals(hit).name if hit else "the end of the signal pipe")
        try:
            dynamic.kill_all()
        finally:
            logging.shutdown()
            os._exit(0)

    threading.Thread(target=watch, name="jaxlint-signals", daemon=True).start()
