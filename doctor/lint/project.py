"""Cross-file facts: a cheap pass over every file of a run, before any file is checked.

Training code is spread over files: the Dataset in `data.py` is used by a DataLoader with workers
in `train.py`; the loaders are built in `data_utils.py` and iterated by the epoch loop of
`train.py`; `sampler.set_epoch(epoch)` sits in `engine.py`. A rule that sees one file asks the
Project what the others say. The pass itself is a substring scan (no parse); another file is read
and parsed lazily, once per process, and only when the value-flow engine follows a value into it
(an imported function, the callers of a helper).
"""

from __future__ import annotations

import gc
import hashlib
import os
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterator

if TYPE_CHECKING:
    from .module import SourceModule

# Words whose presence anywhere in the project changes a rule's verdict.
WATCHED = ("set_epoch", "DataLoader", "LOCAL_RANK")
MAX_PROJECT_FILE_BYTES = 2 * 1024 * 1024
READ_BUDGET_CHARS = 256 * 1024 * 1024


@dataclass
class Project:
    mentions: dict[str, tuple[str, ...]] = field(default_factory=dict)  # word -> paths that contain it
    texts: dict[str, str] = field(default_factory=dict)  # path -> text, for files that build DataLoaders
    stems: frozenset[str] = frozenset()  # module names of the run's files: `engine` for engine.py
    paths: tuple[str, ...] = ()  # every file of the run
    hashes: dict[str, str] = field(default_factory=dict)  # path -> digest of its bytes (the cache key)
    _modules: dict[str, SourceModule | None] = field(default_factory=dict, repr=False)
    _norm: dict[str, str] | None = field(default=None, repr=False)
    _importers: dict[tuple[str, str, tuple[str, ...]], list[SourceModule]] = field(default_factory=dict, repr=False)
    pin_parsed: bool = field(default=False, repr=False)  # see pinned_for_the_run
    _read: dict[str, str | None] = field(default_factory=dict, repr=False)
    _read_chars: int = field(default=0, repr=False)
    _stem_holders: dict[str, list[str]] = field(default_factory=dict, repr=False)
    _non_tests: list[str] | None = field(default=None, repr=False)  # self.paths without test files
    # path -> the bytes the project pass read (within READ_BUDGET_CHARS): the file is checked
    # from them instead of being read again, and a helper's importers are looked for in them.
    contents: dict[str, bytes] = field(default_factory=dict, repr=False)

    def take_contents(self, path: str) -> bytes | None:
        """The bytes read for `path` by the project pass, handed over once (the checker's copy)."""
        return self.contents.pop(path, None)

    def files_with(self, word: str) -> tuple[str, ...]:
        return self.mentions.get(word, ())

    def is_local_module(self, dotted: str | None) -> bool:
        """`from engine import f` / `from .utils.engine import f`: a file of this run."""
        return bool(dotted) and dotted.rsplit(".", 1)[-1] in self.stems

    def _text(self, path: str) -> str | None:
        if path in self.texts:
            return self.texts[path]
        if path in self._read:
            return self._read[path]
        try:
            data = self.contents.get(path)
            if data is None:
                if os.path.getsize(path) > MAX_PROJECT_FILE_BYTES:
                    return None
                with open(path, "rb") as fh:
                    data = fh.read()
            elif len(data) > MAX_PROJECT_FILE_BYTES:
                return None
            text: str | None = data.decode("utf-8")
        except (OSError, UnicodeDecodeError):
            text = None
        # Looking for a helper's importers reads every file of the run, once per helper: keep
        # what was read, up to a budget (a string is invisible to the garbage collector).
        if self._read_chars < READ_BUDGET_CHARS:
            self._read[path] = text
            self._read_chars += len(text or "")
        return text

    def module(self, path: str) -> SourceModule | None:
        """Another file of the project, parsed (None when it cannot be read or parsed)."""
        if path not in self._modules:
            from .module import SourceModule

            self._modules[path] = None  # a cycle of imports resolves to "unknown", not to a loop
            text = self._text(path)
            if text is not None:
                try:
                    parsed = SourceModule.parse(path, text)
                    parsed.project = self
                    self._modules[path] = parsed
                except (SyntaxError, ValueError, RecursionError, MemoryError):
                    pass
                else:
                    if self.pin_parsed:
                        # Kept until the run ends: out of the cyclic collector's sight. Each full
                        # collection would otherwise walk these trees again (a few large files
                        # kept here made the collector cost a third of a run on transformers).
                        gc.freeze()
        return self._modules[path]

    def import_target(self, importer: str, dotted: str, level: int) -> SourceModule | None:
        """The project file an import names (`from utils.misc import f`, `from . import data`), the
        candidate nearest to the importing file when several match, parsed; None outside the project."""
        path = self.import_path(importer, dotted, level)
        return None if path is None else self.module(path)

    def import_path(self, importer: str, dotted: str, level: int) -> str | None:
        """The path of the project file an import names, without reading it (see import_target)."""
        if not self.paths:
            return None
        if level:
            base = os.path.dirname(os.path.normpath(importer))
            for _ in range(level - 1):
                base = os.path.dirname(base)
            rel = os.path.join(base, *dotted.split(".")) if dotted else base
            for cand in (rel + ".py", os.path.join(rel, "__init__.py")):
                cand = os.path.normpath(cand)
                if cand in self._normalised():
                    return self._normalised()[cand]
            return None
        # Absolute imports resolve against the importing file's directory or one of its parents
        # (the script's directory or the repository root on sys.path), nearest first.
        norm = self._normalised()
        rel = os.path.join(*dotted.split(".")) if dotted else ""
        base = os.path.dirname(os.path.normpath(importer))
        while True:
            for cand in (os.path.join(base, rel + ".py"), os.path.join(base, rel, "__init__.py")):
                cand = os.path.normpath(cand)
                if cand in norm:
                    return norm[cand]
            parent = os.path.dirname(base)
            if parent == base or not base:
                return None
            base = parent

    def _normalised(self) -> dict[str, str]:
        if self._norm is None:
            self._norm = {os.path.normpath(p): p for p in self.paths}
        return self._norm

    def importers(self, path: str, name: str, mentioning: tuple[str, ...] = ()) -> list[SourceModule]:
        """The project's other files that import `name` from the file at `path` (or import that
        file); with `mentioning`, only those whose text also contains one of these words."""
        key = (path, name, mentioning)
        if key not in self._importers:
            self._importers[key] = self._find_importers(path, name, mentioning)
        return self._importers[key]

    def _find_importers(self, path: str, name: str, mentioning: tuple[str, ...] = ()) -> list[SourceModule]:
        stem = os.path.splitext(os.path.basename(path))[0]
        out = []
        for p in self._spelling(stem):
            if os.path.normpath(p) == os.path.normpath(path):
                continue
            text = self._text(p)
            if text is None or name not in text:
                continue
            if mentioning and not any(w in text for w in mentioning):
                continue
            other = self.module(p)
            if other is not None and self._imports(other, path):
                out.append(other)
        return out

    def _spelling(self, stem: str) -> list[str]:
        """The non-test files whose text contains a module name, in run order.
        A helper's file is asked about for each of its helpers: the whole project is scanned
        for its name once, not once per helper."""
        found = self._stem_holders.get(stem)
        if found is None:
            found = []
            if self._non_tests is None:  # tests call helpers with whatever suits the test, not what training passes
                self._non_tests = [p for p in self.paths if not _is_test_path(p)]
            for p in self._non_tests:
                text = self._text(p)
                if text is not None and stem in text:
                    found.append(p)
            self._stem_holders[stem] = found
        return found

    def _imports(self, other: SourceModule, path: str) -> bool:
        import ast

        target = os.path.normpath(path)
        # A dotted name resolves to `<its last name>.py` or `<its last name>/__init__.py`: only one
        # last name can lead to the target, and the others need no path search.
        head, base = os.path.split(target)
        last = os.path.basename(head) if base == "__init__.py" else base[:-3] if base.endswith(".py") else None
        for node in other.nodes(ast.ImportFrom, ast.Import):
            if isinstance(node, ast.ImportFrom):
                names = [node.module or ""] + [f"{node.module}.{a.name}" if node.module else a.name for a in node.names]
                level = node.level
            else:
                names, level = [a.name for a in node.names], 0
            for dotted in names:
                if dotted and dotted.rsplit(".", 1)[-1] != last:
                    continue
                found = self.import_path(other.path, dotted, level)
                if found is not None and os.path.normpath(found) == target:
                    return True
        return False

    def digest(self) -> str:
        """Changes whenever a fact a rule may read changes (part of the cache key): the value-flow
        engine may follow a value into any file of the run, so every file's bytes count."""
        h = hashlib.sha256("\0".join(sorted(self.stems)).encode())
        for word in WATCHED:
            h.update(word.encode() + b"\0" + "\0".join(self.files_with(word)).encode() + b"\1")
        for path in sorted(self.texts):
            h.update(path.encode() + b"\0" + hashlib.sha256(self.texts[path].encode("utf-8", "replace")).digest())
        for path in sorted(self.hashes):
            h.update(path.encode() + b"\0" + self.hashes[path].encode())
        return h.hexdigest()


@contextmanager
def pinned_for_the_run(project: Project) -> Iterator[None]:
    """While the run lasts, the files the project parses for the value-flow engine are frozen
    out of the garbage collector's scans (gc.freeze), and given back to it at the end. Only when
    nothing else in the process uses gc.freeze, whose permanent generation is process-wide."""
    if gc.get_freeze_count() or project is EMPTY:
        yield
        return
    project.pin_parsed = True
    try:
        yield
    finally:
        project.pin_parsed = False
        gc.unfreeze()


def _is_test_path(path: str) -> bool:
    parts = os.path.normpath(path).split(os.sep)
    name = parts[-1]
    return (name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py"
            or any(p in ("tests", "test", "testing") for p in parts[:-1]))


def scan(files: list[tuple[str, str]], paths: list[str] = (), hashes: dict[str, str] | None = None,
         contents: dict[str, bytes] | None = None) -> Project:
    """`files`: (path, text) of the files that contain a watched word; `paths`: every file of the
    run; `contents`: the bytes read of some of them (see Project.contents)."""
    mentions: dict[str, list[str]] = {}
    texts: dict[str, str] = {}
    for path, text in files:
        for word in WATCHED:
            if word in text:
                mentions.setdefault(word, []).append(path)
        if "DataLoader" in text and "num_workers" in text:
            texts[path] = text
    stems = frozenset(os.path.splitext(os.path.basename(p))[0] for p in paths)
    return Project({w: tuple(p) for w, p in mentions.items()}, texts, stems, tuple(paths), dict(hashes or {}),
                   contents=dict(contents or {}))


EMPTY = Project()
