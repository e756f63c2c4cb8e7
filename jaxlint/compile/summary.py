"""The compile tier in a ``check`` run's summary: the functions it did not compile and
why, statistics a compiled function could not give (the rules reading them cannot fire),
and whether the configured backend was absent (findings that only hold on it are then
not reported)."""
from __future__ import annotations


def summary_notes(report) -> list[str]:
    """Summary lines for the functions of a dynamic report (``jaxlint.dynamic.driver.DynamicReport``)."""
    notes = []
    measured = [f for f in report.functions if f.report]
    for f in measured:
        if f.report.get("compile_skipped"):
            notes.append(f"  {f.path}:{f.line} {f.qualname}: {f.report['compile_skipped']}")
        for why in f.report.get("statistics_unavailable") or ():
            notes.append(f"  {f.path}:{f.line} {f.qualname}: {why}")
    absent = sorted({(f.report.get("requested_backend"), f.report["platform"]) for f in measured
                     if f.report.get("platform")
                     and not same_backend(f.report.get("requested_backend"), f.report["platform"])})
    for want, got in absent:
        notes.append(f"  configured backend `{want}` is not present: compiled for {got}; "
                     f"findings that only hold on {want} were not reported")
    return notes


def same_backend(requested: str | None, platform: str) -> bool:
    """Whether an executable built for ``platform`` is one for the ``requested`` backend."""
    if not requested:
        return True
    aliases = {"gpu": ("cuda", "rocm", "gpu"), "cuda": ("cuda", "gpu"), "rocm": ("rocm", "gpu")}
    return platform in aliases.get(requested, (requested,))
