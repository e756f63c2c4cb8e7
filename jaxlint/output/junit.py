"""``junit``: a JUnit XML report, one test suite per file and one failing case per finding."""
from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from jaxlint.diagnostic import Diagnostic
from jaxlint.output.context import OutputContext, register
from jaxlint.output.concise import location
from jaxlint.output.shared import related_lines
from jaxlint.findings.result import RunResult


# characters XML 1.0 cannot carry at all, even escaped
_XML_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _xml(s: str) -> str:
    return _XML_INVALID.sub(lambda m: f"\\x{ord(m.group()):02x}", s)


@register("junit")
def junit(result: RunResult, ctx: OutputContext) -> str:
    n = len(result.diagnostics)
    suites = ET.Element("testsuites", name="jaxlint", tests=str(max(n, 1)), failures=str(n),
                        errors=str(len(result.errors)))
    by_file: dict[str, list[Diagnostic]] = {}
    for d in result.diagnostics:
        by_file.setdefault(d.path, []).append(d)
    for path, diags in by_file.items():
        suite = ET.SubElement(suites, "testsuite", name=_xml(path), tests=str(len(diags)),
                              failures=str(len(diags)), errors="0", skipped="0")
        for d in diags:
            where = location(d.path, d.cell, d.start.line, d.start.column)
            case = ET.SubElement(suite, "testcase", name=_xml(f"{d.code} {d.name} at {where}"),
                                 classname=_xml(path), file=_xml(path), line=str(d.start.line))
            failure = ET.SubElement(case, "failure", message=_xml(d.message), type=d.code)
            failure.text = _xml("\n".join([f"{where}: {d.code} {d.message}", *related_lines(d)]))
    if result.errors or not n:
        # consumers reject an empty report; a passing case says the run happened
        suite = ET.SubElement(suites, "testsuite", name="jaxlint", tests=str(max(len(result.errors), 1)),
                              failures="0", errors=str(len(result.errors)), skipped="0")
        for err in result.errors:
            case = ET.SubElement(suite, "testcase", name=_xml(err), classname="jaxlint")
            ET.SubElement(case, "error", message=_xml(err), type="internal-error")
        if not result.errors:
            ET.SubElement(suite, "testcase", name="no findings", classname="jaxlint")
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"
