"""The pre-commit hooks, run by the real pre-commit against a clone of this checkout.

``pre-commit try-repo`` keeps its store in a throw-away directory, so it builds the
hook's virtualenv (``pip install .``, which needs the package index) on every call. One
test uses it, as a user trying the hooks would; the others reference the same clone
from a config (``repo: <path>``, ``rev: <sha>``) and run ``pre-commit run``, which
builds the environment once in a session-wide ``PRE_COMMIT_HOME``."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

try:
    import pre_commit  # noqa: F401
except ImportError:  # pragma: no cover - the test extra installs it
    pytest.skip("pre-commit is not installed (pip install 'jaxlint[test]')", allow_module_level=True)

from helpers import git, hook_repo as make_hook_repo, run_cli

ROOT = Path(__file__).resolve().parents[1]

BAD = """\
import jax


@jax.jit
def f(x):
    for _ in range(1000):
        x = x + 1
    return x
"""

CLEAN = """\
import jax


@jax.jit
def f(x, w):
    return x @ w
"""

NOQA = BAD.replace("for _ in range(1000):", "for _ in range(1000):  # noqa: JAX102")

NOTEBOOK = ROOT / "tests" / "data" / "notebooks" / "jax_steps.ipynb"


_git = git


@pytest.fixture(scope="session")
def hook_repo(tmp_path_factory) -> Path:
    """A git repo holding this checkout's hook manifest and package (helpers.hook_repo)."""
    return make_hook_repo(tmp_path_factory.mktemp("hook-repo") / "jaxlint")


@pytest.fixture(scope="session")
def target(tmp_path_factory) -> Path:
    """The user's repository the hooks run in."""
    repo = tmp_path_factory.mktemp("user-repo")
    files = {
        # JAX104 is in the nursery; the notebook's demo of a fixable finding uses it
        "pyproject.toml": '[tool.jaxlint]\nextend-exclude = ["generated"]\nextend-select = ["JAX104"]\n',
        "bad.py": BAD,
        "clean.py": CLEAN,
        "suppressed.py": NOQA,
        "generated/bad_too.py": BAD,
        "notebooks/demo.ipynb": NOTEBOOK.read_text(encoding="utf-8"),
        ".jaxlint/baseline.json": '{"version": 1, "findings": []}\n',  # the hooks pass it
    }
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    _git("init", "-q", cwd=repo)
    _git("add", "-A", cwd=repo)
    return repo


@pytest.fixture(scope="session")
def pre_commit_env(tmp_path_factory) -> dict:
    env = dict(os.environ)
    env["PRE_COMMIT_HOME"] = str(tmp_path_factory.mktemp("pre-commit-home"))
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    env.pop("JAXLINT_OUTPUT_FORMAT", None)
    # `language: system` hooks find jaxlint on PATH, as in a user's activated venv
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    return env


def try_repo(hook_repo: Path, target: Path, env: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pre_commit", "try-repo", str(hook_repo), *args],
                          cwd=target, env=env, capture_output=True, text=True, timeout=900)


@pytest.fixture(scope="session")
def hook_config(hook_repo, tmp_path_factory) -> Path:
    """A user's .pre-commit-config.yaml that points at the clone by path and commit."""
    rev = subprocess.run(["git", "rev-parse", "HEAD"], cwd=hook_repo, check=True, capture_output=True,
                         text=True).stdout.strip()
    cfg = tmp_path_factory.mktemp("config") / ".pre-commit-config.yaml"
    cfg.write_text(f"repos:\n  - repo: {hook_repo}\n    rev: {rev}\n    hooks:\n"
                   "      - id: jaxlint\n      - id: jaxlint-dynamic\n")
    return cfg


def run_hooks(cfg: Path, target: Path, env: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pre_commit", "run", "-c", str(cfg), *args],
                          cwd=target, env=env, capture_output=True, text=True, timeout=900)


def test_manifest_is_valid_for_pre_commit():
    proc = subprocess.run([sys.executable, "-m", "pre_commit", "validate-manifest",
                           str(ROOT / ".pre-commit-hooks.yaml")], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_try_repo_hook_fails_on_a_file_with_a_finding_and_names_code_and_file(hook_repo, target, pre_commit_env):
    proc = try_repo(hook_repo, target, pre_commit_env, "jaxlint", "--files", "bad.py")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    assert "- hook id: jaxlint" in out and "- exit code: 1" in out
    assert "bad.py:6:5: JAX102" in out


def test_hook_passes_on_a_clean_file(hook_config, target, pre_commit_env):
    proc = run_hooks(hook_config, target, pre_commit_env, "jaxlint", "--files", "clean.py")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Passed" in proc.stdout


def test_hook_passes_on_a_finding_suppressed_with_noqa(hook_config, target, pre_commit_env):
    proc = run_hooks(hook_config, target, pre_commit_env, "jaxlint", "--files", "suppressed.py")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Passed" in proc.stdout


def test_hook_applies_configured_excludes_to_files_passed_by_pre_commit(hook_config, target, pre_commit_env):
    proc = run_hooks(hook_config, target, pre_commit_env, "jaxlint", "--files", "generated/bad_too.py",
                     "clean.py")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_hook_runs_on_notebooks_and_names_the_cell(hook_config, target, pre_commit_env):
    # pre-commit picks the files a hook gets by its `types_or` (identify tags .ipynb `jupyter`)
    proc = run_hooks(hook_config, target, pre_commit_env, "jaxlint", "--files", "notebooks/demo.ipynb", "clean.py")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    assert "notebooks/demo.ipynb:cell 5:3:16: JAX101" in out and "notebooks/demo.ipynb:cell 7:3:12: JAX104" in out


def test_dynamic_hook_does_not_run_on_commit_by_default(hook_config, target, pre_commit_env):
    proc = run_hooks(hook_config, target, pre_commit_env, "--files", "bad.py", "clean.py")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "jaxlint." in proc.stdout and "bad.py:6:5: JAX102" in proc.stdout
    assert "jaxlint (dynamic)" not in proc.stdout


def test_dynamic_hook_runs_in_the_manual_stage(hook_config, target, pre_commit_env):
    proc = run_hooks(hook_config, target, pre_commit_env, "jaxlint-dynamic", "--hook-stage", "manual",
                     "--files", "clean.py")
    assert "jaxlint (dynamic)" in proc.stdout, proc.stdout + proc.stderr
    help_text = run_cli("check", "--help").stdout
    if "--dynamic" in help_text:
        assert proc.returncode == 0, proc.stdout + proc.stderr


def test_budgets_hook_fails_a_change_over_its_cost_budget(hook_repo, pre_commit_env, tmp_path):
    pytest.importorskip("jax")
    repo = tmp_path / "user"
    repo.mkdir()
    model = ("import jax\nimport jax.numpy as jnp\n\nHIDDEN = {}\n\n\n# jaxlint: args=(f32[32,64],)\n@jax.jit\n"
             "def mlp(x):\n    w = jnp.arange(64 * HIDDEN, dtype=jnp.float32).reshape(64, HIDDEN)\n"
             "    return jnp.maximum(x @ w, 0) @ w.T\n")
    (repo / "model.py").write_text(model.format(64))
    (repo / "pyproject.toml").write_text("[tool.jaxlint]\n[tool.jaxlint.dynamic]\ncompile = true\n")
    _git("init", "-q", cwd=repo)
    made = run_cli("budget", "update", cwd=repo, timeout=600)
    assert made.returncode == 0, made.stderr
    (repo / "model.py").write_text(model.format(128))
    _git("add", "-A", cwd=repo)
    proc = try_repo(hook_repo, repo, pre_commit_env, "jaxlint-budgets", "--hook-stage", "manual", "--all-files")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1 and "jaxlint (cost budgets)" in out, out
    assert "model.py:8:1: JAX306 `mlp` is over its cost budget: flops" in out, out


def test_findings_do_not_depend_on_how_files_are_split_across_calls(target):
    # pre-commit splits a long file list over several calls of a serial hook
    files = ["bad.py", "clean.py", "suppressed.py"]
    together = run_cli("check", "--no-cache", "--output-format", "json", *files, cwd=target)
    apart = [run_cli("check", "--no-cache", "--output-format", "json", f, cwd=target) for f in files]
    assert together.returncode == 1, together.stderr
    assert [p.returncode for p in apart] == [1, 0, 0], [p.stderr for p in apart]
    assert json.loads(together.stdout) == [o for p in apart for o in json.loads(p.stdout)]


def _doc_configs() -> list[str]:
    text = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
    blocks = [b.split("\n", 1)[1] for b in text.split("```yaml")[1:]]
    return [b.split("```", 1)[0] for b in blocks if b.lstrip().startswith("repos:")]


def test_the_config_snippets_in_the_docs_are_valid_pre_commit_configs(tmp_path):
    configs = _doc_configs()
    assert len(configs) == 3
    for i, cfg in enumerate(configs):
        path = tmp_path / f"config{i}.yaml"
        path.write_text(cfg)
        proc = subprocess.run([sys.executable, "-m", "pre_commit", "validate-config", str(path)],
                              capture_output=True, text=True)
        assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_local_hook_snippet_in_the_docs_runs_the_installed_jaxlint(target, pre_commit_env, tmp_path):
    (local,) = [c for c in _doc_configs() if "repo: local" in c]
    cfg = tmp_path / "local.yaml"
    cfg.write_text(local)
    run = [sys.executable, "-m", "pre_commit", "run", "-c", str(cfg), "jaxlint", "--files"]
    bad = subprocess.run([*run, "bad.py"], cwd=target, env=pre_commit_env, capture_output=True, text=True)
    assert bad.returncode == 1 and "bad.py:6:5: JAX102" in bad.stdout, bad.stdout + bad.stderr
    ok = subprocess.run([*run, "clean.py", "suppressed.py"], cwd=target, env=pre_commit_env, capture_output=True,
                        text=True)
    assert ok.returncode == 0, ok.stdout + ok.stderr


def test_the_workflow_examples_in_the_docs_are_valid_yaml_with_matching_shard_counts():
    import yaml

    text = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
    workflows = [yaml.safe_load(b.split("```", 1)[0]) for b in text.split("```yaml\n")[1:]
                 if b.startswith("name:")]
    assert len(workflows) == 3
    budgets = workflows[2]["jobs"]["budgets"]["steps"]
    assert any("--budget-report budgets.md" in st.get("run", "") for st in budgets)
    assert any("--body-file budgets.md" in st.get("run", "") for st in budgets)
    shard_job = workflows[1]["jobs"]["shard"]
    n = len(shard_job["strategy"]["matrix"]["shard"])
    assert any(f"--shard ${{{{ matrix.shard }}}}/{n}" in step.get("run", "") for step in shard_job["steps"])
    uses = [s.get("uses", "") for s in workflows[1]["jobs"]["report"]["steps"]]
    assert any(u.startswith("github/codeql-action/upload-sarif@") for u in uses)


# -------------------------------------------------------------------- the docs' setup, as written
DOCS_URL = "https://github.com/jaxlint/jaxlint"

CAPTURED = """\
import jax
import numpy as np

TABLE = np.random.randn(1024, 512).astype(np.float32)


@jax.jit  # jaxlint: args=(f32[512],)
def project(x):
    return TABLE @ x
"""


@pytest.fixture(scope="session")
def github_stand_in(hook_repo, tmp_path_factory) -> Path:
    """A local git repository standing in for the docs' remote: this checkout's HEAD as
    `main`, its default branch (no tags, as on the real one)."""
    remote = tmp_path_factory.mktemp("github") / "jaxlint.git"
    _git("init", "-q", "--bare", "-b", "main", str(remote), cwd=hook_repo)
    _git("push", "-q", str(remote), "HEAD:refs/heads/main", cwd=hook_repo)
    return remote


def _docs_setup_commands() -> list[list[str]]:
    """The shell commands ci.md gives after its config snippet."""
    text = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
    block = text.split("Then pin the revision", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    return [line.split() for line in block.strip().splitlines()]


def _git_env(env: dict) -> dict:
    return dict(env, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@jaxlint.invalid", GIT_COMMITTER_NAME="t",
                GIT_COMMITTER_EMAIL="t@jaxlint.invalid")


def test_docs_setup_pins_a_commit_and_each_stage_reports_one_view(github_stand_in, pre_commit_env, tmp_path):
    """The config snippet and the two commands of docs/ci.md, as written (the remote's URL
    aside), then a real `git commit` and a real `git push`: the static hook at commit,
    the dynamic one alone at push, each problem reported once in its own terms."""
    (snippet,) = [c for c in _doc_configs() if f"repo: {DOCS_URL}" in c and "jaxlint-dynamic" in c]
    env = _git_env(pre_commit_env)
    user, origin = tmp_path / "user", tmp_path / "origin.git"
    subprocess.run(["git", "init", "-q", "--bare", str(origin)], check=True)
    user.mkdir()
    _git("init", "-q", "-b", "main", cwd=user)
    _git("remote", "add", "origin", str(origin), cwd=user)
    (user / ".pre-commit-config.yaml").write_text(snippet.replace(DOCS_URL, str(github_stand_in)))
    (user / "model.py").write_text(CAPTURED)
    (user / ".jaxlint").mkdir()  # the team's baseline, which the documented hooks pass (empty)
    (user / ".jaxlint" / "baseline.json").write_text('{"version": 1, "findings": []}\n')
    for cmd in _docs_setup_commands():
        assert cmd[0] == "pre-commit"
        args = [a.replace(DOCS_URL, str(github_stand_in)) for a in cmd[1:]]
        proc = subprocess.run([sys.executable, "-m", "pre_commit", *args], cwd=user, env=env,
                              capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, (cmd, proc.stdout, proc.stderr)
    pinned = subprocess.run(["git", "rev-parse", "main"], cwd=github_stand_in, capture_output=True, text=True,
                            check=True).stdout.strip()
    assert f"rev: {pinned}" in (user / ".pre-commit-config.yaml").read_text()

    _git("add", "-A", cwd=user)
    commit = subprocess.run(["git", "commit", "-q", "-m", "model"], cwd=user, env=env, capture_output=True,
                            text=True, timeout=900)
    out = commit.stdout + commit.stderr
    assert commit.returncode != 0, out  # the static hook blocks the commit
    assert "model.py:9:12: JAX101" in out and "JAX201" not in out and "(dynamic)" not in out, out

    _git("commit", "-q", "--no-verify", "-m", "model", cwd=user)
    push = subprocess.run(["git", "push", "-q", "origin", "HEAD:main"], cwd=user, env=env, capture_output=True,
                          text=True, timeout=900)
    out = push.stdout + push.stderr
    assert push.returncode != 0, out  # the dynamic hook blocks the push
    assert "jaxlint (dynamic)" in out and out.count("JAX201") == 1, out
    assert "JAX101" not in out and "jaxlint........" not in out, out  # no static hook, no guess

    # one baseline for both hooks: written by the static phase, it holds at push too
    bl = run_cli("check", "--no-cache", "--write-baseline", ".jaxlint/baseline.json", cwd=user)
    assert bl.returncode == 0, bl.stderr
    cfg = (user / ".pre-commit-config.yaml").read_text()
    cfg = cfg.replace("      - id: jaxlint\n", "      - id: jaxlint\n        args: [--baseline, .jaxlint/baseline.json]\n")
    cfg = cfg.replace("      - id: jaxlint-dynamic\n",
                      "      - id: jaxlint-dynamic\n        args: [--baseline, .jaxlint/baseline.json]\n")
    (user / ".pre-commit-config.yaml").write_text(cfg)
    _git("add", "-A", cwd=user)
    commit = subprocess.run(["git", "commit", "-q", "-m", "baseline"], cwd=user, env=env, capture_output=True,
                            text=True, timeout=900)
    assert commit.returncode == 0, commit.stdout + commit.stderr
    push = subprocess.run(["git", "push", "-q", "origin", "HEAD:main"], cwd=user, env=env, capture_output=True,
                          text=True, timeout=900)
    assert push.returncode == 0, push.stdout + push.stderr
