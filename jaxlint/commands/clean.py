"""``jaxlint clean``: remove the cache directory."""
from __future__ import annotations

import shutil
from pathlib import Path


def add_parser(sub):
    p = sub.add_parser("clean", help="remove jaxlint's cache directory")
    p.add_argument("--cache-dir", default=None)
    return p


def run(args) -> int:
    from jaxlint.config import cache_dir
    from jaxlint.config import ConfigError, find_config_file, load_settings

    try:  # the config's cache-dir; a broken config must not keep the cache from going
        settings = load_settings(find_config_file(Path.cwd()))
    except ConfigError:
        settings = None
    d = cache_dir(args.cache_dir, settings)
    if d.exists() and (d / "CACHEDIR.TAG").exists():
        shutil.rmtree(d, ignore_errors=True)
        print(f"Removed cache at {d}")
    else:
        print(f"No jaxlint cache at {d}")
    return 0
