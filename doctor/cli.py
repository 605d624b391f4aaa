"""The command line. One Typer app; data goes to stdout, errors to stderr as one line.

Exit status: 0 clean, 1 findings at or above --fail-on, 2 bad usage or an internal error.
Imports of the heavy parts (collectors, checks) happen inside the commands, so that commands
that never look at the machine stay fast.
"""

from __future__ import annotations

import os
import sys
from enum import Enum
from pathlib import Path
from typing import List, Optional

import typer

from .facts._probe_launch import DEFAULT_TIMEOUT as DEFAULT_PROBE_TIMEOUT  # a tiny module

app = typer.Typer(
    name="torchdoctor",
    help="Diagnostics for PyTorch: the machine, the traceback, the training code.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


@app.callback()
def _root() -> None:
    """Diagnostics for PyTorch: the machine, the traceback, the training code."""


class UsageError(Exception):
    """Bad input from the user: printed as one line, exit status 2."""


class EnvFormat(str, Enum):
    text = "text"
    json = "json"
    markdown = "markdown"


class FailOn(str, Enum):
    error = "error"
    warning = "warning"


def _stdout_console():
    from rich.console import Console

    return Console(highlight=False, soft_wrap=False)


def _write(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()


@app.command("env")
def env_command(
    checks: Optional[List[str]] = typer.Argument(None, help="Run only these checks (codes like TE201 or names like driver-too-old)."),
    format: EnvFormat = typer.Option(EnvFormat.text, "--format", "-f", help="text, json (the torchdoctor.env/v1 schema) or markdown (for a bug report, names redacted)."),
    facts_file: Optional[Path] = typer.Option(None, "--facts", help="Diagnose saved facts instead of this machine: torchdoctor JSON, or the text of `python -m torch.utils.collect_env` ('-' reads stdin)."),
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
        pending = _Pending(_target(python, quick, timeout))

    from .registry import env_checks, find_env_check

    all_checks = env_checks()
    if list_checks:
        for c in all_checks:
            _write(f"{c.code}  {c.name:<32} {c.title}\n")
        return
    selected = all_checks
    if checks:
        selected = []
        for key in checks:
            found = find_env_check(key)
            if found is None:
                raise UsageError(f"no check named {key!r} (see `torchdoctor env --list`)")
            selected.append(found)

    facts = _load_facts(facts_file) if facts_file is not None else pending.result()

    from .runner import exit_code, run_env_checks

    findings = run_env_checks(facts, selected)
    if fix:
        facts, findings = _apply_fixes(facts, findings, selected, python, quick, timeout)

    if format is EnvFormat.json:
        from .render.json_report import render_env as render_json

        _write(render_json(facts, findings))
    elif format is EnvFormat.markdown:
        from .render.markdown import render_env as render_md

        _write(render_md(facts, findings))
    else:
        from .render.human import render_env as render_human

        render_human(facts, findings, _stdout_console(), verbose=verbose)
    raise typer.Exit(exit_code(findings, fail_on.value))


class ExplainFormat(str, Enum):
    text = "text"
    json = "json"


class DecodedLog:
    """A log's bytes as text, in the encoding the log is in: UTF-8 unless a byte order mark or
    NUL bytes every other byte say UTF-16 (PowerShell's `>` writes UTF-16LE with a BOM) or UTF-32.
    `read(n)` returns str; undecodable bytes are replaced, never fatal."""

    SNIFF = 4096

    def __init__(self, raw) -> None:
        import codecs

        self.raw = raw
        self.head = raw.read(self.SNIFF) or b""
        self.encoding = self.sniff(self.head)
        self.decoder = codecs.getincrementaldecoder(self.encoding)("replace")
        fileno = getattr(raw, "fileno", None)
        if fileno is not None:
            self.fileno = fileno  # the parser sizes a large file by it

    @staticmethod
    def sniff(head: bytes) -> str:
        import codecs

        for bom, name in ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"),
                          (codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16")):
            if head.startswith(bom):
                return name
        sample = head[: len(head) - len(head) % 2]
        if len(sample) >= 8 and sample.count(0) * 4 >= len(sample):  # text has no NULs; UTF-16 ASCII is half NUL
            odd, even = sample[1::2].count(0), sample[0::2].count(0)
            if odd >= 3 * even:
                return "utf-16-le"
            if even >= 3 * odd:
                return "utf-16-be"
        return "utf-8"

    def read(self, size: int = -1) -> str:
        while True:
            if self.head:
                data, self.head = self.head, b""
            else:
                data = self.raw.read(size)
            if not data:
                return self.decoder.decode(b"", final=True)
            text = self.decoder.decode(data)
            if text:  # a read that ends inside a character yields nothing yet: read on
                return text


@app.command("explain")
def explain_command(
    text: Optional[str] = typer.Argument(None, help="The error or traceback; '-' reads standard input."),
    file: Optional[Path] = typer.Option(None, "--file", help="Read a log file (streamed; any size)."),
    format: ExplainFormat = typer.Option(ExplainFormat.text, "--format", "-f", help="text, or json (the torchdoctor.explain/v1 schema)."),
    env: bool = typer.Option(False, "--env", help="Also examine this machine and say which causes it confirms or rules out."),
) -> None:
    """Explain an error message, a traceback or a whole log: the cause and the fix."""
    from .kb import explain
    from .kb.parse import parse

    if (text is None) == (file is None):
        raise UsageError("give the error text as an argument ('-' for standard input) or --file LOG, one of them")
    if file is not None:
        try:
            handle = open(file, "rb")
        except IsADirectoryError:
            raise UsageError(f"--file {file}: is a directory, not a file") from None
        except OSError as exc:
            raise UsageError(f"--file {file}: {exc.strerror or exc}") from None
        with handle:
            try:
                parsed = parse(DecodedLog(handle))
            except OSError as exc:
                raise UsageError(f"--file {file}: cannot read: {exc.strerror or exc}") from None
    elif text == "-":
        stdin = getattr(sys.stdin, "buffer", None)
        if stdin is None:  # `torchdoctor explain - <&-`: Python leaves sys.stdin None
            raise UsageError("standard input is closed: pipe the log in, or give --file LOG")
        try:
            parsed = parse(DecodedLog(stdin))
        except OSError as exc:
            raise UsageError(f"cannot read standard input: {exc.strerror or exc}") from None
    else:
        parsed = parse(text)
    if parsed.total_lines == 0 or not parsed.total_chars:
        raise UsageError("the text is empty")
    matches = explain(parsed)

    findings = None
    if env:
        from .facts import Target, collect
        from .runner import run_env_checks

        facts = collect(Target(quick=True))
        findings = run_env_checks(facts)
        matches = _weigh_with_env(matches, findings)

    if format is ExplainFormat.json:
        from .render.explain import render_json

        _write(render_json(parsed, matches, findings))
    else:
        from .render.explain import render_text

        render_text(parsed, matches, _stdout_console(), findings)
    raise typer.Exit(0 if matches else 1)


def _weigh_with_env(matches, findings):
    """A cause this machine's checks confirm gains a little; one they find healthy loses some."""
    from dataclasses import replace

    from .kb import CONFIDENT
    from .render.explain import env_notes

    weighed = []
    for m in matches:
        verdicts = {n["verdict"] for n in env_notes(m, findings)}
        if "confirmed" in verdicts:
            m = replace(m, confidence=min(0.99, m.confidence + 0.05))
        elif verdicts == {"healthy"}:
            m = replace(m, confidence=m.confidence - 0.15)
        weighed.append(m)
    weighed.sort(key=lambda m: -m.confidence)
    return [m for m in weighed if m.confidence >= CONFIDENT]


kb_app = typer.Typer(help="Browse the knowledge base.", no_args_is_help=True)
app.add_typer(kb_app, name="kb")


@kb_app.command("list")
def kb_list() -> None:
    """Every entry, by area."""
    from .kb import load
    from .kb.schema import AREAS
    from .render.explain import render_list

    entries = sorted(load().entries.values(), key=lambda e: (AREAS.index(e.area), e.id))
    render_list(entries, _stdout_console())


@kb_app.command("show")
def kb_show(entry_id: str = typer.Argument(..., metavar="ID", help="An entry id, e.g. cuda-out-of-memory.")) -> None:
    """One entry: what it is, why, and the fixes."""
    import difflib

    from .kb import load
    from .render.explain import render_entry

    kb = load()
    key = entry_id.strip().lower()
    if key not in kb.heads:
        close = difflib.get_close_matches(entry_id, list(kb.heads), n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else " (see `torchdoctor kb list`)"
        raise UsageError(f"no knowledge entry {entry_id!r}{hint}")
    render_entry(kb.entry(key), _stdout_console())


@kb_app.command("search")
def kb_search(words: List[str] = typer.Argument(..., help="Words from the message or the topic.")) -> None:
    """Entries that mention these words, best first."""
    from rich.text import Text

    from .kb import load
    from .kb.browse import search

    found = search(load(), " ".join(words))
    console = _stdout_console()
    if not found:
        sys.stderr.write(f"torchdoctor: no knowledge entry mentions {' '.join(words)!r}\n")
        raise typer.Exit(1)
    for entry, _score in found:
        row = Text(f"{entry.id:<34}", style="cyan")
        row.append(entry.title)
        console.print(row, soft_wrap=True)


class CheckFormat(str, Enum):
    text = "text"
    json = "json"
    sarif = "sarif"
    github = "github"


def _codes(values: Optional[List[str]]) -> tuple:
    out = []
    for v in values or []:
        out += [c.strip().upper() for c in v.split(",") if c.strip()]
    return tuple(out)


@app.command("check")
def check_command(
    paths: Optional[List[str]] = typer.Argument(None, help="Files or directories (default: the current directory)."),
    format: CheckFormat = typer.Option(CheckFormat.text, "--format", "-f", help="text, json (torchdoctor.check/v1), sarif (2.1.0) or github (workflow annotations)."),
    select: Optional[List[str]] = typer.Option(None, "--select", help="Only these rules: codes or prefixes (TD1, TD101), comma-separated."),
    ignore: Optional[List[str]] = typer.Option(None, "--ignore", help="Skip these rules: codes or prefixes."),
    target_torch: Optional[str] = typer.Option(None, "--target-torch", help="The torch version the code targets (default: config, else the installed torch)."),
    exit_zero: bool = typer.Option(False, "--exit-zero", help="Exit 0 even when findings remain."),
    statistics: bool = typer.Option(False, "--statistics", help="Count the findings per rule."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write the report to this file instead of standard output."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Do not read or write the cache (kept in $XDG_CACHE_HOME/torchdoctor/check/, never in the repository)."),
    jobs: Optional[int] = typer.Option(None, "--jobs", "-j", min=1, help="Worker processes (default: one per CPU)."),
    fix: bool = typer.Option(False, "--fix", help="Apply the fixes marked safe, then report what remains."),
    unsafe_fixes: bool = typer.Option(False, "--unsafe-fixes", help="With --fix or --diff: apply the unsafe fixes too (review them)."),
    diff: bool = typer.Option(False, "--diff", help="Print the fixes as a unified diff; change no file."),
) -> None:
    """Static analysis of training code for the pitfalls that bite at scale."""
    from .lint.config import ConfigError, load_config
    from .lint.engine import Selection, check_paths
    from .registry import find_lint_rule, lint_rules

    try:
        config = load_config(".")
    except ConfigError as exc:
        raise UsageError(str(exc)) from None
    chosen_select = _codes(select) or config.select
    for code in chosen_select + _codes(ignore):  # (a default run never loads the rules for this)
        if not any(r.code.startswith(code) for r in lint_rules()) and find_lint_rule(code) is None:
            raise UsageError(f"no lint rule matches {code!r} (see `torchdoctor rule --list`)")
    selection = Selection(select=chosen_select, ignore=_codes(ignore) + config.ignore,
                          per_file_ignores=config.per_file_ignores, exclude=config.exclude)
    target = target_torch or config.target_torch or _installed_torch_version()
    if target is not None:
        from packaging.version import InvalidVersion, Version

        try:
            Version(target)
        except InvalidVersion:
            raise UsageError(f"--target-torch {target!r} is not a version") from None
    from .lint import context

    context.TARGET_TORCH = target
    cache = None
    if not no_cache:
        from .lint.cache import Cache

        # The selection as given, not the rules it picks: a warm run then never imports the rules
        # (their sources are part of the cache key anyway).
        cache = Cache(".", f"{selection.select}|{selection.ignore}|{selection.per_file_ignores}|{target}")
    if unsafe_fixes and not (fix or diff):
        raise UsageError("--unsafe-fixes only widens --fix or --diff; add one of them")
    if fix and diff:
        raise UsageError("--diff shows the fixes without applying them; give --fix or --diff, not both")
    if output is not None:
        if output.is_dir():
            raise UsageError(f"--output {output}: is a directory; give a file name, e.g. {output / 'report.txt'}")
        if not output.parent.is_dir():
            raise UsageError(f"--output {output}: no such directory {output.parent}")
    result = check_paths(paths or ["."], selection, jobs=jobs, cache=cache)
    if fix or diff:
        changed = _apply_lint_fixes(result, selection, unsafe=unsafe_fixes, diff_only=diff)
        if diff:
            raise typer.Exit(1 if changed and not exit_zero else 0)
        if changed:  # report the files as they are now
            result = check_paths(paths or ["."], selection, jobs=jobs, cache=cache)

    if format is CheckFormat.json:
        from .render.lint import render_json

        text = render_json(result)
    elif format is CheckFormat.github:
        from .render.lint import render_github

        text = render_github(result)
    elif format is CheckFormat.sarif:
        from . import __version__
        from .render.lint import render_sarif

        text = render_sarif(result, selection.rules(lint_rules()), __version__)
    else:
        text = None
    try:
        if text is not None:
            if output is not None:
                output.write_text(text, encoding="utf-8")
            else:
                _write(text)
        else:
            from .render.lint import render_text

            if output is not None:
                from rich.console import Console

                with open(output, "w", encoding="utf-8") as fh:
                    render_text(result, Console(file=fh, width=120, color_system=None), statistics=statistics)
            else:
                render_text(result, _stdout_console(), statistics=statistics)
    except OSError as exc:
        if output is None:
            raise
        raise UsageError(f"--output {output}: cannot write: {exc.strerror or exc}") from None
    failed = bool(result.findings or result.errors)
    raise typer.Exit(0 if exit_zero or not failed else 1)


def _apply_lint_fixes(result, selection, *, unsafe: bool, diff_only: bool) -> bool:
    """Fix every file with a fixable finding; say what was done on stderr (diffs on stdout)."""
    from .lint.fix import fix_file, fixable
    from .registry import lint_rules

    paths = sorted({f.path for f in result.findings if fixable(f, unsafe)})
    rules = selection.rules(lint_rules())
    applied = files = 0
    for path in paths:
        done = fix_file(path, rules, selection, unsafe=unsafe, diff_only=diff_only)
        if done.error:
            sys.stderr.write(f"torchdoctor: --fix: {path}: {done.error}\n")
        for finding, why in done.skipped:
            sys.stderr.write(f"torchdoctor: --fix: {path}:{finding.line}:{finding.column}: {finding.code} not fixed: {why}\n")
        if done.applied:
            files += 1
            applied += len(done.applied)
            if diff_only:
                _write(done.diff)
    more = sum(1 for f in result.findings if not unsafe and fixable(f, True) and not fixable(f, False))
    verb = "Would fix" if diff_only else "Fixed"
    hint = f" ({more} more with --unsafe-fixes)" if more else ""
    sys.stderr.write(f"torchdoctor: {verb} {applied} finding{'s' if applied != 1 else ''} in {files} "
                     f"file{'s' if files != 1 else ''}{hint}.\n")
    return applied > 0


def _installed_torch_version() -> Optional[str]:
    """The installed torch's release ("2.13.0"), from its metadata folder: never `import torch`,
    and not importlib.metadata either (which costs more than a warm check run)."""
    from .facts.site_dirs import installed_version

    version = installed_version("torch", sys.path)
    return version.split("+")[0] if version else None


@app.command("rule")
def rule_command(
    code: Optional[str] = typer.Argument(None, help="A rule code or name, e.g. TD101."),
    list_rules: bool = typer.Option(False, "--list", help="List every lint rule."),
) -> None:
    """Print a lint rule's documentation."""
    from .registry import find_lint_rule, lint_rules

    if list_rules or code is None:
        for r in lint_rules():
            _write(f"{r.code}  {r.name:<34} {r.title}{'' if r.default else '  (off by default)'}\n")
        return
    rule = find_lint_rule(code)
    if rule is None:
        raise UsageError(f"no lint rule {code!r} (see `torchdoctor rule --list`)")
    _write(f"{rule.code} {rule.name}: {rule.title}\n\n{rule.doc}\n")


@app.command("ci")
def ci_command(
    paths: Optional[List[str]] = typer.Argument(None, help="Training code to check (default: the current directory)."),
    quick: bool = typer.Option(False, "--quick", help="Examine the machine without importing torch."),
    checkpoints: Optional[List[Path]] = typer.Option(None, "--checkpoint", help="Also inspect this checkpoint (repeatable): unsafe or unreadable fails the gate."),
) -> None:
    """The pre-training gate: env (errors only), check, and inspect; one summary, one exit status."""
    from rich.text import Text

    from .lint.config import ConfigError, load_config
    from .lint.engine import Selection, check_paths
    from .model import Status
    from .render.lint import render_text
    from .runner import run_env_checks

    for ckpt in checkpoints or []:
        if not ckpt.is_file():
            raise UsageError(f"--checkpoint {ckpt}: no such file")
    facts = _Pending(_target(None, quick, DEFAULT_PROBE_TIMEOUT)).result()
    env_errors = [f for f in run_env_checks(facts) if f.status is Status.ERROR]
    try:
        config = load_config(".")
    except ConfigError as exc:
        raise UsageError(str(exc)) from None
    from .lint import context

    context.TARGET_TORCH = config.target_torch or _installed_torch_version()
    ckpt_findings = []
    for ckpt in checkpoints or []:
        from .inspect import inspect_findings

        try:
            found = inspect_findings(str(ckpt))
        except OSError as exc:
            raise UsageError(f"--checkpoint {ckpt}: cannot read: {exc.strerror or exc}") from None
        except Exception as exc:  # noqa: BLE001 - an archive the reader chokes on fails the gate, in one line
            raise UsageError(f"--checkpoint {ckpt}: cannot be read as a checkpoint ({type(exc).__name__}: {exc})") from None
        ckpt_findings += [(ckpt, f) for f in found if f.status in (Status.ERROR, Status.WARNING, Status.CRASH)]
    result = check_paths(paths or ["."], Selection(select=config.select, ignore=config.ignore,
                                                  per_file_ignores=config.per_file_ignores, exclude=config.exclude))
    console = _stdout_console()
    console.print(Text("torchdoctor ci: the machine", style="bold"))
    for f in env_errors:
        console.print(Text(f"  ✗ {f.code} {f.message}", style="red"), soft_wrap=True)
        if f.fix:
            console.print(Text(f"      fix: {f.fix.summary}", style="dim"), soft_wrap=True)
    if not env_errors:
        console.print(Text("  no environment errors", style="green"))
    console.print()
    console.print(Text("torchdoctor ci: the code", style="bold"))
    render_text(result, console)
    ckpt_errors = [f for _, f in ckpt_findings if f.status is not Status.WARNING]
    if checkpoints:
        console.print()
        console.print(Text("torchdoctor ci: the checkpoints", style="bold"))
        for ckpt, f in ckpt_findings:
            mark, style = ("✗", "red") if f.status is not Status.WARNING else ("!", "yellow")
            console.print(Text(f"  {mark} {ckpt}: {f.code} {f.message}", style=style), soft_wrap=True)
            if f.fix:
                console.print(Text(f"      fix: {f.fix.summary}", style="dim"), soft_wrap=True)
        if not ckpt_findings:
            console.print(Text(f"  {len(checkpoints)} checkpoint(s): no problems", style="green"))
    failed = bool(env_errors or result.findings or result.errors or ckpt_errors)
    console.print()
    verdict = "gate failed" if failed else "gate passed"
    parts = [f"{len(env_errors)} environment errors", f"{len(result.findings)} code findings",
             f"{len(result.errors)} files not checked"]
    if checkpoints:
        parts.append(f"{len(ckpt_errors)} checkpoint errors")
    console.print(Text(f"torchdoctor ci: {verdict} ({', '.join(parts)})",
                       style="bold red" if failed else "bold green"), soft_wrap=True)
    raise typer.Exit(1 if failed else 0)


class _Pending:
    """Facts being collected in a daemon thread (a daemon, so a usage error can exit at once)."""

    def __init__(self, target) -> None:
        import threading

        self._box: dict = {}
        self._thread = threading.Thread(target=self._work, args=(target,), daemon=True)
        self._thread.start()

    def _work(self, target) -> None:
        from .facts import collect

        try:
            self._box["facts"] = collect(target)
        except BaseException as exc:  # handed to the main thread, which reports it
            self._box["error"] = exc

    def result(self):
        from .facts.model import FactsError

        self._thread.join()
        if "error" in self._box:
            exc = self._box["error"]
            if isinstance(exc, FactsError):
                raise UsageError(str(exc))
            raise exc
        return self._box["facts"]


def _target(python: Optional[str], quick: bool, timeout: float):
    from .facts import Target
    from .facts.python_env import validate_interpreter

    if python is None:
        return Target(probe_timeout=timeout, quick=quick)
    problem = validate_interpreter(python)
    if problem:
        raise UsageError(problem)
    is_current = os.path.abspath(python) == os.path.abspath(sys.executable)
    return Target(python=python, is_current=is_current, probe_timeout=timeout, quick=quick)


MAX_FACTS_BYTES = 64 * 1024 * 1024


def _load_facts(path: Path):
    name = "standard input" if str(path) == "-" else str(path)
    try:
        return _versions_checked(_load_facts_from(path, name))
    except RecursionError:  # JSON nested thousands deep: no report of ours looks like that
        raise UsageError(f"--facts {name}: nested too deeply to be a torchdoctor report") from None


# A version in saved facts starts like one ("2.13.0+cu130", "580.65.06", "v12.4", "13.0"); the
# checks compare versions, so anything else is made unknown with the reason, not fed to them.
_VERSION_START = None
_NOT_VERSIONS = {"git_version", "schema_version", "torchdoctor_version"}


def _versions_checked(facts):
    import dataclasses
    import re

    from .facts.model import Unknown

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
                changes[f.name] = Unknown(f"{value[:40]!r} in the saved facts is not a version")
            else:
                new = fix(value)
                if new is not value:
                    changes[f.name] = new
        return dataclasses.replace(obj, **changes) if changes else obj

    return fix(facts)


def _load_facts_from(path: Path, name: str):
    import json

    from .facts.model import Facts, FactsError
    from .render.json_report import ENV_SCHEMA

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
    if text.lstrip().startswith("{"):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise UsageError(f"--facts {name}: invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
        schema = data.get("schema") if isinstance(data, dict) else None
        if schema != ENV_SCHEMA:
            raise UsageError(f"--facts {name}: schema is {schema!r}, expected {ENV_SCHEMA!r} "
                             "(save facts with `torchdoctor env --format json`)")
        try:
            facts = Facts.from_json(data.get("facts"), default_reason="not in the saved facts")
        except FactsError as exc:
            raise UsageError(f"--facts {name}: {exc}") from None
        from dataclasses import replace

        return replace(facts, meta=replace(facts.meta, source="json"))
    from .facts import collect_env_text

    if collect_env_text.looks_like_collect_env(text):
        try:
            return Facts.from_json(collect_env_text.parse(text), default_reason="not in the collect_env report")
        except FactsError as exc:
            raise UsageError(f"--facts {name}: could not read the collect_env report: {exc}") from None
    raise UsageError(f"--facts {name}: neither torchdoctor JSON (`torchdoctor env --format json`) "
                     "nor the output of `python -m torch.utils.collect_env`")


def _apply_fixes(facts, findings, selected, python, quick, timeout):
    from .fixes import apply
    from .runner import run_env_checks

    applied = apply(findings)
    err = sys.stderr
    if not applied:
        err.write("torchdoctor: --fix: nothing to fix automatically\n")
        return facts, findings
    for a in applied:
        err.write(f"torchdoctor: --fix: {a.describe()}\n")
    if any(a.done for a in applied):
        # Show the machine as it is now, not as it was before the fix.
        facts = _Pending(_target(python, quick, timeout)).result()
        findings = run_env_checks(facts, selected)
    return facts, findings


# Command groups that live in their own modules (STYLE: one module per command group as it grows).
# Imported here, after UsageError exists, because they raise it for bad input.
from . import cli_inspect, cli_model, cli_runtime  # noqa: E402

for _group in (cli_inspect, cli_model, cli_runtime):
    _group.register(app)


def main(argv: Optional[List[str]] = None) -> None:
    """Entry point: run the app, turn every failure into one line and a status."""
    command = typer.main.get_command(app)
    args = sys.argv[1:] if argv is None else argv
    if not args:
        args = ["--help"]
    try:
        code = command.main(args=args, prog_name="torchdoctor", standalone_mode=False)
    except UsageError as exc:
        sys.stderr.write(f"torchdoctor: error: {exc}\n")
        code = 2
    except typer.Exit as exc:
        code = getattr(exc, "exit_code", 0)
    except typer.Abort:
        sys.stderr.write("torchdoctor: aborted\n")
        code = 130
    except typer.TyperException as exc:  # click-style usage errors: bad option, bad value
        message = exc.format_message() if hasattr(exc, "format_message") else str(exc)
        sys.stderr.write(f"torchdoctor: error: {' '.join(message.split())}\n")
        code = 2
    except KeyboardInterrupt:
        sys.stderr.write("torchdoctor: interrupted\n")
        code = 130
    except BrokenPipeError:
        # `torchdoctor env | head`: the reader left; that is not an error of ours.
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        code = 0
    except Exception as exc:  # never a traceback from torchdoctor itself
        if os.environ.get("TORCHDOCTOR_DEBUG"):
            raise
        sys.stderr.write(f"torchdoctor: internal error: {type(exc).__name__}: {exc} "
                         "(set TORCHDOCTOR_DEBUG=1 for the traceback, and please report it)\n")
        code = 2
    sys.exit(code if isinstance(code, int) else 0)


if __name__ == "__main__":
    main()
