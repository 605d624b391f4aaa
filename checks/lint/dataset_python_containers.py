import ast
import re

from torchdoctor.checks.lint._wrappers import reaching, top_level_classes
from torchdoctor.lint.model import LintFix, Violation
from torchdoctor.lint.module import body_nodes
from torchdoctor.registry import lint_rule

_DATASET_BASES = {
    "torch.utils.data.Dataset", "torch.utils.data.dataset.Dataset",
    "torchvision.datasets.VisionDataset", "torchvision.datasets.vision.VisionDataset",
}
_OTHER_DATASETS = ("datasets.", "tensorflow.", "tf.", "torch_geometric.", "dgl.", "ray.", "tfds.")
_LOADERS = {"torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader"}
# Small, fixed lookup tables that are indexed by a label, not by the sample index.
_EXEMPT = re.compile(r"class|categor|label_?names?|vocab|transform|augment", re.I)
_ARRAY_HEADS = ("numpy", "np", "torch", "pandas", "pd", "pyarrow", "pa", "datasets", "h5py", "zarr", "lmdb", "scipy")
_LOADED = {
    "json.load": "json.load()", "json.loads": "json.loads()", "pickle.load": "pickle.load()",
    "pickle.loads": "pickle.loads()", "yaml.load": "yaml.load()", "yaml.safe_load": "yaml.safe_load()",
    "yaml.full_load": "yaml.full_load()", "yaml.unsafe_load": "yaml.unsafe_load()",
    "glob.glob": "glob.glob()", "os.listdir": "os.listdir()", "ujson.load": "ujson.load()",
    "orjson.loads": "orjson.loads()",
}
_BUILTINS = {"list": "list(...)", "dict": "dict(...)", "sorted": "sorted(...)"}
_LIST_METHODS = {"readlines": ".readlines()", "splitlines": ".splitlines()", "tolist": ".tolist()",
                 "to_dict": ".to_dict()", "to_list": ".to_list()"}
_FILL_METHODS = ("append", "extend", "insert", "update", "setdefault")
_LOOPS = (ast.For, ast.AsyncFor, ast.While, ast.comprehension)


@lint_rule(
    code="TD111",
    name="dataset-python-containers",
    title="Dataset keeps per-sample Python lists/dicts (copy-on-read in DataLoader workers)",
    on=(ast.ClassDef,),
    requires=("Dataset",),
    severity="warning",
    related=("dataloader-python-list-leak",),
    invalid=[
        """
import json
from torch.utils.data import Dataset, DataLoader
class CocoCaptions(Dataset):
    def __init__(self, ann_file, transform=None):
        with open(ann_file) as f:
            data = json.load(f)
        self.annotations = data["annotations"]  # <-
        self.classes = ["cat", "dog"]
        self.transform = transform
    def __len__(self):
        return len(self.annotations)
    def __getitem__(self, idx):
        ann = self.annotations[idx]
        return load_image(ann["image_id"]), ann["caption"]
loader = DataLoader(CocoCaptions("train.json"), batch_size=32, num_workers=8)
""",
        """
import glob
import torch
class Frames(torch.utils.data.Dataset):
    def __init__(self, root):
        self.samples = []  # <-
        for path in sorted(glob.glob(f"{root}/*/*.jpg")):
            self.samples.append({"path": path, "label": path.split("/")[-2]})
        self.files = [s["path"] for s in self.samples]  # <-
    def __len__(self):
        return len(self.samples)
    def __getitem__(self, index):
        index = index % len(self.samples)
        return self.read(index)
    def read(self, i):
        return Image.open(self.files[i]), self.samples[i]["label"]
""",
        """
from typing import List
from torch.utils.data import Dataset
class Detection(Dataset):
    def __init__(self, root):
        self.labels = self.get_labels(root)  # <-
    def get_labels(self, root) -> List[dict]:
        raise NotImplementedError
    def __len__(self):
        return len(self.labels)
    def __getitem__(self, i):
        label = dict(self.labels[i])
        return label
""",
        """
import json
from .base import BaseDataset  # a project base class from another file
class Captions(BaseDataset):
    def __init__(self, ann_file):
        super().__init__()
        self.anns = json.load(open(ann_file))["annotations"]  # <-
    def __getitem__(self, index):
        ann = self.anns[index]
        return ann["image"], ann["caption"]
""",
        """
import json
from torch.utils.data import Dataset
class LazyDataset(Dataset):
    def __init__(self, raw_data, tokenizer):
        self.raw_data = raw_data  # <-
    def __len__(self):
        return len(self.raw_data)
    def __getitem__(self, i):
        return self.raw_data[i]["conversations"]

def make_data(path, lazy):
    dataset_cls = LazyDataset if lazy else EagerDataset
    return dataset_cls(json.load(open(path)), tokenizer=None)
""",
        """
import numpy as np
from torch.utils.data import Dataset
class Files(Dataset):
    def __init__(self, paths):
        self.paths = np.array(paths, dtype=object)  # <-
    def __getitem__(self, idx):
        return open(self.paths[idx]).read()
""",
        """
import pandas as pd
from PIL import Image
from torch.utils.data import Dataset
class CsvImages(Dataset):
    def __init__(self, csv):
        df = pd.read_csv(csv)
        self.files = df["filepath"]  # <-
    def __getitem__(self, idx):
        return Image.open(str(self.files[idx]))
""",
    ],
    valid=[
        """
import numpy as np
from torch.utils.data import Dataset
class FromList(Dataset):
    def __init__(self, lst):
        self._lst = lst
        self._lst = SerializedList(self._lst)  # the list is packed into one buffer: the last value counts
    def __getitem__(self, idx):
        return self._lst[idx]

def build(paths):
    datasets = []
    for p in paths:
        datasets.append(load(p))
    return Truncate(datasets[0])  # one element of the list (a dataset), not the list

class Truncate(Dataset):
    def __init__(self, dataset):
        self.dataset = dataset
    def __getitem__(self, idx):
        return self.dataset[idx]
""",
        """
import pandas as pd
from torch.utils.data import Dataset
class Table(Dataset):
    def __init__(self, csv):
        df = pd.read_csv(csv)
        self.targets = df["target"]  # numbers: numpy-backed, no Python object per row
    def __getitem__(self, idx):
        return self.targets[idx]
""",
        """
import json
import numpy as np
from torch.utils.data import Dataset
class Captions(Dataset):
    def __init__(self, ann_file):
        with open(ann_file) as f:
            anns = json.load(f)["annotations"]
        self.paths = np.array([a["file"] for a in anns], dtype=np.bytes_)  # numpy: no refcounts
        self.labels = np.array([a["label"] for a in anns])
    def __len__(self):
        return len(self.paths)
    def __getitem__(self, idx):
        return load(self.paths[idx].decode()), self.labels[idx]
""",
        """
import os
import torch
from torch.utils.data import Dataset
class Folder(Dataset):
    def __init__(self, root, samples):
        self.classes = sorted(os.listdir(root))  # a small table indexed by label
        self.data = torch.load(samples)  # tensors
        self.cache = {}
    def __len__(self):
        return len(self.data)
    def __getitem__(self, idx):
        x, label = self.data[idx]
        if idx not in self.cache:
            self.cache[idx] = x
        return x, self.classes[label]
""",
        """
import json
class NotADataset:
    def __init__(self, path):
        self.items = json.load(open(path))
    def __getitem__(self, idx):
        return self.items[idx]
""",
        """
import json
from torch.utils.data import Dataset
class Lazy(Dataset):
    def __init__(self, index_file):
        self.index = json.load(open(index_file))  # never indexed by the sample index
        self.size = len(self.index)
    def __len__(self):
        return self.size
    def __getitem__(self, idx):
        return read_record(self.index_file, idx)
""",
        """
from torch.utils.data import Dataset
class Pairs(Dataset):
    def __init__(self, files):
        samples = [parse(f) for f in files]
        self.samples = np.asarray(samples)  # converted before use
    def __len__(self):
        return len(self.samples)
    def __getitem__(self, idx):
        return self.samples[idx]
""",
        """
import pickle
import numpy as np
from torch.utils.data import Dataset
class Cifar(Dataset):
    def __init__(self, files):
        self.data = []
        for f in files:
            with open(f, "rb") as fh:
                self.data.append(pickle.load(fh)["data"])
        self.data = np.vstack(self.data).reshape(-1, 3, 32, 32)  # one array in the end
    def __len__(self):
        return len(self.data)
    def __getitem__(self, idx):
        return self.data[idx]
""",
    ],
)
def dataset_python_containers(node, module):
    """
    ## What it does
    Finds a `torch.utils.data.Dataset` subclass that stores a per-sample Python container
    in `__init__` (a list or dict comprehension, an empty list filled with `.append()` in a
    loop, `json.load`/`pickle.load`/`yaml` results and parts of them, `list(...)`,
    `sorted(...)`, `glob.glob`, `.readlines()`, `.tolist()`, or what a method annotated or
    written to return such a container gives back) and reads it with the sample index in
    `__getitem__` (directly or in helpers it calls, two levels deep). A base class from another
    file counts as a Dataset when its name ends in `Dataset`. The container may arrive as a
    constructor argument (the value flow follows it to the callers: `Lazy(json.load(f))`, a
    list built by a helper, in this file or another file of the project). numpy arrays of
    `dtype=object` count, and so do DataFrame columns that `__getitem__` reads as strings
    (`str(self.files[idx])`, `Image.open(self.paths[idx])`: object dtype). Other numpy arrays,
    tensors, numeric DataFrame columns, constant lists and tables named like class
    names/vocabularies are not reported; when the file only uses the Dataset with
    `num_workers=0` it is a note.

    ## Why is this bad?
    DataLoader workers are forked and share the parent's memory copy-on-write, but every
    read of a Python object writes its reference count, so the pages holding
    `self.samples[i]` are copied into each worker as the epoch proceeds. Memory grows with
    the dataset size times `num_workers`, looks like a leak and ends in "Cannot allocate
    memory" or OOM-killed workers (pytorch/pytorch#13246). Measured: one million
    `{"path", "label"}` dicts cost 172 MB per worker; the same data as numpy arrays 12 MB.

    ## Example
    ```python
    class Images(Dataset):
        def __init__(self, ann_file):
            self.samples = json.load(open(ann_file))        # list of dicts
        def __getitem__(self, idx):
            s = self.samples[idx]
            return load(s["path"]), s["label"]
    ```
    Use instead:
    ```python
    class Images(Dataset):
        def __init__(self, ann_file):
            samples = json.load(open(ann_file))
            self.paths = np.array([s["path"] for s in samples], dtype=np.bytes_)
            self.labels = np.array([s["label"] for s in samples], dtype=np.int64)
        def __getitem__(self, idx):
            return load(self.paths[idx].decode()), self.labels[idx]
    ```
    """
    if not _is_dataset(module, node, set()):
        return None
    methods = _methods(module, node)
    getitem, init = methods.get("__getitem__"), methods.get("__init__")
    if getitem is None or init is None:
        return None
    indexed = _indexed_attrs(module, getitem, methods)
    if not indexed:
        return None
    assigns = _init_assignments(init, methods)
    usage = None
    out = []
    for attr, line in indexed.items():
        defs = assigns.get(attr)
        if not defs or _EXEMPT.search(attr):
            continue
        last = max(defs, key=lambda d: (d[0].lineno, d[0].col_offset)) if all(d[2] is init for d in defs) else None
        if last is not None and len(defs) > 1 and _container(module, last[1], init, methods, f"self.{attr}",
                                                              [init], 0) is None \
                and not _is_array(module, last[1]) and isinstance(last[1], ast.Call):
            continue  # `self._lst = lst` then `self._lst = _SerializedList(self._lst)`: the last value is kept
        objects = _object_array(module, defs, getitem, methods, attr)
        if objects is None and any(_is_array(module, value) for _, value, _ in defs):
            continue
        for stmt, value, fn in defs:
            reason = objects or _container(module, value, fn, methods, f"self.{attr}",
                                           [init, *_helpers(init, methods)], 0)
            if reason is None:
                continue
            if usage is None:
                usage = _loader_usage(module, node.name)
            workers, severity = usage
            out.append(Violation(
                stmt,
                f"{node.name}.{attr} holds per-sample Python objects ({reason}) and __getitem__ reads "
                f"self.{attr}[...] with the sample index (line {line}): {workers}every forked worker gradually "
                f"copies them, because reading a Python object writes its reference count (copy-on-read, "
                f"pytorch#13246), so host memory grows with dataset size x num_workers",
                LintFix(f"Store self.{attr} as numpy arrays or tensors (np.array(paths, dtype=np.bytes_), "
                        f"np.array(labels), or one byte buffer plus an offsets array), or open it lazily per "
                        f"worker in worker_init_fn"),
                severity=severity))
            break
    return out


# ------------------------------------------------------------------ the class

def _is_dataset(module, cls, seen) -> bool:
    if cls.name in seen:
        return False
    seen.add(cls.name)
    for base in cls.bases:
        if isinstance(base, ast.Subscript):  # Dataset[int]
            base = base.value
        qual = module.qualname(base)
        if qual in _DATASET_BASES:
            return True
        # A project base class from another file (`from .base import BaseDataset`): the project
        # pass is not available here, so go by the name, except for known non-torch datasets.
        name = qual or (base.attr if isinstance(base, ast.Attribute) else base.id if isinstance(base, ast.Name) else "")
        if name.endswith("Dataset") and not name.startswith(_OTHER_DATASETS) and name.rsplit(".", 1)[-1] != "Dataset" \
                and (not isinstance(base, ast.Name) or base.id not in top_level_classes(module)):
            return True
        local = top_level_classes(module).get(base.id) if isinstance(base, ast.Name) else None
        if local is not None and _is_dataset(module, local, seen):
            return True
    return False


def _methods(module, cls) -> dict:
    """Methods by name, the class's own first, then module-local base classes."""
    out: dict = {}
    todo, seen = [cls], set()
    while todo:
        c = todo.pop(0)
        if c.name in seen:
            continue
        seen.add(c.name)
        for item in c.body:
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                out.setdefault(item.name, item)
        for base in c.bases:
            local = top_level_classes(module).get(base.id) if isinstance(base, ast.Name) else None
            if local is not None:
                todo.append(local)
    return out


def _self_call(call) -> str | None:
    f = call.func
    if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "self":
        return f.attr
    return None


def _helpers(fn, methods) -> list:
    """Methods `fn` calls as self.m(...), one level."""
    out = []
    for n in body_nodes(fn.body):
        if isinstance(n, ast.Call):
            name = _self_call(n)
            if name and name in methods and methods[name] is not fn and methods[name] not in out:
                out.append(methods[name])
    return out


def _self_attr(node) -> str | None:
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        return node.attr
    return None


# ------------------------------------------------------------------ __getitem__

def _params(fn) -> list[str]:
    names = [a.arg for a in [*fn.args.posonlyargs, *fn.args.args]]
    return names[1:] if names and names[0] in ("self", "cls") else names


def _derived(expr, names) -> bool:
    """Is `expr` computed from the sample index (names holds the index and its copies)?"""
    if isinstance(expr, ast.Name):
        return expr.id in names
    if isinstance(expr, ast.BinOp):
        return _derived(expr.left, names) or _derived(expr.right, names)
    if isinstance(expr, ast.UnaryOp):
        return _derived(expr.operand, names)
    if isinstance(expr, ast.IfExp):
        return _derived(expr.body, names) or _derived(expr.orelse, names)
    if isinstance(expr, ast.Tuple):
        return any(_derived(e, names) for e in expr.elts)
    if isinstance(expr, ast.Call):
        f = expr.func
        if isinstance(f, ast.Name) and f.id in ("int", "abs", "min", "max", "divmod"):
            return any(_derived(a, names) for a in expr.args)
        if isinstance(f, ast.Attribute) and f.attr in ("item", "__index__") and _derived(f.value, names):
            return True
        return False
    if isinstance(expr, ast.Subscript):  # self.indices[idx]: an index mapping
        return _self_attr(expr.value) is not None and _derived(expr.slice, names)
    return False


def _index_names(fn, seed) -> set[str]:
    names = set(seed)
    for _ in range(2):
        for n in body_nodes(fn.body):
            if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) \
                    and _derived(n.value, names):
                names.add(n.targets[0].id)
    return names


def _indexed_in(fn, names) -> dict[str, int]:
    out: dict[str, int] = {}
    for n in body_nodes(fn.body):
        attr = None
        if isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Load) and _derived(n.slice, names):
            attr = _self_attr(n.value)
            if attr is None and isinstance(n.value, ast.Subscript):
                attr = _self_attr(n.value.value)  # a table of per-sample lists: self.labels["path"][i]
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "get" \
                and n.args and _derived(n.args[0], names):
            attr = _self_attr(n.func.value)
        if attr and attr not in out:
            out[attr] = n.lineno
    return out


def _indexed_attrs(module, getitem, methods) -> dict[str, int]:
    params = _params(getitem)
    if not params:
        return {}
    out: dict[str, int] = {}
    _indexed_via(getitem, {params[0]}, methods, out, {getitem.name}, 0)
    return out


def _indexed_via(fn, seed, methods, out, seen, depth) -> None:
    """Attributes `fn` indexes with the sample index, and (two helper levels deep) those its
    `self.helper(index)` calls index: `__getitem__ -> get_image_and_label -> load_image`."""
    names = _index_names(fn, seed)
    for attr, line in _indexed_in(fn, names).items():
        out.setdefault(attr, line)
    if depth >= 2:
        return
    for n in body_nodes(fn.body):
        if not isinstance(n, ast.Call):
            continue
        name = _self_call(n)
        helper = methods.get(name) if name else None
        if helper is None or helper.name in seen:
            continue
        hp = _params(helper)
        sub = {hp[i] for i, a in enumerate(n.args) if i < len(hp) and _derived(a, names)}
        sub |= {k.arg for k in n.keywords if k.arg in hp and _derived(k.value, names)}
        if sub:
            _indexed_via(helper, sub, methods, out, seen | {helper.name}, depth + 1)


# ------------------------------------------------------------------ __init__

def _init_assignments(init, methods) -> dict[str, list]:
    out: dict[str, list] = {}
    for fn in [init, *_helpers(init, methods)]:
        for n in body_nodes(fn.body):
            if isinstance(n, ast.Assign):
                pairs = [(t, n.value) for t in n.targets]
            elif isinstance(n, ast.AnnAssign) and n.value is not None:
                pairs = [(n.target, n.value)]
            else:
                continue
            for t, value in pairs:
                attr = _self_attr(t)
                if attr:
                    out.setdefault(attr, []).append((n, value, fn))
    return out


def _is_array(module, value) -> bool:
    if not isinstance(value, ast.Call):
        return False
    f = value.func
    if isinstance(f, ast.Attribute) and f.attr in ("numpy", "astype", "to_numpy", "contiguous", "share_memory_"):
        return True
    if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Call) and f.attr not in _LIST_METHODS:
        return _is_array(module, f.value)  # np.vstack(rows).reshape(-1, 3, 32, 32)
    name = module.call_name(value) or module.dotted(f) or ""
    return name.split(".")[0] in _ARRAY_HEADS and "." in name and not name.endswith((".tolist", ".to_dict"))


def _in_loop(node, fn, parents) -> bool:
    cur = parents.get(node)
    while cur is not None and cur is not fn:
        if isinstance(cur, _LOOPS):
            return True
        cur = parents.get(cur)
    return False


def _filled_in_loop(module, dotted, fns) -> int | None:
    for fn in fns:
        for n in ast.walk(fn):
            target = None
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _FILL_METHODS:
                target = n.func.value
            elif isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Store):
                target = n.value
            if target is not None and module.dotted(target) == dotted and _in_loop(n, fn, module.parents):
                return n.lineno
    return None


def _returns(fn) -> list:
    return [n.value for n in body_nodes(fn.body) if isinstance(n, ast.Return) and n.value is not None]


def _annotated_container(fn) -> bool:
    ann = fn.returns
    if ann is None:
        return False
    if isinstance(ann, ast.Constant) and isinstance(ann.value, str):
        text = ann.value
    else:
        text = ast.unparse(ann)
    return bool(re.match(r"(typing\.)?(list|List|dict|Dict|Sequence)\b", text))


def _container(module, value, fn, methods, dotted, fill_scope, depth) -> str | None:
    """Why `value` is a per-sample Python container, or None."""
    if depth > 6 or value is None:
        return None
    if isinstance(value, (ast.ListComp, ast.DictComp)):
        elt = value.elt if isinstance(value, ast.ListComp) else value.value
        parts = elt.elts if isinstance(elt, (ast.Tuple, ast.List)) else [elt]
        if all(_is_array(module, p) for p in parts):
            return None  # arrays/tensors (or tuples of them): only their small headers are touched
        return "a list comprehension" if isinstance(value, ast.ListComp) else "a dict comprehension"
    if isinstance(value, (ast.List, ast.Dict)):
        elts = value.elts if isinstance(value, ast.List) else value.values
        if elts:
            return None  # a fixed, written-out table
        line = _filled_in_loop(module, dotted, fill_scope)
        if line:
            kind = "list" if isinstance(value, ast.List) else "dict"
            return f"an empty {kind} filled in a loop at line {line}"
        return None
    if isinstance(value, ast.IfExp):
        return _container(module, value.body, fn, methods, dotted, fill_scope, depth + 1) or \
            _container(module, value.orelse, fn, methods, dotted, fill_scope, depth + 1)
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add):
        return _container(module, value.left, fn, methods, dotted, fill_scope, depth + 1) or \
            _container(module, value.right, fn, methods, dotted, fill_scope, depth + 1)
    if isinstance(value, ast.Subscript):
        inner = _container(module, value.value, fn, methods, None, [], depth + 1)
        if inner and not isinstance(value.slice, ast.Slice) and not _loaded_data(inner) \
                and not (isinstance(value.slice, ast.Constant) and isinstance(value.slice.value, str)):
            return None  # `datasets[0]`: one element of a list, not the list
        return f"part of {inner}" if inner and not inner.startswith("part of") else inner
    if isinstance(value, ast.Name):
        d = reaching(module, value)
        if d is not None and d.local and d.value is None and isinstance(d.node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return _argument_container(module, value, depth)
        if d is None or not d.local or d.value is None:
            return None
        return _container(module, d.value, fn, methods, value.id, [fn], depth + 1)
    if isinstance(value, ast.Call):
        return _call_container(module, value, fn, methods, depth)
    return None


def _call_container(module, call, fn, methods, depth) -> str | None:
    if _is_array(module, call):
        return None
    f = call.func
    name = module.call_name(call)
    if name in _LOADED:
        return f"{_LOADED[name]} data"
    if isinstance(f, ast.Name) and f.id not in module.aliases:
        if f.id in _BUILTINS:
            return _BUILTINS[f.id]
        if f.id in module.functions:  # a module function: what does it return?
            for d in module.functions[f.id]:
                found = _returned(module, d, methods, depth)
                if found:
                    return f"returned by {f.id}(){found}"
            return None
        resolved = module.flow.resolve_function(call)  # imported from another file of the project
        if resolved is not None:
            other, fdef = resolved
            found = _returned(other, fdef, {}, depth)
            if found:
                return f"returned by {f.id}() in {other.path.rsplit('/', 1)[-1]}{found}"
        return None
    if isinstance(f, ast.Attribute):
        if f.attr in _LIST_METHODS:
            return _LIST_METHODS[f.attr]
        if f.attr in ("split",) and isinstance(f.value, ast.Call) and isinstance(f.value.func, ast.Attribute) \
                and f.value.func.attr == "read":
            return ".read().split()"
        method = _self_call(call)
        if method and method in methods:
            found = _returned(module, methods[method], methods, depth)
            if found:
                return f"returned by self.{method}(){found}"
    return None


def _returned(module, fdef, methods, depth) -> str | None:
    if _annotated_container(fdef):
        return f", annotated {ast.unparse(fdef.returns)}"
    for value in _returns(fdef):
        inner = _container(module, value, fdef, methods,
                           module.dotted(value) if isinstance(value, ast.Name) else None, [fdef], depth + 1)
        if inner:
            return f": {inner}"
    return None


def _loaded_data(reason: str) -> bool:
    """json/pickle/yaml data: its parts are containers again (`json.load(f)["annotations"][0]`)."""
    return any(reason.startswith(v) or f"part of {v}" in reason for v in _LOADED.values())


def _argument_container(module, param, depth) -> str | None:
    """A parameter of __init__ (or of a helper): what the callers pass, through the value flow
    (`LazyDataset(json.load(f))`, `ImageDataset(paths)` with `paths = _list_files(root)`, in this
    file or another file of the project)."""
    if depth > 6:
        return None
    for o in module.flow.origins(param):
        if o.node is param:
            continue
        fn = o.module.enclosing_function(o.node) or o.module.tree
        holder = o.module.parents.get(o.node)  # `results = []`: filled under that name
        dotted = None
        if isinstance(holder, ast.Assign) and len(holder.targets) == 1 and isinstance(holder.targets[0], ast.Name):
            dotted = holder.targets[0].id
        inner = _container(o.module, o.node, fn, {}, dotted, [fn] if fn is not o.module.tree else [], depth + 1)
        if inner:
            where = "" if o.module is module else f" in {o.module.path.rsplit('/', 1)[-1]}"
            return f"{inner}, passed in at line {o.node.lineno}{where}"
    return None


_STRING_SINKS = ("open", "imread", "join", "read_image", "load_image", "tokenize", "encode", "split", "strip",
                 "format", "Path", "exists", "isfile")


def _object_array(module, defs, getitem, methods, attr) -> str | None:
    """numpy arrays of dtype=object and DataFrame columns of Python strings hold Python objects
    too: `np.array(paths, dtype=object)`, or `df[col]` whose element __getitem__ treats as a string
    (`str(self.images[idx])`, `Image.open(self.paths[idx])`)."""
    for _, value, _ in defs:
        if isinstance(value, ast.Call) and any(k.arg == "dtype" and (
                (isinstance(k.value, ast.Name) and k.value.id == "object")
                or (isinstance(k.value, ast.Constant) and k.value.value in ("object", "O"))
                or (isinstance(k.value, ast.Attribute) and k.value.attr in ("object_", "object")))
                for k in value.keywords):
            return "an object-dtype numpy array: one Python object per element"
        base = value
        while isinstance(base, ast.Attribute) and base.attr in ("values", "array"):
            base = base.value
        if isinstance(base, ast.Subscript) and _from_dataframe(module, base.value) and \
                _used_as_string(getitem, methods, attr):
            return "a DataFrame column of Python strings (object dtype)"
    return None


def _from_dataframe(module, expr) -> bool:
    for o in module.flow.origins(expr):
        name = o.module.call_name(o.node) if isinstance(o.node, ast.Call) else None
        if name and name.startswith("pandas.") and (".read_" in name or name.endswith(".DataFrame")):
            return True
    return False


def _used_as_string(getitem, methods, attr) -> bool:
    for fn in [getitem, *_helpers(getitem, methods)]:
        for n in body_nodes(fn.body):
            if isinstance(n, ast.Call):
                fname = n.func.id if isinstance(n.func, ast.Name) else \
                    n.func.attr if isinstance(n.func, ast.Attribute) else ""
                if fname == "str" or fname in _STRING_SINKS:
                    for a in [*n.args, *(k.value for k in n.keywords)]:
                        if isinstance(a, ast.Subscript) and _self_attr(a.value) == attr:
                            return True
    return False


# ------------------------------------------------------------------ usage in this file

def _loader_usage(module, cls_name) -> tuple[str, str | None]:
    """('used with DataLoader(num_workers=8) at line N: ', None) / note severity when every use
    in the file has no workers / ('with num_workers > 0 ', None) when the file shows none."""
    where, uses = "in this file", _uses(module, cls_name)
    if not uses:
        # The project pass: a train.py that builds this Dataset and its DataLoader.
        for path in module.project.files_with("DataLoader"):
            other = module.project.module(path) if path != module.path and cls_name in module.project.texts.get(path, "") else None
            found = _uses(other, cls_name) if other is not None else []
            if found:
                where, uses = f"in {path}", found
                break
    if not uses:
        return "with num_workers > 0 ", None
    for m, n, workers in uses:
        if workers is not None and not (isinstance(workers, ast.Constant) and workers.value == 0):
            text = ast.get_source_segment(m.text, workers) or "..."
            at = f"line {n.lineno}" if m is module else f"{m.path}:{n.lineno}"
            return f"used with DataLoader(num_workers={text}) at {at}, ", None
    return f"only num_workers=0 DataLoaders use it {where}, but with workers ", "note"


def _uses(module, cls_name) -> list:
    """(module, DataLoader call, num_workers value) for each loader over this Dataset class."""
    uses = []
    for n in module.nodes(ast.Call):
        if module.call_name(n) not in _LOADERS:
            continue
        ds = n.args[0] if n.args else next((k.value for k in n.keywords if k.arg == "dataset"), None)
        if not _makes(module, ds, cls_name):
            continue
        workers = next((k.value for k in n.keywords if k.arg == "num_workers"), n.args[5] if len(n.args) > 5 else None)
        uses.append((module, n, workers))
    return uses


def _makes(module, expr, cls_name) -> bool:
    if isinstance(expr, ast.Call):
        return isinstance(expr.func, ast.Name) and expr.func.id == cls_name
    if isinstance(expr, ast.Name):
        d = reaching(module, expr)
        return d is not None and d.value is not None and _makes(module, d.value, cls_name)
    return False
