"""``jaxlint.records.dataclass`` behaves as ``dataclasses.dataclass`` and compiles nothing.

Each class below is made twice from the same body, by the standard library's decorator
and by jaxlint's, and the two are compared on what a caller sees; then every class of
jaxlint made by ``jaxlint.records`` is compared with a standard twin of the same fields;
then a real one-file check is watched for compiled code (``sys.addaudithook``).
"""
from __future__ import annotations

import copy
import dataclasses
import importlib
import inspect
import json
import os
import pickle
import subprocess
import sys
from dataclasses import field
from pathlib import Path
from typing import Any, Callable, ClassVar

import pytest

from jaxlint import records

STD = dataclasses.dataclass
OURS = records.dataclass


def _plain(dec: Callable) -> type:
    @dec
    class Point:
        """Two numbers."""

        x: int
        y: int = 0

    return Point


def _frozen_order(dec: Callable) -> type:
    @dec(frozen=True, order=True)
    class Position:
        line: int
        column: int

    return Position


def _factories(dec: Callable) -> type:
    @dec
    class Holder:
        name: str
        items: list = field(default_factory=list)
        table: dict = field(default_factory=dict, repr=False)
        hidden: int = field(default=3, init=False)
        late: list = field(default_factory=list, init=False, compare=False)
        tag: ClassVar[str] = "class variable, not a field"

    return Holder


def _frozen_post_init(dec: Callable) -> type:
    @dec(frozen=True)
    class Checked:
        code: str
        weight: float = 1.0
        extra: tuple = field(default=(), hash=False)
        note: str = field(default="", compare=False)

        def __post_init__(self) -> None:
            if not self.code:
                raise ValueError("a code")
            object.__setattr__(self, "weight", float(self.weight))

    return Checked


def _no_eq(dec: Callable) -> type:
    @dec(eq=False)
    class Node:
        value: Any

    return Node


def _unsafe_hash(dec: Callable) -> type:
    @dec(unsafe_hash=True)
    class Key:
        a: int
        b: str = field(default="", hash=False)

    return Key


def _own_methods(dec: Callable) -> type:
    @dec(frozen=True)
    class Own:
        a: int

        def __repr__(self) -> str:
            return "own"

        def __eq__(self, other: object) -> bool:
            return isinstance(other, Own)

        __hash__ = object.__hash__

    return Own


def _empty(dec: Callable) -> type:
    @dec(frozen=True)
    class Empty:
        pass

    return Empty


CASES = {
    _plain: [((1,), {}), ((1, 2), {}), ((), {"x": 1, "y": 2}), ((1,), {"y": 5}), ((), {"y": 2, "x": 1}),
             ((), {}), ((1, 2, 3), {}), ((1,), {"x": 2}), ((1,), {"z": 2})],
    _frozen_order: [((1, 2), {}), ((2, 1), {}), ((1,), {"column": 3}), ((1,), {})],
    _factories: [(("a",), {}), (("a", [1]), {"table": {"k": 1}}), ((), {"name": "b"}), (("a",), {"hidden": 4}),
                 (("a", [1], {}, 9), {})],
    _frozen_post_init: [(("x",), {}), (("x", 2), {}), (("x", 2, (1,), "n"), {}), (("",), {}),
                        ((), {"code": "y", "note": "z"})],
    _no_eq: [((1,), {}), (([1],), {})],
    _unsafe_hash: [((1,), {}), ((1, "b"), {}), ((2,), {"b": "c"})],
    _own_methods: [((1,), {}), ((2,), {})],
    _empty: [((), {}), ((1,), {})],
}


def _outcome(make: Callable[[], Any]) -> tuple[str, Any]:
    try:
        return "ok", make()
    except Exception as e:  # noqa: BLE001 - the two must fail alike
        return "raised", type(e)


def _seen(obj: Any) -> dict:
    """What a caller sees of an instance: its fields' values, repr, hashability."""
    values = {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}
    try:
        hashed: Any = "by identity" if type(obj).__hash__ is object.__hash__ else hash(obj)
    except TypeError:
        hashed = "unhashable"
    return {"values": values, "repr": repr(obj), "hash": hashed}


def _same_class_shape(a: type, b: type) -> None:
    assert [(f.name, f.type, f.default, f.default_factory, f.init, f.repr, f.compare, f.hash)
            for f in dataclasses.fields(a)] == [(f.name, f.type, f.default, f.default_factory, f.init, f.repr,
                                                 f.compare, f.hash) for f in dataclasses.fields(b)]
    for flag in ("init", "repr", "eq", "order", "unsafe_hash", "frozen"):
        assert getattr(a.__dataclass_params__, flag) == getattr(b.__dataclass_params__, flag), flag
    assert a.__match_args__ == b.__match_args__
    assert (a.__hash__ is None) == (b.__hash__ is None)
    for method in ("__init__", "__repr__", "__eq__", "__hash__", "__lt__", "__setattr__", "__delattr__"):
        assert (method in vars(a)) == (method in vars(b)), method


@pytest.mark.parametrize("body", list(CASES), ids=lambda b: b.__name__.strip("_"))
def test_a_class_behaves_as_the_standard_librarys(body):
    std, ours = body(STD), body(OURS)
    _same_class_shape(std, ours)
    calls = CASES[body]
    made = []
    for args, kwargs in calls:
        a, b = _outcome(lambda: std(*args, **kwargs)), _outcome(lambda: ours(*args, **kwargs))
        assert a[0] == b[0], (args, kwargs, a, b)
        if a[0] == "raised":
            assert a[1] is b[1], (args, kwargs)
            continue
        assert _seen(a[1]) == _seen(b[1]), (args, kwargs)
        made.append((a[1], b[1]))
    assert made, "no call succeeded"
    for (a1, b1) in made:
        for (a2, b2) in made:
            assert (a1 == a2) == (b1 == b2)
            assert (a1 != a2) == (b1 != b2)
            if std.__dataclass_params__.order:
                assert [a1 < a2, a1 <= a2, a1 > a2, a1 >= a2] == [b1 < b2, b1 <= b2, b1 > b2, b1 >= b2]
        assert (a1 == "other") == (b1 == "other")
        # frozen: assignment and deletion raise; otherwise they work
        for change in (lambda o: setattr(o, dataclasses.fields(o)[0].name if dataclasses.fields(o) else "z", 9),
                       lambda o: setattr(o, "not_a_field", 1),
                       lambda o: delattr(o, dataclasses.fields(o)[0].name if dataclasses.fields(o) else "z")):
            ra, rb = _outcome(lambda: change(copy.copy(a1))), _outcome(lambda: change(copy.copy(b1)))
            assert ra == rb if ra[0] == "raised" else rb[0] == "ok"
        # the standard library's functions read the fields
        assert dataclasses.asdict(a1) == dataclasses.asdict(b1)
        assert dataclasses.astuple(a1) == dataclasses.astuple(b1)
        inits = [f.name for f in dataclasses.fields(b1) if f.init]
        if inits:
            assert _seen(dataclasses.replace(a1, **{inits[0]: getattr(a1, inits[0])})) == \
                _seen(dataclasses.replace(b1, **{inits[0]: getattr(b1, inits[0])}))


def test_recursion_in_repr_is_shown_as_dots_as_the_standard_library_does():
    std, ours = _no_eq(STD), _no_eq(OURS)
    a, b = std(None), ours(None)
    a.value, b.value = [a], [b]
    assert repr(b).endswith(".Node(value=[...])")
    assert repr(a) == repr(b)


def test_what_it_does_not_take_is_refused_at_class_creation():
    @STD
    class Base:
        a: int

    with pytest.raises(TypeError, match="no dataclass base"):
        @OURS
        class Child(Base):
            b: int

    with pytest.raises(TypeError, match="kw_only"):
        @OURS
        class KeywordOnly:
            a: int = field(kw_only=True)

    with pytest.raises(TypeError, match="__setattr__"):
        @OURS
        class SetsItself:
            a: int

            def __setattr__(self, name: str, value: Any) -> None:
                object.__setattr__(self, name, value)

    with pytest.raises(TypeError, match="non-default argument 'b' follows default argument"):
        @OURS
        class RequiredAfterDefault:
            a: int = 0
            b: int

    with pytest.raises(ValueError, match="mutable default"):  # the standard library's own checks still run
        @OURS
        class MutableDefault:
            a: list = []  # noqa: RUF012


def _records_classes() -> list[type]:
    """Every class made by jaxlint.records among the modules a static check loads."""
    for name in ("jaxlint.pipeline", "jaxlint.static.runner", "jaxlint.rules", "jaxlint.output.context",
                 "jaxlint.files.discovery", "jaxlint.findings.noqa", "jaxlint.findings.result"):
        importlib.import_module(name)
    found = {}
    for name, module in list(sys.modules.items()):
        if not name.startswith("jaxlint."):
            continue
        for value in list(vars(module).values()):
            # a class the decorator made (its __init__, or its __repr__ where the class writes
            # its __init__ out: WRITTEN_OUT), not a subclass inheriting them (jax315's
            # ChipMemory(Option) is found once jaxlint.rules.hlo is loaded)
            if (isinstance(value, type) and "__dataclass_params__" in vars(value)
                    and any(getattr(getattr(vars(value).get(m), "__code__", None), "co_filename", "")
                            == records.__file__ for m in ("__init__", "__repr__"))):
                found[f"{value.__module__}.{value.__qualname__}"] = value
    return [found[k] for k in sorted(found)]


RECORDS = _records_classes()


def test_the_static_path_uses_records():
    names = {f"{c.__module__}.{c.__qualname__}" for c in RECORDS}
    assert {"jaxlint.diagnostic.Diagnostic", "jaxlint.diagnostic.Position", "jaxlint.config.Settings",
            "jaxlint.static.checker.StaticContext", "jaxlint.rule.Invalid"} <= names


def _twin(cls: type) -> type:
    """The standard library's class of ``cls``'s fields and parameters."""
    params = cls.__dataclass_params__  # type: ignore[attr-defined]
    ns: dict[str, Any] = {"__annotations__": {}, "__module__": cls.__module__, "__qualname__": cls.__qualname__}
    for f in dataclasses.fields(cls):
        ns["__annotations__"][f.name] = f.type
        ns[f.name] = field(default=f.default, default_factory=f.default_factory, init=f.init, repr=f.repr,
                           compare=f.compare, hash=f.hash, metadata=f.metadata)
    if "__post_init__" in vars(cls):
        ns["__post_init__"] = vars(cls)["__post_init__"]
    return STD(eq=params.eq, order=params.order, frozen=params.frozen,
               unsafe_hash=params.unsafe_hash)(type(cls.__name__, (), ns))


@pytest.mark.parametrize("cls", RECORDS, ids=lambda c: f"{c.__module__}.{c.__qualname__}")
def test_each_of_jaxlints_records_matches_a_standard_twin(cls):
    twin = _twin(cls)
    _same_class_shape(twin, cls)
    required = [f.name for f in dataclasses.fields(cls)
                if f.init and f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING]
    for values in ([f"v{i}" for i in range(len(required))], list(range(len(required)))):
        a = _outcome(lambda: twin(*values))
        b = _outcome(lambda: cls(*values))
        assert a[0] == b[0], (a, b)
        if a[0] == "ok":
            assert _seen(a[1]) == _seen(b[1])
            assert (a[1] == a[1]) is (b[1] == b[1]) is True
            again = pickle.loads(pickle.dumps(b[1]))  # as results travel from worker processes
            assert type(again) is cls and _seen(again)["values"] == _seen(b[1])["values"]
        else:
            assert a[1] is b[1]


#: the classes whose methods a real check compiles, read from the interpreter's audit events
PROBE = r"""
import json, sys
compiled, sources = set(), []

def hook(event, args):
    if event != "compile":
        return
    sources.append(str(args[1]))
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_name != "_process_class":  # dataclasses'
        frame = frame.f_back
    if frame is not None:
        cls = frame.f_locals["cls"]
        compiled.add(f"{cls.__module__}.{cls.__qualname__}")

sys.addaudithook(hook)
import jaxlint.cli
rc = jaxlint.cli.main(["check", "--no-cache", "--isolated", sys.argv[2]])
with open(sys.argv[1], "w") as f:
    json.dump({"rc": rc, "compiled": sorted(compiled), "sources": sources}, f)
"""

#: made for each node of the checked code, where jaxlint.records' generic ``__init__`` is
#: several times slower than the one the standard library compiles: the class writes its
#: ``__init__`` out (``records.FACTORY`` for a field's factory), jaxlint.records the rest
#: (docs/performance.md, perf36 and speed58)
WRITTEN_OUT = ["jaxlint.static.data.Param", "jaxlint.static.data.Binding", "jaxlint.static.data.FunctionInfo",
               "jaxlint.static.cfg.Block"]


@pytest.mark.parametrize("name", WRITTEN_OUT)
def test_a_written_out_init_takes_what_the_standard_librarys_takes(name):
    module, _, qualname = name.rpartition(".")
    cls = getattr(importlib.import_module(module), qualname)
    assert cls in RECORDS and vars(cls)["__init__"].__code__.co_filename != records.__file__
    twin = _twin(cls)
    taken = [f for f in dataclasses.fields(cls) if f.init]
    required = [f.name for f in taken
                if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING]
    # the same parameters, in the same order and of the same kinds (defaults aside: the
    # standard library's marks a factory with a sentinel of its own, as FACTORY does here)
    theirs, ours = (inspect.signature(c.__init__).parameters for c in (twin, cls))
    assert [(p.name, p.kind) for p in theirs.values()] == [(p.name, p.kind) for p in ours.values()]
    given = {f.name: f"v{i}" for i, f in enumerate(taken)}
    names = list(given)
    calls: list[tuple[tuple, dict]] = [
        (tuple(given[n] for n in required), {}),  # the defaults and factories
        (tuple(given.values()), {}),  # every field by position
        ((), dict(reversed(list(given.items())))),  # every field by keyword, in another order
        ((), {n: given[n] for n in required}),
        ((given[names[0]],), {n: given[n] for n in names[1:]}),
        ((), {}),  # failures: a required argument missing (Block has none: it succeeds)
        ((*given.values(), "extra"), {}),  # one too many
        ((), {**given, "not_a_field": 1}),  # an unknown keyword
        ((given[names[0]],), {names[0]: given[names[0]]}),  # one argument twice
    ]
    for args, kwargs in calls:
        a = _outcome(lambda: twin(*args, **kwargs))
        b = _outcome(lambda: cls(*args, **kwargs))
        assert a[0] == b[0], (args, kwargs, a, b)
        if a[0] == "raised":
            assert a[1] is b[1] is TypeError
            continue
        assert _seen(a[1]) == _seen(b[1])
        # a factory makes a new value for each instance, never one shared
        other = cls(*args, **kwargs)
        for f in taken:
            if f.default_factory is not dataclasses.MISSING and f.name not in kwargs and \
                    names.index(f.name) >= len(args):
                assert getattr(b[1], f.name) == f.default_factory()
                assert getattr(b[1], f.name) is not getattr(other, f.name)


def test_a_check_of_one_file_compiles_no_dataclass_method_at_start_up(tmp_path):
    checked = tmp_path / "model.py"
    checked.write_text("import jax\nimport numpy as np\n\nW = np.zeros((4096, 4096))\n\n\n@jax.jit\n"
                       "def f(x):\n    return x @ W\n")
    out = tmp_path / "compiled.json"
    env = {**os.environ, "PYTHONPATH": str(Path(records.__file__).parents[2])}  # this jaxlint
    proc = subprocess.run([sys.executable, "-c", PROBE, str(out), checked.name], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    probe = json.loads(out.read_text())
    assert probe["rc"] == 1  # JAX101's finding: the file was checked
    assert checked.name in probe["sources"]  # the file itself is parsed, and seen here
    # before jaxlint.records: 40 classes, 203 methods (a third of the check's instructions);
    # before speed58, the four of WRITTEN_OUT
    assert not probe["compiled"], (f"{probe['compiled']}: dataclasses.dataclass compiles these classes' methods "
                                   "when a check starts; use jaxlint.records.dataclass (for a class made per "
                                   "node of the checked code, with its __init__ written out: WRITTEN_OUT)")
