"""Batch 40's dev classes (session 18: export and deployment, under-represented domains, symptoms): the
weights_only default change told in a sentence or cut at torch's re-raise, a Tensor method TorchScript lacks,
a custom autograd.Function of any name in the ONNX exporter's "Python operator" message, the profiling
executor's slow second call, and a GPU utilisation "of 0" beside slow preprocessing; batch 41: TypedStorage's deprecation retold; batch 43: errno 24 retyped, shared memory refused
with its object elided, a graph break in a title, and a plain C extension's missing header kept from torch's builder. Each wording names its cause
first; each close text does not."""

from __future__ import annotations

from kb_wordings import wording_tests

WORDINGS = [
    ("weights-only-unpickling", "As Torch 2.6 has changed the default value of the weights_only parameter to True, chemprop "
                                "fails to load any checkpoints (see error trace below)."),
    ("weights-only-unpickling", '  File "/opt/conda/lib/python3.8/site-packages/torch/serialization.py", line 788, in load\n'
                                "    raise pickle.UnpicklingError(UNSAFE_MESSAGE + str(e)) from None"),
    ("torchscript-unsupported-python", "scripted_generator = torch.jit.script(generator)\nerror occor:\n"
                                       "Tried to access nonexistent attribute or method 'new' of type 'Tensor'"),
    ("jit-trace-python-autograd-function", "RuntimeError: ONNX export failed: Couldn't export Python operator qfn"),
    ("torchscript-profiling-warmup", "torchscript model second time forward is very slow"),
    ("gpu-starved-by-data-loading", "the picture preprocessing is very slow, resulting in a GPU utilization rate of 0 all the time."),
    # batch 41: the warning retold
    ("typedstorage-deprecated", "According to a warning message I recently received, the 'TypedStorage' class in PyTorch is being "
                                "deprecated and will be removed in the future."),
    # batch 43: the errno retyped, the shared-memory refusal with its object elided, a graph break in a title
    ("too-many-open-files", "OSERROR: [Errno 24] Too many files open.\n\nIt is all from reduction.py line 191"),
    ("too-many-open-files", 'DataLoader error with multiple workers - "RuntimeError: unable to open shared memory object XXX '
                            'in read-write mode"'),
    ("compile-graph-breaks", "Torch.compile Graph break introduced due to new loss function api"),
    # older dev rows: a keyword torch added later, and Python 2's wording of a missing torch attribute
    ("torch-too-old-for-package", "I ran the train.py,but got a error.'TypeError: __init__() got an unexpected keyword argument "
                                  "'align_corners''.It occured at globalNet.py,line 56."),
    ("torch-too-old-for-package", '  File "run.py", line 88, in __init__\n    torch.nn.Upsample(scale_factor=2, mode=\'bilinear\'),\n'
                                  "AttributeError: 'module' object has no attribute 'Upsample'"),
    ("nan-in-backward", "Nan popped up while I was training the UNETR network.\nWARNING:root:NaN or Inf found in input tensor."),
]

NOT_THESE = [
    # torch 2.4-2.5's FutureWarning says the default will flip: a warning, not the refusal
    ("weights-only-unpickling", "FutureWarning: You are using `torch.load` with `weights_only=False`. In a future release, "
                                "the default value for `weights_only` will be flipped to `True`."),
    # an attribute missing on a module type (an untyped or absent attribute), not a Tensor method
    ("torchscript-unsupported-python", "Tried to access nonexistent attribute or method 'fc2' of type '__torch__.Net'."),
    # the general operator message, with no Python operator
    ("jit-trace-python-autograd-function", "RuntimeError: ONNX export failed: Couldn't export operator aten::unfold"),
    # a second run slower in eager PyTorch, no TorchScript
    ("torchscript-profiling-warmup", "the second epoch is very slow compared to the first"),
    # utilisation at 0.5, not 0
    ("gpu-starved-by-data-loading", "training is slow and the GPU utilization rate is of 0.5 on average"),
    # TypedStorage named, not said to be deprecated
    ("typedstorage-deprecated", "I replaced TypedStorage with UntypedStorage in my loader and it works."),
    # another errno
    ("too-many-open-files", "OSError: [Errno 28] No space left on device"),
    # graph breaks fixed, nothing wrong
    ("compile-graph-breaks", "I fixed every graph break and now it is fast"),
    # a model's own keyword, and Python 2's AttributeError for a module that is not torch
    ("torch-too-old-for-package", "TypeError: forward() got an unexpected keyword argument 'mask'"),
    ("torch-too-old-for-package", "np.foo(1)\nAttributeError: 'module' object has no attribute 'foo'"),
    # a NaN check that passed
    ("nan-in-backward", "I added a check for NaN or Inf in the input tensor and it never fires"),
    # a Cython extension missing Python.h: setuptools' gcc failure alone is no torch extension build
    ("extension-build-error", "fatal error: Python.h: No such file or directory compilation terminated. error: command "
                              "'x86_64-linux-gnu-gcc' failed with exit status 1"),
]

test_wording_names_its_cause_first, test_close_text_is_not_this_cause = wording_tests(WORDINGS, NOT_THESE)
