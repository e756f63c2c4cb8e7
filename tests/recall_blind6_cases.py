"""Blind recall cases, sixth round (issue 19): one small program per public bug report,
question, pull request or page about a JAX pitfall that a static rule's documentation
claims, written in our own words from the report's pattern (never the report's code).

None of these threads is among the 34 earlier cases or the blind cases of the first five
rounds in ``benchmarks/recall_reports.md`` (checked by URL, and by repository and number;
``tests/test_recall_blind.py`` checks the URLs). They were found with the ``search``
tool's ``issues`` and ``pages`` corpora. This round was *sealed*: the file was written
and committed on a branch of its own (tag ``recall51-blind-cases``) before jaxlint was
run on any of the cases, and kept from the engineers who changed the value model, the
libraries' protocols and the rules' scope in the same session; the commit is the proof
that the cases predate the measurement.

Each case names the rule that should report it and marks the problem's line (or lines)
with ``# <-``, in the same ``Case`` form as ``recall_blind_cases.py``. A case is *found*
when that rule reports on a marked line. The verdicts are in
``benchmarks/recall_reports.md`` ("Blind recall, sixth round"); the measurement is
``tests/test_recall_blind.py``.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from recall_blind_cases import Case  # noqa: E402

CASES6: list[Case] = [
    # ------------------------------------------------------------------ JAX101 captured array
    Case("jax-11448", "https://github.com/jax-ml/jax/issues/11448", "JAX101", """
        import jax
        import jax.numpy as jnp
        import numpy as np

        def solve_once(v):
            table = jnp.asarray(np.random.rand(2048, 2048))  # <-

            def sweep(x):
                return jax.lax.fori_loop(0, 8, lambda i, acc: acc + table @ x, jnp.zeros_like(x))  # <-

            swept = jax.jit(sweep)
            return swept(v)

        def main():
            return [solve_once(jnp.ones(2048)) for _ in range(3)]
        """),
    # ------------------------------------------------------------------ JAX102 python loop
    Case("numpyro-1214", "https://github.com/pyro-ppl/numpyro/issues/1214", "JAX102", """
        import jax
        import jax.numpy as jnp
        import numpyro
        import numpyro.distributions as dist
        from numpyro.infer import MCMC, NUTS

        N_DATA_ARRAYS = 200

        def forward(w1, w2, index):
            return w1 * jnp.cos(w2 * index) + 0.1 * index

        def model(observed=None):
            w1 = numpyro.sample("w1", dist.Uniform(0.2, 3.0))
            w2 = numpyro.sample("w2", dist.Uniform(0.2, 3.0))
            sigma = numpyro.sample("sigma", dist.Uniform(0.1, 10.0))
            collected = jnp.array([])
            for i in range(N_DATA_ARRAYS):  # <-
                m = numpyro.deterministic(f"m_{i}", forward(w1, w2, i))
                collected = jnp.append(collected, m)
            return numpyro.sample("obs", dist.Normal(collected, sigma), obs=observed)

        def fit(observed, seed):
            mcmc = MCMC(NUTS(model), num_warmup=500, num_samples=500)
            mcmc.run(jax.random.PRNGKey(seed), observed)
            return mcmc.get_samples()
        """),
    Case("jax-md-119", "https://github.com/jax-md/jax-md/issues/119", "JAX102", """
        import jax
        import jax.numpy as jnp

        def soft_sphere_by_species(species, n_species, sigma):
            def energy(dr):
                total = 0.0
                for a in range(n_species):
                    for b in range(n_species):  # <-
                        mask = (species[:, None] == a) & (species[None, :] == b)
                        r = dr / sigma[a, b]
                        total = total + jnp.sum(jnp.where(mask & (r < 1.0), (1.0 - r) ** 2, 0.0))
                return 0.5 * total
            return energy

        def main():
            species = jnp.arange(600) % 20
            energy_fn = jax.jit(soft_sphere_by_species(species, 20, jnp.ones((20, 20))))
            return energy_fn(jnp.ones((600, 600)))
        """),
    # ------------------------------------------------------------------ JAX103 jit per call
    Case("jax-9672", "https://github.com/jax-ml/jax/issues/9672", "JAX103", """
        import jax

        class Accumulator:
            def bump(self, x):
                print("tracing bump")
                return x + 1

        def run(x, n_rounds):
            acc = Accumulator()
            for _ in range(n_rounds):
                x = jax.jit(acc.bump)(x)  # <-
            return x
        """),
    Case("track-mjx-45", "https://github.com/talmolab/track-mjx/issues/45", "JAX103", """
        import jax
        from brax.training.agents.ppo import train as ppo

        def make_policy_params_fn(env, n_frames):
            def policy_params_fn(num_steps, make_policy, params):
                jit_reset = jax.jit(env.reset)  # <-
                jit_step = jax.jit(env.step)  # <-
                jit_inference = jax.jit(make_policy(params, deterministic=True))  # <-
                state = jit_reset(jax.random.key(0))
                rollout = [state]
                for _ in range(n_frames):
                    action, _ = jit_inference(state.obs, jax.random.key(1))
                    state = jit_step(state, action)
                    rollout.append(state)
                return rollout

            return policy_params_fn

        def train(env):
            return ppo.train(environment=env, num_timesteps=10_000_000, num_evals=50,
                             policy_params_fn=make_policy_params_fn(env, 250))
        """),
    # ------------------------------------------------------------------ JAX104 numpy on tracer
    Case("jax-20254", "https://github.com/jax-ml/jax/issues/20254", "JAX104", """
        import jax
        import numpy as np

        def host_copy_or_none(x):
            try:
                return np.array(x)  # <-
            except Exception:
                return None

        copy_jit = jax.jit(host_copy_or_none)

        def main():
            return copy_jit([1])
        """),
    Case("op-system-74", "https://github.com/ACCIDDA/op_system/issues/74", "JAX104", """
        import jax
        import jax.numpy as jnp
        import numpy as np

        def compile_rhs(beta, gamma):
            def eval_fn(t, state):
                y = np.asarray(state, dtype=np.float64)  # <-
                s, i, r = y[0], y[1], y[2]
                out = np.empty(3, dtype=np.float64)
                out[0] = -beta * s * i
                out[1] = beta * s * i - gamma * i
                out[2] = gamma * i
                return out
            return eval_fn

        def integrate(y0, beta, gamma, dt=0.1, n_steps=50):
            rhs = compile_rhs(beta, gamma)

            def step(y, k):
                return y + dt * rhs(k * dt, y), y

            return jax.lax.scan(step, y0, jnp.arange(n_steps))[0]

        def main():
            return jax.jit(integrate)(jnp.array([0.99, 0.01, 0.0]), 0.3, 0.1)
        """),
    # ------------------------------------------------------------------ JAX105 traced control flow
    Case("jax-1076", "https://github.com/jax-ml/jax/issues/1076", "JAX105", """
        import jax
        import jax.numpy as jnp

        def truncated_kernel(x, lam=0.18, beta=1.0):
            if jnp.abs(x) > lam:  # <-
                return 0.0
            return jnp.exp(-beta * x ** 2)

        def kernel(xs):
            return jax.vmap(truncated_kernel)(xs)

        def main():
            return kernel(jnp.linspace(-1.0, 1.0, 10))
        """),
    Case("klujax-34", "https://github.com/gdsfactory/klujax/issues/34", "JAX105", """
        import jax
        import jax.numpy as jnp

        class Symbolic:
            def __init__(self, handle):
                self.handle = handle

        def analyze(pattern):
            raw_symbol = jnp.sum(pattern != 0)
            return Symbolic(int(raw_symbol))  # <-

        def coupler(pattern, wl):
            symbolic = analyze(pattern)
            return wl * symbolic.handle

        @jax.jit
        def newton_step(pattern, wl):
            return coupler(pattern, wl)

        def main():
            return newton_step(jnp.eye(3), 1.55)
        """),
    Case("pfjax-3", "https://github.com/mlysy/pfjax/issues/3", "JAX105", """
        import jax
        import jax.numpy as jnp

        def mwg_adapt(rw_sd, accept_rate, n_iter, targ_acc=0.44):
            delta = jnp.minimum(0.01, 1.0 / jnp.sqrt(n_iter))
            low_acc = accept_rate < targ_acc
            if low_acc:  # <-
                return jnp.exp(jnp.log(rw_sd) - delta)
            return jnp.exp(jnp.log(rw_sd) + delta)

        @jax.jit
        def mwg_update(rw_sd, accepted, n_iter):
            return mwg_adapt(rw_sd, jnp.mean(accepted), n_iter)

        def main():
            return mwg_update(jnp.ones(3), jnp.array([0.0, 1.0, 1.0]), 10.0)
        """),
    Case("theneuralbase-tracer-control-flow", "https://theneuralbase.com/jax/learn/beginner/tracer-errors-dynamic-control-flow/", "JAX105", """
        import jax
        import jax.numpy as jnp

        def scale_or_shift(arr):
            if arr[0] > 5:  # <-
                return arr * 2
            return arr + 1

        fast = jax.jit(scale_or_shift)

        def main():
            return fast(jnp.array([7.0, 1.0]))
        """),
    Case("jax-gcm-747", "https://github.com/climate-analytics-lab/jax-gcm/pull/747", "JAX105", """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def _run_from_state(state):
            trace_id = jnp.sum(state > 0)
            return state * 0.5, trace_id

        def run(state):
            out, trace_id = _run_from_state(state)
            record = int(trace_id)  # <-
            return out, record

        def sweep(states):
            return jax.jit(run)(states)

        def main():
            return sweep(jnp.ones(4))
        """),
    Case("deepmd-kit-5583", "https://github.com/deepmodeling/deepmd-kit/pull/5583", "JAX105", """
        import jax
        import jax.numpy as jnp

        def frame_id_from_n_node(n_node):
            n_total = int(jnp.sum(n_node))  # <-
            return jnp.repeat(jnp.arange(n_node.shape[0]), n_node, total_repeat_length=n_total)

        @jax.jit
        def pooled_energy(n_node, atom_energy):
            frame_id = frame_id_from_n_node(n_node)
            return jax.ops.segment_sum(atom_energy, frame_id, num_segments=n_node.shape[0])

        def main():
            return pooled_energy(jnp.array([2, 3]), jnp.ones(5))
        """),
    Case("jax-24683", "https://github.com/jax-ml/jax/issues/24683", "JAX105", """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def band_code(x, lo, hi):
            return jax.lax.cond(lo < x <= hi,  # <-
                                lambda: 666, lambda: 999)

        @jax.jit
        def band_code_and(x, lo, hi):
            return jax.lax.cond((x > lo) and (x <= hi),  # <-
                                lambda: 666, lambda: 999)

        def main():
            return band_code(jnp.array(1.0), 2.0, 3.0), band_code_and(jnp.array(1.0), 2.0, 3.0)
        """),
    Case("blackjax-1029", "https://github.com/blackjax-devs/blackjax/issues/1029", "JAX105", """
        import jax
        import jax.numpy as jnp

        def _apply_length_floor(length, lambda_max, floor, max_steps, step_size):
            return jnp.clip(jnp.maximum(length, floor / jnp.sqrt(lambda_max)), 0.0, max_steps * step_size)

        def finish_adaptation(log_step_size_ma, length_ma, lambda_max):
            step_size_ma = jnp.exp(log_step_size_ma)
            return _apply_length_floor(length_ma, lambda_max, 0.5, 1000, float(step_size_ma))  # <-

        def main():
            return jax.jit(finish_adaptation)(jnp.array(-1.0), jnp.ones(4), jnp.array(2.0))
        """),
    Case("scipy-22219", "https://github.com/scipy/scipy/pull/22219", "JAX105", """
        import jax
        import jax.numpy as jnp

        def _asarray(a, check_finite=False):
            a = jnp.asarray(a)
            if check_finite and not jnp.all(jnp.isfinite(a)):  # <-
                raise ValueError("array must not contain infs or NaNs")
            return a

        def kmeans(obs, k):
            obs = _asarray(obs, check_finite=True)
            return obs[:k]

        def main():
            return jax.jit(kmeans, static_argnums=1)(jnp.ones((6, 2)), 2)
        """),
    # ------------------------------------------------------------------ JAX107 tracer leak
    Case("numpyro-1651", "https://github.com/pyro-ppl/numpyro/issues/1651", "JAX107", """
        from jax import random
        import numpyro
        from numpyro.distributions import TruncatedNormal
        from numpyro.infer import MCMC, NUTS

        PRIORS = {"x": TruncatedNormal(low=0.0)}

        def model():
            numpyro.sample("x", PRIORS["x"])  # <-

        def run(seed):
            mcmc = MCMC(NUTS(model), num_warmup=100, num_samples=100, num_chains=4)
            mcmc.run(random.PRNGKey(seed))
            return mcmc.get_samples()
        """),
    Case("jax-26560", "https://github.com/jax-ml/jax/issues/26560", "JAX107", """
        import jax

        class Holder:
            def set_x(self, x):
                self.x = x  # <-
                return x

        def main():
            holder = Holder()
            with jax.checking_leaks():
                return jax.jit(holder.set_x)(7)
        """),
    # ------------------------------------------------------------------ JAX108 static argument
    Case("pcax-3", "https://github.com/alonfnt/pcax/issues/3", "JAX108", """
        from functools import partial
        import jax
        import jax.numpy as jnp

        @partial(jax.jit, static_argnames="n_components")
        def _fit_full(x, n_components):
            means = x.mean(axis=0, keepdims=True)
            _, _, vt = jnp.linalg.svd(x - means, full_matrices=False)
            return vt[:n_components], means

        def fit(x, n_components):
            return _fit_full(x, n_components)  # <-

        compress = jax.jit(fit)

        def main():
            return compress(jnp.ones((8, 4)), 2)
        """),
    Case("openillumi-list-static-arg", "https://openillumi.com/en/en-jax-jit-list-static-arg-best-practice", "JAX108", """
        from functools import partial
        import jax
        import jax.numpy as jnp

        @partial(jax.jit, static_argnames=("weights",))
        def weighted_sum(x, weights):
            return sum(w * x[i] for i, w in enumerate(weights))

        def main():
            return weighted_sum(jnp.arange(3.0), weights=[0.2, 0.3, 0.5])  # <-
        """),
    Case("openillumi-vmap-partial-static", "https://openillumi.com/?p=43923", "JAX108", """
        from functools import partial
        import jax
        import jax.numpy as jnp

        @partial(jax.jit, static_argnums=(1, 2))
        def map_row(z, alpha, n_iter):
            def body(i, v):
                return v * alpha
            return jax.lax.fori_loop(0, n_iter, body, z)

        def transform(rows, alpha, n_iter):
            return jax.vmap(partial(map_row, alpha, n_iter))(rows)  # <-

        def main():
            return transform(jnp.ones((4, 3)), 1.5, 10)
        """),
    Case("jax-gcm-735", "https://github.com/climate-analytics-lab/jax-gcm/issues/735", "JAX108", """
        from functools import partial
        import jax
        import jax.numpy as jnp

        class Diffusion:
            def __init__(self, trvdi):
                self.trvdi = trvdi

        class Model:
            def __init__(self, physics, time_step):
                self.physics = physics
                self.time_step = time_step

            @partial(jax.jit, static_argnums=(0,))
            def _run_from_state(self, temperature):
                return temperature * (1.0 - self.time_step / self.physics.trvdi)

            def run(self, temperature):
                return self._run_from_state(temperature)

        def main():
            m = Model(Diffusion(trvdi=1.0), time_step=0.25)
            t1 = m.run(jnp.ones(4))  # <-
            m.physics.trvdi = 2.0
            t2 = m.run(jnp.ones(4))  # <-
            return t1, t2
        """),
    # ------------------------------------------------------------------ JAX109 host callback
    Case("jax-19867", "https://github.com/jax-ml/jax/issues/19867", "JAX109", """
        import jax
        import jax.numpy as jnp

        def running_total(total, x):
            jax.debug.print("total={t} x={x}", t=total, x=x)  # <-
            return total + x, x

        def main():
            return jax.lax.scan(running_total, jnp.array(0.0), jnp.arange(10.0))
        """),
    # ------------------------------------------------------------------ JAX110 discarded update
    Case("exojax-122", "https://github.com/HajimeKawahara/exojax/issues/122", "JAX110", """
        import jax.numpy as jnp

        def line_grid(n_bins, indices, strengths):
            grid = jnp.zeros(n_bins)
            grid[indices] = strengths  # <-
            return grid

        def main():
            return line_grid(5, jnp.array([1, 2]), jnp.array([10.0, 3.0]))
        """),
    Case("galpy-1280", "https://github.com/jobovy/galpy/pull/1280", "JAX110", """
        import jax.numpy as jnp

        def lbd_to_xyz_jac(l, b, d):
            cl, sl, cb, sb = jnp.cos(l), jnp.sin(l), jnp.cos(b), jnp.sin(b)
            block = jnp.array([[-d * sl * cb, -d * cl * sb, cl * cb],
                               [d * cl * cb, -d * sl * sb, sl * cb],
                               [0.0, d * cb, sb]])
            return jnp.block([[block, jnp.zeros((3, 3))], [jnp.zeros((3, 3)), block]])

        def stream_spread_lb(l, b, d, ro, vo, scale):
            tjac = lbd_to_xyz_jac(l, b, d)
            tjac[:3, :] /= ro  # <-
            tjac[3:, :] /= vo  # <-
            for jj in range(6):
                tjac[:, jj] *= scale[jj]  # <-
            return tjac

        def main():
            return stream_spread_lb(0.1, 0.2, 8.0, 8.0, 220.0, jnp.ones(6))
        """),
    # ------------------------------------------------------------------ JAX111 data-dependent shape
    Case("jax-15509", "https://github.com/jax-ml/jax/issues/15509", "JAX111", """
        import jax
        import jax.numpy as jnp

        LAYOUTS = jnp.array([[2, 2, 1, 2, 4],
                             [1, 2, 2, 2, 4],
                             [4, 2, 1, 2, 2]])

        def regroup(i, vec):
            layout = LAYOUTS[i]
            return vec.reshape(layout)  # <-

        def main():
            return jax.lax.fori_loop(0, 3, regroup, jnp.zeros(32))
        """),
    Case("jax-5454", "https://github.com/jax-ml/jax/issues/5454", "JAX111", """
        import jax
        import jax.numpy as jnp

        def prefix_sums(parts, bounds):
            def inner(i):
                inds = jnp.arange(i)  # <-
                return jnp.sum(parts[inds], axis=0)
            return jax.vmap(inner)(bounds)

        def main():
            return prefix_sums(jnp.ones((40, 2)), jnp.array([3, 4]))
        """),
    Case("jax-2765", "https://github.com/jax-ml/jax/issues/2765", "JAX111", """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def positive_total(thing):
            thing = thing[thing > 0]  # <-
            return jnp.sum(thing)

        def main():
            return positive_total(jnp.array([1.0, -2.0, 3.0]))
        """),
    # ------------------------------------------------------------------ JAX112 float64
    Case("keras-core-198", "https://github.com/keras-team/keras-core/pull/198", "JAX112", """
        import jax
        import jax.numpy as jnp

        def sparse_categorical_crossentropy(target, output):
            target = jnp.array(target, dtype="int64")  # <-
            log_probs = jax.nn.log_softmax(output, axis=-1)
            return -jnp.take_along_axis(log_probs, target[:, None], axis=-1)[:, 0]

        @jax.jit
        def train_loss(w, x, y):
            return jnp.mean(sparse_categorical_crossentropy(y, x @ w))

        def main():
            return train_loss(jnp.ones((3, 4)), jnp.ones((2, 3)), jnp.array([0, 1]))
        """),
    # ------------------------------------------------------------------ JAX114 key reuse
    Case("flax-2631", "https://github.com/google/flax/pull/2631", "JAX114", """
        import jax
        import jax.numpy as jnp

        def forward(params, x, dropout_key, rate=0.5):
            keep = jax.random.bernoulli(dropout_key, 1.0 - rate, x.shape)
            h = jnp.where(keep, x / (1.0 - rate), 0.0)
            return h @ params["w"]

        @jax.jit
        def train_step(params, batch, dropout_key):
            def loss_fn(p):
                pred = forward(p, batch["x"], dropout_key)
                return jnp.mean((pred - batch["y"]) ** 2)
            grads = jax.grad(loss_fn)(params)
            return jax.tree_util.tree_map(lambda p, g: p - 0.1 * g, params, grads)

        def train_loop(params, batches, seed):
            root_key = jax.random.key(seed)
            params_key, dropout_key = jax.random.split(root_key)
            for batch in batches:
                params = train_step(params, batch, dropout_key)  # <-
            return params
        """),
    Case("theneuralbase-key-reuse", "https://theneuralbase.com/jax/learn/intermediate/best-practices-for-key-management/", "JAX114", """
        import jax.random as jr

        def two_draws(seed):
            key = jr.key(seed)
            first = jr.normal(key, shape=(3,))  # <-
            second = jr.normal(key, shape=(3,))  # <-
            return first, second
        """),
]
