"""`torchdoctor ckpt convert`: apply the usual checkpoint fixes in one command, safely.

The input is first read symbolically (no code runs); a file that needs globals outside torch's
weights_only allowlist is refused unless `--trust`. It is then loaded with `weights_only=True` (or,
for a pickle protocol the weights-only unpickler does not implement, with a standard unpickler
restricted to the same allowlist), transformed, written to a temporary file beside OUT, loaded back
and compared tensor for tensor, and only then moved into place. IN is never written.
"""

from __future__ import annotations

import json
import os
import pickle
import struct
import tempfile
import types
from pathlib import Path
from typing import Any

from .allowlist import ALLOWED, RUNS_CODE, verdict
from .pickle_vm import canonical
from .reader import inspect_path
from .report import human_bytes


class ConvertError(Exception):
    def __init__(self, message: str, *, usage: bool = False) -> None:
        super().__init__(message)
        self.usage = usage


def convert(src: Path, dst: Path, *, strip_prefix: str | None = None, to_cpu: bool = False,
            legacy_format: bool = False, safetensors: bool = False, trust: bool = False,
            force: bool = False) -> list[str]:
    src, dst = Path(src), Path(dst)
    if not src.is_file():
        raise ConvertError(f"{src}: no such file" if not src.exists() else f"{src}: not a regular file", usage=True)
    replaced_mode = _check_destination(src, dst, force)

    try:
        report = inspect_path(src)
    except OSError as exc:
        raise ConvertError(f"{src}: cannot read: {exc.strerror or exc}", usage=True) from None
    except Exception as exc:  # noqa: BLE001 - an archive the reader chokes on (encrypted entries) is refused
        raise ConvertError(f"{src} cannot be converted: it cannot be read as a checkpoint "
                           f"({type(exc).__name__}: {exc})") from None
    if not report.readable:
        raise ConvertError(f"{src} cannot be converted: {(report.problem or {}).get('detail', 'unreadable')} "
                           f"(see `torchdoctor inspect {src}`)")
    if report.archive_problems:
        # What torch loads here may not be what was inspected: no --trust makes that safe.
        raise ConvertError(f"{src} is an ambiguous zip archive ({report.archive_problems[0]}); it is not converted "
                           f"(see `torchdoctor inspect {src}`)")
    runs_code = verdict(report).get(RUNS_CODE, {})
    outside = sorted(g for g in report.globals if g not in ALLOWED or g in runs_code)
    if outside and not trust:
        raise ConvertError(f"{src} needs globals outside torch's weights_only allowlist ({', '.join(outside[:6])}"
                           f"{' ...' if len(outside) > 6 else ''}); loading it runs code from the file. "
                           "Pass --trust only if you trust its source")
    saved_on = sorted({st.get("location", "cpu") for st in report.storages.values()} - {"cpu", "meta"})

    import torch

    if saved_on and not to_cpu and not torch.cuda.is_available():
        raise ConvertError(f"{src} was saved on {', '.join(saved_on)} and this machine has no CUDA device: "
                           "add --to-cpu to re-save it on the CPU", usage=True)
    obj = _load(src, report, trust, map_cpu=to_cpu or not saved_on)
    notes: list[str] = []
    if strip_prefix:
        obj, n = _strip(obj, strip_prefix)
        notes.append(f"stripped {strip_prefix!r} from {n} keys" if n else f"no state dict had every key starting with {strip_prefix!r}")
    if to_cpu:
        obj = _map(obj, lambda t: t.cpu())
        if saved_on:
            notes.append(f"moved storages from {', '.join(saved_on)} to cpu")

    fd, tmp_name = tempfile.mkstemp(prefix=f".{dst.name}.", suffix=".tmp", dir=str(dst.parent))
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        if safetensors:
            flat = _flatten(obj)
            dropped = _count_non_tensors(obj) if isinstance(obj, dict) else 0
            _save_safetensors(flat, tmp)
            if dropped:
                notes.append(f"dropped {dropped} non-tensor value(s): safetensors holds tensors only")
            back = _read_safetensors(tmp)
            _verify(flat, back)
            kind, count = "safetensors", len(flat)
        else:
            with open(tmp, "wb") as fh:  # a file object: the archive folder is "archive", not the temp name
                torch.save(obj, fh, _use_new_zipfile_serialization=not legacy_format)
            back = torch.load(tmp, map_location="cpu" if to_cpu or not saved_on else None, weights_only=not trust)
            _verify(dict(_tensors(obj)), dict(_tensors(back)))
            kind, count = "legacy" if legacy_format else "zip", len(list(_tensors(obj)))
        _verify_against_input(src, report, obj, strip_prefix, safetensors)
        # mkstemp made it 0600; the result gets the mode of the file it replaces, else the umask's.
        os.chmod(tmp, replaced_mode if replaced_mode is not None else 0o666 & ~_umask())
        _check_destination(src, dst, force)  # once more: OUT may have been swapped meanwhile
        os.replace(tmp, dst)
    except ConvertError:
        tmp.unlink(missing_ok=True)
        raise
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    size = dst.stat().st_size
    return [f"wrote {dst} ({kind}, {count} tensors, {human_bytes(size)})",
            *(f"  {n}" for n in notes),
            f"  verified: {dst} loads and equals {src} tensor for tensor ({count} tensors)"]


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _check_destination(src: Path, dst: Path, force: bool) -> int | None:
    """Refuse an OUT that must not be replaced; the mode of the regular file it replaces, if any.

    OUT is replaced by a rename, which puts a regular file where a device node (as root,
    `/dev/null`), a directory or a link was: those are refused. A link is replaced only with
    --force, and then the link itself, never the file it points to."""
    import stat

    try:
        st = os.lstat(dst)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise ConvertError(f"{dst}: cannot examine it: {exc.strerror or exc}", usage=True) from None
    if st is not None:
        if stat.S_ISLNK(st.st_mode):
            if os.path.exists(dst) and os.path.samefile(src, dst):
                raise ConvertError(f"OUT is IN ({dst}): convert never overwrites its input; give another path", usage=True)
            if not force:
                raise ConvertError(f"{dst} is a symbolic link (to {os.readlink(dst)}); give the path to write, or "
                                   "--force to replace the link itself (its target is never written)", usage=True)
            mode = None
        elif stat.S_ISDIR(st.st_mode):
            raise ConvertError(f"{dst} is a directory; give the file to write, e.g. {dst / src.name}", usage=True)
        elif not stat.S_ISREG(st.st_mode):
            raise ConvertError(f"{dst} is not a regular file (a device, pipe or socket); convert writes only files",
                               usage=True)
        else:
            if os.path.samefile(src, dst):
                raise ConvertError(f"OUT is IN ({dst}): convert never overwrites its input; give another path", usage=True)
            if not force:
                raise ConvertError(f"{dst} exists; pass --force to overwrite it", usage=True)
            mode = st.st_mode & 0o7777
    else:
        mode = None
    parent = dst.parent
    if not parent.exists():
        raise ConvertError(f"{parent}: no such directory", usage=True)
    if not parent.is_dir():
        raise ConvertError(f"{parent}: not a directory", usage=True)
    return mode


# --------------------------------------------------------------------------- loading
def _restricted_pickle_module() -> types.ModuleType:
    """A pickle module whose Unpickler resolves only torch's weights_only allowlist."""

    class Unpickler(pickle.Unpickler):
        def find_class(self, module: str, name: str) -> Any:
            mod, nm = canonical(module, name)
            if f"{mod}.{nm}" not in ALLOWED:
                raise pickle.UnpicklingError(f"global {mod}.{nm} is not on the weights_only allowlist")
            return super().find_class(module, name)

    mod = types.ModuleType("torchdoctor_restricted_pickle")
    mod.Unpickler = Unpickler  # type: ignore[attr-defined]
    mod.load = lambda f, **kw: Unpickler(f, **kw).load()  # type: ignore[attr-defined]
    mod.__dict__.update({k: getattr(pickle, k) for k in ("UnpicklingError", "HIGHEST_PROTOCOL")})
    return mod


def _load(src: Path, report: Any, trust: bool, *, map_cpu: bool) -> Any:
    import torch

    if report.format == "safetensors":
        return _read_safetensors(src)
    location = "cpu" if map_cpu else None
    if trust:
        return torch.load(src, map_location=location, weights_only=False)
    try:
        return torch.load(src, map_location=location, weights_only=True)
    except pickle.UnpicklingError as exc:
        if "Unsupported operand" not in str(exc):
            raise ConvertError(f"torch.load(weights_only=True) refused {src}: {str(exc).splitlines()[-1][:300]}") from None
    # A newer pickle protocol, globals all allowlisted (checked above): a restricted standard unpickler.
    return torch.load(src, map_location=location, weights_only=False, pickle_module=_restricted_pickle_module())


# --------------------------------------------------------------------------- transforms
def _strip(obj: Any, prefix: str) -> tuple[Any, int]:
    import torch

    count = 0

    def visit(node: Any) -> Any:
        nonlocal count
        if isinstance(node, dict):
            keys = list(node)
            if keys and all(isinstance(k, str) and k.startswith(prefix) for k in keys) and \
                    any(isinstance(v, torch.Tensor) for v in node.values()):
                torch.nn.modules.utils.consume_prefix_in_state_dict_if_present(node, prefix)
                count += len(keys)
                return node
            for k in keys:
                node[k] = visit(node[k])
        elif isinstance(node, list):
            return [visit(v) for v in node]
        return node

    return visit(obj), count


def _map(obj: Any, fn: Any) -> Any:
    import torch

    if isinstance(obj, torch.Tensor):
        return fn(obj)
    if isinstance(obj, dict):
        for k in list(obj):
            obj[k] = _map(obj[k], fn)
        return obj
    if isinstance(obj, list):
        return [_map(v, fn) for v in obj]
    if isinstance(obj, tuple):
        return tuple(_map(v, fn) for v in obj)
    return obj


def _tensors(obj: Any, path: str = ""):
    import torch

    if isinstance(obj, torch.Tensor):
        yield path or "<root>", obj
    elif isinstance(obj, dict):
        for k, v in obj.items():
            yield from _tensors(v, f"{path}.{k}" if path else str(k))
    elif isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj):
            yield from _tensors(v, f"{path}.{i}" if path else str(i))


def _flatten(obj: Any) -> dict[str, Any]:
    flat = dict(_tensors(obj))
    if not flat:
        raise ConvertError("the checkpoint holds no tensors to write as safetensors")
    return {k: v.detach().cpu().contiguous().clone() for k, v in flat.items()}


def _count_non_tensors(obj: Any) -> int:
    import torch

    n = 0
    for v in obj.values():
        if isinstance(v, dict):
            n += _count_non_tensors(v)
        elif not isinstance(v, (torch.Tensor, list, tuple)):
            n += 1
    return n


# --------------------------------------------------------------------------- safetensors
_ST_DTYPE = {"float64": "F64", "float32": "F32", "float16": "F16", "bfloat16": "BF16", "int64": "I64",
             "int32": "I32", "int16": "I16", "int8": "I8", "uint8": "U8", "bool": "BOOL", "uint16": "U16",
             "uint32": "U32", "uint64": "U64", "complex64": "C64", "float8_e4m3fn": "F8_E4M3",
             "float8_e5m2": "F8_E5M2"}


def _save_safetensors(flat: dict[str, Any], path: Path) -> None:
    try:
        from safetensors.torch import save_file
    except ImportError:
        save_file = None
    if save_file is not None:
        save_file(flat, str(path))
        return
    # By hand: u64 little-endian header length, the JSON header (8-byte aligned), then raw bytes.
    header: dict[str, Any] = {}
    blobs = []
    offset = 0
    for name, t in flat.items():
        dtype = str(t.dtype).replace("torch.", "")
        if dtype not in _ST_DTYPE:
            raise ConvertError(f"{name}: dtype {dtype} has no safetensors code")
        raw = t.contiguous().view(-1).view(_byte_dtype()).numpy().tobytes() if _has_numpy() else _tensor_bytes(t)
        header[name] = {"dtype": _ST_DTYPE[dtype], "shape": list(t.shape), "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as fh:
        fh.write(struct.pack("<Q", len(text)))
        fh.write(text)
        for raw in blobs:
            fh.write(raw)


def _byte_dtype() -> Any:
    import torch

    return torch.uint8


def _has_numpy() -> bool:
    try:
        import numpy  # noqa: F401
    except ImportError:
        return False
    return True


def _tensor_bytes(t: Any) -> bytes:
    """A tensor's raw little-endian bytes without numpy: via a uint8 view and its untyped storage."""
    import torch

    flat = t.detach().cpu().contiguous().view(-1)
    if flat.numel() == 0:
        return b""
    as_bytes = flat.view(torch.uint8)
    return bytes(as_bytes.untyped_storage())[as_bytes.storage_offset(): as_bytes.storage_offset() + as_bytes.numel()]


def _read_safetensors(path: Path) -> dict[str, Any]:
    """Load a safetensors file as CPU tensors (the library when present, else by hand)."""
    import torch

    try:
        from safetensors.torch import load_file

        return load_file(str(path))
    except ImportError:
        pass
    from .reader import SAFETENSORS_DTYPE

    with open(path, "rb") as fh:
        n = struct.unpack("<Q", fh.read(8))[0]
        header = json.loads(fh.read(n))
        data = fh.read()
    header.pop("__metadata__", None)
    out = {}
    for name, spec in header.items():
        dtype = getattr(torch, SAFETENSORS_DTYPE[spec["dtype"]])
        begin, end = spec["data_offsets"]
        raw = bytearray(data[begin:end])
        t = torch.frombuffer(raw, dtype=dtype) if raw else torch.empty(0, dtype=dtype)
        out[name] = t.reshape(spec["shape"])
    return out


# --------------------------------------------------------------------------- verification
def _same(a: Any, b: Any) -> bool:
    import torch

    if a.dtype != b.dtype or tuple(a.shape) != tuple(b.shape):
        return False
    if a.numel() == 0:
        return True
    a, b = a.detach().cpu().contiguous(), b.detach().cpu().contiguous()
    if a.is_quantized or b.is_quantized:
        return bool(torch.equal(a.int_repr(), b.int_repr()))
    # Bitwise, so NaN equals NaN and -0.0 differs from 0.0: the bytes must survive as they were.
    return bool(torch.equal(a.view(-1).view(torch.uint8), b.view(-1).view(torch.uint8)))


def _verify(expected: dict[str, Any], got: dict[str, Any]) -> None:
    if set(expected) != set(got):
        missing = sorted(set(expected) - set(got))[:5]
        extra = sorted(set(got) - set(expected))[:5]
        raise ConvertError(f"verification failed: OUT's tensors differ (missing {missing}, extra {extra}); nothing written")
    for name, t in expected.items():
        if not _same(t, got[name]):
            raise ConvertError(f"verification failed: tensor {name} differs after the round trip; nothing written")


def _verify_against_input(src: Path, report: Any, obj: Any, strip_prefix: str | None, safetensors: bool) -> None:
    """The converted object must hold IN's tensors, byte for byte: reload IN independently."""
    fresh = _load(src, report, trust=False, map_cpu=True) if not _needs_trust(report) else None
    if fresh is None:
        return
    if strip_prefix:
        fresh, _ = _strip(fresh, strip_prefix)
    before = dict(_tensors(fresh))
    after = dict(_tensors(obj))
    if set(before) != set(after):
        raise ConvertError("verification failed: the converted checkpoint's tensor names differ from IN's; nothing written")
    for name, t in before.items():
        if not _same(t.cpu(), after[name].cpu()):
            raise ConvertError(f"verification failed: tensor {name} differs from IN; nothing written")


def _needs_trust(report: Any) -> bool:
    return any(g not in ALLOWED for g in report.globals)
