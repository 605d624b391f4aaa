from torchdoctor.model import Fix, ok, warning
from torchdoctor.registry import Example, env_check


def _on(value: str) -> bool:
    return value.strip().lower() not in ("", "0", "false", "off", "no")


# name -> (is it on for this value?, what it does, cost). "slow" and "noisy" ones are worth a
# warning; "mild" ones are mentioned only.
DEBUG_VARIABLES = {
    "CUDA_LAUNCH_BLOCKING": (_on, "every CUDA kernel launch waits for the kernel to finish: training runs several "
                             "times slower", "slow"),
    "PYTORCH_NO_CUDA_MEMORY_CACHING": (_on, "the caching allocator is off: every tensor allocation calls cudaMalloc, "
                                       "which is very slow and fragments memory", "slow"),
    "TORCH_COMPILE_DEBUG": (_on, "torch.compile writes debug traces of every graph it compiles", "slow"),
    "TORCHINDUCTOR_FORCE_DISABLE_CACHES": (_on, "torch.compile recompiles every kernel on every run", "slow"),
    "PYTORCH_JIT": (lambda v: v.strip() == "0", "TorchScript is off: scripted code runs as plain Python", "slow"),
    "TORCH_DISTRIBUTED_DEBUG": (lambda v: v.strip().upper() == "DETAIL",
                                "every collective is checked across ranks with extra collectives", "slow"),
    "NCCL_DEBUG": (lambda v: v.strip().upper() in ("INFO", "TRACE"),
                   "NCCL logs every communicator set-up (TRACE: every call)", "noisy"),
    "TORCH_LOGS": (lambda v: bool(v.strip()), "torch logs the chosen components at debug level", "noisy"),
    "TORCH_CPP_LOG_LEVEL": (lambda v: v.strip().upper() in ("INFO", "0"), "c10 logs at INFO level", "mild"),
    "TORCHDYNAMO_VERBOSE": (_on, "torch.compile prints full tracebacks of graph breaks", "mild"),
    "TORCH_SHOW_CPP_STACKTRACES": (_on, "exceptions carry C++ stack traces", "mild"),
    "TORCH_USE_CUDA_DSA": (lambda v: True, "does nothing at run time: device-side assertions are a build option "
                           "of torch, not an environment switch", "mild"),
    "CUDA_MODULE_LOADING": (lambda v: v.strip().upper() == "EAGER",
                            "all CUDA kernels load at start-up: slower start, more GPU memory", "mild"),
}


@env_check(
    code="TE209",
    name="debug-env-left-on",
    title="No debugging switches left on in the environment",
    area="torch",
    needs=("env.variables",),
    examples=[
        Example("warning", {"env": {"variables": {"CUDA_LAUNCH_BLOCKING": "1"}}},
                "left on after chasing a device-side assert", contains="unset CUDA_LAUNCH_BLOCKING"),
        Example("warning", {"env": {"variables": {"NCCL_DEBUG": "INFO", "TORCH_USE_CUDA_DSA": "1"}}},
                "noisy plus mild: one unset for both", contains="unset NCCL_DEBUG TORCH_USE_CUDA_DSA"),
        Example("warning", {"env": {"variables": {"PYTORCH_NO_CUDA_MEMORY_CACHING": "1"}}},
                contains="caching allocator is off"),
        Example("ok", {"env": {"variables": {"CUDA_LAUNCH_BLOCKING": "0", "NCCL_DEBUG": "WARN",
                                             "TORCH_DISTRIBUTED_DEBUG": "OFF", "PYTORCH_JIT": "1"}}},
                "set, but to their quiet values"),
        Example("ok", {"env": {"variables": {"TORCH_SHOW_CPP_STACKTRACES": "1"}}},
                "mild only: mentioned, not a warning", contains="TORCH_SHOW_CPP_STACKTRACES"),
        Example("ok", {"env": {"variables": {}}}, "none set"),
    ],
)
def debug_env_left_on(facts):
    """
    ## What it checks
    Environment variables that switch on debugging behaviour in CUDA, torch, torch.compile and
    NCCL: `CUDA_LAUNCH_BLOCKING`, `PYTORCH_NO_CUDA_MEMORY_CACHING`, `TORCH_COMPILE_DEBUG`,
    `PYTORCH_JIT=0`, `TORCH_DISTRIBUTED_DEBUG=DETAIL`, `NCCL_DEBUG=INFO`, `TORCH_LOGS`, and milder
    ones (`TORCH_SHOW_CPP_STACKTRACES`, `TORCH_USE_CUDA_DSA`, `CUDA_MODULE_LOADING=EAGER`).
    `CUDA_CACHE_DISABLE` is reported by TE210.

    ## Why it matters
    They are the right tools while chasing a bug and expensive afterwards: a
    `CUDA_LAUNCH_BLOCKING=1` exported in `~/.bashrc` or a job script makes every run several
    times slower, and `NCCL_DEBUG=INFO` buries the one line that matters in logs. Nothing warns
    that they are still set.

    ## How to fix
    Unset them in this shell, then remove the `export` from wherever it came from (`~/.bashrc`,
    the job script, the container image's `ENV`). Set them per command while debugging:
    `CUDA_LAUNCH_BLOCKING=1 python train.py`.
    """
    variables = facts.env.variables
    found = {name: (value, *DEBUG_VARIABLES[name][1:]) for name, value in sorted(variables.items())
             if name in DEBUG_VARIABLES and DEBUG_VARIABLES[name][0](value)}
    if not found:
        return ok("no debugging switches are set")
    evidence = {f"{name}={value}": effect for name, (value, effect, _) in found.items()}
    costly = {name: v for name, v in found.items() if v[2] != "mild"}
    if not costly:
        return ok(f"only mild debugging switches are set ({', '.join(found)})", **evidence)
    worst = next(iter(sorted(costly.items(), key=lambda kv: kv[1][2] != "slow")))
    name, (value, effect, _) = worst
    others = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
    return warning(f"{name}={value} is set: {effect}{others}",
                   fix=Fix("Unset the debugging switches, and remove their export from ~/.bashrc, the job script "
                           "or the container image; set them per command while debugging",
                           (f"unset {' '.join(found)}",
                            f"grep -n -E '{'|'.join(found)}' ~/.bashrc ~/.profile ~/.bash_profile 2>/dev/null")),
                   evidence=evidence)
