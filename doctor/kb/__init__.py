"""The knowledge base: entries (knowledge/*.toml), the parser of tracebacks and logs, the matcher.

Nothing here imports torch: `torchdoctor explain` and `torchdoctor kb` must start fast.
"""

from .loader import KnowledgeBase, load
from .matcher import CONFIDENT, Match, explain
from .schema import Entry, SchemaError

__all__ = ["CONFIDENT", "Entry", "KnowledgeBase", "Match", "SchemaError", "explain", "load"]
