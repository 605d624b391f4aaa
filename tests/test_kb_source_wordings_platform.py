"""The platform causes (CUDA driver and installation, C++/CUDA extensions, checkpoints, DataLoader,
distributed training) are recognised in every wording their emitting code has printed, and the close
texts that name something else are not.

The knowledge examples are real reports, and reports cover only the releases, backends and paths
people happened to hit. These texts are the messages as the code writes them, read from the source
of each release family (named beside each text: file, function, releases): the CUDA runtime's
cudaGetErrorString (whose numbering changed with CUDA 10.1 and whose wording with CUDA 11), torch's
THC-era THCudaCheck (0.4-1.4), C10_CUDA_CHECK (1.5+) and c10/cuda/CUDAFunctions.cpp device-count
checks (1.x python asserts -> 2.x TORCH_CHECK), torch.utils.cpp_extension, torch.serialization and
caffe2/serialize/inline_container.cc, torch.utils.data, c10d (TCPStore, ProcessGroupNCCL, gloo),
and the libraries that re-raise them. Each is the line a user sees, often alone: the first line of
a longer message, as people paste it into a title. Values around them are ordinary ones.
"""

from __future__ import annotations

from kb_wordings import wording_tests

SITE = "/home/user/.venv/lib/python3.11/site-packages"

WORDINGS = [
    # ---- CUDA runtime errors through torch: THC (0.4-1.4) "cuda runtime error (N) : msg at file:line",
    # THCudaCheck FAIL lines, C10_CUDA_CHECK (1.5+) "CUDA error: msg". CUDA <= 10.0 numbered the
    # errors 1-79, 10.1+ renumbered them (100 no device, 209 no kernel image, 719 launch failure, 999 unknown).
    ("cuda-no-device-visible", "RuntimeError: cuda runtime error (38) : no CUDA-capable device is detected at "
                               "/pytorch/aten/src/THC/THCGeneral.cpp:51"),
    ("cuda-no-device-visible", "THCudaCheck FAIL file=/pytorch/aten/src/THC/THCGeneral.cpp line=50 error=100 : "
                               "no CUDA-capable device is detected"),
    ("cuda-no-device-visible", "RuntimeError: CUDA error: no CUDA-capable device is detected\nCUDA kernel errors "
                               "might be asynchronously reported at some other API call, so the stacktrace below "
                               "might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1."),
    # c10/cuda/CUDAFunctions.cpp device_count_ensure_non_zero (torch 1.9+), raised by torch.cuda._lazy_init.
    ("cuda-no-device-visible", "RuntimeError: No CUDA GPUs are available"),
    # c10d ProcessGroupNCCL constructor (1.x-2.x).
    ("cuda-no-device-visible", "RuntimeError: ProcessGroupNCCL is only supported with GPUs, no GPUs found!"),
    # cudaErrorDevicesUnavailable (46): CUDA <= 10 wording, then CUDA 11+ wording.
    ("cuda-devices-busy", "RuntimeError: cuda runtime error (46) : all CUDA-capable devices are busy or "
                          "unavailable at /pytorch/aten/src/THC/THCGeneral.cpp:74"),
    ("cuda-devices-busy", "RuntimeError: CUDA error: all CUDA-capable devices are busy or unavailable"),
    ("cuda-devices-busy", "RuntimeError: CUDA error: CUDA-capable device(s) is/are busy or unavailable"),
    ("cuda-devices-busy", "THCudaCheck FAIL file=/pytorch/aten/src/THC/THCGeneral.cpp line=47 error=46 : "
                          "all CUDA-capable devices are busy or unavailable"),
    # cudaErrorNoKernelImageForDevice: 48 (CUDA <= 10.0), 209 (10.1+).
    ("cuda-no-kernel-image", "RuntimeError: cuda runtime error (48) : no kernel image is available for execution "
                             "on the device at /pytorch/aten/src/THC/generic/THCTensorMath.cu:35"),
    ("cuda-no-kernel-image", "THCudaCheck FAIL file=/pytorch/aten/src/THC/THCCachingHostAllocator.cpp line=278 "
                             "error=209 : no kernel image is available for execution on the device"),
    ("cuda-no-kernel-image", "RuntimeError: CUDA error: no kernel image is available for execution on the device"),
    ("cuda-no-kernel-image", "torch.AcceleratorError: CUDA error: no kernel image is available for execution on "
                             "the device"),
    # torch/cuda/__init__.py _check_capability (1.x) and _check_cubins (1.10+), _warn_unsupported_code (2.8+).
    ("cuda-no-kernel-image", f"""{SITE}/torch/cuda/__init__.py:104: UserWarning:
    Found GPU0 Tesla K40c which is of cuda capability 3.5.
    PyTorch no longer supports this GPU because it is too old.
    The minimum cuda capability supported by this library is 3.7.
"""),
    ("cuda-no-kernel-image", f"""{SITE}/torch/cuda/__init__.py:230: UserWarning:
NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch installation.
The current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90.
If you want to use the NVIDIA GeForce RTX 5090 GPU with PyTorch, please check the instructions at https://pytorch.org/get-started/locally/
"""),
    ("cuda-no-kernel-image", f"""{SITE}/torch/cuda/__init__.py:404: UserWarning: Found GPU0 Tesla P100-PCIE-16GB which is of compute capability (CC) 6.0.
The following list shows the CCs this version of PyTorch was built for and the hardware CCs it supports:
- 7.5 which supports hardware CC >=7.5,<8.0
- 8.0 which supports hardware CC >=8.0,<9.0
Your installed torch==2.13.0+cu130 does not include kernels for this GPU. Reinstall the same version against a CUDA build that does, e.g.:
  For CUDA 12.6 use pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cu126
"""),
    # cudaErrorInvalidDeviceFunction: 8 (CUDA <= 10.0), 98 (10.1+).
    ("cuda-no-kernel-image", "RuntimeError: CUDA error: invalid device function"),
    ("cuda-no-kernel-image", "RuntimeError: cuda runtime error (8) : invalid device function at "
                             "/pytorch/aten/src/THC/generic/THCTensorMath.cu:15"),
    # cudaErrorUnsupportedPtxVersion (222, CUDA 11.1+), through torch and through Triton's driver module.
    ("cuda-ptx-unsupported-toolchain", "RuntimeError: CUDA error: the provided PTX was compiled with an "
                                       "unsupported toolchain."),
    ("cuda-ptx-unsupported-toolchain", "RuntimeError: Triton Error [CUDA]: the provided PTX was compiled with an "
                                       "unsupported toolchain."),
    # cudaErrorLaunchFailure: 4 (CUDA <= 10.0), 719 (10.1+); cudaErrorLaunchTimeout 6 / 702.
    ("cuda-launch-failure", "RuntimeError: cuda runtime error (4) : unspecified launch failure at "
                            "/pytorch/aten/src/THC/generic/THCStorage.cpp:36"),
    ("cuda-launch-failure", "RuntimeError: cuda runtime error (719) : unspecified launch failure at "
                            "/pytorch/aten/src/THC/THCCachingHostAllocator.cpp:278"),
    ("cuda-launch-failure", "THCudaCheck FAIL file=/pytorch/aten/src/THC/THCCachingHostAllocator.cpp line=278 "
                            "error=719 : unspecified launch failure"),
    ("cuda-launch-failure", "RuntimeError: CUDA error: unspecified launch failure"),
    ("cuda-launch-failure", "RuntimeError: CUDA error: the launch timed out and was terminated"),
    ("cuda-launch-failure", "RuntimeError: cuda runtime error (702) : the launch timed out and was terminated at "
                            "/pytorch/aten/src/THC/THCCachingHostAllocator.cpp:278"),
    # cudaErrorUnknown: 30 (CUDA <= 10.0), 999 (10.1+); CUDAFunctions.cpp's own wording (1.8+).
    ("cuda-unknown-error", "RuntimeError: cuda runtime error (30) : unknown error at "
                           "/pytorch/aten/src/THC/THCGeneral.cpp:51"),
    ("cuda-unknown-error", "RuntimeError: cuda runtime error (999) : unknown error at "
                           "/pytorch/aten/src/THC/THCGeneral.cpp:47"),
    ("cuda-unknown-error", "THCudaCheck FAIL file=/pytorch/aten/src/THC/THCGeneral.cpp line=47 error=999 : "
                           "unknown error"),
    ("cuda-unknown-error", f"{SITE}/torch/cuda/__init__.py:128: UserWarning: CUDA initialization: CUDA unknown "
                           "error - this may be due to an incorrectly set up environment, e.g. changing env "
                           "variable CUDA_VISIBLE_DEVICES after program start. Setting the available devices to be "
                           "zero. (Triggered internally at ../c10/cuda/CUDAFunctions.cpp:108.)"),
    ("cuda-unknown-error", "RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run some cuda "
                           "functions before calling NumCudaDevices() that might have already set an error? Error "
                           "999: unknown error"),
    # cudaErrorInsufficientDriver (35) through THC, C10_CUDA_CHECK and torch/cuda/__init__.py _check_driver
    # (0.4-1.x AssertionError) / CUDAFunctions.cpp (2.x RuntimeError).
    ("cuda-driver-too-old", "RuntimeError: cuda runtime error (35) : CUDA driver version is insufficient for "
                            "CUDA runtime version at /pytorch/aten/src/THC/THCGeneral.cpp:51"),
    ("cuda-driver-too-old", "RuntimeError: CUDA error: CUDA driver version is insufficient for CUDA runtime "
                            "version"),
    ("cuda-driver-too-old", "AssertionError: \nThe NVIDIA driver on your system is too old (found version 9010)."),
    ("cuda-driver-too-old", "RuntimeError: The NVIDIA driver on your system is too old (found version 12020). "
                            "Please update your GPU driver by downloading and installing a new version from the "
                            "URL: http://www.nvidia.com/Download/index.aspx Alternatively, go to: "
                            "https://pytorch.org to install a PyTorch version that has been compiled with your "
                            "version of the CUDA driver."),
    # cudaErrorCompatNotSupportedOnDevice (804) / cudaErrorSystemDriverMismatch (803), CUDA 11+.
    ("cuda-forward-compat-unsupported", "RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run "
                                        "some cuda functions before calling NumCudaDevices() that might have "
                                        "already set an error? Error 804: forward compatibility was attempted on "
                                        "non supported HW"),
    ("cuda-forward-compat-unsupported", "RuntimeError: CUDA error: forward compatibility was attempted on non "
                                        "supported HW"),
    # No driver: torch/cuda/__init__.py _check_driver (0.4-1.x) and CUDAFunctions.cpp (1.8+).
    ("nvidia-driver-not-found", "AssertionError: \nFound no NVIDIA driver on your system. Please check that you\n"
                                "have an NVIDIA GPU and installed a driver from\n"
                                "http://www.nvidia.com/Download/index.aspx"),
    ("nvidia-driver-not-found", "RuntimeError: Found no NVIDIA driver on your system. Please check that you have "
                                "an NVIDIA GPU and installed a driver from http://www.nvidia.com/Download/index.aspx"),
    # A CPU-only build: torch/cuda/__init__.py _lazy_init (0.4-2.13), torch/csrc/utils/tensor_types.cpp
    # (the legacy tensor types), c10's device guard for a backend that is not linked in.
    ("cuda-not-compiled", "AssertionError: Torch not compiled with CUDA enabled"),
    ("cuda-not-compiled", "TypeError: type torch.cuda.FloatTensor not available. Torch not compiled with CUDA "
                          "enabled."),
    ("cuda-not-compiled", "RuntimeError: PyTorch is not linked with support for cuda devices"),
    ("cuda-not-compiled", "RuntimeError: PyTorch was compiled without CUDA support"),
    # cuDNN's status strings through torch: THC-era plain, cuDNN error: (1.x+).
    ("cudnn-not-initialized", "RuntimeError: CUDNN_STATUS_NOT_INITIALIZED"),
    ("cudnn-not-initialized", "RuntimeError: cuDNN error: CUDNN_STATUS_NOT_INITIALIZED"),
    ("cudnn-execution-failed", "RuntimeError: CUDNN_STATUS_EXECUTION_FAILED"),
    ("cudnn-execution-failed", "RuntimeError: cuDNN error: CUDNN_STATUS_EXECUTION_FAILED"),
    ("cudnn-execution-failed", "RuntimeError: cuDNN error: CUDNN_STATUS_NOT_SUPPORTED. This error may appear if "
                               "you passed in a non-contiguous input."),
    ("cudnn-execution-failed", "RuntimeError: GET was unable to find an engine to execute this computation"),
    # cuBLAS: THC's THCublasCheck (0.4-1.4), CUDABlas.cpp TORCH_CUDABLAS_CHECK (1.5+).
    ("cublas-failure", "RuntimeError: cublas runtime error : the GPU program failed to execute at "
                       "/pytorch/aten/src/THC/THCBlas.cu:258"),
    ("cublas-failure", "RuntimeError: cublas runtime error : resource allocation failed at "
                       "/pytorch/aten/src/THC/THCGeneral.cpp:216"),
    ("cublas-failure", "RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasSgemm( "
                       "handle, opa, opb, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc)`"),
    ("cublas-failure", "RuntimeError: CUDA error: CUBLAS_STATUS_NOT_INITIALIZED when calling `cublasCreate(handle)`"),
    ("cublas-failure", "RuntimeError: CUDA error: CUBLAS_STATUS_ALLOC_FAILED when calling `cublasCreate(handle)`"),
    ("cublas-failure", "RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasLtMatmul( "
                       "ltHandle, computeDesc.descriptor(), &alpha_val, mat1_ptr, Adesc.descriptor(), mat2_ptr, "
                       "Bdesc.descriptor(), &beta_val, result_ptr, Cdesc.descriptor(), result_ptr, "
                       "Cdesc.descriptor(), &heuristicResult.algo, workspace.mutable_data_ptr(), "
                       "workspaceSize, at::cuda::getCurrentCUDAStream())`"),
    # The dynamic loader, the torch 1.x cuDNN version check (torch/backends/cudnn/__init__.py), its 2.x wording.
    ("cuda-runtime-library-missing", "OSError: libcudart.so.11.0: cannot open shared object file: No such file "
                                     "or directory"),
    ("cuda-runtime-library-missing", "ImportError: libcublas.so.9.0: cannot open shared object file: No such "
                                     "file or directory"),
    ("cuda-libs-conflict", "RuntimeError: cuDNN version mismatch: PyTorch was compiled against 7102 but linked "
                           "against 7005"),
    ("cuda-libs-conflict", "RuntimeError: cuDNN version incompatibility: PyTorch was compiled  against (8, 9, 2) "
                           "but found runtime version (8, 5, 0). PyTorch already comes bundled with cuDNN. One "
                           "option to resolving this error is to ensure PyTorch can find the bundled cuDNN. Looks "
                           "like your LD_LIBRARY_PATH contains incompatible version of cudnn. Please either remove "
                           "it from the path or install cudnn (8, 9, 2)"),
    ("cuda-libs-conflict", f"ImportError: {SITE}/torch/lib/../../nvidia/cusparse/lib/libcusparse.so.12: undefined "
                           "symbol: __nvJitLinkComplete_12_4, version libnvJitLink.so.12"),
    # An older libcudart found first on LD_LIBRARY_PATH than the one torch was linked with.
    ("cuda-libs-conflict", f"OSError: {SITE}/torch/lib/libtorch_cuda.so: undefined symbol: "
                           "cudaGraphInstantiateWithFlags, version libcudart.so.11.0"),

    # ---- torch.utils.cpp_extension and the toolchains it drives.
    # _join_cuda_home (0.4-2.13): Python 2 printed OSError as EnvironmentError.
    ("extension-cuda-home-missing", "OSError: CUDA_HOME environment variable is not set. Please set it to your CUDA "
                                    "install root."),
    ("extension-cuda-home-missing", "EnvironmentError: CUDA_HOME environment variable is not set. Please set it to "
                                    "your CUDA install root."),
    # _check_cuda_version, CUDA_NOT_FOUND_MESSAGE (2.x; the missing space is the source's).
    ("extension-cuda-home-missing", "RuntimeError: CUDA was not found on the system, please set the CUDA_HOME or the "
                                    "CUDA_PATHenvironment variable or add NVCC to your system PATH. The extension "
                                    "compilation will fail."),
    # _check_cuda_version: its own existence check (2.6+), and the subprocess call before it (1.x-2.5).
    ("extension-cuda-home-missing", "FileNotFoundError: nvcc not found at '/usr/local/cuda/bin/nvcc'. Ensure CUDA "
                                    "path '/usr/local/cuda' is correct."),
    ("extension-cuda-home-missing", f"""  File "{SITE}/torch/utils/cpp_extension.py", line 414, in _check_cuda_version
    cuda_str_version = cuda_version.group(1)
  File "/usr/lib/python3.11/subprocess.py", line 1950, in _execute_child
    raise child_exception_type(errno_num, err_msg, err_filename)
FileNotFoundError: [Errno 2] No such file or directory: '/usr/local/cuda/bin/nvcc'
"""),
    # The ninja build's nvcc line with CUDA_HOME pointing at a directory without a toolkit.
    ("extension-cuda-home-missing", "/bin/sh: 1: /usr/local/cuda/bin/nvcc: not found\nninja: build stopped: "
                                    "subcommand failed."),
    # _write_ninja_file_and_build_library / _write_ninja_file_and_compile_objects (1.3+ prefixes).
    ("extension-build-error", "RuntimeError: Error building extension 'fused_adam'"),
    ("extension-build-error", "RuntimeError: Error compiling objects for extension"),
    # CUDA_MISMATCH_MESSAGE: 1.x (multi-line) and 2.x (one line, "compilePyTorch" as the source joins it).
    ("extension-build-error", "RuntimeError:\nThe detected CUDA version (11.0) mismatches the version that was used "
                              "to compile\nPyTorch (10.2). Please make sure to use the same CUDA versions.\n"),
    ("extension-build-error", "RuntimeError: The detected CUDA version (12.1) mismatches the version that was used "
                              "to compilePyTorch (11.8). Please make sure to use the same CUDA versions."),
    # _check_cuda_version's host compiler bounds (2.1+).
    ("extension-build-error", "RuntimeError: The current installed version of g++ (13.2.0) is greater than the "
                              "maximum required version by CUDA 11.8. Please make sure to use an adequate version "
                              "of g++ (>=6.0.0, <12.0)."),
    # setuptools' spawn, old and new wording, nvcc as the failing compiler.
    ("extension-build-error", "error: command '/usr/local/cuda/bin/nvcc' failed with exit status 1"),
    ("extension-build-error", "error: command '/usr/local/cuda/bin/nvcc' failed with exit code 1"),
    # c10/macros/Macros.h (2.1+, C++17) and the 1.x C++14 check.
    ("extension-build-error", f"{SITE}/torch/include/c10/util/C++17.h:13:2: error: #error \"You're trying to build "
                              "PyTorch with a too old version of GCC. We need GCC 9 or later.\"\n"
                              f"{SITE}/torch/include/c10/macros/Macros.h:4:2: error: #error C++17 or later "
                              "compatible compiler is required to use PyTorch."),
    ("extension-build-error", f"{SITE}/torch/include/ATen/ATen.h:4:2: error: #error C++14 or later compatible "
                              "compiler is required to use ATen."),
    # nvcc's host_config.h, the CUDA toolkit refusing a newer gcc.
    ("extension-build-error", "/usr/local/cuda/include/crt/host_config.h:132:2: error: #error -- unsupported GNU "
                              "version! gcc versions later than 11 are not supported! The nvcc flag "
                              "'-allow-unsupported-compiler' can be used to override this version check"),
    ("extension-build-error", "nvcc fatal   : Unsupported gpu architecture 'compute_89'"),
    # _get_cuda_arch_flags (1.x-2.x).
    ("extension-build-error", "ValueError: Unknown CUDA arch (8.9+PTX) or GPU not supported"),
    # Extensions built without CUDA: torchvision 0.3-0.5, maskrcnn-benchmark, detectron2's layers.
    ("extension-built-without-cuda", "RuntimeError: Not compiled with GPU support (nms at "
                                     "/tmp/pip-req-build-x1/torchvision/csrc/nms.h:19)"),
    ("extension-built-without-cuda", "RuntimeError: Not compiled with GPU support"),
    # cpp_extension's FileBaton.wait (1.0-2.13), interrupted with Ctrl-C.
    ("extension-stale-lock", f"""  File "{SITE}/torch/utils/cpp_extension.py", line 1601, in _jit_compile
    baton.wait()
  File "{SITE}/torch/utils/file_baton.py", line 42, in wait
    time.sleep(self.wait_seconds)
KeyboardInterrupt
"""),
    # triton's compiler: runtime.autotuner (2.0) and runtime.errors (2.1+).
    ("triton-out-of-resources", "triton.runtime.autotuner.OutOfResources: out of resource: shared memory, Required: "
                                "131072, Hardware limit: 101376. Reducing block sizes or `num_stages` may help."),
    ("triton-out-of-resources", "triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: "
                                "98304, Hardware limit: 65536. Reducing block sizes or `num_stages` may help."),


    # ---- torch.serialization and caffe2/serialize/inline_container.cc.
    # PyTorchStreamReader::init version check (1.4+: the TORCH_INTERNAL_ASSERT form).
    ("checkpoint-newer-format", "RuntimeError: version_ <= kMaxSupportedFileFormatVersion INTERNAL ASSERT FAILED at "
                                "/pytorch/caffe2/serialize/inline_container.cc:132, please report a bug to PyTorch. "
                                "Attempted to read a PyTorch file with version 3, but the maximum supported version "
                                "for reading is 2. Your PyTorch installation may be too old. (init at "
                                "/pytorch/caffe2/serialize/inline_container.cc:132)"),
    ("checkpoint-newer-format", "RuntimeError: Attempted to read a PyTorch file with version 10, but the maximum "
                                "supported version for reading is 6. Your PyTorch installation may be too old."),
    # torch.serialization._load (1.0-1.5) meeting a 1.6+ zip file.
    ("checkpoint-newer-format", "RuntimeError: checkpoints/best.pth is a zip archive (did you mean to use "
                                "torch.jit.load()?)"),
    # PyTorchStreamWriter::setup (1.13+), torch.jit.save's export_module (2.x).
    ("checkpoint-save-dir-missing", "RuntimeError: Parent directory checkpoints/run1 does not exist."),
    ("checkpoint-save-dir-missing", "RuntimeError: Parent directory of exported/model.pt does not exist."),
    # PyTorchStreamWriter's fopen check before the parent-directory check existed (1.6-1.12).
    ("checkpoint-save-dir-missing", "RuntimeError: File checkpoints/run1/epoch_10.pth cannot be opened."),
    # PyTorchStreamWriter::writeRecord / valid (1.6+).
    ("checkpoint-save-write-failed", "RuntimeError: [enforce fail at inline_container.cc:471] . PytorchStreamWriter "
                                     "failed writing file data/12: file write failed"),
    ("checkpoint-save-write-failed", "RuntimeError: [enforce fail at inline_container.cc:337] . unexpected pos "
                                     "1184128 vs 1184024"),
    # The legacy (pre-1.6, or _use_new_zipfile_serialization=False) writer: a plain file write.
    ("checkpoint-save-write-failed", f"""  File "train.py", line 88, in save_checkpoint
    torch.save(state, path, _use_new_zipfile_serialization=False)
  File "{SITE}/torch/serialization.py", line 652, in save
    _legacy_save(obj, opened_file, pickle_module, pickle_protocol)
  File "{SITE}/torch/serialization.py", line 787, in _legacy_save
    storage._write_file(f, _should_read_directly(f), True, torch._utils._element_size(dtype))
OSError: [Errno 28] No space left on device
"""),
    # torch.hub download_url_to_file (1.x-2.x).
    ("hub-download-hash-mismatch", 'RuntimeError: invalid hash value (expected "5c5b0c2c", got '
                                   '"e86aa1e6bd6d2bb6e6b1a7ae3a1cc8a0db05ccb4e0a0fbbe7b3dbb1bb4d1bb30")'),
    # pickle on a torch.save zip member or file.
    ("pickle-load-torch-file", "_pickle.UnpicklingError: A load persistent id instruction was encountered,\n"
                               "but no persistent_load function was specified."),
    # torch.serialization weights_only: 2.0-2.3, 2.4-2.5, 2.6+ (first line only, as titles quote it).
    ("weights-only-unpickling", "_pickle.UnpicklingError: Weights only load failed. Re-running `torch.load` with "
                                "`weights_only` set to `False` will likely succeed, but it can result in arbitrary "
                                "code execution.Do it only if you get the file from a trusted source. "
                                "WeightsUnpickler error: Unsupported class numpy.core.multiarray._reconstruct"),
    ("weights-only-unpickling", "WeightsUnpickler error: Unsupported global: GLOBAL numpy._core.multiarray._reconstruct "
                                "was not an allowed global by default. Please use "
                                "`torch.serialization.add_safe_globals([_reconstruct])` or the "
                                "`torch.serialization.safe_globals([_reconstruct])` context manager to allowlist "
                                "this global if you trust this class/function."),
    ("weights-only-unpickling", "_pickle.UnpicklingError: Weights only load failed. This file can still be loaded, "
                                "to do so you have two options, do those steps only if you trust the source of the "
                                "checkpoint."),
    # load_state_dict's error formats: 0.4, 1.0-1.1, 1.2+.
    ("state-dict-size-mismatch", "RuntimeError: While copying the parameter named fc.weight, whose dimensions in "
                                 "the model are torch.Size([2, 512]) and whose dimensions in the checkpoint are "
                                 "torch.Size([1000, 512])."),
    ("state-dict-size-mismatch", "RuntimeError: Error(s) in loading state_dict for ResNet:\n\tsize mismatch for "
                                 "fc.weight: copying a param of torch.Size([2, 512]) from checkpoint, where the "
                                 "shape is torch.Size([1000, 512]) in current model."),
    ("state-dict-size-mismatch", "RuntimeError: Error(s) in loading state_dict for ResNet:\n\tsize mismatch for "
                                 "fc.weight: copying a param with shape torch.Size([1000, 512]) from checkpoint, the "
                                 "shape in current model is torch.Size([2, 512])."),
    ("state-dict-module-prefix", "KeyError: 'unexpected key \"module.conv1.weight\" in state_dict'"),
    ("state-dict-module-prefix", "RuntimeError: Error(s) in loading state_dict for ResNet:\n\tMissing key(s) in "
                                 "state_dict: \"conv1.weight\", \"bn1.weight\". \n\tUnexpected key(s) in state_dict: "
                                 "\"module.conv1.weight\", \"module.bn1.weight\". "),
    # torch.onnx: symbolic_registry (1.x), errors.UnsupportedOperatorError (1.13+), the 1.0 wording.
    ("onnx-export-unsupported-op", "RuntimeError: Exporting the operator grid_sampler to ONNX opset version 11 is "
                                   "not supported. Please open a bug to request ONNX export support for the missing "
                                   "operator."),
    ("onnx-export-unsupported-op", "torch.onnx.errors.UnsupportedOperatorError: Exporting the operator "
                                   "'aten::scaled_dot_product_attention' to ONNX opset version 13 is not supported. "
                                   "Support for this operator was added in version 14, try exporting with this "
                                   "version."),
    ("onnx-export-unsupported-op", "RuntimeError: ONNX export failed: Couldn't export operator "
                                   "aten::adaptive_avg_pool2d"),
    ("onnx-opset-too-new-for-torch", "ValueError: Unsupported ONNX opset version: 19"),
    # torch.jit tracer (1.0-1.x "supported as JIT inputs", 1.4+ "are supported").
    ("jit-trace-unsupported-io", "RuntimeError: Only tuples, lists and Variables are supported as JIT "
                                 "inputs/outputs. Dictionaries and strings are also accepted, but their usage is not "
                                 "recommended. Here, received an input of unsupported type: int"),
    # torch.compile's platform checks: torch/_dynamo/eval_frame.py (2.0-2.1 Windows, 2.1 Python 3.12,
    # 2.2-2.3 "Dynamo is not supported", 2.13 torch/__init__.py).
    ("compile-unsupported-platform", "RuntimeError: Windows not yet supported for torch.compile"),
    ("compile-unsupported-platform", "RuntimeError: Python 3.12+ not yet supported for torch.compile"),
    ("compile-unsupported-platform", "RuntimeError: Dynamo is not supported on Python 3.12+"),
    ("compile-unsupported-platform", "RuntimeError: torch.compile is not supported on Python 3.15+"),
    # Quantized kernels: the dispatcher in 1.4-1.x (TensorId) and 1.8+.
    ("quantized-backend-op", "RuntimeError: Could not run 'aten::thnn_conv2d_forward' with arguments from the "
                             "'QuantizedCPUTensorId' backend. 'aten::thnn_conv2d_forward' is only available for "
                             "these backends: [CPUTensorId, VariableTensorId]."),
    ("quantized-backend-op", "NotImplementedError: Could not run 'aten::add.out' with arguments from the "
                             "'QuantizedCPU' backend."),
    ("quantized-backend-op", "RuntimeError: Didn't find engine for operation quantized::conv2d_prepack NoQEngine"),

    # ---- torch.utils.data and the worker signal handler (torch/csrc/DataLoader.cpp).
    # handler_SIGBUS / the SIGCHLD check: 0.4 (the bare signal name) and 1.x-2.x (with the shm hint).
    ("dataloader-worker-killed", "RuntimeError: DataLoader worker (pid 12345) is killed by signal: Killed."),
    ("dataloader-shm-exhausted", "RuntimeError: DataLoader worker (pid 29485) is killed by signal: Bus error."),
    ("dataloader-shm-exhausted", "RuntimeError: DataLoader worker (pid 29485) is killed by signal: Bus error. It is "
                                 "possible that dataloader's workers are out of shared memory. Please try to raise "
                                 "your shared memory limit."),
    ("dataloader-shm-exhausted", "ERROR: Unexpected bus error encountered in worker. This might be caused by "
                                 "insufficient shared memory (shm)."),
    # libshm / THAllocator / MapAllocator: 0.4-1.x, 1.x with the errno, 2.x's allocate wording.
    ("dataloader-shm-exhausted", "RuntimeError: unable to write to file </torch_18692_1954506624>"),
    ("dataloader-shm-exhausted", "RuntimeError: unable to write to file </torch_1234_2087265474_0>: No space left on "
                                 "device (28)"),
    ("dataloader-shm-exhausted", "RuntimeError: unable to allocate shared memory(shm) for file "
                                 "</torch_2189_3712239092_0>: Resource temporarily unavailable (11)"),
    ("dataloader-worker-segfault", "RuntimeError: DataLoader worker (pid 4052) is killed by signal: Segmentation "
                                   "fault."),
    ("dataloader-worker-segfault", "ERROR: Unexpected segmentation fault encountered in worker."),
    # _MultiProcessingDataLoaderIter: ExceptionWrapper's reraise (1.1-2.x), _try_get_data's timeout.
    ("dataloader-worker-exception", "ValueError: Caught ValueError in DataLoader worker process 3.\nOriginal "
                                    "Traceback (most recent call last):"),
    ("dataloader-hang", "RuntimeError: DataLoader timed out after 600 seconds"),
    ("pin-memory-thread-exited", "RuntimeError: Pin memory thread exited unexpectedly"),
    # multiprocessing.reduction.recvfds (file_descriptor sharing), _try_get_data's EMFILE branch (1.1+),
    # libshm's shm_open (0.4-1.x, then with the errno).
    ("too-many-open-files", "RuntimeError: received 0 items of ancdata"),
    ("too-many-open-files", "RuntimeError: Too many open files. Communication with the workers is no longer "
                            "possible. Please increase the limit using `ulimit -n` in the shell or change the "
                            "sharing strategy by calling `torch.multiprocessing.set_sharing_strategy('file_system')` "
                            "at the beginning of your code"),
    ("too-many-open-files", "RuntimeError: unable to open shared memory object </torch_31218_2620876224> in "
                            "read-write mode"),
    ("too-many-open-files", "RuntimeError: unable to open shared memory object </torch_1234_5678_0> in read-write "
                            "mode: Too many open files (24)"),
    # default_collate: 0.4 (no numpy arrays in the list), 1.x-2.x (default_collate: prefix), object arrays.
    ("collate-unsupported-type", "TypeError: batch must contain tensors, numbers, dicts or lists; found <class "
                                 "'PIL.Image.Image'>"),
    ("collate-unsupported-type", "TypeError: default_collate: batch must contain tensors, numpy arrays, numbers, "
                                 "dicts or lists; found <class 'NoneType'>"),
    ("collate-unsupported-type", "TypeError: default_collate: batch must contain tensors, numpy arrays, numbers, "
                                 "dicts or lists; found object"),
    # RandomSampler: 1.0-1.1 ("integeral"), 1.2+; torchvision DatasetFolder: 0.2-0.9, 0.10+.
    ("dataloader-empty-dataset", "ValueError: num_samples should be a positive integeral value, but got "
                                 "num_samples=0"),
    ("dataloader-empty-dataset", "ValueError: num_samples should be a positive integer value, but got num_samples=0"),
    ("dataloader-empty-dataset", "RuntimeError: Found 0 files in subfolders of: data/train\nSupported extensions "
                                 "are: .jpg,.jpeg,.png,.ppm,.bmp,.pgm,.tif,.tiff,.webp"),
    ("dataloader-empty-dataset", "FileNotFoundError: Couldn't find any class folder in data/train."),
    ("dataloader-empty-dataset", "FileNotFoundError: Found no valid file for the classes .ipynb_checkpoints. "
                                 "Supported extensions are: .jpg, .jpeg, .png, .ppm, .bmp, .pgm, .tif, .tiff, .webp"),
    # DataLoader.__init__ argument checks (1.7-1.13, 2.0+).
    ("dataloader-sampler-shuffle-exclusive", "ValueError: sampler option is mutually exclusive with shuffle"),
    ("dataloader-sampler-shuffle-exclusive", "ValueError: batch_sampler option is mutually exclusive with "
                                             "batch_size, shuffle, sampler, and drop_last"),
    ("dataloader-worker-options-without-workers", "ValueError: prefetch_factor option could only be specified in "
                                                  "multiprocessing.let num_workers > 0 to enable multiprocessing."),
    ("dataloader-worker-options-without-workers", "ValueError: prefetch_factor option could only be specified in "
                                                  "multiprocessing.let num_workers > 0 to enable multiprocessing, "
                                                  "otherwise set prefetch_factor to None."),
    ("dataloader-worker-options-without-workers", "ValueError: persistent_workers option needs num_workers > 0"),
    # randperm's generator check (ATen, 1.9+), reached through RandomSampler.
    ("dataloader-generator-device", "RuntimeError: Expected a 'cuda' device type for generator but found 'cpu'"),
    ("dataloader-iter-next", "AttributeError: '_MultiProcessingDataLoaderIter' object has no attribute 'next'"),
    ("dataloader-iter-next", "AttributeError: '_SingleProcessDataLoaderIter' object has no attribute 'next'"),
    # Host allocation: TH (0.4, "Buy new RAM!"), c10 CPUAllocator (1.x, the errno), alloc_cpu.cpp (1.10+, Windows).
    ("host-memory-allocation-failed", "RuntimeError: $ Torch: not enough memory: you tried to allocate 21GB. Buy new "
                                      "RAM! at /pytorch/aten/src/TH/THGeneral.cpp:201"),
    ("host-memory-allocation-failed", "RuntimeError: [enforce fail at CPUAllocator.cpp:64] . DefaultCPUAllocator: "
                                      "can't allocate memory: you tried to allocate 9663676416 bytes. Error code 12 "
                                      "(Cannot allocate memory)"),
    ("host-memory-allocation-failed", "RuntimeError: [enforce fail at ..\\c10\\core\\impl\\alloc_cpu.cpp:72] data. "
                                      "DefaultCPUAllocator: not enough memory: you tried to allocate 1207959552 "
                                      "bytes."),
    # torchrun's elastic agent reporting a worker the kernel killed (1.9+).
    ("host-oom-killed", "torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) local_rank: 0 (pid: "
                        "1234) of binary: /usr/bin/python3"),

    # ---- torch.distributed: distributed_c10d, rendezvous, TCPStore (c10d/socket.cpp), ProcessGroupNCCL, gloo.
    # _check_default_pg (1.0-1.x AssertionError), _get_default_group (1.x RuntimeError, 2.x ValueError).
    ("dist-not-initialized", "AssertionError: Default process group is not initialized"),
    ("dist-not-initialized", "RuntimeError: Default process group has not been initialized, please make sure to "
                             "call init_process_group."),
    ("dist-not-initialized", "ValueError: Default process group has not been initialized, please make sure to call "
                             "init_process_group."),
    # _env_rendezvous_handler (0.4-2.x); torch.distributed.elastic.utils.get_env_variable_or_raise (1.9+).
    ("dist-env-missing", "ValueError: Error initializing torch.distributed using env:// rendezvous: environment "
                         "variable MASTER_ADDR expected, but not set"),
    ("dist-env-missing", "ValueError: Environment variable RANK expected, but not set"),
    # TCPStore's listen: 1.0-1.8 (the bare errno string), 1.9+ socket.cpp, 2.4+ libuv, Windows.
    ("dist-port-in-use", "RuntimeError: Address already in use"),
    ("dist-port-in-use", "RuntimeError: The server socket has failed to listen on any local network address. The "
                         "server socket has failed to bind to [::]:29500 (errno: 98 - Address already in use). The "
                         "server socket has failed to bind to 0.0.0.0:29500 (errno: 98 - Address already in use)."),
    ("dist-port-in-use", "torch.distributed.DistNetworkError: The server socket has failed to listen on any local "
                         "network address. port: 29500, useIpv6: false, code: -98, name: EADDRINUSE, message: "
                         "address already in use"),
    ("dist-port-in-use", "RuntimeError: The server socket has failed to listen on any local network address. The "
                         "server socket has failed to bind to 0.0.0.0:29500 (system error: 10048 - Only one usage of "
                         "each socket address (protocol/network address/port) is normally permitted.)."),
    # TCPStore's connect: 1.x, 1.9+, 2.x per-address and summary forms, torchelastic's wrapper.
    ("dist-rendezvous-unreachable", "RuntimeError: connect() timed out. Original timeout was 1800000 ms."),
    ("dist-rendezvous-unreachable", "RuntimeError: The client socket has timed out after 1800s while trying to "
                                    "connect to (10.0.0.1, 29500)."),
    ("dist-rendezvous-unreachable", "torch.distributed.DistNetworkError: The client socket has timed out after "
                                    "600000ms while trying to connect to (node-0, 29500)."),
    ("dist-rendezvous-unreachable", "torch.distributed.DistNetworkError: The client socket has failed to connect to "
                                    "any network address of (10.0.0.1, 29500)."),
    ("dist-rendezvous-unreachable", "[W socket.cpp:663] [c10d] The client socket has failed to connect to "
                                    "[node-0]:29500 (errno: 111 - Connection refused)."),
    ("dist-rendezvous-unreachable", "torch.distributed.elastic.rendezvous.api.RendezvousConnectionError: The "
                                    "connection to the C10d store has failed. See inner exception for details."),
    # ProcessGroupNCCL's watchdog: 1.8-1.11 (no SeqNum), 1.12+, the blocking-wait form, 2.x per-rank log.
    ("nccl-collective-timeout", "[E ProcessGroupNCCL.cpp:566] [Rank 0] Watchdog caught collective operation "
                                "timeout: WorkNCCL(OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 1806986 "
                                "milliseconds before timing out."),
    ("nccl-collective-timeout", "[rank1]:[E1125 10:11:12.123456 1234 ProcessGroupNCCL.cpp:607] [Rank 1] Watchdog "
                                "caught collective operation timeout: WorkNCCL(SeqNum=2883, OpType=ALLREDUCE, "
                                "NumelIn=1, NumelOut=1, Timeout(ms)=1800000) ran for 1800571 milliseconds before "
                                "timing out."),
    ("nccl-collective-timeout", "RuntimeError: [Rank 3] Caught collective operation timeout: "
                                "WorkNCCL(OpType=ALLGATHER, TensorShape=[1], Timeout(ms)=1800000) ran for 1800163 "
                                "milliseconds before timing out"),
    ("nccl-collective-timeout", "RuntimeError: NCCL communicator was aborted on rank 1.  Original reason for failure "
                                "was: [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=5, "
                                "OpType=BROADCAST, Timeout(ms)=1800000) ran for 1800207 milliseconds before timing out."),
    # c10d store barrier (1.8-2.x), gloo's unbound buffer (1.x-2.x), ncclUniqueId exchange (2.2+).
    ("nccl-collective-timeout", "RuntimeError: Timed out initializing process group in store based barrier on rank: "
                                "0, for key: store_based_barrier_key:1 (world_size=2, worker_count=1, timeout=0:30:00)"),
    ("nccl-collective-timeout", "RuntimeError: [../third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:81] Timed "
                                "out waiting 1800000ms for recv operation to complete"),
    # C10D_NCCL_CHECK: 1.0 ("NCCL Error N"), 1.x (file, error, version), 2.x (DistBackendError, hint).
    ("nccl-error", "RuntimeError: NCCL Error 2: unhandled system error"),
    ("nccl-error", "RuntimeError: NCCL error in: /pytorch/torch/lib/c10d/ProcessGroupNCCL.cpp:514, unhandled system "
                   "error, NCCL version 2.7.8"),
    ("nccl-error", "torch.distributed.DistBackendError: NCCL error in: "
                   "../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, unhandled cuda error (run with "
                   "NCCL_DEBUG=INFO for details), NCCL version 2.19.3\nncclUnhandledCudaError: Call to CUDA function "
                   "failed."),
    ("nccl-error", "torch.distributed.DistBackendError: NCCL error in: "
                   "../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, remote process exited or there was a "
                   "network error, NCCL version 2.21.5\nncclRemoteError: A call failed possibly due to a network "
                   "error or a remote process exiting prematurely."),
    # NCCL's init.cc duplicate check (2.7+), through the same C10D_NCCL_CHECK.
    ("nccl-duplicate-gpu", "torch.distributed.DistBackendError: NCCL error in: "
                           "../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1691, invalid usage (run with "
                           "NCCL_DEBUG=WARN for details), NCCL version 2.19.3\nncclInvalidUsage: This usually reflects "
                           "invalid usage of NCCL library.\nLast error:\nDuplicate GPU detected : rank 1 and rank 0 "
                           "both on CUDA device 1a000"),
    # ProcessGroupNCCL's tensor check (1.x), the 2.x dispatcher for a CPU tensor under a nccl-only group.
    ("collective-cpu-tensor", "RuntimeError: Tensors must be CUDA and dense"),
    ("collective-cpu-tensor", "RuntimeError: No backend type associated with device type cpu"),
    # ProcessGroupWrapper's fingerprint check (1.10+, TORCH_DISTRIBUTED_DEBUG=DETAIL).
    ("collective-under-rank-guard", "RuntimeError: Detected mismatch between collectives on ranks. Rank 0 is running "
                                    "collective: CollectiveFingerPrint(SequenceNumber=12, OpType=ALLREDUCE, "
                                    "TensorShape=[10], TensorDtypes=Float, TensorDeviceTypes=TensorOptions(dtype=float "
                                    "(default), device=cuda, layout=Strided (default), requires_grad=false (default), "
                                    "pinned_memory=false (default), memory_format=(nullopt))), but Rank 1 is running "
                                    "collective: CollectiveFingerPrint(SequenceNumber=12, OpType=BARRIER)."),
    # Reducer (1.1+; 2.x appends the parameter indices).
    ("ddp-unused-parameters", "RuntimeError: Expected to have finished reduction in the prior iteration before "
                              "starting a new one. This error indicates that your module has parameters that were not "
                              "used in producing loss."),
    ("ddp-mark-ready-twice", "RuntimeError: Expected to mark a variable ready only once. This error is caused by one "
                             "of the following reasons: 1) Use of a module parameter outside the `forward` function."),
    ("ddp-mark-ready-twice", "RuntimeError: Expected to mark a variable ready only once. Parameter at index 73 with "
                             "name module.fc.weight has been marked as ready twice. This means that multiple autograd "
                             "engine  hooks have fired for this particular parameter during this iteration."),
    ("ddp-no-trainable-parameters", "RuntimeError: DistributedDataParallel is not needed when a module doesn't have "
                                    "any parameter that requires a gradient."),
    ("dataparallel-attribute", "AttributeError: 'DistributedDataParallel' object has no attribute 'generate'"),
    # torch.distributed.launch (1.x "--local_rank", 2.0+ "--local-rank") against argparse.
    ("launch-local-rank-arg", "train.py: error: unrecognized arguments: --local-rank=0"),
    ("launch-local-rank-arg", "main.py: error: unrecognized arguments: --local_rank=3"),
    ("nccl-backend-unavailable", "RuntimeError: Distributed package doesn't have NCCL built in"),
    # SyncBatchNorm.forward: 1.x ("on GPU"), 2.x (the accelerator list); the 1.1-1.x DDP check.
    ("syncbn-without-ddp", "ValueError: SyncBatchNorm expected input tensor to be on GPU"),
    ("syncbn-without-ddp", "ValueError: SyncBatchNorm expected input tensor to be on GPU or XPU or privateuseone"),
    ("syncbn-without-ddp", "AttributeError: SyncBatchNorm is only supported within "
                           "torch.nn.parallel.DistributedDataParallel"),
    # gloo's tcp pair (1.x-2.x).
    ("gloo-peer-connection-closed", "RuntimeError: [/opt/conda/conda-bld/pytorch_1695392022560/work/third_party/gloo/"
                                    "gloo/transport/tcp/pair.cc:598] Connection closed by peer [10.0.0.2]:11337"),
    ("gloo-peer-connection-closed", "RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:534] Read error "
                                    "[127.0.1.1]:2048: Connection reset by peer"),
    # TCPStore with use_libuv on a build without it: 2.4 ("build") and 2.5+ wording.
    ("dist-libuv-unsupported", "torch.distributed.DistStoreError: use_libuv was requested but PyTorch was build "
                               "without libuv support"),
    ("dist-libuv-unsupported", "torch.distributed.DistStoreError: use_libuv was requested but PyTorch was built "
                               "without libuv support, run with USE_LIBUV=0 to disable it."),
    # FSDP's flat_param checks: 1.12-1.13 ("Must flatten"), 2.0+ (`FlatParameter` requires).
    ("fsdp-mixed-dtype-flat-param", "ValueError: Must flatten tensors with uniform dtype but got torch.bfloat16 and "
                                    "torch.float32"),
    ("fsdp-uniform-requires-grad", "ValueError: `FlatParameter` requires uniform `requires_grad`"),
    ("dtensor-mixed-tensor", "RuntimeError: aten.mm.default: got mixed torch.Tensor and DTensor, need to convert all "
                             "torch.Tensor to DTensor before calling distributed operators!"),

    # ---- Installation: libraries around torch that check it and re-raise.
    # transformers TrainingArguments.__post_init__ (4.x: both flags; later: FP16 only, more devices listed).
    ("accelerate-fp16-without-gpu", "ValueError: Mixed precision training with AMP or APEX (`--fp16` or `--bf16`) and "
                                    "half precision evaluation (`--fp16_full_eval` or `--bf16_full_eval`) can only be "
                                    "used on CUDA devices."),
    ("accelerate-fp16-without-gpu", "ValueError: FP16 Mixed precision training with AMP or APEX (`--fp16`) and FP16 "
                                    "half precision evaluation (`--fp16_full_eval`) can only be used on CUDA or MLU "
                                    "devices or NPU devices or certain XPU devices (with IPEX)."),
    # accelerate Accelerator.__init__ (0.x, then with the device).
    ("accelerate-fp16-without-gpu", "ValueError: fp16 mixed precision requires a GPU"),
    ("accelerate-fp16-without-gpu", "ValueError: fp16 mixed precision requires a GPU (not 'mps')."),
    # torch.amp autocast's bf16 check (1.10+), transformers' bf16 check.
    ("bf16-unsupported-gpu", "RuntimeError: Current CUDA Device does not support bfloat16. Please switch dtype to "
                             "float16."),
    ("bf16-unsupported-gpu", "ValueError: Your setup doesn't support bf16/gpu. You need torch>=1.10, using Ampere "
                             "GPU with cuda>=11.0"),
    # The dynamic loader: libstdc++ from the system (pip torch) or from a conda env (other libraries).
    ("libstdcxx-too-old", f"ImportError: /lib/x86_64-linux-gnu/libstdc++.so.6: version `GLIBCXX_3.4.29' not found "
                          f"(required by {SITE}/torch/lib/libtorch_python.so)"),
    ("libstdcxx-too-old", "OSError: /home/user/miniconda3/envs/train/bin/../lib/libstdc++.so.6: version "
                          "`GLIBCXX_3.4.30' not found (required by /usr/lib/x86_64-linux-gnu/libicuuc.so.70)"),
    # NumPy's C-API import (1.x: the hex API version; 2.0: the ABI message), torch's tensor_numpy.cpp.
    ("numpy-abi-mismatch", "RuntimeError: module compiled against API version 0x10 but this version of numpy is 0xe"),
    ("numpy-abi-mismatch", "A module that was compiled using NumPy 1.x cannot be run in\nNumPy 2.0.0 as it may "
                           "crash. To support both 1.x and 2.x\nversions of NumPy, modules must be compiled with "
                           "NumPy 2.0.\nSome module may need to rebuild instead e.g. with 'pybind11>=2.12'."),
    ("numpy-abi-mismatch", f"{SITE}/torch/_subclasses/functional_tensor.py:275: UserWarning: Failed to initialize "
                           "NumPy: _ARRAY_API not found (Triggered internally at "
                           "/pytorch/torch/csrc/utils/tensor_numpy.cpp:81.)"),
    ("numpy-abi-mismatch", "ImportError: numpy.core.multiarray failed to import"),
    # torchvision/extension.py: the op registry, _check_cuda_version (0.5-0.x "versions", later "major
    # versions"), the image extension's load warning.
    ("torchvision-torch-mismatch", "RuntimeError: operator torchvision::nms does not exist"),
    ("torchvision-torch-mismatch", "RuntimeError: Couldn't load custom C++ ops. This can happen if your PyTorch and "
                                   "torchvision versions are incompatible, or if you had errors while compiling "
                                   "torchvision from source."),
    ("torchvision-torch-mismatch", "RuntimeError: Detected that PyTorch and torchvision were compiled with different "
                                   "CUDA versions. PyTorch has CUDA Version=10.2 and torchvision has CUDA "
                                   "Version=10.1. Please reinstall the torchvision that matches your PyTorch install."),
    ("torchvision-torch-mismatch", "RuntimeError: Detected that PyTorch and torchvision were compiled with different "
                                   "CUDA major versions. PyTorch has CUDA Version=11.8 and torchvision has CUDA "
                                   "Version=12.1. Please reinstall the torchvision that matches your PyTorch install."),
    ("torchvision-torch-mismatch", f"OSError: {SITE}/torchaudio/lib/libtorchaudio.so: undefined symbol: "
                                   "_ZN3c104cuda9SetDeviceEi"),
    # transformers' import guard, and Python's own.
    ("torch-not-installed", "ImportError: \nAutoModel requires the PyTorch library but it was not found in your "
                            "environment. Checkout the instructions on the\ninstallation page: "
                            "https://pytorch.org/get-started/locally/ and follow the ones that match your environment."),
    ("torch-too-old-for-package", "AttributeError: module 'torch.nn.functional' has no attribute "
                                  "'scaled_dot_product_attention'"),
    ("torch-too-old-for-package", "AttributeError: module 'torch' has no attribute 'float8_e4m3fn'"),
    # torch/utils/tensorboard/__init__.py (1.x) with setuptools >= 59.6.
    ("tensorboard-distutils-setuptools", "AttributeError: module 'distutils' has no attribute 'version'"),
    # torch_xla's computation_client (XRT, 1.x) without a runtime.
    ("xla-runtime-not-configured", "RuntimeError: tensorflow/compiler/xla/xla_client/computation_client.cc:280 : "
                                   "Missing XLA configuration"),
    # ROCm builds: c10/hip's HIP_CHECK, the HIP runtime's loader.
    ("rocm-gfx-arch-unsupported", "RuntimeError: HIP error: invalid device function\nHIP kernel errors might be "
                                  "asynchronously reported at some other API call, so the stacktrace below might be "
                                  "incorrect."),
    ("rocm-gfx-arch-unsupported", "\"hipErrorNoBinaryForGpu: Unable to find code object for all current devices!\""),

    # ---- Extension packages around torch.
    ("apex-cuda-ext-missing", "ModuleNotFoundError: No module named 'fused_layer_norm_cuda'"),
    ("apex-cuda-ext-missing", "ImportError: No module named 'amp_C'"),
    ("deepspeed-op-build-failed", "deepspeed.ops.op_builder.builder.CUDAMismatchException: >- DeepSpeed Op Builder: "
                                  "Installed CUDA version 12.4 does not match the version torch was compiled with "
                                  "11.8, unable to compile cuda/cpp extensions without a matching cuda version."),
    ("deepspeed-op-build-failed", "AttributeError: 'DeepSpeedCPUAdam' object has no attribute 'ds_opt_adam'"),
    # DeepSpeed without a toolkit: the root cause has its own entry (deepspeed-op-build-failed is refined by it).
    ("extension-cuda-home-missing", "deepspeed.ops.op_builder.builder.MissingCUDAException: CUDA_HOME does not exist, "
                                    "unable to compile CUDA op(s)"),
    ("flash-attn-not-installed", "ImportError: This modeling file requires the following packages that were not found "
                                 "in your environment: flash_attn. Run `pip install flash_attn`"),
    ("flash-attn-not-installed", "ImportError: FlashAttention2 has been toggled on, but it cannot be used due to the "
                                 "following error: the package flash_attn seems to be not installed. Please refer to "
                                 "the documentation of https://huggingface.co/docs/transformers/perf_infer_gpu_one#"
                                 "flashattention-2 to install Flash Attention 2."),
    ("flash-attn-unsupported-gpu", "RuntimeError: FlashAttention only supports Ampere GPUs or newer."),
    ("mmcv-ext-missing", "ModuleNotFoundError: No module named 'mmcv._ext'"),
    ("mmcv-version-incompatible", "AssertionError: MMCV==2.2.0 is used but incompatible. Please install mmcv>=2.0.0rc4, "
                                  "<2.2.0."),
    ("xformers-no-operator", "NotImplementedError: No operator found for `memory_efficient_attention_forward` with "
                             "inputs:\n     query       : shape=(2, 4096, 8, 40) (torch.float32)"),
    ("safetensors-shared-tensors", "RuntimeError: Some tensors share memory, this will lead to duplicate memory on "
                                   "disk and potential differences when loading them again: [{'lm_head.weight', "
                                   "'model.embed_tokens.weight'}]."),
    ("torchscript-unsupported-python", "RuntimeError: Python builtin <built-in function hasattr> is currently not "
                                       "supported in Torchscript:"),
    ("state-dict-loaded-as-model", "AttributeError: 'collections.OrderedDict' object has no attribute 'eval'"),
    ("pickled-model-class-missing", "AttributeError: Can't get attribute 'Net' on <module '__main__' from "
                                    "'predict.py'>"),
    # pickle's find_class for a class a project module lacks (YOLOv5 models pickled after SPPF was added).
    ("pickled-model-class-missing", "AttributeError: Can't get attribute 'SPPF' on <module 'models.common' from "
                                    "'/home/u/yolov5/models/common.py'>"),
    ("checkpoint-python2-encoding", f"""  File "{SITE}/torch/serialization.py", line 1040, in _legacy_load
    result = unpickler.load()
UnicodeDecodeError: 'ascii' codec can't decode byte 0x8b in position 2: ordinal not in range(128)
"""),
    # DeepSpeed's engine.no_sync (0.10+).
    ("deepspeed-no-sync-zero", "AssertionError: no_sync context manager is incompatible with gradient partitioning "
                               "logic of ZeRO stage 2"),
    # torch.multiprocessing.spawn (1.x-2.x) pickling its arguments for the new processes.
    ("spawn-pickle-local-object", f"""  File "train.py", line 60, in <module>
    mp.spawn(run, args=(world_size, model), nprocs=world_size)
  File "{SITE}/torch/multiprocessing/spawn.py", line 241, in spawn
    return start_processes(fn, args, nprocs, join, daemon, start_method="spawn")
  File "/usr/lib/python3.11/multiprocessing/reduction.py", line 60, in dump
    ForkingPickler(file, protocol).dump(obj)
AttributeError: Can't pickle local object 'main.<locals>.Model'
"""),
    # pip >= 22's subprocess report: setup.py imports torch inside the isolated build environment.
    ("build-isolation-no-torch", """  Getting requirements to build wheel ... error
  error: subprocess-exited-with-error

  × Getting requirements to build wheel did not run successfully.
  │ exit code: 1
  ╰─> [17 lines of output]
      Traceback (most recent call last):
        File "<string>", line 2, in <module>
      ModuleNotFoundError: No module named 'torch'
      [end of output]
"""),
    # horovod/torch/optimizer.py _DistributedOptimizer.zero_grad (0.16+).
    ("horovod-zero-grad-race", "AssertionError: optimizer.zero_grad() was called after loss.backward() but before "
                               "optimizer.step() or optimizer.synchronize(). This is prohibited as it can cause a race "
                               "condition."),
    # torch.jit.frontend on DataParallel.forward: 1.x ("at file:line:col") and 2.x ('File "..."') locations.
    ("jit-script-dataparallel", "torch.jit.frontend.NotSupportedError: Compiled functions can't take variable number "
                                "of arguments or use keyword-only arguments with defaults:\n  File "
                                f"\"{SITE}/torch/nn/parallel/data_parallel.py\", line 167\n    def forward(self, "
                                "*inputs: Any, **kwargs: Any) -> Any:"),
    ("jit-script-dataparallel", f"""torch.jit.frontend.NotSupportedError: Compiled functions can't take variable number of arguments or use keyword-only arguments with defaults:
at {SITE}/torch/nn/parallel/data_parallel.py:139:24
    def forward(self, *inputs, **kwargs):
                                ~~~~~~~ <--- HERE
"""),
    # pybind11's holder cast inside torch.onnx's graph passes (1.x).
    ("onnx-non-held-instance", "RuntimeError: Unable to cast from non-held to held instance (T& to Holder<T>) "
                               "(compile in debug mode for type information)"),
    ("torch2trt-unsupported-layer", "AttributeError: 'Tensor' object has no attribute '_trt'"),
    # torch.ops' namespace lookup for fbgemm_gpu operators (1.x-2.x wordings).
    ("fbgemm-gpu-torch-mismatch", "AttributeError: '_OpNamespace' 'fbgemm' object has no attribute "
                                  "'jagged_2d_to_dense'"),
    ("fbgemm-gpu-torch-mismatch", "RuntimeError: No such operator fbgemm::jagged_to_padded_dense"),

    # ---- Second pass: the same causes as other code paths report them.
    # cudaErrorStubLibrary (34, CUDA 11.1+) through CUDAFunctions.cpp's device count.
    ("nvidia-driver-not-found", "RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run some cuda "
                                "functions before calling NumCudaDevices() that might have already set an error? "
                                "Error 34: CUDA driver is a stub library"),
    # cudaErrorInitializationError (3) in the same device count (1.8+): a warning, then the RuntimeError.
    ("cuda-unknown-error", f"{SITE}/torch/cuda/__init__.py:129: UserWarning: CUDA initialization: CUDA driver "
                           "initialization failed, you might not have a CUDA gpu. (Triggered internally at "
                           "../c10/cuda/CUDAFunctions.cpp:108.)"),
    ("cuda-unknown-error", "RuntimeError: CUDA driver initialization failed, you might not have a CUDA gpu."),
    # cudaErrorSystemNotReady (802) through C10_CUDA_CHECK (NVSwitch without the fabric manager).
    ("cuda-unknown-error", "RuntimeError: CUDA error: system not yet initialized"),
    # ROCm builds: the hipified device-count check and HIP_CHECK.
    ("cuda-no-device-visible", "RuntimeError: No HIP GPUs are available"),
    ("cuda-no-device-visible", "RuntimeError: HIP error: no ROCm-capable device is detected"),
    # PyTorch Lightning's accelerator check (1.x pytorch_lightning, 2.x lightning_fabric).
    ("cuda-not-compiled", "pytorch_lightning.utilities.exceptions.MisconfigurationException: GPUAccelerator can not "
                          "run on your system since the accelerator is not available. The following accelerator(s) "
                          "is available and can be passed into `accelerator` argument of `Trainer`: ['cpu']."),
    ("cuda-not-compiled", "lightning_fabric.utilities.exceptions.MisconfigurationException: No supported gpu backend "
                          "found!"),
    # NCCL's shm transport (shmutils.cc 2.12+, shm.h before) in a container's small /dev/shm; CuPy's binding.
    ("nccl-error", "node-0:1234:1290 [0] misc/shmutils.cc:72 NCCL WARN Error: failed to extend /dev/shm/nccl-4hDeVW "
                   "to 9637892 bytes"),
    ("nccl-error", "node-0:1234:1290 [0] include/shm.h:28 NCCL WARN Call to posix_fallocate failed : No space left "
                   "on device"),
    ("nccl-error", "cupy_backends.cuda.libs.nccl.NcclError: NCCL_ERROR_UNHANDLED_CUDA_ERROR: unhandled cuda error"),
    # No C++ compiler: cpp_extension 1.x `which c++`, 1.8+ the version-check warning (Linux and Windows).
    ("extension-build-error", "subprocess.CalledProcessError: Command '['which', 'c++']' returned non-zero exit "
                              "status 1."),
    ("extension-build-error", f"{SITE}/torch/utils/cpp_extension.py:411: UserWarning: Error checking compiler "
                              "version for c++: [Errno 2] No such file or directory: 'c++'"),
    ("extension-build-error", "C:\\Users\\me\\venv\\lib\\site-packages\\torch\\utils\\cpp_extension.py:383: "
                              "UserWarning: Error checking compiler version for cl: [WinError 2] The system cannot "
                              "find the file specified"),
    # transformers' first wording of the fp16 device check (early 4.x).
    ("accelerate-fp16-without-gpu", "ValueError: Mixed precision training with AMP or APEX (`--fp16`) can only be "
                                    "used on CUDA devices."),
    # torch/csrc/DataLoader.cpp names the signal: SIGABRT is a native crash like SIGSEGV.
    ("dataloader-worker-segfault", "RuntimeError: DataLoader worker (pid 1234) is killed by signal: Aborted."),
    # torch <= 0.4 THD's DataChannel::newChannel for a backend the build lacks.
    ("nccl-backend-unavailable", "RuntimeError: the Gloo backend is not available; try to recompile the THD package "
                                 "with Gloo support"),
    # torch/csrc/jit/python/pybind_utils.h toTraceableIValue (1.x "dictsare", later with the space).
    ("jit-trace-unsupported-io", "RuntimeError: Tracer cannot infer type of (tensor([[0.1, 0.9]]), None)\n:Only "
                                 "tensors and (possibly nested) tuples of tensors, lists, or dictsare supported as "
                                 "inputs or outputs of traced functions, but instead got value of type NoneType."),
    ("jit-trace-unsupported-io", "RuntimeError: Tracer cannot infer type of ({'out': tensor([[1.]])},)\n:Dictionary "
                                 "inputs to traced functions must have consistent type. Found Tensor and "
                                 "Tuple[Tensor, Tensor]"),
    # The legacy writer's open(path, "wb") inside torch.save (torch < 1.6, or the legacy format).
    ("checkpoint-save-dir-missing", f"""  File "train.py", line 120, in <module>
    torch.save(model.state_dict(), "checkpoints/epoch_1.pth")
  File "{SITE}/torch/serialization.py", line 218, in save
    return _with_file_like(f, "wb", lambda f: _save(obj, f, pickle_module, pickle_protocol))
  File "{SITE}/torch/serialization.py", line 141, in _with_file_like
    f = open(f, mode)
FileNotFoundError: [Errno 2] No such file or directory: 'checkpoints/epoch_1.pth'
"""),
    # nvcc / the linker inside an extension build without the toolkit's headers or libraries.
    ("extension-cuda-home-missing", "/tmp/pip-install-x/op/csrc/kernel.cu:3:10: fatal error: cuda_runtime_api.h: No "
                                    "such file or directory\ncompilation terminated."),
    ("extension-cuda-home-missing", "/usr/bin/ld: cannot find -lcudart: No such file or directory\ncollect2: error: "
                                    "ld returned 1 exit status"),
    # Extension sources written for an older torch: AT_CHECK (removed in 1.5), THC (removed in 1.11).
    ("extension-build-error", "/tmp/pip-req-build/src/nms_cuda.cu(62): error: identifier \"AT_CHECK\" is undefined"),
    ("extension-build-error", "src/roi_align.cpp:12:3: error: 'AT_CHECK' was not declared in this scope; did you "
                              "mean 'TORCH_CHECK'?"),
    ("extension-build-error", "src/deform_conv_cuda.cu:71:10: error: 'THCState' was not declared in this scope"),
    # YOLOv5's select_device (utils/torch_utils.py): 2020-2021 and 2022 wordings of "no CUDA".
    ("cuda-not-compiled", "AssertionError: CUDA unavailable, invalid device 0 requested"),
    ("cuda-not-compiled", "AssertionError: CUDA unavailable"),
    # DeepSpeed ZeRO-1/2's stage_1_and_2.py: the parameter-reduced-twice check (the f-string keeps the
    # source's indentation inside the message).
    ("ddp-mark-ready-twice", "AssertionError: The parameter 447 has already been reduced.             Gradient "
                             "computed twice for this partition.             Multiple gradient reduction is "
                             "currently not supported"),
    # The kill as a scheduler or an IDE reports it: Slurm's slurmstepd, PyCharm's run console.
    ("host-oom-killed", "slurmstepd: error: Detected 1 oom_kill event in StepId=123456.0. Some of the step tasks "
                        "have been OOM Killed."),
    ("host-oom-killed", "Process finished with exit code 137 (interrupted by signal 9: SIGKILL)"),
    ("host-oom-killed", "torch.multiprocessing.spawn.ProcessExitedException: process 0 terminated with signal SIGKILL"),

    # ---- The same messages as titles and sentences quote them: cut to their key phrase, without the
    # values, re-cased, in Chinese.
    ("extension-cuda-home-missing", "CUDA_HOME is not set when installing"),
    ("extension-cuda-home-missing", "找不到 CUDA_HOME 环境变量"),
    ("nccl-error", "NCCL unhandled system error"),
    ("nccl-error", "nccl unhandled cuda error when training with 2 GPUs"),
    ("dataloader-worker-killed", "DataLoader worker exited unexpectedly"),
    ("cudnn-execution-failed", "cudnn status execution failed"),
    ("cuda-unknown-error", "cuda runtime error (999)"),
    ("extension-build-error", "The detected CUDA version mismatches the version that was used to compile PyTorch"),
    ("apex-cuda-ext-missing", "fused_layer_norm_cuda not found"),
    ("weights-only-unpickling", "torch.load weights_only error"),
]

NOT_THESE = [
    # scikit-learn's own pickle (joblib.load / pickle.load) under another scikit-learn release.
    ("pickled-model-class-missing", "AttributeError: Can't get attribute '_gb_losses' on <module "
                                    "'sklearn.ensemble._gb_losses' from '/venv/lib/python3.11/site-packages/sklearn/"
                                    "ensemble/_gb_losses.py'>"),
    # The minor-version warning of cpp_extension (1.13+): the build goes on.
    ("extension-build-error", f"{SITE}/torch/utils/cpp_extension.py:414: UserWarning: The detected CUDA version "
                              "(12.4) has a minor version mismatch with the version that was used to compile "
                              "PyTorch (12.1). Most likely this shouldn't be a problem."),

    # cpp_extension's notice when no GPU is visible at build time: CUDA_HOME was found.
    ("extension-cuda-home-missing", "No CUDA runtime is found, using CUDA_HOME='/usr/local/cuda'"),
    # A checkpoint that is not there: torch.load, not torch.save.
    ("checkpoint-save-dir-missing", f"""  File "{SITE}/torch/serialization.py", line 1425, in load
    with _open_file_like(f, "rb") as opened_file:
  File "{SITE}/torch/serialization.py", line 751, in __init__
    super().__init__(open(name, mode))
FileNotFoundError: [Errno 2] No such file or directory: 'checkpoints/best.pth'
"""),
    # A disk full while extracting a dataset: not torch.save's.
    ("checkpoint-save-write-failed", """  File "prepare.py", line 12, in <module>
    tar.extractall("data/")
OSError: [Errno 28] No space left on device
"""),

    # A rank's own CUDA error reported by the NCCL check: the NCCL error entry, not a duplicate GPU.
    ("nccl-duplicate-gpu", "torch.distributed.DistBackendError: NCCL error in: "
                           "../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, unhandled cuda error (run with "
                           "NCCL_DEBUG=INFO for details), NCCL version 2.19.3"),
    # A socket error of a web client, not a rendezvous store.
    ("dist-port-in-use", "OSError: [Errno 98] error while attempting to bind on address ('0.0.0.0', 7860): address "
                         "in use"),

    # transformers' bf16 device check: not fp16, and not a missing GPU (bf16 on a CPU-only device is allowed).
    ("accelerate-fp16-without-gpu", "ValueError: Your setup doesn't support bf16/gpu. You need torch>=1.10, using "
                                    "Ampere GPU with cuda>=11.0"),
    # A UnicodeDecodeError reading a text file: no torch.load in it.
    ("checkpoint-python2-encoding", """  File "prepare.py", line 8, in <module>
    df = pd.read_csv("labels.csv")
UnicodeDecodeError: 'utf-8' codec can't decode byte 0xff in position 0: invalid start byte
"""),

    # Lightning asked for more GPUs than the machine has: the GPU is there, torch is not CPU-only.
    ("cuda-not-compiled", "lightning_fabric.utilities.exceptions.MisconfigurationException: You requested gpu: "
                          "[0, 1]\n But your machine only has: [0]"),
    # CUDA used before a fork: torch's own message, not a driver that failed to start.
    ("cuda-unknown-error", "RuntimeError: Cannot re-initialize CUDA in forked subprocess. To use CUDA with "
                           "multiprocessing, you must use the 'spawn' start method"),
    # ROCm with a device present but no kernels for its gfx: not a missing device.
    ("cuda-no-device-visible", "RuntimeError: HIP error: invalid device function"),
    # SIGTERM: something outside stopped the worker (a scheduler, a timeout), not a native crash.
    ("dataloader-worker-segfault", "RuntimeError: DataLoader worker (pid 1234) is killed by signal: Terminated."),
    # torch.load of a checkpoint that is not there: the same FileNotFoundError, not torch.save's.
    ("checkpoint-save-dir-missing", f"""  File "eval.py", line 12, in <module>
    state = torch.load("checkpoints/best.pth", map_location="cpu")
  File "{SITE}/torch/serialization.py", line 1319, in load
    with _open_file_like(f, "rb") as opened_file:
  File "{SITE}/torch/serialization.py", line 659, in _open_file_like
    return _open_file(name_or_buffer, mode)
FileNotFoundError: [Errno 2] No such file or directory: 'checkpoints/best.pth'
"""),
    # Python's own headers missing: a plain C-extension build problem, not the CUDA toolkit.
    ("extension-cuda-home-missing", "src/module.c:1:10: fatal error: Python.h: No such file or directory"),
    # TensorFlow's dso_loader log, not a torch library conflict or a missing torch dependency.
    ("cuda-libs-conflict", "W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic "
                           "library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot open shared object file: "
                           "No such file or directory"),
    ("cuda-runtime-library-missing", "W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load "
                                     "dynamic library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot open "
                                     "shared object file: No such file or directory"),
    # YOLOv5 asked for a GPU index the machine does not have: CUDA itself works.
    ("cuda-not-compiled", "AssertionError: invalid CUDA device 1 requested"),
    # c10d's IPv6 probe on a host without IPv6 (2.x): a harmless warning before the store starts.
    ("dist-port-in-use", "[W socket.cpp:436] [c10d] The server socket cannot be initialized on [::]:29500 (errno: "
                         "97 - Address family not supported by protocol)."),
    ("dist-rendezvous-unreachable", "[W socket.cpp:663] [c10d] The client socket cannot be initialized to connect to "
                                    "[localhost]:29500 (errno: 97 - Address family not supported by protocol)."),
    # torch.load's 2.4-2.5 FutureWarning about the coming default: a notice, not a refusal.
    ("weights-only-unpickling", f"{SITE}/torch/serialization.py:1113: FutureWarning: You are using `torch.load` with "
                                "`weights_only=False` (the current default value), which uses the default pickle "
                                "module implicitly. In a future release, the default value for `weights_only` will "
                                "be flipped to `True`."),
    # NCCL's normal startup log.
    ("nccl-error", "node-0:1234:1234 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>"),
    # A cuDNN API user discussing the status constant in prose: no torch operation failed.
    ("cudnn-execution-failed", "With NHWC half tensors and outputs = 9, the algorithm that "
                               "cudnnFindConvolutionForwardAlgorithm suggests makes "
                               "cudnnGetConvolutionForwardWorkspaceSize return CUDNN_STATUS_NOT_SUPPORTED, so I call "
                               "it for the next algorithm."),
]


test_wording_names_its_cause_first, test_close_text_is_not_this_cause = wording_tests(WORDINGS, NOT_THESE)
