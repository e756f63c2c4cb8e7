"""JAX317 tpu-matmul-precision: float32 products a TPU computes in one bfloat16 pass, on
the captured TPU program of a training step (libtpu-free) and on programs compiled
deviceless for a v5e (skipped without libtpu)."""
from __future__ import annotations

from pathlib import Path

import pytest

from jaxlint.compile.facts import CompileContext, CompileFacts
from jaxlint.rule import iter_rule_examples
from jaxlint.rules.hlo.jax317_tpu_matmul_precision import TpuMatmulPrecision

DATA = Path(__file__).resolve().parents[2] / "data" / "hlo"
EXAMPLES = list(iter_rule_examples(TpuMatmulPrecision))


def _reported(facts):
    ctx = CompileContext(facts, TpuMatmulPrecision())
    TpuMatmulPrecision().check(ctx)
    return ctx.diagnostics


def _captured(platform: str) -> CompileFacts:
    return CompileFacts("train_step", "tests/data/hlo/tpu_programs.py", 1,
                        (DATA / "tpu_train_step-0.10.2.hlo").read_text(), platform=platform)


def test_every_line_of_a_training_steps_float32_products_is_named_once():
    source = (DATA / "tpu_programs.py").read_text().splitlines()
    lines = {next(i + 1 for i, t in enumerate(source) if text in t)
             for text in ('h = jnp.tanh(x @ p["w1"])', 'return jnp.mean((h @ p["w2"] - y) ** 2)')}
    diags = _reported(_captured("tpu"))
    assert {d.start.line for d in diags} == lines, [(d.start.line, d.message) for d in diags]
    # the products of one line (forward, and the gradients' transposed ones) are one finding
    assert len(diags) == 2 and sum(d.data["products"] for d in diags) >= 4
    assert all("runs in one bfloat16 pass on the TPU" in d.message for d in diags)
    assert _reported(_captured("cpu")) == []  # the CPU computes float32 products in float32


def test_weights_the_compiler_rounded_to_bfloat16_before_gathering_them_are_found():
    """A v5e-8's FSDP step: the TPU converts the float32 weights to bfloat16 (a convert
    of its own, without metadata) before its all-gathers, so the products' operands are
    bf16 in the program; `x @ w1` is the code's float32 product all the same. (`h @ w2`,
    whose `h` the compiler rounds too, is not told from code that rounds `h` itself.)"""
    facts = CompileFacts("fsdp_step", "tests/data/hlo/tpu_programs.py", 1,
                         (DATA / "tpu8_fsdp_step-0.10.2.hlo").read_text(), platform="tpu")
    source = (DATA / "tpu_programs.py").read_text().splitlines()
    line = next(i + 1 for i, t in enumerate(source) if 'h = jnp.tanh(x @ p["w1"])' in t)
    diags = _reported(facts)
    assert [d.start.line for d in diags] == [line]
    assert "float32 matrix product f32[64,512] x f32[512,1024] runs in one bfloat16 pass" in diags[0].message


def test_an_explicit_precision_is_not_reported():
    text = (DATA / "tpu_train_step-0.10.2.hlo").read_text()
    facts = _captured("tpu")
    facts.hlo_text = text.replace("dim_labels=", "operand_precision={highest,highest}, dim_labels=")
    assert _reported(facts) == []
    facts = _captured("tpu")
    facts.hlo_text = text.replace("dim_labels=", "operand_precision={default,highest}, dim_labels=")
    assert len(_reported(facts)) == 2


@pytest.mark.parametrize("ident,example", EXAMPLES, ids=[e[0] for e in EXAMPLES])
def test_examples_on_one_v5e_chip_and_quiet_on_the_cpu(tmp_path, ident, example):
    pytest.importorskip("jax")
    from tpu_compile import assert_example_on_one_chip

    assert_example_on_one_chip(TpuMatmulPrecision(), example, tmp_path)
