"""Fuzzing every reader of untrusted files (issue 22): damaged recordings, signatures,
baselines, merge inputs and configs, mutated at random from valid ones. Each read
either succeeds or is one ``ConfigError`` line; nothing else escapes, nothing hangs.
Bounded in count and time like tests/test_static_fuzz.py (a fixed seed: a failure
reproduces)."""
from __future__ import annotations

import json
import random
import time

import pytest

from jaxlint.config import ConfigError

CASES = 300
SECONDS = 60.0

OBSERVED = {"format": 1, "programs": [{"main": "train", "argv": ["train.py", "5"], "cwd": "/p", "env": {}}],
            "functions": {"train:step": {
                "file": "train.py", "line": 6, "qualname": "step", "files": {"train.py": "ab" * 32},
                "levels": ["trace"], "calls": 3, "compiles": 1, "signatures": [], "report": {}, "versions": {},
                "diagnostics": [{"code": "JAX201", "name": "large-constant", "message": "m", "filename": "train.py",
                                 "location": {"row": 7, "column": 12}, "end_location": {"row": 7, "column": 17},
                                 "severity": "info", "phase": "trace", "signature": "s", "fix": None, "data": {"bytes": 4},
                                 "related": [{"filename": "train.py", "message": "here",
                                              "location": {"row": 4, "column": 1},
                                              "end_location": {"row": 4, "column": 2}}]}]}}}
SIGNATURES = {"format": 1, "functions": {"train:step": {
    "file": "train.py", "line": 6, "qualname": "step", "static_argnums": [], "static_argnames": [],
    "transform": "jit", "signatures": [{"args": ["f32[3]", {"tuple": ["i32[] weak", {"value": 2}]}],
                                        "kwargs": {}, "calls": 3}]}}}
BASELINE = {"version": 1, "findings": [{"path": "m.py", "code": "JAX104", "name": "numpy-on-tracer",
                                        "signature": "f:np.sum(x)", "count": 2}]}
REPORT = [OBSERVED["functions"]["train:step"]["diagnostics"][0]]
CONFIG = b'[tool.jaxlint]\nselect = ["JAX1"]\n[tool.jaxlint.dynamic.functions."m:f"]\nargs = "([f32[3]] * 4,)"\n'


def _mutate(rng: random.Random, data: bytes) -> bytes:
    b = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(7)
        i = rng.randrange(len(b) + 1)
        if op == 0 and b:  # flip a byte
            b[min(i, len(b) - 1)] = rng.randrange(256)
        elif op == 1:  # truncate
            del b[i:]
        elif op == 2:  # duplicate a run
            j = rng.randrange(i, len(b) + 1)
            b[i:i] = b[i:j]
        elif op == 3:  # deep nesting
            b[i:i] = b"[" * rng.choice([10, 300, 50_000])
        elif op == 4:  # a value of another type in place of a number or string
            b[i:i] = rng.choice([b'"7"', b"-3", b"1e309", b"null", b"{}", b"[]", b'"../../etc/passwd"', b"true"])
        elif op == 5:  # invalid UTF-8 or a lone surrogate escape
            b[i:i] = rng.choice([b"\xff\xfe", b"\\ud800", b"\x00"])
        else:  # swap two halves
            b = b[i:] + b[:i]
        if not b:
            break
    return bytes(b)


def _readers(tmp_path):
    from jaxlint.findings.baseline import Baseline
    from jaxlint.commands.merge import _diagnostics, _load
    from jaxlint.config import table_of
    from jaxlint.dynamic import signatures
    from jaxlint.dynamic import observed as observations

    def merge(p):
        kind, doc = _load(str(p))
        if kind == "json":
            _diagnostics(doc, str(p))

    return [
        ("observed.json", json.dumps(OBSERVED).encode(), observations.load),
        ("signatures.json", json.dumps(SIGNATURES).encode(), signatures.load),
        ("baseline.json", json.dumps(BASELINE).encode(), Baseline.load),
        ("report.json", json.dumps(REPORT).encode(), merge),
        ("pyproject.toml", CONFIG, table_of),
    ]


def test_the_valid_files_read(tmp_path):
    for name, data, read in _readers(tmp_path):
        p = tmp_path / name
        p.write_bytes(data)
        read(p)


def test_every_reader_of_untrusted_files_under_random_damage(tmp_path):
    rng = random.Random(22)
    readers = _readers(tmp_path)
    start = time.monotonic()
    outcomes = {"read": 0, "refused": 0}
    for n in range(CASES):
        if time.monotonic() - start > SECONDS:
            break
        name, data, read = readers[n % len(readers)]
        p = tmp_path / name
        p.write_bytes(_mutate(rng, data))
        try:
            read(p)
            outcomes["read"] += 1
        except ConfigError as e:
            assert "\n" not in str(e), str(e)
            outcomes["refused"] += 1
        except Exception as e:  # pragma: no cover - the failure this test exists to find
            pytest.fail(f"{name} case {n}: {type(e).__name__}: {e}\n{p.read_bytes()[:300]!r}")
    assert outcomes["refused"] > 0 and sum(outcomes.values()) >= min(CASES, 50), outcomes
