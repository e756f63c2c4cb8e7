from __future__ import annotations

from typing import TYPE_CHECKING

from jaxlint.diagnostic import Severity
from jaxlint.rule import ANALYSIS_FAILED, Invalid, TraceRule, Valid

if TYPE_CHECKING:
    from jaxlint.dynamic.analysis import FunctionAnalysis


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

    def check(self, ctx: FunctionAnalysis) -> None:
        """Failures are reported by the engine (worker and pool), not from a jaxpr."""
