"""Blind recall cases, nineteenth round (issue 36, sealed before jaxlint ran on any of them):
one small program per public bug fix or bug report in a JAX repository, written in our own words
from the pattern the fix removed or the report shows (never the repository's code).

The pool: the git histories of JAX repositories that no earlier round used, fetched for this round on
2026-12-07 with the search tool's ``fetch`` (39 repositories, checked before reading by URL and by
repository name against ``benchmarks/recall_reports.md``, every ``recall_blind*_cases.py`` and
``test_recall_blind.py``; one, jaxls, was found named by an earlier round and left unread), and GitHub issue
threads of JAX libraries found with the search tool's ``issues`` corpus that no earlier round used
(checked by URL). The histories were searched by commit subject (a key or rng, split, seed, tracer,
concretization, recompiles, static arguments, "jittable", leaked tracers, "fix"/"bug") and by diff (a
split added where one key was split or drawn from twice, an ``if``/``assert`` removed where a
``jnp.where``/``lax.cond``/``lax.clamp`` was added, a ``jit`` moved out of a loop): a reading aid for
finding commits, not a criterion. A commit whose message says it fixes such a pitfall (or whose diff
shows nothing else) and whose diff shows the pattern in the repository's own code is a case: the code
before the fix. A thread is a case when it reports, with the reporter's code (or a link to the lines),
a problem a rule's page claims. The address is the commit or the thread on the repository's public
GitHub. Thirteen cases from nine repositories were found in the time the round had (the brief aimed at
twenty): four from gwkokab, two threads of flax. Six of the nine repositories are in earlier
precision corpora (``docs/precision.md``): vbjax, jax-fdm and jimgw in ``blind40``, e3x, sax and
gwkokab in ``blind42`` (their current code judged, their histories' fixes read by nobody); flax, gtmp
and blog-benchmark-rwmetropolis are in none. The round was *sealed*: the file was written and committed
on its own before jaxlint was run on any of the cases, by an engineer who changes no rule; the commit is
the proof that the cases predate the measurement.

Each case names the rule that should report it (chosen from the diff, the commit message or the
thread) and marks the problem's line (or lines) with ``# <-``, in the same ``Case`` form as
``recall_blind_cases.py``. A case is *found* when that rule reports on a marked line. The verdicts
are in ``benchmarks/recall_reports.md`` ("Blind recall, nineteenth round"); the measurement is
``tests/test_recall_blind.py``.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from recall_blind_cases import Case  # noqa: E402

CASES19: list[Case] = [
    # ------------------------------------------------------------------ JAX103 jit per call
    Case("gwkokab-65c897f",
         "https://github.com/kokabsc/gwkokab/commit/65c897fcd0d328fead73001d328b8bf0bececf07", "JAX103", """
        import jax
        import jax.numpy as jnp
        import numpy as np


        def variance_of_estimator(weights, log_lik):
            w = jnp.exp(weights)
            return jnp.var(w * jnp.exp(log_lik)) / w.shape[0]


        def batch_and_remainder(x, batch_size):
            n = x.shape[0] // batch_size
            return x[: n * batch_size].reshape(n, batch_size, *x.shape[1:]), x[n * batch_size:]


        def variance_cut(samples, data, threshold):
            def compute_variance(sample):
                log_lik = -0.5 * jnp.sum((data - sample[0]) ** 2 / sample[1] ** 2, axis=-1)
                return variance_of_estimator(jnp.zeros(data.shape[0]), log_lik)

            batched, remainder = batch_and_remainder(samples, batch_size=100)
            mask = None
            for i in range(batched.shape[0]):
                variance = jax.jit(jax.vmap(compute_variance))(batched[i])  # <-
                variance = np.nan_to_num(np.asarray(variance), nan=np.inf)
                keep = variance < threshold
                mask = keep if mask is None else np.concatenate((mask, keep))
            if remainder.shape[0] > 0:
                variance = np.nan_to_num(np.asarray(jax.vmap(compute_variance)(remainder)), nan=np.inf)
                mask = np.concatenate((mask, variance < threshold))
            return samples[mask]


        def main():
            samples = jnp.abs(jax.random.normal(jax.random.key(0), (550, 2))) + 0.5
            data = jax.random.normal(jax.random.key(1), (64, 3))
            return variance_cut(samples, data, threshold=1.0)
        """),
    # ------------------------------------------------------------------ JAX104 numpy on tracer
    Case("gwkokab-371",
         "https://github.com/kokabsc/gwkokab/issues/371", "JAX104", """
        import jax
        import jax.numpy as jnp
        import numpy as np


        class PoissonLikelihood:
            def __init__(self, low, high, time):
                self.low, self.high, self.time = low, high, time

            def exp_rate_integral(self, log_rate_fn):
                n = 1 << 13
                key = jax.random.PRNGKey(np.random.randint(1, 2**32 - 1))  # <-
                samples = jax.random.uniform(key, (n,), minval=self.low, maxval=self.high)
                volume = self.high - self.low
                return self.time * volume * jnp.mean(jnp.exp(log_rate_fn(samples)))

            def log_likelihood(self, x, data):
                log_rate_fn = lambda m: jnp.log(x[0]) + x[1] * jnp.log(m)
                events = jnp.sum(jax.nn.logsumexp(log_rate_fn(data), axis=-1))
                return events - self.exp_rate_integral(log_rate_fn)


        likelihood = PoissonLikelihood(5.0, 80.0, 1.0)


        def main():
            log_density = jax.jit(likelihood.log_likelihood)
            x, data = jnp.array([10.0, -2.3]), jnp.linspace(6.0, 70.0, 40).reshape(4, 10)
            return [log_density(x, data) for _ in range(3)]
        """),
    # ------------------------------------------------------------------ JAX105 traced control flow
    Case("vbjax-2d0e871",
         "https://github.com/ins-amu/vbjax/commit/2d0e871f0358e0b98cf0aa4ad0361c5b26718467", "JAX105", """
        import jax
        import jax.numpy as jnp


        def heun_step(x, drift, dt, *args, noise=0):
            d1 = drift(x, *args)
            if noise:  # <-
                xi = x + dt * d1 + noise
            else:
                xi = x + dt * d1
            d2 = drift(xi, *args)
            if noise:  # <-
                return x + 0.5 * dt * (d1 + d2) + noise
            return x + 0.5 * dt * (d1 + d2)


        def make_sde(dt, drift, sigma):
            sqrt_dt = dt ** 0.5

            def step(x, z, p):
                return heun_step(x, drift, dt, p, noise=sigma * sqrt_dt * z)

            @jax.jit
            def run(x0, zs, p):
                def body(x, z):
                    x = step(x, z, p)
                    return x, x
                return jax.lax.scan(body, x0, zs)[1]

            return run


        def main():
            run = make_sde(0.01, lambda x, p: -p * x, 0.1)
            zs = jax.random.normal(jax.random.key(0), (20, 3))
            return run(jnp.ones(3), zs, 1.0)
        """),
    Case("jax-fdm-27e82c9",
         "https://github.com/arpastrana/jax_fdm/commit/27e82c9d254aef0ad8c9cbf411805c428ed5df63", "JAX105", """
        import jax
        import jax.numpy as jnp


        def distance_sq(u, v):
            return jnp.sum((u - v) ** 2)


        def closest_point_on_segment(point, segment):
            a, b = segment
            ab = b - a
            t = jnp.dot(point - a, ab) / jnp.dot(ab, ab)
            p = a + t * ab
            d = distance_sq(a, b)
            d1 = distance_sq(a, p)
            d2 = distance_sq(b, p)
            if d1 > d or d2 > d:  # <-
                if d1 < d2:
                    return a
                return b
            return p


        @jax.jit
        def segment_goal_loss(xyz, segment):
            targets = jax.vmap(closest_point_on_segment, in_axes=(0, None))(xyz, segment)
            return jnp.sum((xyz - targets) ** 2)


        def main():
            segment = (jnp.array([1.0, 0.0, 0.0]), jnp.array([2.5, 0.0, 0.0]))
            xyz = jnp.array([[2.0, 1.0, 0.0], [-1.0, 0.0, 0.0], [5.0, -1.0, 0.0]])
            return segment_goal_loss(xyz, segment)
        """),
    Case("jim-385ac9d",
         "https://github.com/kazewong/jim/commit/385ac9d11124095921f70a4f63f678ef033b4a01", "JAX105", """
        import jax
        import jax.numpy as jnp

        EPOCH_YEAR = 1970
        YEAR_SECONDS = 31536000
        GPS_EPOCH = 315964800
        LEAP_YEARS = jnp.arange(1972, 2500, 4)


        def utc_date_from_timestamp(timestamp):
            year = timestamp // YEAR_SECONDS + EPOCH_YEAR
            leap_days = jnp.where(LEAP_YEARS < year, 1, 0).sum()
            assert year < 2500, f"dates are supported up to 2500, got {year}"  # <-
            seconds_in_year = timestamp - (year - EPOCH_YEAR) * YEAR_SECONDS - leap_days * 86400
            return year, seconds_in_year


        def greenwich_sidereal_time(gps_time):
            year, seconds = utc_date_from_timestamp(GPS_EPOCH + gps_time.astype(jnp.int32))
            return 2 * jnp.pi * (seconds % 86164) / 86164 + 0.0 * year


        @jax.jit
        def log_likelihood(params, data):
            gmst = greenwich_sidereal_time(params["t_c"] + 1126259642.0)
            model = jnp.cos(params["ra"] - gmst) * jnp.ones_like(data)
            return -0.5 * jnp.sum((data - model) ** 2)


        def main():
            return log_likelihood({"t_c": jnp.array(0.01), "ra": jnp.array(1.0)}, jnp.ones(8))
        """),
    Case("e3x-a08d4e7",
         "https://github.com/google-research/e3x/commit/a08d4e7d0c7d795916bbd9ff889d7155628ee2c7", "JAX105", """
        import jax
        import jax.numpy as jnp


        def random_rotation(key, perturbation=1.0, num=1):
            if not 0.0 <= perturbation <= 1.0:  # <-
                raise ValueError(f"perturbation must be between 0.0 and 1.0, received {perturbation}")
            u = jax.random.uniform(key, shape=(num, 3))
            s1, s2 = jnp.sqrt(1 - u[:, 0]), jnp.sqrt(u[:, 0])
            a1, a2 = 2 * jnp.pi * u[:, 1], 2 * jnp.pi * u[:, 2]
            r, i, j, k = s1 * jnp.sin(a1), s1 * jnp.cos(a1), s2 * jnp.sin(a2), s2 * jnp.cos(a2)
            r = jnp.where(r < 0, -r, r)
            phi = jnp.arccos(jnp.clip(r, -1.0, 1.0))
            sinphi = jnp.where(jnp.abs(jnp.sin(phi)) < 1e-9, 1.0, jnp.sin(phi))
            f1 = jnp.sin((1 - perturbation) * phi) / sinphi
            f2 = jnp.sin(perturbation * phi) / sinphi
            r, i, j, k = f1 + f2 * r, f2 * i, f2 * j, f2 * k
            row1 = jnp.stack((1 - 2 * (j * j + k * k), 2 * (i * j - k * r), 2 * (i * k + j * r)), axis=-1)
            row2 = jnp.stack((2 * (i * j + k * r), 1 - 2 * (i * i + k * k), 2 * (j * k - i * r)), axis=-1)
            row3 = jnp.stack((2 * (i * k - j * r), 2 * (j * k + i * r), 1 - 2 * (i * i + j * j)), axis=-1)
            return jnp.squeeze(jnp.stack((row1, row2, row3), axis=-1))


        def main():
            rotate = jax.jit(random_rotation)
            return rotate(jax.random.key(0), jnp.array(0.5))
        """),
    Case("flax-4085",
         "https://github.com/google/flax/issues/4085", "JAX105", """
        import flax.linen as nn
        import jax
        import jax.numpy as jnp
        import optax


        class DNN(nn.Module):
            hidden: int = 16
            rate: float = 0.2

            @nn.compact
            def __call__(self, x, training):
                x = nn.relu(nn.Dense(self.hidden)(x))
                x = nn.Dropout(rate=self.rate, deterministic=not training)(x)  # <-
                x = nn.relu(nn.Dense(self.hidden)(x))
                x = nn.Dropout(rate=self.rate, deterministic=not training)(x)  # <-
                return nn.Dense(1)(x)


        model = DNN()
        optimizer = optax.adam(1e-3)


        def mse(params, x, y, training, key):
            def squared_error(xi, yi):
                diff = model.apply(params, xi, training, rngs={"dropout": key}) - yi
                return jnp.inner(diff, diff)
            return jnp.mean(jax.vmap(squared_error)(x, y), axis=0)


        @jax.jit
        def train_step(params, opt_state, x, y, training, key):
            loss, grads = jax.value_and_grad(mse)(params, x, y, training, key)
            updates, opt_state = optimizer.update(grads, opt_state)
            return optax.apply_updates(params, updates), opt_state, loss


        def main():
            x, y = jnp.ones((8, 4)), jnp.zeros((8, 1))
            params = model.init(jax.random.key(0), x, False)
            opt_state = optimizer.init(params)
            return train_step(params, opt_state, x, y, True, jax.random.key(1))
        """),
    Case("flax-3946",
         "https://github.com/google/flax/issues/3946", "JAX105", """
        import flax.linen as nn
        import jax
        import jax.numpy as jnp


        class MLP(nn.Module):
            @nn.compact
            def __call__(self, x, train):
                x = nn.BatchNorm(use_running_average=not train)(x)  # <-
                x = nn.relu(nn.Dense(32)(x))
                x = nn.relu(nn.Dense(32)(x))
                return nn.Dense(1)(x)


        CheckpointedMLP = nn.remat(MLP, static_argnums=(1,))


        def main():
            model = CheckpointedMLP()
            return model.init(jax.random.key(42), jnp.ones((4, 3)), True)
        """),
    # ------------------------------------------------------------------ JAX111 data-dependent shape
    Case("sax-af8d2c4",
         "https://github.com/flaport/sax/commit/af8d2c4ca5980233943f744a8d86e26d1b5f2ed6", "JAX111", """
        import jax
        import jax.numpy as jnp


        def straight(wl=1.55, length=10.0, neff=2.34):
            t = jnp.exp(2j * jnp.pi * neff * length / wl)
            return {("in0", "out0"): t, ("out0", "in0"): t}


        def coupler(wl=1.55, kappa=0.5):
            tau, k = jnp.sqrt(1 - kappa) + 0.0 * wl, 1j * jnp.sqrt(kappa)
            s = {}
            for a, b, v in [("in0", "out0", tau), ("in0", "out1", k), ("in1", "out0", k), ("in1", "out1", tau)]:
                s[(a, b)] = v
                s[(b, a)] = v
            return s


        def to_coo(sdict):
            ports = sorted({p for pair in sdict for p in pair})
            index = {p: i for i, p in enumerate(ports)}
            si = jnp.array([index[a] for a, _ in sdict], dtype=jnp.int32)
            sj = jnp.array([index[b] for _, b in sdict], dtype=jnp.int32)
            sx = jnp.stack([jnp.asarray(v, dtype=jnp.complex64) for v in sdict.values()])
            return si, sj, sx, index


        def analyze_circuit(instances, nets):
            offset, Si, Sj, Sx, port_index = 0, [], [], [], {}
            for name, sdict in instances.items():
                si, sj, sx, index = to_coo(sdict)
                Si.append(si + offset)
                Sj.append(sj + offset)
                Sx.append(sx)
                port_index.update({f"{name},{p}": i + offset for p, i in index.items()})
                offset += len(index)
            Si, Sj, Sx = jnp.concatenate(Si), jnp.concatenate(Sj), jnp.concatenate(Sx)
            pairs = set()
            for p1, p2 in nets:
                pairs.add((port_index[p1], port_index[p2]))
                pairs.add((port_index[p2], port_index[p1]))
            pairs = sorted(pairs)
            Ci = jnp.array([a for a, _ in pairs], dtype=jnp.int32)
            Cj = jnp.array([b for _, b in pairs], dtype=jnp.int32)
            match = Cj[None, :] == Si[:, None]
            CSi = jnp.broadcast_to(Ci[None, :], match.shape)[match]  # <-
            rows = jnp.broadcast_to(jnp.arange(Si.shape[0])[:, None], match.shape)[match]  # <-
            return CSi, Sj[rows], Sx[rows]


        def coupler_with_bends(wl=1.55, length=10.0, kappa=0.5):
            instances = {
                "s1": straight(wl, length / 2),
                "s2": straight(wl, length / 2),
                "dc": coupler(wl, kappa),
            }
            nets = [("s1,out0", "dc,in0"), ("s2,out0", "dc,in1")]
            return analyze_circuit(instances, nets)


        def main():
            return jax.jit(coupler_with_bends)(1.55)
        """),
    Case("gwkokab-2c1f32a",
         "https://github.com/kokabsc/gwkokab/commit/2c1f32af4802124b4178643d26dc294ac15b25ce", "JAX111", """
        import jax
        import jax.numpy as jnp


        class PowerlawComponent:
            def __init__(self, alpha, low, high):
                self.alpha, self.low, self.high = alpha, low, high

            def sample(self, key, sample_shape=()):
                u = jax.random.uniform(key, sample_shape)  # <-
                a1 = self.alpha + 1.0
                return (self.low ** a1 + u * (self.high ** a1 - self.low ** a1)) ** (1.0 / a1)


        class PoissonMean:
            def __init__(self, log_vt, key, num_samples, time):
                self.log_vt, self.key, self.num_samples, self.time = log_vt, key, num_samples, time

            def __call__(self, component):
                samples = jax.checkpoint(component.sample)(self.key, (self.num_samples,))  # <-
                return self.time * jnp.mean(jnp.exp(self.log_vt(samples)))


        def main():
            mean = PoissonMean(lambda m: -0.1 * m, jax.random.key(0), 1000, 2.0)
            return mean(PowerlawComponent(-2.3, 5.0, 80.0))
        """),
    # ------------------------------------------------------------------ JAX114 PRNG key reuse
    Case("rwmetropolis-a824826",
         "https://github.com/rlouf/blog-benchmark-rwmetropolis/commit/a824826fa01d932fa7cb9cd6014c26dc8da2778b",
         "JAX114", """
        from functools import partial

        import jax
        import jax.numpy as jnp
        from jax.scipy.special import logsumexp
        from jax.scipy.stats import norm


        @partial(jax.jit, static_argnums=(1,))
        def rw_metropolis_kernel(rng_key, logpdf, position, log_prob):
            move_proposals = jax.random.normal(rng_key, shape=position.shape) * 0.1
            proposal = position + move_proposals
            proposal_log_prob = logpdf(proposal)
            log_uniform = jnp.log(jax.random.uniform(rng_key, shape=position.shape))  # <-
            do_accept = log_uniform < proposal_log_prob - log_prob
            position = jnp.where(do_accept, proposal, position)
            log_prob = jnp.where(do_accept, proposal_log_prob, log_prob)
            return position, log_prob


        def rw_metropolis_sampler(rng_key, logpdf, initial_position, n_samples):
            position = initial_position
            log_prob = logpdf(initial_position)
            samples = [position]
            for _ in range(n_samples):
                position, log_prob = rw_metropolis_kernel(rng_key, logpdf, position, log_prob)  # <-
                samples.append(position)
            return jnp.stack(samples)


        def mixture_logpdf(x):
            mus, sigmas = jnp.array([-2.0, 0.0, 3.2]), jnp.array([1.2, 1.0, 5.0])
            weights = jnp.array([0.2, 0.3, 0.5])
            return logsumexp(norm.logpdf(x[..., None], mus, sigmas) + jnp.log(weights), axis=-1)


        def main():
            return rw_metropolis_sampler(jax.random.key(0), mixture_logpdf, jnp.zeros(4), 10)
        """),
    Case("gwkokab-5bde5e7",
         "https://github.com/kokabsc/gwkokab/commit/5bde5e72ac797e9022ad9284e53727aa01815f78", "JAX114", """
        import jax
        import jax.numpy as jnp


        def mvn_samples(key, loc, cov, n):
            chol = jnp.linalg.cholesky(cov)
            eps = jax.random.normal(key, (n,) + loc.shape)
            return loc + jnp.einsum("...ij,n...j->n...i", chol, eps)


        def analytical_likelihood(key, means, covs, max_iter_mean=10, max_iter_cov=5, n_samples=500):
            n_events = means.shape[0]
            rng_key = key

            def fit_mean_step(fit_mean, k):
                samples = mvn_samples(k, fit_mean, covs, 200)
                return samples.mean(axis=0), None

            fit_mean, _ = jax.lax.scan(fit_mean_step, means, jax.random.split(rng_key, max_iter_mean))

            def fit_cov_step(fit_cov, k):
                samples = mvn_samples(k, fit_mean, fit_cov, 200)
                centered = samples - fit_mean
                return jnp.einsum("nei,nej->eij", centered, centered) / 200, None

            fit_cov, _ = jax.lax.scan(fit_cov_step, covs, jax.random.split(rng_key, max_iter_cov))  # <-

            def event_step(total, data):
                mean, cov, k = data
                draws = mvn_samples(k, mean, cov, n_samples)
                log_prob = -0.5 * jnp.sum((draws - mean) ** 2, axis=-1)
                return total + jax.nn.logsumexp(log_prob), None

            keys = jax.random.split(rng_key, (n_events,))  # <-
            total, _ = jax.lax.scan(event_step, -n_events * jnp.log(n_samples), (fit_mean, fit_cov, keys))
            return total


        def main():
            means = jnp.zeros((3, 2))
            covs = jnp.broadcast_to(jnp.eye(2), (3, 2, 2))
            return jax.jit(analytical_likelihood)(jax.random.key(0), means, covs)
        """),
    # ------------------------------------------------------------------ JAX115 timing without sync
    Case("gtmp-1",
         "https://github.com/anindex/gtmp/issues/1", "JAX115", """
        import time

        import jax
        import jax.numpy as jnp


        def plan(key, start, goals):
            waypoints = start + jax.random.uniform(key, (128, 8, start.shape[-1]), minval=-1.0, maxval=1.0)
            for _ in range(8):
                waypoints = jnp.tanh(waypoints @ jnp.eye(start.shape[-1]) * 1.01 + 0.01)
            ends = waypoints[:, -1]
            cost = jnp.min(jnp.linalg.norm(ends[:, None, :] - goals[None], axis=-1), axis=1)
            return waypoints[jnp.argmin(cost)]


        def main():
            planner = jax.jit(jax.vmap(plan, in_axes=(0, None, None)))
            keys = jax.random.split(jax.random.key(0), 256)
            start, goals = jnp.zeros(7), jnp.ones((16, 7))
            t0 = time.time()
            paths = planner(keys, start, goals)
            print(f"JIT time taken: {time.time() - t0} seconds")  # <-
            t0 = time.time()
            paths = planner(keys, start, goals)
            elapsed = time.time() - t0  # <-
            print(f"Time taken: {elapsed} seconds")
            return paths, elapsed
        """),
]
