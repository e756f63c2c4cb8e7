"""The cost gate as a user meets it when the model changes (issue 35): a budget belongs to
the function, so a wider layer is compared with its budget and fails, with the shape
change in the table; entries of functions no longer measured are stale; keys stay short.
Real compiles on CPU through the real CLI."""
from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("jax")

from helpers import run_cli  # noqa: E402

TINY = """
import jax
import jax.numpy as jnp


# jaxlint: args=(f32[8,8],)
@jax.jit
def f(x):
    return jnp.tanh(x @ x)
"""


def write(root: Path, name: str, text: str) -> None:
    (root / name).write_text(textwrap.dedent(text).lstrip("\n"))


def test_budget_update_takes_the_config_forms_of_check(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.jaxlint]\n")
    write(tmp_path, "m.py", TINY)
    r = run_cli("budget", "update", "--config", 'dynamic.budgets = "other.json"', cwd=tmp_path, timeout=600)
    assert r.returncode == 0, r.stderr
    assert "no such file" not in r.stderr and (tmp_path / "other.json").is_file(), r.stderr
    assert not (tmp_path / "jaxlint-budgets.json").exists()
    # a config file and an inline setting together, as `check` takes them
    (tmp_path / "alt.toml").write_text("[dynamic]\nbudgets = \"alt.json\"\n")
    r = run_cli("budget", "update", "--config", "alt.toml", "--config", "dynamic.function-timeout = 120",
                cwd=tmp_path, timeout=600)
    assert r.returncode == 0 and (tmp_path / "alt.json").is_file(), r.stderr
    two = run_cli("budget", "update", "--config", "a.toml", "--config", "b.toml", cwd=tmp_path)
    assert two.returncode == 2 and "one config file at most" in two.stderr, two.stderr


def test_inspect_takes_the_config_forms_of_check(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.jaxlint]\n")
    write(tmp_path, "m.py", TINY)
    r = run_cli("inspect", "m.py::f", "--stage", "jaxpr", "--config", 'dynamic.backend = "cpu"', cwd=tmp_path)
    assert r.returncode == 0 and "tanh" in r.stdout, r.stderr
    missing = run_cli("inspect", "m.py::f", "--config", "nofile.toml", cwd=tmp_path)
    assert missing.returncode == 2 and "--config: no such file: nofile.toml" in missing.stderr, missing.stderr


# ------------------------------------------------------------------ a budget belongs to the function
MLP = """
import jax
import jax.numpy as jnp

WIDTH = {width}


def init():
    return {{"w1": jnp.zeros((64, WIDTH)), "b1": jnp.zeros((WIDTH,)), "w2": jnp.zeros((WIDTH, 10))}}


def loss(params, x):
    {hidden} = jnp.tanh(x @ params["w1"] + params["b1"])
    return jnp.mean(({hidden} @ params["w2"]) ** 2)


@jax.jit
def step(params, x):
    g = jax.grad(loss)(params, x)
    return jax.tree.map(lambda p, d: p - 0.1 * d, params, g)
{extra}

def main():
    params = init()
    for _ in range(2):
        params = step(params, jnp.ones((32, 64)))
{calls}

if __name__ == "__main__":
    main()
"""
EVALUATE = """

@jax.jit
def evaluate(params, x):
    return loss(params, x)
"""
FLAX = """
import jax
import jax.numpy as jnp
import flax.linen as nn
import optax
from flax.training import train_state


class MLP(nn.Module):
    hidden: int = {hidden}

    @nn.compact
    def __call__(self, x):
        x = nn.relu(nn.Dense(self.hidden)(x))
        return nn.Dense(10)(x)


@jax.jit
def train_step(state, x, y):
    def loss(p):
        return optax.softmax_cross_entropy_with_integer_labels(state.apply_fn(p, x), y).mean()
    return state.apply_gradients(grads=jax.grad(loss)(state.params))


def main():
    model = MLP()
    params = model.init(jax.random.key(0), jnp.ones((16, 784)))
    state = train_state.TrainState.create(apply_fn=model.apply, params=params, tx=optax.adam(1e-3))
    state = train_step(state, jnp.ones((16, 784)), jnp.zeros((16,), jnp.int32))


if __name__ == "__main__":
    main()
"""


def mlp(width=256, hidden="h", evaluate=True):
    return MLP.format(width=width, hidden=hidden, extra=EVALUATE if evaluate else "",
                      calls="    evaluate(params, jnp.ones((32, 64)))\n" if evaluate else "")


def record(root: Path, *extra: str):
    r = run_cli("record", "--compile", *extra, "--", "python", "train.py", cwd=root, timeout=600)
    assert r.returncode in (0, 1), r.stderr
    return r


def gate(root: Path, *extra: str):
    return run_cli("check", "--dynamic", "--compile", *extra, cwd=root, timeout=600)


def table(stdout: str) -> list[list[str]]:
    """The budget table's rows, split at runs of two spaces."""
    text = stdout.split("Cost budgets:", 1)[1]
    return [[c.strip() for c in line.strip().split("  ") if c.strip()] for line in text.splitlines()[3:]
            if line.strip() and not line.strip().startswith("budgets:")]


@pytest.fixture(scope="module")
def widened(tmp_path_factory):
    """A small MLP recorded and budgeted; then a wider layer, recorded again."""
    root = tmp_path_factory.mktemp("widened")
    (root / "pyproject.toml").write_text("[tool.jaxlint]\n")
    (root / "train.py").write_text(mlp().lstrip("\n"))
    record(root)
    made = run_cli("budget", "update", cwd=root, timeout=600)
    assert made.returncode == 0, made.stderr
    first = (root / "jaxlint-budgets.json").read_bytes()
    again = run_cli("budget", "update", cwd=root, timeout=600)
    second = (root / "jaxlint-budgets.json").read_bytes()
    # moved to other lines and a local renamed: the same figures, the same file
    (root / "train.py").write_text("\n\n# the model\n" + mlp(hidden="hidden_act").lstrip("\n"))
    record(root)
    moved = gate(root)
    moved_update = run_cli("budget", "update", cwd=root, timeout=600)
    third = (root / "jaxlint-budgets.json").read_bytes()
    (root / "train.py").write_text(mlp(width=320).lstrip("\n"))
    record(root)
    return {"root": root, "made": made, "first": first, "again": again, "second": second, "moved": moved,
            "moved_update": moved_update, "third": third, "wide": gate(root),
            "json": gate(root, "--output-format", "json")}


def test_a_wider_layer_fails_the_gate_with_the_shape_change_and_the_cost_change(widened):
    r = widened["wide"]
    assert r.returncode == 1, r.stdout + r.stderr
    rows = table(r.stdout)
    assert ["train:step", "shapes", "-", "-", "256 -> 320 in params['b1'], params['w1'] +1 more",
            "compared with the budget"] in rows, rows
    flops = next(row for row in rows if row[:2] == ["train:step", "flops"])
    assert flops[4:] == ["+25.0 %", "FAIL"], flops
    assert any(row[:2] == ["train:evaluate", "shapes"] for row in rows), rows
    assert "no budget" not in r.stdout
    [d] = [d for d in json.loads(widened["json"].stdout) if d["code"] == "JAX306" and d["data"]["function"] == "step"]
    assert "(its arguments changed: 256 -> 320 in params['b1'], params['w1'] +1 more)" in d["message"], d["message"]
    assert d["data"]["shapes"] == "256 -> 320 in params['b1'], params['w1'] +1 more"


def test_keys_are_the_functions_with_the_signature_inside_and_the_file_is_byte_stable(widened):
    data = json.loads(widened["first"])
    assert data["format"] == 2 and sorted(data["functions"]) == ["train:evaluate", "train:step"]
    assert data["functions"]["train:step"]["signature"] == [
        "params['b1']: f32[256]", "params['w1']: f32[64,256]", "params['w2']: f32[256,10]", "x: f32[32,64]"]
    assert widened["first"] == widened["second"] and "unchanged" in widened["again"].stderr
    assert "added train:step\n" in widened["made"].stderr


def test_moved_code_and_a_renamed_local_pass_and_change_no_byte(widened):
    r = widened["moved"]
    assert r.returncode == 0 and "FAIL" not in r.stdout and "shapes" not in r.stdout, r.stdout
    assert widened["third"] == widened["first"], widened["moved_update"].stderr


def test_an_update_after_the_widening_says_what_changed_and_a_gone_function_is_stale(widened, tmp_path):
    import shutil

    root = tmp_path / "p"
    shutil.copytree(widened["root"], root)
    up = run_cli("budget", "update", cwd=root, timeout=600)
    assert "updated train:step: shapes 256 -> 320 in params['b1'], params['w1'] +1 more, " in up.stderr, up.stderr
    assert json.loads((root / "jaxlint-budgets.json").read_text())["functions"]["train:step"]["signature"][0] == \
        "params['b1']: f32[320]"
    # evaluate is gone from the code: its budget is stale, not silently kept
    (root / "train.py").write_text(mlp(width=320, evaluate=False).lstrip("\n"))
    record(root, "--replace")
    r = gate(root)
    assert r.returncode == 0, r.stdout
    assert ["train:evaluate", "-", "-", "-", "-",
            "stale: the function is gone or no longer jitted; `jaxlint budget update` removes it"] in table(r.stdout)
    up = run_cli("budget", "update", cwd=root, timeout=600)
    assert "removed train:evaluate: the function is gone or no longer jitted" in up.stderr, up.stderr
    assert sorted(json.loads((root / "jaxlint-budgets.json").read_text())["functions"]) == ["train:step"]


@pytest.mark.skipif(not all(__import__("importlib").util.find_spec(m) for m in ("flax", "optax")),
                    reason="flax and optax are not installed")
def test_a_flax_train_state_whose_hidden_size_doubled_fails_with_a_short_key(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.jaxlint]\n")
    (tmp_path / "train.py").write_text(FLAX.format(hidden=512).lstrip("\n"))
    record(tmp_path)
    assert run_cli("budget", "update", cwd=tmp_path, timeout=600).returncode == 0
    data = json.loads((tmp_path / "jaxlint-budgets.json").read_text())
    assert list(data["functions"]) == ["train:train_step"]  # not a 1.5 kB line of every leaf
    assert len(data["functions"]["train:train_step"]["signature"]) > 10  # one leaf a line inside
    (tmp_path / "train.py").write_text(FLAX.format(hidden=1024).lstrip("\n"))
    record(tmp_path)
    r = gate(tmp_path)
    assert r.returncode == 1, r.stdout + r.stderr
    rows = table(r.stdout)
    [shapes] = [row for row in rows if row[1] == "shapes"]
    assert shapes[0] == "train:train_step" and shapes[4].startswith("512 -> 1024 in "), shapes
    flops = next(row for row in rows if row[1] == "flops")
    assert flops[-1] == "FAIL" and flops[4].startswith("+"), flops


# ------------------------------------------------------------------ several signatures, on figures
def _measured(sig: str, flops: int):
    from jaxlint.compile.budgets import Measured

    env = {"jax": "0.10.2", "backend": "cpu"}
    return Measured("train:loss", "loss", "train.py", 3, {"signature": sig, "figures": {"flops": flops},
                                                         "environment": env}, {})


def test_a_function_with_train_and_eval_signatures_keeps_one_budget_each_through_a_widening():
    from jaxlint.compile.budgets import FORMAT, gate, update
    from jaxlint.rules.hlo.jax306_cost_budget import CostBudget

    rule = CostBudget()
    train, evaluate = "x: f32[32,784], w: f32[784,512]", "x: f32[8,784], w: f32[784,512]"
    data, changes = update({"format": FORMAT, "functions": {}}, [_measured(train, 400), _measured(evaluate, 100)], rule)
    assert sorted(data["functions"]) == ["train:loss (x[32,784])", "train:loss (x[8,784])"], changes
    assert data["functions"]["train:loss (x[8,784])"]["signature"] == ["x: f32[8,784]", "w: f32[784,512]"]
    # the model widened: each batch size is held to its own budget (its tag names the batch, not the width)
    wide = [_measured(train.replace("512", "1024"), 800), _measured(evaluate.replace("512", "1024"), 200)]
    rows, findings, _ = gate(data, wide, rule, "jaxlint budget update")
    assert [r for r in rows if r[1] == "shapes"] == [
        ("train:loss (x[32,784])", "shapes", "-", "-", "512 -> 1024 in w", "compared with the budget"),
        ("train:loss (x[8,784])", "shapes", "-", "-", "512 -> 1024 in w", "compared with the budget")]
    assert [(r[0], r[2], r[3], r[5]) for r in rows if r[1] == "flops"] == [
        ("train:loss (x[32,784])", "400", "800", "FAIL"), ("train:loss (x[8,784])", "100", "200", "FAIL")]
    assert len(findings) == 2
    # evaluation no longer run: its entry is stale, the train step still compared
    rows, findings, _ = gate(data, [_measured(train, 400)], rule, "jaxlint budget update")
    assert ("train:loss (x[32,784])", "all", "-", "-", "0 %", "ok") in rows, rows
    assert any(r[0] == "train:loss (x[8,784])" and r[5].startswith("stale: no longer called with (x: f32[8,784]")
               for r in rows), rows
    # a third bucket appears: a new entry, the others unchanged
    data2, changes = update(data, [_measured(train, 400), _measured(evaluate, 100),
                                   _measured(train.replace("32,", "64,"), 800)], rule)
    assert changes == ["added train:loss (x[64,784])"], changes


def test_a_format_1_budgets_file_is_read_and_compared(tmp_path):
    from jaxlint.compile.budgets import gate, load
    from jaxlint.rules.hlo.jax306_cost_budget import CostBudget

    env = {"jax": "0.10.2", "backend": "cpu"}
    old = tmp_path / "b.json"
    old.write_text(json.dumps({"format": 1, "functions": {"train:loss": {
        "x: f32[32,784], w: f32[784,512]": {"figures": {"flops": 400}, "environment": env}}}}))
    data = load(old)
    assert data["format"] == 2 and data["functions"]["train:loss"]["signature"] == ["x: f32[32,784]",
                                                                                   "w: f32[784,512]"]
    rows, findings, _ = gate(data, [_measured("x: f32[32,784], w: f32[784,1024]", 800)], CostBudget(), "u")
    assert ("train:loss", "flops", "400", "800", "+100.0 %", "FAIL") in rows and len(findings) == 1, rows
