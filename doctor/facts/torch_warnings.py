"""The warnings torch itself prints about the driver and the GPUs, read back from text.

collect_env imports torch, so a report often starts with them, and people paste them alone.
They are torch's own verdict, made on the machine: the reader keeps them (torch.warnings, one
line each) and TE201/TE202 take them as evidence when the facts they would judge are missing.

The messages, by torch version (torch/cuda/__init__.py):

* `_check_driver` / `CUDAFunctions.cpp`: "The NVIDIA driver on your system is too old (found
  version 11040)": the number is the CUDA version the driver supports (11040 = 11.4).
* "CUDA driver version is insufficient for CUDA runtime version" (cudaErrorInsufficientDriver), and
  "the provided PTX was compiled with an unsupported toolchain" (cudaErrorUnsupportedPtxVersion: PTX
  from a CUDA newer than the driver's JIT compiler).
* The driver API's "Error 804: forward compatibility was attempted on non supported HW" and "Error 803:
  system has unsupported display driver / cuda driver combination", relayed by torch: a cuda-compat
  libcuda on a GPU without forward compatibility, or a libcuda that is not the kernel driver's.
* "Found no NVIDIA driver on your system" (`_check_driver`): no driver library answered at all; read
  as the fact that the process saw no NVIDIA driver.
* torch <= 1.4: "Found GPU0 NAME which is of cuda capability 3.0. PyTorch no longer supports this
  GPU because it is too old. The minimum cuda capability (that we support | supported by this
  library) is 3.5."
* torch 1.5 to 2.6: "NAME with CUDA capability sm_120 is not compatible with the current PyTorch
  installation. The current PyTorch install supports CUDA capabilities sm_50 ... sm_90."
* torch 2.5 to 2.6 too: "Found GPU0 NAME which is of cuda capability 12.1. Minimum and Maximum
  cuda capability supported by this version of PyTorch is (8.0) - (12.0)": a range check that
  also fires for GPUs the build runs fine (12.1 runs sm_120 code), so it is judged, not trusted.
* torch 2.7+: "Found GPU0 NAME which is of compute capability (CC) 7.0. The following list shows
  the CCs this version of PyTorch was built for and the hardware CCs it supports: - 7.5 which
  supports hardware CC >=7.5,<8.0 ..."
* torch 1.8 and 1.9 printed the too-old warning through `str.format` with `%d` placeholders, so it
  reads "Found GPU%d %s which is of cuda capability %d.%d." literally: it says a GPU is too old
  without naming it (the report's GPU list has to say which).

And two verdicts raised rather than warned, just as much torch's own word:

* "Torch not compiled with CUDA enabled" (`torch.cuda._lazy_init`): this torch is a CPU-only build
  and the code asked for CUDA.
* torch.load's "Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is
  False" and Ultralytics'/YOLOv5's "Invalid CUDA 'device=0' requested": the code asked for a CUDA
  device torch cannot give (beside a build known to be CPU-only, TE203's hedged warning).
* torchvision's "Detected that PyTorch and torchvision were compiled with different CUDA (major)
  versions. PyTorch has CUDA Version=11.7 and torchvision has CUDA Version=11.8"
  (torchvision/extension.py).
* torch.backends.cudnn's "cuDNN version incompatibility: PyTorch was compiled against (8, 7, 0) but
  found runtime version (8, 2, 4)" ("but linked against" before torch 1.13): another cuDNN was
  loaded instead of the one torch ships.
* torch 1.0-1.3's cuDNN check printed versions as integers: "cuDNN version mismatch (or
  incompatibility): PyTorch was compiled against 7102 but linked against 7600" (7102 = 7.1.2).
* torchaudio's own CUDA check: "Detected that PyTorch and TorchAudio were compiled with different
  CUDA versions. PyTorch has CUDA version 11.8 whereas TorchAudio has CUDA version 11.7".
* The dynamic loader refusing torchvision's or torchaudio's compiled library ("torchaudio/lib/
  libtorchaudio.so: undefined symbol: ...") and torchvision's "operator torchvision::nms does not
  exist": the package's C++ part was built for another torch release (or CUDA variant).
* torchvision's "Couldn't load custom C++ ops. This can happen if your PyTorch and torchvision
  versions are incompatible, or if you had errors while compiling torchvision from source": its
  ops did not load, by its own hedge for one of two reasons (kind "family-ops").
* xFormers' "xFormers can't load C++/CUDA extensions. xFormers was built for: PyTorch 2.1.2+cu121
  with CUDA 1201 (you have 2.1.0+cpu)": its compiled part was built for another torch (or Python).
* NumPy's refusal printed while torch imports: "A module that was compiled using NumPy 1.x cannot
  be run in NumPy 2.0.0", and torch's "Failed to initialize NumPy: _ARRAY_API not found" (TE104).
* torch.utils.cpp_extension's "The detected CUDA version (12.1) mismatches the version that was
  used to compile PyTorch (11.8)": the toolkit (nvcc) an extension build found is another CUDA
  major than torch's. Before pytorch#59665 (mid-2021) any difference raised, and with setuptools
  < 49.4 a minor difference still raised until pytorch#97602 (2023): a minor mismatch in an old
  report can be the failure too.
* pip's "Could not find a version that satisfies the requirement torch==1.13.1+cu117 (from versions:
  2.0.0, ...)": no wheel of that torch for this Python and platform (not torch's words, but the
  installer's verdict on them).
* DeepSpeed's op builder's "Installed CUDA version 12.0 does not match the version torch was compiled
  with 11.8, unable to compile cuda/cpp extensions without a matching cuda version": the same refusal.
* flash-attn's setup.py "FlashAttention is only supported on CUDA 11.6 and above": the toolkit at
  CUDA_HOME (its nvcc) is older than that.
* nvcc's own "nvcc fatal : Unsupported gpu architecture 'compute_86'" in an extension build: the
  toolkit predates an architecture the build targets (the GPU's, or TORCH_CUDA_ARCH_LIST's).
* The dynamic loader refusing one of CUDA's own libraries for an undefined symbol (cuDNN 8's "Could
  not load library libcudnn_cnn_train.so.8. Error: <path>: undefined symbol: ..."; a wheel's
  libcusparse.so.12 missing __nvJitLinkComplete_12_4): two CUDA releases' libraries are mixed (TE204).
* The loader's "undefined symbol: _ZN2at..." quoted without its file, under the `import torchaudio` (or
  any extension) that raised it: the same refusal, of the module imported.
* DGL's "Cannot find DGL C++ sparse library at .../libdgl_sparse_pytorch_1.9.0.so" (or graphbolt's), also
  retold ("can't find c++ library graphbolt"): this DGL ships no library for this torch release.
* k2's build record (`python -m k2.version`): "Cuda used to build k2:" (empty for a CPU build) and
  "PyTorch version used to build k2: 1.13.1": the torch release and CUDA its ops were compiled for.
* The CUDA runtime's "no kernel image is available for execution on the device" (error 209;
  THC's "cuda runtime error (209)"): nothing loaded has code for the GPU.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


def _phrase(words: str) -> str:
    """A fixed message phrase whose spaces may be line breaks: terminals, rich and Colab wrap
    torch's and torchvision's long one-line messages ("...compiled with different\nCUDA versions").
    The space before an opening parenthesis may be gone: people retyping or quoting a message in
    prose squeeze it ('is too old(found version 8000)'), and retype it in another case ('torch not
    compiled with cuda enabled')."""
    out = ""
    for i, w in enumerate(words.split()):
        out += ("" if i == 0 else r"\s*" if w.startswith("(") else r"\s+") + re.escape(w)
    return f"(?i:{out})"


_DRIVER_OLD = re.compile(_phrase("NVIDIA driver on your system is too old (found version") + r"\s*(\d+)\)"
                         # Its words shortened by whoever retells it, the number kept: "NVIDIA driver too old (found 12070)".
                         r"|(?i:NVIDIA\s+driver\s+(?:is\s+)?too\s+old\s*\(\s*found\s+(?:version\s+)?)(\d{4,5})\)")
_INSUFFICIENT = re.compile(_phrase("CUDA driver version is insufficient for CUDA runtime version"))
# The same message pasted without its "(found version N)" tail (cut by the paste, or retyped): still torch's
# verdict on the driver, only without the CUDA version the driver supports.
_DRIVER_OLD_CUT = re.compile(_phrase("The NVIDIA driver on your system is too old") + r"(?!\s*\(\s*found)")
# The same verdict retold in a sentence, when only the reporter's words carry it ("the msg is that my Nvidia
# version is too old", "it says the GPU driver is too old"): a statement, not a question ("is my driver too old?").
_DRIVER_OLD_SAID = re.compile(r"(?i:\b(?:says?|said|msg|message|error|warning|tells? me|prompts?(?:[ \t]+me)?)\b[^.?!\n]{0,40}?"
                              r"\b(?:(?:nvidia|gpu|cuda)[ \t]+(?:driver[ \t]+)?|(?:the[ \t]+)?driver[ \t]+)(?:version[ \t]+)?(?:is|was)"
                              r"[ \t]+too[ \t]+(?:old|low)\b)(?![^\n]{0,3}\?)")
# cudaErrorUnsupportedPtxVersion (222): PTX (torch's compute_XX code, or Triton's kernels) made by a CUDA
# newer than the driver's JIT compiler.
_PTX_TOOLCHAIN = re.compile(_phrase("the provided PTX was compiled with an unsupported toolchain"))
# The CUDA driver API's refusals that a cuda-compat libcuda causes, as torch relays them ("Unexpected error
# from cudaGetDeviceCount() ... Error 804: forward compatibility was attempted on non supported HW"; "Error
# 803: system has unsupported display driver / cuda driver combination").
_COMPAT_804 = re.compile(_phrase("forward compatibility was attempted on non supported HW")
                         # CUDA's error number alone, told in a sentence ("the messages with the error 804 are there").
                         + r"|(?i:\b(?:cuda[ \t]+)?error[ \t]*(?:code[ \t]*)?[:#]?[ \t]*804\b)")
_COMPAT_803 = re.compile(_phrase("system has unsupported display driver / cuda driver combination"))
# The NVIDIA container runtime refusing to start an image whose CUDA the host driver predates: "nvidia-container-cli:
# requirement error: unsatisfied condition: cuda>=12.8, please update your driver to a newer version, or use an earlier
# cuda container". The image's torch is built for that CUDA (or an older one the image also carries).
_CONTAINER_CUDA = re.compile(r"(?i:unsatisfied\s+condition:\s+cuda\s*>=\s*)(?P<need>\d+\.\d+)(?i:,?\s+please\s+update\s+your\s+driver)")
# An NGC container's own start-up banner (nvcr.io images: PyTorch, NeMo, TensorRT-LLM, Triton): "ERROR: This container
# was built for NVIDIA Driver Release 535.86 or later, but version 510.85.02 was detected and compatibility mode is
# UNAVAILABLE." The image's CUDA needs that driver; forward compatibility (datacenter GPUs only) did not apply.
_CONTAINER_DRIVER = re.compile(r"This\s+container\s+was\s+built\s+for\s+NVIDIA\s+Driver\s+Release\s+(?P<need>\d{3}(?:\.\d+){0,2})\s+or\s+"
                               r"later,\s+but\s+version\s+(?P<found>\d{3}(?:\.\d+){1,2})\s+was\s+detected\s+and\s+compatibility\s+"
                               r"mode\s+is\s+UNAVAILABLE")
# torch's _check_driver when no driver library answers: "Found no NVIDIA driver on your system. Please
# check that you have an NVIDIA GPU and installed a driver from http://www.nvidia.com/Download/index.aspx".
NO_DRIVER = re.compile(_phrase("Found no NVIDIA driver on your system"))
# Retold without the GPU's name too ("I met `CUDA capability sm_86 is not compatible with the current PyTorch
# installation.`"): the capability alone is torch's verdict.
_INCOMPATIBLE = re.compile(
    r"(?:(?P<name>[^\n:]{1,120}?) with )?CUDA capability sm_(?P<sm>\d{2,3})\s+"
    + _phrase("is not compatible with the current PyTorch installation") + r"\.?\s*(?:"
    + _phrase("The current PyTorch install supports CUDA capabilities") + r"\s+(?P<archs>[a-z_0-9 ]+))?")
_TOO_OLD = re.compile(
    r"Found GPU(?P<idx>\d+) (?P<name>[^\n]{1,120}?) which is of cuda capability (?P<cc>\d+\.\d+)\.?\s*"
    r"PyTorch no longer supports this GPU because it is too old\.?\s*"
    r"(?:The minimum cuda capability (?:that we support|supported by this library) is (?P<min>\d+\.\d+))?")
# torch's _check_capability (torch 1.2 on) for a Turing GPU under a CUDA <= 9.0 build: "Found GPU0 GeForce RTX 2080 Ti
# which requires CUDA_VERSION >= 10000 to work properly, but your PyTorch was compiled with CUDA_VERSION 9000."
# (torch 0.3/0.4's "... for optimal performance and fast startup time" variant is about PTX JIT, not failure.)
_NEEDS_CUDA = re.compile(
    r"Found GPU(?P<idx>\d+) (?P<name>[^\n]{1,120}?) which requires CUDA_VERSION >= (?P<need>\d{4,5})\s+to\s+work\s+"
    r"properly,\s+but your PyTorch was compiled\s+with CUDA_VERSION (?P<have>\d{4,5})")
_RANGE = re.compile(
    r"Found GPU(?P<idx>\d+) (?P<name>[^\n]{1,120}?) which is of cuda capability (?P<cc>\d+\.\d+)\.?\s*"
    r"Minimum and Maximum cuda capability supported by this version of PyTorch is\s*"
    r"\((?P<min>\d+\.\d+)\)\s*-\s*\((?P<max>\d+\.\d+)\)")
_CC_LIST = re.compile(
    r"Found GPU(?P<idx>\d+) (?P<name>[^\n]{1,120}?) which is of compute capability \(CC\) (?P<cc>\d+\.\d+)\.?\s*"
    r"The following list shows the CCs this version of PyTorch was built for[^\n]*"
    r"(?P<list>(?:\s*-\s*\d+\.\d+ which supports[^\n]*)+)")
_CC_ENTRY = re.compile(r"-\s*(\d+)\.(\d+) which supports")
_TOO_OLD_UNFORMATTED = re.compile(
    r"Found GPU%d %s which is of cuda capability %d\.%d\.?\s*PyTorch no longer supports this GPU because it is too old\.?")
_NOT_COMPILED = re.compile(_phrase("Torch not compiled with CUDA enabled"))
# The code asking for a CUDA device that torch cannot give: torch.load's "Attempting to deserialize
# object on a CUDA device but torch.cuda.is_available() is False", Ultralytics/YOLOv5's select_device
# ("Invalid CUDA 'device=0' requested", "Invalid CUDA '--device 0' requested", "CUDA unavailable,
# invalid device 0 requested"). Whether the build or the machine lacks CUDA, they do not say.
_CUDA_ASKED = re.compile(
    _phrase("Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False")
    + r"|Invalid\s+CUDA\s+'(?:--device\s+|device=)[^'\n]{0,40}'\s+requested"
    + r"|" + _phrase("CUDA unavailable, invalid device") + r"\s+\S{1,40}\s+requested")
# Its second sentence alone is the whole verdict, and people paste or retell just that one ("PyTorch has CUDA
# Version=11.7 and torchvision has CUDA Version=11.8.").
_FAMILY_CUDA = re.compile(
    r"(?:" + _phrase("Detected that PyTorch and") + r"\s+(?P<named>torchvision|torchaudio)\s+"
    + _phrase("were compiled with different CUDA") + r"\s+(?:major\s+)?versions\.?\s*)?"
    + _phrase("PyTorch has CUDA") + r"\s+Version\s*=\s*(?P<torch>\d+\.\d+)\s+and\s+(?P<pkg>torchvision|torchaudio)\s+has\s+CUDA\s+"
    r"Version\s*=\s*(?P<other>\d+\.\d+)")
# torch.utils.cpp_extension's refusal to build: nvcc's CUDA major differs from torch's (older torch
# raised on any difference). The raise statement quoted from the source carries no numbers.
_TOOLKIT = re.compile(_phrase("The detected CUDA version") + r"\s*\((?P<nvcc>\d+(?:\.\d+)*)\)\s*"
                      + _phrase("mismatches the version that was used to compile PyTorch")
                      + r"\s*\((?P<torch>\d+(?:\.\d+)*)\)")
# DeepSpeed's op builder, the same refusal in its words (deepspeed/ops/op_builder/builder.py
# assert_no_cuda_mismatch): ">- DeepSpeed Op Builder: Installed CUDA version 12.0 does not match the version torch
# was compiled with 11.8, unable to compile cuda/cpp extensions without a matching cuda version." A minor
# difference it accepts is printed as "... compiled with 11.8 but since the APIs are compatible, accepting this
# combination": not a refusal, so the match needs "unable to".
_DS_TOOLKIT = re.compile(_phrase("Installed CUDA version") + r"\s+(?P<nvcc>\d+(?:\.\d+)*)\s+"
                         + _phrase("does not match the version torch was compiled with")
                         + r"\s+(?P<torch>\d+(?:\.\d+)*),?\s+unable\s+to")
# nvcc refusing an architecture it predates: "nvcc fatal   : Unsupported gpu architecture 'compute_86'"
# (cpp_extension asks for the visible GPUs' architectures, or for TORCH_CUDA_ARCH_LIST's).
# Retold in a title or a sentence it loses its colon and capital: "nvcc fatal unsupported gpu architecture 'compute_86'".
_NVCC_ARCH = re.compile(r"nvcc fatal\s*:?\s*(?i:unsupported gpu architecture) ['‘`]?(?:compute|sm)_(?P<arch>\d+)[a-z]?\b['’`]?")
# An application checking its own Python, A1111's and its forks' INCOMPATIBLE PYTHON VERSION banner: "This program
# is tested with 3.10.6 Python, but you have 3.11.2." The app installs its own pinned torch and packages, which may
# have no build for the other Python: the app's verdict, where the report names no torch.
_APP_PYTHON = re.compile(r"This program is tested with (?P<tested>3\.\d{1,2}(?:\.\d{1,2})?) Python, but you have "
                         r"3\.\d{1,2}(?:\.\d{1,2})?(?!\d)")
# A package's setup.py refusing the toolkit at CUDA_HOME as too old: flash-attn's "FlashAttention is only
# supported on CUDA 11.6 and above.  Note: make sure nvcc has a supported version by running nvcc -V."
_TOOLKIT_MIN = re.compile(r"(?P<pkg>FlashAttention) is only supported on CUDA (?P<min>\d+\.\d+) and above")
# pip finding no wheel of the torch asked for, for this Python and platform: "ERROR: Could not find a
# version that satisfies the requirement torch==1.13.1+cu117 (from versions: 2.0.0, 2.0.0+cu117)".
# Its words in any case: people retype it ("ERROR: could not find a version ...").
# Asked for plain `torch`, pip names no version: "... the requirement torch (from versions: none)" and
# "No matching distribution found for torch" mean no torch wheel at all fits this Python and platform.
_NO_WHEEL = re.compile(r"(?i:Could not find a version that satisfies the requirement torch)(?:\s*===?\s*(?P<version>\d[\w.+]*)"
                       r"(?:\s*\(from versions:[^)]*\))?|\s*\(from versions:\s*none\s*\))"
                       r"|(?i:No matching distribution found for torch)(?:\s*===?\s*(?P<version2>\d[\w.+]*)|(?![\w.-]))"
                       # conda's UnsatisfiableError, one line per spec the environment's Python rules out: "- pytorch=1.4.0 ->
                       # python[version='>=3.6,<3.7.0a0|...']" (the pytorch channel has no build of 1.4.0 for that Python).
                       # uv: "Distribution `torch==2.8.0 @ registry+https://pypi.org/simple` can't be installed because it
                       # doesn't have a source distribution or wheel for the current platform", and its hint "You're using
                       # CPython 3.14 (`cp314`), but `torch` (v2.8.0) only has wheels with the following Python ABI tags".
                       r"|(?i:Distribution\s+`?torch==)(?P<version4>\d[\w.+]*)[^\n`]{0,80}?`?\s+(?i:can't\s+be\s+installed\s+because\s+it\s+"
                       r"doesn't\s+have\s+a\s+source\s+distribution\s+or\s+wheel\s+for\s+the\s+current\s+platform)"
                       r"|`?torch`?\s+\(v(?P<version5>\d[\w.+]*)\)\s+(?i:only\s+has\s+wheels\s+with\s+the\s+following\s+Python\s+ABI\s+tags)"
                       r"|(?<![\w-])pytorch==?(?P<version3>\d+\.\d+(?:\.\d+)?)(?:=\S+)?\s*->\s*python\[version=[^\]\n]*\]"
                       # pip settling for torch's 2017 source release, the only file of plain `torch` left when no wheel
                       # fits ("Collecting torch\n  Using cached .../torch-0.1.2.post2.tar.gz"), and that sdist's own refusal.
                       r"|(?i:(?:Downloading|Using cached)\s+\S*?\btorch-0\.1\.2(?:\.post\d+)?\.tar\.gz)"
                       r"|PyTorch does not currently provide packages for PyPI"
                       # poetry: "Installing torch (1.13.1): Failed ... RuntimeError ... Unable to find installation
                       # candidates for torch (1.13.1)" (no file of that release fits this interpreter and platform).
                       r"|(?i:Unable\s+to\s+find\s+installation\s+candidates\s+for\s+torch)\s+\((?P<version6>\d[\w.+]*)\)"
                       # uv naming the platform no wheel fits: "torch>=2.7.0 has no wheels with a matching platform tag
                       # (e.g., `macosx_13_0_x86_64`)", "torch{platform_machine == ...}==2.11.0+cpu has no wheels ...".
                       r"|(?<![\w-])torch(?:\{[^}\n]{0,200}\})?\s*(?:(?:==|>=|~=)\s*(?P<version7>\d[\w.+]*))?\s+"
                       r"(?i:has\s+no\s+wheels\s+with\s+a\s+matching\s+platform\s+tag)\s+\(e\.g\.,\s+`?[\w.]+`?\)")
# The CUDA runtime finding no kernel for the GPU in what was loaded (cudaErrorNoKernelImageForDevice,
# 209; torch <= 1.4 printed it as THC's "cuda runtime error (209)").
# ... also retold shorter ("CUDA error: no kernel image available", "no kernel image is available for execution on device").
_NO_KERNEL = re.compile(r"no\s+kernel\s+image\s+(?:is\s+)?available(?:\s+for\s+execution\s+on\s+(?:the\s+)?device)?", re.I)
# CUDA <= 9's wording of the same refusal (cudaErrorInvalidDeviceFunction, "cuda runtime error (8) : invalid device
# function" from torch 0.x): the GPU has no kernel of the build. A project's own extension built for other GPUs
# raises it too, so the check reads it as likely, not as torch's verdict.
_INVALID_FUNCTION = re.compile(r"(?i:cuda runtime error \(8\)\s*:\s*invalid device function|\berror=8 : invalid device function|"
                               r"CUDA error: invalid device function)")
_CUDNN = re.compile(r"cuDNN version incompatibility: PyTorch was compiled\s+against \((\d+), (\d+), (\d+)\) "
                    r"but (?:found runtime version|linked against) \((\d+), (\d+), (\d+)\)")
_CUDNN_INT = re.compile(r"cuDNN version (?:incompatibility|mismatch): PyTorch was compiled\s+against (\d{4,5}) "
                        r"but linked against (\d{4,5})")
# torchaudio's words ("... whereas TorchAudio has CUDA version ..."), and the same check in the PyG extensions and
# other packages that copy torchvision's (torch_scatter, torch_sparse, torch_cluster, torch_spline_conv: "PyTorch has
# CUDA version 10.2 and torch_sparse has CUDA version 11.1").
_FAMILY_CUDA_WHEREAS = re.compile(
    _phrase("Detected that PyTorch and") + r"\s+(?P<pkg>[A-Za-z_][\w.-]{1,40})\s+"
    + _phrase("were compiled with different CUDA versions.") + r"\s*" + _phrase("PyTorch has CUDA version")
    + r"\s+(?P<torch>\d+\.\d+)\s+(?:whereas|and)\s+(?P=pkg)\s+has\s+CUDA\s+version\s+(?P<other>\d+\.\d+)")
# torch 1.9-1.12 split libtorch_cuda into libtorch_cuda_cpp/libtorch_cuda_cu; a torchvision/torchaudio/torchtext built
# against one of those releases asks for a library the installed torch does not ship (or the other way round). A
# verdict only with the package named just before: the library alone does not say whose build asked for it.
_SPLIT_CUDA_LIB = re.compile(r"(?:\b(?P<pkg>torchaudio|torchvision|torchtext)\b[^\n]{0,200}?\n?[^\n]{0,60}?)?"
                             r"libtorch_cuda_(?:cpp|cu)\.so:\s*cannot open shared object file")
_FAMILY_SYMBOL = re.compile(r"(?:[~\w.:-]*[/\\])*(?P<pkg>torchvision|torchaudio)[/\\](?:[\w.-]+[/\\])*[\w.-]+\.(?:so|pyd|dylib)[\w.]*:"
                            r"\s*undefined symbol:\s*\S+")
# The same refusal in macOS's and Windows's words: dlopen(.../torchaudio/lib/libtorchaudio.so, 0x0006):
# Symbol not found: ..., and "[WinError 127] The specified procedure could not be found. Error loading
# "...\\torchaudio\\lib\\libtorchaudio.pyd"".
_FAMILY_DYLD = re.compile(r"dlopen\((?:[^,()]*[/\\])?(?P<pkg>torchvision|torchaudio)[/\\][^,()]*\.(?:so|dylib)[^,()]*,[^)]*\):"
                          r"\s*Symbol not found:\s*\S+")
_FAMILY_WIN127 = re.compile(r"\[WinError 127\][^\n]*?Error loading \"(?:[^\"]*[/\\])?(?P<pkg>torchvision|torchaudio)"
                            r"[/\\][^\"]*\.(?:pyd|dll)[^\"]*\"")
# The loader refusing a third-party compiled extension installed beside torch (mmcv's _ext, torch_scatter's,
# detectron2's _C, apex's) for a symbol of torch's own C++ (c10::, at::, torch::, caffe2::, also "typeinfo for"):
# "site-packages/mmcv/_ext.cpython-37m-x86_64-linux-gnu.so: undefined symbol: _ZTIN3c1021AutogradMetaInterfaceE".
# Such a library is compiled against one torch's headers, so it was built for another torch release (or ABI).
# torch's own files (TE102) and torchvision's/torchaudio's (above) are not matched here.
# The path starts where its run of path characters does (searched from inside one, the directories would be
# rescanned from every character: quadratic on a long path-like token).
_EXTENSION_SYMBOL = re.compile(
    r"(?P<file>(?<![~\w.:+\-/\\])(?:[~\w.:+-]*[/\\])*?(?:site|dist)-packages[/\\](?!(?:torch|torchvision|torchaudio|nvidia)[/\\.])"
    r"(?P<pkg>[A-Za-z_][\w-]*)(?:[/\\][\w.+-]+)*?\.(?:so|pyd)[\w.]*):\s*undefined symbol:\s*"
    r"(?P<symbol>_Z(?:T[IVS])?N[KVR]*(?:3c10|2at|5torch|6caffe2)\w*)")
# The same refusal for a Python extension module anywhere, not only in a package directory of site-packages: a
# top-level module ("site-packages/_k2.cpython-37m-x86_64-linux-gnu.so") or a source build's
# ("k2/build/lib/_k2.cpython-38-x86_64-linux-gnu.so"). torch's own modules (torch/_C...) are TE102's.
_EXTENSION_MODULE_SYMBOL = re.compile(
    r"(?P<file>(?<![~\w.:+\-/\\])(?:[~\w.:+-]*[/\\])*?(?P<mod>[A-Za-z_]\w*)\.(?:cpython-[\w-]+|abi3)\.so):\s*"
    r"undefined symbol:\s*(?P<symbol>_Z(?:T[IVS])?N[KVR]*(?:3c10|2at|5torch|6caffe2)\w*)")
_TORCH_OWN_DIR = re.compile(r"[/\\]torch(?:vision|audio)?[/\\]")
# The same refusal with the path cut to the package's own directory ("torch_scatter/_version_cuda.so: undefined
# symbol: _ZN5torch3jit..."), as a traceback's last line prints it relative to site-packages.
_EXTENSION_PKG_SYMBOL = re.compile(
    r"(?<![~\w.:+\-/\\])(?P<pkg>(?!(?:torch|torchvision|torchaudio|nvidia)[/\\])[A-Za-z_]\w*)[/\\](?:[\w.+-]+[/\\])*?"
    r"[\w.+-]+\.(?:so|pyd)[\w.]*:\s*undefined symbol:\s*(?P<symbol>_Z(?:T[IVS])?N[KVR]*(?:3c10|2at|5torch|6caffe2)\w*)")
# The same refusal quoted without its file, under the import that raised it ("Then `import torchaudio` results in
# the error\n\n     undefined symbol: _ZN2at4_ops15sum_dim_IntList4call..."): the module imported is the one whose
# library the loader refused. The refusal opens its line (with a path before it, the patterns above read it), and no
# other import stands between. torch's own import is TE102's.
_IMPORTED_SYMBOL = re.compile(
    r"\bimport\s+(?P<mod>(?!torch\b)[A-Za-z_]\w*)(?:(?!\bimport\b)[^\n]){0,200}\n(?:(?!\bimport\b)[^\n]{0,200}\n){0,4}?"
    r"[ \t>`]*(?:\w*Error:\s*)?undefined symbol:\s*(?P<symbol>_Z(?:T[IVS])?N[KVR]*(?:3c10|2at|5torch|6caffe2)\w*)")
# ... as find() keeps it, on one line.
_IMPORTED_SYMBOL_KEPT = re.compile(r"\bimport\s+(?P<mod>(?!torch\b)[A-Za-z_]\w*)(?:(?!\bimport\b).){0,400}?(?<![\w/\\.]\.so: )"
                                   r"(?<!\.pyd: )undefined symbol:\s*(?P<symbol>_Z(?:T[IVS])?N[KVR]*(?:3c10|2at|5torch|6caffe2)\w*)")
# k2's own build record (`python -m k2.version`, k2/version/version.py): "Cuda used to build k2: 11.7" (empty for a CPU
# build) and, lines later, "PyTorch version used to build k2: 1.13.1". k2 is compiled against one torch release and
# one CUDA (or none), so beside another torch (or a CUDA torch, for a CPU k2) its ops do not load or lack CUDA.
_K2_BUILD = re.compile(r"Cuda used to build k2:(?P<cuda>[ \t]*(?:\d+\.\d+)?)[^\n]*\n(?:[^\n]*\n){0,12}?"
                       r"PyTorch version used to build k2:[ \t]*(?P<torch>\d+\.\d+(?:\.\d+)?)")
# ... as find() keeps it, on one line.
_K2_BUILD_KEPT = re.compile(r"Cuda used to build k2:(?P<cuda>[ \t]*(?:\d+\.\d+)?)(?:(?!PyTorch version used).){0,800}?"
                            r"PyTorch version used to build k2:[ \t]*(?P<torch>\d+\.\d+(?:\.\d+)?)")
# DGL loading its C++ parts built per torch release (dgl/sparse/__init__.py, dgl/graphbolt/__init__.py): "Cannot find
# DGL C++ sparse library at .../dgl/dgl_sparse/libdgl_sparse_pytorch_1.9.0.so", "... graphbolt library at
# ...\\graphbolt_pytorch_2.4.1.dll". The file is named for the running torch's release; a DGL wheel ships one per
# torch release it was built for, so the missing file says this DGL was not built for this torch.
def _dgl_file(group: str) -> str:
    """DGL's per-torch library file ("graphbolt_pytorch_2.4.1.dll"), its torch release in the group `group`."""
    return rf"(?:dgl_sparse|graphbolt)_pytorch_(?P<{group}>\d+\.\d+\.\d+)\.(?:so|dylib|dll)"


_DGL_LIBRARY = re.compile(r"Cannot find DGL C\+\+ (?P<part>sparse|graphbolt) library at\s+(?P<path>\S*?" + _dgl_file("torch") + ")")
# ... and the same retold in the reporter's words, without the file ("I meet this question: can't find c++ library
# graphbolt"): which torch it looked for is not said.
_DGL_LIBRARY_SAID = re.compile(r"(?i:\b(?:can'?t|cannot|could\s+not|unable\s+to)\s+find\s+(?:the\s+)?(?:dgl\s+)?c\+\+\s+"
                               r"(?:(?P<part>sparse|graphbolt)\s+library(?!\s+at\s)|library\s+(?P<part2>sparse|graphbolt)))\b")
# ... and the library's file named missing in the reporter's words ("There is no such file `graphbolt_pytorch_2.4.1.dll`",
# "dgl_sparse_pytorch_2.1.2.so not found"): the torch release DGL looked for is in its name.
_DGL_LIBRARY_FILE = re.compile(r"(?i:no\s+such\s+file|cannot\s+find|can'?t\s+find|could\s+not\s+find|missing)[^\n]{0,20}?"
                               + _dgl_file("torch") + "|" + _dgl_file("torch2")
                               + r"`?\s+(?i:(?:is\s+)?(?:not\s+found|missing|does\s*n[o']?t\s+exist))")
# torchao skipping its compiled kernels for a torch it was not built for (torchao/__init__.py): "Skipping import
# of cpp extensions due to incompatible torch version 2.9.1+cu129 for torchao version 0.16.0".
_TORCHAO_SKIPPED = re.compile(_phrase("Skipping import of cpp extensions due to incompatible torch version")
                              + r"\s+(?P<have>\d[\w.+]*\w)\s+" + _phrase("for torchao version") + r"\s+(?P<version>\d[\w.+]*\w)")
# Open3D's own guard for its torch ops (open3d/ml/torch/__init__.py), each Open3D release built for one torch minor:
# "Exception: Version mismatch: Open3D needs PyTorch version 1.8.*, but version 2.0.1+cpu is installed!".
_OPEN3D_TORCH = re.compile(_phrase("Version mismatch: Open3D needs PyTorch version") + r"\s+(?P<needs>\d+\.\d+)\.\*,?\s+"
                           + _phrase("but version") + r"\s+(?P<have>\d[\w.+]*\w)\s+" + _phrase("is installed"))
# A package's setup refusing the toolkit for another CUDA than torch's, in k2's words (k2/get_version.py):
# "AssertionError: PyTorch is built with CUDA version: 11.7.\nThe current running CUDA version is: 10.2.89".
_BUILT_WITH_RUNNING = re.compile(_phrase("PyTorch is built with CUDA version:") + r"\s*(?P<torch>\d+\.\d+)\.?\s+"
                                 + _phrase("The current running CUDA version is:") + r"\s*(?P<nvcc>\d+\.\d+)(?:\.\d+)*")
# nvcc refusing the host compiler (CUDA's crt/host_config.h): "#error -- unsupported GNU version! gcc versions later
# than 8 are not supported!" (the MSVC twin: "unsupported Microsoft Visual Studio version! Only the versions between
# 2017 and 2022 (inclusive) are supported!"). The host compiler is newer than this nvcc takes.
_HOST_COMPILER = re.compile(r"unsupported GNU version! gcc versions later than (?P<gcc>\d+) are not supported"
                            r"|unsupported Microsoft Visual Studio version! Only the versions between (?P<vs_min>\d{4}) "
                            r"and (?P<vs_max>\d{4}) \(inclusive\)"
                            # torch's own check before it calls nvcc (cpp_extension._check_cuda_version): "The current
                            # installed version of g++ (12.2.1) is greater than the maximum required version by CUDA 11.7
                            # (11.5.0)".
                            r"|The current installed version of g\+\+ \((?P<gxx>\d[\d.]*)\) is greater than the maximum "
                            r"required version by CUDA (?P<gxx_cuda>\d+\.\d+)(?:\.\d+)? \((?P<gxx_max>\d[\d.]*)\)")
# NVRTC (torch's run-time compiler: TorchScript's fusers, jiterator) refusing the GPU's architecture, which its CUDA
# predates: "RuntimeError: nvrtc: error: invalid value for --gpu-architecture (-arch)".
_NVRTC_ARCH = re.compile(_phrase("nvrtc: error: invalid value for --gpu-architecture"))
# torch's headers refusing an older C++ standard (c10/util/C++17.h: "#error You need C++17 to compile PyTorch"; the
# C++20 headers of later releases the same way): the extension is compiled as C++14 (a -std=c++14 in its setup.py or
# CMakeLists, for older torch) or by a compiler without that standard.
_CXX_STANDARD = re.compile(r"#\s*error:?\s+(?:--\s+)?You need C\+\+(?P<std>\d{2}) to compile PyTorch")
# pip installing a compiled extension from its project's wheel index, whose URL names the torch (and CUDA) the
# wheels were built for: OpenMMLab's ("pip install mmcv-full -f https://download.openmmlab.com/mmcv/dist/cu101/
# torch1.6/index.html"), detectron2's (".../detectron2/wheels/cu102/torch1.9/index.html") and PyG's
# ("-f https://data.pyg.org/whl/torch-1.10.0+cu113.html"). Each wheel there is built against that torch minor.
_INDEX_INSTALL = re.compile(r"pip3?\s+install\b[^\n]*?(?:download\.openmmlab\.com/mmcv/dist/|/detectron2/wheels/|"
                            r"(?:data\.pyg\.org|pytorch-geometric\.com)/whl/)[^\n]*")
_INDEX_BUILT_FOR = (
    re.compile(r"download\.openmmlab\.com/mmcv/dist/(?P<cu>cu\d+|cpu)/torch(?P<torch>\d+\.\d+)(?:\.\d+)?/index\.html"),
    re.compile(r"/detectron2/wheels/(?P<cu>cu\d+|cpu)/torch(?P<torch>\d+\.\d+)/index\.html"),
    re.compile(r"(?:data\.pyg\.org|pytorch-geometric\.com)/whl/torch-(?P<torch>\d+\.\d+)(?:\.\d+)?\+(?P<cu>cu\d+|cpu)\.html"),
)
# A release wheel whose local version names the torch minor and CUDA it was built against, as flash-attn,
# mamba-ssm and causal-conv1d publish theirs on GitHub ("mamba_ssm-1.0.1+cu118torch1.12cxx11abiTRUE-cp39-cp39-
# linux_x86_64.whl"): its compiled part links against that torch's C++ and nothing else, and against the std::string
# of the C++ ABI it names (cxx11abiTRUE: the C++11 one).
_WHEEL_BUILT_FOR = re.compile(r"(?<![\w.-])(?P<pkg>[A-Za-z][A-Za-z0-9_]*)-(?P<version>\d+(?:\.\d+)+(?:\.post\d+)?)\+"
                              r"(?:(?P<cu>cu\d+|cpu)torch(?P<torch>\d+\.\d+)cxx11abi(?P<abi>TRUE|FALSE)"
                              # ... and as ComfyUI nodes' bundled wheels name it: "custom_rasterizer-0.1.0+torch260.cuda126-cp312-..."
                              r"|torch(?P<torch_digits>[12]\d{2,3})\.(?:cuda(?P<cuda_digits>\d{3})|(?P<cpu>cpu)))"
                              r"-cp\d+-[\w]+-[\w]+\.whl")
_INDEXED_PACKAGE = re.compile(r"(?<![\w/.-])(mmcv-full|mmcv|detectron2|torch[-_](?:scatter|sparse|cluster|spline[-_]conv)|"
                              r"pyg[-_]lib|torch[-_]geometric)(?=[\s=<>~!]|$)", re.I)
_FAMILY_NMS = re.compile(r"operator (?P<pkg>torchvision)::nms does not exist")
# The dispatcher finding no CUDA kernel for one of torchvision's operators ("Could not run 'torchvision::nms' with
# arguments from the 'CUDA' backend. ... 'torchvision::nms' is only available for these backends: [CPU, Meta, ...]"):
# the torchvision loaded registered its operators for the CPU only, a CPU build beside a CUDA torch. A list that does
# name CUDA is another story (the kernel exists), so the list, where pasted, is kept to be read.
_CUDA_BACKEND = re.compile(r"(?<!\w)CUDA(?!\w)")
_FAMILY_NO_CUDA = re.compile(r"Could not run '(?P<pkg>torchvision)::\w+' with arguments from the 'CUDA' backend\."
                             r"(?:[^\[\]\n]{0,400}?is only available for these backends: \[(?P<backends>[^\]\n]{0,2000})\])?")
# torchvision's _assert_has_ops (torchvision/extension.py) when its compiled ops did not load: "Couldn't load custom
# C++ ops. This can happen if your PyTorch and torchvision versions are incompatible, or if you had errors while
# compiling torchvision from source." Its own hedge: another torch's build, or a failed source build.
_FAMILY_OPS = re.compile(_phrase("Couldn't load custom C++ ops. This can happen if your PyTorch and torchvision "
                                 "versions are incompatible"))
# The dynamic loader refusing one of CUDA's own libraries for a missing symbol: cuDNN 8 loading its
# sub-libraries ("Could not load library libcudnn_cnn_train.so.8. Error: /usr/local/cuda-12.3/lib64/
# libcudnn_cnn_train.so.8: undefined symbol: ..., version libcudnn_cnn_infer.so.8"), or a pip wheel's
# cuSPARSE given an older nvJitLink ("nvidia/cusparse/lib/libcusparse.so.12: undefined symbol:
# __nvJitLinkComplete_12_4, version libnvJitLink.so.12"). A CUDA library's symbols are there in its own
# release, so the library and what it was linked with come from two releases: a CUDA library conflict.
_CUDA_LIB_SYMBOL = re.compile(
    r"(?:Could not load library \S+?\.?\s+Error:\s*)?(?P<path>(?:[\w.+~-]*/)*lib(?P<lib>cudnn\w*|cublas(?:Lt)?|cusparse\w*"
    r"|cusolver\w*|cufft\w*|curand|nvJitLink|nvrtc\w*|nccl|cudart|cupti)\.so[\d.]*):\s*undefined symbol:\s*[\w@.]+"
    r"(?:,\s*version\s+(?P<other>lib[\w.]+?\.so[\d.]*\d))?")
# xFormers refusing its compiled part (xformers/_cpp_lib.py): "xFormers was built for: PyTorch 2.1.2+cu121
# with CUDA 1201 (you have 2.1.0+cpu) Python 3.10.11 (you have 3.10.11)" ("with CUDA None" where its build
# recorded none).
_XFORMERS_BUILT = re.compile(
    r"xFormers was built for:\s*PyTorch\s+(?P<built>\S+)(?:\s+with CUDA\s+(?:\d+|None))?\s*\(you have (?P<have>[^)\s]+)\)"
    r"(?:\s*Python\s+(?P<built_py>\d[\w.]*)\s*\(you have (?P<have_py>\d[\w.]*)\))?")
# The other direction, NumPy 1.x's own check: a module built against a newer NumPy C API than the installed one
# (TE104 reads it from the warning this file keeps; the fix is a newer NumPy).
NUMPY_TOO_OLD = re.compile(r"module compiled against (?:ABI|API) version (?P<built>0x[0-9a-fA-F]+) but this version of "
                           r"numpy is (?P<installed>0x[0-9a-fA-F]+)")
_NUMPY_ABI = re.compile(_phrase("A module that was compiled using NumPy 1.x cannot be run in") + r"\s+NumPy\s+\d[\w.]*\w"
                        + r"|" + _phrase("Failed to initialize NumPy: _ARRAY_API not found") + "|" + NUMPY_TOO_OLD.pattern)
# What may stand before a GPU name on its line: a log prefix ("...py:235: UserWarning:"), a quote
# opening a one-line citation ('this issue "NVIDIA ...'), a docker-compose or journald prefix.
_BEFORE_NAME = re.compile(r'^.*(?:Warning:|["\u201c\u201d`|>\]]|: )\s*')
_SPACES = re.compile(r"\s+")


@dataclass(frozen=True)
class Said:
    """What one warning says. kind: "driver" (driver too old for the build) or "arch" (a GPU
    without kernels in the build). `text` is the warning, on one line."""

    kind: str  # also "forward-compat" (Error 804/803, in package), "cpu-build" (not compiled with CUDA), "family" (torchvision's CUDA differs),
    # "family-ops" (torchvision's ops did not load: another torch's build or a failed source build), "family-no-cuda"
    # (torchvision's operators have no CUDA kernel: a CPU build of it beside a CUDA torch), "cudnn",
    # "toolkit" (cpp_extension: nvcc's CUDA is not torch's), "toolkit-arch" (nvcc predates the architecture cc),
    # "cuda-lib-symbol" (the loader refused a CUDA library, in package its path; in requested the library
    # the symbol was looked for in, where the message names it), "extension-symbol" (the loader refused a
    # third-party compiled extension for a symbol of torch's C++: in package its top-level directory, in
    # requested the symbol), "arch-cuda" (torch: the GPU needs a newer CUDA than the build's: needs_cuda, and the
    # build's in requested), "index-built-for" (pip installing a compiled extension from its project's index for
    # one torch: built_for is (that torch's minor, its CUDA tag)), "per-torch-library" (DGL found no C++ library of its
    # own for this torch release: in requested that release where the message names it, retold where only the reporter
    # says it), "built-for" (an extension's own build record: built_for is (the torch release it was built against,
    # its CUDA or "cpu")), "nvrtc-arch" (NVRTC refused the GPU's architecture), "toolkit-std" (torch's headers need the C++
    # standard in requested), "app-python" (an application's own Python check failed: the Python it is tested with in
    # requested; the interpreter's version is read as python.version, by the prose reader). "driver" with package
    # "nvidia-container-cli": the container runtime's CUDA requirement (needs_cuda);
    # with package "ngc-container": an NGC image's banner, the driver it needs and the one it found (needs_driver, found_driver)
    text: str
    gpu: str | None = None  # None where the warning does not name it (torch 1.8/1.9's unfilled template)
    cc: str | None = None
    driver_cuda: str | None = None  # "11.4", from "found version 11040"
    archs: tuple[str, ...] = ()  # the build's arch list as the warning prints it
    package: str | None = None  # "family": torchvision or torchaudio
    requested: str | None = None  # "no-wheel": the torch version pip was asked for and found no wheel of (None: any)
    retold: bool = False  # "driver": the reporter's words for the verdict, not torch's own message
    too_old: bool = False  # "arch": torch said the GPU is too old for it (not only that no kernel was found)
    needs_cuda: str | None = None  # "toolkit-old": the oldest CUDA toolkit the package's build accepts; "toolkit-gcc" from torch's
    # own g++ check (package "g++"): the CUDA whose g++ bound it applied
    needs_driver: str | None = None  # "driver" from an NGC container's banner: the driver release its CUDA needs
    found_driver: str | None = None  # ... and the driver it detected
    built_for: tuple[str, str] | None = None  # "family" from xFormers: (the torch it was built for, the torch here)
    cxx11_abi: bool | None = None  # "index-built-for" from a wheel's name: built with the C++11 ABI (cxx11abiTRUE) or not
    cuda_pair: tuple[str, str] | None = None  # "family": (torch's CUDA, the package's CUDA), None where the
    # loader refused its library (undefined symbol, torchvision::nms missing); "cudnn": (built, found);
    # "toolkit": (torch's CUDA, nvcc's), package "deepspeed" where DeepSpeed's op builder said it


def _one_line(text: str) -> str:
    return _SPACES.sub(" ", text).strip()


def _gpu_name(raw: str) -> str:
    """The GPU name at the end of whatever shares its line: "...py:235: UserWarning: NVIDIA ...",
    'came across this issue "NVIDIA ...', "vllm-1  | NVIDIA ...", "[Bug]: NVIDIA ..."."""
    return _BEFORE_NAME.sub("", raw).strip(" `'\"")


# Fixed words every match of a costly pattern holds: a text without them skips its scans. (The GPU name
# read lazily before "with CUDA capability" was tried at every position of every report, and cost more
# than the other patterns together.)
_REQUIRED = {_INCOMPATIBLE: "CUDA capability sm_", _FAMILY_SYMBOL: "undefined symbol:",
             _CUDA_LIB_SYMBOL: "undefined symbol:", _EXTENSION_SYMBOL: "undefined symbol:",
             _EXTENSION_MODULE_SYMBOL: "undefined symbol:"}


def find(text: str) -> list[str]:
    """The warnings in `text`, one line each, in order; a repeated warning once."""
    spans = []
    flat = text.replace("\n", " ")
    for pattern in (_DRIVER_OLD, _DRIVER_OLD_CUT, _INSUFFICIENT, _DRIVER_OLD_SAID, _PTX_TOOLCHAIN, NO_DRIVER, _COMPAT_804, _COMPAT_803, _INCOMPATIBLE, _TOO_OLD, _RANGE, _CC_LIST, _TOO_OLD_UNFORMATTED,
                    _NOT_COMPILED, _NEEDS_CUDA, _CUDA_ASKED, _XFORMERS_BUILT, _FAMILY_CUDA, _FAMILY_CUDA_WHEREAS, _SPLIT_CUDA_LIB, _CUDNN, _CUDNN_INT, _TOOLKIT, _DS_TOOLKIT, _TOOLKIT_MIN, _NO_WHEEL, _NVCC_ARCH, _NO_KERNEL, _INVALID_FUNCTION, _NUMPY_ABI, _FAMILY_SYMBOL, _FAMILY_DYLD, _FAMILY_WIN127, _FAMILY_NMS, _FAMILY_NO_CUDA, _FAMILY_OPS, _CUDA_LIB_SYMBOL, _EXTENSION_SYMBOL, _EXTENSION_MODULE_SYMBOL, _EXTENSION_PKG_SYMBOL, _TORCHAO_SKIPPED, _OPEN3D_TORCH, _BUILT_WITH_RUNNING, _HOST_COMPILER, _INDEX_INSTALL, _WHEEL_BUILT_FOR, _IMPORTED_SYMBOL, _DGL_LIBRARY,
                    _DGL_LIBRARY_SAID, _DGL_LIBRARY_FILE, _K2_BUILD, _CONTAINER_CUDA, _CONTAINER_DRIVER, _CXX_STANDARD, _NVRTC_ARCH, _APP_PYTHON):
        required = _REQUIRED.get(pattern)
        if required is not None and required not in flat:  # (flat holds every substring text holds but line breaks)
            continue
        matches = list(pattern.finditer(text))
        if not matches:
            # Wrapped by a mail client, a notebook or a terminal at a space: the same message with a line
            # break for a space (same length, so the spans hold for `text` too).
            matches = list(pattern.finditer(flat))
        for m in matches:
            start = m.start()
            if pattern is _INCOMPATIBLE and m.group("name") is not None:
                name_start, name_end = m.span("name")
                start = text.rfind("\n", name_start, name_end) + 1 or name_start
                start += len(text[start:name_end]) - len(_gpu_name(text[start:name_end]))
            spans.append((start, m.end()))
    out: list[str] = []
    for start, end in sorted(spans):
        line = _one_line(text[start:end])
        if line not in out:
            out.append(line)
    return out


def _cudnn_dotted(number: str) -> str:
    """cudnnGetVersion() as a dotted version: 7102 -> 7.1.2 (major*1000 + minor*100 + patch before
    cuDNN 9), 90100 -> 9.1.0 (major*10000 + minor*100 + patch from 9)."""
    n = int(number)
    if n >= 10000:
        return f"{n // 10000}.{n // 100 % 100}.{n % 100}"
    return f"{n // 1000}.{n // 100 % 10}.{n % 100}"


def _cc_int(cc: str) -> int:
    major, minor = cc.split(".")
    return int(major) * 10 + int(minor)


def interpret(warnings: list[str] | None) -> list[Said]:
    """torch's verdicts in `warnings` (torch.warnings): only those that say something is wrong."""
    said: list[Said] = []
    for text in warnings or []:
        m = _DRIVER_OLD.search(text)
        if m:
            number = int(m.group(1) or m.group(2))
            said.append(Said("driver", text, driver_cuda=f"{number // 1000}.{number % 1000 // 10}"))
            continue
        if _COMPAT_804.search(text) or _COMPAT_803.search(text):
            said.append(Said("forward-compat", text, package="804" if _COMPAT_804.search(text) else "803"))
            continue
        if _INSUFFICIENT.search(text) or _PTX_TOOLCHAIN.search(text) or _DRIVER_OLD_CUT.search(text):
            said.append(Said("driver", text))
            continue
        m = _CONTAINER_CUDA.search(text)
        if m:
            said.append(Said("driver", text, package="nvidia-container-cli", needs_cuda=m.group("need")))
            continue
        m = _CONTAINER_DRIVER.search(text)
        if m:
            said.append(Said("driver", text, package="ngc-container", needs_driver=m.group("need"),
                             found_driver=m.group("found")))
            continue
        if _DRIVER_OLD_SAID.search(text):
            said.append(Said("driver", text, retold=True))
            continue
        m = _INCOMPATIBLE.search(text)
        if m:
            sm = m.group("sm")
            archs = tuple((m.group("archs") or "").split())
            name = _gpu_name(m.group("name")) if m.group("name") else "a GPU"
            said.append(Said("arch", text, name, f"{sm[:-1]}.{sm[-1]}", archs=archs))
            continue
        if _TOO_OLD_UNFORMATTED.search(text):
            said.append(Said("arch", text, too_old=True))
            continue
        if _NOT_COMPILED.search(text):
            said.append(Said("cpu-build", text))
            continue
        if _CUDA_ASKED.search(text):
            said.append(Said("cuda-asked", text))
            continue
        m = _CUDNN.search(text)
        if m:
            said.append(Said("cudnn", text, cuda_pair=(".".join(m.group(1, 2, 3)), ".".join(m.group(4, 5, 6)))))
            continue
        m = _CUDNN_INT.search(text)
        if m:
            built, found = _cudnn_dotted(m.group(1)), _cudnn_dotted(m.group(2))
            if built != found:
                said.append(Said("cudnn", text, cuda_pair=(built, found)))
            continue
        m = _TOOLKIT.search(text)
        ds = None if m else _DS_TOOLKIT.search(text)
        if m or ds:
            m = m or ds
            if m.group("nvcc") != m.group("torch"):
                said.append(Said("toolkit", text, package="deepspeed" if ds else None,
                                 cuda_pair=(m.group("torch"), m.group("nvcc"))))
            continue
        m = _APP_PYTHON.search(text)
        if m:
            said.append(Said("app-python", text, requested=m.group("tested")))
            continue
        m = _NO_WHEEL.search(text)
        if m:
            said.append(Said("no-wheel", text, package="torch",
                             # each installer's wording names the release in its own group (version, version2, ...)
                             requested=next((v for k, v in m.groupdict().items() if k.startswith("version") and v), None)))
            continue
        m = _TOOLKIT_MIN.search(text)
        if m:
            said.append(Said("toolkit-old", text, package="flash-attn", needs_cuda=m.group("min")))
            continue
        m = _NVCC_ARCH.search(text)
        if m:
            arch = m.group("arch")
            said.append(Said("toolkit-arch", text, cc=f"{arch[:-1]}.{arch[-1]}"))
            continue
        if _NO_KERNEL.search(text) or _INVALID_FUNCTION.search(text):
            said.append(Said("arch", text))
            continue
        m = _FAMILY_CUDA.search(text) or _FAMILY_CUDA_WHEREAS.search(text)
        if m:
            if m.group("torch") != m.group("other"):
                said.append(Said("family", text, package=m.group("pkg").lower(), cuda_pair=(m.group("torch"), m.group("other"))))
            continue
        m = _SPLIT_CUDA_LIB.search(text)
        if m and m.group("pkg"):
            said.append(Said("family", text, package=m.group("pkg")))
            continue
        m = _XFORMERS_BUILT.search(text)
        if m:
            py = m.group("built_py"), m.group("have_py")
            if m.group("built") != m.group("have") or (py[0] and py[1] and py[0] != py[1]):
                said.append(Said("family", text, package="xformers", built_for=(m.group("built"), m.group("have"))))
            continue
        m = (_FAMILY_SYMBOL.search(text) or _FAMILY_DYLD.search(text) or _FAMILY_WIN127.search(text)
             or _FAMILY_NMS.search(text))
        if m:
            said.append(Said("family", text, package=m.group("pkg")))
            continue
        m = _WHEEL_BUILT_FOR.search(text)
        if m:
            digits = m.group("torch_digits")
            # major, minor and patch run together: "260" is 2.6.0, "2100" is 2.10.0.
            torch = m.group("torch") or f"{digits[0]}.{digits[1:-1]}"
            cu = m.group("cu") or ("cpu" if m.group("cpu") else f"cu{m.group('cuda_digits')}")
            abi = m.group("abi")
            said.append(Said("index-built-for", text, package=m.group("pkg").lower().replace("_", "-"), built_for=(torch, cu),
                             cxx11_abi=None if abi is None else abi == "TRUE"))
            continue
        m = _INDEX_INSTALL.search(text)
        if m:
            url = next((u for u in (p.search(text) for p in _INDEX_BUILT_FOR) if u), None)
            package = _INDEXED_PACKAGE.search(text)
            if url and package:
                said.append(Said("index-built-for", text, package=package.group(1).lower().replace("_", "-"),
                                 built_for=(url.group("torch"), url.group("cu"))))
            continue
        m = _EXTENSION_SYMBOL.search(text)
        if m:
            said.append(Said("extension-symbol", text, package=m.group("pkg").split(".")[0], requested=m.group("symbol")))
            continue
        m = _EXTENSION_MODULE_SYMBOL.search(text)
        if m and not _TORCH_OWN_DIR.search(m.group("file")):
            said.append(Said("extension-symbol", text, package=m.group("mod").lstrip("_") or m.group("mod"),
                             requested=m.group("symbol")))
            continue
        m = _EXTENSION_PKG_SYMBOL.search(text)
        if m:
            said.append(Said("extension-symbol", text, package=m.group("pkg"), requested=m.group("symbol")))
            continue
        m = _IMPORTED_SYMBOL_KEPT.search(text)
        if m:
            mod = m.group("mod")
            if mod in ("torchvision", "torchaudio"):
                said.append(Said("family", text, package=mod))
            else:
                said.append(Said("extension-symbol", text, package=mod.lstrip("_") or mod, requested=m.group("symbol")))
            continue
        m = _K2_BUILD_KEPT.search(text)
        if m:
            said.append(Said("built-for", text, package="k2",
                             built_for=(m.group("torch"), m.group("cuda").strip() or "cpu")))
            continue
        m = _DGL_LIBRARY.search(text)
        if m:
            said.append(Said("per-torch-library", text, package="dgl", requested=m.group("torch")))
            continue
        m = _DGL_LIBRARY_FILE.search(text)
        if m:
            said.append(Said("per-torch-library", text, package="dgl", requested=m.group("torch") or m.group("torch2")))
            continue
        m = _DGL_LIBRARY_SAID.search(text)
        if m:
            said.append(Said("per-torch-library", text, package="dgl", retold=True))
            continue
        if _NVRTC_ARCH.search(text):
            said.append(Said("nvrtc-arch", text))
            continue
        m = _CXX_STANDARD.search(text)
        if m:
            said.append(Said("toolkit-std", text, requested=m.group("std")))
            continue
        m = _HOST_COMPILER.search(text)
        if m:
            said.append(Said("toolkit-gcc", text, package="g++" if m.group("gxx") else "gcc" if m.group("gcc") else "msvc",
                             requested=m.group("gxx_max") or m.group("gcc") or m.group("vs_max"),
                             needs_cuda=m.group("gxx_cuda")))
            continue
        m = _TORCHAO_SKIPPED.search(text)
        if m:
            said.append(Said("family", text, package="torchao"))
            continue
        m = _OPEN3D_TORCH.search(text)
        if m:
            if not m.group("have").startswith(m.group("needs") + "."):
                said.append(Said("family", text, package="open3d"))
            continue
        m = _BUILT_WITH_RUNNING.search(text)
        if m:
            # k2 asserts `torch.version.cuda in running_cuda_version`: a minor difference stops its build too.
            if m.group("torch") != m.group("nvcc"):
                said.append(Said("toolkit", text, package="k2", cuda_pair=(m.group("torch"), m.group("nvcc"))))
            continue
        if _FAMILY_OPS.search(text):
            said.append(Said("family-ops", text, package="torchvision"))
            continue
        m = _FAMILY_NO_CUDA.search(text)
        if m:
            if not _CUDA_BACKEND.search(m.group("backends") or ""):
                said.append(Said("family-no-cuda", text, package=m.group("pkg")))
            continue
        m = _CUDA_LIB_SYMBOL.search(text)
        if m:
            said.append(Said("cuda-lib-symbol", text, package=m.group("path"), requested=m.group("other")))
            continue
        m = _NEEDS_CUDA.search(text)
        if m:
            need, have = int(m.group("need")), int(m.group("have"))
            if need > have:
                said.append(Said("arch-cuda", text, m.group("name").strip(), needs_cuda=f"{need // 1000}.{need % 1000 // 10}",
                                 requested=f"{have // 1000}.{have % 1000 // 10}"))
            continue
        m = _TOO_OLD.search(text)
        if m:
            said.append(Said("arch", text, m.group("name").strip(), m.group("cc")))
            continue
        m = _RANGE.search(text)
        if m:
            cc, low, high = _cc_int(m.group("cc")), _cc_int(m.group("min")), _cc_int(m.group("max"))
            # The range check also fires for a newer minor of the newest major (12.1 runs sm_120).
            if cc < low or cc // 10 > high // 10:
                said.append(Said("arch", text, m.group("name").strip(), m.group("cc")))
            continue
        m = _CC_LIST.search(text)
        if m:
            archs = tuple(f"sm_{a}{b}" for a, b in _CC_ENTRY.findall(m.group("list")))
            cc = _cc_int(m.group("cc"))
            # sm_XY runs on the same major with a minor >= Y (torch's own rule, Jetson aside).
            if not any(cc // 10 == int(a[3:-1]) and cc % 10 >= int(a[-1]) for a in archs):
                said.append(Said("arch", text, m.group("name").strip(), m.group("cc"), archs=archs))
    return said
