"""Saving what one ``jaxlint record`` run saw, without ever losing an earlier recording.

One entry point, :func:`save`, used by the ``record`` command whatever way its program
ended. Its promises:

* every file is written to a new file beside it and moved into place (an atomic
  rename), so a reader, or a run killed while saving, sees the old file or the new
  one; the pickles and compressed programs a file names are written before it, and
  the ones nothing names any more are removed only after, and only by a complete run;
* a run that did not complete (the program failed, was interrupted, or was stopped by a
  signal) *merges* what it saw into the recording: it adds signatures and findings and
  never removes a signature, a finding or a saved argument it did not see again;
* a complete run replaces the entries of the functions it called (``replace``: the
  whole recording);
* what the committed files hold depends on the program alone: no timings (they go to
  the run's summary only), so recording an unchanged program again changes no byte.

Never imports jax.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from jaxlint.dynamic import signatures
from jaxlint.dynamic import observed as observations


@dataclass
class Saved:
    """What :func:`save` wrote: the functions this run recorded and observed."""

    recorded: dict = field(default_factory=dict)
    observed: dict = field(default_factory=dict)
    #: the lines of the project where the program compiled a function again outside its
    #: jitted functions (:mod:`jaxlint.dynamic.eager`), by ``file:line:scope``
    eager: dict = field(default_factory=dict)
    #: signatures kept from the old recording that this (incomplete) run did not see
    kept_signatures: int = 0


def save(target: Path, record_parts: list[dict], pickles: dict[str, Path], observed_parts: list[dict], *,
         complete: bool, replace: bool = False, compile_parts: Sequence[dict] = (), root: Path | None = None) -> Saved:
    """Save one run into the signatures file ``target`` and the observations beside it.

    ``record_parts`` and ``observed_parts``: what each process of the run wrote;
    ``pickles``: sha256 -> the file the run saved those arguments in; ``complete``:
    whether the program ran to its end (exit status 0). ``replace`` is honoured only
    by a complete run (an interrupted one never drops what it did not see).
    ``compile_parts``: each process's compiles outside the jitted functions
    (:mod:`jaxlint.dynamic.record_compiles`), kept per line of the project under
    ``root`` with the program-level rules' findings (:mod:`jaxlint.dynamic.eager`)."""
    from jaxlint.dynamic import eager as eager_sites

    recorded = signatures.merge(record_parts)
    functions, programs, irs = observations.merge_parts(observed_parts)
    mains = {p.get("main") for p in compile_parts}
    try:
        sites = eager_sites.entries(eager_sites.merge_parts(compile_parts), root or target.parent.parent,
                                    next(iter(mains)) if len(mains) == 1 else None,
                                    eager_sites.merge_steps(compile_parts)) if compile_parts else {}
    except Exception as e:  # the rest of the recording is never lost for this part
        import sys

        print(f"jaxlint record: warning: the compiles outside the jitted functions are left out of the recording "
              f"({type(e).__name__}: {e})", file=sys.stderr)
        sites, mains = {}, set()
    out = Saved(recorded, functions, sites)
    replace = replace and complete
    with observations.locked(target):
        old = {} if replace else signatures.load(target)
        if complete:
            merged = {**old, **recorded}
        else:
            merged, out.kept_signatures = _union(old, recorded)
        signatures.write_pickles(target, merged, pickles, remove=False)
        signatures.dump(target, merged, {})
        obs_path = observations.path_for(target)
        if functions or replace or sites or compile_parts:
            observations.write(obs_path, functions, programs, irs, replace, merge=not complete, eager=sites,
                               eager_mains=mains)
        if complete:  # only now is it certain that nothing names them
            signatures.write_pickles(target, merged, {}, remove=True)
            observations.remove_unnamed_irs(obs_path)
    return out


def _union(old: dict[str, dict], new: dict[str, dict]) -> tuple[dict[str, dict], int]:
    """``old`` with ``new`` merged in: a signature seen again takes this run's entry
    (its call count), the others are kept; returns (merged, signatures kept)."""
    merged = dict(old)
    kept = 0
    for key, e in new.items():
        before = old.get(key)
        if before is None:
            merged[key] = e
            continue
        seen = {signatures.canonical(s) for s in e.get("signatures", [])}
        extra = [s for s in before.get("signatures", []) if signatures.canonical(s) not in seen]
        kept += len(extra)
        sigs = list(e.get("signatures", [])) + extra
        sigs.sort(key=lambda s: (bool(s.get("inlined")), -s.get("calls", 0), signatures.canonical(s)))
        merged[key] = dict(e, signatures=sigs)
    return merged, kept

