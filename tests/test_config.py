"""Configuration through the real CLI: nearest config wins, `extend`, errors that name
the key and the file, `--show-settings`, `--show-files`, and the committed JSON schema."""
from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import jsonschema
import pytest

from helpers import run_cli
from jaxlint.config import ConfigError, DynamicSettings, Settings, TOP_LEVEL_KEYS, _DYNAMIC_TYPES, load_settings
from jaxlint.config.schema import SCHEMA_PATH, build_schema, render

ROOT = Path(__file__).resolve().parents[1]

# a captured 8 MiB array (JAX101) and a 500-step Python loop (JAX102) in one function
BOTH = textwrap.dedent(
    """
    import jax
    import numpy as np
    W = np.ones((1024, 1024))

    @jax.jit
    def f(x):
        for i in range(500):
            x = x + i
        return x @ W
    """
).lstrip()


def _tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        p = root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text).lstrip())
    return root


def _codes(r) -> dict[str, set[str]]:
    """filename -> codes, from a JSON report."""
    out: dict[str, set[str]] = {}
    for d in json.loads(r.stdout):
        out.setdefault(d["filename"], set()).add(d["code"])
    return out


def _check(cwd, *args):
    return run_cli("check", "--no-cache", "--output-format", "json", *args, cwd=cwd)


def _settings(r) -> list[dict]:
    """The JSON objects `--show-settings` prints, one per distinct config."""
    out, text, i = [], r.stdout, 0
    dec = json.JSONDecoder()
    while i < len(text):
        if text[i].isspace():
            i += 1
            continue
        obj, i = dec.raw_decode(text, i)
        out.append(obj)
    return out


@pytest.fixture
def nested(tmp_path):
    return _tree(tmp_path, {
        "pyproject.toml": '[tool.jaxlint]\nselect = ["JAX101"]\n',
        "a.py": BOTH,
        "sub/jaxlint.toml": 'select = ["JAX102"]\n',
        "sub/b.py": BOTH,
        "sub/deeper/c.py": BOTH,
    })


# ------------------------------------------------------------------- nearest config
def test_nested_project_with_its_own_config_gets_its_own_selection(nested):
    expected = {"a.py": {"JAX101"}, "sub/b.py": {"JAX102"}, "sub/deeper/c.py": {"JAX102"}}
    assert _codes(_check(nested, ".")) == expected
    assert _codes(_check(nested, "a.py", "sub/b.py", "sub/deeper/c.py")) == expected
    assert _codes(_check(nested / "sub" / "deeper", "c.py", "../../a.py")) == {
        "c.py": {"JAX102"}, "../../a.py": {"JAX101"}}


def test_pyproject_without_a_jaxlint_table_does_not_stop_the_search(nested):
    (nested / "sub" / "jaxlint.toml").unlink()
    (nested / "sub" / "pyproject.toml").write_text('[project]\nname = "sub"\n')
    assert _codes(_check(nested, "sub/b.py")) == {"sub/b.py": {"JAX101"}}


def test_dot_jaxlint_toml_wins_over_pyproject_in_the_same_folder(nested):
    (nested / ".jaxlint.toml").write_text('select = ["JAX102"]\n')
    assert _codes(_check(nested, "a.py")) == {"a.py": {"JAX102"}}


def test_explicit_config_applies_to_every_file_and_isolated_ignores_all(nested):
    (nested / "only101.toml").write_text('select = ["JAX101"]\n')
    assert _codes(_check(nested, "--config", "only101.toml", ".")) == {
        "a.py": {"JAX101"}, "sub/b.py": {"JAX101"}, "sub/deeper/c.py": {"JAX101"}}
    assert _codes(_check(nested, "--isolated", "sub/b.py")) == {"sub/b.py": {"JAX101", "JAX102"}}


def test_cli_select_starts_over_and_cli_ignore_adds(nested):
    (nested / "pyproject.toml").write_text('[tool.jaxlint]\nignore = ["JAX101"]\n')
    assert _codes(_check(nested, "a.py")) == {"a.py": {"JAX102"}}
    assert _codes(_check(nested, "--select", "JAX101", "a.py")) == {"a.py": {"JAX101"}}
    assert _check(nested, "--select", "JAX101", "--ignore", "captured-array", "a.py").returncode == 0


# --------------------------------------------------------------------------- extend
def test_extend_inherits_selection_and_rule_options(tmp_path):
    _tree(tmp_path, {
        "pyproject.toml": '[tool.jaxlint]\nselect = ["JAX1"]\n'
                          '[tool.jaxlint.rules.python-loop-in-jit]\nmax-iterations = 1000\n',
        "sub/jaxlint.toml": 'extend = "../pyproject.toml"\n[rules.captured-array]\nmax-bytes = 100000000\n',
        "sub/b.py": BOTH,
        "a.py": BOTH,
    })
    assert _codes(_check(tmp_path, ".")) == {"a.py": {"JAX101"}}
    [s] = _settings(run_cli("check", "--show-settings", "sub/b.py", cwd=tmp_path))
    assert s["rule_options"] == {"JAX102": {"max-iterations": 1000}, "JAX101": {"max-bytes": 100000000}}
    assert s["config_file"].endswith("sub/jaxlint.toml") and s["select"] == ["JAX1"]


def test_select_in_an_extending_file_starts_over(tmp_path):
    _tree(tmp_path, {
        "pyproject.toml": '[tool.jaxlint]\nextend-select = ["JAX190"]\nignore = ["JAX102"]\n',
        "sub/jaxlint.toml": 'extend = "../pyproject.toml"\nselect = ["JAX101", "JAX102"]\n',
        "sub/b.py": BOTH,
    })
    [s] = _settings(run_cli("check", "--show-settings", "sub/b.py", cwd=tmp_path))
    assert s["active_rules"] == ["JAX101", "JAX102"]


def test_ignore_and_extend_select_in_an_extending_file_add_to_the_inherited_ones(tmp_path):
    _tree(tmp_path, {
        "pyproject.toml": '[tool.jaxlint]\nselect = ["JAX101", "JAX102"]\nignore = ["JAX102"]\n',
        "sub/jaxlint.toml": 'extend = "../pyproject.toml"\nignore = ["JAX101"]\n',
        "sub/b.py": BOTH,
        "other/jaxlint.toml": 'extend = "../pyproject.toml"\nextend-select = ["JAX102", "JAX190"]\n',
        "other/c.py": BOTH,
    })
    sub, = _settings(run_cli("check", "--show-settings", "sub/b.py", cwd=tmp_path))
    assert sub["active_rules"] == []
    other, = _settings(run_cli("check", "--show-settings", "other/c.py", cwd=tmp_path))
    assert other["active_rules"] == ["JAX101", "JAX102", "JAX190"]


def test_inherited_folder_patterns_stay_relative_to_the_file_that_wrote_them(tmp_path):
    _tree(tmp_path, {
        "pyproject.toml": '[tool.jaxlint]\nextend-exclude = ["sub/generated"]\n'
                          '[tool.jaxlint.per-file-ignores]\n"sub/*.py" = ["JAX101"]\n',
        "sub/jaxlint.toml": 'extend = "../pyproject.toml"\n',
        "sub/b.py": BOTH,
        "sub/generated/g.py": BOTH,
        "other/c.py": BOTH,
    })
    assert _codes(_check(tmp_path, ".")) == {"sub/b.py": {"JAX102"}, "other/c.py": {"JAX101", "JAX102"}}
    # from inside sub/, where the patterns would otherwise be read relative to sub/
    assert _codes(_check(tmp_path / "sub", ".")) == {"b.py": {"JAX102"}}
    assert run_cli("check", "--show-files", ".", cwd=tmp_path / "sub").stdout.split() == ["b.py"]


def test_extend_cycle_and_missing_target_are_errors_naming_the_file(tmp_path):
    _tree(tmp_path, {"a/jaxlint.toml": 'extend = "../b/jaxlint.toml"\n', "b/jaxlint.toml": 'extend = "../a/jaxlint.toml"\n',
                     "a/x.py": BOTH})
    r = run_cli("check", "a/x.py", cwd=tmp_path)
    assert r.returncode == 2 and "cycle" in r.stderr and "jaxlint.toml" in r.stderr
    (tmp_path / "a" / "jaxlint.toml").write_text('extend = "../nowhere.toml"\n')
    r = run_cli("check", "a/x.py", cwd=tmp_path)
    assert r.returncode == 2 and "nowhere.toml" in r.stderr and str(tmp_path / "a" / "jaxlint.toml") in r.stderr


# --------------------------------------------------------------------------- errors
BAD_CONFIGS = [
    ('selcet = ["JAX101"]', "selcet"),
    ('select = "JAX101"', "select"),
    ('select = ["JAX9"]', "JAX9"),
    ('extend-select = ["nope"]', "nope"),
    ('ignore = ["NOPE1"]', "NOPE1"),
    ('exclude = [1]', "exclude"),
    ('force-exclude = "yes"', "force-exclude"),
    ('cache-dir = 3', "cache-dir"),
    ('per-file-ignores = 3', "per-file-ignores"),
    ('[per-file-ignores]\n"x.py" = ["BAD1"]', "BAD1"),
    ('[rules.not-a-rule]\nx = 1', "not-a-rule"),
    ('[rules.JAX101]\nmax-byte = 1', "max-byte"),
    ('[rules.captured-array]\nmax-bytes = "big"', "max-bytes"),
    ('[rules.JAX101]\nmax-bytes = -1', "max-bytes"),
    ('[dynamic]\nbacknd = "cpu"', "backnd"),
    ('[dynamic]\nbackend = "fpga"', "backend"),
    ('[dynamic]\nworkers = "2"', "workers"),
    ('[dynamic]\nfunction-timeout = 0', "function-timeout"),
]


@pytest.mark.parametrize("toml,key", BAD_CONFIGS, ids=[k for _, k in BAD_CONFIGS])
def test_bad_config_exits_2_naming_the_key_and_the_file(tmp_path, toml, key):
    _tree(tmp_path, {"sub/jaxlint.toml": toml + "\n", "sub/b.py": BOTH})
    r = run_cli("check", "sub/b.py", cwd=tmp_path)
    assert r.returncode == 2, r.stdout
    assert f"`{key}`" in r.stderr or f"'{key}'" in r.stderr, r.stderr
    assert str(tmp_path / "sub" / "jaxlint.toml") in r.stderr


@pytest.mark.parametrize("toml,key", [c for c in BAD_CONFIGS if c[1] not in ("JAX9",)],
                         ids=[k for _, k in BAD_CONFIGS if k != "JAX9"])
def test_the_schema_rejects_what_the_loader_rejects(toml, key):
    tomllib = pytest.importorskip("tomllib") if sys.version_info >= (3, 11) else pytest.importorskip("tomli")

    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(tomllib.loads(toml), build_schema())


def test_invalid_toml_exits_2_naming_the_file(tmp_path):
    _tree(tmp_path, {"pyproject.toml": "[tool.jaxlint]\nselect = [\n", "a.py": BOTH})
    r = run_cli("check", "a.py", cwd=tmp_path)
    assert r.returncode == 2 and "invalid TOML" in r.stderr and "pyproject.toml" in r.stderr


# ----------------------------------------------------------- --show-settings / files
def test_show_settings_prints_each_config_with_its_active_rules(nested):
    r = run_cli("check", "--show-settings", ".", cwd=nested)
    assert r.returncode == 0
    by_file = {Path(s["config_file"]).name: s for s in _settings(r)}
    assert set(by_file) == {"pyproject.toml", "jaxlint.toml"}
    assert by_file["pyproject.toml"]["active_rules"] == ["JAX101"]
    assert by_file["jaxlint.toml"]["active_rules"] == ["JAX102"]
    assert by_file["jaxlint.toml"]["root"] == str((nested / "sub").resolve())


def test_show_settings_without_config_shows_the_defaults(tmp_path):
    (tmp_path / "a.py").write_text(BOTH)
    [s] = _settings(run_cli("check", "--show-settings", "a.py", cwd=tmp_path))
    assert s["config_file"] is None and "JAX101" in s["active_rules"] and "JAX190" not in s["active_rules"]
    assert ".venv" in s["exclude"]


def test_show_files_applies_default_config_and_nested_excludes(tmp_path):
    _tree(tmp_path, {
        "pyproject.toml": '[tool.jaxlint]\nextend-exclude = ["legacy", "gen/*.py"]\n',
        "a.py": "import jax\n",
        "stubs.pyi": "import jax\n",
        "notes.txt": "x\n",
        ".venv/lib/x.py": "import jax\n",
        "build/y.py": "import jax\n",
        # Jupyter's autosave of a notebook or script: a copy, not the project's code (ruff skips it)
        ".ipynb_checkpoints/a-checkpoint.py": "import jax\n",
        "nb/.ipynb_checkpoints/run-checkpoint.ipynb": "{}\n",
        "legacy/old.py": "import jax\n",
        "gen/made.py": "import jax\n",
        "sub/jaxlint.toml": 'exclude = ["skip_*.py"]\n',
        "sub/keep.py": "import jax\n",
        "sub/skip_me.py": "import jax\n",
        "sub/build/kept.py": "import jax\n",  # sub's own `exclude` replaced the defaults
    })
    r = run_cli("check", "--show-files", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["a.py", "stubs.pyi", "sub/build/kept.py", "sub/keep.py"]


def test_explicit_excluded_file_is_checked_unless_force_exclude(tmp_path):
    _tree(tmp_path, {"pyproject.toml": '[tool.jaxlint]\nextend-exclude = ["legacy"]\n', "legacy/old.py": BOTH})
    assert run_cli("check", "--show-files", "legacy/old.py", cwd=tmp_path).stdout.split() == ["legacy/old.py"]
    r = run_cli("check", "--show-files", "--force-exclude", "legacy/old.py", cwd=tmp_path)
    assert r.stdout.split() == []
    (tmp_path / "pyproject.toml").write_text('[tool.jaxlint]\nextend-exclude = ["legacy"]\nforce-exclude = true\n')
    assert run_cli("check", "--show-files", "legacy/old.py", cwd=tmp_path).stdout.split() == []


def test_explicit_folder_inside_an_excluded_folder_is_walked_unless_force_exclude(tmp_path):
    # ruff's rule: excludes apply below an explicit folder, not to the folders above it
    _tree(tmp_path, {"build/proj/m.py": "import jax\n", "build/proj/dist/gen.py": "import jax\n",
                     "venv/lib/site-packages/pkg/a.py": "import jax\n"})
    assert run_cli("check", "--show-files", ".", cwd=tmp_path).stdout.split() == []
    assert run_cli("check", "--show-files", "build/proj", cwd=tmp_path).stdout.split() == ["build/proj/m.py"]
    assert run_cli("check", "--show-files", "--isolated", "venv/lib/site-packages/pkg",
                   cwd=tmp_path).stdout.split() == ["venv/lib/site-packages/pkg/a.py"]
    assert run_cli("check", "--show-files", "--force-exclude", "build/proj", cwd=tmp_path).stdout.split() == []


def test_paths_with_no_python_files_warn_instead_of_passing_silently(tmp_path):
    _tree(tmp_path, {"notes/readme.txt": "x\n", "legacy/old.py": "import jax\n",
                     "pyproject.toml": '[tool.jaxlint]\nextend-exclude = ["legacy"]\n'})
    r = run_cli("check", "notes", cwd=tmp_path)
    assert r.returncode == 0 and "no Python files found" in r.stderr
    r = run_cli("check", "--force-exclude", "legacy/old.py", cwd=tmp_path)
    assert r.returncode == 0 and "no Python files found" in r.stderr
    assert "no Python files" not in run_cli("check", "legacy/old.py", cwd=tmp_path).stderr


def test_show_files_skips_what_git_ignores(tmp_path):
    _tree(tmp_path, {".gitignore": "ignored.py\n", "kept.py": "import jax\n", "ignored.py": "import jax\n"})
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    assert run_cli("check", "--show-files", ".", cwd=tmp_path).stdout.split() == ["kept.py"]
    (tmp_path / "jaxlint.toml").write_text("respect-gitignore = false\n")
    assert run_cli("check", "--show-files", ".", cwd=tmp_path).stdout.split() == ["ignored.py", "kept.py"]


# ----------------------------------------------------------------------- the schema
def test_committed_schema_matches_the_config_model():
    assert SCHEMA_PATH.read_text(encoding="utf-8") == render(), (
        "regenerate with `python -m jaxlint.docgen`")


def test_docgen_writes_the_schema(tmp_path):
    """``python -m jaxlint.docgen ROOT`` writes the schema with the docs (an entry point: it
    hands the registry the rules whose options the schema lists)."""
    r = subprocess.run([sys.executable, "-m", "jaxlint.docgen", str(tmp_path)], capture_output=True, text=True,
                       cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    written = json.loads((tmp_path / "jaxlint" / "schema" / "config.schema.json").read_text(encoding="utf-8"))
    assert written == build_schema() and "rule-JAX101" in written["$defs"]
    jsonschema.Draft202012Validator.check_schema(build_schema())


def test_every_key_and_option_is_described_in_the_schema():
    schema = build_schema()
    assert set(schema["properties"]) == set(TOP_LEVEL_KEYS)
    assert all(p["description"] for p in schema["properties"].values())
    assert set(schema["properties"]["dynamic"]["properties"]) == set(_DYNAMIC_TYPES)
    assert schema["properties"]["dynamic"]["properties"]["backend"]["default"] == DynamicSettings().backend
    from jaxlint.registry import all_rules

    for r in all_rules():
        table = schema["$defs"][f"rule-{r.code}"]
        assert set(table["properties"]) == set(r.options) | {"severity"}  # every rule's severity, and its options
        assert all(table["properties"][k]["default"] == o.default for k, o in r.options.items())
        assert schema["properties"]["rules"]["properties"][r.name] == {"$ref": f"#/$defs/rule-{r.code}"}


def test_a_key_declared_once_reaches_parsing_overrides_docs_and_schema(tmp_path, monkeypatch):
    """A key is one entry of jaxlint.config.keys; its value lands in the settings field of
    its name, whose default is the key's. Declared there (and its field given, here by a
    subclass of the settings), `shout` is read from a config file and checked, set by the
    command line's override, listed with its type and default in docs/configuration.md's
    table, and described, typed and defaulted in the JSON schema, which editors check."""
    from dataclasses import dataclass

    from jaxlint import docgen
    from jaxlint.config import apply_overrides, keys, schema

    @dataclass(frozen=True)
    class WithShout(Settings):
        shout: bool = False

    key = keys.Key("shout", bool, doc="Report in capitals.", override=keys.ON, cli=("--shout",))
    monkeypatch.setitem(keys.TOP_LEVEL, "shout", key)
    for module in ("jaxlint.config", "jaxlint.config.schema", "jaxlint.docgen"):
        monkeypatch.setattr(f"{module}.Settings", WithShout)
    cfg = tmp_path / "jaxlint.toml"
    cfg.write_text("shout = true\n")
    assert load_settings(cfg).shout is True  # parsing
    cfg.write_text("shout = 'yes'\n")
    with pytest.raises(ConfigError, match=r"jaxlint.toml: `shout` must be true or false, got 'yes'$"):
        load_settings(cfg)
    assert load_settings(None).shout is False and apply_overrides(WithShout(), {"shout": True}).shout is True
    assert "| `shout` | bool | `false` | Report in capitals. |" in docgen.keys_table(keys.TOP_LEVEL, WithShout())
    prop = schema.build_schema()["properties"]["shout"]
    assert prop == {"description": "Report in capitals.", "type": "boolean", "default": False}
    jsonschema.validate({"shout": True}, schema.build_schema())
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"shout": 1}, schema.build_schema())


def test_every_keys_flags_are_the_check_commands():
    """The flags a key declares (``Key.cli``) are flags of ``jaxlint check``."""
    from jaxlint.config.keys import DYNAMIC, TOP_LEVEL
    from jaxlint.pipeline import CheckOptions

    flags = {f for fld in CheckOptions.__dataclass_fields__.values() for flag in fld.metadata.get("cli", ())
             for f in flag.flags}
    declared = {f for k in (*TOP_LEVEL.values(), *DYNAMIC.values()) for f in k.cli}
    assert declared and declared <= flags, sorted(declared - flags)


def _docs_example() -> str:
    text = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    m = re.search(r"```toml\n(\[tool\.jaxlint\].*?)```", text, re.S)
    assert m, "docs/configuration.md has a full [tool.jaxlint] example"
    return m.group(1)


def test_the_documented_example_config_validates_and_loads(tmp_path):
    tomllib = pytest.importorskip("tomllib") if sys.version_info >= (3, 11) else pytest.importorskip("tomli")

    example = _docs_example()
    table = tomllib.loads(example)["tool"]["jaxlint"]
    jsonschema.validate(table, build_schema())
    for key in TOP_LEVEL_KEYS:
        if key != "extend":
            assert key in table, f"the documented example shows `{key}`"
    (tmp_path / "pyproject.toml").write_text(example)
    s = load_settings(tmp_path / "pyproject.toml")
    assert s.config_file == (tmp_path / "pyproject.toml").resolve()
