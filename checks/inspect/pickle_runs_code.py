from torchdoctor.inspect.allowlist import ALLOWED, is_blocked, is_code_exec
from torchdoctor.model import Fix, error, ok
from torchdoctor.registry import CkptExample, ckpt_rule


def code_globals(report) -> list[str]:
    return sorted(g for g in report.globals if g not in ALLOWED and is_code_exec(g))


@ckpt_rule(
    code="TI103",
    name="pickle-runs-code",
    title="Loading the checkpoint runs no code (no os.system, subprocess, eval, ...)",
    related=("weights-only-unpickling",),
    examples=[
        CkptExample("error", {"format": "zip", "globals": {"posix.system": 1, "torch._utils._rebuild_tensor_v2": 3}},
                    "a __reduce__ that calls os.system", contains="posix.system"),
        CkptExample("error", {"format": "legacy", "globals": {"builtins.eval": 1}}, contains="builtins.eval"),
        CkptExample("error", {"format": "zip", "readable": False, "problem": {"kind": "truncated", "detail": "cut"},
                              "globals": {"subprocess.Popen": 1}}, "a truncated file still shows its globals",
                    contains="subprocess.Popen"),
        CkptExample("ok", {"format": "zip", "globals": {"torch._utils._rebuild_tensor_v2": 3, "collections.OrderedDict": 1,
                                                        "argparse.Namespace": 1}},
                    "a class to allowlist is TI104's, not code execution"),
        CkptExample("ok", {"format": "zip", "globals": {"builtins.set": 1, "_codecs.encode": 1}},
                    "allowlisted builtins"),
    ],
)
def pickle_runs_code(report):
    """
    ## What it checks
    Every global the pickle imports (GLOBAL, STACK_GLOBAL, INST), read without executing anything,
    against the callables that execute code or touch the system: `os`/`posix`/`nt`, `subprocess`,
    `builtins.eval`/`exec`/`getattr`/`__import__`, `socket`, `runpy`, `pickle`, `functools`,
    `operator`, torch internals that run commands, and more.

    ## Why it matters
    `torch.load(weights_only=False)` (and every torch before 2.6 by default) calls these while
    loading: the file runs code on your machine. Malicious checkpoints on model hubs do exactly this.

    ## How to fix
    Do not load it with `weights_only=False`. Get the weights from a trusted source, ideally as
    safetensors. `torch.load(..., weights_only=True)` refuses it (torch >= 2.10 for the known
    bypasses to be closed).
    """
    bad = code_globals(report)
    if not bad:
        return ok("no global executes code")
    blocked = [g for g in bad if is_blocked(g)]
    evidence = {"code-executing globals": bad}
    if blocked:
        evidence["cannot be allowlisted (torch blocks the module)"] = blocked
    return error(f"this file RUNS CODE when loaded with weights_only=False: it calls {', '.join(bad[:5])}"
                 + (f" and {len(bad) - 5} more" if len(bad) > 5 else ""),
                 fix=Fix("Do not load it with weights_only=False; get the weights from a trusted source "
                         "(prefer safetensors). weights_only=True refuses it on torch >= 2.10",
                         ("torch.load(path, weights_only=True)   # raises instead of running the code",)),
                 evidence=evidence, related=("weights-only-unpickling",))
