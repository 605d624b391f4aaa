"""Batch 28's dev classes, symptoms told in words: `model.eval()` said missing in the passive
("was not called", "does not invoke any model.eval()"); num_workers > 0 slow on Windows or macOS
(the workers start again for every iterator, not a pickling failure); memory growing "as the
training continues" without the GPU named. Each wording names its cause first; each close text
(advice to call eval(), a pickling error on Windows, host RAM growing with workers, memory that
stays flat) does not name it."""

from __future__ import annotations

from kb_wordings import wording_tests

WORDINGS = [
    ("model-eval-mode-missing", "It seems that it is because during the evaluation within training, `model.eval()` "
                                "was not called first? This would mean the batch norm stats are updated"),
    ("model-eval-mode-missing", "the `get_test_accuracy` function does not invoke any `model.eval()`"),
    ("dataloader-worker-respawn-overhead", "In windows, DataLoader with num_workers > 0 is extremely slow "
                                           "(50 times slower)"),
    ("dataloader-worker-respawn-overhead", "On macOS setting num_workers=4 makes every epoch much slower than "
                                           "num_workers=0"),
    ("gpu-memory-grows-retained-graph", "As the training continues, the memory it needs increased, and stopped "
                                        "when it reported out of memory."),
    ("gpu-memory-grows-retained-graph", "The memory increased all the time as training proceeds until CUDA OOM"),
]

NOT_THESE = [
    # advice to call it is not a report of it missing
    ("model-eval-mode-missing", "Make sure model.eval() is called before you export the model"),
    # a pickling failure on Windows is spawn-pickling, not slowness
    ("dataloader-worker-respawn-overhead", "On Windows with num_workers=2: AttributeError: Can't pickle local object "
                                           "'main.<locals>.<lambda>'"),
    # slowness on Windows is not a pickling failure
    ("dataloader-spawn-pickling", "In windows, DataLoader with num_workers > 0 is extremely slow"),
    # host RAM growing with workers is another cause
    ("gpu-memory-grows-retained-graph", "As the training continues, the RAM used by the dataloader workers "
                                        "increased until the process was killed"),
    # memory that stays flat
    ("gpu-memory-grows-retained-graph", "As the training continues the memory stays at 10 GB, but the loss "
                                        "does not decrease"),
]

test_wording_names_its_cause_first, test_close_text_is_not_this_cause = wording_tests(WORDINGS, NOT_THESE)
