"""Four entries of batch 44, told in words: torch 2.9's LeafSpec deprecation warning printed by a library
(pytree-leafspec-deprecation-warning), the triton.ops package that Triton 3.2 removed
(triton-ops-removed), a torch.save checkpoint read by safetensors or a .safetensors file read by
torch.load (torch-pickle-read-as-safetensors), and conda failing to solve pytorch into an existing
environment (conda-env-conflict).
Each wording names its cause first; each close text (the older _register_pytree_node warning, Triton
missing altogether, a damaged .safetensors file, conda's Python-version report, an install that
worked) does not name that cause."""

from __future__ import annotations

from kb_wordings import wording_tests

WORDINGS = [
    ("pytree-leafspec-deprecation-warning", "The LeafSpec deprecation warning floods my training log since torch 2.9"),
    ("pytree-leafspec-deprecation-warning", "升级 torch 后 LeafSpec 已弃用的警告一直刷屏"),
    ("triton-ops-removed", "triton.ops was removed in Triton 3.2, so the old bitsandbytes no longer imports"),
    ("triton-ops-removed", "importing bitsandbytes results in \"No module named 'triton.ops'\""),
    ("torch-pickle-read-as-safetensors", "I renamed model.ckpt to model.safetensors and now the loader fails"),
    ("torch-pickle-read-as-safetensors", "SafetensorError: Error while deserializing header: HeaderTooLarge when loading pytorch_model.bin"),
    ("conda-env-conflict", "conda install pytorch torchvision fails with UnsatisfiableError in my base environment"),
    ("conda-env-conflict", "在 base 环境里用 conda 安装 pytorch 报包冲突"),
]

NOT_THESE = [
    # the torch 2.2 pytree deprecation: pytree-register-node-deprecated
    ("pytree-leafspec-deprecation-warning", "UserWarning: torch.utils._pytree._register_pytree_node is deprecated."),
    # Triton not installed at all
    ("triton-ops-removed", "ModuleNotFoundError: No module named 'triton'"),
    # a damaged .safetensors file, nothing read with the wrong loader: checkpoint-corrupt
    ("torch-pickle-read-as-safetensors", "HeaderTooLarge when loading model.safetensors, it was a git lfs pointer"),
    # an install that went through
    ("conda-env-conflict", "conda install pytorch worked, no conflicts this time"),
    # conda's report that this release has no build for the Python: not a clash with installed packages
    ("conda-env-conflict", "UnsatisfiableError: The following specifications were found\nto be incompatible with the "
                           "existing python installation in your environment:\n\nSpecifications:\n\n  - pytorch=1.4.0 -> "
                           "python[version='>=3.6,<3.7.0a0']\n\nYour python: python=3.9"),
]

test_wording_names_its_cause_first, test_close_text_is_not_this_cause = wording_tests(WORDINGS, NOT_THESE)
