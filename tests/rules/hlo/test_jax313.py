"""JAX313 callback-in-partitioned on 8 forced host devices (tests/multi_device.py's
shared run): the callback is reported at its line with the gather the partitioner put
before it; the trace tier's JAX203 at the same line is superseded."""
from __future__ import annotations

from multi_device import findings, marks


def test_a_callback_in_a_sharded_step_is_reported_with_its_gather(multi_device_run):
    got = findings(multi_device_run, "callback_step", "JAX313")
    assert len(got) == 1, got
    d = got[0]
    assert d["location"]["row"] == marks("callback_step")["callback"]
    assert "partitioned over 8 devices" in d["message"] and "all-gather" in d["message"]
    assert "all-gather" in d["data"]["collectives"] and d["data"]["bytes"] >= 64 * 256 * 4
