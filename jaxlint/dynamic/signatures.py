"""``.jaxlint/signatures.json``: recorded abstract signatures of jitted functions.

The file is meant to be committed and reviewed, so it is stable: keys sorted, one
entry per function keyed ``"module:qualname"`` (lambdas ``<lambda>@LINE``, methods
``Class.method``, nested functions ``outer.<locals>.inner``, exactly as the static jit
map names them), signatures sorted, two-space indentation. Never imports jax.
"""
from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

FORMAT = 1


_SHORT = {"float32": "f32", "float64": "f64", "float16": "f16", "bfloat16": "bf16", "int8": "i8",
          "int16": "i16", "int32": "i32", "int64": "i64", "uint8": "u8", "uint16": "u16", "uint32": "u32",
          "uint64": "u64", "bool": "bool", "complex64": "c64", "complex128": "c128"}


def encode(node: Any) -> Any:
    """Array nodes as compact strings (``"f32[8,128]"``, ``"f32[] weak"``) so the file
    reads like the directive syntax; everything else unchanged."""
    if isinstance(node, dict):
        if "array" in node and "dtype" in node:
            dims = ",".join(str(d) for d in node["array"])
            return f"{_SHORT.get(node['dtype'], node['dtype'])}[{dims}]" + (" weak" if node.get("weak") else "")
        return {k: encode(v) for k, v in node.items()}
    if isinstance(node, list):
        return [encode(v) for v in node]
    return node


def decode(node: Any) -> Any:
    """The inverse of :func:`encode` (inside ``{"value": ...}`` nothing is touched)."""
    if isinstance(node, str):
        from jaxlint.dynamic.inputs import parse_spec_expr

        text, weak = (node[:-5], True) if node.endswith(" weak") else (node, False)
        arr = parse_spec_expr(text)
        arr["weak"] = weak
        return arr
    if isinstance(node, dict):
        if "array" in node:  # already the long form
            return node
        return {k: (v if k in ("value", "repr", "opaque", "treedef", "namedtuple") else decode(v))
                for k, v in node.items()}
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
        try:
            e["signatures"] = [dict(decode({k: v for k, v in s.items() if k != "calls"}), calls=s.get("calls", 0))
                               for s in e.get("signatures", [])]
        except ValueError as err:
            from jaxlint.config import ConfigError

            raise ConfigError(f"{path}: {key}: {err}") from None
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
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def best(entry: dict) -> dict | None:
    """The signature to trace: the most called one that can be rebuilt."""
    for s in entry.get("signatures", []):
        if rebuildable(s) is None:
            return s
    return None


def rebuildable(sig: dict) -> str | None:
    """None when every argument can be rebuilt, else why not."""
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
