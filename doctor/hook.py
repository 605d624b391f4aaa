"""Explanations at the moment of a crash.

`torchdoctor.install()` chains onto `sys.excepthook` and `threading.excepthook` (and IPython's
custom exception handler inside IPython/Jupyter): the original traceback is printed exactly as
before, then, when the knowledge base recognises the error, a short explanation follows on stderr.
The exit status of the script is Python's own (1 for an uncaught exception); nothing is swallowed.

`python -m torchdoctor.hook train.py ARGS...` runs a script with the hook installed.
"""

from __future__ import annotations

import re
import sys
import threading
import traceback
from collections.abc import Callable
from typing import Any, TextIO

_installed: dict[str, Any] = {}


def explanation_text(text: str, *, limit: int = 2) -> str:
    """The short note printed after a traceback; empty when nothing matches confidently."""
    from .kb import explain

    matches = explain(text)
    if not matches:
        return ""
    best = matches[0]
    lines = [f"torchdoctor: {best.title} [{best.id}, confidence {best.confidence:.2f}]",
             f"  {best.entry.summary}"]
    from .fix_steps import steps
    from .kb.matcher import happened

    lines += [f"  {line}" for line in happened(best.entry, best.captures)]
    for i, fix in enumerate(best.entry.fixes[:limit], 1):
        lines.append(f"  fix {i}: {fix.summary}")
        for step in steps(fix.commands, fix.code if not fix.commands else ""):
            prompt = {"command": "$ ", "python": ">>> "}.get(step.kind, "")
            lines += [f"         {prompt if j == 0 else ' ' * len(prompt)}{line}".rstrip()
                      for j, line in enumerate(step.text.splitlines())]
    lines.append(f"  more: torchdoctor kb show {best.id}")
    others = [m.id for m in matches[1:3]]
    if others:
        lines.append(f"  also possible: {', '.join(others)}")
    return "\n".join(lines) + "\n"


def _explain_exception(exc_type: type[BaseException], exc: BaseException, tb: Any, stream: TextIO) -> None:
    try:
        if issubclass(exc_type, KeyboardInterrupt):
            return
        text = "".join(traceback.format_exception(exc_type, exc, tb))
        note = explanation_text(text)
        if note:
            where = _where(exc)
            if where:
                note = note.replace("\n", f"\n  where: {where}\n", 1)
            stream.write("\n" + note)
            stream.flush()
    except Exception:  # the hook must never turn one error into two
        pass


_WORKER = re.compile(r"Caught (\w+) in DataLoader worker process (\d+)")
_SPAWNED = re.compile(r"-- Process (\d+) terminated with the following error")


def _where(exc: BaseException) -> str:
    """Where the explained error really happened, when the exception only carries it as text:
    a DataLoader worker's error re-raised in the main process, a torch.multiprocessing.spawn child's."""
    text = str(exc)
    m = _WORKER.search(text)
    if m:
        return (f"DataLoader worker process {m.group(2)} (the {m.group(1)} it raised is re-raised here; "
                "num_workers=0 shows it directly)")
    m = _SPAWNED.search(text)
    if m:
        return f"process {m.group(1)} started by torch.multiprocessing.spawn"
    return ""


def install(stream: TextIO | None = None) -> None:
    """Explain uncaught exceptions (main thread, other threads, IPython cells) after their traceback."""
    if _installed:
        return
    out = stream

    previous: Callable[..., Any] = sys.excepthook

    def excepthook(exc_type, exc, tb):  # type: ignore[no-untyped-def]
        previous(exc_type, exc, tb)
        _explain_exception(exc_type, exc, tb, out or sys.stderr)

    previous_thread = threading.excepthook

    def thread_hook(args):  # type: ignore[no-untyped-def]
        previous_thread(args)
        if args.exc_type is not None and not issubclass(args.exc_type, SystemExit):
            _explain_exception(args.exc_type, args.exc_value, args.exc_traceback, out or sys.stderr)

    sys.excepthook = excepthook
    threading.excepthook = thread_hook
    _installed.update(sys=(previous, excepthook), threading=(previous_thread, thread_hook))
    _install_ipython(out)


def _install_ipython(out: TextIO | None) -> None:
    ipython_module = sys.modules.get("IPython")
    if ipython_module is None:
        return
    try:
        shell = ipython_module.get_ipython()
    except Exception:
        return
    if shell is None:
        return

    def handler(self, etype, value, tb, tb_offset=None):  # type: ignore[no-untyped-def]
        self.showtraceback((etype, value, tb), tb_offset=tb_offset)
        _explain_exception(etype, value, tb, out or sys.stderr)

    shell.set_custom_exc((Exception,), handler)
    _installed["ipython"] = shell


def uninstall() -> None:
    if "sys" in _installed and sys.excepthook is _installed["sys"][1]:
        sys.excepthook = _installed["sys"][0]
    if "threading" in _installed and threading.excepthook is _installed["threading"][1]:
        threading.excepthook = _installed["threading"][0]
    shell = _installed.get("ipython")
    if shell is not None:
        shell.set_custom_exc((), None)
    _installed.clear()


def main(argv: list[str] | None = None) -> None:
    """`python -m torchdoctor.hook script.py args...`: run the script as __main__ with the hook."""
    import runpy

    args = sys.argv[1:] if argv is None else argv
    if not args or args[0] in ("-h", "--help"):
        sys.stderr.write("usage: python -m torchdoctor.hook SCRIPT.py [ARGS...]\n")
        sys.exit(2)
    install()
    sys.argv = args
    runpy.run_path(args[0], run_name="__main__")


if __name__ == "__main__":
    main()
