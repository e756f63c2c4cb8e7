"""Cost budgets (JAX306, ``jaxlint budget update``): real compiles on CPU through the real
CLI. One project is measured once, then changed the ways a pull request changes code: a
widened layer, a loop run ten times more, a function moved to other lines, a smaller
model; and a budget edited to another jax version. The result cache makes the unchanged
files' second looks free, so the whole module costs a few dynamic runs."""
from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("jax")

from helpers import run_cli  # noqa: E402

MLP = """
import jax
import jax.numpy as jnp

HIDDEN = {hidden}


def init(n_in, n_out):
    return jnp.arange(n_in * n_out, dtype=jnp.float32).reshape(n_in, n_out) / (n_in * n_out)


# jaxlint: args=(f32[128,256],)
@jax.jit
def mlp(x):
    h = jnp.maximum(x @ init(256, HIDDEN), 0)
    return h @ init(HIDDEN, 10)
"""
LOOP = """
import jax
import jax.numpy as jnp

STEPS = {steps}


# jaxlint: args=(f32[64,64], f32[64,64])
@jax.jit
def iterate(x, w):
    def body(i, x):
        return jnp.tanh(x @ w) * 0.5 + x
    return jax.lax.fori_loop(0, STEPS, body, x)
"""
MOVED = """
import jax
import jax.numpy as jnp
{padding}

# jaxlint: args=(f32[32,32],)
@jax.jit
def features(x):
    return jnp.sin(x) @ x
"""
WIDE_LINES = {"init": 8, "h": 14}  # lines of MLP that build the hidden-width buffers


def write(root: Path, name: str, template: str, **kw) -> None:
    (root / name).write_text(textwrap.dedent(template).lstrip("\n").format(**kw))


def check(root: Path, *extra: str):
    r = run_cli("check", "--dynamic", "--compile", "--output-format", "json", *extra, cwd=root, timeout=600)
    assert r.returncode in (0, 1), r.stderr
    return r, json.loads(r.stdout)


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    root = tmp_path_factory.mktemp("budgets")
    (root / "pyproject.toml").write_text("[tool.jaxlint]\n[tool.jaxlint.dynamic]\nfunction-timeout = 120\n")
    write(root, "wide.py", MLP, hidden=512)
    write(root, "small.py", MLP, hidden=512)
    write(root, "loop.py", LOOP, steps=10)
    write(root, "moved.py", MOVED, padding="")
    made = run_cli("budget", "update", cwd=root, timeout=600)
    assert made.returncode == 0, made.stderr
    first = (root / "jaxlint-budgets.json").read_bytes()
    again = run_cli("budget", "update", cwd=root, timeout=600)
    assert again.returncode == 0, again.stderr
    second = (root / "jaxlint-budgets.json").read_bytes()
    # the pull request: a wider layer, ten times the loop, the same code on other lines, a smaller model
    write(root, "wide.py", MLP, hidden=1024)
    write(root, "small.py", MLP, hidden=256)
    write(root, "loop.py", LOOP, steps=100)
    write(root, "moved.py", MOVED, padding="\n\ndef unrelated():\n    return 1\n\n")
    changed, findings = check(root, "--budget-report", "report.md")
    return {"root": root, "made": made, "first": first, "again": again, "second": second,
            "changed": changed, "findings": findings, "report": (root / "report.md").read_text()}


def by_function(findings, name):
    return [d for d in findings if d["code"] == "JAX306" and d["data"]["function"] == name]


def test_budgets_hold_one_entry_per_function_with_its_signature_and_exact_and_loop_scaled_figures(project):
    data = json.loads(project["first"])
    assert data["format"] == 2
    assert set(data["functions"]) == {"wide:mlp", "small:mlp", "loop:iterate", "moved:features"}
    entry = data["functions"]["loop:iterate"]
    assert entry["signature"] == ["x: f32[64,64]", "w: f32[64,64]"]
    fig = entry["figures"]
    # cost_analysis counts the loop body once; the loop-scaled figure is the body ten times,
    # counted from the HLO exactly as XLA counts it (the loop is all the function does)
    assert fig["loop_flops"] == 10 * fig["flops"]
    assert fig["loop_bytes_accessed"] > fig["bytes_accessed"]
    assert {"temp_bytes", "argument_bytes", "output_bytes", "transcendentals"} <= set(fig)
    assert entry["loops"] == [{"op": "while", "trip_count": 10}]
    assert all(re.match(r"^(buffer|op) \S+ = \d+ \(.*\)$", item) for item in entry["largest"]), entry["largest"]
    assert entry["environment"]["jax"] and entry["environment"]["backend"] == "cpu"
    assert entry["compile_seconds"] > 0
    assert "added loop:iterate" in project["made"].stderr


def test_update_is_idempotent_and_its_json_stable(project):
    assert project["first"] == project["second"], "a second update changed bytes"
    assert "unchanged" in project["again"].stderr, project["again"].stderr
    text = project["first"].decode()
    assert text == json.dumps(json.loads(text), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    assert not re.search(r"\d{4}-\d\d-\d\d|\d\d:\d\d:\d\d", text), "a timestamp in the budgets"
    assert '"line"' not in text and '"file"' not in text  # keyed and written without lines or paths


def test_a_widened_layer_fails_with_its_delta_and_the_line_of_the_new_buffer(project):
    [d] = [x for x in by_function(project["findings"], "mlp") if x["filename"] == "wide.py"]
    assert d["location"]["row"] == 12  # the jit line
    m = re.search(r"temp_bytes (\S+ \S+) -> (\S+ \S+) \(\+(\d+\.\d) %\)", d["message"])
    assert m, d["message"]
    old = json.loads(project["first"])["functions"]["wide:mlp"]
    now = d["data"]["metrics"]["temp_bytes"]
    assert now["budget"] == old["figures"]["temp_bytes"]
    assert now["now"] > now["budget"]
    assert float(m.group(3)) == pytest.approx((now["now"] - now["budget"]) / now["budget"] * 100, abs=0.06)
    assert "largest buffers new or grown" in d["message"]
    lines = {r["location"]["row"] for r in d["related"]}
    assert lines & set(WIDE_LINES.values()), (d["message"], lines)
    assert re.search(r"f32\[(256,1024|128,1024)\]", d["message"]), d["message"]



def test_a_loop_raised_from_10_to_100_fails_on_the_loop_scaled_flops(project):
    [d] = by_function(project["findings"], "iterate")
    assert "loop_flops" in d["message"] and "runs 100 times (budget: 10)" in d["message"], d["message"]
    assert d["data"]["metrics"]["loop_flops"]["now"] > \
        9 * d["data"]["metrics"]["loop_flops"]["budget"]
    # the body counted once did not change: only the loop-scaled figures fail
    assert set(d["data"]["metrics"]) <= {"loop_flops", "loop_bytes_accessed"}


def test_a_moved_function_does_not_fail_and_a_smaller_model_can_be_lowered(project):
    assert not by_function(project["findings"], "features")
    assert not [d for d in by_function(project["findings"], "mlp") if d["filename"] == "small.py"]
    report = project["report"]
    assert re.search(r"\| moved:features \| all \| - \| - \| 0 % \| ok \|", report), report
    lowered = [line for line in report.splitlines() if "budget can be lowered" in line]
    assert any("temp_bytes" in line for line in lowered), report
    assert project["changed"].returncode == 1  # the wide layer and the loop fail the gate


def test_the_table_is_in_the_terminal_and_in_markdown(project):
    r = run_cli("check", "--dynamic", "--compile", cwd=project["root"], timeout=600)
    assert r.returncode == 1, r.stderr
    assert "Cost budgets:" in r.stdout and "FAIL" in r.stdout and "budget can be lowered" in r.stdout
    md = run_cli("check", "--dynamic", "--compile", "--output-format", "markdown", cwd=project["root"], timeout=600)
    assert md.stdout.startswith("## jaxlint") and "| function | metric | budget | now | change | status |" in md.stdout
    assert "JAX306" in md.stdout


@pytest.mark.parametrize("fmt", ["sarif", "github", "gitlab", "junit"])
def test_budget_findings_in_every_ci_format(project, fmt):
    r = run_cli("check", "--dynamic", "--compile", "--output-format", fmt, cwd=project["root"], timeout=600)
    assert r.returncode == 1 and "JAX306" in r.stdout and "over its cost budget" in r.stdout, r.stdout[:2000]


def test_budgets_of_another_environment_are_out_of_date_not_compared(project, tmp_path):
    root = project["root"]
    data = json.loads((root / "jaxlint-budgets.json").read_text())
    for e in data["functions"].values():
        e["environment"]["jax"] = "0.3.0"  # a version other than the one running
        e["figures"] = {k: 1 for k in e["figures"]}  # would fail everything if compared
    other = tmp_path / "old-budgets.json"
    other.write_text(json.dumps(data))
    r, findings = check(root, "--budgets", str(other))
    assert r.returncode == 0 and not [d for d in findings if d["code"] == "JAX306"], findings
    r = run_cli("check", "--dynamic", "--compile", "--budgets", str(other), cwd=root, timeout=600)
    assert r.returncode == 0
    assert "out of date (jax 0.3.0 -> " in r.stdout and "re-measure with `jaxlint budget update --budgets" in r.stdout


def test_no_budget_is_listed_and_fails_only_with_require_budgets(project, tmp_path):
    root = project["root"]
    empty = tmp_path / "none.json"
    empty.write_text(json.dumps({"format": 2, "functions": {}}))
    r = run_cli("check", "--dynamic", "--compile", "--budgets", str(empty), cwd=root, timeout=600)
    assert r.returncode == 0 and "no budget" in r.stdout, r.stdout
    (tmp_path / "strict.toml").write_text("[rules.JAX306]\nrequire-budgets = true\n[dynamic]\nfunction-timeout = 120\n")
    r = run_cli("check", "--dynamic", "--compile", "--budgets", str(empty), "--config", str(tmp_path / "strict.toml"),
                "--output-format", "json", cwd=root, timeout=600)
    assert r.returncode == 1
    assert {d["data"]["function"] for d in json.loads(r.stdout) if d["code"] == "JAX306"} == {"mlp", "iterate",
                                                                                              "features"}


def test_budgets_from_a_recorded_program(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.jaxlint]\n")
    (tmp_path / "prog.py").write_text(textwrap.dedent("""
        import jax
        import jax.numpy as jnp


        def main():
            @jax.jit
            def step(x):
                return jnp.tanh(x @ x)

            step(jnp.ones((32, 32)))


        if __name__ == "__main__":
            main()
    """).lstrip())
    rec = run_cli("record", "--compile", "--", "python", "prog.py", cwd=tmp_path, timeout=600)
    assert rec.returncode in (0, 1), rec.stderr
    up = run_cli("budget", "update", cwd=tmp_path, timeout=600)
    assert up.returncode == 0, up.stderr
    data = json.loads((tmp_path / "jaxlint-budgets.json").read_text())
    entry = data["functions"]["prog:main.<locals>.step"]
    assert entry["signature"] == ["x: f32[32,32]"]
    assert entry["figures"]["flops"] >= 2 * 32 ** 3


def test_budgets_made_from_the_examples(tmp_path):
    root = Path(__file__).resolve().parents[3]
    out = tmp_path / "examples-budgets.json"
    r = run_cli("budget", "update", "examples/dynamic", "--budgets", str(out), "--cache-dir", str(tmp_path / "cache"),
                cwd=root, timeout=900)
    assert r.returncode == 0, r.stderr
    data = json.loads(out.read_text())
    assert len(data["functions"]) >= 5, data["functions"].keys()
    for e in data["functions"].values():
        assert e["figures"]["flops"] >= 0 and e["environment"]["backend"] == "cpu"


# ------------------------------------------------------------------ the rule's judgement, on figures
def judge(options=None, function="m:f"):
    from jaxlint.rules.hlo.jax306_cost_budget import CostBudget

    rule = CostBudget(options or {})
    return lambda old, new, **kw: {a.metric: a.status for a in rule.assess(
        function, {"figures": old, **kw.get("budget", {})}, {"figures": new, **kw.get("now", {})})}


def test_zero_tolerance_by_default_and_tolerances_per_metric_and_function():
    assert judge()({"flops": 100}, {"flops": 101}) == {"flops": "over"}
    assert judge()({"flops": 100}, {"flops": 100}) == {"flops": "same"}
    assert judge()({"flops": 100}, {"flops": 99}) == {"flops": "lower"}
    assert judge({"tolerance": 2})({"flops": 100}, {"flops": 102}) == {"flops": "within"}
    assert judge({"tolerance": 2})({"flops": 100}, {"flops": 103}) == {"flops": "over"}
    per_metric = judge({"metric-tolerance": {"temp_bytes": 10}})
    assert per_metric({"flops": 100, "temp_bytes": 100}, {"flops": 105, "temp_bytes": 105}) == \
        {"flops": "over", "temp_bytes": "within"}
    per_fn = judge({"function-tolerance": {"m:f": {"flops": 50}, "m:g": 1}})
    assert per_fn({"flops": 100}, {"flops": 140}) == {"flops": "within"}
    assert judge({"function-tolerance": {"m:g": 50}}, "m:f")({"flops": 100}, {"flops": 140}) == {"flops": "over"}


def test_compile_time_fails_only_past_three_times_and_two_seconds():
    t = judge()
    assert t({}, {}, budget={"compile_seconds": 1.0}, now={"compile_seconds": 2.9}) == {"compile_seconds": "same"}
    assert t({}, {}, budget={"compile_seconds": 1.0}, now={"compile_seconds": 3.1}) == {"compile_seconds": "over"}
    # a small budget: the 2 s slack decides, not the ratio
    assert t({}, {}, budget={"compile_seconds": 0.1}, now={"compile_seconds": 2.0}) == {"compile_seconds": "same"}
    assert t({}, {}, budget={"compile_seconds": 0.1}, now={"compile_seconds": 2.2}) == {"compile_seconds": "over"}
    assert t({}, {}, budget={"compile_seconds": 9.0}, now={"compile_seconds": 0.5}) == {"compile_seconds": "lower"}
    looser = judge({"compile-time-ratio": 10, "compile-time-slack": 0})
    assert looser({}, {}, budget={"compile_seconds": 1.0}, now={"compile_seconds": 9.0}) == {"compile_seconds": "same"}


def test_loop_scaled_figures_without_a_loop_are_not_reported_twice():
    assert judge()({"flops": 10, "loop_flops": 10}, {"flops": 20, "loop_flops": 20}) == \
        {"flops": "over", "loop_flops": "same"}
    assert judge()({"flops": 10, "loop_flops": 100}, {"flops": 10, "loop_flops": 1000}) == \
        {"flops": "same", "loop_flops": "over"}


def test_check_update_budgets_writes_the_same_budgets_as_budget_update(project, tmp_path):
    other = tmp_path / "from-check.json"
    r = run_cli("check", "--update-budgets", "--budgets", str(other), "--exit-zero", cwd=project["root"], timeout=600)
    assert r.returncode == 0 and "4 changes written to" in r.stderr, r.stderr
    now = json.loads(other.read_text())["functions"]
    assert set(now) == set(json.loads(project["first"])["functions"])
    assert now["loop:iterate"]["loops"] == [{"op": "while", "trip_count": 100}]


def test_the_rule_reports_through_its_budget_context(tmp_path):
    """The gate's context on figures alone: one finding at the jit line, its causes'
    lines related where the file is here (a line measured where it is not is dropped);
    no finding within the budget; no budget is a finding only with require-budgets."""
    from jaxlint.compile.budgets import BudgetContext, Measured
    from jaxlint.rules.hlo.jax306_cost_budget import CostBudget

    src = tmp_path / "m.py"
    src.write_text("import jax\n\n@jax.jit\ndef f(x):\n    return x @ x\n")
    budget = {"figures": {"flops": 100}, "largest": ["op f32[8,8] = 100 (dot_general)"]}
    now = {"signature": "x: f32[16,16]", "figures": {"flops": 800},
           "largest": [{"kind": "op", "shape": "f32[16,16]", "amount": 800, "op": "dot_general", "where": "line 5",
                        "file": str(src), "line": 5},
                       {"kind": "op", "shape": "f32[4]", "amount": 700, "op": "add", "where": "gone.py:3",
                        "file": str(tmp_path / "gone.py"), "line": 3}]}
    fn = Measured("m:f", "f", str(src), 3, now, {"jax": "x"})

    def check(rule, entry, figures=now):
        ctx = BudgetContext(Measured(fn.key, fn.qualname, fn.path, fn.line, figures, fn.versions), entry,
                            rule.assess(fn.key, entry, figures) if entry else [], rule)
        rule.check(ctx)
        return ctx.diagnostics

    [d] = check(CostBudget(), budget)
    assert (d.code, d.path, d.start.line, d.signature) == ("JAX306", str(src), 3, "f:JAX306:budget:x: f32[16,16]"), d
    assert d.message.startswith("`f` is over its cost budget: flops 100 -> 800 (+700.0 %)"), d.message
    assert "f32[16,16] 800 at line 5" in d.message and "gone.py:3" in d.message
    assert [(r.start.line, r.message) for r in d.related] == [(5, "op f32[16,16]: 800")]
    assert d.data["metrics"] == {"flops": {"budget": 100.0, "now": 800.0}} and d.data["function"] == "f"
    assert not check(CostBudget(), budget, {**now, "figures": {"flops": 100}})
    assert not check(CostBudget(), None)
    [d] = check(CostBudget({"require-budgets": True}), None)
    assert d.signature == "f:JAX306:no-budget:x: f32[16,16]" and "has no budget for (x: f32[16,16])" in d.message
    # a finding elsewhere than the jit line, as a compile rule reports one
    from jaxlint.compile.hlo import SourceLocation

    ctx = BudgetContext(fn, budget, [], CostBudget())
    ctx.report(SourceLocation(str(src), 5, column=5), "at the op", key="op")
    [d] = ctx.diagnostics
    assert (Path(d.path).resolve(), d.start.line, d.start.column, d.message) == (src.resolve(), 5, 5, "at the op")
