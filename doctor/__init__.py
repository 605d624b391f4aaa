"""torchdoctor: diagnostics for PyTorch.

- `torchdoctor.explain(text)` -> list of knowledge-base matches (best first; each has .id and .confidence)
- `torchdoctor.install()` explains uncaught exceptions right after their traceback

Importing this package imports neither torch nor the heavy parts: they load on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from .kb.matcher import Match

__all__ = ["__version__", "explain", "install", "uninstall"]


def explain(text: Any) -> "list[Match]":
    """Match an error message, a traceback or a whole log (str, bytes or a file) against the
    knowledge base. Confident matches only, best first; empty when nothing is confident."""
    from .kb import explain as _explain

    return _explain(text)


def install() -> None:
    """Explain uncaught exceptions (sys.excepthook, threading.excepthook, IPython) after their traceback."""
    from .hook import install as _install

    _install()


def uninstall() -> None:
    from .hook import uninstall as _uninstall

    _uninstall()
