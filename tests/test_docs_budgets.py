"""docs/budgets.md's walkthrough, run as written: its model and config, then every ``sh``
block in order in one git repository, each block's output held against the ``text``
block after it (every documented line must be printed; ``...`` stands for anything)."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("jax")

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "budgets.md"


def fenced(text: str) -> list[tuple[str, str]]:
    """(language, body) of every fenced block, in order."""
    return re.findall(r"^```(\w+)\n(.*?)^```", text, flags=re.M | re.S)


def walkthrough() -> tuple[str, str, list[tuple[str, str | None]]]:
    text = PAGE.read_text(encoding="utf-8").split("## What is budgeted")[0]
    blocks = fenced(text)
    model = next(b for lang, b in blocks if lang == "python")
    config = next(b for lang, b in blocks if lang == "toml")
    steps = []
    for i, (lang, body) in enumerate(blocks):
        if lang == "sh":
            nxt = blocks[i + 1] if i + 1 < len(blocks) else None
            steps.append((body, nxt[1] if nxt and nxt[0] == "text" else None))
    return model, config, steps


def printed(expected: str, output: str) -> list[str]:
    """The documented lines not found in ``output``."""
    missing = []
    for line in expected.splitlines():
        if not line.strip() or line.strip() == "...":
            continue
        pattern = re.escape(line).replace(re.escape("..."), ".*")
        if not re.search(rf"^{pattern}$", output, flags=re.M):
            missing.append(line)
    return missing


def test_the_budgets_walkthrough_runs_as_written(tmp_path):
    model, config, steps = walkthrough()
    assert len(steps) == 5, steps
    (tmp_path / "model.py").write_text(model)
    (tmp_path / "pyproject.toml").write_text(config)
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
               GIT_AUTHOR_NAME="docs", GIT_AUTHOR_EMAIL="docs@example.com", GIT_COMMITTER_NAME="docs",
               GIT_COMMITTER_EMAIL="docs@example.com", GIT_CONFIG_GLOBAL=os.devnull)
    env.pop("JAXLINT_OUTPUT_FORMAT", None)
    statuses, outputs = [], []
    for script, expected in steps:
        r = subprocess.run(["bash", "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True,
                           timeout=600)
        statuses.append(r.returncode)
        outputs.append(r.stdout + r.stderr)
        if expected is not None:
            assert not printed(expected, r.stdout + r.stderr), (script, printed(expected, r.stdout + r.stderr),
                                                               r.stdout + r.stderr)
    # made (0), a regression fails (1), accepted (0), committed (0), an improvement passes (0)
    assert statuses == [0, 1, 0, 0, 0], list(zip(statuses, outputs))
    # the page's JSON is the file the first step wrote, compile time aside
    documented = json.loads(next(b for lang, b in fenced(PAGE.read_text()) if lang == "json"))
    first = subprocess.run(["git", "show", "HEAD~1:jaxlint-budgets.json"], cwd=tmp_path, env=env,
                           capture_output=True, text=True, check=True).stdout
    made = json.loads(first)
    for d in (documented, made):
        for e in d["functions"].values():
            e.pop("compile_seconds")
    assert made == documented
