import ast
import re

from torchdoctor.checks.lint._callflow import (
    has_star_args, local_name_for, numpy_array, reaching_value, source,
)
from torchdoctor.lint.model import Edit, LintFix, Violation
from torchdoctor.lint.module import SourceModule
from torchdoctor.registry import lint_rule

# The legacy constructors and the dtype each produces (torch.Tensor: the default dtype).
_LEGACY = {
    "Tensor": "float32", "FloatTensor": "float32", "DoubleTensor": "float64", "HalfTensor": "float16",
    "BFloat16Tensor": "bfloat16", "LongTensor": "int64", "IntTensor": "int32", "ShortTensor": "int16",
    "CharTensor": "int8", "ByteTensor": "uint8", "BoolTensor": "bool",
}
_FACTORIES = ("torch.tensor", "torch.as_tensor")
# The last part of every name above: an attribute call ending otherwise is none of them.
_CONSTRUCTOR_ATTRS = frozenset(_LEGACY) | {f.rsplit(".", 1)[1] for f in _FACTORIES}


def _legacy(name: str | None) -> tuple[str, bool] | None:
    """("FloatTensor", on_cuda) for a legacy constructor's qualified name."""
    if not name:
        return None
    for prefix, cuda in (("torch.", False), ("torch.cuda.", True)):
        tail = name[len(prefix):] if name.startswith(prefix) else None
        if tail in _LEGACY:
            return tail, cuda
    return None



_ENSOR_CALL = re.compile(r"ensor(?:\s*\(|\s+as\s)")


def _constructor_call(text: str) -> bool:
    """`torch.tensor(`, `as_tensor(`, `FloatTensor(`, `Tensor(`, or one imported under another name
    (`... import tensor as t`); not `is_tensor(` or `to_tensor(`."""
    for m in _ENSOR_CALL.finditer(text):
        end = m.start() + len("ensor")
        begin = end - len("tensor")
        while begin > 0 and (text[begin - 1].isalnum() or text[begin - 1] == "_"):
            begin -= 1
        ident = text[begin:end]
        if ident in ("tensor", "as_tensor") or ident.endswith("Tensor"):
            return True
    return False


@lint_rule(
    code="TD201",
    name="tensor-from-numpy-copy",
    title="torch.Tensor(ndarray) / legacy typed constructors on numpy arrays",
    on=(ast.Call,),
    requires=(_constructor_call,),
    severity="note",
    related=("dtype-mismatch",),
    invalid=[
        """
import numpy as np
import torch
ids = np.load("input_ids.npy").astype(np.int64)
x = torch.Tensor(ids)  # <-
""",
        """
import numpy as np
import torch
from torch.utils.data import Dataset

class Frames(Dataset):
    def __init__(self, path):
        self.frames = np.load(path, mmap_mode="r")

    def __getitem__(self, idx):
        return torch.FloatTensor(self.frames[idx])  # <-
""",
        """
import cv2
import numpy as np
import torch as th

class Images(th.utils.data.Dataset):
    def __getitem__(self, i):
        img = cv2.imread(self.paths[i])
        img = img.transpose(2, 0, 1) / 255.0
        return th.cuda.FloatTensor(img)  # <-
""",
        """
import numpy as np
import torch
labels = torch.LongTensor(np.random.randint(0, 10, size=(8,)))
coords = torch.Tensor(np.arange(16))  # <-
""",
        """
import numpy as np
import torch

def collate(samples):
    images = torch.tensor([np.asarray(s["image"]) for s in samples])  # <-
    crops = [np.array(s["crop"]) for s in samples]
    return images, torch.Tensor(crops)  # <-
""",
        """
import soundfile
import torch
from torch.utils.data import Dataset

def load_wav(path, torch_tensor=False):
    data, sr = soundfile.read(path, dtype="int16")
    if torch_tensor:
        return torch.FloatTensor(data.astype("float32")), sr
    return data, sr

class Audio(Dataset):
    def __getitem__(self, idx):
        audio, sr = load_wav(self.files[idx])  # the int16 array, through the helper's return
        audio = audio / self.max_wav_value
        return torch.FloatTensor(audio)  # <-
""",
    ],
    valid=[
        """
import numpy as np
import torch

def to_tensor(data):
    if isinstance(data, np.ndarray):
        return torch.from_numpy(data)
    if isinstance(data, int):
        return torch.LongTensor([data])  # an int here, whatever the callers pass elsewhere
    return torch.tensor(data)

x = to_tensor(np.zeros(3))
""",
        """
import torch

def load(path):
    return torch.load(path, weights_only=True)

def step(path):
    return torch.Tensor(load(path))  # a tensor from the helper, not a numpy array
""",
        """
import numpy as np
import torch
arr = np.load("x.npy")
x = torch.from_numpy(arr)
y = torch.as_tensor(arr, dtype=torch.float32)
""",
        """
import torch
x = torch.Tensor(3, 4)          # a size, not an array (another rule's business)
y = torch.FloatTensor([1.0, 2.0])  # a Python list literal
""",
        """
import numpy as np
import torch

def f(batch):
    return torch.Tensor(batch)  # `batch` is a parameter: its type is unknown
""",
        """
import numpy as np
import torch
a = np.load("a.npy")
a = a.tolist()
t = torch.Tensor(a)  # a list now, and the last assignment says so
""",
        """
import numpy as np
import torch
buf = np.zeros((4, 4), dtype=np.float32)
t = torch.FloatTensor(buf)  # float32 already: shares the buffer, no hidden copy or cast
""",
        """
import numpy as np
import torch

def sinusoids(n_pos, dim):  # library code, runs once at model construction
    enc = np.array([[pos / np.power(10000, 2 * (j // 2) / dim) for j in range(dim)] for pos in range(n_pos)])
    return torch.FloatTensor(np.sin(enc[:, 0::2]))
""",
        """
import numpy as np
import torch
n = np.prod(shape)
t = torch.Tensor(n)  # a numpy scalar, not an array
""",
        """
import numpy as np
import torch
for x in np.load("rows.npy"):
    pass
for x in loader:
    t = torch.Tensor(x)  # rebound by the loop
""",
        """
import numpy as np
import torch
stacked = torch.from_numpy(np.stack([np.asarray(s) for s in samples]))
pairs = torch.tensor([a.shape[0], b.shape[0]])
""",
    ],
)
def tensor_from_numpy_copy(node, module):
    """
    ## What it does
    Finds the legacy constructors `torch.Tensor(x)`, `torch.FloatTensor(x)`, `torch.LongTensor(x)`,
    `torch.cuda.FloatTensor(x)`... applied to a numpy array (the argument, or the value last
    assigned to it, comes from `np.*(...)`, `cv2.imread`, `soundfile.read`, `.astype(np.float32)`,
    `.numpy()`, or an array attribute of the same class; the value-flow engine also follows it
    through tuples returned by the file's or the project's helpers, skipping branches a call's
    constant arguments rule out), and `torch.tensor` / constructors given a list of numpy
    arrays.

    ## Why is this bad?
    A legacy constructor forces its own dtype (`torch.Tensor`: float32). For an array of another
    dtype — numpy's default float64, or integer token ids — it silently casts and copies; for an
    array that already has that dtype it shares the array's memory instead. The same line is a
    copy or an alias depending on the data, and integer ids become floats (`Expected tensor for
    argument #1 'indices' to have scalar type Long`). A list of arrays is converted element by
    element: on torch 2.13, 256 arrays of 64×64 took 135–185 ms through `torch.tensor`,
    `torch.Tensor` or `torch.as_tensor`, against 0.7 ms for `torch.from_numpy(np.stack(list))`
    (PyTorch warns "Creating a tensor from a list of numpy.ndarrays is extremely slow" for
    `torch.tensor` only).

    ## Example
    ```python
    ids = torch.Tensor(np.load("ids.npy"))            # int64 ids -> float32 copy
    batch = torch.tensor([np.asarray(im) for im in images])
    ```
    Use instead:
    ```python
    ids = torch.from_numpy(np.load("ids.npy"))        # keeps int64, shares memory
    x = torch.as_tensor(arr, dtype=torch.float32)     # an explicit, visible conversion
    batch = torch.from_numpy(np.stack([np.asarray(im) for im in images]))
    ```
    """
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr not in _CONSTRUCTOR_ATTRS:
        return None  # `x.view(...)`, `torch.zeros(...)`: no qualified name to resolve
    name = module.call_name(node)
    legacy = _legacy(name)
    if legacy is None:
        return _list_of_arrays(node, module)
    if len(node.args) != 1 or has_star_args(node) or any(k.arg != "device" for k in node.keywords):
        return None
    arg = node.args[0]
    arr = numpy_array(module, arg)
    if arr is None:
        return _list_of_arrays(node, module)
    ctor, cuda = legacy
    target = _LEGACY[ctor]
    if ctor == "Tensor" and _sets_default_dtype(module):
        target = None  # the default dtype is changed somewhere: we cannot say which it is
    if target is not None and arr.dtype == target:
        return None  # same dtype: the constructor aliases the array, nothing hidden happens
    int_to_float = bool(arr.dtype and target and arr.dtype.startswith(("int", "uint"))
                        and not target.startswith(("int", "uint", "bool")))
    if not module.is_script and not int_to_float and not _hot_path(node, module):
        return None  # library code converting once (sinusoid tables at init): deliberate, and cheap
    written = source(module, node.func) or ctor
    arg_text = source(module, arg) or "x"
    short = arg_text if len(arg_text) <= 40 else arg_text[:37] + "..."
    origin = _origin(module, arg)
    dtype_text = "the default dtype" if target is None else target
    if arr.dtype is not None and target is not None:
        what = (f"{written}({short}) copies the {arr.dtype} numpy array{origin} and casts it to {target}"
                + (" (token ids or class labels would become floats)" if int_to_float else ""))
    else:
        what = (f"{written}({short}) on a numpy array{origin} casts it to {dtype_text} with a copy, unless "
                f"it already is {dtype_text} — then it shares the array's memory; which one happens depends "
                "on the data")
    torch_name = local_name_for(module, "torch")
    edits: tuple[Edit, ...] = ()
    dtype_expr = None
    if torch_name and target is not None and target != "bool":
        dtype_expr = f"{torch_name}.{target}"
    elif torch_name and target == "bool":
        dtype_expr = f"{torch_name}.bool"
    if torch_name and dtype_expr and not node.keywords and node.end_lineno is not None:
        device = ', device="cuda"' if cuda else ""
        replacement = f"{torch_name}.as_tensor({arg_text}, dtype={dtype_expr}{device})"
        edits = (Edit(node.lineno, node.col_offset, node.end_lineno, node.end_col_offset or 0, replacement),)
    t = torch_name or "torch"
    dev = ', device="cuda"' if cuda else ""
    conv = f"{t}.as_tensor({short}, dtype={t}.{target}{dev})" if target else f"{t}.as_tensor({short}, dtype=...{dev})"
    return Violation(node, what,
                     LintFix(f"Say which you mean: {t}.from_numpy({short}){'.cuda()' if cuda else ''} (keeps the "
                             f"array's dtype{'' if cuda else ', shares its memory'}) or {conv} (the same "
                             "conversion, made visible)",
                             edits=edits, safe=False))


_HOT_FUNCS = ("__getitem__", "__getitems__", "__iter__", "__next__", "forward", "training_step")


def _hot_path(node: ast.AST, module: SourceModule) -> bool:
    """Per sample or per step: in a loop, a Dataset's __getitem__, a collate function, forward()."""
    child: ast.AST = node
    for anc in module.ancestors(node):
        if isinstance(anc, (ast.For, ast.AsyncFor, ast.While)) and any(child is b for b in anc.body):
            return True
        child = anc
        if isinstance(anc, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return anc.name in _HOT_FUNCS or "collate" in anc.name.lower()
        if isinstance(anc, (ast.Lambda, ast.ClassDef)):
            return False
    return False


def _sets_default_dtype(module: SourceModule) -> bool:
    return "set_default_dtype" in module.text or "set_default_tensor_type" in module.text


def _origin(module: SourceModule, arg: ast.AST) -> str:
    base = arg
    while isinstance(base, ast.Subscript):
        base = base.value
    if isinstance(base, ast.Name):
        value = reaching_value(module, base)
        if value is not None and value.lineno != arg.lineno:
            text = source(module, value) or ""
            text = text if len(text) <= 40 else text[:37] + "..."
            return f" ({text} at line {value.lineno})"
    return ""


def _list_of_arrays(node: ast.Call, module: SourceModule):
    """torch.tensor([ndarray, ...]) and friends: element-by-element conversion."""
    name = module.call_name(node)
    if name not in _FACTORIES and _legacy(name) is None:
        return None
    if not node.args or has_star_args(node):
        return None
    arg = node.args[0]
    seq = arg
    if isinstance(seq, ast.Name):
        value = reaching_value(module, seq)
        seq = value if isinstance(value, (ast.List, ast.ListComp, ast.Tuple)) else None
    if isinstance(seq, ast.ListComp):
        elements = [seq.elt]
    elif isinstance(seq, (ast.List, ast.Tuple)) and seq.elts:
        elements = list(seq.elts)
    else:
        return None
    if any(isinstance(e, ast.Starred) for e in elements):
        return None
    # Subscripts are not followed: `arr[0]` of a 1-d array is a scalar, and a list of scalars is fine.
    if not all(numpy_array(module, e, subscripts=False) for e in elements):
        return None
    written = source(module, node.func) or "torch.tensor"
    arg_text = source(module, arg) or "arrays"
    short = arg_text if len(arg_text) <= 40 else arg_text[:37] + "..."
    np_name = local_name_for(module, "numpy")
    edits: tuple[Edit, ...] = ()
    if np_name and arg.end_lineno is not None:
        edits = (Edit(arg.lineno, arg.col_offset, arg.end_lineno, arg.end_col_offset or 0,
                      f"{np_name}.stack({arg_text})"),)
    t = local_name_for(module, "torch") or "torch"
    n = np_name or "np"
    legacy = _legacy(name)
    better = (f"{t}.from_numpy({n}.stack({short}))" if legacy is None
              else f"{t}.as_tensor({n}.stack({short}), dtype={t}.{_LEGACY[legacy[0]]})")
    return Violation(node, f"{written}({short}) converts a list of numpy arrays element by element "
                           "(on torch 2.13: ~200x slower than converting one stacked array)",
                     LintFix(f"Stack the arrays first: {better}", edits=edits, safe=False))
