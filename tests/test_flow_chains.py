"""The value model answers each question about a value once per function.

A name bound twice (``v = 0``, then ``v = w * w``) is read through the bindings that reach
the read; a chain of such names asks about each earlier value along every path, 2**n of
them. A 5,700-line game of a public library (a renderer of this shape) took over 12
minutes of CPU and never finished; remembered answers make it linear.
"""
from __future__ import annotations

import json
import subprocess
import sys
import time


def chain(n: int) -> str:
    lines = ["import jax", "", "", "@jax.jit", "def f(x):", "    v0 = 0", "    v0 = x + 1"]
    for i in range(1, n):
        lines += [f"    v{i} = 0", f"    v{i} = v{i - 1} * v{i - 1}"]
    lines += [f"    if v{n - 1}:", "        return x", f"    return v{n - 1}", ""]
    return "\n".join(lines)


def test_a_chain_of_rebound_names_is_checked_in_linear_time(tmp_path):
    n = 60  # 2**60 paths: without remembered answers this never ends
    (tmp_path / "chain.py").write_text(chain(n))
    start = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "jaxlint", "check", "--isolated", "--no-cache",
                           "--output-format", "json", "chain.py"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    elapsed = time.monotonic() - start
    assert proc.returncode == 1, proc.stderr
    findings = json.loads(proc.stdout)
    # the answer is still the model's: `if v59:` is on a traced value (JAX105), at its line
    assert [(f["code"], f["location"]["row"]) for f in findings] == [("JAX105", 6 + 2 * n)]
    assert elapsed < 60, elapsed


def test_a_remembered_answer_is_asked_again_when_a_name_is_marked_later_in_the_body():
    """The levels of a function's names are found statement by statement, again until
    none changes: `z = w + 1` is read before `w = x * 2` marks `w` (the loop brings it
    back). An answer remembered from the first pass (`w + 1`: not traced) must not stand
    in the second. On main at a9b508c, `if z > 0:` went unreported (found before f6a30b8)."""
    from helpers import lines

    src = '''
        import jax


        @jax.jit
        def f(x):
            for i in range(3):
                if i:
                    z = w + 1
                w = x * 2
            if z > 0:
                return z
            return x
    '''
    assert lines("JAX105", src) == [10]
