"""Input specs: the directive grammar (parent side, no jax) and jaxtyping annotations
traced for real (symbolic shapes first, concrete sizes when symbols are inconclusive)."""
from __future__ import annotations

import json

import pytest

from helpers import run_cli
from jaxlint.dynamic.inputs import parse_directive
from jaxlint.config.inputspec import SpecError, parse_spec_expr, spec_from_parts


def test_directive_specs_read_dtypes_shapes_scalars_pytrees_and_literals():
    node = parse_spec_expr('(f32[8,128], i32[], {"w": bf16[b, 3]}, [u8[2]], 4, None)')
    assert node == {"tuple": [
        {"array": [8, 128], "dtype": "float32", "weak": False},
        {"array": [], "dtype": "int32", "weak": False},
        {"dict": {"w": {"array": ["b", 3], "dtype": "bfloat16", "weak": False}}},
        {"list": [{"array": [2], "dtype": "uint8", "weak": False}]},
        {"value": 4},
        {"value": None},
    ]}


def test_directive_repeats_a_list_or_tuple_like_python():
    w = {"array": [8, 8], "dtype": "float32", "weak": False}
    assert parse_spec_expr('({"w": [f32[8, 8]] * 3}, 2 * (i32[],))') == {"tuple": [
        {"dict": {"w": {"list": [w, w, w]}}},
        {"tuple": [{"array": [], "dtype": "int32", "weak": False}] * 2},
    ]}
    with pytest.raises(SpecError, match="cannot read"):
        parse_spec_expr("([f32[8]] * -1,)")


def test_directive_static_and_kwargs_become_keyword_inputs():
    args, kwargs, static, skip = parse_directive('args=(f32[8],), kwargs={"y": i32[2]}, static={"n": 4}')
    spec = spec_from_parts(args, kwargs, static, "directive", "line 1")
    assert spec["args"] == [{"array": [8], "dtype": "float32", "weak": False}]
    assert spec["kwargs"] == {"y": {"array": [2], "dtype": "int32", "weak": False}, "n": {"value": 4}}
    assert parse_directive("skip")[3] is True


@pytest.mark.parametrize("text,error", [
    ("args=(q32[8],)", "unknown dtype `q32`"),
    ("args=(f32[-1],)", "bad dimension"),
    ("args=(f32[8],", "cannot parse directive"),
    ("shapes=(f32[8],)", "unknown directive key `shapes`"),
    ("args=(f32[8],), static=[1]", "static= must be a dict"),
])
def test_bad_directives_say_what_is_wrong(text, error):
    with pytest.raises(SpecError, match=error.replace("(", r"\(").replace("[", r"\[")):
        args, kwargs, static, _ = parse_directive(text)
        spec_from_parts(args, kwargs, static, "directive", "line 1")


def test_a_bad_directive_skips_the_function_with_the_reason(tmp_path):
    (tmp_path / "m.py").write_text("import jax\n\n# jaxlint: args=(q32[8],)\n@jax.jit\ndef f(x):\n    return x\n")
    proc = run_cli("check", "--dynamic", "--no-cache", "--show-skipped", "m.py", cwd=tmp_path)
    assert "skipped m.py:4 f: bad input spec: unknown dtype `q32`" in proc.stdout, proc.stdout


JT = '''
import jax
import jax.numpy as jnp
from jaxtyping import Array, Float, Int


@jax.jit
def loop(x: Float[Array, "b 16"], idx: Int[Array, "b"]):
    for _ in range(40):
        x = x * 2 + 1
    return x[idx]


@jax.jit
def reshaping(x: Float[Array, "b n"]):
    mask = jnp.ones((1024, 1024)).at[0].set(2.0)
    return x.reshape(-1, 4).sum() * mask
'''


def test_jaxtyping_annotations_trace_symbolically_then_concretely(tmp_path):
    pytest.importorskip("jaxtyping")
    (tmp_path / "pyproject.toml").write_text("[tool.jaxlint]\n[tool.jaxlint.dynamic]\ndimension-defaults = { n = 8 }\n")
    (tmp_path / "jt.py").write_text(JT.lstrip("\n"))
    proc = run_cli("check", "--dynamic", "--no-cache", "--select", "JAX2", "--output-format", "json", ".",
                   cwd=tmp_path, timeout=300)
    found = {(d["code"], d["location"]["row"], d["data"].get("inputs"), d["data"].get("shapes"))
             for d in json.loads(proc.stdout)}
    # jax.export (symbolic shapes) needs absl-py on 0.4.38: without it every trace is concrete
    try:
        from jax import export  # noqa: F401

        symbolic = "symbolic"
    except ImportError:
        symbolic = "concrete"
    assert ("JAX202", 8, "jaxtyping", symbolic) in found, found
    assert ("JAX209", 15, "jaxtyping", "concrete") in found, found


def test_a_module_level_jit_alias_and_a_rebound_function_are_traced(tmp_path):
    # `J = jax.jit` after the import, and `f = J(f)` / `g = jax.jit(g)` rebinding the
    # function's own name: the jit map finds both, so the dynamic phase traces them
    (tmp_path / "m.py").write_text(
        "import jax\n"
        "import numpy as np\n"
        "J = jax.jit\n"
        "TABLE = np.random.rand(1024, 512).astype(np.float32)\n"
        "\n"
        "# jaxlint: args=(f32[512],)\n"
        "def lookup(x):\n"
        "    return TABLE @ x\n"
        "\n"
        "lookup = J(lookup)\n"
        "\n"
        "def square(x):\n"
        "    return x * x\n"
        "\n"
        "square = jax.jit(square)\n"
        "square(np.ones((4, 8), np.float32))\n")
    proc = run_cli("check", "--dynamic", "--no-cache", "--output-format", "json", "m.py", cwd=tmp_path, timeout=300)
    found = json.loads(proc.stdout)
    big = [d for d in found if d["code"] == "JAX201"]
    assert len(big) == 1 and big[0]["data"]["name"] == "TABLE" and big[0]["location"]["row"] == 8, found
    text = run_cli("check", "--dynamic", "--no-cache", "--show-skipped", "m.py", cwd=tmp_path, timeout=300).stdout
    assert "2 functions analysed, 0 skipped, 0 failed" in text, text
