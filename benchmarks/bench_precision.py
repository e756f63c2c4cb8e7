"""Precision benchmark: the static phase's findings on JAX libraries, judged by reading.

The corpus is twelve JAX libraries that were never used while writing jaxlint's rules
(none of them is in the speed corpus of ``bench_static.py``): pinned wheels from PyPI,
checked against pinned sha256 digests and unpacked once into a cache folder outside any
git work tree (``$XDG_CACHE_HOME/jaxlint-bench/precision``, else
``~/.cache/jaxlint-bench/precision``; ``--corpus-dir`` moves it).

Every finding of ``jaxlint check`` (static phase, default rules) was read in its source
context and judged by a person, as a JAX expert would:

* ``true``: a real problem, and the advice is right;
* ``debatable``: the pattern is there but harmless here, or the cost is unclear;
* ``false``: no problem, or following the advice would break the code.

The verdicts live in ``precision_judgements.json`` beside this script, keyed by what
survives unrelated edits: the file's path inside its package, the rule code and the
finding's signature (enclosing function + normalized source of the flagged construct,
the same key a baseline uses). The script runs jaxlint, matches each finding to its
verdict and reports precision (true findings / all findings), false findings per
thousand lines, per rule, and every finding that has no verdict yet. Judged findings
that jaxlint no longer reports are listed too (what a change removed).

Targets (issue 10): at least 80 % of the findings true, at most 0.03 false findings per
kLOC, no false JAX105 error. ``--check`` exits 1 when one is missed or a finding is
unjudged.

    python benchmarks/bench_precision.py [--check] [--json results.json]
    python benchmarks/bench_precision.py --unjudged new.json   # templates to judge
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_static  # noqa: E402  (the corpus download and cache are shared)

#: (distribution, version, sha256 of the py3-none-any wheel)
CORPUS = (
    ("blackjax", "1.7.1", "be2c7f982f4ab3afef2dd5f075dae271023fdec3d9c5d8b599ba7f2f281524fa"),
    ("brax", "0.14.2", "d33b7b222ba5d85fd0fc4d4c59aa46feb978684107ad3f79de6bfef97ab06693"),
    ("distrax", "0.1.9", "11c93bd4dd913803f2539847cf3a688804fae5f9da224dc44e340846753f75f4"),
    ("dm-haiku", "0.0.17", "aa1394276adf59d695c910810ad90febb741503a83c32b022ce1162483904bbb"),
    ("evosax", "0.3.2", "fdbe2a78ad77029e04d820a30d7732813d2d04852f83d9d6bec2bd68a7ccd89f"),
    ("gymnax", "1.0.1", "b7adcda33f41f6b8b27ac589be378a154a9209e736147977f6c0aebe5f35e796"),
    ("jaxopt", "0.8.5", "ff221d1a86908ec759eb1e219ee1d12bf208a70707e961bf7401076fe7cf4d5e"),
    ("jraph", "0.0.6.dev0", "350fe37bf717f934f1f84fd3370a480b3178bfcb61dfa217c738971308c57625"),
    ("lineax", "0.1.1", "2e399f1674773ab2ba54d76175a618977a554f47abd0a345198d53d92c07beb2"),
    ("numpyro", "0.22.0", "0bbcd8e5319876306eaea595bc78c09201cbcde89bd5856f2867ab65e1dab0a5"),
    ("optimistix", "0.1.0", "c8edda7bf7fe48839c93fcd72bce750c950ed9f7033158303150b7ab395add81"),
    ("rlax", "0.1.9", "34f64a5873aaa9d06f7cd4bb12b3abbb1aba2f0f507a5fce9b0c42d3b23f4f80"),
)

JUDGEMENTS = Path(__file__).resolve().parent / "precision_judgements.json"
VERDICTS = ("true", "debatable", "false")
TARGETS = {"precision": 0.80, "false_per_kloc": 0.03, "false_jax105_errors": 0}

Key = tuple[str, str, str]  # (path inside the package, code, signature)


def default_corpus_dir() -> Path:
    return bench_static.default_cache_root() / "precision"


def package_path(rel: str) -> str:
    """``dm-haiku-0.0.17/examples/imagenet/train.py`` -> ``dm-haiku/examples/imagenet/train.py``:
    the distribution and the path inside its wheel, without the version folder."""
    head, _, rest = rel.partition("/")
    for dist, version, _ in CORPUS:
        if head == f"{dist}-{version}":
            return f"{dist}/{rest}"
    return rel


def run_jaxlint(src: Path) -> list[dict]:
    with tempfile.TemporaryDirectory(prefix="jaxlint-precision-") as tmp:
        out = Path(tmp) / "out.json"
        cmd = [sys.executable, "-m", "jaxlint", "check", "--isolated", "--no-cache", "--output-format", "json",
               "-o", str(out), "--exit-zero", "."]
        proc = subprocess.run(cmd, cwd=src, capture_output=True, text=True, env=bench_static._env())
        if proc.returncode != 0:
            raise SystemExit(f"bench: {' '.join(cmd)} exited {proc.returncode}:\n{proc.stderr[-2000:]}")
        return json.loads(out.read_text())


def key_of(finding: dict) -> Key:
    return (package_path(Path(finding["filename"]).as_posix().removeprefix("./")), finding["code"],
            finding.get("signature") or "")


def load_judgements(path: Path) -> dict[Key, dict]:
    data = json.loads(path.read_text()) if path.exists() else {"judgements": []}
    out: dict[Key, dict] = {}
    for i, j in enumerate(data.get("judgements", [])):
        if j.get("verdict") not in VERDICTS or not all(isinstance(j.get(k), str) for k in ("path", "code", "signature")):
            raise SystemExit(f"bench: {path}: judgement {i} needs path, code, signature and a verdict in {VERDICTS}")
        key = (j["path"], j["code"], j["signature"])
        if key in out:
            raise SystemExit(f"bench: {path}: judgement {i} repeats {key}")
        out[key] = j
    return out


def source_line(src: Path, finding: dict) -> str:
    try:
        lines = (src / finding["filename"]).read_text(encoding="utf-8", errors="replace").splitlines()
        return " ".join(lines[finding["location"]["row"] - 1].split())
    except (OSError, IndexError):
        return ""


def run(args: argparse.Namespace) -> dict:
    src = bench_static.ensure_corpus(args.corpus_dir, CORPUS)
    files = bench_static.corpus_files(src)
    lines = sum(f.read_bytes().count(b"\n") for f in files)
    findings = run_jaxlint(src)
    judged = load_judgements(args.judgements)
    verdicts: Counter[str] = Counter()
    per_rule: dict[str, Counter[str]] = {}
    false_jax105_errors = []
    unjudged: list[dict] = []
    seen: set[Key] = set()
    for f in findings:
        key = key_of(f)
        seen.add(key)
        j = judged.get(key)
        verdict = j["verdict"] if j else "unjudged"
        verdicts[verdict] += 1
        per_rule.setdefault(f["code"], Counter())[verdict] += 1
        if verdict == "false" and f["code"] == "JAX105" and f["severity"] == "error":
            false_jax105_errors.append(key)
        if j is None:
            unjudged.append({"path": key[0], "code": key[1], "signature": key[2], "verdict": "",
                             "reason": "", "line": f["location"]["row"], "source": source_line(src, f),
                             "message": f["message"], "severity": f["severity"]})
    gone = [j for k, j in judged.items() if k not in seen]
    n = len(findings)
    kloc = lines / 1000
    return {
        "corpus": {"packages": [f"{d}=={v}" for d, v, _ in CORPUS], "files": len(files), "lines": lines},
        "findings": n,
        "verdicts": dict(verdicts),
        "precision": verdicts["true"] / n if n else 1.0,
        "findings_per_kloc": n / kloc,
        "false_per_kloc": verdicts["false"] / kloc,
        "false_jax105_errors": len(false_jax105_errors),
        "per_rule": {code: dict(c) for code, c in sorted(per_rule.items())},
        "unjudged": unjudged,
        "no_longer_reported": {v: sum(1 for j in gone if j["verdict"] == v) for v in VERDICTS},
        "no_longer_reported_list": [{k: j[k] for k in ("path", "code", "signature", "verdict", "reason")}
                                    for j in gone],
    }


def report(res: dict, verbose: bool = False) -> str:
    v = res["verdicts"]
    out = [
        f"corpus: {', '.join(res['corpus']['packages'])}",
        f"        {res['corpus']['files']} files, {res['corpus']['lines']} lines",
        "",
        f"findings: {res['findings']} ({res['findings_per_kloc']:.3f} per kLOC): "
        + ", ".join(f"{v.get(k, 0)} {k}" for k in (*VERDICTS, "unjudged")),
        "",
        f"{'rule':<8}" + "".join(f"{k:>11}" for k in (*VERDICTS, "unjudged")),
    ]
    for code, c in res["per_rule"].items():
        out.append(f"{code:<8}" + "".join(f"{c.get(k, 0):>11}" for k in (*VERDICTS, "unjudged")))
    gone = res["no_longer_reported"]
    if any(gone.values()):
        out += ["", "judged findings no longer reported: " + ", ".join(f"{gone[k]} {k}" for k in VERDICTS)]
        if verbose:
            out += [f"  {j['path']} {j['code']} [{j['verdict']}] {j['signature']}"
                    for j in res["no_longer_reported_list"]]
    if res["unjudged"]:
        out += ["", f"{len(res['unjudged'])} findings without a verdict (judge them in "
                    f"{JUDGEMENTS.name}; --unjudged FILE writes templates):"]
        out += [f"  {u['path']}:{u['line']}: {u['code']} {u['message'][:100]}" for u in res["unjudged"]]
    out += ["", f"{'measure':<26}{'value':>10}{'target':>12}  ok"]
    for key, value, target, ok in measures(res):
        shown = f"{value:.1%}" if key == "precision" else f"{value:.3f}" if isinstance(value, float) else str(value)
        want = f">= {target:.0%}" if key == "precision" else f"<= {target}"
        out.append(f"{key:<26}{shown:>10}{want:>12}  {'yes' if ok else 'NO'}")
    return "\n".join(out)


def measures(res: dict) -> list[tuple[str, float, float, bool]]:
    return [
        ("precision", res["precision"], TARGETS["precision"], res["precision"] >= TARGETS["precision"]),
        ("false_per_kloc", res["false_per_kloc"], TARGETS["false_per_kloc"],
         res["false_per_kloc"] <= TARGETS["false_per_kloc"]),
        ("false_jax105_errors", res["false_jax105_errors"], TARGETS["false_jax105_errors"],
         res["false_jax105_errors"] <= TARGETS["false_jax105_errors"]),
    ]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--corpus-dir", type=Path, default=default_corpus_dir(),
                   help="where the wheels and their sources are kept (default: %(default)s)")
    p.add_argument("--judgements", type=Path, default=JUDGEMENTS, help="the verdicts (default: %(default)s)")
    p.add_argument("--unjudged", type=Path, help="write templates of the unjudged findings here")
    p.add_argument("--json", type=Path, help="also write the results here")
    p.add_argument("-v", "--verbose", action="store_true", help="list the judged findings no longer reported")
    p.add_argument("--check", action="store_true", help="exit 1 when a target is missed or a finding is unjudged")
    args = p.parse_args(argv)
    res = run(args)
    print(report(res, args.verbose))
    if args.json:
        args.json.write_text(json.dumps(res, indent=2) + "\n")
    if args.unjudged:
        args.unjudged.write_text(json.dumps(res["unjudged"], indent=2) + "\n")
    missed = [k for k, _, _, ok in measures(res) if not ok]
    if args.check and (missed or res["unjudged"]):
        print(f"missed: {', '.join(missed) or '-'}; unjudged findings: {len(res['unjudged'])}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
