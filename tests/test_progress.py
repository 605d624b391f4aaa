"""Issue 14 item 9: a spinner during long work on a terminal, nothing when piped or in JSON."""

from __future__ import annotations

import io
import os
import pty
import select
import subprocess
import sys

from torchdoctor.progress import status


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_status_is_silent_off_a_terminal(monkeypatch):
    plain = io.StringIO()
    with status("working", stream=plain):
        pass
    assert plain.getvalue() == ""
    tty = _Tty()
    monkeypatch.setattr(sys, "stdout", _Tty())
    with status("working", stream=tty, enabled=False):  # e.g. --format json
        pass
    assert tty.getvalue() == ""
    with status("importing the model's code", stream=tty):
        pass
    assert "importing the model's code" in tty.getvalue()


def _run_on_a_terminal(args: list[str], cwd: str) -> str:
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "torchdoctor", *args], stdin=slave, stdout=slave, stderr=slave,
                            cwd=cwd, env={**os.environ, "TERM": "xterm", "COLUMNS": "100"}, close_fds=True)
    os.close(slave)
    out = b""
    while True:
        ready, _, _ = select.select([master], [], [], 120)
        if not ready:
            break
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        out += chunk
    proc.wait(timeout=120)
    os.close(master)
    return out.decode("utf-8", "replace")


def test_check_shows_progress_on_a_terminal_only(tmp_path):
    for i in range(3):
        (tmp_path / f"m{i}.py").write_text("import torch\nx = torch.ones(2)\n")
    shown = _run_on_a_terminal(["check", "--no-cache", "."], str(tmp_path))
    assert "torchdoctor check: reading ." in shown and "All checks passed (3 files)." in shown
    piped = subprocess.run([sys.executable, "-m", "torchdoctor", "check", "--no-cache", "."], cwd=tmp_path,
                           capture_output=True, text=True, timeout=120)
    assert "reading" not in piped.stdout + piped.stderr and "\x1b" not in piped.stdout + piped.stderr
