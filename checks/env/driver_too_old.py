from packaging.version import Version

from torchdoctor.data import tables
from torchdoctor.facts.model import known
from torchdoctor.model import Fix, Status, error, ok, skip, warning
from torchdoctor.registry import Example, env_check

from ._cuda import (COMPANIONS, driver_branch, driver_or_branch, example_gpu, fact, pip, suggest, system, torch_label,
                    torch_said, unknown_need)

_GPU = example_gpu("NVIDIA GeForce RTX 4090", "8.9")


@env_check(
    code="TE201",
    name="driver-too-old",
    title="NVIDIA driver new enough for torch's CUDA build",
    area="NVIDIA driver & GPUs",
    examples=[
        Example("warning", {"torch": {"version": "1.2.0", "cuda": "10.0", "warnings": [
            "msg is that my Nvidia version is too old"]}},
                "the verdict retold in the reporter's words (pytorch#28195): a warning, said as the report's",
                contains="the report says torch found the NVIDIA driver too old"),
        Example("error", {"torch": {"version": "2.7.0+cu128", "cuda": "12.8", "warnings": [
            "the provided PTX was compiled with an unsupported toolchain"]}},
                "only the CUDA runtime's PTX error was pasted: the driver's JIT is older than the PTX",
                contains="cannot compile the PTX"),
        Example("error", {"torch": {"version": "2.1.0+cu121", "cuda": "12.1", "warnings": [
                    "The NVIDIA driver on your system is too old (found version 11040)."]}},
                "a pasted report cut before the driver line: torch's own warning decides", contains="CUDA 11.4"),
        Example("ok", {"torch": {"version": "2.5.1+cu121", "cuda": "12.1", "cuda_available": True},
                       "nvidia": {"driver_version": "470.223.02"}},
                "below the floor, but CUDA initialised: a forward-compatibility package is in use",
                contains="forward-compatibility"),
        Example("error", {"torch": {"version": "2.13.0+cu130", "cuda": "13.0"},
                          "nvidia": {"driver_version": "550.54.15", "cuda_driver_version": "12.4", "gpus": [_GPU]}},
                "a CUDA 13 build on an R550 driver: the CUDA 12.6 build of the same release fits",
                contains="python -m pip install torch==2.13.0+cu126 --index-url https://download.pytorch.org/whl/cu126"),
        Example("error", {"torch": {"version": "2.11.0", "cuda": "13.0"},
                          "nvidia": {"driver_version": "570.172.08", "cuda_driver_version": "12.8"}},
                "plain `pip install torch` has been a CUDA 13 build since 2.11", contains="580.65.06"),
        Example("error", {"torch": {"version": "2.4.1+cu121", "cuda": "12.1"},
                          "nvidia": {"driver_version": "470.82.01", "cuda_driver_version": "11.4"}},
                "below the CUDA 12 family floor; the CUDA 11.8 build still runs on R470",
                contains="torch==2.4.1+cu118"),
        Example("error", {"torch": {"version": "1.4.0", "cuda": "10.1"},
                          "nvidia": {"driver_version": "410.104", "gpus": [example_gpu("GeForce GTX 1080 Ti", "6.1")]},
                          "python": {"version": "3.7.4", "system": "Linux"}},
                "torch 1.4's PyPI wheel (CUDA 10.1) on an R410 driver: its CUDA 9.2 wheel, as pytorch.org's "
                "previous-versions page installs it", contains="torch==1.4.0+cu92 -f https://download.pytorch.org/whl/torch_stable.html"),
        Example("error", {"torch": {"version": "1.0.1", "cuda": "10.0"},
                          "nvidia": {"driver_version": "390.116", "gpus": [example_gpu("Tesla K80", "3.7")]},
                          "python": {"version": "3.6.8", "system": "Linux"}},
                "torch 1.0.1 for CUDA 10.0 on an R390 driver: the same release's CUDA 9.0 wheel, from its own folder",
                contains="torch==1.0.1 --no-index -f https://download.pytorch.org/whl/cu90/torch_stable.html"),
        Example("error", {"torch": {"version": "2.13.0+cu130", "cuda": "13.0"},
                          "nvidia": {"driver_version": "560.94", "cuda_driver_version": "12.6"},
                          "python": {"system": "Windows", "version": "3.12.4"}},
                "Windows: CUDA 13 wheels need 580.88 (PyTorch 2.12 release blog)", contains="580.88"),
        Example("error", {"torch": {"version": "2.8.0+cu128", "cuda": "12.8"},
                          "nvidia": {"driver_version": "527.56"}, "python": {"system": "Windows", "version": "3.12.4"}},
                "Windows CUDA 12.x minor-version floor is 528.33, above the 12.0 GA driver 527.41", contains="528.33"),
        Example("ok", {"torch": {"version": "2.8.0+cu128", "cuda": "12.8"},
                       "nvidia": {"driver_version": "528.33"}, "python": {"system": "Windows", "version": "3.12.4"}},
                "exactly at the Windows CUDA 12.x floor", contains="minor-version compatibility"),
        Example("ok", {"torch": {"version": "2.13.0+cu130", "cuda": "13.0"},
                       "nvidia": {"driver_version": "580.65.06", "cuda_driver_version": "13.0"}},
                "exactly at the CUDA 13 floor", contains="580.65.06"),
        Example("ok", {"torch": {"version": "2.8.0+cu128", "cuda": "12.8"},
                       "nvidia": {"driver_version": "535.104.05", "cuda_driver_version": "12.2"}},
                "between the family floor and the 12.8 driver: minor-version compatibility",
                contains="minor-version compatibility"),
        Example("ok", {"torch": {"version": "2.8.0+cu128", "cuda": "12.8"},
                       "nvidia": {"driver_version": "525.60.13"}},
                "exactly at the CUDA 12 floor"),
        Example("ok", {"torch": {"version": "2.8.0+cu128", "cuda": "12.8"},
                       "nvidia": {"driver_version": "580.95.05", "cuda_driver_version": "13.0"}},
                "a newer driver runs older CUDA builds"),
        Example("error", {"torch": {"version": "2.4.1+cu121", "cuda": "12.1"},
                          "nvidia": {"driver_version": {"unknown": "not in the report"}, "cuda_driver_version": "11.4"},
                          "python": {"system": "Linux", "version": "3.10.12"}},
                "only the driver's CUDA is known (nvidia-smi's banner cut, conda's __cuda): 11.4 cannot run a CUDA 12 build",
                contains="torch==2.4.1+cu118"),
        Example("ok", {"torch": {"version": "2.8.0+cu128", "cuda": "12.8"},
                       "nvidia": {"driver_version": {"unknown": "not in the report"}, "cuda_driver_version": "12.2"}},
                "only the driver's CUDA is known, same major: minor-version compatibility",
                contains="minor-version compatibility"),
        Example("skip", {"torch": {"version": "2.1.0+cu118", "cuda": "11.8"},
                         "nvidia": {"driver_version": {"unknown": "not in the report"}, "cuda_driver_version": "11.0"}},
                "CUDA 11.0's driver may be below the 11.x family floor: the driver's CUDA alone cannot decide"),
        Example("error", {"torch": {"version": "2.3.1+cu121", "cuda": "12.1"},
                          "nvidia": {"driver_version": {"unknown": "the text names driver 470 without its minor version"},
                                     "driver_branch": "470"}},
                "a pasted text names the driver's branch alone ('驱动 470'): R470 is below the CUDA 12 family's R525",
                contains="torch==2.3.1+cu118"),
        Example("ok", {"torch": {"version": "2.5.1+cu124", "cuda": "12.4"},
                       "nvidia": {"driver_version": {"unknown": "the text names driver 535 without its minor version"},
                                  "driver_branch": "535"}},
                "the branch alone, above the floor's branch: decided", contains="R535"),
        Example("skip", {"torch": {"version": "2.5.1+cu124", "cuda": "12.4"},
                         "nvidia": {"driver_version": {"unknown": "the text names driver 525 without its minor version"},
                                    "driver_branch": "525"}},
                "the branch alone, the floor's own branch (525.60.13): its minor version decides"),
        Example("error", {"torch": {"warnings": ["Error 804: forward compatibility was attempted on non supported HW"]},
                           "nvidia": {"driver_version": "470.182.03", "cuda_driver_version": "11.4"}},
                "an image's cuda-compat refused on a GeForce (NGC-style, torch's CUDA not stated): compat is tried only "
                "above the kernel driver", contains="older than the CUDA this software was built for"),
        Example("ok", {"torch": {"version": "2.5.1+cu121", "cuda": "12.1", "warnings": [
                          "Error 804: forward compatibility was attempted on non supported HW"]},
                       "nvidia": {"driver_version": "550.54.15", "cuda_driver_version": "12.4"}},
                "Error 804 where the driver does fit the torch listed: the versions decide, TE204 names the compat library"),
        Example("skip", {"torch": {"version": "2.13.0+cpu", "cuda": None},
                         "nvidia": {"driver_version": "580.65.06"}}, "CPU build: TE203's business"),
        Example("skip", {"torch": {"version": "2.13.0+cu130", "cuda": "13.0"},
                         "nvidia": {"driver_version": None}}, "no NVIDIA driver at all"),
    ],
)
def driver_too_old(facts):
    """
    ## What it checks
    The NVIDIA driver version against the minimum that torch's CUDA build needs: the toolkit
    driver of that CUDA release, or, through CUDA minor-version compatibility, the floor of its
    CUDA family (11.x: 450.80.02, 12.x: 525.60.13, 13.x: 580.65.06 on Linux).

    ## Why it matters
    Below the family floor CUDA does not initialise: torch warns "The NVIDIA driver on your
    system is too old", `torch.cuda.is_available()` returns False and CUDA calls fail with "CUDA
    driver version is insufficient for CUDA runtime version". Since torch 2.11 a plain
    `pip install torch` on Linux is a CUDA 13 build that needs an R580 driver, so machines on
    R535/R550/R570 drivers lose their GPU after an upgrade. Between the floor and the toolkit
    driver everything runs, except JIT compilation of PTX made by the newer toolkit ("the
    provided PTX was compiled with an unsupported toolchain").

    ## How to fix
    Upgrade the driver, or install the CUDA build of the same torch release that the driver
    supports (`--index-url https://download.pytorch.org/whl/cu126` and the like); the message
    names the newest one that fits.
    """
    result = _judge(facts)
    said = torch_said(facts, "driver")
    if result.status is Status.SKIP and said:
        # The facts to judge are missing (a pasted report cut short, only a warning pasted):
        # torch's own warning, printed on that machine, is the evidence left.
        return _from_warning(facts, said[0])
    compat = [s for s in torch_said(facts, "forward-compat") if s.package == "804"]
    if result.status is Status.SKIP and compat:
        return _from_error_804(facts, compat[0])
    if result.status is Status.OK and said and facts.get("meta.source") != "local":
        # A paste that lists a working pair and quotes torch's refusal: the two come from different moments
        # (a report from before an update, the error after it). The refusal is what the user is asking about.
        return warning("torch's own message in this text says the NVIDIA driver is too old for the CUDA runtime, though "
                       "the driver and torch build it lists fit: the message came from another torch build than the one "
                       "listed (an update, another environment). Check the build that raised it (python -c \"import "
                       "torch; print(torch.__version__, torch.version.cuda)\") against the driver",
                       fix=Fix("Upgrade the NVIDIA driver, or install the torch build for the CUDA this driver supports: "
                               "https://pytorch.org/get-started/previous-versions/"),
                       evidence={"torch's message": said[0].text, "listed": result.message, **result.evidence},
                       related=("cuda-driver-too-old",))
    return result


def _judge(facts):
    gap = unknown_need(facts, "torch.cuda", "nvidia.driver_version")
    branch = driver_branch(facts)
    if gap is not None and not (branch is not None and fact(facts, "torch.cuda")):
        # Without the driver's number, the CUDA version it supports may still decide (None when that or torch's CUDA is
        # unknown); without torch's CUDA, its release may (every CUDA build of it needing a newer driver).
        return _from_driver_cuda(facts) or _whichever_build(facts) or gap
    cuda = facts.torch.cuda
    driver = facts.nvidia.driver_version if gap is None else f"R{branch} (its minor version not given)"
    if cuda is None:
        return skip("torch is not a CUDA build; no driver requirement")
    if driver is None:
        return skip("no NVIDIA driver on this machine")

    os_name = system(facts)
    version = fact(facts, "torch.version")
    tag = tables.build_tag(version, cuda)
    floor, _ = tables.wheel_driver(tag, os_name)
    ga_driver = tables.toolkit_driver(cuda, os_name)  # the driver that supports CUDA X.Y itself
    if floor is None:
        return skip(f"no driver table entry for CUDA {cuda}", torch_cuda=cuda)
    max_cuda = fact(facts, "nvidia.cuda_driver_version")
    label = torch_label(facts) if tables.local_tag(version or "") else f"{torch_label(facts)} (CUDA {cuda})"
    if gap is not None:
        # The branch alone: the floor's branch compared, a floor inside the same branch left open.
        floor_branch = tables.driver_tuple(floor)[0]
        if branch == floor_branch:
            return _from_driver_cuda(facts) or gap
        if branch > floor_branch:
            evidence = {"driver": driver, "torch CUDA": cuda, "family floor": floor, f"CUDA {cuda} driver": ga_driver}
            if ga_driver and branch <= tables.driver_tuple(ga_driver)[0]:
                evidence["note"] = (f"CUDA {cuda}'s own driver is {ga_driver}: below it, JIT-compiling the build's PTX "
                                    "fails with 'the provided PTX was compiled with an unsupported toolchain'")
            return ok(f"driver branch R{branch} is newer than the floor of {label} ({floor})", **evidence)
    evidence = {"driver": driver, "torch CUDA": cuda, "driver's CUDA": max_cuda, "family floor": floor,
                f"CUDA {cuda} driver": ga_driver}

    have = driver_or_branch(facts)  # a branch below the floor's: compared as its first release
    if (max_cuda and Version(max_cuda) >= Version(cuda)) or (ga_driver and tables.driver_at_least(have, ga_driver)):
        return ok(f"driver {driver} supports CUDA {cuda} ({label})", **evidence)
    if tables.driver_at_least(have, floor):
        evidence["note"] = (f"driver {driver} is older than CUDA {cuda}'s own driver ({ga_driver or 'not published'}): "
                            f"{label} runs through CUDA minor-version compatibility, but JIT-compiling its PTX "
                            "(a GPU without native kernels in the build) fails with 'the provided PTX was compiled "
                            "with an unsupported toolchain' until the driver is upgraded")
        return ok(f"driver {driver} runs {label} through CUDA minor-version compatibility (floor {floor})", **evidence)

    if fact(facts, "torch.cuda_available") is True:
        # Only a newer libcuda from a CUDA forward-compatibility package (cuda-compat, as in NGC
        # and vLLM containers) lets CUDA start below the floor; TE204 judges that setup.
        evidence["note"] = "torch.cuda.is_available() is True below the driver floor"
        return ok(f"driver {driver} is below the floor of {label} ({floor}), yet CUDA initialised: a CUDA "
                  "forward-compatibility package (cuda-compat) supplies a newer libcuda; TE204 checks that setup",
                  **evidence)

    branch = f"R{tables.driver_tuple(floor)[0]}"
    # On Windows NVIDIA publishes no CUDA 13 floor, only the branch: then `floor` is "580".
    need = f"driver >= {floor}" if "." in floor else f"an {branch} driver or newer"
    alternative = suggest(facts, exclude_tag=tag)
    install = alternative.command(pip(facts)) if alternative else None
    if version and tables.local_tag(version) is None and tag.startswith("cu13"):  # the PyPI default wheel
        first = next(r["torch"] for r in tables.releases() if r["pypi_default_cuda"].startswith("cu13"))
        evidence["note"] = (f"plain `pip install torch` has installed a CUDA 13 build since torch {first}; "
                            "those need an R580 driver")
    symptom = ("CUDA cannot initialise ('The NVIDIA driver on your system is too old', "
               "torch.cuda.is_available() is False)")
    if alternative:
        message = (f"{label} needs {need}; you have {driver}: upgrade the driver, or install "
                   f"{alternative.label}: {install}. Until then {symptom}")
        fix = Fix(f"Upgrade the NVIDIA driver ({need}, {branch} branch), or install {alternative.label}, "
                  f"which driver {driver} supports; {COMPANIONS}", (install,))
    else:
        # The release table starts at torch 1.8: older builds (cu92/cu100) may run on this driver,
        # so the claim is limited to what the table covers.
        oldest = tables.releases()[0]["torch"]
        message = (f"{label} needs {need}; you have {driver}, and no official build of torch {oldest} or later for your "
                   f"Python runs on it: upgrade the driver. Until then {symptom}")
        fix = Fix(f"Upgrade the NVIDIA driver ({need}, {branch} branch)")
    return error(message, fix=fix, evidence=evidence, related=("cuda-driver-too-old",))


def _whichever_build(facts):
    """torch's CUDA unknown (a report names a CUDA version without saying whose, or none) but its release and the
    driver's number known: when every official CUDA build of that release needs a newer driver than this one, which
    CUDA build is installed does not matter. A warning: a CPU build of that release needs no driver at all. None
    when that does not decide."""
    version, driver = fact(facts, "torch.version"), fact(facts, "nvidia.driver_version")
    if known(facts.get("torch.cuda")) or not isinstance(version, str) or not isinstance(driver, str) or not driver:
        return None
    if tables.local_tag(version) or not tables.is_release(version):
        return None
    os_name = system(facts)
    floors = {b["tag"]: tables.wheel_driver(b["tag"], os_name)[0] for b in tables.builds(version)}
    if not floors or any(f is None or "." not in f for f in floors.values()):
        return None
    if any(tables.driver_at_least(driver, f) for f in floors.values()):
        return None
    release = tables.base_version(version)
    lowest = min(floors.values(), key=tables.driver_tuple)
    builds = ", ".join(f"{tag}: >= {floor}" for tag, floor in floors.items())
    return warning(f"driver {driver} is older than every official CUDA build of torch {release} needs ({builds}): "
                   "whichever of them is installed, CUDA cannot initialise ('The NVIDIA driver on your system is too "
                   "old', torch.cuda.is_available() is False); only a CPU build of it would not care",
                   fix=Fix(f"Upgrade the NVIDIA driver (>= {lowest} for the oldest CUDA build of torch {release}; newer "
                           "for the others)"),
                   evidence={"driver": driver, "torch": version, "torch CUDA": str(facts.get("torch.cuda")),
                             "driver floors of its CUDA builds": builds},
                   related=("cuda-driver-too-old",))


def _from_driver_cuda(facts):
    """The driver's number is missing but the CUDA version it supports is known (nvidia-smi's banner
    cut after "CUDA Version: 12.2", conda's `__cuda` virtual package, deviceQuery): that decides
    whenever the majors differ or the driver's CUDA is new enough. Within one major, below torch's
    minor, it decides where that driver meets the family floor (11.1 on; 11.0's driver does not)."""
    cuda, max_cuda = fact(facts, "torch.cuda"), fact(facts, "nvidia.cuda_driver_version")
    if not cuda or not max_cuda:
        return None
    label = torch_label(facts)
    evidence = {"driver": "unknown", "driver's CUDA": max_cuda, "torch CUDA": cuda}
    have, need = Version(max_cuda), Version(cuda)
    # A driver that supports CUDA X.Y with Y at or past the family floor's release (11.1: 455.23 >= 450.80.02;
    # 12.0 and 13.0: the floor itself) runs every X.* build through minor-version compatibility.
    family = have.major >= 12 or (have.major == 11 and have >= Version("11.1"))
    if have >= need:
        return ok(f"the driver supports CUDA {max_cuda}, enough for {label}", **evidence)
    if have.major == need.major and family:
        return ok(f"the driver supports CUDA {max_cuda}: {label} runs through CUDA minor-version compatibility "
                  f"(JIT-compiling its PTX needs a driver for CUDA {cuda})", **evidence)
    if have.major < need.major:
        def runs_here(_minor, build):  # what this driver's CUDA runs: its own release and older, or its major from 12 on
            b = Version(build["cuda"])
            return b <= have or (b.major == have.major and family)

        tag = tables.build_tag(fact(facts, "torch.version") or "", cuda)
        alternative = suggest(facts, exclude_tag=tag, driver=False, accept=runs_here)
        install = alternative.command(pip(facts)) if alternative else None
        floor, _ = tables.wheel_driver(tag, system(facts))
        need_text = f"a driver >= {floor}" if floor and "." in floor else f"a driver for CUDA {need.major}"
        message = (f"{label} needs {need_text}; this driver supports CUDA {max_cuda} at most: upgrade the driver"
                   + (f", or install {alternative.label}: {install}" if install else "")
                   + ". Until then CUDA cannot initialise (torch.cuda.is_available() is False)")
        fix = Fix(f"Upgrade the NVIDIA driver ({need_text})" + (f", or install {alternative.label}; {COMPANIONS}" if install else ""),
                  (install,) if install else ())
        return error(message, fix=fix, evidence=evidence, related=("cuda-driver-too-old",))
    return None


def _from_warning(facts, said):
    """torch's own "driver too old" verdict, for reports that lack the facts to judge it."""
    if said.package == "nvidia-container-cli":
        return _container_refused(facts, said)
    if said.package == "ngc-container":
        return _container_banner(facts, said)
    cuda = fact(facts, "torch.cuda")
    driver = fact(facts, "nvidia.driver_version")
    label = torch_label(facts)
    supports = (f"supports CUDA {said.driver_cuda} at most" if said.driver_cuda else
                "cannot compile the PTX it was given, which a newer CUDA made (torch's or Triton's kernels)"
                if "PTX" in said.text else "is older than the CUDA runtime")
    built = f"; {label} is built for CUDA {cuda}" if cuda else ""
    retold = said.retold  # the reporter's words for torch's message, not the message
    evidence = {"the report's words" if retold else "torch's warning": said.text, "driver": driver,
                "driver's CUDA": said.driver_cuda, "torch CUDA": cuda}
    # What the paste does not state is left out, not shown as "none" (which reads as "no driver").
    evidence = {key: value for key, value in evidence.items() if value is not None}
    alternative = None
    version = fact(facts, "torch.version")
    if version and cuda and driver:
        alternative = suggest(facts, exclude_tag=tables.build_tag(version, cuda))
    message = (("the report says torch found the NVIDIA driver too old" if retold else "torch says the NVIDIA driver is too old")
               + f": the driver {supports}{built}. "
               + ("Every kernel that needs that PTX fails" if "PTX" in said.text
                  else "CUDA cannot initialise (torch.cuda.is_available() is False)"))
    if alternative:
        install = alternative.command(pip(facts))
        fix = Fix(f"Upgrade the NVIDIA driver, or install {alternative.label}, which driver {driver} supports; "
                  f"{COMPANIONS}", (install,))
    else:
        older = f" (CUDA {said.driver_cuda} or older)" if said.driver_cuda else ""
        fix = Fix(f"Upgrade the NVIDIA driver to one that supports {f'CUDA {cuda}' if cuda else 'the CUDA of your torch build'}, "
                  f"or install a torch build for the CUDA this driver supports{older}: "
                  "https://pytorch.org/get-started/previous-versions/")
    # Retold in a sentence, the verdict may be another tool's: a warning until the driver's version says more.
    return (warning if retold else error)(message, fix=fix, evidence=evidence, related=("cuda-driver-too-old",))


def _from_error_804(facts, said):
    """CUDA's Error 804 without the versions to judge: a cuda-compat libcuda attempts forward compatibility only when
    it is newer than the kernel driver, so the driver is older than the CUDA the software in use was built for (an
    NGC-style image enables cuda-compat for exactly that reason). TE204 says why it fails on this GPU; this says the
    driver is what to change."""
    driver, driver_cuda = fact(facts, "nvidia.driver_version"), fact(facts, "nvidia.cuda_driver_version")
    evidence = {"CUDA said": said.text, "driver": driver, "driver's CUDA": driver_cuda}
    stated = [v for v in (driver, driver_cuda and f"CUDA {driver_cuda}") if v]
    have = f" ({', '.join(stated)})" if stated else ""
    return error(f"the NVIDIA driver{have} is older than the CUDA this software was built for: Error 804 (forward "
                 "compatibility was attempted on non supported HW) is what a CUDA forward-compatibility libcuda returns "
                 "when it is newer than the kernel driver, on a GPU where forward compatibility is unavailable "
                 "(GeForce, TITAN and most RTX cards), so CUDA does not start and torch gets no GPU",
                 fix=Fix("Upgrade the host's NVIDIA driver to one that supports the CUDA of the image or torch build "
                         "(then no cuda-compat library is needed), or use an image / torch build for the CUDA this "
                         "driver supports", ("nvidia-smi",)),
                 evidence={k: v for k, v in evidence.items() if v is not None}, related=("cuda-driver-too-old",))


def _container_refused(facts, said):
    """The NVIDIA container runtime would not start an image built on CUDA `needs_cuda`: the host driver is older.
    torch in that image never ran, so its build is the image's CUDA (or older), and the driver is what to change."""
    driver = fact(facts, "nvidia.driver_version")
    driver_cuda = fact(facts, "nvidia.cuda_driver_version")
    needed = tables.toolkit_driver(said.needs_cuda, system(facts))
    supports = f"; driver {driver} supports CUDA {driver_cuda} at most" if driver and driver_cuda else \
        f"; driver {driver}" if driver else ""
    evidence = {"container runtime": said.text, "driver": driver, "driver's CUDA": driver_cuda,
                "image needs CUDA": said.needs_cuda, f"CUDA {said.needs_cuda} driver": needed}
    return error(f"the NVIDIA container runtime refuses to start the image: it needs CUDA {said.needs_cuda} or newer"
                 f"{supports}, so nothing in the container (torch included) gets the GPU",
                 fix=Fix(f"Upgrade the host's NVIDIA driver to {needed or f'one that supports CUDA {said.needs_cuda}'} or newer, "
                         f"or run an image tag built for CUDA {driver_cuda or 'the CUDA this driver supports'} or older"),
                 evidence={k: v for k, v in evidence.items() if v is not None}, related=("cuda-driver-too-old",))


def _container_banner(facts, said):
    """An NGC container's banner: the image's CUDA needs driver `needs_driver`, the host has `found_driver`, and
    forward compatibility (datacenter GPUs with cuda-compat) is unavailable, so CUDA does not start in it."""
    driver = fact(facts, "nvidia.driver_version") or said.found_driver
    evidence = {"container banner": said.text, "driver": driver, "image needs driver": said.needs_driver}
    return error(f"the container was built for NVIDIA driver {said.needs_driver} or later and found driver {driver}, "
                 "with forward compatibility unavailable: CUDA does not start in it, so torch there gets no GPU",
                 fix=Fix(f"Upgrade the host's NVIDIA driver to {said.needs_driver} or newer, or run an older release of "
                         "the image, built for a CUDA this driver supports (the NGC support matrix lists each release's "
                         "CUDA and driver)"),
                 evidence=evidence, related=("cuda-driver-too-old",))
