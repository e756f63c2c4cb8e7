"""Observed analysis benchmark: what `jaxlint record` costs a real training run.

The program is a realistic training script written for this benchmark (a 4-layer
transformer classifier with optax's adamw, its jitted steps built in `main()` and a
factory, an evaluation step and a jitted data transform, several hundred steps over
synthetic data with a ragged last batch per epoch). Each run is a fresh process:

* plain:    ``python train.py``;
* trace:    ``jaxlint record -- python train.py`` (every jitted function it calls traced
            and checked inside the program);
* compile:  ``jaxlint record --compile -- python train.py`` (and the executables the
            program compiled read by the compile rules).

The script counts XLA compiles itself (``jax.monitoring``'s backend-compile events) and
prints the count, so the benchmark shows that the compile tier adds no compile of its
own: the count under ``record --compile`` must equal the plain run's.

Targets: trace <= 1.3 x plain (median wall time of ``--repeat`` runs); compiles under
``record --compile`` == compiles of the plain run. ``--check`` exits 1 when one is missed.

    python benchmarks/bench_record.py [--repeat 3] [--steps 300] [--check] [--json out.json]

``--per-call`` measures instead what recording adds to one call of a jitted function
whose signature was already seen (the recorder's fast path): a tiny call
(``x + 1`` on ``f32[3]``) and a call with an 11-leaf pytree (a dict of 11 arrays), each
the best of 7 loops of ``--calls`` calls, in a plain run, under ``jaxlint record`` and
under ``jaxlint record --no-analysis``, in wall time and in the calling thread's CPU time;
the target is at most 5 µs over the plain call. Under ``record`` the script also times
the same calls through jax's own jit (``jax.jit.__wrapped__``) in the same process, loops
alternated ("same process": one process's figures, which the load moves less than two
processes'; the plain run's line is jax's jit against itself, the method's noise).
With them, in thread CPU time, the shapes of call that took the recorder's full path
until issue 37 (rlax's DQN): a jitted bound method (``self.step = jax.jit(self.step)``),
a dm_env-like ``TimeStep`` namedtuple with an ``IntEnum`` and ``None`` fields, a keyword
argument (a Python bool), a typed PRNG key (``jax.random.key``), a registered
dataclass pytree node (``jax.tree_util.register_dataclass``, one static field) (the types
they pass written in ``tests/record_shapes.py``, which their test records too), and the shapes of
issue 37's view guide: where flax is installed, a flax NNX training step (``nnx.jit`` of a
3-layer ``Sequential`` and its ``Optimizer``; a twentieth of the calls: it takes
milliseconds), a ``self`` passed static (``static_argnums=0`` on a method) and, where
equinox is installed, an ``eqx.filter_jit`` call with an ``eqx.nn.MLP``, whose activations
are leaves.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from record_shapes import DEFINITIONS  # noqa: E402 (the shapes of call, shared with their test)

TRAIN = '''
import functools
import sys

import jax
import jax.numpy as jnp
import numpy as np
import optax

COMPILES = []
jax.monitoring.register_event_duration_secs_listener(
    lambda name, secs, **kw: COMPILES.append(secs) if name == "/jax/core/compile/backend_compile_duration" else None)

D, HEADS, LAYERS, SEQ, VOCAB, CLASSES = 128, 4, 4, 64, 1000, 10


def init(key):
    keys = iter(jax.random.split(key, 4 * LAYERS + 2))
    dense = lambda k, n, m: jax.random.normal(k, (n, m)) / np.sqrt(n)
    layers = [{"qkv": dense(next(keys), D, 3 * D), "out": dense(next(keys), D, D),
               "up": dense(next(keys), D, 4 * D), "down": dense(next(keys), 4 * D, D)} for _ in range(LAYERS)]
    return {"embed": jax.random.normal(next(keys), (VOCAB, D)) * 0.02, "layers": layers,
            "head": dense(next(keys), D, CLASSES)}


def block(p, x):
    b, t, _ = x.shape
    q, k, v = jnp.split(x @ p["qkv"], 3, axis=-1)
    split = lambda a: a.reshape(b, t, HEADS, D // HEADS).transpose(0, 2, 1, 3)
    att = jax.nn.softmax(split(q) @ split(k).transpose(0, 1, 3, 2) / np.sqrt(D // HEADS), axis=-1)
    x = x + (att @ split(v)).transpose(0, 2, 1, 3).reshape(b, t, D) @ p["out"]
    return x + jax.nn.gelu(x @ p["up"]) @ p["down"]


def forward(params, tokens):
    x = params["embed"][tokens]
    for p in params["layers"]:
        x = block(p, x)
    return x.mean(1) @ params["head"]


def make_train_step(opt):
    def loss_fn(params, tokens, labels):
        return optax.softmax_cross_entropy_with_integer_labels(forward(params, tokens), labels).mean()

    @jax.jit
    def train_step(params, opt_state, tokens, labels):
        loss, grads = jax.value_and_grad(loss_fn)(params, tokens, labels)
        updates, opt_state = opt.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), opt_state, loss

    return train_step


def main(steps):
    opt = optax.adamw(1e-3)
    params = init(jax.random.PRNGKey(0))
    opt_state = opt.init(params)
    train_step = make_train_step(opt)

    @jax.jit
    def evaluate(params, tokens, labels):
        return (forward(params, tokens).argmax(-1) == labels).mean()

    def augment(tokens, key):
        return jnp.where(jax.random.uniform(key, tokens.shape) < 0.1, 0, tokens)
    augment = jax.jit(augment)

    rng = np.random.default_rng(0)
    n = 32 * 20 + 16  # 20 full batches and a ragged one per epoch
    data = rng.integers(0, VOCAB, size=(n, SEQ))
    labels = rng.integers(0, CLASSES, size=n)
    key = jax.random.PRNGKey(1)
    done = 0
    while done < steps:
        for i in range(0, n, 32):
            key, sub = jax.random.split(key)
            tokens = augment(jnp.asarray(data[i:i + 32]), sub)
            params, opt_state, loss = train_step(params, opt_state, tokens, jnp.asarray(labels[i:i + 32]))
            done += 1
            if done >= steps:
                break
        acc = evaluate(params, tokens, jnp.asarray(labels[i:i + 32]))
    print(f"loss {float(loss):.3f} acc {float(acc):.3f}", file=sys.stderr)
    print(f"compiles {len(COMPILES)}", file=sys.stderr)


if __name__ == "__main__":
    main(int(sys.argv[1]))
'''


PER_CALL = DEFINITIONS + '''
import sys
import time

tiny = jax.jit(lambda x: x + 1)
tree_call = jax.jit(lambda t: t["k0"])
x = jnp.ones(3)
tree = {f"k{i}": jnp.ones(3) for i in range(11)}
tiny(x).block_until_ready()
tree_call(tree).block_until_ready()
N = int(sys.argv[1])


agent = Agent(1.0)
timestep = jax.jit(lambda ts: ts.observation + 1)
first = TimeStep(StepType.FIRST, None, None, x)
keyword = jax.jit(lambda x, flag: x + 1)
typed_key = jax.jit(lambda x, key: x + 1)
key = jax.random.key(0)
dataclass_call = jax.jit(lambda s: s.x + s.n)
state = State(x, 1, "train")
# the shapes of call that took the recorder's full path until issue 37 (thread CPU time)
SHAPES = {"bound method": lambda: agent.step(x), "namedtuple, None fields": lambda: timestep(first),
          "keyword": lambda: keyword(x, flag=False), "typed key": lambda: typed_key(x, key),
          "dataclass node": lambda: dataclass_call(state)}
try:  # a flax NNX step (issue 37): nnx.jit with a Module and an Optimizer, when flax is installed
    import optax
    from flax import nnx
except ImportError:
    nnx = None
if nnx is not None:
    model = nnx.Sequential(nnx.Linear(4, 8, rngs=nnx.Rngs(0)), nnx.BatchNorm(8, rngs=nnx.Rngs(0)),
                           nnx.Linear(8, 2, rngs=nnx.Rngs(0)))
    optimizer = nnx.Optimizer(model, optax.adam(1e-3), wrt=nnx.Param)

    @nnx.jit
    def nnx_step(model, optimizer, x):
        grads = nnx.grad(lambda m: (m(x) ** 2).mean())(model)
        optimizer.update(model, grads)

    nnx_x = jnp.ones((2, 4))
    SHAPES["nnx.jit, Module"] = lambda: nnx_step(model, optimizer, nnx_x) or nnx_x


class Actor:  # a `self` passed static (its text is its type's)
    @functools.partial(jax.jit, static_argnums=0)
    def act(self, v):
        return v + 1


actor = Actor()
SHAPES["static self"] = lambda: actor.act(x)
try:  # an equinox module whose leaves are functions (its activations), when equinox is installed
    import equinox as eqx
except ImportError:
    eqx = None
if eqx is not None:
    mlp = eqx.nn.MLP(3, 3, 8, 2, key=jax.random.key(0))
    mlp_apply = eqx.filter_jit(lambda m, v: m(v))
    SHAPES["eqx, function leaves"] = lambda: mlp_apply(mlp, x)
for call in SHAPES.values():
    call().block_until_ready()


def per_call(fn, arg, clock):
    best = float("inf")
    for _ in range(7):
        t = clock()
        for _ in range(N):
            fn(arg)
        best = min(best, (clock() - t) / N)
    return best * 1e6


# wall time, and the calling thread's CPU time (what the recorder adds runs there; it
# moves less with the machine's load than wall time)
out = {"tiny": per_call(tiny, x, time.perf_counter), "tree": per_call(tree_call, tree, time.perf_counter),
       "tiny_cpu": per_call(tiny, x, time.thread_time), "tree_cpu": per_call(tree_call, tree, time.thread_time)}
for name, call in SHAPES.items():
    if name.startswith("nnx"):  # milliseconds a call: fewer calls
        N, n = max(N // 20, 10), N
        out[name] = per_call(lambda _: call(), None, time.thread_time)
        N = n
    else:
        out[name] = per_call(lambda _: call(), None, time.thread_time)
bare_jit = getattr(jax.jit, "__wrapped__", None)
if bare_jit is not None:
    # recorded: the same calls through jax's own jit in this process, loops alternated with
    # the recorded ones, so both meet the same load (one process's figures, not two)
    pairs = ((tiny, bare_jit(lambda x: x + 1), x, "tiny"), (tree_call, bare_jit(lambda t: t["k0"]), tree, "tree"))
    for _, bare, arg, _ in pairs:
        bare(arg).block_until_ready()
    for rec, bare, arg, name in pairs:
        got = {"rec": float("inf"), "bare": float("inf")}
        for _ in range(7):
            for k, fn in (("rec", rec), ("bare", bare)):
                t = time.thread_time()
                for _ in range(N):
                    fn(arg)
                got[k] = min(got[k], (time.thread_time() - t) / N * 1e6)
        out[f"{name}_same_process"] = got["rec"] - got["bare"]
print(json.dumps(out))
'''


#: the shapes of call the per-call script times besides the tiny call and the pytree
SHAPES = ("bound method", "namedtuple, None fields", "keyword", "typed key", "dataclass node", "nnx.jit, Module",
          "static self", "eqx, function leaves")


def per_call(args) -> int:
    """What recording adds per call on the fast path (see the module's docstring)."""
    with tempfile.TemporaryDirectory(prefix="jaxlint-bench-record-") as tmp:
        root = Path(tmp)
        (root / "pyproject.toml").write_text("[tool.jaxlint]\n")
        (root / "calls.py").write_text(PER_CALL.lstrip("\n"))
        py, n = sys.executable, str(args.calls)
        variants = {"plain": [py, "calls.py", n],
                    "record": [py, "-m", "jaxlint", "record", "--", "python", "calls.py", n],
                    "record --no-analysis": [py, "-m", "jaxlint", "record", "--no-analysis", "--", "python",
                                             "calls.py", n]}
        best: dict[str, dict[str, float]] = {}
        for _ in range(args.repeat):  # interleaved, so load changes hit every variant alike
            for name, cmd in variants.items():
                env = dict(os.environ)
                env.pop("JAXLINT_OUTPUT_FORMAT", None)
                out = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True, timeout=600)
                if out.returncode != 0:
                    raise SystemExit(f"{' '.join(cmd)} failed:\n{out.stderr[-3000:]}")
                got = json.loads(out.stdout.strip().splitlines()[-1])
                cur = best.setdefault(name, got)
                for k, v in got.items():
                    cur[k] = min(cur[k], v)
    print(f"per call (µs, best of {args.repeat} runs x 7 loops of {args.calls} calls; {os.cpu_count()} cores, "
          f"load {os.getloadavg()[0]:.1f}):")
    for clock, suffix in (("wall", ""), ("thread CPU", "_cpu")):
        print(f"{clock:<24}{'tiny call':>12}{'11-leaf pytree':>16}")
        tiny, tree = f"tiny{suffix}", f"tree{suffix}"
        for name, r in best.items():
            extra = "" if name == "plain" else \
                f"   ({r[tiny] - best['plain'][tiny]:+.1f}, {r[tree] - best['plain'][tree]:+.1f})"
            print(f"  {name:<22}{r[tiny]:>12.1f}{r[tree]:>16.1f}{extra}")
    shapes = [s for s in SHAPES if s in best["plain"]]  # flax's and equinox's only where they are installed
    print(f"{'thread CPU':<24}" + "".join(f"{name:>{max(len(name) + 2, 10)}}" for name in shapes))
    for name, r in best.items():
        print(f"  {name:<22}" + "".join(f"{r[s]:>{max(len(s) + 2, 10)}.1f}" for s in shapes))
        if name != "plain":
            print(f"  {'':<22}" + "".join(f"{'(' + format(r[s] - best['plain'][s], '+.1f') + ')':>{max(len(s) + 2, 10)}}"
                                          for s in shapes))
    print("same process, recorded against jax's own jit (thread CPU, loops alternated):")
    for name, r in best.items():
        if "tiny_same_process" in r:
            print(f"  {name:<22}{r['tiny_same_process']:>+12.1f}{r['tree_same_process']:>+16.1f}")
    over = max(best[v][k] - best["plain"][k] for v in best if v != "plain" for k in ("tiny", "tree"))
    print(f"target: at most 5 µs over a plain call (wall): {over:+.1f} {'ok' if over <= 5 else 'MISSED'}")
    if args.json:
        Path(args.json).write_text(json.dumps({"per_call_us": best, "calls": args.calls}, indent=1))
    return 0 if over <= 5 or not args.check else 1


def timed(cmd: list[str], cwd: Path) -> tuple[float, str]:
    env = dict(os.environ)
    env.pop("JAXLINT_OUTPUT_FORMAT", None)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=1800)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    return wall, proc.stderr


def compiles(stderr: str) -> int:
    m = re.search(r"^compiles (\d+)$", stderr, re.M)
    return int(m.group(1)) if m else -1


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--json")
    ap.add_argument("--per-call", action="store_true", help="the recorder's cost per call (fast path)")
    ap.add_argument("--calls", type=int, default=2000)
    args = ap.parse_args()
    if args.per_call:
        return per_call(args)
    with tempfile.TemporaryDirectory(prefix="jaxlint-bench-record-") as tmp:
        root = Path(tmp)
        (root / "pyproject.toml").write_text("[tool.jaxlint]\n")
        (root / "train.py").write_text(TRAIN.lstrip("\n"))
        py, steps = sys.executable, str(args.steps)
        runs: dict[str, list[tuple[float, str]]] = {"plain": [], "trace": [], "compile": []}
        for _ in range(args.repeat):  # interleaved, so load changes hit every variant alike
            runs["plain"].append(timed([py, "train.py", steps], root))
            runs["trace"].append(timed([py, "-m", "jaxlint", "record", "--", "python", "train.py", steps], root))
            runs["compile"].append(timed([py, "-m", "jaxlint", "record", "--compile", "--", "python", "train.py",
                                          steps], root))
        observed = json.loads((root / ".jaxlint" / "observed.json").read_text())["functions"]
    med = {k: statistics.median(w for w, _ in v) for k, v in runs.items()}
    counts = {k: sorted({compiles(e) for _, e in v}) for k, v in runs.items()}
    ratio_trace, ratio_compile = med["trace"] / med["plain"], med["compile"] / med["plain"]
    summary = [line for line in runs["compile"][-1][1].splitlines() if line.startswith("jaxlint record: ")]
    print(f"jax program: {args.steps} training steps, python {platform.python_version()}, {os.cpu_count()} cores")
    print(f"{'run':<32}{'wall (median)':>15}{'x plain':>9}{'XLA compiles':>14}")
    for k, label in (("plain", "python train.py"), ("trace", "jaxlint record"),
                     ("compile", "jaxlint record --compile")):
        print(f"{label:<32}{med[k]:>13.2f} s{med[k] / med['plain']:>9.2f}{str(counts[k]):>14}")
    print("\n".join(summary))
    same_compiles = counts["compile"] == counts["plain"] and counts["trace"] == counts["plain"]
    ok = ratio_trace <= 1.3 and same_compiles
    print(f"targets: trace <= 1.3 x plain: {ratio_trace:.2f} {'ok' if ratio_trace <= 1.3 else 'MISSED'}; "
          f"no extra compile: {'ok' if same_compiles else 'MISSED'}")
    if args.json:
        Path(args.json).write_text(json.dumps({
            "steps": args.steps, "repeat": args.repeat, "median_seconds": med, "compiles": counts,
            "ratio_trace": ratio_trace, "ratio_compile": ratio_compile, "functions": len(observed),
            "runs": {k: [w for w, _ in v] for k, v in runs.items()}}, indent=1))
    return 0 if ok or not args.check else 1


if __name__ == "__main__":
    sys.exit(main())
