"""torchdoctor: diagnostics for PyTorch.

- `torchdoctor.explain(text)` -> list of knowledge-base matches (best first; each has .id and .confidence)
- `torchdoctor.install()` explains uncaught exceptions right after their traceback
- `torchdoctor.check_model(model, example_inputs, loss_fn=None)` -> list of Findings (one training step)

Importing this package imports neither torch nor the heavy parts: they load on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from .kb.matcher import Match
    from .model import Finding

__all__ = ["__version__", "check_model", "explain", "install", "uninstall"]


def explain(text: Any) -> list[Match]:
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


def check_model(model: Any, example_inputs: Any, loss_fn: Any = None, *, dataset_size: int | None = None,
                world_size: int = 1, drop_last: bool = False, export: bool = True,
                include_ok: bool = False) -> list[Finding]:
    """Run one training step of `model` and return what would break at scale (the TI2xx rules of
    `torchdoctor model`): parameters without gradient, outputs outside the loss, BatchNorm at batch 1,
    mixed devices/dtypes, non-leaf parameters, in-place ops that break backward, NaN/Inf, exports.

    `example_inputs`: a tuple is the positional arguments, a dict the keyword arguments, anything
    else the one argument. `loss_fn(outputs)` returns the loss (default: the sum of the mean of every
    output). The model's mode, gradients and buffers are restored afterwards. Returns only the
    problems (warnings, errors) unless `include_ok=True`."""
    from .runtime.model_probe import check_model as _check_model

    return _check_model(model, example_inputs, loss_fn, dataset_size=dataset_size, world_size=world_size,
                        drop_last=drop_last, export=export, include_ok=include_ok)
