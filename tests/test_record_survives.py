"""`jaxlint record` under signals and bad targets, and every file jaxlint reads read as
untrusted (issue 22, items 1-7): the real CLI in subprocesses, a real recording."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from helpers import permissions_bypassed, run_cli

SLOW = '''
import sys, time
import jax, jax.numpy as jnp

@jax.jit
def double(x):
    return x * 2

print(double(jnp.ones(3)), flush=True)
print("ready", flush=True)
time.sleep(300)
'''

TRAIN = '''
import sys
import jax, jax.numpy as jnp

N = int(sys.argv[1])  # a script that reads its argv at import

@jax.jit
def step(x):
    return x * N

# jaxlint: args=(f32[3],)
@jax.jit
def never_called(x):
    return x + N

print(step(jnp.ones(3)))
'''


def _project(tmp_path, **files):
    (tmp_path / "pyproject.toml").write_text("[tool.jaxlint]\n")
    for name, text in files.items():
        (tmp_path / f"{name}.py").write_text(text.lstrip("\n"))
    return tmp_path


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """One real recording of ``train.py 5`` (and its observations file) to damage."""
    root = _project(tmp_path_factory.mktemp("recorded"), train=TRAIN)
    r = run_cli("record", "--", "python", "train.py", "5", cwd=root, timeout=300)
    assert r.returncode == 0, r.stderr
    return root


# ---------------------------------------------------------------------------- item 1: signals
@pytest.mark.parametrize("sig", ["SIGTERM", "SIGHUP", "SIGINT"])
def test_a_signal_to_record_writes_what_was_observed_and_stops_the_program(tmp_path, sig):
    root = _project(tmp_path, slow=SLOW)
    env = {k: v for k, v in os.environ.items() if k != "JAXLINT_OUTPUT_FORMAT"}
    proc = subprocess.Popen([sys.executable, "-m", "jaxlint", "record", "--", "python", "slow.py"], cwd=root,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        for line in proc.stdout:
            if "ready" in line:
                break
        t0 = time.monotonic()
        proc.send_signal(getattr(signal, sig))  # to jaxlint alone, as `kill` does
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    took = time.monotonic() - t0
    num = getattr(signal, sig)
    assert proc.returncode == 128 + num, err
    assert took < 60, took  # the program did not sleep its 300 s out
    sigs = json.loads((root / ".jaxlint" / "signatures.json").read_text())
    assert list(sigs["functions"]) == ["slow:double"]
    observed = json.loads((root / ".jaxlint" / "observed.json").read_text())
    assert observed["functions"]["slow:double"]["traced"] is True
    # SIGINT: the program's own KeyboardInterrupt; jaxlint itself prints no traceback
    assert "jaxlint/cli.py" not in err and "jaxlint/commands/" not in err, err


# ---------------------------------------------------------------------------- item 3: the target, before the run
def test_a_damaged_recording_is_found_before_the_program_runs(tmp_path):
    root = _project(tmp_path, prog="open('ran', 'w').write('yes')\n")
    (root / ".jaxlint").mkdir()
    (root / ".jaxlint" / "observed.json").write_text('{"functions": 3}')
    r = run_cli("record", "--", "python", "prog.py", cwd=root)
    assert r.returncode == 2
    assert not (root / "ran").exists()
    err = r.stderr.strip()
    assert len(err.splitlines()) == 1 and "--replace" in err and "--signatures" in err and "not run" in err, err
    r = run_cli("record", "--replace", "--", "python", "prog.py", cwd=root)
    assert r.returncode == 0, r.stderr
    assert (root / "ran").exists()


def test_an_unwritable_target_is_found_before_the_program_runs(tmp_path):
    root = _project(tmp_path, prog="open('ran', 'w').write('yes')\n")
    (root / "afile").write_text("")
    # a folder under a regular file cannot be made, even by root
    r = run_cli("record", "--signatures", "afile/sigs.json", "--", "python", "prog.py", cwd=root)
    assert r.returncode == 2 and not (root / "ran").exists()
    err = r.stderr.strip()
    assert len(err.splitlines()) == 1 and "cannot write" in err and "--signatures" in err, err


@pytest.mark.skipif(permissions_bypassed(), reason="this process writes into a read-only folder (root)")
def test_a_read_only_jaxlint_folder_is_found_before_the_program_runs(tmp_path):
    root = _project(tmp_path, prog="open('ran', 'w').write('yes')\n")
    (root / ".jaxlint").mkdir(mode=0o500)
    try:
        r = run_cli("record", "--", "python", "prog.py", cwd=root)
    finally:
        (root / ".jaxlint").chmod(0o700)
    assert r.returncode == 2 and not (root / "ran").exists() and "Traceback" not in r.stderr


# ---------------------------------------------------------------------------- item 4: the program entry
def test_a_script_is_recorded_with_its_argv_and_reimported_with_it(recorded, tmp_path):
    observed = json.loads((recorded / ".jaxlint" / "observed.json").read_text())
    (prog,) = observed["programs"]
    assert prog["main"] == "train" and prog["argv"] == ["train.py", "5"] and prog["cwd"] == str(recorded)
    # the function the program did not call is imported with that argv: no JAX200 IndexError
    r = run_cli("check", "--dynamic", "--no-cache", "--output-format", "json", "--select", "JAX2", "train.py",
                cwd=recorded, timeout=300)
    assert r.returncode in (0, 1), r.stderr
    assert [d for d in json.loads(r.stdout) if d["code"] == "JAX200"] == []


def test_two_scripts_recorded_in_one_project_keep_their_own_entries(tmp_path):
    root = _project(tmp_path, train=TRAIN, other=TRAIN.replace("step", "other_step"))
    for script, arg in (("train.py", "5"), ("other.py", "7")):
        r = run_cli("record", "--", "python", script, arg, cwd=root, timeout=300)
        assert r.returncode == 0, r.stderr
    progs = json.loads((root / ".jaxlint" / "observed.json").read_text())["programs"]
    assert sorted((p["main"], p["argv"][1]) for p in progs) == [("other", "7"), ("train", "5")]


# ---------------------------------------------------------------------------- items 2, 5: untrusted files
def _damaged(root, how: str):
    obs = root / ".jaxlint" / "observed.json"
    good = obs.read_text()
    obs.unlink()
    if how == "fifo":
        os.mkfifo(obs)
    elif how == "dev-zero":
        obs.symlink_to("/dev/zero")
    elif how == "deep":
        obs.write_text("[" * 200_000)
    else:
        data = json.loads(good)
        d = data["functions"]["train:step"].setdefault("diagnostics", [])
        d.append({"code": "JAX201", "name": "large-constant", "message": "m", "filename": "train.py",
                  "location": {"row": 1, "column": 1}, "end_location": {"row": 1, "column": 2},
                  "severity": "info", "signature": "s", "related": [], "fix": None, "data": {}})
        if how == "row-string":
            d[-1]["location"]["row"] = "7"
        elif how == "row-negative":
            d[-1]["location"]["row"] = -3
        elif how == "outside":
            d[-1]["filename"] = "../../etc/passwd"
        elif how == "reused-not-bool":
            d.pop()
            data["functions"]["train:step"]["reused"] = {"x": "yes"}
        obs.write_text(json.dumps(data))
    return good


@pytest.mark.parametrize("how", ["fifo", "dev-zero", "deep", "row-string", "row-negative", "outside",
                                 "reused-not-bool"])
def test_a_damaged_observations_file_is_one_line_and_exit_2(recorded, how):
    obs = recorded / ".jaxlint" / "observed.json"
    good = _damaged(recorded, how)
    try:
        r = run_cli("check", "--dynamic", "--no-cache", "train.py", cwd=recorded, timeout=120)
    finally:
        obs.unlink()
        obs.write_text(good)
    assert r.returncode == 2, (r.returncode, r.stderr)
    err = r.stderr.strip()
    assert len(err.splitlines()) == 1 and "observed.json" in err and "Traceback" not in err, err
    assert "-3" not in r.stdout and "passwd" not in r.stdout


def test_what_the_caller_kept_is_read_checked_and_optional(tmp_path):
    # `reused` ({argument: bool}, what `record` saw the caller keep) is checked when read;
    # a recording from before it was kept has none: unknown, and still loads
    from jaxlint.config import ConfigError
    from jaxlint.dynamic import signatures

    path = tmp_path / "signatures.json"
    entry = {"file": "m.py", "line": 1, "qualname": "f", "signatures": [{"args": ["f32[3]"], "kwargs": {}, "calls": 2}]}
    path.write_text(json.dumps({"functions": {"m:f": entry}}))
    assert "reused" not in signatures.load(path)["m:f"]
    path.write_text(json.dumps({"functions": {"m:f": dict(entry, reused={"x": True, "y": False})}}))
    assert signatures.load(path)["m:f"]["reused"] == {"x": True, "y": False}
    path.write_text(json.dumps({"functions": {"m:f": dict(entry, reused={"x": 1})}}))
    with pytest.raises(ConfigError, match="`reused` must map argument names to true or false"):
        signatures.load(path)


@pytest.mark.parametrize("command", ["merge", "baseline"])
@pytest.mark.parametrize("how", ["fifo", "deep", "garbage"])
def test_a_bad_merge_input_or_baseline_is_one_line_and_exit_2(tmp_path, command, how):
    bad = tmp_path / "bad.json"
    if how == "fifo":
        os.mkfifo(bad)
    elif how == "deep":
        bad.write_text("[" * 200_000)
    else:
        bad.write_bytes(bytes(range(256)) * 8)
    (tmp_path / "m.py").write_text("x = 1\n")
    args = ["merge", str(bad)] if command == "merge" else ["check", "--baseline", str(bad), "m.py"]
    r = run_cli(*args, cwd=tmp_path, timeout=60)
    assert r.returncode == 2
    err = r.stderr.strip()
    assert len(err.splitlines()) == 1 and "bad.json" in err and "Traceback" not in err, err


# ---------------------------------------------------------------------------- item 6: internal errors
def test_an_internal_error_exits_2_with_one_line_and_the_traceback_behind_verbose(tmp_path):
    # a SARIF log whose run is not an object: merge trips over it (a real uncaught error)
    (tmp_path / "a.sarif").write_text(json.dumps({"runs": [3]}))
    r = run_cli("merge", "a.sarif", cwd=tmp_path)
    assert r.returncode == 2
    err = r.stderr.strip()
    assert len(err.splitlines()) == 1 and err.startswith("jaxlint: internal error:") and "--verbose" in err, err
    r = run_cli("merge", "--verbose", "a.sarif", cwd=tmp_path)
    assert r.returncode == 2 and "Traceback (most recent call last)" in r.stderr


# ---------------------------------------------------------------------------- item 7: input specs
@pytest.mark.parametrize("where", ["directive", "config"])
def test_a_huge_repeat_in_an_input_spec_is_refused_before_it_is_built(tmp_path, where):
    spec = "([f32[3]] * 1000000000,)"
    src = "import jax\n\n@jax.jit\ndef f(x):\n    return x\n"
    if where == "directive":
        src = src.replace("@jax.jit", f"# jaxlint: args={spec}\n@jax.jit")
        (tmp_path / "pyproject.toml").write_text("[tool.jaxlint]\n")
    else:
        (tmp_path / "pyproject.toml").write_text(
            f"[tool.jaxlint.dynamic.functions.\"m:f\"]\nargs = \"{spec}\"\n")
    (tmp_path / "m.py").write_text(src)
    # under a 2 GiB address-space cap: a spec that were built would not fit
    r = subprocess.run(["bash", "-c", f"ulimit -v 2097152; exec {sys.executable} -m jaxlint check --dynamic "
                                      "--show-skipped --no-cache m.py"], cwd=tmp_path, capture_output=True,
                       text=True, timeout=300)
    assert "MemoryError" not in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert "more than 10000 entries" in r.stdout + r.stderr
    assert r.returncode == (0 if where == "directive" else 2), r.stderr
