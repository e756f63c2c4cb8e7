"""More of the libraries' protocols and their classes (session 51): a static argument that
a checkpoint inside the jit traces again, unhashable values inside tuples and NamedTuples
given as static arguments, keys closed over by the body of a lax loop, flax's
``TrainState.apply_fn``, equinox's ``filter_jvp`` / ``filter_vjp`` and its custom rules,
abstract evaluation (``jax.eval_shape``, ``jax.make_jaxpr``), ``jax.jvp`` / ``vjp`` /
``linearize`` bodies and haiku's ``multi_transform``.

Each case is a VALID/INVALID program of our own (none is a recall case): INVALID marks the
line the rule must report (``# <-``) at the default confidence; VALID must stay quiet at
any confidence. ``test_cases_are_true_under_jax`` runs every case under real jax and checks
what it says of the program: ``tracer`` (jax raises a tracer error), ``ValueError``
(jax refuses an unhashable static argument), ``printed-tracer`` (a print showed a
tracer), ``same`` / ``differ`` (the ``run`` statement sets ``draws``, one draw per
iteration: all equal, or not), ``clean`` (runs). Cases that need flax, equinox or haiku
(not a test dependency) skip when it is not installed.
"""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from test_library_protocols import Case, check


def case(id: str, rule: str, source: str, run: str, expect: str, valid: bool | None = None) -> Case:
    """A case whose truth under jax is ``expect``: "tracer", "printed-tracer",
    "ValueError", "same", "differ" (VALID when "clean" or "differ", or when ``valid`` says
    so: a behaviour the rule leaves alone by its documented scope)."""
    EXPECT[id] = expect
    return Case(id, rule, source, run, valid=expect in ("clean", "differ") if valid is None else valid)


EXPECT: dict[str, str] = {}
_BUMP = """
import functools
import jax
import jax.numpy as jnp


def bump(flag, y):
    if flag:  # <-
        return y + 1
    return y
"""

CASES: list[Case] = [
    # --- jit's static arguments given to a checkpoint inside it: the checkpoint traces
    # every argument it is given except its own static_argnums
    case("jit-of-remat-static-argnums", "JAX105", _BUMP + """
bump_jit = jax.jit(jax.remat(bump), static_argnums=0)
""", "bump_jit(True, 1.0)", "tracer"),
    case("jit-of-checkpoint-static-argnames", "JAX105", _BUMP + """
bump_jit = jax.jit(jax.checkpoint(bump), static_argnames="flag")
""", "bump_jit(True, 1.0)", "tracer"),
    case("jit-of-checkpoint-of-partial", "JAX105", _BUMP.replace("def bump(flag, y)", "def bump(scale, flag, y)") + """
bump_jit = jax.jit(jax.checkpoint(functools.partial(bump, 2.0)), static_argnums=0)
""", "bump_jit(True, 1.0)", "tracer"),
    case("jit-over-checkpoint-decorator", "JAX105", """
import functools
import jax


@functools.partial(jax.jit, static_argnums=1)
@jax.checkpoint
def step(y, flag):
    if flag:  # <-
        return y + 1
    return y
""", "step(1.0, True)", "tracer"),
    case("jit-of-remat-static-size", "JAX111", """
import jax
import jax.numpy as jnp


def pad(x, k):
    return jnp.zeros(k) + x  # <-


pad_jit = jax.jit(jax.remat(pad), static_argnums=1)
""", "pad_jit(1.0, 3)", "tracer"),
    case("jit-of-checkpoint-with-its-own-static", "JAX105", _BUMP + """
bump_jit = jax.jit(jax.checkpoint(bump, static_argnums=(0,)), static_argnums=0)
""", "bump_jit(True, 1.0)", "clean"),
    case("jit-over-checkpoint-decorator-with-its-own-static", "JAX105", """
import functools
import jax


@functools.partial(jax.jit, static_argnums=1)
@functools.partial(jax.checkpoint, static_argnums=(1,))
def step(y, flag):
    if flag:  # <-
        return y + 1
    return y
""", "step(1.0, True)", "clean"),
    case("jit-of-custom-vjp-static", "JAX105", """
import jax


@jax.custom_vjp
def f(flag, y):
    if flag:  # <-
        return y + 1
    return y


f.defvjp(lambda flag, y: (f(flag, y), None), lambda r, g: (None, g))
f_jit = jax.jit(f, static_argnums=0)
""", "f_jit(True, 1.0)", "tracer"),
    case("jit-of-custom-jvp-nondiff-static", "JAX105", """
import functools
import jax


@functools.partial(jax.custom_jvp, nondiff_argnums=(0,))
def f(flag, y):
    if flag:  # <-
        return y + 1
    return y


@f.defjvp
def f_jvp(flag, primals, tangents):
    return f(flag, *primals), tangents[0]


f_jit = jax.jit(f, static_argnums=0)
""", "f_jit(True, 1.0)", "clean"),
    case("jit-of-grad-static-passes-through", "JAX105", """
import jax


def loss(y, flag):
    if flag:  # <-
        return y * 2
    return y


g = jax.jit(jax.grad(loss), static_argnums=1)
""", "g(1.0, True)", "clean"),
    # --- a tuple hashes by hashing its elements: a tuple or NamedTuple holding a list,
    # dict or array is an unhashable static argument
    case("namedtuple-holding-list-static", "JAX108", """
from typing import Any, NamedTuple
import jax
import jax.numpy as jnp


class State(NamedTuple):
    packed: list
    treedef: Any


def run(n, state):
    return n


run_jit = jax.jit(run, static_argnums=1)


def main():
    s = State([jnp.ones(2)], None)
    return run_jit(3, s)  # <-
""", "main()", "ValueError"),
    case("namedtuple-keyword-dict-static", "JAX108", """
from typing import NamedTuple
import functools
import jax


class Cfg(NamedTuple):
    sizes: tuple
    opts: dict


@functools.partial(jax.jit, static_argnames="cfg")
def f(x, cfg):
    return x * len(cfg.sizes)


def main():
    return f(1.0, cfg=Cfg(sizes=(1, 2), opts={"a": 1}))  # <-
""", "main()", "ValueError"),
    case("tuple-holding-list-static", "JAX108", """
import functools
import jax


@functools.partial(jax.jit, static_argnums=1)
def f(x, dims):
    return x * dims[0]


def main():
    return f(1.0, (2, [3, 4]))  # <-
""", "main()", "ValueError"),
    case("collections-namedtuple-holding-list-static", "JAX108", """
import collections
import functools
import jax

Cfg = collections.namedtuple("Cfg", ["sizes", "name"])


@functools.partial(jax.jit, static_argnums=1)
def f(x, cfg):
    return x * cfg.sizes[0]


def main():
    return f(1.0, Cfg([2, 3], "a"))  # <-
""", "main()", "ValueError"),
    case("typing-namedtuple-call-static", "JAX108", """
import functools
import typing
import jax

Cfg = typing.NamedTuple("Cfg", [("sizes", tuple), ("name", str)])


@functools.partial(jax.jit, static_argnums=1)
def f(x, cfg):
    return x * cfg.sizes[0]


def main():
    return f(1.0, Cfg(sizes=(2, 3), name="a"))  # <-
""", "main()", "clean"),
    case("tuple-of-tuples-static", "JAX108", """
from typing import NamedTuple
import functools
import jax


class Cfg(NamedTuple):
    sizes: tuple
    name: str


@functools.partial(jax.jit, static_argnums=1)
def f(x, cfg):
    return x * cfg[0].sizes[0]


def main():
    return f(1.0, (Cfg((2, 3), "a"), (4, 5)))  # <-
""", "main()", "clean"),
    # --- a body run once per iteration by a lax loop, drawing from a key it closes over
    case("fori-body-closed-key", "JAX114", """
import jax
import jax.numpy as jnp


def draws_of(key, n):
    def body(i, out):
        return out.at[i].set(jax.random.normal(key, ()))  # <-
    return jax.lax.fori_loop(0, n, body, jnp.zeros(n))
""", "draws = draws_of(jax.random.key(0), 4)", "same"),
    case("scan-body-splits-closed-key", "JAX114", """
import jax
import jax.numpy as jnp


def draws_of(key, n):
    def step(carry, _):
        k1, k2 = jax.random.split(key)  # <-
        return carry, jax.random.uniform(k1)
    return jax.lax.scan(step, 0.0, None, length=n)[1]
""", "draws = draws_of(jax.random.key(0), 4)", "same"),
    case("map-lambda-closed-key", "JAX114", """
import jax
import jax.numpy as jnp


def draws_of(key, xs):
    return jax.lax.map(lambda x: x + jax.random.normal(key, x.shape), xs)  # <-
""", "draws = draws_of(jax.random.key(0), jnp.zeros(4))", "same"),
    case("while-body-closed-key-via-helper", "JAX114", """
import jax
import jax.numpy as jnp


def noise(k, shape):
    return jax.random.normal(k, shape)


def draws_of(key, n):
    def body(c):
        i, out = c
        return i + 1, out.at[i].set(noise(key, ()))  # <-
    return jax.lax.while_loop(lambda c: c[0] < n, body, (0, jnp.zeros(n)))[1]
""", "draws = draws_of(jax.random.key(0), 4)", "same"),
    case("fori-body-partial-key", "JAX114", """
import functools
import jax
import jax.numpy as jnp


def body(key, i, out):
    return out.at[i].set(jax.random.normal(key, ()))  # <-


def draws_of(key, n):
    return jax.lax.fori_loop(0, n, functools.partial(body, key), jnp.zeros(n))
""", "draws = draws_of(jax.random.key(0), 4)", "same"),
    case("scan-body-partial-keyword-key", "JAX114", """
import functools
import jax


def step(carry, _, key=None):
    return carry, jax.random.uniform(key)  # <-


def draws_of(key, n):
    return jax.lax.scan(functools.partial(step, key=key), 0.0, None, length=n)[1]
""", "draws = draws_of(jax.random.key(0), 4)", "same"),
    case("fori-body-split-n-indexed", "JAX114", """
import jax
import jax.numpy as jnp


def draws_of(key, n):
    def body(i, out):
        k = jax.random.split(key, n)[i]
        return out.at[i].set(jax.random.normal(k, ()))  # <-
    return jax.lax.fori_loop(0, n, body, jnp.zeros(n))
""", "draws = draws_of(jax.random.key(0), 4)", "differ"),
    case("fori-body-fold-in", "JAX114", """
import jax
import jax.numpy as jnp


def draws_of(key, n):
    def body(i, out):
        k = jax.random.fold_in(key, i)
        return out.at[i].set(jax.random.normal(k, ()))  # <-
    return jax.lax.fori_loop(0, n, body, jnp.zeros(n))
""", "draws = draws_of(jax.random.key(0), 4)", "differ"),
    case("scan-key-in-carry", "JAX114", """
import jax


def draws_of(key, n):
    def step(k, _):
        k, sub = jax.random.split(k)
        return k, jax.random.normal(sub, ())  # <-
    return jax.lax.scan(step, key, None, length=n)[1]
""", "draws = draws_of(jax.random.key(0), 4)", "differ"),
    case("scan-over-split-keys", "JAX114", """
import jax


def draws_of(key, n):
    def step(c, k):
        return c, jax.random.normal(k, ())  # <-
    return jax.lax.scan(step, 0.0, jax.random.split(key, n))[1]
""", "draws = draws_of(jax.random.key(0), 4)", "differ"),
]

_TRAIN_STATE = """
import jax
import jax.numpy as jnp
import flax.linen as nn
import optax
from flax.training import train_state


class CNN(nn.Module):
    @nn.compact
    def __call__(self, x, train: bool = False):
        @BODY
        return nn.Dense(2)(x)


def create(rng):
    cnn = CNN()
    params = cnn.init(rng, jnp.ones((1, 3)))["params"]
    return train_state.TrainState.create(apply_fn=cnn.apply, params=params, tx=optax.sgd(0.1))


"""
_STATE = "state = create(jax.random.key(0)); "

_EQX_VJP = """
import jax
import jax.numpy as jnp
import equinox as eqx


def f(x: jax.Array, n: int):
    if n > 2:
        x = x * 1.0
    @BODY
    return x * 2
"""

_EQX_CUSTOM = """
import jax
import jax.numpy as jnp
import equinox as eqx


@eqx.filter_custom_vjp
def scale(x: jax.Array, n: int):
    return x * n


@scale.def_fwd
def scale_fwd(perturbed, x: jax.Array, n: int):
    if n > 2 and perturbed:
        x = x * 1.0
    @FWD
    return x * n, None


@scale.def_bwd
def scale_bwd(residuals, grad_obj, perturbed, x: jax.Array, n: int):
    @BWD
    return grad_obj * n


@jax.jit
def step(x):
    return jax.grad(lambda y: scale(y, 3).sum())(x)
"""

#: cases that need a library beyond jax (the truth check imports it or skips them)
NEEDS: dict[str, str] = {}


def _needs(lib: str, cases: list[Case]) -> list[Case]:
    NEEDS.update({c.id: lib for c in cases})
    return cases


CASES += _needs("flax", [
    # --- flax's TrainState: `state.apply_fn(variables, x)` runs what
    # `TrainState.create(apply_fn=model.apply)` stored: the module's `__call__`
    case("train-state-apply-fn-in-jit", "JAX105", _TRAIN_STATE.replace(
        "@BODY", "if x.sum() > 0:  # <-\n            x = -x") + """
@jax.jit
def step(state, x):
    def loss(p):
        return state.apply_fn({"params": p}, x).sum()
    return state.apply_gradients(grads=jax.grad(loss)(state.params))
""", _STATE + "step(state, jnp.ones((1, 3)))", "tracer"),
    case("train-state-apply-fn-flag-static", "JAX105", _TRAIN_STATE.replace(
        "@BODY", "if not train:  # <-\n            x = -x") + """
@jax.jit
def step(state, x):
    return state.apply_fn({"params": state.params}, x, train=True)
""", _STATE + "step(state, jnp.ones((1, 3)))", "clean"),
    case("train-state-apply-fn-eager", "JAX105", _TRAIN_STATE.replace(
        "@BODY", "if x.sum() > 0:  # <-\n            x = -x") + """
def predict(state, x):
    return state.apply_fn({"params": state.params}, x)
""", _STATE + "predict(state, jnp.ones((1, 3)))", "clean"),
])
CASES += _needs("equinox", [
    # --- equinox's filter_jvp / filter_vjp: the function runs at once on the primals;
    # under jit its array arguments are tracers, a Python int stays an int; eagerly the
    # primal values are concrete
    case("eqx-filter-vjp-in-jit", "JAX105", _EQX_VJP.replace(
        "@BODY", "if x.sum() > 0:  # <-\n        x = -x") + """
@jax.jit
def step(x):
    out, vjp_fn = eqx.filter_vjp(f, x, 3)
    return vjp_fn(out)
""", "step(jnp.ones(3))", "tracer"),
    case("eqx-filter-jvp-in-jit", "JAX105", _EQX_VJP.replace(
        "@BODY", "if x.sum() > 0:  # <-\n        x = -x") + """
@jax.jit
def step(x):
    return eqx.filter_jvp(f, (x, 3), (x, None))
""", "step(jnp.ones(3))", "tracer"),
    case("eqx-filter-jvp-int-static", "JAX111", _EQX_VJP.replace(
        "@BODY", "x = x + jnp.zeros(n)  # <-") + """
@jax.jit
def step(x):
    return eqx.filter_jvp(f, (x, 3), (x, None))
""", "step(jnp.ones(3))", "clean"),
    case("eqx-filter-vjp-eager", "JAX105", _EQX_VJP.replace(
        "@BODY", "if x.sum() > 0:  # <-\n        x = -x") + """
def eager(x):
    return eqx.filter_vjp(f, x, 3)
""", "eager(jnp.ones(3))", "clean"),
    # --- equinox's custom rules: def_fwd gets perturbed (Python bools) and f's arguments,
    # def_bwd the residuals and cotangent (tracers), perturbed and f's arguments
    case("eqx-custom-vjp-fwd", "JAX105", _EQX_CUSTOM.replace(
        "@FWD", "if x.sum() > 0:  # <-\n        x = -x").replace("@BWD", "pass"),
         "step(jnp.ones(3))", "tracer"),
    case("eqx-custom-vjp-bwd", "JAX106", _EQX_CUSTOM.replace("@FWD", "pass").replace(
        "@BWD", "print(grad_obj)  # <-"), "step(jnp.ones(3))", "printed-tracer"),
    case("eqx-custom-vjp-static-arguments", "JAX105", _EQX_CUSTOM.replace("@FWD", "pass").replace(
        "@BWD", "if n > 2 and not perturbed:  # <-\n        grad_obj = grad_obj * 1.0"),
         "step(jnp.ones(3))", "clean"),
])

_ABSTRACT = """
import jax
import jax.numpy as jnp


def f(x, k):
    @BODY
    return x * 2
"""

CASES += [
    # --- abstract evaluation: `jax.eval_shape(f, *args)` and `jax.make_jaxpr(f)(*args)`
    # trace f (what fails on a tracer fails), compile nothing, and run it once
    case("eval-shape-if", "JAX105", _ABSTRACT.replace("@BODY", "if x.sum() > 0:  # <-\n        x = -x") + """

out = jax.eval_shape(f, jnp.ones(3), 2)
""", "", "tracer"),
    case("make-jaxpr-if", "JAX105", _ABSTRACT.replace("@BODY", "if x.sum() > 0:  # <-\n        x = -x") + """

jaxpr = jax.make_jaxpr(f)(jnp.ones(3), 2)
""", "", "tracer"),
    case("eval-shape-int-size", "JAX111", _ABSTRACT.replace("@BODY", "x = x + jnp.zeros(k)  # <-") + """

out = jax.eval_shape(f, jnp.ones(3), 3)
""", "", "tracer"),
    case("make-jaxpr-static-size", "JAX111", _ABSTRACT.replace("@BODY", "x = x + jnp.zeros(k)  # <-") + """

jaxpr = jax.make_jaxpr(f, static_argnums=1)(jnp.ones(3), 3)
""", "", "clean"),
    case("eval-shape-print-left-alone", "JAX106", _ABSTRACT.replace("@BODY", "print(x, k)  # <-") + """

out = jax.eval_shape(f, jnp.ones(3), 3)
""", "", "printed-tracer", valid=True),
    case("eval-shape-no-compile-for-constants", "JAX101", """
import numpy as np
import jax
import jax.numpy as jnp

TABLE = jnp.asarray(np.ones((512, 512), np.float32))


def f(x):
    return x @ TABLE  # <-


out = jax.eval_shape(f, jnp.ones((4, 512)))
""", "", "clean"),
]
_PRIMAL = """
import jax
import jax.numpy as jnp


def f(x):
    if x > 0:  # <-
        return x * 2
    return -x
"""

CASES += [
    # --- jax.jvp / vjp / linearize run f at once: on tracers inside jit, on concrete
    # primals eagerly (Python control flow works there)
    case("vjp-in-jit", "JAX105", _PRIMAL + """

@jax.jit
def step(x):
    y, vjp_fn = jax.vjp(f, x)
    return vjp_fn(y)
""", "step(1.0)", "tracer"),
    case("linearize-in-jit", "JAX105", _PRIMAL + """

@jax.jit
def step(x):
    return jax.linearize(f, x)[0]
""", "step(1.0)", "tracer"),
    case("jvp-vjp-linearize-eager", "JAX105", _PRIMAL + """

def eager(x):
    return jax.jvp(f, (x,), (1.0,)), jax.vjp(f, x)[0], jax.linearize(f, x)[0]
""", "eager(1.0)", "clean"),
]
CASES += _needs("flax", [
    case("eval-shape-linen-init", "JAX105", _TRAIN_STATE.replace(
        "@BODY", "if x.sum() > 0:  # <-\n            x = -x") + """
shapes = jax.eval_shape(CNN().init, jax.random.key(0), jnp.ones((1, 3)))
""", "", "tracer"),
])
CASES += _needs("equinox", [
    case("filter-eval-shape-int-static", "JAX111", """
import jax
import jax.numpy as jnp
import equinox as eqx


def f(x: jax.Array, k: int):
    return x + jnp.zeros(k)  # <-


out = eqx.filter_eval_shape(f, jnp.ones(3), 3)
""", "", "clean"),
])

_MULTI = """
import jax
import jax.numpy as jnp
import haiku as hk


class Encoder(hk.Module):
    def __call__(self, x):
        @ENCODER
        return hk.Linear(2)(x)


def f():
    encoder = Encoder()

    def decode(z, scale=2.0):
        @DECODE
        return z * scale

    def init(x):
        @INIT
        return decode(encoder(x))

    return init, (encoder, decode)


net = hk.without_apply_rng(hk.multi_transform(f))
encode, decode = net.apply
"""
_MULTI_RUN = "params = net.init(jax.random.key(0), jnp.ones((1, 3))); "

CASES += _needs("haiku", [
    # --- haiku's multi_transform: `init` runs the template f returns, `apply` is a
    # tuple of functions, each running one of the functions f returns
    case("haiku-multi-apply-unpacked-in-jit", "JAX105", _MULTI.replace(
        "@ENCODER", "if x.sum() > 0:  # <-\n            x = -x").replace("@DECODE", "pass").replace("@INIT", "pass") + """

@jax.jit
def step(params, x):
    return encode(params, x)
""", _MULTI_RUN + "step(params, jnp.ones((1, 3)))", "tracer"),
    case("haiku-multi-apply-subscript-in-jit", "JAX105", _MULTI.replace("@ENCODER", "pass").replace(
        "@DECODE", "if z.sum() > 0:  # <-\n            z = -z").replace("@INIT", "pass") + """

@jax.jit
def step(params, z):
    return net.apply[1](params, z)
""", _MULTI_RUN + "step(params, jnp.ones((1, 2)))", "tracer"),
    case("haiku-multi-default-static", "JAX105", _MULTI.replace("@ENCODER", "pass").replace(
        "@DECODE", "if scale > 1:  # <-\n            z = -z").replace("@INIT", "pass") + """

@jax.jit
def step(params, z):
    return decode(params, z)
""", _MULTI_RUN + "step(params, jnp.ones((1, 2)))", "clean"),
    case("haiku-multi-init-eager", "JAX105", _MULTI.replace("@ENCODER", "pass").replace("@DECODE", "pass").replace(
        "@INIT", "if x.sum() > 0:  # <-\n            x = -x"), _MULTI_RUN, "clean"),
])


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_case(case: Case):
    check(case)


_UNDER_JAX = """
import contextlib, io, json, sys, warnings
warnings.simplefilter("ignore")
import numpy as np
out = {}
for cid, text, run in json.load(sys.stdin):
    ns = {"__name__": "case_" + cid.replace("-", "_")}
    buf = io.StringIO()
    try:
        with contextlib.redirect_stdout(buf):
            exec(compile(text + "\\n" + run + "\\n", cid, "exec"), ns)
        if "Tracer" in buf.getvalue():
            out[cid] = "printed-tracer"
        elif "draws" in ns:
            d = np.asarray(ns["draws"])
            out[cid] = "same" if len(d) > 1 and (d == d[0]).all() else "differ"
        else:
            out[cid] = "clean"
    except Exception as e:
        name = type(e).__name__
        out[cid] = "tracer" if "Tracer" in name or "Concretization" in name or "Tracer" in str(e) else name
print(json.dumps(out))
"""


def test_cases_are_true_under_jax():
    pytest.importorskip("jax")
    have = {lib: subprocess.run([sys.executable, "-c", f"import {lib}"], capture_output=True).returncode == 0
            for lib in set(NEEDS.values())}
    cases = [c for c in CASES if have.get(NEEDS.get(c.id, ""), True)]
    proc = subprocess.run([sys.executable, "-c", _UNDER_JAX], capture_output=True, text=True, timeout=600,
                          input=json.dumps([(c.id, c.text, c.run) for c in cases]))
    assert proc.returncode == 0, proc.stderr[-3000:]
    signals = json.loads(proc.stdout.strip().splitlines()[-1])
    assert {c.id: signals[c.id] for c in cases} == {c.id: EXPECT[c.id] for c in cases}


_RETRACED = """import functools
import jax
import jax.numpy as jnp


def grow(n, x):
    if n > 2:  # JAX105
        x = x * 2
    return jnp.zeros(n) + x  # JAX111


grow_jit = jax.jit(jax.remat(grow), static_argnums=0)


@jax.custom_vjp
def flip(flag, x):
    if flag:  # JAX105
        return x
    return -x


flip.defvjp(lambda flag, x: (flip(flag, x), None), lambda flag, res, g: (None, g))
flip_jit = jax.jit(flip, static_argnums=0)
"""
#: the advice followed: the inner transform keeps the argument static too
_RETRACED_FIXED = _RETRACED.replace("jax.remat(grow)", "jax.remat(grow, static_argnums=0)").replace(
    "@jax.custom_vjp", "@functools.partial(jax.custom_vjp, nondiff_argnums=(0,))").replace(
    "lambda flag, res, g: (None, g)", "lambda flag, res, g: (g,)")


def test_a_static_argument_traced_again_is_told_where_to_keep_it_static():
    # the jit already keeps it static: "make it a static argument" would change nothing;
    # the checkpoint's static_argnums / the custom rule's nondiff_argnums would
    from helpers import lint_source

    found = lint_source(_RETRACED, select=["JAX105", "JAX111"])
    by_line = {(d.start.line, d.code): d.message for d in found}
    lines = _RETRACED.splitlines()
    marked = {(i, c) for i, text in enumerate(lines, 1) for c in ("JAX105", "JAX111") if f"# {c}" in text}
    assert set(by_line) == marked, by_line
    for (line, code), message in by_line.items():
        transform, keyword = (("jax.remat", "static_argnums") if line < lines.index("@jax.custom_vjp")
                              else ("jax.custom_vjp", "nondiff_argnums"))
        assert f"`{transform}` inside it traces it again" in message, message
        assert f"`{transform}`'s `{keyword}`" in message, message
        assert "static_argnames=" not in message and "a static argument" not in message, message
    assert not lint_source(_RETRACED_FIXED, select=["JAX105", "JAX111"], confidence="possible")
    # and jax agrees: the program as written raises a tracer error; as advised, it runs
    run = ("import jax.numpy as jnp\nfor call in (lambda: grow_jit(3, jnp.ones(3)), lambda: flip_jit(True, jnp.ones(2)),"
           " lambda: jax.grad(lambda x: flip_jit(False, x).sum())(jnp.ones(2))):\n"
           "    try:\n        call()\n        print('ran')\n    except Exception as e:\n"
           "        print(type(e).__name__)\n")
    for program, expect in ((_RETRACED, None), (_RETRACED_FIXED, ["ran", "ran", "ran"])):
        out = subprocess.run([sys.executable, "-c", program + run], capture_output=True, text=True, timeout=600)
        assert out.returncode == 0, out.stderr
        got = out.stdout.split()
        if expect is None:
            assert got[0].startswith("Tracer") and got[1].startswith(("Tracer", "Concretization")), got
        else:
            assert got == expect, got
