"""``check`` options for CI gates: ``--shard K/N`` (see :mod:`jaxlint.sharding`)."""
from __future__ import annotations

import argparse

from jaxlint.config import ConfigError


def _shard_arg(value: str) -> tuple[int, int]:
    from jaxlint.sharding import parse_shard

    try:
        return parse_shard(value)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


class _Gate:
    def add_arguments(self, p: argparse.ArgumentParser) -> None:
        g = p.add_argument_group("CI")
        g.add_argument("--shard", type=_shard_arg, metavar="K/N",
                       help="check only shard K of N (1-based), a partition by a hash of each file's path; "
                            "combine the shards' reports with `jaxlint merge`")

    def overrides(self, args, o: dict) -> None:
        if getattr(args, "shard", None) and list(args.paths) == ["-"]:
            raise ConfigError("--shard cannot be used when reading from stdin")

    def after_static(self, args, tasks, result, outcomes) -> int | None:
        shard = getattr(args, "shard", None)
        if shard:
            k, n = shard
            result.notes.append(f"Shard {k}/{n}: {len(tasks)} file{'s' if len(tasks) != 1 else ''} checked.")
        return None


EXTENSION = _Gate()
