"""Why a function is traced, as data.

``ModuleModel`` marks each function that runs under a trace with one ``Reason`` per way
it gets there: a jit-like entry point (``jit@12``), a transform or lax higher-order
function that traces it (``scan@30``, ``grad in train_step``), or a call from traced
code (``called from step``). Rules read the fields (``kind``, ``line``, ``caller``);
the text form is what the jit map stores and messages show, so a ``Reason`` is a
``str`` too.
"""
from __future__ import annotations

#: The kinds of jit-like entry points (the values of ``semantic.JIT_LIKE``).
ENTRY_KINDS = frozenset({"jit", "pjit", "pmap", "xmap", "nnx.jit", "linen.jit", "filter_jit", "filter_pmap"})
#: ``kind`` of a reason that is a call from traced code.
CALL = "call"


class Reason(str):
    """One reason a function is traced: ``kind`` (an entry kind, the short name of the
    transform or lax function that traces it, or ``CALL``), the ``line`` of the entry
    or higher-order call, and the ``caller`` (the traced function that calls it, or in
    which a differentiation transform is applied)."""

    kind: str
    line: int | None
    caller: str | None

    def __new__(cls, kind: str, line: int | None = None, caller: str | None = None) -> "Reason":
        if kind == CALL:
            text = f"called from {caller}"
        elif line is not None:
            text = f"{kind}@{line}"
        else:
            text = f"{kind} in {caller}"
        self = super().__new__(cls, text)
        self.kind, self.line, self.caller = kind, line, caller
        return self

    def __getnewargs__(self) -> tuple:  # type: ignore[override]
        return (self.kind, self.line, self.caller)

    @property
    def is_entry(self) -> bool:
        """A jit-like entry point (``jax.jit``, ``pmap``, ``eqx.filter_jit``, ...)."""
        return self.kind in ENTRY_KINDS

    @property
    def by_call(self) -> bool:
        """Traced because traced code calls it."""
        return self.kind == CALL
