"""Batch 29's dev classes, mostly issue titles: a run stuck while the next batch is fetched
(dataloader-hang), "Unexpected keys in state_dict" retold without "(s)", BrokenPipeError on
Windows (spawned DataLoader workers), and a Python version said not to support torch.compile. Each
wording names its cause first; each close text (a collective's wait, keys with a "module." prefix, a
broken pipe of a web server, torch.compile said to work) does not name it."""

from __future__ import annotations

from kb_wordings import wording_tests

WORDINGS = [
    ("dataloader-hang", "Train_drnet get stuck indefinitely while getting training batch"),
    ("dataloader-hang", "training hangs when fetching the next batch after a few hundred iterations"),
    ("state-dict-key-mismatch", "Unexpected keys in state_dict"),
    ("state-dict-key-mismatch", "Missing keys in state_dict when loading the pretrained weights"),
    ("dataloader-spawn-pickling", "BrokenPipeError: [Errno 32] Broken pipe - Running course-nlp notebook on Windows"),
    ("compile-unsupported-platform", "Recent PR on LRUs fail the CI on Python 3.13 because it does not support "
                                     "torch.dynamo i.e. `torch.compile`."),
]

NOT_THESE = [
    # a collective's wait is not the DataLoader's
    ("dataloader-hang", "DDP training stuck while waiting for the next batch on rank 1 in all_reduce"),
    # keys with the DataParallel prefix: another entry
    ("state-dict-key-mismatch", "Unexpected keys in state_dict: \"module.conv1.weight\", \"module.bn1.bias\""),
    # a web server's broken pipe, nothing of Windows
    ("dataloader-spawn-pickling", "BrokenPipeError: [Errno 32] Broken pipe when the client closes the connection"),
    # torch.compile said to work
    ("compile-unsupported-platform", "On Python 3.12 torch.compile works fine and gives a 1.5x speedup"),
]

test_wording_names_its_cause_first, test_close_text_is_not_this_cause = wording_tests(WORDINGS, NOT_THESE)
