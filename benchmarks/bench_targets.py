"""Do jaxlint's deviceless figures for a TPU target equal the chip's own?

For every jitted function with a ``# jaxlint: args=`` directive under FOLDER
(``benchmarks/targets`` by default):

* ``--deviceless``: ``jaxlint check --target TOPOLOGY --report`` on any machine (libtpu
  installed, no TPU needed): the budget figures jaxlint computes from the program it
  compiled deviceless;
* ``--chip``: the same functions compiled by jax on this machine's TPU (run it on a TPU
  host): ``jax.jit(f).lower(args).compile()`` and its memory and cost analysis;
* ``--compare A.json B.json``: every figure of every function, side by side, and whether
  they are equal (exit 1 where one differs).

    python benchmarks/bench_targets.py --deviceless v5e:1x1 -o deviceless.json
    python benchmarks/bench_targets.py --chip -o chip.json            # on the TPU host
    python benchmarks/bench_targets.py --compare chip.json deviceless.json

``benchmarks/targets_v5e_chip.json`` keeps what a v5e chip gave (docs/targets.md), and
``tests/test_targets_equal_chip.py`` compares jaxlint's deviceless figures with it.
"""
from __future__ import annotations

import argparse
import ast
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
FIGURES = ("argument_bytes", "output_bytes", "alias_bytes", "temp_bytes", "peak_bytes", "flops",
           "transcendentals", "bytes_accessed")


def functions(folder: Path) -> list[tuple[Path, str, str]]:
    """(file, function name, directive body) of each directive-annotated function."""
    from jaxlint.dynamic import inputs

    out = []
    for path in sorted(folder.glob("*.py")):
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        found = inputs.directives(lines)
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef):
                d = inputs.directive_for(lines, found, node)
                if d is not None:
                    out.append((path, node.name, d[1]))
    return out


def deviceless(topology: str, folder: Path) -> dict:
    """jaxlint's own figures: ``check --target`` compiles each function deviceless."""
    with tempfile.TemporaryDirectory() as d:
        report = Path(d) / "report.json"
        r = subprocess.run([sys.executable, "-m", "jaxlint", "check", "--target", topology, "--no-cache",
                            "--isolated", "--report", str(report), str(folder)], capture_output=True, text=True)
        if r.returncode not in (0, 1):
            sys.exit(f"jaxlint check failed ({r.returncode}):\n{r.stdout}\n{r.stderr}")
        rows = json.loads(report.read_text())["functions"]
    out = {}
    for row in rows:
        rep = row.get("report") or {}
        budget = rep.get("budget") or {}
        figures = dict(budget.get("figures") or {})
        figures["hlo_instructions"] = rep.get("hlo_instructions")
        out[f"{Path(row['path']).name}:{row['qualname']}"] = {
            "figures": {k: figures.get(k) for k in (*FIGURES, "hlo_instructions")},
            "environment": budget.get("environment"), "status": row.get("status"), "reason": row.get("reason")}
    return out


def chip(folder: Path) -> dict:
    """The same functions compiled by jax for this machine's own device (a TPU host)."""
    import jax

    from jaxlint.compile.figures import budget_figures
    from jaxlint.compile.tier import analyse
    from jaxlint.config.inputspec import spec_from_parts
    from jaxlint.dynamic import inputs
    from jaxlint.dynamic.worker import build_value

    out = {}
    for path, name, body in functions(folder):
        spec_mod = importlib.util.spec_from_file_location(path.stem, path)
        module = importlib.util.module_from_spec(spec_mod)  # type: ignore[arg-type]
        spec_mod.loader.exec_module(module)  # type: ignore[union-attr]
        args_text, kwargs_text, static, _ = inputs.parse_directive(body)
        spec = spec_from_parts(args_text, kwargs_text, static, "directive", name)
        args = [build_value(n, {}, False) for n in spec["args"]]
        traced = getattr(module, name).trace(*args)
        facts = analyse(traced, function=name, file=str(path), line=1, requested_backend=jax.default_backend())
        b = budget_figures(facts, None)
        figures = dict(b["figures"])
        figures["hlo_instructions"] = len(facts.module.instructions)
        out[f"{path.name}:{name}"] = {"figures": {k: figures.get(k) for k in (*FIGURES, "hlo_instructions")},
                                      "environment": b["environment"], "status": "analysed", "reason": None}
    return out


def compare(a: dict, b: dict) -> int:
    keys = sorted(set(a) | set(b))
    differ = 0
    print(f"{'function':34} {'figure':18} {'A':>16} {'B':>16}")
    for k in keys:
        fa, fb = (a.get(k) or {}).get("figures") or {}, (b.get(k) or {}).get("figures") or {}
        for fig in (*FIGURES, "hlo_instructions"):
            va, vb = fa.get(fig), fb.get(fig)
            if va != vb:
                differ += 1
            mark = "" if va == vb else "   <- differs"
            print(f"{k:34} {fig:18} {str(va):>16} {str(vb):>16}{mark}")
    same = len(keys) * (len(FIGURES) + 1) - differ
    print(f"\n{len(keys)} functions, {same} figures equal, {differ} differ")
    return 1 if differ else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--folder", default=str(HERE / "targets"))
    ap.add_argument("--deviceless", metavar="TOPOLOGY")
    ap.add_argument("--chip", action="store_true")
    ap.add_argument("--compare", nargs=2, metavar="JSON")
    ap.add_argument("-o", "--output")
    args = ap.parse_args()
    if args.compare:
        a, b = (json.loads(Path(p).read_text()) for p in args.compare)
        return compare(a, b)
    if args.deviceless:
        result = deviceless(args.deviceless, Path(args.folder))
    elif args.chip:
        result = chip(Path(args.folder))
    else:
        ap.error("one of --deviceless, --chip, --compare")
    text = json.dumps(result, indent=1, sort_keys=True)
    if args.output:
        Path(args.output).write_text(text + "\n")
    else:
        print(text)
    return 0


if __name__ == "__main__":
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    sys.exit(main())
