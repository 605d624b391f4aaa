"""Messages in the forms real pastes give them, each form a class seen in the dev corpus (batches 14, 15):
a message glued to a progress bar, cut at its first words or inside a symbol, deep in a C++
runtime's long line, quoted in a blog's prose, or said in words. Each real text (URL beside it)
names its cause first; each close text, the same subject without the failure or another failure
in similar words, does not name it."""

from __future__ import annotations

import pytest
from kb_wordings import wording_tests
from torchdoctor.kb.loader import load
from torchdoctor.kb.matcher import CONFIDENT, match_parsed
from torchdoctor.kb.parse import parse

WORDINGS = [
    # zsh's job-kill line glued to the tqdm bar that was running (the bar ends in `]`, no newline).
    ("host-oom-killed", "Loading checkpoint shards:  88%|███████████████▊  | 7/8 [00:12<00:01,  1.84s/it][1]    14875 "
                        "killed     python main.py --low_vram\n\n大佬这是为什么呢，16g内存爆内存了吗"),  # https://github.com/OedoSoldier/chatglm_webui/issues/3
    ("host-oom-killed", "It just keeps taking up all the 12 GB RAM and then crashes. When trying to start the server, "
                        "doesn't even get to loading the model."),  # https://github.com/TheLastBen/fast-stable-diffusion/issues/1344
    # A Python extension's undefined symbol cut after its first letters.
    ("extension-abi-mismatch", "    import flash_attn_2_cuda as flash_attn_cuda\nImportError: /home/apus/mambaforge/envs/Qwen/"
                               "lib/python3.11/site-packages/flash_attn_2_cuda.cpython-311-x86_64-linux-gnu.so: undefined "
                               "symbol: _ZN"),  # https://github.com/Dao-AILab/flash-attention/issues/1019
    # The message without its first words (the paste began mid-line).
    ("cuda-unavailable-on-load", "```\ndeserialize object on a CUDA device but torch.cuda.is_available() is False. If you "
                                 "are running on a CPU-only machine, please use torch.load with map_location=torch.device("
                                 "'cpu') to map your storages to the CPU.\n```"),  # https://github.com/wildminder/ComfyUI-Chatterbox/issues/3
    # Deep in onnxruntime's long C++ line: the driver-level message is judged, not the line's start.
    ("cuda-driver-too-old", "EP Error /onnxruntime_src/onnxruntime/core/providers/cuda/cuda_call.cc:121 std::conditional_t"
                            "<THRW, void, onnxruntime::common::Status> onnxruntime::CudaCall(ERRTYPE, const char*, const "
                            "char*, ERRTYPE, const char*, const char*, int) [with ERRTYPE = cudaError; bool THRW = true; "
                            "std::conditional_t<THRW, void, onnxruntime::common::Status> = void] /onnxruntime_src/"
                            "onnxruntime/core/providers/cuda/cuda_call.cc:114 std::conditional_t<THRW, void, onnxruntime"
                            "::common::Status> onnxruntime::CudaCall(ERRTYPE, const char*, const char*, ERRTYPE, const "
                            "char*, const char*, int) [with ERRTYPE = cudaError; bool THRW = true; std::conditional_t<"
                            "THRW, void, onnxruntime::common::Status> = void] CUDA failure 35: CUDA driver version is "
                            "insufficient for CUDA runtime version ; GPU=-412879360 ; hostname=a1e2af3b9974 ; file=/"
                            "onnxruntime_src/onnxruntime/core/providers/cuda/cuda_execution_provider.cc ; line=238 ; "
                            "expr=cudaSetDevice(info_.device_id);"),  # https://github.com/dream80/roop_colab/issues/11
    # A 32-bit Windows Python's banner, then the launcher's failed torch install.
    ("no-wheel-for-python", 'Python 3.10.7 (tags/v3.10.7:6cc6b13, Sep  5 2022, 13:51:36) [MSC v.1933 32 bit (Intel)]\n'
                            'Commit hash: <none>\nInstalling torch\nTraceback (most recent call last):\n  File "C:\\stable'
                            '-diffusion\\Autowebui\\launch.py", line 44, in run\n    raise RuntimeError(message)\n'
                            "RuntimeError: Couldn't install torch.\nCommand: \"C:\\stable-diffusion\\Autowebui\\venv\\"
                            'Scripts\\python.exe" -m pip install torch==1.12.1+cu113 --extra-index-url https://download'
                            '.pytorch.org/whl/cu113\nError code: 1\nstdout: Looking in indexes: https://pypi.org/simple, '
                            'https://download.pyto'),  # https://github.com/AUTOMATIC1111/stable-diffusion-webui/issues/704
    # Cython's NumPy size check, quoted in a blog's prose; and conda's `cpuonly` package named in prose.
    ("numpy-abi-mismatch", 'This issue manifests as a ValueError with messages such as "numpy.dtype size changed, may '
                           'indicate binary incompatibility. Expected 96 from C header, got 88 from PyObject," stemming '
                           'from structural alterations in NumPy\'s internal data types'),  # https://probsee.com/p/NumPy_ABI_Mismatch_in_InsightFace
    ("numpy-abi-mismatch", "ValueError: numpy.dtype has the wrong size, try recompiling. Expected 88, got 96"),  # Cython before 0.29's wording of the same check
    ("cuda-not-compiled", "若安装的是cpuonly版本的PyTorch,即使你的设备搭载RTX 2060(支持CUDA 10.2+),模型仍会在CPU上执行全部"
                          "训练操作"),  # https://php.bkmy88.com/faq/2041608.html
]

WORDINGS += [
    # torch >= 2.4's exit warning, as each rank logs it.
    ("process-group-not-destroyed", "[rank0]:[W730 15:32:17.841273251 ProcessGroupNCCL.cpp:1479] Warning: WARNING: "
                                    "destroy_process_group() was not called before program exit, which can leak "
                                    "resources. For more info, please see https://pytorch.org/docs/stable/distributed."
                                    "html#shutdown (function operator())"),  # https://github.com/anhvth/opensloth/issues/17
    # torch 0.3 reading a file saved by 0.4: a rebuild function it does not have.
    ("checkpoint-newer-format", "    result = unpickler.load()\nAttributeError: Can't get attribute '_rebuild_tensor_v2' "
                                "on <module 'torch._utils' from '/home/paperspace/anaconda3/envs/fastai/lib/python3.6/"
                                "site-packages/torch/_utils.py'>"),  # https://github.com/facebookresearch/QuaterNet/issues/2
    # BatchNorm's num_batches_tracked buffers from a newer torch, into a DataParallel model that has the prefix too.
    ("state-dict-key-mismatch", 'RuntimeError: Error(s) in loading state_dict for DataParallel:\n\tUnexpected key(s) in '
                                'state_dict: "module.feature_extraction.firstconv.0.1.num_batches_tracked", '
                                '"module.feature_extraction.firstconv.2.1.num_batches_tracked".'),  # https://github.com/mattpoggi/guided-stereo/issues/2
    ("state-dict-key-mismatch", "    own_state[name].copy_(param)\nKeyError: 'bn1.num_batches_tracked'"),  # https://github.com/jindongwang/transferlearning/issues/58
    # DeepSpeed's op builder without a toolkit, its exception type cut off.
    ("extension-cuda-home-missing", "```\nCUDA_HOME does not exist, unable to compile CUDA op(s)\n```"),  # https://github.com/jingyaogong/minimind/issues/48
    # Triton's bundled ptxas failing for a GPU it cannot target, logged by inductor.
    ("compile-inductor-failure", "E0303 11:40:42.533000 713 site-packages/torch/_inductor/runtime/triton_heuristics.py:"
                                 "533] subprocess.CalledProcessError: Command '['/home/eason/anaconda3/envs/fish-speech/"
                                 "lib/python3.10/site-packages/triton/backends/nvidia/bin/ptxas', '-lineinfo', '-v', "
                                 "'--gpu-name=sm_120', '/tmp/tmpdy7phawp.ptx', '-o', '/tmp/tmpdy7phawp.ptx.o']' returned "
                                 "non-zero exit status 255."),  # https://github.com/fishaudio/fish-speech/issues/907
    # Ctrl-C dumps of a stuck loader: its shutdown blocked on a lock, its workers blocked on their queue.
    ("dataloader-hang", "^CException ignored in: <bound method _DataLoaderIter.__del__ of <torch.utils.data.dataloader."
                        "_DataLoaderIter object at 0x7f87c6c81898>>\nTraceback (most recent call last):\n  File \"/home/"
                        "zhouxx/anaconda3/envs/py36/lib/python3.6/site-packages/torch/utils/data/dataloader.py\", line 717, "
                        "in __del__\n    self._shutdown_workers()\n  File \"/home/zhouxx/anaconda3/envs/py36/lib/python3.6/"
                        "site-packages/torch/utils/data/dataloader.py\", line 685, in _shutdown_workers\n    self.done_"
                        "event.set()\n  File \"/home/zhouxx/anaconda3/envs/py36/lib/python3.6/multiprocessing/synchronize"
                        ".py\", line 346, in set\n    with self._cond:"),  # https://github.com/MILVLG/mmnas/issues/8
    ("dataloader-hang", '  File "/root/anaconda2/lib/python2.7/multiprocessing/process.py", line 114, in run\n    self._'
                        'target(*self._args, **self._kwargs)\n  File "/root/anaconda2/lib/python2.7/site-packages/torch/'
                        'utils/data/dataloader.py", line 50, in _worker_loop\n    r = index_queue.get()\n  File "/root/'
                        'anaconda2/lib/python2.7/multiprocessing/queues.py", line 374, in get\n    racquire()\n'
                        'KeyboardInterrupt'),  # https://github.com/SeanNaren/deepspeech.pytorch/issues/287
    # torch 1.x's backend mismatch inside torch.cat's sequence argument; THC's OOM without spaces.
    ("device-mismatch", "RuntimeError: Expected object of backend CPU but got backend CUDA for sequence element 1 in "
                        "sequence argument at position #1 'tensors'"),  # https://github.com/insilicomedicine/GENTRL/issues/10
    ("cuda-out-of-memory", "RuntimeError:cuda runtime error(2):out of memory"),  # https://github.com/chenyuntc/pytorch-best-practice/issues/3
]

WORDINGS += [
    # An error told in a sentence outranks a warning the same run printed (the warning entry matches more
    # exactly, but a warning is the weakest place for evidence).
    ("cuda-out-of-memory", "I ran train.py with an error that prompted me: Runtime Error: CUDA error: out of memory. "
                           "I haven't made any changes at present.\n\n$ python3 train.py\nInitialize with pre-trained "
                           "ResNet\n/home/gydx/.local/lib/python3.5/site-packages/torch/nn/functional.py:52: UserWarning: "
                           "size_average and reduce args will be deprecated, please use reduction='none' instead.\n"
                           "  warnings.warn(warning.format(ret))\n    Total params: 104.55MB\n\nEpoch: 1 | LR: 0.00050000"),  # https://github.com/GengDavid/pytorch-cpn/issues/17
]

WORDINGS += [
    ("op-not-implemented-for-integer", "RuntimeError: mean(): input dtype should be either floating point or complex "
                                       "dtypes. Got Long instead."),  # https://github.com/open-mmlab/mmpose/issues/2138
    ("dataloader-shm-exhausted", "When running a training in the docker container, I received the following error: \n"
                                 "`RuntimeError: DataLoader worker (pid(s) 25) exited unexpectedly`"),  # https://github.com/facebookresearch/detectron2/issues/384
    ("collective-under-rank-guard", "# fix pytorch multi-GPU training hang\n\nFixing ddp.dist.barrier() hang by running "
                                    "validation forward pass using model.module() instead of model(). This is needed because "
                                    "validation is only run on single gpu (unlike training & inference)."),  # https://github.com/jpata/particleflow/pull/233
]

WORDINGS += [
    # GPU memory growth told beside validation run without no_grad: the precise cause refines the generic one.
    ("eval-without-no-grad", "I narrowed down the source to be the validation step. After each validation batch the GPU "
                             "memory consumption increases until nothing in left. On the PyTorch issue tracker I found a "
                             "suggestion that validation should be run within `torch.no_grad()` context. I tried wrapping "
                             "the contents of `validation_step()` into the `no_grad` context, and it solved my problem."),  # https://github.com/skorch-dev/skorch/issues/218
]

WORDINGS += [
    # A public torch API the installed release predates, named by no list (batch 17 dev): torch.minimum is 1.7's.
    ("torch-too-old-for-package", '    coords = torch.minimum(coords, max_grid_tensor)\nAttributeError: module \'torch\' has '
                                  "no attribute 'minimum'\nwhy??? is the torch version wrong??(i also use torch1.3, it raise "
                                  "the same wrong)"),  # https://github.com/Xharlie/BtcDet/issues/17
    ("torch-too-old-for-package", "AttributeError: module 'torch.nn' has no attribute 'SiLU'"),
    ("torch-too-old-for-package", "AttributeError: module 'torch.nn.functional' has no attribute 'mish'"),
    # A hang right after saving in a distributed run, with no rank named (batch 17 dev).
    ("collective-under-rank-guard", "# Fix hang after calling `SaeTrainer.save()` w/ DDP\n\nWhile trying to train with DDP on "
                                    "an 8xA100 node with default arguments...\n\n...the trainer hangs after saving--the "
                                    "layers are successfully saved, but afterwards the trainer doesn't make progress"),  # https://github.com/EleutherAI/sparsify/pull/5
    # Batch 18 dev: a localised WinError raised in torch/__init__.py's DLL preload (Spanish; Korean likewise).
    ("windows-dll-load-failure", '  File "c:\\Sergio\\anaconda3\\envs\\face_pytorch0\\lib\\site-packages\\torch\\__init__.py", '
                                 'line 81, in <module>\n    ctypes.CDLL(dll)\n  File "c:\\Sergio\\anaconda3\\envs\\face_pytorch0\\'
                                 'lib\\ctypes\\__init__.py", line 364, in __init__\n    self._handle = _dlopen(self._name, mode)'
                                 '\n**OSError: [WinError 126] No se puede encontrar el módulo especificado**'),  # https://github.com/AIZOOTech/FaceMaskDetection/issues/72
    # A title retyped in lower case without "enabled".
    ("cuda-not-compiled", "Assertion error: torch not compiled with cuda"),  # https://github.com/espnet/espnet/issues/4513
    # Old torch's TCPStore: MASTER_ADDR that does not resolve (a worker pod before the master's service).
    ("dist-rendezvous-unreachable", '  File "/root/.local/lib/python3.7/site-packages/torch/distributed/rendezvous.py", line 143, '
                                    'in _env_rendezvous_handler\n    store = TCPStore(master_addr, master_port, start_daemon)\n'
                                    'ValueError: host not found: Name or service not known'),  # https://github.com/kubeflow/pytorch-operator/issues/125
    # The legacy loader finding a storage of another size than the file records.
    ("checkpoint-corrupt", "RuntimeError: storage has wrong size: expected 0 got 768"),  # https://github.com/monologg/KoELECTRA-Pipeline/issues/1
    # The legacy torch.save's own write failing (a full disk).
    ("checkpoint-save-write-failed", '    serialized_storages[key]._write_file(f, _should_read_directly(f))\n'
                                     'RuntimeError: write(): fd 29 failed with Input/output error'),  # https://github.com/pytorch/pytorch/issues/10577
    # Batch 18 dev: the utilisation named before the GPU.
    ("gpu-starved-by-data-loading", "Hello blogger, when I run this code to train, I find that the utilization of my GPU is "
                                    "extremely low. Is this normal, and if so, how to improve its utilization?"),  # https://github.com/Kaiseem/SLAug/issues/2
    # Batch 19 dev: torch 1.6-1.10's refusal to differentiate a complex output.
    ("complex-dtype-unsupported-op", "RuntimeError: svd does not support automatic differentiation for outputs with "
                                     "complex dtype."),  # https://discuss.pytorch.org/t/use-torch-svd-with-complex-matrix-on-gpu/109445
    # THC's index kernels (nn.Embedding on the CPU fed CUDA ids), torch <= 1.x.
    ("device-mismatch", "RuntimeError: Input, output and indices must be on the current device"),
    # The missing switch said as a state.
    ("model-eval-mode-missing", "Since the model is not in eval mode, dropout and normalization parameter updates are "
                                "applied."),  # https://github.com/mahmoodlab/CLAM/issues/314
    ("model-eval-mode-missing", "The script produces different outputs in each run because we never set the "
                                "evaluation mode"),
    # load_state_dict's two lists named in either order, in prose.
    ("state-dict-key-mismatch", '이름이 다르면 "Unexpected key" 또는 "Missing key" 에러가 발생합니다.'),
    ("state-dict-key-mismatch", "_IncompatibleKeys(missing_keys=['fc.weight'], unexpected_keys=[])"),
    # The mps device named as a Mac's GPU.
    ("mps-wrong-results", "The models trained with GPUs on Macs result in significantly lower quality compared to those "
                          "trained on other devices"),  # https://github.com/RVC-Boss/GPT-SoVITS/issues/833
    ("mps-wrong-results", "On the M2 Max GPU I get much worse results than on the CPU"),
    # GPyTorch's wrapper of the same Cholesky failure.
    ("linalg-singular-matrix", "gpytorch.utils.errors.NotPSDError: Matrix not positive definite after repeatedly adding "
                               "jitter up to 1e-05"),  # https://github.com/meta-pytorch/botorch/issues/1429
    # A spawn launcher's pickling failure, the GPU count said in words.
    ("spawn-pickle-local-object", "Training on N>1 GPUs throws AttributeError: Can't pickle local object "
                                  "'Settings._validator_factory.<locals>.helper'"),  # https://github.com/Lightning-AI/pytorch-lightning/issues/14120
    # Batch 20 dev: the missing eval() with the outputs differing; no_grad as the fix that worked for an OOM.
    ("model-eval-mode-missing", "Hello, I tried it if there is no model.eval(),  which results in the same data input "
                                "but get different feature output."),  # https://github.com/haofanwang/video-swin-transformer-pytorch/issues/9
    ("eval-without-no-grad", "fails due to insufficient memory size on RTX2080ti, but the program works when forward "
                             "propagation is wrapped around `with torch.no_grad()`."),  # https://github.com/dhimasryan/MOSA-Net-Cross-Domain/issues/2
    # Batch 21 dev: THC's error code alone (a title, a cut paste), in both CUDA numberings.
    ("cuda-no-device-visible", "RuntimeError: cuda runtime error (100)"),  # https://github.com/hezhangsprinter/DID-MDN/issues/33
    ("cuda-no-device-visible", "RuntimeError: cuda runtime error (38)"),
    ("cuda-device-side-assert", "RuntimeError: cuda runtime error (59)"),
    ("cuda-illegal-memory-access", "cuda runtime error (700)"),
    ("cuda-no-kernel-image", "cuda runtime error (48)"),
    ("invalid-device-ordinal", "RuntimeError: cuda runtime error (101)"),
    ("autograd-grad-unused-input", "RuntimeError: One of the differentiated Variables appears to not have been used in "
                                   "the graph"),  # torch 0.4's wording
    ("autograd-grad-unused-input", "**### RuntimeError: One of the differentiated Tensors does not appear to have been used "
                                   "in the graph. If you want this behaviour, set allow_unused to True.**"),  # https://github.com/pnnl/neuromancer/issues/154
    ("extension-not-built", "ModuleNotFoundError: No module named 'diff_gaussian_rasterization'"),  # https://github.com/graphdeco-inria/gaussian-splatting/issues/433
    ("extension-not-built", "ModuleNotFoundError: No module named 'simple_knn'"),
    ("no-grad-fn", "However, I found an issue that if the output function needs to calculate the gradient, the code gets an "
                   "error said that the output of the neural networks doesn't require gradient."),  # https://github.com/rezaakb/pinns-torch/issues/12
    ("state-dict-module-prefix", 'RuntimeError: Error(s) in loading state_dict for DataParallel: Missing key(s) in '
                                 'state_dict: "module.module.base_net.0.weight", "module.module.base_net.0.bias"'),  # https://github.com/tongyuhome/MobileNetV3-SSD/issues/9
]

NOT_THESE = [
    ("host-oom-killed", "Loading checkpoint shards: 100%|██████████| 8/8 [00:14<00:00,  1.80s/it][1] 14875 done"),
    ("host-oom-killed", "It keeps taking up all the 24 GB of GPU RAM and then crashes with CUDA out of memory"),
    ("host-oom-killed", "my dataloader workers take all the RAM and crash"),
    ("extension-abi-mismatch", "ImportError: /usr/lib/x86_64-linux-gnu/libcudnn_ops.so.9: undefined symbol: _ZN"),
    ("cuda-unavailable-on-load", "we deserialize objects on a CUDA device when torch.cuda.is_available() is True"),
    ("cuda-driver-too-old", "EP Error /onnxruntime_src/onnxruntime/core/providers/cuda/cuda_call.cc:121 " + "x" * 300
     + " CUDA failure 2: out of memory ; GPU=0"),
    ("no-wheel-for-python", "Python 3.10.7 (tags/v3.10.7:6cc6b13) [MSC v.1933 64 bit (AMD64)]\nInstalling torch\n"
                            "RuntimeError: Couldn't install torch."),
    ("numpy-abi-mismatch", "numpy.dtype size is 8 bytes for float64, so the array takes 800 MB"),
    ("cuda-not-compiled", "conda install pytorch torchvision cpuonly -c pytorch works on my laptop without a GPU"),
    ("state-dict-key-mismatch", "<All keys matched successfully> _IncompatibleKeys(missing_keys=[], unexpected_keys=[])"),
    ("model-eval-mode-missing", "The model is in eval mode, but the outputs still differ between two GPUs"),
    ("mps-wrong-results", "Training on the Mac GPU is slower than on the CPU; the quality is the same"),
    ("complex-dtype-unsupported-op", "svd supports automatic differentiation for complex inputs since 1.11"),
    ("spawn-pickle-local-object", "Training with num_workers=4 on 2 GPUs: Can't pickle local object "
                                  "'get_loader.<locals>.collate'"),
    ("eval-without-no-grad", "Training runs out of memory even with torch.no_grad() around the validation loop"),
    ("model-eval-mode-missing", "With model.eval() the results are different from training, as expected for BatchNorm"),
    ("cuda-no-device-visible", "cuda runtime error (1000)"),  # not a code of that error
    ("cuda-out-of-memory", "cuda runtime error (209)"),
    ("extension-not-built", "ModuleNotFoundError: No module named 'simple_knn_utils'"),
    ("no-grad-fn", "As expected the labels do not require grad, so I detach them."),
]

NOT_THESE += [
    ("eval-without-no-grad", "GPU memory keeps increasing every iteration of the training loop because I add loss to "
                             "total_loss without .item()"),

    ("op-not-implemented-for-integer", "RuntimeError: mean(): input dtype should be either floating point or complex "
                                       "dtypes. Got Float instead? No: my tensor is float32 and it works."),
    ("dataloader-shm-exhausted", "RuntimeError: DataLoader worker (pid(s) 25) exited unexpectedly"),
    ("collective-under-rank-guard", "Validation is only run on a single gpu, and training runs fine on all four."),

    # Two sentences of a paragraph are not one wrapped line: "Windows" ends one, "num_workers" is in the next.
    ("dataloader-spawn-pickling", "这个问题是由于 Windows 多进程数据加载机制 引起的。\n1. 现象解释：\n为什么会有“停顿”？\n"
                                  "脚本使用默认值 num_workers=12。这意味着 PyTorch 会启动 12 个子进程来并行加载数据。"),  # https://github.com/kaonashi-tyc/zi2zi-JiT/issues/14

    ("process-group-not-destroyed", "We call destroy_process_group() before program exit on every rank."),
    ("checkpoint-newer-format", "AttributeError: Can't get attribute 'Net' on <module '__main__' from 'train.py'>"),
    ("state-dict-key-mismatch", "num_batches_tracked counts the batches a BatchNorm layer has seen"),
    ("extension-cuda-home-missing", "CUDA_HOME exists at /usr/local/cuda-12.1, and nvcc is on the PATH"),
    ("compile-inductor-failure", "subprocess.CalledProcessError: Command '['/usr/local/cuda/bin/ptxas', '-v', 'k.ptx']' "
                                 "returned non-zero exit status 255."),
    ("dataloader-hang", '  File "/opt/conda/lib/python3.10/site-packages/torch/utils/data/_utils/worker.py", line 308, '
                        'in _worker_loop\n    data = fetcher.fetch(index)\n  File "/opt/conda/lib/python3.10/site-packages/'
                        'torch/utils/data/_utils/collate.py", line 143, in default_collate\n    return torch.stack(batch, 0)'
                        '\nRuntimeError: stack expects each tensor to be equal size, but got [3, 224, 224] at entry 0 and '
                        '[3, 256, 256] at entry 1'),
    ("device-mismatch", "RuntimeError: Expected object of scalar type Float but got scalar type Long for sequence "
                        "element 1 in sequence argument at position #1 'tensors'"),
    ("cuda-out-of-memory", "RuntimeError:cuda runtime error(59):device-side assert triggered"),
    ("collective-under-rank-guard", "DDP training hangs at the first iteration, before any checkpoint is saved"),
    ("collective-under-rank-guard", "Saving the checkpoint with DDP takes 10 minutes: is that normal?"),
    ("model-eval-mode-missing", "Training loss is different every time I run the script, even with the same seed"),
    ("model-eval-mode-missing", "The same input gives a different output on GPU and on CPU"),
    # Another package's DLL, in the user's language: no torch frame.
    ("windows-dll-load-failure", '  File "C:\\app\\venv\\lib\\site-packages\\pyzbar\\zbar_library.py", line 58, in load\n'
                                 '    libzbar = cdll.LoadLibrary(str(fname))\nOSError: [WinError 126] 지정된 모듈을 찾을 수 없습니다'),
    ("cuda-not-compiled", "my torch is compiled with cuda 12.1 but the driver is older"),
    ("dist-rendezvous-unreachable", "requests.exceptions.ConnectionError: Failed to resolve 'huggingface.co' ([Errno -2] "
                                    "Name or service not known)"),
    ("gpu-starved-by-data-loading", "When I train, the utilization of my GPU is 100% and the loss goes down nicely"),
    ("gpu-starved-by-data-loading", "After the fix, data loading is fast and the GPU is busy"),
    # Names every torch has had: missing, they mean a local torch.py or a broken install, not an old torch.
    ("torch-too-old-for-package", "AttributeError: module 'torch' has no attribute 'cuda'"),
    ("torch-too-old-for-package", "AttributeError: module 'torch.nn' has no attribute 'Module'"),
    ("torch-too-old-for-package", "AttributeError: module 'torch' has no attribute '_six'"),
    ("torch-too-old-for-package", "AttributeError: module 'torch.distributed' has no attribute 'init_process_group'"),
]

test_wording_names_its_cause_first, test_close_text_is_not_this_cause = wording_tests(WORDINGS, NOT_THESE)


@pytest.mark.parametrize("text", [
    "Why does the hidden state of the same input token change every time I call the same GPT2 model?",  # https://github.com/huggingface/transformers/issues/2627
    "The same input image gives a different output every time I run inference",
    "同一张图片每次推理的输出都不一样",
])
def test_same_input_other_output_each_call_lists_eval_mode_first_but_not_as_an_answer(text):
    # The symptom has other causes (functional dropout, sampling): a likely cause, never a confident one.
    first = match_parsed(parse(text), load(), 0.0)
    assert first and first[0].id == "model-eval-mode-missing" and first[0].confidence < CONFIDENT


def test_slow_data_loading_named_in_a_title_lists_gpu_starvation_first():
    # "Poor data loading performance" (https://github.com/aharley/simple_bev/issues/4): a likely cause, not an answer.
    first = match_parsed(parse("Poor data loading performance and memory leaks"), load(), 0.0)
    assert first and first[0].id == "gpu-starved-by-data-loading" and first[0].confidence < CONFIDENT


def test_a_code_line_ending_the_paste_is_not_read_as_a_message_cut_after_its_first_words():
    # horovod's "optimizer.zero_grad() was called after loss.backward() ..." begins with a line of every training
    # loop: a paste that ends on that line alone names no failure (batch 17 dev, gh-xingyizhou-CenterNet-928-a).
    assert not match_parsed(parse("The loss explodes after a few steps.\noptimizer.zero_grad()\n"), load(), CONFIDENT)
    cut = match_parsed(parse("optimizer.zero_grad() was called after loss.backward() but before"), load(), CONFIDENT)
    assert cut and cut[0].id == "horovod-zero-grad-race"


@pytest.mark.parametrize("expected,text", [
    # skhadem/3D-BoundingBox#29
    ("model-eval-mode-missing", "Feeding in the same image multiple times produces different orientation estimations each time."),
    ("gpu-starved-by-data-loading", "Dataloader is quite slow"),  # THU-DA-6D-Pose-Group/GDR-Net#114
])
def test_more_likely_not_confident_symptoms_are_listed_first(expected, text):
    first = match_parsed(parse(text), load(), 0.0)
    assert first and first[0].id == expected and first[0].confidence < CONFIDENT


def test_text_generation_sampling_is_not_the_eval_mode_symptom():
    # vLLM/transformers generation samples by design (temperature): another answer each call is not dropout.
    matches = match_parsed(parse("每次相同的输入，vllm 推理结果每次都随机变化，transformers 结果固定"), load(), 0.0)
    assert "model-eval-mode-missing" not in [m.id for m in matches]
