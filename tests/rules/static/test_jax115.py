"""JAX115 timing-without-sync: tests beyond the rule's VALID/INVALID examples (which
tests/test_rule_examples.py runs), and its claim on real jax: a clock read right after a
jitted call measures the dispatch, far less than the computation."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

from helpers import lines, lint_source

#: the measurements the claim runs: the rule must flag the first and the third, not the others
TIMED = """
import time
import timeit
import jax
import jax.numpy as jnp

@jax.jit
def heavy(w, x):
    return jax.lax.fori_loop(0, 20, lambda i, x: jnp.tanh(x @ w), x)

def dispatch_only(w, x):
    start = time.perf_counter()
    out = heavy(w, x)
    elapsed = time.perf_counter() - start
    out.block_until_ready()
    return elapsed

def waited(w, x):
    start = time.perf_counter()
    heavy(w, x).block_until_ready()
    return time.perf_counter() - start

def timeit_dispatch(w, x):
    return min(timeit.repeat(lambda: heavy(w, x), number=1, repeat=3))

def timeit_waited(w, x):
    return min(timeit.repeat(lambda: heavy(w, x).block_until_ready(), number=1, repeat=3))

def loop_dispatch(w, x):
    start = time.perf_counter()
    for _ in range(3):
        x = heavy(w, x)
    elapsed = time.perf_counter() - start
    x.block_until_ready()
    return elapsed

def loop_waited(w, x):
    start = time.perf_counter()
    for _ in range(3):
        x = heavy(w, x)
    jax.block_until_ready(x)
    return time.perf_counter() - start
"""

RUN = """
import json, statistics
w = jnp.ones((384, 384)) / 384
x = jnp.ones((384, 384))
heavy(w, x).block_until_ready()  # compiled before anything is timed
times = {f.__name__: [] for f in (dispatch_only, waited, timeit_dispatch, timeit_waited, loop_dispatch, loop_waited)}
for _ in range(5):
    for f in (dispatch_only, waited, timeit_dispatch, timeit_waited, loop_dispatch, loop_waited):
        times[f.__name__].append(f(w, x))
        jax.block_until_ready(heavy(w, x))  # nothing left running into the next measurement
print(json.dumps({k: statistics.median(v) for k, v in times.items()}))
"""


def _line(src: str, text: str) -> int:
    return next(i for i, line in enumerate(textwrap.dedent(src).lstrip("\n").splitlines(), 1) if text in line)


def test_jax115_claim_the_unwaited_measurement_times_the_dispatch_only():
    """The rule flags exactly the measurements that read the clock before the result is
    ready, and on real jax (CPU, async dispatch) those read a small fraction of what the
    waited ones do: a robust ratio of medians of 5 (5x; about 1,000x measured on an idle
    2-core machine)."""
    found = lint_source(TIMED, select=["JAX115"])
    elapsed = [i for i, line in enumerate(textwrap.dedent(TIMED).lstrip("\n").splitlines(), 1)
               if "elapsed = time.perf_counter() - start" in line]
    assert [d.start.line for d in found] == [elapsed[0], _line(TIMED, "lambda: heavy(w, x), number=1"), elapsed[1]]
    env = {**os.environ, "JAX_PLATFORMS": "cpu"}
    proc = subprocess.run([sys.executable, "-c", TIMED + RUN], capture_output=True, text=True, timeout=600, env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    t = json.loads(proc.stdout.strip().splitlines()[-1])
    assert t["dispatch_only"] * 5 < t["waited"], t
    assert t["timeit_dispatch"] * 5 < t["timeit_waited"], t
    assert t["loop_dispatch"] * 5 < t["loop_waited"], t  # one wait after the loop covers its steps


HEAD = """
import time
import numpy as np
import jax
import jax.numpy as jnp

@jax.jit
def step(w, x):
    return jnp.tanh(x @ w)
"""


def test_jax115_an_eager_jax_numpy_computation_is_a_possible_finding():
    src = HEAD + """
def bench(a):
    t0 = time.perf_counter()
    y = jnp.dot(a, a)
    return y, time.perf_counter() - t0
"""
    assert lines("JAX115", src) == []  # not at the default confidence
    found = lint_source(src, select=["JAX115"], confidence="possible")
    assert [(d.start.line, d.confidence.value) for d in found] == [(13, "possible")]
    assert "`jnp.dot(a, a)`" in found[0].message


def test_jax115_eager_operations_beside_code_it_cannot_see_are_not_reported():
    """A few jax.numpy operations in a measurement that also calls unknown code (which may
    wait for them, or be what is measured): quiet, even at the possible confidence."""
    src = HEAD + """
def epoch(summary, metrics_all, helpers):
    t0 = time.time()
    metrics = helpers.get_metrics(metrics_all)
    summary["perplexity"] = jnp.exp(summary["loss"])
    return time.time() - t0
"""
    assert lint_source(src, select=["JAX115"], confidence="possible") == []


def test_jax115_a_loop_that_waits_once_per_period_is_measured_from_the_last_reset():
    """`prev = time.time()` read again at the end of the logging branch: the time measured at
    the next log runs round the loop through the previous log's conversion (waits)."""
    src = HEAD + """
def train(w, data, steps, every):
    prev_time = time.time()
    for i in range(steps):
        w, metrics = step(w, data), {"loss": w.sum()}
        if i % every == 0:
            rate = every / (time.time() - prev_time)
            prev_time = time.time()
            print({k: float(v) for k, v in metrics.items()}, rate)
"""
    assert lines("JAX115", src) == []
    unwaited = src.replace("            print({k: float(v) for k, v in metrics.items()}, rate)\n", "")
    assert lines("JAX115", unwaited) == [15]


def test_jax115_a_running_clock_read_in_a_loop_started_outside_it_is_not_a_measurement():
    src = HEAD + """
def train(w, data, steps, log):
    t0 = time.time()
    for i in range(steps):
        w = step(w, data)
        log.info("step %d at %.1f s", i, time.time() - t0)
    return w
"""
    assert lines("JAX115", src) == []


def test_jax115_an_elapsed_time_compared_with_a_budget_is_a_deadline():
    src = HEAD + """
def run(w, data, budget):
    start = time.time()
    w = step(w, data)
    elapsed = time.time() - start
    if elapsed >= budget:
        return None
    return w
"""
    assert lines("JAX115", src) == []


def test_jax115_a_value_stored_in_a_dict_or_field_and_converted_there_waits():
    src = HEAD + """
class Trainer:
    def epoch(self, w, data):
        losses = {}
        t0 = time.time()
        losses["train"] = step(w, data).mean()
        losses["train"] = float(losses["train"])
        first = time.time() - t0
        t0 = time.time()
        self.state = step(w, data)
        print(self.state)
        return first, time.time() - t0
"""
    assert lines("JAX115", src) == []
    kept = src.replace("        print(self.state)\n", "        self.log(t0)\n")
    assert lines("JAX115", kept) == [20]


def test_jax115_what_happens_after_the_read_in_its_own_statement_does_not_wait():
    """`print(f"{time.time() - t0:.3f} s", out)` and `print(out, f"{time.time() - t0}")`
    read the clock before `out` is printed; `float(out)` as an earlier argument, or `{out}`
    earlier in the f-string, converts it before."""
    src = HEAD + """
def bench(w, x):
    t0 = time.time()
    out = step(w, x)
    print(f"{time.time() - t0:.3f} s", out)
    return out
"""
    assert lines("JAX115", src) == [13]
    printed_after = src.replace('print(f"{time.time() - t0:.3f} s", out)', 'print(out, f"{time.time() - t0:.3f} s")')
    assert lines("JAX115", printed_after) == [13]
    converted_first = src.replace('print(f"{time.time() - t0:.3f} s", out)', 'print(float(out), time.time() - t0)')
    assert lines("JAX115", converted_first) == []
    formatted_first = src.replace('print(f"{time.time() - t0:.3f} s", out)', 'print(f"{out} {time.time() - t0:.3f} s")')
    assert lines("JAX115", formatted_first) == []


def test_jax115_a_transform_called_at_once_and_a_lax_loop_are_device_work():
    src = HEAD + """
def loss(w):
    return (w ** 2).sum()

def bench(w, xs):
    t0 = time.time()
    g = jax.grad(loss)(w)
    t_grad = time.time() - t0
    t0 = time.time()
    final, _ = jax.lax.scan(lambda c, x: (c + x, c), w, xs)
    t_scan = time.time() - t0
    return g, t_grad, final, t_scan
"""
    found = lint_source(src, select=["JAX115"], confidence="possible")
    assert [(d.start.line, d.confidence.value) for d in found] == [(16, "possible"), (19, "likely")]


def test_jax115_unknown_callables_and_numpy_work_are_not_timed_device_work():
    src = HEAD + """
def bench(model, params, x):
    t0 = time.time()
    y = model.apply(params, x)
    dt_model = time.time() - t0
    t0 = time.time()
    z = np.linalg.inv(np.eye(64))
    return y, z, dt_model, time.time() - t0
"""
    assert lines("JAX115", src) == []


def test_jax115_two_measurements_in_one_loop_each_from_its_own_start():
    """`st` read again before each measurement of the loop: the jax measurement's start is
    not taken round the loop to the host one's read (which would make it "waited" there)."""
    src = HEAD + """
def compare(w, xs, host_solve):
    for x in xs:
        st = time.perf_counter()
        a = host_solve(x)
        end = time.perf_counter()
        print("host", end - st)
        st = time.perf_counter()
        b = step(w, x)
        end = time.perf_counter()
        print("jax", end - st)
        print((a == b).all())
"""
    assert lines("JAX115", src) == [18]


def test_jax115_a_timing_helper_is_reported_only_when_every_caller_passes_a_jitted_function():
    src = HEAD + """
def plain(w, x):
    return w + x

def benchmark(fn, w, x):
    start = time.perf_counter()
    fn(w, x)
    return time.perf_counter() - start

def main(w, x):
    return benchmark(step, w, x), benchmark(jax.jit(plain), w, x)
"""
    assert lines("JAX115", src) == [16]
    assert lines("JAX115", src.replace("benchmark(jax.jit(plain), w, x)", "benchmark(plain, w, x)")) == []


def test_jax115_a_function_of_the_module_that_converts_between_the_reads_waits():
    """`self._entropy()` returns `float(...)` of the state the step updated: it waits for
    it (the rule reads the module's own functions one level deep)."""
    src = HEAD + """
class Trainer:
    def _entropy(self):
        return float(jnp.mean(self.w))

    def _norm(self):
        return jnp.linalg.norm(self.w)

    def train(self, x):
        t0 = time.time()
        self.w = step(self.w, x)
        entropy = self._entropy()
        return time.time() - t0, entropy
"""
    assert lines("JAX115", src) == []
    assert lines("JAX115", src.replace("entropy = self._entropy()", "entropy = self._norm()")) == [21]


def test_jax115_eager_operations_beside_an_unknown_call_without_arguments_are_not_reported():
    src = HEAD + """
class Likelihood:
    def abundance(self, n_val, f):
        t1 = time.time()
        self.get_number_counts()
        log_lik = -self.n_tot + n_val * jnp.log(f)
        return log_lik, time.time() - t1
"""
    assert lint_source(src, select=["JAX115"], confidence="possible") == []


def test_jax115_a_transform_of_a_jitted_function_is_one_jitted_run():
    src = HEAD + """
train_vmap = jax.vmap(step)

def run(ws, xs):
    t0 = time.time()
    out = train_vmap(ws, xs)
    t1 = time.time()
    print("steps per second", len(xs) / (t1 - t0))
    return out
"""
    found = lint_source(src, select=["JAX115"])
    assert [(d.start.line, d.confidence.value) for d in found] == [(15, "likely")]


def test_jax115_a_start_copied_from_the_last_end_read_runs_round_the_loop():
    """`last = now` after each step's read: the next read measures from there, round the
    loop through the next step."""
    src = HEAD + """
def train(w, data, steps):
    last = time.time()
    for _ in range(steps):
        w = step(w, data)
        now = time.time()
        print("step time", now - last)
        last = now
    return w
"""
    assert lines("JAX115", src) == [14]
    waited = src.replace("        w = step(w, data)\n", "        w = step(w, data).block_until_ready()\n")
    assert lines("JAX115", waited) == []


EQX_TIMED = """
import time
import equinox as eqx
import jax
import jax.numpy as jnp

def _work(w, x):
    return jax.lax.fori_loop(0, 20, lambda i, x: jnp.tanh(x @ w), x)

@eqx.filter_jit
def heavy(w, x):
    return _work(w, x)

class Model(eqx.Module):
    w: jax.Array

    @eqx.filter_jit
    def __call__(self, x):
        return _work(self.w, x)

plain = jax.jit(_work)

def decorated(w, x):
    start = time.perf_counter()
    out = heavy(w, x)
    elapsed = time.perf_counter() - start
    return elapsed, out

def method(model, x):
    start = time.perf_counter()
    out = model(x)
    elapsed = time.perf_counter() - start
    return elapsed, out

def partial_bound(w, x):
    step = eqx.filter_jit(eqx.Partial(_work, w))
    step(x).block_until_ready()
    start = time.perf_counter()
    out = step(x)
    elapsed = time.perf_counter() - start
    return elapsed, out

def plain_jit(w, x):
    start = time.perf_counter()
    out = plain(w, x)
    elapsed = time.perf_counter() - start
    return elapsed, out
"""

EQX_RUN = """
import json, statistics
w = jnp.ones((384, 384)) / 384
x = jnp.ones((384, 384))
model = Model(w)
for f, a in ((decorated, w), (method, model), (plain_jit, w)):
    jax.block_until_ready(f(a, x))  # compiled before anything is timed
def waited():
    start = time.perf_counter()
    plain(w, x).block_until_ready()
    return time.perf_counter() - start
t = {"decorated": [], "method": [], "partial_bound": [], "plain_jit": [], "waited": []}
for _ in range(5):
    for name, run in (("decorated", lambda: decorated(w, x)), ("method", lambda: method(model, x)),
                      ("partial_bound", lambda: partial_bound(w, x)), ("plain_jit", lambda: plain_jit(w, x))):
        elapsed, out = run()
        jax.block_until_ready(out)
        t[name].append(elapsed)
    t["waited"].append(waited())
print(json.dumps({k: statistics.median(v) for k, v in t.items()}))
"""


def test_jax115_equinox_filter_jit_waits_for_its_program_and_is_not_reported():
    """equinox's filter_jit blocks on an output of the same program before it returns (to
    raise `eqx.error_if`'s errors at the call), so a clock read after it times the work:
    blind55's two false findings (a decorated step, a filter_jit of an eqx.Partial). Proven
    with real equinox: its unwaited reads are about the waited time, while a plain jax.jit
    in the same shape reads a small fraction of it (and is still reported)."""
    found = lint_source(EQX_TIMED, select=["JAX115"])
    reads = [i for i, line in enumerate(textwrap.dedent(EQX_TIMED).lstrip("\n").splitlines(), 1)
             if "elapsed = time.perf_counter() - start" in line]
    assert [d.start.line for d in found] == [reads[-1]], [(d.start.line, d.message) for d in found]
    env = {**os.environ, "JAX_PLATFORMS": "cpu"}
    proc = subprocess.run([sys.executable, "-c", EQX_TIMED + EQX_RUN], capture_output=True, text=True, timeout=600,
                          env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    t = json.loads(proc.stdout.strip().splitlines()[-1])
    for name in ("decorated", "method", "partial_bound"):
        assert t[name] * 2 > t["waited"], t  # waited: about the computation's time
    assert t["plain_jit"] * 5 < t["waited"], t  # dispatched only


def test_jax115_one_read_that_ends_two_intervals_is_one_place():
    """`end - start` printed and stored: one clock read ends both intervals, so it is one
    finding at that read, not a finding with "1 more place" at its own position (blind55's
    NeuralCDE training loop)."""
    src = HEAD + """
def run(w, xs):
    times = []
    for x in xs:
        start = time.time()
        w = step(w, x)
        end = time.time()
        print("took", end - start)
        times.append(end - start)
    return w, times
"""
    found = lint_source(src, select=["JAX115"])
    assert [(d.start.line, "more place" in d.message) for d in found] == [(_line(src, "end = time.time()"), False)]
