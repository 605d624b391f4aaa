"""Batch 38's dev classes (session 17): messages told in a sentence or cut by the paste rather than printed
as an exception line - uint8-mask deprecation warnings pasted as the question, "Can't pickle local object"
beside the DataLoader's workers, Windows' "page file is too small" in its other wordings, apex's
FP16_Optimizer overflow, the ascii codec error on a Python 2 checkpoint, torch.utils.ffi's removal, the
loader's versioned-symbol error between two CUDA libraries, a mangled c10 type-info symbol, a re-typed cat
message, a KeyError of a parameter name, the DataParallel gather check beside "three GPUs", and "index out of
range" beside F.embedding's frame. Each wording names its cause first; each close text does not."""

from __future__ import annotations

from kb_wordings import wording_tests

WORDINGS = [
    ("uint8-bool-mask-mix", "/pytorch/aten/src/ATen/native/LegacyDefinitions.cpp:14: UserWarning: masked_fill_ received a mask "
                            "with dtype torch.uint8, this behavior is now deprecated,please use a mask with dtype torch.bool instead."),
    ("uint8-bool-mask-mix", "C:\\w\\1\\s\\windows\\pytorch\\aten\\src\\ATen/native/IndexingUtils.h:20: UserWarning: indexing with "
                            "dtype torch.uint8 is now deprecated, please use a dtype torch.bool instead."),
    ("dataloader-spawn-pickling", "When setting num_workers > 0 in train_data_loader, it goes to error like \"Can't pickle local "
                                  "object 'get_dataset.<locals>.Dataset\". Setting num_workers = 0 can skip this error"),
    ("windows-pagefile-too-small", "ImportError: DLL load failed: The page file is too small to complete the operation."),
    ("windows-pagefile-too-small", "ImportError: DLL load failed: 页面文件太小，无法完成操作。"),
    ("amp-loss-scale-overflow-normal", "OVERFLOW! Skipping step. Attempted loss scale: 2097152.0, reducing to 1048576.0"),
    ("checkpoint-python2-encoding", "When I run python main.py --load gt_ckpt_best.pth.tar --test, the error 'ascii' codec can't "
                                    "decode byte 0xe5 in position 0: ordinal not in range(128) has occurred."),
    ("removed-private-api", "When I run python build.py, there is an error saying torch.utils.ffi is deprecated, is there an "
                            "updated version available which uses cpp extensions?"),
    ("cuda-libs-conflict", "OSError: /opt/conda/lib/python3.9/site-packages/torch/lib/../../../../libcublas.so.11: symbol "
                           "cublasLtGetStatusString version libcublasLt.so.11 not defined in file libcublasLt.so.11 with link "
                           "time reference"),
    ("extension-abi-mismatch", "ImportError: /env/lib/python3.8/site-packages/torch_points_kernels/points_cpu.so: undefined "
                               "symbol: _ZTIN3c1021AutogradMetaInterfaceE"),
    ("cat-size-mismatch", "However, I am getting the error.\nSizes of tensor must match except in dimension 2. Got 48 and 49 "
                          "(The offending index is 0)."),
    ("state-dict-key-mismatch", "Trying to run the code. Got the error\n\n`KeyError: 'base.conv1.weight'` in backbone file."),
    ("last-batch-smaller-than-gpu-count", "Input tensor at index 2 has invalid shape [2, 2, 12, 1024, 64], but expected "
                                          "[2, 3, 12, 1024, 64]\n\n我用三块卡训练得时候会出现这个错"),
    ("cuda-out-of-memory", "  File \"D:\\FASTER~1\\faster_whisper\\transcribe.py\", line 128, in __init__\n"
                           "RuntimeError: CUDA failed with error out of memory"),
    ("functional-dropout-always-on", "I'm finding that dropout is still left enabled during testing even though .eval() is used."),
    ("functional-dropout-always-on", "I found a err in resnet.py #line 148\n\n` x = nn.Dropout(p=0.5)(x)`\n\nset net.eval() doesn't "
                                     "work for it"),
    ("embedding-index-out-of-range", "len(weight) = 35 and an element in input is 35, so index out of range error occurred.\n"
                                     "```python\n    return torch.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)\n```"),
]

NOT_THESE = [
    # a bool mask: nothing deprecated
    ("uint8-bool-mask-mix", "x.masked_fill_(mask, 0) with a torch.bool mask works"),
    # the DataLoader's workers named, but what failed is a worker killed, not pickling
    ("dataloader-spawn-pickling", "DataLoader with num_workers=4: RuntimeError: DataLoader worker (pid 123) is killed by "
                                  "signal: Killed."),
    # Linux memory: no Windows page file
    ("windows-pagefile-too-small", "Killed: the OOM killer stopped the process after RAM ran out"),
    # DeepSpeed's scale collapsing to 1: an overflow every step
    ("amp-loss-scale-overflow-normal", "OVERFLOW! Skipping step. Attempted loss scale: 2.0, reducing to 1.0"),
    # the codec error reading a CSV file, no checkpoint
    ("checkpoint-python2-encoding", "pandas.read_csv('data.csv') fails: 'ascii' codec can't decode byte 0xe5 in position 0"),
    # torch.utils.cpp_extension named, nothing removed
    ("removed-private-api", "torch.utils.cpp_extension builds the kernel fine"),
    # a plain missing CUDA library, not two versions of one
    ("cuda-libs-conflict", "symbol lookup error: ./app: undefined symbol: my_function"),
    # a mangled symbol of another C++ library (Boost), not torch's c10/at/torch
    ("extension-abi-mismatch", "Import error _ext, undefined symbol: _ZN5boost6system15system_categoryEv"),
    # cat dimensions disagree in count: another message of the same entry family, not this wording
    ("last-batch-smaller-than-gpu-count", "Input tensor at index 2 has invalid shape [2, 2], but expected [2, 3]"),
    # a KeyError of a config key
    ("state-dict-key-mismatch", "KeyError: 'learning_rate'"),
    # CTranslate2's other CUDA errors are not memory
    ("cuda-out-of-memory", "RuntimeError: CUDA failed with error no kernel image is available for execution on the device"),
    # dropout on in training, as it should be; the module is registered in __init__
    ("functional-dropout-always-on", "self.drop = nn.Dropout(p=0.5) in __init__, and dropout is active during training"),
    # a list index, no embedding
    ("embedding-index-out-of-range", "IndexError: list index out of range"),
]

test_wording_names_its_cause_first, test_close_text_is_not_this_cause = wording_tests(WORDINGS, NOT_THESE)
