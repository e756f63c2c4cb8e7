"""The budgets file as input and output (issue 38): read as every untrusted file is, each
entry checked (one line naming the file and the key, exit 2), written under the lock
``jaxlint record`` takes so that writers at once lose nothing, through a symlink, and
never half-written on a full disk. What the budgets *mean* is tests/rules/hlo/test_jax306.py's."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from helpers import run_cli
from jaxlint.compile import budgets
from jaxlint.config import ConfigError

ENTRY = {"figures": {"flops": 100, "temp_bytes": 4096}, "compile_seconds": 0.1,
         "environment": {"jax": "0.10.2", "backend": "cpu"}, "largest": ["buffer f32[8] = 32 (add)"],
         "loops": [{"op": "while", "trip_count": 10}]}


def budgets_file(path: Path, entry=None) -> Path:
    data = {"format": 2, "functions": {"model:mlp": dict(ENTRY, signature=["x: f32[8]"]) if entry is None else entry}}
    path.write_text(json.dumps(data))
    return path


# ---------------------------------------------------------------------------- reading
@pytest.mark.parametrize("figure, why", [
    ("NaN", "must be a finite number, got nan"),
    ("Infinity", "must be a finite number, got inf"),
    ('"100"', "must be a number, got '100'"),
    ("-3", "must be 0 or more, got -3"),
    ("1" + "0" * 399, "is too large (400 digits"),
    ("true", "must be a number, got True"),
])
def test_a_figure_that_is_not_a_finite_number_is_refused_naming_the_file_and_key(tmp_path, figure, why):
    f = tmp_path / "jaxlint-budgets.json"
    f.write_text('{"format": 2, "functions": {"model:mlp": {"figures": {"flops": %s}}}}' % figure)
    with pytest.raises(ConfigError) as e:
        budgets.load(f)
    msg = str(e.value)
    assert msg.startswith(f"{f}: `functions.\"model:mlp\".figures.\"flops\"` ")
    assert why in msg and "jaxlint budget update" in msg and "\n" not in msg
    # a file of the earlier format (keyed by signature) is checked the same way
    f.write_text('{"format": 1, "functions": {"model:mlp": {"x: f32[8]": {"figures": {"flops": %s}}}}}' % figure)
    with pytest.raises(ConfigError, match="^" + re.escape(f"{f}: `functions.\"model:mlp\".\"x: f32[8]\".figures")):
        budgets.load(f)


@pytest.mark.parametrize("entry, key", [
    ({"figures": [1, 2]}, ".figures`"),
    ({"figures": {}, "compile_seconds": float("nan")}, ".compile_seconds`"),
    ({"figures": {}, "environment": "cpu"}, ".environment`"),
    ({"figures": {}, "largest": [1]}, ".largest`"),
    ({"figures": {}, "loops": [{"op": "while", "trip_count": "ten"}]}, ".loops[0]`"),
    ({"figures": {}, "signature": 3}, ".signature`"),
    ("flops", "`functions.\"model:mlp\"`"),
])
def test_wrong_types_in_an_entry_are_refused_naming_the_key(tmp_path, entry, key):
    f = budgets_file(tmp_path / "b.json", entry)
    with pytest.raises(ConfigError) as e:
        budgets.load(f)
    assert str(e.value).startswith(f"{f}: ") and key in str(e.value), e.value


def test_a_sound_file_reads_as_written(tmp_path):
    f = budgets_file(tmp_path / "b.json")
    assert budgets.load(f)["functions"]["model:mlp"] == dict(ENTRY, signature=["x: f32[8]"])


def test_a_fifo_dev_zero_or_deep_nesting_is_refused_without_hanging(tmp_path):
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    zero = tmp_path / "zero.json"
    zero.symlink_to("/dev/zero")
    deep = tmp_path / "deep.json"
    deep.write_text('{"format": 1, "functions": ' + "[" * 100_000 + "]" * 100_000 + "}")
    for f, why in ((fifo, "not a regular file"), (zero, "not a regular file"), (deep, "nested more than")):
        with pytest.raises(ConfigError) as e:
            budgets.load(f)
        assert str(e.value).startswith(f"{f}: cannot read the cost budgets: ") and why in str(e.value)
    dangling = tmp_path / "gone.json"
    dangling.symlink_to(tmp_path / "nowhere.json")
    with pytest.raises(ConfigError, match="a symlink to a missing file"):
        budgets.load(dangling)
    assert budgets.load(tmp_path / "none.json") == {"format": 2, "functions": {}}


# ---------------------------------------------------------------------------- writing
WRITER = """
import sys
from pathlib import Path
from jaxlint.compile import budgets
from jaxlint.inspect.levels import hand_rules
from jaxlint.registry import rule_for_role
from jaxlint.rule import BUDGET

hand_rules()  # the engine's registry, as jaxlint's entry points hand it its rules
path, who, rounds = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
rule = rule_for_role(BUDGET)()
for r in range(rounds):
    m = budgets.Measured(f"m{who}:f{r}", f"f{r}", "m.py", 1,
                         {"signature": "()", "figures": {"flops": r}, "environment": {"jax": "x"}}, {})
    changes, written = budgets.write_update(path, [m], rule)
    assert written and changes == [f"added m{who}:f{r}"], changes
"""


def test_four_writers_at_once_for_fifty_rounds_keep_every_entry(tmp_path):
    """What `jaxlint budget update` runs of a CI matrix sharing the file do: each reads,
    adds its function and writes; under the lock none overwrites another's entry."""
    f = tmp_path / "jaxlint-budgets.json"
    script = tmp_path / "writer.py"
    script.write_text(WRITER)
    procs = [subprocess.Popen([sys.executable, str(script), str(f), str(w), "50"], stderr=subprocess.PIPE, text=True)
             for w in range(4)]
    for p in procs:
        _, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
    kept = budgets.load(f)["functions"]
    assert sorted(kept) == sorted(f"m{w}:f{r}" for w in range(4) for r in range(50))


def _measured(key: str = "m:f") -> budgets.Measured:
    return budgets.Measured(key, "f", "m.py", 1, {"signature": "()", "figures": {"flops": 1},
                                                  "environment": {"jax": "x"}}, {})


def _rule():
    from jaxlint.registry import rule_for_role
    from jaxlint.rule import BUDGET

    return rule_for_role(BUDGET)()


def test_a_symlinked_budgets_file_stays_a_link_and_the_file_it_names_is_written(tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    real = budgets_file(shared / "budgets.json")
    link = tmp_path / "jaxlint-budgets.json"
    link.symlink_to(real)
    changes, written = budgets.write_update(link, [_measured()], _rule())
    assert written and changes == ["added m:f"]
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert set(budgets.load(real)["functions"]) == {"model:mlp", "m:f"}


def test_a_full_disk_leaves_the_old_file_and_says_so(tmp_path):
    """A real write that fails for want of room (the file size limit of the process, as a
    full disk fails the write): one line naming the file, the old budgets unchanged."""
    f = budgets_file(tmp_path / "jaxlint-budgets.json")
    before = f.read_bytes()
    script = textwrap.dedent(f"""
        import resource, signal, sys
        from pathlib import Path
        sys.path.insert(0, {str(Path(__file__).parent)!r})
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (64, 64))
        from jaxlint.config import ConfigError
        from jaxlint.inspect.levels import hand_rules
        from test_budgets_file import _measured, _rule
        from jaxlint.compile import budgets
        hand_rules()
        try:
            budgets.write_update(Path({str(f)!r}), [_measured()], _rule())
        except ConfigError as e:
            print(e)
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith(f"{f}: cannot write the cost budgets: File too large; the file is unchanged "
                                 "(1 change not written)"), out.stdout
    assert f.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == [f.name]  # no temporary file left


# ---------------------------------------------------------------------------- the CLI
def test_budget_update_on_a_fifo_or_a_nan_budget_is_one_line_and_exit_2(tmp_path):
    """Through the real CLI (a project with nothing jitted: no compile needed to reach
    the budgets file): `check` does not read an unreadable file as "no budgets"."""
    (tmp_path / "pyproject.toml").write_text("[tool.jaxlint]\n")
    (tmp_path / "m.py").write_text("import jax\n\n\n@jax.jit\ndef f(x):\n    return x + 1\n")
    os.mkfifo(tmp_path / "jaxlint-budgets.json")
    for args in (("budget", "update"), ("check", "--dynamic", "--compile")):
        r = run_cli(*args, cwd=tmp_path, timeout=300)
        assert r.returncode == 2, (args, r.stdout, r.stderr)
        assert "jaxlint-budgets.json: cannot read the cost budgets: not a regular file" in r.stderr, r.stderr
        assert "Traceback" not in r.stderr and "internal error" not in r.stderr


# ---------------------------------------------------------------------------- tolerances
@pytest.mark.parametrize("setting, why", [
    ('function-tolerance = { "model:mlp" = nan }', "option 'function-tolerance': `model:mlp` must be a finite "
                                                   "percent >= 0, got nan"),
    ('function-tolerance = { "model:mlp" = { flops = inf } }', "`model:mlp`.flops must be a finite percent"),
    ('function-tolerance = { "model:mlp" = "5" }', "`model:mlp` must be a percent (a number), got '5'"),
    ("metric-tolerance = { temp_byte = 5 }", "names no figure `temp_byte` (did you mean `temp_bytes`?)"),
    ("metric-tolerance = { flops = -1 }", "option 'metric-tolerance'.flops must be a finite percent >= 0, got -1"),
])
def test_tolerance_tables_are_checked_like_the_scalar_tolerance(tmp_path, setting, why):
    (tmp_path / "pyproject.toml").write_text(f"[tool.jaxlint]\n[tool.jaxlint.rules.cost-budget]\n{setting}\n")
    (tmp_path / "m.py").write_text("x = 1\n")
    r = run_cli("check", "m.py", cwd=tmp_path)
    assert r.returncode == 2 and why in r.stderr, r.stderr
    assert r.stderr.count("\n") == 1 and "pyproject.toml: [tool.jaxlint.rules.cost-budget]" in r.stderr


def test_every_figure_the_compile_tier_measures_can_have_a_tolerance():
    from jaxlint.compile import figures
    from jaxlint.rules.hlo.jax306_cost_budget import METRICS

    measured = {*figures._COST, *figures._MEMORY, "loop_flops", "loop_bytes_accessed", "collective_bytes"}
    assert measured == set(METRICS)
