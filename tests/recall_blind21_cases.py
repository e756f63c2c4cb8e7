"""Blind recall cases, twenty-first round (issue 36, sealed before jaxlint ran on any of them):
one small program per public bug fix or bug report in a JAX repository, written in our own words
from the pattern the fix removed or the report shows (never the repository's code).

The pool: the git histories of JAX repositories that no earlier round read, fetched for this round on
2026-12-07 with the search tool's ``fetch`` (checked before reading by URL and by repository name against
``benchmarks/recall_reports.md``, every ``recall_blind*_cases.py`` and ``test_recall_blind.py``), and
GitHub issue threads found with the search tool's ``issues`` corpus that no earlier round used (checked by
URL). The histories were searched by commit subject (a key or rng, seed, split, tracer, jit, recompile,
static arguments, donation, "fix"/"bug") and by diff (small commits whose added lines bring a
``random.split``/``fold_in``, ``lax.cond``, ``jnp.where``, ``block_until_ready``, static or donated
arguments, and small "fix" commits whose diff touches keys, jit, ``.at[]``, tracers or loops): a reading
aid for finding commits, not a criterion. A commit whose message says it fixes such a pitfall (or whose
diff shows nothing else) and whose diff shows the pattern in the repository's own code is a case: the
code before the fix. A thread is a case when it reports, with the reporter's code, a problem a rule's
page claims (a pull request's review thread counts, with the pull request's code). The address is the
commit or the thread on the repository's public GitHub. At most three cases come from one repository.
Seven cases from six repositories were found in the time the round had (the brief aimed at twenty; the
seal was due at 21:00 UTC): two from qutip-jax, one each from gpax, FlaxDiff and wax-ml, a review
thread of jester and a jax thread. Five of them come from repositories whose released packages are in a
precision corpus (qutip-jax and flaxdiff in ``blind42``, gpax in ``blind48``, jestertov in ``blind57``:
their current code judged, their histories' fixes read by nobody). The round was *sealed*: the file was written and
committed on its own before jaxlint was run on any of the cases, by an engineer who changes no rule; the
commit is the proof that the cases predate the measurement.

Each case names the rule that should report it (chosen from the diff, the commit message or the
thread) and marks the problem's line (or lines) with ``# <-``, in the same ``Case`` form as
``recall_blind_cases.py``. A case is *found* when that rule reports on a marked line. The verdicts
are in ``benchmarks/recall_reports.md`` ("Blind recall, twenty-first round"); the measurement is
``tests/test_recall_blind.py``.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from recall_blind_cases import Case  # noqa: E402

CASES21: list[Case] = [
    # ------------------------------------------------------------------ JAX103 jit per call
    Case("flaxdiff-e726a74",
         "https://github.com/AshishKumar4/FlaxDiff/commit/e726a74bc78e019c1c46c752346d23eb55bf0f3f", "JAX103", """
        import jax
        import jax.numpy as jnp

        TRACES = []


        class Sampler:
            def __init__(self, params):
                self.params = params

            def denoise(self, params, x, t):
                TRACES.append(t)
                return x * params["scale"] - t[:, None] * 0.01

            def generate(self, num, steps=4, key=None):
                key = jax.random.key(42) if key is None else key
                x = jax.random.normal(key, (num, 8))
                params = self.params

                @jax.jit  # <-
                def model_fn(x_t, t):
                    return self.denoise(params, x_t, t)

                for i in range(steps):
                    x = model_fn(x, jnp.full((num,), steps - i, jnp.float32))
                return x


        def main():
            sampler = Sampler({"scale": jnp.array(0.9)})
            sampler.generate(4)
            sampler.generate(4)
            return len(TRACES)
        """),
    # ------------------------------------------------------------------ JAX105 traced control flow
    Case("gpax-ebe5b32",
         "https://github.com/ziatdinovmax/gpax/commit/ebe5b32ef4abcfac8965746a8b1cf06774cc5bba", "JAX105", """
        from functools import partial

        import jax
        import jax.numpy as jnp


        def rbf(x1, x2, length, noise=0.0):
            d = (x1[:, None] - x2[None, :]) ** 2
            return jnp.exp(-0.5 * d / length ** 2) + noise * jnp.eye(x1.shape[0], x2.shape[0])


        class ExactGP:
            def __init__(self, x_train, y_train):
                self.x_train = x_train
                self.y_train = y_train

            @partial(jax.jit, static_argnames="self")
            def posterior(self, x_new, params, noiseless=False):
                noise = params["noise"]
                noise_p = noise * jnp.array(not noiseless, int)  # <-
                k_pp = rbf(x_new, x_new, params["length"], noise_p)
                k_px = rbf(x_new, self.x_train, params["length"])
                k_xx = rbf(self.x_train, self.x_train, params["length"], noise)
                k_inv = jnp.linalg.inv(k_xx)
                mean = k_px @ k_inv @ self.y_train
                cov = k_pp - k_px @ k_inv @ k_px.T
                return mean, cov


        def main():
            x = jnp.linspace(0.0, 1.0, 8)
            gp = ExactGP(x, jnp.sin(6 * x))
            params = {"noise": jnp.array(0.1), "length": jnp.array(0.3)}
            return gp.posterior(jnp.linspace(0.0, 1.0, 5), params, True)
        """),
    Case("jax-1461",
         "https://github.com/jax-ml/jax/issues/1461", "JAX105", """
        import jax


        @jax.jit
        def pick(cond1, cond2, a, b):
            return jax.lax.cond(cond1 and cond2, lambda ab: ab[0], lambda ab: ab[1], (a, b))  # <-


        def main():
            return pick(True, True, 1, 2)
        """),
    Case("qutip-jax-4727189",
         "https://github.com/qutip/qutip-jax/commit/4727189ca5bfe970e7821c5691a70749897ece77", "JAX105", """
        from functools import partial

        import jax
        import jax.numpy as jnp


        def is_hermitian(mat, tol=1e-10):
            return jnp.all(jnp.abs(mat - mat.conj().T) < tol)


        @partial(jax.jit, static_argnums=(1, 2))
        def _eigs(mat, hermitian, want_vectors):
            if hermitian:
                vals, vecs = jnp.linalg.eigh(mat)
            else:
                vals, vecs = jnp.linalg.eig(mat)
            order = jnp.argsort(vals.real)
            return vals[order], (vecs[:, order] if want_vectors else None)


        def eigs(mat, hermitian=None, want_vectors=True):
            hermitian = hermitian if hermitian is not None else bool(is_hermitian(mat))  # <-
            return _eigs(mat, hermitian, want_vectors)


        @jax.jit
        def ground_energy(h):
            vals, _ = eigs(h, want_vectors=False)
            return vals[0].real


        def main():
            h = jnp.array([[1.0, 0.5], [0.5, -1.0]])
            print(eigs(h)[0])
            return ground_energy(h)
        """),
    Case("qutip-jax-62d6df0",
         "https://github.com/qutip/qutip-jax/commit/62d6df02226fdd067830d5d62bda170ce6d6ceca", "JAX105", """
        import jax
        import jax.numpy as jnp


        @jax.tree_util.register_pytree_node_class
        class DiaMatrix:
            def __init__(self, offsets, data, shape):
                self.offsets = tuple(offsets)
                self.data = data
                self.shape = shape

            def tree_flatten(self):
                return (self.data,), (self.offsets, self.shape)

            @classmethod
            def tree_unflatten(cls, aux, children):
                return cls(aux[0], children[0], aux[1])


        def _is_zero(vec, tol):
            return jnp.allclose(vec, 0.0, atol=tol, rtol=0)


        def _is_conj(vec1, vec2, tol):
            return jnp.allclose(vec1, vec2.conj(), atol=tol, rtol=0)


        def is_hermitian_dia(matrix, tol=1e-12):
            if matrix.shape[0] != matrix.shape[1]:
                return False
            done = []
            for offset, data in zip(matrix.offsets, matrix.data):
                if offset in done:
                    continue
                start = max(0, offset)
                end = min(matrix.shape[1], matrix.shape[0] + offset)
                if -offset not in matrix.offsets:
                    if not _is_zero(data[start:end], tol):  # <-
                        return False
                else:
                    idx = matrix.offsets.index(-offset)
                    done.append(-offset)
                    st = max(0, -offset)
                    et = min(matrix.shape[1], matrix.shape[0] - offset)
                    if not _is_conj(data[start:end], matrix.data[idx, st:et], tol):  # <-
                        return False
            return True


        @jax.jit
        def energy_if_hermitian(matrix):
            return jnp.where(is_hermitian_dia(matrix), jnp.sum(matrix.data[0]), jnp.nan)


        def main():
            data = jnp.array([[2.0, 1.0, 0.0], [3.0, 3.0, 3.0], [0.0, 2.0, 1.0]])
            mat = DiaMatrix((-1, 0, 1), data, (3, 3))
            print(is_hermitian_dia(mat))
            return energy_if_hermitian(mat)
        """),
    # ------------------------------------------------------------------ JAX114 PRNG key reuse
    Case("wax-ml-009c07c",
         "https://github.com/eserie/wax-ml/commit/009c07ced44f35f34c9d691223ac3d154c7d3e61", "JAX114", """
        import jax
        import jax.numpy as jnp


        def noisy_step(params, state, rng, x):
            noise = jax.random.normal(rng, x.shape) * params["sigma"]
            new_state = 0.9 * state + x + noise
            return new_state, new_state


        def unroll(step_fn):
            def apply_fn(params, state, rng, xs):
                def scan_f(prev_state, x):
                    next_state, out = step_fn(params, prev_state, rng, x)  # <-
                    return next_state, out

                final_state, outputs = jax.lax.scan(scan_f, state, xs)
                return outputs, final_state

            return apply_fn


        def main():
            apply = jax.jit(unroll(noisy_step))
            params = {"sigma": jnp.array(1.0)}
            outputs, _ = apply(params, jnp.zeros(3), jax.random.key(0), jnp.zeros((5, 3)))
            return outputs
        """),
    Case("jester-pr55",
         "https://github.com/nuclear-multimessenger-astronomy/jester/pull/55", "JAX114", """
        import jax
        import jax.numpy as jnp


        class AffineFlow:
            def __init__(self, loc, scale):
                self.loc = jnp.asarray(loc)
                self.scale = jnp.asarray(scale)

            def sample(self, key, shape):
                z = jax.random.normal(key, shape + self.loc.shape)
                return self.loc + self.scale * z


        class PulsarLikelihood:
            def __init__(self, flow_a, flow_b, n_masses, seed=0):
                key = jax.random.key(seed)
                key_a, key_b = jax.random.split(key)
                samples_a = flow_a.sample(key, (n_masses,))  # <-
                samples_b = flow_b.sample(key, (n_masses,))  # <-
                self.masses_a = samples_a[:, :1]
                self.masses_b = samples_b[:, :1]

            def log_likelihood(self, mtov):
                pa = jnp.mean(jnp.where(self.masses_a[:, 0] < mtov, 1.0, 0.0))
                pb = jnp.mean(jnp.where(self.masses_b[:, 0] < mtov, 1.0, 0.0))
                return jnp.log(0.5 * (pa + pb) + 1e-12)


        def main():
            like = PulsarLikelihood(AffineFlow([1.4, 12.0], [0.1, 0.5]), AffineFlow([1.5, 12.5], [0.1, 0.5]), 1000)
            return like.log_likelihood(2.0), jnp.corrcoef(like.masses_a[:, 0], like.masses_b[:, 0])[0, 1]
        """),
]
