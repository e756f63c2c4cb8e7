"""A cached result is made by code: the same version of jaxlint with other code (a
checkout that moved on, an editable install, a rule pack reinstalled) misses the cache
rather than showing what the old code found."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from jaxlint.files.cache import code_stamp

ROOT = Path(__file__).resolve().parent.parent


def test_the_stamp_follows_the_modules_beside_the_loaded_ones(tmp_path, monkeypatch):
    """The folders of a package's loaded modules count, each module in them (a sibling
    imported only later too); another package's do not."""
    import importlib

    pkg = tmp_path / "stamp_pack"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "rule.py").write_text("X = 1\n")
    (pkg / "sub" / "later.py").write_text("Y = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "stamp_pack.sub.rule", raising=False)
    importlib.import_module("stamp_pack.sub.rule")
    code_stamp.cache_clear()
    first = code_stamp("stamp_pack")
    code_stamp.cache_clear()
    assert code_stamp("stamp_pack") == first  # the same files: the same stamp
    assert code_stamp("stamp_pack") != code_stamp()  # the package's modules count beside jaxlint's
    for name, text in (("rule.py", "X = 22\n"), ("later.py", "Y = 22\n")):
        (pkg / "sub" / name).write_text(text)
        code_stamp.cache_clear()
        changed = code_stamp("stamp_pack")
        assert changed != first, name
        first = changed
    code_stamp.cache_clear()
    for name in [n for n in sys.modules if n.startswith("stamp_pack")]:
        monkeypatch.delitem(sys.modules, name)


def test_a_check_by_changed_code_of_the_same_version_is_not_answered_from_the_cache(tmp_path):
    """A copy of jaxlint and its rules checks a file twice (the second from the cache); the
    copy's JAX102 then words its finding otherwise, and the next check says so."""
    code = tmp_path / "code"
    ignore = shutil.ignore_patterns("__pycache__")
    shutil.copytree(ROOT / "jaxlint", code / "jaxlint", ignore=ignore)
    shutil.copytree(ROOT / "rules", code / "rules", ignore=ignore)
    project = tmp_path / "project"
    project.mkdir()
    (project / "a.py").write_text("import jax\n\n\n@jax.jit\ndef f(x):\n    for i in range(1000):\n"
                                  "        x = x + i\n    return x\n")
    env = {**os.environ, "PYTHONPATH": str(code)}

    def messages() -> list[str]:
        r = subprocess.run([sys.executable, "-m", "jaxlint", "check", "--output-format", "json", "--exit-zero",
                            "--cache-dir", str(tmp_path / "cache"), "a.py"],
                           cwd=project, env=env, capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr
        return [d["message"] for d in json.loads(r.stdout)]

    before = messages()
    assert len(before) == 1 and before[0].startswith("Python loop with 1000 iterations")
    entries = sorted((tmp_path / "cache").rglob("*.json"))
    assert messages() == before and sorted((tmp_path / "cache").rglob("*.json")) == entries  # a hit
    rule = code / "rules" / "static" / "jax102_python_loop_in_jit.py"
    rule.write_text(rule.read_text().replace('f"Python loop with {n} iterations', 'f"A Python loop with {n} iterations'))
    after = messages()
    assert len(after) == 1 and after[0].startswith("A Python loop with 1000 iterations"), after
