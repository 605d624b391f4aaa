"""From raw text (a traceback, a whole training log, bytes from a pipe) to its structure.

Streaming: lines are read one at a time and only the interesting ones are kept — tracebacks,
exception lines with their message, CUDA/NCCL log lines — so a 100 MB log costs bounded memory.
A cheap trigger test decides which lines deserve attention; everything else is dropped at once.
"""

from __future__ import annotations

import codecs
import functools
import io
import os
import re
import sys
from collections import deque
from dataclasses import dataclass, field
from typing import IO, Callable, Iterable, Iterator

from .. import paste
from ..paste import PASTE_MAX_CHARS

# ------------------------------------------------------------------ normalisation
_ANSI = paste.ANSI
# Prefixes that launchers and loggers put in front of every line.
_PREFIX = re.compile(
    r"^(?:"
    r"\[(?:rank|default)\d+\]:\s?"  # [rank3]: (torch), [default0]: (torchrun --tee)
    r"|\d+:\s(?=\S)"  # 0: (torchrun --role/--tee short form, srun -l)
    r"|\[?\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?\]?(?:\s*[-|]\s*|\s+)"  # 2024-05-01 12:00:00,123 -
    r"|[IWEF]\d{4} \d\d:\d\d:\d\d\.\d+\s+\d+\s+\S+:\d+\]\s"  # glog: W0501 12:00:00.123 1234 file.cpp:12]
    r"|\([A-Za-z][\w-]*(?:,? \w+=[\w.:-]+)+\)\s"  # vLLM/Ray process: (EngineCore pid=12), (RayWorkerWrapper pid=3, ip=10.0.0.1)
    r"|(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) \d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)? \[[\w./-]+:\d+\] ?"  # vLLM: ERROR 07-15 21:01:01 [core.py:12]
    r")+"
)


def normalize_line(line: str) -> str:
    line = line.rstrip("\r\n")
    if "\x1b" in line:
        line = _ANSI.sub("", line)
    if "\r" in line:  # progress bars redraw with CR; keep what was printed last
        line = line.rsplit("\r", 1)[-1] or line.replace("\r", "")
    return _PREFIX.sub("", line, count=1)


# ------------------------------------------------------------------ structure
# "^C" is the terminal echoing Ctrl-C on the same line as the traceback of the KeyboardInterrupt.
# Jupyter/IPython head a traceback with the exception's class ("RuntimeError    Traceback (most recent
# call last)"): a paste that lost the final line, or kept only its message, still names the type there.
_TRACEBACK = re.compile(r"^\s*(?:(?:\^C)?(?:Original )?Traceback \(most recent call last\):"
                        r"|(?P<ipython>(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*)\s{2,}Traceback \(most recent call last\)\s*$)")
# An IPython frame or source line the paste clean-up did not rewrite: never a message.
_IPYTHON_LEFTOVER = re.compile(r"^(?:-*>\s*\d+|\d+\s|\S+\.pyx?\b.* in |<ipython-input|(?:Cell|Input) In\b)")
_IPYTHON_ARROW = re.compile(r"-+>\s*\d+\s")
# What Colab and IPython put between frames where they hid some: not the end of the traceback.
_HIDDEN_FRAMES = re.compile(r"^(?:\d+ frames?|\.\.\.|\[\.\.\. skipping (?:hidden )?\d+ frames?\])$")
# Indented by Python; inside a traceback a paste that lost the indentation still has frames.
_FRAME = re.compile(r'^\s*File "(?P<file>[^"]+)", line (?P<line>\d+)(?:,? in (?P<func>.+))?')


def _frame(line: str) -> re.Match[str] | None:
    """A traceback's frame line. One that lost its indentation must name its function: TorchScript
    quotes source in its messages as `File "x.py", line 12` at the start of a line."""
    m = _FRAME.match(line)
    if m is not None and not m["func"] and not line[:1].isspace():
        return None
    return m


# Stack dumps of a live or hung process: faulthandler ("Thread 0x... (most recent call first):",
# frames as `File "x.py", line 12 in wait`) and py-spy ("Thread 123 (idle): "MainThread"", frames
# as `    wait (threading.py:320)`).
_DUMP_HEADER = re.compile(r"^\s*(?:(?:Current )?[Tt]hread 0x[0-9a-fA-F]+ \(most recent call first\):"
                          r"|Timeout \(\d+:\d\d:\d\d(?:\.\d+)?\)!$"  # faulthandler.dump_traceback_later
                          r"|Stack \(most recent call first\):|Thread (?:0x[0-9a-fA-F]+|\d+) \((?:active|idle)[^)]*\))")
_PYSPY_FRAME = re.compile(r"^\s+(?P<func>[\w<>.]+) \((?P<file>[^()\s]+):(?P<line>\d+)\)\s*$")
_EXC = re.compile(
    r"^(?P<type>(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:Error|Exception|Warning|Interrupt|Exit|Failure|Failed|Fault|"
    r"Timeout|Abort|NotSupported\w*|error)|(?:[A-Za-z_]\w*\.)+exc\.[A-Z]\w*)(?::[ \t]*(?P<msg>.*))?$"
)
# A logging level in front of an exception ("ERROR:root:RuntimeError: ...", "trainer - ERROR - ...").
_LEVEL = re.compile(r"^(?:[\w.]+\s+-\s+)?(?:DEBUG|INFO|WARNING|ERROR|CRITICAL)(?::[\w.]*:|\s+-\s+|:\s)\s*")
_CPP_WHAT = re.compile(r"^\s*what\(\):\s+(?P<msg>.*)$")
# The C++ runtime's line above what(): the type thrown ("terminate called after throwing an instance of
# 'kaldi::KaldiFatalError'"). what() is torch's c10::Error unless that line names another type.
_CPP_THROWN = re.compile(r"throwing an instance of '(?P<type>[\w:<>, ]{1,120})'")
_CHAIN_CAUSE = "The above exception was the direct cause of the following exception:"
_CHAIN_CONTEXT = "During handling of the above exception, another exception occurred:"
_WORKER = re.compile(r"Caught (?P<type>[\w.]+) in DataLoader worker process (?P<worker>\d+)")
_RANK_PREFIX = re.compile(r"^(?:\x1b\[[0-9;]*m)*\[(?:rank|default)(?P<rank>\d+)\]:")
_LOG = re.compile(
    r"NCCL (?:WARN|INFO|ERROR)|ncclInternalError|ncclSystemError|ncclUnhandledCudaError|ncclInvalidUsage"
    r"|ncclRemoteError|CUDA error|CUDA kernel errors|CUBLAS_STATUS|CUDNN_STATUS|cudaError"
    r"|ProcessGroupNCCL|Watchdog caught|\[(?:W|E) \w+\.cpp:\d+\]|^\[[WE]\d{4}|ERROR:torch\.distributed"
    r"|WARNING:torch\.distributed|Segmentation fault|Bus error|Aborted \(core dumped\)|Killed$|OOM killer"
)
# A line deserves attention when it contains one of these (lower-cased); everything else in a
# log is noise. They are matched over whole chunks at once through a trie-shaped regex (testing
# each line with a case-insensitive alternation costs 30x more), by worker processes for a large
# file (see _scanned).
TRIGGER_WORDS = (
    "error", "exception", "traceback", "warn", "interrupt", "fatal", "fail", "killed", "abort", "assert",
    "denied", "not found", "no such", "cannot", "can't", "unable", "invalid", "unsupported", "not supported",
    "not implemented", "timed out", "timeout", "mismatch", "expected", "out of memory", "nccl", "cuda",
    "cudnn", "cublas", "segmentation", "core dumped", "unrecognized", "undefined symbol", "insufficient",
    "too old", "no kernel", "not compiled", "does not exist", "has no attribute", "missing key",
    "unexpected key", "size mismatch", "caught", "root cause", "recursion", "nan", "illegal", "deadlock",
    "hang", "refused", "in use", "shm", "shared memory", "what():", "signal", "raised", "backend",
    "most recent call first", "(active", "(idle",
)


def _trie_regex(words: tuple[str, ...]) -> re.Pattern[str]:
    trie: dict = {}
    for word in words:
        node = trie
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = {}

    def build(node: dict) -> str:
        ends = "" in node
        branches = [re.escape(ch) + build(child) for ch, child in sorted(node.items()) if ch]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        return f"(?:{body})?" if ends else body

    return re.compile(build(trie))


@functools.cache
def _trigger() -> re.Pattern[str]:
    """Built by the first log that is scanned: a paste is read whole, and never needs it."""
    return _trie_regex(TRIGGER_WORDS)


# A warning printed after the exception ("/site-packages/torch/optim/lr_scheduler.py:136: UserWarning: ...", Python's
# warnings format) is a record of its own, not more of the message.
_MESSAGE_STOP = re.compile(r"^\s*(?:Traceback \(most recent|File \"|During handling|The above exception|"
                           r"Exception raised from|frame #\d|=+$|-+$|\[\d+\]:$|Root Cause"
                           r"|[^\s:]*(?::[\\/][^\s:]*)?\.py:\d+: [A-Za-z_][\w.]*Warning: )")

MAX_MESSAGE_LINES = 40
MAX_MESSAGE_CHARS = 16 << 10  # a message's continuation stops here too
MAX_KEPT_LINES = 20000  # of interesting lines, for the `line`/`log` scopes (newest kept)
MAX_EXCEPTIONS = 400  # newest kept
MAX_LINE_CHARS = 4000  # a giant single line is cut: patterns never need more
# The newest interesting lines kept for the `line` and `log` scopes, by size too: every pattern scans
# them, so a crafted log of 20,000 long lines that all pass the trigger test must not cost minutes.
# (The failure is at the end of a log; a paste is far smaller.)
MAX_KEPT_CHARS = 64 << 10  # of a streamed log
MAX_KEPT_CHARS_PASTE = 1 << 20  # a paste is read whole


@dataclass
class ExceptionBlock:
    type: str
    message: str  # the message line plus its continuation lines
    frames: list[str] = field(default_factory=list)  # "file:line in func", innermost last
    code: list[str] = field(default_factory=list)  # the source line shown under each frame ("" if none)
    line_no: int = 0  # 1-based line of the exception line in the input
    # "final" (the last exception in the text), "cause" (the direct cause in a chain), "context"
    # (an exception during whose handling another occurred), "worker" (the original error inside a
    # DataLoader worker), "rank" (a rank's root cause in a torchrun summary), "other"
    role: str = "other"
    rank: int | None = None
    in_worker: bool = False

    @property
    def text(self) -> str:
        return f"{self.type}: {self.message}" if self.message else self.type


@dataclass
class Parsed:
    exceptions: list[ExceptionBlock]
    lines: list[tuple[int, str]]  # (line number, normalised text) of the interesting lines
    log_lines: list[tuple[int, str]]  # the subset that are CUDA/NCCL/c10 log lines
    total_lines: int
    total_chars: int
    # Every stack frame seen, "file:line in func", from tracebacks and from stack dumps of a hung
    # process (faulthandler, py-spy): where a hang or a Ctrl-C was stuck is evidence of its cause.
    frame_lines: list[tuple[int, str]] = field(default_factory=list)

    @property
    def final(self) -> ExceptionBlock | None:
        return self.exceptions[-1] if self.exceptions else None

    def remap(self, original: Callable[[int], int]) -> None:
        """Line numbers of a cleaned paste back to the user's own lines."""
        for block in self.exceptions:
            block.line_no = original(block.line_no)
        self.lines = [(original(n), t) for n, t in self.lines]
        self.log_lines = [(original(n), t) for n, t in self.log_lines]
        self.frame_lines = [(original(n), t) for n, t in self.frame_lines]


CHUNK_CHARS = 1 << 22  # 4 Mi characters per chunk: big enough to amortise, small enough to bound memory


def iter_chunks(source: str | bytes | IO[str] | IO[bytes] | Iterable[str]) -> Iterator[str]:
    """Text in chunks that end at a line boundary; undecodable bytes replaced, never fatal."""
    if isinstance(source, bytes):
        source = source.decode("utf-8", "replace")
    if isinstance(source, str):
        start = 0
        while start < len(source):
            end = source.find("\n", start + CHUNK_CHARS)
            end = len(source) if end < 0 else end + 1
            yield source[start:end]
            start = end
        return
    read = getattr(source, "read", None)
    if read is None:  # an iterable of lines
        buf: list[str] = []
        size = 0
        for line in source:
            line = line.decode("utf-8", "replace") if isinstance(line, bytes) else line
            buf.append(line if line.endswith("\n") else line + "\n")
            size += len(line)
            if size >= CHUNK_CHARS:
                yield "".join(buf)
                buf, size = [], 0
        if buf:
            yield "".join(buf)
        return
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    rest = ""
    while True:
        data = read(CHUNK_CHARS)
        if not data:
            break
        text = rest + (decoder.decode(data) if isinstance(data, bytes) else data)
        cut = text.rfind("\n") + 1
        if cut == 0:
            if len(text) < 4 * CHUNK_CHARS:
                rest = text
                continue
            cut = len(text)  # a line longer than 16 Mi characters: hand it over in pieces
        yield text[:cut]
        rest = text[cut:]
    rest += decoder.decode(b"", final=True) if not isinstance(rest, bytes) else ""
    if rest:
        yield rest


class _Reader:
    """The line-by-line state machine: tracebacks, chained exceptions, messages, log lines."""

    def __init__(self, keep_source: bool = False) -> None:
        self.keep_source = keep_source
        self.max_chars = MAX_KEPT_CHARS_PASTE if keep_source else MAX_KEPT_CHARS
        self.kept_chars = 0
        self.log_chars = 0
        self.headerless = False  # inside a traceback whose header was not pasted
        self.exceptions: deque[ExceptionBlock] = deque(maxlen=MAX_EXCEPTIONS)
        self.kept: deque[tuple[int, str]] = deque(maxlen=MAX_KEPT_LINES)
        self.logs: deque[tuple[int, str]] = deque(maxlen=MAX_KEPT_LINES)
        self.frame_lines: deque[tuple[int, str]] = deque(maxlen=MAX_KEPT_LINES)
        self.frames: list[str] = []
        self.code: list[str] = []
        self.in_traceback = False
        self.current: ExceptionBlock | None = None  # an exception whose message may continue
        self.worker_pending: int | None = None
        # The exception type a Jupyter traceback's header named, and its line, until the traceback's
        # own exception line is read: a paste that cut or stripped that line still has the type.
        self.named_type: tuple[str, int] | None = None
        # A pasted traceback's last source line, until an exception line ends the traceback: where the paste was
        # cut before the message, that line is what is left of it (`raise pickle.UnpicklingError(UNSAFE_MESSAGE ...`).
        self.last_code: tuple[int, str] | None = None
        self.thrown: str | None = None  # the C++ type a "terminate called after throwing" line named

    @property
    def busy(self) -> bool:
        """Inside a traceback or a message: the next lines matter even without a trigger word."""
        return self.in_traceback or self.current is not None

    def _keep(self, number: int, line: str) -> None:
        if len(self.kept) == self.kept.maxlen:
            self.kept_chars = max(0, self.kept_chars - len(self.kept[0][1]))
        self.kept.append((number, line))
        self.kept_chars += len(line)
        while self.kept_chars > self.max_chars and len(self.kept) > 1:
            self.kept_chars = max(0, self.kept_chars - len(self.kept.popleft()[1]))
        if _LOG.search(line):
            if len(self.logs) == self.logs.maxlen:
                self.log_chars = max(0, self.log_chars - len(self.logs[0][1]))
            self.logs.append((number, line))
            self.log_chars += len(line)
            while self.log_chars > self.max_chars and len(self.logs) > 1:
                self.log_chars = max(0, self.log_chars - len(self.logs.popleft()[1]))

    def _close_named(self) -> None:
        """A Jupyter traceback that ended with no exception line (the paste was cut after its
        frames): its header's type is the exception, with no message."""
        if self.named_type is not None:
            kind, number = self.named_type
            self.named_type = None
            self.exceptions.append(ExceptionBlock(type=kind, message="", frames=self.frames, code=self.code,
                                                  line_no=number))

    def _keep_cut_source(self) -> None:
        """A traceback that ended with no exception line: its last source line becomes a plain line."""
        if self.last_code is not None:
            self.kept.append(self.last_code)
            self.last_code = None

    def close(self) -> None:
        """The end of the text."""
        if self.in_traceback:
            # Cut after its frames: the last source line is often the only place the message is
            # (`----> 4     raise ImportError('TensorBoard logging requires ...'`), also under a
            # Jupyter header whose type is all the paste kept of the exception.
            self._keep_cut_source()
        self._close_named()

    def feed(self, raw: str, number: int) -> None:
        if len(raw) > MAX_LINE_CHARS:
            raw = raw[:MAX_LINE_CHARS]
        line = normalize_line(raw)
        stripped = line.strip()
        if "throwing an instance of" in line:
            thrown = _CPP_THROWN.search(line)
            self.thrown = thrown["type"].strip() if thrown else None

        current = self.current
        if current is not None:
            # Continuation of an exception message: non-empty lines that start nothing new.
            if stripped and not _MESSAGE_STOP.match(line) and not ("Traceback" in line and _TRACEBACK.match(line)) \
                    and current.message.count("\n") < MAX_MESSAGE_LINES and len(current.message) < MAX_MESSAGE_CHARS \
                    and not _EXC.match(stripped):
                current.message += "\n" + stripped
                self._keep(number, line)
                return
            self.current = None

        header = _TRACEBACK.match(line) if "Traceback" in line else None  # (a substring test first: every line comes here)
        if header:
            self._close_named()
            if header["ipython"]:
                self.named_type = (header["ipython"], number)
            self.in_traceback = True
            self.headerless = False
            self.frames = []
            self.code = []
            self.last_code = None
            if not stripped.startswith("Original"):
                self.worker_pending = None  # a new traceback of the main process
            self.kept.append((number, line))
            return
        if stripped == _CHAIN_CAUSE or stripped == _CHAIN_CONTEXT:
            if self.exceptions:
                self.exceptions[-1].role = "cause" if stripped == _CHAIN_CAUSE else "context"
            self.kept.append((number, line))
            return
        if _DUMP_HEADER.match(line):
            self.in_traceback = True
            self.frames = []
            self.code = []
            self.kept.append((number, line))
            return
        if self.in_traceback and not stripped:
            return  # Python prints none inside a traceback; Jupyter and pastes add them
        if self.in_traceback and _HIDDEN_FRAMES.match(stripped):
            return  # frames left out: Colab's "5 frames", IPython's "[... skipping hidden 1 frame]", "..."
        if not self.in_traceback and _frame(line):
            # A paste that lost its "Traceback (most recent call last):" header still has frames.
            self.in_traceback = True
            self.headerless = True
            self.frames = []
            self.code = []
        if self.in_traceback:
            m = _frame(line) or _PYSPY_FRAME.match(line)
            if m:
                frame = f"{m['file']}:{m['line']} in {(m['func'] or '?').strip()}"
                self.frames.append(frame)
                self.frame_lines.append((number, frame))
                self.code.append("")
                return
            if line.startswith("    ") and not _EXC.match(stripped):
                # the source line under a frame (or a ^^^^ marker, which is not kept). IPython shows
                # context lines around the current one and marks that one with an arrow
                # (`----> 4     raise ImportError(...)`): the arrow line is the frame's line.
                if self.code and stripped.strip("^~ ") and (not self.code[-1] or _IPYTHON_ARROW.match(stripped)):
                    replaced = self.code[-1]
                    self.code[-1] = stripped
                    # In a paste it is a plain line too: a cut-off traceback's last source line is
                    # often all that says where it was stuck (`self._data_queue.get(timeout=...)`).
                    if self.keep_source and self.headerless:
                        if replaced and self.kept and self.kept[-1][1].strip() == replaced:
                            self.kept.pop()  # the context line the arrow line replaces
                        self.kept.append((number, line))
                    elif self.keep_source:
                        self.last_code = (number, line)
                return

        exc = _EXC.match(stripped)
        if exc is None and _LEVEL.match(stripped):
            exc = _EXC.match(_LEVEL.sub("", stripped, count=1))
        what = _CPP_WHAT.match(line) if exc is None else None
        untyped = None
        if exc is None and what is None and self.in_traceback and self.named_type \
                and not _IPYTHON_LEFTOVER.match(stripped):
            untyped = self.named_type[0]  # the message under a Jupyter header, its type left out
        if exc or what or untyped:
            self.named_type = None
            if untyped:
                kind, message = untyped, stripped
            elif exc:
                kind, message = exc["type"], (exc["msg"] or "").strip()
            else:
                kind, message = self.thrown or "c10::Error", what["msg"].strip()
                self.thrown = None
            block = ExceptionBlock(
                type=kind,
                message=message,
                frames=self.frames if self.in_traceback else [],
                code=self.code if self.in_traceback else [],
                line_no=number,
            )
            w = _WORKER.search(block.message)
            if w:
                self.worker_pending = int(w["worker"])
            elif self.worker_pending is not None and self.in_traceback:
                block.in_worker = True
            r = _RANK_PREFIX.match(raw)
            if r:
                block.rank = int(r["rank"])
            self.exceptions.append(block)
            self.current = block
            self.last_code = None
            self.in_traceback = False
            self.frames = []
            self.code = []
            self._keep(number, line)
            return

        if self.in_traceback and self.named_type is None:
            self._keep_cut_source()
        self.in_traceback = False
        self._keep(number, line)


_NEWLINE = re.compile(r"\n(?=.)")
PARALLEL_MIN_BYTES = 32 << 20  # below this, starting worker processes costs more than it saves


def _trigger_starts(chunk: str) -> list[int]:
    return [m.start() for m in _trigger().finditer(chunk.lower())]


def _scanned(source: str | bytes | IO[str] | IO[bytes] | Iterable[str]) -> Iterator[tuple[str, list[int]]]:
    """Chunks with the offsets of their trigger words. A large file is scanned by worker
    processes (the scan is the whole cost of a long log), a few chunks ahead of the reader, so
    memory stays bounded."""
    chunks = iter_chunks(source)
    workers = min(4, os.cpu_count() or 1)
    size = 0
    fileno = getattr(source, "fileno", None)
    if fileno is not None:
        try:
            size = os.fstat(fileno()).st_size
        except (OSError, ValueError):
            size = 0
    if workers < 2 or size < PARALLEL_MIN_BYTES or sys.platform == "win32":
        for chunk in chunks:
            yield chunk, _trigger_starts(chunk)
        return
    import multiprocessing

    try:
        pool = multiprocessing.get_context("fork").Pool(workers)
    except (OSError, ValueError):
        for chunk in chunks:
            yield chunk, _trigger_starts(chunk)
        return
    with pool:
        window: deque = deque()
        for chunk in chunks:
            window.append((chunk, pool.apply_async(_trigger_starts, (chunk,))))
            if len(window) >= 2 * workers:
                first, result = window.popleft()
                yield first, result.get()
        while window:
            first, result = window.popleft()
            yield first, result.get()


class DecodedLog:
    """A log's bytes as text, in the encoding the log is in: UTF-8 unless a byte order mark or
    NUL bytes every other byte say UTF-16 (PowerShell's `>` writes UTF-16LE with a BOM) or UTF-32.
    `read(n)` returns str; undecodable bytes are replaced, never fatal."""

    SNIFF = 4096

    def __init__(self, raw) -> None:
        self.raw = raw
        self.head = raw.read(self.SNIFF) or b""
        self.encoding = self.sniff(self.head)
        self.decoder = codecs.getincrementaldecoder(self.encoding)("replace")
        fileno = getattr(raw, "fileno", None)
        if fileno is not None:
            self.fileno = fileno  # the parser sizes a large file by it

    @staticmethod
    def sniff(head: bytes) -> str:
        for bom, name in ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"),
                          (codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16")):
            if head.startswith(bom):
                return name
        sample = head[: len(head) - len(head) % 2]
        if len(sample) >= 8 and sample.count(0) * 4 >= len(sample):  # text has no NULs; UTF-16 ASCII is half NUL
            odd, even = sample[1::2].count(0), sample[0::2].count(0)
            if odd >= 3 * even:
                return "utf-16-le"
            if even >= 3 * odd:
                return "utf-16-be"
        return "utf-8"

    def read(self, size: int = -1) -> str:
        while True:
            if self.head:
                data, self.head = self.head, b""
            else:
                data = self.raw.read(size)
            if not data:
                return self.decoder.decode(b"", final=True)
            text = self.decoder.decode(data)
            if text:  # a read that ends inside a character yields nothing yet: read on
                return text


def _decode(data: bytes) -> str:
    return data.decode(DecodedLog.sniff(data[: DecodedLog.SNIFF]), "replace")


def _kb_vocabulary() -> frozenset[str]:
    from .loader import load

    return load().vocabulary()


def parse(source: str | bytes | IO[str] | IO[bytes] | Iterable[str],
          vocabulary: "frozenset[str] | Callable[[], frozenset[str]] | None" = _kb_vocabulary) -> Parsed:
    """The structure of a text. A paste (anything up to PASTE_MAX_CHARS) first goes through the
    paste clean-up (markdown, quotes, HTML, wrapped lines, Jupyter); line numbers in the result
    are always the user's own."""
    if isinstance(source, (io.RawIOBase, io.BufferedIOBase)):
        source = DecodedLog(source)  # a byte stream: in the encoding the log is in
    read = getattr(source, "read", None)
    if read is not None:
        # Enough to tell a paste from a log; a stream may hand it over in several reads.
        parts: list = []
        size = 0
        while size <= PASTE_MAX_CHARS:
            data = read(PASTE_MAX_CHARS + 1 - size)
            if not data:
                break
            parts.append(data)
            size += len(data)
        head = (b"" if parts and isinstance(parts[0], bytes) else "").join(parts)
        if size <= PASTE_MAX_CHARS:
            source = head
        else:
            return _parse_stream(_Chained(head, source))
    if isinstance(source, bytes):
        source = _decode(source)
    if isinstance(source, str) and len(source) <= PASTE_MAX_CHARS:
        cleaned = paste.clean(source, vocabulary)
        parsed = _parse_stream(cleaned.text, keep_all=True)
        parsed.remap(cleaned.original_line)
        parsed.total_lines = max(parsed.total_lines, source.count("\n") + (not source.endswith("\n")))
        parsed.total_chars = len(source)
        return parsed
    return _parse_stream(source)


class _Chained:
    """A stream whose first block was already read (to tell a paste from a log)."""

    def __init__(self, head: str | bytes, rest: IO[str] | IO[bytes]) -> None:
        self.head, self.rest = head, rest

    def read(self, size: int = -1) -> str | bytes:
        if self.head:
            head, self.head = self.head, self.head[:0]
            return head
        return self.rest.read(size)

    def fileno(self) -> int:
        return self.rest.fileno()


def _parse_stream(source: str | bytes | IO[str] | IO[bytes] | Iterable[str], keep_all: bool = False) -> Parsed:
    """`keep_all`: every line is looked at, not only those with a trigger word (a paste is small,
    and a bare message such as "index out of range in self" has none)."""
    reader = _Reader(keep_source=keep_all)
    number = 1  # the line number of the line that starts at `cursor`
    total_chars = 0
    scanned = ((chunk, None) for chunk in iter_chunks(source)) if keep_all else _scanned(source)
    for chunk, starts in scanned:
        if starts is None:  # every line
            starts = [0] + [m.end() for m in _NEWLINE.finditer(chunk)]
        total_chars += len(chunk)
        size = len(chunk)
        cursor = 0  # everything before it is counted (and, where it mattered, read)

        def read_from(start: int) -> int:
            """Feed lines from `start` while the reader needs them; returns where it stopped."""
            nonlocal number
            p = start
            while True:
                end = chunk.find("\n", p)
                end = size if end < 0 else end
                reader.feed(chunk[p:end], number)
                number += 1
                p = end + 1
                if p >= size or not reader.busy:
                    return p

        if reader.busy:  # a traceback that began in the previous chunk
            cursor = read_from(0)
        # Only lines with a trigger word start work; the rest of the log is skipped in C.
        for hit in starts:
            if hit < cursor:
                continue
            start = chunk.rfind("\n", cursor, hit) + 1 if hit > cursor else cursor
            if start < cursor:
                start = cursor
            number += chunk.count("\n", cursor, start)
            cursor = read_from(start)
        if cursor < size:
            number += chunk.count("\n", cursor, size)
            if not chunk.endswith("\n"):
                number += 1
    total_lines = number - 1

    reader.close()
    blocks = list(reader.exceptions)
    _assign_roles(blocks)
    return Parsed(blocks, list(reader.kept), list(reader.logs), total_lines, total_chars, list(reader.frame_lines))


def _assign_roles(blocks: list[ExceptionBlock]) -> None:
    """Mark DataLoader-worker originals, per-rank errors, and the final exception of the main
    process (the last one that is not a worker's original: the re-raise "Caught X in DataLoader
    worker process N" is the main process's final error, the worker's own error its cause)."""
    for b in blocks:
        if b.in_worker:
            b.role = "worker"
        elif b.rank is not None and b.role == "other":
            b.role = "rank"
    for b in reversed(blocks):
        if b.role != "worker":
            if b.role in ("other", "rank"):
                b.role = "final"
            break
