"""Does the model trace, script and export? Each attempt is isolated (an exception is recorded,
never raised); the error's first line and the knowledge entries that explain it are kept.

Exports run with the model in eval mode (how models are exported) and under no_grad; the probe
restores the mode afterwards. ONNX is tried only when the `onnx` package is importable.
"""

from __future__ import annotations

import contextlib
import importlib.util
import inspect
import io
import time
import warnings
from collections.abc import Callable
from typing import Any


def forward_signature(model: Any) -> dict[str, Any]:
    """What the forward takes: keyword-only and variadic parameters are what TorchScript refuses."""
    try:
        sig = inspect.signature(model.forward)
    except (TypeError, ValueError):
        return {"known": False}
    kinds = {"keyword_only": [], "var_positional": None, "var_keyword": None}
    for name, p in sig.parameters.items():
        if p.kind is p.KEYWORD_ONLY:
            kinds["keyword_only"].append(name)
        elif p.kind is p.VAR_POSITIONAL:
            kinds["var_positional"] = name
        elif p.kind is p.VAR_KEYWORD:
            kinds["var_keyword"] = name
    return {"known": True, **kinds}


def _wrapper(model: Any) -> str | None:
    import torch

    wrappers = (torch.nn.DataParallel, torch.nn.parallel.DistributedDataParallel)
    return type(model).__name__ if isinstance(model, wrappers) else None


def try_exports(model: Any, args: tuple, kwargs: dict, mark: Callable[[str], None] | None = None) -> dict[str, Any]:
    import torch

    from .model_probe import _error

    out: dict[str, Any] = {"wrapper": _wrapper(model), "signature": forward_signature(model)}
    was_training = model.training
    model.eval()

    def attempt(name: str, fn: Callable[[], Any]) -> None:
        if mark is not None:
            mark(f"export: {name}")
        start = time.monotonic()
        # The exporters narrate ("[torch.onnx] Obtain model graph ... ✅") and tracing re-runs forward's
        # prints: none of it belongs in the report, which records each attempt's outcome.
        chatter = io.StringIO()
        try:
            with warnings.catch_warnings(), contextlib.redirect_stdout(chatter), contextlib.redirect_stderr(chatter):
                warnings.simplefilter("ignore")
                fn()
            out[name] = {"status": "ok", "seconds": round(time.monotonic() - start, 3)}
        except Exception as exc:  # noqa: BLE001
            err = _error(exc)
            out[name] = {"status": "failed", "error": err["first_line"] or err["type"], "type": err["type"],
                         "kb": err["kb"], "user_frame": err["user_frame"],
                         "seconds": round(time.monotonic() - start, 3)}

    try:
        with torch.no_grad():
            attempt("jit_trace", lambda: torch.jit.trace(model, args, example_kwarg_inputs=kwargs or None,
                                                         check_trace=False, strict=False))
            attempt("jit_script", lambda: torch.jit.script(model))
        attempt("torch_export", lambda: torch.export.export(model, args, kwargs or None))
        if importlib.util.find_spec("onnx") is None:
            out["onnx"] = {"status": "skipped", "error": "onnx is not installed"}
        else:
            with torch.no_grad():
                attempt("onnx", lambda: torch.onnx.export(model, args, io.BytesIO(), kwargs=kwargs or None))
    finally:
        model.train(was_training)
    return out
