"""Applying the mechanical fixes that lint rules attach (`torchdoctor check --fix`).

A file is re-read and re-checked right before it is fixed, so the edits always match the text
they are applied to (never a cached or stale position). The fixes of one file go in together when
they do not overlap; two insertions at the same point (TD401's `map_location=` and TD402's
`weights_only=` on one torch.load) are merged in code order. The result must still parse, or the
fixes are retried one at a time and those that break the file are dropped. The file is replaced
atomically with the same encoding, newlines, mode, owner and group; a link is fixed where it
points (the link stays); a read-only file is refused. Nothing is written when nothing changes, and
nothing at all with `diff_only`.
"""

from __future__ import annotations

import ast
import difflib
import os
import tempfile
from dataclasses import dataclass, field

from .engine import Selection, check_module, source_encoding
from .model import CheckResult, LintFinding
from .module import SourceModule


@dataclass
class FileFix:
    path: str
    applied: list[LintFinding] = field(default_factory=list)
    skipped: list[tuple[LintFinding, str]] = field(default_factory=list)  # finding, why not applied
    diff: str = ""
    error: str | None = None  # the file could not be fixed at all (read, decode, write)


def fixable(finding: LintFinding, unsafe: bool) -> bool:
    fix = finding.fix
    return fix is not None and bool(fix.edits) and (fix.safe or unsafe)


def _apply(text: str, fixes: list[tuple[LintFinding, list[tuple[int, int, str]]]]) -> str:
    """Apply the (already non-overlapping) spans, from the end so earlier offsets stay valid.
    Insertions at one point keep the order of their findings."""
    spans = []
    for order, (_, edits) in enumerate(fixes):
        for start, end, replacement in edits:
            spans.append((start, end, order, replacement))
    # Same start: the earlier finding's text must come first, so apply the later one first.
    for start, end, _, replacement in sorted(spans, key=lambda s: (s[0], s[1], s[2]), reverse=True):
        text = text[:start] + replacement + text[end:]
    return text


def _parses(text: str, path: str) -> bool:
    try:
        ast.parse(text, filename=path)
        return True
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False


def _read(path: str) -> tuple[bytes, str, str]:
    from .engine import read_regular

    data = read_regular(path)
    if not isinstance(data, bytes):
        raise OSError(data.message.removeprefix("cannot read: "))
    encoding = source_encoding(data)
    return data, encoding, data.decode(encoding)


class NotWritable(Exception):
    """A file --fix must leave alone (read-only, or its owner could not be kept)."""


def _writable(path: str) -> os.stat_result:
    """The file's status, when --fix may rewrite it: a regular file with a write bit that this
    user may write (root passes os.access on anything, so the mode bits are asked too)."""
    st = os.stat(path)
    if not st.st_mode & 0o222 or not os.access(path, os.W_OK):
        raise NotWritable("the file is read-only; nothing written (make it writable to let --fix change it)")
    return st


def _write_atomically(path: str, data: bytes) -> None:
    """Replace `path` (already resolved: never a link) by a file with `data`, keeping its mode and
    its owner and group; refused, with nothing written, when the owner cannot be kept."""
    st = _writable(path)
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".torchdoctor-fix-", dir=directory)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        tmp_st = os.stat(tmp)
        if (tmp_st.st_uid, tmp_st.st_gid) != (st.st_uid, st.st_gid):
            try:
                os.chown(tmp, st.st_uid, st.st_gid)
            except OSError:
                raise NotWritable("the rewritten file could not keep its owner and group; nothing written") from None
        os.chmod(tmp, st.st_mode & 0o7777)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def fix_file(path: str, rules: list, selection: Selection, *, unsafe: bool = False,
             diff_only: bool = False) -> FileFix:
    out = FileFix(path)
    # A link is fixed where it points: the target is edited, the link stays a link.
    target = os.path.realpath(path)
    try:
        if not diff_only:
            _writable(target)
        data, encoding, text = _read(target)
    except NotWritable as exc:
        out.error = str(exc)
        return out
    except (OSError, SyntaxError, LookupError, UnicodeDecodeError) as exc:
        out.error = f"cannot read: {exc}"
        return out
    try:
        module = SourceModule.parse(path, text)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        out.error = f"cannot parse: {exc}"
        return out
    result = CheckResult()
    check_module(module, rules, selection, result)
    candidates = sorted((f for f in result.findings if fixable(f, unsafe)), key=lambda f: (f.line, f.column, f.code))
    if not candidates:
        return out
    chosen: list[tuple[LintFinding, list[tuple[int, int, str]]]] = []
    taken: list[tuple[int, int]] = []
    for finding in candidates:
        try:
            edits = [(module.char_offset(e.line, e.column), module.char_offset(e.end_line, e.end_column), e.replacement)
                     for e in finding.fix.edits]
        except (ValueError, UnicodeDecodeError) as exc:
            out.skipped.append((finding, f"its edit does not fit the file ({exc})"))
            continue
        if any(s > e for s, e, _ in edits):
            out.skipped.append((finding, "its edit is malformed"))
            continue
        # Overlap with an accepted edit (touching insertions at one point are fine).
        if any(_overlaps(s, e, ts, te) for s, e, _ in edits for ts, te in taken):
            out.skipped.append((finding, "it overlaps another fix; run --fix again"))
            continue
        chosen.append((finding, edits))
        taken.extend((s, e) for s, e, _ in edits)
    if not chosen:
        return out
    fixed = _apply(text, chosen)
    if not _parses(fixed, path):
        # Together they break the file: keep, one at a time, each fix that leaves it valid.
        kept: list[tuple[LintFinding, list[tuple[int, int, str]]]] = []
        for item in chosen:
            attempt = _apply(text, kept + [item])
            if _parses(attempt, path):
                kept.append(item)
            else:
                out.skipped.append((item[0], "the edited file would not parse"))
        chosen = kept
        fixed = _apply(text, chosen)
    if not chosen or fixed == text:
        return out
    try:
        new_data = fixed.encode(encoding)
    except UnicodeEncodeError as exc:
        out.error = f"the fixed text cannot be written in the file's encoding {encoding}: {exc}"
        return out
    out.applied = [f for f, _ in chosen]
    out.diff = "".join(difflib.unified_diff(text.splitlines(keepends=True), fixed.splitlines(keepends=True),
                                            fromfile=f"a/{path}", tofile=f"b/{path}"))
    if diff_only:
        return out
    try:
        with open(target, "rb") as fh:
            if fh.read() != data:  # changed while we worked on it: leave it to the user
                out.error = "the file changed while it was being fixed; nothing written"
                out.applied = []
                return out
        _write_atomically(target, new_data)
    except NotWritable as exc:
        out.error = str(exc)
        out.applied = []
    except OSError as exc:
        out.error = f"cannot write: {exc.strerror or exc}"
        out.applied = []
    return out


def _overlaps(s: int, e: int, ts: int, te: int) -> bool:
    if s == e or ts == te:  # an insertion conflicts only when strictly inside a replaced span
        point, (a, b) = (s, (ts, te)) if s == e else (ts, (s, e))
        return a < point < b
    return s < te and ts < e

