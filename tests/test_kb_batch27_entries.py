"""Batch 27's dev classes: several GPUs reaching a lower accuracy than one (per-GPU BatchNorm
statistics, a new entry), GPU 0 holding more memory told as "GPU-0 ... other GPUs take less",
data loading slow at the start of every epoch (workers re-created), and `@torch.no_grad` without
parentheses on torch < 2.0. Each wording, as users put it, names its cause first; each close text
(several GPUs slower than one, eval mode worse on one GPU, GPU 0 busy with every rank's process,
an epoch slow as a whole, a user class called with a wrong argument, a GPU busy at 100%, slow every
time) does not name it. Also: GPU utilisation at 0% told in Chinese, and "slow the first time, fast after"."""

from __future__ import annotations

from kb_wordings import wording_tests

WORDINGS = [
    ("multi-gpu-batchnorm-accuracy-drop", "With 4 GPUs the mAP is 0.71, lower than the 0.75 I get on a single GPU "
                                          "with the same total batch size"),
    ("multi-gpu-batchnorm-accuracy-drop", "DDP training accuracy is worse than single GPU training, tried several times"),
    ("multi-gpu-batchnorm-accuracy-drop", "我用多卡训练后mAP低了很多，单卡训练就是正常的"),
    ("multi-gpu-batchnorm-accuracy-drop", "I get a different dice accuracy when I use different numbers of GPUs "
                                          "with DataParallel"),
    ("dataparallel-gpu0-memory-imbalance", "When running the model with DataParallel the GPU-0 always takes large "
                                           "memory, while other GPUs take less memory"),
    ("dataloader-worker-respawn-overhead", "Data loading is slow at the start of every epoch, then the GPU is busy "
                                           "until the epoch ends"),
    ("dataloader-worker-respawn-overhead", "data loading for ImageNet is slow in each epoch starting"),
    ("torch-too-old-for-package", "TypeError: no_grad.__init__() takes 1 positional argument but 2 were given"),
    ("gpu-starved-by-data-loading", "训练时显卡的使用率大部分时间是0%，只有极短的时间是100%"),
    ("gpu-starved-by-data-loading", "GPU利用率一直在0%和100%之间跳动"),
    ("cuda-warmup-first-iterations-slow", "第一次上传图片的时候识别速度比较慢，大概6秒，后来再上传别的图片速度就很快了"),
    ("pin-memory-cuda-tensor", "Error: cannot pin 'torch.cuda.FloatTensor'"),
]

NOT_THESE = [
    # several GPUs slower than one: communication, not statistics
    ("multi-gpu-batchnorm-accuracy-drop", "Training on 4 GPUs with DDP is slower than on a single GPU, the accuracy "
                                          "is the same"),
    # eval mode worse than train mode on one GPU
    ("multi-gpu-batchnorm-accuracy-drop", "On a single GPU the accuracy after model.eval() is much lower than in train mode"),
    # every rank's process on GPU 0 (DDP), not DataParallel's gather
    ("dataparallel-gpu0-memory-imbalance", "With DDP, GPU 0 has more memory used than the others because each process "
                                           "creates a context on it"),
    # the whole epoch is slow: no sign of the workers' start-up
    ("dataloader-worker-respawn-overhead", "training is slow in each epoch"),
    # a user's class called with an argument its __init__ does not take
    ("torch-too-old-for-package", "TypeError: Net.__init__() takes 1 positional argument but 2 were given"),
    # a busy GPU is not a starved one
    ("gpu-starved-by-data-loading", "显卡使用率是100%，但是训练还是很慢"),
    # slow the first time and slow again later: no warm-up
    ("cuda-warmup-first-iterations-slow", "第一次训练很慢，后来换了数据集也很慢"),
    # the pin-memory thread dying is the DataLoader's, not a CUDA tensor handed to pin_memory
    ("pin-memory-cuda-tensor", "RuntimeError: Pin memory thread exited unexpectedly"),
]

test_wording_names_its_cause_first, test_close_text_is_not_this_cause = wording_tests(WORDINGS, NOT_THESE)
