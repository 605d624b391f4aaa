"""The contract every command shares: what a check returns and what a renderer receives.

Checks return a `Result`; the runner turns it into a `Finding` by adding the check's identity.
Renderers only ever see Findings. Nothing here touches the machine.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Mapping


class Status(str, Enum):
    OK = "ok"
    WARNING = "warning"
    ERROR = "error"
    SKIP = "skip"  # not applicable here, or the facts it needs are unknown
    CRASH = "crash"  # the check itself failed; a bug in torchdoctor, not in the machine

    @property
    def rank(self) -> int:
        return _RANK[self]


_RANK = {Status.SKIP: 0, Status.OK: 1, Status.CRASH: 2, Status.WARNING: 2, Status.ERROR: 3}


@dataclass(frozen=True)
class Action:
    """A change `--fix` may apply. Data only: the applier re-proves the premise before acting."""

    kind: str  # "remove-stale-lock"
    path: str
    reason: str
    # What the file looked like when proved stale; the applier refuses if it changed since.
    expect: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "path": self.path, "reason": self.reason, "expect": dict(self.expect)}


@dataclass(frozen=True)
class Fix:
    summary: str  # imperative: "Install a CUDA build of PyTorch"
    commands: tuple[str, ...] = ()
    actions: tuple[Action, ...] = ()  # what `--fix` can do automatically (safe fixes only)

    def steps(self) -> list[Any]:
        """The commands as typed steps: shell command, Python code or prose (see fix_steps)."""
        from .fix_steps import steps

        return steps(self.commands)

    def to_json(self) -> dict[str, Any]:
        return {
            "summary": self.summary,
            "commands": list(self.commands),
            "steps": [s.to_json() for s in self.steps()],
            "actions": [a.to_json() for a in self.actions],
        }


@dataclass(frozen=True)
class Result:
    """What a check returns: the status and the specifics of this machine."""

    status: Status
    message: str
    evidence: Mapping[str, Any] = field(default_factory=dict)
    fix: Fix | None = None
    related: tuple[str, ...] = ()  # knowledge-base ids that explain more
    # For an OK: what the check could not see with these facts ("import torchvision was not tried
    # (--quick)"). Such an OK is not proof of health; explain --env must not cite it as one.
    unseen: str = ""


def ok(message: str, *, unseen: str = "", **evidence: Any) -> Result:
    return Result(Status.OK, message, evidence, unseen=unseen)


def skip(message: str, **evidence: Any) -> Result:
    return Result(Status.SKIP, message, evidence)


def warning(message: str, *, fix: Fix | None = None, evidence: Mapping[str, Any] | None = None,
            related: tuple[str, ...] = ()) -> Result:
    return Result(Status.WARNING, message, dict(evidence or {}), fix, related)


def error(message: str, *, fix: Fix | None = None, evidence: Mapping[str, Any] | None = None,
          related: tuple[str, ...] = ()) -> Result:
    return Result(Status.ERROR, message, dict(evidence or {}), fix, related)


@dataclass(frozen=True)
class Finding:
    code: str  # "TE201"
    name: str  # "driver-too-old"
    area: str  # "NVIDIA driver & GPUs"
    status: Status
    title: str  # the check's one-line title
    message: str  # this occurrence, with specifics
    evidence: Mapping[str, Any] = field(default_factory=dict)
    fix: Fix | None = None
    related: tuple[str, ...] = ()
    unseen: str = ""  # see Result.unseen

    def to_json(self) -> dict[str, Any]:
        out = {
            "code": self.code,
            "name": self.name,
            "area": self.area,
            "status": self.status.value,
            "title": self.title,
            "message": self.message,
            "evidence": {k: _jsonable(v) for k, v in self.evidence.items()},
            "fix": self.fix.to_json() if self.fix else None,
            "related": list(self.related),
        }
        if self.unseen:
            out["unseen"] = self.unseen
        return out


def _jsonable(value: Any) -> Any:
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_jsonable(v) for v in value]
    return str(value)


def missing_fact_checks(findings: list[Finding]) -> list[str]:
    """The codes of checks skipped because a fact they need is unknown (the runner's "not
    checked: X is unknown (...)"), as opposed to checks that do not apply here."""
    return [f.code for f in findings if f.status is Status.SKIP and f.message.startswith("not checked:")
            and " is unknown" in f.message]


def not_run_for_missing_facts(findings: list[Finding]) -> int:
    return len(missing_fact_checks(findings))


def summarize(findings: list[Finding]) -> dict[str, int]:
    counts = {s.value: 0 for s in Status}
    for f in findings:
        counts[f.status.value] += 1
    return counts
