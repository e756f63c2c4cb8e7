"""The docs' snippets, run as written: what a reader copies must do what the page says."""
from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path

from helpers import run_cli

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def blocks(page: str, lang: str) -> list[str]:
    """The fenced ``lang`` code blocks of a docs page, in order."""
    text = (DOCS / page).read_text(encoding="utf-8") if not page.endswith("README.md") else (ROOT / page).read_text()
    return re.findall(rf"^```{lang}\n(.*?)^```", text, flags=re.M | re.S)


TRAIN = textwrap.dedent(
    """
    import jax
    import numpy as np

    W = np.ones((1024, 1024))


    @jax.jit
    def predict(x):
        return x @ W


    @jax.jit
    def step(x):
        for i in range(500): x = x + i
        for i in range(500): x = x + i
        return x
    """
).lstrip()


def test_baseline_page_file_example_is_what_jaxlint_writes(tmp_path):
    (tmp_path / "src" / "model").mkdir(parents=True)
    (tmp_path / "src" / "model" / "train.py").write_text(TRAIN)
    (tmp_path / "pyproject.toml").write_text("[tool.jaxlint]\n")
    write, gate = (b.strip() for b in blocks("baseline.md", "sh")[:2])
    assert write.splitlines()[0] == "jaxlint check --write-baseline .jaxlint/baseline.json"
    r = run_cli(*write.splitlines()[0].split()[1:], "--no-cache", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    documented = json.loads(blocks("baseline.md", "json")[0])
    assert json.loads((tmp_path / ".jaxlint" / "baseline.json").read_text()) == documented
    r = run_cli(*gate.split()[1:], "--no-cache", cwd=tmp_path)
    assert r.returncode == 0 and "3 baselined findings not shown" in r.stdout, r.stdout + r.stderr
