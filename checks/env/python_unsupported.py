from __future__ import annotations

import re

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import Version

from torchdoctor.data import tables
from torchdoctor.model import Fix, error, ok, skip, warning
from torchdoctor.registry import Example, env_check

from ._cuda import torch_said, unknown_need
from ._install import fact, first, no_torch, pip, torch_dist, torch_version, version


def _xy(text: str) -> tuple[int, int]:
    major, _, rest = text.partition(".")
    return int(major), int(rest.rstrip("t") or 0)


def _also_shipped(row: dict, py: tuple[int, int]) -> bool:
    """One of the older Pythons the release also shipped wheels for, below its Python 3 range (torch 0.4-1.4
    had Python 2.7 wheels beside 3.5+; 1.5 dropped 2.7)."""
    return f"{py[0]}.{py[1]}" in (row.get("python_also") or [])


def _below_range(row: dict, py: tuple[int, int]) -> bool:
    """Below the release's Python 3 range and not one of the older Pythons it also shipped wheels for."""
    return py < _xy(row["python"]["min"]) and not _also_shipped(row, py)


def _supporting(py: tuple[int, int]) -> list[str]:
    """Torch minors (oldest first) whose supported Python range includes this Python."""
    return [row["torch"] for row in tables.releases()
            if not _below_range(row, py) and (row["python"]["max"] is None or py <= _xy(row["python"]["max"]))]


def _commands(facts, row: dict | None, py: tuple[int, int], torch_text: str, too_old: bool) -> tuple[str, ...]:
    """Either another torch for this Python, or this torch in a new environment with a Python it supports."""
    torches = _supporting(py)
    commands = []
    if torches and too_old:
        commands.append(f"{pip(facts)} install \"torch=={torches[-1]}.*\"   # the newest torch for Python {py[0]}.{py[1]}")
    elif torches:
        commands.append(f"{pip(facts)} install --upgrade \"torch>={torches[0]}\"")
    if row is not None:
        target = row["python"]["min"] if too_old else row["python"]["max"]
        if target:
            commands.append(f"python{target} -m venv .venv && .venv/bin/pip install torch=={torch_text}")
    return tuple(commands)


def _as_published(facts, row: dict, py: tuple[int, int], torch_text: str, too_old: bool, evidence: dict,
                  published: list[str], system: str, message: str):
    """A warning from what PyPI's files show for this torch minor on this OS, where they and the release matrix differ."""
    evidence["PyPI wheels"] = f"torch {row['torch']} for Python {', '.join(published)} on {system}"
    return warning(message, fix=Fix(f"Use Python {_span(row)} for torch {row['torch']}, or a torch release that supports "
                                    f"Python {py[0]}.{py[1]}", _commands(facts, row, py, torch_text, too_old)),
                   evidence=evidence, related=("no-wheel-for-python",))


def _span(row: dict) -> str:
    lo, hi = row["python"]["min"], row["python"]["max"]
    also = "".join(f"{v}, " for v in row.get("python_also") or [])
    return also + (f"{lo}–{hi}" if hi else f"{lo}+")


# The last torch release with macOS x86_64 wheels: from 2.3 PyTorch builds macOS for Apple Silicon (arm64) only.
_LAST_MAC_X86 = "2.2.2"
# uv's platform tag for an x86_64 macOS interpreter (an Intel Mac, or an x86 Python under Rosetta on Apple Silicon).
_MAC_X86_TAG = re.compile(r"\bmacosx_\d+_\d+_x86_64\b")


def _mac_x86(facts, said):
    """No wheel because the interpreter is macOS x86_64, which torch 2.3 and later do not build for: said by uv's platform
    tag, or seen in pip's listing, which then stops at 2.2.x (every other platform lists later releases for the same
    Pythons). None where neither shows it."""
    asked = version(said.requested) if said.requested else None
    if asked is not None and asked < version("2.3"):
        return None
    listed = _listed_versions(said.text) or []
    newest = max((v for v in map(version, listed) if v is not None), default=None)
    by_tag = _MAC_X86_TAG.search(said.text)
    if not by_tag and not (asked is not None and newest is not None and (newest.major, newest.minor) == (2, 2)):
        return None
    how = ("uv names the platform tag " + by_tag.group(0) if by_tag else
           f"pip lists torch only up to {newest}, the last release with macOS x86_64 wheels")
    return error(f"no torch {said.requested or 'release'} wheel fits this interpreter: {how}. PyTorch stopped building "
                 f"macOS x86_64 wheels after {_LAST_MAC_X86}; an Intel Mac, or an x86 Python under Rosetta on Apple "
                 "Silicon, gets nothing newer",
                 fix=Fix("On Apple Silicon, use an arm64 Python (a native Homebrew, python.org universal2 or conda "
                         f"osx-arm64 interpreter); on an Intel Mac, torch {_LAST_MAC_X86} is the newest release",
                         ("python -c \"import platform; print(platform.machine())\"   # arm64 on Apple Silicon, not x86_64",
                          f"{pip(facts)} install torch=={_LAST_MAC_X86}   # an Intel Mac")),
                 evidence={"installer said": said.text}, related=("no-wheel-for-python",))


def _no_wheel(facts, said):
    """pip found no wheel of the torch it was asked for: this Python outside that release's range is why."""
    mac = _mac_x86(facts, said)
    if mac is not None:
        return mac
    if said.requested is None:
        return _no_wheel_at_all(facts, said)
    gap = unknown_need(facts, "python.version")
    if gap is not None:
        # pip listing only the 2017 source releases (0.1.2, 0.1.2.postN), or none, saw no wheel of any torch
        # release for this interpreter: the same evidence as a refusal of plain `torch`.
        if _no_release_listed(said.text):
            return _no_wheel_at_all(facts, said)
        return _newer_python_by_listing(facts, said) or _range_without_python(facts, said) or gap
    pv = version(facts.python.version)
    row = tables.release(said.requested)
    if pv is None or row is None:
        return skip(f"pip found no wheel of torch {said.requested}, and the Python version or that release's "
                    "supported range is unknown")
    py = (pv.major, pv.minor)
    too_old = _below_range(row, py)
    above = row["python"]["max"] is not None and py > _xy(row["python"]["max"])
    published = tables.pypi_pythons(said.requested, fact(facts, "python.system"), fact(facts, "python.machine"))
    if "python[version" not in said.text and published and f"{py[0]}.{py[1]}" in published:
        too_old = above = False  # PyPI has this pair for this OS (torch 1.13 for Python 3.11 on Linux): not the Python
    if not (too_old or above):
        return _another_pip_by_listing(facts, said, py) or skip(
            f"pip found no wheel of torch {said.requested} although it supports Python {facts.python.version}: "
            "the platform or the index URL is the cause, not Python")
    # conda names the Python-pinned spec it cannot meet; pip only says it found nothing.
    found = "conda finds no build" if "python[version" in said.text else "pip finds no wheel"
    return error(f"torch {row['torch']} supports Python {_span(row)}; this interpreter is Python {facts.python.version}, "
                 f"so {found} of torch {said.requested}",
                 fix=Fix(f"Use Python {_span(row)} for torch {row['torch']} (a new environment), or ask for a torch "
                         f"release built for Python {py[0]}.{py[1]}",
                         _commands(facts, row, py, said.requested.split("+")[0], too_old)),
                 evidence={"pip said": said.text, "python": facts.python.version, "supported": _span(row)},
                 related=("no-wheel-for-python",))


def _range_without_python(facts, said):
    """pip found no wheel of a torch release the table knows, and the report does not show the Python: that release's
    Python range is what to compare `python -V` with (the usual cause), said as a warning. A local version asked for
    ("+cu118") is left alone: without PyTorch's index that fails on any Python; so is a refusal listing the versions
    that do fit, which _newer_python_by_listing has read."""
    row = tables.release(said.requested)
    if row is None or "+" in said.requested or row["python"]["max"] is None:
        return None
    if _listed_versions(said.text):
        return None  # pip listed what fits this interpreter, and the listing rules did not blame its Python
    installer = "poetry" if "installation candidates" in said.text else "pip"
    return warning(f"{installer} found no wheel of torch {said.requested}, which was built for Python {_span(row)} only (64-bit); "
                   "the report does not show this interpreter's Python, and one outside that range is the usual reason "
                   "(else a 32-bit Python or a platform without torch wheels)",
                   fix=Fix(f"Check `python -V`; use Python {_span(row)} for torch {row['torch']} (a new environment), or "
                           "ask for a torch release built for your Python",
                           ("python -VV",)),
                   evidence={f"{installer} said": said.text, "python": "not in the report", "supported": _span(row)},
                   related=("no-wheel-for-python",))


def _listing_starts_later(said):
    """(the release asked for, the earliest one pip listed, that one's row) where pip, asked for a PyPI release, listed
    only later releases, both in the release table with a Python range; None otherwise. A local build (+cu113) is not
    on PyPI at all: there the index is the likelier cause, unless pip listed local builds too (+cu118, +cpu: it read
    PyTorch's index or find-links page, which holds the one asked for, for the Pythons of its day)."""
    if "+" in said.requested and not re.search(r"\d\+(?:cu\d{2,3}|cpu|rocm)", _listed_text(said.text)):
        return None
    asked = tables.release(said.requested)
    listed = [(parsed, v) for v in _listed_versions(said.text) or [] if not v.startswith("0.1.") and (parsed := version(v))]
    if asked is None or not listed or asked["python"]["max"] is None:
        return None
    earliest = min(listed)[1]
    first = tables.release(earliest)
    if first is None or first["python"]["max"] is None or version(earliest) <= version(said.requested):
        return None
    return asked, earliest, first


def _newer_python_by_listing(facts, said):
    """The Python unknown, what pip listed still tells: "torch==1.10.0 (from versions: 1.11.0, 1.12.0, ...)" starts at the
    first release built for a Python newer than every one 1.10 supports (1.11 added 3.10), so this interpreter is that
    new Python or newer. A warning: a platform whose wheels start late (macOS arm64, aarch64) can list the same way."""
    later = _listing_starts_later(said)
    if later is None:
        return None
    asked, earliest, first = later
    asked_max = _xy(asked["python"]["max"])
    if _newest_published_python(first, facts) <= asked_max:
        return None  # the first release listed adds no newer Python: the gap is the platform's, not Python's
    # The interpreter's Python is one the release before the earliest listed lacked ("from versions: 2.2.0, ..." says
    # Python 3.12, which 2.1 lacked, not just one newer than the release asked for).
    rows = tables.releases()
    at = next((i for i, r in enumerate(rows) if r["torch"] == first["torch"]), 0)
    before = _xy(rows[at - 1]["python"]["max"]) if at and rows[at - 1]["python"]["max"] else asked_max
    newest = max(before, asked_max)
    newer = f"{newest[0]}.{newest[1] + 1}"
    return warning(f"pip found no wheel of torch {said.requested} and lists torch only from {earliest}, the first release "
                   f"with wheels for Python {newer}: this interpreter is most likely Python {newer} or newer, and torch "
                   f"{asked['torch']} supports Python {_span(asked)}",
                   fix=Fix(f"Check the Python (python -VV); use Python {_span(asked)} for torch {asked['torch']} (a new "
                           f"environment), or ask for torch {earliest} or newer",
                           ("python -VV", f"{pip(facts)} install \"torch>={earliest}\"")),
                   evidence={"pip said": said.text, "python": "not in the report", "supported": _span(asked)},
                   related=("no-wheel-for-python",))


def _another_pip_by_listing(facts, said, py):
    """The stated Python fits the release asked for, yet pip lists torch only from the first release built for a newer
    Python ("torch==2.1.2 (from versions: 2.2.0)" beside "python version 3.10.10"): the pip that ran belongs to another
    interpreter than the one the report states (a second Python on PATH, a venv made with another). A warning: a
    platform whose wheels start late can list the same way."""
    later = _listing_starts_later(said)
    if later is None:
        return None
    asked, earliest, first = later
    asked_max, first_max = _newest_wheel_python(asked), _newest_wheel_python(first)
    if first_max <= asked_max or py > asked_max:
        return None
    newer = f"{asked_max[0]}.{asked_max[1] + 1}"
    return warning(f"pip found no wheel of torch {said.requested}, which supports the stated Python {facts.python.version}, "
                   f"and lists torch only from {earliest}, the first release with wheels for Python {newer}: the pip that "
                   f"ran is most likely another interpreter's (Python {newer} or newer)",
                   fix=Fix("Run pip through the Python you mean, and check which one that is",
                           ("python -VV", "python -m pip -V", f"python -m pip install torch=={said.requested}")),
                   evidence={"pip said": said.text, "python": facts.python.version, "supported": _span(asked)},
                   related=("no-wheel-for-python",))


def _newest_published_python(row, facts):
    """The newest (GIL) Python a release has wheels for, counting the ones PyPI published outside its matrix (torch
    1.13's cp311 on Linux), on this OS where the report names it, else on any."""
    best = _newest_wheel_python(row)
    system = fact(facts, "python.system")
    for name in ([system] if system in ("Linux", "Windows", "Darwin") else ["Linux", "Windows", "Darwin"]):
        for py in tables.pypi_pythons(row["torch"], name) or []:
            if not py.endswith("t"):
                best = max(best, _xy(py))
    return best


def _newest_wheel_python(row):
    """The newest Python a release has wheels for, counting those the table calls experimental (torch 2.2's cp312)."""
    return max([_xy(row["python"]["max"])] + [_xy(v) for v in row.get("python_experimental") or []])


_FROM_VERSIONS = re.compile(r"\(from versions:\s*([^)]*)\)")


def _listed_text(text):
    """What pip listed in "(from versions: ...)", or ""."""
    listed = _FROM_VERSIONS.search(text)
    return listed.group(1) if listed else ""


def _listed_versions(text):
    """The versions pip listed in "(from versions: ...)", [] for "none"; None where it listed none."""
    listed = _FROM_VERSIONS.search(text)
    if listed is None:
        return None
    return [v for v in (v.strip() for v in listed.group(1).split(",")) if v not in ("none", "")]


def _only_source_releases(versions):
    """pip saw torch's 0.1.2 source releases of 2017 and nothing else (no wheel fits this interpreter)."""
    return bool(versions) and all(v.startswith("0.1.") for v in versions)


def _no_release_listed(text):
    versions = _listed_versions(text)
    return versions is not None and (not versions or _only_source_releases(versions))


def _no_wheel_at_all(facts, said):
    """pip, asked for plain `torch`, found no version at all ("from versions: none"): no torch release has a
    wheel for this interpreter and platform on the indexes it read. Every torch release ships 64-bit CPython
    wheels for Linux and Windows (x86-64, and aarch64 Linux), so the usual reasons are a Python newer than the
    releases on that index, a 32-bit Python, or an index URL without this platform."""
    py_text = fact(facts, "python.version")
    pv = version(py_text) if py_text else None
    evidence = {"pip said": said.text, "python": py_text or "not in the report"}
    checks = ("python -VV", "python -c \"import struct, platform; print(struct.calcsize('P') * 8, 'bit', platform.machine())\"")
    if pv is not None:
        py = (pv.major, pv.minor)
        rows = tables.releases()
        # A row without a maximum is a release whose upper bound is not published yet: no newer Python than
        # any published maximum is assumed to fit it.
        highest = max(_xy(r["python"]["max"]) for r in rows if r["python"]["max"])
        fits = [r for r in rows if _xy(r["python"]["min"]) <= py <= (_xy(r["python"]["max"]) if r["python"]["max"] else highest)]
        if not fits:
            newest = next(r for r in reversed(rows) if r["python"]["max"])
            also = [r for r in rows if _also_shipped(r, py)]
            if also:
                # Python 2.7: the torch 0.4-1.4 wheels for it were Linux and macOS only (Windows builds were
                # always Python 3), and no release since has any.
                return error(f"pip found no torch wheel at all for Python {py_text}: only torch {also[0]['torch']} to "
                             f"{also[-1]['torch']} had wheels for it (Linux and macOS; never Windows), and no release "
                             f"since (torch {newest['torch']} supports Python {_span(newest)})",
                             fix=Fix(f"Create an environment with a Python that current torch supports ({_span(newest)} "
                                     f"for torch {newest['torch']})", checks),
                             evidence=evidence, related=("no-wheel-for-python",))
            return error(f"pip found no torch wheel at all for Python {py_text}: no torch release supports it "
                         f"(torch {newest['torch']} supports Python {_span(newest)})",
                         fix=Fix(f"Create an environment with a Python that torch supports ({_span(newest)} for torch "
                                 f"{newest['torch']})", checks),
                         evidence=evidence, related=("no-wheel-for-python",))
        first_fit = fits[0]
        return warning(f"pip found no torch wheel at all for this interpreter (Python {py_text}); torch supports "
                       f"Python {py[0]}.{py[1]} from torch {first_fit['torch']} on, so either the index holds only older "
                       "releases, or this Python is 32-bit or runs on a platform without wheels",
                       fix=Fix("Check the interpreter is 64-bit CPython on a supported platform, and install from "
                               "PyPI or the PyTorch index of a release that supports this Python", checks),
                       evidence=evidence, related=("no-wheel-for-python",))
    listed = ("only torch's 0.1.2 source releases of 2017" if _only_source_releases(_listed_versions(said.text) or [])
              else "'from versions: none'")
    return warning(f"pip found no torch wheel at all for this interpreter ({listed}): its Python is "
                   "newer than the torch releases on that index, or 32-bit, or its platform has no wheels; the report "
                   "does not show the Python version",
                   fix=Fix("Check the Python version and that it is 64-bit CPython, then use a Python that the wanted "
                           "torch release supports (a new environment)", checks),
                   evidence=evidence, related=("no-wheel-for-python",))


def _app_says_python(facts):
    """No torch in the report, but the application that installs one checked this Python and refused it (A1111's
    INCOMPATIBLE PYTHON VERSION banner): its pinned torch and packages were built for the Python it names."""
    said = torch_said(facts, "app-python")
    if not said:
        return None
    tested = version(said[0].requested)
    have = version(facts.python.version)
    if tested is None or have is None or (tested.major, tested.minor) == (have.major, have.minor):
        return None
    want = f"{tested.major}.{tested.minor}"
    return warning(f"the application says it is tested with Python {said[0].requested} and this interpreter is "
                   f"Python {facts.python.version}: the torch release and packages it pins may have no build for "
                   f"Python {have.major}.{have.minor} (\"Couldn't install torch\", failed package installs)",
                   fix=Fix(f"Install Python {want}, point the application at it, and delete the application's venv "
                           f"folder so it is created again with that Python (on Windows: py -{want} -m venv venv)",
                           ("python -VV", f"python{want} -m venv venv")),
                   evidence={"application said": said[0].text, "python": facts.python.version},
                   related=("no-wheel-for-python",))


# What platform.machine() (or a report's words) names for a 32-bit interpreter or system.
_BITS32_MACHINES = {"x86", "i386", "i486", "i586", "i686", "armv6l", "armv7l"}


def _thirty_two_bit(facts):
    """No torch release has official wheels for a 32-bit Python (Windows x86, Linux i686, 32-bit ARM)."""
    machine = fact(facts, "python.machine")
    py = fact(facts, "python.version")
    where = f"Python {py} here" if py else "The Python here"
    return error(f"{where} is 32-bit ({machine}): no torch release has ever published wheels for a 32-bit Python "
                 "(Windows x86, Linux i686, 32-bit ARM), so pip finds no torch ('from versions: none') or only the "
                 "0.1.2 placeholder, whatever the torch version asked for",
                 fix=Fix("Install a 64-bit Python (on Windows, python.org's 'Windows installer (64-bit)'; on a "
                         "Raspberry Pi, a 64-bit OS), create a new virtual environment with it and install torch there",
                         ("python -c \"import struct, platform; print(struct.calcsize('P') * 8, platform.machine())\"",)),
                 evidence={"python.machine": machine, **({"python": py} if py else {})})


@env_check(
    code="TE105",
    name="python-unsupported",
    title="The Python version is one torch supports",
    area="Python & packages",
    examples=[
        Example("warning", {"torch": {"warnings": ["ERROR: Could not find a version that satisfies the requirement torch "
                                                   "(from versions: none)"]}},
                "pip's refusal of plain `torch`, no Python version in the paste", contains="from versions: none"),
        Example("warning", {"torch": {"warnings": [
                    "ERROR: Could not find a version that satisfies the requirement torch==1.10.0+cu113 (from versions: "
                    "0.1.2, 0.1.2.post1, 0.1.2.post2)"]}},
                "pip saw only the 2017 source releases: no wheel for this interpreter, Python not in the paste",
                contains="0.1.2 source releases"),
        Example("skip", {"torch": {"warnings": [
                    "ERROR: Could not find a version that satisfies the requirement torch==1.10.0+cu113 (from versions: "
                    "1.11.0, 1.12.0, 1.12.1, 1.13.0)"]}},
                "pip saw other releases: a +cu113 build is not on the index pip read, whatever the Python"),
        Example("warning", {"torch": {"warnings": [
                    "ERROR: Could not find a version that satisfies the requirement torch==1.10.0 (from versions: "
                    "1.11.0, 1.12.0, 1.12.1, 1.13.0)"]}},
                "pip lists from the first release built for Python 3.10: the Python is newer than 1.10's",
                contains="most likely Python 3.10 or newer"),
        Example("error", {"python": {"version": "3.9"},
                          "torch": {"warnings": ["- pytorch=1.4.0 -> python[version='>=2.7,<2.8.0a0|>=3.5,<3.6.0a0|"
                                                 ">=3.6,<3.7.0a0|>=3.7,<3.8.0a0|>=3.8,<3.9.0a0']"]}},
                "conda's UnsatisfiableError: no pytorch 1.4 build for this Python", contains="conda finds no build"),
        Example("error", {"python": {"version": "3.16.0"},
                          "torch": {"warnings": ["ERROR: No matching distribution found for torch"]}},
                "a Python newer than every torch release", contains="no torch release supports it"),
        Example("warning", {"python": {"version": "3.11.1"},
                            "torch": {"warnings": ["ERROR: No matching distribution found for torch"]}},
                "a Python torch supports since 2.0: an index of older releases, or a 32-bit Python",
                contains="from torch 2.0 on"),
        Example("ok", {"python": {"version": "3.11.7"},
                       "packages": {"distributions": [{**torch_dist("torch", "2.13.0+cpu"), "requires_python": ">=3.10"}]}}),
        Example("error", {"python": {"version": "3.13.1"},
                          "packages": {"distributions": [{**torch_dist("torch", "2.4.1"), "requires_python": ">=3.8.0"}]}},
                "torch 2.4 on Python 3.13", contains="3.8–3.12"),
        Example("error", {"python": {"version": "3.10.12"},
                          "packages": {"distributions": [{**torch_dist("torch", "2.15.0"), "requires_python": ">=3.11"}]}},
                "below Requires-Python", contains=">=3.11"),
        Example("warning", {"python": {"version": "3.13.0"},
                            "packages": {"distributions": [torch_dist("torch", "2.4.1")]},
                            "torch": {"import_status": "ok", "version": "2.4.1"}},
                "imports, but outside the supported range", contains="2.6"),
        Example("warning", {"python": {"version": "3.12.3"},
                            "packages": {"distributions": [torch_dist("torch", "2.3.1")]}},
                "experimental support", contains="experimental"),
        Example("error", {"python": {"version": "3.13.1", "free_threaded": True},
                          "packages": {"distributions": [torch_dist("torch", "2.5.1")]}},
                "free-threaded Python before torch 2.6", contains="free-threaded"),
        Example("ok", {"python": {"version": "3.14.0", "free_threaded": True},
                       "packages": {"distributions": [torch_dist("torch", "2.9.1")]}}),
        Example("skip", {"python": {"version": "3.12.1"}, "packages": {"distributions": [], "torch_version_file": None}}),
        Example("warning", {"python": {"version": "3.11.2"}, "packages": {"distributions": [], "torch_version_file": None},
                            "torch": {"warnings": ["This program is tested with 3.10.6 Python, but you have 3.11.2."]}},
                "A1111's INCOMPATIBLE PYTHON VERSION banner, no torch in the paste", contains="tested with Python 3.10.6"),
        Example("skip", {"python": {"version": "3.10.11"}, "packages": {"distributions": [], "torch_version_file": None},
                         "torch": {"warnings": ["This program is tested with 3.10.6 Python, but you have 3.10.11."]}},
                "the same banner for another patch release of the same Python: nothing to say without torch"),
        Example("error", {"torch": {"warnings": [
            "ERROR: Could not find a version that satisfies the requirement torch==2.6.0 (from versions: 2.0.0, 2.0.1, "
            "2.1.0, 2.1.1, 2.1.2, 2.2.0, 2.2.1, 2.2.2)"]}},
                "pip's listing stops at 2.2.2: a macOS x86_64 interpreter, which torch 2.3+ has no wheels for",
                contains="macOS x86_64"),
        Example("error", {"python": {"version": "2.7.18"}, "torch": {"warnings": [
            "ERROR: Could not find a version that satisfies the requirement torch (from versions: none)"]}},
                "Python 2.7 and no wheel at all: only torch 0.4-1.4 had 2.7 wheels, never for Windows",
                contains="only torch 0.4 to 1.4 had wheels for it"),
        Example("error", {"python": {"version": "3.13.0", "machine": "x86"}},
                "a 32-bit Python (Windows x86): no torch release has wheels for it", contains="32-bit"),
        Example("skip", {"python": {"version": "3.13.0", "machine": "AMD64"}},
                "64-bit Windows Python, torch not in the facts: nothing to judge"),
        Example("ok", {"python": {"version": "3.9.2", "machine": "armv7l"},
                       "packages": {"distributions": [torch_dist("torch", "1.11.0")]}},
                "a community torch wheel installed on 32-bit ARM: judged by its version, not refused"),
        Example("ok", {"python": {"version": "2.7.17"}, "packages": {"distributions": [torch_dist("torch", "1.3.1")]}},
                "torch 0.4-1.4 shipped Python 2.7 wheels beside 3.5+"),
        Example("error", {"python": {"version": "2.7.17"}, "packages": {"distributions": [torch_dist("torch", "1.5.0")]}},
                "torch 1.5 dropped Python 2.7", contains="3.5"),
    ],
)
def python_unsupported(facts):
    """
    ## What it checks
    The interpreter's Python version against the `Requires-Python` of the installed torch's
    metadata and against the Python versions that torch release supports (PyTorch's release
    compatibility matrix: e.g. torch 2.4 supports 3.8–3.12, 2.9 supports 3.10–3.14), including
    free-threaded (`3.13t`) builds, which torch ships from 2.6 on.

    ## Why it matters
    A torch outside its Python range was not built for this interpreter: it came from a source
    build, `--ignore-requires-python`, or files copied between environments, and fails with `No
    module named 'torch._C'`, crashes, or misbehaves in untested ways. For a new install, pip
    silently picks an old torch or finds none ("No matching distribution found for torch").

    ## How to fix
    Use a Python the torch release supports (a new virtual environment with that Python), or
    install a torch release that supports this Python.
    """
    found = torch_version(facts)
    # A torch found installed here (a community 32-bit ARM wheel) is judged as any other; without one, a 32-bit
    # Python is the whole answer.
    if (fact(facts, "python.machine") or "").lower() in _BITS32_MACHINES and found is None \
            and fact(facts, "torch.import_status") != "ok":
        return _thirty_two_bit(facts)
    asked = torch_said(facts, "no-wheel") if found is None else []
    if asked:
        return _no_wheel(facts, asked[0])  # pip's refusal is evidence even where the Python is unknown
    gap = unknown_need(facts, "python.version")
    if gap is not None:
        return gap
    if found is None:
        return _app_says_python(facts) or skip(no_torch(facts))
    torch_text = found[0]
    py_text = facts.python.version
    pv = version(py_text)
    if pv is None:
        return skip(f"cannot read the Python version {py_text!r}")
    py = (pv.major, pv.minor)
    free_threaded = fact(facts, "python.free_threaded") is True
    imported = fact(facts, "torch.import_status") == "ok"
    row = tables.release(torch_text)
    dist = first(facts, "torch")
    evidence = {"python": py_text + ("t (free-threaded)" if free_threaded else ""), "torch": torch_text}
    too_old = row is not None and _below_range(row, py)

    if dist is not None and dist.requires_python:
        try:
            spec = SpecifierSet(dist.requires_python)
        except InvalidSpecifier:
            spec = None
        if spec is not None and not spec.contains(Version(pv.base_version), prereleases=True):
            evidence["Requires-Python"] = dist.requires_python
            too_old = too_old or any(s.operator in (">=", ">", "~=") and not s.contains(Version(pv.base_version))
                                     for s in spec)
            return error(f"torch {torch_text} requires Python {dist.requires_python} and this interpreter is "
                         f"Python {py_text}",
                         fix=Fix(f"Use a Python that this torch supports, or a torch that supports Python {py[0]}.{py[1]}",
                                 _commands(facts, row, py, torch_text, too_old)),
                         evidence=evidence, related=("no-wheel-for-python",))
    if row is None:
        return ok(f"Python {py_text} with torch {torch_text} (no support table for this release; its "
                  "Requires-Python allows it)")
    evidence["supported"] = _span(row)
    hi = row["python"]["max"]
    experimental = row.get("python_experimental") or []
    above = hi is not None and py > _xy(hi) and f"{py[0]}.{py[1]}" not in experimental
    system = fact(facts, "python.system")
    published = tables.pypi_pythons(torch_text, system, fact(facts, "python.machine"))
    wheel = f"{py[0]}.{py[1]}" + ("t" if free_threaded else "")
    if (too_old or above) and published and wheel in published:
        # Outside the release matrix, but PyTorch did publish this pair (torch 1.13 for Python 3.11 on Linux).
        return _as_published(facts, row, py, torch_text, too_old, evidence, published, system,
                             f"torch {row['torch']} supports Python {_span(row)} (PyTorch's release matrix); this "
                             f"interpreter is Python {py_text}, for which PyPI also has torch {row['torch']} wheels on "
                             f"{system}: they install, but outside the supported range (untested; some features may be "
                             "missing)")
    if too_old or above:
        message = (f"torch {row['torch']} supports Python {_span(row)}; this interpreter is Python {py_text}")
        fix = Fix(f"Use Python {_span(row)} for torch {row['torch']}, or a torch release built for Python {py[0]}.{py[1]}",
                  _commands(facts, row, py, torch_text, too_old))
        if imported:
            return warning(message + ": it imports, but this combination was never built or tested by PyTorch",
                           fix=fix, evidence=evidence, related=("no-wheel-for-python",))
        return error(message + ": no official wheel exists for this pair", fix=fix, evidence=evidence,
                     related=("no-wheel-for-python",))
    if free_threaded:
        thread_rows = [r for r in tables.releases()
                       if any(x.endswith("t") for x in r.get("python_experimental") or [])]
        first_ft = thread_rows[0]["torch"] if thread_rows else "2.6"
        if _xy(row["torch"]) < _xy(first_ft):
            return error(f"torch {row['torch']} has no free-threaded build; this interpreter is free-threaded "
                         f"Python {py_text}t", fix=Fix(f"Use the regular (GIL) build of Python {py[0]}.{py[1]}, or "
                                                       f"torch {first_ft} or later",
                                                       (f"{pip(facts)} install --upgrade \"torch>={first_ft}\"",)),
                         evidence=evidence, related=("no-wheel-for-python",))
    if f"{py[0]}.{py[1]}" in experimental and published and wheel not in published and not imported:
        # Experimental support on some platforms only: torch 2.5 published Python 3.13 wheels for Linux alone.
        return _as_published(facts, row, py, torch_text, False, evidence, published, system,
                             f"torch {row['torch']} supports Python {py[0]}.{py[1]} only as experimental, and PyPI has "
                             f"no torch {row['torch']} wheel for it on {system} (this interpreter is Python {py_text}): "
                             "`pip install` finds none, and a torch installed here by other means is an untested build")
    if f"{py[0]}.{py[1]}" in experimental:
        return warning(f"torch {row['torch']} supports Python {py[0]}.{py[1]} only as experimental (fully supported: "
                       f"{_span(row)}); expect missing features such as torch.compile",
                       fix=Fix(f"Use Python {_span(row)}, or a torch release that fully supports Python {py[0]}.{py[1]}",
                               _commands(facts, row, py, torch_text, False)),
                       evidence=evidence, related=("no-wheel-for-python",))
    suffix = " (free-threaded builds are experimental in torch)" if free_threaded else ""
    return ok(f"Python {py_text} is supported by torch {row['torch']} ({_span(row)}){suffix}")
