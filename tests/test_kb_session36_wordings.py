"""Wordings of known causes that dev reports used and the patterns did not read (session 36), and the
close texts that must stay quiet.

Each wording is a real report's sentence (its thread named beside it: all are dev cases or threads
outside the corpus), or the form a class of them takes; each close text says something near it that
is not the cause.
"""

from __future__ import annotations

from kb_wordings import wording_tests

WORDINGS = [
    # Another verb for the loss turning NaN (thuml/MDD#4).
    ("nan-in-backward", "Total loss changes to Nan somehow"),
    ("nan-in-backward", "after 3 epochs the loss changed to nan and accuracy dropped to zero"),
    # Seeds set, results not reproduced (pytorch#7068); training called not reproducible (detectron2#3203).
    ("run-to-run-nondeterminism", "can't reproduce results even set all random seeds"),
    ("run-to-run-nondeterminism", "Model training is not reproducible (using google colab on custom dataset)"),
    ("run-to-run-nondeterminism", "I cannot reproduce the same results even though I set the seed everywhere"),
    # Chinese: GPU memory not cleaned up after Ctrl+C (HVision-NKU/StoryDiffusion#63).
    ("gpu-memory-held-by-dead-run", "ctrl+c 退出程序后，显存没有被清理干净"),
    ("gpu-memory-held-by-dead-run", "程序崩溃之后显存没有被释放，nvidia-smi 还显示占用"),
    # The loss tensor summed across steps, with the .item() fix named (bubbliiiing/yolo3-pytorch#3).
    ("gpu-memory-grows-retained-graph",
     "train.py中 total_loss += loss 和val_loss += loss，这种写法是pytorch 0.4之前的写法，0.4之后要改为 += loss.item()"),
    ("gpu-memory-grows-retained-graph", "running_loss += loss should be running_loss += loss.item(), otherwise memory grows"),
    # Softmax before CrossEntropyLoss (ariecattan/SciCo#2, illiterate/BertClassifier#2).
    ("softmax-before-cross-entropy",
     "This seems to be due to the logits being softmaxed into probabilities before being fed into the "
     "CrossEntropyLoss, which treats those inputs as logits and softmaxes them again."),
    ("softmax-before-cross-entropy",
     "nn.CrossEntropyLoss()内置log_softmax，模型输出层添加softmax，相当于做了两次的softmax，导致模型难以收敛"),
    # torchaudio's CUDA check names itself "TorchAudio" (etienneab3d/WhisperHallu#22, a Colab notebook).
    ("torchvision-torch-mismatch",
     "RuntimeError: Detected that PyTorch and TorchAudio were compiled with different CUDA versions. PyTorch has "
     "CUDA version 11.8 whereas TorchAudio has CUDA version 12.1. Please install the TorchAudio version that "
     "matches your PyTorch version."),
    # GitHub's 403 re-worded by a page: "HTTP 403" without urllib's "Error" (a Chinese troubleshooting page).
    ("torch-hub-github-rate-limit", "urllib.error.HTTPError: HTTP 403 Forbidden - Rate limit exceeded"),
    # The per-kernel reasons of xformers' dump pasted without its first line (runpod-worker-a1111#21).
    ("xformers-no-operator", "    `smallkF` is not supported because:\n        xFormers wasn't build with CUDA support\n"
                             "        operator wasn't built - see `python -m xformers.info` for more info"),
    # The package name in backticks (asapdiscovery#743).
    ("cuda-not-compiled", "the solver tries to install the CPU-only build of `pytorch`. It does also install `cudatoolkit`"),
    # Chinese: workers destroyed at the end of every epoch and created again.
    ("dataloader-worker-respawn-overhead",
     "使用DataLoader配合多进程(num_workers > 0)时,每轮 epoch 结束后,PyTorch 默认会销毁所有 worker 子进程,并在下一轮重新创建。"),
    # A bare "unexpected EOF" after an interrupted weights download.
    ("checkpoint-corrupt", "代码运行时自动下载权重文件耗时漫长网络波动导致下载中断甚至反复重试后仍以RuntimeError: unexpected EOF告终。"),
    # The uninitialised default group reached from SyncBatchNorm's forward (open-mmlab/mmsegmentation#192).
    ("syncbn-without-ddp",
     'Traceback (most recent call last):\n  File "/usr/local/lib/python3.6/dist-packages/torch/nn/modules/batchnorm.py", '
     'line 493, in forward\n    world_size = torch.distributed.get_world_size(process_group)\n  File '
     '"/usr/local/lib/python3.6/dist-packages/torch/distributed/distributed_c10d.py", line 210, in _check_default_pg\n'
     '    "Default process group is not initialized"\nAssertionError: Default process group is not initialized'),
    # A periodic stall is the input pipeline (mlfoundations/open_clip#703, ylsung/VL_adapter#12).
    ("gpu-starved-by-data-loading", "Training freezes every num_worker iterations"),
    ("gpu-starved-by-data-loading", "training hangs every few seconds"),
    # Stuck inside init_process_group: the rendezvous (pytorch#58431).
    ("dist-rendezvous-unreachable", "Distributed multi node training stuck in init_process_group"),
    # Chinese: the first inference on the GPU is slow (ysnower/Bicubic_plusplus#6).
    ("cuda-warmup-first-iterations-slow", "使用CUDA调用GPU时第一次推理速度慢"),
    # The global rank used as the device index across nodes (fishaudio/Bert-VITS2#143).
    ("invalid-device-ordinal",
     "主要修改了train_ms文件中set_device(rank)，多机训练时 这里应该是local_rank而不是rank , 否则会导致device越界问题"),
    # A package's guard against the torch its ops were not built for (isl-org/Open3D-ML#635); an extension's
    # undefined symbol named in a title (state-spaces/mamba#764).
    ("extension-abi-mismatch",
     "Exception: Version mismatch: Open3D needs PyTorch version 1.8.*, but version 2.0.1+cpu is installed!"),
    ("extension-abi-mismatch",
     "ImportError: undefined symbol in selective_scan_cuda.so when importing mamba_ssm==2.2.4 on Python 3.12"),
    # Whisper's CPU fallback warning beside the user's NVIDIA GPU (dsymbol/decipher#8).
    ("cuda-not-compiled",
     "So I have a 3060 and a core i9-12900kf and when im using decipher im getting the error:  UserWarning: FP16 is "
     "not supported on CPU; using FP32 instead"),
    # Multi-GPU training stuck in backward() (wenet-e2e/wenet#795): ranks waiting in the all-reduce.
    ("uneven-batches-across-ranks-hang", "多 GPU 训练在第二个 epoch 卡在 loss.backward()"),
    # The user's checkpoint size first, the reference second (justinpinkney/stable-diffusion#29, syinari0123/tridepth#4).
    ("checkpoint-size-optimizer-state",
     "I noticed that the ckpt file size is 13.6G, but the official pretrained models from stable model are 7.2G."),
    ("checkpoint-size-optimizer-state",
     "the checkpoints saved in the log folder with '.pth.tar' extension have a size of 754 MB while the shared "
     "checkpoint with '.pth' extension has size of 251.5 MB only."),
    # Results first and the seed after, or changing from one run to another (kennymckormick/pyskl#156,
    # XuezheMax/NeuroNLP2#40, wzhouad/ATLOP#21).
    ("run-to-run-nondeterminism", "Different training and testing results were obtained using the same random seeds"),
    ("run-to-run-nondeterminism", "the results change from a run to an other using the same configuration."),
    ("run-to-run-nondeterminism", "The best results of same random seed are different at each time when I trained"),
    # The bus-error message cut after its first sentence (mosaicml/streaming#493).
    ("dataloader-shm-exhausted", "ERROR: Unexpected bus error encountered in worker."),
    # torch named beside an illegal instruction (pytorch#15010).
    ("cpu-instruction-set-unsupported", "Pytorch-1.0 illegal instruction core dump on cpu machine with Ubuntu Linux"),
    # An RTX 50-series card "not supported" / erroring, in Chinese and Japanese titles.
    ("cuda-no-kernel-image", "CUDA error，是目前还不支持5090吗？"),
    ("cuda-no-kernel-image", "搭载5070ti 显卡pytorch报错"),
    ("cuda-no-kernel-image", "RVC1006Nvidia が 5090 rtx で動作しないのはなぜですか?"),
    # A bare cuDNN status as a title; an arrow for "becomes" (dev titles).
    ("cudnn-execution-failed", "CUDNN_STATUS_NOT_SUPPORTED"),
    ("nan-in-backward", "AMP Loss -> Nan"),
    # More GPUs, no faster (dev symptoms).
    ("ddp-communication-overhead", "nlp example doesn't run faster with multi-gpu"),
    ("ddp-communication-overhead", "Training on 2x H100 on Ubuntu and speed is same as 1x H100 what we are doing wrong?"),
    ("ddp-communication-overhead", "原来单张3060训练时间是2个小时30分钟，现在4卡并行训练时间反而接近3小时了"),
    # torch installed without CUDA, told in words (dev symptoms).
    ("cuda-not-compiled", "Torch installed without gpu support - Solved"),
    ("cuda-not-compiled", "I noticed it had torch listed in requirements.txt, but it doesn't install support for CUDA."),
    ("cuda-not-compiled", "during training, I noticed that the torch is actually installed with the cpu version"),
]

NOT_THESE = [
    ("cuda-not-compiled", "torch installed with cuda support, everything works"),
    ("cuda-not-compiled", "the cpu version of torch is fine for my inference server"),
    # Text generation samples by design: another output each call is the temperature, not dropout.
    ("model-eval-mode-missing", "每次相同的输入，vllm 推理结果每次都随机变化，transformers 结果固定"),
    ("model-eval-mode-missing", "the same prompt gives a different answer every time with do_sample=True"),
    ("ddp-communication-overhead", "training runs faster with multi-gpu now, thanks"),
    ("cudnn-execution-failed", "CUDNN_STATUS_SUCCESS"),
    ("nan-in-backward", "the loss -> 0.35 after 3 epochs"),
    ("checkpoint-size-optimizer-state", "my model uses 13.6G of GPU memory, but the official one needs only 7.2G"),
    ("run-to-run-nondeterminism", "Different results with different random seeds, is that expected?"),
    ("dataloader-shm-exhausted", "RuntimeError: DataLoader worker (pid 1234) is killed by signal: Killed."),
    ("cpu-instruction-set-unsupported", "RuntimeError: CUDA error: an illegal instruction was encountered"),
    ("cuda-no-kernel-image", "RTX 5090 显存不足报错 CUDA out of memory"),
    ("gpu-starved-by-data-loading", "the model is quite slow on CPU"),
    ("dataloader-hang", "多 GPU 训练在第二个 epoch 卡在 loss.backward()"),
    ("uneven-batches-across-ranks-hang", "training hangs at the end of the first epoch with num_workers=8"),
    ("gpu-starved-by-data-loading", "training hangs forever at the end of the first epoch"),
    ("dist-rendezvous-unreachable", "init_process_group returns, then training hangs at the first all_reduce"),
    ("cuda-warmup-first-iterations-slow", "第一次训练的时候 loss 很高"),
    ("invalid-device-ordinal", "torch.cuda.set_device(local_rank)\ndist.init_process_group('nccl')"),
    ("extension-abi-mismatch",
     "ImportError: /opt/conda/lib/python3.10/site-packages/torch/lib/libtorch_cuda.so: undefined symbol: "
     "cudaGraphInstantiateWithFlags, version libcudart.so.11.0"),
    ("cuda-not-compiled", "UserWarning: FP16 is not supported on CPU; using FP32 instead"),
    ("syncbn-without-ddp",
     'Traceback (most recent call last):\n  File "train.py", line 40, in main\n    dist.barrier()\n'
     'RuntimeError: Default process group has not been initialized, please make sure to call init_process_group.'),
    ("torch-hub-github-rate-limit", "requests.exceptions.HTTPError: 403 Client Error: Forbidden for url: https://huggingface.co/api/models"),
    ("xformers-no-operator", "Applying attention optimization: xformers... done."),
    ("cuda-not-compiled", "the CPU-only build of onnxruntime was installed instead of onnxruntime-gpu"),
    ("dataloader-worker-respawn-overhead", "每轮 epoch 结束后保存一次模型, 然后重新创建优化器"),
    ("checkpoint-corrupt", "SyntaxError: unexpected EOF while parsing"),
    ("nan-in-backward", "the loss changes slowly, then plateaus around 0.7"),
    ("run-to-run-nondeterminism", "Model training is reproducible now, thanks"),
    ("run-to-run-nondeterminism", "I can't reproduce the results of the paper: my mAP is 3 points lower"),
    ("gpu-memory-held-by-dead-run", "训练结束后显存被清理干净了"),
    ("gpu-memory-grows-retained-graph", "total_loss += loss.item()"),
    ("softmax-before-cross-entropy", "output = F.log_softmax(self.fc(x), dim=1)\nloss = F.nll_loss(output, target)"),
    ("softmax-before-cross-entropy", "loss = criterion(logits, labels)\nprobs = torch.softmax(logits, dim=1)"),
]

test_wording_names_its_cause_first, test_close_text_is_not_this_cause = wording_tests(WORDINGS, NOT_THESE)
