"""``jaxlint check --watch`` (issue 21, ruff parity): the real CLI in a subprocess checks,
checks again when a file is edited (a new finding appears), when a config file changes
and when a new file appears, and ends with exit status 0 on SIGINT (Ctrl-C)."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from helpers import run_cli

#: a ceiling against hangs: a loaded machine starts jaxlint in tens of seconds
WAIT = 120.0

CLEAN = "import jax\n\n\n@jax.jit\ndef f(x):\n    return x\n"
BAD = "import jax\nimport numpy as np\n\n\n@jax.jit\ndef f(x):\n    return np.exp(x)\n"


def _wait(what, predicate, proc):
    end = time.monotonic() + WAIT
    while time.monotonic() < end:
        if predicate():
            return
        if proc.poll() is not None:
            raise AssertionError(f"jaxlint --watch ended ({proc.returncode}) before {what}")
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def test_watch_checks_again_on_an_edit_and_stops_cleanly_on_ctrl_c(tmp_path: Path):
    on = '[tool.jaxlint]\nextend-select = ["JAX104"]\n'  # the sample's rule is in the nursery
    (tmp_path / "pyproject.toml").write_text(on)
    (tmp_path / "m.py").write_text(CLEAN)
    out, err = tmp_path / "out.txt", tmp_path / "err.txt"
    env = {k: v for k, v in os.environ.items() if k != "JAXLINT_OUTPUT_FORMAT"}
    with open(out, "wb") as o, open(err, "wb") as e:
        proc = subprocess.Popen([sys.executable, "-m", "jaxlint", "check", "--watch", "."],
                                cwd=tmp_path, stdout=o, stderr=e, env=env)
    try:
        rounds = lambda: err.read_text().count("watching for file changes")  # noqa: E731
        _wait("the first round", lambda: rounds() >= 1, proc)
        assert "All checks passed!" in out.read_text()
        (tmp_path / "m.py").write_text(BAD)
        _wait("a round after the edit", lambda: rounds() >= 2, proc)
        assert "m.py:7:12: JAX104" in out.read_text()
        assert "changed: m.py" in err.read_text()
        # a config change is a change too: the finding's rule is now off
        (tmp_path / "pyproject.toml").write_text("[tool.jaxlint]\n")
        _wait("a round after the config edit", lambda: rounds() >= 3, proc)
        assert out.read_text().rstrip().endswith("All checks passed!")
        time.sleep(1.5)  # idle: no change, no round
        assert rounds() == 3
        # a new file in a watched folder is found (its folder changed) and checked
        (tmp_path / "pyproject.toml").write_text(on)
        _wait("a round after the config is restored", lambda: rounds() >= 4, proc)
        (tmp_path / "n.py").write_text(BAD)
        _wait("a round for the new file", lambda: rounds() >= 5, proc)
        assert "n.py:7:12: JAX104" in out.read_text()
        proc.send_signal(signal.SIGINT)
        rc = proc.wait(WAIT)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert rc == 0, err.read_text()
    assert err.read_text().rstrip().endswith("stopped")
    assert "Traceback" not in err.read_text()


def test_watch_refuses_what_it_cannot_repeat(tmp_path: Path):
    (tmp_path / "m.py").write_text(CLEAN)
    r = run_cli("check", "--watch", "--add-noqa", "m.py", cwd=tmp_path, timeout=WAIT)
    assert r.returncode == 2 and "--watch cannot be combined with --add-noqa" in r.stderr
