"""Failures of jaxlint's own machinery are reported, never silently dropped: the
recorder's errors reach `jaxlint record`'s output and observed.json; statistics a
compiled executable cannot give reach the run's summary."""
from __future__ import annotations

import json

from helpers import run_cli

PROGRAM = '''
from functools import partial
import jax
import jax.numpy as jnp


class Mode:
    """A static argument jax is happy with (hashable), whose repr raises."""
    def __hash__(self):
        return 1
    def __eq__(self, other):
        return isinstance(other, Mode)
    def __repr__(self):
        raise RuntimeError("no repr for Mode")


@partial(jax.jit, static_argnums=1)
def scale(x, mode):
    return x * 2


@jax.jit
def shift(x):
    return x + 1


x = jnp.ones(3)
for _ in range(3):
    scale(x, Mode())
print("done", float(shift(x).sum()))
'''


def test_recorder_errors_are_counted_and_reported(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.jaxlint]\n")
    (tmp_path / "prog.py").write_text(PROGRAM)
    r = run_cli("record", "--", "python", "prog.py", cwd=tmp_path, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "done 6.0" in r.stdout  # the program ran as without jaxlint
    err = r.stderr
    # the three calls of `scale` could not be noted: said, with the first message
    assert ("the recorder failed 3 times noting a call (what it failed on went unrecorded): "
            "RuntimeError: no repr for Mode") in err, err
    coverage = next(line for line in err.splitlines() if "jitted function" in line and "called" in line)
    assert "the recorder failed 3 times" in coverage, err
    observed = json.loads((tmp_path / ".jaxlint" / "observed.json").read_text())
    errors = [p["recorder_errors"] for p in observed["programs"] if p.get("recorder_errors")]
    assert errors == [{"noting a call": {"count": 3, "first": "RuntimeError: no repr for Mode"}}]
    # what it could record, it did: `shift`, not `scale`
    sigs = json.loads((tmp_path / ".jaxlint" / "signatures.json").read_text())
    assert {e["qualname"] for e in sigs["functions"].values()} == {"shift"}, sigs


def test_a_recording_without_errors_says_nothing_of_them(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.jaxlint]\n")
    (tmp_path / "prog.py").write_text(PROGRAM.replace('raise RuntimeError("no repr for Mode")', 'return "Mode()"'))
    r = run_cli("record", "--", "python", "prog.py", cwd=tmp_path, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "recorder failed" not in r.stderr
    observed = json.loads((tmp_path / ".jaxlint" / "observed.json").read_text())
    assert not any(p.get("recorder_errors") for p in observed["programs"])


def _failing_statistics():
    """A real failure of a jax call for a real reason (no such backend here): what a
    backend without cost or memory analysis makes of ``compiled.memory_analysis()``.
    No backend this suite runs on fails the real call (tried: CPU on jax 0.4.38 and
    0.10.2, plain, deserialized, from the persistent cache, pmap on two devices, host
    callbacks, the executable captured by ``jaxlint record``)."""
    import functools

    import jax

    from jaxlint.compile.tier import _statistics

    return _statistics("memory", functools.partial(jax.devices, "no-such-backend"))


def test_statistics_a_backend_cannot_give_are_named_with_the_reason():
    import jax
    import jax.numpy as jnp

    from jaxlint.compile.tier import _statistics

    compiled = jax.jit(lambda v: jnp.sin(v) @ v).lower(jnp.ones((8, 8))).compile()
    stats, why = _statistics("memory", compiled.memory_analysis)
    assert why is None and stats.temp_size_in_bytes >= 0
    cost, why = _statistics("cost", compiled.cost_analysis)
    assert why is None and cost
    stats, why = _failing_statistics()
    assert stats is None
    assert why.startswith("memory statistics unavailable on this backend: RuntimeError: "), why
    assert "no-such-backend" in why


def test_a_compile_on_cpu_has_every_statistic(tmp_path):
    """The real tier on CPU: both analyses answer, so nothing is marked unavailable and
    JAX304 can read its memory figures."""
    import jax
    import jax.numpy as jnp

    from jaxlint.compile.tier import analyse

    traced = jax.jit(lambda v: (v[:, None, :] - v[None, :, :]).sum(-1)).trace(jnp.ones((64, 16)))
    facts = analyse(traced, function="pairwise", file=str(tmp_path / "m.py"), line=1)
    assert facts.unavailable == []
    assert "temp_size_in_bytes" in facts.memory and facts.memory["output_size_in_bytes"] == 64 * 64 * 4
    assert facts.cost.get("flops", 0) > 0


def test_unavailable_statistics_reach_the_summary_and_inspect():
    from jaxlint.compile.facts import CompileFacts
    from jaxlint.compile.summary import summary_notes
    from jaxlint.dynamic.driver import DynamicReport, FunctionOutcome
    from jaxlint.inspect.view import View

    _, why = _failing_statistics()
    report = DynamicReport(functions=[
        FunctionOutcome("m.py", "pairwise", 3, "analysed", report={"platform": "cpu", "statistics_unavailable": [why]}),
        FunctionOutcome("m.py", "fine", 9, "analysed", report={"platform": "cpu"}),
    ])
    assert summary_notes(report) == [f"  m.py:3 pairwise: {why}"]
    view = View("pairwise", "/m.py", "m.py", "", [], facts=CompileFacts("pairwise", "/m.py", 3, "", unavailable=[why]))
    assert ("unavailable", why) in view.summary_pairs()


def test_recorder_errors_of_several_processes_of_one_program_add_up():
    from jaxlint.dynamic.observed import merge_parts

    prog = {"main": None, "argv": ["prog.py"], "cwd": "/p", "env": {}}
    parts = [{"program": dict(prog, recorder_errors={"noting a call": {"count": 2, "first": "RuntimeError: a"}}),
              "functions": {}},
             {"program": dict(prog), "functions": {}},
             {"program": dict(prog, recorder_errors={"noting a call": {"count": 1, "first": "RuntimeError: b"}}),
              "functions": {}}]
    _, programs, _ = merge_parts(parts)
    assert programs == [dict(prog, recorder_errors={"noting a call": {"count": 3, "first": "RuntimeError: a"}})]
