import ast
import re

from torchdoctor.checks.lint._callflow import (
    has_star_kwargs, insert_keyword, is_torch_load, keyword, passes, short_call,
)
from torchdoctor.lint import context
from torchdoctor.lint.model import LintFix, Violation
from torchdoctor.registry import lint_rule

_OTHER_OBJECTS = "argparse.Namespace, numpy arrays, a whole nn.Module"


@lint_rule(
    code="TD402",
    name="load-without-weights-only",
    title="torch.load without an explicit weights_only (the default flipped in torch 2.6)",
    on=(ast.Call,),
    requires=(re.compile(r"load\b|load_state_dict_from_url|load_url"),
              ("torch.load", "serialization", "import torch as", "from torch import", "load_state_dict_from_url",
               "load_url")),
    severity="warning",
    related=("weights-only-unpickling",),
    invalid=[
        """
import torch
state = torch.load("model.pt")  # <-
""",
        """
import torch
checkpoint = torch.hub.load_state_dict_from_url(url, map_location="cpu", check_hash=True)  # <-
""",
        """
import torch
ckpt = torch.load(args.resume, map_location="cpu")  # <-
model.load_state_dict(ckpt["model"])
""",
        """
from torch import load as torch_load

def restore(path):
    return torch_load(path)  # <-
""",
        """
import torch.serialization
obj = torch.serialization.load(  # <-
    open("cache.pt", "rb"),
)
""",
    ],
    valid=[
        """
import torch
state = torch.hub.load_state_dict_from_url(url, map_location="cpu", weights_only=True)
""",
        """
import torch
def load_checkpoint(path, weights_only=True):
    kwargs = dict(map_location="cpu", weights_only=weights_only)
    try:
        return torch.load(path, **kwargs)
    except TypeError:  # a torch older than 1.13 has no weights_only=
        if not weights_only:
            return torch.load(path, map_location="cpu")
        raise
""",
        """
import torch
state = torch.load("model.pt", weights_only=True)
""",
        """
import torch
ckpt = torch.load(path, map_location="cpu", weights_only=False)  # explicit: a trusted full checkpoint
""",
        """
import torch
kwargs = {"weights_only": True}
state = torch.load(path, **kwargs)  # may pass it
""",
        """
import dill
import torch
obj = torch.load(path, pickle_module=dill)  # a custom pickle module: full unpickling is the stated intent
""",
        """
import torch
model = torch.jit.load("model.ts")
hub = torch.hub.load("pytorch/vision", "resnet18")
""",
        """
import numpy as np
import pickle
arr = np.load("x.npy")
obj = pickle.load(open("x.pkl", "rb"))
""",
    ],
)
def load_without_weights_only(node, module):
    """
    ## What it does
    Finds `torch.load(...)` calls that do not pass `weights_only=` explicitly. The advice
    depends on the torch the code targets (`--target-torch`, `[tool.torchdoctor] target-torch`,
    else the installed torch).

    `torch.hub.load_state_dict_from_url(...)` (and `torch.utils.model_zoo.load_url`) without
    `weights_only=` is reported in every torch version: its default is still False.

    ## Why is this bad?
    The default flipped in torch 2.6. Up to 2.5 `torch.load` defaults to `weights_only=False`:
    it unpickles whatever the file contains, so a downloaded or shared checkpoint can run
    arbitrary code. From 2.6 the default is `weights_only=True`: only tensors, state dicts and
    a short allowlist of types load, and a checkpoint that also pickled other Python objects
    (an `argparse.Namespace`, numpy arrays, a whole `nn.Module`) fails with
    "Weights only load failed ... Unsupported global". Code that does not say which it needs
    changes behaviour with the torch version it runs on.

    ## Example
    ```python
    state = torch.load("model.pt")
    ```
    Use instead:
    ```python
    state = torch.load("model.pt", weights_only=True)           # tensors and state dicts
    ckpt = torch.load("trusted.ckpt", weights_only=False)       # a full pickle you trust
    ```
    """
    if module.call_name(node) in _HUB_LOADS:
        return _hub_load(node, module)
    if not is_torch_load(module, node):
        return None
    if keyword(node, "weights_only") is not None or has_star_kwargs(node):
        return None
    if passes(node, "pickle_module", 2):
        return None  # torch >= 2.6 then defaults to weights_only=False, and True with it is an error
    if _old_torch_fallback(node, module):
        return None  # `except TypeError:` after a torch.load that passed weights_only: a torch without it
    target = context.target()
    if target is not None and target < (1, 13):
        return None  # weights_only= does not exist before torch 1.13
    call = short_call(module, node)
    if target is None:
        message = (f"{call} does not say weights_only=: with torch < 2.6 the default is weights_only=False, "
                   "which unpickles anything in the file (an untrusted checkpoint can run arbitrary code); "
                   "with torch >= 2.6 it is True, and a checkpoint that also holds other objects "
                   f"({_OTHER_OBJECTS}) fails with 'Weights only load failed'")
    elif target < (2, 6):
        message = (f"{call} does not say weights_only=: on the targeted torch {target[0]}.{target[1]} the default "
                   "is weights_only=False, which unpickles anything in the file: an untrusted checkpoint can run "
                   "arbitrary code (and torch >= 2.6 changes the default to True)")
    else:
        message = (f"{call} does not say weights_only=: on the targeted torch {target[0]}.{target[1]} the default "
                   "is weights_only=True, so a checkpoint that also holds other objects "
                   f"({_OTHER_OBJECTS}) fails with 'Weights only load failed' (before 2.6 the default was False)")
    edit = insert_keyword(node, "weights_only=True")
    if target is not None and target < (2, 6):
        summary = ("Pass weights_only=True (tensors and state dicts; torch.serialization.add_safe_globals for "
                   "other classes you trust); weights_only=False only for files you trust")
    else:
        summary = ("Say which one the file needs: weights_only=True for tensors and state dicts, or "
                   "weights_only=False for a full checkpoint from a source you trust")
    return Violation(node, message, LintFix(summary, edits=(edit,) if edit else (), safe=False))


_HUB_LOADS = frozenset({"torch.hub.load_state_dict_from_url", "torch.utils.model_zoo.load_url"})


def _hub_load(node: ast.Call, module):
    """torch.hub.load_state_dict_from_url keeps weights_only=False as its default in every torch
    (2.13 included): the downloaded file is unpickled as a whole."""
    if keyword(node, "weights_only") is not None or has_star_kwargs(node) or len(node.args) > 6:
        return None
    target = context.target()
    if target is not None and target < (1, 13):
        return None  # weights_only= does not exist before torch 1.13
    call = short_call(module, node)
    edit = insert_keyword(node, "weights_only=True")
    return Violation(node, f"{call} downloads a checkpoint and unpickles all of it: unlike torch.load, "
                           "load_state_dict_from_url still defaults to weights_only=False (torch 2.13 too), so a "
                           "file from a compromised or mistyped URL can run arbitrary code on load",
                     LintFix("Pass weights_only=True (a state dict needs nothing else)", edits=(edit,) if edit else (),
                             safe=False))


def _catches_type_error(handler: ast.ExceptHandler) -> bool:
    kinds = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any(isinstance(k, ast.Name) and k.id == "TypeError" for k in kinds)


def _old_torch_fallback(node: ast.Call, module) -> bool:
    """The call sits in an `except TypeError:` handler whose `try` body calls torch.load with
    weights_only= (or **kwargs): the compatibility path for a torch that does not accept it."""
    for anc in module.ancestors(node):
        if isinstance(anc, ast.ExceptHandler) and anc.type is not None and _catches_type_error(anc):
            tries = module.parents.get(anc)
            if isinstance(tries, ast.Try):
                for stmt in tries.body:
                    for n in ast.walk(stmt):
                        if isinstance(n, ast.Call) and is_torch_load(module, n) and (
                                keyword(n, "weights_only") is not None or has_star_kwargs(n)):
                            return True
        if isinstance(anc, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            break
    return False
