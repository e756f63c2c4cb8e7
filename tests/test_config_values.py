"""Every bad config value is a one-line error (exit 2) naming the file and the key, read
where the config is read: never a traceback, never a value that passes and breaks later
(a NaN timeout that never expires, a memory cap setrlimit refuses, a function entry that
only becomes a skip). Regressions for the exact inputs of the stress run through the
real CLI, then properties over values by type and range through the loader."""
from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from helpers import run_cli
from jaxlint.config import (
    DYNAMIC_RANGES, ConfigError, DynamicSettings, _DYNAMIC_TYPES, load_settings,
)
from jaxlint.dynamic.signatures import load as load_signatures

GOOD = "import jax\n\n@jax.jit\ndef f(x):\n    return x\n"


def one_line_error(r, *names: str) -> str:
    """The CLI failed as a config error should: exit 2, one line, naming every one of ``names``."""
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    assert "Traceback" not in r.stderr and "usage:" not in r.stderr, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    for n in names:
        assert n in lines[0], (n, lines[0])
    return lines[0]


def check_with(tmp_path: Path, config: bytes | str, name: str = "pyproject.toml", *args: str):
    (tmp_path / name).write_bytes(config if isinstance(config, bytes) else config.encode())
    (tmp_path / "a.py").write_text(GOOD)
    return run_cli("check", "--no-cache", *args, "a.py", cwd=tmp_path, timeout=600)


# ------------------------------------------------------------------- the stress run's inputs
def test_a_config_that_is_not_utf8_is_one_error_naming_the_file_and_the_byte(tmp_path):
    r = check_with(tmp_path, b"\xff\xfe[tool.jaxlint]\n")
    one_line_error(r, str(tmp_path / "pyproject.toml"), "UTF-8", "0xff")


def test_a_config_given_with_config_that_is_not_utf8_is_one_error(tmp_path):
    (tmp_path / "other.toml").write_bytes(b'select = ["JAX1"]\n# \xfe\n')
    (tmp_path / "a.py").write_text(GOOD)
    r = run_cli("check", "--no-cache", "--config", "other.toml", "a.py", cwd=tmp_path)
    one_line_error(r, "other.toml", "line 2")


def test_a_select_nested_5000_deep_is_one_error_not_a_recursion_traceback(tmp_path):
    r = check_with(tmp_path, "[tool.jaxlint]\nselect = " + "[" * 5000 + "]" * 5000 + "\n")
    one_line_error(r, "pyproject.toml", "nested")


def test_a_select_nested_shallow_enough_to_parse_is_a_short_error(tmp_path):
    r = check_with(tmp_path, "[tool.jaxlint]\nselect = " + "[" * 200 + "]" * 200 + "\n")
    line = one_line_error(r, "pyproject.toml", "`select`")
    assert len(line) < 300, line


@pytest.mark.parametrize("value", ["5", "'JAX1'", "[1, 2]", "true"])
def test_tool_jaxlint_that_is_not_a_table_is_one_error(tmp_path, value):
    r = check_with(tmp_path, f"[tool]\njaxlint = {value}\n")
    one_line_error(r, "pyproject.toml", "[tool.jaxlint]")


@pytest.mark.parametrize("toml,key", [
    ("function-timeout = nan", "function-timeout"),
    ("function-timeout = inf", "function-timeout"),
    ("file-timeout = -nan", "file-timeout"),
    ("compile-timeout = -1", "compile-timeout"),
    ("memory-limit-mb = -5", "memory-limit-mb"),
    ("memory-limit-mb = 9223372036854775807", "memory-limit-mb"),
    ("workers = -1", "workers"),
    ("default-dimension = 0", "default-dimension"),
    ("default-dimension = -3", "default-dimension"),
    ("dimension-defaults = {b = -1}", "dimension-defaults.b"),
    ('dimension-defaults = {b = "x"}', "dimension-defaults.b"),
    ('functions = {"a:f" = 5}', '"a:f"'),
    ('functions = {"a:f" = {argz = "(f32[4],)"}}', "argz"),
    ('functions = {"a:f" = {args = "(f32[4],"}}', '"a:f"'),
    ('functions = {"a:f" = {args = "(q32[4],)"}}', "q32"),
    ('functions = {"a:f" = {args = 5}}', "args"),
    ('functions = {"a:f" = {static = "n=4"}}', "static"),
    ('functions = {"a.f" = {args = "(f32[4],)"}}', '"a.f"'),
], ids=lambda v: v if len(v) < 30 else v[:30])
def test_every_bad_dynamic_value_is_one_error_naming_the_file_and_the_key(tmp_path, toml, key):
    r = check_with(tmp_path, f"[tool.jaxlint.dynamic]\n{toml}\n")
    one_line_error(r, str(tmp_path / "pyproject.toml"), key)


@pytest.mark.parametrize("toml,key", [
    ("[tool.jaxlint.rules.JAX303]\nmax-instructions = nan", "max-instructions"),
    ("[tool.jaxlint.rules.JAX303]\nmax-instructions = inf", "max-instructions"),
])
def test_a_rule_option_that_is_not_finite_is_one_error(tmp_path, toml, key):
    one_line_error(check_with(tmp_path, toml + "\n"), "pyproject.toml", key)


def test_a_good_function_entry_still_loads(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.jaxlint.dynamic]\nfunctions = {"pkg.mod:f" = {args = "(f32[8, n],)", static = {k = 2}}}\n'
        "dimension-defaults = {n = 4}\ndefault-dimension = 3\nmemory-limit-mb = 0\nworkers = 2\n")
    s = load_settings(tmp_path / "pyproject.toml")
    assert s.dynamic.functions == {"pkg.mod:f": {"args": "(f32[8, n],)", "static": {"k": 2}}}
    assert (s.dynamic.default_dimension, s.dynamic.memory_limit_mb, s.dynamic.workers) == (3, 0, 2)


@pytest.mark.parametrize("data,key", [
    ({"functions": {"a:f": 5}}, '"a:f"'),
    ({"functions": {"a:f": {"signatures": [5]}}}, "signatures[0]"),
    ({"functions": {"a:f": {"signatures": "xyz"}}}, "signatures"),
    ({"functions": {"a:f": {"signatures": [{"args": 5}]}}}, "args"),
    ({"functions": {"a:f": {"signatures": [{"args": [], "kwargs": []}]}}}, "kwargs"),
    ({"functions": {"a:f": {"signatures": [{"args": [], "calls": -2}]}}}, "calls"),
    ({"functions": []}, "functions"),
], ids=lambda v: str(v)[:40])
def test_a_signatures_file_of_the_wrong_shape_is_one_error_naming_file_and_key(tmp_path, data, key):
    (tmp_path / "sigs.json").write_text(json.dumps(data))
    (tmp_path / "pyproject.toml").write_text("[tool.jaxlint]\n")
    (tmp_path / "a.py").write_text(GOOD)
    r = run_cli("check", "--no-cache", "--dynamic", "--signatures", "sigs.json", "a.py", cwd=tmp_path, timeout=600)
    one_line_error(r, "sigs.json", key)


def test_a_signatures_file_nested_too_deep_is_one_error(tmp_path):
    p = tmp_path / "sigs.json"
    p.write_text('{"functions": ' + "[" * 100_000 + "]" * 100_000 + "}")
    with pytest.raises(ConfigError) as e:
        load_signatures(p)
    assert "sigs.json" in str(e.value) and "\n" not in str(e.value)


@pytest.mark.parametrize("argv,flag", [
    (["--per-file-ignores", "bad"], "--per-file-ignores"),
    (["--shard", "3/2"], "--shard"),
    (["--jobs", "-1"], "--jobs"),
])
def test_a_bad_option_value_is_one_line_without_the_usage_block(tmp_path, argv, flag):
    (tmp_path / "a.py").write_text(GOOD)
    r = run_cli("check", *argv, "a.py", cwd=tmp_path)
    one_line_error(r, flag)


# ------------------------------------------------------------------------------ properties
def toml_value(v) -> str:
    """``v`` written as a TOML value (inline tables for dicts)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(v, str):
        return toml_string(v)
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    return "{" + ", ".join(f"{toml_string(k)} = {toml_value(x)}" for k, x in v.items()) + "}"


def toml_string(s: str) -> str:
    # JSON's escapes are TOML's, but TOML wants DEL escaped and non-BMP characters as they are
    return json.dumps(s, ensure_ascii=False).replace("\x7f", "\\u007f")


ints = st.one_of(st.integers(-(2**63), 2**63 - 1), st.integers(-5, 5), st.sampled_from([0, 1, 1024, 1025]))
floats = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.sampled_from([0.0, -0.0, 1e-300, 1e300]))
texts = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)
scalars = st.one_of(st.booleans(), ints, floats, texts)
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                       st.dictionaries(texts, inner, max_size=3)), max_leaves=6)
entry_specs = st.sampled_from(["(f32[8],)", "(f32[8], i32[])", "(f32[", "(q8[2],)", "(f32[b, 4],)", "", "()", "x"])
function_entries = st.one_of(
    values,
    st.dictionaries(st.sampled_from(["args", "kwargs", "static", "argz"]),
                    st.one_of(entry_specs, values), max_size=3),
)


def _load(tmp: Path, body: str):
    p = tmp / "jaxlint.toml"
    p.write_text(body, encoding="utf-8")
    return p, load_settings(p)


def _assert_names(e: ConfigError, path: Path, key: str) -> None:
    msg = str(e)
    assert "\n" not in msg and len(msg) < 400, msg
    assert str(path) in msg and key in msg, (key, msg)


FAST = settings(max_examples=150, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture])


@FAST
@given(key=st.sampled_from(sorted(_DYNAMIC_TYPES)), value=st.one_of(values, function_entries.map(lambda e: {"m:f": e})))
def test_any_dynamic_value_is_accepted_sane_or_rejected_naming_the_key(tmp_path, key, value):
    try:
        path, s = _load(tmp_path, f"[dynamic]\n{key} = {toml_value(value)}\n")
    except ConfigError as e:
        _assert_names(e, tmp_path / "jaxlint.toml", key.split(".")[0])
        return
    got = getattr(s.dynamic, key.replace("-", "_"))
    if key.endswith("-timeout"):
        assert math.isfinite(got) and got > 0
    if key in DYNAMIC_RANGES:
        low, high, _ = DYNAMIC_RANGES[key]
        assert isinstance(got, int) and not isinstance(got, bool) and low <= got <= high
    if key == "dimension-defaults":
        assert all(type(v) is int and v >= 1 for v in got.values())
    if key == "functions":
        from jaxlint.config.inputspec import spec_from_parts

        for fkey, entry in got.items():
            assert ":" in fkey and set(entry) <= {"args", "kwargs", "static"}
            spec_from_parts(entry.get("args"), entry.get("kwargs"), entry.get("static"), "config", fkey)


@FAST
@given(table=st.dictionaries(st.sampled_from(["select", "ignore", "exclude", "per-file-ignores", "rules", "dynamic",
                                              "cache-dir", "extend", "force-exclude", "selcet"]), values, max_size=3))
def test_any_jaxlint_table_loads_or_is_one_config_error(tmp_path, table):
    body = "".join(f"{toml_string(k)} = {toml_value(v)}\n" for k, v in table.items())
    try:
        _load(tmp_path, body)
    except ConfigError as e:
        assert "\n" not in str(e) and str(tmp_path / "jaxlint.toml") in str(e), str(e)


@settings(max_examples=60, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=40))
def test_any_bytes_as_a_config_file_load_or_are_one_config_error(tmp_path, data):
    p = tmp_path / "jaxlint.toml"
    p.write_bytes(data)
    try:
        load_settings(p)
    except ConfigError as e:
        assert "\n" not in str(e) and str(p) in str(e), str(e)


@FAST
@given(entry=values)
def test_any_signatures_entry_loads_or_is_one_config_error(tmp_path, entry):
    p = tmp_path / "sigs.json"
    p.write_text(json.dumps({"functions": {"m:f": entry}}, allow_nan=True))
    try:
        out = load_signatures(p)
    except ConfigError as e:
        assert "\n" not in str(e) and str(p) in str(e) and "m:f" in str(e), str(e)
        return
    for sig in out["m:f"]["signatures"]:
        assert isinstance(sig.get("args", []), list) and isinstance(sig.get("kwargs", {}), dict)


def test_default_dynamic_settings_pass_their_own_validation():
    from jaxlint.config import check_dynamic_value

    d = DynamicSettings()
    for key in _DYNAMIC_TYPES:
        value = getattr(d, key.replace("-", "_"))
        if value is not None:
            check_dynamic_value(key, dict(value) if isinstance(value, dict) else value)

