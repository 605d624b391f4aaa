from torchdoctor.inspect.allowlist import ALLOWED, is_code_exec
from torchdoctor.model import Fix, ok, skip, warning
from torchdoctor.registry import CkptExample, ckpt_rule


def needs_allowlisting(report) -> list[str]:
    return sorted(g for g in report.globals if g not in ALLOWED and not is_code_exec(g))


def _python_name(full: str) -> tuple[str, str]:
    """(import line, expression) for a dotted global; numpy 1.x names moved under numpy 2."""
    mod, _, name = full.rpartition(".")
    if mod.startswith("numpy.core"):
        new = "numpy._core" + mod[len("numpy.core"):]
        return f"import {new.split('.')[0]}", f'({new}.{name}, "{full}")'
    return f"import {mod}", f"{mod}.{name}"


def safe_globals_code(names: list[str]) -> str:
    imports = sorted({_python_name(n)[0] for n in names})
    exprs = ", ".join(_python_name(n)[1] for n in names)
    return "; ".join(imports + [f"torch.serialization.add_safe_globals([{exprs}])"])


@ckpt_rule(
    code="TI104",
    name="weights-only-globals",
    title="Every global the checkpoint needs is on torch's weights_only allowlist",
    related=("weights-only-unpickling",),
    examples=[
        CkptExample("warning", {"format": "zip", "globals": {"argparse.Namespace": 1, "torch._utils._rebuild_tensor_v2": 2}},
                    "training args saved beside the weights", contains="add_safe_globals([argparse.Namespace])"),
        CkptExample("warning", {"format": "zip", "globals": {"numpy.core.multiarray.scalar": 1, "numpy.dtype": 1}},
                    "a numpy-1-era scalar: the tuple form", contains='(numpy._core.multiarray.scalar, "numpy.core.multiarray.scalar")'),
        CkptExample("warning", {"format": "zip", "globals": {"torch.nn.modules.linear.Linear": 1}},
                    "a whole model pickled", contains="state_dict"),
        CkptExample("ok", {"format": "zip", "globals": {"torch._utils._rebuild_tensor_v2": 2, "collections.OrderedDict": 1,
                                                        "torch.FloatStorage": 1}}),
        CkptExample("ok", {"format": "zip", "globals": {"posix.system": 1}}, "code execution is TI103's error"),
        CkptExample("skip", {"format": "safetensors", "globals": {}}),
    ],
)
def weights_only_globals(report):
    """
    ## What it checks
    The globals the pickle needs, against `torch._weights_only_unpickler._get_allowed_globals()`
    (recorded from torch 2.13): an allowlist, so the verdict is sound where denylist scanners are not.

    ## Why it matters
    Since torch 2.6 `torch.load` defaults to `weights_only=True`, which fails with `Unsupported
    global: GLOBAL argparse.Namespace was not an allowed global by default` for any other class
    (argparse namespaces, numpy scalars, whole pickled models).

    ## How to fix
    If you trust the file, allowlist exactly these globals with
    `torch.serialization.add_safe_globals([...])` (the tuple form `(obj, "old.module.name")` when
    the class moved, as numpy 1 -> 2 did); better, re-save only tensors and plain containers.
    """
    if report.format == "safetensors":
        return skip("safetensors holds no pickle")
    names = needs_allowlisting(report)
    if not names:
        if report.readable:
            return ok("every global is on torch's weights_only allowlist")
        return ok("no global outside the allowlist in what could be read")
    code = safe_globals_code(names)
    commands = [code + "   # only if you trust the file", "torch.load(path, weights_only=True)"]
    summary = "If you trust the file, allowlist exactly these globals before torch.load"
    if any(n.startswith("torch.nn.modules.") or ".models." in n for n in names):
        summary += ("; a whole pickled model is better re-saved as a state_dict "
                    "(torch.save(model.state_dict(), path)) and loaded into a freshly built model")
    return warning(f"torch.load(weights_only=True) (the default since torch 2.6) refuses this file: it needs "
                   f"{len(names)} global(s) outside the allowlist: {', '.join(names[:6])}"
                   + (f" and {len(names) - 6} more" if len(names) > 6 else ""),
                   fix=Fix(summary, tuple(commands)),
                   evidence={"globals to allowlist": names}, related=("weights-only-unpickling",))
