"""Undo what pasting does to an error message or a report, before anything parses it.

People do not paste clean terminal output. They paste from a GitHub issue (markdown bold around
the error, `> ` quote prefixes, ``` fences, `<details>` blocks), from a web page (HTML entities,
lines re-wrapped at the page width), from a terminal that hard-wrapped at 80 columns mid-word,
from a Chinese IME (full-width colons and brackets), from Jupyter (a `----> 12` traceback with
`Cell In[5], line 3` frames), from an app that lets `rich` draw its tracebacks in a box (typer,
Hugging Face and ComfyUI tools), from a JSON log field or a repr (the message as a string literal,
its line breaks written `\n`), or they write the error into a sentence ("When I run it I get
RuntimeError: ..."). Both `explain` and `env --facts` read such text; this module turns it back
into the lines a program printed, and keeps, for every line it returns, the number of the user's
line it came from, so evidence can still point into what the user pasted.

Only small texts (pastes) take the whole-text pass; a long log read from a file is a program's
own output and goes through the cheap per-line clean-up alone (see `clean_line`).
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections import Counter
from typing import Any, Callable, Iterator, NamedTuple

# Texts above this size are logs, not pastes: the whole-text pass (re-wrapping, splitting prose)
# is skipped for them.
PASTE_MAX_CHARS = 1 << 20


class _OnFirstUse:
    """A regex compiled the first time it is used. Most of those below undo one decoration
    (markdown, HTML, full-width punctuation, a re-wrapped paste) and run only behind a cheap test
    for it; compiling them all up front would cost every `explain` more than the clean-up does."""

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self._source = (pattern, flags)

    def __getattr__(self, name: str) -> Any:
        rx = re.compile(*self._source)
        for method in ("match", "search", "sub"):  # from now on plain attributes: no detour
            setattr(self, method, getattr(rx, method))
        return getattr(rx, name)


# Terminal colour and cursor codes (IPython colours its tracebacks, loggers their levels). A page
# that shows a coloured log often drops the ESC byte and leaves the rest: `[0;31mRuntimeError[0m`.
ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07]*\x07")
_ANSI_WITHOUT_ESC = _OnFirstUse(r"\[[0-9;]{0,15}m")

_HTML_ENTITY = _OnFirstUse(r"&(?:#\d{1,7}|#x[0-9a-fA-F]{1,6}|[A-Za-z]{2,8});")
# Only the tags pages and issue bodies wrap text in; `<module>`, `<lambda>`, `<locals>` and
# `<function f at 0x..>` are part of real messages and stay.
_HTML_TAG = _OnFirstUse(r"</?(?:details|summary|pre|code|p|div|span|br|b|i|em|strong|tt|kbd|blockquote|sup|sub)"
                       r"(?:\s[^<>]{0,200})?/?>", re.IGNORECASE)
_SUMMARY_BLOCK = _OnFirstUse(r"<summary>.*?</summary>", re.IGNORECASE)
_QUOTE = _OnFirstUse(r"^[ \t]{0,3}(?:>[ \t]?)+")
_FENCE = _OnFirstUse(r"^\s*(?:```|~~~)[\w+-]*\s*$")
_FENCE_EDGE = _OnFirstUse(r"^\s*```(?=\S)|(?<=\S)\s*```\s*$")
# **bold**, _**both**_ and ***both*** around a run of text (never `**kwargs`: the closing marker
# must follow a non-space and not be followed by a word character). `__x__` is left alone: it is
# far more often a dunder name (`__getitem__`) than emphasis.
_BOLD = _OnFirstUse(r"(?<![\w*])_?(\*\*\*?)(?=\S)(.+?)(?<=\S)\1_?(?![\w*])")
_CODE_SPAN = _OnFirstUse(r"(?<!`)`([^`\n]{1,2000})`(?!`)")
# GitHub turns a file name that looks like a domain into a link when an issue is saved: "[flash_attn_2_cuda.cpython-
# 39-x86_64-linux-gnu.so](http://flash_attn_2_cuda.cpython-39-x86_64-linux-gnu.so/)", "[setup.py](http://setup.py)".
_AUTOLINK = _OnFirstUse(r"\[([^\]\s]{1,300})\]\(https?://\1/?\)")
_CJK_ASCII_EDGE = _OnFirstUse(r"(?<=[A-Za-z0-9_)\]])(?=[\u4e00-\u9fff])|(?<=[\u4e00-\u9fff])(?=[A-Za-z0-9_(\[])")
# Also the typographic signs a web page or an editor puts where PyTorch printed ASCII: curly quotes,
# and the multiplication sign in shapes ("(128×256 and 32768×1)").
_FULLWIDTH = _OnFirstUse(r"[\uff01-\uff5e\u3000\u3001\u3002\u201c\u201d\u2018\u2019\u00d7]")
_FULLWIDTH_MAP = {"\u3000": " ", "\u3001": ", ", "\u3002": ". ", "\u201c": '"', "\u201d": '"', "\u2018": "'",
                  "\u2019": "'", "\u00d7": "x"}

# An exception named inside a sentence: "... I got an error: RuntimeError: CUDA out of memory".
# The name must look like a Python exception class and be followed by a colon.
_INLINE_EXCEPTION = re.compile(
    r"(?<![A-Za-z0-9_.])(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception|Interrupt|Failure|Failed)(?::|\s*:\s)"
)
# What a logger or launcher puts before a message: not prose, so no reason to split the line.
_LOG_PREFIX = _OnFirstUse(
    r"^\s*(?:(?:\[[^\]]{1,60}\]|\([^)]{1,100}\)|[IWEF]\d{4} [^\]]{1,160}\]|\d{4}-\d\d-\d\d[^A-Za-z]{0,24}"
    r"|\d\d-\d\d \d\d:\d\d:\d\d\S*|(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|FATAL)\b|[\w.]{1,60}\s+-\s+)[\s:|\-]*)+$"
)
_EXC_START = re.compile(
    r"^\s*(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:Error|Exception|Warning|Interrupt|Exit|Failure|Failed|Fault)(?::|$)"
)

# Jupyter / IPython traceback shapes, rewritten to the plain interpreter's.
_IPY_HEADER = re.compile(r"^\s*(?:[A-Za-z_][\w.]*)\s{2,}Traceback \(most recent call last\)\s*$")
_IPY8_FRAME = re.compile(r"^\s*File (?P<file>[^\s\"][^\"]*?\.pyx?):(?P<line>\d+), in (?P<func>[\w<>.]+)")
_IPY_CELL = re.compile(r"^\s*(?:Cell|Input) In\s*\[(?P<cell>\d*)\],? line (?P<line>\d+)")
# Older IPython: "<ipython-input-3-ab12> in <module>", "/path/x.py in forward(self, x)"; Colab links the
# file: "[<ipython-input-14-58747f>](https://localhost:8080/#) in <cell line: 48>()".
_IPY_OLD_FRAME = re.compile(r"^(?:\[(?P<linked>[^\]\s]+)\]\([^)\s]*\)|(?P<file>\S+\.pyx?|<ipython-input-[\w-]+>))"
                            r" in (?P<func><cell line: \d+>|[\w<>.]+)(?:\(|\s*$)")
_IPY_SOURCE = re.compile(r"^\s*-*>?\s*\d+\s")
# pytest's report of a failed test: the exception's lines prefixed `E   ` (aligned with the source
# in the long format, three spaces with --tb=short), frames as `path.py:12: in func`.
_PYTEST_ERROR = _OnFirstUse(r"^E {3,}")
_PYTEST_FRAME = _OnFirstUse(r"^(?P<file>\S+\.pyx?):(?P<line>\d+): in (?P<func>[\w<>.]+)\s*$")
_LOGURU_CAUGHT = _OnFirstUse(r'^> File "[^"]+", line \d+, in ')
# A framework's banner in front of the message (ComfyUI).
_BANNER = _OnFirstUse(r"^\s*!!! Exception during processing !!!\s*")

# `rich` tracebacks (rich.traceback, typer's pretty exceptions): frames inside a rounded box,
#   ╭──── Traceback (most recent call last) ────╮
#   │ /path/train.py:12 in main                 │     (`in main:12` when the file is not on disk)
#   │ ❱ 12 │   loss = model(x)                   │     (the current line; its neighbours are context)
#   │ ╭── locals ──╮                             │
#   ╰───────────────────────────────────────────╯
#   RuntimeError: ...
# Box-drawing characters of the rounded, square and heavy boxes rich draws (ASCII-only terminals
# get another box, too rare in pastes to guess at).
_BOX_SIDE = "│┃"
_BOX_TOP = "╭┌┏"
_BOX_BOTTOM = "╰└┗"
_BOX_ROW = _OnFirstUse(r"^(?P<prefix>\s*(?:\[(?:rank|default)\d+\]:\s?)?)(?P<edge>[│┃╭┌┏╰└┗])")
_BOX_FULL_ROW = _OnFirstUse(r"\S ?[│┃]\s*$")
_BOX_RIGHT = _OnFirstUse(r"\s*[│┃╮┐┓╯┘┛]\s*$")
_RICH_SOURCE = _OnFirstUse(r"^\s*(?P<now>[❱>→]\s*)?\d+(?: |$)(?P<code>.*)$")
_RICH_GUIDES = _OnFirstUse(r"^(?:[│┃] {0,3})+")
_RICH_TITLE = _OnFirstUse(r"^(?P<file>\S.*?):(?P<line>\d+) in (?P<func>[\w<>.\[\]-]+)$")
_RICH_TITLE_NO_FILE = _OnFirstUse(r"^in (?P<func>[\w<>.\[\]-]+):(?P<line>\d+)$")
_RICH_HIDDEN = _OnFirstUse(r"^\.\.\. \d+ frames? hidden \.\.\.$")
# Locals drawn beside the code (a wide terminal): the code column ends where the locals panel starts.
_RICH_BESIDE = _OnFirstUse(r"\s+[│┃╭┌┏╰└┗][─━ ].*$")

# A message printed as a string literal (a JSON log field, a Python repr): its line breaks and tabs
# are the two characters `\n` / `\t`, other scripts `\uXXXX`. Only a line whose every backslash
# starts an escape is read that way, and never one with a drive path (`C:\new\test.py`): a Windows
# path's backslashes are followed by any letter, and a literal's by a few.
_ESCAPE = _OnFirstUse(r"\\(?:u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|.)")
_ESCAPED_BREAK = _OnFirstUse(r"\\(?:[nt'\"]|u[0-9a-fA-F]{4})")
_SINGLE_BACKSLASH_DRIVE = _OnFirstUse(r"(?<![A-Za-z0-9_])[A-Za-z]:\\(?!\\)")
# An exception's repr: its type, then its message as a string literal in either quotes.
_EXC_REPR = _OnFirstUse(r"(?<![\w.])(?P<type>(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception|Interrupt|Failure))"
                        r"""\((?:'(?P<single>(?:[^'\\\n]|\\.)*)'|"(?P<double>(?:[^"\\\n]|\\.)*)")\)""")
_REPR_CALL = _OnFirstUse(r"(?:Error|Exception|Interrupt|Failure)\(")
# A notebook's JSON (.ipynb): each line of an error's traceback is a string in a list, its colour
# codes and line breaks escaped.
_JSON_PUNCTUATION = frozenset(("[", "]", "],", "{", "}", "},"))
_JSON_STRING_ITEM = _OnFirstUse(r'^\s*("(?:[^"\\]|\\.)*")\s*,?\s*$')
_ESCAPES = {"n": "\n", "t": "\t", "r": "", '"': '"', "'": "'", "\\": "\\", "/": "/"}

_STRUCTURE = re.compile(
    r"^(?:\s|Traceback \(most recent|During handling|The above exception|frame #\d|Exception raised from"
    r"|\[[A-Za-z][\w .:-]{0,40}\]|\[[A-Z]\w* |\d{4}-\d\d-\d\d|\[\d{4}-|[IWEF]\d{4} |>>>|\$ |[-=_*#]{3,}"
    r"|(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL)\b|NCCL |Thread 0x|Current thread|Fatal Python)"
)


class Cleaned(NamedTuple):  # a named tuple: every `explain` defines it, and a dataclass costs more
    lines: list[str]
    origin: list[int]  # 1-based line number in the user's text of each returned line

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    def original_line(self, number: int) -> int:
        """The user's line number for a 1-based line number of the cleaned text."""
        if 1 <= number <= len(self.origin):
            return self.origin[number - 1]
        return number


_WEB_ESCAPED = _OnFirstUse(r"&(?:gt|lt|quot|amp|#0*39|#x0*27);")


def report_text(text: str) -> str:
    """A pasted report with the decoration of the whole paste undone, before its lines are read:
    a page's HTML escaping (which also hides the quote markers, `&gt; PyTorch version: ...`), its
    non-breaking spaces, line breaks a web page or a Windows console doubled (every line followed
    by a blank one), and rows a terminal cut at one column. Readers of a report see line starts and
    runs of lines, which these break; per-line decoration is `clean_line`'s. The cut detection is
    the one `clean` applies to an error (`_wrap_width`, `_joins`), hard cuts only."""
    if "&" in text and _WEB_ESCAPED.search(text):
        from html import unescape  # its entity table is large: imported when an entity is there

        text = unescape(text)
    if "\u00a0" in text:
        text = text.replace("\u00a0", " ")
    return _rejoined_terminal_cuts(_single_spaced(text))


# A row of a table aligned in columns (pip list, conda list): the start of a line, not the rest of one.
_TABLE_ROW = _OnFirstUse(r"^\S+ {2,}\S")


def _rejoined_terminal_cuts(text: str) -> str:
    """The text with the lines a terminal cut at one fixed column joined again (a Windows console
    copies its window's rows). Only a hard cut: a page's re-flow at spaces is not told apart from a
    report's own lines of about the same length, and reports are pasted in code blocks, which
    pages do not re-flow."""
    raw = [line.rstrip() for line in text.split("\n")]
    # A quoted paste was cut before it was quoted: the rows are what follows each "> ".
    quotes = [_QUOTE.match(line).group(0) if _is_quoted(line) else "" for line in raw]
    lines = [line[len(quote):] for line, quote in zip(raw, quotes)]
    # A table drawn in characters (nvidia-smi's, 79 wide) has every row as wide as the next: no cut.
    widths = [0 if line[:1] in "|+" and line[-1:] in "|+" else len(line) for line in lines]
    wrap = _wrap_width(lines, widths) if len(lines) > 1 else None
    if wrap is None or not wrap[1]:
        return text
    width = wrap[0]
    # A table padded to its columns (conda list) has rows as wide as each other, ending in the same
    # column's value ("conda-forge"); a terminal cuts anywhere.
    ends = Counter(line.rsplit(None, 1)[-1] for line, n in zip(lines, widths) if n == width)
    if ends and max(ends.values()) >= max(3, 0.6 * sum(ends.values())):
        return text
    out: list[str] = []
    for i, line in enumerate(lines):
        prev = lines[i - 1] if i else ""
        # A sentence that ends where the next begins (". The minimum ...") is two lines that happen to
        # be as wide as a cut one, not a cut.
        joinable = (out and widths[i - 1] and not _TABLE_ROW.match(line)
                    and not (prev.endswith((".", ":", ";", "!", "?")) and line[:1].isupper()))
        sep = _joins(prev, line, width, True) if joinable else None
        if sep is None:
            out.append(raw[i])
        else:
            out[-1] += sep + line
    return "\n".join(out)


def _single_spaced(text: str) -> str:
    """The text without the blank line a doubled paste put after every line. In a doubled paste no
    two filled lines are next to each other and every gap is even (a blank line of the original is
    three; it stays one); a report as printed has runs of filled lines."""
    lines = text.split("\n")
    filled = [i for i, line in enumerate(lines) if line.strip()]
    gaps = [b - a for a, b in zip(filled, filled[1:])]
    if len(filled) < 4 or any(g % 2 for g in gaps) or sum(g == 2 for g in gaps) * 2 < len(gaps):
        return text
    out: list[str] = []
    blank = 0
    for line in lines:
        if not line.strip():
            blank += 1
            continue
        if blank >= 3 and out:
            out.append("")
        out.append(line)
        blank = 0
    return "\n".join(out)


def clean_line(line: str) -> str:
    """The per-line clean-up that is cheap enough for any log: colour codes, fences, bold,
    code spans, HTML entities and tags, full-width punctuation."""
    if not line:
        return line
    if "\x1b" in line:
        line = ANSI.sub("", line)
    if "[0m" in line:
        # Only a line that resets a colour: a bare `[1m` alone is as likely an index.
        line = _ANSI_WITHOUT_ESC.sub("", line)
    if "`" in line:
        if _FENCE.match(line):
            return ""
        line = _FENCE_EDGE.sub("", line)
        if "`" in line:
            # Only a span that holds a whole error is decoration: PyTorch's own messages quote
            # names in backticks ("when calling `cublasGemmEx(...)`") and must stay as they are.
            line = _CODE_SPAN.sub(_unwrap_error_span, line)
    if "](http" in line:
        line = _AUTOLINK.sub(r"\1", line)
    if "**" in line:
        line = _BOLD.sub(r"\2", line)
    if "&" in line and _HTML_ENTITY.search(line):
        from html import unescape  # its entity table is large: imported when an entity is there

        line = unescape(line)
    if "<" in line:
        if "<summary" in line.lower():
            line = _SUMMARY_BLOCK.sub("", line)
        line = _HTML_TAG.sub("", line)
    if not line.isascii():
        if _FULLWIDTH.search(line):
            line = _FULLWIDTH.sub(_fullwidth, line)
        line = line.replace("\u00a0", " ").replace("\u200b", "")
        if _CJK_ASCII_EDGE.search(line):
            # "输出:False怎么回事": Chinese characters are word characters to a regex, so a
            # pattern's \bFalse\b could not end there. A space where the scripts meet.
            line = _CJK_ASCII_EDGE.sub(" ", line)
    if "!!!" in line:
        line = _BANNER.sub("", line)
    return line


def _unwrap_error_span(m: re.Match[str]) -> str:
    inner = m.group(1)
    if m.group(0) == m.string.strip():
        return inner
    # An error quoted in a sentence ends where the span ends: it gets a line of its own.
    return "\n" + inner + "\n" if _EXC_START.match(inner) else m.group(0)


def _fullwidth(m: re.Match[str]) -> str:
    ch = m.group(0)
    mapped = _FULLWIDTH_MAP.get(ch)
    if mapped is not None:
        return mapped
    out = unicodedata.normalize("NFKC", ch)
    return out + " " if out in ":,;!?" else out


def _is_quoted(line: str) -> bool:
    """A markdown quote line (`> text`, `>> text`), not a Python prompt or a `>>` in a message."""
    head = line.lstrip(" \t")
    return head.startswith(">") and not head.startswith(">>>") and len(line) - len(head) <= 3


def _ipython(line: str) -> str | None:
    """The plain-interpreter form of an IPython/Jupyter (or pytest, loguru) traceback line, or None."""
    if "Traceback" in line and _IPY_HEADER.match(line):
        # The header keeps the exception's class: the parser reads it when the final line was cut.
        return " ".join(line.split(None, 1)[:1]) + "  Traceback (most recent call last)"
    m = _IPY8_FRAME.match(line)
    if m:
        return f'  File "{m["file"]}", line {m["line"]}, in {m["func"]}'
    m = _IPY_CELL.match(line)
    if m:
        return f'  File "<cell {m["cell"]}>", line {m["line"]}, in <module>'
    m = _IPY_OLD_FRAME.match(line)
    if m:
        return f'  File "{m["file"] or m["linked"]}", line 0, in {m["func"]}'
    if line.startswith('> File "') and _LOGURU_CAUGHT.match(line):
        return "  " + line[2:]  # loguru marks the frame where the exception was caught
    if ": in " in line:
        m = _PYTEST_FRAME.match(line)
        if m:
            return f'  File "{m["file"]}", line {m["line"]}, in {m["func"]}'
    return None


def _split_inline_exception(line: str) -> list[str]:
    """A sentence that contains an exception line is split before the exception's name, so the
    parser sees the exception at the start of a line ("I get an error (RuntimeError: ...)",
    "报错：“ImportError: DLL load failed”"). An indented line is source code under a frame and
    stays whole (`except RuntimeError:`), unless the name follows an open call or a colon, which
    no source line has: there a paste ran the exception line onto a wrapped call
    (`raise RuntimeError('...'.format( RuntimeError: Error(s) in ...`), or indented prose ends in
    one (`    I got this during training: RuntimeError: ...`)."""
    if _EXC_START.match(line):
        return [line]
    m = _INLINE_EXCEPTION.search(line)
    if m is None or m.start() == 0:
        return [line]
    head = line[: m.start()].rstrip()
    if not head or _LOG_PREFIX.match(head):
        return [line]  # a quoted name or a logger's prefix: not prose
    if line[: m.start()].startswith((" ", "\t")) and not head.endswith(("(", ":")):
        return [line]  # source code under a frame
    return [head, line[m.start():]]


def _wrap_width(lines: list[str], widths: list[int]) -> tuple[int, bool] | None:
    """The column a paste was wrapped at, and whether it was cut mid-word (hard) or at spaces
    (soft); None when the text shows no sign of re-wrapping. `widths`: each line's width as it was
    pasted (the clean-up changes it: `。` becomes `. `), -1 for a piece that did not end a line."""
    lengths = [n for n in widths if n >= 50]
    if len(lengths) < 2:
        return None
    counts = Counter(lengths)
    width, same = counts.most_common(1)[0]
    # A terminal cuts every full line at exactly the same column; a page re-flowing words leaves
    # lines of varying length just under it, each followed by the rest of its sentence. (W-1 is a
    # terminal cut at a space, stripped.)
    just_under = sum(
        1 for i, x in enumerate(lines[:-1])
        if width - 12 <= widths[i] < width - 1 and lines[i + 1] and not _STRUCTURE.match(lines[i + 1])
    )
    if same >= 2 and 60 <= width <= 240 and same >= 0.25 * len(lengths) and just_under <= same // 3:
        return width, True
    widest = max(lengths)
    if widest > 160:
        return None
    near = sum(1 for n in lengths if n >= widest - 20)
    if widest >= 50 and near >= 2:
        return widest, False
    return None


def _cut_between_words(lines: list[str], widths: list[int], width: int, vocabulary: frozenset[str]) -> bool:
    """Whether the few lines that looked cut at one column are only a page's re-flow that happened
    to leave them equally long: a cut falls between two words we know, and none inside one. (A
    terminal's cut at a fixed column lands inside a word most of the time.)"""
    edges = [i for i, n in enumerate(widths[:-1]) if n == width]
    if not edges or len(edges) > 3:
        return False
    between = False
    for i in edges:
        left = _EDGE_WORD_END.search(lines[i])
        right = _EDGE_WORD_START.match(lines[i + 1])
        if not left or not right:
            continue
        a, b = left.group(0).lower(), right.group(0).lower()
        whole = (a + b) in vocabulary
        if whole and not (a in vocabulary and b in vocabulary):
            return False  # "allo" + "cated": cut inside a word
        between = between or (a in vocabulary and b in vocabulary and not whole)
    return between


_EDGE_WORD_END = _OnFirstUse(r"[A-Za-z0-9_]+$")
_EDGE_WORD_START = _OnFirstUse(r"^[A-Za-z0-9_]+")


def _joins(prev: str, nxt: str, width: int, hard: bool, vocabulary: frozenset[str] | None = None,
           prev_width: int | None = None) -> str | None:
    """The separator to join `nxt` onto `prev` with when the paste wrapped `prev` there.
    `prev_width`: how wide `prev` was as pasted (its length unless the clean-up changed it)."""
    if not nxt or not prev:
        return None
    pw = len(prev) if prev_width is None else prev_width
    if nxt[0] == " " and nxt[1:2] not in (" ", "\t", "") and (pw == width or not hard) \
            and not _STRUCTURE.match(nxt[1:]) and not _EXC_START.match(nxt[1:]):
        return ""  # the cut fell just before a space, which the next line kept
    if _STRUCTURE.match(nxt) or _EXC_START.match(nxt) or _ipython(nxt) is not None:
        return None
    if prev.lstrip().startswith("Traceback") or "Traceback (most recent call last)" in prev:
        return None
    if prev.lstrip().startswith('File "'):
        # A frame line a terminal cut inside its path goes on in a line that is not indented; the
        # line under a whole frame is its source, indented.
        if not hard or nxt[0].isspace():
            return None
        return "" if pw == width else " " if pw == width - 1 else None
    if hard:
        if pw == width - 1 and not prev.endswith(" "):
            return " "  # the cut fell on a space, which the paste stripped
        if pw != width:
            return None
    else:
        first = nxt.split(" ", 1)[0]
        if not (pw + 1 + len(first) > width and pw >= width - 25):
            return None
    # Mid-word or between words? Where both halves and their union are words we know, the
    # vocabulary decides; otherwise the layout does (a terminal cuts anywhere, a page at spaces).
    if vocabulary:
        left = _EDGE_WORD_END.search(prev)
        right = _EDGE_WORD_START.match(nxt)
        if left and right:
            a, b = left.group(0).lower(), right.group(0).lower()
            whole = (a + b) in vocabulary
            if whole and not (a in vocabulary and b in vocabulary):
                return ""
            if a in vocabulary and b in vocabulary and not whole:
                return " "
    return "" if hard else " "


def _unescaped(line: str) -> str | None:
    """The text of a message written as a string literal (`...:\\n\\tMissing key(s)...`), or None
    when the line is not one. A JSON log record gives the text of its fields, each on lines of
    its own (a level or a logger name, one word, is left out)."""
    head = line.strip()
    if head.startswith("{") and head.endswith("}") and '":' in head:
        try:
            record = json.loads(head)
        except (ValueError, RecursionError):  # not JSON, or nested past what the parser recurses into
            record = None
        if isinstance(record, dict):
            texts = [v for v in record.values() if isinstance(v, str) and (" " in v.strip() or "\n" in v)]
            if texts:
                return "\n".join(_literal_inside(text) for text in texts)
    if "\\" not in line or not _ESCAPED_BREAK.search(line) or _SINGLE_BACKSLASH_DRIVE.search(line):
        return None
    if _REPR_CALL.search(line) and _exception_repr(line) != [line]:
        return None  # an exception's repr: its message is read with its type (_exception_repr)
    if len(head) > 1 and head[0] == head[-1] and head[0] in "'\"":
        line = head[1:-1]  # a repr printed whole: its quotes are not part of the text
    return _decoded_escapes(line)


def _literal_inside(text: str) -> str:
    """A JSON field's text, or the text of the Python string literal it holds: a logger that wrote
    `repr(text)` into a JSON record escaped the text twice (`'Traceback ...\\\\n  File ...'`)."""
    if "\n" in text or len(text) < 2 or text[0] != text[-1] or text[0] not in "'\"" \
            or not _ESCAPED_BREAK.search(text):
        return text
    decoded = _decoded_escapes(text[1:-1])
    return text if decoded is None else decoded


def _decoded_escapes(line: str) -> str | None:
    """`line` with its backslash escapes read, or None where a backslash starts no escape."""
    out = []
    last = 0
    for m in _ESCAPE.finditer(line):
        code = m.group(0)[1:]
        if code in _ESCAPES:
            text = _ESCAPES[code]
        elif code[0] in "ux" and len(code) > 1:
            text = chr(int(code[1:], 16))
            if 0xD800 <= ord(text) <= 0xDFFF:
                text = "\ufffd"  # half of an emoji's surrogate pair: nothing a pattern reads
        else:
            return None  # `\d`, `\U`: a backslash that is not an escape, so not a literal
        out.append(line[last:m.start()])
        out.append(text)
        last = m.end()
    out.append(line[last:])
    return "".join(out)


# An exception's class and message as `print(type(e), e)`-style summaries give them (torch.onnx's "Exception
# summary", loggers): "<class 'torch.fx...GuardOnDataDependentSymNode'>: Could not guard on ...".
_EXC_CLASS = _OnFirstUse(r"^<class '(?P<type>(?:[A-Za-z_]\w*\.)*[A-Z]\w*)'>:\s(?P<message>\S.*)$")


def _exception_class_line(line: str) -> str:
    """Such a line as the interpreter prints the exception: "Type: message"."""
    m = _EXC_CLASS.match(line.strip())
    return f"{m['type']}: {m['message']}" if m else line


def _exception_repr(line: str) -> list[str]:
    """A line that gives an exception as its repr (`RuntimeError('CUDA out of memory...')`: Optuna's
    "failed because of the following error: ...", a list of errors, `print(repr(e))`), with the
    exception as the interpreter prints it on a line of its own. Code that builds one
    (`raise RuntimeError("...")`, `err = ValueError("...")`, indented source) stays."""
    m = _EXC_REPR.search(line)
    if m is None or line[:1] in " \t":
        return [line]
    head, tail = line[: m.start()].rstrip(), line[m.end():].strip()
    # After a label (`error: `, `[`, `ERROR - `, logfmt's `error=`), not after code's ` = ` or `raise `.
    if head and head[-1] not in ":[,-|>" and not (head[-1] == "=" and head[-2:-1].strip()):
        return [line]
    message = _decoded_escapes(m["single"] if m["single"] is not None else m["double"])
    if message is None:
        return [line]
    text = f"{m['type']}: {message}" if message else m["type"]
    return [x for x in (head, *text.split("\n"), tail.lstrip(".]),") and tail) if x]


def _has_rich_box(lines: list[str]) -> bool:
    """Whether the text holds a rich traceback: its box's title, or (a paste that starts inside the
    box) box rows with a marked source line or a frame title. A table rich drew is not one."""
    sides = 0
    traceback_row = False
    for line in lines:
        m = _BOX_ROW.match(line)
        if m is None:
            continue
        if m["edge"] in _BOX_TOP and "Traceback" in line:
            return True
        if m["edge"] in _BOX_SIDE:
            sides += 1
            inner = _BOX_RIGHT.sub("", line[m.end():]).strip()
            traceback_row = traceback_row or inner.startswith("❱") or bool(_RICH_TITLE.match(inner))
        if sides >= 3 and traceback_row:
            return True
    return False


def _unboxed(items: list[tuple[int, str, int]]) -> list[tuple[int, str, int]]:
    """A rich traceback as the plain interpreter prints it: the box's title becomes the
    `Traceback` header, each frame title a `File` line with the current source line under it;
    context lines, locals panels and borders go. (Rebuilt lines were never wrapped by the paste:
    their width is their own.)"""
    out: list[tuple[int, str, int]] = []
    nested = 0  # inside a locals panel (or another box within the traceback's box)
    # A frame title rich wrapped over several rows: at a space, or, where a path is longer than the
    # box, folded mid-word (the row is then full up to the border).
    title: list[tuple[int, str, str, bool]] = []

    def flush_title() -> None:
        if not title:
            return
        joined = ""
        folded = False
        for _, _, piece, full in title:
            joined += ("" if folded else " ") + piece if joined else piece
            folded = full
        number, prefix = title[0][0], title[0][1]
        m = _RICH_TITLE.match(joined) or _RICH_TITLE_NO_FILE.match(joined)
        if m:
            file = m.groupdict().get("file") or "<unknown>"
            frame = f'{prefix}  File "{file}", line {m["line"]}, in {m["func"]}'
            out.append((number, frame, len(frame)))
        else:
            out.extend((n, p + piece, len(p + piece)) for n, p, piece, _ in title)
        title.clear()

    for number, line, width in items:
        m = _BOX_ROW.match(line)
        if m is None:
            flush_title()
            nested = 0
            out.append((number, line, width))
            continue
        prefix, edge = m["prefix"], m["edge"]
        if edge in _BOX_TOP:
            flush_title()
            if "Traceback" in line:
                header = prefix + "Traceback (most recent call last):"
                out.append((number, header, len(header)))
            continue
        if edge in _BOX_BOTTOM:
            flush_title()
            continue
        inner = _BOX_RIGHT.sub("", line[m.end():]).strip()
        head = inner[:1]
        if head and head in _BOX_TOP:
            nested += 1
            continue
        if nested:
            if head and head in _BOX_BOTTOM:
                nested -= 1
            continue
        if not inner or _RICH_HIDDEN.match(inner):
            flush_title()
            continue
        src = _RICH_SOURCE.match(inner)
        if src is not None and not title:
            if src["now"]:
                code = _RICH_BESIDE.sub("", _RICH_GUIDES.sub("", src["code"].lstrip(" "))).strip()
                if code:
                    out.append((number, prefix + "    " + code, len(prefix) + 4 + len(code)))
            continue
        if len(title) >= 8:
            flush_title()  # no frame title is that long: rows of something else in the box
        title.append((number, prefix, inner, bool(_BOX_FULL_ROW.search(line))))
    flush_title()
    return out


# What launchers, loggers and log collectors put before every line: `worker-1: ` (pdsh, DeepSpeed's
# multi-node runner), `[1,0]<stderr>:` (mpirun --tag-output), `(pid=123) ` / `(RayTrainWorker
# pid=1, ip=..) ` (Ray), `3: ` (srun -l), `app-1  | ` (docker compose), `Nov 25 10:11:12 host
# python3[123]: ` (journald), `2024-05-01 12:00:00.123 | ERROR | mod:fn:12 - ` (loguru), `   12\t`
# (cat -n) or `12 | ` (an editor's gutter). Rather than a list of every launcher's format, the
# prefix is read from the paste itself: the same text up to a separator, numbers aside, before most
# of its lines. A prefix ends at one of these. (A colon followed by a digit is inside a time, not
# after a prefix; a UTC time ends in `Z `.)
_PREFIX_END = _OnFirstUse(r"[:|\])>](?=[^\s\d]| )|\t| -(?= )|(?<=\dZ)(?= )")
_PREFIX_NUMBERS = _OnFirstUse(r"[ \t]*\d+")  # pids, ranks, times, line numbers (right-aligned)
# Prefixes that are part of what a pattern reads, or that parse reads itself: per-rank prefixes
# (the rank of each error), c10 frames, warnings' `file.py:12: `, torch's own loggers, JSON records.
_PREFIX_KEPT = _OnFirstUse(r'^\s*\[(?:rank|default)\d+\]|^\s*\[[A-Z] |frame #|Error|Exception|Warning|Traceback'
                           r'|File |NCCL|torch|\.(?:py|cpp|cc|cu|h):\d+:|>>>|["{]')
_PREFIX_SHARE = 0.8  # of the non-blank lines, and 3 at least
_PREFIX_SCAN = 120  # a prefix ends within this many characters
_PREFIX_ENDS = 8  # and at one of the first this-many separators (loguru's has 4): a paste of 1 MiB costs little


def _line_prefixes(line: str) -> Iterator[tuple[str, int]]:
    """Each way to read a prefix at the start of `line`: (its form with numbers folded, its end)."""
    for _, m in zip(range(_PREFIX_ENDS), _PREFIX_END.finditer(line, 0, _PREFIX_SCAN)):
        yield _PREFIX_NUMBERS.sub("0", line[: m.end()]), m.end()


def _without_line_prefix(lines: list[str]) -> list[str]:
    """The lines without the prefix a launcher or logger put before most of them (see
    _PREFIX_END). Lines without it (a sentence around the paste) stay as they are."""
    counts: Counter[str] = Counter()
    nonblank = 0
    for line in lines:
        if line.strip():
            nonblank += 1
            counts.update({form for form, _ in _line_prefixes(line)})
    need = max(3, _PREFIX_SHARE * nonblank)
    # A launcher's prefix numbers something (a pid, a rank, a time, a host, a line); words alone
    # before every line (`CUDA SETUP: `, `INFO:root:`) are part of the messages.
    shared = [form for form, n in counts.items() if n >= need and "0" in form and len(form.replace(" ", "")) >= 2]
    if not shared:
        return lines
    prefix = max(shared, key=len)  # the whole prefix; a shorter one would cut it in the middle
    if _PREFIX_KEPT.search(prefix):
        return lines
    ends: list[int | None] = []
    for line in lines:
        ends.append(next((end for form, end in _line_prefixes(line) if form == prefix), None))
    # The space after the separator belongs to the prefix when every line has one (`3: ` before
    # `  File`); mpirun writes `[1,0]<stderr>:Traceback` and `[1,0]<stderr>:  File`.
    spaced = all(line[end:end + 1] == " " for line, end in zip(lines, ends) if end is not None)
    return [line if end is None else line[end + spaced:] for line, end in zip(lines, ends)]


_PADDING = " " * 12
_PADDING_RUN = re.compile(r" {12,}")
_BOX_CHARS = re.compile("[\u2500-\u257f]")  # a box drawn by rich pads inside its frame: unboxed later


def clean(text: str, vocabulary: "frozenset[str] | Callable[[], frozenset[str]] | None" = None) -> Cleaned:
    """The lines a program printed, from a pasted text. `vocabulary` (lower-case words) helps
    tell a line cut mid-word from one cut between words."""
    raw = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    lines: list[str] = []
    origin: list[int] = []
    quoted = [_is_quoted(x) for x in raw]
    widths: list[int] = []
    # (user's line number, text, its width as pasted): a terminal or a page wrapped the text as it
    # was shown, before the clean-up changed any lengths.
    items: list[tuple[int, str, int]] = []
    notebook = '"traceback":' in text or '"output_type":' in text
    unquoted: list[str] = []
    for number, line in enumerate(raw, 1):
        if quoted[number - 1] and (
            (number > 1 and quoted[number - 2]) or (number < len(raw) and quoted[number])
            or _EXC_START.match(_QUOTE.sub("", line, count=1))
        ):
            line = _QUOTE.sub("", line, count=1)
        if "\x1b" in line:
            line = ANSI.sub("", line)  # launchers colour their prefixes
        if line[:1] == "E":
            line = _PYTEST_ERROR.sub("", line, count=1)
        unquoted.append(line.rstrip())
    if len(unquoted) >= 3:
        unquoted = _without_line_prefix(unquoted)
    for number, line in enumerate(unquoted, 1):
        if "&" in line:
            from html import unescape
            shown = len(unescape(line))
        else:
            shown = len(line)
        literal = None
        if notebook and line.strip() in _JSON_PUNCTUATION:
            line = ""  # the list's end would otherwise be read as the rest of the last message
        elif notebook and line.lstrip().startswith('"'):
            item = _JSON_STRING_ITEM.match(line)
            if item:
                try:
                    literal = json.loads(item[1])
                except ValueError:
                    literal = None
        if literal is None and ("\\" in line or line.lstrip().startswith("{")):
            literal = _unescaped(line)
        if literal is None and len(line) > 200 and _PADDING in line and not _BOX_CHARS.search(line):
            # A terminal's screen copied without its line breaks: each line padded to the
            # terminal's width with spaces, all on one line. The padding stands for the breaks.
            pieces = [piece for piece in _PADDING_RUN.split(line) if piece.strip()]
            if len(pieces) > 2:  # two gaps at least: one is alignment
                literal = "\n".join(pieces)
        if literal is not None:
            pieces = literal.split("\n")
            items.extend((number, clean_line(piece.rstrip()), -1) for piece in pieces[:-1])
            items.append((number, clean_line(pieces[-1].rstrip()), shown))
        else:
            items.append((number, clean_line(line), shown))
    if _has_rich_box([x for _, x, _ in items]):
        items = _unboxed(items)
    for number, line, shown in items:
        ipy = _ipython(line)
        if ipy is not None:
            line = ipy
            shown = len(ipy)
        elif _IPY_SOURCE.match(line) and lines and (lines[-1].lstrip().startswith("File ") or
                                                     _IPY_SOURCE.match(raw[number - 2] if number > 1 else "")):
            line = "    " + line.strip()  # `---> 12 x = f()` under a frame: source, not a message
            shown = len(line)
        pieces = line.split("\n")
        if "(" in line and _REPR_CALL.search(line):
            pieces = [x for piece in pieces for x in _exception_repr(piece)]
        if "<class '" in line:
            pieces = [_exception_class_line(piece) for piece in pieces]
        parts = [part for piece in pieces for part in _split_inline_exception(piece)]
        for k, part in enumerate(parts):
            lines.append(part.rstrip())
            origin.append(number)
            widths.append(shown if k == len(parts) - 1 else -1)

    wrap = _wrap_width(lines, widths) if len(lines) > 1 else None
    if wrap is not None:
        width, hard = wrap
        if callable(vocabulary):
            vocabulary = vocabulary()  # only now: most pastes are not re-wrapped
        if hard and vocabulary and _cut_between_words(lines, widths, width, vocabulary):
            hard = False
        joined: list[str] = []
        joined_origin: list[int] = []
        physical, physical_width = "", -1  # the last line as pasted: the wrap decision is about it
        for line, number, shown in zip(lines, origin, widths):
            if joined:
                sep = _joins(physical, line, width, hard, vocabulary, physical_width)
                if sep is not None:
                    joined[-1] = joined[-1] + sep + line
                    physical, physical_width = line, shown
                    continue
            joined.append(line)
            joined_origin.append(number)
            physical, physical_width = line, shown
        lines, origin = joined, joined_origin
    return Cleaned(lines, origin)
