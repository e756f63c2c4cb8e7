"""`jaxlint record` killed by SIGKILL, or finding the disk full when it writes the
recording (issue 38, items 14 and 15): the program does not run on unsupervised, and
what the run recorded is never lost. The real CLI in subprocesses, real jax programs."""
from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
import time

from helpers import run_cli

#: a jitted call, then a child process of its own, then sleep until killed
KILLED = '''
import os, subprocess, sys, time
import jax, jax.numpy as jnp

@jax.jit
def double(x):
    return x * 2

double(jnp.ones(3))
child = subprocess.Popen([sys.executable, "-c", "import time\\nwhile True: time.sleep(0.1)"])
open("pids", "w").write(f"{os.getpid()} {child.pid}\\n")
while True:
    time.sleep(0.1)
'''

#: a jitted call, then wait for the test's go before ending normally
WAITS = '''
import os, time
import jax, jax.numpy as jnp

@jax.jit
def triple(x):
    return x * 3

triple(jnp.ones(3))
print("ready", flush=True)
while not os.path.exists("go"):
    time.sleep(0.05)
'''


def _project(tmp_path, **files):
    (tmp_path / "pyproject.toml").write_text("[tool.jaxlint]\n")
    for name, text in files.items():
        (tmp_path / f"{name}.py").write_text(text.lstrip("\n"))
    (tmp_path / "tmp").mkdir()
    return tmp_path, {**os.environ, "TMPDIR": str(tmp_path / "tmp")}


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _left(root) -> list:
    return sorted((root / "tmp").glob("jaxlint-record-*"))


def test_a_killed_record_stops_its_program_and_the_next_run_merges_what_it_observed(tmp_path):
    """Before: the program and its child ran on after `kill -9` of record, and their
    observations stayed in $TMPDIR/jaxlint-record-* for good."""
    root, env = _project(tmp_path, killed=KILLED, other="print('nothing jitted')\n")
    env.pop("JAXLINT_OUTPUT_FORMAT", None)
    proc = subprocess.Popen([sys.executable, "-m", "jaxlint", "record", "--", "python", "killed.py"], cwd=root,
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 240
        while not (root / "pids").exists() or not (root / "pids").read_text().endswith("\n"):
            assert proc.poll() is None and time.monotonic() < deadline, "the program never got going"
            time.sleep(0.1)
        pids = [int(p) for p in (root / "pids").read_text().split()]
        proc.kill()  # SIGKILL: nothing of jaxlint runs after this
        proc.wait()
        deadline = time.monotonic() + 60
        while any(_alive(p) for p in pids) and time.monotonic() < deadline:
            time.sleep(0.1)
        running = [p for p in pids if _alive(p)]
    finally:
        for p in pids if "pids" in locals() else []:
            if _alive(p):
                os.kill(p, signal.SIGKILL)
    assert not running, "the program (or its child) ran on after record was killed"
    left = _left(root)
    assert len(left) == 1 and list((left[0] / "out").glob("records-*.json")), left
    assert not (root / ".jaxlint" / "signatures.json").exists()
    # the next run of record in the project merges what the killed one left, and says so
    r = run_cli("record", "--", "python", "other.py", cwd=root, env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    assert (f"jaxlint record: merged into {root / '.jaxlint' / 'signatures.json'} what an earlier run left in "
            f"{left[0]} (it ended without writing it") in r.stderr, r.stderr
    assert "1 signature of 1 jitted function, 1 observed" in r.stderr, r.stderr
    assert list(json.loads((root / ".jaxlint" / "signatures.json").read_text())["functions"]) == ["killed:double"]
    observed = json.loads((root / ".jaxlint" / "observed.json").read_text())["functions"]
    assert observed["killed:double"]["traced"] is True
    assert _left(root) == []


def test_a_full_disk_at_the_end_of_record_is_one_line_and_keeps_the_runs_parts(tmp_path):
    """The disk fills while the program runs: record's own writes fail at its end. Made
    real with the file size limit (RLIMIT_FSIZE 0, set on the running record process
    alone with prlimit, SIGXFSZ ignored): the writes fail with EFBIG ("File too large"),
    not ENOSPC; record handles any OSError of its writes the same way. Before: "internal
    error: OSError" and the run's parts deleted."""
    root, env = _project(tmp_path, waits=WAITS)
    env.pop("JAXLINT_OUTPUT_FORMAT", None)
    proc = subprocess.Popen([sys.executable, "-m", "jaxlint", "record", "--", "python", "waits.py"], cwd=root,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGXFSZ, signal.SIG_IGN))
    try:
        for line in proc.stdout:
            if "ready" in line:
                break
        # the program keeps the limit it started with; record's writes from now on fail
        resource.prlimit(proc.pid, resource.RLIMIT_FSIZE, (0, resource.RLIM_INFINITY))
        (root / "go").write_text("")
        _, err = proc.communicate(timeout=240)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 2, err
    left = _left(root)
    assert len(left) == 1 and list((left[0] / "out").glob("records-*.json")), left
    lines = [x for x in err.splitlines() if x.startswith("jaxlint")]
    assert lines == [f"jaxlint record: cannot write the recording {root / '.jaxlint' / 'signatures.json'}: File "
                     f"too large (EFBIG); each of its files is as it was or whole, and nothing this run recorded "
                     f"is lost: its parts are kept in {left[0]}. Make room, then `jaxlint record --recover` merges "
                     f"them (so does the next `jaxlint record` into signatures.json)"], err
    assert "Traceback" not in err and "internal error" not in err
    assert not (root / ".jaxlint" / "signatures.json").exists()
    assert [p.name for p in (root / ".jaxlint").iterdir() if p.name.startswith(".tmp")] == []
    # room again: --recover merges the parts without running anything
    r = run_cli("record", "--recover", cwd=root, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    assert f"what an earlier run left in {left[0]}" in r.stderr and "1 signature of 1 jitted function" in r.stderr
    assert list(json.loads((root / ".jaxlint" / "signatures.json").read_text())["functions"]) == ["waits:triple"]
    assert json.loads((root / ".jaxlint" / "observed.json").read_text())["functions"]["waits:triple"]["traced"]
    assert _left(root) == []


def _left_by(root, name: str, target, pid: int, started, tag: str = "") -> object:
    work = root / "tmp" / f"jaxlint-record-{name}"
    (work / "out").mkdir(parents=True)
    (work / "run.json").write_text(json.dumps({"pid": pid, "started": started, "target": str(target), "tag": tag}))
    return work


def test_what_the_next_run_does_with_each_folder_it_finds(tmp_path):
    """Without jax (fake folders, as a run leaves them): a dead run's empty folder into
    this recording is removed, and a process its program left running is stopped; one of
    a run into another recording is named and kept; a live run's, and one without
    run.json (another program's, or a jaxlint from before), are not touched."""
    from jaxlint.process import procs

    root, env = _project(tmp_path)
    target = root / ".jaxlint" / "signatures.json"
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead = int(gone.stdout)
    straggler = subprocess.Popen(["sleep", "120"], env=procs.tagged(dict(os.environ), "deadbeef"))
    try:
        empty = _left_by(root, "empty", target, dead, "1", tag="deadbeef")
        other = _left_by(root, "other", tmp_path / "elsewhere" / "sigs.json", dead, "1")
        live = _left_by(root, "live", target, os.getpid(), procs.start_time(os.getpid()))
        bare = root / "tmp" / "jaxlint-record-bare"
        (bare / "out").mkdir(parents=True)
        r = run_cli("record", "--recover", cwd=root, env=env, timeout=120)
        straggler.wait(timeout=30)  # stopped by the recovery (SIGTERM), not left to run
    finally:
        if straggler.poll() is None:
            straggler.kill()
    assert r.returncode == 0, r.stderr
    assert r.stderr.splitlines() == [
        "jaxlint record: stopped 1 process an earlier run's program left running",
        f"jaxlint record: removed {empty}: an earlier run left it with nothing recorded",
        f"jaxlint record: {other} holds what a run of `jaxlint record` into {tmp_path / 'elsewhere' / 'sigs.json'} "
        f"left (it ended without writing it); `jaxlint record --recover --signatures "
        f"{tmp_path / 'elsewhere' / 'sigs.json'}` merges it",
    ], r.stderr
    assert straggler.returncode == -signal.SIGTERM
    assert not empty.exists() and other.exists() and live.exists() and bare.exists()
    assert not target.exists()


def test_recover_with_nothing_left_says_so(tmp_path):
    root, env = _project(tmp_path)
    r = run_cli("record", "--recover", cwd=root, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stderr == (f"jaxlint record: nothing to recover: no earlier run into {root / '.jaxlint' / 'signatures.json'} "
                        f"left anything in {root / 'tmp'}\n")
    r = run_cli("record", "--recover", "--", "python", "x.py", cwd=root, env=env, timeout=120)
    assert r.returncode == 2 and "--recover runs no command" in r.stderr, r.stderr
