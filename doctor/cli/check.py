"""`torchdoctor check` (static analysis of training code), `rule` (a rule's documentation) and
`ci` (the pre-training gate: env errors, check and inspect, one exit status)."""

from __future__ import annotations

import os
import sys
from enum import Enum
from pathlib import Path
from typing import List, Optional

import typer

from ..facts._probe_launch import DEFAULT_TIMEOUT as DEFAULT_PROBE_TIMEOUT  # a tiny module
from .common import UsageError, stdout_console, write
from .env import PendingFacts, target


class CheckFormat(str, Enum):
    text = "text"
    json = "json"
    sarif = "sarif"
    github = "github"


def codes(values: Optional[List[str]]) -> tuple:
    out = []
    for v in values or []:
        out += [c.strip().upper() for c in v.split(",") if c.strip()]
    return tuple(out)


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
    from ..lint.config import ConfigError, load_config
    from ..lint.engine import Selection, check_paths
    from ..registry import find_lint_rule, lint_rules

    try:
        config = load_config(".")
    except ConfigError as exc:
        raise UsageError(str(exc)) from None
    chosen_select = codes(select) or config.select
    for code in chosen_select + codes(ignore):  # (a default run never loads the rules for this)
        if not any(r.code.startswith(code) for r in lint_rules()) and find_lint_rule(code) is None:
            raise UsageError(f"no lint rule matches {code!r} (see `torchdoctor rule --list`)")
    selection = Selection(select=chosen_select, ignore=codes(ignore) + config.ignore,
                          per_file_ignores=config.per_file_ignores, exclude=config.exclude)
    target = target_torch or config.target_torch or installed_torch_version()
    if target is not None:
        from packaging.version import InvalidVersion, Version

        try:
            Version(target)
        except InvalidVersion:
            raise UsageError(f"--target-torch {target!r} is not a version") from None
    from ..lint import context

    context.TARGET_TORCH = target
    cache = None
    if not no_cache:
        from ..lint.cache import Cache

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
    from ..progress import status

    with status(f"torchdoctor check: reading {' '.join(paths or ['.'])}", enabled=format is CheckFormat.text):
        result = check_paths(paths or ["."], selection, jobs=jobs, cache=cache)
    if fix or diff:
        changed = apply_lint_fixes(result, selection, unsafe=unsafe_fixes, diff_only=diff)
        if diff:
            raise typer.Exit(1 if changed and not exit_zero else 0)
        if changed:  # report the files as they are now
            result = check_paths(paths or ["."], selection, jobs=jobs, cache=cache)

    if format is CheckFormat.json:
        from ..render.lint import render_json

        text = render_json(result)
    elif format is CheckFormat.github:
        from ..render.lint import render_github

        text = render_github(result)
    elif format is CheckFormat.sarif:
        from .. import __version__
        from ..render.lint import render_sarif

        text = render_sarif(result, selection.rules(lint_rules()), __version__)
    else:
        text = None
    try:
        if text is not None:
            if output is not None:
                output.write_text(text, encoding="utf-8")
            else:
                write(text)
        else:
            from ..render.lint import render_text

            if output is not None:
                from rich.console import Console

                with open(output, "w", encoding="utf-8") as fh:
                    render_text(result, Console(file=fh, width=120, color_system=None), statistics=statistics)
            else:
                render_text(result, stdout_console(), statistics=statistics)
    except OSError as exc:
        if output is None:
            raise
        raise UsageError(f"--output {output}: cannot write: {exc.strerror or exc}") from None
    failed = bool(result.findings or result.errors)
    raise typer.Exit(0 if exit_zero or not failed else 1)


def apply_lint_fixes(result, selection, *, unsafe: bool, diff_only: bool) -> bool:
    """Fix every file with a fixable finding; say what was done on stderr (diffs on stdout)."""
    from ..lint.fix import fix_file, fixable
    from ..registry import lint_rules

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
                write(done.diff)
    more = sum(1 for f in result.findings if not unsafe and fixable(f, True) and not fixable(f, False))
    verb = "Would fix" if diff_only else "Fixed"
    hint = f" ({more} more with --unsafe-fixes)" if more else ""
    sys.stderr.write(f"torchdoctor: {verb} {applied} finding{'s' if applied != 1 else ''} in {files} "
                     f"file{'s' if files != 1 else ''}{hint}.\n")
    return applied > 0


def installed_torch_version() -> Optional[str]:
    """The installed torch's release ("2.13.0"), from its metadata folder: never `import torch`,
    and not importlib.metadata either (which costs more than a warm check run)."""
    from ..facts.site_dirs import installed_version

    version = installed_version("torch", sys.path)
    return version.split("+")[0] if version else None


def rule_command(
    code: Optional[str] = typer.Argument(None, help="A rule code or name, e.g. TD101."),
    list_rules: bool = typer.Option(False, "--list", help="List every lint rule."),
) -> None:
    """Print a lint rule's documentation."""
    from ..registry import find_lint_rule, lint_rules

    if list_rules or code is None:
        rules = lint_rules()
        width = max(len(r.name) for r in rules)
        for r in rules:
            write(f"{r.code}  {r.name:<{width}}  {r.title}{'' if r.default else '  (off by default)'}\n")
        return
    rule = find_lint_rule(code)
    if rule is None:
        raise UsageError(f"no lint rule {code!r} (see `torchdoctor rule --list`)")
    write(f"{rule.code} {rule.name}: {rule.title}\n\n{rule.doc}\n")


def ci_command(
    paths: Optional[List[str]] = typer.Argument(None, help="Training code to check (default: the current directory)."),
    quick: bool = typer.Option(False, "--quick", help="Examine the machine without importing torch."),
    checkpoints: Optional[List[Path]] = typer.Option(None, "--checkpoint", help="Also inspect this checkpoint (repeatable): unsafe or unreadable fails the gate."),
    sarif: Optional[Path] = typer.Option(None, "--sarif", help="Also write the code and checkpoint findings as SARIF 2.1.0 to this file (for GitHub code scanning)."),
) -> None:
    """The pre-training gate: env (errors only), check, and inspect; one summary, one exit status."""
    from rich.text import Text

    from ..lint.config import ConfigError, load_config
    from ..lint.engine import Selection, check_paths
    from ..model import Status
    from ..render.lint import render_text
    from ..runner import run_env_checks

    for ckpt in checkpoints or []:
        if not ckpt.is_file():
            raise UsageError(f"--checkpoint {ckpt}: no such file")
    facts = PendingFacts(target(None, quick, DEFAULT_PROBE_TIMEOUT)).result()
    env_errors = [f for f in run_env_checks(facts) if f.status is Status.ERROR]
    try:
        config = load_config(".")
    except ConfigError as exc:
        raise UsageError(str(exc)) from None
    from ..lint import context

    context.TARGET_TORCH = config.target_torch or installed_torch_version()
    ckpt_findings = []
    for ckpt in checkpoints or []:
        from ..inspect import inspect_findings

        try:
            found = inspect_findings(str(ckpt))
        except OSError as exc:
            raise UsageError(f"--checkpoint {ckpt}: cannot read: {exc.strerror or exc}") from None
        except Exception as exc:  # noqa: BLE001 - an archive the reader chokes on fails the gate, in one line
            raise UsageError(f"--checkpoint {ckpt}: cannot be read as a checkpoint ({type(exc).__name__}: {exc})") from None
        ckpt_findings += [(ckpt, f) for f in found if f.status in (Status.ERROR, Status.WARNING, Status.CRASH)]
    selection = Selection(select=config.select, ignore=config.ignore, per_file_ignores=config.per_file_ignores,
                          exclude=config.exclude)
    result = check_paths(paths or ["."], selection)
    if sarif is not None:
        write_ci_sarif(sarif, result, ckpt_findings, selection)
    console = stdout_console()
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
            from ..text import plural

            console.print(Text(f"  {plural(len(checkpoints), 'checkpoint')}: no problems", style="green"))
    failed = bool(env_errors or result.findings or result.errors or ckpt_errors)
    console.print()
    verdict = "gate failed" if failed else "gate passed"
    from ..text import plural

    parts = [plural(len(env_errors), "environment error"), plural(len(result.findings), "code finding"),
             plural(len(result.errors), "file") + " not checked"]
    if checkpoints:
        parts.append(plural(len(ckpt_errors), "checkpoint error"))
    console.print(Text(f"torchdoctor ci: {verdict} ({', '.join(parts)})",
                       style="bold red" if failed else "bold green"), soft_wrap=True)
    raise typer.Exit(1 if failed else 0)


def write_ci_sarif(path: Path, result, ckpt_findings, selection) -> None:
    """The gate's findings that have a place in the repository, as SARIF: the code findings with
    their rules, and each checkpoint finding located at the checkpoint file."""
    import json

    from .. import __version__
    from ..registry import lint_rules
    from ..render.lint import render_sarif

    doc = json.loads(render_sarif(result, selection.rules(lint_rules()), __version__))
    level = {"error": "error", "warning": "warning", "crash": "error"}
    for ckpt, f in ckpt_findings:
        doc["runs"][0]["results"].append({
            "ruleId": f.code,
            "level": level.get(f.status.value, "warning"),
            "message": {"text": f.message + (f" Fix: {f.fix.summary}" if f.fix else "")},
            "locations": [{"physicalLocation": {"artifactLocation": {"uri": str(ckpt).replace(os.sep, "/"),
                                                                      "uriBaseId": "%SRCROOT%"}}}],
        })
    try:
        path.write_text(json.dumps(doc, indent=2) + "\n")
    except OSError as exc:
        raise UsageError(f"--sarif {path}: {exc.strerror or exc}") from None


def register(app: typer.Typer) -> None:
    app.command("check")(check_command)
    app.command("rule")(rule_command)
    app.command("ci")(ci_command)
