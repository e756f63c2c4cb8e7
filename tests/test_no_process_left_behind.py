"""No process outlives jaxlint, whatever user code starts, and however jaxlint ends.

User code under the dynamic phase forks, spawns `sleep 120`, daemonises with `setsid`
and a double fork, and forks inside a jitted function while it is traced. The user code
marks every process it starts: it writes the process id and start time to a marker
file (a forked child shows no environment change in ``/proc``, so an environment marker
would miss it), and survivors are found by those marks, not by name. Then jaxlint is
stopped with SIGTERM and SIGHUP while a worker hangs: it must exit promptly, its
workers and their children must be gone, and so must its ``jaxlint-workers-*`` folder.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")

#: prepended to each user module: marks a process as one that must not survive
MARK = """
def _mark(pid):
    with open(f"/proc/{{pid}}/stat", "rb") as _f:
        _start = _f.read().rsplit(b")", 1)[-1].split()[19].decode()
    with open("{marks}", "a") as _f:
        _f.write(f"{{pid}} {{_start}}\\n")
"""

#: user modules, each starting a process that would outlive a careless linter
SPAWNERS = {
    "forks.py": """
        import os, time
        import jax
        if os.fork() == 0:
            _mark(os.getpid())
            time.sleep(120)
            os._exit(0)

        @jax.jit  # jaxlint: args=(f32[4],)
        def f(x):
            return x + 1
    """,
    "spawns.py": """
        import os, subprocess
        import jax
        CHILD = subprocess.Popen(["sleep", "120"])
        _mark(CHILD.pid)

        @jax.jit  # jaxlint: args=(f32[4],)
        def f(x):
            return x + 2
    """,
    "daemonises.py": """
        import os, time
        import jax
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                os.chdir("/")
                _mark(os.getpid())
                time.sleep(120)
            os._exit(0)
        os.wait()

        @jax.jit  # jaxlint: args=(f32[4],)
        def f(x):
            return x + 3
    """,
    "forks_in_jit.py": """
        import os, time
        import jax

        @jax.jit  # jaxlint: args=(f32[4],)
        def f(x):
            if os.fork() == 0:
                _mark(os.getpid())
                time.sleep(120)
                os._exit(0)
            return x + 4
    """,
}

HANGS = """
    import os, subprocess
    import jax

    @jax.jit  # jaxlint: args=(f32[4],)
    def spins(x):
        _mark(subprocess.Popen(["sleep", "120"]).pid)
        _mark(os.getpid())  # the worker itself: it must not go on spinning
        while True:
            pass
"""


def user_module(src: str, marks: Path) -> str:
    return MARK.format(marks=marks).lstrip() + textwrap.dedent(src).lstrip()


def marked(marks: Path) -> list[tuple[int, str]]:
    """(pid, start time) of every process the user code marked."""
    if not marks.exists():
        return []
    return [(int(p), t) for p, t in (line.split() for line in marks.read_text().splitlines() if line.strip())]


def alive(pid: int, start: str | None = None) -> bool:
    """Running (not a zombie), and the same process (start time) when ``start`` is given."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[-1].split()
    except OSError:
        return False
    return fields[0] != b"Z" and (start is None or fields[19].decode() == start)


def survivors(marks: Path, wait: float = 5.0) -> list[int]:
    """Marked processes still alive after ``wait`` seconds (kills happen asynchronously)."""
    deadline = time.monotonic() + wait
    while True:
        left = [p for p, t in marked(marks) if alive(p, t)]
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.1)


def cleanup(marks: Path) -> None:
    for pid, start in marked(marks):  # a failing test must not leave them behind either
        if alive(pid, start):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "proj"
    root.mkdir()
    (root / "pyproject.toml").write_text("[tool.jaxlint]\n[tool.jaxlint.dynamic]\nenabled = true\nimport-scripts = true\n"
                                         "function-timeout = 120\nfile-timeout = 300\nworkers = 2\n")
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("JAXLINT_")}
    env["TMPDIR"] = str(tmp)  # where the pool's jaxlint-workers-* folder goes
    return root, tmp, env


def jaxlint(root: Path, env: dict, *args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "jaxlint", "check", "--no-cache", "--output-format", "json",
                             "--select", "JAX2", *args], cwd=root, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def test_what_user_code_starts_is_gone_when_the_run_ends(project):
    root, tmp, env = project
    marks = root / "marks.txt"
    for name, src in SPAWNERS.items():
        (root / name).write_text(user_module(src, marks))
    proc = jaxlint(root, env, "--show-skipped", ".")
    try:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode in (0, 1), err
        assert "JAX200" not in {d["code"] for d in json.loads(out)}, out  # every module ran as written
        assert len(marked(marks)) == len(SPAWNERS), marks.read_text()
        assert survivors(marks) == []
        assert not list(tmp.glob("jaxlint-workers-*"))
    finally:
        proc.kill()
        cleanup(marks)


@pytest.mark.parametrize("sig,status", [(signal.SIGTERM, 128 + 15), (signal.SIGHUP, 128 + 1), (signal.SIGINT, 130)],
                         ids=["SIGTERM", "SIGHUP", "SIGINT-an-exception"])
def test_a_signal_to_jaxlint_while_a_worker_hangs_leaves_nothing_behind(project, sig, status):
    root, tmp, env = project
    marks = root / "marks.txt"
    (root / "hangs.py").write_text(user_module(HANGS, marks))
    proc = jaxlint(root, env, "hangs.py")
    try:
        deadline = time.monotonic() + 240  # a cold `import jax` in the worker on a loaded machine
        while len(marked(marks)) < 2:
            assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
            time.sleep(0.2)
        assert all(alive(p, t) for p, t in marked(marks)) and list(tmp.glob("jaxlint-workers-*"))
        time.sleep(0.5)  # well inside the spin
        proc.send_signal(sig)
        t0 = time.monotonic()
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == status, (proc.returncode, err)
        assert "Traceback" not in err, err
        assert time.monotonic() - t0 < 30  # killed, not waited for
        assert survivors(marks) == [], "the hanging worker or its child survived"
        assert not list(tmp.glob("jaxlint-workers-*")), "the worker log folder was left behind"
    finally:
        proc.kill()
        cleanup(marks)


def test_record_leaves_no_process_of_its_command_behind(tmp_path):
    marks = tmp_path / "marks.txt"
    (tmp_path / "pyproject.toml").write_text("[tool.jaxlint]\n")
    (tmp_path / "prog.py").write_text(user_module("""
        import os, subprocess, time
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                _mark(os.getpid())
                time.sleep(120)
            os._exit(0)
        os.wait()
        _mark(subprocess.Popen(["sleep", "120"]).pid)
        while len(open("%s").readlines()) < 2:
            time.sleep(0.05)
    """ % marks, marks))
    env = {k: v for k, v in os.environ.items() if not k.startswith("JAXLINT_")}
    try:
        r = subprocess.run([sys.executable, "-m", "jaxlint", "record", "--", "python", "prog.py"], cwd=tmp_path,
                           env=env, capture_output=True, text=True, timeout=600)
        assert r.returncode == 0, r.stderr
        assert len(marked(marks)) == 2
        assert survivors(marks) == []
    finally:
        cleanup(marks)
