"""`torchdoctor inspect` and `torchdoctor ckpt convert` end to end: output, JSON schema, exit
statuses, bad input, --against, and conversions verified tensor for tensor."""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys

import pytest
from test_inspect_reader import _save_with_location, ckpts  # noqa: F401  (the session fixture)
from test_inspect_safety import Evil, torch_like_zip
from torchdoctor.cli import main
from torchdoctor.inspect import inspect_path, run_ckpt_rules


def run(capsys, *args):
    with pytest.raises(SystemExit) as exc:
        main(list(args))
    out = capsys.readouterr()
    return exc.value.code, out.out, out.err


def test_clean_checkpoint_text(capsys, ckpts):  # noqa: F811
    code, out, _ = run(capsys, "inspect", ckpts["sd.pth"])
    assert code == 0
    assert "torch.save zip; readable by torch >= 1.6" in out
    assert "tensors: 7" in out and "float32×6, int64×1" in out and "saved on cpu" in out
    assert out.rstrip().endswith("No problems found.")


def test_findings_exit_status_and_fail_on(capsys, ckpts):  # noqa: F811
    code, out, _ = run(capsys, "inspect", ckpts["cuda0.pth"])
    assert code == 0 and "TI106" in out and "map_location" in out  # a warning: exit 0 by default
    code, _, _ = run(capsys, "inspect", ckpts["cuda0.pth"], "--fail-on", "warning")
    assert code == 1


def test_json_schema(capsys, ckpts):  # noqa: F811
    code, out, _ = run(capsys, "inspect", ckpts["full.pth"], "--format", "json", "--tensors", "--tree")
    doc = json.loads(out)
    assert doc["schema"] == "torchdoctor.inspect/v1" and code == 0
    assert doc["report"]["format"] == "zip" and doc["report"]["tensor_count"] > 7
    assert doc["report"]["tree"]["epoch"] == 7 and doc["report"]["stats"]
    by = {f["code"]: f for f in doc["findings"]}
    assert by["TI104"]["status"] == "warning" and by["TI107"]["status"] == "warning"
    assert set(doc["summary"]) == {"ok", "warning", "error", "skip", "crash"}


def test_unsafe_file_exits_1(capsys, tmp_path):
    path = tmp_path / "evil.pth"
    torch_like_zip(path, pickle.dumps(Evil(tmp_path / "PWNED"), protocol=2))
    code, out, _ = run(capsys, "inspect", str(path))
    assert code == 1 and "RUNS CODE" in out and not (tmp_path / "PWNED").exists()


def test_unreadable_file_exits_1(capsys, tmp_path):
    path = tmp_path / "lfs.pth"
    path.write_text("version https://git-lfs.github.com/spec/v1\noid sha256:ab\nsize 12\n")
    code, out, _ = run(capsys, "inspect", str(path))
    assert code == 1 and "Git LFS pointer" in out and "git lfs pull" in out


@pytest.mark.parametrize("args,message", [
    (["inspect", "/nonexistent/x.pth"], "no such file"),
    (["inspect", "."], "is a directory"),
    (["inspect", "--against", "nosuchmodule_xyz:build", "SD"], "no module named"),
    (["inspect", "--against", "/nonexistent.pth", "SD"], "no such file"),
])
def test_usage_errors(capsys, ckpts, args, message):  # noqa: F811
    args = [ckpts["sd.pth"] if a == "SD" else a for a in args]
    code, _out, err = run(capsys, *args)
    assert code == 2 and err.startswith("torchdoctor: error: ") and message in err.lower() and "Traceback" not in err


def test_against_other_checkpoint_explains_prefix(capsys, ckpts):  # noqa: F811
    code, out, _ = run(capsys, "inspect", ckpts["dp.pth"], "--against", ckpts["sd.pth"], "--format", "json")
    doc = json.loads(out)
    a = doc["report"]["against"]
    assert code == 1 and len(a["missing"]) == 7 and len(a["unexpected"]) == 7
    assert a["explanations"][0]["kind"] == "prefix" and "'module.'" in a["explanations"][0]["detail"]
    code, _, _ = run(capsys, "inspect", ckpts["sd.pth"], "--against", ckpts["legacy.pth"])
    assert code == 0


def test_against_factory_nesting_rename_and_shapes(capsys, ckpts, tmp_path, monkeypatch):  # noqa: F811
    (tmp_path / "mymodels.py").write_text(
        "import torch\n"
        "def same():\n    return torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.BatchNorm1d(2))\n"
        "def wider():\n    return torch.nn.Sequential(torch.nn.Linear(3, 5), torch.nn.BatchNorm1d(5))\n"
        "class Named(torch.nn.Module):\n"
        "    def __init__(self):\n        super().__init__()\n"
        "        self.fc = torch.nn.Linear(3, 2)\n        self.bn = torch.nn.BatchNorm1d(2)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    code, out, _ = run(capsys, "inspect", ckpts["nested.pth"], "--against", "mymodels:same")
    assert code == 0 and "ckpt['state_dict']" in out
    report = inspect_path(ckpts["nested.pth"])
    from torchdoctor.inspect.against import compare, reference_shapes

    report.against = compare(report, *reference_shapes("mymodels:same"))
    assert report.against["explanations"][0]["kind"] == "nesting"
    assert "model.load_state_dict(ckpt['state_dict'])" in report.against["explanations"][0]["fix"]
    wider = compare(inspect_path(ckpts["sd.pth"]), *reference_shapes("mymodels:wider"))
    assert len(wider["shape_mismatch"]) == 6 and any(e["kind"] == "shape" for e in wider["explanations"])
    named = compare(inspect_path(ckpts["sd.pth"]), *reference_shapes("mymodels:Named"))
    renamed = [e["detail"] for e in named["explanations"] if e["kind"] == "renamed"]
    assert any("'0'" in d and "'fc'" in d for d in renamed) and any("'1'" in d and "'bn'" in d for d in renamed)
    findings = {f.code: f for f in run_ckpt_rules(report)}
    assert findings["TI112"].status.value == "ok"


def test_inspect_help_does_not_import_torch():
    code = ("import sys; from torchdoctor.cli import main\n"
            "try:\n    main(['inspect', '--help'])\nexcept SystemExit:\n    pass\n"
            "print('torch' in sys.modules, file=sys.stderr)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False)
    assert out.stderr.strip().endswith("False") and "--tensors" in out.stdout


# --------------------------------------------------------------------------- ckpt convert
def _load(path, **kw):
    import torch

    return torch.load(path, weights_only=True, **kw)


def test_convert_strip_prefix_and_verify(capsys, ckpts, tmp_path):  # noqa: F811
    out_path = tmp_path / "bare.pth"
    code, out, err = run(capsys, "ckpt", "convert", ckpts["dp.pth"], str(out_path), "--strip-prefix", "module.")
    assert code == 0, err
    assert "stripped 'module.' from 7 keys" in out and "verified" in out
    import torch

    got, ref = _load(out_path), _load(ckpts["sd.pth"])
    assert list(got) == list(ref) and all(torch.equal(got[k], ref[k]) for k in ref)
    assert run_ckpt_rules(inspect_path(out_path)) and "TI107" not in {
        f.code for f in run_ckpt_rules(inspect_path(out_path)) if f.status.value == "warning"}


def test_convert_to_cpu(capsys, ckpts, tmp_path):  # noqa: F811
    out_path = tmp_path / "cpu.pth"
    code, _out, err = run(capsys, "ckpt", "convert", ckpts["cuda0.pth"], str(out_path), "--to-cpu")
    assert code == 0, err
    assert {st["location"] for st in inspect_path(out_path).storages.values()} == {"cpu"}
    code, _, err = run(capsys, "ckpt", "convert", ckpts["cuda0.pth"], str(tmp_path / "x.pth"))
    import torch
    if torch.cuda.is_available():  # a GPU machine can keep the cuda:0 tags (run there with capture5's suite run)
        assert code == 0, err
    else:
        assert code == 2 and "--to-cpu" in err


def test_convert_protocol4_legacy_and_safetensors(capsys, ckpts, tmp_path):  # noqa: F811
    import torch

    legacy = tmp_path / "legacy.pth"
    code, out, err = run(capsys, "ckpt", "convert", ckpts["p4.pth"], str(legacy), "--legacy-format")
    assert code == 0, err
    r = inspect_path(legacy)
    assert r.format == "legacy" and r.pickle_protocol == 2
    st = tmp_path / "m.safetensors"
    code, out, err = run(capsys, "ckpt", "convert", ckpts["nested.pth"], str(st), "--safetensors")
    assert code == 0 and "dropped 1 non-tensor" in out, err
    r = inspect_path(st)
    assert r.format == "safetensors" and r.tensor_count == 7
    from torchdoctor.inspect.convert import _read_safetensors

    back, ref = _read_safetensors(st), _load(ckpts["nested.pth"])["state_dict"]
    assert all(torch.equal(back[f"state_dict.{k}"], v) for k, v in ref.items())


def test_convert_refusals(capsys, ckpts, tmp_path):  # noqa: F811
    evil = tmp_path / "evil.pth"
    torch_like_zip(evil, pickle.dumps(Evil(tmp_path / "PWNED"), protocol=2))
    code, _, err = run(capsys, "ckpt", "convert", str(evil), str(tmp_path / "out.pth"))
    assert code == 1 and "posix.system" in err and "--trust" in err
    assert not (tmp_path / "PWNED").exists() and not (tmp_path / "out.pth").exists()
    code, _, err = run(capsys, "ckpt", "convert", ckpts["sd.pth"], ckpts["sd.pth"])
    assert code == 2 and "never overwrites its input" in err
    existing = tmp_path / "exists.pth"
    existing.write_bytes(b"keep")
    code, _, err = run(capsys, "ckpt", "convert", ckpts["sd.pth"], str(existing))
    assert code == 2 and "--force" in err and existing.read_bytes() == b"keep"
    code, _, _ = run(capsys, "ckpt", "convert", ckpts["sd.pth"], str(existing), "--force")
    assert code == 0 and existing.read_bytes()[:2] == b"PK"
    code, _, err = run(capsys, "ckpt", "convert", ckpts["full.pth"], str(tmp_path / "f.pth"))
    assert code == 1 and "argparse.Namespace" in err
    code, _out, err = run(capsys, "ckpt", "convert", ckpts["full.pth"], str(tmp_path / "f.pth"), "--trust",
                         "--strip-prefix", "module.")
    assert code == 0, err
    before = os.stat(ckpts["sd.pth"]).st_mtime_ns
    run(capsys, "ckpt", "convert", ckpts["sd.pth"], str(tmp_path / "copy.pth"))
    assert os.stat(ckpts["sd.pth"]).st_mtime_ns == before
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_convert_safetensors_by_hand(ckpts, tmp_path, monkeypatch):  # noqa: F811
    # Without the safetensors package the file is written by hand; the header must be what the format says.
    import builtins
    import struct

    real_import = builtins.__import__

    def no_safetensors(name, *args, **kwargs):
        if name.startswith("safetensors"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_safetensors)
    from torchdoctor.inspect.convert import convert

    out_path = tmp_path / "hand.safetensors"
    lines = convert(ckpts["nan.pth"], out_path, safetensors=True)
    assert "verified" in lines[-1]
    raw = out_path.read_bytes()
    n = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8:8 + n])
    assert header["bf"] == {"dtype": "BF16", "shape": [3], "data_offsets": header["bf"]["data_offsets"]}
    r = inspect_path(out_path, tensors=True)
    assert r.stats["w"]["nan"] == 1 and r.stats["bf"]["min"] == -3
