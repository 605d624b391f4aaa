"""One registry per kind of check. Checks register themselves with a decorator; discovery imports
every module under `torchdoctor.checks.<kind>`, so there is no hand-kept list. A duplicate code or
name is an error at import time: codes are an API that outside tooling refers to."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping

from .model import Result, Status

# The order areas are shown in.
AREAS = (
    "Python & packages",
    "torch",
    "NVIDIA driver & GPUs",
    "CUDA toolkit & extensions",
    "host & data loading",
    "distributed",
)

_CODE = re.compile(r"^TE[1-4]\d\d$")
_NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


class RegistryError(RuntimeError):
    pass


@dataclass(frozen=True)
class Example:
    """Facts (a dict of sections, everything else unknown) and the status the check must give.

    `contains` is text the message must include, so an example proves the specifics are reported,
    not only the colour of the verdict.
    """

    expect: str
    facts: Mapping[str, Any]
    note: str = ""
    contains: str = ""


@dataclass(frozen=True)
class EnvCheck:
    code: str
    name: str
    title: str
    area: str
    needs: tuple[str, ...]
    examples: tuple[Example, ...]
    func: Callable[..., Result] = field(repr=False)
    doc: str = ""

    def __call__(self, facts: Any) -> Result:
        return self.func(facts)


_ENV: dict[str, EnvCheck] = {}


def env_check(*, code: str, name: str, title: str, area: str, needs: tuple[str, ...] = (),
              examples: list[Example] | tuple[Example, ...] = ()) -> Callable[[Callable[..., Result]], Callable[..., Result]]:
    """Register an environment check: a pure function of Facts that returns a Result."""

    def register(func: Callable[..., Result]) -> Callable[..., Result]:
        _admit("env check", _ENV, func, code, name, _CODE, examples)
        if area not in AREAS:
            raise RegistryError(f"{code}: unknown area {area!r}; one of {AREAS}")
        _ENV[code] = EnvCheck(code, name, title, area, tuple(needs), tuple(examples), func,
                              inspect.cleandoc(func.__doc__ or ""))
        return func

    return register


def _discover(package: str) -> None:
    pkg = importlib.import_module(package)
    for info in pkgutil.iter_modules(pkg.__path__):
        if not info.name.startswith("_"):
            importlib.import_module(f"{package}.{info.name}")


_DISCOVERED: set[str] = set()


def _admit(kind: str, table: dict[str, Any], func: Callable[..., Any], code: str, name: str, form: re.Pattern[str],
           examples: Iterable[Any] = ()) -> None:
    """The rules every registry enforces: a well-formed code and kebab-case name, neither used by
    another unit (codes are an API), and examples that expect a status that exists."""
    if not form.match(code):
        raise RegistryError(f"{func.__module__}: {kind} code {code!r} is not of the form {form.pattern.strip('^$')}")
    if not _NAME.match(name):
        raise RegistryError(f"{func.__module__}: {kind} name {name!r} is not kebab-case")
    for other in table.values():
        if other.code == code and other.func.__module__ != func.__module__:
            raise RegistryError(f"duplicate {kind} code {code}: {other.func.__module__} and {func.__module__}")
        if other.name == name and other.code != code:
            raise RegistryError(f"duplicate {kind} name {name}: {other.code} and {code}")
    for ex in examples:
        if ex.expect not in {s.value for s in Status}:
            raise RegistryError(f"{code}: example expects unknown status {ex.expect!r}")


def _all(kind: str, table: dict[str, Any]) -> list[Any]:
    """Every unit of a kind, ordered by code. A flag, not `if not table`: importing one unit's module
    directly (a test of its helpers) registers that unit alone, and must not hide the others."""
    if kind not in _DISCOVERED:
        _discover(f"torchdoctor.checks.{kind}")
        _DISCOVERED.add(kind)
    return [table[c] for c in sorted(table)]


def env_checks() -> list[EnvCheck]:
    """Every environment check, ordered by code."""
    return _all("env", _ENV)


def find_env_check(key: str) -> EnvCheck | None:
    key = key.strip()
    for check in env_checks():
        if key.upper() == check.code or key.lower() == check.name:
            return check
    return None


# --------------------------------------------------------------------------- lint rules
_LINT_CODE = re.compile(r"^TD[1-4]\d\d$")


@dataclass(frozen=True)
class LintRule:
    code: str
    name: str
    title: str
    on: tuple[type, ...]  # the ast node types the rule is called with, in the one traversal
    severity: str  # "error", "warning" or "note"
    valid: tuple[str, ...]  # code that must stay quiet
    invalid: tuple[str, ...]  # code whose lines marked `# <-` must be reported
    func: Callable[..., Any] = field(repr=False)
    doc: str = ""
    related: tuple[str, ...] = ()  # knowledge-base ids
    default: bool = True  # off-by-default rules (hints) run only when selected
    # Text the file must contain for the rule to be able to fire. Most files of a code base are
    # not training code: a few substring tests are far cheaper than indexing and walking the tree
    # for a rule that cannot fire. Each clause must hold; a clause is a word, a compiled pattern
    # (give it a literal prefix: that is what makes re fast), a function of the text, or a tuple of
    # alternatives. Put the cheapest and most selective clause first.
    requires: tuple[Any, ...] = ()

    def wanted(self, text: str, seen: dict[Any, bool] | None = None) -> bool:
        """`seen`: the answers for this text so far, shared by the rules (several rules ask for
        the same words, and each answer is a scan of the whole file)."""
        seen = {} if seen is None else seen
        for clause in self.requires:
            if not _holds(clause, text, seen):
                return False
        return True


def _holds(clause: Any, text: str, seen: dict[Any, bool]) -> bool:
    if type(clause) is tuple:
        for alt in clause:  # a loop, not any(generator): this runs ~80 000 times in a large run
            if _holds(alt, text, seen):
                return True
        return False
    known = seen.get(clause)
    if known is None:
        if type(clause) is str:
            known = clause in text
        elif isinstance(clause, re.Pattern):
            known = clause.search(text) is not None
        else:
            known = bool(clause(text))  # a function of the text, for what a fast regex cannot say
        seen[clause] = known
    return known


_LINT: dict[str, LintRule] = {}


def lint_rule(*, code: str, name: str, title: str, on: tuple[type, ...], severity: str = "error",
              valid: list[str] | tuple[str, ...] = (), invalid: list[str] | tuple[str, ...] = (),
              related: tuple[str, ...] = (), default: bool = True,
              requires: tuple[Any, ...] = ()) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register a lint rule: `func(node, module)` returns a Violation, an iterable of them, or None."""

    def register(func: Callable[..., Any]) -> Callable[..., Any]:
        _admit("lint rule", _LINT, func, code, name, _LINT_CODE)
        if severity not in ("error", "warning", "note"):
            raise RegistryError(f"{code}: severity {severity!r}")
        _LINT[code] = LintRule(code, name, title, tuple(on), severity, tuple(valid), tuple(invalid), func,
                               inspect.cleandoc(func.__doc__ or ""), tuple(related), default, tuple(requires))
        return func

    return register


def lint_rules() -> list[LintRule]:
    return _all("lint", _LINT)


def find_lint_rule(key: str) -> LintRule | None:
    key = key.strip()
    for rule in lint_rules():
        if key.upper() == rule.code or key.lower() == rule.name:
            return rule
    return None


# --------------------------------------------------------------------------- model rules (TI2xx)
_MODEL_CODE = re.compile(r"^TI2\d\d$")


@dataclass(frozen=True)
class ModelExample:
    """A probe record (see torchdoctor.runtime.model_probe; absent keys are simply not recorded)
    and the status the rule must give; `contains` is text its message must include."""

    expect: str
    record: Mapping[str, Any]
    note: str = ""
    contains: str = ""


@dataclass(frozen=True)
class ModelRule:
    code: str
    name: str
    title: str
    examples: tuple[ModelExample, ...]
    func: Callable[..., Result] = field(repr=False)
    doc: str = ""

    def __call__(self, record: Mapping[str, Any]) -> Result:
        return self.func(record)


_MODEL: dict[str, ModelRule] = {}


def model_rule(*, code: str, name: str, title: str,
               examples: list[ModelExample] | tuple[ModelExample, ...] = ()) -> Callable[[Callable[..., Result]], Callable[..., Result]]:
    """Register a model rule: a pure function of the probe record that returns a Result."""

    def register(func: Callable[..., Result]) -> Callable[..., Result]:
        _admit("model rule", _MODEL, func, code, name, _MODEL_CODE, examples)
        _MODEL[code] = ModelRule(code, name, title, tuple(examples), func, inspect.cleandoc(func.__doc__ or ""))
        return func

    return register


def model_rules() -> list[ModelRule]:
    return _all("model", _MODEL)


# --------------------------------------------------------------------------- checkpoint rules
_CKPT_CODE = re.compile(r"^TI1\d\d$")
CKPT_AREA = "checkpoint"


@dataclass(frozen=True)
class CkptExample:
    """A recorded inspect report (the `torchdoctor.inspect/v1` "report" object, fields left out take
    their defaults) and the status the rule must give; `contains` must be in the message."""

    expect: str
    report: Mapping[str, Any]
    note: str = ""
    contains: str = ""


@dataclass(frozen=True)
class CkptRule:
    code: str
    name: str
    title: str
    examples: tuple[CkptExample, ...]
    func: Callable[..., Result] = field(repr=False)
    doc: str = ""
    related: tuple[str, ...] = ()
    area: str = CKPT_AREA

    def __call__(self, report: Any) -> Result:
        return self.func(report)


_CKPT: dict[str, CkptRule] = {}


def ckpt_rule(*, code: str, name: str, title: str, examples: list[CkptExample] | tuple[CkptExample, ...] = (),
              related: tuple[str, ...] = ()) -> Callable[[Callable[..., Result]], Callable[..., Result]]:
    """Register a checkpoint rule: a pure function of an InspectReport that returns a Result."""

    def register(func: Callable[..., Result]) -> Callable[..., Result]:
        _admit("checkpoint rule", _CKPT, func, code, name, _CKPT_CODE, examples)
        _CKPT[code] = CkptRule(code, name, title, tuple(examples), func, inspect.cleandoc(func.__doc__ or ""),
                               tuple(related))
        return func

    return register


def ckpt_rules() -> list[CkptRule]:
    """Every checkpoint rule, ordered by code."""
    return _all("inspect", _CKPT)


def find_ckpt_rule(key: str) -> CkptRule | None:
    key = key.strip()
    for rule in ckpt_rules():
        if key.upper() == rule.code or key.lower() == rule.name:
            return rule
    return None
