from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING

from jaxlint.diagnostic import Applicability, Confidence
from jaxlint.rule import FindingKind, Invalid, Option, StaticRule, Valid
from jaxlint.rules.static._sizes import in_test, is_test_path
from jaxlint.rules.static._fixplan import attribute_path, block_holding, free_local_name, is_statement_list_member
from jaxlint.static.semantic import ModuleModel, walk
from jaxlint.static.key_purpose import Comments, in_demo_code, said_on_purpose
from jaxlint.static.key_kinds import (DIFFERENT, DRAWN_THEN_SPLIT, FIXED_SEED, FIXTURE, MODULE_KEY, ON_PURPOSE, SAME,
                                      SHAPES_ONLY, SPLIT_FIRST, SPLIT_THEN_DRAWN, reuse_kind)
from jaxlint.static.key_uses import bound_in, in_fixture_code, word_pattern
from jaxlint.static.reach import Reach
from jaxlint.static.keyflow import (COMPREHENSIONS, SCOPES, KeyFlow, Reuse, calls_in, closures_called_per_loop,
                                    drawn_key, leaf_noise, literal_keys_per_loop, taken_one_at_a_time)
from jaxlint.textutil import LazyPattern, match_lines
from jaxlint.static.apis import KEYED_DRAWS
from jaxlint.static.keys import CONSUMERS, HANDOFF_KEYWORDS, KEY_MAKERS, KeyCallees

if TYPE_CHECKING:
    from jaxlint.static.checker import StaticContext


#: A line that may call a key consumer (`normal(`, `jr.split(`...): a cheap prefilter.
#: The one-letter samplers `t` and `f` only count as attributes (`jax.random.t(`).
_CONSUMER_CALL = LazyPattern(r"(?:%s|\.[tf])\s*\(" % word_pattern(c for c in CONSUMERS if len(c) > 1))
#: A line that may hand a key to a callee that draws from it (`key=`, `rng=`, `.init(`, `hk.dropout(`), or
#: make a library layer or initializer whose calls draw (`nn.Dropout(`, `glorot_normal(`).
_KEY_HANDOFF = LazyPattern(r"(?:%s)\s*=[^=]|\.(?:init(?:_with_output)?|apply)\s*\(|(?:%s)\s*\(" % (
    word_pattern(HANDOFF_KEYWORDS), word_pattern({q.rsplit(".", 1)[-1] for q in KEYED_DRAWS})))
#: Functions that run a body once per iteration, with the index of the body argument
#: (and its keyword): a key the body closes over is the same key on every iteration.
_ITERATING = {"jax.lax.fori_loop": (2, "body_fun"), "jax.lax.scan": (0, "f"), "jax.lax.while_loop": (1, "body_fun"),
              "jax.lax.map": (0, "f"), "flax.nnx.fori_loop": (2, "body_fun"), "flax.nnx.scan": (0, "f"),
              "flax.nnx.while_loop": (1, "body_fun")}
_ITERATING_NAMES = {q.rsplit(".", 1)[-1] for q in _ITERATING}


_KIND_SAYS = {SAME: "the same numbers", DRAWN_THEN_SPLIT: "drawn from, then split", SPLIT_THEN_DRAWN:
              "split, then drawn from", DIFFERENT: "two different draws", MODULE_KEY: "a module-level key",
              SHAPES_ONLY: "numbers drawn only for their shapes", SPLIT_FIRST: "split first, then drawn alike",
              FIXED_SEED: "a fixed seed per pass"}


def _says(kind: str, msg: str, fixture: bool = False, purpose: bool = False) -> str:
    where = " (in a test helper, demo or benchmark)" if fixture else " (on purpose, as the code says)" if purpose else ""
    return f"{_KIND_SAYS[kind]}{where}: {msg}"


def _reuse_says(r: Reuse) -> str:
    if r.comp is not None:
        return (f"PRNG key `{r.text}` is consumed by `{r.fn_name}` for every element of the comprehension at line "
                f"{r.comp.lineno}: each element draws the same random numbers; split it into one key per element")
    if r.repeated:
        return (f"PRNG key `{r.text}` is consumed by `{r.fn_name}` on every iteration of the loop without being "
                f"reassigned: every iteration draws the same random numbers; split it in the loop "
                f"(`{r.text}, sub = jax.random.split({r.text})`)")
    return (f"PRNG key `{r.text}` was already consumed by `{r.first_name}` at line {r.first.lineno}; reusing it in "
            f"`{r.fn_name}` gives the same (or correlated) random numbers; split the key first")


def _put(reports: dict, node: ast.expr, msg: str, first: ast.Call, sure: Confidence, kind: str) -> None:
    reports.setdefault(id(node), (node, msg, first, sure, kind))


class PrngKeyReuse(StaticRule):
    """
    ## What it does
    Finds a PRNG key consumed twice: two `jax.random` sampling calls (`normal`,
    `uniform`, `bernoulli`, `categorical`, `randint`, `permutation`, ...) or
    `jax.random.split` given the same key, in straight-line code of one function,
    without the key being reassigned in between (`key, sub = jax.random.split(key)`
    resets it). A sampling call in a loop body or comprehension whose key is never
    reassigned there consumes the same key on every iteration, and so does one in a
    function mapped over the leaves of a pytree that draws noise shaped like each leaf
    from a key it closes over (`jax.tree_util.tree_map(lambda g: g +
    jax.random.normal(key, g.shape), grads)`), also up to three calls below it, in a
    function given a leaf that draws from a key closed over or handed down the same for
    every leaf (`tree_map(lambda a, b: vary(a, b), x1, x2)`, `vary` drawing `normal(k,
    a.shape)`); not when the tree is surely one array (the flat vector `ravel_pytree(t)[0]`, also through
    helpers of the checked tree that return it or `tree_map` over it, or a `jax.numpy` constructor's result):
    one leaf, one draw. And so does one in the body of a
    `lax.fori_loop`, `lax.scan`, `lax.while_loop` or `lax.map` (or nnx's) that draws from a
    key it closes over or that `functools.partial` binds: the body runs once per iteration
    with the same key (a key passed in the carry or the scanned-over slices, or
    `fold_in(key, i)`, is fresh); and in a nested function called on every pass of a Python
    loop (by name, as a parameter, or a factory's result) that draws from its scope's key; and a key made from a
    literal seed inside a Python loop and drawn from there (`train_epoch(state, data, random.key(1))` in every
    epoch: the same permutation each epoch), the kind `fixed-seed`, off by default until measured. A key handed to a
    function received as a parameter (`step_fn(params, state, rng, x)` in the scan body of `unroll(step_fn)`)
    draws when every call of that function's owner in the module hands it the same function of the module
    and that function draws from the key (`unroll(noisy_step)`); a callable whose calls the module does not
    show (a public factory no call of the module fills) is not known to draw, and stays clean.
    A `split(key, n)` in such a lax body makes the same keys on every
    iteration too, handed whole to a draw (`vmap(sample)(split(key, n), xs)`); taken one
    at a time (`split(key, n)[i]`, `keys[i]`, `keys` given to another call) it may give
    each iteration its own.

    A call that hands the key to something known to draw random numbers from it also consumes it: an equinox layer
    (`eqx.nn.Linear(3, 4, key=key)`), a flax linen module's `init` (`model.init(key, x)`, also of a module made
    inline: `Critic().init(key, x)`) and its `apply` given `rngs={"dropout": key}`, a haiku transform's `init(key,
    x)` and `apply(params, key, x)` (`apply(params, state, key, x)` after `hk.transform_with_state`), a library
    layer or function whose call draws from the key it is given (the model's table `apis.KEYED_DRAWS`): equinox's
    `eqx.nn.Dropout` called with `key=`, flax linen's `nn.Dropout` with `rng=`, haiku's `hk.dropout(rng, rate,
    x)`, an initializer of `jax.nn.initializers` (`glorot_normal()(key, shape)`; not `zeros`, `ones`, `constant`),
    the layer made there, bound to a name, or stored on `self` (or annotated as a field); not a call that
    cannot draw: `inference=True` / `deterministic=True` given at the call or, when the call gives neither, where
    the layer is made, a rate of 0, or no key (linen then draws from `make_rng`); and a
    function or class (its `__init__`) of the same module whose body samples from that parameter with
    `jax.random`, also from keys it splits from it first, or in a function it defines and uses (`loss_fn` handed
    to `jax.grad` in a jitted step), through a chain of such helpers, also called through an attribute its class
    stores it in (`self.kernel_init = normal_init`, then `self.kernel_init(shape, key)`). A helper that only
    splits or folds the key does not consume it, nor does one that draws from it only when another argument is
    None (`if deck is None: deck = deal(key)`), called with that argument given (an expression, or a name the
    caller binds to one; not `None`, nor a parameter of the caller), also where a closure of the helper waits on
    it (`def one(x, mask): if mask is None:` run as `jax.vmap(one)(xs, masks)`), and where every binding reaching
    the call is a value (`out, masks = paste(..., masks)`, then `paste(..., masks)`). Splitting a key after such a
    call (`model.init(key, x)` then `key, sub = jax.random.split(key)`) is not reported: the second use must draw.
    A function of another module whose body is not seen consumes a key given to it as `key=`/`rng=` (or a key the
    function made with `split`/`PRNGKey`) only next to a `jax.random` draw from the same key: two such calls, or
    one and a `split`, may be deliberate (seeding a model and its guide alike) and are not reported. When that
    function is in another module of the checked tree, its body is read there: a key it only stores, deletes or
    hands on to functions that do the same (`module.variable(v, name=n, key=k)` tagging `v` with the key for later
    harvest) is threaded, not drawn from, and is not a use. A hand-off the model cannot read (a module outside the
    tree, `*args`/`**kwargs`, a key inside another expression, more than four calls deep) is assumed to draw, as a
    function that takes a key usually does.

    A read of a key generator's property that advances the generator is a fresh key
    each time (`gen.rng`, with `gen` an instance of a class of the module, or of one
    another module of the tree defines, whose `@property` `rng` splits a key field of
    `self` and stores a part back, itself or through `next(self)`, `self()` or another
    method): `normal(gen.rng, s)` twice draws from two keys. A property that only
    returns the field, or splits it without storing it back, gives one key per read. An
    attribute of an instance of a class imported from outside the checked tree may be
    such a property: two reads of it are not reported.

    Uses in the two branches of an `if`/`else` are not two uses. A branch of `lax.cond` /
    `lax.switch` (or nnx's) made right there, a lambda or a nested def, runs at the call: a
    draw in it from a key it closes over is a use of that key (`normal(key, s)` then
    `lax.cond(p, lambda: normal(key, s), lambda: x)` is reuse), and draws from one key in two
    of its branches are one use, since only one branch runs; nor does a draw before the call
    whose numbers only its other branches read (`u = uniform(key, s)`, then `lax.cond(p, lambda
    _: tan(u), lambda _: normal(key, s), None)`) meet the branch's draw. Keys derived with
    `jax.random.fold_in(key, i)` are fresh keys.

    Two uses only count when some number both produce is read: each use's result is followed forward (through
    arithmetic, calls, and names, rebound or not, to the reads each binding reaches). A use whose result only
    seeds a template (`like = Model(key=k)` then `eqx.tree_deserialise_leaves(path, like)`, or flax's
    `serialization.from_bytes` / `from_state_dict` target), goes only into `jax.eval_shape` /
    `eqx.filter_eval_shape` / `nnx.eval_shape`, is only asked its `.shape`, or is never read draws nothing that
    matters. Two unpacked splits of one key (`a, b = split(key)`) give the same keys index by index: they share a
    key only when an output of the same index is read after both. One key drawing the two alternatives of a select
    (`jnp.where(c, f(normal(key)), g(normal(key)))`, `lax.select`, `select_n`, `jnp.select`, `a if c else b`, or
    the results of different lambdas of `lax.cond(p, lambda: a, lambda: b)` / `lax.switch(i, [lambda: a, lambda:
    b])`, or the values of a dict display of which one subscript keeps one: `{"random": normal(key, s), "lecun":
    normal(key, s) * c}[scheme]`, or the dict bound to a name whose only read, in the same loop, is `inits[scheme]`)
    is not reuse: each element keeps one draw, also through names rebound on the way; a path of the first
    draw that cannot run with the second (an `if` arm without it) does not count. A `jax.random.randint` whose
    range holds one value (`randint(key, (), 1, 2)`, `randint(key, (), n, n + 1)`: `maxval` is exclusive) gives
    that value whatever the key: no draw, so no reuse. Nor does a first use whose result is read only on runs that
    never reach the second (`theta = uniform(key)`, then `if n == 1: return uniform(key)`, with `theta` read only
    below that `if`): no run uses both.

    A key is a name, a name indexed by a constant (`keys[0]`) or a field of a name
    (`s.key` of a state argument, `self.rng`): a field is reset by assigning it
    (`self.key, sub = jax.random.split(self.key)`), by rebinding its object, or by a
    statement that calls a method of its object or passes the object on (it may store
    a new key there).

    Also finds a PRNG key made at module level (`KEY = jax.random.PRNGKey(0)`) and
    read in traced code.

    One key applied to several arrays by the same call on purpose stays clean: `choice`,
    `permutation` or a same-module helper (a random crop, random features) given the
    same key and the same shape arguments but different data draws the same indices,
    offsets or features for each array, which keeps them aligned
    (`x = choice(key, xs, (n,)); y = choice(key, ys, (n,))`,
    `[permutation(key, a) for a in arrays]`).
    Test code is skipped unless `check-tests` is set: test inputs drawn from one key are
    usually harmless.

    Each finding has a kind, from what its two uses of the key are (set by measurement:
    docs/precision.md, "JAX114's finding kinds"); the message starts with it. On by
    default: `same-numbers`, where the two uses give the same numbers under jax's default
    PRNG (one call drawing from an unchanged key on every iteration, element or leaf; two
    draws of one sampler, whose elements come from the key's bits index for index, so other
    shapes share a prefix; two splits, whose keys coincide; a key handed whole to two
    callees that draw, such as two layers); `different-draws`, two other samplers (or a
    sampler and a callee that draws) from one key, whose numbers are related; and
    `module-key`. Off by default (`pedantic`; `--select JAX114` gives them): `split-first`, two
    different draws of which one splits the key before reading any bits (`gamma`, `loggamma`,
    `beta`, `dirichlet`, `t`, `f`, `chisquare`, `poisson`, `binomial`, `multinomial`,
    `randint`, `permutation`, `choice` without `p`, ...: jax's own source; or a function of
    the module that hands the key only to those, `split` and `fold_in`, such as one that
    splits it and draws from the parts) and the other reads the key's own bits (`normal`,
    `uniform`, `bernoulli`, ...; a key handed whole to two callees stays `same-numbers`):
    against JAX's rule, but the
    split's keys are none of the bits the other draw reads, so the numbers are unrelated
    (measured: docs/precision.md, "JAX114's finding kinds"); `drawn-then-split`
    (`x = normal(key)` then `key, sub = split(key)`: against JAX's rule, but the split's keys
    need not repeat the draw's numbers), `split-then-drawn` (the key split and then drawn
    from itself), `shapes-only` (one use's numbers only give a traced program its shapes: a
    sample input of a model's `init` after its key, `model.init(key, normal(key, s))`, or an
    argument of `make_jaxpr(f)(...)`, `.lower(...)` or `jit(f).trace(...)`), `test-or-demo`,
    any reuse in a module of test helpers, demos, benchmarks or teaching code by its place in
    the project: a folder `tests`, `test`, `testing`, `test_dummies` or `docs`, a file
    `testing.py` or `*test_utils.py`, a folder or file whose name has a word (split at `_`,
    `-` and case changes) `benchmark`, `benchmarks`, `benchmarking`, `demo`, `demos`,
    `tutorial`, `tutorials` or one starting `pedagog` (`jax_e_benchmark_sweep.py`,
    `pedagogical_examples/`, `kalman_demo.py`; not `examples/`, whose reuses were judged true
    as often as not), or
    in an `if __name__ == "__main__":` block, a function named `benchmark...`, or a function
    or class named for a demonstration (a word `demo`, `demonstrate`, `demonstration`,
    `tutorial`: `demonstrate_sharding`, `step4_demo`; heuristics, measured: docs/precision.md),
    and
    `on-purpose`, a reuse the code calls deliberate: a comment from just above the first use
    to the second, or a docstring line naming the key, calls it fixed or shared, or the same
    saying what for (`# Fixed key`, `# the same split for both runs`; not `# second draw, same
    key`, nor one that negates or flags a fault: `not`, `BUG`, `TODO`, `twice`, a rule code),
    the function is named for checking consistency, determinism or reproducibility, or a key
    named for evaluation (`valid_key`, `eval_key`, `test_key`) is drawn from by one call on
    every iteration of a loop (0 true of 10).

    Two identical draws read only through complementary slices (`permutation(key, n)[:m]`
    and `permutation(key, n)[m:]`) are one permutation split into disjoint parts; two
    splits of one key with the same arguments of which different outputs are taken
    (`split(key)[0]` and `split(key)[1]`, or an index beside another unpacked and read) are
    one split, whose different keys they are; and a
    comprehension building one model per alternative, with a function taken per element
    from a local table of functions (`{name: Model(make=fn, key=key) for name, fn in
    makers.items()}`), seeds each architecture alike on purpose: neither is reported.

    ## Why is this bad?
    JAX random functions are deterministic functions of the key: the same key gives
    the same bits. Two draws from one key are identical (or correlated, for different
    distributions), so "independent" noise, dropout masks or initializations are not.
    Nothing fails: the model just trains or samples worse. A module-level key read
    under `jit` is baked into the compiled program as a constant, so every call draws
    the same numbers.

    ## Example
    ```python
    def init(key):
        w = jax.random.normal(key, (3, 3))
        b = jax.random.normal(key, (3,))
        return w, b
    ```

    ## Use instead
    ```python
    def init(key):
        wkey, bkey = jax.random.split(key)
        w = jax.random.normal(wkey, (3, 3))
        b = jax.random.normal(bkey, (3,))
        return w, b
    ```

    ## Fix safety
    The fix splits the key once more before its first use and gives the second use
    the new subkey: `key, subkey = jax.random.split(key)` goes before the statement
    that first consumes `key` (in a loop, before the statement that consumes it on
    every iteration), and the reported use becomes `subkey`. `jax.random.split` is
    written through the module's own import of `jax.random` or `jax`, adding
    `import jax` when there is neither. It is unsafe: every draw after the split
    gives different numbers than before, and `key` holds a new key from there on.
    Uses in comprehensions and module-level keys read in traced code have no fix.

    ## Options

    ## References
    * [JAX: pseudorandom numbers](https://docs.jax.dev/en/latest/random-numbers.html)
    * [JAX sharp bits: random numbers](https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html#random-numbers)
    """

    code = "JAX114"
    group = "pedantic"  # 48 % with blind52; each finding has a kind, whose group decides
    name = "prng-key-reuse"
    fixable = Applicability.UNSAFE
    summary = "a PRNG key is consumed by more than one random call, or a module-level key is read in traced code"
    fix_hint = "split the key (key, sub = jax.random.split(key)) and use each key once"
    options = {
        "check-tests": Option(False, "also check test files (`test_*.py`, `*_test.py`) and test functions and "
                                     "classes, where drawing two inputs from one key is usually harmless", bool),
    }

    kinds = {
        SAME: FindingKind("suspicious", "the same numbers drawn twice: one call drawing from an unchanged key on every "
                                        "iteration, element or leaf; two draws of one sampler; two splits; or a key "
                                        "handed whole to two callees that draw from it"),
        DRAWN_THEN_SPLIT: FindingKind("pedantic", "a key drawn from, then split for the next keys: against JAX's "
                                                  "rule, but no number need repeat"),
        SPLIT_THEN_DRAWN: FindingKind("pedantic", "a key split, then drawn from itself: against JAX's rule, but no "
                                                  "number need repeat"),
        DIFFERENT: FindingKind("suspicious", "two different draws from one key (another sampler, or a `jax.random` "
                                             "draw and a callee that draws): related numbers"),
        SPLIT_FIRST: FindingKind("pedantic", "two different draws from one key, one of which splits the key before "
                                             "reading bits (`gamma`, `beta`, `randint`, `permutation`, `poisson`, "
                                             "`choice` without `p`, ..., or a callee that only hands the key to "
                                             "those): against JAX's rule, but the numbers are unrelated"),
        MODULE_KEY: FindingKind("suspicious", "a module-level key read in traced code: every call draws the same "
                                              "numbers"),
        SHAPES_ONLY: FindingKind("pedantic", "one use's numbers only give a traced program its shapes: a sample "
                                             "input of `model.init(key, x)`, an argument of `make_jaxpr(f)(...)`, "
                                             "`.lower(...)` or `jit(f).trace(...)`"),
        FIXTURE: FindingKind("pedantic", "any reuse in a test helper, demo, benchmark or teaching file, by its path "
                                         "(`tests/`, `testing.py`, `*test_utils.py`, `test_dummies/`, `docs/`, a "
                                         "folder or file named with a word `benchmark(s)`, `benchmarking`, `demo(s)`, "
                                         "`tutorial(s)` or `pedagog...`), an `if __name__ == \"__main__\":` block, a "
                                         "`benchmark...` function or one (or its class) named for a demonstration "
                                         "(`demonstrate_...`, `..._demo`, `...Tutorial`): inputs drawn alike, seldom "
                                         "worth a fix"),
        FIXED_SEED: FindingKind("nursery", "a key made from the same literal seed on every pass of a loop and drawn "
                                           "from there (`train_epoch(..., random.key(1))` each epoch): the same numbers "
                                           "every pass; off until measured, a fixed seed is often meant"),
        ON_PURPOSE: FindingKind("pedantic", "a reuse the code calls deliberate: a comment at the uses or a docstring "
                                            "line naming the key says fixed or shared (or the same, saying what for), "
                                            "the function checks consistency, or an evaluation key (`valid_key`) "
                                            "serves every iteration of a loop"),
    }

    VALID = [
        Valid(
            """
            import jax

            def noisy_loss(x, key, n):
                def body(i, total):
                    k = jax.random.fold_in(key, i)  # one key per iteration
                    return total + jax.random.normal(k, x.shape).sum()
                return jax.lax.fori_loop(0, n, body, 0.0)

            def noisy_scan(key, xs):
                def step(carry, x):
                    k, total = carry
                    k, sub = jax.random.split(k)  # the key travels in the carry
                    return (k, total + jax.random.normal(sub) * x), None
                return jax.lax.scan(step, (key, 0.0), xs)
            """
        ),
        Valid(
            """
            import jax
            from numpyro.handlers import seed
            from brax.training import acting

            def elbo(model, guide, rng_key, subsample_key):
                # the same plate key on purpose: model and guide subsample the same indices
                model = seed(model, subsample_key, hide_types=["sample"])
                guide = seed(guide, subsample_key, hide_types=["sample"])
                return model(rng_key), guide(rng_key)

            def make_evaluator(env, policy, key, n_envs, randomize):
                rng = jax.random.split(key, n_envs)
                return acting.Evaluator(randomize(env, rng), policy, key=key)
            """
        ),
        Valid(
            """
            import jax
            import jax.numpy as jnp

            def sample_batch(key, images, labels, batch_size):
                # one key for both: image i stays paired with label i
                x = jax.random.choice(key, images, (batch_size,), replace=False)
                y = jax.random.choice(key, labels, (batch_size,), replace=False)
                return x, y

            def random_crop(key, img):
                offset = jax.random.randint(key, (2,), 0, 9)
                padded = jnp.pad(img, ((4, 4), (4, 4), (0, 0)))
                return jax.lax.dynamic_slice(padded, (offset[0], offset[1], 0), img.shape)

            def augment(key, views):
                out = {}
                for name, view in views.items():
                    out[name] = random_crop(key, view)  # the same crop for every camera view
                return out
            """
        ),
    ]
    INVALID = [
        Invalid(
            """
            import jax
            import jax.numpy as jnp

            def noisy_loss(params, x, key, n):
                def body(i, total):
                    noisy = x + jax.random.normal(key, x.shape)
                    return total + jnp.mean((noisy @ params - x) ** 2)
                return jax.lax.fori_loop(0, n, body, 0.0)
            """,
            line=6,
            count=1,
            message="in the body of the `fori_loop` at line 8, which closes over it",
        ),
        Invalid(
            """
            import jax

            def noisy(key, arrays, sizes):
                noise = [jax.random.normal(key, (n,)) for n in sizes]
                shuffled = [jax.random.permutation(key, a) for a in arrays]
                return noise, shuffled
            """,
            line=4,
            count=1,
            message="for every element of the comprehension",
        ),
        Invalid(
            """
            import jax

            def sample_action(key, logits):
                key, sub = jax.random.split(key)  # split, then draw from a part
                return jax.random.categorical(sub, logits)

            def add_exploration(key, logits, scale):
                keys = jax.random.split(key, 2)
                return logits + scale * jax.random.gumbel(keys[1], logits.shape)

            def act(key, logits):
                action = sample_action(key, logits)
                noisy = add_exploration(key, logits, 0.1)
                return action, noisy
            """,
            line=13,
            message="already consumed by `sample_action` at line 12; reusing it in `add_exploration`",
        ),
    ]

    def check(self, ctx: StaticContext) -> None:
        model = ctx.model
        skip_tests = not self.opts["check-tests"]
        if skip_tests and is_test_path(ctx.path):
            return
        # the flow walk visits every expression: only bodies with a line that could call a
        # jax.random consumer are walked (the text test is cheap, resolving names is not)
        sampling = "random" in ctx.source  # no name resolves to jax.random.* without that import
        if not sampling and "key" not in ctx.source and "rng" not in ctx.source:
            return  # nor can a key be handed to an equinox layer or a linen `init`
        lines = match_lines(ctx.source, _CONSUMER_CALL()) | match_lines(ctx.source, _KEY_HANDOFF())
        if not lines:
            return
        callees = KeyCallees(model)
        names = callees.sampling_names() if sampling else set()
        if names:
            lines |= match_lines(ctx.source, re.compile(r"(?:%s)\s*\(" % word_pattern(names)))
        found: list[Reuse] = []
        KeyFlow(model, callees, found).block(ctx.tree.body, {})
        for f in model.functions:
            first, last = f.node.lineno, f.node.end_lineno or f.node.lineno
            if not any(first <= n <= last for n in lines) or skip_tests and in_test(f):
                continue
            if isinstance(f.node, ast.Lambda):
                KeyFlow(model, callees, found).expr(f.node.body, {})
            else:
                KeyFlow(model, callees, found).block(f.node.body, {})
        reports: dict[int, tuple[ast.expr, str, ast.Call, Confidence, str]] = {}
        shapes = Reach(model, shapes=True)
        for r in found:
            sure = min(_sure(r.fn_name), _sure(r.first_name), key=lambda c: c.rank)
            _put(reports, r.key, _reuse_says(r), r.first, sure, reuse_kind(r, shapes))
        if sampling:
            self._mapped_over_leaves(model, reports)
            self._iterated_bodies(model, reports, callees)
            self._closures_per_loop(model, reports, callees)
            for use, key, fn_name, loop, made in literal_keys_per_loop(model, callees):
                made_by = "" if made is key else f" (`{ast.unparse(made)}`)"
                _put(reports, key, f"PRNG key `{ast.unparse(key)}` is made from the same literal seed{made_by} on every "
                                   f"pass of the loop at line {loop.lineno} and consumed by `{fn_name}`: every pass "
                                   "draws the same random numbers (the same shuffle, the same noise); make the key once "
                                   "before the loop and split it each pass", use, _sure(fn_name), FIXED_SEED)
        fixture, comments = in_fixture_code(model.module_name), Comments(ctx.source)
        for node, msg, first_use, sure, kind in sorted(reports.values(), key=lambda r: (r[0].lineno, r[0].col_offset)):
            demo = fixture or in_demo_code(model, node)
            purpose = not demo and said_on_purpose(model, comments, node, first_use)
            ctx.report(node, _says(kind, msg, demo, purpose), related=[ctx.related(first_use, "first use of the key")],
                       fix=_split_fix(ctx, node, first_use) if kind != FIXED_SEED else None, confidence=sure,
                       kind=FIXTURE if demo else ON_PURPOSE if purpose else kind)
        self._module_keys(ctx, model, fixture)

    def codemod(self, fx) -> None:
        import libcst as cst

        key, sub = fx.arg("key"), fx.arg("sub")
        use = fx.node("use", cst.Name)
        if use.value != key:
            raise fx.cannot("the key is not where the check found it")
        fx.insert_before(fx.node("before", cst.BaseStatement), fx.stmt(f"{key}, {sub} = {fx.arg('split')}({key})\n"))
        fx.replace(use, cst.Name(sub))
        if fx.arg("module"):
            fx.add_import(fx.arg("module"))

    def _mapped_over_leaves(self, model: ModuleModel, reports: dict) -> None:
        """A function mapped over a pytree (``tree_map(lambda g: g + normal(key, g.shape),
        grads)``) runs once per leaf: noise shaped like each leaf, drawn from a key that is
        the same for every leaf, by it or a function it calls, is the same noise for every
        leaf of that shape (``keyflow.leaf_noise``)."""
        for call, use, key, q, helper in leaf_noise(model):
            where = f"a function mapped over the leaves of a pytree at line {call.lineno}"
            where = f"`{helper.name}`, which {where} calls" if helper is not None else where
            _put(reports, key, f"PRNG key `{key.id}` is consumed by `{q}` in {where}: every leaf draws the same "
                               f"random numbers; split it into one key per leaf", use, _sure(q), SAME)

    def _iterated_bodies(self, model: ModuleModel, reports: dict, callees: "KeyCallees") -> None:
        """A body run once per iteration by ``lax.fori_loop`` / ``scan`` / ``while_loop`` /
        ``lax.map`` (or nnx's) that draws from a key it closes over (a name of an enclosing
        function, never rebound in the body): every iteration draws the same numbers. A key
        the body gets as an argument (the carry, a slice of split keys) or derives with
        ``fold_in(key, i)`` is fresh."""
        for call in model.nodes(ast.Call):
            func = call.func
            short = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
            if short not in _ITERATING_NAMES:
                continue
            q = model.resolve_call(call) or ""
            if q not in _ITERATING:
                continue
            index, keyword = _ITERATING[q]
            body = call.args[index] if len(call.args) > index else next(
                (k.value for k in call.keywords if k.arg == keyword), None)
            if body is None:
                continue
            fn, bound = model.unwrap_target(body, call, follow=False)
            if fn is None or bound and fn.class_name:
                continue
            # the parameters `functools.partial(body, key)` fixes: the same value every iteration
            fixed = {p.name for p in fn.positional()[:bound]} | model.partial_keywords(body, call)
            if fn.parent is None and not fixed:
                continue  # a module-level body closes over module-level names only (see `_module_keys`)
            parts = [fn.node.body] if isinstance(fn.node, ast.Lambda) else fn.node.body
            for part in parts:
                for use, comp in calls_in(part):
                    key, fn_name = drawn_key(model, callees, use) or (None, "")
                    if not isinstance(key, ast.Name) or comp is not None and bound_in(comp, key.id):
                        continue
                    if fn_name == "jax.random.split" and (len(use.args) > 1 or any(k.arg == "num" for k in use.keywords)) \
                            and taken_one_at_a_time(model, use, fn):
                        continue  # `split(key, n)[i]`: one key per iteration, taken by the loop index
                    if key.id in fixed:
                        if len(fn.bindings.get(key.id, ())) != 1:
                            continue  # rebound in the body
                        how = "which `functools.partial` gives it once"
                    elif key.id in fn.bindings or fn.parent is None:
                        continue
                    else:
                        owner, bindings = model.lookup(key.id, fn)
                        if owner is None or not bindings:
                            continue  # a module-level name, or one not found
                        how = "which closes over it"
                    _put(reports, key, f"PRNG key `{key.id}` is consumed by `{fn_name}` in the body of the "
                                       f"`{short}` at line {call.lineno}, {how}: every iteration "
                                       f"draws the same random numbers; pass the key in the carry and split it "
                                       f"each iteration, or derive one per iteration (`jax.random.fold_in({key.id}, "
                                       f"i)`)", use, _sure(fn_name), SAME)

    def _closures_per_loop(self, model: ModuleModel, reports: dict, callees: "KeyCallees") -> None:
        """A closure drawing from its scope's key, called per loop pass (``keyflow.closures_called_per_loop``)."""
        for use, key, fn_name, fn, call in closures_called_per_loop(model, callees):
            _put(reports, key, f"PRNG key `{ast.unparse(key)}` is consumed by `{fn_name}` in `{fn.name}`, which closes "
                               f"over it and which the loop at line {call.lineno} calls (as `{ast.unparse(call.func)}`) on every pass: every "
                               "call draws the same random numbers; pass the key in, split per call", use, _sure(fn_name), SAME)

    def _module_keys(self, ctx, model: ModuleModel, fixture: bool) -> None:
        keys = {name for name, bindings in model.module_bindings.items()
                if len(bindings) == 1 and isinstance(bindings[0].value, ast.Call)
                and model.resolve_call(bindings[0].value) in KEY_MAKERS}
        if not keys:
            return
        for fn in model.traced_functions():
            seen: set[str] = set()
            for node in fn.body_nodes():
                if not (isinstance(node, ast.Name) and node.id in keys and isinstance(node.ctx, ast.Load)) \
                        or node.id in seen:
                    continue
                owner, bindings = model.lookup(node.id, fn)
                if owner is not None or len(bindings) != 1 or not isinstance(bindings[0].value, ast.Call):
                    continue
                if model.resolve_call(bindings[0].value) not in KEY_MAKERS:
                    continue
                seen.add(node.id)
                ctx.report(
                    node,
                    _says(MODULE_KEY, f"`{node.id}` is read in traced code (`{fn.name}`): it is baked into the "
                                      f"compiled program as a constant, so every call draws the same random "
                                      f"numbers; pass the key as an argument", fixture),
                    related=[ctx.related(bindings[0].node, f"`{node.id}` is made here")], kind=FIXTURE if fixture else MODULE_KEY,
                )


def _sure(fn_name: str) -> Confidence:
    """A key drawn from by a ``jax.random`` function certainly draws; one handed to a
    callee the model only believes draws from it (a layer, an ``init``, a helper) likely."""
    return Confidence.CERTAIN if fn_name.startswith("jax.random.") else Confidence.LIKELY


def _split_fix(ctx, use: ast.expr, first: ast.Call):
    """Split ``key`` before the statement that first consumes it and give the reported
    use the subkey; None where that is not one well-defined place."""
    model: ModuleModel = ctx.model
    if not isinstance(use, ast.Name):
        return None
    fn = model.function_of(use)
    if fn is not None and (use.id in fn.globals_ or use.id in fn.nonlocals or use.id not in fn.bindings):
        return None  # splitting a closed-over key in place would make it a local, read before assignment
    call = model.parent(use)
    if isinstance(call, ast.keyword):
        call = model.parent(call)
    # in a comprehension or a nested function, a use is not one statement's business
    s1, s2 = (model.statement_of(n, stop_at=SCOPES + COMPREHENSIONS) if n is not None else None for n in (first, call))
    if s1 is None or s2 is None or (first is not call and (first.lineno, first.col_offset) > (use.lineno, use.col_offset)):
        return None  # the "first" use comes later in the text: a key carried around a loop
    # the statements holding the two uses, or their ancestors, in one block (s1 first)
    chain2 = [s2, *(a for a in model.ancestors(s2) if isinstance(a, ast.stmt))]
    anchor = a2_found = None
    for a1 in [s1, *(a for a in model.ancestors(s1) if isinstance(a, ast.stmt))]:
        for a2 in chain2:
            block = block_holding(model, a1)
            if block is not None and a2 in block and block.index(a1) <= block.index(a2):
                anchor, a2_found = a1, a2
                break
        if anchor is not None or isinstance(a1, SCOPES):
            break
    if anchor is None or a2_found is None or not is_statement_list_member(model, anchor) \
            or model.function_of(anchor) is not fn:
        return None
    loops = (ast.For, ast.AsyncFor, ast.While)
    if first is not call:
        if any(isinstance(a, loops) for a in chain2[:chain2.index(a2_found) + 1]):
            return None  # below the split, the subkey would be drawn from on every iteration
        for loop in (a for a in model.ancestors(anchor) if isinstance(a, loops)):
            if model.function_of(loop) is not fn:
                break
            if not any(isinstance(n, ast.Name) and n.id == use.id and isinstance(n.ctx, ast.Store)
                       for n in walk(loop)):
                return None  # around it, the split would take the key consumed the iteration before
    if first is call:  # reused on every iteration: only when this is the loop's one use of the key
        carrier = next((a for a in chain2 if isinstance(a, loops)), None)
        if carrier is None or sum(1 for n in walk(carrier) if isinstance(n, ast.Name) and n.id == use.id) != 1:
            return None
    split = attribute_path(model, "jax.random.split", fn)
    if split is None:
        return None
    sub = free_local_name(model, fn, f"sub{use.id}")
    return ctx.codemod(f"Split `{use.id}` first: `{use.id}, {sub} = {split[0]}({use.id})`, and use `{sub}` here",
                       Applicability.UNSAFE, use=use, before=anchor, key=use.id, sub=sub, split=split[0],
                       module=split[1])

