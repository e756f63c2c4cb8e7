"""``jaxlint check --dynamic``: the trace tier (and the hook for later tiers).

Adds ``--dynamic/--no-dynamic``, ``--signatures FILE``, ``--show-skipped`` and, unless
another extension already did, ``--compile``. After the static phase it runs
:func:`jaxlint.dynamic.driver.run_dynamic` over the files whose settings enable the
dynamic phase, applies noqa (unless ``--ignore-noqa``) / per-file-ignores to the new
findings, drops static findings that a dynamic rule supersedes, and adds the summary lines.

Analysis levels: ``["trace"]``, plus ``"compile"`` when ``--compile`` or
``[tool.jaxlint.dynamic] compile = true``. Workers run the analysers registered for
each level (see :mod:`jaxlint.dynamic.worker`) and the selected rules of that phase.
"""
from __future__ import annotations

import argparse
import os
from collections import defaultdict
from pathlib import Path


class DynamicExtension:
    def add_arguments(self, p: argparse.ArgumentParser) -> None:
        g = p.add_argument_group("dynamic phase (imports your code in worker processes)")
        g.add_argument("--dynamic", dest="dynamic", action="store_true", default=None,
                       help="trace jitted functions and run the jaxpr rules (JAX2xx)")
        g.add_argument("--no-dynamic", dest="dynamic", action="store_false",
                       help="static phase only, even if the config enables the dynamic phase")
        g.add_argument("--signatures", metavar="FILE",
                       help="recorded signatures (default: .jaxlint/signatures.json at the project root)")
        g.add_argument("--show-skipped", action="store_true",
                       help="list every function the dynamic phase skipped, with the reason")
        if "--compile" not in p._option_string_actions:  # the compile tier may own this flag
            g.add_argument("--compile", dest="compile", action="store_true", default=None,
                           help="also compile traced functions and run the HLO rules (JAX3xx); implies --dynamic")

    def overrides(self, args, o: dict) -> None:
        dyn = dict(o.get("dynamic") or {})
        if getattr(args, "dynamic", None) is not None:
            dyn["enabled"] = args.dynamic
        if getattr(args, "compile", None):
            dyn["compile"] = True
            if getattr(args, "dynamic", None) is not False:
                dyn["enabled"] = True
        if dyn:
            o["dynamic"] = dyn

    def after_static(self, args, tasks, result, outcomes) -> int | None:
        todo = [t for t in tasks if t.settings.dynamic.enabled]
        if not todo:
            return None
        if any(t.display == "-" or getattr(args, "paths", None) == ["-"] for t in todo):
            result.notes.append("Dynamic phase skipped: code read from stdin cannot be imported.")
            return None
        from jaxlint.dynamic.driver import check_signatures_option, run_dynamic
        from jaxlint.supersede import merge_tiers
        from jaxlint.noqa import Suppressions
        from jaxlint.noqa import apply_suppressions, per_file_ignored
        from jaxlint.registry import active_rules

        check_signatures_option(args.signatures)
        levels = ["trace"] + (["compile"] if any(t.settings.dynamic.compile for t in todo) else [])

        def rules_of(settings):
            # role rules' findings are made by the engine, not by a check in the worker
            return [r for r in active_rules(settings, tuple(levels)) if r.role is None]

        from jaxlint.commands.check import cache_dir

        cache_root = None if args.no_cache else cache_dir(args.cache_dir, todo[0].settings)
        if cache_root is not None and "compile" in levels:  # jax's persistent cache, in the workers
            from jaxlint.compile.tier import compile_cache_dir

            os.environ["JAXLINT_XLA_CACHE"] = str(compile_cache_dir(cache_root))
        report = run_dynamic(todo, lambda t: t.settings, rules_of, levels, cache_root, args.signatures)
        if result.notebooks:
            _name_cells(report, result.notebooks)
        args._dynamic_report = report  # for later extensions (the compile tier's --report page)
        result.errors.extend(report.errors)

        by_display = {t.display: t for t in tasks}

        def settings_of(path: str):
            task = by_display.get(path)
            return task.settings if task else todo[0].settings

        # superseded before suppressions: a noqa on the measured finding also
        # acknowledges the static guess it replaces, which must not come back
        selected_dynamic = [d for d in report.diagnostics
                            if d.code in {r.code for r in active_rules(settings_of(d.path), tuple(levels))}]
        static, selected_dynamic, replaced = merge_tiers(result.diagnostics, selected_dynamic)
        # the baseline counts these as still there (jaxlint.baseline.compare)
        result.superseded.extend(replaced)
        grouped = defaultdict(list)
        for d in selected_dynamic:
            grouped[d.path].append(d)
        kept_dynamic = []
        for path, diags in grouped.items():
            task = by_display.get(path)
            settings = settings_of(path)
            text, sup = None, Suppressions() if settings.ignore_noqa else None  # --ignore-noqa
            if sup is None:
                from jaxlint.notebook import NotebookError, is_notebook, read_module_text

                where = task.path if task else Path(path)
                try:  # a notebook's findings are on the lines of its module, with its noqa comments
                    text = read_module_text(where) if is_notebook(where) else \
                        where.read_text(encoding="utf-8", errors="replace")
                except (OSError, NotebookError):
                    pass
            ignored = per_file_ignored(path, settings, task.path if task else Path(path))
            kept, *_ = apply_suppressions(diags, text, ignored, sup)
            kept_dynamic.extend(kept)
        result.diagnostics = sorted(static + kept_dynamic, key=lambda d: d.sort_key)
        for t in todo:
            for r in active_rules(t.settings, tuple(levels)):
                result.rules[r.code] = type(r)
        if not report.errors:
            result.notes.extend(report.notes(bool(getattr(args, "show_skipped", False)), levels))
        return None


def _name_cells(report, notebooks) -> None:
    """Functions of notebooks in the summary at their cell (``path:cell N``, line in it);
    the findings themselves move into cells with the static ones, in the report."""
    from dataclasses import replace

    def where(path: str, line: int) -> tuple[str, int]:
        hit = notebooks[path].locate(line) if path in notebooks else None
        return (f"{path}:cell {hit[0]}", hit[1]) if hit else (path, line)

    report.functions[:] = [replace(f, path=where(f.path, f.line)[0], line=where(f.path, f.line)[1])
                           for f in report.functions]
    for group in (report.observed, report.stale):  # their files are relative to the project root
        for i, e in enumerate(group):
            file = str(e.get("file") or "")
            shown = next((n for n in notebooks if file and (n == file or n.endswith("/" + file))), None)
            if shown is not None and isinstance(e.get("line"), int):
                path, line = where(shown, e["line"])
                group[i] = dict(e, file=path, line=line)


EXTENSION = DynamicExtension()
