"""Cross-file facts: a cheap text pass over every file of a run, before any file is checked.

Training code is spread over files: the Dataset in `data.py` is used by a DataLoader with workers
in `train.py`; `sampler.set_epoch(epoch)` sits in `engine.py`'s epoch loop. A rule that sees one
file asks the Project what the others say. The pass is a substring scan (no parse); files that
matter to a question are parsed lazily, once per process, and only when a rule asks.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .module import SourceModule

# Words whose presence anywhere in the project changes a rule's verdict.
WATCHED = ("set_epoch", "DataLoader")


@dataclass
class Project:
    mentions: dict[str, tuple[str, ...]] = field(default_factory=dict)  # word -> paths that contain it
    texts: dict[str, str] = field(default_factory=dict)  # path -> text, for files that build DataLoaders
    stems: frozenset[str] = frozenset()  # module names of the run's files: `engine` for engine.py
    _modules: dict[str, SourceModule | None] = field(default_factory=dict, repr=False)

    def files_with(self, word: str) -> tuple[str, ...]:
        return self.mentions.get(word, ())

    def is_local_module(self, dotted: str | None) -> bool:
        """`from engine import f` / `from .utils.engine import f`: a file of this run."""
        return bool(dotted) and dotted.rsplit(".", 1)[-1] in self.stems

    def module(self, path: str) -> SourceModule | None:
        """Another file of the project, parsed (None when it does not parse)."""
        if path not in self._modules:
            from .module import SourceModule

            try:
                self._modules[path] = SourceModule.parse(path, self.texts[path])
            except (KeyError, SyntaxError, ValueError, RecursionError, MemoryError):
                self._modules[path] = None
        return self._modules[path]

    def digest(self) -> str:
        """Changes whenever a fact a rule may read changes (part of the cache key)."""
        h = hashlib.sha256("\0".join(sorted(self.stems)).encode())
        for word in WATCHED:
            h.update(word.encode() + b"\0" + "\0".join(self.files_with(word)).encode() + b"\1")
        for path in sorted(self.texts):
            h.update(path.encode() + b"\0" + hashlib.sha256(self.texts[path].encode("utf-8", "replace")).digest())
        return h.hexdigest()


def scan(files: list[tuple[str, str]], paths: list[str] = ()) -> Project:
    """`files`: (path, text) of the files that contain a watched word; `paths`: every file of the run."""
    mentions: dict[str, list[str]] = {}
    texts: dict[str, str] = {}
    for path, text in files:
        for word in WATCHED:
            if word in text:
                mentions.setdefault(word, []).append(path)
        if "DataLoader" in text and "num_workers" in text:
            texts[path] = text
    stems = frozenset(os.path.splitext(os.path.basename(p))[0] for p in paths)
    return Project({w: tuple(p) for w, p in mentions.items()}, texts, stems)


EMPTY = Project()
