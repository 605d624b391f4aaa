"""`torchdoctor run -- COMMAND`: run a training command, pass its output through untouched, and
explain its failure.

- The child's stdout and stderr are copied chunk by chunk, as they come, to ours (bytes unchanged,
  no reordering within a stream); the last `tail_lines` lines of each are kept for the explanation.
  When our stdout and stderr are one file (`2>&1 | tee log`, a terminal), the child gets one pipe
  for both, so their interleaving is the one a direct run shows.
- Output that a grandchild writes after the child exited is not lost: what arrives within
  LATE_GRACE_S is copied here; if the pipes are still open then (a daemon the job left behind), a
  small copier process takes them over and copies to the end, as a direct run would show it, and
  the exit status is returned at once.
- The child's exit status is returned exactly; a death by signal N becomes 128+N, as in a shell.
- SIGTERM and SIGHUP are forwarded to the child. SIGINT is forwarded too, except when it came
  from a terminal whose foreground process group is ours: the terminal has already delivered
  Ctrl-C to the child, and a second SIGINT would cut its cleanup short.
- When the child fails, the explanation goes to stderr after its output. For torchrun (or
  `python -m torch.distributed.run`), a `sitecustomize` on PYTHONPATH installs `child_hook` in
  every worker: on an uncaught exception it writes the worker's record (rank, exception,
  traceback, explanation) for us, and the explanation into torchelastic's per-rank error file
  ($TORCHELASTIC_ERROR_FILE, written when the script has no `@record`, extended when it has), so
  torchrun's own "Root Cause" summary shows it. The rank that failed first is the root cause;
  ranks torchrun stopped afterwards are named as collateral.
"""

from __future__ import annotations

import collections
import glob
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import tempfile
import threading
import time
from typing import Any, BinaryIO

RUN_DIR = "TORCHDOCTOR_RUN_DIR"
HOOKED = "TORCHDOCTOR_HOOKED_ERROR_FILE"
MAX_LINE = 4000
LATE_GRACE_S = 2.0

_SITECUSTOMIZE = '''\
# Written by `torchdoctor run`: explain a torchrun worker's crash in its elastic error file.
try:
    from torchdoctor.runtime.supervise import child_hook as _td_child_hook
    _td_child_hook()
except Exception:
    pass
# Chain to the sitecustomize this one hides, if there is one.
import sys as _td_sys, importlib.util as _td_util
_td_here = __file__.rsplit("/", 1)[0]
for _td_dir in list(_td_sys.path):
    if _td_dir and _td_dir.rstrip("/") != _td_here.rstrip("/"):
        _td_spec = _td_util.spec_from_file_location("_td_next_sitecustomize", _td_dir + "/sitecustomize.py")
        import os as _td_os
        if _td_spec is not None and _td_os.path.exists(_td_dir + "/sitecustomize.py"):
            _td_spec.loader.exec_module(_td_util.module_from_spec(_td_spec))
            break
'''


def is_torchrun(argv: list[str]) -> bool:
    name = os.path.basename(argv[0]) if argv else ""
    if name in ("torchrun", "torchrun.exe"):
        return True
    if name.startswith("python"):
        for i, a in enumerate(argv[1:-1], 1):
            if a == "-m" and argv[i + 1] in ("torch.distributed.run", "torch.distributed.launch"):
                return True
    return False


class _Pump(threading.Thread):
    """Copy one pipe to one of our streams as bytes arrive; keep the last lines. `stop()` makes it
    return at its next poll without reading further (the pipe is then handed to a copier)."""

    def __init__(self, src: BinaryIO, dst: BinaryIO, tail_lines: int) -> None:
        super().__init__(daemon=True)
        self.src, self.dst = src, dst
        self.tail: collections.deque[bytes] = collections.deque(maxlen=tail_lines)
        self._partial = b""
        self._halt = threading.Event()
        self.eof = False

    def stop(self) -> None:
        self._halt.set()

    def run(self) -> None:
        import select

        fd = self.src.fileno()
        while not self._halt.is_set():
            try:
                ready, _, _ = select.select([fd], [], [], 0.1)
            except (OSError, ValueError):
                break
            if not ready:
                continue
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                self.eof = True
                break
            try:
                self.dst.write(chunk)
                self.dst.flush()
            except (OSError, ValueError):  # our reader left (| head); keep draining the child
                pass
            self._keep(chunk)
        if self._partial:
            self.tail.append(self._partial[:MAX_LINE])
            self._partial = b""

    def _keep(self, chunk: bytes) -> None:
        data = self._partial + chunk
        lines = data.split(b"\n")
        self._partial = lines.pop()[-MAX_LINE * 4:]
        for line in lines:
            self.tail.append(line[:MAX_LINE] + b"\n")

    def text(self) -> str:
        return b"".join(self.tail).decode("utf-8", "replace")


def _same_file(a: BinaryIO, b: BinaryIO) -> bool:
    """Our stdout and stderr are one file (one pipe, one terminal, one log)."""
    try:
        sa, sb = os.fstat(a.fileno()), os.fstat(b.fileno())
    except (OSError, ValueError, AttributeError, io_unsupported()):
        return False
    return (sa.st_dev, sa.st_ino) == (sb.st_dev, sb.st_ino)


def io_unsupported() -> type[Exception]:
    import io

    return io.UnsupportedOperation


def _hand_over(pumps: list[_Pump]) -> None:
    """The pipes a leftover grandchild still holds: a detached copier process copies them to our
    streams until their end, so the late output is shown, and we need not wait for it."""
    pairs = []
    for p in pumps:
        try:
            pairs.append((p.src.fileno(), p.dst.fileno()))
        except (OSError, ValueError, AttributeError, io_unsupported()):
            continue
    if not pairs or not hasattr(os, "fork"):
        return
    try:
        pid = os.fork()
    except OSError:
        return
    if pid:
        return
    try:  # the copier: no Python-level I/O, no threads of the parent's (only this one runs here)
        os.setsid()
        import select

        open_fds = dict(pairs)
        while open_fds:
            ready, _, _ = select.select(list(open_fds), [], [])
            for fd in ready:
                chunk = os.read(fd, 65536)
                if not chunk:
                    del open_fds[fd]
                    continue
                try:
                    os.write(open_fds[fd], chunk)
                except OSError:
                    pass
    finally:
        os._exit(0)


def _describe_status(code: int) -> str:
    if code < 0:
        try:
            return f"was killed by {signal.Signals(-code).name} (exit status {128 - code})"
        except ValueError:
            return f"was killed by signal {-code} (exit status {128 - code})"
    return f"exited with status {code}"


def run(argv: list[str], *, tail_lines: int = 400, hook: bool = True,
        out: BinaryIO | None = None, err: BinaryIO | None = None) -> int:
    """Run argv, stream its output, explain a failure on stderr; returns the shell-style status."""
    out = out or sys.stdout.buffer
    err = err or sys.stderr.buffer
    env = dict(os.environ)
    env.setdefault("PYTHONUNBUFFERED", "1")  # the child's prints arrive when they happen
    run_dir = None
    torchrun = is_torchrun(argv)
    if torchrun and hook:
        run_dir = tempfile.mkdtemp(prefix="torchdoctor-run-")
        site = os.path.join(run_dir, "site")
        os.makedirs(site)
        with open(os.path.join(site, "sitecustomize.py"), "w") as fh:
            fh.write(_SITECUSTOMIZE)
        env["PYTHONPATH"] = site + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        env[RUN_DIR] = run_dir
        env.pop(HOOKED, None)
    try:
        sys.stdout.flush()
        sys.stderr.flush()
        merged = _same_file(out, err)
        with _Forwarder() as fwd:
            proc = fwd.proc = subprocess.Popen(argv, stdout=subprocess.PIPE,
                                               stderr=subprocess.STDOUT if merged else subprocess.PIPE, env=env)
            pumps = [_Pump(proc.stdout, out, tail_lines)]  # type: ignore[arg-type]
            if not merged:
                pumps.append(_Pump(proc.stderr, err, tail_lines))  # type: ignore[arg-type]
            for p in pumps:
                p.start()
            proc.wait()
        interrupted = fwd.forwarded
        deadline = time.monotonic() + LATE_GRACE_S
        for p in pumps:
            p.join(timeout=max(0.0, deadline - time.monotonic()))
        open_pumps = [p for p in pumps if p.is_alive()]
        if open_pumps:  # a grandchild still holds a pipe: it may write later
            for p in open_pumps:
                p.stop()
            for p in open_pumps:
                p.join(timeout=1.0)
            _hand_over([p for p in open_pumps if not p.is_alive()])
        code = proc.returncode
        status = code if code >= 0 else 128 - code
        if code != 0 and not interrupted and code != -signal.SIGINT:
            out_tail = pumps[0].text()
            note = explain_failure(argv, code, out_tail if not merged else "", pumps[1].text() if not merged else out_tail,
                                   run_dir)
            try:
                err.write(note.encode("utf-8", "replace"))
                err.flush()
            except (OSError, ValueError):
                pass
        return status
    finally:
        if run_dir:
            import shutil

            shutil.rmtree(run_dir, ignore_errors=True)


def _terminal_delivers_sigint() -> bool:
    try:
        fd = sys.stdin.fileno()
        return os.isatty(fd) and os.tcgetpgrp(fd) == os.getpgrp()
    except (OSError, ValueError, AttributeError):
        return False


class _Forwarder:
    """SIGINT/SIGTERM/SIGHUP handlers, installed before the child starts (no window where a signal
    kills us instead of reaching it), restored afterwards."""

    def __init__(self) -> None:
        self.proc: subprocess.Popen[bytes] | None = None
        self.forwarded = False
        self.previous: dict[int, Any] = {}

    def __enter__(self) -> _Forwarder:
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
                try:
                    self.previous[sig] = signal.signal(sig, self._forward)
                except (ValueError, OSError):
                    pass
        return self

    def __exit__(self, *exc: object) -> None:
        for sig, handler in self.previous.items():
            signal.signal(sig, handler)

    def _forward(self, signum: int, _frame: Any) -> None:
        self.forwarded = True
        if self.proc is None:
            return
        if signum == signal.SIGINT and _terminal_delivers_sigint():
            return
        try:
            self.proc.send_signal(signum)
        except (ProcessLookupError, OSError):
            pass


# --------------------------------------------------------------------------- explaining

def _indent(text: str, pad: str = "  ") -> str:
    return "".join(pad + line if line.strip() else line for line in text.splitlines(True))


def read_rank_records(run_dir: str | None, tail: str) -> list[dict[str, Any]]:
    """The per-rank records our child hook wrote, plus torchelastic error files the summary names."""
    records: list[dict[str, Any]] = []
    seen_files = set()
    if run_dir:
        for path in sorted(glob.glob(os.path.join(run_dir, "rank_*.json"))):
            try:
                with open(path) as fh:
                    rec = json.load(fh)
            except (OSError, ValueError):
                continue
            records.append(rec)
            if rec.get("error_file"):
                seen_files.add(rec["error_file"])
    # Ranks whose script used @record (and --no-hook runs): torchrun's summary names their files.
    for m in re.finditer(r"rank\s*:\s*(\d+).*?error_file:\s*(\S+)", tail, re.DOTALL):
        rank, path = int(m.group(1)), m.group(2)
        if path in seen_files or path == "<N/A>" or not os.path.exists(path):
            continue
        seen_files.add(path)
        try:
            with open(path) as fh:
                data = json.load(fh)
            msg = data["message"]
            stack = msg.get("extraInfo", {}).get("py_callstack", "") if isinstance(msg, dict) else ""
            text = msg.get("message", "") if isinstance(msg, dict) else str(msg)
            ts = msg.get("extraInfo", {}).get("timestamp", "0") if isinstance(msg, dict) else "0"
        except (OSError, ValueError, KeyError, AttributeError):
            continue
        records.append({"rank": rank, "error": text, "traceback": stack or text, "time": float(ts or 0),
                        "error_file": path})
    if any(r.get("rank") is not None for r in records):
        records = [r for r in records if r.get("rank") is not None] + [r for r in records if r.get("rank") is None]
    records.sort(key=lambda r: r.get("time", 0))
    return records


# A CUDA kernel's device-side assertion, printed by the GPU (no rank prefix, not in any traceback):
# "/pytorch/aten/src/ATen/native/cuda/Indexing.cu:1515: indexSelectSmallIndex: block: [0,0,0], thread: [0,0,0]
# Assertion `srcIndex < srcSelectDimSize` failed."
_KERNEL_ASSERT = re.compile(r"^\S*\.cu:\d+: .{0,200}Assertion `.+` failed\.?\s*$", re.M)
# How a surviving rank's collective fails once a peer process is gone (gloo's TCP pair, NCCL's abort).
_PEER_GONE = re.compile(r"Connection (?:closed|reset) by peer|remote process exited|NCCL communicator was aborted")


def _kernel_assertions(text: str) -> list[str]:
    """The first few distinct kernel assertions of a log (one per kernel and condition)."""
    seen: dict[str, str] = {}
    for m in _KERNEL_ASSERT.finditer(text):
        line = m.group(0).strip()
        seen.setdefault(re.sub(r"block: \[[^\]]*\], thread: \[[^\]]*\]", "", line), line)
    return list(seen.values())[:4]


def explain_failure(argv: list[str], code: int, out_tail: str, err_tail: str, run_dir: str | None) -> str:
    from ..hook import explanation_text

    cmd = shlex.join(argv)
    if len(cmd) > 80:
        cmd = cmd[:79] + "…"  # a command is cut where it must be; the ellipsis says so
    lines = [f"\ntorchdoctor run: `{cmd}` {_describe_status(code)}.\n"]
    records = read_rank_records(run_dir, err_tail + out_tail)
    if records:
        first = records[0]
        asserts = _kernel_assertions(err_tail + out_tail)
        for i, rec in enumerate(records):
            who = f"rank {rec['rank']}" if rec.get("rank") is not None else f"pid {rec.get('pid')}"
            role = "failed first (the root cause)" if i == 0 and len(records) > 1 else "failed"
            error = rec.get("error", "").strip()
            lines.append(f"torchdoctor run: {who} {role}: {error}\n")
            traceback_text = rec.get("traceback", "")
            note = rec.get("explanation")
            if i > 0 and _PEER_GONE.search(error):
                first_who = f"rank {first['rank']}" if first.get("rank") is not None else "the first process"
                note = (f"A peer's exit broke this rank's connection: collateral of {first_who}'s failure above, "
                        "not a second cause.\n")
            elif asserts and "device-side assert" in traceback_text:
                # The kernel's own assertion names the bad index; it reaches the log, not the traceback.
                note = explanation_text("\n".join(asserts) + "\n" + traceback_text) or note
            elif note is None:
                note = explanation_text(traceback_text)
            lines.append(_indent(note) if note else "  no knowledge entry matches this error\n")
        if first.get("rank") is not None:
            lines.append("torchdoctor run: ranks that exited with SIGTERM after it were stopped by torchrun "
                         "(collateral, not a second cause).\n" if "SIGTERM" in err_tail else "")
        return "".join(lines)
    note = explanation_text(out_tail + err_tail)
    if note:
        lines.append(note)
    else:
        lines.append("torchdoctor run: no knowledge entry matches its output "
                     "(save the log and try `torchdoctor explain --file LOG`).\n")
    return "".join(lines)


# --------------------------------------------------------------------------- inside a worker

def child_hook() -> None:
    """Installed by the sitecustomize `torchdoctor run` puts on a torchrun job's PYTHONPATH.

    Active only in a torchrun worker (TORCHELASTIC_ERROR_FILE and LOCAL_RANK set) and not in its
    own subprocesses (DataLoader workers re-raise in the worker, which reports them)."""
    run_dir = os.environ.get(RUN_DIR)
    error_file = os.environ.get("TORCHELASTIC_ERROR_FILE")
    if not run_dir or not error_file or "LOCAL_RANK" not in os.environ:
        return
    if os.environ.get(HOOKED) == error_file:
        return  # a subprocess of the worker
    os.environ[HOOKED] = error_file
    import threading as _threading

    previous = sys.excepthook
    previous_thread = _threading.excepthook

    def hook(exc_type: Any, exc: Any, tb: Any) -> None:
        try:
            _record(exc_type, exc, tb, run_dir, error_file, thread=False)
        except Exception:
            pass
        previous(exc_type, exc, tb)

    def thread_hook(args: Any) -> None:
        try:
            if args.exc_type is not None and not issubclass(args.exc_type, SystemExit):
                _record(args.exc_type, args.exc_value, args.exc_traceback, run_dir, error_file, thread=True)
        except Exception:
            pass
        previous_thread(args)

    sys.excepthook = hook
    _threading.excepthook = thread_hook


def _record(exc_type: Any, exc: Any, tb: Any, run_dir: str, error_file: str, *, thread: bool) -> None:
    import traceback

    if issubclass(exc_type, KeyboardInterrupt):
        return
    from ..hook import explanation_text

    tb_text = "".join(traceback.format_exception(exc_type, exc, tb))
    note = explanation_text(tb_text)
    rank = os.environ.get("RANK")
    message = f"{exc_type.__name__}: {exc}"
    rec = {"rank": int(rank) if rank and rank.isdigit() else None, "local_rank": os.environ.get("LOCAL_RANK"),
           "pid": os.getpid(), "error": message.splitlines()[0][:500] if message else exc_type.__name__,
           "traceback": tb_text, "explanation": note, "time": time.time(), "thread": thread,
           "error_file": error_file}
    path = os.path.join(run_dir, f"rank_{rank}_{os.getpid()}.json")
    if thread and os.path.exists(path):
        return  # the first failure of this process is the one to keep
    with open(path + ".tmp", "w") as fh:
        json.dump(rec, fh)
    os.replace(path + ".tmp", path)
    _write_error_file(error_file, message, tb_text, note, thread)


def _write_error_file(path: str, message: str, tb_text: str, note: str, thread: bool) -> None:
    """torchelastic's error-file schema; the explanation rides in py_callstack (what "Root Cause" shows)."""
    extra = ("\n" + note.rstrip() + "\n") if note else ""
    data: dict[str, Any] | None = None
    if os.path.exists(path):
        try:
            with open(path) as fh:
                data = json.load(fh)
        except (OSError, ValueError):
            return
        info = data.get("message", {}).get("extraInfo", {}) if isinstance(data.get("message"), dict) else {}
        if info.get("torchdoctor", {}).get("thread") and not thread:
            data = None  # we wrote it for a thread; the main thread's failure replaces it
        elif not extra or extra in str(info.get("py_callstack", "")):
            return
        elif info:  # written by @record: add the explanation, keep the rest
            info["py_callstack"] = str(info.get("py_callstack", "")) + extra
            info["torchdoctor"] = {"thread": thread}
    if data is None:
        data = {"message": {"message": message, "extraInfo": {
            "py_callstack": tb_text + extra, "timestamp": str(int(time.time())),
            "torchdoctor": {"thread": thread}}}}
    with open(path + ".tmp", "w") as fh:
        json.dump(data, fh)
    os.replace(path + ".tmp", path)
