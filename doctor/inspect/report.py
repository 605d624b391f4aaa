"""What the reader found in a checkpoint: plain data, JSON round-trip. Rules read only this."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from typing import Any

SCHEMA = "torchdoctor.inspect/v1"

# dtype -> bytes per element (sub-byte and packed types count their container byte).
ELEMENT_SIZE = {
    "float64": 8, "float32": 4, "float16": 2, "bfloat16": 2, "int64": 8, "int32": 4, "int16": 2, "int8": 1,
    "uint8": 1, "uint16": 2, "uint32": 4, "uint64": 8, "bool": 1, "complex128": 16, "complex64": 8,
    "complex32": 4, "qint8": 1, "quint8": 1, "qint32": 4, "quint4x2": 1, "quint2x4": 1,
    "float8_e4m3fn": 1, "float8_e5m2": 1, "float8_e4m3fnuz": 1, "float8_e5m2fnuz": 1, "float8_e8m0fnu": 1,
    "float4_e2m1fn_x2": 1, "bits8": 1, "bits16": 2, "bits1x8": 1, "bits2x4": 1, "bits4x2": 1,
}
# dtypes only torch >= 2.x can rebuild (saved through _rebuild_tensor_v3).
NEW_DTYPES = {"uint16", "uint32", "uint64", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz",
              "float8_e5m2fnuz", "float8_e8m0fnu", "float4_e2m1fn_x2", "complex32", "bits8", "bits16",
              "bits1x8", "bits2x4", "bits4x2"}


@dataclass
class TensorInfo:
    name: str  # path in the structure: "state_dict.layer.weight"
    dtype: str
    shape: list[int]
    location: str  # the device tag the storage was saved with: "cpu", "cuda:0", "meta"
    key: str | None = None  # storage record: data/<key> (zip) or the legacy key
    nbytes: int = 0  # bytes this tensor's elements span
    offset: int = 0  # storage offset, in elements
    stride: list[int] = field(default_factory=list)
    parameter: bool = False


@dataclass
class StateDict:
    """A dict whose values are all tensors: where it is, its keys, and the key prefixes they share."""

    path: str
    keys: list[str]
    shapes: dict[str, list[int]] = field(default_factory=dict)
    prefixes: dict[str, int] = field(default_factory=dict)  # "module." -> number of keys with it


@dataclass
class InspectReport:
    path: str = ""
    file_size: int = 0
    # zip | legacy | safetensors | torchscript | tar | raw-pickle | npy | lfs-pointer | html | empty | unknown
    format: str = "unknown"
    readable: bool = True  # False: the reader could not get the structure out
    problem: dict[str, Any] | None = None  # {"kind": truncated|corrupt|limit|not-a-checkpoint, "detail": ...}
    archive: str = ""  # the zip's top folder (the name torch.save gave it)
    format_version: str | None = None  # the zip's `version` record
    byteorder: str | None = None
    pickle_protocol: int | None = None
    min_torch: str | None = None  # the oldest torch that can read it
    min_torch_reasons: list[str] = field(default_factory=list)
    root_type: str = ""  # dict | list | tensor | object <class> | ...
    top_keys: list[dict[str, Any]] = field(default_factory=list)
    tensors: list[TensorInfo] = field(default_factory=list)
    state_dicts: list[StateDict] = field(default_factory=list)
    globals: dict[str, int] = field(default_factory=dict)
    # global -> how the pickle uses it ("call", "class", "build", "computed"; none: only referenced).
    # Absent for a global (an older report): the verdict assumes the worst, that it is called.
    global_uses: dict[str, list[str]] = field(default_factory=dict)
    # Zip archives: every way torch and another zip reader could see different contents.
    archive_problems: list[str] = field(default_factory=list)
    opcodes: list[str] = field(default_factory=list)  # every opcode name used
    storages: dict[str, dict[str, Any]] = field(default_factory=dict)  # key -> dtype, location, numel, nbytes, record
    storage_problems: list[str] = field(default_factory=list)
    stats: dict[str, dict[str, Any]] | None = None  # --tensors: name -> nan, inf, min, max, mean
    against: dict[str, Any] | None = None  # --against: the comparison
    details: dict[str, Any] = field(default_factory=dict)  # format specifics (LFS oid, safetensors metadata)
    tree: Any = None  # --tree: the nested structure, summarized

    # --- derived numbers
    @property
    def tensor_count(self) -> int:
        return len(self.tensors)

    @property
    def total_bytes(self) -> int:
        if self.storages:
            return sum(int(s.get("nbytes", 0)) for s in self.storages.values())
        return sum(t.nbytes for t in self.tensors)

    def bytes_by_location(self) -> dict[str, int]:
        out: dict[str, int] = {}
        if self.storages:
            for s in self.storages.values():
                out[s.get("location", "?")] = out.get(s.get("location", "?"), 0) + int(s.get("nbytes", 0))
        else:
            for t in self.tensors:
                out[t.location] = out.get(t.location, 0) + t.nbytes
        return out

    def dtype_counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for t in self.tensors:
            out[t.dtype] = out.get(t.dtype, 0) + 1
        return out

    # --- JSON
    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["tensor_count"] = self.tensor_count
        data["total_bytes"] = self.total_bytes
        data["bytes_by_location"] = self.bytes_by_location()
        data["dtypes"] = self.dtype_counts()
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> InspectReport:
        known = {f.name for f in fields(cls)}
        kwargs = {k: v for k, v in data.items() if k in known}
        kwargs["tensors"] = [t if isinstance(t, TensorInfo) else TensorInfo(**t) for t in data.get("tensors", [])]
        kwargs["state_dicts"] = [s if isinstance(s, StateDict) else StateDict(**s)
                                 for s in data.get("state_dicts", [])]
        return cls(**kwargs)


def human_bytes(n: int) -> str:
    value = float(n)
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if value < 1024 or unit == "TB":
            return f"{int(value)} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{n} B"  # pragma: no cover
