"""Session 21's wordings, each naming its cause first, and each close text not naming it:
- the dispatcher refusing an allocation or copy kernel on the 'CUDA' backend (empty_strided, _to_copy, ...) is a
  build without CUDA reached from C++ or TorchScript (cuda-not-compiled); close: torchvision's nms refused on
  'CUDA' (its own entry) and a quantized allocation refused on 'CUDA' by a CUDA build."""

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
]

NOT_THESE = [
    ("cuda-not-compiled", "NotImplementedError: Could not run 'torchvision::nms' with arguments from the 'CUDA' backend."),
    ("cuda-not-compiled", "NotImplementedError: Could not run 'aten::_empty_affine_quantized' with arguments from the 'CUDA' backend."),
    ("cuda-not-compiled", "NotImplementedError: Could not run 'aten::slow_conv3d_forward' with arguments from the 'CUDA' backend."),
]

test_wording_names_its_cause_first, test_close_text_is_not_this_cause = wording_tests(WORDINGS, NOT_THESE)
