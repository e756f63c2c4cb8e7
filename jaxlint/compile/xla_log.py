"""What XLA's C++ log prints while compiling: captured, kept, and read.

The SPMD partitioner's "Involuntary full rematerialization" warning exists only in the
C++ log on stderr (level E on jax 0.4.38, W on 0.10.2, worded differently), and a hit
in jax's persistent compilation cache does not print it again. So the compile tier
captures file descriptor 2 around a compile (:func:`jaxlint.process.fdcapture.capture_stderr`,
passing what it read on to the real stderr), keeps the lines it cares about in jaxlint's own cache
keyed by the optimized program (:class:`LogStore`), and gives them back on a later
compile of the same program that printed nothing.

Pure Python: never imports jax.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path


#: lines of the C++ log worth keeping (and reporting)
KEEP = re.compile(r"Involuntary full rematerialization", re.I)


def kept(lines: list[str]) -> list[str]:
    """The lines of a compile's log that jaxlint keeps (the partitioner's warnings)."""
    return [ln.strip() for ln in lines if KEEP.search(ln)]


_META_RE = re.compile(r"metadata=\{[^{}]*\}")
_FRAMES_RE = re.compile(r"^(FileNames|FunctionNames|FileLocations|StackFrames)\n(?:.*\n)*?\n", re.M)


def program_key(hlo_text: str, *context: str) -> str:
    """A key for an optimized program that survives a persistent-cache hit: its text
    without metadata and stack-frame tables (jax 0.10 renumbers frames on a hit)."""
    text = _FRAMES_RE.sub("", _META_RE.sub("", hlo_text))
    h = hashlib.sha256(text.encode("utf-8", "replace"))
    for c in context:
        h.update(b"\0" + c.encode("utf-8", "replace"))
    return h.hexdigest()[:32]


class LogStore:
    """jaxlint's own record of what compiles printed, one small JSON file per program."""

    def __init__(self, folder: str | os.PathLike) -> None:
        self.folder = Path(folder)

    def get(self, key: str) -> list[str] | None:
        try:
            data = json.loads((self.folder / f"{key}.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        lines = data.get("lines") if isinstance(data, dict) else None
        return [str(x) for x in lines] if isinstance(lines, list) else None

    def put(self, key: str, lines: list[str]) -> None:
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            tmp = self.folder / f".{key}.{os.getpid()}.tmp"
            tmp.write_text(json.dumps({"lines": lines}), encoding="utf-8")
            os.replace(tmp, self.folder / f"{key}.json")
        except OSError:  # a read-only cache: the finding is still made this time
            pass


@dataclass(frozen=True)
class Remat:
    """One "Involuntary full rematerialization" warning, read."""

    text: str
    source: str  # the sharding XLA could not reshard from
    target: str  # ... to
    instruction: str  # the HLO instruction's name in the warning
    op_name: str
    source_file: str = ""
    source_line: int = 0
    stack_frame_id: int = 0
    shape: str = ""


_FROM_TO = re.compile(r"from sharding \{(?P<src>.*?)\} to \{(?P<dst>.*?)\}")
_OP = re.compile(r"HLO operation:? %?(?P<name>[\w.\-]+) = (?P<shape>[^ ]+)")
_OPNAME = re.compile(r'op_name="(?P<v>(?:[^"\\]|\\.)*)"')
_SRC_FILE = re.compile(r'source_file="(?P<v>(?:[^"\\]|\\.)*)"')
_SRC_LINE = re.compile(r"source_line=(?P<v>\d+)")
_FRAME = re.compile(r"stack_frame_id=(?P<v>\d+)")


def parse_remat(line: str) -> Remat | None:
    """The parts of a partitioner warning (both wordings) that place it."""
    if not KEEP.search(line):
        return None
    ft = _FROM_TO.search(line)
    op = _OP.search(line)
    name = _OPNAME.search(line)
    sf, sl, fr = _SRC_FILE.search(line), _SRC_LINE.search(line), _FRAME.search(line)
    return Remat(
        text=line, source=ft.group("src") if ft else "", target=ft.group("dst") if ft else "",
        instruction=op.group("name") if op else "", op_name=name.group("v") if name else "",
        source_file=sf.group("v") if sf else "", source_line=int(sl.group("v")) if sl else 0,
        stack_frame_id=int(fr.group("v")) if fr else 0, shape=op.group("shape").split("{")[0] if op else "")
