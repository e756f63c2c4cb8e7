"""A hang is reported at a stable line of the user's file: the same line run after run
(a hung worker is stopped at an arbitrary moment, so its innermost line is chance),
never a frame of the interpreter such as ``<frozen runpy>``. Three real runs."""
from __future__ import annotations

import os
import json
import textwrap

import pytest

from helpers import run_cli
from jaxlint.dynamic.pool import outermost_loop, stack_line

FILES = {
    # exponential recursion at import: deeper than the 100 frames faulthandler prints
    "recursion_at_import.py": """
        import jax


        def walk(n):
            if n <= 0:
                return 0
            return walk(n - 1) + walk(n - 2)


        TOTAL = walk(150)

        @jax.jit  # jaxlint: args=(f32[4],)
        def f(x):
            return x
    """,
    # a loop of several lines in a traced function: the worker stops on any of them
    "loop_in_trace.py": """
        import jax

        @jax.jit  # jaxlint: args=(f32[4],)
        def spins(x):
            i = 0
            while i >= 0:
                i += 1
                i -= 1 if i > 10**9 else 0
            return x
    """,
}
EXPECTED = {"recursion_at_import.py": 7, "loop_in_trace.py": 6}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("hang_lines")
    (root / "pyproject.toml").write_text("[tool.jaxlint]\n[tool.jaxlint.dynamic]\nenabled = true\nimport-scripts = true\n"
                                         "function-timeout = 8\nfile-timeout = 24\nworkers = 2\n")
    for name, src in FILES.items():
        (root / name).write_text(textwrap.dedent(src).lstrip("\n"))
    out = []
    for _ in range(3):
        proc = run_cli("check", "--no-cache", "--output-format", "json", "--select", "JAX2", ".", cwd=root,
                       timeout=300)
        assert proc.returncode == 1, proc.stderr
        out.append({(d["filename"], d["location"]["row"]) for d in json.loads(proc.stdout) if d["code"] == "JAX200"})
    return out


def test_a_hang_is_reported_at_the_same_line_of_the_users_file_every_run(runs):
    assert runs[0] == runs[1] == runs[2], runs
    assert runs[0] == set(EXPECTED.items())


def test_interpreter_frames_are_never_the_users_line(tmp_path):
    user = tmp_path / "m.py"
    user.write_text("import time\n\ntime.sleep(100)\n")
    log = ("Stack (most recent call first):\n"
           f'  File "{user}", line 3 in <module>\n'
           '  File "<frozen importlib._bootstrap>", line 241 in _call_with_frames_removed\n'
           '  File "<frozen runpy>", line 88 in _run_code\n')
    other = tmp_path / "other.py"  # a file of the project, not the one being checked
    assert stack_line(log, str(other), [str(tmp_path)], stopped=True) == (str(user), 3)
    assert stack_line(log.replace(str(user), "<string>"), str(other), [str(tmp_path)], stopped=True) is None


def test_only_the_last_stack_of_the_log_counts(tmp_path):
    f = tmp_path / "m.py"
    f.write_text("a = 1\nb = 2\nc = 3\n")
    log = (f'Stack (most recent call first):\n  File "{f}", line 1 in <module>\n'
           f'Stack (most recent call first):\n  File "{f}", line 3 in <module>\n')
    assert stack_line(log, str(f), [str(tmp_path)]) == (str(f), 3)


def test_a_line_in_a_loop_moves_to_the_outermost_loop_of_its_function(tmp_path):
    f = tmp_path / "m.py"
    f.write_text(textwrap.dedent("""
        for i in range(3):
            def g():
                x = 0
                while x < 9:
                    for k in range(2):
                        x += k
                return x
            y = g()
    """).lstrip())
    assert [outermost_loop(str(f), n) for n in range(1, 9)] == [1, 2, 3, 4, 4, 4, 7, 1]


def test_jaxlints_own_frames_are_never_the_users_line_even_inside_the_project():
    """Checking jaxlint's own checkout (its examples/): the worker's frames in
    jaxlint/inspect/levels.py lie under the project root, and are still not the user's."""
    import jaxlint.inspect.levels as levels

    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(levels.__file__))))
    example = os.path.join(root, "examples", "captured_weights.py")
    log = ("Stack (most recent call first):\n"
           f'  File "{levels.__file__}", line 37 in <module>\n'
           '  File "<frozen runpy>", line 88 in _run_code\n')
    assert stack_line(log, example, [root], stopped=True) is None
