"""JAX208 at the line that made a new static-field object wherever the program made it
(issue 37, the seventeenth blind judgement's scikit-learn-style estimator): ``fit`` makes
``nnx.ModelAndOptimizer(self.model, optax.adam(self.lr))``, keeps it on ``self`` and passes
it down through helpers to the ``nnx.jit`` step, which compiles again for each fit. The
finding names the statement in ``fit`` (followed from the call through each helper's
parameter to its callers, through ``self.<attr>`` to the method that set it), with the call
as related; where two callers pass different objects, or the module sets the attribute too, the
source does not say which made it, and the finding stays at the call. A real program under the
real ``jaxlint record``. (Not a run example of the rule: CI's jax 0.4.38 environment, which
runs those, has a flax without ``nnx.ModelAndOptimizer``.)"""
from __future__ import annotations

import importlib.util
import json

import pytest

from helpers import record_program, run_cli


def _has_model_and_optimizer() -> bool:
    """flax >= 0.11 (`nnx.ModelAndOptimizer`; CI's jax 0.4.38 environment has flax 0.10.4),
    read from its metadata: the program imports flax in its own process."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return tuple(int(p) for p in version("flax").split(".")[:2]) >= (0, 11)
    except (PackageNotFoundError, ValueError):
        return False


pytestmark = pytest.mark.skipif(not importlib.util.find_spec("optax") or not _has_model_and_optimizer(),
                                reason="needs optax and flax >= 0.11 (nnx.ModelAndOptimizer)")

PROGRAM = '''
import jax.numpy as jnp
import optax
from flax import nnx


def loss_fn(m, x):
    return (m(x) ** 2).mean()


@nnx.jit
def passed_step(model, optimizer, x):
    optimizer.update(nnx.grad(loss_fn)(model, x))


@nnx.jit
def stored_step(model, optimizer, x):
    optimizer.update(nnx.grad(loss_fn)(model, x))


@nnx.jit
def reused_step(model, optimizer, x):
    optimizer.update(nnx.grad(loss_fn)(model, x))


@nnx.jit
def two_makers_step(model, optimizer, x):
    optimizer.update(nnx.grad(loss_fn)(model, x))


@nnx.jit
def outside_step(model, optimizer, x):
    optimizer.update(nnx.grad(loss_fn)(model, x))


def _epoch(model, optimizer, x):
    for _ in range(2):
        passed_step(model, optimizer, x)  # CALL passed


def train(model, optimizer, x):
    for _ in range(2):
        _epoch(model, optimizer, x)


class Estimator:
    def __init__(self, model, lr):
        self.model, self.lr = model, lr
        self._optimizer = None

    def fit(self, x):
        self._optimizer = nnx.ModelAndOptimizer(self.model, optax.adam(self.lr))  # MADE passed
        train(self.model, self._optimizer, x)
        return self


class Stored:
    def __init__(self, model):
        self.model = model

    def fit(self, x, lr):
        self.opt = nnx.ModelAndOptimizer(self.model, optax.sgd(lr))  # MADE stored
        self._epochs(x)

    def _epochs(self, x):
        for _ in range(3):
            stored_step(self.model, self.opt, x)  # CALL stored


class Reused:
    def __init__(self, model):
        self.model = model
        self.opt = nnx.ModelAndOptimizer(model, optax.adam(1e-3))

    def fit(self, x):
        for _ in range(3):
            reused_step(self.model, self.opt, x)


class Runner:
    def __init__(self, model):
        self.model = model

    def fit(self, x, lr):
        self.tx_opt = nnx.ModelAndOptimizer(self.model, optax.sgd(lr))
        self.run(x)

    def run(self, x):
        for _ in range(2):
            outside_step(self.model, self.tx_opt, x)  # CALL outside


def _steps(model, optimizer, x):
    for _ in range(2):
        two_makers_step(model, optimizer, x)  # CALL two


def fit_adam(model, x):
    _steps(model, nnx.ModelAndOptimizer(model, optax.adam(1e-3)), x)


def fit_sgd(model, x):
    opt = nnx.ModelAndOptimizer(model, optax.sgd(1e-3))
    _steps(model, opt, x)


x = jnp.ones((8, 4))
model = nnx.Linear(4, 2, rngs=nnx.Rngs(0))
est, stored, reused, runner = Estimator(model, 1e-3), Stored(model), Reused(model), Runner(model)
for lr in (1e-3, 1e-2, 1e-1):
    runner.fit(x, lr)
    runner.tx_opt = nnx.ModelAndOptimizer(model, optax.adam(lr))
    runner.run(x)
    est.fit(x)
    stored.fit(x, lr)
    reused.fit(x)
    fit_adam(model, x)
    fit_sgd(model, x)
'''

LINES = PROGRAM.lstrip("\n").splitlines()


def _line(mark: str) -> int:
    return next(i for i, line in enumerate(LINES, 1) if line.endswith(f"# {mark}"))


@pytest.fixture(scope="module")
def found(tmp_path_factory):
    root = tmp_path_factory.mktemp("upstream")
    record_program(root, PROGRAM, "--compile")
    check = run_cli("check", "--dynamic", "--compile", "--select", "JAX208", "--output-format", "json", ".",
                    cwd=root, timeout=600)
    out = [d for d in json.loads(check.stdout) if d["code"] == "JAX208"]
    return {step: [d for d in out if f"`{step}`" in d["message"]]
            for step in ("passed_step", "stored_step", "reused_step", "two_makers_step", "outside_step")}


@pytest.mark.parametrize("step,mark", [("passed_step", "passed"), ("stored_step", "stored")])
def test_said_at_the_statement_that_made_the_optimizer_in_another_function(found, step, mark):
    got = found[step]
    assert len(got) == 1, got
    d = got[0]
    assert d["location"]["row"] == _line(f"MADE {mark}"), d
    assert "static field `tx`" in d["message"]
    assert f"is made at line {_line(f'MADE {mark}')} in `fit`" in d["message"]
    related = [(r["location"]["row"], r["message"]) for r in d.get("related") or []]
    assert (_line(f"CALL {mark}"), "the call that compiles again") in related, related


def test_one_optimizer_made_once_and_reused_is_no_finding(found):
    assert found["reused_step"] == []


@pytest.mark.parametrize("step,mark", [("two_makers_step", "two"), ("outside_step", "outside")])
def test_where_the_source_names_no_one_maker_it_stays_at_the_call(found, step, mark):
    # two callers pass different objects; an attribute the class sets and the module sets too
    got = found[step]
    assert len(got) == 1, got
    assert got[0]["location"]["row"] == _line(f"CALL {mark}")
    assert "is made at line" not in got[0]["message"]
