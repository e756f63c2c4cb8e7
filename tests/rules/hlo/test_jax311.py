"""JAX311 collective-in-step on 8 forced host devices (tests/multi_device.py's shared
run): a shard_map psum inside a scan is weighed per call (bytes x trip count) against
the loop budget and reported at the psum's line."""
from __future__ import annotations

from multi_device import findings, marks


def test_a_psum_in_a_scan_is_reported_with_its_trip_count_and_axis(multi_device_run):
    got = findings(multi_device_run, "scan_psum", "JAX311")
    assert len(got) == 1, got
    d = got[0]
    assert d["location"]["row"] == marks("scan_psum")["psum"]
    assert d["data"]["in_loop"] and d["data"]["trip_count"] == 12
    # each iteration psums its f32[1024,4096] slice, split 4 ways over 'data': 4 MiB per device
    assert d["data"]["bytes_per_execution"] == 1024 * (4096 // 4) * 4
    assert d["data"]["bytes"] == d["data"]["bytes_per_execution"] * 12
    assert "inside a loop of 12 iterations" in d["message"] and "mesh axis 'data'" in d["message"]


def test_the_step_budgets_are_options(multi_device_run):
    from jaxlint.rules.hlo.jax311_collective_in_step import CollectiveInStep

    assert CollectiveInStep().opts["max-loop-bytes"] < CollectiveInStep().opts["max-bytes"]
