"""JAX102 python-loop-in-jit: the unrolling forms beyond a plain ``for`` over a static
range (scope50): comprehensions and generators, ``while`` with a static counter, nested
loops whose counts multiply, ``zip`` and ``reversed``. Each flagged program, traced by real
jax, has at least as many equations as the count it names (the body copied once per
iteration); each quiet twin, which only builds Python ints, traces to a handful."""
from __future__ import annotations

import textwrap

import pytest

from helpers import lines, lint_source
from static_rule_helpers import outcomes_under_jax

#: name -> (program, the function, the count the finding names)
_FLAGGED = {
    "list_comprehension": ("""
        import jax
        import jax.numpy as jnp

        N = 64

        @jax.jit
        def f(x):
            return jnp.stack([x * i for i in range(N)])
        """, "f", 64),
    "generator_in_sum_two_generators": ("""
        import jax

        @jax.jit
        def f(x):
            return sum(x * i * j for i in range(8) for j in range(4))
        """, "f", 32),
    "while_with_a_static_counter": ("""
        import jax

        STEPS = 50

        @jax.jit
        def f(x):
            i = 0
            while i < STEPS:
                x = x * 0.5 + 1.0
                i += 1
            return x
        """, "f", 50),
    "while_counting_down": ("""
        import jax

        @jax.jit
        def f(x):
            k = 40
            while k > 0:
                x = x + k
                k -= 2
            return x
        """, "f", 20),
    "nested_loops_multiply": ("""
        import jax

        @jax.jit
        def f(x):
            for i in range(6):
                for j in range(6):
                    x = x + i * j
            return x
        """, "f", 36),
    "zip_of_ranges": ("""
        import jax

        @jax.jit
        def f(x):
            for a, b in zip(range(100), range(1, 200)):
                x = x + a * b
            return x
        """, "f", 100),
    "reversed_range": ("""
        import jax

        @jax.jit
        def f(x):
            for i in reversed(range(30)):
                x = x * 0.9 + i
            return x
        """, "f", 30),
}
_QUIET = {
    "static_index_lists": ("""
        import jax
        import jax.numpy as jnp

        @jax.jit
        def f(x):
            perm = [i * 2 % 5 for i in range(100)]
            pairs = []
            for i in range(8):
                for j in range(8):
                    pairs.append((i, j))
            k = 0
            while k < 100:
                k += 1
            return x[jnp.array(perm[:3])] + len(pairs) + k
        """, "f"),
    "short_nested_and_broken_while": ("""
        import jax

        @jax.jit
        def f(x):
            for i in range(3):
                for j in range(4):
                    x = x + i * j
            i = 0
            while i < 1000:
                x = x + 1
                if i > 0:
                    break
                i += 1
            return x
        """, "f"),
}


@pytest.mark.parametrize("name", sorted(_FLAGGED))
def test_jax102_unrolling_forms_are_flagged_with_their_count(name):
    src, _, count = _FLAGGED[name]
    diags = lint_source(src, select=["JAX102"])
    assert len(diags) == 1, [d.message for d in diags]
    assert f"{count} iterations" in diags[0].message, diags[0].message


@pytest.mark.parametrize("name", sorted(_QUIET))
def test_jax102_static_python_work_and_short_loops_are_quiet(name):
    assert lines("JAX102", _QUIET[name][0]) == []


def test_jax102_unrolling_claims_hold_under_real_jax():
    count = "str(len(jax.make_jaxpr({})(jax.numpy.ones(3)).eqns[0].params['jaxpr'].eqns))"
    cases = {n: (textwrap.dedent(s), count.format(f)) for n, (s, f, _) in _FLAGGED.items()}
    cases.update({n: (textwrap.dedent(s), count.format(f)) for n, (s, f) in _QUIET.items()})
    got = outcomes_under_jax(cases)
    for name, (_, _, n) in _FLAGGED.items():
        assert got[name].isdigit() and int(got[name]) >= n, (name, got[name])
    for name in _QUIET:
        assert got[name].isdigit() and int(got[name]) < 16, (name, got[name])


#: Loops under a transform that builds no program (``vmap``, ``grad``) applied in eager
#: code: they run once, op by op; name -> (program, whether JAX102 reports the loop).
_EAGER_PATHS = {
    "vmap_alone": ("""
        import jax

        def train(x):
            for _ in range(1000):
                x = x * 0.5 + 1.0
            return x

        def run(xs):
            return jax.vmap(train)(xs)
        """, False),
    "grad_of_a_lambda_calling_it": ("""
        import jax
        import jax.numpy as jnp

        def unrolled(x):
            for _ in range(20):
                x = jnp.tanh(x)
            return x

        def check(x):
            return jax.grad(lambda w: jnp.mean(unrolled(w)))(x)
        """, False),
    "vmap_inside_jit": ("""
        import jax

        def train(x):
            for _ in range(1000):
                x = x * 0.5 + 1.0
            return x

        @jax.jit
        def run(xs):
            return jax.vmap(train)(xs)
        """, True),
    "jit_of_a_vmap": ("""
        import jax

        def train(x):
            for _ in range(1000):
                x = x * 0.5 + 1.0
            return x

        run = jax.jit(jax.vmap(train))
        """, True),
    "grad_under_scan": ("""
        import jax
        import jax.numpy as jnp

        def unrolled(x):
            for _ in range(20):
                x = jnp.tanh(x)
            return x

        def epochs(w, xs):
            def step(w, x):
                return w - 0.1 * jax.grad(lambda v: jnp.mean(unrolled(v * x)))(w), None
            return jax.lax.scan(step, w, xs)
        """, True),
}


@pytest.mark.parametrize("name", sorted(_EAGER_PATHS))
def test_jax102_reports_a_loop_only_when_a_compiling_transform_is_on_its_path(name):
    src, reported = _EAGER_PATHS[name]
    assert bool(lines("JAX102", src)) is reported


def test_jax102_eager_vmap_and_grad_compile_nothing_per_loop_length():
    """Under ``vmap`` or ``grad`` alone, a 40-step Python loop run after a 10-step one
    compiles no new program (each operation was compiled once, on its own, and is reused):
    nothing grows with the loop. Under ``jit`` each length compiles a program of its own,
    with a copy of the body per step."""
    prog = textwrap.dedent("""
        import jax, jax.numpy as jnp
        from jax import monitoring
        N = [0]
        monitoring.register_event_duration_secs_listener(
            lambda e, s, **k: N.__setitem__(0, N[0] + (e == "/jax/core/compile/backend_compile_duration")))

        def make(n):
            def f(x):
                for _ in range(n):
                    x = x * 0.5 + 1.0
                return x
            return f

        def compiles(run):
            xs = jnp.ones((4, 3))
            run(make(10))(xs)
            before = N[0]
            jax.block_until_ready(run(make(40))(xs))
            return str(N[0] - before)

        grad = lambda f: jax.grad(lambda x: f(x).sum())
        jit_vmap = lambda f: jax.jit(jax.vmap(f))
        eqns = str(len(jax.make_jaxpr(jax.vmap(make(40)))(jnp.ones((4, 3))).eqns))
        """)
    got = outcomes_under_jax({"vmap": (prog, "compiles(jax.vmap)"), "grad": (prog, "compiles(grad)"),
                              "jit": (prog, "compiles(jit_vmap)"), "eqns": (prog, "eqns")})
    assert got["vmap"] == "0" and got["grad"] == "0", got
    assert got["jit"] == "1" and int(got["eqns"]) >= 80, got
