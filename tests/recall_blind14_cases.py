"""Blind recall cases, fourteenth round (issue 36, sealed before the session's rule work was judged):
one small program per public bug fix in a JAX library, written in our own words from the pattern
the fix removed (never the library's code).

Round thirteen took bug-fix commits of 71 JAX repositories mirrored on this machine. This round
took the same kind of record from repositories *not* among those 71: about 90 further JAX
repositories fetched with the ``search`` tool's ``fetch`` (RL libraries and environments, model and
training frameworks, optimiser, probabilistic and scientific libraries, and Keras's JAX backend),
whose commit subjects were searched for fixes of the pitfalls a static rule's page claims, and whose
diffs were searched for the patterns themselves (a draw from ``key``/``rng`` removed, a bare
``x.at[i].set(v)`` statement removed, an ``if``/``assert`` on a ``jax.numpy`` value removed). A
commit whose message says it fixes such a pitfall (or whose diff shows nothing else) and whose diff
shows the pattern in the library's own code is a case: the code before the fix. The address is the
commit on the library's public repository. None of these commits, nor their pull requests, is among
the cases of the thirteen earlier rounds or the 34 earlier cases of
``benchmarks/recall_reports.md``, nor among the threads those rounds left out by name (checked by
URL, by repository and number, and by the issue a commit fixes; ``tests/test_recall_blind.py``
checks the URLs). The round was *sealed*: the file was written and committed on its own before
jaxlint was run on any of the cases, by an engineer who changes no rule, and no other engineer of
the session saw it; the commit is the proof that the cases predate the measurement. Fourteen cases
were committed first (b70484a); two more (scico-a03aa568, jax-cosmo-cf8500c) were added by a second
commit of this file alone, still before jaxlint ran on any case.

Each case names the rule that should report it and marks the problem's line (or lines) with
``# <-``, in the same ``Case`` form as ``recall_blind_cases.py``. A case is *found* when that
rule reports on a marked line. The verdicts are in ``benchmarks/recall_reports.md`` ("Blind
recall, fourteenth round"); the measurement is ``tests/test_recall_blind.py``.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from recall_blind_cases import Case  # noqa: E402

CASES14: list[Case] = [
    # ------------------------------------------------------------------ JAX103 jit per call
    Case("paxml-e4fad96",
         "https://github.com/google/paxml/commit/e4fad96057a62c605f8cd36263080dc40a851988", "JAX103", """
        import jax
        import numpy as np
        from jax.sharding import Mesh, NamedSharding, PartitionSpec

        class Partitioner:
            def __init__(self):
                self._mesh = Mesh(np.array(jax.devices()), ("data",))
                self._broadcast_key_fn = None

            def preprocess_prng_key(self, prng_key):
                if not self._broadcast_key_fn:
                    def _broadcast_key(k):
                        def _identity(x):
                            return x

                        replicated = NamedSharding(self._mesh, PartitionSpec())
                        return jax.jit(_identity, in_shardings=replicated, out_shardings=replicated)(k)  # <-

                    self._broadcast_key_fn = _broadcast_key
                return self._broadcast_key_fn(prng_key)

        def train(num_steps):
            partitioner = Partitioner()
            key = jax.random.PRNGKey(0)
            noise = []
            for _ in range(num_steps):
                key, step_key = jax.random.split(key)
                step_key = partitioner.preprocess_prng_key(step_key)
                noise.append(jax.random.normal(step_key, (3,)))
            return noise
        """),
    Case("dalle-mini-4b8c3a8",
         "https://github.com/borisdayma/dalle-mini/commit/4b8c3a87758bfeba53ec8331c0e41a74181a0731", "JAX103", """
        import jax
        import jax.numpy as jnp
        import numpy as np

        def encode(model, batch):
            return jnp.argmax(jnp.tanh(batch @ model["codebook"]), axis=-1)

        def encode_dataset(model, superbatches):
            results = None
            for superbatch in superbatches:
                encoded = jax.pmap(lambda batch: encode(model, batch))(superbatch)  # <-
                encoded = encoded.reshape(encoded.shape[0] * encoded.shape[1], -1)
                results = np.concatenate((results, encoded), axis=0) if results is not None else encoded
            return results

        def main():
            model = {"codebook": jnp.ones((8, 16))}
            loader = [np.ones((1, 4, 8), np.float32) * i for i in range(5)]
            return encode_dataset(model, loader)
        """),
    # ------------------------------------------------------------------ JAX105 traced control flow
    Case("kfac-jax-c275017",
         "https://github.com/google-deepmind/kfac-jax/commit/c275017f3457d0ce4e91cd3ac22a9d9a48c98661", "JAX105", """
        import functools

        import jax
        import jax.numpy as jnp
        from jax import lax

        class CurvatureEstimator:
            def update(self, state, batch, ema):
                return ema * state + (1.0 - ema) * jnp.mean(batch ** 2, axis=0)

            def sync(self, state):
                return state / jnp.maximum(jnp.max(jnp.abs(state)), 1.0)

        class Optimizer:
            def __init__(self, inverse_update_period=5):
                self.estimator = CurvatureEstimator()
                self._inverse_update_period = inverse_update_period
                self._jit_step = jax.jit(self._step)

            def should_update_inverse_cache(self, step_counter):
                if self._inverse_update_period == 1:
                    return True
                return step_counter % self._inverse_update_period == 0

            def _update_estimator_curvature(self, estimator_state, batch, ema, sync=True):
                state = self.estimator.update(estimator_state, batch, ema)
                if sync:  # <-
                    state = self.estimator.sync(state)
                return state

            def _maybe_update_estimator_curvature(self, estimator_state, should_update, **update_kwargs):
                return lax.cond(
                    should_update,
                    functools.partial(self._update_estimator_curvature, **update_kwargs),
                    lambda state_: state_,
                    estimator_state,
                )

            def _step(self, params, estimator_state, step_counter, batch):
                estimator_state = self._maybe_update_estimator_curvature(
                    estimator_state,
                    step_counter % 2 == 0,
                    batch=batch,
                    ema=0.95,
                    sync=self.should_update_inverse_cache(step_counter),
                )
                grads = jnp.mean(batch, axis=0) / (estimator_state + 1e-3)
                return params - 0.1 * grads, estimator_state, step_counter + 1

        def main():
            opt = Optimizer()
            return opt._jit_step(jnp.ones(3), jnp.ones(3), jnp.array(0), jnp.ones((4, 3)))
        """),
    Case("scenic-a69dfe0",
         "https://github.com/google-research/scenic/commit/a69dfe080ead7f96319be86eedd8f7506a299b3d", "JAX105", """
        import functools

        import jax
        import jax.numpy as jnp

        def accumulate_gradients(compute_gradient_fn, params, batch, rng, accum_steps):
            batch_size = next(iter(batch.values())).shape[0]
            microbatch_size = batch_size // accum_steps

            def get_microbatch(batch, idx):
                assert microbatch_size * idx < batch_size  # <-
                return jax.tree_util.tree_map(
                    lambda x: x.reshape((-1, microbatch_size) + x.shape[1:])[idx], batch)

            def per_microbatch(loop_cnt, loop_state):
                rng, grad_acc, loss_acc = loop_state
                rng, sub_rng = jax.random.split(rng)
                loss, grad = compute_gradient_fn(params, get_microbatch(batch, loop_cnt), sub_rng)
                return rng, jax.tree_util.tree_map(jnp.add, grad_acc, grad), loss_acc + loss

            rng, sub_rng = jax.random.split(rng)
            loss0, grad0 = compute_gradient_fn(params, get_microbatch(batch, 0), sub_rng)
            _, grad, loss = jax.lax.fori_loop(1, accum_steps, per_microbatch, (rng, grad0, loss0))
            return jax.tree_util.tree_map(lambda g: g / accum_steps, grad), loss / accum_steps

        def loss_fn(params, batch, rng):
            keep = jax.random.bernoulli(rng, 0.9, batch["x"].shape)
            pred = (batch["x"] * keep) @ params["w"]
            return jnp.mean((pred - batch["y"]) ** 2)

        def train_step(params, batch, rng, accum_steps):
            grads, loss = accumulate_gradients(jax.value_and_grad(loss_fn), params, batch, rng, accum_steps)
            return jax.tree_util.tree_map(lambda p, g: p - 0.1 * g, params, grads), loss

        def main():
            step = jax.jit(functools.partial(train_step, accum_steps=4))
            batch = {"x": jnp.ones((8, 3)), "y": jnp.zeros((8, 1))}
            return step({"w": jnp.ones((3, 1))}, batch, jax.random.PRNGKey(0))
        """),
    Case("praxis-527b478",
         "https://github.com/google/praxis/commit/527b4787a9f30e4e7ccda1dc1b03d6694453186a", "JAX105", """
        import jax
        import jax.numpy as jnp

        class TransformerLm:
            def __init__(self, use_ngrammer=True):
                self.use_ngrammer = use_ngrammer
                self._decode_cache = {}

            def update_decode_state(self, name, value):
                self._decode_cache[name] = value

            def get_decode_state(self, name):
                return self._decode_cache[name]

            def _prepare_ngrammer_inputs(self, input_ids, input_emb):
                if not self.use_ngrammer:
                    return input_ids, input_emb
                input_emb = input_emb + 0.5 * jnp.roll(input_emb, 1, axis=1)
                time_step = self.get_decode_state("time_step")
                if time_step > 0:  # <-
                    input_emb = input_emb[:, 1:, :]
                    input_ids = input_ids[:, 1:]
                return input_ids, input_emb

            def extend_step(self, input_ids, input_emb, time_step):
                self.update_decode_state("time_step", time_step)
                _, emb = self._prepare_ngrammer_inputs(input_ids, input_emb)
                return jnp.sum(emb, axis=-1)

        def main():
            lm = TransformerLm()
            step = jax.jit(lm.extend_step)
            return step(jnp.zeros((2, 2), jnp.int32), jnp.ones((2, 2, 4)), jnp.array(1))
        """),
    Case("rejax-bc825f4",
         "https://github.com/keraJLi/rejax/commit/bc825f47f19b832f5d7d6f28d2d8f12550a5f44c", "JAX105", """
        import functools

        import jax
        import jax.numpy as jnp

        class DQN:
            @classmethod
            def initialize_train_state(cls, config, rng):
                rng, init_rng = jax.random.split(rng)
                q = jax.random.normal(init_rng, (config["num_obs"], config["num_actions"]))
                return {"q": q, "rng": rng}

            @classmethod
            def train_iteration(cls, config, ts):
                rng, noise_rng = jax.random.split(ts["rng"])
                noise = config["lr"] * jax.random.normal(noise_rng, ts["q"].shape)
                return {"q": ts["q"] - noise, "rng": rng}

            @classmethod
            def train(cls, config, rng=None, train_state=None):
                if not (train_state or rng):  # <-
                    raise ValueError("a train state or a key is needed")
                ts = train_state or cls.initialize_train_state(config, rng)
                return jax.lax.fori_loop(0, 10, lambda _, ts: cls.train_iteration(config, ts), ts)

        def main():
            config = {"num_obs": 4, "num_actions": 2, "lr": 0.01}
            train_fn = jax.jit(functools.partial(DQN.train, config))
            return jax.vmap(train_fn)(jax.random.split(jax.random.PRNGKey(0), 3))
        """),
    Case("keras-504bb958",
         "https://github.com/keras-team/keras/commit/504bb958903afc84b2810c27b88775e8f0d40bfb", "JAX105", """
        import jax
        import jax.numpy as jnp

        def convert_to_tensor(x):
            return jnp.asarray(x)

        def cholesky(a):
            out = jnp.linalg.cholesky(convert_to_tensor(a))
            if jnp.any(jnp.isnan(out)):  # <-
                raise ValueError("the factorisation failed: is the input positive definite?")
            return out

        def log_det(a):
            return 2.0 * jnp.sum(jnp.log(jnp.diagonal(cholesky(a))))

        def main():
            return jax.jit(log_det)(2.0 * jnp.eye(3))
        """),
    Case("haliax-7a077f0",
         "https://github.com/stanford-crfm/haliax/commit/7a077f0b57e9a2a7da1c5fb4c7c4b1296364bcc1", "JAX105", """
        import jax
        import jax.numpy as jnp

        def causal_mask(q_len, k_len):
            return jnp.arange(q_len)[:, None] >= jnp.arange(k_len)[None, :]

        def prefix_lm_mask(q_len: int, k_len: int, prefix_len: int):
            assert prefix_len >= 0  # <-
            assert prefix_len <= k_len  # <-
            causal = causal_mask(q_len, k_len)
            prefix = jnp.arange(k_len) < prefix_len
            return prefix | causal

        @jax.jit
        def attention_weights(scores, prefix_len):
            mask = prefix_lm_mask(scores.shape[0], scores.shape[1], prefix_len)
            return jax.nn.softmax(jnp.where(mask, scores, -1e9), axis=-1)

        def main():
            return attention_weights(jnp.zeros((4, 4)), 2)
        """),
    Case("gpjax-ae1ecdb7",
         "https://github.com/JaxGaussianProcesses/GPJax/commit/ae1ecdb705c974965ac8326e167d3c66ee5633ea", "JAX105", """
        import jax
        import jax.numpy as jnp

        def _check_is_positive(value):
            if jnp.any(value < 0):  # <-
                raise ValueError(f"a positive parameter was given {value}")

        class PositiveReal:
            def __init__(self, value):
                self.value = jnp.asarray(value)
                _check_is_positive(self.value)

        class RBF:
            def __init__(self, lengthscale, variance):
                self.lengthscale = PositiveReal(lengthscale)
                self.variance = PositiveReal(variance)

            def gram(self, x):
                sq = jnp.sum((x[:, None, :] - x[None, :, :]) ** 2, axis=-1)
                return self.variance.value * jnp.exp(-0.5 * sq / self.lengthscale.value ** 2)

        x = jnp.linspace(0.0, 1.0, 10)[:, None]

        def compute_gram(lengthscale):
            kernel = RBF(lengthscale=lengthscale, variance=jnp.array(1.0))
            return kernel.gram(x)

        def main():
            return jax.jit(compute_gram)(1.0)
        """),
    # the two cases below were added at the round's second commit (00:10 UTC), after the first 14 were
    # landed and still before jaxlint ran on any case of the round
    Case("scico-a03aa568",
         "https://github.com/lanl/scico/commit/a03aa5688ec667e22666c81d921ce1d43074a295", "JAX105", """
        import jax
        import jax.numpy as jnp

        def norm(x):
            return jnp.sqrt(jnp.sum(jnp.abs(x) ** 2))

        class L2Norm:
            has_prox = True

            def __call__(self, x):
                return norm(x)

            def prox(self, v, lam=1.0, **kwargs):
                norm_v = norm(v)
                if norm_v == 0:  # <-
                    return 0 * v
                return jnp.maximum(1 - lam / norm_v, 0) * v

        def main():
            f = L2Norm()
            return jax.jit(f.prox)(jnp.arange(4.0))
        """),
    Case("jax-cosmo-cf8500c",
         "https://github.com/DifferentiableUniverseInitiative/jax_cosmo/commit/cf8500c2f0e174c5b132d2c53400150194dffb70",
         "JAX105", """
        import jax
        import jax.numpy as jnp
        from jax.tree_util import register_pytree_node_class

        RH = 2997.92458

        @register_pytree_node_class
        class Cosmology:
            def __init__(self, Omega_c, Omega_k, h):
                self._Omega_c = Omega_c
                self._Omega_k = Omega_k
                self._h = h

            def tree_flatten(self):
                return (self._Omega_c, self._Omega_k, self._h), None

            @classmethod
            def tree_unflatten(cls, aux_data, children):
                return cls(*children)

            @property
            def Omega(self):
                return 1.0 - self._Omega_k

            @property
            def k(self):
                if self.Omega > 1.0:  # <-
                    k = 1
                elif self.Omega == 1.0:  # <-
                    k = 0
                elif self.Omega < 1.0:  # <-
                    k = -1
                return k

            @property
            def sqrtk(self):
                return jnp.sqrt(jnp.abs(self._Omega_k))

        def radial_comoving_distance(cosmo, a):
            return RH * (1.0 - a) / jnp.sqrt(cosmo._Omega_c + 0.3)

        def transverse_comoving_distance(cosmo, a):
            chi = radial_comoving_distance(cosmo, a)
            if cosmo.k < 0:
                return RH / cosmo.sqrtk * jnp.sinh(cosmo.sqrtk * chi / RH)
            elif cosmo.k > 0:
                return RH / cosmo.sqrtk * jnp.sin(cosmo.sqrtk * chi / RH)
            return chi

        def main():
            cosmo = Cosmology(Omega_c=0.25, Omega_k=0.0, h=0.7)
            return jax.jit(transverse_comoving_distance)(cosmo, jnp.array([0.5, 0.8]))
        """),
    # ------------------------------------------------------------------ JAX110 discarded update
    Case("navix-d7f95f2",
         "https://github.com/epignatelli/navix/commit/d7f95f2ad203786c20f0e8166ec7a7082d6d4a26", "JAX110", """
        from typing import NamedTuple

        import jax
        import jax.numpy as jnp

        class Entity(NamedTuple):
            position: jnp.ndarray
            tag: jnp.ndarray
            colour: jnp.ndarray

        class State(NamedTuple):
            grid: jnp.ndarray
            entities: dict

        def symbolic(state):
            obs = jnp.zeros(state.grid.shape + (3,), dtype=jnp.uint8)
            for entity_class in state.entities:
                entity = state.entities[entity_class]
                entity_state = jnp.zeros(entity.tag.shape) - 1
                entity_symbol = jnp.concatenate([entity.tag, entity.colour, entity_state], axis=-1)
                obs.at[entity.position].set(entity_symbol)  # <-
            return obs

        def main():
            player = Entity(jnp.array([1, 1]), jnp.array([2.0]), jnp.array([0.0]))
            goal = Entity(jnp.array([3, 3]), jnp.array([4.0]), jnp.array([1.0]))
            state = State(jnp.zeros((5, 5)), {"player": player, "goal": goal})
            return jax.jit(symbolic)(state)
        """),
    # ------------------------------------------------------------------ JAX111 data-dependent shape
    Case("pgx-3baf39f9",
         "https://github.com/sotetsuk/pgx/commit/3baf39f90dce92f4e199c44fb60d205fa61e5d39", "JAX111", """
        from typing import NamedTuple

        import jax
        import jax.numpy as jnp

        GOLD = 7

        class State(NamedTuple):
            piece_board: jnp.ndarray

        def _legal_promotion(state, legal_moves):
            promotion = jnp.where(legal_moves, 1, 0)
            is_stuck = (jnp.arange(81) % 9 == 0)[:, None]
            promotion = jnp.where((promotion != 0) & is_stuck, 2, promotion)
            promotion = promotion.at[state.piece_board >= GOLD, :].set(0)  # <-
            return promotion

        @jax.jit
        def legal_action_mask(state):
            legal_moves = jnp.ones((81, 10), bool) & (state.piece_board[:, None] >= 0)
            return _legal_promotion(state, legal_moves)

        def main():
            return legal_action_mask(State(jnp.arange(81) % 15))
        """),
    Case("clu-9147399",
         "https://github.com/google/CommonLoopUtils/commit/9147399887a0d2d78b90e2ff9da1348c157162a9", "JAX111", """
        from typing import NamedTuple, Optional

        import jax
        import jax.numpy as jnp

        class Average(NamedTuple):
            total: jnp.ndarray
            count: jnp.ndarray

            @classmethod
            def from_model_output(cls, values: jnp.ndarray, mask: Optional[jnp.ndarray] = None) -> "Average":
                if values.ndim == 0:
                    values = values[None]
                if mask is None:
                    mask = jnp.ones_like(values)
                if mask.shape[0] != values.shape[0]:
                    raise ValueError("mask and values need the same leading dimension")
                if mask.ndim < values.ndim:
                    mask = jnp.expand_dims(mask, axis=tuple(jnp.arange(mask.ndim, values.ndim)))  # <-
                mask = mask.astype(bool)
                return cls(total=jnp.where(mask, values, 0.0).sum(), count=mask.sum())

        @jax.jit
        def eval_step(losses, mask):
            return Average.from_model_output(losses, mask)

        def main():
            return eval_step(jnp.ones((4, 3)), jnp.ones(4))
        """),
    # ------------------------------------------------------------------ JAX114 PRNG key reuse
    Case("kfac-jax-9a65189",
         "https://github.com/google-deepmind/kfac-jax/commit/9a65189d4e71509e48e2d18315e783a646a22c2d", "JAX114", """
        from typing import NamedTuple, Optional

        import jax
        import jax.numpy as jnp

        class WrapperState(NamedTuple):
            velocity: jnp.ndarray
            precond_state: Optional[jnp.ndarray]

        class OptaxWrapper:
            def __init__(self, use_preconditioner=True):
                self._use_preconditioner = use_preconditioner
                self._pmap_init_preconditioner = jax.pmap(self._init_preconditioner, axis_name="i")
                self._pmap_step = jax.pmap(self._step, axis_name="i")

            def _init_preconditioner(self, params, rng, batch):
                probes = jax.random.normal(rng, (4,) + params.shape)
                return jnp.mean((probes @ batch.T) ** 2, axis=(0, -1))

            def _step(self, params, state, rng, batch):
                keep = jax.random.bernoulli(rng, 0.9, batch.shape)
                grads = jnp.mean(batch * keep, axis=0) / (1.0 + state.precond_state)
                velocity = 0.9 * state.velocity + grads
                return params - 0.01 * velocity, WrapperState(velocity, state.precond_state)

            def step(self, params, state, rng, data_iterator):
                batch = next(data_iterator)
                if self._use_preconditioner and state.precond_state is None:
                    precond_state = self._pmap_init_preconditioner(params, rng, batch)  # <-
                    state = WrapperState(state.velocity, precond_state)
                return self._pmap_step(params, state, rng, batch)  # <-

        def main():
            wrapper = OptaxWrapper()
            params = jnp.ones((1, 3))
            state = WrapperState(jnp.zeros((1, 3)), None)
            rng = jax.random.split(jax.random.PRNGKey(0), 1)
            batches = iter([jnp.ones((1, 8, 3))] * 3)
            return wrapper.step(params, state, rng, batches)
        """),
    Case("rebayes-154023f",
         "https://github.com/probml/rebayes/commit/154023f5b074721f679cc6630d5f1ad32db16d0a", "JAX114", """
        import jax.numpy as jnp
        import jax.random as jr
        from jax import vmap

        def load_single_permuted_task(perm, images, key):
            order = jr.permutation(key, images.shape[0])
            return images[order][:, perm]

        def load_permuted_dataset(images, n_tasks, key=0):
            if isinstance(key, int):
                key = jr.PRNGKey(key)
            identity_idx = jnp.arange(images.shape[1])[None, :]
            perm_idx = jnp.concatenate(
                [identity_idx,
                 jnp.array([jr.permutation(key, jnp.arange(images.shape[1])) for _ in range(n_tasks - 1)])],  # <-
                axis=0,
            )
            keys = jr.split(key, n_tasks)
            return vmap(lambda perm, k: load_single_permuted_task(perm, images, k))(perm_idx, keys)

        def main():
            return load_permuted_dataset(jnp.ones((10, 16)), n_tasks=4)
        """),
]
