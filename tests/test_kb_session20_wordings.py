"""Session 20's wordings (batches 48 to 51), each naming its cause first, and each close text not naming it:
- TorchScript's compiler type errors (an unannotated argument taken for a Tensor, a ModuleList indexed by a loop
  variable, a variable given two types) are torchscript-unsupported-python; close:
  the same "Expected a value of type" from an eager call through torch.ops, which the compiler never saw;
- libtorch's "received a file from torch.save()" is jit-load-not-torchscript;
- "Unknown type name 'NoneType'" at `_is_full_backward_hook` in a model of the user's own classes is an archive written
  by a newer torch (checkpoint-newer-format); close: a TorchBind class of an extension;
- an extension's op or TorchBind class unknown to torch.jit.load is jit-load-extension-runtime-not-loaded; close:
  torchvision's ops (their own entry) and an aten op an older reader lacks;
- a CUDA kernel an older torch built without BFloat16 (bf16-op-kernel-missing-old-torch), torch 1.3's dispatcher refusing
  a quantized op on CUDA (quantized-backend-op); close: a CPU kernel's refusal and GradScaler's;
- torchaudio 2.9's removed backend API as an error, a log line and 2.8's warning (torchaudio-backend-api-removed); close:
  a backend not installed, TorchCodec missing, a circular import, an attribute 2.9 still has;
- an FP8 matmul refused below compute capability 8.9 (fp8-scaled-mm-unsupported-gpu) and torchtext's library with an
  undefined symbol (torchvision-torch-mismatch); close: bfloat16 refused, a third-party extension's undefined symbol;
- a "dist sampler" with the same order every epoch (distributed-sampler-set-epoch-missing) and MPS's fallback switch
  named (mps-op-unsupported); close: a plain sampler's order, a distributed sampler that hangs;
- an NCCL symbol missing, the library not named (cuda-libs-conflict); close: torch's own C++ symbol missing."""

from __future__ import annotations

from kb_wordings import wording_tests

WORDINGS = [
    ("torchscript-unsupported-python", "RuntimeError: \nArguments for call are not valid.\nThe following variants are available:\n"
                                       "  aten::sum(Tensor self, *, int? dtype=None) -> (Tensor):\n"
                                       "  Expected a value of type 'List[int]' for argument 'dim' but instead found type 'Tensor'.\n"
                                       "Inferred 'dim' to be of type 'Tensor' because it was not annotated with an explicit type."),
    ("torchscript-unsupported-python", "RuntimeError: \nExpected integer literal for index. ModuleList/Sequential indexing is only "
                                       "supported with integer literals. Enumeration is supported, e.g. 'for index, v in enumerate(self): ...':\n"
                                       '  File "models/yolo.py", line 54\n            x[i] = self.m[i](x[i])  # conv\n                   ~~~~~~~~~ <--- HERE'),
    ("torchscript-unsupported-python", "RuntimeError: \nVariable 'alpha' previously had type NoneType but is now being assigned to a value of type Tensor\n"
                                       ':\n  File "conv.py", line 118'),
    ("torchscript-unsupported-python", "RuntimeError: \nvariable 'pred_semantic' previously has type None but is now being assigned to a value of type Tensor"),
    ("jit-load-not-torchscript", "Error: com.facebook.jni.CppException: `torch::jit::load()` received a file from `torch.save()`, but "
                                 "`torch::jit::load()` can only load files produced by `torch.jit.save()` (load at import.cpp:287)"),
    ("checkpoint-newer-format", "RuntimeError: \nUnknown type name 'NoneType':\nSerialized   File \"code/__torch__/mynet/backbone.py\", line 7\n"
                                "  training : bool\n  _is_full_backward_hook : NoneType\n                           ~~~~~~~~ <--- HERE"),
    ("jit-load-extension-runtime-not-loaded", "terminate called after throwing an instance of 'torch::jit::ErrorReport'\n  what():  \n"
                                              "Unknown builtin op: torch_sparse::spmm_sum.\nCould not find any similar ops to torch_sparse::spmm_sum. "
                                              "This op may not exist or may not be currently supported in TorchScript."),
    ("jit-load-extension-runtime-not-loaded", "RuntimeError: \nUnknown type name '__torch__.torch.classes.tensorrt.Engine':\n"
                                              '  File "code/__torch__/model.py", line 4\n  __torch___model_trt_engine_ : __torch__.torch.classes.tensorrt.Engine'),
    ("jit-load-extension-runtime-not-loaded", "Could not find any similar ops to dgl::spmm. This op may not exist or may not be currently supported in TorchScript."),
    # Batch 48's quantization and dtype rows.
    ("bf16-op-kernel-missing-old-torch", "RuntimeError: \"max_all_cuda\" not implemented for 'BFloat16'"),
    ("bf16-op-kernel-missing-old-torch", "  File \"model.py\", line 12, in forward\n    x = F.pad(x, (2, 2), mode=\"replicate\")\n"
                                         "RuntimeError: \"replication_pad1d_cuda\" not implemented for 'BFloat16'"),
    ("quantized-backend-op", "RuntimeError: Didn't find kernel to dispatch to for operator 'quantized::linear_prepack'. Tried to look up "
                             "kernel for dispatch key 'CUDATensorId'. Registered dispatch keys are: [QuantizedCPUTensorId]"),
    # Batch 49: torchaudio 2.9's removed backend API, as an error, a log line and 2.8's warning.
    ("torchaudio-backend-api-removed", "AttributeError: module 'torchaudio' has no attribute 'set_audio_backend'"),
    ("torchaudio-backend-api-removed", "2026-04-28 09:45:21,514 - ERROR - Трассировка стека: module 'torchaudio' has no attribute 'info'"),
    ("torchaudio-backend-api-removed", "UserWarning: torchaudio._backend.set_audio_backend has been deprecated. With dispatcher enabled, "
                                       "this function is no-op. You can remove the function call."),
    ("torchaudio-backend-api-removed", "ImportError: cannot import name 'AudioMetaData' from 'torchaudio' (/usr/lib/python3.11/site-packages/torchaudio/__init__.py)"),
    # Batch 49's app rows.
    ("fp8-scaled-mm-unsupported-gpu", "RuntimeError: torch._scaled_mm is only supported on devices with compute capability >= 9.0"),
    ("fp8-scaled-mm-unsupported-gpu", "!!! Exception during processing !!! torch._scaled_mm is only supported on CUDA devices with "
                                      "compute capability >= 9.0 or 8.9, or ROCm MI300+"),
    ("torchvision-torch-mismatch", "OSError: /usr/local/lib/python3.10/dist-packages/torchtext/lib/libtorchtext.so: undefined symbol: "
                                   "_ZN5torch3jit17parseSchemaOrNameERKSs"),
    # Batch 50's dev titles.
    ("distributed-sampler-set-epoch-missing", "Bug fix in dist sampler that caused same data order in each epoch"),
    ("mps-op-unsupported", "[bug]: PYTORCH_ENABLE_MPS_FALLBACK=1 is not set"),
    ("mps-op-unsupported", "Do I need to set PYTORCH_ENABLE_MPS_FALLBACK on my M1 Mac?"),
    # Batch 51's dev titles: an NCCL symbol missing, the library not named.
    ("cuda-libs-conflict", "Importing Pytorch results in undefined symbol ncclCommResume"),
    ("cuda-libs-conflict", "undefined symbol ncclCommRegister"),
]

NOT_THESE = [
    # torch's own C++ symbol missing is an extension built for another torch, not a CUDA library clash.
    ("cuda-libs-conflict", "ImportError: undefined symbol: _ZN3c106detail14torchCheckFailEPKcS2_jRKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE"),
    # An eager call through torch.ops: the argument check, not the TorchScript compiler.
    ("torchscript-unsupported-python", "RuntimeError: torchvision::nms() Expected a value of type 'float' for argument 'iou_threshold' "
                                       "but instead found type 'Tensor'."),
    # An extension's TorchBind class is the extension not being loaded, not a newer torch.
    ("checkpoint-newer-format", "RuntimeError: \nUnknown type name '__torch__.torch.classes.tensorrt.Engine':\n"
                                '  File "code/__torch__/model.py", line 4'),
    # torchvision's ops and an aten op belong to their own entries.
    ("jit-load-extension-runtime-not-loaded", "Unknown builtin op: torchvision::nms.\nCould not find any similar ops to torchvision::nms. "
                                              "This op may not exist or may not be currently supported in TorchScript."),
    ("jit-load-extension-runtime-not-loaded", "Unknown builtin op: aten::scaled_dot_product_attention.\nCould not find any similar ops to "
                                              "aten::scaled_dot_product_attention."),
    # Loading a torch.save file with jit.load in Python says constants.pkl; this entry, not the newer-format one.
    ("checkpoint-newer-format", "RuntimeError: PytorchStreamReader failed locating file constants.pkl: file not found"),
    ("bf16-op-kernel-missing-old-torch", "RuntimeError: \"addmm_impl_cpu_\" not implemented for 'BFloat16'"),
    ("bf16-op-kernel-missing-old-torch", "RuntimeError: \"_amp_foreach_non_finite_check_and_unscale_cuda\" not implemented for 'BFloat16'"),
    ("torchaudio-backend-api-removed", "RuntimeError: Backend \"sox_io\" is not one of available backends: ['soundfile']."),
    ("torchaudio-backend-api-removed", "ImportError: TorchCodec is required for load_with_torchcodec."),
    ("torchaudio-backend-api-removed", "AttributeError: module 'torchaudio' has no attribute 'load'"),
    ("fp8-scaled-mm-unsupported-gpu", "RuntimeError: Current CUDA Device does not support bfloat16. Please switch dtype to float16."),
    ("torchaudio-backend-api-removed", "AttributeError: partially initialized module 'torchaudio' has no attribute 'set_audio_backend' "
                                       "(most likely due to a circular import)"),
    ("torchvision-torch-mismatch", "ImportError: /opt/conda/lib/python3.9/site-packages/_torch3d/_C.cpython-39-x86_64-linux-gnu.so: "
                                   "undefined symbol: _ZN3c106detail14torchCheckFailEPKcS2_jRKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE"),
    ("distributed-sampler-set-epoch-missing", "my DataLoader with shuffle=False gives the same data order in each epoch"),
    ("distributed-sampler-set-epoch-missing", "the dist sampler hangs with the same data order in each epoch"),
]

test_wording_names_its_cause_first, test_close_text_is_not_this_cause = wording_tests(WORDINGS, NOT_THESE)
