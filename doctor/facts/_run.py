"""The one way collectors run a program: argv list, timeout, C locale, never raises.

A program runs in a session of its own (its own process group), so that on a timeout the whole
group is killed, grandchildren included; and once it has exited, what it left running in that
group is killed too. Output is read as it comes and only the last MAX_OUTPUT bytes of each stream
are kept (the probe's report is printed last): an import that prints gigabytes costs no memory. A
grandchild that escaped the group and keeps the pipe open cannot keep the caller waiting past the
timeout: after the program exits, its pipes get DRAIN_S more seconds to reach their end.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from dataclasses import dataclass

MAX_OUTPUT = 8 * 1024 * 1024  # per stream, the newest bytes
DRAIN_S = 1.0


@dataclass(frozen=True)
class Ran:
    returncode: int | None  # None: it could not start, or timed out
    stdout: str
    stderr: str
    error: str | None = None  # "not found", "timed out after 5s", ...

    @property
    def ok(self) -> bool:
        return self.returncode == 0


class _Tail(threading.Thread):
    """Reads one pipe to its end, keeping the newest `limit` bytes."""

    def __init__(self, fd: int, limit: int = MAX_OUTPUT) -> None:
        super().__init__(daemon=True)
        self.fd, self.limit = fd, limit
        self.buf = bytearray()
        self.dropped = 0
        self.lock = threading.Lock()

    def run(self) -> None:
        while True:
            try:
                chunk = os.read(self.fd, 1 << 16)
            except OSError:
                break
            if not chunk:
                break
            with self.lock:
                self.buf += chunk
                if len(self.buf) > 2 * self.limit:
                    cut = len(self.buf) - self.limit
                    del self.buf[:cut]
                    self.dropped += cut

    def data(self) -> bytes:
        with self.lock:
            return bytes(self.buf[-self.limit:])


class Started:
    """A program already running; `wait()` collects it like `run()` would have."""

    def __init__(self, proc: subprocess.Popen | None, failed: Ran | None = None, input: str | None = None) -> None:
        self.proc, self.failed, self.input = proc, failed, input
        self._readers: tuple[_Tail, _Tail] | None = None
        if proc is not None:
            self._readers = (_Tail(proc.stdout.fileno()), _Tail(proc.stderr.fileno()))  # type: ignore[union-attr]
            for r in self._readers:
                r.start()
            if proc.stdin is not None:
                threading.Thread(target=self._feed, daemon=True).start()

    def _feed(self) -> None:
        try:
            if self.input is not None:
                self.proc.stdin.write(self.input.encode())  # type: ignore[union-attr]
            self.proc.stdin.close()  # type: ignore[union-attr]
        except (OSError, ValueError):
            pass

    def wait(self, timeout: float) -> Ran:
        if self.proc is None or self._readers is None:
            return self.failed or Ran(None, "", "", "could not start")
        try:
            self.proc.wait(timeout=max(0.0, timeout))
            timed_out = False
        except subprocess.TimeoutExpired:
            timed_out = True
            self._kill_group()
            self.proc.wait()
        # Exited: its pipes reach their end once everything it started is gone.
        grace = time.monotonic() + DRAIN_S
        for r in self._readers:
            r.join(max(0.0, grace - time.monotonic()))
        self._kill_group()
        for r in self._readers:
            r.join(0.2)
        out, err = (_text(r.data()) for r in self._readers)
        self._close()
        if timed_out:
            return Ran(None, out, err, f"timed out after {timeout:g}s")
        return Ran(self.proc.returncode, out, err)

    def _kill_group(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)  # type: ignore[union-attr]
        except (OSError, AttributeError):
            try:
                self.proc.kill()  # type: ignore[union-attr]
            except OSError:
                pass

    def _close(self) -> None:
        for stream, reader in zip((self.proc.stdout, self.proc.stderr), self._readers or ()):  # type: ignore[union-attr]
            if reader.is_alive():  # blocked on a pipe an escaped grandchild holds: closing would
                continue  # let the descriptor number be reused under its read()
            try:
                stream.close()
            except (OSError, AttributeError):
                pass

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self._kill_group()
            self.proc.wait()


def _text(data: bytes | None) -> str:
    return data.decode("utf-8", "replace") if data else ""


def start(argv: list[str], env: dict[str, str] | None = None, input: str | None = None) -> Started:
    full_env = dict(os.environ if env is None else env)
    full_env.setdefault("LC_ALL", "C")
    try:
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=full_env,
                                stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
                                start_new_session=os.name == "posix")
    except FileNotFoundError:
        return Started(None, Ran(None, "", "", "not found"))
    except PermissionError:
        return Started(None, Ran(None, "", "", "permission denied"))
    except OSError as exc:
        return Started(None, Ran(None, "", "", f"could not start: {exc}"))
    return Started(proc, input=input)


def run(argv: list[str], timeout: float = 5.0, env: dict[str, str] | None = None, input: str | None = None) -> Ran:
    return start(argv, env=env, input=input).wait(timeout)
