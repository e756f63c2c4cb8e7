"""``jaxlint clean``: remove the cache directory."""
from __future__ import annotations

import shutil
from pathlib import Path


def add_parser(sub):
    p = sub.add_parser("clean", help="remove jaxlint's cache directory")
    p.add_argument("--cache-dir", default=None)
    return p


def run(args) -> int:
    from jaxlint.commands.check import default_cache_dir

    d = Path(args.cache_dir) if args.cache_dir else default_cache_dir(None)
    if d.exists() and (d / "CACHEDIR.TAG").exists():
        shutil.rmtree(d, ignore_errors=True)
        print(f"Removed cache at {d}")
    else:
        print(f"No jaxlint cache at {d}")
    return 0
