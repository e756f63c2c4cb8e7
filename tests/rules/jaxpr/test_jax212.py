"""The program's compiles outside its own jitted functions (JAX212): real programs run
under `jaxlint record`, then `jaxlint check --dynamic`. The recorder counts each XLA
compile at the innermost line of the project (jax.monitoring's backend-compile event);
the recording keeps the lines where a function compiled more than once in the `eager`
part of observed.json, with the rule's findings; check reports them while the code is
unchanged, moved with lines added above."""
from __future__ import annotations

import json
import textwrap
from pathlib import Path

from helpers import beside_a_library, run_cli

#: an L-BFGS-like step run eagerly: a backtracking line search as a `lax.while_loop` over
#: a value function made anew on each call, so jax traces and compiles the loop each step
EAGER_SEARCH = """
import jax
import jax.numpy as jnp

@jax.jit
def objective(w):
    return jnp.sum((w - 2.0) ** 2) + jnp.sum(jnp.cos(w))

def descend(w):
    value = lambda p: objective(p)
    g = jax.grad(value)(w)
    f0 = value(w)
    def shorter(c):
        return c[0] * 0.5, c[1] + 1
    def worse(c):
        return (value(w - c[0] * g) > f0) & (c[1] < 20)
    t, _ = jax.lax.while_loop(worse, shorter, (jnp.float32(1.0), 0))
    return w - t * g

def main():
    w = jnp.zeros(8)
    for _ in range(5):
        w = descend(w)
    print(float(objective(w)))

if __name__ == "__main__":
    main()
"""
#: the line of the `lax.while_loop` and of the loop's call in EAGER_SEARCH
SEARCH_LINE, CALL_LINE = 16, 22

OPTIONS = '[tool.jaxlint]\nselect = ["JAX212", "JAX208"]\n[tool.jaxlint.rules.JAX212]\nmin-seconds = 0\n{more}'


def _project(folder: Path, source: str, options: str = "") -> Path:
    folder.mkdir(exist_ok=True)
    (folder / "pyproject.toml").write_text(OPTIONS.format(more=options))
    (folder / "prog.py").write_text(textwrap.dedent(source).lstrip())
    return folder


def _record(folder: Path, env: dict | None = None) -> str:
    rec = run_cli("record", "--", "python", "prog.py", cwd=folder, env=env, timeout=300)
    assert rec.returncode == 0, rec.stderr[-3000:]
    return rec.stderr


def _check(folder: Path, *flags: str, env: dict | None = None) -> tuple[list[dict], str]:
    proc = run_cli("check", "--dynamic", "--no-cache", "--output-format", "json", *flags, "prog.py", cwd=folder,
                   env=env, timeout=300)
    assert proc.returncode in (0, 1), proc.stderr[-3000:]
    return json.loads(proc.stdout), proc.stderr


def _summary(folder: Path) -> str:
    """The text report with the dynamic phase's summary (what is out of date, and why)."""
    proc = run_cli("check", "--dynamic", "--no-cache", "prog.py", cwd=folder, timeout=300)
    assert proc.returncode in (0, 1), proc.stderr[-3000:]
    return proc.stdout + proc.stderr


def _eager(folder: Path) -> dict:
    return json.loads((folder / ".jaxlint" / "observed.json").read_text()).get("eager") or {}


def test_an_eager_line_search_compiled_on_every_step_is_reported_at_its_line(tmp_path):
    proj = _project(tmp_path / "p", EAGER_SEARCH)
    said = _record(proj)
    assert "1 line where work outside any jitted function compiles the same program again and again (JAX212)" in said, said
    sites = _eager(proj)["sites"]
    site = sites[f"prog.py:{SEARCH_LINE}:descend"]
    assert site["functions"]["jit(while)"] == 5, site
    assert site["caller"] == f"prog.py:{CALL_LINE}"
    assert "seconds" not in site, "the committed part holds no timings"
    found, _ = _check(proj)
    mine = [d for d in found if d["code"] == "JAX212"]
    assert [(d["location"]["row"], d["location"]["column"]) for d in mine] == [(SEARCH_LINE, 5)], found
    msg = mine[0]["message"]
    assert msg.startswith("`jit(while)` was compiled 5 times at this line, outside any jitted function"), msg
    assert "put `descend` (or the step that calls it) under one `jax.jit`" in msg, msg
    assert msg.endswith("s of XLA compiles)"), msg  # the run's seconds, from timings.json
    assert [(r["location"]["row"], r["message"]) for r in mine[0]["related"]] == [(CALL_LINE, "called from here")]
    # the recorded jitted `objective` (called inside the loop's trace and eagerly) is JAX208's, never counted here
    assert not any(k.endswith(":objective") for k in sites), sites


def test_the_same_step_under_one_jit_is_quiet(tmp_path):
    jitted = EAGER_SEARCH.replace("def descend(w):", "@jax.jit\ndef descend(w):")
    proj = _project(tmp_path / "p", jitted)
    _record(proj)
    assert not _eager(proj).get("sites"), _eager(proj)
    found, _ = _check(proj)
    assert not [d for d in found if d["code"] == "JAX212"], found


def test_eager_work_on_fixed_shapes_compiles_each_operation_once_and_is_quiet(tmp_path):
    proj = _project(tmp_path / "p", """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def energy(x):
            return jnp.sum(x * x)

        if __name__ == "__main__":
            x = jnp.ones(16)
            for _ in range(40):
                x = x * 0.5 + jnp.sin(x)      # eager, the same shapes: each operation compiles once
                print(float(energy(x)))
    """)
    _record(proj)
    again = [s for s in (_eager(proj).get("sites") or {}).values() if any(n > 1 for n in s["functions"].values())]
    assert not again, _eager(proj)  # (its eager operations between the calls are JAX213's)
    found, _ = _check(proj)
    assert not found, found


def test_new_shapes_on_every_iteration_are_reported_and_a_short_warm_up_is_not(tmp_path):
    source = """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def total(x):
            return jnp.sum(x)

        if __name__ == "__main__":
            kept = jnp.zeros(0)
            for i in range({n}):
                kept = jnp.concatenate([kept, jnp.ones(3)])   # a new shape each time
            print(float(total(kept)))
    """
    grows = _project(tmp_path / "grows", source.format(n=8))
    _record(grows)
    found, _ = _check(grows)
    mine = [d for d in found if d["code"] == "JAX212"]
    assert [d["location"]["row"] for d in mine] == [11], found
    assert mine[0]["message"].startswith("`jit(concatenate)` was compiled 8 times at this line"), mine[0]["message"]
    assert "put the loop's step in a function under one `jax.jit`" in mine[0]["message"]
    warm = _project(tmp_path / "warm", source.format(n=3))
    _record(warm)
    found, _ = _check(warm)
    assert not [d for d in found if d["code"] == "JAX212"], found  # 3 compiles: under `min-compiles` (4)


def test_one_call_that_compiles_an_operation_per_shape_is_one_call_and_quiet(tmp_path):
    """An eager model's first call compiles each layer's operations for that layer's shape
    (6 matmuls at one line, in one call); later calls compile nothing: not a finding."""
    proj = _project(tmp_path / "p", """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def score(y):
            return jnp.sum(y)

        def forward(layers, x):
            for w in layers:
                x = jnp.tanh(x @ w)
            return x

        if __name__ == "__main__":
            layers = [jnp.ones((8 + i, 9 + i)) / 10 for i in range(6)]
            for _ in range(3):
                print(float(score(forward(layers, jnp.ones((2, 8))))))
    """)
    _record(proj)
    site = _eager(proj)["sites"]["prog.py:10:forward"]
    assert site["functions"]["jit(matmul)"] == 6 and site["calls"]["jit(matmul)"] == 1, site
    found, _ = _check(proj)
    assert not [d for d in found if d["code"] == "JAX212"], found


def test_thresholds_come_from_the_config_and_a_change_makes_the_site_out_of_date(tmp_path):
    proj = _project(tmp_path / "p", EAGER_SEARCH, "min-compiles = 6\n")
    _record(proj)
    found, _ = _check(proj)
    assert not [d for d in found if d["code"] == "JAX212"], found  # 5 compiles < 6
    assert _eager(proj)["sites"], "the site is kept (its count), the finding is the rule's"
    (proj / "pyproject.toml").write_text(OPTIONS.format(more="min-compiles = 5\n"))
    found, _ = _check(proj)
    assert not [d for d in found if d["code"] == "JAX212"], found
    said = _summary(proj)
    assert "out of date since `jaxlint record`" in said and "its compiles outside the jitted functions" in said, said


def test_findings_move_with_lines_added_above_and_an_edit_makes_them_out_of_date(tmp_path):
    proj = _project(tmp_path / "p", EAGER_SEARCH)
    _record(proj)
    prog = proj / "prog.py"
    prog.write_text("# a comment\n# another\n" + prog.read_text())
    found, _ = _check(proj)
    assert [d["location"]["row"] for d in found if d["code"] == "JAX212"] == [SEARCH_LINE + 2], found
    prog.write_text(prog.read_text().replace("c[0] * 0.5", "c[0] * 0.25"))
    found, _ = _check(proj)
    assert not [d for d in found if d["code"] == "JAX212"], found
    said = _summary(proj)
    assert "changed: prog.py: `descend`" in said, said


def test_a_jit_made_per_call_in_the_project_is_jax208s_and_in_a_library_is_reported_at_the_users_call(tmp_path):
    project_jit = _project(tmp_path / "own", """
        import jax
        import jax.numpy as jnp

        if __name__ == "__main__":
            x = jnp.ones(8)
            for scale in (1.0, 2.0, 3.0, 4.0, 5.0):
                x = jax.jit(lambda v: v * scale)(x)
            print(x)
    """)
    _record(project_jit)
    found, _ = _check(project_jit)
    assert [(d["code"], d["location"]["row"]) for d in found] == [("JAX208", 7)], found
    assert not _eager(project_jit).get("sites"), "the project's own jits are recorded: JAX208 counts them"
    proj, env = beside_a_library(tmp_path, {"smoothing.py": """
import jax

def smooth(x, k):
    # a library that jits a new closure on every call
    return jax.jit(lambda v: v * 0.5 + k)(x)
"""})
    _project(proj, """
        import jax
        import jax.numpy as jnp
        from smoothing import smooth

        @jax.jit
        def score(x):
            return jnp.sum(x)

        if __name__ == "__main__":
            x = jnp.ones(8)
            for k in range(6):
                x = smooth(x, k)
            print(float(score(x)))
    """)
    _record(proj, env)
    found, _ = _check(proj, env=env)
    mine = [d for d in found if d["code"] == "JAX212"]
    assert [d["location"]["row"] for d in mine] == [12], found
    assert mine[0]["message"].startswith("`jit(<lambda>)` was compiled 6 times at this line"), mine[0]["message"]


def test_a_recording_without_the_eager_part_still_checks(tmp_path):
    proj = _project(tmp_path / "p", EAGER_SEARCH)
    _record(proj)
    observed = proj / ".jaxlint" / "observed.json"
    data = json.loads(observed.read_text())
    del data["eager"]  # as a recording made before the part existed
    observed.write_text(json.dumps(data))
    before = [d for d in _check(proj, "--select", "JAX208")[0]]
    found, _ = _check(proj)
    assert not [d for d in found if d["code"] == "JAX212"] and found == before, found
    said = _summary(proj)
    assert "observed by `jaxlint record` in the running program: 1 jitted function called" in said, said
    assert "out of date" not in said, said
    data["eager"] = {"format": 2, "sites": {"x": 1}}  # a later format of the part: not this reader's
    observed.write_text(json.dumps(data))
    found, _ = _check(proj)
    assert found == before, found


def test_code_a_library_calls_back_is_counted_at_the_projects_call_into_the_library(tmp_path):
    """A kernel or value function of the project that a library applies eagerly: its
    compiles are the library call's, counted where the program calls the library (one
    call here, however many shapes the library tries)."""
    proj, env = beside_a_library(tmp_path, {"sweep.py": """
import jax.numpy as jnp

def sweep(fn):
    return [fn(jnp.ones(n)) for n in range(2, 8)]
"""})
    _project(proj, """
        import jax
        import jax.numpy as jnp
        from sweep import sweep

        @jax.jit
        def score(x):
            return jnp.sum(x)

        def kernel(x):
            return jnp.sin(x) * 2.0

        if __name__ == "__main__":
            out = sweep(kernel)
            print(float(score(out[0])))
    """, )
    _record(proj, env)
    sites = _eager(proj)["sites"]
    assert "prog.py:13:<module>" in sites and not any(":kernel" in k for k in sites), sites
    assert sites["prog.py:13:<module>"]["functions"]["jit(sin)"] == 6, sites
    found, _ = _check(proj, env=env)
    assert not [d for d in found if d["code"] == "JAX212"], found  # one call of the line
