"""`--format markdown`: paste-ready for a bug report, with user and host names redacted."""

from __future__ import annotations

import json
import re

from ..facts.model import Facts, known
from ..model import Finding, Status
from ..registry import AREAS
from .summary import closing_line, headline

ICON = {Status.OK: "✅", Status.WARNING: "⚠️", Status.ERROR: "❌", Status.SKIP: "➖", Status.CRASH: "💥"}


def redactor(facts: Facts):
    """Replace the user's name in home paths and the host name, wherever they appear."""
    rules: list[tuple[re.Pattern[str], str]] = []
    py = facts.python
    user = py.user if known(py) and known(py.user) else None
    host = py.hostname if known(py) and known(py.hostname) else None
    if user and user not in ("root",):
        u = re.escape(user)
        rules.append((re.compile(rf"(/home/|/Users/|\\Users\\){u}(?=[/\\]|\b)"), r"\1<user>"))
        rules.append((re.compile(rf"(?<![\w.-]){u}@"), "<user>@"))
        rules.append((re.compile(rf"(?<=user: ){u}\b"), "<user>"))
    if host and len(host) >= 3 and host not in ("localhost",):
        rules.append((re.compile(rf"(?<![\w-]){re.escape(host)}(?![\w-])"), "<host>"))

    def redact(text: str) -> str:
        for pattern, repl in rules:
            text = pattern.sub(repl, text)
        return text

    return redact


def render_env(facts: Facts, findings: list[Finding]) -> str:
    out: list[str] = ["## torchdoctor env", ""]
    line = headline(facts)
    if line:
        out += [f"**{line}**", ""]
    out += [f"**Result:** {closing_line(findings)}", ""]
    problems = [f for f in findings if f.status in (Status.ERROR, Status.WARNING, Status.CRASH)]
    for f in problems:
        out.append(f"### {ICON[f.status]} {f.code} {f.name}")
        out.append("")
        out.append(f.message)
        out.append("")
        for key, value in f.evidence.items():
            if key != "traceback":
                out.append(f"- {key}: `{value}`")
        if f.fix:
            out += ["", f"**Fix:** {f.fix.summary}"]
            if f.fix.commands:
                out += ["", "```sh", *f.fix.commands, "```"]
        out.append("")
    out += ["| | check | result |", "|---|---|---|"]
    for area in AREAS:
        for f in (x for x in findings if x.area == area):
            msg = f.message.replace("|", "\\|").replace("\n", " ")
            out.append(f"| {ICON[f.status]} | {f.code} {f.name} | {msg} |")
    out += ["", "<details><summary>Facts (JSON)</summary>", "", "```json",
            json.dumps(facts.to_json(), indent=1), "```", "", "</details>", ""]
    return redactor(facts)("\n".join(out))
