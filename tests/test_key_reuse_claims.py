"""JAX114's claims about its fixtures, checked with real jax (CPU, the default
partitionable threefry): where the rule stays quiet no run uses two draws of one key,
and where it reports, the two uses give the same numbers."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

HERE = Path(__file__).parent / "fixtures" / "rules" / "JAX114"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"jax114_{name}", HERE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_draw_read_only_on_runs_that_leave_before_the_second_changes_nothing_there():
    m = _load("valid_read_elsewhere")
    key = jax.random.PRNGKey(3)
    # on the run through the second draw the first one's angle is never read: any angle gives the same
    drawn = m.scaled_identity(key, 1)
    np.testing.assert_array_equal(drawn, m.scaled_identity(key, 1, angle=jnp.float32(123.0)))
    np.testing.assert_array_equal(m.pick(key, jnp.arange(5.0), True), jnp.argmax(jnp.arange(5.0)))


def test_a_draw_read_on_the_run_of_the_second_repeats_its_numbers():
    m = _load("invalid_read_with")
    key, x = jax.random.PRNGKey(3), jnp.zeros(4)
    y, again = m.jitter(key, x, True)
    np.testing.assert_array_equal(y - x, again)  # the same normal numbers twice


def test_a_helper_given_the_argument_it_would_draw_draws_nothing_from_the_key():
    m = _load("valid_drawn_unless_given")
    k1, k2 = jax.random.PRNGKey(0), jax.random.PRNGKey(1)
    deck, hand = jnp.arange(9)[::-1], jnp.arange(4)
    assert m.new_round(0, k1, 9, deck=deck) == m.new_round(0, k2, 9, deck=deck)
    assert m.restart(0, k1, 9, hand=hand) == m.restart(0, k2, 9, hand=hand)


def test_a_helper_not_given_that_argument_deals_the_same_deck_again():
    m = _load("invalid_drawn_unless_given")
    key = jax.random.PRNGKey(5)
    deck = m.deal(key, 9)
    assert m.new_round(0, key, 9) == deck[0]  # the round's deal is the step's deal
    assert m.new_round(0, key, 9, deck=None) == deck[0]


def test_draws_for_different_branches_of_switch_and_cond_never_meet_in_a_result():
    m = _load("valid_branches")
    key, state = jax.random.PRNGKey(7), jnp.zeros(3)
    normal, uniform = jax.random.normal(key, (3,)), jax.random.uniform(key, (3,))
    for action, want in [(0, state), (1, state + normal), (2, state + uniform)]:
        np.testing.assert_array_equal(m.step(key, state, action), want)
    # under vmap the cond becomes a select: each row still holds one of the two draws only
    rows = jax.vmap(m.maybe_noise, in_axes=(None, None, 0))(key, state, jnp.array([True, False]))
    np.testing.assert_array_equal(rows, jnp.stack([normal, -normal]))


def test_draws_combined_in_one_branch_repeat_their_numbers():
    m = _load("invalid_branches")
    key, state = jax.random.PRNGKey(7), jnp.zeros(3)
    both = m.step(key, state, 1)
    np.testing.assert_array_equal(both, 2 * jax.random.normal(key, (3,)))  # restart + explore: one draw, twice
