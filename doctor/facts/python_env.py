"""The target interpreter: version, platform, prefixes and the sys.path every other collector reads.

For the current interpreter the facts are computed in-process; for `--python PATH` the same code
(`_pyprobe.py`, sent as text) runs in the target interpreter, which prints them as JSON between
markers so that a sitecustomize that prints cannot break the parse.
"""

from __future__ import annotations

import json
import os
import shutil
from typing import Any

from . import _pyprobe
from ._run import run
from .model import PythonFacts, Unknown

MIN_TARGET = (3, 8)
_VERSION_TIMEOUT = 15.0


def source_of(module) -> str:
    """A probe module's own text, to send to another interpreter with `-c`."""
    with open(module.__file__, encoding="utf-8") as fh:
        return fh.read()


# Fields whose JSON null means "could not be read" rather than "none": they become Unknown.
_NULL_IS_UNKNOWN = {
    "os_release": "no /etc/os-release",
    "hostname": "no host name",
    "user": "no user name",
}


def new_marker() -> str:
    return f"@@torchdoctor-{os.urandom(8).hex()}@@"


def last_payload(text: str, marker: str) -> str | None:
    """The last complete `marker + payload + marker` a child printed; stray output around it is ignored."""
    chunks = text.split(marker)
    complete = chunks[1:-1:2]  # payloads sit between pairs of markers
    return complete[-1] if complete else None


def _from_dict(data: dict[str, Any]) -> PythonFacts:
    fields: dict[str, Any] = {}
    for name in PythonFacts.__dataclass_fields__:
        if name not in data:
            fields[name] = Unknown("not reported by the interpreter")
        elif data[name] is None and name in _NULL_IS_UNKNOWN:
            fields[name] = Unknown(_NULL_IS_UNKNOWN[name])
        else:
            fields[name] = data[name]
    return PythonFacts(**fields)


def collect(target) -> PythonFacts:
    if target.is_current:
        return _from_dict(_pyprobe.python_facts(target.environ, drop_first=True))
    marker = new_marker()
    code = (source_of(_pyprobe) + "\nimport json as _json\n"
            f"sys.stdout.write({marker!r} + _json.dumps(python_facts(os.environ)) + {marker!r})\n"
            "sys.stdout.flush()\n")
    ran = run([target.python, "-c", code], timeout=target.probe_timeout, env=dict(target.environ))
    payload = last_payload(ran.stdout, marker)
    if payload is None:
        why = ran.error or f"exit status {ran.returncode}"
        tail = ran.stderr.strip().splitlines()[-1:] or [""]
        raise RuntimeError(f"{target.python} did not report its facts ({why}) {tail[0]}".rstrip())
    return _from_dict(json.loads(payload))


# --------------------------------------------------------------------------- --python validation

_VERSION_SNIPPET = (
    # Python 2 syntax too, so that a Python 2 interpreter can say what it is.
    "import sys; sys.stdout.write('{m}%d.%d.%d %s{m}' % (tuple(sys.version_info[:3]) + (sys.executable,)))"
)


def validate_interpreter(path: str) -> str | None:
    """None when `path` runs a Python torchdoctor can examine, else one line saying what is wrong.

    Used by the CLI for `--python`: a typo, a folder, a text file or /bin/ls must give a clear
    line, never a traceback.
    """
    label = f"--python {path}"
    if not path:
        return "--python: no path given"
    if os.sep not in path and not os.path.exists(path):
        found = shutil.which(path)
        if found is None:
            return f"{label}: not found (no such file, and no program of that name on PATH)"
        path = found
    if not os.path.exists(path):
        return f"{label}: not found"
    if os.path.isdir(path):
        for candidate in ("bin/python", "Scripts/python.exe", "python"):
            inside = os.path.join(path, candidate)
            if os.path.isfile(inside) and os.access(inside, os.X_OK):
                return f"{label}: is a directory, not a Python interpreter (did you mean {inside}?)"
        return f"{label}: is a directory, not a Python interpreter"
    if not os.access(path, os.X_OK):
        return f"{label}: is not executable, so it is not a Python interpreter"
    marker = new_marker()
    ran = run([path, "-c", _VERSION_SNIPPET.format(m=marker)], timeout=_VERSION_TIMEOUT)
    if ran.error is not None and ran.error.startswith("timed out"):
        return f"{label}: did not answer within {_VERSION_TIMEOUT:g}s when asked for its version"
    payload = last_payload(ran.stdout, marker)
    if payload is None:
        return f"{label}: is not a Python interpreter (running it with -c did not report a Python version)"
    version_text = payload.split(" ", 1)[0]
    try:
        version = tuple(int(p) for p in version_text.split("."))
    except ValueError:
        return f"{label}: is not a Python interpreter (it reported {payload!r})"
    if version[:2] < MIN_TARGET:
        return (f"{label}: is Python {version_text}; torchdoctor needs the target to be Python "
                f"{MIN_TARGET[0]}.{MIN_TARGET[1]}+")
    return None
