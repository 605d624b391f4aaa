"""TE205 reads CUDA_VISIBLE_DEVICES exactly as the installed torch does.

Compared with `torch.cuda._parse_visible_devices` itself (the CPU build is enough: the parser
needs no GPU), so a torch release that changes the rules shows up here.
"""

from __future__ import annotations

import pytest

from torchdoctor.checks.env.cuda_visible_devices_invalid import parse_visible_devices

VALUES = [
    "0", "0,1", "1,0", " 1 , 0 ", "0,0", "0,1,0", "1gpu2,2ampere", "1gpu", "+1", "01,1", "", " ", ",", "0,,1",
    "-1", "0,-1,1", "-5x", "all", "none", "0,gpu1,2", "7,3", "1-", "12", "0, 1,2 ",
    "GPU-5a1c3f0e", "GPU-5a1c3f0e,GPU-77e0d2b4", "GPU-5a1c3f0e,GPU-5a1c3f0e", "GPU-5a1c3f0e,1", "GPU-a, GPU-b",
    "MIG-4b1c0d2e-aaaa", "MIG-a,MIG-b,MIG-a", "MIG-a,GPU-b", " GPU-5a1c3f0e",
]


@pytest.fixture(scope="module")
def torch_parse():
    cuda = pytest.importorskip("torch.cuda")
    return cuda._parse_visible_devices


@pytest.mark.parametrize("value", VALUES, ids=repr)
def test_parser_agrees_with_torch(value, torch_parse, monkeypatch):
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", value)
    assert parse_visible_devices(value).kept == torch_parse()


@pytest.mark.parametrize("value", ["+", "-", "0,+"])
def test_values_torch_cannot_parse_are_flagged(value, torch_parse, monkeypatch):
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", value)
    with pytest.raises(ValueError):
        torch_parse()
    assert parse_visible_devices(value).raises
