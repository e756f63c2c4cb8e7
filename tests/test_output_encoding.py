"""The reports do not depend on the locale: under one whose encoding is not UTF-8 (here
ASCII: ``LC_ALL=C`` with Python's UTF-8 mode off, as a Windows pipe has cp1252), a report
sent to a pipe is the UTF-8 that ``-o FILE`` writes, and on a terminal what the terminal
cannot show is escaped. Before, the rule docs' "·" made ``jaxlint check --output-format
sarif`` and ``jaxlint rule JAX101`` end with an internal error (exit 2). Real CLI."""
from __future__ import annotations

import codecs
import json
import os
import subprocess
import sys

import pytest

BAD = "import jax\nimport numpy as np\n\n\n@jax.jit\ndef f(x):\n    return np.exp(x)\n"


def _ascii_env() -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JAXLINT_", "LC_", "PYTHONIOENCODING"))}
    env.update(LC_ALL="C", LANG="C", PYTHONUTF8="0")
    return env


def _jaxlint(*args: str, cwd, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "jaxlint", *args], cwd=cwd, env=env, capture_output=True,
                          timeout=600)


def test_the_locale_is_ascii_here():
    out = subprocess.run([sys.executable, "-c", "import sys; print(sys.stdout.encoding)"], env=_ascii_env(),
                         capture_output=True, text=True, check=True).stdout.strip()
    assert codecs.lookup(out).name == "ascii", out  # ANSI_X3.4-1968 on Linux, US-ASCII elsewhere


def test_a_report_to_a_pipe_is_the_utf8_of_the_output_file(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.jaxlint]\nextend-select = ["JAX104"]  # nursery\n')
    (tmp_path / "m.py").write_text(BAD)
    env = _ascii_env()
    piped = _jaxlint("check", "--no-cache", "--output-format", "sarif", "m.py", cwd=tmp_path, env=env)
    assert piped.returncode == 1, piped.stderr.decode(errors="replace")
    written = _jaxlint("check", "--no-cache", "--output-format", "sarif", "-o", "out.sarif", "m.py", cwd=tmp_path,
                       env=env)
    assert written.returncode == 1, written.stderr.decode(errors="replace")
    assert piped.stdout == (tmp_path / "out.sarif").read_bytes()
    sarif = json.loads(piped.stdout.decode("utf-8"))
    assert [r["ruleId"] for r in sarif["runs"][0]["results"]] == ["JAX104"]
    assert "·" in piped.stdout.decode("utf-8")  # the rule docs' character that failed


def test_rule_docs_to_a_pipe_are_utf8(tmp_path):
    r = _jaxlint("rule", "JAX101", cwd=tmp_path, env=_ascii_env())
    assert r.returncode == 0, r.stderr.decode(errors="replace")
    assert "Tier: static · group: perf · default severity" in r.stdout.decode("utf-8")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a pseudo-terminal")
def test_on_a_terminal_what_it_cannot_show_is_escaped(tmp_path):
    import pty

    leader, follower = pty.openpty()
    try:
        proc = subprocess.Popen([sys.executable, "-m", "jaxlint", "rule", "JAX101"], cwd=tmp_path, env=_ascii_env(),
                                stdin=subprocess.DEVNULL, stdout=follower, stderr=subprocess.PIPE)
        os.close(follower)
        out = b""
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # EIO: the terminal's other end closed
                break
            if not chunk:
                break
            out += chunk
        _, err = proc.communicate(timeout=600)
    finally:
        os.close(leader)
    assert proc.returncode == 0, err.decode(errors="replace")
    out.decode("ascii")  # nothing the terminal's encoding lacks
    assert b"Tier: static \\xb7 group: perf \\xb7 default severity" in out
