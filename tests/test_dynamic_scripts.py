"""`check --dynamic` does not run programs: a module that does work at import is not
imported by the workers (its functions are skipped with the advice to record it), and
workers run in a directory of their own, so what user code writes does not land in
the project."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from helpers import run_cli
from jaxlint.dynamic.scripts import import_work

ROOT = Path(__file__).resolve().parents[1]

TRAINS_AT_IMPORT = '''
import numpy as np
import jax
import jax.numpy as jnp


@jax.jit  # jaxlint: args=(f32[4], f32[4])
def step(w, x):
    return w - 0.1 * x


w = jnp.zeros(4)
for _ in range(3):
    w = step(w, jnp.ones(4))
np.save("weights_written_by_import.npy", np.asarray(w))
'''

@pytest.mark.parametrize("source,work", [
    ("import jax\n\n@jax.jit\ndef f(x):\n    return x\n", None),
    ("import jax\nX = jax.numpy.ones(3)\nif __name__ == '__main__':\n    main()\n", None),
    ("import jax\njax.config.update('jax_enable_x64', True)\nimport warnings\nwarnings.filterwarnings('ignore')\n",
     None),
    ("try:\n    import flax\nexcept ImportError:\n    flax = None\n", None),
    ("def make_step():\n    pass\nstep = make_step()\nclass C:\n    pass\nCONFIG = C()\n", None),
    ("import numpy as np\nnp.save('w.npy', 1)\n", (2, "calls `np.save(...)`")),
    ("for i in range(3):\n    pass\n", (1, "runs a loop")),
    ("with open('f') as f:\n    pass\n", (1, "runs a `with` block")),
    ("def main():\n    pass\nmain()\n", (3, "calls `main(...)`, defined in it")),
    ("import jax.numpy as jnp\ndef f(x):\n    pass\nf(jnp.ones((4, 8), dtype=jnp.float32))\n", None),
    ("def f(x):\n    pass\nf(load_data())\n", (3, "calls `f(...)`, defined in it")),
])
def test_work_at_import_is_what_runs_beyond_definitions(source, work):
    assert import_work(ast.parse(source)) == work


def test_no_bundled_example_is_taken_for_a_script():
    for f in sorted((ROOT / "examples").rglob("*.py")):
        assert import_work(ast.parse(f.read_text())) is None, f


def _project(tmp_path, config: str = ""):
    root = tmp_path / "proj"
    root.mkdir()
    (root / "pyproject.toml").write_text("[tool.jaxlint]\n" + config)
    (root / "train.py").write_text(TRAINS_AT_IMPORT.lstrip("\n"))
    return root


def test_a_script_that_trains_at_import_is_not_run_by_check_dynamic(tmp_path):
    root = _project(tmp_path)
    proc = run_cli("check", "--dynamic", "--no-cache", "--show-skipped", "train.py", cwd=root, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert sorted(p.name for p in root.iterdir()) == ["pyproject.toml", "train.py"]
    assert ("skipped train.py:6 step: runs at import: record it instead (`jaxlint record -- python train.py`)"
            in proc.stdout), proc.stdout
    assert "not imported: train.py runs at import (line 12 runs a loop)" in proc.stdout, proc.stdout


def test_import_scripts_imports_it_in_a_directory_of_its_own(tmp_path):
    root = _project(tmp_path, "[tool.jaxlint.dynamic]\nimport-scripts = true\n")
    # as a user runs it, with Python writing bytecode (an empty value is unset): the
    # import must not leave a `__pycache__` in the project either
    proc = run_cli("check", "--dynamic", "--no-cache", "train.py", cwd=root, timeout=600,
                   env={"PYTHONDONTWRITEBYTECODE": ""})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "1 function analysed, 0 skipped" in proc.stdout, proc.stdout
    # it ran, in the worker's own directory: nothing landed in the project
    assert sorted(p.name for p in root.iterdir()) == ["pyproject.toml", "train.py"]
