"""Blind recall cases, seventeenth round (issue 36, sealed before jaxlint ran on any of them):
one small program per public bug fix in a JAX repository, written in our own words from the
pattern the fix removed (never the repository's code).

Rounds thirteen to sixteen took bug-fix commits of several hundred JAX repositories. This round took
the same kind of record from repositories *not* among those: none of them named by
``benchmarks/recall_reports.md`` or by the cases of the sixteen earlier rounds (checked by URL and
by name), none in the sealed precision corpora ``blind51``/``blind52``/``blind53``
(``benchmarks/bench_precision.py``), and none in the pool from which ``blind53`` was drawn (and
from which ``blind54`` is drawn: ``/work/seal53_pool.txt``, candidates not excluded there). 30 public
JAX repositories were fetched for this round with the ``search`` tool's ``fetch`` (32 asked for,
two could not be had), and about 130 JAX repositories already mirrored on this machine by other
engineers were read the same way. Their histories were searched for fixes of the pitfalls a static
rule's page claims, by commit subject (key reuse, a split key, tracer, concretization, recompiles,
retraces, static arguments, "jittable", boolean masks) and by diff (one key drawn from twice in the
removed lines, a bare ``x.at[i].set(v)`` statement, an ``if``/``assert`` on a ``jax.numpy`` value
replaced by ``jnp.where``/``lax.cond``, ``int()``/``float()``/``bool()`` of a ``jax.numpy`` result,
a boolean mask replaced by ``jnp.where``, a ``jit`` made in a function under a subject about
compiles): a reading aid for finding commits, not a criterion. A commit whose message says it fixes
such a pitfall (or whose diff shows nothing else) and whose diff shows the pattern in the
repository's own code is a case: the code before the fix. The address is the commit on the
repository's public GitHub. The round was *sealed*: the file was written and committed on its own
before jaxlint was run on any of the cases, by an engineer who changes no rule, and no other
engineer of the session saw it; the commit is the proof that the cases predate the measurement.

Each case names the rule that should report it (chosen from the diff and the commit message) and
marks the problem's line (or lines) with ``# <-``, in the same ``Case`` form as
``recall_blind_cases.py``. A case is *found* when that rule reports on a marked line. The verdicts
are in ``benchmarks/recall_reports.md`` ("Blind recall, seventeenth round"); the measurement is
``tests/test_recall_blind.py``.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from recall_blind_cases import Case  # noqa: E402

CASES17: list[Case] = [
    # ------------------------------------------------------------------ JAX103 jit per call
    Case("flowmc-4d90fb6",
         "https://github.com/kazewong/flowMC/commit/4d90fb6f0aa040d0817b8812a4fa45ba8528f349", "JAX103", """
        import jax
        import jax.numpy as jnp

        def log_density(x):
            return -0.5 * jnp.sum(x ** 2)

        def global_step(key, positions, likelihood_vec):
            proposal = positions + 0.1 * jax.random.normal(key, positions.shape)
            accept = likelihood_vec(proposal) > likelihood_vec(positions)
            return jnp.where(accept[:, None], proposal, positions)

        class Sampler:
            def __init__(self, likelihood, n_loops):
                self.likelihood = likelihood
                self.n_loops = n_loops

            def sample(self, key, positions):
                for _ in range(self.n_loops):
                    key, subkey = jax.random.split(key)
                    likelihood_vec = jax.jit(jax.vmap(self.likelihood))  # <-
                    positions = global_step(subkey, positions, likelihood_vec)
                return positions

        def main():
            return Sampler(log_density, 5).sample(jax.random.key(0), jnp.ones((8, 2)))
        """),
    Case("sglang-jax-05eac5cf",
         "https://github.com/sgl-project/sglang-jax/commit/05eac5cf703c66fa36d3e4266ea94a2668cc9c1d", "JAX103", """
        import jax
        import jax.numpy as jnp
        from jax.sharding import SingleDeviceSharding

        class TokenKVPool:
            def __init__(self, layer_num, size, heads, head_dim, dtype=jnp.float32):
                self.layer_num = layer_num
                self.shape = (size, 2 * heads, head_dim)
                self.dtype = dtype
                self.sharding = SingleDeviceSharding(jax.devices()[0])
                self._create_buffers()

            def _create_buffers(self):
                self.kv_buffer = []
                for _ in range(self.layer_num):
                    buf = jax.jit(  # <-
                        lambda: jnp.zeros(shape=self.shape, dtype=self.dtype),
                        out_shardings=self.sharding,
                    )()
                    self.kv_buffer.append(buf)

        def main():
            return len(TokenKVPool(4, 16, 2, 8).kv_buffer)
        """),
    # ------------------------------------------------------------------ JAX104 numpy on tracer
    Case("rheojax-0e083f79",
         "https://github.com/imewei/rheojax/commit/0e083f797de8bfa5ce5358469ee0d699f4d66995", "JAX104", """
        import jax
        import jax.numpy as jnp
        import numpy as np

        def mittag_leffler_approx(z, alpha):
            return jnp.exp(z / (1.0 + alpha))

        class FractionalZener:
            def _predict_relaxation(self, t, ge, gm, alpha, tau):
                epsilon = 1e-12
                alpha_safe = float(np.clip(alpha, epsilon, 1.0 - epsilon))  # <-

                @jax.jit
                def _compute(t, ge, gm, tau):
                    z = -jnp.power(t / (tau + epsilon), alpha_safe)
                    return ge + gm * mittag_leffler_approx(z, alpha_safe)

                return _compute(t, ge, gm, tau)

            def residuals(self, params, t, y):
                ge, gm, alpha, tau = params[0], params[1], params[2], params[3]
                return self._predict_relaxation(t, ge, gm, alpha, tau) - y

        def main():
            model = FractionalZener()
            t = jnp.linspace(0.1, 5.0, 20)
            y = jnp.ones(20)
            loss = jax.jit(lambda p: jnp.sum(model.residuals(p, t, y) ** 2))
            return loss(jnp.array([1.0, 2.0, 0.5, 1.0]))
        """),
    Case("xpcsjax-2a651d2",
         "https://github.com/imewei/xpcsjax/commit/2a651d26e2f3f8b064092d2bb04576c03e7b96b0", "JAX104", """
        import jax
        import jax.numpy as jnp
        import numpy as np

        class FourierReparameterizer:
            def __init__(self, phi, order):
                self.n_phi = len(phi)
                cols = [np.ones_like(phi)]
                for k in range(1, order + 1):
                    cols += [np.cos(k * phi), np.sin(k * phi)]
                self.basis = np.stack(cols, axis=1)
                self.n_half = self.basis.shape[1]

            def fourier_to_per_angle(self, coeffs):
                coeffs = np.asarray(coeffs, dtype=np.float64)  # <-
                return self.basis @ coeffs[: self.n_half], self.basis @ coeffs[self.n_half:]

        def make_residual(fourier, c2, model):
            def residual(params):
                physical, fourier_coeffs = params[:2], params[2:]
                contrast, offset = fourier.fourier_to_per_angle(fourier_coeffs)  # <-
                contrast = jnp.asarray(contrast)
                offset = jnp.asarray(offset)
                return (offset[:, None] + contrast[:, None] * model(physical)[None, :] - c2).ravel()
            return jax.jit(residual)

        def main():
            phi = np.linspace(-0.5, 0.5, 6)
            fourier = FourierReparameterizer(phi, 1)
            model = lambda p: jnp.exp(-p[0] * jnp.arange(5.0)) + p[1]
            residual = make_residual(fourier, jnp.ones((6, 5)), model)
            return residual(jnp.ones(2 + 2 * fourier.n_half))
        """),
    # ------------------------------------------------------------------ JAX105 traced control flow
    Case("jax-ent-5d7a40e",
         "https://github.com/alexisiddiqui/JAX-ENT/commit/5d7a40ee8d29c224c62ad929cbceffbd6e269c57", "JAX105", """
        from typing import NamedTuple

        import jax
        import jax.numpy as jnp

        class LRSchedule:
            def __init__(self, lr):
                self.lr = lr

            def update(self, lr):
                self.lr = lr

        class Optimizer:
            def __init__(self, lr, initial_steps=5, plateau_denominator=2.0):
                self.learning_rate = lr
                self.initial_steps = initial_steps
                self.plateau_denominator = plateau_denominator
                self.lr_schedule = LRSchedule(lr / 10)

        class State(NamedTuple):
            params: jax.Array
            gradients: jax.Array
            step: jax.Array

        def loss_fn(params):
            return jnp.sum((params - 1.0) ** 2)

        def _step(optimizer, state):
            if state.step == optimizer.initial_steps:  # <-
                optimizer.lr_schedule.update(optimizer.learning_rate)
            grads = jax.grad(loss_fn)(state.params)
            grad_dot_product = jnp.vdot(state.gradients, grads)
            if grad_dot_product < 0 and state.step > 1:  # <-
                optimizer.lr_schedule.update(optimizer.lr_schedule.lr / optimizer.plateau_denominator)
            new_params = state.params - optimizer.lr_schedule.lr * grads
            return State(new_params, grads, state.step + 1)

        step = jax.jit(_step, static_argnums=(0,))

        def main():
            opt = Optimizer(0.1)
            state = State(jnp.zeros(3), jnp.zeros(3), jnp.array(0))
            for _ in range(3):
                state = step(opt, state)
            return state
        """),
    Case("rheojax-5891e9b1",
         "https://github.com/imewei/rheojax/commit/5891e9b184bb10b9c084a0863646d4d79b74e882", "JAX105", """
        import logging

        import jax
        import jax.numpy as jnp

        logger = logging.getLogger(__name__)

        class FractionalBurgers:
            def _predict_creep(self, t, jg, eta1, jk, alpha, tau_k):
                return jg + t / eta1 + jk * (1.0 - jnp.exp(-jnp.power(t / tau_k, alpha)))

            def model_function(self, X, params):
                jg, eta1, jk, alpha, tau_k = params[0], params[1], params[2], params[3], params[4]
                logger.debug(
                    "model_function evaluation alpha=%s shape=%s",
                    float(alpha) if hasattr(alpha, "item") else alpha,  # <-
                    X.shape,
                )
                return self._predict_creep(X, jg, eta1, jk, alpha, tau_k)

        def main():
            model = FractionalBurgers()
            t = jnp.linspace(0.1, 10.0, 32)
            y = jnp.ones(32)
            potential = jax.jit(lambda p: jnp.sum((model.model_function(t, p) - y) ** 2))
            return potential(jnp.array([1e-3, 10.0, 1e-2, 0.5, 1.0]))
        """),
    Case("xpcsjax-29df996",
         "https://github.com/imewei/xpcsjax/commit/29df9966a34f8f5097253383961b19cba27ab342", "JAX105", """
        import jax
        import jax.numpy as jnp

        def create_residual_function(t, g2):
            @jax.jit
            def residual(params):
                d0, alpha = params[0], params[1]
                return 1.0 + jnp.exp(-d0 * jnp.power(t, 1.0 + alpha)) - g2
            return residual, ["D0", "alpha"]

        def compute_gradient_norms(parameters, t, g2):
            residual_fn, names = create_residual_function(t, g2)
            param_array = jnp.array([float(parameters[n]) for n in names])

            def sse_fn(params):
                residuals = residual_fn(params)
                return float(jnp.sum(residuals ** 2))  # <-

            gradients = jax.grad(sse_fn)(param_array)
            return {n: float(abs(g)) for n, g in zip(names, gradients)}

        def main():
            t = jnp.arange(1.0, 9.0)
            return compute_gradient_norms({"D0": 0.1, "alpha": 0.0}, t, jnp.ones(8) * 1.2)
        """),
    Case("sglang-jax-49a6fd3f",
         "https://github.com/sgl-project/sglang-jax/commit/49a6fd3f04d4b854a4d66fb537e71db2b86a836b", "JAX105", """
        import jax
        import jax.numpy as jnp

        def wait_gather_send(buf, e_id):
            return buf.at[e_id].add(1.0)

        @jax.jit
        def fused_moe(buf, num_local_experts, expert_buffer_count):
            def body(local_e_id, buf):
                def _run_inactive(buf):
                    if local_e_id >= expert_buffer_count:  # <-
                        buf = wait_gather_send(buf, local_e_id % buf.shape[0])
                    return buf
                return _run_inactive(buf)
            return jax.lax.fori_loop(0, num_local_experts, body, buf)

        def main():
            return fused_moe(jnp.zeros(4), 6, 2)
        """),
    # ------------------------------------------------------------------ JAX107 tracer leak
    Case("tomojax-0555660",
         "https://github.com/tristanmanchester/tomojax/commit/0555660be9ee2eed6a2ff56c46263c63119b7545", "JAX107", """
        from collections import OrderedDict
        from functools import partial

        import jax
        import jax.numpy as jnp
        import numpy as np

        _DET_GRID_CACHE_JAX = OrderedDict()
        _DET_GRID_CACHE_CAP = 8

        def _build_detector_grid(nu, nv, du, dv):
            u = (np.arange(nu) - (nu - 1) / 2) * du
            v = (np.arange(nv) - (nv - 1) / 2) * dv
            X, Z = np.meshgrid(u, v, indexing="xy")
            return X.ravel(), Z.ravel()

        def _get_detector_grid_device(nu, nv, du, dv):
            key = (int(nu), int(nv), float(du), float(dv))
            if key in _DET_GRID_CACHE_JAX:
                _DET_GRID_CACHE_JAX.move_to_end(key)
                return _DET_GRID_CACHE_JAX[key]
            X_np, Z_np = _build_detector_grid(nu, nv, du, dv)
            X = jnp.asarray(X_np, dtype=jnp.float32)
            Z = jnp.asarray(Z_np, dtype=jnp.float32)
            _DET_GRID_CACHE_JAX[key] = (X, Z)  # <-
            if len(_DET_GRID_CACHE_JAX) > _DET_GRID_CACHE_CAP:
                _DET_GRID_CACHE_JAX.popitem(last=False)
            return X, Z

        @partial(jax.jit, static_argnums=(1, 2))
        def forward_project_view(vol, nu, nv):
            Xr, Zr = _get_detector_grid_device(nu, nv, 1.0, 1.0)
            return jnp.sum(vol) * (Xr[:, None] + Zr[:, None])

        def main():
            forward_project_view(jnp.ones((4, 4, 4)), 3, 2)
            return forward_project_view(jnp.ones((5, 5, 5)), 3, 2)
        """),
    # ------------------------------------------------------------------ JAX108 static argument hazard
    Case("fedjax-e2e6896",
         "https://github.com/google/fedjax/commit/e2e689670dd3db9d2375a41360e62d444850fb66", "JAX108", """
        import functools
        from typing import Any, Callable, Mapping, NamedTuple

        import jax
        import jax.numpy as jnp

        Params = Mapping[str, Any]

        class Model(NamedTuple):
            apply_for_eval: Callable
            eval_metric: Callable

        @functools.partial(jax.jit, static_argnums=(0, 1))  # <-
        def _evaluate_model_step(model: Model, params: Params, batch, stat):
            preds = model.apply_for_eval(params, batch["x"])
            return stat + model.eval_metric(batch["y"], preds)

        def evaluate_model(model: Model, params: Params, batches):
            stat = jnp.zeros(())
            for batch in batches:
                stat = _evaluate_model_step(model, params, batch, stat)  # <-
            return stat

        def _apply(params, x):
            return x @ params["w"]

        def _metric(y, preds):
            return jnp.mean((y - preds) ** 2)

        def main():
            model = Model(_apply, _metric)
            params = {"w": jnp.ones((3, 1))}
            batches = [{"x": jnp.ones((4, 3)), "y": jnp.zeros((4, 1))} for _ in range(2)]
            return evaluate_model(model, params, batches)
        """),
    Case("cryojax-81bbf18a",
         "https://github.com/mjo22/cryojax/commit/81bbf18ac01ddec8ead5889e96c56d731aa19abb", "JAX108", """
        import equinox as eqx
        import jax
        import jax.numpy as jnp

        class ParticleParameters(eqx.Module):
            defocus: jax.Array
            offset: jax.Array
            particle_data: dict = eqx.field(static=True)  # <-

        def read_particle(index, table):
            row = {name: column[index] for name, column in table.items()}
            return ParticleParameters(
                defocus=jnp.asarray(row["defocus"]),
                offset=jnp.asarray(row["offset"]),
                particle_data=row,  # <-
            )

        @eqx.filter_jit
        def simulate_image(params):
            grid = jnp.linspace(-1.0, 1.0, 16)
            return jnp.cos(params.defocus * grid ** 2) + params.offset

        def main():
            table = {"defocus": [1.0, 1.2, 0.9], "offset": [0.0, 0.1, 0.2], "name": ["a", "b", "c"]}
            return [simulate_image(read_particle(i, table)) for i in range(3)]
        """),
    # ------------------------------------------------------------------ JAX111 data-dependent shape
    Case("tomojax-0e30170",
         "https://github.com/tristanmanchester/tomojax/commit/0e30170ec3aecea8f34c98b7d2b01bb381cb00fc", "JAX111", """
        import jax
        import jax.numpy as jnp

        def project(T, vol):
            return jnp.einsum("vij,jk->vik", T, vol)

        def batched_loss(vol, T_all, projections, views_per_batch):
            n = jnp.int32(T_all.shape[0])
            b_py = int(views_per_batch) if views_per_batch > 0 else int(T_all.shape[0])
            b = jnp.int32(b_py)
            m = jnp.int32((n + b - 1) // b)
            pad = jnp.int32(m * b - n)
            T_pad = jnp.pad(T_all, ((0, pad), (0, 0), (0, 0)))  # <-
            y_pad = jnp.pad(projections, ((0, pad), (0, 0), (0, 0)))  # <-

            def body(loss_acc, i):
                start = i * b
                T_chunk = jax.lax.dynamic_slice(T_pad, (start, 0, 0), (b_py, 4, 4))
                y_chunk = jax.lax.dynamic_slice(y_pad, (start, 0, 0), (b_py, 4, 4))
                valid = jnp.minimum(b, jnp.maximum(0, n - start))
                mask = (jnp.arange(b_py) < valid)[:, None, None]
                resid = (project(T_chunk, vol) - y_chunk) * mask
                return loss_acc + 0.5 * jnp.vdot(resid, resid), None

            loss_tot, _ = jax.lax.scan(body, jnp.float32(0.0), jnp.arange(m))  # <-
            return loss_tot

        def main():
            T_all = jnp.ones((7, 4, 4))
            projections = jnp.zeros((7, 4, 4))
            val_and_grad = jax.jit(jax.value_and_grad(lambda v: batched_loss(v, T_all, projections, 3)))
            return val_and_grad(jnp.eye(4))
        """),
    Case("cryojax-b79690f1",
         "https://github.com/mjo22/cryojax/commit/b79690f111e55fcbfed9c8359b6fee851c2d7755", "JAX111", """
        import jax
        import jax.numpy as jnp

        def binned_radial_average(image, radial_grid, bins):
            idx = jnp.digitize(radial_grid.ravel(), bins)
            sums = jnp.zeros(bins.size + 1).at[idx].add(image.ravel())
            counts = jnp.zeros(bins.size + 1).at[idx].add(1.0)
            return sums / jnp.maximum(counts, 1.0)

        def radially_averaged_powerspectrum(image, radial_grid, pixel_size=1.0, maximum_frequency=None):
            power = jnp.abs(jnp.fft.fft2(image)) ** 2
            q_min = 0.0
            q_max = 0.5 / pixel_size if maximum_frequency is None else maximum_frequency
            q_step = 1.0 / (pixel_size * max(*image.shape))
            frequency_bins = jnp.arange(q_min, q_max + q_step, q_step)  # <-
            return binned_radial_average(power, radial_grid, frequency_bins)

        def whitening_filter(images, radial_grid):
            spectra = jax.vmap(
                lambda im, freq: radially_averaged_powerspectrum(
                    im, freq, maximum_frequency=jnp.sqrt(2) / 2  # <-
                ),
                in_axes=[0, None],
            )(images, radial_grid)
            return 1.0 / jnp.sqrt(jnp.mean(spectra, axis=0) + 1e-6)

        def main():
            freqs = jnp.fft.fftfreq(8)
            radial_grid = jnp.sqrt(freqs[:, None] ** 2 + freqs[None, :] ** 2)
            return jax.jit(whitening_filter)(jnp.ones((3, 8, 8)), radial_grid)
        """),
    # ------------------------------------------------------------------ JAX114 PRNG key reuse
    Case("jaxkern-767f078",
         "https://github.com/JaxGaussianProcesses/JaxKern/commit/767f078a6ba39d1e6b2942a07e6676afddd0939a", "JAX114", """
        import jax
        import jax.numpy as jnp

        class RBF:
            def init_params(self, key):
                return {"lengthscale": jnp.exp(jax.random.normal(key, (2,))),
                        "variance": jnp.array([1.0])}

        class Matern32:
            def init_params(self, key):
                return {"lengthscale": jnp.exp(jax.random.normal(key, (2,))),
                        "variance": jnp.array([1.0])}

        class CombinationKernel:
            def __init__(self, kernel_set):
                self.kernel_set = kernel_set

            def init_params(self, key):
                return [kernel.init_params(key) for kernel in self.kernel_set]  # <-

        def main():
            return CombinationKernel([RBF(), Matern32()]).init_params(jax.random.key(123))
        """),
    Case("flowmc-3ca18de",
         "https://github.com/kazewong/flowMC/commit/3ca18de31b7df9c020296a67e869a9dcb00c8087", "JAX114", """
        import jax
        import jax.numpy as jnp

        class EvolutionaryOptimizer:
            def __init__(self, n_dim, popsize=16, verbose=False):
                self.n_dim = n_dim
                self.popsize = popsize
                self.verbose = verbose
                self.state = {"mean": jnp.zeros(n_dim), "best_fitness": jnp.inf}

            def optimize_step(self, key, state, objective):
                key, subkey = jax.random.split(key)
                population = state["mean"] + jax.random.normal(subkey, (self.popsize, self.n_dim))
                fitness = jax.vmap(objective)(population)
                best = jnp.argmin(fitness)
                return key, {"mean": population[best], "best_fitness": fitness[best]}, population[best]

            def optimize(self, key, objective, n_loops):
                key, subkey = jax.random.split(key)
                for _ in range(n_loops):
                    key, self.state, _ = self.optimize_step(subkey, self.state, objective)  # <-
                return self.state

        def main():
            opt = EvolutionaryOptimizer(2)
            return opt.optimize(jax.random.key(0), lambda x: jnp.sum((x - 1.0) ** 2), 5)
        """),
    Case("pdequinox-b94f818",
         "https://github.com/Ceyron/pdequinox/commit/b94f818f43c4604f6a6f817d5eca9b8a8ed61868", "JAX114", """
        import equinox as eqx
        import jax
        import jax.numpy as jnp

        class PhysicsConv(eqx.Module):
            conv: eqx.nn.Conv

            def __init__(self, num_spatial_dims, in_channels, out_channels, kernel_size, *, key):
                self.conv = eqx.nn.Conv(num_spatial_dims, in_channels, out_channels, kernel_size,
                                        padding="SAME", key=key)

            def __call__(self, x):
                return self.conv(x)

        class ClassicResBlock(eqx.Module):
            conv_1: PhysicsConv
            conv_2: PhysicsConv

            def __init__(self, num_spatial_dims, channels, *, key):
                self.conv_1 = PhysicsConv(num_spatial_dims, channels, channels, 3, key=key)  # <-
                self.conv_2 = PhysicsConv(num_spatial_dims, channels, channels, 3, key=key)  # <-

            def __call__(self, x):
                return x + self.conv_2(jax.nn.relu(self.conv_1(x)))

        def main():
            block = ClassicResBlock(1, 4, key=jax.random.key(0))
            return block(jnp.ones((4, 32)))
        """),
]
