"""Lint output: text for people, JSON (torchdoctor.check/v1), GitHub workflow annotations and
SARIF 2.1.0 for code scanning. Pure functions of the check result."""

from __future__ import annotations

import json
import os
from collections import Counter
from typing import Any

from rich.console import Console
from rich.text import Text

from ..lint.model import CheckResult
from ..registry import LintRule
from ..text import plural

CHECK_SCHEMA = "torchdoctor.check/v1"
_LEVEL = {"error": "error", "warning": "warning", "note": "note"}


def render_text(result: CheckResult, console: Console, *, statistics: bool = False) -> None:
    for e in result.errors:
        where = f"{e.path}:{e.line}:{e.column or 1}" if e.line else e.path
        console.print(Text(f"{where}: error: {e.message}", style="red"), soft_wrap=True)
    for f in result.findings:
        row = Text(f"{f.path}:{f.line}:{f.column}: ", style="bold")
        row.append(f.code, style="bold red" if f.severity == "error" else ("yellow" if f.severity == "warning" else "cyan"))
        row.append(f" {f.message}")
        console.print(row, soft_wrap=True)
        if f.fix:
            console.print(Text(f"    fix: {f.fix.summary}", style="dim"), soft_wrap=True)
    if statistics and result.findings:
        console.print()
        for (code, name), n in sorted(Counter((f.code, f.name) for f in result.findings).items()):
            console.print(Text(f"{n:5d}  {code}  {name}"), soft_wrap=True)
    console.print()
    n = len(result.findings)
    files = plural(result.files, "file")
    if n == 0 and not result.errors and result.files == 0:
        # Nothing was read: "All checks passed" would vouch for code never looked at (a wrong path in a CI gate).
        console.print(Text("No Python files found under the given paths: nothing was checked.", style="bold yellow"))
    elif n == 0 and not result.errors:
        console.print(Text(f"All checks passed ({files}).", style="bold green"))
    elif not result.errors:
        console.print(Text(f"Found {plural(n, 'finding')} in {files}.", style="bold red"))
    else:
        # A file that could not be read or parsed is not among the files checked: say so apart.
        unreadable = f"{plural(len(result.errors), 'file')} could not be checked"
        console.print(Text(f"Found {plural(n, 'finding')}; {unreadable}." if n else f"{unreadable[0].upper()}{unreadable[1:]}.",
                           style="bold red"))
    if result.suppressed:
        console.print(Text(f"({result.suppressed} suppressed by noqa)", style="dim"))


def render_json(result: CheckResult) -> str:
    doc = {
        "schema": CHECK_SCHEMA,
        "findings": [f.to_json() for f in result.findings],
        "errors": [e.to_json() for e in result.errors],
        "summary": {"files": result.files, "lines": result.lines, "findings": len(result.findings),
                    "errors": len(result.errors), "suppressed": result.suppressed},
    }
    return json.dumps(doc, indent=2) + "\n"


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render_github(result: CheckResult) -> str:
    """GitHub Actions workflow commands: annotations on the pull request's diff."""
    out = []
    for f in result.findings:
        level = {"error": "error", "warning": "warning"}.get(f.severity, "notice")
        props = (f"file={_escape_property(f.path)},line={f.line},col={f.column},endLine={f.end_line},"
                 f"endColumn={f.end_column},title={_escape_property(f'{f.code} {f.name}')}")
        message = f.message + (f"\nFix: {f.fix.summary}" if f.fix else "")
        out.append(f"::{level} {props}::{_escape_data(message)}")
    for e in result.errors:
        line = f",line={e.line}" if e.line else ""
        out.append(f"::error file={_escape_property(e.path)}{line},title=torchdoctor::{_escape_data(e.message)}")
    return "\n".join(out) + ("\n" if out else "")


def _markdown_code(text: str) -> str:
    """Prose with its code spans kept as code: `x` stays `x`; a bare call like torch.load(...) is
    put in backticks so code scanning does not show it as a sentence."""
    import re

    if "`" in text:
        return text
    text = re.sub(r"(?<![\w`])((?:[A-Za-z_][\w]*\.)*[A-Za-z_]\w*\([^()]*\))", r"`\1`", text)
    # keyword arguments on their own: weights_only=True, map_location="cpu"
    return re.sub(r"(?<![\w`=])([a-z_]\w*=(?:True|False|None|\d+|\"[^\"]*\"|'[^']*'))(?![\w`])", r"`\1`", text)


def render_sarif(result: CheckResult, rules: list[LintRule], version: str, root: str = ".") -> str:
    """SARIF 2.1.0: one run, the rules that ran as the driver's rules, relative URIs."""
    index = {r.code: i for i, r in enumerate(rules)}
    results: list[dict[str, Any]] = []
    for f in result.findings:
        rel = os.path.relpath(f.path, root).replace(os.sep, "/") if os.path.isabs(f.path) or root != "." else f.path
        rel = rel.replace(os.sep, "/")
        entry: dict[str, Any] = {
            "ruleId": f.code,
            "level": _LEVEL.get(f.severity, "warning"),
            "message": {"text": f.message + (f" Fix: {f.fix.summary}" if f.fix else "")},
            "locations": [{"physicalLocation": {
                "artifactLocation": {"uri": rel, "uriBaseId": "%SRCROOT%"},
                "region": {"startLine": f.line, "startColumn": f.column, "endLine": f.end_line,
                           "endColumn": max(f.end_column, 1)},
            }}],
        }
        if f.code in index:
            entry["ruleIndex"] = index[f.code]
        if f.fix:
            entry["message"]["markdown"] = _markdown_code(entry["message"]["text"])
        if f.fix and f.fix.edits:
            # The fix as SARIF types it: a description for people and the replacement code itself
            # (SARIF requires artifactChanges, so only fixes that know their edit are listed).
            entry["fixes"] = [{
                "description": {"text": f.fix.summary, "markdown": _markdown_code(f.fix.summary)},
                "artifactChanges": [{
                    "artifactLocation": {"uri": rel, "uriBaseId": "%SRCROOT%"},
                    "replacements": [{"deletedRegion": {"startLine": e.line, "startColumn": e.column + 1,
                                                        "endLine": e.end_line, "endColumn": e.end_column + 1},
                                      "insertedContent": {"text": e.replacement}} for e in f.fix.edits],
                }],
            }]
        results.append(entry)
    driver_rules = [{
        "id": r.code,
        "name": r.name,
        "shortDescription": {"text": r.title},
        "fullDescription": {"text": r.doc.split("## Why is this bad?")[0].replace("## What it does", "").strip() or r.title},
        "help": {"text": r.doc, "markdown": r.doc},
        "defaultConfiguration": {"level": _LEVEL.get(r.severity, "warning")},
    } for r in rules]
    notifications = [{"level": "error", "message": {"text": f"{e.path}: {e.message}"}} for e in result.errors]
    doc = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "torchdoctor", "version": version,
                                "informationUri": "https://pypi.org/project/torchdoctor/", "rules": driver_rules}},
            "results": results,
            "invocations": [{"executionSuccessful": not result.errors,
                             "toolExecutionNotifications": notifications}],
        }],
    }
    return json.dumps(doc, indent=2) + "\n"
