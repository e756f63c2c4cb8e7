"""Blind recall cases, eighth round (issue 36, sealed at the end of the session's rule work):
one small program per public bug report, question or pull request about a JAX pitfall that
a static rule's documentation claims, written in our own words from the report's pattern
(never the report's code).

None of these threads is among the cases of the seven earlier rounds or the 34 earlier cases
of ``benchmarks/recall_reports.md`` (checked by URL, and by repository and number;
``tests/test_recall_blind.py`` checks the URLs). They were found with the ``search`` tool's
``issues`` corpus. The round was *sealed*: the file was written and committed on its own
before jaxlint was run on any of the cases, by an engineer who changes no rule, and no other
engineer of the session saw it; the commit is the proof that the cases predate the
measurement.

Each case names the rule that should report it and marks the problem's line (or lines) with
``# <-``, in the same ``Case`` form as ``recall_blind_cases.py``. A case is *found* when that
rule reports on a marked line. The verdicts are in ``benchmarks/recall_reports.md`` ("Blind
recall, eighth round"); the measurement is ``tests/test_recall_blind.py``.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from recall_blind_cases import Case  # noqa: E402

CASES8: list[Case] = [
    # ------------------------------------------------------------------ JAX101 captured array
    Case("jax-27541", "https://github.com/jax-ml/jax/pull/27541", "JAX101", """
        import jax
        import jax.numpy as jnp
        import numpy as np

        def make_predict(weights):
            @jax.jit
            def predict(x):
                return jnp.tanh(x @ weights)  # <-

            return predict

        def main():
            weights = jnp.asarray(np.random.rand(4096, 4096).astype(np.float32))  # <-
            predict = make_predict(weights)
            return predict(jnp.ones((8, 4096)))
        """),
    # ------------------------------------------------------------------ JAX103 jit per call
    Case("jax-4645", "https://github.com/jax-ml/jax/issues/4645", "JAX103", """
        import jax
        import jax.numpy as jnp

        class Agent:
            def __init__(self, params):
                self.params = params

            def net_apply(self, params, obs):
                return obs @ params

            def take_action(self, obs):
                @jax.jit  # <-
                def _take_action(params, obs):  # <-
                    logits = self.net_apply(params, obs)
                    probs = jnp.sort(jax.nn.softmax(logits.ravel()))
                    return logits, jnp.argmax(logits), probs[-1] - probs[-2]

                return _take_action(self.params, obs)

        def main():
            agent = Agent(jnp.ones((4, 3)))
            for _ in range(100):
                agent.take_action(jnp.ones(4))
        """),
    # ------------------------------------------------------------------ JAX105 traced control flow
    Case("pennylane-3616", "https://github.com/PennyLaneAI/pennylane/pull/3616", "JAX105", """
        import jax
        import jax.numpy as jnp

        def heun_step(f, y, t, dt):
            k1 = f(t, y)
            k2 = f(t + dt, y + dt * k1)
            return y + 0.5 * dt * (k1 + k2), 0.5 * dt * (k2 - k1)

        @jax.jit
        def integrate(y0, ts):
            f = lambda t, y: -y

            def step(carry, t1):
                y, t0 = carry
                y1, err = heun_step(f, y, t0, t1 - t0)
                tol = 1e-6 + 1e-3 * jnp.maximum(jnp.abs(y), jnp.abs(y1))
                ratio = jnp.sqrt(jnp.mean((err / tol) ** 2))
                if ratio > 1.0:  # <-
                    y1 = y
                return (y1, t1), y1

            _, ys = jax.lax.scan(step, (y0, ts[0]), ts[1:])
            return ys

        def main():
            return integrate(jnp.ones(3), jnp.linspace(0.0, 1.0, 11))
        """),
    Case("jax-9085", "https://github.com/jax-ml/jax/issues/9085", "JAX105", """
        import jax
        import jax.numpy as jnp

        class HostParameter:
            # a parameter object of a host library: it only takes Python floats
            def __init__(self):
                self.value = 0.0

            def set_value(self, v):
                self.value = v

            def get_value(self):
                return self.value

        lumi = HostParameter()

        def nll(theta):
            mu = theta[0]
            alpha = theta[1]
            lumi.set_value(float(alpha))  # <-
            return mu + lumi.get_value()

        def main():
            return jax.grad(nll)(jnp.array([1.0, 0.5]))
        """),
    Case("gwpopulation-83", "https://github.com/ColmTalbot/gwpopulation/pull/83", "JAX105", """
        import jax
        import jax.numpy as jnp

        def powerlaw(m, alpha, mmin, mmax):
            a = float(alpha)  # <-
            norm = (1.0 - a) / (mmax ** (1.0 - a) - mmin ** (1.0 - a))
            return jnp.where((m >= mmin) & (m <= mmax), norm * m ** (-a), 0.0)

        @jax.jit
        def log_likelihood(masses, alpha, mmin, mmax):
            return jnp.sum(jnp.log(powerlaw(masses, alpha, mmin, mmax)))

        def main():
            return log_likelihood(jnp.linspace(10.0, 50.0, 20), 2.3, 5.0, 80.0)
        """),
    # ------------------------------------------------------------------ JAX107 tracer leak
    Case("jax-5492", "https://github.com/jax-ml/jax/pull/5492", "JAX107", """
        import jax

        seen = []

        @jax.jit
        def double(x):
            seen.append(x)  # <-
            return x * 2

        def main():
            double(3.0)
            return seen[0] + 1
        """),
    # ------------------------------------------------------------------ JAX108 static argument
    Case("optax-353", "https://github.com/google-deepmind/optax/issues/353", "JAX108", """
        from functools import partial

        import jax
        import jax.numpy as jnp
        import optax

        @partial(jax.jit, static_argnames=("optimizer",))
        def train_step(optimizer, params, opt_state):
            grads = jax.tree_util.tree_map(jnp.ones_like, params)
            updates, opt_state = optimizer.update(grads, opt_state)
            return optax.apply_updates(params, updates), opt_state

        def train():
            optimizer = optax.adam(1e-2)
            params = {"w": jnp.zeros((100, 100))}
            opt_state = optimizer.init(params)
            for _ in range(10):
                params, opt_state = train_step(optimizer, params, opt_state)  # <-
            return params

        def main():
            for _ in range(3):
                train()
        """),
    Case("diffusers-1096", "https://github.com/huggingface/diffusers/pull/1096", "JAX108", """
        import jax
        import jax.numpy as jnp

        def _generate(latents, params, num_steps, guidance_scale):
            def body(i, x):
                return x - guidance_scale * (x * params) / num_steps

            return jax.lax.fori_loop(0, num_steps, body, latents)

        p_generate = jax.pmap(_generate, static_broadcasted_argnums=(2, 3))

        def main():
            n = jax.local_device_count()
            latents = jnp.ones((n, 4))
            params = jnp.ones((n, 4))
            images = []
            for scale in (7.5, 8.0, 6.5):
                images.append(p_generate(latents, params, 50, scale))  # <-
            return images
        """),
    # ------------------------------------------------------------------ JAX111 data-dependent shape
    Case("jax-6501", "https://github.com/jax-ml/jax/pull/6501", "JAX111", """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def active_indices(x):
            return jnp.nonzero(x)  # <-

        def main():
            return active_indices(jnp.array([0, 1, 1, 0, 0, 1]))
        """),
    # ------------------------------------------------------------------ JAX114 key reuse
    Case("jax-192", "https://github.com/jax-ml/jax/issues/192", "JAX114", """
        import jax

        def draw_pair(seed):
            key = jax.random.key(seed)
            first = jax.random.uniform(key)
            second = jax.random.uniform(key)  # <-
            return first, second

        def main():
            return draw_pair(0)
        """),
    Case("jax-17626", "https://github.com/jax-ml/jax/pull/17626", "JAX114", """
        import jax
        import jax.numpy as jnp

        def noisy_features(key, n):
            u = jax.random.uniform(key, (n,))
            z = jax.random.normal(key, (n,))  # <-
            return jnp.concatenate([u, z])

        def main():
            return noisy_features(jax.random.key(1), 4)
        """),
]
