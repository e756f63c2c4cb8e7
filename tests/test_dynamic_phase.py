"""The dynamic phase end to end on a small project: inputs, line mapping, merging with
the static phase, suppressions, summary, cache, layout. Real workers, real jax (CPU)."""
from __future__ import annotations

import json

import pytest

from helpers import run_cli

PYPROJECT = '''
[tool.jaxlint]
extend-select = ["JAX204"]  # pedantic: x64_on.py's finding is what one test reads
[tool.jaxlint.dynamic]
enabled = true
[tool.jaxlint.dynamic.functions."app.configured:from_config"]
args = "(f32[8, 1024],)"
static = { n = 64 }
'''

FILES = {
    "src/app/__init__.py": "",
    "src/app/weights.py": '''
import numpy as np

W = np.random.rand(1024, 1024).astype(np.float32)

def apply(x):
    return x @ W
''',
    # relative import, a helper in another file, and an example call
    "src/app/model.py": '''
import jax
import jax.numpy as jnp
from .weights import apply


@jax.jit
def forward(x):
    return jnp.tanh(apply(x))


forward(jnp.ones((4, 1024)))
''',
    "src/app/configured.py": '''
from functools import partial
import jax


@partial(jax.jit, static_argnames=("n",))
def from_config(x, n):
    for _ in range(n):
        x = x * 0.5 + 1.0
    return x
''',
    # static JAX101/JAX102 and dynamic JAX201/JAX202 see the same problems: reported once
    "src/app/both.py": '''
import jax
import numpy as np

TABLE = np.random.rand(512, 1024).astype(np.float32)


@jax.jit  # jaxlint: args=(f32[8, 1024],)
def lookup(x):
    return x @ TABLE.T


@jax.jit  # jaxlint: args=(f32[16],)
def loop(x):
    for _ in range(100):
        x = x * 2 + 1
    return x
''',
    "src/app/suppressed.py": '''
import jax
import numpy as np

BIG = np.random.rand(1024, 1024).astype(np.float32)


@jax.jit  # jaxlint: args=(f32[1024],)
def f(x):
    return x @ BIG  # noqa: JAX201, JAX101
''',
    "src/app/skipped.py": '''
import jax


@jax.jit
def no_inputs(x):
    return x


def outer():
    @jax.jit
    def inner(x):
        return x
    return inner


@jax.jit  # jaxlint: skip
def opted_out(x):
    return x
''',
    "src/app/x64_on.py": '''
import jax
import jax.numpy as jnp
jax.config.update("jax_enable_x64", True)


@jax.jit  # jaxlint: args=(f32[8],)
def wide(x):
    return x * jnp.arange(8, dtype=jnp.float64)
''',
    "src/app/x64_off.py": '''
import jax
import jax.numpy as jnp


@jax.jit  # jaxlint: args=(f32[8],)
def narrow(x):
    return x * jnp.arange(8.0)
''',
}


@pytest.fixture(scope="module")
def proj(tmp_path_factory):
    root = tmp_path_factory.mktemp("dynproj")
    (root / "pyproject.toml").write_text(PYPROJECT.lstrip())
    for name, src in FILES.items():
        p = root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(src.lstrip("\n"))
    cache = root / "cache"
    cold = run_cli("check", "--cache-dir", str(cache), "--output-format", "json", cwd=root, timeout=300)
    warm = run_cli("check", "--cache-dir", str(cache), "--output-format", "json", cwd=root, timeout=300)
    text = run_cli("check", "--cache-dir", str(cache), "--show-skipped", cwd=root, timeout=300)
    return root, cache, cold, warm, text


def _diags(proc):
    return json.loads(proc.stdout)


def _at(diags, filename):
    return sorted((d["code"], d["location"]["row"]) for d in diags if d["filename"] == filename)


def test_dynamic_run_exits_1_with_findings(proj):
    _, _, cold, *_ = proj
    assert cold.returncode == 1, cold.stderr


def test_finding_in_an_imported_helper_points_at_the_helper_line(proj):
    _, _, cold, *_ = proj
    d = [d for d in _diags(cold) if d["code"] == "JAX201" and d["data"]["name"] == "W"]
    assert len(d) == 1
    assert (d[0]["filename"], d[0]["location"]["row"]) == ("src/app/weights.py", 6)
    assert d[0]["data"]["bytes"] == 4 * 1024 * 1024
    assert d[0]["data"]["inputs"] == "example-call"


def test_config_entry_gives_inputs_and_static_values(proj):
    _, _, cold, *_ = proj
    d = [d for d in _diags(cold) if d["filename"] == "src/app/configured.py" and d["code"] == "JAX202"]
    assert d and d[0]["location"]["row"] == 7 and d[0]["data"]["iterations"] == 64
    assert d[0]["data"]["inputs"] == "config"


def test_dynamic_findings_supersede_the_static_ones_on_the_same_line(proj):
    _, _, cold, *_ = proj
    assert _at(_diags(cold), "src/app/both.py") == [("JAX201", 9), ("JAX202", 14)]


def test_static_findings_stay_without_the_dynamic_phase(proj):
    root = proj[0]
    static = run_cli("check", "--no-dynamic", "--no-cache", "--output-format", "json", "src/app/both.py", cwd=root)
    codes = {d["code"] for d in _diags(static)}
    assert {"JAX101", "JAX102"} <= codes and not any(c.startswith("JAX2") for c in codes)


def test_noqa_suppresses_a_dynamic_finding_on_its_line(proj):
    _, _, cold, *_ = proj
    assert _at(_diags(cold), "src/app/suppressed.py") == []


def test_x64_set_by_one_module_does_not_leak_into_the_next(proj):
    _, _, cold, *_ = proj
    diags = _diags(cold)
    assert ("JAX204", 8) in _at(diags, "src/app/x64_on.py")
    assert _at(diags, "src/app/x64_off.py") == []


def test_findings_record_versions_and_backend(proj):
    import jax

    _, _, cold, *_ = proj
    d = [d for d in _diags(cold) if d["phase"] == "trace"][0]
    assert d["data"]["jax"] == jax.__version__ and d["data"]["backend"] == "cpu"
    assert d["data"]["jaxlib"]


def test_summary_lists_what_was_analysed_and_why_things_were_skipped(proj):
    out = proj[4].stdout
    assert "Dynamic phase (trace; " in out
    assert "skipped src/app/skipped.py:4 no_inputs: no inputs: add `# jaxlint: args=" in out
    assert "skipped src/app/skipped.py:10 outer.<locals>.inner: defined inside a function" in out
    assert "skipped src/app/skipped.py:16 opted_out: skipped by the directive at line 16" in out


def test_second_run_comes_from_the_cache_and_starts_no_worker(proj):
    _, _, cold, warm, text = proj
    assert _diags(warm) == _diags(cold)
    # every file with a function to trace (six, seven functions) comes from the cache, so
    # no worker starts (was: the run took < 0.6 of the first one's time, which a load
    # spike during the second run can flip: 2.2 s against 8.6 s at load 7 here)
    (summary,) = [line for line in text.stdout.splitlines() if line.startswith("Dynamic phase")]
    assert "7 functions analysed, 3 skipped, 0 failed; 6 files from cache (" in summary, summary


def test_editing_an_imported_module_invalidates_the_importers_cache(proj, tmp_path):
    root, cache, *_ = proj
    helper = root / "src/app/weights.py"
    old = helper.read_text()
    try:
        helper.write_text(old.replace("(1024, 1024)", "(16, 16)").replace("x @ W", "x[:, :16] @ W"))
        after = run_cli("check", "--cache-dir", str(cache), "--output-format", "json", "src/app/model.py",
                        cwd=root, timeout=300)
        assert not [d for d in _diags(after) if d["code"] == "JAX201"], after.stdout
    finally:
        helper.write_text(old)


def test_static_phase_never_imports_jax(tmp_path):
    (tmp_path / "m.py").write_text("import jax\n\n@jax.jit\ndef f(x):\n    return x\n")
    code = ("import sys, jaxlint.cli as c; rc = c.main(['check', '--no-cache', 'm.py']); "
            "print('JAXLOADED' if 'jax' in sys.modules else 'CLEAN')")
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert "CLEAN" in out.stdout, out.stdout + out.stderr


def test_stdin_input_skips_the_dynamic_phase_with_a_note(tmp_path):
    proc = run_cli("check", "--dynamic", "--no-cache", "--stdin-filename", "x.py", "-", cwd=tmp_path,
                   input="import jax\n\n@jax.jit\ndef f(x):\n    return x\n")
    assert proc.returncode == 0 and "Dynamic phase skipped" in proc.stdout


def test_without_a_working_jax_the_dynamic_phase_is_an_error_exit_2(tmp_path):
    fake = tmp_path / "fake" / "jax"
    fake.mkdir(parents=True)
    # what Python raises when jax is not installed (a broken dependency gets no install hint)
    (fake / "__init__.py").write_text("raise ModuleNotFoundError(\"No module named 'jax' (planted)\", name='jax')\n")
    (tmp_path / "m.py").write_text("import jax\n\n@jax.jit  # jaxlint: args=(f32[4],)\ndef f(x):\n    return x\n")
    proc = run_cli("check", "--dynamic", "--no-cache", "m.py", cwd=tmp_path,
                   env={"PYTHONPATH": str(tmp_path / "fake")})
    assert proc.returncode == 2
    # said once, with the install command the README names (this repository, the extra)
    assert proc.stderr.count("needs jax, which is not installed") == 1, proc.stderr
    assert 'pip install "jaxlint[dynamic] @ git+https://github.com/jaxlint/jaxlint"' in proc.stderr
    assert "Traceback" not in proc.stderr and "All checks passed!" not in proc.stdout + proc.stderr
