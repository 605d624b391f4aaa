"""Batch 40's dev classes (session 18: export and deployment, under-represented domains, symptoms): the
weights_only default change told in a sentence or cut at torch's re-raise, a Tensor method TorchScript lacks,
a custom autograd.Function of any name in the ONNX exporter's "Python operator" message, the profiling
executor's slow second call, and a GPU utilisation "of 0" beside slow preprocessing; batch 41: TypedStorage's deprecation retold. Each wording names its cause
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
]

test_wording_names_its_cause_first, test_close_text_is_not_this_cause = wording_tests(WORDINGS, NOT_THESE)
