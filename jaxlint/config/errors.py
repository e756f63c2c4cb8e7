"""The error a user must fix, and how a bad value or key is shown in its message.

Config, the rule registry and the rules all stand on this module (and it on nothing of
jaxlint's), so none of them imports another to raise or word an error.
"""
from __future__ import annotations

import reprlib
from typing import Any


class ConfigError(Exception):
    """A configuration problem the user must fix (exit status 2)."""


_SHORT = reprlib.Repr()
_SHORT.maxlevel, _SHORT.maxstring, _SHORT.maxother, _SHORT.maxlist, _SHORT.maxdict = 3, 40, 40, 4, 4


def shown(value: Any) -> str:
    """A bad value as an error message shows it: one short line, whatever its size or depth."""
    try:
        text = _SHORT.repr(value)
    except RecursionError:  # pragma: no cover - reprlib bounds the depth itself
        text = f"<{type(value).__name__}>"
    text = " ".join(text.split())
    return text if len(text) <= 100 else text[:97] + "..."


def named(key: Any) -> str:
    """A key as an error message names it: as written when it is short and printable."""
    return key if isinstance(key, str) and key.isprintable() and len(key) <= 60 else shown(key)
