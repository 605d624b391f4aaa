"""A symbolic pickle machine: it reads the opcodes with `pickletools.genops` (which parses and never
executes) and builds inert stand-ins for what `pickle.load` would have built.

GLOBAL / STACK_GLOBAL become `Ref`s (recorded, never imported), REDUCE / NEWOBJ become `Call`s
(recorded, never called), BINPERSID ('storage', ...) becomes a `Storage`, and torch's
`_rebuild_tensor*` calls become `TensorRef`s with dtype, shape, stride and the storage's device tag.
Every resource is bounded (opcodes, items, nesting, memo, seconds): a hostile pickle ends in a
`PickleLimit` or `PickleError`, never in unbounded memory or time.
"""

from __future__ import annotations

import _compat_pickle
import io
import pickletools
import time
from collections import Counter, OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any


class PickleError(ValueError):
    """The pickle is malformed: the byte offset and what was wrong."""

    def __init__(self, message: str, pos: int | None = None) -> None:
        super().__init__(message)
        self.pos = pos
        # What was read before the error: pickle runs each opcode as it reads it, so the globals a
        # broken pickle imports and calls before the break still run under torch.load.
        self.globals: Counter = Counter()
        self.uses: dict[str, set[str]] = {}
        self.opcodes: Counter = Counter()


class PickleLimit(PickleError):
    """A resource limit was reached: a pickle bomb, or a checkpoint far beyond any real one."""


@dataclass(frozen=True)
class Limits:
    max_ops: int = 16_000_000
    max_items: int = 4_000_000  # containers and their elements, all told
    max_depth: int = 5_000  # MARK nesting and structure depth
    max_memo: int = 4_000_000
    max_seconds: float = 60.0


class Ref:
    """A GLOBAL: a name, never imported."""

    __slots__ = ("mod", "name")

    def __init__(self, mod: str, name: str) -> None:
        self.mod, self.name = mod, name

    @property
    def full(self) -> str:
        return f"{self.mod}.{self.name}" if self.name else self.mod

    def __repr__(self) -> str:
        return self.full


class Call:
    """REDUCE / NEWOBJ of something that is not a tensor rebuild: recorded, never called."""

    __slots__ = ("args", "func", "items", "state")

    def __init__(self, func: Any, args: Any) -> None:
        self.func, self.args, self.state, self.items = func, args, None, []

    def __repr__(self) -> str:
        return f"{self.func!r}(...)"


class Storage:
    """A persistent id ('storage', StorageType, key, location, numel[, view]) from torch.save."""

    __slots__ = ("key", "location", "numel", "stype")

    def __init__(self, pid: tuple) -> None:
        _, self.stype, key, location, self.numel = pid[:5]
        self.key = key.decode("latin1") if isinstance(key, bytes) else str(key)
        self.location = location.decode("latin1") if isinstance(location, bytes) else str(location)

    @property
    def type_name(self) -> str:
        return self.stype.name if isinstance(self.stype, Ref) else str(self.stype)


class TensorRef:
    __slots__ = ("dtype", "malformed", "offset", "parameter", "requires_grad", "size", "storage", "stride")

    def __init__(self, storage: Storage | None, offset: Any, size: Any, stride: Any, requires_grad: Any,
                 dtype: str | None) -> None:
        self.storage = storage
        # A hostile or damaged pickle can give any value here: only non-negative ints make a tensor.
        self.malformed = next((f"its {what} is {value!r}" for what, value in
                               (("size", size), ("stride", stride), ("storage offset", offset))
                               if not _dims(value if what != "storage offset" else (value,))), None)
        self.offset = offset if not self.malformed else 0
        self.size = tuple(size) if not self.malformed else ()
        self.stride = tuple(stride) if not self.malformed else ()
        self.requires_grad, self.dtype, self.parameter = bool(requires_grad is True), dtype or "?", False


def _dims(value: Any) -> bool:
    return isinstance(value, (tuple, list)) and all(type(v) is int and v >= 0 for v in value)


# Storage class name -> dtype; UntypedStorage (rebuild v3) carries the dtype as an argument.
STORAGE_DTYPE = {
    "FloatStorage": "float32", "DoubleStorage": "float64", "HalfStorage": "float16",
    "BFloat16Storage": "bfloat16", "LongStorage": "int64", "IntStorage": "int32", "ShortStorage": "int16",
    "CharStorage": "int8", "ByteStorage": "uint8", "BoolStorage": "bool", "ComplexFloatStorage": "complex64",
    "ComplexDoubleStorage": "complex128", "QInt8Storage": "qint8", "QUInt8Storage": "quint8",
    "QInt32Storage": "qint32", "QUInt4x2Storage": "quint4x2", "QUInt2x4Storage": "quint2x4",
    "UntypedStorage": "uint8",
}
REBUILD = {"_rebuild_tensor", "_rebuild_tensor_v2", "_rebuild_tensor_v3"}
_PUSH_ARG = {"BININT", "BININT1", "BININT2", "LONG1", "LONG4", "INT", "LONG", "BINFLOAT", "FLOAT",
             "BINUNICODE", "SHORT_BINUNICODE", "BINUNICODE8", "UNICODE", "BINSTRING", "SHORT_BINSTRING",
             "STRING", "BINBYTES", "SHORT_BINBYTES", "BINBYTES8", "BYTEARRAY8"}
_CONST = {"NONE": None, "NEWTRUE": True, "NEWFALSE": False}


def canonical(mod: str, name: str) -> tuple[str, str]:
    """Python 2 names the way pickle (and torch's reader) map them: `__builtin__.set` -> `builtins.set`."""
    if (mod, name) in _compat_pickle.NAME_MAPPING:
        return _compat_pickle.NAME_MAPPING[(mod, name)]
    return _compat_pickle.IMPORT_MAPPING.get(mod, mod), name


@dataclass
class Loaded:
    root: Any
    globals: Counter
    opcodes: Counter
    protocol: int
    end: int  # byte offset just after STOP
    # global -> how the pickle uses it: "call" (REDUCE, INST, OBJ, or called by a rebuild helper),
    # "class" (NEWOBJ, copyreg reconstruction: __new__ without __init__), "build" (BUILD applied to the
    # imported object itself: it mutates it), "computed" (STACK_GLOBAL of non-literal operands,
    # copyreg extension codes), "dotted" (a name with dots, resolved attribute by attribute). A
    # global with none of these is only imported and referenced.
    uses: dict[str, set[str]] = field(default_factory=dict)


# Pseudo-globals for what a pickle calls without naming it: the verdict treats them like globals.
CALLED_RESULT = "<the result of another call>"
COMPUTED = "<computed STACK_GLOBAL>"


def _hashable(key: Any) -> Any:
    try:
        hash(key)
        return key
    except TypeError:
        return f"<unhashable {type(key).__name__}>"


def sym_load(data: bytes | io.BufferedIOBase, limits: Limits = Limits(), *, start: int = 0) -> Loaded:
    """Run one pickle (up to its STOP) symbolically. `data` is bytes or a file positioned at the pickle.
    A `PickleError` carries the globals, their uses and the opcodes read before it."""
    globs: Counter = Counter()
    ops: Counter = Counter()
    uses: dict[str, set[str]] = {}
    try:
        return _sym_load(data, limits, start, globs, ops, uses)
    except PickleError as exc:
        exc.globals, exc.uses, exc.opcodes = globs, uses, ops
        raise


def _sym_load(data: bytes | io.BufferedIOBase, limits: Limits, start: int, globs: Counter, ops: Counter,
              uses: dict[str, set[str]]) -> Loaded:
    stream = io.BytesIO(data) if isinstance(data, (bytes, bytearray, memoryview)) else data
    stack: list[Any] = []
    meta: list[list[Any]] = []
    memo: dict[int, Any] = {}
    protocol = 0
    frame_end = 0
    items = 0
    deadline = time.monotonic() + limits.max_seconds
    count = 0
    pos = start

    def pop_mark() -> list[Any]:
        nonlocal stack
        if not meta:
            raise PickleError("MARK expected on the stack", pos)
        out, stack = stack, meta.pop()
        return out

    def use(ref: Any, how: str) -> None:
        if isinstance(ref, Ref):
            uses.setdefault(ref.full, set()).add(how)
        elif isinstance(ref, Call) and isinstance(ref.func, Ref) and ref.func.mod == "<persistent_load>":
            pass  # torch's persistent_load returns storages or raises: never a callable of the file's
        elif how == "call" or how == "class":
            uses.setdefault(CALLED_RESULT, set()).add("call")
            globs[CALLED_RESULT] += 1

    def add_item(target: Any, key: Any, value: Any) -> None:
        if isinstance(target, dict):
            target[_hashable(key)] = value
        elif isinstance(target, Call):
            target.items.append((key, value))

    gen = pickletools.genops(stream)
    try:
        for op, arg, pos in gen:
            count += 1
            n = op.name
            ops[n] += 1
            if count & 0xFFFF == 0:
                if count > limits.max_ops:
                    raise PickleLimit(f"more than {limits.max_ops:,} pickle opcodes", pos)
                if time.monotonic() > deadline:
                    raise PickleLimit(f"reading the pickle took more than {limits.max_seconds:g} s", pos)
            if items > limits.max_items:
                raise PickleLimit(f"more than {limits.max_items:,} pickled items", pos)
            if n in _PUSH_ARG:
                stack.append(arg)
            elif n in _CONST:
                stack.append(_CONST[n])
            elif n == "PROTO":
                protocol = arg
            elif n == "FRAME":
                frame_end = pos + 9 + arg  # the opcode, its 8-byte length, then the frame
                continue
            elif n == "EMPTY_DICT":
                stack.append({})
            elif n in ("EMPTY_LIST", "EMPTY_SET"):
                stack.append([])
            elif n == "EMPTY_TUPLE":
                stack.append(())
            elif n == "MARK":
                if len(meta) >= limits.max_depth:
                    raise PickleLimit(f"MARKs nested deeper than {limits.max_depth:,}", pos)
                meta.append(stack)
                stack = []
            elif n in ("GLOBAL", "INST"):
                mod, name = canonical(*arg.split(" ", 1))
                globs[f"{mod}.{name}"] += 1
                ref = Ref(mod, name)
                _note_name(ref, uses)
                if n == "INST":
                    # INST calls klass(*args) (pickle's _instantiate): take the args first, then push
                    # onto the stack below the MARK.
                    args = tuple(pop_mark())
                    _note_call(ref, args, use)
                    stack.append(Call(ref, args))
                else:
                    stack.append(ref)
            elif n == "STACK_GLOBAL":
                name, mod = stack.pop(), stack.pop()
                if isinstance(mod, str) and isinstance(name, str):
                    mod, name = canonical(mod, name)
                    globs[f"{mod}.{name}"] += 1
                    ref = Ref(mod, name)
                    _note_name(ref, uses)
                    stack.append(ref)
                else:
                    # Module or name built by the pickle itself: nothing static says what it imports.
                    globs[COMPUTED] += 1
                    uses.setdefault(COMPUTED, set()).add("computed")
                    stack.append(Ref(COMPUTED, ""))
            elif n in ("BINPUT", "LONG_BINPUT", "PUT"):
                if len(memo) >= limits.max_memo:
                    raise PickleLimit(f"more than {limits.max_memo:,} memo entries", pos)
                memo[arg] = stack[-1]
            elif n == "MEMOIZE":
                if len(memo) >= limits.max_memo:
                    raise PickleLimit(f"more than {limits.max_memo:,} memo entries", pos)
                memo[len(memo)] = stack[-1]
            elif n in ("BINGET", "LONG_BINGET", "GET"):
                if arg not in memo:
                    raise PickleError(f"memo entry {arg} read before it was written", pos)
                stack.append(memo[arg])
            elif n == "TUPLE":
                got = pop_mark()
                items += len(got)
                stack.append(tuple(got))
            elif n in ("TUPLE1", "TUPLE2", "TUPLE3"):
                k = int(n[-1])
                if len(stack) < k:
                    raise PickleError(f"{n} on a stack of {len(stack)}", pos)
                got = tuple(stack[-k:])
                del stack[-k:]
                items += k
                stack.append(got)
            elif n == "LIST" or n == "FROZENSET":
                got = pop_mark()
                items += len(got)
                stack.append(got)
            elif n == "DICT":
                got = pop_mark()
                items += len(got)
                stack.append({_hashable(k): v for k, v in zip(got[::2], got[1::2])})
            elif n == "APPEND":
                v = stack.pop()
                t = stack[-1]
                items += 1
                if isinstance(t, list):
                    t.append(v)
                elif isinstance(t, Call):
                    t.items.append(v)
            elif n in ("APPENDS", "ADDITEMS"):
                got = pop_mark()
                items += len(got)
                t = stack[-1]
                if isinstance(t, list):
                    t.extend(got)
                elif isinstance(t, Call):
                    t.items.extend(got)
            elif n == "SETITEM":
                v = stack.pop()
                k = stack.pop()
                items += 1
                add_item(stack[-1], k, v)
            elif n == "SETITEMS":
                got = pop_mark()
                items += len(got)
                t = stack[-1]
                for k, v in zip(got[::2], got[1::2]):
                    add_item(t, k, v)
            elif n in ("BINPERSID", "PERSID"):
                pid = stack.pop() if n == "BINPERSID" else arg
                ok = (isinstance(pid, tuple) and len(pid) >= 5 and pid[0] in ("storage", b"storage")
                      and isinstance(pid[2], (str, bytes)))
                if ok:
                    stack.append(Storage(pid))
                elif isinstance(pid, tuple) and len(pid) >= 2 and pid[0] in ("module", b"module"):
                    # Legacy torch.save(model): ('module', cls, source file, source) stands for cls.
                    stack.append(pid[1])
                else:
                    stack.append(Call(Ref("<persistent_load>", "?"), pid))
            elif n == "REDUCE":
                args = stack.pop()
                f = stack.pop()
                _note_call(f, args, use)
                stack.append(_reduce(f, args))
            elif n in ("NEWOBJ", "NEWOBJ_EX"):
                if n == "NEWOBJ_EX":
                    stack.pop()
                args = stack.pop()
                cls = stack.pop()
                use(cls, "class")
                stack.append(Call(cls, args))
            elif n == "OBJ":
                got = pop_mark()
                if not got:
                    raise PickleError("OBJ without a class", pos)
                _note_call(got[0], tuple(got[1:]), use)  # OBJ calls cls(*args), like INST
                stack.append(Call(got[0], tuple(got[1:])))
            elif n == "BUILD":
                state = stack.pop()
                if isinstance(stack[-1], Call):
                    stack[-1].state = state
                elif isinstance(stack[-1], Ref):
                    use(stack[-1], "build")
            elif n == "POP":
                if stack:
                    stack.pop()
                else:
                    pop_mark()
            elif n == "POP_MARK":
                pop_mark()
            elif n == "DUP":
                stack.append(stack[-1])
            elif n in ("EXT1", "EXT2", "EXT4"):
                globs[f"<copyreg extension {arg}>"] += 1
                uses.setdefault(f"<copyreg extension {arg}>", set()).add("computed")
                stack.append(Ref(f"<copyreg extension {arg}>", ""))
            elif n == "NEXT_BUFFER":
                stack.append(Call(Ref("<out-of-band buffer>", "?"), ()))
            elif n == "READONLY_BUFFER":
                pass
            elif n == "STOP":
                if len(stack) != 1 and not stack:
                    raise PickleError("STOP on an empty stack", pos)
                if frame_end > pos + 1:
                    # Python's own unpickler continues after the frame, the C one after STOP: in a
                    # stream of pickles they read different next pickles. pickle never writes this.
                    raise PickleError(f"a FRAME runs {frame_end - pos - 1:,} bytes past the pickle's STOP", pos)
                end = stream.tell() if hasattr(stream, "tell") else pos + 1
                return Loaded(stack.pop(), globs, ops, protocol, end, uses)
            else:  # pragma: no cover - genops knows no other opcodes
                raise PickleError(f"opcode {n} is not understood", pos)
    except PickleError:
        raise
    except IndexError:
        raise PickleError("the pickle pops more than it pushed (stack underflow)", pos) from None
    except (ValueError, TypeError, KeyError, AttributeError, UnicodeDecodeError, OverflowError,
            MemoryError, RecursionError) as exc:
        # genops raises ValueError on an unknown opcode byte or data that stops early.
        text = str(exc)
        if "at end of input" in text or "only" in text and "remain" in text:
            raise PickleError(f"the pickle ends early ({text})", pos) from None
        raise PickleError(f"malformed pickle: {text}", pos) from None
    raise PickleError("the pickle has no STOP opcode: the file ends early", pos)


def _note_name(ref: Ref, uses: dict[str, set[str]]) -> None:
    how = uses.setdefault(ref.full, set())
    # pickle resolves a dotted name attribute by attribute (`torch` + `os.system` is torch.os.system):
    # what it reaches is not the module it names.
    if "." in ref.name or not ref.name or not ref.mod:
        how.add("dotted")


# Rebuild functions that call or instantiate one of their arguments: argument index -> use.
_ARGUMENT_USES = {
    "torch._tensor._rebuild_from_type_v2": {0: "call", 1: "class"},  # (func, new_type, args, state): func(*args)
    "torch._tensor._rebuild_from_type": {0: "call", 1: "class"},
    "torch._utils._rebuild_wrapper_subclass": {0: "class"},
    "numpy.core.multiarray._reconstruct": {0: "class"},
    "numpy._core.multiarray._reconstruct": {0: "class"},
    "numpy.random._pickle.__bit_generator_ctor": {0: "call"},  # instantiates the class it is given
    "numpy.random._pickle.__randomstate_ctor": {1: "call"},  # (name, bit_generator_ctor): calls the ctor
    "numpy.random._pickle.__generator_ctor": {1: "call"},
    "copyreg.__newobj__": {0: "class"},
    "copyreg.__newobj_ex__": {0: "class"},
    "copyreg._reconstructor": {0: "class", 1: "call"},  # (cls, base, state): base.__init__(obj, state)
}


def _note_call(f: Any, args: Any, use: Any) -> None:
    """Record what a REDUCE calls, including what the rebuild helpers call or construct for it."""
    use(f, "call")
    if not isinstance(f, Ref) or not isinstance(args, tuple):
        return
    for index, how in _ARGUMENT_USES.get(f.full, {}).items():
        if index >= len(args):
            continue
        if f.full == "copyreg._reconstructor" and index == 1 and isinstance(args[1], Ref) and \
                args[1].full == "builtins.object":
            continue  # object.__init__ is not called
        use(args[index], how)


def _reduce(f: Any, args: Any) -> Any:
    """REDUCE: understand torch's rebuild functions and OrderedDict(); record everything else."""
    if not isinstance(f, Ref) or not isinstance(args, tuple):
        return Call(f, args)
    full, name = f.full, f.name
    if full == "collections.OrderedDict" and args == ():
        return OrderedDict()
    if full == "collections.OrderedDict" and len(args) == 1 and isinstance(args[0], list) and all(
            isinstance(p, (list, tuple)) and len(p) == 2 for p in args[0]):
        # Old torch.save wrote OrderedDict([[key, tensor], ...]): a state dict all the same.
        return OrderedDict((_hashable(k), v) for k, v in args[0])
    if f.mod == "torch._utils":
        if name in REBUILD and args and isinstance(args[0], Storage) and len(args) >= 4:
            st = args[0]
            dtype = None
            if name == "_rebuild_tensor_v3" and len(args) > 6 and isinstance(args[6], Ref):
                dtype = args[6].name
            return TensorRef(st, args[1], args[2], args[3], len(args) > 4 and args[4],
                             dtype or STORAGE_DTYPE.get(st.type_name, st.type_name))
        if name.startswith("_rebuild_parameter") and args and isinstance(args[0], TensorRef):
            t = args[0]
            t.parameter = True
            t.requires_grad = bool(len(args) > 1 and args[1] is True)
            return t
        if name == "_rebuild_meta_tensor_no_storage" and len(args) >= 3 and isinstance(args[0], Ref):
            return TensorRef(None, 0, args[1], args[2], len(args) > 3 and args[3], args[0].name)
    if full == "torch._tensor._rebuild_from_type_v2" and len(args) >= 3 and isinstance(args[2], tuple):
        inner = _reduce(args[0], args[2])
        if isinstance(inner, TensorRef):
            return inner
    if full == "torch.Size" and len(args) == 1 and isinstance(args[0], tuple):
        return args[0]
    return Call(f, args)


def walk(obj: Any, limits: Limits = Limits()) -> Iterator[tuple[str, Any, Any]]:
    """Yield (path, value, parent) for every node, each object once (a shared object is visited at
    its first path only), iteratively, so neither a deep nor a self-referential pickle can explode."""
    seen: set[int] = set()
    todo: list[tuple[str, Any, Any, int]] = [("", obj, None, 0)]
    visited = 0
    while todo:
        path, node, parent, depth = todo.pop()
        if isinstance(node, (dict, list, tuple, Call, TensorRef)):
            if id(node) in seen:
                continue
            seen.add(id(node))
        visited += 1
        if visited > limits.max_items:
            raise PickleLimit(f"more than {limits.max_items:,} objects in the structure")
        yield path, node, parent
        if depth >= limits.max_depth:
            raise PickleLimit(f"structure nested deeper than {limits.max_depth:,}")
        children: list[tuple[str, Any]] = []
        if isinstance(node, dict):
            children = [(f"{path}.{k}" if path else str(k), v) for k, v in node.items()]
        elif isinstance(node, (list, tuple)):
            children = [(f"{path}[{i}]", v) for i, v in enumerate(node)]
        elif isinstance(node, Call):
            tag = f"{path}<{node.func!r}>" if isinstance(node.func, Ref) else f"{path}<?>"
            for part, value in (("args", node.args), ("state", node.state), ("items", node.items)):
                if value is not None and value != [] and value != ():
                    children.append((f"{tag}", value) if part == "state" else (f"{tag}{{{part}}}", value))
        for child in reversed(children):
            todo.append((child[0], child[1], node, depth + 1))
