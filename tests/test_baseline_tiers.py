"""A baseline holds across tiers, through the real CLI with real tracing and compiling:
a problem is one entry whichever tier found it (the ``supersedes`` families), measured
figures never enter a signature, and ``--prune-baseline`` under ``--dynamic`` keeps the
entries of static findings the dynamic run superseded."""
from __future__ import annotations

import json
import re
import textwrap

import pytest

from helpers import run_cli

pytest.importorskip("jax")

# a captured array (JAX101 static, JAX201 measured) and an unrolled loop (JAX102 / JAX202)
MODULE = textwrap.dedent(
    """
    import jax
    import numpy as np

    TABLE = np.random.randn(1024, 512).astype(np.float32)


    @jax.jit  # jaxlint: args=(f32[512],)
    def project(x):
        return TABLE @ x


    @jax.jit  # jaxlint: args=(f32[8],)
    def rollout(x):
        for i in range(300):
            x = x * 0.5 + i
        return x
    """
).lstrip()

DYNAMIC_TIMEOUT = 300


@pytest.fixture
def proj(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "model.py").write_text(MODULE)
    return tmp_path


def _check(proj, *args, timeout=DYNAMIC_TIMEOUT):
    return run_cli("check", "--no-cache", *args, "src", cwd=proj, timeout=timeout)


def _entries(proj) -> list[tuple[str, str, str, int]]:
    data = json.loads((proj / ".jaxlint" / "baseline.json").read_text())
    return [(e["path"], e["code"], e["signature"], e["count"]) for e in data["findings"]]


def test_static_baseline_holds_under_dynamic_and_prune_keeps_the_superseded_entries(proj):
    w = _check(proj, "--write-baseline", ".jaxlint/baseline.json")
    assert w.returncode == 0, w.stderr
    written = _entries(proj)
    assert sorted(c for _, c, _, _ in written) == ["JAX101", "JAX102"]

    dyn = _check(proj, "--dynamic")
    assert {"JAX201", "JAX202"} <= set(re.findall(r" (JAX\d+) ", dyn.stdout)), dyn.stdout  # measured, not guessed
    gated = _check(proj, "--dynamic", "--baseline", ".jaxlint/baseline.json")
    assert gated.returncode == 0, gated.stdout + gated.stderr
    assert "2 baselined findings not shown" in gated.stdout
    assert "stale" not in gated.stderr

    pruned = _check(proj, "--dynamic", "--baseline", ".jaxlint/baseline.json", "--prune-baseline")
    assert pruned.returncode == 0 and "pruned" not in pruned.stderr, pruned.stderr
    assert _entries(proj) == written
    static = _check(proj, "--baseline", ".jaxlint/baseline.json", timeout=600)
    assert static.returncode == 0, static.stdout  # the static pre-commit gate still passes


def test_dynamic_baseline_holds_for_the_static_gate_and_the_dynamic_one(proj):
    w = _check(proj, "--dynamic", "--write-baseline", ".jaxlint/baseline.json")
    assert w.returncode == 0, w.stderr
    entries = _entries(proj)
    assert sorted(c for _, c, _, _ in entries) == ["JAX201", "JAX202"]
    # the measured findings carry the static findings' signatures: one identity per problem
    assert {s for _, _, s, _ in entries} == {"project:TABLE", "rollout:for i in range(300): x = x * 0.5 + i"}
    for args in ((), ("--dynamic",)):
        r = _check(proj, *args, "--baseline", ".jaxlint/baseline.json")
        assert r.returncode == 0, (args, r.stdout, r.stderr)
        assert "stale" not in r.stderr
    # a new problem of the same family in another function is still new, at both tiers
    text = MODULE + textwrap.dedent(
        """


        @jax.jit  # jaxlint: args=(f32[512],)
        def project_again(x):
            return TABLE @ x
        """)
    (proj / "src" / "model.py").write_text(text)
    line = str(len(text.splitlines()))
    for args, code in (((), "JAX101"), (("--dynamic",), "JAX201")):
        r = _check(proj, *args, "--baseline", ".jaxlint/baseline.json")
        assert r.returncode == 1, (args, r.stdout)
        assert re.findall(r"model\.py:(\d+):\d+: (JAX\d+)", r.stdout) == [(line, code)], r.stdout


def test_measured_figures_never_enter_a_signature_and_check_and_inspect_agree(proj):
    """JAX303 (compile time over budget: budget 0 makes it fire) says how long the
    compile took; its baseline entry must not, or the gate flaps run after run."""
    (proj / "pyproject.toml").write_text("[tool.jaxlint.rules.slow-compile]\nmax-instructions = 0\nsize-alone = true\n")
    args = ("--dynamic", "--compile", "--select", "JAX303,JAX201")
    w = _check(proj, *args, "--write-baseline", ".jaxlint/baseline.json")
    assert w.returncode == 0, w.stderr
    sigs = {c: s for _, c, s, _ in _entries(proj)}
    assert set(sigs) == {"JAX201", "JAX303"}, sigs
    assert sigs["JAX303"] in ("project:JAX303:slow-compile", "rollout:JAX303:slow-compile")
    for code, sig in sigs.items():
        assert not re.search(r"\d+(\.\d+)? ?(s|ms|MiB|KiB|bytes)\b", sig), (code, sig)
    for _ in range(2):  # compile times differ every run; the gate does not
        r = _check(proj, *args, "--baseline", ".jaxlint/baseline.json")
        assert r.returncode == 0, r.stdout + r.stderr

    # `check` and `inspect` convert a compile finding to a diagnostic the same way
    out = json.loads(_check(proj, *args, "--output-format", "json").stdout)
    slow = {d["data"]["function"]: d for d in out if d["code"] == "JAX303"}
    for fn, d in slow.items():
        assert d["signature"] == f"{fn}:JAX303:slow-compile"
        shown = run_cli("inspect", f"src/model.py::{fn}", "--no-cache", cwd=proj, timeout=DYNAMIC_TIMEOUT)
        assert shown.returncode == 0, shown.stderr
        at = f"src/model.py:{d['location']['row']}:{d['location']['column']}: JAX303 "
        assert at in shown.stdout, (at, shown.stdout[-800:])


def test_trace_finding_signature_is_the_code_of_its_line_not_its_message(tmp_path):
    (tmp_path / "m.py").write_text(MODULE)
    r = run_cli("check", "--no-cache", "--dynamic", "--select", "JAX2", "--output-format", "json", "m.py",
                cwd=tmp_path, timeout=DYNAMIC_TIMEOUT)
    found = {d["code"]: d for d in json.loads(r.stdout)}
    assert found["JAX201"]["signature"] == "project:large-constant:return TABLE @ x"
    assert found["JAX202"]["signature"] == "rollout:unrolled-loop:for i in range(300):"
    assert "MiB" in found["JAX201"]["message"]  # the figures stay in the message
