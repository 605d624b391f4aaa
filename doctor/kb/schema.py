"""The knowledge-entry schema: one TOML file per entry in knowledge/, file stem == id.

The records an entry is read into, and its JSON form in the index. A TOML file is read strictly
by kb/validate.py (which `explain` never loads: it reads the index, validated when it was built).
"""

from __future__ import annotations

from typing import Any, NamedTuple

AREAS = (
    "CUDA, driver and installation",
    "GPU memory and device placement",
    "DataLoader and host memory",
    "Autograd and training loop",
    "Distributed training",
    "Checkpoints, serialization and export",
    "C++/CUDA extensions",
    "Also frequent",
)

# Where a pattern is tried:
#   exception  the exception lines: "Type: message" of each exception in the text (final, chained,
#              DataLoader-worker originals, torchrun root causes), message lines included
#   line       any line of the text
#   log        NCCL / CUDA / c10 log lines ("NCCL WARN", "[W ...ProcessGroupNCCL.cpp", ...)
#   frame      stack frames, "path/file.py:line in func", from tracebacks and from stack dumps of a
#              hung process (faulthandler, py-spy, a Ctrl-C traceback): where it was stuck
SCOPES = ("exception", "line", "log", "frame")



class SchemaError(ValueError):
    pass


# The records below are immutable and every run of `explain` defines them: named tuples, which
# Python builds without generating code (a frozen dataclass costs several times as much).
class Pattern(NamedTuple):
    regex: str
    scope: str = "exception"
    # How specific a hit is, 0..1: a message that names the failure exactly is 1.0; a generic
    # message that several causes share ("CUDA error: unknown error") is lower.
    weight: float = 1.0
    # Only count this pattern when the exception's type matches (e.g. "RuntimeError|OSError").
    exception_type: str | None = None
    # Only count it when a frame of the traceback matches (e.g. "torch/utils/data/").
    frame: str | None = None
    ignore_case: bool = False
    # "added" or "removed": count a match only when its `module` and `attribute` groups name a torch
    # API a later release added (the torch is too old for the code) or one a release removed (the
    # code is too old for the torch), by torch's own releases (kb/api_history.py). Without a `module`
    # group, the module is the one the traceback's import line names. "argument": its `callable` took
    # the keyword in `attribute` only from a later release (a bare "__init__": the traceback's call).
    api_history: str | None = None

    @property
    def matched_regex(self) -> str:
        """The regex as it is matched. A message's first letter matches in either case: people
        re-case it when they quote it ("... expected input batch_size to match ..." inside a
        sentence, "Size mismatch for ..." at the start of a line), and PyTorch itself has printed
        the same check both ways. Nothing in a message's meaning hangs on that letter."""
        first = self.regex[:1]
        if self.scope == "exception" and not self.ignore_case and first.isascii() and first.isalpha():
            return f"[{first.upper()}{first.lower()}]{self.regex[1:]}"
        return self.regex


class FixStep(NamedTuple):
    summary: str
    commands: tuple[str, ...] = ()
    code: str = ""


class Example(NamedTuple):
    text: str
    source: str  # URL of the public report the text comes from
    captures: dict[str, str]  # expected named-group values


class NearMiss(NamedTuple):
    text: str
    note: str  # why it is not this entry
    source: str = ""


class Entry(NamedTuple):
    id: str
    title: str
    area: str
    summary: str
    explanation: str
    patterns: tuple[Pattern, ...]
    fixes: tuple[FixStep, ...]
    examples: tuple[Example, ...]
    near_misses: tuple[NearMiss, ...] = ()
    # What happened, with the user's values: lines with {capture} placeholders; a line whose
    # captures did not all match is left out.
    happened: tuple[str, ...] = ()
    related: tuple[str, ...] = ()  # env/lint/inspect codes that would have caught it earlier
    references: tuple[str, ...] = ()
    seed: str = "common"  # the founding note the fix comes from ("000".."004"), or "common"
    see_also: tuple[str, ...] = ()  # other knowledge-base ids
    # The failure described in words, as people describe it when there is no error message
    # ("training hangs at the end of the first epoch"), in any language: what `explain` ranks
    # possible causes by when no pattern is confident.
    symptoms: tuple[str, ...] = ()
    # Entries that name the cause of this (generic) failure more precisely: when one of them has
    # evidence in the same text, even weak evidence, it is the answer and this one comes second.
    # ("device-side assert triggered" is the failure; the "srcIndex < srcSelectDimSize" assert
    # line above it says an embedding got an id past its size.)
    refined_by: tuple[str, ...] = ()


def entry_from_index(data: dict[str, Any], patterns: tuple[Pattern, ...]) -> Entry:
    """An entry from its JSON form in knowledge/entries.jsonl (`entry_to_dict` without the
    patterns, which the index keeps apart): validated when the index was built, so only rebuilt."""
    return Entry(
        id=data["id"], title=data["title"], area=data["area"], summary=data["summary"],
        explanation=data["explanation"], patterns=patterns,
        fixes=tuple(FixStep(f["summary"], tuple(f["commands"]), f["code"]) for f in data["fixes"]),
        examples=tuple(Example(x["text"], x["source"], x["captures"]) for x in data["examples"]),
        near_misses=tuple(NearMiss(n["text"], n["note"], n["source"]) for n in data["near_misses"]),
        happened=tuple(data["happened"]), related=tuple(data["related"]), references=tuple(data["references"]),
        seed=data["seed"], see_also=tuple(data["see_also"]), symptoms=tuple(data["symptoms"]),
        refined_by=tuple(data["refined_by"]),
    )


def entry_to_dict(entry: Entry) -> dict[str, Any]:
    """The JSON form kept in the index (the same keys as the TOML file)."""

    def conv(value: Any) -> Any:
        if isinstance(value, (Entry, Pattern, FixStep, Example, NearMiss)):
            return {name: conv(getattr(value, name)) for name in value._fields}
        if isinstance(value, (list, tuple)):
            return [conv(v) for v in value]
        if isinstance(value, dict):
            return {k: conv(v) for k, v in value.items()}
        return value

    return conv(entry)
