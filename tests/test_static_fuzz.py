"""The static phase on generated programs (hypothesmith: valid Python from the grammar)
and generated text: never an exception, never a rule failure, nothing imported or run,
positions inside the file, fixes that keep it parsing; and source segments that are
exactly ``ast.get_source_segment``'s at a cost that does not grow with the file.

Bounded for CI: a fixed number of examples, each with a deadline, and no shrinking
database between runs (``derandomize`` keeps a run reproducible)."""
from __future__ import annotations

import ast
import sys

import hypothesmith
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from jaxlint.fix.apply import applies, apply_once, parses
from jaxlint.registry import select_rules
from jaxlint.static.runner import lint_static
from jaxlint.static.checker import LineIndex, parse_source
from jaxlint.textutil import split_lines

RULES = [cls() for cls in select_rules(["ALL"], (), (), ("static",))]

FUZZ = settings(max_examples=120, deadline=2000, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                                       HealthCheck.data_too_large])

#: what makes the rules look closer than a random program would: jax names and decorators
JAX_PRELUDE = "import jax\nimport jax.numpy as jnp\nimport numpy as np\nfrom functools import partial\n"


def check(source: str) -> None:
    before = set(sys.modules)
    result, kept = lint_static("fuzz.py", RULES, text=source)
    assert not result.errors, result.errors
    assert "jax" not in set(sys.modules) - before  # the static phase never imports jax
    lines = split_lines(source)
    for d in kept:
        assert 1 <= d.start.line <= len(lines) + 1 and 1 <= d.end.line <= len(lines) + 1, d
        assert (d.start.line, d.start.column) <= (d.end.line, d.end.column), d
    if parses(source):
        fixed = apply_once(source, [d for d in kept if applies(d, True)], unsafe=True)
        assert parses(fixed.text)


@FUZZ
@given(source=hypothesmith.from_grammar())
def test_generated_programs_never_break_the_static_phase(source):
    check(source)
    check(JAX_PRELUDE + source)


@settings(FUZZ, max_examples=40)
@given(source=hypothesmith.from_node())
def test_generated_syntax_trees_never_break_the_static_phase(source):
    check(JAX_PRELUDE + "\n@jax.jit\ndef _f(x):\n" + "".join("    " + line + "\n" for line in split_lines(source)))


@FUZZ
@given(text=st.text(st.characters(blacklist_categories=("Cs",)), max_size=200))
def test_arbitrary_text_never_breaks_the_static_phase(text):
    check(JAX_PRELUDE + text)


_pieces = st.sampled_from(["x", "é", "𝕏", "\t", " ", "'''a\nb'''", "(\n1)", "\\\n", "# c", "f(", ")", "[1,\r2]",
                           "\x0c", "\r\n", "\r", "\n", "y = x", ".at[0].set(1)"])


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(parts=st.lists(_pieces, max_size=30), nl=st.sampled_from(["\n", "\r\n", "\r"]))
def test_segments_are_exactly_ast_get_source_segment(parts, nl):
    source = "".join(parts).replace("\n", nl) if nl != "\n" else "".join(parts)
    try:
        tree = parse_source(source, "s.py")
    except Exception:
        return
    index = LineIndex(source)
    for node in ast.walk(tree):
        if hasattr(node, "end_col_offset"):
            assert index.segment(node) == ast.get_source_segment(source, node), (source, ast.dump(node))


def test_segments_split_the_file_once_not_once_per_call(monkeypatch):
    """What made the time per finding grow with the file (``ast.get_source_segment``
    splits the whole source on every call) stays gone: the line index is built once per
    file, whatever the number of segments. Timings live in benchmarks/bench_static.py."""
    import jaxlint.static.checker as static

    calls = []
    real = static.line_starts
    monkeypatch.setattr(static, "line_starts", lambda text: calls.append(1) or real(text))
    monkeypatch.setattr(ast, "get_source_segment", lambda *a, **k: pytest.fail("splits the whole file"))
    source = "import jax\nimport numpy as np\n" + "".join(
        f"@jax.jit\ndef f{n}(x, i):\n    x.at[i].set(np.sin(x))\n    return x\n" for n in range(300))
    result, kept = lint_static("many.py", RULES, text=source)
    assert len(kept) >= 600 and not result.errors
    assert len(calls) == 1


@pytest.mark.parametrize("source", [
    "import jax\n@jax.jit\ndef f(x):\n    return np.sin(x)  # é 𝕏\n",
    "import jax\r@jax.jit\rdef f(x, i):\r    x.at[i].set(1)\r    return x\r",
])
def test_hand_written_edge_cases(source):
    check(source)
