"""A recording is never lost: Ctrl-C during `jaxlint record` keeps every earlier
signature, its saved arguments and the findings they carried, and recording an
unchanged program again leaves the committed files byte-identical, a slow-compile finding
(JAX303) included: its measured compile time is shown, never committed. The real CLI in a
subprocess, real jax; the Ctrl-C reaches the whole process group, as a terminal's does."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from helpers import run_cli

TRAIN = '''
import os
import signal
import sys

import jax
import jax.numpy as jnp
from jax.tree_util import register_pytree_node_class


@register_pytree_node_class
class Params:
    def __init__(self, w):
        self.w = w

    def tree_flatten(self):
        return (self.w,), None

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(*children)


@jax.jit
def train_step(p, x):
    return Params(p.w - 0.1 * (x @ p.w).mean())


def main():
    p = Params(jnp.ones((4, 4)))
    for n in [int(s) for s in sys.argv[1].split(",")]:
        p = train_step(p, jnp.ones((n, 4)))
    p.w.block_until_ready()
    if "--interrupt" in sys.argv:
        os.killpg(0, signal.SIGINT)  # Ctrl-C at a terminal: the whole foreground group


if __name__ == "__main__":
    main()
'''


def _record(root, *argv: str) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env.pop("JAXLINT_OUTPUT_FORMAT", None)
    # a session of its own, so that the Ctrl-C reaches jaxlint and the program, not pytest
    return subprocess.run([sys.executable, "-m", "jaxlint", "record", "--compile", "--", "python", "train.py", *argv],
                          cwd=root, capture_output=True, text=True, env=env, timeout=600, start_new_session=True)


def _files(root) -> dict[str, bytes]:
    folder = root / ".jaxlint"
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("keeps")
    # every program is "large" here, so that the recording holds a finding with a measured time
    (root / "pyproject.toml").write_text("[tool.jaxlint]\n[tool.jaxlint.rules.slow-compile]\nmax-instructions = 1\nsize-alone = true\n")
    (root / "train.py").write_text(TRAIN.lstrip("\n"))
    full = _record(root, "64,64,64,52")
    after_full = _files(root)
    interrupted = _record(root, "64", "--interrupt")
    after_interrupt = _files(root)
    check = run_cli("check", "--dynamic", "--compile", "--no-cache", "--output-format", "json", "--select", "JAX208,JAX303",
                    cwd=root, timeout=600)
    again = _record(root, "64,64,64,52")
    return root, full, after_full, interrupted, after_interrupt, check, again, _files(root)


def test_ctrl_c_during_record_keeps_every_earlier_signature_and_its_saved_arguments(runs):
    root, full, after_full, interrupted, after_interrupt, *_ = runs
    assert full.returncode == 0, full.stderr[-3000:]
    assert interrupted.returncode == 130, interrupted.stderr[-3000:]
    assert "did not complete" in interrupted.stderr and "1 earlier signature it did not call again kept" \
        in interrupted.stderr, interrupted.stderr[-2000:]
    sigs = json.loads(after_interrupt["signatures.json"])["functions"]["train:train_step"]["signatures"]
    batches = sorted(s["args"][1] for s in sigs)
    assert batches == ["f32[52,4]", "f32[64,4]"]
    pickles = sorted(k for k in after_full if k.startswith("signatures.pickles/"))
    assert len(pickles) == 2
    assert all(after_interrupt.get(k) == after_full[k] for k in pickles)


def test_the_finding_an_interrupted_run_did_not_see_again_is_still_reported(runs):
    _, _, _, _, after_interrupt, check, *_ = runs
    observed = json.loads(after_interrupt["observed.json"])["functions"]["train:train_step"]
    assert sorted(d["code"] for d in observed["diagnostics"]) == ["JAX208", "JAX303"]
    assert check.returncode == 1, check.stderr[-2000:]
    shown = {d["code"]: d for d in json.loads(check.stdout)}
    assert sorted(shown) == ["JAX208", "JAX303"]
    # the compile time the recording measured is shown, read back from the side file
    notes = json.loads(after_interrupt["timings.json"])["functions"]["train:train_step"]["diagnostics"]
    assert shown["JAX303"]["data"]["measured"] in notes.values()
    assert shown["JAX303"]["message"].endswith(f" ({shown['JAX303']['data']['measured']})")


def test_recording_an_unchanged_program_again_changes_no_byte(runs):
    root, _, after_full, *_, again, after_again = runs
    assert again.returncode == 0, again.stderr[-2000:]
    # every committed file byte for byte; the run's timings go to a side file git ignores
    assert {k: v for k, v in after_again.items() if k != "timings.json"} == \
        {k: v for k, v in after_full.items() if k != "timings.json"}
    assert after_again[".gitignore"].decode().splitlines()[-1] == "timings.json"
    observed = json.loads(after_again["observed.json"])["functions"]["train:train_step"]
    assert "seconds" not in observed and not any(k.endswith("_seconds") for k in observed["report"])
    assert "compile_seconds" not in observed["report"]["budget"] and observed["report"]["budget"]["figures"]
    (slow,) = [d for d in observed["diagnostics"] if d["code"] == "JAX303"]
    assert "optimized HLO instructions (budget 1)" in slow["message"] and "measured" not in slow["message"]
    assert "measured" not in slow["data"] and slow["data"]["hlo_instructions"] > 1


def test_the_timings_are_read_back_with_the_recording_they_were_measured_with(runs):
    root, *_ = runs
    from jaxlint.dynamic import observed as observations

    path = root / ".jaxlint" / "observed.json"
    entry = observations.load(path)["functions"]["train:train_step"]
    assert entry["report"]["budget"]["compile_seconds"] > 0 and entry["report"]["compile_seconds"] > 0
    (slow,) = [d for d in entry["diagnostics"] if d["code"] == "JAX303"]
    assert slow["message"].endswith(f" ({slow['data']['measured']})") and " s CPU" in slow["data"]["measured"]
    # an observation that is not the one they were measured with gets none of them
    data = json.loads(path.read_text())
    data["functions"]["train:train_step"]["calls"] += 1
    other = root / "other" / "observed.json"
    other.parent.mkdir()
    other.write_text(json.dumps(data))
    (other.parent / "timings.json").write_bytes((root / ".jaxlint" / "timings.json").read_bytes())
    entry = observations.load(other)["functions"]["train:train_step"]
    assert "compile_seconds" not in entry["report"]["budget"] and "compile_seconds" not in entry["report"]
    assert not any("measured" in d["message"] or "measured" in d["data"] for d in entry["diagnostics"])
