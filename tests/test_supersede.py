"""One problem, one finding: ``Rule.supersedes`` + ``Rule.same_problem``, applied by
``jaxlint.findings.supersede`` in the parent (static vs dynamic) and in the worker (trace
vs compile). Real rules from the registry on real Diagnostics; the end-to-end runs are
in test_compile_rules.py and test_dynamic_phase.py."""
from __future__ import annotations

from jaxlint.diagnostic import Diagnostic, Phase, Position, Related
from jaxlint.registry import all_rules, rules_by_code
from jaxlint.findings.suppress import drop_superseded as parent_supersede
from jaxlint.findings.supersede import superseded as supersede


def diag(code: str, line: int, path: str = "m.py", related: tuple[int, ...] = (), **data) -> Diagnostic:
    rule = rules_by_code()[code]
    return Diagnostic(code=code, name=rule.name, message=f"{code} at {line}", path=path,
                      start=Position(line, 1), end=Position(line, 1), phase=rule.phase,
                      related=tuple(Related(path, Position(r, 1), Position(r, 1), "here") for r in related),
                      data=data)


def test_a_trace_finding_drops_the_static_finding_at_its_line_or_a_related_line():
    static = [diag("JAX101", 3), diag("JAX101", 7), diag("JAX101", 9), diag("JAX102", 3)]
    kept, dropped = parent_supersede(static, [diag("JAX201", 3, related=(7,))])
    assert [(d.code, d.start.line) for d in kept] == [("JAX101", 9), ("JAX102", 3)]
    assert dropped == 2


def test_a_finding_in_another_file_does_not_supersede():
    kept, dropped = parent_supersede([diag("JAX101", 3, path="a.py")], [diag("JAX201", 3, path="b.py")])
    assert dropped == 0 and len(kept) == 1


def test_display_and_absolute_paths_of_one_file_are_the_same_place(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    kept, _ = parent_supersede([diag("JAX101", 3, path="m.py")], [diag("JAX201", 3, path=str(tmp_path / "m.py"))])
    assert kept == []


def test_a_compile_finding_supersedes_only_at_its_own_line_not_at_its_neighbour_kernels():
    # JAX301's related lines are producer/consumer kernels: another callback there is
    # another problem, so its trace and static findings stay
    unfused = diag("JAX301", 5, related=(4, 6))
    lower = [diag("JAX203", 5), diag("JAX203", 4), diag("JAX109", 5), diag("JAX109", 6)]
    kept, replaced = supersede(lower, [unfused], rules_by_code().get)
    assert [(d.code, d.start.line) for d in kept] == [("JAX203", 4), ("JAX109", 6)]
    assert [(d.code, d.start.line) for d in replaced[0]] == [("JAX203", 5), ("JAX109", 5)]


def test_a_folded_constant_confirms_the_prediction_of_the_same_shape_and_dtype_wherever_it_points():
    folded = diag("JAX305", 12, shape=[512, 512], dtype="f32")
    same = diag("JAX209", 8, shape=[512, 512], dtype="float32")
    other = diag("JAX209", 12, shape=[256, 512], dtype="float32")
    kept, replaced = supersede([same, other], [folded], rules_by_code().get)
    assert kept == [other] and replaced == {0: [same]}


def test_the_first_superseding_finding_claims_a_lower_one():
    a, b = diag("JAX201", 3), diag("JAX201", 3)
    kept, replaced = supersede([diag("JAX101", 3)], [a, b], rules_by_code().get)
    assert kept == [] and list(replaced) == [0]


def test_supersedes_is_the_only_declaration_of_one_problem_one_finding():
    # the compile tier once had its own ``absorbs``; one concept now, on every tier
    for r in all_rules():
        assert not hasattr(r, "absorbs"), r.code
        if r.phase is Phase.COMPILE and r.supersedes:
            assert any(rules_by_code()[c].phase is Phase.TRACE for c in r.supersedes), r.code


def test_a_noqa_on_the_measured_finding_does_not_bring_back_the_static_guess(tmp_path):
    from helpers import run_cli

    (tmp_path / "m.py").write_text(
        "import jax\nimport numpy as np\n\nTABLE = np.random.randn(1024, 512).astype(np.float32)\n\n\n"
        "@jax.jit  # jaxlint: args=(f32[512],)\ndef f(x):\n    return TABLE @ x  # noqa: JAX201\n"
    )
    static = run_cli("check", "--no-cache", "m.py", cwd=tmp_path)
    # without --dynamic: a noqa naming the measured twin hides the guess too (one problem, one finding)
    assert static.returncode == 0 and "JAX101" not in static.stdout, static.stdout
    dynamic = run_cli("check", "--dynamic", "--no-cache", "m.py", cwd=tmp_path, timeout=300)
    assert dynamic.returncode == 0, dynamic.stdout + dynamic.stderr
    assert "JAX101" not in dynamic.stdout and "1 function analysed" in dynamic.stdout
    # --ignore-noqa (the editor's child run) shows the measured finding, and still no guess
    shown = run_cli("check", "--dynamic", "--no-cache", "--ignore-noqa", "m.py", cwd=tmp_path, timeout=300)
    assert shown.returncode == 1 and "m.py:9:" in shown.stdout and "JAX201" in shown.stdout, shown.stdout
    assert "JAX101" not in shown.stdout
