"""Fix-safety benchmark: every fix, unsafe ones included, applied to copies of real code.

Two corpora, each copied to a temporary folder first (the originals are never touched):

* the speed corpus of ``bench_static.py`` (pinned wheels of jax, flax, optax, equinox,
  diffrax and chex, fetched and cached once);
* jaxlint's own ``examples/`` (small JAX programs written to have the problems).

On each copy, as a user would run it (the real CLI, in a subprocess):

1. ``jaxlint check --output-format json``: the findings, and which files have one with
   a fix;
2. ``jaxlint check --fix --unsafe-fixes`` (timed), then the checks: every changed file
   parses and ``compile()``s, no file without a fixable finding changed, and every fix
   that was not made says why (``fix not made: ...`` on stderr);
3. the same command again: it must change nothing (no file, no fix applied).

Prints a table (and ``--json``); ``--check`` exits 1 when a safety check fails.

    python benchmarks/bench_fixes.py [--check] [--json results.json]

``--scaling`` measures instead how the time of ``--fix`` grows with the fixes in one
file: a generated file of N jitted functions, each with one fixable finding (JAX104,
``np.sin`` on a tracer), fixed in a fresh process that first fixed a one-function file
(imports and caches warm), its CPU seconds for the N-fix run over N; and the same for
the editor's fix-all (``source.fixAll.jaxlint``'s edit, computed by the server's code).
``--check`` then exits 1 when a per-fix time is more than 1.3x another's.

    python benchmarks/bench_fixes.py --scaling [--sizes 100,400,1600] [--check]
"""
from __future__ import annotations

import argparse
import ast
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_static import CORPUS, default_cache_root, ensure_corpus  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
_FIXED = re.compile(r"^\s+(\d+) × (JAX\d+) ")
_NOT_MADE = re.compile(r"^jaxlint: warning: .*: (JAX\d+) fix not made: (.*)$")


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("JAXLINT_")}


def _jaxlint(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "jaxlint", "check", "--isolated", "--no-cache", "--exit-zero", *args],
                          cwd=cwd, capture_output=True, text=True, env=_env())


def _timed(*args: str, cwd: Path) -> tuple[subprocess.CompletedProcess, float, float]:
    """The run, its wall seconds and its CPU seconds (with its worker processes)."""
    c0, t0 = _children_cpu(), time.perf_counter()
    proc = _jaxlint(*args, cwd=cwd)
    return proc, time.perf_counter() - t0, _children_cpu() - c0


def _children_cpu() -> float:
    try:
        import resource
    except ImportError:  # Windows: wall times only
        return float("nan")
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _hashes(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*.py")) if p.is_file()}


def _compiles(path: Path) -> str | None:
    """None when the file parses and compiles, else why not."""
    data = path.read_bytes()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            ast.parse(data, filename=str(path))
            compile(data, str(path), "exec", dont_inherit=True)
        except (SyntaxError, ValueError) as e:
            return f"{type(e).__name__}: {e}"
    return None


def _fixed_counts(out: str) -> Counter:
    """``--show-fixes`` lines (``    3 × JAX114 (prng-key-reuse)``), per code."""
    c: Counter = Counter()
    for line in out.splitlines():
        m = _FIXED.match(line)
        if m:
            c[m.group(2)] += int(m.group(1))
    return c


def run_corpus(name: str, source: Path) -> dict:
    with tempfile.TemporaryDirectory(prefix="jaxlint-fixes-") as tmp:
        copy = Path(tmp) / name
        shutil.copytree(source, copy, ignore=shutil.ignore_patterns("__pycache__"))
        files = _hashes(copy)
        lines = sum((copy / f).read_bytes().count(b"\n") for f in files)
        check, check_wall, check_cpu = _timed("--output-format", "json", ".", cwd=copy)
        before = json.loads(check.stdout or "[]")
        fixable_files = {Path(d["filename"]).as_posix() for d in before if d["fix"] is not None}
        fixable = Counter(d["code"] for d in before if d["fix"] is not None)
        not_compiling_before = sorted(f for f in files if _compiles(copy / f) is not None)

        run, fix_wall, fix_cpu = _timed("--fix", "--unsafe-fixes", "--show-fixes", ".", cwd=copy)
        applied = _fixed_counts(run.stdout + run.stderr)
        matches = [m for m in map(_NOT_MADE.match, run.stderr.splitlines()) if m]
        declined = Counter((m.group(1), m.group(2).split(" (")[0]) for m in matches)
        after = _hashes(copy)
        changed = sorted(f for f in files if after.get(f) != files[f])
        broken = {f: why for f in changed if (why := _compiles(copy / f)) is not None and f not in not_compiling_before}
        unexpected = sorted(f for f in changed if f not in fixable_files)
        new_files = sorted(set(after) - set(files))

        again = _jaxlint("--fix", "--unsafe-fixes", "--show-fixes", ".", cwd=copy)
        second_changed = sorted(f for f, h in _hashes(copy).items() if after.get(f) != h)
        second_applied = sum(_fixed_counts(again.stdout + again.stderr).values())
        remaining = json.loads(_jaxlint("--output-format", "json", ".", cwd=copy).stdout or "[]")
        diff = subprocess.run(["diff", "-r", "-U0", str(source), str(copy)], capture_output=True, text=True).stdout
        added = sum(1 for line in diff.splitlines() if line.startswith("+") and not line.startswith("+++"))
        removed = sum(1 for line in diff.splitlines() if line.startswith("-") and not line.startswith("---"))
    return {
        "corpus": name, "files": len(files), "lines": lines,
        "findings": len(before), "fixable": dict(sorted(fixable.items())), "fixable_files": len(fixable_files),
        "check_wall_s": round(check_wall, 2), "check_cpu_s": round(check_cpu, 2),
        "fix_wall_s": round(fix_wall, 2), "fix_cpu_s": round(fix_cpu, 2), "fix_exit": run.returncode,
        "applied": dict(sorted(applied.items())), "not_made": {f"{c}: {why}": n for (c, why), n in declined.items()},
        "files_changed": len(changed), "lines_added": added, "lines_removed": removed,
        "changed_not_compiling": broken, "changed_without_fixable_finding": unexpected, "files_created": new_files,
        "second_run_files_changed": second_changed, "second_run_fixes": second_applied,
        "findings_after": len(remaining), "fixable_after": sum(1 for d in remaining if d["fix"] is not None),
    }


def failures(res: dict) -> list[str]:
    out = []
    if res["fix_exit"] not in (0, 1):
        out.append(f"{res['corpus']}: --fix exited {res['fix_exit']}")
    for key in ("changed_not_compiling", "changed_without_fixable_finding", "files_created",
                "second_run_files_changed"):
        if res[key]:
            out.append(f"{res['corpus']}: {key}: {res[key]}")
    if res["second_run_fixes"]:
        out.append(f"{res['corpus']}: the second run applied {res['second_run_fixes']} fixes")
    return out


def report(results: list[dict]) -> str:
    rows = [
        ("files (lines)", lambda r: f"{r['files']:,} ({r['lines']:,})"),
        ("findings", lambda r: str(r["findings"])),
        ("with a fix (files)", lambda r: f"{sum(r['fixable'].values())} ({r['fixable_files']})"),
        ("  by rule", lambda r: ", ".join(f"{c} {n}" for c, n in r["fixable"].items()) or "-"),
        ("fixes applied", lambda r: str(sum(r["applied"].values()))),
        ("  by rule", lambda r: ", ".join(f"{c} {n}" for c, n in r["applied"].items()) or "-"),
        ("fixes not made (why)", lambda r: "; ".join(f"{k} x{n}" for k, n in r["not_made"].items()) or "-"),
        ("files changed", lambda r: f"{r['files_changed']} (+{r['lines_added']} -{r['lines_removed']} lines)"),
        ("check: wall s (CPU s)", lambda r: f"{r['check_wall_s']:.2f} ({r['check_cpu_s']:.2f})"),
        ("--fix --unsafe-fixes: wall (CPU)", lambda r: f"{r['fix_wall_s']:.2f} ({r['fix_cpu_s']:.2f})"),
        ("changed and not compiling", lambda r: str(len(r["changed_not_compiling"]))),
        ("changed w/o fixable finding", lambda r: str(len(r["changed_without_fixable_finding"]))),
        ("second run: files changed", lambda r: str(len(r["second_run_files_changed"]))),
        ("second run: fixes applied", lambda r: str(r["second_run_fixes"])),
        ("findings after (with a fix)", lambda r: f"{r['findings_after']} ({r['fixable_after']})"),
    ]
    width = max(len(r[0]) for r in rows) + 2
    out = [f"{'':<{width}}" + "".join(f"{r['corpus']:<40}" for r in results)]
    for label, get in rows:
        out.append(f"{label:<{width}}" + "".join(f"{get(r):<40}" for r in results))
    out.append(f"load average: {_load()}")
    return "\n".join(out)


def _load() -> list[float] | None:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (AttributeError, OSError):
        return None


# ---------------------------------------------------------------------------- scaling
def fixable_file(n: int) -> str:
    """A module of ``n`` jitted functions, each with one fixable finding (JAX104)."""
    out = ["import jax", "import jax.numpy as jnp", "import numpy as np", ""]
    for i in range(n):
        out += ["", "@jax.jit", f"def f{i}(x):", f"    return np.sin(x) + {i}", ""]
    return "\n".join(out) + "\n"


_MEASURE = """
import sys, time
from pathlib import Path
from jaxlint.inspect.levels import hand_rules
from jaxlint.pipeline import CheckOptions, check

hand_rules()  # what jaxlint's entry points do first


def fix(path):
    return check(CheckOptions(paths=(str(path),), isolated=True, no_cache=True, fix=True, unsafe_fixes=True,
                              select=["JAX104"], quiet=True, exit_zero=True, output_file="/dev/null"))

warm, path = Path(sys.argv[1]), Path(sys.argv[2])
fix(warm)
t = time.process_time()
fix(path)
print(time.process_time() - t)
"""


def fix_cpu(n: int, folder: Path) -> tuple[float, int]:
    """(CPU seconds of ``--fix`` on a file of ``n`` fixable findings, findings left)."""
    warm, path = folder / f"warm{n}.py", folder / f"fixes{n}.py"
    warm.write_text(fixable_file(2))
    path.write_text(fixable_file(n))
    out = subprocess.run([sys.executable, "-c", _MEASURE, str(warm), str(path)], capture_output=True, text=True,
                         env=_env(), check=True)
    left = path.read_text().count("return np.sin")
    return float(out.stdout.strip().splitlines()[-1]), left


def _cpu_of(pid: int) -> float:
    """CPU seconds (user and system) a process has used, from /proc (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def _editor_fix_all(folder: Path, n: int) -> tuple[float, int]:
    from lsp_session import Session, capabilities
    from lsprotocol import types as T

    s = Session(folder)
    await s.start(capabilities(pull=True), init={"debounceMs": 0, "unsafeFixes": True})
    try:
        pid = s.client._server.pid  # type: ignore[union-attr]
        out = (0.0, 0)
        for name, size in (("warm.py", 2), (f"fixes{n}.py", n)):
            uri = s.open(name, fixable_file(size))
            found = (await s.pull(uri)).items
            t = _cpu_of(pid)
            actions = await s.actions(uri, found, only=["source.fixAll.jaxlint"])
            cpu = _cpu_of(pid) - t
            new = s.apply(uri, actions[0].edit)
            out = (cpu, new.count("return np.sin"))
        return out
    finally:
        await s.stop()


def fix_all_cpu(n: int, folder: Path) -> tuple[float, int]:
    """(CPU seconds the language server took for its fix-all code action on a file of
    ``n`` fixable findings, after one on a small file; findings left)."""
    if str(ROOT / "tests") not in sys.path:
        sys.path.insert(0, str(ROOT / "tests"))  # the tests' stdio client
    from lsp_session import run

    root = folder / f"lsp{n}"
    root.mkdir()
    # the editor reads the project's config: JAX104, the file's rule, is in the nursery (off by default)
    (root / "pyproject.toml").write_text('[tool.jaxlint]\nextend-select = ["JAX104"]\n')
    return run(_editor_fix_all(root, n))


def scaling(sizes: list[int], measure=fix_cpu) -> list[dict]:
    rows = []
    with tempfile.TemporaryDirectory(prefix="jaxlint-fix-scaling-") as tmp:
        for n in sizes:
            cpu, left = measure(n, Path(tmp))
            rows.append({"fixes": n, "cpu_s": round(cpu, 3), "ms_per_fix": round(cpu / n * 1000, 3), "left": left})
    return rows


def spread(rows: list[dict]) -> float:
    per = [r["ms_per_fix"] for r in rows]
    return max(per) / min(per)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--corpus-dir", type=Path, default=default_cache_root(),
                   help="where bench_static.py keeps its corpus (default: %(default)s)")
    p.add_argument("--json", type=Path, help="also write the results here")
    p.add_argument("--check", action="store_true", help="exit 1 when a safety check fails")
    p.add_argument("--scaling", action="store_true", help="time --fix against the fixes in one file instead")
    p.add_argument("--sizes", default="100,400,1600", help="fixes per file for --scaling (default: %(default)s)")
    args = p.parse_args(argv)
    if args.scaling:
        sizes = [int(x) for x in args.sizes.split(",")]
        both = {"check --fix": scaling(sizes), "editor fix-all": scaling(sizes, fix_all_cpu)}
        for what, rows in both.items():
            for r in rows:
                print(f"{what}: {r['fixes']:>6} fixes: {r['cpu_s']:8.3f} s CPU, {r['ms_per_fix']:.3f} ms a fix, "
                      f"{r['left']} left")
            print(f"{what}: per-fix spread {spread(rows):.2f}x")
        print(f"load average: {_load()}")
        if args.json:
            args.json.write_text(json.dumps(both, indent=2) + "\n")
        return 1 if args.check and any(spread(rows) > 1.3 or any(r["left"] for r in rows)
                                       for rows in both.values()) else 0
    src = ensure_corpus(args.corpus_dir)
    corpus_name = "speed corpus (" + ", ".join(f"{d} {v}" for d, v, _ in CORPUS) + ")"
    results = [run_corpus("corpus", src), run_corpus("examples", ROOT / "examples")]
    results[0]["description"] = corpus_name
    print(report(results))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    bad = [f for r in results for f in failures(r)]
    for f in bad:
        print(f"FAILED: {f}", file=sys.stderr)
    return 1 if bad and args.check else 0


if __name__ == "__main__":
    sys.exit(main())
