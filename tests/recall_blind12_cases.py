"""Blind recall cases, twelfth round (issue 36, sealed before the session's rule work was judged):
one small program per public bug report, question, pull-request comment or answer page about a
JAX pitfall that a static rule's documentation claims, written in our own words from the report's
pattern (never the report's code).

None of these threads is among the cases of the eleven earlier rounds or the 34 earlier cases of
``benchmarks/recall_reports.md``, nor among the threads the earlier rounds left out by name
(checked by URL, and by repository and number; ``tests/test_recall_blind.py`` checks the URLs).
They were found with the ``search`` tool's ``issues`` and ``pages`` corpora, widened beyond the
usual trackers to a brain-simulation library (BrainPy), an RL environment library (jit_env), a
Rust optimiser's JAX layer (pounce), an answer page in Chinese, and old questions on jax's own
tracker that the earlier rounds had not reached. The round was *sealed*: the file was written and
committed on its own before jaxlint was run on any of the cases, by an engineer who changes no
rule, and no other engineer of the session saw it; the commit is the proof that the cases predate
the measurement.

Each case names the rule that should report it and marks the problem's line (or lines) with
``# <-``, in the same ``Case`` form as ``recall_blind_cases.py``. A case is *found* when that
rule reports on a marked line. The verdicts are in ``benchmarks/recall_reports.md`` ("Blind
recall, twelfth round"); the measurement is ``tests/test_recall_blind.py``.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from recall_blind_cases import Case  # noqa: E402

CASES12: list[Case] = [
    # ------------------------------------------------------------------ JAX105 traced control flow
    Case("wlsqs-switch-chained-compare", "https://php.wlsqs.com/faq/1902291.html", "JAX105", """
        import jax
        import jax.numpy as jnp
        from jax import lax

        def keep_inside(x):
            return jnp.where(0.0 < x < 1.0, x, 0.0)  # <-

        def clamp_outside(x):
            return jnp.where(0.0 < x < 1.0, x, 1.0)  # <-

        def branchy(index, x):
            return lax.switch(index, [keep_inside, clamp_outside], x)

        def main():
            return jax.grad(branchy, argnums=1)(1, 0.5)
        """),
    Case("jax-1271", "https://github.com/jax-ml/jax/issues/1271", "JAX105", """
        import jax
        import jax.numpy as jnp

        def stack_all(arrays):
            if not arrays:  # <-
                raise ValueError("need at least one array to stack")
            return jnp.stack(arrays)

        @jax.jit
        def as_rows(x):
            return stack_all(x)

        def main():
            return as_rows(jnp.zeros(2))
        """),
    Case("jax-3994", "https://github.com/jax-ml/jax/issues/3994", "JAX105", """
        import jax
        import jax.numpy as jnp

        @jax.vmap
        @jax.jit
        def normalise(row):
            if jax.config.jax_disable_jit:
                assert row.min() > 0, "rows must be positive"  # <-
            return row / row.sum()

        def main():
            with jax.disable_jit():
                return normalise(jnp.ones((3, 4)))
        """),
    Case("jit-env-36", "https://github.com/joeryjoery/jit_env/issues/36", "JAX105", """
        import jax
        import jax.numpy as jnp

        class DiscreteSpec:
            def __init__(self, num_values, dtype=jnp.int32):
                num_values = jnp.asarray(num_values, dtype)
                if not (num_values > 0).all():  # <-
                    raise ValueError(f"num_values must be positive, got {num_values}")
                self.num_values = num_values

        class GridWalk:
            def action_spec(self):
                return DiscreteSpec(4)

            def step(self, state, action):
                spec = self.action_spec()
                return state + jnp.clip(action, 0, spec.num_values - 1)

        def main():
            env = GridWalk()
            return jax.jit(env.step)(jnp.int32(0), jnp.int32(2))
        """),
    Case("pounce-795", "https://github.com/jkitchin/pounce/issues/795", "JAX105", """
        import jax
        import jax.numpy as jnp
        import numpy as np

        def fold_upper_bounds(G, h, ub):
            rows, rhs = [G], [h]
            for i in range(ub.shape[0]):
                if np.isfinite(float(ub[i])):  # <-
                    rows.append(jnp.zeros((1, ub.shape[0])).at[0, i].set(1.0))
                    rhs.append(ub[i][None])
            return jnp.concatenate(rows), jnp.concatenate(rhs)

        @jax.jit
        def qp_layer(x, ub):
            G, h = fold_upper_bounds(jnp.eye(2), jnp.ones(2), ub)
            return G @ x - h

        def main():
            return qp_layer(jnp.ones(2), jnp.array([1.0, jnp.inf]))
        """),
    Case("jax-968", "https://github.com/jax-ml/jax/issues/968", "JAX105", """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def is_pit(z, i, j):
            return z[j, i] <= z[j - 1, i] and z[j, i] <= z[j + 1, i] and z[j, i] <= z[j, i - 1] and z[j, i] <= z[j, i + 1]  # <-

        def main():
            z = jax.random.normal(jax.random.PRNGKey(0), (8, 8))
            return [(i, j) for i in range(1, 7) for j in range(1, 7) if is_pit(z, i, j)]
        """),
    # ------------------------------------------------------------------ JAX111 data-dependent shape
    Case("brainpy-607", "https://github.com/brainpy/BrainPy/issues/607", "JAX111", """
        import jax
        import jax.numpy as jnp

        def readout(w, xs):
            return jnp.tanh(xs @ w)

        def loss(w, xs, targets, onsets):
            out = readout(w, xs)
            total = 0.0
            for i in range(targets.shape[0]):
                start = onsets[i]
                total = total + ((out[start:, i] - targets[i]) ** 2).sum()  # <-
            return total

        @jax.jit
        def train_step(w, xs, targets, onsets):
            return w - 0.1 * jax.grad(loss)(w, xs, targets, onsets)

        def main():
            xs = jnp.ones((6, 3, 4))
            return train_step(jnp.ones(4), xs, jnp.zeros(3), jnp.array([1, 2, 3]))
        """),
    Case("jax-9578", "https://github.com/jax-ml/jax/issues/9578", "JAX111", """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def nth_match(values, target, n=0):
            marked = jnp.where(values == target, values, jnp.nan)
            return jnp.where(marked == marked)[n]  # <-

        def main():
            return nth_match(jnp.array([3.0, 1.0, 3.0, 2.0]), 3.0)
        """),
    Case("jax-9579", "https://github.com/jax-ml/jax/issues/9579", "JAX111", """
        import jax
        import jax.numpy as jnp

        def warp_segment(idx, carry):
            alpha, segment, key = carry
            key, sub = jax.random.split(key)
            cdf = jnp.cumsum(jax.random.uniform(sub, (20,)))
            cdf = cdf / cdf[-1]
            mask = (segment - 1) == idx
            start = jnp.argmax(mask)
            part = alpha[mask]  # <-
            warped = cdf[(part * 19).astype(int)]
            alpha = jax.lax.dynamic_update_slice(alpha, warped, (start,))
            return alpha, segment, key

        def warp(alpha, segment, key):
            return jax.lax.fori_loop(0, 3, warp_segment, (alpha, segment, key))[0]

        def main():
            alpha = jnp.linspace(0.0, 0.9, 8)
            segment = jnp.array([1, 1, 2, 2, 3, 3, 4, 4])
            return warp(alpha, segment, jax.random.PRNGKey(0))
        """),
]
