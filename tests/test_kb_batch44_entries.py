"""Session 19's new entries told in words (batches 44-45), each wording naming its cause first and each close text
not naming it:
- a GeForce GTX 16xx named with NaN or black / green images (gtx16xx-fp16-broken), and DistributedSampler's order that
  never changes because set_epoch() is missing (distributed-sampler-set-epoch-missing); close: fp16 only slow on the
  card, a black screen of the display, NaN on an RTX card, set_epoch called, a plain sampler's order;
- torch 2.9's LeafSpec deprecation printed by a library (pytree-leafspec-deprecation-warning), the triton.ops package
  Triton 3.2 removed (triton-ops-removed), a torch.save checkpoint read by safetensors or the reverse
  (torch-pickle-read-as-safetensors), conda failing to solve pytorch into an existing environment (conda-env-conflict);
  close: the older _register_pytree_node warning, Triton missing altogether, a damaged .safetensors file, conda's
  Python-version report, an install that worked;
- GPU memory filling over an evaluation because predictions, logits or metric states stay on the GPU with no graph
  kept (predictions-accumulated-on-gpu), ranked above gpu-memory-grows-retained-graph, eval-without-no-grad and
  cuda-out-of-memory; close: a loss kept with its graph, a validation loop without no_grad, host RAM,
  eval_accumulation_steps or torchmetrics with no memory problem."""

from __future__ import annotations

from kb_wordings import wording_tests

WORDINGS = [
    # The card and the outcome on one line.
    ("gtx16xx-fp16-broken", "NaN loss on 1660 super"),  # https://github.com/dreamgaussian/dreamgaussian/issues/36
    ("gtx16xx-fp16-broken", "My GTX 1650 produces black images in half precision, fp32 is fine."),
    ("gtx16xx-fp16-broken", "fp16 inference gives NaN on a GeForce GTX 1660 Ti but works on an RTX 2070"),
    ("gtx16xx-fp16-broken", "GTX 1660 Super 跑半精度生成黑图"),
    # AUTOMATIC1111's NaN check (fp16-inference-overflow's message) with the card named: the card's reading first.
    ("gtx16xx-fp16-broken", "GPU: NVIDIA GeForce GTX 1660 Ti\nmodules.devices.NansException: A tensor with all NaNs was "
                            "produced in Unet. This could be either because there's not enough precision to represent "
                            "the picture, or because your video card does not support half type."),
    # The docs' warning quoted, set_epoch said to be needed or missing, the same order per epoch.
    ("distributed-sampler-set-epoch-missing", "In distributed mode, calling the set_epoch() method at the beginning of "
                                              "each epoch before creating the DataLoader iterator is necessary to make "
                                              "shuffling work properly across multiple epochs. Otherwise, the same "
                                              "ordering will be always used."),  # https://github.com/Spijkervet/SimCLR/pull/26
    ("distributed-sampler-set-epoch-missing", "From [Pytoch docs](https://pytorch.org/docs/stable/data.html#torch.utils.data.distributed.DistributedSampler), "
                                              "in order to achieve this, `set_epoch` must be called on the sampler."),  # https://github.com/yangkky/distributed_tutorial/issues/5
    ("distributed-sampler-set-epoch-missing", "Is there any reason that we have to use `set_epoch` method to set a new "
                                              "seed? If we don't call it, the order for each epoch will be **the same**!"),  # https://github.com/pytorch/pytorch/issues/11324
    ("distributed-sampler-set-epoch-missing", "I forgot to call sampler.set_epoch(epoch), so every epoch had the same batches."),
    ("distributed-sampler-set-epoch-missing", "训练循环里没有调用 train_sampler.set_epoch，导致每个 epoch 顺序都一样"),
    ("pytree-leafspec-deprecation-warning", "The LeafSpec deprecation warning floods my training log since torch 2.9"),
    ("pytree-leafspec-deprecation-warning", "升级 torch 后 LeafSpec 已弃用的警告一直刷屏"),
    ("triton-ops-removed", "triton.ops was removed in Triton 3.2, so the old bitsandbytes no longer imports"),
    ("triton-ops-removed", "importing bitsandbytes results in \"No module named 'triton.ops'\""),
    ("torch-pickle-read-as-safetensors", "I renamed model.ckpt to model.safetensors and now the loader fails"),
    ("torch-pickle-read-as-safetensors", "SafetensorError: Error while deserializing header: HeaderTooLarge when loading pytorch_model.bin"),
    ("conda-env-conflict", "conda install pytorch torchvision fails with UnsatisfiableError in my base environment"),
    ("conda-env-conflict", "在 base 环境里用 conda 安装 pytorch 报包冲突"),
    # Trainer's remedy named beside the OOM or the move to the CPU.
    ("predictions-accumulated-on-gpu", "Set eval accumulation steps to avoid OOM when evaluating encoders"),  # https://github.com/EuroEval/EuroEval/pull/973
    ("predictions-accumulated-on-gpu", "Leaving `eval_accumilation_steps=None` would cause GPU OOM, so setting "
                                       "`eval_accumilation_steps` to a valid number (I have tried 1 and 8)."),  # https://github.com/huggingface/transformers/issues/25313
    ("predictions-accumulated-on-gpu", "During evaluation, move the predictions from the `eval_accumulation_steps` to CPU "
                                       "before merging them to avoid an out-of-memory error."),  # https://github.com/huggingface/transformers/pull/21845
    # Logits or predictions said to be accumulated on the GPU.
    ("predictions-accumulated-on-gpu", "When the `Trainer` `compute_metrics` are set, during evaluation the logits are "
                                       "accumulated (some in GPU memory, for `args.eval_accumulation_steps` steps; all in RAM)."),  # https://github.com/huggingface/transformers/issues/15466
    ("predictions-accumulated-on-gpu", "accumulated all predictions as **GPU tensors** before copying to CPU. For large "
                                       "datasets, this caused GPU memory to grow unbounded and eventually OOM."),  # https://github.com/Yasas1994/Jaeger/pull/30
    ("predictions-accumulated-on-gpu", "As described in #2224, tensors collected in `on_predict_batch_end` were staying on "
                                       "the GPU between batches causing VRAM to grow linearly across the inference run."),  # https://github.com/sktime/pytorch-forecasting/pull/2228
    # torchmetrics named with the leak.
    ("predictions-accumulated-on-gpu", "\"[BUG]: Torchmetrics memory leaks causing OOMs\""),  # https://github.com/NRCan/geo-deep-learning/issues/582
    # Written: the growth with detach and no_grad already in place, and in Chinese.
    ("predictions-accumulated-on-gpu", "GPU memory keeps growing during prediction even with torch.no_grad():\n"
                                       "    preds.append(out.detach())"),
    ("predictions-accumulated-on-gpu", "验证时把每个batch的预测结果累积在显存里，显存越来越大最后OOM"),
    ("predictions-accumulated-on-gpu", "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n"
                                       "we set eval_accumulation_steps=20 and the evaluation no longer runs out of memory"),
]

NOT_THESE = [
    # fp16 on the card that works, only slowly: fp16-no-speedup-without-tensor-cores
    ("gtx16xx-fp16-broken", "AMP training on my GTX 1660 Ti is slower than fp32, no tensor cores"),
    # the display going dark is not an image made of NaN
    ("gtx16xx-fp16-broken", "The monitor goes to a black screen during training on my GTX 1650"),
    # NaN in fp16 on another card
    ("gtx16xx-fp16-broken", "fp16 inference returns NaN on my RTX 3090, bf16 works"),
    # set_epoch called as it should be
    ("distributed-sampler-set-epoch-missing", "sampler.set_epoch(epoch) is called at the beginning of every epoch"),
    # a plain sampler, one process: the generator's seed, not DistributedSampler
    ("distributed-sampler-set-epoch-missing", "RandomSampler gives the same order every epoch after torch.manual_seed(0)"),
    # DistributedSampler padding the last batch with repeated samples
    ("distributed-sampler-set-epoch-missing", "DistributedSampler adds duplicate samples so the dataset divides evenly "
                                              "between ranks, which skews my validation metrics"),
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
    # the loss kept with its graph: gpu-memory-grows-retained-graph
    ("predictions-accumulated-on-gpu", "GPU memory keeps increasing every iteration because I do total_loss += loss"),
    ("predictions-accumulated-on-gpu", "losses.append(loss) keeps the graph, so GPU memory grows until CUDA out of memory"),
    # a validation loop without no_grad: eval-without-no-grad
    ("predictions-accumulated-on-gpu", "CUDA out of memory during validation, I forgot torch.no_grad()"),
    # host RAM, not the GPU
    ("predictions-accumulated-on-gpu", "CPU RAM usage keeps growing during evaluation"),
    # the remedies and the library named with no memory problem
    ("predictions-accumulated-on-gpu", "Should I set eval_accumulation_steps when I use compute_metrics?"),
    ("predictions-accumulated-on-gpu", "torchmetrics Accuracy returns a different value than sklearn accuracy_score"),
    # the model, not the results, moved to the CPU
    ("predictions-accumulated-on-gpu", "I moved the model to the CPU to save GPU memory and inference became slow"),
    # predictions that are wrong, not stored
    ("predictions-accumulated-on-gpu", "预测结果和真实标签不一致，显存占用正常"),
]

test_wording_names_its_cause_first, test_close_text_is_not_this_cause = wording_tests(WORDINGS, NOT_THESE)
