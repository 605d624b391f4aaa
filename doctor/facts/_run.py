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


class Started:
    """A program already running; `wait()` collects it like `run()` would have."""

    def __init__(self, proc: subprocess.Popen | None, failed: Ran | None = None, input: str | None = None) -> None:
        self.proc, self.failed, self.input = proc, failed, input

    def wait(self, timeout: float) -> Ran:
        if self.proc is None:
            return self.failed or Ran(None, "", "", "could not start")
        try:
            out, err = self.proc.communicate(self.input.encode() if self.input is not None else None, timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            out, err = self.proc.communicate()
            return Ran(None, _text(out), _text(err), f"timed out after {timeout:g}s")
        return Ran(self.proc.returncode, _text(out), _text(err))

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def _text(data: bytes | None) -> str:
    return data.decode("utf-8", "replace") if data else ""


def start(argv: list[str], env: dict[str, str] | None = None, input: str | None = None) -> Started:
    full_env = dict(os.environ if env is None else env)
    full_env.setdefault("LC_ALL", "C")
    try:
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=full_env,
                                stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL)
    except FileNotFoundError:
        return Started(None, Ran(None, "", "", "not found"))
    except PermissionError:
        return Started(None, Ran(None, "", "", "permission denied"))
    except OSError as exc:
        return Started(None, Ran(None, "", "", f"could not start: {exc}"))
    return Started(proc, input=input)


def run(argv: list[str], timeout: float = 5.0, env: dict[str, str] | None = None, input: str | None = None) -> Ran:
    return start(argv, env=env, input=input).wait(timeout)
