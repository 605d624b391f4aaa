"""`--format markdown`: paste-ready for a bug report, with user and host names redacted."""

from __future__ import annotations

import json
import re

from ..facts.model import Facts, known
from ..model import Finding, Status
from ..registry import AREAS
from .summary import closing_line, headline

ICON = {Status.OK: "✅", Status.WARNING: "⚠️", Status.ERROR: "❌", Status.SKIP: "➖", Status.CRASH: "💥"}


# Account names that identify no one and that occur as ordinary words in paths and package names.
_GENERIC_USERS = frozenset({"root", "user", "users", "ubuntu", "admin", "runner", "jovyan", "nobody", "home"})
_MAC = re.compile(r"(?<![0-9A-Fa-f:-])(?:[0-9A-Fa-f]{2}[:-]){5}[0-9A-Fa-f]{2}(?![0-9A-Fa-f:-])")
# Credentials with a recognisable shape (Hugging Face, GitHub, GitLab, OpenAI-style, AWS, Slack, JWT).
_TOKEN = re.compile(r"\b(?:hf_[A-Za-z0-9]{20,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_\w{20,}|glpat-[\w-]{20,}"
                    r"|sk-[A-Za-z0-9_-]{20,}|AKIA[0-9A-Z]{16}|xox[abpors]-[\w-]{10,}"
                    r"|eyJ[\w-]{10,}\.[\w-]{10,}\.[\w-]{10,})")
_UNSPECIFIED = frozenset({"127.0.0.1", "0.0.0.0", "::1", "::"})


def _identity(facts: Facts) -> tuple[str | None, str | None, str | None, list[str]]:
    """(user, host, home, addresses) as these facts record them; None where unknown."""
    py = facts.python if known(facts.python) else None
    user = py.user if py is not None and known(py.user) and py.user else None
    host = py.hostname if py is not None and known(py.hostname) and py.hostname else None
    home = None
    site = py.user_site if py is not None and known(py.user_site) else None
    for marker in ("/.local/", "\\AppData\\"):
        if site and marker in site:
            home = site.split(marker)[0]
    addresses: list[str] = []
    net = facts.network if known(facts.network) else None
    for iface in (net.interfaces if net is not None and known(net.interfaces) else []) or []:
        addresses += [a for a in iface.addresses if a not in _UNSPECIFIED]
    env = facts.env if known(facts.env) else None
    variables = env.variables if env is not None and known(env.variables) else {}
    master = variables.get("MASTER_ADDR")
    if master and master not in _UNSPECIFIED and master != "localhost":
        addresses.append(master)
    return user, host, home, addresses


def redactor(facts: Facts):
    """Replace, by value and wherever it appears (messages, evidence, fix commands, the JSON facts):
    the user name, the host name, the home folder, this host's IP addresses and MASTER_ADDR, MAC
    addresses and credential-shaped tokens. By value, not by key: a name that also sits in a path,
    an environment variable or a torch warning is caught there too."""
    rules: list[tuple[re.Pattern[str], str]] = []

    def word(value: str, repl: str, flags: int = 0) -> None:
        rules.append((re.compile(rf"(?<![A-Za-z0-9]){re.escape(value)}(?![A-Za-z0-9])", flags), repl))

    user, host, home, addresses = _identity(facts)
    if home and len(home) > 3 and (not user or user not in home):
        for form in (home, home.replace("\\", "\\\\")):  # as printed, and as JSON escapes it
            rules.append((re.compile(re.escape(form)), "<home>"))
    for address in sorted(set(addresses), key=len, reverse=True):
        rules.append((re.compile(rf"(?<![\w:.]){re.escape(address)}(?![\w:.])", re.I), "<ip>"))
    if host and host.lower() not in ("localhost",):
        names = {host, host.split(".")[0]}
        for name in sorted((n for n in names if len(n) >= 3), key=len, reverse=True):
            word(name, "<host>", re.I)
    if user and user.lower() not in _GENERIC_USERS:
        if len(user) >= 3:
            word(user, "<user>")
        else:  # "ml", "jd": as a word they occur inside ordinary names (libnvidia-ml), so only in places
            rules.append((re.compile(rf"(/home/|/Users/|\\Users\\|\\\\Users\\\\|\"user\": \"|user: ){re.escape(user)}"
                                     r"(?![A-Za-z0-9])"), r"\1<user>"))
    rules.append((_MAC, "<mac>"))
    rules.append((_TOKEN, "<token>"))

    def redact(text: str) -> str:
        for pattern, repl in rules:
            text = pattern.sub(repl, text)
        return text

    return redact


def steps_markdown(steps: list) -> list[str]:
    """Fix steps as Markdown: consecutive commands in one ```sh block, Python in ```python, prose as text."""
    from ..fix_steps import COMMAND, PYTHON

    out: list[str] = []
    fence = {COMMAND: "sh", PYTHON: "python", "text": "text"}
    last = None
    for step in steps:
        if step.kind in fence:
            if last == step.kind and step.kind == COMMAND:
                out.insert(len(out) - 1, step.text)  # join a run of commands in one block
                continue
            out += ["", f"```{fence[step.kind]}", *step.text.rstrip().splitlines(), "```"]
        else:
            out += ["", step.text.strip().lstrip("#").strip()]
        last = step.kind
    return out


def render_env(facts: Facts, findings: list[Finding], *, interpreter: str | None = None) -> str:
    out: list[str] = ["## torchdoctor env", ""]
    line = headline(facts)
    if interpreter:
        line = f"{interpreter} · {line}" if line else interpreter
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
            out += steps_markdown(f.fix.steps())
        out.append("")
    out += ["| | check | result |", "|---|---|---|"]
    for area in AREAS:
        for f in (x for x in findings if x.area == area):
            msg = f.message.replace("|", "\\|").replace("\n", " ")
            out.append(f"| {ICON[f.status]} | {f.code} {f.name} | {msg} |")
    out += ["", "<details><summary>Facts (JSON)</summary>", "", "```json",
            json.dumps(facts.to_json(), indent=1), "```", "", "</details>", ""]
    return redactor(facts)("\n".join(out))
