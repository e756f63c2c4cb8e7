"""JAX302 donation: tests beyond the rule's VALID/INVALID examples (which
tests/test_compile_rules.py runs), on real compiled output."""
from __future__ import annotations

import pytest

pytest.importorskip("jax")

from compile_helpers import compile_source, reported  # noqa: E402
from jaxlint.rules.hlo.jax302_donation import Donation  # noqa: E402


def test_donation_is_quiet_for_a_gradient_of_the_same_shape_as_params(tmp_path):
    src = next(v.code for v in Donation.VALID if "def grads" in v.code)
    facts, _ = compile_source(src, tmp_path)
    assert [a.top for a in facts.args] == ["params", "params", "x"]
    assert reported(Donation(), facts) == []


def test_donation_facts_map_pruned_and_donated_arguments(tmp_path):
    src = """
    import functools
    import jax

    # jaxlint: args=({"w": f32[8,4], "b": f32[8,4]}, f32[8,4], f32[8,4])
    @functools.partial(jax.jit, donate_argnums=(0, 2))
    def update(state, batch, unused):
        return {k: v - 0.1 * batch for k, v in state.items()}, batch.sum()
    """
    facts, _ = compile_source(src, tmp_path)
    by_path = {a.path: a for a in facts.args}
    assert by_path["unused"].parameter is None and by_path["unused"].donated
    assert by_path["state['w']"].donated and by_path["state['w']"].parameter is not None
    assert {o.path for o in facts.outputs} == {"[0]['b']", "[0]['w']", "[1]"}
    assert reported(Donation({"min-bytes": 0}), facts) == []


def train_step_source(donate: str) -> str:
    """The training step of the captured TPU programs (tests/data/hlo/tpu_programs.py),
    with its argument directive and a jit that donates ``donate``."""
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "data" / "hlo" / "tpu_programs.py").read_text()
    body = text[text.index("def loss"):text.index("def padded")].rstrip()
    directive = ('# jaxlint: args=({"w1": f32[512,1024], "w2": f32[1024,512]}, {"m": {"w1": f32[512,1024], '
                 '"w2": f32[1024,512]}, "v": {"w1": f32[512,1024], "w2": f32[1024,512]}}, f32[64,512], f32[64,512])\n'
                 f"@functools.partial(jax.jit, donate_argnums={donate})\n")
    return "import functools\nimport jax\nimport jax.numpy as jnp\n\n" + body.replace("def train_step", directive + "def train_step")


def test_donation_names_the_same_state_on_a_tpus_program_as_on_the_cpus(tmp_path):
    """The issue's training step: on the TPU the updates come out of the gradient's matmul
    fusion (several results), and the parameters reach it through memory moves
    (copy-start/-done, slices put together again); JAX302 was silent there. Both states
    are named, on both (the CPU named `opt` alone: `p` is not named like state)."""
    from tpu_compile import compile_source_for, need_libtpu

    need_libtpu()
    found = {}
    for target in ("cpu", "v5e:1x1"):
        facts, _ = compile_source_for(train_step_source("()"), tmp_path, target)
        diags = reported(Donation(), facts)
        found[target] = [(d.data["arguments"], d.start.line, d.message.split(" but ")[0]) for d in diags]
        if target != "cpu":
            assert facts.platform == "tpu" and facts.device_kind == "TPU v5 lite"
            undonated = facts.memory["peak_memory_in_bytes"]
            donated, _ = compile_source_for(train_step_source("(0, 1)"), tmp_path, target)
            assert reported(Donation(), donated) == []
            assert donated.memory["peak_memory_in_bytes"] < undonated  # what donating saves on the chip
    src = train_step_source("()").splitlines()
    line = {text: next(i + 1 for i, t in enumerate(src) if t.strip().startswith(text))
            for text in ("def train_step", "m = jax", "v = jax", "p = jax")}
    # both states: each comes back as its own outputs (the parameters' update reads the old
    # moments too, further down: the moments' own outputs read them most directly)
    assert found["cpu"] == found["v5e:1x1"] == [
        (["opt", "p"], line["def train_step"],
         "arguments `opt` (4 arrays, 8.0 MiB) and `p` (2 arrays, 4.0 MiB) are updated and returned "
         f"(lines {line['m = jax']}, {line['v = jax']}, {line['p = jax']})")], found
