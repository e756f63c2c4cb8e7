"""``jaxlint inspect``: the three stages annotated with source lines, run for real."""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from helpers import run_cli

pytest.importorskip("jax")

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "compile" / "unfused_callback.py"


def source_line(path: Path, text: str) -> int:
    hits = [i + 1 for i, l in enumerate(path.read_text().splitlines()) if text in l]
    assert len(hits) == 1
    return hits[0]


@pytest.fixture(scope="module")
def inspected(tmp_path_factory):
    cache = tmp_path_factory.mktemp("cache")
    out = run_cli("inspect", f"{EXAMPLE}::squash", "--cache-dir", str(cache), "--color", "never")
    assert out.returncode == 0, out.stderr
    assert "warning: rule" not in out.stderr, out.stderr  # every compile rule ran (JAX306's budget is check's)
    return out.stdout


def section(text: str, title: str) -> str:
    m = re.search(rf"== {re.escape(title)}[^\n]*==\n(.*?)(?=\n== |\Z)", text, re.S)
    assert m, title
    return m.group(1)


def test_every_stage_is_printed_with_the_users_lines(inspected):
    tanh = source_line(EXAMPLE, "y = jnp.tanh(x)")
    cb = source_line(EXAMPLE, "jax.pure_callback")
    jaxpr = section(inspected, "jaxpr")
    assert re.search(rf"^\s*{tanh} \|\s+\w+:f32\[512,1024\] = tanh", jaxpr, re.M)
    shlo = section(inspected, "StableHLO")
    assert re.search(rf"^\s*{tanh} \|\s+%\d+ = stablehlo.tanh", shlo, re.M)
    assert not re.search(r"stablehlo\.\w+.*\bloc\(", shlo)  # locations became the line column
    hlo = section(inspected, "optimized HLO")
    assert re.search(rf"^\s*{cb} \|.*custom-call\(.*custom_call_target=\"xla_\w*python_cpu_callback\"", hlo, re.M)
    assert "metadata=" not in hlo
    assert "inspect_worker" not in inspected  # jaxlint's own frames are never shown


def test_per_line_summary_counts_equations_kernels_and_bytes(inspected):
    table = section(inspected, "per source line").splitlines()[1:]
    rows = {int(r.split()[0]): r.split()[1:6] for r in table if r.strip()}
    tanh = source_line(EXAMPLE, "y = jnp.tanh(x)")
    assert rows[tanh][0] == "2"  # tanh, mul
    assert rows[tanh][2:4] == ["1", "1"]  # one kernel, a fusion
    assert rows[tanh][4] == "2.0"  # MiB written by that kernel


def test_cost_memory_versions_and_findings(inspected):
    import jax

    cost = section(inspected, "cost and memory")
    for label in ("flops", "bytes accessed", "transcendentals", "argument memory", "temp memory",
                  "aliased (donated)", "compile time"):
        assert label in cost
    assert f"jax {jax.__version__}" in cost and "backend            cpu" in cost
    findings = section(inspected, "findings")
    cb = source_line(EXAMPLE, "jax.pure_callback")
    assert f"unfused_callback.py:{cb}:" in findings and "JAX301" in findings


def test_stage_option_prints_one_stage_and_constants_table(tmp_path):
    src = ROOT / "examples" / "compile" / "folded_constant.py"
    out = run_cli("inspect", f"{src}::masked", "--stage", "hlo", "--no-cache")
    assert out.returncode == 0, out.stderr
    assert "== optimized HLO" in out.stdout and "== jaxpr" not in out.stdout and "== StableHLO" not in out.stdout
    consts = section(out.stdout, "constants")
    assert re.search(r"hlo\s+\S+\s+\[1024,1024\]\s+f32\s+4.0 MiB\s+" + str(source_line(src, "return x @ mask")),
                     consts)


def test_inputs_from_the_command_line_and_errors_in_user_code(tmp_path):
    mod = tmp_path / "mod.py"
    mod.write_text(textwrap.dedent("""
        import jax.numpy as jnp

        def f(x, n):
            return jnp.sum(x) * n

        def g(x):
            raise ValueError("broken on purpose")
    """))
    out = run_cli("inspect", f"{mod}::f", "--args", "(f32[4, 3],)", "--static", '{"n": 2}', "--stage", "jaxpr",
                  "--no-cache")
    assert out.returncode == 0, out.stderr
    assert "reduce_sum" in out.stdout and "f32[4,3]" in out.stdout
    out = run_cli("inspect", f"{mod}::f", "--no-cache")
    assert out.returncode == 2 and "--args" in out.stderr
    out = run_cli("inspect", f"{mod}::g", "--args", "(f32[2],)", "--no-cache")
    assert out.returncode == 2
    assert "ValueError: broken on purpose" in out.stderr
    assert f"mod.py:{source_line(mod, 'raise ValueError')}" in out.stderr


def test_inspect_never_imports_jax_in_the_jaxlint_process(tmp_path):
    code = textwrap.dedent(f"""
        import sys
        from jaxlint.cli import main
        rc = main(["inspect", {str(EXAMPLE) + '::squash'!r}, "--stage", "jaxpr", "--no-cache",
                   "-o", {str(tmp_path / 'out.txt')!r}])
        assert rc == 0, rc
        assert "jax" not in sys.modules, "jax was imported by jaxlint itself"
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "== jaxpr" in (tmp_path / "out.txt").read_text()


def test_bad_target_is_a_usage_error(tmp_path):
    out = run_cli("inspect", str(EXAMPLE))
    assert out.returncode == 2 and "::function" in out.stderr


@pytest.mark.skipif(shutil.which("chromium") is None and shutil.which("chromium-browser") is None,
                    reason="headless Chromium is not installed (apt-get install -y chromium)")
def test_html_report_renders_in_headless_chromium(tmp_path):
    report = tmp_path / "report.html"
    out = run_cli("inspect", f"{EXAMPLE}::squash", "--format", "html", "-o", str(report), "--no-cache")
    assert out.returncode == 0, out.stderr
    html = report.read_text()
    # self-contained: nothing is fetched from anywhere
    assert not re.search(r"<link\b|<script[^>]*\bsrc=|<img\b|@import|url\(", html)
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    dom = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", report.as_uri()],
                         capture_output=True, text=True, timeout=600)
    assert dom.returncode == 0, dom.stderr[-2000:]
    text = dom.stdout
    assert "squash" in text and "y = jnp.tanh(x) * 2.0" in text
    assert "JAX301" in text and "stablehlo.tanh" in text and "custom-call" in text
    # the inline script ran: the source view marks the costliest line
    assert 'data-hot="1"' in text


def test_inspect_runs_like_a_check_worker_x64_setting_and_user_io_isolated(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.jaxlint.dynamic]\nx64 = true\n")
    mod = tmp_path / "noisy.py"
    mod.write_text(textwrap.dedent("""
        import sys
        import jax.numpy as jnp

        print("printed at import")
        sys.stdin.read()  # must see an empty stdin, not the request

        def f(x):
            return jnp.sin(x) * 2.0
    """))
    out = run_cli("inspect", f"{mod}::f", "--args", "(f64[3],)", "--stage", "jaxpr", "--no-cache")
    assert out.returncode == 0, out.stderr
    assert "f64[3]" in out.stdout  # [tool.jaxlint.dynamic] x64 reaches the inspect worker
    assert "printed at import" not in out.stdout
