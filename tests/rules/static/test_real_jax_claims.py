"""The static rules' claims, on real jax: what the messages of JAX108 and JAX110-JAX114
say happens does happen (one subprocess runs every claim)."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest


# ---------------------------------------------------------------- the rules' claims, on real jax
CLAIMS_SCRIPT = r'''
import functools, json, warnings
import jax, jax.numpy as jnp

def outcome(fn):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return repr(fn())
    except Exception as e:  # the claim is about which error
        return type(e).__name__

x = jnp.arange(4.0)

def assign(x):
    x[0] = 1.0
    return x

class Model:  # identity hash, attribute read in the trace (JAX108)
    def __init__(self):
        self.scale = 1.0
    @functools.partial(jax.jit, static_argnums=0)
    def __call__(self, x):
        return x * self.scale

m = Model()
first = float(m(1.0))
m.scale = 2.0
key = jax.random.key(0)
out = {
    "JAX110 item assignment": outcome(lambda: jax.jit(assign)(x)),
    "JAX110 discarded": float(jax.jit(lambda x: (x.at[0].set(9.0), x)[1])(x)[0]),
    "JAX111 mask": outcome(lambda: jax.jit(lambda x: x[x > 1])(x)),
    "JAX111 nonzero": outcome(lambda: jax.jit(lambda x: jnp.nonzero(x))(x)),
    "JAX111 sized": outcome(lambda: jax.jit(lambda x: jnp.nonzero(x, size=2)[0].shape)(x)),
    "JAX112 dtype": str(jax.jit(lambda x: x.astype(jnp.float64))(x).dtype),
    "JAX108 list static": outcome(lambda: jax.jit(lambda x, s: x, static_argnums=1)(x, [1, 2])),
    "JAX108 stale self": [first, float(m(1.0))],
    "JAX114 reuse": bool((jax.random.normal(key, (3,)) == jax.random.normal(key, (3,))).all()),
}
print(json.dumps(out))
'''


@pytest.fixture(scope="module")
def claims():
    proc = subprocess.run([sys.executable, "-c", CLAIMS_SCRIPT], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "JAX_PLATFORMS": "cpu"})
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_real_jax_confirms_what_the_messages_say(claims):
    assert claims["JAX110 item assignment"] == "TypeError"
    assert claims["JAX110 discarded"] == 0.0  # the discarded update never happened
    assert claims["JAX111 mask"] == "NonConcreteBooleanIndexError"
    assert claims["JAX111 nonzero"] == "ConcretizationTypeError"
    assert claims["JAX111 sized"] != "ConcretizationTypeError"
    assert claims["JAX112 dtype"] == "float32"  # silently 32-bit without jax_enable_x64
    assert claims["JAX108 list static"] == "ValueError"
    assert claims["JAX108 stale self"] == [1.0, 1.0]  # the new attribute value is ignored
    assert claims["JAX114 reuse"] is True  # one key, two draws: the same numbers
