"""The zip archive the way torch reads it (caffe2/serialize/inline_container.cc over miniz), not the
way Python's `zipfile` does, and everything about it on which the two can disagree.

torch: the end-of-central-directory record is the last `PK\\x05\\x06` signature in the file's final
64 KiB; the central directory is read at the offset that record (or its zip64 twin) states; the
archive's folder is the first directory entry's name up to its first `/`; a record is looked up as
`folder/name` ignoring ASCII case, through a sorted index, so of several entries with the same name
any one may be returned. `zipfile` instead takes the directory that ends at the end record, and the
last of several same-named entries. A file on which the two disagree is refused as ambiguous
(`problems`); every candidate torch might read is still read, so nothing it could load goes unseen.
"""

from __future__ import annotations

import os
import struct
import zlib
from dataclasses import dataclass

EOCD_SIG = b"PK\x05\x06"
ZIP64_LOCATOR_SIG = b"PK\x06\x07"
ZIP64_EOCD_SIG = b"PK\x06\x06"
CENTRAL_SIG = b"PK\x01\x02"
LOCAL_SIG = b"PK\x03\x04"
_TAIL = 0xFFFF + 22  # miniz gives up looking for the end record this far from the end


class ZipError(ValueError):
    """The archive cannot be read at all; `kind` is "truncated" or "corrupt"."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


@dataclass
class Entry:
    name: str
    raw: bytes  # the name's bytes, what miniz compares
    index: int  # position in the central directory
    flags: int
    method: int
    crc: int
    comp_size: int
    size: int
    header_offset: int


class TorchZip:
    def __init__(self, path: str) -> None:
        self.path = path
        self.size = os.path.getsize(path)
        self.problems: list[str] = []  # every way torch and another reader can see different contents
        self.entries: list[Entry] = []
        with open(path, "rb") as fh:
            self._fh = fh
            self._read_directory()
            self._check_entries()
        self._fh = None
        self._by_name: dict[bytes, list[Entry]] = {}
        for e in self.entries:
            self._by_name.setdefault(e.raw.lower(), []).append(e)
        first = self.entries[0].name if self.entries else ""
        self.prefix = first.split("/", 1)[0] if "/" in first else ""

    # ------------------------------------------------------------------ directory
    def _read(self, offset: int, n: int) -> bytes:
        self._fh.seek(offset)
        return self._fh.read(n)

    def _read_directory(self) -> None:
        start = max(0, self.size - _TAIL)
        tail = self._read(start, self.size - start)
        found = [i for i in _all(tail, EOCD_SIG) if i + 22 <= len(tail)]
        if not found:
            raise ZipError("truncated", "the zip archive has no end-of-central-directory record: the file was "
                                        "cut short (an interrupted download or save)")
        at = start + found[-1]
        (_, disk, cd_disk, n_disk, n_total, cd_size, cd_offset, comment_len) = struct.unpack(
            "<4sHHHHIIH", self._read(at, 22))
        end = at
        loc_at = at - 20
        if loc_at >= 0 and self._read(loc_at, 4) == ZIP64_LOCATOR_SIG:
            (_, _, z64_offset, _) = struct.unpack("<4sIQI", self._read(loc_at, 20))
            rec = self._read(z64_offset, 56)
            if len(rec) < 56 or rec[:4] != ZIP64_EOCD_SIG:
                raise ZipError("corrupt", "the zip64 end-of-central-directory record is missing or damaged")
            (_, _, _, _, _, _, n_disk, n_total, cd_size, cd_offset) = struct.unpack("<4sQHHIIQQQQ", rec)
            end = z64_offset
            if z64_offset + 56 > loc_at:
                self.problems.append("the zip64 end record overlaps the records after it")
        if disk != 0 or cd_disk != 0 or n_disk != n_total:
            raise ZipError("corrupt", "a multi-disk (split) zip archive: torch cannot read it")
        if cd_offset + cd_size > self.size:
            raise ZipError("truncated", f"the central directory (at byte {cd_offset:,}, {cd_size:,} bytes) lies past "
                                        f"the end of the {self.size:,}-byte file: the file was cut short")
        if cd_offset + cd_size != end:
            # torch reads the directory at cd_offset; zipfile reads the cd_size bytes before the end record.
            self.problems.append(
                f"the central directory the end record points to (byte {cd_offset:,}) does not end where the end "
                f"record begins (byte {end:,}): there is room for a second directory, and torch and Python's "
                "zipfile read different ones")
        if at + 22 + comment_len < self.size:
            self.problems.append(f"{self.size - (at + 22 + comment_len):,} bytes of trailing data after the zip archive")
        elif at + 22 + comment_len > self.size:
            self.problems.append("the end record's comment runs past the end of the file")
        for other in found[:-1]:
            if self._plausible_eocd(start + other):
                self.problems.append(f"a second end-of-central-directory record at byte {start + other:,}: readers "
                                     "that search differently find different archives")
                break
        self._parse_entries(cd_offset, cd_size, n_total)

    def _plausible_eocd(self, at: int) -> bool:
        rec = self._read(at, 22)
        if len(rec) < 22:
            return False
        cd_size, cd_offset = struct.unpack("<II", rec[12:20])
        return cd_offset + cd_size <= at and self._read(cd_offset, 4) == CENTRAL_SIG

    def _parse_entries(self, cd_offset: int, cd_size: int, n_total: int) -> None:
        data = self._read(cd_offset, cd_size)
        pos = 0
        for index in range(n_total):
            head = data[pos: pos + 46]
            if len(head) < 46 or head[:4] != CENTRAL_SIG:
                raise ZipError("corrupt", f"the zip directory is corrupt (entry {index} at byte {cd_offset + pos:,} "
                                          "is not a central-directory header)")
            (_, _, _, flags, method, _, _, crc, comp, size, n, m, k, _, _, _, offset) = struct.unpack(
                "<4sHHHHHHIIIHHHHHII", head)
            raw = data[pos + 46: pos + 46 + n]
            extra = data[pos + 46 + n: pos + 46 + n + m]
            if len(raw) < n:
                raise ZipError("corrupt", f"the zip directory is corrupt (entry {index} is cut short)")
            size, comp, offset = _zip64(extra, size, comp, offset)
            name = raw.decode("utf-8" if flags & 0x800 else "cp437", "replace")
            self.entries.append(Entry(name, raw, index, flags, method, crc, comp, size, offset))
            pos += 46 + n + m + k
        if pos < len(data):
            # zipfile reads entries until the directory's bytes run out; miniz reads the counted ones
            self.problems.append(f"the central directory holds {len(data) - pos:,} bytes after the {n_total} entries "
                                 "the end record counts: other readers see more entries than torch")
        if not self.entries:
            raise ZipError("corrupt", "the zip archive holds no files")

    def _check_entries(self) -> None:
        seen: dict[bytes, Entry] = {}
        reported: set[bytes] = set()
        for e in self.entries:
            key = e.raw.lower()
            if key in seen and key not in reported:
                reported.add(key)
                first = seen[key]
                if first.raw == e.raw:
                    count = sum(x.raw == e.raw for x in self.entries)
                    self.problems.append(f"the entry {e.name!r} appears {count} times: torch reads one of them, "
                                         "Python's zipfile the last")
                else:
                    self.problems.append(f"the entries {first.name!r} and {e.name!r} differ only in case: torch's "
                                         "lookup ignores case and may read either")
            seen.setdefault(key, e)
            if e.flags & 0x1:
                self.problems.append(f"the entry {e.name!r} is marked encrypted: torch cannot read it")
        first = self.entries[0].raw
        prefix = first.split(b"/", 1)[0] + b"/"
        outside = [e.name for e in self.entries if not e.raw.startswith(prefix)]
        if "/" in self.entries[0].name and outside:
            self.problems.append(f"{len(outside)} entries lie outside the archive folder "
                                 f"{prefix.decode('utf-8', 'replace')!r} (e.g. {outside[0]!r})")

    # ------------------------------------------------------------------ records
    def find(self, record: str) -> list[Entry]:
        """The entries torch's `getRecord(record)` may return: `folder/record`, ASCII case ignored."""
        return list(self._by_name.get(f"{self.prefix}/{record}".encode().lower(), ()))

    def exact(self, record: str) -> bool:
        want = f"{self.prefix}/{record}".encode()
        return any(e.raw == want for e in self.entries)

    def payload_offset(self, e: Entry) -> int | None:
        """Where a record's bytes start: after the local header, its own name and extra field."""
        with open(self.path, "rb") as fh:
            fh.seek(e.header_offset)
            local = fh.read(30)
        if len(local) < 30 or local[:4] != LOCAL_SIG:
            return None
        n, m = struct.unpack("<HH", local[26:30])
        return e.header_offset + 30 + n + m

    def read(self, e: Entry, limit: int) -> bytes:
        """The record's bytes as miniz extracts them (sizes from the central directory). A local
        header whose name differs from the directory's, or a CRC that does not match, is recorded."""
        with open(self.path, "rb") as fh:
            fh.seek(e.header_offset)
            local = fh.read(30)
            if len(local) < 30 or local[:4] != LOCAL_SIG:
                raise ZipError("corrupt", f"{e.name}: no local header at byte {e.header_offset:,}")
            n, m = struct.unpack("<HH", local[26:30])
            local_name = fh.read(n)
            if local_name != e.raw:
                self.problems.append(f"the entry {e.name!r} is named "
                                     f"{local_name.decode('utf-8', 'replace')!r} in its local header")
            fh.seek(e.header_offset + 30 + n + m)
            if e.flags & 0x1:
                raise ZipError("corrupt", f"{e.name} is encrypted: torch cannot read it")
            if e.method == 0:
                data = fh.read(min(e.comp_size, limit + 1))
            elif e.method == 8:
                raw = fh.read(e.comp_size)
                try:
                    data = zlib.decompressobj(-15).decompress(raw, limit + 1)
                except zlib.error as exc:
                    raise ZipError("corrupt", f"{e.name} cannot be decompressed ({exc})") from None
            else:
                raise ZipError("corrupt", f"{e.name} uses zip compression method {e.method}, which torch cannot read")
        if len(data) < min(e.size, limit):
            raise ZipError("truncated", f"{e.name} declares {e.size:,} bytes but only {len(data):,} are in the file")
        if len(data) <= limit and zlib.crc32(data) != e.crc:
            self.problems.append(f"the entry {e.name!r} does not match its CRC-32: its bytes were changed after "
                                 "it was written")
        return data


def _all(data: bytes, sig: bytes) -> list[int]:
    out, i = [], data.find(sig)
    while i >= 0:
        out.append(i)
        i = data.find(sig, i + 1)
    return out


def _zip64(extra: bytes, size: int, comp: int, offset: int) -> tuple[int, int, int]:
    """Sizes and offset from the zip64 extra field, for those the header marks 0xFFFFFFFF."""
    pos = 0
    while pos + 4 <= len(extra):
        tag, length = struct.unpack("<HH", extra[pos: pos + 4])
        if tag == 0x0001:
            body, at = extra[pos + 4: pos + 4 + length], 0
            values = []
            for present in (size == 0xFFFFFFFF, comp == 0xFFFFFFFF, offset == 0xFFFFFFFF):
                if present and at + 8 <= len(body):
                    values.append(struct.unpack("<Q", body[at: at + 8])[0])
                    at += 8
                else:
                    values.append(None)
            size = values[0] if values[0] is not None else size
            comp = values[1] if values[1] is not None else comp
            offset = values[2] if values[2] is not None else offset
            break
        pos += 4 + length
    return size, comp, offset
