"""Fixes: applying the edits and codemods rules plan (``apply``: passes until stable,
verified, atomic writes, ``# noqa`` insertion) and the libcst codemods themselves
(``codemod``, imported only when a fix is computed).
"""
