"""Blind recall cases, sixteenth round (issue 36, sealed before jaxlint ran on any of them):
one small program per public bug fix in a JAX repository, written in our own words from the
pattern the fix removed (never the repository's code).

Rounds thirteen to fifteen took bug-fix commits of about 270 JAX repositories. This round took the
same kind of record from repositories *not* among those: none of them named by
``benchmarks/recall_reports.md`` or by the cases of the fifteen earlier rounds, none in the sealed
precision corpora ``blind51``/``blind52`` (``benchmarks/bench_precision.py``), none among the 402
mirrors already on this machine when the round began (which earlier rounds and corpora had read), and
none in the seal53 helper's pool for ``blind53`` (``/work/seal53_pool.txt``). 72 public JAX
repositories were fetched for this round with the ``search`` tool's ``fetch`` (80 asked for, eight
could not be had): scientific and physics libraries, quantum simulators, probabilistic, flow and
inference libraries, RL, evolution and robotics code, quantization and model code. Their histories
were searched for fixes of the pitfalls a static rule's page claims, by commit subject (key reuse, a
split key, "jittable", tracer, concretization, recompiles, static arguments, boolean masks) and by
diff (one key drawn from twice in the removed lines, a draw whose key the fix splits, a bare
``x.at[i].set(v)`` statement, an ``if``/``assert`` on a ``jax.numpy`` value replaced by
``jnp.where``/``lax.cond``/``error_if``/``checkify``, ``int()``/``float()``/``bool()`` of a
``jax.numpy`` result, ``nonzero``/``unique`` without ``size=``, a ``jit`` made inside a function):
a reading aid for finding commits, not a criterion. Eight ``search`` queries of the ``issues`` corpus
gave threads earlier rounds had used, and one lead: a thread about a discarded update in
Open_Duck_Playground, whose history holds two earlier fixes of the same kind (the thread's own line
is still unfixed there, so it is no case). A commit whose message says it fixes such a
pitfall (or whose diff shows nothing else) and whose diff shows the pattern in the repository's own
code is a case: the code before the fix. The address is the commit on the repository's public
GitHub. None of these commits is among the cases or the left-out threads of the fifteen earlier
rounds (checked by URL and by repository; ``tests/test_recall_blind.py`` checks the URLs once the
round is wired in). The round was *sealed*: the file was written and committed on its own before
jaxlint was run on any of the cases, by an engineer who changes no rule, and no other engineer of
the session saw it; the commit is the proof that the cases predate the measurement.

Each case names the rule that should report it (chosen from the diff and the commit message) and
marks the problem's line (or lines) with ``# <-``, in the same ``Case`` form as
``recall_blind_cases.py``. A case is *found* when that rule reports on a marked line. The verdicts
are in ``benchmarks/recall_reports.md`` ("Blind recall, sixteenth round"); the measurement is
``tests/test_recall_blind.py``.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from recall_blind_cases import Case  # noqa: E402

CASES16: list[Case] = [
    # ------------------------------------------------------------------ JAX102 Python loop in jit
    Case("gymnasium-617736a78",
         "https://github.com/Farama-Foundation/Gymnasium/commit/617736a7886cb706f8ec45b936f8d7bd49f3fd7a", "JAX102", """
        import jax
        import jax.numpy as jnp
        from jax import random

        DECK = jnp.array([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10])
        MAX_CARDS = 21

        def draw_card(key, hand, index):
            key, subkey = random.split(key)
            card = random.choice(subkey, DECK)
            return key, hand.at[index].set(card), index + 1

        def usable_ace(hand):
            return jnp.logical_and(jnp.count_nonzero(hand == 1) > 0, sum(hand) + 10 <= 21)  # <-

        def sum_hand(hand):
            return sum(hand) + 10 * usable_ace(hand)  # <-

        def dealer_stop(val):
            return sum_hand(val[1]) < 17

        def dealer_plays(key, dealer_hand, dealer_cards):
            return jax.lax.while_loop(dealer_stop, lambda val: draw_card(*val), (key, dealer_hand, dealer_cards))

        @jax.jit
        def notake(key, player_hand, dealer_hand, dealer_cards):
            key, dealer_hand, dealer_cards = dealer_plays(key, dealer_hand, dealer_cards)
            player, dealer = sum_hand(player_hand), sum_hand(dealer_hand)
            return jnp.where(dealer > 21, 1, jnp.sign(player - dealer)), key

        def main():
            player = jnp.zeros(MAX_CARDS, dtype=jnp.int32).at[:2].set(jnp.array([10, 7]))
            dealer = jnp.zeros(MAX_CARDS, dtype=jnp.int32).at[:2].set(jnp.array([5, 1]))
            return notake(random.key(0), player, dealer, 2)
        """),
    # ------------------------------------------------------------------ JAX105 traced control flow
    Case("dynamiqs-2669aebe",
         "https://github.com/dynamiqs/dynamiqs/commit/2669aebed58ded2cc4fef899790be03ec167a306", "JAX105", """
        import jax
        import jax.numpy as jnp
        from jax.scipy.linalg import expm

        def check_times(x, argname, allow_empty=False):
            if x.ndim != 1:
                raise ValueError(f"Argument {argname} must be a 1D array, but is a {x.ndim}D array.")
            if not allow_empty and len(x) == 0:
                raise ValueError(f"Argument {argname} must contain at least one element.")
            if not jnp.all(jnp.diff(x) > 0):  # <-
                raise ValueError(f"Argument {argname} must be sorted in strictly ascending order.")

        def _check_sesolve_args(H, psi0, tsave):
            if H.shape[-1] != psi0.shape[-2]:
                raise ValueError("H and psi0 have incompatible shapes.")
            check_times(tsave, "tsave")

        def _sesolve(H, psi0, tsave):
            propagate = jax.vmap(lambda t: expm(-1j * t * H) @ psi0)
            return propagate(tsave)

        def sesolve(H, psi0, tsave):
            H = jnp.asarray(H, dtype=jnp.complex64)
            psi0 = jnp.asarray(psi0, dtype=jnp.complex64)
            tsave = jnp.asarray(tsave)
            _check_sesolve_args(H, psi0, tsave)
            return _sesolve(H, psi0, tsave)

        def main():
            H = jnp.array([[0.0, 1.0], [1.0, 0.0]])
            psi0 = jnp.array([[1.0], [0.0]])
            return jax.jit(sesolve)(H, psi0, jnp.linspace(0.0, 1.0, 5))
        """),
    Case("dynamiqs-ddb79cbe",
         "https://github.com/dynamiqs/dynamiqs/commit/ddb79cbe7fa77c8edf11b6a3ee507d8a7a381447", "JAX105", """
        from math import prod

        import jax
        import jax.numpy as jnp

        def fock(dim, number):
            dims = (dim,) if isinstance(dim, int) else tuple(dim)
            dim = jnp.asarray(dim)
            number = jnp.asarray(number)
            if dim.ndim > 1:
                raise ValueError("Argument `dim` must be an integer or a tuple of integers.")
            if dim.ndim == 0:
                dim = dim[None]
                number = number[..., None]
            if number.shape[-1] != dim.shape[-1]:
                raise ValueError("Argument `number` must have shape `(...)` or `(..., len(dim))`.")
            if jnp.any(dim - number <= 0):  # <-
                raise ValueError("Argument `number` must be in the range [0, dim[i]) for each mode i.")
            idx = 0
            for k, d in enumerate(dims):
                idx = d * idx + number[k]
            return jnp.zeros((prod(dims), 1), dtype=jnp.complex64).at[idx, 0].set(1.0)

        def main():
            make_state = jax.jit(lambda n: fock((3, 2), n))
            return make_state(jnp.array([1, 0]))
        """),
    Case("dynamiqs-51c4d147",
         "https://github.com/dynamiqs/dynamiqs/commit/51c4d1470f089ec5a7d218cc229a32c17bdef375", "JAX105", """
        import warnings
        from math import factorial

        import jax
        import jax.numpy as jnp

        def _warn_non_normalised(x, argname):
            atol = 1e-2 if x.dtype == jnp.complex64 else 1e-6
            norm = jnp.linalg.norm(x)
            if not jnp.allclose(norm, 1.0, rtol=0.0, atol=atol):  # <-
                warnings.warn(f"Argument {argname} is not normalized (expected norm 1.0 but norm is {norm}).",
                              stacklevel=2)

        @jax.jit
        def _quasi_probability(state, xvec, yvec):
            n = state.shape[0]
            alpha = xvec[:, None] + 1j * yvec[None, :]
            coeffs = jnp.stack([alpha ** k / jnp.sqrt(float(factorial(k))) for k in range(n)], axis=-1)
            overlap = jnp.exp(-jnp.abs(alpha) ** 2 / 2) * (coeffs.conj() @ state[:, 0])
            return jnp.abs(overlap) ** 2 / jnp.pi

        def wigner(state, xmax=4.0, npixels=21):
            state = jnp.asarray(state, dtype=jnp.complex64)
            _warn_non_normalised(state, "state")
            xvec = jnp.linspace(-xmax, xmax, npixels)
            return _quasi_probability(state, xvec, xvec)

        def main():
            ket = jnp.zeros((4, 1)).at[1, 0].set(1.0)
            return jax.jit(wigner)(ket)
        """),
    Case("qiskit-dynamics-221d09b1",
         "https://github.com/qiskit-community/qiskit-dynamics/commit/221d09b1d9b164bef14fbdda0de39a9ba9a04ecc", "JAX105", """
        import jax
        import jax.numpy as jnp

        class Signal:
            def __init__(self, envelope, carrier_freq=0.0, phase=0.0, name=None):
                self._name = name
                self._is_constant = False
                if isinstance(envelope, (complex, float, int)):
                    envelope = jnp.asarray(complex(envelope))
                if isinstance(envelope, jax.Array):
                    # a constant envelope with no carrier is a constant signal
                    if carrier_freq == 0.0:  # <-
                        self._is_constant = True
                    self._envelope = lambda t: envelope * jnp.ones_like(t)
                elif callable(envelope):
                    self._envelope = envelope
                self.carrier_freq = carrier_freq
                self.phase = phase

            @property
            def is_constant(self):
                return self._is_constant

            def __call__(self, t):
                arg = 2.0 * jnp.pi * self.carrier_freq * t + self.phase
                return jnp.real(self._envelope(t) * jnp.exp(1j * arg))

        def eval_sig(a, v, t):
            return Signal(jnp.asarray(a, dtype=jnp.complex64), v)(t)

        def main():
            value = jax.jit(eval_sig)(1.0, 1.0, 1.0)
            slope = jax.jit(jax.grad(eval_sig, argnums=1))(1.0, 1.0, 1.0)
            return value, slope
        """),
    Case("jaxtronomy-c44886c",
         "https://github.com/lenstronomy/JAXtronomy/commit/c44886c43e05b528ea9adac6aba959e7978aacca", "JAX105", """
        from functools import partial

        import jax.numpy as jnp
        from jax import jit

        class LensedPosition:
            def image_position(self, kwargs, kwargs_lens, magnification_limit=None):
                ra = jnp.atleast_1d(kwargs["ra_image"]) + kwargs_lens["shift_x"]
                dec = jnp.atleast_1d(kwargs["dec_image"]) + kwargs_lens["shift_y"]
                return ra, dec

        class PointSource:
            def __init__(self, point_source_type_list, magnification_limit=None):
                self._point_source_list = [LensedPosition() for _ in point_source_type_list]
                self._magnification_limit = magnification_limit

            @partial(jit, static_argnums=(0, 5))
            def image_position(self, kwargs_ps, kwargs_lens, k=None, original_position=False,
                               additional_images=False):
                x_image_list = []
                y_image_list = []
                for i, model in enumerate(self._point_source_list):
                    if k is None or k == i:  # <-
                        x_image, y_image = model.image_position(
                            kwargs_ps[i], kwargs_lens, magnification_limit=self._magnification_limit)
                        x_image_list.append(x_image)
                        y_image_list.append(y_image)
                return x_image_list, y_image_list

        def main():
            ps = PointSource(["LENSED_POSITION", "LENSED_POSITION"])
            kwargs_ps = [{"ra_image": jnp.array([0.1, -0.2]), "dec_image": jnp.array([0.3, 0.0])},
                         {"ra_image": jnp.array([1.0]), "dec_image": jnp.array([-1.0])}]
            kwargs_lens = {"shift_x": jnp.float32(0.01), "shift_y": jnp.float32(-0.02)}
            return ps.image_position(kwargs_ps, kwargs_lens, 1)
        """),
    Case("dmff-52d8830",
         "https://github.com/deepmodeling/DMFF/commit/52d883057066f3cdb86e4b4d3ca7cb7c0e5addef", "JAX105", """
        from typing import NamedTuple

        import jax
        import jax.numpy as jnp
        from jax import jit

        class PairList(NamedTuple):
            idx: jax.Array
            did_buffer_overflow: jax.Array

        def _close_pairs(positions, rc):
            dist = jnp.linalg.norm(positions[:, None, :] - positions[None, :, :], axis=-1)
            n = positions.shape[0]
            return (dist < rc) & (jnp.arange(n)[:, None] < jnp.arange(n)[None, :])

        def _pair_list(positions, rc, capacity):
            close = _close_pairs(positions, rc)
            i, j = jnp.nonzero(close, size=capacity, fill_value=positions.shape[0])
            return PairList(jnp.stack([i, j], axis=1), jnp.sum(close) > capacity)

        class NeighborList:
            def __init__(self, box, rc):
                self.box = box
                self.rc = rc
                self.capacity = None
                self.nblist = None

            def allocate(self, positions):
                # sizes the buffer from the positions' values: never under jit
                self.capacity = int(jnp.sum(_close_pairs(positions, self.rc))) + 4
                self.nblist = _pair_list(positions, self.rc, self.capacity)
                return self.nblist

            def update(self, positions):
                self.nblist = _pair_list(positions, self.rc, self.capacity)
                if self.nblist.did_buffer_overflow:  # <-
                    self.nblist = self.allocate(positions)
                return self.nblist

        def main():
            positions = jnp.array([[12.4, 3.4, 1.5], [13.0, 2.7, 1.3], [12.3, 3.8, 0.7],
                                   [14.2, 1.4, 1.1], [14.2, 1.1, 2.1], [15.2, 1.5, 0.9]])
            nbobj = NeighborList(jnp.eye(3) * 30.0, 1.5)
            nbobj.allocate(positions)
            return jit(nbobj.update)(positions)
        """),
    Case("flowjax-8f8ec87",
         "https://github.com/danielward27/flowjax/commit/8f8ec87887b99faf150911f10da61cc7a0f28602", "JAX105", """
        import equinox as eqx
        import jax
        import jax.numpy as jnp

        class TriangularAffine(eqx.Module):
            loc: jax.Array
            arr: jax.Array
            lower: bool = eqx.field(static=True)

            def __init__(self, loc, arr, lower=True, min_diag=1e-6):
                if (arr.ndim != 2) or (arr.shape[0] != arr.shape[1]):
                    ValueError("arr must be a square, 2-dimensional matrix.")
                if jnp.any(jnp.diag(arr) < min_diag):  # <-
                    ValueError("arr diagonal entries must be greater than min_diag")
                self.loc = loc
                self.arr = arr
                self.lower = lower

            def transform(self, x):
                tri = jnp.tril(self.arr) if self.lower else jnp.triu(self.arr)
                return tri @ x + self.loc

        def main():
            loc = jnp.zeros(3)
            arrs = jnp.stack([jnp.eye(3) * s for s in (1.0, 2.0, 3.0)])
            x = jnp.ones(3)
            return jax.vmap(lambda arr: TriangularAffine(loc, arr).transform(x))(arrs)
        """),
    Case("deepqmc-bb422ce",
         "https://github.com/deepqmc/deepqmc/commit/bb422ce3e255a8a672beb3b3b260c0f1b1e81295", "JAX105", """
        import jax
        import jax.numpy as jnp

        def ssp(x):
            return jax.nn.softplus(x) - jnp.log(2.0)

        class MLP:
            def __init__(self, in_dim, out_dim, hidden_layers=None, activation=ssp):
                self.activation = activation
                hidden_layers = hidden_layers or []
                if len(hidden_layers) == 2 and hidden_layers[0] == "log":
                    n_hidden = hidden_layers[1]
                    qs = [k / n_hidden for k in range(1, n_hidden + 1)]
                    dims = [int(jnp.round(in_dim ** (1 - q) * out_dim ** q)) for q in qs]  # <-
                else:
                    dims = [*hidden_layers, out_dim]
                self.dims = dims

            def __call__(self, weights, x):
                for index, w in enumerate(weights):
                    x = x @ w
                    if index < len(weights) - 1:
                        x = self.activation(x)
                return x

        def init_weights(key, in_dim, dims):
            weights = []
            for dim in dims:
                key, subkey = jax.random.split(key)
                weights.append(jax.random.normal(subkey, (in_dim, dim)) / jnp.sqrt(in_dim))
                in_dim = dim
            return weights

        @jax.jit
        def psi(weights, x):
            mlp = MLP(x.shape[-1], 1, ["log", 2])
            return mlp(weights, x)

        def main():
            dims = MLP(16, 1, ["log", 2]).dims
            weights = init_weights(jax.random.key(0), 16, dims)
            return psi(weights, jnp.ones((4, 16)))
        """),
    # ------------------------------------------------------------------ JAX108 static argument hazard
    Case("jaxtronomy-aadd592",
         "https://github.com/lenstronomy/JAXtronomy/commit/aadd592126d7f97d6db1f8234b140dea634d43ff", "JAX108", """
        from functools import partial

        import jax.numpy as jnp
        from jax import jit

        class LinearBasis:
            def __init__(self, profile_type_list):
                self.profile_type_list = profile_type_list

            @partial(jit, static_argnums=(0, 2), inline=True)  # <-
            def update_linear(self, param, i, kwargs_list):
                for k, model in enumerate(self.profile_type_list):
                    if model in ["SERSIC", "GAUSSIAN", "UNIFORM"]:
                        kwargs_list[k]["amp"] = param[i]
                        i += 1
                    elif model in ["MULTI_GAUSSIAN"]:
                        num_param = len(kwargs_list[k]["sigma"])
                        kwargs_list[k]["amp"] = param[i:i + num_param]
                        i += num_param
                    else:
                        raise ValueError("model type %s not valid!" % model)
                return kwargs_list, i

        class ImageLinearFit:
            def __init__(self, source_types, lens_light_types):
                self.SourceModel = LinearBasis(source_types)
                self.LensLightModel = LinearBasis(lens_light_types)

            @partial(jit, static_argnums=(0,))
            def update_linear_kwargs(self, param, kwargs_source, kwargs_lens_light):
                i = 0
                kwargs_source, i = self.SourceModel.update_linear(param, i, kwargs_list=kwargs_source)
                kwargs_lens_light, i = self.LensLightModel.update_linear(param, i, kwargs_list=kwargs_lens_light)  # <-
                return kwargs_source, kwargs_lens_light

        def main():
            fit = ImageLinearFit(["SERSIC", "MULTI_GAUSSIAN"], ["GAUSSIAN"])
            kwargs_source = [{"R_sersic": 0.5}, {"sigma": [0.1, 0.2, 0.4]}]
            kwargs_lens_light = [{"sigma": 1.0}]
            return fit.update_linear_kwargs(jnp.arange(5.0), kwargs_source, kwargs_lens_light)
        """),
    # ------------------------------------------------------------------ JAX110 discarded update
    Case("open-duck-playground-a92a55a",
         "https://github.com/apirrone/Open_Duck_Playground/commit/a92a55a3cb46292a654dd1224e40927d310dcc72", "JAX110", """
        import jax
        import jax.numpy as jp

        class OpenDuckMiniEnv:
            def __init__(self, n_qpos, backlash_qpos_addr):
                self.n_qpos = n_qpos
                self.backlash_qpos_addr = backlash_qpos_addr

            def exclude_backlash_joints_idx(self):
                return jp.array([i for i in range(self.n_qpos) if i not in self.backlash_qpos_addr])

            def get_joints_nobacklash_qpos(self, qpos):
                return qpos[self.exclude_backlash_joints_idx()]

            def set_complete_qpos_from_joints(self, no_backlash_qpos, full_qpos):
                # backlash joints are left out of the policy's state but kept in the full state
                full_qpos[self.exclude_backlash_joints_idx()] = no_backlash_qpos  # <-
                return jp.array(full_qpos)

            def step(self, qpos, action):
                joints = self.get_joints_nobacklash_qpos(qpos) + 0.1 * action
                return self.set_complete_qpos_from_joints(joints, qpos)

        def main():
            env = OpenDuckMiniEnv(9, (3, 6))
            return jax.jit(env.step)(jp.zeros(9), jp.ones(7))
        """),
    Case("open-duck-playground-d160551",
         "https://github.com/apirrone/Open_Duck_Playground/commit/d1605518e30160fc0c1bf18b5afea40c2d0f2580", "JAX110", """
        import jax
        import jax.numpy as jp

        def quat_mul(u, v):
            return jp.array([
                u[0] * v[0] - u[1] * v[1] - u[2] * v[2] - u[3] * v[3],
                u[0] * v[1] + u[1] * v[0] + u[2] * v[3] - u[3] * v[2],
                u[0] * v[2] - u[1] * v[3] + u[2] * v[0] + u[3] * v[1],
                u[0] * v[3] + u[1] * v[2] - u[2] * v[1] + u[3] * v[0],
            ])

        def yaw_to_quat(yaw):
            return jp.concatenate([jp.cos(yaw / 2), jp.zeros(2), jp.sin(yaw / 2)])

        class Joystick:
            def __init__(self, n_joints=6, floating_base_qpos_addr=0):
                self._floating_base_qpos_addr = floating_base_qpos_addr
                self._init_q = jp.concatenate([jp.array([0.0, 0.0, 0.15, 1.0, 0.0, 0.0, 0.0]), jp.zeros(n_joints)])

            def set_floating_base_qpos(self, new_qpos, qpos):
                a = self._floating_base_qpos_addr
                return qpos.at[a:a + 7].set(new_qpos)

            def reset(self, rng):
                qpos = self._init_q
                a = self._floating_base_qpos_addr
                # x, y += U(-0.05, 0.05); yaw = U(-3.14, 3.14)
                rng, key = jax.random.split(rng)
                dxy = jax.random.uniform(key, (2,), minval=-0.05, maxval=0.05)
                base_qpos = jp.zeros(7)
                base_qpos.at[0:2].set(qpos[a:a + 2] + dxy)  # <-
                rng, key = jax.random.split(rng)
                yaw = jax.random.uniform(key, (1,), minval=-3.14, maxval=3.14)
                new_quat = quat_mul(qpos[a + 3:a + 7], yaw_to_quat(yaw))
                base_qpos.at[3:7].set(new_quat)  # <-
                return self.set_floating_base_qpos(base_qpos, qpos)

        def main():
            env = Joystick()
            return jax.jit(env.reset)(jax.random.key(0))
        """),
    # ------------------------------------------------------------------ JAX111 data-dependent shape
    Case("jaxpm-5108e56",
         "https://github.com/DifferentiableUniverseInitiative/JaxPM/commit/5108e56ee883b1c3d1871f89279cc3f1092f6690", "JAX111", """
        import jax
        import jax.numpy as jnp

        def cic_paint_2d(mesh, positions):
            positions = jnp.expand_dims(positions, 1)
            floor = jnp.floor(positions)
            connection = jnp.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
            neighbour_coords = floor + connection
            kernel = 1.0 - jnp.abs(positions - neighbour_coords)
            kernel = kernel[..., 0] * kernel[..., 1]
            neighbour_coords = jnp.mod(neighbour_coords.astype(jnp.int32), jnp.array(mesh.shape))
            return mesh.at[neighbour_coords[..., 0], neighbour_coords[..., 1]].add(kernel)

        def density_plane(positions, box_shape, center, width, plane_resolution):
            nx, ny, nz = box_shape
            xy = positions[..., :2]
            d = positions[..., 2]
            xy = xy / nx * plane_resolution
            # keep only the particles inside the slab of interest
            mask = (d > (center - width / 2)) & (d <= (center + width / 2))
            xy = xy[mask]  # <-
            plane = cic_paint_2d(jnp.zeros([plane_resolution, plane_resolution]), xy)
            return plane / ((nx / plane_resolution) * (ny / plane_resolution) * width)

        @jax.jit
        def lensing_planes(positions, centers):
            return jnp.stack([density_plane(positions, (32, 32, 32), c, 4.0, 16) for c in centers])

        def main():
            positions = jax.random.uniform(jax.random.key(0), (256, 3)) * 32.0
            return lensing_planes(positions, jnp.array([8.0, 16.0, 24.0]))
        """),
    # ------------------------------------------------------------------ JAX114 PRNG key reuse
    Case("efax-b83fb46",
         "https://github.com/NeilGirdhar/efax/commit/b83fb466f530d27fc339bb4867a3d9e36faa642b", "JAX114", """
        import jax.numpy as jnp
        import jax.random as jr

        class ComplexUnitVarianceNormal:
            def __init__(self, mean):
                self.mean = mean

            @property
            def shape(self):
                return self.mean.shape

            def sample(self, key, shape=None):
                shape = self.shape if shape is None else shape + self.shape
                a = jr.normal(key, shape)  # <-
                b = jr.normal(key, shape)  # <-
                return a + 1j * b + self.mean

        def main():
            dist = ComplexUnitVarianceNormal(jnp.zeros(3, dtype=jnp.complex64))
            z = dist.sample(jr.key(0), (1000,))
            # real and imaginary parts come out identical, not independent
            return jnp.mean(z.real * z.imag)
        """),
    Case("efax-593878a",
         "https://github.com/NeilGirdhar/efax/commit/593878a0a605246aa08ce14c884256555f54329c", "JAX114", """
        import jax.numpy as jnp
        import jax.random as jr

        class Normal:
            def __init__(self, mean, std):
                self.mean = mean
                self.std = std

            def sample(self, key, shape=()):
                return self.mean + self.std * jr.normal(key, shape + jnp.shape(self.mean))

        class Exponential:
            def __init__(self, rate):
                self.rate = rate

            def sample(self, key, shape=()):
                return jr.exponential(key, shape + jnp.shape(self.rate)) / self.rate

        class JointDistribution:
            def __init__(self, sub_distributions):
                self._sub_distributions = sub_distributions

            def general_method(self, f):
                return {name: (value.general_method(f) if isinstance(value, JointDistribution) else f(value))
                        for name, value in self._sub_distributions.items()}

            def general_sample(self, key, shape=()):
                def f(x):
                    return x.sample(key, shape)  # <-

                return self.general_method(f)

        def main():
            joint = JointDistribution({"signal": Normal(0.0, 1.0), "noise": Normal(0.0, 1.0),
                                       "waiting": Exponential(2.0)})
            draws = joint.general_sample(jr.key(0), (5,))
            # "signal" and "noise" are the same draw
            return draws["signal"] - draws["noise"]
        """),
    Case("deepqmc-299f4c4",
         "https://github.com/deepqmc/deepqmc/commit/299f4c4a47cb9a55a8d12c870f5b2168bb5f35e1", "JAX114", """
        import jax
        import jax.numpy as jnp

        def init_fit(rng, n_walkers, n_elec, hidden=8):
            rng_w, rng_v, rng_walkers = jax.random.split(rng, 3)
            params = {"w": jax.random.normal(rng_w, (3, hidden)) / 3.0,
                      "v": jax.random.normal(rng_v, (hidden,)) / hidden}
            smpl_state = {"r": jax.random.normal(rng_walkers, (n_walkers, n_elec, 3))}
            return params, smpl_state

        def init_opt(rng, params, r):
            # curvature estimate from random probe vectors
            probes = jax.random.rademacher(rng, (4, params["w"].size)).astype(jnp.float32)
            return {"curvature": jnp.mean(probes ** 2) * jnp.ones_like(params["w"]), "r_mean": jnp.mean(r)}

        def fit_wf(rng, n_walkers, n_elec, train_state=None):
            if train_state:
                smpl_state, params, opt_state = train_state
            else:
                params, smpl_state = init_fit(rng, n_walkers, n_elec)  # <-
                opt_state = None
            if opt_state is None:
                opt_state = init_opt(rng, params, smpl_state["r"])  # <-
            return smpl_state, params, opt_state

        def main():
            return fit_wf(jax.random.key(0), 16, 2)
        """),
]
