"""What `torchdoctor model` is told on the command line: the factory (`pkg.module:factory` or
`path/to/file.py:factory`) and the example input (`"randn(8,3,224,224)"`).

The input spec is a tiny grammar, parsed with `ast.parse` and walked node by node; nothing is ever
evaluated. Allowed: `randn/rand/zeros/ones(*shape, dtype=, device=, requires_grad=)`,
`randint([low,] high, shape, dtype=, device=)`, `full(shape, value, dtype=)`, `tensor([..])`,
number/str/bool/None constants, and tuples, lists and dicts of those. Dtypes are written
`float16` or `torch.float16`.

`parse_input_spec` gives plain data (no torch); `materialize` turns it into tensors (imports torch).
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import os
import sys
from collections.abc import Callable
from typing import Any

TENSOR_FUNCS = ("randn", "rand", "zeros", "ones", "randint", "full", "tensor")
DTYPES = (
    "float32", "float", "float64", "double", "float16", "half", "bfloat16", "int64", "long", "int32",
    "int", "int16", "short", "int8", "uint8", "bool", "complex64", "complex128",
)
_KWARGS = {"dtype", "device", "requires_grad"}
MAX_ELEMENTS = 2**31  # a typo like randn(80000,80000,3) is refused before torch allocates it
MAX_DIMS = 64  # torch's own limit for most operations (isfinite, reductions)
MAX_SPEC_CHARS = 10_000
MAX_DEPTH = 50  # nesting of tuples, lists, dicts and tensor(...) data


class SpecError(ValueError):
    """The spec does not parse; the message says where and what is allowed."""


def parse_input_spec(text: str) -> Any:
    """Plain data for the spec: tensors become {"tensor": fn, "shape": [...], ...}; tuples stay
    tuples, lists lists, dicts dicts. Raises SpecError."""
    if not text or not text.strip():
        raise SpecError("the input spec is empty (e.g. --input \"randn(8,3,224,224)\")")
    if len(text) > MAX_SPEC_CHARS:
        raise SpecError(f"the input spec is {len(text)} characters long; an example input needs far fewer "
                        f"(at most {MAX_SPEC_CHARS})")
    shown = text if len(text) <= 80 else text[:77] + "..."
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as exc:
        raise SpecError(f"the input spec {shown!r} does not parse: {exc.msg} at column {exc.offset}") from None
    except (RecursionError, MemoryError, ValueError):
        raise SpecError(f"the input spec {shown!r} is nested too deeply") from None
    depth = _depth(tree.body)
    if depth > MAX_DEPTH:
        raise SpecError(f"the input spec {shown!r} is nested {depth} levels deep; at most {MAX_DEPTH}")
    return _node(tree.body, text)


def _depth(node: ast.AST) -> int:
    """How deep the spec nests (iteratively: a deep spec must not exhaust the stack here)."""
    deepest, todo = 0, [(node, 1)]
    while todo:
        n, d = todo.pop()
        deepest = max(deepest, d)
        if deepest > MAX_DEPTH:
            break
        todo.extend((child, d + 1) for child in ast.iter_child_nodes(n))
    return deepest


def _where(node: ast.AST, text: str) -> str:
    col = getattr(node, "col_offset", None)
    return f" (at column {col + 1})" if col is not None else ""


def _allowed() -> str:
    return ("allowed: " + ", ".join(f"{f}(...)" for f in TENSOR_FUNCS)
            + ", numbers, strings, True/False/None, and tuples, lists and dicts of them")


def _node(node: ast.AST, text: str) -> Any:
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float, str, bool, type(None))):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        value = _node(node.operand, text)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return -value
    if isinstance(node, ast.Tuple):
        return tuple(_node(e, text) for e in node.elts)
    if isinstance(node, ast.List):
        return [_node(e, text) for e in node.elts]
    if isinstance(node, ast.Dict):
        out = {}
        for k, v in zip(node.keys, node.values):
            if k is None or not isinstance(k, ast.Constant) or not isinstance(k.value, (str, int)):
                raise SpecError(f"dict keys in the input spec must be strings or ints{_where(node, text)}")
            out[k.value] = _node(v, text)
        return out
    if isinstance(node, ast.Call):
        return _call(node, text)
    if _dtype_name(node) is not None:
        raise SpecError(f"a dtype can only be given as dtype=...{_where(node, text)}")
    snippet = ast.get_source_segment(text.strip(), node) or type(node).__name__
    raise SpecError(f"{snippet!r} is not allowed in an input spec{_where(node, text)}; {_allowed()}")


def _dtype_name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name) and node.id in DTYPES:
        return node.id
    if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "torch"
            and node.attr in DTYPES):
        return node.attr
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.removeprefix("torch.") in DTYPES:
        return node.value.removeprefix("torch.")
    return None


def _func_name(node: ast.Call) -> str | None:
    f = node.func
    if isinstance(f, ast.Name):
        return f.id
    if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "torch":
        return f.attr
    return None


def _ints(values: list[Any], fn: str, node: ast.AST, text: str) -> list[int]:
    if len(values) == 1 and isinstance(values[0], (tuple, list)):
        values = list(values[0])
    for v in values:
        if not isinstance(v, int) or isinstance(v, bool) or v < 0:
            raise SpecError(f"{fn}(...): the shape must be non-negative integers, got {v!r}{_where(node, text)}")
    return list(values)


def _call(node: ast.Call, text: str) -> dict[str, Any]:
    fn = _func_name(node)
    if fn not in TENSOR_FUNCS:
        shown = fn or (ast.get_source_segment(text.strip(), node.func) or "?")
        raise SpecError(f"{shown}(...) is not allowed in an input spec{_where(node, text)}; {_allowed()}")
    out: dict[str, Any] = {"tensor": fn, "dtype": None, "device": None, "requires_grad": False}
    for kw in node.keywords:
        if kw.arg not in _KWARGS:
            raise SpecError(f"{fn}(...): unknown keyword {kw.arg!r}; allowed: dtype=, device=, requires_grad=")
        if kw.arg == "dtype":
            name = _dtype_name(kw.value)
            if name is None:
                raise SpecError(f"{fn}(...): dtype must be one of {', '.join(DTYPES)}{_where(kw.value, text)}")
            out["dtype"] = name
        else:
            value = _node(kw.value, text)
            if kw.arg == "device" and not isinstance(value, str):
                raise SpecError(f"{fn}(...): device must be a string like 'cpu' or 'cuda:0'")
            if kw.arg == "requires_grad" and not isinstance(value, bool):
                raise SpecError(f"{fn}(...): requires_grad must be True or False")
            out[kw.arg] = value
    args = [_node(a, text) for a in node.args]
    if fn == "tensor":
        if len(args) != 1 or not _numeric_nested(args[0]):
            raise SpecError(f"tensor(...) takes one number or (nested) list of numbers{_where(node, text)}")
        out["data"] = args[0]
        shape = []
        v = args[0]
        while isinstance(v, (list, tuple)):
            shape.append(len(v))
            v = v[0] if v else None
        out["shape"] = shape
    elif fn == "randint":
        # torch's own convention: randint(high, shape) or randint(low, high, shape)
        if len(args) == 2 and isinstance(args[1], (tuple, list)):
            low, high, shape = 0, args[0], args[1]
        elif len(args) == 3 and isinstance(args[2], (tuple, list)):
            low, high, shape = args
        else:
            raise SpecError(f"randint takes (high, shape) or (low, high, shape), e.g. randint(0, 10, (8,)){_where(node, text)}")
        if not all(isinstance(x, int) and not isinstance(x, bool) for x in (low, high)) or high <= low:
            raise SpecError(f"randint: low and high must be integers with low < high{_where(node, text)}")
        out.update(low=low, high=high, shape=_ints([shape], fn, node, text))
    elif fn == "full":
        if len(args) != 2 or not isinstance(args[0], (tuple, list)) or not isinstance(args[1], (int, float)):
            raise SpecError(f"full takes (shape, value), e.g. full((8, 3), 0.5){_where(node, text)}")
        out.update(shape=_ints([args[0]], fn, node, text), value=args[1])
    else:
        if not args:
            raise SpecError(f"{fn}(...) needs a shape, e.g. {fn}(8, 3, 224, 224){_where(node, text)}")
        out["shape"] = _ints(args, fn, node, text)
    if len(out["shape"]) > MAX_DIMS:
        raise SpecError(f"{fn}(...) has {len(out['shape'])} dimensions; torch supports at most {MAX_DIMS}")
    n = 1
    for d in out["shape"]:
        n *= d
    if n > MAX_ELEMENTS:
        raise SpecError(f"{fn}{tuple(out['shape'])} has {n} elements; that is more than an example input needs")
    return out


def _numeric_nested(v: Any) -> bool:
    if isinstance(v, (list, tuple)):
        return all(_numeric_nested(x) for x in v)
    return isinstance(v, (int, float, bool))


def batch_size(spec: Any) -> int | None:
    """The leading dimension of the first tensor in the spec (the batch, by convention)."""
    if isinstance(spec, dict) and "tensor" in spec and "shape" in spec:
        return spec["shape"][0] if spec["shape"] else None
    values = spec.values() if isinstance(spec, dict) else spec if isinstance(spec, (list, tuple)) else ()
    for v in values:
        found = batch_size(v)
        if found is not None:
            return found
    return None


def materialize(spec: Any, device: str | None = None) -> Any:
    """Turn parsed spec data into tensors (imports torch). `device` is the default for tensors
    whose spec names none."""
    import torch

    if isinstance(spec, dict) and "tensor" in spec and "shape" in spec:
        dtype = getattr(torch, spec["dtype"]) if spec.get("dtype") else None
        dev = spec.get("device") or device or "cpu"
        fn, shape = spec["tensor"], tuple(spec["shape"])
        if fn == "randint":
            t = torch.randint(spec["low"], spec["high"], shape, dtype=dtype or torch.int64, device=dev)
        elif fn == "full":
            t = torch.full(shape, spec["value"], dtype=dtype, device=dev)
        elif fn == "tensor":
            t = torch.tensor(spec["data"], dtype=dtype, device=dev)
        else:
            t = getattr(torch, fn)(*shape, dtype=dtype, device=dev)
        if spec.get("requires_grad"):
            t.requires_grad_(True)
        return t
    if isinstance(spec, dict):
        return {k: materialize(v, device) for k, v in spec.items()}
    if isinstance(spec, tuple):
        return tuple(materialize(v, device) for v in spec)
    if isinstance(spec, list):
        return [materialize(v, device) for v in spec]
    return spec


def split_inputs(value: Any) -> tuple[tuple, dict]:
    """The call convention (torch.export's): a tuple is the positional arguments, a dict the
    keyword arguments, anything else the one positional argument."""
    if isinstance(value, tuple):
        return value, {}
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return (), dict(value)
    return (value,), {}


# --------------------------------------------------------------------------- the factory
class LoadError(ValueError):
    """The factory or loss spec cannot be loaded; one line that says why."""


def load_callable(spec: str, what: str = "factory") -> Callable[..., Any]:
    """`pkg.module:attr` or `path/to/file.py:attr` (dots in attr walk attributes). The current
    directory is importable, as it is for `python -m`."""
    if ":" not in spec or spec.endswith(":") or spec.startswith(":"):
        raise LoadError(f"{what} {spec!r} must look like pkg.module:name or path/to/file.py:name")
    module_part, _, attr = spec.rpartition(":")
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.insert(0, os.getcwd())
    if module_part.endswith(".py") or os.sep in module_part or "/" in module_part:
        path = os.path.abspath(module_part)
        if not os.path.isfile(path):
            raise LoadError(f"{what} {spec!r}: no such file {module_part}")
        directory = os.path.dirname(path)
        if directory not in sys.path:
            sys.path.insert(0, directory)
        name = os.path.splitext(os.path.basename(path))[0]
        modspec = importlib.util.spec_from_file_location(name, path)
        if modspec is None or modspec.loader is None:
            raise LoadError(f"{what} {spec!r}: cannot import {module_part}")
        module = importlib.util.module_from_spec(modspec)
        sys.modules[name] = module
        try:
            modspec.loader.exec_module(module)
        except Exception as exc:  # noqa: BLE001
            raise LoadError(f"{what} {spec!r}: importing {module_part} raised {_one_line(exc)}") from None
    else:
        try:
            module = importlib.import_module(module_part)
        except ModuleNotFoundError as exc:
            if exc.name and module_part.split(".")[0] == exc.name.split(".")[0]:
                raise LoadError(f"{what} {spec!r}: no module named {exc.name!r} (run from the directory that "
                                "contains it, or install it)") from None
            raise LoadError(f"{what} {spec!r}: importing {module_part} raised {_one_line(exc)}") from None
        except Exception as exc:  # noqa: BLE001
            raise LoadError(f"{what} {spec!r}: importing {module_part} raised {_one_line(exc)}") from None
    obj: Any = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise LoadError(f"{what} {spec!r}: {module_part} has no attribute {part!r}")
        obj = getattr(obj, part)
    if not callable(obj):
        raise LoadError(f"{what} {spec!r}: {attr} is a {type(obj).__name__}, not callable")
    return obj


def _one_line(exc: BaseException) -> str:
    from ..text import shorten

    text = shorten(str(exc), 300)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
