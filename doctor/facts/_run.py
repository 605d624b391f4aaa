"""The one way collectors run a program: argv list, timeout, C locale, never raises."""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass


@dataclass(frozen=True)
class Ran:
    returncode: int | None  # None: it could not start, or timed out
    stdout: str
    stderr: str
    error: str | None = None  # "not found", "timed out after 5s", ...

    @property
    def ok(self) -> bool:
        return self.returncode == 0


def run(argv: list[str], timeout: float = 5.0, env: dict[str, str] | None = None, input: str | None = None) -> Ran:
    full_env = dict(os.environ if env is None else env)
    full_env.setdefault("LC_ALL", "C")
    try:
        proc = subprocess.run(argv, capture_output=True, timeout=timeout, env=full_env, input=input,
                              stdin=None if input is not None else subprocess.DEVNULL)
    except FileNotFoundError:
        return Ran(None, "", "", "not found")
    except PermissionError:
        return Ran(None, "", "", "permission denied")
    except OSError as exc:
        return Ran(None, "", "", f"could not start: {exc}")
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout.decode("utf-8", "replace") if isinstance(exc.stdout, bytes) else (exc.stdout or "")
        err = exc.stderr.decode("utf-8", "replace") if isinstance(exc.stderr, bytes) else (exc.stderr or "")
        return Ran(None, out, err, f"timed out after {timeout:g}s")
    return Ran(proc.returncode, proc.stdout.decode("utf-8", "replace"), proc.stderr.decode("utf-8", "replace"))
