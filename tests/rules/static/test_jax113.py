"""JAX113 donation-misuse: tests beyond the rule's VALID/INVALID examples (which
tests/test_rule_examples.py runs)."""
from __future__ import annotations

from helpers import lines, lint_source
from static_rule_helpers import found


DONATING = """
import functools
import jax

@functools.partial(jax.jit, donate_argnames=("state",))
def step(state, batch):
    return state + batch
"""


def test_jax113_keyword_donation_and_use_in_a_later_if_test():
    assert lines("JAX113", DONATING + """
def run(state, batch):
    out = step(batch=batch, state=state)
    if state.sum() > 0:
        return out
    return out
""") == [10]


def test_jax113_reassignment_in_the_same_statement_or_before_the_read_is_fine():
    assert lines("JAX113", DONATING + """
def run(state, batches):
    state = step(state, batches[0])
    new = step(state, batches[1])
    state = new
    return state.sum()
""") == []


def test_jax113_reads_after_a_return_in_another_branch_are_not_reached():
    assert lines("JAX113", DONATING + """
def run(state, batch, fast):
    if fast:
        return step(state, batch)
    return state
""") == []


def test_jax113_loop_that_breaks_right_after_the_call_is_fine():
    assert lines("JAX113", DONATING + """
def run(state, batches):
    for b in batches:
        out = step(state, b)
        break
    return out
""") == []


def test_jax113_immediately_called_jit_with_donation():
    out = found("JAX113", """
        import jax

        def add(x, y):
            return x + y

        def run(x, y):
            z = jax.jit(add, donate_argnums=0)(x, y)
            return z + x
        """)
    assert [line for line, _ in out] == [8] and "`x` was donated" in out[0][1]


def test_jax113_decorated_method_maps_arguments_after_self():
    assert lines("JAX113", """
        import functools
        import jax

        class Trainer:
            @functools.partial(jax.jit, static_argnums=0, donate_argnums=1)
            def step(self, params, batch):
                return params + batch

            def fit(self, params, batch):
                new = self.step(params, batch)
                print(batch)
                return new, params
        """) == [12]


def test_jax113_a_function_rebound_to_its_own_donating_jit_is_followed():
    assert lines("JAX113", """
        import jax

        def train(state, xs):
            for x in xs:
                new = step(state, x)
                print(state.sum())
                state = new
            return state

        def step(state, x):
            return state + x

        step = jax.jit(step, donate_argnums=0)
        local = step(1.0, 2.0)
        """) == [6]


def test_jax113_a_name_rebound_before_the_call_no_longer_aliases_the_donated_buffer():
    assert lines("JAX113", """
        import functools
        import jax

        @functools.partial(jax.jit, donate_argnums=(0, 1))
        def update(params, opt_state):
            return params, opt_state

        def train(params, fresh):
            old = params
            params = fresh(params)
            new, state = update(params, old)
            backup = state
            state = fresh(state)
            return update(new, backup), state
        """) == []


def test_jax113_finding_points_back_at_the_donating_call():
    diags = lint_source(DONATING + """
def run(state, batch):
    new = step(state, batch)
    return new, state
""", select=["JAX113"])
    assert len(diags) == 1 and diags[0].related and diags[0].related[0].start.line == 9


# One buffer donated and passed again to a parameter that is not donated (scope50).
# Each flagged program raises under real jax on CPU; each quiet twin runs.
_KEPT_FLAGGED = {
    "same_name_two_positions": ("""
        import jax
        import jax.numpy as jnp

        def add(x, y):
            return x + y

        f = jax.jit(add, donate_argnums=(0,))

        def main():
            x = jnp.zeros((10,), jnp.float32)
            return f(x, x)
        """, "main()", 11),
    "alias_by_keyword": ("""
        import functools
        import jax
        import jax.numpy as jnp

        @functools.partial(jax.jit, donate_argnames=("state",))
        def step(state, reference):
            return state * 0.5 + reference

        def run():
            state = jnp.ones(4)
            ref = state
            return step(state=state, reference=ref)
        """, "run()", 12),
    "inside_a_kept_tuple": ("""
        import functools
        import jax
        import jax.numpy as jnp

        @functools.partial(jax.jit, donate_argnums=0)
        def step(params, pair):
            return params + pair[0] + pair[1]

        def run():
            params = jnp.ones(4)
            return step(params, (params, jnp.zeros(4)))
        """, "run()", 11),
}
_KEPT_QUIET = {
    "a_copy": ("""
        import jax
        import jax.numpy as jnp

        def add(x, y):
            return x + y

        f = jax.jit(add, donate_argnums=(0,))

        def main():
            x = jnp.zeros((10,), jnp.float32)
            return f(x, jnp.copy(x))
        """, "main()"),
    "a_field_of_it": ("""
        import functools
        import jax
        import jax.numpy as jnp

        @functools.partial(jax.jit, donate_argnums=0)
        def step(state, scale):
            return {"w": state["w"] * scale}

        def run():
            state = {"w": jnp.ones(4)}
            return step(state, 2.0)
        """, "run()"),
}


def test_jax113_a_buffer_donated_and_passed_again_is_flagged():
    for name, (src, _, line) in _KEPT_FLAGGED.items():
        got = found("JAX113", src)
        assert [g[0] for g in got] == [line], (name, got)
        assert "also donated" in got[0][1], (name, got)


def test_jax113_a_copy_or_another_value_beside_a_donated_buffer_is_clean():
    for name, (src, _) in _KEPT_QUIET.items():
        assert lines("JAX113", src) == [], name


def test_jax113_donated_and_kept_claims_hold_under_real_jax():
    import textwrap

    from static_rule_helpers import outcomes_under_jax

    cases = {n: (textwrap.dedent(s), c) for n, (s, c, _) in _KEPT_FLAGGED.items()}
    cases.update({n: (textwrap.dedent(s), c) for n, (s, c) in _KEPT_QUIET.items()})
    got = outcomes_under_jax(cases)
    assert {n for n, o in got.items() if o != "ok"} == set(_KEPT_FLAGGED), got


# A donated field read again by a later statement of the same block (scope50). Flagged
# programs raise under real jax (CPU donates: "Array has been deleted"); quiet twins run.
_FIELD_HEAD = """
    import functools
    import jax
    import jax.numpy as jnp

    @functools.partial(jax.jit, donate_argnums=0)
    def step(state, batch):
        return state + batch

    class Trainer:
        def __init__(self):
            self.state = jnp.ones(4)

        def reset(self):
            self.state = jnp.zeros(4)
"""
_FIELD_FLAGGED = {
    "read_after_donation": ("""
        def fit(self, batch):
            new = step(self.state, batch)
            total = float(self.state.sum())
            return new, total
    """, 18),
    "read_through_a_nested_field": ("""
        def fit(self, batch):
            self.box = Trainer()
            new = step(self.box.state, batch)
            return new + self.box.state
    """, 19),
}
_FIELD_QUIET = {
    "set_from_the_result": ("""
        def fit(self, batch):
            self.state = step(self.state, batch)
            return float(self.state.sum())
    """),
    "set_before_the_read": ("""
        def fit(self, batch):
            new = step(self.state, batch)
            self.state = new
            return float(self.state.sum())
    """),
    "a_method_sets_it_first": ("""
        def fit(self, batch):
            new = step(self.state, batch)
            self.reset()
            return new, float(self.state.sum())
    """),
}


def _trainer(method: str) -> str:
    import textwrap

    return textwrap.dedent(_FIELD_HEAD) + textwrap.indent(textwrap.dedent(method), "    ")


def test_jax113_a_donated_field_read_afterwards_is_flagged():
    for name, (method, line) in _FIELD_FLAGGED.items():
        got = found("JAX113", _trainer(method))
        assert [g[0] for g in got] == [line], (name, got)


def test_jax113_a_donated_field_set_again_first_is_clean():
    for name, method in _FIELD_QUIET.items():
        assert lines("JAX113", _trainer(method)) == [], name


def test_jax113_donated_field_claims_hold_under_real_jax():
    from static_rule_helpers import outcomes_under_jax

    cases = {n: (_trainer(m), "Trainer().fit(1.0) and 'ok'") for n, (m, _) in _FIELD_FLAGGED.items()}
    cases.update({n: (_trainer(m), "Trainer().fit(1.0) and 'ok'") for n, m in _FIELD_QUIET.items()})
    got = outcomes_under_jax(cases)
    assert {n for n, o in got.items() if o != "ok"} == set(_FIELD_FLAGGED), got
