"""A file's active rules are computed once a run (issue 39): the stages after the static
check (the dynamic phase's rules, the measured findings kept, where each function was
measured, the rules of the report, the baseline's judged functions) ask the run
(``CheckRun.active``), which asks the registry once for each settings and levels. Before,
they asked the registry again per finding, per file and per function analysed."""
from __future__ import annotations

from collections import Counter

import jaxlint.registry as registry
from jaxlint.cli import main


def test_the_stages_after_the_check_ask_the_registry_once_per_settings(tmp_path, monkeypatch, capsys):
    (tmp_path / "pyproject.toml").write_text("[tool.jaxlint]\n")
    # two functions the dynamic phase analyses: where each was measured is asked per function
    (tmp_path / "m.py").write_text(
        "import jax\n\n\n"
        "@jax.jit  # jaxlint: args=(f32[4],)\ndef f(x):\n    return x + 1\n\n\n"
        "@jax.jit  # jaxlint: args=(f32[4],)\ndef g(x):\n    return x * 2\n")
    monkeypatch.chdir(tmp_path)
    asked: Counter = Counter()
    real = registry.active_rules

    def counted(settings, phases=("static",)):
        asked[id(settings), tuple(phases)] += 1
        return real(settings, phases)

    monkeypatch.setattr(registry, "active_rules", counted)
    rc = main(["check", "--dynamic", "--no-cache", "--output-format", "json", "m.py"])
    out = capsys.readouterr()
    assert rc == 0, out.err
    measured = {key: n for key, n in asked.items() if key[1] != ("static",)}
    assert measured, "the dynamic phase ran, and its stages asked for the file's rules"
    assert set(measured.values()) == {1}, measured
