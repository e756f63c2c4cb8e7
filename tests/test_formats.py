"""The CI output formats (json-lines, sarif, github, junit, gitlab) through the real CLI,
plus escaping checks on diagnostics built directly and rendered by the real formatters."""
from __future__ import annotations

import json
import re
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path
from urllib.parse import unquote

import pytest

from helpers import run_cli
from sarif_validation import validate_sarif
from jaxlint.diagnostic import Applicability, Diagnostic, Edit, Fix, Position, Related, Severity
from jaxlint.output import OutputContext, load_formats
from jaxlint.registry import rules_by_code
from jaxlint.findings.result import RunResult

MODEL = """\
import jax
import numpy as np

W = np.zeros((2048, 2048))


@jax.jit
def predict(x):
    return x @ W


@jax.jit
def unrolled(x):
    for _ in range(500):
        x = x + 1
    return x
"""

LOOP = """\
import jax


@jax.jit
def f(x):
    for _ in range(300):
        x = x * 2
    return x
"""

CLEAN = """\
import jax


@jax.jit
def f(x, w):
    return x @ w
"""

WEIRD = "we%ird,na:me.py"


def _write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        p = root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("formats")
    return _write(root, {"pyproject.toml": "[tool.jaxlint]\n", "pkg/model.py": MODEL, WEIRD: LOOP,
                         "clean.py": CLEAN})


def check(cwd: Path, fmt: str, *paths: str) -> subprocess.CompletedProcess:
    return run_cli("check", *(paths or (".",)), "--no-cache", "--output-format", fmt, cwd=cwd)


@pytest.fixture(scope="module")
def reference(project) -> list[dict]:
    """The json report, the reference every other format must agree with."""
    proc = check(project, "json")
    assert proc.returncode == 1, proc.stderr
    objs = json.loads(proc.stdout)
    assert {o["code"] for o in objs} == {"JAX101", "JAX102"} and len(objs) == 3
    return objs


def render(fmt: str, diags: list[Diagnostic], root: Path, errors: list[str] = ()) -> str:
    result = RunResult(diagnostics=sorted(diags, key=lambda d: d.sort_key), errors=list(errors),
                       rules={d.code: rules_by_code()[d.code] for d in diags})
    return load_formats()[fmt](result, OutputContext(cwd=root, root=root))


def diag(path="a.py", line=3, message="msg", severity=Severity.WARNING, **kw) -> Diagnostic:
    return Diagnostic(code=kw.pop("code", "JAX102"), name=kw.pop("name", "python-loop-in-jit"), message=message,
                      path=path, start=Position(line, 5), end=Position(line, 9), severity=severity, **kw)


# ---------------------------------------------------------------- json-lines

def test_json_lines_has_one_object_per_line_equal_to_the_json_report(project, reference):
    proc = check(project, "json-lines")
    assert proc.returncode == 1
    lines = proc.stdout.splitlines()
    assert [json.loads(line) for line in lines] == reference


def test_json_lines_is_empty_for_a_clean_file(project):
    proc = check(project, "json-lines", "clean.py")
    assert (proc.returncode, proc.stdout) == (0, "")


# ---------------------------------------------------------------- SARIF

@pytest.fixture(scope="module")
def sarif(project) -> dict:
    proc = check(project, "sarif")
    assert proc.returncode == 1, proc.stderr
    return json.loads(proc.stdout)


def test_sarif_with_findings_and_related_locations_validates_against_the_schema(sarif):
    validate_sarif(sarif)
    assert any("relatedLocations" in r for r in sarif["runs"][0]["results"])


def test_sarif_for_a_clean_file_validates_and_has_no_results(project):
    proc = check(project, "sarif", "clean.py")
    assert proc.returncode == 0
    doc = json.loads(proc.stdout)
    validate_sarif(doc)
    assert doc["runs"][0]["results"] == []
    assert doc["runs"][0]["invocations"][0]["executionSuccessful"] is True


def test_sarif_rules_carry_the_rule_docs_and_urls(sarif):
    driver = sarif["runs"][0]["tool"]["driver"]
    assert driver["name"] == "jaxlint" and driver["version"] and driver["informationUri"].startswith("https://")
    by_code = rules_by_code()
    for desc in driver["rules"]:
        rule = by_code[desc["id"]]
        assert desc["name"] == rule.name
        assert desc["shortDescription"]["text"] == rule.summary
        assert desc["fullDescription"]["text"]
        assert desc["help"]["markdown"] == rule.markdown()
        assert "## " not in desc["help"]["text"]
        assert desc["helpUri"] == rule.url()
        assert desc["defaultConfiguration"]["level"] == rule.severity.sarif_level


def test_sarif_results_match_the_json_report(sarif, reference, project):
    run = sarif["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == project.as_uri() + "/"
    assert run["columnKind"] == "unicodeCodePoints"
    got = []
    for res in run["results"]:
        assert rules[res["ruleIndex"]]["id"] == res["ruleId"]
        loc = res["locations"][0]["physicalLocation"]
        assert loc["artifactLocation"]["uriBaseId"] == "%SRCROOT%"
        region = loc["region"]
        got.append((res["ruleId"], unquote(loc["artifactLocation"]["uri"]), region["startLine"],
                    region["startColumn"], region["endLine"], region["endColumn"], res["message"]["text"],
                    res["level"], res["properties"]["phase"], res["properties"]["data"]))
    want = [(o["code"], o["filename"], o["location"]["row"], o["location"]["column"], o["end_location"]["row"],
             o["end_location"]["column"], o["message"], "warning", o["phase"], o["data"]) for o in reference]
    assert sorted(got, key=repr) == sorted(want, key=repr)


def test_sarif_uri_of_a_path_with_special_characters_is_percent_encoded(sarif):
    uris = [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in sarif["runs"][0]["results"]]
    assert "we%25ird%2Cna%3Ame.py" in uris
    assert WEIRD in {unquote(u) for u in uris}


def test_sarif_related_location_points_at_the_array_definition(sarif):
    (res,) = [r for r in sarif["runs"][0]["results"] if r["ruleId"] == "JAX101"]
    (rel,) = res["relatedLocations"]
    assert rel["physicalLocation"]["artifactLocation"]["uri"] == "pkg/model.py"
    assert rel["physicalLocation"]["region"]["startLine"] == 4
    assert "`W`" in rel["message"]["text"]


def _fingerprints(doc: dict) -> dict[str, tuple[str, int]]:
    return {r["partialFingerprints"]["jaxlint/v1"]: (r["ruleId"], r["locations"][0]["physicalLocation"]["region"]
                                                     ["startLine"]) for r in doc["runs"][0]["results"]}


def test_sarif_fingerprints_survive_moving_the_code_down(tmp_path):
    _write(tmp_path, {"m.py": MODEL})
    before = _fingerprints(json.loads(check(tmp_path, "sarif").stdout))
    _write(tmp_path, {"m.py": "# a\n# new\n# header\n" + MODEL})
    after = _fingerprints(json.loads(check(tmp_path, "sarif").stdout))
    assert before.keys() == after.keys() and len(before) == 2
    for fp, (code, line) in before.items():
        assert after[fp] == (code, line + 3)


def test_sarif_fingerprints_differ_for_identical_findings_in_one_function(tmp_path):
    loop = "    for _ in range(500):\n        x = x + 1\n"
    twice = MODEL.replace(loop, loop + loop)
    _write(tmp_path, {"m.py": twice})
    doc = json.loads(check(tmp_path, "sarif", ".", "--every-place").stdout)
    results = [r for r in doc["runs"][0]["results"] if r["ruleId"] == "JAX102"]
    assert len(results) == 2
    assert len({r["partialFingerprints"]["jaxlint/v1"] for r in results}) == 2


def test_sarif_uris_are_relative_to_the_project_root_when_run_from_a_subdirectory(project, sarif):
    proc = check(project / "pkg", "sarif")
    doc = json.loads(proc.stdout)
    validate_sarif(doc)
    (uri,) = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in doc["runs"][0]["results"]}
    assert uri == "pkg/model.py"
    assert set(_fingerprints(doc)) <= set(_fingerprints(sarif))


def test_sarif_uris_are_relative_to_the_git_work_tree_above_a_subproject_config(tmp_path):
    _write(tmp_path, {"sub/pyproject.toml": "[tool.jaxlint]\n", "sub/m.py": LOOP})
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    doc = json.loads(check(tmp_path / "sub", "sarif").stdout)
    validate_sarif(doc)
    run = doc["runs"][0]
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == tmp_path.as_uri() + "/"
    assert run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "sub/m.py"


def test_sarif_carries_fixes_as_replacements_and_validates(tmp_path):
    fix = Fix("use jax.lax.fori_loop", (Edit(Position(3, 5), Position(4, 9), "x = lax.fori_loop(0, 9, body, x)"),
                                        Edit(Position(1, 1), Position(1, 1), "from jax import lax\n")),
              Applicability.UNSAFE)
    related = (Related("b.py", Position(7, 1), Position(7, 4), "defined here"),)
    out = json.loads(render("sarif", [diag(fix=fix, related=related, signature="f:loop")], tmp_path))
    validate_sarif(out)
    (res,) = out["runs"][0]["results"]
    (change,) = res["fixes"][0]["artifactChanges"]
    assert res["fixes"][0]["description"]["text"] == "use jax.lax.fori_loop"
    assert res["fixes"][0]["properties"]["applicability"] == "unsafe"
    assert change["artifactLocation"] == {"uri": "a.py", "uriBaseId": "%SRCROOT%"}
    assert change["replacements"][0] == {
        "deletedRegion": {"startLine": 3, "startColumn": 5, "endLine": 4, "endColumn": 9},
        "insertedContent": {"text": "x = lax.fori_loop(0, 9, body, x)"},
    }
    assert change["replacements"][1]["deletedRegion"] == {"startLine": 1, "startColumn": 1, "endLine": 1,
                                                          "endColumn": 1}
    assert res["relatedLocations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "b.py"


def test_sarif_from_the_cli_carries_a_rule_fix_and_validates(tmp_path):
    _write(tmp_path, {"u.py": "import jax\n\n\n@jax.jit\ndef f(x):\n    return x + 1  # noqa: JAX102\n"})
    proc = run_cli("check", "u.py", "--no-cache", "--extend-select", "JAX190", "--output-format", "sarif", cwd=tmp_path)
    doc = json.loads(proc.stdout)
    validate_sarif(doc)
    (res,) = doc["runs"][0]["results"]
    (replacement,) = res["fixes"][0]["artifactChanges"][0]["replacements"]
    assert replacement["insertedContent"] == {"text": ""}
    assert replacement["deletedRegion"]["startLine"] == 6 == replacement["deletedRegion"]["endLine"]
    assert res["fixes"][0]["properties"]["applicability"] == "safe"


def test_sarif_levels_follow_severity_and_internal_errors_mark_the_run_failed(tmp_path):
    diags = [diag(line=i + 1, severity=s, message=s.value) for i, s in enumerate(Severity)]
    out = json.loads(render("sarif", diags, tmp_path, errors=["x.py: rule JAX102 failed: boom"]))
    validate_sarif(out)
    run = out["runs"][0]
    levels = {r["message"]["text"]: r["level"] for r in run["results"]}
    assert levels == {"info": "note", "warning": "warning", "error": "error"}
    assert run["invocations"][0]["executionSuccessful"] is False
    assert "boom" in run["invocations"][0]["toolExecutionNotifications"][0]["message"]["text"]


# ---------------------------------------------------------------- GitHub annotations

ANNOTATION = re.compile(r"^::(error|warning|notice) ([^:]*)::(.*)$")


def _unescape(s: str) -> str:
    return s.replace("%0D", "\r").replace("%0A", "\n").replace("%3A", ":").replace("%2C", ",").replace("%25", "%")


def parse_annotations(text: str) -> tuple[list[dict], list[str]]:
    """Split github output into parsed annotations and plain lines, decoding as GitHub does."""
    annotations, plain = [], []
    for line in text.splitlines():
        m = ANNOTATION.match(line)
        if not m:
            plain.append(line)
            continue
        props = dict(p.split("=", 1) for p in m.group(2).split(","))
        annotations.append({"level": m.group(1), **{k: _unescape(v) for k, v in props.items()},
                            "message": _unescape(m.group(3))})
    return annotations, plain


def test_github_annotations_match_the_json_report(project, reference):
    proc = check(project, "github")
    assert proc.returncode == 1
    annotations, plain = parse_annotations(proc.stdout)
    assert plain == []
    got = sorted((a["file"], int(a["line"]), int(a["col"]), int(a["endLine"]), int(a["endColumn"]),
                  a["message"].splitlines()[0]) for a in annotations)
    want = sorted((o["filename"], o["location"]["row"], o["location"]["column"], o["end_location"]["row"],
                   o["end_location"]["column"], f"{o['code']} {o['message']}") for o in reference)
    assert got == want
    assert all(a["level"] == "warning" and a["title"].startswith("jaxlint JAX1") for a in annotations)


def test_github_escapes_a_file_name_with_percent_comma_and_colon(project):
    proc = check(project, "github", WEIRD)
    (line,) = proc.stdout.splitlines()
    assert line.startswith("::warning file=we%25ird%2Cna%3Ame.py,line=6,col=5,")


def test_github_escapes_data_and_properties_exactly(tmp_path):
    d = diag(path="dir,1/50%:x.py", message="100% done, next: x\r\nsecond line")
    out = render("github", [d], tmp_path)
    assert out == ("::warning file=dir%2C1/50%25%3Ax.py,line=3,col=5,endLine=3,endColumn=9,"
                   "title=jaxlint JAX102 (python-loop-in-jit)::JAX102 100% done, next: x%0D%0Asecond line\n"
                   .replace("100% done", "100%25 done"))
    (a,), _ = parse_annotations(out)
    assert a["file"] == "dir,1/50%:x.py" and a["message"] == "JAX102 100% done, next: x\r\nsecond line"


def test_github_levels_follow_severity(tmp_path):
    diags = [diag(line=i + 1, severity=s, message=s.value) for i, s in enumerate(Severity)]
    annotations, _ = parse_annotations(render("github", diags, tmp_path))
    assert {a["message"]: a["level"] for a in annotations} == {
        "JAX102 info": "notice", "JAX102 warning": "warning", "JAX102 error": "error"}


def test_github_related_locations_are_extra_message_lines(project):
    annotations, _ = parse_annotations(check(project, "github", "pkg/model.py").stdout)
    (a,) = [a for a in annotations if "JAX101" in a["title"]]
    assert a["message"].splitlines()[1] == "pkg/model.py:4:5: `W` is defined here"


def test_github_prints_a_plain_summary_when_a_level_exceeds_ten_annotations(tmp_path):
    loops = "".join(f"    for _ in range(200):\n        x = x + {i}\n" for i in range(12))
    _write(tmp_path, {"many.py": f"import jax\n\n\n@jax.jit\ndef f(x):\n{loops}    return x\n"})
    proc = check(tmp_path, "github", ".", "--every-place")
    annotations, plain = parse_annotations(proc.stdout)
    assert len(annotations) == 12
    (summary,) = plain
    assert "12 findings in total" in summary and "sarif" in summary and not summary.startswith("::")


def test_github_prints_no_summary_at_ten_annotations_per_level(tmp_path):
    diags = [diag(line=i + 1, severity=s) for i in range(10) for s in (Severity.WARNING, Severity.ERROR)]
    annotations, plain = parse_annotations(render("github", diags, tmp_path))
    assert len(annotations) == 20 and plain == []


def test_github_output_is_empty_for_a_clean_file(project):
    proc = check(project, "github", "clean.py")
    assert (proc.returncode, proc.stdout) == (0, "")


# ---------------------------------------------------------------- JUnit

def test_junit_has_a_suite_per_file_and_a_failing_case_per_finding(project, reference):
    proc = check(project, "junit")
    assert proc.returncode == 1
    root = ET.fromstring(proc.stdout.encode())
    assert root.tag == "testsuites" and root.get("failures") == str(len(reference))
    suites = {s.get("name"): s for s in root.iter("testsuite")}
    assert set(suites) == {o["filename"] for o in reference}
    for o in reference:
        suite = suites[o["filename"]]
        (case,) = [c for c in suite.iter("testcase") if c.get("line") == str(o["location"]["row"])]
        failure = case.find("failure")
        assert failure.get("type") == o["code"] and failure.get("message") == o["message"]
        assert case.get("name").startswith(o["code"])


def test_junit_for_a_clean_file_is_a_passing_report(project):
    proc = check(project, "junit", "clean.py")
    assert proc.returncode == 0
    root = ET.fromstring(proc.stdout.encode())
    assert root.get("failures") == "0"
    assert [c.find("failure") for c in root.iter("testcase")] == [None]


def test_junit_escapes_markup_newlines_and_control_characters(tmp_path):
    message = 'a <b> & "c" \'d\'\nline two \x1b[0m\x00'
    out = render("junit", [diag(path="x&<y>.py", message=message)], tmp_path, errors=["x.py: <boom>"])
    root = ET.fromstring(out.encode())
    failure = next(root.iter("failure"))
    assert failure.get("message") == message.replace("\x1b", "\\x1b").replace("\x00", "\\x00")
    assert next(root.iter("testsuite")).get("name") == "x&<y>.py"
    assert root.get("errors") == "1" and next(root.iter("error")).get("message") == "x.py: <boom>"


# ---------------------------------------------------------------- GitLab Code Quality

def test_gitlab_report_has_the_required_fields_for_every_finding(project, reference):
    proc = check(project, "gitlab")
    assert proc.returncode == 1
    issues = json.loads(proc.stdout)
    assert len(issues) == len(reference)
    for issue, o in zip(sorted(issues, key=lambda i: (i["location"]["path"], i["location"]["lines"]["begin"])),
                        sorted(reference, key=lambda o: (o["filename"], o["location"]["row"]))):
        assert issue["check_name"] == o["code"]
        assert o["message"] in issue["description"] and issue["description"].startswith(o["code"])
        assert issue["severity"] == "major"
        assert issue["location"] == {"path": o["filename"], "lines": {"begin": o["location"]["row"],
                                                                      "end": o["end_location"]["row"]}}
        assert re.fullmatch(r"[0-9a-f]{32}", issue["fingerprint"])
    assert len({i["fingerprint"] for i in issues}) == len(issues)


def test_gitlab_paths_are_relative_to_the_project_root(project):
    issues = json.loads(check(project / "pkg", "gitlab").stdout)
    assert {i["location"]["path"] for i in issues} == {"pkg/model.py"}


def test_gitlab_severity_maps_to_code_quality_levels(tmp_path):
    diags = [diag(line=i + 1, severity=s, message=s.value) for i, s in enumerate(Severity)]
    issues = json.loads(render("gitlab", diags, tmp_path))
    assert {i["description"]: i["severity"] for i in issues} == {
        "JAX102 info": "info", "JAX102 warning": "major", "JAX102 error": "critical"}


def test_gitlab_report_for_a_clean_file_is_an_empty_list(project):
    proc = check(project, "gitlab", "clean.py")
    assert (proc.returncode, json.loads(proc.stdout)) == (0, [])


def test_every_format_writes_to_the_output_file(project, tmp_path):
    for fmt in ("json-lines", "sarif", "github", "junit", "gitlab"):
        out = tmp_path / f"report.{fmt}"
        proc = run_cli("check", ".", "--no-cache", "--output-format", fmt, "-o", str(out), cwd=project)
        assert proc.returncode == 1 and proc.stdout == "", fmt
        assert "JAX101" in out.read_text(encoding="utf-8"), fmt


def test_each_format_is_registered_by_the_module_named_for_it():
    import importlib

    from jaxlint.output import FORMAT_MODULES, FORMATS, load_formats

    assert set(load_formats()) == set(FORMAT_MODULES)
    for name, module in FORMAT_MODULES.items():
        assert FORMATS[name].__module__ == importlib.import_module(f"jaxlint.output.{module}").__name__, name
