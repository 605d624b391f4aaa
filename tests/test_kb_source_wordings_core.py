"""Every wording the emitting code has used for the autograd / training-loop, GPU-memory / device and
"also frequent" causes is recognised, and the close texts that name something else are not.

The knowledge examples are real reports, and reports cover only the releases, backends and call
paths people happened to hit. These texts are the messages as the code writes them - the final
line as it is printed, with ordinary values filled in - release by release: torch's Python raises
and the C++ TORCH_CHECKs (ATen, c10, the autograd engine), the TH/THC/THNN-era wordings of torch
0.4-1.4, other backends (MPS, XPU, HIP), and the libraries that check the same thing in their own
words (transformers, torchvision, uv). The emitting code and the releases are named beside each.
"""

from __future__ import annotations

from kb_wordings import wording_tests

SITE = "/home/user/.venv/lib/python3.10/site-packages"
LIBTORCH = """terminate called after throwing an instance of 'c10::Error'
  what():  {what}
Exception raised from {where} (most recent call first):
frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x57 (0x7f3b1c2a4d87 in /opt/libtorch/lib/libc10.so)
frame #1: c10::detail::torchCheckFail(char const*, char const*, unsigned int, std::string const&) + 0x64 (0x7f3b1c26e75f in /opt/libtorch/lib/libc10.so)
Aborted (core dumped)
"""

WORDINGS = [
    # The bare head of the OOM message, its type kept (a paste or framework that cut "Tried to allocate").
    ("cuda-out-of-memory", "RuntimeError: CUDA out of memory."),
    ("cuda-out-of-memory", "torch.OutOfMemoryError: HIP out of memory."),
    # aten/src/ATen/mps/MPSAllocator.mm: one tensor past Metal's maxBufferLength, raised as a RuntimeError.
    ("mps-out-of-memory", "RuntimeError: Invalid buffer size: 12.00 GB"),
    # ---- Autograd and training loop ---------------------------------------------------------
    # torch/nn/modules/activation.py MultiheadAttention.__init__ (1.1 - 2.13).
    ("attention-embed-dim-heads", "AssertionError: embed_dim must be divisible by num_heads"),
    # torch/nn/functional.py multi_head_attention_forward (1.10 - 2.13).
    ("attention-embed-dim-heads", "AssertionError: embed_dim 768 not divisible by num_heads 5"),
    # transformers models/bert/modeling_bert.py BertSelfAttention.__init__ (and its copies).
    ("attention-embed-dim-heads", "ValueError: The hidden size (768) is not a multiple of the number of attention heads (5)"),
    # transformers CLIP/BART-style attention __init__.
    ("attention-embed-dim-heads", "ValueError: embed_dim must be divisible by num_heads (got `embed_dim`: 768 and `num_heads`: 5)."),
    # torch/autograd/__init__.py _make_grads (0.4 - 2.13), real and complex forms.
    ("backward-non-scalar-output", "RuntimeError: grad can be implicitly created only for scalar outputs"),
    ("backward-non-scalar-output", "RuntimeError: grad can be implicitly created only for real scalar outputs but got torch.complex64"),
    # torch/csrc/autograd/saved_variable.cpp SavedVariable::unpack: 1.10+ ...
    ("backward-twice", "RuntimeError: Trying to backward through the graph a second time (or directly access saved tensors "
                       "after they have already been freed). Saved intermediate values of the graph are freed when you call "
                       ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the graph "
                       "a second time or if you need to access saved tensors after calling backward."),
    # ... 1.5 - 1.9 ...
    ("backward-twice", "RuntimeError: Trying to backward through the graph a second time, but the saved intermediate results "
                       "have already been freed. Specify retain_graph=True when calling backward the first time."),
    # ... and 0.4 - 1.4 (ERR_BACKWARD_TWICE).
    ("backward-twice", "RuntimeError: Trying to backward through the graph a second time, but the buffers have already been "
                       "freed. Specify retain_graph=True when calling backward the first time."),
    # aten/src/ATen/native/Normalization.cpp _batch_norm_impl_index (1.0 - 2.x).
    ("batchnorm-num-features-mismatch", "RuntimeError: running_mean should contain 64 elements not 128"),
    # torch/nn/functional.py _verify_batch_size (1.0+) and _verify_spatial_size (instance_norm, 1.x+).
    ("batchnorm-single-value", "ValueError: Expected more than 1 value per channel when training, got input size torch.Size([1, 256])"),
    ("batchnorm-single-value", "ValueError: Expected more than 1 spatial element when training, got input size torch.Size([8, 64, 1, 1])"),
    # aten/src/ATen/native/Loss.cpp binary_cross_entropy (CPU input and, 2.1+, target checks).
    ("bce-input-out-of-range", "RuntimeError: all elements of input should be between 0 and 1"),
    ("bce-input-out-of-range", "RuntimeError: all elements of target should be between 0 and 1"),
    # aten/src/ATen/native/cuda/Loss.cu (1.8+) and THCUNN/generic/BCECriterion.cu (1.0 - 1.7) asserts.
    ("bce-input-out-of-range", "/pytorch/aten/src/ATen/native/cuda/Loss.cu:102: operator(): block: [0,0,0], thread: [5,0,0] "
                               "Assertion `input_val >= zero && input_val <= one` failed."),
    ("bce-input-out-of-range", "/pytorch/aten/src/THCUNN/generic/BCECriterion.cu:42: Acc_t bce_functor<Dtype, Acc_t>::operator()"
                               "(Tuple) [with Dtype = float, Acc_t = float]: block: [0,0,0], thread: [6,0,0] "
                               "Assertion `input >= 0. && input <= 1.` failed."),
    # aten/src/ATen/autocast_mode.cpp binary_cross_entropy_banned (1.6+), cut to its first line.
    ("bce-unsafe-autocast", "RuntimeError: torch.nn.functional.binary_cross_entropy and torch.nn.BCELoss are unsafe to autocast."),
    # aten/src/ATen/ExpandUtils.cpp infer_size_impl (0.4 - 2.13) and inferExpandGeometry.
    ("broadcast-shape-mismatch", "RuntimeError: The size of tensor a (64) must match the size of tensor b (32) at non-singleton dimension 1"),
    ("broadcast-shape-mismatch", "RuntimeError: The expanded size of the tensor (10) must match the existing size (3) at "
                                 "non-singleton dimension 1.  Target sizes: [4, 10].  Tensor sizes: [4, 3]"),
    # aten/src/ATen/TensorIterator.cpp compute_shape (1.2+): an in-place op or out= that cannot grow.
    ("broadcast-shape-mismatch", "RuntimeError: output with shape [1, 28, 28] doesn't match the broadcast shape [3, 28, 28]"),
    # aten TensorAdvancedIndexing.cpp index_put_.
    ("broadcast-shape-mismatch", "RuntimeError: shape mismatch: value tensor of shape [8, 16] cannot be broadcast to indexing "
                                 "result of shape [8, 32]"),
    # aten/src/ATen/native/TensorShape.cpp check_cat_shape_except_dim: 1.9+, 2.x with the op prefix, 1.5 - 1.8.
    ("cat-size-mismatch", "RuntimeError: Sizes of tensors must match except in dimension 1. Expected size 32 but got size 31 "
                          "for tensor number 1 in the list."),
    ("cat-size-mismatch", "RuntimeError: torch.cat(): Sizes of tensors must match except in dimension 1. Expected size 32 but "
                          "got size 31 for tensor number 1 in the list."),
    ("cat-size-mismatch", "RuntimeError: Sizes of tensors must match except in dimension 1. Got 32 and 31 in dimension 2 "
                          "(The offending index is 1)"),
    # aten/src/TH/generic/THTensor.cpp and THC/generic/THCTensorMath.cu catArray (0.4 - 1.4).
    ("cat-size-mismatch", "RuntimeError: invalid argument 0: Sizes of tensors must match except in dimension 1. Got 32 and 31 "
                          "in dimension 2 at /pytorch/aten/src/TH/generic/THTensor.cpp:711"),
    ("cat-size-mismatch", "RuntimeError: invalid argument 0: Sizes of tensors must match except in dimension 0. Got 3 and 1 in "
                          "dimension 1 at /opt/conda/conda-bld/pytorch_1579022060824/work/aten/src/THC/generic/THCTensorMath.cu:71"),
    # aten/src/ATen/native/cudnn/RNN.cpp _cudnn_rnn_backward_input (1.0 - 2.x).
    ("cudnn-rnn-backward-eval", "RuntimeError: cudnn RNN backward can only be called in training mode"),
    # torch/_tensor.py Tensor.__deepcopy__: 2.1+ (with the weight_norm hint), 1.0 - 2.0, and 0.3 - 0.4's Variable.
    ("deepcopy-non-leaf-tensor", "RuntimeError: Only Tensors created explicitly by the user (graph leaves) support the deepcopy "
                                 "protocol at the moment.  If you were attempting to deepcopy a module, this may be because of "
                                 "a torch.nn.utils.weight_norm usage, see https://github.com/pytorch/pytorch/pull/103001"),
    ("deepcopy-non-leaf-tensor", "RuntimeError: Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol at the moment"),
    ("deepcopy-non-leaf-tensor", "RuntimeError: Only Variables created explicitly by the user (graph leaves) support the deepcopy protocol at the moment"),
    # c10/core/WrapDimMinimal.cpp maybe_wrap_dim (1.x - 2.13), and WrapDimUtils.h (0.4, RuntimeError, lower case).
    ("dim-out-of-range", "IndexError: Dimension out of range (expected to be in range of [-1, 0], but got 1)"),
    ("dim-out-of-range", "RuntimeError: dimension out of range (expected to be in range of [-1, 0], but got 1)"),
    ("dim-out-of-range", "IndexError: Dimension specified as 0 but tensor has no dimensions"),
    ("dim-out-of-range", "RuntimeError: dimension specified as 0 but tensor has no dimensions"),
    # torch/distributions/distribution.py Distribution.__init__ validate_args: 1.10+ and 1.8 - 1.9.
    ("distribution-params-nan", "ValueError: Expected parameter loc (Tensor of shape (64, 2)) of distribution Normal(loc: "
                                "torch.Size([64, 2]), scale: torch.Size([64, 2])) to satisfy the constraint Real(), but found "
                                "invalid values:\ntensor([[nan, nan],\n        [nan, nan]], grad_fn=<AddmmBackward0>)"),
    ("distribution-params-nan", "ValueError: Expected parameter probs (Tensor of shape (32, 6)) of distribution Categorical(probs: "
                                "torch.Size([32, 6])) to satisfy the constraint Simplex(), but found invalid values:"),
    ("distribution-params-nan", "ValueError: The parameter loc has invalid values"),
    # The dtype checks: aten TensorBase "expected scalar type" (1.x - 2.x), LinearAlgebra.cpp addmm (2.1+),
    # cuda/Blas.cpp addmm_out_cuda_impl (1.12 - 2.x), Utils.h checked_tensor_unwrap (1.0 - 1.4 and 0.4).
    ("dtype-mismatch", "RuntimeError: expected scalar type Float but found Double"),
    ("dtype-mismatch", "RuntimeError: mat1 and mat2 must have the same dtype, but got Half and Float"),
    ("dtype-mismatch", "RuntimeError: expected mat1 and mat2 to have the same dtype, but got: float != c10::Half"),
    ("dtype-mismatch", "RuntimeError: expected m1 and m2 to have the same dtype, but got: c10::BFloat16 != float"),
    ("dtype-mismatch", "RuntimeError: Expected object of scalar type Float but got scalar type Double for argument #2 'mat2' in call to _th_mm"),
    ("dtype-mismatch", "RuntimeError: Expected object of type torch.DoubleTensor but found type torch.FloatTensor for argument #2 'weight'"),
    # aten/src/ATen/native/Convolution.cpp check_input_same_type_as_parameters (1.x - 2.x, input and bias forms).
    ("dtype-mismatch", "RuntimeError: Input type (torch.cuda.HalfTensor) and weight type (torch.cuda.FloatTensor) should be the same"),
    ("dtype-mismatch", "RuntimeError: Input type (c10::Half) and bias type (float) should be the same"),
    # torch/csrc/autograd/engine.cpp validate_outputs: 1.5+ ...
    ("dtype-mismatch", "RuntimeError: Found dtype Double but expected Float"),
    # ... and 1.0 - 1.4 (the wording test/test_torch.py quotes).
    ("dtype-mismatch", "RuntimeError: Function SubBackward0 returned an invalid gradient at index 0 - expected type torch.FloatTensor but got torch.DoubleTensor"),
    # aten TensorAdvancedIndexing.cpp index_put_ (1.8+).
    ("dtype-mismatch", "RuntimeError: Index put requires the source and destination dtypes match, got Float for the destination and Double for the source."),
    # aten TensorAdvancedIndexing.cpp index_select_out_cpu_ (1.5+), the TH wording before (1.0 - 1.4) ...
    ("embedding-index-out-of-range", "IndexError: index out of range in self"),
    ("embedding-index-out-of-range", "RuntimeError: index out of range: Tried to access index 30522 out of table with 30521 rows. "
                                     "at /pytorch/aten/src/TH/generic/THTensorEvenMoreMath.cpp:418"),
    # ... and the CUDA asserts: ATen native/cuda/Indexing.cu (1.8+) and THC THCTensorIndex.cu (0.4 - 1.7).
    ("embedding-index-out-of-range", "/pytorch/aten/src/ATen/native/cuda/Indexing.cu:1141: indexSelectLargeIndex: block: [194,0,0], "
                                     "thread: [64,0,0] Assertion `srcIndex < srcSelectDimSize` failed."),
    ("embedding-index-out-of-range", "/pytorch/aten/src/THC/THCTensorIndex.cu:361: void indexSelectLargeIndex(TensorInfo<T, IndexType>, "
                                     "TensorInfo<T, IndexType>, TensorInfo<long, IndexType>, int, int, IndexType, IndexType, long) "
                                     "[with T = float, IndexType = unsigned int, DstDim = 2, SrcDim = 2, IdxDim = -2, IndexIsMajor = true]: "
                                     "block: [47,0,0], thread: [96,0,0] Assertion `srcIndex < srcSelectDimSize` failed."),
    # aten/src/ATen/TensorUtils.cpp checkScalarTypes (1.8+), checkScalarType (1.0 - 1.7), MPS tensor type names.
    ("embedding-indices-not-integer", "RuntimeError: Expected tensor for argument #1 'indices' to have one of the following scalar "
                                      "types: Long, Int; but got torch.FloatTensor instead (while checking arguments for embedding)"),
    ("embedding-indices-not-integer", "RuntimeError: Expected tensor for argument #1 'indices' to have scalar type Long; but got "
                                      "torch.cuda.FloatTensor instead (while checking arguments for embedding)"),
    ("embedding-indices-not-integer", "RuntimeError: Expected tensor for argument #1 'indices' to have one of the following scalar "
                                      "types: Long, Int; but got MPSFloatType instead (while checking arguments for embedding)"),
    # torch/cuda/amp/grad_scaler.py (1.6 - 2.2), torch/amp/grad_scaler.py (2.3+): step() and update().
    ("gradscaler-no-inf-checks", "AssertionError: No inf checks were recorded for this optimizer."),
    ("gradscaler-no-inf-checks", "AssertionError: No inf checks were recorded prior to update."),
    # aten/src/ATen/native/IndexingUtils.h (1.8+, 1.2 - 1.7) and native/Indexing.cpp (0.4 - 1.1).
    ("index-tensor-dtype", "IndexError: tensors used as indices must be long, int, byte or bool tensors"),
    ("index-tensor-dtype", "IndexError: tensors used as indices must be long, byte or bool tensors"),
    ("index-tensor-dtype", "IndexError: tensors used as indices must be long or byte tensors"),
    # aten index_select (1.12+) and Utils.h (1.0 - 1.4). (gather/scatter's "Expected dtype int64 for index" is left
    # out: the corpus labels it a cause of its own, gather-index-not-int64, which another change adds.)
    ("index-tensor-dtype", "RuntimeError: index_select(): Expected dtype int32 or int64 for index"),
    # (1.0 - 1.4's "Expected object of scalar type Long but got scalar type Float for argument #3 'index'" is left out
    # too: index_select and gather both took the index as their third argument, so the wording names neither.)
    # torch/csrc/autograd/saved_variable.cpp (1.9+; torch 2.13's longer hint) and the in-place check on inference tensors.
    ("inference-tensor-backward", "RuntimeError: Inference tensors cannot be saved for backward. Please do not use Tensors created "
                                  "in inference mode in computation tracked by autograd."),
    ("inference-tensor-backward", "RuntimeError: Inference tensors cannot be saved for backward. To work around you can make a "
                                  "clone to get a normal tensor and use it in autograd."),
    ("inference-tensor-backward", "RuntimeError: Inplace update to inference tensor outside InferenceMode is not allowed.You can make "
                                  "a clone to get a normal tensor before doing inplace update.See "
                                  "https://github.com/pytorch/rfcs/pull/17 for more details."),
    # torch/csrc/autograd/saved_variable.cpp unpack: 1.10+ (with the anomaly hint), 1.5 - 1.9, 0.4 - 1.4.
    ("inplace-modified-for-grad", "RuntimeError: one of the variables needed for gradient computation has been modified by an "
                                  "inplace operation: [torch.cuda.FloatTensor [64, 128]], which is output 0 of ReluBackward0, is at "
                                  "version 2; expected version 1 instead. Hint: enable anomaly detection to find the operation "
                                  "that failed to compute its gradient, with torch.autograd.set_detect_anomaly(True)."),
    ("inplace-modified-for-grad", "RuntimeError: one of the variables needed for gradient computation has been modified by an "
                                  "inplace operation: [torch.cuda.FloatTensor [256]] is at version 3; expected version 2 instead. "
                                  "Hint: enable anomaly detection"),
    ("inplace-modified-for-grad", "RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation"),
    # aten/src/ATen/TensorIterator.cpp compute_types (1.5+).
    ("inplace-result-type-cast", "RuntimeError: result type Float can't be cast to the desired output type Long"),
    # aten/src/ATen/native/LossNLL.cpp nll_loss_forward (1.x - 2.x); the message is a ValueError in Python.
    ("input-target-batch-size-mismatch", "ValueError: Expected input batch_size (64) to match target batch_size (32)."),
    # torch/csrc/autograd/VariableTypeUtils.h check_inplace: 1.0+ and 0.4 ("has been used").
    ("leaf-inplace", "RuntimeError: a leaf Variable that requires grad is being used in an in-place operation."),
    ("leaf-inplace", "RuntimeError: a view of a leaf Variable that requires grad is being used in an in-place operation."),
    ("leaf-inplace", "RuntimeError: a leaf Variable that requires grad has been used in an in-place operation."),
    # torch/csrc/autograd/functions/accumulate_grad.cpp AccumulateGrad::apply (0.3 - 1.x).
    ("leaf-inplace", "RuntimeError: leaf variable has been moved into the graph interior"),
    # THNN ClassNLLCriterion.c (0.4 - 1.4), ATen LossNLL.cpp (1.9+, 1.10+).
    ("loss-target-format", "RuntimeError: multi-target not supported at /pytorch/aten/src/THNN/generic/ClassNLLCriterion.c:22"),
    ("loss-target-format", "RuntimeError: 1D target tensor expected, multi-target not supported"),
    ("loss-target-format", "RuntimeError: 0D or 1D target tensor expected, multi-target not supported"),
    # LossNLL.cpp / Loss.cpp as torch 2.13 raises them for F.cross_entropy with float or int32 class indices,
    # int64 one-hot targets of the input's shape, and (N, T, C) sequence logits.
    ("loss-target-format", "RuntimeError: expected target dtype to be Long or Byte, but got Float"),
    ("loss-target-format", "RuntimeError: Expected floating point type for target with class probabilities, got Long"),
    ("loss-target-format", "RuntimeError: Expected target size [4, 3], got [4, 7]"),
    # The target's dtype: ATen dispatch names (1.10+, CUDA and CPU) and Utils.h (1.0 - 1.4).
    ("loss-target-format", "RuntimeError: \"nll_loss_forward_reduce_cuda_kernel_2d_index\" not implemented for 'Float'"),
    ("loss-target-format", "RuntimeError: Expected object of scalar type Long but got scalar type Float for argument #2 'target' "
                           "in call to _thnn_nll_loss_forward"),
    # aten/src/ATen/native/LossNLL2d.cpp check_inputs_nll_loss2d (1.x+): a segmentation target with a channel dimension.
    ("loss-target-format", "RuntimeError: only batches of spatial targets supported (3D tensors) but got targets of dimension: 4"),
    # LossNLL.cpp nll_loss_out_frame (1.x+) and THNN's CPU assert (0.4 - 1.4): a class index outside [0, C).
    ("loss-target-format", "IndexError: Target 10 is out of bounds."),
    ("loss-target-format", "RuntimeError: Assertion `cur_target >= 0 && cur_target < n_classes' failed.  at "
                           "/pytorch/aten/src/THNN/generic/ClassNLLCriterion.c:97"),
    # torch/optim/lr_scheduler.py LRScheduler.step (1.1+), whole and as the logged first line.
    ("lr-scheduler-step-order", "UserWarning: Detected call of `lr_scheduler.step()` before `optimizer.step()`. In PyTorch 1.1.0 "
                                "and later, you should call them in the opposite order: `optimizer.step()` before "
                                "`lr_scheduler.step()`.  Failure to do this will result in PyTorch skipping the first value of "
                                "the learning rate schedule. See more details at "
                                "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate"),
    ("lr-scheduler-step-order", f"{SITE}/torch/optim/lr_scheduler.py:139: UserWarning: Detected call of `lr_scheduler.step()` before `optimizer.step()`."),
    # torch/nn/modules/module.py: _forward_unimplemented (1.9+ message; 1.6 - 1.8 bare), Module.forward (0.4 - 1.5 bare).
    ("module-forward-missing", "NotImplementedError: Module [MyNet] is missing the required \"forward\" function"),
    ("module-forward-missing", f'''  File "{SITE}/torch/nn/modules/module.py", line 722, in _call_impl
    result = self.forward(*input, **kwargs)
  File "{SITE}/torch/nn/modules/module.py", line 201, in _forward_unimplemented
    raise NotImplementedError
NotImplementedError
'''),
    ("module-forward-missing", f'''  File "{SITE}/torch/nn/modules/module.py", line 489, in __call__
    result = self.forward(*input, **kwargs)
  File "{SITE}/torch/nn/modules/module.py", line 85, in forward
    raise NotImplementedError
NotImplementedError
'''),
    # torch/nn/modules/module.py __setattr__ / register_buffer / register_parameter / __getattr__ (0.4 - 2.13).
    ("module-init-not-called", "AttributeError: cannot assign module before Module.__init__() call"),
    ("module-init-not-called", "AttributeError: cannot assign parameters before Module.__init__() call"),
    ("module-init-not-called", "AttributeError: cannot assign buffer before Module.__init__() call"),
    ("module-init-not-called", "AttributeError: 'MyNet' object has no attribute '_modules'"),
    # torch/nn/modules/module.py __setattr__ (parameters, child modules, buffers) and register_parameter (0.4 - 2.13).
    ("module-parameter-assign-tensor", "TypeError: cannot assign 'torch.FloatTensor' as parameter 'weight' (torch.nn.Parameter or None expected)"),
    ("module-parameter-assign-tensor", "TypeError: cannot assign 'torch.FloatTensor' object to parameter 'weight' (torch.nn.Parameter or None required)"),
    ("module-parameter-assign-tensor", "TypeError: cannot assign 'torch.FloatTensor' as child module 'fc' (torch.nn.Module or None expected)"),
    ("module-parameter-assign-tensor", "TypeError: cannot assign 'int' as buffer 'num_batches_tracked' (torch.Tensor or None expected)"),
    # aten/src/ATen/native/Distributions.cpp multinomial (1.x - 2.x) and TH THTensorRandom.cpp (0.4 - 1.4).
    ("multinomial-invalid-probabilities", "RuntimeError: probability tensor contains either `inf`, `nan` or element < 0"),
    ("multinomial-invalid-probabilities", "RuntimeError: invalid multinomial distribution (sum of probabilities <= 0)"),
    ("multinomial-invalid-probabilities", "RuntimeError: invalid argument 2: invalid multinomial distribution (sum of probabilities "
                                          "<= 0) at /pytorch/aten/src/TH/generic/THTensorRandom.cpp:326"),
    # aten/src/ATen/native/cuda/MultinomialKernel.cu (1.5+): the kernel's assert, then the device-side assert.
    ("multinomial-invalid-probabilities", "/pytorch/aten/src/ATen/native/cuda/MultinomialKernel.cu:112: binarySearchForMultinomial: "
                                          "block: [0,0,0], thread: [0,0,0] Assertion `cumdist[size - 1] > "
                                          "static_cast<scalar_t>(0)` failed.\nRuntimeError: CUDA error: device-side assert triggered"),
    # torch/csrc/autograd/engine.cpp anomaly mode (1.10+ "...Backward0", 1.0 - 1.9 without the 0).
    ("nan-in-backward", "RuntimeError: Function 'LogBackward0' returned nan values in its 0th output."),
    ("nan-in-backward", "RuntimeError: Function 'LogBackward' returned nan values in its 0th output."),
    # torch/nn/utils/clip_grad.py clip_grad_norm_ with error_if_nonfinite=True (1.9+).
    ("nan-in-backward", "RuntimeError: The total norm of order 2.0 for gradients from `parameters` is non-finite, so it cannot "
                        "be clipped. To disable this error and scale the gradients by the non-finite norm anyway, set "
                        "`error_if_nonfinite=False`"),
    # torch/csrc/autograd/python_engine.cpp (0.4 - 2.13; 0.3 said "variables").
    ("no-grad-fn", "RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn"),
    ("no-grad-fn", "RuntimeError: element 0 of variables does not require grad and does not have a grad_fn"),
    ("no-grad-fn", "RuntimeError: One of the differentiated Tensors does not require grad"),
    # torch/optim/optimizer.py add_param_group (0.4+; 0.3 said Variable).
    ("non-leaf-optimize", "ValueError: can't optimize a non-leaf Tensor"),
    ("non-leaf-optimize", "ValueError: can't optimize a non-leaf Variable"),
    # torch/csrc/utils/tensor_numpy.cpp tensor_to_numpy (1.0+; 0.4 said Variable).
    ("numpy-requires-grad", "RuntimeError: Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."),
    ("numpy-requires-grad", "RuntimeError: Can't call numpy() on Variable that requires grad. Use var.detach().numpy() instead."),
    # torch/optim/optimizer.py Optimizer.__init__ and load_state_dict (0.4 - 2.13).
    ("optimizer-empty-parameter-list", "ValueError: optimizer got an empty parameter list"),
    ("optimizer-state-dict-mismatch", "ValueError: loaded state dict contains a parameter group that doesn't match the size of optimizer's group"),
    ("optimizer-state-dict-mismatch", "ValueError: loaded state dict has a different number of parameter groups"),
    # aten/src/ATen/native/PackedSequence.cpp _pack_padded_sequence (1.7+, 1.0 - 1.6, sorted check 1.1+) ...
    ("pack-padded-sequence-lengths", "RuntimeError: 'lengths' argument should be a 1D CPU int64 tensor, but got 1D cuda:0 Long tensor"),
    ("pack-padded-sequence-lengths", "RuntimeError: 'lengths' argument should be a 1D CPU int64 tensor"),
    ("pack-padded-sequence-lengths", "RuntimeError: `lengths` array must be sorted in decreasing order when `enforce_sorted` is True. "
                                     "You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to sidestep "
                                     "this requirement if you do not need ONNX exportability."),
    # ... and torch/nn/utils/rnn.py pack_padded_sequence (0.4, still in Python).
    ("pack-padded-sequence-lengths", "ValueError: lengths array has to be sorted in decreasing order"),
    # CPython's limit, and Python < 3.5's RuntimeError for it.
    ("recursion-limit", "RecursionError: maximum recursion depth exceeded while calling a Python object"),
    ("recursion-limit", "RuntimeError: maximum recursion depth exceeded while calling a Python object"),
    # torch/csrc/autograd (set_requires_grad): 1.6+ with complex, 1.0 - 1.5, and the lower-case form that
    # Tensor.requires_grad_() still raises in torch 2.13.
    ("requires-grad-integer-tensor", "RuntimeError: Only Tensors of floating point and complex dtype can require gradients"),
    ("requires-grad-integer-tensor", "RuntimeError: Only Tensors of floating point dtype can require gradients"),
    ("requires-grad-integer-tensor", "RuntimeError: only Tensors of floating point dtype can require gradients"),
    # torch/csrc/autograd/python_variable.cpp THPVariable_set_data (2.x): param.data = an integer tensor.
    ("requires-grad-integer-tensor", "RuntimeError: data set to a tensor that requires gradients must be floating point or complex dtype"),
    # aten/src/ATen/InferSize.h infer_size (0.4+) and TH THStorage.cpp THStorage_inferSize2 (0.4 - 1.0).
    ("reshape-invalid-size", "RuntimeError: shape '[-1, 400]' is invalid for input of size 1024"),
    ("reshape-invalid-size", "RuntimeError: invalid argument 2: size '[-1 x 400]' is invalid for input with 1024 elements at "
                             "/pytorch/aten/src/TH/THStorage.cpp:84"),
    # torch/nn/modules/rnn.py check_input / check_hidden_size (1.0+, the hidden shape as a tuple in 1.0 - 1.4),
    # and the input-rank checks (1.11+, RuntimeError then ValueError).
    ("rnn-input-size-mismatch", "RuntimeError: input.size(-1) must be equal to input_size. Expected 128, got 64"),
    ("rnn-input-size-mismatch", "RuntimeError: Expected hidden[0] size (2, 32, 256), got [2, 16, 256]"),
    ("rnn-input-size-mismatch", "RuntimeError: Expected hidden[0] size (2, 32, 256), got (2, 16, 256)"),
    ("rnn-input-size-mismatch", "RuntimeError: Expected hidden size (1, 32, 256), got [1, 16, 256]"),
    ("rnn-input-size-mismatch", "RuntimeError: input must have 3 dimensions, got 2"),
    ("rnn-input-size-mismatch", "ValueError: LSTM: Expected input to be 2D or 3D, got 4D instead"),
    ("rnn-input-size-mismatch", "ValueError: RNN: Expected input to be 2D or 3D, got 4D tensor instead"),
    # aten LinearAlgebra.cpp addmm (1.9+), THTensorMath.cpp / THCTensorMathBlas.cu (0.4 - 1.5), 1.6 - 1.8's wording.
    ("shape-mismatch-matmul", "RuntimeError: mat1 and mat2 shapes cannot be multiplied (64x512 and 1024x10)"),
    ("shape-mismatch-matmul", "RuntimeError: size mismatch, m1: [64 x 512], m2: [1024 x 10] at /pytorch/aten/src/TH/generic/THTensorMath.cpp:136"),
    ("shape-mismatch-matmul", "RuntimeError: size mismatch, m1: [64 x 512], m2: [1024 x 10] at "
                              "/opt/conda/conda-bld/pytorch_1587428398394/work/aten/src/THC/generic/THCTensorMathBlas.cu:283"),
    ("shape-mismatch-matmul", "RuntimeError: mat1 dim 1 must match mat2 dim 0"),
    # aten addmv: matrix @ vector, torch 1.x ("get") and torch 2.13 (as it raises for torch.zeros(2, 3) @ torch.zeros(4)).
    ("shape-mismatch-matmul", "RuntimeError: size mismatch, get 2, 2x2,3"),
    ("shape-mismatch-matmul", "RuntimeError: size mismatch, got input (2), mat (2x3), vec (4)"),
    # aten LinearAlgebra.cpp bmm (1.x+).
    ("shape-mismatch-matmul", "RuntimeError: Expected size for first two dimensions of batch2 tensor to be: [32, 64] but got: [32, 128]."),
    # torch/csrc/autograd/python_variable_methods.cpp (1.0+ "Boolean", 0.4 - 1.x "bool") and autograd/variable.py (0.3).
    ("tensor-bool-ambiguous", "RuntimeError: Boolean value of Tensor with more than one value is ambiguous"),
    ("tensor-bool-ambiguous", "RuntimeError: bool value of Tensor with more than one value is ambiguous"),
    ("tensor-bool-ambiguous", "RuntimeError: bool value of Variable objects containing non-empty torch.FloatTensor is ambiguous"),
    # python_variable_methods.cpp dispatch_to (0.4+) and aten Scalar.cpp item (1.8+).
    ("tensor-item-multiple-elements", "ValueError: only one element tensors can be converted to Python scalars"),
    ("tensor-item-multiple-elements", "RuntimeError: a Tensor with 2 elements cannot be converted to Scalar"),
    # aten Utils.h checked_dense_tensor_unwrap (1.2 - 1.4): a Byte mask meets a Bool one.
    ("uint8-bool-mask-mix", "RuntimeError: Expected object of scalar type Byte but got scalar type Bool for argument #2 'mask' in call to _th_masked_fill_"),
    ("uint8-bool-mask-mix", "RuntimeError: Expected object of scalar type Bool but got scalar type Byte for argument #2 'mask' in call to _th_masked_fill_bool_"),
    # aten TensorAdvancedIndexing.cpp masked_fill (1.x - 2.x) and masked_select (1.x - 2.13).
    ("uint8-bool-mask-mix", "RuntimeError: masked_fill_ only supports boolean masks, but got mask with dtype unsigned char"),
    ("uint8-bool-mask-mix", "RuntimeError: masked_select: expected BoolTensor for mask"),
    # aten TensorShape.cpp view (1.5+ "Use .reshape", 0.4 - 1.4 "Call .contiguous()") and TH THTensor.cpp (0.4 - 1.0).
    ("view-non-contiguous", "RuntimeError: view size is not compatible with input tensor's size and stride (at least one dimension "
                            "spans across two contiguous subspaces). Use .reshape(...) instead."),
    ("view-non-contiguous", "RuntimeError: view size is not compatible with input tensor's size and stride (at least one dimension "
                            "spans across two contiguous subspaces). Call .contiguous() before .view()."),
    ("view-non-contiguous", "RuntimeError: invalid argument 2: view size is not compatible with input tensor's size and stride (at "
                            "least one dimension spans across two contiguous subspaces). Call .contiguous() before .view(). at "
                            "/pytorch/aten/src/TH/generic/THTensor.cpp:203"),
    # THC THCTensor.c (0.3 - 0.4).
    ("view-non-contiguous", "RuntimeError: input is not contiguous at /pytorch/torch/lib/THC/generic/THCTensor.c:227"),
    # torch/csrc/autograd/python_variable_indexing.cpp (1.0+, 0.4) and torch 0.4.0's deprecation warning.
    ("zero-dim-tensor-index", "IndexError: invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` "
                              "in C++ to convert a 0-dim tensor to a number"),
    ("zero-dim-tensor-index", "IndexError: invalid index of a 0-dim tensor. Use tensor.item() to convert a 0-dim tensor to a Python number"),
    ("zero-dim-tensor-index", "UserWarning: invalid index of a 0-dim tensor. This will be an error in PyTorch 0.5. Use tensor.item() "
                              "to convert a 0-dim tensor to a Python number"),
    # aten TensorShape.cpp (select/slice/narrow on a 0-dim tensor) and torch/_tensor.py __len__ / __iter__ (0.4 - 2.13).
    ("zero-dim-tensor-index", "IndexError: slice() cannot be applied to a 0-dim tensor."),
    ("zero-dim-tensor-index", "IndexError: select() cannot be applied to a 0-dim tensor."),
    ("zero-dim-tensor-index", "TypeError: iteration over a 0-d tensor"),
    ("zero-dim-tensor-index", "TypeError: len() of a 0-d tensor"),
    # libtorch (C++ API): a TORCH_CHECK that nobody catches ends the program with c10::Error's what() and
    # the "Exception raised from <function> at <file>" trailer (LinearAlgebra.cpp meta, 2.x).
    ("shape-mismatch-matmul", LIBTORCH.format(what="mat1 and mat2 shapes cannot be multiplied (1x10 and 20x5)",
                                              where="meta at ../aten/src/ATen/native/LinearAlgebra.cpp:133")),
    ("embedding-index-out-of-range", LIBTORCH.format(what="index out of range in self",
                                                     where="operator() at ../aten/src/ATen/native/TensorAdvancedIndexing.cpp:1189")),

    # ---- GPU memory and device placement ------------------------------------------------------
    ("device-mismatch", LIBTORCH.format(what="Expected all tensors to be on the same device, but found at least two devices, "
                                             "cuda:0 and cpu! (when checking argument for argument mat1 in method wrapper_CUDA_addmm)",
                                        where="common_device_check_failure at ../aten/src/ATen/core/adaption.cpp:15")),
    # c10/cuda/CUDAException.h C10_CUDA_CHECK (2.0+ with the DSA hint, 1.x), 2.8+'s AcceleratorError,
    # and the THC THCudaCheck wordings with CUDA 9/10 (59) and CUDA 11+ (710) codes.
    ("cuda-device-side-assert", "RuntimeError: CUDA error: device-side assert triggered\nCUDA kernel errors might be asynchronously "
                                "reported at some other API call, so the stacktrace below might be incorrect.\nFor debugging "
                                "consider passing CUDA_LAUNCH_BLOCKING=1.\nCompile with `TORCH_USE_CUDA_DSA` to enable "
                                "device-side assertions."),
    ("cuda-device-side-assert", "torch.AcceleratorError: CUDA error: device-side assert triggered\nSearch for `cudaErrorAssert' in "
                                "https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html for more information."),
    ("cuda-device-side-assert", "RuntimeError: cuda runtime error (59) : device-side assert triggered at /pytorch/aten/src/THC/generic/THCTensorMath.cu:26"),
    ("cuda-device-side-assert", "RuntimeError: cuda runtime error (710) : device-side assert triggered at /pytorch/aten/src/THC/THCCachingHostAllocator.cpp:278"),
    ("cuda-device-side-assert", "THCudaCheck FAIL file=/pytorch/aten/src/THC/THCCachingHostAllocator.cpp line=265 error=59 : device-side assert triggered"),
    # The CUDA loss kernels' class-index asserts: with the device-side assert, that entry answers.
    ("cuda-device-side-assert", "/pytorch/aten/src/ATen/native/cuda/Loss.cu:242: nll_loss_forward_reduce_cuda_kernel_2d: block: "
                                "[0,0,0], thread: [5,0,0] Assertion `t >= 0 && t < n_classes` failed.\nRuntimeError: CUDA error: "
                                "device-side assert triggered"),
    # torch/cuda/__init__.py _lazy_init (1.x - 2.x; 0.4 also named Python 3.4+), and a child's CUDA init error.
    ("cuda-fork-reinit", "RuntimeError: Cannot re-initialize CUDA in forked subprocess. To use CUDA with multiprocessing, you must use the 'spawn' start method"),
    ("cuda-fork-reinit", "RuntimeError: Cannot re-initialize CUDA in forked subprocess. To use CUDA with multiprocessing, you must "
                         "use Python 3.4+ and the 'spawn' start method"),
    ("cuda-fork-reinit", "RuntimeError: cuda runtime error (3) : initialization error at /pytorch/aten/src/THC/THCGeneral.cpp:50"),
    # c10/cuda/CUDAException.h (1.x - 2.x), 2.8+, THC with CUDA 9/10 (77) and 10.1+ (700), a c10::Error from a destructor.
    ("cuda-illegal-memory-access", "RuntimeError: CUDA error: an illegal memory access was encountered\nCUDA kernel errors might be "
                                   "asynchronously reported at some other API call, so the stacktrace below might be incorrect."),
    ("cuda-illegal-memory-access", "torch.AcceleratorError: CUDA error: an illegal memory access was encountered"),
    ("cuda-illegal-memory-access", "RuntimeError: cuda runtime error (77) : an illegal memory access was encountered at /pytorch/aten/src/THC/THCCachingHostAllocator.cpp:265"),
    ("cuda-illegal-memory-access", "RuntimeError: cuda runtime error (700) : an illegal memory access was encountered at /pytorch/aten/src/THC/generic/THCStorage.cpp:39"),
    ("cuda-illegal-memory-access", "terminate called after throwing an instance of 'c10::Error'\n  what():  CUDA error: an illegal "
                                   "memory access was encountered\nException raised from c10_cuda_check_implementation at "
                                   "../c10/cuda/CUDAException.cpp:44 (most recent call first):"),
    # c10/cuda/CUDACachingAllocator.cpp malloc: 2.2+ (torch.OutOfMemoryError), 1.13 - 2.1, 1.5 - 1.12, 1.0 - 1.4 ("cached").
    ("cuda-out-of-memory", "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
                           "23.64 GiB of which 1.12 GiB is free. Including non-PyTorch memory, this process has 22.50 GiB memory "
                           "in use. Of the allocated memory 21.80 GiB is allocated by PyTorch, and 255.42 MiB is reserved by "
                           "PyTorch but unallocated. If reserved but unallocated memory is large try setting "
                           "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for "
                           "Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)"),
    ("cuda-out-of-memory", "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 7.79 GiB total "
                           "capacity; 6.82 GiB already allocated; 16.94 MiB free; 6.90 GiB reserved in total by PyTorch) If "
                           "reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation.  See "
                           "documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF"),
    ("cuda-out-of-memory", "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 7.79 GiB total capacity; 6.82 GiB "
                           "already allocated; 16.94 MiB free; 6.90 GiB reserved in total by PyTorch)"),
    ("cuda-out-of-memory", "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 7.79 GiB total capacity; 6.82 GiB "
                           "already allocated; 16.94 MiB free; 6.90 GiB cached)"),
    # THC THCStorage.cu / THCGeneral.cpp (0.3 - 1.x, code 2), and the CUDA runtime's own error (context, cuBLAS workspace).
    ("cuda-out-of-memory", "RuntimeError: cuda runtime error (2) : out of memory at /pytorch/aten/src/THC/generic/THCStorage.cu:58"),
    ("cuda-out-of-memory", "THCudaCheck FAIL file=/pytorch/aten/src/THC/THCGeneral.cpp line=383 error=2 : out of memory"),
    ("cuda-out-of-memory", "RuntimeError: CUDA error: out of memory\nCUDA kernel errors might be asynchronously reported at some "
                           "other API call, so the stacktrace below might be incorrect."),
    ("cuda-out-of-memory", "torch.AcceleratorError: CUDA error: out of memory"),
    # The hipified allocator on ROCm (1.x and 2.x wordings) and the XPU allocator (2.5+).
    ("cuda-out-of-memory", "RuntimeError: HIP out of memory. Tried to allocate 2.00 GiB (GPU 0; 15.98 GiB total capacity; 13.20 GiB "
                           "already allocated; 1.61 GiB free; 13.85 GiB reserved in total by PyTorch)"),
    ("cuda-out-of-memory", "torch.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 23.98 GiB of which 0 bytes is free."),
    ("cuda-out-of-memory", "torch.OutOfMemoryError: XPU out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 15.56 GiB."),
    # torch/serialization.py validate_cuda_device (1.0 - 2.0) / _validate_device (2.1+, any backend).
    ("cuda-unavailable-on-load", "RuntimeError: Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is "
                                 "False. If you are running on a CPU-only machine, please use torch.load with "
                                 "map_location=torch.device('cpu') to map your storages to the CPU."),
    ("cuda-unavailable-on-load", "RuntimeError: Attempting to deserialize object on CUDA device 1 but torch.cuda.device_count() is 1. "
                                 "Please use torch.load with map_location to map your storages to an existing device."),
    ("cuda-unavailable-on-load", "RuntimeError: Attempting to deserialize object on a MPS device but torch.mps.is_available() is "
                                 "False. If you are running on a CPU-only machine, please use torch.load with "
                                 "map_location=torch.device('cpu') to map your storages to the CPU."),
    ("cuda-unavailable-on-load", "RuntimeError: Attempting to deserialize object on XPU device 1 but torch.xpu.device_count() is 1. "
                                 "Please use torch.load with map_location to map your storages to an existing device."),
    # aten/src/ATen/native/cudnn/Conv_v7.cpp (1.8+) and cudnn/Conv.cpp (1.0 - 1.7).
    ("cudnn-no-valid-algorithm", "RuntimeError: Unable to find a valid cuDNN algorithm to run convolution"),
    ("cudnn-no-valid-algorithm", "RuntimeError: no valid convolution algorithms available in CuDNN"),
    # c10/cuda/CUDAFunctions.cpp (1.x - 2.x), 2.8+, torch/csrc/cuda/Module.cpp with CUDA 9/10 (10) and 10.1+ (101) codes.
    ("invalid-device-ordinal", "RuntimeError: CUDA error: invalid device ordinal\nCUDA kernel errors might be asynchronously "
                               "reported at some other API call, so the stacktrace below might be incorrect."),
    ("invalid-device-ordinal", "torch.AcceleratorError: CUDA error: invalid device ordinal"),
    ("invalid-device-ordinal", "RuntimeError: cuda runtime error (10) : invalid device ordinal at /pytorch/torch/csrc/cuda/Module.cpp:37"),
    ("invalid-device-ordinal", "RuntimeError: cuda runtime error (101) : invalid device ordinal at /pytorch/torch/csrc/cuda/Module.cpp:59"),
    # torch/cuda/__init__.py get_device_properties (1.x - 2.13).
    ("invalid-device-ordinal", "AssertionError: Invalid device id"),
    # aten/src/ATen/native/TensorConversions.cpp _to_copy (2.1+ with the to_empty hint, 1.12 - 2.0).
    ("meta-tensor-not-materialized", "NotImplementedError: Cannot copy out of meta tensor; no data! Please use "
                                     "torch.nn.Module.to_empty() instead of torch.nn.Module.to() when moving module from meta "
                                     "to a different device."),
    ("meta-tensor-not-materialized", "NotImplementedError: Cannot copy out of meta tensor; no data!"),
    # accelerate/utils/modeling.py set_module_tensor_to_device.
    ("meta-tensor-not-materialized", "ValueError: weight is on the meta device, we need a `value` to put in on 0."),
    # torch/csrc/autograd/engine.cpp validate_outputs (1.5+): a parameter still on meta in backward.
    ("meta-tensor-not-materialized", "RuntimeError: Function MmBackward0 returned an invalid gradient at index 1 - expected device meta but got cpu"),
    # The same engine check between two real devices.
    ("device-mismatch", "RuntimeError: Function MmBackward0 returned an invalid gradient at index 1 - expected device cuda:0 but got cpu"),
    # aten/src/ATen/mps/MPSAllocator.mm malloc (1.13+; torch.OutOfMemoryError since 2.5), both pools.
    ("mps-out-of-memory", "RuntimeError: MPS backend out of memory (MPS allocated: 17.85 GB, other allocations: 1.23 GB, max "
                          "allowed: 18.13 GB). Tried to allocate 256.00 MB on private pool. Use "
                          "PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0 to disable upper limit for memory allocations (may cause system failure)."),
    ("mps-out-of-memory", "torch.OutOfMemoryError: MPS backend out of memory (MPS allocated: 17.85 GB, other allocations: 1.23 GB, "
                          "max allowed: 18.13 GB). Tried to allocate 256.00 MB on shared pool."),
    # torch/csrc/utils/tensor_numpy.cpp (1.6+, any accelerator) and torch/tensor.py (1.0 - 1.5; 0.4).
    ("tensor-to-numpy-cuda", "TypeError: can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first."),
    ("tensor-to-numpy-cuda", "TypeError: can't convert mps:0 device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first."),
    ("tensor-to-numpy-cuda", "TypeError: can't convert xla:0 device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first."),
    ("tensor-to-numpy-cuda", "TypeError: can't convert CUDA tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first."),
    ("tensor-to-numpy-cuda", "TypeError: can't convert CUDA tensor to numpy (it doesn't support GPU arrays). Use .cpu() to move the tensor to host memory first."),
    # vllm worker raise_if_cache_size_invalid (0.4 - 0.6) and v1 kv_cache_utils check_enough_kv_cache_memory (0.8+).
    ("vllm-kv-cache-too-small", "ValueError: The model's max seq len (32768) is larger than the maximum number of tokens that can be "
                                "stored in KV cache (20176). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` "
                                "when initializing the engine."),
    ("vllm-kv-cache-too-small", "ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine."),
    ("vllm-kv-cache-too-small", "ValueError: 4.00 GiB KV cache is needed, which is larger than the available KV cache memory (2.31 "
                                "GiB). Based on the available memory, the estimated maximum model length is 18448. Try increasing "
                                "`gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine."),

    # ---- Also frequent ------------------------------------------------------------------------
    # aten/src/ATen/native/TensorShape.cpp cat (1.7+; torch 2.13 raises it as a ValueError) and stack (1.5+).
    ("cat-empty-list", "RuntimeError: torch.cat(): expected a non-empty list of Tensors"),
    ("cat-empty-list", "ValueError: torch.cat(): expected a non-empty list of Tensors"),
    ("cat-empty-list", "RuntimeError: expected a non-empty list of Tensors"),
    ("cat-empty-list", "RuntimeError: stack expects a non-empty TensorList"),
    # c10 Dispatcher (1.8 - 1.12): torch.cat([]) before cat had its own check.
    ("cat-empty-list", "RuntimeError: There were no tensor arguments to this function (e.g., you passed an empty list of Tensors), "
                       "but no fallback function is registered for schema aten::_cat.  This usually means that this function "
                       "requires a non-empty list of Tensors, or that you (the operator writer) forgot to register a fallback "
                       "function.  Available functions are [CPU, CUDA, QuantizedCPU, BackendSelect, Python, Named, Conjugate, "
                       "Negative, ZeroTensor, ADInplaceOrView, AutogradOther, AutogradCPU, AutogradCUDA]"),
    # caffe2/serialize/inline_container.cc PyTorchStreamReader (1.6+; CAFFE_ENFORCE form 1.6 - 1.12).
    ("checkpoint-corrupt", "RuntimeError: PytorchStreamReader failed reading zip archive: failed finding central directory"),
    ("checkpoint-corrupt", "RuntimeError: [enforce fail at inline_container.cc:145] . PytorchStreamReader failed reading zip "
                           "archive: failed finding central directory"),
    ("checkpoint-corrupt", "RuntimeError: PytorchStreamReader failed reading file data/2: invalid header or archive is corrupted"),
    ("checkpoint-corrupt", "RuntimeError: PytorchStreamReader failed locating file data.pkl: file not found"),
    # pickle on an HTML page / a Git LFS pointer saved as the checkpoint; torch/csrc/serialization.cpp doRead.
    ("checkpoint-corrupt", "_pickle.UnpicklingError: invalid load key, '<'."),
    ("checkpoint-corrupt", "_pickle.UnpicklingError: invalid load key, 'v'."),
    ("checkpoint-corrupt", "RuntimeError: unexpected EOF, expected 3567412 more bytes. The file might be corrupted."),
    # torch/serialization.py _legacy_load (0.4+).
    ("checkpoint-corrupt", "RuntimeError: Invalid magic number; corrupt file?"),
    # torch/utils/data/_utils/collate.py default_collate: torch.stack (1.5+) in a worker, the elem-size check,
    # and the shared-memory out= resize in a worker.
    ("collate-size-mismatch", "RuntimeError: stack expects each tensor to be equal size, but got [3, 224, 224] at entry 0 and [3, 224, 300] at entry 1"),
    ("collate-size-mismatch", f'''RuntimeError: Caught RuntimeError in DataLoader worker process 0.
Original Traceback (most recent call last):
  File "{SITE}/torch/utils/data/_utils/collate.py", line 141, in default_collate
    return torch.stack(batch, 0, out=out)
RuntimeError: stack expects each tensor to be equal size, but got [3, 256, 256] at entry 0 and [1, 256, 256] at entry 5
'''),
    ("collate-size-mismatch", "RuntimeError: each element in list of batch should be of equal size"),
    ("collate-size-mismatch", f'''RuntimeError: Caught RuntimeError in DataLoader worker process 0.
Original Traceback (most recent call last):
  File "{SITE}/torch/utils/data/_utils/collate.py", line 160, in default_collate
    out = elem.new(storage).resize_(len(batch), *list(elem.size()))
RuntimeError: Trying to resize storage that is not resizable
'''),
    # torch/_dynamo/output_graph.py call_user_compiler (2.0+; debug_wrapper in 2.0) and torch/_inductor/exc.py (2.1+, 2.7+).
    ("compile-inductor-failure", "torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:\nRuntimeError: Triton Error [CUDA]: invalid argument"),
    ("compile-inductor-failure", "torch._dynamo.exc.BackendCompilerFailed: debug_wrapper raised RuntimeError: Triton Error [CUDA]: invalid argument"),
    ("compile-inductor-failure", "torch._inductor.exc.InductorError: LoweringException: AssertionError: \n  target: aten.convolution.default"),
    ("compile-inductor-failure", "torch._inductor.exc.LoweringException: AssertionError:\n  target: aten.index.Tensor"),
    # aten/src/ATen/native/Convolution.cpp check_shape_forward: 1.5+ ([..]), 1.0 - 1.4 (sizes without brackets),
    # 0.4 ("weight[...], so expected"), and the transposed form.
    ("conv-channel-mismatch", "RuntimeError: Given groups=1, weight of size [64, 3, 7, 7], expected input[1, 4, 224, 224] to have 3 channels, but got 4 channels instead"),
    ("conv-channel-mismatch", "RuntimeError: Given groups=1, weight of size 64 3 7 7, expected input[1, 1, 224, 224] to have 3 channels, but got 1 channels instead"),
    ("conv-channel-mismatch", "RuntimeError: Given groups=1, weight[64, 3, 7, 7], so expected input[1, 4, 224, 224] to have 3 channels, but got 4 channels instead"),
    ("conv-channel-mismatch", "RuntimeError: Given transposed=1, weight of size [256, 128, 4, 4], expected input[8, 128, 16, 16] to have 256 channels, but got 128 channels instead"),
    # Convolution.cpp: 1.0 - 1.10 and 1.11+ rank checks; torch/nn/modules/batchnorm.py _check_input_dim (0.4+);
    # aten Pool.h pool2d_shape_check (1.x+), AdaptiveAveragePooling.cpp (1.x+), THNN SpatialMaxPooling.c (0.4 - 1.4).
    ("conv-input-rank-mismatch", "RuntimeError: Expected 4-dimensional input for 4-dimensional weight [64, 3, 7, 7], but got 3-dimensional input of size [3, 224, 224] instead"),
    ("conv-input-rank-mismatch", "RuntimeError: Expected 4-dimensional input for 4-dimensional weight 64 3 7 7, but got 3-dimensional input of size [3, 224, 224] instead"),
    ("conv-input-rank-mismatch", "RuntimeError: Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: [1, 1, 3, 224, 224]"),
    ("conv-input-rank-mismatch", "RuntimeError: Expected 2D (unbatched) or 3D (batched) input to conv1d, but got input of size: [32, 100]"),
    ("conv-input-rank-mismatch", "ValueError: expected 4D input (got 3D input)"),
    ("conv-input-rank-mismatch", "ValueError: expected 2D or 3D input (got 4D input)"),
    ("conv-input-rank-mismatch", "RuntimeError: Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:[1, 1, 1, 28, 28]"),
    ("conv-input-rank-mismatch", "RuntimeError: adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got [64]"),
    ("conv-input-rank-mismatch", "RuntimeError: non-empty 3D or 4D (batch mode) tensor expected for input"),
    # Convolution.cpp check_shape_forward (1.3+, both forms), aten Pool.h (1.x+) and THNN (0.4 - 1.1), THNN 3-D conv (0.4 - 1.x).
    ("conv-input-smaller-than-kernel", "RuntimeError: Calculated padded input size per channel: (2 x 2). Kernel size: (3 x 3). Kernel size can't be greater than actual input size"),
    ("conv-input-smaller-than-kernel", "RuntimeError: Given input size per channel: (2 x 2). Calculated output size per channel: (0 x 0). Output size is too small"),
    ("conv-input-smaller-than-kernel", "RuntimeError: Given input size per channel: (2 x 2). Calculated output size per channel: (-6 x -6). Output size is too small"),
    ("conv-input-smaller-than-kernel", "RuntimeError: Given input size: (512x1x1). Calculated output size: (512x0x0). Output size is too small"),
    ("conv-input-smaller-than-kernel", "RuntimeError: Given input size: (512x1x1). Calculated output size: (512x0x0). Output size is "
                                       "too small at /pytorch/aten/src/THNN/generic/SpatialMaxPooling.c:67"),
    ("conv-input-smaller-than-kernel", "RuntimeError: input image (T: 1 H: 7 W: 7) smaller than kernel size (kT: 2 kH: 3 kW: 3) at "
                                       "/pytorch/aten/src/THNN/generic/VolumetricConvolutionMM.c:61"),
    # pickle under the spawn start method (Python 3.x; 2.7 and 3.14 word the lambda case "it's not found as").
    ("dataloader-spawn-pickling", "AttributeError: Can't pickle local object 'get_loader.<locals>.<lambda>'"),
    ("dataloader-spawn-pickling", "_pickle.PicklingError: Can't pickle <function <lambda> at 0x7f3c2a1b8d30>: attribute lookup <lambda> on __main__ failed"),
    ("dataloader-spawn-pickling", "_pickle.PicklingError: Can't pickle <function <lambda> at 0x7f3c2a1b8d30>: it's not found as __main__.<lambda>"),
    ("dataloader-spawn-pickling", "AttributeError: Can't get attribute 'MyDataset' on <module '__main__' (built-in)>"),
    # torch/_dynamo/convert_frame.py: the logged warning with recompile_limit (2.6+) and cache_size_limit (2.0 - 2.5).
    ("dynamo-recompile-limit", "torch._dynamo hit config.recompile_limit (8)\n   function: 'forward' (/home/u/model.py:120)\n   "
                               "last reason: 0/7: tensor 'L['x']' size mismatch at index 1. expected 128, actual 131"),
    ("dynamo-recompile-limit", "torch._dynamo hit config.cache_size_limit (8)\n   function: 'forward' (/home/u/model.py:120)\n   "
                               "last reason: tensor 'L['x']' size mismatch at index 1. expected 128, actual 131"),
    ("dynamo-recompile-limit", "W1126 10:21:33.123000 140 torch/_dynamo/convert_frame.py:906] [0/8] torch._dynamo hit config.cache_size_limit (8)"),
    # convert_frame.py 2.8 - 2.13: the graph-break registry's report, alone and chained under fullgraph=True.
    ("dynamo-recompile-limit", "torch._dynamo.exc.Unsupported: Dynamo recompile limit exceeded"),
    ("dynamo-recompile-limit", """torch._dynamo.exc.Unsupported: Dynamo recompile limit exceeded
  Explanation: Dynamo attempted to recompile the code object too many times, exceeding the recompile_limit cache size limit (currently set to 8). Excessive recompilations can degrade performance due to the compilation overhead of each recompilation.
  Hint: To monitor recompilations, enable TORCH_LOGS=recompiles. If recompilations are expected, consider increasing torch._dynamo.config.recompile_limit to an appropriate value.

  Developer debug context: Limit type: recompile_limit

The above exception was the direct cause of the following exception:

Traceback (most recent call last):
  File "train.py", line 40, in <module>
    out = model(x)
torch._dynamo.exc.FailOnRecompileLimitHit: Hard failure due to fullgraph=True
"""),
    ("dynamo-recompile-limit", "torch._dynamo.exc.FailOnRecompileLimitHit: Hard failure due to fullgraph=True"),
    # The dynamic loader / ctypes on an extension built against another torch.
    ("extension-abi-mismatch", f"ImportError: {SITE}/flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so: undefined symbol: _ZN3c104cuda9SetDeviceEi"),
    # aten CPU kernels without a Half implementation (dispatch names across 1.5 - 2.x).
    ("half-on-cpu", "RuntimeError: \"addmm_impl_cpu_\" not implemented for 'Half'"),
    ("half-on-cpu", "RuntimeError: \"addmm_impl_cpu\" not implemented for 'Half'"),
    ("half-on-cpu", "RuntimeError: \"slow_conv2d_cpu\" not implemented for 'Half'"),
    ("half-on-cpu", "RuntimeError: \"LayerNormKernelImpl\" not implemented for 'Half'"),
    ("half-on-cpu", "RuntimeError: \"unfolded2d_copy\" not implemented for 'Half'"),
    # torch/_inductor/cpp_builder.py (2.0+; InductorError wrapper 2.7+; Windows cl check 2.5+) and triton's build.
    ("inductor-cxx-compiler-missing", "torch._inductor.exc.InvalidCxxCompiler: No working C++ compiler found in torch._inductor.config.cpp.cxx: (None, 'g++')"),
    ("inductor-cxx-compiler-missing", "torch._inductor.exc.InductorError: InvalidCxxCompiler: No working C++ compiler found in torch._inductor.config.cpp.cxx: (None, 'g++')"),
    ("inductor-cxx-compiler-missing", "RuntimeError: Compiler: cl is not found."),
    ("inductor-cxx-compiler-missing", "torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:\nRuntimeError: Failed to find C compiler. Please specify via CC environment variable."),
    # aten/src/ATen/native/layer_norm.h _check_layer_norm_inputs (1.x+).
    ("layernorm-shape-mismatch", "RuntimeError: Given normalized_shape=[768], expected input with shape [*, 768], but got input of size[32, 128, 512]"),
    # ... and its check of the affine weight, as torch 2.13 raises it for F.layer_norm(x, (8,), weight=torch.randn(4)).
    ("layernorm-shape-mismatch", "RuntimeError: Expected weight to be of same shape as normalized_shape, but got weight of shape [4] and normalized_shape = [8]"),
    # aten/src/ATen/mps/MPSFallback.mm (1.13+), the dispatcher (1.12), MPS ops' own refusals (1.13 - 2.x).
    ("mps-op-unsupported", "NotImplementedError: The operator 'aten::_upsample_bicubic2d_aa.out' is not currently implemented for "
                           "the MPS device. If you want this op to be added in priority during the prototype phase of this "
                           "feature, please comment on https://github.com/pytorch/pytorch/issues/77764. As a temporary fix, you "
                           "can set the environment variable `PYTORCH_ENABLE_MPS_FALLBACK=1` to use the CPU as a fallback for "
                           "this op. WARNING: this will be slower than running natively on MPS."),
    ("mps-op-unsupported", "NotImplementedError: Could not run 'aten::_fft_r2c' with arguments from the 'MPS' backend."),
    ("mps-op-unsupported", "TypeError: Cannot convert a MPS Tensor to float64 dtype as the MPS framework doesn't support float64. Please use float32 instead."),
    # pip's resolver (current and old), a wheel for another interpreter, and uv's resolver.
    ("no-wheel-for-python", "ERROR: Could not find a version that satisfies the requirement torch (from versions: none)\nERROR: No matching distribution found for torch"),
    ("no-wheel-for-python", "Could not find a version that satisfies the requirement torch>=2.0 (from versions: )\nNo matching distribution found for torch>=2.0"),
    ("no-wheel-for-python", "ERROR: torch-2.1.0+cu118-cp310-cp310-linux_x86_64.whl is not a supported wheel on this platform."),
    ("no-wheel-for-python", "error: Distribution `torch==2.5.1 @ registry+https://download.pytorch.org/whl/cu124` can't be installed "
                            "because it doesn't have a source distribution or wheel for the current platform"),
    ("no-wheel-for-python", "  × No solution found when resolving dependencies:\n  ╰─▶ Because there is no version of torch==1.13.1 "
                            "and you require torch==1.13.1, we can conclude that your requirements are unsatisfiable."),
    # torch/csrc/utils/tensor_numpy.cpp tensor_from_numpy: 1.x+ and 0.4 - 1.x.
    ("numpy-negative-strides", "ValueError: At least one stride in the given numpy array is negative, and tensors with negative "
                               "strides are not currently supported. (You can probably work around this by making a copy of your "
                               "array  with array.copy().) "),
    ("numpy-negative-strides", "ValueError: some of the strides of a given numpy array are negative. This is currently not "
                               "supported, but will be added in future releases."),
    # tensor_numpy.cpp numpy_dtype_to_aten: 1.x - 2.2, 0.4 - 1.0, 2.3+ lists of supported types.
    ("numpy-object-array-to-tensor", "TypeError: can't convert np.ndarray of type numpy.object_. The only supported types are: "
                                     "float64, float32, float16, complex64, complex128, int64, int32, int16, int8, uint8, and bool."),
    ("numpy-object-array-to-tensor", "TypeError: can't convert np.ndarray of type numpy.object_. The only supported types are: double, float, float16, int64, int32, and uint8."),
    ("numpy-unsupported-dtype", "TypeError: can't convert np.ndarray of type numpy.uint16. The only supported types are: float64, "
                                "float32, float16, complex64, complex128, int64, int32, int16, int8, uint8, and bool."),
    ("numpy-unsupported-dtype", "TypeError: can't convert np.ndarray of type numpy.datetime64. The only supported types are: "
                                "float64, float32, float16, complex64, complex128, int64, int32, int16, int8, uint64, uint32, "
                                "uint16, uint8, and bool."),
    # torch._six (names removed 1.9 / 1.13, module 2.0), torchvision functional_tensor (0.17), torch.utils.ffi (1.0).
    ("removed-private-api", "ModuleNotFoundError: No module named 'torch._six'"),
    ("removed-private-api", "ImportError: cannot import name 'container_abcs' from 'torch._six' (/usr/lib/python3.8/site-packages/torch/_six.py)"),
    ("removed-private-api", "ModuleNotFoundError: No module named 'torchvision.transforms.functional_tensor'"),
    ("removed-private-api", "ModuleNotFoundError: No module named 'torch.utils.ffi'"),
    # torch/csrc/utils/python_arg_parser.cpp: a list element that is not a tensor, a single tensor (torch 2.13 also
    # for torch.cat(a, b)), and older releases' report of separate tensors.
    ("stack-cat-argument-type", "TypeError: expected Tensor as element 0 in argument 0, but got list"),
    ("stack-cat-argument-type", "TypeError: stack(): argument 'tensors' (position 1) must be tuple of Tensors, not Tensor"),
    ("stack-cat-argument-type", "TypeError: cat(): argument 'tensors' (position 1) must be tuple of Tensors, not Tensor"),
    ("stack-cat-argument-type", "TypeError: cat() received an invalid combination of arguments - got (Tensor, Tensor), but expected "
                                "one of:\n * (tuple of Tensors tensors, int dim, *, Tensor out)"),
    # torch/nn/modules/module.py load_state_dict (0.4.1+ RuntimeError; 0.3's KeyError is state-dict-module-prefix's).
    ("state-dict-key-mismatch", "RuntimeError: Error(s) in loading state_dict for ResNet:\n\tMissing key(s) in state_dict: "
                                "\"fc.weight\", \"fc.bias\". \n\tUnexpected key(s) in state_dict: \"head.weight\", \"head.bias\". "),
    ("state-dict-key-mismatch", "RuntimeError: Error(s) in loading state_dict for Net:\n\tUnexpected key(s) in state_dict: \"bn1.num_batches_tracked\". "),
    # torch/csrc/utils/tensor_new.cpp recursive_store (0.4+) and transformers BatchEncoding.convert_to_tensors.
    ("tensor-from-ragged-sequence", "ValueError: expected sequence of length 128 at dim 1 (got 97)"),
    ("tensor-from-ragged-sequence", "ValueError: Unable to create tensor, you should probably activate truncation and/or padding with "
                                    "'padding=True' 'truncation=True' to have batched tensors with the same length. Perhaps your "
                                    "features (`labels` in this case) have excessive nesting (inputs type `list` where type `int` "
                                    "is expected)."),
    # Python indexing (TensorIndexing.h applySelect, 1.x - 2.13; a RuntimeError before) and TensorShape.cpp select().
    ("tensor-index-out-of-bounds", "IndexError: index 2 is out of bounds for dimension 0 with size 2"),
    ("tensor-index-out-of-bounds", "RuntimeError: index 10 is out of bounds for dimension 1 with size 10"),
    ("tensor-index-out-of-bounds", "IndexError: select(): index 5 out of range for tensor of size [3] at dimension 0"),
    # aten EmptyTensor.cpp check_size_nonnegative (1.x - 2.13).
    ("tensor-negative-dimension", "RuntimeError: Trying to create tensor with negative dimension -96: [-96, 1, 9, 9]"),
    # ... and the factory functions' own check in torch 2.13 (as torch.zeros(-96, 1, 9, 9) raises it).
    ("tensor-negative-dimension", "RuntimeError: zeros: Dimension size must be non-negative."),
    # torch/csrc/autograd/python_variable_indexing.cpp applySlicing (0.4 - 2.13).
    ("tensor-too-many-indices", "IndexError: too many indices for tensor of dimension 1"),
    # torchaudio/_backend/utils.py (2.1+) and torchaudio 2.8+'s TorchCodec requirement.
    ("torchaudio-no-backend", "RuntimeError: Couldn't find appropriate backend to handle uri /data/a.wav and format None."),
    ("torchaudio-no-backend", "ImportError: TorchCodec is required for load_with_torchcodec. Please install torchcodec to use this function."),
    # torchtext 0.9 - 0.11 moved the API to torchtext.legacy; 0.12 removed both.
    ("torchtext-legacy-api", "AttributeError: module 'torchtext.data' has no attribute 'Field'"),
    ("torchtext-legacy-api", "ImportError: cannot import name 'Field' from 'torchtext.data' (/usr/lib/python3.10/site-packages/torchtext/data/__init__.py)"),
    ("torchtext-legacy-api", "ModuleNotFoundError: No module named 'torchtext.legacy'"),
    # torchvision/transforms/functional.py to_tensor / to_pil_image / PIL-only ops, normalize (0.8+ and 0.2 - 0.7),
    # _functional_tensor.py normalize (0.8+), _functional_pil.py get_image_size (0.8+).
    ("transforms-input-type", "TypeError: pic should be PIL Image or ndarray. Got <class 'torch.Tensor'>"),
    ("transforms-input-type", "TypeError: pic should be Tensor or ndarray. Got <class 'PIL.Image.Image'>."),
    ("transforms-input-type", "TypeError: img should be PIL Image. Got <class 'numpy.ndarray'>"),
    ("transforms-input-type", "TypeError: img should be Tensor Image. Got <class 'PIL.Image.Image'>"),
    ("transforms-input-type", "TypeError: Input tensor should be a torch tensor. Got <class 'PIL.Image.Image'>."),
    ("transforms-input-type", "TypeError: tensor is not a torch image."),
    ("transforms-input-type", f'''  File "{SITE}/torchvision/transforms/functional.py", line 80, in get_image_size
    return F_pil.get_image_size(img)
  File "{SITE}/torchvision/transforms/_functional_pil.py", line 31, in get_image_size
    raise TypeError(f"Unexpected type {{type(img)}}")
TypeError: Unexpected type <class 'numpy.ndarray'>
'''),
    # torch/__init__.py _load_dll_libraries (1.7+), and Python's own DLL message (3.8+), English and Chinese Windows.
    ("windows-dll-load-failure", "OSError: [WinError 126] The specified module could not be found. Error loading "
                                 "\"C:\\Python310\\lib\\site-packages\\torch\\lib\\c10.dll\" or one of its dependencies."),
    ("windows-dll-load-failure", "OSError: [WinError 1114] A dynamic link library (DLL) initialization routine failed. Error loading "
                                 "\"C:\\Users\\u\\venv\\lib\\site-packages\\torch\\lib\\c10.dll\" or one of its dependencies."),
    ("windows-dll-load-failure", "ImportError: DLL load failed while importing _C: The specified module could not be found."),
    ("windows-dll-load-failure", "ImportError: DLL load failed while importing _C: 找不到指定的模块。"),
    ("windows-pagefile-too-small", "OSError: [WinError 1455] The paging file is too small for this operation to complete. Error "
                                   "loading \"C:\\Python310\\lib\\site-packages\\torch\\lib\\cudnn_cnn_infer64_8.dll\" or one of "
                                   "its dependencies."),
    ("windows-pagefile-too-small", "OSError: [WinError 1455] 页面文件太小，无法完成操作。 Error loading "
                                   "\"D:\\anaconda3\\lib\\site-packages\\torch\\lib\\caffe2_detectron_ops_gpu.dll\" or one of its dependencies."),
]

# Close texts: each shares words with a pattern widened above but is another failure (or none),
# and must not be answered with that entry.
# Wordings found missing by the seventh round's breadth review (each seen in public threads).
WORDINGS += [
    ("device-mismatch", "RuntimeError: Input and parameter tensors are not at the same device, found input tensor at "
                        "cpu and parameter tensor at cuda:0"),  # torch/nn/modules/rnn.py RNNBase.forward
    ("device-mismatch", "RuntimeError: Tensor for argument #1 'indices' is on CPU, Tensor for argument #2 'weight' is "
                        "on CUDA"),  # TH-era checkSameGPU (torch 1.x)
    ("dtype-mismatch", "RuntimeError: scatter(): Expected self.dtype to be equal to src.dtype"),  # aten scatter_gather_dtype_check
    ("shape-mismatch-matmul", "RuntimeError: Expected size for first two dimensions of batch2 tensor to be: [64, 32] "
                              "but got: [64, 16]."),  # aten bmm
    ("shape-mismatch-matmul", "RuntimeError: batch1 dim 2 must match batch2 dim 1"),  # torch 1.x bmm
    ("numpy-abi-mismatch", "RuntimeError: Could not infer dtype of numpy.float32"),  # torch built for another NumPy
    ("collate-size-mismatch", "RuntimeError: Trying to resize storage that is not resizable"),  # collate into shared memory
]

NOT_THESE = [
    # A buffer-size complaint that is no Metal allocation.
    ("mps-out-of-memory", "ValueError: Invalid buffer size: expected a multiple of 4 bytes, got 6"),
    # A gradient of the wrong shape from the same engine check: neither a dtype nor a device problem.
    ("dtype-mismatch", "RuntimeError: Function ConvolutionBackward0 returned an invalid gradient at index 1 - got [128, 255, 3, 3] "
                       "but expected shape compatible with [128, 256, 3, 3]"),
    ("device-mismatch", "RuntimeError: Function ConvolutionBackward0 returned an invalid gradient at index 1 - got [128, 255, 3, 3] "
                        "but expected shape compatible with [128, 256, 3, 3]"),
    # The meta form belongs to meta-tensor-not-materialized, the real-device form does not.
    ("device-mismatch", "RuntimeError: Function MmBackward0 returned an invalid gradient at index 1 - expected device meta but got cpu"),
    ("meta-tensor-not-materialized", "RuntimeError: Function MmBackward0 returned an invalid gradient at index 1 - expected device cuda:0 but got cpu"),
    # Another kernel's assert (an index past a dimension) is not a sampling problem.
    ("multinomial-invalid-probabilities", "/pytorch/aten/src/ATen/native/cuda/IndexKernel.cu:92: operator(): block: [0,0,0], thread: "
                                          "[0,0,0] Assertion `index >= -sizes[i] && index < sizes[i] && \"index out of bounds\"` failed."),
    # Assigning before super().__init__() is module-init-not-called.
    ("module-parameter-assign-tensor", "AttributeError: cannot assign module before Module.__init__() call"),
    # numpy's 0-d array, not a tensor; and an index past a real dimension.
    ("zero-dim-tensor-index", "TypeError: iteration over a 0-d array"),
    ("zero-dim-tensor-index", "IndexError: index 2 is out of bounds for dimension 0 with size 2"),
    # The saved tensor modified in place is inplace-modified-for-grad, not a leaf.
    ("leaf-inplace", "RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation"),
    # A boolean mask of the wrong shape is fine in dtype.
    ("uint8-bool-mask-mix", "IndexError: The shape of the mask [4] at index 0 does not match the shape of the indexed tensor [3] at index 0"),
    # A torch without CUDA at all is cuda-not-compiled, not a checkpoint's device.
    ("cuda-unavailable-on-load", "AssertionError: Torch not compiled with CUDA enabled"),
    # (Written for this test.) An application's own config check that happens to say "Invalid device id".
    ("invalid-device-ordinal", "AssertionError: Invalid device id in config: expected cpu or cuda"),
    # GroupNorm's own weight check (as torch 2.13 raises it): not LayerNorm's normalized_shape.
    ("layernorm-shape-mismatch", "RuntimeError: Expected weight to be a vector of size equal to the number of channels in input, "
                                 "but got weight of shape [3] and input of shape [2, 4, 8]"),
    # A missing file is not a corrupt one.
    ("checkpoint-corrupt", "FileNotFoundError: [Errno 2] No such file or directory: 'checkpoints/data.pkl'"),
    # groups that do not divide the channels, and padding wider than half the kernel: construction errors.
    ("conv-channel-mismatch", "RuntimeError: Given groups=32, expected weight to be divisible by 32 at dimension 0, but got weight of size [48, 1, 3, 3] instead"),
    ("conv-input-smaller-than-kernel", "RuntimeError: pad should be smaller than or equal to half of kernel size, but got padW = 2, padH = 2, kW = 3, kH = 3"),
    # pickle's identity check after a module reload (autoreload), not a worker that cannot find its function.
    ("dataloader-spawn-pickling", "_pickle.PicklingError: Can't pickle <class 'mymodule.Config'>: it's not the same object as mymodule.Config"),
    # The argument parser on another op.
    ("stack-cat-argument-type", "TypeError: add() received an invalid combination of arguments - got (Tensor, Tensor, Tensor)"),
    # The dispatcher's empty-list message for another op (a foreach optimizer step given no parameters).
    ("cat-empty-list", "RuntimeError: There were no tensor arguments to this function (e.g., you passed an empty list of Tensors), "
                       "but no fallback function is registered for schema aten::_foreach_add.List.  This usually means that this "
                       "function requires a non-empty list of Tensors, or that you (the operator writer) forgot to register a "
                       "fallback function.  Available functions are [CPU, CUDA, BackendSelect, Python, Named, Conjugate, Negative, "
                       "ZeroTensor, ADInplaceOrView, AutogradOther, AutogradCPU, AutogradCUDA]"),
    # The index's dtype is index-tensor-dtype.
    ("tensor-index-out-of-bounds", "RuntimeError: index_select(): Expected dtype int32 or int64 for index"),
    # torchtext not installed at all.
    ("torchtext-legacy-api", "ModuleNotFoundError: No module named 'torchtext'"),
    # The bare message, with no torchvision frame, could come from anything.
    ("transforms-input-type", "TypeError: Unexpected type <class 'numpy.ndarray'>"),
    # (Written for this test.) A checkpoint loader's own size check, not a matrix product.
    ("shape-mismatch-matmul", "ValueError: param `w` size mismatch, get torch.Size([2, 3])"),
    # uv with no version of another package.
    ("no-wheel-for-python", "  × No solution found when resolving dependencies:\n  ╰─▶ Because there is no version of numpy==3.0.0 "
                            "and you require numpy==3.0.0, we can conclude that your requirements are unsatisfiable."),
    # Another package's import error, ending in a quote, is not triton's "cannot import name ... from 'triton...'" cut short.
    ("compile-inductor-failure", "ImportError: cannot import name 'load_state_dict_from_url' from 'torchvision.models.utils'"),
    # (Written for this test.) Other packages' import errors end in a quote too: no torch or triton message cut short.
    ("removed-private-api", "ImportError: cannot import name 'AdamW' from 'transformers'"),
    ("compile-inductor-failure", "ImportError: cannot import name 'ConvFwdAndBwdInput' from 'cumm.conv.main'"),
    # A torch built without distributed support lacks torch._C._distributed_c10d: not code written for an older torch.
    ("removed-private-api", "ModuleNotFoundError: No module named 'torch._C._distributed_c10d'"),
]

NOT_THESE += [
    ("device-mismatch", "Input and parameter tensors are both on cuda:0, yet the RNN is slow"),
    ("dtype-mismatch", "scatter(): Expected index to be int64, got int32"),
    ("numpy-abi-mismatch", "RuntimeError: Could not infer dtype of dict"),
    ("collate-size-mismatch", "RuntimeError: Trying to resize a tensor that is a view of another tensor"),
]

test_wording_names_its_cause_first, test_close_text_is_not_this_cause = wording_tests(WORDINGS, NOT_THESE)
