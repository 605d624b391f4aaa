"""A minimal ELF shared object for tests: section headers, .dynstr and .dynamic with DT_NEEDED
entries, nothing else. Enough for torchdoctor's reader; not loadable, which the tests never need."""

from __future__ import annotations

import struct
from pathlib import Path


def write_elf(path: Path, needed: list[str], *, wide: bool = True, big_endian: bool = False) -> Path:
    end = ">" if big_endian else "<"
    strtab = b"\0" + b"".join(n.encode() + b"\0" for n in needed)
    offsets, pos = [], 1
    for n in needed:
        offsets.append(pos)
        pos += len(n) + 1
    dyn_fmt = end + ("qQ" if wide else "iI")
    dynamic = b"".join(struct.pack(dyn_fmt, 1, o) for o in offsets) + struct.pack(dyn_fmt, 0, 0)
    ehsize = 64 if wide else 52
    shentsize = 64 if wide else 40
    str_off = ehsize
    dyn_off = str_off + len(strtab)
    sh_off = dyn_off + len(dynamic)
    ident = b"\x7fELF" + bytes([2 if wide else 1, 2 if big_endian else 1, 1]) + b"\0" * 9
    if wide:
        header = ident + struct.pack(end + "HHIQQQIHHHHHH", 3, 62, 1, 0, 0, sh_off, 0, ehsize, 0, 0, shentsize, 3, 0)
        sec = end + "IIQQQQIIQQ"
    else:
        header = ident + struct.pack(end + "HHIIIIIHHHHHH", 3, 3, 1, 0, 0, sh_off, 0, ehsize, 0, 0, shentsize, 3, 0)
        sec = end + "IIIIIIIIII"
    shdrs = (struct.pack(sec, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
             + struct.pack(sec, 0, 3, 0, 0, str_off, len(strtab), 0, 0, 1, 0)
             + struct.pack(sec, 0, 6, 0, 0, dyn_off, len(dynamic), 1, 0, 8, struct.calcsize(dyn_fmt)))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(header + strtab + dynamic + shdrs)
    return path
