"""Blind recall cases, fifteenth round (issue 36, sealed before jaxlint ran on any of them):
one small program per public bug fix in a JAX repository, written in our own words from the
pattern the fix removed (never the repository's code).

Rounds thirteen and fourteen took bug-fix commits of about 170 JAX repositories mirrored on this
machine. This round took the same kind of record from repositories *not* among those (none of them
named by ``benchmarks/recall_reports.md`` or by the cases of the fourteen earlier rounds, nor a
fork of one): 96 further public JAX repositories fetched for this round with the ``search`` tool's
``fetch``, and about 65 more already mirrored here by other engineers of the session (RL,
quality-diversity and search libraries and environments, samplers, model, training and scientific
code, small research projects). Their histories were searched for
fixes of the pitfalls a static rule's page claims, by commit subject (key reuse, a split or fresh
key, "jittable", tracer, concretization, recompiles, boolean masks) and by diff (a ``jax.random``
call whose key argument changed, a bare ``x.at[i].set(v)`` statement turned into an assignment, an
``if`` replaced by ``jnp.where``/``lax.cond``/``lax.select``, boolean indexing replaced by
``jnp.where``, a ``jit`` removed from a loop): a reading aid for finding commits, not a criterion.
A commit whose message says it fixes such a pitfall (or whose diff shows nothing else) and whose
diff shows the pattern in the repository's own code is a case: the code before the fix. The
address is the commit on the repository's public GitHub. None of these commits is among the cases
or the left-out threads of the fourteen earlier rounds (checked by URL and by repository;
``tests/test_recall_blind.py`` checks the URLs once the round is wired in). The round was
*sealed*: the file was written and committed on its own before jaxlint was run on any of the
cases, by an engineer who changes no rule, and no other engineer of the session saw it; the commit
is the proof that the cases predate the measurement.

Each case names the rule that should report it (chosen from the diff and the commit message) and
marks the problem's line (or lines) with ``# <-``, in the same ``Case`` form as
``recall_blind_cases.py``. A case is *found* when that rule reports on a marked line. The verdicts
are in ``benchmarks/recall_reports.md`` ("Blind recall, fifteenth round"); the measurement is
``tests/test_recall_blind.py``.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from recall_blind_cases import Case  # noqa: E402

CASES15: list[Case] = [
    # ------------------------------------------------------------------ JAX103 jit per call
    Case("tunix-0454a18",
         "https://github.com/google/tunix/commit/0454a18127d553df2e511f191a80da3ea2ff9ad0", "JAX103", """
        import jax
        import jax.numpy as jnp
        from flax import nnx

        class Teacher(nnx.Module):
            def __init__(self, rngs):
                self.dense = nnx.Linear(4, 4, rngs=rngs)

            def __call__(self, x):
                return self.dense(x)

        class Strategy:
            def get_teacher_outputs(self, teacher_model, inputs):
                return jax.nn.softmax(teacher_model(inputs))

        class DistillationTrainer:
            def __init__(self, teacher_model, strategy):
                self.teacher_model = teacher_model
                self.strategy = strategy

            def _prepare_inputs(self, inputs):
                teacher_output = nnx.jit(self.strategy.get_teacher_outputs)(  # <-
                    self.teacher_model, inputs
                )
                return inputs, teacher_output

            def train(self, batches):
                outputs = []
                for batch in batches:
                    outputs.append(self._prepare_inputs(batch)[1])
                return outputs

        def main():
            trainer = DistillationTrainer(Teacher(nnx.Rngs(0)), Strategy())
            return trainer.train([jnp.ones((2, 4)) * i for i in range(3)])
        """),
    # ------------------------------------------------------------------ JAX105 traced control flow
    Case("jax-bhm-377334d",
         "https://github.com/sreeganb/jax_bhm/commit/377334d5108f8edadf3b089821d532fa92d4f919", "JAX105", """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def calculate_ccc(coords, radii, target, density_com, slope: float = 0.0):
            weights = radii ** 3
            projection = jnp.histogram(coords[:, 0], bins=target.shape[0], range=(-1.0, 1.0), weights=weights)[0]
            ccc = jnp.sum(projection * target) / (jnp.linalg.norm(projection) * jnp.linalg.norm(target) + 1e-8)
            if slope > 0:  # <-
                distances = jnp.linalg.norm(coords - density_com, axis=1)
                weighted_dist = jnp.sum(distances * weights) / jnp.sum(weights)
                slope_penalty = slope * weighted_dist
            else:
                slope_penalty = 0.0
            return ccc - slope_penalty

        def make_log_prob(radii, target, slope, scale=10.0):
            density_com = jnp.zeros(3)

            @jax.jit
            def log_prob_fn(flat_coords):
                coords = flat_coords.reshape(-1, 3)
                return scale * calculate_ccc(coords, radii, target, density_com, slope)

            return log_prob_fn

        def main():
            log_prob = make_log_prob(jnp.ones(4), jnp.ones(8), 0.01)
            return log_prob(jnp.linspace(-0.5, 0.5, 12))
        """),
    Case("jax-galsim-c2cdfde",
         "https://github.com/GalSim-developers/JAX-GalSim/commit/c2cdfde58ef7a9ad4d9125db775365aebc34e8a8", "JAX105", """
        import jax
        import jax.numpy as jnp
        from jax.tree_util import register_pytree_node_class

        @register_pytree_node_class
        class Moffat:
            def __init__(self, beta, scale_radius, trunc=0.0, xvalue_accuracy=1e-5):
                self.beta = beta
                self.scale_radius = scale_radius
                self.trunc = trunc
                self.xvalue_accuracy = xvalue_accuracy

            def tree_flatten(self):
                return (self.beta, self.scale_radius, self.trunc), (self.xvalue_accuracy,)

            @classmethod
            def tree_unflatten(cls, aux, children):
                return cls(*children, *aux)

            @property
            def _inv_r0(self):
                return 1.0 / self.scale_radius

            @property
            def _maxRrD(self):
                if self.trunc > 0.0:  # <-
                    return self.trunc * self._inv_r0
                else:
                    return jnp.sqrt(jnp.power(self.xvalue_accuracy, 1.0 / (1.0 - self.beta)) - 1.0)

            def xvalue(self, r):
                rsq = (r * self._inv_r0) ** 2
                return jnp.where(rsq > self._maxRrD ** 2, 0.0, jnp.power(1.0 + rsq, -self.beta))

        @jax.jit
        def profile(psf, r):
            return psf.xvalue(r)

        def main():
            return profile(Moffat(3.0, 1.0, trunc=4.0), jnp.linspace(0.0, 5.0, 6))
        """),
    # ------------------------------------------------------------------ JAX111 data-dependent shape
    Case("aequus-jax-c5f924d",
         "https://github.com/Sn0wfly/aequus_jax/commit/c5f924dca663b93f9fa98143fe30258173da532e", "JAX111", """
        import jax
        import jax.numpy as jnp
        from jax import lax

        TABLE_SIZE = 64
        HASH_KEYS = jnp.arange(TABLE_SIZE)
        HASH_VALUES = jnp.arange(TABLE_SIZE) * 7

        def evaluate_hand(cards):
            valid_cards = cards[cards >= 0]  # <-
            hash_key = jnp.sum(valid_cards)
            idx = hash_key % TABLE_SIZE
            found = HASH_KEYS[idx] == hash_key
            return jnp.where(found, HASH_VALUES[idx], jnp.sum(valid_cards).astype(jnp.int32))

        @jax.jit
        def resolve_showdown(hole_cards, comm_cards, active):
            def eval_i(i):
                cards = jnp.concatenate([hole_cards[i], comm_cards])
                return evaluate_hand(cards)

            strengths = jnp.array([lax.cond(active[i], lambda: eval_i(i), lambda: 9999) for i in range(6)])
            best = jnp.min(strengths)
            return (strengths == best) & active

        def main():
            hole = jnp.arange(12).reshape(6, 2)
            comm = jnp.array([20, 21, 22, -1, -1])
            return resolve_showdown(hole, comm, jnp.ones(6, bool))
        """),
    # ------------------------------------------------------------------ JAX110 discarded update
    Case("craftax-606e8f0",
         "https://github.com/MichaelTMatthews/Craftax/commit/606e8f0aa15e4eced1767fed3747b21732091673", "JAX110", """
        from functools import partial

        import jax
        import jax.numpy as jnp

        class OptimisticResetVecEnv:
            def __init__(self, num_envs, reset_ratio):
                self.num_envs = num_envs
                self.reset_ratio = reset_ratio
                self.num_resets = num_envs // reset_ratio

            def reset_one(self, key):
                return jax.random.normal(key, (4,))

            @partial(jax.jit, static_argnums=(0,))
            def step(self, rng, obs_st, done):
                rng, _rng = jax.random.split(rng)
                obs_re = jax.vmap(self.reset_one)(jax.random.split(_rng, self.num_resets))

                rng, _rng = jax.random.split(rng)
                reset_indexes = jnp.arange(self.num_resets).repeat(self.reset_ratio)
                being_reset = jax.random.choice(
                    _rng, jnp.arange(self.num_envs), shape=(self.num_resets,), p=done, replace=False
                )
                reset_indexes.at[being_reset].set(jnp.arange(self.num_resets))  # <-

                obs_re = obs_re[reset_indexes]
                return jnp.where(done[:, None], obs_re, obs_st)

        def main():
            env = OptimisticResetVecEnv(num_envs=8, reset_ratio=4)
            done = jnp.array([0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0])
            return env.step(jax.random.PRNGKey(0), jnp.zeros((8, 4)), done)
        """),
    Case("discs-2074b0d",
         "https://github.com/google-research/discs/commit/2074b0da2632e0c2e348b9869da53fe34d773b7d", "JAX110", """
        import jax
        import jax.numpy as jnp

        class LangevinSampler:
            def __init__(self, adaptive=True, target_acceptance_rate=0.574):
                self.adaptive = adaptive
                self.target_acceptance_rate = target_acceptance_rate

            def make_init_state(self):
                return jnp.array([-1.0, 0.0, 0.0])

            def step(self, rng, x, state):
                rnd_flip, rnd_mh = jax.random.split(rng)
                log_tau = state[0]
                log_tau = jnp.where(log_tau == -1, 0.5, log_tau)
                flip = jax.random.bernoulli(rnd_flip, jax.nn.sigmoid(log_tau), x.shape)
                y = jnp.where(flip, 1.0 - x, x)
                log_acc = -jnp.abs(y - x).sum(axis=-1)
                accepted = (jax.random.exponential(rnd_mh, log_acc.shape) > -log_acc)[:, None]
                new_x = jnp.where(accepted, y, x)
                avg_acc = jnp.exp(jnp.clip(log_acc, max=0.0)).mean()
                log_tau = jnp.where(
                    self.adaptive,
                    jnp.log(jnp.exp(log_tau) + (avg_acc - self.target_acceptance_rate) / (1 + state[2]) ** 0.2),
                    log_tau,
                )
                state.at[0].set(log_tau)  # <-
                state.at[1].set(state[1] + 4)  # <-
                state.at[2].set(state[2] + 1)  # <-
                return new_x, state

        def main():
            sampler = LangevinSampler()
            state = sampler.make_init_state()
            x = jnp.zeros((2, 5))
            step = jax.jit(sampler.step)
            for i in range(3):
                x, state = step(jax.random.PRNGKey(i), x, state)
            return x, state
        """),
    Case("serl-327684b",
         "https://github.com/rail-berkeley/serl/commit/327684be8d256ab99851a241cd34dc4e151f710d", "JAX110", """
        from typing import Callable, Tuple

        import flax.linen as nn
        import jax
        import jax.numpy as jnp

        class RangeSensorEncoder(nn.Module):
            keypoints: Tuple[Tuple[int, int], ...]
            keypoint_size: Tuple[int, int] = (3, 3)
            pool_func: Callable = jnp.median

            @nn.compact
            def __call__(self, observations, train: bool = False):
                x = observations / 255
                if len(x.shape) < 4:
                    x = x[None]
                points = jnp.zeros((x.shape[0], len(self.keypoints)))
                for i, keypoint in enumerate(self.keypoints):
                    k_x, k_y = keypoint
                    s_x, s_y = self.keypoint_size[0] // 2, self.keypoint_size[1] // 2
                    points.at[:, i].set(self.pool_func(x[:, k_x - s_x:k_x + s_x + 1, k_y - s_y:k_y + s_y + 1, 0], axis=(1, 2)))  # <-
                if points.shape[0] == 1:
                    points = points[0]
                return points

        def main():
            encoder = RangeSensorEncoder(keypoints=((4, 4), (8, 8)))
            depth = jnp.full((2, 16, 16, 1), 128.0)
            params = encoder.init(jax.random.PRNGKey(0), depth)
            return jax.jit(encoder.apply)(params, depth)
        """),
    # ------------------------------------------------------------------ JAX114 PRNG key reuse
    Case("qdax-8c95384",
         "https://github.com/adaptive-intelligent-robotics/QDax/commit/8c95384970363bff291a68ddef085a72be7a2c5b", "JAX114", """
        import jax
        import jax.numpy as jnp

        def isoline_variation(x1, x2, random_key, iso_sigma, line_sigma, minval=None, maxval=None):
            key, subkey1, subkey2 = jax.random.split(random_key, num=3)

            def _variation_fn(a, b):
                iso_noise = jax.random.normal(subkey1, shape=a.shape) * iso_sigma  # <-
                line_noise = jax.random.normal(subkey2, shape=b.shape) * line_sigma  # <-
                x = (a + iso_noise) + line_noise * (b - a)
                if (minval is not None) or (maxval is not None):
                    x = jnp.clip(x, minval, maxval)
                return x

            x = jax.tree_util.tree_map(lambda y1, y2: _variation_fn(y1, y2), x1, x2)
            return x, key

        def main():
            parents = {"hidden": jnp.zeros((4, 3)), "out": jnp.zeros((4, 3))}
            mates = {"hidden": jnp.ones((4, 3)), "out": jnp.ones((4, 3))}
            return isoline_variation(parents, mates, jax.random.PRNGKey(0), 0.01, 0.1)
        """),
    Case("qdax-632ff41",
         "https://github.com/adaptive-intelligent-robotics/QDax/commit/632ff41875b174f1c772b1224e864bf370f29ab2", "JAX114", """
        import jax
        import jax.numpy as jnp

        def arm(params):
            angles = jnp.cumsum(params * 2 * jnp.pi)
            tip = jnp.stack([jnp.cos(angles).sum(), jnp.sin(angles).sum()])
            fitness = -jnp.std(params)
            return fitness, tip / params.shape[0]

        def noisy_arm_scoring_function(params, random_key, fit_variance, desc_variance):
            fitnesses, descriptors = jax.vmap(arm)(params)

            random_key, subkey = jax.random.split(random_key)
            fitnesses = fitnesses + jax.random.normal(subkey, shape=fitnesses.shape) * fit_variance  # <-
            descriptors = descriptors + jax.random.normal(subkey, shape=descriptors.shape) * desc_variance  # <-
            return fitnesses, descriptors, {}, random_key

        def main():
            params = jax.random.uniform(jax.random.PRNGKey(1), (16, 8))
            return jax.jit(noisy_arm_scoring_function)(params, jax.random.PRNGKey(0), 0.1, 0.1)
        """),
    Case("jaxtar-4c6ff8a",
         "https://github.com/tinker495/JAxtar/commit/4c6ff8a2bd84ce53df81837100d9577c216f8d5c", "JAX114", """
        import jax
        import jax.numpy as jnp

        def boltzmann(q_values, temperature=1 / 3.0):
            return jax.nn.softmax(-q_values / temperature, axis=1)

        def get_datasets(q_fn, q_params, states, minibatch_size, key):
            minibatched = states.reshape((-1, minibatch_size, states.shape[-1]))

            def get_minibatched_datasets(_, batch):
                q_values = q_fn(q_params, batch)
                probs = boltzmann(q_values)
                idxs = jnp.arange(q_values.shape[1])
                actions = jax.vmap(lambda k, p: jax.random.choice(k, idxs, p=p))(
                    jax.random.split(key, q_values.shape[0]), probs  # <-
                )
                target_q = jnp.take_along_axis(q_values, actions[:, None], axis=1)[:, 0]
                return None, (batch, target_q, actions)

            _, (batches, target_q, actions) = jax.lax.scan(get_minibatched_datasets, None, minibatched)
            return batches.reshape((-1, states.shape[-1])), target_q.reshape(-1), actions.reshape(-1)

        def q_fn(params, x):
            return x @ params

        def main():
            states = jax.random.normal(jax.random.PRNGKey(1), (32, 6))
            params = jax.random.normal(jax.random.PRNGKey(2), (6, 4))
            return jax.jit(get_datasets, static_argnums=(0, 3))(q_fn, params, states, 8, jax.random.PRNGKey(0))
        """),
    Case("flax-illuminant-estimation-b88b245",
         "https://github.com/owo93/flax-illuminant-estimation/commit/b88b24543265bf6f9752ce06b0c62f5290d8b6be", "JAX114", """
        import jax
        import jax.numpy as jnp
        from jax import random

        @jax.jit
        def augment(img, key):
            k1, k2 = random.split(key)
            img = jnp.where(random.bernoulli(k1), jnp.flip(img, axis=1), img)
            img = jnp.where(random.bernoulli(k2), jnp.flip(img, axis=0), img)
            return img

        batched_augment = jax.jit(jax.vmap(augment, in_axes=(0, 0)))

        class CubeDataset:
            def __init__(self, images, targets, seed=42):
                self.images = images
                self.targets = targets
                self.augment = True
                self.key = random.key(seed)

            def __len__(self):
                return self.images.shape[0]

            def batches(self, batch_size, shuffle=True):
                self.key, shuffle_key, augment_key = random.split(self.key, 3)
                indices = jnp.arange(len(self))
                if shuffle:
                    indices = random.permutation(shuffle_key, indices)
                for start_idx in range(0, len(self), batch_size):
                    batch_indices = indices[start_idx:start_idx + batch_size]
                    if len(batch_indices) < batch_size:
                        continue
                    images = self.images[batch_indices]
                    if self.augment:
                        batch_keys = random.split(augment_key, batch_size)  # <-
                        images = batched_augment(images, batch_keys)
                    yield images, self.targets[batch_indices]

        def main():
            ds = CubeDataset(jnp.arange(8 * 4 * 4 * 3, dtype=jnp.float32).reshape(8, 4, 4, 3), jnp.ones((8, 3)))
            return [b for b in ds.batches(4)]
        """),
    Case("aequus-jax-d388177",
         "https://github.com/Sn0wfly/aequus_jax/commit/d388177afcf5f730a6950962de5012eb9bdb33a7", "JAX114", """
        from functools import partial

        import jax
        import jax.numpy as jnp
        from jax import lax

        def play_one_game(key, num_actions):
            deck = jax.random.permutation(key, jnp.arange(52))
            return deck[:num_actions].astype(jnp.float32)

        def generate_diverse_game_state(key):
            key, deck_key, street_key = jax.random.split(key, 3)
            deck = jax.random.permutation(deck_key, jnp.arange(52))
            street = jax.random.randint(street_key, (), 0, 4)
            return deck, street

        def play_from_state(state, num_actions):
            deck, street = state
            return deck[:num_actions].astype(jnp.float32) + street

        @partial(jax.jit, static_argnames=("batch_size", "num_actions"))
        def cfr_step(key, batch_size, num_actions):
            keys = jax.random.split(key, batch_size)

            def generate_and_play_batch(k):
                do_full_game_sim = jax.random.uniform(k) > 0.3  # <-
                return lax.cond(
                    do_full_game_sim,
                    lambda: play_one_game(k, num_actions),  # <-
                    lambda: play_from_state(generate_diverse_game_state(k), num_actions),  # <-
                )

            return jax.vmap(generate_and_play_batch)(keys)

        def main():
            return cfr_step(jax.random.PRNGKey(0), 4, 9)
        """),
]
