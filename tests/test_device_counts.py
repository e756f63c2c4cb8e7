"""Device counts (issue 38): `jaxlint inspect` gives its worker the devices the recorded
program ran on, as `check --dynamic` does; a `devices` setting no worker can start with
under the memory cap is one line at config time, and a worker that crashes at start
for its devices says so. Real jax, real processes."""
from __future__ import annotations

import json
import os
import textwrap

import pytest

from helpers import run_cli

pytest.importorskip("jax")

MESHED = '''
import numpy as np

import jax
import jax.numpy as jnp
from jax.sharding import Mesh

MESH = Mesh(np.array(jax.devices()).reshape(4, 2), ("data", "model"))


# jaxlint: args=(f32[8,4],)
@jax.jit
def step(x):
    return jnp.tanh(x) * 2


if __name__ == "__main__":
    step(jnp.ones((8, 4))).block_until_ready()
'''


def test_inspect_runs_on_the_devices_the_recording_ran_on(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.jaxlint]\n")
    (tmp_path / "meshed.py").write_text(MESHED.lstrip("\n"))
    env = {"XLA_FLAGS": "--xla_force_host_platform_device_count=8", "JAX_PLATFORMS": "cpu"}
    r = run_cli("record", "--", "python", "meshed.py", cwd=tmp_path, env=env)
    assert r.returncode == 0, r.stderr
    programs = json.loads((tmp_path / ".jaxlint" / "observed.json").read_text())["programs"]
    from jaxlint.dynamic.driver import recorded_device_count

    assert recorded_device_count(programs) == 8
    r = run_cli("inspect", "meshed.py::step", "--args", "(f32[8,4],)", "--stage", "hlo", cwd=tmp_path,
                env={"XLA_FLAGS": ""})
    assert r.returncode == 0, r.stdout + r.stderr
    assert "cannot reshape" not in r.stdout + r.stderr and "tanh" in r.stdout


def _project(tmp_path, dynamic: str):
    (tmp_path / "pyproject.toml").write_text(f"[tool.jaxlint]\n[tool.jaxlint.dynamic]\n{dynamic}\n")
    (tmp_path / "m.py").write_text("import jax\n\n\n# jaxlint: args=(f32[4],)\n@jax.jit\ndef f(x):\n    return x + 1\n")


@pytest.mark.parametrize("dynamic, ok", [("devices = 1024", False), ("devices = 64", True),
                                         ("devices = 1024\nmemory-limit-mb = 0", True),
                                         ("devices = 600\nmemory-limit-mb = 4096", False)])
def test_devices_a_worker_cannot_hold_under_the_memory_cap_are_refused_in_one_line(tmp_path, dynamic, ok):
    _project(tmp_path, dynamic)
    r = run_cli("check", "m.py", cwd=tmp_path)
    if ok:
        assert r.returncode == 0, r.stderr
        return
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert "pyproject.toml: [tool.jaxlint.dynamic] `devices = " in r.stderr and "memory-limit-mb" in r.stderr


def test_a_worker_that_crashes_at_start_for_its_recorded_devices_says_so(tmp_path):
    """A recording of a program on 1,024 devices: the worker given as many aborts under
    the default 8 GiB cap; the message names the devices and the cap, not a crash dump."""
    _project(tmp_path, "")
    (tmp_path / ".jaxlint").mkdir()
    (tmp_path / ".jaxlint" / "observed.json").write_text(json.dumps(
        {"format": 1, "programs": [{"main": "train.py", "devices": {"count": 1024}}], "functions": {}}))
    r = run_cli("check", "--dynamic", "m.py", cwd=tmp_path, env={"XLA_FLAGS": ""})
    assert r.returncode == 2, r.stdout + r.stderr
    assert "cannot start a dynamic-phase worker with 1024 devices" in r.stderr and \
        "memory-limit-mb = 8192" in r.stderr, r.stderr
    assert "Extension modules" not in r.stderr and "Fatal Python error" not in r.stderr
