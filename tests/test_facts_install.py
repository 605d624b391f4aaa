"""The interpreter and package collectors against fake site-packages trees and fake interpreters.
Nothing here imports torch; the trees are written into tmp_path."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest

from torchdoctor.facts import Target
from torchdoctor.facts import packages, python_env
from torchdoctor.facts.model import Facts, PythonFacts, Unknown, encode, known
from torchdoctor.registry import find_env_check
from torchdoctor.runner import run_check


# --------------------------------------------------------------------------- fake trees

def dist_info(site: Path, name: str, version: str, requires=(), requires_python=None, installer="pip",
              editable: str | None = None, extra_headers: str = "") -> Path:
    folder = site / f"{name.replace('-', '_')}-{version}.dist-info"
    folder.mkdir(parents=True)
    lines = ["Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}"]
    if extra_headers:
        lines.append(extra_headers)
    if requires_python:
        lines.append(f"Requires-Python: {requires_python}")
    lines += [f"Requires-Dist: {r}" for r in requires]
    (folder / "METADATA").write_text("\n".join(lines) + "\n\nA long description.\nRequires-Dist: not-a-header\n")
    if installer:
        (folder / "INSTALLER").write_text(installer + "\n")
    if editable:
        (folder / "direct_url.json").write_text(json.dumps({"url": Path(editable).as_uri(),
                                                            "dir_info": {"editable": True}}))
    return folder


def torch_package(site: Path, version: str, cuda: str | None = None) -> Path:
    pkg = site / "torch"
    pkg.mkdir(parents=True, exist_ok=True)
    (pkg / "__init__.py").write_text("raise ImportError('never imported by the collectors')\n")
    (pkg / "version.py").write_text(
        "from typing import Optional\n\n"
        "__all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip']\n"
        f"__version__ = {version!r}\n"
        "debug = False\n"
        f"cuda: Optional[str] = {cuda!r}\n"
        "git_version = 'cf30153c4c131c8164ee7798e5022d810682e2cb'\n"
        "hip: Optional[str] = None\n")
    return pkg


def torch_install(site: Path, version: str, cuda: str | None = None, **kw) -> None:
    dist_info(site, "torch", version, requires=["filelock", "typing-extensions>=4.10.0"], requires_python=">=3.10", **kw)
    torch_package(site, version, cuda)


def python_facts(*sys_path: Path | str) -> PythonFacts:
    return PythonFacts(sys_path=[str(p) for p in sys_path])


# --------------------------------------------------------------------------- packages

def test_keeps_the_torch_family_and_what_requires_torch(tmp_path):
    site = tmp_path / "site-packages"
    torch_install(site, "2.13.0+cu130", cuda="13.0")
    dist_info(site, "torchvision", "0.28.0+cu130", requires=["numpy", "torch==2.13.0", "pillow!=8.3.*,>=5.3.0"])
    dist_info(site, "numpy", "2.3.4")
    dist_info(site, "nvidia-cudnn-cu13", "9.20.0.48")
    dist_info(site, "cuda-bindings", "13.0.3")
    dist_info(site, "lightning", "2.5.0", requires=["torch<4.0,>=2.1.0", "pyyaml"])
    dist_info(site, "requests", "2.32.3", requires=["urllib3<3,>=1.21.1"])
    dist_info(site, "uses-torch-optionally", "1.0", requires=['torch>=2; extra == "gpu"'])

    facts = packages.collect(Target(), python_facts(site))
    names = [d.name for d in facts.distributions]
    assert names == ["cuda-bindings", "lightning", "numpy", "nvidia-cudnn-cu13", "torch", "torchvision"]
    torch = next(d for d in facts.distributions if d.name == "torch")
    assert torch.version == "2.13.0+cu130"
    assert torch.location == str(site)
    assert torch.requires_python == ">=3.10"
    assert torch.installer == "pip"
    assert torch.requires == ["filelock", "typing-extensions>=4.10.0"]  # the body is not read as headers
    assert facts.torch_version_file.version == "2.13.0+cu130"
    assert facts.torch_version_file.cuda == "13.0"
    assert facts.torch_version_file.hip is None
    assert facts.torch_version_file.debug is False
    assert facts.torch_version_file.git_version.startswith("cf30153c")


def test_duplicates_are_kept_in_sys_path_order(tmp_path):
    user_site, venv_site = tmp_path / "user", tmp_path / "venv"
    torch_install(user_site, "2.8.0")
    torch_install(venv_site, "2.6.0")
    facts = packages.collect(Target(), python_facts(user_site, venv_site))
    assert [(d.name, d.version, d.location) for d in facts.distributions] == [
        ("torch", "2.8.0", str(user_site)), ("torch", "2.6.0", str(venv_site))]
    assert facts.torch_version_file.path == str(user_site / "torch" / "version.py")  # what import picks

    finding = run_check(find_env_check("TE102"), Facts(packages=facts))
    assert finding.status.value == "warning"
    assert "2.6.0" in finding.message and str(user_site) in finding.message


def test_half_upgraded_torch_is_an_error(tmp_path):
    site = tmp_path / "site-packages"
    dist_info(site, "torch", "2.8.0")  # pip wrote the new metadata ...
    torch_package(site, "2.6.0")  # ... but the files are still the old ones
    facts = packages.collect(Target(), python_facts(site))
    assert facts.torch_version_file.version == "2.6.0"
    finding = run_check(find_env_check("TE102"), Facts(packages=facts))
    assert finding.status.value == "error"
    assert "half-upgraded" in finding.message
    assert any("--force-reinstall torch==2.8.0" in c for c in finding.fix.commands)


def test_two_dist_infos_in_one_folder(tmp_path):
    site = tmp_path / "site-packages"
    torch_install(site, "2.8.0")
    dist_info(site, "torch", "2.6.0")
    facts = packages.collect(Target(), python_facts(site))
    assert [d.version for d in facts.distributions] == ["2.6.0", "2.8.0"]
    assert run_check(find_env_check("TE102"), Facts(packages=facts)).status.value == "error"


def test_a_symlinked_site_packages_is_counted_once(tmp_path):
    lib = tmp_path / "lib" / "site-packages"
    torch_install(lib, "2.13.0")
    (tmp_path / "lib64").symlink_to(tmp_path / "lib")
    facts = packages.collect(Target(), python_facts(lib, tmp_path / "lib64" / "site-packages", tmp_path / "missing", ""))
    assert len(facts.distributions) == 1
    assert run_check(find_env_check("TE102"), Facts(packages=facts)).status.value == "ok"


def test_egg_info_folder_and_file(tmp_path):
    src = tmp_path / "src"
    egg = src / "torch.egg-info"
    egg.mkdir(parents=True)
    (egg / "PKG-INFO").write_text("Metadata-Version: 2.1\nName: torch\nVersion: 2.14.0a0+git1234abc\n\n")
    (egg / "requires.txt").write_text("filelock\nsympy>=1.13\n\n[opt-einsum]\nopt-einsum>=3.3\n")
    torch_package(src, "2.14.0a0+git1234abc")
    site = tmp_path / "site"
    site.mkdir()
    (site / "xformers-0.0.28.egg-info").write_text("Metadata-Version: 1.0\nName: xformers\nVersion: 0.0.28\n")
    facts = packages.collect(Target(), python_facts(src, site))
    torch, xformers = facts.distributions
    assert (torch.name, torch.version, torch.requires) == ("torch", "2.14.0a0+git1234abc", ["filelock", "sympy>=1.13"])
    assert torch.installer is None
    assert (xformers.name, xformers.version) == ("xformers", "0.0.28")


def test_editable_install_is_recorded_and_not_reported_as_shadowing(tmp_path):
    site, project = tmp_path / "site", tmp_path / "pytorch"
    dist_info(site, "torch", "2.14.0a0+git1234abc", editable=str(project))
    torch_package(project, "2.14.0a0+git1234abc")
    facts = packages.collect(Target(), python_facts(site, project))  # the .pth put the project on sys.path
    assert facts.distributions[0].editable == str(project)
    assert run_check(find_env_check("TE102"), Facts(packages=facts)).status.value == "ok"


def test_long_headers_and_odd_metadata(tmp_path):
    site = tmp_path / "site"
    license_text = "License: BSD\n" + "".join(f"        line {i} of a bundled license text\n" for i in range(3000))
    dist_info(site, "numpy", "1.26.4", extra_headers=license_text.rstrip("\n"), requires_python=">=3.9")
    broken = site / "torchvision-0.21.0.dist-info"
    broken.mkdir()
    (broken / "METADATA").write_text("")  # an interrupted install: the name comes from the folder
    facts = packages.collect(Target(), python_facts(site))
    numpy, vision = facts.distributions
    assert numpy.requires_python == ">=3.9"
    assert (vision.name, vision.version) == ("torchvision", "0.21.0")


def test_torch_version_file_read_as_text(tmp_path):
    pkg = torch_package(tmp_path, "2.5.1+cu124", cuda="12.4")
    vf = packages.read_torch_version_file(str(pkg / "version.py"))
    assert (vf.version, vf.cuda, vf.debug) == ("2.5.1+cu124", "12.4", False)
    (pkg / "version.py").write_text("__version__ = (\n")  # truncated by a full disk
    assert packages.read_torch_version_file(str(pkg / "version.py")).version is None
    assert packages.read_torch_version_file(str(tmp_path / "nope.py")).version is None
    assert packages.torch_version_file([str(tmp_path / "empty")]) is None


def test_pip_cuda_library_folders(tmp_path):
    site = tmp_path / "site"
    dist_info(site, "nvidia-cudnn-cu12", "9.10.2.21")
    dist_info(site, "nvidia-cublas", "13.1.0.3")
    dist_info(site, "nvidia-cuda-runtime", "13.0.96")
    for sub, files in {"cudnn": ["libcudnn.so.9", "libcudnn_adv.so.9", "__init__.py"],
                       "cu13": ["libcublas.so.13", "libcudart.so.13.0.96", "libnvrtc-builtins.so.13.0"],
                       "nvtx": []}.items():
        lib = site / "nvidia" / sub / "lib"
        lib.mkdir(parents=True)
        for f in files:
            (lib / f).write_text("")
    facts = packages.collect(Target(), python_facts(site))
    dirs = {Path(d.path).parent.name: d for d in facts.pip_cuda_lib_dirs}
    assert set(dirs) == {"cudnn", "cu13"}  # nvtx has no libraries
    assert dirs["cudnn"].libraries == {"libcudnn.so.9": "9", "libcudnn_adv.so.9": "9"}
    assert dirs["cudnn"].origin == "pip:nvidia-cudnn-cu12"
    assert dirs["cu13"].libraries["libcudart.so.13.0.96"] == "13.0.96"
    assert dirs["cu13"].libraries["libnvrtc-builtins.so.13.0"] == "13.0"
    assert dirs["cu13"].origin == "pip:nvidia/cu13"


def test_unknown_sys_path_leaves_packages_unknown():
    facts = packages.collect(Target(), PythonFacts(sys_path=Unknown("probe failed")))
    assert not known(facts.distributions) and "probe failed" in facts.distributions.reason


def test_facts_round_trip_through_json(tmp_path):
    site = tmp_path / "site"
    torch_install(site, "2.13.0+cpu")
    facts = Facts(packages=packages.collect(Target(), python_facts(site)))
    assert Facts.from_json(json.loads(json.dumps(facts.to_json()))).packages == facts.packages


# --------------------------------------------------------------------------- the interpreter

def test_current_interpreter_in_process():
    facts = python_env.collect(Target())
    assert facts.executable == sys.executable
    assert facts.version == "%d.%d.%d" % sys.version_info[:3]
    assert facts.implementation == "CPython" or facts.implementation
    assert facts.prefix == sys.prefix
    assert isinstance(facts.free_threaded, bool) and isinstance(facts.wsl, bool)
    assert "" not in facts.sys_path
    assert any(p.endswith("site-packages") for p in facts.sys_path)
    assert facts.virtual_env == (sys.prefix if sys.prefix != sys.base_prefix else None)


def test_another_interpreter_reports_through_a_child():
    env = {**os.environ, "KUBERNETES_SERVICE_HOST": "10.0.0.1", "USER": "ada"}
    facts = python_env.collect(Target(python=sys.executable, is_current=False, environ=env))
    assert facts.executable == sys.executable
    assert facts.version == "%d.%d.%d" % sys.version_info[:3]
    assert facts.prefix == sys.prefix
    assert facts.container == "kubernetes"
    assert facts.user == "ada"
    assert "" not in facts.sys_path and os.getcwd() not in facts.sys_path
    assert any(p.endswith("site-packages") for p in facts.sys_path)
    assert encode(facts) == encode(Facts.from_json({"python": encode(facts)}).python)


def test_target_environment_is_used_in_process_too():
    facts = python_env.collect(Target(environ={"KUBERNETES_SERVICE_HOST": "10.0.0.1", "LOGNAME": "grace"}))
    assert facts.container == "kubernetes" and facts.user == "grace"


def test_a_child_that_prints_junk_still_reports(tmp_path):
    sitecustomize = tmp_path / "sitecustomize.py"
    sitecustomize.write_text("print('hello from sitecustomize {\"not\": json}')\n")
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    facts = python_env.collect(Target(python=sys.executable, is_current=False, environ=env))
    assert facts.version == "%d.%d.%d" % sys.version_info[:3]
    assert str(tmp_path) in facts.sys_path


def test_a_child_that_cannot_report_raises(tmp_path):
    with pytest.raises(RuntimeError, match="did not report"):
        python_env.collect(Target(python=shutil.which("true") or "/bin/true", is_current=False))


@pytest.fixture
def fake_python2(tmp_path) -> Path:
    script = tmp_path / "python2"
    script.write_text(f"#!{sys.executable}\n"
                      "import re, sys\n"
                      "m = re.search(r'@@torchdoctor-[0-9a-f]+@@', sys.argv[-1]).group(0)\n"
                      "sys.stdout.write(m + '2.7.18 /usr/bin/python2' + m)\n")
    script.chmod(0o755)
    return script


def test_validate_interpreter(tmp_path, fake_python2):
    assert python_env.validate_interpreter(sys.executable) is None
    assert python_env.validate_interpreter(os.path.basename(sys.executable)) is None or \
        shutil.which(os.path.basename(sys.executable)) is None

    missing = python_env.validate_interpreter(str(tmp_path / "no-such-python"))
    assert missing == f"--python {tmp_path / 'no-such-python'}: not found"
    assert "not found" in python_env.validate_interpreter("no-such-program-anywhere")

    assert "is a directory" in python_env.validate_interpreter(str(tmp_path))
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").symlink_to(sys.executable)
    assert f"did you mean {venv / 'bin' / 'python'}" in python_env.validate_interpreter(str(venv))

    text = tmp_path / "notes.txt"
    text.write_text("not an interpreter\n")
    assert "not executable" in python_env.validate_interpreter(str(text))
    text.chmod(0o755)  # executable, but no shebang: the kernel refuses it
    assert "is not a Python interpreter" in python_env.validate_interpreter(str(text))

    for program in ("true", "ls"):
        path = shutil.which(program)
        if path:
            assert python_env.validate_interpreter(path) == \
                f"--python {path}: is not a Python interpreter (running it with -c did not report a Python version)"

    old = python_env.validate_interpreter(str(fake_python2))
    assert old == f"--python {fake_python2}: is Python 2.7.18; torchdoctor needs the target to be Python 3.8+"


def test_installed_version_reads_the_metadata_folder_name_only(tmp_path):
    """What `torchdoctor check` learns of the installed torch without importing anything."""
    from torchdoctor.facts.site_dirs import installed_version

    first, second = tmp_path / "a", tmp_path / "b"
    (first / "torchvision-0.20.1.dist-info").mkdir(parents=True)
    (first / "torch_tb_profiler-0.4.3.dist-info").mkdir()
    (second / "torch-2.5.1+cu124.dist-info").mkdir(parents=True)
    assert installed_version("torch", [str(first), str(second)]) == "2.5.1+cu124"
    assert installed_version("torch", [str(first)]) is None  # torchvision and torch_tb_profiler are not torch
    (first / "torch-2.1.0-py3.10.egg-info").mkdir()
    assert installed_version("torch", [str(first), str(second)]) == "2.1.0"  # the first on sys.path wins


def test_a_package_whose_version_is_unknown_is_refused_not_read_as_a_version():
    """A saved facts file may mark any fact unknown, but not a record's own identity: a package
    with an unknown version would reach the checks as a version string (TE204 crashed on one that
    CI's fuzz test wrote). A package whose installer is unknown is still read."""
    from torchdoctor.facts.model import FactsError

    dist = {"name": "nvidia-cudnn-cu12", "version": "9.1.0.70", "location": "/venv/lib/python3.11/site-packages"}
    read = Facts.from_json({"packages": {"distributions": [{**dist, "installer": {"unknown": "not read"}}]}})
    assert read.packages.distributions[0].version == "9.1.0.70"
    assert not known(read.packages.distributions[0].installer)
    with pytest.raises(FactsError, match=r"distributions\[0\]\.version: a required field cannot be unknown"):
        Facts.from_json({"packages": {"distributions": [{**dist, "version": {"unknown": "fuzzed"}}]}})


def test_a_package_whose_version_is_not_a_version_is_refused_in_one_line(tmp_path):
    """The same rule where the facts file's version is a string but not a version ('' from the fuzz
    test): the loader used to make it unknown, and TE204 crashed reading it. A torch version that is
    not one (an optional fact) still becomes unknown with the reason."""
    import subprocess

    seed = json.loads((Path(__file__).parent / "fixtures" / "facts" / "broken-install.json").read_text())
    seed["facts"]["packages"]["distributions"][4]["version"] = ""
    path = tmp_path / "facts.json"
    path.write_text(json.dumps(seed))
    proc = subprocess.run([sys.executable, "-m", "torchdoctor", "env", "--facts", str(path)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.strip().splitlines() == [f"torchdoctor: error: --facts {path}: Distribution.version '' is not a version"]
    seed["facts"]["packages"]["distributions"][4]["version"] = "12.3.1.170"
    seed["facts"]["torch"]["version"] = "not-a-version"
    path.write_text(json.dumps(seed))
    proc = subprocess.run([sys.executable, "-m", "torchdoctor", "env", "--facts", str(path), "--format", "json"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode in (0, 1) and "☠" not in proc.stdout
    assert "'not-a-version' in the saved facts is not a version" in proc.stdout
