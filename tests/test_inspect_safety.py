"""Hostile and broken input for `torchdoctor inspect`: malicious pickles (a sentinel file proves
nothing ran), truncated and corrupt zips, random bytes, empty files and pickle bombs (a clear
finding, bounded memory and time, no crash)."""

from __future__ import annotations

import os
import pickle
import random
import struct
import zipfile

import pytest
from torchdoctor.inspect import inspect_path, run_ckpt_rules
from torchdoctor.inspect.pickle_vm import Limits
from torchdoctor.model import Status

LEGACY_MAGIC = 0x1950A86A20F9469CFC6C


class Evil:
    def __init__(self, sentinel):
        self.sentinel = sentinel

    def __reduce__(self):
        return (os.system, (f"touch {self.sentinel}",))


def codes(report):
    return {f.code: f for f in run_ckpt_rules(report)}


def torch_like_zip(path, pkl: bytes, name="evil", records=None):
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        z.writestr(f"{name}/data.pkl", pkl)
        z.writestr(f"{name}/byteorder", b"little")
        for key, data in (records or {}).items():
            z.writestr(f"{name}/data/{key}", data)
        z.writestr(f"{name}/version", b"3\n")


def legacy_stream(obj_pickle: bytes) -> bytes:
    return (pickle.dumps(LEGACY_MAGIC, protocol=2) + pickle.dumps(1001, protocol=2)
            + pickle.dumps({"protocol_version": 1001, "little_endian": True,
                            "type_sizes": {"short": 2, "int": 4, "long": 4}}, protocol=2)
            + obj_pickle + pickle.dumps([], protocol=2))


def chain(sentinel) -> bytes:
    """getattr(__import__('os'), 'system')('touch SENTINEL'): a __reduce__ chain, protocol 0."""
    return (b"cbuiltins\ngetattr\n(cbuiltins\n__import__\n(Vos\ntRVsystem\ntR(V"
            + f"touch {sentinel}".encode() + b"\ntR.")


def memo_stack_global(sentinel) -> bytes:
    """STACK_GLOBAL whose module and name come out of the memo, not literal pushes."""
    s = lambda t: b"\x8c" + bytes([len(t)]) + t.encode()
    return (b"\x80\x04" + s("posix") + b"\x94" + s("system") + b"\x94" + b"h\x00h\x01\x93"
            + s(f"touch {sentinel}") + b"\x85R.")


def payloads(sentinel):
    evil = Evil(sentinel)
    out = {f"protocol-{p}": pickle.dumps(evil, protocol=p) for p in range(6)}
    out["reduce-chain"] = chain(sentinel)
    out["memo-stack-global"] = memo_stack_global(sentinel)
    out["inside-a-dict"] = pickle.dumps({"state_dict": {}, "hook": evil}, protocol=2)
    return out


@pytest.fixture
def sentinel(tmp_path):
    path = tmp_path / "PWNED"
    yield path
    assert not path.exists(), "a checkpoint's code ran during inspection"


def test_the_payloads_are_real(tmp_path):
    # The control: unpickling these for real does create the sentinel (so its absence below means something).
    for name, data in payloads(tmp_path / "control").items():
        target = tmp_path / "control"
        target.unlink(missing_ok=True)
        pickle.loads(data)
        assert target.exists(), name


@pytest.mark.parametrize("container", ["zip", "legacy", "raw"])
def test_malicious_pickles_are_reported_never_run(tmp_path, sentinel, container):
    for name, data in payloads(sentinel).items():
        path = tmp_path / f"{name}.pth"
        if container == "zip":
            torch_like_zip(path, data)
        elif container == "legacy":
            if name.startswith(("protocol-0", "protocol-1", "reduce-chain")):
                continue  # legacy streams are protocol 2
            path.write_bytes(legacy_stream(data))
        else:
            path.write_bytes(data)
        report = inspect_path(path, tensors=True, tree=True)
        finding = codes(report)["TI103"]
        assert finding.status is Status.ERROR, (container, name, report.problem, report.globals)
        assert "RUNS CODE" in finding.message
        assert any(g in finding.message for g in ("posix.system", "builtins.getattr", "builtins.__import__")), finding.message


def test_blocked_module_is_named(tmp_path, sentinel):
    path = tmp_path / "e.pth"
    torch_like_zip(path, pickle.dumps(Evil(sentinel), protocol=2))
    f = codes(inspect_path(path))["TI103"]
    assert f.evidence["cannot be allowlisted (torch blocks the module)"] == ["posix.system"]


def test_evil_in_a_truncated_zip_is_still_reported(tmp_path, sentinel):
    path = tmp_path / "cut.pth"
    torch_like_zip(path, pickle.dumps(Evil(sentinel), protocol=2), records={"0": b"\0" * 4096})
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    found = codes(inspect_path(path))
    assert found["TI102"].status is Status.ERROR and found["TI103"].status is Status.ERROR


@pytest.fixture(scope="module")
def sd_bytes(tmp_path_factory):
    import torch

    path = tmp_path_factory.mktemp("sd") / "sd.pth"
    torch.save({"w": torch.ones(64, 64), "b": torch.zeros(64)}, path)
    return path.read_bytes()


@pytest.mark.parametrize("cut", [1500, -10, -200])
def test_truncated_zip(tmp_path, sd_bytes, cut):
    path = tmp_path / "cut.pth"
    path.write_bytes(sd_bytes[:cut])
    r = inspect_path(path)
    f = codes(r)["TI102"]
    assert not r.readable and f.status is Status.ERROR
    assert "truncated" in f.message or "corrupt" in f.message
    assert "checkpoint-corrupt" in f.related


def test_truncated_zip_salvages_the_pickle(tmp_path, sd_bytes):
    path = tmp_path / "cut.pth"
    path.write_bytes(sd_bytes[:5000])
    r = inspect_path(path)
    assert r.problem["kind"] == "truncated" and r.problem["tensors"] == 2
    assert r.problem["needed_bytes"] == 4 * (64 * 64 + 64)


def test_corrupt_central_directory(tmp_path, sd_bytes):
    data = bytearray(sd_bytes)
    at = data.index(b"PK\x01\x02")
    data[at: at + 40] = b"\xff" * 40
    path = tmp_path / "corrupt.pth"
    path.write_bytes(bytes(data))
    r = inspect_path(path)
    assert not r.readable and codes(r)["TI102"].status is Status.ERROR


def test_corrupt_pickle_inside_a_good_zip(tmp_path):
    path = tmp_path / "badpkl.pth"
    torch_like_zip(path, b"\x80\x02}q\x00(X\x01\x00\x00\x00a\xff\xff")
    r = inspect_path(path)
    assert not r.readable and codes(r)["TI102"].status is Status.ERROR


def test_random_bytes_and_empty_file(tmp_path):
    rnd = tmp_path / "random.pth"
    rnd.write_bytes(random.Random(0).randbytes(4096))
    r = inspect_path(rnd)
    assert not r.readable and codes(r)["TI101"].status is Status.ERROR
    empty = tmp_path / "empty.pth"
    empty.write_bytes(b"")
    f = codes(inspect_path(empty))["TI101"]
    assert f.status is Status.ERROR and "empty" in f.message


def test_lfs_pointer_and_html(tmp_path):
    lfs = tmp_path / "lfs.pth"
    lfs.write_text("version https://git-lfs.github.com/spec/v1\noid sha256:4d7a2146\nsize 438000000\n")
    f = codes(inspect_path(lfs))["TI101"]
    assert f.status is Status.ERROR and "git lfs pull" in f.fix.commands
    assert f.evidence["size the weights should have"] == "438,000,000 bytes"
    html = tmp_path / "html.pth"
    html.write_text("\n<!DOCTYPE html><html><head><title>Google Drive - Quota exceeded</title></head></html>")
    f = codes(inspect_path(html))["TI101"]
    assert f.status is Status.ERROR and "Quota exceeded" in f.message


def test_deep_mark_nesting(tmp_path):
    path = tmp_path / "deep.pth"
    torch_like_zip(path, b"\x80\x02" + b"(" * 200_000 + b".")
    r = inspect_path(path)
    assert r.problem["kind"] == "limit" and codes(r)["TI111"].status is Status.ERROR


def test_deep_structure_nesting(tmp_path):
    path = tmp_path / "deeplist.pkl"
    n = 100_000
    path.write_bytes(b"\x80\x02" + b"]" * n + b"a" * (n - 1) + b".")
    r = inspect_path(path, tree=True)
    assert r.problem["kind"] == "limit" and "nested deeper" in r.problem["detail"]


def test_billion_laughs(tmp_path):
    data = bytearray(b"\x80\x02]q\x00")
    for i in range(1, 200):
        data += b"(h" + bytes([i - 1]) + b"h" + bytes([i - 1]) + b"lq" + bytes([i])
    data += b"."
    path = tmp_path / "laughs.pth"
    torch_like_zip(path, bytes(data))
    r = inspect_path(path, tree=True, tensors=True)
    assert r.readable and r.root_type == "list"  # 2**199 paths, each object visited once


def test_memo_and_item_limits(tmp_path):
    path = tmp_path / "memo.pkl"
    body = b"".join(b"K\x01r" + struct.pack("<I", i) + b"0" for i in range(5000))  # BININT1, LONG_BINPUT, POP
    path.write_bytes(b"\x80\x02" + body + b"N.")
    r = inspect_path(path, limits=Limits(max_memo=1000))
    assert r.problem["kind"] == "limit" and "memo" in r.problem["detail"]
    assert inspect_path(path).readable  # within the default limits
    items = tmp_path / "items.pkl"
    items.write_bytes(b"\x80\x02](" + b"K\x01" * 5000 + b"e.")
    assert inspect_path(items, limits=Limits(max_items=1000)).problem["kind"] == "limit"


def test_giant_declared_string(tmp_path):
    path = tmp_path / "giant.pth"
    torch_like_zip(path, b"\x80\x04\x8d" + struct.pack("<Q", 1 << 62) + b"abc.")
    r = inspect_path(path)
    assert not r.readable and codes(r)["TI102"].status is Status.ERROR


def _tensor_pickle(numel: int) -> bytes:
    """A hand-written data.pkl: one float32 tensor [2, 3] whose storage declares `numel` elements."""
    def u(t):
        return b"X" + struct.pack("<I", len(t)) + t.encode()

    return (b"\x80\x02}(" + u("w") + b"ctorch._utils\n_rebuild_tensor_v2\n((" + u("storage")
            + b"ctorch\nFloatStorage\n" + u("0") + u("cpu") + b"\x8a\x08" + struct.pack("<q", numel)
            + b"tQK\x00K\x02K\x03\x86K\x03K\x01\x86\x89ccollections\nOrderedDict\n)RtRu.")


def test_giant_declared_storage(tmp_path):
    path = tmp_path / "huge.pth"
    torch_like_zip(path, _tensor_pickle(10 ** 15), name="huge", records={"0": b"\0" * 24})
    r = inspect_path(path, tensors=True)
    f = codes(r)["TI102"]
    assert f.status is Status.ERROR and "declares 4,000,000,000,000,000 bytes" in f.message
    ok = tmp_path / "ok.pth"
    torch_like_zip(ok, _tensor_pickle(6), name="ok", records={"0": struct.pack("<6f", *range(6))})
    r = inspect_path(ok, tensors=True)
    assert codes(r)["TI102"].status is Status.OK and r.stats["w"]["max"] == 5


def test_giant_declared_pickle_record(tmp_path):
    path = tmp_path / "bomb.pth"
    torch_like_zip(path, _tensor_pickle(6), name="bomb", records={"0": b"\0" * 24})
    data = bytearray(path.read_bytes())
    at = data.index(b"PK\x01\x02")  # the first central-directory entry is data.pkl
    data[at + 24: at + 28] = struct.pack("<I", 0xFFFFFFF0)  # its uncompressed size: ~4 GB
    path.write_bytes(bytes(data))
    r = inspect_path(path)
    assert r.problem["kind"] == "limit" and codes(r)["TI111"].status is Status.ERROR


def test_zip_without_data_pkl(tmp_path):
    path = tmp_path / "other.zip.pth"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("readme.txt", "hello")
    f = codes(inspect_path(path))["TI101"]
    assert f.status is Status.ERROR and "data.pkl" in f.message


def test_unknown_persistent_id_and_odd_opcodes(tmp_path):
    # A persistent id that is not a storage, and INST/OBJ/EXT opcodes: recorded, never resolved.
    path = tmp_path / "odd.pkl"
    path.write_bytes(b"((X\x03\x00\x00\x00abctQ(ios\nsystem\nVx\n\x82\x01t.")
    r = inspect_path(path)
    assert r.readable and codes(r)["TI103"].status is Status.ERROR


@pytest.mark.parametrize("size", [b"J\xff\xff\xff\xffK\x03\x86", b"K\x02X\x01\x00\x00\x00x\x86", b"N",
                                  b"G@\x04\x00\x00\x00\x00\x00\x00\x85", b"(K\x01K\x02t\x85",
                                  b"\x8a\x10" + (10 ** 37).to_bytes(16, "little") + b"\x85"])
def test_malformed_tensor_sizes_are_damage_not_a_crash(tmp_path, size):
    # (-1, 3), (2, 'x'), None, (2.5,), ((1, 2),) and (10**37,): issue 11 found --tensors crashing on these
    body = (b"\x80\x02}(X\x01\x00\x00\x00wctorch._utils\n_rebuild_tensor_v2\n((X\x07\x00\x00\x00storage"
            b"ctorch\nFloatStorage\nX\x01\x00\x00\x000X\x03\x00\x00\x00cpuK\x06tQK\x00" + size
            + b"K\x01\x85\x89ccollections\nOrderedDict\n)RtRu.")
    path = tmp_path / "bad_size.pth"
    torch_like_zip(path, body, records={"0": struct.pack("<6f", *range(6))})
    r = inspect_path(path, tensors=True, tree=True)
    f = codes(r)["TI102"]
    assert f.status is Status.ERROR and "tensor w" in f.message, f.message
