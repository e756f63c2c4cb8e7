"""JAX304 at the user's line when a library computes the intermediate (issue 37, the fifth
blind judgement: jax-md's `jit(elasticity.athermal_moduli(energy_fn))` needs 76 MiB of
temporaries because `energy_fn` is the dense pair energy; the finding sat at the call, where
nothing can change, not at `energy_fn = energy.soft_sphere_pair(displacement)`). Real
`jaxlint record --compile` of a small program jitting an installed library's factory made
from a function the program made with the same library, real jax: the finding sits where that
function was made, the call that traced it and the jit line related."""
from __future__ import annotations

import json
import os

import pytest

from helpers import run_cli

pytest.importorskip("jax")

LIBRARY = '''
import jax
import jax.numpy as jnp


def dense_pair_energy(scale=1.0):
    def energy(x):
        d = jnp.sort(x[:, None, :] - x[None, :, :], axis=-1)  # every pair: N x N x dim
        return scale * jnp.sum(d[..., 0] ** 2)
    return energy


def forces(energy_fn, sign=-1.0):
    def force(x):
        return sign * jax.grad(energy_fn)(x)
    return force
'''

PROGRAM = '''
import jax
import jax.numpy as jnp
import pairlib

energy_fn = pairlib.dense_pair_energy(0.5)  # MADE
force_fn = jax.jit(pairlib.forces(energy_fn))  # JIT

if __name__ == "__main__":
    x = jnp.linspace(0.0, 1.0, 512 * 8).reshape(512, 8)
    print(force_fn(x).sum())  # CALL
'''


def _line(marker: str) -> int:
    return next(i for i, text in enumerate(PROGRAM.lstrip().splitlines(), 1) if text.endswith(f"# {marker}"))


def test_an_intermediate_a_library_makes_with_a_function_the_program_made_is_reported_where_it_was_made(tmp_path):
    lib = tmp_path / "site-packages" / "pairlib"  # an installed library, outside the project
    lib.mkdir(parents=True)
    (lib / "__init__.py").write_text(LIBRARY.lstrip())
    root = tmp_path / "proj"
    root.mkdir()
    (root / "pyproject.toml").write_text('[tool.jaxlint]\nselect = ["JAX304"]\n')
    (root / "prog.py").write_text(PROGRAM.lstrip())
    env = {"PYTHONPATH": os.pathsep.join(p for p in (str(lib.parent), os.environ.get("PYTHONPATH")) if p)}
    rec = run_cli("record", "--compile", "--", "python", "prog.py", cwd=root, env=env, timeout=600)
    assert rec.returncode == 0, rec.stderr[-3000:]
    proc = run_cli("check", "--dynamic", "--compile", "--no-cache", "--output-format", "json", "prog.py",
                   cwd=root, env=env, timeout=600)
    assert proc.returncode == 1, proc.stderr[-3000:]
    found = [d for d in json.loads(proc.stdout) if d["code"] == "JAX304"]
    assert [d["location"]["row"] for d in found] == [_line("MADE")], proc.stdout
    msg = found[0]["message"]
    assert (f"made inside `dense_pair_energy.<locals>.energy` (pairlib/__init__.py), the `energy_fn` given to "
            f"`forces` at line {_line('JIT')} and made at line {_line('MADE')}") in msg, msg
    related = [(r["location"]["row"], r["message"]) for r in found[0]["related"]]
    assert related[0] == (_line("CALL"), "the call that traced it"), related
