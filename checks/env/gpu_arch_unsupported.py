from dataclasses import replace

from torchdoctor.data import tables
from torchdoctor.facts.model import known
from torchdoctor.model import Fix, Status, error, ok, skip, warning
from torchdoctor.registry import Example, env_check

from .cuda_visible_devices_invalid import _order_is_nvml_order, parse_visible_devices
from ._cuda import (COMPANIONS, SITE, dists, example_gpu, fact, gpu_cc, gpu_label, gpus, is_linux_x86, pip,
                    suggest, system, torch_label, torch_said, unknown_need)


GTX1080 = example_gpu("NVIDIA GeForce GTX 1080", "6.1")
V100 = example_gpu("Tesla V100-SXM2-32GB", "7.0")
RTX5090 = example_gpu("NVIDIA GeForce RTX 5090", "12.0")
RTX4090 = example_gpu("NVIDIA GeForce RTX 4090", "8.9")
DRIVER_580 = {"driver_version": "580.95.05", "cuda_driver_version": "13.0"}
MIXED = [example_gpu("NVIDIA GeForce GTX 1080", "6.1", 0), example_gpu("NVIDIA GeForce RTX 5090", "12.0", 1)]


def _cudnn_dist(version):
    return {"distributions": [{"name": "nvidia-cudnn-cu12", "version": version, "location": SITE}]}


@env_check(
    code="TE202",
    name="gpu-arch-unsupported",
    title="Every GPU has kernels in the installed torch",
    area="NVIDIA driver & GPUs",
    examples=[
        Example("error", {"torch": {"warnings": [
                    "NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch "
                    "installation. The current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75 "
                    "sm_80 sm_86 sm_90."]}},
                "only torch's own warning was pasted", contains="sm_120"),
        Example("ok", {"torch": {"version": "2.9.1+cu130", "cuda": "13.0", "warnings": [
                    "Found GPU0 NVIDIA GB10 which is of cuda capability 12.1. Minimum and Maximum cuda capability "
                    "supported by this version of PyTorch is (8.0) - (12.0)"]},
                       "nvidia": {**DRIVER_580, "gpus": [example_gpu("NVIDIA GB10", "12.1")]}},
                "torch's range warning fires for 12.1, which runs the build's sm_120 code"),
        Example("error", {"torch": {"version": "2.13.0+cu130", "cuda": "13.0"}, "nvidia": {**DRIVER_580, "gpus": [GTX1080]}},
                "Pascal on a CUDA 13 wheel (quick mode: arch list from the table)",
                contains="install torch==2.13.0+cu126 --index-url https://download.pytorch.org/whl/cu126"),
        Example("error", {"torch": {"version": "2.7.0+cu128", "cuda": "12.8"}, "nvidia": {**DRIVER_580, "gpus": [V100]}},
                "2.7's CUDA 12.8 wheels have no Volta kernels", contains="torch==2.7.0+cu126"),
        Example("error", {"torch": {"version": "2.7.0+cu126", "cuda": "12.6"}, "nvidia": {**DRIVER_580, "gpus": [RTX5090]}},
                "Blackwell needs a CUDA 12.8+ build", contains="torch==2.7.0+cu128"),
        Example("error", {"torch": {"version": "2.11.0+cu126", "cuda": "12.6"}, "nvidia": {**DRIVER_580, "gpus": [GTX1080]},
                          "packages": _cudnn_dist("9.17.1.4")},
                "kernels are there, but a newer cuDNN wheel refuses SM < 7.5", contains="nvidia-cudnn-cu12==9.10.2.21"),
        Example("error", {"torch": {"version": "2.13.0+cu130", "cuda": "13.0", "arch_list": ["sm_80", "sm_86"]},
                          "nvidia": {**DRIVER_580, "gpus": [example_gpu("Orin", "8.7")]}},
                "an iGPU runs only its own SASS: sm_86 does not run on 8.7", contains="JetPack"),
        Example("ok", {"torch": {"version": "2.13.0+cu130", "cuda": "13.0"}, "nvidia": {**DRIVER_580, "gpus": [RTX4090]}},
                "Ada runs the wheel's sm_86 SASS", contains="sm_86"),
        Example("ok", {"torch": {"version": "2.13.0+cu130", "cuda": "13.0", "arch_list": ["sm_86"]},
                       "nvidia": {**DRIVER_580, "gpus": [RTX4090]}},
                "arch list from the probe: 8.9 on sm_86"),
        Example("ok", {"torch": {"version": "2.8.0+cu128", "cuda": "12.8"}, "nvidia": {**DRIVER_580, "gpus": [V100]}},
                "2.8-2.10 kept sm_70 in the CUDA 12.8 wheels"),
        Example("warning", {"torch": {"version": "1.10.0+cu113", "cuda": "11.3"}, "nvidia": {**DRIVER_580, "gpus": [RTX4090]}},
                "Ada runs the CUDA 11.3 build's sm_86 SASS, but that build's NVRTC predates 8.9 (detectron2#5318)",
                contains="invalid value for --gpu-architecture"),
        Example("ok", {"torch": {"version": "2.0.1+cu118", "cuda": "11.8"}, "nvidia": {**DRIVER_580, "gpus": [RTX4090]}},
                "CUDA 11.8 is the first toolkit for Ada"),
        Example("ok", {"torch": {"version": "2.11.0+cu126", "cuda": "12.6"}, "nvidia": {**DRIVER_580, "gpus": [GTX1080]},
                       "packages": _cudnn_dist("9.10.2.21")},
                "Pascal on cu126 with the cuDNN it pins"),
        Example("ok", {"torch": {"version": "2.13.0+cu130", "cuda": "13.0", "arch_list": ["sm_80", "sm_90", "compute_90"]},
                       "nvidia": {**DRIVER_580, "gpus": [example_gpu("NVIDIA B200", "10.0")]}},
                "no SASS for 10.0 but compute_90 PTX JIT-compiles for it", contains="PTX"),
        Example("ok", {"torch": {"version": "2.8.0+cu128", "cuda": "12.8"}, "nvidia": {**DRIVER_580, "gpus": MIXED},
                       "env": {"variables": {"CUDA_VISIBLE_DEVICES": "0"}}},
                "CUDA_VISIBLE_DEVICES=0 is the 5090 (CUDA numbers the fastest first): the 1080 is hidden",
                contains="runs sm_120"),
        Example("error", {"torch": {"version": "2.8.0+cu128", "cuda": "12.8"}, "nvidia": {**DRIVER_580, "gpus": MIXED}},
                "a 5090 next to a 1080 display card: hide the 1080 first; no wheel has kernels for both",
                contains="export CUDA_VISIBLE_DEVICES=1"),
        Example("error", {"torch": {"version": "2.8.0+cu128", "cuda": "12.8"}, "nvidia": {**DRIVER_580, "gpus": MIXED}},
                "the source build it offers keeps the 5090's kernels", contains='TORCH_CUDA_ARCH_LIST="6.1;12.0"'),
        Example("error", {"torch": {"version": "2.8.0+cu128", "cuda": "12.8"}, "nvidia": {**DRIVER_580, "gpus": MIXED},
                          "env": {"variables": {"CUDA_VISIBLE_DEVICES": "0", "CUDA_DEVICE_ORDER": "PCI_BUS_ID"}}},
                "only the 1080 visible: the cu126 wheel's sm_60 runs on 6.1", contains="torch==2.8.0+cu126"),
        Example("error", {"torch": {"version": "2.11.0+cu126", "cuda": "12.6"}, "nvidia": {**DRIVER_580, "gpus": [GTX1080]},
                          "packages": _cudnn_dist("9.17.1.4")},
                "cuDNN's SM < 7.5 refusal is per process", contains="whole process"),
        Example("skip", {"torch": {"version": "2.13.0+cpu", "cuda": None}, "nvidia": {"gpus": [RTX4090]}},
                "CPU build: TE203's business"),
        Example("error", {"torch": {"version": "2.6.0"}, "nvidia": {"gpus": [RTX5090]}},
                "torch's own CUDA unknown, but no 2.6 build (cu118, cu124, cu126) has Blackwell kernels",
                contains="any official CUDA build of torch 2.6.0"),
        Example("warning", {"torch": {"version": "2.7.0"}, "nvidia": {"gpus": [RTX5090]}},
                "torch's own CUDA unknown: 2.7's PyPI wheel (cu126) lacks the 5090's kernels, its cu128 build has them",
                contains="torch==2.7.0+cu128 --index-url https://download.pytorch.org/whl/cu128"),
        Example("skip", {"torch": {"version": "2.7.0"}, "nvidia": {"gpus": [RTX5090]}, "python": {"system": "Windows"}},
                "Windows: PyPI's torch is the CPU build there (TE203's business); which CUDA build is unknown"),
        Example("skip", {"torch": {"version": "2.8.0"}, "nvidia": {"gpus": [RTX5090]}},
                "2.8's PyPI wheel is the CUDA 12.8 build: it runs the 5090"),
        Example("warning", {"torch": {"version": "1.3"}, "nvidia": {"gpus": [example_gpu("Tesla K40m", "3.5")]}},
                "'torch 1.3' read as 1.3.1, which moved sm_35 to sm_37; 1.3.0 still had it", contains="1.3.0"),
        Example("skip", {"torch": {"version": "2.13.0+cu130", "cuda": "13.0"}, "nvidia": {"gpus": []}}, "no GPU"),
    ],
)
def gpu_arch_unsupported(facts):
    """
    ## What it checks
    Each NVIDIA GPU's compute capability against the architectures torch was compiled for
    (`torch.cuda.get_arch_list()`, or, with `--quick`, the default list of the official wheel for
    that torch release and CUDA build), with torch's own rules: `sm_XY` code runs on the same
    major with minor >= Y, except on the integrated Jetson GPUs (5.3, 6.2, 7.2, 8.7), which run
    only their own code; `compute_XY` PTX is JIT-compiled for any newer GPU, but PTX of another
    architecture family counts only when the build's CUDA already supports the GPU (the first
    toolkit per architecture, from NVIDIA's compatibility guides): the cuBLAS, cuDNN and NVRTC of an
    older CUDA have nothing for it, and torch itself warns the GPU is not compatible. It also checks
    the cuDNN that torch loads: cuDNN 9.11 and newer refuse GPUs below compute capability 7.5. A Turing
    GPU (7.5) on a CUDA 9.x build runs its sm_70 code, but torch's own check (from 1.2) warns it "requires
    CUDA_VERSION >= 10000" on CUDA 9.0 builds, whose cuBLAS fails there (an error); on 9.1/9.2, which
    that check lets pass, a warning.
    Where the wheel's list is not in the tables (Windows wheels from torch 2.6), the build's CUDA
    and PyTorch's oldest architecture for that release and CUDA build (7.0 for the CUDA 12.8/12.9
    wheels from 2.8, on Linux and Windows alike) still rule out the GPUs below them.
    Where a report names torch's release without its +cu tag (as pip lists PyPI's wheel) on Linux x86_64 and
    PyPI's build of that release lacks kernels for a GPU that another build of it has (2.7's CUDA 12.6 wheel and an
    RTX 50xx), a warning that names the build to check and the one to install.
    Where a report gives torch's CUDA but not its release (an app's log line, "cuda=12.6"), a GPU newer than that CUDA
    (an RTX 5090 beside CUDA 12.6) or one that no official build of any release for that CUDA covers is an error:
    whichever release it is, it has no kernels for that GPU.
    Where a report names the GPU but not torch, a GPU that no official CUDA build of at least the three newest
    releases in the tables has kernels for (Kepler 3.5 since 1.3, the K80 since 2.8, Fermi and Kepler 3.0 never) gets a warning:
    a recent torch cannot run it, an old one or a source build still could. Where the report names CUDA versions
    without saying whose, and every one predates the GPU's architecture family (CUDA 10.2 beside an RTX 3090), a
    warning too: as torch's build it has no kernels for the GPU, as a toolkit or a driver it does not know it.

    ## Why it matters
    Without a matching kernel every CUDA op fails with "no kernel image is available for
    execution on the device" (torch warns "sm_XX is not compatible with the current PyTorch
    installation" only once CUDA starts). This hits GTX 10xx and other Pascal/Maxwell cards on
    CUDA 12.8+ and 13 wheels, V100 on torch 2.7 and 2.11+ CUDA 12.8/13 wheels, and RTX 50xx
    (Blackwell) on CUDA 12.6 and older wheels. With cuDNN >= 9.11 torch raises "cuDNN version
    ... is not compatible with devices with SM < 7.5" at the first convolution.

    ## How to fix
    Install the CUDA build of torch that carries kernels for the GPU (the message names it and
    the index URL); for cuDNN, go back to the cuDNN the build pins. GPUs no official wheel
    covers need a source build with `TORCH_CUDA_ARCH_LIST` set to their compute capability.
    """
    result = _judge(facts)
    needs = torch_said(facts, "arch-cuda")
    if needs and result.status is not Status.ERROR:
        # torch's own verdict on that machine, whatever the facts here left open.
        return _needs_newer_cuda(facts, needs)
    if result.status is Status.SKIP:
        # The facts to judge are missing (a pasted report cut short, only a warning pasted):
        # torch's own warning, printed on that machine, is the evidence left.
        said = [s for s in torch_said(facts, "arch") if not _covered(facts, s)]
        if said:
            found = _from_warning(facts, said)
            if all(_NO_KERNEL not in s.text and _INVALID_FUNCTION in s.text for s in said):
                # CUDA's older word for a missing kernel; a project's own CUDA extension built for other GPUs says
                # it too, so without the facts it is a likely cause, not torch's verdict.
                found = replace(found, status=Status.WARNING)
            return found
        # Nothing from torch either: the GPU alone still rules out the releases that have no kernels for it, and
        # the CUDA versions the text names without saying whose may each rule the GPU out.
        return _whichever_release(facts) or _every_named_cuda(facts) or result
    return result


def _judge(facts):
    gap = unknown_need(facts, "nvidia.gpus", "torch.version", "torch.cuda")
    if gap is not None:
        return _whichever_build(facts) or _whichever_release_of_cuda(facts) or gap
    cuda = facts.torch.cuda
    if cuda is None:
        return skip("torch is not a CUDA build")
    if not facts.nvidia.gpus:
        return skip("no NVIDIA GPU")
    visible, hidden, order_note = _visible(facts, gpus(facts))
    if not visible:
        return skip("CUDA_VISIBLE_DEVICES hides every GPU from torch (TE205 says more)")
    known_gpus = [(g, gpu_cc(g)) for g in visible if gpu_cc(g)]
    if not known_gpus:
        return skip("the GPUs' compute capability is unknown")

    version = facts.torch.version
    tag = tables.build_tag(version, cuda)
    label = torch_label(facts)
    archs = fact(facts, "torch.arch_list")
    source = "torch.cuda.get_arch_list()"
    if not archs:  # --quick, or an old torch that answers [] without a usable GPU
        if not tables.is_release(version):
            return skip(f"arch list of {label} unknown: the import probe gave none, and it is not an official release")
        windows = system(facts) == "Windows" and (fact(facts, "python.machine") or "AMD64").lower() in ("amd64", "x86_64")
        archs = tables.arch_list_for(version, tag, "Windows") if windows else None
        source = f"default arch list of the official torch {tables.torch_minor(version)} {tag} Windows wheels"
        if not is_linux_x86(facts) and archs is None:
            ancient = [(g, cc) for g, cc in known_gpus if tables.cc_int(cc) < 30]
            if ancient:  # below every arch list: official builds have never gone under sm_30
                return error("; ".join(f"{gpu_label(g, cc)} is older than any GPU an official PyTorch build has "
                                       "kernels for (compute capability 3.0 and up): every CUDA op on it fails"
                                       for g, cc in ancient),
                             fix=Fix("Run torch on the CPU (the CPU build), or use a newer GPU"),
                             evidence={"GPUs": [gpu_label(g, cc) for g, cc in ancient]},
                             related=("cuda-no-kernel-image",))
            bounded = _toolkit_bounds(facts, known_gpus, version, tag, cuda, label)
            if bounded is not None:
                return bounded
            return skip(f"arch list of {label} unknown: the tables cover Linux x86_64 wheels, and Windows ones up "
                        "to torch 2.5")
        if archs is None:
            archs = tables.arch_list_for(version, tag)
            source = f"default arch list of the official torch {tables.torch_minor(version)} {tag} wheels"
        if archs is None:
            return skip(f"arch list of {label} unknown: no table entry for torch {tables.torch_minor(version)} {tag}")
    evidence = {"arch list": " ".join(archs), "arch list from": source,
                "GPUs": [gpu_label(g, cc) for g, cc in known_gpus]}
    if hidden:
        evidence["hidden by CUDA_VISIBLE_DEVICES"] = [gpu_label(g, gpu_cc(g) or "compute capability unknown") for g in hidden]
        if order_note:
            evidence["device order"] = order_note

    kernels = [(g, cc, tables.kernel_for(archs, cc)) for g, cc in known_gpus]
    # Another major's PTX from a CUDA older than the GPU: the libraries have nothing for it.
    predates = {id(g): (kernel, first) for g, cc, kernel in kernels
                if kernel and (first := tables.ptx_only_predates(kernel, cc, cuda))}
    kernels = [(g, cc, None if id(g) in predates else kernel) for g, cc, kernel in kernels]
    missing = [(g, cc) for g, cc, kernel in kernels if kernel is None]
    ptx = [(g, cc, kernel) for g, cc, kernel in kernels if kernel and kernel.startswith("compute_")]
    cudnn, cudnn_from = _cudnn(facts, version, tag, cuda)
    refused = [(g, cc) for g, cc, kernel in kernels if kernel and cudnn and tables.cudnn_refuses(cudnn, cc)]
    if cudnn:
        evidence["cuDNN"] = f"{cudnn} ({cudnn_from})"

    turing = [(g, cc, kernel) for g, cc, kernel in kernels if kernel and _turing_on_cuda9(cc, cuda)]
    if turing and not missing and not refused:
        return _turing_verdict(facts, version, tag, cuda, label, turing, evidence)
    # An older SASS of the GPU's major (sm_86 on 8.9) from a CUDA that predates the GPU.
    newer = [(g, cc, kernel, first) for g, cc, kernel in kernels if (first := _older_sass_from_older_cuda(kernel, cc, cuda))]
    if newer and not missing and not refused:
        return _newer_than_build(facts, version, tag, cuda, label, newer, evidence)
    if not missing and not refused:
        runs = [f"{gpu_label(g, cc)} runs {_kind(kernel)}" for g, cc, kernel in kernels]
        if ptx:
            evidence["note"] = ("; ".join(f"{gpu_label(g, cc)} has no native kernels and runs {entry} PTX" for g, cc, entry in ptx)
                                + ": the first CUDA calls JIT-compile kernels (can take minutes; cached in "
                                "~/.nv/ComputeCache) and need a driver that supports the wheel's CUDA "
                                f"{cuda} itself")
        unread = [g for g in visible if not gpu_cc(g)]
        if unread:
            # A GPU whose compute capability is unknown was not checked: no claim about "every GPU".
            return ok(f"{label} has kernels for " + ", ".join(runs) + "; not checked: "
                      + ", ".join(gpu_label(g, "compute capability unknown") for g in unread), **evidence)
        return ok(f"{label} has kernels for every GPU: " + ", ".join(runs), **evidence)

    problems = []
    for g, cc in missing:
        if id(g) in predates:
            entry, first = predates[id(g)]
            problems.append(f"{gpu_label(g, cc)} has only {entry} PTX in {label} (built for {' '.join(archs)}): torch's "
                            f"own kernels JIT-compile for it, but the CUDA {cuda} libraries the build ships (cuBLAS, "
                            f"cuDNN, NVRTC) predate compute capability {cc}, first supported by CUDA {first}; torch "
                            "warns the GPU is not compatible, and ops that use those libraries fail")
            continue
        problems.append(f"{gpu_label(g, cc)} has no kernels in {label} (built for {' '.join(archs)}): "
                        "every CUDA op on it fails with 'no kernel image is available for execution on the device'")
    for g, cc in refused:
        problems.append(f"{gpu_label(g, cc)} is below compute capability 7.5, which cuDNN {cudnn} ({cudnn_from}) refuses: torch "
                        f"raises 'cuDNN version {_cudnn_int(cudnn)} is not compatible with devices with SM < 7.5' "
                        "at the first cuDNN op (convolutions, RNNs); the cuDNN library is one per process, so "
                        "this holds for the whole process, not only for work on that GPU")
    fine = [(g, cc) for g, cc, kernel in kernels if kernel and (g, cc) not in refused]
    seen = sorted({cc for _, cc in known_gpus}, key=tables.cc_int)  # the GPUs torch sees
    fix = _fix(facts, version, tag, cuda, missing, refused, cudnn_from, fine, seen)
    return error("; ".join(problems), fix=fix, evidence=evidence, related=("cuda-no-kernel-image",))


def _whichever_build(facts):
    """torch's own CUDA unknown (a report names a CUDA version without saying whose, or none) but its
    release known: when no official CUDA build of that release has kernels for a GPU, which build is
    installed does not matter. None when that does not decide (some build would run every GPU)."""
    if unknown_need(facts, "nvidia.gpus", "torch.version") is not None or known(facts.get("torch.cuda")):
        return None
    version = facts.torch.version
    builds = tables.builds(version) if tables.is_release(version) else []
    known_gpus = _visible_known(facts)
    if not builds or not known_gpus:
        return None
    where = "Windows" if system(facts) == "Windows" else "Linux"
    lists = {b["tag"]: (tables.arch_list_for(version, b["tag"], where), b["cuda"]) for b in builds}
    if any(archs is None for archs, _ in lists.values()):
        return None
    lacking = [(g, cc) for g, cc in known_gpus
               if not any(tables.build_runs(archs, cc, cuda) for archs, cuda in lists.values())]
    if not lacking:
        # Every build failing somehow (NVRTC) says more than the one PyPI serves lacking kernels.
        return _nvrtc_in_every_build(facts, version, lists, known_gpus) or _pypi_wheel_lacks(facts, version, lists,
                                                                                             known_gpus)
    release = tables.base_version(version)
    tags = ", ".join(lists)
    problems = [f"{gpu_label(g, cc)} has no kernels in any official CUDA build of torch {release} ({tags}): whichever "
                "of them is installed, every CUDA op on it fails with 'no kernel image is available for execution "
                "on the device'" for g, cc in lacking]
    evidence = {"torch CUDA": str(facts.get("torch.cuda")), "GPUs": [gpu_label(g, cc) for g, cc in known_gpus],
                "arch lists": "; ".join(f"{tag}: {' '.join(archs)}" for tag, (archs, _) in lists.items())}
    fine = [(g, cc) for g, cc in known_gpus if (g, cc) not in lacking]
    seen = sorted({cc for _, cc in known_gpus}, key=tables.cc_int)
    fix = _fix(facts, version, None, None, lacking, [], None, fine, seen)
    # {patch: the builds of that earlier patch that ran every lacking GPU}
    earlier: dict[str, list[str]] = {}
    for tag, (_, cuda) in lists.items():
        for patch, archs in tables.earlier_patch_arch_lists(version, tag, where).items():
            if all(tables.build_runs(archs, cc, cuda) for _, cc in lacking):
                earlier.setdefault(patch, []).append(tag)
    if earlier:
        # "1.3" stated without its patch: the latest patch is what an install of the minor gets, but an
        # earlier patch, built before the script changed, may be the one on that machine.
        then = "; ".join(f"torch {patch} ({', '.join(tags)}) still had kernels for it" for patch, tags in earlier.items())
        latest = (tables.release(version) or {}).get("latest") or "its latest patch"
        return warning("; ".join(problems) + f" (the text gives torch {release} without its patch release, read as "
                       f"{latest}, the latest; {then})", fix=fix, evidence=evidence, related=("cuda-no-kernel-image",))
    return error("; ".join(problems), fix=fix, evidence=evidence, related=("cuda-no-kernel-image",))


def _whichever_release_of_cuda(facts):
    """torch's CUDA build known (an app's log line "cuda=12.6") but not its release: a GPU whose architecture family
    that CUDA predates (an RTX 5090 beside CUDA 12.6: sm_12x code came with 12.8), or that no official build of any
    release for that CUDA covers, has no kernels whichever release is installed. None when some build of that CUDA
    could run every GPU, or its arch lists are not all in the tables."""
    if unknown_need(facts, "nvidia.gpus", "torch.cuda") is not None or known(facts.get("torch.version")):
        return None
    cuda = facts.torch.cuda
    known_gpus = _visible_known(facts)
    if not cuda or not known_gpus:
        return None
    where = "Windows" if system(facts) == "Windows" else "Linux"
    lists = {}  # "torch X.Y cuNNN" -> its arch list, for every release with a build of this CUDA
    for row in tables.releases():
        version = row.get("latest") or row["torch"]
        for b in tables.builds(version) if tables.is_release(version) else []:
            if b.get("cuda") == cuda:
                lists[f"torch {row['torch']} {b['tag']}"] = tables.arch_list_for(version, b["tag"], where)
    lists_known = bool(lists) and all(archs is not None for archs in lists.values())
    span = f" ({next(iter(lists)) if len(lists) == 1 else f'{next(iter(lists))} to {list(lists)[-1]}'})" if lists else ""
    problems, firsts = [], []
    for g, cc in known_gpus:
        # As _every_named_cuda: a CUDA older than the family's first toolkit builds no code the GPU runs (not even PTX).
        first = tables.family_first_toolkit(cc)
        if first and tables.major_minor(cuda) < tables.major_minor(first):
            problems.append(f"{gpu_label(g, cc)} is newer than CUDA {cuda}: CUDA {first} is the first that builds code "
                            f"for its architecture, so no CUDA {cuda} build of torch{span} has kernels for it")
            firsts.append(first)
        elif lists_known and not any(tables.build_runs(archs, cc, cuda) for archs in lists.values()):
            problems.append(f"{gpu_label(g, cc)} has no kernels in any official CUDA {cuda} build of torch{span}")
    if not problems:
        return None
    fix = (_fix_cuda_at_least(facts, max(firsts, key=tables.major_minor), None, "a torch build") if firsts else
           Fix("Install a torch build with kernels for this GPU: the selector at https://pytorch.org/get-started/locally/ "
               "gives the command"))
    return error("; ".join(problems) + ": whichever release is installed, every CUDA op on it fails with 'no kernel "
                 "image is available for execution on the device'",
                 fix=Fix(fix.summary, (_SHOW_TORCH_BUILD, *fix.commands)),
                 evidence={"torch CUDA": cuda, "GPUs": [gpu_label(g, cc) for g, cc in known_gpus],
                           **({"arch lists": "; ".join(f"{name}: {' '.join(archs)}" for name, archs in lists.items())}
                              if lists_known else {})},
                 related=("cuda-no-kernel-image",))


def _pypi_wheel_lacks(facts, version, lists, known_gpus):
    """torch's release known without its +cu tag, on Linux x86_64: pip lists PyPI's wheel that way, and PyPI carries
    one CUDA build per release (2.7's is CUDA 12.6, without Blackwell kernels). Where that build lacks kernels for a
    GPU that another build of the release runs, a warning: the likeliest install fails, the other build is the fix."""
    if tables.local_tag(version) or not is_linux_x86(facts):
        return None
    tag = tables.pypi_default_cuda(version)
    if tag not in lists or (tables.release(version) or {}).get("local_tag") is False:
        return None  # before 1.2 every build's version was tagless: the tag says nothing of where it came from
    archs, cuda = lists[tag]
    lacking = [(g, cc) for g, cc in known_gpus if not tables.build_runs(archs, cc, cuda)]
    running = [t for t, (a, c) in lists.items() if all(tables.build_runs(a, cc, c) for _, cc in known_gpus)]
    if not lacking or not running:
        return None
    release = tables.base_version(version)
    use = running[-1]
    names = "; ".join(gpu_label(g, cc) for g, cc in lacking)
    return warning(f"torch {release} is named without its +cu tag, as pip lists PyPI's wheel: on Linux that is the CUDA "
                   f"{cuda} build, which has no kernels for {names}; if it is the one installed, every CUDA op fails "
                   f"with 'no kernel image is available for execution on the device'. The {', '.join(running)} build of "
                   f"torch {release} runs it",
                   fix=Fix(f"Check the build (torch.version.cuda, torch.cuda.get_arch_list()); if it is CUDA {cuda}, "
                           f"reinstall torch {release} from the {use} index; {COMPANIONS}",
                           (_SHOW_TORCH_BUILD,
                            f"{pip(facts)} install torch=={release}+{use} --index-url https://download.pytorch.org/whl/{use}")),
                   evidence={"torch": version, "torch CUDA": "not stated", "GPUs": [gpu_label(g, cc) for g, cc in known_gpus],
                             f"{tag} arch list": " ".join(archs)},
                   related=("cuda-no-kernel-image",))


# What a report that does not say which torch is installed asks the user to run first.
_SHOW_TORCH_BUILD = "python -c \"import torch; print(torch.__version__, torch.version.cuda, torch.cuda.get_arch_list())\""

# A GPU judged with torch's release unknown: lacking kernels in this many of the newest releases (in the tables,
# each with every build's arch list known) is a recent torch's lack, not one release's.
MIN_RELEASES_LACKING = 3


def _whichever_release(facts):
    """torch's release unknown (a report that names the GPU and says nothing of torch), the GPU known: where the
    official CUDA builds of every release after some point have no kernels for it (Kepler 3.5 on torch 1.3+, a K80
    on 2.8+), a recent torch cannot run it. A warning: an older torch, or a source build, still could."""
    if known(facts.get("torch.version")) or known(facts.get("torch.cuda")) or unknown_need(facts, "nvidia.gpus") is not None:
        return None
    known_gpus = _visible_known(facts)
    if not known_gpus:
        return None
    where = "Windows" if system(facts) == "Windows" else "Linux"
    # Per release in the tables, oldest first: its name and its builds' (arch list or None where unknown, CUDA).
    rows = []
    for row in tables.releases():
        version = row.get("latest") or row["torch"]
        builds = tables.builds(version) if tables.is_release(version) else []
        rows.append((row["torch"], [(tables.arch_list_for(version, b["tag"], where), b["cuda"]) for b in builds]))
    problems, newest_runs = [], []
    for g, cc in known_gpus:
        # True: some build runs it; False: every build's list is known and none does; None: cannot tell.
        runs = [True if any(archs is not None and tables.build_runs(archs, cc, cuda) for archs, cuda in lists)
                else (False if lists and all(archs is not None for archs, _ in lists) else None)
                for _, lists in rows]
        last = max((i for i, r in enumerate(runs) if r), default=None)
        start = 0 if last is None else last + 1
        lacking = [rows[i][0] for i in range(start, len(rows)) if runs[i] is False]
        if runs[-1] is not False or len(lacking) < MIN_RELEASES_LACKING:
            continue  # the newest release may run it, or only a release or two lack it: which is installed decides
        since = ""
        if last is not None:
            since = f"; torch {rows[last][0]} is the newest with them"
            newest_runs.append(rows[last][0])
        problems.append(f"{gpu_label(g, cc)} has no kernels in any official CUDA build of torch {lacking[0]} to "
                        f"{lacking[-1]}{since}")
    if not problems:
        return None
    use = (f"use torch {min(newest_runs, key=tables.driver_tuple)} or older (a CUDA build), or build torch from source"
           if newest_runs else "no official build has kernels for it: build torch from source")
    cc_list = ";".join(sorted({cc for _, cc in known_gpus}, key=tables.cc_int))
    return warning("; ".join(problems) + ". The report does not say which torch is installed: unless it is older than "
                   "that, or built from source for this GPU, CUDA ops fail with 'no kernel image is available'",
                   fix=Fix(f"Check the installed torch; on this GPU {use} with TORCH_CUDA_ARCH_LIST set to its compute "
                           "capability",
                           (_SHOW_TORCH_BUILD,
                            f"TORCH_CUDA_ARCH_LIST=\"{cc_list}\" python setup.py develop   # in a PyTorch source checkout")),
                   evidence={"GPUs": [gpu_label(g, cc) for g, cc in known_gpus], "torch": "not in the report"},
                   related=("cuda-no-kernel-image",))


def _every_named_cuda(facts):
    """torch's CUDA unknown, the text names CUDA versions without saying whose (torch's build, the toolkit's, the
    driver's), the GPU known: where every one of them predates the GPU's architecture family (CUDA 10.2 beside an
    RTX 3090, whose sm_8x code CUDA 11.0 first built), something is wrong whoever's it is: a torch built with it has
    no code the GPU runs, a toolkit that old cannot build for it, and a driver that old does not know the GPU. A
    warning: the text does not say which. (Not the other way: a CUDA too new for an old GPU is normal for a driver.)"""
    named = facts.get("torch.cuda_named")
    if known(facts.get("torch.cuda")) or not known(named) or not named or unknown_need(facts, "nvidia.gpus") is not None:
        return None
    known_gpus = _visible_known(facts)
    problems, firsts = [], []
    for g, cc in known_gpus:
        first = tables.family_first_toolkit(cc)
        if first and all(tables.major_minor(c) < tables.major_minor(first) for c in named):
            problems.append(f"{gpu_label(g, cc)} is newer than CUDA {'/'.join(named)}: CUDA {first} is the first that "
                            "builds code for its architecture")
            firsts.append(first)
    if not problems:
        return None
    fix = _fix_cuda_at_least(facts, max(firsts, key=tables.major_minor), None, "a torch build")
    return warning("; ".join(problems) + ". The report does not say whether that CUDA is torch's build, the toolkit's "
                   "or the driver's: if it is torch's (torch.version.cuda), torch has no kernels for this GPU and CUDA "
                   "ops fail with 'no kernel image is available'; a toolkit that old cannot build extensions for it, "
                   "and a driver that old does not know the GPU",
                   fix=Fix(fix.summary, (_SHOW_TORCH_BUILD, *fix.commands)),
                   evidence={"CUDA named": ", ".join(named), "GPUs": [gpu_label(g, cc) for g, cc in known_gpus],
                             "torch's CUDA": str(facts.get("torch.cuda"))},
                   related=("cuda-no-kernel-image",))


def _nvrtc_in_every_build(facts, version, lists, known_gpus):
    """torch's CUDA unknown, and no official CUDA build of its release fully knows a GPU: each either has no kernels
    for it or runs it only as its major's older SASS from a CUDA that predates it (Ada 8.9 beside torch 1.10's cu102,
    which has no sm_8x, and its cu111/cu113, whose NVRTC does not know 8.9): whichever is installed, something fails
    (_newer_than_build's verdict at best). None when some build's CUDA knows every GPU."""
    newer = []
    for g, cc in known_gpus:
        firsts, without = [], []
        for tag, (archs, cuda) in lists.items():
            if not tables.build_runs(archs, cc, cuda):
                without.append(tag)
                continue
            first = _older_sass_from_older_cuda(tables.kernel_for(archs, cc), cc, cuda)
            if not first:
                break
            firsts.append(first)
        else:
            if firsts:
                newer.append((g, cc, max(firsts, key=tables.major_minor), without))
    if not newer:
        return None
    release = tables.base_version(version)
    first = max((f for _, _, f, _ in newer), key=tables.major_minor)
    message = ("; ".join(f"{gpu_label(g, cc)} is newer than every official CUDA build of torch {release} "
                         f"({', '.join(f'{tag}: CUDA {cuda}' for tag, (_, cuda) in lists.items())}; compute capability "
                         f"{cc} is first supported by CUDA {f})"
                         + (f", and {'/'.join(without)} {'has' if len(without) == 1 else 'have'} no kernels for it at all"
                            if without else "")
                         for g, cc, f, without in newer)
               + ": whichever is installed, at best torch's own kernels run as the major's older SASS, and what the "
               "build compiles at run time with its NVRTC (TorchScript's fusers, jiterator kernels) fails with "
               "'nvrtc: error: invalid value for --gpu-architecture (-arch)'")
    fix = _fix_cuda_at_least(facts, first, None, "a torch release with a build")
    evidence = {"torch CUDA": str(facts.get("torch.cuda")), "GPUs": [gpu_label(g, cc) for g, cc in known_gpus],
                "arch lists": "; ".join(f"{tag}: {' '.join(archs)}" for tag, (archs, _) in lists.items())}
    return warning(message, fix=fix, evidence=evidence, related=("cuda-no-kernel-image",))


def _needs_newer_cuda(facts, said):
    """torch's "Found GPU0 ... which requires CUDA_VERSION >= 10000 to work properly, but your PyTorch was compiled
    with CUDA_VERSION 9000" as the verdict."""
    s = said[0]
    label = torch_label(facts)
    where = label if label != "torch" else "the installed torch"
    alternative = suggest(facts, driver=False, accept=lambda _minor, build: (
        tables.major_minor(build.get("cuda") or "0.0") or (0, 0)) >= tables.major_minor(s.needs_cuda)) if gpus(facts) else None
    fix = (Fix(f"Install {alternative.label}; {COMPANIONS}", (alternative.command(pip(facts)),)) if alternative else
           Fix(f"Install a torch build made with CUDA {s.needs_cuda} or newer: the selector at "
               "https://pytorch.org/get-started/locally/ (or its previous-versions page) gives the command"))
    return error(f"torch says {s.gpu} needs CUDA {s.needs_cuda} or newer to work properly, and {where} was built with "
                 f"CUDA {s.requested}: the CUDA libraries of that build fail on the GPU", fix=fix,
                 evidence={"torch's warning": s.text}, related=("cuda-no-kernel-image",))


def _older_sass_from_older_cuda(kernel, cc, cuda):
    """The first CUDA toolkit for a GPU that runs an older SASS of its major (8.9 on a CUDA 11.3 build's sm_86),
    when the build's CUDA predates it; None otherwise (a build holding the GPU's own SASS was made by a CUDA that
    knew it)."""
    if not kernel or not kernel.startswith("sm_") or kernel == f"sm_{tables.cc_int(cc)}":
        return None
    first = tables.first_toolkit(cc)
    have, need = tables.major_minor(cuda) if cuda else None, tables.major_minor(first) if first else None
    return first if have and need and have < need else None


def _newer_than_build(facts, version, tag, cuda, label, newer, evidence):
    """A GPU newer than the build's CUDA within its major (Ada 8.9 on a CUDA 11.3-11.7 build, 8.6 on CUDA 11.0): torch's
    own kernels run as the major's older SASS, but what the build compiles at run time with its NVRTC (TorchScript's
    fusers, jiterator kernels) targets an architecture that NVRTC does not know."""
    first = max((f for *_, f in newer), key=tables.major_minor)
    runs = "; ".join(f"{gpu_label(g, cc)} runs {label}'s {kernel} SASS, but CUDA {cuda} predates compute capability "
                     f"{cc} (first supported by CUDA {f})" for g, cc, kernel, f in newer)
    message = (runs + ": what the build compiles at run time with its NVRTC (TorchScript's fusers, jiterator kernels) "
               "fails with 'nvrtc: error: invalid value for --gpu-architecture (-arch)'")
    fix = _fix_cuda_at_least(facts, first, tag, "a torch build", " (or its previous-versions page)")
    refused = torch_said(facts, "nvrtc-arch")
    if refused:
        # The text shows it happened: NVRTC refused the architecture on that machine.
        return error(message, fix=fix, evidence={**evidence, "the report's error": refused[0].text},
                     related=("cuda-no-kernel-image",))
    return warning(message, fix=fix, evidence=evidence, related=("cuda-no-kernel-image",))


def _fix_cuda_at_least(facts, first, exclude_tag, what, where=""):
    """Install a build made with CUDA `first` or newer (the first toolkit that knows the GPU): the suggester's, else
    the selector."""
    alternative = suggest(facts, exclude_tag=exclude_tag, accept=lambda _minor, build: (
        tables.major_minor(build.get("cuda") or "0.0") or (0, 0)) >= tables.major_minor(first))
    if alternative:
        return Fix(f"Install {alternative.label} (CUDA {first} and newer know this GPU); {COMPANIONS}",
                   (alternative.command(pip(facts)),))
    return Fix(f"Install {what} made with CUDA {first} or newer: the selector at https://pytorch.org/get-started/locally/"
               f"{where} gives the command")


def _turing_on_cuda9(cc, cuda):
    """Whether a Turing GPU (7.5) runs a CUDA 9.x build: it runs the build's sm_70 SASS, but torch's own
    _check_capability (torch 1.2 on) warns "Found GPU0 ... which requires CUDA_VERSION >= 10000 to work
    properly, but your PyTorch was compiled with CUDA_VERSION 9000" for CUDA <= 9.0 builds (cuBLAS 9.0 fails
    there: pytorch#20860), and CUDA 10.0 is the first toolkit for Turing."""
    mm = tables.major_minor(cuda) if cuda else None
    return bool(mm) and mm[0] == 9 and tables.cc_int(cc) // 10 == 7 and tables.cc_int(cc) % 10 >= 5


def _turing_verdict(facts, version, tag, cuda, label, turing, evidence):
    """An error where torch itself warns (CUDA <= 9.0); for 9.1/9.2, which torch's check lets pass but which
    also predate Turing (PyTorch's maintainers: CUDA 9 does not support RTX cards, pytorch#28752), a warning."""
    torch_warns = tables.major_minor(cuda) <= (9, 0)
    names = ", ".join(gpu_label(g, cc) for g, cc, _ in turing)
    if torch_warns:
        message = (f"{names} is a Turing GPU and {label} is a CUDA {cuda} build: torch's own check (from torch 1.2) "
                   "warns such a GPU 'requires CUDA_VERSION >= 10000 to work properly' - the build's sm_70 kernels start, but the CUDA 9.0 "
                   "libraries it ships fail on the GPU (cuBLAS: 'cublas runtime error')")
    else:
        message = (f"{names} is a Turing GPU and {label} is a CUDA {cuda} build, which predates Turing (CUDA 10.0 is "
                   "the first toolkit for compute capability 7.5): torch's own check (from torch 1.2) warns only for "
                   "CUDA 9.0 and older builds, but PyTorch's maintainers answer that CUDA 9 builds do not support RTX cards")
    seen = sorted({cc for _, cc, _ in turing}, key=tables.cc_int)
    alternative = suggest(facts, exclude_tag=tag, ccs=seen,
                          accept=lambda _minor, build: (tables.major_minor(build.get("cuda") or "0.0") or (0, 0)) >= (10, 0))
    fix = (Fix(f"Install {alternative.label}, whose CUDA supports Turing; {COMPANIONS}", (alternative.command(pip(facts)),))
           if alternative else Fix("Install a torch build made with CUDA 10.0 or newer: the selector at "
                                   "https://pytorch.org/get-started/locally/ gives the command"))
    return (error if torch_warns else warning)(message, fix=fix, evidence=evidence, related=("cuda-no-kernel-image",))


def _toolkit_bounds(facts, known_gpus, version, tag, cuda, label):
    """Without the build's arch list, what its CUDA alone decides: a GPU newer than that CUDA
    (no native code, and the CUDA libraries it ships have nothing for it), or older than the oldest
    architecture that CUDA still compiles for, or than the oldest PyTorch's policy builds that release's
    wheels for (tables.release_min_cc). None when every GPU is within the bounds."""
    problems, bad = [], []
    floor = tables.toolkit_min_cc(cuda)
    policy = tables.release_min_cc(version, tag)  # PyTorch's own floor for the build, on every platform
    for g, cc in known_gpus:
        first = tables.family_first_toolkit(cc)
        if first and tables.major_minor(cuda) and tables.major_minor(cuda) < tables.major_minor(first):
            bad.append((g, cc))
            problems.append(f"{gpu_label(g, cc)} needs CUDA {first} or later (the first toolkit for its architecture family), and "
                            f"{label} is a CUDA {cuda} build: no native kernels, and the cuBLAS/cuDNN it ships have "
                            "no code for the GPU, so CUDA ops fail ('no kernel image is available for execution on "
                            "the device')")
        elif floor and tables.cc_int(cc) < tables.cc_int(floor):
            bad.append((g, cc))
            problems.append(f"{gpu_label(g, cc)} is below compute capability {floor}, the oldest that CUDA {cuda} "
                            f"compiles for: {label} has no kernels for it, native or PTX")
        elif policy and tables.cc_int(cc) < tables.cc_int(policy):
            bad.append((g, cc))
            problems.append(f"{gpu_label(g, cc)} is below compute capability {policy}, the oldest that PyTorch builds its "
                            f"torch {tables.torch_minor(version)} {tag} wheels for (Linux and Windows alike): {label} has "
                            "no kernels for it, native or PTX, so CUDA ops fail ('no kernel image is available for "
                            "execution on the device')")
    if not problems:
        return None
    fine = [(g, cc) for g, cc in known_gpus if (g, cc) not in bad]
    seen = sorted({cc for _, cc in known_gpus}, key=tables.cc_int)
    evidence = {"torch CUDA": cuda, "GPUs": [gpu_label(g, cc) for g, cc in known_gpus],
                "arch list": "unknown: decided from the build's CUDA version alone" if not policy else
                "unknown: decided from the build's CUDA version and PyTorch's oldest architecture for it "
                f"({policy} from torch {tables.torch_minor(version)} {tag})"}
    return error("; ".join(problems), fix=_fix(facts, version, tag, cuda, bad, [], None, fine, seen),
                 evidence=evidence, related=("cuda-no-kernel-image",))


def _kind(entry):
    return f"{entry} PTX (JIT-compiled)" if entry.startswith("compute_") else f"{entry} SASS"


def _cudnn(facts, version, tag, cuda):
    """The cuDNN torch loads: what the probe saw, else the nvidia-cudnn wheel, else the build's pin."""
    for dotted in ("torch.cudnn_runtime", "torch.cudnn_compiled"):
        value = fact(facts, dotted)
        if value:
            return str(value), dotted
    major = (tables.major_minor(cuda) or (0, 0))[0]
    wheel = dists(facts, f"nvidia-cudnn-cu{major}")
    if wheel:
        return wheel[0].version, f"{wheel[0].name} {wheel[0].version}"
    pinned = (tables.build(version, tag) or {}).get("cudnn")
    return (pinned, f"pinned by torch {tables.torch_minor(version)} {tag}") if pinned else (None, None)


def _cudnn_int(cudnn):
    """ "9.17.1.4" -> 91701, the number torch prints (cuDNN 9 encoding)."""
    major, minor, patch = (tables.driver_tuple(cudnn) + (0, 0))[:3]
    return major * 10000 + minor * 100 + patch


def _visible_known(facts):
    """(GPU, compute capability) for each GPU torch sees whose capability is known."""
    visible, _hidden, _note = _visible(facts, gpus(facts))
    return [(g, cc) for g in visible if (cc := gpu_cc(g))]


def _visible(facts, found):
    """(GPUs torch sees, GPUs CUDA_VISIBLE_DEVICES hides, a note on the device order assumed)."""
    variables = fact(facts, "env.variables") or {}
    value = variables.get("CUDA_VISIBLE_DEVICES")
    if value is None:
        return found, [], None
    parsed = parse_visible_devices(value)
    if parsed.raises or parsed.kind == "mig":
        return found, [], None
    note = None
    if parsed.kind == "uuid":
        if not all(known(g.uuid) for g in found):
            return found, [], None
        shown = [g for g in found if any(g.uuid.startswith(k) for k in parsed.kept)]
    else:
        order = sorted(found, key=lambda g: g.index)
        if not _order_is_nvml_order(facts, found):
            # CUDA numbers devices fastest first unless CUDA_DEVICE_ORDER=PCI_BUS_ID: the newest
            # compute capability first is how that plays out on a mixed box.
            order = sorted(order, key=lambda g: -tables.cc_int(gpu_cc(g) or "0.0"))
            note = "CUDA's default fastest-first numbering, taken as the highest compute capability first"
        shown = [order[k] for k in parsed.kept if k < len(order)]
    indexes = {g.index for g in shown}
    return shown, [g for g in found if g.index not in indexes], note


def _fix(facts, version, tag, cuda, missing, refused, cudnn_from, fine=(), seen=None):
    ccs = [cc for _, cc in missing + refused]
    low = min(tables.cc_int(cc) for cc in ccs)
    if fine:
        return _mixed_fix(facts, version, tag, missing + refused, list(fine))

    def fits_cudnn(_minor, build):
        return not build.get("cudnn") or not tables.cudnn_refuses(build["cudnn"], low)

    if refused and not missing and cudnn_from and cudnn_from.startswith("nvidia-cudnn"):
        pinned = (tables.build(version, tag) or {}).get("cudnn")
        if pinned and not tables.cudnn_refuses(pinned, low):
            name = cudnn_from.split()[0]
            return Fix(f"Go back to the cuDNN that torch {tables.torch_minor(version)} {tag} pins ({pinned}); "
                       "something upgraded it past 9.10", (f"{pip(facts)} install {name}=={pinned}",))
    if any(tables.is_igpu(cc) for cc in ccs):
        return Fix("This is an integrated Jetson GPU: install NVIDIA's PyTorch wheel for your JetPack release "
                   "(the x86 and server aarch64 wheels carry no kernels for it)")
    alternative = suggest(facts, exclude_tag=tag, accept=fits_cudnn, ccs=seen)
    extra = ""
    if alternative is None:
        alternative = suggest(facts, exclude_tag=tag, accept=fits_cudnn, driver=False, ccs=seen)
        if alternative is not None:
            floor, _ = tables.wheel_driver(alternative.tag)
            extra = f" (it needs driver >= {floor}: upgrade the driver first)"
    if alternative is None:
        arch = ";".join(sorted(set(ccs), key=tables.cc_int))
        return Fix(f"No official torch wheel has kernels for compute capability {arch}: build PyTorch from source "
                   f"with TORCH_CUDA_ARCH_LIST={arch} and a CUDA toolkit that still supports it",
                   (f'TORCH_CUDA_ARCH_LIST="{arch}" {pip(facts)} install -v --no-build-isolation .  '
                    "# in a pytorch source checkout",))
    what = "kernels for compute capability " + ", ".join(sorted(set(ccs), key=tables.cc_int))
    return Fix(f"Install {alternative.label}, which has {what}{extra}; {COMPANIONS}",
               (alternative.command(pip(facts)),))


def _mixed_fix(facts, version, tag, bad, fine):
    """A box where some GPUs run the build and some do not (a new card next to an old display
    card): hiding the old one is the first fix; a build for the old one only would lose the new."""
    keep = ",".join(str(g.index) for g, _ in sorted(fine, key=lambda t: t[0].index))
    commands = [f"export CUDA_VISIBLE_DEVICES={keep}  # the GPUs this torch has kernels for"]
    if not (known(facts.env) and _order_is_nvml_order(facts, [g for g, _ in bad + fine])):
        commands.append("export CUDA_DEVICE_ORDER=PCI_BUS_ID  # so the numbers above are nvidia-smi's")
    every = sorted({cc for _, cc in bad + fine}, key=tables.cc_int)
    both = suggest(facts, exclude_tag=tag, ccs=every)
    names = ", ".join(gpu_label(g, cc) for g, cc in bad)
    summary = f"Hide {names} from torch (the GPUs it has kernels for keep working)"
    if both is not None:
        commands.append(both.command(pip(facts)))
        summary += f", or install {both.label}, which has kernels for every GPU here; {COMPANIONS}"
    else:
        arch = ";".join(every)
        summary += (f"; no single official wheel has kernels for all of {', '.join(every)}: a build for the old GPU "
                    f"alone would have none for the others, so keep both only with a source build for "
                    f"TORCH_CUDA_ARCH_LIST=\"{arch}\"")
        commands.append(f'TORCH_CUDA_ARCH_LIST="{arch}" {pip(facts)} install -v --no-build-isolation .  '
                        "# in a pytorch source checkout")
    return Fix(summary, tuple(commands))


def _covered(facts, s):
    """Whether the build the warning lists runs the GPU after all (torch's range and list warnings
    also fire for GPUs a same-major SASS entry runs); another major's PTX from a CUDA that predates
    the GPU does not count (tables.ptx_only_predates)."""
    if not s.archs:
        return False
    kernel = tables.kernel_for(list(s.archs), s.cc)
    return kernel is not None and not tables.ptx_only_predates(kernel, s.cc, fact(facts, "torch.cuda"))


_NO_KERNEL = "no kernel image is available"  # the CUDA runtime's words (error 209), not torch's warning
_INVALID_FUNCTION = "invalid device function"  # the same refusal as CUDA <= 9 worded it (error 8)


def _named(facts, said):
    """torch 1.8/1.9's too-old warning names no GPU (its template went out unfilled), nor does the CUDA
    runtime's "no kernel image is available": the oldest GPU the report lists is the one below the
    build's minimum. Without a list it stays unnamed."""
    listed = sorted(((g, gpu_cc(g)) for g in gpus(facts) if gpu_cc(g)), key=lambda t: tables.cc_int(t[1]))
    out = []
    for s in said:
        if s.cc is None and listed:
            g, cc = listed[0]
            name = g.name if known(g.name) else f"GPU {g.index}"
            s = replace(s, gpu=f"{name} (the oldest GPU listed; the message does not name it)", cc=cc)
        out.append(s)
    return out


def _from_warning(facts, said):
    """torch's own verdict that a GPU has no kernels in the build, for reports that lack the facts."""
    label = torch_label(facts)
    said = _named(facts, said)
    if all(s.cc is None for s in said):
        # "too old" only where torch said so; "no kernel image" alone is either direction (a GPU older or newer
        # than the build's arch list).
        verdict = "is too old for" if any(s.too_old for s in said) else "has no kernels in"
        return error(f"torch says a GPU {verdict} {label if label != 'torch' else 'the installed torch'} "
                     "(its warning does not name the GPU, and the report lists none): CUDA ops on it fail with "
                     "'no kernel image is available for execution on the device'",
                     fix=Fix("Run `nvidia-smi` to see which GPU it is, then install a torch build whose arch list "
                             "covers its compute capability (the selector at https://pytorch.org/get-started/locally/ "
                             "and the previous-versions page list them), or hide that GPU with CUDA_VISIBLE_DEVICES"),
                     evidence={"torch's warning": said[0].text}, related=("cuda-no-kernel-image",))
    said = [s for s in said if s.cc is not None]
    problems, ccs = [], []
    for s in said:
        built = f" (built for {' '.join(s.archs)})" if s.archs else ""
        sm = "sm_" + s.cc.replace(".", "")
        where = label if label != "torch" else "the installed torch"
        ptx = tables.kernel_for(list(s.archs), s.cc) if s.archs else None
        if ptx:  # kept by _covered: another major's PTX from a CUDA that predates the GPU (or an unknown one)
            first = tables.first_toolkit(s.cc)
            problems.append(f"torch says {s.gpu} (compute capability {s.cc}, {sm}) is not compatible with {where}{built}: "
                            f"only {ptx} PTX reaches it, which JIT-compiles torch's own kernels but not the CUDA libraries "
                            f"(cuBLAS, cuDNN, NVRTC) of a build older than CUDA {first}, the first to support the GPU: "
                            "ops that use those libraries fail")
        else:
            problems.append(f"{'CUDA' if _NO_KERNEL in s.text or _INVALID_FUNCTION in s.text else 'torch'} says {s.gpu} (compute capability {s.cc}, {sm}) "
                            f"has no kernels in {where}{built}: "
                            "every CUDA op on it fails with 'no kernel image is available for execution on the device'")
        ccs.append(s.cc)
    evidence = {"torch's warning": said[0].text, "GPUs": [f"{s.gpu} ({s.cc})" for s in said]}
    version, cuda = fact(facts, "torch.version"), fact(facts, "torch.cuda")
    fix = None
    if version and cuda and tables.is_release(version):
        tag = tables.build_tag(version, cuda)
        alternative = suggest(facts, exclude_tag=tag, driver=False) if gpus(facts) else None
        if alternative is not None:
            fix = Fix(f"Install {alternative.label}, which has kernels for compute capability {', '.join(sorted(set(ccs)))}; "
                      f"{COMPANIONS}", (alternative.command(pip(facts)),))
    if fix is None:
        arch = ", ".join(sorted(set(ccs), key=tables.cc_int))
        fix = Fix(f"Install a torch build whose arch list covers compute capability {arch} (RTX 50xx/Blackwell: a "
                  "CUDA 12.8 or newer build; Pascal and older: a CUDA 12.6 or older build): the selector at "
                  "https://pytorch.org/get-started/locally/ gives the command; `torchdoctor env` on that machine "
                  "names the exact build")
    return error("; ".join(problems), fix=fix, evidence=evidence, related=("cuda-no-kernel-image",))
