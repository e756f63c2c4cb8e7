"""JAX114 prng-key-reuse: tests beyond the rule's VALID/INVALID examples (which
tests/test_rule_examples.py runs)."""
from __future__ import annotations

import textwrap

from helpers import fixed, lines, lint_source
from static_rule_helpers import found, marked, outcomes_under_jax


def test_jax114_one_key_for_different_draws_is_still_reuse_even_with_data():
    assert lines("JAX114", """
        import jax

        def sample(key, xs, ys, n):
            a = jax.random.choice(key, xs, (n,))
            b = jax.random.choice(key, ys, (2 * n,))
            c = jax.random.permutation(key, 10)
            d = jax.random.permutation(key, 10)
            return a, b, c, d
        """) == [5, 6, 7]


def test_jax114_a_helper_that_uses_its_argument_only_as_a_shape_is_not_alignment():
    assert lines("JAX114", """
        import jax

        def init_layer(key, n_in, n_out):
            return jax.random.normal(key, (n_in, n_out))

        def init(key, sizes):
            params = []
            for n_in, n_out in zip(sizes[:-1], sizes[1:]):
                params.append(init_layer(key, n_in, n_out))
            return params
        """) == [9]


def test_jax114_test_code_is_checked_when_asked():
    src = """
        import jax

        class SamplerTest:
            def test_two_draws(self):
                key = jax.random.PRNGKey(0)
                return jax.random.normal(key, (2,)), jax.random.normal(key, (2,))
        """
    assert lines("JAX114", src) == []
    assert lines("JAX114", src, **{"check-tests": True}) == [6]
    assert lint_source("import jax\ndef f(key):\n    return jax.random.normal(key), jax.random.normal(key)\n",
                       select=["JAX114"], path="pkg/sampler_test.py") == []


def test_jax114_reassigned_key_is_fresh_and_constant_subscripts_are_distinct_keys():
    assert lines("JAX114", """
        import jax

        def f(key):
            keys = jax.random.split(key, 3)
            a = jax.random.normal(keys[0])
            b = jax.random.normal(keys[1])
            key = keys[2]
            c = jax.random.normal(key)
            return a, b, c
        """) == []


def test_jax114_same_subscripted_key_twice_is_reuse():
    assert lines("JAX114", """
        import jax

        def f(key):
            keys = jax.random.split(key, 2)
            return jax.random.normal(keys[0]), jax.random.uniform(keys[0])
        """) == [5]


def test_jax114_early_return_branch_does_not_count_as_a_use():
    assert lines("JAX114", """
        import jax

        def f(key, n):
            if n == 0:
                return jax.random.normal(key)
            return jax.random.uniform(key, (n,))
        """) == []


def test_jax114_while_loop_and_try_bodies():
    assert lines("JAX114", """
        import jax
        from jax import random as jr

        def retry(key, ok):
            while True:
                x = jr.uniform(key)
                if ok(x):
                    return x

        def guarded(key):
            try:
                a = jr.normal(key)
            except ValueError:
                a = 0.0
            return a + jr.normal(key)
        """) == [6, 15]


def test_jax114_two_uses_in_one_lambda():
    assert lines("JAX114", """
        import jax

        noise = lambda key: jax.random.normal(key) + jax.random.normal(key)
        """) == [3]


def test_jax114_module_level_key_in_a_lax_body_and_split_results():
    assert lines("JAX114", """
        import jax

        KEY, SUB = jax.random.split(jax.random.PRNGKey(0))
        SEED_KEY = jax.random.key(1)

        def body(c, x):
            return c + jax.random.normal(SEED_KEY), x

        def run(xs):
            return jax.lax.scan(body, 0.0, xs)
        """) == [7]


def test_jax114_key_given_to_a_sampling_class_then_sampled_is_reuse():
    assert found("JAX114", """
        import jax

        class MLP:
            def __init__(self, key, n=4):
                self.w = jax.random.normal(key, (n, n))

        def make(key):
            model = MLP(key)
            x = jax.random.normal(key, (4,))
            return model, x
        """) == [(9, "two different draws: PRNG key `key` was already consumed by `MLP` at line 8; reusing it in "
                 "`jax.random.normal` gives the same (or correlated) random numbers; split the key first")]


def test_jax114_linen_init_then_sampling_is_reuse_and_keyword_key_to_a_helper_counts():
    assert lines("JAX114", """
        import flax.linen as nn
        import jax

        class Net(nn.Module):
            @nn.compact
            def __call__(self, x):
                return nn.Dense(3)(x)

        def noise(shape, rng):
            return jax.random.normal(rng, shape)

        def setup(key, x):
            model = Net()
            params = model.init(key, x)
            return params, noise(x.shape, rng=key)
        """) == [15]


def test_jax114_equinox_layers_sharing_one_key_and_a_chain_of_helpers():
    assert lines("JAX114", """
        import equinox as eqx
        import jax

        def layer(k):
            return eqx.nn.Linear(3, 3, key=k)

        def two(key):
            a = eqx.nn.Linear(3, 3, key=key)
            b = layer(key)
            return a, b
        """) == [9]


def test_jax114_flax_and_equinox_idioms_with_key_hand_offs_stay_quiet():
    assert lines("JAX114", """
        import equinox as eqx
        import flax.linen as nn
        import jax

        def splitter(key):
            return jax.random.split(key)

        def folded(key, i):
            return jax.random.normal(jax.random.fold_in(key, i))

        def linen(key, x):
            model = nn.Dense(4)
            params = model.init(key, x)
            key, sub = jax.random.split(key)
            return params, jax.random.normal(sub)

        def equinox(key):
            key, subkey = jax.random.split(key)
            model = eqx.nn.MLP(2, 2, 8, 2, key=subkey)
            return model, jax.random.normal(key)

        def helpers(key):
            a, b = splitter(key)
            c = folded(key, 0)
            return jax.random.normal(key), a, b, c

        def unknown(key, x, model, make):
            net = make(key)
            params = model.init(key, x)
            cfg = dict(key=key)
            return net, params, cfg, jax.random.normal(key)
        """) == []


def test_jax114_no_fix_where_a_split_in_the_loop_would_reuse_the_key_across_iterations():
    # key is never reassigned in the loop: a split before `normal` would take the key that
    # `normal` consumed on the iteration before; the reuse across loops gets no fix either
    src = """
        import jax

        def shapes(key, cases, more):
            for shape in cases:
                a = jax.random.normal(key, shape)
                b = jax.random.bernoulli(key, 0.5, shape)
            for shape in more:
                c = jax.random.normal(key, shape)
            return a, b, c
        """
    diags = lint_source(src, select=["JAX114"])
    assert len(diags) >= 3 and all(d.fix is None for d in diags)


def test_jax114_fix_in_a_loop_that_reassigns_the_key_each_iteration():
    out = fixed("JAX114", """
        import jax

        def bounds(key, n):
            for _ in range(n):
                key, subkey = jax.random.split(key)
                a = jax.random.normal(subkey, (2,))
                b = jax.random.bernoulli(subkey, 0.3, (2,))
            return a, b
        """)
    assert out == textwrap.dedent("""\
        import jax

        def bounds(key, n):
            for _ in range(n):
                key, subkey = jax.random.split(key)
                subkey, subsubkey = jax.random.split(subkey)
                a = jax.random.normal(subkey, (2,))
                b = jax.random.bernoulli(subsubkey, 0.3, (2,))
            return a, b
        """)


# ------------------------------------------------------ keys held in fields (scope40)
KEY_FIELDS = '''
from typing import NamedTuple
import jax
import jax.numpy as jnp


class KState(NamedTuple):
    key: jax.Array


@jax.jit
def f(s: KState):
    a = jax.random.normal(s.key, (3,))
    b = jax.random.normal(s.key, (3,))  # <-
    return a, b


class Sampler:
    def __init__(self, seed):
        self.key = jax.random.key(seed)

    def advance(self):
        self.key, _ = jax.random.split(self.key)

    def after_advance(self):
        a = jax.random.normal(self.key, (3,))
        self.advance()
        return a, jax.random.normal(self.key, (3,))

    def twice(self):
        a = jax.random.normal(self.key, (3,))
        return a, jax.random.normal(self.key, (3,))  # <-

    def reassigned(self):
        self.key, sub = jax.random.split(self.key)
        a = jax.random.normal(sub, (3,))
        self.key, sub = jax.random.split(self.key)
        return a, jax.random.normal(sub, (3,))

    def per_step(self, n):
        return [jax.random.normal(self.key, (3,)) for _ in range(n)]  # <-
'''


def test_jax114_follows_keys_held_in_fields():
    marked = [i for i, line in enumerate(KEY_FIELDS.lstrip("\n").splitlines(), 1) if line.endswith("# <-")]
    assert lines("JAX114", KEY_FIELDS) == marked


def test_jax114_real_jax_draws_the_same_numbers_from_a_field_key_twice():
    check = ("'same' if all(bool((a == b).all()) for a, b in [f(KState(jax.random.key(0))), "
             "Sampler(0).twice()]) and not bool((lambda r: (r[0] == r[1]).all())(Sampler(0).after_advance())) "
             "and not bool((lambda r: (r[0] == r[1]).all())(Sampler(0).reassigned())) else 'differ'")
    assert outcomes_under_jax({"fields": (KEY_FIELDS, check)}) == {"fields": "same"}


def _arrowed(src: str) -> list[int]:
    return [i for i, line in enumerate(src.lstrip("\n").splitlines(), 1) if line.endswith("# <-")]


def _lines_with(src: str, files: dict[str, str]) -> list[int]:
    """The JAX114 lines of ``src`` checked in a tree with the other modules ``files``."""
    return [d.start.line for d in lint_source(src, select=["JAX114"], files=files)]


#: A key generator in another module of the tree, re-exported by its package (fjformer's
#: ``GenerateRNG`` form): ``rng`` runs ``next(self)``, which splits and stores the key.
KEYGEN = '''
import jax


class KeyGen:
    def __init__(self, seed=0):
        self._rng = jax.random.PRNGKey(seed)

    def __next__(self):
        self._rng, key = jax.random.split(self._rng)
        return key

    @property
    def rng(self):
        return next(self)

    @property
    def same(self):
        return self._rng
'''

USES_KEYGEN = '''
import jax
from pkg import KeyGen

gen = KeyGen()


def inputs(b, d):
    q = jax.random.normal(gen.rng, (b, d))
    k = jax.random.normal(gen.rng, (b, d))
    a = jax.random.normal(gen.same, (b, d))
    c = jax.random.normal(gen.same, (b, d))  # <-
    return q, k, a, c
'''


def test_jax114_a_generator_property_of_another_module_that_advances_gives_fresh_keys():
    files = {"pkg/__init__.py": "from pkg.keygen import KeyGen as KeyGen\n", "pkg/keygen.py": KEYGEN}
    assert _lines_with(USES_KEYGEN, files) == _arrowed(USES_KEYGEN)
    # without the class's module the model cannot tell whether a read advances it: not
    # certain, not reported (blind42's jax-flash-attn2, whose GenerateRNG is easydel's)
    assert lint_source(USES_KEYGEN, select=["JAX114"]) == []


def test_jax114_real_jax_an_advancing_property_draws_different_numbers_per_read():
    prog = KEYGEN + "\ngen = KeyGen()\n"
    check = ("'fresh' if not bool((jax.random.normal(gen.rng, (4,)) == jax.random.normal(gen.rng, (4,))).all()) "
             "and bool((jax.random.normal(gen.same, (4,)) == jax.random.normal(gen.same, (4,))).all()) else 'same'")
    assert outcomes_under_jax({"keygen": (textwrap.dedent(prog), check)}) == {"keygen": "fresh"}


#: Helpers of another module given a key: one tags a value and drops the key (through a
#: second helper), one draws from it, one hands it to a module outside the tree.
TAGS = '''
import jax
import somelib


def variable(value, *, name, key=None):
    return _sow(value, name=name, key=key)


def _sow(value, *, name, key=None):
    del key
    return value


def noisy(value, *, name, key=None):
    return value + jax.random.normal(key, value.shape)


def wrapped(value, *, name, key=None):
    return somelib.sow(value, name=name, key=key)
'''

THREADS = '''
from jax import random
from pkg import tags


def init(variables, init_key):
    a = {k: tags.variable(v, name=k, key=init_key) for k, v in variables.items()}
    b = {k: tags.noisy(v, name=k, key=init_key) for k, v in variables.items()}  # <-
    c = {k: tags.wrapped(v, name=k, key=init_key) for k, v in variables.items()}  # <-
    return a, b, c
'''


def test_jax114_a_key_only_threaded_through_a_seen_callee_is_not_spent():
    assert _lines_with(THREADS, {"pkg/__init__.py": "", "pkg/tags.py": TAGS}) == _arrowed(THREADS)
    # a callee that cannot be read is assumed to draw from the key it is given
    assert len(lint_source(THREADS, select=["JAX114"])) == 3


SPLIT_HALVES = """
import jax
import jax.numpy as jnp
import jax.random as jr


def halves(seed, n):
    seeds_h = jr.split(jr.split(seed)[0], n)
    seeds_v = jr.split(jr.split(seed)[1], n)
    return seeds_h, seeds_v


def unpacked_and_indexed(seed):
    _, second = jr.split(seed)
    first = jr.split(seed)[0]
    return jr.normal(first, (3,)), jr.normal(second, (3,))


def one_half_twice(seed):
    a = jr.split(seed)[0]
    b = jr.split(seed)[0]  # INVALID
    return jr.normal(a, (3,)), jr.normal(b, (3,))


def other_count(seed):
    a = jr.split(seed, 3)[0]
    b = jr.split(seed)[0]  # INVALID
    return jr.normal(a, (3,)), jr.normal(b, (3,))
"""
HALVES_CHECK = """

def check():
    seed = jr.PRNGKey(7)
    k0, k1 = jr.split(seed)
    h, v = halves(seed, 4)
    x, y = unpacked_and_indexed(seed)
    a, b = one_half_twice(seed)
    c, d = other_count(seed)
    same = lambda p, q: bool(jnp.array_equal(jr.key_data(p) if jnp.issubdtype(p.dtype, jax.dtypes.prng_key)
                                             else p, q))
    return str([same(h, jr.split(k0, 4)), same(v, jr.split(k1, 4)), same(h, v),
                bool(jnp.array_equal(x, jr.normal(k0, (3,)))), bool(jnp.array_equal(y, jr.normal(k1, (3,)))),
                bool(jnp.array_equal(x, y)), bool(jnp.array_equal(a, b)), bool(jnp.array_equal(c, d))])
"""


def test_jax114_two_splits_of_one_key_taking_different_halves_are_one_split():
    """``split(seed)[0]`` and ``split(seed)[1]`` (blind55b's jax-moseq) are the two keys of
    one split, as ``k0, k1 = split(seed)`` would give: no reuse. The same index twice is
    the same key, and so is ``split(seed, 3)[0]`` beside ``split(seed)[0]`` (jax's default
    partitionable threefry gives ``split(k, n)[i]`` independently of ``n``). Proven with
    real jax: the halves equal those of a single split and differ from each other."""
    assert lines("JAX114", SPLIT_HALVES) == marked(SPLIT_HALVES)
    assert len(marked(SPLIT_HALVES)) == 2
    outcomes = outcomes_under_jax({"halves": (textwrap.dedent(SPLIT_HALVES) + HALVES_CHECK, "check()")})
    assert outcomes == {"halves": "[True, True, False, True, True, False, True, True]"}, outcomes


def test_closure_called_per_loop_draws_the_same_numbers_really():
    """A nested function drawing from (or splitting) a key of the enclosing scope it is not
    given, called on every pass of a loop (recall round 18, vmoe-dd822ef: through the function
    an accumulator returns): every pass gets the same numbers under real jax (fixture
    ``invalid_closure_per_loop``); passing the key in, split per call, or rebinding it in the
    loop gives fresh ones (``valid_closure_per_loop``)."""
    import jax
    import jax.numpy as jnp
    from rule_fixtures import load_module

    bad = load_module("JAX114", "invalid_closure_per_loop")
    key, x = jax.random.key(0), jnp.ones(4)
    first, second = bad.train_step(bad.State(key), x)
    assert jnp.array_equal(first, second)
    a, b = bad.noisy_steps(key, jnp.zeros((2, 4)))
    assert jnp.array_equal(a, b)
    good = load_module("JAX114", "valid_closure_per_loop")
    for pair in (good.train_step(key, x), good.noisy_steps(key, jnp.zeros((2, 4))),
                 good.folded_steps(key, jnp.zeros((2, 4)))):
        assert not jnp.array_equal(*pair)


def test_a_one_value_randint_is_no_draw_really():
    """``randint(key, shape, lo, lo + 1)`` is ``lo`` whatever the key (jax 0.10.2, over 512
    keys): no randomness spent, so the key reused with it is no reuse (fixture
    ``valid_one_value_draw``, blind56's alem-env); a range of two values takes both over the
    same keys, so reusing its key repeats numbers (``invalid_two_value_draw``)."""
    import jax
    import jax.numpy as jnp
    from rule_fixtures import load_module

    ones, fours, diamond, sevens = load_module("JAX114", "valid_one_value_draw").main()
    assert (ones, fours, int(diamond), sevens.tolist()) == ({1}, {4}, 1, [7, 7, 7])
    keys = jax.random.split(jax.random.key(0), 512)
    iron = jax.vmap(lambda k: jax.random.randint(k, (), 1, 3))(keys)
    gold = jax.vmap(lambda k: jax.random.randint(k, (), 5, 5 + 2))(keys)
    assert set(jnp.ravel(iron).tolist()) == {1, 2} and set(jnp.ravel(gold).tolist()) == {5, 6}


def test_a_dict_of_draws_picked_once_keeps_one_draw_really():
    """A dict display of draws from one key with one subscript (fixture
    ``valid_dict_alternatives``): under jax 0.10.2 the result is exactly one of the draws,
    so no two numbers of the result come from one key twice; picking every entry
    (``invalid_dict_alternatives``) returns the same numbers twice."""
    import jax
    import jax.numpy as jnp
    from rule_fixtures import load_module

    good, bad = load_module("JAX114", "valid_dict_alternatives"), load_module("JAX114", "invalid_dict_alternatives")
    key, n = jax.random.key(0), 4
    for scheme, alone in (("random", jax.random.normal(key, (n,))), ("uniform", jax.random.uniform(key, (n,))),
                          ("lecun", jax.random.normal(key, (n,)) * jnp.sqrt(1.0 / n))):
        assert jnp.array_equal(good.init_weights(key, n, scheme), alone)  # one draw, as if drawn alone
    points = jnp.arange(10.0)
    assert jnp.array_equal(good.init_centroids(key, points), jax.random.choice(key, points, (2,), replace=False))
    assert jnp.array_equal(jax.jit(good.init_weights, static_argnums=(1, 2))(key, n, "random"),
                           jax.random.normal(key, (n,)))
    params = bad.init_params(key, n)
    assert jnp.array_equal(params["w"], params["b"])  # the same numbers, meeting in one result
    assert jnp.array_equal(bad.both(key, n, "a", "b"), 2 * jax.random.normal(key, (n,)))
    drawn = bad.whole(key, n)
    assert jnp.array_equal(drawn["a"], drawn["b"])


def test_a_tree_map_over_one_array_draws_once_really():
    """A tree map over the flat vector of ``ravel_pytree`` (through helpers that return it or
    map over it) or a ``jax.numpy`` array (fixture ``valid_one_leaf_tree_map``): under jax
    0.10.2 the tree is one leaf, the mapped function runs once, and the result is one draw;
    a tree that may keep several leaves (``invalid_one_leaf_tree_map``) gives every leaf of
    one shape the same numbers."""
    import jax
    import jax.numpy as jnp
    from rule_fixtures import load_module

    good, bad = load_module("JAX114", "valid_one_leaf_tree_map"), load_module("JAX114", "invalid_one_leaf_tree_map")
    key, tree = jax.random.key(1), {"a": jnp.ones(3), "b": jnp.ones(3)}
    for out in (good.perturb(tree, key), good.jitter(tree, key)):
        assert len(jax.tree_util.tree_leaves(out)) == 1 and out.shape == (6,)
        assert len(set(out.tolist())) == 6  # six different numbers: one draw, no repeats
    assert jnp.array_equal(good.noise(key, 4), jax.random.normal(key, (4,)))
    assert jnp.array_equal(good.jitter(tree, key), 1.0 + jax.random.uniform(key, (6,)))
    for out in (bad.unravelled(tree, key), bad.on_one_path(tree, key, False), bad.other_tree(tree, key)):
        assert jnp.array_equal(out["a"], out["b"])  # two leaves, the same numbers


def test_library_dropout_given_one_key_drops_the_same_units_really():
    """A key handed to a library layer's call that draws from it (fixture
    ``invalid_library_dropout``, recall round 20's react-jax-17c0f54 and enn-da821c5): under
    equinox 0.13.8 and flax 0.12.8, two dropouts given one key zero the same units, and so
    does one linen dropout per loop pass given the same ``rng``; a layer made or called in
    inference mode, ``deterministic=True``, a rate of 0, no key (linen's ``make_rng``), or
    keys split per call (``valid_library_dropout``) repeat no mask."""
    import equinox as eqx
    import jax
    import jax.numpy as jnp
    from rule_fixtures import load_module

    bad, good = load_module("JAX114", "invalid_library_dropout"), load_module("JAX114", "valid_library_dropout")
    key, x = jax.random.key(0), jnp.ones(64)

    def same_mask(a, b):
        return bool(jnp.array_equal(a == 0, b == 0)) and 0 < int((a == 0).sum()) < a.size

    assert same_mask(*bad.Block(0.5)(x, key))
    assert same_mask(*bad.Given(eqx.nn.Dropout(0.5))(x, key))
    assert same_mask(*bad.made_inline(x, key))
    mlp = bad.MLP((64, 64))
    first, second = mlp.apply(mlp.init(jax.random.key(1), x, key), x, key)
    assert same_mask(first, second)
    assert same_mask(*bad.Twice().apply({}, x, key))

    for a, b in (good.Evaluator(0.5)(x, key), good.in_inference(x, key), good.rate_zero(x, key)):
        assert jnp.array_equal(a, x) and jnp.array_equal(b, x)  # no draw: the input as it is
    assert jnp.array_equal(good.Deterministic().apply({}, x, key), x)
    assert not same_mask(*good.split_per_layer(x, key))
    assert not same_mask(*good.FromStream().apply({}, x, rngs={"dropout": key}))
    first, second = good.SplitInLoop().apply({}, x, key)
    assert not jnp.array_equal(first == 0, second == 0)


def test_helpers_taken_by_star_import_return_one_array_really(monkeypatch):
    """The helpers of fixture ``valid_star_imported_helpers`` come by star import, two hops
    (``from rotation import *``, itself ``from pytree_math import *``): run with real jax,
    the tree map runs over one leaf and draws once; in ``invalid_star_imported_helpers`` the
    star-imported ``to_vec`` keeps the tree, so two leaves of one shape get the same numbers."""
    import sys

    import jax
    import jax.numpy as jnp
    from rule_fixtures import FIXTURES, load_module

    key, tree = jax.random.key(2), {"a": jnp.ones(3), "b": jnp.ones(3)}
    for name in ("valid_star_imported_helpers", "invalid_star_imported_helpers"):
        monkeypatch.setattr(sys, "dont_write_bytecode", True)  # no __pycache__ among the fixture's files
        monkeypatch.syspath_prepend(str(FIXTURES / "JAX114" / name))
        for cached in ("rotation", "pytree_math", "flat"):
            monkeypatch.delitem(sys.modules, cached, raising=False)
        out = load_module("JAX114", name).perturb(tree, key)
        if name.startswith("valid"):
            assert out.shape == (6,) and len(set(out.tolist())) == 6  # one leaf, one draw
        else:
            assert jnp.array_equal(out["a"], out["b"])  # two leaves, the same numbers
        monkeypatch.undo()
    for cached in ("rotation", "pytree_math", "flat"):
        sys.modules.pop(cached, None)


def test_library_initializers_given_one_key_draw_the_same_numbers_really():
    """An initializer of ``jax.nn.initializers`` (flax's ``nn.initializers``) called twice with
    one key (fixture ``invalid_library_initializers``) gives the same weights under jax
    0.10.2; keys split per call give different ones, and ``constant`` / ``zeros`` draw
    nothing (``valid_library_initializers``)."""
    import jax
    import jax.numpy as jnp
    from rule_fixtures import load_module

    bad, good = load_module("JAX114", "invalid_library_initializers"), load_module("JAX114", "valid_library_initializers")
    key = jax.random.key(0)
    for a, b in (bad.params(key, 4), bad.embeddings(key, 8, 4)):
        assert jnp.array_equal(a, b) and not jnp.all(a == 0)
    w1, w2, c1, c2, z = good.params(key, 4)
    assert not jnp.array_equal(w1, w2)
    assert jnp.array_equal(c1, jnp.full(4, 0.1)) and jnp.array_equal(c2, c1) and not jnp.any(z)
