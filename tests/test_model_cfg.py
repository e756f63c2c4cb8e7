"""The block-level control-flow view of a function body (``jaxlint.static.cfg``) and its
uses-after query: the reads a value reaches, round loops, through branches, up to a
rebinding (issue 36 item 3; the basis issue 39 asks for)."""
from __future__ import annotations

import ast
import textwrap

from jaxlint.static.cfg import ControlFlow


def reads(src: str, marker: str, name: str) -> list[int]:
    """Lines of the reads of ``name`` its value after the statement on the line ending
    with ``# <marker>`` reaches (in the one function of ``src``)."""
    text = textwrap.dedent(src).lstrip("\n")
    tree = ast.parse(text)
    fn = tree.body[-1]
    assert isinstance(fn, ast.FunctionDef)
    line = next(i for i, t in enumerate(text.splitlines(), 1) if t.rstrip().endswith(f"# {marker}"))
    stmt = next(n for n in ast.walk(fn) if isinstance(n, ast.stmt) and n.lineno == line and n is not fn)
    return sorted({n.lineno for n in ControlFlow(fn.body).reads_after(stmt, name)})


def test_a_name_rebound_on_every_pass_reaches_the_next_pass_not_the_first():
    src = """
        def draw(key, n):
            out = []
            for _ in range(n):
                key, sub = split(key)  # split
                out.append(normal(sub))
            return out, key
        """
    # the new key reaches the next pass's split and the return; `sub` only its draw
    assert reads(src, "split", "key") == [4, 6]
    assert reads(src, "split", "sub") == [5]


def test_the_old_value_after_a_call_reaches_reads_up_to_the_rebinding():
    src = """
        def train(state, xs):
            for x in xs:
                new = step(state, x)  # call
                log(state)
                state = new
            return state
        """
    assert reads(src, "call", "state") == [4]  # the log; the next pass reads the rebound state
    src_no_rebind = """
        def train(state, xs):
            for x in xs:
                out = step(state, x)  # call
            return out
        """
    assert reads(src_no_rebind, "call", "state") == [3]  # the same call, on the next pass


def test_branches_break_return_and_else():
    src = """
        def f(x, xs):
            y = g(x)  # made
            for v in xs:
                if v:
                    y = h(v)
                    break
                use(y)
            else:
                tail(y)
            if x:
                return y
            y += 1
            return y
        """
    # `use` and `tail` see the first y; after the loop, y may be either (via break or else)
    assert reads(src, "made", "y") == [7, 9, 11, 12]


def test_try_handlers_are_reachable_from_the_body_and_while_true_does_not_fall_out():
    src = """
        def f(x):
            y = x  # made
            while True:
                try:
                    y = g(y)
                except ValueError:
                    log(y)
                    break
            return y
        """
    assert reads(src, "made", "y") == [5, 7, 9]
