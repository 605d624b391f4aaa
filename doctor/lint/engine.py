"""Running lint rules over files: discovery, reading, one parse and one traversal per file,
`# noqa`, selection. Each file is isolated: a syntax error, an undecodable or unreadable file, or
a rule that crashes becomes a reported error for that file, and the run goes on."""

from __future__ import annotations

import codecs
import fnmatch
import gc
import os
import re
import symtable
import sys
import tokenize
import traceback
from dataclasses import dataclass, field
from io import BytesIO
from pathlib import Path
from typing import Iterable, Iterator

from ..registry import LintRule, lint_rules
from .cache import Cache, content_digest
from .model import CheckResult, FileError, LintFinding, Violation
from .module import SourceModule
from .project import EMPTY, READ_BUDGET_CHARS, WATCHED, Project, pinned_for_the_run, scan

MAX_FILE_BYTES = 10 * 1024 * 1024
_WATCHED_BYTES = tuple(w.encode() for w in WATCHED)
_ALWAYS_SKIPPED_DIRS = {".git", ".hg", ".svn", "__pycache__", ".venv", "venv", ".tox", ".nox", ".mypy_cache",
                        ".pytest_cache", ".ruff_cache", "node_modules", "build", "dist", ".eggs", "site-packages"}
_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]*(?:\s*,\s*[A-Z]+[0-9]*)*))?", re.IGNORECASE)


@dataclass
class Selection:
    select: tuple[str, ...] = ()  # code prefixes; empty: the default rules
    ignore: tuple[str, ...] = ()
    per_file_ignores: dict[str, tuple[str, ...]] = field(default_factory=dict)  # glob -> code prefixes
    exclude: tuple[str, ...] = ()  # globs of paths to skip

    def rules(self, rules: list[LintRule]) -> list[LintRule]:
        chosen = []
        for rule in rules:
            picked = any(rule.code.startswith(p) for p in self.select) if self.select else rule.default
            if picked and not any(rule.code.startswith(p) for p in self.ignore):
                chosen.append(rule)
        return chosen

    def ignored_in(self, path: str, code: str) -> bool:
        for pattern, codes in self.per_file_ignores.items():
            if _glob_match(path, pattern) and any(code.startswith(c) for c in codes):
                return True
        return False


def _glob_match(path: str, pattern: str) -> bool:
    path = path.replace(os.sep, "/")
    return fnmatch.fnmatch(path, pattern) or fnmatch.fnmatch(path, f"*/{pattern}") or \
        fnmatch.fnmatch(os.path.basename(path), pattern)


# ------------------------------------------------------------------ discovery

class _GitIgnore:
    """The patterns of .gitignore files met on the way down (the common subset of the syntax:
    globs, `dir/`, leading `/` anchors, `!` negation, `**`)."""

    def __init__(self) -> None:
        self.rules: list[tuple[str, re.Pattern[str], bool, bool]] = []  # base, regex, negate, dir_only

    def add(self, directory: str) -> None:
        data = read_regular(os.path.join(directory, ".gitignore"), 1 << 20)
        if isinstance(data, FileError):
            return
        text = data.decode("utf-8", "replace")
        for raw in text.splitlines():
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            negate = line.startswith("!")
            line = line[1:] if negate else line
            dir_only = line.endswith("/")
            line = line.rstrip("/")
            anchored = "/" in line
            line = line.lstrip("/")
            rx = re.escape(line).replace(r"\*\*/", "(?:.*/)?").replace(r"\*\*", ".*").replace(r"\*", "[^/]*").replace(r"\?", "[^/]")
            rx = f"^{rx}$" if anchored else f"(?:^|.*/){rx}$"
            self.rules.append((directory, re.compile(rx), negate, dir_only))

    def ignored(self, path: str, is_dir: bool) -> bool:
        verdict = False
        for base, rx, negate, dir_only in self.rules:
            if dir_only and not is_dir:
                continue
            rel = os.path.relpath(path, base).replace(os.sep, "/")
            if rel.startswith(".."):
                continue
            if rx.match(rel):
                verdict = not negate
        return verdict


def discover(paths: Iterable[str], selection: Selection) -> Iterator[str | FileError]:
    """Python files under the paths, in a stable order; .gitignore and excludes respected."""
    seen: set[str] = set()
    for given in paths:
        if not os.path.exists(given):
            yield FileError(given, "no such file or directory")
            continue
        if not os.path.isdir(given):  # a file given by name; read_regular refuses a FIFO or a device
            real = os.path.realpath(given)
            if real not in seen:
                seen.add(real)
                yield given
            continue
        ignore = _GitIgnore()
        for anc in reversed([given, *[str(p) for p in Path(given).resolve().parents]]):
            ignore.add(anc)
        visited_dirs: set[str] = set()
        for root, dirs, files in os.walk(given, followlinks=False):
            real_root = os.path.realpath(root)
            if real_root in visited_dirs:  # a bind mount or a loop: walk each directory once
                dirs[:] = []
                continue
            visited_dirs.add(real_root)
            if root != given:
                ignore.add(root)
            dirs[:] = sorted(d for d in dirs if d not in _ALWAYS_SKIPPED_DIRS and not d.startswith(".")
                             and not ignore.ignored(os.path.join(root, d), True)
                             and not any(_glob_match(os.path.join(root, d), e) for e in selection.exclude))
            for name in sorted(files):
                if not name.endswith((".py", ".pyi")):
                    continue
                path = os.path.normpath(os.path.join(root, name))
                if ignore.ignored(path, False) or any(_glob_match(path, e) for e in selection.exclude):
                    continue
                # The directory is resolved once; only a file that is itself a link needs its own
                # resolution (realpath of each file re-resolved every directory above it).
                real = os.path.realpath(path) if os.path.islink(path) else os.path.join(real_root, name)
                if real in seen:
                    continue
                seen.add(real)
                yield path


def read_regular(path: str, limit: int = MAX_FILE_BYTES) -> bytes | FileError:
    """The bytes of a regular file, at most `limit` of them. The type and size are taken from the
    open descriptor (opened without blocking), so a FIFO named `x.py` or a link to /dev/zero
    swapped in after discovery is refused, never waited on or read forever."""
    import stat

    try:
        # Not even opened when the path names something else: opening a device can act (a tape rewinds).
        mode = os.stat(path).st_mode
        if not stat.S_ISREG(mode):
            return FileError(path, f"not checked: not a regular file ({_kind(mode)})")
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except OSError as exc:
        return FileError(path, f"cannot read: {exc.strerror or exc}")
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return FileError(path, f"not checked: not a regular file ({_kind(st.st_mode)})")
        if st.st_size > limit:
            return FileError(path, f"not checked: {st.st_size / 2**20:.0f} MiB is larger than the {limit >> 20} MiB limit")
        chunks, total = [], 0
        while True:
            chunk = os.read(fd, min(1 << 20, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:  # it grew while being read
                return FileError(path, f"not checked: larger than the {limit >> 20} MiB limit")
        return b"".join(chunks)
    except OSError as exc:
        return FileError(path, f"cannot read: {exc.strerror or exc}")
    finally:
        os.close(fd)


def _kind(mode: int) -> str:
    import stat

    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a named pipe"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "a special file"


def read_source(path: str) -> str | FileError:
    data = read_regular(path)
    if isinstance(data, FileError):
        return data
    return decode_source(path, data)


def source_encoding(data: bytes) -> str:
    """The encoding a Python file declares (PEP 263), UTF-8 by default; SyntaxError when invalid."""
    return tokenize.detect_encoding(BytesIO(data).readline)[0]


def decode_source(path: str, data: bytes) -> str | FileError:
    """The text of a Python file's bytes, in the encoding it declares (PEP 263; UTF-8 by default)."""
    # Most files have neither a BOM nor the word `coding` in their first two lines, which is
    # where a declaration must be: then they are UTF-8, as tokenize.detect_encoding would say
    # (~10 µs a file of Python-level line reading). Bytes that do not decode get the full
    # treatment below, so the error says what it said before.
    first = data.find(b"\n")
    second = data.find(b"\n", first + 1) if first != -1 else -1
    if not data.startswith(codecs.BOM_UTF8) and b"coding" not in (data if second == -1 else data[:second + 1]):
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            pass
    try:
        return data.decode(source_encoding(data))
    except (SyntaxError, LookupError, UnicodeDecodeError) as exc:
        return FileError(path, f"cannot decode: {exc}")


# ------------------------------------------------------------------ running

def _noqa_codes(line: str) -> set[str] | None:
    """None: no noqa; empty set: a bare `# noqa` (everything); else the codes listed."""
    m = _NOQA.search(line)
    if m is None:
        return None
    codes = m.group("codes")
    return set() if not codes else {c.strip().upper() for c in codes.split(",")}


def _position(v: Violation) -> tuple[int, int, int, int]:
    node = v.node
    line = v.line if v.line is not None else getattr(node, "lineno", 1)
    col = v.column if v.column is not None else getattr(node, "col_offset", 0)
    end_line = getattr(node, "end_lineno", None) or line
    end_col = getattr(node, "end_col_offset", None)
    if end_col is None:
        end_col = col
    return line, col + 1, end_line, end_col + 1


def check_module(module: SourceModule, rules: list[LintRule], selection: Selection,
                 result: CheckResult, display_path: str | None = None, *, wanted: bool = False) -> None:
    """Run the rules over one parsed module. `wanted`: the rules were already filtered by
    LintRule.wanted (the text prefilter)."""
    path = display_path or module.path
    by_type: dict[type, list[LintRule]] = {}
    seen: dict[object, bool] = {}
    for rule in rules:
        if not wanted and not rule.wanted(module.text, seen):
            continue
        for t in rule.on:
            by_type.setdefault(t, []).append(rule)
    raw: list[tuple[LintRule, Violation]] = []
    broken: set[str] = set()
    for node_type, rules_for_type in by_type.items():
        for node in module.by_type.get(node_type, ()):
            for rule in rules_for_type:
                if rule.code in broken:
                    continue
                try:
                    out = rule.func(node, module)
                    if out is None:
                        continue
                    for v in ([out] if isinstance(out, Violation) else out):
                        raw.append((rule, v))
                except Exception as exc:  # one broken rule never takes the file or the run down
                    broken.add(rule.code)
                    tb = traceback.extract_tb(exc.__traceback__)[-1]
                    result.errors.append(FileError(path, f"rule {rule.code} crashed ({type(exc).__name__}: {exc} at "
                                                         f"{os.path.basename(tb.filename)}:{tb.lineno}); "
                                                         "this is a torchdoctor bug, please report it"))
    seen: set[tuple[str, int, int]] = set()
    for rule, v in raw:
        line, col, end_line, end_col = _position(v)
        key = (rule.code, line, col)
        if key in seen:
            continue
        seen.add(key)
        text = module.lines[line - 1] if 0 < line <= len(module.lines) else ""
        codes = _noqa_codes(text)
        if codes is not None and (not codes or any(rule.code.startswith(c) for c in codes)):
            result.suppressed += 1
            continue
        if selection.ignored_in(path, rule.code):
            continue
        result.findings.append(LintFinding(rule.code, rule.name, path, line, col, end_line, end_col, v.message,
                                           v.severity or rule.severity, v.fix, rule.related))


def _check_one(path: str, rules: list[LintRule], selection: Selection, project: Project = EMPTY) -> CheckResult:
    """One file, start to end, into its own small result (so it can run in a worker process).

    The cyclic garbage collector is held off while the file is checked and then collects only
    what the file left behind. Parsing allocates hundreds of thousands of tree nodes, all alive
    until the file is done, so the collections their allocation would trigger find nothing to free
    (bare `ast.parse` of a library spends a seventh of its time in them) and, by promoting the
    tree, bring on full collections of the whole process. The file's objects are freed by
    reference counting when it is done (SourceModule.release breaks the cycles the rules make);
    one young-generation collection then frees any cycle left, so memory stays bounded by one
    file's worth."""
    if not gc.isenabled():  # the caller manages the collector
        return _check_file(path, rules, selection, project)
    gc.disable()
    try:
        return _check_file(path, rules, selection, project)
    finally:
        gc.enable()
        gc.collect(0)


def _check_file(path: str, rules: list[LintRule], selection: Selection, project: Project = EMPTY) -> CheckResult:
    result = CheckResult()
    data = project.take_contents(path)  # read already by the project pass, unless over its budget
    text = read_source(path) if data is None else decode_source(path, data)
    if isinstance(text, FileError):
        result.errors.append(text)
        return result
    result.files = 1
    result.lines = text.count("\n") + 1
    try:
        seen: dict[object, bool] = {}
        rules = [rule for rule in rules if rule.wanted(text, seen)]
        if not rules:
            # No rule can fire here (most files of a library): only a syntax error can be reported.
            # symtable runs the same parser without turning its tree into Python objects, which
            # is about half the cost of ast.parse; it is at least as strict (it also refuses what
            # the interpreter would refuse at compile time, such as a module-level `nonlocal`).
            symtable.symtable(text, path, "exec")
            return result
        module = SourceModule.parse(path, text)
        module.project = project
    except SyntaxError as exc:
        result.errors.append(FileError(path, f"syntax error: {exc.msg}", exc.lineno, exc.offset))
        return result
    except (ValueError, RecursionError, MemoryError) as exc:
        result.errors.append(FileError(path, f"cannot parse: {type(exc).__name__}: {exc}"))
        return result
    try:
        check_module(module, rules, selection, result, wanted=True)
    finally:
        module.release()
        if sys.getrefcount(module) <= 2:  # this frame's name and the call's argument: nobody else has it
            _free_index_first(module)
    return result


def _free_index_first(module: SourceModule) -> None:
    """Let go of the node index before the tree. Both hold every node: freed after the tree, the
    index's lists free the nodes one by one in type order, scattered over memory; freed first,
    they only drop references, and the tree then frees its nodes in the order they were
    allocated (the release of a file's objects: ~25 % less time). Rebinding, not clearing: a
    holder of the dicts themselves keeps what it holds."""
    module.parents = {}
    module.by_type = {}


def _merge(into: CheckResult, part: CheckResult) -> None:
    into.findings.extend(part.findings)
    into.errors.extend(part.errors)
    into.files += part.files
    into.lines += part.lines
    into.suppressed += part.suppressed


# Forked workers read these instead of receiving them with every file.
_WORKER_STATE: dict[str, object] = {}


def _worker(path: str) -> CheckResult:
    return _check_one(path, _WORKER_STATE["rules"], _WORKER_STATE["selection"],  # type: ignore[arg-type]
                      _WORKER_STATE["project"])  # type: ignore[arg-type]


PARALLEL_MIN_FILES = 24


def check_paths(paths: Iterable[str], selection: Selection | None = None, *, jobs: int | None = None,
                cache: Cache | None = None) -> CheckResult:
    selection = selection or Selection()
    result = CheckResult()
    todo: list[str] = []
    found: list[str] = []
    for item in discover(paths, selection):
        if isinstance(item, FileError):
            result.errors.append(item)
        else:
            found.append(item)
    project = _project(found, cache)
    if cache is not None:
        cache.add_to_key(project.digest())
    for item in found:
        cached = cache.get(item) if cache is not None else None
        if cached is not None:
            project.take_contents(item)  # not checked again: its bytes need not stay
            _merge(result, cached)
        else:
            todo.append(item)
    rules = selection.rules(lint_rules()) if todo else []  # a warm run imports no rule
    workers = jobs if jobs is not None else (os.cpu_count() or 1)
    with pinned_for_the_run(project):
        if workers > 1 and len(todo) >= PARALLEL_MIN_FILES and os.name == "posix":
            import multiprocessing

            _WORKER_STATE.update(rules=rules, selection=selection, project=project)
            try:
                with multiprocessing.get_context("fork").Pool(workers) as pool:
                    parts = pool.map(_worker, todo, chunksize=max(1, len(todo) // (workers * 8)))
            finally:
                _WORKER_STATE.clear()
        else:
            parts = [_check_one(path, rules, selection, project) for path in todo]
    for path, part in zip(todo, parts):
        if cache is not None:
            cache.put(path, part)
        _merge(result, part)
    if cache is not None:
        cache.save()
    result.findings.sort(key=lambda f: (f.path, f.line, f.column, f.code))
    result.errors.sort(key=lambda e: (e.path, e.line or 0))
    return result


def _project(paths: list[str], cache: Cache | None = None) -> Project:
    """The cross-file pass: bytes searched for a few words; only files that build DataLoaders with
    workers are decoded and kept (a rule may parse them). The bytes also give the cache its keys,
    so a warm run reads each file once; a cold run checks each file from the bytes read here."""
    files: list[tuple[str, str]] = []
    hashes: dict[str, str] = {}
    contents: dict[str, bytes] = {}
    kept = 0
    for path in paths:
        data = read_regular(path)
        if isinstance(data, FileError):
            continue
        if cache is not None:
            hashes[path] = digest = content_digest(data)
            cache.note(path, digest)
        if kept + len(data) <= READ_BUDGET_CHARS:  # each file is then read once (see Project.contents)
            contents[path] = data
            kept += len(data)
        if not any(w in data for w in _WATCHED_BYTES):
            continue
        text = decode_source(path, data)
        if isinstance(text, str):
            files.append((path, text))
    return scan(files, paths, hashes, contents)


def check_source(text: str, path: str = "<string>", select: tuple[str, ...] = ()) -> CheckResult:
    """Lint one source text (tests and the Python API)."""
    selection = Selection(select=select)
    result = CheckResult(files=1, lines=text.count("\n") + 1)
    module = SourceModule.parse(path, text)
    check_module(module, selection.rules(lint_rules()), selection, result)
    result.findings.sort(key=lambda f: (f.line, f.column, f.code))
    return result
