"""torch as the target interpreter sees it: `import torch` in a child process, with a time limit.

A torch whose import raises, segfaults or hangs becomes facts (import_status, the error, the signal,
the faulthandler stack), never a crash or a wait in torchdoctor. The child is `_torch_child.py`,
sent as text; this module only starts it and reads its answer. With --quick no child runs: the
version facts come from torch/version.py read as text (the same reader the packages collector uses).
"""

from __future__ import annotations

import json
import signal as _signal
import time
from typing import Any

from . import _probe_launch
from .model import FactsError, PythonFacts, TorchFacts, Unknown, decode, known
from .packages import torch_version_file
from .python_env import last_payload

STDERR_TAIL = 6000  # characters of the child's stderr kept (the faulthandler stack fits)
_ERROR_FIELDS = ("error_type", "error_message", "traceback", "signal")


def signal_name(number: int) -> str:
    try:
        return _signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _decode(text: str | None) -> dict[str, Any] | None:
    try:
        data = json.loads(text) if text is not None else None
    except ValueError:  # cut off mid-write by a crash
        return None
    return data if isinstance(data, dict) else None


def _facts(data: dict[str, Any], reason: str) -> TorchFacts:
    data = {k: v for k, v in data.items() if k in TorchFacts.__dataclass_fields__}
    try:
        return decode(TorchFacts, data, strict=False, reason=reason, where="torch")
    except FactsError as exc:  # a fake or very odd torch gave a value of the wrong type
        return TorchFacts(import_status=data.get("import_status", Unknown(str(exc))),
                          **{k: Unknown(f"unreadable probe answer: {exc}") for k in TorchFacts.__dataclass_fields__
                             if k not in ("import_status",)})


def quick(python: PythonFacts) -> TorchFacts:
    """No import: what torch/version.py says, everything else honestly unknown."""
    vf = torch_version_file(python.sys_path) if known(python.sys_path) else None
    skipped = Unknown("not collected with --quick")
    fields: dict[str, Any] = {name: skipped for name in TorchFacts.__dataclass_fields__}
    if vf is None:
        fields.update(import_status="not-installed", **{k: None for k in _ERROR_FIELDS})
        return TorchFacts(**fields)
    no_value = Unknown(f"{vf.path} does not say")
    fields.update(
        version=vf.version if vf.version is not None else no_value,
        cuda=vf.cuda, hip=vf.hip,
        git_version=vf.git_version if vf.git_version is not None else no_value,
        debug=vf.debug if vf.debug is not None else no_value,
    )
    return TorchFacts(**fields)


def collect(target, python: PythonFacts) -> TorchFacts:
    if target.quick:
        return quick(python)
    timeout = float(target.probe_timeout)
    launched = _probe_launch.take(target.python, timeout) or \
        _probe_launch.launch(target.python, timeout, dict(target.environ))
    child, marker, start = launched
    ran = child.wait(max(0.1, timeout - (time.perf_counter() - start)))
    duration = round(time.perf_counter() - start, 3)
    return interpret(ran, marker, duration, timeout)


def interpret(ran, marker: str, duration: float, timeout: float) -> TorchFacts:
    """Turn the child's exit, stdout and stderr into TorchFacts."""
    payload = _decode(last_payload(ran.stdout, marker))
    stderr_tail = ran.stderr[-STDERR_TAIL:]
    timed_out = ran.error is not None and ran.error.startswith("timed out")
    killed_by = -ran.returncode if ran.returncode is not None and ran.returncode < 0 else None

    if payload is None:
        if ran.returncode is None and not timed_out:  # could not start at all
            reason = f"could not run the interpreter: {ran.error}"
            return TorchFacts(**{k: Unknown(reason) for k in TorchFacts.__dataclass_fields__})
        if timed_out:
            data = {"import_status": "timeout", "error_type": None, "signal": None,
                    "error_message": f"import torch did not finish within {timeout:g}s", "traceback": None}
            reason = "torch import timed out"
        elif killed_by is not None:
            data = {"import_status": "crashed", "error_type": None, "signal": killed_by, "traceback": None,
                    "error_message": f"the process was killed by {signal_name(killed_by)} while importing torch"}
            reason = "torch import crashed"
        else:
            data = {"import_status": "crashed", "error_type": None, "signal": None, "traceback": None,
                    "error_message": f"the process exited with status {ran.returncode} before reporting"}
            reason = "torch import crashed"
        data.update(warnings=[], stderr_tail=stderr_tail, duration_s=duration)
        return _facts(data, reason)

    status = payload.get("import_status")
    stage = payload.pop("stage", "done")
    warnings = list(payload.get("warnings") or [])
    if stage == "family" and status == "ok":
        # torch and CUDA answered; importing torchvision/torchaudio after them hung or killed the child.
        what = f"did not finish within {timeout:g}s" if timed_out else (
            f"killed the process ({signal_name(killed_by)})" if killed_by is not None
            else f"ended the process (exit status {ran.returncode})")
        payload["family_imports"] = {"unknown": f"importing torchvision/torchaudio after torch {what}"}
        warnings.append(f"torchdoctor: importing torchvision/torchaudio after torch {what}")
    elif stage != "done" and status == "ok":
        # torch imported; the child then hung or died in torch.cuda.is_available()/device_count().
        if timed_out:
            what = f"did not return within {timeout:g}s"
        elif killed_by is not None:
            what = f"killed the process ({signal_name(killed_by)})"
        else:
            what = f"ended the process (exit status {ran.returncode})"
        note = f"torch.cuda.is_available() {what}; the stack is in stderr_tail"
        warnings.append(f"torchdoctor: {note}")
        for name in ("cuda_available", "device_count"):
            payload[name] = {"unknown": note}
        payload["signal"] = killed_by
    payload.update(warnings=warnings, stderr_tail=stderr_tail, duration_s=duration)
    reason = {"ok": "not reported by the probe", "not-installed": "torch is not installed"}.get(
        status, f"torch did not import ({status})")
    return _facts(payload, reason)
