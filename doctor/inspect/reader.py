"""Read a checkpoint without running it: sniff what the file is, walk its pickle symbolically, and
record the structure, the storages, the globals and the opcodes in an `InspectReport`.

Formats: torch.save zip (since 1.6) and legacy stream, TorchScript zips, safetensors, a raw pickle;
and the things that are not checkpoints: Git LFS pointers, HTML pages, empty, truncated or random files.
Only the zip directory and the pickle are read; tensor bytes only for `tensors=True`.
"""

from __future__ import annotations

import json
import os
import struct
import tarfile
from typing import Any

from .pickle_vm import (
    STORAGE_DTYPE,
    Call,
    Limits,
    PickleError,
    PickleLimit,
    Ref,
    Storage,
    TensorRef,
    sym_load,
    walk,
)
from .report import ELEMENT_SIZE, NEW_DTYPES, InspectReport, StateDict, TensorInfo
from .torchzip import TorchZip, ZipError

LEGACY_MAGIC = 0x1950A86A20F9469CFC6C
LEGACY_PROTOCOL_VERSION = 1001
MAX_PICKLE_BYTES = 1 << 30  # a data.pkl larger than this is refused as a bomb
MAX_SAFETENSORS_HEADER = 100 << 20  # what the safetensors library itself accepts
# Wrapper prefixes on state-dict keys and what added them.
WRAPPER_PREFIXES = {
    "module.": "DataParallel / DistributedDataParallel",
    "_orig_mod.": "torch.compile",
    "_fsdp_wrapped_module.": "FullyShardedDataParallel (FSDP1)",
}
SAFETENSORS_DTYPE = {
    "F64": "float64", "F32": "float32", "F16": "float16", "BF16": "bfloat16", "I64": "int64", "I32": "int32",
    "I16": "int16", "I8": "int8", "U8": "uint8", "U16": "uint16", "U32": "uint32", "U64": "uint64",
    "BOOL": "bool", "C64": "complex64", "F8_E4M3": "float8_e4m3fn", "F8_E5M2": "float8_e5m2",
    "F8_E8M0": "float8_e8m0fnu", "F4": "float4_e2m1fn_x2",
}


def inspect_path(path: str | os.PathLike, *, tensors: bool = False, tree: bool = False,
                 limits: Limits = Limits()) -> InspectReport:
    """Inspect one checkpoint file. Never imports torch, never executes the pickle.

    Raises OSError when the file cannot be opened (missing, a directory, no permission); every
    problem *inside* the file is reported in the returned report instead (`readable`, `problem`).
    """
    path = os.fspath(path)
    if os.path.isdir(path):
        raise IsADirectoryError(21, "is a directory, not a checkpoint file", path)
    size = os.path.getsize(path)
    report = InspectReport(path=path, file_size=size)
    with open(path, "rb") as fh:
        head = fh.read(512)
    if size == 0:
        return _unreadable(report, "empty", "not-a-checkpoint", "the file is empty (0 bytes)")
    # torch tries zip (by its first four bytes), then the tar loader with tarfile's own rules, then
    # reads a pickle stream: so do we, so that no file is one thing to torch and another here.
    kind = "zip" if head.startswith(b"PK\x03\x04") else "tar" if _is_tar(path) else sniff(head, size)
    report.format = kind
    try:
        if kind == "zip":
            _read_zip(report, limits)
        elif kind == "safetensors":
            _read_safetensors(report)
        elif kind in ("pickle", "unknown"):
            # torch.load reads anything that is neither zip nor tar as a pickle stream: so do we,
            # whatever its first byte (a broken pickle may still have run code before it broke).
            _read_stream(report, limits, strict=kind == "pickle")
        else:
            if kind == "tar":
                _scan_tar(report, limits)
            _not_a_checkpoint(report, kind, head)
    except PickleError as exc:
        _absorb(report, exc)
        _unreadable(report, report.format, *_pickle_problem(exc))
    if report.readable and tensors and report.tensors:
        from .stats import tensor_stats

        report.stats = tensor_stats(report)
    if not tree:
        report.tree = None
    return report


def sniff(head: bytes, size: int) -> str:
    """What the first bytes say the file is."""
    if head.startswith((b"PK\x03\x04", b"PK\x05\x06")):
        return "zip"
    if head.startswith(b"version https://git-lfs"):
        return "lfs-pointer"
    if head.startswith(b"\x93NUMPY"):
        return "npy"
    stripped = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if stripped[:1] == b"<":
        return "html"
    if len(head) >= 9 and head[8:9] == b"{":
        n = struct.unpack("<Q", head[:8])[0]
        if 2 <= n <= min(size - 8, MAX_SAFETENSORS_HEADER):
            return "safetensors"
    if head[:1] == b"\x80" and len(head) > 1 and 0 <= head[1] <= 5:
        return "pickle"
    return "unknown"


def _is_tar(path: str) -> bool:
    try:
        with tarfile.open(path, mode="r:"):
            return True
    except (tarfile.TarError, OSError, ValueError, EOFError, UnicodeDecodeError, OverflowError):
        return False


def _scan_tar(report: InspectReport, limits: Limits) -> None:
    """The pickles torch 0.1's tar loader runs, in its order: the storages member (a count, then per
    storage a pickle and its raw data, then the views), the tensors member (a count, then per tensor
    a pickle and its shape), the pickle member. A read stops where torch's would fail; what was read
    before still counts, as torch would have run it."""
    try:
        with tarfile.open(report.path, mode="r:") as tar:
            for member in ("storages", "tensors", "pickle"):
                try:
                    fh = tar.extractfile(member)  # the last member of that name, as torch's extract takes
                except (KeyError, tarfile.TarError):
                    return
                if fh is None:
                    return
                with fh:
                    if member == "pickle":
                        _absorb(report, sym_load(fh, limits))
                        return
                    count = sym_load(fh, limits)
                    _absorb(report, count)
                    n = count.root if type(count.root) is int else 0
                    for _ in range(min(max(n, 0), limits.max_items)):
                        args = sym_load(fh, limits)
                        _absorb(report, args)
                        if member == "storages":
                            stype = args.root[2] if isinstance(args.root, tuple) and len(args.root) == 3 else None
                            name = stype.name if isinstance(stype, Ref) else ""
                            elsize = ELEMENT_SIZE.get(STORAGE_DTYPE.get(name, ""), 1)
                            numel = struct.unpack("<q", fh.read(8))[0]
                            fh.seek(max(numel, 0) * elsize, os.SEEK_CUR)
                        else:
                            ndim = struct.unpack("<i", fh.read(4))[0]
                            fh.seek(4 + 16 * max(ndim, 0) + 8, os.SEEK_CUR)
                    if member == "storages":
                        _absorb(report, sym_load(fh, limits))  # the storage views
    except PickleError as exc:
        _absorb(report, exc)
    except (tarfile.TarError, OSError, ValueError, EOFError, struct.error, OverflowError):
        pass


def _absorb(report: InspectReport, part: Any) -> None:
    """Add one pickle's (or a broken pickle's partial) globals, their uses and opcodes to the report."""
    for name, count in part.globals.items():
        report.globals[name] = report.globals.get(name, 0) + count
    for name, how in part.uses.items():
        report.global_uses[name] = sorted(set(report.global_uses.get(name, [])) | set(how))
    report.opcodes = sorted(set(report.opcodes) | set(part.opcodes))


def _pickle_problem(exc: PickleError) -> tuple[str, str]:
    if isinstance(exc, PickleLimit):
        return "limit", _where(exc)
    return ("truncated" if "ends early" in str(exc) or "no STOP" in str(exc) else "corrupt"), _where(exc)


def _where(exc: PickleError) -> str:
    return f"{exc} (at byte {exc.pos} of the pickle)" if exc.pos is not None else str(exc)


def _unreadable(report: InspectReport, fmt: str, kind: str, detail: str, **extra: Any) -> InspectReport:
    report.format = fmt
    report.readable = False
    report.problem = {"kind": kind, "detail": detail, **extra}
    return report


def _not_a_checkpoint(report: InspectReport, kind: str, head: bytes) -> None:
    if kind == "lfs-pointer":
        text = head.decode("utf-8", "replace")
        for line in text.splitlines():
            key, _, value = line.partition(" ")
            if key in ("oid", "size"):
                report.details[key] = value.strip()
        detail = ("a Git LFS pointer: the repository was cloned without git-lfs, so the weights "
                  f"({_lfs_size(report.details.get('size'))}) were never downloaded")
    elif kind == "html":
        title = ""
        low = head.lower()
        if b"<title>" in low:
            title = head[low.index(b"<title>") + 7:].split(b"<", 1)[0].decode("utf-8", "replace").strip()
        report.details["title"] = title
        detail = "an HTML page (an error, login or quota page saved under a checkpoint's name)" + \
            (f": {title!r}" if title else "")
    elif kind == "tar":
        detail = ("a tar file, which torch.load reads as the ancient format of torch 0.1.x: it refuses it under "
                  "weights_only=True, and under weights_only=False runs the pickles in its members")
    elif kind == "npy":
        detail = "a numpy .npy array, not a torch checkpoint (load it with numpy.load)"
    else:
        shown = head[:16]
        printable = all(32 <= b < 127 or b in (9, 10, 13) for b in head[:64])
        report.details["first_bytes"] = shown.hex(" ")
        detail = (f"neither a zip archive, a legacy torch.save stream, safetensors nor a pickle "
                  f"({'text' if printable else 'binary data'} starting {shown!r})")
    _unreadable(report, kind, "not-a-checkpoint", detail)


def _lfs_size(size: str | None) -> str:
    if size and size.isdigit():
        from .report import human_bytes

        return human_bytes(int(size))
    return "size unknown"


# --------------------------------------------------------------------------- zip
def _read_zip(report: InspectReport, limits: Limits) -> None:
    try:
        zf = TorchZip(report.path)
    except (ZipError, OSError, struct.error, ValueError) as exc:
        _salvage_zip(report, limits, exc)
        return
    report.archive_problems = zf.problems
    if not zf.prefix:
        _unreadable(report, "zip", "not-a-checkpoint",
                    f"a zip archive with no folder/data.pkl record: its first entry ({zf.entries[0].name!r}) is in "
                    "no folder, so it was not written by torch.save and torch.load refuses it")
        return
    report.archive = zf.prefix
    if zf.exact("constants.pkl"):  # torch.load's own test, then it hands the file to torch.jit.load
        report.format = "torchscript"
    candidates = zf.find("data.pkl")
    if not candidates:
        names = ", ".join(e.name for e in zf.entries[:5])
        _unreadable(report, report.format, "not-a-checkpoint",
                    f"a zip archive without a data.pkl record: not written by torch.save (it holds {names})")
        return
    for record in ("data.pkl", "constants.pkl", "version", ".data/version", "byteorder"):
        for e in zf.find(record):
            if e.raw != f"{zf.prefix}/{record}".encode():
                zf.problems.append(f"{e.name!r} stands for {record} (torch's lookup ignores case; torch.save "
                                   "writes lower case)")
    for record, attr in ((".data/version", "format_version"), ("version", "format_version"),
                         ("byteorder", "byteorder")):
        found = zf.find(record)
        if found and found[0].size < 64 and getattr(report, attr) is None:
            try:
                setattr(report, attr, zf.read(found[0], 64).decode("ascii", "replace").strip())
            except (ZipError, OSError):
                pass  # an unreadable small record only loses that detail
    # Every data.pkl torch might pick is read; the first in directory order gives the structure.
    loaded, failure = None, None
    for e in candidates + (zf.find("constants.pkl") if report.format == "torchscript" else []):
        # One unreadable candidate must not hide the others: torch may load any of them.
        if e.size > MAX_PICKLE_BYTES:
            failure = failure or ("limit", f"{e.name} declares {e.size:,} bytes (more than {MAX_PICKLE_BYTES:,}): "
                                           "refused as a bomb")
            continue
        try:
            part = sym_load(zf.read(e, MAX_PICKLE_BYTES), limits)
        except (ZipError, OSError) as exc:
            failure = failure or (getattr(exc, "kind", "corrupt"), f"{e.name} cannot be read: {exc}")
            continue
        except PickleError as exc:
            _absorb(report, exc)
            failure = failure or _pickle_problem(exc)
            continue
        _absorb(report, part)
        if loaded is None:
            loaded = part
    if failure:
        _unreadable(report, report.format, *failure)
        return
    _fill(report, loaded, limits)
    # Storage records: present, big enough, and where their bytes are (for --tensors).
    for key, st in report.storages.items():
        found = zf.find(f"data/{key}")
        st["record"] = f"{zf.prefix}/data/{key}"
        if not found:
            if st["location"] != "meta":
                report.storage_problems.append(f"storage {key}: record {zf.prefix}/data/{key} is missing")
            continue
        rec = found[0]
        if rec.size < st["nbytes"]:
            report.storage_problems.append(
                f"storage {key}: declares {st['nbytes']:,} bytes but {zf.prefix}/data/{key} holds {rec.size:,}")
        st["data_offset"] = zf.payload_offset(rec) if rec.method == 0 else None


def _salvage_zip(report: InspectReport, limits: Limits, exc: Exception) -> None:
    """The zip directory is missing or broken. If the first record is data.pkl, read it anyway to
    say what the checkpoint was and how much of it is missing."""
    detail = str(exc) or type(exc).__name__
    kind = getattr(exc, "kind", "corrupt")
    salvage: dict[str, Any] = {}
    try:
        with open(report.path, "rb") as fh:
            local = fh.read(30)
            if len(local) == 30 and local[:4] == b"PK\x03\x04":
                n, m = struct.unpack("<HH", local[26:30])
                name = fh.read(n).decode("utf-8", "replace")
                fh.seek(m, os.SEEK_CUR)
                if name.endswith("data.pkl") and struct.unpack("<H", local[8:10])[0] == 0:
                    loaded = sym_load(fh, limits, start=30 + n + m)
                    _absorb(report, loaded)
                    probe = InspectReport(path=report.path, file_size=report.file_size, format="zip")
                    _fill(probe, loaded, limits)
                    salvage = {"tensors": probe.tensor_count, "needed_bytes": probe.total_bytes}
    except PickleError as broken:
        _absorb(report, broken)
    except (OSError, struct.error, ValueError):
        pass
    text = detail
    if salvage:
        text += (f"; its data.pkl still reads: {salvage['tensors']} tensors needing about "
                 f"{salvage['needed_bytes']:,} bytes, and the file is {report.file_size:,} bytes")
    _unreadable(report, "zip", kind, text, **salvage)


# --------------------------------------------------------------------------- legacy
def _read_stream(report: InspectReport, limits: Limits, *, strict: bool) -> None:
    """A pickle stream, read the way torch's `_legacy_load` reads it: one pickle, and when its value
    is the legacy magic number (however it is encoded) the protocol version, the system info, the
    object and the storage keys after it, each a pickle of its own that `pickle.load` runs.
    `strict`: the file starts like a pickle, so a failure is damage rather than "not a checkpoint"."""
    report.format = "raw-pickle"
    with open(report.path, "rb") as fh:
        try:
            first = sym_load(fh, limits)
        except PickleError as exc:
            if strict or exc.globals:
                raise
            _absorb(report, exc)
            with open(report.path, "rb") as again:
                _not_a_checkpoint(report, "unknown", again.read(512))
            return
        _absorb(report, first)
        magic = type(first.root) is int and first.root == LEGACY_MAGIC
        # A magic number built by a call could still equal it when the call runs: read on as torch would.
        speculative = not magic and _runs_calls(first)
        if not magic and not speculative:
            report.format = "raw-pickle"
            _fill(report, first, limits)
            return
        report.format = "legacy"
        parts = [first]
        try:
            for _ in range(4):  # protocol version, sys_info, the object, the storage keys
                part = sym_load(fh, limits)
                _absorb(report, part)
                parts.append(part)
                if len(parts) == 2 and not (part.root == LEGACY_PROTOCOL_VERSION or _runs_calls(part)):
                    break  # torch stops here: "Invalid protocol version"
        except PickleError:
            if speculative:
                report.format = "raw-pickle"
                _fill(report, first, limits)
                return
            raise
        offset = fh.tell()
    if speculative:
        report.format = "raw-pickle"
        _fill(report, first, limits)
        return
    if len(parts) < 5:
        _fill(report, first, limits)
        _unreadable(report, "legacy", "corrupt",
                    f"the legacy stream's protocol version is {parts[1].root!r}, not {LEGACY_PROTOCOL_VERSION}")
        return
    _, version, info, loaded, keys = parts
    report.details["protocol_version"] = version.root
    if isinstance(info.root, dict):
        report.byteorder = "little" if info.root.get("little_endian", True) else "big"
    _fill(report, loaded, limits)
    report.details["pickles"] = 5
    order = keys.root if isinstance(keys.root, list) else []
    with open(report.path, "rb") as fh:
        for key in order:
            key = str(key)
            st = report.storages.get(key)
            fh.seek(offset)
            raw = fh.read(8)
            if len(raw) < 8:
                report.storage_problems.append(f"storage {key}: the file ends before its data (at byte {offset:,})")
                break
            numel = struct.unpack("<q", raw)[0]
            elsize = ELEMENT_SIZE.get(st["dtype"], 1) if st else 1
            nbytes = max(numel, 0) * elsize
            if st is not None:
                st["data_offset"] = offset + 8
                if numel != st["numel"]:
                    report.storage_problems.append(f"storage {key}: declares {st['numel']:,} elements, "
                                                   f"its data block says {numel:,}")
            if offset + 8 + nbytes > report.file_size:
                report.storage_problems.append(
                    f"storage {key}: needs {nbytes:,} bytes from byte {offset + 8:,}, "
                    f"but the file is {report.file_size:,} bytes (truncated)")
                break
            offset += 8 + nbytes


def _runs_calls(loaded: Any) -> bool:
    return any("call" in how for how in loaded.uses.values())


# --------------------------------------------------------------------------- safetensors
def _read_safetensors(report: InspectReport) -> None:
    with open(report.path, "rb") as fh:
        n = struct.unpack("<Q", fh.read(8))[0]
        raw = fh.read(n)
    try:
        header = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        _unreadable(report, "safetensors", "corrupt", f"the safetensors JSON header is invalid ({exc})")
        return
    if not isinstance(header, dict):
        _unreadable(report, "safetensors", "corrupt", "the safetensors header is not a JSON object")
        return
    meta = header.pop("__metadata__", None)
    if isinstance(meta, dict):
        report.details["metadata"] = {str(k): str(v)[:200] for k, v in list(meta.items())[:50]}
    base = 8 + n
    report.root_type = "dict"
    shapes: dict[str, list[int]] = {}
    for name, spec in header.items():
        if not isinstance(spec, dict):
            report.storage_problems.append(f"{name}: header entry is not an object")
            continue
        dtype = SAFETENSORS_DTYPE.get(str(spec.get("dtype")), str(spec.get("dtype")).lower())
        shape = [int(s) for s in spec.get("shape", []) if isinstance(s, int)]
        begin, end = (spec.get("data_offsets") or [0, 0])[:2]
        numel = 1
        for s in shape:
            numel *= s
        nbytes = numel * ELEMENT_SIZE.get(dtype, 1)
        if end - begin != nbytes:
            report.storage_problems.append(f"{name}: {dtype}{shape} needs {nbytes:,} bytes, its offsets span {end - begin:,}")
        if base + end > report.file_size:
            report.storage_problems.append(
                f"{name}: its bytes end at {base + end:,}, but the file is {report.file_size:,} bytes (truncated)")
        report.tensors.append(TensorInfo(name, dtype, shape, "cpu", name, nbytes, 0, [], False))
        report.storages[name] = {"dtype": dtype, "location": "cpu", "numel": numel, "nbytes": nbytes,
                                 "record": name, "data_offset": base + begin}
        shapes[name] = shape
    report.top_keys = [{"key": k, "kind": "tensor"} for k in list(header)[:50]]
    if shapes:
        report.state_dicts.append(_state_dict("", shapes))
    report.min_torch = None  # loaded by the safetensors library, not torch.load's unpickler


# --------------------------------------------------------------------------- the structure
def _fill(report: InspectReport, loaded: Any, limits: Limits) -> None:
    """The structure of the one pickle that holds the checkpoint (its globals are already absorbed)."""
    report.pickle_protocol = loaded.protocol
    root = loaded.root
    report.root_type = _kind(root)
    storages: dict[str, dict[str, Any]] = {}
    for path, node, _parent in walk(root, limits):
        if isinstance(node, TensorRef) and node.malformed:
            report.storage_problems.append(f"tensor {path or '<root>'}: {node.malformed[:120]}, not a tensor shape")
        elif isinstance(node, TensorRef):
            st = node.storage
            elsize = ELEMENT_SIZE.get(node.dtype, 1)
            numel = 1
            for s in node.size:
                numel *= s if isinstance(s, int) else 1
            info = TensorInfo(path or "<root>", node.dtype, [s for s in node.size], st.location if st else "meta",
                              st.key if st else None, numel * elsize, node.offset, list(node.stride), node.parameter)
            report.tensors.append(info)
            if st is not None and st.key not in storages:
                s_elsize = 1 if st.type_name == "UntypedStorage" else elsize
                s_numel = st.numel if isinstance(st.numel, int) else 0
                storages[st.key] = {"dtype": node.dtype, "location": st.location, "numel": s_numel,
                                    "nbytes": s_numel * s_elsize}
            if st is not None and isinstance(st.numel, int) and numel:
                # The elements the view reaches must lie inside its storage (torch checks this on load).
                span = node.offset + 1 + sum((s - 1) * d for s, d in zip(node.size, node.stride))
                capacity = st.numel * (1 if st.type_name == "UntypedStorage" else elsize)
                if span * elsize > capacity:
                    report.storage_problems.append(
                        f"tensor {path or '<root>'}: {node.dtype}{list(node.size)[:8]} reaches element {span - 1:,} "
                        f"of storage {st.key}, which holds {capacity // max(elsize, 1):,}")
        elif isinstance(node, dict) and node:
            values = list(node.values())
            n_tensors = sum(isinstance(v, TensorRef) for v in values)
            if n_tensors and n_tensors >= 0.9 * len(values) and all(isinstance(k, str) for k in node):
                shapes = {k: list(v.size) for k, v in node.items() if isinstance(v, TensorRef)}
                report.state_dicts.append(_state_dict(path, shapes))
    report.storages = storages
    if isinstance(root, dict):
        report.top_keys = [_top(k, v) for k, v in list(root.items())[:100]]
    report.tree = _tree(root, 0, set())
    _min_torch(report)


def _state_dict(path: str, shapes: dict[str, list[int]]) -> StateDict:
    keys = list(shapes)
    prefixes: dict[str, int] = {}
    for prefix in WRAPPER_PREFIXES:
        count = sum(k.startswith(prefix) for k in keys)
        if count:
            prefixes[prefix] = count
    return StateDict(path, keys, shapes, prefixes)


def _kind(node: Any) -> str:
    if isinstance(node, TensorRef):
        return "tensor"
    if isinstance(node, dict):
        return "dict"
    if isinstance(node, list):
        return "list"
    if isinstance(node, tuple):
        return "tuple"
    if isinstance(node, Call):
        return f"object {node.func!r}"
    if isinstance(node, Ref):
        return f"global {node.full}"
    if isinstance(node, Storage):
        return "storage"
    return type(node).__name__


def _count_tensors(node: Any, budget: list[int]) -> tuple[int, int]:
    seen: set[int] = set()
    todo, count, nbytes = [node], 0, 0
    while todo and budget[0] > 0:
        budget[0] -= 1
        n = todo.pop()
        if id(n) in seen:
            continue
        seen.add(id(n))
        if isinstance(n, TensorRef):
            count += 1
            numel = 1
            for s in n.size:
                numel *= s if isinstance(s, int) else 1
            nbytes += numel * ELEMENT_SIZE.get(n.dtype, 1)
        elif isinstance(n, dict):
            todo.extend(n.values())
        elif isinstance(n, (list, tuple)):
            todo.extend(n)
        elif isinstance(n, Call):
            todo.extend([n.args, n.state, n.items])
    return count, nbytes


def _top(key: Any, value: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {"key": str(key), "kind": _kind(value)}
    if isinstance(value, (dict, list, tuple, Call)):
        count, nbytes = _count_tensors(value, [200_000])
        entry["tensors"], entry["bytes"] = count, nbytes
        if isinstance(value, (dict, list, tuple)):
            entry["length"] = len(value)
    elif isinstance(value, TensorRef):
        entry["dtype"], entry["shape"] = value.dtype, list(value.size)
    else:
        entry["value"] = _short(value)
    return entry


def _short(value: Any) -> Any:
    if isinstance(value, (int, float, bool)) or value is None:
        return value
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _tree(node: Any, depth: int, seen: set[int]) -> Any:
    """The nested structure for --tree: containers as dicts/lists, tensors as one-line strings."""
    if isinstance(node, TensorRef):
        loc = node.storage.location if node.storage else "meta"
        return f"tensor {node.dtype}{list(node.size)} {loc}"
    if depth >= 12:
        return "..."
    if isinstance(node, (dict, list, tuple, Call)):
        if id(node) in seen:
            return "<shared, shown above>"
        seen.add(id(node))
    if isinstance(node, dict):
        out: dict[str, Any] = {}
        for i, (k, v) in enumerate(node.items()):
            if i >= 200:
                out["..."] = f"{len(node) - 200} more"
                break
            out[str(k)] = _tree(v, depth + 1, seen)
        return out
    if isinstance(node, (list, tuple)):
        items = [_tree(v, depth + 1, seen) for v in node[:50]]
        if len(node) > 50:
            items.append(f"... {len(node) - 50} more")
        return items
    if isinstance(node, Call):
        inner = node.state if node.state is not None else node.args
        return {f"<{node.func!r}>": _tree(inner, depth + 1, seen)}
    return _short(node)


def _min_torch(report: InspectReport) -> None:
    reasons: list[str] = []
    version = (0, 4)
    if report.format in ("zip", "torchscript"):
        version = (1, 6)
        reasons.append("zip format (torch.save default since 1.6); torch <= 1.5 cannot read it")
        if report.format_version and report.format_version.isdigit() and int(report.format_version) > 3:
            reasons.append(f"zip file-format version {report.format_version} (torch writes 3)")
    if "torch._utils._rebuild_parameter" in report.globals:
        version = max(version, (1, 0))
    dtypes = {t.dtype for t in report.tensors}
    new = sorted(dtypes & NEW_DTYPES)
    if "torch._utils._rebuild_tensor_v3" in report.globals or new:
        floor = (2, 3) if dtypes & {"uint16", "uint32", "uint64"} else (2, 1)
        version = max(version, floor)
        reasons.append(f"dtypes {', '.join(new) or 'saved with _rebuild_tensor_v3'} need torch >= "
                       f"{floor[0]}.{floor[1]}")
    report.min_torch = f"{version[0]}.{version[1]}"
    report.min_torch_reasons = reasons
