"""The wordings behind batch 9's failure classes, as the code writes them, name their cause; the
close texts that are another cause do not.

The spawn and ragged-sequence messages were raised for real on torch 2.13 (torch.multiprocessing.spawn
with a lambda, a nested function and a lock in args; torch.tensor / as_tensor / LongTensor on ragged
lists); the undefined-symbol forms are torch 2.13's own exports of ref-qualified members
(torch::Library::_def / _impl, "_ZNR5torch7Library...", read with nm from libtorch_cpu.so), which the
loader names when an extension was built against another torch; torch/utils/tensorboard/__init__.py
of torch 1.10 for the distutils one; an unregistered torch.ops.fbgemm.<op> on torch 2.13.
"""

from __future__ import annotations

from kb_wordings import wording_tests

SITE = "/home/user/.venv/lib/python3.11/site-packages"
PY = "/usr/lib/python3.11"


def _spawn_traceback(final: str) -> str:
    return f'''Traceback (most recent call last):
  File "/home/user/proj/train.py", line 8, in <module>
    main()
  File "/home/user/proj/train.py", line 6, in main
    mp.spawn(work, args=(f,), nprocs=2)
  File "{SITE}/torch/multiprocessing/spawn.py", line 340, in spawn
    return start_processes(fn, args, nprocs, join, daemon, start_method="spawn")
  File "{SITE}/torch/multiprocessing/spawn.py", line 280, in start_processes
    idx, process, tf_name = start_process(i)
  File "{SITE}/torch/multiprocessing/spawn.py", line 275, in start_process
    process.start()
  File "{PY}/multiprocessing/process.py", line 121, in start
    self._popen = self._Popen(self)
  File "{PY}/multiprocessing/context.py", line 288, in _Popen
    return Popen(process_obj)
  File "{PY}/multiprocessing/popen_spawn_posix.py", line 32, in __init__
    super().__init__(process_obj)
  File "{PY}/multiprocessing/popen_fork.py", line 19, in __init__
    self._launch(process_obj)
  File "{PY}/multiprocessing/popen_spawn_posix.py", line 47, in _launch
    reduction.dump(process_obj, fp)
  File "{PY}/multiprocessing/reduction.py", line 60, in dump
    ForkingPickler(file, protocol).dump(obj)
{final}
'''


WORDINGS = [
    ("spawn-pickle-local-object", _spawn_traceback("AttributeError: Can't pickle local object 'main.<locals>.<lambda>'")),
    ("spawn-pickle-local-object", _spawn_traceback("AttributeError: Can't pickle local object 'main.<locals>.work'")),
    ("spawn-pickle-local-object", _spawn_traceback("TypeError: cannot pickle '_thread.lock' object")),
    # Lightning 1.6+ launching ddp_spawn through its multiprocessing launcher.
    ("spawn-pickle-local-object", f'''  File "{SITE}/pytorch_lightning/strategies/launchers/multiprocessing.py", line 113, in launch
    mp.start_processes(
  File "{PY}/multiprocessing/reduction.py", line 60, in dump
    ForkingPickler(file, protocol).dump(obj)
AttributeError: Can't pickle local object 'get_linear_schedule_with_warmup.<locals>.lr_lambda'
'''),
    ("tensor-from-ragged-sequence", "ValueError: expected sequence of length 2 at dim 1 (got 1)"),
    ("tensor-from-ragged-sequence", f'''  File "/home/user/proj/collate.py", line 12, in collate
    ids = torch.LongTensor([s["input_ids"] for s in batch])
ValueError: expected sequence of length 3 at dim 1 (got 0)
'''),
    ("tensor-from-ragged-sequence", f'''  File "{SITE}/transformers/tokenization_utils_base.py", line 781, in convert_to_tensors
    raise ValueError(
ValueError: Unable to create tensor, you should probably activate truncation and/or padding with 'padding=True' 'truncation=True' to have batched tensors with the same length. Perhaps your features (`labels` in this case) have excessive nesting (inputs type `list` where type `int` is expected).
'''),
    ("extension-abi-mismatch", f"ImportError: {SITE}/vllm/_C.abi3.so: undefined symbol: "
                               "_ZNR5torch7Library4_defEON3c1014FunctionSchemaEPNS1_12OperatorNameE"),
    ("extension-abi-mismatch", f"OSError: {SITE}/fbgemm_gpu/fbgemm_gpu_py.so: undefined symbol: "
                               "_ZNR5torch7Library5_implEPKcONS_11CppFunctionENS_17_RegisterOrVerifyE"),
    ("tensorboard-distutils-setuptools", f'''  File "/home/user/proj/train.py", line 3, in <module>
    from torch.utils.tensorboard import SummaryWriter
  File "{SITE}/torch/utils/tensorboard/__init__.py", line 4, in <module>
    LooseVersion = distutils.version.LooseVersion
AttributeError: module 'distutils' has no attribute 'version'
'''),
    # fbgemm_gpu's load error printed, then torch 2.13's _ops.py lookup of the missing operator.
    ("fbgemm-gpu-torch-mismatch", f'''libcudart.so.12: cannot open shared object file: No such file or directory
Traceback (most recent call last):
  File "/home/user/proj/train.py", line 3, in <module>
    import fbgemm_gpu
  File "{SITE}/torch/_ops.py", line 1392, in __getattr__
    raise AttributeError(
AttributeError: '_OpNamespace' 'fbgemm' object has no attribute 'jagged_2d_to_dense'
'''),
]

NOT_THESE = [
    # DataLoader workers pickled under spawn: the DataLoader's own entry.
    ("spawn-pickle-local-object", f'''  File "{SITE}/torch/utils/data/dataloader.py", line 1034, in __init__
    w.start()
  File "{PY}/multiprocessing/process.py", line 121, in start
    self._popen = self._Popen(self)
  File "{PY}/multiprocessing/popen_spawn_posix.py", line 47, in _launch
    reduction.dump(process_obj, fp)
  File "{PY}/multiprocessing/reduction.py", line 60, in dump
    ForkingPickler(file, protocol).dump(obj)
AttributeError: Can't pickle local object 'build_loader.<locals>.<lambda>'
'''),
    # DDP named beside a DataLoader's pickling failure: the workers, not the launcher.
    ("spawn-pickle-local-object", "Using DDP with a DataLoader (num_workers=4) I get TypeError: cannot pickle '_thread.RLock' object"),
    # torch.save of a model holding a lambda: pickled for the file, no process launched.
    ("spawn-pickle-local-object", f'''  File "{SITE}/torch/serialization.py", line 652, in _save
    pickler.dump(obj)
AttributeError: Can't pickle local object 'Net.__init__.<locals>.<lambda>'
'''),
    # NumPy's refusal of ragged lists is NumPy's.
    ("tensor-from-ragged-sequence", "ValueError: setting an array element with a sequence. The requested array has an "
                                    "inhomogeneous shape after 1 dimensions. The detected shape was (2,) + inhomogeneous part."),
    # torch's own library failing to load its CUDA symbols: not an extension built for another torch.
    ("extension-abi-mismatch", f"OSError: {SITE}/torch/lib/libtorch_cuda.so: undefined symbol: "
                               "_ZNR5torch7Library4_defEON3c1014FunctionSchemaEPNS1_12OperatorNameE"),
    # torch's own CUDA runtime missing while importing torch: no fbgemm operator in it.
    ("fbgemm-gpu-torch-mismatch", f'''  File "{SITE}/torch/__init__.py", line 235, in _load_global_deps
    raise err
OSError: libcudart.so.12: cannot open shared object file: No such file or directory
'''),
    # Python 3.12 has no distutils: a missing module, not setuptools' attribute change.
    ("tensorboard-distutils-setuptools", "ModuleNotFoundError: No module named 'distutils'"),
]


test_wording_names_its_cause_first, test_close_text_is_not_this_cause = wording_tests(WORDINGS, NOT_THESE, not_id="{e}-{i}")
