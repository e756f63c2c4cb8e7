"""Two edges of issue 38 (item 16): a CR-only latin-1 file with a coding declaration,
which Python runs, is checked (it was "cannot decode"); a request before `initialize`
gets LSP's ServerNotInitialized (-32002), not a traceback and -32603, and the server then
initializes as usual. The real CLI and a real server process."""
from __future__ import annotations

import json
import subprocess
import sys

from helpers import run_cli

SOURCE = b'# -*- coding: latin-1 -*-\rimport jax\rimport numpy as np\r\r\r@jax.jit\rdef f(x):\r' \
         b'    return np.sin(x) + len("\xe9")\r'


def test_a_cr_only_latin1_file_with_a_coding_declaration_is_checked(tmp_path):
    f = tmp_path / "old_mac.py"
    f.write_bytes(SOURCE)
    ran = subprocess.run([sys.executable, str(f)], capture_output=True)
    assert b"SyntaxError" not in ran.stderr  # Python reads it (the jax import may fail here: no matter)
    r = run_cli("check", "--isolated", "--no-cache", "--select", "JAX100,JAX104", str(f), cwd=tmp_path)
    assert "cannot decode" not in r.stdout and "JAX104" in r.stdout and ":8:12:" in r.stdout, r.stdout + r.stderr


def _frame(obj: dict) -> bytes:
    body = json.dumps(obj).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def _read(stream) -> dict:
    length = 0
    while True:
        line = stream.readline()
        if line in (b"\r\n", b""):
            break
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    return json.loads(stream.read(length))


def test_a_request_before_initialize_is_server_not_initialized(tmp_path):
    p = subprocess.Popen([sys.executable, "-m", "jaxlint", "server"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, cwd=tmp_path)
    try:
        assert p.stdin is not None and p.stdout is not None
        p.stdin.write(_frame({"jsonrpc": "2.0", "id": 1, "method": "textDocument/codeAction", "params": {
            "textDocument": {"uri": (tmp_path / "m.py").as_uri()},
            "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
            "context": {"diagnostics": []}}}))
        p.stdin.flush()
        answer = _read(p.stdout)
        assert answer["id"] == 1 and answer["error"]["code"] == -32002, answer
        assert "traceback" not in json.dumps(answer)
        p.stdin.write(_frame({"jsonrpc": "2.0", "id": 2, "method": "initialize", "params": {
            "processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {}}}))
        p.stdin.flush()
        answer = _read(p.stdout)
        assert answer["id"] == 2 and "capabilities" in answer["result"], answer
    finally:
        p.kill()
        p.communicate(timeout=30)
