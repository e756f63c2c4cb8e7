"""Blind recall cases, tenth round (issue 36, sealed before the session's rule work was judged):
one small program per public bug report, question, pull request or tutorial page about a JAX
pitfall that a static rule's documentation claims, written in our own words from the
report's pattern (never the report's code).

None of these threads is among the cases of the nine earlier rounds or the 34 earlier cases
of ``benchmarks/recall_reports.md``, nor among the threads the earlier rounds left out by
name (checked by URL, and by repository and number; ``tests/test_recall_blind.py`` checks
the URLs). They were found with the ``search`` tool's ``issues`` and ``pages`` corpora. The
round was *sealed*: the file was written and committed on its own before jaxlint was run on
any of the cases, by an engineer who changes no rule, and no other engineer of the session
saw it; the commit is the proof that the cases predate the measurement.

Each case names the rule that should report it and marks the problem's line (or lines) with
``# <-``, in the same ``Case`` form as ``recall_blind_cases.py``. A case is *found* when that
rule reports on a marked line. The verdicts are in ``benchmarks/recall_reports.md`` ("Blind
recall, tenth round"); the measurement is ``tests/test_recall_blind.py``.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from recall_blind_cases import Case  # noqa: E402

CASES10: list[Case] = [
    # ------------------------------------------------------------------ JAX102 Python loop in jit
    Case("jaxley-55", "https://github.com/jaxleyverse/jaxley/issues/55", "JAX102", """
        from functools import partial

        import jax
        import jax.numpy as jnp

        def _segment(v, drive):
            def step(carry, _):
                return carry + 0.025 * (drive - carry), None
            out, _ = jax.lax.scan(step, v, None, length=40)
            return out

        @partial(jax.jit, static_argnums=2)
        def integrate(v0, drive, checkpoints):
            v = v0
            for _ in checkpoints:  # <-
                v = jax.checkpoint(_segment)(v, drive)
            return v

        def main():
            return integrate(jnp.zeros(16), jnp.ones(16), tuple(range(40, 4000, 40)))
        """),
    # ------------------------------------------------------------------ JAX105 traced control flow
    Case("jax-3740", "https://github.com/jax-ml/jax/issues/3740", "JAX105", """
        import math
        from functools import partial

        import jax
        import jax.numpy as jnp

        @partial(jax.jit, static_argnums=1)
        def truncated_rank(core, tolerance):
            singular = jnp.linalg.svd(core, compute_uv=False)
            rank = 0
            for value in singular:
                if value < tolerance:  # <-
                    break
                rank += 1
            return rank

        def main():
            return truncated_rank(jnp.eye(4), 1e-3 / math.sqrt(3))
        """),
    Case("pytzer-55", "https://github.com/mvdh7/pytzer/pull/55", "JAX105", """
        import warnings

        import jax
        import jax.numpy as jnp

        @jax.jit
        def solve_equilibrium(totals, guess):
            def newton(_, x):
                return x - (x * x - totals) / (2.0 * x)
            x = jax.lax.fori_loop(0, 8, newton, guess)
            if jnp.any(jnp.abs(x * x - totals) > 1e-6):  # <-
                warnings.warn("equilibrium solver did not converge")
            return x

        def main():
            return solve_equilibrium(jnp.array([2.0, 3.0]), jnp.ones(2))
        """),
    Case("learning-jax-tracer-bool", "https://github.com/k-karna/learning_jax", "JAX105", """
        from jax import jit

        @jit
        def inside_open_interval(x):
            return (x > 0) and (x < 3)  # <-

        def main():
            return inside_open_interval(2)
        """),
    Case("jax-errors-page-cond-expr", "https://jax.readthedocs.io/en/latest/errors.html", "JAX105", """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def smaller_total(a, b):
            return a if a.sum() < b.sum() else b  # <-

        def main():
            return smaller_total(jnp.ones(4), jnp.zeros(4))
        """),
    Case("apxml-jit-static-vs-traced",
         "https://apxml.com/courses/getting-started-with-jax/chapter-2-accelerating-functions-jit/jit-static-vs-traced",
         "JAX105", """
        import jax
        import jax.numpy as jnp

        def double_above(x, threshold):
            if x > threshold:  # <-
                return x * 2
            return x

        double_above_jit = jax.jit(double_above)

        def main():
            return double_above_jit(jnp.float32(3.0), 1.5)
        """),
    Case("theneuralbase-static-vs-dynamic",
         "https://theneuralbase.com/jax/learn/beginner/static-vs-dynamic-values/", "JAX105", """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def repeat_rows(x, times: int):
            out = x
            for _ in range(times):  # <-
                out = jnp.concatenate([out, x])
            return out

        def main():
            return repeat_rows(jnp.arange(3.0), 2)
        """),
    # ------------------------------------------------------------------ JAX106 side effect in jit
    Case("jax-faq-impure-print",
         "https://archive.softwareheritage.org/browse/origin/content/?branch=refs%2Ftags%2F0.3.24"
         "&origin_url=https%3A%2F%2Fgithub.com%2Fgoogle%2Fjax&path=docs%2Ffaq.rst",
         "JAX106", """
        import jax

        bias = 0

        @jax.jit
        def shifted(x):
            print("bias seen inside:", bias)  # <-
            return x + bias

        def main():
            global bias
            results = []
            for value in range(3):
                bias = value
                results.append(shifted(value))
            return results
        """),
    # ------------------------------------------------------------------ JAX111 data-dependent shape
    Case("jax-15386", "https://github.com/jax-ml/jax/issues/15386", "JAX111", """
        import jax
        import jax.numpy as jnp

        def padded_spectrum(signal, length):
            return jnp.fft.fft(signal, length)  # <-

        def main():
            return jax.jit(padded_spectrum)(jnp.ones(100), 1024)
        """),
    # ------------------------------------------------------------------ JAX112 float64
    Case("jax-gcm-175", "https://github.com/climate-analytics-lab/jax-gcm/pull/175", "JAX112", """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def column_temperature(sigma_levels):
            base = jnp.zeros(sigma_levels.shape, dtype=jnp.float_)  # <-
            return base + 288.0 * sigma_levels ** 0.19

        def main():
            return column_temperature(jnp.linspace(0.1, 1.0, 8))
        """),
    # ------------------------------------------------------------------ JAX114 key reuse
    Case("sbx-45", "https://github.com/araffin/sbx/issues/45", "JAX114", """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def _update(params, key):
            key, noise_key = jax.random.split(key)
            noise = jax.random.normal(noise_key, params.shape)
            return params - 0.01 * noise, key

        class Agent:
            def __init__(self, seed):
                self.key = jax.random.PRNGKey(seed)

            def train(self, params):
                params, _ = _update(params, self.key)  # <-
                return params

        def main():
            agent = Agent(0)
            params = jnp.zeros(3)
            for _ in range(3):
                params = agent.train(params)
            return params
        """),
    Case("coreax-373", "https://github.com/gchq/coreax/issues/373", "JAX114", """
        import jax
        import jax.numpy as jnp

        class SlicedMatcher:
            def __init__(self, random_key, num_slices):
                self.random_key = random_key
                self.num_slices = num_slices

            def match(self, data):
                picks = jax.random.choice(self.random_key, data.shape[0], (self.num_slices,))  # <-
                return data[picks].mean(axis=0)

        def main():
            matcher = SlicedMatcher(jax.random.PRNGKey(1), 4)
            data = jnp.arange(40.0).reshape(20, 2)
            return matcher.match(data), matcher.match(data)
        """),
    Case("pennylane-5515", "https://github.com/PennyLaneAI/pennylane/pull/5515", "JAX114", """
        import jax
        import jax.numpy as jnp

        def sample_basis_states(state, shots, key):
            probs = jnp.abs(state) ** 2
            return jax.random.choice(key, state.shape[0], (shots,), p=probs / probs.sum())

        def measure_all(state, observables, shots, key):
            samples = []
            for obs in observables:
                samples.append(sample_basis_states(state * obs, shots, key))  # <-
            return samples

        def main():
            state = jnp.array([0.6, 0.8, 0.0, 0.0])
            observables = [jnp.ones(4), jnp.array([1.0, -1.0, 1.0, -1.0])]
            return measure_all(state, observables, 100, jax.random.PRNGKey(0))
        """),
]
