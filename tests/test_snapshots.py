"""Snapshots of every output format on the bundled examples, as ruff keeps them: the real
CLI (``python -m jaxlint check examples --output-format X --no-cache``, static phase, run
from the repository root) must print exactly what ``tests/snapshots/check_examples.X``
holds, byte for byte, and exit 1 with nothing on stderr.

Normalised before comparing, and nothing else (both are facts of the machine or the
release, not of the output):

* the repository's absolute path (SARIF's ``originalUriBaseIds`` holds it as a
  ``file://`` URI) becomes ``<root>``;
* jaxlint's version (SARIF's ``tool.driver.version`` and ``semanticVersion``) becomes
  ``<version>``.

The dynamic phase has no snapshot: its messages name what jax produced, which differs
between the jax versions CI runs (on examples/, JAX203 names the callback primitive
``debug_print`` on jax 0.10.2 and ``debug_callback`` on 0.4.38; JAX205 quotes jax's own
error text, ``Slice entries must be static integers. Got slice(None, JitTracer(int32[]),
None)`` against ``Array slice indices must have static start/stop/step ...``), and its
summary carries the jax version and a timing; tests/test_dynamic_examples.py checks its
findings at their lines instead.

To accept a deliberate change of output, rewrite the snapshots and review the diff::

    JAXLINT_UPDATE_SNAPSHOTS=1 .venv/bin/pytest tests/test_snapshots.py
    git diff tests/snapshots/
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from helpers import run_cli
from jaxlint import __version__
from jaxlint.output import load_formats
from sarif_validation import validate_sarif

ROOT = Path(__file__).resolve().parents[1]
SNAPSHOTS = Path(__file__).parent / "snapshots"
FORMATS = ["concise", "full", "json", "json-lines", "sarif", "github", "junit", "gitlab", "markdown"]
UPDATE = os.environ.get("JAXLINT_UPDATE_SNAPSHOTS") == "1"


def normalise(text: str) -> str:
    text = text.replace(ROOT.as_uri(), "<root>").replace(str(ROOT), "<root>")
    return text.replace(f'"{__version__}"', '"<version>"')


def snapshot_path(fmt: str) -> Path:
    return SNAPSHOTS / f"check_examples.{fmt}"


def check_examples(fmt: str) -> str:
    proc = run_cli("check", "examples", "--no-cache", "--output-format", fmt, cwd=ROOT)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert proc.stderr == "", proc.stderr
    return normalise(proc.stdout)


def test_every_output_format_has_a_snapshot():
    assert sorted(FORMATS) == sorted(load_formats())
    assert sorted(p.name for p in SNAPSHOTS.glob("check_examples.*")) == sorted(
        snapshot_path(f).name for f in FORMATS)


@pytest.mark.parametrize("fmt", FORMATS)
def test_output_of_the_examples_matches_the_snapshot(fmt):
    out = check_examples(fmt)
    path = snapshot_path(fmt)
    if UPDATE:
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(out.encode("utf-8"))
    assert path.exists(), f"no snapshot {path.name}: run JAXLINT_UPDATE_SNAPSHOTS=1 pytest {Path(__file__).name}"
    expected = path.read_bytes().decode("utf-8")
    assert out == expected, (f"`jaxlint check examples --output-format {fmt}` changed; if that is meant, "
                             f"run JAXLINT_UPDATE_SNAPSHOTS=1 pytest tests/test_snapshots.py and review "
                             f"`git diff tests/snapshots/`")


def test_the_sarif_snapshot_is_valid_sarif():
    # with this checkout's root URI back in place of ``<root>``
    text = snapshot_path("sarif").read_text(encoding="utf-8").replace("<root>", ROOT.as_uri())
    validate_sarif(json.loads(text))
