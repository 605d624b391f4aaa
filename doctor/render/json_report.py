"""`--format json`: a versioned, documented schema. Changing a field's meaning needs a new version."""

from __future__ import annotations

import json
from typing import Any

from ..facts.model import Facts
from ..model import Finding, not_run_for_missing_facts, summarize

ENV_SCHEMA = "torchdoctor.env/v1"


def env_document(facts: Facts, findings: list[Finding]) -> dict[str, Any]:
    return {
        "schema": ENV_SCHEMA,
        "torchdoctor_version": facts.meta.torchdoctor_version,
        "facts": facts.to_json(),
        "findings": [f.to_json() for f in findings],
        # not_run_missing_facts: skips for want of a fact (a pasted report never has them all);
        # with any of them the verdict is partial, never "no problems".
        "summary": {**summarize(findings), "not_run_missing_facts": not_run_for_missing_facts(findings)},
    }


def render_env(facts: Facts, findings: list[Finding]) -> str:
    return json.dumps(env_document(facts, findings), indent=2, sort_keys=False) + "\n"
