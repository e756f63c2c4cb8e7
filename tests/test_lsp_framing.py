"""The language server survives its client: bad framing costs the bad message (dropped,
with a logged error), never the connection, and never its memory. Real `jaxlint server`
processes over stdio, driven byte by byte (a client library would not send these).

After each bad frame the same session must answer a well-formed pull-diagnostics
request with the document's finding. Regressions for the stress run's frames, then a
property over the family of framing errors against one long-lived server."""
from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

pytest.importorskip("pygls")

from jaxlint.lsp.framing import MAX_MESSAGE_BYTES, FramedInput  # noqa: E402

SOURCE = "import jax\nimport numpy as np\nW = np.ones((1024, 1024))\n\n@jax.jit\ndef f(x):\n    return x @ W\n"
TIMEOUT = 30.0


def frame(obj, length: int | None = None, sep: bytes = b"\r\n") -> bytes:
    body = json.dumps(obj).encode()
    n = len(body) if length is None else length
    return b"Content-Length: " + str(n).encode() + sep + sep + body


class RawServer:
    """A `jaxlint server` subprocess and a reader of its (well-formed) output."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.log = root / "server.log"
        self.p = subprocess.Popen([sys.executable, "-m", "jaxlint", "server", "--log-file", str(self.log)],
                                  cwd=root, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.messages: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.uri = (root / "a.py").as_uri()
        self.next_id = 100

    def _read(self) -> None:
        try:
            self._read_frames()
        except (OSError, ValueError):  # closed under it at the end of a test
            self.messages.put(None)

    def _read_frames(self) -> None:
        out = self.p.stdout
        assert out is not None
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    self.messages.put(None)
                    return
                if line == b"\r\n":
                    break
                name, _, value = line.decode().partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            self.messages.put(json.loads(out.read(length)))

    def send(self, data: bytes) -> None:
        assert self.p.stdin is not None
        self.p.stdin.write(data)
        self.p.stdin.flush()

    def response(self, msg_id, timeout: float = TIMEOUT) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            assert left > 0, f"no answer to request {msg_id}: the server stopped serving"
            try:
                msg = self.messages.get(timeout=left)
            except queue.Empty:
                continue
            assert msg is not None, f"the server closed its output; stderr: {self.p.stderr.read().decode()[-2000:]}"
            if msg.get("id") == msg_id and "method" not in msg:
                return msg

    def request(self, method: str, params: dict) -> dict:
        self.next_id += 1
        self.send(frame({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}))
        return self.response(self.next_id)

    def start(self) -> None:
        caps = {"textDocument": {"diagnostic": {"dynamicRegistration": False}}}
        init = self.request("initialize", {"processId": None, "rootUri": self.root.as_uri(), "capabilities": caps})
        assert "capabilities" in init["result"]
        self.send(frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}))
        self.send(frame({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
            "uri": self.uri, "languageId": "python", "version": 1, "text": SOURCE}}}))

    def codes(self) -> list[str]:
        """The codes a pull of the open document's diagnostics gives now."""
        r = self.request("textDocument/diagnostic", {"textDocument": {"uri": self.uri}})
        assert "result" in r, r
        return [d["code"] for d in r["result"]["items"]]

    def stop(self) -> int:
        try:
            self.request("shutdown", None)  # type: ignore[arg-type]
            self.send(frame({"jsonrpc": "2.0", "method": "exit"}))
            return self.p.wait(timeout=TIMEOUT)
        finally:
            self.close()

    def close(self) -> None:
        if self.p.poll() is None:
            self.p.kill()
            self.p.wait()
        for stream in (self.p.stdin, self.p.stdout, self.p.stderr):
            try:
                stream.close()  # type: ignore[union-attr]
            except OSError:
                pass

    def log_text(self) -> str:
        return self.log.read_text() if self.log.exists() else ""


@pytest.fixture
def server(tmp_path):
    s = RawServer(tmp_path)
    s.start()
    assert s.codes() == ["JAX101"]
    yield s
    s.close()


def bad(method: str = "textDocument/hover", msg_id="bad") -> dict:
    return {"jsonrpc": "2.0", "id": msg_id, "method": method,
            "params": {"textDocument": {"uri": "file:///x.py"}, "position": {"line": 0, "character": 0}}}


BAD_FRAMES = {
    "length-too-short": frame(bad(), length=10),
    "length-too-long": frame(bad(), length=len(json.dumps(bad())) + 40),
    "length-non-numeric": b"Content-Length: abc\r\n\r\n" + json.dumps(bad()).encode(),
    "length-negative": b"Content-Length: -5\r\n\r\n" + json.dumps(bad()).encode(),
    "length-zero": b"Content-Length: 0\r\n\r\n" + json.dumps(bad()).encode(),
    "length-missing": b"Content-Type: application/vscode-jsonrpc\r\n\r\n" + json.dumps(bad()).encode(),
    "no-headers-at-all": json.dumps(bad()).encode(),
    "huge-length-no-body": b"Content-Length: 999999\r\n\r\n",
    "length-10-to-the-12": b"Content-Length: 1000000000000\r\n\r\n" + json.dumps(bad()).encode(),
    "garbage-line": b"hello\r\n\r\n",
    "not-json": frame(None, length=9)[:-4] + b"{not json",
}


@pytest.mark.parametrize("kind", sorted(BAD_FRAMES))
def test_a_bad_frame_is_dropped_with_a_logged_error_and_the_server_keeps_serving(server, kind):
    server.send(BAD_FRAMES[kind])
    assert server.codes() == ["JAX101"]
    assert server.codes() == ["JAX101"]  # and the one after
    assert server.stop() == 0
    log = server.log_text()
    assert "dropped" in log or "Unable to handle message" in log or "Failed to" in log, log


def test_bare_newline_separators_are_read_as_the_client_meant(server):
    server.send(frame({"jsonrpc": "2.0", "id": 7, "method": "textDocument/diagnostic",
                       "params": {"textDocument": {"uri": server.uri}}}, sep=b"\n"))
    r = server.response(7)
    assert [d["code"] for d in r["result"]["items"]] == ["JAX101"]
    assert server.codes() == ["JAX101"]


def test_a_length_of_10_to_the_12_is_not_allocated(server):
    server.send(b"Content-Length: 1000000000000\r\n\r\n")
    assert server.codes() == ["JAX101"]
    assert "over the limit" in server.log_text()
    assert server.p.poll() is None


def test_a_document_with_a_lone_surrogate_gets_its_diagnostics(server):
    text = SOURCE + 's = "\\ud800"  # \ud800\n'
    body = json.dumps({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
        "textDocument": {"uri": server.uri, "version": 2}, "contentChanges": [{"text": text}]}})
    assert "\\ud800" in body  # legal in JSON as an escape, not encodable in UTF-8
    server.send(b"Content-Length: %d\r\n\r\n" % len(body.encode()) + body.encode())
    r = server.request("textDocument/diagnostic", {"textDocument": {"uri": server.uri}})
    assert "error" not in r, r
    assert [d["code"] for d in r["result"]["items"]] == ["JAX101"]


# ------------------------------------------------------------------------------ property
framing_errors = st.one_of(
    st.integers(1, 60).map(lambda k: ("short", k)),
    st.integers(1, 10**6).map(lambda k: ("long", k)),
    st.sampled_from(["abc", "-5", "0", "1e3", "12 34", "0x10", "+7", "", "９"]).map(lambda v: ("value", v)),
    st.sampled_from([b"", b"Content-Type: x\r\n"]).map(lambda h: ("missing", h)),
    st.integers(MAX_MESSAGE_BYTES + 1, 10**15).map(lambda n: ("huge", n)),
    st.binary(min_size=1, max_size=40).filter(lambda b: b"ength" not in b.lower()).map(lambda g: ("garbage", g)),
)


def bad_frame(error) -> bytes:
    kind, arg = error
    body = json.dumps(bad()).encode()
    if kind == "short":
        return b"Content-Length: %d\r\n\r\n" % max(1, len(body) - arg) + body
    if kind == "long":
        return b"Content-Length: %d\r\n\r\n" % (len(body) + arg) + body
    if kind == "value":
        return b"Content-Length: " + arg.encode() + b"\r\n\r\n" + body
    if kind == "missing":
        return arg + b"\r\n" + body
    if kind == "huge":
        return b"Content-Length: %d\r\n\r\n" % arg
    return arg


@pytest.fixture(scope="module")
def long_lived(tmp_path_factory):
    s = RawServer(tmp_path_factory.mktemp("framing"))
    s.start()
    yield s
    assert s.stop() == 0


@settings(max_examples=40, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.filter_too_much])
@given(errors=st.lists(framing_errors, min_size=1, max_size=3))
def test_after_any_framing_errors_the_next_message_is_answered(long_lived, errors):
    for e in errors:
        long_lived.send(bad_frame(e))
    assert long_lived.codes() == ["JAX101"]
    assert long_lived.p.poll() is None


# ------------------------------------------------------------- the reader, without a server
class _Chunks:
    """A raw stream that returns its bytes in the given pieces (as a pipe may)."""

    def __init__(self, *chunks: bytes) -> None:
        self.chunks = list(chunks)

    def read1(self, n: int) -> bytes:
        return self.chunks.pop(0) if self.chunks else b""


def messages(*chunks: bytes) -> list[bytes]:
    r = FramedInput(_Chunks(*chunks))  # type: ignore[arg-type]
    out = []
    while True:
        header = r.readline()
        if not header:
            return out
        assert header.startswith(b"Content-Length: ") and r.readline() == b"\r\n"
        out.append(r.read(int(header[16:])))


def test_a_body_that_mentions_content_length_in_a_string_is_kept_whole():
    text = {"text": "x = 1}\r\nContent-Length: 5\r\n\r\n{}"}
    good = frame(text)
    assert messages(good[:30], good[30:], frame({"b": 1})) == [json.dumps(text).encode(), b'{"b": 1}']


def test_a_header_split_across_reads_is_read_whole():
    good = frame({"a": 1})
    assert messages(*[good[i:i + 1] for i in range(len(good))]) == [b'{"a": 1}']
