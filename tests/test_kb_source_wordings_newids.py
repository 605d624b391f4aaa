"""The wordings of the causes added from the corpus' `new:` labels (batches 9-13), as torch's source
writes them in each release, name their cause; the close texts that are another cause do not.

Raised for real on torch 2.13 (CPU) unless a comment says otherwise: torch.gather / Tensor.scatter_ /
scatter_add / scatter_reduce with a float or int16 index and torch.take_along_dim with an int32
index; torch.fx.symbolic_trace of a forward with `if x.sum() > 0:`; .to/.contiguous/torch.empty with
torch.channels_last on ranks 3 and 5 (channels_last_3d on rank 4); log_softmax, comparisons, max,
batch norm, max pooling, clamp and sort on complex64 tensors. The older releases' wordings are
their source lines: ScatterGatherChecks.h (`method_name, "(): Expected dtype int64 for index"`,
torch 1.5-2.7, method names gather_out_cpu/gather_out_cuda/scatter_/scatter_add_ in the first of
them, gather/scatter later; int32 accepted since 2.8, pytorch/pytorch#173886), the TH wrappers'
checked_tensor_unwrap of torch 0.4-1.4 ("argument #3 'index'"), torch/fx/proxy.py (to_bool and
__iter__, unchanged since 1.8 but for the iteration message's added sentence), TensorImpl.h
empty_tensor_restride (1.5-2.13), ATen's Dispatch.h ("\"op\" not implemented for 'ComplexFloat'").
"""

from __future__ import annotations

from kb_wordings import wording_tests

SITE = "/home/user/.venv/lib/python3.11/site-packages"

GATHER = [
    # torch 2.8-2.13, a float index.
    ("gather-index-not-int64", "RuntimeError: gather(): Expected dtype int32/int64 for index"),
    ("gather-index-not-int64", "RuntimeError: scatter(): Expected dtype int32/int64 for index"),
    ("gather-index-not-int64",
     "RuntimeError: torch.take_along_dim(): dtype of indices should be Long but got Int"),
    # torch 1.9-2.7.
    ("gather-index-not-int64", "RuntimeError: gather(): Expected dtype int64 for index"),
    ("gather-index-not-int64", "RuntimeError: scatter(): Expected dtype int64 for index"),
    ("gather-index-not-int64", "RuntimeError: scatter_add(): Expected dtype int64 for index"),
    # torch 1.5-1.8.
    ("gather-index-not-int64", "RuntimeError: gather_out_cuda(): Expected dtype int64 for index"),
    ("gather-index-not-int64", "RuntimeError: scatter_(): Expected dtype int64 for index"),
    # torch 1.0-1.4 and 0.4 (TH).
    ("gather-index-not-int64",
     "RuntimeError: Expected object of scalar type Long but got scalar type Int for argument #3 'index'"),
    ("gather-index-not-int64",
     "RuntimeError: Expected object of type torch.cuda.LongTensor but found type torch.cuda.IntTensor for argument #3 'index'"),
    # Quoted in prose.
    ("gather-index-not-int64",
     "When I train on Windows I get gather(): Expected dtype int64 for index, what should I do?"),
]

NOT_GATHER = [
    # index_select / index_add_ / take have their own checks: index-tensor-dtype.
    ("gather-index-not-int64", "RuntimeError: index_select(): Expected dtype int32 or int64 for index"),
    ("gather-index-not-int64",
     "RuntimeError: index_add_(): Expected dtype int32/int64 for index but got: Float"),
    ("gather-index-not-int64", "RuntimeError: take(): Expected a long tensor for index, but got Float"),
    ("gather-index-not-int64", "IndexError: tensors used as indices must be long, int, byte or bool tensors"),
    # The other scatter check: src and self dtypes.
    ("gather-index-not-int64", "RuntimeError: scatter(): Expected self.dtype to be equal to src.dtype"),
    # An index of the right dtype with a value past the dimension.
    ("gather-index-not-int64", "RuntimeError: index 5 is out of bounds for dimension 1 with size 4"),
    # And index-tensor-dtype no longer claims gather/scatter.
    ("index-tensor-dtype", "RuntimeError: gather(): Expected dtype int64 for index"),
    ("index-tensor-dtype",
     "RuntimeError: Expected object of scalar type Long but got scalar type Float for argument #3 'index'"),
]

FX = [
    # torch/fx/proxy.py Tracer.to_bool, through Proxy.__bool__.
    ("fx-trace-control-flow", f'''  File "{SITE}/torch/fx/proxy.py", line 492, in to_bool
    raise TraceError(
torch.fx.proxy.TraceError: symbolically traced variables cannot be used as inputs to control flow
'''),
    # Proxy.__iter__ (a loop over a traced value): the current wording, and the first releases'.
    ("fx-trace-control-flow",
     "torch.fx.proxy.TraceError: Proxy object cannot be iterated. This can be attempted when the Proxy is used in a loop or as a *args or **kwargs function argument. See the torch.fx docs on pytorch.org for a more detailed explanation of what types of control flow can be traced, and check out the Proxy docstring for help troubleshooting Proxy iteration errors"),
    ("fx-trace-control-flow",
     "torch.fx.proxy.TraceError: Proxy object cannot be iterated. This can be attempted when the Proxy is used in a loop or as a *args or **kwargs function argument."),
]

NOT_FX = [
    # TorchScript's tracer warns (and records one path); FX is not involved.
    ("fx-trace-control-flow",
     "TracerWarning: Converting a tensor to a Python boolean might cause the trace to be incorrect. We can't record the data flow of Python values, so this value will be treated as a constant in the future."),
    # FX's other unsupported builtin.
    ("fx-trace-control-flow",
     "RuntimeError: 'len' is not supported in symbolic tracing by default. If you want this call to be recorded, please call torch.fx.wrap('len') at module scope"),
    # torch.jit.script on unsupported Python.
    ("fx-trace-control-flow", "torch.jit.frontend.UnsupportedNodeError: GeneratorExp aren't supported:"),
]

CHANNELS_LAST = [
    ("channels-last-non-4d", "RuntimeError: required rank 4 tensor to use channels_last format"),
    ("channels-last-non-4d", "RuntimeError: required rank 5 tensor to use channels_last_3d format"),
    # A ComfyUI-style log line.
    ("channels-last-non-4d",
     "2025-07-23T16:50:09.553273 - !!! Exception during processing !!! required rank 4 tensor to use channels_last format"),
]

NOT_CHANNELS_LAST = [
    ("channels-last-non-4d",
     "RuntimeError: Expected 4-dimensional input for 4-dimensional weight [64, 3, 7, 7], but got 3-dimensional input of size [3, 224, 224] instead"),
    ("channels-last-non-4d", "RuntimeError: no channels last format strides exist in 1 dimensions"),
]

COMPLEX = [
    ("complex-dtype-unsupported-op",
     "NotImplementedError: \"log_softmax_lastdim_kernel_impl\" not implemented for 'ComplexFloat'"),
    ("complex-dtype-unsupported-op", "NotImplementedError: \"gt_cpu\" not implemented for 'ComplexFloat'"),
    ("complex-dtype-unsupported-op", "NotImplementedError: \"max_all\" not implemented for 'ComplexFloat'"),
    ("complex-dtype-unsupported-op", "NotImplementedError: \"batch_norm\" not implemented for 'ComplexDouble'"),
    ("complex-dtype-unsupported-op", "NotImplementedError: \"max_pool1d_impl\" not implemented for 'ComplexFloat'"),
    # Before 2.0 the same dispatch error was a RuntimeError.
    ("complex-dtype-unsupported-op", "RuntimeError: \"pow_cuda\" not implemented for 'ComplexFloat'"),
    ("complex-dtype-unsupported-op", "NotImplementedError: clamp is not supported for complex types"),
    ("complex-dtype-unsupported-op", "RuntimeError:  Sort does not support complex dtypes on CPU"),
    ("complex-dtype-unsupported-op", "RuntimeError: maximum not implemented for complex tensors."),
]

NOT_COMPLEX = [
    ("complex-dtype-unsupported-op", "RuntimeError: expected scalar type ComplexFloat but found Float"),
    ("complex-dtype-unsupported-op", "RuntimeError: \"addmm_impl_cpu_\" not implemented for 'Half'"),
    ("complex-dtype-unsupported-op", "RuntimeError: imag is not implemented for tensors with non-complex dtypes."),
    ("complex-dtype-unsupported-op",
     "RuntimeError: mat1 and mat2 must have the same dtype, but got ComplexFloat and Float"),
]

WORDINGS = GATHER + FX + CHANNELS_LAST + COMPLEX
NOT_THESE = NOT_GATHER + NOT_FX + NOT_CHANNELS_LAST + NOT_COMPLEX

test_wording_names_its_cause_first, test_close_text_is_not_this_cause = wording_tests(WORDINGS, NOT_THESE)
