from __future__ import annotations

import re

from jaxlint.diagnostic import Applicability, Fix
from jaxlint.noqa import set_codes_edit
from jaxlint.rule import Invalid, StaticRule, Valid

_OURS = re.compile(r"JAX[0-9]+")


class UnusedNoqa(StaticRule):
    """
    ## What it does
    Finds `# noqa: JAX…` codes that suppress nothing: the rule ran on the file and
    reported nothing on that line, the code names no jaxlint rule, or the code is
    listed twice. The fix removes those codes, or the whole `# noqa: …` comment
    when nothing else is left in it.

    Only jaxlint's own codes (`JAX` and digits) are reviewed. A blanket `# noqa`
    and other tools' codes (`# noqa: E501`) are left alone, since flake8, ruff and
    others read the same comments. A code whose rule did not run on the file (not
    selected, a trace or compile tier rule in a static run, a rule that failed) is
    not reported either: jaxlint cannot know whether it is needed. File-level
    `# jaxlint: noqa: …` comments are not reviewed.

    ## Why is this bad?
    A stale suppression hides the next real finding on that line, and tells the
    reader that there is a problem where there is none.

    ## Example
    ```python
    import jax

    def scale(x):
        return 2 * x  # noqa: E501, JAX101
    ```

    ## Use instead
    ```python
    import jax

    def scale(x):
        return 2 * x  # noqa: E501
    ```

    ## Options
    None.

    ## References
    * [ruff: unused-noqa (RUF100)](https://docs.astral.sh/ruff/rules/unused-noqa/)
    * [flake8: selecting and ignoring violations](https://flake8.pycqa.org/en/latest/user/violations.html)
    """

    code = "JAX190"
    name = "unused-noqa"
    summary = "a `# noqa` code suppresses nothing"
    fix_hint = "remove the unused code from the `# noqa` comment"
    default_enabled = False
    fixable = Applicability.SAFE
    markers = ()  # reads comments only; needs no "jax" in the file

    VALID = [
        Valid(
            """
            import jax
            import numpy as np
            W = np.ones((1024, 1024))

            @jax.jit
            def f(x):
                return x @ W  # noqa: JAX101
            """,
            select=("JAX101",),
        ),
        # JAX101 did not run, so whether its noqa is needed is unknown
        Valid("import jax\nx = 1  # noqa: JAX101\n"),
        Valid("import jax\nx = 1  # noqa: E501\ny = 2  # noqa\n", select=("JAX101",)),
    ]
    INVALID = [
        Invalid(
            "import jax\nx = 1  # noqa: JAX101\n",
            select=("JAX101",),
            line=2,
            message="unused: `JAX101`",
            expected_fix="import jax\nx = 1\n",
        ),
        Invalid(
            "import jax\nx = 1  # noqa: E501, JAX101\n",
            select=("JAX101",),
            expected_fix="import jax\nx = 1  # noqa: E501\n",
        ),
        Invalid(
            "import jax\nx = 1  # noqa: JAX999 -- kept for the reader\n",
            message="unknown: `JAX999`",
            expected_fix="import jax\nx = 1  # -- kept for the reader\n",
        ),
        Invalid(
            """
            import jax
            import numpy as np
            W = np.ones((1024, 1024))

            @jax.jit
            def f(x):
                return x @ W  # type: ignore  # noqa: JAX102,JAX101,JAX101
            """,
            select=("JAX101", "JAX102"),
            line=7,
            count=1,
            message="unused: `JAX102`; duplicate: `JAX101`",
            expected_fix="""
            import jax
            import numpy as np
            W = np.ones((1024, 1024))

            @jax.jit
            def f(x):
                return x @ W  # type: ignore  # noqa: JAX101
            """,
        ),
    ]

    def check(self, ctx) -> None:  # works on suppressions, after every other rule
        return None

    def check_suppressions(self, usage):
        for line, c in sorted(usage.suppressions.lines.items()):
            if c.codes is None:
                continue
            used = usage.used.get(line, frozenset())
            unused, unknown, duplicate, keep = [], [], [], []
            seen: set[str] = set()
            for code in c.codes:
                if not _OURS.fullmatch(code):
                    keep.append(code)  # another tool's
                elif code in seen:
                    duplicate.append(code)
                else:
                    seen.add(code)
                    if code not in usage.known:
                        unknown.append(code)
                    elif code in usage.ran and code not in used:
                        unused.append(code)
                    else:
                        keep.append(code)
            if not (unused or unknown or duplicate):
                continue
            parts = [f"{what}: {', '.join(f'`{x}`' for x in codes)}"
                     for what, codes in (("unused", unused), ("unknown", unknown), ("duplicate", duplicate)) if codes]
            text = usage.line_text(line)
            edit = set_codes_edit(c, keep, text)
            removed = unused + unknown + duplicate
            fix = Fix(f"remove {', '.join(removed)} from the noqa comment", (edit,), Applicability.SAFE)
            code_text = " ".join(text[: c.comment_column - 1].split())
            yield usage.report(type(self), c, f"unused `noqa` directive ({'; '.join(parts)})", fix,
                               f"noqa:{','.join(removed)}:{code_text}")
