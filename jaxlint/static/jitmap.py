"""The jit map: a plain, serializable model of a module's traced entry points.

The static phase builds it (``jaxlint.static.semantic``); the dynamic phase reads it to know
what to trace and with which static / donated arguments.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class EntryPoint:
    kind: str  # "jit", "pjit", "pmap", "filter_jit", "nnx.jit", ...
    qualname: str  # "f", "Model.__call__", "main.<locals>.step", "<lambda>@12"
    name: str
    line: int  # where the transform is applied (decorator or call)
    column: int
    def_line: int  # where the traced function is defined
    form: str  # "decorator", "partial-decorator", "call", "immediate"
    bound_name: str | None  # the name the jitted callable is bound to, when known
    static_argnums: tuple[int, ...] = ()
    static_argnames: tuple[str, ...] = ()
    donate_argnums: tuple[int, ...] = ()
    donate_argnames: tuple[str, ...] = ()
    static_params: tuple[str, ...] = ()
    traced_params: tuple[str, ...] = ()
    partial_bound: int = 0
    is_method: bool = False
    specs_literal: bool = True  # False when static/donate specs are not literals

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> "EntryPoint":
        d = dict(d)
        for k in ("static_argnums", "static_argnames", "donate_argnums", "donate_argnames",
                  "static_params", "traced_params"):
            d[k] = tuple(d.get(k, ()))
        return cls(**d)


@dataclass(frozen=True)
class JitMap:
    module: str
    entries: tuple[EntryPoint, ...]
    #: every function known to be traced: (qualname, def line, reasons)
    traced: tuple[tuple[str, int, tuple[str, ...]], ...] = ()

    def to_dict(self) -> dict:
        return {
            "module": self.module,
            "entries": [e.to_dict() for e in self.entries],
            "traced": [{"qualname": q, "line": l, "reasons": list(r)} for q, l, r in self.traced],
        }

    @classmethod
    def from_dict(cls, d: dict) -> "JitMap":
        return cls(
            d["module"],
            tuple(EntryPoint.from_dict(e) for e in d["entries"]),
            tuple((t["qualname"], t["line"], tuple(t["reasons"])) for t in d.get("traced", ())),
        )
