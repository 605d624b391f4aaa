"""Finding entries by words, for `torchdoctor kb search`."""

from __future__ import annotations

import math
import re

from .loader import KnowledgeBase
from .schema import Entry

_WORD = re.compile(r"[\w.+-]+")

# Where a word is found says how much it counts: the id and title name the failure.
_FIELDS = (("id", 5.0), ("title", 4.0), ("summary", 2.0), ("patterns", 2.0), ("explanation", 1.0),
           ("fixes", 1.0), ("examples", 0.5))


def _field_text(entry: Entry, name: str) -> str:
    if name == "patterns":
        return " ".join(p.regex for p in entry.patterns)
    if name == "fixes":
        return " ".join(f"{f.summary} {' '.join(f.commands)} {f.code}" for f in entry.fixes)
    if name == "examples":
        return " ".join(x.text for x in entry.examples)
    return str(getattr(entry, name))


def search(kb: KnowledgeBase, query: str, limit: int = 10) -> list[tuple[Entry, float]]:
    words = [w.lower() for w in _WORD.findall(query)]
    if not words:
        return []
    scored = []
    for entry in kb.entries.values():
        texts = {name: _field_text(entry, name).lower() for name, _ in _FIELDS}
        score = 0.0
        found = 0
        for w in words:
            # Every field that mentions the word counts, and more mentions count a little more:
            # an entry about "mat1 and mat2 shapes" beats one that quotes them once in passing.
            hit = [weight * (1.0 + math.log(texts[name].count(w))) for name, weight in _FIELDS if w in texts[name]]
            if hit:
                found += 1
                score += sum(hit)
        if found:
            # Entries that contain every word come first.
            scored.append((entry, score * found / len(words)))
    scored.sort(key=lambda es: (-es[1], es[0].id))
    return scored[:limit]
