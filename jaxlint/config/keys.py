"""Every configuration key, declared once.

A :class:`Key` holds all there is to say about one key of ``[tool.jaxlint]`` or of its
``[tool.jaxlint.dynamic]`` table: its name, the type and range of its value, what it
means (one line for the JSON schema and editors, the docs' fuller text), how the command
line's value for it combines with the file's (``override``) and the flags that set it.
Parsing (:func:`jaxlint.config.load_settings`), the command line's overrides
(:func:`jaxlint.config.apply_overrides`), the JSON schema (:mod:`jaxlint.config.schema`)
and the key tables of docs/configuration.md (``jaxlint.docgen``) read these tables. A
key's default is its field's in :class:`jaxlint.config.Settings` (or
``DynamicSettings``): the field of the same name, ``-`` written ``_``, is the typed value
the code reads.

The four keys whose values are tables of their own (``per-file-ignores``, ``rules``,
``dynamic``, ``targets``) are read by their own readers in :mod:`jaxlint.config`.
"""
from __future__ import annotations

import math
from typing import Any

from jaxlint.config.errors import shown
from jaxlint.records import dataclass

#: how the command line's value for a key combines with the file's (``Key.override``)
REPLACE = "replace"  # the command line's value, when given, is the setting
EXTEND = "extend"  # added after the file's list
MERGE = "merge"  # a table whose entries replace the file's entries of the same name
ON = "on"  # a flag: given, it turns the setting on


@dataclass(frozen=True)
class Key:
    name: str
    #: the TOML value's type: bool, str, int, (int, float), list (of strings), dict
    type: type | tuple[type, ...]
    #: one line: the JSON schema's description, an editor's hover
    doc: str
    #: the docs' text, where it says more than ``doc``
    page: str = ""
    choices: tuple[str, ...] = ()
    #: an integer's lowest and highest value, and what the ends mean
    range: tuple[int, int, str] | None = None
    #: a positive, finite number of seconds (a NaN timeout would never expire)
    seconds: bool = False
    #: a list of rule selectors, checked against the registry
    selectors: bool = False
    override: str | None = None
    #: the command line's flags that set it (``override`` says how)
    cli: tuple[str, ...] = ()
    #: the docs table's columns where the derived text is not what a reader needs
    docs_name: str = ""
    docs_type: str = ""
    docs_default: str | None = None
    #: more of the JSON schema of its value (a table's entries)
    schema: tuple[tuple[str, Any], ...] = ()
    #: the settings field that holds its value, where it is not the name with ``_``
    attr: str = ""

    @property
    def field(self) -> str:
        """The settings field that holds its value."""
        return self.attr or self.name.replace("-", "_")

    def check(self, v: Any) -> Any:
        """The value, checked for type, choices and range; ValueError naming the key
        otherwise (its message without the file)."""
        ts = self.type if isinstance(self.type, tuple) else (self.type,)
        if self.type is list:
            if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
                raise ValueError(f"`{self.name}` must be a list of strings, got {shown(v)}")
            return tuple(v)
        if self.choices:
            if v not in self.choices:
                raise ValueError(f"`{self.name}` must be one of {', '.join(map(repr, self.choices))}, got {shown(v)}")
            return v
        typed = isinstance(v, ts) and (bool in ts or not isinstance(v, bool))
        if not typed:
            want = _WANTS.get(self.type, "a number") if isinstance(self.type, type) else "a number"
            raise ValueError(f"`{self.name}` must be {want}, got {shown(v)}")
        if self.seconds and (not math.isfinite(v) or v <= 0):
            raise ValueError(f"`{self.name}` must be a positive, finite number of seconds; got {shown(v)}")
        if self.range is not None:
            in_range(self.name, v, *self.range)
        return v

    def json_schema(self, default: Any) -> dict[str, Any]:
        prop: dict[str, Any] = {"description": self.doc}
        prop["type"] = json_type(self.type)
        if self.type is list:
            prop["items"] = {"$ref": "#/$defs/selector"} if self.selectors else {"type": "string"}
        if default is not None and not isinstance(default, (dict, type(None))) and self.type is not dict:
            prop["default"] = list(default) if isinstance(default, tuple) else default
        if self.choices:
            prop["enum"] = list(self.choices)
        if self.seconds:
            prop["exclusiveMinimum"] = 0
        if self.range is not None:
            prop["minimum"], prop["maximum"] = self.range[:2]
        prop.update(self.schema)
        return prop

    def docs_row(self, default: Any) -> str:
        """Its row in docs/configuration.md: key, type, default, meaning."""
        return (f"| `{self.docs_name or self.name}` | {self.docs_type or self._type_text()} | "
                f"{self._default_text(default) if self.docs_default is None else self.docs_default} | "
                f"{self.page or self.doc} |").replace("|  |", "| |")

    def _type_text(self) -> str:
        import json  # here and in _default_text: a check reads no docs (and loads no json)

        if self.choices:
            return ", ".join(f"`{json.dumps(c)}`" for c in self.choices)
        if self.seconds:
            return "seconds (> 0, finite)"
        if self.range is not None:
            low, high, _ = self.range
            return f"int, {low:,} to {high:,}" if high < 2**62 else f"int ≥ {low}"
        if self.type is list:
            return "list of selectors" if self.selectors else "list of globs"
        names = {bool: "bool", str: "string", int: "int", dict: "table"}
        return names.get(self.type, "number") if isinstance(self.type, type) else "number"

    @staticmethod
    def _default_text(default: Any) -> str:
        import json

        if default is None:
            return "unset"
        if isinstance(default, bool):
            return f"`{str(default).lower()}`"
        if isinstance(default, float) and default.is_integer():
            default = int(default)
        if isinstance(default, tuple):
            default = list(default)
        return f"`{json.dumps(default)}`"


#: what a value of a type is called in an error message
_WANTS = {bool: "true or false", str: "a string", dict: "a table", int: "an integer"}
_JSON_TYPES = {bool: "boolean", int: "integer", float: "number", str: "string", dict: "object", list: "array"}


def json_type(t: type | tuple[type, ...]) -> str | list[str] | None:
    """The JSON schema's ``type`` of a Python type or tuple of types (None: one is unknown)."""
    ts = t if isinstance(t, tuple) else (t,)
    if not all(x in _JSON_TYPES for x in ts):
        return None
    names = [_JSON_TYPES[x] for x in ts if not (x is int and float in ts)]  # JSON's number includes integers
    return names[0] if len(names) == 1 else names


def in_range(key: str, v: int, low: int, high: int, note: str = "") -> None:
    if not low <= v <= high:
        extra = f" ({note})" if note else ""
        raise ValueError(f"`{key}` must be between {low} and {high}{extra}; got {shown(v)}")


#: the values of ``confidence``, surest first
CONFIDENCES = ("certain", "likely", "possible")
SEVERITIES = ("info", "warning", "error")
BACKENDS = ("cpu", "gpu", "cuda", "rocm", "tpu")
#: array dimensions are 64-bit in XLA
MAX_DIMENSION = 2**63 - 1
#: the keys of one ``[tool.jaxlint.dynamic.functions]`` entry
FUNCTION_KEYS = ("args", "kwargs", "static")

_SELECTOR_LIST = {"type": "array", "items": {"$ref": "#/$defs/selector"}}

#: ``[tool.jaxlint]``, in the order the docs list them
TOP_LEVEL: dict[str, Key] = {k.name: k for k in (
    Key("select", list, selectors=True, override=REPLACE, cli=("--select",),
        doc="Rules to enable: codes (`JAX101`), prefixes (`JAX1` = every static rule), names "
            "(`captured-array`), lint groups (`correctness`, `suspicious`, `perf`, `pedantic`, `nursery`) or "
            "`ALL`. Replaces the default selection (the correctness, suspicious and perf groups).",
        page="Rules to enable. A selector is a code (`JAX101`), a prefix (`JAX1` = every static rule, `JAX2` "
             "every trace-tier rule), a name (`captured-array`), a lint group (`correctness`, `suspicious`, "
             "`perf`, `pedantic`, `nursery`; [below](#lint-groups)) or `ALL`. Replaces the default selection.",
        docs_default="the rules of the groups on by default"),
    Key("extend-select", list, selectors=True, override=EXTEND, cli=("--extend-select",),
        doc="Rules to enable on top of `select` (or the default selection).",
        page="Rules to enable on top of `select`; e.g. `[\"unused-noqa\"]`, which is off by default."),
    Key("ignore", list, selectors=True, override=EXTEND, cli=("--ignore",),
        doc="Rules to disable; a more specific selector wins over a less specific one (a code over a prefix, "
            "a prefix over a group, a group over `ALL`), and ignore wins ties.",
        page="Rules to disable. The most specific selector wins (`select = [\"JAX101\"]` beats `ignore = "
             "[\"JAX1\"]`; a code beats a prefix, a prefix a group, a group `ALL`); `ignore` wins ties."),
    # ruff's (and flake8's) name for more selectors to ignore: added to `ignore` (the command
    # line's --extend-ignore is check's own flag, added to --ignore)
    Key("extend-ignore", list, selectors=True, attr="ignore",
        doc="Rules to disable on top of `ignore` (ruff's and flake8's name; the same as adding them to "
            "`ignore`).",
        page="More rules to disable, added to `ignore` (ruff's and flake8's name; `--extend-ignore` on the "
             "command line).", docs_default="`[]`"),
    Key("exclude", list, override=REPLACE, cli=("--exclude",),
        doc="Glob patterns of files and folders never to check; replaces the default list "
            "(.git, .venv, build, dist, ...).",
        page="Files and folders never to check. Replaces the defaults. A pattern matches the path relative to the "
             "config file's folder, any of its parent folders, or (without `/`) any path component. As in ruff, a "
             "folder named on the command line is walked even when it lies inside an excluded folder (`jaxlint "
             "check .venv/lib/python3.11/site-packages/flax`); the excludes apply to what is below it, and to the "
             "folder itself only with `force-exclude`. When nothing is left to check, jaxlint warns `no Python "
             "files found`.",
        docs_default="ruff's: `.git`, `.venv`, `venv`, `build`, `dist`, `node_modules`, `.ipynb_checkpoints`, `.pytest_cache`, `.vscode`, …, and `__pycache__`, `.jaxlint_cache`"),
    Key("extend-exclude", list, override=EXTEND, cli=("--extend-exclude",),
        doc="Glob patterns to exclude on top of `exclude`.",
        page="Patterns to exclude on top of `exclude`."),
    Key("include", list,
        doc="File patterns to check when walking folders (`*.py`, `*.pyi`, `*.ipynb` by default); "
            "replaces the default list. Files named on the command line are always checked.",
        page="The files checked when walking a folder, as in ruff: a pattern without `/` matches the file name, "
             "one with `/` the path relative to the config file's folder. Replaces the defaults; a file named on "
             "the command line is checked whatever its name. Jupyter notebooks are checked by default "
             "([notebooks.md](notebooks.md)); `extend-exclude = [\"*.ipynb\"]` leaves them out."),
    Key("extend-include", list,
        doc="File patterns to check on top of `include`, e.g. `[\"*.pyw\"]`.",
        page="Patterns to check on top of `include`, e.g. `[\"*.pyw\"]`."),
    Key("force-exclude", bool, override=ON, cli=("--force-exclude",),
        doc="Apply `exclude` to files passed explicitly on the command line too (pre-commit).",
        page="Apply the excludes to files and folders named on the command line too (pre-commit passes every "
             "staged file explicitly). Same as `--force-exclude`."),
    Key("respect-gitignore", bool,
        doc="Skip files that git ignores when walking directories.",
        page="Skip files git ignores when walking folders."),
    Key("confidence", str, choices=CONFIDENCES, override=REPLACE, cli=("--preview",),
        doc="The least confidence a static finding needs to be reported: `certain`, `likely` (the "
            "default: certain and likely findings) or `possible` (what `--preview` reports). A finding "
            "is an error only when it is certain.",
        page="The least confidence a static finding needs to be reported. Every static finding carries one (JSON "
             "`confidence`): **certain** (the value is surely what the rule says: a traced parameter, a "
             "`jax.numpy` result), **likely** (an attribute of an unannotated pytree parameter, which a library "
             "may declare static), **possible** (a value from a call or method the model cannot see into). The "
             "default reports certain and likely findings; `\"possible\"` (or `--preview` on the command line) "
             "adds the rest; the editor shows possible findings as hints. A finding is an error only when it is "
             "certain."),
    Key("preview", bool, override=ON, cli=("--preview",),
        doc="Turn on the nursery group's rules with the default selection and report possible findings "
            "(`--preview`; docs/precision.md, lint groups).",
        page="The nursery group joins the default selection, and possible findings are reported (`confidence = "
             "\"possible\"`, unless the file sets `confidence`). Same as `--preview`."),
    Key("cache-dir", str, cli=("--cache-dir",),
        doc="Where to cache results (default: `.jaxlint_cache` beside the config file).",
        page="Where results are cached (`--cache-dir`, `JAXLINT_CACHE_DIR` override it).",
        docs_default="`.jaxlint_cache` beside the config file"),
    Key("per-file-ignores", dict, override=MERGE, cli=("--per-file-ignores",),
        doc="Glob pattern -> rule selectors to ignore in the matching files.",
        page="Rules to ignore in the matching files. On the command line, `--per-file-ignores 'tests/*:JAX101,"
             "JAX106'` (repeatable) adds entries. A group's name ignores the findings in that group: those of a "
             "rule's finding kinds by the kind's group.",
        docs_type="table: glob → list of selectors", docs_default="`{}`",
        schema=(("additionalProperties", _SELECTOR_LIST),)),
    Key("rules", dict,
        doc="Per-rule options: `[tool.jaxlint.rules.<code-or-name>]`.",
        page="Options of one rule, e.g. `[tool.jaxlint.rules.captured-array]`. Each rule's options and defaults "
             "are in its page under [rules/](rules/) and in `jaxlint rule CODE`.",
        docs_name="rules.<code-or-name>", docs_default="", attr="rule_options"),
    Key("dynamic", dict, override=MERGE, cli=("--dynamic", "--compile", "--target"),
        doc="The dynamic phase: tracing (`JAX2xx`) and compiling (`JAX3xx`) jitted functions.",
        page="The dynamic phase (below).", docs_default=""),
    Key("targets", dict,
        doc="Named targets to compile for: `[tool.jaxlint.targets.v5e-8]` with a TPU `topology` "
            "(`\"v5e:2x4\"`) and the program's `mesh` there; chosen by `dynamic.target` or `--target NAME` "
            "(docs/targets.md).",
        page="A named target to compile for: `topology` (a TPU slice, `\"v5e:2x4\"`), `mesh` (`{ data = 8 }`), "
             "`axis-map`, `backend`, `devices`, `hbm-gib` ([targets.md](targets.md)). Chosen by `dynamic.target` "
             "or `--target NAME`.",
        docs_name="targets.<name>", docs_default=""),
    Key("extend", str,
        doc="Path of another config file (pyproject.toml or jaxlint.toml) to inherit settings from; "
            "keys set here replace inherited ones.",
        page="Another config file to inherit from (above).", docs_default=""),
    Key("fail-on", str, choices=SEVERITIES, override=REPLACE, cli=("--fail-on",),
        doc="The lowest severity that fails the run (exit 1): `info`, `warning` (default) or `error`; "
            "findings below it are shown and do not fail.",
        page="The lowest severity that fails the run (exit 1). Findings below it are shown, counted in the "
             "summary as not failing, and exit 0 (JAX109, informational by default, never blocks a commit). Same "
             "as `--fail-on`."),
    Key("fixable", list, selectors=True, override=REPLACE, cli=("--fixable",),
        doc="Rule selectors whose fixes `--fix` applies (default `[\"ALL\"]`).",
        page="The rules whose fixes `--fix` and the editor's fix-all apply. Same as `--fixable`."),
    Key("unfixable", list, selectors=True, override=REPLACE, cli=("--unfixable",),
        doc="Rule selectors whose fixes `--fix` never applies; the more specific selector wins, "
            "unfixable wins ties.",
        page="The rules whose fixes are never applied (shown without `[*]`); the more specific of `fixable` and "
             "`unfixable` wins, `unfixable` wins ties. Same as `--unfixable`."),
)}

#: ``[tool.jaxlint.dynamic]``, in the order the docs list them
DYNAMIC: dict[str, Key] = {k.name: k for k in (
    Key("enabled", bool, override=REPLACE, cli=("--dynamic", "--no-dynamic"),
        doc="Run the dynamic phase without `--dynamic`."),
    Key("compile", bool, override=REPLACE, cli=("--compile",),
        doc="Also compile with XLA and run the compile-tier (`JAX3xx`) rules.",
        page="Also compile with XLA and run the compile-tier rules (`JAX3xx`)."),
    Key("backend", str, choices=BACKENDS, doc="The backend to trace and compile for."),
    Key("function-timeout", (int, float), seconds=True,
        doc="Seconds allowed to trace (or compile) one function.",
        page="Time to trace (or compile) one function."),
    Key("file-timeout", (int, float), seconds=True,
        doc="Seconds allowed for one file: its import plus every function in it.",
        page="Time for one file: its import plus every function in it."),
    Key("compile-timeout", (int, float), seconds=True,
        doc="Seconds allowed to compile one function in the compile tier.",
        page="Time to compile one function in the compile tier."),
    Key("slow-import", (int, float), seconds=True,
        doc="Seconds after which importing a checked module gets a note (its top-level code runs).",
        page="Importing a checked module that takes longer gets a note in the summary (its top-level code ran in "
             "the worker)."),
    Key("import-scripts", bool,
        doc="Import modules that do work at import (top-level calls, loops) to trace their functions; "
            "by default they are not run: record them with `jaxlint record`.",
        page="Import modules that do work at import to trace their functions. By default a module whose top level "
             "does more than define things (a call as a statement such as `train()` or `np.save(...)`, a loop, a "
             "`with` block, a call of a function it defines; configuration calls like `jax.config.update` and code "
             "under `if __name__ == \"__main__\":` are fine) is not imported: its functions are skipped with \"runs "
             "at import: record it instead (`jaxlint record -- python FILE`)\", and what `jaxlint record` observed "
             "of them is still reported."),
    # the largest cap setrlimit takes: bytes in a signed 64-bit rlim_t
    Key("memory-limit-mb", int, range=(0, (2**63 - 1) >> 20, "0 disables the cap"),
        doc="Memory cap of a worker process in MiB: its resident memory is watched on every backend, "
            "its address space capped on CPU; 0 disables both.",
        page="Memory cap of a worker process: its resident memory is watched on every backend, its address space "
             "capped on CPU; `0` disables both."),
    # more workers than this is a typo, not a machine (each one imports jax)
    Key("workers", int, range=(0, 1024, "0 = one per core"),
        doc="Worker processes; 0 means one per core.", page="Worker processes; `0` is one per core."),
    Key("devices", int, range=(0, 4096, "0 = as recorded, else 1"),
        doc="Devices a worker has on the CPU backend (forced host devices, so meshes and shardings compile); "
            "0 means as many as `jaxlint record` saw the program use, else one.",
        page="Devices a worker has on the CPU backend (`--xla_force_host_platform_device_count`), so that meshes "
             "and shardings of several devices compile ([multi-device.md](multi-device.md)); `0` is as many as "
             "`jaxlint record` saw the program use, else one."),
    Key("signatures", str, cli=("--signatures",),
        doc="The recorded-signatures file written by `jaxlint record`.",
        page="The recorded signatures written by `jaxlint record`; its observations (`observed.json`) live "
             "beside it."),
    Key("budgets", str, cli=("--budgets",),
        doc="The committed cost budgets (`jaxlint budget update`), relative to the project root.",
        page="The committed cost budgets, relative to the project root: written by `jaxlint budget update`, held "
             "against by `check --dynamic --compile` ([budgets.md](budgets.md))."),
    Key("x64", bool, doc="Force `jax_enable_x64` on or off; unset keeps the project's own setting."),
    Key("dimension-defaults", dict,
        doc="Concrete sizes for symbolic jaxtyping dimensions, e.g. `{ b = 8 }`.",
        page="Sizes for symbolic jaxtyping dimensions, e.g. `{ b = 8, n = 128 }`.",
        docs_type="table: name → int ≥ 1", docs_default="`{}`",
        schema=(("additionalProperties", {"type": "integer", "minimum": 1, "maximum": MAX_DIMENSION}),)),
    Key("default-dimension", int, range=(1, MAX_DIMENSION, ""),
        doc="Size used for a symbolic dimension with no default.",
        page="Size of a symbolic dimension with no default."),
    Key("functions", dict,
        doc="Explicit input specs: `\"pkg.mod:fn\" = { args = \"(f32[8,128], i32[8])\" }`.",
        page="Explicit input specs: `\"pkg.mod:fn\" = { args = \"(f32[8,128], i32[8])\" }`; keys `args`, "
             "`kwargs` (spec strings) and `static` (a table). An array may be split over a target's mesh: "
             "`f32[8192,1024] @ P(\"data\", None)`.",
        docs_default="`{}`",
        schema=(("propertyNames", {"pattern": "^[^:]+:.+$"}),
                ("additionalProperties", {"type": "object", "additionalProperties": False, "properties": {
                    k: {"type": "object"} if k == "static" else {"type": "string"} for k in FUNCTION_KEYS}}))),
    Key("target", str, override=REPLACE, cli=("--target",),
        doc="The target to compile for: a name from `[tool.jaxlint.targets]` or a TPU topology such as "
            "`\"v5e:1x1\"` (compiled deviceless, on any machine); unset: the `backend`'s own devices.",
        page="The target the compile tier builds for: a name from `[tool.jaxlint.targets]` or a TPU topology by "
             "itself (`\"v5e:1x1\"`), compiled deviceless on any machine with `jaxlint[tpu]` installed "
             "([targets.md](targets.md)). Unset: the `backend`'s own devices; `backend = \"tpu\"` alone means the "
             "slice of the TPU host jaxlint runs on. `--target` overrides it."),
)}
