"""What a `jaxlint record` observation rests on includes what its traced methods read of
their instance (issue 35, case 2): a module's field default, an ``__init__`` default, a
module constant read through them. Changed after the recording, the observation is out
of date and the cost gate fails with "out of date: record again" (unless
``fail-out-of-date = false``). Real jax, real records, for flax linen and nnx, equinox
and a plain dataclass."""
from __future__ import annotations

import importlib.util
import json
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("jax")

from helpers import run_cli  # noqa: E402

LINEN = """
import jax
import jax.numpy as jnp
import flax.linen as nn

HIDDEN = 512


class MLP(nn.Module):
    hidden: int = HIDDEN

    @nn.compact
    def __call__(self, x):
        return nn.Dense(10)(nn.relu(nn.Dense(self.hidden)(x)))


MODEL = MLP()


@jax.jit
def forward(params, x):
    return MODEL.apply(params, x)


def main():
    x = jnp.ones((16, 784))
    forward(MODEL.init(jax.random.key(1), x), x)


if __name__ == "__main__":
    main()
"""
NNX = """
import jax
import jax.numpy as jnp
from flax import nnx


class MLP(nnx.Module):
    def __init__(self, rngs, hidden: int = 512):
        self.l1 = nnx.Linear(784, hidden, rngs=rngs)
        self.l2 = nnx.Linear(hidden, 10, rngs=rngs)

    def __call__(self, x):
        return self.l2(nnx.relu(self.l1(x)))


@nnx.jit
def forward(model, x):
    return model(x)


def main():
    forward(MLP(nnx.Rngs(0)), jnp.ones((16, 784)))


if __name__ == "__main__":
    main()
"""
EQX = """
import equinox as eqx
import jax
import jax.numpy as jnp


class Scaled(eqx.Module):
    weight: jax.Array
    hidden: int = eqx.field(static=True, default=512)

    def __call__(self, x):
        return jnp.tanh(x @ self.weight) @ jnp.ones((self.weight.shape[1], self.hidden))


@eqx.filter_jit
def forward(model, x):
    return model(x)


def main():
    forward(Scaled(jnp.ones((784, 64))), jnp.ones((16, 784)))


if __name__ == "__main__":
    main()
"""
DATACLASS = """
import dataclasses

import jax
import jax.numpy as jnp


@dataclasses.dataclass(frozen=True)
class Model:
    hidden: int = 512

    def __call__(self, x):
        return jnp.tanh(x @ jnp.ones((x.shape[1], self.hidden)))


MODEL = Model()


@jax.jit
def forward(x):
    return MODEL(x)


def main():
    forward(jnp.ones((16, 784)))


if __name__ == "__main__":
    main()
"""
CASES = {
    # (program, the edit, what the summary names, modules it needs)
    "linen": (LINEN, ("HIDDEN = 512", "HIDDEN = 1024"), "a top-level statement", ("flax",)),
    "nnx": (NNX, ("hidden: int = 512", "hidden: int = 1024"), "`MLP.__init__`", ("flax",)),
    "equinox": (EQX, ("default=512", "default=1024"), "the fields of `Scaled`", ("equinox",)),
    "dataclass": (DATACLASS, ("hidden: int = 512", "hidden: int = 1024"), "the fields of `Model`", ()),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_changed_field_default_makes_the_recording_out_of_date_and_fails_the_gate(tmp_path, case):
    program, (old, new), what, needs = CASES[case]
    missing = [m for m in needs if importlib.util.find_spec(m) is None]
    if missing:
        pytest.skip(f"{', '.join(missing)} not installed")
    (tmp_path / "pyproject.toml").write_text("[tool.jaxlint]\n")
    src = tmp_path / "train.py"
    src.write_text(textwrap.dedent(program).lstrip("\n"))
    rec = run_cli("record", "--compile", "--", "python", "train.py", cwd=tmp_path, timeout=600)
    assert rec.returncode in (0, 1), rec.stderr
    up = run_cli("budget", "update", cwd=tmp_path, timeout=600)
    assert up.returncode == 0 and "added train:forward" in up.stderr, up.stderr
    ok = run_cli("check", "--dynamic", "--compile", "--select", "JAX306", cwd=tmp_path, timeout=600)
    assert ok.returncode == 0 and "out of date" not in ok.stdout, ok.stdout
    src.write_text(src.read_text().replace(old, new))
    r = run_cli("check", "--dynamic", "--compile", "--select", "JAX306", "--output-format", "json",
                cwd=tmp_path, timeout=600)
    assert r.returncode == 1, r.stdout + r.stderr
    [d] = [d for d in json.loads(r.stdout) if "out of date" in d["message"]]
    assert d["message"].startswith("`forward`'s cost figures are out of date: record again"), d["message"]
    assert f"train.py: {what}" in d["message"], d["message"]
    text = run_cli("check", "--dynamic", "--compile", "--select", "JAX306", cwd=tmp_path, timeout=600)
    assert "out of date: record again (changed since `jaxlint record`: " in text.stdout, text.stdout
    # told otherwise: the out-of-date figures are listed, not failed on
    lenient = run_cli("check", "--dynamic", "--compile", "--select", "JAX306", "--output-format", "json",
                      "--config", "rules.cost-budget.fail-out-of-date = false", cwd=tmp_path, timeout=600)
    assert not [d for d in json.loads(lenient.stdout) if "out of date" in d["message"]], lenient.stdout


CLOSURE = DATACLASS.split("MODEL = Model()")[0] + """
def main():
    model = Model()

    @jax.jit
    def step(x):
        return model(x)

    step(jnp.ones((16, 784)))


if __name__ == "__main__":
    main()
"""


def test_a_function_only_the_recording_reaches_fails_out_of_date_without_figures(tmp_path):
    """A jitted closure: no worker can measure it, so once its recording is out of date
    there are no figures at all; the gate still fails and says to record again."""
    (tmp_path / "pyproject.toml").write_text("[tool.jaxlint]\n")
    src = tmp_path / "train.py"
    src.write_text(textwrap.dedent(CLOSURE).lstrip("\n"))
    assert run_cli("record", "--compile", "--", "python", "train.py", cwd=tmp_path, timeout=600).returncode in (0, 1)
    up = run_cli("budget", "update", cwd=tmp_path, timeout=600)
    assert "added train:main.<locals>.step" in up.stderr, up.stderr
    src.write_text(src.read_text().replace("hidden: int = 512", "hidden: int = 1024"))
    r = run_cli("check", "--dynamic", "--compile", "--select", "JAX306", cwd=tmp_path, timeout=600)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "JAX306 `main.<locals>.step`'s cost figures are out of date: record again" in r.stdout, r.stdout
    assert "train:main.<locals>.step  -       -       -    -       out of date: record again" in r.stdout, r.stdout
    # an update keeps the budget of a function it could not measure: it is not gone
    again = run_cli("budget", "update", cwd=tmp_path, timeout=600)
    assert "removed" not in again.stderr, again.stderr
    assert list(json.loads((tmp_path / "jaxlint-budgets.json").read_text())["functions"]) == ["train:main.<locals>.step"]
