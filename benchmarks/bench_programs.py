"""The static phase on real programs: training scripts and example notebooks, judged by reading.

The precision corpora of ``bench_precision.py`` are libraries from PyPI. Programs are
different code: ``main()`` loops, notebooks, one-off helpers. This script runs
``jaxlint check`` (static phase) on a folder of public example programs, each pinned to a
commit of its repository (``PROGRAMS`` in the verdicts file), matches every finding to a
verdict given by a person who read it in its source, and prints per program and in all:
findings, true / debatable / false, the share true, false findings per kLOC and false
errors, for the default selection and for ``--preview`` (possible findings too).

The programs are other people's code and are never copied into this repository. They
come from GitHub, not PyPI, so CI cannot run this script and nothing downloads them
here: put a clone (or a bare mirror) of each repository under one folder, named
``owner+name`` (what the project's ``fetch`` tool makes, ``owner+name/repo``) or
``name``, and ``--extract MIRRORS`` writes each program's Python files and notebooks at
its pinned commit into ``--programs`` (default ``~/.cache/jaxlint-bench/programs``)::

    git clone https://github.com/google/flax mirrors/google+flax     # ... one per repository
    python benchmarks/bench_programs.py --extract mirrors            # then run and judge
    python benchmarks/bench_programs.py [--selection default|preview|both] [--check] [--json out.json]
    python benchmarks/bench_programs.py --unjudged new.json          # templates to judge

A finding's key is the program, its file inside the program, the rule code and the
finding's signature (enclosing function + normalized source, as in
``bench_precision.py``); the line and cell are shown, not matched. Verdicts:

* ``true``: the problem the rule claims is there and matters;
* ``debatable``: it is there but harmless or intended here;
* ``false``: it is not there, or following the advice would break the code.

Issue 19's targets: at least 80 % true, at most 0.02 false findings per kLOC, no false
finding of error severity. Some programs' files were in a precision corpus before (the
``seen`` prefixes of each program): ``never seen`` totals leave their findings and lines
out. Lines are non-blank lines of ``.py`` files and of notebooks' code cells.
``--check`` exits 1 when a finding has no verdict.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tarfile
import tempfile
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
JUDGEMENTS = HERE / "static_programs_judgements.json"
VERDICTS = ("true", "debatable", "false")
TARGETS = {"precision": 0.80, "false_per_kloc": 0.02, "false_errors": 0}
SELECTIONS = {"default": [], "preview": ["--preview"]}

Key = tuple[str, str, str, str]  # (program, path inside it, code, signature)


def default_programs_dir() -> Path:
    sys.path.insert(0, str(HERE))
    import bench_static  # the cache root is shared with the other benchmarks

    return bench_static.default_cache_root() / "programs"


def load(path: Path) -> tuple[list[dict], dict[Key, dict]]:
    data = json.loads(path.read_text())
    judged: dict[Key, dict] = {}
    for i, j in enumerate(data.get("judgements", [])):
        if j.get("verdict") not in VERDICTS:
            raise SystemExit(f"bench: {path}: judgement {i} needs a verdict in {VERDICTS}")
        key = (j["program"], j["path"], j["code"], j["signature"])
        if key in judged:
            raise SystemExit(f"bench: {path}: judgement {i} repeats {key}")
        judged[key] = j
    return data["programs"], judged


def git_dir(mirrors: Path, repo: str) -> Path:
    owner, name = repo.split("/")
    for cand in (mirrors / f"{owner}+{name}" / "repo", mirrors / f"{owner}+{name}", mirrors / name):
        for d in (cand / ".git", cand):
            if (d / "HEAD").is_file() and (d / "objects").is_dir():
                return d
    raise SystemExit(f"bench: no clone of {repo} under {mirrors} (looked for {owner}+{name} and {name})")


def extract(program: dict, mirrors: Path, dest: Path) -> None:
    """Write the program's .py files and notebooks at its commit into ``dest``."""
    gd = git_dir(mirrors, program["repo"])
    listed = subprocess.run(["git", f"--git-dir={gd}", "ls-tree", "-r", "--name-only", program["commit"], "--",
                             *program["paths"]], capture_output=True, text=True, check=True).stdout.split()
    strip = program.get("strip", "")
    files = [f for f in listed if f.endswith((".py", ".ipynb")) and f not in program.get("exclude", ())]
    if not files:
        raise SystemExit(f"bench: {program['name']}: no file at {program['commit']} under {program['paths']}")
    with tempfile.TemporaryDirectory(prefix="jaxlint-programs-") as tmp:
        archive = Path(tmp) / "a.tar"
        with archive.open("wb") as out:
            # a mirror that lacks large blobs elsewhere in the tree makes git warn about them
            # ("invalid object"); only the exit status says whether these files were written
            proc = subprocess.run(["git", f"--git-dir={gd}", "archive", "--format=tar", program["commit"], "--",
                                   *files], stdout=out, stderr=subprocess.PIPE, text=True)
        if proc.returncode != 0:
            raise SystemExit(f"bench: git archive of {program['name']} failed:\n{proc.stderr[-2000:]}")
        with tarfile.open(archive) as tar:
            for member in tar.getmembers():
                if not member.isfile():
                    continue
                rel = member.name.removeprefix(strip)
                target = dest / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                source = tar.extractfile(member)
                assert source is not None
                target.write_bytes(source.read())
    print(f"{program['name']}: {len(files)} files from {program['repo']}@{program['commit'][:12]}")


def python_lines(path: Path) -> int:
    """Non-blank lines of a .py file, or of a notebook's code cells."""
    text = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix == ".ipynb":
        cells = json.loads(text).get("cells", [])
        sources = ["".join(c["source"]) if isinstance(c.get("source"), list) else c.get("source", "")
                   for c in cells if c.get("cell_type") == "code"]
        text = "\n".join(sources)
    return sum(1 for line in text.splitlines() if line.strip())


def run_jaxlint(folder: Path, extra: list[str]) -> list[dict]:
    with tempfile.TemporaryDirectory(prefix="jaxlint-programs-") as tmp:
        out = Path(tmp) / "out.json"
        cmd = [sys.executable, "-m", "jaxlint", "check", "--isolated", "--no-cache", "--output-format", "json",
               "-o", str(out), "--exit-zero", *extra, "."]
        proc = subprocess.run(cmd, cwd=folder, capture_output=True, text=True)
        if proc.returncode != 0:
            raise SystemExit(f"bench: {' '.join(cmd)} in {folder} exited {proc.returncode}:\n{proc.stderr[-2000:]}")
        findings: list[dict] = json.loads(out.read_text())
        return findings


def tally(rows: list[dict], lines: int) -> dict:
    v = Counter(r["verdict"] for r in rows)
    n = len(rows)
    kloc = lines / 1000
    return {
        "lines": lines, "findings": n, "verdicts": {k: v[k] for k in (*VERDICTS, "unjudged")},
        "precision": v["true"] / n if n else None,
        "false_per_kloc": v["false"] / kloc if kloc else 0.0,
        "false_errors": sum(1 for r in rows if r["verdict"] == "false" and r["severity"] == "error"),
    }


def run_selection(programs: list[dict], judged: dict[Key, dict], root: Path, selection: str) -> dict:
    per_program: dict[str, dict] = {}
    rows_all: list[dict] = []
    unseen_rows: list[dict] = []
    lines_all = unseen_lines = 0
    seen_keys: set[Key] = set()
    for program in programs:
        folder = root / program["name"]
        if not folder.is_dir():
            raise SystemExit(f"bench: {folder} is missing: --extract MIRRORS writes it")
        seen = tuple(program.get("seen", ()))
        lines = unseen = 0
        for f in sorted(folder.rglob("*")):
            if f.suffix in (".py", ".ipynb") and f.is_file():
                n = python_lines(f)
                lines += n
                unseen += 0 if f.relative_to(folder).as_posix().startswith(seen) and seen else n
        rows = []
        for f in run_jaxlint(folder, SELECTIONS[selection]):
            path = Path(f["filename"]).as_posix().removeprefix("./")
            key = (program["name"], path, f["code"], f.get("signature") or "")
            seen_keys.add(key)
            j = judged.get(key)
            rows.append({"program": program["name"], "path": path, "cell": f.get("cell"),
                         "line": f["location"]["row"], "code": f["code"], "signature": key[3],
                         "severity": f["severity"], "confidence": f.get("confidence"),
                         "verdict": j["verdict"] if j else "unjudged", "reason": j["reason"] if j else "",
                         "message": f["message"], "seen": bool(seen) and path.startswith(seen)})
        per_program[program["name"]] = {**tally(rows, lines), "rows": rows}
        rows_all += rows
        unseen_rows += [r for r in rows if not r["seen"]]
        lines_all += lines
        unseen_lines += unseen
    gone = [j for k, j in judged.items() if k not in seen_keys and selection in j.get("selections", list(SELECTIONS))]
    return {"selection": selection, "programs": per_program, "all": tally(rows_all, lines_all),
            "never_seen": tally(unseen_rows, unseen_lines), "no_longer_reported": gone}


def fmt(name: str, t: dict) -> str:
    v = t["verdicts"]
    prec = "n/a" if t["precision"] is None else f"{t['precision']:.0%}"
    return (f"{name:<20}{t['lines']:>8}{t['findings']:>6}{v['true']:>6}{v['debatable']:>6}{v['false']:>6}"
            f"{v['unjudged']:>6}{prec:>7}{t['false_per_kloc']:>9.3f}{t['false_errors']:>7}")


def report(res: dict) -> str:
    out = [f"== selection: {res['selection']}",
           f"{'program':<20}{'lines':>8}{'found':>6}{'true':>6}{'deb.':>6}{'false':>6}{'unjud':>6}"
           f"{'%true':>7}{'F/kLOC':>9}{'F err':>7}"]
    out += [fmt(name, t) for name, t in res["programs"].items()]
    out += [fmt("all", res["all"]), fmt("never seen", res["never_seen"]), ""]
    for name, t in res["programs"].items():
        for r in t["rows"]:
            where = f"{r['path']}:" + (f"cell {r['cell']}:" if r["cell"] else "") + str(r["line"])
            out.append(f"  [{r['verdict']}] {name} {where} {r['code']} ({r['confidence']}, {r['severity']})"
                       f"{' (seen)' if r['seen'] else ''}: {r['reason'] or r['message'][:110]}")
    if res["no_longer_reported"]:
        out += ["", "judged findings no longer reported:"]
        out += [f"  [{j['verdict']}] {j['program']} {j['path']}:{j['line']} {j['code']}" for j in
                res["no_longer_reported"]]
    a = res["never_seen"]
    out += ["", f"issue 19's targets (never-seen programs): >= {TARGETS['precision']:.0%} true, "
                f"<= {TARGETS['false_per_kloc']} false per kLOC, {TARGETS['false_errors']} false errors: "
                + ("met" if (a["precision"] is None or a["precision"] >= TARGETS["precision"])
                   and a["false_per_kloc"] <= TARGETS["false_per_kloc"] and a["false_errors"] == 0 else "missed")]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--programs", type=Path, help="the folder of programs (default: the benchmark cache's programs/)")
    p.add_argument("--judgements", type=Path, default=JUDGEMENTS, help="the verdicts and the programs' pins")
    p.add_argument("--extract", type=Path, metavar="MIRRORS",
                   help="write each program at its pinned commit from the clones under MIRRORS, then stop")
    p.add_argument("--selection", choices=(*SELECTIONS, "both"), default="both")
    p.add_argument("--unjudged", type=Path, help="write the findings without a verdict here, to judge")
    p.add_argument("--json", type=Path, help="also write the results here")
    p.add_argument("--check", action="store_true", help="exit 1 when a finding has no verdict")
    args = p.parse_args(argv)
    programs, judged = load(args.judgements)
    root = args.programs or default_programs_dir()
    if args.extract:
        for program in programs:
            dest = root / program["name"]
            if dest.exists() and any(dest.iterdir()):
                raise SystemExit(f"bench: {dest} is not empty; remove it to extract again")
            extract(program, args.extract, dest)
        return 0
    names = list(SELECTIONS) if args.selection == "both" else [args.selection]
    results = [run_selection(programs, judged, root, s) for s in names]
    print("\n\n".join(report(r) for r in results))
    unjudged = [r for res in results for t in res["programs"].values() for r in t["rows"] if r["verdict"] == "unjudged"]
    if args.json:
        args.json.write_text(json.dumps({r["selection"]: r for r in results}, indent=2) + "\n")
    if args.unjudged:
        args.unjudged.write_text(json.dumps(unjudged, indent=2) + "\n")
    if args.check and unjudged:
        print(f"{len(unjudged)} findings without a verdict", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
