"""jaxlint: a compiler-aware linter for JAX."""

import os as _os

__version__ = "0.1.0"
DOCS_URL = "https://github.com/jaxlint/jaxlint/blob/main/docs"

# The rules live in the top-level ``rules/`` folder, installed as ``jaxlint.rules``.
# Imported straight from a source checkout (``python -m jaxlint`` in the repo root),
# this package has no ``rules/`` beside it: let ``jaxlint.rules`` resolve to the
# checkout's ``rules/`` then, so the checkout behaves like the installed package.
_here = _os.path.dirname(_os.path.abspath(__file__))
if not _os.path.isdir(_os.path.join(_here, "rules")) and _os.path.isfile(
    _os.path.join(_here, _os.pardir, "rules", "__init__.py")
):
    __path__.append(_os.path.dirname(_here))  # type: ignore[name-defined]
del _here
