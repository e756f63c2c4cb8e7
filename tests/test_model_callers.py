"""The value model across calls (``jaxlint/static/callers.py``): what flows into a
function's parameters from its call sites, and the rules that ask it (a module passed in
or given as a default, a host array bound to a factory's parameter, a static count passed
to a helper)."""
from __future__ import annotations

import ast
import subprocess
import sys
import json
import textwrap
from pathlib import Path

import pytest

from helpers import lint_source
from jaxlint.static.callers import Callers
from jaxlint.static.consts import UNKNOWN, static_value
from jaxlint.static.semantic import ModuleModel


def model_of(src: str) -> ModuleModel:
    return ModuleModel(ast.parse(textwrap.dedent(src)), "m")


def fn_named(model: ModuleModel, qualname: str):
    return next(f for f in model.functions if f.qualname == qualname)


def bound_texts(src: str, fn: str, param: str) -> list[str] | None:
    m = model_of(src)
    found = Callers.of(m).param_values(fn_named(m, fn), param)
    return None if found is None else [ast.unparse(b.value) for b in found]


def codes_lines(src: str, select: list[str]) -> list[tuple[str, int]]:
    return sorted({(d.code, d.start.line) for d in lint_source(src, select=select)})


# ---------------------------------------------------------------------- the model
def test_positional_keyword_and_default_are_joined():
    src = """
        def helper(x, n, scale=2.0):
            return x * n * scale
        def a(x):
            return helper(x, 3)
        def b(x):
            return helper(x, n=4, scale=1.0)
        """
    assert bound_texts(src, "helper", "n") == ["3", "4"]
    assert bound_texts(src, "helper", "scale") == ["2.0", "1.0"]


@pytest.mark.parametrize("escape", [
    "fns = [helper]",                   # stored
    "def make():\n    return helper",   # returned
    "import jax\nf = jax.jit(helper)",  # handed to a call that is not a call of it
    "alias = helper",
])
def test_a_function_that_escapes_has_unknown_parameters(escape):
    src = "def helper(x, n=3):\n    return x * n\n\ndef a(x):\n    return helper(x, 4)\n\n" + escape + "\n"
    assert bound_texts(src, "helper", "n") is None


@pytest.mark.parametrize("call", ["helper(*args)", "helper(1, **kw)", "helper(args[0])"])
def test_unreadable_or_missing_arguments(call):
    src = f"def helper(x, n):\n    return x * n\n\ndef a(*args, **kw):\n    return {call}\n"
    assert bound_texts(src, "helper", "n") is None


def test_recursion_and_no_call_site_are_unknown():
    src = """
        def count(n):
            return 0 if n == 0 else count(n - 1)
        def lonely(k):
            return k
        def main():
            return count(10)
        """
    assert bound_texts(src, "count", "n") is None
    assert bound_texts(src, "lonely", "k") is None


def test_partial_binds_and_methods_and_constructors():
    src = """
        import functools
        def scaled(a, x):
            return a * x
        double = functools.partial(scaled, 2)

        class Box:
            def __init__(self, size, fill=0):
                self.size = size
            def grow(self, by):
                return self.size + by
            def run(self):
                return self.grow(5)

        b = Box(7)
        c = Box(size=9, fill=1)
        """
    assert bound_texts(src, "scaled", "a") == ["2"]
    assert bound_texts(src, "scaled", "x") is None  # passed where the partial is called
    assert bound_texts(src, "Box.__init__", "size") == ["7", "9"]
    assert bound_texts(src, "Box.__init__", "fill") == ["0", "1"]
    assert bound_texts(src, "Box.grow", "by") == ["5"]


def test_a_subclass_or_an_unknown_method_call_makes_it_unknown():
    src = """
        class Base:
            def __init__(self, n):
                self.n = n
            def step(self, k):
                return k
        class Child(Base):
            pass
        b = Base(3)
        def go(obj):
            return obj.step(4)
        """
    assert bound_texts(src, "Base.__init__", "n") is None
    assert bound_texts(src, "Base.step", "k") is None


def test_a_module_passed_in_or_given_as_default_resolves():
    src = """
        import numpy as np
        import jax.numpy as jnp
        def by_default(x, xnp=np):
            return xnp.stack([x, x])
        def passed(x, xnp):
            return xnp.stack([x, x])
        def mixed(x, xnp=np):
            return xnp.stack([x, x])
        def run(x):
            return by_default(x), passed(x, np), passed(x, xnp=np), mixed(x), mixed(x, jnp)
        """
    m = model_of(src)
    stacks = {m.function_of(c).name: m.resolve_call(c) for c in m.nodes(ast.Call)
              if isinstance(c.func, ast.Attribute) and c.func.attr == "stack"}
    assert stacks == {"by_default": "numpy.stack", "passed": "numpy.stack", "mixed": None}


def test_a_wrapper_handing_its_parameter_on_is_followed():
    src = """
        def inner(x, n):
            return x * n
        def outer(x, k):
            return inner(x, k)
        def main(x):
            return outer(x, 12)
        """
    m = model_of(src)
    bound = Callers.of(m).values(fn_named(m, "inner"), "n")
    assert [ast.unparse(b.value) for b in bound or ()] == ["12"]
    n = next(n for n in m.nodes(ast.Name) if n.id == "n" and isinstance(n.ctx, ast.Load))
    assert static_value(m, n) == 12


def test_static_value_of_a_parameter_needs_every_caller_to_agree():
    src = """
        def inner(x, n):
            return x * n
        def a(x):
            return inner(x, 3)
        def b(x):
            return inner(x, 4)
        """
    m = model_of(src)
    n = next(n for n in m.nodes(ast.Name) if n.id == "n" and isinstance(n.ctx, ast.Load))
    assert static_value(m, n) is UNKNOWN


# ---------------------------------------------------------------------- the rules that ask
XNP = """
    import jax
    import jax.numpy as jnp
    import numpy as np

    def to_unit(v, xnp=np):
        return xnp.stack([v[..., 0], v[..., 1]], axis=-1) / xnp.linalg.norm(v)  # <-

    @jax.jit
    def step(v):
        return jnp.sum(to_unit(v{passes}))
    """


@pytest.mark.parametrize("passes,found", [
    ("", [("JAX104", 6)]),            # the default: NumPy on a tracer
    (", np", [("JAX104", 6)]),        # NumPy passed in
    (", xnp=np", [("JAX104", 6)]),
    (", jnp", []),                    # jax.numpy passed in: traces
    (", xnp=jnp", []),
])
def test_jax104_numpy_through_a_parameter(passes, found):
    assert codes_lines(XNP.format(passes=passes), ["JAX104"]) == found


def test_jax104_callers_that_disagree_leave_it_unknown():
    src = XNP.format(passes="") + "\n    def host(v):\n        return to_unit(v, jnp)\n"
    assert codes_lines(src, ["JAX104"]) == []


FACTORY = """
    import jax
    import jax.numpy as jnp

    TABLE = {{"w": jnp.ones(({rows}, 1024)), "b": jnp.zeros(1024)}}

    def make_score(table):
        @jax.jit
        def score(x):
            return x @ table["w"] + table["b"]  # <-
        return score

    {call}
    """


@pytest.mark.parametrize("rows,call,found", [
    (8192, "score = make_score(TABLE)", [("JAX101", 9)]),
    (8192, "def main():\n        return make_score(TABLE)", [("JAX101", 9)]),
    (4, "score = make_score(TABLE)", []),                   # small: below the limit
    (8192, "make = make_score", []),                        # escapes: callers unknown
    (8192, "@jax.jit\n    def outer(t):\n        return make_score(t)(t['b'])", []),  # a tracer
])
def test_jax101_a_factory_parameter_bound_to_a_host_array(rows, call, found):
    assert codes_lines(FACTORY.format(rows=rows, call=call), ["JAX101"]) == found


LOOP = """
    import jax
    import jax.numpy as jnp

    def smooth(x, n_iter):
        for _ in range(n_iter):  # <-
            x = 0.5 * (x + jnp.roll(x, 1))
        return x

    @jax.jit
    def step(x{extra}):
        return smooth(x, {count})
    """


@pytest.mark.parametrize("extra,count,found", [
    ("", "2000", [("JAX102", 5)]),
    ("", "3", []),            # a short loop
    (", n", "n", []),         # a traced count: not a static loop (tracing fails: JAX105's)
])
def test_jax102_a_static_count_passed_to_a_helper(extra, count, found):
    assert codes_lines(LOOP.format(extra=extra, count=count), ["JAX102"]) == found


@pytest.mark.parametrize("program,raises", [
    (XNP.format(passes=""), True),
    (XNP.format(passes=", jnp"), False),
])
def test_numpy_through_a_parameter_under_real_jax(tmp_path, program, raises):
    """The truth of the JAX104 cells: NumPy given a tracer raises when the jit traces."""
    code = textwrap.dedent(program) + "\nimport jax.numpy as jnp\nstep(jnp.ones((3, 2)))\nprint('ok')\n"
    (tmp_path / "p.py").write_text(code)
    r = subprocess.run([sys.executable, str(tmp_path / "p.py")], capture_output=True, text=True,
                       env={"JAX_PLATFORMS": "cpu", "PATH": "/usr/bin:/bin"})
    assert (r.returncode != 0 and "Tracer" in r.stderr) == raises, r.stderr[-2000:]


# ---------------------------------------------------------------------- instances and their methods
LOSSES = """
    import jax
    import jax.numpy as jnp
    import numpy as np

    class Loss:
        def __init__(self, index, measurement):
            self.index = index
            self.data = jnp.asarray(measurement)

        def __call__(self, x):
            print("loss", self.index)
            return jnp.sum((x[self.index] - self.data) ** 2)

        def grad_norm(self, x):
            return jnp.linalg.norm(x - self.data)

    {made}
    """
FACTORY_OF_LOSSES = "def make_loss(i):\n        return Loss(i, np.random.rand(8))\n\n    "


@pytest.mark.parametrize("made,cls", [
    ("fns = [jax.jit(loss.__call__) for loss in [Loss(i, np.ones({size})) for i in range(8)]]", "Loss"),
    ("losses = [Loss(i, np.ones({size})) for i in range(8)]\n    fns = [jax.jit(l.grad_norm) for l in losses]", "Loss"),
    (FACTORY_OF_LOSSES + "losses = (make_loss(0), make_loss(1))\n    fns = [jax.jit(l.__call__) for l in losses]", "Loss"),
    (FACTORY_OF_LOSSES + "fns = []\n    for loss in [make_loss(i) for i in range(4)]:\n        fns.append(jax.jit(loss.__call__))", "Loss"),
    (FACTORY_OF_LOSSES + "loss = make_loss(3)\n    fn = jax.jit(loss.__call__)", "Loss"),
    ("losses = [Loss(0, 1), object()]\n    fns = [jax.jit(l.__call__) for l in losses]", None),  # not all Loss
])
def test_the_class_of_an_instance_made_in_a_list_a_comprehension_or_a_factory(made, cls):
    src = LOSSES.format(size=8, made=made.format(size=8))
    m = model_of(src)
    jit_arg = next(c.args[0] for c in m.nodes(ast.Call) if m.resolve_call(c) == "jax.jit")
    assert m.instance_class(jit_arg.value, m.function_of(jit_arg)) == cls
    traced = {f.qualname for f in m.functions if f.traced}
    assert bool(traced & {"Loss.__call__", "Loss.grad_norm"}) == (cls is not None)


@pytest.mark.parametrize("size,made,found", [
    # each jitted bound method bakes its instance's 8 MiB array in
    (1 << 20, "losses = [Loss(i, np.random.rand({size})) for i in range(64)]\n"
              "    fns = [jax.jit(loss.__call__) for loss in losses]", [("JAX101", 12), ("JAX106", 11)]),
    (1 << 20, "loss = Loss(0, np.ones({size}))\n    fn = jax.jit(loss.grad_norm)", [("JAX101", 15)]),
    (16, "losses = [Loss(i, np.random.rand({size})) for i in range(64)]\n"
         "    fns = [jax.jit(loss.__call__) for loss in losses]", [("JAX106", 11)]),      # small arrays
    (1 << 20, "def build(w):\n        return [jax.jit(Loss(i, w).__call__) for i in range(3)]", [("JAX106", 11)]),
    # (`w` is a parameter no call site binds: its size is not known)
])
def test_rules_on_jitted_bound_methods_of_instances(size, made, found):
    src = LOSSES.format(size=size, made=made.format(size=size))
    assert codes_lines(src, ["JAX101", "JAX106"]) == found


# ---------------------------------------------------------------------- loop counts
@pytest.mark.parametrize("it,count", [
    ("range(N)", 3000),
    ("reversed(range(N))", 3000),
    ("enumerate(reversed(range(2, N)))", 2998),
    ("zip(range(N), LAYERS)", 2000),
    ("zip(range(N), xs)", None),            # a traced array's length is not static
    ("range(len(LAYERS))", 2000),
    ("list(range(0, N, 3))", 1000),
    ("LAYERS", 2000),
    ("[1, 2] + [3]", 3),
    ("[0] * (1 << 20)", None),               # too long to build
    ("sorted(LAYERS, reverse=True)", 2000),
    ("zip(*pairs)", None),
])
def test_iteration_count(it, count):
    from jaxlint.static.consts import iteration_count
    src = f"N = 3000\nLAYERS = [64, 128, 256, 512] * 500\n\ndef f(xs, pairs):\n    for _ in {it}:\n        pass\n"
    m = model_of(src)
    loop = next(iter(m.nodes(ast.For)))
    assert iteration_count(m, loop.iter) == count


@pytest.mark.parametrize("it,found", [
    ("reversed(range(N))", [("JAX102", 7)]),
    ("zip(range(len(LAYERS)), LAYERS)", [("JAX102", 7)]),
    ("range(len(LAYERS))", [("JAX102", 7)]),
    ("zip(range(N), xs)", []),
    ("reversed(range(3))", []),
])
def test_jax102_counts_loops_over_builtins_of_static_iterables(it, found):
    src = f"""
        import jax
        N = 3000
        LAYERS = [64, 128, 256, 512] * 500

        @jax.jit
        def f(x, xs):
            for i in {it}:
                x = x * 1.01
            return x
        """
    assert codes_lines(src, ["JAX102"]) == found


# ---------------------------------------------------------------------- an enclosing list's item updated in place
ACC = """
    import jax
    import jax.numpy as jnp

    def f():
        acc = [jnp.zeros([])]

        def bump():
            {body}
            return acc[0]

        jax.remat(bump)()
        return jax.remat(bump)()
    """


@pytest.mark.parametrize("body,found", [
    ("acc[0] += 1", [("JAX107", 8)]),       # stores `acc[0] + 1`, a tracer of the remat's trace
    ("acc[0] *= 2.0", [("JAX107", 8)]),
    ("n = acc[0] + 1", []),                 # a local: nothing kept past the trace
])
def test_jax107_an_enclosing_item_updated_in_place(body, found):
    src = ACC.format(body=body) + "\n    def main():\n        return jax.jit(f)()\n"
    assert codes_lines(src, ["JAX107"]) == found


@pytest.mark.parametrize("body,leaks", [("acc[0] += 1", True), ("n = acc[0] + 1", False)])
def test_an_enclosing_item_updated_in_place_under_real_jax(tmp_path, body, leaks):
    """The truth of the JAX107 cells, by jax's leak checker."""
    code = textwrap.dedent(ACC.format(body=body)) + "\nprint(jax.jit(f)())\n"
    (tmp_path / "p.py").write_text(code)
    r = subprocess.run([sys.executable, str(tmp_path / "p.py")], capture_output=True, text=True,
                       env={"JAX_PLATFORMS": "cpu", "JAX_CHECK_TRACER_LEAKS": "1", "PATH": "/usr/bin:/bin"})
    assert ("Leaked trace" in r.stderr) == leaks, r.stderr[-2000:]


# ---------------------------------------------------------------------- keyword splats of known dicts
FIXTURES = Path(__file__).parent / "fixtures" / "rules"


def fixture_text(code: str, name: str) -> str:
    """A rule fixture as a program: its header and its markers taken off."""
    text = (FIXTURES / code / name).read_text()
    return "\n".join(line for line in text.splitlines() if not line.startswith("#: ")).replace(f"  # expect: {code}", "")


#: JAX105's splat fixture, its dict made as each case says
SPLAT_MADE = "    return solve(x0, dict(gain=gain, floor=1.0))"


@pytest.mark.parametrize("made,found", [
    ("kw = dict(gain=gain, floor=1.0)", []),                       # a Python float: concrete in the body
    ("kw = {'gain': gain, 'floor': 2}", []),
    ("kw = dict(gain=gain, floor=gain)", [("JAX105", 6)]),         # the traced argument
    ("kw = dict(gain=gain, floor=1.0)\n    kw['floor'] = gain", [("JAX105", 6)]),  # changed in place
    ("kw = dict(gain=gain, **{'floor': gain})", [("JAX105", 6)]),  # a display splatted in a display
    ("kw = dict(gain=gain, floor=1.0)\n    kw['gain'] = 2 * gain", []),  # a store of another key
    ("kw = dict(gain=gain)\n    kw['floor'] = 1.0", []),
    ("kw = {k: gain for k in ('gain', 'floor')}", [("JAX105", 6)]),  # a comprehension over constant keys
    ("kw = {'gain': gain, **{k: 0.5 for k in ('floor',)}}", []),
    ("kw = dict(gain=gain, floor=1.0) if x0.ndim else dict(gain=gain, floor=gain)", [("JAX105", 6)]),  # either arm
    ("kw = dict(gain=gain, floor=1.0) if x0.ndim else dict(gain=gain, floor=2.0)", []),
])
def test_jax105_a_keyword_splat_passes_each_entry_as_it_was_made(made, found):
    src = fixture_text("JAX105", "valid_splat_constant.py").replace(SPLAT_MADE, f"    {made}\n    return solve(x0, kw)")
    assert codes_lines(src, ["JAX105"]) == found


@pytest.mark.parametrize("made,preview", [
    ("kw = dict(zip(('gain', 'floor'), (gain, gain)))", True),  # traced, entries unseen
    ("kw = dict(gain=gain, floor=1.0)\n    kw.update(floor=gain)", True),
    ("kw = dict(zip(('gain', 'floor'), (1.0, 1.0)))", False),   # made of Python floats
])
def test_jax105_a_keyword_splat_of_an_unseen_dict_is_possible_at_most(made, preview):
    """What an unseen dict passes to a parameter is not known: never an error, a possible
    finding (``--preview``) when the dict is traced."""
    src = fixture_text("JAX105", "valid_splat_constant.py").replace(SPLAT_MADE, f"    {made}\n    return solve(x0, kw)")
    assert codes_lines(src, ["JAX105"]) == []
    found = lint_source(src, select=["JAX105"], confidence="possible")
    assert [(d.code, d.start.line, d.severity.value) for d in found] == ([("JAX105", 6, "warning")] if preview else [])


#: The programs whose run under real jax proves the cells above and the fixtures: each
#: fixture (markers taken off) with the calls that trace it
REAL_PROGRAMS = {
    "splat-constant": fixture_text("JAX105", "valid_splat_constant.py")
    + "\nprint(step(jnp.float32(1.0), jnp.float32(2.0)))\n",
    "splat-traced": fixture_text("JAX105", "invalid_splat_traced.py")
    + "\nprint(step(jnp.float32(1.0), jnp.float32(2.0)))\n",
    "either-config": fixture_text("JAX105", "valid_either_config.py")
    + "\nimport jax.numpy as jnp\nprint(run(jnp.ones(2)))\n",
    "either-state": fixture_text("JAX105", "invalid_either_state.py")
    + "\nimport jax.numpy as jnp\nprint(run(jnp.ones(2), State(jnp.array(1))))\n",
    "user-method": fixture_text("JAX111", "valid_user_method.py")
    + "\ne = Ensemble([jnp.eye(2), 2 * jnp.eye(2)])\nx = jnp.ones(2)\n"
      "print(annotated(e, x), by_keyword(e, x), unannotated(e, x))\n",
    "array-method": fixture_text("JAX111", "invalid_array_method.py") + "\nprint(centre(jnp.ones((2, 3)), 1))\n",
    # the helper writes once per trace: two calls of the jitted function, one line
    "joined-static": fixture_text("JAX106", "valid_joined_static_text.py")
    + "\nrun(jax.random.split(jax.random.key(0), 3), 'a')\n",
    "joined-traced": fixture_text("JAX106", "invalid_joined_traced_text.py") + "\nstep(1.0)\nstep(2.0)\n",
}

#: runs each program as ``__main__`` in one interpreter (jax imported once), its stderr
#: captured, and prints what each raised
REAL_DRIVER = """
import contextlib, io, json, runpy, sys
out = {}
for name, path in json.loads(sys.argv[1]).items():
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err):
            runpy.run_path(path, run_name="__main__")
        out[name] = {"raised": None, "stderr": err.getvalue()}
    except Exception as e:
        out[name] = {"raised": type(e).__name__, "message": str(e)[:300], "stderr": err.getvalue()}
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def real_runs(tmp_path_factory) -> dict[str, dict]:
    root = tmp_path_factory.mktemp("real")
    paths = {}
    for name, text in REAL_PROGRAMS.items():
        (root / f"{name}.py").write_text(text)
        paths[name] = str(root / f"{name}.py")
    r = subprocess.run([sys.executable, "-c", REAL_DRIVER, json.dumps(paths)], capture_output=True,
                       text=True, env={"JAX_PLATFORMS": "cpu", "PATH": "/usr/bin:/bin"}, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("program,raised", [
    ("splat-constant", None),           # the loop body sees the float as a Python float
    ("splat-traced", "TracerBoolConversionError"),
    ("either-config", None),            # a configuration object's flag is a Python bool in the branch
    ("either-state", "TracerBoolConversionError"),  # a pytree state's data field is a tracer there
    ("user-method", None),              # the user's `mean` takes an operand and runs
    ("array-method", "ConcretizationTypeError"),  # the array's `mean` given a traced axis
])
def test_the_fixtures_raise_under_real_jax_as_their_markers_say(real_runs, program, raised):
    got = real_runs[program]
    assert got["raised"] == raised, got


@pytest.mark.parametrize("program,written", [("joined-static", "running experiment a"), ("joined-traced", "loss ")])
def test_jax106_joined_text_under_real_jax(real_runs, program, written):
    """The log helper writes its line once per trace; static text is the text meant, a
    traced value's is the tracer's."""
    got = real_runs[program]
    assert got["raised"] is None, got
    lines = [line for line in got["stderr"].splitlines() if line.startswith(("running", "loss"))]
    assert len(lines) == 1 and lines[0].startswith(written), got
    assert ("Tracer" in lines[0]) == (program == "joined-traced"), lines


# ---------------------------------------------------------------------- a long chain of callers
CHAIN = {
    "entry": "@jax.jit\ndef entry(x):\n    return a(x, somelib.count(x))\n",
    "a": "def a(x, n):\n    return b(x, n)\n",
    "b": "def b(x, n):\n    return c(x, n)\n",
    "c": "def c(x, n):\n    return d(x, n)\n",
    "d": "def d(x, n):\n    return e(x, n)\n",
    "e": "def e(x, n):\n    if n > 1:\n        return jnp.sin(x)\n    return x\n",
}


@pytest.mark.parametrize("order", ["entry a b c d e", "e d c b a entry", "c e a entry d b"])
def test_a_parameter_is_as_sure_as_its_callers_pass_whatever_order_they_are_asked_in(order):
    """``n`` comes from a call the model cannot see into, five callers up: a possible
    finding, never an error, in whatever order the module defines the functions (a view
    made deep in the chain of callers is asked again from nearer)."""
    src = "import jax\nimport jax.numpy as jnp\nimport somelib\n\n\n" + "\n\n".join(CHAIN[n] for n in order.split())
    assert codes_lines(src, ["JAX105"]) == []
    found = lint_source(src, select=["JAX105"], confidence="possible")
    assert [(d.code, d.severity.value) for d in found] == [("JAX105", "warning")]


def test_recursion_between_helpers_stays_bounded():
    src = """
    import jax
    import jax.numpy as jnp

    def even(x, n):
        return x if n == 0 else odd(x, n - 1)

    def odd(x, n):
        return -x if n == 0 else even(x, n - 1)

    @jax.jit
    def entry(x):
        return even(x, x.sum())
    """
    assert codes_lines(src, ["JAX105"]) == [("JAX105", 5), ("JAX105", 8)]
