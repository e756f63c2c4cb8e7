"""JAX310 replicated-argument on 8 forced host devices (tests/multi_device.py's shared
run): a replicated embedding among sharded weights is reported at its use, with its
bytes per device and the mesh axis; data-parallel and FSDP steps are not."""
from __future__ import annotations

from multi_device import findings, marks


def test_a_replicated_embedding_among_sharded_weights_is_reported_where_it_is_used(multi_device_run):
    got = findings(multi_device_run, "replicated_embedding", "JAX310")
    assert len(got) == 1, got
    d = got[0]
    assert d["location"]["row"] == marks("replicated_embedding")["embed"]
    assert "`params['embed']`" in d["message"] and "16.0 MiB" in d["message"]
    assert "mesh axis 'data'" in d["message"] and "all 8 devices" in d["message"]
    assert d["data"]["bytes_per_device"] == 8192 * 512 * 4 and d["data"]["axes"] == ["data"]


def test_correct_data_parallel_and_fsdp_steps_give_no_finding(multi_device_run):
    for program in ("dp_step", "fsdp_step"):
        assert findings(multi_device_run, program) == [], program
