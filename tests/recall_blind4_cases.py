"""Blind recall cases, fourth round (issue 19): one small program per public bug report,
question or pull request about a JAX pitfall that a static rule's documentation claims,
written in our own words from the report's pattern (never the report's code).

None of these threads is among the 34 earlier cases or the blind cases of the first three
rounds in ``benchmarks/recall_reports.md`` (checked by URL, and by repository and number;
``tests/test_recall_blind.py`` checks the URLs). They were found with the ``search``
tool's ``issues`` and ``pages`` corpora. This round was *sealed*: the file was written
and committed on a branch of its own (tag ``recall40-blind-cases``) before jaxlint was
run on any of the cases, and kept from the engineers who changed the value model and the
rules' scope in the same session; the commit is the proof that the cases predate the
measurement.

Each case names the rule that should report it and marks the problem's line (or lines)
with ``# <-``, in the same ``Case`` form as ``recall_blind_cases.py``. A case is *found*
when that rule reports on a marked line. The verdicts are in
``benchmarks/recall_reports.md`` ("Blind recall, fourth round"); the measurement is
``tests/test_recall_blind.py``.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from recall_blind_cases import Case  # noqa: E402

CASES4: list[Case] = [
    # ------------------------------------------------------------------ JAX101 captured array
    Case("jax-36305", "https://github.com/jax-ml/jax/pull/36305", "JAX101", """
        import jax
        import jax.numpy as jnp

        teacher = {"w": jnp.ones((8192, 4096)), "b": jnp.zeros(4096)}  # <-

        def make_distill_loss(teacher_params):
            @jax.jit
            def loss(student_w, x):
                soft = x @ teacher_params["w"] + teacher_params["b"]  # <-
                pred = x @ student_w
                return jnp.mean((pred - soft) ** 2)
            return loss

        distill_loss = make_distill_loss(teacher)
        """),
    Case("mbi-206", "https://github.com/ryan112358/mbi/pull/206", "JAX101", """
        import jax
        import jax.numpy as jnp
        import numpy as np

        class MarginalLoss:
            def __init__(self, clique, measurement):
                self.clique = clique
                self.data = jnp.asarray(measurement)

            def __call__(self, marginals):
                return jnp.sum((marginals[self.clique] - self.data) ** 2)  # <-

        losses = [MarginalLoss(i, np.random.rand(1 << 20)) for i in range(64)]  # <-
        row_fns = [jax.jit(loss.__call__) for loss in losses]  # <-

        def log_row(marginals):
            return [fn(marginals) for fn in row_fns]
        """),
    Case("jax-6905", "https://github.com/jax-ml/jax/issues/6905", "JAX101", """
        from functools import partial
        import jax
        import jax.numpy as jnp

        def apply(params, tokens):
            return jnp.tanh(params["embed"][tokens] @ params["proj"])

        params = {"embed": jnp.ones((65536, 4096)), "proj": jnp.ones((4096, 4096))}  # <-
        score = jax.jit(partial(apply, params))  # <-

        def evaluate(batches):
            return [score(b) for b in batches]
        """),
    # ------------------------------------------------------------------ JAX102 python loop
    Case("s2fft-361", "https://github.com/astro-informatics/s2fft/pull/361", "JAX102", """
        from functools import partial
        import jax
        import jax.numpy as jnp

        @partial(jax.jit, static_argnums=(0,))
        def quad_weights_mw(L):
            w = jnp.zeros(2 * L - 1, dtype=jnp.complex64)
            for i, p in enumerate(range(-(L - 1), L)):  # <-
                w = w.at[i].set(jnp.where(p % 2 == 0, 2.0 / (1.0 - p * p), 0.0))
            return w

        def weights_for_bandlimit():
            return quad_weights_mw(1024)
        """),
    Case("jax-8931", "https://github.com/jax-ml/jax/pull/8931", "JAX102", """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def iterate_cos(x):
            for _ in range(10000):  # <-
                x = jnp.cos(x)
            return x

        def main():
            return iterate_cos(1.0)
        """),
    # ------------------------------------------------------------------ JAX103 jit per call
    Case("energnn-75", "https://github.com/energnn/energnn/pull/75", "JAX103", """
        import jax
        import jax.numpy as jnp

        def forward(params, x):
            return jnp.tanh(x @ params["w"]).sum()

        class Trainer:
            def __init__(self, params, lr):
                self.params = params
                self.lr = lr

            def training_step(self, batch):
                value_and_grad = jax.jit(jax.value_and_grad(forward))  # <-
                loss, grads = value_and_grad(self.params, batch)
                self.params = jax.tree_util.tree_map(lambda p, g: p - self.lr * g, self.params, grads)
                return loss

            def fit(self, batches):
                return [self.training_step(b) for b in batches]
        """),
    Case("equinox-307", "https://github.com/patrick-kidger/equinox/issues/307", "JAX103", """
        import equinox as eqx
        import jax
        import jax.numpy as jnp

        def train(model, states, rewards):
            @eqx.filter_jit  # <-
            def loss_fn(m, s, r):  # <-
                logits = jax.vmap(m)(s)
                return -jnp.mean(jax.nn.log_softmax(logits)[:, 0] * r)
            return eqx.filter_value_and_grad(loss_fn)(model, states, rewards)  # <-

        def run(model, episodes):
            for states, rewards in episodes:
                loss, grads = train(model, states, rewards)
        """),
    # ------------------------------------------------------------------ JAX104 numpy on tracer
    Case("multinerf-62", "https://github.com/google-research/multinerf/pull/62", "JAX104", """
        import jax
        import jax.numpy as jnp
        import numpy as np

        def to_ndc(origins, directions, focal, near, xnp=np):
            t = -(near + origins[..., 2]) / directions[..., 2]
            origins = origins + t[..., None] * directions
            ox = -focal * origins[..., 0] / origins[..., 2]
            oy = -focal * origins[..., 1] / origins[..., 2]
            return xnp.stack([ox, oy, 1 + 2 * near / origins[..., 2]], axis=-1)  # <-

        @jax.jit
        def train_step(params, origins, directions):
            ndc = to_ndc(origins, directions, 500.0, 1.0)  # <-
            return jnp.sum((ndc @ params) ** 2)
        """),
    Case("ivy-16255", "https://github.com/unifyai/ivy/pull/16255", "JAX104", """
        import flax.linen as nn
        import jax
        import jax.numpy as jnp
        import numpy as np

        class Linear(nn.Module):
            features: int

            @nn.compact
            def __call__(self, x):
                x = np.asarray(x)  # <-
                return nn.Dense(self.features)(x)

        class Net(nn.Module):
            @nn.compact
            def __call__(self, x):
                return jnp.tanh(Linear(2)(jnp.tanh(Linear(4)(x))))

        net = Net()
        variables = net.init(jax.random.key(0), jnp.ones((1, 2)))
        forward = jax.jit(net.apply)

        def predict(x):
            return forward(variables, x)
        """),
    # ------------------------------------------------------------------ JAX105 traced control flow
    Case("waymax-14", "https://github.com/waymo-research/waymax/issues/14", "JAX105", """
        from typing import NamedTuple
        import jax
        import jax.numpy as jnp

        class SimState(NamedTuple):
            positions: jnp.ndarray
            remaining_steps: jnp.ndarray

        def replay_one(state):
            return SimState(state.positions + 1.0, state.remaining_steps - 1)

        @jax.jit
        def replay(state):
            for _ in range(state.remaining_steps):  # <-
                state = replay_one(state)
            return state
        """),
    Case("jax-7969", "https://github.com/jax-ml/jax/issues/7969", "JAX105", """
        import jax
        import jax.numpy as jnp

        def ramp(x):
            return jnp.piecewise(x, [x < 0, 0 < x < 1], [lambda v: -v, lambda v: v])  # <-

        ramp_jit = jax.jit(ramp)

        def main():
            return ramp_jit(0.5)
        """),
    Case("jax-24511", "https://github.com/jax-ml/jax/pull/24511", "JAX105", """
        import jax
        import jax.numpy as jnp

        @jax.remat
        def rectify(x):
            if x > 0:  # <-
                return x
            return jnp.sin(x)

        def main():
            return rectify(3.0)
        """),
    Case("jax-4342", "https://github.com/jax-ml/jax/pull/4342", "JAX105", """
        import jax

        @jax.jit
        def larger(a, b):
            if a > b:  # <-
                return a
            return b

        def main():
            return larger(1, 2)
        """),
    Case("axlearn-815", "https://github.com/apple/axlearn/issues/815", "JAX105", """
        import jax
        import jax.numpy as jnp

        NUMERIC_CHECKS = True

        def check_numerics(x, label=""):
            if NUMERIC_CHECKS:
                assert bool(jnp.isfinite(x).all()), f"non-finite values in {label}"  # <-

        def layer(carry, w):
            out = jnp.tanh(carry @ w)
            check_numerics(out, "layer output")
            return out, None

        @jax.jit
        def repeated(x, ws):
            out, _ = jax.lax.scan(jax.checkpoint(layer), x, ws)
            return out
        """),
    Case("jax-2708", "https://github.com/jax-ml/jax/issues/2708", "JAX105", """
        import jax.numpy as jnp
        from jax import lax

        def step(x):
            return x + 1.0

        def not_there_yet(x):
            return not jnp.allclose(x, 10.0)  # <-

        def count_up():
            return lax.while_loop(not_there_yet, step, 0.0)
        """),
    Case("jax-1406", "https://github.com/jax-ml/jax/issues/1406", "JAX105", """
        import jax
        import jax.numpy as jnp

        def repeat_add(num, x):
            for _ in range(num):  # <-
                x = x + 1.0
            return x

        def main():
            return jax.jit(repeat_add)(3, jnp.zeros(2))
        """),
    Case("jax-23637", "https://github.com/jax-ml/jax/issues/23637", "JAX105", """
        import jax

        def body(carry, _):
            flag = bool(carry)  # <-
            return carry * 0.5, flag

        def run():
            return jax.lax.scan(body, 3.0, None, length=1)
        """),
    # ------------------------------------------------------------------ JAX106 side effect
    Case("mlkatas-204", "https://mlkatas.com/kata/204", "JAX106", """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def echo(x):
            print("echo got", x)  # <-
            return x

        def main():
            echo(jnp.ones(3))
            echo(jnp.ones(3))
            return echo(jnp.ones((2, 2)))
        """),
    Case("pyhf-2580", "https://github.com/scikit-hep/pyhf/pull/2580", "JAX106", """
        import logging
        import jax
        import jax.numpy as jnp

        log = logging.getLogger(__name__)

        def _logpdf(pars, data):
            if data.shape[-1] != pars.shape[-1]:
                raise ValueError(f"data has {data.shape[-1]} entries, {pars.shape[-1]} expected")
            return -jnp.sum((data - pars) ** 2)

        def logpdf(pars, data):
            try:
                return _logpdf(pars, data)
            except ValueError:
                log.error(f"eval failed for data {data.tolist()} pars {pars.tolist()}")  # <-
                raise

        objective = jax.jit(lambda pars, data: -logpdf(pars, data))

        def fit(data):
            return objective(jnp.ones(2), data)
        """),
    # ------------------------------------------------------------------ JAX107 tracer leak
    Case("jax-4663", "https://github.com/jax-ml/jax/pull/4663", "JAX107", """
        import jax
        import jax.numpy as jnp

        def f():
            acc = [jnp.zeros([])]

            def bump():
                acc[0] += 1  # <-
                return acc[0]

            jax.remat(bump)()
            return jax.remat(bump)()

        def main():
            return jax.jit(f)()
        """),
    # ------------------------------------------------------------------ JAX108 static argument
    Case("mcx-58", "https://github.com/rlouf/mcx/issues/58", "JAX108", """
        from functools import partial
        import jax
        import jax.numpy as jnp
        import numpy as np

        def longest_batch_before_turn(positions, step_sizes):
            @partial(jax.jit, static_argnums=(1,))
            def run(x, steps):
                return x + jnp.cumsum(jnp.asarray(steps))[-1]
            return run(positions, np.asarray(step_sizes))  # <-

        def main():
            return longest_batch_before_turn(jnp.zeros(3), [0.1, 0.2])
        """),
    Case("jax-4572", "https://github.com/jax-ml/jax/issues/4572", "JAX108", """
        from functools import partial
        import jax
        import jax.numpy as jnp
        import numpy as np

        @partial(jax.jit, static_argnums=(1,))
        def interpolate(x, table):
            return jnp.interp(x, jnp.arange(table.shape[0]), jnp.asarray(table))

        grid = np.linspace(0.0, 1.0, 4096)

        def main(xs):
            return [interpolate(x, grid) for x in xs]  # <-
        """),
    # ------------------------------------------------------------------ JAX109 host callback
    Case("jax-16637", "https://github.com/jax-ml/jax/issues/16637", "JAX109", """
        import jax
        import jax.numpy as jnp

        calls = {"n": 0}

        def tick():
            calls["n"] += 1

        def body(x, _):
            jax.debug.callback(tick)  # <-
            return jnp.sin(x), None

        def run(x):
            out, _ = jax.lax.scan(body, x, xs=None, length=5)
            return out

        run_grad = jax.jit(jax.grad(run))
        """),
    Case("mcx-70", "https://github.com/rlouf/mcx/pull/70", "JAX109", """
        import jax
        import jax.numpy as jnp
        from jax.experimental import host_callback
        from tqdm import tqdm

        def progress_bar_factory(num_samples):
            bar = tqdm(range(num_samples))
            every = max(num_samples // 20, 1)

            def _update(n, transform):
                bar.update(n)

            def decorate(body):
                def wrapped(carry, i):
                    carry = jax.lax.cond(
                        i % every == 0,
                        lambda c: host_callback.id_tap(_update, every, result=c),  # <-
                        lambda c: c,
                        carry,
                    )
                    return body(carry, i)
                return wrapped
            return decorate

        def sample(state, num_samples):
            @progress_bar_factory(num_samples)
            def one_sample(carry, i):
                return carry + 1.0, carry
            return jax.lax.scan(one_sample, state, jnp.arange(num_samples))
        """),
    Case("numpyro-900", "https://github.com/pyro-ppl/numpyro/pull/900", "JAX109", """
        import jax
        from jax.experimental import host_callback

        def _report(arg, transform):
            i, n = arg
            print(f"sample {i}/{n}")

        def collect(kernel_step, state, num_samples):
            def body_fn(i, val):
                val = host_callback.id_tap(_report, (i, num_samples), result=val)  # <-
                return kernel_step(val)
            return jax.lax.fori_loop(0, num_samples, body_fn, state)
        """),
    # ------------------------------------------------------------------ JAX110 discarded update
    Case("jax-24315", "https://github.com/jax-ml/jax/pull/24315", "JAX110", """
        import jax.numpy as jnp

        def main():
            counts = jnp.arange(4)
            counts[0] = 1  # <-
            return counts
        """),
    Case("pymbar-557", "https://github.com/choderalab/pymbar/issues/557", "JAX110", """
        import jax.numpy as jnp

        def bar_free_energy(w_forward, w_reverse):
            return jnp.log(jnp.mean(jnp.exp(-w_forward))) - jnp.log(jnp.mean(jnp.exp(-w_reverse)))

        def initialize_with_bar(works, n_states):
            f_k_init = jnp.zeros(n_states)
            for l in range(n_states - 1):
                f_k_init[l + 1] = f_k_init[l] + bar_free_energy(works[l], works[l + 1])  # <-
            return f_k_init
        """),
    Case("simphony-88", "https://github.com/BYUCamachoLab/simphony/issues/88", "JAX110", """
        import jax.numpy as jnp

        def assemble_s_matrix(wavelengths, couplings):
            n = couplings.shape[0]
            s = jnp.zeros((wavelengths.shape[0], n, n), dtype=jnp.complex64)
            for i in range(n):
                for j in range(n):
                    s[:, i, j] = couplings[i, j] * jnp.exp(1j * wavelengths)  # <-
            return s
        """),
    # ------------------------------------------------------------------ JAX111 data-dependent shape
    Case("jax-35090", "https://github.com/jax-ml/jax/issues/35090", "JAX111", """
        from functools import partial
        import jax
        import jax.numpy as jnp

        @partial(jax.jit, static_argnums=(0,))
        def plus_one(i):
            return i + 1

        @partial(jax.jit, static_argnums=(0,))
        def grid(k):
            return jnp.arange(plus_one(k))  # <-

        def main():
            return grid(5)
        """),
    Case("jax-689", "https://github.com/jax-ml/jax/pull/689", "JAX111", """
        import jax
        import jax.numpy as jnp
        from jax import random

        @jax.jit
        def random_features(n, d, sigma=1.0, seed=0):
            key = random.PRNGKey(seed)
            W = random.normal(key, (d, n)) / sigma  # <-
            b = 2 * jnp.pi * random.uniform(random.split(key)[1], (d,))
            return W, b

        def main():
            return random_features(5, 3)
        """),
    Case("jax-7952", "https://github.com/jax-ml/jax/pull/7952", "JAX111", """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def reduce_over(x, axis):
            return jnp.sum(x, axis=(axis,))  # <-

        def main():
            return reduce_over(jnp.ones((2, 3)), 1)
        """),
    Case("jax-4531", "https://github.com/jax-ml/jax/issues/4531", "JAX111", """
        import jax
        import jax.numpy as jnp

        def compute_x(n_rob, P, cost_inv, rhs):
            nvar = P.shape[1]
            sol = cost_inv @ rhs
            primal = sol[0:n_rob * nvar]  # <-
            coeffs = primal.reshape(n_rob, nvar)
            return P @ coeffs.T

        compute_x_jit = jax.jit(compute_x)

        def main():
            return compute_x_jit(2, jnp.ones((5, 3)), jnp.eye(8), jnp.ones(8))
        """),
    Case("jax-12334", "https://github.com/jax-ml/jax/pull/12334", "JAX111", """
        import jax
        import jax.numpy as jnp

        def drop_axis(x):
            return jnp.squeeze(x, jnp.array(1))  # <-

        def main():
            return jax.jit(drop_axis)(jnp.ones((3, 1)))
        """),
    Case("dlux-260", "https://github.com/LouisDesdoigts/dLux/issues/260", "JAX111", """
        import jax
        import jax.numpy as jnp

        def pixel_coords(n, offset, scale):
            pix = jnp.arange(n) - (n - 1) / 2.0  # <-
            return pix * scale - offset

        @jax.jit
        def detector_sum(image, npix, oversample):
            return jax.lax.cond(
                oversample,
                lambda n: jnp.sum(pixel_coords(2 * n, 0.0, 0.5)),
                lambda n: jnp.sum(pixel_coords(n, 0.0, 1.0)),
                npix,
            ) * image.sum()

        def main():
            return detector_sum(jnp.ones((4, 4)), 4, True)
        """),
    # ------------------------------------------------------------------ JAX112 float64
    Case("s2fft-143", "https://github.com/astro-informatics/s2fft/issues/143", "JAX112", """
        from functools import partial
        import jax
        import jax.numpy as jnp

        jax.config.update("jax_enable_x64", True)  # <-

        @partial(jax.jit, static_argnums=(1,))
        def forward(f, L):
            return jnp.fft.fft(f, axis=-1)[..., :L]
        """),
    # ------------------------------------------------------------------ JAX113 donation
    Case("bartz-162", "https://github.com/bartz-org/bartz/pull/162", "JAX113", """
        from functools import partial
        import jax
        import jax.numpy as jnp

        def init(y):
            return {"y": y, "resid": y, "sigma2": jnp.ones(())}

        @partial(jax.jit, donate_argnums=(0,))
        def step(state):
            resid = state["resid"] * 0.5
            return {"y": state["y"], "resid": resid, "sigma2": jnp.mean(resid ** 2)}

        def benchmark_step(y):
            state = init(y)
            return step(state)  # <-
        """),
    # ------------------------------------------------------------------ JAX114 key reuse
    Case("numpyro-263", "https://github.com/pyro-ppl/numpyro/pull/263", "JAX114", """
        from jax import random

        class Seed:
            def __init__(self, rng):
                self.rng = rng

            def process_sample(self, sample_fn, shape):
                value = sample_fn(self.rng, shape)  # <-
                self.rng, = random.split(self.rng, 1)  # <-
                return value

        def draw_two(seed):
            a = seed.process_sample(random.normal, (3,))
            b = seed.process_sample(random.normal, (3,))
            return a, b
        """),
    Case("maxtext-946", "https://github.com/AI-Hypercomputer/maxtext/pull/946", "JAX114", """
        import jax
        import jax.numpy as jnp

        def generate(logits_fn, params, prompt, rng, steps, temperature=0.8):
            tokens = prompt
            for _ in range(steps):
                logits = logits_fn(params, tokens)
                nxt = jax.random.categorical(rng, logits[-1] / temperature)  # <-
                tokens = jnp.append(tokens, nxt)
            return tokens
        """),
    Case("dopamine-189", "https://github.com/google/dopamine/issues/189", "JAX114", """
        import flax.linen as nn
        import jax
        import jax.numpy as jnp

        def scaled(x):
            return jnp.sign(x) * jnp.sqrt(jnp.abs(x))

        class NoisyDense(nn.Module):
            rng_key: jax.Array
            features: int

            @nn.compact
            def __call__(self, x):
                w_mu = self.param("w_mu", nn.initializers.lecun_normal(), (x.shape[-1], self.features))
                w_sigma = self.param("w_sigma", nn.initializers.constant(0.017), (x.shape[-1], self.features))
                eps_in = scaled(jax.random.normal(self.rng_key, (x.shape[-1],)))  # <-
                eps_out = scaled(jax.random.normal(self.rng_key, (self.features,)))  # <-
                return x @ (w_mu + w_sigma * jnp.outer(eps_in, eps_out))
        """),
]
