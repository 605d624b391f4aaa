"""`torchdoctor inspect`'s reader on real checkpoints, torch-saved on CPU inside the tests (device
tags rewritten to cuda:N the way a GPU save writes them), and what the rules say about them."""

from __future__ import annotations

import argparse
import io
import os
import struct
import subprocess
import sys
import zipfile

import pytest
from torchdoctor.inspect import inspect_path, run_ckpt_rules
from torchdoctor.model import Status


def _save_with_location(obj, path, location):
    """torch.save as if every storage lived on `location` (what a save on that GPU writes)."""
    import torch
    import torch.serialization as S

    original = S.location_tag
    S.location_tag = lambda storage: location
    try:
        torch.save(obj, path)
    finally:
        S.location_tag = original


def build(root):
    """Every checkpoint the inspect tests read, built once."""
    import torch

    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.BatchNorm1d(2))
    sd = model.state_dict()
    files = {}

    def path(name):
        files[name] = os.path.join(root, name)
        return files[name]

    torch.save(sd, path("sd.pth"))
    torch.save({f"module.{k}": v for k, v in sd.items()}, path("dp.pth"))
    _save_with_location(sd, path("cuda0.pth"), "cuda:0")
    torch.save(sd, path("legacy.pth"), _use_new_zipfile_serialization=False)
    torch.save(sd, path("p4.pth"), pickle_protocol=4)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    model(torch.randn(4, 3)).sum().backward()
    opt.step()
    torch.save({"model": {f"module.{k}": v for k, v in sd.items()}, "optimizer": opt.state_dict(), "epoch": 7,
                "args": argparse.Namespace(lr=0.1)}, path("full.pth"))
    torch.save({"state_dict": sd, "epoch": 3}, path("nested.pth"))
    torch.save(model, path("wholemodel.pth"))
    nan = {"w": torch.tensor([[1.0, float("nan")], [2.0, 3.0]]), "b": torch.tensor([0.5, float("inf")]),
           "h": torch.tensor([1.0, -2.0, 65504.0], dtype=torch.float16),
           "bf": torch.tensor([1.5, -3.0, 0.25], dtype=torch.bfloat16), "i": torch.arange(5),
           "d": torch.tensor([1e300, -1e300], dtype=torch.float64), "flag": torch.tensor([True, False, True])}
    torch.save(nan, path("nan.pth"))
    torch.save({"f8": torch.zeros(4, dtype=torch.float8_e4m3fn), "u16": torch.zeros(2, dtype=torch.uint16)},
               path("newdtypes.pth"))
    torch.save({"meta": torch.empty(3, 4, device="meta")}, path("meta.pth"))
    base = torch.arange(12, dtype=torch.float32)
    torch.save({"view": base.view(3, 4)[:, 1], "base": base}, path("views.pth"))
    scripted = torch.jit.script(torch.nn.Linear(2, 2))
    torch.jit.save(scripted, path("script.pt"))
    return files


@pytest.fixture(scope="session")
def ckpts(tmp_path_factory):
    return build(str(tmp_path_factory.mktemp("ckpts")))


def by_code(report):
    return {f.code: f for f in run_ckpt_rules(report)}


def problems(report):
    return {f.code: f.status.value for f in run_ckpt_rules(report) if f.status.rank >= Status.WARNING.rank}


def test_plain_state_dict_is_clean(ckpts):
    r = inspect_path(ckpts["sd.pth"])
    assert r.format == "zip" and r.readable and r.archive == "sd" and r.format_version == "3"
    assert r.tensor_count == 7 and r.dtype_counts() == {"float32": 6, "int64": 1}
    assert r.bytes_by_location() == {"cpu": 4 * (6 + 2 + 2 + 2 + 2 + 2) + 8}
    assert {t.name: t.shape for t in r.tensors}["0.weight"] == [2, 3]
    assert r.min_torch == "1.6"
    assert problems(r) == {}


def test_byte_counts_match_torch(ckpts):
    import torch

    sd = torch.load(ckpts["sd.pth"], weights_only=True)
    r = inspect_path(ckpts["sd.pth"])
    assert r.total_bytes == sum(t.untyped_storage().nbytes() for t in sd.values())
    assert {t.name: (t.dtype, tuple(t.shape)) for t in r.tensors} == \
        {k: (str(v.dtype).replace("torch.", ""), tuple(v.shape)) for k, v in sd.items()}


def test_dataparallel_prefix(ckpts):
    r = inspect_path(ckpts["dp.pth"])
    f = by_code(r)["TI107"]
    assert f.status is Status.WARNING and "'module.'" in f.message
    assert any("--strip-prefix module." in c for c in f.fix.commands)
    assert problems(inspect_path(ckpts["sd.pth"])).get("TI107") is None


def test_prefix_judged_per_state_dict_not_on_paths(ckpts):
    # {"state_dict": sd}: the flattened names start with "state_dict." but that is nesting, not a prefix.
    r = inspect_path(ckpts["nested.pth"])
    assert "TI107" not in problems(r)
    assert [sd.path for sd in r.state_dicts] == ["state_dict"]
    full = inspect_path(ckpts["full.pth"])
    assert by_code(full)["TI107"].status is Status.WARNING and "'model'" in by_code(full)["TI107"].message


def test_cuda0_device_tags_through_the_memo(ckpts):
    r = inspect_path(ckpts["cuda0.pth"])
    # The location string is memoized after the first tensor: every storage must still say cuda:0.
    assert {st["location"] for st in r.storages.values()} == {"cuda:0"} and len(r.storages) == 7
    f = by_code(r)["TI106"]
    assert f.status is Status.WARNING and "EVERY process" in f.message
    assert 'map_location={"cuda:0": f"cuda:{local_rank}"}' in " ".join(f.fix.commands)
    assert "checkpoint-on-cuda0" in f.related


def test_legacy_format(ckpts):
    r = inspect_path(ckpts["legacy.pth"], tensors=True)
    assert r.format == "legacy" and r.readable and r.tensor_count == 7
    assert r.details["protocol_version"] == 1001 and r.storage_problems == []
    assert all(st.get("data_offset") for st in r.storages.values())
    assert r.stats["0.bias"]["numel"] == 2
    assert problems(r) == {}


def test_protocol_4_fails_weights_only(ckpts):
    r = inspect_path(ckpts["p4.pth"])
    assert r.pickle_protocol == 4 and r.tensor_count == 7
    f = by_code(r)["TI105"]
    assert f.status is Status.WARNING and "Unsupported operand 149" in f.message


def test_protocol_4_verdict_agrees_with_torch(ckpts):
    import pickle

    import torch

    with pytest.raises(pickle.UnpicklingError, match="Unsupported operand 149"):
        torch.load(ckpts["p4.pth"], weights_only=True)


def test_non_allowlisted_globals(ckpts):
    r = inspect_path(ckpts["full.pth"])
    f = by_code(r)["TI104"]
    assert f.status is Status.WARNING
    assert "from argparse import Namespace" in " ".join(f.fix.commands)
    assert "add_safe_globals([Namespace])" in " ".join(f.fix.commands)
    assert by_code(r)["TI103"].status is Status.OK
    assert [k["key"] for k in r.top_keys] == ["model", "optimizer", "epoch", "args"]
    assert r.top_keys[2]["value"] == 7


def test_whole_model_pickle(ckpts):
    r = inspect_path(ckpts["wholemodel.pth"])
    f = by_code(r)["TI104"]
    assert f.status is Status.WARNING and "torch.nn.modules.container.Sequential" in f.evidence["classes"]
    assert "state_dict" in f.fix.summary
    assert r.tensor_count >= 7  # found inside the pickled modules' state
    assert by_code(r)["TI103"].status is Status.OK  # torch's own module classes, rebuilt, not called


@pytest.mark.parametrize("name", ["full.pth", "wholemodel.pth"])
def test_allowlist_snippet_is_python_and_makes_weights_only_load_work(ckpts, name):
    # The TI104 snippet, run as given, is exactly what weights_only=True needs for this file.
    import ast

    f = by_code(inspect_path(ckpts[name]))["TI104"]
    (snippet,) = [c for c in f.fix.commands if "add_safe_globals" in c]
    ast.parse(snippet)
    code = f"{snippet}\nimport sys; torch.load(sys.argv[1], weights_only=True)"
    done = subprocess.run([sys.executable, "-c", code, ckpts[name]], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]


def test_allowlist_verdict_matches_torch(ckpts):
    import torch

    for name in ("sd.pth", "dp.pth", "legacy.pth", "nested.pth", "nan.pth"):
        assert "TI104" not in problems(inspect_path(ckpts[name])), name
        torch.load(ckpts[name], weights_only=True)
    for name in ("full.pth", "wholemodel.pth"):
        assert "TI104" in problems(inspect_path(ckpts[name]))
        with pytest.raises(Exception, match="GLOBAL"):
            torch.load(ckpts[name], weights_only=True)


def test_tensor_values_nan_inf_and_dtypes(ckpts):
    r = inspect_path(ckpts["nan.pth"], tensors=True)
    s = r.stats
    assert (s["w"]["nan"], s["w"]["inf"], s["w"]["min"], s["w"]["max"], s["w"]["mean"]) == (1, 0, 1, 3, 2)
    assert (s["b"]["nan"], s["b"]["inf"], s["b"]["mean"]) == (0, 1, 0.5)
    assert (s["h"]["min"], s["h"]["max"]) == (-2, 65504)
    assert (s["bf"]["min"], s["bf"]["max"], s["bf"]["mean"]) == (-3, 1.5, round(-1.25 / 3, 6))
    assert (s["i"]["min"], s["i"]["max"], s["i"]["mean"]) == (0, 4, 2)
    assert (s["d"]["min"], s["d"]["max"], s["d"]["nan"]) == (-1e300, 1e300, 0)
    assert s["flag"]["mean"] == round(2 / 3, 6)
    f = by_code(r)["TI109"]
    assert f.status is Status.ERROR and "w" in f.evidence["tensors"] and "b" in f.evidence["tensors"]
    clean = inspect_path(ckpts["sd.pth"], tensors=True)
    assert by_code(clean)["TI109"].status is Status.OK
    assert by_code(inspect_path(ckpts["nan.pth"]))["TI109"].status is Status.SKIP


def test_views_read_their_own_elements(ckpts):
    r = inspect_path(ckpts["views.pth"], tensors=True)
    assert len(r.storages) == 1  # one storage, two tensors
    assert r.stats["base"]["max"] == 11 and r.stats["base"]["numel"] == 12
    view = next(t for t in r.tensors if t.name == "view")
    assert view.offset == 1 and view.stride == [4] and view.shape == [3]


def test_new_dtypes_need_newer_torch(ckpts):
    r = inspect_path(ckpts["newdtypes.pth"])
    assert {t.name: t.dtype for t in r.tensors} == {"f8": "float8_e4m3fn", "u16": "uint16"}
    assert r.storages[next(t.key for t in r.tensors if t.name == "u16")]["nbytes"] == 4
    f = by_code(r)["TI108"]
    assert f.status is Status.WARNING and "torch >= 2.3" in f.message
    assert by_code(inspect_path(ckpts["sd.pth"]))["TI108"].status is Status.OK


def test_meta_tensor_has_no_storage(ckpts):
    r = inspect_path(ckpts["meta.pth"])
    assert r.tensors[0].location == "meta" and r.tensors[0].shape == [3, 4]
    assert problems(r) == {}


def test_torchscript_archive(ckpts):
    r = inspect_path(ckpts["script.pt"])
    assert r.format == "torchscript"
    assert by_code(r)["TI110"].status is Status.WARNING


def test_safetensors_header(tmp_path):
    import json

    header = {"__metadata__": {"format": "pt"}, "w": {"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 16]},
              "b": {"dtype": "BF16", "shape": [2], "data_offsets": [16, 20]}}
    raw = json.dumps(header).encode()
    data = struct.pack("<4f", 1, 2, float("nan"), 4) + struct.pack("<2H", 0x3FC0, 0xC040)
    p = tmp_path / "m.safetensors"
    p.write_bytes(struct.pack("<Q", len(raw)) + raw + data)
    r = inspect_path(p, tensors=True)
    assert r.format == "safetensors" and r.tensor_count == 2 and r.details["metadata"] == {"format": "pt"}
    assert r.stats["w"]["nan"] == 1 and r.stats["b"]["min"] == -3 and r.stats["b"]["max"] == 1.5
    assert problems(r) == {"TI109": "error"}
    p.write_bytes(struct.pack("<Q", len(raw)) + raw + data[:10])
    assert by_code(inspect_path(p))["TI102"].status is Status.ERROR


def test_tree(ckpts):
    r = inspect_path(ckpts["full.pth"], tree=True)
    assert r.tree["model"]["module.0.weight"] == "tensor float32[2, 3] cpu"
    assert r.tree["epoch"] == 7
    assert inspect_path(ckpts["full.pth"]).tree is None


def test_reads_only_the_directory_and_pickle(ckpts, tmp_path):
    # Storage bytes are not read without --tensors: a zip whose records are all zero-filled still
    # gives the same structure.
    src = zipfile.ZipFile(ckpts["sd.pth"])
    out = tmp_path / "zeroed.pth"
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as z:
        for info in src.infolist():
            data = src.read(info)
            z.writestr(info.filename, data if "/data/" not in info.filename else b"\0" * len(data))
    assert [t.name for t in inspect_path(out).tensors] == [t.name for t in inspect_path(ckpts["sd.pth"]).tensors]


def test_inspect_never_imports_torch(ckpts):
    code = ("import sys; from torchdoctor.inspect import inspect_path, run_ckpt_rules; "
            f"r = inspect_path({ckpts['nan.pth']!r}, tensors=True, tree=True); run_ckpt_rules(r); "
            f"run_ckpt_rules(inspect_path({ckpts['cuda0.pth']!r})); "
            "print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False)
    assert out.stdout.strip() == "False", out.stderr


def test_raw_pickle_and_numpy_file(tmp_path):
    import pickle

    p = tmp_path / "raw.pkl"
    p.write_bytes(pickle.dumps({"a": [1, 2, 3]}, protocol=2))
    r = inspect_path(p)
    assert r.format == "raw-pickle" and r.readable and problems(r) == {}
    n = tmp_path / "x.pth"
    n.write_bytes(b"\x93NUMPY\x01\x00v\x00{'descr': '<f4'}")
    assert by_code(inspect_path(n))["TI101"].status is Status.ERROR


def test_report_json_round_trip(ckpts):
    from torchdoctor.inspect.report import InspectReport

    r = inspect_path(ckpts["full.pth"], tensors=True)
    again = InspectReport.from_json(r.to_json())
    assert [f.to_json() for f in run_ckpt_rules(again)] == [f.to_json() for f in run_ckpt_rules(r)]


def test_buffer_saved_zip_uses_archive_prefix(tmp_path):
    import torch

    buf = io.BytesIO()
    torch.save({"x": torch.ones(2)}, buf)
    p = tmp_path / "buf.pth"
    p.write_bytes(buf.getvalue())
    r = inspect_path(p)
    assert r.archive == "archive" and r.tensor_count == 1 and r.storage_problems == []
