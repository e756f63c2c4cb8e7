"""The CLI's subcommands, one module each (``check``, ``record``, ``inspect``, ``rule``,
``merge``, ``server``, ``clean``): flags and what they print; the work is done by the
engine's packages.
"""
