"""Entries for failures of one platform or one library around torch (Apple MPS, AMD ROCm, mmcv,
torchaudio, vLLM, DeepSpeed, bf16 on pre-Ampere GPUs) stay on their side of the generic entry
they resemble: the same words on the other platform keep the generic answer, and each message
wording the emitting library has used (read from its source) is recognised, with its numbers."""

from __future__ import annotations

import pytest

from torchdoctor.kb import explain


def _first(text: str) -> tuple[str | None, dict[str, str]]:
    matches = explain(text)
    return (matches[0].id, matches[0].captures) if matches else (None, {})


# Wordings taken from the emitting library's source (MPSAllocator.mm, vllm kv_cache_utils.py /
# worker, deepspeed/runtime/engine.py, torchaudio's backends), each with the values it must capture.
WORDINGS = [
    ("mps-out-of-memory",
     "RuntimeError: MPS backend out of memory (currently allocated: 1.36 GB, max allowed: 18.13 GB). Tried to "
     "allocate 256.00 MB on shared pool. Use PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0 to disable upper limit for "
     "memory allocations (may cause system failure).",
     {"allocated": "1.36 GB", "limit": "18.13 GB", "requested": "256.00 MB"}),
    ("mps-out-of-memory",  # PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0: no limit, so no "max allowed"
     "RuntimeError: MPS backend out of memory (MPS allocated: 17.22 GiB, other allocations: 1.10 GiB). "
     "Tried to allocate 2.00 GiB on private pool.",
     {"allocated": "17.22 GiB", "requested": "2.00 GiB"}),
    ("vllm-kv-cache-too-small",
     "ValueError: To serve at least one request with the model's max seq len (262144), (5.84 GiB KV cache is "
     "needed, which is larger than the available KV cache memory (4.92 GiB). Based on the available memory, "
     "the estimated maximum model length is 214240.",
     {"max_len": "262144", "needed": "5.84 GiB", "available": "4.92 GiB", "estimated": "214240"}),
    ("vllm-kv-cache-too-small",
     "ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when "
     "initializing the engine.", {}),
    ("deepspeed-no-sync-zero",
     "AssertionError: no_sync context manager is incompatible with gradient partitioning logic of ZeRO stage 3",
     {"stage": "3"}),
    ("torchaudio-no-backend",
     "ImportError: TorchCodec is required for load_with_torchcodec. Please install torchcodec to use this function.",
     {}),
    ("torchaudio-no-backend",  # torchaudio 2.1-2.8 raises it with two strings: it prints as a tuple
     "ValueError: (\"Unsupported backend 'soundfile' specified; \", \"please select one of ['ffmpeg'] instead.\")",
     {"backend": "soundfile"}),
    ("bf16-unsupported-gpu",
     "ValueError: Bfloat16 is only supported on GPUs with compute capability of at least 8.0. Your Tesla T4 GPU "
     "has compute capability 7.5.", {"gpu": "Tesla T4", "cc": "7.5"}),
    ("rocm-gfx-arch-unsupported",
     "rocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat: No such file or directory "
     "for GPU arch : gfx1032", {"arch": "gfx1032"}),
]


@pytest.mark.parametrize("entry_id,text,captures", WORDINGS, ids=[f"{w[0]}-{i}" for i, w in enumerate(WORDINGS)])
def test_every_wording_of_the_library_names_its_entry(entry_id, text, captures):
    first, got = _first(text)
    assert first == entry_id
    for key, value in captures.items():
        assert got.get(key) == value, got


# The same failure class on the neighbouring platform keeps the generic entry.
BOUNDARIES = [
    ("RuntimeError: CUDA error: invalid device function\nCUDA kernel errors might be asynchronously reported at "
     "some other API call, so the stacktrace below might be incorrect.", "cuda-no-kernel-image",
     "rocm-gfx-arch-unsupported"),
    ("RuntimeError: HIP error: invalid device function\nHIP kernel errors might be asynchronously reported at "
     "some other API call, so the stacktrace below might be incorrect.\nFor debugging consider passing "
     "AMD_SERIALIZE_KERNEL=3", "rocm-gfx-arch-unsupported", "cuda-no-kernel-image"),
    ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 7.79 GiB total capacity; "
     "7.40 GiB already allocated; 12.25 MiB free; 7.52 GiB reserved in total by PyTorch)", "cuda-out-of-memory",
     "mps-out-of-memory"),
    ("torch.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
     "15.98 GiB of which 1.23 GiB is free.", "cuda-out-of-memory", "rocm-gfx-arch-unsupported"),
    ("ImportError: /opt/conda/lib/python3.8/site-packages/mmcv/_ext.cpython-38-x86_64-linux-gnu.so: undefined "
     "symbol: _ZN2at4_ops5zeros4callEN3c108ArrayRefIlEENS2_8optionalINS2_10ScalarTypeEEE",
     "extension-abi-mismatch", "mmcv-ext-missing"),
]


@pytest.mark.parametrize("text,expected,not_expected", BOUNDARIES, ids=[b[1] + "-not-" + b[2] for b in BOUNDARIES])
def test_the_neighbouring_platform_keeps_its_own_entry(text, expected, not_expected):
    ids = [m.id for m in explain(text)]
    assert ids and ids[0] == expected, ids
    assert not_expected not in ids


def test_a_question_in_words_is_not_an_answer_without_the_specific_combination():
    """Prose patterns need the platform and the failure together: a Mac mentioned beside a CUDA
    OOM, or bf16 mentioned on an A100, says nothing about these entries."""
    assert "mps-out-of-memory" not in [m.id for m in explain("On my Mac the model runs, on the server I get CUDA out of memory.")]
    assert "bf16-unsupported-gpu" not in [m.id for m in explain("bf16 training on an A100 gives NaN loss after 200 steps")]
    assert _first("MPS 内存不足，Mac M2 跑 SDXL 直接崩了")[0] == "mps-out-of-memory"
    assert _first("V100 不支持 bf16，改成 fp16 就好了")[0] == "bf16-unsupported-gpu"
