"""``jaxlint server``: the language server, for editors (see docs/editors.md)."""
from __future__ import annotations

import argparse
import logging
import sys


def add_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser("server", help="run the language server (LSP over stdio) for editors")
    # editors and LSP client libraries often pass --stdio; stdio is the only transport
    p.add_argument("--stdio", action="store_true", help="talk LSP over stdin/stdout (the default)")
    p.add_argument("--log-file", help="write the server's log here (default: stderr)")
    p.add_argument("--log-level", default="WARNING", choices=("DEBUG", "INFO", "WARNING", "ERROR"))
    return p


def run(args) -> int:
    import importlib.util

    # pygls is the optional `lsp` extra: look for it without importing it (slow)
    missing = next((m for m in ("pygls", "lsprotocol", "cattrs") if importlib.util.find_spec(m) is None), None)
    if missing is not None:
        from jaxlint.install import install_command

        print(
            "jaxlint: error: `jaxlint server` needs the language server extra "
            f"({missing} is not installed): {install_command('lsp')}",
            file=sys.stderr,
        )
        return 2
    handler = logging.FileHandler(args.log_file) if args.log_file else logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=getattr(logging, args.log_level), handlers=[handler])
    from jaxlint.lsp.signals import end_on_signals

    end_on_signals()  # from now on, a signal ends the server with exit 0 (even before initialize)
    # stdout carries the protocol: anything printed there by mistake would corrupt it
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr
    from jaxlint.lsp.early import answer_initialize
    from jaxlint.lsp.framing import FramedInput

    # the editor waits for this answer: give it before the heavy imports below (the
    # first message is read through the same framing the server reads the rest with)
    replay, msg_id, result = answer_initialize(FramedInput(stdin), stdout)
    from jaxlint.lsp.server import serve

    return serve(replay, stdout, {msg_id: result} if msg_id is not None else None)
