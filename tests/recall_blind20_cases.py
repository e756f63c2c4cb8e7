"""Blind recall cases, twentieth round (issue 36, sealed before jaxlint ran on any of them):
one small program per public bug fix or bug report in a JAX repository, written in our own words
from the pattern the fix removed or the report shows (never the repository's code).

The pool: the git histories of JAX repositories that no earlier round read, some already mirrored here
and some fetched for this round on 2026-12-07 with the search tool's ``fetch``, checked before reading
by URL and by repository name against ``benchmarks/recall_reports.md``, every ``recall_blind*_cases.py``
and ``test_recall_blind.py``, and GitHub issue threads found with the search tool's ``issues`` corpus
that no earlier round used (checked by URL). The histories were searched by commit subject (a key or
rng, split, seed, tracer, concretization, recompiles, static arguments, donation, "jittable", "fix") and
by diff (small commits adding a ``random.split``, ``lax.cond``, ``block_until_ready`` or static
arguments): a reading aid for finding commits, not a criterion. A commit whose message says it fixes
such a pitfall (or whose diff shows nothing else) and whose diff shows the pattern in the repository's
own code is a case: the code before the fix. A thread is a case when it reports, with the reporter's
code, a problem a rule's page claims. The address is the commit or the thread on the repository's
public GitHub. At most three cases come from one repository. Ten cases from seven repositories were
found in the time the round had (the brief aimed at twenty): three from secon_bvar_jax, two from
ReAct_Jax, one each from fea-in-jax, bonsai, enn and S5, and one jax thread. Six of them come from
repositories in the precision corpus ``blind53`` (secon_bvar_jax, ReAct_Jax, fea-in-jax: their current
code judged, their histories' fixes read by nobody). The round was *sealed*: the file was
written and committed on its own before jaxlint was run on any of the cases, by an engineer who changes
no rule; the commit is the proof that the cases predate the measurement.

Each case names the rule that should report it (chosen from the diff, the commit message or the
thread) and marks the problem's line (or lines) with ``# <-``, in the same ``Case`` form as
``recall_blind_cases.py``. A case is *found* when that rule reports on a marked line. The verdicts
are in ``benchmarks/recall_reports.md`` ("Blind recall, twentieth round"); the measurement is
``tests/test_recall_blind.py``.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from recall_blind_cases import Case  # noqa: E402

CASES20: list[Case] = [
    # ------------------------------------------------------------------ JAX105 traced control flow
    Case("secon-bvar-b1cb216",
         "https://github.com/agonzago/secon_bvar_jax/commit/b1cb216a81193c93233ba2ecae097d80e12f994f", "JAX105", """
        import jax
        import jax.numpy as jnp


        def autocovariances(phi, sigma, order):
            gammas = [sigma]
            for _ in range(1, order):
                gammas.append(phi @ gammas[-1] @ phi.T)
            return gammas


        def initial_covariance(gammas, n_trends, n_stat, order, scaling=1.0):
            total = n_stat * order
            cov = jnp.eye(n_trends + total)
            valid = (
                gammas is not None
                and len(gammas) == order
                and all(g.shape == (n_stat, n_stat) and jnp.all(jnp.isfinite(g)) for g in gammas)  # <-
            )
            if n_stat > 0 and order > 0 and valid:
                block = jnp.zeros((total, total))
                for r in range(order):
                    for c in range(order):
                        blk = gammas[abs(r - c)] * scaling
                        if r > c:
                            blk = blk.T
                        block = block.at[r * n_stat:(r + 1) * n_stat, c * n_stat:(c + 1) * n_stat].set(blk)
                cov = cov.at[n_trends:, n_trends:].set(block)
            return cov


        def log_density(params, data):
            phi = jnp.tanh(params["phi"]) * jnp.eye(2)
            sigma = jnp.exp(params["log_sigma"]) * jnp.eye(2)
            p0 = initial_covariance(autocovariances(phi, sigma, 2), n_trends=1, n_stat=2, order=2)
            return -0.5 * jnp.sum(data ** 2) / jnp.trace(p0)


        def main():
            params = {"phi": jnp.array(0.3), "log_sigma": jnp.array(0.0)}
            return jax.jit(log_density)(params, jnp.ones(5))
        """),
    Case("react-jax-90cb7a0",
         "https://github.com/neel04/ReAct_Jax/commit/90cb7a05092ef6919ca388c2ed05327d809d42c7", "JAX105", """
        import jax
        import jax.numpy as jnp


        def block_apply(w, x, ctx):
            return jnp.tanh(x @ w + ctx)


        def recurrent(ws, x, ctx):
            def body(carry, w):
                x, idx = carry
                x = jax.lax.cond(idx == 0 or idx == 2,  # <-
                                 lambda: block_apply(w, x, ctx),
                                 lambda: block_apply(w, x, x))
                return (x, idx + 1), x

            (out, _), history = jax.lax.scan(body, (x, 0), ws)
            return out, history.mean(0)


        def main():
            ws = jax.random.normal(jax.random.key(0), (4, 8, 8)) * 0.1
            return jax.jit(recurrent)(ws, jnp.ones((5, 8)), jnp.zeros((5, 8)))
        """),
    # ------------------------------------------------------------------ JAX108 static-arg hazard
    Case("fea-in-jax-b13c1a3",
         "https://github.com/KeithBallard/fea-in-jax/commit/b13c1a33a6916f70e2fd9513fd7e7e622bc508f7", "JAX108", """
        import jax
        import jax.numpy as jnp
        import numpy as np
        from flax import struct


        @struct.dataclass
        class ElementBatchCollection:
            D: int = struct.field(pytree_node=False)
            B: int = struct.field(pytree_node=False)
            E: np.ndarray = struct.field(pytree_node=False)  # <-
            N: np.ndarray = struct.field(pytree_node=False)  # <-
            x: jnp.ndarray
            connectivity: jnp.ndarray


        def make_batches(coords, connectivities):
            return ElementBatchCollection(
                D=coords.shape[1],
                B=len(connectivities),
                E=np.array([c.shape[0] for c in connectivities], dtype=np.int64),  # <-
                N=np.array([c.shape[1] for c in connectivities], dtype=np.int64),  # <-
                x=jnp.asarray(coords).ravel(),
                connectivity=jnp.concatenate([jnp.asarray(c).ravel() for c in connectivities]),
            )


        @jax.jit
        def element_lengths(batches):
            x = batches.x.reshape(-1, batches.D)
            out, start = [], 0
            for b in range(batches.B):
                n_elems, n_nodes = int(batches.E[b]), int(batches.N[b])
                conn = batches.connectivity[start:start + n_elems * n_nodes].reshape(n_elems, n_nodes)
                nodes = x[conn]
                out.append(jnp.linalg.norm(nodes[:, -1] - nodes[:, 0], axis=-1))
                start += n_elems * n_nodes
            return jnp.concatenate(out)


        def solve(coords, connectivities):
            return element_lengths(make_batches(coords, connectivities)).sum()


        def main():
            coords = np.linspace(0.0, 1.0, 7)[:, None]
            linear = np.stack([np.arange(4), np.arange(1, 5)], axis=1)
            quadratic = np.array([[4, 5, 6]])
            first = solve(coords, [linear, quadratic])
            second = solve(coords, [linear, quadratic])
            return first, second
        """),
    # ------------------------------------------------------------------ JAX111 data-dependent shape
    Case("secon-bvar-8b27e20",
         "https://github.com/agonzago/secon_bvar_jax/commit/8b27e20b6e62c44319256d3848a5b788be5e3850", "JAX111", """
        import jax
        import jax.numpy as jnp


        def initial_covariance(gammas, valid, n_trends, n_stat, order, fallback_scale=4.0):
            cov = jnp.eye(n_trends + n_stat * order)

            def from_gammas(operands):
                cov_in, gammas_in, n_stat_in, order_in = operands
                total = n_stat_in * order_in
                block = jnp.zeros((total, total))  # <-
                for r in range(order):
                    for c in range(order):
                        blk = gammas_in[abs(r - c)]
                        block = block.at[r * n_stat:(r + 1) * n_stat, c * n_stat:(c + 1) * n_stat].set(blk)
                return cov_in.at[n_trends:, n_trends:].set(block)

            def fallback(operands):
                cov_in, _, n_stat_in, order_in = operands
                total = n_stat_in * order_in
                return cov_in.at[n_trends:, n_trends:].set(jnp.eye(total) * fallback_scale)  # <-

            return jax.lax.cond(valid, from_gammas, fallback, (cov, gammas, n_stat, order))


        def main():
            gammas = [jnp.eye(2), 0.5 * jnp.eye(2)]
            valid = jnp.all(jnp.isfinite(jnp.stack(gammas)))
            return initial_covariance(gammas, valid, n_trends=1, n_stat=2, order=2)
        """),
    Case("secon-bvar-25ac8b9",
         "https://github.com/agonzago/secon_bvar_jax/commit/25ac8b9fae7f5086a860236c7502e4dd51f405eb", "JAX111", """
        import jax
        import jax.numpy as jnp


        def initial_covariance(gammas, valid, n_trends, n_stat, order, fallback_scale=4.0):
            state_dim = n_trends + n_stat * order
            total = n_stat * order
            cov = jnp.eye(state_dim)

            def from_gammas(operands):
                cov_in, gammas_in, start = operands
                block = jnp.zeros((total, total))
                for r in range(order):
                    for c in range(order):
                        blk = gammas_in[abs(r - c)]
                        block = block.at[r * n_stat:(r + 1) * n_stat, c * n_stat:(c + 1) * n_stat].set(blk)
                return cov_in.at[start:start + total, start:start + total].set(block)  # <-

            def fallback(operands):
                cov_in, _, start = operands
                return cov_in.at[start:start + total, start:start + total].set(jnp.eye(total) * fallback_scale)  # <-

            return jax.lax.cond(valid, from_gammas, fallback, (cov, gammas, n_trends))


        def main():
            gammas = [jnp.eye(2), 0.5 * jnp.eye(2)]
            valid = jnp.all(jnp.isfinite(jnp.stack(gammas)))
            return initial_covariance(gammas, valid, n_trends=1, n_stat=2, order=2)
        """),
    # ------------------------------------------------------------------ JAX113 donation misuse
    Case("bonsai-b33c507",
         "https://github.com/jax-ml/bonsai/commit/b33c50713a0a080b8e890ee60591a24b84508acf", "JAX113", """
        import time
        from functools import partial

        import jax
        import jax.numpy as jnp


        def forward(params, state, x):
            h = jnp.tanh(params["embed"][x] + state["cache"])
            return h @ params["out"], {"cache": state["cache"] * 0.9 + 0.1 * h}


        def generate(params, init_state, tokens, steps=4, mask_id=0, temperature=0.2):
            rng = jax.random.key(0)

            def _do_step(x, state, rng, i, *, remasking):
                logits, state_next = forward(params, state, x)
                rng, sub = jax.random.split(rng)
                noisy = logits + temperature * jax.random.gumbel(sub, logits.shape)
                x0 = jnp.argmax(noisy, axis=-1)
                if remasking == "low_confidence":
                    conf = jnp.max(jax.nn.softmax(logits, axis=-1), axis=-1)
                else:
                    rng, sub = jax.random.split(rng)
                    conf = jax.random.uniform(sub, x0.shape)
                keep = conf > jnp.quantile(conf, 0.5)
                return jnp.where((x == mask_id) & keep, x0, x), state_next, rng

            do_step = partial(_do_step, remasking="low_confidence")
            do_step_jit = jax.jit(do_step, donate_argnames=["state"])

            state = init_state
            x = tokens
            x_w, state_w, rng = do_step_jit(x, state, rng, jnp.int32(0))
            x_w.block_until_ready()

            step_times = []
            for i in range(steps):
                t0 = time.perf_counter()
                x, state, rng = do_step_jit(x, state, rng, jnp.int32(i))  # <-
                x.block_until_ready()
                step_times.append(time.perf_counter() - t0)
            return x, state, step_times


        def main():
            params = {"embed": jnp.ones((16, 8)), "out": jnp.ones((8, 16))}
            state = {"cache": jnp.zeros((2, 6, 8))}
            tokens = jnp.zeros((2, 6), dtype=jnp.int32)
            return generate(params, state, tokens)
        """),
    # ------------------------------------------------------------------ JAX114 PRNG key reuse
    Case("react-jax-17c0f54",
         "https://github.com/neel04/ReAct_Jax/commit/17c0f543a6ce8248588a9f40f2b63838561b69b7", "JAX114", """
        import equinox as eqx
        import jax
        import jax.numpy as jnp


        class MLP(eqx.Module):
            layer: eqx.nn.Linear
            dropout: eqx.nn.Dropout

            def __init__(self, dim, p, key):
                self.layer = eqx.nn.Linear(dim, dim, key=key)
                self.dropout = eqx.nn.Dropout(p)

            def __call__(self, x, key):
                return self.dropout(jax.vmap(self.layer)(x), key=key, inference=False)


        class SelfAttention(eqx.Module):
            qkv: eqx.nn.Linear
            dropout: eqx.nn.Dropout

            def __init__(self, dim, p, key):
                self.qkv = eqx.nn.Linear(dim, 3 * dim, key=key)
                self.dropout = eqx.nn.Dropout(p)

            def __call__(self, x, key):
                q, k, v = jnp.split(jax.vmap(self.qkv)(x), 3, axis=-1)
                weights = jax.nn.softmax(q @ k.T / jnp.sqrt(q.shape[-1]), axis=-1)
                return self.dropout(weights @ v, key=key, inference=False)


        class AttentionBlock(eqx.Module):
            attn: SelfAttention
            mlp: MLP

            def __init__(self, dim, p, key):
                k1, k2 = jax.random.split(key)
                self.attn = SelfAttention(dim, p, k1)
                self.mlp = MLP(dim, p, k2)

            def __call__(self, x, key):
                x = x + self.attn(x, key=key)  # <-
                x = x + self.mlp(x, key=key)  # <-
                return x


        def main():
            block = AttentionBlock(8, 0.5, jax.random.key(0))
            return eqx.filter_jit(block)(jnp.ones((6, 8)), jax.random.key(1))
        """),
    Case("enn-da821c5",
         "https://github.com/google-deepmind/enn/commit/da821c5336e4a93afdbecb0f1cc0b695151c4390", "JAX114", """
        import flax.linen as nn
        import jax
        import jax.numpy as jnp


        class MLPDropout(nn.Module):
            output_sizes: tuple
            dropout_rate: float = 0.05

            @nn.compact
            def __call__(self, inputs, z):
                x = inputs.reshape(inputs.shape[0], -1)
                for layer_index, size in enumerate(self.output_sizes):
                    x = nn.Dense(size)(x)
                    x = nn.Dropout(self.dropout_rate, deterministic=False)(x, rng=z)  # <-
                    if layer_index < len(self.output_sizes) - 1:
                        x = nn.relu(x)
                return x


        def main():
            net = MLPDropout((16, 16, 1), dropout_rate=0.5)
            x = jnp.ones((4, 3))
            params = net.init(jax.random.key(0), x, jax.random.key(1))
            apply = jax.jit(net.apply)
            return [apply(params, x, z) for z in jax.random.split(jax.random.key(2), 3)]
        """),
    # ------------------------------------------------------------------ JAX115 timing without sync
    Case("jax-1219",
         "https://github.com/jax-ml/jax/issues/1219", "JAX115", """
        import time

        from jax import jit
        from jax import numpy


        def main():
            a = numpy.ones((1000000,)) * 3
            b = numpy.ones((1000000,)) * 5
            f = jit(numpy.multiply)
            times = []
            for _ in range(10):
                start = time.time()
                f(a, b)
                times.append(time.time() - start)  # <-
            return times
        """),
    Case("s5-60dcef1",
         "https://github.com/lindermanlab/S5/commit/60dcef142f952130c1b65f71887e3d861ef1606a", "JAX115", """
        from functools import partial
        from timeit import default_timer as dt

        import flax.linen as nn
        import jax
        import jax.numpy as jnp
        import numpy as np
        import optax
        from flax.training import train_state


        class Classifier(nn.Module):
            training: bool = True

            @nn.compact
            def __call__(self, x):
                x = nn.Dense(64)(x)
                x = nn.Dropout(0.1, deterministic=not self.training)(nn.gelu(x))
                return nn.Dense(10)(x.mean(axis=1))


        @partial(jax.jit, static_argnums=(4,))
        def train_step(state, rng, inputs, labels, model):
            def loss_fn(params):
                logits = model.apply({"params": params}, inputs, rngs={"dropout": rng})
                return optax.softmax_cross_entropy_with_integer_labels(logits, labels).mean()

            loss, grads = jax.value_and_grad(loss_fn)(state.params)
            return state.apply_gradients(grads=grads), loss


        def train_epoch(state, rng, model, trainloader):
            batch_losses, times = [], []
            for inputs, labels in trainloader:
                rng, drop_rng = jax.random.split(rng)
                st = dt()
                state, loss = train_step(state, drop_rng, inputs, labels, model)
                times.append(dt() - st)  # <-
                batch_losses.append(loss)
            return state, np.mean(np.array(batch_losses)), np.sum(np.asarray(times))


        def main():
            model = Classifier(training=True)
            x = jnp.ones((32, 128, 16))
            params = model.init({"params": jax.random.key(0), "dropout": jax.random.key(1)}, x)["params"]
            state = train_state.TrainState.create(apply_fn=model.apply, params=params, tx=optax.adam(1e-3))
            loader = [(x, jnp.zeros(32, dtype=jnp.int32))] * 5
            return train_epoch(state, jax.random.key(2), model, loader)
        """),
]
