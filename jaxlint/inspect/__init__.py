"""Reading the programs yourself: ``jaxlint inspect`` (``inspect_worker`` traces, lowers
and compiles one function; ``programs`` writes each stage as text; ``inspect_view``
lines them up with the source) and the HTML pages (``html``; ``run`` for
``check --report``).
"""
