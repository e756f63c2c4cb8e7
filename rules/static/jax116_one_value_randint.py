from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from jaxlint.diagnostic import Severity
from jaxlint.rule import Invalid, StaticRule, Valid
from jaxlint.static.consts import static_value
from jaxlint.static.keys import one_value_draw, randint_bounds

if TYPE_CHECKING:
    from jaxlint.static.checker import StaticContext


class OneValueRandint(StaticRule):
    """
    ## What it does
    Finds `jax.random.randint(key, shape, minval, maxval)` calls whose range holds one
    value: both bounds static with `maxval - minval == 1` (`randint(key, (), 0, 1)`), or
    written `n` and `n + 1`.

    ## Why is this bad?
    `maxval` is exclusive, as in NumPy's `randint`: such a call returns `minval` whatever
    the key. Written as a coin flip (`randint(key, (), 0, 1)` meant as 0 or 1), the coin
    always lands the same way and the branch it selects never runs; nothing fails, the
    program silently never explores the other case. Seen in a multi-agent environment that
    chooses which side its coins spawn on this way: they always spawn on one side.

    ## Example
    ```python
    flip = jax.random.randint(key, (), 0, 1)  # always 0
    red = jnp.where(flip, RED_SPAWN, BLUE_SPAWN)
    ```

    ## Use instead
    ```python
    flip = jax.random.randint(key, (), 0, 2)  # 0 or 1
    # or: flip = jax.random.bernoulli(key)
    ```
    When one value is what is meant, write the value (`jnp.zeros((), jnp.int32)`).

    ## Options

    ## References
    * [jax.random.randint](https://docs.jax.dev/en/latest/_autosummary/jax.random.randint.html)
    """

    code = "JAX116"
    group = "nursery"
    name = "one-value-randint"
    summary = "a `jax.random.randint` whose range holds one value: `maxval` is exclusive, so it always returns `minval`"
    fix_hint = "widen the range (`maxval` is exclusive), or write the value itself"
    severity = Severity.WARNING

    VALID = [
        Valid(
            """
            import jax

            def coin(key):
                return jax.random.randint(key, (), 0, 2)
            """
        ),
        Valid(
            """
            import jax

            def pick(key, n):
                return jax.random.randint(key, (), 0, n)
            """
        ),
    ]
    INVALID = [
        Invalid(
            """
            import jax
            import jax.numpy as jnp

            def spawn(key, red, blue):
                flip = jax.random.randint(key, shape=(), minval=0, maxval=1)
                return jnp.where(flip, red, blue)
            """,
            line=5,
            message="always returns 0",
        ),
        Invalid(
            """
            from jax import random

            def start(key, n):
                return random.randint(key, (4,), n, n + 1)
            """,
            line=4,
            message="always returns `n`",
        ),
    ]

    def check(self, ctx: StaticContext) -> None:
        if "randint" not in ctx.source:
            return
        model = ctx.model
        for node in ast.walk(ctx.tree):
            if isinstance(node, ast.Call) and one_value_draw(model, node):
                low = randint_bounds(node)[0]
                assert low is not None  # one_value_draw read both bounds
                value = static_value(model, low)
                shown = str(value) if type(value) is int else f"`{ast.unparse(low)}`"
                ctx.report(node, f"`jax.random.randint` always returns {shown} here: `maxval` is exclusive, so "
                                 f"a range of `minval` to `minval + 1` holds one value and the key changes nothing "
                                 f"(a coin flip is `randint(key, shape, 0, 2)` or `jax.random.bernoulli(key)`)",
                           data={"minval": shown})
