from __future__ import annotations

from typing import TYPE_CHECKING

from jaxlint.diagnostic import Severity
from jaxlint.rule import PARSE_ERROR, Invalid, StaticRule, Valid

if TYPE_CHECKING:
    from jaxlint.static.checker import StaticContext


class ParseError(StaticRule):
    """
    ## What it does
    Reports a file that cannot be read as Python source: a syntax error, bytes that
    are not valid in the file's encoding, or a NUL byte. In a Jupyter notebook: a file
    that is not a notebook jaxlint can read (not JSON, nbformat 3, empty), or a code
    cell that does not parse, reported at that cell.

    A file that uses syntax of a newer Python than the one jaxlint runs on (PEP 695's
    `type X = ...` and `class C[T]` under Python 3.11) is not a syntax error and not a
    finding: a line of the run's summary names the files not checked and the version
    they need (in JSON output, on stderr; in SARIF, a note of the invocation), and the run
    does not fail for them.

    ## Why is this bad?
    No other rule can check a file that does not parse. The run goes on with the
    other files; this finding says which file was not checked and why. In a notebook,
    the other cells are still checked.

    ## Example
    ```python
    import jax
    def f(x:
        return x
    ```

    ## Use instead
    Fix the syntax error (or the file's encoding).

    ## Options
    None.

    ## References
    * [Python: Source code encoding (PEP 263)](https://peps.python.org/pep-0263/)
    """

    code = "JAX100"
    group = "correctness"
    name = "parse-error"
    summary = "the file cannot be parsed as Python"
    fix_hint = "fix the syntax error or the file's encoding"
    severity = Severity.ERROR
    role = PARSE_ERROR

    VALID = [Valid("import jax\n\ndef f(x):\n    return x\n")]
    INVALID = [
        Invalid("import jax\ndef f(x:\n    return x\n", line=2),
        Invalid("import jax\nx = 1\nif x\n", line=3, message="syntax error"),
    ]

    def check(self, ctx: StaticContext) -> None:  # the engine reports parse errors before rules run
        return None
