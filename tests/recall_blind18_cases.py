"""Blind recall cases, eighteenth round (issue 36, sealed before jaxlint ran on any of them):
one small program per public bug fix in a JAX repository, written in our own words from the
pattern the fix removed (never the repository's code).

The ``fetch`` tool was exhausted in this session, so this round took its commits from the git
histories of JAX repositories already mirrored on this machine (``/work/.mirror``, all fetched on
2026-12-07) that no earlier round used: none of them named by ``benchmarks/recall_reports.md`` or by
the cases of the seventeen earlier rounds (checked by URL and by repository name against every
``recall_blind*_cases.py`` and ``test_recall_blind.py``). Of 174 mirrored repositories holding JAX
code, 158 were left after that check. Their histories were searched by commit subject (a key or rng,
split, tracer, concretization, recompiles, static arguments, "jittable"/"JIT compatibility", leaked
tracers, "fix"/"bug") and by diff (a split added where one key was drawn from twice, an ``if`` on a
``jax.numpy`` value removed, a ``jit`` given ``static_argnums``/``static_argnames`` it lacked): a
reading aid for finding commits, not a criterion. A commit whose message says it fixes such a
pitfall (or whose diff shows nothing else) and whose diff shows the pattern in the repository's own
code is a case: the code before the fix. The address is the commit on the repository's public
GitHub. Ten cases from eight repositories were found in the time the round had (the brief aimed at
sixteen). Their current code was judged for precision in earlier corpora (``docs/precision.md``):
vmoe in ``dev50``, optformer and wobble_jax in ``blind51``, viperleed-jax in ``blind52``,
nanovllm_jax and Titans_jax in ``blind53``, mjx_fitted_iteration in ``blind54`` and CasOptAx in
``blind55``; nobody had read their histories' fixes. The round was *sealed*: the file was written and
committed on its own before jaxlint was run on any of the cases, by an engineer who changes no rule;
the commit is the proof that the cases predate the measurement.

Each case names the rule that should report it (chosen from the diff and the commit message) and
marks the problem's line (or lines) with ``# <-``, in the same ``Case`` form as
``recall_blind_cases.py``. A case is *found* when that rule reports on a marked line. The verdicts
are in ``benchmarks/recall_reports.md`` ("Blind recall, eighteenth round"); the measurement is
``tests/test_recall_blind.py``.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from recall_blind_cases import Case  # noqa: E402

CASES18: list[Case] = [
    # ------------------------------------------------------------------ JAX103 jit per call
    Case("casoptax-c8df6b3",
         "https://github.com/JasvithBasani/CasOptAx/commit/c8df6b3114989bbf67a12a33819fd012d7dffb30", "JAX103", """
        import jax
        import jax.numpy as jnp
        from jax import jit

        class Circuit:
            def __init__(self, n_modes):
                self.n_modes = n_modes
                self.weights = {"a": jnp.ones(n_modes), "b": jnp.arange(n_modes, dtype=jnp.float32)}

            def evolve(self, amps, u, jit_compile=True):
                def core(amps, u):
                    mixed = jax.tree_util.tree_map(lambda a, w: a * w @ u, amps, self.weights)
                    return jax.tree_util.tree_map(jnp.tanh, mixed)

                step = jit(core) if jit_compile else core  # <-
                return step(amps, u)

        def main():
            c = Circuit(3)
            amps = {"a": jnp.ones(3), "b": jnp.ones(3)}
            u = jnp.eye(3)
            for _ in range(3):
                amps = c.evolve(amps, u)
            return amps
        """),
    # ------------------------------------------------------------------ JAX105 traced control flow
    Case("viperleed-jax-8401a57",
         "https://github.com/viperleed/viperleed-jax/commit/8401a5734feadb3dcb863b3b49644b82fd8e8d46", "JAX105", """
        from functools import partial

        import jax
        import jax.numpy as jnp

        @partial(jax.jit, static_argnames=["l_max", "batch"])
        def propagators(kappa, displacements, l_max, batch, use_symmetry=True):
            def per_energy(k):
                dyn = jnp.outer(displacements, displacements) * k * l_max
                if use_symmetry:  # <-
                    return 0.5 * (dyn + dyn.T)
                return dyn
            return jax.lax.map(per_energy, kappa, batch_size=batch)

        def main():
            return propagators(jnp.ones(4), jnp.arange(3.0), l_max=2, batch=2, use_symmetry=False)
        """),
    Case("viperleed-jax-2d9178e",
         "https://github.com/viperleed/viperleed-jax/commit/2d9178e51f9228947f4025127a5e3bc1f7d1e7a0", "JAX105", """
        from functools import partial

        import jax
        import jax.numpy as jnp

        def pendry_r(theo, expt, step, per_beam=False):
            diff = jnp.sum((theo - expt) ** 2, axis=1) * step
            norm = jnp.sum(theo ** 2 + expt ** 2, axis=1) * step
            if per_beam:  # <-
                return diff / norm
            return jnp.sum(diff) / jnp.sum(norm)

        @partial(jax.jit, static_argnames=("step", "rfactor_func"))
        def r_factor(intensity, shift, rfactor_func, step, expt, per_beam=False):
            theo = intensity + shift
            return rfactor_func(theo, expt, step, per_beam=per_beam)

        def main():
            i = jnp.ones((3, 5))
            return r_factor(i, 0.1, pendry_r, 0.5, 0.9 * i, per_beam=True)
        """),
    Case("optformer-e76d7d4",
         "https://github.com/google-research/optformer/commit/e76d7d4bcd5b3bbb65c3b8124c8e4e0f68ef0667", "JAX105", """
        import flax.linen as nn
        import jax
        import jax.numpy as jnp

        class ICLRegressor(nn.Module):
            width: int = 8

            @nn.compact
            def __call__(self, x, y, mask, deterministic=True, cache=None):
                embed = nn.Dense(self.width, name="embed")
                if cache is None:
                    x_emb = embed(x)
                else:
                    counts = jnp.sum(mask, axis=-1, dtype=jnp.int32)
                    if not jnp.all(counts == counts[0]):  # <-
                        raise ValueError("all masks in the batch must agree")
                    start = counts[0]
                    x_emb = jax.lax.dynamic_update_slice(cache, embed(x[:, start:, :]), (0, start, 0))
                h = nn.Dense(1)(x_emb)[..., 0]
                return jnp.where(mask, y, h), x_emb

        class Regressor:
            def __init__(self):
                self.model = ICLRegressor()
                x = jnp.ones((1, 4, 3))
                self.params = self.model.init(jax.random.key(0), x, jnp.zeros((1, 4)), jnp.ones((1, 4), bool))
                self.cache = None
                self.apply = jax.jit(self.model.apply, static_argnames=("deterministic",))

            def predict(self, x, y, mask):
                out, self.cache = self.apply(self.params, x, y, mask, deterministic=True, cache=self.cache)
                return out

        def main():
            r = Regressor()
            mask = jnp.array([[True, True, False, False]])
            x = jnp.ones((1, 4, 3))
            r.predict(x, jnp.zeros((1, 4)), mask)
            return r.predict(x, jnp.zeros((1, 4)), mask)
        """),
    Case("titans-jax-d5c2678",
         "https://github.com/andrew-veriga/Titans_jax/commit/d5c2678afcbb31871dcece7f11f044a984afd5fa", "JAX105", """
        import flax.linen as nn
        import jax
        import jax.numpy as jnp

        class MemoryBlock(nn.Module):
            width: int = 4

            @nn.compact
            def __call__(self, x, positions, cache, attn_mask, is_teacher_mode=False):
                h = nn.Dense(self.width)(x) * attn_mask
                if is_teacher_mode:  # <-
                    return jax.lax.stop_gradient(h), cache
                return h + positions, cache

        class Model(nn.Module):
            n_layers: int = 2

            @nn.compact
            def __call__(self, x):
                positions = jnp.arange(x.shape[-1], dtype=x.dtype)
                mask = jnp.ones_like(x)
                for _ in range(self.n_layers):
                    block = nn.remat(MemoryBlock, static_argnums=(4,))()
                    x, _ = block(x, positions, None, mask, False)
                return x

        def main():
            x = jnp.ones((2, 4))
            m = Model()
            params = m.init(jax.random.key(0), x)
            return m.apply(params, x)
        """),
    # ------------------------------------------------------------------ JAX108 static argument hazard
    Case("wobble-jax-150c43f",
         "https://github.com/mdd423/wobble_jax/commit/150c43fe879916b5f3709f332fb44e277925d3f6", "JAX108", """
        from functools import partial

        import jax
        import jax.numpy as jnp

        def shift_model(p, xs, meta, margs=()):
            return jnp.interp(xs + meta["shift"], jnp.linspace(0.0, 1.0, p.size), p)

        class ChiSquare:
            def __init__(self, coefficient=1.0):
                self.coefficient = coefficient

            @partial(jax.jit, static_argnums=(0, 3, 4, 5))  # <-
            def __call__(self, p, row, meta, model, margs=()):
                return self.coefficient * 0.5 * row["ivar"] * (row["ys"] - model(p, row["xs"], meta, margs)) ** 2

            def total(self, p, rows, metas, model):
                def one(row, meta):
                    return self(p, row, meta, model).sum()
                return jax.vmap(one)(rows, metas).sum()

        def main():
            rows = {"xs": jnp.linspace(0.0, 1.0, 12).reshape(3, 4), "ys": jnp.ones((3, 4)), "ivar": jnp.ones((3, 4))}
            metas = {"shift": jnp.array([0.0, 0.01, 0.02])}
            return ChiSquare().total(jnp.ones(5), rows, metas, shift_model)
        """),
    # ------------------------------------------------------------------ JAX111 data-dependent shape
    Case("viperleed-jax-085a140",
         "https://github.com/viperleed/viperleed-jax/commit/085a1401bbc4d39ed624919c044cb0c6db5a30c7", "JAX111", """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def intensity_prefactors(height_change, n_beams, theta, k_in, k_out):
            c = k_in * jnp.cos(theta)
            phase = jnp.exp(-1j * height_change * (jnp.outer(k_in, jnp.ones(shape=(n_beams,))) + k_out))  # <-
            return abs(phase) ** 2 / jnp.outer(c, jnp.ones(shape=(n_beams,))).real  # <-

        def main():
            return intensity_prefactors(0.1, 4, 0.2, jnp.ones(3), jnp.ones((3, 4)))
        """),
    Case("mjx-fitted-iteration-1c943c6",
         "https://github.com/mistry-lab/mjx_fitted_iteration/commit/1c943c68260cc2e424f341d310bd4e53849d47d1",
         "JAX111", """
        import equinox as eqx
        import jax
        import jax.numpy as jnp

        @eqx.filter_jit
        def simulate(x_inits, n_steps):
            def step(x, _):
                x = 0.9 * x + 0.1
                return x, jnp.concatenate([x, (x.sum() > 1.0)[None].astype(x.dtype)])

            @jax.vmap
            def rollout(x0):
                _, res = jax.lax.scan(step, x0, None, length=n_steps)
                costs, terminated = res[:, 0], res[:, -1]
                first = jnp.where(terminated)[0][0]  # <-
                return jnp.where(jnp.arange(costs.size) >= first, 0.0, costs)

            return rollout(x_inits)

        def main():
            return simulate(jnp.ones((2, 3)), 5)
        """),
    Case("nanovllm-jax-80b3ea2",
         "https://github.com/saran-gangster/nanovllm_jax/commit/80b3ea2f5a40e22d284738889dcadbb431eb1c50", "JAX111", """
        import time

        import jax
        import jax.numpy as jnp

        def paged_decode(q, k_cache, block_tables, scale, block_size):
            batch, heads, dim = q.shape
            max_len = block_tables.shape[1] * block_size
            blocks = k_cache[jnp.clip(block_tables, 0, k_cache.shape[0] - 1)]
            keys = blocks.reshape(batch, max_len, heads, dim)  # <-
            return jnp.einsum("bhd,bthd->bht", q, keys) * scale

        def profile(runs=3):
            q = jnp.ones((2, 2, 4))
            k_cache = jnp.ones((6, 4, 2, 4))
            tables = jnp.array([[0, 1], [2, 3]])
            fn = jax.jit(paged_decode)
            times = []
            for _ in range(runs):
                start = time.perf_counter()
                out = fn(q, k_cache, tables, 0.5, 4)
                jax.block_until_ready(out)
                times.append(time.perf_counter() - start)
            return times

        def main():
            return profile()
        """),
    # ------------------------------------------------------------------ JAX114 PRNG key reuse
    Case("vmoe-dd822ef",
         "https://github.com/google-research/vmoe/commit/dd822ef4c1c94ff9a50161ddfc5900c4ce1f92e5", "JAX114", """
        import jax
        import jax.numpy as jnp

        class State:
            def __init__(self, params, rng):
                self.params = params
                self.rng = rng

        def accumulate(grad_fn, microsteps):
            def run(params, xs, rng):
                total = jnp.zeros_like(params)
                for i in range(microsteps):
                    g, rng = grad_fn(params, xs[i], rng)
                    total = total + g
                return total / microsteps, rng
            return run

        def train_step(state, xs, microsteps=2):
            def grads(params, x, rng):
                rng, next_rng = jax.random.split(state.rng)  # <-
                noise = jax.random.bernoulli(rng, 0.9, x.shape)
                g = jax.grad(lambda p: jnp.sum((p * x * noise) ** 2))(params)
                return g, next_rng

            g, next_rng = accumulate(grads, microsteps)(state.params, xs, state.rng)
            return State(state.params - 0.1 * g, next_rng)

        def main():
            s = State(jnp.ones(3), jax.random.key(0))
            return train_step(s, jnp.ones((2, 3))).params
        """),
]
