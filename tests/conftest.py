import os
import signal

import pytest

from jaxlint.inspect.levels import hand_rules

# the tests run jaxlint's engine in this process as its entry points do: with its rules
hand_rules()

# The suite runs jaxlint and jax as each test sets them up, not as the shell that started
# it does: a developer's JAXLINT_CACHE_DIR moved the caches the cache tests look for,
# JAX_ENABLE_X64=1 or XLA_FLAGS changed what the dynamic tests trace (four tests failed).
# Tests that need one of these set it themselves. JAX_PLATFORMS stays: which backend this
# machine has is the machine's (the gpu-marked tests read it); so does the suite's own
# JAXLINT_UPDATE_SNAPSHOTS (tests/test_snapshots.py).
for _name in [n for n in os.environ if n.startswith(("JAXLINT_", "JAX_")) or n == "XLA_FLAGS"]:
    if _name not in ("JAX_PLATFORMS", "JAXLINT_UPDATE_SNAPSHOTS"):
        del os.environ[_name]

# On a TPU host pytest's own jax runs on the CPU (tests/own_jax.py says why); the programs
# and workers tests start still see the chips. Nothing changes on a machine without one.
from own_jax import keep_own_jax_on_the_cpu  # noqa: E402
from jaxlint.targets import tpu_chips  # noqa: E402

keep_own_jax_on_the_cpu(tpu_chips())

# The suite started under `nohup`, or as a background job of a shell without job control
# (`cmd &` in a script), inherits SIGHUP and SIGINT ignored, and every process a test
# starts inherits that too: jaxlint then rightly leaves them ignored (the user asked for
# it), and the tests of what Ctrl-C and a hang-up do fail. Give the test processes the
# dispositions a terminal gives (a caught signal is reset to the default in children).
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)
if hasattr(signal, "SIGHUP") and signal.getsignal(signal.SIGHUP) is signal.SIG_IGN:
    signal.signal(signal.SIGHUP, signal.SIG_DFL)


@pytest.fixture(autouse=True)
def _hangup_as_a_terminal_gives_it():
    """libtpu, once loaded in this process (a test that compiles for a TPU here, or any
    `jax.devices()` where it is installed: jax tries the TPU backend first), sets SIGHUP
    to be ignored behind Python's back, and every process a later test starts inherits
    that (seen: the SIGHUP tests failed in whole-suite runs only). Each test starts with
    the terminal's disposition again."""
    if hasattr(signal, "SIGHUP") and signal.getsignal(signal.SIGHUP) in (signal.SIG_DFL, signal.SIG_IGN):
        signal.signal(signal.SIGHUP, signal.SIG_DFL)
    yield


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
