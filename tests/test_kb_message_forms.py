"""Messages in the forms real pastes give them, each form a class seen in the dev corpus (batch 14):
a message glued to a progress bar, cut at its first words or inside a symbol, deep in a C++
runtime's long line, quoted in a blog's prose, or said in words. Each real text (URL beside it)
names its cause first; each close text, the same subject without the failure or another failure
in similar words, does not name it."""

from __future__ import annotations

from kb_wordings import wording_tests

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
]

test_wording_names_its_cause_first, test_close_text_is_not_this_cause = wording_tests(WORDINGS, NOT_THESE)
