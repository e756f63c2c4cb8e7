"""One finding per pattern per function (``jaxlint.findings.collapse``, issue 36): the
places of one static pattern in one function are one finding with the others as
related locations, after noqa comments and the baseline, which see every place; and
``--every-place`` reports each. Real ``jaxlint check`` processes."""
from __future__ import annotations

import json
import textwrap

from helpers import run_cli

SOURCE = textwrap.dedent("""
    import jax


    @jax.jit
    def f(x, y, z):
        if x > 0:
            x = -x
        if y > 0:
            y = -y
        if z > 0:  # noqa: JAX105
            z = -z
        return x + y + z


    @jax.jit
    def g(x):
        if x > 0:
            return x
        return -x
    """).lstrip()


def check(root, *args: str) -> list[dict]:
    out = root / "out.json"
    proc = run_cli("check", "--isolated", "--no-cache", "--select", "JAX105", "--output-format", "json",
                   "-o", str(out), "--exit-zero", *args, ".", cwd=root)
    assert proc.returncode == 0, proc.stderr
    return json.loads(out.read_text())


def test_places_of_one_pattern_in_one_function_are_one_finding(tmp_path):
    (tmp_path / "m.py").write_text(SOURCE)
    found = check(tmp_path)
    assert [(f["location"]["row"], f["data"].get("places")) for f in found] == [(6, 2), (17, None)]
    first = found[0]
    assert first["message"].endswith("(and 1 more place in this function)")
    assert [(r["location"]["row"], r["message"]) for r in first["related"]] == [(8, "same pattern")]
    # the noqa'd place stays suppressed, and is no related location
    every = check(tmp_path, "--every-place")
    assert [f["location"]["row"] for f in every] == [6, 8, 17]


def test_the_baseline_records_every_place_and_a_new_place_is_new(tmp_path):
    (tmp_path / "m.py").write_text(SOURCE)
    base = tmp_path / "base.json"
    proc = run_cli("check", "--isolated", "--no-cache", "--select", "JAX105", "--write-baseline", str(base), ".",
                   cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert check(tmp_path, "--baseline", str(base)) == []
    # a third place of the pattern in `f`, before the others: new, and reported alone
    (tmp_path / "m.py").write_text(SOURCE.replace("    if x > 0:\n        x = -x\n",
                                                  "    if x > y:\n        x = y\n    if x > 0:\n        x = -x\n", 1))
    found = check(tmp_path, "--baseline", str(base))
    assert [(f["location"]["row"], f["data"].get("places")) for f in found] == [(6, None)]
