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


# Pure functions whose result is thrown away (scope50). Each flagged program, run under
# real jax, returns its input unchanged ("lost"); each quiet twin does what it says.
_COPY_FLAGGED = {
    "optax_apply_updates": ("""
        import jax.numpy as jnp
        import optax

        def step(params, grads):
            updates = jax_neg(grads)
            optax.apply_updates(params, updates)
            return params

        def jax_neg(g):
            return {"w": -g["w"]}
        """, 6, "step({'w': jnp.ones(2)}, {'w': jnp.ones(2)})['w'].tolist() == [1.0, 1.0] and 'lost'"),
    "optax_transformation_update": ("""
        import jax.numpy as jnp
        import optax

        tx = optax.adam(0.1)

        def step(params, grads, state):
            tx.update(grads, state, params)
            return state

        def run():
            params = {"w": jnp.ones(2)}
            state = step(params, params, tx.init(params))
            return int(state[0].count) == 0 and float(state[0].mu["w"][0]) == 0.0 and "lost"
        """, 7, "run()"),
    "tree_map_of_a_pure_lambda": ("""
        import jax
        import jax.numpy as jnp

        def decay(params):
            jax.tree.map(lambda p: jnp.clip(p * 0.99, -1, 1), params)
            return params
        """, 5, "decay({'w': jnp.ones(2)})['w'].tolist() == [1.0, 1.0] and 'lost'"),
    "jnp_append_like_a_list": ("""
        import jax.numpy as jnp

        def grow(xs):
            out = jnp.zeros(0)
            for x in xs:
                jnp.append(out, x)
            return out
        """, 6, "grow([1.0, 2.0]).shape == (0,) and 'lost'"),
    "sort_in_place_habit": ("""
        import jax.numpy as jnp

        def median(n):
            x = jnp.arange(n, 0, -1)
            x.sort()
            return x
        """, 5, "median(3).tolist() == [3, 2, 1] and 'lost'"),
    "dead_update_beside_a_return": ("""
        import jax
        import jax.numpy as jnp

        @jax.jit
        def zero_rows(x, rows):
            for i in range(rows.shape[0]):
                y = x.at[rows[i]].set(0.0)
            return x
        """, 7, "bool((zero_rows(jnp.ones(3), jnp.array([0])) == 1).all()) and 'lost'"),
}
_COPY_QUIET = {
    "tree_map_for_its_side_effect": ("""
        import jax
        import jax.numpy as jnp

        def wait(params):
            jax.tree.map(lambda p: p.block_until_ready(), params)
            jax.tree_util.tree_map(print, params)
            return params
        """, "wait({'w': jnp.ones(2)}) and 'kept'"),
    "nnx_optimizer_update_works_in_place": ("""
        import jax.numpy as jnp
        from flax import nnx

        def step(optimizer, model, grads):
            optimizer.update(model, grads)
            return model
        """, "'kept'"),
    "list_sort_and_numpy_sort": ("""
        import numpy as np

        def order(xs):
            xs = list(xs)
            xs.sort()
            a = np.asarray(xs)
            a.sort()
            return a
        """, "order([3, 1, 2]).tolist() == [1, 2, 3] and 'kept'"),
    "tree_map_to_compare_structures": ("""
        import jax
        import jax.numpy as jnp

        def same_structure(a, b):
            jax.tree.map(lambda *_: None, a, b)  # raises when the structures differ
            return a
        """, "same_structure({'w': jnp.ones(2)}, {'w': jnp.zeros(2)}) and 'kept'"),
    "underscore_name_unused_on_purpose": ("""
        import jax.numpy as jnp

        def clear(x, i):
            _unused = x.at[i].set(0.0)
            return jnp.where(x > 0, 0.0, x)
        """, "clear(jnp.ones(2), 0).tolist() == [0.0, 0.0] and 'kept'"),
    "pallas_ref_written_in_place_by_at_set": ("""
        import jax
        import jax.numpy as jnp
        from jax.experimental import pallas as pl

        def kernel(x_ref, out_ref):
            def body(tmp_ref):
                tmp_ref.at[:].set(x_ref[...] * 2)
                out_ref[...] = tmp_ref[...]

            pl.run_scoped(body, pl.ANY(x_ref.shape, x_ref.dtype))
            out_ref = out_ref.at[0:2].set(x_ref[0:2] * 3)

        def run(x):
            return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True)(x)
        """, "run(jnp.arange(4.0)).tolist() == [0.0, 3.0, 4.0, 6.0] and 'kept'"),
    "new_ref_written_in_place_by_at_set": ("""
        import jax
        import jax.numpy as jnp

        @jax.jit
        def counted(x):
            acc = jax.new_ref(x)
            acc.at[0].set(7.0)
            view = acc.at[1:]
            view.at[0].set(3.0)
            return acc[...]
        """, "counted(jnp.zeros(3)).tolist() == [7.0, 3.0, 0.0] and 'kept'"),
    "a_test_calling_update_for_what_it_raises": ("""
        import jax.numpy as jnp
        import optax

        tx = optax.sgd(0.1)

        def test_update_accepts_extra_args():
            params = {"w": jnp.ones(2)}
            tx.update(params, tx.init(params), params)
        """, "test_update_accepts_extra_args() or 'kept'"),
    "update_returned": ("""
        import jax.numpy as jnp

        def zero_first(x):
            y = x.at[0].set(0.0)
            return y
        """, "zero_first(jnp.ones(2)).tolist() == [0.0, 1.0] and 'kept'"),
}


def test_jax110_discarded_pure_results_are_flagged():
    for name, (src, line, _) in _COPY_FLAGGED.items():
        assert lines("JAX110", src) == [line], name


def test_jax110_side_effects_in_place_updates_and_used_results_are_clean():
    for name, (src, _) in _COPY_QUIET.items():
        assert lines("JAX110", src) == [], name


def test_jax110_discarded_results_really_are_lost_under_real_jax():
    from static_rule_helpers import outcomes_under_jax

    cases = {n: (textwrap.dedent(s), c) for n, (s, _, c) in _COPY_FLAGGED.items()}
    cases.update({n: (textwrap.dedent(s), c) for n, (s, c) in _COPY_QUIET.items()})
    got = outcomes_under_jax(cases)
    assert {n: got[n] for n in _COPY_FLAGGED} == {n: "lost" for n in _COPY_FLAGGED}, got
    assert {n: got[n] for n in _COPY_QUIET} == {n: "kept" for n in _COPY_QUIET}, got


_PALLAS_HELPERS = """
    import abc
    import functools
    import jax
    import jax.numpy as jnp
    from jax.experimental import pallas as pl

    class Store(abc.ABC):
        @abc.abstractmethod
        def write(self, dst: jax.Array, i: int, val: jax.Array) -> None: ...

        def run(self, x):
            def kernel(x_ref, out_ref):
                for i in range(2):
                    self.write(out_ref.at[2 * i:2 * i + 2], i, x_ref[2 * i:2 * i + 2] * 2)
            return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True)(x)

    class Rows(Store):
        def write(self, dst: jax.Array, i: int, val: jax.Array) -> None:
            dst[0:2] = val  # a Pallas ref view: a store

    def scratch(n: int) -> jax.Array:
        buf = jnp.zeros(n)
        buf[0] = 1.0  # INVALID: made as an array, still reported
        return buf
    """


def test_jax110_a_pallas_modules_annotated_params_may_be_refs():
    # the kernel reaches `Rows.write` through `self.write` on the abstract class (an override
    # the model does not follow): in a module that uses Pallas, an annotation `jax.Array` is no
    # proof that a parameter holds an array; a `jnp.zeros` made in that module still is
    from static_rule_helpers import marked, outcomes_under_jax

    assert lines("JAX110", _PALLAS_HELPERS) == marked(_PALLAS_HELPERS)
    got = outcomes_under_jax({
        "ref_store": (textwrap.dedent(_PALLAS_HELPERS), "str(Rows().run(jnp.arange(4.0)).tolist())"),
        "array": (textwrap.dedent(_PALLAS_HELPERS), "scratch(3)"),
    })
    assert got == {"ref_store": "[0.0, 2.0, 4.0, 6.0]", "array": "TypeError"}, got


def test_a_jaxtyping_annotation_of_a_numpy_array_is_no_jax_array_really():
    """blind58's eikonax stencils (7 false errors judged blind): `Real[npt.NDArray, "M"]`
    wraps a NumPy array, which item assignment changes in place; real NumPy runs the fixture
    and gives cos'(1) = -sin(1). jaxlint is quiet on it and still reports the jax-array twin
    (tests/test_rule_examples.py)."""
    import math

    import pytest

    pytest.importorskip("jaxtyping")

    from rule_fixtures import load_module

    assert abs(float(load_module("JAX110", "valid_jaxtyping_numpy").main()) + math.sin(1.0)) < 1e-4
