"""Find the in-place operation that broke autograd: the line that did it, not only the op that
saved the tensor (which is all anomaly mode shows).

A `saved_tensors_hooks` pack hook records which storages autograd saved for backward, with the
user's frame; a `TorchDispatchMode` watches every aten op that writes to one of its arguments
(`alias_info.is_write` in the schema) and reports the first write to a saved storage. Keyed on the
untyped storage's data pointer, because views share storage and version counter. Slow (every op
goes through Python), so it only runs after backward has already failed with the in-place error.
"""

from __future__ import annotations

import os
import traceback
from collections.abc import Callable
from typing import Any

_HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _torch_dir() -> str:
    import torch

    return os.path.dirname(os.path.abspath(torch.__file__))


def user_frame(stack: list | None = None) -> dict[str, Any] | None:
    """The innermost frame outside torch and torchdoctor: {"file", "line", "code", "function"}."""
    torch_dir = _torch_dir()
    frames = stack if stack is not None else traceback.extract_stack()
    for fr in reversed(frames):
        path = os.path.abspath(fr.filename)
        if path.startswith((torch_dir, _HERE)) or fr.filename.startswith("<frozen"):
            continue
        if os.sep + "contextlib.py" in path or os.sep + "typing.py" in path:
            continue
        return {"file": fr.filename, "line": fr.lineno, "code": (fr.line or "").strip(), "function": fr.name}
    return None


def find_inplace(run_forward: Callable[[], Any]) -> dict[str, Any] | None:
    """Run `run_forward()` (which must build the graph) under the finder. The first in-place write
    to a tensor saved for backward, as {"op", "culprit": frame, "saved_by": frame}, or None."""
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode

    saved: dict[int, dict[str, Any]] = {}

    def pack(t):
        try:
            ptr = t.untyped_storage().data_ptr()
        except Exception:  # noqa: BLE001
            return t
        if ptr and ptr not in saved:
            saved[ptr] = {"frame": user_frame(), "shape": list(t.shape)}
        return t

    def unpack(t):
        return t

    found: list[dict[str, Any]] = []

    class Finder(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            if not found:
                schema = func._schema
                if schema.is_mutable:
                    written = []
                    for i, arg in enumerate(schema.arguments):
                        if arg.alias_info is not None and arg.alias_info.is_write:
                            value = args[i] if i < len(args) else kwargs.get(arg.name)
                            if isinstance(value, torch.Tensor):
                                written.append(value)
                    for t in written:
                        try:
                            ptr = t.untyped_storage().data_ptr()
                        except Exception:  # noqa: BLE001, S112
                            continue
                        if ptr in saved:
                            found.append({"op": str(func.overloadpacket.__name__) if hasattr(func, "overloadpacket") else str(func),
                                          "aten": str(func), "culprit": user_frame(), "saved_by": saved[ptr]["frame"],
                                          "shape": saved[ptr]["shape"]})
                            break
            return func(*args, **kwargs)

    with torch.autograd.graph.saved_tensors_hooks(pack, unpack), Finder():
        try:
            run_forward()
        except Exception:  # noqa: BLE001, S110
            pass
    return found[0] if found else None
