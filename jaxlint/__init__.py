"""jaxlint: a compiler-aware linter for JAX."""

__version__ = "0.1.0"
DOCS_URL = "https://github.com/jaxlint/jaxlint/blob/main/docs"
