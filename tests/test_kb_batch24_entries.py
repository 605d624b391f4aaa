"""Three entries batch 24's symptoms had no answer for, each told as people tell it: float32 results
of an Ampere-or-newer GPU that differ from the CPU (TF32), GPU memory still held after a run was
stopped or crashed (a process of that run is alive), and memory that jumps at the first optimizer
step (Adam's lazily allocated state). Each wording names its cause first; each close text (a
run-to-run difference, half precision, the caching allocator of a live process, a plain CUDA
out-of-memory error, memory growing every step) does not name it at all. Written for these tests,
not copied from the corpus, except where a public thread's URL stands beside the text."""

from __future__ import annotations

from kb_wordings import wording_tests

_ADAMW_FIRST_STEP_OOM = """Traceback (most recent call last):
  File "train.py", line 88, in <module>
    optimizer.step()
  File "/opt/conda/lib/python3.11/site-packages/torch/optim/optimizer.py", line 493, in wrapper
    out = func(*args, **kwargs)
  File "/opt/conda/lib/python3.11/site-packages/torch/optim/adamw.py", line 220, in step
    has_complex = self._init_group(
  File "/opt/conda/lib/python3.11/site-packages/torch/optim/adamw.py", line 158, in _init_group
    state["exp_avg_sq"] = torch.zeros_like(
torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 256.00 MiB. GPU 0 has a total capacity of 23.64 GiB of which 98.06 MiB is free. Including non-PyTorch memory, this process has 23.53 GiB memory in use.
"""

_FORWARD_OOM = """Traceback (most recent call last):
  File "train.py", line 80, in <module>
    out = model(x)
  File "/opt/conda/lib/python3.11/site-packages/torch/nn/modules/conv.py", line 554, in forward
    return self._conv_forward(input, self.weight, self.bias)
torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 256.00 MiB. GPU 0 has a total capacity of 23.64 GiB of which 98.06 MiB is free. Including non-PyTorch memory, this process has 23.53 GiB memory in use.
"""

WORDINGS = [
    ("tf32-reduced-precision", "torch.matmul on the RTX 4090 gives different results than numpy (relative error ~1e-3), "
                               "while the 2080 Ti matches numpy to 1e-7"),
    ("tf32-reduced-precision", "Our float32 unit tests pass on CPU but the tests fail on the H100 runner with "
                               "'Greatest relative difference: 0.0021'"),
    ("tf32-reduced-precision", "the conv outputs differ from the CPU reference by 1e-3 because cuDNN uses TF32 by default"),
    ("tf32-reduced-precision", "在 A100 上 float32 卷积的计算结果和 CPU 不一致，相对误差 1e-3"),
    ("gpu-memory-held-by-dead-run", "I stopped the training with Ctrl+C, but nvidia-smi still shows 18 GB used on GPU 1 "
                                    "and no process is listed"),
    ("gpu-memory-held-by-dead-run", "After the job crashed with an NCCL error the GPU memory was not released; the "
                                    "dataloader workers are still alive"),
    ("gpu-memory-held-by-dead-run", "docker 容器里 kill 掉训练进程后显存仍然被占用"),
    ("gpu-memory-held-by-dead-run", "训练进程意外中止时有僵尸进程，无法释放占用显存"),  # https://github.com/VankouF/FreeMotion-Codes/issues/6
    ("optimizer-state-first-step-memory", "Memory goes from 9 GB to 13 GB right after the first optimizer.step() with "
                                          "AdamW and then stays there"),
    ("optimizer-state-first-step-memory", "torch.OutOfMemoryError during the first optimizer.step(): the forward and "
                                          "backward pass fit on the 24 GB card"),
    ("optimizer-state-first-step-memory", _ADAMW_FIRST_STEP_OOM),
]

NOT_THESE = [
    # the same GPU, runs that differ from each other: run-to-run-nondeterminism
    ("tf32-reduced-precision", "Two runs on the same A100 with the same seed give slightly different losses"),
    # half-precision inputs: lower precision by design, not TF32
    ("tf32-reduced-precision", "matmul with fp16 inputs on the 3090 differs from the CPU result"),
    # a live process freeing tensors: the caching allocator keeps them reserved
    ("gpu-memory-held-by-dead-run", "After del model and torch.cuda.empty_cache() nvidia-smi still shows 2 GB used by "
                                    "my python process"),
    # an out-of-memory error and nothing about an earlier run
    ("gpu-memory-held-by-dead-run", "RuntimeError: CUDA out of memory. Tried to allocate 512.00 MiB (GPU 0; 15.78 GiB "
                                    "total capacity; 14.20 GiB already allocated; 120.00 MiB free)"),
    # growth on every step is tensors kept alive, not state allocated once
    ("optimizer-state-first-step-memory", "GPU memory grows after every optimizer.step() until CUDA out of memory"),
    # the same out-of-memory error raised in the forward pass: cuda-out-of-memory
    ("optimizer-state-first-step-memory", _FORWARD_OOM),
]

test_wording_names_its_cause_first, test_close_text_is_not_this_cause = wording_tests(WORDINGS, NOT_THESE)
