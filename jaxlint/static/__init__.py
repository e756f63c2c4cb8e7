"""The static phase: Python's ``ast`` and jaxlint's own model of each module; never
imports jax, libcst or the code it checks.

* ``checker``: one file's text to findings (decoding, parsing, the rules' shared context);
* ``semantic``: the module model (scopes, bindings, resolved names, traced code);
* ``jitmap``: the jitted entry points it finds, as plain data the dynamic phase plans from;
* ``runner``: the static phase over many files (cache, process pool, suppressions).
"""
