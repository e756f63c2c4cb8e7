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
    try:
        # pygls is the optional `lsp` extra: import it only when the server is asked for
        from jaxlint.lsp.server import serve
    except ImportError as e:
        if (getattr(e, "name", "") or "").split(".")[0] not in ("pygls", "lsprotocol", "cattrs"):
            raise
        print(
            "jaxlint: error: `jaxlint server` needs the language server extra "
            f"({e.name} is not installed): pip install 'jaxlint[lsp]'",
            file=sys.stderr,
        )
        return 2
    handler = logging.FileHandler(args.log_file) if args.log_file else logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=getattr(logging, args.log_level), handlers=[handler])
    # stdout carries the protocol: anything printed there by mistake would corrupt it
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr
    return serve(stdin, stdout)
