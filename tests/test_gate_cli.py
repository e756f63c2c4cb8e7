"""The gate's command line, as a team meets it: `fail-on` and informational findings,
ruff's `--exclude` / `--extend-exclude`, `fixable` / `unfixable`, `--config 'key =
value'`, `# noqa: JAX1l4` left alone by fixes, a notebook's full output at its own
cell's line, and a static-only install (no jax) saying once what is missing. The real
CLI in a subprocess."""
from __future__ import annotations

import json

from helpers import run_cli

INFO_ONLY = '''
import jax


@jax.jit
def f(x):
    jax.debug.print("x = {}", x)
    return x
'''

CAPTURED = '''
import jax
import numpy as np

W = np.ones((1024, 1024))


@jax.jit
def f(x):
    return x @ W
'''

FIXABLE = '''
import jax
import numpy as np


@jax.jit
def f(x):
    return np.exp(x)
'''


def _project(tmp_path, files: dict[str, str], config: str = ""):
    (tmp_path / "pyproject.toml").write_text("[tool.jaxlint]\n" + config)
    for name, text in files.items():
        p = tmp_path / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text.lstrip("\n"))
    return tmp_path


def test_an_informational_finding_is_shown_and_does_not_fail(tmp_path):
    # JAX109 (an info finding) is pedantic, off by default: the project selects it
    root = _project(tmp_path, {"m.py": INFO_ONLY}, 'extend-select = ["JAX109"]\n')
    proc = run_cli("check", "--no-cache", ".", cwd=root)
    assert proc.returncode == 0, proc.stdout
    assert "m.py:6:5: JAX109" in proc.stdout
    assert '1 of them below `fail-on = "warning"`: shown, not failing the run.' in proc.stdout
    assert run_cli("check", "--no-cache", "--fail-on", "info", ".", cwd=root).returncode == 1
    stricter = run_cli("check", "--no-cache", "--config", 'fail-on = "info"', ".", cwd=root)
    assert stricter.returncode == 1, stricter.stdout + stricter.stderr


def test_fail_on_error_lets_warnings_pass(tmp_path):
    root = _project(tmp_path, {"m.py": CAPTURED}, 'fail-on = "error"\n')
    proc = run_cli("check", "--no-cache", ".", cwd=root)
    assert proc.returncode == 0 and "JAX101" in proc.stdout, proc.stdout


def test_exclude_and_extend_exclude_on_the_command_line(tmp_path):
    root = _project(tmp_path, {"src/m.py": CAPTURED, "gen/g.py": CAPTURED, "scratch/s.py": CAPTURED})
    files = run_cli("check", "--show-files", "--extend-exclude", "gen,scratch", ".", cwd=root)
    assert files.stdout.split() == ["src/m.py"], files.stdout
    proc = run_cli("check", "--no-cache", "--extend-exclude", "gen", "--output-format", "json", ".", cwd=root)
    assert sorted({d["filename"] for d in json.loads(proc.stdout)}) == ["scratch/s.py", "src/m.py"]
    # --exclude replaces the config's list (and the default one)
    replaced = run_cli("check", "--show-files", "--exclude", "src", ".", cwd=root)
    assert replaced.stdout.split() == ["gen/g.py", "scratch/s.py"], replaced.stdout


def test_unfixable_keeps_a_rule_s_fix_from_being_applied(tmp_path):
    root = _project(tmp_path, {"m.py": FIXABLE}, 'unfixable = ["JAX104"]\nextend-select = ["JAX104"]\n')
    proc = run_cli("check", "--no-cache", "--fix", "--unsafe-fixes", ".", cwd=root)
    assert "np.exp(x)" in (root / "m.py").read_text(), proc.stdout
    assert "JAX104 " in proc.stdout and "JAX104 [*]" not in proc.stdout, proc.stdout
    # the command line overrides the config: the fix is applied
    run_cli("check", "--no-cache", "--fix", "--unsafe-fixes", "--config", 'unfixable = []', ".", cwd=root)
    assert "jnp.exp(x)" in (root / "m.py").read_text()


def test_an_inline_config_override_that_is_not_toml_is_an_error(tmp_path):
    root = _project(tmp_path, {"m.py": CAPTURED})
    proc = run_cli("check", "--config", "fail-on = ", ".", cwd=root)
    assert proc.returncode == 2 and "--config 'fail-on = '" in proc.stderr, proc.stderr
    bad_key = run_cli("check", "--config", 'fial-on = "info"', ".", cwd=root)
    assert bad_key.returncode == 2 and "unknown key `fial-on`" in bad_key.stderr, bad_key.stderr


def test_a_noqa_with_a_code_that_is_not_one_is_left_as_written_by_fixes(tmp_path):
    source = "import jax\n\n\n@jax.jit\ndef f(x):\n    return x  # noqa: JAX1l4\n"
    root = _project(tmp_path, {"m.py": source})
    proc = run_cli("check", "--no-cache", "--extend-select", "JAX190", "--fix", ".", cwd=root)
    assert (root / "m.py").read_text() == source, proc.stdout + proc.stderr
    assert "JAX1`" not in proc.stdout


def test_a_notebook_s_full_output_shows_each_finding_under_its_own_cell_s_line(tmp_path):
    cells = ["import jax\nimport numpy as np\nW = np.ones((1024, 1024))",
             "def unrelated():\n    return 1\n\n\nx = 2",
             "@jax.jit\ndef f(x):\n    return x @ W"]
    nb = {"cells": [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": c}
                    for c in cells],
          "metadata": {"kernelspec": {"name": "python3", "language": "python"}}, "nbformat": 4, "nbformat_minor": 5}
    (tmp_path / "nb.ipynb").write_text(json.dumps(nb))
    proc = run_cli("check", "--no-cache", "--isolated", "--output-format", "full", "nb.ipynb", cwd=tmp_path)
    assert "nb.ipynb:cell 3:3:16: JAX101" in proc.stdout, proc.stdout
    assert "   3 |     return x @ W" in proc.stdout, proc.stdout


def test_without_jax_inspect_says_once_what_is_missing(tmp_path):
    fake = tmp_path / "fake" / "jax"
    fake.mkdir(parents=True)
    # a static-only install: `import jax` fails as it does when jax is not installed
    (fake / "__init__.py").write_text("raise ModuleNotFoundError(\"No module named 'jax'\", name='jax')\n")
    (tmp_path / "m.py").write_text("import jax\n\n@jax.jit  # jaxlint: args=(f32[4],)\ndef f(x):\n    return x\n")
    proc = run_cli("inspect", "m.py::f", cwd=tmp_path, env={"PYTHONPATH": str(tmp_path / "fake")})
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stderr.count("needs jax, which is not installed") == 1, proc.stderr
    assert 'pip install "jaxlint[dynamic] @ git+https://github.com/jaxlint/jaxlint"' in proc.stderr
    assert "Traceback" not in proc.stderr
