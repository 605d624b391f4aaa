import keyword

from torchdoctor.inspect.allowlist import CLASS, DATA_CLASS, DATA_FUNCTION, REFERENCE, RUNS_CODE, verdict
from torchdoctor.model import Fix, ok, skip, warning
from torchdoctor.registry import CkptExample, ckpt_rule

TRUST = "   # only if you trust the file"


def _identifiers(dotted: str) -> bool:
    return all(p.isidentifier() and not keyword.iskeyword(p) for p in dotted.split("."))


def safe_globals_code(classes: list[str]) -> str:
    """One line of Python that allowlists these classes: each imported under a unique name; a class
    of the script that saved the file (`__main__`) cannot be imported, so it is named and explained;
    numpy 1.x names moved under numpy._core and take the (class, "old name") form."""
    imports: dict[str, list[str]] = {}
    exprs, notes, taken = [], [], set()
    for full in classes:
        mod, _, name = full.rpartition(".")
        if mod == "__main__":
            exprs.append(name)
            notes.append(f"{name}: the class {full} of the script that saved it, defined or imported first")
            continue
        if mod == "builtins":
            exprs.append(name)  # a builtin needs no import, and importing it would shadow nothing new
            continue
        if mod.startswith("numpy.core"):
            new = "numpy._core" + mod[len("numpy.core"):]
            imports.setdefault("numpy", [])
            exprs.append(f'({new}.{name}, "{full}")')
            continue
        alias, n = name, 2
        while alias in taken:
            alias, n = f"{name}_{n}", n + 1
        taken.add(alias)
        imports.setdefault(mod, []).append(name + (f" as {alias}" if alias != name else ""))
        exprs.append(alias)
    lines = [f"from {mod} import {', '.join(names)}" if names else f"import {mod}" for mod, names in imports.items()]
    head = "; ".join(["import torch", *lines])
    comment = TRUST + (" (" + "; ".join(notes) + ")" if notes else "")
    return f"{head}; torch.serialization.add_safe_globals([{', '.join(exprs)}]){comment}"


@ckpt_rule(
    code="TI104",
    name="weights-only-globals",
    title="Every global the checkpoint needs is on torch's weights_only allowlist",
    related=("weights-only-unpickling",),
    examples=[
        CkptExample("warning", {"format": "zip", "globals": {"argparse.Namespace": 1, "torch._utils._rebuild_tensor_v2": 2},
                                "global_uses": {"argparse.Namespace": ["class"]}},
                    "training args saved beside the weights", contains="add_safe_globals([Namespace])"),
        CkptExample("warning", {"format": "zip", "globals": {"numpy.core.multiarray.scalar": 1, "numpy.dtype": 1},
                                "global_uses": {"numpy.core.multiarray.scalar": ["call"], "numpy.dtype": ["call"]}},
                    "a numpy-1-era scalar: the function is never offered for allowlisting", contains="never allowlist"),
        CkptExample("warning", {"format": "zip", "globals": {"__main__.Net": 1, "torch.nn.modules.linear.Linear": 1},
                                "global_uses": {"__main__.Net": ["class"], "torch.nn.modules.linear.Linear": ["class"]}},
                    "torch.save(model) of the user's own class", contains="state_dict"),
        CkptExample("ok", {"format": "zip", "globals": {"torch._utils._rebuild_tensor_v2": 2, "collections.OrderedDict": 1,
                                                        "torch.FloatStorage": 1}}),
        CkptExample("skip", {"format": "zip", "globals": {"posix.system": 1}}, "code execution is TI103's error"),
        CkptExample("skip", {"format": "torchscript", "globals": {"__torch__.Net": 1},
                             "global_uses": {"__torch__.Net": ["class"]}}, "TorchScript is TI110's"),
        CkptExample("skip", {"format": "safetensors", "globals": {}}),
    ],
)
def weights_only_globals(report):
    """
    ## What it checks
    The globals the pickle needs, against `torch._weights_only_unpickler._get_allowed_globals()`
    (recorded from torch 2.13), when none of them runs code (TI103): plain data types torch does
    not allowlist (`argparse.Namespace`, numpy arrays), classes rebuilt without being called (your
    own model classes from `torch.save(model)`), and functions or objects merely referenced.

    ## Why it matters
    Since torch 2.6 `torch.load` defaults to `weights_only=True`, which fails with `Unsupported
    global: GLOBAL argparse.Namespace was not an allowed global by default` for any of them.

    ## How to fix
    Best, re-save only tensors and plain containers (`model.state_dict()`). If you trust the file,
    allowlist the classes it names with `torch.serialization.add_safe_globals([...])`, imported by
    their names. Never allowlist a function: it would let any file call it. Or load it with
    `weights_only=False`, again only if you trust it.
    """
    if report.format == "safetensors":
        return skip("safetensors holds no pickle")
    graded = verdict(report)
    if graded.get(RUNS_CODE):
        return skip("the file runs code (TI103): nothing in it should be allowlisted")
    classes = sorted({**graded.get(DATA_CLASS, {}), **graded.get(CLASS, {})})
    others = sorted({**graded.get(DATA_FUNCTION, {}), **graded.get(REFERENCE, {})})
    names = classes + others
    if not names:
        if graded.get("torchscript"):
            return skip("a TorchScript archive: TI110")
        if report.readable:
            return ok("every global is on torch's weights_only allowlist")
        return ok("no global outside the allowlist in what could be read")
    offered = [c for c in classes if _identifiers(c.rpartition(".")[0]) and c.rpartition(".")[2].isidentifier()]
    commands = []
    parts = []
    whole_model = any(c.startswith("torch.nn.modules.") or c.startswith("__main__.") or ".models." in c
                      for c in classes)
    if whole_model:
        parts.append("this is a whole pickled model: re-save it as a state_dict (torch.save(model.state_dict(), "
                     "path)) and load that into a freshly built model")
        commands.append("torch.save(model.state_dict(), path)   # where the model was saved")
    if offered:
        parts.append(f"if you trust the file, allowlist its {len(offered)} class(es) by name before torch.load")
        commands.append(safe_globals_code(offered))
    if others:
        parts.append(f"{', '.join(others[:4])}{' ...' if len(others) > 4 else ''}: functions or objects, never "
                     "allowlist them; re-save without them (tensors and plain containers only)")
    commands.append("torch.load(path, weights_only=False)" + TRUST)
    summary = "; ".join(parts) + "; or load it with weights_only=False, only if you trust the file"
    summary = summary[0].upper() + summary[1:]
    return warning(f"torch.load(weights_only=True) (the default since torch 2.6) refuses this file: it needs "
                   f"{len(names)} global(s) outside the allowlist: {', '.join(names[:6])}"
                   + (f" and {len(names) - 6} more" if len(names) > 6 else ""),
                   fix=Fix(summary, tuple(commands)),
                   evidence={k: v for k, v in (("classes", classes),
                                               ("functions and references (never allowlist)", others)) if v},
                   related=("weights-only-unpickling",))
