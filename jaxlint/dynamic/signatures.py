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
from typing import Any

from jaxlint.cache import atomic_write
from jaxlint.dynamic.inputs import DTYPES

FORMAT = 1


#: numpy dtype name -> the directive spelling (the inverse of the directive parser's table)
_SHORT = {long: short for short, long in DTYPES.items() if short not in (long, "b1")}


def encode(node: Any) -> Any:
    """Array nodes as compact strings (``"f32[8,128]"``, ``"f32[] weak"``) so the file
    reads like the directive syntax; everything else unchanged."""
    if isinstance(node, dict):
        if "array" in node and "dtype" in node:
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
_VERBATIM = frozenset({"value", "repr", "opaque", "treedef", "namedtuple", "static", "pickle", "unsaved", "calls"})


def decode(node: Any) -> Any:
    """The inverse of :func:`encode` (inside ``{"value": ...}`` nothing is touched)."""
    if isinstance(node, str):
        from jaxlint.dynamic.inputs import parse_spec_expr

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
    """function key -> entry; an empty dict when the file does not exist."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as e:
        from jaxlint.config import ConfigError

        raise ConfigError(f"{path}: cannot read recorded signatures: {e}") from None
    if not isinstance(data, dict) or not isinstance(data.get("functions"), dict):
        from jaxlint.config import ConfigError

        raise ConfigError(f"{path}: not a jaxlint signatures file (no `functions` table)")
    out = {}
    for key, e in data["functions"].items():
        e = dict(e)
        sigs = []
        for s in e.get("signatures", []):
            try:
                sigs.append(dict(decode({k: v for k, v in s.items() if k != "calls"}), calls=s.get("calls", 0)))
            except ValueError as err:  # one bad signature skips its function, not the run
                sigs.append({"args": [], "kwargs": {}, "calls": s.get("calls", 0),
                             "unsaved": f"a signature in {path.name} cannot be read ({err})"})
        e["signatures"] = sigs
        out[key] = e
    return out


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
        e["signatures"].sort(key=lambda s: (-s.get("calls", 0), canonical(s)))
    return out


def dump(path: Path, functions: dict[str, dict], meta: dict[str, Any]) -> None:
    data = {"format": FORMAT, **meta, "functions": {
        k: dict(functions[k], signatures=[encode(s) for s in functions[k].get("signatures", [])])
        for k in sorted(functions)}}
    text = json.dumps(data, indent=2, sort_keys=True) + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, text.encode("utf-8"))  # a file to commit: the umask's mode, not mkstemp's 0600


def pickle_dir(path: Path) -> Path:
    """Where the pickled arguments of the signatures file ``path`` live."""
    return path.with_name(path.stem + ".pickles")


def read_pickle(path: Path, sha: str) -> bytes:
    """The pickle a signature names, checked against its hash; ``ValueError`` says why
    it cannot be used."""
    if not all(c in "0123456789abcdef" for c in sha) or len(sha) != 64:
        raise ValueError(f"`{sha[:20]}` is not a sha256 digest")
    f = pickle_dir(path) / f"{sha}.pickle"
    try:
        data = f.read_bytes()
    except OSError:
        raise ValueError(f"its saved arguments {f.name} are missing from {pickle_dir(path).name}/: "
                         "run `jaxlint record` again") from None
    if hashlib.sha256(data).hexdigest() != sha:
        raise ValueError(f"{f.name} does not match its hash (edited or damaged): run `jaxlint record` again")
    return data


def write_pickles(path: Path, functions: dict[str, dict], found: dict[str, Path]) -> None:
    """Copy the pickles the signatures name into :func:`pickle_dir` and remove the
    ones no signature names any more."""
    wanted = {s["pickle"] for e in functions.values() for s in e.get("signatures", []) if s.get("pickle")}
    folder = pickle_dir(path)
    if wanted:
        folder.mkdir(parents=True, exist_ok=True)
    for sha in sorted(wanted):
        dest = folder / f"{sha}.pickle"
        if sha in found and not dest.exists():
            atomic_write(dest, found[sha].read_bytes())
    if folder.is_dir():
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


def rebuildable(sig: dict) -> str | None:
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
