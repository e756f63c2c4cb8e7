from __future__ import annotations

import ast
import inspect
import json
import math
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Mapping

from jaxlint.diagnostic import Severity
from jaxlint.rule import Invalid, Option, TraceRule, Valid, is_test_path

if TYPE_CHECKING:
    from jaxlint.dynamic.analysis import FunctionAnalysis
    from jaxlint.dynamic.signatures import Signature


#: a jit made at every iteration of a loop
PER_CALL_PROGRAM = """
import jax

def step(x):
    return x * 2

def run(x):
    for _ in range(150):
        x = jax.jit(step)(x)
    return x
"""
#: its recording: `jax.jit(step)(x)` called at 150 iterations (``SECONDS``: what
#: making the jitted functions and their first calls took in all)
PER_CALL_RECORD = """
    {"format": 1, "functions": {"{module}:step": {"file": "{module}.py", "line": 3, "signatures": [
      {"args": ["f32[8]"], "kwargs": {}, "calls": 150, "compiles": 1, "jit_objects": 150, "fresh_seconds": SECONDS}
    ]}}}
"""


class Recompilation(TraceRule):
    """
    ## What it does
    Reports a jitted function that is compiled again and again when it need not be.
    It reads what `jaxlint record` saw the program do: every signature a jitted
    function was called with and, when the recording analysed the program (the
    default), what jax really compiled for each one and the user line of the call that
    caused each compile. A call made inside another jitted function's trace is inlined
    there and never counts as a compile of its own.

    Deliberate use stays quiet: two input shapes each called many times (a training and
    an evaluation batch size), or a handful of shapes each used once in a script. It
    reports avoidable churn:

    * a smaller last batch or sequence (a rare signature whose dimensions shrink, called
      from the same line as the common one);
    * one dimension that grows call after call by steady steps (a generated length, a
      cache, a sequence: `(1, 65) -> (1, 66) -> (1, 67)`), with its trajectory; three
      sizes are enough when one call line in a loop makes them by a constant step small
      beside the sizes (a token a call); sizes that double (bucketing, a sweep), a sweep
      of three sizes by large steps, and two fixed sizes are deliberate;
    * a change of sharding (arrays placed by default in the first call and sharded by
      the step's own output afterwards, or moved to another mesh or spec), named with
      the mesh and partition spec before and after;
    * a function that changes the shape or dtype of its own state: the recording notes,
      at each new signature's first call, which leaves of its arguments the previous new
      signature's first call returned (the same arrays), and the line of the function
      that made each returned array (the jaxpr equation that made the output); when such
      a leaf has another shape or dtype than the one that call was given (a running mean
      updated with `jnp.mean(x, axis=0, keepdims=True)` in a flax `batch_stats`, a
      float64 state returned float32), and the call it was passed back to
      returns it as it was given (the state stays in its new shape), the next call
      compiles again for what the step itself returned: said at that line, with the call
      that passed it back related. A dtype the step widens (float32 in and float64 out in a
      program that turned x64 on, int32 to float32, a bfloat16 carry multiplied by float32
      weights) is fixed where the narrow value is made, not in the step (every call after
      the first gets it wide anyway, so making it wide there keeps the program's numbers):
      followed back from the first call through the statements that bound what it reads
      to the nearest that names the narrow dtype (`Q = random_quaternion(key, jnp.float32)`
      behind `body = RigidBody(R, Q)` behind `state = init(body)`), said there ("make it
      float64 where it is made") with the step's line and the call related; when no line
      of the program names that dtype (a library made it, as flax makes its parameters
      float32), at the statement where the program receives it. A function applied again to its own output that changes
      it each time (an image pyramid's `downsample`) is a pipeline, not a state: quiet. Only `jax.jit` calls, and only the call that follows a new signature's first
      call (the outputs of later calls are not kept: the fast path stays as it was); a
      weak type that changes is said where the weak value was made (below);
    * a new shape on most calls, or more than `max-signatures` distinct signatures;
    * a second compile for leaves the function never reads: a structure passed whole
      whose unread leaves change (a dm_env `TimeStep` whose `reward` is `None` at a
      restart and a float after, given to an actor that reads its `observation`). The
      recording notes, at each signature's first call, which leaves of the arguments the
      traced program never reads (jax drops them from what it compiles, `keep_unused`
      off) and a digest of the program without them: when two signatures differ only in
      such leaves and their programs are the same, the compile is avoidable for certain
      and is reported, even for two signatures each called many times, at the call that
      passes the whole structure, naming the leaves the function does read (pass only
      those); for `jax.jit` (static arguments by position, by name or counted from the
      end of each call's arguments) and `equinox.filter_jit` (its array leaves). It is
      certain (jax's own trace shows it) and costs a compile per structure,
      so it is a warning of the rule's group, like the other recompiles;
    * weak-type flips (a Python scalar in one call, an array in the next), dtype drift,
      floats passed as static arguments, and Python numbers a transform keeps static
      without being asked (a step counter in an `equinox` module under `filter_jit`),
      also when a later call passes the number as an array (`step = 0` before a loop
      that rebinds `step` from what an `equinox.filter_jit` step returns: a program for
      the number, another for the array);
    * a new object in a static field of a flax NNX graph that compares by identity (an
      `optax` transformation, a closure, made anew for each `nnx.ModelAndOptimizer(model,
      optax.adam(1e-3))`): `nnx.jit` compiles again for each one; said at the line that
      made the object, with the call that compiled again as related (make it once and
      reuse it), also where another function made it: a caller up the stack that passed
      it down (each helper's parameter followed to every call of that helper in the
      file, a few functions up, when they all pass the same thing) or a method that kept
      it on `self` (`self._optimizer = nnx.ModelAndOptimizer(...)` in an estimator's
      `fit`, read back in another method: the statement before the read in the same
      method, else the one statement of the class that sets it to other than a
      constant); where callers pass different objects, or code outside the class sets
      the attribute or calls the method, the source does not say which, and it stays
      at the call;
    * the same signature compiled again and again: a new jitted function object on
      every call (`jax.jit` inside a loop, or of a new closure), said only when the
      recording saw the jitted function object change; when the same one compiled again
      for the same arguments the message says that something around the call changed
      (a jax setting, the mesh context) and how to make jax name it;
    * a new jitted function made for each call that compiles nothing again
      (`jax.jit(step)(state)` at every iteration of a loop: jax shares the compiled
      program between jits of one function, but each new one is built again and misses
      jit's caches on its first call, milliseconds a call for a step with a real state):
      at least 100 of them, made one after another and called about once each, whose
      making and first calls took at least `made-per-call-seconds` in all, as the
      recording measured them (CPU time of the calling thread, so that the finding does
      not come and go with the machine's load). It is said at the line that jits the
      function, with the measured time per call (the static JAX103 only estimates it).

    * the same function jitted again on each run of a function that loops over it
      (`step = nnx.jit(fit_step)` and `nnx.Optimizer(model, optax.adam(1e-3))` inside a
      `train` the program calls once per configuration): jitted function objects of the
      function itself (the recording tells them from a factory's closures), each used for
      many calls from one call line, compiled once each although their signatures are the
      same (a new `nnx.jit` compiles again) or differ only in a static field that
      compares by identity (the optimizer's `tx`). Said where that object is made (the
      `optax.adam(...)` in the constructor, or the statement that bound the name given
      there), naming the run function and the jit line and advising to make both once
      outside it, or, for the same signature, at the jit line; the call related.

    A declared static argument switched among a few values (a `train` flag, a mode) is
    a program per value that the caller means: it stays quiet. So are jits a factory
    makes once per closure (a step per optimizer or per model), each called many times:
    signatures are compared within one jitted function object, and only objects made
    per call (called once each) are compared together. A function defined again at
    another line (a notebook's cell per optimizer) is a function of its own.

    The finding sits where the cause is made when the caller's source says so: for a
    growing input, the statement in the loop around the call that rebinds it
    (`tokens = jnp.concatenate([tokens, tok], axis=1)`); for a Python number that comes
    back as an array (a step counter started as `State(params, step=0)`, an environment
    state built with `time=0` in a `reset()` of the same file, a flax
    `TrainState.create(...)`, a start value `theta = 1.0` the loop then rebinds from the
    step), the literal, the constructor or the statement that made it; so for a Python
    number that `equinox.filter_jit` keeps static in one call and that another call passes
    as an array (`step = 0`, `State(w, step=0)`, `lr = 0.1` before the loop), with
    `jnp.asarray(0)` as the remedy (given the dtype of the array when that is strong); for a
    Python number that the loop around the call rebinds to what NumPy returns (a sampler's
    step size, `eps = np.exp(np.mean(np.log(eps_list)))` after its burn-in: a NumPy scalar,
    which jit takes as a strong array where the Python number was weak), that statement, with
    `float(...)` there as the remedy; for a field deep in
    an object of a class of the caller's file (`model.func.out_scale`), the assignment in
    that class's `__init__` that made it, followed through each `self.func = Func(...)`
    (`self.out_scale = jnp.array(1.0)`: said as an array made without a dtype, which jax
    keeps weak, not as a Python number), and through the functions of the file that build
    and return the object (`net, optimizer, opt_state = init_trainer()` unpacking `return
    net, optimizer, opt_state`, `net = init_net(key)` in it, `return Net(d=jnp.array(1.0),
    ...)` there; a module global a function reads), in a notebook across its cells (the
    source read is the notebook's code, the lines said are its cells'); a leaf that
    `equinox.filter_jit` traces weak-typed is an array made without a dtype (it keeps a
    Python number static), said so ("a weak-typed array -> a strong one"), and the statement
    that made it (`y = start(3)`) as where a weak-typed array is made, to give the dtype the
    step returns; the value is followed in the call that had it
    weak, whichever signature came first (a solver's init that compiles the function for
    a strong value before the loop's first call passes the weak one), and, when that call
    was not the first, only to a line that shows the value made weak (a literal number, a
    `jnp.array(0.0)` without a dtype), never to what the loop bound before it; for a value
    the caller's function takes as a parameter, the statement that binds what every call of that function in the file
    passes for it (`y = jnp.array(0.0)` at module level before `solve(y, solver)`, two
    callers deep at most; a `**kwargs` call such as `eqx.Partial`'s by keyword); for an
    element of a tuple argument (`args[1]` of `step(i, opt_state, args)` with `args = (alpha,
    beta, gamma)` before the loop that rebinds it), the statement that made that element
    (`beta = jnp.array(1.0)`), when it shows the value made weak, the first weak leaf the
    source follows (not `opt_state[0].mu[1]`, which `opt.init` computed from it); for an
    entry of a container (`theta['mean']` with `theta = {"mean": 0.0, ...}` before the loop,
    a `dict(mean=0.0)` call, a constructor's keyword `Fit(theta={...})` read back as
    `theta = fit.theta`, a list or tuple display), the number that entry is given, said as
    the typed scalar to write there (`jnp.float32(0.0)` or `np.float32(0.0)`, the dtype the
    step returns), or the array of one made without a dtype (`jnp.array(0.0)`); when
    several leaves of one argument start weak, each gets its remedy, or the compile stays:
    the one the statement that makes the argument names (`position` in `state =
    init(init_position)`) there first, one it does not name (a field a library's `init`
    sets) after that statement (`state = state._replace(level=jnp.asarray(state.level,
    jnp.int32))` for a NamedTuple, `.replace(...)` for a flax struct, `dataclasses.replace`
    for a dataclass, else "make it an array"); for a smaller last batch that the loop takes from
    a generator or function of the caller's file (`for step, (x, y) in zip(range(n),
    dataloader(...))`), the loop in it that decides where each batch ends (`while start <
    dataset_size:`); for an input
    the caller pads before the call to a size computed from its length (`np.pad(x,
    ((0, size - n), (0, 0)))` on the statement that binds it, or in a function of the same
    file that returns it), that `pad` call; for a change of sharding, placement or
    committedness (a state from `init` left on the default device while the step returns it
    committed to the batch's device, parameters placed by `flax.jax_utils.replicate` or
    `jax.device_put` on another mesh than the one a `pmap` or the step returns), the
    statement that made or placed the first call's value; but when the leaf is a field of
    a model that the first call had replicated (`P()`) and a class of the caller's file
    declares its sharding where it makes the field (`self.w2 = nnx.Param(...,
    out_sharding=...)`, `kernel_init=nnx.with_partitioning(...)`, one such assignment of
    that field in the file), the declaration, said as not applied (a mesh axis it names
    that does not divide the shape, or no mesh where it was made), with the step's output
    sharding to declare there instead, and the statement that made the first call's value
    related. The call that compiled again is
    then a related location. Padding to each input's own size (or to multiples of a step) is a warning;
    padding to power-of-two buckets is the fix, bounded to one compile per doubling of the
    longest input, and is said as an info that says so (quiet, as before, when each bucket
    is called often enough). Otherwise the finding sits at that call,
    with the place where the function is jitted and its first call as related
    locations. It names what
    changed, down to a model's leaf: "`state.step` changes from a Python int (traced as
    a weak-typed scalar) to i32[]", `x` changes shape (128, 512) -> (96, 512),
    "`params['w']` changes sharding uncommitted on one device (the default) -> P() on
    mesh (data: 8)", as `jax_explain_cache_misses` would. Every recorded signature is
    counted. Records
    that differ only where jit sees no difference are one signature: a Python number
    among a pytree's leaves (`TrainState(step=0)`) is traced as a weak-typed scalar,
    the same as the weak `i32[]` array a jitted `step + 1` returns. Under
    `equinox.filter_jit` such numbers are static, and a new value is a new compile.

    Without a recording it stays quiet, and so it does for a function only a test suite
    called (`jaxlint record -- pytest`): tests try many shapes, dtypes and fresh
    wrappers on purpose (`check-tests` reports them too).

    ## Why is this bad?
    Each compile is a trace and an XLA compile: seconds for a real training step, paid
    again for every new shape, dtype, weak type or static value. A last batch of another
    size compiles a second program every epoch; a Python float passed as a static
    argument compiles one program per value; a function jitted inside the loop compiles
    on every iteration.

    ## Example
    ```python
    for batch in loader:          # the last batch is smaller
        state = train_step(state, batch)
    ```

    ## Use instead
    ```python
    loader = DataLoader(..., drop_last=True)   # or pad the last batch
    ```

    ## Options

    ## References
    * [JAX: jit caching](https://docs.jax.dev/en/latest/jit-compilation.html)
    * [`jax_explain_cache_misses`](https://docs.jax.dev/en/latest/config_options.html)
    """

    code = "JAX208"
    group = "perf"
    name = "recompilation"
    summary = "a jitted function is compiled again and again (new shapes, dtypes, weak types, static values, wrappers)"
    fix_hint = "keep shapes, dtypes and static arguments fixed across calls (pad, cast, or make it an array)"
    reads_signatures = True  # `jaxlint record` points to this rule
    # the measured form of "a new jit wrapper per call" at the same call
    supersedes = ("JAX103",)
    options = {
        "max-signatures": Option(8, "report a function compiled for more distinct signatures than this", int, 1),
        "made-per-call-seconds": Option(1.0, "report a jitted function made again for each call (without compiling "
                                        "again) only when making the new ones and their first calls took at least "
                                        "this many seconds in all, as the recording measured them (the calling thread's CPU time)", (int, float), 0),
        "check-tests": Option(False, "also report functions whose every recorded call came from a test file "
                                     "(`test_*.py`, `*_test.py`)", bool),
    }

    VALID = [
        Valid(
            """
            import jax

            @jax.jit  # jaxlint: args=(f32[8],)
            def f(x):
                return x * 2
            """
        ),
        # the first call's `step` is the Python int 0, later calls get the weak int32[]
        # array `step + 1` returned: the same abstract value to jit, one compile
        Valid(
            """
            import jax

            @jax.jit
            def train_step(state):
                return state
            """,
            files={".jaxlint/signatures.json": """
                {"format": 1, "functions": {"{module}:train_step": {"file": "{module}.py", "line": 3, "signatures": [
                  {"args": [{"opaque": "flax.training.train_state.TrainState", "static": "5161",
                             "leaves": {".step": "i32[] weak", ".params['w']": "f32[4,2]"}}], "kwargs": {}, "calls": 9},
                  {"args": [{"opaque": "flax.training.train_state.TrainState", "static": "5161",
                             "leaves": {".step": {"value": 0}, ".params['w']": "f32[4,2]"}}], "kwargs": {}, "calls": 1}
                ]}}}
            """},
        ),
        # deliberate: a training and an evaluation batch size, each called many times
        Valid(
            """
            import jax

            @jax.jit
            def predict(params, x):
                return x @ params
            """,
            files={".jaxlint/signatures.json": """
                {"format": 1, "functions": {"{module}:predict": {"file": "{module}.py", "line": 3, "signatures": [
                  {"args": ["f32[64,10]", "f32[128,64]"], "kwargs": {}, "calls": 50},
                  {"args": ["f32[64,10]", "f32[512,64]"], "kwargs": {}, "calls": 40}
                ]}}}
            """},
        ),
        # deliberate: a script that runs a few sizes once each
        Valid(
            """
            import jax

            @jax.jit
            def solve(a):
                return a @ a
            """,
            files={".jaxlint/signatures.json": """
                {"format": 1, "functions": {"{module}:solve": {"file": "{module}.py", "line": 3, "signatures": [
                  {"args": ["f32[16,16]"], "kwargs": {}, "calls": 1},
                  {"args": ["f32[32,32]"], "kwargs": {}, "calls": 1},
                  {"args": ["f32[64,64]"], "kwargs": {}, "calls": 1}
                ]}}}
            """},
        ),
        # a call inside another jitted function's trace is inlined there: no compile
        Valid(
            """
            import jax

            @jax.jit
            def layer(x):
                return x * 2
            """,
            files={".jaxlint/signatures.json": """
                {"format": 1, "functions": {"{module}:layer": {"file": "{module}.py", "line": 3, "signatures": [
                  {"args": ["f32[8,4]"], "kwargs": {}, "calls": 9},
                  {"args": ["f32[5,4]"], "kwargs": {}, "calls": 1, "inlined": true}
                ]}}}
            """},
        ),
        # a program `jaxlint record` runs: `clip` is called inside `step`'s trace with each
        # parameter's shape, inlined there; `step` itself compiles once
        Valid(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit
            def clip(g):
                return jnp.clip(g, -1.0, 1.0)

            @jax.jit
            def step(params):
                return {k: clip(v) for k, v in params.items()}

            if __name__ == "__main__":
                params = {"w": jnp.ones((8, 4)), "b": jnp.ones(4), "s": jnp.ones(())}
                for _ in range(5):
                    params = step(params)
            """,
            run=True,
        ),
        # a test suite tries many shapes on purpose: every call came from a test file
        Valid(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit
            def normalize(x):
                return x / jnp.linalg.norm(x)

            if __name__ == "__main__":
                import test_shapes
                test_shapes.test_many_shapes()
            """,
            files={"test_shapes.py": """
                import jax.numpy as jnp
                from {module} import normalize

                def test_many_shapes():
                    for n in range(1, 12):
                        normalize(jnp.ones((n, 3)))
            """},
            run=True,
        ),
        # 150 jitted functions made one after another, each called once, one compile: their
        # making and first calls took 0.04 s in all, below `made-per-call-seconds`
        Valid(
            PER_CALL_PROGRAM,
            files={".jaxlint/signatures.json": PER_CALL_RECORD.replace("SECONDS", "0.04")},
        ),
    ]
    INVALID = [
        # a program `jaxlint record` runs: its loop's last batch is smaller, so the step
        # compiles again there (reported at that call)
        Invalid(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit
            def step(w, x):
                return w - 0.1 * (x @ w).mean()

            if __name__ == "__main__":
                w = jnp.ones((16, 16))
                for size in (64, 64, 64, 64, 40):
                    w = step(w, jnp.ones((size, 16)))
            """,
            line=11,
            message="`x` changes shape (64, 16) -> (40, 16) (a smaller final batch or sequence",
            run=True,
        ),
        # a jit built inside the loop: the same signature compiles on every iteration
        Invalid(
            """
            import jax
            import jax.numpy as jnp

            if __name__ == "__main__":
                x = jnp.ones(8)
                for scale in (1.0, 2.0, 3.0):
                    x = jax.jit(lambda v: v * scale)(x)
            """,
            line=7,
            message="was compiled 3 times for the same signature: each call makes a new jitted function",
            run=True,
            select=("JAX103",),
        ),
        # `self` as a static argument, a new object each time: one compile per object
        Invalid(
            """
            import functools
            import jax
            import jax.numpy as jnp

            class Model:
                @functools.partial(jax.jit, static_argnums=0)
                def apply(self, x):
                    return x * 2

            if __name__ == "__main__":
                for _ in range(3):
                    Model().apply(jnp.ones(3))
            """,
            line=12,
            message="the static argument `self` is a new object on each call",
            run=True,
        ),
        # a float as a static argument: one compile per value
        Invalid(
            """
            import functools
            import jax

            @functools.partial(jax.jit, static_argnames="lr")
            def sgd(w, g, lr):
                return w - lr * g
            """,
            line=4,
            message="`lr` (static) changes value 0.1 -> 0.05",
            files={".jaxlint/signatures.json": """
                {"format": 1, "functions": {"{module}:sgd": {"file": "{module}.py", "line": 4,
                  "static_argnames": ["lr"], "signatures": [
                  {"args": ["f32[8]", "f32[8]", {"value": 0.1}], "kwargs": {}, "calls": 30},
                  {"args": ["f32[8]", "f32[8]", {"value": 0.05}], "kwargs": {}, "calls": 30}
                ]}}}
            """},
        ),
        Invalid(
            """
            import jax

            @jax.jit
            def f(x):
                return x * 2
            """,
            line=3,
            message="`x` changes shape (8,) -> (5,)",
            # `{module}` is the example's module name (the example harness fills it in)
            files={".jaxlint/signatures.json": """
                {"format": 1, "functions": {"{module}:f": {"file": "{module}.py", "line": 3, "signatures": [
                  {"args": [{"array": [8], "dtype": "float32", "weak": false}], "kwargs": {}, "calls": 9},
                  {"args": [{"array": [5], "dtype": "float32", "weak": false}], "kwargs": {}, "calls": 1}
                ]}}}
            """},
        ),
        Invalid(
            """
            import jax

            @jax.jit
            def train_step(state):
                return state
            """,
            line=3,
            message="`state.opt_state[1][0].count` changes shape (2,) -> (); "
                    "`state.step` changes from i32[] to a Python int (traced as a weak-typed scalar)",
            files={".jaxlint/signatures.json": """
                {"format": 1, "functions": {"{module}:train_step": {"file": "{module}.py", "line": 3, "signatures": [
                  {"args": [{"opaque": "flax.training.train_state.TrainState", "static": "5161",
                             "leaves": {".step": "i32[]", ".opt_state[1][0].count": "i32[2]"}}],
                   "kwargs": {}, "calls": 9},
                  {"args": [{"opaque": "flax.training.train_state.TrainState", "static": "5161",
                             "leaves": {".step": {"value": 0}, ".opt_state[1][0].count": "i32[]"}}],
                   "kwargs": {}, "calls": 1}
                ]}}}
            """},
        ),
        # a program `jaxlint record` runs: `equinox.filter_jit` keeps the Python number `step = 0`
        # static, and the step returns it as an array, so the second call compiles again
        # (reported where the number is made, the call related)
        Invalid(
            """
            import equinox as eqx
            import jax
            import jax.numpy as jnp

            @eqx.filter_jit
            def make_step(w, step):
                return w * 0.9, jax.lax.fori_loop(0, 2, lambda i, s: s + 1, step)

            if __name__ == "__main__":
                w = jnp.ones(4)
                step = 0
                while step < 6:
                    w, step = make_step(w, step)
            """,
            line=11,
            message="`step` starts as the Python number 0 made at line 11, which `equinox.filter_jit` keeps static, "
                    "and later calls pass it as an array (i32[] weak): make it an array there (`jnp.asarray(0)`)",
            run=True,
        ),
        # a program `jaxlint record` runs: the step size starts as a Python number (weak) and
        # the loop makes it a NumPy scalar (strong) after four steps: reported where NumPy makes it
        Invalid(
            """
            import jax
            import numpy as np

            @jax.jit
            def step(x, eps):
                return x - eps * x

            if __name__ == "__main__":
                x, eps, seen = jax.numpy.ones(3), 0.01, np.full(4, 0.01)
                for i in range(8):
                    x = step(x, eps)
                    if i >= 4:
                        eps = np.exp(np.mean(np.log(seen)))
                    else:
                        eps *= 1.01
            """,
            line=13,
            message="the loop rebinds it at line 13 to what NumPy returns (`np.exp(np.mean(np.log(seen)))`), a NumPy "
                    "scalar that jit takes as a strong f32[]: keep it a Python number there (`float(...)`)",
            run=True,
        ),
        # the recording of the last valid example, measured at 2.5 s in all: 16.78 ms a call
        Invalid(
            PER_CALL_PROGRAM,
            line=8,
            message="`step` was called 150 times through 150 jitted functions made one after another",
            files={".jaxlint/signatures.json": PER_CALL_RECORD.replace("SECONDS", "2.5")},
        ),
    ]

    def check(self, ctx: FunctionAnalysis) -> None:
        # a Python number among a pytree's leaves is traced (as a weak-typed scalar) by
        # jax.jit and nnx.jit, but is a static value for equinox.filter_jit
        traced = (ctx.entry or {}).get("kind") != "filter_jit"
        # inlined calls compile nothing; one made under an eager jax.vmap compiles the batched
        # program, whose batch size its (one example's) signature does not hold
        sigs = [s for s in ctx.signatures or () if not s.get("inlined") and not s.get("under")]
        observed = any("compiles" in s for s in sigs)
        if observed:  # what jax really compiled (`jaxlint record` watched it)
            sigs = [s for s in sigs if s.get("compiles")]
        if not self.opts["check-tests"] and sigs and all(_from_test(s) for s in sigs):
            return  # a test suite's calls: many shapes, dtypes and wrappers on purpose
        bound = int((ctx.entry or {}).get("partial_bound") or 0)
        if inspect.ismethod(ctx.function):  # `jax.jit(self.step)`: `self` is bound, counted once
            names = _param_names(ctx.function.__func__)[max(bound, 1):]
        else:
            names = _param_names(ctx.function)[bound:]
        # `jax.jit(a.step)` and `jax.jit(b.step)` are two jitted functions (each instance
        # is baked into its own): each compiles for its own calls
        by_instance: dict[str, list] = {}
        for s in sigs:
            by_instance.setdefault(json.dumps(s.get("bound"), sort_keys=True), []).append(s)
        for group in by_instance.values():
            said = len(ctx.diagnostics)
            again = [s for s in group if s.get("compiles", 0) > 1]
            if again:
                self._rejit(ctx, again)
            else:
                _made_per_call(ctx, group, float(self.opts["made-per-call-seconds"]))
            # a factory's jits (one per optimizer, per model) each compile for their own
            # calls: signatures are compared within one jitted function object
            for part in _per_jit(group):
                before = len(ctx.diagnostics)
                self._check_calls(ctx, part, names, traced)
                if len(ctx.diagnostics) > before:
                    break
            if len(ctx.diagnostics) == said:  # the same function jitted again per run, each jit reused
                _jitted_per_run(ctx, group, names, traced)

    def _check_calls(self, ctx, sigs: list, names: list[str], traced: bool) -> None:
        # imported here: the registry imports every rule on the static path, which
        # needs none of this
        from jaxlint.dynamic.signatures import diff_signatures, distinct

        groups = distinct(sigs, traced)
        if len(groups) < 2:
            return  # what differs in the records is the same to jit: one compile
        base = groups[0]
        calls = [g.get("calls", 0) for g in groups]
        total = sum(calls)
        growth = _growth(groups, names, traced)
        if growth is not None:
            self._grows(ctx, groups, calls, growth, names)
            return
        changes: list = []
        worst = None  # the signature whose compile is most clearly avoidable
        why = ""
        for other in groups[1:]:
            diff = diff_signatures(base, other, names, traced)
            # said in the order the program met them: from the earlier signature to the later
            later = int(base.get("seq") or 0) > int(other.get("seq") or 0) > 0
            for c in (diff_signatures(other, base, names, traced) if later else diff):
                if c not in changes:
                    changes.append(c)
            reason = _churn(diff, base, other) or _unread_only(diff, base, other, names)
            if reason and worst is None:
                worst, why = other, reason
        state = _state_changed(groups, names, traced)
        if state is not None:  # the function returns its state in another shape or dtype than it takes
            self._state(ctx, groups, calls, changes, state, names)
            return
        if worst is None:
            if _toggled(changes):
                return  # a static flag or mode switched among a few values: deliberate
            if len(groups) > self.opts["max-signatures"]:
                worst, why = groups[1], f"more than {self.opts['max-signatures']} distinct signatures"
            elif len(groups) >= 3 and 2 * len(groups) >= total >= 4:
                worst, why = groups[1], "a new signature on most calls"
            else:
                return  # a few signatures, each used as much as it needs: deliberate
        msg = (f"`{ctx.qualname}` was traced and compiled for {len(groups)} different signatures "
               f"(calls: {_counts(calls)}): " + "; ".join(changes[:4] or ["the signatures differ"]))
        site, related = _where(ctx, worst, base)
        padded = self._padded(ctx, groups, changes, names)
        if padded is not None:  # the line that decides the padded size: the one to change
            cause, text, bucketed = padded
            msg += f"; {text}"
            related = [site.related("the call that compiles again")] + related
            ctx.report(cause, msg, related=related, key="several signatures",
                      severity=Severity.INFO if bucketed else None,
                      data={"signatures": len(groups), "calls": calls[:64], "changes": [str(c) for c in changes[:10]],
                            "reason": "padded into power-of-two buckets" if bucketed else "padded to each input's size"})
            return
        if why:
            msg += f" ({why})"
        if why.startswith("a smaller final batch"):
            shrunk = next(c for c in changes if getattr(c, "kind", "") == "shape")
            label = str(shrunk).split(" changes ")[0]
            cause = _cause(ctx, worst, label, names, "batched")
            if cause is not None and (cause.path, cause.line) != (site.path, site.line):
                # the loop in the program's own generator that makes the batches, the last one smaller
                msg += (f"; the batches of {label} are made by the loop at line {cause.line}"
                        + ("" if cause.path == site.path else f" of {Path(cause.path).name}")
                        + ": drop or pad the last one there")
                related = [site.related("the call that compiles again")] + related
                site = cause
        weak = [c for c in changes if getattr(c, "kind", "") == "weak"]
        host = next((h for c in weak if why and (h := _host_rebound(ctx, worst, c, names)) is not None), None)
        if host is not None:  # the loop makes the Python number a NumPy scalar: the line to change
            cause, label, text, dtype = host
            msg += (f"; {label} starts as a Python number (weak) and the loop rebinds it at line {cause.line} to what "
                    f"NumPy returns (`{text}`), a NumPy scalar that jit takes as a strong {dtype or 'array'}: keep it "
                    f"a Python number there (`float(...)`), or make it that array from the start")
            related = [site.related("the call that compiles again")] + related
            site = cause
        elif weak and why and ("Python scalar" in why or why.startswith("weak-typed in some calls")):
            # the first weak leaf whose making the source shows (`args[1]` of a tuple the loop
            # rebinds, where `opt_state[0].mu[1]`, computed from it by `opt.init`, shows none)
            found = [_weak_origin(ctx, groups, base, worst, c, names) for c in weak[:8]]
            # a leaf the statement that makes it names (`position` in `init(init_position)`) before
            # one it does not (`level`, which the library's `init` sets)
            origin = sorted((f for f in found if f[4] or f[5]),
                            key=lambda f: f[4] is None and not _named_at(f[5], f[0]))
            label, whole, had, early, made, cause = (origin or found)[0]
            before = site
            start = "starts as" if early else "is, in the calls that compile again,"
            dtype = _leaf_dtype(_strong_of(groups, label, names) or had, label, names) if had is not None else ""
            if made is not None:  # the assignment in a class's constructor that made the value
                cause, text = made
                if _NUMBER.fullmatch(text):  # a literal number: said as the constructor's keyword is
                    msg += (f"; {label} {start} the Python number made at line {cause.line}: make it an array "
                            f"there (`jnp.asarray(...)` with the dtype the step returns)")
                elif not _CALL.match(text):  # a name given to the constructor
                    msg += (f"; {label} starts as the value `{text}` made at line {cause.line}: make it an "
                            f"array there (`jnp.asarray({text}, {dtype or '<the dtype the step returns>'})`)")
                else:  # an array already (`jnp.array(1.0)`), weak because no dtype is given
                    msg = _said_weak_array(msg, why, label, cause.line, text, dtype)
                related = [site.related("the call that compiles again")] + related
                site = cause
            elif cause is not None and (whole or _indices(label.strip("`")[len(_root(label)):])) \
                    and (made_text := _undtyped_array(cause)):
                # `y = jnp.array(0.0)`: an array already, weak because no dtype is given
                msg = _said_weak_array(msg, why, label, cause.line, made_text, dtype)
                related = [site.related("the call that compiles again")] + related
                site = cause
            elif cause is not None and (entry := _entry_literal(cause, label)):
                # the number a container's display gives the entry (`{"mean": 0.0, ...}`)
                kind = dtype.rsplit(".", 1)[-1] if dtype else ""
                msg += (f"; {label} {start} the Python number `{entry}` {_entry_said(label)} made at line "
                        f"{cause.line}: write " + (f"`jnp.{kind}({entry})` (or `np.{kind}({entry})`)" if kind else
                                                   f"`jnp.asarray({entry}, <the dtype the step returns>)`")
                        + " there, the dtype the step returns")
                related = [site.related("the call that compiles again")] + related
                site = cause
            elif cause is not None and any(str(c).startswith(f"{label} changes weak type (a weak-typed array")
                                           or str(c).startswith(f"{label} changes weak type (a strong array")
                                           for c in weak):
                # the recording saw an array made weak (no Python number): the statement that made it
                msg += (f"; {label} {start} a weak-typed array made at line {cause.line}: give it the dtype the step "
                        f"returns there (`{dtype or '<the dtype the step returns>'}`)")
                related = [site.related("the call that compiles again")] + related
                site = cause
            elif cause is not None:  # the literal (or the constructor) that made the Python number
                msg += (f"; {label} {start} the Python number made at line {cause.line}: make it an array there "
                        f"(`jnp.asarray(...)` with the dtype the step returns)")
                related = [site.related("the call that compiles again")] + related
                site = cause
            # every other weak leaf of that argument needs its own remedy, or the compile stays
            msg += _other_weak_leaves(ctx, groups, found, label, names, site if site is not before else None)
        kept = [c for c in changes if getattr(c, "kind", "") == "static-array"]
        if kept and why.startswith("a Python number kept static"):
            origin = _static_origin(ctx, groups, kept[0], names, traced)
            if origin is not None:  # the line that made the Python number: the one to change
                cause, text = origin
                msg += text
                related = [site.related("the call that compiles again")] + related
                site = cause
        made = [c for c in changes if getattr(c, "kind", "") == "object"]
        if made and why.startswith("a new object"):
            label = str(made[0]).split(" has a new object", 1)[0]
            cause = _cause(ctx, worst, label, names, "made")
            if cause is not None and (cause.path, cause.line) != (site.path, site.line):
                # the statement that made the object of a call that compiled again, in the
                # caller's function or one up the stack that passed it down (or kept it on `self`)
                msg += f"; the `{_root(label)}` of that call is made at line {cause.line}" + _in_function(site, cause)
                related = [site.related("the call that compiles again")] + related
                site = cause
        moved = [c for c in changes if getattr(c, "kind", "") == "sharding"]
        if moved and why:
            first = min((base, worst), key=lambda g: int(g.get("seq") or 0))
            label = str(moved[0]).split(" changes ")[0]
            root = label.strip("`").split("[", 1)[0].split(".", 1)[0]
            cause = _cause(ctx, first, label, names, "placed")
            declared = _sharding_declared(first, label, moved[0], names)
            if declared is not None:  # the declaration that decides the first call's sharding: the line to change
                where, text, shown = declared
                msg += (f"; {label} gets its sharding from the declaration at line {where.line} (`{text}`), yet the "
                        f"first call had it {shown[0]} (the declaration not applied: a mesh axis it names that does "
                        f"not divide the shape {shown[2] or 'of the array'}, or no mesh where it was made) and the "
                        f"step returns it {shown[1]}: declare it there as the step returns it ({shown[1]}), or "
                        f"constrain the step's output to the declaration")
                related = [site.related("the call that compiles again")] + (
                    [cause.related(f"the `{root}` of the first call is made here")] if cause is not None
                    and (cause.path, cause.line) != (site.path, site.line) else []) + related
                site = where
            elif cause is not None and (cause.path, cause.line) != (site.path, site.line):
                # where the first call's value was made or placed: the line to change
                msg += (f"; the `{root}` of the first call is made at line {cause.line}: place it there as the "
                        f"later calls get it")
                related = [site.related("the call that compiles again")] + related
                site = cause
        # one identity wherever it is reported (the call a recording saw, or the def)
        ctx.report(site, msg, related=related, key="several signatures",
                  data={"signatures": len(groups), "calls": calls[:64], "changes": [str(c) for c in changes[:10]],
                        "reason": why})

    def _state(self, ctx, groups: list, calls: list, changes: list, state: tuple, names: list[str]) -> None:
        """Report a function that changes the shape (or dtype) of its own state: a leaf one
        call returned is passed to the next with another shape than that call was given,
        so the next call compiles again; at the line of the function that made it, or, for
        a dtype the step widens (float32 in, float64 out), where the narrow value was made."""
        from jaxlint.dynamic.analysis import Site

        producer, consumer, change, node = state
        label = str(change).split(" changes ")[0]
        what = "shape" if change.kind == "shape" else "dtype"
        msg = (f"`{ctx.qualname}` was traced and compiled for {len(groups)} different signatures "
               f"(calls: {_counts(calls)}): " + "; ".join([str(change)] + [str(c) for c in changes if c != change][:3])
               + f" (the function changes the {what} of its own state: what a call returns as {label} is passed to "
                 f"the next call with another {what} than it was given, so that call compiles again)")
        site, related = _where(ctx, consumer, producer)
        made = node.get("made")
        widened = _widened(str(change)) if what == "dtype" else None
        first = min(groups, key=lambda g: int(g.get("seq") or 0))
        origin = _narrow_origin(ctx, first, label, names, widened[0]) if widened else None
        if widened and origin is not None:  # the program made it narrow; the step's promotion is meant
            (cause, named), (old, new) = origin, widened
            if named:
                msg += (f"; {label} is made {old} at line {cause.line} and the step returns it {new}: make it {new} "
                        f"where it is made (every call after the first gets it {new} anyway)")
            else:
                msg += (f"; {label} comes {old} from the call at line {cause.line} (no line of the program before it "
                        f"names {old}: a library made it so) and the step returns it {new}: make it {new} where the "
                        f"program receives it, after that call (every call after the first gets it {new} anyway)")
            if isinstance(made, dict) and made.get("file") and made.get("line"):
                related.insert(0, Site(made["file"], int(made["line"]), int(made.get("column") or 1)).related(
                    f"the step returns it {new} here"))
            related = [site.related("the call that passes it back and compiles again")] + related
            site = cause
        elif isinstance(made, dict) and made.get("file") and made.get("line"):
            cause = Site(made["file"], int(made["line"]), int(made.get("column") or 1))
            msg += (f"; {label} is made at line {cause.line}"
                    + ("" if _same_path(cause.path, site.path) else f" of {Path(str(cause.path)).name}")
                    + f": return it with the {what} it was given"
                    + (f" (or start it with that {what})" if what == "shape" else ""))
            related = [site.related("the call that passes it back and compiles again")] + related
            site = cause
        else:
            msg += f": return {label} with the {what} it was given, or start it with that {what}"
        ctx.report(site, msg, related=related, key="several signatures",
                  data={"signatures": len(groups), "calls": calls[:64], "changes": [str(c) for c in changes[:10]],
                        "reason": f"the function changes the {what} of its own state", "state": label})

    @staticmethod
    def _padded(ctx, groups: list, changes: list, names: list[str]):
        """(the pad call's Site, what to say, whether the sizes are power-of-two buckets)
        when every change is the shape of one argument that the caller pads, before the
        call, to a size computed from its length; None otherwise."""
        shaped = [c for c in changes if getattr(c, "kind", "") == "shape" and c.before is not None]
        labels = {str(c).split(" changes ")[0] for c in shaped}
        if not shaped or len(shaped) != len(changes) or len(labels) != 1:
            return None
        label = labels.pop()
        first = min(groups, key=lambda g: int(g.get("seq") or 0))
        cause = _cause(ctx, first, label, names, "padded")
        if cause is None:
            return None
        sizes = sorted({int(x[i]) for c in shaped for i in range(min(len(c.before), len(c.after)))
                        if c.before[i] != c.after[i] for x in (c.before, c.after)})
        shown = ", ".join(map(str, sizes[:8])) + (", …" if len(sizes) > 8 else "")
        if sizes and all(n > 0 and n & (n - 1) == 0 for n in sizes):
            return cause, (f"{label} is padded at line {cause.line} to power-of-two buckets ({shown}): bucketing "
                           f"already bounds the compiles, one per bucket and a new one only when the longest input "
                           f"doubles ({len(sizes)} buckets seen); pad to one fixed size only if these compiles cost "
                           f"more than the padding"), True
        step = math.gcd(*sizes) if sizes else 1
        if step >= 8:
            return cause, (f"{label} is padded at line {cause.line} to multiples of {step} ({shown}): one compile per "
                           f"multiple up to the longest input; round up to a power of two instead (one compile per "
                           f"doubling) or pad to one fixed maximum"), False
        return cause, (f"{label} is padded at line {cause.line} to a size computed from each input's length "
                       f"({shown}), so every new length compiles again: pad to one fixed maximum, or round up to a "
                       f"power of two (a few buckets, one compile each)"), False

    def _grows(self, ctx, groups: list, calls: list, growth: tuple, names: list[str]) -> None:
        label, axis, chain = growth
        shapes = [c.after for c in chain]
        shapes.insert(0, chain[0].before)
        shown = [str(tuple(x)) for x in shapes]
        if len(shown) > 6:
            shown = shown[:3] + ["…"] + shown[-2:]
        first = min(groups, key=lambda g: int(g.get("seq") or 0))
        last = max(groups, key=lambda g: int(g.get("seq") or 0))
        msg = (f"`{ctx.qualname}` was traced and compiled for {len(groups)} different signatures "
               f"(calls: {_counts(calls)}): {label} grows along axis {axis} call after call, "
               f"{' -> '.join(shown)}, and every new size compiles again (a growing sequence, cache or "
               f"generated length): pad it to a fixed maximum, or to a few bucket sizes")
        site, related = _where(ctx, last, first)
        cause = _cause(ctx, first, label, names, "grown")
        if cause is not None:  # where the loop makes the longer input: the line to change
            msg += f"; the {label} of each call is made at line {cause.line}"
            related = [site.related("a call that compiles again for a new size")] + related
            site = cause
        ctx.report(site, msg, related=related, key="a dimension grows",
                  data={"signatures": len(groups), "calls": calls[:64], "grows": label, "axis": axis,
                        "sizes": [list(x) for x in shapes][:64], "reason": "a dimension grows call after call"})

    def _rejit(self, ctx, again: list) -> None:
        # jitted function objects each called many times (a factory's jit per closure, reused):
        # each compiled once, as meant
        again = [s for s in again if not _reused_jits(s)]
        if not again:
            return
        n = max(s.get("compiles", 0) for s in again)
        first = max(again, key=lambda s: s.get("compiles", 0))
        site, related = _where(ctx, first, None, "again_at")
        objects = _static_objects(first, _param_names(ctx.function))
        if objects:  # `self` or another object as a static argument: hashed by identity
            why = (f"the static argument {objects} is a new object on each call, and jit tells static objects "
                   f"apart by their hash (identity, unless the class defines __hash__/__eq__): reuse one object, "
                   f"or make the class hash by value")
            reason = "a new static object per call"
        elif int(first.get("wrappers") or 0) > 1:  # the recording saw the jitted function object change
            why = ("each call makes a new jitted function (`jax.jit` inside a loop or a function, or of a new "
                   "closure), so jax cannot reuse the compiled program; jit it once and reuse it")
            reason = "a new jitted function per call"
        else:
            why = ("the same jitted function compiled again although nothing jit keys its cache on changed in "
                   "the arguments (shapes, dtypes, weak types, shardings, static values): something around the "
                   "call did (a jax setting such as x64, the mesh context, or jax's cache); "
                   "`JAX_EXPLAIN_CACHE_MISSES=1` makes jax say which")
            reason = "compiled again for the same arguments"
        ctx.report(site, f"`{ctx.qualname}` was compiled {n} times for the same signature: {why}",
                  related=related, key="compiled again", data={"compiles": n, "reason": reason})


def _made_per_call(ctx, sigs: list, min_seconds: float) -> None:
    """Jitted function objects made one after another, each called once or twice (a
    ``jax.jit(f)(x)`` in a loop), that compiled nothing again (jax shares the compiled
    program between jits of one function): every new object is built again and misses
    jit's per-object caches on its first call. Reported where the function is jitted,
    with what the recording measured that to take, when it took ``min_seconds`` in all."""
    from jaxlint.dynamic.analysis import Site

    made = [s for s in sigs if int(s.get("jit_objects") or 0) >= MADE_PER_CALL
            and int(s.get("calls") or 0) <= CALLS_PER_MADE * int(s["jit_objects"])
            and float(s.get("fresh_seconds") or 0.0) >= min_seconds]
    if not made:
        return
    sig = max(made, key=lambda s: int(s["jit_objects"]))
    n, calls = int(sig["jit_objects"]), int(sig.get("calls") or 0)
    spent = float(sig.get("fresh_seconds") or 0.0)
    each = spent / (n - 1)
    site = ctx.entry_site()
    related = []
    first = sig.get("first_call")
    if isinstance(first, dict) and (first["file"], int(first["line"])) != (site.path, site.line):
        related.append(Site(first["file"], int(first["line"]), int(first.get("column") or 1))
                       .related("its first call"))
    ctx.report(site, f"`{ctx.qualname}` was called {calls} times through {n} jitted functions made one after "
                     f"another (`jax.jit` of it made again for each call, as in a loop): jax compiled it once, but "
                     f"each new jitted function is built again and misses jit's caches on its first call: making "
                     f"it and that call took {_ms(each)} of CPU time a call in the recording ({spent:.2f} s in all); jit it "
                     f"once, outside the loop, and call that",
               related=related, key="a jitted function made per call",
               data={"jit_objects": n, "calls": calls, "seconds_per_call": round(each, 6),
                     "reason": "a new jitted function per call"})


def _jitted_per_run(ctx, group: list, names: list[str], traced: bool) -> None:
    """The same function (not a factory's closure: the recording's ``same_function``)
    jitted again into several objects, each reused for many calls from one call line (a
    function that jits its step and loops over it, run several times), that compiled once
    per object although the signatures are the same or differ only in a static field that
    compares by identity (an optimizer's ``tx``, a new ``optax.adam`` per run): reported
    where that object is made, else where the function is jitted, the call related."""
    from jaxlint.dynamic import origins
    from jaxlint.dynamic.analysis import Site
    from jaxlint.dynamic.signatures import diff_signatures, distinct

    if not group or not all(s.get("same_function") and s.get("jit_ids") for s in group):
        return
    share: dict = {}
    for s in group:  # each object's share of the calls
        for j in _jits(s):
            share[j] = share.get(j, 0.0) + int(s.get("calls") or 0) / len(_jits(s))
    calls = [s.get("first_call") for s in group]
    if len(share) < 2 or min(share.values()) < 2 or not all(isinstance(c, dict) for c in calls) \
            or len({(c["file"], int(c["line"])) for c in calls}) != 1:
        return
    compiles = sum(int(s.get("compiles") or 0) for s in group)
    groups = distinct(group, traced)
    base = min(groups, key=lambda g: int(g.get("seq") or 0))
    changes = [c for g in groups if g is not base for c in diff_signatures(base, g, names, traced)]
    if compiles < 2 or any(getattr(c, "kind", "") != "object" for c in changes):
        return
    call = calls[0]
    at = Site(call["file"], int(call["line"]), int(call.get("column") or 1))
    entry = ctx.entry_site()
    runner = origins.function_around(str(call["file"]), int(call["line"]))
    per_run = runner is not None and _same_path(entry.path, at.path) and \
        origins.function_around(str(entry.path), int(entry.line)) == runner
    by = f"`{runner}`" if runner else "the program"
    n = len(share)
    counts = sorted((round(v) for v in share.values()), reverse=True)
    msg = (f"`{ctx.qualname}` was compiled {compiles} times, once for each of {n} jitted function objects of it "
           f"(calls: {_counts(counts)})")
    related = [at.related("the call that compiles again")]
    jitted = (f"{by} jits `{ctx.qualname}` anew at line {entry.line} on each of its runs" if per_run else
              f"`{ctx.qualname}` is jitted {n} times at line {entry.line}")
    each = " on each of its runs" if runner else ""
    if changes:
        label = str(changes[0]).split(" has a new object", 1)[0]
        named = re.search(r"static field `(\w+)`", str(changes[0]))
        field = named.group(1) if named else ""
        site = _object_made_at(ctx, base, label, field, names) or _cause(ctx, base, label, names, "made")
        msg += (f", for signatures that differ only in {label}'s static field `{field}`: a new object each time, "
                f"which compares by identity, so each is a new program to jit's cache")
        if site is not None:
            msg += f"; {by} makes that object anew at line {site.line}"
            if per_run:  # both made per run: either one made anew compiles again
                msg += (f" and jits `{ctx.qualname}` anew at line {entry.line}{each}: make both once, outside {by}, "
                        f"and reuse them (either one made anew compiles again)")
            else:
                msg += f"{each}: make it once" + (f", outside {by}," if runner else "") + " and reuse it"
            related.append(entry.related(f"`{ctx.qualname}` is jitted here"))
        else:
            site = at
            msg += ": make it once and reuse it"
            related = [entry.related(f"`{ctx.qualname}` is jitted here")]
        reason = "a static object made per run"
    else:
        site = entry
        msg += (f", for the same signature: {jitted}, and each new jitted function compiles again; jit it once"
                + (f", outside {by}," if per_run else "") + " and reuse it")
        reason = "a jitted function made per run"
    ctx.report(site, msg, related=related, key="jitted per run",
               data={"compiles": compiles, "jit_objects": n, "calls": counts[:64],
                     "changes": [str(c) for c in changes[:10]], "reason": reason})


def _object_made_at(ctx, sig: Signature, label: str, field: str, names: list[str]):
    """The Site where the object in the static field ``field`` of argument ``label`` was
    made (:func:`jaxlint.dynamic.origins.object_made_at`), the field's position read from
    the constructor of the argument's recorded class (``nnx.Optimizer(model, tx, wrt)``)."""
    import importlib

    from jaxlint.dynamic import origins
    from jaxlint.dynamic.analysis import Site

    call, root = _source_call(sig), _root(label)
    if not isinstance(call, dict) or root not in names or not field:
        return None
    index = names.index(root) - (1 if names and names[0] in ("self", "cls") else 0)
    node = _leaf_node(sig, f"`{root}`", names)
    kind = str(node.get("opaque") or "") if isinstance(node, dict) else ""
    position = None
    module, _, cls = kind.rpartition(".")
    try:
        # its `__init__` (a metaclass's `__call__` hides the class's own signature), less `self`
        params = list(inspect.signature(getattr(importlib.import_module(module), cls).__init__).parameters)[1:]
        position = params.index(field) if field in params else None
    except (ImportError, AttributeError, TypeError, ValueError):
        position = None
    try:
        where = origins.object_made_at(call["file"], int(call["line"]), (ctx.qualname or "").rsplit(".", 1)[-1],
                                       index, root, field, position)
    except (KeyError, TypeError, ValueError):
        return None
    return Site(*where) if where is not None else None


def _in_function(call, cause) -> str:
    """`` in `fit` `` where ``cause`` lies in another function than the ``call`` (the object
    was made up the stack and passed down), else nothing."""
    from jaxlint.dynamic import origins

    made = origins.function_around(str(cause.path), cause.line)
    if made and (str(cause.path), made) != (str(call.path), origins.function_around(str(call.path), call.line)):
        return f" in `{made}`"
    return ""


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.2f} ms" if seconds < 0.01 else f"{seconds * 1e3:.1f} ms"


def _jits(sig: dict) -> list:
    """The jitted function objects the recording saw call the signature (one when unknown)."""
    ids = sig.get("jit_ids")
    return list(ids) if isinstance(ids, list) and ids else [None]


def _reused_jits(sig: dict) -> bool:
    """Whether the signature's several jitted function objects were each called several
    times: jits made once per closure and reused, not a jit made per call."""
    n = len(_jits(sig))
    return n > 1 and int(sig.get("calls") or 0) >= 2 * n


def _per_jit(sigs: list) -> list[list]:
    """The signatures grouped per jitted function object that is called more than once
    (signatures it shares with others are in each of their groups), the signatures of
    jitted function objects made per call (called once each) together in one group;
    largest group first. One group when the recording saw one object."""
    ids = {j for s in sigs for j in _jits(s)}
    if len(ids) < 2:
        return [sigs]
    calls: dict = {}
    for s in sigs:  # each object's share of the calls (the recording counts them per signature)
        for j in _jits(s):
            calls[j] = calls.get(j, 0.0) + int(s.get("calls") or 0) / len(_jits(s))
    kept = {j for j, n in calls.items() if n >= 2}
    groups: dict = {}
    for s in sigs:
        mine = [j for j in _jits(s) if j in kept] or ["per call"]
        for j in mine:
            groups.setdefault(j, []).append(s)
    return sorted(groups.values(), key=len, reverse=True)


def _static_objects(sig: dict, names: list[str]) -> str:
    """The static arguments recorded only by their repr (objects, not values), as code."""
    found = [f"`{names[i]}`" if i < len(names) else f"argument {i}"
             for i, a in enumerate(sig.get("args") or []) if isinstance(a, dict) and "repr" in a]
    found += [f"`{k}`" for k, v in (sig.get("kwargs") or {}).items() if isinstance(v, dict) and "repr" in v]
    return ", ".join(found)


def _churn(diff: list, base: Signature, other: Signature) -> str:
    """Why compiling ``other`` beside ``base`` is avoidable, or ``""`` when it may be
    deliberate (another input size the program really uses)."""
    kinds = {getattr(c, "kind", "") for c in diff}
    if "sharding" in kinds:
        moved = [c for c in diff if getattr(c, "kind", "") == "sharding"]
        if any(c.before is None for c in moved) or any(c.after is None for c in moved):
            return ("arrays placed by default on one device in some calls and sharded in others: place them with "
                    "`jax.device_put(x, sharding)` before the first call, or give jit `in_shardings`")
        return ("the arguments' sharding changes between calls: keep one placement (`jax.device_put` to the "
                "sharding the step returns, or fix `in_shardings`/`out_shardings`)")
    if "object" in kinds:
        return "a new object compiles again each time: make it once and reuse it"
    if "static-array" in kinds:
        return "a Python number kept static in some calls and an array in others: a program for each"
    if "weak" in kinds:
        if all(" weak type (a weak-typed array -> " in str(c) or " weak type (a strong array -> " in str(c)
               for c in diff if getattr(c, "kind", "") == "weak"):
            return "weak-typed in some calls and strong in others"  # arrays made weak, no Python number
        return "a Python scalar in some calls and an array in others"
    if "dtype" in kinds:
        return "the dtype drifts between calls"
    for c in diff:
        kind = getattr(c, "kind", "")
        if kind == "static" and isinstance(c.before, float | None) and isinstance(c.after, float):
            return "a float passed as a static argument compiles once per value"
        if kind == "static-leaf" and _number(c.before) and _number(c.after):
            return "a Python number kept static by the transform compiles once per value: pass it as an array"
    shapes = [c for c in diff if getattr(c, "kind", "") == "shape" and c.before is not None]
    if shapes and kinds <= {"shape", "static"} and all(_smaller_batch(c.before, c.after) for c in shapes):
        many, few = base.get("calls", 0), other.get("calls", 0)
        # one loop (the same call line) feeding full batches and then a rare smaller
        # one; without the call lines, enough full batches to tell
        loop = _same_call(base, other)
        if few <= max(1, many // 3) and many >= (2 if loop else 3) and loop is not False:
            return "a smaller final batch or sequence: pad it to the full size or drop it"
    return ""


def _unread_only(diff: list, a: Signature, b: Signature, names: list[str]) -> str:
    """Why compiling ``b`` beside ``a`` is avoidable for certain when they differ only in
    leaves the traced function never reads (a dm_env ``TimeStep``'s ``reward`` that is
    ``None`` at a restart and a float after, given to a step that reads its
    ``observation``): jax traced the same program for both but for those leaves, which it
    drops from what it compiles, yet compiled it again for the new structure; ``""``
    otherwise (or when the recording did not note what the program reads)."""
    if not diff or not a.get("program") or a.get("program") != b.get("program"):
        return ""
    labels = []
    for c in diff:
        label = str(c).split(" changes ")[0]
        if getattr(c, "kind", "") not in ("structure", "weak", "dtype", "shape") or not label.startswith("`"):
            return ""
        for sig in (a, b):
            node = _leaf_node(sig, label, names)
            if isinstance(node, dict) and node.get("value", 0) is None and len(node) == 1:
                continue  # `None`: no leaf at all
            if _weak_node(node) is None or label not in _unread_labels(sig, names):
                return ""  # not a leaf, or one the program reads
        labels.append(label)
    root = labels[0].strip("`").split(".", 1)[0].split("[", 1)[0]
    fuller = max((a, b), key=lambda s: len(_unread_labels(s, names)))
    read = [x for x in _leaf_labels(_leaf_node(fuller, f"`{root}`", names), f"`{root}`")
            if x not in _unread_labels(fuller, names)]
    what = f" (`{root}` read only at {', '.join(read[:4])})" if 0 < len(read) <= 4 and len(labels) else ""
    return (f"the function never reads {' or '.join(labels[:4])}: jax traces the same program without "
            f"{'it' if len(labels) == 1 else 'them'} and drops {'it' if len(labels) == 1 else 'them'} from what it "
            f"compiles, so this compile is avoidable for certain; pass only what it reads{what}")


def _unread_labels(sig: Signature, names: list[str]) -> set[str]:
    """The leaves of ``sig`` its traced program never read, as labels (`` `timestep.reward` ``)."""
    out = set()
    for where, path in sig.get("unread") or ():
        if isinstance(where, int) and 0 <= where < len(names):
            out.add(f"`{names[where]}{path}`")
        elif isinstance(where, str):
            out.add(f"`{where}{path}`")
    return out


def _leaf_labels(node: Any, label: str) -> list[str]:
    """The labels of every array or number leaf under ``node`` (`` `timestep.observation` ``)."""
    if not isinstance(node, dict):
        return [label] if isinstance(node, str) else []
    if "leaves" in node and isinstance(node["leaves"], dict):
        return [f"{label[:-1]}{path}`" for path in node["leaves"]]
    if "fields" in node:
        return [x for k, v in node["fields"].items() for x in _leaf_labels(v, f"{label[:-1]}.{k}`")]
    if "dict" in node:
        return [x for k, v in node["dict"].items() for x in _leaf_labels(v, f"{label[:-1]}[{k!r}]`")]
    items = node.get("tuple", node.get("list"))
    if isinstance(items, list):
        return [x for k, v in enumerate(items) for x in _leaf_labels(v, f"{label[:-1]}[{k}]`")]
    return [label] if _weak_node(node) is not None else []


def _counts(calls: list) -> str:
    """Call counts per signature, the first dozen of them."""
    shown = ", ".join(map(str, calls[:12]))
    return shown + (f" and {len(calls) - 12} more" if len(calls) > 12 else "")


#: fewest jitted function objects of one signature, made one after another and called about
#: once each, that are a jit made per call (a script that jits a function again a few times
#: loses milliseconds): measured on blackjax's cyclical SGLD, 5-8 ms a call more than through
#: one reused jit, a second per 150 to 200 calls
MADE_PER_CALL = 100
#: most calls per such object on average (each called "once or a few times")
CALLS_PER_MADE = 2

#: fewest sizes in a row that make growth (two or three fixed sizes are deliberate)
GROWTH_MIN = 4
#: fewest sizes that make growth when one call line in a loop makes them by a constant small
#: step (a generation loop, one token a call: (1, 6) -> (1, 7) -> (1, 8))
GROWTH_FEW = 3


def _growth(groups: list, names: list[str], traced: bool) -> tuple | None:
    """(argument, axis, the changes in order) when, in the order the program first called
    them, the signatures differ by one dimension of one argument that grows call after
    call by steady steps (a sequence, a cache, a generated length); None otherwise. Sizes
    that double (16, 32, 64: bucketing, a sweep) are not growth."""
    from jaxlint.dynamic.signatures import diff_signatures

    ordered = sorted(groups, key=lambda g: int(g.get("seq") or 0))
    if len(ordered) < GROWTH_FEW or not all(g.get("seq") for g in ordered):
        return None
    # fewer sizes than GROWTH_MIN: a loop's one call line, and a constant step that is small
    # beside the sizes (a token a call), not a sweep of sizes
    few = len(ordered) < GROWTH_MIN
    if few and not all(_same_call(a, b) for a, b in zip(ordered, ordered[1:])):
        return None
    chain = []
    for a, b in zip(ordered, ordered[1:]):
        diff = diff_signatures(a, b, names, traced)
        grown = [c for c in diff if getattr(c, "kind", "") == "shape" and c.before is not None]
        if len(grown) != len(diff) or not grown:
            return None
        axes = {(str(c).split(" changes ")[0], i) for c in grown
                for i, (p, q) in enumerate(zip(c.before, c.after)) if p != q}
        if any(len(c.before) != len(c.after) for c in grown) or len({i for _, i in axes}) != 1:
            return None
        chain.append(grown[0])
    axis = next(i for i, (p, q) in enumerate(zip(chain[0].before, chain[0].after)) if p != q)
    sizes = [chain[0].before[axis]] + [c.after[axis] for c in chain]
    steps = [q - p for p, q in zip(sizes, sizes[1:])]
    if min(steps) <= 0 or max(steps) > 2 * min(steps):
        return None
    if few and (len(set(steps)) != 1 or 2 * steps[0] > sizes[0]):
        return None
    return str(chain[0]).split(" changes ")[0], axis, chain


def _root(label: str) -> str:
    """The argument's name of a leaf's label (`` `args[1]` `` -> ``args``)."""
    return label.strip("`").split("[", 1)[0].split(".", 1)[0]


def _sharding_declared(sig: Signature, label: str, change: Any, names: list[str]):
    """(the Site of the declaration in a class of the caller's file that decides the
    sharding of the model field ``label`` (`` `model['w2'].value` ``), its source, (the
    sharding the first call had, the one the step returns, the leaf's shape)) when the
    first call had the leaf replicated (a declaration that was not applied) and another
    sharding after; None otherwise (see
    :func:`jaxlint.dynamic.origins.sharding_declared_at`)."""
    from jaxlint.dynamic import origins
    from jaxlint.dynamic.analysis import Site

    call = _source_call(sig)
    found = re.search(r" changes sharding (.+) -> (.+)$", str(change))
    if not isinstance(call, dict) or found is None or found.group(1) not in ("P()", "replicated"):
        return None
    fields = [f for f in re.findall(r"\[['\"](\w+)['\"]\]|\.(\w+)", label.strip("`")) for f in f if f]
    fields = [f for f in fields if f != "value"][:8]  # `.value`: an nnx Variable's array
    try:
        hit = origins.sharding_declared_at(str(call["file"]), fields)
    except (KeyError, TypeError, ValueError):
        return None
    if hit is None:
        return None
    where, text = hit
    node = _leaf_node(sig, label, names)
    shape = node.get("array") if isinstance(node, dict) else None
    return Site(*where), text, (found.group(1), found.group(2), f"{tuple(shape)}" if isinstance(shape, list) else "")


def _weak_origin(ctx, groups: list, base: Signature, worst: Signature, change: Any, names: list[str]):
    """(label, whether it is a whole argument, the signature that had it weak, whether that
    was the first, the class field that made it (Site, source) or None, the Site of the
    statement that made it or None) for one weak-type change."""
    label = str(change).split(" changes ")[0]
    whole = not any(ch in label.strip("`") for ch in ".[")
    # the value is followed in the call that had it weak, whichever signature came first;
    # when that was not the first call, only to a line that shows it made weak (a literal
    # number, an array of one made without a dtype), not to whatever the loop bound before
    had, early = _had_weak(groups, label, names)
    by_class = by_binding = True
    if had is None:  # the recording does not say which call had it: the first one, if said so
        first = min((base, worst), key=lambda g: int(g.get("seq") or 0))
        made_first = "(a Python scalar -> " in str(change) or "(a weak-typed array -> " in str(change)
        had, early = first, True
        by_class = made_first or " changes from a Python " in str(change)
        by_binding = made_first or not whole
    made = _made_in_class(ctx, had, label, names) if by_class and not whole else None
    if made is not None and not early and not (_NUMBER.fullmatch(made[1]) or _ARRAY_OF_NUMBER.fullmatch(made[1])):
        made = None
    cause = _cause(ctx, had, label, names, "made") if made is None and by_binding else None
    if cause is not None and (not early or _indices(label.strip("`")[len(_root(label)):])) \
            and not _makes_weak(cause):
        cause = None  # an element of a tuple only to a line that shows it made weak
    return label, whole, had, early, made, cause


def _host_rebound(ctx, sig: Signature, change: Any, names: list[str]):
    """(the Site, the label, the NumPy call's source, the strong dtype) of the statement in
    a loop around the call that rebinds a whole argument, a Python number in the earlier
    calls, to what a NumPy call returns (``eps = np.exp(...)`` after a sampler's burn-in):
    the later calls' strong value is made there. None otherwise."""
    from jaxlint.dynamic import origins
    from jaxlint.dynamic.analysis import Site
    from jaxlint.dynamic.signatures import encode

    label = str(change).split(" changes ")[0]
    root = label.strip("`")
    call = _source_call(sig)
    if "(a Python scalar -> an array)" not in str(change) or root not in names or not isinstance(call, dict):
        return None
    index = names.index(root) - (1 if names and names[0] in ("self", "cls") else 0)
    try:
        found = origins.host_rebound_at(call["file"], int(call["line"]), (ctx.qualname or "").rsplit(".", 1)[-1],
                                        index, root)
    except (KeyError, TypeError, ValueError):
        return None
    if found is None:
        return None
    node = _leaf_node(sig, label, names)
    dtype = encode(node) if isinstance(node, dict) else str(node or "")
    return Site(*found[0]), label, found[1], dtype if "[" in dtype else ""


def _static_origin(ctx, groups: list, change: Any, names: list[str], traced: bool):
    """(the Site, what to say) of the statement that made the Python number ``change`` is
    about (a number kept static in one call, an array in another: `step = 0` before a
    loop that rebinds `step` from an `equinox.filter_jit` step's output), when the
    caller's source shows it made there; None otherwise."""
    from jaxlint.dynamic.signatures import encode

    label = str(change).split(" changes ")[0]
    number, array = (change.before, change.after) if "value" in change.before else (change.after, change.before)
    static = [g for g in groups if isinstance(node := _leaf_node(g, label, names), dict) and "value" in node]
    if not static:
        return None
    had = min(static, key=lambda g: int(g.get("seq") or 0))
    whole = not any(ch in label.strip("`") for ch in ".[")
    made = _made_in_class(ctx, had, label, names) if not whole else None
    if made is not None and _NUMBER.fullmatch(made[1]):
        cause = made[0]
    else:  # the literal keyword, or the statement that bound the number before the call
        cause = _cause(ctx, had, label, names, "made")
        if cause is None or not _makes_weak(cause):
            return None
    value = number.get("value")
    dtype = _leaf_dtype({"args": [array]}, "`a`", ["a"])
    fix = f"jnp.asarray({value!r})" if array.get("weak") or not dtype else f"jnp.asarray({value!r}, {dtype})"
    who = "`equinox.filter_jit`" if not traced else "jit (a static argument)"
    early = int(had.get("seq") or 0) <= min(int(g.get("seq") or 0) for g in groups)
    return cause, (f"; {label} {'starts as' if early else 'is, in some calls,'} the Python number {value!r} made at "
                   f"line {cause.line}, which {who} keeps static, and {'later' if early else 'other'} calls pass it "
                   f"as an array ({encode(array)}): make it an array there (`{fix}`)")


def _cause(ctx, sig: Signature, label: str, names: list[str], how: str):
    """The Site in the caller's source where the argument ``label`` (`` `state.step` ``,
    `` `tokens` ``) of ``sig``'s first call was made: ``how="grown"``, the statement in the
    loop around the call that rebinds it; ``"made"``, the literal number its field got (or
    the statement that built it). None when the recording has no call or the source does
    not say."""
    from jaxlint.dynamic import origins
    from jaxlint.dynamic.analysis import Site

    call = _source_call(sig)
    text = label.strip("`")
    root = text.split("[", 1)[0].split(".", 1)[0]
    if not isinstance(call, dict):
        return None
    if root in names:
        index = names.index(root) - (1 if names and names[0] in ("self", "cls") else 0)
    elif root in (sig.get("kwargs") or {}):  # given by keyword to a `**kwargs` (`eqx.Partial`'s call)
        index = -1
    else:
        return None
    callee = (ctx.qualname or "").rsplit(".", 1)[-1]
    try:
        if how == "grown":
            where = origins.grown_at(call["file"], int(call["line"]), callee, index, root)
        elif how == "batched":
            where = origins.batched_at(call["file"], int(call["line"]), callee, index, root)
        elif how == "padded":
            where = origins.padded_at(call["file"], int(call["line"]), callee, index, root)
        elif how == "placed":
            column = call.get("column")
            where = origins.placed_at(call["file"], int(call["line"]), callee, index, root,
                                      int(column) if column else None)
        elif (path := _indices(text[len(root):])):  # an element of a tuple (`args[1]`)
            where = origins.element_made_at(call["file"], int(call["line"]), callee, index, root, path)
        else:
            field = text[len(root):].rsplit(".", 1)[-1] if "." in text[len(root):] else ""
            if not field.isidentifier() and text != root:
                return None  # a leaf other than a field (`params['w']`): not said by the source
            where = origins.made_at(call["file"], int(call["line"]), callee, index, root, field)
    except (KeyError, TypeError, ValueError):
        return None
    return Site(*where) if where is not None else None


def _other_weak_leaves(ctx, groups: list, found: list, label: str, names: list[str], at) -> str:
    """What to say of the weak leaves of ``label``'s argument other than ``label`` (whose
    origin the finding names, at ``at``): each one's own literal, else, for a leaf the
    statement that made the argument does not name (a library's init set it), how to make
    it an array after that statement: ``state._replace(...)`` for a NamedTuple, ``.replace``
    for a flax struct, ``dataclasses.replace`` for a dataclass."""
    out = ""
    for other, whole, had, _, made, cause in found:
        if other == label or whole or _root(other) != _root(label):
            continue
        if made is not None and (at is None or made[0].line != at.line):
            out += (f"; {other} is made weak-typed at line {made[0].line} (`{made[1]}`): give it a dtype there too"
                    if _ARRAY_OF_NUMBER.fullmatch(made[1]) else
                    f"; {other} is made at line {made[0].line}: make it an array there too")
            continue
        if cause is not None and (at is None or cause.line != at.line) and _makes_weak(cause):
            out += f"; {other} starts as the Python number made at line {cause.line}: make it an array there too"
            continue
        where = cause or at
        if where is None:
            continue
        root, rest = _root(other), other.strip("`")[len(_root(other)):]
        dtype = _leaf_dtype(_strong_of(groups, other, names) or had, other, names) or "<the dtype the step returns>"
        node = _leaf_node(had or groups[0], f"`{root}`", names)
        field = rest[1:] if rest.startswith(".") and rest[1:].isidentifier() else ""
        value = f"jnp.asarray({root}.{field}, {dtype})"
        kind = str(node.get("opaque") or "") if isinstance(node, dict) else ""
        if field and isinstance(node, dict) and "namedtuple" in node:
            fix = f"`{root} = {root}._replace({field}={value})`"
        elif field and kind.startswith("flax."):
            fix = f"`{root} = {root}.replace({field}={value})`"
        elif field and kind:
            fix = f"`{root} = dataclasses.replace({root}, {field}={value})` for a dataclass"
        else:
            fix = f"make `{other.strip('`')}` an array"
        callee = _callee_at(where)
        # said to be set by the call only beside a leaf the statement names (what the program gives)
        by = "" if _named_at(where, other) or not _named_at(at, label) else \
            f" (set by `{callee}`, at no line of the program)" if callee else " (at no line of the program)"
        out += (f"; {other} is a Python number in what the statement at line {where.line} makes{by}: make it an "
                f"array after that statement: {fix}")
    return out


def _named_at(site, label: str) -> bool:
    """Whether the statement at ``site`` names the leaf's field in what it assigns
    (``position`` in ``state = init(init_position)`` or ``init(position=x)``)."""
    from jaxlint.dynamic import origins

    if site is None:
        return False
    field = re.split(r"[.\[\]'\"]+", label.strip("`"))
    field = [f for f in field if f.isidentifier()]
    if len(field) < 2:
        return False
    line = origins.source_line(str(site.path), int(site.line)).split("#", 1)[0]
    value = line.split("=", 1)[1] if re.match(r"\s*[\w.,\s()\[\]]+=[^=]", line) else line
    return any(field[-1].lower() in word.lower() for word in re.findall(r"[A-Za-z_]\w*", value))


def _callee_at(site) -> str:
    """``samplers.init``: the function the statement at ``site`` calls to make its value, or ""."""
    from jaxlint.dynamic import origins

    try:
        tree = ast.parse(origins.source_line(str(site.path), int(site.line)).strip())
    except SyntaxError:
        return ""
    stmt = tree.body[0] if tree.body else None
    value = getattr(stmt, "value", None)
    return ast.unparse(value.func) if isinstance(value, ast.Call) else ""


def _widened(change: str) -> tuple[str, str] | None:
    """(the narrow dtype, the wide one) when a dtype change widens the leaf (float32 ->
    float64, int32 -> float32, bfloat16 -> float32), else None (a narrowing, or neither)."""
    found = re.search(r" changes dtype (\w+) -> (\w+)$", change)
    if found is None:
        return None
    old, new = found.groups()
    kinds = {"bool": 0, "uint": 1, "int": 1, "bfloat": 2, "float": 2, "complex": 3}

    def rank(name: str) -> tuple[int, int] | None:
        m = re.fullmatch(r"(bool|uint|int|bfloat|float|complex)(\d*)\w*", name)
        return (kinds[m.group(1)], int(m.group(2) or 8)) if m else None

    a, b = rank(old), rank(new)
    if a is None or b is None or a == b:
        return None
    return (old, new) if a[0] < b[0] or (a[0] == b[0] and a[1] < b[1]) else None


def _narrow_origin(ctx, sig: Signature, label: str, names: list[str], dtype: str):
    """(the Site where the caller made the leaf ``label`` of ``sig``'s first call ``dtype``,
    whether that line names the dtype) or None when the record or the source does not say
    (see :func:`jaxlint.dynamic.origins.narrow_made_at`)."""
    from jaxlint.dynamic import origins
    from jaxlint.dynamic.analysis import Site

    call = _source_call(sig)
    root = _root(label)
    if not isinstance(call, dict) or _leaf_dtype(sig, label, names) != f"jnp.{dtype}":
        return None  # the first call had it otherwise: not made narrow by the program
    if root in names:
        index = names.index(root) - (1 if names and names[0] in ("self", "cls") else 0)
    elif root in (sig.get("kwargs") or {}):
        index = -1
    else:
        return None
    try:
        found = origins.narrow_made_at(call["file"], int(call["line"]), (ctx.qualname or "").rsplit(".", 1)[-1],
                                       index, root, dtype)
    except (KeyError, TypeError, ValueError):
        return None
    return (Site(*found[0]), found[1]) if found is not None else None


def _indices(rest: str) -> tuple[int | str, ...]:
    """The path of a label's tail into containers: ``(1, 0)`` for ``[1][0]`` (elements of
    tuples), ``("mean",)`` for ``['mean']`` (a dict's entry), ``(".params", "w")`` for
    ``.params['w']`` (a field, then an entry); () when the tail holds no index or key (a
    field alone is followed by its constructor's keyword, not here)."""
    parts = re.findall(r"\[(-?\d+)\]|\[(['\"])(.*?)\2\]|\.([A-Za-z_]\w*)", rest)
    path: list[int | str] = []
    for index, _, key, field in parts:
        path.append(int(index) if index else key if _ else f".{field}")
    said = "".join(f"[{p}]" if isinstance(p, int) else p if p.startswith(".") else f"[{p!r}]" for p in path)
    if not any(not (isinstance(p, str) and p.startswith(".")) for p in path) or \
            said.replace('"', "'") != rest.replace('"', "'"):
        return ()
    return tuple(path)


def _state_changed(groups: list, names: list[str], traced: bool) -> tuple | None:
    """(the signature whose call returned a leaf, the signature of the call it was passed
    back to, how that leaf's shape or dtype changed, the recording's node of it) when a
    new signature's first call was given, as a leaf of its arguments, an array the
    previous new signature's call returned (the recording's ``fed``), with another shape
    or dtype than that call was given there, and returned it again as it was given
    (``kept``: the state stays so): a state the function itself changes once. None
    otherwise: a function applied again to its own output that changes it each time (an
    image pyramid's `downsample`) is a pipeline, and a weak type is left to where the
    weak value was made."""
    from jaxlint.dynamic.signatures import diff_signatures

    by_seq = {int(g.get("seq") or 0): g for g in groups if g.get("seq")}
    for consumer in sorted(groups, key=lambda g: int(g.get("seq") or 0)):
        for entry in consumer.get("fed") or ():
            if not (isinstance(entry, list) and len(entry) == 3 and isinstance(entry[2], dict)):
                continue
            where, path, node = entry
            if not node.get("kept"):  # the call changed it again: a pipeline applied to its own output
                continue
            producer = by_seq.get(int(node.get("seq") or 0))
            if producer is None or producer is consumer:
                continue
            if isinstance(where, int):
                if not 0 <= where < len(names):
                    continue
                label = f"`{names[where]}{path}`"
            else:
                label = f"`{where}{path}`"
            for c in diff_signatures(producer, consumer, names, traced):
                if getattr(c, "kind", "") in ("shape", "dtype") and str(c).split(" changes ")[0] == label:
                    return producer, consumer, c, node
    return None


def _same_path(a, b) -> bool:
    try:
        return Path(str(a)).resolve() == Path(str(b)).resolve()
    except OSError:
        return str(a) == str(b)


def _undtyped_array(site) -> str:
    """The value, when the statement at ``site`` binds an array made from a literal number
    with no dtype (`y = jnp.array(0.0)`, `jnp.asarray(1)`: weak-typed, though not a Python
    number), else ""."""
    from jaxlint.dynamic import origins

    line = origins.source_line(str(site.path), int(site.line)).split("#", 1)[0]
    entry = _ARRAY_OF_NUMBER.match(line[max(0, int(site.column) - 1):])  # a display's entry (`"mean": jnp.array(0.0)`)
    if entry is not None:
        return entry.group(0)
    value = line.partition("=")[2].strip()
    return value if _ARRAY_OF_NUMBER.fullmatch(value) else ""


def _said_weak_array(msg: str, why: str, label: str, line: int, made: str, dtype: str) -> str:
    """``msg`` saying that ``label``'s weak value is an array made at ``line`` without a dtype
    (`made`: its source), not a Python number (a leaf of a pytree recorded weak is an array:
    a Python number leaf would be a value)."""
    msg = _WEAK_LEAF.sub(r"\1 changes weak type (a weak-typed array -> a strong one)", msg)
    msg = msg.replace(f"{label} changes weak type (a Python scalar -> an array)",
                      f"{label} changes weak type (a weak-typed array -> a strong one)")
    msg = _STRONG_TO_WEAK.sub(r"\1 changes weak type (a strong array -> a weak-typed one)", msg)
    msg = msg.replace(f"({why})", "(weak-typed in some calls and strong in others)")
    return msg + (f"; {label} is made weak-typed at line {line} (`{made}` has no dtype, so jax keeps it weak and "
                  f"the step returns it strong): give it one there (`dtype={dtype or '<the dtype the step returns>'}`)")


#: an array made from one number, with no dtype given (`jnp.array(0.0)`, `jnp.asarray(-1)`; a NumPy array is strong)
_ARRAY_OF_NUMBER = re.compile(r"(?:jnp|jax\.numpy)\.(?:array|asarray)\(\s*[-+]?[\d.][\w.+-]*\s*\)")


#: a number literal as the source writes it (`0`, `1.0`, `-1e-3`)
_NUMBER = re.compile(r"[-+]?(\d[\d_]*\.?\d*|\.\d+)([eE][-+]?\d+)?")
#: a weak-type change of a pytree's leaf, as diff_signatures says it
_WEAK_LEAF = re.compile(r"(`[^`]*[.\[][^`]*`) changes weak type \(a Python scalar -> an array\)")
#: a weak-type change to the weak value (a later call had it), as diff_signatures says it
_STRONG_TO_WEAK = re.compile(r"(`[^`]*`) changes weak type \(an array -> a Python scalar\)")
#: a call as the source writes it (`jnp.array(1.0)`): an array made without a dtype
_CALL = re.compile(r"[A-Za-z_][\w.]*\(")


def _source_call(sig: Signature) -> Any:
    """``sig``'s first call as its source is read (:func:`jaxlint.dynamic.origins.in_source`:
    a notebook cell's in the notebook), or None when the record has none."""
    from jaxlint.dynamic import origins

    call = sig.get("first_call") if isinstance(sig, dict) else None
    if not isinstance(call, dict) or not isinstance(call.get("file"), str) or not isinstance(call.get("line"), int):
        return call if isinstance(call, dict) else None
    file, line = origins.in_source(call["file"], call["line"])
    return call if (file, line) == (call["file"], call["line"]) else dict(call, file=file, line=line)


def _made_in_class(ctx, sig: Signature, label: str, names: list[str]):
    """(the Site, the expression's source) where a field deep in an object of a class of
    the caller's file was made (`model.func.out_scale` -> `self.out_scale = jnp.array(1.0)`
    in `Func.__init__`), or None when the label is no chain of fields or the source does
    not say."""
    from jaxlint.dynamic import origins
    from jaxlint.dynamic.analysis import Site

    call = _source_call(sig)
    text = label.strip("`")
    root, _, rest = text.partition(".")
    fields = rest.split(".") if rest else []
    if not isinstance(call, dict) or root not in names or not fields or not all(f.isidentifier() for f in fields):
        return None
    index = names.index(root) - (1 if names and names[0] in ("self", "cls") else 0)
    callee = (ctx.qualname or "").rsplit(".", 1)[-1]
    try:
        found = origins.attribute_made_at(call["file"], int(call["line"]), callee, index, root, fields)
    except (KeyError, TypeError, ValueError, OSError):
        return None
    if found is None:
        return None
    where, source = found
    return Site(*where), source


def _leaf_dtype(sig: Signature, label: str, names: list[str]) -> str:
    """`jnp.float32` for the leaf ``label`` of ``sig`` as recorded (`"f32[] weak"`), or ""."""
    from jaxlint.config.inputspec import DTYPES

    leaf = _leaf_node(sig, label, names)
    if isinstance(leaf, dict):  # decoded: {"array": [], "dtype": "float32", "weak": true}
        long = str(leaf.get("dtype") or "")
    else:
        long = DTYPES.get(leaf.split("[", 1)[0], "") if isinstance(leaf, str) else ""
    return f"jnp.{long}" if long else ""


#: one step of a leaf's path as diff_signatures writes it: `.field` or `[0]`/`['w']`
_STEP = re.compile(r"\.(\w+)|\[([^\]]*)\]")


def _leaf_node(sig: Signature, label: str, names: list[str]) -> Any:
    """The recorded node of ``sig`` at ``label`` (`` `state.error` ``, `` `y` ``,
    `` `params['w']` ``), or None when the record does not hold it."""
    text = label.strip("`")
    root = re.match(r"[A-Za-z_]\w*", text)
    if root is None or not isinstance(sig, dict):
        return None
    args, kwargs, rest = sig.get("args") or [], sig.get("kwargs") or {}, text[root.end():]
    name = root.group(0)
    node = kwargs.get(name) if name in kwargs else \
        args[names.index(name)] if name in names and names.index(name) < len(args) else None
    while rest and isinstance(node, dict):
        if "leaves" in node:  # a model or state recorded by its leaves' paths
            leaves = node.get("leaves")
            return leaves.get(rest) if isinstance(leaves, dict) else None
        step = _STEP.match(rest)
        if step is None:
            return None
        field, key = step.group(1), step.group(2)
        rest = rest[step.end():]
        if field is not None:
            node = (node.get("fields") or {}).get(field) if "fields" in node else None
        elif "dict" in node:
            node = next((v for k, v in node["dict"].items() if repr(k) == key), None)
        elif isinstance(items := node.get("tuple", node.get("list")), list) and key.isdigit():
            node = items[int(key)] if int(key) < len(items) else None
        else:
            return None
    return None if rest else node


def _weak_node(node: Any) -> bool | None:
    """Whether a recorded leaf is weak-typed (a Python number, or an array marked weak);
    None when it is no leaf the record says that of."""
    if isinstance(node, str):
        return node.endswith(" weak")
    if isinstance(node, dict) and "array" in node:
        return bool(node.get("weak"))
    if isinstance(node, dict) and "value" in node and not isinstance(node["value"], bool):
        return True if isinstance(node["value"], (int, float)) else None
    return None


def _had_weak(groups: list, label: str, names: list[str]) -> tuple[Signature | None, bool]:
    """(the earliest signature whose ``label`` was weak-typed, whether it was the program's
    first of them all); (None, False) when the records do not say."""
    weak = [g for g in groups if _weak_node(_leaf_node(g, label, names))]
    if not weak or any(_weak_node(_leaf_node(g, label, names)) is None for g in groups):
        return None, False
    had = min(weak, key=lambda g: int(g.get("seq") or 0))
    return had, int(had.get("seq") or 0) <= min(int(g.get("seq") or 0) for g in groups)


def _strong_of(groups: list, label: str, names: list[str]) -> Signature | None:
    """A signature whose ``label`` was a strong array (its dtype is the one to give)."""
    return next((g for g in groups if _weak_node(_leaf_node(g, label, names)) is False), None)


def _entry_literal(site, label: str) -> str:
    """The number literal at ``site`` (``0.0``) when it is what a display or constructor
    gives the container entry ``label`` ends in (``theta['mean']``, ``args[1]``,
    ``params.mean`` inside one), else ""."""
    from jaxlint.dynamic import origins

    path = _indices(label.strip("`")[len(_root(label)):])
    if not path:
        return ""
    at = origins.source_line(str(site.path), int(site.line)).split("#", 1)[0][max(0, int(site.column) - 1):]
    number = _NUMBER.match(at)
    if number is None or re.match(r"[\w.(]", at[number.end():] or " "):
        return ""
    return number.group(0)


def _entry_said(label: str) -> str:
    """How the message names the last step of a container label: "of the `'mean'` entry",
    "of element 1", "of the field `mean`"."""
    step = _indices(label.strip("`")[len(_root(label)):])[-1]
    if isinstance(step, int):
        return f"of element {step}"
    return f"of the field `{step[1:]}`" if step.startswith(".") else f"of the `{step!r}` entry"


def _makes_weak(site) -> bool:
    """Whether the source at ``site`` makes a weak-typed value: a literal number there
    (a constructor's keyword), or a statement binding one or an array of one made without
    a dtype (`theta = 1.0`, `y = jnp.array(0.0)`)."""
    from jaxlint.dynamic import origins

    line = origins.source_line(str(site.path), int(site.line)).split("#", 1)[0]
    at = line[max(0, int(site.column) - 1):]
    number = _NUMBER.match(at)
    if number is not None and not re.match(r"[\w.]", at[number.end():] or " ") or _ARRAY_OF_NUMBER.match(at):
        return True
    value = line.partition("=")[2].strip()
    return bool(_NUMBER.fullmatch(value) or _ARRAY_OF_NUMBER.fullmatch(value))


def _toggled(changes: list) -> bool:
    """Whether every difference is a declared static argument switched among a few
    non-float values (a flag, a mode): each value is a program the caller means."""
    if not changes or any(getattr(c, "kind", "") != "static" for c in changes):
        return False
    values: dict[str, set] = {}
    for c in changes:
        if isinstance(c.before, float) or isinstance(c.after, float):
            return False
        arg = str(c).split(" (static)")[0]
        values.setdefault(arg, set()).update({repr(c.before), repr(c.after)})
    return all(len(v) <= 3 for v in values.values())


def _same_call(a: Signature, b: Signature) -> bool | None:
    """Whether two signatures were first called from the same line (None: unknown)."""
    x, y = a.get("first_call"), b.get("first_call")
    if not isinstance(x, dict) or not isinstance(y, dict):
        return None
    return (x.get("file"), x.get("line")) == (y.get("file"), y.get("line"))


def _from_test(sig: Mapping[str, Any]) -> bool:
    """Whether the signature's first call was made from a test file."""
    call = sig.get("first_call")
    return isinstance(call, dict) and is_test_path(str(call.get("file") or ""))


def _number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _smaller_batch(before: tuple, after: tuple) -> bool:
    """The same rank, some dimensions smaller (a batch, a sequence), none larger."""
    if len(before) != len(after) or not before:
        return False
    return all(b <= a for a, b in zip(before, after)) and tuple(before) != tuple(after)


def _where(ctx, sig: Signature, base: Signature | None, at: Literal["first_call", "again_at"] = "first_call"):
    """The call that caused the compile (recorded by `jaxlint record`), with where the
    function is jitted and its first call; the jit site when no call was recorded.
    ``at="again_at"``: the call that compiled ``sig`` again, its first call related."""
    from jaxlint.dynamic.analysis import Site

    entry = ctx.entry_site()
    if base is not None and int(base.get("seq") or 0) > int(sig.get("seq") or 0):
        sig, base = base, sig  # the extra compile is the later one
    call = sig.get(at) if isinstance(sig, dict) else None
    if not isinstance(call, dict) and at != "first_call":
        call, at = sig.get("first_call"), "first_call"
    if not isinstance(call, dict):
        return entry, []
    if at != "first_call":
        base = sig
    site = Site(call["file"], int(call["line"]), int(call.get("column") or 1))
    related = [entry.related(f"`{ctx.qualname}` is jitted here")]
    first = (base or {}).get("first_call")
    if isinstance(first, dict) and (first["file"], first["line"]) != (call["file"], call["line"]):
        related.append(Site(first["file"], int(first["line"]), int(first.get("column") or 1))
                       .related("its first compile"))
    return site, related


def _param_names(fn) -> list[str]:
    if fn is None:
        return []
    try:
        return [p.name for p in inspect.signature(fn).parameters.values()]
    except (TypeError, ValueError):
        return []
