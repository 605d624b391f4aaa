"""A hung job leaves no error, only a stack: a py-spy or faulthandler dump, or the traceback of the
Ctrl-C that ended it. Where that stack waits names the cause (the DataLoader's result queue, the
join of its workers, an NCCL collective); a traceback that passes the same frames on its way to a
real error must keep that error's answer."""

from __future__ import annotations

import pytest

from torchdoctor.kb import explain

SITE = "/opt/conda/lib/python3.10/site-packages"
LIB = "/opt/conda/lib/python3.10"

PYSPY_LOADER = f'''Process 41872: python train.py --config configs/base.yaml
Python v3.10.14 (/opt/conda/bin/python3.10)

Thread 41872 (idle): "MainThread"
    select ({LIB}/selectors.py:416)
    wait ({LIB}/multiprocessing/connection.py:931)
    _poll ({LIB}/multiprocessing/connection.py:424)
    poll ({LIB}/multiprocessing/connection.py:257)
    get ({LIB}/multiprocessing/queues.py:113)
    _try_get_data ({SITE}/torch/utils/data/dataloader.py:1133)
    _get_data ({SITE}/torch/utils/data/dataloader.py:1294)
    _next_data ({SITE}/torch/utils/data/dataloader.py:1332)
    __next__ ({SITE}/torch/utils/data/dataloader.py:631)
    train_one_epoch (train.py:88)
    main (train.py:142)
    <module> (train.py:150)
'''

FAULTHANDLER_LOADER = f'''Timeout (0:10:00)!
Thread 0x00007f9a4c1ff700 (most recent call first):
  File "{LIB}/threading.py", line 324 in wait
  File "{LIB}/queue.py", line 180 in get
  File "{SITE}/torch/utils/data/dataloader.py", line 1133 in _try_get_data
  File "{SITE}/torch/utils/data/dataloader.py", line 1294 in _get_data
  File "{SITE}/torch/utils/data/dataloader.py", line 1332 in _next_data
  File "{SITE}/torch/utils/data/dataloader.py", line 631 in __next__
  File "train.py", line 88 in train_one_epoch
'''

CTRL_C_PIN_MEMORY_JOIN = f'''^CTraceback (most recent call last):
  File "train.py", line 97, in train_one_epoch
    for step, batch in enumerate(loader):
  File "{SITE}/torch/utils/data/dataloader.py", line 631, in __next__
    data = self._next_data()
  File "{SITE}/torch/utils/data/dataloader.py", line 1320, in _next_data
    self._shutdown_workers()
  File "{SITE}/torch/utils/data/dataloader.py", line 1443, in _shutdown_workers
    self._pin_memory_thread.join()
  File "{LIB}/threading.py", line 1096, in join
    self._wait_for_tstate_lock()
  File "{LIB}/threading.py", line 1116, in _wait_for_tstate_lock
    if lock.acquire(block, timeout):
KeyboardInterrupt
'''

PYSPY_RANK_IN_BARRIER = f'''Thread 7731 (idle): "MainThread"
    barrier ({SITE}/torch/distributed/distributed_c10d.py:4159)
    wrapper ({SITE}/torch/distributed/c10d_logger.py:83)
    save_checkpoint (train.py:61)
    main (train.py:140)
    <module> (train.py:150)
'''

CTRL_C_IN_ALL_REDUCE = f'''^CTraceback (most recent call last):
  File "train.py", line 118, in main
    dist.all_reduce(loss_sum)
  File "{SITE}/torch/distributed/c10d_logger.py", line 83, in wrapper
    return func(*args, **kwargs)
  File "{SITE}/torch/distributed/distributed_c10d.py", line 2501, in all_reduce
    work.wait()
KeyboardInterrupt
'''


# faulthandler.dump_traceback_later's dump as an issue shows it: the thread line left out and the
# frames' indentation lost.
FAULTHANDLER_FLAT = "\n".join(line.strip() for line in FAULTHANDLER_LOADER.splitlines() if "Thread 0x" not in line)

FAULTHANDLER_BATON_FLAT = f'''Timeout (0:02:00)!
File "{SITE}/torch/utils/file_baton.py", line 50 in wait
File "{SITE}/torch/utils/cpp_extension.py", line 2156 in _jit_compile
File "{SITE}/torch/utils/cpp_extension.py", line 1681 in load
File "{SITE}/myext/__init__.py", line 105 in <module>
'''


@pytest.mark.parametrize("text,cause", [
    (PYSPY_LOADER, "dataloader-hang"),
    (FAULTHANDLER_LOADER, "dataloader-hang"),
    (FAULTHANDLER_FLAT, "dataloader-hang"),
    (FAULTHANDLER_BATON_FLAT, "extension-stale-lock"),
    (CTRL_C_PIN_MEMORY_JOIN, "dataloader-hang"),
    (PYSPY_RANK_IN_BARRIER, "nccl-collective-timeout"),
    (CTRL_C_IN_ALL_REDUCE, "nccl-collective-timeout"),
], ids=["py-spy-loader", "faulthandler-loader", "faulthandler-flat", "faulthandler-baton-flat", "ctrl-c-pin-memory-join",
         "py-spy-barrier", "ctrl-c-all-reduce"])
def test_where_a_hung_stack_waits_names_the_cause(text, cause):
    matches = explain(text)
    assert matches and matches[0].id == cause, [(m.id, round(m.confidence, 2)) for m in matches]


# A worker that died is reported from inside the same wait, through the loader's SIGCHLD handler:
# that is the dead worker's answer, not a hang.
WORKER_KILLED_THROUGH_THE_WAIT = f'''Traceback (most recent call last):
  File "{SITE}/torch/utils/data/dataloader.py", line 1133, in _try_get_data
    data = self._data_queue.get(timeout=timeout)
  File "{LIB}/multiprocessing/queues.py", line 113, in get
    if not self._poll(timeout):
  File "{LIB}/multiprocessing/connection.py", line 257, in poll
    return self._poll(timeout)
  File "{LIB}/multiprocessing/connection.py", line 424, in _poll
    r = wait([self], timeout)
  File "{LIB}/multiprocessing/connection.py", line 931, in wait
    ready = selector.select(timeout)
  File "{LIB}/selectors.py", line 416, in select
    fd_event_list = self._selector.poll(timeout)
  File "{SITE}/torch/utils/data/_utils/signal_handling.py", line 66, in handler
    _error_if_any_worker_fails()
RuntimeError: DataLoader worker (pid 2231) is killed by signal: Killed.
'''

# An NCCL failure raised by a collective passes through the same frames, outermost first.
NCCL_ERROR_IN_ALL_REDUCE = f'''Traceback (most recent call last):
  File "train.py", line 118, in main
    dist.all_reduce(loss_sum)
  File "{SITE}/torch/distributed/c10d_logger.py", line 83, in wrapper
    return func(*args, **kwargs)
  File "{SITE}/torch/distributed/distributed_c10d.py", line 2501, in all_reduce
    work = group.allreduce([tensor], opts)
torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.20.5
'''


def test_a_dead_worker_is_not_read_as_a_hang():
    ids = [m.id for m in explain(WORKER_KILLED_THROUGH_THE_WAIT)]
    assert ids[0] == "dataloader-worker-killed" and "dataloader-hang" not in ids, ids


def test_an_nccl_error_in_a_collective_is_not_read_as_a_timeout():
    ids = [m.id for m in explain(NCCL_ERROR_IN_ALL_REDUCE)]
    assert ids and ids[0] == "nccl-error" and "nccl-collective-timeout" not in ids, ids


# No stack at all: the failure told in words, as people write it in an issue title or a forum post.
@pytest.mark.parametrize("text,cause", [
    ("Training hangs at the end of the first epoch with num_workers=8, works with num_workers=0.", "dataloader-hang"),
    ("训练到第一个epoch结束时卡住，num_workers=8", "dataloader-hang"),
    ("GPU memory keeps growing every iteration until CUDA out of memory.", "gpu-memory-grows-retained-graph"),
    ("显存一直增长，跑几个 epoch 之后就 CUDA out of memory", "gpu-memory-grows-retained-graph"),
    ("config loaded.\nKilled", "host-oom-killed"),
    ("程序运行一段时间后内存占满，进程被杀死", "host-oom-killed"),
    ("多卡训练 NCCL 卡住不动", "nccl-collective-timeout"),
    ("torch.distributed.barrier() hangs in DDP when only rank 0 runs validation", "collective-under-rank-guard"),
], ids=["en-loader-epoch-end", "zh-loader-epoch-end", "en-gpu-memory-grows", "zh-gpu-memory-grows", "shell-killed",
        "zh-killed-ram", "zh-nccl-hang", "en-barrier-rank0"])
def test_a_symptom_in_words_names_its_cause(text, cause):
    matches = explain(text)
    assert matches and matches[0].id == cause, [(m.id, round(m.confidence, 2)) for m in matches]


# Close sentences that are not those failures: nothing hangs, GPU memory is flat, nothing was killed.
@pytest.mark.parametrize("text,not_cause", [
    ("Training with num_workers=8 runs every epoch to the end in 3 minutes.", "dataloader-hang"),
    ("GPU memory stays flat at 10 GB during training, CPU RAM is fine.", "gpu-memory-grows-retained-graph"),
    ("The DataLoader worker was killed: RuntimeError: DataLoader worker (pid 123) is killed by signal: Killed.", "host-oom-killed"),
    ("I killed the process with Ctrl-C because it was slow.", "host-oom-killed"),
    ("The training process finished 10 epochs on 4 GPUs with NCCL.", "nccl-collective-timeout"),
], ids=["loader-fine", "memory-flat", "worker-killed", "user-killed", "nccl-fine"])
def test_a_close_healthy_sentence_is_not_that_failure(text, not_cause):
    assert not_cause not in [m.id for m in explain(text)]
