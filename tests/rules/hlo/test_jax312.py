"""JAX312 output-reshard on 8 forced host devices (tests/multi_device.py's shared run):
the reshard forced by out_shardings (a collective without metadata, placed through its
operand) and the one a disagreeing with_sharding_constraint makes."""
from __future__ import annotations

from multi_device import findings, marks


def test_an_out_shardings_reshard_is_reported_at_the_producers_line(multi_device_run):
    got = findings(multi_device_run, "out_reshard", "JAX312")
    assert len(got) == 1, got
    d = got[0]
    assert d["location"]["row"] == marks("out_reshard")["reshard"]
    assert "out_shardings" in d["message"] and d["data"]["cause"] == "out_shardings"
    assert d["data"]["kind"] == "all-gather" and d["data"]["axes"] == ["data"]
    assert d["data"]["bytes_per_execution"] == 1024 * 512 * 4  # the column shard each device gathers


def test_a_sharding_constraint_mismatch_names_the_constraint(multi_device_run):
    got = findings(multi_device_run, "constraint_reshard", "JAX312")
    assert got, multi_device_run["diagnostics"]
    m = marks("constraint_reshard")
    d = got[0]
    assert d["location"]["row"] == m["produced"]
    assert d["data"]["cause"] == "sharding_constraint"
    assert [r["location"]["row"] for r in d.get("related", [])][:1] == [m["constraint"]]
