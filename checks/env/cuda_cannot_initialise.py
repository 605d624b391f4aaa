from torchdoctor.data import tables
from torchdoctor.facts.model import known
from torchdoctor.model import Fix, ok, skip, warning
from torchdoctor.registry import Example, env_check

from ._cuda import example_gpu, fact, gpus, pip, torch_label, torch_shown
from ._install import base_version, index_url

_CUDA13 = {"version": "2.13.0+cu130", "cuda": "13.0", "hip": None}
_NO_DRIVER = {"driver_version": None, "cuda_driver_version": None, "kernel_module_version": None,
              "nvml_error": "NVML Shared Library Not Found", "gpus": []}


@env_check(
    code="TE211",
    name="cuda-cannot-initialise",
    title="A CUDA build of torch finds an NVIDIA driver and a GPU",
    area="NVIDIA driver & GPUs",
    needs=("torch.cuda",),
    examples=[
        Example("warning", {"torch": {**_CUDA13, "cuda_available": False, "device_count": 0},
                            "nvidia": _NO_DRIVER, "python": {"container": "docker"}},
                "a container started without --gpus", contains="docker run --gpus all"),
        Example("warning", {"torch": _CUDA13, "nvidia": _NO_DRIVER, "python": {"container": None, "wsl": False}},
                "--quick on a machine without the NVIDIA driver", contains="whl/cpu"),
        Example("warning", {"torch": _CUDA13, "nvidia": _NO_DRIVER, "python": {"container": "kubernetes"}},
                "a pod that did not request a GPU", contains="nvidia.com/gpu"),
        Example("warning", {"torch": _CUDA13, "nvidia": _NO_DRIVER, "python": {"container": None, "wsl": True}},
                "WSL without the Windows driver's CUDA support", contains="Windows"),
        Example("warning", {"torch": _CUDA13, "nvidia": {**_NO_DRIVER, "driver_version": "580.95.05",
                                                         "nvml_error": None}},
                "the driver is loaded but it sees no GPU", contains="no GPU"),
        Example("ok", {"torch": {**_CUDA13, "cuda_available": True, "device_count": 1},
                       "nvidia": {"driver_version": "580.95.05", "gpus": [example_gpu("NVIDIA H100 80GB HBM3", "9.0")]}}),
        Example("ok", {"torch": _CUDA13,
                       "nvidia": {"driver_version": "580.95.05", "gpus": [example_gpu("NVIDIA H100 80GB HBM3", "9.0")]}},
                "--quick: a driver and a GPU are there"),
        Example("warning", {"torch": {**_CUDA13, "cuda_available": False, "device_count": 0, "warnings": [
            "UserWarning: CUDA initialization: The NVIDIA driver on your system is too old (found version 12020)."]},
                            "nvidia": {"driver_version": "580.95.05", "gpus": [example_gpu("NVIDIA A100-SXM4-80GB", "8.0")]}},
                "GPUs listed and the driver is new enough, but torch's import said CUDA did not start",
                contains="warned why"),
        Example("skip", {"torch": {**_CUDA13, "cuda_available": False},
                         "nvidia": {"driver_version": "535.104.05", "gpus": [example_gpu("NVIDIA A100-SXM4-80GB", "8.0")]}},
                "the driver is too old: TE201 says so"),
        Example("skip", {"torch": {"version": "2.13.0+cpu", "cuda": None}, "nvidia": _NO_DRIVER}, "a CPU build"),
        Example("skip", {"torch": _CUDA13}, "nothing known about the driver or the import"),
    ],
)
def cuda_cannot_initialise(facts):
    """
    ## What it checks
    A CUDA build of torch (`torch.version.cuda` set) on a machine where CUDA cannot start: no
    NVIDIA driver is visible (NVML's library is missing, as in a container started without
    `--gpus`), or the driver is loaded but lists no GPU, or torch itself reported
    `torch.cuda.is_available() == False` with no GPU in sight.

    ## Why it matters
    Nothing fails at install or import time: torch imports, `torch.cuda.is_available()` returns
    False, and the first `.cuda()` raises "Found no NVIDIA driver on your system" or the job
    quietly trains on the CPU. Driver-version checks have nothing to compare, so without this
    check the report would end "No problems found".

    ## How to fix
    Give the process the GPU: `docker run --gpus all` (with the NVIDIA Container Toolkit on the
    host), a `nvidia.com/gpu` resource limit in Kubernetes, the NVIDIA driver on a bare machine,
    or the Windows driver's CUDA support under WSL. If this machine is meant to run on the CPU,
    install the CPU build, which is a fraction of the download.
    """
    cuda = facts.torch.cuda
    if not cuda:
        return skip("torch is not a CUDA build")
    label = torch_label(facts)
    driver = fact(facts, "nvidia.driver_version", "unknown")
    found = gpus(facts)
    available = fact(facts, "torch.cuda_available")
    if available is True:
        count = fact(facts, "torch.device_count")
        return ok(f"{label} initialises CUDA: {count} device(s) visible" if count is not None
                  else f"{label} initialises CUDA (torch.cuda.is_available() is True; the device count is not known)")
    if driver == "unknown" and available is None:
        return skip("neither the NVIDIA driver nor torch.cuda.is_available() is known")
    if driver not in (None, "unknown") and found and available is False:
        floor, _ = tables.min_driver_for_cuda(str(cuda))
        if floor and not tables.driver_at_least(driver, floor):
            return skip(f"CUDA does not initialise: the driver {driver} is older than CUDA {cuda} needs (TE201's business)")
        visible = (fact(facts, "env.variables") or {}).get("CUDA_VISIBLE_DEVICES")
        if visible is not None:
            return skip(f"CUDA does not initialise with CUDA_VISIBLE_DEVICES={visible!r} (TE205's business)")
        said = [w for w in fact(facts, "torch.warnings", []) or [] if "CUDA initialization" in w or "driver" in w]
        evidence = {"torch": torch_shown(label), "torch.cuda.is_available()": False, "NVIDIA driver": driver,
                    "GPUs listed by the driver": len(found)}
        if said:
            evidence["torch said"] = said[0]
        return warning(f"{label} cannot initialise CUDA although the NVIDIA driver {driver} lists "
                       f"{len(found)} GPU{'s' if len(found) != 1 else ''}: torch.cuda.is_available() is False"
                       + (" and torch's import warned why (below)" if said else ""),
                       fix=Fix("Read torch's own warning above; the driver and visibility checks (TE201, TE205) "
                               "name the usual causes", ("nvidia-smi", "env | grep -E 'CUDA_VISIBLE_DEVICES|NVIDIA_VISIBLE_DEVICES'")),
                       evidence=evidence, related=("cuda-driver-too-old",))
    if driver not in (None, "unknown") and found:
        return ok(f"{label} is a CUDA {cuda} build and the NVIDIA driver {driver} lists "
                  f"{len(found)} GPU{'s' if len(found) != 1 else ''}")
    if driver == "unknown" and fact(facts, "nvidia.gpus") is None and available is False:
        return skip("torch.cuda.is_available() is False, but the NVIDIA facts are unknown; the other TE2xx checks say why")

    if driver not in (None, "unknown") and not known(facts.get("nvidia.gpus")):
        # A pasted nvidia-smi banner line without its GPU table: the GPUs are unknown, not absent.
        return skip(f"the NVIDIA driver {driver} is known but not the GPUs it lists (nvidia.gpus: "
                    f"{facts.get('nvidia.gpus').reason})")
    evidence = {"torch": torch_shown(label), "torch.version.cuda": cuda}
    if available is False:
        evidence["torch.cuda.is_available()"] = False
    nvml_error = fact(facts, "nvidia.nvml_error")
    if nvml_error:
        evidence["NVML"] = nvml_error
    if driver is None:
        evidence["NVIDIA driver"] = "none found"
        where = "there is no NVIDIA driver"
    else:
        evidence["NVIDIA driver"] = driver
        evidence["GPUs listed by the driver"] = 0
        where = f"the NVIDIA driver {driver} lists no GPU"
    container = fact(facts, "python.container")
    wsl = fact(facts, "python.wsl") is True
    if container:
        evidence["container"] = container
        where += f" inside this {container} container"
    floor, _ = tables.min_driver_for_cuda(str(cuda))
    need = f"an NVIDIA driver {floor} or newer" if floor else "an NVIDIA driver"
    version = fact(facts, "torch.version")
    cpu_build = (f"{pip(facts)} install torch=={base_version(version)} --index-url {tables.INDEX_URL}/cpu"
                 if version else f"{pip(facts)} install torch --index-url {tables.INDEX_URL}/cpu")
    if container == "kubernetes":
        fix = Fix("Request a GPU for the pod (resources.limits nvidia.com/gpu: 1) on a node with the NVIDIA "
                  "device plugin; or, if this pod is meant to run on the CPU, install the CPU build",
                  ("kubectl describe node <node> | grep nvidia.com/gpu", cpu_build))
    elif container:
        fix = Fix(f"Start the container with the GPUs (the host needs {need} and the NVIDIA Container "
                  "Toolkit); or, if it is meant to run on the CPU, install the CPU build",
                  ("docker run --gpus all <image> <command>", cpu_build))
    elif wsl:
        fix = Fix("Install the NVIDIA driver on Windows (its WSL support provides libcuda inside WSL) and do not "
                  "install a Linux NVIDIA driver inside WSL; or install the CPU build", ("nvidia-smi", cpu_build))
    elif driver is None:
        fix = Fix(f"Install {need} (or, if this machine has no NVIDIA GPU, install the CPU build)",
                  ("nvidia-smi", cpu_build))
    else:
        fix = Fix("Check that the GPU is visible to this process (nvidia-smi, NVIDIA_VISIBLE_DEVICES, "
                  "CUDA_VISIBLE_DEVICES); or install the CPU build", ("nvidia-smi -L", cpu_build))
    return warning(f"{label} is a CUDA {cuda} build, but {where}: CUDA cannot initialise here, so "
                   "torch.cuda.is_available() is False and .cuda() raises", fix=fix, evidence=evidence,
                   related=("nvidia-driver-not-found",))
