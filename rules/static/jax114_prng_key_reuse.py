from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING, Iterator

from jaxlint.diagnostic import Applicability, Confidence
from jaxlint.rule import FindingKind, Invalid, Option, StaticRule, Valid
from jaxlint.rules.static._sizes import in_test, is_test_path
from jaxlint.rules.static._fixplan import attribute_path, block_holding, free_local_name, is_statement_list_member
from jaxlint.static.semantic import ModuleModel, children, target_names, walk
from jaxlint.static.selects import alternatives
from jaxlint.static.reach import Reach
from jaxlint.static.key_uses import (State, arguments, bound_in, builds_alternatives, complementary_slices, forget,
                                     handed_over, in_fixture_code, join, key_root, stored_paths, word_pattern)
from jaxlint.textutil import LazyPattern, match_lines
from jaxlint.static.keys import CONSUMERS, KEY_MAKERS, KeyCallees, assigned_paths, draws, key_text
from jaxlint.static.arrays import data_params

if TYPE_CHECKING:
    from jaxlint.static.checker import StaticContext


#: A line that may call a key consumer (`normal(`, `jr.split(`...): a cheap prefilter.
#: The one-letter samplers `t` and `f` only count as attributes (`jax.random.t(`).
_CONSUMER_CALL = LazyPattern(r"(?:%s|\.[tf])\s*\(" % word_pattern(c for c in CONSUMERS if len(c) > 1))
#: A line that may hand a key to a callee that draws from it (`key=`, `.init(`).
_KEY_HANDOFF = LazyPattern(r"(?:%s)\s*=[^=]|\.(?:init(?:_with_output)?|apply)\s*\(" % word_pattern(["key"]))
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)
#: Samplers of continuous noise (the shape given is the noise's shape).
_NOISE = {"normal", "uniform", "truncated_normal", "laplace", "logistic", "gumbel", "cauchy", "t", "gamma",
          "beta", "exponential", "generalized_normal", "double_sided_maxwell", "maxwell", "pareto", "loggamma",
          "chisquare", "rayleigh", "wald", "lognormal", "weibull_min", "rademacher"}
#: Functions that call a function once per leaf of a pytree.
_TREE_MAPS = {"jax.tree_util.tree_map", "jax.tree.map", "jax.tree_map", "jax.tree_util.tree_map_with_path",
              "jax.tree.map_with_path"}
_TREE_MAP_NAMES = {q.rsplit(".", 1)[-1] for q in _TREE_MAPS}
#: Functions that run a body once per iteration, with the index of the body argument
#: (and its keyword): a key the body closes over is the same key on every iteration.
_ITERATING = {"jax.lax.fori_loop": (2, "body_fun"), "jax.lax.scan": (0, "f"), "jax.lax.while_loop": (1, "body_fun"),
              "jax.lax.map": (0, "f"), "flax.nnx.fori_loop": (2, "body_fun"), "flax.nnx.scan": (0, "f"),
              "flax.nnx.while_loop": (1, "body_fun")}
_ITERATING_NAMES = {q.rsplit(".", 1)[-1] for q in _ITERATING}


#: The finding kinds (docs/rules/JAX114.md, "Finding kinds"), from the two uses of the key.
SAME = "same-numbers"
DRAWN_THEN_SPLIT = "drawn-then-split"
SPLIT_THEN_DRAWN = "split-then-drawn"
DIFFERENT = "different-draws"
MODULE_KEY = "module-key"
FIXTURE = "test-or-demo"
_SPLIT = "jax.random.split"
_KIND_SAYS = {SAME: "the same numbers", DRAWN_THEN_SPLIT: "drawn from, then split", SPLIT_THEN_DRAWN:
              "split, then drawn from", DIFFERENT: "two different draws", MODULE_KEY: "a module-level key"}


def _kind(first_name: str, fn_name: str, repeated: bool = False) -> str:
    """The kind of a reuse from the names of its two consumers (``repeated``: one call
    consuming the key again on every iteration, element or leaf)."""
    if repeated or first_name == fn_name:
        return SAME  # one sampler twice, two splits, one callee twice
    first_split, split = first_name == _SPLIT, fn_name == _SPLIT
    if split:
        return DRAWN_THEN_SPLIT
    if first_split:
        return SPLIT_THEN_DRAWN
    if not first_name.startswith("jax.random.") and not fn_name.startswith("jax.random."):
        return SAME  # handed whole to two callees that draw: initialisers seeded alike
    return DIFFERENT


def _says(kind: str, msg: str, fixture: bool = False) -> str:
    where = " (in a test helper, demo or benchmark)" if fixture else ""
    return f"{_KIND_SAYS[kind]}{where}: {msg}"


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
    jax.random.normal(key, g.shape), grads)`), and so does one in the body of a
    `lax.fori_loop`, `lax.scan`, `lax.while_loop` or `lax.map` (or nnx's) that draws from a
    key it closes over or that `functools.partial` binds: the body runs once per iteration
    with the same key (a key passed in the carry or the scanned-over slices, or
    `fold_in(key, i)`, is fresh).

    A call that hands the key to something known to draw random numbers from it also consumes it: an equinox layer
    (`eqx.nn.Linear(3, 4, key=key)`), a flax linen module's `init` (`model.init(key, x)`, also of a module made
    inline: `Critic().init(key, x)`) and its `apply` given `rngs={"dropout": key}`, a haiku transform's `init(key,
    x)` and `apply(params, key, x)` (`apply(params, state, key, x)` after `hk.transform_with_state`), or a
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

    Uses in the two branches of an `if`/`else` are not two uses. Keys derived with
    `jax.random.fold_in(key, i)` are fresh keys.

    Two uses only count when some number both produce is read: each use's result is
    followed forward (through arithmetic, calls, and names, rebound or not, to the reads
    each binding reaches). A use whose result only seeds a template (`like = Model(key=k)`
    then `eqx.tree_deserialise_leaves(path, like)`, or flax's `serialization.from_bytes`
    / `from_state_dict` target), goes only into `jax.eval_shape` / `eqx.filter_eval_shape`
    / `nnx.eval_shape`, is only asked its `.shape`, or is never read draws nothing that
    matters. Two unpacked splits of one key (`a, b = split(key)`) give the same keys index
    by index: they share a key only when an output of the same index is read after both.
    One key drawing the two alternatives of a select (`jnp.where(c, f(normal(key)),
    g(normal(key)))`, `lax.select`, `select_n`, `jnp.select`, `a if c else b`, or the
    results of different lambdas of `lax.cond(p, lambda: a, lambda: b)` /
    `lax.switch(i, [lambda: a, lambda: b])`) is not reuse: each element keeps one draw,
    also through names rebound on the way; a path of the first draw that cannot run with
    the second (an `if` arm without it) does not count.
    Nor does a first use whose result is read only on runs that never reach the second
    (`theta = uniform(key)`, then `if n == 1: return uniform(key)`, with `theta` read only
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
    `module-key`. Off by default (`pedantic`; `--select JAX114` gives them): `drawn-then-split`
    (`x = normal(key)` then `key, sub = split(key)`: against JAX's rule, but the split's keys
    need not repeat the draw's numbers), `split-then-drawn` (the key split and then drawn
    from itself), and `test-or-demo`, any reuse in a module of test helpers, demos or
    benchmarks by its place in the project: a folder `tests`, `test`, `testing`,
    `test_dummies`, `demo`, `demos`, `benchmark` or `benchmarks`, or a file `testing.py`,
    `benchmarking.py` or `*test_utils.py` (a path heuristic, measured: 1 true of 9 blind
    verdicts).

    Two identical draws read only through complementary slices (`permutation(key, n)[:m]`
    and `permutation(key, n)[m:]`) are one permutation split into disjoint parts, and a
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
        MODULE_KEY: FindingKind("suspicious", "a module-level key read in traced code: every call draws the same "
                                              "numbers"),
        FIXTURE: FindingKind("pedantic", "any reuse in a test helper, demo or benchmark file, by its path (`tests/`, "
                                         "`testing.py`, `*test_utils.py`, `demos/`, `benchmarks/`, `benchmarking.py`, "
                                         "`test_dummies/`): inputs drawn alike, seldom worth a fix"),
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
        if not sampling and "key" not in ctx.source:
            return  # nor can a key be handed to an equinox layer or a linen `init`
        lines = match_lines(ctx.source, _CONSUMER_CALL()) | match_lines(ctx.source, _KEY_HANDOFF())
        if not lines:
            return
        callees = KeyCallees(model)
        names = callees.sampling_names() if sampling else set()
        if names:
            lines |= match_lines(ctx.source, re.compile(r"(?:%s)\s*\(" % word_pattern(names)))
        reports: dict[int, tuple[ast.expr, str, ast.Call, Confidence, str]] = {}
        _Flow(model, reports, callees).block(ctx.tree.body, {})
        for f in model.functions:
            first, last = f.node.lineno, f.node.end_lineno or f.node.lineno
            if not any(first <= n <= last for n in lines) or skip_tests and in_test(f):
                continue
            if isinstance(f.node, ast.Lambda):
                _Flow(model, reports, callees).expr(f.node.body, {})
            else:
                _Flow(model, reports, callees).block(f.node.body, {})
        if sampling:
            self._mapped_over_leaves(model, reports, callees)
            self._iterated_bodies(model, reports, callees)
        fixture = in_fixture_code(model.module_name)
        for node, msg, first_use, sure, kind in sorted(reports.values(), key=lambda r: (r[0].lineno, r[0].col_offset)):
            ctx.report(node, _says(kind, msg, fixture), related=[ctx.related(first_use, "first use of the key")],
                       fix=_split_fix(ctx, node, first_use),
                       confidence=sure, kind=FIXTURE if fixture else kind)
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

    def _mapped_over_leaves(self, model: ModuleModel, reports: dict, callees: "KeyCallees") -> None:
        """A function mapped over a pytree (``tree_map(lambda g: g + normal(key, g.shape),
        grads)``) runs once per leaf: noise shaped like each leaf, drawn from a key it
        closes over, is the same noise for every leaf of that shape. Permutations,
        choices and masks are left alone: augmentations draw one for every leaf (an image
        and its mask) on purpose, to keep them aligned."""
        flow = _Flow(model, reports, callees)
        for call in model.nodes(ast.Call):
            func = call.func
            short = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
            if not call.args or short not in _TREE_MAP_NAMES or model.resolve_call(call) not in _TREE_MAPS:
                continue
            fn, _ = model.callee(call.args[0], model.function_of(call), follow=False, instances=False)
            if fn is None or fn.parent is not model.function_of(call):
                continue  # a function made right there (a lambda, a nested def): it closes over the caller's names
            body = [fn.node.body] if isinstance(fn.node, ast.Lambda) else fn.node.body
            for part in body:
                for use, _ in _Flow._calls(part):
                    q = model.resolve_call(use) or ""
                    if not (q.startswith("jax.random.") and q[len("jax.random."):] in _NOISE):
                        continue  # indices, permutations, masks: often one draw for aligned leaves, on purpose
                    key = use.args[0] if use.args else next((k.value for k in use.keywords if k.arg == "key"), None)
                    if not isinstance(key, ast.Name) or key.id in fn.bindings:
                        continue  # a key of its own (a parameter, split inside)
                    leaves = {p.name for p in fn.params}
                    shape = next((k.value for k in use.keywords if k.arg == "shape"), None) or (
                        use.args[1] if len(use.args) > 1 else None)
                    if shape is None or not any(isinstance(n, ast.Name) and n.id in leaves for n in walk(shape)):
                        continue  # not noise shaped like each leaf
                    flow._report(key, f"PRNG key `{key.id}` is consumed by `{q}` in a function mapped over the "
                                      f"leaves of a pytree at line {call.lineno}: every leaf draws the same random "
                                      f"numbers; split it into one key per leaf", use, _sure(q), SAME)

    def _iterated_bodies(self, model: ModuleModel, reports: dict, callees: "KeyCallees") -> None:
        """A body run once per iteration by ``lax.fori_loop`` / ``scan`` / ``while_loop`` /
        ``lax.map`` (or nnx's) that draws from a key it closes over (a name of an enclosing
        function, never rebound in the body): every iteration draws the same numbers. A key
        the body gets as an argument (the carry, a slice of split keys) or derives with
        ``fold_in(key, i)`` is fresh."""
        flow = _Flow(model, reports, callees)
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
                for use, comp in _Flow._calls(part):
                    short_use = use.func.attr if isinstance(use.func, ast.Attribute) else getattr(use.func, "id", None)
                    uq = (model.resolve_call(use) or "") if short_use in CONSUMERS else ""
                    if uq.startswith("jax.random.") and uq[len("jax.random."):] in CONSUMERS:
                        key = use.args[0] if use.args else next((k.value for k in use.keywords if k.arg == "key"),
                                                                None)
                        fn_name = uq
                    else:
                        handoff = callees.key_argument(use)
                        if handoff is None or id(use) in callees.imported:
                            continue
                        key, fn_name = handoff
                    if not isinstance(key, ast.Name) or comp is not None and bound_in(comp, key.id):
                        continue
                    if fn_name == "jax.random.split" and (len(use.args) > 1 or any(k.arg == "num" for k in use.keywords)):
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
                    flow._report(key, f"PRNG key `{key.id}` is consumed by `{fn_name}` in the body of the "
                                      f"`{short}` at line {call.lineno}, {how}: every iteration "
                                      f"draws the same random numbers; pass the key in the carry and split it "
                                      f"each iteration, or derive one per iteration (`jax.random.fold_in({key.id}, "
                                      f"i)`)", use, _sure(fn_name), SAME)

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
    s1, s2 = (model.statement_of(n, stop_at=_SCOPES + _COMPREHENSIONS) if n is not None else None for n in (first, call))
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
        if anchor is not None or isinstance(a1, _SCOPES):
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


class _Flow:
    """Straight-line walk of one body, tracking which keys have been consumed."""

    def __init__(self, model: ModuleModel, reports: dict, callees: "KeyCallees") -> None:
        self.model = model
        self.reports = reports
        self.callees = callees
        self.reach = Reach(model)
        self.loop_pass = False
        self.depth = 0
        self.loops: list[ast.For | ast.AsyncFor | ast.While] = []  # the loops around the statement being walked

    # ------------------------------------------------------------------ statements
    def block(self, stmts: list[ast.stmt], state: State | None) -> State | None:
        """The state after ``stmts``, or None when every path leaves (return, raise, break)."""
        for s in stmts:
            if state is None:
                return None
            state = self.stmt(s, state)
        return state

    def stmt(self, s: ast.stmt, state: State) -> State | None:
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            forget(state, {s.name})
            return state
        if isinstance(s, (ast.Return, ast.Raise, ast.Break)):
            for child in children(s):
                self.expr(child, state)
            return None
        if isinstance(s, ast.If):
            self.expr(s.test, state)
            return self.merge(state, [s.body, s.orelse])
        if isinstance(s, (ast.For, ast.AsyncFor, ast.While)):
            return self.loop(s, state)
        if isinstance(s, (ast.With, ast.AsyncWith)):
            for item in s.items:
                self.expr(item.context_expr, state)
                if item.optional_vars is not None:
                    forget(state, set(target_names(item.optional_vars)))
            return self.block(s.body, state)
        if isinstance(s, ast.Try) or type(s).__name__ == "TryStar":
            after = self.merge(state, [s.body + s.orelse, *[h.body for h in s.handlers]])  # type: ignore[attr-defined]
            return self.block(s.finalbody, after) if after is not None else None  # type: ignore[attr-defined]
        if isinstance(s, ast.Match):
            self.expr(s.subject, state)
            return self.merge(state, [c.body for c in s.cases] + [[]])
        # simple statements: the right-hand side runs before the targets are bound
        for field in ("value", "test", "msg", "exc"):
            part = getattr(s, field, None)
            if isinstance(part, ast.AST):
                self.expr(part, state)
        if isinstance(s, ast.AugAssign):
            self.expr(s.target, state)
        targets = s.targets if isinstance(s, (ast.Assign, ast.Delete)) else (
            [s.target] if isinstance(s, (ast.AnnAssign, ast.AugAssign)) else [])
        for t in targets:
            forget(state, stored_paths(t))
        fields = {k for k in state if "." in k}
        if fields:
            changed = handed_over(s)
            for k in fields:
                if key_root(k) in changed and k in state and state[k][0] not in set(walk(s)):
                    del state[k]  # a method of the object may have stored a new key in the field
        return state

    def merge(self, state: State, branches: list[list[ast.stmt]]) -> State | None:
        """Run each branch from a copy of ``state``; a key stays consumed after them when
        some surviving branch consumed it and none left it freshly reassigned."""
        ends = []
        for b in branches:
            end = self.block(b, dict(state))
            if end is not None:
                ends.append((end, assigned_paths(b)))
        if not ends:
            return None
        return join(ends)

    def loop(self, s: ast.For | ast.AsyncFor | ast.While, state: State) -> State | None:
        header = s.iter if isinstance(s, (ast.For, ast.AsyncFor)) else s.test
        self.expr(header, state)
        start = dict(state)
        # two passes over the body: a key consumed in the first and again in the second is
        # consumed on every iteration (one pass in deeply nested loops, which would
        # otherwise cost 2**depth walks)
        current: State | None = dict(state)
        was = self.loop_pass
        self.depth += 1
        self.loops.append(s)
        for i in range(2 if self.depth <= 3 else 1):
            if current is None:
                break
            if isinstance(s, (ast.For, ast.AsyncFor)):
                forget(current, set(target_names(s.target)))
            self.loop_pass = i == 1
            current = self.block(s.body, current)
        self.loops.pop()
        self.loop_pass = was
        self.depth -= 1
        # the body may run zero times
        after = join([(start, set())] + ([(current, assigned_paths(s.body))] if current is not None else []))
        return self.block(s.orelse, after)

    # ------------------------------------------------------------------ expressions
    def expr(self, node: ast.AST, state: State) -> None:
        for call, comp in self._calls(node):
            func = call.func
            short = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
            q = (self.model.resolve_call(call) or "") if short in CONSUMERS else ""  # cheap test before resolving
            if q.startswith("jax.random.") and q[len("jax.random."):] in CONSUMERS:
                key = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "key"), None)
                fn_name = q
            else:
                # a call handing the key to a callee known to draw from it (an equinox
                # layer, a linen `init`, a same-module function or class that samples)
                handoff = self.callees.key_argument(call)
                if handoff is None:
                    continue
                key, fn_name = handoff
            text = key_text(key)
            if text is None or key is None or self.callees.fresh_per_read(key):
                continue  # (`gen.rng`: a generator's property that advances it gives a fresh key per read)
            if comp is not None and bound_in(comp, key_root(text)):
                continue  # a fresh key per element, e.g. `for k in keys`
            if comp is not None and self._aligned_elements(call, fn_name, comp):
                continue  # `[permutation(key, a) for a in arrays]`: one shuffle for every array, on purpose
            if comp is not None and builds_alternatives(self.model, call, comp):
                continue  # `{name: Model(make=fn, key=key) for name, fn in makers.items()}`: one seed per alternative
            if comp is not None:
                self._report(key, f"PRNG key `{text}` is consumed by `{fn_name}` for every element of the "
                                  f"comprehension at line {comp.lineno}: each element draws the same random "
                                  f"numbers; split it into one key per element", call, _sure(fn_name), SAME)
            elif text in state and not (fn_name == "jax.random.split" and not state[text][1].startswith("jax.random.")):
                # splitting after a hand-off (`model.init(key, x)` then `split(key)`) is
                # the common flax idiom and the split itself draws nothing: stay quiet
                first, first_name = state[text]
                if (id(call) in self.callees.imported and not draws(first_name)) or (
                        id(first) in self.callees.imported and not draws(fn_name)):
                    continue  # an unseen helper and a split or another helper: too unsure
                if first_name == fn_name and self._aligned(first, call, fn_name):
                    continue  # the same draw applied to other data on purpose: `choice(key, x)`, `choice(key, y)`
                if first_name == fn_name and complementary_slices(self.model, first, call):
                    continue  # `permutation(key, n)[:m]`, `permutation(key, n)[m:]`: one shuffle, split in two parts
                if not self._shared(first, call):
                    if not self.reach.read(first):
                        state[text] = (call, fn_name)  # the first use's numbers went nowhere: this one counts
                    continue  # `like = Model(key)` as a template, or splits whose read outputs differ
                if alternatives(self.model, first, call) or self.reach.alternatives(first, call):
                    continue  # `where(c, normal(key, s), uniform(key, s))`: only one draw survives, element by element
                if self.loop_pass and first is call:
                    msg = (f"PRNG key `{text}` is consumed by `{fn_name}` on every iteration of the loop without "
                           f"being reassigned: every iteration draws the same random numbers; split it in the loop "
                           f"(`{text}, sub = jax.random.split({text})`)")
                else:
                    msg = (f"PRNG key `{text}` was already consumed by `{first_name}` at line {first.lineno}; "
                           f"reusing it in `{fn_name}` gives the same (or correlated) random numbers; "
                           f"split the key first")
                self._report(key, msg, first, min(_sure(fn_name), _sure(first_name), key=lambda c: c.rank),
                             _kind(first_name, fn_name, self.loop_pass and first is call))
            state.setdefault(text, (call, fn_name))

    def _shared(self, first: ast.Call, call: ast.Call) -> bool:
        """Some number both uses of one key produce may be read: each use's result
        reaches a read (not only a template, an abstract evaluation or nothing), and two
        splits unpacked into names have an output index read after both (the same key
        split twice gives the same keys index by index), on a run that makes both."""
        if not (self.reach.read(first) and self.reach.read(call)):
            return False
        if first is call:
            return True
        a, b = self.reach.read_outputs(first), self.reach.read_outputs(call)
        return (a is None or b is None or bool(a & b)) and self.reach.read_with(first, call)

    def _aligned(self, first: ast.Call, call: ast.Call, fn_name: str) -> bool:
        """Whether two uses of one key by the same function differ only in the data they
        are applied to: ``choice(key, x, (n,))`` and ``choice(key, y, (n,))``, or a helper
        that crops each view with one key. The same key then draws the same indices or
        offsets for every array on purpose, so the arrays stay aligned; splitting it would
        break them. The same call in a loop counts when its data comes from the loop."""
        data = self._data_positions(call, fn_name)
        if not data:
            return False
        varying: set[str] = set()
        if first is call:
            if not self.loops:
                return False
            loop = self.loops[-1]
            varying = assigned_paths(loop.body) | (set(target_names(loop.target)) if isinstance(
                loop, (ast.For, ast.AsyncFor)) else set())
        a, b = arguments(first), arguments(call)
        if a.keys() != b.keys():
            return False
        differs = False
        for pos in a:
            if first is call:
                moves = any(isinstance(n, ast.Name) and n.id in varying for n in walk(a[pos]))
            else:
                moves = ast.dump(a[pos]) != ast.dump(b[pos])
            if moves:
                if pos not in data:
                    return False
                differs = True
        return differs

    def _aligned_elements(self, call: ast.Call, fn_name: str, comp: ast.AST) -> bool:
        """A comprehension applies one key to each element's data and nothing else varies
        (``[permutation(key, a) for a in arrays]``): the elements stay aligned, as for
        ``_aligned``."""
        data = self._data_positions(call, fn_name)
        if not data:
            return False
        bound = {name for g in comp.generators for name in target_names(g.target)}  # type: ignore[attr-defined]
        moving = {pos for pos, arg in arguments(call).items()
                  if any(isinstance(n, ast.Name) and n.id in bound for n in walk(arg))}
        return bool(moving) and moving <= data

    def _data_positions(self, call: ast.Call, fn_name: str) -> set[int | str]:
        """The argument positions (index or keyword) of ``call`` that hold the data a
        random draw is applied to, rather than a shape or a distribution parameter."""
        short = fn_name[len("jax.random."):] if fn_name.startswith("jax.random.") else None
        if short is not None:
            if short in ("choice", "permutation", "shuffle"):
                name = "a" if short == "choice" else "x"
                arg = call.args[1] if len(call.args) > 1 else next(
                    (k.value for k in call.keywords if k.arg == name), None)
                # `permutation(key, n)` with an int draws a fresh permutation: not data
                if arg is None or isinstance(arg, ast.Constant):
                    return set()
                return {1, name}
            return set()
        target, bound = self.model.callee(call.func, self.model.function_of(call), follow=False)
        if target is None or isinstance(target.node, ast.Lambda):
            return set()
        used = data_params(self.model, target)
        out: set[int | str] = set()
        for p in target.params:
            if p.name in used:
                if p.index is not None and p.index >= bound:
                    out.add(p.index - bound)
                out.add(p.name)
        return out

    def _report(self, node: ast.expr, msg: str, first: ast.Call, sure: Confidence, kind: str) -> None:
        self.reports.setdefault(id(node), (node, msg, first, sure, kind))

    @staticmethod
    def _calls(node: ast.AST) -> Iterator[tuple[ast.Call, ast.expr | None]]:
        """Calls in evaluation order (approximately: source order), with the innermost
        comprehension around each; nested functions and lambdas run later and are skipped."""
        found: list[tuple[ast.Call, ast.expr | None]] = []
        stack: list[tuple[ast.AST, ast.expr | None]] = [(node, None)]
        while stack:
            n, comp = stack.pop()
            if isinstance(n, _SCOPES):
                continue
            if isinstance(n, _COMPREHENSIONS):
                # the first iterable is evaluated once, outside the per-element loop
                first = n.generators[0]
                stack.append((first.iter, comp))
                stack.extend((c, n) for c in children(n) if c is not first)
                stack.extend((c, n) for c in [first.target, *first.ifs])
                continue
            if isinstance(n, ast.Call):
                found.append((n, comp))
            stack.extend((c, comp) for c in children(n))
        found.sort(key=lambda fc: (fc[0].lineno, fc[0].col_offset))
        return iter(found)
