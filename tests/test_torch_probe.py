"""The torch probe against fake torch packages (a tmp folder first on PYTHONPATH of the child) and
against the real CPU torch the tests install. torch is never imported in this process."""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from torchdoctor.facts import Target
from torchdoctor.facts import torch_probe
from torchdoctor.facts._run import Ran
from torchdoctor.facts.model import Facts, PythonFacts, TorchFacts, Unknown, known
from torchdoctor.registry import find_env_check
from torchdoctor.runner import run_check

NO_PYTHON = PythonFacts()


def fake_torch(root: Path, init: str, files: dict[str, str] | None = None) -> Path:
    pkg = root / "torch"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text(textwrap.dedent(init))
    for name, text in (files or {}).items():
        path = pkg / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return root


def probe(root: Path | None, timeout: float = 30.0, python: str = sys.executable) -> TorchFacts:
    env = dict(os.environ)
    if root is not None:
        env["PYTHONPATH"] = str(root)
    return torch_probe.collect(Target(python=python, is_current=False, environ=env, probe_timeout=timeout), NO_PYTHON)


def te101(torch: TorchFacts, **sections):
    return run_check(find_env_check("TE101"), Facts(torch=torch, **sections))


def test_import_error_is_reported_with_its_traceback(tmp_path):
    root = fake_torch(tmp_path, """
        raise OSError("libcudnn.so.9: cannot open shared object file: No such file or directory")
    """)
    t = probe(root)
    assert t.import_status == "import-error"
    assert t.error_type == "OSError"
    assert t.error_message == "libcudnn.so.9: cannot open shared object file: No such file or directory"
    assert str(root / "torch" / "__init__.py") in t.traceback
    assert t.signal is None
    assert not known(t.version) and "import-error" in t.version.reason
    finding = te101(t)
    assert finding.status.value == "error"
    assert "libcudnn.so.9" in finding.message and "nvidia-cudnn" in finding.message
    assert "cuda-libs-conflict" in finding.related


def test_segfault_is_a_crash_with_the_faulthandler_stack(tmp_path):
    root = fake_torch(tmp_path, """
        import os, signal
        os.kill(os.getpid(), signal.SIGSEGV)
    """)
    t = probe(root)
    assert t.import_status == "crashed"
    assert t.signal == signal.SIGSEGV
    assert "Segmentation fault" in t.stderr_tail
    assert str(root / "torch" / "__init__.py") in t.stderr_tail  # faulthandler names the frame
    finding = te101(t)
    assert finding.status.value == "error" and "SIGSEGV" in finding.message
    assert "torch/__init__.py" in finding.message


def test_hang_is_a_timeout_with_the_stack_where_it_hung(tmp_path):
    root = fake_torch(tmp_path, """
        import time
        time.sleep(60)
    """)
    start = time.perf_counter()
    t = probe(root, timeout=2)
    assert time.perf_counter() - start < 10
    assert t.import_status == "timeout"
    assert "2s" in t.error_message
    assert "Timeout" in t.stderr_tail and str(root / "torch" / "__init__.py") in t.stderr_tail
    assert te101(t).status.value == "error"


WORKING_TORCH = """
    import sys, types, warnings
    from . import version
    from .version import __version__
    print("torch says hello on stdout {not json}")
    sys.stderr.write("torch says hello on stderr\\n")
    warnings.warn("CUDA initialization: The NVIDIA driver on your system is too old (found version 11040)")
    _C = types.SimpleNamespace(
        _GLIBCXX_USE_CXX11_ABI=True,
        _cuda_getArchFlags=lambda: "sm_75 sm_80 sm_86 sm_90 sm_100 sm_120 compute_120",
        _cudnn=types.SimpleNamespace(getCompileVersion=lambda: (9, 10, 2), getRuntimeVersion=lambda: (9, 10, 2)),
        _nccl_version=lambda: 0,
    )
    from . import cuda
"""
WORKING_FILES = {
    "version.py": """
        from typing import Optional
        __version__ = '2.99.0+cu128'
        debug = False
        cuda: Optional[str] = '12.8'
        git_version = '0123456789abcdef'
        hip: Optional[str] = None
    """,
    "cuda/__init__.py": """
        def is_available():
            return False
        def device_count():
            return 0
    """,
    "cuda/nccl.py": """
        def version():
            return (2, 27, 5)
    """,
}


def test_a_working_fake_torch_reports_every_fact(tmp_path):
    root = fake_torch(tmp_path, WORKING_TORCH, WORKING_FILES)
    t = probe(root)
    assert t.import_status == "ok", t
    assert t.version == "2.99.0+cu128"
    assert t.file == str(root / "torch" / "__init__.py")
    assert (t.cuda, t.hip, t.debug, t.git_version) == ("12.8", None, False, "0123456789abcdef")
    assert (t.cudnn_compiled, t.cudnn_runtime, t.nccl) == ("9.10.2", "9.10.2", "2.27.5")
    assert t.arch_list == ["sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120", "compute_120"]
    assert t.cxx11_abi is True
    assert (t.cuda_available, t.device_count) == (False, 0)
    assert t.warnings == ["UserWarning: CUDA initialization: The NVIDIA driver on your system is too old "
                          "(found version 11040)"]
    assert "torch says hello on stderr" in t.stderr_tail
    assert isinstance(t.loaded_libraries, list)
    assert (t.error_type, t.error_message, t.traceback, t.signal) == (None, None, None, None)
    assert t.duration_s > 0
    assert te101(t).status.value == "ok"


def test_a_fake_without_the_optional_attributes(tmp_path):
    root = fake_torch(tmp_path, "__version__ = '1.0.0'\n")
    t = probe(root)
    assert t.import_status == "ok"
    assert t.version == "1.0.0"
    assert t.cudnn_compiled is None and t.nccl is None
    assert not known(t.cxx11_abi) and "AttributeError" in t.cxx11_abi.reason
    assert not known(t.cuda_available)


def test_a_torch_folder_in_the_current_directory_is_not_imported(tmp_path, monkeypatch):
    fake_torch(tmp_path, "raise OSError('the source checkout, not the installed torch')\n")
    monkeypatch.chdir(tmp_path)
    t = probe(None)
    assert t.import_status in ("ok", "not-installed"), t.error_message
    assert "source checkout" not in str(t.error_message)


def test_torch_not_installed(tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    t = torch_probe.collect(Target(python=str(venv / "bin" / "python"), is_current=False, environ=env), NO_PYTHON)
    assert t.import_status == "not-installed"
    assert not known(t.version) and "not installed" in t.version.reason
    assert te101(t).status.value == "warning"  # an interpreter without torch cannot train


def test_could_not_run_the_interpreter(tmp_path):
    t = probe(None, python=str(tmp_path / "gone"))
    assert not known(t.import_status) and "could not run" in t.import_status.reason


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="the tests install torch 2.13.0+cpu")
def test_the_real_cpu_torch():
    t = torch_probe.collect(Target(probe_timeout=120), NO_PYTHON)
    assert t.import_status == "ok", t.stderr_tail
    assert t.version == "2.13.0+cpu"
    assert t.cuda is None and t.hip is None
    assert t.arch_list == []
    assert t.cudnn_compiled is None and t.nccl is None
    assert isinstance(t.cxx11_abi, bool)
    assert (t.cuda_available, t.device_count) == (False, 0)
    assert t.file.endswith(os.path.join("torch", "__init__.py"))


# --------------------------------------------------------------------------- quick mode

def test_quick_mode_reads_version_py_and_runs_nothing(tmp_path):
    fake_torch(tmp_path, "raise SystemExit('quick mode must not import this')\n", {"version.py": WORKING_FILES["version.py"]})
    t = torch_probe.collect(Target(python="/nonexistent/python", quick=True), PythonFacts(sys_path=[str(tmp_path)]))
    assert t.import_status == Unknown("not collected with --quick")
    assert (t.version, t.cuda, t.hip, t.git_version, t.debug) == ("2.99.0+cu128", "12.8", None, "0123456789abcdef", False)
    assert t.arch_list == Unknown("not collected with --quick")
    assert t.file == Unknown("not collected with --quick")


def test_quick_mode_without_torch(tmp_path):
    t = torch_probe.collect(Target(quick=True), PythonFacts(sys_path=[str(tmp_path)]))
    assert t.import_status == "not-installed"
    assert t.error_message is None


# --------------------------------------------------------------------------- reading the child's answer

M = "@@torchdoctor-0123456789abcdef@@"


def test_the_last_complete_payload_wins_over_stray_output():
    out = f'noise {{"a": 1}}\n{M}{{"import_status": "ok", "stage": "cuda", "version": "1"}}{M}\n' \
          f'{M}{{"import_status": "ok", "stage": "done", "version": "2", "warnings": []}}{M}\nmore noise'
    t = torch_probe.interpret(Ran(0, out, ""), M, 1.0, 60)
    assert t.version == "2" and t.warnings == []


def test_a_hang_in_cuda_is_available_after_a_good_import():
    out = f'{M}{{"import_status": "ok", "stage": "cuda", "version": "2.13.0", "warnings": [], ' \
          f'"error_type": null, "error_message": null, "traceback": null, "signal": null}}{M}\n'
    t = torch_probe.interpret(Ran(None, out, "Timeout (0:00:55)!\n  File \"x.py\", line 3 in is_available\n",
                                  "timed out after 60s"), M, 60.0, 60)
    assert t.import_status == "ok" and t.version == "2.13.0"
    assert not known(t.cuda_available) and "did not return within 60s" in t.cuda_available.reason
    assert any("is_available" in w for w in t.warnings)


def test_exit_without_an_answer_is_a_crash():
    t = torch_probe.interpret(Ran(3, "", "boom"), M, 0.5, 60)
    assert t.import_status == "crashed" and t.signal is None and "status 3" in t.error_message
    t = torch_probe.interpret(Ran(-signal.SIGABRT, "", "Fatal Python error: Aborted"), M, 0.5, 60)
    assert t.import_status == "crashed" and t.signal == signal.SIGABRT and "SIGABRT" in t.error_message


@pytest.mark.parametrize("module", ["_pyprobe", "_torch_child"])
def test_child_code_parses_as_python_3_8(module):
    import ast

    path = Path(importlib.util.find_spec(f"torchdoctor.facts.{module}").origin)
    ast.parse(path.read_text(), feature_version=(3, 8))
