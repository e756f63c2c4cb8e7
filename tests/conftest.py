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


@pytest.fixture(scope="session")
def multi_device_run(tmp_path_factory):
    """The small sharded programs of tests/multi_device.py, checked by one real run on 8
    forced host devices, shared by the test files (and xdist workers) that read it."""
    import os

    pytest.importorskip("jax")
    from multi_device import shared_run

    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # one folder for every worker of this session
    return shared_run(base)
