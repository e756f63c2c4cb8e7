"""Issue 22's fuzz and property suite over the surfaces the static fuzz test does not
reach, bounded in count and time like tests/test_static_fuzz.py (fixed seeds: a failure
reproduces):

* signals (SIGTERM, SIGHUP, SIGINT) at random moments to ``jaxlint record``: the
  recording already in ``.jaxlint/`` is kept, whole and readable, and the command ends
  promptly with no traceback;
* the same to ``jaxlint server``, from its start to a busy fix-all: it ends promptly,
  with exit 0 once it runs (a real LSP client over stdio where it is connected);
* ``.jaxlint/`` damaged as a whole (a file; a folder where a recording file goes; a
  symlink loop; ``observed.ir`` a file) under ``check --dynamic`` and ``record``;
* notebooks whose cells end their lines with ``\\n``, ``\\r\\n`` or ``\\r`` through
  ``--fix`` and ``--add-noqa``: a cell without a finding is kept byte for byte, a fixed
  cell keeps its line breaks, and ``--add-noqa`` only adds its comments.

The contents of ``.jaxlint/`` files are fuzzed in tests/test_untrusted_fuzz.py; a signal to an
idle server and to ``record`` at a fixed moment in tests/test_lsp_signals.py and
tests/test_record_survives.py.
"""
from __future__ import annotations

import asyncio
import json
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import jaxlint
from lsp_session import TIMEOUT, run, session
from test_untrusted_fuzz import OBSERVED, SIGNATURES

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from bench_scaling import module  # noqa: E402  (the benchmark's generator: one definition)

SIGNALS = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)
PACKAGE = str(Path(jaxlint.__file__).parent)
#: seconds a signalled process may take to end (a loaded machine)
PROMPT = 30.0


def _ended(proc: subprocess.Popen) -> tuple[int, str, float]:
    t0 = time.monotonic()
    _, err = proc.communicate(timeout=120)
    return proc.returncode, err, time.monotonic() - t0


#: jax-free and short: the recorder's start, the program, the merge and the write at its
#: end all fall inside the window the moments are drawn from. A forwarded SIGINT is the
#: program's to handle: it ends quietly, so that a traceback would be jaxlint's
PROGRAM = "import sys, time\ntry:\n    time.sleep(1)\nexcept KeyboardInterrupt:\n    sys.exit(130)\n"


def test_a_signal_at_any_moment_of_record_keeps_the_recording(tmp_path):
    rng = random.Random(2201)
    project = tmp_path / "p"
    (project / ".jaxlint").mkdir(parents=True)
    (project / "pyproject.toml").write_text("[tool.jaxlint]\n")
    (project / "train.py").write_text("import jax\n\n\n@jax.jit\ndef step(x):\n    return x\n")
    seed = tmp_path / "seed"
    seed.mkdir()
    (seed / "observed.json").write_text(json.dumps(OBSERVED))
    (seed / "signatures.json").write_text(json.dumps(SIGNATURES))
    for case in range(6):
        shutil.rmtree(project / ".jaxlint")
        shutil.copytree(seed, project / ".jaxlint")
        sig, delay = rng.choice(SIGNALS), rng.uniform(0.0, 2.5)
        proc = subprocess.Popen([sys.executable, "-m", "jaxlint", "record", "--", sys.executable, "-c", PROGRAM],
                                cwd=project, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(delay)
        proc.send_signal(sig)
        rc, err, took = _ended(proc)
        where = f"case {case}: {sig.name} after {delay:.2f} s: exit {rc}, {err[-1500:]!r}"
        # 1: the program's own status when the forwarded SIGINT came during its start-up
        assert rc in (0, 128 + sig, -sig) or (sig == signal.SIGINT and rc == 1), where
        assert took < PROMPT, where
        # the only traceback allowed is that KeyboardInterrupt of the program (as `kill -INT`
        # of a starting python gives); jaxlint's own lines follow it, with none
        tracebacks = err.count("Traceback (most recent call last)")
        assert tracebacks == 0 or (sig == signal.SIGINT and tracebacks == 1 and "\nKeyboardInterrupt\n" in err), where
        assert not err.strip() or err.strip().splitlines()[-1].startswith("jaxlint record:"), where
        assert sorted(p.name for p in (project / ".jaxlint").iterdir()) == ["observed.json", "signatures.json"], where
        observed = json.loads((project / ".jaxlint" / "observed.json").read_text())
        signatures = json.loads((project / ".jaxlint" / "signatures.json").read_text())
        assert observed["functions"]["train:step"]["diagnostics"] == OBSERVED["functions"]["train:step"]["diagnostics"], where
        assert signatures["functions"]["train:step"]["signatures"] == \
            SIGNATURES["functions"]["train:step"]["signatures"], where


def _damage_layout(jaxlint_dir: Path, how: str) -> None:
    """``.jaxlint/`` damaged as a whole, where tests/test_untrusted_fuzz.py damages contents."""
    if how == "a file":
        shutil.rmtree(jaxlint_dir)
        jaxlint_dir.write_text("x")
    elif how in ("observed.json a folder", "signatures.json a folder"):
        name = how.split()[0]
        (jaxlint_dir / name).unlink()
        (jaxlint_dir / name).mkdir()
    elif how == "observed.json a symlink to itself":
        (jaxlint_dir / "observed.json").unlink()
        (jaxlint_dir / "observed.json").symlink_to("observed.json")
    else:  # observed.ir a file
        (jaxlint_dir / "observed.ir").write_text("x")


RECORD_LAYOUTS = ("a file", "signatures.json a folder", "observed.json a symlink to itself")


def test_a_damaged_jaxlint_folder_is_one_line_and_nothing_runs(tmp_path, monkeypatch, capsys):
    """Each layout under ``check --dynamic`` (in this process) and ``record`` (the real
    CLI, a program that leaves a mark): exit 0 or 2, at most one error line, no
    traceback; a refused ``record`` does not run the program."""
    from jaxlint.cli import main

    project = tmp_path / "p"
    project.mkdir()
    (project / "pyproject.toml").write_text("[tool.jaxlint]\n")
    (project / "train.py").write_text("import jax\n\n\n@jax.jit\ndef step(x):\n    return x\n")
    monkeypatch.chdir(project)
    ran = tmp_path / "ran"
    program = f"open({str(ran)!r}, 'w').close()"
    for how in ("a file", "observed.json a folder", "signatures.json a folder",
                "observed.json a symlink to itself", "observed.ir a file"):
        # record (a subprocess, ~3 s loaded) on the layouts that differ for it
        for command in ("check", "record") if how in RECORD_LAYOUTS else ("check",):
            if (project / ".jaxlint").is_dir():
                shutil.rmtree(project / ".jaxlint")
            elif (project / ".jaxlint").exists():
                (project / ".jaxlint").unlink()
            (project / ".jaxlint").mkdir()
            (project / ".jaxlint" / "observed.json").write_text(json.dumps(OBSERVED))
            (project / ".jaxlint" / "signatures.json").write_text(json.dumps(SIGNATURES))
            _damage_layout(project / ".jaxlint", how)
            ran.unlink(missing_ok=True)
            if command == "check":
                rc, err = main(["check", "--dynamic", "train.py"]), capsys.readouterr().err
            else:
                r = subprocess.run([sys.executable, "-m", "jaxlint", "record", "--keep-ir", "--", sys.executable, "-c",
                                    program], cwd=project, capture_output=True, text=True, timeout=300)
                rc, err = r.returncode, r.stderr
                assert ran.exists() == (rc == 0), (how, rc, err)
            where = (how, command, rc, err[-1500:])
            assert rc in (0, 2) and "Traceback" not in err, where
            assert err.count("jaxlint: error:") == (rc == 2), where


def test_a_signal_at_any_moment_ends_the_server_cleanly(tmp_path):
    """Unconnected moments (the interpreter starting, ``initialize`` not yet sent): the
    server ends promptly with no traceback; before jaxlint's code runs, by the signal
    itself. Connected moments (idle, opening a 150-function file, a fix-all at work on
    its thread): exit 0."""
    rng = random.Random(2202)
    (tmp_path / "pyproject.toml").write_text('[tool.jaxlint]\nselect = ["JAX104"]\n')
    for case in range(3):
        sig, delay = rng.choice(SIGNALS), rng.uniform(0.0, 1.5)
        proc = subprocess.Popen([sys.executable, "-m", "jaxlint", "server"], cwd=tmp_path, stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(delay)
        proc.send_signal(sig)
        rc, err, took = _ended(proc)
        where = f"unconnected case {case}: {sig.name} after {delay:.2f} s: exit {rc}, {err[-1500:]!r}"
        assert took < PROMPT, where
        if "Traceback" in err:  # python's own start-up interrupted (site, runpy): never in jaxlint's code
            assert sig == signal.SIGINT and PACKAGE not in err, where
        else:
            assert rc in (0, 128 + sig, -sig), where

    big = module(150, 0, True, per_fn=5)
    fix_all = {"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
               "context": {"diagnostics": [], "only": ["source.fixAll.jaxlint"]}}

    async def connected(state: str, sig: signal.Signals, delay: float) -> tuple[int, float]:
        async with session(tmp_path, pull=False, init={"unsafeFixes": True}) as s:
            proc = s.client._server
            if state == "opening":
                s.open("big.py", big)
            elif state == "fixing":
                uri = s.open("big.py", big)
                await s.next_publish(uri)
                s.send_request("textDocument/codeAction", {"textDocument": {"uri": uri}, **fix_all})
            await asyncio.sleep(delay)
            t0 = time.monotonic()
            proc.send_signal(sig)
            rc = await asyncio.wait_for(proc.wait(), TIMEOUT)
            return rc, time.monotonic() - t0

    for state in ("idle", "opening", "fixing"):
        sig, delay = rng.choice(SIGNALS), rng.uniform(0.0, 1.0)
        rc, took = run(connected(state, sig, delay))
        assert rc == 0 and took < PROMPT, (state, sig.name, delay, rc, took)


_WITH = ["@jax.jit", "def f{n}(x):", "    return np.exp(x)"]
_WITHOUT = ["def g{n}(x):", "    return x + 1"]


def _notebook(rng: random.Random) -> tuple[dict, list[bool]]:
    """Code cells, each with its own line break and maybe a finding; the first imports."""
    cells, flagged = [], []
    for n in range(rng.randint(2, 5)):
        nl = rng.choice(["\n", "\r\n", "\r"])
        has = rng.random() < 0.5
        lines = (["import jax", "import numpy as np", ""] if n == 0 else []) + \
            [line.format(n=n) for line in (_WITH if has else _WITHOUT)]
        src = nl.join(lines) + (nl if rng.random() < 0.5 else "")
        cells.append({"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
                      "source": src if rng.random() < 0.5 else src.splitlines(keepends=True)})
        flagged.append(has)
    return ({"cells": cells, "metadata": {"language_info": {"name": "python"}}, "nbformat": 4,
             "nbformat_minor": 5}, flagged)


def _source(cell: dict) -> str:
    return cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])


def _breaks(text: str) -> set[str]:
    return {line[len(line.rstrip("\r\n")):] for line in text.splitlines(keepends=True)} - {""}


def test_notebook_line_breaks_survive_fix_and_add_noqa(tmp_path):
    rng = random.Random(2203)
    made = {}
    for how in ("fix", "noqa"):
        (tmp_path / how).mkdir()
    for i in range(20):
        nb, flagged = _notebook(rng)
        made[f"nb{i}.ipynb"] = (nb, flagged)
        for how in ("fix", "noqa"):
            (tmp_path / how / f"nb{i}.ipynb").write_text(json.dumps(nb, indent=1))
    t0 = time.monotonic()
    for how, args in (("fix", ["--fix", "--unsafe-fixes"]), ("noqa", ["--add-noqa"])):
        r = subprocess.run([sys.executable, "-m", "jaxlint", "check", "--no-cache", "--select", "JAX104", *args, "."],
                           cwd=tmp_path / how, capture_output=True, text=True, timeout=600)
        assert r.returncode in (0, 1) and "Traceback" not in r.stderr, r.stderr[-2000:]
    assert time.monotonic() - t0 < 300
    for name, (nb, flagged) in made.items():
        for how in ("fix", "noqa"):
            after = json.loads((tmp_path / how / name).read_text())
            assert {k: v for k, v in after.items() if k != "cells"} == {k: v for k, v in nb.items() if k != "cells"}
            assert len(after["cells"]) == len(nb["cells"])
            for n, (old, new, has) in enumerate(zip(nb["cells"], after["cells"], flagged)):
                where = (how, name, n, _source(old), _source(new))
                assert {k: v for k, v in new.items() if k != "source"} == \
                    {k: v for k, v in old.items() if k != "source"}, where
                if not has and not (how == "fix" and n == 0):  # the first cell holds the imports a fix edits
                    assert new["source"] == old["source"], where  # in the same form too (string or lines)
                    continue
                assert _breaks(_source(new)) <= _breaks(_source(old)), where
                if how == "noqa":
                    assert _source(new).replace("  # noqa: JAX104", "") == _source(old), where
                    assert _source(new) != _source(old), where
                elif has:
                    assert "jnp.exp(x)" in _source(new), where
