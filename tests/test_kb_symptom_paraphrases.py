"""Symptoms in the words people commonly use, written from how the failures are described in general
(not from any corpus text): NaN said to be *in* the loss, GPU memory growing per step until the GPU
runs out (but not growth that levels off), a GPU idle while data loading is named, "被killed" in
Chinese, "out of memory on the GPU".
Each names its cause first; each close text (a NaN guard, a memory that grew once, an idle GPU with
no word on the data, a GPU process killed by the user) does not."""

from __future__ import annotations

from kb_wordings import wording_tests

WORDINGS = [
    ("nan-in-backward", "got nan in loss when training with my dataset"),
    ("nan-in-backward", "After 300 iterations the training loss contains NaN values"),
    ("nan-in-backward", "NaN appears in the loss after the learning rate warm-up"),
    ("gpu-memory-grows-retained-graph", "memory usage grows each batch until CUDA out of memory"),
    ("gpu-memory-grows-retained-graph", "memory allocated on the GPU grows linearly with the number of iterations"),
    ("gpu-starved-by-data-loading", "the GPU is underutilized, data loading seems to be the bottleneck"),
    ("gpu-starved-by-data-loading", "nvidia-smi shows 0% volatile GPU util most of the time"),
    ("host-oom-killed", "程序运行一段时间后被killed"),
    ("cuda-out-of-memory", "I always run out of memory on the GPU when training with batch size 32"),
]

NOT_THESE = [
    # a NaN guard, not a NaN
    ("nan-in-backward", "I added torch.isnan checks so there is no NaN in the loss anymore"),
    ("nan-in-backward", "loss = torch.nan_to_num(loss) # avoid nan in loss"),
    # growth that levels off is the allocator's and the model's working set, not a retained graph
    ("gpu-memory-grows-retained-graph", "训练显存占用随着训练进行会逐渐增加到20G左右并稳定下来"),
    ("gpu-memory-grows-retained-graph", "GPU memory keeps increasing for the first 500 steps and then stabilizes at 14 GB"),
    # host RAM growing per epoch is another cause
    ("gpu-memory-grows-retained-graph", "RAM usage grows each epoch until the OOM killer stops the job"),
    # a GPU idle with nothing said of the data
    ("gpu-starved-by-data-loading", "the GPU is idle while I wait for the download"),
    # the user killing a process, not the kernel
    ("host-oom-killed", "我用 kill -9 把进程杀掉了"),
    # host memory
    ("cuda-out-of-memory", "the machine ran out of memory on the host while loading the dataset"),
]

test_wording_names_its_cause_first, test_close_text_is_not_this_cause = wording_tests(WORDINGS, NOT_THESE)
