"""The JSON schema of ``[tool.jaxlint]`` (and of ``jaxlint.toml``), generated from
the config model: :data:`jaxlint.config.TOP_LEVEL_KEYS`, :class:`DynamicSettings`
and every rule's options. Editors (Even Better TOML, VS Code) use it to validate
and complete the table.

Regenerate the committed copy after changing keys, rules or options::

    python -m jaxlint.config.schema > jaxlint/schema/config.schema.json

A test fails when the committed file differs from what this prints.
"""
from __future__ import annotations

import json
import sys
from dataclasses import fields
from pathlib import Path
from typing import Any

from jaxlint.config import (
    _DYNAMIC_TYPES, BACKENDS, DYNAMIC_RANGES, FUNCTION_KEYS, MAX_DIMENSION, DynamicSettings, Settings,
    CONFIDENCES, TOP_LEVEL_KEYS, _bool, _confidence, _str, _str_list,
    SEVERITIES, _severity,
)
from jaxlint.registry import all_rules

SCHEMA_PATH = Path(__file__).parent.parent / "schema" / "config.schema.json"

#: what each ``[tool.jaxlint]`` key means (a test checks every key has one)
KEY_DOCS = {
    "select": "Rules to enable: codes (`JAX101`), prefixes (`JAX1` = every static rule), names "
              "(`captured-array`) or `ALL`. Replaces the default selection.",
    "extend-select": "Rules to enable on top of `select` (or the default selection).",
    "ignore": "Rules to disable; a more specific selector wins over a less specific one, and ignore wins ties.",
    "exclude": "Glob patterns of files and folders never to check; replaces the default list "
               "(.git, .venv, build, dist, ...).",
    "extend-exclude": "Glob patterns to exclude on top of `exclude`.",
    "include": "File patterns to check when walking folders (`*.py`, `*.pyi`, `*.ipynb` by default); "
               "replaces the default list. Files named on the command line are always checked.",
    "extend-include": "File patterns to check on top of `include`, e.g. `[\"*.pyw\"]`.",
    "per-file-ignores": "Glob pattern -> rule selectors to ignore in the matching files.",
    "rules": "Per-rule options: `[tool.jaxlint.rules.<code-or-name>]`.",
    "dynamic": "The dynamic phase: tracing (`JAX2xx`) and compiling (`JAX3xx`) jitted functions.",
    "targets": "Named targets to compile for: `[tool.jaxlint.targets.v5e-8]` with a TPU `topology` "
               "(`\"v5e:2x4\"`) and the program's `mesh` there; chosen by `dynamic.target` or `--target NAME` "
               "(docs/targets.md).",
    "cache-dir": "Where to cache results (default: `.jaxlint_cache` beside the config file).",
    "force-exclude": "Apply `exclude` to files passed explicitly on the command line too (pre-commit).",
    "respect-gitignore": "Skip files that git ignores when walking directories.",
    "confidence": "The least confidence a static finding needs to be reported: `certain`, `likely` (the "
                  "default: certain and likely findings) or `possible` (what `--preview` reports). A finding "
                  "is an error only when it is certain.",
    "fail-on": "The lowest severity that fails the run (exit 1): `info`, `warning` (default) or `error`; "
               "findings below it are shown and do not fail.",
    "fixable": "Rule selectors whose fixes `--fix` applies (default `[\"ALL\"]`).",
    "unfixable": "Rule selectors whose fixes `--fix` never applies; the more specific selector wins, "
                 "unfixable wins ties.",
    "extend": "Path of another config file (pyproject.toml or jaxlint.toml) to inherit settings from; "
              "keys set here replace inherited ones.",
}

DYNAMIC_DOCS = {
    "enabled": "Run the dynamic phase without `--dynamic`.",
    "compile": "Also compile with XLA and run the compile-tier (`JAX3xx`) rules.",
    "backend": "The backend to trace and compile for.",
    "function-timeout": "Seconds allowed to trace (or compile) one function.",
    "file-timeout": "Seconds allowed for one file: its import plus every function in it.",
    "memory-limit-mb": "Memory cap of a worker process in MiB: its resident memory is watched on every backend, "
                       "its address space capped on CPU; 0 disables both.",
    "workers": "Worker processes; 0 means one per core.",
    "signatures": "The recorded-signatures file written by `jaxlint record`.",
    "x64": "Force `jax_enable_x64` on or off; unset keeps the project's own setting.",
    "dimension-defaults": "Concrete sizes for symbolic jaxtyping dimensions, e.g. `{ b = 8 }`.",
    "default-dimension": "Size used for a symbolic dimension with no default.",
    "functions": "Explicit input specs: `\"pkg.mod:fn\" = { args = \"(f32[8,128], i32[8])\" }`.",
    "compile-timeout": "Seconds allowed to compile one function in the compile tier.",
    "slow-import": "Seconds after which importing a checked module gets a note (its top-level code runs).",
    "budgets": "The committed cost budgets (`jaxlint budget update`), relative to the project root.",
    "devices": "Devices a worker has on the CPU backend (forced host devices, so meshes and shardings compile); "
               "0 means as many as `jaxlint record` saw the program use, else one.",
    "target": "The target to compile for: a name from `[tool.jaxlint.targets]` or a TPU topology such as "
              "`\"v5e:1x1\"` (compiled deviceless, on any machine); unset: the `backend`'s own devices.",
    "import-scripts": "Import modules that do work at import (top-level calls, loops) to trace their functions; "
                      "by default they are not run: record them with `jaxlint record`.",
}

_JSON_TYPES = {bool: "boolean", int: "integer", float: "number", str: "string", dict: "object", list: "array"}


def _typed(prop: dict, t: Any) -> dict:
    """Set ``prop["type"]`` from a Python type or tuple of types (left out if one is unknown)."""
    ts = t if isinstance(t, tuple) else (t,)
    if not all(x in _JSON_TYPES for x in ts):
        return prop
    names = [_JSON_TYPES[x] for x in ts]
    if "number" in names and "integer" in names:  # JSON's number includes integers
        names.remove("integer")
    prop["type"] = names[0] if len(names) == 1 else names
    return prop


def _selector() -> dict:
    names = ["ALL"] + [x for r in all_rules() for x in (r.code, r.name)]
    return {"anyOf": [{"enum": names}, {"type": "string", "pattern": "^JAX[0-9]{0,3}$"}]}


def _top_level(key: str, settings_default: Any) -> dict:
    _, validator = TOP_LEVEL_KEYS[key]
    prop: dict[str, Any] = {"description": KEY_DOCS[key]}
    if validator is _str_list:
        items = ({"$ref": "#/$defs/selector"} if key in ("select", "extend-select", "ignore", "fixable", "unfixable")
                 else {"type": "string"})
        prop.update(type="array", items=items)
    elif validator is _bool:
        prop["type"] = "boolean"
    elif validator is _str:
        prop["type"] = "string"
    elif validator is _confidence:
        prop.update(type="string", enum=list(CONFIDENCES))
    elif validator is _severity:
        prop.update(type="string", enum=list(SEVERITIES))
    if settings_default is not None and not isinstance(settings_default, (dict, DynamicSettings)):
        prop["default"] = list(settings_default) if isinstance(settings_default, tuple) else settings_default
    return prop


def _dynamic() -> dict:
    defaults = {f.name: getattr(DynamicSettings(), f.name) for f in fields(DynamicSettings)}
    props = {}
    for key, t in _DYNAMIC_TYPES.items():
        prop = _typed({"description": DYNAMIC_DOCS[key]}, t)
        default = defaults[key.replace("-", "_")]
        if default is not None and not isinstance(default, dict):
            prop["default"] = default
        if key == "backend":
            prop["enum"] = list(BACKENDS)
        if key.endswith("-timeout") or key == "slow-import":
            prop["exclusiveMinimum"] = 0
        if key in DYNAMIC_RANGES:
            prop["minimum"], prop["maximum"] = DYNAMIC_RANGES[key][:2]
        if key == "dimension-defaults":
            prop["additionalProperties"] = {"type": "integer", "minimum": 1, "maximum": MAX_DIMENSION}
        if key == "functions":
            entry = {k: {"type": "object"} if k == "static" else {"type": "string"} for k in FUNCTION_KEYS}
            prop["propertyNames"] = {"pattern": "^[^:]+:.+$"}
            prop["additionalProperties"] = {"type": "object", "properties": entry, "additionalProperties": False}
        props[key] = prop
    return {"type": "object", "description": KEY_DOCS["dynamic"], "properties": props, "additionalProperties": False}


#: what each key of a ``[tool.jaxlint.targets.NAME]`` table means
TARGET_DOCS = {
    "backend": "`tpu` (the default where a `topology` is given), `cpu`, `gpu`, `cuda` or `rocm`.",
    "topology": "A TPU slice: the chip generation and its chips per dimension, e.g. `\"v5e:2x4\"`, `\"v4:2x2x1\"`.",
    "mesh": "The program's mesh on the target, axis = size in order, e.g. `{ data = 8 }`; the sizes multiply "
            "to the target's device count.",
    "axis-map": "A recording's mesh axis -> this target's axis, where the names differ, e.g. `{ batch = \"data\" }`.",
    "devices": "Devices of a `cpu` target (forced host devices).",
    "hbm-gib": "The memory of one chip in GiB, overriding jaxlint's table (v5e 16, v4 32, v5p 95, v6e 32).",
    "budgets": "This target's budgets file, relative to the project root (default: the `budgets` file's name "
               "with the target's, `jaxlint-budgets.v5e-8.json`).",
}


def _targets() -> dict:
    from jaxlint.targets import TARGET_BACKENDS, TARGET_KEYS

    types: dict[str, dict[str, Any]] = {"backend": {"type": "string", "enum": list(TARGET_BACKENDS)},
             "topology": {"type": "string", "pattern": "^[A-Za-z0-9]+:[0-9]+(x[0-9]+)*$"},
             "mesh": {"type": "object", "additionalProperties": {"type": "integer", "minimum": 1}},
             "axis-map": {"type": "object", "additionalProperties": {"type": "string"}},
             "devices": {"type": "integer", "minimum": 0, "maximum": 4096},
             "hbm-gib": {"type": "number", "exclusiveMinimum": 0},
             "budgets": {"type": "string", "minLength": 1}}
    entry = {"type": "object", "properties": {k: {"description": TARGET_DOCS[k], **types[k]} for k in TARGET_KEYS},
             "additionalProperties": False}
    return {"type": "object", "description": KEY_DOCS["targets"], "additionalProperties": entry}


def _rule_table(rule) -> dict:
    props = {}
    for key, opt in rule.options.items():
        prop = _typed({"description": opt.doc}, opt.type)
        prop["default"] = opt.default
        if opt.minimum is not None:
            prop["minimum"] = opt.minimum
        props[key] = prop
    props["severity"] = {"type": "string", "enum": ["info", "warning", "error"],
                         "description": f"what its findings are reported as (default: {rule.severity.value})"}
    return {
        "type": "object",
        "description": f"{rule.code} ({rule.name}): {rule.summary}. {rule.url()}",
        "properties": props,
        "additionalProperties": False,
    }


def build_schema() -> dict:
    """The schema, as a plain dict in a fixed order (so the JSON is stable)."""
    defaults = Settings()
    field_of = {key: fname for key, (fname, _) in TOP_LEVEL_KEYS.items()}
    props: dict[str, Any] = {}
    for key in TOP_LEVEL_KEYS:
        if key == "per-file-ignores":
            props[key] = {"type": "object", "description": KEY_DOCS[key],
                          "additionalProperties": {"type": "array", "items": {"$ref": "#/$defs/selector"}}}
        elif key == "rules":
            rules_props = {}
            for r in all_rules():
                rules_props[r.code] = {"$ref": f"#/$defs/rule-{r.code}"}
                rules_props[r.name] = {"$ref": f"#/$defs/rule-{r.code}"}
            props[key] = {"type": "object", "description": KEY_DOCS[key], "properties": rules_props,
                          "additionalProperties": False}
        elif key == "dynamic":
            props[key] = _dynamic()
        elif key == "targets":
            props[key] = _targets()
        else:
            props[key] = _top_level(key, getattr(defaults, field_of[key], None))
    defs: dict[str, Any] = {"selector": _selector()}
    for r in all_rules():
        defs[f"rule-{r.code}"] = _rule_table(r)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://github.com/jaxlint/jaxlint/blob/main/jaxlint/schema/config.schema.json",
        "title": "jaxlint configuration",
        "description": "[tool.jaxlint] in pyproject.toml, or the top level of jaxlint.toml / .jaxlint.toml.",
        "type": "object",
        "properties": props,
        "additionalProperties": False,
        "$defs": defs,
    }


def render() -> str:
    return json.dumps(build_schema(), indent=2, ensure_ascii=False) + "\n"


def main() -> int:
    sys.stdout.write(render())
    return 0


if __name__ == "__main__":
    sys.exit(main())
