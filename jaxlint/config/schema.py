"""The JSON schema of ``[tool.jaxlint]`` (and of ``jaxlint.toml``), generated from
the config model: the keys of :mod:`jaxlint.config.keys` (their defaults: the fields of
:class:`jaxlint.config.Settings` and :class:`DynamicSettings`) and every rule's options. Editors (Even Better TOML, VS Code) use it to validate
and complete the table.

Regenerate the committed copy after changing keys, rules or options, with the docs::

    python -m jaxlint.docgen

A test fails when the committed file differs from what :func:`render` gives.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from jaxlint.config import DynamicSettings, Settings
from jaxlint.config.keys import DYNAMIC, TOP_LEVEL, json_type
from jaxlint.registry import all_rules
from jaxlint.rule import GROUPS

SCHEMA_PATH = Path(__file__).parent.parent / "schema" / "config.schema.json"

#: what each ``[tool.jaxlint]`` key means, as the schema describes it
KEY_DOCS = {k.name: k.doc for k in TOP_LEVEL.values()}
DYNAMIC_DOCS = {k.name: k.doc for k in DYNAMIC.values()}


def _typed(prop: dict, t: Any) -> dict:
    """Set ``prop["type"]`` from a Python type or tuple of types (left out if one is unknown)."""
    names = json_type(t)
    if names is not None:
        prop["type"] = names
    return prop


def _selector() -> dict:
    names = ["ALL", *GROUPS] + [x for r in all_rules() for x in (r.code, r.name)]
    return {"anyOf": [{"enum": names}, {"type": "string", "pattern": "^JAX[0-9]{0,3}$"}]}


def _dynamic() -> dict:
    defaults = DynamicSettings()
    props = {key: spec.json_schema(getattr(defaults, spec.field)) for key, spec in DYNAMIC.items()}
    return {"type": "object", "description": TOP_LEVEL["dynamic"].doc, "properties": props,
            "additionalProperties": False}


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
    return {"type": "object", "description": TOP_LEVEL["targets"].doc, "additionalProperties": entry}


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
    props: dict[str, Any] = {}
    for key, spec in TOP_LEVEL.items():
        if key == "rules":
            rules_props = {}
            for r in all_rules():
                rules_props[r.code] = {"$ref": f"#/$defs/rule-{r.code}"}
                rules_props[r.name] = {"$ref": f"#/$defs/rule-{r.code}"}
            props[key] = {"type": "object", "description": spec.doc, "properties": rules_props,
                          "additionalProperties": False}
        elif key == "dynamic":
            props[key] = _dynamic()
        elif key == "targets":
            props[key] = _targets()
        else:
            props[key] = spec.json_schema(getattr(defaults, spec.field, None))
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
