"""`--tensors`: NaN/Inf counts and min/max/mean per tensor, read straight from the storage bytes of a
memory-mapped file. No torch; numpy is used when it happens to be importable, otherwise the stdlib
(`array` for float32/64 and ints, struct 'e' for float16, bfloat16 widened to float32)."""

from __future__ import annotations

import math
import mmap
import struct
import sys
from array import array
from typing import Any

from .report import ELEMENT_SIZE, InspectReport

CHUNK = 1 << 22  # elements per step: bounded memory whatever the tensor's size
_ARRAY_CODE = {"float32": "f", "float64": "d", "int8": "b", "uint8": "B", "int16": "h", "uint16": "H",
               "int32": "i", "uint32": "I", "int64": "q", "uint64": "Q", "bool": "B"}
SUPPORTED = set(_ARRAY_CODE) | {"float16", "bfloat16"}


def tensor_stats(report: InspectReport) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    try:
        fh = open(report.path, "rb")  # noqa: SIM115 - closed by the with below
    except OSError as exc:
        return {"<file>": {"error": str(exc)}}
    with fh:
        try:
            mm = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
        except (ValueError, OSError) as exc:
            return {"<file>": {"error": str(exc)}}
        with mm:
            view = memoryview(mm)
            try:
                for t in report.tensors:
                    out[t.name] = _one(report, t, view)
            finally:
                view.release()
    return out


def _one(report: InspectReport, t: Any, view: memoryview) -> dict[str, Any]:
    if t.dtype not in SUPPORTED:
        return {"skipped": f"dtype {t.dtype} is not decoded"}
    st = report.storages.get(t.key or "")
    if not st or st.get("data_offset") is None:
        return {"skipped": "no readable storage bytes (meta tensor, compressed or missing record)"}
    elsize = ELEMENT_SIZE[t.dtype]
    numel = 1
    for s in t.shape:
        numel *= s
    if numel == 0:
        return {"numel": 0}
    # The span of storage elements the view covers (the whole span for a non-contiguous view).
    span = 1 + sum((s - 1) * abs(d) for s, d in zip(t.shape, t.stride)) if t.stride else numel
    start = st["data_offset"] + t.offset * elsize
    end = start + span * elsize
    if end > len(view) or start < 0:
        return {"skipped": "the storage bytes extend past the end of the file"}
    acc = _Acc(t.dtype)
    for lo in range(start, end, CHUNK * elsize):
        acc.feed(view[lo:min(end, lo + CHUNK * elsize)])
    result = acc.result()
    if span != numel:
        result["note"] = "a strided view: computed over the storage span it covers"
    return result


class _Acc:
    def __init__(self, dtype: str) -> None:
        self.dtype = dtype
        self.n = self.nan = self.inf = 0
        self.total = 0.0
        self.lo = math.inf
        self.hi = -math.inf
        self.floating = dtype in ("float32", "float64", "float16", "bfloat16")
        self.np = _numpy()

    def feed(self, raw: memoryview) -> None:
        values = self._decode(raw)
        if self.np is not None:
            self._feed_numpy(values)
            return
        n = len(values)
        self.n += n
        if not n:
            return
        if self.floating:
            s = math.fsum(values) if n < 64 else sum(values)
            if math.isfinite(s):
                self.total += s
                self.lo = min(self.lo, min(values))
                self.hi = max(self.hi, max(values))
                return
            # NaN (x != x) and +-Inf present, or the sum overflowed: count them, keep the finite rest.
            eq = sum(map(float.__eq__, values, values))
            self.nan += n - eq
            inf = values.count(math.inf) + values.count(-math.inf)
            self.inf += inf
            finite = [v for v in values if math.isfinite(v)]
            if finite:
                self.total += sum(finite)
                self.lo = min(self.lo, min(finite))
                self.hi = max(self.hi, max(finite))
        else:
            self.total += sum(values)
            self.lo = min(self.lo, min(values))
            self.hi = max(self.hi, max(values))

    def _decode(self, raw: memoryview) -> Any:
        np = self.np
        if self.dtype == "bfloat16":
            if np is not None:
                return (np.frombuffer(raw, "<u2").astype("<u4") << 16).view("<f4")
            wide = bytearray(len(raw) * 2)
            wide[2::4] = raw[0::2]
            wide[3::4] = raw[1::2]
            return _swap(array("f", bytes(wide)))
        if self.dtype == "float16":
            if np is not None:
                return np.frombuffer(raw, "<f2")
            return array("d", struct.unpack(f"<{len(raw) // 2}e", raw))
        if np is not None:
            return np.frombuffer(raw, {"bool": "u1"}.get(self.dtype, _np_code(self.dtype)))
        return _swap(array(_ARRAY_CODE[self.dtype], bytes(raw)))

    def _feed_numpy(self, values: Any) -> None:  # pragma: no cover - numpy is optional
        np = self.np
        self.n += values.size
        if not values.size:
            return
        if self.floating:
            v = values.astype("f8")
            nan = np.isnan(v)
            inf = np.isinf(v)
            self.nan += int(nan.sum())
            self.inf += int(inf.sum())
            v = v[~(nan | inf)]
        else:
            v = values.astype("f8")
        if v.size:
            self.total += float(v.sum())
            self.lo = min(self.lo, float(v.min()))
            self.hi = max(self.hi, float(v.max()))

    def result(self) -> dict[str, Any]:
        finite = self.n - self.nan - self.inf
        out: dict[str, Any] = {"numel": self.n, "nan": self.nan, "inf": self.inf}
        if finite:
            out["min"] = _num(self.lo)
            out["max"] = _num(self.hi)
            out["mean"] = _num(self.total / finite)
        return out


def _num(v: float) -> float | int:
    return int(v) if float(v).is_integer() and abs(v) < 2**53 else round(float(v), 6)


def _swap(values: array) -> array:
    """The stored bytes are little-endian; swap on a big-endian host."""
    if sys.byteorder == "big":
        values.byteswap()
    return values


def _np_code(dtype: str) -> str:
    return {"float32": "<f4", "float64": "<f8", "int8": "i1", "uint8": "u1", "int16": "<i2", "uint16": "<u2",
            "int32": "<i4", "uint32": "<u4", "int64": "<i8", "uint64": "<u8", "bool": "u1"}[dtype]


_NUMPY: list[Any] = []


def _numpy() -> Any:
    if not _NUMPY:
        try:
            import numpy
        except ImportError:
            numpy = None
        _NUMPY.append(numpy)
    return _NUMPY[0]
