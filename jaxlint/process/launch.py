"""Start jaxlint's own modules in a child Python process.

``python -m jaxlint.x`` puts the current directory first on ``sys.path``. Run inside a
checkout of jaxlint itself (or any folder holding a ``jaxlint/`` directory), that would
import the checkout instead of the installed package, whose ``jaxlint.rules`` lives
elsewhere. The bootstrap drops that entry before importing anything of ours; the
worker adds the user's project root itself, after jaxlint is imported.
"""
from __future__ import annotations

import sys

_BOOTSTRAP = (
    # under PYTHONSAFEPATH (-P, Python 3.11+) nothing was put first: sys.path[0] is then the
    # user's own first PYTHONPATH entry, and stays
    "import sys, runpy; getattr(sys.flags, 'safe_path', False) or sys.path.pop(0); "
    "runpy.run_module({module!r}, run_name='__main__', alter_sys=True)"
)


def module_command(module: str, *args: str) -> list[str]:
    """The argv that runs ``module`` like ``python -m module args...`` but without the cwd on sys.path."""
    return [sys.executable, "-c", _BOOTSTRAP.format(module=module), *args]
