"""One problem, one finding, the measured one wins (issue 35, case 3): a static JAX101
guess inside a function the trace tier analysed is dropped when JAX201, which looks at
every constant of the program, does not confirm it; statically a NumPy slice of a
captured array is the slice; suppressing a code suppresses its twin in the other tier.
Real jax through the CLI; the static cases on source."""
from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from helpers import lint_source, run_cli

SLICED = """
import jax
import numpy as np

FEATURE_SCALE = np.random.rand(2048, 512).astype(np.float32)


# jaxlint: args=(f32[64,32],)
@jax.jit
def scale(x):
    return x * FEATURE_SCALE[: x.shape[0], : x.shape[1]]


# jaxlint: args=(f32[64,32],)
@jax.jit
def fixed(x):
    return x * FEATURE_SCALE[:64, :32]


# jaxlint: args=(f32[64,32],)
@jax.jit
def host_sum(x):
    return x * FEATURE_SCALE.sum()


# jaxlint: args=(f32[1024,512],)
@jax.jit
def big(x):
    return x * FEATURE_SCALE[:1024]
"""


def findings(root: Path, *args: str) -> list[tuple[str, int]]:
    r = run_cli("check", "--no-cache", "--output-format", "json", *args, cwd=root, timeout=600)
    assert r.returncode in (0, 1), r.stderr
    return sorted((d["code"], d["location"]["row"]) for d in json.loads(r.stdout))


def project(tmp_path: Path, config: str = "", name: str = "m.py", text: str = SLICED) -> Path:
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "pyproject.toml").write_text("[tool.jaxlint]\n" + config)
    (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / name).write_text(textwrap.dedent(text).lstrip("\n"))
    return tmp_path


def test_a_numpy_slice_with_static_bounds_is_the_slice():
    src = textwrap.dedent(SLICED)
    ds = lint_source(src, select=["JAX101"], confidence="possible")
    by_line = {d.start.line: d for d in ds}
    assert 16 not in by_line  # [:64, :32]: 8 KiB, under the threshold
    assert "`FEATURE_SCALE[:1024]`, a 2.0 MiB array (1024x512" in by_line[28].message, by_line[28].message
    # bounds that are not static: at most the array, a possible finding only (`--preview`)
    assert "a slice of up to 4.0 MiB" in by_line[10].message and by_line[10].confidence.value == "possible"
    assert sorted(d.start.line for d in lint_source(src, select=["JAX101"])) == [22, 28]
    # a jax array is baked in whole (sliced in the program), whatever the slice
    jnp_src = src.replace("np.random.rand(2048, 512).astype(np.float32)", "jax.numpy.ones((2048, 512))")
    assert 16 in {d.start.line for d in lint_source(jnp_src, select=["JAX101"])}


@pytest.mark.skipif(not __import__("importlib").util.find_spec("jax"), reason="jax is not installed")
def test_the_measurement_refutes_a_static_guess_and_replaces_a_confirmed_one(tmp_path):
    root = project(tmp_path)
    assert findings(root) == [("JAX101", 22), ("JAX101", 28)]
    # measured: only the 2 MiB slice is baked in; the host-side sum is a scalar, so no JAX101 at 22
    assert findings(root, "--dynamic") == [("JAX201", 28)]
    assert findings(root, "--dynamic", "--preview") == [("JAX201", 28)]


@pytest.mark.skipif(not __import__("importlib").util.find_spec("jax"), reason="jax is not installed")
def test_ignoring_a_code_for_some_files_ignores_its_measured_twin(tmp_path):
    root = project(tmp_path, '[tool.jaxlint.per-file-ignores]\n"tests/*" = ["JAX101"]\n', name="tests/t.py")
    assert findings(root, "--dynamic") == []
    root2 = project(tmp_path / "other", '[tool.jaxlint.per-file-ignores]\n"m.py" = ["JAX201"]\n')
    assert findings(root2) == []  # and the other way round: the static guess of an ignored measurement


@pytest.mark.skipif(not __import__("importlib").util.find_spec("jax"), reason="jax is not installed")
def test_noqa_and_ignore_of_a_code_hide_its_twin(tmp_path):
    root = project(tmp_path, text=SLICED.replace("FEATURE_SCALE[:1024]", "FEATURE_SCALE[:1024]  # noqa: JAX101"))
    assert findings(root, "--dynamic") == []
    root2 = project(tmp_path / "i", 'ignore = ["JAX101"]\n')
    assert findings(root2, "--dynamic") == []
    # a rule named by its own code is selected whatever its twin's ignore
    assert findings(root2, "--dynamic", "--extend-select", "JAX201") == [("JAX201", 28)]
