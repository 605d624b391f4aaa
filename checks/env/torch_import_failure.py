from __future__ import annotations

import re
import signal

from torchdoctor.data import tables
from torchdoctor.model import Fix, Result, error, ok, warning
from torchdoctor.registry import Example, env_check

from ._cuda import cuda_torch_install, suggest
from ._install import NUMPY_ABI, SITE, fact, first, index_url, pip, python_cmd, torch_own_symbol_missing, torch_version

_MISSING_LIB = re.compile(r"(lib[\w+.-]*?\.so(?:\.\d+)*): cannot open shared object file")
_UNDEFINED = re.compile(r"(\S+\.so(?:\.\d+)*): undefined symbol: ([\w@.]+)")
# The same told without the library's file (a sentence retelling the import error).
_UNDEFINED_BARE = re.compile(r"undefined symbol: ([\w@.]+)")
_VERSION_NOT_FOUND = re.compile(r"version [`']([\w.]+)' not found(?: \(required by (\S+?)\))?")
_NO_MODULE = re.compile(r"No module named '([\w.]+)'")
# Windows refusing one of torch's DLLs: torch/__init__.py's "Error loading \"...\\torch\\lib\\c10.dll\" or one of its
# dependencies", the loader's [WinError 126/127/1114], or "DLL load failed" from older torch.
_WINDOWS_DLL = re.compile(r'Error loading "(?:[^"\n]*[/\\])?(?P<dll>[^"/\\\n]+\.dll)(?:"|\s*$)|\[WinError (?P<winerror>126|127|1114)\]|DLL load failed')
_RELATED_LIBS = ("cuda-libs-conflict",)


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _stem(lib: str) -> str:
    return lib.split(".so")[0].split("-")[0]


def _cuda_major(facts) -> str:
    """torch's CUDA major: from version.py, else the version's local tag (+cu117), else the CUDA of
    that release's PyPI wheel (torch 2.0.1 from PyPI is a CUDA 11.7 build); "" if unknown."""
    vf = fact(facts, "packages.torch_version_file")
    if vf is not None and vf.cuda:
        return vf.cuda.split(".")[0]
    found = torch_version(facts)
    if found is None:
        return ""
    local = found[0].partition("+")[2]
    tag = local if local else tables.pypi_default_cuda(found[0])
    m = re.fullmatch(r"cu(\d+)(\d)", tag or "")
    return m.group(1) if m else ""


def _wheel_name(wheel: str, facts) -> str:
    """nvidia-cudnn -> nvidia-cudnn-cu12 for a CUDA 12 torch; CUDA 13 wheels keep -cu13 only for cuDNN and NCCL."""
    major = _cuda_major(facts)
    if major in ("11", "12") or (major and wheel in ("nvidia-cudnn", "nvidia-nccl")):
        return f"{wheel}-cu{major}"
    return wheel if major else f"{wheel}-cu12"


def _reinstall(facts) -> str:
    found = torch_version(facts)
    pin = f"torch=={found[0]}" if found else "torch"
    return f"{pip(facts)} install --force-reinstall {pin}{index_url(found[0] if found else None)}"


def _stack_top(stderr: str) -> str | None:
    """The innermost frame of a faulthandler dump ('most recent call first'), in the crashing thread."""
    start = stderr.find("Current thread")
    for line in stderr[max(start, 0):].splitlines():
        line = line.strip()
        if line.startswith("File "):
            return line
    return None


def _ld_path(facts) -> list[str]:
    return list(fact(facts, "toolchain.ld_library_path", []) or [])


def _missing_library(facts, lib: str, evidence: dict) -> Result:
    stem = _stem(lib)
    if stem == "libcuda":
        return error(
            f"import torch fails: {lib} (the NVIDIA driver's CUDA library) cannot be found. This CUDA build of "
            "torch needs the driver's user-space library; inside a container it is mounted only when the "
            "container is started with GPU access",
            fix=Fix("Start the container with GPU access, install the NVIDIA driver, or use the CPU build of torch",
                    ("docker run --gpus all ...   # NVIDIA Container Toolkit",
                     "ldconfig -p | grep libcuda.so.1   # is the driver library visible?",
                     f"{pip(facts)} install --force-reinstall torch --index-url https://download.pytorch.org/whl/cpu")),
            evidence=evidence, related=("nvidia-driver-not-found",))
    if stem.startswith(("libtorch", "libc10", "libshm", "libcaffe2")):
        return error(f"import torch fails: torch's own library {lib} is missing, so the torch install is incomplete",
                     fix=Fix("Reinstall torch in this interpreter", (_reinstall(facts),)), evidence=evidence)
    # The wheel that ships it (tables.PIP_PACKAGE is keyed by family: "cudnn" for libcudnn).
    wheel = tables.PIP_PACKAGE.get(stem[3:]) if stem.startswith("lib") else None
    if wheel is None:
        hint = " (Debian/Ubuntu: apt-get install libgomp1)" if stem == "libgomp" else ""
        return error(f"import torch fails: the system library {lib} cannot be found",
                     fix=Fix(f"Install the system package that provides {lib}{hint}, then retry",
                             (f"{python_cmd(facts)} -c \"import torch\"",)), evidence=evidence)
    name = _wheel_name(wheel, facts)
    installed = [d for d in fact(facts, "packages.distributions", [])
                 if d.name == wheel or d.name.startswith(wheel + "-cu")]
    where = (f"; {installed[0].name} {installed[0].version} is installed in {installed[0].location}, where this "
             "torch does not look for it") if installed else f"; it comes from the {name} wheel, which is not installed"
    evidence["provided by"] = name
    return error(
        f"import torch fails: {lib} cannot be found{where}. pip installs these CUDA libraries as torch's "
        "dependencies; an install with --no-deps, an interrupted one, or torch and the nvidia-* wheels in "
        "different site-packages (lib vs lib64) leaves them missing",
        fix=Fix("Reinstall torch with its dependencies in this interpreter, so pip brings the CUDA library wheels back",
                (_reinstall(facts), f"{pip(facts)} check")),
        evidence=evidence, related=_RELATED_LIBS)


def _undefined_symbol(facts, lib: str, symbol: str, evidence: dict) -> Result:
    ld = _ld_path(facts)
    unset = ("unset LD_LIBRARY_PATH   # or drop only the CUDA folders from it, then retry:",
             f"{python_cmd(facts)} -c \"import torch\"")
    if ld:
        evidence["LD_LIBRARY_PATH"] = ":".join(ld)
    if symbol.startswith("__nvJitLink"):
        return error(
            f"import torch fails: {lib} needs {symbol}, which the libnvJitLink that was loaded does not have. "
            "An older libnvJitLink (usually a CUDA toolkit on LD_LIBRARY_PATH) shadows the one from the "
            "nvidia-nvjitlink wheel that torch was installed with",
            fix=Fix("Let torch load its own CUDA libraries: remove the CUDA toolkit folders from LD_LIBRARY_PATH "
                    "(or upgrade nvidia-nvjitlink to match nvidia-cusparse)",
                    unset + (f"{pip(facts)} install --upgrade nvidia-nvjitlink-cu12",)),
            evidence=evidence, related=_RELATED_LIBS)
    if symbol == "iJIT_NotifyEvent":
        # MKL 2024.1 dropped the ITT/JIT profiling symbols that conda's pytorch builds (linked against mkl) import.
        return error(
            f"import torch fails: {lib} needs {symbol}, which MKL 2024.1 and later no longer export: a conda env "
            "whose pytorch build links MKL got a newer mkl than it was built against",
            fix=Fix("Pin MKL below 2024.1 in that conda env (or install torch from pip, whose wheels do not use "
                    "conda's mkl)", ('conda install "mkl<2024.1"', f"{python_cmd(facts)} -c \"import torch\"")),
            evidence=evidence, related=("mkl-ijit-notify-event-missing",))
    if symbol.startswith("nccl"):
        return error(
            f"import torch fails: {lib} needs {symbol}, which the libnccl.so.2 that was loaded does not have. "
            "Another NCCL (LD_LIBRARY_PATH, LD_PRELOAD, or a package that ships its own) is older than the one "
            "torch was built with",
            fix=Fix("Remove the other NCCL from LD_LIBRARY_PATH / LD_PRELOAD, or reinstall torch so its pinned "
                    "nvidia-nccl wheel is the one loaded",
                    unset + (_reinstall(facts),)),
            evidence=evidence, related=_RELATED_LIBS)
    if re.match(r"^cu[A-Z]", symbol):
        return error(
            f"import torch fails: {lib} needs the CUDA driver function {symbol}, which the libcuda.so that was "
            "loaded does not have: the NVIDIA driver is older than this torch's CUDA needs, or a stale "
            "libcuda.so (a copy in LD_LIBRARY_PATH, cuda-compat, a stub) is loaded instead of the driver's",
            fix=Fix("Check which libcuda.so is loaded and upgrade the driver, or install a torch built for an older CUDA",
                    ("ldconfig -p | grep libcuda.so", "nvidia-smi   # the 'CUDA Version' the driver supports",
                     _older_cuda_build(facts))),
            evidence=evidence, related=("cuda-driver-symbol-missing",))
    if torch_own_symbol_missing(facts) or (symbol.startswith("_ZN") and "/torch/" in lib):
        return error(
            f"import torch fails: {lib} needs {symbol}, a torch C++ symbol that the other torch libraries do "
            "not have: files of two torch versions are mixed (an interrupted upgrade, or a libtorch on "
            "LD_LIBRARY_PATH)",
            fix=Fix("Reinstall torch so all its libraries come from one version, and keep libtorch off LD_LIBRARY_PATH",
                    (_reinstall(facts),)),
            evidence=evidence, related=("libtorch-pytorch-mixed",))
    if symbol.startswith("_ZN"):
        return error(
            f"import torch fails: {lib} was built against another torch (missing symbol {symbol})",
            fix=Fix("Reinstall the package that owns that library for this torch version, or uninstall it",
                    (f"{pip(facts)} install --force-reinstall <package that owns {lib.rsplit('/', 1)[-1]}>",)),
            evidence=evidence, related=("extension-abi-mismatch",))
    return error(
        f"import torch fails: {lib} needs {symbol}, which none of the loaded libraries provide: a library "
        "of another version (from LD_LIBRARY_PATH or another package) shadows the one torch was built with",
        fix=Fix("Retry without LD_LIBRARY_PATH; if that works, remove the folder that holds the foreign copy",
                unset + (_reinstall(facts),)),
        evidence=evidence, related=_RELATED_LIBS)


def _import_error(facts, t) -> Result:
    etype = t.error_type or "ImportError"
    message = (t.error_message or "").strip()
    text = "\n".join(x for x in (message, t.traceback or "", t.stderr_tail or "") if x)
    last = message.splitlines()[-1] if message else ""
    evidence = {"error": f"{etype}: {last}"}

    m = _MISSING_LIB.search(message) or _MISSING_LIB.search(text)
    if m:
        return _missing_library(facts, m.group(1), evidence)
    m = _UNDEFINED.search(message) or _UNDEFINED.search(text)
    if m:
        return _undefined_symbol(facts, m.group(1), m.group(2), evidence)
    m = _UNDEFINED_BARE.search(message)
    if m:
        return _undefined_symbol(facts, "a torch library", m.group(1), evidence)
    m = _VERSION_NOT_FOUND.search(message)
    if m:
        needed, by = m.group(1), m.group(2) or "a torch library"
        if needed.startswith("GLIBCXX") or needed.startswith("CXXABI"):
            return error(f"import torch fails: {by} needs {needed}, and the libstdc++ that was loaded is older "
                         "(often an old libstdc++ in a conda env or on LD_LIBRARY_PATH)",
                         fix=Fix("Load a newer libstdc++: update it in the conda env, or drop the folder with the old "
                                 "one from LD_LIBRARY_PATH",
                                 ("conda install -c conda-forge libstdcxx-ng   # in a conda env",
                                  "strings $(g++ -print-file-name=libstdc++.so.6) | grep GLIBCXX | tail -3")),
                         evidence=evidence)
        return error(f"import torch fails: {by} needs {needed}, which this system's C library does not provide "
                     "(the wheel was built for a newer Linux)",
                     fix=Fix("Use a newer Linux (or container image), or a torch release built for this glibc",
                             ("ldd --version",)), evidence=evidence)
    m = _NO_MODULE.search(message)
    if etype == "ModuleNotFoundError" and m:
        module = m.group(1)
        if module.startswith("torch._C") or module == "torch._C":
            return error("import torch fails: torch's compiled core (torch._C) cannot be loaded: the torch files "
                         "were built for another Python version, or the torch being imported is an unbuilt "
                         "source checkout",
                         fix=Fix("Reinstall torch for this Python; if you are inside a PyTorch source tree, "
                                 "run from another folder",
                                 (_reinstall(facts), f"{python_cmd(facts)} -c \"import torch; print(torch.__file__)\"")),
                         evidence=evidence)
        top = module.split(".")[0]
        return error(f"import torch fails: it needs the module {module!r}, which is not installed",
                     fix=Fix("Install torch's missing dependency (and let pip check the others)",
                             (f"{pip(facts)} install {top.replace('_', '-')}", f"{pip(facts)} check")),
                     evidence=evidence)
    if _WINDOWS_DLL.search(message):
        said = list(_WINDOWS_DLL.finditer(text))  # text starts with the message
        named = next((d["dll"] for d in said if d["dll"]), None) or "one of torch's DLLs"
        code = next((d["winerror"] for d in said if d["winerror"]), None)
        # 126 (module not found) and 1114 (initialisation failed) are what a missing or old MSVC runtime gives;
        # 127 (procedure not found) is DLLs of two torch versions in torch\lib, an interrupted upgrade.
        if code == "127":
            return error(f"import torch fails: Windows loaded {named} but a function it needs is missing (WinError 127): "
                         "torch\\lib holds DLLs of two torch versions, or another program's DLL on PATH shadows one of them",
                         fix=Fix("Reinstall torch cleanly so torch\\lib holds one version's DLLs",
                                 (f"{pip(facts)} uninstall -y torch torchvision torchaudio", _reinstall(facts))),
                         evidence=evidence, related=("windows-dll-load-failure",))
        return error(f"import torch fails: Windows could not load {named}"
                     + (f" (WinError {code})" if code else "")
                     + ": usually the Microsoft Visual C++ 2015-2022 Redistributable (x64) is missing or too old, "
                     "or an old CUDA/cuDNN folder on PATH shadows a DLL torch ships",
                     fix=Fix("Install or repair the latest Visual C++ Redistributable (x64), open a new terminal and "
                             "import torch again; if it still fails, reinstall torch",
                             ("winget install Microsoft.VCRedist.2015+.x64", f"{python_cmd(facts)} -c \"import torch\"",
                              _reinstall(facts))),
                     evidence=evidence, related=("windows-dll-load-failure",))
    if NUMPY_ABI.search(" ".join(text.split())):
        return error(f"import torch fails on a NumPy ABI mismatch: {last}",
                     fix=Fix("Install a NumPy this torch was built for, or a torch built for NumPy 2 (2.3+)",
                             (f"{pip(facts)} install \"numpy<2\"",)),
                     evidence=evidence, related=("numpy-abi-mismatch",))
    return error(f"import torch fails: {etype}: {last}",
                 fix=Fix("Read the traceback in the evidence; if it points inside torch, reinstall torch in this interpreter",
                         (_reinstall(facts), f"{python_cmd(facts)} -c \"import torch\"")),
                 evidence={**evidence, "traceback": t.traceback} if t.traceback else evidence)


def _older_cuda_build(facts) -> str:
    """The install command of a build this driver runs, or one with an obvious placeholder."""
    build = suggest(facts)
    if build is not None:
        return build.command(pip(facts))
    return cuda_torch_install(facts)


@env_check(
    code="TE101",
    name="torch-import-failure",
    title="Importing torch works",
    area="torch",
    needs=("torch.import_status",),
    examples=[
        Example("ok", {"torch": {"import_status": "ok", "version": "2.13.0+cpu", "duration_s": 2.1}}),
        Example("warning", {"torch": {"import_status": "not-installed"}}, "an interpreter without torch cannot train",
                contains="not installed"),
        Example("error", {"torch": {
            "import_status": "import-error", "error_type": "ImportError",
            "error_message": "libcudnn.so.9: cannot open shared object file: No such file or directory"},
            "packages": {"torch_version_file": {"path": f"{SITE}/torch/version.py", "version": "2.5.1+cu124",
                                                "cuda": "12.4"}}},
            "pip left the cuDNN wheel out", contains="nvidia-cudnn-cu12"),
        Example("error", {"torch": {
            "import_status": "import-error", "error_type": "ImportError",
            "error_message": f"{SITE}/torch/lib/../../nvidia/cusparse/lib/libcusparse.so.12: undefined symbol: "
                             "__nvJitLinkComplete_12_4, version libnvJitLink.so.12"},
            "toolchain": {"ld_library_path": ["/usr/local/cuda-12.1/lib64"]}},
            "a CUDA toolkit on LD_LIBRARY_PATH shadows the pip nvJitLink", contains="unset LD_LIBRARY_PATH"),
        Example("error", {"torch": {
            "import_status": "import-error", "error_type": "ImportError",
            "error_message": f"{SITE}/torch/lib/libtorch_cuda.so: undefined symbol: ncclCommRegister"}},
            "another NCCL is loaded", contains="NCCL"),
        Example("error", {"torch": {
            "import_status": "import-error", "error_type": "ModuleNotFoundError",
            "error_message": "No module named 'typing_extensions'"}}, contains="install typing-extensions"),
        Example("error", {"torch": {"import_status": "crashed", "signal": 11, "error_message": "killed",
                                    "stderr_tail": "Fatal Python error: Segmentation fault\n\nCurrent thread "
                                    "0x00007f3a (most recent call first):\n  File \"/usr/lib/python3.10/ctypes/"
                                    "__init__.py\", line 374 in __init__\n"}},
                "segfault during the import", contains="SIGSEGV"),
        Example("error", {"torch": {"import_status": "crashed", "signal": 9, "stderr_tail": ""}},
                "the OOM killer", contains="dmesg"),
        Example("error", {"torch": {"import_status": "timeout", "stderr_tail": ""}}, "hang", contains="importtime"),
        Example("error", {"torch": {"import_status": "import-error", "error_type": "OSError",
                                    "error_message": "[WinError 1114] A dynamic link library (DLL) initialization routine "
                                    "failed. Error loading \"C:\\venv\\Lib\\site-packages\\torch\\lib\\c10.dll\" "
                                    "or one of its dependencies."}},
                "Windows cannot initialise torch's DLL", contains="Visual C++"),
        Example("error", {"torch": {"import_status": "import-error", "error_type": "OSError",
                                    "error_message": "[WinError 127] The specified procedure could not be found. Error "
                                    "loading \"C:\\venv\\Lib\\site-packages\\torch\\lib\\torch_cpu.dll\" or one "
                                    "of its dependencies."}},
                "DLLs of two torch versions", contains="two torch versions"),
    ],
)
def torch_import_failure(facts):
    """
    ## What it checks
    That `import torch` works in the diagnosed interpreter. torchdoctor imports torch in a child
    process with a time limit, so an import that raises, kills the process (segfault) or hangs is
    reported here instead of taking torchdoctor down. The error is classified: a missing CUDA
    library (`libcudnn.so.9: cannot open shared object file`), an undefined symbol from clashing
    libraries (`__nvJitLinkComplete_12_4`, `ncclCommRegister`), a NumPy ABI mismatch, a missing
    dependency, a crash or a hang.

    ## Why it matters
    Nothing else works when torch does not import, and the raw error names a symptom (a `.so`
    file, a symbol) rather than its cause: usually pip's nvidia-* wheels missing, or CUDA
    libraries from `LD_LIBRARY_PATH` shadowing the ones torch was installed with.

    ## How to fix
    Follow the fix for the class of error: reinstall torch with its dependencies in this
    interpreter; remove CUDA toolkit folders from `LD_LIBRARY_PATH`; `pip install "numpy<2"` for
    an old torch; run with `-X faulthandler` to see where a crash happens.
    """
    t = facts.torch
    status = t.import_status
    if status == "ok":
        took = fact(facts, "torch.duration_s")
        name = " ".join(x for x in ("torch", fact(facts, "torch.version")) if x)
        when = f" ({took:.1f} s in a child process)" if isinstance(took, (int, float)) else ""
        return ok(f"{name} imports{when}")
    if status == "not-installed":
        leftover = " (torch metadata without the package is reported by TE102)" if first(facts, "torch") else ""
        # Not a skip: "No problems found" about an interpreter that cannot train at all misleads.
        return warning(f"torch is not installed in {fact(facts, 'python.executable', 'this interpreter')}{leftover}: "
                       "nothing here can train or run a model",
                       fix=Fix("Install the torch build for this machine (the selector at "
                               "https://pytorch.org/get-started/locally/ gives the exact command)",
                               (f"{pip(facts)} install torch",)))
    if status == "not-importable":
        return warning("collect_env could not import torch ('PyTorch version: N/A'): torch is not installed in the Python "
                       "that ran it, or `import torch` fails there, and every torch fact of the report is missing",
                       fix=Fix("Run the import in that same Python to see which: the error it prints names the cause "
                               "(a missing library, a wrong NumPy, another torch shadowing this one)",
                               (f"{python_cmd(facts)} -c \"import torch; print(torch.__version__)\"",)))
    stderr = t.stderr_tail if isinstance(t.stderr_tail, str) else ""
    frame = _stack_top(stderr)
    evidence = {"stack (innermost frame)": frame} if frame else {}
    if stderr:
        evidence["stderr (end)"] = "\n".join(stderr.strip().splitlines()[-12:])
    if status == "crashed":
        sig = t.signal if isinstance(t.signal, int) else None
        what = f"was killed by {_signal_name(sig)} (signal {sig})" if sig else "ended the process"
        where = f", in {frame}" if frame else ""
        if sig == 9:
            return error(f"import torch {what}{where}: it was killed from outside, usually by the out-of-memory "
                         "killer or a resource limit (ulimit -v, a container or job memory limit)",
                         fix=Fix("Check the kernel log for the OOM killer and raise the memory limit",
                                 ("dmesg | grep -i -E 'killed process|out of memory' | tail", "ulimit -a")),
                         evidence=evidence)
        return error(
            f"import torch {what}{where}. A native library loaded during the import crashed: most often a foreign "
            "copy of a CUDA, OpenMP or C++ runtime library from LD_PRELOAD / LD_LIBRARY_PATH, or a broken torch install",
            fix=Fix("Check whether a foreign library causes it (import without LD_PRELOAD / LD_LIBRARY_PATH); "
                    "if the crash stays, reinstall torch",
                    (f"env -u LD_PRELOAD -u LD_LIBRARY_PATH {python_cmd(facts)} -X faulthandler -c \"import torch\"",
                     _reinstall(facts))),
            evidence=evidence)
    if status == "timeout":
        message = t.error_message if isinstance(t.error_message, str) and t.error_message else "import torch did not finish"
        return error(
            message + (f"; it was stuck in {frame}" if frame else "") +
            ". Slow storage (network home, many small files), a hanging driver call or a lock held by "
            "another process are the usual causes",
            fix=Fix("Find the module that is slow or stuck",
                    (f"{python_cmd(facts)} -X importtime -c \"import torch\" 2> importtime.log; sort -t'|' -k2 -n importtime.log | tail",
                     f"timeout -s INT 600 {python_cmd(facts)} -X faulthandler -c \"import torch\"")),
            evidence=evidence)
    return _import_error(facts, t)
