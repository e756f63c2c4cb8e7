"""How many workers the dynamic phase starts by default, and how large the static phase's
pool is: one per CPU jaxlint may run on (its affinity: ``taskset``, a container's cpuset),
not one per CPU of the machine. Real runs restricted to one CPU; the user modules mark the
process that imports them."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("jax")
pytestmark = pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="no CPU affinity here")

#: a.py waits at import (up to WAIT s) for b.py to be imported: a second worker, if there is
#: one, imports it meanwhile; one worker imports b.py after a.py, in the same process
WAIT = 15
MODULE = """
    import os, time
    import jax

    with open({marks!r}, "a") as f:
        f.write(f"{{os.getpid()}}\\n")
    if {waits}:
        end = time.monotonic() + {wait}
        while time.monotonic() < end and len(open({marks!r}).readlines()) < 2:
            time.sleep(0.1)


    @jax.jit  # jaxlint: args=(f32[4],)
    def f(x):
        return x + 1
"""


def _pinned(cpus: set, *args: str) -> list[str]:
    """``python ARGS`` run on ``cpus`` only: a small Python sets its affinity and execs it
    (no ``preexec_fn``, which forks this process, where jax's threads run, and runs Python
    in the child before the exec)."""
    boot = f"import os, sys; os.sched_setaffinity(0, {sorted(cpus)!r}); os.execv(sys.executable, sys.argv[1:])"
    return [sys.executable, "-c", boot, sys.executable, *args]


def test_a_run_on_one_cpu_of_several_starts_one_worker(tmp_path):
    cpus = sorted(os.sched_getaffinity(0))
    if (os.cpu_count() or 1) < 2:
        pytest.skip("one CPU on this machine: one worker either way")
    marks = tmp_path / "marks.txt"
    # import-scripts: the modules write their marks at import
    (tmp_path / "pyproject.toml").write_text("[tool.jaxlint]\n[tool.jaxlint.dynamic]\nenabled = true\n"
                                             "import-scripts = true\nfile-timeout = 300\n")
    for name, waits in (("a.py", True), ("b.py", False)):
        (tmp_path / name).write_text(textwrap.dedent(MODULE.format(marks=str(marks), waits=waits, wait=WAIT)))
    env = {k: v for k, v in os.environ.items() if k != "JAXLINT_OUTPUT_FORMAT"}
    r = subprocess.run(_pinned({cpus[0]}, "-m", "jaxlint", "check", "--no-cache", "--select", "JAX2", "."),
                       cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    pids = marks.read_text().split()
    assert len(pids) == 2 and len(set(pids)) == 1, pids  # both files, one worker


def test_the_static_pool_is_sized_by_the_cpus_it_may_use(tmp_path):
    # the static phase checks a folder of files in a process pool of one worker per usable
    # CPU; on one CPU (taskset, a container's cpuset) it checks them in this process and
    # never loads the pool; with two it does. The pool's module marks which happened.
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        pytest.skip("one CPU usable here: no pool either way")
    for i in range(40):  # each with one JAX104 finding (a nursery rule, turned on below)
        (tmp_path / f"m{i}.py").write_text("import jax\nimport numpy as np\n\n\n@jax.jit\ndef f(x):\n"
                                           "    return np.exp(x)\n")
    env = {k: v for k, v in os.environ.items() if k != "JAXLINT_OUTPUT_FORMAT"}
    pooled = {}
    for n in (1, 2):
        r = subprocess.run(_pinned(set(cpus[:n]), "-X", "importtime", "-m", "jaxlint", "check", "--isolated",
                                   "--extend-select", "JAX104", "--no-cache", "."), cwd=tmp_path, env=env, capture_output=True, text=True,
                           timeout=600)
        assert r.returncode == 1 and "Found 40 findings" in r.stdout, r.stdout + r.stderr[-2000:]
        pooled[n] = "concurrent.futures.process" in r.stderr
    assert pooled == {1: False, 2: True}
