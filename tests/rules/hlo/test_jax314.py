"""JAX314 involuntary-remat: XLA's partitioner warning, reproduced on 8 forced host
devices (a sharding constraint the partitioner cannot reach from the argument's
sharding, and a callback on a sharded argument), placed at the user's line, and still
reported on a run whose compile is a persistent-cache hit, from jaxlint's own record:
without that record the warning is gone, because XLA does not print it again."""
from __future__ import annotations

import shutil

import pytest

from multi_device import check, findings, marks, write_project


def test_the_partitioner_warning_is_placed_at_the_users_line(multi_device_run):
    got = findings(multi_device_run, "constraint_remat", "JAX314")
    assert len(got) == 1, got
    d = got[0]
    assert d["location"]["row"] in marks("constraint_remat").values()
    assert "argument `x`" in d["message"] and "{devices=[1,8,1]<=[8]}" in d["message"]
    got = findings(multi_device_run, "callback_step", "JAX314")
    assert len(got) == 1, got
    assert got[0]["location"]["row"] == marks("callback_step")["callback"]
    assert "maximal device=0" in got[0]["message"]


def _constraint_remat_alone(tmp_path):
    """A project of the multi-device programs holding constraint_remat.py alone."""
    pytest.importorskip("jax")
    root = tmp_path / "p"
    write_project(root)
    for p in root.glob("*.py"):
        if p.name != "constraint_remat.py":
            p.unlink()
    return root


def test_a_persistent_cache_hit_keeps_the_finding_from_jaxlints_record(tmp_path):
    root = _constraint_remat_alone(tmp_path)
    first = check(root)
    assert findings(first, "constraint_remat", "JAX314"), first["stderr"][-2000:]
    cache = root / ".jaxlint_cache"
    assert any((cache / "xla-log").glob("*.json"))
    # an edit that leaves the program as it was: jaxlint checks again, XLA's cache hits
    with open(root / "constraint_remat.py", "a") as f:
        f.write("# edited\n")
    second = check(root)
    assert findings(second, "constraint_remat", "JAX314") == findings(first, "constraint_remat", "JAX314")
    # the same again without jaxlint's record: the warning is not printed on a cache hit
    shutil.rmtree(cache / "xla-log")
    with open(root / "constraint_remat.py", "a") as f:
        f.write("# edited again\n")
    third = check(root)
    assert findings(third, "constraint_remat", "JAX314") == []
    row = next(r for r in third["functions"] if r["qualname"] == "regroup")
    assert row["status"] == "analysed" and row["report"]["devices"] == 8  # compiled, on 8 devices


def test_a_user_who_quiets_xlas_log_still_gets_the_finding(tmp_path, monkeypatch):
    """TF_CPP_MIN_LOG_LEVEL=3 in the user's shell (common, to quiet jax's C++ logging) hid
    the partitioner's warning from the workers: no JAX314 at all."""
    root = _constraint_remat_alone(tmp_path)
    monkeypatch.setenv("TF_CPP_MIN_LOG_LEVEL", "3")
    run = check(root, "--no-cache")
    got = findings(run, "constraint_remat", "JAX314")
    assert len(got) == 1 and got[0]["location"]["row"] in marks("constraint_remat").values(), run["stderr"][-2000:]
