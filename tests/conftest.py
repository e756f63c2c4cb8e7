import os
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"


def pytest_configure(config):
    # tests must run against the installed package, not the source tree
    import jaxlint

    os.environ.setdefault("JAXLINT_TEST", "1")


@pytest.fixture
def lint():
    """lint(source, select=("JAX101",), options={...}) -> diagnostics (static phase)."""
    from helpers import lint_source

    return lint_source


@pytest.fixture
def run_cli(tmp_path):
    from helpers import run_cli as _run

    return _run
