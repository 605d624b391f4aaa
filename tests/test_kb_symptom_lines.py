"""Failures told in words, with no error message: the issue titles and first sentences people write
("Loss nan", "RAM out of memory and process killed", "GPU memory increasing in training").

Each wording is a real title or sentence (its URL beside it); each names its cause first through a
line pattern that needs the specific combination (the subject and the symptom together), never a
generic word. The close texts are the same subjects without the failure: a question, a symptom
that is gone, or another cause in similar words; none of them may name the cause.
A hang on several GPUs with no detail ("multi-gpu training hangs") is left to the possible
causes: P2P, a rank-guarded collective and a late rank are all told that way.
"""

from __future__ import annotations

from kb_wordings import wording_tests

WORDINGS = [
    # nan-in-backward: the loss and NaN in a title's words.
    ("nan-in-backward", "Loss value equals to NAN!"),  # https://github.com/ZHKKKe/DualStudent/issues/7
    ("nan-in-backward", "I am trying to use your method as my baseline, but I find that if I set the epoch larger "
                        "than 300(which is set in your script originally), after the 200 epoch, the loss value "
                        "will be NAN."),  # https://github.com/ZHKKKe/DualStudent/issues/7
    ("nan-in-backward", "Loss nan"),  # https://github.com/maudzung/RTM3D/issues/4
    ("nan-in-backward", "Geting loss of NaN for some epochs during training"),  # https://github.com/abduallahmohamed/Social-STGCNN/issues/20
    ("nan-in-backward", "Nan loss after 20k+ steps of training."),  # https://github.com/PKU-YuanGroup/Open-Sora-Plan/issues/333
    ("nan-in-backward", "When training reaches the 10th epoch, the loss becomes nan"),  # https://github.com/showlab/ShowUI/issues/88
    ("nan-in-backward", "训练4个epoch之后loss变为nan"),  # https://github.com/bubbliiiing/faster-rcnn-pytorch/issues/163
    # host-oom-killed: host RAM named, and the kill.
    ("host-oom-killed", "RAM out of memory and process killed"),  # https://github.com/xinntao/Real-ESRGAN/issues/489
    ("host-oom-killed", "And the process was eventually killed when the CPU memory in use reached its maximum "),  # https://github.com/google/automl/issues/224
    ("host-oom-killed", "When I run the code the RAM usage continuously increases. The memory consumption keeps on "
                        "increasing and after 8k iterations, the OS kills the process."),  # https://github.com/MishaLaskin/curl/issues/10
    # gpu-memory-grows-retained-graph: GPU memory growing, with what makes it growth.
    ("gpu-memory-grows-retained-graph", "GPU memory increasing in training"),  # https://github.com/microsoft/VideoX/issues/46
    ("gpu-memory-grows-retained-graph", "imagenet training increasing gpu memory usage"),  # https://github.com/libffcv/ffcv/issues/128
    ("gpu-memory-grows-retained-graph", "The GPU memory usage growed slowly during training, finally threw `CUDA out "
                                        "of memory. Tried to allocate 20.00 MiB`."),  # https://github.com/sunsmarterjie/SDL-Skeleton/issues/6
    ("gpu-memory-grows-retained-graph", "I tried to train the network, but the memory usage on GPU keeps increasing "
                                        "with every iteration."),  # https://github.com/AlvinYH/Faster-VoxelPose/issues/2
    ("gpu-memory-grows-retained-graph", "out of memory 训练的时候显存一直在增长"),  # https://github.com/chenyuntc/simple-faster-rcnn-pytorch/issues/252
    ("gpu-memory-grows-retained-graph", "请问为何训练过程中显存占用持续增加？"),  # https://github.com/jiangxiluning/FOTS.PyTorch/issues/70
    # collective-under-rank-guard: a hang with the rank-0-only work that causes it.
    ("collective-under-rank-guard", "ddp开了两个进程（rank=0和rank=1），只在rank=0进程有test dataloader，训练后也是只在rank=0的"
                                    "进程进行测试，就会在第二个epoch卡住。"),  # https://github.com/WongKinYiu/PyTorch_YOLOv4/issues/285
    ("collective-under-rank-guard", "torch.distributed.barrier() hangs in DDP"),  # https://discuss.pytorch.org/t/torch-distributed-barrier-hangs-in-ddp/114522
    ("collective-under-rank-guard", "Training hangs after validation at the end of the first epoch when the checkpoint is "
                                    "saved only on rank 0"),  # the pytorch#54059 report in one sentence: https://github.com/pytorch/pytorch/issues/54059
    # nccl-p2p-hang: a hang in the first collective (DDP's constructor), what disabling P2P did, or a
    # consumer RTX 40-series in a multi-GPU job.
    ("nccl-p2p-hang", "The DDP hung up at torch.nn.parallel.DistributedDataParallel(model)"),  # https://github.com/timmeinhardt/trackformer/issues/68
    ("nccl-p2p-hang", "“model = DDP(model, device_ids=[LOCAL_RANK], output_device=LOCAL_RANK,find_unused_parameters= False)” "
                      "get stuck and can not run next code."),  # https://github.com/ZouJiu1/LSQplus/issues/7
    ("nccl-p2p-hang", "我在多卡4090机器， ubuntu 22.04系统上， 在调用DistributedDataParallel 上卡死， 通过设置环境变量搞定："
                      "export NCCL_IB_DISABLE=1"),  # https://github.com/jingyaogong/minimind-v/issues/31
    ("nccl-p2p-hang", "NCCL_P2P_DISABLE=1 works for me."),  # https://github.com/deepspeedai/DeepSpeed/issues/4433
    ("nccl-p2p-hang", "[Bug]: Multi-GPU AMD Setup Hangs without NCCL_P2P_DISABLE=1 and --disable-custom-all-reduce"),  # https://github.com/ROCm/vllm/issues/390
    ("nccl-p2p-hang", "I do not know the exact reason, but the model \"freeze\"(stuck) when using 4 or more GPUs. So, while "
                      "trying various things, I confirmed that the model works by setting the variable NCCL_P2P_DISABLE =1 ."),  # https://github.com/NVIDIA/nccl/issues/631
    ("nccl-p2p-hang", "NCCL all_reduce_perf test hangs with multiple RTX 4090 GPUs, works fine when I swap in 2080tis"),  # https://github.com/NVIDIA/nccl-tests/issues/117
    # gpu-starved-by-data-loading: GPU utilisation low, 0% or unstable, with training or data named, or idling at 0%.
    ("gpu-starved-by-data-loading", "[Question] Volatile GPU-Util is 0%"),  # https://github.com/NVIDIA-NeMo/Speech/issues/1204
    ("gpu-starved-by-data-loading", "And when I tried to verify the gpu usage, with nvidia-smi, the Memory-Usage is full but "
                                    "Volatile GPU-util indicates 0% ( in other words, it seems that the gpu doesn't work )"),  # https://github.com/NVIDIA-NeMo/Speech/issues/1204
    ("gpu-starved-by-data-loading", "训练时GPU占用低，显存可以跑满，但是GPU利用率很低，如何多线程跑？（尝试过把num_works改成24，但是比原来更慢了）"),  # https://github.com/svc-develop-team/so-vits-svc/issues/101
    ("gpu-starved-by-data-loading", "During training, **GPU utilization sometimes drops to 0% and at other times increases to "
                                    "50%-70%,** resulting in very long iteration times."),  # https://github.com/WongKinYiu/yolov7/issues/2064
    # caching-allocator-holds-memory: memory not released after del/empty_cache/a function, or nvidia-smi still showing it.
    ("caching-allocator-holds-memory", "As you can see, I create a model, then delete it and create another one. However, it looks "
                                       "like the deleted model leaves some undeleted gpu memory. When I check with `nvidia-smi`, "
                                       "there's still some memory in use."),  # https://github.com/NVIDIA/TensorRT-LLM/issues/681
    ("caching-allocator-holds-memory", "When i delete a tensor on gpu,the gpu memory is not been freed on ```nvidia-smi``` even if "
                                       "i use ```torch.cuda.empty_cache()```"),  # https://github.com/pytorch/pytorch/issues/60150
    ("caching-allocator-holds-memory", "用了torch.cuda.empty_cache()后，在控制台nvidia-smi查看显存没有释放"),  # https://github.com/zergtant/pytorch-handbook/issues/130
    # cpu-intraop-threads-misconfigured: the thread settings beside a speed change, or every core saturated by inference.
    ("cpu-intraop-threads-misconfigured", "when I run my network  use libtorch, and  I find my cpu is just 100%, just one cored "
                                          "used , and I have 8 cores ,and I set export OMP_NUM_THREADS=5 and code run time is "
                                          "same."),  # https://github.com/pytorch/pytorch/issues/23071
    ("cpu-intraop-threads-misconfigured", "ubuntu16.04, pytorch1.0, no dataloader , run on gpu ,all cpus are 100% when inference "
                                          "images in a loop."),  # https://github.com/pytorch/pytorch/issues/24142
    # model-eval-mode-missing: eval() said to be missing or needed, dropout active at test time, eval mode needed in words.
    ("model-eval-mode-missing", "Model should be put in eval mode during inference for evaluation."),  # https://github.com/meta-pytorch/torchtune/pull/1049
    ("model-eval-mode-missing", "As i don't see a model.eval() call anywhere in the repo, i'm pretty sure the dropout units "
                                "are active during inference as well as during loss estimation while training."),  # https://github.com/ipolharvard/ethos-ares/issues/20
    ("model-eval-mode-missing", "Since we have nn.Dropout() layer in our model，during test，we should set the model to "
                                "evaluation status by self.model.eval(), but in your code, test.py there is no such setting,so "
                                "the Dropout layer is still working during test"),  # https://github.com/amoudgl/pygoturn/issues/14
    # dataloader-worker-respawn-overhead: a pause at the epoch boundary, workers restarted each epoch, persistent_workers removing it.
    ("dataloader-worker-respawn-overhead", "Windows uses the spawn start method to create the dataloader workers, while Linux "
                                           "uses fork (not supported on windows) which is much faster, so it is not surprising "
                                           "to see that you get a faster epoch transitions with `persistent_workers=True`."),  # https://github.com/Lightning-AI/pytorch-lightning/issues/18862
    ("dataloader-worker-respawn-overhead", "解决两个Epoch之间较长的停顿时间"),  # https://github.com/kaonashi-tyc/zi2zi-JiT/issues/14
    ("dataloader-worker-respawn-overhead", "You lose around 10 seconds because of the worker reset at the start of each epoch."),  # https://github.com/boreshkinai/delta-interpolator/pull/3
    # eval-without-no-grad: validation/evaluation named beside memory growth or OOM, or no_grad said missing there.
    ("eval-without-no-grad", "CUDA out of memory when validation"),  # https://github.com/gentaiscool/end2end-asr-pytorch/issues/29
    ("eval-without-no-grad", "GPU RAM exploding on validation"),  # https://github.com/leftthomas/SRGAN/issues/43
    # optimizer-not-tracking-model-params: the model built twice or replaced after the optimizer.
    ("optimizer-not-tracking-model-params", "I got the same results, and realized that I have the model instantiated twice - once "
                                            "directly after the RNN class, and once before the main `for epoch in ...` loop"),  # https://github.com/spro/practical-pytorch/issues/9
    ("optimizer-not-tracking-model-params", "rnn was initialized twice"),  # https://github.com/pytorch/tutorials/pull/86
    # extension-not-built: the bare compiled module said to be missing, in words.
    ("extension-not-built", "the code in dcn_v2.py writes : import _ext as _backend,however i can't find a file named _ext.How to "
                            "solve it?"),  # https://github.com/CharlesShang/DCNv2/issues/39
    ("extension-not-built", "作者你好 请问你转载的DCNv2 的那篇分享里DCNv2.py运行时没有‘_ext’模块的问题得到解决了么"),  # https://github.com/heartInsert/Randaugment/issues/2
    # uneven-batches-across-ranks-hang: different numbers of batches per rank named beside the hang.
    ("uneven-batches-across-ranks-hang", "If the workers have different number of batches, then horovod will freeze."),  # https://github.com/NVIDIA-Merlin/NVTabular/issues/1320
    ("uneven-batches-across-ranks-hang", "If you run training with an uneven number of batches on different GPUs, a hang will "
                                         "occur."),  # https://github.com/microsoft/PyMarlin/issues/80
    ("uneven-batches-across-ranks-hang", "It will hang if there is an uneven number of batches"),  # https://github.com/Lightning-AI/pytorch-lightning/issues/9851
    # last-batch-smaller-than-gpu-count: a batch smaller than / not divisible by the GPU count, with the failure.
    ("last-batch-smaller-than-gpu-count", "`DataParallel` fails when the batch size is smaller than the number of GPUs if you're "
                                          "lucky enough to have many"),  # https://github.com/m-bain/frozen-in-time/pull/9
    ("last-batch-smaller-than-gpu-count", "Fix validation when batch size < GPUs"),  # https://github.com/m-bain/frozen-in-time/pull/9
    ("last-batch-smaller-than-gpu-count", "当batch_size % 卡数 != 0 时会报错，需要在代码里面调整一下batch_size = batch_size//卡数 * 卡数"),  # https://github.com/yangjianxin1/GPT2-chitchat/issues/30
    ("last-batch-smaller-than-gpu-count", "dp training : bug if the number of examples is not a multiple of the batchsize and not "
                                          "a multiple of gpu count"),  # https://github.com/Lightning-AI/pytorch-lightning/issues/408
    # cuda-warmup-first-iterations-slow: the first run/iteration/images, or a new input shape, named slow.
    ("cuda-warmup-first-iterations-slow", "When I load and inference a model, it runs slow at first time, but  returns to normal "
                                          "speed after first time."),  # https://github.com/pytorch/pytorch/issues/44269
    ("cuda-warmup-first-iterations-slow", "Is Retinaface particularly slow to see a new image size for the first time?"),  # https://github.com/biubug6/Pytorch_Retinaface/issues/4
    ("cuda-warmup-first-iterations-slow", "It takes a long time to do inference for the first few images."),  # https://github.com/tjuskyzhang/Scaled-YOLOv4-TensorRT/issues/27
    ("cuda-warmup-first-iterations-slow", "GPU推理前几次痒痒速度很慢，所以提前推理。之后再推理就稳定了"),  # https://github.com/triple-mu/YOLOv8-TensorRT/issues/75
    ("cuda-warmup-first-iterations-slow", "Model inference very slow when batch size changes for the first time"),  # https://discuss.pytorch.org/t/model-inference-very-slow-when-batch-size-changes-for-the-first-time/44911
    # mps-slower-than-cpu: the Apple GPU named slower than the CPU (or the CPU faster than mps).
    ("mps-slower-than-cpu", "mps training is slower than cpu"),  # https://github.com/pytorch/pytorch/issues/122973
    ("mps-slower-than-cpu", "Mac M1 GPU slower than CPU mode?"),  # https://github.com/bmaltais/kohya_ss/issues/1111
    ("mps-slower-than-cpu", 'I tried to run with 3 epochs for each device "cpu" and "mps", but "cpu" is faster than "mps" '
                            'which is unexpected.'),  # https://github.com/ultralytics/ultralytics/issues/5717
    ("mps-slower-than-cpu", "M2芯片使用mps训练速度极慢"),  # https://github.com/taishan1994/BERT-BILSTM-CRF/issues/11
    # mps-wrong-results: results named different, wrong or worse between mps and the CPU.
    ("mps-wrong-results", "Very different results on inference between mps and cpu for same input"),  # https://github.com/huggingface/transformers/issues/19353
    ("mps-wrong-results", "worse results by using the MPS backend, compared to the CPU"),  # https://github.com/pytorch/pytorch/issues/126862
    ("mps-wrong-results", "On Mac M1 MPS Conv2d produces different result than cpu when stride is different in two "
                          "dimensions"),  # https://github.com/pytorch/pytorch/issues/83180
    ("mps-wrong-results", "[MPS] Inconsistent output between cpu, cuda and mps."),  # https://github.com/pytorch/pytorch/issues/87014
    # amp-loss-scale-overflow-normal: gradient overflow named with fp16 / mixed precision / apex.
    ("amp-loss-scale-overflow-normal", "Gradient overflow issue when i try to train gpt2 model in fp16 with 02. "
                                       "Any idea why that maybe happen?"),  # https://github.com/NVIDIA/apex/issues/864
    ("amp-loss-scale-overflow-normal", "How to handle gradient overflow when training a deep model with mixed "
                                       "precision?"),  # https://github.com/NVIDIA/apex/issues/318
    # ddp-rank-tensors-on-cuda0: every / the other ranks' processes on GPU 0, no checkpoint named.
    ("ddp-rank-tensors-on-cuda0", "DDP: why does every process allocate memory of GPU 0 and how to avoid it?"),  # https://github.com/pytorch/examples/issues/969
    ("ddp-rank-tensors-on-cuda0", "The processes that were spun up on GPUs 1, 2, and 3 are using almost a GB each of space "
                                  "on GPU0. Is this expected behavior?"),  # https://github.com/NVIDIA/apex/issues/222
    # torchscript-profiling-warmup: TorchScript / jit / libtorch with the first calls slow or a long warm-up.
    ("torchscript-profiling-warmup", "Long torchscript warmup times can be problematic for production serving"),  # https://github.com/pytorch/pytorch/issues/33354
    ("torchscript-profiling-warmup", "The first 20 loops of inference are Extremely Slow on C++ libtorch v1.8.1"),  # https://github.com/pytorch/pytorch/issues/56245
    ("torchscript-profiling-warmup", "JIT \"optimizations\" take way too long"),  # https://github.com/pytorch/pytorch/issues/57894
    # compile-warmup-recompilation: torch.compile with the first steps slow, slower than eager, or recompiling.
    ("compile-warmup-recompilation", "The first epoch is very slow when using torch.compile"),  # https://github.com/pytorch/pytorch/issues/97783
    ("compile-warmup-recompilation", "The \"max-autotune\" mode in torch.compile can lead to longer execution times relative "
                                     "to eager execution."),  # https://github.com/pytorch/pytorch/issues/161764
    ("compile-warmup-recompilation", "Why Torch.compile is usually slower than eager mode?"),  # https://github.com/ScalingIntelligence/KernelBench/issues/68
    # dataparallel-gpu0-memory-imbalance: DataParallel with imbalanced memory, or GPU 0 holding more than the others.
    ("dataparallel-gpu0-memory-imbalance", "DataParallel imbalanced memory usage"),  # https://github.com/huggingface/transformers/issues/279
    ("dataparallel-gpu0-memory-imbalance", "How to deal with the DataParallel imbalanced memory usage problem?"),  # https://github.com/princeton-vl/RAFT/issues/33
    ("dataparallel-gpu0-memory-imbalance", "When using acfnet code, the program takes a lot of memory in GPU0 but much less memory "
                                           "in others. Why would this happen?"),  # https://github.com/DeepMotionAIResearch/DenseMatchingBenchmark/issues/10
    ("dataparallel-gpu0-memory-imbalance", "我们在多卡训练时发现，当进入validate阶段时0号显卡显存显著增大（对比其他卡十分不均衡）"),  # https://github.com/XuJiacong/PIDNet/issues/15
    # batchnorm-train-eval-discrepancy: eval() called, and eval mode said to be worse than or different from train mode.
    ("batchnorm-train-eval-discrepancy", "Using model.eval() with batchnorm gives high error"),  # https://github.com/pytorch/pytorch/issues/4741
    ("batchnorm-train-eval-discrepancy", "BatchNorm behaves different in train() and eval()"),  # https://github.com/pytorch/pytorch/issues/5406
    ("batchnorm-train-eval-discrepancy", "When I modify the script so that the model is in eval mode during evaluation, the "
                                         "validation accuracy drops to close to random guess."),  # https://github.com/facebookresearch/higher/issues/55
    ("batchnorm-train-eval-discrepancy", "为什么在设置 model.eval() 之后,pytorch模型的性能会很差?"),  # http://www.pswp.cn/pingmian/82114.shtml
    # lr-scheduler-state-not-resumed: the learning rate or schedule said to start over on resume, the scheduler's state not loaded.
    ("lr-scheduler-state-not-resumed", "lr_scheduler doesn't work when start training from checkpoint"),  # https://github.com/IntelLabs/distiller/issues/70
    ("lr-scheduler-state-not-resumed", "So when continuing to train from an existing snapshot, the scheduler will restart at epoch 0, "
                                       "and the learning rate won't be adapted (as mentioned in #2784)."),  # https://github.com/DeepLabCut/DeepLabCut/pull/2788
    ("lr-scheduler-state-not-resumed", "断点续训后,学习率曲线突然跳变(回到 warmup 高位或峰值附近)。"),  # http://www.dtcms.com/a/388826.html
    ("lr-scheduler-state-not-resumed", "所以会导致接续训练时候loss为什么不是接上的,而是再次训练时候会上升一点点。原因是:学习率和优化器重置了,"
                                       "没有保存之前的状态。"),  # https://www.e-com-net.com/article/1926757918913392640.htm
    # zero-grad-missing: zero_grad() said to be missing or not called, the gradients said not to be zeroed.
    ("zero-grad-missing", "I wonder why you did not use optimizer.zero_grad() in the torch code ? Is it a technique to get better "
                          "result or is it just a mistake?"),  # https://github.com/LoreGoetschalckx/GANalyze/issues/7
    ("zero-grad-missing", "It is easy to introduce an extremely nasty bug in your code by forgetting to call `zero_grad()` or "
                          "calling it at the beginning of each epoch instead of the beginning of each iteration."),  # https://github.com/pytorch/pytorch/issues/47175
    ("zero-grad-missing", "We are missing zero_grad in example, which can cause gradients to accumulate if not caught."),  # https://github.com/udacity/deep-learning-v2-pytorch/pull/160
    ("zero-grad-missing", "为什么要清零: 在 PyTorch 中,梯度是累加的(不是自动覆盖),如果不清零,新的梯度会叠加到旧梯度上,导致计算结果错误。"),  # https://yusme.link/posts/神经网络/线性.html
    # graph-cut-by-detach: a detach/.item()/numpy/cast to tensor named with the graph cut or parameters that cannot learn.
    ("graph-cut-by-detach", "But your changes detach `rl_loss` from the computational graph and there is nothing to backpropagate."),  # https://github.com/isayev/ReLeaSE/issues/39
    ("graph-cut-by-detach", "If adj is detached from the computation graph, how could the two weight matrices be updated "
                            "(i.e. W_phi, W_theta)?"),  # https://github.com/queenie88/A-GCN/issues/4
    ("graph-cut-by-detach", "The double-casting to tensor seemed to be making it not converge (maybe cutting off grad "
                            "propagation?)."),  # https://github.com/brendanhasz/probflow/pull/65
    # functional-dropout-always-on: functional dropout named with eval/inference, or training=self.training said to be needed.
    ("functional-dropout-always-on", "Should set training=self.training, otherwise in the evaluation, dropout function is still working."),  # https://github.com/BogiHsu/Tacotron2-PyTorch/issues/8
    ("functional-dropout-always-on", "The documentation for F.dropout should probably mention that putting the model in eval mode "
                                     "doesn't disable dropout."),  # https://github.com/pytorch/pytorch/issues/26338
    ("functional-dropout-always-on", "Functional Dropout in evaluation mode"),  # https://github.com/Coderx7/SimpleNet/issues/2
    # transformer-nested-tensor-warning: enable_nested_tensor / use_nested_tensor named with silencing it or a warning (警告).
    # (A line that says "warning" is weak evidence by design, so these two say it otherwise.)
    ("transformer-nested-tensor-warning", "How do I silence the enable_nested_tensor message that TransformerEncoder prints with norm_first=True?"),
    ("transformer-nested-tensor-warning", "nn.TransformerEncoder 初始化时出现 use_nested_tensor 的警告"),
    # pkg-resources-removed: pkg_resources said removed / not found / missing, or named with setuptools 82+.
    ("pkg-resources-removed", "ModuleNotFoundError pkg_resources after update setuptools v82"),  # https://github.com/pre-commit/pre-commit/issues/3621
    ("pkg-resources-removed", "The pkg_resources module was removed in setuptools 82.0.0."),  # https://github.com/pecan/pecan/pull/171
    ("pkg-resources-removed", "Setuptools has removed `pkg_resources` in version 82, which causes the below module not found error with "
                              "bcpandas."),  # https://github.com/yehoshuadimarsky/bcpandas/issues/232
    ("pkg-resources-removed", "安装 setuptools 82 之后找不到 pkg_resources 了"),
    # rocm-hipblaslt-unsupported-arch: the message as a title, hipBLASLt named as not supported on a GPU or arch.
    ("rocm-hipblaslt-unsupported-arch", "Attempting to use hipBLASLt on a unsupported architecture!"),  # https://github.com/pytorch/pytorch/issues/138067
    ("rocm-hipblaslt-unsupported-arch", "hipBLASLt is not supported on my RX 6800 (gfx1030), so torch falls back to hipBLAS"),
    ("rocm-hipblaslt-unsupported-arch", "ROCm 上 hipBLASLt 不支持 gfx1030 架构，自动回退到 hipblas"),
    # ddp-communication-overhead: several GPUs against one, slower or not faster, in either language.
    ("ddp-communication-overhead", "Hello, why is the training speed of using the DDP strategy slower than that of a single "
                                   "GPU?How to fix this"),  # https://github.com/shubham-goel/4D-Humans/issues/139
    ("ddp-communication-overhead", "你好，我有一个问题，我将代码改造为qwen2.5-0.5b的模型，batch_size =1  ，用单卡4090得8500min，"
                                   "双卡也得6800min，为什么双卡的训练速度比单卡没有快多少呢？"),  # https://github.com/jingyaogong/minimind/issues/440
    ("ddp-communication-overhead", "多卡速度没有提升很多"),  # https://github.com/jingyaogong/minimind/issues/440
    ("ddp-communication-overhead", "DDP is 4 times slower in my case"),  # https://github.com/The-AI-Summer/pytorch-ddp/issues/1
    ("ddp-communication-overhead", "Multi GPU slower than One GPU several time"),  # https://github.com/lllyasviel/ControlNet/issues/556
    # compile-graph-breaks: graph breaks counted, logged, or named beside the speed.
    ("compile-graph-breaks", "`torch.compile` is currently slower than eager on every workload I measured, and the cause is "
                             "that the model compiles to 42 graphs with 41 breaks — 137 of 144 breaks over five workloads "
                             "are `Tensor.item()`."),  # https://github.com/isayevlab/aimnetcentral/pull/109
    ("compile-graph-breaks", "[torch.compile] potential non-negligible slowdowns from the introduction of graph breaks"),  # https://github.com/vipshop/cache-dit/issues/76
    ("compile-graph-breaks", "Graph breaks mean performance hit so typically you want as few of them as possible"),  # https://discuss.pytorch.org/t/graph-breaks-or-no-graph-breaks-in-torchdynamo/181208
    ("compile-graph-breaks", "This PR aims to fix a `Graph break from Tensor.item()` issue when training Eagle3, additionally "
                             "obtaining a slight speedup."),  # https://github.com/sgl-project/SpecForge/pull/222
    ("compile-graph-breaks", "Trying to compile the entire `Encoder` module is causing a lot of graph breaks, particularly in "
                             "metrics, plotting, and einops. Just compiling `encode_batch` works better"),  # https://github.com/prob-ml/bliss/issues/905
    # checkpoint-reentrant-input-no-grad: activation/gradient checkpointing beside a model that does not train.
    ("checkpoint-reentrant-input-no-grad", "Use of torch.utils.checkpoint.checkpoint causes simple model to diverge"),  # https://discuss.pytorch.org/t/use-of-torch-utils-checkpoint-checkpoint-causes-simple-model-to-diverge/116271
    ("checkpoint-reentrant-input-no-grad", "Running with gradient checkpointing prevents LoRA weight updates."),  # https://github.com/cloneofsimo/lora/issues/26
    ("checkpoint-reentrant-input-no-grad", "When I use gradient checkpoint with LoRA, it seems that all gradients will be "
                                           "'None', so lora_A and B will not be updated."),  # https://github.com/microsoft/LoRA/issues/120
    ("checkpoint-reentrant-input-no-grad", "No train when gradient_checkpointing is enabled again"),  # https://github.com/kohya-ss/sd-scripts/issues/91
    ("checkpoint-reentrant-input-no-grad", "PEFT LoRA transformer layers not trained when gradient_checkpointing=True — "
                                           "enable_input_require_grads() missing"),  # https://github.com/locuslab/open-unlearning/issues/178
    # sparse-layout-unsupported-op: sparse_grad / a sparse matrix named beside the failure, and the messages as titles.
    ("sparse-layout-unsupported-op", "However, I just tried some very simple examples, backward() cannot work if "
                                     "sparse_grad=True, why?"),  # https://discuss.pytorch.org/t/torch-gather-doesnt-work-as-expected/151740
    ("sparse-layout-unsupported-op", "确实是稀疏化的问题。主要的问题点在于在将张量分散到多个GPU上会涉及到稀疏矩阵相乘的问题，而torch不支持稀疏和"
                                     "密集（稀疏）矩阵相乘。"),  # https://github.com/xiangking/ark-nlp/issues/45
    ("sparse-layout-unsupported-op", "RuntimeError: sparse tensors do not have strides"),  # https://github.com/ZhenhHuang/LSEnet/issues/2
    ("sparse-layout-unsupported-op", "Could not run 'aten::native_batch_norm' with arguments from the 'SparseCUDA' backend. "
                                     "using batch_norm"),  # https://github.com/pytorch/pytorch/issues/85642
    # stale-torch-build-libs: one of torch's own libraries named without its path, or importing torch itself
    # failing with an undefined symbol.
    ("stale-torch-build-libs", "libtorch.so.1: undefined symbol:"),  # https://github.com/pytorch/pytorch/issues/10234
    ("stale-torch-build-libs", "ImportError (undefined symbol: ...LongTensor) when importing torch"),  # https://github.com/pytorch/pytorch/issues/2104
    # torchvision-video-backend-missing: a torchvision video function and PyAV missing, in either order.
    ("torchvision-video-backend-missing", "torchvision.io.read_video cannot read videos due to lack of PyAV"),  # https://github.com/Kaggle/docker-python/issues/727
    ("torchvision-video-backend-missing", "Still can not use \"torchvision.io.read_video\" after install \"av\" by \"pip install av\""),  # https://github.com/PyAV-Org/PyAV/issues/1006
    # run-to-run-nondeterminism: seeds fixed, and results that differ between runs.
    ("run-to-run-nondeterminism", "Even when I set the seeds, I get (slightly) different results on each run."),  # https://github.com/ikostrikov/pytorch-a2c-ppo-acktr-gail/issues/22
    ("run-to-run-nondeterminism", "I'm confused about that though I fixed the random seed as your config file did, I still got "
                                  "different results between different runs just like without setting seed."),  # https://github.com/graphdeeplearning/benchmarking-gnns/issues/7
    ("run-to-run-nondeterminism", "I seem to be having a hard time to get consistent results over several runs of the same "
                                  "experiment, despite seeding everything I can think of."),  # https://github.com/pytorch/pytorch/issues/11278
    # fork-after-threadpool-hang: a forking server (or a child process, or multiprocessing with fork) that hangs
    # beside torch, preloading named with torch, and the hung process's stack in torch's parallel-for.
    ("fork-after-threadpool-hang", "The difficulties that we are facing resumes on the fact that Gunicorn workers hang when "
                                   "trying to make an inference over a given model (that was loaded initially by the master "
                                   "process)."),  # https://github.com/benoitc/gunicorn/issues/2478
    ("fork-after-threadpool-hang", "Gunicorn preload flag not working with PyTorch library"),  # https://github.com/pytorch/pytorch/issues/49555
    ("fork-after-threadpool-hang", "Hangs at tensor.float() in child process only if tensor.float() is called in main "
                                   "process"),  # https://github.com/pytorch/pytorch/issues/89693
    ("fork-after-threadpool-hang", "Deadlock with multiprocessing (using fork) and unittest"),  # https://github.com/pytorch/pytorch/issues/17199
    ("fork-after-threadpool-hang", "4 at::internal::_paral"),  # https://github.com/benoitc/gunicorn/issues/2478
    # tvm-frontend-needs-traced-model: TVM's list of unconverted ops holding an op only a scripted graph has.
    ("tvm-frontend-needs-traced-model", "[Bug] [Frontend] [PyTorch] NotImplementedError: The following operators are not "
                                        "implemented: ['aten::conv2d', 'aten::format', 'aten::__is__', 'aten::dim', "
                                        "'prim::unchecked_cast']"),  # https://github.com/apache/tvm/issues/13636
    ("tvm-frontend-needs-traced-model", "NotImplementedError: The following operators are not implemented: ['aten::conv2d', "
                                        "'prim::unchecked_cast', 'aten::dim', 'aten::format', 'aten::warn', 'aten::__is__']"),  # https://github.com/apache/tvm/issues/13447
]

NOT_THESE = [
    # A NaN that is gone, and a loss named beside NaN-free words.
    ("nan-in-backward", "After lowering the learning rate to 1e-5 the loss no longer becomes nan."),
    ("nan-in-backward", "Loss of precision when I cast the model to fp16: accuracy drops by 2 points."),
    ("nan-in-backward", "loss_nan_guard = True  # skip the optimizer step when the loss is not finite"),
    ("nan-in-backward", "Validation loss equals the training loss after 3 epochs; is that expected?"),
    # A worker killed, a segfault, and the GPU's memory: other causes in the same words.
    ("host-oom-killed", "My RAM is 64GB. RuntimeError: DataLoader worker (pid 4242) is killed by signal: Segmentation fault."),
    ("host-oom-killed", "process killed by linux kernel( SIGNAL 11), 4GPU 64G RAM"),
    ("host-oom-killed", "GPU memory keeps increasing and the process gets killed after two epochs"),
    ("host-oom-killed", "How much RAM do I need to fine-tune a 7B model with LoRA?"),
    # GPU memory that grew once, or does not grow, or host RAM.
    ("gpu-memory-grows-retained-graph", "GPU memory increased after upgrading from torch 2.0 to 2.1 for the same batch size"),
    ("gpu-memory-grows-retained-graph", "GPU memory does not increase when I double the batch size, why?"),
    ("gpu-memory-grows-retained-graph", "CPU memory usage keeps increasing during training"),
    ("gpu-memory-grows-retained-graph", "Is there a way of increasing GPU memory usage to speed up training?"),
    # A DDP hang with no rank-0-only work named (a late or dead rank reads the same), and rank-0-only
    # work that does not hang.
    ("collective-under-rank-guard", "In the Multi-GPU DDP setting, model training hangs after validation at the end of "
                                    "the first training epoch"),  # https://github.com/Lightning-AI/pytorch-lightning/issues/9611
    ("collective-under-rank-guard", "How do I run validation only on rank 0 in DDP?"),
    ("collective-under-rank-guard", "Validation runs only on rank 0 and the training continues fine on all ranks"),
    # Disabling P2P asked about or not helping, a single RTX 4090, and DDP's constructor that worked.
    ("nccl-p2p-hang", "Is it safe to set NCCL_P2P_DISABLE=1 for performance?"),
    ("nccl-p2p-hang", "NCCL_P2P_DISABLE=1 did not help, still stuck in all_reduce"),
    ("nccl-p2p-hang", "Training on a single RTX 4090 hangs at epoch 3 with num_workers=8"),
    ("nccl-p2p-hang", "model = DDP(model, device_ids=[rank]) works on 2 GPUs but the loss differs from one GPU"),
    ("nccl-p2p-hang", "RTX 4090 is 2x faster than 3090 for DDP training"),
    # GPU utilisation high, only asked about, GPU memory (not utilisation) low, or a GPU idle in a hang.
    ("gpu-starved-by-data-loading", "GPU utilization stays at 99% during training but one epoch still takes 3 hours"),
    ("gpu-starved-by-data-loading", "How do I monitor GPU utilization during training?"),
    ("gpu-starved-by-data-loading", "GPU memory usage is low during training (4 GB of 24 GB), can I increase the batch size?"),
    ("gpu-starved-by-data-loading", "训练过程卡住的现象。具体表现为GPU利用率降为0,而显存和内存仍有充足空间。"),  # a hang, not the input pipeline
    # Memory held after a kill, a question about empty_cache, memory that was freed, or growth every step.
    ("caching-allocator-holds-memory", "After I killed the training with Ctrl+C, nvidia-smi still shows 20GB used on GPU 0."),
    ("caching-allocator-holds-memory", "Should I call torch.cuda.empty_cache() after every epoch to free GPU memory?"),
    ("caching-allocator-holds-memory", "del model frees the GPU memory and nvidia-smi shows 0 MiB afterwards"),
    ("caching-allocator-holds-memory", "GPU memory keeps increasing every iteration until CUDA out of memory."),
    # torchrun's notice, a question, and a CPU saturated by DataLoader workers.
    ("cpu-intraop-threads-misconfigured", "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to "
                                          "avoid your system being overloaded, please further tune the variable for optimal "
                                          "performance in your application as needed."),
    ("cpu-intraop-threads-misconfigured", "How many threads does torch.set_num_threads use by default?"),
    ("cpu-intraop-threads-misconfigured", "The training is slow with num_workers=8 and all CPU cores at 100%"),
    # eval() that is called, asked about, or done by a framework; dropout in training only.
    ("model-eval-mode-missing", "Should I call model.eval() before torch.no_grad()?"),
    ("model-eval-mode-missing", "Is dropout active during training only?"),
    ("model-eval-mode-missing", "The model is put in eval mode by the Trainer during validation."),
    ("model-eval-mode-missing", "Dropout is disabled during inference after model.eval(), so the outputs are deterministic."),
    # A question about the option, a gap in a plot, a hang at an epoch boundary, validation time.
    ("dataloader-worker-respawn-overhead", "Should I set persistent_workers=True?"),
    ("dataloader-worker-respawn-overhead", "There is a gap between epochs in the loss curve plot"),
    ("dataloader-worker-respawn-overhead", "Training hangs forever at the start of the second epoch with num_workers=8."),
    ("dataloader-worker-respawn-overhead", "Validation at the end of each epoch takes 10 minutes because the validation set is large."),
    # no_grad already in place, a question, growth in training, a validation metric.
    ("eval-without-no-grad", "Validation runs out of memory even with torch.no_grad() because the validation images are larger."),
    ("eval-without-no-grad", "Should I use model.eval() or torch.no_grad() for validation?"),
    ("eval-without-no-grad", "GPU memory keeps increasing every iteration during training until CUDA out of memory."),
    ("eval-without-no-grad", "How do I compute validation accuracy in PyTorch?"),
    ("model-eval-mode-missing", "Should I use model.eval() or torch.no_grad() for validation?"),
    # The right order, frozen weights on purpose, and weights not updating with no optimizer named (several causes).
    ("optimizer-not-tracking-model-params", "I create the optimizer after building the model; which learning rate should I use for AdamW?"),
    ("optimizer-not-tracking-model-params", "How to prevent weights of the backbone from being updated during fine-tuning?"),
    ("optimizer-not-tracking-model-params", "Weights are not getting updated"),
    # torch's own _C, a module that was found, mmcv's ops.
    ("extension-not-built", "torch._C is missing after I built PyTorch from source"),
    ("extension-not-built", "After running make.sh I found _ext.cpython-38-x86_64-linux-gnu.so in the DCNv2 folder."),
    ("extension-not-built", "mmcv._ext not found after pip install mmcv"),
    # Batch counts without a hang, a rank-0-only collective, the fix in place.
    ("uneven-batches-across-ranks-hang", "Why do I get a different number of batches per epoch with 2 GPUs than with 1 GPU?"),
    ("uneven-batches-across-ranks-hang", "Training hangs after validation at the end of the first epoch when the checkpoint is "
                                         "saved only on rank 0"),
    ("uneven-batches-across-ranks-hang", "With DistributedSampler(drop_last=True) every rank gets the same number of batches."),
    ("uneven-batches-across-ranks-hang", "各个卡的batch数量不一致，loss 曲线和单卡不同"),
    # A partial batch with no GPUs named, batch-size rules that are not a failure.
    ("last-batch-smaller-than-gpu-count", "The last batch is smaller than batch_size; should I set drop_last=True?"),
    ("last-batch-smaller-than-gpu-count", "The batch size should be a multiple of 8 for tensor cores to be used."),
    ("last-batch-smaller-than-gpu-count", "With 4 GPUs the effective batch size is 4 times the per-GPU batch size."),
    # Every epoch's first iteration (worker start-up), slow throughout, a cache, a question.
    ("cuda-warmup-first-iterations-slow", "Drastically increasing training time for the first iteration of each epoch"),  # https://github.com/open-mmlab/mmsegmentation/issues/132
    ("cuda-warmup-first-iterations-slow", "Training is slow on the GPU: each iteration takes 2 seconds during the whole epoch."),
    ("cuda-warmup-first-iterations-slow", "The first epoch is slow because the dataset is cached in memory afterwards."),
    ("cuda-warmup-first-iterations-slow", "How do I warm up the GPU before benchmarking?"),
    # mps faster, a question, CUDA slower.
    ("mps-slower-than-cpu", "On my M1 Max, mps is 5x faster than cpu for training ResNet-50."),
    ("mps-slower-than-cpu", "Is mps faster than cpu?"),
    ("mps-slower-than-cpu", "CUDA is slower than CPU for small batches"),
    # A tolerance question, a slowdown, CUDA against the CPU.
    ("mps-wrong-results", "Is it expected that mps and cpu outputs agree only to 1e-6?"),
    ("mps-wrong-results", "mps is slower than cpu"),
    ("mps-wrong-results", "Results on cuda and cpu are different"),
    # A collapsed scale, NaN named, and mixed precision asked about without an overflow.
    ("amp-loss-scale-overflow-normal", "Gradient overflow. Skipping step, loss scaler 0 reducing loss scale to 1.0e-05"),
    ("amp-loss-scale-overflow-normal", "fp16 training: the loss becomes nan right after a gradient overflow"),
    ("amp-loss-scale-overflow-normal", "Should I use apex or native amp for mixed precision training?"),
    ("amp-loss-scale-overflow-normal", "RuntimeError: value cannot be converted to type at::Half without overflow"),
    # A restored checkpoint named (checkpoint-on-cuda0), the healthy layout, a question, DataParallel.
    ("ddp-rank-tensors-on-cuda0", "DistributedDataParallel: resume training from a checkpoint results in additional "
                                  "processes on GPU 0"),  # https://github.com/pytorch/pytorch/issues/23138
    ("ddp-rank-tensors-on-cuda0", "nvidia-smi shows one python process on each of the 4 GPUs, each using 10 GB."),
    ("ddp-rank-tensors-on-cuda0", "How many processes should I start per GPU with torchrun?"),
    ("ddp-rank-tensors-on-cuda0", "With nn.DataParallel GPU 0 uses much more memory than the other GPUs."),
    # Every call slow, torch.compile's first epoch, a question about tracing, warm-up of the learning rate.
    ("torchscript-profiling-warmup", "My TorchScript model takes 200 ms per call on CPU, the same as eager mode, for every call."),
    ("torchscript-profiling-warmup", "The first epoch is very slow when using torch.compile"),  # https://github.com/pytorch/pytorch/issues/97783
    ("torchscript-profiling-warmup", "Should I use torch.jit.trace or torch.jit.script for a model with if statements?"),
    ("torchscript-profiling-warmup", "The first 5 epochs use a linear learning rate warmup, then cosine decay."),
    # The recompile limit's own message, a compile that failed, a speedup, TorchScript.
    ("compile-warmup-recompilation", "torch._dynamo hit config.cache_size_limit (8)"),
    ("compile-warmup-recompilation", "torch.compile fails with BackendCompilerFailed: backend='inductor' raised: CompilationError"),
    ("compile-warmup-recompilation", "After torch.compile the training is 1.4x faster than eager mode."),
    ("compile-warmup-recompilation", "The first 20 forward calls of my torch.jit.script model are very slow."),
    # Balanced memory, DDP's extra processes, a checkpoint restored onto GPU 0, a DataParallel question.
    ("dataparallel-gpu0-memory-imbalance", "With nn.DataParallel on 4 GPUs every GPU uses about 9 GB of memory."),
    ("dataparallel-gpu0-memory-imbalance", "There are 7 additional processes on GPU0, each requires roughly 500+ Mb of GPU memory."),
    ("dataparallel-gpu0-memory-imbalance", "When I resume from a .pt file the memory usage of GPU0 is significantly higher than other GPUs."),
    ("dataparallel-gpu0-memory-imbalance", "Should I use DataParallel or DistributedDataParallel for 2 GPUs?"),
    # A forgotten eval(), a question about the difference, eval mode that helps.
    ("batchnorm-train-eval-discrepancy", "forgot model.eval() before validation, accuracy is lower at test time"),
    ("batchnorm-train-eval-discrepancy", "What is the difference between model.eval() and model.train()?"),
    ("batchnorm-train-eval-discrepancy", "After switching to model.eval() the validation accuracy improved from 91% to 93%."),
    # A question, warm restarts that are the schedule, a resume that works, loss rising after lr decay.
    ("lr-scheduler-state-not-resumed", "How do I resume training from a checkpoint? Should I save the optimizer too?"),
    ("lr-scheduler-state-not-resumed", "With CosineAnnealingWarmRestarts the learning rate restarts from the initial value every T_0 epochs, is that expected?"),
    ("lr-scheduler-state-not-resumed", "Resuming training works fine, the learning rate continues from 3e-5."),
    ("lr-scheduler-state-not-resumed", "The loss increases after the learning rate decays at epoch 30."),
    # A question about the order, accumulation done on purpose, another error about the method.
    ("zero-grad-missing", "Should I call optimizer.zero_grad() before loss.backward() or at the start of the loop?"),
    ("zero-grad-missing", "With gradient accumulation I call zero_grad() only every 4 steps and divide the loss by 4."),
    ("zero-grad-missing", "AttributeError: 'Adam' object has no attribute 'zero_grad'"),
    ("zero-grad-missing", "梯度清零的作用是什么"),
    # no_grad asked about (the answer was no), a detach on purpose, the error message itself, a question.
    ("graph-cut-by-detach", "There are a lot of torch.no_grad() used in the code. Will this cause the gradient to be truncated, "
                            "making it impossible to update the weights?"),  # https://github.com/JunMa11/SegLossOdyssey/issues/17
    ("graph-cut-by-detach", "We detach fake so that the generator is not updated when training the discriminator."),
    ("graph-cut-by-detach", "RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn"),
    ("graph-cut-by-detach", "Why is detach necessary in this line?"),
    # The mode passed through, Monte Carlo dropout on purpose, nn.Dropout switched off, a question.
    ("functional-dropout-always-on", "out = F.dropout(out, p=0.1, training=self.training)"),
    ("functional-dropout-always-on", "I use MC dropout at test time on purpose: F.dropout(x, training=True)"),
    ("functional-dropout-always-on", "Dropout is disabled during inference after model.eval(), so the outputs are deterministic."),
    ("functional-dropout-always-on", "What is the difference between nn.Dropout and F.dropout?"),
    ("batchnorm-train-eval-discrepancy", "In fact, F.dropout(xx, p=0.5) works both in model's train mode and eval mode. You should "
                                         "write F.dropout(xx,  p=0.5, training=self.training) or when you excute a cell more than "
                                         "one time, the result is different."),  # dropout's difference: https://github.com/delip/PyTorchNLPBook/issues/28
    # Other nested-tensor and TransformerEncoder warnings, and the argument asked about without a warning.
    ("transformer-nested-tensor-warning", "UserWarning: The PyTorch API of nested tensors is in prototype stage and will change in the near future."),
    ("transformer-nested-tensor-warning", "TransformerEncoder warns: Support for mismatched src_key_padding_mask and mask is deprecated. Use same type for both instead."),
    ("transformer-nested-tensor-warning", "What does enable_nested_tensor do in nn.TransformerEncoder, and is it faster with padding?"),
    # pkg_resources deprecated but present, its packaging attribute gone (the other entry), a submodule, a pin.
    ("pkg-resources-removed", "UserWarning: pkg_resources is deprecated as an API. See https://setuptools.pypa.io/en/latest/pkg_resources.html. "
                              "The pkg_resources package is slated for removal as early as 2025-11-30. Refrain from using this "
                              "package or pin to Setuptools<81."),
    ("pkg-resources-removed", "ImportError: cannot import name 'packaging' from 'pkg_resources'"),
    ("pkg-resources-removed", "Replaced deprecated pkg_resources.packaging with packaging module"),  # https://github.com/pytorch/pytorch/pull/113023
    ("pkg-resources-removed", "ModuleNotFoundError: No module named 'pkg_resources.py2_warn'"),
    # hipBLASLt supported, another backend's notice, missing Tensile kernels (rocm-gfx-arch-unsupported).
    ("rocm-hipblaslt-unsupported-arch", "hipBLASLt is supported on gfx942 (MI300X), so torch uses it by default there."),
    ("rocm-hipblaslt-unsupported-arch", "UserWarning: Attempting to use CK on an unsupported architecture! Cannot set backend to CK"),
    ("rocm-hipblaslt-unsupported-arch", "rocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat: No such file or "
                                        "directory for GPU arch : gfx1103"),
    # A hang, multi-GPU that scales, a question, DataParallel's memory on GPU 0.
    ("ddp-communication-overhead", "Multi-GPU training with DDP hangs at the first iteration, it works on a single GPU."),
    ("ddp-communication-overhead", "DDP on 4 GPUs is 3.6x faster than a single GPU for our ResNet-50 training."),
    ("ddp-communication-overhead", "Should I use DataParallel or DistributedDataParallel for 2 GPUs?"),
    ("ddp-communication-overhead", "With nn.DataParallel GPU 0 runs out of memory while the other GPUs are half empty."),
    ("ddp-communication-overhead", "多卡训练卡住不动，单卡正常"),
    ("ddp-communication-overhead", "Things slow down when I use DDP"),  # a reboot fixed it: https://github.com/yzhangcs/parser/issues/55
    # Slow only while compiling, one graph, a compile error, a break that is gone.
    ("compile-graph-breaks", "With torch.compile the first epoch takes 10 minutes, the later epochs are faster than eager."),
    ("compile-graph-breaks", "Graph Count: 1\nGraph Break Count: 0\nOp Count: 57"),
    ("compile-graph-breaks", "torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised: CompilationError"),
    ("compile-graph-breaks", "torch.compile is slower than eager mode for a single cross_entropy call."),
    # Checkpointing that works (memory down, slower), a model checkpoint file, a question, an unsupported model.
    ("checkpoint-reentrant-input-no-grad", "With gradient checkpointing enabled the memory usage dropped from 40GB to 18GB but "
                                           "each step is about 30% slower."),
    ("checkpoint-reentrant-input-no-grad", "After loading the checkpoint the loss is much higher than before, is the optimizer "
                                           "state not restored?"),
    ("checkpoint-reentrant-input-no-grad", "Gradient checkpointing should have no functional impact"),
    ("checkpoint-reentrant-input-no-grad", "ValueError: GPT2Model does not support gradient checkpointing."),
    # A question about the flag, sparse embeddings set up with their optimizer, MPS and quantized backends.
    ("sparse-layout-unsupported-op", "What does sparse_grad=True do in torch.gather?"),
    ("sparse-layout-unsupported-op", "emb = nn.Embedding(1000, 64, sparse=True)  # trained with SparseAdam"),
    ("sparse-layout-unsupported-op", "NotImplementedError: Could not run 'aten::_slow_conv2d_forward' with arguments from the "
                                     "'MPS' backend."),
    ("sparse-layout-unsupported-op", "NotImplementedError: Could not run 'aten::add.out' with arguments from the 'QuantizedCPU' "
                                     "backend. 'aten::add.out' is only available for these backends: [CPU, CUDA, SparseCPU, SparseCUDA]."),
    ("sparse-layout-unsupported-op", "稀疏矩阵乘法在 PyTorch 里怎么写？"),
    # A third-party extension after a working import torch, torchaudio, a standalone libtorch's path.
    ("stale-torch-build-libs", "import torch works fine, but importing torch_scatter fails with undefined symbol: _ZN3c105ErrorC1ENS_14SourceLocationE"),
    ("stale-torch-build-libs", "undefined symbol when importing torchaudio after upgrading torch"),
    ("stale-torch-build-libs", "ImportError: /opt/libtorch/lib/libc10.so: undefined symbol: _ZN3c106detail14torchCheckFailEPKcS2_jS2_"),
    ("stale-torch-build-libs", "libtorchvision.so: undefined symbol: _ZN3c1017RegisterOperatorsD1Ev"),
    # A video question, PyAV installed and a wrong path, torchvision's own ops.
    ("torchvision-video-backend-missing", "How do I read only the first 16 frames with torchvision.io.read_video?"),
    ("torchvision-video-backend-missing", "error PyAV av.error.FileNotFoundError: [Errno 2] No such file or directory"),  # https://github.com/wyhsirius/LIA/issues/2
    ("torchvision-video-backend-missing", "torchvision.io.read_video returns an empty tensor for a video of 1 second"),
    # Seeds that work, a question, dropout within one process, the deterministic-mode error.
    ("run-to-run-nondeterminism", "After setting the seed and cudnn.deterministic = True I get exactly the same loss on every run."),
    ("run-to-run-nondeterminism", "How do I set the random seed so that different runs use different data splits?"),
    ("run-to-run-nondeterminism", "The same input gives a different output every time I call the model, even with a fixed seed."),
    ("run-to-run-nondeterminism", "RuntimeError: index_add_cuda_ does not have a deterministic implementation, but you set "
                                  "'torch.use_deterministic_algorithms(True)'."),
    ("run-to-run-nondeterminism", "我想每次运行用不同的随机种子来做多次实验"),
    # A forking server with CUDA (its own error), a DataLoader hang, a preload question, a slow request, a
    # c10 backtrace through the same parallel-for, a child process that hangs outside torch.
    ("fork-after-threadpool-hang", "gunicorn --preload: RuntimeError: Cannot re-initialize CUDA in forked subprocess"),
    ("fork-after-threadpool-hang", "Training hangs at the end of the first epoch with num_workers=8 and a model in the "
                                   "main process"),
    ("fork-after-threadpool-hang", "Does gunicorn --preload share the PyTorch model memory between workers?"),
    ("fork-after-threadpool-hang", "[2024-03-01 10:00:00 +0000] [7] [CRITICAL] WORKER TIMEOUT (pid:12)"),
    ("fork-after-threadpool-hang", "frame #4: at::internal::invoke_parallel(long, long, long, std::function<void (long, "
                                   "long)> const&) + 0x5c (0x7f2a in libtorch_cpu.so)"),
    ("fork-after-threadpool-hang", "subprocess.run(['ffmpeg', ...]) hangs in the child process when stdout is a full pipe"),
    ("fork-after-threadpool-hang", "After switching to gunicorn --preload the model is loaded once and the workers no "
                                   "longer hang."),
    # Plain tensor ops only (a converter TVM really lacks, also in TVM-based converters), and a question.
    ("tvm-frontend-needs-traced-model", "E NotImplementedError: The following operators are not implemented: ['aten::gt', "
                                        "'aten::index_put_', 'aten::lt', 'aten::zeros_like', 'aten::rsub', 'aten::abs', "
                                        "'aten::gather', 'aten::remainder', 'aten::min']"),  # https://github.com/rockchip-linux/rknn-toolkit/issues/233
    ("tvm-frontend-needs-traced-model", "NotImplementedError: The following operators are not implemented: ['aten::upsample_bicubic2d']"),
    ("tvm-frontend-needs-traced-model", "Does relay.frontend.from_pytorch accept a model made with torch.jit.script?"),
]

test_wording_names_its_cause_first, test_close_text_is_not_this_cause = wording_tests(WORDINGS, NOT_THESE)
