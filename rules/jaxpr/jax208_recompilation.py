from __future__ import annotations

import inspect

from jaxlint.rule import Invalid, TraceRule, Valid


class Recompilation(TraceRule):
    """
    ## What it does
    Reads the signatures recorded by `jaxlint record` and reports a jitted function
    that was called with several distinct abstract signatures, at the line where it is
    jitted. It says which argument changes between them and how: shape, dtype, weak
    type (a Python scalar vs an array), static value, or pytree structure, down to a
    model's parameter (`model.layers[0].weight`) or static field: what
    `jax_explain_cache_misses` would log, as a finding. Each change is one short
    clause per argument or leaf: "`state.step` changes from a Python int (traced as a
    weak-typed scalar) to i32[]".

    Records that differ only where jit sees no difference are one signature: a Python
    number among a pytree's leaves (`TrainState(step=0)`) is traced as a weak-typed
    scalar, the same as the weak `i32[]` array a jitted `step + 1` returns, so jit
    compiles once. Under `equinox.filter_jit` such numbers are static, and a new value
    is a new compile.

    Needs recorded signatures (`jaxlint record -- python train.py`); without them it
    stays quiet.

    ## Why is this bad?
    Each distinct signature is a separate trace and XLA compile. A batch size that
    varies on the last batch, a Python float passed where an array was passed
    before, or a static argument that takes many values makes a training loop
    recompile again and again.

    ## Example
    ```python
    for batch in loader:          # the last batch is smaller
        state = train_step(state, batch)
    ```

    ## Use instead
    ```python
    loader = DataLoader(..., drop_last=True)   # or pad the last batch
    ```

    ## Options

    ## References
    * [JAX: jit caching](https://docs.jax.dev/en/latest/jit-compilation.html)
    * [`jax_explain_cache_misses`](https://docs.jax.dev/en/latest/config_options.html)
    """

    code = "JAX208"
    name = "recompilation"
    summary = "a jitted function was called with several signatures, so it compiles several times"
    fix_hint = "keep shapes, dtypes and static arguments fixed across calls (pad, cast, or make it an array)"
    reads_signatures = True  # `jaxlint record` points to this rule

    VALID = [
        Valid(
            """
            import jax

            @jax.jit  # jaxlint: args=(f32[8],)
            def f(x):
                return x * 2
            """
        ),
        # the first call's `step` is the Python int 0, later calls get the weak int32[]
        # array `step + 1` returned: the same abstract value to jit, one compile
        Valid(
            """
            import jax

            @jax.jit
            def train_step(state):
                return state
            """,
            files={".jaxlint/signatures.json": """
                {"format": 1, "functions": {"{module}:train_step": {"file": "{module}.py", "line": 3, "signatures": [
                  {"args": [{"opaque": "flax.training.train_state.TrainState", "static": "5161",
                             "leaves": {".step": "i32[] weak", ".params['w']": "f32[4,2]"}}], "kwargs": {}, "calls": 9},
                  {"args": [{"opaque": "flax.training.train_state.TrainState", "static": "5161",
                             "leaves": {".step": {"value": 0}, ".params['w']": "f32[4,2]"}}], "kwargs": {}, "calls": 1}
                ]}}}
            """},
        ),
    ]
    INVALID = [
        Invalid(
            """
            import jax

            @jax.jit
            def f(x):
                return x * 2
            """,
            line=3,
            message="`x` changes shape (8,) -> (5,)",
            # `{module}` is the example's module name (the example harness fills it in)
            files={".jaxlint/signatures.json": """
                {"format": 1, "functions": {"{module}:f": {"file": "{module}.py", "line": 3, "signatures": [
                  {"args": [{"array": [8], "dtype": "float32", "weak": false}], "kwargs": {}, "calls": 9},
                  {"args": [{"array": [5], "dtype": "float32", "weak": false}], "kwargs": {}, "calls": 1}
                ]}}}
            """},
        ),
        Invalid(
            """
            import jax

            @jax.jit
            def train_step(state):
                return state
            """,
            line=3,
            message="`state.opt_state[1][0].count` changes shape (2,) -> (); "
                    "`state.step` changes from i32[] to a Python int (traced as a weak-typed scalar)",
            files={".jaxlint/signatures.json": """
                {"format": 1, "functions": {"{module}:train_step": {"file": "{module}.py", "line": 3, "signatures": [
                  {"args": [{"opaque": "flax.training.train_state.TrainState", "static": "5161",
                             "leaves": {".step": "i32[]", ".opt_state[1][0].count": "i32[2]"}}],
                   "kwargs": {}, "calls": 9},
                  {"args": [{"opaque": "flax.training.train_state.TrainState", "static": "5161",
                             "leaves": {".step": {"value": 0}, ".opt_state[1][0].count": "i32[]"}}],
                   "kwargs": {}, "calls": 1}
                ]}}}
            """},
        ),
    ]

    def check(self, fa) -> None:
        # imported here: the registry imports every rule on the static path, which
        # needs none of this
        from jaxlint.dynamic.signatures import diff_signatures, distinct

        # a Python number among a pytree's leaves is traced (as a weak-typed scalar) by
        # jax.jit and nnx.jit, but is a static value for equinox.filter_jit
        traced = (fa.entry or {}).get("kind") != "filter_jit"
        sigs = distinct(list(fa.signatures or ()), traced)
        if len(sigs) < 2:
            return  # what differs in the records is the same to jit: one compile
        names = _param_names(fa.function)
        changes: list[str] = []
        base = sigs[0]
        for other in sigs[1:]:
            for c in diff_signatures(base, other, names, traced):
                if c not in changes:
                    changes.append(c)
        calls = [s.get("calls", 0) for s in sigs]
        msg = (f"`{fa.qualname}` was traced and compiled for {len(sigs)} different signatures "
               f"(calls: {', '.join(map(str, calls))}): " + "; ".join(changes[:4] or ["the signatures differ"]))
        fa.report(fa.entry_site(), msg, data={"signatures": len(sigs), "calls": calls, "changes": changes[:10]})


def _param_names(fn) -> list[str]:
    if fn is None:
        return []
    try:
        return [p.name for p in inspect.signature(fn).parameters.values()]
    except (TypeError, ValueError):
        return []
