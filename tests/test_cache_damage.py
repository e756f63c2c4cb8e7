"""A damaged cache entry is a miss, and is replaced: never an error, a traceback, a hang
or a memory blow-up. Each kind of damage (a FIFO, a symlink to /dev/zero, a folder, a
file of absurd size, `{}`, `[]`, wrong fields, wrong types, truncated JSON, deep
nesting) is planted on a real entry of a real run, static and dynamic, and the next run
must give exactly the fresh run's findings and leave a good entry behind."""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from helpers import run_cli
from jaxlint import __version__
from jaxlint.files.cache import MAX_ENTRY_BYTES, Cache
from jaxlint.static.runner import _cached_outcome

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="FIFOs and symlinks")

GOOD_ENTRY_STATIC = {"d": [], "e": [], "s": False}
_DIAG = {"code": "JAX101", "name": "captured-array", "message": "m", "filename": "a.py",
         "location": {"row": 1, "column": 1}, "end_location": {"row": 1, "column": 2},
         "severity": "warning", "phase": "static", "fix": None}


def _fifo(p: Path) -> None:
    os.mkfifo(p)


def _devzero(p: Path) -> None:
    os.symlink("/dev/zero", p)


def _folder(p: Path) -> None:
    p.mkdir()
    (p / "x").write_text("{}")


def _huge(p: Path) -> None:
    with open(p, "wb") as f:  # sparse: costs no disk
        f.truncate(MAX_ENTRY_BYTES + 1)


def _text(s: str):
    return lambda p: p.write_text(s)


#: kind of damage -> how to do it to the entry at a path
DAMAGE = {
    "fifo": _fifo,
    "symlink-to-dev-zero": _devzero,
    "folder": _folder,
    "huge": _huge,
    "empty-object": _text("{}"),
    "empty-list": _text("[]"),
    "null": _text("null"),
    "empty-file": _text(""),
    "truncated": _text('{"d": [{"code": "JAX1'),
    "not-json": _text("\x00\xff garbage"),
    "deep": _text("[" * 100_000 + "]" * 100_000),
    "wrong-fields": _text('{"functions": 1, "x": []}'),
    "wrong-types": _text(json.dumps({"d": [dict(_DIAG, location={"row": "1", "column": None})],
                                     "e": "x", "s": 0, "functions": {"f": 5}, "failed": 3})),
}

CAPTURED = "import jax\nimport numpy as np\nW = np.ones((1024, 1024))\n\n@jax.jit\ndef f(x):\n    return x @ W\n"


def entries(cache: Path, kind: str) -> list[Path]:
    return sorted((cache / __version__ / kind).glob("*/*.json"))


def findings(proc) -> list[tuple]:
    return sorted((d["filename"], d["code"], d["location"]["row"], d["message"]) for d in json.loads(proc.stdout))


def assert_entry_replaced(p: Path, kind: str) -> None:
    assert p.is_file() and not p.is_symlink(), p
    value = json.loads(p.read_text())
    assert isinstance(value, dict) and (("d" in value) if kind == "static" else ("functions" in value))


def damage_each(paths: list[Path]) -> dict[Path, str]:
    """Plant one kind of damage on each entry (cycling through the kinds)."""
    done = {}
    kinds = list(DAMAGE)
    for i, p in enumerate(paths):
        kind = kinds[i % len(kinds)]
        p.unlink()
        DAMAGE[kind](p)
        done[p] = kind
    return done


def test_every_kind_of_damage_to_static_entries_is_a_miss_and_replaced(tmp_path):
    # enough files for the process pool: damage must not break it (BrokenProcessPool)
    for i in range(len(DAMAGE) + 2):
        (tmp_path / f"m{i}.py").write_text(CAPTURED.replace("1024", str(1024 + i)))
    cache = tmp_path / "cache"
    args = ("check", "--cache-dir", str(cache), "--isolated", "--output-format", "json", "-j", "2", ".")
    fresh = run_cli(*args, cwd=tmp_path, timeout=600)
    assert fresh.returncode == 1, fresh.stderr
    paths = entries(cache, "static")
    assert len(paths) == len(DAMAGE) + 2
    damaged = damage_each(paths[:len(DAMAGE)])
    again = run_cli(*args, cwd=tmp_path, timeout=600)
    assert (again.returncode, again.stderr) == (1, fresh.stderr), again.stderr
    assert findings(again) == findings(fresh)
    for p, kind in damaged.items():
        assert_entry_replaced(p, "static"), kind
    # and the run after reads them back
    third = run_cli(*args, cwd=tmp_path, timeout=600)
    assert findings(third) == findings(fresh)


def test_a_damaged_static_entry_in_a_one_file_run_is_a_miss(tmp_path):
    (tmp_path / "a.py").write_text(CAPTURED)
    cache = tmp_path / "cache"
    args = ("check", "--cache-dir", str(cache), "--isolated", "--output-format", "json", "a.py")
    fresh = run_cli(*args, cwd=tmp_path, timeout=600)
    (p,) = entries(cache, "static")
    for kind, do in DAMAGE.items():
        if p.is_dir():
            import shutil
            shutil.rmtree(p)
        else:
            p.unlink()
        do(p)
        again = run_cli(*args, cwd=tmp_path, timeout=600)
        assert (again.returncode, again.stderr, findings(again)) == (1, "", findings(fresh)), kind
        assert_entry_replaced(p, "static")


DYNAMIC = """
import jax

@jax.jit  # jaxlint: args=(f32[16],)
def f{i}(x):
    for _ in range(40):
        x = x * 2 + {i}
    return x
"""


def test_every_kind_of_damage_to_dynamic_entries_is_a_miss_and_replaced(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.jaxlint]\n[tool.jaxlint.dynamic]\nenabled = true\nworkers = 2\n")
    for i in range(len(DAMAGE)):
        (tmp_path / f"d{i}.py").write_text(DYNAMIC.format(i=i))
    cache = tmp_path / "cache"
    args = ("check", "--cache-dir", str(cache), "--output-format", "json", "--select", "JAX2", ".")
    fresh = run_cli(*args, cwd=tmp_path, timeout=600)
    assert fresh.returncode == 1, fresh.stderr
    assert len({f[0] for f in findings(fresh)}) == len(DAMAGE)
    paths = entries(cache, "dynamic")
    assert len(paths) == len(DAMAGE)
    damaged = damage_each(paths)
    again = run_cli(*args, cwd=tmp_path, timeout=600)
    assert again.returncode == 1 and "Traceback" not in again.stderr, again.stderr
    assert findings(again) == findings(fresh)
    for p, kind in damaged.items():
        assert_entry_replaced(p, "dynamic"), kind


# ------------------------------------------------------------------------------ property
json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=8)),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(
        st.sampled_from(["d", "e", "s", "code", "location", "row", "column", "filename", "fix", "x"]), inner,
        max_size=5)), max_leaves=12)
entry_like = st.fixed_dictionaries({"d": st.one_of(json_values, st.lists(st.fixed_dictionaries(
    {k: st.one_of(st.just(v), json_values) for k, v in _DIAG.items()}), max_size=2)),
    "e": st.one_of(st.just([]), json_values), "s": st.one_of(st.booleans(), json_values)})


@settings(max_examples=300, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=st.one_of(json_values, entry_like))
def test_any_json_in_a_static_entry_is_a_miss_or_a_well_formed_outcome(tmp_path, value):
    cache = Cache(tmp_path)
    cache.put("static", "ab" * 32, value)
    out = cache.get("static", "ab" * 32, lambda v: _cached_outcome("a.py", v))
    if out is None:
        return
    assert isinstance(out.errors, list) and isinstance(out.skipped, bool)
    for d in out.diagnostics:  # usable by every output format
        sorted([d, d], key=lambda x: x.sort_key)
        assert isinstance(d.start.line, int) and isinstance(d.message, str)
        json.dumps(d.to_dict())


@settings(max_examples=100, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=64))
def test_any_bytes_in_an_entry_are_a_miss_or_json(tmp_path, data):
    cache = Cache(tmp_path)
    cache.put("static", "cd" * 32, None)
    p = cache._path("static", "cd" * 32)
    p.write_bytes(data)
    got = cache.get("static", "cd" * 32)
    if got is not None:
        assert got == json.loads(data)
