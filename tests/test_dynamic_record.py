"""`jaxlint record -- CMD` then `jaxlint check --dynamic`: real subprocesses, real jax."""
from __future__ import annotations

import json

import pytest

from helpers import beside_a_library, run_cli

MODEL = '''
import jax
import jax.numpy as jnp
from functools import partial


@jax.jit
def predict(w, x):
    return jnp.tanh(x @ w)


@partial(jax.jit, static_argnums=(2,))
def step(w, x, n):
    for _ in range(n):
        w = w - 0.1 * x.T @ predict(w, x)
    return w


scale = jax.jit(lambda x, s: x * s)


class Model:
    @partial(jax.jit, static_argnums=0)
    def apply(self, x):
        for _ in range(16):
            x = x * 2 + 1
        return x

    @partial(jax.jit, static_argnums=0)
    def unused(self, x):
        return x
'''

TRAIN = '''
import sys
import jax
import jax.numpy as jnp
from pkg.model import predict, step, scale, Model


@jax.jit
def local(x):
    return x * 2


w = jnp.zeros((4, 3))
for bs in (8, 8, 8, 5):
    x = jnp.ones((bs, 4))
    predict(w, x)
    step(w, x, 2 if bs == 8 else 3)
scale(x, 2.0)
scale(x, jnp.float32(2.0))
local(x)
Model().apply(x)
print("trained", file=sys.stderr)
'''

TEST = '''
from pkg.model import predict
import jax.numpy as jnp

def test_predict():
    assert predict(jnp.zeros((2, 2)), jnp.ones((7, 2))).shape == (7, 2)
'''


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    root = tmp_path_factory.mktemp("recproj")
    (root / "pyproject.toml").write_text("[tool.jaxlint]\n")
    (root / "pkg").mkdir()
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "model.py").write_text(MODEL.lstrip("\n"))
    (root / "train.py").write_text(TRAIN.lstrip("\n"))
    (root / "tests").mkdir()
    (root / "tests" / "test_model.py").write_text(TEST.lstrip("\n"))
    rec = run_cli("record", "--", "python", "train.py", cwd=root, timeout=300)
    sig_file = root / ".jaxlint" / "signatures.json"
    first = sig_file.read_text()
    check = run_cli("check", "--dynamic", "--no-cache", "--output-format", "json", "--select", "JAX2",
                    cwd=root, timeout=300)
    summary = run_cli("check", "--dynamic", "--no-cache", "--show-skipped", "--select", "JAX2", cwd=root, timeout=300)
    return root, rec, first, check, summary


def test_record_runs_the_command_and_keeps_its_exit_status(project):
    _, rec, *_ = project
    assert rec.returncode == 0, rec.stderr
    assert "trained" in rec.stderr
    assert "written to .jaxlint/signatures.json" in rec.stderr
    # predict, step and the lambda compile twice each; the code comes from the registry
    assert "(3 with several signatures: see JAX208)" in rec.stderr


def test_record_keys_functions_like_the_jit_map(project):
    _, _, first, *_ = project
    functions = json.loads(first)["functions"]
    assert sorted(functions) == ["pkg.model:<lambda>@18", "pkg.model:Model.apply", "pkg.model:predict",
                                 "pkg.model:step", "train:local"]
    # the calls from train.py first; those inside `step`'s trace (inlined there) after them
    sigs = functions["pkg.model:predict"]["signatures"]
    assert sigs[0] == {"args": ["f32[4,3]", "f32[8,4]"], "calls": 3, "kwargs": {}}
    assert sigs[1] == {"args": ["f32[4,3]", "f32[5,4]"], "calls": 1, "kwargs": {}}
    assert all(s.get("inlined") for s in sigs[2:]) and sum(s["calls"] for s in sigs[2:]) == 5


def test_record_writes_static_values_and_weak_types(project):
    _, _, first, *_ = project
    functions = json.loads(first)["functions"]
    step_args = [s["args"][2] for s in functions["pkg.model:step"]["signatures"]]
    assert sorted(a["value"] for a in step_args) == [2, 3]
    lam = [s["args"][1] for s in functions["pkg.model:<lambda>@18"]["signatures"]]
    assert sorted(lam) == ["f32[]", "f32[] weak"]


def test_record_output_is_stable_across_runs(project):
    root, _, first, *_ = project
    again = run_cli("record", "--", "python", "train.py", cwd=root, timeout=300)
    assert again.returncode == 0
    assert (root / ".jaxlint" / "signatures.json").read_text() == first


def test_recompilation_is_reported_at_the_call_that_compiled_again(project):
    _, _, _, check, _ = project
    found = {(d["filename"], d["location"]["row"], d["message"].split("): ", 1)[1],
              tuple((r["filename"], r["location"]["row"]) for r in d["related"]))
             for d in json.loads(check.stdout) if d["code"] == "JAX208"}
    last_batch = "(a smaller final batch or sequence: pad it to the full size or drop it)"
    assert found == {
        # the loop's smaller last batch, at the loop's call, with where the function is jitted
        ("train.py", 15, f"`x` changes shape (8, 4) -> (5, 4) {last_batch}", (("pkg/model.py", 6),)),
        ("train.py", 16, f"`x` changes shape (8, 4) -> (5, 4); `n` (static) changes value 2 -> 3 {last_batch}",
         (("pkg/model.py", 11),)),
        # a Python float, then an array: the second call compiled again
        ("train.py", 18, "`s` changes weak type (a Python scalar -> an array) "
                         "(a Python scalar in some calls and an array in others)",
         (("pkg/model.py", 18), ("train.py", 17))),
    }, check.stdout
    # `predict` called inside `step`'s trace with other shapes is inlined there: no compile of its own
    assert not [d for d in found if "inlined" in d[2]]


def test_a_script_run_as_main_is_matched_by_its_file(project):
    _, _, _, _, summary = project
    # predict, step, the lambda, Model.apply and train.py's `local` (recorded under
    # __main__) are analysed
    assert "5 functions analysed, 1 skipped, 0 failed" in summary.stdout, summary.stdout


def test_a_recorded_method_is_traced_with_the_saved_instance(project):
    _, _, first, check, _ = project
    sig = json.loads(first)["functions"]["pkg.model:Model.apply"]["signatures"][0]
    assert sig["args"][0] == {"repr": "<pkg.model.Model object>"} and len(sig["pickle"]) == 64
    loops = [d for d in json.loads(check.stdout) if d["code"] == "JAX202"]
    assert [(d["filename"], d["location"]["row"]) for d in loops] == [("pkg/model.py", 24)], check.stdout


def test_methods_never_called_are_skipped_with_the_reason(project):
    _, _, _, _, summary = project
    assert ("skipped pkg/model.py:28 Model.unused: not called while `jaxlint record` ran, and a jitted method "
            "needs an instance") in summary.stdout


def test_record_with_pytest_as_the_command(project, tmp_path):
    root = project[0]
    out = tmp_path / "sigs.json"
    rec = run_cli("record", "--signatures", str(out), "--", "pytest", "-q", "-p", "no:cacheprovider",
                  "tests/test_model.py", cwd=root, timeout=300)
    assert rec.returncode == 0, rec.stdout + rec.stderr
    functions = json.loads(out.read_text())["functions"]
    assert functions["pkg.model:predict"]["signatures"][0]["args"] == ["f32[2,2]", "f32[7,2]"]


def test_check_uses_a_signatures_file_given_on_the_command_line(project, tmp_path):
    root = project[0]
    sig = tmp_path / "other.json"
    sig.write_text(json.dumps({"format": 1, "functions": {"pkg.model:predict": {"signatures": [
        {"args": ["f32[4,3]", "f32[2,4]"], "kwargs": {}, "calls": 1},
        {"args": ["f32[4,3]", "f32[2,4] weak"], "kwargs": {}, "calls": 1},
    ]}}}))
    proc = run_cli("check", "--dynamic", "--no-cache", "--signatures", str(sig), "--output-format", "json",
                   "--select", "JAX208", "pkg/model.py", cwd=root, timeout=300)
    msgs = [d["message"] for d in json.loads(proc.stdout)]
    assert any("`x` changes weak type" in m for m in msgs), msgs
    missing = run_cli("check", "--dynamic", "--signatures", str(tmp_path / "nope.json"), cwd=root)
    assert missing.returncode == 2 and "--signatures: no such file" in missing.stderr


STATE = '''
import jax
import jax.numpy as jnp


@jax.tree_util.register_pytree_node_class
class State:
    def __init__(self, step, w):
        self.step, self.w = step, w

    def tree_flatten(self):
        return (self.step, self.w), None

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(*children)


@jax.jit
def bump(s):
    return State(s.step + 1, s.w * 2)


s = State(0, jnp.ones(3))  # a Python int leaf, then the weak int32[] array bump returns
for _ in range(3):
    s = bump(s)
'''


def test_a_python_number_leaf_of_a_model_records_like_the_weak_scalar_jit_makes_of_it(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.jaxlint]\nselect = [\"JAX208\"]\n")
    (tmp_path / "state.py").write_text(STATE)
    rec = run_cli("record", "--", "python", "state.py", cwd=tmp_path, timeout=300)
    assert rec.returncode == 0, rec.stderr
    (entry,) = json.loads((tmp_path / ".jaxlint" / "signatures.json").read_text())["functions"].values()
    # one compile, so one record: the int 0 and the arrays jit returned look the same
    (sig,) = entry["signatures"]
    assert sig["calls"] == 3 and "i32[] weak" in sig["args"][0]["leaves"].values(), sig
    assert "several signatures" not in rec.stderr
    check = run_cli("check", "--dynamic", "--no-cache", "--output-format", "json", ".", cwd=tmp_path, timeout=300)
    assert json.loads(check.stdout) == [], check.stderr


def test_a_library_that_jits_a_project_function_is_recorded_and_check_finds_the_recording(tmp_path):
    # a test helper outside the project (chex's variants do this) jits the project's own
    # function; the project folder has no marker but the `.jaxlint/` record writes
    # the library's folder is put before the caller's PYTHONPATH, not instead of it (a host whose
    # jaxlint itself comes from PYTHONPATH, as the TPU harness installs it, must still find it)
    proj, env = beside_a_library(tmp_path, {"jitlib.py": "import jax\n\n\ndef jit_and_call(f, *args):\n"
                                                         "    return jax.jit(f)(*args)\n"})
    (proj / "pkg").mkdir(parents=True)
    (proj / "pkg" / "__init__.py").write_text("")
    (proj / "pkg" / "ops.py").write_text(
        "import jax.numpy as jnp\n\n\ndef smooth(x):\n    for _ in range(300):\n        x = jnp.tanh(x) * 0.5 + x\n"
        "    return x\n")
    (proj / "run.py").write_text(
        "import jax.numpy as jnp\nimport jitlib\nfrom pkg.ops import smooth\n\n"
        "if __name__ == '__main__':\n    jitlib.jit_and_call(smooth, jnp.ones(4))\n")
    rec = run_cli("record", "--", "python", "run.py", cwd=proj, timeout=300, env=env)
    assert rec.returncode == 0, rec.stdout + rec.stderr
    assert "1 jitted function called: 1 traced" in rec.stdout + rec.stderr, rec.stdout + rec.stderr
    # from a subfolder's file too: the recording's folder is the project's root
    proc = run_cli("check", "--dynamic", "--no-cache", "--select", "JAX202", "pkg/ops.py", cwd=proj, timeout=300)
    assert "pkg/ops.py:5:5: JAX202" in proc.stdout, proc.stdout + proc.stderr
