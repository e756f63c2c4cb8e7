"""Compile a function of a source text with its ``# jaxlint: args=...`` directive and
return the compile tier's facts (in the test process: tests may run user code)."""
from __future__ import annotations

import ast
import importlib.util
import itertools
import sys
import textwrap
from pathlib import Path

_COUNTER = itertools.count()


def compile_source(source: str, tmp_path: Path, function: str | None = None, backend: str = "cpu",
                   trace_facts: dict | None = None):
    """(facts, function name) for the directive-bearing function of ``source``."""
    from jaxlint.compile.tier import analyse
    from jaxlint.dynamic.inputs import directives, parse_directive
    from jaxlint.config.inputspec import spec_from_parts
    from jaxlint.dynamic.worker import trace_args

    source = textwrap.dedent(source).lstrip("\n")
    lines = source.splitlines()
    tree = ast.parse(source)
    found = directives(lines)
    target = None
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and (function is None or node.name == function):
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            if first - 1 in found:
                target = (node, found[first - 1])
                break
    assert target is not None, "no function with a directive"
    node, body = target
    args, kwargs, static, _ = parse_directive(body)
    spec = spec_from_parts(args, kwargs, static, "directive", f"line {node.lineno}")
    path = tmp_path / f"example_{next(_COUNTER)}.py"
    path.write_text(source)
    spec_obj = importlib.util.spec_from_file_location(path.stem, path)
    mod = importlib.util.module_from_spec(spec_obj)
    sys.modules[path.stem] = mod
    spec_obj.loader.exec_module(mod)
    jitted = getattr(mod, node.name)
    a, kw = trace_args(getattr(jitted, "__wrapped__", jitted), spec, {}, False)
    traced = jitted.trace(*a, **kw)
    facts = analyse(traced, function=node.name, file=str(path), line=node.lineno,
                    requested_backend=backend, trace_facts=trace_facts)
    return facts, node.name



def reported(rule, facts) -> list:
    """The diagnostics ``rule`` reports on ``facts``: its ``check`` on the context the
    engine hands it (``jaxlint.compile.facts.CompileContext``)."""
    from jaxlint.compile.facts import CompileContext

    ctx = CompileContext(facts, rule)
    rule.check(ctx)
    return ctx.diagnostics


#: a callback between two elementwise ops: XLA cannot fuse across it (JAX301)
CALLBACK_SPLIT = """
import jax
import jax.numpy as jnp
import numpy as np

# jaxlint: args=(f32[512,1024],)
@jax.jit
def f(x):
    y = jnp.tanh(x) * 2.0
    y = jax.pure_callback(np.log1p, jax.ShapeDtypeStruct(y.shape, y.dtype), y)
    return jnp.exp(y) + x
"""
