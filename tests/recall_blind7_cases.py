"""Blind recall cases, seventh round (issue 36): one small program per public bug report,
question, pull request or page about a JAX pitfall that a static rule's documentation
claims, written in our own words from the report's pattern (never the report's code).

None of these threads is among the 34 earlier cases or the blind cases of the first six
rounds in ``benchmarks/recall_reports.md`` (checked by URL, and by repository and number;
``tests/test_recall_blind.py`` checks the URLs). They were found with the ``search``
tool's ``issues`` and ``pages`` corpora. This round was *sealed*: the file was written and
committed on its own before jaxlint was run on any of the cases, and before the session's
rule and model changes for issue 36 landed; the commit is the proof that the cases predate
the measurement.

Each case names the rule that should report it and marks the problem's line (or lines)
with ``# <-``, in the same ``Case`` form as ``recall_blind_cases.py``. A case is *found*
when that rule reports on a marked line. The verdicts are in
``benchmarks/recall_reports.md`` ("Blind recall, seventh round"); the measurement is
``tests/test_recall_blind.py``.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from recall_blind_cases import Case  # noqa: E402

CASES7: list[Case] = [
    # ------------------------------------------------------------------ JAX101 captured array
    Case("jax-12719", "https://github.com/jax-ml/jax/issues/12719", "JAX101", """
        import jax
        import jax.numpy as jnp
        import numpy as np

        def leak_once(v):
            table = np.random.rand(4096, 4096).astype(np.float32)  # <-

            def branchy(x):
                return jax.lax.cond(x[0] > 0, lambda y: table @ y, lambda y: y, x)  # <-

            compiled = jax.jit(branchy)
            return compiled(v)

        def main():
            return [leak_once(jnp.ones(4096)) for _ in range(10)]
        """),
    # ------------------------------------------------------------------ JAX102 python loop
    Case("d2l-2366", "https://github.com/d2l-ai/d2l-en/pull/2366", "JAX102", """
        import jax
        import jax.numpy as jnp
        import flax.linen as nn

        class LSTMScratch(nn.Module):
            num_inputs: int
            num_hiddens: int

            @nn.compact
            def __call__(self, inputs, state=None):
                init = nn.initializers.normal(0.01)
                w_x = self.param("w_x", init, (self.num_inputs, 4 * self.num_hiddens))
                w_h = self.param("w_h", init, (self.num_hiddens, 4 * self.num_hiddens))
                b = self.param("b", nn.initializers.zeros, (4 * self.num_hiddens,))
                if state is None:
                    h = jnp.zeros((inputs.shape[1], self.num_hiddens))
                    c = jnp.zeros((inputs.shape[1], self.num_hiddens))
                else:
                    h, c = state
                outputs = []
                for x_t in inputs:  # <-
                    gates = x_t @ w_x + h @ w_h + b
                    i, f, o, g = jnp.split(gates, 4, axis=-1)
                    c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
                    h = jax.nn.sigmoid(o) * jnp.tanh(c)
                    outputs.append(h)
                return jnp.stack(outputs), (h, c)

        model = LSTMScratch(num_inputs=28, num_hiddens=32)

        @jax.jit
        def loss(params, xs):
            out, _ = model.apply(params, xs)
            return jnp.mean(out ** 2)

        def main():
            xs = jnp.ones((500, 16, 28))
            params = model.init(jax.random.key(0), xs)
            return jax.grad(loss)(params, xs)
        """),
    Case("theneuralbase-what-jit-compiles", "https://theneuralbase.com/jax/learn/beginner/what-jit-compiles-xla-computation/",
         "JAX102", """
        import jax
        import jax.numpy as jnp

        def accumulate_sines(x):
            total = 0.0
            for _ in range(1000):  # <-
                total = total + jnp.sin(x) * 0.001
            return total

        fast = jax.jit(accumulate_sines)

        def main():
            return fast(jnp.array(3.14))
        """),
    # ------------------------------------------------------------------ JAX104 numpy on tracer
    Case("desc-1334", "https://github.com/PlasmaControl/DESC/issues/1334", "JAX104", """
        import jax
        import jax.numpy as jnp
        import numpy as np
        from jax.tree_util import register_pytree_node_class

        @register_pytree_node_class
        class Basis:
            def __init__(self, modes):
                self.modes = modes

            def tree_flatten(self):
                return (self.modes,), None

            @classmethod
            def tree_unflatten(cls, aux, children):
                return cls(*children)

        def check_fft_inputs(basis):
            order = np.lexsort((basis.modes[:, 1], basis.modes[:, 0], basis.modes[:, 2]))  # <-
            return basis.modes[order]

        @jax.jit
        def compute_scaled_error(coeffs, basis):
            modes = check_fft_inputs(basis)
            return jnp.sum(coeffs * modes[:, 0])

        def main():
            return compute_scaled_error(jnp.ones(6), Basis(jnp.arange(18).reshape(6, 3)))
        """),
    Case("netket-908", "https://github.com/netket/netket/issues/908", "JAX104", """
        import jax
        import numpy as np
        import optax

        ETA = 0.05
        RESTART = 100

        def warm_restarts(step):
            return (1 + np.cos(np.pi * (step % RESTART) / RESTART)) * ETA  # <-

        optimizer = optax.sgd(warm_restarts)

        @jax.jit
        def update(params, grads, opt_state):
            updates, opt_state = optimizer.update(grads, opt_state, params)
            return optax.apply_updates(params, updates), opt_state

        def run(params, grads, n_steps):
            opt_state = optimizer.init(params)
            for _ in range(n_steps):
                params, opt_state = update(params, grads, opt_state)
            return params
        """),
    # ------------------------------------------------------------------ JAX105 traced control flow
    Case("flax-4146", "https://github.com/google/flax/issues/4146", "JAX105", """
        from functools import partial

        import jax.numpy as jnp
        from flax import nnx

        @partial(nnx.jit, static_argnames=("shift",))
        def maybe_shift(x, shift):
            if shift:  # <-
                return x + 1
            return x

        def main():
            return maybe_shift(jnp.array(1), True)
        """),
    Case("lagrangian-nns-7", "https://github.com/MilesCranmer/lagrangian_nns/issues/7", "JAX105", """
        import jax.numpy as jnp
        from jax.experimental.ode import odeint

        def pendulum_rhs(state, t, m1=1.0, m2=1.0, l1=1.0, l2=1.0, g=9.8):
            t1, t2, w1, w2 = state
            if t > 1.5:  # <-
                target = t1
            else:
                target = t2
            a1 = -g / l1 * jnp.sin(t1) - (target - t1)
            a2 = -g / l2 * jnp.sin(t2)
            return jnp.stack([w1, w2, a1, a2])

        def solve(state0):
            times = jnp.linspace(0.0, 3.0, 301)
            return odeint(pendulum_rhs, state0, times)

        def main():
            return solve(jnp.array([0.5, 0.2, 0.0, 0.0]))
        """),
    Case("ott-3", "https://github.com/ott-jax/ott/issues/3", "JAX105", """
        import jax
        import jax.numpy as jnp
        from ott.geometry import pointcloud
        from ott.solvers.linear import sinkhorn

        def ot_cost(x, y):
            geom = pointcloud.PointCloud(x, y, epsilon=0.1)
            out = sinkhorn.Sinkhorn()(geom)
            if out.errors[-1] < 1 and out.converged:  # <-
                return out.reg_ot_cost
            return jnp.nan

        cost_jit = jax.jit(ot_cost)

        def main():
            return cost_jit(jnp.ones((8, 2)), jnp.zeros((9, 2)))
        """),
    # ------------------------------------------------------------------ JAX107 tracer leak
    Case("jaxley-74", "https://github.com/jaxleyverse/jaxley/issues/74", "JAX107", """
        import jax
        import jax.numpy as jnp
        import jaxley as jx

        network = jx.load_network("mnist_net.swc")
        stimuli = jx.Stimuli.for_network(network)

        def simulate(params, image):
            current = jnp.zeros((199, 784))
            current = current.at[80:, :].set(image / 255.0)
            stims = stimuli.set_currents(current)  # <-
            return jx.integrate(network, params=params, stimuli=stims)

        jitted_sim = jax.jit(jax.vmap(simulate, in_axes=(None, 0)))

        def loss(params, image, label):
            trace = simulate(params, image)
            return jnp.abs(trace[0, -1] - label)

        def main(params, images, labels):
            jitted_sim(params, images[:20])
            return jax.vmap(loss, in_axes=(None, 0, 0))(params, images[:20], labels[:20])
        """),
    Case("pax-26", "https://github.com/ucl-dark/pax/pull/26", "JAX107", """
        import jax
        import jax.numpy as jnp

        class PolicyGradientAgent:
            def __init__(self, lr):
                self.lr = lr
                self.metrics = {}

            def update(self, params, rewards):
                loss = -jnp.mean(rewards) * jnp.sum(params)
                self.metrics["loss"] = loss  # <-
                self.metrics["mean_reward"] = jnp.mean(rewards)  # <-
                return params - self.lr * jnp.sign(params) * loss

        agent2 = PolicyGradientAgent(lr=0.01)

        @jax.jit
        def outer_rollout(params, rewards):
            def outer_step(p, r):
                return agent2.update(p, r), None

            params, _ = jax.lax.scan(outer_step, params, rewards)
            return params

        def train(params, rewards, log):
            params = outer_rollout(params, rewards)
            log(agent2.metrics)
            return params
        """),
    # ------------------------------------------------------------------ JAX108 static argument
    Case("equinox-1089", "https://github.com/patrick-kidger/equinox/issues/1089", "JAX108", """
        import jax
        import equinox as eqx

        class Lookup(eqx.Module):
            nested: dict

            def __call__(self):
                return 1.0

        def merge(params, static):
            return eqx.combine(params, static)()

        def main():
            model = Lookup({0: 0.0})
            arrays, static = eqx.partition(model, eqx.is_array)
            return jax.jit(merge, static_argnames="static")(arrays, static)  # <-
        """),
    Case("optax-197", "https://github.com/google-deepmind/optax/issues/197", "JAX108", """
        import jax
        import jax.numpy as jnp
        import optax

        def loss(p):
            return jnp.square(p - 1.0)

        def inference(tx):
            def one(carry, _):
                p, s = carry
                g = jax.grad(loss)(p)
                u, s = tx.update(g, s, p)
                return (p + u, s), p

            _, path = jax.lax.scan(one, (0.0, tx.init(0.0)), None, 100)
            return path

        def main():
            for _ in range(100):
                tx = optax.adam(0.05)
                jax.jit(inference, static_argnums=0)(tx)  # <-
        """),
    Case("jax-13992", "https://github.com/jax-ml/jax/issues/13992", "JAX108", """
        from functools import partial

        import jax

        class Offset:
            def __init__(self, val):
                self.val = val

            def __hash__(self):
                return hash(self.val)

            def __eq__(self, other):
                return isinstance(other, Offset) and self.val == other.val

        @partial(jax.jit, static_argnums=0)
        def add(v, y):
            return y + v.val

        def main():
            v = Offset(100)
            print(add(v, 1))
            v.val = 0
            print(add(v, 1))
            print(add(v, 1))  # <-
        """),
    Case("jax-9023", "https://github.com/jax-ml/jax/issues/9023", "JAX108", """
        from functools import partial

        import jax

        class Holder:
            @partial(jax.jit, static_argnums=(0,))
            def wrapper(self, x):
                return self.fn(x)

            def assign_fn(self, fn):
                self.fn = fn

        def main():
            h = Holder()
            h.assign_fn(lambda x: x + 1)
            print(h.wrapper(1))
            h.assign_fn(lambda x: x + 2)
            print(h.wrapper(1))  # <-
            print(h.fn(1))
            print(h.wrapper(1))  # <-
        """),
    Case("jax-5609", "https://github.com/jax-ml/jax/issues/5609", "JAX108", """
        from functools import partial

        import jax
        import jax.numpy as jnp

        @jax.jit
        def apply_twice(x, fn):
            return fn(fn(x))  # <-

        @partial(jax.jit, static_argnums=(0,))
        def tile_by(p, x):
            return jnp.tile(x, (p,))

        def main():
            x = jnp.arange(3)
            return apply_twice(x, jax.tree_util.Partial(tile_by, 2))  # <-
        """),
    # ------------------------------------------------------------------ JAX109 host callback
    Case("openscvx-58", "https://github.com/OpenSCvx/OpenSCvx/pull/58", "JAX109", """
        import jax
        import jax.numpy as jnp

        def successive_convexification(z0, tol, max_iters):
            def cond(carry):
                z, k, err = carry
                return (err > tol) & (k < max_iters)

            def body(carry):
                z, k, err = carry
                z_new = z - 0.5 * jnp.tanh(z)
                err = jnp.max(jnp.abs(z_new - z))
                jax.debug.print("iter {k}: err={e}", k=k, e=err)  # <-
                return z_new, k + 1, err

            z, k, err = jax.lax.while_loop(cond, body, (z0, 0, jnp.inf))
            return z

        solve = jax.jit(successive_convexification)

        def main():
            return solve(jnp.ones(64), 1e-6, 500)
        """),
    # ------------------------------------------------------------------ JAX111 data-dependent shape
    Case("jax-3620", "https://github.com/jax-ml/jax/issues/3620", "JAX111", """
        import jax
        import jax.numpy as jnp
        import numpy as np

        def pad_last_dim(array, pad_size):
            ndim = jnp.ndim(array)
            npad = jnp.zeros((ndim, 2), dtype=jnp.int32)
            npad = npad.at[ndim - 1, 1].set(pad_size)
            return jnp.pad(array, npad, "constant", constant_values=0)  # <-

        def main():
            vals = np.random.randn(50, 100)
            return jax.jit(pad_last_dim)(vals, 1)
        """),
    Case("jax-2323", "https://github.com/jax-ml/jax/issues/2323", "JAX111", """
        import jax
        import jax.numpy as jnp
        from jax import lax

        def unpack(batch_sizes, packed, total):
            def body(i, val):
                offset, acc = val
                batch_size = batch_sizes[i]
                batch = lax.dynamic_slice_in_dim(packed, offset, batch_size)  # <-
                return offset + batch_size, acc + jnp.sum(batch)

            return lax.fori_loop(0, batch_sizes.shape[0], body, (0, 0.0))[1]

        def main():
            return unpack(jnp.array([3, 2, 1]), jnp.ones((6, 4)), 6)
        """),
    Case("jax-1007", "https://github.com/jax-ml/jax/issues/1007", "JAX111", """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def sum_first_k(a, k):
            return jnp.sum(jax.lax.dynamic_slice(a, (0,), (k,)))  # <-

        def main():
            return sum_first_k(jnp.arange(3.0), 2)
        """),
    Case("jax-16994", "https://github.com/jax-ml/jax/issues/16994", "JAX111", """
        import jax
        import jax.numpy as jnp
        import numpy as np

        @jax.jit
        def tile_jit(a, reps):
            return jnp.tile(a, reps)  # <-

        def main():
            a = np.zeros((1, 20, 20), dtype=np.float32)
            return tile_jit(a, np.array([64, 1, 1]))
        """),
    # ------------------------------------------------------------------ JAX112 float64
    Case("optax-187", "https://github.com/google-deepmind/optax/pull/187", "JAX112", """
        from typing import NamedTuple

        import jax
        import jax.numpy as jnp
        import optax

        class ApplyEveryState(NamedTuple):
            count: jnp.ndarray
            grad_acc: optax.Updates

        def apply_every(k=1):
            def init_fn(params):
                grad_acc = jax.tree_util.tree_map(jnp.zeros_like, params)
                return ApplyEveryState(count=jnp.zeros([], jnp.int64), grad_acc=grad_acc)  # <-

            def update_fn(updates, state, params=None):
                c = state.count % k
                acc = c != 0
                grad_acc = jax.tree_util.tree_map(lambda g, ga: acc * ga + g, updates, state.grad_acc)
                emit = c == (k - 1)
                updates = jax.tree_util.tree_map(lambda ga: emit * ga, grad_acc)
                return updates, ApplyEveryState(count=(state.count + 1).astype(jnp.int64), grad_acc=grad_acc)  # <-

            return optax.GradientTransformation(init_fn, update_fn)

        tx = optax.chain(optax.sgd(0.1), apply_every(4))

        @jax.jit
        def step(params, grads, state):
            updates, state = tx.update(grads, state, params)
            return optax.apply_updates(params, updates), state

        @jax.jit
        def init(params):
            return tx.init(params)
        """),
    # ------------------------------------------------------------------ JAX114 key reuse
    Case("crackedaicode-prngkey-split", "https://crackedaicode.com/problems/jax-prngkey-and-split", "JAX114", """
        import jax

        def two_draws(seed, n):
            key = jax.random.PRNGKey(int(seed))
            x1 = jax.random.normal(key, (int(n),))
            x2 = jax.random.normal(key, (int(n),))  # <-
            return x1, x2
        """),
]
