"""Compile a test's source for a TPU without one: XLA's deviceless compile for a
topology (``jax.experimental.topologies``), with libtpu installed (``jax[tpu]``).

``compile_source_for`` compiles the directive-bearing function of a source text as
``compile_helpers.compile_source`` does, for the CPU or for a TPU topology: the leaves
of its arguments are placed on the topology's first device, and a module that builds
its mesh from ``jax.devices()`` gets the topology's devices there instead (the program
compiled is the one the source builds; only where its devices come from differs).

Tests that need libtpu call :func:`need_libtpu` (a skip with the reason where it is
not installed). The environment libtpu reads when it loads is set here, before it does
(:data:`jaxlint.targets.LIBTPU_ENV`): several processes may load it at once
(pytest-xdist workers), and its partitioner's warnings go to stderr, where the compile
tier reads them (JAX314).
"""
from __future__ import annotations

import ast
import functools
import importlib.util
import itertools
import os
import sys
import textwrap
from pathlib import Path

import pytest

from jaxlint.targets import LIBTPU_ENV

_COUNTER = itertools.count()
for _k, _v in LIBTPU_ENV.items():
    os.environ.setdefault(_k, _v)

#: the topologies tests compile for: name -> (topology, chips_per_host_bounds)
TOPOLOGIES = {
    "v5e:1x1": ("v5e:1x1", (1, 1, 1)),
    "v5e:2x4": ("v5e:2x4", (2, 2, 1)),
    "v4:2x2x1": ("v4:2x2x1", (2, 2, 1)),
}


def libtpu_missing() -> str | None:
    """Why a TPU program cannot be compiled here, or None."""
    if importlib.util.find_spec("libtpu") is None:
        return 'libtpu is not installed (pip install "jaxlint[tpu]"): no deviceless TPU compile here'
    return None


def need_libtpu() -> None:
    why = libtpu_missing()
    if why:
        pytest.skip(why)


@functools.lru_cache(maxsize=None)
def topology_devices(name: str) -> tuple:
    """The devices of a TPU topology, compiled for without a TPU."""
    need_libtpu()
    from jax.experimental import topologies

    topo, bounds = TOPOLOGIES[name]
    try:
        desc = topologies.get_topology_desc(topo, "tpu", chips_per_host_bounds=bounds)
    except Exception as e:  # a libtpu that cannot describe it
        pytest.skip(f"libtpu cannot describe topology {topo}: {type(e).__name__}: {str(e)[:200]}")
    return tuple(desc.devices)


def compile_source_for(source: str, tmp_path: Path, target: str = "cpu", function: str | None = None,
                       trace_facts: dict | None = None):
    """(facts, function name) for the directive-bearing function of ``source``, compiled
    for the CPU (``target="cpu"``) or a TPU topology of :data:`TOPOLOGIES`."""
    if target == "cpu":
        from compile_helpers import compile_source

        return compile_source(source, tmp_path, function=function, trace_facts=trace_facts)
    import jax

    from jaxlint.compile.tier import analyse
    from jaxlint.config.inputspec import spec_from_parts
    from jaxlint.dynamic.inputs import directives, parse_directive
    from jaxlint.dynamic.worker import trace_args

    devices = topology_devices(target)
    source = textwrap.dedent(source).lstrip("\n")
    tree = ast.parse(source)
    found = directives(source.splitlines())
    node, body = next((n, found[min([n.lineno] + [d.lineno for d in n.decorator_list]) - 1])
                      for n in tree.body if isinstance(n, ast.FunctionDef)
                      and (function is None or n.name == function)
                      and min([n.lineno] + [d.lineno for d in n.decorator_list]) - 1 in found)
    args, kwargs, static, _ = parse_directive(body)
    spec = spec_from_parts(args, kwargs, static, "directive", f"line {node.lineno}")
    meshed = "jax.devices()" in source
    path = tmp_path / f"tpu_example_{next(_COUNTER)}.py"
    # same length and line numbers: the metadata's lines are the source's
    path.write_text(source.replace("jax.devices()", "_TPU_DEVICES_"))
    spec_obj = importlib.util.spec_from_file_location(path.stem, path)
    mod = importlib.util.module_from_spec(spec_obj)
    mod._TPU_DEVICES_ = list(devices)  # type: ignore[attr-defined]
    sys.modules[path.stem] = mod
    spec_obj.loader.exec_module(mod)
    jitted = getattr(mod, node.name)
    a, kw = trace_args(getattr(jitted, "__wrapped__", jitted), spec, {}, False)
    if not meshed:  # one chip: every argument on it
        place = jax.sharding.SingleDeviceSharding(devices[0])

        def put(x):
            if isinstance(x, jax.ShapeDtypeStruct):
                return jax.ShapeDtypeStruct(x.shape, x.dtype, weak_type=x.weak_type, sharding=place)
            return x

        a, kw = jax.tree_util.tree_map(put, (a, kw))
    traced = jitted.trace(*a, **kw)
    facts = analyse(traced, function=node.name, file=str(path), line=node.lineno, requested_backend="tpu",
                    trace_facts=trace_facts, platforms=("tpu",))
    return facts, node.name


def assert_example_on_one_chip(rule, example, tmp_path: Path, cpu_rule=None) -> list:
    """A rule's VALID/INVALID example compiled for one v5e chip gives its verdict (an
    INVALID one its line and message), and the CPU's program of it gives none (checked
    with ``cpu_rule``, the rule by default): the diagnostics on the chip's program."""
    from compile_helpers import reported
    from jaxlint.rule import Invalid

    need_libtpu()
    facts, _ = compile_source_for(example.code, tmp_path, "v5e:1x1")
    diags = reported(rule, facts)
    if isinstance(example, Invalid):
        assert diags and diags[0].start.line == example.line, [(d.start.line, d.message) for d in diags]
        assert example.message in diags[0].message, diags[0].message
    else:
        assert diags == [], [(d.start.line, d.message) for d in diags]
    cpu, _ = compile_source_for(example.code, tmp_path, "cpu")
    assert reported(cpu_rule or rule, cpu) == []
    return diags
