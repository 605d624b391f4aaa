"""Wordings batch 22's dev texts showed (deployment and library users), each a class: a library re-raising a
device error in its own words, a project's compile switch said not to work on Windows, torch.distributions'
sample check, libtorch's slow first runs, CUDA's initialization error under a forking server, an attribute
error retold in Japanese, a stuck DataLoader loop quoted in full, torch 1.x's traced-output message, SDPA's
dtype check; and (batch 23) uv's build-isolation failure; a torch.save file given to a TorchScript loader, and a traced custom autograd.Function. Each real text (URL beside it) names its cause first; each close text does not name it."""

from __future__ import annotations

from kb_wordings import wording_tests

WORDINGS = [
    ("device-mismatch", "RuntimeError: Encountered different devices in metric calculation (see stacktrace for details). "
                        "This could be due to the metric class not being on the same device as input."),  # https://github.com/theislab/interscale/issues/28
    ("compile-unsupported-platform", "Using flag --flag_do_torch_compile does not work on windows as it requires triton."),  # https://github.com/KlingAIResearch/LivePortrait/issues/124
    ("compile-unsupported-platform", "use_torch_compile is not supported on Windows, what should I do?"),
    ("distribution-params-nan", "ValueError: Expected value argument (Tensor of shape (128, 512, 16, 16)) to be within the "
                                "support (Real()) of the distribution Normal(loc: 0.0, scale: 1.0), but found invalid "
                                "values:\ntensor([[[[nan, nan, nan,  ..., nan, nan, nan],"),  # https://github.com/GustavoVargasHakim/TTTFlow/issues/1
    ("torchscript-profiling-warmup", "Hello, my cuda10.2 libtorch1.7.1 model yolov5 was slow in the first two tests and "
                                     "the second one was the slowest and then normal. What is the reason?"),  # https://github.com/hotsuyuki/YOLOv5_PyTorch_cpp/issues/5
    ("cuda-fork-reinit", "I'm trying to do inference with Pytorch and Gunicorn and encounter a `Cuda error: "
                         "initialization error.`"),  # https://github.com/benoitc/gunicorn/issues/2397
    ("torchtext-legacy-api", "torchtext.dataがFieldというアトリビュートを持っていないという内容ですが、PyTorchの仕様変更等が"
                             "あったのでしょうか？"),  # https://github.com/YutaroOgawa/pytorch_advanced/issues/168
    ("dataloader-hang", "when i train the model ,the  program is stuck at this line of code “for batch_id, (header_data, "
                        "payload_data, labels) in enumerate(dataloader):”"),  # https://github.com/ViktorAxelsen/TFE-GNN/issues/10
    ("jit-trace-unsupported-io", "RuntimeError: Only tensors or tuples of tensors can be output from traced functions "
                                 "(getOutput at ../torch/csrc/jit/tracer.cpp:208)"),  # https://github.com/openpifpaf/openpifpaf/issues/165
    ("dtype-mismatch", "RuntimeError: Expected query, key, and value to have the same dtype, but got query.dtype: "
                       "c10::Half key.dtype: float and value.dtype: float instead."),  # recorded on an H100 (tests/fixtures/gpu_machine)
    ("build-isolation-no-torch", "> uv pip install 'FlagEmbedding[finetune]'\n\nResolved 95 packages in 31ms\n  × Failed "
                                 "to build `flash-attn==2.8.2`\n  ├─▶ The build backend returned an error\n  ╰─▶ Call to "
                                 "`setuptools.build_meta:__legacy__.build_wheel` failed (exit status: 1)\n     [stderr]\n "
                                 ".....\n  ModuleNotFoundError: No module named 'torch'\n"),  # https://github.com/FlagOpen/FlagEmbedding/issues/1501
    ("jit-load-not-torchscript", "inputshape2 =\ncustomop =\nmoduleop =\nLoad torchscript failed: PytorchStreamReader "
                                 "failed locating file constants.pkl: file not found\nException raised from valid at "
                                 "/project/pytorch-v2.8.0/caffe2/serialize/inline_container.cc:238 (most recent call "
                                 "first):"),  # https://github.com/Tencent/ncnn/issues/6279
    ("jit-trace-python-autograd-function", "> RuntimeError: \nCould not export Python function call 'SwishJitAutoFn'. "
                                           "Remove calls to Python functions before export. Did you forget add @script "
                                           "or @script_method annotation? If this is a nn.ModuleList, add it to "
                                           "__constants__:\n/usr/local/lib/python3.6/dist-packages/timm/models/layers/"
                                           "activations.py(48): swish"),  # https://github.com/huggingface/pytorch-image-models/issues/93
    ("build-isolation-no-torch", "ModuleNotFoundError: No module named 'torch'\n\nhint: This error likely indicates that "
                                 "`flash-attn@2.8.1` depends on `torch`, but doesn't declare it as a build dependency."),  # https://github.com/whyNLP/LCKV/issues/17
]

NOT_THESE = [
    # the metric's own value is wrong, no device involved
    ("device-mismatch", "The torchmetrics accuracy is different from sklearn's accuracy in metric calculation"),
    # compile works on Windows here; the complaint is speed
    ("compile-unsupported-platform", "--use_torch_compile works on windows but the first step takes 5 minutes"),
    # another support: a Bernoulli value of 2 is a wrong input, not a NaN
    ("distribution-params-nan", "ValueError: Expected value argument (Tensor of shape (4,)) to be within the support "
                                "(Boolean()) of the distribution Bernoulli(probs: torch.Size([4])), but found invalid values:"),
    # libtorch is slow throughout, not in its first runs
    ("torchscript-profiling-warmup", "my libtorch model is slower than python for every image, the first run is fine"),
    # the forking server without the CUDA error: a slow model load, not a re-initialised CUDA
    ("cuda-fork-reinit", "gunicorn workers time out after 30 seconds while loading the model on the CPU"),
    # the DataLoader is named, but the stuck thing is the NCCL barrier
    ("dataloader-hang", "the program is stuck at dist.barrier() after building the dataset and sampler"),
    # a traced model that runs: only its output is compared
    ("jit-trace-unsupported-io", "The outputs of my traced functions differ from the eager model's outputs"),
    # the attention masks' dtype, not q/k/v
    ("dtype-mismatch", "RuntimeError: Expected attn_mask dtype to be bool or float or to match query dtype"),
    # torch.load of a zip without the checkpoint's records: damaged, not a TorchScript question
    ("jit-load-not-torchscript", "RuntimeError: PytorchStreamReader failed locating file data.pkl: file not found"),
    # a scripted module calling Python's type(): no autograd Function involved
    ("jit-trace-python-autograd-function", "RuntimeError: \nCould not export Python function call 'type'. Remove calls "
                                           "to Python functions before export."),
    # uv failed to build something else, and torch is there
    ("build-isolation-no-torch", "  × Failed to build `pycocotools==2.0.7`\n  ╰─▶ Call to `setuptools.build_meta.build_wheel` "
                                 "failed (exit status: 1)\n  error: Microsoft Visual C++ 14.0 or greater is required."),
]

test_wording_names_its_cause_first, test_close_text_is_not_this_cause = wording_tests(WORDINGS, NOT_THESE)
