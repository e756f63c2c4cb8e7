"""JAX315 hbm-fit: the per-chip peak of a TPU's program against the chip's memory, on
programs compiled deviceless for TPU topologies (libtpu; skipped where it is absent),
and through the real CLI with a target."""
from __future__ import annotations

import json

import pytest

pytest.importorskip("jax")

from compile_helpers import reported  # noqa: E402
from helpers import run_cli  # noqa: E402
from jaxlint.rule import Invalid, iter_rule_examples  # noqa: E402
from jaxlint.rules.hlo.jax315_hbm_fit import HbmFit  # noqa: E402
from tpu_compile import assert_example_on_one_chip, compile_source_for, need_libtpu  # noqa: E402

EXAMPLES = list(iter_rule_examples(HbmFit))


@pytest.mark.parametrize("ident,example", EXAMPLES, ids=[e[0] for e in EXAMPLES])
def test_examples_on_one_v5e_chip_and_quiet_on_the_cpu(tmp_path, ident, example):
    diags = assert_example_on_one_chip(HbmFit(dict(example.options)), example, tmp_path)
    if diags:
        d = diags[0]
        assert d.severity.value == "error" and d.data["peak_bytes"] > d.data["hbm_bytes"]


def test_the_message_names_what_holds_the_memory_with_the_lines_that_make_it(tmp_path):
    need_libtpu()
    src = next(ex for _, ex in EXAMPLES if isinstance(ex, Invalid) and not ex.options).code
    facts, _ = compile_source_for(src, tmp_path, "v5e:1x1")
    assert facts.out_of_memory.get("available_bytes")  # XLA refused it for the chip
    (d,) = reported(HbmFit(), facts)
    lines = src.strip("\n").splitlines()
    update = next(i + 1 for i, t in enumerate(lines) if "p - 0.1 * g" in t)
    assert "XLA refused to compile it for the chip" in d.message
    assert "arguments 8.0 GiB (largest: `params['w1']` f32[49152,32768] 6.0 GiB" in d.message
    assert f"outputs (none reuses a donated argument) 8.0 GiB (largest: `['w1']` f32[49152,32768] 6.0 GiB at line {update}" \
        in d.message
    assert [r.start.line for r in d.related] == [update]
    # a figure for the chip that is larger than the program: quiet, XLA's refusal aside
    fits = HbmFit({"hbm-gib": 32})
    facts.out_of_memory = {}
    assert reported(fits, facts) == []


SHARDED = """
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

mesh = Mesh(np.array(jax.devices()), ("data",))
rows = NamedSharding(mesh, P("data", None))

def loss(w, x):
    return jnp.mean(jnp.tanh(x @ w) ** 2)

# jaxlint: args=(f32[65536,16384], f32[65536,16384], f32[65536,16384], f32[64,65536])
@partial(jax.jit, in_shardings=(rows, rows, rows, NamedSharding(mesh, P(None, "data"))))
def adam_step(w, m, v, x):
    g = jax.grad(loss)(w, x)
    m = 0.9 * m + 0.1 * g
    v = 0.999 * v + 0.001 * g * g
    return w - 1e-3 * m / (jnp.sqrt(v) + 1e-8), m, v
"""


def test_a_step_too_big_for_one_chip_fits_eight_with_its_state_sharded(tmp_path):
    need_libtpu()
    one, _ = compile_source_for(SHARDED, tmp_path, "v5e:1x1")
    (d,) = reported(HbmFit(), one)
    assert d.data["peak_bytes"] > 16 << 30 and "TPU v5 lite" in d.message
    eight, _ = compile_source_for(SHARDED, tmp_path, "v5e:2x4")
    assert eight.devices == 8 and eight.memory["peak_memory_in_bytes"] < 16 << 30
    assert reported(HbmFit(), eight) == []


def test_a_target_check_reports_it_at_the_function_and_a_bad_option_is_one_line(tmp_path):
    need_libtpu()
    src = next(ex for _, ex in EXAMPLES if isinstance(ex, Invalid) and not ex.options).code
    import textwrap

    (tmp_path / "step.py").write_text(textwrap.dedent(src).lstrip("\n"))
    (tmp_path / "pyproject.toml").write_text('[tool.jaxlint]\nselect = ["JAX315"]\n')
    r = run_cli("check", "--no-cache", "--target", "v5e:1x1", "--output-format", "json", "step.py", cwd=tmp_path,
                timeout=600)
    assert r.returncode == 1, r.stderr
    found = [(d["code"], d["location"]["row"]) for d in json.loads(r.stdout)]
    assert found == [("JAX315", 9)], r.stdout
    (tmp_path / "pyproject.toml").write_text('[tool.jaxlint]\nselect = ["JAX315"]\n'
                                             '[tool.jaxlint.rules.hbm-fit]\nhbm-gib = { v9 = 16 }\n')
    bad = run_cli("check", "step.py", cwd=tmp_path)
    assert bad.returncode == 2 and "unknown chip generation 'v9'" in bad.stderr, bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1 and "Traceback" not in bad.stderr
