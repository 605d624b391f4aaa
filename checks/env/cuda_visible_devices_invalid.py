from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from torchdoctor.facts.model import known
from torchdoctor.model import Fix, error, ok, warning
from torchdoctor.registry import Example, env_check

H100 = "NVIDIA H100 80GB HBM3"
UUIDS = ["GPU-5a1c3f0e-8b2d-4c6e-9f01-23456789abcd", "GPU-77e0d2b4-1a3c-4e5f-8a9b-0c1d2e3f4a5b"]


def _gpus(n: int = 2, **extra: Any) -> list[dict[str, Any]]:
    return [{"index": i, "name": H100, "uuid": UUIDS[i] if i < len(UUIDS) else f"GPU-{i:08d}-0000-0000-0000-000000000000",
             "mig_mode": False, **extra} for i in range(n)]


def _facts(value: str | None, gpus: Any = None) -> dict[str, Any]:
    facts: dict[str, Any] = {"env": {"variables": {} if value is None else {"CUDA_VISIBLE_DEVICES": value}}}
    if gpus is not None:
        facts["nvidia"] = {"gpus": gpus}
    return facts


@dataclass
class Parsed:
    """CUDA_VISIBLE_DEVICES read the way torch reads it (`torch.cuda._parse_visible_devices`)."""

    kind: str  # "index", "uuid" (GPU-...), "mig" (MIG-...)
    entries: list[str]
    kept: list[Any]  # what torch keeps: ints or UUID prefixes; [] after a repeat
    repeated: str | None = None  # the entry seen twice (torch then sees no GPU at all)
    stop: int | None = None  # position of the entry that ended the list (invalid, negative, other prefix)
    junk: list[tuple[str, int]] = field(default_factory=list)  # "1gpu" read as 1
    raises: str | None = None  # torch itself fails to parse (int("+"))


def _strtoul(s: str) -> int:
    """torch's `_strtoul`: the leading [+-]digits of s, or -1."""
    if not s:
        return -1
    idx = 0
    for idx, c in enumerate(s):
        if not (c.isdigit() or (idx == 0 and c in "+-")):
            break
        if idx + 1 == len(s):
            idx += 1
    return int(s[:idx]) if idx > 0 else -1


def parse_visible_devices(value: str) -> Parsed:
    entries = value.split(",")
    for prefix, kind in (("GPU-", "uuid"), ("MIG-", "mig")):
        if value.startswith(prefix):
            kept: list[Any] = []
            for i, elem in enumerate(entries):
                if elem in kept:
                    return Parsed(kind, entries, [], repeated=elem)
                if not elem.startswith(prefix):
                    return Parsed(kind, entries, kept, stop=i)
                kept.append(elem)
            return Parsed(kind, entries, kept)
    parsed = Parsed("index", entries, [])
    for i, elem in enumerate(entries):
        text = elem.strip()
        try:
            x = _strtoul(text)
        except ValueError as exc:
            parsed.raises = f"{text!r}: {exc}"
            parsed.stop = i
            return parsed
        if x in parsed.kept:
            return Parsed("index", entries, [], repeated=elem)
        if x < 0:
            parsed.stop = i
            return parsed
        if not re.fullmatch(r"\+?\d+", text):
            parsed.junk.append((elem, x))
        parsed.kept.append(x)
    return parsed


@env_check(
    code="TE205",
    name="cuda-visible-devices-invalid",
    title="CUDA_VISIBLE_DEVICES selects the GPUs it names",
    area="NVIDIA driver & GPUs",
    needs=("env.variables",),
    examples=[
        Example("ok", _facts(None, _gpus()), "unset: every GPU is visible"),
        Example("ok", _facts("0,1", _gpus()), "both GPUs, in order"),
        Example("ok", _facts("1", _gpus()), "one GPU"),
        Example("ok", _facts(" 1 , 0 ", _gpus()), "torch strips spaces around numbers"),
        Example("ok", _facts(f"{UUIDS[1]},{UUIDS[0]}", _gpus()), "GPUs by UUID"),
        Example("ok", _facts("GPU-77e0d2b4", _gpus()), "a unique UUID prefix is enough"),
        Example("ok", _facts("0,0", []), "no NVIDIA GPU here: the variable has no effect"),
        Example("error", _facts("0,0", _gpus()), "a repeated ordinal hides every GPU", contains="repeated"),
        Example("error", _facts("0,1,1", _gpus()), "repeat at the end", contains="sees no GPU"),
        Example("error", _facts("all", _gpus()), "NVIDIA_VISIBLE_DEVICES syntax", contains="unset CUDA_VISIBLE_DEVICES"),
        Example("error", _facts("2", _gpus()), "index past the last GPU", contains="there are 2 GPUs"),
        Example("warning", _facts("0,2", _gpus()), "index past the last GPU after a valid one", contains="only GPU 0"),
        Example("warning", _facts("0,gpu1", _gpus()), "not a number: the list ends there", contains="'gpu1'"),
        Example("warning", _facts("0,,1", _gpus()), "an empty entry ends the list", contains="ends the list"),
        Example("warning", _facts("1gpu", _gpus()), "trailing characters ignored", contains="read as 1"),
        Example("warning", _facts("", _gpus()), "empty string hides every GPU: often meant, worth saying",
                contains="hides every GPU"),
        Example("warning", _facts("-1", _gpus()), "-1 hides every GPU", contains="hides every GPU"),
        Example("error", _facts("GPU-00000000-dead", _gpus()), "a UUID of another machine", contains="matches no GPU"),
        Example("error", _facts(f"{UUIDS[0]},{UUIDS[0]}", _gpus()), "repeated UUID", contains="repeated"),
        Example("warning", _facts(f"{UUIDS[0]},1", _gpus()), "UUIDs and indexes mixed", contains="'1'"),
        Example("warning", _facts(f"{UUIDS[0]}, {UUIDS[1]}", _gpus()), "a space after the comma",
                contains="has a space before GPU-"),
        Example("warning", _facts("0", [{"index": 0, "name": "NVIDIA A100-SXM4-80GB", "uuid": UUIDS[0], "mig_mode": True}]),
                "MIG GPU selected as a whole", contains="MIG-"),
        Example("error", _facts("MIG-4b1c0d2e-aaaa-bbbb-cccc-0123456789ab", _gpus()), "MIG UUID without MIG",
                contains="no GPU has MIG enabled"),
        Example("error", _facts("0,0"), "GPUs unknown: the repeat alone is enough", contains="repeated"),
        Example("ok", _facts("3"), "GPUs unknown: a plain index cannot be judged"),
    ],
)
def cuda_visible_devices_invalid(facts):
    """
    ## What it checks
    `CUDA_VISIBLE_DEVICES`, read exactly as torch reads it (`torch.cuda._parse_visible_devices`),
    against the GPUs NVML reports: entries that are not GPU numbers, numbers past the last GPU,
    UUIDs that match no GPU, repeated entries, and MIG-enabled GPUs selected as a whole.

    ## Why it matters
    CUDA never complains about this variable; it silently shows fewer GPUs. A repeated entry
    (`0,0`) hides every GPU, so `torch.cuda.is_available()` is False on a machine full of GPUs.
    Parsing stops at the first entry that is not a GPU (`0,gpu1`, `0,,1`, `0,-1,1`, a number past
    the last GPU, a UUID from another machine), so later GPUs vanish. `1gpu` is read as `1`. `all`
    is NVIDIA_VISIBLE_DEVICES syntax (the container runtime's), not CUDA's: it hides every GPU.
    A GPU in MIG mode runs CUDA work only inside its MIG instances, which are chosen by `MIG-` UUID.

    ## How to fix
    List distinct GPU numbers (`0,1`) or full UUIDs from `nvidia-smi -L`, separated by commas
    only; unset the variable to see every GPU. For MIG use the `MIG-` UUIDs that `nvidia-smi -L`
    prints under the GPU.
    """
    value = facts.env.variables.get("CUDA_VISIBLE_DEVICES")
    if value is None:
        return ok("CUDA_VISIBLE_DEVICES is not set: every GPU is visible")
    gpus = facts.get("nvidia.gpus")
    gpus = gpus if isinstance(gpus, list) else None  # None: unknown, so judge the text alone
    if gpus == []:
        return ok(f"CUDA_VISIBLE_DEVICES={value!r}, but there is no NVIDIA GPU here, so it has no effect")

    p = parse_visible_devices(value)
    evidence: dict[str, Any] = {"CUDA_VISIBLE_DEVICES": value}
    if gpus is not None:
        evidence["GPUs on this machine"] = len(gpus)
    unset = ("unset CUDA_VISIBLE_DEVICES  # every GPU", "nvidia-smi -L  # numbers and UUIDs of the GPUs")

    if p.repeated is not None:
        evidence["torch sees"] = "no GPU"
        return error(f"CUDA_VISIBLE_DEVICES={value!r} repeats {p.repeated.strip()!r}: a repeated entry makes CUDA "
                     "and torch drop the whole list, so torch sees no GPU (is_available() is False)",
                     fix=Fix("List each GPU once",
                             (f"export CUDA_VISIBLE_DEVICES={','.join(_dedupe(p.entries))}",) + unset[1:]),
                     evidence=evidence)

    if p.kind == "index" and not p.kept:
        first = p.entries[0].strip()
        if p.raises is None and (value.strip() == "" or re.fullmatch(r"-\d+", first)):
            if gpus is None:
                return ok(f"CUDA_VISIBLE_DEVICES={value!r} hides every GPU", **evidence)
            evidence["torch sees"] = "no GPU"
            return warning(f"CUDA_VISIBLE_DEVICES={value!r} hides every GPU: torch runs on the CPU only. That is "
                           "right for a CPU-only job; to train on the GPUs, unset it",
                           fix=Fix("Unset CUDA_VISIBLE_DEVICES, or list the GPUs to use", unset), evidence=evidence)
        hint = ""
        if first.lower() in ("all", "none", "void"):
            hint = f" ('{first}' is NVIDIA_VISIBLE_DEVICES syntax for the container runtime, not CUDA's)"
        if p.raises:
            hint = " (torch's own parser raises ValueError on it)"
        evidence["torch sees"] = "no GPU"
        what = repr(first) if first else "an empty entry"
        return error(f"CUDA_VISIBLE_DEVICES={value!r} starts with {what}, which is not a GPU number{hint}: CUDA "
                     "stops reading at the first invalid entry, so torch sees no GPU",
                     fix=Fix("Use GPU numbers or UUIDs, or unset CUDA_VISIBLE_DEVICES to see every GPU",
                             unset + ("export CUDA_VISIBLE_DEVICES=0,1  # the GPUs to use",)),
                     evidence=evidence)

    fatal: list[str] = []  # every GPU is lost: error
    problems: list[str] = []  # some GPUs are lost or misread: warning
    if p.stop is not None:
        bad, dropped = p.entries[p.stop].strip(), p.entries[p.stop + 1:]
        if p.raises:
            why = f"{bad!r} cannot be parsed (torch raises ValueError) and ends the list"
        elif bad == "":
            why = "an empty entry ends the list"
        elif p.kind == "index":
            why = f"{bad!r} is not a GPU number and ends the list"
        elif bad.startswith(prefix := "GPU-" if p.kind == "uuid" else "MIG-"):
            why = f"{p.entries[p.stop]!r} has a space before {prefix} (UUIDs are not stripped) and ends the list"
        else:
            why = f"{bad!r} does not start with {prefix} and ends the list"
        problems.append(why + (f", dropping {','.join(dropped)}" if dropped else ""))
    for elem, x in p.junk:
        problems.append(f"{elem.strip()!r} is read as {x} (what follows the number is ignored)")

    visible: list[int] | None = None  # GPU numbers (NVML order) torch will use, when known
    if gpus is not None and p.kind == "index":
        visible = list(p.kept)
        for pos, x in enumerate(p.kept):
            if x >= len(gpus):
                visible = p.kept[:pos]
                seen = f"only GPU {', '.join(map(str, visible))}" if visible else "no GPU"
                (problems if visible else fatal).append(
                    f"GPU {x} does not exist (there are {len(gpus)} GPUs, 0-{len(gpus) - 1}); CUDA stops at it, "
                    f"so torch sees {seen}")
                break
    if gpus is not None and p.kind == "uuid" and all(known(g.uuid) for g in gpus):
        visible = []
        for cand in p.kept:
            hits = [i for i, g in enumerate(gpus) if g.uuid.startswith(cand)]
            if len(hits) != 1:
                what = "matches no GPU here" if not hits else f"matches {len(hits)} GPUs (too short a prefix)"
                seen = f"only the {len(visible)} GPU(s) before it" if visible else "no GPU"
                (problems if visible else fatal).append(f"{cand} {what}; CUDA stops at it, so torch sees {seen}")
                break
            if hits[0] in visible:
                visible = []
                fatal.append(f"{cand} names GPU {hits[0]} a second time, which hides every GPU")
                break
            visible.append(hits[0])
    if gpus is not None and p.kind == "mig" and all(g.mig_mode is False for g in gpus):
        fatal.append("it names MIG instances, but no GPU has MIG enabled, so torch sees no GPU")
    if visible is not None and _order_is_nvml_order(facts, gpus):
        for i in visible:
            if i < len(gpus) and gpus[i].mig_mode is True:
                problems.append(f"GPU {i} has MIG enabled: CUDA work runs only inside its MIG instances, which are "
                                "selected by their MIG- UUIDs, not by the GPU's number or GPU- UUID")
    if visible is not None:
        evidence["torch sees"] = f"GPU {', '.join(map(str, visible))}" if visible else "no GPU"

    if fatal:
        return error(f"CUDA_VISIBLE_DEVICES={value!r}: " + "; ".join(fatal + problems),
                     fix=Fix("Name GPUs of this machine (numbers from 0, or UUIDs from `nvidia-smi -L`), or unset "
                             "CUDA_VISIBLE_DEVICES to see every GPU", unset),
                     evidence=evidence)
    if problems:
        if any("MIG enabled" in x for x in problems):
            fix = Fix("Select MIG instances by their MIG- UUIDs, listed by `nvidia-smi -L` under each GPU",
                      ("nvidia-smi -L", "export CUDA_VISIBLE_DEVICES=MIG-<uuid>  # one line of nvidia-smi -L"))
        else:
            fix = Fix("List GPU numbers (or full UUIDs) separated by commas and nothing else",
                      _suggest(p, gpus) + unset[1:])
        return warning(f"CUDA_VISIBLE_DEVICES={value!r}: " + "; ".join(problems), fix=fix, evidence=evidence)
    selected = (f"{len(p.kept)} MIG instance(s)" if p.kind == "mig" else
                f"GPU {', '.join(map(str, visible if visible is not None else p.kept))}")
    return ok(f"CUDA_VISIBLE_DEVICES={value!r} selects {selected}", **evidence)


def _order_is_nvml_order(facts, gpus: list) -> bool:
    """CUDA numbers GPUs fastest first unless CUDA_DEVICE_ORDER=PCI_BUS_ID (nvidia-smi's order); the two
    agree when every GPU is the same model."""
    if facts.env.variables.get("CUDA_DEVICE_ORDER") == "PCI_BUS_ID":
        return True
    names = {g.name for g in gpus}
    return len(names) == 1 and all(known(n) for n in names)


def _dedupe(entries: list[str]) -> list[str]:
    seen: list[str] = []
    for e in entries:
        if e.strip() not in seen:
            seen.append(e.strip())
    return seen


def _suggest(p: Parsed, gpus: list | None) -> tuple[str, ...]:
    if p.kind != "index":
        return ()
    wanted: list[int] = []
    for elem in p.entries:
        try:
            x = _strtoul(elem.strip())
        except ValueError:
            continue
        if x >= 0 and x not in wanted and (gpus is None or x < len(gpus)):
            wanted.append(x)
    return (f"export CUDA_VISIBLE_DEVICES={','.join(map(str, wanted))}",) if wanted else ()
