"""`[tool.torchdoctor]` in pyproject.toml: select, ignore, per-file-ignores, exclude, target-torch.

Strict like the knowledge base: an unknown key is an error, so a typo is not silently ignored."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

KEYS = {"select", "ignore", "per-file-ignores", "exclude", "target-torch"}


class ConfigError(ValueError):
    pass


@dataclass
class LintConfig:
    path: str | None = None
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    per_file_ignores: dict[str, tuple[str, ...]] = field(default_factory=dict)
    exclude: tuple[str, ...] = ()
    target_torch: str | None = None


def find_pyproject(start: str) -> Path | None:
    here = Path(start).resolve()
    for d in [here, *here.parents]:
        candidate = d / "pyproject.toml"
        if candidate.is_file():
            return candidate
    return None


def _codes(where: str, value: object) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}: expected a list of rule codes or prefixes")
    return tuple(v.strip().upper() for v in value)


def load_config(start: str = ".") -> LintConfig:
    path = find_pyproject(start)
    if path is None:
        return LintConfig()
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    from .engine import read_regular

    raw = read_regular(str(path))
    if not isinstance(raw, bytes):
        raise ConfigError(f"{path}: {raw.message}")
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError) as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from None
    section = data.get("tool", {}).get("torchdoctor")
    if section is None:
        return LintConfig(str(path))
    if not isinstance(section, dict):
        raise ConfigError(f"{path}: [tool.torchdoctor] must be a table")
    unknown = set(section) - KEYS
    if unknown:
        raise ConfigError(f"{path}: [tool.torchdoctor] has unknown key(s) {', '.join(sorted(unknown))} "
                          f"(known: {', '.join(sorted(KEYS))})")
    pfi = section.get("per-file-ignores", {})
    if not isinstance(pfi, dict):
        raise ConfigError(f"{path}: per-file-ignores must be a table of glob = [codes]")
    target = section.get("target-torch")
    if target is not None and not isinstance(target, str):
        raise ConfigError(f"{path}: target-torch must be a version string such as \"2.6\"")
    exclude = section.get("exclude", [])
    if not isinstance(exclude, list) or not all(isinstance(v, str) for v in exclude):
        raise ConfigError(f"{path}: exclude must be a list of globs")
    base = os.path.dirname(str(path))
    return LintConfig(
        path=str(path),
        select=_codes(f"{path}: select", section.get("select", [])),
        ignore=_codes(f"{path}: ignore", section.get("ignore", [])),
        per_file_ignores={k: _codes(f"{path}: per-file-ignores.{k}", v) for k, v in pfi.items()},
        exclude=tuple(exclude) + tuple(os.path.join(base, e) for e in exclude),
        target_torch=target,
    )
