"""A content-hash cache of per-file results, so a rerun on an unchanged tree reads instead of
parses. The key covers the file's bytes and path, torchdoctor's version, the source of every
rule and the engine, the selection and the targeted torch: editing any of them misses.

Kept in `.torchdoctor_cache/` of the directory torchdoctor runs in (with a `.gitignore` of its
own, as ruff does); `--no-cache` bypasses it. A cache that cannot be read or written is ignored.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from .model import CheckResult, Edit, FileError, LintFinding, LintFix

VERSION = 1


def _salt(rules_key: str) -> str:
    from .. import __version__

    h = hashlib.sha256(f"{VERSION}|{__version__}|{rules_key}".encode())
    here = Path(__file__).resolve().parent
    from ..checks import lint as lint_rules_pkg

    sources = sorted(here.glob("*.py")) + sorted(Path(lint_rules_pkg.__file__).parent.glob("*.py"))
    for src in sources:
        try:
            h.update(src.name.encode() + src.read_bytes())
        except OSError:
            pass
    return h.hexdigest()


class Cache:
    """One JSON file per configuration (the salt): a warm run reads one file, not one per source."""

    def __init__(self, directory: str, rules_key: str) -> None:
        self.directory = Path(directory) / ".torchdoctor_cache" / f"v{VERSION}"
        self.salt = _salt(rules_key)
        self.file = self.directory / f"{self.salt[:24]}.json"
        self.hits = 0
        self._keys: dict[str, str] = {}
        self._entries: dict[str, dict] | None = None
        self._dirty = False

    def add_to_key(self, extra: str) -> None:
        """Fold more into the key (the project facts: a file's findings may depend on others)."""
        self.salt = hashlib.sha256(f"{self.salt}|{extra}".encode()).hexdigest()
        self.file = self.directory / f"{self.salt[:24]}.json"
        self._entries = None

    def _load(self) -> dict[str, dict]:
        if self._entries is None:
            try:
                data = json.loads(self.file.read_text(encoding="utf-8"))
                self._entries = data if isinstance(data, dict) else {}
            except (OSError, ValueError):
                self._entries = {}
        return self._entries

    def note(self, path: str, data: bytes) -> None:
        """The file's bytes, read by someone else this run (the project pass): not read again."""
        self._keys[path] = hashlib.sha256(os.path.abspath(path).encode() + b"\0" + data).hexdigest()

    def _key(self, path: str) -> str | None:
        if path not in self._keys:
            try:
                self.note(path, Path(path).read_bytes())
            except OSError:
                return None
        return self._keys[path]

    def get(self, path: str) -> CheckResult | None:
        key = self._key(path)
        raw = self._load().get(key) if key else None
        if raw is None:
            return None
        try:
            result = _decode(raw)
        except (KeyError, TypeError, ValueError):
            return None
        self.hits += 1
        return result

    def put(self, path: str, result: CheckResult) -> None:
        key = self._keys.get(path) or self._key(path)
        if key is not None:
            self._load()[key] = _encode(result)
            self._dirty = True

    def save(self, keep: set[str] | None = None) -> None:
        """Write the entries back (only those of files seen in this run, so it cannot grow forever)."""
        if not self._dirty or self._entries is None:
            return
        live = set(self._keys.values()) if keep is None else keep
        entries = {k: v for k, v in self._entries.items() if k in live}
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            marker = self.directory.parent / ".gitignore"
            if not marker.exists():
                marker.write_text("# Created by torchdoctor check.\n*\n", encoding="utf-8")
            tmp = self.directory / f".{self.file.name}.{os.getpid()}"
            tmp.write_text(json.dumps(entries), encoding="utf-8")
            os.replace(tmp, self.file)
        except OSError:
            pass  # a read-only project: no cache, same answers


def _encode(r: CheckResult) -> dict:
    return {
        "files": r.files, "lines": r.lines, "suppressed": r.suppressed,
        "errors": [[e.path, e.message, e.line, e.column] for e in r.errors],
        "findings": [[f.code, f.name, f.path, f.line, f.column, f.end_line, f.end_column, f.message, f.severity,
                      None if f.fix is None else [f.fix.summary, f.fix.safe, [list(e.__dict__.values()) for e in f.fix.edits]],
                      list(f.related)] for f in r.findings],
    }


def _decode(d: dict) -> CheckResult:
    findings = []
    for code, name, path, line, col, eline, ecol, msg, sev, fix, related in d["findings"]:
        lint_fix = None if fix is None else LintFix(fix[0], tuple(Edit(*e) for e in fix[2]), bool(fix[1]))
        findings.append(LintFinding(code, name, path, line, col, eline, ecol, msg, sev, lint_fix, tuple(related)))
    errors = [FileError(*e) for e in d["errors"]]
    return CheckResult(findings, errors, d["files"], d["lines"], d["suppressed"])
