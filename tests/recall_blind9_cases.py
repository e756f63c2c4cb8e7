"""Blind recall cases, ninth round (issue 36, sealed before the session's rule work was judged):
one small program per public bug report, question, pull request or tutorial page about a JAX
pitfall that a static rule's documentation claims, written in our own words from the
report's pattern (never the report's code).

None of these threads is among the cases of the eight earlier rounds or the 34 earlier cases
of ``benchmarks/recall_reports.md`` (checked by URL, and by repository and number;
``tests/test_recall_blind.py`` checks the URLs). They were found with the ``search`` tool's
``issues`` and ``pages`` corpora. The round was *sealed*: the file was written and committed
on its own before jaxlint was run on any of the cases, by an engineer who changes no rule,
and no other engineer of the session saw it; the commit is the proof that the cases predate
the measurement.

Each case names the rule that should report it and marks the problem's line (or lines) with
``# <-``, in the same ``Case`` form as ``recall_blind_cases.py``. A case is *found* when that
rule reports on a marked line. The verdicts are in ``benchmarks/recall_reports.md`` ("Blind
recall, ninth round"); the measurement is ``tests/test_recall_blind.py``.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from recall_blind_cases import Case  # noqa: E402

CASES9: list[Case] = [
    # ------------------------------------------------------------------ JAX105 traced control flow
    Case("westdri-jx-jit", "https://mint.westdri.ca/ai/jx_jit", "JAX105", """
        import jax

        @jax.jit
        def piecewise_power(x):
            if x < 0.0:  # <-
                return x ** 2.0
            return x ** 3.0

        def main():
            return piecewise_power(1.0)
        """),
    Case("jax-2273", "https://github.com/jax-ml/jax/issues/2273", "JAX105", """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def checked_step(x):
            y = jnp.log(x)
            assert jnp.all(jnp.isfinite(y))  # <-
            return y * 2.0

        def main():
            return checked_step(jnp.array([1.0, 2.0, 3.0]))
        """),
    Case("jax-1575", "https://github.com/jax-ml/jax/issues/1575", "JAX105", """
        import jax
        import jax.numpy as jnp

        def f(x, y):
            return 2.0 * x + 3.0 * y

        inputs = jnp.array([1.0, 2.0, 3.0, 4.0, 5.0])
        which = jnp.array([0, 0, 1, 0, 1])

        def grad_of_one(i):
            argnum = int(which[i])  # <-
            return jax.grad(f, argnums=argnum)(inputs[i], inputs[i])

        def main():
            return jax.lax.map(grad_of_one, jnp.arange(5))
        """),
    Case("jax-11646", "https://github.com/jax-ml/jax/issues/11646", "JAX105", """
        from functools import partial

        import jax

        @jax.custom_vjp
        def power(z, n):
            k = int(n)  # <-
            return z ** k

        def power_fwd(z, n):
            k = int(n)  # <-
            return power(z, n), (z, k)

        def power_bwd(res, g):
            z, k = res
            return g * k * z ** (k - 1), None

        power.defvjp(power_fwd, power_bwd)

        @partial(jax.jit, static_argnums=(1,))
        def outer(z, n):
            return power(z, n)

        def main():
            return jax.grad(outer)(3.0, 2)
        """),
    Case("aesara-629", "https://github.com/aesara-devs/aesara/issues/629", "JAX105", """
        import jax
        import jax.numpy as jnp

        def check_and_raise(value, *conditions):
            if not jnp.all(*conditions):  # <-
                raise ValueError("check failed")
            return value

        @jax.jit
        def graph(x):
            y = jnp.sqrt(x)
            return check_and_raise(y, x >= 0)

        def main():
            return graph(jnp.array([1.0, 4.0]))
        """),
    Case("numpyro-1570", "https://github.com/pyro-ppl/numpyro/issues/1570", "JAX105", """
        import jax
        import jax.numpy as jnp
        import numpyro
        import numpyro.distributions as dist
        from numpyro.infer import MCMC, NUTS

        def forward(x, slope, intercept):
            y = intercept + slope * x
            if slope < 5:  # <-
                y = y + 1.0
            return y

        def model(x, y_obs=None):
            slope = numpyro.sample("slope", dist.Uniform(0.0, 20.0))
            intercept = numpyro.sample("intercept", dist.Uniform(0.0, 300.0))
            numpyro.sample("y", dist.Normal(forward(x, slope, intercept), 10.0), obs=y_obs)

        def main():
            x = jnp.arange(0.0, 100.0)
            y = 150.0 + 10.0 * x
            mcmc = MCMC(NUTS(model), num_warmup=50, num_samples=50)
            mcmc.run(jax.random.key(0), x, y_obs=y)
            return mcmc.get_samples()
        """),
    Case("algoperf-124", "https://github.com/mlcommons/algorithmic-efficiency/pull/124", "JAX105", """
        import jax
        import jax.numpy as jnp
        import optax

        def warmup_then_constant(base_lr, warmup_steps):
            def schedule(count):
                if count < warmup_steps:  # <-
                    return base_lr * count / warmup_steps
                return base_lr

            return schedule

        tx = optax.sgd(learning_rate=warmup_then_constant(0.1, 100), momentum=0.9)

        @jax.jit
        def train_step(params, opt_state, grads):
            updates, opt_state = tx.update(grads, opt_state, params)
            return optax.apply_updates(params, updates), opt_state

        def main():
            params = {"w": jnp.ones(3)}
            opt_state = tx.init(params)
            return train_step(params, opt_state, {"w": jnp.ones(3)})
        """),
    # ------------------------------------------------------------------ JAX106 side effect in jit
    Case("jax-999", "https://github.com/jax-ml/jax/issues/999", "JAX106", """
        import jax

        def step(i, loop_state):
            print(i, loop_state)  # <-
            x, total = loop_state
            return x * 0.9, total + x

        def run(x0, episode_length):
            return jax.lax.fori_loop(0, episode_length, step, (x0, 0.0))

        def main():
            return run(1.0, 10)
        """),
    # ------------------------------------------------------------------ JAX108 static argument
    Case("equinox-645", "https://github.com/patrick-kidger/equinox/issues/645", "JAX108", """
        import equinox as eqx

        @eqx.filter_jit
        def double(x, i):
            return x * 2

        def main():
            out = []
            for i in range(10):
                out.append(double(2.0 * i, i))  # <-
            return out
        """),
    Case("dynalang-10", "https://github.com/jlin816/dynalang/issues/10", "JAX108", """
        import jax
        import jax.numpy as jnp
        import numpy as np

        class Box:
            def __init__(self, high):
                self.high = np.array(high)

        class Agent:
            def __init__(self):
                self.obs_space = {"token": Box(32100)}

            def preprocess(self, obs):
                out = {}
                for key, value in obs.items():
                    if key.startswith("token"):
                        value = jax.nn.one_hot(value, self.obs_space[key].high)  # <-
                    out[key] = value
                return out

        def main():
            return Agent().preprocess({"token": jnp.array([1, 2, 3])})
        """),
    Case("google-research-1025", "https://github.com/google-research/google-research/issues/1025", "JAX108", """
        from functools import partial

        import jax
        import jax.numpy as jnp
        import numpy as np

        @partial(jax.jit, static_argnums=(1,))
        def encode(params, example):
            return params["w"] * example["tokens"].sum() / example["length"][0]

        def main():
            example = {"tokens": np.arange(8), "length": np.array([8])}
            return encode({"w": jnp.ones(())}, example)  # <-
        """),
    Case("brax-440", "https://github.com/google/brax/issues/440", "JAX108", """
        import jax
        import jax.numpy as jnp

        class InitialPoseWrapper:
            def __init__(self, q0):
                self.q = q0
                self.init_pos = jnp.zeros(2)

            def set_initial_state(self, init_pos):
                self.init_pos = self.init_pos.at[:].set(init_pos)

            def reset(self, rng):
                q = self.q.at[:2].set(self.init_pos)  # <-
                return q + jax.random.uniform(rng, q.shape, minval=-0.1, maxval=0.1)

        def main():
            env = InitialPoseWrapper(jnp.zeros(7))
            reset = jax.jit(env.reset)  # <-
            env.set_initial_state(jnp.array([1.0, 2.0]))
            first = reset(jax.random.key(0))
            env.set_initial_state(jnp.array([3.0, 4.0]))
            second = reset(jax.random.key(1))
            return first, second
        """),
    # ------------------------------------------------------------------ JAX111 data-dependent shape
    Case("jax-18937", "https://github.com/jax-ml/jax/issues/18937", "JAX111", """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def ones_of(size):
            return jnp.ones([size])  # <-

        def main():
            return ones_of(3)
        """),
    Case("array-api-690", "https://github.com/data-apis/array-api/pull/690", "JAX111", """
        import jax
        import jax.numpy as jnp

        def repeat_by_third(x):
            return jnp.repeat(x, x[2])  # <-

        def main():
            return jax.jit(repeat_by_third)(jnp.arange(3))
        """),
    Case("jax-9463", "https://github.com/jax-ml/jax/issues/9463", "JAX111", """
        import jax
        import jax.numpy as jnp

        num_rows = 5
        num_cols = 20
        kvals = jnp.cumsum(jnp.array([0, 1, 20, 20, 20, 20]))

        @jax.jit
        def unpack(par_log):
            rows = jnp.zeros((num_rows, num_cols))
            for i in range(num_rows):
                segment = par_log[kvals[i]:kvals[i + 1]]  # <-
                rows = rows.at[i, : segment.shape[0]].set(segment)
            return rows

        def main():
            return unpack(jnp.ones(81))
        """),
    # ------------------------------------------------------------------ JAX113 donation misuse
    Case("vmcnet-18", "https://github.com/jeffminlin/vmcnet/pull/18", "JAX113", """
        import jax

        def update(params, grads):
            return jax.tree_util.tree_map(lambda p, g: p - 0.1 * g, params, grads)

        update_pmap = jax.pmap(update, donate_argnums=(0,))

        def train(params, grads, steps):
            saved = []
            for _ in range(steps):
                old_params = params
                params = update_pmap(params, grads)
                saved.append(old_params)  # <-
            return params, saved
        """),
    # ------------------------------------------------------------------ JAX114 key reuse
    Case("jax-181", "https://github.com/jax-ml/jax/pull/181", "JAX114", """
        import jax
        import jax.numpy as jnp

        def elbo(params, rng, num_samples):
            mean, log_std = params
            eps = jax.random.normal(rng, (num_samples, mean.shape[0]))
            samples = mean + eps * jnp.exp(log_std)
            return jnp.mean(-0.5 * jnp.sum(samples ** 2, axis=1)) + jnp.sum(log_std)

        def update(t, params, rng):
            grads = jax.grad(elbo)(params, rng, 10)
            return jax.tree_util.tree_map(lambda p, g: p + 0.01 * g, params, grads)

        def main():
            rng = jax.random.key(0)
            params = (jnp.zeros(2), jnp.zeros(2))
            for t in range(100):
                params = update(t, params, rng)  # <-
                old, rng = jax.random.split(rng)  # <-
            return params
        """),
    Case("gpjax-99", "https://github.com/thomaspinder/GPJax/pull/99", "JAX114", """
        import jax.numpy as jnp
        import jax.random as jr

        def get_batch(x, y, batch_size, key):
            n = x.shape[0]
            idx = jr.choice(key, n, (batch_size,), replace=True)
            _, new_key = jr.split(key)  # <-
            return x[idx], y[idx], new_key

        def main():
            x = jnp.arange(10.0)
            return get_batch(x, 2 * x, 4, jr.key(0))
        """),
    Case("i-dqn-13", "https://github.com/theovincent/i-DQN/issues/13", "JAX114", """
        import jax
        import jax.numpy as jnp

        class ExplorationSchedule:
            def __init__(self, key, epsilon):
                self.key = key
                self.epsilon = epsilon

            def explore(self):
                self.key, sub = jax.random.split(self.key)
                return bool(jax.random.uniform(sub) < self.epsilon)

        def random_action(key, n_actions):
            return jax.random.randint(key, (), 0, n_actions)

        def best_action(q_values, key):
            return jnp.argmax(q_values + 1e-6 * jax.random.uniform(key, q_values.shape))

        class Agent:
            def __init__(self, key):
                self.schedule = ExplorationSchedule(key, 0.1)

            def act(self, q_values):
                if self.schedule.explore():
                    return random_action(self.schedule.key, q_values.shape[0])  # <-
                return best_action(q_values, self.schedule.key)  # <-

        def main():
            agent = Agent(jax.random.key(0))
            return [agent.act(jnp.arange(4.0)) for _ in range(5)]
        """),
    Case("genjax-1253", "https://github.com/genjax-community/genjax/pull/1253", "JAX114", """
        import jax

        @jax.jit
        def simulate(key, p):
            return jax.random.bernoulli(key, p, (10,))

        def main():
            key = jax.random.key(0)
            first = simulate(key, 0.3)
            key, subkey = jax.random.split(key)  # <-
            return first, simulate(subkey, 0.5)
        """),
]
