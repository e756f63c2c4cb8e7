"""The compile tier inside a worker: lower + compile a traced function, measure it.

Imports jax lazily: only worker processes call into here. Uses public jax APIs
(``Traced.lower``, ``Lowered.compile``, ``as_text``, ``cost_analysis``,
``memory_analysis``, ``args_info``, ``out_info``, ``input_shardings``); where they
differ between versions the difference is normalised in ``jaxlint.compile.facts``;
argument names come through the version adapter (``jaxlint.dynamic.adapter``).
"""
from __future__ import annotations

import os
import re
import time
import warnings
from pathlib import Path
from typing import Any

from jaxlint.compile.facts import (
    ArgFact, CompileFacts, OutFact, TraceFacts, normalise_cost, normalise_memory,
)
from jaxlint.compile.xla_log import LogStore, kept, program_key
from jaxlint.process.fdcapture import capture_stderr

_CACHE_ON: str | None = None


def enable_persistent_cache(cache_dir: str | os.PathLike) -> None:
    """Turn on jax's persistent compilation cache (once per process) in ``cache_dir``.

    Entries are kept whatever their size or compile time: linting compiles many small
    functions, and each saved compile is XLA time not paid on the next run.
    """
    global _CACHE_ON
    import jax

    path = str(cache_dir)
    if _CACHE_ON == path:
        return
    Path(path).mkdir(parents=True, exist_ok=True)
    jax.config.update("jax_compilation_cache_dir", path)
    for key, value in (("jax_persistent_cache_min_compile_time_secs", 0.0),
                       ("jax_persistent_cache_min_entry_size_bytes", 0)):
        try:
            jax.config.update(key, value)
        except (AttributeError, KeyError, ValueError):  # absent in this version
            pass
    _CACHE_ON = path


def compile_cache_dir(jaxlint_cache: str | os.PathLike) -> Path:
    """jaxlint's own folder for XLA executables, beside its result cache."""
    return Path(jaxlint_cache) / "xla"


def analyse(traced: Any, *, function: str, file: str, line: int, requested_backend: str = "cpu",
            trace_facts: TraceFacts | None = None, captured: Any = None, warnings_seen=(),
            shardings: Any = None, platforms: tuple[str, ...] | None = None) -> CompileFacts:
    """Lower and compile ``traced`` (a ``jax.stages.Traced``) and gather the facts.

    ``captured``: the executable a running program already compiled for this trace
    (:class:`jaxlint.dynamic.adapter.CapturedCompile`, ``jaxlint record``): its facts
    are read without lowering or compiling again; ``warnings_seen``: what jax warned
    while the program's call lowered and compiled it; ``shardings``: the shardings of
    the call's argument leaves (a recorded call; a compile here reads the executable's);
    ``platforms``: lower for these platforms instead of the default backend's (a target
    compiled deviceless: ``("tpu",)`` with arguments placed on a topology's devices)."""
    from jaxlint.dynamic import adapter

    log: list[str] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if captured is not None:
            compiled, lower_s, compile_s, compile_cpu = captured, 0.0, captured.seconds, captured.cpu_seconds
            out_of_memory: dict[str, Any] = {}
            log = list(getattr(captured, "log", ()) or ())
        else:
            t0 = time.perf_counter()
            lowered = traced.lower(lowering_platforms=platforms) if platforms else traced.lower()
            t1, c1 = time.perf_counter(), time.process_time()
            with capture_stderr(log):  # the SPMD partitioner warns only in XLA's C++ log
                compiled, out_of_memory = _compile(lowered, platforms)
            lower_s, compile_s, compile_cpu = t1 - t0, time.perf_counter() - t1, time.process_time() - c1
    text = compiled.as_text()
    platform, kind = compiled.platform() if captured is not None else _platform(compiled)
    arg_names = _arg_names(traced)
    cost, no_cost = _statistics("cost", compiled.cost_analysis)
    memory, no_memory = _statistics("memory", compiled.memory_analysis)
    facts = CompileFacts(
        function=function,
        file=file,
        line=line,
        hlo_text=text,
        cost=normalise_cost(cost),
        memory=normalise_memory(memory),
        compile_seconds=compile_s,
        compile_cpu_seconds=compile_cpu,
        lower_seconds=lower_s,
        platform=platform,
        device_kind=kind,
        requested_backend=requested_backend,
        versions=adapter.library_versions(),
        xla_flags=os.environ.get("XLA_FLAGS", ""),
        warnings=list(warnings_seen) + [str(w.message) for w in caught],
        trace=TraceFacts(**(trace_facts or {})),
        unavailable=[why for why in (no_cost, no_memory) if why],
        compiler_log=_kept_log(log, text),
        out_of_memory=out_of_memory,
    )
    # the trace knows the arguments (donation included) and outputs as the lowering does
    facts.args = _args(traced, arg_names, facts)
    facts.outputs = _outputs(traced, facts)
    _add_shardings(facts, compiled if captured is None else None, shardings)
    return facts


#: XLA's TPU compiler refusing a program that does not fit the chip's memory
_HBM_OOM = re.compile(r"Ran out of memory in memory space hbm|Ran out of memory on HBM", re.I)
_HBM_FIGURES = re.compile(r"required for HLO temporaries \(([\d.]+)([KMGT]?)\) exceeds available HBM \(([\d.]+)([KMGT]?)\)")


def _compile(lowered, platforms: tuple[str, ...] | None) -> tuple[Any, dict]:
    """(the executable, {} or what XLA said when the program did not fit the TPU's memory).
    A TPU compile refuses such a program; it is compiled again told not to stop there
    (``xla_tpu_no_crash_on_oom``), so that its figures say how far over it is."""
    try:
        return lowered.compile(), {}
    except Exception as e:
        message = str(e)
        if not platforms or "tpu" not in platforms or not _HBM_OOM.search(message):
            raise
    oom: dict[str, Any] = {"message": " ".join(message.split())[:500]}
    m = _HBM_FIGURES.search(message)
    if m:
        oom["required_bytes"] = _bytes(m.group(1), m.group(2))
        oom["available_bytes"] = _bytes(m.group(3), m.group(4))
    return lowered.compile(compiler_options={"xla_tpu_no_crash_on_oom": True}), oom


def _bytes(number: str, unit: str) -> int:
    """XLA's ``24.02G`` (binary units) in bytes."""
    return int(float(number) * (1 << (10 * " KMGT".index(unit or " "))))


def _kept_log(lines: list[str], hlo_text: str) -> list[str]:
    """The partitioner's warnings of this compile; on a compile that printed none (a
    persistent-cache hit), the ones jaxlint kept when it last compiled this program."""
    found = kept(lines)
    cache = os.environ.get("JAXLINT_XLA_CACHE")
    if not cache:
        return found
    from jaxlint.dynamic import adapter

    store = LogStore(Path(cache).parent / "xla-log")
    versions = sorted(adapter.library_versions().items())
    key = program_key(hlo_text, *(f"{k}={v}" for k, v in versions), os.environ.get("XLA_FLAGS", ""))
    if found:
        store.put(key, found)
        return found
    return store.get(key) or []


def _add_shardings(facts: CompileFacts, compiled, shardings) -> None:
    """The mesh and each argument's partition spec, from the executable's input
    shardings (pmap on jax 0.4 has none: it raises) or the recorded call's arrays."""
    import dataclasses

    from jaxlint.dynamic import adapter

    outputs: list = []
    if compiled is not None:
        import jax

        try:
            if shardings is None:
                shardings = jax.tree_util.tree_leaves(compiled.input_shardings[0])
            outputs = jax.tree_util.tree_leaves(compiled.output_shardings)
        except Exception:  # NotImplementedError for 0.4's pmap; absent on other executables
            pass
    shardings = list(shardings or ())
    mesh, specs = adapter.sharding_facts(shardings, [len(a.shape) for a in facts.args])
    # a shard_map's arguments come unnamed (GSPMDSharding); its out_specs name the mesh
    facts.mesh = mesh or adapter.sharding_facts(outputs, [])[0]
    if len(specs) == len(facts.args):
        facts.args = [dataclasses.replace(a, spec=sp) for a, sp in zip(facts.args, specs)]


def _statistics(what: str, call) -> tuple[Any, str | None]:
    """Call ``cost_analysis`` or ``memory_analysis`` of an executable: (the result, None),
    or (None, why there is none). jax returns None where the backend does not implement
    them and raises where it fails."""
    try:
        value = call()
    except Exception as e:
        return None, f"{what} statistics unavailable on this backend: {type(e).__name__}: {str(e)[:200]}"
    if value is None:
        return None, f"{what} statistics unavailable on this backend: jax returned none"
    return value, None


def _platform(compiled) -> tuple[str, str]:
    """Platform and device kind of the devices the executable was built for."""
    import jax

    devices: list[Any] = []
    for attr in ("input_shardings", "output_shardings"):
        try:
            shardings = getattr(compiled, attr, None)
        except NotImplementedError:  # jax 0.4's pmap executable carries none
            continue
        for s in jax.tree_util.tree_leaves(shardings):
            devices.extend(getattr(s, "device_set", ()) or ())
        if devices:
            break
    if not devices:
        devices = jax.devices()[:1]
    d = next(iter(devices))
    return str(getattr(d, "platform", "cpu")), str(getattr(d, "device_kind", ""))


def _arg_names(traced) -> list[str] | None:
    from jaxlint.dynamic import adapter

    return getattr(traced, "jaxlint_arg_names", None) or adapter.arg_names(traced.jaxpr)


def _args(traced, names: list[str] | None, facts: CompileFacts) -> list[ArgFact]:
    from jaxlint.dynamic import adapter

    leaves = adapter.args_info_leaves(traced)
    params = facts.module.entry_parameters()
    by_name = {p.metadata.get("op_name"): int(p.literal or 0) for p in params}
    same_count = len(params) == len(leaves)
    owned = _by_owner(names, leaves, params) if same_count and names else None
    out = []
    for j, info in enumerate(leaves):
        name = names[j] if names and j < len(names) else f"arg{j}"
        param: int | None = owned[j] if owned else j if same_count else by_name.get(name)
        top = name.split("[", 1)[0].split(".", 1)[0]
        out.append(ArgFact(name, top, tuple(int(d) for d in info.shape), _dtype(info.dtype),
                           bool(info.donated), param))
    return out


def _by_owner(names: list[str], leaves: list, params: list) -> list[int] | None:
    """The executable's parameter of each traced leaf when the program's own compile
    orders its arguments otherwise than the trace: flax's ``nnx.jit`` passes each
    argument's state where the argument stands (``model``, ``x``, ``y``, ``optimizer``),
    where the trace puts every graph object's state first. The parameters' ``op_name``
    (``optimizer.states[0][3]``, ``x``) name the argument each belongs to; the k-th leaf
    of an argument is its k-th parameter, and every shape must agree. None when the
    orders agree or the names do not tell (the parameters are then taken in order)."""
    def top(text: str) -> str:
        return text.split("[", 1)[0].split(".", 1)[0]

    ordered = sorted(params, key=lambda p: int(p.literal or 0))
    owners = [top(str(p.metadata.get("op_name") or "")) for p in ordered]
    mine = [top(n) for n in names[:len(leaves)]]
    if len(mine) != len(owners) or mine == owners or sorted(mine) != sorted(owners):
        return None
    queues: dict[str, list[int]] = {}
    for k, owner in enumerate(owners):
        queues.setdefault(owner, []).append(k)
    found = [queues[t].pop(0) for t in mine]
    for info, k in zip(leaves, found):
        # a PRNG key array is its key data there (`key<fry>[]` is a `u32[2]` parameter)
        if tuple(int(d) for d in info.shape) != tuple(ordered[k].shape.dims)[:len(info.shape)] or (
                len(ordered[k].shape.dims) > len(info.shape) and not _is_key(info.dtype)):
            return None
    return [int(ordered[k].literal or 0) for k in found]


def _is_key(dtype) -> bool:
    import jax

    try:
        return bool(jax.dtypes.issubdtype(dtype, jax.dtypes.prng_key))
    except TypeError:
        return False


def _outputs(traced, facts: CompileFacts) -> list[OutFact]:
    import jax

    info = getattr(traced, "out_info", None)
    flat = jax.tree_util.tree_flatten_with_path(info)[0] if info is not None else []
    root = facts.module.entry.root
    single = root is not None and not root.shape.is_tuple
    place = (lambda k: k) if single or root is None else _output_places(root.shape.elements, flat)
    out = []
    for k, (path, leaf) in enumerate(flat):
        out.append(OutFact(jax.tree_util.keystr(path), tuple(int(d) for d in leaf.shape), _dtype(leaf.dtype),
                           () if single else (place(k),)))
    return out


def _output_places(results: tuple, flat: list):
    """Where each traced output sits among the executable's results (a function of the
    traced output's position): in order, unless the program a recorded call compiled
    returns more than this trace (equinox's filter_jit returns an extra leading result)
    or the same results in another order (flax's nnx.jit returns the graph objects'
    updated state before the function's own outputs, where the trace returns them after):
    the one offset, or the one rotation, that lines every shape and dtype up."""
    from jaxlint.compile.facts import HLO_DTYPES

    want = [(tuple(int(d) for d in leaf.shape), HLO_DTYPES.get(_dtype(leaf.dtype), "")) for _, leaf in flat]
    got = [(tuple(r.dims), r.dtype) for r in results]
    n, extra = len(want), len(got) - len(want)

    def fits(w: tuple, g: tuple) -> bool:  # a PRNG key array (no HLO dtype of its own) fits any result
        return w == g or not w[1]

    if extra > 0:
        offs = [o for o in range(extra + 1) if all(fits(w, g) for w, g in zip(want, got[o:o + n]))]
        off = offs[0] if len(offs) == 1 else 0
        return lambda k: k + off
    if extra < 0 or not n or all(fits(w, g) for w, g in zip(want, got)):
        return lambda k: k
    turns = [r for r in range(1, n) if all(fits(w, got[(k + r) % n]) for k, w in enumerate(want))]
    if len(turns) == 1:
        return lambda k: (k + turns[0]) % n
    return lambda k: k


def _dtype(dt) -> str:
    import numpy as np

    try:
        return str(np.dtype(dt))
    except TypeError:
        return str(dt)
