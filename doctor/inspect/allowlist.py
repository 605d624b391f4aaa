"""What torch's weights-only unpickler accepts, recorded from torch 2.13 (no torch import needed).

`ALLOWED` is `torch._weights_only_unpickler._get_allowed_globals()` on torch 2.13.0 (144 names);
`BLOCKED_MODULES` can never be allowlisted; `OPCODES` are the pickle opcodes that unpickler implements
(anything else is "Unsupported operand N"). `classify` grades every other global a checkpoint needs:
runs code (the error: known code-running modules, and any callable called while loading that is not
a known data type or rebuild function), TorchScript's own reconstruction, plain data, a class
rebuilt without being called (the user's own model classes), or a reference."""

from __future__ import annotations

import sys

ALLOWED_TORCH_VERSION = "2.13.0"

ALLOWED = frozenset({
    "_codecs.encode",
    "builtins.bytearray",
    "builtins.complex",
    "builtins.set",
    "collections.Counter",
    "collections.OrderedDict",
    "torch.BFloat16Storage",
    "torch.BFloat16Tensor",
    "torch.BoolStorage",
    "torch.BoolTensor",
    "torch.ByteStorage",
    "torch.ByteTensor",
    "torch.CharStorage",
    "torch.CharTensor",
    "torch.ComplexDoubleStorage",
    "torch.ComplexFloatStorage",
    "torch.DoubleStorage",
    "torch.DoubleTensor",
    "torch.FloatStorage",
    "torch.FloatTensor",
    "torch.HalfStorage",
    "torch.HalfTensor",
    "torch.IntStorage",
    "torch.IntTensor",
    "torch.LongStorage",
    "torch.LongTensor",
    "torch.QInt32Storage",
    "torch.QInt8Storage",
    "torch.QUInt2x4Storage",
    "torch.QUInt4x2Storage",
    "torch.QUInt8Storage",
    "torch.ShortStorage",
    "torch.ShortTensor",
    "torch.Size",
    "torch.Tensor",
    "torch._tensor._rebuild_from_type_v2",
    "torch._utils._rebuild_device_tensor_from_cpu_tensor",
    "torch._utils._rebuild_device_tensor_from_numpy",
    "torch._utils._rebuild_meta_tensor_no_storage",
    "torch._utils._rebuild_nested_tensor",
    "torch._utils._rebuild_parameter",
    "torch._utils._rebuild_parameter_with_state",
    "torch._utils._rebuild_qtensor",
    "torch._utils._rebuild_sparse_tensor",
    "torch._utils._rebuild_tensor",
    "torch._utils._rebuild_tensor_v2",
    "torch._utils._rebuild_tensor_v3",
    "torch._utils._rebuild_wrapper_subclass",
    "torch.bfloat16",
    "torch.bits16",
    "torch.bits1x8",
    "torch.bits2x4",
    "torch.bits4x2",
    "torch.bits8",
    "torch.bool",
    "torch.complex128",
    "torch.complex32",
    "torch.complex64",
    "torch.cuda.BFloat16Storage",
    "torch.cuda.BFloat16Tensor",
    "torch.cuda.BoolStorage",
    "torch.cuda.BoolTensor",
    "torch.cuda.ByteStorage",
    "torch.cuda.ByteTensor",
    "torch.cuda.CharStorage",
    "torch.cuda.CharTensor",
    "torch.cuda.ComplexDoubleStorage",
    "torch.cuda.ComplexFloatStorage",
    "torch.cuda.DoubleStorage",
    "torch.cuda.DoubleTensor",
    "torch.cuda.FloatStorage",
    "torch.cuda.FloatTensor",
    "torch.cuda.HalfStorage",
    "torch.cuda.HalfTensor",
    "torch.cuda.IntStorage",
    "torch.cuda.IntTensor",
    "torch.cuda.LongStorage",
    "torch.cuda.LongTensor",
    "torch.cuda.ShortStorage",
    "torch.cuda.ShortTensor",
    "torch.cuda.sparse.BFloat16Tensor",
    "torch.cuda.sparse.ByteTensor",
    "torch.cuda.sparse.CharTensor",
    "torch.cuda.sparse.DoubleTensor",
    "torch.cuda.sparse.FloatTensor",
    "torch.cuda.sparse.HalfTensor",
    "torch.cuda.sparse.IntTensor",
    "torch.cuda.sparse.LongTensor",
    "torch.cuda.sparse.ShortTensor",
    "torch.device",
    "torch.float16",
    "torch.float32",
    "torch.float4_e2m1fn_x2",
    "torch.float64",
    "torch.float8_e4m3fn",
    "torch.float8_e4m3fnuz",
    "torch.float8_e5m2",
    "torch.float8_e5m2fnuz",
    "torch.float8_e8m0fnu",
    "torch.int1",
    "torch.int16",
    "torch.int2",
    "torch.int3",
    "torch.int32",
    "torch.int4",
    "torch.int5",
    "torch.int6",
    "torch.int64",
    "torch.int7",
    "torch.int8",
    "torch.nn.parameter.Parameter",
    "torch.per_channel_affine",
    "torch.per_channel_affine_float_qparams",
    "torch.per_channel_symmetric",
    "torch.per_tensor_affine",
    "torch.per_tensor_symmetric",
    "torch.qint32",
    "torch.qint8",
    "torch.quint2x4",
    "torch.quint4x2",
    "torch.quint8",
    "torch.serialization._get_layout",
    "torch.sparse.BFloat16Tensor",
    "torch.sparse.ByteTensor",
    "torch.sparse.CharTensor",
    "torch.sparse.DoubleTensor",
    "torch.sparse.FloatTensor",
    "torch.sparse.HalfTensor",
    "torch.sparse.IntTensor",
    "torch.sparse.LongTensor",
    "torch.sparse.ShortTensor",
    "torch.storage.TypedStorage",
    "torch.storage.UntypedStorage",
    "torch.uint1",
    "torch.uint16",
    "torch.uint2",
    "torch.uint3",
    "torch.uint32",
    "torch.uint4",
    "torch.uint5",
    "torch.uint6",
    "torch.uint64",
    "torch.uint7",
    "torch.uint8",
})

BLOCKED_MODULES = frozenset({"sys", "os", "posix", "nt"})

# The opcodes torch's weights-only Unpickler implements (torch/_weights_only_unpickler.py, 2.13).
OPCODES = frozenset({
    "GLOBAL", "NEWOBJ", "REDUCE", "BUILD", "APPEND", "APPENDS", "SETITEM", "SETITEMS", "MARK",
    "TUPLE", "TUPLE1", "TUPLE2", "TUPLE3", "NONE", "NEWTRUE", "NEWFALSE", "EMPTY_TUPLE",
    "EMPTY_LIST", "EMPTY_DICT", "EMPTY_SET", "BININT", "BININT1", "BININT2", "BINFLOAT",
    "BINUNICODE", "SHORT_BINSTRING", "BINPERSID", "BINGET", "LONG_BINGET", "BINPUT",
    "LONG_BINPUT", "LONG1", "PROTO", "STOP",
})

# Modules whose callables execute code, spawn processes, open files or sockets, or import objects by
# name (pydoc.locate, pkgutil.resolve_name, importlib): a checkpoint that names anything in them is
# an error however it uses it. This list only words the verdict; the verdict itself starts from the
# allowlist (any other callable the pickle calls is an error too, listed here or not).
CODE_EXEC_MODULES = frozenset({
    "os", "posix", "nt", "sys", "subprocess", "_posixsubprocess", "socket", "shutil", "runpy", "pty",
    "commands", "importlib", "imp", "pkgutil", "pydoc", "doctest", "code", "codeop", "pickle", "_pickle",
    "cPickle", "dill", "cloudpickle", "joblib", "shelve", "dbm", "marshal", "ctypes", "_ctypes", "cffi",
    "webbrowser", "antigravity", "this", "httplib", "http", "urllib", "urllib2", "requests", "aiohttp",
    "smtplib", "ftplib", "telnetlib", "poplib", "imaplib", "nntplib", "socketserver", "xmlrpc", "asyncio",
    "concurrent", "multiprocessing", "pdb", "bdb", "timeit", "trace", "profile", "cProfile", "tempfile",
    "pathlib", "glob", "io", "_io", "fileinput", "zipfile", "tarfile", "zipimport", "pip", "setuptools",
    "distutils", "pkg_resources", "site", "sysconfig", "ensurepip", "venv", "idlelib", "tkinter", "turtle",
    "mailcap", "logging", "platform", "signal", "resource", "gc", "threading", "_thread", "types",
    "functools", "operator", "inspect", "torch.hub", "torch.utils.collect_env", "torch.utils.cpp_extension",
    "torch._dynamo", "torch._inductor", "torch.jit", "torch._C", "torch.ops", "torch.classes", "torch.fx",
    "torch.package", "torch.serialization", "torch.distributed.run", "torch.distributed.launch",
    "torch.distributed.elastic", "torch.backends.cpp_extension", "numpy.testing", "numpy.f2py",
    "numpy.distutils", "lib2to3", "torchdoctor", "fickling", "picklescan", "modelscan",
})
CODE_EXEC_BUILTINS = frozenset({
    "eval", "exec", "compile", "open", "__import__", "getattr", "setattr", "delattr", "globals",
    "locals", "vars", "input", "breakpoint", "exit", "quit", "help", "memoryview", "apply", "execfile",
    "file", "reload", "print", "type", "super", "classmethod", "staticmethod", "property",
})
# Single callables outside those modules that load a nested pickle or import by name.
CODE_EXEC_NAMES = frozenset({
    "torch.load", "torch.storage._load_from_bytes", "torch._utils._import_dotted_name", "numpy.load",
    "numpy.lib.npyio.load", "pandas.read_pickle", "torch.compile",
})

# Plain data types: calling or rebuilding one builds a value and runs nothing else. Those torch
# does not allowlist are safe to add with add_safe_globals.
DATA_CLASSES = frozenset({
    "builtins.int", "builtins.float", "builtins.str", "builtins.bytes", "builtins.bool", "builtins.tuple",
    "builtins.list", "builtins.dict", "builtins.frozenset", "builtins.slice", "builtins.range",
    "builtins.object", "builtins.complex", "builtins.set", "builtins.bytearray", "collections.OrderedDict",
    "collections.Counter", "collections.deque", "collections.defaultdict", "argparse.Namespace",
    "datetime.datetime", "datetime.date", "datetime.time", "datetime.timedelta", "datetime.timezone",
    "decimal.Decimal", "fractions.Fraction", "uuid.UUID", "random.Random", "types.SimpleNamespace",
    "pathlib.Path", "pathlib.PosixPath", "pathlib.WindowsPath", "pathlib.PurePath", "pathlib.PurePosixPath",
    "pathlib.PureWindowsPath", "numpy.ndarray", "numpy.dtype", "numpy.random._pcg64.PCG64",
    "numpy.random._pcg64.PCG64DXSM", "numpy.random._mt19937.MT19937", "numpy.random._philox.Philox",
    "numpy.random._sfc64.SFC64", "numpy.random.bit_generator.SeedSequence", "numpy.random.mtrand.RandomState",
    "numpy.random._generator.Generator",
    "numpy.core.multiarray.ndarray", "numpy._core.multiarray.ndarray", "numpy.ma.core.MaskedArray",
    "torch.nn.parameter.Buffer", "torch.nn.parameter.UninitializedParameter",
})
# Functions that rebuild plain data (numpy arrays and scalars, torch tensors of other kinds, objects
# by cls.__new__): torch refuses them, but they run nothing else. Being functions, they are never
# suggested for add_safe_globals.
DATA_FUNCTIONS = frozenset({
    "numpy.core.multiarray._reconstruct", "numpy._core.multiarray._reconstruct",
    "numpy.core.multiarray.scalar", "numpy._core.multiarray.scalar", "numpy.core.numeric._frombuffer",
    "numpy._core.numeric._frombuffer", "numpy.random._pickle.__randomstate_ctor",
    "numpy.random._pickle.__bit_generator_ctor", "numpy.random._pickle.__generator_ctor",
    "numpy.random.bit_generator.__pyx_unpickle_SeedSequence", "numpy.random._pickle.__randomstate_ctor",
    "copyreg._reconstructor", "copyreg.__newobj__", "copyreg.__newobj_ex__", "torch._tensor._rebuild_from_type",
    "torch.nested._internal.nested_tensor._rebuild_njt",
})

# The reason for a callable that is called and merely unknown (an Enum member's class, or any function).
UNPROVEN_CALL = "called while loading and not a known data type or rebuild function: it can run any code"

RUNS_CODE, TORCHSCRIPT, DATA_CLASS, DATA_FUNCTION, CLASS, REFERENCE, OK = (
    "runs-code", "torchscript", "data-class", "data-function", "class", "reference", "ok")


def classify(name: str, uses: list[str] | set[str] | None, fmt: str = "zip") -> tuple[str, str]:
    """What loading the file does with one global, and why: (category, reason).

    `uses` is how the pickle uses it (see pickle_vm.Loaded.uses); None means unknown, which is
    taken as called. Everything not proven harmless is RUNS_CODE."""
    how = {"call"} if uses is None else set(uses)
    mod, _, attr = name.rpartition(".")
    if name.startswith("<"):
        return RUNS_CODE, "a callable the pickle computes at load time: nothing static says what it is"
    if "computed" in how:
        return RUNS_CODE, "a global whose name the pickle computes at load time"
    if "dotted" in how:
        return RUNS_CODE, "a dotted name, resolved attribute by attribute: it reaches something other than the module it names"
    if "build" in how:
        return RUNS_CODE, "BUILD applied to the imported object itself: it overwrites that object's attributes"
    if name in ALLOWED:
        return OK, "on torch's weights_only allowlist"
    if name in DATA_CLASSES:
        return DATA_CLASS, "a plain data type"
    if is_blocked(name):
        return RUNS_CODE, f"operating-system access: torch blocks module {mod.split('.')[0]} even when allowlisted"
    if mod in ("builtins", "__builtin__", "__builtins__"):
        if name.replace("__builtin__.", "builtins.") in DATA_CLASSES:
            return DATA_CLASS, "a plain data type"
        return RUNS_CODE, f"builtins.{attr} is not a data type" + (" and runs code" if attr in CODE_EXEC_BUILTINS else "")
    if fmt == "torchscript" and (mod == "__torch__" or mod.startswith("__torch__.") or mod == "torch.jit._pickle"):
        return TORCHSCRIPT, "TorchScript's own reconstruction of a scripted module"
    if name in CODE_EXEC_NAMES or _in_modules(mod, CODE_EXEC_MODULES):
        return RUNS_CODE, "known to run code, spawn processes, touch files or import objects by name"
    top = mod.split(".")[0]
    if top.startswith("_") and top not in ("__main__", "__torch__"):
        return RUNS_CODE, f"a private interpreter module ({top}): its functions are internals, not data types"
    if name in DATA_CLASSES or (mod == "numpy.dtypes" and attr.endswith("DType")):
        return DATA_CLASS, "a plain data type"
    if name in DATA_FUNCTIONS or (mod in ("torch._utils", "torch._tensor") and attr.startswith("_rebuild_")):
        return DATA_FUNCTION, "a function that rebuilds plain data (arrays, tensors, objects without running __init__)"
    if attr.startswith("__") or mod.startswith("__builtin"):
        return RUNS_CODE, "a dunder attribute: an interpreter internal, not a data type"
    if "call" in how:
        return RUNS_CODE, UNPROVEN_CALL
    if top in _STDLIB and "class" in how:
        # No user model class lives in the standard library; a stdlib class is rebuilt for its machinery.
        return RUNS_CODE, "a standard-library class rebuilt with its state: not a known data type (a gadget, not a model class)"
    if "class" in how:
        return CLASS, "a class rebuilt without calling it (cls.__new__ and its state)"
    return REFERENCE, "imported and stored, not called while loading"


_STDLIB = frozenset(getattr(sys, "stdlib_module_names", ())) - {"__main__"}


def _in_modules(mod: str, modules: frozenset[str]) -> bool:
    parts = mod.split(".")
    return any(".".join(parts[:i]) in modules for i in range(1, len(parts) + 1))


def verdict(report) -> dict[str, dict[str, str]]:
    """Every global of an inspect report by category: {category: {global: reason}}."""
    out: dict[str, dict[str, str]] = {}
    uses = getattr(report, "global_uses", None) or {}
    for name in sorted(report.globals):
        category, reason = classify(name, uses.get(name), report.format)
        out.setdefault(category, {})[name] = reason
    return out


def is_blocked(name: str) -> bool:
    """torch refuses these even when allowlisted: 'whose module posix is blocked'."""
    mod = name.rpartition(".")[0]
    return mod.split(".")[0] in BLOCKED_MODULES
