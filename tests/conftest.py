import pytest


@pytest.fixture
def lint():
    """lint(source, select=("JAX101",), options={...}) -> diagnostics (static phase)."""
    from helpers import lint_source

    return lint_source


@pytest.fixture
def run_cli():
    from helpers import run_cli as _run

    return _run
