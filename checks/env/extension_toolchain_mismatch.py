from packaging.version import InvalidVersion, Version

from torchdoctor.data import tables
from torchdoctor.facts.model import known
from torchdoctor.model import Fix, Status, error, ok, skip, warning
from torchdoctor.registry import Example, env_check

from ._cuda import fact, gpu_ccs, pip, suggest, system, torch_label, torch_said, unknown_need


def _tc(nvcc="13.0", gcc="12.2.0", ninja=True, home=None):
    """toolchain facts for the examples: nvcc=None means no CUDA toolkit at all."""
    home = home if home is not None else (f"/usr/local/cuda-{nvcc}" if nvcc else None)
    return {"cuda_home": home, "cuda_home_source": "CUDA_HOME" if home else None, "cuda_home_exists": bool(nvcc),
            "nvcc_path": f"{home}/bin/nvcc" if nvcc else None, "nvcc_version": nvcc,
            "gcc_path": "/usr/bin/gcc" if gcc else None, "gcc_version": gcc,
            "ninja_path": "/usr/bin/ninja" if ninja else None, "ninja_version": "1.11.1" if ninja else None}


def _torch(version, cuda):
    return {"version": version, "cuda": cuda}


CU130 = _torch("2.13.0+cu130", "13.0")
CPU = _torch("2.13.0+cpu", None)

# Build evidence as the facts layer words it (torchdoctor.facts.extensions).
LOCK = "build lock /home/ada/.cache/torch_extensions/py311_cu130/fused_adam/lock (no process holds it)"
LOG = "the pasted text: RuntimeError: Error building extension 'fused_adam'"
ARCH_LIST = "TORCH_CUDA_ARCH_LIST=8.0;9.0 is set (only extension builds read it)"


def _building(*evidence):
    return {"build_dirs": 1 if evidence else 0, "build_evidence": list(evidence)}


@env_check(
    code="TE208",
    name="extension-toolchain-mismatch",
    title="Toolchain able to build C++/CUDA extensions for this torch",
    area="CUDA toolkit & extensions",
    needs=(),
    examples=[
        Example("error", {"torch": CU130, "toolchain": _tc(nvcc="12.4", gcc="12.2.0"), "extensions": _building(LOCK)},
                "a CUDA 12 toolkit with a CUDA 13 torch, and a build lock: an extension build is under way or died",
                contains="The detected CUDA version (12.4) mismatches the version that was used to compile PyTorch (13.0)"),
        Example("error", {"torch": CU130, "toolchain": _tc(nvcc="12.4", gcc="12.2.0"), "extensions": _building(LOG)},
                "the same toolkit, and a pasted log of an nvcc build failing", contains="Error building extension"),
        Example("warning", {"torch": CU130, "toolchain": _tc(nvcc="12.4", gcc="12.2.0"), "extensions": _building()},
                "the same toolkit on a machine where nothing is being built: it bites only when something is",
                contains="bites only when one is: building a C++/CUDA extension with this toolchain"),
        Example("warning", {"torch": CU130, "toolchain": _tc(nvcc="12.4", gcc="12.2.0")},
                "the same toolkit in a pasted report that says nothing about builds", contains="mismatches"),
        Example("error", {"torch": _torch("2.5.1+cu124", "12.4"), "toolchain": _tc(nvcc="12.4", gcc="14.2.0"),
                          "extensions": _building(ARCH_LIST)},
                "gcc 14 with nvcc 12.4 (which takes gcc < 14), and TORCH_CUDA_ARCH_LIST set for a build",
                contains="export CC=gcc-13 CXX=g++-13"),
        Example("warning", {"torch": _torch("2.5.1+cu124", "12.4"), "toolchain": _tc(nvcc="12.4", gcc="14.2.0"),
                            "extensions": _building()},
                "gcc 14 with nvcc 12.4 where nothing is built", contains="bites only when"),
        Example("error", {"torch": CPU, "toolchain": _tc(nvcc=None, gcc="9.4.0"), "extensions": _building(LOG)},
                "torch 2.13 builds extensions as C++20; gcc 9 does not know -std=c++20", contains="c++20"),
        Example("warning", {"torch": CU130, "toolchain": _tc(nvcc=None, gcc="12.2.0"), "extensions": {"build_dirs": 1}},
                "a CUDA torch, extensions built here before, and no CUDA toolkit anywhere", contains="CUDA_HOME"),
        Example("ok", {"torch": CU130, "toolchain": _tc(nvcc=None, gcc="12.2.0"), "extensions": {"build_dirs": 0}},
                "no toolkit, but nothing was ever built here: a note, not a warning"),
        Example("warning", {"torch": CU130, "toolchain": {**_tc(nvcc=None), "cuda_home": "/opt/cuda-13.0",
                                                          "cuda_home_source": "CUDA_HOME", "cuda_home_exists": False}},
                "CUDA_HOME names a folder that is not there", contains="/opt/cuda-13.0"),
        Example("warning", {"torch": CPU, "toolchain": _tc(nvcc=None, ninja=False), "extensions": {"build_dirs": 3}},
                "no ninja where extensions get built", contains="pip install ninja"),
        Example("ok", {"torch": CPU, "toolchain": _tc(nvcc=None, ninja=False)},
                "no ninja on a machine that never built an extension"),
        Example("ok", {"torch": CU130, "toolchain": _tc(nvcc="13.0", gcc="12.2.0")},
                "nvcc 13.0, gcc 12.2, ninja: everything fits", contains="nvcc 13.0"),
        Example("ok", {"torch": CU130, "toolchain": _tc(nvcc="13.0", gcc="12.2.0"), "extensions": _building(LOG)},
                "a build failing, but nvcc, gcc and ninja fit torch: the cause is elsewhere"),
        Example("ok", {"torch": _torch("2.13.0+cu126", "12.6"), "toolchain": _tc(nvcc="12.8", gcc="13.3.0")},
                "same major, newer minor: torch only warns", contains="12.8"),
        Example("ok", {"torch": _torch("2.5.1+cu124", "12.4"), "toolchain": _tc(nvcc="12.4", gcc="13.2.0")},
                "gcc 13 is the newest nvcc 12.4 takes"),
        Example("ok", {"torch": _torch("2.14.0+cu132", "13.2"), "toolchain": _tc(nvcc="13.2", gcc="15.1.0")},
                "torch defines no gcc bounds for nvcc 13.2 (it only warns)"),
        Example("ok", {"torch": CPU, "toolchain": _tc(nvcc=None, gcc="10.5.0")},
                "a CPU torch needs no CUDA toolkit; gcc 10 takes -std=c++20"),
    ],
)
def extension_toolchain_mismatch(facts):
    """
    ## What it checks
    What torch.utils.cpp_extension checks only mid-build: the CUDA toolkit it would use (found
    like torch does: `CUDA_HOME`/`CUDA_PATH`, else `nvcc` on PATH, else /usr/local/cuda) against
    torch's CUDA version, the host gcc against the range that nvcc version accepts
    (`CUDA_GCC_VERSIONS`) and against the C++ standard torch compiles extensions with (C++20 from
    torch 2.13), and whether ninja is there. For a CPU or ROCm torch only gcc and ninja count.

    A toolchain that cannot build is an error only where the facts show extensions being built or
    failing to build (`extensions.build_evidence`: a build lock, TORCH_CUDA_ARCH_LIST set, a
    pasted nvcc/ninja/cpp_extension log); elsewhere it is a warning that says when it will bite.

    ## Why it matters
    JIT extensions (`torch.utils.cpp_extension.load`) and `pip install` of packages that compile
    against torch (flash-attn, apex, xformers, detectron2, ...) fail late and cryptically: "The
    detected CUDA version (12.4) mismatches the version that was used to compile PyTorch (13.0)",
    "#error -- unsupported GNU version!", "unrecognized command-line option '-std=c++20'", "Ninja
    is required to load C++ extensions", or "CUDA_HOME environment variable is not set".
    torch.compile also needs a working C compiler.

    ## How to fix
    Use a CUDA toolkit of the same major version as torch's CUDA and point `CUDA_HOME` at it; use
    a gcc inside nvcc's range (`export CC=gcc-13 CXX=g++-13`, which torch passes on to nvcc as
    `-ccbin`); `pip install ninja`.
    """
    said = (torch_said(facts, "toolkit") or torch_said(facts, "toolkit-old") or torch_said(facts, "toolkit-gcc")
            or torch_said(facts, "toolkit-std"))
    arch_said = torch_said(facts, "toolkit-arch")
    gap = unknown_need(facts, "torch.version", "torch.cuda")
    if gap is not None:
        if said:
            return _from_message(facts, said[0])
        if arch_said:
            return _from_arch_message(facts, arch_said[0])
        return _release_mismatch(facts) or gap
    result = _judge(facts)
    # cpp_extension (or nvcc) refusing to build is the ground truth, whatever the toolchain facts seemed to say.
    if result.status is not Status.ERROR and said:
        return _from_message(facts, said[0])
    if result.status is not Status.ERROR and arch_said:
        return _from_arch_message(facts, arch_said[0])
    return result


def _from_arch_message(facts, said):
    """nvcc's own "Unsupported gpu architecture 'compute_86'": this toolkit predates an architecture
    the build asked for (the visible GPU's when TORCH_CUDA_ARCH_LIST is unset)."""
    first = tables.first_toolkit(said.cc)
    nvcc = fact(facts, "toolchain.nvcc_version")
    which = f"nvcc {nvcc}" if nvcc else "the nvcc the build used"
    needs = f"; compute capability {said.cc} needs CUDA {first} or newer" if first else ""
    arch = said.cc.replace(".", "")
    lower = [cc for cc in (str(c) for c in gpu_ccs(facts)) if tables.cc_int(cc) < tables.cc_int(said.cc)]
    return error(f"{which} cannot compile for compute capability {said.cc} (nvcc says so and the extension build "
                 f"stops){needs}",
                 fix=Fix(f"Build with a CUDA toolkit that knows sm_{arch}" + (f" (CUDA {first}+)" if first else "")
                         + " and matches torch's CUDA major, or set TORCH_CUDA_ARCH_LIST to architectures this nvcc "
                         "supports (the GPU then runs the nearest older code of its family only if one is there)",
                         ("export CUDA_HOME=/usr/local/cuda-<version that supports it>",)
                         + ((f'export TORCH_CUDA_ARCH_LIST="{";".join(lower)}"',) if lower else ())),
                 evidence={"nvcc's error": said.text, **({"nvcc": nvcc} if nvcc else {})}, related=("extension-build-error",))


def _release_mismatch(facts):
    """torch's CUDA build is not in the report, but its release is: when nvcc's major is the major of
    none of the CUDA builds that release shipped, the toolkit cannot match whichever one this is.
    Only for a torch that uses CUDA (cuda_available, or extensions being built against it)."""
    version = fact(facts, "torch.version")
    nvcc = fact(facts, "toolchain.nvcc_version")
    if not version or not nvcc or tables.local_tag(version) or not tables.is_release(version):
        return None
    if not (fact(facts, "torch.cuda_available") or fact(facts, "extensions.build_evidence")):
        return None
    try:
        have = Version(str(nvcc))
    except InvalidVersion:
        return None
    cudas = sorted({b["cuda"] for b in tables.builds(version)}, key=Version)
    if not cudas or any(Version(c).major == have.major for c in cudas):
        return None
    building = fact(facts, "extensions.build_evidence") or []
    text = (f"nvcc {nvcc} is CUDA {have.major}, and no CUDA build of torch {tables.base_version(version)} is (it "
            f"shipped CUDA {', '.join(cudas)}): building a C++/CUDA extension with this nvcc raises 'The detected "
            f"CUDA version ({nvcc}) mismatches the version that was used to compile PyTorch'")
    fix = Fix(f"Point CUDA_HOME at a toolkit of torch's CUDA ({'/'.join(cudas)}: `python -c \"import torch; "
              "print(torch.version.cuda)\"` says which)", ("python -c \"import torch; print(torch.version.cuda)\"",))
    evidence = {"nvcc": nvcc, "torch": version, "CUDA builds of that release": ", ".join(cudas)}
    if building:
        evidence["extensions being built"] = "; ".join(building)
        return error(text + f". Extensions are being built here ({building[0]})", fix=fix, evidence=evidence,
                     related=("extension-build-error",))
    return warning(text + ". Nothing here shows an extension being built, so this bites only when one is",
                   fix=fix, evidence=evidence, related=("extension-build-error",))


# Who refused the build, by the package a refusal came from (torch's own cpp_extension where none is named).
_BUILDERS = {"deepspeed": "DeepSpeed's op builder", "k2": "k2's setup"}


def _use_gcc(major):
    """Install a gcc/g++ of that major and make the extension build use it."""
    return (f"sudo apt install gcc-{major} g++-{major}  # or your distribution's package",
            f"export CC=gcc-{major} CXX=g++-{major}")


def _from_message(facts, said):
    """torch.utils.cpp_extension's own refusal: "The detected CUDA version (X) mismatches ..." (or DeepSpeed's op
    builder's "Installed CUDA version X does not match the version torch was compiled with Y"), or a
    package's setup.py refusing the toolkit as too old (flash-attn: "only supported on CUDA 11.6 and above")."""
    if said.kind == "toolkit-std":
        std = said.requested
        gcc = fact(facts, "toolchain.gcc_version")
        compiler = f"; gcc {gcc} is here" if gcc else ""
        return error(f"torch's headers stop the extension build: they need C++{std}, and the extension is compiled as an "
                     f"older standard (a -std=c++14 left in its setup.py or CMakeLists from older torch) or by a compiler "
                     f"without C++{std}{compiler}",
                     fix=Fix(f"Compile the extension as C++{std}: change -std=c++14 to -std=c++{std} in its setup.py "
                             "extra_compile_args (both 'cxx' and 'nvcc') or CMAKE_CXX_STANDARD, and use gcc 9 or newer",
                             ("grep -rn \"std=c++1[14]\" setup.py CMakeLists.txt", "gcc --version")),
                     evidence={"the compiler's error": said.text, **({"gcc": gcc} if gcc else {})},
                     related=("extension-build-error",))
    if said.kind == "toolkit-gcc":
        nvcc = fact(facts, "toolchain.nvcc_version")
        which = f"nvcc {nvcc}" if nvcc else "the build's nvcc"
        if said.package == "msvc":
            return error(f"{which} refuses this Visual Studio: it takes versions up to {said.requested} (nvcc's own "
                         "check says so and the extension build stops)",
                         fix=Fix(f"Build from a Developer Prompt of a Visual Studio nvcc supports (up to {said.requested}), "
                                 "or use a CUDA toolkit that supports this Visual Studio and matches torch's CUDA major",
                                 ()),
                         evidence={"nvcc's error": said.text}, related=("extension-build-error",))
        take = said.requested
        if said.package == "g++":
            # torch's extension builder refuses before nvcc runs, naming the bound for the toolkit's CUDA.
            major = take.split(".")[0]
            return error(f"torch's extension builder refuses this g++: CUDA {said.needs_cuda} takes g++ {take} or older "
                         "(cpp_extension checks it before calling nvcc, and the build stops)",
                         fix=Fix("Build with a g++ that CUDA release accepts (torch passes CC/CXX on to nvcc), or use a "
                                 "CUDA toolkit that supports this g++ and matches torch's CUDA major", _use_gcc(major)),
                         evidence={"torch's error": said.text}, related=("extension-build-error",))
        return error(f"{which} refuses the host gcc: it takes gcc {take} or older (nvcc's own check in "
                     "host_config.h says so and the extension build stops)",
                     fix=Fix(f"Build with a gcc nvcc accepts (torch passes CC/CXX on to nvcc), or use a CUDA toolkit "
                             "that supports this gcc and matches torch's CUDA major", _use_gcc(take)),
                     evidence={"nvcc's error": said.text, **({"nvcc": nvcc} if nvcc else {})},
                     related=("extension-build-error",))
    if said.kind == "toolkit-old":
        cuda = fact(facts, "torch.cuda")
        want = f"CUDA {cuda} toolkit (CUDA {cuda.split('.')[0]}.x)" if cuda else f"CUDA toolkit of torch's CUDA version"
        return error(f"{said.package}'s build found a CUDA toolkit older than {said.needs_cuda} at CUDA_HOME (its own "
                     f"check says so and stops){'; torch is built with CUDA ' + cuda if cuda else ''}",
                     fix=Fix(f"Install a {want} and point CUDA_HOME and PATH at it; check with `$CUDA_HOME/bin/nvcc -V`",
                             (f"export CUDA_HOME=/usr/local/cuda-{cuda or '<version>'} "
                              f"PATH=/usr/local/cuda-{cuda or '<version>'}/bin:$PATH",)),
                     evidence={f"{said.package}'s error": said.text}, related=("extension-build-error",))
    torch_cuda, nvcc = said.cuda_pair
    # k2's setup compares major.minor; torch's cpp_extension and DeepSpeed's builder accept any minor of the major.
    want = torch_cuda if said.package == "k2" else f"{torch_cuda.split('.')[0]}.x"
    builder = _BUILDERS.get(said.package, "torch.utils.cpp_extension")
    return error(f"an extension build found nvcc {nvcc} but torch is built with CUDA {torch_cuda} "
                 f"({builder} says so and refuses to build)",
                 fix=Fix(f"Point CUDA_HOME at a CUDA {torch_cuda} toolkit (CUDA {want}), or install the torch build "
                         f"for the CUDA {nvcc} toolkit",
                         (f"export CUDA_HOME=/usr/local/cuda-{torch_cuda}",
                          f"conda install -c nvidia cuda-toolkit={torch_cuda}  # or NVIDIA's installer")),
                 evidence={f"{builder}'s error": said.text}, related=("extension-build-error",))


def _judge(facts):
    tc = facts.toolchain
    if not known(tc):
        return skip(f"the build toolchain is unknown ({tc.reason})")
    version, cuda = facts.torch.version, facts.torch.cuda
    label = torch_label(facts)
    problems: list[tuple[Status, str, str, tuple[str, ...]]] = []
    notes: list[str] = []
    evidence = {"CUDA_HOME": _show(tc.cuda_home, tc.cuda_home_source), "nvcc": fact(facts, "toolchain.nvcc_version"),
                "gcc": fact(facts, "toolchain.gcc_version"), "ninja": fact(facts, "toolchain.ninja_version") or fact(facts, "toolchain.ninja_path")}
    nvcc = fact(facts, "toolchain.nvcc_version") if cuda else None
    gcc = fact(facts, "toolchain.gcc_version")
    # Saved or pasted facts can hold anything: a value that is no version is reported, not compared.
    nvcc, gcc = _version_or_note(nvcc, "nvcc", notes), _version_or_note(gcc, "gcc", notes)
    if cuda and _version_or_note(cuda, "torch's CUDA", notes) is None:
        cuda = None
    if _version_or_note(version, "torch", notes) is None:
        version = None

    # A missing tool only matters to someone who builds extensions; an existing build dir
    # under ~/.cache/torch_extensions says they do. Everyone else gets a note, not a warning.
    # A toolchain that cannot build is an error only where a build is under way or failing.
    building = fact(facts, "extensions.build_evidence") or []
    builds = fact(facts, "extensions.build_dirs")
    builds_extensions = (isinstance(builds, int) and builds > 0) or bool(building)
    if cuda:
        problems += _toolkit(facts, tc, cuda, nvcc, label, notes, builds_extensions)
    if system(facts) == "Linux":
        problems += _gcc(facts, tc, version, nvcc, gcc, notes)
    else:
        notes.append(f"host compiler not checked on {system(facts)} (torch uses clang on macOS, MSVC on Windows)")
    if known(tc.ninja_path) and tc.ninja_path is None and not builds_extensions:
        notes.append(f"ninja is not installed: needed only to build C++ extensions ({pip(facts)} install ninja)")
    elif known(tc.ninja_path) and tc.ninja_path is None:
        problems.append((Status.WARNING, "ninja is not on PATH: torch.utils.cpp_extension.load raises 'Ninja is "
                         "required to load C++ extensions', and setup.py builds fall back to slow serial compiles",
                         "Install ninja into this environment", (f"{pip(facts)} install ninja",)))
    if notes:
        evidence["note"] = "; ".join(notes)

    if not problems:
        parts = [f"nvcc {nvcc}" if nvcc else None, f"gcc {gcc}" if gcc else None,
                 f"ninja {evidence['ninja']}" if evidence["ninja"] else None]
        return ok(f"the extension toolchain fits {label}: " + ", ".join(p for p in parts if p), **evidence)
    fails = any(s is Status.ERROR for s, *_ in problems)
    text = "; ".join(text for _, text, _, _ in problems)
    if fails and building:
        text += f". Extensions are being built here ({building[0]})"
        evidence["extensions being built"] = "; ".join(building)
    elif fails:
        text += (". Nothing here shows an extension being built, so this bites only when one is: building a "
                 "C++/CUDA extension with this toolchain (pip install of a package that compiles against torch, "
                 "such as flash-attn, apex or xformers without a matching wheel, or torch.utils.cpp_extension.load)")
    fix = Fix("; ".join(summary for _, _, summary, _ in problems),
              tuple(dict.fromkeys(c for *_, commands in problems for c in commands)))
    return (error if fails and building else warning)(text, fix=fix, evidence=evidence, related=("extension-build-error",))


def _version_or_note(value, what, notes):
    if not value:
        return value
    try:
        Version(str(value))
    except InvalidVersion:
        notes.append(f"{what}'s version {str(value)[:40]!r} is not a version number, so it is not compared")
        return None
    return value


def _show(home, source):
    if not known(home):
        return None
    return f"{home} (from {source})" if home else None


def _toolkit(facts, tc, cuda, nvcc, label, notes, builds_extensions):
    """The CUDA toolkit against a CUDA torch."""
    home = tc.cuda_home
    if not known(home):
        if nvcc and _version_or_note(nvcc, "nvcc", []) and Version(nvcc).major != Version(cuda).major:
            # A pasted `nvcc -V` without CUDA_HOME: that nvcc is the one on PATH, which cpp_extension
            # (and flash-attn's, apex's setup.py) use unless CUDA_HOME names another toolkit.
            return [(Status.WARNING, f"nvcc {nvcc} (the one the paste shows) is CUDA {Version(nvcc).major}, torch's is "
                     f"CUDA {cuda}: unless CUDA_HOME points at a CUDA {Version(cuda).major}.x toolkit, building a "
                     f"C++/CUDA extension raises 'The detected CUDA version ({nvcc}) mismatches the version that was "
                     f"used to compile PyTorch ({cuda})' (or the package's own CUDA version check fails)",
                     f"Point CUDA_HOME (and PATH) at a CUDA {Version(cuda).major}.x toolkit",
                     (f"export CUDA_HOME=/usr/local/cuda-{cuda} PATH=/usr/local/cuda-{cuda}/bin:$PATH",))]
        notes.append(f"CUDA toolkit unknown ({home.reason})")
        return []
    install = (f"conda install -c nvidia cuda-toolkit={cuda}  # or NVIDIA's installer / the distribution's "
               f"cuda-toolkit-{cuda.replace('.', '-')} package", f"export CUDA_HOME=/usr/local/cuda-{cuda}")
    if home is None and not builds_extensions:
        notes.append(f"no CUDA toolkit installed: needed only to build CUDA extensions against {label}")
        return []
    if home is None:
        return [(Status.WARNING, f"no CUDA toolkit found (CUDA_HOME and CUDA_PATH unset, no nvcc on PATH, no "
                 f"/usr/local/cuda), so CUDA extensions cannot build against {label}: torch says 'CUDA_HOME "
                 "environment variable is not set'",
                 f"If you build CUDA extensions, install a CUDA {cuda} toolkit and point CUDA_HOME at it", install)]
    if tc.cuda_home_exists is False:
        return [(Status.WARNING, f"CUDA_HOME resolves to {home} ({tc.cuda_home_source}), which does not exist: "
                 "CUDA extensions cannot build", f"Point CUDA_HOME at an installed CUDA {cuda} toolkit", install[1:])]
    if known(tc.nvcc_path) and tc.nvcc_path is None:
        return [(Status.WARNING, f"there is no nvcc in {home}/bin ({tc.cuda_home_source}): building CUDA extensions "
                 f"fails with \"nvcc not found at '{home}/bin/nvcc'\"",
                 f"Point CUDA_HOME at a complete CUDA {cuda} toolkit", install[1:])]
    if not nvcc:
        notes.append("nvcc's version is unknown")
        return []
    have, want = Version(nvcc), Version(cuda)
    if have.major != want.major:
        alternative = suggest(facts, exclude_tag=tables.build_tag(fact(facts, "torch.version"), cuda),
                              accept=lambda _minor, b: Version(b["cuda"]).major == have.major)
        commands = install[1:] + ((alternative.command(pip(facts)),) if alternative else ())
        other = f", or install {alternative.label} to match nvcc" if alternative else ""
        return [(Status.ERROR, f"nvcc {nvcc} (in {home}) is CUDA {have.major}, torch's is CUDA {cuda}: building a "
                 f"C++/CUDA extension with this nvcc raises 'The detected CUDA version ({nvcc}) mismatches the version "
                 f"that was used to compile PyTorch ({cuda})'",
                 f"Point CUDA_HOME at a CUDA {want.major}.x toolkit{other}", commands)]
    if have != want:
        notes.append(f"nvcc {nvcc} differs from torch's CUDA {cuda} in the minor version only: torch warns and builds")
    return []


def _gcc(facts, tc, version, nvcc, gcc, notes):
    """The host gcc against nvcc's range and torch's C++ standard."""
    if not known(tc.gcc_path):
        return []
    if tc.gcc_path is None:
        return [(Status.WARNING, "no gcc on PATH: C++/CUDA extensions cannot build, and neither can torch.compile's "
                 "generated code", "Install gcc/g++", ("sudo apt install build-essential  # or your distribution's gcc g++",))]
    if not gcc:
        notes.append("gcc's version is unknown")
        return []
    problems = []
    bounds = tables.gcc_range_for_nvcc(nvcc) if nvcc else None
    newest = int(bounds[1]) - 1 if bounds else 12
    switch = (f"sudo apt install gcc-{newest} g++-{newest}", f"export CC=gcc-{newest} CXX=g++-{newest}")
    if nvcc and bounds is None:
        notes.append(f"torch defines no gcc bounds for nvcc {nvcc} and only warns")
    elif bounds and not Version(bounds[0]) <= Version(gcc) < Version(bounds[1]):
        too = "newer" if Version(gcc) >= Version(bounds[1]) else "older"
        problems.append((Status.ERROR, f"gcc {gcc} is {too} than nvcc {nvcc} accepts (>= {bounds[0]}, < {bounds[1]}): "
                         "CUDA extensions fail with '#error -- unsupported GNU version!' (torch: 'The current installed "
                         f"version of g++ ({gcc}) is greater than the maximum required version by CUDA {nvcc}')"
                         if too == "newer" else
                         f"gcc {gcc} is older than nvcc {nvcc} accepts (>= {bounds[0]}, < {bounds[1]}): CUDA extensions "
                         "fail with 'unsupported GNU version'",
                         f"Build with gcc {newest}, which nvcc {nvcc} supports (torch passes $CC to nvcc as -ccbin)", switch))
    if version is None:
        return problems
    standard, min_gcc = tables.cxx_standard(version)
    if Version(gcc) < Version(min_gcc):
        problems.append((Status.ERROR, f"gcc {gcc} cannot build extensions for torch {tables.base_version(version)}: "
                         f"they compile with -std={standard}, which gcc accepts from {min_gcc} "
                         f"(\"unrecognized command-line option '-std={standard}'\")",
                         f"Build with gcc {newest}", switch))
    elif standard == "c++20" and Version(gcc) < Version("11.3"):
        notes.append(f"gcc {gcc} takes -std=c++20, but PyTorch's own build asks for gcc >= 11.3 for it (unverified): "
                     "if an extension fails on C++20 features, try a newer gcc")
    return problems
