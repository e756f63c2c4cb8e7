from __future__ import annotations

from typing import TYPE_CHECKING

from jaxlint.diagnostic import Applicability, Fix
from jaxlint.findings.noqa import set_codes_edit
from jaxlint.rule import Invalid, StaticRule, Valid
from jaxlint.textutil import LazyPattern

if TYPE_CHECKING:
    from jaxlint.findings.noqa import NoqaUsage
    from jaxlint.static.checker import StaticContext

_OURS = LazyPattern(r"JAX[0-9]+")
# a module where JAX101 fires (a large array captured by a jitted function)
_CAPTURE = "import numpy as np\nW = np.ones((1024, 1024))\n\n@jax.jit\ndef f(x):\n    return x @ W\n"


class UnusedNoqa(StaticRule):
    """
    ## What it does
    Finds `# noqa: JAX…` codes that suppress nothing: the rule ran on the file and
    reported nothing on that line, the code names no jaxlint rule, or the code is
    listed twice. File-level `# jaxlint: noqa: JAX…` comments are reviewed the same
    way, over the whole file: a code is unused when its rule ran and found nothing
    anywhere in the file (or another file-level comment already names it). The fix
    removes those codes, or the whole comment when nothing else is left in it.

    Only jaxlint's own codes (`JAX` and digits) are reviewed. A blanket `# noqa`
    and other tools' codes (`# noqa: E501`) are left alone, since flake8, ruff and
    others read the same comments. A code whose rule did not run on the file (not
    selected, a trace or compile tier rule in a static run, a rule that failed) is
    not reported either: jaxlint cannot know whether it is needed. A blanket
    file-level `# jaxlint: noqa` is not reported. A code listed both in a file-level
    comment and on a line is used by the file-level one, so the line's is unused.

    ## Why is this bad?
    A stale suppression hides the next real finding on that line, and tells the
    reader that there is a problem where there is none.

    ## Example
    ```python
    # jaxlint: noqa: JAX102
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
    group = "pedantic"
    one_per_function = False  # each unused comment is removed on its own
    name = "unused-noqa"
    summary = "a `# noqa` code suppresses nothing"
    fix_hint = "remove the unused code from the `# noqa` comment"
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
            line=2,
            select=("JAX101",),
            expected_fix="import jax\nx = 1  # noqa: E501\n",
        ),
        Invalid(
            "# jaxlint: noqa: JAX101\nimport jax\nx = 1\n",
            select=("JAX101",),
            line=1,
            message="unused file-level `noqa` directive (unused: `JAX101`)",
            expected_fix="import jax\nx = 1\n",
        ),
    ]

    def check(self, ctx: StaticContext) -> None:  # works on suppressions, after every other rule
        return None

    def check_suppressions(self, ctx: NoqaUsage) -> None:
        sup = ctx.suppressions
        reviewed = [(c, "") for _, c in sorted(sup.lines.items())] + [(c, "file-level ") for c in sup.file_comments]
        for c, kind in reviewed:
            if c.codes is None:
                continue
            found = _review(c.codes, ctx.used.get(c.line, frozenset()), ctx)
            if found is None:
                continue
            parts, keep, removed = found
            text = ctx.line_text(c.line)
            edit = set_codes_edit(c, keep, text)
            fix = Fix(f"remove {', '.join(removed)} from the noqa comment", (edit,), Applicability.SAFE)
            code_text = " ".join(text[: c.comment_column - 1].split())
            ctx.report(c, f"unused {kind}`noqa` directive ({'; '.join(parts)})", fix=fix,
                       key=f"{kind}noqa:{','.join(removed)}:{code_text}")


def _review(codes, used, usage) -> tuple[list[str], list[str], list[str]] | None:
    """Sort a comment's codes into what to say, what to keep and what to remove;
    None when every code earns its place."""
    unused, unknown, duplicate, keep = [], [], [], []
    seen: set[str] = set()
    for code in codes:
        if not _OURS().fullmatch(code):
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
        return None
    parts = [f"{what}: {', '.join(f'`{x}`' for x in found)}"
             for what, found in (("unused", unused), ("unknown", unknown), ("duplicate", duplicate)) if found]
    return parts, keep, unused + unknown + duplicate
