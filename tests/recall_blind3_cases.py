"""Blind recall cases, third round (issue 19): one small program per public bug report,
question or pull request about a JAX pitfall that a static rule's documentation claims,
written in our own words from the report's pattern (never the report's code).

None of these threads is among the 34 earlier cases, the 58 first-round or the 41
second-round blind cases of ``benchmarks/recall_reports.md`` (checked by URL, and by
repository and number). They were found with the ``search`` tool's ``issues`` and
``pages`` corpora. This round was *sealed*: the file was written and committed on a
branch of its own before jaxlint was run on any of the cases, and kept from the engineer
who changed the value model in the same session; the commit is the proof that the cases
predate the measurement.

Each case names the rule that should report it and marks the problem's line (or lines)
with ``# <-``, in the same ``Case`` form as ``recall_blind_cases.py``. A case is *found*
when that rule reports on a marked line. The verdicts are in
``benchmarks/recall_reports.md`` ("Blind recall, third round"); the measurement is
``tests/test_recall_blind.py``.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from recall_blind_cases import Case  # noqa: E402

CASES3: list[Case] = [
    # ------------------------------------------------------------------ JAX101 captured array
    Case("jax-3220", "https://github.com/jax-ml/jax/issues/3220", "JAX101", """
        import jax
        import jax.numpy as jnp
        import numpy as np

        VOCAB, DIM = 262144, 1024
        embedding_table = np.random.randn(VOCAB, DIM).astype(np.float32)  # <-

        @jax.jit
        def embed(token_ids):
            return jnp.take(embedding_table, token_ids, axis=0)  # <-
        """),
    Case("jax-18831", "https://github.com/jax-ml/jax/issues/18831", "JAX101", """
        import jax
        import jax.numpy as jnp

        N_SEGMENTS = 11544
        model_data = {
            "num_segments": N_SEGMENTS,
            "segment_id": jnp.repeat(jnp.arange(N_SEGMENTS), 30),  # <-
            "val_id": jnp.tile(jnp.arange(10), 3 * N_SEGMENTS),  # <-
        }

        @jax.jit
        def aggregate(x):
            with jax.ensure_compile_time_eval():
                segment_id = model_data["segment_id"]  # <-
                val_id = model_data["val_id"]  # <-
                rows = jnp.arange(model_data["num_segments"]).reshape(-1, 1)
                agg = rows == segment_id.reshape(1, -1)
            return agg @ x[val_id]
        """),
    # ------------------------------------------------------------------ JAX102 python loop
    Case("jax-5815", "https://github.com/jax-ml/jax/issues/5815", "JAX102", """
        import jax
        import jax.numpy as jnp

        def touch_first(a):
            s = 0.0
            for i in range(128):  # <-
                for j in range(128):  # <-
                    s = a[0]
            return s

        touch_first_jit = jax.jit(touch_first)

        def main():
            return touch_first_jit(jnp.zeros(128))
        """),
    Case("scoremd-7", "https://github.com/noegroup/ScoreMD/pull/7", "JAX102", """
        from functools import partial
        import jax
        import jax.numpy as jnp

        def langevin_step(x, key, dt):
            noise = jax.random.normal(key, x.shape)
            return x - dt * x + jnp.sqrt(2.0 * dt) * noise

        @partial(jax.jit, static_argnames=("num_steps",))
        def step_n(x, key, dt, num_steps):
            for _ in range(num_steps):  # <-
                key, sub = jax.random.split(key)
                x = langevin_step(x, sub, dt)
            return x, key

        def main():
            return step_n(jnp.zeros(3), jax.random.key(0), 1e-3, num_steps=1000)
        """),
    Case("s2fft-95", "https://github.com/astro-informatics/s2fft/pull/95", "JAX102", """
        from functools import partial
        import jax
        import jax.numpy as jnp

        @partial(jax.jit, static_argnums=(1,))
        def turok_row(beta, L):
            dl = jnp.zeros((2 * L - 1,))
            dl = dl.at[L - 1].set(1.0)
            for el in range(1, L):  # <-
                dl = dl * jnp.cos(beta) + jnp.roll(dl, 1) * jnp.sin(beta) / el
            return dl

        def main():
            return turok_row(0.3, 512)
        """),
    # ------------------------------------------------------------------ JAX103 jit per call
    Case("unxt-906", "https://github.com/GalacticDynamics/unxt/pull/906", "JAX103", """
        import jax
        import jax.numpy as jnp

        def strip_units(q):
            return q * 1e-3

        def total_in_base_units(values):
            total = 0.0
            for v in values:
                stripped = jax.jit(lambda q: strip_units(q))  # <-
                total = total + stripped(v)  # <-
            return total

        def main():
            return total_in_base_units([jnp.ones(3)] * 100)
        """),
    Case("jax-2251", "https://github.com/jax-ml/jax/issues/2251", "JAX103", """
        from functools import partial
        from typing import NamedTuple
        import jax
        import jax.numpy as jnp

        class InfectState(NamedTuple):
            x: jnp.ndarray
            s_ij: jnp.ndarray

        def infect(state, step):
            exposed = state.s_ij * state.x
            return InfectState(jnp.maximum(state.x, exposed.max(axis=1)), state.s_ij - step), state.x

        def pandemic_scan(state, step=1, t=0, T=5):
            @partial(jax.jit, static_argnums=(1, 2, 3))  # <-
            def _pandemic_scan(state, step, t, T):  # <-
                return jax.lax.scan(infect, state, jnp.full(T, step))
            return _pandemic_scan(state, step, t, T)  # <-

        def main():
            state = InfectState(jnp.zeros(50).at[0].set(1.0), jnp.ones((50, 50)))
            for _ in range(100):
                pandemic_scan(state, T=5)
        """),
    Case("jax-15338", "https://github.com/jax-ml/jax/issues/15338", "JAX103", """
        import jax
        from jax.tree_util import register_pytree_node_class

        @register_pytree_node_class
        class Sampler:
            def draw(self, key, shape):
                return jax.random.uniform(key, shape)

            def tree_flatten(self):
                return (), {}

            @classmethod
            def tree_unflatten(cls, aux, leaves):
                return cls(*leaves, **aux)

        sampler = Sampler()

        def main():
            key = jax.random.key(42)
            for _ in range(3):
                key, sub = jax.random.split(key)
                jax.jit(sampler.draw, static_argnums=1)(sub, (2, 3, 4))  # <-
        """),
    # ------------------------------------------------------------------ JAX104 numpy on tracer
    Case("qnlp-lorenz-2", "https://github.com/Quantinuum/qnlp_lorenz_etal_2021_resources/issues/2", "JAX104", """
        import jax
        import jax.numpy as jnp
        import numpy as np

        class Rx:
            def __init__(self, phase):
                self.phase = phase

            @property
            def array(self):
                half_theta = np.pi * self.phase
                return np.array([[np.cos(half_theta), -1j * np.sin(half_theta)],  # <-
                                 [-1j * np.sin(half_theta), np.cos(half_theta)]])  # <-

        def get_cost(unshaped_params):
            gate = Rx(unshaped_params[0])
            state = gate.array @ jnp.array([1.0, 0.0])
            return jnp.abs(state[0]) ** 2

        get_cost_jit = jax.jit(get_cost)
        """),
    Case("openillumi-np-power-grad", "https://openillumi.com/?p=109328", "JAX104", """
        import jax
        import numpy as np

        x = np.linspace(0, 1, 100)
        y = 2 * x + 3 + np.random.randn(100)

        def mse(params, x, y):
            return np.mean(np.power((params["w"] * x + params["b"]) - y, 2))  # <-

        dmse = jax.grad(mse)

        def main():
            return dmse({"w": 1.0, "b": 0.0}, x, y)
        """),
    # ------------------------------------------------------------------ JAX105 traced control flow
    Case("array-api-999", "https://github.com/data-apis/array-api/pull/999", "JAX105", """
        import jax
        import jax.numpy as xp

        def is_converged(xprev, x, N, tol):
            err = xp.sum(xp.abs(x - xprev))
            return err < xp.asarray(N * tol)

        def hits(A, max_iter=100, tol=1.0e-8):
            A = xp.asarray(A)
            N = A.shape[0]
            h = xp.full(N, 1.0 / N)
            for _ in range(max_iter):
                hprev = h
                a = hprev @ A
                h = A @ a
                h = h / xp.max(h)
                if is_converged(hprev, h, N, tol):  # <-
                    break
            return h

        hits_jit = jax.jit(hits)
        """),
    Case("gymnax-83", "https://github.com/RobertTLange/gymnax/issues/83", "JAX105", """
        import jax
        import jax.numpy as jnp

        def step_entities(state):
            done = jnp.sum(state["collisions"])
            reward = jnp.where(done > 0, -1.0, 0.1)
            return state, reward, bool(done > 0)  # <-

        @jax.jit
        def step(state):
            return step_entities(state)
        """),
    Case("timemachine-800", "https://github.com/proteneer/timemachine/pull/800", "JAX105", """
        import jax
        import jax.numpy as jnp

        def nonbonded(conf, params, box, lam, runtime_validate=True):
            if runtime_validate:
                assert jnp.all(box == box.T), "box must be symmetric"  # <-
            d = conf[:, None, :] - conf[None, :, :]
            r = jnp.sqrt(jnp.sum(d ** 2, axis=-1) + 1e-6)
            return jnp.sum(params[:, None] * params[None, :] / r) * lam

        nonbonded_jit = jax.jit(nonbonded)
        """),
    Case("raytrax-38", "https://github.com/proximafusion/raytrax/pull/38", "JAX105", """
        import warnings
        import jax
        import jax.numpy as jnp

        def build_interpolator(rho, electron_density):
            ne_edge = float(electron_density[-1])  # <-
            if ne_edge != 0.0:
                warnings.warn(f"electron density at the LCFS is {ne_edge:.3g}, not zero")
            return lambda r: jnp.interp(r, rho, electron_density, right=0.0)

        @jax.jit
        def trace_ray(rho, electron_density, r):
            interp = build_interpolator(rho, electron_density)
            return interp(r)
        """),
    Case("jax-8947", "https://github.com/jax-ml/jax/pull/8947", "JAX105", """
        import jax
        import jax.numpy as jnp

        N = 10

        @jax.jit
        def f():
            total = sum(jnp.add(1, 1) for _ in range(N))
            assert total > 0  # <-
            return total
        """),
    Case("flax-1903", "https://github.com/google/flax/pull/1903", "JAX105", """
        import jax
        import jax.numpy as jnp

        def create_triangular_schedule(lr_min, lr_max, steps_per_cycle):
            top = steps_per_cycle // 2

            def learning_rate_fn(step):
                cycle_step = step % steps_per_cycle
                if cycle_step < top:  # <-
                    lr = lr_min + cycle_step / top * (lr_max - lr_min)
                else:
                    lr = lr_max - (cycle_step - top) / top * (lr_max - lr_min)
                return lr

            return learning_rate_fn

        learning_rate_fn = create_triangular_schedule(1e-4, 1e-2, 1000)

        @jax.jit
        def train_step(params, grads, step):
            lr = learning_rate_fn(step)
            return params - lr * grads, step + 1
        """),
    # ------------------------------------------------------------------ JAX106 side effect
    Case("mujoco-1373", "https://github.com/google-deepmind/mujoco/issues/1373", "JAX106", """
        import jax
        import jax.numpy as jnp

        class BarkourEnv:
            def step(self, state, action):
                qpos = state["qpos"] + 0.01 * action
                print("qpos after step:", qpos)  # <-
                reward = -jnp.sum(qpos ** 2)
                print("reward:", reward)  # <-
                return {"qpos": qpos}, reward

        env = BarkourEnv()
        jit_step = jax.jit(env.step)

        def main():
            return jit_step({"qpos": jnp.zeros(465)}, jnp.ones(465))
        """),
    Case("jax-8599", "https://github.com/jax-ml/jax/issues/8599", "JAX106", """
        from time import perf_counter
        import jax
        import jax.numpy as jnp

        def work(x):
            return jnp.linalg.norm(x @ x.T)

        @jax.jit
        def timed_work(x):
            start = perf_counter()  # <-
            result = work(x)
            elapsed = perf_counter() - start  # <-
            return result, elapsed
        """),
    # ------------------------------------------------------------------ JAX107 tracer leak
    Case("jaxsim-43", "https://github.com/gbionics/jaxsim/issues/43", "JAX107", """
        import jax
        import jax.numpy as jnp

        class ModelData:
            def __init__(self, base_position, base_quaternion):
                self.base_position = base_position
                self.base_quaternion = base_quaternion

        class Model:
            def __init__(self):
                self.data = ModelData(jnp.zeros(3), jnp.array([1.0, 0.0, 0.0, 0.0]))

            def reset_base(self, position, quaternion):
                self.data = ModelData(position, quaternion)  # <-

        model = Model()

        reset = jax.jit(lambda p, q: model.reset_base(p * 2.0, q / jnp.linalg.norm(q)))  # <-
        """),
    Case("jax-4714", "https://github.com/jax-ml/jax/issues/4714", "JAX107", """
        import jax
        import jax.numpy as jnp

        class BasicWavefront:
            def __init__(self, npix):
                self.wavefront = jnp.ones((npix, npix), dtype=jnp.complex64)

            def apply_phase(self, phase):
                self.wavefront = self.wavefront * jnp.exp(1j * phase)  # <-

            def intensity(self):
                return jnp.abs(self.wavefront) ** 2

        wf = BasicWavefront(64)

        @jax.jit
        def propagate(phase):
            wf.apply_phase(phase)  # <-
            return jnp.sum(wf.intensity())
        """),
    Case("jax-3086", "https://github.com/jax-ml/jax/issues/3086", "JAX107", """
        import jax

        last_input = None

        @jax.jit
        def f(y):
            global last_input
            last_input = y  # <-
            return y + 2
        """),
    Case("flax-4695", "https://github.com/google/flax/issues/4695", "JAX107", """
        import jax
        import optax
        from flax import nnx

        class Algorithm:
            def __init__(self, model, lr):
                self.model = model
                self.optimizer = nnx.Optimizer(model, optax.adamw(lr), wrt=nnx.Param)

                @jax.jit
                def update(x, y):
                    def loss_fn(model):
                        return ((model(x) - y) ** 2).mean()

                    grads = nnx.grad(loss_fn)(self.model)
                    self.optimizer.update(self.model, grads)  # <-

                self.update = update
        """),
    # ------------------------------------------------------------------ JAX108 static argument
    Case("jax-7561", "https://github.com/jax-ml/jax/issues/7561", "JAX108", """
        from functools import partial
        import jax
        import jax.numpy as jnp

        @partial(jax.jit, static_argnums=(0, 1, 2, 4))
        def _mesh_eval(func, x_limits, y_limits, params, num_ticks):
            xs = jnp.linspace(x_limits[0], x_limits[1], num_ticks)
            ys = jnp.linspace(y_limits[0], y_limits[1], num_ticks)
            X, Y = jnp.meshgrid(xs, ys)
            return X, Y, func(X, Y, params)

        def mesh_eval(func, x_limits, y_limits, params, num_ticks=101):
            return _mesh_eval(func, x_limits, y_limits, params, num_ticks)  # <-

        def target_dist(x, y, params):
            return -(x ** 2 + y ** 2) * params

        def callback(params):
            x_limits = [-2, 2]
            y_limits = [-4, 2]
            return mesh_eval(target_dist, x_limits, y_limits, params)  # <-
        """),
    Case("jax-9024", "https://github.com/jax-ml/jax/issues/9024", "JAX108", """
        import jax
        import jax.numpy as jnp
        from jax.tree_util import register_pytree_node

        class Holder:
            def __init__(self, data):
                self.data = data

        register_pytree_node(Holder, lambda h: ((h.data,), None), lambda _, leaves: Holder(*leaves))

        def doubled(h):
            return h.data * 2

        doubled_jit = jax.jit(doubled, static_argnums=0)

        def main():
            h = Holder(jnp.arange(4))
            first = doubled_jit(h)  # <-
            h.data = h.data + 1
            second = doubled_jit(h)  # <-
            return first, second
        """),
    Case("pymdp-346", "https://github.com/infer-actively/pymdp/issues/346", "JAX108", """
        import equinox as eqx
        import jax
        import jax.numpy as jnp

        class Agent(eqx.Module):
            A: jax.Array = eqx.field(static=True)  # <-
            beliefs: jax.Array

            def infer(self, obs):
                return jax.nn.softmax(jnp.log(self.A[obs] + 1e-16) + self.beliefs)

        @eqx.filter_jit
        def step(agent, obs):
            return agent.infer(obs)

        def main():
            agent = Agent(A=jnp.eye(3), beliefs=jnp.zeros(3))  # <-
            return step(agent, 1)  # <-
        """),
    # ------------------------------------------------------------------ JAX109 host callback
    Case("jax-4763", "https://github.com/jax-ml/jax/issues/4763", "JAX109", """
        import jax
        from jax.experimental import host_callback

        def progress_bar(arg, transforms):
            i, n_iter, print_rate = arg
            if i % print_rate == 0:
                print(f"Iteration {i}/{n_iter}")

        @jax.jit
        def my_loop():
            n_iter, print_rate = 100, 10
            a = 0
            for i in range(n_iter):
                host_callback.id_tap(progress_bar, (i, n_iter, print_rate))  # <-
                a += 1
            return a
        """),
    # ------------------------------------------------------------------ JAX110 discarded update
    Case("marginaleffects-1587", "https://github.com/vincentarelbundock/marginaleffects/issues/1587", "JAX110", """
        import jax.numpy as jnp

        def get_se_delta(jacobian, vcov):
            se = jnp.sqrt(jnp.sum((jacobian @ vcov) * jacobian, axis=1))
            se[se == 0] = 1e-10  # <-
            return se
        """),
    Case("objax-59", "https://github.com/google/objax/issues/59", "JAX110", """
        import jax.numpy as jn

        def bump_middle():
            v = jn.arange(10)
            v[2:4] += 1  # <-
            return v
        """),
    Case("jax-101", "https://github.com/jax-ml/jax/issues/101", "JAX110", """
        import jax.numpy as np

        def load_batches(batches, chunk):
            x_train = np.zeros((len(batches) * chunk, 32, 32, 3))
            for i, data in enumerate(batches, start=1):
                x_train[(i - 1) * chunk : i * chunk, :, :, :] = data  # <-
            return x_train
        """),
    # ------------------------------------------------------------------ JAX111 data-dependent shape
    Case("jax-4449", "https://github.com/jax-ml/jax/issues/4449", "JAX111", """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def custom_ones(arr):
            count = jnp.add(arr.size, 1)
            return jnp.ones((count,))  # <-
        """),
    Case("jax-5208", "https://github.com/jax-ml/jax/issues/5208", "JAX111", """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def grid():
            t0, tf, dt = 0.0, 1.0, 1e-1
            num_steps = jnp.maximum(jnp.abs((tf - t0) / dt), 1)
            return jnp.linspace(t0, tf, num_steps + 1)  # <-
        """),
    Case("jax-4798", "https://github.com/jax-ml/jax/issues/4798", "JAX111", """
        from functools import partial
        import jax
        import jax.numpy as jnp

        @partial(jax.jit, static_argnums=(0,))
        def first_n(n, x):
            n_avail = jnp.shape(x)[0]
            n_actual = jnp.minimum(n_avail, n)
            return jnp.arange(n_actual)  # <-
        """),
    Case("jax-19433", "https://github.com/jax-ml/jax/issues/19433", "JAX111", """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def window(x):
            return jnp.arange(x[0] - 1, x[0] + 1)  # <-
        """),
    Case("secretflow-406", "https://github.com/secretflow/secretflow/issues/406", "JAX111", """
        import jax
        import jax.numpy as jnp

        N_CLUSTERS = 3

        @jax.jit
        def update_centroids(X, labels):
            return jnp.array([jnp.mean(X[jnp.where(labels == j)], axis=0)  # <-
                              for j in range(N_CLUSTERS)])
        """),
    Case("jax-10231", "https://github.com/jax-ml/jax/issues/10231", "JAX111", """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def effects_by_age(age_idx, age_effects):
            ages_pred = jnp.unique(age_idx)  # <-
            return age_effects[ages_pred]
        """),
    Case("aesara-89", "https://github.com/aesara-devs/aesara/issues/89", "JAX111", """
        from functools import partial
        import jax
        import numpy as np

        a = np.arange(6).reshape((3, 2))

        def unique(x):
            return jax.numpy.unique(x)  # <-

        unique_of_a = jax.jit(partial(unique, a))
        """),
    Case("egoallo-17", "https://github.com/brentyi/egoallo/issues/17", "JAX111", """
        from typing import NamedTuple
        import jax
        import jax.numpy as jnp

        class GuidanceParams(NamedTuple):
            prior_weight: float
            max_iters: int

        @jax.jit
        def optimize(x, guidance_params):
            history = jnp.zeros((guidance_params.max_iters,))  # <-
            return x * guidance_params.prior_weight, history
        """),
    Case("desc-625", "https://github.com/PlasmaControl/DESC/issues/625", "JAX111", """
        import jax
        import jax.numpy as jnp
        import numpy as np

        def ptolemy_linear_transform(modes, helicity):
            idx = np.ones(len(modes), dtype=bool)
            idx[modes[:, 1] * helicity[1] == modes[:, 2] * helicity[0]] = False
            return idx

        class QuasisymmetryBoozer:
            def build(self, modes):
                self.constants = {"idx": ptolemy_linear_transform(modes, (1, 4))}

            def compute(self, B_mn, constants):
                return B_mn[constants["idx"]]  # <-

        objective = QuasisymmetryBoozer()
        compute_jit = jax.jit(objective.compute)
        """),
    # ------------------------------------------------------------------ JAX113 donation
    Case("jaxmg-29", "https://github.com/flatironinstitute/jaxmg/pull/29", "JAX113", """
        from functools import partial
        import jax
        import jax.numpy as jnp

        @partial(jax.jit, donate_argnums=(0,))
        def potrs(A, b):
            L = jnp.linalg.cholesky(A)
            return jax.scipy.linalg.cho_solve((L, True), b)

        def solve_two(A, b, b2):
            x1 = potrs(A, b)
            x2 = potrs(A, b2)  # <-
            return x1, x2
        """),
    Case("liesel-272", "https://github.com/liesel-devs/liesel/pull/272", "JAX113", """
        from functools import partial
        import jax
        import jax.numpy as jnp

        @partial(jax.jit, donate_argnums=(0, 1))
        def sample_epoch(model_state, kernel_states, key):
            noise = jax.random.normal(key, model_state["position"].shape)
            new_position = model_state["position"] + kernel_states["step_size"] * noise
            return {"position": new_position}, kernel_states

        def run(position, key):
            model_state = {"position": position}
            kernel_states = {"step_size": jnp.ones(()), "position": position}
            return sample_epoch(model_state, kernel_states, key)  # <-
        """),
    Case("flax-5461", "https://github.com/google/flax/issues/5461", "JAX113", """
        import functools
        import jax
        from flax import nnx

        class TwinLinear(nnx.Module):
            def __init__(self, rngs):
                self.online = nnx.Linear(in_features=4, out_features=2, rngs=rngs)
                self.target = nnx.clone(self.online)

        @functools.partial(jax.jit, donate_argnums=(0,))
        def soft_update(state):
            return jax.tree.map(lambda x: x * 0.99, state)

        def main():
            module = TwinLinear(nnx.Rngs(0))
            state = nnx.state(module)
            return soft_update(state)  # <-
        """),
    # ------------------------------------------------------------------ JAX114 key reuse
    Case("aesara-1344", "https://github.com/aesara-devs/aesara/issues/1344", "JAX114", """
        import jax

        def sample_fn(rng, size, loc, scale):
            rng_key = rng["jax_state"]
            sample = loc + scale * jax.random.normal(rng_key, size)  # <-
            rng["jax_state"] = jax.random.split(rng_key, num=1)[0]  # <-
            return rng, sample
        """),
    Case("jax-18950", "https://github.com/jax-ml/jax/issues/18950", "JAX114", """
        import jax.random as jrandom

        def sample_xy(key, joint_logits, n_samples):
            draws = []
            for _ in range(n_samples):
                e1 = [jrandom.categorical(key, logits) for logits in joint_logits]  # <-
                e2 = jrandom.categorical(key, joint_logits)  # <-
                draws.append((e1, e2))
                key, subkey = jrandom.split(key)
            return draws
        """),
    Case("flax-2665", "https://github.com/google/flax/pull/2665", "JAX114", """
        import jax
        import jax.numpy as jnp

        def kernel_init(key, shape, dtype=jnp.float32):
            return jax.random.normal(key, shape, dtype) * 0.02

        def init_batched_kernel(rng, batch_size, shape):
            kernels = [kernel_init(rng, shape) for _ in range(batch_size)]  # <-
            return jnp.stack(kernels)
        """),
]
