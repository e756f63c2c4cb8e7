"""Lint groups (issue 36): every rule's group, set by its blind figure, decides whether it
runs by default and how severe its findings are; group names select rules wherever codes
do. The selection tests run the real CLI in a subprocess."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from jaxlint.diagnostic import Severity
from jaxlint.registry import all_rules, rules_by_code, select_rules
from jaxlint.rule import GROUPS, finding_severity

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
import rule_figures  # noqa: E402

#: one finding of each of three groups: JAX105 (correctness), JAX102 (perf), JAX106 (nursery:
#: a clock read at trace time; its print of a value, a finding kind, is in nursery too)
SOURCE = """\
import time

import jax


@jax.jit
def f(x):
    t = time.time()
    if x > 0:
        return x
    for i in range(100):
        x = x + i
    return x
"""


def jaxlint(tmp: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "jaxlint", *args], cwd=tmp, env=env, capture_output=True,
                          text=True, timeout=120)


def codes(tmp: Path, *args: str) -> list[str]:
    r = jaxlint(tmp, "check", "--no-cache", "--output-format", "json", "--exit-zero", *args, "a.py")
    assert r.returncode == 0, r.stderr
    return sorted(d["code"] for d in json.loads(r.stdout))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "a.py").write_text(SOURCE)
    return tmp_path


def test_every_rule_has_a_group_that_sets_its_default():
    for r in all_rules():
        group = GROUPS[r.group]
        assert r.default_enabled is group.on, r.code
        rank = {"info": 0, "warning": 1, "error": 2}
        assert rank[r.severity.value] <= rank[group.severity.value], r.code


def test_the_committed_figures_are_what_the_verdicts_give():
    """benchmarks/rule_figures.json is computed from the blind verdicts; a new verdict file
    (dev36) or verdict means running benchmarks/rule_figures.py again."""
    committed = json.loads((ROOT / "benchmarks" / "rule_figures.json").read_text())
    assert committed == rule_figures.figures(), "run python benchmarks/rule_figures.py"


def test_every_group_agrees_with_the_rules_blind_figure():
    """A rule whose blind figure is below 50 % true (over at least 10 blind findings) is in
    no group on by default, unless it is a correctness rule kept on by a named proof; the
    same bar holds for each finding kind with a group of its own, by the kind's figure."""
    figures = json.loads((ROOT / "benchmarks" / "rule_figures.json").read_text())["rules"]
    wrong = []
    for r in all_rules():
        fig = figures.get(r.code)
        allowed, why = rule_figures.allowed_groups(r.code, fig["blind"] if fig else None)
        if r.group not in allowed:
            wrong.append(f"{r.code} is in {r.group}, its figure allows {sorted(allowed)}: {why}")
        for name, kind in r.kinds.items():
            kfig = (fig or {}).get("kinds", {}).get(name)
            allowed, why = rule_figures.allowed_groups(f"{r.code}:{name}", kfig if kfig and kfig["findings"] else None)
            if kind.group not in allowed:
                wrong.append(f"{r.code}:{name} is in {kind.group}, its figure allows {sorted(allowed)}: {why}")
    assert not wrong, "\n".join(wrong)


def test_a_kind_is_the_rules_answer_for_a_signature():
    """A verdict's kind is what the rule says of the verdict's signature (a finding's too)."""
    side_effect = rules_by_code()["JAX106"]
    assert side_effect.kind_of("f:print('x is', x)") == "print-of-value"
    assert side_effect.kind_of("C.m.<locals>.g:print(f'{n} steps', x.shape[0])") == "print-of-value"
    assert side_effect.kind_of("f:print('compiling', x.shape, len(x), x.dtype)") is None
    assert side_effect.kind_of("f:print(' ** WARNING ** deprecated')") is None
    assert side_effect.kind_of("f:time.time()") is None
    # the print of a value left `suspicious` for `nursery` when blind52 took its figure to 48 %
    assert side_effect.group_of("f:print(x)") == "nursery" and side_effect.group_of("f:time.time()") == "nursery"
    fig = rule_figures.figures()["rules"]["JAX106"]
    assert fig["kinds"]["print-of-value"]["findings"] < fig["blind"]["findings"]


KINDS = """\
import time

import jax


@jax.jit
def f(x):
    print("x is", x)
    print("compiling")
    t = time.time()
    return x * t
"""


def test_the_default_selection_takes_the_kinds_whose_group_is_on(tmp_path):
    """JAX106 is in the nursery, and so is its print of a value since blind52 took that
    kind's blind figure to 48 % (it was `suspicious`): by default neither is reported; naming
    the rule takes every kind, a group's name its kinds. (A kind on by default in a rule
    that is off: JAX102's `long-count`, below, and JAX114's kinds.)"""
    (tmp_path / "a.py").write_text(KINDS)

    def rows(*args: str) -> list[tuple[str, int]]:
        r = jaxlint(tmp_path, "check", "--no-cache", "--output-format", "json", "--exit-zero", *args, "a.py")
        assert r.returncode == 0, r.stderr
        return sorted((d["code"], d["location"]["row"]) for d in json.loads(r.stdout))

    assert rows() == []
    assert rows("--select", "JAX106") == rows("--select", "side-effect-in-jit") == [("JAX106", 8), ("JAX106", 10)]
    assert rows("--preview") == [("JAX106", 8), ("JAX106", 10)]
    assert rows("--select", "nursery") == [("JAX106", 8), ("JAX106", 10)]
    assert rows("--select", "suspicious") == []
    assert rows("--select", "nursery", "--ignore", "JAX106") == []
    assert rows("--extend-ignore", "JAX106") == []
    (tmp_path / "pyproject.toml").write_text('[tool.jaxlint]\nselect = ["JAX106"]\n')
    assert rows() == [("JAX106", 8), ("JAX106", 10)]
    settings = json.loads(jaxlint(tmp_path, "check", "--show-settings", "--isolated", "a.py").stdout)
    assert not any("JAX106" in codes for codes in settings["active_groups"].values())  # --isolated: the defaults


def test_per_file_ignores_and_the_baseline_go_by_a_findings_kind(tmp_path):
    """A group's name in per-file-ignores turns off the findings of the kinds in that group,
    whatever the rule's own group; and a baselined finding of a kind the selection left out
    is not called stale (the rule ran, but not for that kind)."""
    (tmp_path / "a.py").write_text(KINDS)

    def run(*args: str) -> subprocess.CompletedProcess:
        return jaxlint(tmp_path, "check", "--no-cache", "--output-format", "json", "--exit-zero", *args, "a.py")

    def rows(*args: str) -> list[tuple[str, int]]:
        r = run(*args)
        assert r.returncode == 0, r.stderr
        return sorted((d["code"], d["location"]["row"]) for d in json.loads(r.stdout))

    assert rows("--select", "JAX106", "--per-file-ignores", "a.py:suspicious") == [("JAX106", 8), ("JAX106", 10)]

    every = tmp_path / "every.json"
    r = jaxlint(tmp_path, "check", "--no-cache", "--select", "JAX106", "--write-baseline", str(every), "a.py")
    assert r.returncode == 0, r.stderr
    assert len(json.loads(every.read_text())["findings"]) == 2
    r = run("--baseline", str(every))
    assert json.loads(r.stdout) == [] and "stale" not in r.stderr, r.stderr
    r = run("--baseline", str(every), "--prune-baseline")
    assert len(json.loads(every.read_text())["findings"]) == 2, r.stderr
    # the print of a value gone: its entry is stale, the clock's is not
    (tmp_path / "a.py").write_text(KINDS.replace('    print("x is", x)\n', ""))
    r = run("--select", "JAX106", "--baseline", str(every))
    assert "1 finding in" in r.stderr and "stale" in r.stderr, r.stderr


LOOPS = """\
from functools import partial

import jax

STEPS = 500


@jax.jit
def named(x):
    for _ in range(STEPS):
        x = x + 1
    return x


@jax.jit
def written(x):
    for _ in range(8 * 8 * 3):
        x = x * 2
    return x


@partial(jax.jit, static_argnums=1)
def static(x, n):
    for _ in range(n):
        x = x - 1
    return x


@jax.jit
def short(x):
    for _ in range(20):
        x = x / 2
    return x
"""


def test_a_kind_the_model_knows_is_kept_on_the_finding(tmp_path):
    """JAX102 is in pedantic, its loops whose count the model knows to be at least 100 in
    perf: the count through a name (``STEPS``) is the model's answer, given when the rule
    reports and kept in the finding's data; a verdict judged before kinds were kept gets
    the rule's answer from the loop's text, which sees written numbers only."""
    (tmp_path / "a.py").write_text(LOOPS)

    def found(*args: str) -> list[tuple[int, str | None]]:
        r = jaxlint(tmp_path, "check", "--no-cache", "--output-format", "json", "--exit-zero", *args, "a.py")
        assert r.returncode == 0, r.stderr
        return sorted((d["location"]["row"], d["data"].get("kind")) for d in json.loads(r.stdout)
                      if d["code"] == "JAX102")

    assert found() == found("--select", "perf") == [(10, "long-count"), (17, "long-count")]
    assert found("--select", "JAX102") == [(10, "long-count"), (17, "long-count"), (24, None), (31, None)]
    assert found("--select", "pedantic") == [(24, None), (31, None)]
    assert found("--select", "JAX102", "--per-file-ignores", "a.py:perf") == [(24, None), (31, None)]
    loop = rules_by_code()["JAX102"]
    assert loop.kind_of("f:for _ in range(8 * 8 * 3): x = x * 2") == "long-count"
    assert loop.kind_of("f:for _ in range(STEPS): x = x + 1") is None  # a name: the model's to know
    assert loop.group_of("f:for _ in range(STEPS): x = x + 1", "long-count") == "perf"
    assert loop.kind_of("f:for _ in range(20): x = x / 2") is None
    verdict = {"signature": "f:for _ in range(STEPS): x = x + 1", "kind": "long-count"}
    assert rule_figures.verdict_kind(loop, verdict) == "long-count"
    assert rule_figures.verdict_kind(loop, {"signature": verdict["signature"]}) is None
    # the kind its finding has now (recorded by verdict_kinds.py) before the one it had when judged
    judged = {"signature": "f:for _ in range(8 * 8 * 3): x = x * 2", "kind": "judged-kind"}
    assert rule_figures.verdict_kind(loop, judged, recorded="long-count") == "long-count"
    assert rule_figures.verdict_kind(loop, judged) == "judged-kind"


def test_the_baseline_keeps_the_kind_the_model_gave(tmp_path):
    """A baselined finding keeps the kind its rule gave when reporting: the loop counted
    through a name (``STEPS``, long-count, on by default) is looked for under the default
    selection, so once it is gone its entry is stale, though its text alone says no kind."""
    (tmp_path / "a.py").write_text(LOOPS)
    every = tmp_path / "every.json"
    r = jaxlint(tmp_path, "check", "--no-cache", "--select", "JAX102", "--write-baseline", str(every), "a.py")
    assert r.returncode == 0, r.stderr
    kinds = sorted((e["signature"].split(":")[0], e.get("kind")) for e in json.loads(every.read_text())["findings"])
    assert kinds == [("named", "long-count"), ("short", None), ("static", None), ("written", "long-count")]

    def run(*args: str) -> subprocess.CompletedProcess:
        return jaxlint(tmp_path, "check", "--no-cache", "--output-format", "json", "--exit-zero",
                       "--baseline", str(every), *args, "a.py")

    r = run()
    assert json.loads(r.stdout) == [] and "stale" not in r.stderr, r.stderr
    # the named loop gone: its entry is stale under the default selection; the pedantic
    # loops' entries are not (the default selection did not look for them)
    (tmp_path / "a.py").write_text(LOOPS.replace("    for _ in range(STEPS):\n        x = x + 1\n", "    x = x + 1\n"))
    r = run()
    assert "1 finding in" in r.stderr and "stale" in r.stderr, r.stderr
    r = run("--prune-baseline")
    left = sorted(e["signature"].split(":")[0] for e in json.loads(every.read_text())["findings"])
    assert left == ["short", "static", "written"], r.stderr


def test_a_low_figure_allows_no_default_group():
    fig = {"findings": 20, "true": 6, "debatable": 10, "false": 4, "precision": 0.3}
    assert rule_figures.allowed_groups("JAX999", fig)[0] == {"pedantic"}
    fig = {"findings": 20, "true": 6, "debatable": 4, "false": 10, "precision": 0.3}
    assert rule_figures.allowed_groups("JAX999", fig)[0] == {"nursery"}
    few = {"findings": 4, "true": 0, "debatable": 4, "false": 0, "precision": 0.0}
    assert "perf" in rule_figures.allowed_groups("JAX999", few)[0]


def test_the_group_sets_the_default_severity_and_a_proof_may_ask_more():
    static_arg = rules_by_code()["JAX108"]  # pedantic: its proven raise asks for an error
    assert static_arg.group == "pedantic" and static_arg.severity is Severity.WARNING
    assert finding_severity(static_arg, None) is Severity.WARNING
    assert finding_severity(static_arg, Severity.ERROR) is Severity.ERROR
    host_callback = rules_by_code()["JAX203"]
    control_flow = rules_by_code()["JAX105"]
    assert finding_severity(control_flow, None) is Severity.ERROR
    # the user's severity for the rule overrides both ways
    assert finding_severity(host_callback(options={"severity": "error"}), Severity.INFO) is Severity.ERROR
    assert finding_severity(control_flow(options={"severity": "info"}), Severity.ERROR) is Severity.INFO


def test_default_selection_and_preview(project):
    assert codes(project) == ["JAX102", "JAX105"]  # side-effect-in-jit's clock read is in the nursery
    assert codes(project, "--preview") == ["JAX102", "JAX105", "JAX106"]
    assert "JAX106" in [r.code for r in select_rules(None, (), (), ("static",), preview=True)]


def test_groups_select_and_ignore_on_the_command_line(project):
    assert codes(project, "--select", "perf") == ["JAX102"]
    assert codes(project, "--select", "correctness,nursery") == ["JAX105", "JAX106"]
    assert codes(project, "--select", "ALL", "--ignore", "correctness") == ["JAX102", "JAX106"]
    assert codes(project, "--extend-ignore", "perf") == ["JAX105"]
    # a code is more specific than a group
    assert codes(project, "--select", "perf", "--extend-select", "JAX105", "--ignore", "correctness") == \
        ["JAX102", "JAX105"]
    assert codes(project, "--per-file-ignores", "a.py:correctness") == ["JAX102"]


def test_groups_in_the_config(project):
    (project / "pyproject.toml").write_text(
        '[tool.jaxlint]\nextend-select = ["nursery"]\nextend-ignore = ["perf"]\n'
        '[tool.jaxlint.per-file-ignores]\n"a.py" = ["correctness"]\n')
    assert codes(project) == ["JAX106"]
    (project / "pyproject.toml").write_text('[tool.jaxlint]\npreview = true\nignore = ["JAX105"]\n')
    assert codes(project) == ["JAX102", "JAX106"]


def test_an_unknown_group_is_one_line_and_exit_2(project):
    r = jaxlint(project, "check", "--no-cache", "--select", "perfomance", "a.py")
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert "unknown rule selector `perfomance`; a selector is a code (JAX101), a prefix (JAX1), a rule name, " \
           "a lint group (correctness, suspicious, perf, pedantic, nursery) or ALL" in r.stderr
    r = jaxlint(project, "check", "--no-cache", "--ignore", "corectness", "a.py")
    assert r.returncode == 2 and "unknown rule selector `corectness`; did you mean `correctness`?" in r.stderr
    (project / "pyproject.toml").write_text('[tool.jaxlint]\nextend-ignore = ["pedantik"]\n')
    r = jaxlint(project, "check", "--no-cache", "a.py")
    assert r.returncode == 2 and "`extend-ignore`: unknown rule selector `pedantik`" in r.stderr, r.stderr


def test_per_rule_severity_with_groups(project):
    (project / "pyproject.toml").write_text(
        '[tool.jaxlint]\n[tool.jaxlint.rules.traced-control-flow]\nseverity = "warning"\n'
        '[tool.jaxlint.rules.JAX102]\nseverity = "error"\n')
    r = jaxlint(project, "check", "--no-cache", "--output-format", "json", "--exit-zero", "a.py")
    assert {d["code"]: d["severity"] for d in json.loads(r.stdout)} == {"JAX102": "error", "JAX105": "warning"}


def test_rule_listing_settings_and_docs_show_groups(project):
    listing = jaxlint(project, "rule", "--all").stdout
    line = next(x for x in listing.splitlines() if x.startswith("JAX106"))
    assert "nursery" in line.split()
    info = json.loads(jaxlint(project, "rule", "JAX103", "--output-format", "json").stdout)
    assert info["group"] == "pedantic" and info["default_enabled"] is False
    settings = json.loads(jaxlint(project, "check", "--show-settings", "a.py").stdout)
    assert "JAX105" in settings["active_groups"]["correctness"] and settings["active_groups"]["nursery"] == []
    assert settings["groups"]["correctness"] == {"on_by_default": True, "severity": "error",
                                                 "about": GROUPS["correctness"].doc}
    sarif = json.loads(jaxlint(project, "check", "--no-cache", "--output-format", "sarif", "--exit-zero",
                               "a.py").stdout)
    props = {r["id"]: r["properties"] for r in sarif["runs"][0]["tool"]["driver"]["rules"]}
    groups = {code: p["group"] for code, p in props.items()}
    assert groups["JAX102"] == "pedantic" and props["JAX102"]["kindGroups"] == {"long-count": "perf"}
    assert groups["JAX105"] == "correctness" and "JAX107" not in groups
    assert "JAX106" not in groups  # off by default, its print of a value too (nursery since blind52)
    page = (ROOT / "docs" / "rules" / "JAX103.md").read_text()
    assert "group: pedantic" in page and "## Group and measured figure" in page
    fig = json.loads((ROOT / "benchmarks" / "rule_figures.json").read_text())["rules"]["JAX103"]["blind"]
    assert f"Blind figure: {fig['findings']} findings, {fig['true']} true" in page


def test_an_off_default_verdict_is_one_the_default_files_do_not_hold():
    """The sealed corpora judged again for the rules that are off by default count toward each
    rule's blind figure, and no finding is counted twice: a key judged in a corpus's default
    verdicts file is not judged again in its off-by-default file."""
    per_corpus = rule_figures.blind_verdicts()
    key = lambda j: (j["path"], j["code"], j["signature"])  # noqa: E731
    for corpus in rule_figures.OFF_DEFAULT:
        assert f"{corpus}_offdefault" in per_corpus, corpus
        again = {key(j) for j in per_corpus.get(f"{corpus}_offdefault", [])}
        assert not again & {key(j) for j in per_corpus.get(corpus, [])}, corpus
    counted = Counter((j["code"], j["verdict"]) for c, js in per_corpus.items() for j in js)
    for code, fig in rule_figures.figures()["rules"].items():
        assert fig["blind"]["findings"] == sum(n for (c, _), n in counted.items() if c == code), code


def test_a_dynamic_off_default_verdict_is_of_a_rule_off_by_default_and_judged_once():
    """The dynamic findings of rules off by default (``--select ALL`` on a blind judgement's
    programs) count toward each rule's blind figure: each is of a rule off by default, none is a
    finding the default verdicts already judge, and what is left out of the count says why."""
    per_corpus = rule_figures.blind_verdicts()
    assert per_corpus.get("dynamic_offdefault")
    key = lambda j: (j["program"], j["path"], j["line"], j["code"])  # noqa: E731
    assert not {key(j) for j in per_corpus["dynamic_offdefault"]} & {key(j) for j in per_corpus["dynamic"]}
    data = json.loads((ROOT / "benchmarks" / "dynamic_judgements_offdefault.json").read_text())
    # off by default when judged: a rule that came on since is named in ``moved_on``, with why
    off = {r.code for r in all_rules() if not r.default_enabled}
    assert {j["code"] for j in per_corpus["dynamic_offdefault"]} <= off | set(data.get("moved_on", {}))
    assert set(data.get("moved_on", {})) <= set(data["rules"]) - off and all(data.get("moved_on", {}).values())
    assert all(j["not_counted"] for j in data.get("left_out", []))
    counted = {key(j) for j in data["judgements"]}
    assert not counted & {key(j) for j in data.get("left_out", [])}
