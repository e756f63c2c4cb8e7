"""The findings the engine makes itself, whose codes core owns (issue 39): a file that
cannot be read or parsed (JAX100, ``ParseError``: the static checker makes its finding
before any rule runs) and code the dynamic phase could not import or trace (JAX200,
``AnalysisFailed``: the dynamic driver makes its finding). They are rules in every other
respect: ``jaxlint.rules`` lists them with the others, so they are selected, documented
(``docs/rules/``) and their examples run like every rule's; the engine names their
classes here, never a rule package's.
"""
from __future__ import annotations

from jaxlint.diagnostic import Severity
from jaxlint.rule import ANALYSIS_FAILED, PARSE_ERROR, Context, Invalid, StaticRule, TraceRule, Valid


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

    def check(self, ctx: Context) -> None:  # the engine reports parse errors before rules run
        return None


class AnalysisFailed(TraceRule):
    """
    ## What it does
    Reports code the dynamic phase could not analyze: a module that raises, calls
    `sys.exit` or `os._exit`, hangs, crashes the interpreter or runs out of memory
    while being imported, or a function whose tracing does so. The message gives the
    reason and the finding sits at your line when there is one (the traceback's or,
    for hangs and crashes, the stack faulthandler printed).

    jaxlint itself keeps going: the rest of the file and the other files are still
    analyzed, and a failure counts as a finding (exit status 1), not as an internal
    error.

    ## Why is this bad?
    Code that cannot be imported without side effects cannot be checked (and is hard to
    test). A module that exits or hangs at import usually runs a script body at import
    time.

    ## Example
    ```python
    import jax
    config = load_config("/etc/train.yaml")   # fails anywhere but the training box
    ```

    ## Use instead
    ```python
    import jax

    def main():
        config = load_config("/etc/train.yaml")

    if __name__ == "__main__":
        main()
    ```

    ## Options

    ## References
    * [Python: `__main__` — top-level code environment](https://docs.python.org/3/library/__main__.html)
    """

    code = "JAX200"
    group = "correctness"
    name = "analysis-failed"
    summary = "the dynamic phase could not import or trace this code"
    fix_hint = "keep module import free of side effects; put script code under `if __name__ == '__main__':`"
    severity = Severity.ERROR
    role = ANALYSIS_FAILED
    means_trace_failed = True

    VALID = [
        Valid(
            """
            import jax

            @jax.jit  # jaxlint: args=(f32[4],)
            def f(x):
                return x + 1

            def main():
                raise SystemExit(1)

            if __name__ == "__main__":
                main()
            """
        ),
    ]
    INVALID = [
        Invalid(
            """
            import jax

            raise RuntimeError("needs a GPU box")

            @jax.jit  # jaxlint: args=(f32[4],)
            def f(x):
                return x + 1
            """,
            line=3,
            message="RuntimeError: needs a GPU box",
        ),
        Invalid(
            """
            import sys
            import jax

            sys.exit(2)

            @jax.jit  # jaxlint: args=(f32[4],)
            def f(x):
                return x + 1
            """,
            line=4,
            message="sys.exit(2)",
        ),
    ]

    def check(self, ctx: Context) -> None:
        """Failures are reported by the engine (worker and pool), not from a jaxpr."""
