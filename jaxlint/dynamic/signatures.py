"""``.jaxlint/signatures.json``: recorded abstract signatures of jitted functions.

The file is meant to be committed and reviewed, so it is stable: keys sorted, one
entry per function keyed ``"module:qualname"`` (lambdas ``<lambda>@LINE``, methods
``Class.method``, nested functions ``outer.<locals>.inner``, exactly as the static jit
map names them), signatures sorted, two-space indentation. Never imports jax.

A signature whose arguments JSON cannot rebuild (a model, an optimizer state) names
a pickle of its arguments saved abstractly, ``"pickle": "<sha256>"``, stored beside
the file in ``<name>.pickles/<sha256>.pickle`` (:func:`pickle_dir`); the hash pins
the content, and a pickle that does not match it is not used.
"""
from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any, Sequence, TypedDict

from jaxlint.files.cache import atomic_write, replace_file
from jaxlint.config.inputspec import DTYPES

FORMAT = 1


class Call(TypedDict):
    """A user line that called a jitted function (paths relative to the root once written)."""

    file: str
    line: int
    column: int


class Signature(TypedDict, total=False):
    """One recorded signature of a jitted function: an entry of a function's
    ``signatures`` in this file and in the observations (array nodes in their long form
    once loaded, :func:`decode`), as the recorder notes it and the analysis object holds
    it (``FunctionAnalysis.signatures``). ``args`` and ``kwargs`` are always there; the
    rest only where it applies."""

    #: a node per positional argument (``{"array": dims, "dtype", "weak"}``, ``{"value": v}``,
    #: ``{"opaque": type, "leaves", "static"}``, ``{"tuple": [...]}`` ...) and per keyword
    args: list[dict[str, Any]]
    kwargs: dict[str, dict[str, Any]]
    #: how many calls had it
    calls: int
    #: the instance of a jitted bound method (``{"opaque", "instance"}``), or the transform
    #: jit wraps (``{"transform", "line"}``)
    bound: dict[str, Any]
    #: the mesh the call ran under (``with mesh:``, ``jax.set_mesh``)
    mesh: dict[str, Any]
    #: the eager transform (``vmap``, ``grad``) the call ran under outside any jit
    under: str
    #: the call ran inside another function's trace (inlined there)
    inlined: bool
    #: sha256 of the call's arguments saved abstractly, or why they could not be saved
    pickle: str
    unsaved: str
    #: what the program's analysis adds (the observations): how many compiles jax made for
    #: it, the order of first calls, how many jitted function objects compiled it and
    #: which called it, the user lines of its first call and of a compile again
    compiles: int
    seq: int
    wrappers: int
    jit_ids: list[int]
    #: every one of those objects a jit of the function itself (not of a factory's closure)
    same_function: bool
    #: jitted function objects that called it, each made after the ones before (a
    #: ``jax.jit(f)`` made again), and the seconds making them and their first calls of
    #: it took, the first object's (which compiled) left out
    jit_objects: int
    fresh_seconds: float
    first_call: Call
    again_at: Call
    #: the leaves of the arguments its traced program never reads (``[position or keyword,
    #: path]``: jax drops them from what it compiles) and a digest of that program without
    #: them; only where some are unread
    unread: list[list]
    program: str
    #: the leaves of its first call's arguments that the previous new signature's first call
    #: returned (``[position or keyword, path, {"seq": that signature's, "out": the output's
    #: flat index, "made": the project line that made it}]``): a state passed back
    fed: list[list]


#: numpy dtype name -> the directive spelling (the inverse of the directive parser's table)
_SHORT = {long: short for short, long in DTYPES.items() if short not in (long, "b1")}


def encode(node: Any) -> Any:
    """Array nodes as compact strings (``"f32[8,128]"``, ``"f32[] weak"``) so the file
    reads like the directive syntax; everything else unchanged."""
    if isinstance(node, dict):
        if "array" in node and "dtype" in node and "sharding" not in node and "ref" not in node:
            dims = ",".join(str(d) for d in node["array"])
            return f"{_SHORT.get(node['dtype'], node['dtype'])}[{dims}]" + (" weak" if node.get("weak") else "")
        if "key" in node and "impl" in node:
            return f"key<{node['impl']}>[{','.join(str(d) for d in node['key'])}]"
        return {k: encode(v) for k, v in node.items()}
    if isinstance(node, list):
        return [encode(v) for v in node]
    return node


_KEY = re.compile(r"key<(\w+)>\[([0-9,]*)\]")
#: keys whose values are never array specs
_VERBATIM = frozenset({"value", "repr", "opaque", "treedef", "namedtuple", "static", "pickle", "unsaved", "calls",
                       "compiles", "first_call", "inlined", "bound", "again_at", "wrappers", "jit_ids", "jit_objects", "fresh_seconds", "seq",
                       "sharding", "mesh", "under", "unread", "program", "objects", "class", "fed"})


def decode(node: Any) -> Any:
    """The inverse of :func:`encode` (inside ``{"value": ...}`` nothing is touched)."""
    if isinstance(node, str):
        from jaxlint.config.inputspec import parse_spec_expr

        key = _KEY.fullmatch(node)
        if key:
            return {"key": [int(d) for d in key.group(2).split(",") if d], "impl": key.group(1)}

        text, weak = (node[:-5], True) if node.endswith(" weak") else (node, False)
        arr = parse_spec_expr(text)
        arr["weak"] = weak
        return arr
    if isinstance(node, dict):
        if "array" in node:  # already the long form
            return node
        return {k: (v if k in _VERBATIM else decode(v)) for k, v in node.items()}
    if isinstance(node, list):
        return [decode(v) for v in node]
    return node


def load(path: Path) -> dict[str, dict]:
    """function key -> entry; an empty dict when the file does not exist. A file that is
    not a signatures file, or whose entries have the wrong shape, is a ``ConfigError``
    naming the file and the key."""
    from jaxlint.config.errors import ConfigError, named, shown

    from jaxlint.files import untrusted

    try:
        data = untrusted.read_json(path, "recorded signatures")
    except FileNotFoundError:
        return {}
    untrusted.same_format(path, data, FORMAT, "recorded signatures", "record again with `jaxlint record --replace`")
    if not isinstance(data, dict) or not isinstance(data.get("functions"), dict):
        raise ConfigError(f"{path}: not a jaxlint signatures file (no `functions` table)")
    out = {}
    for key, e in data["functions"].items():
        where = f"{path}: `functions.\"{named(key)}\"`"
        if not isinstance(e, dict):
            raise ConfigError(f"{where} must be an object with a `signatures` list, got {shown(e)}")
        e = dict(e)
        if not isinstance(e.get("signatures", []), list):
            raise ConfigError(f"{where}: `signatures` must be a list, got {shown(e['signatures'])}")
        sigs = []
        for i, s in enumerate(e.get("signatures", [])):
            bad = _bad_signature(s)
            if bad:
                raise ConfigError(f"{where}: `signatures[{i}]` {bad}")
            try:
                sigs.append(dict(decode({k: v for k, v in s.items() if k != "calls"}), calls=s.get("calls", 0)))
            except (ValueError, RecursionError) as err:  # one bad signature skips its function, not the run
                sigs.append({"args": [], "kwargs": {}, "calls": s.get("calls", 0),
                             "unsaved": f"a signature in {path.name} cannot be read ({err})"})
        e["signatures"] = sigs
        reused = e.get("reused")  # none in recordings before it was kept: unknown
        if reused is not None and not reused_ok(reused):
            raise ConfigError(f"{where}: `reused` must map argument names to true or false, got {shown(reused)}")
        out[key] = e
    return out


def reused_ok(reused: Any) -> bool:
    """Whether a recording's ``reused`` has its shape: {argument name: true/false}."""
    return isinstance(reused, dict) and all(isinstance(k, str) and isinstance(v, bool) for k, v in reused.items())


def _bad_signature(s: Any) -> str | None:
    """What is wrong with the shape of one recorded signature (None: nothing)."""
    from jaxlint.config.errors import shown

    if not isinstance(s, dict):
        return f"must be an object with `args` and `kwargs`, got {shown(s)}"
    calls = s.get("calls", 0)
    for field, want, ok in (("args", "a list", isinstance(s.get("args", []), list)),
                            ("kwargs", "an object", isinstance(s.get("kwargs", {}), dict)),
                            ("calls", "a count", isinstance(calls, int) and not isinstance(calls, bool) and calls >= 0),
                            ("pickle", "a string", isinstance(s.get("pickle", ""), str))):
        if not ok:
            return f"`{field}` must be {want}, got {shown(s[field])}"
    return None


def static_positions(meta: dict, nargs: int) -> set[int]:
    """The positions of a call's static arguments, for a call with ``nargs`` positional
    arguments: a negative ``static_argnums`` counts from the end of them, as jit does."""
    out = set(meta.get("static_nums") or ())
    given = meta.get("static_given")
    if given:
        out |= {int(i) + nargs for i in given[0] if -nargs <= int(i) < 0}
    return out


def jit_static_argnums(meta: dict) -> list[int]:
    """The ``static_argnums`` to jit the function with again: the negative ones as given
    (jit resolves them against each call's arguments)."""
    given = meta.get("static_given")
    return sorted(set(meta.get("static_nums") or ()) | {int(i) for i in (given[0] if given else ()) if int(i) < 0})


def canonical(sig: dict) -> str:
    """Identity of a signature: everything but the call count."""
    return json.dumps({k: v for k, v in sig.items() if k != "calls"}, sort_keys=True)


def merge(entries: list[dict[str, dict]]) -> dict[str, dict]:
    """Merge per-process records: same function + same signature adds call counts."""
    out: dict[str, dict] = {}
    for part in entries:
        for key, e in part.items():
            cur = out.setdefault(key, {k: v for k, v in e.items() if k != "signatures"} | {"signatures": []})
            by = {canonical(s): s for s in cur["signatures"]}
            for s in e.get("signatures", []):
                c = canonical(s)
                if c in by:
                    by[c]["calls"] = by[c].get("calls", 0) + s.get("calls", 0)
                else:
                    s = dict(s)
                    by[c] = s
                    cur["signatures"].append(s)
    for e in out.values():
        # calls inside another function's trace (inlined there) after the real ones
        e["signatures"].sort(key=lambda s: (bool(s.get("inlined")), -s.get("calls", 0), canonical(s)))
    return out


def dump(path: Path, functions: dict[str, dict], meta: dict[str, Any]) -> None:
    data = {"format": FORMAT, **meta, "functions": {
        k: dict(functions[k], signatures=[encode(s) for s in functions[k].get("signatures", [])])
        for k in sorted(functions)}}
    text = json.dumps(data, indent=2, sort_keys=True) + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    # a file to commit: the umask's mode, not mkstemp's 0600; a symlinked one stays a link
    replace_file(path, text.encode("utf-8"))


def pickle_dir(path: Path) -> Path:
    """Where the pickled arguments of the signatures file ``path`` live."""
    return path.with_name(path.stem + ".pickles")


def read_pickle(path: Path, sha: str) -> bytes:
    """The pickle a signature names, checked against its hash; ``ValueError`` says why
    it cannot be used."""
    if not all(c in "0123456789abcdef" for c in sha) or len(sha) != 64:
        raise ValueError(f"`{sha[:20]}` is not a sha256 digest")
    from jaxlint.files import untrusted
    from jaxlint.config.errors import ConfigError

    f = pickle_dir(path) / f"{sha}.pickle"
    try:
        data = untrusted.read_bytes(f, "saved arguments")
    except OSError:
        raise ValueError(f"its saved arguments {f.name} are missing from {pickle_dir(path).name}/: "
                         "run `jaxlint record` again") from None
    except ConfigError as e:
        raise ValueError(str(e)) from None
    if hashlib.sha256(data).hexdigest() != sha:
        raise ValueError(f"{f.name} does not match its hash (edited or damaged): run `jaxlint record` again")
    return data


def write_pickles(path: Path, functions: dict[str, dict], found: dict[str, Path], remove: bool = True) -> None:
    """Copy the pickles the signatures name into :func:`pickle_dir` (each written to a
    new file and renamed into place) and, with ``remove``, remove the ones no signature
    names any more (only once the signatures file that names the new ones is written)."""
    wanted = {s["pickle"] for e in functions.values() for s in e.get("signatures", []) if s.get("pickle")}
    folder = pickle_dir(path)
    if wanted and found:
        folder.mkdir(parents=True, exist_ok=True)
    for sha in sorted(wanted):
        dest = folder / f"{sha}.pickle"
        if sha in found and not dest.exists():
            atomic_write(dest, found[sha].read_bytes())
    if remove and folder.is_dir():
        for f in folder.glob("*.pickle"):
            if f.stem not in wanted:
                f.unlink()
        if not any(folder.iterdir()):
            folder.rmdir()


def best(entry: dict) -> dict | None:
    """The signature to trace: the most called one that can be rebuilt."""
    for s in entry.get("signatures", []):
        if rebuildable(s) is None:
            return s
    return None


def _dict_class(n: dict) -> str:
    return f"a `{str(n['class']).rsplit(':', 1)[-1]}`" if n.get("class") else "a dict"


def rebuildable(sig: Signature) -> str | None:
    """None when every argument can be rebuilt (from the JSON, or from the pickle of
    the arguments the signature names), else why not."""
    if sig.get("pickle"):
        return None
    if sig.get("unsaved"):
        return sig["unsaved"]

    def visit(n: Any) -> str | None:
        if isinstance(n, dict):
            if "opaque" in n:
                return f"an argument of type `{n['opaque']}` cannot be rebuilt from the record"
            if n.get("ref"):
                return "a `jax.ref` argument is rebuilt from the saved arguments alone"
            if "class" in n:
                return f"a `{n['class']}` argument is rebuilt from the saved arguments alone"
            if "repr" in n:
                return f"an argument recorded as `{n['repr'][:40]}` cannot be rebuilt"
            for v in n.values():
                r = visit(v)
                if r:
                    return r
        elif isinstance(n, list):
            for v in n:
                r = visit(v)
                if r:
                    return r
        return None

    return visit(sig.get("args")) or visit(sig.get("kwargs"))


# ---------------------------------------------------------------------------- what jit tells apart
class Change(str):
    """One difference between two signatures: its text for a reader, and its ``kind``
    (``shape``, ``dtype``, ``weak``, ``static`` for a declared static argument,
    ``static-leaf`` for a value the transform keeps static unasked, ``static-array`` for
    a Python number kept static in one call and an array in the other, ``structure``,
    ``object`` for a static field holding a new object that compares by identity)
    with the values before and after where they matter (shapes, static values)."""

    kind: str
    before: Any
    after: Any

    def __new__(cls, text: str, kind: str, before: Any = None, after: Any = None) -> "Change":
        self = str.__new__(cls, text)
        self.kind, self.before, self.after = kind, before, after
        return self


# Shared by the recompilation rule (which says how signatures differ) and `jaxlint
# record` (which counts the functions that have several): one notion of "distinct".

def distinct(sigs: Sequence[Signature], traced: bool = True) -> list[Signature]:
    """The signatures jit tells apart, most called first: records that differ only in
    ways jit does not see (a Python int leaf and a weak-typed int32[] array) are one,
    their calls added up."""
    out: list[Signature] = []
    # only records alike but for their scalars can be one: compared within those buckets,
    # so a thousand recorded shapes cost a thousand lookups, all of them counted
    buckets: dict[str, list[int]] = {}
    for s in sorted(sigs, key=lambda s: -s.get("calls", 0)):
        bucket = buckets.setdefault(json.dumps(_coarse([s.get("args", []), s.get("kwargs", {})]),
                                               sort_keys=True, default=str), [])
        for i in bucket:
            o = out[i]
            if not diff_signatures(o, s, [], traced):
                out[i] = {**o, "calls": o.get("calls", 0) + s.get("calls", 0)}
                if "compiles" in o or "compiles" in s:
                    out[i]["compiles"] = o.get("compiles", 0) + s.get("compiles", 0)
                break
        else:
            bucket.append(len(out))
            out.append({**s})
    return sorted(out, key=lambda s: -s.get("calls", 0))


def _coarse(n: Any) -> Any:
    """A signature with every scalar (a Python number, a weak scalar array) made alike:
    records that jit cannot tell apart are alike here too."""
    if isinstance(n, dict):
        if _python_number(n) is not None or (_kind(n) == "array" and not list(n["array"]) and n.get("weak")):
            return "scalar"
        return {k: _coarse(v) for k, v in n.items()}
    if isinstance(n, list):
        return [_coarse(v) for v in n]
    return n


def diff_signatures(a: Signature, b: Signature, names: list[str], traced: bool = True) -> list[Change]:
    """Human descriptions of how signature ``b`` differs from ``a``, one per changed
    argument or leaf. ``traced``: Python numbers among pytree leaves are traced (jit),
    not static (equinox.filter_jit)."""
    out: list[Change] = []
    la, lb = a.get("args", []), b.get("args", [])
    for i in range(max(len(la), len(lb))):
        label = f"`{names[i]}`" if i < len(names) else f"argument {i}"
        if i >= len(la) or i >= len(lb):
            out.append(Change(f"the number of positional arguments changes {len(la)} -> {len(lb)}", "structure"))
            break
        _diff(la[i], lb[i], label, out, traced)
    ka, kb = a.get("kwargs", {}), b.get("kwargs", {})
    for k in sorted(set(ka) | set(kb)):
        if k not in ka or k not in kb:
            out.append(Change(f"keyword `{k}` is {'added' if k in kb else 'dropped'}", "structure"))
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


def _diff(x: dict, y: dict, label: str, out: list[Change], traced: bool = True, leaf: bool = False) -> None:
    kx, ky = _kind(x), _kind(y)
    if leaf and traced and kx != ky and {kx, ky} == {"value", "array"}:
        # a Python number leaf of a pytree: jit traces it as a weak-typed scalar
        number, arr = (_python_number(x), y) if kx == "value" else (_python_number(y), x)
        if number is not None:
            if not _weak_scalar_of(number, arr):
                out.append(Change(f"{label} changes from {_show(x, traced, leaf)} to {_show(y, traced, leaf)}", "weak"))
            return
    if kx != ky and {kx, ky} == {"value", "array"} and not (leaf and traced) \
            and (_python_number(x) or _python_number(y)) is not None:
        # a Python number kept static (a declared static argument, or a number the transform
        # keeps static: equinox.filter_jit) in one call and an array in the other (a step
        # counter `step = 0` that the step returns as an array): a program for each
        out.append(Change(f"{label} changes from {_show(x, traced, leaf)}{' (static)' if kx == 'value' else ''} to "
                          f"{_show(y, traced, leaf)}{' (static)' if ky == 'value' else ''}", "static-array", x, y))
        return
    if kx != ky:
        out.append(Change(f"{label} changes pytree structure ({_show(x, traced, leaf)} -> {_show(y, traced, leaf)})",
                          "structure"))
        return
    if kx == "array":
        if x["dtype"] != y["dtype"]:
            out.append(Change(f"{label} changes dtype {x['dtype']} -> {y['dtype']}", "dtype"))
        if list(x["array"]) != list(y["array"]):
            out.append(Change(f"{label} changes shape {tuple(x['array'])} -> {tuple(y['array'])}", "shape",
                              tuple(x['array']), tuple(y['array'])))
        if bool(x.get("weak")) != bool(y.get("weak")):
            if traced:  # a Python number is recorded as the weak scalar jit makes of it
                out.append(Change(f"{label} changes weak type ({'a Python scalar' if x.get('weak') else 'an array'} "
                                  f"-> {'a Python scalar' if y.get('weak') else 'an array'})", "weak"))
            else:  # kept static by the transform, a Python number is a value: this is an array made weak
                out.append(Change(f"{label} changes weak type " + ("(a weak-typed array -> a strong one)" if x.get("weak")
                                  else "(a strong array -> a weak-typed one)"), "weak"))
        if bool(x.get("ref")) != bool(y.get("ref")):
            out.append(Change(f"{label} changes from {'a `jax.ref`' if x.get('ref') else 'an array'} to "
                              f"{'a `jax.ref`' if y.get('ref') else 'an array'}", "structure"))
        sx, sy = x.get("sharding"), y.get("sharding")
        if sx != sy:
            out.append(Change(f"{label} changes sharding {show_sharding(sx, sy)} -> {show_sharding(sy, sx)}",
                              "sharding", sx, sy))
        return
    if kx in ("value", "repr"):
        nx, ny = _python_number(x), _python_number(y)
        if leaf and traced and nx and ny:
            # traced Python numbers: only their type matters to jit, never their value
            if nx is not ny:
                out.append(Change(f"{label} changes from a Python {nx.__name__} to a Python {ny.__name__}", "dtype"))
            return
        if x[kx] != y[kx]:
            # a declared static argument, or a value the transform keeps static without
            # being asked (a Python number under filter_jit, a leaf in a static field)
            out.append(Change(f"{label} (static) changes value {x[kx]!r} -> {y[kx]!r}",
                              "static" if traced and not leaf else "static-leaf", x[kx], y[kx]))
        return
    if kx in ("tuple", "list"):
        if len(x[kx]) != len(y[kx]):
            out.append(Change(f"{label} changes pytree structure (a {kx} of {len(x[kx])} -> {len(y[kx])})", "structure"))
            return
        for i, (p, q) in enumerate(zip(x[kx], y[kx])):
            _diff(p, q, _sub(label, f"[{i}]"), out, traced, leaf)
        return
    if kx == "dict":
        if x.get("class") != y.get("class"):
            out.append(Change(f"{label} changes pytree type ({_dict_class(x)} -> {_dict_class(y)})", "structure"))
            return
        if set(x["dict"]) != set(y["dict"]):
            out.append(Change(f"{label} changes pytree structure (keys {sorted(x['dict'])} -> {sorted(y['dict'])})",
                              "structure"))
            return
        for k in sorted(x["dict"]):
            _diff(x["dict"][k], y["dict"][k], _sub(label, f"[{k!r}]"), out, traced, leaf)
        return
    if kx == "key":
        if list(x["key"]) != list(y["key"]) or x.get("impl") != y.get("impl"):
            out.append(Change(f"{label} (PRNG key array) changes ({_show(x)} -> {_show(y)})", "shape"))
        return
    if kx == "opaque":
        _diff_opaque(x, y, label, out, traced)
        return
    if kx == "namedtuple":
        if x["namedtuple"] != y["namedtuple"]:
            out.append(Change(f"{label} changes type {x['namedtuple']} -> {y['namedtuple']}", "structure"))
            return
        for k in x["fields"]:
            if k in y["fields"]:
                _diff(x["fields"][k], y["fields"][k], _sub(label, f".{k}"), out, traced, leaf)
        return
    if x != y:
        out.append(Change(f"{label} changes ({_show(x)} -> {_show(y)})", "structure"))


def show_sharding(s: dict | None, other: dict | None = None) -> str:
    """A recorded placement as a reader writes it: ``P('data', None) on mesh (data: 4,
    model: 2)``, ``committed to cpu:1``, ``uncommitted on one device (the default)``;
    the mesh is named only when ``other`` is on another one, committed-ness only where
    it is what differs."""
    if not isinstance(s, dict):
        return "uncommitted on one device (the default)"
    if "device" in s:
        text = f"committed to {s.get('platform', 'device')}:{s['device']}"
    elif "mesh" in s:
        spec = ", ".join("None" if not p else repr(p[0]) if len(p) == 1 else "(" + ", ".join(map(repr, p)) + ")"
                         for p in s.get("spec") or [])
        text = f"P({spec})"
        mesh = s.get("mesh") or {}
        if not isinstance(other, dict) or other.get("mesh") != mesh:
            text += " on mesh (" + ", ".join(f"{a}: {n}" for a, n in zip(mesh.get("axes", []),
                                                                          mesh.get("sizes", []))) + ")"
    else:
        text = f"{s.get('repr')} ({s.get('devices')} devices)"
    if s.get("memory"):
        text += f" in {s['memory']} memory"
    if isinstance(other, dict) and bool(other.get("committed")) != bool(s.get("committed")) and \
            {k: v for k, v in other.items() if k != "committed"} == {k: v for k, v in s.items() if k != "committed"}:
        text += " (committed)" if s.get("committed") else " (uncommitted)"
    return text


def _sub(label: str, path: str) -> str:
    """`x` + [0] -> `x[0]` (a part of an argument, named as code)."""
    return f"{label[:-1]}{path}`" if label.endswith("`") else f"{label}{path}"


def _diff_opaque(x: dict, y: dict, label: str, out: list[Change], traced: bool) -> None:
    """A model or optimizer state, recorded as its type, its leaves by path
    (``.layers[0].weight``) and a digest of its static part."""
    if x["opaque"] != y["opaque"]:
        out.append(Change(f"{label} changes type {x['opaque']} -> {y['opaque']}", "structure"))
        return
    lx, ly = _leaf_paths(x), _leaf_paths(y)
    if set(lx) != set(ly):
        gone, new = sorted(set(lx) - set(ly)), sorted(set(ly) - set(lx))
        what = "; ".join(p for p in (f"without {', '.join(gone[:3])}" if gone else "",
                                     f"with {', '.join(new[:3])}" if new else "") if p)
        out.append(Change(f"{label} changes pytree structure ({what})", "structure"))
    else:
        before = len(out)
        for path in sorted(lx):
            _diff(lx[path], ly[path], _sub(label, "" if path == "." else path), out, traced, leaf=True)
            if len(out) - before >= 3:
                break
    ox, oy = x.get("objects") or {}, y.get("objects") or {}
    made = [k for k in oy if k in ox and ox[k] != oy[k]]
    if made and set(lx) == set(ly):  # a new object where the last call had another
        name = made[0].split("#", 1)[0]
        out.append(Change(f"{label} has a new object in its static field `{name}`, which compares by identity "
                          f"(its class defines no `__eq__`): each new one is a new structure to jit's cache",
                          "object"))
    elif x.get("static") != y.get("static") and set(lx) == set(ly):
        out.append(Change(f"{label} changes a static (non-array) field: jit compares those by value", "static"))


def _leaf_paths(n: dict) -> dict:
    """Leaves by path; records of earlier jaxlint versions list them without paths."""
    leaves = n.get("leaves") or {}
    if isinstance(leaves, list):
        return {f"<leaf {i}>": v for i, v in enumerate(leaves)}
    return leaves if isinstance(leaves, dict) else {}


def _show(n: dict, traced: bool = True, leaf: bool = False) -> str:
    """A node as a reader writes it: ``f32[8,4]``, ``i32[] weak``, ``a tuple of 2``."""
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
