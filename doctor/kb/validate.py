"""Reading a knowledge entry's TOML table strictly, into the records of kb/schema.py.

Strict on purpose: an unknown key, a missing field, a pattern that does not compile or a scope that
does not exist is an error naming the file and the key, so a typo cannot silently disable an entry.
Used when the index is built, and when the index is older than the TOML files.
"""

from __future__ import annotations

import re
from typing import Any

from . import api_history, lexicon
from .schema import AREAS, SCOPES, Entry, Example, FixStep, NearMiss, Pattern, SchemaError

_ID = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
_CODE = re.compile(r"^(TE|TD|TI)[1-4]\d\d$")

_ENTRY_KEYS = {"id", "title", "area", "summary", "explanation", "patterns", "fixes", "examples", "near_misses",
               "happened", "related", "references", "seed", "see_also", "symptoms", "refined_by"}
_REQUIRED = {"id", "title", "area", "summary", "explanation", "patterns", "fixes", "examples"}


def _check_keys(where: str, data: dict[str, Any], allowed: set[str], required: set[str]) -> None:
    unknown = set(data) - allowed
    if unknown:
        raise SchemaError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}")
    missing = required - set(data)
    if missing:
        raise SchemaError(f"{where}: missing key(s) {', '.join(sorted(missing))}")


def _str(where: str, value: Any, *, empty_ok: bool = False) -> str:
    if not isinstance(value, str) or (not empty_ok and not value.strip()):
        raise SchemaError(f"{where}: expected a non-empty string")
    return value


def _strs(where: str, value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise SchemaError(f"{where}: expected a list of non-empty strings")
    return tuple(value)


def _ids(where: str, value: Any) -> tuple[str, ...]:
    ids = _strs(where, value)
    for other in ids:
        if not _ID.match(other):
            raise SchemaError(f"{where}: {other!r} is not an entry id")
    return ids


def _table_list(where: str, value: Any) -> list[dict[str, Any]]:
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise SchemaError(f"{where}: expected an array of tables ([[...]])")
    return value


def entry_from_dict(data: dict[str, Any], where: str) -> Entry:
    _check_keys(where, data, _ENTRY_KEYS, _REQUIRED)
    entry_id = _str(f"{where}: id", data["id"])
    if not _ID.match(entry_id):
        raise SchemaError(f"{where}: id {entry_id!r} is not kebab-case")
    area = _str(f"{where}: area", data["area"])
    if area not in AREAS:
        raise SchemaError(f"{where}: area {area!r} is not one of {AREAS}")

    patterns = []
    for i, p in enumerate(_table_list(f"{where}: patterns", data["patterns"])):
        w = f"{where}: patterns[{i}]"
        _check_keys(w, p, {"regex", "scope", "weight", "exception_type", "frame", "ignore_case", "api_history"},
                    {"regex"})
        try:
            regex = lexicon.expand(_str(f"{w}.regex", p["regex"]))
        except lexicon.UnknownGroup as exc:
            raise SchemaError(f"{w}.regex: {exc}") from None
        pattern = Pattern(
            regex=regex,
            scope=p.get("scope", "exception"),
            weight=float(p.get("weight", 1.0)),
            exception_type=p.get("exception_type"),
            frame=p.get("frame"),
            ignore_case=bool(p.get("ignore_case", False)),
            api_history=p.get("api_history"),
        )
        if pattern.scope not in SCOPES:
            raise SchemaError(f"{w}.scope: {pattern.scope!r} is not one of {SCOPES}")
        if not 0.0 < pattern.weight <= 1.0:
            raise SchemaError(f"{w}.weight: must be in (0, 1]")
        for key in ("regex", "exception_type", "frame"):
            value = getattr(pattern, key)
            if value is not None:
                try:
                    re.compile(value)
                except re.error as exc:
                    raise SchemaError(f"{w}.{key}: does not compile: {exc}") from None
        if pattern.api_history is not None:
            if pattern.api_history not in api_history.KINDS:
                raise SchemaError(f"{w}.api_history: {pattern.api_history!r} is not one of {api_history.KINDS}")
            groups = re.compile(pattern.regex).groupindex
            if pattern.api_history == "argument" and "callable" not in groups:
                raise SchemaError(f"{w}.api_history: the regex must capture `callable` and `attribute`")
            if "attribute" not in groups:
                # (`module` too, unless the traceback's import line names it: kb/matcher.py)
                raise SchemaError(f"{w}.api_history: the regex must capture `attribute` (and `module`)")
        patterns.append(pattern)
    if not patterns:
        raise SchemaError(f"{where}: at least one pattern is required")

    fixes = []
    for i, f in enumerate(_table_list(f"{where}: fixes", data["fixes"])):
        w = f"{where}: fixes[{i}]"
        _check_keys(w, f, {"summary", "commands", "code"}, {"summary"})
        fixes.append(FixStep(_str(f"{w}.summary", f["summary"]), _strs(f"{w}.commands", f.get("commands", [])),
                             _str(f"{w}.code", f.get("code", ""), empty_ok=True)))
    if not fixes:
        raise SchemaError(f"{where}: at least one fix is required")

    examples = []
    for i, e in enumerate(_table_list(f"{where}: examples", data["examples"])):
        w = f"{where}: examples[{i}]"
        _check_keys(w, e, {"text", "source", "captures"}, {"text", "source"})
        source = _str(f"{w}.source", e["source"])
        if not source.startswith(("https://", "http://")):
            raise SchemaError(f"{w}.source: must be the URL of the public report the text comes from")
        captures = e.get("captures", {})
        if not isinstance(captures, dict):
            raise SchemaError(f"{w}.captures: expected a table")
        examples.append(Example(_str(f"{w}.text", e["text"]), source, {str(k): str(v) for k, v in captures.items()}))

    near = []
    for i, n in enumerate(_table_list(f"{where}: near_misses", data.get("near_misses", []))):
        w = f"{where}: near_misses[{i}]"
        _check_keys(w, n, {"text", "note", "source"}, {"text", "note"})
        near.append(NearMiss(_str(f"{w}.text", n["text"]), _str(f"{w}.note", n["note"]), n.get("source", "")))

    related = _strs(f"{where}: related", data.get("related", []))
    for code in related:
        if not _CODE.match(code):
            raise SchemaError(f"{where}: related code {code!r} is not a TE/TD/TI code")
    see_also = _strs(f"{where}: see_also", data.get("see_also", []))
    for other in see_also:
        if not _ID.match(other):
            raise SchemaError(f"{where}: see_also {other!r} is not an entry id")
    seed = _str(f"{where}: seed", data.get("seed", "common"))
    if seed not in ("000", "001", "002", "003", "004", "common"):
        raise SchemaError(f"{where}: seed {seed!r} is not one of 000-004 or common")

    return Entry(
        id=entry_id,
        title=_str(f"{where}: title", data["title"]),
        area=area,
        summary=_str(f"{where}: summary", data["summary"]),
        explanation=_str(f"{where}: explanation", data["explanation"]),
        patterns=tuple(patterns),
        fixes=tuple(fixes),
        examples=tuple(examples),
        near_misses=tuple(near),
        happened=_strs(f"{where}: happened", data.get("happened", [])),
        related=related,
        references=_strs(f"{where}: references", data.get("references", [])),
        seed=seed,
        see_also=see_also,
        symptoms=_strs(f"{where}: symptoms", data.get("symptoms", [])),
        refined_by=_ids(f"{where}: refined_by", data.get("refined_by", [])),
    )
