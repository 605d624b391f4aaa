"""What torch's weights-only unpickler accepts, recorded from torch 2.13 (no torch import needed).

`ALLOWED` is `torch._weights_only_unpickler._get_allowed_globals()` on torch 2.13.0 (144 names);
`BLOCKED_MODULES` can never be allowlisted; `OPCODES` are the pickle opcodes that unpickler implements
(anything else is "Unsupported operand N"). `CODE_EXEC` names globals that run code or touch the
system when called: a checkpoint that needs one of them runs it on `torch.load(weights_only=False)`."""

from __future__ import annotations

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

# Modules whose callables execute code, spawn processes, open files or sockets, or import
# arbitrary objects. A denylist is never a safety verdict (the allowlist above is); it only
# decides whether a non-allowlisted global is "needs add_safe_globals" or "runs code".
CODE_EXEC_MODULES = frozenset({
    "os", "posix", "nt", "sys", "subprocess", "socket", "shutil", "runpy", "pty", "commands",
    "importlib", "code", "codeop", "pickle", "_pickle", "cPickle", "dill", "marshal", "ctypes",
    "webbrowser", "httplib", "http", "urllib", "requests", "aiohttp", "asyncio", "multiprocessing",
    "pdb", "bdb", "timeit", "trace", "profile", "cProfile", "tempfile", "pathlib", "glob", "io",
    "zipimport", "pip", "setuptools", "distutils", "platform", "signal", "threading", "_thread",
    "types", "functools", "operator", "torch.hub", "torch.utils.collect_env", "torch._dynamo",
    "torch.jit", "torch._C", "torch.ops", "torch.classes", "numpy.testing", "numpy.f2py",
    "numpy.distutils", "__main__",
})
CODE_EXEC_BUILTINS = frozenset({
    "eval", "exec", "compile", "open", "__import__", "getattr", "setattr", "delattr", "globals",
    "locals", "vars", "input", "breakpoint", "exit", "quit", "help", "memoryview", "apply", "execfile",
    "file", "reload",
})


def is_code_exec(name: str) -> bool:
    """A dotted `module.name` whose call can run code or touch the system."""
    mod, _, attr = name.rpartition(".")
    if mod in ("builtins", "__builtin__", "__builtins__"):
        return attr in CODE_EXEC_BUILTINS or attr.startswith("__")
    if "__builtins__" in name or attr.startswith("__") and attr not in ("__new__",):
        return True
    parts = mod.split(".")
    return any(".".join(parts[:i]) in CODE_EXEC_MODULES for i in range(1, len(parts) + 1))


def is_blocked(name: str) -> bool:
    """torch refuses these even when allowlisted: 'whose module posix is blocked'."""
    mod = name.rpartition(".")[0]
    return mod.split(".")[0] in BLOCKED_MODULES
