"""JAX316 tile-padding: arrays a TPU stores padded to its tiles, on programs compiled
deviceless for a v5e (libtpu; skipped where it is absent) and on a captured TPU program
(tests/data/hlo/tpu_padded-0.10.2.hlo, read without libtpu)."""
from __future__ import annotations

from pathlib import Path

import pytest

from jaxlint.compile.facts import ArgFact, CompileFacts, OutFact
from jaxlint.rule import iter_rule_examples
from jaxlint.rules.hlo.jax316_tile_padding import TilePadding

DATA = Path(__file__).resolve().parents[2] / "data" / "hlo"
EXAMPLES = list(iter_rule_examples(TilePadding))


def _reported(rule, facts):
    from jaxlint.compile.facts import CompileContext

    ctx = CompileContext(facts, rule)
    rule.check(ctx)
    return ctx.diagnostics


def captured_padded() -> CompileFacts:
    """The captured program of ``padded(x, w, b, s)``: ``x @ w, b * 2, s + 1`` with x
    f32[1000,200], w f32[200,100], b bf16[3,200], s f32[]; the facts the compile tier
    reads of its arguments and outputs, written out."""
    args = [ArgFact("x", "x", (1000, 200), "float32", False, 0), ArgFact("w", "w", (200, 100), "float32", False, 1),
            ArgFact("b", "b", (3, 200), "bfloat16", False, 2), ArgFact("s", "s", (), "float32", False, 3)]
    outs = [OutFact("[0]", (1000, 100), "float32", (0,)), OutFact("[1]", (3, 200), "bfloat16", (1,)),
            OutFact("[2]", (), "float32", (2,))]
    return CompileFacts("padded", "tests/data/hlo/tpu_programs.py", 1, (DATA / "tpu_padded-0.10.2.hlo").read_text(),
                        platform="tpu", device_kind="TPU v5 lite", args=args, outputs=outs)


def test_a_width_of_100_and_a_bf16_batch_of_3_are_named_with_their_padding_and_lines():
    facts = captured_padded()
    assert _reported(TilePadding(), facts) == []  # 23 KiB of padding: below the default 16 MiB
    (d,) = _reported(TilePadding({"min-bytes": 0}), facts)
    source = (DATA / "tpu_programs.py").read_text().splitlines()
    line = next(i + 1 for i, t in enumerate(source) if "return x @ w, b * 2, s + 1" in t)
    assert d.start.line == 1  # the largest, `w`, is an argument: at the function
    assert d.message.startswith("3 arrays take 23.5 KiB more on the TPU than their data")
    assert "argument `w` f32[200,100] (dimension 1 of 100 padded to 128 by 8x128 tiles: 100.0 KiB for 78.1 KiB)" \
        in d.message
    # bf16 tiles: 3 rows padded to 4 and 200 columns to 256
    assert "argument `b` bf16[3,200] (dimension 0 of 3 padded to 4, dimension 1 of 200 padded to 256 by 4x128" \
        in d.message
    assert f"output `[1]` bf16[3,200] at line {line} (" in d.message
    # x, f32[1000,200], is laid out with its 1000 rows minor: 1000 -> 1024 is 2 %, under min-ratio
    assert "`x`" not in d.message and [a["name"] for a in d.data["arrays"]] == ["w", "b", "[1]"]
    assert d.data["padding_bytes"] == sum(a["tiled_bytes"] - a["bytes"] for a in d.data["arrays"]) == 24_096


def test_a_program_without_tiles_is_quiet():
    facts = captured_padded()
    facts.hlo_text = facts.hlo_text.replace(":T(8,128)", "").replace(":T(4,128)(2,1)", "")
    assert _reported(TilePadding({"min-bytes": 0}), facts) == []


@pytest.mark.parametrize("ident,example", EXAMPLES, ids=[e[0] for e in EXAMPLES])
def test_examples_on_one_v5e_chip_and_quiet_on_the_cpu(tmp_path, ident, example):
    pytest.importorskip("jax")
    from tpu_compile import assert_example_on_one_chip

    assert_example_on_one_chip(TilePadding(dict(example.options)), example, tmp_path, TilePadding({"min-bytes": 0}))
