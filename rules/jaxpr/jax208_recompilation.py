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


def distinct(sigs: list, traced: bool = True) -> list[dict]:
    """The signatures jit tells apart, most called first: records that differ only in
    ways jit does not see (a Python int leaf and a weak-typed int32[] array) are one,
    their calls added up."""
    out: list[dict] = []
    for s in sorted(sigs, key=lambda s: -s.get("calls", 0))[:64]:
        for i, o in enumerate(out):
            if not diff_signatures(o, s, [], traced):
                out[i] = dict(o, calls=o.get("calls", 0) + s.get("calls", 0))
                break
        else:
            out.append(dict(s))
    return sorted(out, key=lambda s: -s.get("calls", 0))


def _param_names(fn) -> list[str]:
    if fn is None:
        return []
    try:
        return [p.name for p in inspect.signature(fn).parameters.values()]
    except (TypeError, ValueError):
        return []


def diff_signatures(a: dict, b: dict, names: list[str], traced: bool = True) -> list[str]:
    """Human descriptions of how signature ``b`` differs from ``a``, one per changed
    argument or leaf. ``traced``: Python numbers among pytree leaves are traced (jit),
    not static (equinox.filter_jit)."""
    out: list[str] = []
    la, lb = a.get("args", []), b.get("args", [])
    for i in range(max(len(la), len(lb))):
        label = f"`{names[i]}`" if i < len(names) else f"argument {i}"
        if i >= len(la) or i >= len(lb):
            out.append(f"the number of positional arguments changes {len(la)} -> {len(lb)}")
            break
        _diff(la[i], lb[i], label, out, traced)
    ka, kb = a.get("kwargs", {}), b.get("kwargs", {})
    for k in sorted(set(ka) | set(kb)):
        if k not in ka or k not in kb:
            out.append(f"keyword `{k}` is {'added' if k in kb else 'dropped'}")
            continue
        _diff(ka[k], kb[k], f"`{k}`", out, traced)
    return out


_KINDS = ("array", "key", "opaque", "namedtuple", "tuple", "list", "dict", "value", "repr")


def _kind(n: dict) -> str:
    """The node's kind, whatever the order of its keys (the file sorts them)."""
    return next((k for k in _KINDS if k in n), next(iter(n), "?")) if isinstance(n, dict) else "?"


#: Python number type -> the numpy dtype kind jit gives it (weak-typed)
_NUMBER_KINDS = {int: "iu", float: "f", complex: "c"}


def _python_number(n: dict) -> type | None:
    """``int``/``float``/``complex`` for a recorded Python number (bool is not one:
    jit gives it a strong bool[])."""
    v = n.get("value") if _kind(n) == "value" else None
    return type(v) if type(v) in _NUMBER_KINDS else None


def _weak_scalar_of(number: type, n: dict) -> bool:
    """Whether the array node ``n`` is what jit makes of a Python ``number``: a scalar of
    that kind, weakly typed (int32 or int64, as x64 decides)."""
    import numpy as np

    if _kind(n) != "array" or list(n["array"]) or not n.get("weak"):
        return False
    try:
        return np.dtype(n["dtype"]).kind in _NUMBER_KINDS[number]
    except TypeError:
        return False


def _diff(x: dict, y: dict, label: str, out: list[str], traced: bool = True, leaf: bool = False) -> None:
    kx, ky = _kind(x), _kind(y)
    if leaf and traced and kx != ky and {kx, ky} == {"value", "array"}:
        # a Python number leaf of a pytree: jit traces it as a weak-typed scalar
        number, arr = (_python_number(x), y) if kx == "value" else (_python_number(y), x)
        if number is not None:
            if not _weak_scalar_of(number, arr):
                out.append(f"{label} changes from {_show(x, traced, leaf)} to {_show(y, traced, leaf)}")
            return
    if kx != ky:
        out.append(f"{label} changes pytree structure ({_show(x, traced, leaf)} -> {_show(y, traced, leaf)})")
        return
    if kx == "array":
        if x["dtype"] != y["dtype"]:
            out.append(f"{label} changes dtype {x['dtype']} -> {y['dtype']}")
        if list(x["array"]) != list(y["array"]):
            out.append(f"{label} changes shape {tuple(x['array'])} -> {tuple(y['array'])}")
        if bool(x.get("weak")) != bool(y.get("weak")):
            out.append(f"{label} changes weak type ({'a Python scalar' if x.get('weak') else 'an array'} -> "
                       f"{'a Python scalar' if y.get('weak') else 'an array'})")
        return
    if kx in ("value", "repr"):
        if leaf and traced and _python_number(x) and _python_number(y):
            # traced Python numbers: only their type matters to jit, never their value
            if _python_number(x) is not _python_number(y):
                out.append(f"{label} changes from a Python {_python_number(x).__name__} to a Python "
                           f"{_python_number(y).__name__}")
            return
        if x[kx] != y[kx]:
            out.append(f"{label} (static) changes value {x[kx]!r} -> {y[kx]!r}")
        return
    if kx in ("tuple", "list"):
        if len(x[kx]) != len(y[kx]):
            out.append(f"{label} changes pytree structure (a {kx} of {len(x[kx])} -> {len(y[kx])})")
            return
        for i, (p, q) in enumerate(zip(x[kx], y[kx])):
            _diff(p, q, _sub(label, f"[{i}]"), out, traced, leaf)
        return
    if kx == "dict":
        if set(x["dict"]) != set(y["dict"]):
            out.append(f"{label} changes pytree structure (keys {sorted(x['dict'])} -> {sorted(y['dict'])})")
            return
        for k in sorted(x["dict"]):
            _diff(x["dict"][k], y["dict"][k], _sub(label, f"[{k!r}]"), out, traced, leaf)
        return
    if kx == "key":
        if list(x["key"]) != list(y["key"]) or x.get("impl") != y.get("impl"):
            out.append(f"{label} (PRNG key array) changes ({_show(x)} -> {_show(y)})")
        return
    if kx == "opaque":
        _diff_opaque(x, y, label, out, traced)
        return
    if kx == "namedtuple":
        if x["namedtuple"] != y["namedtuple"]:
            out.append(f"{label} changes type {x['namedtuple']} -> {y['namedtuple']}")
            return
        for k in x["fields"]:
            if k in y["fields"]:
                _diff(x["fields"][k], y["fields"][k], _sub(label, f".{k}"), out, traced, leaf)
        return
    if x != y:
        out.append(f"{label} changes ({_show(x)} -> {_show(y)})")


def _sub(label: str, path: str) -> str:
    """`x` + [0] -> `x[0]` (a part of an argument, named as code)."""
    return f"{label[:-1]}{path}`" if label.endswith("`") else f"{label}{path}"


def _diff_opaque(x: dict, y: dict, label: str, out: list[str], traced: bool) -> None:
    """A model or optimizer state, recorded as its type, its leaves by path
    (``.layers[0].weight``) and a digest of its static part."""
    if x["opaque"] != y["opaque"]:
        out.append(f"{label} changes type {x['opaque']} -> {y['opaque']}")
        return
    lx, ly = _leaf_paths(x), _leaf_paths(y)
    if set(lx) != set(ly):
        gone, new = sorted(set(lx) - set(ly)), sorted(set(ly) - set(lx))
        what = "; ".join(p for p in (f"without {', '.join(gone[:3])}" if gone else "",
                                     f"with {', '.join(new[:3])}" if new else "") if p)
        out.append(f"{label} changes pytree structure ({what})")
    else:
        before = len(out)
        for path in sorted(lx):
            _diff(lx[path], ly[path], _sub(label, "" if path == "." else path), out, traced, leaf=True)
            if len(out) - before >= 3:
                break
    if x.get("static") != y.get("static") and set(lx) == set(ly):
        out.append(f"{label} changes a static (non-array) field: jit compares those by value")


def _leaf_paths(n: dict) -> dict:
    """Leaves by path; records of earlier jaxlint versions list them without paths."""
    leaves = n.get("leaves") or {}
    if isinstance(leaves, list):
        return {f"<leaf {i}>": v for i, v in enumerate(leaves)}
    return leaves if isinstance(leaves, dict) else {}


def _show(n: dict, traced: bool = True, leaf: bool = False) -> str:
    """A node as a reader writes it: ``f32[8,4]``, ``i32[] weak``, ``a tuple of 2``."""
    from jaxlint.dynamic.signatures import encode

    if not isinstance(n, dict):
        return repr(n)[:40]
    k = _kind(n)
    if k in ("array", "key"):
        return encode(n)
    number = _python_number(n)
    if number is not None:
        if leaf and traced:
            return f"a Python {number.__name__} (traced as a weak-typed scalar)"
        return f"the Python {number.__name__} {n['value']!r}"
    if k in ("tuple", "list"):
        return f"a {k} of {len(n[k])}"
    if k == "dict":
        return f"a dict with keys {sorted(n['dict'])}"
    if k == "value":
        return repr(n["value"])[:40]
    if k in ("opaque", "namedtuple"):
        return f"a `{str(n[k]).replace(':', '.').rsplit('.', 1)[-1]}`"
    return str(n.get(k))[:40]
