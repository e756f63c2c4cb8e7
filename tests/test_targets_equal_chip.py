"""jaxlint's deviceless figures for a v5e equal the chip's own.

``benchmarks/targets_v5e_chip.json`` holds what a real TPU v5e gave for the 13 functions
of ``benchmarks/targets/`` (``bench_targets.py --chip`` on a v5e host, jax 0.10.2,
libtpu 0.0.42.1). This test compiles the same functions with ``jaxlint check --target
v5e:1x1`` on this machine, which has no TPU, and compares every figure.
"""
from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CHIP = ROOT / "benchmarks" / "targets_v5e_chip.json"
#: what the chip's figures were measured with; another compiler may build other programs
MEASURED_WITH = {"jax": "0.10.2", "libtpu": "0.0.42.1"}


def _versions() -> dict:
    out = {}
    for dist in MEASURED_WITH:
        try:
            out[dist] = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            out[dist] = None
    return out


@pytest.mark.skipif(importlib.util.find_spec("libtpu") is None, reason="libtpu is not installed (pip install "
                    "\"jaxlint[tpu]\"): no deviceless TPU compile here")
def test_deviceless_figures_equal_the_v5e_chips(tmp_path):
    if _versions() != MEASURED_WITH:
        pytest.skip(f"the chip's figures were measured with {MEASURED_WITH}; this is {_versions()}")
    out = tmp_path / "deviceless.json"
    r = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_targets.py"), "--deviceless", "v5e:1x1",
                        "-o", str(out)], capture_output=True, text=True, timeout=1200)
    assert r.returncode == 0, r.stdout + r.stderr
    chip, ours = json.loads(CHIP.read_text()), json.loads(out.read_text())
    assert set(ours) == set(chip) and len(chip) == 13
    differ = [(k, f, chip[k]["figures"][f], ours[k]["figures"][f]) for k in chip for f in chip[k]["figures"]
              if chip[k]["figures"][f] != ours[k]["figures"][f]]
    assert not differ, differ
    assert all(v["environment"]["device_kind"] == "TPU v5 lite" for v in ours.values())
