"""`jaxlint record` compiles nothing in the program it records: the trace tier shares jax's
trace cache with the program's call, the compile tier reads the executable the program's
own call built, and the recorder's set-up runs no jax operation. Until this test the
recorder learnt the type of a concrete array from `jnp.zeros(())`, which compiled a
`convert_element_type` in the program: one compile more under `record` than in the plain
run (`benchmarks/bench_record.py`: 37 against 36). Real jax, the program counting its XLA
compiles through jax's own compile event, plain and recorded."""
from __future__ import annotations

import subprocess
import sys

import pytest

from helpers import run_cli

pytest.importorskip("jax")

PROGRAM = '''
import functools
import sys

import jax
import numpy as np

NAMES = []
jax.monitoring.register_event_duration_secs_listener(
    lambda event, secs, **kw: NAMES.append(str(kw.get("fun_name")))
    if event == "/jax/core/compile/backend_compile_duration" else None)


@functools.partial(jax.jit, static_argnames="mode")
def step(w, x, key, mode):
    noise = jax.random.normal(key, w.shape)
    return w - 0.1 * (x @ w).mean() + 0.01 * noise if mode == "train" else w


if __name__ == "__main__":
    w = jax.device_put(np.ones((8, 8), np.float32))  # put, not computed: no compile
    x = jax.device_put(np.ones((4, 8), np.float32))
    key = jax.random.wrap_key_data(jax.device_put(np.zeros((2,), np.uint32)))
    for _ in range(3):
        w = step(w, x, key, mode="train")
    step(w, x, key, mode="eval")
    print("compiled", sorted(NAMES))
'''


def _compiled(stdout: str) -> str:
    return next(line for line in stdout.splitlines() if line.startswith("compiled "))


def test_recording_compiles_nothing_the_plain_run_does_not(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.jaxlint]\n")
    (tmp_path / "prog.py").write_text(PROGRAM.lstrip())
    plain = subprocess.run([sys.executable, "prog.py"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert plain.returncode == 0, plain.stderr[-3000:]
    # the program's own compiles: the step for each static mode (jax 0.4.38's event names
    # no function)
    assert _compiled(plain.stdout) in ("compiled ['jit(step)', 'jit(step)']", "compiled ['None', 'None']"), \
        plain.stdout
    for flags in ((), ("--compile",)):
        rec = run_cli("record", *flags, "--", "python", "prog.py", cwd=tmp_path, timeout=600)
        assert rec.returncode == 0, rec.stderr[-3000:]
        assert _compiled(rec.stdout) == _compiled(plain.stdout), (flags, rec.stdout)
