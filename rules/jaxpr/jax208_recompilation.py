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
    `jax_explain_cache_misses` would log, as a finding.

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
    ]

    def check(self, fa) -> None:
        sigs = list(fa.signatures or ())
        if len(sigs) < 2:
            return
        names = _param_names(fa.function)
        changes: list[str] = []
        base = sigs[0]
        for other in sigs[1:]:
            for c in diff_signatures(base, other, names):
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


def diff_signatures(a: dict, b: dict, names: list[str]) -> list[str]:
    """Human descriptions of how signature ``b`` differs from ``a``."""
    out: list[str] = []
    la, lb = a.get("args", []), b.get("args", [])
    for i in range(max(len(la), len(lb))):
        label = f"`{names[i]}`" if i < len(names) else f"argument {i}"
        if i >= len(la) or i >= len(lb):
            out.append(f"the number of positional arguments changes {len(la)} -> {len(lb)}")
            break
        _diff(la[i], lb[i], label, out)
    ka, kb = a.get("kwargs", {}), b.get("kwargs", {})
    for k in sorted(set(ka) | set(kb)):
        if k not in ka or k not in kb:
            out.append(f"keyword `{k}` is {'added' if k in kb else 'dropped'}")
            continue
        _diff(ka[k], kb[k], f"`{k}`", out)
    return out


_KINDS = ("array", "key", "opaque", "namedtuple", "tuple", "list", "dict", "value", "repr")


def _kind(n: dict) -> str:
    """The node's kind, whatever the order of its keys (the file sorts them)."""
    return next((k for k in _KINDS if k in n), next(iter(n), "?")) if isinstance(n, dict) else "?"


def _diff(x: dict, y: dict, label: str, out: list[str]) -> None:
    kx, ky = _kind(x), _kind(y)
    if kx != ky:
        out.append(f"{label} changes pytree structure ({_short(x)} -> {_short(y)})")
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
        if x[kx] != y[kx]:
            out.append(f"{label} (static) changes value {x[kx]!r} -> {y[kx]!r}")
        return
    if kx in ("tuple", "list"):
        if len(x[kx]) != len(y[kx]):
            out.append(f"{label} changes pytree structure (a {kx} of {len(x[kx])} -> {len(y[kx])})")
            return
        for i, (p, q) in enumerate(zip(x[kx], y[kx])):
            _diff(p, q, _sub(label, f"[{i}]"), out)
        return
    if kx == "dict":
        if set(x["dict"]) != set(y["dict"]):
            out.append(f"{label} changes pytree structure (keys {sorted(x['dict'])} -> {sorted(y['dict'])})")
            return
        for k in sorted(x["dict"]):
            _diff(x["dict"][k], y["dict"][k], _sub(label, f"[{k!r}]"), out)
        return
    if kx == "key":
        if list(x["key"]) != list(y["key"]) or x.get("impl") != y.get("impl"):
            out.append(f"{label} (PRNG key array) changes ({_short(x)} -> {_short(y)})")
        return
    if kx == "opaque":
        _diff_opaque(x, y, label, out)
        return
    if kx == "namedtuple":
        if x["namedtuple"] != y["namedtuple"]:
            out.append(f"{label} changes type {x['namedtuple']} -> {y['namedtuple']}")
            return
        for k in x["fields"]:
            if k in y["fields"]:
                _diff(x["fields"][k], y["fields"][k], _sub(label, f".{k}"), out)
        return
    if x != y:
        out.append(f"{label} changes ({_short(x)} -> {_short(y)})")


def _sub(label: str, path: str) -> str:
    """`x` + [0] -> `x[0]` (a part of an argument, named as code)."""
    return f"{label[:-1]}{path}`" if label.endswith("`") else f"{label}{path}"


def _diff_opaque(x: dict, y: dict, label: str, out: list[str]) -> None:
    """A model or optimizer state, recorded as its type, its array leaves by path
    (``.layers[0].weight``) and a digest of its static part."""
    if x["opaque"] != y["opaque"]:
        out.append(f"{label} changes type {x['opaque']} -> {y['opaque']}")
        return
    lx, ly = x.get("leaves") or {}, y.get("leaves") or {}
    if set(lx) != set(ly):
        gone, new = sorted(set(lx) - set(ly)), sorted(set(ly) - set(lx))
        what = "; ".join(p for p in (f"without {', '.join(gone[:3])}" if gone else "",
                                     f"with {', '.join(new[:3])}" if new else "") if p)
        out.append(f"{label} changes pytree structure ({what})")
    else:
        before = len(out)
        for path in sorted(lx):
            _diff(lx[path], ly[path], _sub(label, path), out)
            if len(out) - before >= 3:
                break
    if x.get("static") != y.get("static") and set(lx) == set(ly):
        out.append(f"{label} changes a static (non-array) field: jit compares those by value")


def _short(n: dict) -> str:
    k = _kind(n)
    if k == "array":
        return f"{n['dtype']}{list(n['array'])}"
    if k in ("tuple", "list"):
        return f"{k} of {len(n[k])}"
    if k == "dict":
        return f"dict with keys {sorted(n['dict'])}"
    if k == "value":
        return repr(n["value"])
    if k == "key":
        return f"key<{n.get('impl')}>{list(n['key'])}"
    return str(n.get(k))[:40]
