"""The wordings behind batch 11's new causes, as the code writes them, name their cause; the close
texts that are another cause do not.

Raised for real on torch 2.13 (CPU): FSDP's flat-parameter check (FlatParamHandle.
_validate_tensors_to_flatten with a bf16 and an fp32 parameter), torch.distributions.Normal with a NaN
loc and a negative scale, torch.compile(fullgraph=True, dynamic=False) past recompile_limit=2 (its
warning lines and FailOnRecompileLimitHit), inductor with torch._inductor.config.cpp.cxx set to a
compiler that does not exist, and torch.onnx.export(..., opset_version=25, dynamo=False). The older
releases' wordings are their source lines: flat_param.py of torch 1.13-2.0, flatten_params_wrapper.py
(first FSDP releases, fairscale), distribution.py of torch 1.8, symbolic_helper.py of torch 1.x,
torchdynamo's convert_frame.py, cpp_builder.py's Windows check, triton/runtime/build.py.
"""

from __future__ import annotations

from kb_wordings import wording_tests

SITE = "/home/user/.venv/lib/python3.11/site-packages"

WORDINGS = [
    # torch 2.13, torch/distributed/fsdp/_flat_param.py.
    ("fsdp-mixed-dtype-flat-param",
     "ValueError: Must flatten tensors with uniform dtype but got torch.bfloat16 and torch.float32"),
    # torch 1.13-2.0, flat_param.py _init_flat_param.
    ("fsdp-mixed-dtype-flat-param",
     "ValueError: `FlatParameter` requires uniform dtype but got torch.float16 and torch.float32"),
    # flatten_params_wrapper.py (torch 1.11-1.12 and fairscale).
    ("fsdp-mixed-dtype-flat-param", f'''  File "{SITE}/torch/distributed/fsdp/flatten_params_wrapper.py", line 281, in _init_flatten_params
    assert len(set(p.dtype for p in params)) == 1, "expects all parameters to have same dtype"
AssertionError: expects all parameters to have same dtype
'''),
    # torch 2.13, torch/distributions/distribution.py, a NaN loc.
    ("distribution-params-nan", '''ValueError: Expected parameter loc (Tensor of shape (1,)) of distribution Normal(loc: tensor([nan]), scale: tensor([1.])) to satisfy the constraint Real(), but found invalid values:
tensor([nan])
'''),
    # The same check on a negative scale.
    ("distribution-params-nan", '''ValueError: Expected parameter scale (Tensor of shape (1,)) of distribution Normal(loc: tensor([0.]), scale: tensor([-1.])) to satisfy the constraint GreaterThan(lower_bound=0.0), but found invalid values:
tensor([-1.])
'''),
    # torch 1.8.
    ("distribution-params-nan", f'''  File "{SITE}/torch/distributions/distribution.py", line 53, in __init__
    raise ValueError("The parameter {{}} has invalid values".format(param))
ValueError: The parameter loc has invalid values
'''),
    # torch 2.13: the recompile-limit warning alone (no fullgraph: the function runs eagerly after it).
    ("dynamo-recompile-limit", f'''W1126 04:38:30.124000 25872 site-packages/torch/_dynamo/convert_frame.py:1994] [0/2] torch._dynamo hit config.recompile_limit (2)
W1126 04:38:30.124000 25872 site-packages/torch/_dynamo/convert_frame.py:1994] [0/2]    function: 'f' (/home/user/proj/train.py:21)
W1126 04:38:30.124000 25872 site-packages/torch/_dynamo/convert_frame.py:1994] [0/2]    last reason: 0/1: tensor 'x' size mismatch at index 0. expected 2, actual 3
'''),
    # torch 2.13 with fullgraph=True.
    ("dynamo-recompile-limit", "torch._dynamo.exc.FailOnRecompileLimitHit: Hard failure due to fullgraph=True"),
    # torch 2.1-2.5.
    ("dynamo-recompile-limit", "[2024-03-01 10:00:00,000] torch._dynamo.convert_frame: [WARNING] torch._dynamo hit config.cache_size_limit (8)\n"
                               "   function: 'forward' (/home/user/proj/model.py:40)\n"),
    # torch 2.13, no working C++ compiler (Linux).
    ("inductor-cxx-compiler-missing", "torch._inductor.exc.InductorError: InvalidCxxCompiler: No working C++ compiler found in "
                                      "torch._inductor.config.cpp.cxx: ('g++',)"),
    # torch 2.5-2.7 on Windows without cl.exe on PATH.
    ("inductor-cxx-compiler-missing", f'''  File "{SITE}/torch/_inductor/cpp_builder.py", line 139, in check_compiler_exist_windows
    raise RuntimeError(f"Compiler: {{compiler}} is not found.") from exc
torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:
RuntimeError: Compiler: cl is not found.
'''),
    # triton/runtime/build.py, no gcc for Triton's launcher.
    ("inductor-cxx-compiler-missing", "RuntimeError: Failed to find C compiler. Please specify via CC environment variable."),
    # torch 1.x symbolic_helper._set_opset_version.
    ("onnx-opset-too-new-for-torch", "ValueError: Unsupported ONNX opset version: 17"),
    # torch 2.13, the C++ serializer past its highest opset.
    ("onnx-opset-too-new-for-torch", "RuntimeError: Unsupported onnx_opset_version: 25"),
    # transformers' requires_backends.
    ("torch-not-installed", '''ImportError:
BertForMaskedLM requires the PyTorch library but it was not found in your environment. Checkout the instructions on the
installation page: https://pytorch.org/get-started/locally/ and follow the ones that match your environment.
'''),
    ("torch-not-installed", '''Traceback (most recent call last):
  File "/home/user/proj/train.py", line 1, in <module>
    import torch
ModuleNotFoundError: No module named 'torch'
'''),
    # A title cut before the constraint.
    ("distribution-params-nan", "ValueError: Expected parameter loc (Tensor of shape (64, 6)) of distribution Normal(loc: torch.Size([64, 6]), scale: torch.Size([64, 6]"),
    # Prose.
    ("dynamo-recompile-limit", "With torch.compile the model hits the recompile limit after a few batches and then runs slower than eager."),
    ("inductor-cxx-compiler-missing", "On Windows torch.compile fails because cl.exe is not found, even though Visual Studio is installed."),
    # "No module named 'torch'" while pip builds a package is build isolation, not a missing torch.
    ("build-isolation-no-torch", "pip install flash-attn fails with ModuleNotFoundError: No module named 'torch'"),
    ("build-isolation-no-torch", "Collecting flash-attn\n  Preparing metadata (setup.py) ... error\n  error: subprocess-exited-with-error\n"
                                 "      ModuleNotFoundError: No module named 'torch'\n"),
    # apex's compiled modules.
    ("apex-cuda-ext-missing", "ModuleNotFoundError: No module named 'fused_adam_cuda'"),
    ("apex-cuda-ext-missing", "Warning: apex was installed without --cuda_ext. Fused syncbn kernels will be unavailable.  "
                              "Python fallbacks will be used instead.\nImportError: No module named 'syncbn'"),
]

NOT_THESE = [
    # FSDP's requires_grad check beside the dtype one.
    ("fsdp-mixed-dtype-flat-param", "ValueError: Must flatten tensors with uniform `requires_grad` when `use_orig_params=False`"),
    # A sample outside the support, not an invalid parameter.
    ("distribution-params-nan", "ValueError: Expected value argument (Tensor of shape (4,)) to be within the support "
                                "(Interval(lower_bound=0.0, upper_bound=1.0)) of the distribution Beta(), but found invalid values:"),
    # A graph break is not a recompilation.
    ("dynamo-recompile-limit", "torch._dynamo.exc.Unsupported: Attempted to call function marked as skipped"),
    # The compiler ran and rejected the code.
    ("inductor-cxx-compiler-missing", "torch._inductor.exc.InductorError: CppCompileError: C++ compile error"),
    # One operator missing at an opset torch does support.
    ("onnx-opset-too-new-for-torch", "torch.onnx.errors.UnsupportedOperatorError: Exporting the operator "
                                     "'aten::scaled_dot_product_attention' to ONNX opset version 13 is not supported."),
    # Recompiling one's own code or extension, no limit.
    ("dynamo-recompile-limit", "I had to recompile the CUDA extension after upgrading torch."),
    # cl.exe missing for a C++ extension build, not for torch.compile.
    ("inductor-cxx-compiler-missing", "error: Microsoft Visual C++ 14.0 or greater is required. cl.exe not found while building the extension"),
    # A torch submodule that moved, not a missing torch.
    ("torch-not-installed", "ModuleNotFoundError: No module named 'torch._six'"),
    ("torch-not-installed", "ModuleNotFoundError: No module named 'torchvision'"),
    # A package's own CUDA extension that is not apex's.
    ("apex-cuda-ext-missing", "ModuleNotFoundError: No module named 'pointnet2_cuda'"),
]


test_wording_names_its_cause_first, test_close_text_is_not_this_cause = wording_tests(WORDINGS, NOT_THESE)
