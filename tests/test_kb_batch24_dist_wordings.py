"""Wordings batch 24's distributed dev texts showed, each a class: a warning about the process group retold
in words (a PR's "must call destroy_process_group() before process exit"), a Chinese or English question
whether Windows can use NCCL, and torch's refusal of backend='mpi' (no binary build has MPI). Each real text
(URL beside it) names its cause first; each close text does not name it."""

from __future__ import annotations

from kb_wordings import wording_tests

WORDINGS = [
    ("process-group-not-destroyed", "Address the warning like the following when running in distributed mode:\n\n"
                                    "```\nWarning: must call destroy_process_group() before process exit\n```"),  # https://github.com/meta-pytorch/tritonbench/pull/1067
    ("process-group-not-destroyed", "you should call dist.destroy_process_group() before the script exits"),
    ("nccl-backend-unavailable", "是不是Windows不能用NCCL的backend呢？如果是这样，请问Windows 想用多GPU怎么解决呢？感谢！"),  # https://github.com/tczhangzhi/pytorch-distributed/issues/15
    ("nccl-backend-unavailable", "Windows can not use NCCL, so what backend should DDP use?"),
    ("nccl-backend-unavailable", "RuntimeError: Distributed package doesn't have MPI built in. MPI is only included if you "
                                 "build PyTorch from source on a host that has MPI installed."),  # https://github.com/open-ce/open-ce/issues/376
]

NOT_THESE = [
    # the call is advice at the end of training, no exit warning
    ("process-group-not-destroyed", "Remember to call destroy_process_group() at the end of training."),
    # NCCL named on Linux, Windows only for a viewer
    ("nccl-backend-unavailable", "I used NCCL on Linux and Windows ran the viewer"),
    ("nccl-backend-unavailable", "On Windows, the NCCL test passes"),
]

test_wording_names_its_cause_first, test_close_text_is_not_this_cause = wording_tests(WORDINGS, NOT_THESE)
