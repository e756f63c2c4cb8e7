"""Real jax behind recall round 15's JAX114 model gaps built as general capabilities (fix52c,
issue 36): the INVALID fixtures draw the same numbers twice, the VALID ones do not."""
import jax
import jax.numpy as jnp

from rule_fixtures import load_module


def _load(name: str):
    return load_module("JAX114", name, "_recall15")


KEY = jax.random.PRNGKey(3)
X = jnp.zeros(4)


def test_a_draw_in_a_cond_branch_repeats_the_draw_before_it():
    m = _load("invalid_branch_draws")
    noise = jax.random.normal(KEY, X.shape)
    assert jnp.allclose(m.jitter_if(KEY, X, True), 2 * noise)  # the branch's noise is `base` again


def test_a_draw_after_a_switch_branch_repeats_the_branch_draw():
    m = _load("invalid_branch_draws")
    noise = jax.random.uniform(KEY, X.shape)
    assert jnp.allclose(m.pick_then_draw(KEY, X, 0), noise * noise)


def test_branches_drawing_from_one_key_run_one_draw_and_split_keys_differ():
    m = _load("valid_branch_draws")
    assert jnp.allclose(m.either_noise(KEY, X, False), jax.random.normal(KEY, X.shape))
    assert jnp.allclose(m.either_noise(KEY, X, True), jax.random.laplace(KEY, X.shape))
    key, sub = jax.random.split(KEY)
    out = m.split_before_branch(KEY, X, True)
    assert jnp.allclose(out, jax.random.normal(sub, X.shape) + jax.random.normal(key, X.shape))
    assert not jnp.allclose(out, 2 * jax.random.normal(sub, X.shape))
    own = m.branch_keys_of_their_own(KEY, X, 0)
    assert not jnp.allclose(own, 2 * jax.random.normal(KEY, X.shape))


def test_a_draw_read_only_by_the_other_branch_never_meets_the_branch_draw():
    m = _load("valid_branch_draws")
    assert jnp.allclose(m.read_by_other_branches(KEY, X, False), jax.random.normal(KEY, X.shape))
    assert jnp.allclose(m.read_by_other_branches(KEY, X, True), jnp.tan(jax.random.uniform(KEY, X.shape)))
