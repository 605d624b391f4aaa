"""Issue 14 item 1: a torchvision that cannot be imported must not pass as healthy.

The CUDA build of torchvision/torchaudio is read from the libraries their extension links and
from version.py; where the probe child imports torch it imports them too, and a failing import is
the answer. explain --env must not cite an OK that could not see the failure as proof of health.
"""

from __future__ import annotations

import os
import sys
import textwrap
from pathlib import Path

import pytest

from elf_fixture import write_elf
from torchdoctor.facts import Target, elf, torch_probe
from torchdoctor.facts.model import Facts, PythonFacts, known
from torchdoctor.facts.packages import family_builds
from torchdoctor.kb.matcher import Match
from torchdoctor.model import Finding, Status
from torchdoctor.registry import find_env_check
from torchdoctor.runner import run_check


def _site(tmp_path: Path, tv_version: str, needed: list[str], init: str = "") -> Path:
    site = tmp_path / "site"
    pkg = site / "torchvision"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text(textwrap.dedent(init))
    (pkg / "version.py").write_text(f"__version__ = '{tv_version}'\ngit_version = 'abc'\n"
                                    "from torchvision.extension import _check_cuda_version\n")
    write_elf(pkg / "_C.so", needed)
    (site / "torchvision-0.28.0.dist-info").mkdir()
    (site / "torchvision-0.28.0.dist-info" / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: torchvision\nVersion: 0.28.0\nRequires-Dist: torch==2.13.0\n\n")
    return site


def _te103(facts: Facts) -> Finding:
    return run_check(find_env_check("TE103"), facts)


def _facts(site: Path, torch: dict | None = None) -> Facts:
    from torchdoctor.facts import packages

    p = packages.collect(None, PythonFacts(sys_path=[str(site)]))
    data = Facts(packages=p).to_json()["packages"]
    data["distributions"].insert(0, {"name": "torch", "version": "2.13.0+cpu", "location": str(site)})
    data["torch_version_file"] = {"path": f"{site}/torch/version.py", "version": "2.13.0+cpu", "cuda": None}
    return Facts.partial(packages=data, **({"torch": torch} if torch else {}))


def test_elf_reader_on_a_real_library_and_on_garbage(tmp_path):
    libm = next((p for p in ("/lib/x86_64-linux-gnu/libm.so.6", "/usr/lib/x86_64-linux-gnu/libm.so.6",
                             "/lib64/libm.so.6") if os.path.exists(p)), None)
    if libm:
        assert "libc.so.6" in elf.needed(libm)
    (tmp_path / "not.so").write_bytes(b"\x7fELF" + os.urandom(200))
    assert elf.needed(str(tmp_path / "not.so")) in (None, [])
    (tmp_path / "text.so").write_text("INPUT(-lfoo)")
    assert elf.needed(str(tmp_path / "text.so")) is None
    for wide in (True, False):
        for big in (True, False):
            path = write_elf(tmp_path / f"x{wide}{big}.so", ["libc10_cuda.so", "libcudart.so.13"], wide=wide, big_endian=big)
            assert elf.needed(str(path)) == ["libc10_cuda.so", "libcudart.so.13"]


def test_pypi_cuda_torchvision_beside_cpu_torch_is_an_error_without_importing(tmp_path):
    """The issue's case: metadata says 0.28.0 (no +cu130), torch is +cpu. Before: '✓ match'."""
    site = _site(tmp_path, "0.28.0+cu130", ["libc10.so", "libc10_cuda.so", "libtorch_cpu.so", "libcudart.so.13"])
    builds = family_builds([str(site)])
    assert [(b.name, b.version) for b in builds] == [("torchvision", "0.28.0+cu130")]
    assert "libcudart.so.13" in builds[0].needed
    finding = _te103(_facts(site))
    assert finding.status is Status.ERROR, finding.message
    assert "CUDA 13 build" in finding.message and "CPU build" in finding.message
    assert "whl/cpu" in finding.fix.commands[0] and "torch==2.13.0" in finding.fix.commands[0]


def test_matching_cpu_build_stays_ok_but_says_what_it_did_not_see(tmp_path):
    site = _site(tmp_path, "0.28.0+cpu", ["libc10.so", "libtorch_cpu.so"])
    finding = _te103(_facts(site))
    assert finding.status is Status.OK, finding.message
    assert "import torchvision was not tried" in finding.unseen  # quick facts: no child import
    assert "unseen" in finding.to_json()


def test_the_child_imports_torchvision_and_its_failure_is_the_answer(tmp_path):
    site = _site(tmp_path, "0.28.0", ["libc10.so", "libtorch_cpu.so"],
                 init="raise RuntimeError('operator torchvision::nms does not exist')\n")
    torch_pkg = site / "torch"
    torch_pkg.mkdir()
    (torch_pkg / "__init__.py").write_text("__version__ = '2.13.0+cpu'\nclass version:\n    cuda = None\n    hip = None\n")
    env = {**os.environ, "PYTHONPATH": str(site)}
    t = torch_probe.collect(Target(python=sys.executable, is_current=False, environ=env, probe_timeout=60),
                            PythonFacts())
    assert t.import_status == "ok", t.stderr_tail
    # only torchvision is judged: a machine may also carry torchaudio, which this fake torch cannot import
    assert [(i.name, i.ok, i.error_type) for i in t.family_imports if i.name == "torchvision"] == [
        ("torchvision", False, "RuntimeError")]
    finding = _te103(_facts(site, torch=Facts(torch=t).to_json()["torch"]))
    assert finding.status is Status.ERROR
    assert "import torchvision fails" in finding.message
    assert "operator torchvision::nms does not exist" in finding.evidence["import torchvision"]


def test_a_torchvision_that_imports_is_ok_without_unseen(tmp_path):
    site = _site(tmp_path, "0.28.0+cpu", ["libc10.so", "libtorch_cpu.so"], init="__version__ = '0.28.0+cpu'\n")
    torch = {"import_status": "ok", "version": "2.13.0+cpu", "cuda": None, "hip": None,
             "family_imports": [{"name": "torchvision", "ok": True, "version": "0.28.0+cpu"}]}
    finding = _te103(_facts(site, torch=torch))
    assert finding.status is Status.OK and finding.unseen == ""
    assert "import torchvision works" in finding.message


def test_explain_env_does_not_cite_a_blind_ok_as_health():
    from torchdoctor.cli.explain import weigh_with_env as _weigh_with_env
    from torchdoctor.kb import load
    from torchdoctor.render.explain import env_notes

    entry = load().entry("torchvision-torch-mismatch")
    match = Match(id=entry.id, title=entry.title, confidence=0.9, captures={}, evidence=[], entry=entry)
    blind = Finding("TE103", "torch-family-mismatch", "Python & packages", Status.OK, "t",
                    "torchvision 0.28.0 matches torch 2.13.0+cpu", unseen="import torchvision was not tried (--quick)")
    seeing = Finding("TE103", "torch-family-mismatch", "Python & packages", Status.OK, "t",
                     "torchvision 0.28.0 matches torch 2.13.0+cpu; import torchvision works beside it")
    assert [n["verdict"] for n in env_notes(match, [blind])] == ["not ruled out"]
    assert [n["verdict"] for n in env_notes(match, [seeing])] == ["healthy"]
    assert _weigh_with_env([match], [blind])[0].confidence == pytest.approx(0.9)
    assert _weigh_with_env([match], [seeing])[0].confidence < 0.9
