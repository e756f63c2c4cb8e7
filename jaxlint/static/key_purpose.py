"""Where a reuse of a PRNG key that JAX114 (prng-key-reuse) finds is of no use to fix, by
what the code around it says (docs/rules/JAX114.md, "Finding kinds"; each measured on the
blind verdicts in docs/precision.md):

* a demo's place: a statement of the module's `if __name__ == "__main__":` block (a smoke
  test printing shapes), or a function named `benchmark...` (a timing loop's dummy inputs);
* the code's word: a comment at the two uses (from the comment lines just above the first
  through the line of the second) or a line of the function's docstring naming the key
  calls it fixed, the same or shared (`# Fixed key`, `# Same split`, "rng_key: seeding the
  restarts (shared across outputs)"), unless it also negates or flags a fault (`not`,
  `never`, `avoid`, `instead`, `n't`, `BUG`, `TODO`, `FIXME`, `XXX`, `wrong`, `twice`, a
  rule code, `noqa`); or a key named for evaluation (`valid_key`, `eval_key`) serving every
  iteration of a loop (one call drawing from it again and again): the same validation
  noise every step keeps losses comparable.
"""
from __future__ import annotations

import ast
import re

from jaxlint.findings.noqa import comments
from jaxlint.static.keys import key_text
from jaxlint.static.semantic import ModuleModel, walk
from jaxlint.textutil import LazyPattern, split_lines

#: what a comment says of a key reused on purpose, and the words that turn it round; `same` and
#: `identical` only describe a reuse (`# second draw, same key`): they say it is meant only with a
#: purpose in the same comment (`# the same split for both runs`, `all devices get the same rng`)
_SAYS_SO = LazyPattern(r"\b(?:fixed|shared|deliberate(?:ly)?|on purpose|intentional(?:ly)?)\b", re.IGNORECASE)
_DESCRIBES = LazyPattern(r"\b(?:same|identical)\b", re.IGNORECASE)
_PURPOSE = LazyPattern(r"\b(?:for|across|all|every|each|both|so|must|keep|reproduc\w*|determinis\w*|consisten\w*"
                       r"|compar\w*|agree\w*|match\w*)\b", re.IGNORECASE)
_KEY_WORD = LazyPattern(r"key|seed|rng|split", re.IGNORECASE)
#: (a comment that flags the reuse as a fault: `# BUG: the same key twice`, `# JAX114: same key`)
_NEGATION = LazyPattern(r"\b(?:not|never|avoid|instead|bug|todo|fixme|xxx|wrong|twice|jax\d{3}|noqa)\b|n't\b",
                        re.IGNORECASE)
#: parts of a key's name (split at `_`) that make it an evaluation key
_EVALUATION = {"val", "valid", "validation", "eval", "evaluation", "test"}
#: words of a function's or class's name that make it a demonstration (not `demographics`)
_DEMO = {"demo", "demos", "demonstrate", "demonstrates", "demonstrating", "demonstration", "demonstrations", "tutorial",
         "tutorials"}
#: the words of a name: split at `_` and where a lower-case letter or digit meets an upper-case one
_CASE, _WORD = LazyPattern(r"(?<=[a-z0-9])(?=[A-Z])"), LazyPattern(r"[a-z0-9]+")


def _main_block(s: ast.stmt) -> bool:
    return (isinstance(s, ast.If) and isinstance(s.test, ast.Compare) and len(s.test.comparators) == 1
            and {ast.unparse(s.test.left), ast.unparse(s.test.comparators[0])} == {"__name__", "'__main__'"})


def _name_words(name: str) -> list[str]:
    return _WORD().findall(_CASE().sub("_", name).lower())


def _demo_name(name: str) -> bool:
    """A function or class named for a demonstration: a word (split at ``_`` and at case
    changes) in :data:`_DEMO` (``demonstrate_sharding``, ``step4_visual_demo``, ``ShardingTutorial``)."""
    return any(w in _DEMO for w in _name_words(name))


def in_demo_code(model: ModuleModel, node: ast.AST) -> bool:
    """``node`` is in the module's ``if __name__ == "__main__":`` block, or in a function
    (or a function nested in one) whose name starts with ``benchmark``, or that is named
    for a demonstration, or a method of a class named so (:func:`_demo_name`)."""
    line = getattr(node, "lineno", 0)
    if any(_main_block(s) and s.lineno <= line <= (s.end_lineno or s.lineno) for s in model.tree.body):
        return True
    fn = model.function_of(node)
    while fn is not None:
        if fn.name.lower().startswith("benchmark") or _demo_name(fn.name) or _demo_name(fn.class_name or ""):
            return True
        fn = fn.parent
    return False


class Comments:
    """The comments of one module by line (read once, when a rule first asks)."""

    def __init__(self, source: str) -> None:
        self.source = source
        self._by_line: dict[int, str] | None = None
        self._lines = split_lines(source)

    def at(self, line: int) -> str | None:
        if self._by_line is None:
            self._by_line = {ln: text for ln, _, text in comments(self.source)}
        return self._by_line.get(line)

    def only_comment(self, line: int) -> bool:
        return 0 < line <= len(self._lines) and self._lines[line - 1].lstrip().startswith("#")


def _says_so(text: str, names: tuple[str, ...] = ()) -> bool:
    if not (_SAYS_SO().search(text) or _DESCRIBES().search(text) and _PURPOSE().search(text)) \
            or _NEGATION().search(text):
        return False
    return bool(_KEY_WORD().search(text)) if not names else any(re.search(rf"\b{re.escape(n)}\b", text) for n in names)


def _checks_consistency(fn) -> bool:
    """``fn`` (or a function it is nested in) is named for checking that one key gives one
    result: a word ``consisten...``, ``determinis...`` or ``reproduc...`` (``_test_engine_consistency``)."""
    while fn is not None:
        if any(w.startswith(("consisten", "determinis", "reproduc")) for w in _name_words(fn.name)):
            return True
        fn = fn.parent
    return False


def said_on_purpose(model: ModuleModel, comments: Comments, key: ast.expr, first: ast.AST) -> bool:
    """The code says the reuse of ``key`` (the expression of its second use; ``first``:
    the first use) is deliberate: see the module's docstring."""
    root = re.split(r"[.\[]", key_text(key) or "", maxsplit=1)[0]
    repeated = any(n is key for n in walk(first))  # one call drawing from the key on every iteration or element
    if repeated and _EVALUATION.intersection(root.lower().split("_")):
        return True
    fn = model.function_of(key)
    if _checks_consistency(fn):
        return True
    lo = min(first.lineno, key.lineno)  # type: ignore[attr-defined]
    hi = max(first.end_lineno or first.lineno, key.end_lineno or key.lineno)  # type: ignore[attr-defined]
    while comments.only_comment(lo - 1):
        lo -= 1
    if any(_says_so(c) for c in map(comments.at, range(lo, hi + 1)) if c):
        return True
    doc = ast.get_docstring(fn.node) if fn is not None and not isinstance(fn.node, ast.Lambda) else None
    return doc is not None and any(_says_so(line, (root,)) for line in doc.splitlines())
