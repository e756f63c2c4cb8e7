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


XS = jnp.zeros((3, 4))


def test_split_keys_of_a_closed_over_key_repeat_on_every_iteration():
    m = _load("invalid_iterated_split")
    rows = m.noisy_rows(KEY, XS)
    assert jnp.allclose(rows[0], rows[1]) and jnp.allclose(rows[1], rows[2])  # every row the same noise
    once = m.resampled(KEY, jnp.arange(5.0), 1)
    assert jnp.allclose(m.resampled(KEY, jnp.arange(5.0), 4), 4 * once)  # four iterations, one pick repeated


def test_split_keys_taken_by_the_index_or_carried_differ_per_iteration():
    m = _load("valid_iterated_split")
    rows = m.noisy_rows(KEY, XS)
    assert not jnp.allclose(rows[0], rows[1]) and not jnp.allclose(rows[1], rows[2])
    carried = m.carried(KEY, XS)
    assert not jnp.allclose(carried[0], carried[1])
    x = jnp.zeros(4)
    keys = jax.random.split(KEY, 3)
    expected = sum(jax.random.normal(keys[i], x.shape).sum() for i in range(3))
    assert jnp.allclose(m.noisy_sum(KEY, x, 3), expected)


TREE = {"a": jnp.zeros(4), "b": jnp.zeros(4)}


def test_noise_drawn_one_call_below_a_mapped_lambda_is_the_same_for_every_leaf():
    m = _load("invalid_leaf_noise_below")
    out = m.isoline(TREE, {"a": jnp.ones(4), "b": jnp.ones(4)}, KEY, 0.1, 0.2)
    assert jnp.allclose(out["a"], out["b"]) and not jnp.allclose(out["a"], 0.0)  # one noise for both leaves
    noisy = m.add_noise(TREE, KEY, 1.0)
    assert jnp.allclose(noisy["a"], noisy["b"])
    assert jnp.allclose(noisy["a"], jax.random.normal(KEY, (4,)))  # the caller's key, drawn once per leaf


def test_keys_per_leaf_handed_down_or_folded_in_give_each_leaf_its_noise():
    m = _load("valid_leaf_noise_below")
    for out in (m.add_noise(TREE, KEY, 1.0), m.add_indexed_noise(TREE, KEY)):
        assert not jnp.allclose(out["a"], out["b"])
    shuffled = m.shuffle_all({"image": jnp.arange(6.0), "mask": jnp.arange(6.0) * 10}, KEY)
    assert jnp.allclose(shuffled["mask"], shuffled["image"] * 10)  # one order for both: aligned, on purpose
