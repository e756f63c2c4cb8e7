"""JAX114 and where a draw's numbers go (``static/reach.py``; issue 36, blind42's false
findings as general capabilities): two uses of one key only share numbers when both
uses' results are read.

* a key that only seeds a template (``eqx.tree_deserialise_leaves(path, like)``,
  ``flax.serialization.from_bytes(target, data)``,
  ``eqx.filter_eval_shape``, a draw asked only its ``.shape``): its numbers are replaced
  or never computed;
* one key split twice gives the same keys index by index: when no output index is read
  after both splits (the first split's outputs discarded where the second's are read),
  no key is used twice;
* one key drawing the two alternatives of a select through names rebound on the way
  (``Reach.alternatives``): on the runs through the second draw each element of the
  select keeps the numbers of one draw.

The fixtures ``tests/fixtures/rules/JAX114/{valid,invalid}_{template,split_outputs,select_rebound}.py``
pin every finding (``test_rule_examples``); here the claims behind them run under real
jax (one fresh process, ``outcomes_under_jax``).
"""
from __future__ import annotations

import textwrap
from pathlib import Path

from static_rule_helpers import outcomes_under_jax

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "rules" / "JAX114"


def _code(name: str) -> str:
    """A fixture's code as the rule reads it (header lines and markers off)."""
    text = (FIXTURES / f"{name}.py").read_text()
    body = [line.split("  # expect:")[0] for line in text.splitlines() if not line.startswith("#: ")]
    return "\n".join(body) + "\n"


_PROGRAM = _code("valid_template") + _code("valid_select_rebound") + textwrap.dedent("""
    import os, tempfile
    import jax.numpy as jnp

    def restored_ignores_the_template_key():
        path = os.path.join(tempfile.mkdtemp(), "m.eqx")
        eqx.tree_serialise_leaves(path, eqx.nn.Linear(2, 2, key=jax.random.PRNGKey(7)))
        # two templates from two different keys: the restored weights are the saved ones
        a = eqx.tree_deserialise_leaves(path, eqx.nn.Linear(2, 2, key=jax.random.PRNGKey(1)))
        b = eqx.tree_deserialise_leaves(path, eqx.nn.Linear(2, 2, key=jax.random.PRNGKey(2)))
        same = bool(jnp.array_equal(a.weight, b.weight))
        _, saved = restore(path, 3)
        # flax: the target's leaves are replaced by the saved state's
        data = serialization.to_bytes({"w": a.weight})
        params, _ = load(jax.random.PRNGKey(5), data, lambda w: {"w": w[:2, :2]})
        return str((same, bool(jnp.array_equal(saved.weight, a.weight)), bool(jnp.array_equal(params["w"], a.weight))))

    def eval_shape_draws_nothing():
        out = eqx.filter_eval_shape(eqx.nn.MLP(4, 4, 8, 2, key=jax.random.PRNGKey(0)), jnp.ones(4))
        return type(out).__name__

    def split_keys(first, second):
        key = jax.random.PRNGKey(0)
        a = jax.random.split(key)[first]
        b = jax.random.split(key)[second]
        return bool(jnp.array_equal(jax.random.key_data(a), jax.random.key_data(b)))

    def one_draw_per_element():
        # the select's elements are the second draw's where `small`, the first's elsewhere:
        # no element holds both (checked against each draw computed alone)
        key, x = jax.random.PRNGKey(3), jnp.linspace(0.1, 2.0, 64)
        small = x < 1.0
        out = round_stochastic(x, key, True, small)
        noise = jax.random.bits(key, x.shape, jnp.uint16).astype(jnp.float32) / 65536.0 - 0.5
        second = jnp.round(x * 4 + noise) / 4
        first = round_stochastic(x, key, False, small)
        return str((bool(jnp.array_equal(out[small], second[small])), bool(jnp.array_equal(out[~small], first[~small]))))

    def splits():
        # valid_split_outputs.carried reads output 1 of the first split and output 0 of
        # the second; invalid_split_outputs.both_first reads output 0 of both
        return str((split_keys(1, 0), split_keys(0, 0)))
""")


def test_real_jax_templates_and_index_aligned_splits():
    out = outcomes_under_jax({
        "template": (_PROGRAM, "restored_ignores_the_template_key()"),
        "eval_shape": (_PROGRAM, "eval_shape_draws_nothing()"),
        "splits": (_PROGRAM, "splits()"),
        "select": (_PROGRAM, "one_draw_per_element()"),
    })
    assert out == {
        # the template's key changes nothing that is read: the saved weights come back
        "template": "(True, True, True)",
        # an abstract evaluation gives shapes, no numbers
        "eval_shape": "ShapeDtypeStruct",
        # different indices of two splits of one key differ; the same index is the same key
        "splits": "(False, True)",
        "select": "(True, True)",
    }
