"""The dynamic phase: user code imported and traced in worker processes (the trace tier,
jaxpr rules JAX2xx), and observed inside a running program (``jaxlint record``).

Parent side (never imports jax): ``driver`` (plan, cache, run, assemble findings),
``inputs`` (where trace inputs come from), ``pool`` (worker processes and timeouts),
``signatures`` and ``observations`` (what ``jaxlint record`` saved), ``project``.
Worker side: ``worker`` (the subprocess), ``analysis`` (the per-function object rules
read, analysis levels), ``abstract``, ``transforms``; ``record`` and ``observe`` run
inside the user's program. Private jax is touched only in ``adapter``.
"""
