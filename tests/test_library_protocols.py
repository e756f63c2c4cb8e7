"""The libraries' tracing protocols (``jaxlint/static/protocols.py``, the jit map's
entry kinds, the value model's fields): which code flax linen, flax nnx, equinox and
haiku trace, and which of its values are tracers there.

Each case is a VALID/INVALID program of our own. INVALID marks the line a rule must
report (``# <-``) at the default confidence; VALID must stay quiet at any confidence.
``test_cases_are_true_under_the_libraries`` runs every case under the real libraries:
INVALID ones fail (or print a tracer), VALID ones run clean.
"""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from dataclasses import dataclass

import pytest

from helpers import lint_source


@dataclass(frozen=True)
class Case:
    id: str
    rule: str
    source: str
    #: a statement that runs the program's traced code (the truth check)
    run: str
    valid: bool
    needs: str = ""  # a library the truth check needs beyond jax / flax / equinox

    @property
    def text(self) -> str:
        return textwrap.dedent(self.source).lstrip("\n")

    @property
    def marked(self) -> int | None:
        for i, line in enumerate(self.text.splitlines(), 1):
            if line.rstrip().endswith("# <-"):
                return i
        return None


_LINEN = """
import jax
import jax.numpy as jnp
import flax.linen as nn


class Block(nn.Module):
    features: int

    @nn.compact
    def __call__(self, x, train: bool = False):
        if self.features > 2 and not train:
            x = x * 2
        @BODY
        return nn.Dense(self.features)(x)


class Net(nn.Module):
    depth: int = 2

    @nn.compact
    def __call__(self, x):
        for _ in range(self.depth):
            x = Block(3)(x)
        return x


"""
_LINEN_RUN = "v = {model}.init(jax.random.key(0), jnp.ones((2, 3))); {call}"

CASES: list[Case] = [
    # --- flax linen: Module.apply / init inside jit trace __call__ (and the submodules
    # it makes and calls, `Block(3)(x)`); `jax.jit(model.apply)` traces it with every
    # argument; outside a trace apply runs eagerly
    Case("linen-apply-in-jit", "JAX105", _LINEN.replace("@BODY", "if x.sum() > 0:  # <-\n            x = -x") + """
model = Block(3)


@jax.jit
def step(variables, x):
    return model.apply(variables, x)
""", _LINEN_RUN.format(model="model", call="step(v, jnp.ones((2, 3)))"), valid=False),
    Case("linen-jit-of-apply", "JAX106", _LINEN.replace("@BODY", "print(x)  # <-") + """
model = Block(3)
forward = jax.jit(model.apply)
""", _LINEN_RUN.format(model="model", call="forward(v, jnp.ones((2, 3)))"), valid=False),
    Case("linen-submodule-of-apply", "JAX105", _LINEN.replace("@BODY", "assert x.min() > -10  # <-") + """
net = Net()


@jax.jit
def step(variables, x):
    return net.apply(variables, x)
""", _LINEN_RUN.format(model="net", call="step(v, jnp.ones((2, 3)))"), valid=False),
    Case("linen-method-named", "JAX105", _LINEN.replace("@BODY", "pass") + """
class Enc(nn.Module):
    def encode(self, x):
        return float(x.sum())  # <-

    def __call__(self, x):
        return x


enc = Enc()


@jax.jit
def step(variables, x):
    return enc.apply(variables, x, method=Enc.encode)
""", "step({}, jnp.ones(3))", valid=False),
    Case("linen-apply-eager", "JAX105", _LINEN.replace("@BODY", "if x.sum() > 0:  # <-\n            x = -x") + """
model = Block(3)


def predict(variables, x):
    return model.apply(variables, x)
""", _LINEN_RUN.format(model="model", call="predict(v, jnp.ones((2, 3)))"), valid=True),
    Case("linen-static-attribute-and-flag", "JAX105", _LINEN.replace(
        "@BODY", "if self.features > 1 or train:  # <-\n            x = x + 1") + """
model = Block(3)


@jax.jit
def step(variables, x):
    return model.apply(variables, x, train=True)
""", _LINEN_RUN.format(model="model", call="step(v, jnp.ones((2, 3)))"), valid=True),
    Case("linen-lifted-remat-class", "JAX105", _LINEN.replace("@BODY", "if x.sum() > 0:  # <-\n            x = -x") + """
RematBlock = nn.remat(Block)


class Deep(nn.Module):
    @nn.compact
    def __call__(self, x):
        x = RematBlock(3)(x)
        return nn.scan(Block, variable_broadcast="params", split_rngs={"params": False}, length=1)(3)(x)


deep = Deep()


@jax.jit
def step(variables, x):
    return deep.apply(variables, x)
""", _LINEN_RUN.format(model="deep", call="step(v, jnp.ones((2, 3)))"), valid=False),
    # --- haiku: hk.transform(f).apply / init run f
    Case("haiku-apply-in-jit", "JAX105", """
import jax
import jax.numpy as jnp
import haiku as hk


def forward(x):
    if x.sum() > 0:  # <-
        x = -x
    return hk.Linear(3)(x)


net = hk.transform(forward)


@jax.jit
def step(params, key, x):
    return net.apply(params, key, x)
""", "p = net.init(jax.random.key(0), jnp.ones((2, 3))); step(p, jax.random.key(1), jnp.ones((2, 3)))",
         valid=False, needs="haiku"),
    Case("haiku-jit-of-apply-without-rng", "JAX106", """
import jax
import jax.numpy as jnp
import haiku as hk


def forward(x, is_training=False):
    if is_training:
        x = x * 2
    print(x)  # <-
    return hk.Linear(3)(x)


net = hk.without_apply_rng(hk.transform(forward))
apply = jax.jit(net.apply)
""", "p = net.init(jax.random.key(0), jnp.ones((2, 3))); apply(p, jnp.ones((2, 3)))", valid=False, needs="haiku"),
    Case("haiku-default-flag", "JAX105", """
import jax
import jax.numpy as jnp
import haiku as hk


def forward(x, is_training=False):
    if is_training:  # <-
        x = x * 2
    return hk.Linear(3)(x)


net = hk.without_apply_rng(hk.transform(forward))
apply = jax.jit(net.apply)
""", "p = net.init(jax.random.key(0), jnp.ones((2, 3))); apply(p, jnp.ones((2, 3)))", valid=True, needs="haiku"),
    # --- flax nnx: nnx.jit traces Python numbers like jax.jit; a module's plain
    # attributes are static
    Case("nnx-jit-int-argument", "JAX105", """
import jax
import jax.numpy as jnp
from flax import nnx


@nnx.jit
def scale(x, n):
    if n > 2:  # <-
        return x * n
    return x
""", "scale(jnp.ones(2), 3)", valid=False),
    Case("nnx-jit-module-attribute", "JAX105", """
import jax
import jax.numpy as jnp
from flax import nnx


class MLP(nnx.Module):
    def __init__(self, depth: int, rngs: nnx.Rngs):
        self.depth = depth
        self.lin = nnx.Linear(2, 2, rngs=rngs)


@nnx.jit
def step(model: MLP, x):
    if model.depth > 2:  # <-
        x = x * 2
    return model.lin(x)
""", "step(MLP(3, nnx.Rngs(0)), jnp.ones(2))", valid=True),
    # --- equinox: an eqx.Module's array fields are leaves (traced under jax.jit and
    # eqx.filter_jit), eqx.field(static=True) is static, and filter_jit keeps a field
    # holding a Python number static
    Case("eqx-module-array-field-under-jit", "JAX105", """
import jax
import jax.numpy as jnp
import equinox as eqx


class E(eqx.Module):
    a: jax.Array
    n: int = eqx.field(static=True, default=3)


@jax.jit
def f(m: E):
    if m.a.sum() > 0:  # <-
        return m.a
    return -m.a
""", "f(E(jnp.ones(2)))", valid=False),
    Case("eqx-module-array-field-under-filter-jit", "JAX104", """
import jax
import jax.numpy as jnp
import numpy as np
import equinox as eqx


class E(eqx.Module):
    a: jax.Array
    count: int


@eqx.filter_jit
def f(m: E):
    return np.asarray(m.a)  # <-
""", "f(E(jnp.ones(2), 3))", valid=False),
    Case("eqx-module-static-field", "JAX105", """
import jax
import jax.numpy as jnp
import equinox as eqx


class E(eqx.Module):
    a: jax.Array
    n: int = eqx.field(static=True, default=3)


@jax.jit
def f(m: E):
    if m.n > 2:  # <-
        return m.a * 2
    return m.a
""", "f(E(jnp.ones(2)))", valid=True),
    Case("eqx-module-number-field-under-filter-jit", "JAX105", """
import jax
import jax.numpy as jnp
import equinox as eqx


class E(eqx.Module):
    a: jax.Array
    count: int


@eqx.filter_jit
def f(m: E):
    if m.count > 2:  # <-
        return m.a * 2
    return m.a
""", "f(E(jnp.ones(2), 3))", valid=True),
]


_CUSTOM_VJP = """
import functools
import jax
import jax.numpy as jnp


@jax.custom_vjp
def f(x):
    return x * 2


def f_fwd(x):
    if x > 0:  # <-
        pass
    return x * 2, x


def f_bwd(res, g):
    return (g * 2,)


f.defvjp(f_fwd, f_bwd)
"""
CASES += [
    # --- jax custom derivatives: the rules run where the function is differentiated:
    # traced under jit(grad(f)), on concrete primals under an eager jax.grad;
    # nondiff_argnums reach the rules as Python values
    Case("custom-vjp-fwd-under-jit-of-grad", "JAX105", _CUSTOM_VJP + """

step = jax.jit(jax.grad(f))
""", "step(1.0)", valid=False),
    Case("custom-vjp-bwd-under-jit-of-grad", "JAX106", _CUSTOM_VJP.replace("if x > 0:  # <-", "if x is None:").replace(
        "    return (g * 2,)", "    print(res)  # <-\n    return (g * 2,)") + """

step = jax.jit(jax.grad(f))
""", "step(1.0)", valid=False),
    Case("custom-vjp-under-eager-grad", "JAX105", _CUSTOM_VJP + """

def slope(x):
    return jax.grad(f)(x)
""", "slope(1.0)", valid=True),
    Case("custom-jvp-nondiff-argument", "JAX105", """
import functools
import jax
import jax.numpy as jnp


@functools.partial(jax.custom_jvp, nondiff_argnums=(0,))
def g(n, x):
    return x * n


@g.defjvp
def g_jvp(n, primals, tangents):
    if n > 2:  # <-
        n = n - 1
    (x,), (t,) = primals, tangents
    return x * n, t * n


@jax.jit
def step(x):
    return jax.grad(lambda y: g(3, y))(x)
""", "step(1.0)", valid=True),
    Case("custom-jvp-rule-under-jit-of-grad", "JAX105", """
import jax
import jax.numpy as jnp


@jax.custom_jvp
def g(x):
    return x * 2


@g.defjvp
def g_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    if x > 0:  # <-
        t = t * 2
    return x * 2, t


@jax.jit
def step(x):
    return jax.grad(g)(x)
""", "step(1.0)", valid=False),
    Case("custom-vjp-nondiff-argnames", "JAX105", """
import functools
import jax
import jax.numpy as jnp


@functools.partial(jax.custom_vjp, nondiff_argnames=("save",))
def f(x, save: bool):
    return x * 2


def f_fwd(x, save: bool):
    if save:  # <-
        return x * 2, x
    return x * 2, None


def f_bwd(save, res, g):
    return (g * 2,)


f.defvjp(f_fwd, f_bwd)


@jax.jit
def step(x):
    return jax.grad(lambda y: f(y, save=True))(x)
""", "step(1.0)", valid=True),
    # --- equinox's filter_checkpoint traces (even outside jit) the array arguments only
    Case("eqx-filter-checkpoint-array", "JAX105", """
import jax
import jax.numpy as jnp
import equinox as eqx


def layer(x: jax.Array, n: int):
    if x.sum() > n:  # <-
        return x
    return -x


out = eqx.filter_checkpoint(layer)(jnp.ones(3), 3)
""", "", valid=False),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_case(case: Case):
    check(case)


def check(case: Case) -> None:
    """A VALID case stays quiet at any confidence; an INVALID one is reported on its
    marked line at the default confidence (also used by ``test_library_protocols2``)."""
    assert case.marked is not None, case.id
    if case.valid:
        found = lint_source(case.text, select=[case.rule], confidence="possible")
        assert not found, [(d.start.line, d.message) for d in found]
    else:
        found = lint_source(case.text, select=[case.rule])
        assert case.marked in [d.start.line for d in found], (
            [(d.start.line, d.message) for d in found], case.text)


_UNDER_LIBRARIES = """
import contextlib, io, json, sys, warnings
warnings.simplefilter("ignore")
out = {}
for cid, text, run in json.load(sys.stdin):
    buf = io.StringIO()
    try:
        with contextlib.redirect_stdout(buf):
            ns = {"__name__": "case_" + cid.replace("-", "_")}
            exec(compile(text + "\\n" + run + "\\n", cid, "exec"), ns)
        out[cid] = "printed-tracer" if "Tracer" in buf.getvalue() else "clean"
    except Exception as e:
        out[cid] = "raised: " + type(e).__name__
print(json.dumps(out))
"""


def test_cases_are_true_under_the_libraries():
    pytest.importorskip("flax")
    pytest.importorskip("equinox")
    have_haiku = subprocess.run([sys.executable, "-c", "import haiku"], capture_output=True).returncode == 0
    cases = [c for c in CASES if not c.needs or (c.needs == "haiku" and have_haiku)]
    proc = subprocess.run([sys.executable, "-c", _UNDER_LIBRARIES], capture_output=True, text=True, timeout=600,
                          input=json.dumps([(c.id, c.text, c.run) for c in cases]))
    assert proc.returncode == 0, proc.stderr[-3000:]
    signals = json.loads(proc.stdout.strip().splitlines()[-1])
    for c in cases:
        if c.valid:
            assert signals[c.id] == "clean", (c.id, signals[c.id])
        else:  # a tracer was printed, or jax refused one (not a mistake of the program)
            assert signals[c.id] == "printed-tracer" or "Tracer" in signals[c.id] \
                or "Concretization" in signals[c.id], (c.id, signals[c.id])
