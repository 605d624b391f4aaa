"""What lint rules return and what the lint renderers receive."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

SEVERITIES = ("error", "warning", "note")


@dataclass(frozen=True)
class Edit:
    """Replace the text between two positions (1-based lines, 0-based columns, like ast)."""

    line: int
    column: int
    end_line: int
    end_column: int
    replacement: str


@dataclass(frozen=True)
class LintFix:
    summary: str  # imperative: "Pass map_location='cpu'"
    edits: tuple[Edit, ...] = ()  # empty: a fix for people, not for --fix
    safe: bool = False  # safe fixes apply with --fix; unsafe ones only with --unsafe-fixes


@dataclass(frozen=True)
class Violation:
    """What a rule reports: where (a node, or explicit positions), the specifics, the fix."""

    node: ast.AST | None
    message: str
    fix: LintFix | None = None
    line: int | None = None
    column: int | None = None
    severity: str | None = None  # overrides the rule's default (e.g. a library file: note)


@dataclass(frozen=True)
class LintFinding:
    code: str
    name: str
    path: str
    line: int
    column: int  # 1-based, as editors show it
    end_line: int
    end_column: int
    message: str
    severity: str
    fix: LintFix | None = None
    related: tuple[str, ...] = ()

    @property
    def location(self) -> str:
        return f"{self.path}:{self.line}:{self.column}"

    def to_json(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "name": self.name,
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "end_line": self.end_line,
            "end_column": self.end_column,
            "message": self.message,
            "severity": self.severity,
            "fix": None if self.fix is None else {
                "summary": self.fix.summary,
                "applicability": ("safe" if self.fix.safe else "unsafe") if self.fix.edits else "manual",
                "edits": [e.__dict__ for e in self.fix.edits],
            },
            "related": list(self.related),
        }


@dataclass(frozen=True)
class FileError:
    """A file that could not be checked; reported, and the run goes on."""

    path: str
    message: str
    line: int | None = None
    column: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "message": self.message, "line": self.line, "column": self.column}


@dataclass
class CheckResult:
    findings: list[LintFinding] = field(default_factory=list)
    errors: list[FileError] = field(default_factory=list)
    files: int = 0
    lines: int = 0
    suppressed: int = 0  # by noqa
