"""The 34 earlier recall cases of ``benchmarks/recall_reports.md`` (issue 10's table),
rewritten in our own words from that table's description of each report so that the
figure can be measured again (the original files were kept outside the repository).
Same format as ``recall_blind_cases.py``: the rule that should report, ``# <-`` on the
line of the problem (every line where it is: both calls of a static argument that
cannot be hashed). Rebuilt during issue 19; measured at 58dcb14 to check that the
rewrite agrees with the table: 31 of 34 there and here, the same three missed (8, 22, 28).
"""
from __future__ import annotations

from recall_blind_cases import Case

EARLIER_CASES: list[Case] = [
    Case("1-jax-22098", "https://github.com/jax-ml/jax/pull/22098", "JAX105", """
        import jax

        @jax.jit
        def f(flag):
            if True and flag:  # <-
                return 1
            return 0
        """),
    Case("2-jax-16430", "https://github.com/jax-ml/jax/pull/16430", "JAX105", """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def scale(x, factor):
            factor = factor or 1.0  # <-
            return x * factor
        """),
    Case("3-jax-2777", "https://github.com/jax-ml/jax/issues/2777", "JAX102", """
        import functools
        import jax
        import jax.numpy as jnp

        @jax.jit
        def mix(key, a, b):
            key, sub = jax.random.split(key)
            g = jax.random.uniform(sub, a.shape)
            return key, 0.5 * (a + g * a + (1 - g) * b), 0.5 * (b + g * a + (1 - g) * b)

        @functools.partial(jax.jit, static_argnums=1)
        def sample(key, n):
            a = jnp.ones((8, 2))
            b = jnp.zeros((8, 2))
            for _ in range(n):  # <-
                key, a, b = mix(key, a, b)
            return a
        """),
    Case("4-jax-16278", "https://github.com/jax-ml/jax/issues/16278", "JAX101", """
        import jax
        import jax.numpy as jnp
        import numpy as np

        bigmat = jnp.array(np.random.random((1000, 800, 900)))  # <-

        def apply(x, mat):
            return jnp.sum(mat[0] @ x)

        x = jnp.ones(900)
        out = jax.jit(lambda y: apply(y, bigmat))(x)  # <-
        """),
    Case("5-jax-5071", "https://github.com/jax-ml/jax/issues/5071", "JAX101", """
        import jax
        import jax.numpy as jnp
        import numpy as np

        A = np.ones((5000, 5000))  # <-
        A = jnp.asarray(A)  # <-

        @jax.jit
        def project(x):
            return A @ x  # <-
        """),
    Case("6-jax-282", "https://github.com/jax-ml/jax/issues/282", "JAX103", """
        import jax
        import jax.numpy as jnp

        big = jnp.ones((16384, 16384))

        def run(xs):
            out = []
            for x in xs:
                def step(v):
                    return big @ v
                out.append(jax.jit(step)(x))  # <-
            return out
        """),
    Case("7-jax-4312", "https://github.com/jax-ml/jax/pull/4312", "JAX107", """
        import jax
        from jax import random

        key = random.PRNGKey(0)

        @jax.jit
        def init():
            global key
            key, subkey = random.split(key)  # <-
            return random.normal(subkey, ())
        """),
    Case("8-jax-13022", "https://github.com/jax-ml/jax/pull/13022", "JAX107", """
        import jax
        import jax.numpy as jnp

        class Holder:
            def __init__(self, table):
                self.table = table

        holder = Holder({})

        def sketch(x):
            holder.table["hi"] = [lambda: x]  # <-
            return x

        out = jax.vmap(sketch)(jnp.arange(3))
        """),
    Case("9-jax-3654", "https://github.com/jax-ml/jax/issues/3654", "JAX111", """
        import jax

        @jax.jit
        def encode(labels, n_classes):
            return jax.nn.one_hot(labels, n_classes)  # <-
        """),
    Case("10-jax-6233", "https://github.com/jax-ml/jax/issues/6233", "JAX108", """
        import jax
        import jax.numpy as jnp

        def span(x):
            return jnp.arange(-x, x)

        span_jit = jax.jit(span, static_argnums=0)

        def main():
            n = jnp.add(4, 1)
            return span_jit(n)  # <-
        """),
    Case("11-jax-883", "https://github.com/jax-ml/jax/issues/883", "JAX108", """
        from functools import partial
        import jax
        import jax.numpy as jnp

        @partial(jax.jit, static_argnums=(1,))
        def f(x, v):
            return x

        def main():
            x = jnp.ones((10, 10))
            v = jnp.array([1, 2, 3])
            f(x, v)  # <-
            return f(x, v)  # <-
        """),
    Case("12-flax-2410", "https://github.com/google/flax/issues/2410", "JAX108", """
        import jax

        def main():
            return jax.jit(lambda x: x + 1, static_argnums=(0,))(jax.numpy.array([0, 1]))  # <-
        """),
    Case("13-jax-2813", "https://github.com/jax-ml/jax/issues/2813", "JAX108", """
        import jax

        def g(x, y):
            return x + y[0]

        f = jax.jit(g, static_argnums=(1,))

        def main():
            f(1, [2, 3])  # <-
            return f(1, [2, 3])  # <-
        """),
    Case("14-jax-2287", "https://github.com/jax-ml/jax/issues/2287", "JAX110", """
        import jax.numpy as jnp

        def simulate(n, dt):
            xs = jnp.zeros(n)
            x, v = 1.5, 0.0
            for i in range(n):
                x = x + v * dt
                v = v - 39.4 * jnp.sin(x) * dt
                xs.at[i].set(x)  # <-
            return xs
        """),
    Case("15-jax-7783", "https://github.com/jax-ml/jax/pull/7783", "JAX110", """
        import jax

        @jax.jit
        def put(a, idx, b):
            a.at[idx].set(b)  # <-
            return a
        """),
    Case("16-jax-21994", "https://github.com/jax-ml/jax/issues/21994", "JAX111", """
        import jax

        @jax.jit
        def clip_small(x):
            return x.at[x < 5].set(0)  # <-
        """),
    Case("17-jax-4471", "https://github.com/jax-ml/jax/issues/4471", "JAX111", """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def positives(x):
            mask = x > 0
            return x[mask]  # <-
        """),
    Case("18-spu-148", "https://github.com/secretflow/spu/issues/148", "JAX111", """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def update_centers(X, labels, k):
            return jnp.stack([jnp.mean(X[labels == j], axis=0) for j in range(3)])  # <-
        """),
    Case("19-jax-4418", "https://github.com/jax-ml/jax/issues/4418", "JAX111", """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def where_positive(x):
            return jnp.where(x > 0)  # <-
        """),
    Case("20-jax-5280", "https://github.com/jax-ml/jax/issues/5280", "JAX111", """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def example(a):
            return jnp.nonzero(a)  # <-
        """),
    Case("21-jax-5186", "https://github.com/jax-ml/jax/issues/5186", "JAX111", """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def aperture(plane, radius):
            r = jnp.hypot(*jnp.meshgrid(jnp.arange(4.0), jnp.arange(4.0)))
            return plane.at[r < radius].set(0.0)  # <-
        """),
    Case("22-numpyro-853", "https://github.com/pyro-ppl/numpyro/issues/853", "JAX111", """
        import jax.numpy as jnp
        import numpyro
        import numpyro.distributions as dist
        from numpyro.infer import MCMC, NUTS

        def model(groups, y):
            n_groups = jnp.unique(groups).size  # <-
            with numpyro.plate("groups", n_groups):
                mu = numpyro.sample("mu", dist.Normal(0.0, 1.0))
            numpyro.sample("y", dist.Normal(mu[groups], 1.0), obs=y)

        def run(key, groups, y):
            mcmc = MCMC(NUTS(model), num_warmup=100, num_samples=100)
            mcmc.run(key, groups, y)
            return mcmc
        """),
    Case("23-jax-2009", "https://github.com/jax-ml/jax/issues/2009", "JAX114", """
        import jax

        def main():
            key = jax.random.PRNGKey(0)
            a = jax.random.uniform(key, (10, 10))  # <-
            b = jax.random.uniform(key, (10, 10))  # <-
            return a, b
        """),
    Case("24-tf-jax-tutorials-4", "https://github.com/AakashKumarNain/TF_JAX_tutorials/issues/4", "JAX114", """
        from jax import random

        def rotations(key, batch_size):
            key, subkey = random.split(key)
            rotate = random.randint(key, shape=[batch_size], minval=0, maxval=2)  # <-
            key, subkey = random.split(key)  # <-
            return rotate, subkey
        """),
    Case("25-blackjax-53", "https://github.com/blackjax-devs/blackjax/issues/53", "JAX114", """
        import jax

        def f(rng_key):
            u = jax.random.normal(rng_key)  # <-
            rng_key, _ = jax.random.split(rng_key, 2)  # <-
            v = jax.random.normal(rng_key)
            return u, v
        """),
    Case("26-jax-196", "https://github.com/jax-ml/jax/issues/196", "JAX106", """
        import jax

        @jax.jit
        def update(i, params, batch):
            print("params", params)  # <-
            return params - 0.1 * batch
        """),
    Case("27-jax-1476", "https://github.com/jax-ml/jax/issues/1476", "JAX106", """
        import jax
        import jax.numpy as jnp

        def elbo(rng, mean):
            sample = mean + jax.random.normal(rng, mean.shape)
            print(sample)  # <-
            return jnp.sum(sample)

        def batch_elbo(rngs, mean):
            return jnp.mean(jax.vmap(elbo, in_axes=(0, None))(rngs, mean))
        """),
    Case("28-tinygp-85", "https://github.com/dfm/tinygp/issues/85", "JAX104", """
        import jax
        import jax.numpy as jnp
        import numpy as np

        @jax.jit
        def pad_leaves(tree, value):
            return jax.tree_util.tree_map(lambda leaf: np.append(leaf, value), tree)  # <-
        """),
    Case("29-pmwd-9", "https://github.com/eelregit/pmwd/issues/9", "JAX102", """
        import jax
        import jax.numpy as jnp

        def force(pos):
            return -pos

        @jax.jit
        def nbody(pos, vel):
            for step in range(100):  # <-
                vel = vel + 0.01 * force(pos)
                pos = pos + 0.01 * vel
            return pos, vel
        """),
    Case("30-quantecon-lecture-jax-33", "https://github.com/QuantEcon/lecture-jax/issues/33", "JAX102", """
        from functools import partial
        import jax
        import jax.numpy as jnp

        @partial(jax.jit, static_argnums=(1,))
        def simulate(x0, T):
            x = x0
            path = []
            for t in range(T):  # <-
                x = 0.9 * x + 0.1
                path.append(x)
            return jnp.stack(path)
        """),
    Case("31-crackedaicode", "https://crackedaicode.com/problems/jax-compilation-cache-key", "JAX103", """
        import jax

        def apply_scale(x, s):
            return jax.jit(lambda v: v * s)(x)  # <-

        def main(xs):
            return [apply_scale(x, 2.0) for x in xs]
        """),
    Case("32-jax-648", "https://github.com/jax-ml/jax/issues/648", "JAX111", """
        import jax
        from jax import random

        @jax.jit
        def draw(key, n):
            return random.randint(key, (n,), 0, 10)  # <-
        """),
    Case("33-jax-7336", "https://github.com/jax-ml/jax/issues/7336", "JAX112", """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def precise_mean(x):
            return jnp.mean(x.astype("float64"), axis=0).astype(x.dtype)  # <-
        """),
    Case("34-flax-2410-key", "https://github.com/google/flax/issues/2410", "JAX108", """
        import jax

        def train_step(rng, batch):
            return batch * 2

        step = jax.jit(train_step, static_argnums=(0,))

        def main(batch):
            rng = jax.random.PRNGKey(42)
            return step(rng, batch)  # <-
        """),
]
