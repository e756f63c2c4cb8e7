"""How to install jaxlint and its extras: the command the README names.

jaxlint installs from its repository; the ``jaxlint`` on PyPI is an unrelated project,
so a hint never says ``pip install jaxlint[...]`` alone. Every message that tells the
user to install something takes its command from here."""
from __future__ import annotations

#: where pip installs jaxlint from (the README's "Installing")
SOURCE = "git+https://github.com/jaxlint/jaxlint"

#: extra -> what it brings
EXTRAS = {"dynamic": "jax", "lsp": "pygls"}


def install_command(extra: str | None = None) -> str:
    """``pip install "jaxlint[EXTRA] @ git+…"`` (extras before the ``@``)."""
    name = f"jaxlint[{extra}]" if extra else "jaxlint"
    return f'pip install "{name} @ {SOURCE}"'


def missing_extra(extra: str, what: str) -> str:
    """One line for a missing extra: what needs it and the command that installs it."""
    return (f"{what} needs {EXTRAS.get(extra, extra)}, which is not installed in this environment "
            f"({install_command(extra)}, or `pip install -e \".[{extra}]\"` in a checkout)")
