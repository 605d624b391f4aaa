"""A content-hash cache of per-file results, so a rerun on an unchanged tree reads instead of
parses. The key covers the file's bytes and path, torchdoctor's version, the source of every
rule and the engine, the selection and the targeted torch: editing any of them misses.

Kept outside the repository, in the user's cache directory (`$XDG_CACHE_HOME/torchdoctor/check/`,
default `~/.cache/...`), one folder per checked directory (keyed by its real path): a repository
can ship a `.torchdoctor_cache/` (links to `~/.bashrc`, forged results), so nothing in the tree is
read or written. Even there, a folder or file that is a link, or is not owned by this user, or is
group/world-writable, is not used; files are created with O_EXCL|O_NOFOLLOW, mode 0600; what is read
is checked entry by entry against the shape written. `--no-cache` bypasses it. A cache that cannot
be read or written is ignored: same answers, only slower.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from pathlib import Path

from .model import CheckResult, Edit, FileError, LintFinding, LintFix

VERSION = 3  # 3: a file's key digests its content_digest, not its bytes again


def content_digest(data: bytes) -> str:
    """A file's bytes, digested once per run for both the cache key and the project's digest."""
    return hashlib.blake2b(data, digest_size=16).hexdigest()
MAX_CACHE_BYTES = 64 * 1024 * 1024  # one configuration's cache file; larger is not ours


def cache_root(environ: dict[str, str] | None = None) -> Path:
    env = os.environ if environ is None else environ
    base = env.get("XDG_CACHE_HOME") or ""
    if not os.path.isabs(base):  # the spec: a relative value is invalid and ignored
        base = os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "torchdoctor" / "check"


def _owned_dir(path: Path, create: bool) -> bool:
    """`path` is a real directory (not a link) of this user that no one else may write to;
    created 0700 when missing and `create`."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        if not create:
            return False
        try:
            os.mkdir(path, 0o700)
            st = os.lstat(path)
        except OSError:
            return False
    except OSError:
        return False
    return (stat.S_ISDIR(st.st_mode) and st.st_uid == os.geteuid()
            and not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH))


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

    def __init__(self, directory: str, rules_key: str, root: Path | None = None) -> None:
        self.root = cache_root() if root is None else Path(root)
        project = os.path.realpath(directory)
        self.directory = self.root / hashlib.sha256(project.encode("utf-8", "surrogateescape")).hexdigest()[:32]
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

    def _safe_dirs(self, create: bool) -> bool:
        """Every folder from the torchdoctor one down is ours alone (see the module's doc)."""
        if create:
            try:
                os.makedirs(self.root.parent.parent, exist_ok=True)  # ~/.cache itself may be missing
            except OSError:
                return False
        return all(_owned_dir(p, create) for p in (self.root.parent, self.root, self.directory))

    def _load(self) -> dict[str, dict]:
        if self._entries is None:
            self._entries = {}
            if self._safe_dirs(create=False):
                data = _read_own_file(self.file)
                if data is not None:
                    try:
                        loaded = json.loads(data)
                    except ValueError:
                        loaded = None
                    if isinstance(loaded, dict):
                        self._entries = {k: v for k, v in loaded.items() if isinstance(k, str) and isinstance(v, dict)}
        return self._entries

    def note(self, path: str, digest: str) -> None:
        """The content_digest of the file's bytes, read by someone else this run (the project
        pass, which digests them for its own key too): not read or hashed again."""
        self._keys[path] = hashlib.sha256(os.path.abspath(path).encode() + b"\0" + digest.encode()).hexdigest()

    def _key(self, path: str) -> str | None:
        if path not in self._keys:
            from .engine import read_regular

            data = read_regular(path)
            if not isinstance(data, bytes):
                return None
            self.note(path, content_digest(data))
        return self._keys[path]

    def get(self, path: str) -> CheckResult | None:
        key = self._key(path)
        raw = self._load().get(key) if key else None
        if raw is None:
            return None
        try:
            result = _decode(raw, path)
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
        if not self._safe_dirs(create=True):
            return
        tmp = self.directory / f".{self.file.name}.{os.getpid()}.{os.urandom(4).hex()}"
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
        except OSError:
            return
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(entries, fh)
            os.replace(tmp, self.file)  # replaces a link itself, never writes through it
        except OSError:
            try:
                os.unlink(tmp)
            except OSError:
                pass


def _read_own_file(path: Path) -> bytes | None:
    """The bytes of a regular file of this user, read without following a link; else None."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid() or st.st_size > MAX_CACHE_BYTES:
            return None
        with os.fdopen(os.dup(fd), "rb") as fh:
            return fh.read(MAX_CACHE_BYTES + 1)
    except OSError:
        return None
    finally:
        os.close(fd)


def _encode(r: CheckResult) -> dict:
    return {
        "files": r.files, "lines": r.lines, "suppressed": r.suppressed,
        "errors": [[e.path, e.message, e.line, e.column] for e in r.errors],
        "findings": [[f.code, f.name, f.path, f.line, f.column, f.end_line, f.end_column, f.message, f.severity,
                      None if f.fix is None else [f.fix.summary, f.fix.safe, [list(e.__dict__.values()) for e in f.fix.edits]],
                      list(f.related)] for f in r.findings],
    }


def _int(v: object) -> int:
    if type(v) is not int or v < 0:
        raise ValueError("not a count")
    return v


def _opt_int(v: object) -> int | None:
    return None if v is None else _int(v)


def _str(v: object) -> str:
    if not isinstance(v, str):
        raise ValueError("not a string")
    return v


def _decode(d: dict, path: str) -> CheckResult:
    """The entry, checked field by field; it must be about `path` (an entry is keyed by the file's
    path and bytes, so one naming another file was not written by us)."""
    findings = []
    for code, name, fpath, line, col, eline, ecol, msg, sev, fix, related in d["findings"]:
        if _str(fpath) != path or sev not in ("error", "warning", "note"):
            raise ValueError("not this file's entry")
        lint_fix = None
        if fix is not None:
            summary, safe, edits = fix
            lint_fix = LintFix(_str(summary), tuple(Edit(_int(a), _int(b), _int(c), _int(e), _str(r)) for a, b, c, e, r in edits),
                               bool(safe))
        findings.append(LintFinding(_str(code), _str(name), fpath, _int(line), _int(col), _int(eline), _int(ecol), _str(msg),
                                    sev, lint_fix, tuple(_str(r) for r in related)))
    errors = []
    for epath, message, line, column in d["errors"]:
        if _str(epath) != path:
            raise ValueError("not this file's entry")
        errors.append(FileError(epath, _str(message), _opt_int(line), _opt_int(column)))
    return CheckResult(findings, errors, _int(d["files"]), _int(d["lines"]), _int(d["suppressed"]))
