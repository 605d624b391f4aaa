"""The shared objects an ELF library asks the dynamic loader for (its DT_NEEDED entries).

Read from the section headers with plain file reads, never by loading the library: a torchvision
built for CUDA names libcudart.so.13 and libc10_cuda.so there, which is how a CUDA build is told
from a CPU one when its version metadata says neither (PyPI serves `0.28.0` for a cu130 build).
"""

from __future__ import annotations

import struct

_SHT_DYNAMIC = 6
_DT_NEEDED = 1
_MAX_SECTION = 1 << 24  # a .dynamic or .dynstr larger than this is not a real one


def needed(path: str) -> list[str] | None:
    """DT_NEEDED names in order, or None when the file is not a readable ELF shared object."""
    try:
        with open(path, "rb") as fh:
            return _needed(fh)
    except (OSError, struct.error, ValueError):
        return None


def _needed(fh) -> list[str] | None:
    ident = fh.read(16)
    if len(ident) < 16 or ident[:4] != b"\x7fELF" or ident[4] not in (1, 2) or ident[5] not in (1, 2):
        return None
    wide = ident[4] == 2
    end = "<" if ident[5] == 1 else ">"
    header = fh.read(48 if wide else 36)
    if wide:
        shoff, = struct.unpack_from(end + "Q", header, 0x28 - 16)
        shentsize, shnum = struct.unpack_from(end + "HH", header, 0x3A - 16)
        section, dyn = end + "IIQQQQIIQQ", end + "qQ"
    else:
        shoff, = struct.unpack_from(end + "I", header, 0x20 - 16)
        shentsize, shnum = struct.unpack_from(end + "HH", header, 0x2E - 16)
        section, dyn = end + "IIIIIIIIII", end + "iI"
    if not shoff or shnum == 0 or shnum > 4096 or shentsize < struct.calcsize(section):
        return None
    fh.seek(shoff)
    table = fh.read(shentsize * shnum)
    sections = [struct.unpack_from(section, table, i * shentsize) for i in range(shnum)]
    for _name, kind, _flags, _addr, offset, size, link, _info, _align, _entsize in sections:
        if kind != _SHT_DYNAMIC or link >= len(sections):
            continue
        str_offset, str_size = sections[link][4], sections[link][5]
        if size > _MAX_SECTION or str_size > _MAX_SECTION:
            return None
        fh.seek(offset)
        entries = fh.read(size)
        fh.seek(str_offset)
        strings = fh.read(str_size)
        step = struct.calcsize(dyn)
        names = []
        for i in range(0, len(entries) - step + 1, step):
            tag, value = struct.unpack_from(dyn, entries, i)
            if tag == 0:  # DT_NULL ends the table
                break
            if tag == _DT_NEEDED and value < len(strings):
                names.append(strings[value:strings.index(b"\0", value)].decode("utf-8", "replace"))
        return names
    return []
