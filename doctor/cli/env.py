"""`torchdoctor env`: examine this machine (or saved facts). Also the facts plumbing other commands
share: `target()` (the interpreter to diagnose), `PendingFacts` (collection in a background thread)
and `load_facts()` (a saved report)."""

from __future__ import annotations

import os
import sys
from enum import Enum
from pathlib import Path
from typing import List, Optional

import typer

from ..facts._probe_launch import DEFAULT_TIMEOUT as DEFAULT_PROBE_TIMEOUT  # a tiny module
from .common import UsageError, stdout_console, write


class EnvFormat(str, Enum):
    text = "text"
    json = "json"
    markdown = "markdown"


class FailOn(str, Enum):
    error = "error"
    warning = "warning"


def env_command(
    checks: Optional[List[str]] = typer.Argument(None, help="Run only these checks (codes like TE201 or names like driver-too-old)."),
    format: EnvFormat = typer.Option(EnvFormat.text, "--format", "-f", help="text, json (the torchdoctor.env/v1 schema) or markdown (for a bug report, names redacted)."),
    facts_file: Optional[Path] = typer.Option(None, "--facts", help="Diagnose saved facts instead of this machine: torchdoctor JSON, or pasted text: `python -m torch.utils.collect_env`, `nvidia-smi`, `pip list`/`pip freeze`/`conda list`, torch's warnings ('-' reads stdin)."),
    python: Optional[str] = typer.Option(None, "--python", help="Diagnose another interpreter's environment (a virtualenv's or conda env's python)."),
    fix: bool = typer.Option(False, "--fix", help="Apply the fixes that are safe to automate (stale extension build locks), showing exactly what is removed."),
    fail_on: FailOn = typer.Option(FailOn.error, "--fail-on", help="Exit 1 when a finding is at least this severe."),
    quick: bool = typer.Option(False, "--quick", help="Skip importing torch: facts from package metadata, version.py and NVML only."),
    timeout: float = typer.Option(DEFAULT_PROBE_TIMEOUT, "--timeout", min=1.0, help="Seconds the child `import torch` may take before it counts as a hang."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Show the evidence of passing checks too."),
    list_checks: bool = typer.Option(False, "--list", help="List the checks and exit."),
) -> None:
    """Examine this machine (or saved facts): torch, driver, GPUs, toolchain, host, distributed."""
    if fix and facts_file is not None:
        raise UsageError("--fix changes this machine; it cannot be combined with --facts")
    if facts_file is not None and python is not None:
        raise UsageError("--facts and --python both say what to diagnose; give one")
    # Start the slow part first: the child `import torch` runs while the checks are loaded.
    pending = None
    if not list_checks and facts_file is None:
        pending = PendingFacts(target(python, quick, timeout))

    from ..registry import env_checks, find_env_check

    all_checks = env_checks()
    if list_checks:
        width = max(len(c.name) for c in all_checks)
        for c in all_checks:
            write(f"{c.code}  {c.name:<{width}}  {c.title}\n")
        return
    selected = all_checks
    if checks:
        selected = []
        for key in checks:
            found = find_env_check(key)
            if found is None:
                raise UsageError(f"no check named {key!r} (see `torchdoctor env --list`)")
            selected.append(found)

    if facts_file is not None:
        facts = load_facts(facts_file)
    else:
        from ..progress import status

        with status("torchdoctor env: importing torch in a child process and reading the machine",
                    enabled=format is EnvFormat.text):
            facts = pending.result()

    from ..runner import exit_code, run_env_checks

    findings = run_env_checks(facts, selected)
    if fix:
        facts, findings = _apply_fixes(facts, findings, selected, python, quick, timeout)

    if format is EnvFormat.json:
        from ..render.json_report import render_env as render_json

        write(render_json(facts, findings))
    elif format is EnvFormat.markdown:
        from ..render.markdown import render_env as render_md

        write(render_md(facts, findings, interpreter=interpreter_label(facts, python)))
    else:
        from ..render.human import render_env as render_human

        render_human(facts, findings, stdout_console(), verbose=verbose, interpreter=interpreter_label(facts, python))
    raise typer.Exit(exit_code(findings, fail_on.value))


def interpreter_label(facts, python: Optional[str]) -> Optional[str]:
    """The interpreter to name in the header: only when --python chose another one."""
    if python is None:
        return None
    from ..facts.model import known

    exe = facts.python.executable if known(facts.python) and known(facts.python.executable) else None
    return exe or python


class PendingFacts:
    """Facts being collected in a daemon thread (a daemon, so a usage error can exit at once)."""

    def __init__(self, target) -> None:
        import threading

        self._box: dict = {}
        self._thread = threading.Thread(target=self._work, args=(target,), daemon=True)
        self._thread.start()

    def _work(self, target) -> None:
        from ..facts import collect

        try:
            self._box["facts"] = collect(target)
        except BaseException as exc:  # handed to the main thread, which reports it
            self._box["error"] = exc

    def result(self):
        from ..facts.model import FactsError

        self._thread.join()
        if "error" in self._box:
            exc = self._box["error"]
            if isinstance(exc, FactsError):
                raise UsageError(str(exc))
            raise exc
        return self._box["facts"]


def target(python: Optional[str], quick: bool, timeout: float):
    from ..facts import Target
    from ..facts.python_env import validate_interpreter

    if python is None:
        return Target(probe_timeout=timeout, quick=quick)
    problem = validate_interpreter(python)
    if problem:
        raise UsageError(problem)
    is_current = os.path.abspath(python) == os.path.abspath(sys.executable)
    return Target(python=python, is_current=is_current, probe_timeout=timeout, quick=quick)


MAX_FACTS_BYTES = 64 * 1024 * 1024


def load_facts(path: Path):
    name = "standard input" if str(path) == "-" else str(path)
    try:
        return _versions_checked(_load_facts_from(path, name), name)
    except RecursionError:  # JSON nested thousands deep: no report of ours looks like that
        raise UsageError(f"--facts {name}: nested too deeply to be a torchdoctor report") from None


# A version in saved facts starts like one ("2.13.0+cu130", "580.65.06", "v12.4", "13.0"); the
# checks compare versions, so anything else is made unknown with the reason, not fed to them.
_VERSION_START = None
_NOT_VERSIONS = {"git_version", "schema_version", "torchdoctor_version"}


def _versions_checked(facts, name: str):
    import dataclasses
    import re

    from ..facts.model import Unknown

    global _VERSION_START
    if _VERSION_START is None:
        _VERSION_START = re.compile(r"v?\d+(?:\.\d+)*(?:[.+\-_a-zA-Z0-9]*)$")

    def fix(obj):
        if isinstance(obj, list):
            return [fix(x) for x in obj]
        if not dataclasses.is_dataclass(obj) or isinstance(obj, type) or isinstance(obj, Unknown):
            return obj
        changes = {}
        for f in dataclasses.fields(obj):
            value = getattr(obj, f.name)
            if (isinstance(value, str) and f.name not in _NOT_VERSIONS
                    and (f.name.endswith("version") or f.name in ("cuda", "hip"))
                    and not _VERSION_START.match(value.strip())):
                if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                    # A record's own version (a package's) cannot be unknown, as the decoder already
                    # refuses {"unknown": ...} there: the checks read it as a string.
                    raise UsageError(f"--facts {name}: {type(obj).__name__}.{f.name} {value[:40]!r} is not a version")
                changes[f.name] = Unknown(f"{value[:40]!r} in the saved facts is not a version")
            else:
                new = fix(value)
                if new is not value:
                    changes[f.name] = new
        return dataclasses.replace(obj, **changes) if changes else obj

    return fix(facts)


def _load_facts_from(path: Path, name: str):
    import json

    from ..facts.model import Facts, FactsError
    from ..render.json_report import ENV_SCHEMA

    try:
        if str(path) == "-":
            stdin = getattr(sys.stdin, "buffer", None)
            if stdin is None:
                raise UsageError("--facts -: standard input is closed")
            raw = stdin.read(MAX_FACTS_BYTES + 1)
        else:
            with open(path, "rb") as fh:
                raw = fh.read(MAX_FACTS_BYTES + 1)
    except IsADirectoryError:
        raise UsageError(f"--facts {name}: is a directory, not a file") from None
    except OSError as exc:
        raise UsageError(f"--facts {name}: {exc.strerror or exc}") from None
    if len(raw) > MAX_FACTS_BYTES:
        raise UsageError(f"--facts {name}: larger than {MAX_FACTS_BYTES >> 20} MiB; a saved report is far smaller")
    text = raw.decode("utf-8", "replace").lstrip("\ufeff")
    if not text.strip():
        raise UsageError(f"--facts {name}: the file is empty")
    from ..facts import pasted

    if text.lstrip().startswith("{"):
        # Other programs' dumps open with "{" too (A1111's sysinfo JSON, OpenMMLab's printed dict):
        # without our schema key they are pastes, read as such where the paste reader knows them.
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            data, error = None, f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
        schema = data.get("schema") if isinstance(data, dict) else None
        if data is not None:
            error = (f"schema is {schema!r}, expected {ENV_SCHEMA!r} (save facts with `torchdoctor env --format json`)"
                     if schema != ENV_SCHEMA else None)
        if error is None:
            try:
                facts = Facts.from_json(data.get("facts"), default_reason="not in the saved facts")
            except FactsError as exc:
                raise UsageError(f"--facts {name}: {exc}") from None
            from dataclasses import replace

            return replace(facts, meta=replace(facts.meta, source="json"))
        if schema is not None or pasted.read(text) is None:
            raise UsageError(f"--facts {name}: {error}")

    read = pasted.read(text)
    if read is not None:
        data, kinds = read
        try:
            return Facts.from_json(data, default_reason="not in the " + " or the ".join(kinds))
        except FactsError as exc:
            raise UsageError(f"--facts {name}: could not read the {' and '.join(kinds)}: {exc}") from None
    accepted = ("neither torchdoctor JSON (`torchdoctor env --format json`) nor a pasted `python -m torch.utils.collect_env` "
             "report (or a project's copy), `nvidia-smi` output, `pip list`/`pip freeze`/`conda list` table, pip install "
             "log, printed torch version, environment list or torch warning")
    unclear = pasted.ambiguous(text)
    if unclear:
        raise UsageError(f"--facts {name}: {accepted}, and what it states of a machine is ambiguous: {'; '.join(unclear)}")
    raise UsageError(f"--facts {name}: {accepted}, and it states no torch, GPU, driver, CUDA, Python or OS version")


def _apply_fixes(facts, findings, selected, python, quick, timeout):
    from ..fixes import apply
    from ..runner import run_env_checks

    applied = apply(findings)
    err = sys.stderr
    if not applied:
        err.write("torchdoctor: --fix: nothing to fix automatically\n")
        return facts, findings
    for a in applied:
        err.write(f"torchdoctor: --fix: {a.describe()}\n")
    if any(a.done for a in applied):
        # Show the machine as it is now, not as it was before the fix.
        facts = PendingFacts(target(python, quick, timeout)).result()
        findings = run_env_checks(facts, selected)
    return facts, findings


def register(app: typer.Typer) -> None:
    app.command("env")(env_command)
