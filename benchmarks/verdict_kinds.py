"""The finding kind each blind verdict's finding has now, for ``rule_figures.py``.

A rule whose model gives a finding its kind (``ctx.report(kind=...)``: JAX102's count the
model knows, JAX105's proven tracer) says more than the verdict's signature shows. This
script runs the rules that declare kinds over each opened library corpus of
``rule_figures.BLIND`` with ``--select`` of those rules (every kind, every place) and
records, for each verdict whose finding is still reported, the kind the finding has now, in
``verdict_kinds.json`` beside it; ``rule_figures.py`` reads it first (then the kind a
verdict kept from its finding when it was judged, ``kind``, then the rule's answer from the
signature), so a kind made after a verdict was judged (JAX114's ``on-purpose``) is counted
from the old verdicts. A verdict whose finding is no longer reported keeps the kind it was
judged with, else none: it counts in the rule's figure, not a kind's.

Findings that share a key (one verdict) and differ in kind give the verdict the kind the
rule declares first in ``Rule.kinds``. The kind is a fact about the finding at the commit that records it (``measured_at``), not a
judgement: the verdicts stay as judged. Run it again when a rule's kinds change.

    XDG_CACHE_HOME=/work/cache JAXLINT_BENCH_MIRRORS=/work/.mirror python benchmarks/verdict_kinds.py
"""
from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "verdict_kinds.json"
sys.path.insert(0, str(HERE))
import bench_precision  # noqa: E402
import bench_static  # noqa: E402
import rule_figures  # noqa: E402


def kinds_of_findings(src: Path, codes: list[str], wheels: tuple) -> dict[tuple[str, str, str], str]:
    """(path, code, signature) -> kind, for the findings of ``codes`` in ``src`` that have one."""
    with tempfile.TemporaryDirectory(prefix="jaxlint-kinds-") as tmp:
        out = Path(tmp) / "out.json"
        cmd = [sys.executable, "-m", "jaxlint", "check", "--isolated", "--no-cache", "--output-format", "json",
               "-o", str(out), "--exit-zero", "--every-place", "--preview", "--select", ",".join(codes), "."]
        proc = subprocess.run(cmd, cwd=src, capture_output=True, text=True, env=bench_static._env())
        if proc.returncode != 0:
            raise SystemExit(f"verdict_kinds: {' '.join(cmd)} exited {proc.returncode}:\n{proc.stderr[-2000:]}")
        rules = rule_figures.rules_with_kinds()
        found: dict[tuple[str, str, str], str] = {}
        for f in json.loads(out.read_text()):
            kind = (f.get("data") or {}).get("kind")
            if not kind:
                continue
            key = bench_precision.key_of(f, wheels)
            order = list(rules[f["code"]].kinds)
            # findings that share a key share a verdict: it is of the kind declared first (the
            # kind a rule lists first is the one on by default, where any is)
            if key not in found or order.index(kind) < order.index(found[key]):
                found[key] = kind
        return found


def main() -> int:
    codes = sorted(rule_figures.rules_with_kinds())
    verdicts = rule_figures.blind_verdicts()
    rows = []
    for corpus, js in verdicts.items():
        if corpus not in bench_precision.CORPORA:
            continue  # the example programs and the dynamic findings: not a library corpus
        mine = [j for j in js if j["code"] in codes]
        if not mine:
            continue
        wheels = bench_precision.CORPORA[corpus][0]
        folder = bench_precision.default_corpus_dir(corpus)
        src = (bench_precision.ensure_repositories(folder, wheels, bench_precision.SUBTREES)
               if corpus in bench_precision.REPOSITORY_CORPORA else
               bench_static.ensure_corpus(folder, wheels, bench_precision.SUBTREES))
        found = kinds_of_findings(src, codes, wheels)
        for j in mine:
            kind = found.get((j["path"], j["code"], j["signature"]))
            if kind is not None:
                rows.append({"corpus": corpus, "path": j["path"], "code": j["code"], "signature": j["signature"],
                             "kind": kind})
        print(f"{corpus}: {len(mine)} verdicts of {', '.join(codes)}, "
              f"{sum(r['corpus'] == corpus for r in rows)} with a kind")
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=HERE, capture_output=True,
                            text=True).stdout.strip()
    OUT.write_text(json.dumps({"about": __doc__.split("\n\n")[0].replace("\n", " "), "measured_at": commit,
                               "kinds": rows}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
