"""Blind recall cases, thirteenth round (issue 36, sealed before the session's rule work was judged):
one small program per public bug fix in a JAX library, written in our own words from the pattern
the fix removed (never the library's code).

The search corpora of the twelve earlier rounds were mined out (round twelve found 9 cases in about
240 addresses), so this round widened its source honestly to the other public record of such bugs:
the commit histories of JAX libraries and their examples. A commit whose message says it fixes one of
the pitfalls a static rule's page claims (a key consumed twice, a traced value in Python control
flow, a data-dependent shape, a jit wrapper made per call), and whose diff shows the pattern in the
library's own code, is a case: the code before the fix. The address is the commit on the library's
public repository. None of these commits, nor their pull requests, is among the cases of the twelve
earlier rounds or the 34 earlier cases of ``benchmarks/recall_reports.md``, nor among the threads the
earlier rounds left out by name (checked by URL, and by repository and number;
``tests/test_recall_blind.py`` checks the URLs). The round was *sealed*: the file was written and
committed on its own before jaxlint was run on any of the cases, by an engineer who changes no rule,
and no other engineer of the session saw it; the commit is the proof that the cases predate the
measurement.

Each case names the rule that should report it and marks the problem's line (or lines) with
``# <-``, in the same ``Case`` form as ``recall_blind_cases.py``. A case is *found* when that
rule reports on a marked line. The verdicts are in ``benchmarks/recall_reports.md`` ("Blind
recall, thirteenth round"); the measurement is ``tests/test_recall_blind.py``.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from recall_blind_cases import Case  # noqa: E402

CASES13: list[Case] = [
    # ------------------------------------------------------------------ JAX103 jit per call
    Case("init2winit-e2e6bf1",
         "https://github.com/google/init2winit/commit/e2e6bf162b682b002bbec674c10db9248d905ce3", "JAX103", """
        import functools

        import jax
        import jax.numpy as jnp

        def sgd_update(params, grads, lr, clip):
            norm = jnp.sqrt(sum(jnp.sum(g * g) for g in jax.tree_util.tree_leaves(grads)))
            scale = jnp.minimum(1.0, clip / (norm + 1e-6))
            return jax.tree_util.tree_map(lambda p, g: p - lr * scale * g, params, grads)

        class Trainer:
            def __init__(self, clip):
                self.clip = clip

            def update_params(self, params, grads, lr):
                update_fn = functools.partial(sgd_update, clip=self.clip)
                update_jitted = jax.jit(update_fn, donate_argnums=(0,))  # <-
                return update_jitted(params, grads, lr)  # <-

        def main():
            trainer = Trainer(clip=1.0)
            params = {"w": jnp.ones(3)}
            for step in range(5):
                grads = {"w": jnp.full(3, 0.1 * step)}
                params = trainer.update_params(params, grads, 0.01)
            return params
        """),
    # ------------------------------------------------------------------ JAX105 traced control flow
    Case("brax-5ffd446", "https://github.com/google/brax/commit/5ffd4463653116a0a2ff8be79ea3b2785d88f1f1",
         "JAX105", """
        import jax
        import jax.numpy as jnp

        class ChaseBall:
            def step(self, pos, vel):
                to_ball = pos[0] - pos[1]
                dist = jnp.linalg.norm(to_ball)
                if jnp.linalg.norm(vel[1]) > 1.0:  # <-
                    accel = 0.0
                else:
                    accel = 1.0
                vel = vel.at[1].add(accel * to_ball / dist)
                return pos + 0.1 * vel, vel

        def main():
            env = ChaseBall()
            return jax.jit(env.step)(jnp.array([[1.0, 2.0], [0.0, 0.0]]), jnp.zeros((2, 2)))
        """),
    Case("gymnax-0096e0e", "https://github.com/RobertTLange/gymnax/commit/0096e0e384853bb1e2c61205bb584835d875ff9c",
         "JAX105", """
        import jax
        import jax.numpy as jnp

        def move_enemies(enemies, player):
            enemies = enemies.at[:, 0].add(1)
            hits = jnp.sum(jnp.all(enemies == player, axis=-1))
            return enemies, bool(hits > 0)  # <-

        @jax.jit
        def env_step(enemies, player):
            enemies, done = move_enemies(enemies, player)
            return enemies, done

        def main():
            return env_step(jnp.zeros((4, 2), jnp.int32), jnp.array([1, 0]))
        """),
    Case("optax-47404ab6", "https://github.com/google-deepmind/optax/commit/47404ab6daee4ae45cb2dca04dd2f5ebf769dd5b",
         "JAX105", """
        from typing import NamedTuple

        import jax
        import jax.numpy as jnp

        class AvgState(NamedTuple):
            avg_grad: jnp.ndarray
            avg_loss: jnp.ndarray
            count: jnp.ndarray

        def averaged_step(learning_rate, beta=0.9):
            def init(params):
                return AvgState(jnp.zeros_like(params), jnp.zeros([]), jnp.zeros([], jnp.int32))

            def update(grads, state, loss):
                if state.count == jnp.zeros([], jnp.int32):  # <-
                    avg_grad, avg_loss = grads, loss
                else:
                    avg_grad = beta * state.avg_grad + (1 - beta) * grads
                    avg_loss = beta * state.avg_loss + (1 - beta) * loss
                step = -learning_rate * avg_grad / (1.0 + avg_loss)
                return step, AvgState(avg_grad, avg_loss, state.count + 1)

            return init, update

        init_fn, update_fn = averaged_step(0.1)

        @jax.jit
        def train_step(params, state):
            loss, grads = jax.value_and_grad(lambda p: jnp.sum(p ** 2))(params)
            step, state = update_fn(grads, state, loss)
            return params + step, state

        def main():
            params = jnp.ones(3)
            return train_step(params, init_fn(params))
        """),
    Case("flashbax-6619200", "https://github.com/instadeepai/flashbax/commit/66192004f2f4085c4bbfbcc1c47254b879f73d62",
         "JAX105", """
        from typing import NamedTuple

        import jax
        import jax.numpy as jnp

        class BufferState(NamedTuple):
            experience: jnp.ndarray
            current_index: jnp.ndarray
            is_full: jnp.ndarray

        def timestep_count(state):
            num_envs, max_time = state.experience.shape[:2]
            filled = max_time if state.is_full else state.current_index  # <-
            return int(num_envs * filled)  # <-

        @jax.jit
        def can_sample(state):
            return timestep_count(state) >= 8

        def main():
            state = BufferState(jnp.zeros((2, 16, 3)), jnp.array(5), jnp.array(False))
            return can_sample(state)
        """),
    Case("netket-05bf7912", "https://github.com/netket/netket/commit/05bf7912aa30f269f8c60aa98f243cc276c12787",
         "JAX105", """
        import jax
        import jax.numpy as jnp

        class Particles:
            def __init__(self, n_particles, extent):
                self.n_particles = n_particles
                self.extent = extent

        def random_positions(space, key, batches):
            dim = len(space.extent)
            per_axis = int(jnp.ceil(space.n_particles ** (1 / dim)))  # <-
            axis = jnp.linspace(0.0, min(space.extent), per_axis)
            grid = jnp.stack(jnp.meshgrid(*(dim * [axis])), axis=-1).reshape(-1, dim)
            picks = jax.random.permutation(key, grid.shape[0])[: space.n_particles]
            noise = 0.01 * jax.random.normal(jax.random.fold_in(key, 1), (batches, space.n_particles, dim))
            return grid[picks] + noise

        def main():
            space = Particles(5, (2.0, 2.0))
            sample = jax.jit(lambda k: random_positions(space, k, 3))
            return sample(jax.random.PRNGKey(0))
        """),
    # ------------------------------------------------------------------ JAX111 data-dependent shape
    Case("flax-331bdc2c", "https://github.com/google/flax/commit/331bdc2c444e6dfdcce391e43b2d686e1bfdf8fd",
         "JAX111", """
        import jax
        import jax.numpy as jnp

        def fused_gates(x, kernels, biases):
            y = x @ jnp.concatenate(kernels, axis=-1) + jnp.concatenate(biases)
            cuts = jnp.cumsum(jnp.array([b.shape[0] for b in biases[:-1]]))
            parts = jnp.split(y, cuts, axis=-1)  # <-
            return dict(zip("ifgo", parts))

        @jax.jit
        def lstm_gates(x):
            kernels = [jnp.ones((3, 4)) for _ in range(4)]
            biases = [jnp.zeros(4) for _ in range(4)]
            return fused_gates(x, kernels, biases)

        def main():
            return lstm_gates(jnp.ones((2, 3)))
        """),
    Case("numpyro-e2c3f136", "https://github.com/pyro-ppl/numpyro/commit/e2c3f136072adaafb6ffd9812fa16e0834e2703e",
         "JAX111", """
        import jax
        import jax.numpy as jnp

        class UniformInts:
            def __init__(self, low, high):
                self.low = low
                self.high = high

            def enumerate_support(self):
                low = jnp.reshape(self.low, -1)[0]
                high = jnp.reshape(self.high, -1)[0]
                return jnp.arange(low, high + 1)  # <-

        @jax.jit
        def expected_value(probs):
            values = UniformInts(0, 3).enumerate_support()
            return jnp.sum(values * probs)

        def main():
            return expected_value(jnp.full(4, 0.25))
        """),
    Case("jumanji-7b4ce1c6", "https://github.com/instadeepai/jumanji/commit/7b4ce1c6a95b456701ffb8b7b9b9092ac58131b9",
         "JAX111", """
        import jax
        import jax.numpy as jnp

        MOVES = jnp.array([[-1, 0], [0, 1], [1, 0], [0, -1]])

        class ShuffledPuzzle:
            def __init__(self, size, num_moves):
                self.size = size
                self.num_moves = num_moves

            def __call__(self, key):
                board = jnp.arange(self.size * self.size).reshape(self.size, self.size)
                empty = jnp.array([self.size - 1, self.size - 1])
                for _ in range(self.num_moves):
                    key, sub = jax.random.split(key)
                    board, empty = self.random_move(sub, board, empty)
                return board, empty

            def random_move(self, key, board, empty):
                targets = empty + MOVES
                legal = jnp.all((targets >= 0) & (targets < self.size), axis=-1)
                legal_moves = jnp.arange(len(MOVES))[legal]  # <-
                move = MOVES[jax.random.choice(key, legal_moves)]
                new_empty = empty + move
                tile = board[tuple(new_empty)]
                board = board.at[tuple(empty)].set(tile).at[tuple(new_empty)].set(0)
                return board, new_empty

        def main():
            return jax.jit(ShuffledPuzzle(3, 4))(jax.random.PRNGKey(0))
        """),
    Case("ott-338202c6", "https://github.com/ott-jax/ott/commit/338202c6aec30f3c68e2925f5fa63de584ec174d",
         "JAX111", """
        import jax
        import jax.numpy as jnp

        def soft_quantiles(x, num_quantiles):
            weights = jnp.full(2 * num_quantiles + 1, 1.0 / (2 * num_quantiles + 1))
            out = jnp.sort(x)[: 2 * num_quantiles + 1] / weights
            odd = jnp.concatenate([
                jnp.zeros((num_quantiles + 1, 1), dtype=bool),
                jnp.ones((num_quantiles + 1, 1), dtype=bool),
            ], axis=1).ravel()[:-1]
            return out[odd]  # <-

        def main():
            return jax.jit(soft_quantiles, static_argnums=1)(jnp.linspace(0.0, 1.0, 16), 3)
        """),
    # ------------------------------------------------------------------ JAX114 PRNG key reuse
    Case("numpyro-ba5125d0", "https://github.com/pyro-ppl/numpyro/commit/ba5125d0c67b9bac223be5d4402078011e858b01",
         "JAX114", """
        import jax
        import jax.numpy as jnp

        class RandomFourierKernel:
            def init(self, key, particles_shape):
                self.freqs = jax.random.normal(key, shape=particles_shape)
                self.phases = jax.random.uniform(key, shape=particles_shape, maxval=2 * jnp.pi)  # <-

            def features(self, x):
                return jnp.cos(x * self.freqs + self.phases)

        def main():
            kernel = RandomFourierKernel()
            kernel.init(jax.random.PRNGKey(0), (8, 2))
            return kernel.features(jnp.ones((8, 2)))
        """),
    Case("trax-0ebc33aa", "https://github.com/google/trax/commit/0ebc33aa8858eda11170fe69983ded65f59563d1",
         "JAX114", """
        import jax
        import jax.numpy as jnp

        def scaled_normal(shape, key):
            return jax.random.normal(key, shape) / jnp.sqrt(shape[-2] if len(shape) > 1 else 1.0)

        def small_normal(shape, key):
            return 1e-2 * jax.random.normal(key, shape)

        class Conv:
            def __init__(self, filters, kernel_size):
                self.filters = filters
                self.kernel_size = kernel_size
                self.kernel_initializer = scaled_normal
                self.bias_initializer = small_normal

            def new_weights(self, in_channels, key):
                w = self.kernel_initializer(self.kernel_size + (in_channels, self.filters), key)
                b = self.bias_initializer((self.filters,), key)  # <-
                return w, b

        def main():
            return Conv(8, (3, 3)).new_weights(4, jax.random.PRNGKey(0))
        """),
    Case("dm-haiku-96ecde6", "https://github.com/google-deepmind/dm-haiku/commit/96ecde6adecd8ac41827fe90a4129cf8e6108d61",
         "JAX114", """
        import haiku as hk
        import jax
        import jax.numpy as jnp

        def forward(x):
            h = hk.Linear(16)(x)
            return hk.dropout(hk.next_rng_key(), 0.1, h)

        def summarise(x):
            f = hk.transform_with_state(forward)
            key = jax.random.PRNGKey(42)
            params, state = f.init(key, x)
            out, _ = f.apply(params, state, key, x)  # <-
            return jax.tree_util.tree_map(jnp.shape, params), out.shape
        """),
    Case("equinox-e906718", "https://github.com/patrick-kidger/equinox/commit/e9067186d5eb56b89503ace4a13664e1de556bfa",
         "JAX114", """
        import jax.numpy as jnp
        import jax.random as jr

        def batches(data, batch_size, *, key):
            n = data.shape[0]
            indices = jnp.arange(n)
            while True:
                perm = jr.permutation(key, indices)
                (key,) = jr.split(key, 1)  # <-
                for start in range(0, n - batch_size + 1, batch_size):
                    yield data[perm[start:start + batch_size]]

        def main():
            loader = batches(jnp.arange(12.0), 4, key=jr.PRNGKey(0))
            return [next(loader) for _ in range(6)]
        """),
    Case("cleanrl-ee80f6bb", "https://github.com/vwxyzjn/cleanrl/commit/ee80f6bb8cd14871f2f4a53a502932c05297d1ec",
         "JAX114", """
        import flax.linen as nn
        import jax
        import jax.numpy as jnp

        class Actor(nn.Module):
            action_dim: int

            @nn.compact
            def __call__(self, obs):
                return jnp.tanh(nn.Dense(self.action_dim)(nn.relu(nn.Dense(64)(obs))))

        class Critic(nn.Module):
            @nn.compact
            def __call__(self, obs, action):
                x = jnp.concatenate([obs, action], -1)
                return nn.Dense(1)(nn.relu(nn.Dense(64)(x)))

        def main():
            key = jax.random.PRNGKey(1)
            obs = jnp.zeros((1, 3))
            actor = Actor(action_dim=2)
            actor_params = actor.init(key, obs)
            critic_params = Critic().init(key, obs, jnp.zeros((1, 2)))  # <-
            return actor_params, critic_params
        """),
    Case("flax-64a7cb54", "https://github.com/google/flax/commit/64a7cb54cea481861dd9d9919d3d28d0a856de97",
         "JAX114", """
        import flax.linen as nn
        import jax
        import jax.numpy as jnp

        class Seq2Seq(nn.Module):
            @nn.compact
            def __call__(self, x, train):
                h = nn.Dense(32)(x)
                h = nn.Dropout(0.2, deterministic=not train)(h)
                return nn.Dense(4)(h)

        model = Seq2Seq()

        @jax.jit
        def train_step(params, batch, rng):
            def loss_fn(p):
                logits = model.apply(p, batch["x"], train=True, rngs={"dropout": rng})
                return jnp.mean((logits - batch["y"]) ** 2)
            grads = jax.grad(loss_fn)(params)
            return jax.tree_util.tree_map(lambda p, g: p - 0.01 * g, params, grads)

        def train(num_steps):
            init_rng, rng = jax.random.split(jax.random.PRNGKey(0))
            params = model.init(init_rng, jnp.zeros((1, 8)), train=False)
            for step in range(num_steps):
                batch = {"x": jnp.ones((4, 8)) * step, "y": jnp.zeros((4, 4))}
                params = train_step(params, batch, rng)  # <-
            return params
        """),
]
