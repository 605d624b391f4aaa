"""The reference tables: every file loads and is well-formed, the tables agree with each other,
and spot values match shared/anchors/data-tables.md."""

from __future__ import annotations

import json
import re
from importlib import resources

import pytest
from packaging.version import Version

from torchdoctor.data import load, tables

# Reference tables only; *.schema.json files are JSON Schemas of our own outputs.
DATA_FILES = sorted(p.name for p in resources.files("torchdoctor.data").iterdir()
                    if p.name.endswith(".json") and not p.name.endswith(".schema.json"))
STATUSES = {"verified", "derived", "fixture", "secondary", "unverified"}  # secondary: the primary table as quoted by independent sources
DRIVER = re.compile(r"^\d{3}(\.\d{2,3}){1,2}$")


@pytest.mark.parametrize("name", DATA_FILES)
def test_every_table_loads_with_provenance(name):
    data = json.loads(resources.files("torchdoctor.data").joinpath(name).read_text(encoding="utf-8"))
    assert data["schema"] == 1
    assert data["source"] and all(u.startswith("https://") for u in data["source"])
    assert re.fullmatch(r"\d{4}-\d{2}", data["updated"])


# --------------------------------------------------------------------------- cuda_driver.json


def toolkit_rows():
    return load("cuda_driver")["toolkit_drivers"]["rows"]


def test_toolkit_rows_are_well_formed_and_monotonic():
    rows = toolkit_rows()
    assert len(rows) == 64  # every row of data-tables 1.1, 13.3 GA and Update 1, and the two 8.0 rows (issue 13)
    for r in rows:
        assert r["status"] in STATUSES
        assert DRIVER.match(r["linux"]), r
        assert r["windows"] is None or DRIVER.match(r["windows"]), r
        assert tables.major_minor(r["version"]) == tables.major_minor(r["cuda"]), r
        assert (r["windows"] is None) == r["cuda"].startswith("13."), r  # Windows unbundled from 13.x
    ordered = sorted(rows, key=lambda r: Version(r["version"]))
    drivers = [tables.driver_tuple(r["linux"]) for r in ordered]
    assert drivers == sorted(drivers), "a newer toolkit never needs an older Linux driver"


def test_every_cuda_minor_has_a_ga_row():
    for cuda in {r["cuda"] for r in toolkit_rows()}:
        assert tables.toolkit_driver(cuda) is not None, cuda


def test_family_floors_and_wheel_tags():
    floors = {r["family"]: r for r in load("cuda_driver")["family_floors"]["rows"]}
    assert {f: r["linux"] for f, r in floors.items()} == {13: "580.65.06", 12: "525.60.13", 11: "450.80.02"}
    tags = load("cuda_driver")["wheel_tags"]["rows"]
    for row in tags:
        assert tables.tag_cuda(row["tag"]) == row["cuda"]
        floor, toolkit = row["floor"], row["toolkit_driver"]
        assert tables.driver_at_least(toolkit, floor)
        # The toolkit driver is the row of 1.1 for the update the wheels are built with.
        assert tables.toolkit_driver(row["toolkit"]) == toolkit, row
        family = floors.get(tables.major_minor(row["cuda"])[0])
        # The family floor, except where the toolkit's own driver is lower (11.0 builds run on 450.51).
        expected = min(family["linux"], toolkit, key=tables.driver_tuple) if family else toolkit
        assert floor == expected, row
    used = {b["tag"] for r in tables.releases() for b in r["cuda_builds"]}
    assert used <= {r["tag"] for r in tags}, "every CUDA build of a release has a driver row"


@pytest.mark.parametrize("cuda,system,expected", [
    ("12.8", "Linux", ("525.60.13", "570.26")),  # 12.8 GA needs 570.26
    ("12.8.1", "Linux", ("525.60.13", "570.124.06")),
    ("13.0", "Linux", ("580.65.06", "580.65.06")),
    ("13.2.2", "Linux", ("580.65.06", "595.71.05")),
    ("11.8", "Linux", ("450.80.02", "520.61.05")),
    # NVIDIA's minor-version table: Windows CUDA 12.x >= 528.33 (not the 12.0 GA driver 527.41).
    ("12.4", "Windows", ("528.33", "551.61")),
    ("13.0", "Windows", ("580.88", None)),  # PyTorch 2.12 release blog: Windows CUDA 13 >= 580.88
    ("13.3", "Linux", ("580.65.06", "610.43.02")),  # the 13.3 GA toolkit driver
    ("10.2", "Linux", ("440.33", "440.33")),  # no minor-version compatibility before CUDA 11
])
def test_min_driver_for_cuda(cuda, system, expected):
    assert tables.min_driver_for_cuda(cuda, system) == expected


def test_wheel_driver_spot_checks():
    assert tables.wheel_driver("cu130") == ("580.65.06", "580.95.05")  # cu130 family floor 580.65.06
    assert tables.wheel_driver("cu128") == ("525.60.13", "570.124.06")
    assert tables.wheel_driver("cu126", "Windows") == ("528.33", "561.17")
    assert tables.wheel_driver("cu132", "Windows") == ("580.88", None)


def test_driver_versions_compare_as_tuples():
    assert tables.driver_tuple("580.65.06") == (580, 65, 6)
    assert tables.driver_at_least("580.65.06", "580.65.06")
    assert tables.driver_at_least("570.124.06", "570.26")  # 124 > 26 numerically, not as text
    assert not tables.driver_at_least("550.54.15", "580.65.06")
    assert tables.driver_at_least("580.95.05", "580")


# --------------------------------------------------------------------------- torch_releases.json


def test_release_rows_are_well_formed():
    rows = tables.releases()
    assert [r["torch"] for r in rows] == sorted((r["torch"] for r in rows), key=Version)
    for r in rows:
        assert r["status"] in STATUSES
        assert Version(r["python"]["min"]) and (r["python"]["max"] is None or Version(r["python"]["max"]) > Version(r["python"]["min"]))
        assert r["pypi_default_cuda"] in {b["tag"] for b in r["cuda_builds"]}, r["torch"]
        assert r["cxx_standard"] in {"c++14", "c++17", "c++20"}
        for b in r["cuda_builds"]:
            assert tables.cuda_tag(b["cuda"]) == b["tag"]
            for key in ("cudnn", "nccl"):
                assert b.get(key) is None or re.fullmatch(r"\d+(\.\d+){2,3}", b[key])


def test_arch_lists_match_the_builds():
    rows = load("torch_releases")["arch_lists"]["rows"]
    keys = {(r["torch"], r["tag"], r.get("patch")) for r in rows}
    assert len(keys) == len(rows), "one row per (torch, tag, patch)"
    builds = {(r["torch"], b["tag"]) for r in tables.releases() for b in r["cuda_builds"]}
    assert {(torch, tag) for torch, tag, patch in keys if patch is None} == builds
    for torch, tag, patch in keys:  # a patch row refines a build the minor has
        assert patch is None or ((torch, tag) in builds and tables.torch_minor(patch) == torch)
    for r in rows:
        assert r["status"] in STATUSES
        for arch in r["archs"]:
            assert re.fullmatch(r"\d+\.\d(\+PTX)?", arch), arch


def test_release_spot_checks():
    assert tables.pypi_default_cuda("2.11.0") == "cu130"  # the first CUDA-13 default
    assert tables.pypi_default_cuda("2.15.0") == "cu132"
    assert tables.release("2.13.0")["python"] == {"min": "3.10", "max": "3.15"}
    assert tables.release("2.15.0")["python"]["min"] == "3.11"
    assert [b["tag"] for b in tables.builds("2.7.1")] == ["cu118", "cu126", "cu128"]
    assert tables.build("2.13.0", "cu126")["cudnn"] == "9.10.2.21"
    assert tables.build("2.10.0", "cu130")["cudnn"] == "9.15.1.9"


def test_arch_lists_of_a_patch_release():
    # pytorch/builder moved 3.5 to 3.7 between 1.3.0 and 1.3.1 (2aac90bd, 2019-10-29)
    assert "sm_35" in tables.arch_list_for("1.3.0", "cu101")
    assert "sm_35" not in tables.arch_list_for("1.3.1+cu101", "10.1")
    assert tables.arch_list_for("1.3", "cu101") == tables.arch_list_for("1.3.1", "cu101")  # the latest patch
    assert "sm_35" in tables.earlier_patch_arch_lists("1.3", "cu92")["1.3.0"]
    assert tables.earlier_patch_arch_lists("1.3.1", "cu92") == {}
    assert tables.earlier_patch_arch_lists("2.7", "cu128") == {}


def test_arch_list_spot_checks():
    assert "sm_70" not in tables.arch_list_for("2.7.0+cu128", "12.8")  # torch 2.7 cu128 has no Volta
    assert "sm_70" in tables.arch_list_for("2.8.0", "cu128")
    assert tables.arch_list_for("2.13.0", "13.0") == ["sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120", "compute_120"]
    assert tables.arch_list_for("2.3.0", "cu118")[-2:] == ["sm_37", "sm_90"]  # the script's order
    # The torch-2.11.0 cu130 wheel's own NVCC flags end at sm_120 with no compute_120 (issue 13's
    # review said 12.0+PTX; 2.12's cu130 build is the first with it).
    assert tables.arch_list_for("2.11.0", "cu130")[-2:] == ["sm_100", "sm_120"]
    assert tables.arch_list_for("2.12.0", "cu130")[-2:] == ["sm_120", "compute_120"]
    assert tables.arch_list_for("2.13.0", "cu124") is None


@pytest.mark.parametrize("code,device,runs", [
    ("sm_86", "8.9", True),  # sm_86 SASS runs on 8.9 ...
    ("sm_86", "8.7", False),  # ... but not on the Orin iGPU
    ("sm_87", "8.7", True),
    ("sm_80", "8.6", True),
    ("sm_86", "8.0", False),  # not on an older minor
    ("sm_90", "10.0", False),  # not across majors
    ("sm_70", "7.2", False),  # Xavier runs only sm_72
    ("sm_60", "6.1", True),
    ("sm_100", "10.3", True),
    ("sm_100", "10.1", False),
    ("sm_101", "11.0", True),  # old-Thor code also runs on 11.0
    ("sm_120", "12.1", True),
    ("compute_120", "12.1", True),  # compute_120 PTX runs on 12.1
    ("compute_90", "12.0", True),  # PTX JIT-compiles forward across majors
    ("compute_120", "10.0", False),
    # Architecture-specific code (the "a" suffix) runs on that exact GPU only, PTX included.
    ("sm_90a", "9.0", True),
    ("sm_90a", "9.1", False),
    ("sm_100a", "10.3", False),
    ("compute_90a", "10.0", False),
    ("sm_100f", "10.3", True),  # family-specific code runs across the family
])
def test_device_requirement(code, device, runs):
    assert tables.covers([code], device) is runs


def test_kernel_for_prefers_the_newest_sass_then_ptx():
    archs = tables.arch_list_for("2.13.0", "13.0")
    assert tables.kernel_for(archs, "8.9") == "sm_86"
    assert tables.kernel_for(archs, "12.1") == "sm_120"
    assert tables.kernel_for(["sm_80", "compute_80"], "9.0") == "compute_80"
    assert tables.kernel_for(archs, "6.1") is None
    assert tables.kernel_for(["sm_90a", "bogus", "sm_100f"], "10.3") == "sm_100f"


def test_cudnn_sm_floor():
    assert tables.cudnn_refuses("9.11.0", "7.0")
    assert tables.cudnn_refuses("9.17.1.4", "6.1")
    assert not tables.cudnn_refuses("9.10.2.21", "6.1")
    assert not tables.cudnn_refuses("9.20.0.48", "7.5")


def test_numpy_abi():
    assert not tables.numpy2_supported("2.2.2")  # torch < 2.3 needs numpy < 2
    assert tables.numpy2_supported("2.3.0+cu121")


def test_domain_library_pairs():
    section = load("torch_releases")["domain_libraries"]
    rows = {r["torch"]: r for r in section["rows"]}
    assert rows["2.0.1"]["torchaudio"] == "2.0.2"  # off by one patch
    assert rows["1.10.0"]["torchvision"] == ["0.11.0", "0.11.1"]
    for torch, row in rows.items():
        assert row["status"] in STATUSES
        mm = tables.major_minor(torch.replace(".x", ".0"))
        if mm >= (2, 0):  # torchvision minor = torch minor + 15 for 2.x
            assert all(tables.major_minor(v.replace(".x", ".0")) == (0, mm[1] + 15) for v in row["torchvision"]), torch


@pytest.mark.parametrize("nvcc,expected", [
    ("11.0", ("5.0", "10")), ("11.4", ("6.0", "12")), ("12.2", ("6.0", "13")), ("12.4", ("6.0", "14")),
    ("12.8", ("6.0", "15")), ("13.0", ("6.0", "16")), ("13.1", None), ("13.2", None),
])
def test_gcc_range_for_nvcc(nvcc, expected):
    assert tables.gcc_range_for_nvcc(nvcc) == expected


def test_cxx_standard():
    assert tables.cxx_standard("2.13.0") == ("c++20", "10")  # C++20 from 2.13
    assert tables.cxx_standard("2.12.1+cu130")[0] == "c++17"
    assert tables.cxx_standard("2.0.1")[0] == "c++14"


# --------------------------------------------------------------------------- parsing and suggestions


def test_version_helpers():
    assert tables.torch_minor("2.13.0+cu130") == "2.13"
    assert tables.base_version("2.13.0+cu130") == "2.13.0"
    assert tables.local_tag("2.13.0") is None
    assert tables.build_tag("2.13.0", "13.0") == "cu130"  # PyPI default: no local tag
    assert tables.build_tag("2.7.1+cu118", "11.8") == "cu118"
    assert tables.tag_cuda("cu102") == "10.2" and tables.tag_cuda("cpu") is None
    assert tables.is_release("2.13.0+cu130") and not tables.is_release("2.14.0.dev20260801+cu130")
    assert not tables.is_release("2.13.0a0+git1234abc")
    assert tables.cc_int("12.0") == 120 and tables.cc_str(86) == "8.6"


def test_cuda_library_names():
    assert tables.cuda_library("libcudnn_ops.so.9.1.0") == ("cudnn", "9.1.0")
    assert tables.cuda_library("libnvJitLink.so.12") == ("nvJitLink", "12")
    assert tables.cuda_library("libcublasLt.so.12.8.4.1") == ("cublasLt", "12.8.4.1")
    assert tables.cuda_library("libcuda.so.1") == ("cuda", "1")
    assert tables.cuda_library("libcudadebugger.so.1") is None
    assert tables.cuda_library("libtorch_cuda.so") is None


def test_suggest_build():
    # A CUDA 13 build on an R550 driver: the CUDA 12.6 build of the same release.
    s = tables.suggest_build("2.13.0+cu130", driver="550.54.15", exclude_tag="cu130")
    assert (s.minor, s.tag, s.version) == ("2.13", "cu126", "2.13.0")
    assert s.command() == "pip install torch==2.13.0+cu126 --index-url https://download.pytorch.org/whl/cu126"
    # The stable build the driver fully supports comes before the newer experimental one.
    assert tables.suggest_build("2.13.0+cpu", driver="580.95.05").tag == "cu130"
    # Blackwell on torch 2.6: no 2.6 build has sm_120, so the newest release that does.
    s = tables.suggest_build("2.6.0+cu124", ccs=["12.0"], python="3.12")
    assert s.version is None and s.command().startswith('pip install "torch==2.15.*"')
    # An R470 driver and Python 3.11: the newest torch with a CUDA 11.8 build.
    assert tables.suggest_build("2.13.0", driver="470.82.01", python="3.11").minor == "2.7"
    # Compute capability 3.5 (Tesla K40) has kernels in no wheel after torch 1.3.0 (sm_35 until 1.3.0,
    # sm_37 from 1.3.1: pytorch/builder 2aac90bd); 1.3's find-links install is its latest patch, 1.3.1,
    # so the newest minor to offer is 1.2; with Python 3.8, none at all.
    s = tables.suggest_build("2.6.0", ccs=["3.5"])
    assert (s.minor, s.tag) == ("1.2", "cu100") and s.command().startswith("pip install torch==1.2.0")
    assert tables.suggest_build("2.6.0", ccs=["3.5"], python="3.8") is None
    # A GTX 1080 beside an RTX 5090: torch 1.5's compute_37 PTX would JIT for the 5090, but its CUDA 10.2
    # libraries have nothing for Blackwell, so no single build serves both.
    assert tables.suggest_build("2.8.0+cu128", ccs=["6.1", "12.0"], python="3.7") is None


@pytest.mark.parametrize("installed,driver,python,ccs,command", [
    # torch 1.4's PyPI wheel is CUDA 10.1 (418.39); an R410 driver runs the CUDA 9.2 build of the same release.
    ("1.4.0", "410.48", "3.7", ["7.5"], "pip install torch==1.4.0+cu92 -f https://download.pytorch.org/whl/torch_stable.html"),
    # The other way round: the +cu92 build on a driver that runs 10.1 gets PyPI's wheel back.
    ("1.4.0+cu92", "440.33", "3.7", [], "pip install --force-reinstall torch==1.4.0"),
    # torch 1.7.1's CUDA 11.0 build on an R440 driver: its CUDA 10.2 build, which has sm_60 for a GTX 1080.
    ("1.7.1+cu110", "440.100", "3.8", ["6.1"], "pip install --force-reinstall torch==1.7.1 "),
    # An R390 driver (CUDA 9.1) and torch 1.5: no 1.2-1.7 build runs there; 1.1's CUDA 9.0 wheel does, and
    # it is named like PyPI's wheel of another CUDA, so only its own folder may be asked.
    ("1.5.0", "390.77", "3.7", ["6.1"],
     "pip install torch==1.1.0 --no-index -f https://download.pytorch.org/whl/cu90/torch_stable.html"),
    # An R384 driver and torch 0.4.1 on Python 3.6: the same release's CUDA 9.0 wheel, from its own folder.
    ("0.4.1", "384.130", "3.6", ["6.1"], "pip install torch==0.4.1 --no-index -f https://download.pytorch.org/whl/cu90/torch_stable.html"),
])
def test_suggest_build_for_old_releases_and_drivers(installed, driver, python, ccs, command):
    s = tables.suggest_build(installed, driver=driver, python=python, ccs=ccs, exclude_tag=tables.local_tag(installed))
    assert s is not None and (s.command() + " ").startswith(command)


def test_first_toolkit_per_architecture():
    rows = load("cuda_driver")["arch_first_toolkit"]["rows"]
    assert all(r["status"] in STATUSES and r["source"] for r in rows)
    assert [tables.first_toolkit(cc) for cc in ("6.1", "7.0", "7.5", "8.0", "8.6", "8.9", "9.0", "10.3", "12.1")] == [
        "8.0", "9.0", "10.0", "11.0", "11.1", "11.8", "11.8", "12.8", "12.8"]
    assert tables.first_toolkit("5.2") is None  # no row: the rule is not applied


def test_ptx_only_reaches_a_gpu_when_the_builds_cuda_knows_it():
    assert tables.ptx_only_predates("compute_37", "8.6", "10.2") == "11.1"  # a cu102 build on an RTX 3080
    assert tables.ptx_only_predates("compute_37", "12.0", "11.8") == "12.8"  # a cu118 build on an RTX 5090
    assert tables.ptx_only_predates("compute_37", "8.6", None) == "11.1"  # unknown CUDA: torch's warning stands
    assert tables.ptx_only_predates("compute_90", "12.0", "12.8") is None  # a 12.8 build knows Blackwell
    assert tables.ptx_only_predates("compute_120", "12.1", "12.8") is None  # same major: not this rule
    assert tables.ptx_only_predates("sm_80", "8.6", "11.0") is None  # SASS of the same major runs


def test_windows_arch_lists_are_for_shipped_builds():
    rows = load("torch_releases")["arch_lists_windows"]["rows"]
    shipped = {(r["torch"], b["tag"]) for r in tables.releases() for b in r["cuda_builds"]}
    keys = [(r["torch"], r["tag"]) for r in rows]
    assert len(set(keys)) == len(keys) and set(keys) <= shipped
    for r in rows:
        assert r["status"] in STATUSES and r["source"].startswith("pytorch/builder ")
        assert all(re.fullmatch(r"\d+\.\d(\+PTX)?", a) for a in r["archs"])
    # The Windows wheels kept sm_61 and compute_37 PTX where the Linux ones did not.
    assert tables.arch_list_for("2.0.1", "cu118", "Windows") == [
        "sm_37", "compute_37", "sm_50", "sm_60", "sm_61", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"]
    assert tables.arch_list_for("2.5.1", "cu124", "Windows")[-1] == "sm_90"
    assert tables.arch_list_for("2.7.0", "cu126", "Windows") is None  # from 2.6 in pytorch/pytorch: not read


def test_pytorchs_oldest_architecture_per_build_holds_from_its_release_on():
    assert tables.release_min_cc("2.8.0", "cu128") == "7.0"
    assert tables.release_min_cc("2.10.1+cu129", "cu129") == "7.0"
    assert tables.release_min_cc("2.7.1", "cu128") is None  # before the recorded policy
    assert tables.release_min_cc("2.8.0", "cu126") is None  # cu126 kept Maxwell and Pascal
    # Never above what a known Linux arch list of the same build starts at.
    for r in load("torch_releases")["arch_lists"]["rows"]:
        floor = tables.release_min_cc(r["torch"], r["tag"])
        if floor:
            assert min(tables.cc_int(a.split("+")[0]) for a in r["archs"]) >= tables.cc_int(floor), r
