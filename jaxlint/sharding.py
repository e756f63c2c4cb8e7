"""A deterministic partition of the checked files into N shards, for CI matrices.

File ``f`` belongs to shard ``int(sha256(f), 16) % N + 1``, where ``f`` is the file's
display path (posix, relative to the working directory, as jaxlint prints it) encoded
as UTF-8. The shard of a file depends on its path and on N only: not on the order the
files were found or passed in, not on which other files exist, not on the machine or
Python's hash seed. So every runner of a matrix that starts in the same directory
computes the same partition, each file lands in exactly one shard, and adding a file
never moves another one. The price is that shards are balanced only statistically.
"""
from __future__ import annotations

import hashlib
from typing import Sequence, TypeVar

T = TypeVar("T")


def parse_shard(spec: str) -> tuple[int, int]:
    """``"K/N"`` (1-based K) -> ``(K, N)``; ValueError with a readable message otherwise."""
    k, sep, n = str(spec).partition("/")
    try:
        if not sep:
            raise ValueError
        ki, ni = int(k), int(n)
    except ValueError:
        raise ValueError(f"expected K/N such as 1/4, got `{spec}`") from None
    if ni < 1 or not 1 <= ki <= ni:
        raise ValueError(f"K/N needs 1 <= K <= N, got `{spec}`")
    return ki, ni


def shard_of(display: str, n: int) -> int:
    """The 1-based shard of the file shown as ``display`` among ``n`` shards."""
    key = display.replace("\\", "/")
    while key.startswith("./"):
        key = key[2:]
    return int(hashlib.sha256(key.encode("utf-8", "surrogateescape")).hexdigest(), 16) % n + 1


def select_shard(tasks: Sequence[T], shard: str | tuple[int, int]) -> list[T]:
    """The tasks (anything with a ``display`` path) of shard ``K/N``, in their given order."""
    k, n = parse_shard(shard) if isinstance(shard, str) else shard
    return [t for t in tasks if shard_of(t.display, n) == k]  # type: ignore[attr-defined]
