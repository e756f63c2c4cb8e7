"""What a traced value reaches, two gaps of the static model found by the seventh recall
round (issue 36; tuning), each with VALID and INVALID code, what jaxlint says of it and
what real jax does with it (one fresh jax process, ``outcomes_under_jax``):

* an element taken at a traced index (``sizes[i]`` in a ``fori_loop`` body, ``sizes``
  closed over) is a tracer: an array gives one, a list fails on the index (jax #2323,
  jax #15509; ``flow.Flow.culprit``, JAX111's ``_size_source``);
* a traced value reaching a jitted function's static parameter: passed in traced code
  (pcax #3), bound there by ``functools.partial``, or bound by a ``jax.tree_util.Partial``
  that is passed to a jitted function, whose bound arguments are pytree leaves and so
  traced (jax #5609): the tracer is unhashable, the call raises ValueError (JAX108);

and one of JAX111's scope: ``jnp.pad``'s pad widths are sizes (jax #3620).
"""
from __future__ import annotations

import functools
import textwrap

from helpers import lines, lint_source
from static_rule_helpers import marked, outcomes_under_jax


# ------------------------------------------------------------------ an element at a traced index
INDEX = """
    import jax
    import jax.numpy as jnp
    from jax import lax

    SIZES = (3, 2, 1)

    def unpack(batch_sizes, packed):
        def body(i, val):
            offset, acc = val
            size = batch_sizes[i]
            batch = lax.dynamic_slice_in_dim(packed, offset, size)  # INVALID: a tracer as the size
            return offset + size, acc + jnp.sum(batch)
        return lax.fori_loop(0, batch_sizes.shape[0], body, (0, 0.0))[1]

    def unpack_static(packed):
        total, offset = 0.0, 0
        for i in range(len(SIZES)):  # a Python index: the element is a Python int
            total = total + jnp.sum(lax.dynamic_slice_in_dim(packed, offset, SIZES[i]))
            offset += SIZES[i]
        return total

    def sizes_of(table, x):
        def body(i, acc):
            return acc + jnp.zeros(table[i]).sum()  # INVALID
        return lax.fori_loop(0, 2, body, x)
"""


def test_an_element_at_a_traced_index_is_traced():
    assert lines("JAX111", INDEX) == marked(INDEX) != []


# ------------------------------------------------------------------ a tracer reaching a static parameter
STATIC = """
    import functools
    import jax
    import jax.numpy as jnp

    @functools.partial(jax.jit, static_argnums=(0,))
    def tile_by(p, x):
        return jnp.tile(x, (p,))

    @jax.jit
    def apply_twice(x, fn):
        return fn(fn(x))

    def fit(x, n):
        return tile_by(n, x)  # INVALID: `n` is traced: jit(fit) below

    fit_jit = jax.jit(fit)

    @functools.partial(jax.jit, static_argnames=("n",))
    def fit_static(x, n):
        return tile_by(n, x)  # static here too: a Python int

    @jax.jit
    def bound_traced(x, k):
        h = functools.partial(tile_by, k)  # INVALID: bound in traced code to a tracer
        return h(x)

    def through_partial(x):
        return apply_twice(x, jax.tree_util.Partial(tile_by, 2))  # INVALID: the Partial's leaf

    def closed_over(x):
        return apply_twice(x, jax.tree_util.Partial(functools.partial(tile_by, 2)))

    def eager(x):
        return jax.tree_util.Partial(tile_by, 2)(x)  # no jit around the Partial: 2 stays an int
"""


def test_a_tracer_reaching_a_static_parameter_is_an_error():
    from jaxlint.diagnostic import Severity

    found = lint_source(STATIC, select=["JAX108"])
    assert [d.start.line for d in found] == marked(STATIC) != []
    assert {d.severity for d in found} == {Severity.ERROR}


# ------------------------------------------------------------------ jnp.pad's widths
PAD = """
    import functools
    import jax
    import jax.numpy as jnp

    @jax.jit
    def pad_last_dim(array, pad_size):
        npad = jnp.zeros((array.ndim, 2), dtype=jnp.int32)
        npad = npad.at[array.ndim - 1, 1].set(pad_size)
        return jnp.pad(array, npad)  # INVALID

    @jax.jit
    def pad_by(array, width):
        return jnp.pad(array, ((0, 0), (0, width)))  # INVALID

    @functools.partial(jax.jit, static_argnames=("width",))
    def pad_static(array, width, fill):
        return jnp.pad(array, ((0, 0), (0, width)), constant_values=fill)
"""


def test_pad_widths_are_sizes():
    assert lines("JAX111", PAD) == marked(PAD) != []


@functools.lru_cache(maxsize=1)
def _outcomes() -> dict[str, str]:
    index, static = textwrap.dedent(INDEX), textwrap.dedent(STATIC)
    return outcomes_under_jax({
        "index:traced": (index, "unpack(jnp.array([3, 2, 1]), jnp.ones((6, 4)))"),
        "index:static": (index, "str(float(jax.jit(unpack_static)(jnp.ones((6, 4)))))"),
        "index:table": (index, "sizes_of(jnp.array([1, 2]), 0.0)"),
        "static:traced": (static, "fit_jit(jnp.ones(2), 2)"),
        "static:static": (static, "str(fit_static(jnp.ones(2), n=2).shape)"),
        "static:bound_traced": (static, "bound_traced(jnp.ones(2), 2)"),
        "static:through_partial": (static, "through_partial(jnp.ones(2))"),
        "static:closed_over": (static, "str(closed_over(jnp.ones(2)).shape)"),
        "static:eager": (static, "str(eager(jnp.ones(2)).shape)"),
        "pad:array": (textwrap.dedent(PAD), "pad_last_dim(jnp.ones((2, 3)), 1)"),
        "pad:tuple": (textwrap.dedent(PAD), "pad_by(jnp.ones((2, 3)), 1)"),
        "pad:static": (textwrap.dedent(PAD), "str(pad_static(jnp.ones((2, 3)), width=1, fill=2.0).shape)"),
    })


def test_real_jax_traces_an_element_at_a_traced_index():
    out = _outcomes()
    assert out["index:traced"] == "TracerIntegerConversionError"  # the size of dynamic_slice_in_dim
    assert out["index:table"] == "TypeError"  # jnp.zeros of a tracer: shapes must be concrete
    assert out["index:static"] == "24.0"


def test_real_jax_raises_on_a_tracer_given_to_a_static_parameter():
    out = _outcomes()
    assert out["static:traced"] == "ValueError"
    assert out["static:bound_traced"] == "ValueError"
    assert out["static:through_partial"] == "ValueError"
    assert out["static:static"] == "(4,)"
    assert out["static:closed_over"] == "(8,)"
    assert out["static:eager"] == "(4,)"


def test_real_jax_needs_concrete_pad_widths():
    out = _outcomes()
    assert out["pad:array"] == "ConcretizationTypeError"
    assert out["pad:tuple"] == "ConcretizationTypeError"
    assert out["pad:static"] == "(2, 4)"
