"""The smaller things of issue 35 on the way from a recording to the gate, each as a
user meets it, with real jax through the CLI."""
from __future__ import annotations

import textwrap

import pytest

pytest.importorskip("jax")

from helpers import run_cli  # noqa: E402

SCRIPT = """
import jax
import jax.numpy as jnp
import numpy as np

TABLE = np.random.rand(1024, 512).astype(np.float32)


@jax.jit
def step(x):
    k = jax.random.PRNGKey(0)
    return jnp.tanh(x @ TABLE) + jax.random.normal(k, (32, 512))


for _ in range(2):
    step(jnp.ones((32, 1024)))
"""


def test_a_compile_check_after_a_record_without_compile_keeps_the_trace_findings(tmp_path):
    """A script (work at import: no worker imports it) recorded without --compile: the
    compile check keeps what the recording found and says which command compiles."""
    (tmp_path / "pyproject.toml").write_text("[tool.jaxlint]\n")
    (tmp_path / "prog.py").write_text(textwrap.dedent(SCRIPT).lstrip("\n"))
    rec = run_cli("record", "--", "python", "prog.py", cwd=tmp_path, timeout=600)
    assert "2 findings" in rec.stderr, rec.stderr
    r = run_cli("check", "--dynamic", "--compile", "--show-skipped", cwd=tmp_path, timeout=600)
    codes = sorted(line.split()[1] for line in r.stdout.splitlines() if ": JAX" in line)
    assert codes == ["JAX201", "JAX211"], r.stdout  # the measured ones, not the static JAX101 guess
    assert "1 function analysed" in r.stdout, r.stdout
    assert "not compiled: `jaxlint record` ran without --compile, and the file runs at import: record with " \
           "`jaxlint record --compile -- python prog.py`" in r.stdout, r.stdout


DONATION = """
import jax
import jax.numpy as jnp
{helpers}

@jax.jit
def update(params, opt, g):
    opt = opt * 0.9 + g
    params = params - 0.1 * opt
    return params, opt


def main():
    p, o = jnp.ones((512, 512)), jnp.zeros((512, 512))
    for _ in range(3):
        p, o = update(p, o, jnp.ones((512, 512)))


if __name__ == "__main__":
    main()
"""


def test_a_recorded_message_names_the_lines_where_the_code_is_now(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.jaxlint]\n")
    src = tmp_path / "train.py"
    src.write_text(textwrap.dedent(DONATION.format(helpers="")).lstrip("\n"))
    run_cli("record", "--compile", "--", "python", "train.py", cwd=tmp_path, timeout=600)
    before = run_cli("check", "--dynamic", "--compile", "--select", "JAX302", cwd=tmp_path, timeout=600)
    assert "train.py:6:1: JAX302" in before.stdout and "(lines 7, 8)" in before.stdout, before.stdout
    # an unrelated helper above it: the observation stays current and moves, its message too
    src.write_text(textwrap.dedent(DONATION.format(helpers="\n\ndef helper(x):\n    return x + 1\n"))
                   .lstrip("\n"))
    after = run_cli("check", "--dynamic", "--compile", "--select", "JAX302", cwd=tmp_path, timeout=600)
    assert "train.py:10:1: JAX302" in after.stdout and "(lines 11, 12)" in after.stdout, after.stdout
    assert "out of date" not in after.stdout


def test_the_editor_shows_a_recordings_findings_with_its_dynamic_phase_off(tmp_path):
    """The dynamic phase off in the editor (the default): a file `jaxlint record`
    observed shows the recording's findings on open, its measured JAX201 in place of the
    static JAX101 guess, and nothing of the user's is imported by the editor's child."""
    pytest.importorskip("pygls", reason="the `lsp` extra (pygls) is not installed")
    from lsp_session import run, session

    (tmp_path / "pyproject.toml").write_text("[tool.jaxlint]\n")
    src = textwrap.dedent(DONATION.format(helpers="\nimport numpy as np\n\nW = np.random.rand(1024, 512)\n"))
    src = src.replace("opt = opt * 0.9 + g", "opt = opt * 0.9 + g + W[:512].sum()").lstrip("\n")
    src = src.replace("W[:512].sum()", "(jnp.ones((1, 1024)) @ W).sum()")
    (tmp_path / "train.py").write_text(src)
    rec = run_cli("record", "--compile", "--", "python", "train.py", cwd=tmp_path, timeout=600)
    assert "JAX" in run_cli("check", "--dynamic", "--compile", cwd=tmp_path, timeout=600).stdout, rec.stderr

    async def go():
        async with session(tmp_path, pull=False) as s:
            uri = s.open("train.py", src)
            first = await s.next_publish(uri)
            assert [d.code for d in first.diagnostics] == ["JAX101"]  # static, at once
            pub = await s.next_publish(uri, after=1, timeout=120)
            assert sorted(d.code for d in pub.diagnostics) == ["JAX201", "JAX302"], pub.diagnostics

    run(go(), timeout=180)
