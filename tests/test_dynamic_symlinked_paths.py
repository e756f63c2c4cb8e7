"""A project checked through a symlinked folder (`jaxlint check /path/to/link`): the
dynamic phase's findings, and their related places, in another module of the tree
too, are shown under the folder as it was named, as the static findings are; through
the real CLI and a real trace."""
from __future__ import annotations

import json
import sys
import textwrap

import pytest

from helpers import run_cli

MAIN = textwrap.dedent("""\
    import jax

    from pkg.steps import rollout


    # jaxlint: args=(f32[8],)
    @jax.jit
    def run(x):
        print(x)
        return rollout(x)
""")

STEPS = textwrap.dedent("""\
    import jax.numpy as jnp


    def rollout(x):
        for _ in range(40):
            x = jnp.sin(x) * 2.0
        return x
""")


@pytest.mark.skipif(sys.platform == "win32", reason="symlinks need privileges on Windows")
def test_dynamic_findings_and_related_places_keep_the_symlinked_folder(tmp_path):
    real = tmp_path / "real"
    (real / "pkg").mkdir(parents=True)
    # JAX106 (the trace-time print, the static finding here) is off by default
    (real / "pyproject.toml").write_text('[project]\nname = "p"\nversion = "0"\n[tool.jaxlint]\nextend-select = ["JAX106"]\n')
    (real / "pkg" / "__init__.py").write_text("")
    (real / "pkg" / "main.py").write_text(MAIN)
    (real / "pkg" / "steps.py").write_text(STEPS)
    (tmp_path / "link").symlink_to(real, target_is_directory=True)
    out = tmp_path / "elsewhere"
    out.mkdir()
    r = run_cli("check", "--dynamic", "--no-cache", "--output-format", "json", str(tmp_path / "link"), cwd=out)
    assert r.returncode == 1, r.stderr
    found = {d["code"]: d for d in json.loads(r.stdout)}
    assert found["JAX106"]["filename"] == "../link/pkg/main.py"  # static
    loop = found["JAX202"]  # dynamic, in the other module
    assert (loop["filename"], loop["location"]["row"]) == ("../link/pkg/steps.py", 5)
    assert loop["related"] and {x["filename"] for x in loop["related"]} == {"../link/pkg/steps.py"}
    assert not [d for d in json.loads(r.stdout) if "real" in json.dumps(d)]


def test_out_of_date_recording_is_named_as_the_findings_are_from_a_subfolder(tmp_path):
    """`jaxlint record`, an edit, then `jaxlint check --dynamic .` in the program's folder:
    the summary names the out-of-date function's file as the finding's (``prog.py``), not
    root-relative (``sub/prog.py``, no such file from there)."""
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "p"\nversion = "0"\n')
    sub = tmp_path / "sub"
    sub.mkdir()
    prog = sub / "prog.py"
    prog.write_text("import jax\n" + STEPS.replace("def rollout", "@jax.jit\ndef rollout")
                    + '\n\nif __name__ == "__main__":\n    print(rollout(jnp.ones(8)).sum())\n')
    r = run_cli("record", "--", sys.executable, "sub/prog.py", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    prog.write_text(prog.read_text().replace("* 2.0", "* 3.0"))
    r = run_cli("check", "--dynamic", "--no-cache", ".", cwd=sub)
    assert r.stdout.startswith("prog.py:7:5: JAX202"), r.stdout
    assert "    prog.py:6 rollout (changed: prog.py: `rollout`)" in r.stdout.splitlines(), r.stdout
