"""Edges of what a recording keeps of a call, traced again from the recording (issue 37):
a negative ``static_argnums`` counted from the end of the call's own arguments (defaults
shorten a call), a dict subclass registered as a pytree of its own, one ``jax.ref`` passed
as two arguments; and a ``jax.custom_vjp`` function under a jit kept whole. The real
``jaxlint record`` and ``check``, real jax."""
from __future__ import annotations

import functools
import json

import pytest

from helpers import json_findings, record_program, run_cli

jax = pytest.importorskip("jax")

PROGRAM = '''
import jax
import jax.numpy as jnp


def window(x, n, scale=2.0):
    return jnp.convolve(x, jnp.ones(n) / n) * scale


smooth = jax.jit(window, static_argnums=-1)  # the last argument of each call: `n` below


@jax.tree_util.register_pytree_node_class
class dot_dict(dict):  # no refs in it
    __getattr__ = dict.__getitem__
    tree_flatten = lambda self: ([self[k] for k in sorted(self)], sorted(self))  # noqa: E731
    tree_unflatten = classmethod(lambda cls, keys, values: cls(zip(keys, values)))


@jax.jit
def step(state, x):
    return dot_dict(w=state.w - 0.1 * x, n=state.n + 1)


@jax.jit
def twice(a, b):
    a[...] += 1
    b[...] += 2
    return a[...]


if __name__ == "__main__":
    x = jnp.arange(16.0)
    for n in (3, 3, 5):
        smooth(x, n)
    state = dot_dict(w=jnp.ones(3), n=jnp.zeros((), jnp.int32))
    for _ in range(3):
        state = step(state, jnp.ones(3))
    if hasattr(jax, "ref"):
        r = jax.ref.new_ref(jnp.zeros(3))
        try:
            twice(r, r)  # TWICE
        except ValueError:  # jax: one ref may be passed once
            pass
'''


def test_a_recording_keeps_what_jit_keyed_the_call_on_and_traces_it_again_so(tmp_path):
    sigs, _ = record_program(tmp_path, PROGRAM)
    smooth = sigs["prog:window"]
    # -1 is `n` in `smooth(x, n)`, not `scale` (the last parameter); it names no parameter
    assert (smooth["static_argnums"], smooth["static_argnames"]) == ([-1], [])
    assert [s["args"][1] for s in smooth["signatures"]] == [{"value": 3}, {"value": 5}]
    [state] = sigs["prog:step"]["signatures"]
    assert state["args"][0]["class"] == "__main__:dot_dict" and state.get("pickle")
    check = run_cli("check", "--dynamic", "--compile", "--no-cache", "--show-skipped", "--output-format", "json",
                    "prog.py", cwd=tmp_path, timeout=600)
    assert check.returncode in (0, 1), check.stderr[-3000:]
    # traced again from the recording: `n` static (a shape), `state` a dot_dict again (it
    # was a plain dict without `.w`: "out of date"); no same-signature recompile of `window`
    assert "skipped" not in check.stderr and "out of date" not in check.stderr, check.stderr
    assert not json_findings(check, "JAX208"), check.stdout
    if hasattr(jax, "ref"):  # the one ref is one again: the trace fails as the program's call did
        [failed] = json_findings(check, "JAX205")
        assert "only one reference to a mutable array" in failed["message"]
        assert failed["location"]["row"] == PROGRAM.lstrip("\n").splitlines().index("def twice(a, b):") + 1


def test_a_dict_subclass_against_a_dict_is_a_change_of_pytree_type():
    from jaxlint.dynamic.signatures import diff_signatures, distinct

    plain = {"args": [{"dict": {"w": {"array": [3], "dtype": "float32", "weak": False}}}], "kwargs": {}}
    own = {"args": [dict(plain["args"][0], **{"class": "__main__:dot_dict"})], "kwargs": {}}
    [change] = diff_signatures(plain, own, ["state"])
    assert change == "`state` changes pytree type (a dict -> a `dot_dict`)" and change.kind == "structure"
    assert len(distinct([plain, own])) == 2


def test_a_custom_vjp_function_under_a_jit_is_traced_with_its_rule():
    import jax.numpy as jnp

    from jaxlint.dynamic.adapter import under_jit

    @jax.custom_vjp
    def clipped(x):
        return jnp.sin(x)

    clipped.defvjp(lambda x: (jnp.sin(x), x), lambda x, g: (jnp.clip(g, -1, 1),))

    def logged(fn):
        @functools.wraps(fn)
        def inner(*a):
            return fn(*a)
        return inner

    assert under_jit(jax.jit(clipped)) is clipped
    assert under_jit(logged(jax.jit(clipped))) is clipped  # a decorator over the jit too
    # its gradient is the rule's (a clip), not the primal's (a cos)
    traced = str(jax.make_jaxpr(jax.grad(under_jit(jax.jit(clipped))))(1.0))
    assert "clip" in traced and "cos" not in traced, traced
