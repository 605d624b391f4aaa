"""Batch 26's two new entries: a model that overflows float16 at inference (NaN, inf, zeros or black
output that float32/bfloat16 do not give), and mixed precision that does not speed up training on a
GPU without Tensor Cores. Each wording, as users put it, names its cause first; each close text (a
NaN loss in fp16 training, the fill-value overflow error, several GPUs slower than one, AMP slow on
an A100, bf16 emulated on a P100, warm-up) does not name it."""

from __future__ import annotations

from kb_wordings import wording_tests

WORDINGS = [
    ("fp16-inference-overflow", "my model outputs all NaN when I use model.half() but works fine in fp32"),
    ("fp16-inference-overflow", "Llama loaded with torch_dtype=torch.float16 produces nan logits while bfloat16 works"),
    ("fp16-inference-overflow", "使用半精度推理输出全是nan，fp32正常"),
    ("fp16-inference-overflow", "When I run the model in half precision the output image is completely black"),
    ("fp16-inference-overflow", "modules.devices.NansException: A tensor with all NaNs was produced in VAE. This could be "
                                "because there's not enough precision to represent the picture. Try adding --no-half-vae "
                                "commandline argument to fix this. Use --disable-nan-check commandline argument to "
                                "disable this check."),
    ("fp16-no-speedup-without-tensor-cores", "mixed precision training is slower than fp32 on GTX 1080 Ti"),
    ("fp16-no-speedup-without-tensor-cores", "Using --fp16 with the HF Trainer on a Tesla P100 doesn't speed up training at all"),
    ("fp16-no-speedup-without-tensor-cores", "开启混合精度训练后速度反而变慢了，显卡是GTX 1060"),
    ("fp16-no-speedup-without-tensor-cores", "# Training is slower with apex O1\n\nSame script, same batch size, on a Tesla K80."),
]

NOT_THESE = [
    # a NaN loss while training in fp16 is nan-in-backward
    ("fp16-inference-overflow", "The loss becomes NaN after a few hundred steps when I train with fp16 mixed precision (AMP)."),
    # the fill value too large for Half raises its own error
    ("fp16-inference-overflow", "RuntimeError: value cannot be converted to type at::Half without overflow"),
    # A1111's message when the UNet already runs in full precision
    ("fp16-inference-overflow", "A tensor with all NaNs was produced in Unet. Use --disable-nan-check commandline argument "
                                "to disable this check."),
    # several GPUs slower than one
    ("fp16-no-speedup-without-tensor-cores", "DDP training with AMP on two GTX 1080 Ti is slower than on a single GPU"),
    # an A100 has Tensor Cores
    ("fp16-no-speedup-without-tensor-cores", "AMP training on A100 is slower than fp32"),
    # bf16 emulated on a pre-Ampere GPU
    ("fp16-no-speedup-without-tensor-cores", "bf16 mixed precision is slower than fp32 on my P100"),
    # only the first iterations are slow
    ("fp16-no-speedup-without-tensor-cores", "the first iterations with amp are slow on P100, then it is fast"),
]

test_wording_names_its_cause_first, test_close_text_is_not_this_cause = wording_tests(WORDINGS, NOT_THESE)
