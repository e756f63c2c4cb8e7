"""Why the static phase parses with ``ast``: parse costs of ``ast`` and libcst.

Times, in one process over the same corpus as ``bench_static.py`` (pinned wheels of
jax, flax, optax, equinox, diffrax and chex):

* ``ast.parse`` of every file;
* ``libcst.parse_module`` of every file;
* libcst's ``PositionProvider`` (line/column metadata, which a libcst-based linter needs
  to report anything) on a sample of the parsed modules, scaled to the corpus.

libcst is the fix engine's parser (a jaxlint dependency, imported only to compute fixes).

    python benchmarks/bench_parsers.py [--sample 150]
"""
from __future__ import annotations

import argparse
import ast
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_static import corpus_files, default_cache_root, ensure_corpus  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sample", type=int, default=150,
                    help="files for the PositionProvider pass (it is slow); 0 = all")
    args = ap.parse_args()
    try:
        import libcst
        from libcst.metadata import MetadataWrapper, PositionProvider
    except ImportError:
        print("libcst is not installed: pip install libcst", file=sys.stderr)
        return 2
    src = ensure_corpus(default_cache_root())
    texts = []
    for f in corpus_files(src):
        try:
            texts.append(f.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError):
            continue
    lines = sum(t.count("\n") for t in texts)

    t0 = time.perf_counter()
    for t in texts:
        ast.parse(t)
    t_ast = time.perf_counter() - t0

    modules = []
    failed = 0
    t0 = time.perf_counter()
    for t in texts:
        try:
            modules.append(libcst.parse_module(t))
        except Exception:  # syntax libcst's parser does not support
            failed += 1
    t_cst = time.perf_counter() - t0

    sample = modules if args.sample == 0 else modules[: args.sample]
    sample_lines = sum(m.code.count("\n") for m in sample)
    t0 = time.perf_counter()
    for m in sample:
        MetadataWrapper(m, unsafe_skip_copy=True).resolve(PositionProvider)
    t_pos_sample = time.perf_counter() - t0
    t_pos = t_pos_sample * lines / max(1, sample_lines)

    print(f"corpus: {len(texts)} files, {lines} lines (libcst could not parse {failed})")
    print(f"ast.parse                      {t_ast:7.2f} s   1.00x")
    print(f"libcst.parse_module            {t_cst:7.2f} s   {t_cst / t_ast:.2f}x ast")
    print(f"libcst PositionProvider (est.) {t_pos:7.2f} s   {t_pos / t_cst:.2f}x the libcst parse "
          f"(measured on {len(sample)} files, {sample_lines} lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
