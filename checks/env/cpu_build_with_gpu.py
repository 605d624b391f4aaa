from torchdoctor.data import tables
from torchdoctor.facts.model import known
from torchdoctor.model import Fix, error, ok, warning
from torchdoctor.registry import Example, env_check

from ._cuda import (COMPANIONS, cuda_torch_install, driver_or_branch, example_gpu, fact, gpu_cc, gpu_ccs, gpu_label, gpus, pip,
                    suggest, system, torch_label, torch_said, torch_shown, unknown_need)


RTX4090 = example_gpu("NVIDIA GeForce RTX 4090", "8.9")


@env_check(
    code="TE203",
    name="cpu-build-with-gpu",
    title="Installed torch build can use the NVIDIA GPUs",
    area="torch",
    examples=[
        Example("warning", {"torch": {"warnings": ["AssertionError: Torch not compiled with CUDA enabled"]}},
                "only torch's own error was pasted: the build has no CUDA; whether a GPU is there is unknown",
                contains="CPU-only build"),
        Example("error", {"torch": {"warnings": ["AssertionError: Torch not compiled with CUDA enabled"]},
                          "nvidia": {"driver_version": "591.74", "gpus": [RTX4090]}},
                "torch's error beside a listed GPU", contains="RTX 4090"),
        Example("error", {"torch": {"version": "2.13.0+cpu", "cuda": None, "hip": None},
                          "nvidia": {"driver_version": "580.95.05", "gpus": [RTX4090]}},
                "CPU wheel from the cpu index on a GPU box",
                contains="install torch==2.13.0+cu130 --index-url https://download.pytorch.org/whl/cu130"),
        Example("error", {"torch": {"version": "2.13.0", "cuda": None, "hip": None},
                          "nvidia": {"driver_version": "560.94", "gpus": [example_gpu("NVIDIA GeForce RTX 3060", "8.6")]},
                          "python": {"system": "Windows", "version": "3.12.4"}},
                "Windows: plain `pip install torch` is the CPU build; an R560 driver needs the CUDA 12.6 build",
                contains="torch==2.13.0+cu126"),
        Example("error", {"torch": {"version": "2.13.0+rocm7.2", "cuda": None, "hip": "7.2.26015"},
                          "nvidia": {"driver_version": "580.95.05", "gpus": [RTX4090]}},
                "an AMD ROCm build on an NVIDIA machine", contains="ROCm"),
        Example("warning", {"torch": {"version": "1.9.0", "cuda": None},
                            "packages": {"distributions": [{"name": "torch", "version": "1.9.0", "location": "conda plan"},
                                                           {"name": "cudatoolkit", "version": "11.3",
                                                            "location": "conda install command"}]}},
                "conda fell back to the CPU build beside the cudatoolkit it was asked for", contains="cudatoolkit 11.3"),
        Example("warning", {"torch": {"version": "2.2.0+cpu", "cuda": None, "warnings": [
            "Invalid CUDA 'device=0' requested. Use 'device=cpu' or pass valid CUDA device(s) if available"]}},
                "a CPU wheel, and the code asked for cuda:0; no GPU list", contains="asked for a CUDA device"),
        Example("warning", {"torch": {"version": "2.1.0", "cuda": None},
                            "python": {"system": "Linux", "version": "3.10.13"}},
                "a conda list with the CPU pytorch and nothing about the GPUs", contains="does not say whether"),
        Example("ok", {"torch": {"version": "2.6.0+cpu", "cuda": None}, "nvidia": {"smi_found_nothing": True},
                       "python": {"system": "Linux", "version": "3.12.9"}},
                "collect_env of a CPU laptop: GPU models and driver both 'No CUDA'", contains="nothing to do"),
        Example("ok", {"torch": {"warnings": ["AssertionError: Torch not compiled with CUDA enabled"]},
                       "python": {"system": "Darwin"}},
                "torch's error on a Mac: the code asked for CUDA, which macOS never has", contains="device='mps'"),
        Example("skip", {"torch": {"version": "2.1.0", "cuda": None},
                         "python": {"system": "Darwin", "version": "3.10.13"}},
                "macOS: there is no CUDA build to install, nothing to warn about"),
        Example("ok", {"torch": {"version": "2.13.0+cpu", "cuda": None, "hip": None},
                       "nvidia": {"driver_version": None, "gpus": []}},
                "the healthy laptop", contains="nothing to do"),
        Example("warning", {"torch": {"cuda_available": False},
                            "nvidia": {"gpus": [example_gpu("NVIDIA GeForce RTX 4060 Laptop GPU", "8.9")]},
                            "python": {"system": "Windows"}},
                "a forum post: an RTX 4060, is_available() False, torch's build not said", contains="CPU-only torch"),
        Example("skip", {"torch": {"cuda_available": False, "version": "2.1.0"},
                         "nvidia": {"gpus": [example_gpu("NVIDIA GeForce RTX 3090", "8.6")]},
                         "python": {"system": "Linux"}},
                "is_available() False with a plain Linux version: PyPI's Linux wheel has CUDA, so not this check's cause"),
        Example("ok", {"torch": {"version": "2.13.0+cpu", "cuda": None}, "nvidia": {"gpus": []}},
                "--quick from an old report: torch.hip unknown"),
        Example("ok", {"torch": {"version": "2.13.0+cu130", "cuda": "13.0", "hip": None},
                       "nvidia": {"driver_version": "580.95.05", "gpus": [RTX4090]}}),
        Example("ok", {"torch": {"version": "2.13.0+rocm7.2", "cuda": None, "hip": "7.2.26015"},
                       "nvidia": {"driver_version": None, "gpus": []}}, "ROCm build on an AMD machine"),
    ],
)
def cpu_build_with_gpu(facts):
    """
    ## What it checks
    Whether the installed torch can use the machine's NVIDIA GPUs at all: a CPU-only build
    (`torch.version.cuda` is None, often `+cpu`) or an AMD ROCm build on a machine with NVIDIA
    GPUs. A CPU build on a machine without an NVIDIA GPU is fine: nothing to do.

    ## Why it matters
    A CPU build never sees the GPU: `torch.cuda.is_available()` is False and `.cuda()` raises
    "Torch not compiled with CUDA enabled". It happens when pip picked the CPU wheel (the default
    on Windows, `--index-url .../whl/cpu`, a requirements file pinning `+cpu`) or a package
    reinstalled torch from PyPI.

    ## How to fix
    Reinstall torch from the PyTorch index of a CUDA build that the driver supports and that has
    kernels for the GPUs; the message gives the exact command.
    """
    # Known to be a CPU-only build, on a machine whose GPUs the report does not list.
    cpu_unlisted = fact(facts, "torch.cuda", "unknown") is None and not known(facts.get("nvidia.gpus"))
    said = torch_said(facts, "cpu-build")
    if said and not (known(facts.get("torch.cuda")) and facts.get("torch.cuda")):
        # "Torch not compiled with CUDA enabled" is torch itself saying the build has no CUDA.
        if fact(facts, "python.system") == "Darwin":
            # No NVIDIA GPU runs on macOS and no torch for it has CUDA: the code's request is at fault.
            return ok("macOS has no CUDA (torch for macOS is a CPU and MPS build): 'Torch not compiled with CUDA "
                      "enabled' says the code asked for CUDA; run it on device='mps' (the Apple GPU) or 'cpu'",
                      **{"torch's error": said[0].text})
        if not known(facts.get("nvidia.gpus")):
            return _from_error(facts, said[0].text)
        cuda = None
    elif (asked := torch_said(facts, "cuda-asked")) and cpu_unlisted:
        return _from_request(facts, asked[0].text)
    else:
        if cpu_unlisted:
            toolkit = _cuda_toolkit_package(facts)
            if toolkit:
                return _beside_toolkit(facts, toolkit)
            if (not fact(facts, "torch.hip") and "+rocm" not in (fact(facts, "torch.version") or "")
                    and fact(facts, "python.system") != "Darwin"):
                return _gpus_unknown(facts)
        gap = unknown_need(facts, "torch.cuda", "nvidia.gpus")
        if gap is not None:
            return _unavailable_beside_gpu(facts) or gap
        cuda = facts.torch.cuda
    hip = fact(facts, "torch.hip")
    label = torch_label(facts)
    found = gpus(facts)
    if cuda:
        return ok(f"{label} is a CUDA {cuda} build")
    if not found:
        if hip:
            return ok(f"{label} is a ROCm {hip} build, and there is no NVIDIA GPU here")
        return ok("CPU build on a machine without NVIDIA GPU: nothing to do", torch=torch_shown(label))

    names = ", ".join(gpu_label(g, gpu_cc(g) or "model not in the report") for g in found)
    evidence = {"torch": torch_shown(label), "torch.version.cuda": None, "torch.version.hip": hip, "NVIDIA GPUs": names,
                "driver": fact(facts, "nvidia.driver_version") if known(facts.get("nvidia.driver_version")) else "not in the report"}
    has = "an NVIDIA GPU" if len(found) == 1 else f"{len(found)} NVIDIA GPUs"
    if hip:
        them = "it" if len(found) == 1 else "them"
        problem = f"{label} is an AMD ROCm build, but this machine has {has}: {names}; torch cannot use {them}"
    else:
        problem = (f"{label} is a CPU-only build, but this machine has {has}: {names}; "
                   "torch.cuda.is_available() is False and .cuda() raises 'Torch not compiled with CUDA enabled'")
    build = suggest(facts)
    if build is None:
        fix = Fix("Install a CUDA build of torch that your driver supports (see https://pytorch.org/get-started/locally/)",
                  (cuda_torch_install(facts),))
    else:
        fix = Fix(f"Reinstall torch as {build.label}, {_fits(facts, build)}; {COMPANIONS}", (build.command(pip(facts)),))
    return error(problem, fix=fix, evidence=evidence, related=("cuda-not-compiled",))


def _unavailable_beside_gpu(facts):
    """torch.cuda.is_available() said False on a machine whose NVIDIA GPU the report names, with torch's
    build not in the report (a forum post: "I have an RTX 4060 but is_available() is False"). A CPU-only
    torch is the usual cause there, and the one this check is about, but the report cannot show it: a
    warning that says so and what to run. Not where the stated torch rules it out: a +cu/+rocm tag, or a
    plain version off Windows (PyPI's Linux wheels are CUDA builds)."""
    if fact(facts, "torch.cuda_available", "unknown") is not False or fact(facts, "python.system") == "Darwin":
        return None
    found = gpus(facts) if known(facts.get("nvidia.gpus")) else []
    if not found:
        return None
    version = fact(facts, "torch.version")
    tag = (tables.local_tag(version) or "") if version else "cpu"
    if tag.startswith(("cu", "rocm")) or (tag != "cpu" and fact(facts, "python.system") not in (None, "Windows")):
        return None
    names = ", ".join(gpu_label(g, gpu_cc(g) or "model not in the report") for g in found)
    label = torch_label(facts)
    return warning(f"torch.cuda.is_available() is False on a machine with {names}, and the report does not show "
                   "torch's build (torch.version.cuda): the usual cause is a CPU-only torch (plain `pip install "
                   "torch` on Windows, a requirements file, or another package reinstalling torch from PyPI); a "
                   "driver too old for a CUDA build is the other (TE201)",
                   fix=Fix("Print torch's build: None (or a +cpu version) means a CPU-only torch, to reinstall from a "
                           f"CUDA index that the driver supports; {COMPANIONS}",
                           ("python -c \"import torch; print(torch.__version__, torch.version.cuda)\"",
                            cuda_torch_install(facts))),
                   evidence={"torch": torch_shown(label), "torch.cuda.is_available()": False, "NVIDIA GPUs": names,
                             "torch.version.cuda": "not in the report"},
                   related=("cuda-not-compiled",))


def _fits(facts, build) -> str:
    """Why that build: what the facts show it fits, and what the user must check where they do not show it (a
    vLLM report of a CPU torch lists the GPUs only in its topology matrix: no model, no driver)."""
    driver, ccs = driver_or_branch(facts), gpu_ccs(facts)
    if driver and ccs:
        return "which this driver and GPU support"
    floor, _ = tables.wheel_driver(build.tag, system(facts))
    need = f"it needs driver {floor} or newer" if floor else "its driver need is on pytorch.org"
    unseen = " and the GPU models" if not ccs else ""
    return (f"which this driver supports (the report does not name the GPU models: check they are in its "
            f"architecture list)" if driver else
            f"if this machine's driver is new enough: {need}, and the report does not show the driver{unseen} "
            f"(`nvidia-smi` does)")


# conda packages that only a CUDA install brings: the pytorch channel's cudatoolkit (to 1.13) and
# pytorch-cuda (2.0 on). conda installs a CPU pytorch beside them when no CUDA build of the asked
# torch fits the asked CUDA and Python (pytorch#32369, #69202).
_TOOLKIT_PACKAGES = ("cudatoolkit", "pytorch-cuda")


def _cuda_toolkit_package(facts):
    dists = fact(facts, "packages.distributions") if known(facts.get("packages.distributions")) else None
    return next((d for d in dists or [] if d.name in _TOOLKIT_PACKAGES), None)


def _beside_toolkit(facts, toolkit):
    """A CPU build in an environment that asked for CUDA, with no GPU list: conda's silent CPU fallback."""
    label = torch_label(facts)
    return warning(f"{label} is a CPU-only build, but this environment has {toolkit.name} {toolkit.version}: the install "
                   "asked for CUDA and conda fell back to the CPU build (no CUDA build of that torch for that CUDA and "
                   "Python), so torch.cuda.is_available() is False; the report does not list the GPUs",
                   fix=Fix("Ask for a torch release and CUDA version the pytorch channel builds together (the install "
                           "selector on pytorch.org, or its previous-versions page), or install the CUDA wheel with "
                           f"pip; {COMPANIONS}",
                           ("conda install pytorch torchvision torchaudio pytorch-cuda=<cuda-version> -c pytorch -c nvidia",
                            cuda_torch_install(facts))),
                   evidence={"torch": torch_shown(label), "torch.version.cuda": None, toolkit.name: f"{toolkit.version} ({toolkit.location})"},
                   related=("cuda-not-compiled",))


def _gpus_unknown(facts):
    """A CPU-only build, and the report says nothing of the GPUs (a conda list, a pip list, a banner, a
    report cut short). Most reports of a CPU build outside macOS come from someone whose GPU sits unused,
    but the report cannot show it, hence a warning that says what to look at. macOS is spared: no
    CUDA build exists for it. Where collect_env's nvidia-smi found neither driver nor GPU, the CPU build
    fits what the report shows."""
    label = torch_label(facts)
    if fact(facts, "nvidia.smi_found_nothing"):
        return ok("CPU build, and the report's nvidia-smi found no NVIDIA driver or GPU: nothing to do", torch=torch_shown(label))
    return warning(f"{label} is a CPU-only build (torch.version.cuda is None): it cannot use an NVIDIA GPU, and "
                   "torch.cuda.is_available() is False; the report does not say whether this machine has one",
                   fix=Fix("If `nvidia-smi` lists a GPU that torch should use: reinstall torch from a CUDA index that "
                           f"the driver supports; {COMPANIONS}. Without an NVIDIA GPU this build is right: nothing to do",
                           (cuda_torch_install(facts),)),
                   evidence={"torch": torch_shown(label), "torch.version.cuda": None, "NVIDIA GPUs": "not in the report"},
                   related=("cuda-not-compiled",))


def _from_request(facts, text):
    """The code asked for a CUDA device (torch.load of a CUDA checkpoint, a --device 0) beside a torch
    known to be a CPU-only build, and the report names no GPU: a GPU machine with the wrong wheel, or
    GPU code run on a CPU machine. The report cannot say which, hence a warning."""
    label = torch_label(facts)
    shown = text if len(text) <= 140 else text[:139].rsplit(" ", 1)[0] + "…"
    return warning(f"{label} is a CPU-only build and the code asked for a CUDA device ({shown}); the report does not "
                   "say whether this machine has an NVIDIA GPU",
                   fix=Fix("With an NVIDIA GPU (`nvidia-smi` lists it): reinstall torch from a CUDA index that the "
                           f"driver supports; {COMPANIONS}. Without one: run on the CPU (device='cpu', "
                           "torch.load(..., map_location='cpu'))",
                           (cuda_torch_install(facts),)),
                   evidence={"torch": torch_shown(label), "torch.version.cuda": None, "the code's error": text},
                   related=("cuda-not-compiled",))


def _from_error(facts, text):
    """torch raised "Torch not compiled with CUDA enabled" and the report names no GPU: the build is
    certainly CPU-only, but whether that is the environment's fault (a GPU it cannot use) or the
    code's (asking for CUDA on a CPU machine) the report does not say, hence a warning."""
    label = torch_label(facts)
    label = label if label != "torch" else "The installed torch"
    return warning(f"{label} is a CPU-only build (torch says: Torch not compiled with CUDA enabled) and the code asked "
                 "for CUDA; the report does not say whether this machine has an NVIDIA GPU",
                 fix=Fix("With an NVIDIA GPU (`nvidia-smi` lists it): reinstall torch from a CUDA index that the driver "
                         f"supports; {COMPANIONS}. Without one: run on the CPU (device='cpu')",
                         (cuda_torch_install(facts),)),
                 evidence={"torch's error": text}, related=("cuda-not-compiled",))
