"""Small shared pieces for TD201, TD204, TD301, TD401 and TD402: call arguments, edits that add
a keyword argument, a light reaching-definition lookup, and "is this a numpy array?".

Pure functions over a SourceModule; nothing here imports torch or reads files."""

from __future__ import annotations

import ast
from typing import Any

from torchdoctor.lint.model import Edit
from torchdoctor.lint.module import SourceModule, body_nodes, cached, source  # noqa: F401 - cached, source: re-exported to the rules
from torchdoctor.lint.flow import (  # noqa: F401 - re-exported: the shared value-flow engine
    parameter_annotation, reaching_value, self_attribute_values,
)

# ------------------------------------------------------------------ call arguments


def keyword(call: ast.Call, name: str) -> ast.keyword | None:
    return next((k for k in call.keywords if k.arg == name), None)


def has_star_kwargs(call: ast.Call) -> bool:
    return any(k.arg is None for k in call.keywords)


def has_star_args(call: ast.Call) -> bool:
    return any(isinstance(a, ast.Starred) for a in call.args)


def argument(call: ast.Call, name: str, position: int | None) -> ast.expr | None:
    """The value passed for a parameter, by keyword or by position (None: not passed, or unknowable)."""
    kw = keyword(call, name)
    if kw is not None:
        return kw.value
    if position is not None and len(call.args) > position and not has_star_args(call):
        return call.args[position]
    return None


def passes(call: ast.Call, name: str, position: int | None) -> bool:
    """Whether the call certainly or possibly passes this parameter (`**kw`/`*a` count as possibly)."""
    if keyword(call, name) is not None or has_star_kwargs(call):
        return True
    if position is not None and (len(call.args) > position or has_star_args(call)):
        return True
    return False


def is_const(node: ast.AST | None, value: Any) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is type(value) and node.value == value


def insert_keyword(call: ast.Call, text: str) -> Edit | None:
    """An edit that appends `text` (`map_location="cpu"`) as the call's last argument."""
    items = [*call.args, *call.keywords]
    if len(items) == 1 and isinstance(items[0], ast.GeneratorExp):
        return None  # f(x for x in y): a second argument needs parentheses around the generator
    if items:
        last = max(items, key=lambda n: (n.end_lineno or 0, n.end_col_offset or 0))
        if last.end_lineno is None or last.end_col_offset is None:
            return None
        return Edit(last.end_lineno, last.end_col_offset, last.end_lineno, last.end_col_offset, f", {text}")
    if call.end_lineno is None or call.end_col_offset is None:
        return None
    pos = call.end_col_offset - 1  # just before the closing parenthesis
    return Edit(call.end_lineno, pos, call.end_lineno, pos, text)


def _imported_names(module: SourceModule) -> dict[str, str]:
    """Names bound by the file's own import statements (not the conventional fallbacks)."""
    def compute() -> dict[str, str]:
        out: dict[str, str] = {}
        for node in ast.walk(module.tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.asname:
                        out[a.asname] = a.name
                    else:
                        out.setdefault(a.name.split(".")[0], a.name.split(".")[0])
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for a in node.names:
                    if a.name != "*":
                        out[a.asname or a.name] = f"{node.module}.{a.name}"
        return out
    return cached(module, "imported_names", compute)


def local_name_for(module: SourceModule, qualified: str) -> str | None:
    """The local name the file's imports bind to a module (`torch`, `np` for numpy), if any."""
    imported = _imported_names(module)
    short = qualified.split(".")[-1]
    if imported.get(short) == qualified:
        return short
    for local, qual in imported.items():
        if qual == qualified:
            return local
    return None


def mentions_name(node: ast.AST, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(node))


# ------------------------------------------------------------------ numpy arrays

# numpy functions that return an ndarray (not a scalar, a tuple or a list of arrays).
NUMPY_ARRAY_FUNCS = frozenset("""
array asarray asanyarray ascontiguousarray asfortranarray copy zeros ones empty full zeros_like ones_like
empty_like full_like arange linspace logspace geomspace eye identity diag diagflat tri tril triu stack vstack
hstack dstack column_stack row_stack concatenate concat append insert delete load loadtxt genfromtxt fromfile
frombuffer fromiter fromstring reshape transpose squeeze expand_dims flip fliplr flipud rot90 roll tile repeat
pad moveaxis swapaxes rollaxis ravel sort argsort cumsum cumprod diff outer atleast_1d atleast_2d atleast_3d
bincount
""".split())
# Element-wise functions: an array when their first argument is one (a scalar otherwise).
NUMPY_UFUNCS = frozenset("""
abs absolute exp log log1p log2 log10 sqrt square power multiply add subtract divide true_divide maximum minimum
round around rint floor ceil nan_to_num sign tanh sin cos clip matmul
""".split())
# numpy.random functions and the position of their `size` argument (an array only when size is given).
NUMPY_RANDOM_SIZE = {"rand": 0, "randn": 0, "random": 0, "random_sample": 0, "uniform": 2, "normal": 2,
                     "randint": 2, "choice": 1, "binomial": 2, "poisson": 1, "beta": 2, "gamma": 2,
                     "standard_normal": 0, "exponential": 1, "permutation": 0}
# array methods that return an array.
ARRAY_METHODS = frozenset("""
reshape transpose squeeze copy astype flatten ravel swapaxes clip round cumsum view take repeat
""".split())
# cv2 functions that return an image array.
CV2_ARRAY_FUNCS = frozenset("""
imread imdecode resize cvtColor warpAffine warpPerspective flip GaussianBlur blur medianBlur
copyMakeBorder remap merge normalize transpose rotate
""".split())

_NP_DTYPES = {"float16", "float32", "float64", "half", "single", "double", "int8", "int16", "int32", "int64",
              "uint8", "bool_", "bool", "longlong", "intc", "float_", "int_"}
_CANONICAL = {"half": "float16", "single": "float32", "double": "float64", "float_": "float64", "int_": "int64",
              "longlong": "int64", "intc": "int32", "bool_": "bool", "float": "float64", "int": "int64"}


def numpy_dtype_name(module: SourceModule, node: ast.AST | None) -> str | None:
    """`np.float32` / "float32" / `float` -> "float32"-style names; None when unknown."""
    if node is None:
        return None
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in _NP_DTYPES:
        return _CANONICAL.get(node.value, node.value)
    if isinstance(node, ast.Name) and node.id in ("float", "int", "bool"):
        return _CANONICAL.get(node.id, node.id)
    qual = module.qualname(node) if isinstance(node, (ast.Attribute, ast.Name)) else None
    if qual and qual.startswith("numpy.") and qual.count(".") == 1 and qual[6:] in _NP_DTYPES:
        return _CANONICAL.get(qual[6:], qual[6:])
    return None


class NumpyArray:
    """What we know about an expression that is a numpy array: its dtype when visible, and a
    short description of where it comes from (for messages)."""

    def __init__(self, origin: ast.AST, dtype: str | None) -> None:
        self.origin = origin
        self.dtype = dtype


def numpy_array(module: SourceModule, node: ast.AST, depth: int = 0, subscripts: bool = True) -> NumpyArray | None:
    """A NumpyArray when `node` certainly evaluates to a numpy ndarray, else None."""
    if depth > 8:
        return None
    if isinstance(node, ast.Call):
        name = module.call_name(node) or ""
        if name.startswith("numpy."):
            tail = name[len("numpy."):]
            if tail.startswith("random."):
                fn = tail[len("random."):]
                if fn in NUMPY_RANDOM_SIZE and argument(node, "size", NUMPY_RANDOM_SIZE[fn]) is not None:
                    dtype = None if fn == "choice" else "int64" if fn in ("randint", "binomial", "poisson",
                                                                            "permutation") else "float64"
                    if fn == "randint" and keyword(node, "dtype") is not None:
                        dtype = numpy_dtype_name(module, keyword(node, "dtype").value)
                    return NumpyArray(node, dtype)
                if fn in ("rand", "randn") and node.args:
                    return NumpyArray(node, "float64")
                return None
            if tail in NUMPY_UFUNCS:
                first = node.args[0] if node.args else None
                inner = numpy_array(module, first, depth + 1, subscripts) if first is not None else None
                return NumpyArray(node, None) if inner is not None else None
            if tail == "where" and len(node.args) == 3:
                return NumpyArray(node, None)
            if tail == "unique" and not any((k.arg or "").startswith("return_") for k in node.keywords) \
                    and len(node.args) == 1:
                return NumpyArray(node, None)
            if tail not in NUMPY_ARRAY_FUNCS:
                return None
            return NumpyArray(node, _numpy_call_dtype(module, node, tail, depth))
        if name.startswith("cv2.") and name[4:] in CV2_ARRAY_FUNCS:
            return NumpyArray(node, None)
        if name.startswith(_ARRAY_LIBRARIES) and node.args \
                and numpy_array(module, node.args[0], depth + 1, subscripts) is not None:
            return NumpyArray(node, None)  # librosa.util.normalize(audio): arrays in, arrays out
        func = node.func
        if isinstance(func, ast.Attribute):
            if func.attr in ("numpy", "to_numpy") and not node.args:
                return NumpyArray(node, None)
            if func.attr == "astype" and node.args:
                dtype = numpy_dtype_name(module, node.args[0])
                recv = numpy_array(module, func.value, depth + 1, subscripts)
                if recv is not None or (dtype and not isinstance(node.args[0], ast.Constant)):
                    return NumpyArray(node, dtype)
                return None
            if func.attr in ARRAY_METHODS:
                recv = numpy_array(module, func.value, depth + 1, subscripts)
                if recv is not None:
                    return NumpyArray(node, recv.dtype)
        return None
    if isinstance(node, ast.Name):
        value = reaching_value(module, node)
        if value is not None:
            return numpy_array(module, value, depth + 1, subscripts)
        ann = parameter_annotation(module, node)
        if ann is not None:
            target = ann.value if isinstance(ann, ast.Subscript) else ann  # npt.NDArray[np.float32]
            qual = module.qualname(target) or ""
            if qual in ("numpy.ndarray", "numpy.typing.NDArray"):
                return NumpyArray(node, None)
        return _array_by_flow(module, node, depth, subscripts)
    if isinstance(node, ast.Attribute):
        if node.attr == "T":
            return numpy_array(module, node.value, depth + 1, subscripts)
        values = self_attribute_values(module, node)
        if values:
            found = [numpy_array(module, v, depth + 1, subscripts) for v in values]
            if all(found):
                dtypes = {f.dtype for f in found if f is not None}
                return NumpyArray(node, dtypes.pop() if len(dtypes) == 1 else None)
        return None
    if isinstance(node, ast.Subscript) and subscripts:
        base = numpy_array(module, node.value, depth + 1, subscripts)
        if base is not None:
            return NumpyArray(node, base.dtype)
        return None
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv,
                                                            ast.Pow, ast.Mod)):
        left = numpy_array(module, node.left, depth + 1, subscripts)
        right = numpy_array(module, node.right, depth + 1, subscripts)
        if left and right:
            return NumpyArray(node, None)
        for arr, other in ((left, node.right), (right, node.left)):
            if arr is not None and isinstance(other, (ast.Name, ast.Attribute)):
                return NumpyArray(node, None)  # `audio / self.max_wav_value`: an array, of some dtype
            if arr is not None and isinstance(other, ast.Constant) and isinstance(other.value, (int, float)):
                if isinstance(node.op, ast.Div) or isinstance(other.value, float):
                    return NumpyArray(node, "float64" if arr.dtype in (None, "float64") or
                                      (arr.dtype or "").startswith(("int", "uint", "bool")) else arr.dtype)
                return NumpyArray(node, arr.dtype)
    return None


# Libraries whose functions take and give numpy arrays.
_ARRAY_LIBRARIES = ("librosa.", "scipy.signal.", "scipy.ndimage.", "skimage.")
# Calls that return a tuple with an array at this position: `data, sr = soundfile.read(path)`.
_ARRAY_IN_TUPLE = {"soundfile.read": 0, "librosa.load": 0, "librosa.core.load": 0, "scipy.io.wavfile.read": 1,
                   "numpy.histogram": 0, "numpy.unique": 0}


def _isinstance_tested(module: SourceModule, func: ast.AST) -> frozenset[str]:
    """The names `isinstance(name, ...)` tests anywhere in the function (walked once per function:
    a function's every array-like name asked this)."""
    table = cached(module, "isinstance_tested_names", dict)
    names = table.get(id(func))
    if names is None:
        names = table[id(func)] = frozenset(
            n.args[0].id for n in ast.walk(func)
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "isinstance"
            and n.args and isinstance(n.args[0], ast.Name))
    return names


def _array_by_flow(module: SourceModule, node: ast.Name, depth: int, subscripts: bool) -> NumpyArray | None:
    """A name the straight-line lookup cannot resolve (a tuple unpacked from a call, a parameter):
    an array when every origin the value-flow engine finds is one (returns of the file's or the
    project's functions, the arguments at every call site)."""
    func = module.enclosing_function(node)
    if func is not None and node.id in _isinstance_tested(module, func):
        return None  # `if isinstance(data, int): ...`: the function sorts its argument by type itself
    found = []
    for o in module.flow.origins(node, across_files=False):
        if o.is_(module, node):
            return None
        arr = _unpacked_array(o.module, o.node) or numpy_array(o.module, o.node, depth + 1, subscripts)
        if arr is None:
            return None
        found.append(arr)
    if not found:
        return None
    dtypes = {f.dtype for f in found}
    return NumpyArray(node, dtypes.pop() if len(dtypes) == 1 else None)


def _unpacked_array(module: SourceModule, target: ast.AST) -> NumpyArray | None:
    parent = module.parents.get(target)
    if not isinstance(parent, ast.Tuple):
        return None
    stmt = module.parents.get(parent)
    if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call):
        index = _ARRAY_IN_TUPLE.get(module.call_name(stmt.value) or "")
        if index is not None and index < len(parent.elts) and parent.elts[index] is target:
            dtype = None
            kw = keyword(stmt.value, "dtype")
            if kw is not None:
                dtype = numpy_dtype_name(module, kw.value)
            return NumpyArray(target, dtype)
    return None


def _numpy_call_dtype(module: SourceModule, call: ast.Call, fn: str, depth: int) -> str | None:
    kw = keyword(call, "dtype")
    if kw is not None:
        return numpy_dtype_name(module, kw.value)
    if fn in ("zeros", "ones", "empty", "linspace", "logspace", "eye", "identity", "rand", "randn"):
        return "float64"
    if fn == "full" and len(call.args) >= 2 and isinstance(call.args[1], ast.Constant):
        v = call.args[1].value
        if isinstance(v, float):
            return "float64"
        return "int64" if isinstance(v, int) and not isinstance(v, bool) else None
    if fn == "arange" and call.args and all(isinstance(a, ast.Constant) for a in call.args):
        return "float64" if any(isinstance(a.value, float) for a in call.args) else "int64"
    if fn in ("array", "asarray") and call.args:
        if fn == "asarray" or isinstance(call.args[0], (ast.Name, ast.Attribute, ast.Call, ast.Subscript)):
            inner = numpy_array(module, call.args[0], depth + 1)
            if inner is not None:
                return inner.dtype
    return None


# ------------------------------------------------------------------ torch.load

TORCH_LOAD = ("torch.load", "torch.serialization.load")


def is_torch_load(module: SourceModule, call: ast.Call) -> bool:
    return module.call_name(call) in TORCH_LOAD


def short_call(module: SourceModule, call: ast.Call, limit: int = 50) -> str:
    """The call as written, whitespace collapsed and comments left out: `torch.load(args.resume)`."""
    def text(node: ast.AST) -> str:
        return " ".join((source(module, node) or "...").split())
    parts = [text(a) for a in call.args]
    parts += [f"{k.arg}={text(k.value)}" if k.arg else f"**{text(k.value)}" for k in call.keywords]
    out = f"{text(call.func)}({', '.join(parts)})"
    return out if len(out) <= limit else out[: limit - 4] + "...)"
