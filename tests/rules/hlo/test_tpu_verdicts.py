"""Every compile rule gives the same verdict on a TPU's program as on the CPU's where the
cause is the same: each rule's VALID/INVALID examples compiled for the CPU and, deviceless,
for a TPU v5e (one chip; a v5e-8 for the examples that build a mesh of 8 devices), in one
process of their own (tests/tpu_verdicts.py); and every rule on the sharded programs of
tests/multi_device.py, for 8 host devices and a v5e-8. A verdict is whether the rule
reports and the line of its first finding; the figures in the messages are each
program's own.

Where the programs differ, the difference is listed in ACCEPTED with its reason, and the
TPU's verdict is pinned there too.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("jax")

from tpu_compile import need_libtpu  # noqa: E402

#: the compile rules compared (JAX306 compares a function's figures with a budget file
#: of recorded figures, not one program with another: budgets per target are their own)
CODES = ("JAX301", "JAX302", "JAX303", "JAX304", "JAX305", "JAX310", "JAX311", "JAX312", "JAX313", "JAX314")

#: example -> (the TPU's verdict: the first finding's line or None, why it differs)
ACCEPTED = {
    "JAX311-invalid-0": (None, "the TPU's XLA moves the all-reduce of the loop-carried sum out of the scan: "
                               "one all-reduce after the loop, none inside it"),
    "JAX305-invalid-0": (8, "the TPU folds the f32 constant into the bf16 operand of its default-precision "
                            "matmul; that constant has no metadata, so the finding is at its use (line 8), "
                            "not at the line that built the f32 (line 7)"),
}


@pytest.fixture(scope="module")
def verdicts(tmp_path_factory):
    need_libtpu()
    out = tmp_path_factory.mktemp("tpu_verdicts") / "verdicts.json"
    env = {k: v for k, v in os.environ.items() if k != "XLA_FLAGS"}
    env["JAX_PLATFORMS"] = "cpu"
    here = Path(__file__).resolve().parents[2]
    proc = subprocess.run([sys.executable, str(here / "tpu_verdicts.py"), str(out), *CODES], env=env,
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(out.read_text())


def _verdict(diags) -> int | None | str:
    if isinstance(diags, dict):
        return "error: " + diags["error"]
    return diags[0]["line"] if diags else None


@pytest.mark.parametrize("code", CODES)
def test_a_rule_gives_the_same_verdict_on_the_tpus_program_as_on_the_cpus(verdicts, code):
    rows = {ident: row for ident, row in verdicts.items() if row["rule"] == code}
    assert rows, f"no example of {code} ran"
    for ident, row in rows.items():
        cpu, tpu = _verdict(row["cpu"]), _verdict(row[row["target"]])
        assert not isinstance(cpu, str) and not isinstance(tpu, str), (ident, cpu, tpu)
        assert (cpu is not None) == row["invalid"], (ident, "the CPU's verdict is the example's", cpu)
        if ident in ACCEPTED:
            assert tpu == ACCEPTED[ident][0] and tpu != cpu, (ident, cpu, tpu, ACCEPTED[ident][1])
        else:
            assert tpu == cpu, (ident, row["target"], row["cpu"], row[row["target"]])
