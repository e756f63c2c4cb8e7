"""Blind recall cases, eleventh round (issue 36, sealed before the session's rule work was judged):
one small program per public bug report, pull-request review, question, course notebook or
tutorial page about a JAX pitfall that a static rule's documentation claims, written in our own
words from the report's pattern (never the report's code).

None of these threads is among the cases of the ten earlier rounds or the 34 earlier cases of
``benchmarks/recall_reports.md``, nor among the threads the earlier rounds left out by name
(checked by URL, and by repository and number; ``tests/test_recall_blind.py`` checks the URLs).
They were found with the ``search`` tool's ``issues`` and ``pages`` corpora, widened beyond
jax's own tracker to libraries that grew a JAX backend (reservoirpy, torchstain, MrMustard,
keras), equinox, tutorial and course pages. The round was *sealed*: the file was written and
committed on its own before jaxlint was run on any of the cases, by an engineer who changes no
rule, and no other engineer of the session saw it; the commit is the proof that the cases
predate the measurement.

Each case names the rule that should report it and marks the problem's line (or lines) with
``# <-``, in the same ``Case`` form as ``recall_blind_cases.py``. A case is *found* when that
rule reports on a marked line. The verdicts are in ``benchmarks/recall_reports.md`` ("Blind
recall, eleventh round"); the measurement is ``tests/test_recall_blind.py``.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from recall_blind_cases import Case  # noqa: E402

CASES11: list[Case] = [
    # ------------------------------------------------------------------ JAX105 traced control flow
    Case("crackedaicode-python-while", "https://crackedaicode.com/problems/jax-while-loop-vs-python-while",
         "JAX105", """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def halve_until_small(x):
            while x > 1.0:  # <-
                x = x * 0.5
            return x

        def main():
            return halve_until_small(jnp.float32(4.0))
        """),
    Case("crackedaicode-bounded-search", "https://crackedaicode.com/problems/jax-while-loop-bounded-search",
         "JAX105", """
        import jax
        import jax.numpy as jnp
        from jax import lax

        def first_zero(x, max_iters):
            limit = jnp.minimum(max_iters, x.shape[0])

            def keep_going(idx):
                return (idx < limit) and (x[idx] != 0.0)  # <-

            return lax.while_loop(keep_going, lambda idx: idx + 1, jnp.int32(0))

        def main():
            return jax.jit(first_zero)(jnp.array([3.0, 1.0, 0.0, 2.0]), 10)
        """),
    Case("mrmustard-546", "https://github.com/XanaduAI/MrMustard/pull/546", "JAX105", """
        import jax
        import jax.numpy as jnp

        def attenuator_abc(eta):
            eta = jnp.atleast_1d(eta)
            for e in eta:
                if jnp.real(e) > 1 or jnp.real(e) < 0:  # <-
                    raise ValueError("transmissivity must lie in [0, 1]")
            return jnp.sqrt(eta), 1.0 - eta

        def main():
            return jax.jit(attenuator_abc)(jnp.array([0.5, 0.9]))
        """),
    Case("keras-19639", "https://github.com/keras-team/keras/issues/19639", "JAX105", """
        import keras
        import numpy as np
        from keras import ops

        class SliceAndRepeat(keras.Model):
            def call(self, inputs):
                x, pos = inputs
                stop = int(pos[0])  # <-
                return ops.repeat(x[:, :stop], 2, axis=2)

        def main():
            model = SliceAndRepeat()
            return model.predict((np.random.rand(1, 5, 4, 3), np.array([2])))
        """),
    Case("python-performance-minicourse-jax",
         "https://raw.githubusercontent.com/henryiii/python-performance-minicourse/master/06b_jax.ipynb",
         "JAX105", """
        import jax

        @jax.jit
        def cube_if_three(x):
            if x == 3:  # <-
                return x ** 3
            return x

        def main():
            return cube_if_three(2)
        """),
    # ------------------------------------------------------------------ JAX108 static-argument hazard
    Case("equinox-746", "https://github.com/patrick-kidger/equinox/issues/746", "JAX108", """
        import equinox as eqx
        import jax
        import jax.numpy as jnp
        import jax.random as jr

        class Observations(eqx.Module):
            values: jax.Array = eqx.field(static=True)  # <-

            def __init__(self, seed):
                self.values = jr.uniform(jr.PRNGKey(seed), (10, 10))  # <-

        class Offset(eqx.Module):
            offset: jax.Array

            def __init__(self, offset):
                self.offset = jnp.asarray(offset)

        @eqx.filter_jit
        @eqx.filter_value_and_grad
        def misfit(model, obs):
            return jnp.sum(model.offset - obs.values)

        def main():
            model = Offset(1.0)
            misfit(model, Observations(0))
            return misfit(model, Observations(1))  # <-
        """),
    Case("jaxember-21-counter", "https://github.com/suvash/jaxember-21", "JAX108", """
        import jax

        class Counter:
            def __init__(self):
                self.n = 0

            def count(self):
                self.n += 1  # <-
                return self.n

            def reset(self):
                self.n = 0

        def main():
            counter = Counter()
            counter.reset()
            jit_count = jax.jit(counter.count)  # <-
            return [int(jit_count()) for _ in range(5)]
        """),
    Case("reservoirpy-235", "https://github.com/reservoirpy/reservoirpy/issues/235", "JAX108", """
        from functools import partial

        import jax
        import jax.numpy as jnp

        class PlasticReservoir:
            def __init__(self, units):
                self.a = jnp.ones(units)
                self.b = jnp.zeros(units)
                self.W = 0.9 * jnp.eye(units)

            @partial(jax.jit, static_argnums=(0,))  # <-
            def _step(self, state, x):
                return jnp.tanh(self.a * (self.W @ state + x) + self.b)

            def fit(self, xs, lr=0.1):
                state = jnp.zeros_like(self.a)
                for x in xs:
                    state = self._step(state, x)
                    self.a = self.a + lr * (1.0 - state ** 2)  # <-
                    self.b = self.b - lr * state
                return state

        def main():
            return PlasticReservoir(3).fit(jnp.ones((4, 3)))
        """),
    # ------------------------------------------------------------------ JAX110 discarded update
    Case("reservoirpy-234", "https://github.com/reservoirpy/reservoirpy/issues/234", "JAX110", """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def nvar_step(store, x):
            store = jnp.roll(store, 1, axis=0)
            store.at[0].set(x)  # <-
            features = jnp.zeros(2 * x.shape[0])
            features.at[: x.shape[0]].set(store[0])  # <-
            features.at[x.shape[0]:].set(store[-1])  # <-
            return store, features

        def main():
            return nvar_step(jnp.zeros((3, 2)), jnp.ones(2))
        """),
    # ------------------------------------------------------------------ JAX111 data-dependent shape
    Case("jax-5558", "https://github.com/jax-ml/jax/pull/5558", "JAX111", """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def padded_total(img, search_window):
            padded = jnp.pad(img, search_window)  # <-
            return padded.sum()

        def main():
            return padded_total(jnp.arange(25.0).reshape(5, 5), 5)
        """),
    Case("torchstain-31", "https://github.com/EIDOSLAB/torchstain/issues/31", "JAX111", """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def stain_basis(image, io=240.0, beta=0.15):
            od = -jnp.log((image.reshape(-1, 3) + 1.0) / io)
            od_hat = od[~jnp.any(od < beta, axis=1)]  # <-
            _, eigvecs = jnp.linalg.eigh(jnp.cov(od_hat.T))
            return eigvecs[:, 1:3]

        def main():
            return stain_basis(jnp.full((4, 4, 3), 100.0))
        """),
    Case("keras-21501", "https://github.com/keras-team/keras/pull/21501", "JAX111", """
        import jax
        import jax.numpy as jnp

        def backend_slice(inputs, start_indices, shape):
            final_shape = tuple(
                inputs.shape[i] - start_indices[i] if s == -1 else s  # <-
                for i, s in enumerate(shape)
            )
            return jax.lax.dynamic_slice(inputs, start_indices, final_shape)  # <-

        def main():
            sliced = jax.jit(backend_slice, static_argnums=2)
            return sliced(jnp.ones((4, 6)), jnp.array([1, 2]), (2, -1))
        """),
]
