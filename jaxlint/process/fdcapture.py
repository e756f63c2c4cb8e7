"""Capture what native code writes to file descriptor 2 (XLA's C++ log) while a block
runs, and pass it on. Pure Python, no jax: the compile tier's workers and the recorder
inside a user's program both use it."""
from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from typing import Iterator


@contextlib.contextmanager
def capture_stderr(into: list[str]) -> Iterator[None]:
    """Redirect file descriptor 2 to a temporary file while the block runs; append the
    lines it received to ``into`` and write them to the real stderr afterwards (what
    another thread printed meanwhile passes through too, only later)."""
    try:
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
    try:
        saved = os.dup(2)
    except OSError:  # no descriptor 2: nothing to capture
        yield
        return
    with tempfile.TemporaryFile() as tmp:
        os.dup2(tmp.fileno(), 2)
        try:
            yield
        finally:
            try:
                sys.stderr.flush()
            except (OSError, ValueError):
                pass
            os.dup2(saved, 2)
            os.close(saved)
            tmp.seek(0)
            data = tmp.read()
            if data:
                try:
                    os.write(2, data)
                except OSError:
                    pass
                into.extend(data.decode("utf-8", "replace").splitlines())
