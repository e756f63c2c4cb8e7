"""Validate SARIF documents against the official OASIS SARIF 2.1.0 schema
(a copy in tests/data, so the suite does not depend on anything outside the repo),
plus the cross-references the schema cannot express."""
from __future__ import annotations

import functools
import json
from pathlib import Path
from urllib.parse import urlsplit

SCHEMA_PATH = Path(__file__).parent / "data" / "sarif-schema-2.1.0.json"


@functools.lru_cache(maxsize=1)
def _validator():
    import jsonschema

    checker = jsonschema.FormatChecker(formats=())

    # jsonschema checks "uri" only when an optional package is installed; check it here
    @checker.checks("uri")
    def _uri(value) -> bool:
        return not isinstance(value, str) or (bool(urlsplit(value).scheme) and not any(c.isspace() for c in value))

    @checker.checks("uri-reference")
    def _uri_reference(value) -> bool:
        return not isinstance(value, str) or not any(c.isspace() for c in value)

    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema, format_checker=checker)


def validate_sarif(doc: dict) -> None:
    """Raise AssertionError naming every schema violation and broken reference."""
    errors = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in _validator().iter_errors(doc)]
    for r, run in enumerate(doc.get("runs", [])):
        rules = run["tool"]["driver"].get("rules", [])
        ids = [rule["id"] for rule in rules]
        if len(ids) != len(set(ids)):
            errors.append(f"runs/{r}: duplicate rule ids {ids}")
        bases = run.get("originalUriBaseIds", {})
        for i, res in enumerate(run.get("results", [])):
            where = f"runs/{r}/results/{i}"
            idx = res.get("ruleIndex")
            if idx is not None and (idx >= len(rules) or rules[idx]["id"] != res.get("ruleId")):
                errors.append(f"{where}: ruleIndex {idx} does not point at rule {res.get('ruleId')}")
            for loc in res.get("locations", []) + res.get("relatedLocations", []):
                art = loc["physicalLocation"]["artifactLocation"]
                if "uriBaseId" in art and art["uriBaseId"] not in bases:
                    errors.append(f"{where}: uriBaseId {art['uriBaseId']} missing from originalUriBaseIds")
    assert not errors, "invalid SARIF:\n" + "\n".join(errors[:20])
