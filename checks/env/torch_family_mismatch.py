from __future__ import annotations

from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import Version

from torchdoctor.data import load
from torchdoctor.model import Fix, Status, error, ok, skip, warning
from torchdoctor.registry import Example, env_check

from ._install import base_version, fact, flavour, index_url, major_minor, pip, torch_dist, torch_version, version

# Packages with compiled code linked against torch's C++ ABI: a wrong pair fails at import or at the
# first op ("operator torchvision::nms does not exist"); for pure-Python packages it is a warning.
COMPILED = frozenset({
    "torchvision", "torchaudio", "torchtext", "torchao", "torchrec", "fbgemm-gpu", "xformers", "flash-attn",
    "torch-scatter", "torch-sparse", "torch-cluster", "torch-spline-conv", "mmcv", "detectron2", "apex",
})


def _torch_specs(requires: list[str], name: str = "torch") -> list[SpecifierSet]:
    specs = []
    for line in requires:
        try:
            req = Requirement(line)
        except InvalidRequirement:
            continue
        if req.name.lower() != name or not str(req.specifier):
            continue
        if req.marker is not None and "extra" in str(req.marker):
            continue  # an optional extra: not what a plain install needs
        specs.append(req.specifier)
    return specs


def _without_local(spec: SpecifierSet) -> SpecifierSet:
    """'==2.5.1+cu124' -> '==2.5.1': the CUDA flavour is compared on its own (see _flavour_clash)."""
    parts = [f"{s.operator}{s.version.split('+')[0]}" for s in spec]
    try:
        return SpecifierSet(",".join(parts))
    except InvalidSpecifier:
        return spec


def _satisfies(spec: SpecifierSet, torch_text: str) -> bool:
    return _without_local(spec).contains(base_version(torch_text) or torch_text, prereleases=True)


def _rule(name: str, pkg_version: str) -> tuple[str, SpecifierSet] | None:
    """The release pairing when the metadata carries no torch requirement (conda, source builds)."""
    v = version(pkg_version)
    if v is None:
        return None
    table = load("torch_releases")["domain_libraries"]
    if name == "torchvision" and v.major == 0:
        if v >= Version(table["torchvision_min_pin_from"]):
            return "torchvision 0.29.1+ declares torch>=2.14", SpecifierSet(">=2.14")
        if v.minor >= 15:
            return f"torchvision 0.{v.minor} pairs with torch 2.{v.minor - 15}", SpecifierSet(f"==2.{v.minor - 15}.*")
        # torchvision's README table: 0.5 and later pair with torch 1.(minor - 1); 0.4.0 with 1.2,
        # 0.4.1/0.4.2 with 1.3; 0.3 with 1.1; 0.2.x was pure Python and ran on torch up to 1.0.
        if v.minor >= 5:
            return f"torchvision 0.{v.minor} pairs with torch 1.{v.minor - 1}", SpecifierSet(f"==1.{v.minor - 1}.*")
        if v.minor == 4:
            torch = "1.2" if v.micro == 0 else "1.3"
            return f"torchvision {v.major}.{v.minor}.{v.micro} pairs with torch {torch}", SpecifierSet(f"=={torch}.*")
        if v.minor == 3:
            return "torchvision 0.3 pairs with torch 1.1", SpecifierSet("==1.1.*")
        if v.minor == 2:
            return "torchvision 0.2 (pure Python) runs on torch up to 1.0", SpecifierSet("<1.1")
    if name == "torchaudio":
        if v >= Version(table["torchaudio_stable_abi_from"]):
            return "torchaudio 2.11+ is a stable-ABI build for torch 2.11 and later", SpecifierSet(">=2.11")
        if v.major == 2:
            return f"torchaudio 2.{v.minor} pairs with torch 2.{v.minor}", SpecifierSet(f"==2.{v.minor}.*")
        if v.major == 0 and v.minor >= 8:
            return f"torchaudio 0.{v.minor} pairs with torch 1.{v.minor}", SpecifierSet(f"==1.{v.minor}.*")
    return None


def _matching(name: str, torch_text: str) -> str | None:
    """The release of a domain library that goes with this torch, as a pip requirement."""
    mm = major_minor(torch_text)
    if mm is None:
        return None
    major, n = mm
    if name == "torchvision":
        if major == 2:
            return "torchvision>=0.29.1" if n >= 14 else f"torchvision==0.{n + 15}.*"
        if major != 1:
            return None
        return {1: "torchvision==0.3.*", 2: "torchvision==0.4.0", 3: "torchvision==0.4.2"}.get(n) or (
            f"torchvision==0.{n + 1}.*" if n >= 4 else "torchvision==0.2.2")
    if name == "torchaudio":
        if major == 2:
            return "torchaudio>=2.11" if n >= 11 else f"torchaudio=={major}.{n}.*"
        return f"torchaudio==0.{n}.*" if major == 1 else None
    return None


def _flavour_clash(torch_text: str, other_text: str) -> bool:
    """cpu vs cuXXX, or CUDA builds of different major versions (what torchvision/torchaudio refuse)."""
    a, b = flavour(torch_text), flavour(other_text)
    if not a or not b or a == b:
        return False
    if a.startswith("cu") and b.startswith("cu"):
        return a[2:-1] != b[2:-1]  # cu124 -> 12, cu118 -> 11, cu101 -> 10
    return True


def _flavour_label(text: str) -> str:
    tag = flavour(text) or ""
    if tag.startswith("cu"):
        return f"CUDA {tag[2:-1]}.{tag[-1]}"
    if tag.startswith("rocm"):
        return f"ROCm {tag[4:]}"
    return tag.upper()


@env_check(
    code="TE103",
    name="torch-family-mismatch",
    title="Packages built on torch match the installed torch",
    area="Python & packages",
    needs=("packages.distributions",),
    examples=[
        Example("ok", {"packages": {"distributions": [
            torch_dist("torch", "2.13.0"),
            {**torch_dist("torchvision", "0.28.0"), "requires": ["numpy", "torch==2.13.0", "pillow>=5.3.0,!=8.3.*"]},
            {**torch_dist("torchaudio", "2.11.0"), "requires": ["torch>=2.11"]}]}}),
        Example("error", {"packages": {"distributions": [
            torch_dist("torch", "2.6.0+cu124"),
            {**torch_dist("torchvision", "0.20.1+cu124"), "requires": ["numpy", "torch==2.5.1", "pillow!=8.3.*,>=5.3.0"]}]}},
            "torch upgraded alone", contains="torchvision==0.21.*"),
        Example("ok", {"packages": {"distributions": [
            torch_dist("torch", "2.9.1+cu128"),
            {**torch_dist("torchvision", "0.24.1+cu128"), "requires": ["torch==2.9.1"]}]}},
            "local tags ignored in the pin"),
        Example("ok", {"packages": {"distributions": [
            torch_dist("torch", "2.15.0"), {**torch_dist("torchvision", "0.29.2"), "requires": ["torch>=2.14.0"]},
            {**torch_dist("torchaudio", "2.11.0"), "requires": ["torch>=2.11.0"]}]}},
            "torchvision 0.29.1+ and torchaudio 2.11 accept later torch"),
        Example("error", {"packages": {"distributions": [
            torch_dist("torch", "2.10.0"), {**torch_dist("torchaudio", "2.11.0"), "requires": []}]}},
            "stable-ABI torchaudio still needs torch 2.11+ (rule, no metadata)", contains="torchaudio 2.11+"),
        Example("warning", {"packages": {"distributions": [
            torch_dist("torch", "2.13.0+cpu"), {**torch_dist("torchvision", "0.28.0+cu130"), "requires": ["torch==2.13.0"]}]}},
            "CPU torch with a CUDA torchvision", contains="--index-url https://download.pytorch.org/whl/cpu"),
        Example("error", {"packages": {"distributions": [
            torch_dist("torch", "2.5.1"), {**torch_dist("xformers", "0.0.28.post1"), "requires": ["numpy", "torch==2.4.1"]}]}},
            "xformers built for another torch", contains="xformers"),
        Example("warning", {"packages": {"distributions": [
            {**torch_dist("torch", "2.5.1"), "requires": ["triton==3.1.0; platform_system == \"Linux\""]},
            torch_dist("triton", "3.2.0")]}}, "torch's own triton pin", contains="triton==3.1.0"),
        Example("skip", {"packages": {"distributions": [torch_dist("torch", "2.13.0")]}}),
    ],
)
def torch_family_mismatch(facts):
    """
    ## What it checks
    Each installed package that requires torch (torchvision, torchaudio, torchtext, xformers,
    flash-attn, ...) against the torch that runs: the `Requires-Dist: torch...` of its metadata,
    with local tags such as `+cpu` / `+cu128` left out of the version comparison. Without a
    requirement in the metadata (conda, source builds) torchvision and torchaudio follow the release
    pairing: torchvision 0.(n+15) goes with torch 2.n, torchaudio 2.n with torch 2.n, and the
    stable-ABI torchaudio 2.11 works with every torch from 2.11 on. It also compares the CUDA
    flavour of the wheels (`+cpu` vs `+cu128`, CUDA 11 vs 12) and torch's own triton pin.

    ## Why it matters
    torchvision and torchaudio up to 0.29.0 / 2.10 are built against one exact torch. Upgrading
    torch alone leaves them loading C++ code built for another torch: `RuntimeError: operator
    torchvision::nms does not exist`, `undefined symbol` when importing `torchvision._C`, or a
    "compiled with different CUDA major versions" error (pytorch/vision#8985).

    ## How to fix
    Install the matching release together with torch in one pip command, so the resolver keeps
    them paired, from the same index URL as torch.
    """
    found = torch_version(facts)
    if found is None:
        return skip("torch is not installed")
    torch_text, torch_source = found
    torch_meta = next((d for d in fact(facts, "packages.distributions", []) if d.name == "torch"), None)
    seen: set[str] = set()
    problems: list[tuple[Status, str, str | None, tuple[str, ...]]] = []
    checked: list[str] = []
    for d in fact(facts, "packages.distributions", []):
        if d.name == "torch" or d.name in seen:
            continue
        seen.add(d.name)
        specs = _torch_specs(d.requires)
        rule = None if specs else _rule(d.name, d.version)
        if not specs and rule is None:
            continue
        checked.append(f"{d.name} {d.version}")
        severity = Status.ERROR if d.name in COMPILED else Status.WARNING
        bad = [s for s in specs if not _satisfies(s, torch_text)]
        if bad:
            problems.append((severity, f"{d.name} {d.version} requires torch{bad[0]}", d.name, ()))
        elif rule is not None and not _satisfies(rule[1], torch_text):
            problems.append((Status.WARNING if d.name not in COMPILED else Status.ERROR,
                             f"{d.name} {d.version} does not go with torch {torch_text} ({rule[0]})", d.name, ()))
        elif _flavour_clash(torch_text, d.version):
            problems.append((Status.WARNING,
                             f"{d.name} {d.version} is a {_flavour_label(d.version)} build while torch {torch_text} is a "
                             f"{_flavour_label(torch_text)} build", d.name, ()))
    if torch_meta is not None:
        for name in ("triton", "pytorch-triton"):
            other = next((d for d in fact(facts, "packages.distributions", []) if d.name == name), None)
            for spec in _torch_specs(torch_meta.requires, name) if other else []:
                checked.append(f"{other.name} {other.version}")
                if not _without_local(spec).contains(base_version(other.version) or other.version, prereleases=True):
                    problems.append((Status.WARNING, f"torch {torch_text} requires {name}{spec} but {name} "
                                     f"{other.version} is installed (torch.compile generates code for its own "
                                     "triton)", None, (f"{name}{spec}",)))
    if not checked:
        return skip("no installed package depends on torch")
    evidence = {"torch": f"{torch_text} ({torch_source})", "checked": checked}
    if not problems:
        return ok(f"{', '.join(checked)} match torch {torch_text}")

    pins: list[str] = []
    for _, _, name, extra in problems:
        pins.extend(extra)
        if name:
            pins.append(_matching(name, torch_text) or name)
    command = (f"{pip(facts)} install torch=={base_version(torch_text)} " + " ".join(f'"{p}"' for p in dict.fromkeys(pins))
               + index_url(torch_text))
    message = "; ".join(text for _, text, _, _ in problems)
    if f"torch {torch_text}" not in message:
        message += f" (torch {torch_text} is installed)"
    fix = Fix("Install the matching releases together with torch, from the same index as torch", (command,))
    names = {n for _, _, n, _ in problems}
    related = tuple(kb for kb, hit in (
        ("torchvision-torch-mismatch", bool(names & {"torchvision", "torchaudio"})),
        ("extension-abi-mismatch", bool(names - {"torchvision", "torchaudio", None})),
        ("compile-inductor-failure", None in names)) if hit)
    worst = error if any(s is Status.ERROR for s, *_ in problems) else warning
    return worst(message, fix=fix, evidence=evidence, related=related)
