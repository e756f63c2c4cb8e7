"""The static phase never imports jax nor the code it checks (docs/architecture.md).

Each test runs the real CLI entry point in a fresh interpreter on a module whose import
would write a marker file, then reads that interpreter's ``sys.modules``.
"""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from jaxlint.static.runner import POOL_THRESHOLD

#: runs jaxlint.cli.main in-process, then reports the exit code and the suspicious
#: modules of that same process
PROBE = r"""
import json, sys
import jaxlint.cli
out, report, argv = sys.argv[1], sys.argv[2], sys.argv[3:]
rc = jaxlint.cli.main(["check", "--no-cache", "--isolated", "--output-format", "json", "-o", report, *argv])
mods = sorted(m for m in sys.modules
              if m in ("jax", "jaxlib") or m.startswith(("jax.", "jaxlib.")) or "victim" in m)
with open(out, "w") as f:
    json.dump({"rc": rc, "modules": mods}, f)
"""


def victim_source(marker: Path) -> str:
    return textwrap.dedent(
        f"""
        import jax
        import numpy as np

        # importing this module is a side effect the linter must never cause
        with open({str(marker)!r}, "w") as f:
            f.write("user code ran")

        W = np.zeros((4096, 4096))

        @jax.jit
        def predict(x):
            return x @ W
        """
    ).lstrip()


def run_probe(tmp_path: Path, *argv: str, stdin: str | None = None) -> tuple[dict, list[dict]]:
    out, report = tmp_path / "probe.json", tmp_path / "report.json"
    # cwd holds the victims, so `import victim_...` would succeed if anything tried
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, str(out), str(report), *argv],
        cwd=tmp_path, input=stdin, capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(out.read_text()), json.loads(report.read_text())


def test_checking_a_file_neither_runs_it_nor_imports_it_or_jax(tmp_path):
    marker = tmp_path / "imported.marker"
    (tmp_path / "victim_module.py").write_text(victim_source(marker))

    probe, findings = run_probe(tmp_path, "victim_module.py")

    assert not marker.exists()
    assert probe["modules"] == []
    # the file was analysed, not skipped: its captured array is reported
    assert probe["rc"] == 1
    assert [(f["code"], f["filename"]) for f in findings] == [("JAX101", "victim_module.py")]


def test_files_checked_in_the_process_pool_are_not_imported_either(tmp_path):
    marker = tmp_path / "imported.marker"
    count = POOL_THRESHOLD + 4  # enough files for the static phase to use worker processes
    for i in range(count):
        (tmp_path / f"victim_{i}.py").write_text(victim_source(marker))

    probe, findings = run_probe(tmp_path, "--jobs", "2", ".")

    assert not marker.exists()
    assert probe["modules"] == []
    assert sorted(f["filename"] for f in findings) == sorted(f"victim_{i}.py" for i in range(count))


def test_source_read_from_stdin_is_not_imported(tmp_path):
    marker = tmp_path / "imported.marker"

    probe, findings = run_probe(tmp_path, "--stdin-filename", "victim_stdin.py", "-",
                                stdin=victim_source(marker))

    assert not marker.exists()
    assert probe["modules"] == []
    assert [f["code"] for f in findings] == ["JAX101"]


# ---------------------------------------------------------------------- libcst
#: runs jaxlint.cli.main in-process with the given arguments, then reports whether
#: libcst (the fix engine's parser) was imported by that same process
LIBCST_PROBE = r"""
import json, sys
import jaxlint.cli
out, argv = sys.argv[1], sys.argv[2:]
rc = jaxlint.cli.main(argv)
with open(out, "w") as f:
    json.dump({"rc": rc, "libcst": sorted(m for m in sys.modules if m == "libcst" or m.startswith("libcst."))}, f)
"""

FIXABLE = textwrap.dedent(
    """
    import jax
    import numpy as np

    @jax.jit
    def f(x):
        return np.exp(x)
    """
).lstrip()


#: the samples' finding is JAX104's, a nursery rule (off by default): every probe turns it on
ON = ("--extend-select", "JAX104")


def _libcst_probe(tmp_path: Path, *argv: str) -> tuple[dict, subprocess.CompletedProcess]:
    argv = (*argv[:1], *ON, *argv[1:])
    out = tmp_path / "probe.json"
    proc = subprocess.run([sys.executable, "-c", LIBCST_PROBE, str(out), *argv], cwd=tmp_path,
                          capture_output=True, text=True, timeout=600)
    return json.loads(out.read_text()), proc


def test_a_check_without_fixing_never_imports_libcst_even_with_fixable_findings(tmp_path):
    (tmp_path / "m.py").write_text(FIXABLE)
    for fmt in ("concise", "full", "json", "sarif"):
        probe, proc = _libcst_probe(tmp_path, "check", "--no-cache", "--isolated", "--output-format", fmt, "m.py")
        assert probe["rc"] == 1 and "JAX104" in proc.stdout, (fmt, proc.stdout, proc.stderr)
        assert probe["libcst"] == [], fmt


def test_computing_a_fix_imports_libcst(tmp_path):
    # the probe can tell: --diff computes the planned fix with libcst
    (tmp_path / "m.py").write_text(FIXABLE)
    probe, proc = _libcst_probe(tmp_path, "check", "--no-cache", "--isolated", "--diff", "--unsafe-fixes", "m.py")
    assert probe["rc"] == 1 and "+    return jnp.exp(x)" in proc.stdout, proc.stderr
    assert "libcst" in probe["libcst"]
    assert (tmp_path / "m.py").read_text() == FIXABLE


# ------------------------------------------------------------- what a check loads
def test_a_static_check_loads_neither_other_tiers_nor_formats_it_does_not_write(tmp_path):
    """Pre-commit and editors run one file at a time: the trace and compile rules, the
    budgets and the other output formats stay unloaded (issue 19)."""
    (tmp_path / "m.py").write_text(FIXABLE)
    code = LIBCST_PROBE.replace('m == "libcst" or m.startswith("libcst.")',
                                'm.startswith(("jaxlint.rules.jaxpr", "jaxlint.rules.hlo", "jaxlint.compile",'
                                ' "jaxlint.dynamic", "jaxlint.output."))')
    out = tmp_path / "probe.json"
    proc = subprocess.run([sys.executable, "-c", code, str(out), "check", *ON, "--no-cache", "m.py"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    probe = json.loads(out.read_text())
    assert probe["rc"] == 1 and "JAX104" in proc.stdout, (proc.stdout, proc.stderr)
    # the format it writes, and what every format stands on (not a format)
    assert sorted(probe["libcst"]) == ["jaxlint.output.concise", "jaxlint.output.context"]


#: runs jaxlint.cli.main in-process, then lists the static rules' modules it loaded
RULES_PROBE = r"""
import json, sys
import jaxlint.cli
out, argv = sys.argv[1], sys.argv[2:]
rc = jaxlint.cli.main(argv)
with open(out, "w") as f:
    json.dump({"rc": rc, "rules": sorted(m for m in sys.modules if m.startswith("jaxlint.rules.static.jax"))}, f)
"""


def test_a_check_loads_the_static_rules_it_selects_and_no_other(tmp_path):
    """The registry selects static rules from their index (``STATIC_INDEX``) and loads the
    selected ones: the default selection, selectors on the command line and in a
    configuration file each load their rules, and their findings are reported."""
    from jaxlint.registry import select_rules

    (tmp_path / "m.py").write_text(FIXABLE)  # JAX104's finding (nursery: off by default)
    out = tmp_path / "probe.json"

    def loaded(*argv: str) -> tuple[dict, str]:
        proc = subprocess.run([sys.executable, "-c", RULES_PROBE, str(out), "check", "--no-cache", *argv, "m.py"],
                              cwd=tmp_path, capture_output=True, text=True, timeout=120)
        assert out.exists(), proc.stderr
        return json.loads(out.read_text()), proc.stdout

    def modules(*selection) -> list[str]:
        return sorted(r.__module__ for r in select_rules(*selection, ("static",)) if ".rules.static." in r.__module__)

    probe, stdout = loaded("--isolated")
    assert probe == {"rc": 0, "rules": modules(None, (), ())}, probe
    assert "jaxlint.rules.static.jax104_numpy_on_tracer" not in probe["rules"] and len(probe["rules"]) >= 3
    probe, stdout = loaded("--isolated", "--select", "JAX104")
    assert probe == {"rc": 1, "rules": ["jaxlint.rules.static.jax104_numpy_on_tracer"]} and "JAX104" in stdout, probe
    probe, stdout = loaded("--isolated", "--select", "ALL", "--preview")
    assert probe["rc"] == 1 and probe["rules"] == modules(["ALL"], (), ()), probe
    # a configuration's selection, read once the check runs
    (tmp_path / "pyproject.toml").write_text('[tool.jaxlint]\nextend-select = ["JAX104"]\n')
    probe, stdout = loaded()
    assert probe == {"rc": 1, "rules": modules(None, ["JAX104"], ())} and "JAX104" in stdout, probe


#: runs jaxlint.cli.main in-process, then lists the standard-library modules named in
#: argv[2] that the process loaded (the probe itself imports only sys)
STDLIB_PROBE = r"""
import sys
import jaxlint.cli
out, names, argv = sys.argv[1], sys.argv[2].split(","), sys.argv[3:]
rc = jaxlint.cli.main(argv)
with open(out, "w") as f:
    f.write(repr({"rc": rc, "loaded": sorted(n for n in names if n in sys.modules)}))
"""

#: what a static check of one file without a cache needs none of: the cache's hashing and
#: files, TOML (no configuration file here), worker processes and threads, diffs, the
#: rules' docs, the terminal's width (``shutil``: help text only)
UNNEEDED_STDLIB = ("hashlib", "json", "tomllib", "subprocess", "uuid", "difflib", "tempfile", "threading",
                   "textwrap", "shutil")


def _stdlib_probe(tmp_path: Path, *argv: str) -> tuple[dict, subprocess.CompletedProcess]:
    argv = (*argv[:1], *ON, *argv[1:])
    import ast

    out = tmp_path / "probe.txt"
    proc = subprocess.run([sys.executable, "-c", STDLIB_PROBE, str(out), ",".join(UNNEEDED_STDLIB), *argv],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert out.exists(), proc.stderr
    return ast.literal_eval(out.read_text()), proc


def test_one_file_without_a_cache_loads_no_hashing_toml_processes_or_diffs(tmp_path):
    """``jaxlint check --no-cache FILE``, as pre-commit and editors run it: what only a
    cache, a configuration file, worker processes or a fix need stays unloaded, and the
    file's finding is still reported (issue 19)."""
    (tmp_path / "m.py").write_text(FIXABLE)
    probe, proc = _stdlib_probe(tmp_path, "check", "--no-cache", "m.py")
    assert probe["rc"] == 1 and "JAX104" in proc.stdout, (proc.stdout, proc.stderr)
    assert probe["loaded"] == [], probe

    # with a configuration file and a cache, the same check loads what those need
    (tmp_path / "pyproject.toml").write_text('[tool.jaxlint]\nextend-select = ["JAX190"]\n')
    probe, proc = _stdlib_probe(tmp_path, "check", "--cache-dir", str(tmp_path / "cache"), "m.py")
    assert probe["rc"] == 1 and "JAX104" in proc.stdout, (proc.stdout, proc.stderr)
    assert {"hashlib", "json", "tomllib", "tempfile"} <= set(probe["loaded"]), probe
    assert any((tmp_path / "cache").rglob("*.json"))


#: runs jaxlint.cli.main in-process, then lists the module-level patterns of jaxlint's
#: modules (``textutil.LazyPattern``) that the run compiled
LAZY_PATTERN_PROBE = r"""
import sys
import jaxlint.cli
from jaxlint.textutil import LazyPattern
out, argv = sys.argv[1], sys.argv[2:]
rc = jaxlint.cli.main(argv)
lazy = {}
for name, mod in list(sys.modules.items()):
    if name.startswith("jaxlint"):
        for key, value in vars(mod).items():
            found = [value] if isinstance(value, LazyPattern) else [
                x[0] for x in value if isinstance(x, tuple) and x and isinstance(x[0], LazyPattern)
            ] if isinstance(value, tuple) else []
            for i, p in enumerate(found):
                lazy[f"{name}.{key}" + (f"[{i}]" if len(found) > 1 else "")] = p.compiled is not None
with open(out, "w") as f:
    f.write(repr({"rc": rc, "lazy": lazy}))
"""


def _lazy_probe(tmp_path: Path, *argv: str, on: bool = True) -> tuple[dict, subprocess.CompletedProcess]:
    argv = (*argv[:1], *(ON if on else ()), *argv[1:])
    import ast

    out = tmp_path / "probe.txt"
    proc = subprocess.run([sys.executable, "-c", LAZY_PATTERN_PROBE, str(out), *argv],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert out.exists(), proc.stderr
    return ast.literal_eval(out.read_text()), proc


def test_patterns_a_file_does_not_need_are_not_compiled(tmp_path):
    """A file with no ``# noqa`` comment and no syntax error compiles none of the module-level
    patterns kept for those (``LazyPattern``; compiling them was ~8 % of a one-file check);
    a ``# noqa`` comment compiles the noqa patterns, and suppresses its finding."""
    (tmp_path / "m.py").write_text(FIXABLE)
    probe, proc = _lazy_probe(tmp_path, "check", "--no-cache", "m.py")
    assert probe["rc"] == 1 and "JAX104" in proc.stdout, (proc.stdout, proc.stderr)
    noqa = {"jaxlint.findings.noqa._NOQA", "jaxlint.findings.noqa._FILE_NOQA", "jaxlint.findings.noqa._CODE"}
    assert noqa <= set(probe["lazy"]) and len(probe["lazy"]) >= 10, probe
    # what this run needs: a selector on the command line (ON), a finding to report
    needed = {"jaxlint.registry._PREFIX", "jaxlint.findings.collapse._QUOTED", "jaxlint.findings.collapse._NUMBER"}
    assert needed <= set(probe["lazy"]), probe
    assert not any(compiled for name, compiled in probe["lazy"].items() if name not in needed), probe

    # a file with no finding, checked with the default selection (pre-commit's one file)
    (tmp_path / "m.py").write_text("import jax\n\n\ndef f(x):\n    return jax.numpy.sin(x)\n")
    probe, proc = _lazy_probe(tmp_path, "check", "--no-cache", "m.py", on=False)
    assert probe["rc"] == 0, (proc.stdout, proc.stderr)
    assert not any(probe["lazy"].values()), probe

    (tmp_path / "m.py").write_text(FIXABLE.replace("np.exp(x)", "np.exp(x)  # noqa: JAX104"))
    probe, proc = _lazy_probe(tmp_path, "check", "--no-cache", "m.py")
    assert probe["rc"] == 0 and "JAX104" not in proc.stdout, (proc.stdout, proc.stderr)
    assert all(probe["lazy"][name] for name in noqa), probe


def test_help_still_fits_the_terminal(tmp_path):
    """The parser is built with formatters of a fixed width (no ``shutil``), but ``--help``
    is laid out for the terminal's width, as ``COLUMNS`` gives it."""
    import os

    widths = {}
    for columns in (60, 200):
        env = {**os.environ, "COLUMNS": str(columns)}
        proc = subprocess.run([sys.executable, "-m", "jaxlint", "check", "--help"], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        widths[columns] = max(len(line) for line in proc.stdout.splitlines())
    assert widths[60] <= 60 < 80 < widths[200] <= 200, widths


#: runs jaxlint.cli.main as the process's own command (argv from sys.argv), noting each
#: collection that starts while a module of jaxlint is being imported, then whether the
#: static runner's and a static rule's modules were frozen (``gc.get_objects`` lists only
#: what the collector still traverses)
FREEZE_PROBE = r"""
import gc, json, os, sys
import jaxlint.cli
here = os.path.dirname(os.path.dirname(jaxlint.cli.__file__))
during_import = []

def noted(phase, info):
    frame = sys._getframe(0)
    while phase == "start" and frame is not None:
        if frame.f_code.co_name == "<module>" and "jaxlint" in frame.f_code.co_filename:
            during_import.append(frame.f_code.co_filename)
            return
        frame = frame.f_back

gc.callbacks.append(noted)
out = sys.argv[1]
sys.argv = ["jaxlint", "check", "--no-cache", "--isolated", *sys.argv[2:]]
rc = jaxlint.cli.main()
gc.callbacks.remove(noted)
import jaxlint.static.runner, jaxlint.rules.static.jax101_captured_array
traversed = {id(o) for o in gc.get_objects()}
frozen = [id(vars(m)) not in traversed for m in (jaxlint.static.runner, jaxlint.rules.static.jax101_captured_array)]
with open(out, "w") as f:
    json.dump({"rc": rc, "during_import": during_import, "frozen": frozen}, f)
"""


def test_a_check_loads_its_static_path_before_the_collector_is_let_back_on(tmp_path):
    """The CLI holds the collector off while jaxlint loads, then freezes what is loaded.
    A check's runner, model and rules (``commands/check.py``'s ``load``) are loaded then
    too: loaded while the check ran, they set off collections as they loaded and were
    traversed again at exit (4 % of a one-file check's instructions)."""
    (tmp_path / "m.py").write_text(victim_source(tmp_path / "marker"))
    out = tmp_path / "probe.json"
    proc = subprocess.run([sys.executable, "-c", FREEZE_PROBE, str(out), "m.py"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert out.exists(), proc.stderr
    probe = json.loads(out.read_text())
    assert probe["rc"] == 1, (proc.stdout, proc.stderr)  # JAX101: the file was checked
    assert probe["during_import"] == [], probe
    assert probe["frozen"] == [True, True], probe
