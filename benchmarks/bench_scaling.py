"""Scaling benchmark (issue 22): what a finding costs must not depend on the module's
size, and ``--fix`` time must be linear in the number of fixes in a file.

1. **Findings vs module size.** The time 2,000 JAX104 findings (``np.exp`` on a traced
   value, each with its fix plan) add to ``jaxlint check``: in a small module, and beside
   40,000 module-level constants. Each module is checked once with the findings and once
   with the same code written with ``jnp`` (no findings); the difference is what the
   findings add.
2. **Fix time.** ``jaxlint check --fix --unsafe-fixes`` on one file with 25, 100 and 300
   fixable findings, against a plain ``check`` of the same file.

The real CLI in a subprocess, ``--no-cache``; best of ``--repeat`` runs (default 3).

    python benchmarks/bench_scaling.py [--repeat N] [--json out.json]

``--repeated`` measures instead what one more repeat costs of what a file repeats (issue
38): JAX102's loops in one jitted function, JAX102 in helpers a jitted function chains
(``x = h0(x)``, ``x = h1(x)``, ...), JAX102 in helpers each of which calls the next
(``h0`` calls ``h1``, ...), and stacked ``@jax.jit`` decorators on one function (all
static rules), at 625 / 1,250 / 2,500 / 5,000 repeats: the static check's CPU time in
this process (best of ``--repeat``, after a warm-up check) over the repeats, and the
spread of those per-repeat figures (``--check``: exit 1 above 1.3x).

    python benchmarks/bench_scaling.py --repeated [--sizes 625,1250,2500,5000] [--check]
"""
from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HEAD = "import jax\nimport jax.numpy as jnp\nimport numpy as np\n\n"


def module(findings: int, constants: int, fixable: bool = True, per_fn: int = 10) -> str:
    call = "np.exp" if fixable else "jnp.exp"
    out = [HEAD]
    out += [f"C_{i} = {i}\n" for i in range(constants)]
    for f in range(findings // per_fn):
        out.append(f"\n\n@jax.jit\ndef f_{f}(x):\n")
        out += [f"    y{i} = {call}(x + {i})\n" for i in range(per_fn)]
        out.append("    return x\n")
    return "".join(out)


def timed(args: list[str], cwd: Path, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        subprocess.run([sys.executable, "-m", "jaxlint", *args], cwd=cwd, capture_output=True, check=False)
        best = min(best, time.perf_counter() - t)
    return best


def findings_vs_size(work: Path, repeat: int) -> dict:
    out = {}
    for label, constants in (("small module", 0), ("beside 40,000 constants", 40_000)):
        times = {}
        for fixable in (True, False):
            p = work / f"m_{constants}_{int(fixable)}.py"
            p.write_text(module(2000, constants, fixable))
            times[fixable] = timed(["check", "--no-cache", "--select", "JAX104", p.name], work, repeat)
        out[label] = {"with findings": times[True], "without": times[False], "added": times[True] - times[False]}
    return out


def fix_time(work: Path, repeat: int) -> dict:
    out = {}
    for n in (25, 100, 300):
        src = module(n, 0, True, per_fn=5)
        p = work / f"fix_{n}.py"
        p.write_text(src)
        check = timed(["check", "--no-cache", "--select", "JAX104", p.name], work, repeat)
        best = float("inf")
        for _ in range(repeat):
            p.write_text(src)
            t = time.perf_counter()
            r = subprocess.run([sys.executable, "-m", "jaxlint", "check", "--no-cache", "--select", "JAX104",
                                "--fix", "--unsafe-fixes", p.name], cwd=work, capture_output=True, text=True)
            best = min(best, time.perf_counter() - t)
        fixed = p.read_text().count("jnp.exp(")
        out[n] = {"check": check, "fix": best, "fixed": fixed, "rc": r.returncode}
    return out


def repeated_source(shape: str, n: int) -> str:
    """A file that repeats one thing ``n`` times (see ``--repeated``)."""
    out = ["import jax", ""]
    if shape == "JAX102, loops in one function":
        out += ["@jax.jit", "def f(x):"] + ["    for i in range(100):\n        x = x + i"] * n
    elif shape == "JAX102, chained helpers":
        out += [f"def h{i}(x):\n    for i in range(100):\n        x = x + i\n    return x\n" for i in range(n)]
        out += ["@jax.jit", "def f(x):"] + [f"    x = h{i}(x)" for i in range(n)]
    elif shape == "JAX102, nested helpers":
        out += [f"def h{i}(x):\n    for i in range(100):\n        x = x + i\n    return h{i + 1}(x)\n"
                for i in range(n - 1)]
        out += [f"def h{n - 1}(x):\n    return x\n", "@jax.jit", "def f(x):", "    x = h0(x)"]
    else:
        out += ["@jax.jit"] * n + ["def f(x):"]
    return "\n".join(out + ["    return x", ""])


def repeated(sizes: list[int], repeat: int) -> dict[str, list[dict]]:
    from jaxlint.inspect.levels import hand_rules
    from jaxlint.registry import rules_by_code
    from jaxlint.static.runner import lint_static

    hand_rules()
    by_code = rules_by_code()
    static = [r({}) for r in by_code.values() if r.phase.value == "static"]
    out: dict[str, list[dict]] = {}
    for shape in ("JAX102, loops in one function", "JAX102, chained helpers", "JAX102, nested helpers",
                  "stacked @jax.jit"):
        rules = static if shape == "stacked @jax.jit" else [by_code["JAX102"]({})]
        lint_static("warm.py", rules, text=repeated_source(shape, 5))
        rows = []
        for n in sizes:
            text, best, found = repeated_source(shape, n), float("inf"), 0
            for _ in range(repeat):
                t = time.process_time()
                res, kept = lint_static("repeated.py", rules, text=text)
                best = min(best, time.process_time() - t)
                found = len(kept)
            rows.append({"repeats": n, "cpu_s": best, "us_each": best / n * 1e6, "findings": found,
                         "errors": res.errors})
        out[shape] = rows
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json")
    ap.add_argument("--repeated", action="store_true", help="what one more repeat costs (see the docstring)")
    ap.add_argument("--sizes", default="625,1250,2500,5000", help="repeats for --repeated (default: %(default)s)")
    ap.add_argument("--check", action="store_true", help="with --repeated: exit 1 when the spread is above 1.3x")
    args = ap.parse_args()
    if args.repeated:
        res = repeated([int(x) for x in args.sizes.split(",")], args.repeat)
        worst = 1.0
        for shape, rows in res.items():
            each = [r["us_each"] for r in rows]
            worst = max(worst, max(each) / min(each))
            for r in rows:
                print(f"{shape}: {r['repeats']:>6}: {r['cpu_s']:7.3f} s CPU, {r['us_each']:6.1f} us each, "
                      f"{r['findings']} findings" + (f", errors {r['errors']}" if r["errors"] else ""))
            print(f"{shape}: spread {max(each) / min(each):.2f}x")
        if args.json:
            Path(args.json).write_text(json.dumps(res, indent=1))
        return 1 if args.check and worst > 1.3 else 0
    work = Path(tempfile.mkdtemp(prefix="jaxlint-bench-scaling-"))
    try:
        (work / "pyproject.toml").write_text("[tool.jaxlint]\n")
        res = {"findings_vs_size": findings_vs_size(work, args.repeat), "fix_time": fix_time(work, args.repeat)}
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("2,000 JAX104 findings (check --no-cache --select JAX104, best of %d):" % args.repeat)
    for label, r in res["findings_vs_size"].items():
        print(f"  {label:26s} with {r['with findings']:.2f} s, without {r['without']:.2f} s, "
              f"added {r['added']:.2f} s")
    print("--fix --unsafe-fixes on one file:")
    for n, r in res["fix_time"].items():
        print(f"  {n:4d} fixes: fix {r['fix']:.2f} s (check alone {r['check']:.2f} s), {r['fixed']} made")
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
