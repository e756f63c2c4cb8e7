"""The compile tier (optimized-HLO rules JAX3xx): lower and compile a traced function,
measure it, and give the rules plain facts.

* ``analyser``: the ``compile`` analysis level a worker (or a recorded program) runs;
* ``tier``: lowering, compiling and reading ``cost_analysis``/``memory_analysis``;
* ``facts``: what was measured, as plain data (JSON between processes);
* ``hlo``, ``stablehlo``: parsers of the programs' text;
* ``summary``: the compile tier's lines in a ``check`` summary.
"""
