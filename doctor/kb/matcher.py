"""Matching parsed text against the knowledge base, and ranking what matched.

A hit's strength is where it matched times how specific the pattern is:
- where: the final exception, the direct cause of a chained one, the original error inside a
  DataLoader worker and a rank's own error count fully; an exception handled earlier a little
  less; a log line or any other line less again, and a warning least. A wrapper that only says a
  child failed (torchrun's ChildFailedError) counts little: the cause is elsewhere in the text.
- how specific: the pattern's weight, set by the entry's author (1.0 for a message that names the
  failure exactly).
An entry's confidence is its best hit, nudged up a little for each further pattern that agrees.
Only entries at or above CONFIDENT are answers; nothing is dressed up from a weak hit.
"""

from __future__ import annotations

import bisect
import re
from itertools import repeat
from dataclasses import dataclass, field
from typing import Any, Iterator, NamedTuple

from . import api_history
from .loader import Head, KnowledgeBase, load
from .parse import ExceptionBlock, Parsed, parse
from .schema import Entry, Pattern

CONFIDENT = 0.5
CLOSE = 0.2  # runners-up within this of the best are shown

ROLE_WEIGHT = {"final": 1.0, "cause": 1.0, "worker": 1.0, "rank": 0.95, "context": 0.85, "other": 0.8}
LOG_WEIGHT = 0.75
LINE_WEIGHT = 0.7
# An exception pattern found in a line that was not read as an exception: the whole text is a bare
# message (no exception at all was found, e.g. "mat1 and mat2 shapes cannot be multiplied"), or
# the message sits in prose or in a framework's own log line beside other exceptions.
BARE_WEIGHT = 0.85
UNSTRUCTURED_WEIGHT = 0.6
FRAME_WEIGHT = 0.75
# An exception pattern that names its exception type, found in a line that names no type: below
# CONFIDENT, so a possible cause (the type was part of the evidence and is missing).
UNTYPED_WEIGHT = 0.45
# A pattern with no literal every match must contain (prose and symptom patterns, mostly) cannot be
# prefiltered: it reads only the newest this-many characters of a scope, so a long log costs the
# same as a paste.
LITERAL_FREE_CHARS = 256 << 10
WARNING_LINE_WEIGHT = 0.5
# A message's fixed words found with its variable parts written otherwise (see _template_hit).
TEMPLATE_WEIGHT = 0.6
TEMPLATE_MIN_WEIGHT = 0.9
TEMPLATE_MIN_CHARS = 24
WRAPPER_WEIGHT = 0.4
AGREEMENT_BONUS = 0.03
_WRAPPERS = re.compile(r"(?:ChildFailedError|SignalException)$")
_WARNING_LINE = re.compile(r"Warning\b|\bwarn(?:ing)?\b|^\[W|^W\d{4}", re.IGNORECASE)


# Hit and Possible are named tuples, Match a dataclass (it is `replace`d, and carries its entry):
# `explain` defines them on every run, and a dataclass costs several times as much to define.
class Hit(NamedTuple):
    scope: str
    line: int
    text: str
    strength: float
    captures: dict[str, str]


@dataclass
class Match:
    id: str
    title: str
    confidence: float
    captures: dict[str, str]
    evidence: list[Hit]
    entry: Entry = field(repr=False)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "confidence": round(self.confidence, 3),
            "captures": self.captures,
            "evidence": [{"scope": h.scope, "line": h.line, "text": h.text} for h in self.evidence],
            "summary": self.entry.summary,
            "happened": happened(self.entry, self.captures),
            "fixes": [{"summary": f.summary, "commands": list(f.commands), "code": f.code} for f in self.entry.fixes],
            "related": list(self.entry.related),
            "references": list(self.entry.references),
        }


_COMPILED: dict[tuple[str, bool, bool], re.Pattern[str]] = {}


def _compile(pattern: Pattern, multiline: bool, ignore_case: bool | None = None) -> re.Pattern[str]:
    """The pattern's regex, compiled once; `ignore_case` overrides the pattern's own flag."""
    regex = pattern.matched_regex
    fold = pattern.ignore_case if ignore_case is None else ignore_case
    key = (regex, fold, multiline)
    rx = _COMPILED.get(key)
    if rx is None:
        flags = (re.IGNORECASE if fold else 0) | (re.MULTILINE if multiline else 0)
        rx = _COMPILED[key] = re.compile(regex, flags)
    return rx


class _Haystack:
    """One scope's text joined, with line numbers recoverable from offsets."""

    def __init__(self, items: list[tuple[int, str]]) -> None:
        self.items = items
        self.text = "\n".join(t for _, t in items)
        self.lower: str | None = None
        self.squeezed: dict[bool, tuple[str, str]] = {}
        self.every: dict[bool, str] = {}  # the text and its two readings above, NUL between them
        self.removed: dict[int, list[int]] = {}  # where the mid-word breaks are, from an offset on
        self.starts: list[int] = []
        offset = 0
        for _, t in items:
            self.starts.append(offset)
            offset += len(t) + 1

    def any_reading(self, ignore_case: bool) -> str:
        """The text and, where it has line breaks, its two re-joined readings, NUL between them (no
        substring holds a NUL, so each substring found is found inside one reading): a substring
        none of the readings holds rules a pattern out with one scan."""
        every = self.every.get(ignore_case)
        if every is None:
            if ignore_case:
                if self.lower is None:
                    self.lower = self.text.lower()
                text = self.lower
            else:
                text = self.text
            if "\n" in text:
                squeezed = self.squeezed[ignore_case] = (_joined(text), _squeeze(text))
                every = "\0".join((text, *squeezed))
            else:
                every = text
            self.every[ignore_case] = every
        return every

    def contains_all(self, groups: Any, ignore_case: bool) -> bool:
        """Whether the text holds one substring of every group (an AND of ORs), also where a
        paste broke a line inside it."""
        every = self.any_reading(ignore_case)
        text = self.lower if ignore_case else self.text
        if "\n" not in text:
            return _missing_group(groups, text) is None
        # Most patterns lack a group in all three readings, and stop here.
        if _missing_group(groups, every) is not None:
            return False
        missing = _missing_group(groups, text)
        if missing is None:
            return True
        squeezed = self.squeezed[ignore_case]
        # A variant without the group the text lacks cannot hold them all.
        return any(_missing_group(groups, t) is None for t in squeezed if any(lit in t for lit in missing))

    def locate(self, offset: int) -> tuple[int, str]:
        i = bisect.bisect_right(self.starts, offset) - 1
        return self.items[i]

    def matches(self, rx: re.Pattern[str], tail: int | None = None) -> Iterator[tuple[tuple[int, str], re.Match[str]]]:
        """Every match with the line it starts on; where there is none, the matches across a line
        break a paste put mid-sentence (read as a space). `tail`: only the last so many characters
        are searched (a pattern no literal can prefilter must not scan a whole log)."""
        start = max(0, len(self.text) - tail) if tail else 0
        found = False
        for m in rx.finditer(self.text, start):
            found = True
            yield self.locate(m.start()), m
        if found or len(self.items) < 2 or "\n" not in self.text:
            return
        # The re-joined readings are made once per scope, not once per pattern (on a long log
        # each is a copy of 100+ KiB).
        readings = self.squeezed.get(False)
        if readings is None:
            readings = self.squeezed[False] = (_joined(self.text), _squeeze(self.text))
        for m in rx.finditer(readings[0], start):  # same offsets
            found = True
            yield self.locate(m.start()), m
        if found:
            return
        removed = self.removed.get(start)
        if removed is None:
            removed = self.removed[start] = [x.start() for x in _MID_WORD_BREAK.finditer(self.text, start)]
        if removed:  # a break mid-word: read as nothing
            for m in rx.finditer(readings[1], start):
                yield self._unsqueezed(m, removed), m

    def _unsqueezed(self, m: re.Match[str], removed: list[int]) -> tuple[int, str]:
        """The line of a match in the squeezed text: offsets shift by one per break removed."""
        offset = m.start()
        for k, pos in enumerate(removed):
            if pos - k > offset:
                break
            offset += 1
        return self.locate(offset)

    def last_match(self, rx: re.Pattern[str], tail: int | None = None) -> tuple[tuple[int, str], re.Match[str]] | None:
        """The last of `matches` (the first 200 are looked at: a line repeated a thousand
        times adds nothing)."""
        best = None
        for count, found in enumerate(self.matches(rx, tail)):
            best = found
            if count >= 200:
                break
        return best


def _missing_group(groups: Any, text: str) -> Any:
    """The first group none of whose substrings is in `text`, or None (it runs for every pattern
    on every text: plain loops)."""
    for group in groups:
        for lit in group:
            if lit in text:
                break
        else:
            return group
    return None


# The exceptions a long log holds are matched newest first up to this much text: the final error,
# its cause, the DataLoader worker's original and each rank's own always are. (A crafted log of
# thousands of long exception blocks must cost what a real one does.)
MAX_EXCEPTION_CHARS = 96 << 10


def _matched_blocks(parsed: Parsed) -> list[ExceptionBlock]:
    cached = parsed.__dict__.get("_blocks")
    if cached is not None:
        return cached
    chosen: list[ExceptionBlock] = []
    budget = MAX_EXCEPTION_CHARS
    for block in reversed(parsed.exceptions):
        size = len(block.text)
        if budget - size >= 0 or block.role in ("final", "cause", "worker", "rank"):
            chosen.append(block)
            budget -= size
    chosen.reverse()
    parsed.__dict__["_blocks"] = chosen
    return chosen


def _unwrapped(text: str) -> list[str]:
    """A multi-line message as printed, and as one line: a paste may have wrapped it between
    words (the line break stands for a space) or mid-word (it stands for nothing)."""
    if "\n" not in text:
        return [text]
    return [text, text.replace("\n", " "), _squeeze(text)]


# A break between two word characters (a cut mid-word), or before a line that starts with the one
# space the cut fell on (a page's wrap that kept it): either way the break itself stands for nothing.
_MID_WORD_BREAK = re.compile(r"(?<=\w)\n(?=\w)|(?<=\S)\n(?= \S)")


# A line that ends a sentence was not wrapped by the paste: the break after it stays a break, so a pattern
# reading one line ("Windows ... num_workers") does not join two sentences of a paragraph.
_WRAPPED_BREAK = re.compile(r"(?<![.!?\u3002\uff01\uff1f])\n")


def _joined(text: str) -> str:
    """The text with each line break a paste could have put mid-sentence read as a space (same length)."""
    return _WRAPPED_BREAK.sub(" ", text)


def _squeeze(text: str) -> str:
    """Line breaks that stand for nothing removed (see _MID_WORD_BREAK), the others read as `_joined` reads them."""
    return _joined(_MID_WORD_BREAK.sub("", text))


def _search_unwrapped(rx: re.Pattern[str], text: str) -> re.Match[str] | None:
    for variant in _unwrapped(text):
        m = rx.search(variant)
        if m:
            return m
    return None


SHOWN_CHARS = 300


def _shown(line: str, m: re.Match[str]) -> str:
    """The part of a line a hit shows: its start, or where the line is long and the match lies
    beyond that, the match with a little before it. A C++ runtime's line runs for hundreds of
    characters before its message ("EP Error /onnxruntime_src/...: CUDA failure 35: CUDA driver
    version is insufficient ..."): the evidence must show the message, and what is judged of the
    evidence (a driver-level failure) must see it."""
    if len(line) <= SHOWN_CHARS:
        return line
    col = line.find(m.group(0).split("\n", 1)[0][:40])
    if col < SHOWN_CHARS - 60:
        return line[:SHOWN_CHARS]
    return "\u2026" + line[col - 60:col + SHOWN_CHARS - 61]


def _captures(m: re.Match[str]) -> dict[str, str]:
    return {k: v.strip() for k, v in m.groupdict().items() if v is not None and v.strip()}


def _exception_strength(block: ExceptionBlock) -> float:
    strength = ROLE_WEIGHT.get(block.role, 0.8)
    if _WRAPPERS.search(block.type):
        strength *= WRAPPER_WEIGHT
    return strength


def _prefilters(head: Head) -> Iterator[tuple[Pattern, Any, Any]]:
    """Each pattern with its fixed words and the more groups a long one has (() where none)."""
    return zip(head.patterns, head.literals, head.prefilter or repeat(()))


def _may_hold(stack: _Haystack, lits: Any, more: Any, ignore_case: bool) -> bool:
    return stack.contains_all(lits, ignore_case) and (not more or stack.contains_all(more, ignore_case))


def _ruled_out(stack: _Haystack, lits: Any, ignore_case: bool) -> bool:
    """Whether no reading of the scope holds any string of the pattern's first group: the test most
    patterns fail, made here without the calls of a whole prefilter (it runs ~2,000 times a text)."""
    if not stack.items:
        return True
    if not lits:
        return False
    every = stack.every.get(ignore_case)
    if every is None:  # (any_reading's own cache, read here without its call: ~2,000 times a text, 6% of matching)
        every = stack.any_reading(ignore_case)
    for lit in lits[0]:
        if lit in every:
            return False
    return True


def _hits_for(head: Head, parsed: Parsed, stacks: dict[str, _Haystack]) -> list[Hit]:
    hits: list[Hit] = []
    for pattern, lits, more in _prefilters(head):
        if pattern.api_history:
            hits.extend(_api_history_hits(pattern, lits, more, parsed, stacks))
            continue
        if pattern.scope == "exception":
            # (an exception pattern is also read in plain lines, for less: see _exception_hits)
            if _ruled_out(stacks["exception"], lits, pattern.ignore_case) and _ruled_out(
                    stacks["line"], lits, pattern.ignore_case):
                continue
            hits.extend(_exception_hits(pattern, lits, more, parsed, stacks))
            continue
        stack = stacks[pattern.scope]
        if _ruled_out(stack, lits, pattern.ignore_case) or not _may_hold(stack, lits, more, pattern.ignore_case):
            continue
        rx = _compile(pattern, multiline=True)
        seen = 0
        for (line_no, text), m in stack.matches(rx, None if lits else LITERAL_FREE_CHARS):
            base = {"log": LOG_WEIGHT, "frame": FRAME_WEIGHT}.get(pattern.scope, LINE_WEIGHT)
            # A warning is weaker evidence. A match over several lines (a message and, lines away,
            # what makes it this failure) is judged by the line where it ends.
            said = m.group(0).rsplit("\n", 1)[-1] if "\n" in m.group(0) else text
            if pattern.scope == "line" and _WARNING_LINE.search(said):
                base = WARNING_LINE_WEIGHT
            hits.append(Hit(pattern.scope, line_no, _shown(text, m), base * pattern.weight, _captures(m)))
            seen += 1
            if seen >= 20:  # the same log line repeated a thousand times adds nothing
                break
    return hits


def _api_history_hits(pattern: Pattern, lits: Any, more: Any, parsed: Parsed,
                      stacks: dict[str, _Haystack]) -> list[Hit]:
    """The hits of a pattern whose captured name must be one torch's releases added or removed, with
    the release it changed in; any other name (a typo, another library's) is no evidence."""
    found = _pattern_hits(pattern._replace(api_history=None), lits, more, parsed, stacks)
    kept = []
    for hit in found:
        captures = hit.captures
        if pattern.api_history == "argument":
            # "DataLoader.__init__()" names the class; Python before 3.10 said "__init__()" alone, and
            # the traceback's source line holds the call ("DataLoader(ds, persistent_workers=True)").
            named = (captures.get("callable") or "").removesuffix(".__init__").rsplit(".", 1)[-1]
            if named in ("", "__init__"):
                named = _called_with(parsed, captures.get("attribute", "")) or ""
            captures = {**captures, "callable": named}
        elif not captures.get("module") and captures.get("attribute"):
            # Python before 3.7 named no module in "cannot import name 'X'": the import line of the
            # traceback does ("from torch.optim.lr_scheduler import CyclicLR").
            captures = {**captures, "module": _imported_from(parsed, captures["attribute"]) or ""}
        captures = api_history.captures_fit(pattern.api_history or "", captures)
        if captures is not None:
            kept.append(hit._replace(captures=captures))
    return kept


_FROM_IMPORT = re.compile(r"^\s*from\s+(torch(?:\.\w+)*)\s+import\s+\(?([\w\s,]+)")


def _source_lines(parsed: Parsed) -> Iterator[str]:
    """The source lines a traceback's frames show."""
    return (line for block in parsed.exceptions for line in block.code)


def _imported_from(parsed: Parsed, name: str) -> str | None:
    """The torch module a traceback's source line imports `name` from."""
    for line in _source_lines(parsed):
        m = _FROM_IMPORT.match(line)
        if m and name in re.split(r"[\s,()]+", m.group(2)):
            return m.group(1)
    return None


def _called_with(parsed: Parsed, keyword: str) -> str | None:
    """The callable a traceback's source line calls with `keyword=`."""
    for line in _source_lines(parsed) if keyword else ():
        at = line.find(f"{keyword}=")
        calls = re.findall(r"(\w+)\s*\(", line[:at]) if at >= 0 else []
        if calls:
            return calls[-1]
    return None


def _pattern_hits(pattern: Pattern, lits: Any, more: Any, parsed: Parsed, stacks: dict[str, _Haystack]) -> list[Hit]:
    head = Head("", "", (pattern,), (lits,), (), (more,))
    return _hits_for(head, parsed, stacks)


def _exception_hits(pattern: Pattern, lits: Any, more: Any, parsed: Parsed, stacks: dict[str, _Haystack]) -> list[Hit]:
    hits: list[Hit] = []
    stack = stacks["exception"]
    if stack.items and _may_hold(stack, lits, more, pattern.ignore_case):
        rx = _compile(pattern, multiline=True)
        for block in _matched_blocks(parsed):
            if pattern.exception_type and not re.search(pattern.exception_type, block.type):
                continue
            if pattern.frame and not any(re.search(pattern.frame, f) for f in block.frames):
                continue
            m = _search_unwrapped(rx, block.text)
            if m:
                first = block.text.splitlines()[0] if block.text else block.type
                hits.append(Hit("exception", block.line_no, _shown(first, m),
                                _exception_strength(block) * pattern.weight, _captures(m)))
    if hits:
        return hits
    # Not in any exception: the same words in a plain line still count, for less. A frame
    # condition must then hold somewhere in the text; the exception type cannot be known.
    lines = stacks["line"]
    if not lines.items or not _may_hold(lines, lits, more, pattern.ignore_case):
        return hits
    if pattern.frame and not any(re.search(pattern.frame, f) for _, f in parsed.frame_lines):
        return hits
    rx = _compile(pattern, multiline=True)
    base = BARE_WEIGHT if not parsed.exceptions else UNSTRUCTURED_WEIGHT
    found = lines.last_match(rx, None if lits else LITERAL_FREE_CHARS)
    if found is not None:
        (line_no, text), m = found
        strength = base * pattern.weight
        if pattern.exception_type:
            # The pattern's words are only its failure under that exception type. A line naming
            # other types contradicts it; a line naming none leaves it a possible cause, no answer.
            named = re.findall(_NAMED_EXCEPTION, text)
            if named and not any(re.search(pattern.exception_type, n) for n in named):
                return hits
            if not named:
                strength = min(strength, UNTYPED_WEIGHT)
        hits.append(Hit("line", line_no, _shown(text, m), strength, _captures(m)))
    return hits


# Compiled (by re, once) only for a text whose exception words are in a plain line.
_NAMED_EXCEPTION = r"(?<![\w.])(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception|Interrupt|Exit)\b"


# Per pattern (its fixed words follow from it alone), those words in lower case, or () where a
# reading from words does not apply: worked out once, not for every silent pattern of every text.
_TEMPLATE_WORDS: dict[Pattern, tuple[tuple[str, ...], ...]] = {}
_FOLDED_WORDS: dict[Pattern, tuple[tuple[str, ...], ...]] = {}


def _folded_words(lits: Any) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(lit.lower() for lit in group) for group in lits)


def _template_hit(pattern: Pattern, lits: Any, stacks: dict[str, _Haystack]) -> Hit | None:
    """The fixed words of a message whose variable parts were written differently: an article's
    `(pid(s) xxx)`, `{uri}`, `(N)` where PyTorch printed values, or another letter case. Only for a
    pattern that names its failure (weight >= TEMPLATE_MIN_WEIGHT) and whose fixed words are long
    enough to be that message and no other, all found in one line. A pattern that says what must
    not be there (a negative lookaround: "not torch's own library") cannot be read from its words."""
    folded = _TEMPLATE_WORDS.get(pattern)
    if folded is None:
        eligible = (pattern.weight >= TEMPLATE_MIN_WEIGHT and lits and not pattern.exception_type
                    and not pattern.frame and not pattern.api_history and "(?!" not in pattern.regex and "(?<!" not in pattern.regex
                    and sum(min(len(lit) for lit in group) for group in lits) >= TEMPLATE_MIN_CHARS)
        folded = _TEMPLATE_WORDS[pattern] = _folded_words(lits) if eligible else ()
    if not folded:
        return None
    for scope in ("exception", "line"):
        stack = stacks[scope]
        if not stack.items or not stack.contains_all(folded, True):
            continue
        for line_no, text in reversed(stack.items):
            if _missing_group(folded, text.lower()) is None:
                return Hit("line", line_no, text.splitlines()[0][:SHOWN_CHARS] if text else text,
                           TEMPLATE_WEIGHT * pattern.weight, {})
    return None


def _folded_hit(pattern: Pattern, lits: Any, stacks: dict[str, _Haystack]) -> Hit | None:
    """The whole message in another letter case ("runtimeerror: cuda error: cudnn_status_execution_failed",
    a title typed in lower case): the pattern itself, matched without regard to case, where its
    fixed words are too short for `_template_hit` to read. Its type and frame conditions cannot be
    checked against a retyped line, so a pattern that has them is left out."""
    folded = _FOLDED_WORDS.get(pattern)
    if folded is None:
        eligible = not (pattern.ignore_case or pattern.exception_type or pattern.frame or pattern.api_history
                        or not lits)
        folded = _FOLDED_WORDS[pattern] = _folded_words(lits) if eligible else ()
    stack = stacks["line"]  # every line of a paste, the exception lines among them
    if not folded or not stack.items or not stack.contains_all(folded, True):
        return None
    found = stack.last_match(_compile(pattern, True, ignore_case=True))
    if found is None:
        return None
    (line_no, text), m = found
    return Hit("line", line_no, text.splitlines()[0][:SHOWN_CHARS] if text else text, TEMPLATE_WEIGHT * pattern.weight,
               _captures(m))


# A message the paste cut off: its head must hold this many characters of a pattern's fixed words,
# and the words left after the last of them no more than CUT_TAIL_CHARS (a variable part the cut fell in).
CUT_MIN_CHARS = 20
CUT_TAIL_CHARS = 40
CUT_WORDS_CHARS = 200  # no fixed word of a pattern is longer: where a cut word can begin


def _first_cjk(text: str) -> int:
    """Where the first Chinese character or CJK punctuation is, or -1. (A loop, not a regex: a
    character class of the CJK range costs a millisecond to compile.)"""
    if text.isascii():
        return -1
    for i, ch in enumerate(text):
        if "\u4e00" <= ch <= "\u9fff" or "\u3000" <= ch <= "\u303f" or "\uff00" <= ch <= "\uffef":
            return i
    return -1


def _cut_message(parsed: Parsed) -> tuple[str, str | None, int, bool] | None:
    """The text's last line, when it ends with an exception's message or is a bare message, as
    (message, exception type or None, line, quoted): where a title, or a paste that stopped short,
    cut it. `quoted`: the final message on a line of its own with the post's prose after it."""
    if not parsed.lines:
        return None
    last_no, last = parsed.lines[-1]
    final = parsed.final
    if final is not None:
        # An English message that runs on in Chinese ends where the Chinese begins: a blog quoting
        # "TypeError: cannot assign 'torch.cuda.FloatTensor' as parameter的报错信息" cut it there.
        cjk = _first_cjk(final.text)
        if cjk >= CUT_MIN_CHARS and final.text[:cjk].isascii():
            return final.text[:cjk].rstrip(), final.type, final.line_no, False
    if not last.strip():
        return None
    if final is not None and final.text.splitlines()[-1].strip() == last.strip():
        return _squeeze(final.text) if "\n" in final.text else final.text, final.type, final.line_no, False
    if final is not None and final.text and "\n" not in final.text.strip():
        # A post quotes the message's head on a line of its own and goes on in prose: the quote may
        # stop where the message goes on ("RuntimeError: Expected floating point type for target",
        # then the explanation). Read as cut at its line's end, if that is a word's end (a person
        # stops a quote after a word; a line cut mid-word with more text after it was not cut
        # there). A whole message ends outside every pattern's fixed words and reads as nothing.
        return final.text.strip(), final.type, final.line_no, True
    if parsed.exceptions:
        return None  # the last line is not the exception's: the text was not cut inside it
    return last.strip(), None, last_no, False


def _cut_inside(groups: Any, text: str) -> float:
    """How many characters of the pattern's fixed words, in order, the text holds before it ends
    inside the pattern (0 when it does not: a word missing midway, or all of them there)."""
    pos = 0
    held = 0
    for k, group in enumerate(groups):
        found = None
        for lit in group:
            i = text.find(lit, pos)
            if i >= 0 and (found is None or i < found[0]):
                found = (i, i + len(lit))
        if found is not None:
            pos = found[1]
            held += min(len(lit) for lit in group)
            continue
        tail = text[pos:].rstrip(" \t")[-CUT_WORDS_CHARS:]
        # The cut fell inside this group's words ("... to have s": the longest end of the text that
        # begins one of them), or in the variable part before them.
        need = max(1, CUT_MIN_CHARS - held)
        inside = max((_cut_word(tail, lit, need) for lit in group), default=0)
        if inside and inside < 3 and not tail[-inside:].isalnum():
            # A sentence's closing "." or quote begins ".utils.ffi" as well as any word: no word was cut there.
            inside = 0
        if inside:
            return held + inside
        # A variable part cut short is short, and a cut leaves no closing bracket, quote or full stop
        # at the end ("... (required by node)" is a whole message that lacks the pattern's words).
        return held if k and len(tail) <= CUT_TAIL_CHARS and not tail.endswith((")", "]", "}", "'", '"', ".")) else 0
    return 0


# From a word's start only: from inside one, \w+ would rescan the rest of a long word at every character.
_LAST_WORD = re.compile(r"(?<!\w)(\w+)\W*$")


def _ends_on_a_word_of(groups: Any, text: str) -> bool:
    """Whether the text's last word is a whole word of the pattern's fixed words ("... for target"
    in "... for target with class probabilities"), not the start of one ("... assert trig")."""
    m = _LAST_WORD.search(text)
    if m is None:
        return False
    word = m.group(1)
    for group in groups:
        for lit in group:
            for found in re.finditer(re.escape(word), lit):
                a, b = found.start(), found.end()
                if (a == 0 or not lit[a - 1].isalnum()) and (b == len(lit) or not (lit[b].isalnum() or lit[b] == "_")):
                    return True
    return False


def _cut_word(tail: str, word: str, need: int) -> int:
    """The length of the longest end of `tail` that begins `word`, if it is `need` long at least."""
    if len(tail) < need or len(word) < need or tail[-need:] not in word:
        return 0  # (what runs for almost every pattern: one substring test)
    i = tail.find(word[0], max(0, len(tail) - len(word)))
    while 0 <= i <= len(tail) - need:
        if word.startswith(tail[i:]):
            return len(tail) - i
        i = tail.find(word[0], i + 1)
    return 0


# The operating system's error strings (strerror) end a message whole: "OSError: libGL.so.1: cannot
# open shared object file: No such file or directory" was not cut inside "No such file or directory:
# 'ninja'", whose own words only begin with them. (A string: re compiles it, 0.4 ms, only for a text
# that reaches the cut reading.)
_OS_ERROR_END = (r"(?:No such file or directory|Permission denied|Cannot allocate memory|Connection refused"
                 r"|Connection reset by peer|Broken pipe|Input/output error|Too many open files"
                 r"|Resource temporarily unavailable|Device or resource busy|No space left on device"
                 r"|Address already in use|Operation not permitted|Is a directory|Not a directory"
                 r"|cannot open shared object file)[\s.:]*$")

# Per knowledge base: the patterns a cut message is read against, and their first words joined.
_CUT_PATTERNS: dict[int, tuple[Any, list[tuple[Head, Pattern, Any]], str]] = {}


def _with_cut_hits(parsed: Parsed, kb: KnowledgeBase, scored: list[tuple[Head, list[Hit], float]],
                   foreign_factor: float) -> list[tuple[Head, list[Hit], float]]:
    """A message cut short (by a title's length, a paste that stopped, a terminal's last line) is
    read from the fixed words it still holds. It names its failure only when those words belong
    to one entry alone; shared by several ("Error(s) in loading state_dict for Net:"), each is a
    possible cause."""
    cut = _cut_message(parsed)
    if cut is None:
        return scored
    text, kind, line_no, quoted = cut
    if re.search(_OS_ERROR_END, text):
        return scored
    if kind is None and len(text.split()) < 2:
        # One token with no exception before it is a line of code or a path that ends the paste
        # ("optimizer.zero_grad()"), not a message cut after its first words.
        return scored
    found: dict[str, tuple[Head, float]] = {}
    cached = _CUT_PATTERNS.get(id(kb.heads))
    if cached is None or cached[0] is not kb.heads:  # (the entry keeps its heads alive: no reused id)
        eligible = [(head, pattern, lits) for head in kb.heads.values()
                    for pattern, lits in zip(head.patterns, head.literals)
                    if pattern.scope == "exception" and pattern.weight >= TEMPLATE_MIN_WEIGHT and not pattern.frame
                    and not pattern.api_history and lits]
        cached = _CUT_PATTERNS[id(kb.heads)] = (kb.heads, eligible,
                                                "\0".join(lit for _, _, lits in eligible for lit in lits[0]))
    _, eligible, blob = cached
    # A cut inside a pattern's first words leaves the text's last CUT_MIN_CHARS characters inside
    # them; otherwise the first words are in the text. One substring test rules most patterns out.
    end = text.rstrip(" \t")[-CUT_MIN_CHARS:]
    ends_inside_first = len(end) == CUT_MIN_CHARS and end in blob
    for head, pattern, lits in eligible:
        if not ends_inside_first and not any(lit in text for lit in lits[0]):
            continue
        if pattern.exception_type and not (kind and re.search(pattern.exception_type, kind)):
            continue
        if _cut_inside(lits, text) >= CUT_MIN_CHARS and (not quoted or _ends_on_a_word_of(lits, text)):
            strength = TEMPLATE_WEIGHT * pattern.weight
            if head.id not in found or found[head.id][1] < strength:
                found[head.id] = (head, strength)
    if not found:
        return scored
    alone = len(found) == 1
    out = {h.id: (h, hits, c) for h, hits, c in scored}
    for head, strength in found.values():
        strength = (strength if alone else min(strength, UNTYPED_WEIGHT)) * foreign_factor
        hit = Hit("line", line_no, text.splitlines()[0][:SHOWN_CHARS], strength, {})
        if head.id not in out or out[head.id][2] < strength:
            out[head.id] = (head, [hit] + (out[head.id][1] if head.id in out else []), strength)
    return list(out.values())


# Another framework's error (TensorFlow, Paddle, Caffe, MXNet, JAX, MindSpore) can share words with a
# PyTorch failure (CUBLAS_STATUS_EXECUTION_FAILED, "Assertion failed"), but the causes and fixes in
# the knowledge base are PyTorch's: such a text gets possible causes, not answers.
FOREIGN_WEIGHT = 0.5
_FOREIGN = (r"(?:\btensorflow[\\/.]|\bpaddle[\\/.]|/paddle/|\bcaffe(?:::|[\\/])|\bmxnet[\\/.]|\bjax(?:lib)?[\\/.]"
            r"|\bmindspore[\\/.]|\bkeras[\\/.]|\bonnxruntime[\\/.]|\bInvalidArgumentError\b|\bpaddle\.fluid"
            # the frameworks' conventional import aliases in pasted code: `mx.nd.ones(..., ctx=mx.gpu(0))`,
            # `tf.keras.Model`, `tf.config.list_physical_devices`
            r"|\bmx\.(?:nd|gpu|cpu|sym|symbol|gluon|mod|context)\b"
            r"|\btf\.(?:keras|compat|config|distribute|Session|GradientTape|Variable)\b"
            # cuDNN or MATLAB programmed directly: their statuses are not a PyTorch call's
            r"|cuDNN (?:Backend )?Graph API|\bcudnnBackend[A-Z]\w*|\bMATLAB\b"
            # CUDA errors in the words of software that calls CUDA itself: TensorRT's error recorder and trtexec,
            # ONNX Runtime's CUDA_CALL ("CUDA failure 900: ..."), llama.cpp's ggml, a bare "[CUDA ERROR]:" prefix
            r"|\btrtexec\b|\bError Code \d+: Cuda Runtime\b|\bCUDA failure \d+:|\[CUDA ERROR\]|\bggml[-_]cuda\b"
            # ONNX Runtime's own words: its CUDNN_CALL ("CUDNN failure 1: CUDNN_STATUS_NOT_INITIALIZED ; GPU=0 ;"), a
            # kernel's failed status ("Non-zero status code returned while running Gather node"), its error tag and
            # its loggers' names (C++'s onnxruntime::, the Rust binding's ort::logging)
            r"|\bCUDNN failure \d+:|\bNon-zero status code returned while running \w+ node\b|\[ONNXRuntimeError\]"
            r"|\bonnxruntime::|\bort::logging\b"
            # Julia's CUDA.jl (its REPL prompt, its stack frames "@ CUDA ~/.julia/.../stream.jl:137") and Kaldi/Vosk's
            # CUDA matrix code (kaldi::KaldiFatalError): CUDA statuses from stacks that never pass through torch
            r"|\bjulia>|\.jl:\d+\b|\bkaldi::|\bKaldiFatalError\b"
            # a forum post's environment header names its framework and version
            # ("MindSpore版本: mindspore=2.6.0", "tensorflow==2.12.0", "PaddlePaddle version: 2.5")
            r"|(?i:\b(?:mindspore|tensorflow(?:-gpu)?|paddlepaddle(?:-gpu)?|mxnet|jaxlib|keras)"
            r"\s*(?:={1,2}|版本\s*[:：=]?|\s+version\s*[:：=]?)\s*v?\d+\.\d+))")
# Every match of _FOREIGN holds one of these words in some letter case (tests/test_kb_prefilter.py
# checks it against the regex's own literals): a text in ASCII without them needs no search, and the
# regex (a millisecond to compile) is compiled only for one that has.
_FOREIGN_WORDS = ("tensorflow", "paddle", "caffe", "mxnet", "mx.", "tf.", "jax", "mindspore", "keras", "onnxruntime",
                  "invalidargumenterror", "cudnnbackend", "graph api", "matlab", "trtexec", "cuda runtime", "cuda failure",
                  "[cuda error]", "ggml", "cudnn failure", "non-zero status code", "ort::logging", "julia>", ".jl:",
                  "kaldi")
# A driver-level failure (libcuda, the NVIDIA driver) is the same whichever framework met it.
_DRIVER_LEVEL = re.compile(r"libcuda|\bdriver\b", re.IGNORECASE)
# PyTorch/XLA's runtime lives under tensorflow/compiler/xla/xla_client: that path is PyTorch's too.
_TORCH = re.compile(r"\btorch[\\/._]|\bpytorch|\blibtorch|\bc10::|\bATen\b|\baten[\\/:]|xla_client|torch_xla",
                    re.IGNORECASE)


def other_framework(parsed: Parsed) -> bool:
    """Whether the text is another framework's error with no sign of PyTorch in it."""
    texts = [t for _, t in parsed.frame_lines] + [b.text for b in parsed.exceptions] + [t for _, t in parsed.lines]
    whole = "\n".join(texts)
    if whole.isascii():
        whole = whole.lower()
        if not any(w in whole for w in _FOREIGN_WORDS):
            return False
    foreign = torch = False
    for t in texts:
        foreign = foreign or bool(re.search(_FOREIGN, t))
        if _TORCH.search(t):
            torch = True
            break
    return foreign and not torch


# A refining entry needs at least this much evidence of its own to take a generic failure's place.
REFINE_MIN = 0.3


def _refine(scored: list[tuple[Head, list[Hit], float]]) -> list[tuple[Head, list[Hit], float]]:
    """A generic failure that a more precise entry explains (the entry's `refined_by`) yields
    the first place to it when that entry has evidence too."""
    confidence = {head.id: c for head, _, c in scored}
    lifted: dict[str, float] = {}
    lowered: dict[str, float] = {}
    for head, _, c in scored:
        if c < CONFIDENT:
            continue
        for other in head.refined_by:
            if confidence.get(other, 0.0) >= REFINE_MIN:
                lifted[other] = max(lifted.get(other, 0.0), c)
                lowered[head.id] = max(CONFIDENT, c - 0.01)  # second, still an answer
    if not lifted:
        return scored
    return [(h, hits, lowered.get(h.id, max(c, lifted.get(h.id, 0.0)))) for h, hits, c in scored]


def match_parsed(parsed: Parsed, kb: KnowledgeBase | None = None, min_confidence: float = 0.0) -> list[Match]:
    kb = kb or load()
    # Answers and possible causes ask for the same matches: they are computed once per text.
    cache = parsed.__dict__.setdefault("_matches", {})
    key = id(kb)
    if key not in cache:
        cache[key] = _match_all(parsed, kb)
    return [m for m in cache[key] if m.confidence >= min_confidence]


def _match_all(parsed: Parsed, kb: KnowledgeBase) -> list[Match]:
    exception_items = [(b.line_no, v) for b in _matched_blocks(parsed) for v in _unwrapped(b.text)]
    stacks = {
        "exception": _Haystack(exception_items),
        "line": _Haystack(parsed.lines),
        "log": _Haystack(parsed.log_lines),
        "frame": _Haystack(parsed.frame_lines),
    }
    foreign = other_framework(parsed)
    foreign_factor = FOREIGN_WEIGHT if foreign else 1.0
    scored = []
    silent = []
    for head in kb.heads.values():
        hits = _hits_for(head, parsed, stacks)
        if not hits:
            silent.append(head)
            continue
        scored.append((head, hits, _confidence(hits, foreign)))
    if not any(c >= CONFIDENT for _, _, c in scored):
        scored = _with_hyphen_hits(parsed, kb, scored, foreign)
    if not any(c >= CONFIDENT for _, _, c in scored):
        # Nothing matched as written: a message whose variable parts were written otherwise is
        # read from its fixed words, and only then (it never outranks a message matched whole).
        for head in silent:
            for pattern, lits in zip(head.patterns, head.literals):
                hit = None
                if pattern.scope == "exception":
                    hit = _template_hit(pattern, lits, stacks) or _folded_hit(pattern, lits, stacks)
                if hit is not None:
                    scored.append((head, [hit], hit.strength * foreign_factor))
                    break
    if not any(c >= CONFIDENT for _, _, c in scored):
        scored = _with_cut_hits(parsed, kb, scored, foreign_factor)
    scored = _refine(scored)
    matches: list[Match] = []
    for head, hits, confidence in scored:
        captures: dict[str, str] = {}
        for h in hits:
            for k, v in h.captures.items():
                captures.setdefault(k, v)
        evidence: list[Hit] = []
        for h in hits:
            if all((h.line, h.text) != (e.line, e.text) for e in evidence):
                evidence.append(h)
            if len(evidence) == 3:
                break
        # Only now is the entry's file read: explanations are needed for the answers alone.
        matches.append(Match(head.id, head.title, confidence, captures, evidence, kb.entry(head.id)))
    # Where the evidence sits ranks it (root cause > final error > log line > warning): where an answer is read
    # from an error, an answer read only from warnings goes below it, whatever their weights ("CUDA error: out
    # of memory" told in a sentence, a deprecation warning printed by the same run).
    confident = [m for m in matches if m.confidence >= CONFIDENT]
    warned = {m.id for m in confident if all(_WARNING_LINE.search(h.text) for h in m.evidence)}
    if not any(m.id not in warned and _read_from_error(m) for m in confident):
        warned = set()
    matches.sort(key=lambda m: (m.id in warned, -m.confidence, -m.evidence[0].line, m.id))
    return matches


_ERROR_WORDS = re.compile(r"Error\b|Exception\b|\berror\b|\bfailed\b|错误|报错", re.IGNORECASE)


def _read_from_error(m: Match) -> bool:
    return any(h.scope == "exception" or _ERROR_WORDS.search(h.text) for h in m.evidence)


def _confidence(hits: list[Hit], foreign: bool) -> float:
    """An entry's confidence from its hits (sorted here, strongest first): the best one, nudged up
    for each further line that agrees."""
    hits.sort(key=lambda h: (-h.strength, -h.line))
    best = hits[0]
    agreeing = len({(h.scope, h.text) for h in hits[1:] if h.strength >= CONFIDENT * 0.8})
    confidence = min(0.99, best.strength + AGREEMENT_BONUS * min(agreeing, 3))
    if best.strength < CONFIDENT:
        # Weak hits that agree stay weak: three prose mentions at 0.45 are not an answer.
        confidence = min(confidence, CONFIDENT - 0.01)
    if foreign and not _DRIVER_LEVEL.search(best.text):
        confidence *= FOREIGN_WEIGHT
    return confidence


# Two words joined by a hyphen where the message has a space: prose and titles write "a CUDA
# out-of-memory error", "Only one-element tensors can be converted ...", "non-contiguous input".
_HYPHEN_JOIN = re.compile(r"(?<=[A-Za-z])-(?=[A-Za-z])")
HYPHEN_CHARS = 256 << 10  # of the newest such lines: a long log must not be read twice over


def _with_hyphen_hits(parsed: Parsed, kb: KnowledgeBase, scored: list[tuple[Head, list[Hit], float]],
                      foreign: bool) -> list[tuple[Head, list[Hit], float]]:
    """When nothing matched as written: the lines whose words a hyphen joins, read with a space
    there, matched by every pattern of the line scopes (an exception pattern there counts as in any
    plain line). Only a match that needs the space counts (with a neutral mark in the hyphen's place
    there is none): a name written with hyphens ("torch-scatter", "nvidia-cudnn-cu12") is not two
    words, and a pattern that stops at its hyphen must not read it as a space. A hyphen is a
    spelling, not another message, so the hit keeps its strength; it only ever adds an entry or
    raises one that matched more weakly."""
    lines: list[tuple[int, str]] = []
    written: dict[int, tuple[str, str]] = {}  # line -> (as written, with a neutral mark for each hyphen)
    size = 0
    for line_no, text in reversed(parsed.lines):
        if "-" in text and _HYPHEN_JOIN.search(text):
            read = _HYPHEN_JOIN.sub(" ", text)
            lines.append((line_no, read))
            written[line_no] = (text, _HYPHEN_JOIN.sub("\u2010", text))
            size += len(text) + 1
            if size >= HYPHEN_CHARS:
                break
    if not lines:
        return scored
    lines.reverse()
    empty = _Haystack([])
    haystack = _Haystack(lines)
    stacks = {"exception": empty, "line": haystack, "log": empty, "frame": empty}
    out = {h.id: (h, hits, c) for h, hits, c in scored}
    for head in kb.heads.values():
        hits: list[Hit] = []
        for pattern, lits, more in _prefilters(head):
            if pattern.scope not in ("exception", "line") or not _may_hold(haystack, lits, more, pattern.ignore_case):
                continue
            rx = _compile(pattern, multiline=True)
            for hit in _hits_for(head._replace(patterns=(pattern,), literals=(lits,), prefilter=(more,)), parsed, stacks):
                if hit.scope != "line" or hit.line not in written:
                    continue
                text, neutral = written[hit.line]
                if not rx.search(neutral):
                    hits.append(hit._replace(text=text[:SHOWN_CHARS]))  # the line as the user wrote it
        if not hits:
            continue
        confidence = _confidence(hits, foreign)
        if head.id not in out or out[head.id][2] < confidence:
            out[head.id] = (head, hits + (out[head.id][1] if head.id in out else []), confidence)
    return list(out.values())


def explain(source: Any, kb: KnowledgeBase | None = None, *, include_weak: bool = False) -> list[Match]:
    """Knowledge-base matches for a traceback or log (str, bytes or a file), best first.

    Only confident matches are returned unless `include_weak` is set.
    """
    parsed = source if isinstance(source, Parsed) else parse(source)
    return match_parsed(parsed, kb, 0.0 if include_weak else CONFIDENT)


MAX_CANDIDATES = 3


class Possible(NamedTuple):
    """A cause worth a look when nothing is confident: a weak pattern hit, or an entry whose words
    the text shares. Never an answer."""

    id: str
    title: str
    score: float
    why: str
    kind: str  # "pattern" (a pattern matched weakly) or "words" (lexical similarity)

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "title": self.title, "score": round(self.score, 3), "kind": self.kind,
                "why": self.why}


def query_text(parsed: Parsed, limit: int = 20000) -> str:
    """What a text says, for retrieval: its exception messages first, then its other lines."""
    parts = [b.text for b in reversed(parsed.exceptions)]
    parts += [t for _, t in reversed(parsed.lines)]
    out, size = [], 0
    for part in parts:
        out.append(part)
        size += len(part) + 1
        if size >= limit:
            break
    return "\n".join(out)


# Where a weak pattern hit stood, as "possible causes" says it ("a line line" read badly).
_WHERE = {"exception": "an error line", "line": "a line", "log": "a log line", "frame": "a stack frame"}


def possible_causes(parsed: Parsed, answers: list[Match], kb: KnowledgeBase | None = None,
                    limit: int = MAX_CANDIDATES) -> list[Possible]:
    """Up to `limit` further causes to look at, ranked: weak pattern hits first (the text holds
    the entry's message, in a weak place), then entries the text resembles in words."""
    kb = kb or load()
    taken = {m.id for m in answers}
    out: list[Possible] = []
    for m in match_parsed(parsed, kb, 0.0):
        if m.id in taken or m.confidence >= CONFIDENT:
            continue
        hit = m.evidence[0]
        out.append(Possible(m.id, m.title, m.confidence, f"its pattern matched {_WHERE[hit.scope]} (line {hit.line})",
                            "pattern"))
        taken.add(m.id)
        if len(out) >= limit:
            return out
    query = query_text(parsed)
    if query.strip():
        for c in kb.retriever.rank(query, limit=limit + len(taken)):
            if c.id in taken:
                continue
            out.append(Possible(c.id, kb.heads[c.id].title, c.score,
                                "shares the words " + ", ".join(c.words[:5]), "words"))
            taken.add(c.id)
            if len(out) >= limit:
                break
    return out


_PLACEHOLDER = re.compile(r"\{(\w+)\}")


def happened(entry: Entry, captures: dict[str, str]) -> list[str]:
    """The entry's 'what happened' lines with the user's values; lines missing a value are left out."""
    out = []
    for line in entry.happened:
        names = _PLACEHOLDER.findall(line)
        if all(n in captures for n in names):
            out.append(_PLACEHOLDER.sub(lambda m: captures[m.group(1)], line))
    return out
