"""The torch each release of a compiled companion (xformers, torchtext, ...) was built for, read from its
PyPI wheels (doctor/data/companion_pins.json), decides TE103 on a pasted package list that names the
release but not its metadata.

The reports below are pytorch/pytorch#51858's collect_env (tests/fixtures/env_reports/pt51858-...)
with the package lines a user of xformers or torchtext has: the rest of the report is verbatim."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from torchdoctor.cli import env as cli_env
from torchdoctor.data import companion_pins_build as build
from torchdoctor.data import load, tables
from torchdoctor.model import Status
from torchdoctor.runner import run_env_checks

REPORT = (Path(__file__).parent / "fixtures" / "env_reports" / "pt51858-hamza-win11-gtx1050ti-cu117.txt").read_text()
PACKAGES = """[pip3] numpy==1.23.5
[pip3] torch==2.0.1+cu117
[pip3] torchaudio==2.0.2+cu117
[pip3] torchvision==0.15.2
"""


def te103(tmp_path: Path, extra: str, torch_line: str = "[pip3] torch==2.0.1+cu117") -> object:
    assert PACKAGES in REPORT
    text = REPORT.replace(PACKAGES, PACKAGES.replace("[pip3] torch==2.0.1+cu117", torch_line) + extra)
    path = tmp_path / "report.txt"
    path.write_text(text, encoding="utf-8")
    return next(f for f in run_env_checks(cli_env.load_facts(path)) if f.code == "TE103")


# --------------------------------------------------------------------------- the table


def test_every_pin_is_a_torch_requirement_with_a_version():
    data = load("companion_pins")
    assert data["provenance"].startswith("python -m torchdoctor.data.companion_pins_build")
    for name, pins in data["packages"].items():
        for release, pin in pins.items():
            req = Requirement(pin)
            assert req.name == "torch" and str(req.specifier), (name, release, pin)


def test_table_holds_the_pins_pypi_declares():
    # Spot checks against the wheels' METADATA (pip download xformers==0.0.27.post2 --no-deps; unzip -p ... METADATA)
    assert tables.companion_pin("xformers", "0.0.27.post2") == "torch==2.4.0"
    assert tables.companion_pin("xformers", "0.0.23.post1+cu118") == "torch==2.1.2"  # the local tag is PyTorch's index
    assert tables.companion_pin("torchtext", "0.15.2") == "torch==2.0.1"
    assert tables.companion_pin("torchtext", "0.6.0") is None  # pure Python then, no pin
    assert tables.companion_pin("flash-attn", "2.5.8") is None  # not in the table: sdist only on PyPI


def test_paired_release_is_the_newest_whose_wheels_accept_this_torch():
    assert tables.family_requirement("xformers", "2.4.0+cu121") == "xformers==0.0.27.post2"
    assert tables.family_requirement("torchtext", "2.0.1") == "torchtext==0.15.2"
    assert tables.family_requirement("xformers", "1.8.0") is None


# --------------------------------------------------------------------------- the check


def test_xformers_built_for_another_torch_in_a_pasted_list(tmp_path):
    finding = te103(tmp_path, "[pip3] xformers==0.0.22.post7\n")
    assert finding.status is Status.ERROR
    assert "xformers 0.0.22.post7 requires torch==2.1.0 (what its PyPI wheels declare)" in finding.message
    assert 'xformers==0.0.22' in " ".join(finding.fix.commands)  # the newest release pinning torch 2.0.1


def test_xformers_built_for_this_torch_is_quiet(tmp_path):
    finding = te103(tmp_path, "[pip3] xformers==0.0.22\n")
    assert finding.status is Status.OK, finding.message
    assert "xformers 0.0.22" in str(finding.evidence.get("checked", "")) or "xformers 0.0.22" in finding.message


def test_torchtext_of_another_release_is_found_and_its_own_release_is_quiet(tmp_path):
    assert te103(tmp_path, "[pip3] torchtext==0.16.0\n").status is Status.ERROR
    assert te103(tmp_path, "[pip3] torchtext==0.15.2\n").status is Status.OK


def test_conda_builds_are_not_judged_by_pypi_pins(tmp_path):
    # conda-forge builds xformers against its own pytorch; PyPI's pin says nothing of it.
    finding = te103(tmp_path, "[conda] xformers                  0.0.22.post7    py39_cu11.8.0_pyt2.1.0    xformers\n")
    assert "xformers" not in finding.message


def test_installed_metadata_wins_over_the_table():
    from torchdoctor.checks.env._install import torch_dist
    from torchdoctor.checks.env.torch_family_mismatch import torch_family_mismatch
    from torchdoctor.facts.model import Facts

    # xformers 0.0.22.post7 built here against this torch: its own metadata pins this torch, PyPI's wheel another.
    facts = Facts.from_json({"packages": {"distributions": [
        torch_dist("torch", "2.0.1"), {**torch_dist("xformers", "0.0.22.post7"), "requires": ["torch==2.0.1"]}]}})
    assert torch_family_mismatch(facts).status is Status.OK
    pasted = Facts.from_json({"packages": {"distributions": [
        {"name": "torch", "version": "2.0.1", "location": "printed values"},
        {"name": "xformers", "version": "0.0.22.post7", "location": "printed values"}]}})
    assert torch_family_mismatch(pasted).status is Status.ERROR


# --------------------------------------------------------------------------- the builder (no network)


def _wheel(metadata: str) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("xformers/__init__.py", "x = 1\n" * 2000)
        zf.writestr("xformers-0.0.27.dist-info/METADATA", metadata)
        zf.writestr("xformers-0.0.27.dist-info/RECORD", "")
    return buf.getvalue()


METADATA = """Metadata-Version: 2.1
Name: xformers
Version: 0.0.27
Requires-Python: >=3.9
Requires-Dist: numpy
Requires-Dist: torch ==2.3.1
Requires-Dist: torchvision ; extra == "vision"
Requires-Dist: torch>=2.4 ; extra == "next"

Requires-Dist: torch==0.0 (in the description, not a header)
"""


def test_metadata_is_read_from_the_zip_directory_by_ranges(monkeypatch):
    wheel = _wheel(METADATA)
    monkeypatch.setattr(build, "_range", lambda url, start, end: wheel[start:end + 1])
    text = build.wheel_metadata("https://files.example/x.whl", len(wheel))
    assert text.startswith("Metadata-Version: 2.1")
    assert build.torch_requirements(text) == ["torch==2.3.1"]


def test_a_wheel_without_metadata_is_refused(monkeypatch):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("xformers/__init__.py", "")
    wheel = buf.getvalue()
    monkeypatch.setattr(build, "_range", lambda url, start, end: wheel[start:end + 1])
    with pytest.raises(ValueError):
        build.wheel_metadata("https://files.example/x.whl", len(wheel))


def test_releases_whose_wheels_disagree_or_do_not_pin_are_left_out(monkeypatch):
    files = [{"filename": f"pkg-{v}-cp310-cp310-{plat}.whl", "url": f"{v}/{plat}", "size": 1}
             for v in ("1.0", "1.1", "1.2", "1.3rc1") for plat in ("manylinux2014_x86_64", "win_amd64")]
    pins = {"1.0/manylinux2014_x86_64": "torch==2.0.0", "1.0/win_amd64": "torch==2.0.0",
            "1.1/manylinux2014_x86_64": "torch==2.1.0", "1.1/win_amd64": "",
            "1.2/manylinux2014_x86_64": "torch", "1.2/win_amd64": "torch",
            "1.3rc1/manylinux2014_x86_64": "torch==2.2.0", "1.3rc1/win_amd64": "torch==2.2.0"}
    monkeypatch.setattr(build, "_get", lambda url, headers=None: __import__("json").dumps({"files": files}).encode())
    monkeypatch.setattr(build, "wheel_metadata", lambda url, size: f"Requires-Dist: {pins[url]}\n" if pins[url] else "")
    assert build.package_pins("pkg") == {"1.0": "torch==2.0.0"}


# --------------------------------------------------------------------------- PyG's wheel tags


def test_pyg_wheel_for_another_torch_minor(tmp_path):
    # PyG's index names the torch a wheel was built for in its tag: torch_scatter-2.1.1+pt20cu118 is for torch 2.0.
    finding = te103(tmp_path, "[pip3] torch-scatter==2.1.1+pt21cu118\n")
    assert finding.status is Status.ERROR
    assert "torch-scatter 2.1.1+pt21cu118 is PyG's wheel for torch 2.1 (cu118)" in finding.message
    assert "https://data.pyg.org/whl/torch-2.0.0+cu117.html" in " ".join(finding.fix.commands)


def test_pyg_wheel_for_this_torch_is_quiet(tmp_path):
    finding = te103(tmp_path, "[pip3] torch-scatter==2.1.1+pt20cu117\n[pip3] pyg-lib==0.2.0+pt20cu117\n")
    assert finding.status is Status.OK, finding.message


def test_pyg_cpu_wheel_beside_a_cuda_torch_is_a_warning(tmp_path):
    finding = te103(tmp_path, "[pip3] torch-scatter==2.1.1+pt20cpu\n")
    assert finding.status is Status.WARNING
    assert "CUDA operators are missing" in finding.message


# --------------------------------------------------------------------------- conda's build strings

# pytorch/pytorch#35646 (rgommers): a conda environment's library lines, verbatim; pip lists what conda installed
# too, and only conda's row says which build it is.
CONDA_REPORT = (Path(__file__).parent / "fixtures" / "env_reports" / "pt35646-rgommers-conda-libs-torch140-cu101.txt").read_text()


def _conda_te103(tmp_path: Path, text: str):
    path = tmp_path / "report.txt"
    path.write_text(text, encoding="utf-8")
    facts = cli_env.load_facts(path)
    return facts, next(f for f in run_env_checks(facts) if f.code == "TE103")


@pytest.mark.parametrize("build,flavour", [
    ("py3.7_cuda10.1.243_cudnn7.6.3_0", "cu101"), ("py39_cu117", "cu117"), ("cuda118py310h1234567_0", "cu118"),
    ("cuda120_py311h2cb3b0a_300", "cu120"), ("py3.9_cpu_0", "cpu"), ("py39_cpu", "cpu"), ("cpu_py310h1234_0", "cpu"),
    ("py37_cuda0.0_cudnn0.0_1", "cpu"), ("h6bb024c_0", None), ("py37he904b0f_0", None), ("mkl", None)])
def test_conda_build_strings_name_the_build(build, flavour):
    assert tables.conda_build_flavour(build) == flavour


def test_the_matching_conda_pair_is_quiet_and_keeps_its_builds(tmp_path):
    facts, finding = _conda_te103(tmp_path, CONDA_REPORT)
    vision = next(d for d in facts.get("packages.distributions") if d.name == "torchvision")
    assert (vision.installer, vision.build) == ("conda", "py37_cu101")
    assert finding.status is Status.OK


def test_a_cpu_torchvision_from_conda_beside_its_cuda_pytorch(tmp_path):
    assert "py37_cu101    pytorch" in CONDA_REPORT
    _, finding = _conda_te103(tmp_path, CONDA_REPORT.replace("py37_cu101    pytorch", "py37_cpu    pytorch"))
    assert finding.status is Status.WARNING
    assert "torchvision 0.5.0 is a CPU build (conda build py37_cpu) while torch 1.4.0 is a CUDA 10 build" in finding.message


def test_pyg_fix_without_torchs_cuda_leaves_the_tag_to_fill():
    from torchdoctor.checks.env.torch_family_mismatch import torch_family_mismatch
    from torchdoctor.facts.model import Facts

    facts = Facts.from_json({"packages": {"distributions": [
        {"name": "torch", "version": "2.1.1", "location": "pip list"},
        {"name": "torch-scatter", "version": "2.1.2+pt20cu118", "location": "pip list"}]}})
    finding = torch_family_mismatch(facts)
    assert finding.status is Status.ERROR
    assert finding.fix.commands[-1].endswith("-f https://data.pyg.org/whl/torch-2.1.0+<cuda-tag>.html")
