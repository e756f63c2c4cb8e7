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


# ------------------------------------------------------------- CI snippets: install and run
import os  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402

import pytest  # noqa: E402

from sarif_validation import validate_sarif  # noqa: E402

DOCS_REMOTE = "git+https://github.com/jaxlint/jaxlint"


@pytest.fixture(scope="session")
def git_remote(tmp_path_factory) -> str:
    """A local git repository standing in for the docs' remote (this checkout's HEAD)."""
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: nothing to stand in for the repository")
    repo = tmp_path_factory.mktemp("remote") / "jaxlint"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(repo)], check=True, capture_output=True)
    # `file://localhost/...`: the pip that `python -m venv` brings rejects `git+file:///...`
    return f"git+file://localhost{repo.as_posix()}"


@pytest.fixture(scope="session")
def ci_venv(git_remote, tmp_path_factory) -> Path:
    """A fresh virtualenv with jaxlint installed by the docs' own line (remote swapped)."""
    (line,) = [b.strip() for b in blocks("ci.md", "sh") if b.strip().startswith("pip install")]
    assert line == f'pip install "jaxlint @ {DOCS_REMOTE}"'
    venv = tmp_path_factory.mktemp("ci") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    proc = subprocess.run(["bash", "-c", line.replace(DOCS_REMOTE, git_remote)], env=_env(venv),
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    return venv


def _env(venv: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "JAXLINT_OUTPUT_FORMAT")}
    env["PATH"] = os.pathsep.join([str(venv / "bin"), env.get("PATH", "")])
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


def _user_repo(path: Path) -> Path:
    path.mkdir()
    for name in ("captured_weights.py", "tracer_pitfalls.py", "clean_model.py"):
        if (ROOT / "examples" / name).is_file():
            shutil.copy2(ROOT / "examples" / name, path / name)
    (path / "pyproject.toml").write_text("[tool.jaxlint]\n")
    # the team's committed baseline, which the documented CI steps pass (empty: every
    # finding still fails the gate)
    (path / ".jaxlint").mkdir()
    (path / ".jaxlint" / "baseline.json").write_text('{"version": 1, "findings": []}\n')
    return path


def _sh(cmd: str, cwd: Path, venv: Path, remote: str) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "-c", cmd.replace(DOCS_REMOTE, remote)], cwd=cwd, env=_env(venv),
                          capture_output=True, text=True, timeout=600)


def _run_job(job: dict, cwd: Path, venv: Path, remote: str, artifacts: Path, matrix: dict) -> dict[str, int]:
    """The job's steps, as GitHub would run them: `run` lines in bash (matrix values filled
    in), the actions they use emulated by what they do to files. Exit status by step."""
    status: dict[str, int] = {}
    for i, step in enumerate(job["steps"]):
        name = step.get("name") or step.get("run") or step.get("uses")
        if "run" in step:
            cmd = step["run"]
            for k, v in matrix.items():
                cmd = cmd.replace(f"${{{{ matrix.{k} }}}}", str(v))
            if cmd.startswith("pip install"):  # installed by the same line in ci_venv
                assert cmd == f'pip install "jaxlint @ {DOCS_REMOTE}"', cmd
                continue
            proc = _sh(cmd, cwd, venv, remote)
            status[name] = proc.returncode
            assert proc.returncode in (0, 1), (cmd, proc.stdout, proc.stderr)
            continue
        uses, w = step["uses"].split("@")[0], step.get("with", {})
        if uses == "actions/upload-artifact":
            for k, v in matrix.items():
                w = {a: str(b).replace(f"${{{{ matrix.{k} }}}}", str(v)) for a, b in w.items()}
            (artifacts / w["name"]).mkdir(parents=True)
            shutil.copy2(cwd / w["path"], artifacts / w["name"])
        elif uses == "actions/download-artifact":
            assert w.get("merge-multiple") is True
            (cwd / w["path"]).mkdir(exist_ok=True)
            for d in artifacts.glob(w["pattern"]):
                for f in d.iterdir():
                    shutil.copy2(f, cwd / w["path"])
        elif uses == "github/codeql-action/upload-sarif":
            validate_sarif(json.loads((cwd / w["sarif_file"]).read_text()))
            status[name] = 0
        else:
            assert uses in ("actions/checkout", "actions/setup-python"), uses
    return status


def _workflows() -> list[dict]:
    import yaml

    return [yaml.safe_load(b) for b in blocks("ci.md", "yaml") if b.startswith("name:")]


def test_github_actions_gate_runs_as_written(ci_venv, git_remote, tmp_path):
    gate = _workflows()[0]
    (job,) = gate["jobs"].values()
    repo = _user_repo(tmp_path / "repo")
    status = _run_job(job, repo, ci_venv, git_remote, tmp_path / "artifacts", {})
    assert list(status.values()) == [1], status  # findings fail the gate
    out = _sh("jaxlint check --output-format github", repo, ci_venv, git_remote).stdout
    assert "::warning file=captured_weights.py,line=" in out or "::error file=captured_weights.py" in out, out


def test_github_actions_sharded_workflow_runs_as_written(ci_venv, git_remote, tmp_path):
    wf = _workflows()[1]
    repo = _user_repo(tmp_path / "repo")
    artifacts = tmp_path / "artifacts"
    for shard in wf["jobs"]["shard"]["strategy"]["matrix"]["shard"]:
        status = _run_job(wf["jobs"]["shard"], repo, ci_venv, git_remote, artifacts, {"shard": shard})
        assert set(status.values()) == {0}, status  # --exit-zero: the shard only writes its report
    report_dir = tmp_path / "report"
    report_dir.mkdir()
    status = _run_job(wf["jobs"]["report"], report_dir, ci_venv, git_remote, artifacts, {})
    assert list(status.values()) == [0, 0, 1], status  # merge, upload (valid SARIF), fail on findings
    unsharded = json.loads(_sh("jaxlint check --output-format sarif", repo, ci_venv, git_remote).stdout)
    merged = json.loads((report_dir / "jaxlint.sarif").read_text())
    assert len(merged["runs"][0]["results"]) == len(unsharded["runs"][0]["results"]) > 0


def test_gitlab_job_runs_as_written(ci_venv, git_remote, tmp_path):
    import yaml

    (job,) = [yaml.safe_load(b)["jaxlint"] for b in blocks("ci.md", "yaml") if b.startswith("jaxlint:")]
    repo = _user_repo(tmp_path / "repo")
    for line in job["script"]:
        if line.startswith("pip install"):
            assert line == f'pip install "jaxlint @ {DOCS_REMOTE}"', line
            continue
        proc = _sh(line, repo, ci_venv, git_remote)
        assert proc.returncode == 1, (line, proc.stdout, proc.stderr)  # findings fail the job
    report = json.loads((repo / job["artifacts"]["reports"]["codequality"]).read_text())
    assert report and {"description", "check_name", "fingerprint", "severity", "location"} <= set(report[0])
