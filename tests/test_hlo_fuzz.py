"""The optimized-HLO parser on damaged texts (issue 38): replica groups in any spelling
are bounded and checked (an iota of 1.5 billion devices is refused, never expanded into
a list), and of thousands of mutated real programs none raises anything but the
parser's own error, through the walks the compile tier makes over a parsed module."""
from __future__ import annotations

import random
import re
import resource
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from jaxlint.compile import figures
from jaxlint.compile.hlo import HloParseError, collectives, host_calls, parse_hlo, parse_replica_groups

DATA = Path(__file__).parent / "data" / "hlo"


@pytest.mark.parametrize("text, why", [
    ("[0,0]<=[0]", "an empty dimension"),
    ("[2,2]<=[2,2]T(5,0)", "T(5,0) is no permutation of 2 dimensions"),
    ("[2,2]<=[2,2]T(0,0)", "no permutation"),
    ("[3,2]<=[4]", "3x2 groups of 4 devices"),
    ("mesh['a'=0] {'a'}", "an empty dimension"),
    ("mesh['a'=2] {'a'}, device_ids=([4]T(2))", "no permutation"),
])
def test_malformed_or_huge_replica_groups_raise_the_parsers_error(text, why):
    with pytest.raises(HloParseError, match=re.escape(why)):
        parse_replica_groups(text)


def test_well_formed_replica_groups_still_read():
    assert parse_replica_groups("[2,4]<=[4,2]T(1,0)") == ((0, 2, 4, 6), (1, 3, 5, 7))
    assert parse_replica_groups("[1,8]<=[8]") == ((0, 1, 2, 3, 4, 5, 6, 7),)
    assert parse_replica_groups("mesh['a'=4,'b'=2] {'a'}") == ((0, 2, 4, 6), (1, 3, 5, 7))
    assert parse_replica_groups("{{0,1},{2,3}}") == ((0, 1), (2, 3))


@pytest.mark.parametrize("text", ["[1,1500000000]<=[1500000000]", "mesh['a'=100000,'b'=100000] {'a'}"])
def test_groups_of_a_billion_devices_are_refused_without_the_memory_of_them(text):
    """In a process limited to 1 GiB (expanding them took 12 GB)."""
    code = textwrap.dedent(f"""
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
        from jaxlint.compile.hlo import HloParseError, parse_replica_groups
        try:
            parse_replica_groups({text!r})
        except HloParseError as e:
            print("refused:", e)
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout.startswith("refused: replica groups") and "more than 65536" in r.stdout, \
        r.stderr[-500:]


def test_a_computation_that_calls_itself_is_the_parsers_error():
    text = (DATA / "nested-0.10.2.hlo").read_text()
    fused = re.search(r"calls=(%[\w.\-]+)", text)
    assert fused is not None
    name = fused.group(1)
    body_start = text.index(name + " ")
    looped = text[:body_start] + text[body_start:].replace("\n}", f"\n  %again = f32[] call(), to_apply={name}\n}}", 1)
    with pytest.raises(HloParseError, match="calls itself"):
        parse_hlo(looped)


_NUMBER = re.compile(r"\d+")
_GROUPS = ["[1,1500000000]<=[1500000000]", "mesh['a'=100000,'b'=100000] {'a'}", "[0,0]<=[0]", "[2,2]<=[4]T(5,0)", "{{0,1},{}}", "mesh['a'=0] {'a'}",
           "[3,2]<=[4]", "mesh['a'=2] {'a'}, device_ids=([4]T(2))"]


def _mutate(rng: random.Random, t: str) -> str:
    k = rng.randrange(5)
    if k == 0:  # a number made 0, huge, negative or empty
        m = rng.choice(list(_NUMBER.finditer(t)))
        return t[:m.start()] + rng.choice(["0", "1500000000", "99999999999999999999", "-1", ""]) + t[m.end():]
    if k == 1:  # a few characters cut
        i = rng.randrange(len(t))
        return t[:i] + t[i + rng.randrange(1, 20):]
    if k == 2:  # a bracket or operator put in
        i = rng.randrange(len(t))
        return t[:i] + rng.choice("{}[](),=<>T%:'\"") + t[i:]
    if k == 3:  # a line repeated elsewhere (a name defined twice, a computation calling itself)
        lines = t.splitlines()
        lines.insert(rng.randrange(len(lines)), rng.choice(lines))
        return "\n".join(lines)
    return t.replace("replica_groups=", "replica_groups=" + rng.choice(_GROUPS) + " ", 1)


def test_mutated_real_programs_raise_nothing_but_the_parsers_error():
    texts = [p.read_text() for p in sorted(DATA.glob("*.hlo"))]
    assert len(texts) >= 20
    rng = random.Random(38)
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (4 << 30, hard))  # a runaway expansion fails, not the machine
    others: list[str] = []
    parsed = 0
    try:
        for _ in range(3000):
            t = rng.choice(texts)
            for _ in range(rng.randrange(1, 4)):
                t = _mutate(rng, t)
            try:
                m = parse_hlo(t)
                for c in collectives(m):
                    c.group_size, c.payload
                m.kernels(), m.entry_outputs(), host_calls(m)
                figures._cost(m, m.entry.name, True, {}), figures._cost(m, m.entry.name, False, {})
                parsed += 1
            except HloParseError:
                pass
            except (Exception, RecursionError, MemoryError) as e:  # noqa: BLE001 - what the test looks for
                others.append(f"{type(e).__name__}: {e}"[:200])
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
    assert not others, f"{len(others)} of 3000: " + "; ".join(others[:5])
    assert parsed > 300  # the mutations leave many programs whole enough to read
