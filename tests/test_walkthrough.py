"""docs/walkthrough.md, section 0, run as written: every file it shows is written, every
`$ command` runs in a shell in a fresh folder (``jaxlint`` and ``python`` are this
environment's), its exit status is the one the page says (``# exits N``, else 0), and
every output line the page shows is in what the command printed (a line ending in
``…`` by its beginning)."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from helpers import hook_repo


DOC = Path(__file__).resolve().parents[1] / "docs" / "walkthrough.md"


def steps() -> list[tuple[str, object]]:
    """("file", (path, text)) and ("run", (command, exit status, output lines)), in order."""
    text = DOC.read_text(encoding="utf-8")
    section = text.split("<!-- team-walkthrough-start -->", 1)[1].split("<!-- team-walkthrough-end -->", 1)[0]
    out: list[tuple[str, object]] = []
    pending_file = None
    for m in re.finditer(r"^`(?P<name>[\w./-]+)`:\n|^```(?P<lang>\w*)\n(?P<body>.*?)^```\n", section, re.M | re.S):
        if m.group("name"):
            pending_file = m.group("name")
        elif pending_file is not None:
            out.append(("file", (pending_file, m.group("body"))))
            pending_file = None
        elif m.group("lang") == "console":
            cmd = None
            for line in m.group("body").splitlines():
                if line.startswith("$ "):
                    if cmd is not None:
                        out.append(("run", cmd))
                    status = re.search(r"#\s*exits (\d+)\s*$", line)
                    cmd = (line[2:], int(status.group(1)) if status else 0, [])
                elif cmd is not None and line.strip():
                    cmd[2].append(line)
            if cmd is not None:
                out.append(("run", cmd))
    return out


def test_the_walkthrough_has_every_step_the_issue_names():
    commands = [c for kind, (c, *_) in steps() if kind == "run"]
    assert any(c.startswith("jaxlint check .") for c in commands)
    assert any(c.startswith("jaxlint record --") for c in commands)
    assert any("--write-baseline" in c for c in commands)
    assert sum("--baseline baseline.json" in c and "--write" not in c for c in commands) == 1
    # the pushes after the unrelated edit and the regression run the repository's pre-push hook
    assert any(c.startswith("pre-commit install --hook-type pre-push") for c in commands)
    assert sum("git push" in c for c in commands) == 3


def test_the_team_walkthrough_runs_as_written(tmp_path):
    """The pushes go through the real pre-commit and this repository's hook manifest
    (``.pre-commit-hooks.yaml``), from a clone of this checkout at its commit: the one
    change to what the page says, whose ``repo:`` is GitHub."""
    env = dict(os.environ)
    env.pop("JAXLINT_OUTPUT_FORMAT", None)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env["PRE_COMMIT_HOME"] = str(tmp_path / "pre-commit-home")
    for who in ("AUTHOR", "COMMITTER"):
        env[f"GIT_{who}_NAME"], env[f"GIT_{who}_EMAIL"] = "jaxlint-tests", "tests@jaxlint.invalid"
    hooks = hook_repo(tmp_path / "jaxlint")
    rev = subprocess.run(["git", "rev-parse", "HEAD"], cwd=hooks, check=True, capture_output=True,
                         text=True).stdout.strip()
    project = tmp_path / "project"  # its `..` (the remote's folder) is tmp_path
    project.mkdir()
    for kind, step in steps():
        if kind == "file":
            name, body = step
            if name == ".pre-commit-config.yaml":
                assert "repo: https://github.com/jaxlint/jaxlint\n    rev: main\n" in body
                body = body.replace("https://github.com/jaxlint/jaxlint", str(hooks)).replace("rev: main",
                                                                                          f"rev: {rev}")
            (project / name).write_text(body)
            continue
        cmd, status, lines = step
        proc = subprocess.run(["bash", "-c", cmd], cwd=project, capture_output=True, text=True, env=env,
                              timeout=600)
        said = proc.stdout + proc.stderr
        assert proc.returncode == status, (cmd, said[-3000:])
        for line in lines:
            want = line[:-1] if line.endswith("…") else line
            assert want in said, (cmd, line, said[-3000:])
