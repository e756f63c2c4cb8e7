"""The static model's blind spots of issue 36, each a general capability of the model
with VALID and INVALID code: what jaxlint says of it, and what real jax does with it
(one fresh jax process for all the snippets, ``outcomes_under_jax``).

* container truthiness: the leaves list of a pytree is a Python list; its truth value
  is the tree's structure (``values.python_container``); so is a name declared a list
  (``xs: List[Array] = []``) and a parameter every caller of the module passes a list;
* selects of two operands: one key drawing both alternatives of a select, of which one
  survives per element, is not reuse (``selects.alternatives``);
* a donating jitted function called from traced code is staged into that trace: nothing
  is donated there (``traced.staged_inside``, JAX113);
* jit/eager dispatch on an argument: in a function jitted only when a flag is set, the
  arm that runs only when it is not is plain Python (``traced.dead_when_traced``), and
  so is the branch of a function whose module-level jitted twin its dispatchers call only
  when an argument is set (``traced._twin_facts``);
* a pytree field annotated as a container: its truth value is its structure
  (``values.container_field``);
* a conditional behind a static shape guard (``if x.ndim == 0:``) runs only for that
  shape: possible, not certain (``shapes.shape_guard``).
"""
from __future__ import annotations

import functools
import textwrap

from helpers import lines
from static_rule_helpers import outcomes_under_jax

def marked(src: str) -> list[int]:
    """The lines of ``src`` marked ``# INVALID`` (as ``lines`` numbers them)."""
    text = textwrap.dedent(src).lstrip("\n")
    return [i for i, line in enumerate(text.splitlines(), 1) if "# INVALID" in line]


# ------------------------------------------------------------------ container truthiness
CONTAINERS = """
    import jax
    import jax.numpy as jnp

    @jax.jit
    def leaves_truth(x):
        if jax.tree_util.tree_leaves(x):
            return x
        return x

    @jax.jit
    def tree_leaves_truth(x):
        if jax.tree.leaves(x):
            return x
        return x

    @jax.jit
    def flatten_first(x):
        if not jax.tree_util.tree_flatten(x)[0]:
            return x
        return x

    @jax.jit
    def unpacked(x):
        leaves, treedef = jax.tree_util.tree_flatten(x)
        if leaves and len(jax.tree_util.tree_leaves(x)) > 1:
            return x
        return x

    @jax.jit
    def a_leaf(x):
        if jax.tree_util.tree_leaves(x)[0]:  # INVALID: a leaf, a traced array
            return x
        return x

    @jax.jit
    def first_leaf(x):
        leaves, _ = jax.tree_util.tree_flatten(x)
        first = leaves[0]
        if first:  # INVALID
            return x
        return x

    PAIRS = {"pair": lambda x: ([x, x * 2], [x + 1])}

    @jax.jit
    def declared_list(x, flag=True):
        gammas: list = []
        if x.ndim:
            _, gammas = PAIRS["pair"](x)
        if flag and gammas:
            return x + gammas[0]
        return x

    @jax.jit
    def declared_array(x, flag=True):
        scale: jax.Array = x.sum()
        if flag and scale:  # INVALID: an array's truth
            return x
        return x

    def combine(x, flag, extras=None):
        if flag and extras:
            return x + extras[0]
        return x

    @jax.jit
    def lists_passed(x):
        zs = []
        zs.append(x)
        return combine(x, True, [x * 2]) + combine(x, False, [x * i for i in range(3)]) + combine(x, True, zs)

    def scaled(x, flag, extra=None):
        if flag and extra:  # INVALID: one caller passes an array
            return x * extra[0]
        return x

    @jax.jit
    def array_passed(x):
        return scaled(x, True, [x]) + scaled(x, True, x * 2)
"""


def test_the_leaves_list_of_a_tree_has_a_static_truth_value():
    assert lines("JAX105", CONTAINERS) == marked(CONTAINERS) != []


# ------------------------------------------------------------------ selects of two operands
SELECTS = """
    import jax
    import jax.numpy as jnp
    from jax import lax

    def inline(key, c):
        return jnp.where(c, jax.random.normal(key, (8,)), jax.random.uniform(key, (8,)))

    def named(key, c):
        a = jax.random.normal(key, (8,)) * 2.0
        b = jax.random.uniform(key, (8,))
        return jnp.where(c, a, b)

    def lax_select(key, c):
        return lax.select(c, jax.random.normal(key, (8,)), jax.random.uniform(key, (8,)))

    def choices(key, c):
        return jnp.select([c, ~c], [jax.random.normal(key, (8,)), jax.random.uniform(key, (8,))])

    def nested(key, c, d):
        return jnp.where(c, jax.random.normal(key, (8,)),
                         jnp.where(d, jax.random.uniform(key, (8,)), jax.random.laplace(key, (8,))))

    def conditional(key, c):
        return jax.random.normal(key, (8,)) if c else jax.random.uniform(key, (8,))

    def both_survive(key, c):
        a = jax.random.normal(key, (8,))
        b = jax.random.uniform(key, (8,))  # INVALID: `a` survives beside the select below
        return jnp.where(c, a, b) + a

    def drawn_condition(key):
        return jnp.where(jax.random.uniform(key, (4096,)) > 0.5,
                         jax.random.normal(key, (4096,)), 0.0)  # INVALID: the condition drew from the key
"""


def test_one_key_drawing_two_alternatives_of_a_select_is_not_reuse():
    assert lines("JAX114", SELECTS) == marked(SELECTS) != []


# ------------------------------------------------------------------ donation inside a trace
DONATION = """
    import functools
    import jax
    import jax.numpy as jnp

    @functools.partial(jax.jit, donate_argnums=(0,))
    def update(state, x):
        return state + x

    @jax.jit
    def step(state, x):
        new = update(state, x)
        return new + state

    class Game:
        @functools.partial(jax.jit, static_argnums=(0,), donate_argnums=(1,))
        def move(self, state):
            return state + 1

        @functools.partial(jax.jit, static_argnums=(0,))
        def step(self, state):
            new = self.move(state)
            return new * state

    def train(state, x):
        new = update(state, x)
        return state + new  # INVALID: eager, `state` was deleted by the donating call

    def eager():
        try:
            train(jnp.arange(4.0), jnp.arange(4.0))
        except (RuntimeError, ValueError) as e:  # which one depends on jax's dispatch path
            return "deleted" if "deleted" in str(e) else repr(e)
        return "ran"

    def traced_step():
        s = jnp.ones(4) * 1.0
        out = step(s, jnp.ones(4) * 1.0) + Game().step(s)
        return str((float(out.sum()), s.is_deleted()))
"""


def test_a_donating_call_staged_into_a_trace_donates_nothing():
    assert lines("JAX113", DONATION) == marked(DONATION) != []


# ------------------------------------------------------------------ an error only when proven
STATIC_ARGS = """
    import functools
    import jax
    import jax.numpy as jnp
    from jax import Array

    @functools.partial(jax.jit, static_argnames=("tsave",))
    def solve(y0, tsave: Array):  # the annotation is stale: the calls pass a tuple
        return y0 * len(tsave)

    def run(y0, tsave):
        return solve(y0, tuple(jnp.asarray(tsave).tolist()))

    @functools.partial(jax.jit, static_argnames=("sizes",))
    def widths(x, sizes=[1, 2]):  # INVALID: a warning: jit never hashes a default it is not given
        return x * sum(sizes)

    def wide(x):
        return widths(x, sizes=[3, 4])  # INVALID: a list passed: the proven error

    @functools.partial(jax.jit, static_argnames=("grid",))
    def unseen(x, grid: Array):  # INVALID: a warning: no call shows what is passed
        return x
"""


def test_an_annotation_alone_is_a_warning_and_the_calls_decide():
    from helpers import lint_source
    from jaxlint.diagnostic import Severity

    found = {d.start.line: d.severity for d in lint_source(STATIC_ARGS, select=["JAX108"])}
    assert sorted(found) == marked(STATIC_ARGS)
    assert [found[line] for line in marked(STATIC_ARGS)] == [Severity.WARNING, Severity.ERROR, Severity.WARNING]


# ------------------------------------------------------------------ jit/eager dispatch on an argument
DISPATCH = """
    import jax
    import jax.numpy as jnp

    def scaled(x, jit=False):
        def g(y):
            if not jit:
                print("eager", float(y.sum()))
            return y * 2
        return jax.jit(g)(x) if jit else g(x)

    def chosen(x, use_jit=True):
        def g(y):
            if use_jit:
                return y + 1
            return float(y.sum()) + 1.0
        fn = jax.jit(g) if use_jit else g
        return fn(x)

    def wrong(x, jit=False):
        def g(y):
            if jit:
                print("jitted", float(y.sum()))  # INVALID: the arm the trace takes
            return y * 2
        return jax.jit(g)(x) if jit else g(x)
"""


def test_the_eager_only_arm_of_a_function_jitted_on_a_flag_is_not_traced():
    assert lines("JAX105", DISPATCH) == marked(DISPATCH) != []
    assert lines("JAX106", DISPATCH) == marked(DISPATCH)


@functools.lru_cache(maxsize=1)
def _outcomes() -> dict[str, str]:
    c = "jnp.arange(8) % 2 == 0"
    containers, selects = textwrap.dedent(CONTAINERS), textwrap.dedent(SELECTS)
    donation = textwrap.dedent(DONATION)
    return outcomes_under_jax({
        # a Python list's truth under jit: runs; a leaf's: TracerBoolConversionError
        **{f"truth:{name}": (containers, f"{name}({{'a': jnp.ones(3), 'b': jnp.zeros(2)}})")
           for name in ("leaves_truth", "tree_leaves_truth", "flatten_first", "unpacked")},
        "truth:a_leaf": (containers, "a_leaf({'a': jnp.ones(())})"),
        "truth:first_leaf": (containers, "first_leaf({'a': jnp.ones(())})"),
        # a name declared a list, a parameter every caller passes a list: their truth is the
        # length; an array declared so, or passed by one caller: TracerBoolConversionError
        **{f"truth:{name}": (containers, f"{name}(jnp.ones(3)) is not None and 'ok'")
           for name in ("declared_list", "lists_passed")},
        **{f"truth:{name}": (containers, f"{name}(jnp.ones(()))") for name in ("declared_array", "array_passed")},
        # each element of a select holds one draw: as random as a draw from a split key
        # (half the normals are negative); a condition drawn from the same key picks,
        # for every element, exactly the normals that are positive: a wrong result
        "select:inline": (selects, f"str(bool(((inline(jax.random.key(0), {c}) < 0).sum()) > 0))"),
        "select:drawn_condition": (selects, "str(int((drawn_condition(jax.random.key(0)) < 0).sum()))"),
        # inside a jit the donating call deletes nothing; from eager code it does
        "donation:traced": (donation, "traced_step()"),
        "donation:eager": (donation, "eager()"),
        # jitted on the flag, the eager-only arm never runs under the trace; the other arm does
        "dispatch:jit": (textwrap.dedent(DISPATCH), "str(float(scaled(jnp.ones(3), jit=True).sum()))"),
        "dispatch:eager": (textwrap.dedent(DISPATCH), "str(float(scaled(jnp.ones(3)).sum()))"),
        "dispatch:chosen": (textwrap.dedent(DISPATCH), "str(float(chosen(jnp.ones(3)).sum()) + chosen(jnp.ones(3), False))"),
        "dispatch:wrong": (textwrap.dedent(DISPATCH), "wrong(jnp.ones(3), jit=True)"),
        # the proven error raises; the stale annotation runs with what its calls pass
        "static:default": (textwrap.dedent(STATIC_ARGS), "str(widths(jnp.ones(2)).tolist())"),
        "static:passed": (textwrap.dedent(STATIC_ARGS), "wide(jnp.ones(2))"),
        "static:calls": (textwrap.dedent(STATIC_ARGS), "str(float(run(jnp.ones(()), [0.0, 0.5, 1.0])))"),
    })


def test_real_jax_agrees_on_container_truth():
    out = _outcomes()
    assert {k: v for k, v in out.items() if k.startswith("truth:")} == {
        "truth:leaves_truth": "ok", "truth:tree_leaves_truth": "ok", "truth:flatten_first": "ok",
        "truth:unpacked": "ok", "truth:a_leaf": "TracerBoolConversionError",
        "truth:first_leaf": "TracerBoolConversionError", "truth:declared_list": "ok", "truth:lists_passed": "ok",
        "truth:declared_array": "TracerBoolConversionError", "truth:array_passed": "TracerBoolConversionError"}


def test_real_jax_shows_the_reuse_that_is_reported_and_not_the_select():
    out = _outcomes()
    assert out["select:inline"] == "True"  # the selected normals are the normals of a key: some negative
    assert out["select:drawn_condition"] == "0"  # never negative: condition and value are one draw


def test_real_jax_deletes_a_donated_buffer_only_from_eager_code():
    out = _outcomes()
    # step: 4 * ((1 + 1) + 1), Game().step: 4 * ((1 + 1) * 1): the donated `s` read after, and kept
    assert out["donation:traced"] == "(20.0, False)"
    assert out["donation:eager"] == "deleted"  # Array has been deleted


def test_real_jax_raises_on_the_proven_static_error_only():
    out = _outcomes()
    assert out["static:default"] == "[3.0, 3.0]"  # the list default is never hashed
    assert out["static:passed"] == "ValueError"  # non-hashable static arguments are not supported
    assert out["static:calls"] == "3.0"


def test_real_jax_runs_the_eager_only_arm_only_eagerly():
    out = _outcomes()
    assert out["dispatch:jit"] == out["dispatch:eager"] == "6.0"
    assert out["dispatch:chosen"] == "10.0"  # 3 * 2 jitted, 3 + 1 eagerly
    assert out["dispatch:wrong"] == "ConcretizationTypeError"


# ------------------------------------------------------------------ a static-marked pytree field
def test_real_jax_branches_on_a_field_annotated_static_and_raises_on_a_leaf(tmp_path):
    """tests/fixtures/rules/JAX105/valid_static_marker: `Annotated[bool, JAX_STATIC]`
    fields are the aux data of the config's pytree (its base's tree_flatten, as torax's),
    so a branch on one under jit sees a Python bool; a branch on another field raises."""
    import os
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    fixture = Path(__file__).resolve().parents[2] / "fixtures" / "rules" / "JAX105"
    shutil.copytree(fixture / "valid_static_marker", tmp_path, dirs_exist_ok=True)
    shutil.copy(fixture / "valid_static_marker.py", tmp_path / "example.py")
    program = textwrap.dedent("""
        import jax, jax.numpy as jnp
        import example
        from config import build, numerics
        p = build.Provider(numerics.Numerics(adaptive_dt=False, min_dt=1e-3))
        print(float(example.step(p.numerics, jnp.ones(2)).sum()), float(example.run(jnp.zeros(2), p).sum()))

        @jax.jit
        def leaf(provider, x):
            if provider.numerics.min_dt > 0:
                return x
            return -x

        try:
            leaf(p, jnp.ones(2))
        except Exception as e:
            print(type(e).__name__)
        """)
    proc = subprocess.run([sys.executable, "-c", program], cwd=tmp_path, capture_output=True, text=True,
                          timeout=300, env={**os.environ, "JAX_PLATFORMS": "cpu", "PYTHONPATH": str(tmp_path)})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["2.0", "0.0", "TracerBoolConversionError"]


# ------------------------------------------------------------------ the fixtures of issue 36's blind40 classes
def _fixture(name: str, code: str = "JAX105") -> str:
    from pathlib import Path

    return (Path(__file__).resolve().parents[2] / "fixtures" / "rules" / code / f"{name}.py").read_text()


@functools.lru_cache(maxsize=1)
def _fixture_outcomes() -> dict[str, str]:
    """Every real-jax case of the fixtures below, in one fresh jax process."""
    field, bad_field = _fixture("valid_container_field"), _fixture("invalid_container_field")
    rest = "Buffers([jnp.ones(4)]), Pair((3,), jnp.ones(4)), Model((jnp.eye(4),))"
    bad = "State(jnp.ones(4), (1,), {'a': jnp.ones(4)}, jnp.ones(()), True)"
    twin, bad_twin = _fixture("valid_jitted_twin"), _fixture("invalid_jitted_twin")
    x = "jnp.arange(4.0)"
    guard = _fixture("valid_shape_guard")
    masks = "jnp.ones((3, 4, 4, 2), bool), jnp.zeros((3, 4, 4, 2), bool)"
    meta, bad_meta = _fixture("valid_pytree_node_metadata"), _fixture("invalid_pytree_node_metadata")
    return outcomes_under_jax({
        "field:valid": (field, f"str(step(State(jnp.ones((2, 4)), (1, 2), [0], [], {{'a': jnp.ones(4)}}), {rest}).shape)"),
        "field:empty": (field, f"str(step(State(jnp.ones((2, 4)), (), None, [], {{}}), {rest}).shape)"),
        **{f"field:invalid:{name}": (bad_field, f"{name}({bad})") for name in ("step", "masked", "flagged")},
        "field:invalid:unannotated": (bad_field, f"str(unannotated({bad}).shape)"),
        "twin:eager": (twin, f"str(float(evidence({x}, 2)) + float(scaled({x}).sum()))"),
        "twin:jitted": (twin, f"str(float(evidence({x}, 2, state=jnp.float32(2))) + float(scaled({x}, 3.0).sum()))"),
        "twin:invalid:eager": (bad_twin, f"str(float(evidence({x}, 2)))"),
        "twin:invalid:jitted": (bad_twin, f"evidence({x}, 2, state=1.0)"),
        "twin:invalid:unguarded": (bad_twin, f"total({x}, 2)"),
        "guard:vmapped": (guard, f"str(ious({masks}).shape)"),
        "guard:scalar": (guard, "jax.jit(iou)(jnp.ones((4, 4), bool), jnp.zeros((4, 4), bool))"),
        # after `if x.ndim != 0: return ...` only a scalar goes on
        "guard:early:vector": (guard, "str(one(jnp.arange(-1.0, 2.0)).tolist())"),
        "guard:early:scalar": (guard, "one(jnp.float32(2))"),
        "meta:valid": (meta, "str(summed(View({'a': 0, 'b': 1}, jax.numpy.ones((2, 3)))).tolist())"),
        "meta:invalid": (bad_meta, "scaled(View({}, jax.numpy.float32(2)))"),
    })


def _cases(prefix: str) -> dict[str, str]:
    return {k[len(prefix):]: v for k, v in _fixture_outcomes().items() if k.startswith(prefix)}


# ------------------------------------------------------------------ a pytree field annotated as a container
def test_real_jax_takes_the_truth_of_a_container_field_and_raises_on_a_leaf():
    """tests/fixtures/rules/JAX105/{valid,invalid}_container_field.py: under jit a pytree
    keeps a field's tuple, list or dict around its traced leaves, so its truth value is
    its structure (blind40's tunix samplers); a leaf's truth raises."""
    assert _cases("field:") == {
        "valid": "(2, 4)", "empty": "(2, 4)", "invalid:step": "TracerBoolConversionError",
        "invalid:masked": "TracerBoolConversionError", "invalid:flagged": "TracerBoolConversionError",
        # the field is a tuple here too: reported as likely only, its class being unknown
        "invalid:unannotated": "(4,)"}


# ------------------------------------------------------------------ a function with a jitted twin
def test_real_jax_runs_the_eager_only_branch_of_a_jitted_twin_only_eagerly():
    """tests/fixtures/rules/JAX105/{valid,invalid}_jitted_twin.py: ``f_jit = jax.jit(f)``
    called only when an argument is set, ``f`` eagerly otherwise (blind40's jaxns): the
    branch of ``f`` that runs without it never sees a tracer; the twin's own branch does,
    and so does every branch when a dispatcher calls the twin unguarded."""
    assert _cases("twin:") == {"eager": "7.0", "jitted": "30.0", "invalid:eager": "6.0",
                               "invalid:jitted": "ConcretizationTypeError",
                               "invalid:unguarded": "ConcretizationTypeError"}


# ------------------------------------------------------------------ a conditional behind a static shape guard
def test_a_conditional_behind_a_shape_guard_is_possible_and_real_jax_runs_the_other_arm():
    """tests/fixtures/rules/JAX105/valid_shape_guard.py: the arm of ``if j.ndim == 0:``
    runs only for the shape it names (blind40's kauldron): jaxlint keeps the findings
    there as possible (``--preview``); real jax runs the vmapped callers' shape through
    the other arm, and raises only when a caller passes the named shape."""
    from helpers import lint_source

    found = lint_source(_fixture("valid_shape_guard"), select=["JAX105"], confidence="possible")
    assert [(d.start.line, d.confidence.value) for d in found] == [
        (11, "possible"), (24, "possible"), (27, "possible"), (28, "possible"), (35, "possible")]
    assert all(d.severity.value == "warning" and "runs only when" in d.message for d in found)
    assert _cases("guard:") == {"vmapped": "(2, 3)", "scalar": "TracerBoolConversionError",
                                "early:vector": "[0.0, 0.0, 1.0]", "early:scalar": "TracerBoolConversionError"}


def test_code_after_a_shape_check_that_raises_is_not_behind_a_guard_and_real_jax_fails_there():
    """tests/fixtures/rules/JAX105/invalid_after_shape_check.py: ``if t.ndim != 1: raise``
    checks the argument; the traced test after it runs on every call that passes the
    check (recall round 16: dynamiqs), so it is reported by default, and real jax raises
    there for the one shape the check lets through."""
    from helpers import lint_source

    src = _fixture("invalid_after_shape_check")
    found = lint_source(src, select=["JAX105"])
    assert [d.start.line for d in found] == [9] and "runs only when" not in found[0].message
    assert outcomes_under_jax({"checked": (src, "integrate(jnp.ones(3), jnp.arange(3.0))")}) == {
        "checked": "TracerBoolConversionError"}


# ------------------------------------------------------------------ a field declared static by its metadata
def test_real_jax_keeps_a_field_with_pytree_node_false_metadata_static():
    """tests/fixtures/rules/JAX105/{valid,invalid}_pytree_node_metadata.py: a library's own
    decorator that reads ``metadata={"pytree_node": False}`` (penzai's, as holdout's
    ``NamedArrayView``) keeps the field in the aux data: a Python dict under jit; the
    field it leaves a node is a tracer."""
    assert _cases("meta:") == {"valid": "6.0", "invalid": "TracerBoolConversionError"}  # both axes summed


# ------------------------------------------------------------------ blind42's values static by construction
@functools.lru_cache(maxsize=1)
def _blind42_outcomes() -> dict[str, str]:
    """Every real-jax case of blind42's fixtures below, in one fresh jax process."""
    prim, bad_prim = _fixture("valid_primitive_params"), _fixture("invalid_primitive_params")
    aux, bad_aux = _fixture("valid_registered_aux"), _fixture("invalid_registered_aux")
    td, bad_td = _fixture("valid_treedef"), _fixture("invalid_treedef")
    vm, bad_vm = _fixture("valid_eager_vmap_unbatched"), _fixture("invalid_eager_vmap_unbatched")
    loop, bad_loop = _fixture("valid_verbose_eager_loop"), _fixture("invalid_verbose_eager_loop")
    ref, bad_ref = _fixture("valid_pallas_ref", "JAX110"), _fixture("invalid_pallas_ref", "JAX110")
    table, bad_table = _fixture("valid_module_array", "JAX111"), _fixture("invalid_module_array", "JAX111")
    bound, bad_bound = _fixture("valid_bound_method", "JAX108"), _fixture("invalid_bound_method", "JAX108")
    alias, bad_alias = (_fixture(f"{k}_alias_of_earlier_pass", "JAX113") + _DONATED_TWICE for k in ("valid", "invalid"))
    x = "jnp.arange(1.0, 7.0).reshape(1, 6).repeat(3, axis=0)"
    prim, bad_prim, bad_aux, td, bad_td, bad_ref = ("import jax.numpy as jnp\n" + src  # what the calls below use
                                                    for src in (prim, bad_prim, bad_aux, td, bad_td, bad_ref))
    return outcomes_under_jax({
        "prim:freeze": (prim, f"str(batched(({x},), (0,), n=2, freeze=True)[0].tolist()[0])"),
        "prim:plain": (prim, f"str(batched(({x},), (0,), n=2, freeze=False)[0].tolist()[0])"),
        "prim:invalid": (bad_prim, f"batched(({x}, jnp.array([2, 2, 2])), freeze=True)"),
        "aux:valid": (aux, "str(total(Dia(jnp.ones((2, 4)), (0, 1), (4, 4))).tolist())"),
        "aux:invalid": (bad_aux, "scaled(Scaled(jnp.ones(3), 2))"),
        "treedef:valid": (td, "str(len(mapped((0, 0), jnp.ones(2), jnp.ones(2))))"),
        "treedef:mismatch": (td, "mapped((0,), jnp.ones(2), jnp.ones(2))"),
        "treedef:invalid": (bad_td, "first_positive({'a': jnp.ones(2)})"),
        "vmap:valid": (vm, "str(float(all_angles(jnp.full((3, 2), jnp.inf), jnp.ones((3, 2)), jnp.arange(4.0)).sum()))"),
        "vmap:invalid": (bad_vm, "all_angles(jnp.ones((3, 2)), jnp.arange(4.0))"),
        "loop:verbose": (loop, "str(float(solve(jnp.ones(2), verbose=True).sum() + solve_closure(jnp.ones(2), True).sum()))"),
        "loop:quiet": (loop, "str(float(solve(jnp.ones(2)).sum() + solve_closure(jnp.ones(2)).sum()))"),
        "loop:invalid": (bad_loop, "solve(jnp.ones(2))"),
        "ref:valid": (ref, "str(add(jnp.ones(4), jnp.ones(4)).tolist() + total(jnp.ones((2, 4))).tolist())"),
        "ref:invalid": (bad_ref, "add(jnp.ones(4), jnp.ones(4))"),
        "table:valid": (table, "str(unpack(jnp.ones(41)).tolist() + per_row(jnp.ones((2, 41))).tolist())"),
        "table:invalid": (bad_table, "unpack(jnp.ones(41))"),
        "bound:valid": (bound, "str([round(float(v[0])) for v in main()])"),
        "bound:invalid": (bad_bound, "str([round(float(v[0])) for v in main()])"),
        "alias:valid": (alias, "outcome(total, [{'a': jnp.ones(2)}] * 3) + outcome(total_of_targets, [{'a': jnp.ones(2)}])"),
        "alias:invalid": (bad_alias, "outcome(total, range(3), {'a': jnp.ones(2)}) + outcome(same_pass, [jnp.ones(2)])"),
    })


#: appended to a JAX113 fixture: what a call of it does (which exception jax raises for a
#: buffer donated and read in one call depends on its version and dispatch path)
_DONATED_TWICE = """
import jax.numpy as jnp


def outcome(f, *args):
    try:
        jax.block_until_ready(f(*args))
        return "ran;"
    except (RuntimeError, ValueError) as e:
        return "donated and read;" if "donated" in str(e) else type(e).__name__
"""


def test_real_jax_keeps_what_blind42_read_as_traced_a_python_value():
    """blind42's false JAX105/JAX111/JAX110 classes, each a fixture pair under
    tests/fixtures/rules/ (whose findings ``test_rule_examples`` pins): a primitive's
    keyword parameters bound by ``partial(**params)`` (quadax), the aux data of a class
    registered with ``register_pytree_node`` and a field set to its ``len`` (qutip-jax), a
    treedef compared with another (nifty8: a mismatch raises the library's own
    ValueError, a Python bool), jax.numpy on the ``in_axes=None`` arguments of a vmap run
    eagerly (jaxlayerlumos), a lax loop's verbose branch that runs only in the eager
    Python loop (qpax), a Pallas kernel's output Ref (aqtp), and a module-level NumPy
    table's elements (or a jax table's where nothing compiles) all run; each invalid twin
    raises, an element of a module-level jax array under jit too (recall round 9). An
    alias made in the other arm of an ``if`` on an earlier pass of a loop that makes its
    source anew is another buffer (fedjax): donating one and reading the other runs; an
    alias of the same pass, or of a source the loop does not rebind, is one buffer. A
    jitted bound method keeps the attribute it read at its first call (recall round 9)."""
    assert _blind42_outcomes() == {
        "prim:freeze": "[2.0, 4.0]", "prim:plain": "[4.0, 6.0]", "prim:invalid": "IndexError",
        "aux:valid": "[1.0, 2.0, 2.0, 2.0]", "aux:invalid": "TracerBoolConversionError",
        "treedef:valid": "2", "treedef:mismatch": "ValueError", "treedef:invalid": "TracerBoolConversionError",
        "vmap:valid": "0.0", "vmap:invalid": "TracerBoolConversionError",
        "loop:verbose": "0.5", "loop:quiet": "0.5", "loop:invalid": "ConcretizationTypeError",
        "ref:valid": "[2.0, 2.0, 2.0, 2.0, 8.0, 8.0, 8.0, 8.0]", "ref:invalid": "TypeError",
        # recall round 9's jax #9463: an element of a module-level jax array under jit
        "table:valid": "[1.0, 20.0, 20.0, [1.0, 20.0, 20.0], [1.0, 20.0, 20.0]]", "table:invalid": "IndexError",
        # blind42's fedjax: an alias from an earlier pass of the loop is another buffer
        "alias:valid": "ran;ran;", "alias:invalid": "donated and read;donated and read;",
        # recall round 9's brax #440: the second reset still starts at the first pose (1, not 3),
        # and so does the jit of the same bound method made in `__init__`, first called after it
        "bound:valid": "[1, 1]", "bound:invalid": "[1, 1, 1]",
    }
