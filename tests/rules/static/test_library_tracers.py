"""Functions handed to a library that traces them (``apis.LIBRARY_TRACERS``), a part of the
static model (issue 36, the library-protocol misses of the seventh recall round; tuning):
an ODE integrator, a minimizer, the solvers of diffrax / optimistix / jaxopt, an optax
schedule and the functions of an optax ``GradientTransformation``. What jaxlint says of
them, and what real jax (and optax) does with them, in one fresh process
(``outcomes_under_jax``). diffrax 0.7.2, optimistix 0.1.0 and jaxopt 0.8.5 are not test
dependencies: their tracing was checked by hand (each function received
``DynamicJaxprTracer`` for the parameters the table marks, a Python float for
diffrax's and optimistix's ``args``), and only the static side is tested here.
"""
from __future__ import annotations

import functools
import textwrap

from helpers import lines
from static_rule_helpers import marked, outcomes_under_jax


# ------------------------------------------------------------------ jax's integrator and minimizer
SOLVERS = """
    import jax
    import jax.numpy as jnp
    from jax.experimental.ode import odeint
    from jax.scipy.optimize import minimize

    def rhs(y, t, k):
        if t > 0.5:  # INVALID: odeint traces `t` (and `k`, an extra argument)
            return -k * y
        return y

    def rhs_default(y, t, damped=True):
        if damped:  # a default odeint does not pass: a Python bool
            return -y
        return y

    def integrate(y0):
        ts = jnp.linspace(0.0, 1.0, 3)
        return odeint(rhs, y0, ts, 2.0), odeint(rhs_default, y0, ts)

    def loss(x, scale):
        if scale > 1:  # `args` reach `fun` as given: a Python number here
            return jnp.sum(x ** 2) * scale
        return jnp.sum(x ** 2)

    def loss_branching(x):
        if x[0] > 0:  # INVALID: `x` is the while_loop's tracer
            return jnp.sum(x ** 2)
        return jnp.sum(x)

    def fit(x0):
        return minimize(loss, x0, args=(2.0,), method="BFGS").x

    def fit_branching(x0):
        return minimize(loss_branching, x0, method="BFGS").x
"""


def test_odeint_and_minimize_trace_the_function_they_are_given():
    assert lines("JAX105", SOLVERS) == marked(SOLVERS) != []


# ------------------------------------------------------------------ diffrax, optimistix, jaxopt
SOLVER_LIBRARIES = """
    import diffrax
    import jax.numpy as jnp
    import jaxopt
    import optimistix as optx

    def field(t, y, args):
        if t > 1.0:  # INVALID
            return -y
        return y

    def field_args(t, y, args):
        if args:  # array leaves only: a Python value given as `args` stays one
            return -y
        return y

    def solve(y0):
        terms = diffrax.ODETerm(field), diffrax.ODETerm(vector_field=field_args)
        return [diffrax.diffeqsolve(t, diffrax.Tsit5(), 0.0, 1.0, 0.1, y0, args=True) for t in terms]

    def residual(y, args):
        if y.sum() > 0:  # INVALID
            return y - 1
        return y

    def root(y0):
        return optx.root_find(residual, optx.Newton(1e-5, 1e-5), y0)

    def objective(params, data):
        if data.mean() > 0:  # INVALID: jaxopt's run is jitted: every argument a tracer
            return jnp.sum((params - data) ** 2)
        return jnp.sum(params)

    def eager_objective(params, data):
        if data.mean() > 0:  # `jit=False`: run as Python
            return jnp.sum((params - data) ** 2)
        return jnp.sum(params)

    def fit(p0, data):
        jaxopt.LBFGS(fun=eager_objective, jit=False).run(p0, data)
        return jaxopt.GradientDescent(objective, maxiter=3).run(p0, data)
"""


def test_the_solvers_of_diffrax_optimistix_and_jaxopt_trace_their_functions():
    assert lines("JAX105", SOLVER_LIBRARIES) == marked(SOLVER_LIBRARIES) != []


# ------------------------------------------------------------------ optax
OPTAX = """
    import jax
    import jax.numpy as jnp
    import numpy as np
    import optax

    def warm_restarts(step):
        return 0.05 * (1 + np.cos(np.pi * (step % 100) / 100))  # INVALID: the traced step count

    def smooth(step):
        return 0.05 * (1 + jnp.cos(jnp.pi * (step % 100) / 100))

    def injected(count):
        return 0.1 / np.sqrt(count + 1)  # INVALID

    def scale_schedule(count):
        return np.exp(-count)  # INVALID

    sgd = optax.sgd(warm_restarts)
    adam = optax.adam(learning_rate=smooth)
    inj = optax.inject_hyperparams(optax.sgd)(learning_rate=injected)
    scaled = optax.scale_by_schedule(scale_schedule)

    def clip_to_mean():
        def init_fn(params):
            return optax.EmptyState()

        def update_fn(updates, state, params=None):
            bound = np.exp(jax.tree_util.tree_leaves(updates)[0]).max()  # INVALID
            return jax.tree_util.tree_map(lambda u: jnp.clip(u, -bound, bound), updates), state

        return optax.GradientTransformation(init_fn, update_fn)

    def flat_pairs():
        def update_fn(updates, state, params=None):
            flat, treedef = jax.tree_util.tree_flatten(updates)
            pairs = jax.tree_util.tree_map(lambda u: (u, u * 2), treedef.flatten_up_to(updates))
            # a tree map over a list is a list: its truth value is the tree's structure
            firsts, _ = list(zip(*pairs)) if pairs else ((), ())
            return jax.tree_util.tree_unflatten(treedef, firsts), state

        return optax.GradientTransformation(lambda params: optax.EmptyState(), update_fn)

    def halve(updates, params):
        return jax.tree_util.tree_map(lambda u: u / np.float32(2), updates)

    tx = optax.chain(sgd, clip_to_mean(), optax.stateless(halve))

    @jax.jit
    def step(params, grads, state):
        updates, state = tx.update(grads, state, params)
        return optax.apply_updates(params, updates), state

    def run(opt):
        params = jnp.ones(3)
        state = opt.init(params)
        updates, state = jax.jit(opt.update)(jnp.ones(3), state, params)
        return str(float(updates.sum()))

    def eager(opt):
        params = jnp.ones(3)
        updates, _ = opt.update(jnp.ones(3), opt.init(params), params)
        return str(float(updates.sum()))
"""


def test_optax_calls_schedules_and_transformation_functions_with_traced_values():
    assert lines("JAX104", OPTAX) == marked(OPTAX) != []
    assert lines("JAX105", OPTAX) == []  # `pairs`, a tree map over a list, is a list


@functools.lru_cache(maxsize=1)
def _outcomes() -> dict[str, str]:
    solvers, optax_src = textwrap.dedent(SOLVERS), textwrap.dedent(OPTAX)
    return outcomes_under_jax({
        "odeint:traced_t": (solvers, "integrate(jnp.ones(2))"),
        "odeint:default": (solvers, "str(odeint(rhs_default, jnp.ones(2), jnp.linspace(0.0, 1.0, 3)).shape)"),
        "minimize:args": (solvers, "str(fit(jnp.ones(2)).shape)"),
        "minimize:traced_x": (solvers, "fit_branching(jnp.ones(2))"),
        "optax:schedule_jit": (optax_src, "run(sgd)"),
        "optax:schedule_eager": (optax_src, "eager(sgd)"),
        "optax:jnp_schedule_jit": (optax_src, "run(adam)"),
        "optax:injected_jit": (optax_src, "run(inj)"),
        "optax:scale_jit": (optax_src, "run(scaled)"),
        "optax:update_fn_jit": (optax_src, "run(clip_to_mean())"),
        "optax:update_fn_eager": (optax_src, "eager(clip_to_mean())"),
        "optax:flat_pairs_jit": (optax_src, "run(flat_pairs())"),
    })


def test_real_jax_traces_what_odeint_and_minimize_are_given():
    out = _outcomes()
    assert out["odeint:traced_t"] == "TracerBoolConversionError"
    assert out["odeint:default"] == "(3, 2)"  # the default flag stays a Python bool
    assert out["minimize:args"] == "(2,)"  # `args` stay Python numbers: `if scale > 1` runs
    assert out["minimize:traced_x"] == "TracerBoolConversionError"


def test_real_optax_calls_the_schedule_with_a_tracer_under_jit_only():
    out = _outcomes()
    assert out["optax:schedule_jit"] == "TracerArrayConversionError"
    assert out["optax:injected_jit"] == "TracerArrayConversionError"
    assert out["optax:scale_jit"] == "TracerArrayConversionError"
    assert out["optax:update_fn_jit"] == "TracerArrayConversionError"
    float(out["optax:jnp_schedule_jit"])  # jnp on the step count traces
    assert float(out["optax:flat_pairs_jit"]) == 3.0  # the list's truth value under jit: the updates, ones
    # run eagerly, the step count and the updates are concrete arrays: numpy works
    float(out["optax:schedule_eager"])
    float(out["optax:update_fn_eager"])
