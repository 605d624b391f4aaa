"""A kernel assertion printed above "CUDA error: device-side assert triggered" names the cause:
the entry it points to answers first, the generic assert entry comes second and quotes the whole
assertion, even one with backticks inside its condition."""

from __future__ import annotations

from torchdoctor.kb import explain

# The shape torch 2.11 prints on CUDA (tests/fixtures/gpu_machine/errors/multinomial_nan.txt on an
# H200), with the assertion line as zai-org/GLM-4#637 pasted it from torch 2.3.
MULTINOMIAL = (
    "../aten/src/ATen/native/cuda/TensorCompare.cu:110: _assert_async_cuda_kernel: block: [0,0,0], "
    "thread: [0,0,0] Assertion `probability tensor contains either `inf`, `nan` or element < 0` failed.\n"
    "Traceback (most recent call last):\n"
    '  File "generate.py", line 41, in <module>\n'
    "    next_token = torch.multinomial(probs, num_samples=1)\n"
    "RuntimeError: CUDA error: device-side assert triggered\n"
    "For debugging consider passing CUDA_LAUNCH_BLOCKING=1\n"
)


def test_the_multinomial_assertion_names_invalid_probabilities_first():
    matches = explain(MULTINOMIAL)
    assert [m.id for m in matches[:2]] == ["multinomial-invalid-probabilities", "cuda-device-side-assert"]
    assert matches[0].confidence >= 0.9
    generic = matches[1]
    assert generic.captures["assertion"] == "probability tensor contains either `inf`, `nan` or element < 0"


def test_an_assertion_without_inner_backticks_is_captured_as_before():
    text = MULTINOMIAL.replace(
        "Assertion `probability tensor contains either `inf`, `nan` or element < 0` failed.",
        "Assertion `t >= 0 && t < n_classes` failed.",
    )
    matches = explain(text)
    assert matches[0].id == "cuda-device-side-assert"
    assert matches[0].captures["assertion"] == "t >= 0 && t < n_classes"
    assert "multinomial-invalid-probabilities" not in [m.id for m in matches]


def test_the_bare_device_side_assert_stays_generic():
    text = "RuntimeError: CUDA error: device-side assert triggered\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1\n"
    assert [m.id for m in explain(text)][0] == "cuda-device-side-assert"
