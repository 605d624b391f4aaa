"""Which Pythons PyPI has torch wheels for, per OS (doctor/data/torch_pypi_pythons.json, read from PyPI's
file list), refines TE105 where PyTorch's release matrix and its published wheels differ."""

from __future__ import annotations

from torchdoctor.checks.env._install import torch_dist
from torchdoctor.checks.env.python_unsupported import python_unsupported
from torchdoctor.data import load, tables
from torchdoctor.data.pypi_pythons_build import published_pythons
from torchdoctor.facts.model import Facts
from torchdoctor.model import Status


def _check(torch: str, python: str, system: str, imported: bool = False, warnings: list[str] | None = None):
    data = {"python": {"version": python, "system": system}}
    if warnings is None:
        data["packages"] = {"distributions": [torch_dist("torch", torch)]}
        if imported:
            data["torch"] = {"version": torch, "import_status": "ok"}
    else:
        data["torch"] = {"warnings": warnings}
    return python_unsupported(Facts.from_json(data))


def test_table_has_every_minor_and_the_edges_pypi_shows():
    releases = load("torch_pypi_pythons")["releases"]
    assert {"1.0", "1.13", "2.5", "2.13"} <= set(releases)
    assert "3.11" in releases["1.13"]["Linux"] and "3.11" not in releases["1.13"]["Windows"]
    assert "3.13" in releases["2.5"]["Linux"] and "3.13" not in releases["2.5"]["Windows"]
    assert "2.7" in releases["1.0"]["Linux"]
    assert tables.pypi_pythons("2.13.0+cu130", "Linux")[0] == "3.10"
    assert tables.pypi_pythons("2.13.0", None) is None


def test_outside_the_matrix_but_published_is_a_warning_that_says_so():
    finding = _check("1.13.1", "3.11.4", "Linux")
    assert finding.status is Status.WARNING
    assert "PyPI also has torch 1.13 wheels on Linux" in finding.message


def test_outside_the_matrix_and_not_published_stays_an_error():
    finding = _check("1.13.1", "3.11.4", "Windows")
    assert finding.status is Status.ERROR
    assert "no official wheel exists" in finding.message


def test_experimental_python_without_a_wheel_for_this_os():
    finding = _check("2.5.1", "3.13.0", "Windows")
    assert finding.status is Status.WARNING
    assert "PyPI has no torch 2.5 wheel for it on Windows" in finding.message
    linux = _check("2.5.1", "3.13.0", "Linux")
    assert "only as experimental" in linux.message and "PyPI has no" not in linux.message


def test_pip_refusal_is_not_blamed_on_a_python_pypi_has_wheels_for():
    refusal = ["ERROR: Could not find a version that satisfies the requirement torch==1.13.1 (from versions: none)"]
    linux = _check("1.13.1", "3.11.4", "Linux", warnings=refusal)
    assert linux.status is not Status.ERROR, linux.message
    windows = _check("1.13.1", "3.11.4", "Windows", warnings=refusal)
    assert windows.status is Status.ERROR and "3.7–3.10" in windows.message


def test_builder_reads_python_os_and_free_threading_from_file_names():
    files = [{"filename": "torch-2.6.0-cp313-cp313t-manylinux_2_28_x86_64.whl"},
             {"filename": "torch-2.6.0-cp313-cp313-win_amd64.whl"},
             {"filename": "torch-2.6.1-cp39-cp39-macosx_11_0_arm64.whl"},
             {"filename": "torch-2.6.0-cp312-cp312-manylinux1_x86_64.whl", "yanked": "broken"},
             {"filename": "torch-2.6.0.dev20241001-cp312-cp312-manylinux1_x86_64.whl"},
             {"filename": "torch-0.1.2.tar.gz"}]
    assert published_pythons(files) == {"2.6": {"Darwin": ["3.9"], "Linux": ["3.13t"], "Windows": ["3.13"]}}


def test_an_arm_only_wheel_does_not_publish_a_python_for_pcs():
    # torch 1.10.2's only Python 3.10 wheel on PyPI is manylinux2014_aarch64 (pytorch#73813);
    # torch 1.10.x never had 3.10 for x86-64 (pytorch#71112, #71632).
    assert "3.10" not in tables.pypi_pythons("1.10.1", "Linux")
    assert "3.10" not in tables.pypi_pythons("1.10.2", "Linux", "x86_64")
    assert "3.10" in tables.pypi_pythons("1.10.2", "Linux", "aarch64")
    refusal = ["ERROR: Could not find a version that satisfies the requirement torch==1.10.1+cpu (from versions: none)"]
    finding = _check("1.10.1+cpu", "3.10.1", "Linux", warnings=refusal)
    assert finding.status is Status.ERROR and "3.6–3.9" in finding.message, finding.message


def test_a_python_that_came_with_a_later_patch_is_not_published_for_the_earlier_one():
    # torch 1.7.0 had no Python 3.9 wheels; 1.7.1 did.
    assert "3.9" not in tables.pypi_pythons("1.7.0", "Linux")
    assert "3.9" in tables.pypi_pythons("1.7.1", "Linux")
    assert "3.9" in tables.pypi_pythons("1.7", "Linux")  # no patch named: the minor's union


def test_builder_keeps_arm_wheels_apart_and_names_later_patches():
    from torchdoctor.data.pypi_pythons_build import first_patches
    files = [{"filename": "torch-1.10.0-cp39-cp39-manylinux1_x86_64.whl"},
             {"filename": "torch-1.10.2-cp310-cp310-manylinux2014_aarch64.whl"},
             {"filename": "torch-1.10.0-cp39-cp39-manylinux2014_aarch64.whl"},
             {"filename": "torch-1.7.0-cp38-cp38-win_amd64.whl"},
             {"filename": "torch-1.7.1-cp39-cp39-win_amd64.whl"}]
    assert published_pythons(files) == {"1.10": {"Linux": ["3.9"], "Linux-aarch64": ["3.9", "3.10"]},
                                        "1.7": {"Windows": ["3.8", "3.9"]}}
    assert first_patches(files) == {"1.10": {"Linux-aarch64": {"3.10": "1.10.2"}}, "1.7": {"Windows": {"3.9": "1.7.1"}}}


def test_a_listing_that_starts_at_a_release_pypi_published_for_a_newer_python_names_it():
    # torch 1.13's matrix stops at 3.10, but PyPI has its cp311 Linux wheels: a listing starting at 1.13.0 says 3.11.
    refusal = ["ERROR: Could not find a version that satisfies the requirement torch==1.12.1+cu116 (from versions: "
               "1.13.0, 1.13.0+cu116, 1.13.1, 1.13.1+cu116, 2.0.0, 2.0.1)"]
    finding = python_unsupported(Facts.from_json({"torch": {"warnings": refusal}}))
    assert finding.status is Status.WARNING and "Python 3.11 or newer" in finding.message, finding.message
    # A listing that starts at a release adding no newer Python (1.12.1 -> 1.13.0 on Windows, whose 1.13 wheels
    # stop at 3.10) says nothing of the Python there.
    windows = python_unsupported(Facts.from_json({"torch": {"warnings": refusal}, "python": {"system": "Windows"}}))
    assert "Python 3.11 or newer" not in windows.message
