"""Several devices end to end: a sharded FSDP training script (flax NNX, one layer left
without its partitioning annotation) recorded with `jaxlint record --compile` on 8 forced
host devices, then checked; `jaxlint inspect` listing a function's collectives; the
`devices` setting that gives CPU workers forced host devices."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from helpers import marked, run_cli
from multi_device import write_project

DATA = Path(__file__).parent / "data" / "multi_device"
EIGHT = {"XLA_FLAGS": "--xla_force_host_platform_device_count=8"}


def test_host_device_flags_are_set_and_read():
    from jaxlint.config import DynamicSettings
    from jaxlint.dynamic.pool import host_devices, with_host_devices, worker_env

    assert host_devices(with_host_devices("--xla_dump_to=/tmp/x", 8)) == 8
    assert with_host_devices("--xla_force_host_platform_device_count=2 --a", 4).split() == [
        "--a", "--xla_force_host_platform_device_count=4"]
    assert host_devices("") == host_devices(None) == 0
    assert host_devices(worker_env(DynamicSettings(devices=8)).get("XLA_FLAGS")) == 8
    assert host_devices(worker_env(DynamicSettings(devices=8, backend="gpu")).get("XLA_FLAGS", "")) == 0


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    pytest.importorskip("jax")
    pytest.importorskip("flax")
    root = tmp_path_factory.mktemp("fsdp")
    shutil.copy(DATA / "fsdp_train.py", root / "train.py")
    (root / "pyproject.toml").write_text(
        '[tool.jaxlint]\nselect = ["JAX310", "JAX311", "JAX312", "JAX313", "JAX314", "JAX200", "JAX205"]\n'
        "[tool.jaxlint.dynamic]\ncompile = true\n")
    rec = run_cli("record", "--compile", "--", "python", "train.py", cwd=root, env=EIGHT, timeout=600)
    check = run_cli("check", "--dynamic", "--output-format", "json", "--report", "run.json", ".", cwd=root,
                    timeout=600)
    return root, rec, check


def test_a_recorded_fsdp_script_is_covered_and_its_replicated_layer_reported(recorded):
    root, rec, check = recorded
    assert rec.returncode == 0, rec.stderr[-3000:]
    assert "2 jitted functions called: 2 traced, 2 compiled" in rec.stderr, rec.stderr[-2000:]
    found = json.loads(check.stdout)
    import jax

    if tuple(int(v) for v in jax.__version__.split(".")[:2]) >= (0, 8):
        assert {(d["filename"], d["location"]["row"], d["code"]) for d in found} == marked(root, r"JAX3\d\d")
    else:  # 0.4's metadata keeps one frame, flax's own for the layer's dot: the update's line is the first user line
        update = next(i for i, ln in enumerate((root / "train.py").read_text().splitlines(), 1)
                      if "nnx.update(model, jax.tree.map(" in ln)
        assert [(d["location"]["row"], d["code"]) for d in found] == [(update, "JAX310")]
    (d,) = found
    assert "`model.fc2.kernel`" in d["message"] and "`model.fc1.kernel`" in d["message"]
    assert d["data"]["bytes_per_device"] == 1024 * 1024 * 4 and d["data"]["axes"] == ["data"]
    rows = {r["qualname"]: r for r in json.loads((root / "run.json").read_text())["functions"]}
    assert {q: r["status"] for q, r in rows.items()} == {"create": "analysed", "train_step": "analysed"}
    step = rows["train_step"]["report"]
    # FSDP: the two annotated kernels are gathered, every gradient reduced: bytes per call, per device
    assert step["devices"] == 8 and step["observed"] and step["collective_bytes"] > 2 * 512 * 1024 * 4


def test_inspect_lists_a_functions_collectives(tmp_path):
    pytest.importorskip("jax")
    write_project(tmp_path)
    proc = run_cli("inspect", "scan_psum.py::scan_psum", "--stage", "hlo", "--no-cache", cwd=tmp_path, timeout=600)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    out = proc.stdout
    section = out.split("== collectives (per device) ==", 1)[1].split("==", 1)[0]
    rows = [ln.split() for ln in section.strip().splitlines()[1:]]
    assert len(rows) == 1 and rows[0][0] == "all-reduce", section
    assert "4.0 MiB" in section and "48.0 MiB" in section and " 12 " in section and "'data'" in section
    assert "devices" in out and "collective payload" in out


RESHARDED = '''
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

mesh = Mesh(np.array(jax.devices()).reshape(4, 2), ("data", "model"))


@jax.jit
def colsum(w, x):
    return jnp.tanh(x @ w).sum(axis=0)


@partial(jax.pmap, axis_name="i")
def total(x):
    return jax.lax.psum(x * 2, "i")


if __name__ == "__main__":
    w = jax.device_put(jnp.ones((256, 256)), NamedSharding(mesh, P()))
    x = jax.device_put(jnp.ones((64, 256)), NamedSharding(mesh, P("data")))
    print(colsum(w, x).sum(), total(jnp.ones((8, 128))).sum())
'''


def test_a_worker_compiles_a_recorded_function_with_its_recorded_devices_and_shardings(tmp_path):
    """The recording ran on 8 devices with a batch sharded over 'data'; after an edit the
    observation is out of date and a worker analyses the functions: it gets 8 forced host
    devices (as recorded, no `devices` setting) and the recorded shardings, so the
    partitioned program (its all-reduce over 'data') is what it compiles; the pmap is
    compiled as jax.pmap compiles it, one program per device with its psum."""
    pytest.importorskip("jax")
    (tmp_path / "pyproject.toml").write_text("[tool.jaxlint]\nselect = [\"JAX3\", \"JAX200\", \"JAX205\"]\n"
                                             "[tool.jaxlint.dynamic]\ncompile = true\n")
    (tmp_path / "colsum.py").write_text(RESHARDED)
    rec = run_cli("record", "--", "python", "colsum.py", cwd=tmp_path, env=EIGHT, timeout=600)
    assert rec.returncode == 0, rec.stderr[-2000:]
    with open(tmp_path / "colsum.py", "a") as f:
        f.write("# edited: the recording is out of date\n")
    check = run_cli("check", "--dynamic", "--no-cache", "--output-format", "json", "--report", "run.json", ".",
                    cwd=tmp_path, timeout=600)
    assert check.returncode in (0, 1), check.stderr[-2000:]
    rows = {r["qualname"]: r for r in json.loads((tmp_path / "run.json").read_text())["functions"]}
    for name in ("colsum", "total"):
        assert rows[name]["status"] == "analysed" and not rows[name]["report"]["observed"], rows[name]
        assert rows[name]["report"]["devices"] == 8, rows[name]["report"]
    assert rows["colsum"]["report"]["collective_bytes"] == 256 * 4  # the column sums, all-reduced over 'data'
    assert rows["total"]["report"]["collective_bytes"] == 128 * 4  # the psum of one device's row
