"""The torch probe: runs in a child process of the target interpreter, never in torchdoctor's own.

Standard library only and Python 3.8 syntax: this file is sent as text with
`python -X faulthandler -c <this file + main(...)>`. It imports torch with warnings recorded, reads
what torch says about its build WITHOUT creating a CUDA context (no torch.backends.cudnn.version(),
no get_arch_list()), and prints JSON between markers. The JSON is printed twice: once right after
the import, and once after torch.cuda.is_available(), so that a probe that hangs or dies in the
driver still reports what the import told it. A value that cannot be read is {"unknown": reason}.
"""

import faulthandler
import json
import os
import re
import sys
import traceback
import warnings

# CUDA-family shared objects worth reporting when mapped into the process.
_CUDA_LIB = re.compile(
    r"^lib(cuda|cudart|cudnn\w*|cublas\w*|nccl|nvJitLink|cusparse\w*|cusolver\w*|cufft\w*|curand|nvrtc\S*"
    r"|cupti|nvToolsExt|nvshmem\w*|cufile\w*|nvidia-ml|torch_cuda\w*|c10_cuda)[-.].*so",
    re.I,
)


def _emit(marker, out):
    sys.stdout.flush()
    sys.stderr.flush()
    data = (marker + json.dumps(out, default=str) + marker + "\n").encode("utf-8")
    os.write(1, data)  # past any replaced sys.stdout


def _unknown(exc):
    return {"unknown": "%s: %s" % (type(exc).__name__, exc)}


def _dotted(value):
    if value is None:
        return None
    if isinstance(value, (tuple, list)):
        return ".".join(str(v) for v in value)
    return str(value)


def _nccl_text(value):
    if isinstance(value, (tuple, list)):
        return ".".join(str(v) for v in value[:3]) + ("-" + str(value[3]) if len(value) > 3 and value[3] else "")
    if isinstance(value, int):  # old torch: 2708 -> 2.7.8; NCCL >= 2.9: 21803 -> 2.18.3
        if value >= 10000:
            return "%d.%d.%d" % (value // 10000, value % 10000 // 100, value % 100)
        return "%d.%d.%d" % (value // 1000, value % 1000 // 100, value % 100)
    return str(value)


def _loaded_libraries():
    seen = []
    try:
        with open("/proc/self/maps") as fh:
            for line in fh:
                parts = line.split(None, 5)
                if len(parts) < 6:
                    continue
                path = parts[5].strip()
                if path.startswith("/") and path not in seen and _CUDA_LIB.match(os.path.basename(path)):
                    seen.append(path)
    except OSError as exc:
        return _unknown(exc)
    return seen


def _get(out, key, fn):
    try:
        out[key] = fn()
    except Exception as exc:
        out[key] = _unknown(exc)


def _numpy_version():
    module = sys.modules.get("numpy")
    if module is not None:
        return str(getattr(module, "__version__", "")) or None
    try:
        import importlib.util

        if importlib.util.find_spec("numpy") is None:
            return None
        from importlib import metadata

        return metadata.version("numpy")
    except Exception:
        return None


def _build_facts(torch, out):
    out["version"] = str(torch.__version__)
    out["file"] = str(torch.__file__)
    version = getattr(torch, "version", None)
    _get(out, "cuda", lambda: getattr(version, "cuda", None))
    _get(out, "hip", lambda: getattr(version, "hip", None))
    _get(out, "debug", lambda: bool(getattr(version, "debug", False)))
    _get(out, "git_version", lambda: str(getattr(version, "git_version", "")))
    C = getattr(torch, "_C", None)
    cudnn = getattr(C, "_cudnn", None)
    if cudnn is None:
        out["cudnn_compiled"] = out["cudnn_runtime"] = None
    else:  # these read versions only; torch.backends.cudnn.version() would initialise CUDA
        _get(out, "cudnn_compiled", lambda: _dotted(cudnn.getCompileVersion()))
        _get(out, "cudnn_runtime", lambda: _dotted(cudnn.getRuntimeVersion()))
    if hasattr(C, "_nccl_version"):
        def nccl():
            import torch.cuda.nccl

            return _nccl_text(torch.cuda.nccl.version())

        _get(out, "nccl", nccl)
    else:
        out["nccl"] = None

    def arch_list():  # get_arch_list() returns [] whenever no GPU is usable; the flags do not
        flags = getattr(C, "_cuda_getArchFlags", None)
        value = flags() if flags is not None else None
        return value.split() if value else []

    _get(out, "arch_list", arch_list)
    _get(out, "cxx11_abi", lambda: bool(C._GLIBCXX_USE_CXX11_ABI))
    out["numpy_version"] = _numpy_version()
    out["loaded_libraries"] = _loaded_libraries()


def _warning_texts(caught):
    texts = []
    for w in caught:
        text = "%s: %s" % (w.category.__name__, w.message)
        if text not in texts:
            texts.append(text)
    return texts


def _family_imports():
    """Import torchvision / torchaudio next to the torch just imported: whether they load is the
    ground truth that version arithmetic can only approximate ("operator torchvision::nms does
    not exist" from a CUDA torchvision beside a CPU torch)."""
    import importlib
    import importlib.util

    found = []
    for name in ("torchvision", "torchaudio"):
        try:
            if importlib.util.find_spec(name) is None:
                continue
        except Exception:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                module = importlib.import_module(name)
                found.append({"name": name, "ok": True, "version": str(getattr(module, "__version__", "")) or None,
                              "error_type": None, "error_message": None})
            except BaseException as exc:
                found.append({"name": name, "ok": False, "version": None, "error_type": type(exc).__name__,
                              "error_message": str(exc)[:2000]})
    return found


def main(marker, dump_after):
    if sys.path and sys.path[0] in ("", os.getcwd()):
        del sys.path[0]  # the probe's cwd; a torch/ folder there must not pass for the installed one
    if dump_after:  # a hang prints every thread's stack to stderr before the parent kills us
        faulthandler.dump_traceback_later(dump_after, exit=False)
    out = {"stage": "import"}
    try:
        import importlib.util

        missing = importlib.util.find_spec("torch") is None
    except Exception:
        missing = False
    if missing:
        out.update(import_status="not-installed", error_type=None, error_message=None, traceback=None,
                   signal=None, warnings=[])
        _emit(marker, out)
        return
    with warnings.catch_warnings(record=True) as caught:
        try:
            import torch
        except BaseException as exc:  # SystemExit and KeyboardInterrupt from a broken import too
            not_installed = isinstance(exc, ImportError) and getattr(exc, "name", None) == "torch"
            out.update(import_status="not-installed" if not_installed else "import-error",
                       error_type=type(exc).__name__, error_message=str(exc),
                       traceback=traceback.format_exc(), signal=None, warnings=_warning_texts(caught))
            _emit(marker, out)
            return
        out.update(import_status="ok", error_type=None, error_message=None, traceback=None, signal=None)
        _build_facts(torch, out)
        out["stage"] = "cuda"
        out["warnings"] = _warning_texts(caught)
        _emit(marker, out)
        # Child-only: these touch the driver (cudaGetDeviceCount), which is where a wedged GPU hangs.
        cuda = getattr(torch, "cuda", None)
        _get(out, "cuda_available", lambda: bool(cuda.is_available()))
        _get(out, "device_count", lambda: int(cuda.device_count()))
        out["loaded_libraries"] = _loaded_libraries()
        out["warnings"] = _warning_texts(caught)
        out["stage"] = "family"
        _emit(marker, out)
        # Last, so a torchvision that kills the process still leaves the torch and CUDA answers.
        out["family_imports"] = _family_imports()
    out["stage"] = "done"
    if dump_after:
        faulthandler.cancel_dump_traceback_later()
    _emit(marker, out)
