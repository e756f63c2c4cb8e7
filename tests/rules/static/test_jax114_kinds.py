"""JAX114's finding kinds (docs/rules/JAX114.md, "Finding kinds"): what the on-by-default
kind claims holds under real jax, and the default selection takes only the kinds whose
group is on (the real CLI, in a subprocess)."""
from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
FIXTURES = ROOT / "tests" / "fixtures" / "rules" / "JAX114"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"jax114_{name}", FIXTURES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_same_numbers_kind_draws_the_same_numbers_under_real_jax():
    """Every function of the `same-numbers` fixture, run with jax's default PRNG (threefry,
    partitionable in jax 0.10): the two uses give the same numbers, index for index."""
    import jax
    import jax.numpy as jnp

    m = _load("invalid_kind_same_numbers")
    key = jax.random.key(3)
    x, y = m.start_tile(key, 7, 7)
    assert int(x) == int(y)  # the start tile always on the diagonal
    a, b, c = m.two_batches(key)
    assert (jax.random.key_data(a[0]) == jax.random.key_data(b)).all()
    assert (jax.random.key_data(a[1]) == jax.random.key_data(c)).all()
    actor, critic = m.heads(key)
    assert jnp.array_equal(actor.weight[:1], critic.weight)  # the critic starts as the actor's first row
    short, long = m.noise(key, [(3,), (5,)])
    assert jnp.array_equal(short, long[:3])
    blocks = m.blocks(key, 3)
    assert all(jnp.array_equal(b.weight, blocks[0].weight) for b in blocks)


def _rows(tmp: Path, *args: str) -> list[tuple[str, int, str]]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    r = subprocess.run([sys.executable, "-m", "jaxlint", "check", "--isolated", "--no-cache", "--output-format",
                        "json", "--exit-zero", *args, "."], cwd=tmp, env=env, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    return sorted((d["filename"].replace("\\", "/").removeprefix("./"), d["location"]["row"],
                   d["data"]["kind"]) for d in json.loads(r.stdout))


def test_the_default_selection_takes_the_kinds_whose_group_is_on(tmp_path):
    for name in ("invalid_kind_same_numbers", "invalid_kind_different_draws", "invalid_kind_drawn_then_split"):
        (tmp_path / f"{name}.py").write_text((FIXTURES / f"{name}.py").read_text().replace("  # expect: JAX114", ""))
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "helpers.py").write_text((FIXTURES / "invalid_kind_different_draws.py").read_text())
    every = _rows(tmp_path, "--select", "JAX114")
    kinds = {kind for _, _, kind in every}
    assert kinds == {"same-numbers", "different-draws", "drawn-then-split", "test-or-demo"}
    assert [r for r in every if r[0].startswith("tests/")] == [("tests/helpers.py", 8, "test-or-demo"),
                                                              ("tests/helpers.py", 14, "test-or-demo")]
    default = _rows(tmp_path)
    assert default == [r for r in every if r[2] in ("same-numbers", "different-draws")]
    assert _rows(tmp_path, "--select", "pedantic") == [r for r in every if r[2] in ("drawn-then-split",
                                                                                    "test-or-demo")]


def test_a_demo_place_and_the_codes_word_give_their_kinds_and_leave_the_default(tmp_path):
    """`test-or-demo` also by a `docs/` folder, an `if __name__ == "__main__":` block and a
    `benchmark...` function; `on-purpose` where a comment at the uses or a docstring line
    naming the key calls it fixed, the same or shared, or an evaluation key serves every
    iteration of a loop. A negated comment, one that flags a fault, a comment after the
    second use, and an evaluation key drawn twice outside a loop keep the kind of the uses."""
    for name in ("invalid_kind_on_purpose", "invalid_kind_demo_code"):
        (tmp_path / f"{name}.py").write_text((FIXTURES / f"{name}.py").read_text().replace("  # expect: JAX114", ""))
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "guide.py").write_text((FIXTURES / "invalid_kind_different_draws.py").read_text())
    (tmp_path / "kept.py").write_text(
        "import jax\n"
        "\n"
        "\n"
        "def init(key):\n"
        "    # not the same key: split it first\n"
        "    w = jax.random.normal(key, (3, 3))\n"
        "    b = jax.random.normal(key, (3,))\n"
        "    return w, b\n"
        "\n"
        "\n"
        "def noise(valid_key, x):\n"
        "    a = jax.random.normal(valid_key, x.shape)\n"
        "    b = jax.random.normal(valid_key, x.shape)\n"
        "    return x + a, x + b  # the same key\n"
        "\n"
        "\n"
        "def pair(key, x):\n"
        "    a = jax.random.normal(key, x.shape)\n"
        "    b = jax.random.normal(key, x.shape)  # BUG: the same key used twice\n"
        "    return a, b\n")
    every = _rows(tmp_path, "--select", "JAX114")
    assert [r for r in every if r[0] == "kept.py"] == [("kept.py", 7, "same-numbers"), ("kept.py", 13, "same-numbers"),
                                                      ("kept.py", 19, "same-numbers")]
    assert [r for r in every if r[0].startswith("docs/")] == [("docs/guide.py", 8, "test-or-demo"),
                                                             ("docs/guide.py", 14, "test-or-demo")]
    assert [r for r in every if r[0] == "invalid_kind_demo_code.py"] == [
        ("invalid_kind_demo_code.py", 12, "test-or-demo"), ("invalid_kind_demo_code.py", 19, "test-or-demo")]
    assert [r for r in every if r[0] == "invalid_kind_on_purpose.py"] == [
        ("invalid_kind_on_purpose.py", 15, "on-purpose"), ("invalid_kind_on_purpose.py", 21, "on-purpose"),
        ("invalid_kind_on_purpose.py", 30, "on-purpose")]
    assert _rows(tmp_path) == [r for r in every if r[0] == "kept.py"]
