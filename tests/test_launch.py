"""jaxlint's child processes import the installed jaxlint, not a `jaxlint/` folder in the cwd."""
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest


SHADOW = "raise ImportError('the checkout shadowed the installed jaxlint')\n"


@pytest.fixture
def shadowed(tmp_path: Path) -> Path:
    # A folder like a jaxlint checkout: `jaxlint/` that is not the installed package.
    (tmp_path / "jaxlint").mkdir()
    (tmp_path / "jaxlint" / "__init__.py").write_text(SHADOW)
    (tmp_path / "mod.py").write_text(textwrap.dedent(
        """
        import jax
        import jax.numpy as jnp

        # jaxlint: args=(f32[8],)
        @jax.jit
        def f(x):
            for _ in range(40):
                x = jnp.sin(x) * 2.0
            return x
        """
    ))
    return tmp_path


def test_dynamic_workers_ignore_a_jaxlint_folder_in_the_cwd(shadowed):
    jaxlint = Path(sys.executable).parent / "jaxlint"
    r = subprocess.run([str(jaxlint), "check", "--no-cache", "--dynamic", "--output-format", "json", "mod.py"],
                       cwd=shadowed, capture_output=True, text=True, timeout=300)
    assert r.returncode == 1, r.stderr
    codes = {d["code"] for d in json.loads(r.stdout)}
    assert "JAX202" in codes, (codes, r.stderr)
    assert "shadowed" not in r.stderr


@pytest.mark.skipif(sys.version_info < (3, 11), reason="PYTHONSAFEPATH is new in Python 3.11")
def test_a_child_keeps_the_first_pythonpath_entry_under_pythonsafepath(tmp_path):
    """Under PYTHONSAFEPATH nothing is put before the user's PYTHONPATH: a child that
    dropped sys.path[0] regardless lost it (on a TPU host, the folder holding jax and
    libtpu), and ran without them."""
    import os

    from jaxlint.process.launch import module_command

    first = tmp_path / "first"
    (first / "onlyhere").mkdir(parents=True)
    (first / "onlyhere" / "__init__.py").write_text("")
    probe = tmp_path / "probe"
    (probe / "jaxlint_probe_child").mkdir(parents=True)
    (probe / "jaxlint_probe_child" / "__init__.py").write_text("")
    (probe / "jaxlint_probe_child" / "__main__.py").write_text(
        "import importlib.util\nprint(importlib.util.find_spec('onlyhere') is not None)\n")
    for safe in ("1", ""):
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(first), str(probe)]), PYTHONSAFEPATH=safe)
        r = subprocess.run(module_command("jaxlint_probe_child"), cwd=tmp_path, env=env, capture_output=True,
                           text=True, timeout=60)
        assert r.stdout.strip() == "True", (safe, r.stdout, r.stderr)
