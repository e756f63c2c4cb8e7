"""A generalisation matrix for the static phase (issue 19): tiny programs generated from
three axes, run through the real CLI once, so that a rule found for one shape of code is
known to hold for the others.

The axes:

* **how the function is traced** (``CONTEXTS``): ``@jax.jit``, ``jax.jit(f)`` bound to a
  name, ``jax.grad(f)`` only, a ``lax.scan`` body (a def, a ``partial``, a lambda), a method
  called through ``self`` from a jitted method, ``eqx.filter_jit``, ``jax.pmap``, ... and
  one untraced control;
* **how the value reaches the problem** (``TRACED_PATHS``): the traced parameter itself, a local
  copy, tuple unpacking, a container element, a field of a NamedTuple / registered
  dataclass / registered pytree parameter, a helper's return, ``abs()`` of it, ``x[0] - 1``,
  a comprehension, ``jnp`` of a host array, a closure, a conditional expression's arms;
* **the problem** (``TRACED_PROBLEMS``): one canonical form per static rule about traced values
  (JAX104, JAX105, JAX106, JAX107, JAX111), with a **VALID twin** that puts a static value
  (``x.shape[0]``, ``len(xs)``, a static field, a helper returning a shape) in the same
  position and must stay quiet.

Three planes of the traced-value cube are generated (contexts x problems through the
parameter itself; paths x problems under ``@jax.jit``; contexts x paths for ``if v > 0:``;
a lambda holds one expression, so the lambda contexts take the problems that have an
expression form, through the parameter itself),
and three families of their own, crossed with the contexts: JAX101 (a big host array
reached through a module constant, a module dict or list entry, a field of a module-level
instance, a default argument, ...), JAX102 (a static, big loop count reached through the
same kinds of path) and JAX114 (a PRNG key drawn from twice, reached through a split, a
container, a field, ...).

An INVALID cell is *found* when its rule reports one of its marked lines (``# <-``) at the
default confidence (certain or likely; at any confidence under ``eqx.filter_jit``, which
keeps non-array arguments static, for an unannotated parameter). A VALID cell is *quiet* when its rule reports
nothing in the whole program, at any confidence (``--preview``: a possible finding is shown
in editors as a hint, so it is a false positive too). Cells that miss today, and VALID
cells reported today, are ``xfail(strict=True)`` with the gap class as the reason
(``GAPS``): a fix flips them to XPASS, and whoever fixes them removes the class (or narrows
it). Where a problem is one is decided by real jax: the cells of the first two planes run
under it (``test_cells_are_true_under_jax``), so ``if x > 0:`` under ``jax.grad`` alone,
where the value's primal is concrete, is a CONTROL that must stay quiet.

``python tests/test_model_matrix.py`` prints the counts per gap class;
``python tests/test_model_matrix.py -v`` also lists every cell that is not as expected and
prints one program of each class (run it with the interpreter of the jaxlint to measure).
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

HEADER = """\
import dataclasses
from functools import partial
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
"""


def _d(text: str) -> str:
    return textwrap.dedent(text).strip("\n")


# ------------------------------------------------------------------ axis 1: contexts
@dataclass(frozen=True)
class Context:
    """How the function holding the problem is traced. ``@BODY`` is where the body goes
    (at that line's indentation), ``{param}`` the traced parameter's declaration,
    ``{pname}`` its name, ``{arg}`` a value to pass for it."""
    name: str
    call: str        # runs it under jax: {arg} a value for the parameter, {batch} one with a leading axis
    template: str
    imports: str = ""
    traced: bool = True
    #: "grad", "vmap": traced but not staged, each operation runs as it is called. Under
    #: grad a value's primal is concrete (``if x > 0:`` works); under either, a value not
    #: computed from the arguments is a concrete array. Nothing is compiled, so a captured
    #: array or a long Python loop costs no compile time (no JAX101/JAX102 cells).
    eager: str = ""
    possible_is_found: bool = False

    @property
    def method(self) -> bool:
        """The traced function is a method: ``self`` is there to store on."""
        return "(self, {param})" in self.template

    @property
    def differentiates(self) -> bool:
        return "{float_arg}" in self.call + self.template

    @property
    def expression_only(self) -> bool:
        return "@EXPR" in self.template


CONTEXTS: list[Context] = [
    Context("jit-decorator", "f({arg})", """
        @jax.jit
        def f({param}):
            @BODY
            return 0.0
        """),
    Context("jit-bound-name", "f_jit({arg})", """
        def f({param}):
            @BODY
            return 0.0


        f_jit = jax.jit(f)
        """),
    Context("jit-partial-static", "f(3, {arg})", """
        @partial(jax.jit, static_argnums=(0,))
        def f(n, {param}):
            @BODY
            return 0.0
        """),
    Context("jit-inline-in-main", "main()", """
        def f({param}):
            @BODY
            return 0.0


        def main():
            return jax.jit(f)({arg})
        """),
    Context("grad-only", "df({float_arg})", """
        def f({param}):
            @BODY
            return 0.0


        df = jax.grad(f)
        """, eager="grad"),
    Context("vmap-only", "batched({batch})", """
        def f({param}):
            @BODY
            return 0.0


        batched = jax.vmap(f)
        """, eager="vmap"),
    Context("value-and-grad-in-jit", "step({float_arg})", """
        def loss({param}):
            @BODY
            return 0.0


        @jax.jit
        def step(p):
            return jax.value_and_grad(loss)(p)
        """),
    Context("scan-body", "run({batch})", """
        def body(c, {param}):
            @BODY
            return c, 0.0


        def run(xs):
            return lax.scan(body, 0.0, xs)
        """),
    Context("scan-body-partial", "run({batch})", """
        def body(k, c, {param}):
            @BODY
            return c, 0.0


        def run(xs):
            return lax.scan(partial(body, 2), 0.0, xs)
        """),
    Context("fori-body", "run({arg})", """
        def body(i, {param}):
            @BODY
            return {pname}


        def run(x0):
            return lax.fori_loop(0, 3, body, x0)
        """),
    Context("while-body", "run({arg})", """
        def body({param}):
            @BODY
            return {pname}


        def run(x0):
            return lax.while_loop(lambda c: jnp.array(False), body, x0)
        """),
    Context("cond-branch", "run(True, {arg})", """
        def branch({param}):
            @BODY
            return {pname}


        def run(p, x0):
            return lax.cond(p, branch, lambda a: a, x0)
        """),
    Context("helper-of-jit", "step({arg})", """
        def helper({param}):
            @BODY
            return 0.0


        @jax.jit
        def step(x0):
            return helper(x0)
        """),
    Context("method-via-self", "(obj := Model()).step({arg})", """
        class Model:
            def f(self, {param}):
                @BODY
                return 0.0

            @partial(jax.jit, static_argnums=0)
            def step(self, x0):
                return self.f(x0)
        """),
    Context("jit-of-instance-method", "step({arg})", """
        class Model:
            def f(self, {param}):
                @BODY
                return 0.0


        model = Model()
        step = jax.jit(model.f)
        """),
    Context("jit-self-method-in-init", "(obj := Model()).step({arg})", """
        class Model:
            def __init__(self):
                self.step = jax.jit(self.f)

            def f(self, {param}):
                @BODY
                return 0.0
        """),
    Context("factory-closure", "step({arg})", """
        def make_step(scale):
            def f({param}):
                @BODY
                return 0.0
            return f


        step = jax.jit(make_step(2.0))
        """),
    # filter_jit traces the arrays it is given and keeps other values static (`if training:`
    # on a bool is fine there): unannotated, a parameter is only possibly traced, so a
    # possible finding is enough (``Context.possible_is_found``)
    Context("eqx-filter-jit", "f({arg})", """
        @eqx.filter_jit
        def f({param}):
            @BODY
            return 0.0
        """, imports="import equinox as eqx", possible_is_found=True),
    Context("nnx-jit", "f({arg})", """
        @nnx.jit
        def f({param}):
            @BODY
            return 0.0
        """, imports="from flax import nnx"),
    Context("pmap", "pf({batch})", """
        def f({param}):
            @BODY
            return 0.0


        pf = jax.pmap(f)
        """),
    Context("shard-map", "sharded({arg})", """
        def f({param}):
            @BODY
            return 0.0


        mesh = jax.make_mesh((1,), ("i",))
        sharded = jax.jit(jax.shard_map(f, mesh=mesh, in_specs=P(), out_specs=P()))
        """, imports="from jax.sharding import PartitionSpec as P"),
    Context("jit-of-grad-in-main", "main()", """
        def f({param}):
            @BODY
            return 0.0


        def main():
            return jax.jit(jax.grad(f))({float_arg})
        """),
    Context("jit-of-vmap", "fast({batch})", """
        def f({param}):
            @BODY
            return 0.0


        fast = jax.jit(jax.vmap(f))
        """),
    Context("vmap-decorator-in-jit", "step({batch})", """
        @jax.vmap
        def f({param}):
            @BODY
            return 0.0


        @jax.jit
        def step(xs):
            return f(xs)
        """),
    Context("lax-map-body", "run({batch})", """
        def f({param}):
            @BODY
            return 0.0


        def run(xs):
            return lax.map(f, xs)
        """),
    Context("switch-branch", "run(0, {arg})", """
        def branch({param}):
            @BODY
            return {pname}


        def run(i, x0):
            return lax.switch(i, [branch, lambda a: a], x0)
        """),
    Context("checkpoint-in-jit", "step({arg})", """
        def f({param}):
            @BODY
            return 0.0


        @jax.jit
        def step(x0):
            return jax.checkpoint(f)(x0)
        """),
    Context("custom-jvp-in-jit", "step({float_arg})", """
        @jax.custom_jvp
        def f({param}):
            @BODY
            return 0.0


        @f.defjvp
        def f_jvp(primals, tangents):
            return f(*primals), 0.0


        @jax.jit
        def step(x0):
            return f(x0)
        """),
    Context("eqx-filter-jit-array-param", "f({arg})", """
        @eqx.filter_jit
        def f({param_as_array}):
            @BODY
            return 0.0
        """, imports="import equinox as eqx"),
    # lambdas hold one expression: only the problems with an expression form (``Problem.expr``)
    Context("jit-lambda", "f({arg})", """
        f = jax.jit(lambda {pname}: @EXPR)  # <-
        """),
    Context("vmap-lambda", "batched({batch})", """
        batched = jax.vmap(lambda {pname}: @EXPR)  # <-
        """, eager="vmap"),
    Context("scan-body-lambda", "run({batch})", """
        def run(xs):
            return lax.scan(lambda c, {pname}: (c, @EXPR), 0.0, xs)  # <-
        """),
    Context("fori-body-lambda", "run({arg})", """
        def run(x0):
            return lax.fori_loop(0, 3, lambda i, {pname}: (@EXPR, {pname})[1], x0)  # <-
        """),
    Context("cond-branch-lambda", "run(True, {arg})", """
        def run(p, x0):
            return lax.cond(p, lambda {pname}: (@EXPR, {pname})[1], lambda a: a, x0)  # <-
        """),
    # the control: nothing traces this function, so the INVALID form is no problem here
    Context("untraced", "main()", """
        def f({param}):
            @BODY
            return 0.0


        def main():
            return f({arg})
        """, traced=False),
]
CONTEXT = {c.name: c for c in CONTEXTS}


# ------------------------------------------------------------------ axis 2: value paths
@dataclass(frozen=True)
class ValuePath:
    """How a value reaches the problem. ``lines`` run in the traced function before the
    problem (``@PROBLEM`` places it inside them, else it follows them); ``v`` is the
    value at the problem, ``s`` a static value in the same position (the VALID twin);
    ``prelude`` goes at module level."""
    name: str
    v: str
    s: str
    lines: str = ""
    param: str = "x"
    arg: str = "jnp.array(1)"
    prelude: str = ""
    needs_self: bool = False     # only in methods


STATE = """
    class State(NamedTuple):
        a: jax.Array
        n: int
    """
TREE = """
    @jax.tree_util.register_pytree_node_class
    class Tree:
        def __init__(self, a, n):
            self.a = a
            self.n = n

        def tree_flatten(self):
            return (self.a,), self.n

        @classmethod
        def tree_unflatten(cls, n, leaves):
            return cls(leaves[0], n)

        def double(self):
            return self.a * 2

        def count(self):
            return self.n + 1
    """
TRACED_PATHS: list[ValuePath] = [
    ValuePath("param", "x", "x.size"),
    ValuePath("local-copy", "y", "y.size", "y = x"),
    ValuePath("tuple-unpack", "a", "b", "a, b = x, 2"),
    ValuePath("list-element", "xs[0]", "len(xs)", "xs = [x, x]"),
    ValuePath("dict-entry", 'd["k"]', "len(d)", 'd = {"k": x}'),
    ValuePath("namedtuple-field", "s.a", "s.a.size", param="s: State", arg="State(jnp.array(1), jnp.array(3))",
              prelude=STATE),
    ValuePath("namedtuple-field-unannotated", "s.a", "s.a.size", param="s", arg="State(jnp.array(1), jnp.array(3))",
              prelude=STATE),
    ValuePath("dataclass-field", "p.a", "p.n", param="p: Params", arg="Params(jnp.array(1))",
              prelude="""
        @jax.tree_util.register_dataclass
        @dataclasses.dataclass
        class Params:
            a: jax.Array
            n: int = dataclasses.field(default=3, metadata=dict(static=True))
        """),
    ValuePath("pytree-class-field", "t.a", "t.n", param="t: Tree", arg="Tree(jnp.array(1), 3)", prelude=TREE),
    # a method of a pytree parameter: one returning arithmetic on a leaf, one a static field
    ValuePath("pytree-method", "t.double()", "t.count()", param="t: Tree", arg="Tree(jnp.array(1), 3)",
              prelude=TREE),
    # the other declared-static field forms
    ValuePath("flax-struct-field", "p.a", "p.n", param="p: FState", arg="FState(jnp.array(1))", prelude="""
        from flax import struct


        @struct.dataclass
        class FState:
            a: jax.Array
            n: int = struct.field(pytree_node=False, default=3)
        """),
    ValuePath("eqx-module-field", "m.a", "m.n", param="m: EModel", arg="EModel(jnp.array(1))", prelude="""
        import equinox as eqx


        class EModel(eqx.Module):
            a: jax.Array
            n: int = eqx.field(static=True, default=3)
        """),
    ValuePath("register-dataclass-meta-fields", "p.a", "p.n", param="p: MState", arg="MState(jnp.array(1))",
              prelude="""
        @partial(jax.tree_util.register_dataclass, data_fields=["a"], meta_fields=["n"])
        @dataclasses.dataclass
        class MState:
            a: jax.Array
            n: int = 3
        """),
    ValuePath("object-made-in-trace", "b.a", "b.n", "b = Box(x)", prelude="""
        class Box:
            def __init__(self, a):
                self.a = a
                self.n = 3
        """),
    ValuePath("helper-return", "y", "n", "y = double(x)\nn = size_of(x)", prelude="""
        def double(a):
            return a * 2


        def size_of(a):
            return a.size
        """),
    ValuePath("array-method", "y", "n", "y = x.sum()\nn = x.reshape(-1).shape[0]"),
    ValuePath("builtin-abs", "y", "n", "y = abs(x)\nn = max(x.size, 2)"),
    ValuePath("arith-index", "y", "n", "y = x[0] - 1\nn = x.shape[0] + 1", arg="jnp.ones(1, int)"),
    ValuePath("comprehension", "ys[0]", "ns[0]", "ys = [x * k for k in (1, 2)]\nns = [x.size * k for k in (1, 2)]"),
    ValuePath("jnp-of-host-array", "y", "HOST.size", "y = jnp.asarray(HOST)", prelude="HOST = np.array(1)"),
    ValuePath("self-roundtrip", "self.v", "self.n", "self.v = x\nself.n = x.size", needs_self=True),
    ValuePath("closure", "x", "x.size", "def inner():\n    @PROBLEM\n\ninner()"),
    ValuePath("conditional-arms", "y", "n", "y = x + 1 if x.ndim > 1 else x - 1\nn = x.size if x.ndim else 1"),
]
TRACED_PATH = {p.name: p for p in TRACED_PATHS}


# ------------------------------------------------------------------ axis 3: problems
@dataclass(frozen=True)
class Problem:
    """One canonical form of a rule's problem; ``invalid`` uses ``{v}``, ``valid`` puts
    ``{s}`` (a static value) in the same position. The marked line ends with ``# <-``."""
    name: str
    rule: str
    invalid: str
    valid: str
    prelude: str = ""
    #: no problem under grad alone, where a value's primal is concrete (``float()`` still
    #: fails there, and so does a float used as a shape)
    needs_concrete: bool = False
    anywhere: bool = False          # found on any line of the program, not only the marked ones
    expr: str = ""                  # the problem as one expression (for lambdas), and its twin
    needs_self: bool = False        # only in methods
    #: needs an integer value: left out of the contexts that differentiate (their values are
    #: floats, and ``range(x)`` or a shape of one is a type error whether traced or not)
    needs_int: bool = False
    valid_expr: str = ""


STORE = """
    class Store:
        pass


    STORE = Store()
    """
TRACED_PROBLEMS: list[Problem] = [
    Problem("np-asarray", "JAX104", "h = np.asarray({v})  # <-", "h = np.asarray({s})  # <-",
            expr="np.asarray({v})", valid_expr="np.asarray({s})"),
    Problem("if", "JAX105", "if {v} > 0:  # <-\n    pass", "if {s} > 0:  # <-\n    pass", needs_concrete=True,
            expr="(1 if {v} > 0 else 0)", valid_expr="(1 if {s} > 0 else 0)"),
    Problem("float", "JAX105", "r = float({v})  # <-", "r = float({s})  # <-",
            expr="float({v})", valid_expr="float({s})"),
    Problem("assert", "JAX105", "assert {v}  # <-", "assert {s}  # <-", needs_concrete=True),
    Problem("range", "JAX105", "for _ in range({v}):  # <-\n    pass", "for _ in range({s}):  # <-\n    pass",
            needs_int=True),
    Problem("print", "JAX106", "print({v})  # <-", "print({s})  # <-",
            expr="print({v})", valid_expr="print({s})"),
    Problem("global-store", "JAX107", "global G\nG = {v}  # <-", "global G\nG = {s}  # <-", prelude="G = None"),
    Problem("self-store", "JAX107", "self.cache = {v}  # <-", "self.cache = {s}  # <-", needs_self=True),
    Problem("module-object-attr", "JAX107", "STORE.last = {v}  # <-", "STORE.last = {s}  # <-", prelude=STORE),
    Problem("zeros-shape", "JAX111", "z = jnp.zeros(({v},))  # <-", "z = jnp.zeros(({s},))  # <-",
            expr="jnp.zeros(({v},))", valid_expr="jnp.zeros(({s},))", needs_int=True),
    Problem("arange", "JAX111", "z = jnp.arange({v})  # <-", "z = jnp.arange({s})  # <-", needs_concrete=True,
            expr="jnp.arange({v})", valid_expr="jnp.arange({s})"),
    Problem("flatnonzero", "JAX111", "z = jnp.flatnonzero({v})  # <-", "z = jnp.flatnonzero({v}, size={s})  # <-",
            needs_concrete=True,
            expr="jnp.flatnonzero({v})", valid_expr="jnp.flatnonzero({v}, size={s})"),
]
TRACED_PROBLEM = {p.name: p for p in TRACED_PROBLEMS}

# JAX101: a big host array (8 MiB) reached in traced code; the VALID twin is the same
# program with a 4x4 array
BIG, SMALL = "(1024, 1024)", "(4, 4)"
HOST_PATHS: list[ValuePath] = [
    ValuePath("module-constant", "TABLE", "", prelude="TABLE = np.ones(@SHAPE)  # <-"),
    ValuePath("module-jnp-constant", "TABLE", "", prelude="TABLE = jnp.ones(@SHAPE)  # <-"),
    ValuePath("module-dict-entry", 'TABLES["w"]', "", prelude='TABLES = {"w": np.ones(@SHAPE)}  # <-'),
    ValuePath("module-list-entry", "TABLES[0]", "", prelude="TABLES = [np.ones(@SHAPE)]  # <-"),
    ValuePath("module-tuple-entry", "TABLES[0]", "", prelude="TABLES = (np.ones(@SHAPE), 1.0)  # <-"),
    ValuePath("module-nested-dict", 'CFG["tables"]["w"]', "", prelude='CFG = {"tables": {"w": np.ones(@SHAPE)}}  # <-'),
    ValuePath("module-instance-field", "BANK.table", "", prelude="""
        class Bank:
            def __init__(self, table):
                self.table = table


        BANK = Bank(np.ones(@SHAPE))  # <-
        """),
    ValuePath("module-instance-method", "BANK.lookup()", "", prelude="""
        class Bank:
            def __init__(self, table):
                self.table = table

            def lookup(self):
                return self.table


        BANK = Bank(np.ones(@SHAPE))  # <-
        """),
    ValuePath("default-argument", "table", "", param="x, table=DEFAULT",
              prelude="DEFAULT = np.ones(@SHAPE)  # <-"),
    ValuePath("local-copy-of-constant", "t", "", "t = TABLE", prelude="TABLE = np.ones(@SHAPE)  # <-"),
    ValuePath("helper-returning-constant", "get_table()", "", prelude="""
        TABLE = np.ones(@SHAPE)  # <-


        def get_table():
            return TABLE
        """),
    ValuePath("closure-of-factory-local", "table", "", prelude="", lines=""),  # context-specific, see below
]
HOST_PATHS = [p for p in HOST_PATHS if p.name != "closure-of-factory-local"]
#: found where JAX101 reports it: at the read, at the copy, at the helper's return or at the
#: parameter with the default (the INVALID program holds one array, its twin a small one)
CAPTURE = Problem("capture", "JAX101", "h = jnp.sum({v}) + 1.0  # <-", "h = jnp.sum({v}) + 1.0  # <-",
                  anywhere=True)

# JAX102: a static loop count of 1000 reached through a path; the VALID twin counts to 3
COUNT_PATHS: list[ValuePath] = [
    ValuePath("literal", "@N", ""),
    ValuePath("module-constant", "STEPS", "", prelude="STEPS = @N"),
    ValuePath("local-copy", "n", "", "n = STEPS", prelude="STEPS = @N"),
    ValuePath("tuple-unpack", "n", "", "n, m = STEPS, 2", prelude="STEPS = @N"),
    ValuePath("module-dict-entry", 'CFG["steps"]', "", prelude='CFG = {"steps": @N}'),
    ValuePath("module-config-field", "CONFIG.steps", "", prelude="""
        class Config(NamedTuple):
            steps: int


        CONFIG = Config(steps=@N)
        """),
    ValuePath("helper-return", "n_steps()", "", prelude="""
        STEPS = @N


        def n_steps():
            return STEPS
        """),
    ValuePath("arithmetic", "STEPS * 2", "", prelude="STEPS = @N // 2"),
]
LOOP = Problem("range-loop", "JAX102", "acc = 0.0\nfor _ in range({v}):  # <-\n    acc = acc * 2.0",
               "acc = 0.0\nfor _ in range({v}):  # <-\n    acc = acc * 2.0")

# JAX114: a key drawn from twice, both draws' numbers read (a draw nobody reads repeats no
# numbers: JAX114 counts only uses whose results are read); the VALID twin splits it first
KEY_PATHS: list[ValuePath] = [
    ValuePath("param", "key", "", param="key", arg="jax.random.key(0)"),
    ValuePath("local-copy", "k", "", "k = key", param="key", arg="jax.random.key(0)"),
    ValuePath("split-unpack", "k1", "", "k1, k2 = jax.random.split(key)", param="key", arg="jax.random.key(0)"),
    ValuePath("split-index", "keys[0]", "", "keys = jax.random.split(key, 3)", param="key", arg="jax.random.key(0)"),
    ValuePath("dict-entry", 'd["k"]', "", 'd = {"k": key}', param="key", arg="jax.random.key(0)"),
    ValuePath("state-field", "s.key", "", param="s: KState", arg="KState(jax.random.key(0))", prelude="""
        class KState(NamedTuple):
            key: jax.Array
        """),
    ValuePath("helper-return", "k", "", "k = derive(key)", param="key", arg="jax.random.key(0)", prelude="""
        def derive(key):
            return jax.random.fold_in(key, 1)
        """),
    ValuePath("made-locally", "k", "", "k = jax.random.key(0)", param="x"),
]
DRAW_TWICE = Problem(
    "draw-twice", "JAX114",
    "a = jax.random.normal({v}, (3,))\nb = jax.random.uniform({v}, (3,))  # <-\njax.debug.print(\"{}\", a + b)",
    "k_a, k_b = jax.random.split({v})\na = jax.random.normal(k_a, (3,))\nb = jax.random.uniform(k_b, (3,))  # <-\n"
    "jax.debug.print(\"{}\", a + b)")

# Tests on static information in traced code, which must stay quiet (JAX105's documented
# exceptions, and the truth of containers that issue 19 names): VALID cells only.
STATIC_TESTS: list[ValuePath] = [
    ValuePath("dict-of-traced", "", "d", 'd = {"k": x}'),
    ValuePath("list-of-traced", "", "xs", "xs = [x]"),
    ValuePath("tuple-of-traced", "", "t", "t = (x, x)"),
    ValuePath("namedtuple-param", "", "s", param="s: State", arg="State(jnp.array(1), jnp.array(3))",
              prelude=STATE),
    ValuePath("dict-annotated-param", "", "state", param="state: dict", arg='{"k": jnp.array(1)}'),
    ValuePath("is-none", "", "x is None"),
    ValuePath("isinstance", "", "isinstance(x, jax.Array)"),
    ValuePath("shape-compare", "", "x.shape == ()"),
    ValuePath("dtype-compare", "", "x.dtype == jnp.int32"),
    ValuePath("ndim-and-size", "", "x.ndim == 0 and x.size == 1"),
    ValuePath("len-of-list", "", "len(xs) > 1", "xs = [x, x]"),
    ValuePath("dict-key", "", 'k == "k"', 'd = {"k": x}\nk = next(iter(d))'),
    ValuePath("compile-time-eval", "", "big", "with jax.ensure_compile_time_eval():\n    big = jnp.sum(HOST) > 0",
              prelude="HOST = np.ones(3)"),
]
STATIC_TEST = Problem("static-test", "JAX105", "", "if {s}:  # <-\n    pass")

# Two steps of a value's path in a row (a copy of a dict entry, a helper's result in a
# Box, ...): does each flow compose with the others? Each step takes an expression and a
# suffix for its names and gives lines and the expression of its result.
STEPS: dict[str, Callable[[str, str], tuple[list[str], str]]] = {
    "copy": lambda e, k: ([f"c{k} = {e}"], f"c{k}"),
    "tuple": lambda e, k: ([f"t{k}, u{k} = {e}, 2"], f"t{k}"),
    "list": lambda e, k: ([f"l{k} = [{e}, {e}]"], f"l{k}[0]"),
    "dict": lambda e, k: ([f'd{k} = {{"k": {e}}}'], f'd{k}["k"]'),
    "box": lambda e, k: ([f"b{k} = Box({e})"], f"b{k}.a"),
    "helper": lambda e, k: ([f"h{k} = double({e})"], f"h{k}"),
    "abs": lambda e, k: ([f"a{k} = abs({e})"], f"a{k}"),
    "comprehension": lambda e, k: ([f"q{k} = [{e} * m for m in (1, 2)]"], f"q{k}[0]"),
    "conditional": lambda e, k: ([f"w{k} = {e} + 1 if {e}.ndim > 1 else {e} - 1"], f"w{k}"),
    "method": lambda e, k: ([f"s{k} = ({e}).sum()"], f"s{k}"),
}
STEP_PRELUDE = """
    class Box:
        def __init__(self, a):
            self.a = a
            self.n = 3


    def double(a):
        return a * 2
    """


def composed_paths() -> list[ValuePath]:
    paths = []
    for first, one in STEPS.items():
        for second, two in STEPS.items():
            lines1, v1 = one("x", "1")
            lines2, v2 = two(v1, "2")
            paths.append(ValuePath(f"{first}+{second}", v2, f"{v2}.size", "\n".join(lines1 + lines2),
                                   prelude=STEP_PRELUDE))
    return paths


# ------------------------------------------------------------------ cells
@dataclass(frozen=True)
class Cell:
    family: str      # "traced" (the cube's planes), "capture", "loop", "key", "static-test", "composed"
    context: str
    path: str
    problem: str
    rule: str
    kind: str        # INVALID; VALID (the static twin); CONTROL (the INVALID form, untraced)
    text: str = field(compare=False, repr=False)
    call: str = field(compare=False, repr=False)  # an expression that runs the program's function

    @property
    def valid(self) -> bool:
        """Must stay quiet."""
        return self.kind != "INVALID"

    @property
    def id(self) -> str:
        return f"{self.family}:{self.context}:{self.path}:{self.problem}:{self.kind}"

    @property
    def stem(self) -> str:
        return re.sub(r"\W", "_", self.id.replace("-", "_").replace(":", "__"))

    @property
    def marked(self) -> list[int]:
        return [i for i, line in enumerate(self.text.splitlines(), 1) if line.rstrip().endswith("# <-")]


def _indent_into(template: str, marker: str, lines: list[str]) -> str:
    out = []
    for line in template.splitlines():
        if line.strip() == marker:
            pad = line[: len(line) - len(line.lstrip())]
            out.extend(pad + body_line if body_line else "" for body_line in lines)
        else:
            out.append(line)
    return "\n".join(out)


def float_arg(path: ValuePath) -> str:
    """The path's argument as floats, for the contexts that differentiate."""
    return f"jax.tree.map(lambda a: jnp.asarray(a, jnp.float32), {path.arg})"


def render(context: Context, path: ValuePath, problem_src: str, preludes: list[str]) -> str:
    problem_lines = problem_src.splitlines()
    path_lines = _d(path.lines).splitlines() if path.lines else []
    if any(line.strip() == "@PROBLEM" for line in path_lines):
        body = _indent_into("\n".join(path_lines), "@PROBLEM", problem_lines).splitlines()
    else:
        body = path_lines + problem_lines
    pname = path.param.split(":")[0].split(",")[0].strip()
    as_array = path.param if ":" in path.param else path.param.replace(pname, f"{pname}: jax.Array", 1)
    fn = (_d(context.template).replace("{param}", path.param).replace("{param_as_array}", as_array)
          .replace("{pname}", pname).replace("{arg}", path.arg).replace("{float_arg}", float_arg(path)))
    if context.expression_only:
        fn = fn.replace("@EXPR", problem_src)
    else:
        fn = _indent_into(fn, "@BODY", body)
    imports = HEADER + (context.imports + "\n" if context.imports else "")
    parts = [imports] + [_d(p) for p in preludes if p.strip()] + [fn]
    return "\n\n\n".join(part.rstrip("\n") for part in parts) + "\n"


def is_problem(context: Context, path: ValuePath, problem: Problem, needs_trace: bool) -> bool:
    if not needs_trace:
        return True
    if not context.traced:
        return False
    if context.eager == "grad" and problem.needs_concrete:
        return False
    return not (context.eager and path.name == "jnp-of-host-array")


def _cell(family: str, context: Context, path: ValuePath, problem: Problem, valid: bool,
          subst: Callable[[str], str] = lambda s: s, needs_trace: bool = True) -> Cell:
    if context.expression_only:
        src = problem.valid_expr if valid else problem.expr
    else:
        src = problem.valid if valid else problem.invalid
    src = src.replace("{v}", path.v).replace("{s}", path.s)
    text = subst(render(context, path, src, [path.prelude, problem.prelude]))
    # where the INVALID form is no problem (untraced code; a concrete value under an eager
    # transform), the program is a control that must stay quiet
    kind = "VALID" if valid else "INVALID" if is_problem(context, path, problem, needs_trace) else "CONTROL"
    call = (context.call.replace("{arg}", path.arg)
            .replace("{float_arg}", float_arg(path))
            .replace("{batch}", f"jax.tree.map(lambda a: a[None], {path.arg})"))
    return Cell(family, context.name, path.name, problem.name, problem.rule, kind, text, call)


def build_cells() -> list[Cell]:
    cells: list[Cell] = []
    param = TRACED_PATH["param"]
    for valid in (False, True):
        # plane 1: contexts x problems, through the parameter itself
        for context in CONTEXTS:
            for problem in TRACED_PROBLEMS:
                if (problem.expr or not context.expression_only) \
                        and not (problem.needs_int and context.differentiates) \
                        and not (problem.needs_self and not context.method):
                    cells.append(_cell("traced", context, param, problem, valid))
        # plane 2: paths x problems, under @jax.jit (the parameter itself is in plane 1)
        for path in [p for p in TRACED_PATHS[1:] if not p.needs_self]:
            for problem in [p for p in TRACED_PROBLEMS if not p.needs_self]:
                cells.append(_cell("traced", CONTEXT["jit-decorator"], path, problem, valid))
        # plane 3: contexts x paths, for `if v > 0:` (the cells of planes 1 and 2 left out)
        for context in [c for c in CONTEXTS[1:] if not c.expression_only]:
            for path in TRACED_PATHS[1:]:
                if context.method or not path.needs_self:
                    cells.append(_cell("traced", context, path, TRACED_PROBLEM["if"], valid))
        for context in [c for c in CONTEXTS if not c.expression_only]:
            for path in HOST_PATHS if not context.eager else []:
                shape = SMALL if valid else BIG
                cells.append(_cell("capture", context, path, CAPTURE, valid,
                                   lambda t, shape=shape: t.replace("@SHAPE", shape)))
            for path in COUNT_PATHS if not context.eager else []:
                n = "3" if valid else "1000"
                cells.append(_cell("loop", context, path, LOOP, valid,
                                   lambda t, n=n: t.replace("@N", n)))
            for path in KEY_PATHS:
                # key reuse is a problem in any function, traced or not
                cells.append(_cell("key", context, path, DRAW_TWICE, valid, needs_trace=False))
            for path in STATIC_TESTS if valid else []:
                cells.append(_cell("static-test", context, path, STATIC_TEST, valid))
        # two steps in a row, under @jax.jit, for `if v > 0:`
        for path in composed_paths():
            cells.append(_cell("composed", CONTEXT["jit-decorator"], path, TRACED_PROBLEM["if"], valid))
    seen: dict[str, Cell] = {}
    for c in cells:
        seen.setdefault(c.id, c)
    return list(seen.values())


CELLS = build_cells()
RULES = sorted({c.rule for c in CELLS})


# ------------------------------------------------------------------ running the CLI
Finding = tuple[str, int, str]  # code, line, confidence


def run_cli(cells: list[Cell]) -> dict[str, list[Finding]]:
    """Every finding of the matrix's rules, per cell, from one ``jaxlint check --preview``
    of a folder holding all cells."""
    with tempfile.TemporaryDirectory(prefix="jaxlint-matrix-") as tmp:
        root = Path(tmp)
        for c in cells:
            (root / f"{c.stem}.py").write_text(c.text)
        out = root / "out.json"
        cmd = [sys.executable, "-m", "jaxlint", "check", "--isolated", "--no-cache", "--preview",
               "--output-format", "json", "-o", str(out), "--exit-zero", "--select", ",".join(RULES), "."]
        env = {k: v for k, v in os.environ.items() if not k.startswith("JAXLINT_")}
        proc = subprocess.run(cmd, cwd=root, capture_output=True, text=True, env=env, timeout=600)
        assert proc.returncode == 0, proc.stderr[-2000:]
        findings = json.loads(out.read_text())
    by_stem: dict[str, list[Finding]] = {c.stem: [] for c in cells}
    for f in findings:
        by_stem[Path(f["filename"]).stem].append((f["code"], f["location"]["row"], f.get("confidence", "certain")))
    return {c.id: by_stem[c.stem] for c in cells}


def verdict(cell: Cell, findings: list[Finding]) -> str:
    """``ok``, or why the cell is not as expected: ``missed``, ``possible-only`` (found,
    but only under --preview), ``false-positive``."""
    mine = [(line, conf) for code, line, conf in findings if code == cell.rule]
    if cell.valid:
        return "false-positive" if mine else "ok"
    anywhere = cell.problem in {p.name for p in (*TRACED_PROBLEMS, CAPTURE, LOOP, DRAW_TWICE) if p.anywhere}
    on_mark = [conf for line, conf in mine if anywhere or line in cell.marked]
    if any(conf != "possible" for conf in on_mark) or (on_mark and CONTEXT[cell.context].possible_is_found):
        return "ok"
    return "possible-only" if on_mark else "missed"


# ------------------------------------------------------------------ gap classes
#: Each gap class: (reason, owner, predicate over cells). A cell matched by a class is an
#: expected failure (strict xfail). The first matching class names it. Owner: "model"
#: (the value model does not know the value is traced / a host array / a key: model40),
#: "scope" (the model knows, the rule does not look: scope40).
Gap = tuple[str, str, Callable[[Cell], bool]]
_SHAPES = ("zeros-shape", "arange")
_PYTREE_FIELDS = ("namedtuple-field", "dataclass-field", "pytree-class-field", "flax-struct-field",
                  "register-dataclass-meta-fields")
#: contexts whose parameters the model does not take for traced values today
_PARAMS_NOT_TRACED = ("grad-only", "eqx-filter-jit", "untraced")
GAPS: list[Gap] = [
    # --- how the function is traced
    ("eqx.filter_jit: its parameters are not traced values, not even possibly (jnp results inside are; "
     "annotated x: jax.Array they are, and a parameter annotated with a pytree class of the module has its "
     "array-annotated leaves traced since lib50)", "model",
     lambda c: c.context == "eqx-filter-jit" and c.family == "traced" and not c.valid
     and c.path not in ("jnp-of-host-array", "pytree-method", "eqx-module-field") + _PYTREE_FIELDS
     or c.context == "eqx-filter-jit" and c.kind == "INVALID" and c.path == "pytree-class-field"),
    # --- how the value reaches the problem
    ("eqx.filter_jit: a child of a register_pytree_node_class parameter is not traced (its fields carry no "
     "annotation, and filter_jit traces array leaves only; NamedTuple, dataclass and eqx.Module fields "
     "annotated as arrays are, since lib50)", "model",
     lambda c: c.family == "traced" and c.path == "pytree-class-field" and c.kind == "INVALID"
     and c.context == "eqx-filter-jit-array-param" and c.problem not in ("print",) + _SHAPES),
    ("a field of an unannotated parameter of a helper, a method, a @jax.vmap or a @jax.custom_jvp function "
     "called from jitted code: only possible "
     "(likely when the function itself is jitted)", "model",
     lambda c: c.family == "traced" and c.path == "namedtuple-field-unannotated" and c.kind == "INVALID"
     and c.context in ("helper-of-jit", "method-via-self", "vmap-decorator-in-jit", "custom-jvp-in-jit")),
    # --- VALID twins reported (false positives)
    ("JAX106 reports print of a constant field of an instance made in traced code (Box(x).n = 3), which the "
     "model knows static since model40's instance fields", "scope",
     lambda c: c.family == "traced" and c.path == "object-made-in-trace" and c.kind == "VALID"
     and c.problem == "print" and c.context not in _PARAMS_NOT_TRACED),
]


def gap_of(cell: Cell) -> Gap | None:
    for gap in GAPS:
        if gap[2](cell):
            return gap
    return None


def _param(cell: Cell) -> pytest.ParameterSet:
    gap = gap_of(cell)
    marks = () if gap is None else pytest.mark.xfail(strict=True, reason=f"{gap[0]} ({gap[1]})")
    return pytest.param(cell, id=cell.id, marks=marks)


@pytest.fixture(scope="module")
def measured() -> dict[str, list[Finding]]:
    return run_cli(CELLS)


def test_the_matrix_is_large_and_readable():
    assert len(CELLS) >= 300
    assert len({c.id for c in CELLS}) == len(CELLS)
    assert len({c.stem for c in CELLS}) == len(CELLS)
    for c in CELLS:
        compile(c.text, c.id, "exec")
        assert c.marked, c.id
        assert "@" + "BODY" not in c.text and "@PROBLEM" not in c.text and "@SHAPE" not in c.text, c.id
    # every class still matches a cell (a class whose cells were all fixed is removed)
    for reason, _owner, pred in GAPS:
        assert any(pred(c) for c in CELLS), reason


@pytest.mark.parametrize("cell", [_param(c) for c in CELLS])
def test_cell(cell: Cell, measured: dict[str, list[Finding]]):
    findings = measured[cell.id]
    assert verdict(cell, findings) == "ok", (
        f"{cell.id}: {verdict(cell, findings)}; {cell.rule} should "
        f"{'stay quiet' if cell.valid else f'report line {cell.marked}'}; "
        f"findings (code, line, confidence): {findings}\n\n{numbered(cell.text)}")


#: Runs cells under real jax in one process: reads ``[(id, text, call)]`` as JSON on stdin,
#: prints ``{id: signal}``. A signal says how the problem showed: ``raised: ...`` (a jax
#: error, or one about a tracer), ``leaked: G`` (a tracer stored outside the trace),
#: ``printed-tracer``; ``clean`` when none did; ``broken: ...`` when the program fails for a
#: reason of its own (a mistake in the matrix).
_UNDER_JAX = """
import contextlib, io, json, sys, warnings
warnings.simplefilter("ignore")
import jax
jax.config.update("jax_platforms", "cpu")
from jax.core import Tracer
out = {}
for cid, text, call, abstract in json.load(sys.stdin):
    scope = {"__name__": "cell"}
    printed = io.StringIO()
    try:
        with contextlib.redirect_stdout(printed):
            exec(compile(text, cid, "exec"), scope)
            if abstract:
                jax.eval_shape(lambda: eval(call, scope))
            else:
                jax.block_until_ready(eval(call, scope))
    except Exception as e:
        about_tracing = type(e).__module__.startswith("jax") or "Tracer" in str(e)
        out[cid] = ("raised: " if about_tracing else "broken: ") + type(e).__name__ + ": " + str(e)[:200]
        continue
    stored = [scope.get("G"), getattr(scope.get("STORE"), "last", None),
              getattr(scope.get("obj"), "cache", None), getattr(scope.get("model"), "cache", None)]
    if any(isinstance(v, Tracer) for v in stored):
        out[cid] = "leaked"
    elif "Tracer" in printed.getvalue():
        out[cid] = "printed-tracer"
    else:
        out[cid] = "clean"
json.dump(out, sys.stdout)
"""


def run_under_jax(cells: list[Cell], abstract: bool = False) -> dict[str, str]:
    """``abstract``: evaluate each call under ``jax.eval_shape``, which traces it all
    (arguments made in the call included) and compiles nothing: a program that runs clean
    so runs clean when called."""
    cases = [(c.id, c.text, c.call, abstract) for c in cells]
    proc = subprocess.run([sys.executable, "-c", _UNDER_JAX], input=json.dumps(cases),
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout)


#: The cells checked under jax: the two planes of the cube that cross every problem
#: (contexts x problems, paths x problems) and the static tests, each kind in its own
#: test so that xdist can spread them. The capture, loop and key families are about cost
#: and silent results, which nothing raises.
JAX_CHECKED = [c for c in CELLS if c.family == "traced" and (c.path == "param" or c.context == "jit-decorator")
               or c.family in ("static-test", "composed")]


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["INVALID", "VALID", "CONTROL"])
def test_cells_are_true_under_jax(kind: str):
    """Every INVALID cell fails (or leaks, or prints a tracer) under real jax, and every
    VALID twin and CONTROL runs cleanly: the matrix asks the linter for the truth."""
    pytest.importorskip("jax")
    pytest.importorskip("equinox")
    pytest.importorskip("flax")
    cells = [c for c in JAX_CHECKED if c.kind == kind]
    assert len(cells) >= 10
    # a VALID twin must run clean even with every value abstract (and compiling them all
    # would take most of the time)
    signals = run_under_jax(cells, abstract=kind == "VALID")
    wrong = {c.id: signals[c.id] for c in cells
             if signals[c.id].startswith("broken") or (signals[c.id] == "clean") != c.valid}
    assert not wrong, "\n".join(f"{cid}: {sig}" for cid, sig in wrong.items())


def numbered(text: str) -> str:
    return "\n".join(f"{i:3} {line}" for i, line in enumerate(text.splitlines(), 1))


def report(verbose: bool) -> None:
    import time
    t0 = time.perf_counter()
    results = run_cli(CELLS)
    took = time.perf_counter() - t0
    bad: dict[str, list[Cell]] = {}
    for c in CELLS:
        v = verdict(c, results[c.id])
        if v != "ok":
            gap = gap_of(c)
            key = f"{v} | {gap[0] if gap else '(no class)'}"
            bad.setdefault(key, []).append(c)
    n_invalid = sum(not c.valid for c in CELLS)
    count = {v: sum(len(cells) for k, cells in bad.items() if k.startswith(v))
             for v in ("missed", "possible-only", "false-positive")}
    print(f"{len(CELLS)} cells ({n_invalid} INVALID, {len(CELLS) - n_invalid} VALID or CONTROL), one CLI run "
          f"of {took:.1f} s: {n_invalid - count['missed'] - count['possible-only']} found, {count['missed']} "
          f"missed, {count['possible-only']} found only as possible, {count['false-positive']} false positives")
    for key, cells in sorted(bad.items(), key=lambda kv: -len(kv[1])):
        print(f"{len(cells):5}  {key}")
        if verbose:
            for c in cells:
                print(f"         {c.id}  {[f for f in results[c.id] if f[0] == c.rule]}")
            print(textwrap.indent(numbered(cells[0].text), "         | "))


if __name__ == "__main__":
    report("-v" in sys.argv)
