"""Static-phase benchmark: ``jaxlint check`` against ``ast.parse`` and flake8.

The corpus is real JAX-ecosystem source: pinned wheels from PyPI (jax itself, flax,
optax, equinox, diffrax, chex), checked against pinned sha256 digests and unpacked
once into a cache folder (``$XDG_CACHE_HOME/jaxlint-bench``, else
``~/.cache/jaxlint-bench``) outside any git work tree, so reruns never download and
jaxlint's gitignore handling cannot hide files.

Every jaxlint run is the real CLI in a subprocess (interpreter start-up included), as a
user or pre-commit would pay for it:

* cold:  a fresh, empty ``--cache-dir`` each time;
* warm:  the cache that the cold run filled;
* one file: ``jaxlint check --no-cache FILE`` vs ``flake8 FILE`` on ``ONE_FILE``
  (``optax/contrib/_sam.py``, 283 lines that import jax, so the prefilter cannot skip
  it), as pre-commit and editors run them: the installed commands, no other option, run
  in the package's folder (``optax-0.2.8``) on ``optax/contrib/_sam.py``, whole
  processes, one untimed run each, then best (and median) of 5 (wall and CPU each);
  ``--one-file`` times only this, ``--repeat`` runs each.
* libcst: a check of a corpus file with a planned fix, under ``-X importtime``, must
  import no libcst module (fixes are libcst codemods, loaded only when computed); the
  import cost that saves, and what ``--diff --unsafe-fixes`` on that file costs.

``ast.parse`` is timed in this process over the same bytes (read + parse, no
interpreter start-up): the floor any Python-``ast`` linter stands on.

Targets (docs/performance.md): cold < 0.5x flake8; warm < 3x ast.parse; one file
< 2x flake8; a check imports no libcst. ``--check`` exits 1 when one is missed.

``--scaling`` times instead one generated file with 100 to 5,000 findings (jitted
functions with two findings each, from rules that quote source text), in this process
and through the CLI: the time per finding must stay flat as the file grows (target:
at 5,000 findings < 2x the time per finding at 100).

    python benchmarks/bench_static.py [--repeat 3] [--check] [--json results.json] [--preview]
    python benchmarks/bench_static.py --one-file [--repeat 20]
    python benchmarks/bench_static.py --scaling [--check]
"""
from __future__ import annotations

import argparse
import ast
import hashlib
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from pathlib import Path
from typing import Iterator, NamedTuple

try:
    import resource
except ImportError:  # Windows: wall times only
    resource = None  # type: ignore[assignment]

#: (distribution, version, sha256 of the py3-none-any wheel). Bumping one changes the
#: corpus, so the numbers in docs/performance.md name these versions.
CORPUS = (
    ("jax", "0.10.2", "724d73c4678d8b06f6a6ab4db1b8a2fea8cd4f1e2c2564f99601634ec7b8d1c6"),
    ("flax", "0.12.8", "807931d369cbc716fc447801ab39cd6c3c2614d573387a2319a028675dd34fe5"),
    ("optax", "0.2.8", "e3ca2d36c99daab1800ae9dbc0545034382d6bc780b24d969e1b0df65fa31cb4"),
    ("equinox", "0.13.8", "ca004348533cc30a63ebe8823d7dd4bb626dce17743d40bbddb89b402ef2a240"),
    ("diffrax", "0.7.2", "1beee2f991cd049962fe3c89da28f933753aa66d80bef857533276c9f23301ed"),
    ("chex", "0.1.92", "f34989d9bff7954edfab09fba7757e3d62404da34577bff0d253599ec5b4f93d"),
)

TARGETS = {
    "cold_vs_flake8": 0.5,
    "warm_vs_ast": 3.0,
    "one_file_vs_flake8": 2.0,
}
#: the one file (issue #19): the same file as the whole-process figure in docs/performance.md
ONE_FILE = "optax-0.2.8/optax/contrib/_sam.py"
SCALING_TARGET = 2.0  # time per finding at the largest size / at the smallest
SCALING_FINDINGS = (100, 250, 500, 1000, 2500, 5000)


def default_cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "jaxlint-bench"


# ---------------------------------------------------------------------------- corpus
def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


#: distributions published on PyPI as a source archive only (or, for blind50's, whose pinned
#: release has platform wheels only): their pinned digest is the archive's, and only its Python
#: sources are unpacked, without the archive's top folder
SDIST_ONLY = {"jax-cosmo", "autopdex", "noxton", "openferro"}


def _wheel(wheels: Path, dist: str, version: str, digest: str | None = None) -> Path | None:
    # a wheel's file name spells the distribution with underscores (dm-haiku: dm_haiku-...), and
    # keeps the case its project chose (JaxFin-...): names are compared without case
    names = {dist, dist.replace("-", "_")} if dist in SDIST_ONLY else {dist.replace("-", "_")}
    suffix = ".tar.gz" if dist in SDIST_ONLY else "-"
    hits = sorted(p for p in wheels.iterdir() if p.is_file()
                  and any(p.name.lower().startswith(f"{n}-{version}{suffix}".lower()) for n in names)
                  and (p.name.endswith(".tar.gz") if dist in SDIST_ONLY else p.name.endswith(".whl")))
    if digest is not None:  # a release's wheels for several platforms: the pinned one
        hits = [p for p in hits if _sha256(p) == digest] or hits
    return hits[0] if hits else None


def _sources(archive: Path) -> Iterator[tuple[str, bytes]]:
    """(path inside the distribution, bytes) of each Python source of a wheel or an sdist."""
    if archive.suffix == ".whl":
        with zipfile.ZipFile(archive) as z:
            for name in z.namelist():
                if name.endswith(".py"):
                    yield name, z.read(name)
        return
    with tarfile.open(archive, "r:gz") as t:
        for m in t.getmembers():
            if m.isfile() and m.name.endswith(".py") and "/" in m.name:
                f = t.extractfile(m)
                if f is not None:
                    yield m.name.split("/", 1)[1], f.read()


def ensure_corpus(root: Path, corpus: tuple[tuple[str, str, str], ...] = CORPUS,
                  subtrees: dict[str, str | tuple[str, ...]] | None = None) -> Path:
    """Download (once) and unpack (once) the pinned wheels of ``corpus`` (the speed
    corpus unless told); return the source folder. ``subtrees`` maps a distribution to
    the one folder of its wheel that is unpacked (the rest is not part of the corpus)."""
    wheels = root / "wheels"
    src = root / "src"
    wheels.mkdir(parents=True, exist_ok=True)
    missing = [f"{d}=={v}" for d, v, _ in corpus if _wheel(wheels, d, v) is None]
    if missing:
        print(f"downloading {', '.join(missing)} ...", file=sys.stderr)
        # some pinned releases declare Requires-Python >= 3.12 (blind50's rule of choice takes them):
        # the pin and its digest fix what is fetched, whichever Python runs the benchmark
        binary = [m for m in missing if m.split("==")[0] not in SDIST_ONLY]
        if binary:
            subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary", ":all:",
                            "--ignore-requires-python", "--dest", str(wheels), *binary], check=True)
        sdists = [m for m in missing if m.split("==")[0] in SDIST_ONLY]
        if sdists:  # pip reads an sdist's metadata by running its build backend; the digest is checked after
            subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:",
                            "--ignore-requires-python", "--dest", str(wheels), *sdists], check=True)
    for dist, version, digest in corpus:
        whl = _wheel(wheels, dist, version)
        if whl is None:
            raise SystemExit(f"bench: pip did not fetch a wheel of {dist}=={version}")
        dest = src / f"{dist}-{version}"
        done = dest / ".unpacked"
        if done.exists():
            continue
        actual = _sha256(whl)
        if actual != digest and dist not in SDIST_ONLY:
            # a release with platform wheels as well: pip may take one of those where the pin is the release's
            # pure-Python wheel (the PyPI draws' rule: the newest pure-Python wheel for Python 3.11); fetch that too
            subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary", ":all:",
                            "--ignore-requires-python", "--python-version", "3.11", "--implementation", "py",
                            "--abi", "none", "--platform", "any", "--dest", str(wheels), f"{dist}=={version}"],
                           check=True)
            whl = _wheel(wheels, dist, version, digest) or whl
            actual = _sha256(whl)
        if actual != digest:
            raise SystemExit(f"bench: {whl.name}: sha256 {actual} does not match the pinned {digest}")
        if dest.exists():
            shutil.rmtree(dest)
        keep = (subtrees or {}).get(dist, "")
        for name, data in _sources(whl):
            # only Python sources; never let a member name escape the folder
            if name.startswith(keep) and not name.startswith("/") and ".." not in name.split("/"):
                (dest / name).parent.mkdir(parents=True, exist_ok=True)
                (dest / name).write_bytes(data)
        done.write_text(digest + "\n")
    return src


def corpus_files(src: Path) -> list[Path]:
    return sorted(p for p in src.rglob("*.py") if p.is_file())


# ---------------------------------------------------------------------------- timing
def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("JAXLINT_")}
    # an installed tool runs from byte-compiled modules (pip compiles at install; an
    # editable install writes __pycache__ on first use): do not time recompiling jaxlint
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


class Sample(NamedTuple):
    wall: float  # seconds
    cpu: float  # user + system seconds of the process (and its children), less sensitive to load


def _children_cpu() -> float:
    if resource is None:
        return float("nan")
    r = resource.getrusage(resource.RUSAGE_CHILDREN)  # waited-for children and theirs
    return r.ru_utime + r.ru_stime


def _timed(cmd: list[str], cwd: Path, ok: tuple[int, ...] = (0,)) -> Sample:
    c0, t0 = _children_cpu(), time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=_env())
    wall = time.perf_counter() - t0
    if proc.returncode not in ok:
        raise SystemExit(f"bench: {' '.join(cmd)} exited {proc.returncode}:\n{proc.stderr[-2000:]}")
    return Sample(wall, _children_cpu() - c0)


def time_ast_parse(files: list[Path]) -> Sample:
    t0, c0 = time.perf_counter(), time.process_time()
    for f in files:
        try:
            ast.parse(f.read_bytes(), filename=str(f))
        except (SyntaxError, ValueError):
            pass  # the time to find a file unparsable is still part of the pass
    return Sample(time.perf_counter() - t0, time.process_time() - c0)


def _median(samples: list[Sample]) -> dict[str, float] | None:
    if not samples:
        return None
    return {"wall": statistics.median(x.wall for x in samples), "cpu": statistics.median(x.cpu for x in samples)}


def jaxlint_cmd(target: Path, cache_dir: Path | None, output: Path, preview: bool = False) -> list[str]:
    cmd = [sys.executable, "-m", "jaxlint", "check", "--isolated", "--output-format", "json",
           "-o", str(output), "--exit-zero", *(["--preview"] if preview else [])]
    cmd += ["--cache-dir", str(cache_dir)] if cache_dir is not None else ["--no-cache"]
    return cmd + [str(target)]


def flake8_cmd(target: Path) -> list[str]:
    return [sys.executable, "-m", "flake8", "--isolated", "--exit-zero", str(target)]


def pick_one_file(files: list[Path], lines: dict[Path, int], want: int = 300) -> Path:
    """``ONE_FILE``; without it (another corpus), the file closest to ``want`` lines that
    imports jax (so the prefilter cannot skip it)."""
    for f in files:
        if f.as_posix().endswith("/" + ONE_FILE):
            return f
    candidates = [f for f in files if b"import jax" in f.read_bytes()]
    return min(candidates, key=lambda f: (abs(lines[f] - want), str(f)))


def _tool(name: str) -> list[str]:
    """The installed command ``name`` beside this interpreter (what pre-commit runs), else
    ``python -m name``."""
    exe = Path(sys.executable).parent / name
    return [str(exe)] if exe.is_file() else [sys.executable, "-m", name]


def one_file_cmds(one: Path, src: Path) -> tuple[list[str], list[str], Path]:
    """jaxlint's and flake8's commands on the one file exactly as the docs quote them, and
    the folder they run in: the unpacked package (``optax-0.2.8``), the file named from
    there (``optax/contrib/_sam.py``), as pre-commit runs a hook in its repository. (Run
    from the corpus folder with an absolute path, jaxlint took that folder as the
    project's root: not the command that the whole-process figure times.)"""
    rel = one.relative_to(src)
    cwd = src / rel.parts[0]
    name = str(one.relative_to(cwd))
    return _tool("jaxlint") + ["check", "--no-cache", name], _tool("flake8") + [name], cwd


def time_one_file(one: Path, src: Path, runs: int, use_flake8: bool) -> dict[str, dict[str, float] | None]:
    """The one file, whole processes: each command once untimed (bytecode written, files
    cached), then ``runs`` of each, alternated; best and median of wall and of CPU."""
    j_cmd, f_cmd, cwd = one_file_cmds(one, src)
    one_j, one_f = [], []
    _timed(j_cmd, cwd, ok=(0, 1))  # 1: it has findings
    if use_flake8:
        _timed(f_cmd, cwd, ok=(0, 1))
    for _ in range(runs):
        one_j.append(_timed(j_cmd, cwd, ok=(0, 1)))
        if use_flake8:
            one_f.append(_timed(f_cmd, cwd, ok=(0, 1)))
    return {"one_file_jaxlint": _best(one_j), "one_file_flake8": _best(one_f),
            "one_file_jaxlint_median": _median(one_j), "one_file_flake8_median": _median(one_f)}


def _best(samples: list[Sample]) -> dict[str, float] | None:
    if not samples:
        return None
    return {"wall": min(x.wall for x in samples), "cpu": min(x.cpu for x in samples)}


def _flake8_available() -> bool:
    return subprocess.run([sys.executable, "-m", "flake8", "--version"], capture_output=True,
                          env=_env()).returncode == 0


def run(args: argparse.Namespace) -> dict:
    src = ensure_corpus(args.corpus_dir)
    files = corpus_files(src)
    lines = {f: f.read_bytes().count(b"\n") for f in files}
    total_lines = sum(lines.values())
    with_jax = sum(1 for f in files if b"jax" in f.read_bytes())
    one = pick_one_file(files, lines)
    rep = args.repeat
    res: dict = {
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "platform": platform.platform(),
        },
        "corpus": {"packages": [f"{d}=={v}" for d, v, _ in CORPUS], "files": len(files),
                   "files_mentioning_jax": with_jax, "lines": total_lines},
        "one_file": _one_file_info(one, src, lines, max(5, rep)),
        "repeat": rep,
    }
    print(f"corpus: {len(files)} files, {total_lines} lines ({with_jax} files mention jax)", file=sys.stderr)

    use_flake8 = not args.no_flake8 and _flake8_available()
    res["load_before"] = _load()
    # warm the OS page cache so the first timed pass is not the one that reads the disk
    time_ast_parse(files)
    # The two sides of each ratio alternate, run for run: the machine is shared, and a
    # change in its load during the benchmark then weighs on both sides alike.
    with tempfile.TemporaryDirectory(prefix="jaxlint-bench-") as tmp:
        t = Path(tmp)
        out = t / "out.json"
        pv = args.preview
        _timed(jaxlint_cmd(one, None, out, pv), src)  # untimed: writes __pycache__ where needed
        cold, flake, counts = [], [], []
        for i in range(rep):
            cold.append(_timed(jaxlint_cmd(src, t / f"cache{i}", out, pv), src))  # fresh, empty cache
            counts.append(len(json.loads(out.read_text())))
            if use_flake8 and i < args.flake8_repeat:
                flake.append(_timed(flake8_cmd(src), src))
        warm, parse = [], []
        for _ in range(rep):
            warm.append(_timed(jaxlint_cmd(src, t / "cache0", out, pv), src))
            parse.append(time_ast_parse(files))
        last = json.loads(out.read_text())
        counts.append(len(last))  # the warm runs replay cold run 0
        if len(set(counts)) != 1:
            raise SystemExit(f"bench: the runs disagree ({counts} findings: cold runs, then warm): "
                             "jaxlint or its rules changed during the benchmark; run it again")
        findings = counts[0]
    res["times"] = {
        "ast_parse": _median(parse),
        "jaxlint_cold": _median(cold),
        "jaxlint_warm": _median(warm),
        "flake8": _median(flake),
        **time_one_file(one, src, max(5, rep), use_flake8),
    }
    res["jaxlint_findings"] = findings
    res["jaxlint_rules"] = _rule_count()
    res["libcst"] = libcst_cost(src, last, one, max(5, rep))
    res["load_after"] = _load()
    if args.phases:
        res["phases_cpu_s"] = phase_breakdown(files, args.preview)
    res["ratios"] = ratios(res)
    return res


def libcst_cost(src: Path, findings: list[dict], one: Path, repeat: int) -> dict:
    """What a check without fixing does not pay: libcst (the fix engine's parser) is not
    imported, even for a file with a planned fix; and what computing that fix costs."""
    planned = sorted({d["filename"] for d in findings if d.get("fix")})
    target = Path(planned[0]) if planned else one
    if not target.is_absolute():
        target = src / target
    check = [sys.executable, "-X", "importtime", "-m", "jaxlint", "check", "--isolated", "--no-cache", "--exit-zero",
             str(target)]
    proc = subprocess.run(check, cwd=src, capture_output=True, text=True, env=_env())
    imported = sorted({line.rsplit("|", 1)[-1].strip() for line in proc.stderr.splitlines()
                       if line.startswith("import time:") and "libcst" in line.rsplit("|", 1)[-1]})
    prof = subprocess.run([sys.executable, "-X", "importtime", "-c", "import libcst"], capture_output=True, text=True,
                          env=_env()).stderr
    cumulative = next((int(line.split("|")[1]) for line in prof.splitlines()
                       if line.startswith("import time:") and line.rsplit("|", 1)[-1].strip() == "libcst"), None)
    bare, with_cst, plain, fixing = [], [], [], []
    for _ in range(repeat):
        bare.append(_timed([sys.executable, "-c", "pass"], src))
        with_cst.append(_timed([sys.executable, "-c", "import libcst"], src))
        plain.append(_timed([sys.executable, "-m", "jaxlint", "check", "--isolated", "--no-cache", "--exit-zero",
                             str(target)], src))
        fixing.append(_timed([sys.executable, "-m", "jaxlint", "check", "--isolated", "--no-cache", "--exit-zero",
                              "--diff", "--unsafe-fixes", str(target)], src, ok=(0, 1)))  # 1: a diff
    med = _median
    return {
        "file": target.relative_to(src).as_posix() if target.is_relative_to(src) else str(target),
        "file_has_planned_fix": bool(planned),
        "libcst_modules_imported_by_check": imported,
        "import_libcst_cumulative_ms": round(cumulative / 1000, 1) if cumulative is not None else None,
        "import_libcst_wall_ms": round((med(with_cst)["wall"] - med(bare)["wall"]) * 1000, 1),
        "check_wall_s": round(med(plain)["wall"], 3),
        "check_diff_unsafe_fixes_wall_s": round(med(fixing)["wall"], 3),
    }


def phase_breakdown(files: list[Path], preview: bool = False) -> dict[str, float]:
    """CPU seconds per phase of the static check, in this process and one core: where a
    cold run's time goes. Uses the engine's pieces directly (no cache, no pool).
    ``preview``: the nursery's rules too, as ``check --preview`` runs them."""
    from jaxlint.findings.noqa import parse_suppressions
    from jaxlint.registry import select_rules
    from jaxlint.static.semantic import ModuleModel
    from jaxlint.static.checker import LineIndex, SourceError, StaticContext, decode_source, parse_source

    rules = [cls() for cls in select_rules(None, (), (), ("static",), preview=preview)]
    markers = {m for r in rules for m in type(r).markers}
    cpu = time.process_time
    spent = {"read + decode": 0.0, "parse": 0.0, "model": 0.0, "rules": 0.0, "noqa comments": 0.0}
    per_rule = {r.code: 0.0 for r in rules}
    for f in files:
        t0 = cpu()
        try:
            text = decode_source(f.read_bytes())
        except SourceError:
            continue
        spent["read + decode"] += cpu() - t0
        if markers and not any(m in text for m in markers):
            continue
        t0 = cpu()
        try:
            tree = parse_source(text, str(f))
        except SourceError:
            continue
        spent["parse"] += cpu() - t0
        t0 = cpu()
        model = ModuleModel(tree, f.stem)
        model.nodes()  # the shared walk is part of the model, whoever asks for it first
        spent["model"] += cpu() - t0
        ctx = StaticContext(str(f), text, tree, model, LineIndex(text))
        for rule in rules:
            ctx.rule, ctx.options = type(rule), rule.opts
            t0 = cpu()
            try:
                rule.check(ctx)
            except Exception:  # noqa: BLE001 - a failing rule still spent its time
                pass
            per_rule[rule.code] += cpu() - t0
        if "noqa" in text:
            t0 = cpu()
            parse_suppressions(text)
            spent["noqa comments"] += cpu() - t0
    spent["rules"] = sum(per_rule.values())
    slowest = sorted(per_rule.items(), key=lambda kv: -kv[1])[:5]
    return {**{k: round(v, 2) for k, v in spent.items()},
            "slowest rules": {k: round(v, 2) for k, v in slowest},  # type: ignore[dict-item]
            "every rule": {k: round(v, 3) for k, v in sorted(per_rule.items())}}  # type: ignore[dict-item]


# ---------------------------------------------------------------------------- scaling
#: two findings per jitted function, from rules that quote the source (segments) and
#: from rules that do not; the templates take turns so no one rule dominates
_SCALING_TEMPLATES = (
    ("def f{i}(x, i):", "    y = np.sin(x)", "    x.at[i].set(y)", "    return x"),  # JAX104, JAX110
    ("def f{i}(x):", "    for j in range(100):", "        x = x + j", "    return x @ W"),  # JAX102, JAX101
    ("def f{i}(x):", "    idx = jnp.nonzero(x > 0)", "    return x.sum() + np.log(x)"),  # JAX111, JAX104
)


def scaling_source(functions: int) -> str:
    out = ["import jax", "import jax.numpy as jnp", "import numpy as np", "W = np.ones((1024, 1024))", ""]
    for i in range(functions):
        out += ["@jax.jit", *(line.format(i=i) for line in _SCALING_TEMPLATES[i % len(_SCALING_TEMPLATES)]), ""]
    return "\n".join(out)


def run_scaling(args: argparse.Namespace) -> dict:
    """Per-finding cost of the static phase as the number of findings in one file grows."""
    from jaxlint.registry import select_rules
    from jaxlint.static.runner import lint_static

    rules = [cls() for cls in select_rules(None, (), (), ("static",))]
    rows = []
    with tempfile.TemporaryDirectory(prefix="jaxlint-scaling-") as tmp:
        for want in SCALING_FINDINGS:
            text = scaling_source(want // 2)
            lint_static("scaling.py", rules, text=text)  # warm this process's caches
            cpu = []
            for _ in range(args.repeat):
                c0 = time.process_time()
                _, kept = lint_static("scaling.py", rules, text=text)
                cpu.append(time.process_time() - c0)
            if len(kept) != want:
                raise SystemExit(f"bench: the scaling file of {want // 2} functions gave {len(kept)} findings, "
                                 f"not {want}: the rules changed; adjust _SCALING_TEMPLATES")
            f = Path(tmp) / f"scaling_{want}.py"
            f.write_text(text)
            out = Path(tmp) / "out.json"
            cli = statistics.median(_timed(jaxlint_cmd(f, None, out), Path(tmp)).wall for _ in range(args.repeat))
            in_process = statistics.median(cpu)
            rows.append({"findings": want, "lines": text.count("\n") + 1, "in_process_cpu_s": in_process,
                         "cli_wall_s": cli, "us_per_finding": in_process / want * 1e6,
                         "cli_us_per_finding": cli / want * 1e6})
            print(f"{want:>6} findings: {in_process:.3f} s in-process, {cli:.3f} s CLI", file=sys.stderr)
    ratio = rows[-1]["us_per_finding"] / rows[0]["us_per_finding"]
    return {"machine": {"cpus": os.cpu_count(), "python": platform.python_version()}, "repeat": args.repeat,
            "load": _load(), "rows": rows, "ratio": ratio}


def scaling_report(res: dict) -> str:
    out = [f"median of {res['repeat']} runs; load average {res['load']}",
           f"{'findings':>9}{'lines':>9}{'in-process s':>14}{'µs/finding':>12}{'CLI s':>9}{'µs/finding':>12}"]
    for r in res["rows"]:
        out.append(f"{r['findings']:>9,}{r['lines']:>9,}{r['in_process_cpu_s']:>14.3f}{r['us_per_finding']:>12.0f}"
                   f"{r['cli_wall_s']:>9.3f}{r['cli_us_per_finding']:>12.0f}")
    first, last = res["rows"][0]["findings"], res["rows"][-1]["findings"]
    ok = "yes" if res["ratio"] < SCALING_TARGET else "NO"
    out.append(f"time per finding at {last:,} / at {first:,}: {res['ratio']:.2f} (target < {SCALING_TARGET}) {ok}")
    return "\n".join(out)


def _load() -> list[float] | None:
    """The 1/5/15-minute load averages: how busy the (shared) machine was."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (AttributeError, OSError):
        return None


def _rule_count() -> int:
    out = subprocess.run([sys.executable, "-m", "jaxlint", "rule", "--all", "--output-format", "json"],
                         capture_output=True, text=True, env=_env())
    try:
        return sum(1 for r in json.loads(out.stdout) if r.get("phase") == "static" and r.get("default_enabled"))
    except (ValueError, AttributeError, TypeError):
        return -1


def ratios(res: dict) -> dict:
    """Wall-time ratios (what the targets are about)."""
    t = {k: v["wall"] if v else None for k, v in res["times"].items()}
    r = {"warm_vs_ast": t["jaxlint_warm"] / t["ast_parse"], "cold_vs_ast": t["jaxlint_cold"] / t["ast_parse"]}
    if t["flake8"]:
        r["cold_vs_flake8"] = t["jaxlint_cold"] / t["flake8"]
        r["one_file_vs_flake8"] = t["one_file_jaxlint"] / t["one_file_flake8"]
    return r


def report(res: dict) -> str:
    n = res["corpus"]["lines"]
    t = res["times"]
    rows = [
        ("ast.parse (in-process)", t["ast_parse"]),
        ("jaxlint check, cold", t["jaxlint_cold"]),
        ("jaxlint check, warm", t["jaxlint_warm"]),
        ("flake8", t["flake8"]),
    ]
    out = [
        f"machine: {res['machine']['cpus']} CPUs, Python {res['machine']['python']}, {res['machine']['platform']}",
        f"corpus: {', '.join(res['corpus']['packages'])}",
        f"        {res['corpus']['files']} files ({res['corpus']['files_mentioning_jax']} mention jax), "
        f"{n} lines; jaxlint: {res['jaxlint_rules']} static rules, {res['jaxlint_findings']} findings",
        f"median of {res['repeat']} runs; load average before {res['load_before']}, after {res['load_after']}",
        "",
        f"{'pass':<26}{'wall s':>10}{'lines/s':>12}{'CPU s':>10}",
    ]
    for name, m in rows:
        if m is None:
            out.append(f"{name:<26}{'skipped':>10}")
        else:
            out.append(f"{name:<26}{m['wall']:>10.2f}{n / m['wall']:>12,.0f}{m['cpu']:>10.2f}")
    out += one_file_report(res)
    cst = res.get("libcst")
    if cst:
        out += ["", f"libcst (fixes only): a check of {cst['file']} imports "
                    f"{', '.join(cst['libcst_modules_imported_by_check']) or 'no libcst module'}"
                    f"{' (the file has a planned fix)' if cst['file_has_planned_fix'] else ''}; importing libcst costs "
                    f"{cst['import_libcst_wall_ms']:.0f} ms wall "
                    f"({cst['import_libcst_cumulative_ms']} ms by -X importtime)",
                f"{'check':<26}{cst['check_wall_s']:>10.3f}",
                f"{'check --diff --unsafe-fixes':<26}{cst['check_diff_unsafe_fixes_wall_s']:>10.3f}"]
    if res.get("phases_cpu_s"):
        out += ["", "one process, CPU seconds per phase (files passing the prefilter)"]
        for k, v in res["phases_cpu_s"].items():
            out.append(f"{k:<26}{v:>10.2f}" if not isinstance(v, dict)
                       else f"{k:<26}" + ", ".join(f"{c} {t:.2f}" for c, t in v.items()))
    out += ["", f"{'ratio':<26}{'value':>10}{'target':>12}  ok"]
    for key, value in res["ratios"].items():
        target = TARGETS.get(key)
        if target is None:
            out.append(f"{key:<26}{value:>10.2f}")
        else:
            out.append(f"{key:<26}{value:>10.2f}{'< ' + str(target):>12}  {'yes' if value < target else 'NO'}")
    return "\n".join(out)


def one_file_report(res: dict) -> list[str]:
    t, one = res["times"], res["one_file"]
    out = ["", f"one file: {one['path']} ({one['lines']} lines), whole processes, run in {one['cwd']}: "
               f"best of {one['runs']} (median)"]
    for name, key in (("jaxlint check --no-cache", "one_file_jaxlint"), ("flake8", "one_file_flake8")):
        m, med = t.get(key), t.get(key + "_median")
        if m is not None and med is not None:
            out.append(f"{name:<26}{m['wall']:>10.3f}{'(' + format(med['wall'], '.3f') + ')':>12}"
                       f"{m['cpu']:>10.3f}{'(' + format(med['cpu'], '.3f') + ')':>10}")
    return out


def run_one_file(args: argparse.Namespace) -> dict:
    """Only the one file (``--one-file``): ``--repeat`` runs of each command, at least 5."""
    src = ensure_corpus(args.corpus_dir)
    files = corpus_files(src)
    lines = {f: f.read_bytes().count(b"\n") for f in files}
    one = pick_one_file(files, lines)
    runs = max(5, args.repeat)
    use_flake8 = not args.no_flake8 and _flake8_available()
    res: dict = {"one_file": _one_file_info(one, src, lines, runs), "repeat": args.repeat, "load_before": _load()}
    res["times"] = time_one_file(one, src, runs, use_flake8)
    res["load_after"] = _load()
    t = res["times"]
    if t["one_file_jaxlint"] and t["one_file_flake8"]:
        res["ratios"] = {"one_file_vs_flake8": t["one_file_jaxlint"]["wall"] / t["one_file_flake8"]["wall"]}
    else:
        res["ratios"] = {}
    return res


def _one_file_info(one: Path, src: Path, lines: dict[Path, int], runs: int) -> dict:
    *_, cwd = one_file_cmds(one, src)
    return {"path": one.relative_to(src).as_posix(), "lines": lines[one], "cwd": cwd.relative_to(src).as_posix(),
            "runs": runs}


def missed_targets(res: dict) -> list[str]:
    missed = [k for k, t in TARGETS.items() if k in res["ratios"] and not res["ratios"][k] < t]
    if (res.get("libcst") or {}).get("libcst_modules_imported_by_check"):
        missed.append("check_without_libcst")
    return missed


def main(argv: list[str] | None = None) -> int:
    from jaxlint.inspect.levels import hand_rules

    hand_rules()  # the engine's pieces run in this process too (phase_breakdown, run_scaling)
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--corpus-dir", type=Path, default=default_cache_root(),
                   help="where the wheels and their sources are kept (default: %(default)s)")
    p.add_argument("--repeat", type=int, default=3, help="runs per measurement; the median is reported")
    p.add_argument("--flake8-repeat", type=int, default=1, help="flake8 corpus runs (each takes ~30 s on 2 cores)")
    p.add_argument("--no-flake8", action="store_true", help="skip the flake8 comparison")
    p.add_argument("--phases", action="store_true",
                   help="also time each phase (parse, model, rules, noqa) in one process")
    p.add_argument("--preview", action="store_true",
                   help="check with --preview (the nursery's rules too), in the CLI runs and --phases")
    p.add_argument("--json", type=Path, help="also write the results here")
    p.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    p.add_argument("--one-file", action="store_true",
                   help="time only the one file against flake8 (--repeat runs each, at least 5)")
    p.add_argument("--scaling", action="store_true",
                   help="time one generated file with 100 to 5,000 findings instead of the corpus")
    args = p.parse_args(argv)
    if args.scaling:
        res = run_scaling(args)
        print(scaling_report(res))
        if args.json:
            args.json.write_text(json.dumps(res, indent=2) + "\n")
        return 1 if args.check and not res["ratio"] < SCALING_TARGET else 0
    if args.one_file:
        res = run_one_file(args)
        print(f"load average before {res['load_before']}, after {res['load_after']}"
              + "\n".join(one_file_report(res)))
        for key, value in res["ratios"].items():
            print(f"{key:<26}{value:>10.2f}{'< ' + str(TARGETS[key]):>12}  {'yes' if value < TARGETS[key] else 'NO'}")
        if args.json:
            args.json.write_text(json.dumps(res, indent=2) + "\n")
        return 1 if args.check and missed_targets(res) else 0
    res = run(args)
    print(report(res))
    if args.json:
        args.json.write_text(json.dumps(res, indent=2) + "\n")
    missed = missed_targets(res)
    if missed and args.check:
        print(f"missed targets: {', '.join(missed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
