"""Every wording the emitting code has used for these causes is recognised, and the close texts that
name something else are not.

The knowledge examples are real reports, but reports cover only the releases people happened to
hit. These texts are the messages as the code writes them, release by release (the code is named
beside each): torch.utils.cpp_extension's ninja check, GradScaler's dtype check, the dynamic loader
and cuDNN's own loader, torch.hub's GitHub check, bitsandbytes' cuda_setup (0.35-0.42) and
cextension (0.43-0.45, 0.46+). Paths and versions around them are ordinary ones.
"""

from __future__ import annotations

from kb_wordings import wording_tests

SITE = "/home/user/.venv/lib/python3.11/site-packages"

WORDINGS = [
    # torch/utils/cpp_extension.py verify_ninja_availability(), releases after April 2025.
    ("ninja-missing", f'''  File "{SITE}/torch/utils/cpp_extension.py", line 1318, in _jit_compile
    _write_ninja_file_and_build_library(
  File "{SITE}/torch/utils/cpp_extension.py", line 1400, in _write_ninja_file_and_build_library
    verify_ninja_availability()
  File "{SITE}/torch/utils/cpp_extension.py", line 2562, in verify_ninja_availability
    raise RuntimeError("Ninja is required to load C++ extensions (pip install ninja to get it)")
RuntimeError: Ninja is required to load C++ extensions (pip install ninja to get it)
'''),
    # cpp_extension.py BuildExtension for SYCL sources (torch 2.13).
    ("ninja-missing", "AssertionError: ninja is required to build sycl extensions."),
    # A Makefile or build script that runs ninja itself.
    ("ninja-missing", "/bin/sh: 1: ninja: not found\nmake: *** [Makefile:12: build] Error 127"),
    # CMake with -G Ninja and no ninja on PATH.
    ("ninja-missing", "CMake Error: CMake was unable to find a build program corresponding to \"Ninja\".  "
                      "CMAKE_MAKE_PROGRAM is not set.  You probably need to select a different build tool."),
    # torch/amp/grad_scaler.py (2.3+) _unscale_grads_.
    ("amp-unscale-fp16-params", f'''  File "{SITE}/torch/amp/grad_scaler.py", line 461, in step
    self.unscale_(optimizer)
  File "{SITE}/torch/amp/grad_scaler.py", line 358, in unscale_
    optimizer_state["found_inf_per_device"] = self._unscale_grads_(
  File "{SITE}/torch/amp/grad_scaler.py", line 275, in _unscale_grads_
    raise ValueError("Attempting to unscale FP16 gradients.")
ValueError: Attempting to unscale FP16 gradients.
'''),
    # diffusers' training scripts, the guard before the first step.
    ("amp-unscale-fp16-params", "ValueError: Text encoder loaded as datatype torch.float16. Please make sure to always "
                                "have all model weights in full float32 precision when starting training - even if "
                                "doing mixed precision training. copy of the weights should still be float32."),
    # The dynamic loader for a program linked against the CUDA runtime.
    ("cuda-runtime-library-missing", "./build/infer: error while loading shared libraries: libcudart.so.12: "
                                     "cannot open shared object file: No such file or directory"),
    # ldd on a compiled extension.
    ("cuda-runtime-library-missing", f'''$ ldd {SITE}/mmcv/_ext.cpython-311-x86_64-linux-gnu.so | grep cuda
\tlibcudart.so.11.0 => not found
\tlibc10_cuda.so => not found
'''),
    # torch/__init__.py _preload_cuda_deps() (torch 2.x wheels without their nvidia-* wheels).
    ("cuda-runtime-library-missing", f'''  File "{SITE}/torch/__init__.py", line 239, in _load_global_deps
    _preload_cuda_deps(lib_folder, lib_name)
  File "{SITE}/torch/__init__.py", line 198, in _preload_cuda_deps
    raise ValueError(f"{{lib_name}} not found in the system path {{sys.path}}")
ValueError: libcudnn.so.*[0-9] not found in the system path ['', '/usr/lib/python311.zip', '{SITE}']
'''),
    # torch 1.13.1's _preload_cuda_deps() under Python 3.11.
    ("cuda-runtime-library-missing", "UnboundLocalError: cannot access local variable 'cublas_path' where it is "
                                     "not associated with a value"),
    # cuDNN 9 on Windows.
    ("cuda-runtime-library-missing", "Could not locate cudnn_ops64_9.dll. Please make sure it is in your library path!\n"
                                     "Invalid handle. Cannot load symbol cudnnCreateTensorDescriptor"),
    # torch/hub.py _validate_not_a_forked_repo(), a 403 with the full traceback.
    ("torch-hub-github-rate-limit", f'''  File "{SITE}/torch/hub.py", line 647, in load
    repo_or_dir = _get_cache_or_reload(
  File "{SITE}/torch/hub.py", line 305, in _get_cache_or_reload
    _validate_not_a_forked_repo(repo_owner, repo_name, ref)
  File "{SITE}/torch/hub.py", line 247, in _validate_not_a_forked_repo
    response = json.loads(_read_url(Request(url, headers=headers)))
  File "{SITE}/torch/hub.py", line 230, in _read_url
    with urlopen(url) as r:
  File "/usr/lib/python3.11/urllib/request.py", line 643, in http_error_default
    raise HTTPError(req.full_url, code, msg, hdrs, fp)
urllib.error.HTTPError: HTTP Error 403: Forbidden
'''),
    # torch/hub.py (recent releases, 2.13 for one): the retry without a token, when none was set.
    ("torch-hub-github-rate-limit", f'''urllib.error.HTTPError: HTTP Error 403: rate limit exceeded

During handling of the above exception, another exception occurred:

Traceback (most recent call last):
  File "demo.py", line 3, in <module>
    model = torch.hub.load("facebookresearch/dinov2", "dinov2_vits14")
  File "{SITE}/torch/hub.py", line 647, in load
    repo_or_dir = _get_cache_or_reload(
  File "{SITE}/torch/hub.py", line 305, in _get_cache_or_reload
    _validate_not_a_forked_repo(repo_owner, repo_name, ref)
  File "{SITE}/torch/hub.py", line 250, in _validate_not_a_forked_repo
    del headers["Authorization"]
KeyError: 'Authorization'
'''),
    # bitsandbytes 0.46+ cextension.ErrorHandlerMockBNBNativeLibrary, the missing-dependency form.
    ("bitsandbytes-cuda-setup-failed", f'''  File "{SITE}/bitsandbytes/cextension.py", line 251, in throw_on_call
    raise RuntimeError(f"{{self.formatted_error}}Native code method attempted to call: lib.{{name}}()")
RuntimeError: 
🚨 CUDA SETUP ERROR: Missing dependency: libcudart.so.12 🚨

CUDA 12.x runtime libraries were not found in the LD_LIBRARY_PATH.

Original error: libcudart.so.12: cannot open shared object file: No such file or directory

Native code method attempted to call: lib.cquantize_blockwise_fp16_nf4()
'''),
    # bitsandbytes 0.46+, the ROCm build of the same check.
    ("bitsandbytes-cuda-setup-failed", "RuntimeError: Configured ROCm binary not found at "
                                       f"{SITE}/bitsandbytes/libbitsandbytes_rocm62.so"),
    # bitsandbytes 0.48+, the CPU-only library.
    ("bitsandbytes-cuda-setup-failed", "RuntimeError: Method 'cdequantize_blockwise_fp16_nf4' not available in "
                                       "CPU-only version of bitsandbytes.\nReinstall with GPU support or use "
                                       "CUDA-enabled hardware."),
    # torch 2.13's factory functions (torch.zeros(-1), ATen's empty-size check).
    ("tensor-negative-dimension", "RuntimeError: zeros: Dimension size must be non-negative."),
]

NOT_THESE = [
    # ninja ran and a compiler failed.
    ("ninja-missing", "ninja: build stopped: subcommand failed.\nsubprocess.CalledProcessError: Command "
                      "'['ninja', '-v']' returned non-zero exit status 1."),
    # Only the BuildExtension warning: the build goes on with distutils.
    ("ninja-missing", f"{SITE}/torch/utils/cpp_extension.py:781: UserWarning: Attempted to use ninja as the "
                      "BuildExtension backend but we could not find ninja.. Falling back to using the slow "
                      "distutils backend."),
    # GradScaler misuse of another kind.
    ("amp-unscale-fp16-params", "RuntimeError: unscale_() has already been called on this optimizer since the "
                                "last update()."),
    # The driver's library, not the CUDA runtime's.
    ("cuda-runtime-library-missing", "OSError: libcuda.so.1: cannot open shared object file: No such file or directory"),
    # torch's own C++ library not found: an extension imported before torch.
    ("cuda-runtime-library-missing", "ImportError: libc10.so: cannot open shared object file: No such file or directory"),
    # bitsandbytes' search log, not a failure of anything by itself.
    ("cuda-runtime-library-missing", "CUDA_SETUP: WARNING! libcudart.so not found in any environmental path. "
                                     "Searching in backup paths..."),
    # A weights download refused, after the repository check passed.
    ("torch-hub-github-rate-limit", f'''  File "{SITE}/torch/hub.py", line 749, in download_url_to_file
    with urlopen(req) as u:
urllib.error.HTTPError: HTTP Error 403: Forbidden
'''),
    # A KeyError of the user's own code.
    ("torch-hub-github-rate-limit", '''  File "train.py", line 40, in main
    token = request.headers["Authorization"]
KeyError: 'Authorization'
'''),
    # bitsandbytes working, quantized layers fed a CPU tensor.
    ("bitsandbytes-cuda-setup-failed", "RuntimeError: Expected all tensors to be on the same device, but found at "
                                       "least two devices, cuda:0 and cpu!"),
    # numpy's own refusal of a negative shape: not a tensor's.
    ("tensor-negative-dimension", "ValueError: negative dimensions are not allowed"),
]


test_wording_names_its_cause_first, test_close_text_is_not_this_cause = wording_tests(WORDINGS, NOT_THESE)
