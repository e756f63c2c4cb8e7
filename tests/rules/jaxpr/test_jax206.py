"""JAX206 large-program: tests beyond the rule's VALID/INVALID examples (which
tests/test_dynamic_rule_examples.py runs): a program large only by an unrolled loop is
reported once, at the loop (JAX202), and the compile tier skips it; real runs."""
from __future__ import annotations

import pytest

from helpers import json_findings, run_cli


LOOPS = '''
import jax
import jax.numpy as jnp


# jaxlint: args=(f32[16],)
@jax.jit
def simulate(x):
    for _ in range(100):
        x = jnp.tanh(x) * 0.5 + x
    return x


def layer(x, w):
    return jnp.tanh(jnp.sin(x @ w) * 2.0 + jnp.cos(x)) * 0.5 + x


# jaxlint: args=([f32[8,8], f32[8,8], f32[8,8], f32[8,8], f32[8,8], f32[8,8], f32[8,8], f32[8,8]], f32[4,8])
@jax.jit
def model(layers, x):
    for _ in range(100):
        x = jnp.tanh(x) * 0.5 + x
    for w in layers:
        x = layer(x, w)
    return x
'''


@pytest.fixture(scope="module")
def loops_project(tmp_path_factory):
    root = tmp_path_factory.mktemp("loops")
    (root / "pyproject.toml").write_text("[tool.jaxlint]\n[tool.jaxlint.rules.large-program]\nmax-equations = 60\n")
    (root / "loops.py").write_text(LOOPS.lstrip("\n"))

    related: dict[int, list[str]] = {}

    def check(*args):
        proc = run_cli("check", "--dynamic", "--no-cache", "--output-format", "json", *args, cwd=root, timeout=300)
        assert proc.returncode == 1, proc.stderr
        found = json_findings(proc)
        for d in found if not related else ():  # the first run's: each finding's related messages by line
            related.setdefault(d["location"]["row"], []).extend(r["message"] for r in d["related"])
        return sorted((d["code"], d["location"]["row"], d["message"]) for d in found)

    both = check("--select", "JAX202,JAX206")
    alone = check("--select", "JAX206", "--config", "rules.large-program.size-alone = true")
    compiled = run_cli("check", "--compile", "--no-cache", "--show-skipped", "--select", "JAX202,JAX206", cwd=root,
                       timeout=300)
    return both, alone, compiled, related


def test_a_program_large_only_by_an_unrolled_loop_is_reported_once_at_the_loop(loops_project):
    both, *_ = loops_project
    assert [(c, row) for c, row, _ in both if row < 12] == [("JAX202", 8)]


def test_a_program_still_large_without_its_loop_joins_the_loop_finding_with_its_figures(loops_project):
    # the loop is all its author can remove (the rest is the layers): one finding, at the loop
    both, *_, related = loops_project
    assert [(c, row) for c, row, _ in both if row >= 12] == [("JAX202", 20)]
    assert ("JAX206: traced program of `model` has 364 equations (budget 60); line 21: 300, line 14: 64; "
            "300 of them come from the unrolled loop at line 20, the rest names nothing removable") in related[20]
    assert not any(m.startswith("JAX206: ") for m in related[8])  # within budget without its loop


def test_as_a_plain_size_budget_large_programs_are_reported_at_their_def_lines(loops_project):
    _, alone, *_ = loops_project
    assert [(c, row) for c, row, _ in alone] == [("JAX206", 7), ("JAX206", 19)]
    assert not any("reported there" in m for *_, m in alone)


def test_the_compile_tier_still_skips_a_program_the_loop_finding_explains(loops_project):
    _, _, compiled, _ = loops_project
    assert ("loops.py:6 simulate: not compiled: the trace tier found a program above the equation budget "
            "(JAX206: 300 equations, 300 of them from the unrolled loop at line 8, reported there)"
            ) in compiled.stdout, compiled.stdout


def test_the_large_program_rule_runs_after_the_rules_whose_loop_findings_it_reads():
    # the worker runs a function's trace rules in registry order: the facts JAX206 reads
    # must be in `fa.diagnostics` by then
    from jaxlint.registry import all_rules
    from jaxlint.rules.jaxpr import jax206_large_program as large

    order = [r for r in all_rules() if r.phase.value == "trace"]
    producers = [i for i, r in enumerate(order) if r.trace_fact == large.EXPLAINED_BY]
    assert producers and max(producers) < order.index(large.LargeProgram)


LAYERS = """
import jax
import jax.numpy as jnp


# jaxlint: args=({"dense": [f32[16,16]] * 12, "blocks": f32[24,16,16]}, f32[4,16])
@jax.jit
def train_step(params, x):
    def loss(params):
        h = x
        for w in params["dense"]:
            h = jax.nn.gelu(h @ w)
        h, _ = jax.lax.scan(lambda h, w: (h + jnp.tanh(h @ w), None), h, params["blocks"])
        return jnp.mean(h ** 2)

    grads = jax.grad(loss)(params)
    return jax.tree.map(lambda p, g: p - 0.01 * g, params, grads)
"""


def test_a_large_model_step_without_a_removable_cause_is_quiet_and_not_compiled(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.jaxlint]\n[tool.jaxlint.rules.large-program]\nmax-equations = 60\n")
    (tmp_path / "step.py").write_text(LAYERS.lstrip("\n"))
    proc = run_cli("check", "--compile", "--no-cache", "--show-skipped", "--select", "JAX202,JAX206", cwd=tmp_path,
                   timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "JAX206" in proc.stdout and "no removable cause named, not reported" in proc.stdout, proc.stdout


#: a jitted learner whose 10 iterations each call a jitted step that calls a solver under
#: `custom_vjp` (jaxopt's `solver.update`): the solver's equations are traced in its own
#: frames, not the loop's, yet every one is a copy the loop made
SOLVER_LOOP = """
import jax
import jax.numpy as jnp


@jax.custom_vjp
def solve(x):
    for _ in range(6):
        x = jnp.tanh(x @ x) * 0.5 + jnp.sin(x)
    return x


solve.defvjp(lambda x: (solve(x), x), lambda x, g: (g,))


def update(x):
    return solve(x) * 0.9


@jax.jit  # jaxlint: args=(f32[16, 16],)
def learner(x):
    for _ in range(10):  # JAX202
        x = jax.jit(update)(x)  # jaxlint: args=(f32[16, 16],)
        x = jax.tree.map(lambda a: a / jnp.sqrt(jnp.sum(a * a)), x)
    return x
"""


def test_a_program_large_by_the_solver_calls_of_a_reported_loop_is_that_loops_finding(tmp_path):
    # JAX202 counts the bodies its iterations call (370 equations); JAX206's own count of
    # the loop's equations reaches only those whose stack shows the loop (50): the loop
    # finding's count decides, and the size is not reported a second time
    (tmp_path / "pyproject.toml").write_text('[tool.jaxlint]\nselect = ["JAX202", "JAX206"]\n'
                                             '[tool.jaxlint.dynamic]\nimport-scripts = true\n'
                                             '[tool.jaxlint.rules.large-program]\nmax-equations = 100\n')
    (tmp_path / "learner.py").write_text(SOLVER_LOOP.lstrip())
    proc = run_cli("check", "--dynamic", "--no-cache", "--output-format", "json", "learner.py", cwd=tmp_path,
                   timeout=300)
    found = [(d["code"], d["location"]["row"]) for d in json_findings(proc)]
    loop = next(i for i, t in enumerate(SOLVER_LOOP.lstrip().splitlines(), 1) if t.endswith("# JAX202"))
    assert found == [("JAX202", loop)], proc.stdout
