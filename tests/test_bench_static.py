"""benchmarks/bench_static.py's one-file figure times the command that docs/performance.md
quotes, where pre-commit runs it: ``jaxlint check --no-cache optax/contrib/_sam.py`` in the
unpacked package's folder (issue 19). Real processes on a small tree; no timing is asserted."""
from __future__ import annotations

import importlib.util
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "benchmarks" / "bench_static.py"


def _bench():
    spec = importlib.util.spec_from_file_location("bench_static_under_test", SCRIPT)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _corpus(tmp_path: Path) -> tuple[Path, Path]:
    src = tmp_path / "src"
    one = src / "optax-0.2.8" / "optax" / "contrib" / "_sam.py"
    one.parent.mkdir(parents=True)
    one.write_text(textwrap.dedent(
        """
        import jax

        @jax.jit
        def f(x):
            if x > 0:  # JAX105, on by default
                return x
            return -x
        """).lstrip())
    (src / "optax-0.2.8" / "optax" / "__init__.py").write_text("")
    return src, one


def test_the_one_file_runs_as_the_docs_quote_it(tmp_path):
    bench = _bench()
    src, one = _corpus(tmp_path)
    assert bench.pick_one_file([one], {one: 6}) == one
    j_cmd, f_cmd, cwd = bench.one_file_cmds(one, src)
    assert cwd == src / "optax-0.2.8"
    assert j_cmd[1:] == ["check", "--no-cache", "optax/contrib/_sam.py"] and Path(j_cmd[0]).name == "jaxlint"
    # flake8 as installed beside this python, else `python -m flake8` (the README's test
    # install has no flake8: CI's venv runs the second form)
    assert f_cmd[-1] == "optax/contrib/_sam.py"
    assert f_cmd[:-1] in ([str(Path(bench.sys.executable).parent / "flake8")], [bench.sys.executable, "-m", "flake8"])
    docs = (ROOT / "docs" / "performance.md").read_text()
    assert "`jaxlint check --no-cache optax/contrib/_sam.py`" in docs


def test_the_one_file_is_timed_in_real_processes_that_find_its_finding(tmp_path):
    bench = _bench()
    src, one = _corpus(tmp_path)
    times = bench.time_one_file(one, src, 1, use_flake8=False)
    best, median = times["one_file_jaxlint"], times["one_file_jaxlint_median"]
    # one run: best and median are that run, wall and CPU (the child's) measured
    assert best == median and 0 < best["cpu"] and 0 < best["wall"]
    assert times["one_file_flake8"] is None
    # the command it timed reports the file's finding from that folder (exit 1)
    import subprocess

    j_cmd, _, cwd = bench.one_file_cmds(one, src)
    proc = subprocess.run(j_cmd, cwd=cwd, capture_output=True, text=True, env=bench._env())
    assert proc.returncode == 1 and "optax/contrib/_sam.py" in proc.stdout and "JAX105" in proc.stdout, proc.stdout
