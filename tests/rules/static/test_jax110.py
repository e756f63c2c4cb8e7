"""JAX110 discarded-update: tests beyond the rule's VALID/INVALID examples (which
tests/test_rule_examples.py runs)."""
from __future__ import annotations

import textwrap

from helpers import fixed, lines, lint_source
from jaxlint.diagnostic import Applicability, Severity


def test_jax110_fix_is_unsafe_and_only_for_plain_names():
    diags = lint_source("""
        import jax

        @jax.jit
        def f(x, state):
            x.at[0].set(1.0)
            state.buf.at[0].set(1.0)
            return x
        """, select=["JAX110"])
    assert [d.start.line for d in diags] == [5, 6]
    assert diags[0].fix is not None and diags[0].fix.applicability is Applicability.UNSAFE
    assert diags[1].fix is None
    assert all(d.severity is Severity.ERROR for d in diags)


def test_jax110_unsafe_fix_is_not_applied_without_unsafe_fixes():
    src = """
        import jax.numpy as jnp

        def f(n):
            x = jnp.zeros(n)
            x.at[0].set(1.0)
            return x
        """
    assert fixed("JAX110", src, unsafe=False) == textwrap.dedent(src).lstrip("\n")
    assert "    x = x.at[0].set(1.0)\n" in fixed("JAX110", src, unsafe=True)


def test_jax110_multiline_update_keeps_its_text_when_fixed():
    out = fixed("JAX110", """
        import jax.numpy as jnp

        def f(x: jnp.ndarray, i, v):
            x.at[i].set(
                v * 2,
            )
            return x
        """)
    assert "    x = x.at[i].set(\n        v * 2,\n    )\n" in out


def test_jax110_item_assignment_on_dicts_lists_and_numpy_arrays_is_quiet():
    assert lines("JAX110", """
        import jax
        import numpy as np

        @jax.jit
        def f(params, xs, i):
            params["w"] = params["w"] * 2
            out = list(xs)
            out[i] = xs[i] * 2
            host = np.asarray([1.0, 2.0])
            host[0] = 3.0
            return params, out
        """) == []


def test_jax110_item_assignment_on_an_unannotated_traced_array_param():
    diags = lint_source("""
        import jax

        @jax.jit
        def normalize(x):
            x[0] = 0.0
            return x / x.sum()

        @jax.jit
        def maybe_tree(x):
            x[0] = 0.0
            return x
        """, select=["JAX110"])
    # only the first: `maybe_tree` never uses `x` as an array, it may be a list pytree
    assert [d.start.line for d in diags] == [5]
    assert "raises TypeError" in diags[0].message


def test_jax110_jax_array_item_assignment_outside_jit_also_fails():
    assert lines("JAX110", """
        import jax.numpy as jnp

        x = jnp.arange(4)
        x[0] = 10
        """) == [4]


def test_jax110_cli_fix_rewrites_the_file_only_with_unsafe_fixes(tmp_path, run_cli):
    path = tmp_path / "step.py"
    original = "import jax\n\n@jax.jit\ndef f(x):\n    x.at[0].set(0.0)\n    return x\n"
    path.write_text(original)
    safe_only = run_cli("check", "--isolated", "--no-cache", "--select", "JAX110", "--fix", str(path))
    assert safe_only.returncode == 1 and path.read_text() == original, safe_only.stdout + safe_only.stderr
    unsafe = run_cli("check", "--isolated", "--no-cache", "--select", "JAX110", "--fix", "--unsafe-fixes", str(path))
    assert unsafe.returncode == 0, unsafe.stdout + unsafe.stderr
    assert path.read_text() == original.replace("    x.at[0]", "    x = x.at[0]")


def test_jax110_updates_in_except_and_match_blocks_are_found_once():
    assert lines("JAX110", """
        import jax.numpy as jnp

        def f(x: jnp.ndarray, mode):
            try:
                pass
            except ValueError:
                x.at[0].set(1.0)
            match mode:
                case "a":
                    x.at[1].set(2.0)
            return x
        """) == [7, 10]
