"""JAX114's finding kinds (docs/rules/JAX114.md, "Finding kinds"): what the on-by-default
kind claims holds under real jax, and the default selection takes only the kinds whose
group is on (the real CLI, in a subprocess)."""
from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import textwrap
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
                                                              ("tests/helpers.py", 14, "test-or-demo"),
                                                              ("tests/helpers.py", 20, "test-or-demo")]
    default = _rows(tmp_path)
    assert default == [r for r in every if r[2] in ("same-numbers", "different-draws")]
    assert _rows(tmp_path, "--select", "pedantic") == [r for r in every if r[2] in ("drawn-then-split",
                                                                                    "test-or-demo")]


def test_a_demo_place_and_the_codes_word_give_their_kinds_and_leave_the_default(tmp_path):
    """`test-or-demo` also by a `docs/` folder, an `if __name__ == "__main__":` block, a
    `benchmark...` function and a function or class named for a demonstration (`demo...`,
    `tutorial`: not `demographics`); `on-purpose` where a comment at the uses or a docstring
    line naming the key calls it fixed or shared (or the same, saying what for), where the
    function checks consistency, or where an evaluation key serves every iteration of a loop.
    A negated comment, one that flags a fault, one that only describes the reuse (`# second
    draw, same key`), a comment after the second use, and an evaluation key drawn twice
    outside a loop keep the kind of the uses."""
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
        "    return a, b\n"
        "\n"
        "\n"
        "def said(key, x):\n"
        "    a = jax.random.normal(key, x.shape)  # first draw\n"
        "    # second draw, same key\n"
        "    b = jax.random.normal(key, x.shape)\n"
        "    return a, b\n"
        "\n"
        "\n"
        "def demographics(key, n):\n"
        "    return jax.random.normal(key, (n,)), jax.random.normal(key, (n,))\n")
    every = _rows(tmp_path, "--select", "JAX114")
    assert [r[1:] for r in every if r[0] == "kept.py"] == [(7, "same-numbers"), (13, "same-numbers"),
                                                          (19, "same-numbers"), (26, "same-numbers"),
                                                          (31, "same-numbers")]
    assert [r for r in every if r[0].startswith("docs/")] == [("docs/guide.py", 8, "test-or-demo"),
                                                             ("docs/guide.py", 14, "test-or-demo"),
                                                             ("docs/guide.py", 20, "test-or-demo")]
    assert [r[1:] for r in every if r[0] == "invalid_kind_demo_code.py"] == [
        (12, "test-or-demo"), (19, "test-or-demo"), (28, "test-or-demo"), (37, "test-or-demo")]
    assert [r[1:] for r in every if r[0] == "invalid_kind_on_purpose.py"] == [
        (16, "on-purpose"), (22, "on-purpose"), (31, "on-purpose"), (37, "on-purpose")]
    assert _rows(tmp_path) == [r for r in every if r[0] == "kept.py"]


def test_the_shapes_only_kind_draws_numbers_nothing_reads_under_real_jax():
    """The `shapes-only` fixture under real jax: the numbers drawn only for a model's
    `init`, `make_jaxpr` or `jit(f).lower` change nothing those make (the parameters come
    from the key, the jaxpr and the lowered program from the shapes)."""
    import jax
    import jax.numpy as jnp

    m = _load("invalid_kind_shapes_only")
    params, jaxpr = m.graph(5)
    other = m.Net().init(jax.random.PRNGKey(42), jnp.full((2, 5), 7.0))
    assert jax.tree_util.tree_all(jax.tree_util.tree_map(jnp.array_equal, params, other))
    assert str(jaxpr) == str(jax.make_jaxpr(m.Net().apply)(other, jnp.zeros((2, 5))))
    f = lambda x, w: x * w  # noqa: E731
    assert m.lowered(f, 4).as_text() == jax.jit(f).lower(jnp.ones(4), jnp.zeros(4)).as_text()


def test_the_shapes_only_kind_leaves_the_default(tmp_path):
    (tmp_path / "graph.py").write_text((FIXTURES / "invalid_kind_shapes_only.py").read_text()
                                       .replace("  # expect: JAX114", ""))
    assert _rows(tmp_path, "--select", "JAX114") == [("graph.py", 17, "shapes-only"), ("graph.py", 24, "shapes-only")]
    assert _rows(tmp_path) == []


def test_reach_for_shapes_ends_only_at_programs_made_from_shapes():
    """``Reach(model, shapes=True)``: a sample input of a model's ``init`` after its key, an
    argument of ``make_jaxpr(f)(...)``, ``.lower(...)`` or ``jit(f).trace(...)`` is not read;
    a key-less ``init`` (``optimizer.init(params)``), an ``init`` given the value first, the
    numbers of ``jnp.trace`` and of ``init_with_output`` are; without ``shapes`` all are."""
    import ast
    import textwrap

    from jaxlint.static.reach import Reach
    from jaxlint.static.semantic import ModuleModel

    src = textwrap.dedent("""
        import jax
        import jax.numpy as jnp

        def f(model, opt, g, rng):
            a = jax.random.normal(rng, (3,))
            model.init(rng, a)
            b = jax.random.normal(rng, (3,))
            jax.make_jaxpr(g)(b)
            c = jax.random.normal(rng, (3,))
            jax.jit(g).lower(c)
            d = jax.random.normal(rng, (3,))
            jax.jit(g).trace(x=d)
            e = jax.random.normal(rng, (3,))
            opt.init(e)
            h = jax.random.normal(rng, (3,))
            model.init(h, rng)
            i = jax.random.normal(rng, (3,))
            jnp.trace(i)
            j = jax.random.normal(rng, (3,))
            model.init_with_output(rng, j)
    """)
    model = ModuleModel(ast.parse(src), "mod")
    draws = [n for n in ast.walk(model.tree) if isinstance(n, ast.Assign)]
    draws.sort(key=lambda n: n.lineno)
    shapes, plain = Reach(model, shapes=True), Reach(model)
    assert [shapes.read(d.value) for d in draws] == [False, False, False, False, True, True, True, True]
    assert all(plain.read(d.value) for d in draws)


def _correlation(a, b) -> float:
    import numpy as np

    return float(abs(np.corrcoef(np.ravel(a), np.ravel(b))[0, 1]))


def test_a_split_first_draw_is_unrelated_to_a_draw_of_the_keys_bits_under_real_jax():
    """jax 0.10.2's samplers of ``SPLITS_FIRST`` draw from keys split from the one given
    (``jax/_src/random/core.py``), whose data are none of the bits a draw from the key itself
    reads (default partitionable threefry): over 2,000 keys, the `split-first` fixture's
    pairs are uncorrelated (|r| < 0.1), while two samplers that read the key's own bits (the
    `different-draws` fixture's `normal` and `uniform`, or `choice` with `p`) are one
    number's two transforms (|r| > 0.9)."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    keys = jax.random.split(jax.random.key(0), 2000)
    split_first, different = _load("invalid_kind_split_first"), _load("invalid_kind_different_draws")
    r, g = jax.vmap(lambda k: split_first.thermostat(k, ()))(keys)
    side, lane = jax.vmap(lambda k: split_first.spawn(k, 1, None))(keys)
    noise, t = jax.vmap(lambda k: split_first.Head()(k, jnp.zeros((1,))))(keys)
    assert max(_correlation(r, g), _correlation(side, lane), _correlation(noise, t)) < 0.1
    p = jnp.array([0.25, 0.25, 0.25, 0.25])
    r, u = jax.vmap(lambda k: different.thermostat(k, ()))(keys)
    side, lane = jax.vmap(lambda k: different.lanes(k, (), p))(keys)
    assert _correlation(r, u) > 0.9 and _correlation(side, lane) > 0.5
    # no word of the split's keys is a word the key's own bits give
    bits = np.asarray(jax.random.bits(jax.random.key(0), (64,), dtype=jnp.uint32))
    split = np.asarray(jax.random.key_data(jax.random.split(jax.random.key(0), 8))).ravel()
    assert not set(split.tolist()) & set(bits.tolist())


def test_the_split_first_kind_leaves_the_default(tmp_path):
    (tmp_path / "draws.py").write_text((FIXTURES / "invalid_kind_split_first.py").read_text()
                                       .replace("  # expect: JAX114", ""))
    (tmp_path / "pairs.py").write_text((FIXTURES / "invalid_kind_different_draws.py").read_text()
                                       .replace("  # expect: JAX114", ""))
    every = _rows(tmp_path, "--select", "JAX114")
    assert every == [("draws.py", 8, "split-first"), ("draws.py", 14, "split-first"), ("draws.py", 26, "split-first"),
                     ("pairs.py", 8, "different-draws"), ("pairs.py", 14, "different-draws"),
                     ("pairs.py", 20, "different-draws")]
    assert _rows(tmp_path) == [r for r in every if r[0] == "pairs.py"]


def test_a_benchmark_demo_tutorial_or_teaching_file_name_is_test_or_demo(tmp_path):
    """A folder or file whose name has a word `benchmark...`, `demo(s)`, `tutorial(s)` or
    `pedagog...` holds test-or-demo code (blind54's `pedagogical_examples/`, blind54b's
    `jax_e_benchmark_sweep.py`); `examples/` and `demographics` are not (docs/precision.md,
    "JAX114's finding kinds": the example programs' reuses were judged true)."""
    from jaxlint.static.key_uses import in_fixture_code

    for name in ("ports.gemma4.jax_e_benchmark_sweep", "pedagogical_examples.shmap_collective_matmul",
                 "slds.mixture_kalman_filter_demo", "jax_distributed_inference_tutorial", "benchmarks.run",
                 "tests.helpers", "kvax.utils.benchmarking", "Tutorials.intro"):
        assert in_fixture_code(name), name
    for name in ("examples.train", "demographics", "pkg.democracy.vote", "examples.nanolm", "pkg.examples_of_use",
                 "pkg.bench_utils", "models.benchmarked_layers"):
        assert not in_fixture_code(name), name
    source = (FIXTURES / "invalid_kind_same_numbers.py").read_text().replace("  # expect: JAX114", "")
    (tmp_path / "pedagogical_examples").mkdir()
    (tmp_path / "pedagogical_examples" / "collective.py").write_text(source)
    (tmp_path / "examples").mkdir()
    (tmp_path / "examples" / "train.py").write_text(source)
    every = _rows(tmp_path, "--select", "JAX114")
    assert {kind for path, _, kind in every if path.startswith("pedagogical_examples/")} == {"test-or-demo"}
    assert "test-or-demo" not in {kind for path, _, kind in every if path.startswith("examples/")}
    assert _rows(tmp_path) == [r for r in every if r[0].startswith("examples/")]


SPLITTING_HELPERS = """
import jax
import jax.numpy as jnp
import jax.random as jr


def wishart_like(seed, n):
    chi_seed, norm_seed = jr.split(seed)
    return jr.gamma(chi_seed, 2.0, (n,)) + jr.normal(norm_seed, (n,))


def noise(seed, n):
    return jr.normal(seed, (n,))


def mixed(seed, n):
    a, _ = jr.split(seed)
    return jr.normal(seed, (n,)) + jr.uniform(a, (n,))


def niw(seed, n):
    sigma = wishart_like(seed, n)
    mu = jr.normal(seed, (n,))
    return sigma, mu


def mniw(seed, n):
    sigma = wishart_like(seed, n)
    a = noise(seed, n)
    return sigma, a


def twice(seed, n):
    sigma = noise(seed, n)
    a = noise(seed, n)
    return sigma, a


def both(seed, n):
    sigma = mixed(seed, n)
    a = jr.uniform(seed, (n,))
    return sigma, a
"""


def test_a_callee_that_only_splits_its_key_draws_split_first(tmp_path):
    """A function of the module that hands its key only to ``split`` (and draws from the
    subkeys: blind55b's jax-moseq ``sample_invwishart``) splits before reading bits: beside
    ``normal`` it is `split-first`. A key handed whole to two callees stays `same-numbers`
    whatever they draw (``mniw``: the recall case deepqmc-299f4c4, fixed upstream, is such a
    pair), a callee that also draws from the key itself stays `different-draws`. Real jax:
    over 2,000 keys the split-first pair is uncorrelated (so is ``mniw``'s), the others are
    the same numbers or strongly related."""
    import jax

    (tmp_path / "draws.py").write_text(textwrap.dedent(SPLITTING_HELPERS))
    assert _rows(tmp_path, "--select", "JAX114") == [("draws.py", 18, "split-then-drawn"),  # inside `mixed`
                                                     ("draws.py", 23, "split-first"), ("draws.py", 29, "same-numbers"),
                                                     ("draws.py", 35, "same-numbers"),
                                                     ("draws.py", 41, "different-draws")]
    assert _rows(tmp_path) == [("draws.py", 29, "same-numbers"), ("draws.py", 35, "same-numbers"),
                               ("draws.py", 41, "different-draws")]
    spec = importlib.util.spec_from_file_location("jax114_splitting_helpers", tmp_path / "draws.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    keys = jax.random.split(jax.random.key(0), 2000)
    r = {name: _correlation(*jax.vmap(lambda k: getattr(module, name)(k, 1))(keys))
         for name in ("niw", "mniw", "twice", "both")}
    assert r["niw"] < 0.1 and r["mniw"] < 0.1 and r["twice"] > 0.999 and r["both"] > 0.5, r


def test_a_fixed_seed_per_pass_draws_the_same_numbers_every_pass_under_real_jax():
    """The `fixed-seed` fixture (the eighteenth dynamic judgement's course program: a shuffle
    key made from `random.key(1)` in every epoch): every epoch's permutation is the same, and
    so is every element's noise."""
    import jax.numpy as jnp

    orders, noise = _load("invalid_fixed_seed_per_pass").main()
    assert all(jnp.array_equal(o, orders[0]) for o in orders) and not jnp.array_equal(orders[0], jnp.arange(8))
    assert jnp.array_equal(noise[0], noise[1])


def test_the_fixed_seed_kind_leaves_the_default(tmp_path):
    (tmp_path / "train.py").write_text(
        "\n".join(line for line in (FIXTURES / "invalid_fixed_seed_per_pass.py").read_text().splitlines()
                  if not line.startswith("#: ")).replace("  # expect: JAX114", "") + "\n")
    assert _rows(tmp_path, "--select", "JAX114") == [("train.py", 13, "fixed-seed"), ("train.py", 22, "fixed-seed")]
    assert _rows(tmp_path) == []
