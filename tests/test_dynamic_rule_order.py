"""Rules that read other rules' findings declare it (``Rule.reads``), and the engine runs
them after the rules they read: the order of the registry (``jaxlint.rules.RULES``)
changes nothing. Real ``check --dynamic --compile`` runs, the registry reversed in one."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from jaxlint.rule import example_source
from jaxlint.rules.jaxpr.jax206_large_program import LargeProgram

ROOT = Path(__file__).resolve().parents[1]

#: JAX206 reads JAX202's unrolled loops: its own example, 300 of whose 364 equations
#: come from the loop
MODEL = example_source(LargeProgram.INVALID[1])


def _check(project: Path, reverse: bool) -> list[dict]:
    code = ("import sys; from jaxlint.rules import RULES; "
            + ("RULES.reverse(); " if reverse else "")
            + "from jaxlint.cli import main; sys.exit(main(sys.argv[1:]))")
    env = {k: v for k, v in os.environ.items() if k != "JAXLINT_OUTPUT_FORMAT"}
    proc = subprocess.run([sys.executable, "-c", code, "check", "--no-cache", "--output-format", "json", "."],
                          cwd=project, capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 1, proc.stderr
    return json.loads(proc.stdout)


def test_reordering_the_registry_changes_no_finding(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.jaxlint]\nselect = ["ALL"]\n'
        "[tool.jaxlint.rules.large-program]\nmax-equations = 60\n"
        "[tool.jaxlint.dynamic]\nenabled = true\ncompile = true\nfunction-timeout = 120\n")
    (tmp_path / "model.py").write_text(MODEL)
    for folder in ("dynamic", "compile"):
        shutil.copytree(ROOT / "examples" / folder, tmp_path / folder)
    as_listed = _check(tmp_path, reverse=False)
    reversed_ = _check(tmp_path, reverse=True)
    assert as_listed == reversed_
    # the loop is all there is to remove: JAX206's figures join JAX202's finding at the loop
    assert not [d for d in as_listed if d["code"] == "JAX206"]
    (loop,) = [d for d in as_listed if d["code"] == "JAX202" and d["location"]["row"] == 7]
    assert any(r["message"].startswith("JAX206: ") and "300 of them come from the unrolled loop at line 7"
               in r["message"] for r in loop["related"]), loop["related"]
