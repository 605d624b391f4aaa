"""Runs checks over facts. Each check is isolated: an exception becomes a `crash` finding that
names the check, and the others still run. A check whose needed facts are unknown is skipped
without being called, so no check ever guesses."""

from __future__ import annotations

import traceback
from typing import Any, Iterable

from .facts.model import Facts, Unknown
from .model import Finding, Result, Status
from .registry import EnvCheck, env_checks


def _unknown_need(check: EnvCheck, facts: Facts) -> tuple[str, Unknown] | None:
    for need in check.needs:
        value = facts.get(need)
        if isinstance(value, Unknown):
            return need, value
    return None


def run_check(check: EnvCheck, facts: Facts) -> Finding:
    missing = _unknown_need(check, facts)
    if missing is not None:
        need, value = missing
        return Finding(check.code, check.name, check.area, Status.SKIP, check.title,
                       f"not checked: {need} is unknown ({value.reason})", {need: str(value)})
    return run_isolated(check, facts, check.area, "check")


def run_isolated(unit: Any, subject: Any, area: str, kind: str = "rule") -> Finding:
    """Call one check or rule (anything with code, name, title, called with its subject: facts, a
    checkpoint report, a model record) and turn its Result into a Finding. The contract every
    registry shares: one broken unit never takes the report down, it becomes a `crash` finding."""
    try:
        result = unit(subject)
        if not isinstance(result, Result):
            raise TypeError(f"{kind} returned {type(result).__name__}, not a Result")
    except Exception as exc:
        return Finding(unit.code, unit.name, area, Status.CRASH, unit.title,
                       f"the {kind} itself failed ({type(exc).__name__}: {exc}); this is a torchdoctor bug, "
                       "please report it with this output",
                       {"traceback": traceback.format_exc(limit=-3)})
    return Finding(unit.code, unit.name, area, result.status, unit.title, result.message,
                   dict(result.evidence), result.fix, tuple(result.related), result.unseen)


def run_env_checks(facts: Facts, checks: Iterable[EnvCheck] | None = None) -> list[Finding]:
    return [run_check(c, facts) for c in (env_checks() if checks is None else checks)]


def exit_code(findings: Iterable[Finding], fail_on: str = "error") -> int:
    """0 clean, 1 when a finding is at or above `fail_on` ("error" or "warning")."""
    threshold = Status.ERROR.rank if fail_on == "error" else Status.WARNING.rank
    return 1 if any(f.status.rank >= threshold for f in findings) else 0
