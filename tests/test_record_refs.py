"""A jitted step whose state is a tree of ``jax.ref`` refs in a dict subclass that answers a
missing attribute with KeyError (``__getattr__ = dict.__getitem__``, as jax's training
cookbook's ``dot_dict``) is recorded, compiled and analysed: each ref as what jit traces
(its shape, dtype and placement, marked a ref), its arguments saved abstractly (a ref of
that aval, never its value) so that ``check --dynamic`` traces the function again from
the recording. Until issue 37's eleventh judgement the recorder failed on every such call
(``KeyError: 'shape'``) and the compile step on its ``args_info`` (``KeyError:
'donated'``). The real ``jaxlint record`` and ``check``, real jax."""
from __future__ import annotations

import json

import jax
import pytest

from helpers import run_cli

pytestmark = pytest.mark.skipif(getattr(getattr(jax, "ref", None), "new_ref", None) is None,
                                reason="this jax has no jax.ref")

PROGRAM = '''
import jax
import jax.numpy as jnp


@jax.tree_util.register_pytree_with_keys_class
class dot_dict(dict):
    __setattr__ = dict.__setitem__
    __getattr__ = dict.__getitem__  # a missing attribute raises KeyError

    def tree_flatten_with_keys(self):
        keys = tuple(sorted(self))
        return tuple((jax.tree_util.DictKey(k), self[k]) for k in keys), keys

    @classmethod
    def tree_unflatten(cls, keys, values):
        return cls(zip(keys, values))


@jax.jit
def step(state, x):
    state.w[...] += x
    state.n[...] += 1
    return jax.ref.get(state.w).sum()


def main():
    state = jax.tree.map(jax.ref.new_ref, dot_dict(w=jnp.full(3, 7.0), n=jnp.zeros((), jnp.int32)))
    for _ in range(3):
        step(state, jnp.ones(3))


if __name__ == "__main__":
    main()
'''


def test_a_tree_of_refs_is_recorded_and_traced_again_from_the_recording(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.jaxlint]\n")
    (tmp_path / "prog.py").write_text(PROGRAM.lstrip("\n"))
    rec = run_cli("record", "--no-analysis", "--", "python", "prog.py", cwd=tmp_path, timeout=600)
    assert rec.returncode == 0, rec.stderr[-3000:]
    assert "recorder failed" not in rec.stderr, rec.stderr[-3000:]
    [sig] = json.loads((tmp_path / ".jaxlint" / "signatures.json").read_text())["functions"]["prog:step"]["signatures"]
    assert sig["calls"] == 3
    state = sig["args"][0]["dict"]
    assert {k: (v["array"], v["dtype"], v["ref"], "sharding" in v) for k, v in state.items()} == {
        "n": ([], "int32", True, True), "w": ([3], "float32", True, True)}
    assert "ref" not in json.dumps(sig["args"][1])  # the plain array argument is no ref
    assert sig.get("pickle"), sig  # JSON rebuilds no ref: the arguments are saved

    from jaxlint.dynamic import signatures

    saved = signatures.read_pickle(tmp_path / ".jaxlint" / "signatures.json", sig["pickle"])
    assert b"\x00\x00\xe0@" * 3 not in saved  # the refs' value (7.0, float32) is not kept

    # traced (and compiled) again outside the program, from the saved arguments alone
    chk = run_cli("check", "--dynamic", "--compile", "--show-skipped", ".", cwd=tmp_path, timeout=600)
    assert "1 function analysed, 0 skipped, 0 failed" in chk.stdout + chk.stderr, chk.stdout + chk.stderr
    assert "JAX205" not in chk.stdout, chk.stdout


def test_a_tree_of_refs_is_traced_and_compiled_in_the_running_program(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.jaxlint]\n")
    (tmp_path / "prog.py").write_text(PROGRAM.lstrip("\n"))
    rec = run_cli("record", "--compile", "--", "python", "prog.py", cwd=tmp_path, timeout=600)
    assert rec.returncode == 0, rec.stderr[-3000:]
    assert "recorder failed" not in rec.stderr and "compile step failed" not in rec.stderr
    assert "1 traced, 1 compiled" in rec.stderr, rec.stderr[-3000:]
    chk = run_cli("check", "--dynamic", "--compile", "--show-skipped", ".", cwd=tmp_path, timeout=600)
    out = chk.stdout + chk.stderr
    assert "1 function analysed, 0 skipped, 0 failed" in out and "not called" not in out, out
