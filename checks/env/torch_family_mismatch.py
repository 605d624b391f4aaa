from __future__ import annotations

from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import Version

import os
import re

from torchdoctor.facts.model import known

from torchdoctor.data import load, tables
from torchdoctor.model import Fix, Status, error, ok, skip, warning
from torchdoctor.registry import Example, env_check

from ._cuda import torch_said, unknown_need
from ._install import (SITE, base_version, fact, first, flavour, index_url, major_minor, no_torch, pip, torch_dist,
                       torch_version, version)

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
    """'==2.5.1+cu124' -> '==2.5.1': the CUDA flavour is compared on its own (see _build_clash)."""
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
        # torchaudio's README table (pytorch/audio#1084): 0.4.0 with torch 1.4.0 ... 0.7.x with 1.7.x;
        # 0.3 came between torch 1.2 and 1.4 (no torchaudio release for 1.3 of its own).
        if v.major == 0 and v.minor >= 4:
            return f"torchaudio 0.{v.minor} pairs with torch 1.{v.minor}", SpecifierSet(f"==1.{v.minor}.*")
        if v.major == 0 and v.minor == 3:
            return "torchaudio 0.3 was built for torch 1.2/1.3", SpecifierSet(">=1.2,<1.4")
    return None


# A CUDA runtime named in DT_NEEDED: "libcudart.so.13", or the hashed copy an auditwheel'd wheel bundles.
_CUDART = re.compile(r"^libcudart(?:-[0-9a-f]{8})?\.so\.(\d+)")
_CUDA_TORCH_LIBS = ("libc10_cuda.so", "libtorch_cuda.so")
_ROCM_LIBS = ("libc10_hip.so", "libtorch_hip.so", "libamdhip64.so")


def _build_of(tag: str | None) -> str | None:
    """A wheel tag as a build family: 'cpu', 'cuda12', 'rocm', 'xpu'; None when it says nothing."""
    if not tag:
        return None
    if tag.startswith("cu"):
        return f"cuda{tag[2:-1]}"
    return "rocm" if tag.startswith("rocm") else tag


def _torch_build(facts, torch_text: str) -> tuple[str | None, str]:
    """torch's build family and where it was read: what the import said, else version.py, else the tag."""
    if fact(facts, "torch.import_status") == "ok":
        cuda, hip = fact(facts, "torch.cuda"), fact(facts, "torch.hip")
        if cuda is not None or hip is not None or known(facts.get("torch.cuda")):
            if hip:
                return "rocm", "torch.version.hip"
            return (f"cuda{str(cuda).split('.')[0]}", "torch.version.cuda") if cuda else ("cpu", "torch.version.cuda")
    vf = fact(facts, "packages.torch_version_file")
    if vf is not None and vf.version:
        if vf.hip:
            return "rocm", vf.path
        if vf.cuda:
            return f"cuda{vf.cuda.split('.')[0]}", vf.path
        if flavour(vf.version) == "cpu" or vf.version == torch_text and vf.cuda is None and "+" in vf.version:
            return _build_of(flavour(vf.version)), vf.path
    dist = first(facts, "torch")
    conda = _conda_build(dist) if dist is not None and not flavour(torch_text) else (None, "")
    return conda if conda[0] else (_build_of(flavour(torch_text)), "the version tag")


def _conda_build(d) -> tuple[str | None, str]:
    """The build family a conda package's build string names ("py39_cpu" -> cpu), and where it was read."""
    if d.installer != "conda" or not d.build:
        return None, ""
    return _build_of(tables.conda_build_flavour(d.build)), f"conda build {d.build}"


def _family_build(build) -> tuple[str | None, str]:
    """A torchvision/torchaudio build family from the libraries its extension links, else version.py."""
    if build.extension:
        names = [os.path.basename(n) for n in build.needed]
        for n in names:
            m = _CUDART.match(n)
            if m:
                return f"cuda{m.group(1)}", f"{os.path.basename(build.extension)} links {n}"
        cuda_lib = next((n for n in names if n.startswith(_CUDA_TORCH_LIBS)), None)
        if cuda_lib:
            return (f"cuda{build.cuda.split('.')[0]}" if build.cuda else "cuda"), f"{os.path.basename(build.extension)} links {cuda_lib}"
        rocm_lib = next((n for n in names if n.startswith(_ROCM_LIBS)), None)
        if rocm_lib:
            return "rocm", f"{os.path.basename(build.extension)} links {rocm_lib}"
        if any(n.startswith(("libc10.so", "libtorch")) for n in names):
            return "cpu", f"{os.path.basename(build.extension)} links no CUDA library"
    if build.cuda:
        return f"cuda{build.cuda.split('.')[0]}", f"version.py: cuda = {build.cuda!r}"
    tag = flavour(build.version)
    if tag:
        return _build_of(tag), f"version.py: __version__ = {build.version!r}"
    return None, ""


def _pypi_build(facts, d, torch_text: str) -> tuple[str | None, str]:
    """An untagged torchvision/torchaudio release beside a tagged torch on Linux came from PyPI, whose
    Linux wheels are the release's default CUDA build (PyTorch's own indexes tag theirs +cpu / +cuXYZ; conda's are
    not read here): beside a +cpu torch, or a +cuXYZ torch of another CUDA (Colab's torch 1.10.0+cu111 with
    `pip install torchaudio` giving PyPI's cu102 0.10.0), the two builds differ. A tagged torch exists only for
    Linux and Windows, so a POSIX install path says Linux."""
    if d.name not in COMPILED or flavour(d.version) or not tables.is_release(d.version) or d.installer == "conda":
        return None, ""
    torch_tag = flavour(torch_text)
    if not torch_tag:
        return None, ""
    linux = fact(facts, "python.system") == "Linux" or (not known(facts.get("python.system"))
                                                        and str(d.location).startswith("/"))
    tag = tables.pypi_default_cuda(torch_text)
    if not linux or not tag or not tag.startswith("cu") or tag == torch_tag:
        return None, ""
    return _build_of(tag), (f"no local tag: PyPI's Linux wheel of {d.name} {d.version}, which plain `pip install "
                            f"{d.name}` gets, is the CUDA {tables.tag_cuda(tag)} build")


def _nightly_dates(package_version: str, torch_text: str) -> tuple[str, str] | None:
    """(the package's build date, torch's) when both are nightlies ("0.16.0.dev20230731+cu118")."""
    dates = [re.search(r"\.dev(\d{8})\b", text) for text in (package_version, torch_text)]
    return (dates[0].group(1), dates[1].group(1)) if all(dates) else None


# PyG's wheel index tags each compiled wheel with the torch minor and build it was made for:
# torch_scatter-2.1.2+pt20cu118 (torch 2.0, CUDA 11.8), pyg_lib-0.4.0+pt23cpu.
_PYG_TAG = re.compile(r"pt(\d)(\d+)(cu\d+|cpu)")


def _pyg_built_for(package_version: str) -> tuple[str, str] | None:
    """("2.0", "cu118") from "2.1.2+pt20cu118"; None for any other version."""
    m = _PYG_TAG.fullmatch(tables.local_tag(package_version) or "")
    return (f"{m.group(1)}.{m.group(2)}", m.group(3)) if m else None


def _release_binary_beside_another_torch(d, rule: SpecifierSet, torch_text: str) -> bool:
    """An official torchvision/torchaudio wheel (a release, not conda's) from the years their binaries
    pinned one exact torch release, beside a torch that is no release: a source build
    (2.1.0a0+git...), NVIDIA's (1.12.0a0+2c916ef.nv22.3) or a nightly. A binary built from source
    here would carry its own a0+git version."""
    if d.name not in ("torchvision", "torchaudio") or d.installer == "conda" or not tables.is_release(d.version):
        return False
    if not all(s.operator == "==" for s in rule):
        return False  # torchvision 0.2 (pure Python), torchaudio 0.3, and the stable-ABI releases
    return version(torch_text) is not None and not tables.is_release(torch_text)


def _minor(torch_text: str) -> str:
    mm = tables.major_minor(torch_text)
    return f"{mm[0]}.{mm[1]}" if mm is not None else torch_text


def _not_release(torch_text: str) -> str:
    v = version(torch_text)
    if v is not None and v.is_devrelease:
        return "a nightly build"
    if v is not None and v.local and ".nv" in v.local:
        return "NVIDIA's build (Jetson or NGC container)"
    return "a source build, not that release"


def _shorten(text: str, limit: int = 120) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rsplit(" ", 1)[0] + "…"


def _build_clash(torch_build: str | None, other: str | None) -> Status | None:
    """ERROR when the package cannot load next to this torch; WARNING when it loads but its GPU
    kernels cannot run (a CPU torchvision beside a CUDA torch)."""
    if not torch_build or not other or torch_build == other:
        return None
    if other == "cuda" and torch_build.startswith("cuda"):
        return None  # a CUDA build whose major the files do not say
    if other == "cpu":
        return Status.WARNING
    return Status.ERROR


def _build_label(build: str | None) -> str:
    if not build:
        return "unknown"
    if build.startswith("cuda"):
        return f"CUDA {build[4:]}" if build[4:] else "CUDA"
    return {"rocm": "ROCm"}.get(build, build.upper())


@env_check(
    code="TE103",
    name="torch-family-mismatch",
    title="Packages built on torch match the installed torch",
    area="Python & packages",
    examples=[
        Example("error", {"torch": {"warnings": [
            "RuntimeError: Detected that PyTorch and torchvision were compiled with different CUDA versions. "
            "PyTorch has CUDA Version=11.7 and torchvision has CUDA Version=11.8."]}},
            "only torchvision's own error was pasted", contains="CUDA 11.8"),
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
        Example("error", {"packages": {"distributions": [
            torch_dist("torch", "2.7.0+cpu"), {**torch_dist("torchvision", "0.22.0"), "requires": ["torch==2.7.0"]}]},
            "python": {"system": "Linux"}},
            "a CPU torch from the CPU index, torchvision from PyPI (a CUDA 12.6 build on Linux): "
            "'operator torchvision::nms does not exist'", contains="PyPI's Linux wheel of torchvision 0.22.0"),
        Example("ok", {"packages": {"distributions": [
            torch_dist("torch", "2.7.0+cpu"), {**torch_dist("torchvision", "0.22.0"), "requires": ["torch==2.7.0"]}]},
            "python": {"system": "Windows"}},
            "the same pair on Windows, where PyPI's torchvision is a CPU build"),
        Example("error", {"packages": {"distributions": [
            torch_dist("torch", "2.13.0+cpu"), {**torch_dist("torchvision", "0.28.0+cu130"), "requires": ["torch==2.13.0"]}]}},
            "CPU torch with a CUDA torchvision", contains="--index-url https://download.pytorch.org/whl/cpu"),
        Example("error", {"packages": {
            "distributions": [torch_dist("torch", "2.13.0+cpu"),
                              {**torch_dist("torchvision", "0.28.0"), "requires": ["torch==2.13.0"]}],
            "family_builds": [{"name": "torchvision", "path": f"{SITE}/torchvision", "version": "0.28.0+cu130",
                               "extension": f"{SITE}/torchvision/_C.so",
                               "needed": ["libc10.so", "libc10_cuda.so", "libtorch_cpu.so", "libcudart.so.13"]}]}},
            "PyPI's torchvision 0.28.0 (a cu130 build, no tag in its metadata) beside a CPU torch",
            contains="links libcudart.so.13"),
        Example("error", {"packages": {"distributions": [
            torch_dist("torch", "2.13.0+cpu"), {**torch_dist("torchvision", "0.28.0"), "requires": ["torch==2.13.0"]}]},
            "torch": {"import_status": "ok", "version": "2.13.0+cpu", "cuda": None, "hip": None, "family_imports": [
                {"name": "torchvision", "ok": False, "error_type": "RuntimeError",
                 "error_message": "operator torchvision::nms does not exist"}]}},
            "the child could not import torchvision: that is the answer", contains="torchvision::nms does not exist"),
        Example("ok", {"packages": {"distributions": [
            torch_dist("torch", "2.13.0+cpu"), {**torch_dist("torchvision", "0.28.0+cpu"), "requires": ["torch==2.13.0"]}]},
            "torch": {"import_status": "ok", "version": "2.13.0+cpu", "cuda": None, "hip": None, "family_imports": [
                {"name": "torchvision", "ok": True, "version": "0.28.0+cpu"}]}},
            "the matching CPU pair imports", contains="import torchvision works"),
        Example("warning", {"packages": {
            "distributions": [torch_dist("torch", "2.13.0"), {**torch_dist("torchvision", "0.28.0"), "requires": ["torch==2.13.0"]}],
            "torch_version_file": {"path": f"{SITE}/torch/version.py", "version": "2.13.0+cu130", "cuda": "13.0"},
            "family_builds": [{"name": "torchvision", "path": f"{SITE}/torchvision", "version": "0.28.0+cpu",
                               "extension": f"{SITE}/torchvision/_C.so", "needed": ["libc10.so", "libtorch_cpu.so"]}]}},
            "a CPU torchvision beside a CUDA torch loads, but its GPU operators cannot run", contains="GPU operators"),
        Example("error", {"packages": {"distributions": [
            torch_dist("torch", "2.5.1"), {**torch_dist("xformers", "0.0.28.post1"), "requires": ["numpy", "torch==2.4.1"]}]}},
            "xformers built for another torch", contains="xformers"),
        Example("warning", {"packages": {"distributions": [
            {**torch_dist("torch", "2.5.1"), "requires": ["triton==3.1.0; platform_system == \"Linux\""]},
            torch_dist("triton", "3.2.0")]}}, "torch's own triton pin", contains="triton==3.1.0"),
        Example("warning", {"packages": {"distributions": [
            torch_dist("torch", "1.12.0a0+2c916ef.nv22.3"), {**torch_dist("torchaudio", "0.12.0"), "requires": []}]}},
            "PyPI's torchaudio beside NVIDIA's Jetson torch (pytorch/audio#2731); a hedged warning, since Jetson's "
            "from-source builds may carry the release version", contains="NVIDIA's build"),
        Example("ok", {"packages": {"distributions": [
            torch_dist("torch", "1.12.0a0+2c916ef.nv22.3"), {**torch_dist("torchaudio", "0.12.0a0+2c916ef"), "requires": []}]}},
            "torchaudio built from source beside the same torch"),
        Example("error", {"packages": {"distributions": [
            torch_dist("torch", "2.1.0a0+git7bcf7da"), {**torch_dist("torchvision", "0.16.0"), "requires": []}]}},
            "PyPI's torchvision beside a torch built from source", contains="a source build"),
        Example("ok", {"packages": {"distributions": [
            torch_dist("torch", "1.8.0.dev20201023"), {**torch_dist("torchvision", "0.8.0.dev20201023"), "requires": []}]}},
            "nightlies of one day pair, whatever their version numbers say"),
        Example("error", {"packages": {"distributions": [
            torch_dist("torch", "2.1.0.dev20230801+cu118"), {**torch_dist("torchvision", "0.16.0.dev20230715+cu118"),
                                                               "requires": []}]}},
            "nightlies of different days", contains="nightly of 20230715"),
        Example("error", {"packages": {"distributions": [
            torch_dist("torch", "2.1.1+cu118"), {**torch_dist("torch-scatter", "2.1.2+pt20cu118"), "requires": []}]}},
            "PyG's wheel for torch 2.0 beside torch 2.1: its local tag says what it was built for",
            contains="data.pyg.org/whl/torch-2.1.0+cu118.html"),
        Example("skip", {"packages": {"distributions": [torch_dist("torch", "2.13.0")]}}),
    ],
)
def torch_family_mismatch(facts):
    """
    ## What it checks
    Each installed package that requires torch (torchvision, torchaudio, torchtext, xformers,
    flash-attn, ...) against the torch that runs: the `Requires-Dist: torch...` of its metadata,
    with local tags such as `+cpu` / `+cu128` left out of the version comparison.
    When torchdoctor imported torch in a child process, it imports torchvision and torchaudio
    there too: a failing import is the answer, with its message as evidence. Without a
    requirement in the metadata (conda, source builds) torchvision and torchaudio follow the release
    pairing: torchvision 0.(n+15) goes with torch 2.n, torchaudio 2.n with torch 2.n, and the
    stable-ABI torchaudio 2.11 works with every torch from 2.11 on; a pasted list's xformers, torchtext or
    torchdata release is held to the torch pin its PyPI wheels declare (doctor/data/companion_pins.json,
    xformers 0.0.27.post2 -> torch==2.4.0), unless conda installed it; PyG's wheels (torch-scatter,
    torch-sparse, pyg-lib) carry the torch minor and build in their tag (`2.1.2+pt20cu118`). It also compares the build
    (CPU, CUDA 12, CUDA 13, ROCm) of torchvision/torchaudio, read from the libraries their compiled
    extension links (`libcudart.so.13`, `libc10_cuda.so`) and their version.py, with torch's:
    PyPI serves `torchvision 0.28.0` as a CUDA 13 build whose metadata says no `+cu130`. And it
    checks torch's own triton pin. In a pasted report, a compiled extension (mmcv-full, detectron2,
    torch-scatter) refused by the loader for a symbol of torch's own C++, or pip-installed from its
    project's wheel index for another torch minor (OpenMMLab's `.../cu101/torch1.6/index.html`, PyG's
    `torch-1.9.0+cu111.html`), is evidence too.

    ## Why it matters
    torchvision and torchaudio up to 0.29.0 / 2.10 are built against one exact torch. Upgrading
    torch alone leaves them loading C++ code built for another torch: `RuntimeError: operator
    torchvision::nms does not exist`, `undefined symbol` when importing `torchvision._C`, or a
    "compiled with different CUDA major versions" error (pytorch/vision#8985).

    ## How to fix
    Install the matching release together with torch in one pip command, so the resolver keeps
    them paired, from the same index URL as torch.
    """
    said = (torch_said(facts, "family") or torch_said(facts, "family-no-cuda") or torch_said(facts, "extension-symbol")
            or sorted(torch_said(facts, "per-torch-library"), key=lambda s: s.retold)
            or [s for s in torch_said(facts, "built-for") if _record_differs(facts, s)])
    unloaded = torch_said(facts, "family-ops")
    indexed = _indexed_for_another_torch(facts)
    gap = unknown_need(facts, "packages.distributions")
    if gap is not None:
        return (_from_error(facts, said[0]) if said else _ops_unloaded(facts, unloaded[0]) if unloaded
                else _from_index(facts, indexed[0]) if indexed else gap)
    result = _judge(facts)
    if indexed and not said and result.status is not Status.ERROR:
        return _from_index(facts, indexed[0])
    # torchvision (or an extension) refused by the loader is the ground truth, whatever the versions seemed to say.
    if said and result.status is not Status.ERROR:
        return _from_error(facts, said[0])
    return _ops_unloaded(facts, unloaded[0]) if unloaded and result.status is Status.OK else result


def _ops_unloaded(facts, said):
    """torchvision's "Couldn't load custom C++ ops": a warning, since it names two causes and not which."""
    torch_text, command = _paired_reinstall(facts, said.package)
    what = f"torch {torch_text}" if torch_text else "the torch it runs with"
    return warning(f"torchvision's compiled operators did not load beside {what} (torchvision's own error): its "
                   "binary was built for another torch release or CUDA variant, or a source build of it failed",
                   fix=Fix("Reinstall torchvision together with torch in one pip command, from the same index, so the "
                           "resolver pairs them (a source build: rebuild it against this torch and read its build log)",
                           (command,)),
                   evidence={"torchvision's error": said.text}, related=("torchvision-torch-mismatch",))


def _from_error(facts, said):
    """torchvision's (or torchaudio's) own refusal: "compiled with different CUDA versions", or its
    compiled library refused by the loader (undefined symbol, torchvision::nms missing)."""
    name = said.package
    if said.cuda_pair is None:
        return _from_loader(facts, said)
    torch_cuda, other_cuda = said.cuda_pair
    index = f"https://download.pytorch.org/whl/cu{torch_cuda.replace('.', '')}"
    found = torch_version(facts)
    pinned = base_version(found[0]) if found else "<torch-version>"
    if name in ("torchvision", "torchaudio"):
        fix = Fix(f"Reinstall {name} from torch's index (CUDA {torch_cuda}), in the same pip command as torch so the "
                  "pair matches", (f"{pip(facts)} install --force-reinstall torch=={pinned} {name} --index-url {index}",))
        related = ("torchvision-torch-mismatch",)
    else:
        # PyG's extensions come from PyG's own wheel pages, one per torch release and CUDA build; other packages
        # from their own index or a source build against this torch.
        dist = name.replace("_", "-")
        tag = f"cu{torch_cuda.replace('.', '')}"
        if dist in ("torch-scatter", "torch-sparse", "torch-cluster", "torch-spline-conv", "pyg-lib"):
            fix = Fix(f"Reinstall {name} built for this torch and CUDA {torch_cuda} from PyG's wheel page for it",
                      (f"{pip(facts)} install --force-reinstall --no-deps {dist} -f "
                       f"https://data.pyg.org/whl/torch-{pinned}+{tag}.html",))
        else:
            fix = Fix(f"Reinstall {name} built for this torch and CUDA {torch_cuda} (its wheel for this build, or a "
                      "source build)", (f"{pip(facts)} install --force-reinstall --no-deps --no-binary {dist} {dist}   "
                                        f"# built against this torch (CUDA {torch_cuda})",))
        related = ("extension-abi-mismatch",)
    return error(f"{name} was built for CUDA {other_cuda} but torch for CUDA {torch_cuda} ({name} says so and refuses "
                 "to load its operators)", fix=fix, evidence={f"{name}'s error": said.text}, related=related)


def _from_built_for(facts, said):
    """xFormers naming the torch it was built for and the torch it found."""
    built, have = said.built_for
    if built == have:  # only the Python differs
        return error(f"xformers was built for another Python than this one, so its C++/CUDA extensions do not load "
                     "(memory-efficient attention and the other fused ops are unavailable)",
                     fix=Fix("Reinstall xformers in this environment so pip picks the wheel for this Python and torch",
                             (f"{pip(facts)} install --force-reinstall --no-deps xformers{index_url(have)}",)),
                     evidence={"xformers' warning": said.text}, related=("torchvision-torch-mismatch",))
    same_release = base_version(built) == base_version(have)
    commands = [f"{pip(facts)} install --force-reinstall torch=={base_version(built)}{index_url(built)}"]
    if not same_release:
        commands.append(f"{pip(facts)} install --force-reinstall --no-deps xformers  # a release built for torch {have}")
    what = ("the same release in another build: CPU or another CUDA" if same_release
            else "another torch release")
    return error(f"xformers was built for torch {built} and this is torch {have} ({what}), so its C++/CUDA "
                 "extensions do not load (memory-efficient attention and the other fused ops are unavailable)",
                 fix=Fix(f"Install the torch build xformers was made for ({built})" + (
                     "" if same_release else f", or an xformers release built for torch {have}"), tuple(commands)),
                 evidence={"xformers' warning": said.text}, related=("torchvision-torch-mismatch",))


def _stated_torch(facts) -> str | None:
    """The torch that runs, else the one a pasted text states (a sentence, a bug template's field) without an
    import or a package list to confirm it."""
    found = torch_version(facts)
    stated = fact(facts, "torch.version", None)
    return found[0] if found else stated if isinstance(stated, str) else None


def _paired_reinstall(facts, name: str) -> tuple[str | None, str]:
    """(torch's version or None, the pip command reinstalling `name` with the release paired to that torch)."""
    torch_text = _stated_torch(facts)
    paired = (tables.family_requirement(name, torch_text) if torch_text else None) or name
    torch_pin = f"torch=={base_version(torch_text)}" if torch_text else "torch==<torch-version>"
    pin = f'{torch_pin} "{paired}"' if any(c in paired for c in "<>=*") else f"{torch_pin} {paired}"
    index = index_url(torch_text) if torch_text else ""
    return torch_text, f"{pip(facts)} install --force-reinstall {pin}{index}"


def _from_loader(facts, said):
    name = said.package
    if said.kind == "built-for":
        return _built_for_another(facts, said)
    if said.built_for is not None:
        return _from_built_for(facts, said)
    if said.kind == "extension-symbol":
        return _extension_refused(facts, said)
    if said.kind == "per-torch-library":
        return _no_library_for_this_torch(facts, said)
    if said.kind == "family-no-cuda":
        return _no_cuda_kernels(facts, said)
    torch_text, command = _paired_reinstall(facts, name)
    what = f"torch {torch_text}" if torch_text else "the torch it loads"
    return error(f"{name}'s compiled library does not fit {what}: it was built for another torch release or CUDA "
                 f"variant, so its operators do not load",
                 fix=Fix(f"Reinstall {name} together with torch in one pip command, from the same index, so the "
                         "resolver pairs them", (command,)),
                 evidence={f"{name}'s error": said.text}, related=("torchvision-torch-mismatch",))


def _no_cuda_kernels(facts, said):
    """The dispatcher found no CUDA kernel for a torchvision operator: the torchvision loaded is a CPU build (pip's
    default on Windows, conda's cpuonly variant, a requirements file pinning it without torch's index) beside a CUDA
    torch, so its detection and ROI operators run on CPU tensors only."""
    _, command = _paired_reinstall(facts, "torchvision")
    if "--index-url" not in command:  # torch's tag unknown: its CUDA, where known, names the index
        cuda = fact(facts, "torch.cuda", None)
        command += f" --index-url {tables.INDEX_URL}/" + (f"cu{cuda.replace('.', '')}" if isinstance(cuda, str) else "<cuda-tag>")
    backends = said.text.rsplit("[", 1)
    shown = said.text.split(". ", 1)[0] + (f" ... available for: [{backends[1][:60]}... (no CUDA)" if len(backends) > 1 else "")
    return error("torchvision has no CUDA kernels for its operators here: it is a CPU build beside a CUDA torch (or a "
                 "build for another torch), so nms, roi_align and the other torchvision.ops fail on GPU tensors",
                 fix=Fix("Reinstall torchvision from the same CUDA index as torch, in one pip command, so both are the "
                         "same CUDA build", (command,)),
                 evidence={"torchvision's error": shown}, related=("torchvision-torch-mismatch",))


# Each project's wheel index per torch minor and CUDA tag, as its install instructions spell it.
_WHEEL_INDEXES = (("download.openmmlab.com", "https://download.openmmlab.com/mmcv/dist/{tag}/torch{minor}/index.html"),
                  ("/detectron2/wheels/", "https://dl.fbaipublicfiles.com/detectron2/wheels/{tag}/torch{minor}/index.html"),
                  ("/whl/torch-", "https://data.pyg.org/whl/torch-{minor}.0+{tag}.html"))


def _torch_abi(facts) -> tuple[bool | None, str, bool]:
    """Whether this torch uses the C++11 ABI, how that is known, and whether the build itself said so: torch's own
    answer or a conda build string (certain), else PyTorch's wheel of that release (a version alone: likely);
    None where neither says."""
    said = fact(facts, "torch.cxx11_abi")
    if isinstance(said, bool):
        return said, "torch._C._GLIBCXX_USE_CXX11_ABI says so", True
    d = first(facts, "torch") or first(facts, "pytorch")
    if d is not None and d.installer == "conda" and d.build:
        forge = tables.conda_build_cxx11_abi(d.build)
        return forge, (f"conda-forge's build {d.build}, as conda-forge's builds do" if forge else
                       f"the pytorch channel's conda build {d.build}, as that channel's builds do"), True
    torch_text = _stated_torch(facts)
    abi = tables.wheel_cxx11_abi(torch_text) if torch_text else None
    if abi is None:
        return None, "", False
    return abi, f"as PyTorch's Linux wheels {'from 2.7 on' if abi else 'up to 2.6'} are", first(facts, "torch") is not None


def _abi_words(cxx11: bool) -> tuple[str, str]:
    """An ABI as the messages name it, and as wheel names tag it."""
    return ("C++11", "cxx11abiTRUE") if cxx11 else ("pre-C++11", "cxx11abiFALSE")


def _indexed_for_another_torch(facts):
    """The pip installs from a project's wheel index built for another torch minor than the one here, and the
    release wheels named for this torch minor but built with the other C++ ABI (flash-attn's cxx11abiTRUE/FALSE)."""
    torch_text = _stated_torch(facts)
    minor = major_minor(torch_text) if torch_text else None
    if not minor:
        return []
    said = torch_said(facts, "index-built-for")
    other = [s for s in said if major_minor(s.built_for[0]) != minor]
    abi = _torch_abi(facts)[0]
    return other or [s for s in said if abi is not None and s.cxx11_abi is not None and s.cxx11_abi != abi
                     and "x86_64" in s.text]


def _from_index(facts, said):
    """pip installing mmcv-full / detectron2 / PyG's compiled packages from their index for another torch."""
    torch_text = _stated_torch(facts)
    built_minor, built_cuda = said.built_for
    if major_minor(built_minor) == major_minor(torch_text):
        return _wheel_of_other_abi(facts, said, torch_text)
    cuda = fact(facts, "torch.cuda", "unknown")
    tag = "<cuda-tag>" if cuda == "unknown" else "cpu" if cuda is None else f"cu{''.join(cuda.split('.')[:2])}"
    minor_text = _minor(torch_text)
    fixed = next((template.format(tag=tag, minor=minor_text) for host, template in _WHEEL_INDEXES if host in said.text), None)
    wheel = said.text.endswith(".whl")  # a release wheel named by its file (flash-attn's, mamba-ssm's), not an index
    where = "a wheel built" if wheel else "its project's wheel index"
    # A wheel named in the text may have been installed or only tried (pip refusing it for another Python): either way
    # it is built for the other torch.
    head = (f"the {said.package} wheel in the text is built for torch {built_minor} ({built_cuda})" if wheel else
            f"{said.package} was installed from {where} for torch {built_minor} ({built_cuda})")
    return error(f"{head}, and this torch is {torch_text}: {'that wheel is' if wheel else 'those wheels are'} compiled "
                 f"against torch {built_minor}, so its compiled ops do not load here ('undefined symbol' at import)",
                 fix=Fix(f"Install the {said.package} wheel built for torch {minor_text} and this torch's CUDA from the "
                         "project's releases, where it publishes that pair (else build it from source in this environment: "
                         f"{pip(facts)} install --no-build-isolation {said.package})" if wheel else
                         f"Install {said.package} from the index for torch {minor_text} and this torch's CUDA, where the "
                         "project publishes that pair (else build it from source in this environment)",
                         (f"{pip(facts)} install --force-reinstall --no-cache-dir {said.package} -f {fixed}",) if fixed else ()),
                 evidence={"wheel" if wheel else "install command": said.text}, related=("torchvision-torch-mismatch",))


def _wheel_of_other_abi(facts, said, torch_text):
    """A release wheel for this torch minor built with the other C++ ABI: its compiled ops ask torch for symbols
    taking the other std::string, which this torch does not export."""
    abi, how, certain = _torch_abi(facts)
    (built_name, built_tag), (torch_name, torch_tag) = _abi_words(said.cxx11_abi), _abi_words(abi)
    # The wheel as the text names it: a release URL where it gives one, else the file name.
    wheel = re.search(r"[^\s`'\"]+cxx11abi(?:TRUE|FALSE)[^\s`'\"]*\.whl", said.text)
    other = (wheel.group(0) if wheel else said.text).replace(built_tag, torch_tag)
    message = (f"the {said.package} wheel in the text is built for torch {said.built_for[0]} with the {built_name} ABI "
               f"({built_tag}), and torch {torch_text} uses the {torch_name} ABI ({how}): its compiled ops ask torch for "
               "symbols taking the other std::string, so they do not load ('undefined symbol: _ZN3c105Error...')")
    fix = Fix(f"Install the {said.package} wheel of the same release built with this torch's ABI ({torch_tag}); "
              "`python -c \"import torch; print(torch._C._GLIBCXX_USE_CXX11_ABI)\"` says which one torch uses"
              + ("" if "://" in other else f"; it is {other} on the project's release page"),
              (f"{pip(facts)} install --force-reinstall --no-deps {other}",) if "://" in other else ())
    evidence = {"wheel": said.text}
    if certain:
        return error(message, fix=fix, evidence=evidence, related=("extension-abi-mismatch",))
    # Only a version was told: PyTorch's own wheel is the likeliest build, conda-forge's would have the C++11 ABI.
    return warning(message + "; if this torch is conda-forge's or a source build, check its ABI first",
                   fix=fix, evidence=evidence, related=("extension-abi-mismatch",))


# Compiled modules whose distribution has another name ("import flash_attn_2_cuda" is pip's flash-attn).
_DISTRIBUTION_OF_MODULE = {"flash_attn_2_cuda": "flash-attn", "flash_attn_cuda": "flash-attn", "flash_attn": "flash-attn",
                           "selective_scan_cuda": "mamba-ssm", "mamba_ssm": "mamba-ssm",
                           "causal_conv1d_cuda": "causal-conv1d", "causal_conv1d": "causal-conv1d"}
# ... and those whose release wheels carry "+cu<XY>torch<X.Y>cxx11abi<TRUE|FALSE>" in their names.
_ABI_TAGGED_WHEELS = frozenset({"flash-attn", "mamba-ssm", "causal-conv1d"})


def _extension_refused(facts, said):
    """A third-party compiled extension (mmcv's ops, torch-scatter, detectron2, apex) lacking a symbol of torch's
    own C++: it was compiled against another torch's headers. Its distribution name and index are the project's
    own (mmcv's ops ship as mmcv-full before 2.0), so the fix names what to install, not one command."""
    found = torch_version(facts)
    torch_text = found[0] if found else None
    what = f"torch {torch_text}" if torch_text else "the torch it loads beside"
    # The mangled name says which std::string the library expects: "Ss" is the pre-C++11 one
    # (_GLIBCXX_USE_CXX11_ABI=0), "__cxx11" the C++11 one. torch lacking it means torch has the other.
    symbol = said.requested or ""
    wants_cxx11 = True if "__cxx11" in symbol else False if re.search(r"[RPKIE]Ss", symbol) else None
    abi = ("" if wants_cxx11 is None else
           "; the symbol takes the C++11 std::string (_GLIBCXX_USE_CXX11_ABI=1), which this torch does not export: "
           "it is built with the pre-C++11 ABI" if wants_cxx11 else
           "; the symbol takes the pre-C++11 std::string (_GLIBCXX_USE_CXX11_ABI=0), which this torch does not export: "
           "it is built with the C++11 ABI (as conda-forge's builds are)")
    package = _DISTRIBUTION_OF_MODULE.get(said.package, said.package)
    # Projects that name their release wheels by torch and ABI: the one to pick (torch's ABI, the other than the
    # symbol's), spelled as they spell it.
    tagged = (f" (its release wheels are named by torch, CUDA and ABI: pick the one ending "
              f"torch{_minor(torch_text)}{_abi_words(not wants_cxx11)[1]})"
              if package in _ABI_TAGGED_WHEELS and torch_text and major_minor(torch_text) and wants_cxx11 is not None
              else "")
    return error(f"{said.package}'s compiled library lacks {said.requested}, a symbol of torch's own C++: it was built "
                 f"against another torch build than {what} (another release, or the other C++ ABI), so it does not "
                 f"load{abi}",
                 fix=Fix(f"Install the {package} build made for {what} and its CUDA" + (tagged or (
                         " (projects that ship compiled wheels, such as mmcv-full, torch-scatter and detectron2, publish "
                         "one wheel index per torch and CUDA version)")) + ", or rebuild it from source in this environment, "
                         "after torch is installed"),
                 evidence={f"{said.package}'s error": said.text}, related=("torchvision-torch-mismatch",))


def _no_library_for_this_torch(facts, said):
    """DGL finding none of its C++ libraries built for the running torch release (it ships one per release it was
    built for, named after it): this DGL build was made for other torch releases. Retold without the file, which
    torch it looked for is the report's torch at best, so it is a warning."""
    torch_text = said.requested or _stated_torch(facts)
    what = f"torch {torch_text}" if torch_text else "the torch it runs with"
    minor = ".".join(str(n) for n in major_minor(torch_text)) if torch_text and major_minor(torch_text) else "<torch-minor>"
    cuda = fact(facts, "torch.cuda", "unknown")
    # DGL's index names the torch minor, then the CUDA tag; its CPU builds have no tag.
    tag = ("" if cuda is None else f"{tables.cuda_tag(cuda)}/" if isinstance(cuda, str) and major_minor(cuda)
           else "<cuda-tag>/")
    message = (f"{said.package} has no compiled library for {what}: it ships its C++ parts once per torch release it "
               "was built for, so this build was made for other torch releases")
    fix = Fix(f"Install the {said.package} build for torch {minor} from DGL's wheel index for that torch and CUDA, or "
              f"install a torch release this {said.package} was built for (its dgl/graphbolt and dgl/dgl_sparse folders "
              "list them in their file names)",
              (f"{pip(facts)} install --force-reinstall dgl -f https://data.dgl.ai/wheels/torch-{minor}/{tag}repo.html",))
    evidence = {"DGL's error" if not said.retold else "the report's words": said.text}
    if said.retold:
        return warning(message + " (the report retells DGL's error without the file it looked for)", fix=fix,
                       evidence=evidence, related=("torchvision-torch-mismatch",))
    return error(message, fix=fix, evidence=evidence, related=("torchvision-torch-mismatch",))


def _record_differs(facts, said) -> str | None:
    """What an extension's own build record (k2's) says differs from the torch here: another release, or CPU
    against a CUDA torch (or the reverse); None when it fits or torch's side is unknown."""
    built_torch, built_cuda = said.built_for
    version, cuda = fact(facts, "torch.version", None), fact(facts, "torch.cuda", "unknown")
    if not isinstance(version, str):
        return None
    if base_version(version) != base_version(built_torch):
        return f"it was built against torch {built_torch}, and this is torch {version}"
    if cuda == "unknown" or not isinstance(cuda, (str, type(None))):
        return None
    if built_cuda == "cpu" and cuda is not None:
        return f"it is a CPU build (no CUDA used to build it), and this torch is a CUDA {cuda} build, so its CUDA ops are missing"
    if built_cuda != "cpu" and cuda is None:
        return f"it was built with CUDA {built_cuda}, and this torch is a CPU build"
    if built_cuda != "cpu" and cuda and major_minor(built_cuda) != major_minor(cuda):
        return f"it was built with CUDA {built_cuda}, and this torch with CUDA {cuda}"
    return None


def _built_for_another(facts, said):
    """An extension whose own build record (k2's `python -m k2.version`) names another torch release or CUDA variant
    than the torch here."""
    differs = _record_differs(facts, said)
    version = fact(facts, "torch.version", None)
    return error(f"{said.package} was not built for torch {version}: {differs}",
                 fix=Fix(f"Install the {said.package} build made for torch {version} (k2 publishes one wheel per torch "
                         "release and CUDA version; `python -m k2.version` shows what a build was made for), or build it "
                         "from source in this environment, after torch is installed"),
                 evidence={f"{said.package}'s build record": said.text}, related=("torchvision-torch-mismatch",))


def _judge(facts):
    found = torch_version(facts)
    if found is None and facts.get("meta.source") != "local" and (stated := _stated_torch(facts)):
        # A pasted list of the companions' pins beside torch's version told in the text ("I installed
        # torch==2.9.0+cu130 and pinned torchvision==0.24.0"): the list is not all that is installed.
        found = (stated, "the report")
    if found is None:
        return skip(no_torch(facts))
    torch_text, torch_source = found
    torch_meta = next((d for d in fact(facts, "packages.distributions", []) if d.name == "torch"), None)
    torch_build, torch_build_source = _torch_build(facts, torch_text)
    builds = {b.name: b for b in fact(facts, "packages.family_builds", None) or []}
    imports = fact(facts, "torch.family_imports", None)
    imported = {i.name: i for i in imports or []}
    seen: set[str] = set()
    problems: list[tuple[Status, str, str | None, tuple[str, ...]]] = []
    from_source: list = []  # release binaries beside a torch that is no release: built from source instead
    checked: list[str] = []
    pyg_indexes: list[str] = []  # PyG wheels made for another torch: reinstalled from PyG's index for this one
    evidence: dict = {}
    for d in fact(facts, "packages.distributions", []):
        if d.name == "torch" or d.name in seen:
            continue
        seen.add(d.name)
        specs = _torch_specs(d.requires)
        declared = ""
        if not specs and not d.requires and not d.metadata_path and d.installer != "conda":
            # A pasted list names the release, not its metadata: what that release's PyPI wheels declare.
            pin = tables.companion_pin(d.name, d.version)
            specs = _torch_specs([pin]) if pin else []
            declared = " (what its PyPI wheels declare)" if specs else ""
        rule = None if specs else _rule(d.name, d.version)
        attempt = imported.get(d.name)
        pyg = _pyg_built_for(d.version)
        if not specs and rule is None and d.name not in builds and attempt is None and pyg is None:
            continue
        checked.append(f"{d.name} {d.version}")
        severity = Status.ERROR if d.name in COMPILED else Status.WARNING
        if attempt is not None and not attempt.ok:
            # The ground truth: whatever the versions say, this package does not import here.
            text = f"{attempt.error_type}: {attempt.error_message}"
            evidence[f"import {d.name}"] = text
            problems.append((Status.ERROR, f"import {d.name} fails next to torch {torch_text} ({_shorten(text)})",
                             d.name, ()))
            continue
        if pyg is not None and not specs:
            minor, tag = pyg
            clash = (Status.ERROR if minor != _minor(torch_text) else _build_clash(torch_build, _build_of(tag)))
            if clash is not None:
                pyg_indexes.append(d.name)
                problems.append((clash, f"{d.name} {d.version} is PyG's wheel for torch {minor} ({tag}), and torch "
                                 f"{torch_text} is installed" + (" - its compiled library cannot load beside it"
                                                                 if clash is Status.ERROR else
                                                                 " - its CUDA operators are missing"), None, ()))
            continue
        nightly = _nightly_dates(d.version, torch_text)
        if nightly is not None and not specs:
            # Nightlies pair by build date, not by version number: torchvision's nightly version lagged
            # torch's (0.8.0.dev20201023 beside 1.8.0.dev20201023), and each pins that day's torch.
            ours, theirs = nightly
            if ours != theirs:
                problems.append((Status.ERROR if d.name in COMPILED else Status.WARNING,
                                 f"{d.name} {d.version} is the nightly of {ours}, built against that day's torch nightly, "
                                 f"and torch {torch_text} is the nightly of {theirs}", d.name, ()))
                continue
            rule = None
        bad = [s for s in specs if not _satisfies(s, torch_text)]
        if bad:
            problems.append((severity, f"{d.name} {d.version} requires torch{bad[0]}{declared}", d.name, ()))
            continue
        if rule is not None and not _satisfies(rule[1], torch_text):
            problems.append((Status.WARNING if d.name not in COMPILED else Status.ERROR,
                             f"{d.name} {d.version} does not go with torch {torch_text} ({rule[0]})", d.name, ()))
            continue
        if rule is not None and _release_binary_beside_another_torch(d, rule[1], torch_text):
            from_source.append(d)
            what = _not_release(torch_text)
            nvidia = what.startswith("NVIDIA")
            # NVIDIA's Jetson instructions build torchvision from source with BUILD_VERSION=0.x.0, which
            # looks like the release: beside NVIDIA's torch the version alone cannot tell them apart.
            hedge = (f"; unless this {d.name} was built from source here with BUILD_VERSION set, as NVIDIA's "
                     "Jetson instructions do" if nvidia else "")
            problems.append((Status.WARNING if nvidia else Status.ERROR,
                             f"{d.name} {d.version} is an official release version, whose wheel is built against the "
                             f"official torch {_minor(torch_text)} release and pins that exact version; torch "
                             f"{torch_text} is {what}, so that library does not load beside it "
                             f"('undefined symbol' or 'operator {d.name}::... does not exist'){hedge}", d.name, ()))
            continue
        build = builds.get(d.name)
        other, other_source = _family_build(build) if build is not None else (_build_of(flavour(d.version)),
                                                                               "the version tag")
        if other is None and d.name in ("torchvision", "torchaudio"):
            other, other_source = _conda_build(d)
        if other is None and flavour(torch_text):
            other, other_source = _pypi_build(facts, d, torch_text)
        clash = _build_clash(torch_build, other)
        if clash is not None and attempt is not None and clash is Status.ERROR:
            clash = Status.WARNING  # it imported after all: the flavours differ but it loads
        if clash is not None:
            evidence[f"{d.name} build"] = f"{_build_label(other)} ({other_source})"
            evidence["torch build"] = f"{_build_label(torch_build)} ({torch_build_source})"
            consequence = (" - its compiled library cannot load beside this torch" if clash is Status.ERROR
                           else " - its GPU operators cannot run")
            shown = build.version if build and build.version else d.version
            why = f" ({other_source})" if other_source != "the version tag" else ""
            problems.append((clash, f"{d.name} {shown} is a {_build_label(other)} build{why} while torch {torch_text} is a {_build_label(torch_build)} "
                             f"build{consequence}", d.name, ()))
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
    evidence = {"torch": f"{torch_text} ({torch_source})", "checked": checked, **evidence}
    if not problems:
        verb = "matches" if len(checked) == 1 else "match"
        family = [n for n in ("torchvision", "torchaudio") if n in seen]
        tried = [n for n in family if n in imported]
        if family and len(tried) == len(family):
            return ok(f"{', '.join(checked)} {verb} torch {torch_text}; import {' and '.join(tried)} works beside it")
        untried = [n for n in family if n not in tried]
        unseen = ""
        if untried:
            raw = facts.get("torch.family_imports")
            unseen = f"import {' and '.join(untried)} was not tried" + ("" if known(raw) else f" ({raw.reason})")
            unread = [n for n in untried if n not in builds or not builds[n].extension]
            if unread:
                unseen += f"; the libraries {' and '.join(unread)} links were not read"
        return ok(f"{', '.join(checked)} {verb} torch {torch_text}", unseen=unseen)

    pins: list[str] = []
    for _, _, name, extra in problems:
        pins.extend(extra)
        if name:
            pins.append(tables.family_requirement(name, torch_text) or name)
    command = (f"{pip(facts)} install torch=={base_version(torch_text)} " + " ".join(f'"{p}"' for p in dict.fromkeys(pins))
               + index_url(torch_text))
    message = "; ".join(text for _, text, _, _ in problems)
    if f"torch {torch_text}" not in message:
        message += f" (torch {torch_text} is installed)"
    fix = Fix("Install the matching releases together with torch, from the same index as torch", (command,))
    if pyg_indexes:
        cuda = fact(facts, "torch.cuda", "unknown")
        flav = flavour(torch_text)
        tag = (flav if flav else "cpu" if cuda is None else
               tables.cuda_tag(cuda) if isinstance(cuda, str) and major_minor(cuda) else "<cuda-tag>")
        reinstall = (f"{pip(facts)} install --force-reinstall --no-cache-dir {' '.join(pyg_indexes)} "
                     f"-f https://data.pyg.org/whl/torch-{_minor(torch_text)}.0+{tag}.html")
        fix = Fix("Install PyG's wheels built for this torch and its CUDA, from PyG's index for that pair"
                  + (", and the matching releases of the others together with torch" if len(pyg_indexes) < len(problems)
                     else ""), ((command,) if len(pyg_indexes) < len(problems) else ()) + (reinstall,))
    if from_source and len(from_source) == len(problems):
        # NVIDIA's Jetson/container torch or a source build: replacing it with a release is rarely the fix.
        fix = Fix(f"Build {' and '.join(d.name for d in from_source)} from source against this torch (no official "
                  "binary is built for it), or install the official torch release the binary was built for",
                  tuple(f"{pip(facts)} install --no-build-isolation --no-deps "
                        f"git+https://github.com/pytorch/{'vision' if d.name == 'torchvision' else 'audio'}.git"
                        f"@v{base_version(d.version)}" for d in from_source))
    names = {n for _, _, n, _ in problems}
    related = tuple(kb for kb, hit in (
        ("torchvision-torch-mismatch", bool(names & {"torchvision", "torchaudio"})),
        ("extension-abi-mismatch", bool(names - {"torchvision", "torchaudio", None})),
        ("compile-inductor-failure", None in names)) if hit)
    worst = error if any(s is Status.ERROR for s, *_ in problems) else warning
    return worst(message, fix=fix, evidence=evidence, related=related)
