"""Issue 37: donation that cannot alias is not deletion. jax keeps a donated argument no
output can take (the "donated buffers were not usable" warning), so the static JAX113's
"deleted after the call" and the recorded JAX210's "donated and passed again" are false
for it; a deleted array still answers its shape. Real jax, real `check` and `record`."""
from __future__ import annotations

import json
import warnings

import pytest

from helpers import lines, run_cli

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")


def test_jax_deletes_only_the_donations_it_can_alias_and_a_deleted_array_answers_its_shape():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "Some donated buffers were not usable"
        total = jax.jit(lambda x, y: (x * y).sum(), donate_argnums=(0, 1))
        x, y = jnp.ones((1000,)), jnp.ones((1000,))
        total(x, y)
        assert not x.is_deleted() and not y.is_deleted()  # no output to alias: both kept
        total(x, x)  # and one buffer passed twice is no error
        scale = jax.jit(lambda x, y: x * y, donate_argnums=(0, 1))
        x, y = jnp.ones((1000,)), jnp.ones((1000,))
        scale(x, y)
        assert x.is_deleted() and not y.is_deleted()  # one output: one donation used
    assert (x.shape, str(x.dtype), x.ndim, x.size, len(x)) == ((1000,), "float32", 1, 1000, 1000)


def test_reading_a_donated_arrays_shape_is_not_a_use():
    src = """
import functools
import jax

@functools.partial(jax.jit, donate_argnums=0)
def step(state, batch):
    return state + batch

def train(state, batch):
    new = step(state, batch)
    print(state.shape, state.dtype, len(state), state.ndim)
    return new, state.sum()
"""
    assert lines("JAX113", src) == [11]  # the `.sum()` only (the source is read from its first line)


UNALIASED = '''
import functools

import jax
import jax.numpy as jnp


@functools.partial(jax.jit, donate_argnums=(0, 1))
def loss(params, batch):
    return jnp.mean((batch @ params) ** 2)  # a scalar: nothing can take either buffer


@functools.partial(jax.jit, donate_argnums=0)
def update(params, grads):
    return params - 0.1 * grads


def train(params, batch):
    for _ in range(3):
        value = loss(params, batch)  # params and batch passed again on every iteration
    print(params.sum(), value)
    new = update(params, jnp.ones_like(params))
    return new, params.sum()  # params: deleted by `update`, whose output takes it


if __name__ == "__main__":
    p = jnp.ones((8, 8))
    try:
        train(p, jnp.ones((4, 8)))
    except ValueError:  # `params` was deleted by `update`: the read at line 22 fails
        pass
    q = jnp.ones((8, 8))
    loss(q, q)  # one buffer donated twice: no error, nothing was deleted
'''


@pytest.fixture(scope="module")
def unaliased(tmp_path_factory):
    root = tmp_path_factory.mktemp("unaliased")
    (root / "pyproject.toml").write_text('[tool.jaxlint]\nselect = ["JAX113", "JAX210", "JAX302"]\n')
    (root / "train.py").write_text(UNALIASED.lstrip())
    # every place: the test is about which reads are claims, not how they are grouped
    static = run_cli("check", "--no-cache", "--every-place", "--output-format", "json", "train.py", cwd=root, timeout=300)
    rec = run_cli("record", "--compile", "--", "python", "train.py", cwd=root, timeout=600)
    assert rec.returncode == 0, rec.stderr[-2000:]
    measured = run_cli("check", "--dynamic", "--compile", "--no-cache", "--output-format", "json", "train.py",
                       cwd=root, timeout=600)
    show = lambda p: sorted((d["code"], d["location"]["row"]) for d in json.loads(p.stdout))  # noqa: E731
    return show(static), show(measured), json.loads(measured.stdout)


def test_the_static_guess_reports_the_uses_after_a_donation(unaliased):
    static, _, _ = unaliased
    assert ("JAX113", 19) in static and ("JAX113", 20) in static  # the loop, the read after it
    assert ("JAX113", 32) in static  # loss(q, q)
    assert ("JAX113", 22) in static  # the read after `update`: a real deletion


def test_a_donation_measured_useless_replaces_the_static_deletion_claims_and_no_jax210(unaliased):
    _, measured, diags = unaliased
    assert [row for code, row in measured if code == "JAX113"] == [22], measured  # only the real one
    assert not any(code == "JAX210" for code, _ in measured), measured  # loss(p, p) ran: nothing refused
    useless = [d for d in diags if d["code"] == "JAX302" and "could not be used" in d["message"]]
    assert useless and useless[0]["location"]["row"] == 7, measured  # at `donate_argnums=(0, 1)`
