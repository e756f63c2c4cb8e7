"""Blind recall cases (issue 19): one small program per public bug report about a JAX
pitfall that a static rule claims to catch, written in our own words from the report's
pattern. None of these reports is among the 34 of ``benchmarks/recall_reports.md``.

Each case names the rule that should report it and marks the line (or lines) where the
problem is with ``# <-``. A case is *found* when that rule reports on a marked line.
The list and the verdicts are in ``benchmarks/recall_reports.md`` ("Blind recall, issue
19"); the measurement is ``tests/test_recall_blind.py`` (``python
tests/test_recall_blind.py`` prints it).

The cases were written before any rule was changed for issue 19 and measured first at
58dcb14.
"""
from __future__ import annotations

import textwrap
from typing import NamedTuple


class Case(NamedTuple):
    name: str
    url: str
    rule: str
    src: str

    @property
    def text(self) -> str:
        return textwrap.dedent(self.src).lstrip("\n")

    @property
    def marked(self) -> list[int]:
        return [i for i, line in enumerate(self.text.splitlines(), 1) if line.rstrip().endswith("# <-")]


CASES: list[Case] = [
    # ------------------------------------------------------------------ JAX101 captured array
    Case("jax-10596", "https://github.com/jax-ml/jax/issues/10596", "JAX101", """
        import jax
        import jax.numpy as jnp
        import numpy as np

        pulse = jax.device_put(np.random.rand(8000))  # <-

        def spectrum():
            return jnp.fft.fft(pulse)  # <-

        spectrum_gpu = jax.jit(spectrum)
        """),
    Case("jax-21300", "https://github.com/jax-ml/jax/issues/21300", "JAX101", """
        import jax
        import jax.numpy as jnp

        v = jnp.zeros((200000, 10, 10))  # <-

        def f():
            return jax.vmap(jax.vmap(jnp.sum))(v)  # <-

        result = jax.jit(f)()
        """),
    Case("jax-14655", "https://github.com/jax-ml/jax/issues/14655", "JAX101", """
        import jax
        import jax.numpy as jnp
        from jax.experimental import sparse

        n = 10_000_000

        def build_operator():
            nonzeroes = sparse.eye(n).indices  # <-
            def product(other):
                m = sparse.BCOO((jnp.ones(n), nonzeroes), shape=(n, n))  # <-
                return m @ other
            return product

        operator = build_operator()

        def loss(x):
            return operator(jnp.ones(n) / x).sum()

        fast_loss = jax.jit(loss)
        """),
    Case("jax-5790", "https://github.com/jax-ml/jax/issues/5790", "JAX101", """
        from functools import partial
        import jax
        from jax import random

        key = random.PRNGKey(0)
        transformation = random.uniform(key, (10_000_000,))

        class Module:
            def __init__(self, transformation):
                self.transformation = transformation

            @partial(jax.jit, static_argnums=(0,))
            def apply(self, x):
                return x * self.transformation  # <-

        m = Module(transformation)
        """),
    # ------------------------------------------------------------------ JAX102 python loop
    Case("jax-2515-loop", "https://github.com/jax-ml/jax/issues/2515", "JAX102", """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def neg_log_lik(s, m, w):
            total = 0.0
            for x in w:  # <-
                total += -jnp.log(jnp.exp(-((x - m) / s) ** 2 / 2) / s)
            return total
        """),
    Case("herculens-29", "https://github.com/Herculens/herculens/pull/29", "JAX102", """
        from functools import partial
        import jax
        import jax.numpy as jnp

        @partial(jax.jit, static_argnums=3)
        def r_omega(z, t, q, nmax):
            f = -(1 - q) / (1 + q) * (z / jnp.conj(z))
            term = z
            total = z
            for k in range(1, nmax):  # <-
                term = (2 * k - (2 - t)) / (2 * k + (2 - t)) * f * term
                total = total + term
            return total
        """),
    Case("jax-27033", "https://github.com/jax-ml/jax/issues/27033", "JAX102", """
        from functools import partial
        import jax
        import jax.numpy as jnp

        @partial(jax.jit, static_argnames=("size",))
        def accumulate(x, size):
            out = x + jnp.zeros(size)
            for i in range(size):  # <-
                out = out + i * jnp.arange(size)
            return out
        """),
    Case("quantecon-442", "https://github.com/QuantEcon/lecture-python-programming/pull/442", "JAX102", """
        import jax
        import jax.numpy as jnp

        n, M = 20, 10_000_000

        @jax.jit
        def call_price(s0, h0, key):
            s = jnp.full(M, s0)
            h = jnp.full(M, h0)
            for t in range(n):  # <-
                key, subkey = jax.random.split(key)
                z = jax.random.normal(subkey, (2, M))
                s = s + 0.0001 + jnp.exp(h) * z[0]
                h = 0.1 * h + 0.001 * z[1]
            return jnp.mean(jnp.maximum(jnp.exp(s) - 100.0, 0.0))
        """),
    Case("jax-1223", "https://github.com/jax-ml/jax/issues/1223", "JAX102", """
        import jax
        import jax.numpy as jnp

        def predict(params, image):
            return jnp.tanh(jnp.sum(image) * params)

        @jax.jit
        def sample(params, key):
            image = jnp.zeros(8 * 8 * 3)
            for i in range(8 * 8 * 3):  # <-
                key, sub = jax.random.split(key)
                logit = predict(params, image)
                image = image.at[i].set(jax.random.bernoulli(sub, jax.nn.sigmoid(logit)))
            return image
        """),
    # ------------------------------------------------------------------ JAX103 jit per call
    Case("jax-9288", "https://github.com/jax-ml/jax/issues/9288", "JAX103", """
        import jax

        def body(i):
            return i + 1

        def count_up(x, n):
            i = 0
            while i < n:
                i = jax.jit(lambda v: body(v))(i)  # <-
            return x + i
        """),
    Case("equinox-1141", "https://github.com/patrick-kidger/equinox/issues/1141", "JAX103", """
        import jax
        import jax.numpy as jnp

        def loss(w, x):
            return jnp.sum((x @ w) ** 2)

        def train(w, batches):
            for x in batches:
                step = jax.jit(jax.grad(loss))  # <-
                w = w - 0.1 * step(w, x)
            return w
        """),
    Case("jax-2515-jit", "https://github.com/jax-ml/jax/issues/2515", "JAX103", """
        import jax
        import jax.numpy as jnp

        def neg_log_lik(s, m, w):
            return jnp.sum(((w - m) / s) ** 2)

        def gradient(pars, w):
            return jax.jit(jax.grad(neg_log_lik))(pars[0], pars[1], w)  # <-

        def fit(data_sets, pars):
            for w in data_sets:
                pars = pars - 0.01 * gradient(pars, w)
            return pars
        """),
    Case("jax-19570", "https://github.com/jax-ml/jax/issues/19570", "JAX103", """
        import jax

        class Scaler:
            def scale(self, x):
                return x * 2

        scaler = Scaler()

        def run(xs):
            return [jax.jit(scaler.scale)(x) for x in xs]  # <-
        """),
    # ------------------------------------------------------------------ JAX104 numpy on tracer
    Case("jax-3133", "https://github.com/jax-ml/jax/issues/3133", "JAX104", """
        import jax
        import numpy as np

        def row(i):
            return np.zeros((3, 3))[i, :]  # <-

        row_jit = jax.jit(row)
        """),
    Case("distrax-291", "https://github.com/google-deepmind/distrax/issues/291", "JAX104", """
        import jax
        import jax.numpy as jnp
        import numpy as np

        def batch_index(batch_shape, index):
            return [g[index] for g in np.indices(batch_shape)]  # <-

        @jax.jit
        def select(logits):
            mask = jnp.arange(logits.shape[0]) > 0
            return batch_index(logits.shape[:-1], mask)
        """),
    Case("brax-321", "https://github.com/google/brax/issues/321", "JAX104", """
        import jax
        import jax.numpy as jnp
        import numpy as np

        @jax.jit
        def step(rot, action):
            q = np.stack([rot, action])  # <-
            return jnp.sum(q, axis=0)
        """),
    Case("brax-227", "https://github.com/google/brax/issues/227", "JAX104", """
        import jax
        import numpy as np

        def wiggle(carry, i):
            action = np.sin(i * np.pi / 15 + np.arange(0, 8) * np.pi)  # <-
            return carry + action, action

        def rollout(state):
            return jax.lax.scan(wiggle, state, jax.numpy.arange(100))
        """),
    # ------------------------------------------------------------------ JAX105 traced control flow
    Case("galax-692", "https://github.com/GalacticDynamics/galax/pull/692", "JAX105", """
        import jax
        import jax.numpy as jnp

        def validate(mass, radius):
            if mass < 0 or radius < 0:  # <-
                raise ValueError("negative parameter")
            return mass / radius

        @jax.jit
        def potential(mass, radius, r):
            return -validate(mass, radius) / r
        """),
    Case("openpi-550", "https://github.com/Physical-Intelligence/openpi/pull/550", "JAX105", """
        import jax
        import jax.numpy as jnp

        def sample(rng, logits0, temperature, steps):
            def step(carry):
                rng, logits, i = carry
                rng, sub = jax.random.split(rng)
                if temperature > 0.0:  # <-
                    token = jax.random.categorical(sub, logits / temperature)
                else:
                    token = jnp.argmax(logits)
                return rng, logits + token, i + 1

            def cond(carry):
                return carry[2] < steps

            return jax.lax.while_loop(cond, step, (rng, logits0, 0))

        sample_jit = jax.jit(sample, static_argnums=3)
        """),
    Case("jax-3761", "https://github.com/jax-ml/jax/issues/3761", "JAX105", """
        import jax

        def shrink(x):
            return x - 5000.0

        def grow(x):
            return x + 100.0

        @jax.jit
        def choose(x, y):
            return jax.lax.cond(x < 0 and y < 0, shrink, grow, x)  # <-
        """),
    Case("jax-24740", "https://github.com/jax-ml/jax/issues/24740", "JAX105", """
        import jax
        import jax.numpy as jnp

        def escape_time(c, max_iter):
            z = jnp.array([0.0 + 0.0j])
            for i in range(max_iter):
                z = z * z + c
                if jnp.abs(z) > 2.0:  # <-
                    return jnp.array([i])
            return jnp.array([max_iter])

        escape_all = jax.vmap(escape_time, in_axes=(0, None))
        """),
    Case("jax-15948", "https://github.com/jax-ml/jax/issues/15948", "JAX105", """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def band(wavelength):
            return jnp.where(500 < wavelength <= 600, 0, 2)  # <-
        """),
    Case("jaxopt-350", "https://github.com/google/jaxopt/pull/350", "JAX105", """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def keep_going(stop_if_fails, failed_linesearch, error, tol):
            go_on = not stop_if_fails | ~failed_linesearch  # <-
            return jnp.logical_and(go_on, error > tol)
        """),
    Case("jax-575", "https://github.com/jax-ml/jax/issues/575", "JAX105", """
        import jax
        import jax.numpy as jnp

        def energy(factors, state):
            return jnp.sum(factors * state)

        @jax.jit
        def metropolis_step(factors, state, key, i):
            flipped = state.at[i].set(1 - state[i])
            d_e = energy(factors, flipped) - energy(factors, state)
            if d_e < 0:  # <-
                return flipped
            u = jax.random.uniform(key)
            return jnp.where(u < jnp.exp(-d_e), flipped, state)
        """),
    Case("stheno-21", "https://github.com/wesselb/stheno/issues/21", "JAX105", """
        import jax
        import jax.numpy as jnp

        def logpdf(mean, var, y):
            available = ~jnp.isnan(y)
            if not jnp.all(available):  # <-
                y = jnp.where(available, y, mean)
            return -0.5 * jnp.sum((y - mean) ** 2 / var)

        def loss(lengthscale, y):
            return logpdf(0.0, lengthscale ** 2, y)

        grad_fn = jax.jit(jax.grad(loss))
        """),
    # ------------------------------------------------------------------ JAX106 side effect
    Case("jax-4615", "https://github.com/jax-ml/jax/issues/4615", "JAX106", """
        import jax
        import jax.numpy as jnp

        def energy(x):
            ret = jnp.sum(x ** 2)
            print("JUtotal: ", ret)  # <-
            return ret

        force = jax.jit(jax.grad(energy))
        """),
    Case("covo-mpc-2", "https://github.com/LeCAR-Lab/CoVO-MPC/issues/2", "JAX106", """
        import logging
        import jax
        import jax.numpy as jnp

        @jax.jit
        def update(total_loss):
            total_loss_mean = jnp.mean(total_loss[0])
            logging.info(total_loss_mean)  # <-
            return total_loss_mean
        """),
    Case("jax-1141", "https://github.com/jax-ml/jax/issues/1141", "JAX106", """
        import time
        import jax

        @jax.jit
        def noisy(x):
            key = jax.random.PRNGKey(int(time.time()))  # <-
            return x + jax.random.normal(key, x.shape)
        """),
    # ------------------------------------------------------------------ JAX107 tracer leak
    Case("jax-5206", "https://github.com/jax-ml/jax/issues/5206", "JAX107", """
        import jax
        from jax import random

        key = random.PRNGKey(0)

        def init():
            global key
            key, subkey = random.split(key)  # <-
            return random.normal(subkey, ())

        init = jax.jit(init)
        """),
    Case("jax-2048", "https://github.com/jax-ml/jax/issues/2048", "JAX107", """
        import jax

        def derivative(f, x):
            return jax.jvp(f, (x,), (1.0,))[1]

        def f(x):
            def inner(y):
                nonlocal x
                x = y  # <-
                return x
            return derivative(inner, x) * x
        """),
    Case("jax-38460", "https://github.com/jax-ml/jax/issues/38460", "JAX107", """
        import jax
        import jax.numpy as jnp

        stash = []

        @jax.jit
        def use_stash(token):
            [x] = stash
            return jnp.concatenate([token, x])

        def fn(x):
            stash.append(x)  # <-
            out = use_stash(x)
            stash.clear()
            return out

        shape = jax.eval_shape(fn, jnp.array([1.0]))
        out = fn(jnp.array([1.0]))
        """),
    Case("jax-5905", "https://github.com/jax-ml/jax/pull/5905", "JAX107", """
        import jax
        import jax.numpy as jnp

        seen = []

        def log2(x):
            seen.append(x)  # <-
            return jnp.log(x) / jnp.log(2.0)

        log2_jit = jax.jit(log2)
        """),
    # ------------------------------------------------------------------ JAX108 static argument
    Case("genjax-1179", "https://github.com/genjax-community/genjax/issues/1179", "JAX108", """
        import jax

        def first_plus_one(x):
            return x[0] + 1

        jfoo = jax.jit(first_plus_one, static_argnums=(0,))

        def main():
            return jfoo([2])  # <-
        """),
    Case("jax-7703", "https://github.com/jax-ml/jax/issues/7703", "JAX108", """
        import dataclasses
        from typing import Any
        import jax
        import jax.numpy as jnp

        @dataclasses.dataclass(unsafe_hash=True)
        class Scale:
            x: Any

        def f(c, x):
            return x * c.x

        def main():
            x = jnp.zeros([1])
            c = Scale(x)
            return jax.jit(f, static_argnums=0)(c, x)  # <-
        """),
    Case("jax-7826", "https://github.com/jax-ml/jax/issues/7826", "JAX108", """
        import jax
        import numpy as np
        from flax.struct import dataclass, field

        @dataclass
        class Model:
            c: np.ndarray = field(pytree_node=False)  # <-

        @jax.jit
        def f(model):
            return 1.0

        def main():
            f(Model(np.ones(10)))
            f(Model(np.ones(10)))
        """),
    # ------------------------------------------------------------------ JAX109 host callback
    Case("jax-31319", "https://github.com/jax-ml/jax/issues/31319", "JAX109", """
        import jax
        import numpy as np

        def host_sin(x):
            return np.sin(x).astype(x.dtype)

        @jax.jit
        def f(x):
            shape = jax.ShapeDtypeStruct(x.shape, x.dtype)
            return jax.pure_callback(host_sin, shape, x, vmap_method="sequential")  # <-
        """),
    Case("jax-29322", "https://github.com/jax-ml/jax/issues/29322", "JAX109", """
        import jax
        import jax.numpy as jnp
        import numpy as np

        def host_pdist(y):
            return np.random.random((y.shape[0] * (y.shape[0] - 1) // 2,))

        def host_link(d):
            return np.cumsum(d)

        @jax.jit
        def linkage(y):
            n = y.shape[0] * (y.shape[0] - 1) // 2
            d = jax.pure_callback(host_pdist, jax.ShapeDtypeStruct((n,), jnp.float32), y)  # <-
            return jax.pure_callback(host_link, jax.ShapeDtypeStruct((n,), jnp.float32), d)  # <-
        """),
    Case("jax-5934", "https://github.com/jax-ml/jax/issues/5934", "JAX109", """
        import jax
        import jax.experimental.host_callback as hcb
        import numpy as np

        def host_fun(m):
            return np.sum(m)

        def device_fun(m):
            return hcb.call(host_fun, m, result_shape=jax.ShapeDtypeStruct(m.shape, m.dtype))  # <-

        result = jax.jit(device_fun)(0)
        """),
    # ------------------------------------------------------------------ JAX110 discarded update
    Case("reservoirpy-247-store", "https://github.com/reservoirpy/reservoirpy/pull/247", "JAX110", """
        import jax.numpy as jnp

        class DelayLine:
            def __init__(self, delay):
                self.store = jnp.zeros((delay, 3))

            def step(self, x):
                store = jnp.roll(self.store, 1, axis=0)
                store.at[0].set(x)  # <-
                self.store = store
                return store.ravel()
        """),
    Case("reservoirpy-247-sign", "https://github.com/reservoirpy/reservoirpy/pull/247", "JAX110", """
        import jax.numpy as jnp

        def initialize(w, n_inhibitory):
            w = jnp.asarray(w)
            w.at[:, :n_inhibitory].multiply(-1)  # <-
            return w
        """),
    Case("jax-7032", "https://github.com/jax-ml/jax/issues/7032", "JAX110", """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def warp(boxes, m):
            n = boxes.shape[0]
            xy = jnp.ones((n * 4, 3))
            xy[:, :2] = boxes[:, [0, 1, 2, 3, 0, 3, 2, 1]].reshape(n * 4, 2)  # <-
            return xy @ m.T
        """),
    # ------------------------------------------------------------------ JAX111 data-dependent shape
    Case("jax-204", "https://github.com/jax-ml/jax/issues/204", "JAX111", """
        import jax
        from jax import lax

        @jax.jit
        def pad_rows(first_row, pad_to_length):
            width = first_row.shape[0]
            empty = lax.full((pad_to_length, width), 0, first_row.dtype)  # <-
            return lax.dynamic_update_slice(empty, first_row.reshape(1, width), (0, 0))
        """),
    Case("jax-14279", "https://github.com/jax-ml/jax/issues/14279", "JAX111", """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def repeat_rows(x, reps):
            return jnp.broadcast_to(x, (reps, x.shape[0]))  # <-
        """),
    Case("aesara-43", "https://github.com/aesara-devs/aesara/issues/43", "JAX111", """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def reshape_to(x, rows):
            n = jnp.where(rows < 0, x.shape[0], rows)
            return jnp.reshape(x, (n, -1))  # <-
        """),
    Case("jax-4412", "https://github.com/jax-ml/jax/pull/4412", "JAX111", """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def reduce(x, axis):
            return jnp.sum(x, axis=axis)  # <-
        """),
    Case("jaxonnxruntime-29", "https://github.com/google/jaxonnxruntime/issues/29", "JAX111", """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def onnx_nonzero(x):
            return jnp.stack(jnp.nonzero(x))  # <-
        """),
    Case("jax-7542", "https://github.com/jax-ml/jax/issues/7542", "JAX111", """
        import jax.numpy as jnp

        def positions(x):
            return jnp.apply_along_axis(jnp.where, 1, x).squeeze()  # <-
        """),
    Case("jax-7090", "https://github.com/jax-ml/jax/issues/7090", "JAX111", """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def unique_rows(vectors):
            return jnp.unique(vectors, axis=0)  # <-
        """),
    # ------------------------------------------------------------------ JAX112 float64
    Case("jax-1333", "https://github.com/jax-ml/jax/issues/1333", "JAX112", """
        import jax
        import jax.numpy as jnp
        import numpy as np

        @jax.jit
        def gram(x):
            ones = jnp.ones((2, 2), dtype=np.float64)  # <-
            return ones @ x
        """),
    Case("jax-17366", "https://github.com/jax-ml/jax/issues/17366", "JAX112", """
        import jax
        import jax.numpy as jnp
        from jax import random

        @jax.jit
        def draw(key):
            return random.uniform(key, (3,), dtype=jnp.float64)  # <-
        """),
    Case("jax-470", "https://github.com/jax-ml/jax/issues/470", "JAX112", """
        import jax
        from jax import random

        def sample(key):
            return random.uniform(key, (1000,), dtype="float64")  # <-

        sample_jit = jax.jit(sample)
        """),
    Case("jax-652", "https://github.com/jax-ml/jax/issues/652", "JAX112", """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def factor(a):
            a = jnp.asarray(a, dtype=jnp.float64)  # <-
            return jax.scipy.linalg.lu_factor(a)
        """),
    # ------------------------------------------------------------------ JAX113 donation
    Case("jax-9675", "https://github.com/jax-ml/jax/issues/9675", "JAX113", """
        import jax

        def f(x):
            return x + 1

        f_jit = jax.jit(f, donate_argnums=(0,))

        def main():
            buf = jax.numpy.array(1)
            f_jit(buf)
            f_jit(buf)  # <-
        """),
    Case("jax-9635", "https://github.com/jax-ml/jax/issues/9635", "JAX113", """
        import jax
        import jax.numpy as jnp

        def add(x, y):
            return x + y

        f = jax.jit(add, donate_argnums=(0,))

        def main():
            x = jnp.zeros((10,), jnp.float32)
            return f(x, x)  # <-
        """),
    Case("jax-16906", "https://github.com/jax-ml/jax/issues/16906", "JAX113", """
        import jax
        import jax.numpy as jnp

        def identity(x, y):
            return x, y

        fn = jax.jit(identity, donate_argnums=1)

        def main():
            x = {"A": jnp.float32(1.0), "B": jnp.float32(2.0)}
            y = jnp.float32(3.0)
            fn(x, y)
            print(y)  # <-
        """),
    # ------------------------------------------------------------------ JAX114 key reuse
    Case("xland-minigrid-42", "https://github.com/dunnolab/xland-minigrid/issues/42", "JAX114", """
        import jax

        def make_keys(rng, num_envs):
            rng, _rng1, _rng2 = jax.random.split(rng, num=3)
            ruleset_rng = jax.random.split(rng, num=num_envs)
            reset_rng = jax.random.split(rng, num=num_envs)  # <-
            return rng, ruleset_rng, reset_rng
        """),
    Case("jax-16845", "https://github.com/jax-ml/jax/issues/16845", "JAX114", """
        from jax import numpy as jnp, random

        def main():
            key = random.PRNGKey(1337)
            s1 = random.multivariate_normal(key, jnp.array([0.0]), jnp.eye(1), shape=(10000,))
            s2 = random.multivariate_normal(key, s1, jnp.eye(1))  # <-
            return jnp.cov(s2, rowvar=False)
        """),
    Case("jax-14597", "https://github.com/jax-ml/jax/issues/14597", "JAX114", """
        import jax
        import jax.numpy as jnp

        def student_t(key, df, shape):
            key_n, key_g = jax.random.split(key)
            n = jax.random.normal(key_n, shape)
            g = jax.random.gamma(key_n, df / 2, shape)  # <-
            return n * jnp.sqrt(df / 2 / g)
        """),
]
