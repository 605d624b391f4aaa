from torchdoctor.inspect.allowlist import RUNS_CODE, UNPROVEN_CALL, is_blocked, verdict
from torchdoctor.model import Fix, error, ok
from torchdoctor.registry import CkptExample, ckpt_rule


@ckpt_rule(
    code="TI103",
    name="pickle-runs-code",
    title="Loading the checkpoint runs no code (nothing but torch's allowlist, data types and class rebuilds)",
    related=("weights-only-unpickling",),
    examples=[
        CkptExample("error", {"format": "zip", "globals": {"posix.system": 1, "torch._utils._rebuild_tensor_v2": 3},
                              "global_uses": {"posix.system": ["call"], "torch._utils._rebuild_tensor_v2": ["call"]}},
                    "a __reduce__ that calls os.system", contains="posix.system"),
        CkptExample("error", {"format": "legacy", "globals": {"builtins.eval": 1}}, contains="builtins.eval"),
        CkptExample("error", {"format": "zip", "readable": False, "problem": {"kind": "truncated", "detail": "cut"},
                              "globals": {"subprocess.Popen": 1}}, "a truncated file still shows its globals",
                    contains="subprocess.Popen"),
        CkptExample("error", {"format": "zip", "globals": {"pkgutil.resolve_name": 1},
                              "global_uses": {"pkgutil.resolve_name": ["call"]}},
                    "import by name, missing from older denylists", contains="pkgutil.resolve_name"),
        CkptExample("error", {"format": "zip", "globals": {"mylib.utils.run_job": 1},
                              "global_uses": {"mylib.utils.run_job": ["call"]}},
                    "an unknown function called while loading is presumed to run code", contains="CAN RUN CODE"),
        CkptExample("error", {"format": "zip", "globals": {"torch.print.__self__.exec": 1},
                              "global_uses": {"torch.print.__self__.exec": ["call", "dotted"]}},
                    "a dotted name reaches exec through torch", contains="dotted"),
        CkptExample("error", {"format": "zip", "globals": {"<computed STACK_GLOBAL>": 1},
                              "global_uses": {"<computed STACK_GLOBAL>": ["computed"]}},
                    "a STACK_GLOBAL whose name is built at load time", contains="computes"),
        CkptExample("ok", {"format": "zip", "globals": {"torch._utils._rebuild_tensor_v2": 3, "collections.OrderedDict": 1,
                                                        "argparse.Namespace": 1, "__main__.Net": 1},
                           "global_uses": {"argparse.Namespace": ["class"], "__main__.Net": ["class"]}},
                    "a data type and the user's own class: TI104's warning, not code execution"),
        CkptExample("ok", {"format": "torchscript", "globals": {"__torch__.torch.nn.modules.linear.Linear": 1,
                                                                "torch.jit._pickle.build_intlist": 1},
                           "global_uses": {"__torch__.torch.nn.modules.linear.Linear": ["class"],
                                           "torch.jit._pickle.build_intlist": ["call"]}},
                    "TorchScript's own reconstruction is TI110's"),
        CkptExample("ok", {"format": "zip", "globals": {"builtins.set": 1, "_codecs.encode": 1}},
                    "allowlisted builtins"),
        CkptExample("ok", {"format": "zip", "globals": {"typing.Any": 1}, "global_uses": {"typing.Any": []}},
                    "a standard-library name only referenced (an omegaconf config's typing.Any)"),
        CkptExample("error", {"format": "zip", "globals": {"cmd.Cmd": 1}, "global_uses": {"cmd.Cmd": ["class"]}},
                    "a standard-library class rebuilt from its state is a gadget, not a model", contains="cmd.Cmd"),
    ],
)
def pickle_runs_code(report):
    """
    ## What it checks
    Every global the pickle imports (GLOBAL, STACK_GLOBAL, INST), read without executing anything,
    graded from torch's weights_only allowlist outwards. An error: a global from a module known to
    run code, spawn processes, touch files or import by name (`os`, `subprocess`, `builtins.eval`,
    `pydoc.locate`, `pkgutil.resolve_name`, `doctest`, `logging.config`, `importlib`, `torch.fx`,
    `torch.distributed.run`, nested `torch.load` / `pickle.loads`, ...); any other callable the
    pickle calls that is not a known data type or rebuild function; a dotted name (`torch` +
    `os.system`); a global the pickle computes (STACK_GLOBAL of non-literal operands); BUILD on an
    imported object. Classes rebuilt without being called (your own model classes) and
    TorchScript's own reconstruction are TI104's and TI110's warnings.

    ## Why it matters
    `torch.load(weights_only=False)` (and every torch before 2.6 by default) calls these while
    loading: the file runs code on your machine. Malicious checkpoints on model hubs do exactly this,
    and denylist scanners miss whatever their list does not name.

    ## How to fix
    Do not load it with `weights_only=False`, and do not allowlist any of its globals with
    `add_safe_globals`. Get the weights from a trusted source, ideally as safetensors.
    """
    bad = verdict(report).get(RUNS_CODE, {})
    if not bad:
        return ok("no global runs code: each is allowlisted, plain data, a class rebuild or TorchScript's own")
    names = list(bad)
    blocked = [g for g in names if is_blocked(g)]
    evidence = {"globals that run code": {g: bad[g] for g in names[:20]}}
    if len(names) > 20:
        evidence["more"] = f"{len(names) - 20} more"
    if blocked:
        evidence["cannot be allowlisted (torch blocks the module)"] = blocked
    # Known code runners first: they decide the wording.
    names.sort(key=lambda g: bad[g] == UNPROVEN_CALL)
    listed = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
    if bad[names[0]] != UNPROVEN_CALL:
        return error(f"this file RUNS CODE when loaded with weights_only=False: it needs {listed} ({bad[names[0]]})",
                     fix=Fix("Do not load it with weights_only=False and do not allowlist any of its globals; get "
                             "the weights from a trusted source (prefer safetensors). weights_only=True refuses it",
                             ("torch.load(path, weights_only=True)   # raises instead of running the code",)),
                     evidence=evidence, related=("weights-only-unpickling",))
    return error(f"this file CAN RUN CODE when loaded with weights_only=False: it calls {listed}, which torchdoctor "
                 "cannot prove to be plain data (a function, or a class whose call runs its code)",
                 fix=Fix("Do not load it with weights_only=False unless you know what each of these is and trust the "
                         "file's source; never allowlist a function. Better: get the weights as a state_dict or "
                         "safetensors",
                         ("torch.load(path, weights_only=True)   # raises instead of calling them",)),
                 evidence=evidence, related=("weights-only-unpickling",))
