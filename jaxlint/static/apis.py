"""The JAX APIs the static model knows by qualified name: the transforms that make
entry points, the functions that trace the callables they are given, and the calls and
attributes whose results are static. Also the literal readers for their arguments
(``static_argnums=(0, 2)``). Tables only: no part of the model lives here.
"""
from __future__ import annotations

import ast
from typing import NamedTuple

#: Transforms whose first argument becomes a traced entry point, with the keyword
#: arguments that carry static / donated argument specs.
JIT_LIKE = {
    "jax.jit": "jit",
    "jax.api.jit": "jit",
    "jax.experimental.pjit.pjit": "pjit",
    "jax.pjit": "pjit",
    "jax.pmap": "pmap",
    "jax.experimental.maps.xmap": "xmap",
    "flax.nnx.jit": "nnx.jit",
    "flax.linen.jit": "linen.jit",
    "equinox.filter_jit": "filter_jit",
    "equinox.filter_pmap": "filter_pmap",
}
#: Entry kinds whose parameters are not all traced (the transform decides per value).
FILTERED_KINDS = {"filter_jit", "filter_pmap", "nnx.jit", "linen.jit"}
#: Of ``FILTERED_KINDS``, those that keep every non-array value static: equinox's filtered
#: transforms trace the array leaves of their arguments only (a Python ``int`` argument
#: stays an ``int``). ``nnx.jit`` is not one: it splits graph objects (modules, optimizers,
#: ``Rngs``) into a static graph and a traced state, and traces every other argument as
#: ``jax.jit`` does, Python numbers included (flax 0.12.8: ``nnx.jit(f)(3)`` gives ``f`` a
#: tracer). ``linen.jit`` lifts a module method: its arguments are the method's.
ARRAY_LEAVES_ONLY_KINDS = frozenset({"filter_jit", "filter_pmap"})
#: Entry kinds whose donated graph objects are written back after each call: ``nnx.jit``
#: donates the state it splits from a module or optimizer and stores the new state in the
#: same Python object when the call returns, so the object is read and passed again safely
#: (flax 0.12.8: three steps of ``nnx.jit(donate_argnames=("optimizer",))`` in a loop, the
#: optimizer's step then 3; blind51's JAX113 false findings).
WRITES_BACK_KINDS = frozenset({"nnx.jit"})

#: Functions that trace the callables they are given: (qualified name, indexes of the
#: callable arguments, or ``None`` for "every positional argument that is callable").
TRACING_HOFS: dict[str, tuple[int, ...]] = {
    "jax.lax.scan": (0,),
    "jax.lax.fori_loop": (2,),
    "jax.lax.while_loop": (0, 1),
    "jax.lax.cond": (1, 2),
    "jax.lax.switch": (1,),  # a sequence of branches
    "jax.lax.map": (0,),
    "jax.lax.associative_scan": (0,),
    "jax.lax.reduce": (),
    "jax.vmap": (0,),
    "jax.shard_map": (0,),
    "jax.experimental.shard_map.shard_map": (0,),
    "jax.checkpoint": (0,),
    "jax.remat": (0,),
    "jax.ad_checkpoint.checkpoint": (0,),
    "jax.named_call": (0,),
    "equinox.filter_checkpoint": (0,),
    "flax.nnx.switch": (1,),
    "flax.nnx.shard_map": (0,),
    # not here: `jax.eval_shape` / `make_jaxpr` (and equinox's, nnx's): see ABSTRACT_EVAL
    "flax.linen.scan": (0,),
    "flax.nnx.scan": (0,),
    "flax.nnx.vmap": (0,),
    "flax.nnx.fori_loop": (2,),
    "flax.nnx.while_loop": (0, 1),
    "flax.nnx.cond": (1, 2),
    "flax.nnx.remat": (0,),
    "equinox.filter_vmap": (0,),
    "equinox.internal.scan": (0,),
    # numpyro's inference kernels trace the model (and SVI the guide) to compute
    # log densities and their gradients under jit
    **{f"numpyro.infer.{k}": (0,) for k in ("NUTS", "HMC", "SA", "BarkerMH", "AIES", "ESS", "Predictive",
                                             "hmc.NUTS", "hmc.HMC", "sa.SA", "barker.BarkerMH")},
    "numpyro.infer.SVI": (0, 1),
    "numpyro.infer.svi.SVI": (0, 1),
}
#: The libraries whose code JAX traces, which a module may use without ever writing "jax": a
#: haiku network (``hk.transform``, ``hk.dropout``), a flax or equinox model (``nnx.jit``,
#: ``eqx.filter_jit``), optax schedules, a numpyro model, diffrax / lineax / optimistix
#: functions, a keras 3 model on ``keras.ops``. The static phase reads a module that names
#: one as JAX code (the marker "jax" of ``StaticRule.markers``, ``checker.may_fire``). Those
#: whose name holds "jax" (jaxopt, blackjax, objax) need no entry. Each entry costs a file
#: without "jax" one more scan of its text (``docs/performance.md``, "Text prefilter").
TRACED_LIBRARIES = ("haiku", "flax", "equinox", "optax", "numpyro", "diffrax", "lineax", "optimistix", "keras")

#: Packages whose decorators the model knows leave a function's body to run as written when
#: the decorated object is called: JAX's own and its libraries' (a transform, a checker,
#: ``jaxtyped``, ``chex``'s), the standard library's (``functools.wraps``'s wrappers,
#: ``lru_cache``, ``contextmanager``), and wrappers that call the function with its
#: arguments (gin's injected configuration, plum's and multipledispatch's dispatch,
#: deprecation warnings, a profiler). A decorator imported from any other module makes an
#: object whose call the model cannot see (``runs.opaque_decorator``).
TRANSPARENT_DECORATOR_PACKAGES = frozenset({
    "jax", "jaxlib", "flax", "equinox", "haiku", "chex", "optax", "jaxtyping", "beartype", "typeguard", "numpyro",
    "diffrax", "lineax", "optimistix", "jaxopt", "distrax", "blackjax", "oryx", "penzai", "treescope",
    "tensorflow_probability", "functools", "typing", "typing_extensions", "abc", "dataclasses", "contextlib",
    "warnings", "gin", "plum", "multipledispatch", "wrapt", "deprecated", "deprecation", "line_profiler",
})

#: Library calls that trace a function they are given, the library's own protocol rather
#: than a transform (the call returns a result or an object, not the function): each with
#: the positions and keywords of the callables, how many of a callable's leading parameters
#: receive tracers (``None``: every argument the library passes; parameters with a Python
#: default it does not pass keep their default), and a keyword that, given ``False``, makes
#: the library run the function eagerly. Checked with jax 0.10.2, optax 0.2.8, diffrax
#: 0.7.2, optimistix 0.1.0, jaxopt 0.8.5 (``tests/rules/static/test_library_tracers.py``
#: runs the jax and optax ones):
#:
#: * ``jax.experimental.ode.odeint(func, y0, t, *args)`` traces ``func(y, t, *args)`` at once
#:   (``closure_convert``, then a jitted solver), also outside any jit;
#: * ``jax.scipy.optimize.minimize(fun, x0, args=())`` runs ``fun(x, *args)`` in a
#:   ``lax.while_loop``: ``x`` a tracer, ``args`` as given;
#: * diffrax's terms (``ODETerm(f)``): ``diffeqsolve`` is a filtered jit, ``f(t, y, args)``
#:   gets tracers for ``t`` and ``y``, the array leaves of ``args`` only; optimistix's
#:   solvers (``root_find(fn, solver, y0, args)``): ``fn(y, args)`` the same; jaxopt's solvers
#:   (``GradientDescent(fun=f).run(p, *args)``): ``run`` is jitted unless ``jit=False``, every
#:   argument of ``f`` a tracer;
#: * optax: a schedule given as an optimizer's ``learning_rate`` (``optax.sgd(sched)``) is
#:   called by the optimizer's ``update`` with the step count, and the functions of a
#:   ``GradientTransformation(init_fn, update_fn)`` (and ``optax.stateless(f)``) are its
#:   ``init`` and ``update``: they run where those run. Optax's transformations are written
#:   to be jitted (its documentation jits every ``update``), so the model takes them as
#:   traced, as numpyro's kernels above: under a jit the count is a tracer (``np.cos(count)``
#:   raises, ``if count < n`` raises); run eagerly it is a concrete array and both work.
#:   Measured on the seven opened precision corpora: one new finding, true (praxis's EWC
#:   ``update_fn``, ``if jnp.equal(state.count, 0):``, run by its jitted train step).
LIBRARY_TRACERS: dict[str, tuple[tuple[int, ...], tuple[str, ...], int | None, str | None]] = {
    "jax.experimental.ode.odeint": ((0,), ("func",), None, None),
    "jax.scipy.optimize.minimize": ((0,), ("fun",), 1, None),
    **{f"diffrax.{t}": ((0,), ("vector_field",), 2, None)
       for t in ("ODETerm", "ControlTerm", "WeaklyDiagonalControlTerm")},
    **{f"optimistix.{s}": ((0,), ("fn",), 1, None) for s in ("root_find", "minimise", "least_squares", "fixed_point")},
    **{f"jaxopt.{s}": ((0,), ("fun", "residual_fun", "fixed_point_fun"), None, "jit")
       for s in ("GradientDescent", "LBFGS", "BFGS", "NonlinearCG", "ProximalGradient", "ArmijoSGD", "PolyakSGD",
                 "GaussNewton", "LevenbergMarquardt", "FixedPointIteration", "AndersonAcceleration")},
    **{f"optax.{o}": ((0,), ("learning_rate",), 1, None)
       for o in ("adabelief", "adadelta", "adafactor", "adagrad", "adam", "adamax", "adamaxw", "adamw", "adan",
                 "amsgrad", "fromage", "lamb", "lars", "lion", "noisy_sgd", "novograd", "optimistic_adam",
                 "optimistic_gradient_descent", "radam", "rmsprop", "rprop", "sgd", "sign_sgd", "signum", "sm3",
                 "yogi", "scale_by_learning_rate")},
    "optax.scale_by_schedule": ((0,), ("step_size_fn",), 1, None),
    "optax.GradientTransformation": ((0, 1), ("init", "update"), None, None),
    "optax.GradientTransformationExtraArgs": ((0, 1), ("init", "update"), None, None),
    "optax.stateless": ((0,), ("f",), None, None),
    "optax.stateless_with_tree_map": ((0,), ("f",), None, None),
}
#: ``optax.inject_hyperparams(optax.adam)(learning_rate=sched, ...)``: every hyperparameter
#: given as a function is called with the step count, as ``learning_rate`` above
INJECTED_HYPERPARAMS = "optax.inject_hyperparams"
#: Functions that trace a function abstractly and compile nothing, with their reason kind:
#: ``jax.eval_shape(f, *args)`` (at once, with ``args``), ``jax.make_jaxpr(f)(*args)``;
#: equinox's trace the array leaves only. What fails on any tracer fails there too (JAX104,
#: JAX105, JAX107, JAX111 report it); a cost paid per compile or per call (JAX101, JAX102,
#: JAX103, JAX109, JAX112) is not paid, and a print there runs once, at that trace, often on
#: purpose (equinox's internals print shapes so): JAX106 leaves such functions alone.
ABSTRACT_EVAL = {"jax.eval_shape": "eval_shape", "jax.make_jaxpr": "make_jaxpr",
                 "equinox.filter_eval_shape": "filter_eval_shape", "equinox.filter_make_jaxpr": "filter_make_jaxpr",
                 "flax.nnx.eval_shape": "nnx.eval_shape"}
ARRAY_LEAVES_ONLY_ABSTRACT = frozenset({"equinox.filter_eval_shape", "equinox.filter_make_jaxpr"})
#: Of ``TRACING_HOFS``, jax's checkpoint: it traces every argument of its function except
#: those at its own ``static_argnums``, also arguments a jit around it keeps static
#: (``jax.jit(jax.remat(f), static_argnums=0)`` gives ``f`` a tracer for ``0``).
CHECKPOINTS = frozenset({"jax.checkpoint", "jax.remat", "jax.ad_checkpoint.checkpoint"})
#: Of ``TRACING_HOFS``, equinox's filtered ones: they trace the array leaves of the
#: callable's arguments and keep every other value static (``filter_vmap`` without
#: ``in_axes`` too), so only parameters annotated as arrays are known traced.
ARRAY_LEAVES_ONLY_HOFS = frozenset({"equinox.filter_vmap", "equinox.filter_checkpoint"})
#: Of ``TRACING_HOFS``, those that pass the callable's arguments through as their caller
#: gives them (``mcmc.run(key, data)`` closes over ``data`` unless told to jit it): the
#: callable's parameters are not known to be traced, the values it makes are.
#: ``jax.named_call(f)(*args)`` only names ``f``'s part of the program: ``f`` runs with the
#: arguments as given (checked with jax 0.10.2: a Python bool arrives as a bool, eagerly and
#: under jit), so its parameters are as traced as the caller's arguments, no more
#: (unopened36: dinosaur's ``bool(reverse_einsum_arg_order)``, a false JAX105 error).
PASS_ARGUMENTS = frozenset({*(q for q in TRACING_HOFS if q.startswith("numpyro.")), "jax.named_call"})
#: Wrappers whose call takes arguments of its own before those it hands the wrapped
#: function: ``Predictive(model, ...)(rng_key, *args, **kwargs)`` runs ``model(*args,
#: **kwargs)`` (numpyro 0.22's ``Predictive.__call__(self, rng_key, *args, **kwargs)``): the
#: key is the wrapper's, not the model's first parameter (unopened36: jaxspec's
#: ``Predictive(self.numpyro_model, ...)(key, observed=False)`` in a jitted function made the
#: traced key the model's ``observed`` flag, and ``x if observed else None`` a false JAX105
#: error). A module class whose ``__call__`` takes parameters before a ``*args`` it hands on
#: is read the same way from its source (``Scopes.leading_arguments``).
OWN_LEADING_ARGUMENTS = {"numpyro.infer.Predictive": 1, "numpyro.infer.util.Predictive": 1}
#: Calls whose result is a traced value in traced code, unless the keyword named here is
#: given a value (an observed site returns what it observes).
SAMPLE_SITES = {"numpyro.sample": "obs", "numpyro.primitives.sample": "obs"}
#: flax linen's lifted transforms in their class form: ``nn.remat(Block)`` is a module
#: class whose ``__call__`` runs ``Block.__call__`` (under the transform) with the same
#: arguments (``nn.scan`` / ``nn.vmap`` slice or batch them, still traced).
LINEN_LIFTED = frozenset({"flax.linen.remat", "flax.linen.checkpoint", "flax.linen.jit", "flax.linen.vmap",
                          "flax.linen.scan", "flax.linen.remat_scan"})
#: Calls that stop the device program and run Python on the host (JAX109), with the
#: position and keyword of the host function of those that take one (``None``: none).
HOST_CALLBACKS: dict[str, tuple[int, str] | None] = {
    "jax.debug.print": None,
    "jax.debug.callback": (0, "callback"),
    "jax.debug.breakpoint": None,
    "jax.pure_callback": (0, "callback"),
    "jax.experimental.pure_callback": (0, "callback"),
    "jax.experimental.io_callback": (0, "callback"),
    "jax.experimental.host_callback.id_tap": (0, "tap_func"),
    "jax.experimental.host_callback.id_print": None,
    "jax.experimental.host_callback.call": (0, "callback_func"),
}
#: An argument of a call, by position (``None``: keyword only) and keyword.
Arg = tuple[int | None, str]


class KeyedDraw(NamedTuple):
    """A library layer or function that draws random numbers from a PRNG key given at the
    call (JAX114). ``instance``: the name is a class (or a factory) whose instances draw
    when called; else a function that draws. ``key``: where the call takes the key.
    ``off``: the call's flags whose true value returns the input without drawing; ``made_off``:
    the same flags given where the instance is made, read when the call gives none. ``rate``:
    the probability whose value 0 draws nothing, where the instance is made (or at the call,
    for a function)."""
    instance: bool
    key: Arg
    off: tuple[Arg, ...] = ()
    made_off: tuple[Arg, ...] = ()
    rate: Arg | None = None


#: Library calls whose key argument is drawn from: two of them given one key (or one on
#: every pass of a loop without a split) draw the same numbers, as two ``jax.random`` draws
#: would. Read from each library's source: equinox 0.13.8 ``eqx.nn.Dropout.__call__(x, *,
#: key, inference, deterministic)`` returns ``x`` when ``inference`` (the call's, else the
#: instance's) is true or ``p == 0``, else draws ``jr.bernoulli(key, 1 - p, x.shape)``; flax
#: 0.12.8 linen ``nn.Dropout(rate, broadcast_dims, deterministic)(inputs, deterministic,
#: rng)`` returns the input when ``rate == 0`` or ``deterministic``, else draws
#: ``random.bernoulli(rng, ...)`` (from ``make_rng`` when no ``rng`` is given: no key of the
#: caller's); haiku's ``hk.dropout(rng, rate, x)`` returns ``x`` when ``rate == 0``, else
#: draws ``jax.random.bernoulli(rng, ...)``. The initializer factories of
#: ``jax.nn.initializers`` (jax 0.10.2; flax re-exports them as ``nn.initializers``) make
#: functions ``init(key, shape, dtype)`` that draw from ``key`` (``random.normal``,
#: ``uniform``, ``truncated_normal``, ``orthogonal``); ``zeros``, ``ones`` and ``constant(v)``
#: draw nothing and are not here. Not here either: flax NNX's ``nnx.Dropout(...)(x,
#: rngs=...)``, whose ``rngs`` may be a key or a stream (``nnx.Rngs``, advanced by each
#: call), which a call does not tell apart.
_INITIALIZERS = ("normal", "uniform", "truncated_normal", "variance_scaling", "glorot_normal", "glorot_uniform",
                 "xavier_normal", "xavier_uniform", "he_normal", "he_uniform", "kaiming_normal", "kaiming_uniform",
                 "lecun_normal", "lecun_uniform", "orthogonal", "delta_orthogonal")
KEYED_DRAWS: dict[str, KeyedDraw] = {
    **{f"{home}.{name}": KeyedDraw(True, (0, "key")) for name in _INITIALIZERS
       for home in ("jax.nn.initializers", "flax.linen.initializers", "flax.nnx.initializers")},
    "equinox.nn.Dropout": KeyedDraw(True, (None, "key"), off=((None, "inference"), (None, "deterministic")),
                                    made_off=((1, "inference"), (None, "deterministic")), rate=(0, "p")),
    "flax.linen.Dropout": KeyedDraw(True, (2, "rng"), off=((1, "deterministic"),),
                                    made_off=((2, "deterministic"),), rate=(0, "rate")),
    "flax.linen.stochastic.Dropout": KeyedDraw(True, (2, "rng"), off=((1, "deterministic"),),
                                               made_off=((2, "deterministic"),), rate=(0, "rate")),
    "haiku.dropout": KeyedDraw(False, (0, "rng"), rate=(1, "rate")),
}
#: Decorators that give a function its own differentiation rules, with the methods that
#: define them: ``f.defvjp(fwd, bwd)``, ``f.defjvp(rule)`` (also as ``@f.defjvp``).
#: The rules run when ``f`` is differentiated: on tracers inside a trace (``jit(grad(f))``),
#: on concrete primal values under a ``jax.grad`` applied eagerly.
CUSTOM_RULES: dict[str, tuple[str, ...]] = {
    "jax.custom_vjp": ("defvjp",),
    "jax.custom_jvp": ("defjvp", "defjvps"),
    "equinox.filter_custom_vjp": ("def_fwd", "def_bwd"),
    "equinox.filter_custom_jvp": ("def_jvp",),
}
#: equinox's rules (``@eqx.filter_custom_vjp`` with ``@f.def_fwd`` / ``@f.def_bwd``,
#: ``@eqx.filter_custom_jvp`` with ``@f.def_jvp``): the positions of each rule's parameters
#: that hold tracers whatever they are annotated (``def_bwd(residuals, grad_obj, perturbed,
#: *args)``, ``def_jvp(primals, tangents)``); the others are ``perturbed`` (Python bools) and
#: ``f``'s arguments, of which only the array leaves are traced (equinox 0.13.8).
EQX_RULE_TRACED: dict[str, tuple[int, ...]] = {"def_fwd": (), "def_bwd": (0, 1), "def_jvp": (0, 1)}
#: Differentiation transforms: their callable is traced when the result runs under
#: another trace (inside jit); on their own they run with concrete values.
DIFF_TRANSFORMS = {
    "jax.grad",
    "jax.value_and_grad",
    "jax.jacfwd",
    "jax.jacrev",
    "jax.hessian",
    "jax.jvp",
    "jax.vjp",
    "jax.linearize",
    "flax.nnx.grad",
    "flax.nnx.value_and_grad",
    "equinox.filter_grad",
    "equinox.filter_value_and_grad",
    "equinox.filter_jacfwd",
    "equinox.filter_jacrev",
    "equinox.filter_hessian",
    "equinox.filter_jvp",
    "equinox.filter_vjp",
}
#: Of ``DIFF_TRANSFORMS``, those that run the function at once on every primal given
#: (``jax.jvp(f, primals, tangents)``, ``jax.vjp(f, *primals)``, ``jax.linearize``), and
#: of them equinox's, which trace the array leaves only (a Python ``int`` primal stays an
#: ``int``: checked with equinox 0.13.8), so only parameters annotated as arrays are known traced.
PRIMAL_TRANSFORMS = frozenset({"jax.jvp", "jax.vjp", "jax.linearize", "equinox.filter_jvp", "equinox.filter_vjp"})
ARRAY_LEAVES_ONLY_DIFF = frozenset({"equinox.filter_jvp", "equinox.filter_vjp"})
#: Transforms whose transformed function gives arrays: called in traced code
#: (``jax.grad(loss)(params)``, ``grad_fn(x)`` with ``grad_fn = jax.value_and_grad(f)``),
#: its results are tracers of the enclosing trace whatever it is given (filtered
#: transforms pass Python values through, so they are not here).
ARRAYS_OUT = frozenset({"jax.grad", "jax.value_and_grad", "jax.jacfwd", "jax.jacrev", "jax.hessian", "jax.vmap",
                        "jax.jit", "flax.nnx.grad", "flax.nnx.value_and_grad"})
#: Attributes of an array that are static Python values under tracing.
STATIC_ATTRS = {"shape", "ndim", "dtype", "size", "itemsize", "nbytes", "sharding", "weak_type", "aval"}
#: Calls whose result is static even when given traced values.
STATIC_CALLS = {
    "builtins.len",
    "builtins.isinstance",
    "builtins.type",
    "builtins.hasattr",
    "builtins.getattr",
    "builtins.id",
    "builtins.callable",
    "jax.numpy.shape",
    "jax.numpy.ndim",
    "jax.numpy.size",
    "jax.numpy.result_type",
    "jax.numpy.dtype",
    "jax.numpy.issubdtype",
    "jax.numpy.iinfo",
    "jax.numpy.finfo",
    "numpy.shape",
    "numpy.ndim",
    "numpy.prod",
    "numpy.dtype",
    "jax.tree_util.tree_structure",
    "jax.tree.structure",
    "jax.eval_shape",
    "equinox.filter_eval_shape",
    "flax.nnx.eval_shape",
    "jax.core.get_aval",
    "jax.core.valid_jaxtype",  # a predicate: a Python bool for a tracer too
    "jax._src.core.valid_jaxtype",
    "jax.typeof",
}
#: Functions of jax's (and numpy's) namespaces whose result is static whatever they are
#: given, by short name: shape and dtype queries (a dtype is a Python object:
#: ``jnp.promote_types(a, b)``, ``np.result_type(x)``), tree structures, device counts.
STATIC_JAX_FUNCS = frozenset({
    "shape", "ndim", "size", "dtype", "result_type", "issubdtype", "iinfo", "finfo", "promote_types", "can_cast",
    "isdtype", "iscomplexobj", "isrealobj", "isscalar", "broadcast_shapes", "issubsctype", "tree_structure",
    "structure", "treedef_is_leaf", "eval_shape", "typeof", "get_aval", "default_backend", "device_count",
    "local_device_count", "process_index", "process_count", "devices", "local_devices", "axis_size",
    "canonicalize_dtype",
    # jax.lax's options are Python objects made at trace time, not arrays: an enum or a
    # named tuple of dimension numbers stays hashable and static whatever traces around it
    "Precision", "DotAlgorithm", "DotAlgorithmPreset", "GatherDimensionNumbers", "ScatterDimensionNumbers",
    "ConvDimensionNumbers", "conv_dimension_numbers", "GatherScatterMode", "RoundingMethod", "FftType",
    "RandomAlgorithm", "padtype_to_pads"})
ARRAY_ANNOTATIONS = ("jax.Array", "jax.numpy.ndarray", "jax.typing.ArrayLike", "chex.Array", "jaxtyping.")
#: jaxtyping names that are containers or helpers, not arrays (``PyTree[Any]`` may hold anything)
NOT_ARRAY_ANNOTATIONS = {"jaxtyping.PyTree", "jaxtyping.PyTreeDef", "jaxtyping.jaxtyped"}
#: array types of other libraries that a jaxtyping annotation may wrap (``Float[np.ndarray, "n"]``)
FOREIGN_ARRAY_MODULES = ("numpy.", "torch.", "tensorflow.")
BUILTINS = {
    "print", "open", "len", "range", "int", "float", "bool", "complex", "isinstance",
    "type", "hasattr", "getattr", "id", "callable", "list", "dict", "tuple", "set",
    "enumerate", "zip", "sum", "min", "max", "abs", "round", "input", "str", "iter",
    "next", "sorted", "reversed", "map", "filter", "any", "all", "divmod", "pow", "object",
}

_R = "jax.random."
_SAMPLERS_1 = ("normal", "uniform", "randint", "gumbel", "exponential", "laplace", "logistic", "cauchy", "rademacher",
               "maxwell", "bits")
#: Shape-taking APIs and their size arguments (position, keyword): each must be a Python
#: value at trace time. Any other ``jax.random`` function's ``shape=`` is one too.
SIZE_ARGS: dict[str, tuple[tuple[int | None, str], ...]] = {
    **{f"jax.numpy.{n}": ((0, "shape"),) for n in ("zeros", "ones", "empty", "full")},
    **{f"jax.numpy.{n}": ((2, "shape"),) for n in ("zeros_like", "ones_like", "empty_like")},
    "jax.numpy.full_like": ((3, "shape"),),
    "jax.numpy.eye": ((0, "N"), (1, "M")), "jax.numpy.identity": ((0, "n"),),
    "jax.numpy.tri": ((0, "N"), (1, "M")),
    "jax.numpy.arange": ((0, "start"), (1, "stop"), (2, "step")),
    **{f"jax.numpy.{n}": ((2, "num"),) for n in ("linspace", "logspace", "geomspace")},
    "jax.numpy.reshape": ((1, "shape"), (None, "newshape")),
    "jax.numpy.broadcast_to": ((1, "shape"),), "jax.numpy.resize": ((1, "new_shape"),),
    "jax.numpy.tile": ((1, "reps"),), "jax.numpy.repeat": ((1, "repeats"),), "jax.numpy.pad": ((1, "pad_width"),),
    "jax.numpy.split": ((1, "indices_or_sections"),), "jax.numpy.array_split": ((1, "indices_or_sections"),),
    "jax.numpy.triu_indices": ((0, "n"), (2, "m")), "jax.numpy.tril_indices": ((0, "n"), (2, "m")),
    "jax.numpy.indices": ((0, "dimensions"),),
    "jax.nn.one_hot": ((1, "num_classes"),),
    "jax.lax.full": ((0, "shape"),), "jax.lax.full_like": ((3, "shape"),), "jax.lax.iota": ((1, "size"),),
    "jax.lax.broadcast": ((1, "sizes"),), "jax.lax.broadcast_in_dim": ((1, "shape"),),
    "jax.lax.reshape": ((1, "new_sizes"),), "jax.lax.dynamic_slice": ((2, "slice_sizes"),),
    "jax.lax.dynamic_slice_in_dim": ((2, "slice_size"),),
    "jax.lax.slice": ((1, "start_indices"), (2, "limit_indices"), (3, "strides")),
    "jax.lax.top_k": ((1, "k"),), "jax.image.resize": ((1, "shape"),),
    **{_R + n: ((1, "shape"),) for n in _SAMPLERS_1},
    **{_R + n: ((2, "shape"),) for n in ("bernoulli", "poisson", "gamma", "dirichlet", "t", "chisquare", "choice")},
    **{_R + n: ((3, "shape"),) for n in ("truncated_normal", "categorical", "beta", "multivariate_normal")},
    _R + "split": ((1, "num"),), _R + "orthogonal": ((1, "n"), (2, "shape")),
}


def is_axis_size(call: ast.Call, q: str | None) -> bool:
    """``lax.psum(1, "i")`` (a Python number summed over a named axis: jax's idiom for the
    axis size, a concrete Python value) or ``lax.axis_size("i")``."""
    if q == "jax.lax.axis_size":
        return True
    return q == "jax.lax.psum" and bool(call.args) and isinstance(call.args[0], ast.Constant) \
        and isinstance(call.args[0].value, (int, float)) and not isinstance(call.args[0].value, bool)


def literal_int(node: ast.AST | None) -> int | None:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        v = literal_int(node.operand)
        return -v if v is not None else None
    return None


def literal_ints(node: ast.AST | None) -> tuple[int, ...] | None:
    """``1`` or ``(0, 2)`` or ``[1]`` as a tuple of ints; None when not literal."""
    v = literal_int(node)
    if v is not None:
        return (v,)
    if isinstance(node, (ast.Tuple, ast.List)):
        vals = [literal_int(e) for e in node.elts]
        if all(x is not None for x in vals):
            return tuple(vals)  # type: ignore[arg-type]
    return None


def literal_strs(node: ast.AST | None) -> tuple[str, ...] | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return (node.value,)
    if isinstance(node, (ast.Tuple, ast.List)):
        if all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts):
            return tuple(e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str))
    return None
