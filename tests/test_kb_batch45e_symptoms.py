"""predictions-accumulated-on-gpu told in words: GPU memory that fills over an evaluation or a prediction
run (or epoch after epoch) because each batch's predictions, logits or metric states are kept on the
GPU, with no autograd graph kept (Hugging Face Trainer's evaluation loop without eval_accumulation_steps,
torchmetrics list states, a loop that appends detached outputs without .cpu()).
Each wording names this cause first, above gpu-memory-grows-retained-graph, eval-without-no-grad and
cuda-out-of-memory that the same text also reads; each close text (a loss kept with its graph, a
validation loop without no_grad, host RAM, eval_accumulation_steps or torchmetrics with no memory
problem, a model moved to the CPU) does not name it."""

from __future__ import annotations

from kb_wordings import wording_tests

WORDINGS = [
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
