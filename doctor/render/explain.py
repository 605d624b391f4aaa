"""Rendering explanations and knowledge entries: text for people, JSON (torchdoctor.explain/v1) for
programs. Pure functions of matches, the parsed error and (with --env) findings."""

from __future__ import annotations

import json
import textwrap
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.text import Text

from ..kb.fill import fill
from ..kb.matcher import CLOSE, Match, Possible, happened
from ..kb.parse import ExceptionBlock, Parsed
from ..kb.schema import Entry
from ..text import shorten

if TYPE_CHECKING:
    from ..model import Finding

EXPLAIN_SCHEMA = "torchdoctor.explain/v1"
MESSAGE_CHARS = 240  # an error message longer than this is shortened at a word, with an ellipsis

GENERIC_NEXT_STEPS = (
    "Read the last exception in the output first; with a chained exception, the one marked "
    "'The above exception was the direct cause' is the root.",
    "For CUDA errors, rerun with CUDA_LAUNCH_BLOCKING=1 so the traceback points at the failing operation.",
    "For errors inside DataLoader workers, rerun with num_workers=0 to get the plain traceback.",
    "Check the machine: torchdoctor env",
    "Search the knowledge base by words from the message: torchdoctor kb search <words>",
)


def primary_error(parsed: Parsed, matches: list[Match]) -> ExceptionBlock | None:
    """The exception the answer is about: the one the best match hit, else the final one."""
    if matches:
        line = matches[0].evidence[0].line
        for block in parsed.exceptions:
            if block.line_no == line:
                return block
    return parsed.final


# Frames in these places are library code; the innermost frame elsewhere is the user's own line.
_LIBRARY = ("site-packages", "dist-packages", "/lib/python", "\\lib\\", "\\Lib\\", "<frozen", "/torch/",
            "\\torch\\", "<string>", "/usr/lib/", "/opt/conda/lib/")


def user_frame(block: ExceptionBlock | None) -> tuple[str, str] | None:
    """(frame, its source line) of the innermost frame outside installed libraries, if any."""
    if block is None:
        return None
    code = list(getattr(block, "code", []) or [])
    code += [""] * (len(block.frames) - len(code))
    for frame, line in reversed(list(zip(block.frames, code))):
        path = frame.rsplit(":", 1)[0] if ":" in frame else frame
        if not any(marker in path for marker in _LIBRARY):
            return frame, line
    return None


def worker_error(parsed: Parsed, shown: ExceptionBlock | None) -> ExceptionBlock | None:
    """The original exception raised inside a DataLoader worker, when the text has one apart from `shown`."""
    for block in parsed.exceptions:
        if (block.role == "worker" or block.in_worker) and block is not shown:
            return block
    return None


def error_json(block: ExceptionBlock | None) -> dict[str, Any] | None:
    if block is None:
        return None
    mine = user_frame(block)
    return {"type": block.type, "message": block.message, "line": block.line_no, "role": block.role,
            "frames": block.frames[-10:], "rank": block.rank, "in_dataloader_worker": block.in_worker,
            "user_frame": {"frame": mine[0], "code": mine[1]} if mine else None}


def env_notes(match: Match, findings: "list[Finding] | None") -> list[dict[str, Any]]:
    """What this machine's env checks say about a match's cause: confirmed, found healthy, or not
    ruled out (an OK from a check that could not see the failure with these facts, e.g. an
    import that --quick does not try, is no evidence against the cause)."""
    if not findings:
        return []
    from ..model import Status

    by_code = {f.code: f for f in findings}
    notes = []
    for code in match.entry.related:
        f = by_code.get(code)
        if f is None or f.status in (Status.SKIP, Status.CRASH):
            continue
        if f.status in (Status.WARNING, Status.ERROR):
            verdict = "confirmed"
        else:
            verdict = "not ruled out" if f.unseen else "healthy"
        note = {"code": code, "verdict": verdict, "status": f.status.value, "message": f.message,
                "fix": f.fix.to_json() if f.fix else None}
        if f.unseen:
            note["unseen"] = f.unseen
        notes.append(note)
    return notes


def explain_document(parsed: Parsed, matches: list[Match], findings: "list[Finding] | None" = None,
                     possible: "list[Possible] | None" = None, values: "dict[str, str] | None" = None) -> dict[str, Any]:
    out = []
    for m in matches:
        d = m.to_json()
        d["fixes"] = [_fix_json(f, values) for f in d["fixes"]]
        notes = env_notes(m, findings)
        if findings is not None:
            d["env"] = notes
        out.append(d)
    primary = primary_error(parsed, matches)
    return {
        "schema": EXPLAIN_SCHEMA,
        "error": error_json(primary),
        "worker_error": error_json(worker_error(parsed, primary)),
        "matches": out,
        # Not answers: causes worth a look, each with why it was picked (weak pattern, shared words).
        "possible": [p.to_json() for p in possible or ()],
        "input": {"lines": parsed.total_lines, "characters": parsed.total_chars,
                  "exceptions": len(parsed.exceptions)},
    }


def _fix_json(fix: dict[str, Any], values: "dict[str, str] | None") -> dict[str, Any]:
    from ..fix_steps import steps

    commands = [fill(c, values) for c in fix["commands"]]
    code = fill(fix["code"], values)
    return {**fix, "commands": commands, "code": code, "steps": [s.to_json() for s in steps(commands, code)]}


def render_json(parsed: Parsed, matches: list[Match], findings: "list[Finding] | None" = None,
                possible: "list[Possible] | None" = None, values: "dict[str, str] | None" = None) -> str:
    return json.dumps(explain_document(parsed, matches, findings, possible, values), indent=2,
                      ensure_ascii=False) + "\n"


def _para(console: Console, text: str, indent: int = 2, style: str = "") -> None:
    """Wrapped paragraphs; a line starting with "- " starts a list item with a hanging indent."""
    width = max(40, console.width - indent)
    for block in text.strip().split("\n\n"):
        items: list[str] = []
        for line in block.splitlines():
            if line.lstrip().startswith("- ") or not items:
                items.append(line.strip())
            else:
                items[-1] += " " + line.strip()
        for item in items:
            bullet = item.startswith("- ")
            wrapped = textwrap.wrap(" ".join(item.split()), width=width, break_long_words=False,
                                    break_on_hyphens=False, subsequent_indent="  " if bullet else "")
            for line in wrapped:
                console.print(Text(" " * indent + line, style=style), soft_wrap=True)


def _why_and_fixes(console: Console, entry: Entry, explanation_style: str,
                   values: "dict[str, str] | None" = None) -> None:
    _para(console, entry.summary)
    console.print()
    _para(console, entry.explanation, style=explanation_style)
    console.print()
    console.print(Text("Fix", style="bold"))
    _fixes(console, entry, values)


def _fixes(console: Console, entry: Entry, values: "dict[str, str] | None" = None) -> None:
    from ..fix_steps import steps
    from .steps import _print_wrapped, print_steps

    for i, fix in enumerate(entry.fixes, 1):
        _print_wrapped(console, Text(f"  {i}. ", style="bold"), fix.summary, 5)
        print_steps(console, steps([fill(c, values) for c in fix.commands], fill(fix.code, values)), 5)


def _possible(console: Console, possible: "list[Possible]", heading: str) -> None:
    if not possible:
        return
    console.print()
    console.print(Text(heading, style="bold"))
    for p in possible:
        _para(console, f"- {p.title} ({p.id}): {p.why}. Read it: torchdoctor kb show {p.id}")


def render_text(parsed: Parsed, matches: list[Match], console: Console,
                findings: "list[Finding] | None" = None, possible: "list[Possible] | None" = None,
                values: "dict[str, str] | None" = None) -> None:
    if not matches:
        console.print(Text("No confident match in the knowledge base.", style="bold yellow"))
        block = parsed.final
        if block is not None:
            console.print()
            console.print(Text("The error torchdoctor extracted", style="bold"))
            first = block.text.splitlines()[0] if block.text else block.type
            _para(console, f"{shorten(first, MESSAGE_CHARS)}  (line {block.line_no})")
        elif parsed.total_lines and not possible:
            console.print(Text("  No exception or error line was found in the text.", style="dim"))
        _possible(console, possible or [], "Possible causes (not confident: each is a guess to check)")
        console.print()
        console.print(Text("Next steps", style="bold"))
        for step in GENERIC_NEXT_STEPS:
            _para(console, "- " + step)
        return

    best = matches[0]
    entry = best.entry
    tag = f"{best.id} · confidence {best.confidence:.2f}"
    if len(entry.title) + 3 + len(tag) <= console.width:
        title = Text(entry.title, style="bold")
        title.append(f"   {tag}", style="dim")
        console.print(title, soft_wrap=True)
    else:  # a long title wraps at words, and the id goes on a line of its own
        for line in textwrap.wrap(entry.title, width=max(40, console.width), break_long_words=False,
                                  break_on_hyphens=False):
            console.print(Text(line, style="bold"), soft_wrap=True)
        console.print(Text(tag, style="dim"), soft_wrap=True)
    console.print()
    console.print(Text("What happened", style="bold"))
    for hit in best.evidence[:2]:
        _para(console, f"{shorten(hit.text, MESSAGE_CHARS)}  (line {hit.line})")
    for line in happened(entry, best.captures):
        _para(console, line)
    primary = primary_error(parsed, matches)
    original = worker_error(parsed, primary)
    if original is not None:
        _para(console, f"The original error in the DataLoader worker: {shorten(original.text, MESSAGE_CHARS)}  "
                       f"(line {original.line_no})")
    mine = user_frame(original) or user_frame(primary)
    if mine is not None:
        _para(console, f"Your code: {mine[0]}")
        if mine[1]:
            console.print(Text(f"      {mine[1]}", style="cyan"), soft_wrap=True)
    console.print()
    console.print(Text("Why", style="bold"))
    _why_and_fixes(console, entry, "dim", values)
    notes = env_notes(best, findings)
    if findings is not None:
        console.print()
        console.print(Text("On this machine", style="bold"))
        if not notes:
            _para(console, "no environment check bears on this cause", style="dim")
        for note in notes:
            if note["verdict"] == "not ruled out":
                _para(console, f"? not ruled out by {note['code']}: {note['message']}, but {note['unseen']}")
                continue
            mark = "✗ confirmed" if note["verdict"] == "confirmed" else "✓ healthy"
            _para(console, f"{mark} by {note['code']}: {note['message']}")
    if entry.related:
        console.print()
        console.print(Text("Would have caught it earlier", style="bold"))
        env = [c for c in entry.related if c.startswith("TE")]
        lint = [c for c in entry.related if c.startswith("TD")]
        other = [c for c in entry.related if not c.startswith(("TE", "TD"))]
        if env:
            _para(console, "torchdoctor env " + " ".join(env))
        if lint:
            _para(console, "torchdoctor check --select " + ",".join(lint) + " train.py")
        if other:
            _para(console, " ".join(other))
    if entry.references:
        console.print()
        console.print(Text("References", style="bold"))
        for ref in entry.references:
            console.print(Text("  " + ref, style="dim"), soft_wrap=True)
    close = [m for m in matches[1:] if best.confidence - m.confidence <= CLOSE]
    if close:
        console.print()
        console.print(Text("Also possible", style="bold"))
        for m in close:
            _para(console, f"{m.id} ({m.confidence:.2f}): {m.title} — torchdoctor kb show {m.id}")
    elif possible:
        _possible(console, possible[:2], "Also possible (not confident)")


# ------------------------------------------------------------------ kb browsing

def render_entry(entry: Entry, console: Console) -> None:
    console.print(Text(entry.title, style="bold"))
    console.print(Text(f"{entry.id} · {entry.area}", style="dim"))
    console.print()
    _why_and_fixes(console, entry, "")
    if entry.related:
        console.print()
        console.print(Text("Checks that catch it: " + ", ".join(entry.related), style="dim"))
    if entry.see_also:
        console.print(Text("See also: " + ", ".join(entry.see_also), style="dim"))
    if entry.references:
        console.print()
        console.print(Text("References", style="bold"))
        for ref in entry.references:
            console.print(Text("  " + ref, style="dim"), soft_wrap=True)
    console.print()
    console.print(Text("Seen in the wild", style="bold"))
    for ex in entry.examples:
        console.print(Text("  " + ex.source, style="dim"), soft_wrap=True)


def render_list(entries: list[Entry], console: Console) -> None:
    area = None
    width = max((len(e.id) for e in entries), default=0)
    for e in entries:
        if e.area != area:
            if area is not None:
                console.print()
            area = e.area
            console.print(Text(area, style="bold underline"))
        row = Text(f"  {e.id:<{width}}  ", style="cyan")
        row.append(e.title)
        console.print(row, soft_wrap=True)
