"""Blind recall cases, second round (issue 19): one small program per public bug report,
question or pull request about a JAX pitfall that a static rule's documentation claims,
written in our own words from the report's pattern (never the report's code).

None of these threads is among the 34 earlier cases or the 58 first-round blind cases of
``benchmarks/recall_reports.md`` (checked by URL). They were found with the ``search``
tool's ``issues`` and ``pages`` corpora, and this file was committed before jaxlint was
run on any of them: the commit is the proof that the cases predate the measurement.

Each case names the rule that should report it and marks the problem's line (or lines)
with ``# <-``, in the same ``Case`` form as ``recall_blind_cases.py``. A case is *found*
when that rule reports on a marked line. The verdicts are in
``benchmarks/recall_reports.md`` ("Blind recall, second round"); the measurement is
``tests/test_recall_blind.py``.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from recall_blind_cases import Case  # noqa: E402

CASES2: list[Case] = [
    # ------------------------------------------------------------------ JAX101 captured array
    Case("coronagraphoto-perf", "https://coronagraphoto.readthedocs.io/en/latest/explanation/performance.html",
         "JAX101", """
        import equinox as eqx
        import jax
        import jax.numpy as jnp

        class Coronagraph:
            def __init__(self, psf_cube):
                self.psf_cube = psf_cube

        class OpticalPath:
            def __init__(self, coronagraph):
                self.coronagraph = coronagraph

        optical_path = OpticalPath(Coronagraph(jnp.zeros((256, 256, 64, 64))))  # <-

        @eqx.filter_jit
        def simulate_frame(wavelength, key):
            rate = optical_path.coronagraph.psf_cube.sum(axis=(2, 3)) * wavelength  # <-
            return rate + jax.random.poisson(key, rate)
        """),
    # ------------------------------------------------------------------ JAX102 python loop
    Case("jax-1131", "https://github.com/jax-ml/jax/issues/1131", "JAX102", """
        import jax
        import jax.numpy as jnp
        from jax import lax

        def inner(x, s):
            for i in range(2000):  # <-
                x = x + 1.0
            return x, jnp.zeros(1)

        def run(x, steps):
            return lax.scan(inner, x, jnp.arange(steps))[0]

        run_jit = jax.jit(run, static_argnums=(1,))
        """),
    Case("jax-352", "https://github.com/jax-ml/jax/issues/352", "JAX102", """
        import jax
        import jax.numpy as jnp

        T = 500

        def cell(params, h, x):
            return jnp.tanh(params["w"] @ h + params["u"] @ x)

        @jax.jit
        def run_rnn(params, h0, xs):
            h = h0
            states = []
            for t in range(T):  # <-
                h = cell(params, h, xs[t])
                states.append(h)
            return jnp.stack(states)
        """),
    Case("jax-3596", "https://github.com/jax-ml/jax/issues/3596", "JAX102", """
        import jax
        import jax.numpy as jnp
        from jax import lax

        def make_cell(n_ops):
            def cell(acc, observers):
                for i in range(n_ops):  # <-
                    acc = acc + observers[i]
                return acc, acc
            return cell

        def run(x, observers, n_ops):
            return lax.scan(make_cell(n_ops), x, observers)[1]

        run_jit = jax.jit(run, static_argnums=(2,))
        """),
    Case("jax-3083", "https://github.com/jax-ml/jax/issues/3083", "JAX102", """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def discounted_running_sum(x, decay):
            y = jnp.zeros(x.shape)
            for t in range(x.shape[0]):  # <-
                y = y.at[t].set(x[t] + y[t - 1] * decay)
            return y
        """),
    Case("jax-4436", "https://github.com/jax-ml/jax/issues/4436", "JAX102", """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def gather_all(a):
            total = jnp.zeros(())
            for i in range(128):  # <-
                for j in range(128):  # <-
                    total = total + a[(i + j) % a.shape[0]]
            return total
        """),
    Case("jax-1776", "https://github.com/jax-ml/jax/issues/1776", "JAX102", """
        import jax
        import jax.numpy as jnp
        from jax.scipy.stats import norm

        grid = jnp.linspace(-100.0, 100.0, 6400)
        base = norm.pdf(grid)
        weight = 200.0 / 6400

        @jax.jit
        def overlap(mu):
            shifted = norm.pdf(grid - mu)
            return sum(base * shifted * weight)  # <-
        """),
    # ------------------------------------------------------------------ JAX103 jit per call
    Case("jax-1832", "https://github.com/jax-ml/jax/issues/1832", "JAX103", """
        import time
        import jax
        import jax.numpy as jnp

        def loss(x):
            return jnp.sum(jnp.cumsum(x) ** 2)

        def bench(x, repeats):
            best = float("inf")
            for _ in range(repeats):
                t0 = time.perf_counter()
                jax.jit(jax.grad(loss))(x).block_until_ready()  # <-
                best = min(best, time.perf_counter() - t0)
            return best
        """),
    Case("flax-1218", "https://github.com/google/flax/issues/1218", "JAX103", """
        import jax
        import jax.numpy as jnp

        def apply_model(params, x):
            return jnp.tanh(x @ params["w"])

        def train_step(params, batch):
            def loss_fn(p):
                return jnp.mean((apply_model(p, batch["x"]) - batch["y"]) ** 2)
            grads = jax.grad(loss_fn)(params)
            return jax.tree_util.tree_map(lambda p, g: p - 1e-3 * g, params, grads)

        def train(params, batches):
            for batch in batches:
                params = jax.jit(train_step)(params, batch)  # <-
            return params
        """),
    # ------------------------------------------------------------------ JAX104 numpy on tracer
    Case("jax-7545", "https://github.com/jax-ml/jax/issues/7545", "JAX104", """
        import numpy as np
        import jax.numpy as jnp
        from jax import lax

        params = {"radec": np.random.rand(5, 2), "stokes": np.random.rand(5)}

        def radec_to_lm(radec):
            lm = jnp.zeros((radec.shape[0], 2))
            def body(s, lm):
                ra, dec = radec[s]  # <-
                return lm.at[s].set(jnp.stack([jnp.cos(dec) * jnp.sin(ra), jnp.sin(dec)]))
            return lax.fori_loop(0, radec.shape[0], body, lm)

        def model(params):
            lm = radec_to_lm(params["radec"])
            return jnp.sum(lm * params["stokes"][:, None])
        """),
    Case("jax-553", "https://github.com/jax-ml/jax/issues/553", "JAX104", """
        import numpy as np
        import jax

        @jax.jit
        def pick(idx):
            positions = np.arange(idx.shape[0])
            return positions[idx]  # <-
        """),
    Case("jaxley-603", "https://github.com/jaxleyverse/jaxley/pull/603", "JAX104", """
        import numpy as np
        import jax

        @jax.jit
        def weighted_length(offset):
            weights = np.asarray([3.0, 4.0])
            return np.sqrt(np.sum(offset * weights))  # <-
        """),
    Case("jax-1162", "https://github.com/jax-ml/jax/issues/1162", "JAX104", """
        import numpy as np
        from jax import vmap

        def row_dot(x, y):
            return np.vdot(x, y)  # <-

        matvec = vmap(row_dot, (0, None), 0)
        """),
    # ------------------------------------------------------------------ JAX105 traced control flow
    Case("desc-998", "https://github.com/PlasmaControl/DESC/pull/998", "JAX105", """
        import jax
        import jax.numpy as jnp

        def radial(r, l, m, dr=0):
            if dr == 0:  # <-
                return r ** l * jnp.cos(m * r)
            return l * r ** (l - 1) * jnp.cos(m * r)

        radial_jac = jax.jit(jax.jacrev(radial))
        """),
    Case("numpyro-1763", "https://github.com/pyro-ppl/numpyro/issues/1763", "JAX105", """
        import numpyro
        import numpyro.distributions as dist
        from numpyro.infer import MCMC, NUTS

        def sleep_model():
            lazy = numpyro.sample("lazy", dist.Bernoulli(0.9))
            if lazy:  # <-
                ignored = numpyro.sample("ignored", dist.Bernoulli(0.8))
                return numpyro.sample("slept", dist.Normal(8 + 2 * ignored, 1))
            return numpyro.sample("slept", dist.Normal(6, 1))

        mcmc = MCMC(NUTS(sleep_model), num_warmup=100, num_samples=100)
        """),
    Case("diffrax-379", "https://github.com/patrick-kidger/diffrax/issues/379", "JAX105", """
        import jax
        import jax.numpy as jnp

        def solve(y0, dt, max_steps):
            if max_steps == 1:  # <-
                return y0 - dt * y0
            return jax.lax.fori_loop(0, max_steps, lambda i, y: y - dt * y, y0)

        @jax.jit
        def measured_solve(y0, dt, max_steps):
            return solve(y0, dt, max_steps)
        """),
    Case("probdiffeq-813", "https://github.com/pnkraemer/probdiffeq/pull/813", "JAX105", """
        import jax
        import jax.numpy as jnp

        def calibrate(error, output_scale=None):
            scale = output_scale or jnp.ones(())  # <-
            return error * scale

        @jax.jit
        def step(error, output_scale):
            return calibrate(error, output_scale)
        """),
    # ------------------------------------------------------------------ JAX107 tracer leak
    Case("jax-15136", "https://github.com/jax-ml/jax/issues/15136", "JAX107", """
        from functools import partial
        import jax
        import jax.numpy as jnp

        class Trainer:
            def __init__(self, params, data, labels, lr):
                self.params = params
                self.data = data
                self.labels = labels
                self.lr = lr

            def loss(self, params):
                return jnp.mean((self.data @ params - self.labels) ** 2)

            @partial(jax.jit, static_argnums=(0,))
            def step(self):
                grads = jax.grad(self.loss)(self.params)
                self.params = self.params - self.lr * grads  # <-
        """),
    Case("jax-1133", "https://github.com/jax-ml/jax/pull/1133", "JAX107", """
        import jax
        from jax import random

        class KeySequence:
            def __init__(self, seed):
                self._key = random.PRNGKey(seed)

            def next_key(self):
                self._key, sub = random.split(self._key)  # <-
                return sub

        keys = KeySequence(0)

        @jax.jit
        def noisy(x):
            return x + random.normal(keys.next_key(), x.shape)
        """),
    Case("autoray-27", "https://github.com/jcmgray/autoray/issues/27", "JAX107", """
        import jax

        _STATE = {"key": jax.random.PRNGKey(0)}

        def normal(shape=()):
            key, sub = jax.random.split(_STATE["key"])
            _STATE["key"] = key  # <-
            return jax.random.normal(sub, shape)

        @jax.jit
        def sampler():
            return normal()
        """),
    # ------------------------------------------------------------------ JAX108 static argument
    Case("jax-4712", "https://github.com/jax-ml/jax/issues/4712", "JAX108", """
        from functools import partial
        import jax

        @partial(jax.jit, static_argnums=(0,))
        def shift(offsets, x):
            return x + offsets[0]

        def run(x):
            for _ in range(3):
                x = shift([1], x)  # <-
            return x
        """),
    Case("jax-3701", "https://github.com/jax-ml/jax/issues/3701", "JAX108", """
        import dataclasses
        from functools import partial
        import jax

        @dataclasses.dataclass
        class Config:
            scale: float
            steps: int

        @partial(jax.jit, static_argnums=1)
        def evaluate(data, config):
            return data * config.scale

        def run_eval(data):
            return evaluate(data, Config(2.0, 10))  # <-
        """),
    Case("desc-310", "https://github.com/PlasmaControl/DESC/pull/310", "JAX108", """
        from functools import partial
        import jax
        import jax.numpy as jnp

        class Objective:
            def __init__(self, target, weight):
                self.target = target
                self.weight = weight

            @partial(jax.jit, static_argnums=(0,))  # <-
            def compute(self, x):
                return self.weight * (x - self.target)  # <-

        def sweep(x):
            obj = Objective(1.0, 2.0)
            first = obj.compute(x)
            obj.weight = 10.0  # <-
            return first, obj.compute(x)
        """),
    Case("openillumi-static-arrays", "https://openillumi.com/en/en-jax-jit-static-argnums-array-fix", "JAX108", """
        from functools import partial
        import numpy as np
        import jax
        import jax.numpy as jnp

        x_train = np.linspace(0.0, 1.0, 50)
        y_train = 3.0 * x_train + 1.0

        @partial(jax.jit, static_argnums=(1, 2))  # <-
        def mse(r, x, y):
            return jnp.mean((r[0] * x + r[1] - y) ** 2)

        def fit(r):
            return mse(r, x_train, y_train)  # <-
        """),
    # ------------------------------------------------------------------ JAX109 host callback
    Case("liesel-317", "https://github.com/liesel-devs/liesel/pull/317", "JAX109", """
        import jax
        import jax.numpy as jnp
        from jax import lax

        def report(i, value):
            print(f"iteration {i}: {value}")

        @jax.jit
        def optimise(x0, n_steps):
            def body(i, x):
                x = x - 0.02 * x
                jax.debug.callback(report, i, jnp.sum(x))  # <-
                return x
            return lax.fori_loop(0, n_steps, body, x0)
        """),
    Case("raytrax-10", "https://github.com/proximafusion/raytrax/pull/10", "JAX109", """
        import jax
        import jax.numpy as jnp
        import numpy as np
        from scipy.special import wofz

        def faddeeva_host(z):
            return np.asarray(wofz(z), dtype=np.complex64)

        @jax.jit
        def absorption(z):
            w = jax.pure_callback(faddeeva_host, jax.ShapeDtypeStruct(z.shape, jnp.complex64), z)  # <-
            return jnp.real(w)
        """),
    # ------------------------------------------------------------------ JAX110 discarded update
    Case("wecopttool-427", "https://github.com/sandialabs/WecOptTool/issues/427", "JAX110", """
        import jax.numpy as jnp

        def block_diagonal(blocks):
            size = blocks[0].shape[0]
            out = jnp.zeros((len(blocks) * size, len(blocks) * size))
            for i, block in enumerate(blocks):
                out[i * size:(i + 1) * size, i * size:(i + 1) * size] = block  # <-
            return out
        """),
    Case("jax-7116", "https://github.com/jax-ml/jax/issues/7116", "JAX110", """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def update_in_place(a):
            for i in range(a.size):
                a = a.at[i].set(2 * (a[i] + 1))  # <-
        """),
    # ------------------------------------------------------------------ JAX111 data-dependent shape
    Case("probml-notebooks-70", "https://github.com/probml/probml-notebooks/pull/70", "JAX111", """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def masked_scores(q, k, mask):
            scores = q @ k.T
            return scores.at[mask == 0].set(-1e6)  # <-
        """),
    Case("jax-5073", "https://github.com/jax-ml/jax/issues/5073", "JAX111", """
        import jax
        import jax.numpy as jnp
        from jax.scipy.special import gammaln

        def log_multigamma(a, d):
            offsets = jnp.arange(d) / 2.0  # <-
            return d * (d - 1) / 4.0 * jnp.log(jnp.pi) + jnp.sum(gammaln(a - offsets))

        log_multigamma_jit = jax.jit(log_multigamma)
        """),
    Case("jax-4585", "https://github.com/jax-ml/jax/issues/4585", "JAX111", """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def above_one(a):
            return jnp.where(a > 1)  # <-
        """),
    Case("crackedaicode-static-argnames", "https://crackedaicode.com/problems/jax-static-argnames-in-jit",
         "JAX111", """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def tile_rows(x, n):
            out = jnp.zeros((n * x.shape[0],))  # <-
            return out + jnp.tile(x, n)  # <-
        """),
    Case("jax-38612", "https://github.com/jax-ml/jax/pull/38612", "JAX111", """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def keep_positive(x):
            return jnp.compress(x > 0, x)  # <-
        """),
    Case("jax-3696", "https://github.com/jax-ml/jax/issues/3696", "JAX111", """
        import jax

        def encode(label, n_classes):
            return jax.nn.one_hot(label, n_classes)  # <-

        encode_all = jax.vmap(encode)
        """),
    Case("jax-5017", "https://github.com/jax-ml/jax/issues/5017", "JAX111", """
        import jax
        import jax.numpy as jnp
        from jax import lax

        def fixed_step_solve(rhs, t0, t1, y0, max_dt):
            span = t1 - t0
            steps = jnp.array(span // max_dt).astype(int)
            h = span / steps
            def body(y, k):
                return y + h * rhs(t0 + h * k, y), None
            return lax.scan(body, y0, jnp.arange(steps))[0]  # <-

        def simulate(coeff):
            return fixed_step_solve(lambda t, y: coeff * y, 0.0, 0.5, jnp.array(1.0), 0.1)

        simulate_jit = jax.jit(simulate)
        """),
    # ------------------------------------------------------------------ JAX112 float64
    Case("jax-md-132", "https://github.com/jax-md/jax-md/issues/132", "JAX112", """
        import jax
        import jax.numpy as jnp

        def high_precision_sum(x):
            return jnp.sum(x.astype(jnp.float64)).astype(x.dtype)  # <-

        @jax.jit
        def total_energy(r):
            return high_precision_sum(0.5 * r ** 2)
        """),
    # ------------------------------------------------------------------ JAX113 donation
    Case("jax-2936", "https://github.com/jax-ml/jax/pull/2936", "JAX113", """
        import jax

        def add(x, y):
            return x + y

        add_donating = jax.jit(add, donate_argnums=(0, 1))

        def double(x):
            return add_donating(x, x)  # <-
        """),
    Case("optax-1059", "https://github.com/google-deepmind/optax/pull/1059", "JAX113", """
        from functools import partial
        import jax
        import jax.numpy as jnp

        def schedule_free_init(params):
            return {"z": params, "count": jnp.zeros((), jnp.int32)}

        @partial(jax.jit, donate_argnums=(0, 1))
        def train_step(params, opt_state, grads):
            z = opt_state["z"] - 0.1 * grads
            return 0.9 * params + 0.1 * z, {"z": z, "count": opt_state["count"] + 1}

        def first_step(params, grads):
            opt_state = schedule_free_init(params)
            return train_step(params, opt_state, grads)  # <-
        """),
    # ------------------------------------------------------------------ JAX114 key reuse
    Case("jax-3646", "https://github.com/jax-ml/jax/pull/3646", "JAX114", """
        import jax
        from jax import random

        def privatize(grads, key, clip, noise_multiplier):
            std = clip * noise_multiplier
            return jax.tree_util.tree_map(lambda g: g + std * random.normal(key, g.shape), grads)  # <-
        """),
    Case("jasmine-214", "https://github.com/p-doom/jasmine/pull/214", "JAX114", """
        import jax

        def corrupt(frames, key, max_noise):
            key, noise_key = jax.random.split(key)
            level = jax.random.uniform(noise_key, (frames.shape[0],), maxval=max_noise)  # <-
            noise = jax.random.normal(noise_key, frames.shape)  # <-
            return frames + level[:, None] * noise, key
        """),
    Case("gpjax-191", "https://github.com/thomaspinder/GPJax/pull/191", "JAX114", """
        import jax.numpy as jnp
        import jax.random as jr

        key = jr.PRNGKey(123)
        x = jnp.sort(jr.uniform(key, (100, 1), minval=-3.0, maxval=3.0), axis=0)  # <-
        y = jnp.sin(4 * x) + 0.3 * jr.normal(key, x.shape)  # <-
        """),
]
