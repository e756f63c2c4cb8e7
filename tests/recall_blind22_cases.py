"""Blind recall cases, twenty-second round (issue 36, sealed before jaxlint ran on any of them):
one small program per public bug fix or bug report in a JAX repository, written in our own words
from the pattern the fix removed or the report shows (never the repository's code).

The pool: the git histories of JAX repositories that no earlier round read, fetched for this round on
2026-12-07 with the search tool's ``fetch`` (checked before reading by URL and by repository name against
``benchmarks/recall_reports.md``, every ``recall_blind*_cases.py`` and ``test_recall_blind.py``, and against
the repositories a sealed precision corpus is being drawn from now: ``/work/seal55/pool.txt`` from candidate
450 on), and GitHub issue threads found with the search tool's ``issues`` corpus that no earlier round used
(checked by URL). The histories were searched by commit subject (a key or rng, seed, split, tracer, jit,
recompile, static arguments, donation, "fix"/"bug") and by diff (small commits whose added or removed lines
touch ``random.split``/``fold_in``/``PRNGKey``, ``static_argnums``, donation, ``block_until_ready``,
``jax.jit``, ``.at[]``, ``lax.cond``/``jnp.where``, tracers, ``nonzero``/``argwhere``/``unique``, loops and
clocks): a reading aid for finding commits, not a criterion. A commit whose message says it fixes such a
pitfall (or whose diff shows nothing else) and whose diff shows the pattern in the repository's own code is
a case: the code before the fix. A thread is a case when it reports a problem a rule's page claims, with the
reporter's code or the lines of the repository it names. The address is the commit or the thread on the
repository's public GitHub. At most three cases come from one repository.
Seven cases from seven repositories were found in the time the round had (the brief aimed at twenty; the
seal was due at 23:50 UTC): commits of e3nn-jax, goal-jax, tornadox, disentangled_rnns and
huggingface/community-events, and threads of optax and gdsfactory's quantum-rf-pdk. One of them comes
from a repository whose released package is in a precision corpus (e3nn-jax in ``blind40``: its current
code judged, its history's fixes read by nobody). The round was *sealed*: the file was written and
committed on its own before jaxlint was run on any of the cases, by an engineer who changes no rule; the
commit is the proof that the cases predate the measurement.

Each case names the rule that should report it (chosen from the diff, the commit message or the
thread) and marks the problem's line (or lines) with ``# <-``, in the same ``Case`` form as
``recall_blind_cases.py``. A case is *found* when that rule reports on a marked line. The verdicts
are in ``benchmarks/recall_reports.md`` ("Blind recall, twenty-second round"); the measurement is
``tests/test_recall_blind.py``.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from recall_blind_cases import Case  # noqa: E402

CASES22: list[Case] = [
    # ------------------------------------------------------------------ JAX102 python loop in jit
    Case("e3nn-jax-412dc9d",
         "https://github.com/e3nn/e3nn-jax/commit/412dc9da0b999f60e470ece85c21b448bebe8c26", "JAX102", """
        from functools import partial

        import jax
        import jax.numpy as jnp


        def rollout_sh(values, lmax):
            out = jnp.zeros((*values.shape[:-2], (lmax + 1) ** 2), dtype=values.dtype)
            for l in range(lmax + 1):  # <-
                for m in range(l + 1):
                    out = out.at[..., l**2 + l + m].set(values[..., l, m])
                    out = out.at[..., l**2 + l - m].set(values[..., l, m])
            return out


        @partial(jax.jit, static_argnums=1)
        def to_grid(coeffs, lmax):
            beta = jnp.linspace(0.0, jnp.pi, 8)
            sh = jnp.cos(beta)[:, None, None] * jnp.ones((lmax + 1, lmax + 1))
            rolled = rollout_sh(sh, lmax)
            return jnp.einsum("bi,...i->...b", rolled, coeffs)


        def main():
            lmax = 24
            return to_grid(jnp.ones((lmax + 1) ** 2), lmax)
        """),
    # ------------------------------------------------------------------ JAX103 jit per call
    Case("community-events-24882f1",
         "https://github.com/huggingface/community-events/commit/24882f1814f3ea0d55c239e1e962f54a161c2b27", "JAX103", """
        import jax
        import jax.numpy as jnp

        TRACES = []


        class Pipeline:
            def __init__(self, guidance):
                self.guidance = guidance
                self._generate = jax.jit(self._generate_impl)

            def _generate_impl(self, params, noise):
                TRACES.append(noise.shape)
                x = noise
                for _ in range(3):
                    x = x - self.guidance * params["w"] * x
                return x

            def __call__(self, params, noise):
                return self._generate(params, noise)


        def log_validation(params, rng):
            pipeline = Pipeline(guidance=0.5)  # <-
            noise = jax.random.normal(rng, (4, 8))
            return pipeline(params, noise)


        def main():
            params = {"w": jnp.ones(8)}
            rng = jax.random.key(0)
            for step in range(3):
                params = {"w": params["w"] * 0.9}
                log_validation(params, jax.random.fold_in(rng, step))
            return len(TRACES)
        """),
    # ------------------------------------------------------------------ JAX104 numpy on tracer
    Case("disentangled_rnns-a1d29b8",
         "https://github.com/google-deepmind/disentangled_rnns/commit/a1d29b8c2c8b15413b43a06090f2dc668a4d5d8b", "JAX104", """
        import jax
        import jax.numpy as jnp
        import numpy as np


        def to_np(tree):
            out = {}
            for name, value in tree.items():
                if isinstance(value, dict):
                    out[name] = to_np(value)
                else:
                    try:
                        out[name] = np.array(value)  # <-
                    except ValueError:
                        print(f"Not converting {name}")
                        out[name] = value
            return out


        def apply_cell(params, x, h):
            h = jnp.tanh(x @ params["cell"]["w_in"] + h @ params["cell"]["w_h"])
            return h @ params["readout"]["w"], h


        def step_network(params, h, x):
            params = to_np(params)
            return apply_cell(params, x, h)


        def main():
            saved = {"cell": {"w_in": [[0.1, 0.2], [0.3, 0.4]], "w_h": [[0.5, 0.0], [0.0, 0.5]]},
                     "readout": {"w": [[1.0], [1.0]]}}
            h = jnp.zeros(2)
            y, h = step_network(saved, h, jnp.ones(2))
            params = {"cell": {"w_in": jnp.eye(2), "w_h": jnp.eye(2) * 0.5}, "readout": {"w": jnp.ones((2, 1))}}
            return jax.jit(step_network)(params, h, jnp.ones(2))
        """),
    # ------------------------------------------------------------------ JAX105 traced control flow
    Case("quantum-rf-pdk-833",
         "https://github.com/gdsfactory/quantum-rf-pdk/issues/833", "JAX105", """
        import jax
        import jax.numpy as jnp


        def cpw_impedance(width, gap):
            k = width / (width + 2.0 * gap)
            return 94.25 / (k + 1.0)


        def straight(f, length, z0):
            beta = 2.0 * jnp.pi * f / 1.2e8
            return jnp.exp(-1j * beta * length * 1e-6) * (z0 / 50.0)


        def taper(f, length=1000.0, w1=10.0, g1=6.0, w2=20.0, g2=12.0, n_points=5):
            ws = jnp.linspace(w1, w2, n_points)
            gs = jnp.linspace(g1, g2, n_points)
            segment = length / n_points
            s21 = jnp.ones_like(f, dtype=jnp.complex64)
            for i in range(n_points):
                z0 = cpw_impedance(width=float(ws[i]), gap=float(gs[i]))  # <-
                s21 = s21 * straight(f, segment, z0)
            return s21


        def main():
            f = jnp.linspace(4e9, 8e9, 5)
            print(taper(f)[0])
            return jax.jit(taper)(f)
        """),
    # ------------------------------------------------------------------ JAX107 tracer leak
    Case("optax-503",
         "https://github.com/google-deepmind/optax/issues/503", "JAX107", """
        import jax
        import jax.numpy as jnp


        def interpolate_schedule(init_value, boundaries_and_scales):
            bounds = jnp.stack([0] + list(boundaries_and_scales.keys()))  # <-
            values = jnp.cumprod(jnp.stack([init_value] + list(boundaries_and_scales.values())))  # <-

            def schedule(count):
                idx = jnp.clip(jnp.searchsorted(bounds, count, side="right") - 1, 0, values.shape[0] - 1)
                return values[idx]

            return schedule


        @jax.tree_util.register_pytree_node_class
        class TrainState:
            def __init__(self, step, params, schedule):
                self.step = step
                self.params = params
                self.schedule = schedule

            def tree_flatten(self):
                return (self.step, self.params), self.schedule

            @classmethod
            def tree_unflatten(cls, schedule, children):
                return cls(children[0], children[1], schedule)


        @jax.jit
        def create_state():
            schedule = interpolate_schedule(1.0, {10: 2.0})
            return TrainState(jnp.zeros((), jnp.int32), jnp.zeros(5), schedule)


        def main():
            state = create_state()
            return state.schedule(state.step + 12)
        """),
    # ------------------------------------------------------------------ JAX111 data-dependent shape
    Case("goal-jax-eadbd41",
         "https://github.com/alex404/goal-jax/commit/eadbd41db02ff277b16c164c167e5132aa9fb9a3", "JAX111", """
        import jax
        import jax.numpy as jnp


        class Diagonal:
            @classmethod
            def num_triangular(cls, n):
                return n * (n + 1) // 2

            @classmethod
            def embed_in_super(cls, n, params):
                out = jnp.zeros(cls.num_triangular(n))
                i, j = jnp.triu_indices(n)
                diag = jnp.where(i == j)[0]  # <-
                return out.at[diag].set(params)

            @classmethod
            def project_from_super(cls, n, params):
                i, j = jnp.triu_indices(n)
                diag = jnp.where(i == j)[0]  # <-
                return params[diag]


        @jax.jit
        def precision_from_variances(variances):
            return Diagonal.embed_in_super(variances.shape[0], 1.0 / variances)


        def main():
            print(Diagonal.embed_in_super(3, jnp.ones(3)))
            return precision_from_variances(jnp.array([1.0, 2.0, 4.0]))
        """),
    Case("tornadox-6432ebc",
         "https://github.com/pnkraemer/tornadox/commit/6432ebcf929d2e2cb0bd94aabfc73b115520cd4b", "JAX111", """
        import jax
        import jax.numpy as jnp


        @jax.jit
        def laplace_2d_diag(grid_extent):
            inner = jnp.pad(-4.0 * jnp.ones(grid_extent - 2), pad_width=1, mode="constant", constant_values=0.0)  # <-
            return jnp.pad(jnp.tile(inner, grid_extent - 2), pad_width=grid_extent, mode="constant",  # <-
                           constant_values=0.0)


        def fhn_2d(nx=6, a=2.8e-4, b=5e-3, tau=0.1):
            @jax.jit
            def df_diag(t, x):
                u, v = jnp.split(x, 2)
                dlaplace = laplace_2d_diag(grid_extent=nx)
                d_u = a * dlaplace + 1.0 - 3.0 * u ** 2
                d_v = (b * dlaplace - 1.0) / tau
                return jnp.concatenate((d_u, d_v))

            return df_diag


        def main():
            df = fhn_2d()
            return df(0.0, jnp.ones(72))
        """),
]
