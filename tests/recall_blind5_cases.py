"""Blind recall cases, fifth round (issue 19): one small program per public bug report,
question or pull request about a JAX pitfall that a static rule's documentation claims,
written in our own words from the report's pattern (never the report's code).

None of these threads is among the 34 earlier cases or the blind cases of the first four
rounds in ``benchmarks/recall_reports.md`` (checked by URL, and by repository and number;
``tests/test_recall_blind.py`` checks the URLs). They were found with the ``search``
tool's ``issues`` and ``pages`` corpora. This round was *sealed*: the file was written
and committed on a branch of its own (tag ``recall50-blind-cases``) before jaxlint was
run on any of the cases, and kept from the engineers who changed the value model, the
libraries' protocols and the rules' scope in the same session; the commit is the proof
that the cases predate the measurement.

Each case names the rule that should report it and marks the problem's line (or lines)
with ``# <-``, in the same ``Case`` form as ``recall_blind_cases.py``. A case is *found*
when that rule reports on a marked line. The verdicts are in
``benchmarks/recall_reports.md`` ("Blind recall, fifth round"); the measurement is
``tests/test_recall_blind.py``.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from recall_blind_cases import Case  # noqa: E402

CASES5: list[Case] = [
    # ------------------------------------------------------------------ JAX101 captured array
    Case("jax-14080", "https://github.com/jax-ml/jax/issues/14080", "JAX101", """
        import jax
        import jax.numpy as jnp
        import numpy as np

        BATCH = 256
        N_FRAMES = 5000

        frames = jax.device_put(np.random.randint(0, 10, (N_FRAMES, 84, 84, 9), dtype=np.uint8))  # <-

        def draw_batch(store, key):
            key, sub = jax.random.split(key)
            idx = jax.random.randint(sub, (BATCH,), 0, N_FRAMES)
            return jnp.take(store, idx, axis=0), key

        draw = jax.jit(lambda key: draw_batch(frames, key))  # <-

        def replay(key, steps):
            out = []
            for _ in range(steps):
                batch, key = draw(key)
                out.append(batch)
            return out
        """),
    Case("jax-23457", "https://github.com/jax-ml/jax/issues/23457", "JAX101", """
        import jax
        import jax.numpy as jnp

        VOCAB, DIM = 3_000_000, 300

        def build_lookup(seed):
            table = jax.random.uniform(jax.random.key(seed), (VOCAB, DIM))  # <-

            def lookup(ids):
                return table[ids]  # <-

            return jax.jit(lookup)

        def main():
            lookup = build_lookup(42)
            return lookup(jnp.array([1, 2]))
        """),
    # ------------------------------------------------------------------ JAX102 python loop
    Case("s2fft-97", "https://github.com/astro-informatics/s2fft/pull/97", "JAX102", """
        from functools import partial
        import jax
        import jax.numpy as jnp

        @partial(jax.jit, static_argnames=("L",))
        def trapani_plane(L):
            dl = jnp.zeros((2 * L + 1, 2 * L + 1))
            dl = dl.at[L, L].set(1.0)
            for el in range(1, L):  # <-
                w = jnp.sqrt((2.0 * el - 1.0) / (2.0 * el))
                dl = w * dl + (1.0 - w) * jnp.roll(dl, 1, axis=0)
            return dl

        def table_for_bandlimit():
            return trapani_plane(L=512)
        """),
    Case("jax-1399", "https://github.com/jax-ml/jax/issues/1399", "JAX102", """
        import jax
        import jax.numpy as jnp
        import numpy as np

        N_WEIGHTS = 10_000
        N_TERMS = 200

        weights = jnp.asarray(np.random.rand(N_WEIGHTS))

        def log_ratio(coeffs):
            top = 0.0
            bottom = 0.0
            for k in range(N_TERMS):  # <-
                t = jnp.dot(coeffs[k], weights)
                s = jnp.sin(t) + jnp.cos(t)
                top = top + jnp.sum(s) ** 2
                bottom = bottom + jnp.sum(s ** 2)
            return jnp.log(top / jnp.sqrt(bottom))

        grad_log_ratio = jax.jit(jax.grad(log_ratio))

        def main():
            return grad_log_ratio(jnp.ones(N_TERMS))
        """),
    # ------------------------------------------------------------------ JAX103 jit per call
    Case("jax-1605", "https://github.com/jax-ml/jax/pull/1605", "JAX103", """
        import jax
        import jax.numpy as jnp

        def fill_many(n_rounds):
            firsts = []
            for _ in range(n_rounds):
                make = jax.jit(lambda: 2.0 * jnp.ones((300, 1024, 1024)))  # <-
                firsts.append(make().block_until_ready()[0, 0, 0])  # <-
            return firsts
        """),
    Case("interpax-99", "https://github.com/f0uriest/interpax/pull/99", "JAX103", """
        import jax
        import jax.numpy as jnp

        def interp1d(xq, x, f):
            def _interp(xq, x, f):
                i = jnp.clip(jnp.searchsorted(x, xq) - 1, 0, x.shape[0] - 2)
                t = (xq - x[i]) / (x[i + 1] - x[i])
                return f[i] * (1 - t) + f[i + 1] * t

            return jax.jit(_interp)(xq, x, f)  # <-

        def evaluate_many(queries, x, f):
            return [interp1d(q, x, f) for q in queries]
        """),
    # ------------------------------------------------------------------ JAX104 numpy on tracer
    Case("jax-1919", "https://github.com/jax-ml/jax/issues/1919", "JAX104", """
        import jax
        import jax.numpy as jnp
        import numpy as np

        def warp_loss(params, users, items, n_items):
            negatives = np.random.randint(0, n_items, size=users.shape[0])  # <-
            pos = jnp.sum(params["u"][users] * params["i"][items], axis=1)
            neg = jnp.sum(params["u"][users] * params["i"][negatives], axis=1)
            return jnp.mean(jax.nn.softplus(neg - pos))

        loss_and_grad = jax.jit(jax.value_and_grad(warp_loss), static_argnums=3)

        def epoch(params, users, items, n_items, lr):
            loss, grads = loss_and_grad(params, users, items, n_items)
            return jax.tree_util.tree_map(lambda p, g: p - lr * g, params, grads), loss
        """),
    # ------------------------------------------------------------------ JAX105 traced control flow
    Case("jax-2833", "https://github.com/jax-ml/jax/issues/2833", "JAX105", """
        import jax

        def bump(flag, y):
            if flag:  # <-
                return y + 1
            return y

        bump_jit = jax.jit(jax.remat(bump), static_argnums=0)

        def main():
            return bump_jit(True, 1)
        """),
    Case("jax-6713", "https://github.com/jax-ml/jax/issues/6713", "JAX105", """
        import jax
        from jax import lax

        @jax.remat
        def branchy(x):
            if jax.jit(lax.gt)(x, 0.0):  # <-
                return lax.sin(x), 3.0
            return lax.cos(x), 4.0

        def first(x):
            y, _ = branchy(x)
            return y

        def main():
            return jax.grad(first)(2.0)
        """),
    Case("openillumi-dynamic-loop", "https://openillumi.com/en/en-jax-jit-dynamic-loop-error-fix", "JAX105", """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def random_walk(key, x):
            n_steps = jax.random.randint(key, (), 1, 10)
            for _ in range(n_steps):  # <-
                x = x + 1.0
            return x

        def main():
            return random_walk(jax.random.key(0), jnp.zeros(3))
        """),
    Case("scipy-22781", "https://github.com/scipy/scipy/issues/22781", "JAX105", """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def clear_flags():
            flags = jnp.ones([2], dtype=jnp.bool_)
            i = 0
            while flags.any():  # <-
                flags = flags.at[i].set(False)
                i += 1
            return flags

        def main():
            return clear_flags()
        """),
    Case("openfermion-1396", "https://github.com/quantumlib/OpenFermion/pull/1396", "JAX105", """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def batched_objective(xcur, chol, penalty):
            resid = chol - jnp.einsum("ip,jp->ij", xcur, xcur)
            value = 0.5 * jnp.sum(resid ** 2) + penalty * jnp.sum(xcur ** 2)
            return float(value)  # <-

        def main():
            return batched_objective(jnp.ones((3, 2)), jnp.eye(3), 0.1)
        """),
    Case("jax-2783", "https://github.com/jax-ml/jax/issues/2783", "JAX105", """
        import jax

        def magnitude(x):
            return x if float(x) >= 0.0 else -x  # <-

        def main():
            return jax.grad(magnitude)(3.0)
        """),
    Case("phentax-28", "https://github.com/asantini29/phentax/pull/28", "JAX105", """
        import jax
        import jax.numpy as jnp

        class Waveform:
            def __init__(self, duration, delta_t):
                self.duration = duration
                self.delta_t = delta_t

            def initial_processing(self, spins):
                n_steps = int(jnp.ceil(self.duration / self.delta_t))  # <-
                assert jnp.all(jnp.abs(spins) <= 1.0)  # <-
                return n_steps

            def __call__(self, spins):
                n = self.initial_processing(spins)
                return jnp.linspace(0.0, 1.0, 8) * jnp.sum(spins) * n

        @jax.jit
        def strain(spins):
            return Waveform(4.0, 0.5)(spins)

        def main():
            return strain(jnp.array([0.1, 0.2]))
        """),
    Case("crackedaicode-tracer-leak", "https://crackedaicode.com/problems/jax-tracer-leak-detection", "JAX105", """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def clip_first(x):
            out = x
            if x[0] < 0:  # <-
                out = out.at[0].set(0.0)
            return out

        def main():
            return clip_first(jnp.array([-1.0, 2.0]))
        """),
    # ------------------------------------------------------------------ JAX106 side effect
    Case("emergent-comm-2", "https://github.com/google-deepmind/emergent_communication_at_scale/issues/2", "JAX106", """
        from typing import NamedTuple
        import jax
        import jax.numpy as jnp

        class ListenerLoss(NamedTuple):
            loss: jnp.ndarray
            accuracy: jnp.ndarray

        def listener_loss(params, targets, features):
            logits = features @ params
            picked = jax.nn.log_softmax(logits)[jnp.arange(targets.shape[0]), targets]
            acc = jnp.mean(jnp.argmax(logits, -1) == targets)
            return ListenerLoss(-jnp.mean(picked), acc)

        @jax.jit
        def update(params, targets, features):
            out = listener_loss(params, targets, features)
            print(out)  # <-
            grads = jax.grad(lambda p: listener_loss(p, targets, features).loss)(params)
            return params - 0.01 * grads
        """),
    Case("t5x-959", "https://github.com/google-research/t5x/issues/959", "JAX106", """
        import jax
        import jax.numpy as jnp

        def mlp_block(w_in, w_out, x):
            h = jax.nn.gelu(x @ w_in)
            print("hidden activations:", h)  # <-
            return h @ w_out

        def decoder(params, x):
            for w_in, w_out in params:
                x = x + mlp_block(w_in, w_out, x)
            return x

        infer_fn = jax.jit(decoder)

        def infer(params, batches):
            return [infer_fn(params, b) for b in batches]
        """),
    # ------------------------------------------------------------------ JAX107 tracer leak
    Case("numpyro-1982", "https://github.com/pyro-ppl/numpyro/issues/1982", "JAX107", """
        import jax
        import jax.numpy as jnp

        class SteinVI:
            def __init__(self, step_size):
                self.step_size = step_size
                self.loss_temperature = 1.0

            def _loss_and_grads(self, particles):
                temperature = jnp.mean(jnp.abs(particles))
                self.loss_temperature = temperature  # <-
                loss = jnp.sum(particles ** 2) / temperature
                return loss, 2.0 * particles / temperature

            def update(self, particles):
                loss, grads = self._loss_and_grads(particles)
                return particles - self.step_size * grads, loss

            def run(self, particles, steps):
                step = jax.jit(self.update)
                for _ in range(steps):
                    particles, _ = step(particles)
                return particles
        """),
    Case("pytroubles-913", "https://pytroubles.com/ru/ampposts/id913-jax-i-jit-tracerarrayconversionerror-i-kak-ispravit", "JAX107", """
        from functools import partial
        import jax
        import jax.numpy as jnp
        import numpy as np

        class Doubler:
            @partial(jax.jit, static_argnums=0)
            def apply(self, arr):
                out = arr * 2
                self.last = out  # <-
                return out

        def main():
            d = Doubler()
            d.apply(jnp.array([1.0, 2.0, 3.0]))
            return np.array(d.last)
        """),
    # ------------------------------------------------------------------ JAX108 static argument
    Case("flax-587", "https://github.com/google/flax/issues/587", "JAX108", """
        import functools
        import jax
        import jax.numpy as jnp

        @functools.partial(jax.jit, static_argnums=(1, 2, 3))
        def create_model(key, input_shape, target_shape, model_kwargs):
            emb = model_kwargs["emb_dim"]
            w = jax.random.normal(key, (input_shape[-1], emb))
            return {"embed": w, "out": jnp.zeros((emb, target_shape[-1]))}

        def main():
            cfg = {"vocab_size": 320, "emb_dim": 16, "num_heads": 4}
            return create_model(jax.random.key(0), (1, 8), (1, 8), cfg)  # <-
        """),
    Case("ctd-15", "https://github.com/google-research/computation-thru-dynamics/issues/15", "JAX108", """
        from typing import Any, NamedTuple
        import jax
        import jax.numpy as jnp

        class OptState(NamedTuple):
            packed: list
            treedef: Any

        def optimize_core(start, num_batches, update_fn, opt_state):
            for i in range(num_batches):
                opt_state = update_fn(start + i, opt_state)
            return opt_state

        optimize_core_jit = jax.jit(optimize_core, static_argnums=(1, 2, 3))

        def sgd_update(i, state):
            return OptState([p - 0.1 * p for p in state.packed], state.treedef)

        def find_fixed_points(params):
            opt_state = OptState([params], None)
            return optimize_core_jit(0, 20, sgd_update, opt_state)  # <-

        def main():
            return find_fixed_points(jnp.ones(3))
        """),
    # ------------------------------------------------------------------ JAX109 host callback
    Case("pylcm-316", "https://github.com/OpenSourceEconomics/pylcm/pull/316", "JAX109", """
        import jax
        import jax.numpy as jnp
        import numpy as np
        from jax.experimental import io_callback

        def _check_zero_probs(probs):
            if np.any(np.asarray(probs) < 0):
                raise ValueError("negative transition probability")

        def q_and_f(state, action, probs, values):
            io_callback(_check_zero_probs, None, probs)  # <-
            return state * action + jnp.dot(probs, values)

        q_over_actions = jax.vmap(q_and_f, in_axes=(None, 0, None, None))
        q_over_grid = jax.vmap(q_over_actions, in_axes=(0, None, None, None))

        @jax.jit
        def solve_period(states, actions, probs, values):
            return q_over_grid(states, actions, probs, values).max(axis=1)
        """),
    # ------------------------------------------------------------------ JAX110 discarded update
    Case("pyautoarray-127", "https://github.com/PyAutoLabs/PyAutoArray/pull/127", "JAX110", """
        import jax.numpy as jnp
        import numpy as np

        def grid_slim_from_mask(mask, pixel_scales, origin):
            n = int((~mask).sum())
            grid = jnp.zeros((n, 2))
            k = 0
            for y in range(mask.shape[0]):
                for x in range(mask.shape[1]):
                    if not mask[y, x]:
                        grid[k, 0] = -(y - origin[0]) * pixel_scales[0]  # <-
                        grid[k, 1] = (x - origin[1]) * pixel_scales[1]  # <-
                        k += 1
            return grid

        def main():
            return grid_slim_from_mask(np.zeros((2, 2), dtype=bool), (0.5, 0.5), (0.5, 0.5))
        """),
    Case("jax-2057", "https://github.com/jax-ml/jax/issues/2057", "JAX110", """
        import jax.numpy as jnp

        def tight_binding(n, hopping):
            H = jnp.zeros((n, n))
            H[0, 0] = 1.0  # <-
            for i in range(n - 1):
                H[i, i + 1] = hopping  # <-
            return H

        def main():
            return tight_binding(3, 0.5)
        """),
    # ------------------------------------------------------------------ JAX111 data-dependent shape
    Case("jax-2506", "https://github.com/jax-ml/jax/issues/2506", "JAX111", """
        import jax
        import jax.numpy as jnp

        def split_rows(n_sections):
            return jnp.split(jnp.zeros((6, 2)), n_sections)  # <-

        def main():
            return jax.jit(split_rows)(2)
        """),
    Case("evox-jitable", "https://evox.readthedocs.io/en/v0.9.1-dev/_sources/guide/developer/2-jit-able.md", "JAX111", """
        import jax
        import jax.numpy as jnp

        def positive_part(x):
            return x[x > 0]  # <-

        @jax.jit
        def select_survivors(fitness):
            return positive_part(fitness)

        def main():
            return select_survivors(jnp.array([1.0, -1.0, 2.0]))
        """),
    Case("flax-1077", "https://github.com/google/flax/issues/1077", "JAX111", """
        import jax
        import jax.numpy as jnp

        def hadamard(shape, dtype=jnp.float32):
            levels = jnp.log2(shape[0])
            H = jnp.ones((1, 1), dtype=dtype)
            for _ in jnp.arange(levels):  # <-
                H = jnp.vstack([jnp.hstack([H, H]), jnp.hstack([H, -H])])
            return H * 2 ** (-levels / 2)

        @jax.jit
        def transform(x):
            kernel = hadamard((x.shape[-1],))
            return x @ kernel

        def main():
            return transform(jnp.ones((1, 4)))
        """),
    Case("jax-1629", "https://github.com/jax-ml/jax/issues/1629", "JAX111", """
        import jax
        import jax.numpy as jnp

        def spatial_functional(X, m, n):
            r = X.shape[0]
            X_img = jnp.reshape(X, (r, m, n), order="F")  # <-
            dx = jnp.diff(X_img, axis=1)
            dy = jnp.diff(X_img, axis=2)
            return jnp.sum(dx ** 2) + jnp.sum(dy ** 2)

        grad_functional = jax.jit(jax.grad(spatial_functional))

        def main():
            return grad_functional(jnp.ones((2, 12)), 3, 4)
        """),
    Case("jax-5100", "https://github.com/jax-ml/jax/issues/5100", "JAX111", """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def random_subsample(data, key):
            n, _ = data.shape
            k_size, k_idx = jax.random.split(key)
            counts = jax.random.poisson(k_size, 1.0, (2,))
            idx = jax.random.randint(k_idx, (counts.sum(), 3), 0, n)  # <-
            return data[idx, :]

        def main():
            return random_subsample(jnp.arange(50).reshape((10, 5)), jax.random.key(0))
        """),
    Case("jax-5013", "https://github.com/jax-ml/jax/issues/5013", "JAX111", """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def subsample_blocks(key, block_lengths, m):
            return jax.random.randint(key, (jnp.sum(block_lengths), 4), 0, m)  # <-

        def main():
            return subsample_blocks(jax.random.key(0), jnp.array([2, 3]), 22)
        """),
    Case("jax-6853", "https://github.com/jax-ml/jax/issues/6853", "JAX111", """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def head_plus(x, d):
            return x[: d["num"]] + d["val"]  # <-

        def main():
            return head_plus(jnp.arange(10), {"num": 5, "val": jnp.arange(5)})
        """),
    Case("nerf-diet-11", "https://github.com/codestella/putting-nerf-on-a-diet/pull/11", "JAX111", """
        import jax
        import jax.numpy as jnp

        def render_rays(params, origins, directions, near, far, n_samples):
            t = jnp.linspace(near, far, n_samples)  # <-
            pts = origins[:, None, :] + directions[:, None, :] * t[None, :, None]
            return jnp.sum(jnp.tanh(pts @ params), axis=1)

        def single_step_wojit(params, origins, directions, targets, near, far, n_samples):
            def loss(p):
                pred = render_rays(p, origins, directions, near, far, n_samples)
                return jnp.mean((pred - targets) ** 2)
            return params - 1e-3 * jax.grad(loss)(params)

        single_step = jax.jit(single_step_wojit)

        def main():
            return single_step(jnp.ones((3, 4)), jnp.zeros((2, 3)), jnp.ones((2, 3)),
                               jnp.zeros((2, 4)), 2.0, 6.0, 64)
        """),
    # ------------------------------------------------------------------ JAX112 float64
    Case("timemachine-1183", "https://github.com/proteneer/timemachine/pull/1183", "JAX112", """
        import jax
        import jax.numpy as jnp

        def torsion_params(smirks_weights, n_terms):
            params = jnp.zeros((n_terms, 3), dtype=jnp.float64)  # <-
            return params.at[:, 0].set(smirks_weights)

        def torsion_energy(smirks_weights, angles):
            p = torsion_params(smirks_weights, angles.shape[0])
            return jnp.sum(p[:, 0] * (1 + jnp.cos(p[:, 1] * angles - p[:, 2])))

        grad_energy = jax.jit(jax.grad(torsion_energy))
        """),
    # ------------------------------------------------------------------ JAX113 donation
    Case("jax-12627", "https://github.com/jax-ml/jax/issues/12627", "JAX113", """
        from functools import partial
        import jax
        import jax.numpy as jnp

        @partial(jax.jit, donate_argnums=(0,))
        def update(x, batch):
            return x + batch

        def train(steps):
            x = jnp.zeros((1024,), dtype=jnp.float32)
            for _ in range(steps):
                batch = x
                x = update(x, batch)  # <-
            return x
        """),
    # ------------------------------------------------------------------ JAX114 key reuse
    Case("coreax-375", "https://github.com/gchq/coreax/issues/375", "JAX114", """
        import jax
        import jax.numpy as jnp
        from jax import random

        def sliced_score_loss(params, x, key, n_levels):
            def noise_conditional_body(i, total):
                sigma = 0.1 * (i + 1)
                noisy = x + sigma * random.normal(key, x.shape)  # <-
                return total + jnp.mean((noisy @ params - x) ** 2)
            return jax.lax.fori_loop(0, n_levels, noise_conditional_body, 0.0)

        loss_jit = jax.jit(sliced_score_loss, static_argnums=3)
        """),
    Case("numpyro-5", "https://github.com/pyro-ppl/numpyro/pull/5", "JAX114", """
        from jax import random

        def model(rng):
            rng, sub = random.split(rng)
            return random.normal(sub, ())

        def guide(rng):
            return random.normal(rng, ())

        def svi_init(rng):
            _, guide_rng = random.split(rng)  # <-
            z_guide = guide(guide_rng)
            z_model = model(rng)  # <-
            return z_guide, z_model
        """),
    Case("mujoco-playground-349", "https://github.com/google-deepmind/mujoco_playground/pull/349", "JAX114", """
        import jax
        import jax.numpy as jnp

        def reset_finger(rng, n_joints):
            rng, rng_init = jax.random.split(rng)
            qpos = jax.random.uniform(rng_init, (n_joints,), minval=-jnp.pi, maxval=jnp.pi)  # <-
            spinner = jax.random.uniform(rng_init, (), minval=-jnp.pi, maxval=jnp.pi)  # <-
            return rng, jnp.append(qpos, spinner)

        def reset_cartpole(rng):
            pos = 0.01 * jax.random.normal(rng, (2,))  # <-
            vel = 0.01 * jax.random.normal(rng, (2,))  # <-
            return pos, vel
        """),
]
