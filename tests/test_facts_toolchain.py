"""The toolchain collector against fake nvcc/gcc/ninja scripts, fake CUDA homes and fake
LD_LIBRARY_PATH directories; nothing here depends on what this machine has installed."""

from __future__ import annotations

import dataclasses
import os
import shlex
import stat
from pathlib import Path

import pytest

from torchdoctor.facts import Target, toolchain
from torchdoctor.facts.model import Facts, ToolchainFacts, TorchFacts, known
from torchdoctor.registry import find_env_check
from torchdoctor.runner import run_check

NVCC_124 = """nvcc: NVIDIA (R) Cuda compiler driver
Copyright (c) 2005-2024 NVIDIA Corporation
Built on Thu_Mar_28_02:18:24_PDT_2024
Cuda compilation tools, release 12.4, V12.4.131
Build cuda_12.4.r12.4/compiler.34097967_0"""


def script(path: Path, body: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path


def echo(path: Path, text: str) -> Path:
    # Shell builtins only: the fake PATH has no /bin.
    return script(path, "printf '%s\\n' " + shlex.quote(text))


@pytest.fixture
def machine(tmp_path, monkeypatch):
    """A bare machine: an empty PATH directory and no default /usr/local/cuda."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    monkeypatch.setattr(toolchain, "DEFAULT_CUDA_HOME", str(tmp_path / "no-cuda"))
    monkeypatch.setattr(toolchain, "LD_SO_CONF", str(tmp_path / "no-ld.so.conf"))  # this machine's stays out
    return tmp_path


def collect(env: dict[str, str]) -> ToolchainFacts:
    return toolchain.collect(Target(environ=env))


def cuda_home(root: Path, text: str = NVCC_124) -> Path:
    echo(root / "bin" / "nvcc", text)
    return root


def test_cuda_home_wins_and_its_nvcc_is_run(machine):
    home = cuda_home(machine / "cuda-12.4")
    other = cuda_home(machine / "cuda-13.0", "Cuda compilation tools, release 13.0, V13.0.88")
    facts = collect({"PATH": str(other / "bin"), "CUDA_HOME": str(home), "CUDA_PATH": str(other)})
    assert (facts.cuda_home, facts.cuda_home_source, facts.cuda_home_exists) == (str(home), "CUDA_HOME", True)
    assert facts.nvcc_path == str(home / "bin" / "nvcc")
    assert facts.nvcc_version == "12.4"


def test_cuda_path_when_cuda_home_is_unset_or_empty(machine):
    home = cuda_home(machine / "cuda")
    for env in ({"CUDA_PATH": str(home)}, {"CUDA_HOME": "", "CUDA_PATH": str(home)}):
        facts = collect({"PATH": str(machine / "bin"), **env})
        assert (facts.cuda_home, facts.cuda_home_source) == (str(home), "CUDA_PATH")


def test_nvcc_on_path_gives_its_grandparent(machine):
    home = cuda_home(machine / "opt" / "cuda-12.4")
    facts = collect({"PATH": f"{machine / 'bin'}:{home / 'bin'}"})
    assert (facts.cuda_home, facts.cuda_home_source, facts.nvcc_version) == (str(home), "nvcc on PATH", "12.4")


def test_an_nvcc_wrapper_on_path_gives_what_torch_would_pick(machine):
    # /usr/local/bin/nvcc wrapping the real one: torch takes /usr/local as CUDA_HOME, and so do we.
    real = cuda_home(machine / "cuda-13.0", "Cuda compilation tools, release 13.0, V13.0.88")
    script(machine / "local" / "bin" / "nvcc", f'exec {real / "bin" / "nvcc"} "$@"')
    facts = collect({"PATH": str(machine / "local" / "bin")})
    assert (facts.cuda_home, facts.nvcc_version) == (str(machine / "local"), "13.0")


def test_default_cuda_home(machine, monkeypatch):
    home = cuda_home(machine / "usr-local-cuda")
    monkeypatch.setattr(toolchain, "DEFAULT_CUDA_HOME", str(home))
    facts = collect({"PATH": str(machine / "bin")})
    assert (facts.cuda_home, facts.cuda_home_source, facts.nvcc_version) == (str(home), str(home), "12.4")


def test_no_cuda_anywhere(machine):
    facts = collect({"PATH": str(machine / "bin")})
    assert (facts.cuda_home, facts.cuda_home_source, facts.cuda_home_exists) == (None, None, False)
    assert facts.nvcc_path is None and facts.nvcc_version is None


def test_empty_cuda_path_stops_the_search_like_torch(machine):
    cuda_home(machine / "cuda")
    facts = collect({"PATH": str(machine / "cuda" / "bin"), "CUDA_PATH": ""})
    assert (facts.cuda_home, facts.cuda_home_source) == (None, "CUDA_PATH")


def test_cuda_home_that_does_not_exist(machine):
    facts = collect({"PATH": str(machine / "bin"), "CUDA_HOME": str(machine / "gone")})
    assert (facts.cuda_home, facts.cuda_home_exists, facts.nvcc_path) == (str(machine / "gone"), False, None)


def test_cuda_home_without_nvcc(machine):
    (machine / "cuda" / "lib64").mkdir(parents=True)
    facts = collect({"PATH": str(machine / "bin"), "CUDA_HOME": str(machine / "cuda")})
    assert facts.cuda_home_exists is True and facts.nvcc_path is None and facts.nvcc_version is None


def test_a_hanging_nvcc_times_out(machine, monkeypatch):
    monkeypatch.setattr(toolchain, "NVCC_TIMEOUT", 0.2)
    home = machine / "cuda"
    script(home / "bin" / "nvcc", "while :; do :; done")
    facts = collect({"PATH": str(machine / "bin"), "CUDA_HOME": str(home)})
    assert facts.nvcc_path == str(home / "bin" / "nvcc") and facts.nvcc_version is None


@pytest.mark.parametrize("text,release", [
    ("Cuda compilation tools, release 13.0, V13.0.88", "13.0"),
    (NVCC_124, "12.4"),
    ("Cuda compilation tools, release 11.4, V11.4.48", "11.4"),
    ("nvcc fatal: something broke", None),
    ("", None),
])
def test_nvcc_release(text, release):
    assert toolchain.nvcc_release(text) == release


def test_gcc_and_ninja(machine):
    bin_dir = machine / "bin"
    script(bin_dir / "gcc", 'case "$1" in -dumpfullversion) echo 11.4.0;; *) exit 1;; esac')
    echo(bin_dir / "ninja", "1.11.1.git.kitware.jobserver-1")
    facts = collect({"PATH": str(bin_dir)})
    assert (facts.gcc_path, facts.gcc_version) == (str(bin_dir / "gcc"), "11.4.0")
    assert (facts.ninja_path, facts.ninja_version) == (str(bin_dir / "ninja"), "1.11.1.git.kitware.jobserver-1")


def test_cc_naming_a_gcc_is_the_compiler_nvcc_gets(machine):
    bin_dir = machine / "bin"
    echo(bin_dir / "gcc", "14.2.0")
    echo(bin_dir / "gcc-13", "13.3.0")
    assert collect({"PATH": str(bin_dir), "CC": "gcc-13"}).gcc_version == "13.3.0"
    assert collect({"PATH": str(bin_dir), "CC": "clang"}).gcc_version == "14.2.0"


def test_no_gcc_no_ninja(machine):
    facts = collect({"PATH": str(machine / "bin")})
    assert (facts.gcc_path, facts.gcc_version, facts.ninja_path, facts.ninja_version) == (None, None, None, None)


def touch(directory: Path, *names: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    for name in names:
        (directory / name).write_bytes(b"")
    return directory


def test_ld_library_path_cuda_libraries(machine):
    cuda = touch(machine / "cuda-12.1" / "lib64", "libcudart.so.12.1.105", "libcublasLt.so.12.1.3.1",
                 "libnvJitLink.so.12.1.105", "libcudart_static.a", "libfoo.so.1", "libcudadebugger.so.1")
    os.symlink("libnvJitLink.so.12.1.105", cuda / "libnvJitLink.so.12")
    cudnn = touch(machine / "cudnn" / "lib", "libcudnn.so.9.1.0", "libcudnn_ops.so.9.1.0", "libcudnn.so")
    plain = touch(machine / "other", "libz.so.1")
    ld = ":".join([str(cuda), "", str(cudnn), str(plain), str(machine / "missing"), str(cuda)])
    facts = collect({"PATH": str(machine / "bin"), "LD_LIBRARY_PATH": ld})
    assert facts.ld_library_path == [str(cuda), str(cudnn), str(plain), str(machine / "missing")]
    dirs = {d.path: d for d in facts.ld_cuda_lib_dirs}
    assert list(dirs) == [str(cuda), str(cudnn)]  # only directories that hold CUDA libraries
    assert dirs[str(cuda)].libraries == {
        "libcublasLt.so.12.1.3.1": "12.1.3.1",
        "libcudart.so.12.1.105": "12.1.105",
        "libnvJitLink.so.12": "12.1.105",  # the symlink's target says more than its name
        "libnvJitLink.so.12.1.105": "12.1.105",
    }
    assert dirs[str(cudnn)].libraries == {"libcudnn.so": "", "libcudnn.so.9.1.0": "9.1.0", "libcudnn_ops.so.9.1.0": "9.1.0"}
    assert {d.origin for d in facts.ld_cuda_lib_dirs} == {"LD_LIBRARY_PATH"}
    assert facts.compat_libcuda == []


def test_compat_libcuda(machine):
    compat = touch(machine / "cuda-13.0" / "compat", "libcuda.so.1", "libcuda.so.580.95.05", "libnvidia-ptxjitcompiler.so.1")
    system = touch(machine / "usr-lib", "libcuda.so.1")
    facts = collect({"PATH": str(machine / "bin"), "LD_LIBRARY_PATH": f"{compat}:{system}"})
    assert facts.compat_libcuda == [str(compat / "libcuda.so.1"), str(compat / "libcuda.so.580.95.05")]


def test_compat_libcuda_set_up_through_ldconfig(machine, monkeypatch):
    # NGC-style: cuda-compat named in /etc/ld.so.conf.d, not on LD_LIBRARY_PATH.
    compat = touch(machine / "cuda-12.8" / "compat", "libcuda.so.1", "libcuda.so.570.124.06")
    conf_d = machine / "ld.so.conf.d"
    conf_d.mkdir()
    (conf_d / "000_cuda.conf").write_text(f"# cuda-compat\n{compat}\n")
    (conf_d / "libc.conf").write_text("/usr/local/lib\n")
    (machine / "ld.so.conf").write_text("include ld.so.conf.d/*.conf\n")
    monkeypatch.setattr(toolchain, "LD_SO_CONF", str(machine / "ld.so.conf"))
    facts = collect({"PATH": str(machine / "bin")})
    assert facts.compat_libcuda == [str(compat / "libcuda.so.1"), str(compat / "libcuda.so.570.124.06")]


def test_no_compat_in_the_loader_configuration(machine, monkeypatch):
    (machine / "ld.so.conf").write_text("/usr/local/lib\n/usr/lib/x86_64-linux-gnu\n")
    monkeypatch.setattr(toolchain, "LD_SO_CONF", str(machine / "ld.so.conf"))
    assert collect({"PATH": str(machine / "bin")}).compat_libcuda == []


def test_facts_round_trip_through_json(machine):
    cudnn = touch(machine / "cudnn", "libcudnn.so.8.9.7")
    facts = collect({"PATH": str(machine / "bin"), "LD_LIBRARY_PATH": str(cudnn)})
    again = Facts.from_json({"toolchain": Facts(toolchain=facts).to_json()["toolchain"]}, strict=True)
    assert again.toolchain == facts


def test_this_machine_end_to_end():
    # Whatever is installed here (or on CI): collecting fills every field, and TE208 reads it.
    facts = toolchain.collect(Target())
    assert all(known(getattr(facts, f.name)) for f in dataclasses.fields(facts))
    assert facts.nvcc_version is None or facts.nvcc_version.count(".") == 1
    check = find_env_check("TE208")
    finding = run_check(check, Facts(toolchain=facts, torch=TorchFacts(version="2.13.0+cpu", cuda=None)))
    assert finding.status.value in ("ok", "warning", "error"), finding.message
