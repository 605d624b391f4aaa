import os
import re

from torchdoctor.data import tables
from torchdoctor.model import Fix, Status, error, ok, skip, warning
from torchdoctor.registry import Example, env_check

from ._cuda import SITE, fact, from_pasted_report, gpus, torch_said

# Forward compatibility (cuda-compat) "is applicable only for systems with NVIDIA Data Center
# GPUs, select NGC Server Ready SKUs of RTX cards, Jetson boards" (docs.nvidia.com/deploy/
# cuda-compatibility, Forward Compatibility). GeForce and TITAN are consumer cards: never.
# Other RTX/Quadro cards may be one of the select server SKUs (NVIDIA publishes no list here):
# a warning, not an error. "Server Edition" parts are data-center GPUs.
CONSUMER = re.compile(r"GeForce|TITAN", re.I)
MAYBE_SERVER_RTX = re.compile(r"Quadro|\bRTX\b", re.I)
SERVER_EDITION = re.compile(r"Server Edition", re.I)
_LIBCUDA_VERSION = re.compile(r"libcuda\.so\.(\d+\.\d+(?:\.\d+)?)$")
# pip's CUDA wheels (site-packages/nvidia/<lib>/lib, nvidia/cu13/lib) find each other through their
# RUNPATH ($ORIGIN/../../nvjitlink/lib): never built from source, so a sibling found elsewhere is
# LD_LIBRARY_PATH or ld.so.conf coming first.
_PIP_WHEEL_DIR = re.compile(r"/(?:site|dist)-packages/nvidia/")
_TOOLKIT_DIR_VERSION = re.compile(r"cuda-(\d+\.\d+)(?:/|$)")

_SYMPTOM = {
    "nvJitLink": "'undefined symbol: __nvJitLinkComplete_{pip_major}_{pip_minor}' (from libcusparse)",
    "cudnn": "'cuDNN version incompatibility: PyTorch was compiled against {pip} but found runtime version {ld}'",
}


def _torch(cuda):
    return {"version": f"2.8.0+cu{cuda.replace('.', '')}", "cuda": cuda}


def _pip(*libs):
    """packages facts: (dist name, version, nvidia/<sub>, {file: version})."""
    return {"distributions": [{"name": name, "version": version, "location": SITE} for name, version, _, _ in libs],
            "pip_cuda_lib_dirs": [{"path": f"{SITE}/nvidia/{sub}/lib", "libraries": files, "origin": f"pip:{name}"}
                                  for name, _, sub, files in libs]}


def _ld(*dirs, compat=()):
    return {"ld_library_path": [d for d, _ in dirs],
            "ld_cuda_lib_dirs": [{"path": d, "libraries": files, "origin": "LD_LIBRARY_PATH"} for d, files in dirs],
            "compat_libcuda": list(compat)}


def _ldd(file, *deps):
    """What `ldd` printed for a pip CUDA wheel's library under SITE/nvidia."""
    return {"file": f"{SITE}/nvidia/{file}",
            "resolved": {os.path.basename(d): d for d in deps} | {"libc.so.6": "/lib/x86_64-linux-gnu/libc.so.6"}}


NVJITLINK_124 = ("nvidia-nvjitlink-cu12", "12.4.127", "nvjitlink", {"libnvJitLink.so.12": "12"})
CUDNN_910 = ("nvidia-cudnn-cu12", "9.10.2.21", "cudnn", {"libcudnn.so.9": "9", "libcudnn_ops.so.9": "9"})
CUDA121 = ("/usr/local/cuda-12.1/lib64", {"libnvJitLink.so.12": "12.1.105", "libnvJitLink.so.12.1.105": "12.1.105"})
COMPAT = "/usr/local/cuda-13.0/compat"


@env_check(
    code="TE204",
    name="cuda-libs-conflict",
    title="One copy of each CUDA library",
    area="CUDA toolkit & extensions",
    examples=[
        Example("error", {"torch": {"version": "2.5.1", "cuda": "12.4"}, "packages": _pip(NVJITLINK_124),
                          "toolchain": _ld(CUDA121)},
                "a system CUDA 12.1 on LD_LIBRARY_PATH under pip's nvJitLink 12.4 (pytorch#134929)",
                contains="__nvJitLinkComplete_12_4"),
        Example("warning", {"torch": _torch("12.8"), "packages": _pip(CUDNN_910),
                            "toolchain": _ld(("/opt/cudnn-8.9/lib", {"libcudnn.so.8": "8.9.7", "libcudnn.so.8.9.7": "8.9.7"}))},
                "cuDNN 8 on the path next to torch's cuDNN 9: another soname, but other libraries may take it",
                contains="unset LD_LIBRARY_PATH"),
        Example("error", {"torch": {**_torch("12.8"), "loaded_libraries": [
                              f"{SITE}/nvidia/cudnn/lib/libcudnn.so.9",
                              "/usr/local/cuda-12.8/lib64/libcudnn_ops.so.9"]},
                          "packages": _pip(CUDNN_910)},
                "the probe saw one library family mapped from two directories"),
        Example("error", {"torch": _torch("13.0"), "toolchain": _ld((COMPAT, {"libcuda.so.1": "580.95.05"}),
                                                                   compat=[f"{COMPAT}/libcuda.so.1"]),
                          "nvidia": {"gpus": [{"index": 0, "name": "NVIDIA GeForce RTX 4090"}]}},
                "cuda-compat on a GeForce card", contains="Error 804"),
        Example("warning", {"torch": _torch("13.0"), "toolchain": _ld(compat=[f"{COMPAT}/libcuda.so.1"]),
                            "nvidia": {"gpus": [{"index": 0, "name": "NVIDIA RTX A6000"}]}},
                "cuda-compat on a workstation RTX card: only select NGC-Server-Ready RTX SKUs support it",
                contains="NGC-Server-Ready"),
        Example("ok", {"torch": _torch("13.0"), "toolchain": _ld(compat=[f"{COMPAT}/libcuda.so.1"]),
                       "nvidia": {"gpus": [{"index": 0, "name": "NVIDIA RTX PRO 6000 Blackwell Server Edition"}]}},
                "a Server Edition RTX PRO is a data-center GPU"),
        Example("ok", {"torch": _torch("12.6"), "toolchain": _ld(compat=["/usr/local/cuda-12.6/compat/libcuda.so.1"]),
                       "nvidia": {"gpus": [{"index": 0, "name": "Orin"}]}},
                "Jetson boards support forward compatibility"),
        Example("error", {"torch": _torch("12.8"),
                          "toolchain": _ld(compat=["/usr/local/cuda/compat/libcuda.so.1",
                                                   "/usr/local/cuda/compat/libcuda.so.570.124.06"]),
                          "nvidia": {"driver_version": "580.95.05",
                                     "gpus": [{"index": 0, "name": "NVIDIA H100 80GB HBM3"}]}},
                "an old container's cuda-compat on a newer host driver", contains="Error 803"),
        Example("ok", {"torch": _torch("13.0"),
                       "toolchain": _ld(compat=["/usr/local/cuda/compat/libcuda.so.1",
                                                "/usr/local/cuda/compat/libcuda.so.580.95.05"]),
                       "nvidia": {"driver_version": "535.230.02",
                                  "gpus": [{"index": 0, "name": "NVIDIA H100 80GB HBM3"}]}},
                "cuda-compat newer than the host driver, on a data-center GPU: what it is for"),
        Example("warning", {"torch": {**_torch("12.4"), "loaded_libraries": [f"{SITE}/nvidia/nvjitlink/lib/libnvJitLink.so.12"]},
                            "packages": _pip(NVJITLINK_124), "toolchain": _ld(CUDA121)},
                "the same older copy, but this torch preloaded its own: latent"),
        Example("ok", {"torch": _torch("13.0"), "toolchain": _ld((COMPAT, {"libcuda.so.1": "580.95.05"}),
                                                                compat=[f"{COMPAT}/libcuda.so.1"]),
                       "nvidia": {"gpus": [{"index": 0, "name": "NVIDIA H100 80GB HBM3"}]}},
                "cuda-compat on a data-center GPU is what it is for"),
        Example("ok", {"torch": {"version": "2.5.1", "cuda": "12.4"}, "packages": _pip(NVJITLINK_124),
                       "toolchain": _ld(("/usr/local/cuda-12.4/lib64", {"libnvJitLink.so.12": "12.4.127"}))},
                "a system CUDA of the same version: no conflict"),
        Example("error", {"torch": {"version": "2.5.1", "cuda": "12.4"},
                          "toolchain": {"linked": [_ldd("cusparse/lib/libcusparse.so.12",
                                                        "/usr/local/cuda-12.1/lib64/libnvJitLink.so.12")]}},
                "ldd shows pip's libcusparse taking CUDA 12.1's nvJitLink (ragflow#4466)",
                contains="__nvJitLinkComplete_12_4"),
        Example("warning", {"toolchain": {"linked": [_ldd("cusparse/lib/libcusparse.so.12",
                                                          "/opt/cuda/lib64/libnvJitLink.so.12")]}},
                "the same with neither versions known", contains="undefined symbol"),
        Example("ok", {"torch": {"version": "2.5.1", "cuda": "12.4"},
                       "toolchain": {"linked": [_ldd("cusparse/lib/libcusparse.so.12",
                                                     f"{SITE}/nvidia/nvjitlink/lib/libnvJitLink.so.12")]}},
                "ldd shows the wheels finding each other"),
        Example("ok", {"torch": _torch("12.8"), "packages": _pip(CUDNN_910), "toolchain": _ld()},
                "no LD_LIBRARY_PATH", contains="no CUDA library"),
        Example("skip", {"torch": {"version": "2.13.0+cpu", "cuda": None}, "toolchain": _ld(CUDA121)},
                "a CPU build loads no CUDA library"),
        Example("error", {"torch": {"warnings": ["Error 804: forward compatibility was attempted on non supported HW"]}},
                "only CUDA's Error 804 was pasted", contains="Error 804"),
        Example("error", {"torch": {"warnings": [
            "RuntimeError: cuDNN version incompatibility: PyTorch was compiled  against (8, 7, 0) but found runtime "
            "version (8, 2, 4)."]}, "toolchain": {"ld_library_path": ["/opt/cudnn-8.2/lib64", "/usr/lib"]}},
            "only torch's own cuDNN error was pasted, with LD_LIBRARY_PATH", contains="/opt/cudnn-8.2/lib64"),
        Example("error", {"torch": {"warnings": [
            "Could not load library libcudnn_cnn_train.so.8. Error: /usr/local/cuda-12.3/lib64/libcudnn_cnn_train.so.8: "
            "undefined symbol: _ZN5cudnn3cnn34layerNormFwd_execute_internal_implERKNS_7backend11VariantPackE, version "
            "libcudnn_cnn_infer.so.8"]}},
            "only cuDNN's own refusal of its sub-library was pasted", contains="outside torch's wheels"),
    ],
)
def cuda_libs_conflict(facts):
    """
    ## What it checks
    The CUDA libraries torch gets from pip (`nvidia-*` wheels under `site-packages/nvidia`)
    against CUDA libraries of the same family (cuDNN, cuBLAS, nvJitLink, cuSPARSE, NCCL, cudart,
    ...) in the directories of `LD_LIBRARY_PATH`; the libraries the torch probe saw mapped after
    import, when it ran; and a cuda-compat `libcuda` on `LD_LIBRARY_PATH` on a GPU that does not
    support CUDA forward compatibility.

    ## Why it matters
    `LD_LIBRARY_PATH` comes before the wheels' own search path, so a system CUDA of another
    version can shadow the copy torch was built against: "undefined symbol:
    __nvJitLinkComplete_12_4" (pytorch#134929, #131312), "cuDNN version incompatibility",
    "libcudnn.so.N: cannot open shared object file", or one library family loaded twice from
    two directories. cuda-compat's libcuda (on LD_LIBRARY_PATH or set up through ld.so.conf and
    ldconfig, as NGC containers do) lets a newer CUDA run on an older driver only on data-center
    GPUs, select NGC-Server-Ready RTX SKUs and Jetson boards; on GeForce and TITAN cards CUDA fails
    with "Error 804: forward compatibility was attempted on non supported HW". A compat libcuda
    older than the host driver fails with "Error 803: system has unsupported display driver /
    cuda driver combination".

    ## How to fix
    Take the CUDA directories out of `LD_LIBRARY_PATH` for the environment torch runs in (torch's
    wheels bring their own libraries), or make them the same version as the wheels; drop the
    cuda-compat directory on consumer GPUs and upgrade the host driver instead, and drop it
    wherever the host driver is newer than the compat library.
    """
    result = _judge(facts)
    if result.status not in (Status.OK, Status.SKIP):
        return result
    # What torch, the driver API or the loader said is evidence whatever the inventory showed:
    # cuDNN's own version check, Error 803/804, a CUDA library refused for an undefined symbol.
    for kind, verdict in (("cudnn", _from_error), ("forward-compat", _from_compat_error),
                          ("cuda-lib-symbol", _from_symbol_error)):
        said = torch_said(facts, kind)
        if said:
            return verdict(facts, said[0])
    return result


def _loader_path(facts, label, text):
    """LD_LIBRARY_PATH as the report gave it, and the evidence of a loader failure: what was said and that path."""
    current = fact(facts, "toolchain.ld_library_path") or []
    evidence = {label: text}
    if current:
        evidence["LD_LIBRARY_PATH"] = current
    return current, evidence


def _fix_or_search(facts, suspects, summary, command):
    """Take the suspect directories off the path where there are some; otherwise say where to look."""
    return _fix(facts, suspects) if suspects else Fix(summary, (command,))


def _from_symbol_error(facts, said):
    """The loader refused a CUDA library for a symbol its own release has: it was paired with another release's."""
    path = said.package
    library = path.rsplit("/", 1)[-1]
    outside = not re.search(r"(?:site|dist)-packages/(?:torch|nvidia)/", path)
    where = (f"{library} was loaded from {path.rsplit('/', 1)[0]}, outside torch's wheels" if outside
             else f"{library} is the wheels' own copy, and the library it needs came from another CUDA install")
    with_lib = f" (the symbol was looked for in {said.requested})" if said.requested else ""
    current, evidence = _loader_path(facts, "the loader said", said.text)
    suspects = list(dict.fromkeys(d for d in current if re.search(r"cudnn|cuda|nvidia|conda", d, re.I)))
    return error(f"the dynamic loader refused {library} for an undefined symbol{with_lib}: CUDA libraries of two "
                 f"releases are mixed in this process - {where}",
                 fix=_fix_or_search(facts, suspects,
                                    "Find what puts the other CUDA/cuDNN libraries first (LD_LIBRARY_PATH, "
                                    "/etc/ld.so.conf.d, a system CUDA or cuDNN install) and take it out where torch "
                                    "runs - torch's wheels bring their own; after editing /etc/ld.so.conf.d, run "
                                    "`ldconfig`",
                                    "echo $LD_LIBRARY_PATH; ldconfig -p | grep -E 'libcudnn|libcublas|libnvJitLink|libcusparse'"),
                 evidence=evidence, related=("cuda-libs-conflict",))


def _from_compat_error(facts, said):
    """The driver API's own Error 804 / 803, where the inventory shows no compat library (or none is known)."""
    current, evidence = _loader_path(facts, "CUDA said", said.text)
    suspects = [d for d in current if re.search(r"compat", d, re.I)]
    if said.package == "804":
        message = ("CUDA refuses to start with Error 804 (forward compatibility was attempted on non supported HW): "
                   "a cuda-compat libcuda is in the loader's path (LD_LIBRARY_PATH or ld.so.conf, as NGC-style "
                   "images set up) on a GPU that does not support forward compatibility (GeForce, TITAN and most RTX "
                   "cards)")
        summary = "Take the cuda-compat directory out of the loader's path and upgrade the host driver instead"
    else:
        message = ("CUDA refuses to start with Error 803 (unsupported display driver / cuda driver combination): the "
                   "libcuda loaded is not the kernel driver's - a cuda-compat libcuda older than the host driver, or "
                   "a container's or a copied libcuda from another driver release")
        summary = ("Take the cuda-compat (or copied) libcuda out of the loader's path so the host driver's own "
                   "libcuda is used; after editing /etc/ld.so.conf.d, run `ldconfig`")
    commands = ((f"export LD_LIBRARY_PATH={':'.join(d for d in current if d not in suspects)}"
                 if len(suspects) < len(current) else "unset LD_LIBRARY_PATH",) if suspects else ()) + (
        "ldconfig -p | grep -E 'libcuda\\.so'; grep -rn compat /etc/ld.so.conf /etc/ld.so.conf.d",)
    return error(message, fix=Fix(summary, commands), evidence=evidence,
                 related=("cuda-libs-conflict", "cuda-forward-compat-unsupported"))


def _from_error(facts, said):
    built, found = said.cuda_pair
    current, evidence = _loader_path(facts, "torch's error", said.text)
    suspects = list(dict.fromkeys(d for d in current if re.search(r"cudnn|cuda", d, re.I)))
    where = (f"; LD_LIBRARY_PATH holds {', '.join(suspects)}" if suspects else
             ": on LD_LIBRARY_PATH, in /etc/ld.so.conf.d or a system CUDA install")
    return error(f"torch was built against cuDNN {built} but cuDNN {found} was loaded: another cuDNN shadows the one "
                 f"torch's wheels ship{where}",
                 fix=_fix_or_search(facts, suspects,
                                    "Find what puts the other cuDNN first and take it out where torch runs (torch's "
                                    "wheels bring their own cuDNN); after editing /etc/ld.so.conf.d, run `ldconfig`",
                                    "echo $LD_LIBRARY_PATH; ldconfig -p | grep libcudnn"),
                 evidence=evidence, related=("cuda-libs-conflict",))


def _judge(facts):
    if fact(facts, "torch.cuda", "unknown") is None:
        return skip("torch is not a CUDA build: it loads no CUDA library")
    pip_libs = _pip_families(facts)
    ld_dirs = [d for d in (fact(facts, "toolchain.ld_cuda_lib_dirs") or [])
               if d.path not in {p for _, _, p in pip_libs.values()}]
    loaded = fact(facts, "torch.loaded_libraries")
    compat = fact(facts, "toolchain.compat_libcuda") or []
    wheel_ldd = [x for x in fact(facts, "toolchain.linked") or [] if x.file and _PIP_WHEEL_DIR.search(x.file)]
    taken = _taken_from_outside(wheel_ldd)
    if not pip_libs and not ld_dirs and loaded is None and not compat and not wheel_ldd:
        if from_pasted_report(facts):
            # A report lists the nvidia-* packages, never where their libraries are or which copy torch loaded.
            return skip("not checked: which CUDA libraries torch loads is unknown (a pasted report names installed "
                        "packages, not LD_LIBRARY_PATH or the libraries loaded; `torchdoctor env` on the machine reads them)")
        return skip("nothing to compare: no pip CUDA libraries, LD_LIBRARY_PATH or loaded libraries known")

    problems, bad_dirs, statuses = [], [], []
    loaded_dirs = _loaded_dirs(loaded or [])

    for d in ld_dirs:
        for family, (ld_version, filename) in _families(d.libraries).items():
            if family not in pip_libs or family == "cuda":
                continue
            pip_version, pip_label, pip_dir = pip_libs[family]
            relation = _compare(pip_version, ld_version)
            if relation is None:
                continue
            used = loaded_dirs.get(family)
            if relation == "older" and (used is None or d.path in used):
                symptom = _SYMPTOM.get(family, "'undefined symbol' errors").format(
                    pip=pip_version, ld=ld_version, pip_major=_part(pip_version, 0), pip_minor=_part(pip_version, 1))
                problems.append(f"LD_LIBRARY_PATH puts {d.path} before the wheels, with {family} {ld_version} ({filename}), "
                                f"older than the {pip_label} torch needs: the loader can take the older copy and fail with {symptom}")
                statuses.append("error")
            else:
                why = {"older": "torch preloaded its own copy, but other libraries and extensions can still take this one",
                       "newer": "the loader can take it instead of the wheel's and mix two releases in one process",
                       "major": "torch does not load another major version, but anything in the process that asks for "
                                f"it (TensorFlow, ONNX Runtime, an extension) gets {filename} beside torch's copy"}[relation]
                problems.append(f"{d.path} on LD_LIBRARY_PATH holds {family} {ld_version} ({filename}) while torch uses "
                                f"the {pip_label}: {why}")
                statuses.append("warning")
            bad_dirs.append(d.path)

    for family, dirs in sorted(loaded_dirs.items()):
        if len(dirs) > 1:
            problems.append(f"torch's process mapped {family} from {len(dirs)} directories ({', '.join(sorted(dirs))}): "
                            "two copies of one library mix versions and crash or fail with 'undefined symbol'")
            statuses.append("error")
            bad_dirs += [p for p in sorted(dirs) if p not in {p for _, _, p in pip_libs.values()}]

    for file, soname, family, where in taken:
        system = _TOOLKIT_DIR_VERSION.search(where + "/")
        needed = pip_libs.get(family, (None,))[0] or fact(facts, "torch.cuda")
        relation = _compare(needed, system.group(1)) if system and isinstance(needed, str) else "unknown"
        head = (f"ldd shows pip's {os.path.basename(file)} taking {soname} from {where}, not from the wheels' own copy: "
                "LD_LIBRARY_PATH or ld.so.conf comes before the wheels' RUNPATH")
        if relation == "older":
            symptom = _SYMPTOM.get(family, "'undefined symbol' errors").format(
                pip=needed, ld=system.group(1), pip_major=_part(needed, 0), pip_minor=_part(needed, 1))
            problems.append(f"{head}, and that copy is CUDA {system.group(1)}, older than the {needed} the wheels "
                            f"need: the import fails with {symptom}")
            statuses.append("error")
        elif relation is None:
            problems.append(f"{head}; it is the same CUDA {system.group(1)} as the wheels, so it works, until either changes")
            statuses.append("warning")
        else:
            version = f"CUDA {system.group(1)}" if system else "a system CUDA"
            problems.append(f"{head}; the process mixes {version}'s {family} with the wheels' other libraries, and "
                            "where it is older than theirs the import fails with 'undefined symbol' (e.g. "
                            "__nvJitLinkAddData_12_X from libcusparse)")
            statuses.append("warning")
        bad_dirs.append(where)

    note = None
    compat_problem = None
    if compat:
        compat_dirs = sorted({os.path.dirname(p) for p in compat})
        names = [g.name for g in gpus(facts) if isinstance(g.name, str)]
        consumer = [n for n in names if CONSUMER.search(n)]
        maybe = [n for n in names if not CONSUMER.search(n) and MAYBE_SERVER_RTX.search(n) and not SERVER_EDITION.search(n)]
        older = _compat_older_than_driver(compat, fact(facts, "nvidia.driver_version"))
        where = "in the loader's path (LD_LIBRARY_PATH or ld.so.conf)"
        if older:
            problems.append(f"cuda-compat's libcuda {older[0]} ({', '.join(compat)}) is {where}, but the host driver "
                            f"{older[1]} is newer: CUDA fails with 'Error 803: system has unsupported display driver / "
                            "cuda driver combination'. The compat library only helps a host driver older than itself")
            statuses.append("error")
            bad_dirs += compat_dirs
            compat_problem = "803"
        elif consumer:
            problems.append(f"cuda-compat's libcuda ({', '.join(compat)}) is {where}, but {consumer[0]} is a consumer "
                            "GPU: CUDA fails with 'Error 804: forward compatibility was attempted on non supported HW'")
            statuses.append("error")
            bad_dirs += compat_dirs
            compat_problem = "804"
        elif maybe:
            problems.append(f"cuda-compat's libcuda ({', '.join(compat)}) is {where} on {maybe[0]}: NVIDIA supports "
                            "forward compatibility on RTX cards only for select NGC-Server-Ready SKUs; on any other "
                            "CUDA fails with 'Error 804: forward compatibility was attempted on non supported HW'")
            statuses.append("warning")
            bad_dirs += compat_dirs
            compat_problem = "804?"
        else:
            note = (f"cuda-compat's libcuda ({', '.join(compat)}) is {where}: forward compatibility works on "
                    "data-center GPUs and Jetson boards" + ("" if names else "; the GPUs here are unknown"))

    evidence = {"pip CUDA libraries": {f: f"{v} ({label})" for f, (v, label, _) in sorted(pip_libs.items())},
                "LD_LIBRARY_PATH CUDA dirs": [d.path for d in ld_dirs]}
    if loaded is not None:
        evidence["loaded from"] = {f: sorted(d) for f, d in sorted(loaded_dirs.items())}
    if taken:
        evidence["ldd"] = [f"{os.path.basename(file)}: {soname} => {where}" for file, soname, _, where in taken]
    if note:
        evidence["note"] = note
    if not problems:
        if wheel_ldd and not ld_dirs and not pip_libs and loaded is None:
            return ok("ldd shows the pip CUDA wheels' libraries finding their CUDA libraries in the wheels", **evidence)
        return ok("no CUDA library in two versions: nothing on LD_LIBRARY_PATH conflicts with torch's wheels"
                  if ld_dirs else "no CUDA library conflicts: no CUDA directory on LD_LIBRARY_PATH", **evidence)

    fix = _fix(facts, bad_dirs, compat_problem=compat_problem)
    status = error if "error" in statuses else warning
    return status("; ".join(problems), fix=fix, evidence=evidence,
                  related=("cuda-libs-conflict",) + (("cuda-forward-compat-unsupported",) if compat_problem else ()))


def _taken_from_outside(wheel_ldd):
    """(pip library, soname, family, directory) for each CUDA library that a pasted `ldd` of a pip
    CUDA wheel's library shows found outside the wheels. The driver's libcuda is meant to come from
    the system; a library not found at all is a broken install, not a conflict."""
    out = []
    for linked in wheel_ldd:
        for soname, path in linked.resolved.items():
            lib = tables.cuda_library(soname)
            if lib is None or lib[0] == "cuda" or path is None or _PIP_WHEEL_DIR.search(path):
                continue
            out.append((linked.file, soname, lib[0], os.path.dirname(path)))
    return out


def _compat_older_than_driver(compat, driver):
    """(compat libcuda version, host driver) when the compat library is older than the host
    driver (Error 803), else None. The version is in the file name: libcuda.so.570.124.06."""
    if not driver:
        return None
    versions = [m.group(1) for p in compat if (m := _LIBCUDA_VERSION.search(os.path.basename(p)))]
    if not versions:
        return None
    lib = max(versions, key=_numbers)
    return (lib, driver) if _numbers(lib) < _numbers(driver) else None


def _families(libraries):
    """{family: (most specific version, file)} for one directory's CUDA libraries."""
    out = {}
    for filename, version in sorted(libraries.items()):
        lib = tables.cuda_library(filename)
        if lib is None:
            continue
        family = lib[0]
        version = version or lib[1]
        if family not in out or len(version) > len(out[family][0]):
            out[family] = (version, filename)
    return out


def _pip_families(facts):
    """{family: (version, "nvidia-cudnn-cu12 9.10.2.21", dir)}: the version from the owning
    distribution when it is installed, else from the file names."""
    dists = fact(facts, "packages.distributions") or []
    out = {}
    for d in fact(facts, "packages.pip_cuda_lib_dirs") or []:
        for family, (version, filename) in _families(d.libraries).items():
            stem = tables.PIP_PACKAGE.get(family)
            owners = [x for x in dists if stem and (x.name == stem or x.name.startswith(stem + "-cu"))
                      and (not version or x.version.split(".")[0] == version.split(".")[0])]
            if owners:
                out[family] = (owners[0].version, f"{owners[0].name} {owners[0].version}", d.path)
            elif version:
                out[family] = (version, f"{filename} in {d.path}", d.path)
    return out


def _loaded_dirs(paths):
    out = {}
    for path in paths:
        lib = tables.cuda_library(os.path.basename(path))
        if lib is not None:
            out.setdefault(lib[0], set()).add(os.path.dirname(path))
    return out


def _numbers(version):
    try:
        return tables.driver_tuple(version)
    except ValueError:
        return ()


def _part(version, i):
    numbers = _numbers(version)
    return numbers[i] if len(numbers) > i else 0


def _compare(pip_version, ld_version):
    """The LD copy against the pip one, compared as far as both names tell (major.minor at most):
    None (the same), "older" or "newer" (same major), "major" (another major: another soname)."""
    pip, ld = _numbers(pip_version), _numbers(ld_version)
    n = min(len(pip), len(ld), 2)
    if n == 0 or pip[:n] == ld[:n]:
        return None
    if pip[0] != ld[0]:
        return "major"
    return "older" if ld[:n] < pip[:n] else "newer"


def _fix(facts, bad_dirs, compat_problem=None):
    bad = list(dict.fromkeys(bad_dirs))
    current = fact(facts, "toolchain.ld_library_path")
    on_path = [d for d in bad if current is not None and d in current]
    commands, summary = [], []
    if on_path:
        keep = [p for p in current if p not in on_path]
        commands.append(f"export LD_LIBRARY_PATH={':'.join(keep)}" if keep else "unset LD_LIBRARY_PATH")
        summary.append("Take the conflicting directories out of LD_LIBRARY_PATH where torch runs (its wheels bring "
                       "their own CUDA libraries), and where it is set for good (~/.bashrc, a module file, a "
                       "Dockerfile ENV)")
    elsewhere = [d for d in bad if d not in on_path]
    if elsewhere:
        patterns = " ".join(f"-e {d}" for d in elsewhere)
        commands.append(f"env | grep -E '^LD_(LIBRARY_PATH|PRELOAD)='; grep -rn {patterns} /etc/ld.so.conf /etc/ld.so.conf.d")
        summary.append(f"Find what brings in {', '.join(elsewhere)} (LD_LIBRARY_PATH, LD_PRELOAD, /etc/ld.so.conf.d, "
                       "another package's RPATH) and remove it (after editing /etc/ld.so.conf.d, run `ldconfig`)")
    if compat_problem == "803":
        summary.append("the host driver is newer than cuda-compat's libcuda, so the compat library is not needed at all")
    elif compat_problem == "804":
        summary.append("on a consumer GPU upgrade the host driver instead of using cuda-compat")
    elif compat_problem == "804?":
        summary.append("unless this RTX card is one of NVIDIA's NGC-Server-Ready SKUs, upgrade the host driver "
                       "instead of using cuda-compat")
    return Fix("; ".join(summary), tuple(commands))
