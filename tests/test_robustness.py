"""Hostile input never crashes or hangs the static phase.

Every bad file gets a JAX100 finding (or, for a directory loop, a warning), a good file
in the same run still gets its findings, the exit code is 0/1, no traceback is printed,
and every run is bounded by a subprocess timeout.

Unreadable files: tests run as root here, and root reads a ``chmod 000`` file, so the
"cannot be read" cases are made with things root cannot read either: a FIFO named
``*.py`` (reading it would block forever), a dangling symlink and a symlink to itself.
The ``chmod 000`` case runs too where permissions hold for the tests (not root, or root
without CAP_DAC_OVERRIDE: ``setpriv --bounding-set=-dac_override,-dac_read_search``).
"""
from __future__ import annotations

import json
import os
import sys
import textwrap
from pathlib import Path

import pytest

from helpers import permissions_bypassed, run_cli

GOOD = textwrap.dedent(
    """
    import jax
    import numpy as np
    W = np.zeros((4096, 4096))

    @jax.jit
    def f(x):
        return x @ W
    """
).lstrip()
GOOD_FINDING = ("good.py", "JAX101", 7)

needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
needs_symlinks = pytest.mark.skipif(sys.platform == "win32", reason="symlinks need privileges on Windows")


def check(folder: Path, *paths: str, timeout: float = 120):
    """Run ``jaxlint check`` on ``folder`` (beside a good file); return (rc, findings by
    file as (code, row, message) lists, stderr)."""
    (folder / "good.py").write_text(GOOD)
    proc = run_cli("check", "--no-cache", "--isolated", "--output-format", "json", *(paths or (".",)),
                   cwd=folder, timeout=timeout)
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode in (0, 1), proc.stderr
    by_file: dict[str, list[tuple[str, int, str]]] = {}
    for f in json.loads(proc.stdout):
        by_file.setdefault(f["filename"], []).append((f["code"], f["location"]["row"], f["message"]))
    good = by_file.get(GOOD_FINDING[0], [])
    assert [(c, r) for c, r, _ in good] == [GOOD_FINDING[1:]], "the good file lost its finding"
    return proc.returncode, by_file, proc.stderr


def only_finding(by_file, name: str) -> tuple[str, int, str]:
    assert len(by_file.get(name, [])) == 1, by_file
    return by_file[name][0]


def test_syntax_error_is_a_finding_at_its_line(tmp_path):
    (tmp_path / "broken.py").write_text("import jax\n\ndef f(x:\n    return x\n")
    _, by_file, _ = check(tmp_path)
    code, row, message = only_finding(by_file, "broken.py")
    assert (code, row) == ("JAX100", 3)
    assert "syntax error" in message


def test_bytes_invalid_in_utf8_are_a_finding_naming_the_byte(tmp_path):
    (tmp_path / "latin.py").write_bytes(b"import jax\nname = 'caf\xe9'\n")
    _, by_file, _ = check(tmp_path)
    code, row, message = only_finding(by_file, "latin.py")
    assert (code, row) == ("JAX100", 2)
    assert "0xe9" in message


def test_a_coding_cookie_is_honoured(tmp_path):
    src = "# -*- coding: latin-1 -*-\n" + GOOD.replace("import numpy as np", "import numpy as np  # caf\xe9")
    (tmp_path / "cookie.py").write_bytes(src.encode("latin-1"))
    _, by_file, _ = check(tmp_path)
    code, row, _ = only_finding(by_file, "cookie.py")
    assert (code, row) == ("JAX101", 8)


def test_nul_byte_is_a_finding(tmp_path):
    (tmp_path / "nul.py").write_bytes(b"import jax\nx = 1\x00\n")
    _, by_file, _ = check(tmp_path)
    code, row, message = only_finding(by_file, "nul.py")
    assert (code, row) == ("JAX100", 2)
    assert "NUL" in message


def test_empty_file_has_no_finding(tmp_path):
    (tmp_path / "empty.py").write_bytes(b"")
    (tmp_path / "blank_init").mkdir()
    (tmp_path / "blank_init" / "__init__.py").write_bytes(b"\n\n")
    _, by_file, _ = check(tmp_path)
    assert set(by_file) == {"good.py"}


def test_50k_line_file_is_checked_in_bounded_time(tmp_path):
    chunk = textwrap.dedent(
        """
        @jax.jit
        def step_{i}(params, x):
            for layer in params:
                x = jnp.tanh(x @ layer["w"] + layer["b"])
            return helper_{j}(x) if x.ndim == 2 else x


        def helper_{i}(x):
            return jnp.sum(x * {i})

        """
    )
    parts = ["import jax\nimport jax.numpy as jnp\nimport numpy as np\n\n"]
    i = 0
    while sum(p.count("\n") for p in parts) < 50_000:
        parts.append(chunk.format(i=i, j=max(i - 1, 0)))
        i += 1
    # one finding at the very end proves the whole file was analysed
    tail = "TABLE = np.ones((2048, 2048))\n\n@jax.jit\ndef last(x):\n    return x + TABLE\n"
    text = "".join(parts) + tail
    (tmp_path / "big.py").write_text(text)
    _, by_file, _ = check(tmp_path, timeout=300)
    code, row, _ = only_finding(by_file, "big.py")
    assert (code, row) == ("JAX101", text.count("\n"))


def test_5000_nested_parentheses_are_a_finding(tmp_path):
    (tmp_path / "parens.py").write_text("import jax\nx = " + "(" * 5000 + "1" + ")" * 5000 + "\n")
    _, by_file, _ = check(tmp_path)
    code, row, message = only_finding(by_file, "parens.py")
    assert (code, row) == ("JAX100", 2)
    assert "nested parentheses" in message


def test_100k_term_sum_is_a_finding_or_analysed_where_it_parses(tmp_path):
    src = "import jax\nx = " + " + ".join(["1"] * 100_000) + "\n"
    (tmp_path / "longsum.py").write_text(src)
    _, by_file, stderr = check(tmp_path)
    try:  # Python 3.11+ refuses this nesting; 3.10's parser accepts it
        import ast

        ast.parse(src)
        parses = True
    except (RecursionError, MemoryError, SyntaxError):
        parses = False
    if parses:
        assert by_file.get("longsum.py", []) == [] and "failed" not in stderr, (by_file, stderr)
        return
    code, _, message = only_finding(by_file, "longsum.py")
    assert code == "JAX100"
    assert "too deep" in message


def test_nesting_that_parses_is_also_analysed(tmp_path):
    # just under what ast.parse accepts: every rule must finish without a recursion error
    deep_sum = " + ".join(["x"] * 990)
    deep_attr = "x" + ".real" * 990
    src = GOOD.replace("return x @ W", f"y = {deep_sum} + {deep_attr}\n    return y @ W")
    (tmp_path / "deep.py").write_text(src)
    rc, by_file, stderr = check(tmp_path)
    assert "failed" not in stderr
    code, _, _ = only_finding(by_file, "deep.py")
    assert code == "JAX101"


@needs_symlinks
def test_directory_symlink_loop_is_skipped_with_a_warning(tmp_path):
    (tmp_path / "pkg" / "sub").mkdir(parents=True)
    (tmp_path / "pkg" / "sub" / "mod.py").write_text(GOOD)
    (tmp_path / "pkg" / "sub" / "back").symlink_to(tmp_path / "pkg", target_is_directory=True)
    _, by_file, stderr = check(tmp_path)
    assert "symlink loop" in stderr
    assert [c for c, _, _ in by_file["pkg/sub/mod.py"]] == ["JAX101"]


@needs_symlinks
@pytest.mark.parametrize("target", ["nowhere.py", "link.py"], ids=["dangling", "to-itself"])
def test_symlink_that_cannot_be_followed_is_a_finding(tmp_path, target):
    (tmp_path / "link.py").symlink_to(tmp_path / target)
    _, by_file, _ = check(tmp_path)
    code, _, message = only_finding(by_file, "link.py")
    assert code == "JAX100"
    assert "cannot read file" in message


@needs_fifo
def test_fifo_named_like_a_python_file_is_a_finding_not_a_hang(tmp_path):
    os.mkfifo(tmp_path / "pipe.py")
    _, by_file, _ = check(tmp_path, timeout=600)
    code, _, message = only_finding(by_file, "pipe.py")
    assert code == "JAX100"
    assert "not a regular file" in message


@needs_fifo
def test_fifo_passed_explicitly_is_a_finding_not_a_hang(tmp_path):
    os.mkfifo(tmp_path / "pipe.py")
    _, by_file, _ = check(tmp_path, "pipe.py", "good.py", timeout=600)
    assert only_finding(by_file, "pipe.py")[0] == "JAX100"


def test_directory_named_like_a_python_file_is_walked(tmp_path):
    (tmp_path / "odd.py").mkdir()
    (tmp_path / "odd.py" / "inner.py").write_text(GOOD)
    _, by_file, _ = check(tmp_path)
    assert [c for c, _, _ in by_file["odd.py/inner.py"]] == ["JAX101"]


@pytest.mark.skipif(permissions_bypassed(), reason="this process reads chmod 000 files (root)")
def test_file_without_read_permission_is_a_finding(tmp_path):
    locked = tmp_path / "locked.py"
    locked.write_text(GOOD)
    locked.chmod(0)
    try:
        _, by_file, _ = check(tmp_path)
    finally:
        locked.chmod(0o644)
    code, _, message = only_finding(by_file, "locked.py")
    assert code == "JAX100"
    assert "Permission denied" in message


@needs_fifo
def test_all_hostile_files_together_through_the_process_pool(tmp_path):
    files = {
        "broken.py": b"import jax\ndef f(:\n",
        "latin.py": b"import jax\nx = '\xff'\n",
        "nul.py": b"import jax\n\x00\n",
        "empty.py": b"",
        "parens.py": b"import jax\nx = " + b"(" * 5000 + b")" * 5000 + b"\n",
    }
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    for i in range(12):  # with the files above, past the pool threshold
        (tmp_path / f"plain_{i}.py").write_text(f"import jax\n\ny = jax.numpy.ones({i})\n")
    os.mkfifo(tmp_path / "pipe.py")
    (tmp_path / "gone.py").symlink_to(tmp_path / "nowhere.py")
    rc, by_file, _ = check(tmp_path, timeout=600)
    assert rc == 1
    hostile = {"broken.py", "latin.py", "nul.py", "parens.py", "pipe.py", "gone.py"}
    assert {name for name, f in by_file.items() if [c for c, _, _ in f] == ["JAX100"]} == hostile
