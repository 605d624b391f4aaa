"""Session 21's wordings, each naming its cause first, and each close text not naming it:
- the dispatcher refusing an allocation or copy kernel on the 'CUDA' backend (empty_strided, _to_copy, ...) is a
  build without CUDA reached from C++ or TorchScript (cuda-not-compiled); close: torchvision's nms refused on
  'CUDA' (its own entry) and a quantized allocation refused on 'CUDA' by a CUDA build; the same refusal under
  torch.jit.load's frame is a TorchScript file saved with CUDA tensors (cuda-unavailable-on-load, map_location);
- "no kernel image available" without its verb, as titles write it (cuda-no-kernel-image); close: nvcc refusing an
  architecture while building;
- pip finding no wheel of torch's binary-only companions for other back-ends (torch-directml, torch_npu, IPEX) is
  no-wheel-for-python; close: a package of another vendor (torch-tensorrt) and a companion that was found;
- a system library's header missing while an extension builds (EGL for nvdiffrast, sparsehash for torchsparse, also
  extensionless C++ headers and clang's wording) is extension-build-missing-system-headers; close: the CUDA toolkit's
  header, the THC headers torch removed, torch's own header (build isolation), and any C extension's missing header
  under setuptools' "command 'gcc' failed" alone (darkflow's Python.h, mujoco-py's OSMesa);
- Lightning's Tensor Cores hint broken after its first sentence by the paste (inductor-tf32-matmul-hint);
- the illegal-instruction crash told in words (cpu-instruction-set-unsupported); close: CUDA's "an illegal instruction was
  encountered", a GPU kernel's fault;
- the mobile runtime refusing a lite-interpreter model of a newer version (checkpoint-newer-format); close: the same
  words about an operator missing from the mobile build;
- pip's resolver before 20.3 ("has requirement torch==..., but you'll have torch ...") is torchvision-torch-mismatch;
- torch 1.x's "TypeError: expected CUDA (got CPU)" from a legacy typed constructor (legacy-tensor-type-constructor);
  close: the old device-mismatch wording "expected type torch.cuda.FloatTensor but got torch.FloatTensor";
- "Ran out of input" told with the checkpoint file it came from (checkpoint-corrupt); close: the same beside num_workers
  (the DataLoader's spawn), and alone;
- an extension missing a symbol of the C++ standard library itself (std::runtime_error, std::exception_ptr) is
  libstdcxx-too-old; close: a torch symbol whose signature merely holds std::string (extension-abi-mismatch) and
  libc++'s std::__1 on macOS."""

from __future__ import annotations

from kb_wordings import wording_tests

WORDINGS = [
    ("cuda-not-compiled", "[02:15:37.331] [error] ENGINE: Traceback (most recent call last):\n"
                          '  File "core.pyx", line 14, in core.initialize\n'
                          "Exception: Could not run 'aten::empty_strided' with arguments from the 'CUDA' backend. This could be "
                          "because the operator doesn't exist for this backend, or was omitted during the selective/custom build process"),
    ("cuda-not-compiled", "NotImplementedError: Could not run 'aten::empty.memory_format' with arguments from the 'CUDA' backend. "
                          "'aten::empty.memory_format' is only available for these backends: [CPU, Meta, MkldnnCPU, SparseCPU, BackendSelect]."),
    ("cuda-not-compiled", "terminate called after throwing an instance of 'c10::NotImplementedError'\n"
                          "  what():  Could not run 'aten::_to_copy' with arguments from the 'CUDA' backend."),
    ("cuda-no-kernel-image", "CUDA error: no kernel image available"),
    ("no-wheel-for-python", "PS C:\\Users\\me> pip install torch-directml\n"
                            "ERROR: Could not find a version that satisfies the requirement torch-directml (from versions: none)\n"
                            "ERROR: No matching distribution found for torch-directml"),
    ("no-wheel-for-python", "ERROR: No matching distribution found for torch_npu==2.1.0"),
    ("no-wheel-for-python", "ERROR: Could not find a version that satisfies the requirement intel-extension-for-pytorch==2.1.10+xpu"),
    ("extension-build-missing-system-headers", "fatal error: EGL/egl.h: No such file or directory"),
    ("extension-build-missing-system-headers", "      torchsparse/backend/hashmap/hashmap_cpu.hpp:7:10: fatal error: google/dense_hash_map: "
                                               "No such file or directory\n          7 | #include <google/dense_hash_map>\n"
                                               "      compilation terminated.\n      error: command 'gcc' failed with exit status 1"),
    ("extension-build-missing-system-headers", "/root/.cache/torch_extensions/py310_cu121/renderutils_plugin/common.cpp:3:10: "
                                               "fatal error: 'GL/gl.h' file not found"),
    ("extension-build-missing-system-headers", "src/ext.cpp:2:10: fatal error: Python.h: No such file or directory\n"
                                               "compilation terminated.\nninja: build stopped: subcommand failed."),
    ("inductor-tf32-matmul-hint", "You are using a CUDA device ('NVIDIA GeForce RTX 4060 Laptop GPU') that has Tensor Cores. \n"
                                  "To properly utilize them, you should set torch.set_float32_matmul_precision('medium' | 'high') "
                                  "which will trade-off precision for performance."),
    ("cpu-instruction-set-unsupported", "When I try to import latest torch 2.4.0, on my Raspberry Pi 4 board, `python3` crashes with "
                                        "Illegal instruction error, but the previous 2.3.1 version works fine."),
    ("cpu-instruction-set-unsupported", "I'am trying to install torch2trt at Jetson Nano, but `Illegal instruction` occured."),
    ("cpu-instruction-set-unsupported", "My detection program that is running on two other Pis failed with an illegal instruction."),
    ("checkpoint-newer-format", "Error: Lite Interpreter version number does not match. The model version must be between 3 and 7 "
                                "but the model version is 8 ()"),
    ("torchvision-torch-mismatch", "ERROR: torchvision 0.17.2 has requirement torch==2.2.2, but you'll have torch 2.0.1 which is incompatible."),
    ("legacy-tensor-type-constructor", '  File "rembg/u2net/detect.py", line 110, in predict\n'
                                       '    inputs_test = torch.cuda.FloatTensor(sample["image"].unsqueeze(0).float())\n'
                                       "TypeError: expected CUDA (got CPU)"),
    ("checkpoint-corrupt", "I keep getting this error `EOFError: Ran out of input` when running on lipsync_expert.pth or "
                           "wav2lip_gan.pth however, it runs fine on wav2lip.pth"),
    ("checkpoint-corrupt", "EOFError: Ran out of input while loading the pretrained checkpoint"),
    ("cuda-unavailable-on-load", '  File "monai/deploy/core/models/torch_model.py", line 50, in predictor\n'
                                 "    self._predictor = torch.jit.load(self.path).eval()\n"
                                 '  File "/opt/anaconda3/lib/python3.8/site-packages/torch/jit/_serialization.py", line 161, in load\n'
                                 "    cpp_module = torch._C.import_ir_module(cu, str(f), map_location, _extra_files)\n"
                                 "NotImplementedError: Could not run 'aten::empty_strided' with arguments from the 'CUDA' backend. "),
    ("libstdcxx-too-old", 'I have installed torch-scatter by following your suggestion.But I still met the problem that '
                          '"undefined symbol: _ZNSt13runtime_errorC2EPKc"'),
    ("libstdcxx-too-old", "ImportError: /envs/p3d/lib/python3.8/site-packages/pytorch3d/_C.cpython-38-x86_64-linux-gnu.so: "
                          "undefined symbol: _ZNSt15__exception_ptr13exception_ptr9_M_addrefEv"),
]

NOT_THESE = [
    ("libstdcxx-too-old", "ImportError: /x/ext/_C.so: undefined symbol: "
                          "_ZN3c106detail14torchCheckFailEPKcS2_jRKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE"),
    ("libstdcxx-too-old", "ImportError: dlopen(/x/_C.so, 2): Symbol not found: __ZNSt3__112basic_stringIcNS_11char_traitsIcEENS_9allocatorIcEEE6__initEPKcm\n"
                          "undefined symbol: _ZNSt3__112basic_stringIcNS_11char_traitsIcEENS_9allocatorIcEEE6__initEPKcm"),
    ("checkpoint-corrupt", "EOFError: Ran out of input with num_workers=4 when loading the checkpoint list on Windows"),
    ("checkpoint-corrupt", "EOFError: Ran out of input"),
    ("legacy-tensor-type-constructor", "RuntimeError: expected type torch.cuda.FloatTensor but got torch.FloatTensor"),
    ("cpu-instruction-set-unsupported", "RuntimeError: CUDA error: an illegal instruction was encountered\nCUDA kernel errors might be "
                                        "asynchronously reported at some other API call"),
    ("cpu-instruction-set-unsupported", "the kernel hit an illegal instruction was encountered error on the H100"),
    ("checkpoint-newer-format", "Following ops cannot be found. Please check if the operator library is included in the build."),
    ("extension-build-missing-system-headers", "csrc/ops.cu:1:10: fatal error: cuda_runtime_api.h: No such file or directory\n"
                                               "compilation terminated.\nninja: build stopped: subcommand failed."),
    ("extension-build-missing-system-headers", "deepspeed/ops/csrc/includes/gemm_test.h:6:10: fatal error: cuda_profiler_api.h: "
                                               "No such file or directory\ncompilation terminated.\nninja: build stopped: subcommand failed."),
    ("extension-build-missing-system-headers", "gcc main.c\nmain.c:1:10: fatal error: zlib.h: No such file or directory"),
    ("extension-build-missing-system-headers", "src/nms_cuda.cu:2:10: fatal error: THC/THC.h: No such file or directory\n"
                                               "compilation terminated.\nninja: build stopped: subcommand failed."),
    ("extension-build-missing-system-headers", "fatal error: Python.h: No such file or directory compilation terminated. "
                                               "error: command 'x86_64-linux-gnu-gcc' failed with exit status 1"),
    ("extension-build-missing-system-headers", "/tmp/pip-install-x/mujoco-py/mujoco_py/gl/osmesashim.c:1:23: fatal error: GL/osmesa.h: "
                                               "No such file or directory\n    compilation terminated.\n    error: command 'gcc' failed with exit status 1"),
    ("extension-build-missing-system-headers", "src/ext.cpp:1:10: fatal error: torch/extension.h: No such file or directory\n"
                                               "compilation terminated.\nerror: command 'gcc' failed with exit status 1"),
    ("cuda-no-kernel-image", "nvcc fatal   : Unsupported gpu architecture 'compute_120'"),
    ("no-wheel-for-python", "ERROR: Could not find a version that satisfies the requirement torch-tensorrt (from versions: none)"),
    ("no-wheel-for-python", "Successfully installed torch-directml-0.2.5.dev240914"),
    ("cuda-not-compiled", "NotImplementedError: Could not run 'torchvision::nms' with arguments from the 'CUDA' backend."),
    ("cuda-not-compiled", "NotImplementedError: Could not run 'aten::_empty_affine_quantized' with arguments from the 'CUDA' backend."),
    ("cuda-not-compiled", "NotImplementedError: Could not run 'aten::slow_conv3d_forward' with arguments from the 'CUDA' backend."),
]

test_wording_names_its_cause_first, test_close_text_is_not_this_cause = wording_tests(WORDINGS, NOT_THESE)
