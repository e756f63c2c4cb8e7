"""A pmap is traced with pmap's semantics (as jax 0.10 compiles it: the jit of a
shard_map over the mapped devices), not vmap's: a body whose `ppermute` sends from some
devices only runs under pmap and is no trace error. Real `jaxlint record` and `check`
runs on 4 forced host devices."""
from __future__ import annotations

import json

import pytest

from helpers import run_cli

FOUR = {"XLA_FLAGS": "--xla_force_host_platform_device_count=4"}

RING = '''
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.pmap, axis_name="i")
def shift(x):
    # every device but the last sends to its right neighbour; device 0 receives zeros
    return jax.lax.ppermute(x * 2.0, "i", perm=[(0, 1), (1, 2), (2, 3)])


@partial(jax.pmap, axis_name="i")
def broken(x):
    return jnp.dot(x, jnp.ones((3,)))  # (2,) @ (3,): an error under pmap as well


if __name__ == "__main__":
    print(shift(jnp.ones((4, 2))).sum())
    try:
        broken(jnp.ones((4, 2)))
    except TypeError:
        pass
'''


def test_a_pmap_with_a_partial_ppermute_is_traced_as_pmap_runs_it(tmp_path):
    pytest.importorskip("jax")
    (tmp_path / "pyproject.toml").write_text('[tool.jaxlint]\nselect = ["JAX2", "JAX3"]\n'
                                             "[tool.jaxlint.dynamic]\ncompile = true\n")
    (tmp_path / "ring.py").write_text(RING.lstrip())
    rec = run_cli("record", "--", "python", "ring.py", cwd=tmp_path, env=FOUR, timeout=600)
    assert rec.returncode == 0, rec.stderr[-2000:]
    with open(tmp_path / "ring.py", "a") as f:
        f.write("# edited: the worker traces the functions again\n")
    check = run_cli("check", "--dynamic", "--no-cache", "--output-format", "json", "--report", "run.json", ".",
                    cwd=tmp_path, timeout=600)
    assert check.returncode in (0, 1), check.stderr[-2000:]
    found = [(d["code"], d["location"]["row"]) for d in json.loads(check.stdout)]
    rows = {r["qualname"]: r for r in json.loads((tmp_path / "run.json").read_text())["functions"]}
    assert rows["shift"]["status"] == "analysed", rows["shift"]
    assert not any(row <= 11 for _, row in found), found  # no JAX205 (nor anything) at `shift`
    assert ("JAX205", 15) in found  # an error under pmap too is still one
    assert rows["shift"]["report"]["devices"] == 4, rows["shift"]["report"]
    # with fewer devices than the mapped axis it cannot run as pmap runs it: skipped, with the reason
    fewer = run_cli("check", "--dynamic", "--no-cache", "--show-skipped", "--output-format", "concise", "--config",
                    "dynamic.devices = 2", ".",
                    cwd=tmp_path, timeout=600)
    assert fewer.returncode in (0, 1), fewer.stderr[-2000:]
    assert ("skipped ring.py:7 shift: vmap cannot trace this pmap (Permutation doesn't match the axis size!); "
            "traced as pmap runs it, it needs a device per mapped element: 4, and there are 2 here") in fewer.stdout, \
        fewer.stdout
    assert "ring.py:10:" not in fewer.stdout  # no JAX205 at `shift`
