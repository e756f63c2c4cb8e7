"""``dataclass`` for jaxlint's own classes: the standard library's semantics, without
compiling code when the class is created.

``dataclasses.dataclass`` writes the source of each method it adds (``__init__``,
``__repr__``, ``__eq__``, the order methods, ``__hash__``, a frozen class's
``__setattr__`` and ``__delattr__``) and compiles it with ``exec``: about 0.5 M
instructions a method on CPython 3.11, so the ~200 methods of the ~40 classes a check of
one file creates were about a third of the instructions of ``jaxlint check FILE``
(docs/performance.md, perf36). Here the standard library reads the fields (``field()``,
defaults, ``ClassVar``, ``__dataclass_fields__``, ``__match_args__``, so ``fields``,
``replace``, ``asdict`` and ``is_dataclass`` work as ever) and adds no method; the
methods are closures over the fields, made without compiling.

What a decorated class gets is what ``dataclasses.dataclass`` with the same arguments
gives it: the same ``__init__`` (positional and keyword arguments, defaults, default
factories, ``init=False`` fields, ``__post_init__``), ``__repr__`` (``repr=False``
fields left out, recursion shown as ``...``), ``__eq__`` and the order methods over the
``compare`` fields as tuples, ``__hash__`` by the standard library's table (frozen and
``eq``, ``unsafe_hash``, a hash the class defines itself), frozen assignment and
deletion raising ``dataclasses.FrozenInstanceError``, and ``__dataclass_params__``.
``tests/test_records.py`` checks each against the standard library's, and every class
of jaxlint that uses this against a standard twin. Two differences, both for
introspection: ``inspect.signature`` of ``__init__`` reads ``(*args, **kwargs)``, and a
class without a docstring gets its name as one (the standard library writes the
signature there, which costs ``inspect``'s work). Not supported (a ``TypeError`` at
class creation; use ``dataclasses.dataclass``): dataclass bases, ``InitVar``,
``kw_only``, ``slots``, a field that is a property or another data descriptor, and a
``__setattr__`` of the class's own on a class that is not frozen.
"""
from __future__ import annotations

import dataclasses
import sys
from _thread import get_ident
from operator import attrgetter, eq as _eq, ge as _ge, gt as _gt, le as _le, lt as _lt
from typing import TYPE_CHECKING, Any, Callable, TypeVar, overload

if TYPE_CHECKING or sys.version_info >= (3, 11):
    from typing import dataclass_transform
else:  # Python 3.10: the marker is for type checkers only
    def dataclass_transform(**_: object) -> Callable[[Any], Any]:
        return lambda f: f

__all__ = ["FACTORY", "dataclass"]

_T = TypeVar("_T", bound=type)

#: an argument ``__init__`` was not given (no caller can pass this object)
_ABSENT = object()

#: the default, in an ``__init__`` a class writes out itself (kept, as the standard library
#: keeps it), of a field that has a ``default_factory``: an argument not given gets a new
#: value from the factory (``self.xs = [] if xs is FACTORY else xs``), as in the
#: ``__init__`` the standard library writes. For a class made for each node of the checked
#: code, where this module's generic ``__init__`` is several times slower.
FACTORY: Any = object()


@overload
def dataclass(cls: _T, /) -> _T: ...


@overload
def dataclass(*, eq: bool = True, order: bool = False, frozen: bool = False,
              unsafe_hash: bool = False) -> Callable[[_T], _T]: ...


@dataclass_transform(field_specifiers=(dataclasses.field, dataclasses.Field))
def dataclass(cls: Any = None, /, *, eq: bool = True, order: bool = False, frozen: bool = False,
              unsafe_hash: bool = False) -> Any:
    """``dataclasses.dataclass`` (with ``init`` and ``repr``), without compiling code."""
    def wrap(c: _T) -> _T:
        return _process(c, eq=eq, order=order, frozen=frozen, unsafe_hash=unsafe_hash)

    return wrap if cls is None else wrap(cls)


def _process(cls: _T, *, eq: bool, order: bool, frozen: bool, unsafe_hash: bool) -> _T:
    name = cls.__qualname__
    if order and not eq:
        raise ValueError("eq must be true if order is true")
    if any(dataclasses.is_dataclass(b) for b in cls.__mro__[1:]):
        raise TypeError(f"{name}: jaxlint.records.dataclass takes no dataclass base; use dataclasses.dataclass")
    own = cls.__dict__
    class_hash = own.get("__hash__", dataclasses.MISSING)
    explicit_hash = not (class_hash is dataclasses.MISSING or (class_hash is None and "__eq__" in own))
    if not cls.__doc__:  # the standard library would read the signature for one (inspect)
        cls.__doc__ = name
    # the fields, their defaults as class attributes, __match_args__; no method
    dataclasses.dataclass(cls, init=False, repr=False, eq=False, order=False, unsafe_hash=False, frozen=False)
    params = cls.__dataclass_params__  # type: ignore[attr-defined]
    for flag, value in (("init", True), ("repr", True), ("eq", eq), ("order", order),
                        ("unsafe_hash", unsafe_hash), ("frozen", frozen)):
        setattr(params, flag, value)
    fields = dataclasses.fields(cls)
    pseudo = [f for f in cls.__dataclass_fields__.values() if f not in fields]  # type: ignore[attr-defined]
    if any("InitVar" in str(f.type) for f in pseudo) or any(f.kw_only is True for f in fields):
        raise TypeError(f"{name}: jaxlint.records.dataclass takes no InitVar nor kw_only field")
    for f in fields:
        if hasattr(type(getattr(cls, f.name, None)), "__set__"):
            raise TypeError(f"{name}.{f.name}: a data descriptor; use dataclasses.dataclass")
    if not frozen and cls.__setattr__ is not object.__setattr__:
        raise TypeError(f"{name} sets its own attributes (__setattr__); use dataclasses.dataclass")

    if "__init__" not in own:
        _set(cls, "__init__", _init(cls, fields, frozen))
    if "__repr__" not in own:
        _set(cls, "__repr__", _repr([f.name for f in fields if f.repr]))
    key = _key([f.name for f in fields if f.compare])
    if eq and "__eq__" not in own:
        _set(cls, "__eq__", _compare(key, _eq))
    if order:
        for op, test in (("__lt__", _lt), ("__le__", _le), ("__gt__", _gt), ("__ge__", _ge)):
            if op in own:
                raise TypeError(f"Cannot overwrite attribute {op} in class {cls.__name__}. "
                                "Consider using functools.total_ordering")
            _set(cls, op, _compare(key, test))
    if frozen:
        names = frozenset(f.name for f in fields)
        for op in ("__setattr__", "__delattr__"):
            if op in own:
                raise TypeError(f"Cannot overwrite attribute {op} in class {cls.__name__}")
            _set(cls, op, _frozen(cls, op, names))
    if explicit_hash and unsafe_hash:
        raise TypeError(f"Cannot overwrite attribute __hash__ in class {cls.__name__}")
    if unsafe_hash or (eq and frozen and not explicit_hash):
        hashed = _key([f.name for f in fields if (f.compare if f.hash is None else f.hash)])
        _set(cls, "__hash__", lambda self: hash(hashed(self)))
    elif eq and not frozen and not explicit_hash:
        cls.__hash__ = None  # type: ignore[assignment]  # unhashable, as the standard library makes it
    return cls


def _set(cls: type, method: str, fn: Callable[..., Any]) -> None:
    fn.__name__ = method
    fn.__qualname__ = f"{cls.__qualname__}.{method}"
    fn.__module__ = cls.__module__
    setattr(cls, method, fn)


def _init(cls: type, fields: tuple[dataclasses.Field, ...], frozen: bool) -> Callable[..., None]:
    taken = [f for f in fields if f.init]
    names = tuple(f.name for f in taken)
    n = len(names)
    index = {name: i for i, name in enumerate(names)}

    def fill(f: dataclasses.Field) -> tuple[bool, Any] | None:
        """(a factory?, the default or its factory), None for a required argument."""
        if f.default_factory is not dataclasses.MISSING:
            return True, f.default_factory
        return None if f.default is dataclasses.MISSING else (False, f.default)

    fills = tuple(fill(f) for f in taken)
    for before, (f, x) in zip((None, *fills), zip(taken, fills)):
        if x is None and before is not None:  # as the standard library's __init__ checks
            raise TypeError(f"non-default argument {f.name!r} follows default argument")
    required = sum(1 for x in fills if x is None)  # a prefix (checked above)
    rest = tuple((f.name, fill(f)) for f in fields if not f.init and fill(f) is not None)
    post_init = hasattr(cls, "__post_init__")
    # as the standard library's: a frozen class's fields are set past its __setattr__
    put = object.__setattr__ if frozen else setattr
    qualname = f"{cls.__qualname__}.__init__"

    def bind(args: tuple, kwargs: dict[str, Any]) -> list[Any]:
        if len(args) > n:
            raise TypeError(f"{qualname}() takes {n + 1} positional arguments but {len(args) + 1} were given")
        values = [*args, *[_ABSENT] * (n - len(args))]
        for key, value in kwargs.items():
            i = index.get(key)
            if i is None:
                raise TypeError(f"{qualname}() got an unexpected keyword argument {key!r}")
            if values[i] is not _ABSENT:
                raise TypeError(f"{qualname}() got multiple values for argument {key!r}")
            values[i] = value
        missing = [names[i] for i, v in enumerate(values) if v is _ABSENT and fills[i] is None]
        if missing:
            raise TypeError(f"{qualname}() missing {len(missing)} required argument"
                            f"{'s' if len(missing) > 1 else ''}: {', '.join(map(repr, missing))}")
        for i, v in enumerate(values):
            if v is _ABSENT:
                factory, default = fills[i]  # type: ignore[misc]
                values[i] = default() if factory else default
        return values

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        given = len(args)
        if kwargs or not required <= given <= n:
            args = bind(args, kwargs)  # type: ignore[assignment]
        elif given < n:
            args += tuple(default() if factory else default for factory, default in fills[given:])  # type: ignore[misc]
        for name, value in zip(names, args):
            put(self, name, value)
        for name, (factory, default) in rest:  # type: ignore[misc]
            put(self, name, default() if factory else default)
        if post_init:
            self.__post_init__()

    return __init__


def _repr(names: list[str]) -> Callable[[Any], str]:
    running: set[tuple[int, int]] = set()

    def __repr__(self: Any) -> str:
        key = id(self), get_ident()
        if key in running:
            return "..."
        running.add(key)
        try:
            return f"{type(self).__qualname__}({', '.join(f'{n}={getattr(self, n)!r}' for n in names)})"
        finally:
            running.discard(key)

    return __repr__


def _key(names: list[str]) -> Callable[[Any], tuple]:
    """The tuple of these fields' values (the standard library compares and hashes tuples)."""
    if len(names) > 1:
        return attrgetter(*names)
    if names:
        get = attrgetter(names[0])
        return lambda self: (get(self),)
    return lambda self: ()


def _compare(key: Callable[[Any], tuple], test: Callable[[tuple, tuple], Any]) -> Callable[[Any, Any], Any]:
    def compare(self: Any, other: Any) -> Any:
        if other.__class__ is self.__class__:
            return test(key(self), key(other))
        return NotImplemented

    return compare


def _frozen(cls: type, op: str, names: frozenset[str]) -> Callable[..., None]:
    verb = "assign to" if op == "__setattr__" else "delete"

    def frozen(self: Any, name: str, *value: Any) -> None:
        if type(self) is cls or name in names:
            raise dataclasses.FrozenInstanceError(f"cannot {verb} field {name!r}")
        getattr(super(cls, self), op)(name, *value)

    return frozen
