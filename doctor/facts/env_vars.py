"""Environment variables that change how torch, CUDA, NCCL and the launcher behave.

Only those are kept (a report must not carry the whole environment), and the value of any name
that looks like a secret is replaced at collection time, so no later step can leak it.
"""

from __future__ import annotations

from typing import Mapping

from .model import EnvFacts, PythonFacts

PREFIXES = (
    "CUDA_", "NCCL_", "TORCH_", "PYTORCH_", "TORCHINDUCTOR_", "TORCHDYNAMO_", "TORCHELASTIC_",
    "CUBLAS_", "CUBLASLT_", "CUDNN_", "NVIDIA_", "OMP_", "MKL_", "KMP_", "GLOO_", "TRITON_",
)
NAMES = frozenset({
    "LD_LIBRARY_PATH", "LD_PRELOAD", "PYTHONPATH", "PYTHONHOME", "PYTHONNOUSERSITE",
    "MASTER_ADDR", "MASTER_PORT", "WORLD_SIZE", "RANK", "LOCAL_RANK", "LOCAL_WORLD_SIZE",
    "GROUP_RANK", "NODE_RANK", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "MAX_JOBS",
    "CC", "CXX",
})
# A name is secret when one of its underscore-separated words is one of these: NCCL_IB_PKEY and
# TORCH_MONKEY stay readable, TORCH_API_KEY and NCCL_AUTH_TOKEN do not.
SECRET_WORDS = frozenset({
    "TOKEN", "TOKENS", "SECRET", "SECRETS", "PASSWORD", "PASSWD", "PASS", "KEY", "APIKEY", "API",
    "CREDENTIAL", "CREDENTIALS", "AUTH", "PRIVATE",
})
REDACTED = "<redacted>"


def relevant(name: str) -> bool:
    return name in NAMES or name.startswith(PREFIXES)


def secret(name: str) -> bool:
    return any(word in SECRET_WORDS for word in name.upper().split("_"))


def select(environ: Mapping[str, str]) -> dict[str, str]:
    return {name: (REDACTED if secret(name) else value)
            for name, value in sorted(environ.items()) if relevant(name)}


def collect(target, python: PythonFacts) -> EnvFacts:
    return EnvFacts(variables=select(target.environ))
