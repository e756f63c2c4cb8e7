"""A library the program imports from outside its project and outside any site-packages
folder (a folder on PYTHONPATH, an editable install of a sibling checkout; on the TPU host
here, flax installed with ``pip --target``) is a library: a finding made by an equation of its
code is shown at the project's line that called it. Until this test, the recorder wrote such
a finding at the library's file, and ``check`` refused the whole recording as damaged
("the file ... is outside the project"), found on a lent TPU v5e host. Real jax, real
``jaxlint record`` and ``check``."""
from __future__ import annotations

import json
import os
import re

import pytest

from helpers import beside_a_library, run_cli

pytest.importorskip("jax")

LIBRARY = '''
import numpy as np
import jax.numpy as jnp

TABLE = np.arange(1 << 20, dtype=np.float32)  # 4 MiB, made at import


def lookup(x):
    return x + jnp.asarray(TABLE)[:4].sum()   # the table baked into the caller's program
'''

PROGRAM = '''
import jax
import jax.numpy as jnp
from {module} import {function}


@jax.jit
def step(x):
    return {function}(x) * 2.0  # calls the library


if __name__ == "__main__":
    for _ in range(3):
        step(jnp.ones({shape}))
'''


@pytest.mark.parametrize("how", ["record", "check"])
def test_a_finding_in_a_library_outside_the_project_is_shown_at_the_calling_line(tmp_path, how):
    proj, env = beside_a_library(tmp_path, {"faraway.py": LIBRARY})
    (proj / "pyproject.toml").write_text('[tool.jaxlint]\nselect = ["JAX201"]\n')
    program = PROGRAM.format(module="faraway", function="lookup", shape=4).lstrip()
    (proj / "prog.py").write_text(program)
    if how == "record":
        rec = run_cli("record", "--", "python", "prog.py", cwd=proj, env=env)
        assert rec.returncode == 0, rec.stderr[-3000:]
    else:  # the worker imports the program's module and traces it with abstract inputs
        (proj / "prog.py").write_text(program.replace("@jax.jit", "# jaxlint: args=(f32[4],)\n@jax.jit"))
    proc = run_cli("check", "--dynamic", "--no-cache", "--output-format", "concise", "prog.py", cwd=proj, env=env)
    assert proc.returncode == 1, proc.stdout + proc.stderr[-3000:]
    found = re.findall(r"^prog\.py:(\d+):\d+: (JAX201) ", proc.stdout, re.M)
    calling = program.splitlines().index("    return lookup(x) * 2.0  # calls the library") + 1
    if how == "check":
        calling += 1
    assert found == [(str(calling), "JAX201")], proc.stdout + proc.stderr[-2000:]
    assert "faraway.py" not in proc.stdout, proc.stdout


FOLDING = '''
import jax.numpy as jnp


def select_first(x):
    mask = jnp.zeros((1024, 1024)).at[0, 0].set(1.0)  # XLA folds it into a 4 MiB constant
    return x @ mask
'''



def test_a_compiled_finding_in_a_library_outside_the_project_is_shown_at_the_calling_line(tmp_path):
    """The compile tier places findings by the optimized program's source metadata, which
    names the library's line: the same rule applies there (found on the TPU host, where a
    compile-tier finding in flax's `Linear` made check refuse the recording)."""
    proj, env = beside_a_library(tmp_path, {"folding.py": FOLDING})
    (proj / "pyproject.toml").write_text('[tool.jaxlint]\nselect = ["JAX305"]\n')
    program = PROGRAM.format(module="folding", function="select_first", shape=(8, 1024)).lstrip()
    (proj / "prog.py").write_text(program)
    rec = run_cli("record", "--compile", "--", "python", "prog.py", cwd=proj, env=env)
    assert rec.returncode == 0, rec.stderr[-3000:]
    proc = run_cli("check", "--dynamic", "--compile", "--no-cache", "--output-format", "concise", "prog.py",
                   cwd=proj, env=env)
    assert proc.returncode == 1, proc.stdout + proc.stderr[-3000:]
    calling = program.splitlines().index("    return select_first(x) * 2.0  # calls the library") + 1
    assert re.findall(r"^prog\.py:(\d+):\d+: (JAX305) ", proc.stdout, re.M) == [(str(calling), "JAX305")], \
        proc.stdout + proc.stderr[-2000:]


#: a library's own jitted function, with what the rules would report in the project's code:
#: a 4 MiB table baked in (JAX201), a Python loop unrolled (JAX202), and the caller's
#: smaller last batch compiling it again (JAX208)
JITTED = '''
import jax
import jax.numpy as jnp
import numpy as np

TABLE = np.arange(1 << 20, dtype=np.float32)


@jax.jit
def normalize(x):
    for _ in range(40):
        x = x / (1.0 + jnp.abs(x).sum())
    return x + jnp.asarray(TABLE)[:16]
'''

CALLER = '''
import jax.numpy as jnp
from rescale import normalize

if __name__ == "__main__":
    for size in (64, 64, 64, 64, 40):
        normalize(jnp.ones((size, 16)))  # the library's jitted function
'''


@pytest.mark.parametrize("where", ["project", "beside", "venv"])
def test_a_jitted_function_of_a_library_is_not_recorded_nor_reported(tmp_path, where):
    """The recorder records the jits the project makes of its own functions; a library's
    `@jax.jit` of its own function (a module on PYTHONPATH outside the project, or in a
    virtualenv's site-packages inside it) is counted and named in the summary, never analysed,
    so nothing is reported at the library's lines nor at the project's call. The same module
    as a file of the project is recorded and its findings reported (the control)."""
    if where == "beside":
        proj, env = beside_a_library(tmp_path, {"rescale.py": JITTED})
    else:
        proj, env = tmp_path, {}
        folder = proj / ".venv" / "lib" / "python3.11" / "site-packages" if where == "venv" else proj
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "rescale.py").write_text(JITTED.lstrip())
        if where == "venv":
            env = {"PYTHONPATH": os.pathsep.join(p for p in (str(folder), os.environ.get("PYTHONPATH", "")) if p)}
    (proj / "pyproject.toml").write_text('[tool.jaxlint]\nselect = ["JAX201", "JAX202", "JAX208"]\n')
    (proj / "prog.py").write_text(CALLER.lstrip())
    rec = run_cli("record", "--", "python", "prog.py", cwd=proj, env=env)
    assert rec.returncode == 0, rec.stderr[-3000:]
    proc = run_cli("check", "--dynamic", "--no-cache", "--output-format", "concise", "prog.py", "rescale.py",
                   cwd=proj, env=env) if where == "project" else \
        run_cli("check", "--dynamic", "--no-cache", "--output-format", "concise", "prog.py", cwd=proj, env=env)
    found = sorted(re.findall(r"^(\S+\.py):\d+:\d+: (JAX2\d\d) ", proc.stdout, re.M))
    recorded = json.loads((proj / ".jaxlint" / "signatures.json").read_text())["functions"] \
        if (proj / ".jaxlint" / "signatures.json").exists() else {}
    if where == "project":
        assert proc.returncode == 1, proc.stdout + proc.stderr[-3000:]
        assert [e["qualname"] for e in recorded.values()] == ["normalize"], recorded
        # the recompile at the call that compiled again, the others in the function
        assert found == [("prog.py", "JAX208"), ("rescale.py", "JAX201"), ("rescale.py", "JAX202")], proc.stdout
        return
    assert proc.returncode == 0, proc.stdout + proc.stderr[-3000:]
    assert recorded == {}, recorded
    assert found == [], proc.stdout
    # counted and named, with the project's line that called it
    assert "1 function jitted inside libraries, not analysed" in rec.stderr, rec.stderr
    assert "rescale:normalize" in rec.stderr, rec.stderr
