"""benchmarks/bench_programs.py on a small program in a real git repository: extraction at
the pinned commit (only .py and notebooks, the prefix stripped), the real CLI's findings,
verdicts matched by signature, lines counted from code cells, unjudged findings failing
--check."""
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "bench_programs.py"

TRAIN = """\
import jax


def main():
    key = jax.random.PRNGKey(0)
    a = jax.random.normal(key, (3,))
    b = jax.random.uniform(key, (3,))
    return a + b
"""

NOTEBOOK = {
    "cells": [
        {"cell_type": "markdown", "metadata": {}, "source": ["# a title\n", "\n", "words\n"]},
        {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
         "source": ["import jax.numpy as jnp\n", "\n", "x = jnp.ones(3)\n"]},
    ],
    "metadata": {"language_info": {"name": "python"}},
    "nbformat": 4,
    "nbformat_minor": 5,
}


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout


def bench(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, cwd=ROOT)


def test_extract_run_judge(tmp_path):
    repo = tmp_path / "mirrors" / "someone+toy"
    (repo / "ex").mkdir(parents=True)
    (repo / "ex" / "train.py").write_text(TRAIN)
    (repo / "ex" / "demo.ipynb").write_text(json.dumps(NOTEBOOK))
    (repo / "ex" / "data.bin").write_bytes(b"\0\1\2")
    (repo / "other.py").write_text("import jax\n")
    git(repo, "init", "-q")
    git(repo, "add", ".")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "toy")
    commit = git(repo, "rev-parse", "HEAD").strip()
    (repo / "ex" / "train.py").write_text("import jax\n")  # a later edit: the pin must win
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "later")

    judgements = tmp_path / "j.json"
    program = {"name": "toy", "repo": "someone/toy", "commit": commit, "paths": ["ex"], "strip": "ex/"}
    judgements.write_text(json.dumps({"programs": [program], "judgements": []}))
    programs = tmp_path / "programs"
    out = bench("--judgements", str(judgements), "--programs", str(programs), "--extract", str(tmp_path / "mirrors"))
    assert out.returncode == 0, out.stderr
    assert sorted(p.name for p in (programs / "toy").iterdir()) == ["demo.ipynb", "train.py"]
    assert (programs / "toy" / "train.py").read_text() == TRAIN

    unjudged = tmp_path / "u.json"
    args = ("--judgements", str(judgements), "--programs", str(programs), "--selection", "default")
    out = bench(*args, "--unjudged", str(unjudged), "--check", "--json", str(tmp_path / "r0.json"))
    assert out.returncode == 1, out.stdout + out.stderr
    rows = json.loads(unjudged.read_text())
    assert [(r["path"], r["line"], r["code"]) for r in rows] == [("train.py", 7, "JAX114")]
    first = json.loads((tmp_path / "r0.json").read_text())["default"]["programs"]["toy"]
    # 6 non-blank lines of train.py + 2 of the notebook's code cell (not its markdown)
    assert first["lines"] == 8 and first["verdicts"]["unjudged"] == 1 and first["precision"] == 0.0

    row = rows[0]
    verdict = {k: row[k] for k in ("program", "path", "code", "signature", "line")}
    judgements.write_text(json.dumps({"programs": [program], "judgements": [
        {**verdict, "selections": ["default", "preview"], "verdict": "true", "reason": "one key, two draws"}]}))
    out = bench(*args, "--check", "--json", str(tmp_path / "r.json"))
    assert out.returncode == 0, out.stdout + out.stderr
    res = json.loads((tmp_path / "r.json").read_text())["default"]
    assert res["all"]["verdicts"] == {"true": 1, "debatable": 0, "false": 0, "unjudged": 0}
    assert res["all"]["precision"] == 1.0 and res["all"]["lines"] == 8
    assert "[true] toy train.py:7 JAX114" in out.stdout
