from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from jaxlint.rule import Invalid, TraceRule, Valid

if TYPE_CHECKING:
    from jaxlint.dynamic.analysis import FunctionAnalysis, Site

#: primitives that draw random bits from a key (the jaxpr of every `jax.random` sampler
#: reaches one of them, on jax 0.4.38 and 0.10.2)
DRAWS = frozenset({"random_bits", "threefry2x32", "rng_bit_generator"})
#: calls that turn a seed into a key, as the user writes them
KEY_MAKERS = frozenset({"PRNGKey", "key"})


class ConstantRandomKey(TraceRule):
    """
    ## What it does
    Finds a random draw in traced code whose key is made from a constant seed inside
    the traced function (`jax.random.PRNGKey(0)`, `jax.random.key(SEED)`): in the
    jaxpr, a `random_seed` fed by a literal or a constant, and a `random_bits` draw
    whose key depends on no argument of the function. It is reported at the line that
    makes the key, with the draws as related locations.

    A key that mixes in an argument is fresh on every call and stays quiet:
    `jax.random.fold_in(jax.random.PRNGKey(0), step)`, `jax.random.PRNGKey(seed)` with
    `seed` an argument (static ones too: the seed then comes from the caller). Keys
    split in a `lax.scan` or `fori_loop` carry from a constant key are constant too.

    A fixed seed in a function the program calls once (`jax.random.key(0)` in an `init`,
    `nnx.Rngs(0)` in a `create_model`) is the documented way to make a model
    reproducible, not reuse: when `jaxlint record` saw the function called exactly once,
    its finding is dropped. So is a draw whose numbers reach no output of the traced
    program: an initial value evaluated on every trace and then discarded, as numpyro's
    `param(name, init_value=random.normal(random.key(0), ...))` inside `SVI.update` (the
    site takes its value from the optimizer state) or `params.get("w", init)` (XLA removes
    the draw). Without a recording (`check --dynamic` from `# jaxlint:
    args=` or a spec) the trace does not say how often it runs, and it is reported.

    ## Why is this bad?
    jax's random numbers are a pure function of the key. A key made from a constant
    inside a jitted function is a constant of the compiled program, so every call draws
    exactly the same numbers: the same dropout mask, the same noise, the same sample on
    every step. Nothing fails; the model trains or samples worse.

    ## Example
    ```python
    # jaxlint: args=(f32[16],)
    @jax.jit
    def noisy(x):
        key = jax.random.PRNGKey(0)
        return x + jax.random.normal(key, x.shape)
    ```

    ## Use instead
    Pass the key in, and split a fresh one for each call:
    ```python
    # jaxlint: args=(f32[16], u32[2])
    @jax.jit
    def noisy(x, key):
        return x + jax.random.normal(key, x.shape)
    ```

    ## Options

    ## References
    * [JAX: pseudorandom numbers](https://docs.jax.dev/en/latest/random-numbers.html)
    """

    code = "JAX211"
    group = "suspicious"
    name = "constant-random-key"
    summary = "a random draw in traced code uses a key made from a constant seed: every call draws the same numbers"
    fix_hint = "pass the key as an argument (split a new one for each call), or fold in an argument"
    repeated_calls_only = True  # a function called once draws once: its fixed seed is deliberate

    VALID = [
        Valid(
            """
            import jax

            @jax.jit  # jaxlint: args=(f32[16], i32[])
            def noisy(x, step):
                key = jax.random.fold_in(jax.random.PRNGKey(0), step)
                return x + jax.random.normal(key, x.shape)
            """
        ),
        Valid(
            """
            import functools
            import jax

            @functools.partial(jax.jit, static_argnums=1)  # jaxlint: args=(f32[16], 3)
            def noisy(x, seed):
                key = jax.random.PRNGKey(seed)
                return x + jax.random.normal(key, x.shape)
            """
        ),
        # an initial value the step discards (the parameter is there): no draw is made
        Valid(
            """
            import jax

            @jax.jit  # jaxlint: args=(f32[4], f32[4])
            def update(w, g):
                params = {"w": w}
                w = params.get("w", jax.random.normal(jax.random.PRNGKey(0), (4,)))
                return w - 0.1 * g
            """
        ),
    ]
    INVALID = [
        Invalid(
            """
            import jax

            @jax.jit  # jaxlint: args=(f32[16],)
            def noisy(x):
                key = jax.random.PRNGKey(0)
                return x + jax.random.normal(key, x.shape)
            """,
            line=5,
            message="made from the constant seed 0",
        ),
        Invalid(
            """
            import jax

            SEED = 42

            @jax.jit  # jaxlint: args=(f32[8, 4],)
            def dropout(x):
                def body(key, row):
                    key, sub = jax.random.split(key)
                    return key, row * jax.random.bernoulli(sub, 0.5, row.shape)
                return jax.lax.scan(body, jax.random.key(SEED), x)[1]
            """,
            line=10,
            message="every call of `dropout` draws the same numbers",
        ),
    ]

    def check(self, ctx: FunctionAnalysis) -> None:
        if ctx.jaxpr is None:
            return
        closed = ctx.jaxpr
        flow = _Flow(ctx)
        flow.run(closed.jaxpr, [None] * len(closed.jaxpr.invars), [_CONST] * len(closed.jaxpr.constvars), None)
        by_seed: dict[int, tuple[_Seed, list]] = {}
        for seed, draw in flow.draws:
            by_seed.setdefault(id(seed.eqn), (seed, []))[1].append(draw)
        for seed, draws in by_seed.values():
            if seed.site is None or _seed_from_parameter(ctx, seed.site):
                continue
            what = f"the constant seed {seed.value}" if seed.value is not None else "a constant seed"
            lines = sorted({(s.path, s.line): s for s in draws if s is not None}.values(), key=lambda s: s.line)
            ctx.report(seed.site,
                      f"random key made from {what} inside traced code: every call of `{ctx.qualname}` draws "
                      f"the same numbers ({len(draws)} draw{'s' if len(draws) != 1 else ''} from it); pass the "
                      f"key as an argument and split a new one for each call",
                      related=[s.related("drawn from that key") for s in lines[:5] if s.line != seed.site.line],
                      data={"seed": seed.value, "draws": len(draws), "draw_lines": [s.line for s in lines]})


# ---------------------------------------------------------------------------- constant flow
_CONST = "const"  # a value computed from constants only (no seed in it)


@dataclass(frozen=True)
class _Seed:
    """A key made by ``random_seed`` from constants: every value derived from it only."""

    eqn: Any
    site: Any
    value: Any


class _Flow:
    """Which values of a traced program depend on none of its arguments, followed into
    calls, conditionals and loops (a loop's carry is constant when its start and its update
    are); each value derived from a constant seed remembers the seed."""

    def __init__(self, ctx: FunctionAnalysis) -> None:
        self.ctx = ctx
        self.draws: list[tuple[_Seed, Any]] = []
        self.quiet = 0  # >0 while a loop body's carry is still being settled
        self._seen: set[tuple[int, int]] = set()

    def run(self, jaxpr, ins: list, consts: list, where, depth: int = 0, wanted: list[bool] | None = None) -> list:
        """The constant states of ``jaxpr``'s outputs; ``wanted``: which of its outputs its
        caller uses (all when None): a draw that reaches none of them is not counted."""
        from jaxlint.dynamic import adapter

        env: dict[int, Any] = {}
        for v, s in list(zip(jaxpr.constvars, consts)) + list(zip(jaxpr.invars, ins)):
            if s is not None:
                env[id(v)] = s

        def state(v):
            return _CONST if adapter.is_literal(v) else env.get(id(v))

        live, needed = _live(jaxpr, wanted)
        for eqn in jaxpr.eqns:
            st = [state(v) for v in eqn.invars]
            prim = adapter.primitive_name(eqn)
            constant = all(s is not None for s in st)
            subs = adapter.sub_jaxprs(eqn) if depth < 12 else []
            if subs:
                site = self.ctx.site(eqn) or where
                used = [id(v) in needed for v in eqn.outvars] if id(eqn) in live else [False] * len(eqn.outvars)
                outs = self._call(eqn, prim, st, subs, site, depth, used)
            elif not constant:
                outs = [None] * len(eqn.outvars)
            else:
                if prim == "random_seed":
                    seed = eqn.invars[0] if eqn.invars else None
                    origin: Any = _Seed(eqn, self.ctx.site(eqn) or where,
                                        _python_value(adapter.literal_value(seed)) if seed is not None
                                        and adapter.is_literal(seed) else None)
                else:
                    origin = next((s for s in st if isinstance(s, _Seed)), _CONST)
                if prim in DRAWS and isinstance(origin, _Seed) and not self.quiet and id(eqn) in live \
                        and (id(origin.eqn), id(eqn)) not in self._seen:
                    self._seen.add((id(origin.eqn), id(eqn)))
                    self.draws.append((origin, self.ctx.site(eqn) or where))
                outs = [origin] * len(eqn.outvars)
            for v, o in zip(eqn.outvars, outs):
                if o is not None:
                    env[id(v)] = o
        return [state(v) for v in jaxpr.outvars]

    def _call(self, eqn, prim: str, st: list, subs: list, where, depth: int, used: list[bool]) -> list:
        n_out = len(eqn.outvars)
        p = eqn.params
        if prim == "scan" and "jaxpr" in p:
            body = p["jaxpr"]
            nc, ncarry = int(p.get("num_consts", 0)), int(p.get("num_carry", 0))
            return self._loop(body.jaxpr, list(body.consts), st[:nc], st[nc:nc + ncarry], st[nc + ncarry:],
                              n_out, where, depth)
        if prim == "while" and "body_jaxpr" in p:
            body = p["body_jaxpr"]
            cn, bn = int(p.get("cond_nconsts", 0)), int(p.get("body_nconsts", 0))
            return self._loop(body.jaxpr, list(body.consts), st[cn:cn + bn], st[cn + bn:], [], n_out, where, depth)
        outs: list | None = None
        for sub, consts in subs:
            off = len(eqn.invars) - len(sub.invars)
            if off not in (0, 1) or len(sub.outvars) != n_out:
                self.quiet += 1  # operands do not map onto the body: nothing known inside
                self.run(sub, [None] * len(sub.invars), [_CONST] * len(consts), where, depth + 1)
                self.quiet -= 1
                outs = [None] * n_out
                continue
            res = self.run(sub, st[off:], [_CONST] * len(consts), where, depth + 1, used)
            if off == 1 and st[0] is None:  # a branch index from the arguments
                res = [None] * n_out
            outs = res if outs is None else [a if a is not None and b is not None else None for a, b in zip(outs, res)]
        return outs if outs is not None else [None] * n_out

    def _loop(self, body, consts: list, body_consts: list, carry: list, xs: list, n_out: int, where, depth: int) -> list:
        """A loop body's constant values: its carry starts as constant where its initial
        value is, and stays so where every iteration's update is constant too."""
        self.quiet += 1
        for _ in range(len(carry) + 1):
            outs = self.run(body, body_consts + carry + xs, [_CONST] * len(consts), where, depth + 1)
            settled = [c if c is not None and o is not None else None for c, o in zip(carry, outs)]
            if settled == carry:
                break
            carry = settled
        self.quiet -= 1
        outs = self.run(body, body_consts + carry + xs, [_CONST] * len(consts), where, depth + 1)
        return (outs + [None] * n_out)[:n_out]


def _live(jaxpr, wanted: list[bool] | None) -> tuple[set[int], set[int]]:
    """(ids of the equations of ``jaxpr``'s own level whose results reach its ``wanted``
    outputs or that have effects, ids of the variables they read): one level, backwards.
    A draw outside the first set makes numbers nothing uses: an initial value evaluated on
    every trace and discarded (numpyro's ``param(name, init_value=random.normal(PRNGKey(0),
    ...))`` inside ``SVI.update``, ``params.get(name, init)``), which XLA removes; its seed
    is not reuse."""
    from jaxlint.dynamic import adapter

    outs = jaxpr.outvars
    needed = {id(v) for v, w in zip(outs, wanted or [True] * len(outs)) if w and not adapter.is_literal(v)}
    live: set[int] = set()
    for eqn in reversed(jaxpr.eqns):
        if getattr(eqn, "effects", None) or any(id(v) in needed for v in eqn.outvars):
            live.add(id(eqn))
            needed.update(id(v) for v in eqn.invars if not adapter.is_literal(v))
    return live, needed


def _python_value(v: Any) -> Any:
    try:
        return v.item() if hasattr(v, "item") else v if isinstance(v, (int, float)) else None
    except Exception:
        return None


def _seed_from_parameter(ctx: FunctionAnalysis, site: Site) -> bool:
    """Whether the key-making call at ``site`` takes its seed from a parameter of the
    function it is written in (a static argument: the caller chooses the seed)."""
    from jaxlint.dynamic.analysis import _source

    tree = ctx.tree if ctx.is_checked_file(site.path) else _source(site.path)[1]
    if tree is None:
        return False
    fn = None
    for n in ast.walk(tree):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) \
                and n.lineno <= site.line <= (n.end_lineno or n.lineno):
            if fn is None or n.lineno >= fn.lineno:
                fn = n
    if fn is None:
        return False
    a = fn.args
    params = {x.arg for x in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg] if x is not None}
    for n in ast.walk(fn):
        if isinstance(n, ast.Call) and n.lineno <= site.line <= (n.end_lineno or n.lineno) and n.args \
                and (getattr(n.func, "attr", None) or getattr(n.func, "id", None)) in KEY_MAKERS:
            if any(isinstance(x, ast.Name) and x.id in params for x in ast.walk(n.args[0])):
                return True
    return False
