"""Each rule's blind figure, from the verdicts committed beside this script, and the
lint groups that figure allows (docs/precision.md, "Lint groups, set by measurement").

A figure counts only verdicts given **blind**: on a corpus judged before any rule was
changed for it (``BLIND``). A verdict added to such a file later (after a rule was
changed for the corpus: tuning) says so in its ``judged`` field (``"not blind: ..."``)
and is left out. A new blind corpus is one more entry of ``BLIND``; its file is read
when it exists (``dev36`` is judged now: it counts from the commit that adds it).

    python benchmarks/rule_figures.py            # write benchmarks/rule_figures.json
    python benchmarks/rule_figures.py --check    # exit 1 when the committed file is out of date

A rule that declares finding kinds (``Rule.kinds``: JAX106's print of a value, JAX102's
long count) has a figure per kind too: each verdict's kind is the one its finding has now
(``verdict_kinds.json``), else the one it kept when judged (``kind``), else the rule's own
answer for the verdict's signature (``Rule.kind_of``), and a kind's group is held to its
own figure by the same bar.

tests/test_groups.py checks that the committed file is what this computes, and that every
rule's group, and every kind's, is one its figure allows (:func:`allowed_groups`).
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "rule_figures.json"
sys.path.insert(0, str(HERE.parent))  # this checkout's jaxlint and rules (for the rules' finding kinds)

#: corpus -> (verdicts file, when and how it was judged blind)
BLIND = {
    "holdout": ("precision_judgements_holdout.json", "21 libraries, judged blind at d252177 (issue 10)"),
    "dev": ("precision_judgements_dev.json", "8 libraries, judged blind at 58dcb14 (issue 19)"),
    "unopened": ("precision_judgements_unopened.json", "9 libraries, judged blind at 9ad2090 (issue 19)"),
    "fresh": ("precision_judgements_fresh.json", "jax-cosmo, judged blind at d51c9d7 (issue 19)"),
    "programs": ("static_programs_judgements.json",
                 "12 public example programs, judged blind at ebbfc9e (default and --preview findings)"),
    "dev36": ("precision_judgements_dev36.json", "10 libraries, judged blind before issue 36 changed a rule"),
    "unopened36": ("precision_judgements_unopened36.json",
                   "10 libraries sealed at the split, judged blind once at ea2da2c, after issue 36's changes"),
    "blind40": ("precision_judgements_blind40.json",
                "36 libraries sealed before anything ran on them, judged blind once at ab7bc28 (issue 36)"),
    "blind42": ("precision_judgements_blind42.json",
                "55 libraries sealed before anything ran on them, judged blind once at 959d64a (issue 36)"),
    "blind44": ("precision_judgements_blind44.json",
                "49 libraries sealed before anything ran on them, judged blind once at d7efb9e (issue 36)"),
    "blind46": ("precision_judgements_blind46.json",
                "53 libraries sealed before anything ran on them, judged blind once at 969e404 (issue 36)"),
    "blind48": ("precision_judgements_blind48.json",
                "49 libraries sealed before anything ran on them, judged blind once at c45fb52 (issue 36)"),
    "blind50": ("precision_judgements_blind50.json",
                "60 libraries sealed before anything ran on them, judged blind once at cbafee0 (issue 36)"),
    "blind51": ("precision_judgements_blind51.json",
                "28 GitHub repositories sealed before anything ran on them, judged blind once at 6333270 (issue 36)"),
    "blind52": ("precision_judgements_blind52.json",
                "25 GitHub repositories sealed before anything ran on them, judged blind once at 87f2855 (issue 36)"),
    "blind53": ("precision_judgements_blind53.json",
                "51 GitHub repositories sealed before anything ran on them, judged blind once at 03b2261 (issue 36)"),
    "blind54": ("precision_judgements_blind54.json",
                "16 GitHub repositories sealed before anything ran on them, judged blind once at 1c75a63 (issue 36)"),
    "blind54b": ("precision_judgements_blind54b.json",
                 "5 GitHub repositories sealed before anything ran on them (blind54's second part), judged blind once at 1c75a63 (issue 36)"),
    "blind55": ("precision_judgements_blind55.json",
                "9 GitHub repositories sealed before anything ran on them, judged blind once at 6b88e19 (issue 36; no finding)"),
    "blind55b": ("precision_judgements_blind55b.json",
                 "35 PyPI wheels sealed before anything ran on them (blind55's second part), judged blind once at 6b88e19 (issue 36)"),
    "blind56": ("precision_judgements_blind56.json",
                "55 PyPI wheels sealed before anything ran on them, judged blind once at 8e3fcd0 (issue 36's final corpus)"),
    "blind56b": ("precision_judgements_blind56b.json",
                 "81 PyPI wheels sealed before anything ran on them (blind56's second part), judged blind once at 1905ad9 (issue 36's final corpus)"),
    "blind57": ("precision_judgements_blind57.json",
                "117 PyPI wheels sealed before anything ran on them, judged blind once at ecb658c (issue 36's final corpus)"),
    "blind57b": ("precision_judgements_blind57b.json",
                 "39 PyPI wheels sealed before anything ran on them (blind57's second part), judged blind once with ecb658c's code (issue 36's final corpus)"),
    "blind58": ("precision_judgements_blind58.json",
                "12 PyPI wheels sealed before anything ran on them (the rest of blind57b's pool), judged blind once at 82e4226 (issue 36's new figure)"),
    "blind59": ("precision_judgements_blind59.json",
                "12 GitHub repositories sealed before anything ran on them (the rest of blind55's GitHub pool), judged blind once at 2598bb1 (issue 36's new figure)"),
    "blind59b": ("precision_judgements_blind59b.json",
                 "4 PyPI wheels sealed before anything ran on them (the rest of blind58's PyPI pool), judged blind once at 2598bb1 (issue 36's new figure; no finding)"),
    "dynamic": ("dynamic_judgements.json",
                "115 public programs run under jaxlint record, their dynamic findings judged blind at 1a2da8d "
                "(6 programs, issue 20), 4419f18 (7 programs, issue 37), ab7bc28 (6 programs, issue 37), "
                "959d64a (6 programs, issue 37), d7efb9e (7 programs, issue 37), 969e404 (9 programs, "
                "issue 37), c45fb52 (7 programs, issue 37), cbafee0 (7 programs, issue 37), ccb11c5 "
                "(8 programs, issue 37), 87f2855 (8 programs, issue 37), 03b2261 (8 programs, issue 37), "
                "1c75a63 (8 programs, issue 37), 587501b (6 programs, issue 37), 4edca6e (9 programs, "
                "issue 37), c688dd9 (7 programs, issue 37) and c9000de (6 programs, issue 37)"),
}
#: the sealed corpora judged blind for the default selection, judged blind again for the rules that are
#: off by default (their certain and likely findings under ``--preview --select CODE``; each finding
#: judged once: a key judged in the corpus's default file is not judged again); docs/precision.md,
#: "Off-by-default rules judged blind (judge58n)"
OFF_DEFAULT = ("blind55", "blind55b", "blind56", "blind56b", "blind57", "blind57b")
BLIND.update({
    "blind55_jax115": ("precision_judgements_blind55_jax115.json",
                       "JAX115 alone on blind55 + blind55b (--preview --select JAX115), judged blind by judge55t at 64628e6"),
    **{f"{c}_offdefault": (f"precision_judgements_{c}_offdefault.json",
                           f"{c}'s findings of the rules off by default (certain and likely, --preview --select CODE), "
                           "judged blind by judge58n at c688dd9")
       for c in OFF_DEFAULT},
    # the dynamic findings of rules off by default that ``--select ALL`` gave on a blind judgement's
    # programs (benchmarks/dynamic_programs.md, "Off-by-default findings judged blind (dynjudge59n)");
    # a verdict given blind but not counted is kept apart in the file's ``left_out``, with why
    "dynamic_offdefault": ("dynamic_judgements_offdefault.json",
                           "the nineteenth blind judgement's findings of rules off by default (--select ALL: JAX213 "
                           "in 4 programs), judged blind by dynjudge59n at c9000de"),
})
VERDICTS = ("true", "debatable", "false")

#: below this share of true findings a rule is in no group that is on by default ...
THRESHOLD = 0.5
#: ... once it has at least this many blind findings (fewer say too little: its group then
#: follows what it claims, a raise or a wrong result in correctness, else suspicious or perf)
MIN_FINDINGS = 10
#: correctness rules kept on below the threshold, and the real-jax evidence that what they
#: report raises: their false findings are the model's to fix (issue 36's model part),
#: while their true ones are failures a user meets at once. Adding a rule here is a decision
#: to review, not a default.
ON_BY_PROOF = {
    "JAX105": "tests/test_recall_blind.py::test_case_fails_under_jax (TracerBoolConversionError, "
              "ConcretizationTypeError on the recall cases)",
    # blind48 took JAX111 past 10 blind verdicts at 43 % true (6 true, 8 false; 7 of the 8
    # false are classes fixed since, tuning): kept on as JAX105 is, by the lead's decision
    "JAX111": "tests/test_recall_blind.py::test_case_fails_under_jax (NonConcreteBooleanIndexError, "
              "the TypeError of a traced slice or shape size, ConcretizationTypeError on the recall cases)",
}


def blind_verdicts(root: Path = HERE) -> dict[str, list[dict]]:
    """corpus -> its blind verdicts (files not there yet are left out)."""
    out: dict[str, list[dict]] = {}
    for corpus, (name, _) in BLIND.items():
        path = root / name
        if not path.exists():
            continue
        out[corpus] = [j for j in json.loads(path.read_text())["judgements"]
                       if not str(j.get("judged", "")).startswith("not blind")]
    return out


def _counts(js: list[dict]) -> dict:
    c = Counter(j["verdict"] for j in js)
    n = sum(c[v] for v in VERDICTS)
    return {"findings": n, **{v: c[v] for v in VERDICTS}, "precision": round(c["true"] / n, 3) if n else None}


def rules_with_kinds() -> dict:
    """code -> the static rule class that declares finding kinds (``Rule.kinds``)."""
    from jaxlint import registry
    from jaxlint.inspect.levels import hand_rules

    hand_rules()
    return {r.code: r for r in registry.static_rules() if r.kinds}


def recorded_kinds(root: Path = HERE) -> dict[tuple[str, str, str, str], str]:
    """(corpus, path, code, signature) -> the kind its finding had when
    ``verdict_kinds.py`` recorded it (every blind verdict whose finding was still reported)."""
    path = root / "verdict_kinds.json"
    if not path.exists():
        return {}
    return {(r["corpus"], r["path"], r["code"], r["signature"]): r["kind"]
            for r in json.loads(path.read_text())["kinds"]}


def verdict_kind(rule, verdict: dict, recorded: str | None = None) -> str | None:
    """A verdict's finding kind: the one its finding has now, as ``verdict_kinds.py``
    recorded it (``recorded``: a kind made after the verdict counts its old verdicts), else
    the one its finding had when judged (``data["kind"]``, copied into the verdict as
    ``kind`` by ``bench_precision.py --unjudged``), else the rule's answer for its signature
    (``Rule.kind_of``)."""
    return recorded or verdict.get("kind") or rule.kind_of(verdict["signature"])


def figures(root: Path = HERE) -> dict:
    per_corpus = blind_verdicts(root)
    with_kinds = rules_with_kinds()
    recorded = recorded_kinds(root)
    rules: dict[str, dict] = {}
    codes = sorted({j["code"] for js in per_corpus.values() for j in js})
    for code in codes:
        mine = {corpus: [{**j, "corpus": corpus} for j in js if j["code"] == code] for corpus, js in per_corpus.items()}
        every = [j for js in mine.values() for j in js]
        kinds = sorted({j["confidence"] for j in every if j.get("confidence")})
        rules[code] = {
            "blind": _counts(every),
            "corpora": {corpus: _counts(js) for corpus, js in mine.items() if js},
            # where a judgement recorded the finding's confidence (a finding kind)
            "confidence": {k: _counts([j for j in every if j.get("confidence") == k]) for k in kinds},
        }
        rule = with_kinds.get(code)
        if rule is not None:
            # each declared kind's verdicts: the kind the finding had when judged (``kind``, from the
            # rule's model), else the rule's answer for the verdict's signature
            kinds = [verdict_kind(rule, j, recorded.get((j["corpus"], j["path"], j["code"], j["signature"])))
                     for j in every]
            rules[code]["kinds"] = {k: _counts([j for j, jk in zip(every, kinds) if jk == k]) for k in rule.kinds}
        if code in ON_BY_PROOF and rules[code]["blind"]["findings"] >= MIN_FINDINGS \
                and rules[code]["blind"]["precision"] < THRESHOLD:
            rules[code]["on_by_proof"] = ON_BY_PROOF[code]
    return {
        "about": "Each rule's blind figure (true / debatable / false) over the corpora judged blind, computed by "
                 "benchmarks/rule_figures.py from the verdicts beside it; a rule with no entry has no blind finding. "
                 "docs/precision.md says how the figure sets the rule's lint group.",
        "threshold": THRESHOLD,
        "min_findings": MIN_FINDINGS,
        "corpora": {corpus: BLIND[corpus][1] for corpus in per_corpus},
        "rules": rules,
    }


def allowed_groups(code: str, figure: dict | None) -> tuple[set[str], str]:
    """The groups ``code``'s blind figure allows, and why: any group when it has fewer than
    ``MIN_FINDINGS`` blind findings or at least ``THRESHOLD`` true; otherwise no group on by
    default: ``pedantic`` when its findings are mostly right claims of no use (no more
    false than debatable), ``nursery`` when the model is wrong too often; and
    ``correctness`` too for a rule in ``ON_BY_PROOF``."""
    every = {"correctness", "suspicious", "perf", "pedantic", "nursery"}
    if figure is None or figure["findings"] < MIN_FINDINGS:
        n = 0 if figure is None else figure["findings"]
        return every, f"{n} blind findings: too few to set the group by"
    if figure["precision"] >= THRESHOLD:
        return every, f"{figure['precision']:.0%} true of {figure['findings']} blind findings"
    off = {"pedantic"} if figure["false"] <= figure["debatable"] else {"nursery"}
    why = (f"{figure['precision']:.0%} true of {figure['findings']} blind findings "
           f"({figure['debatable']} debatable, {figure['false']} false)")
    if code in ON_BY_PROOF:  # a rule's code, or ``code:kind`` for one of its finding kinds
        return off | {"correctness"}, why + f"; on by proof: {ON_BY_PROOF[code]}"
    return off, why


def dumps(data: dict) -> str:
    return json.dumps(data, indent=1, sort_keys=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--check", action="store_true", help="exit 1 when the committed file is out of date")
    args = p.parse_args(argv)
    text = dumps(figures())
    if args.check:
        if not OUT.exists() or OUT.read_text() != text:
            print(f"{OUT} is out of date: run python benchmarks/rule_figures.py", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text)
    for code, f in figures()["rules"].items():
        for name, b in [(code, f["blind"]), *((f"{code}:{k}", kb) for k, kb in f.get("kinds", {}).items())]:
            share = f"{b['precision']:.0%}" if b["precision"] is not None else "-"
            print(f"{name}: {b['findings']} blind findings, {b['true']} true, {b['debatable']} debatable, "
                  f"{b['false']} false ({share})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
