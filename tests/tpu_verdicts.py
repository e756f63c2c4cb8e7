"""Every compile rule's VALID/INVALID examples compiled for the CPU and for TPU
topologies, each rule run on each program: the verdicts, as JSON on stdout.

Run as a program (``python tests/tpu_verdicts.py OUT.json [RULE ...]``) in a process of
its own: the CPU compile needs 8 host devices for the multi-device examples (set before
jax starts) and libtpu the deviceless TPU compile. tests/rules/hlo/test_tpu_verdicts.py
reads what it writes.
"""
from __future__ import annotations

import json
import os
import sys
import tempfile
import traceback
from pathlib import Path

#: the topology each rule's examples are compiled for besides the CPU: one chip, or
#: the 8 chips of a v5e-8 for the examples that build a mesh of 8 devices
ONE_CHIP, EIGHT_CHIPS = "v5e:1x1", "v5e:2x4"
#: rules whose examples rest on the trace tier's findings, which this harness does not
#: run: compared on what the compile tier decides (JAX303: the program's size against its
#: budget, which names no cause without the trace tier's loops unless `size-alone`); their
#: rows' `invalid` is then the CPU's verdict
COMPILE_SIDE = {"JAX303": {"size-alone": True}}


def verdicts(codes: list[str]) -> dict:
    from compile_helpers import reported
    from jaxlint.rule import Invalid, iter_rule_examples
    from jaxlint import rules
    from tpu_compile import compile_source_for

    out: dict = {}
    tmp = Path(tempfile.mkdtemp(prefix="tpu_verdicts_"))
    for rule_cls in rules.RULES:
        if rule_cls.code not in codes:
            continue
        for ident, ex in iter_rule_examples(rule_cls):
            target = EIGHT_CHIPS if "jax.devices()" in ex.code else ONE_CHIP
            row = {"rule": rule_cls.code, "invalid": isinstance(ex, Invalid), "target": target}
            options = {**ex.options, **COMPILE_SIDE.get(rule_cls.code, {})}
            for where in ("cpu", target):
                d = tmp / f"{ident}_{where.replace(':', '_')}"
                d.mkdir(parents=True, exist_ok=True)
                try:
                    facts, _ = compile_source_for(ex.code, d, where)
                    diags = reported(rule_cls(options), facts)
                    row[where] = [{"line": g.start.line, "message": g.message}
                                  for g in diags]
                except Exception as e:  # recorded: a test says which example did not compile
                    row[where] = {"error": f"{type(e).__name__}: {e}"[:500], "trace": traceback.format_exc()[-1500:]}
            if rule_cls.code in COMPILE_SIDE and isinstance(row["cpu"], list):
                row["invalid"] = bool(row["cpu"])
            out[ident] = row
    out.update(program_verdicts(codes, tmp))
    return out


def program_verdicts(codes: list[str], tmp: Path) -> dict:
    """The sharded programs of tests/multi_device.py, each function compiled for 8 host
    devices and for a v5e-8: every rule of ``codes`` on each (rows keyed ``program:NAME``;
    ``invalid`` is whether the CPU's program has a finding of the rule)."""
    import re

    import multi_device
    from compile_helpers import reported
    from jaxlint import rules
    from tpu_compile import compile_source_for

    out: dict = {}
    for name in multi_device.PROGRAMS:
        src = multi_device.source(name)
        for fn in re.findall(r"# jaxlint: args=.*\n(?:@.*\n)*def (\w+)", src):
            facts = {}
            for where in ("cpu", EIGHT_CHIPS):
                d = tmp / f"program_{name}_{fn}_{where.replace(':', '_')}"
                d.mkdir(parents=True, exist_ok=True)
                facts[where], _ = compile_source_for(src, d, where, function=fn)
            for rule_cls in rules.RULES:
                if rule_cls.code not in codes:
                    continue
                found = {where: [{"line": g.start.line, "message": g.message} for g in reported(rule_cls(), f)]
                         for where, f in facts.items()}
                out[f"program:{name}:{fn}:{rule_cls.code}"] = {
                    "rule": rule_cls.code, "invalid": bool(found["cpu"]), "target": EIGHT_CHIPS, **found}
    return out


if __name__ == "__main__":
    flags = os.environ.get("XLA_FLAGS", "")
    if "xla_force_host_platform_device_count" not in flags:
        os.environ["XLA_FLAGS"] = (flags + " --xla_force_host_platform_device_count=8").strip()
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    result = verdicts(sys.argv[2:])
    Path(sys.argv[1]).write_text(json.dumps(result, indent=1))
