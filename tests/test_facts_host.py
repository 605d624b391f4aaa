"""Collectors of the host sections: host, extensions, nv_cache, env, network.

Fake trees live in tmp_path; the few things that cannot be faked by path (statvfs, rlimits) are
monkeypatched. Live processes are real child processes started and killed here.
"""

from __future__ import annotations

import os
import resource
import socket
import sys
import time
from types import SimpleNamespace

import pytest

from torchdoctor.facts import Target
from torchdoctor.facts import env_vars, extensions, host, network, nv_cache
from torchdoctor.facts.model import Facts, PythonFacts

from ext_dirs import make_build_dir, start_sleeper, stop

LINUX = PythonFacts(system="Linux")


def target(tmp_path, **environ) -> Target:
    return Target(environ=environ, home=str(tmp_path / "home"))


# --------------------------------------------------------------------------- host

def test_shm_size_and_free_come_from_statvfs(tmp_path, monkeypatch):
    (tmp_path / "dev" / "shm").mkdir(parents=True)
    seen = []

    def fake_statvfs(path):
        seen.append(path)
        return SimpleNamespace(f_blocks=16384, f_bavail=4096, f_frsize=4096)

    monkeypatch.setattr(host.os, "statvfs", fake_statvfs)
    assert host.shm(str(tmp_path)) == (64 << 20, 16 << 20)
    assert seen == [str(tmp_path / "dev" / "shm")]


def test_no_dev_shm_is_none(tmp_path):
    assert host.shm(str(tmp_path)) == (None, None)


def test_cgroup_v2_limit_and_max(tmp_path):
    (tmp_path / "proc" / "self").mkdir(parents=True)
    (tmp_path / "proc" / "self" / "cgroup").write_text("0::/\n")
    fs = tmp_path / "sys" / "fs" / "cgroup"
    fs.mkdir(parents=True)
    (fs / "cgroup.controllers").write_text("cpu memory\n")
    (fs / "memory.max").write_text("8589934592\n")
    assert host.cgroup_memory_limit(str(tmp_path)) == 8 << 30
    (fs / "memory.max").write_text("max\n")
    assert host.cgroup_memory_limit(str(tmp_path)) is None


def test_cgroup_v2_nested_takes_the_tightest_ancestor(tmp_path):
    (tmp_path / "proc" / "self").mkdir(parents=True)
    (tmp_path / "proc" / "self" / "cgroup").write_text("0::/user.slice/job.scope\n")
    fs = tmp_path / "sys" / "fs" / "cgroup"
    (fs / "user.slice" / "job.scope").mkdir(parents=True)
    (fs / "cgroup.controllers").write_text("memory\n")
    (fs / "user.slice" / "memory.max").write_text("4294967296\n")
    (fs / "user.slice" / "job.scope" / "memory.max").write_text("max\n")
    assert host.cgroup_memory_limit(str(tmp_path)) == 4 << 30


def test_cgroup_v1_huge_value_is_no_limit(tmp_path):
    (tmp_path / "proc" / "self").mkdir(parents=True)
    (tmp_path / "proc" / "self" / "cgroup").write_text("4:memory:/docker/abc\n0::/\n")
    mem = tmp_path / "sys" / "fs" / "cgroup" / "memory"
    mem.mkdir(parents=True)
    (mem / "memory.limit_in_bytes").write_text("9223372036854771712\n")
    assert host.cgroup_memory_limit(str(tmp_path)) is None
    (mem / "memory.limit_in_bytes").write_text("2147483648\n")  # the container's own, at the top
    assert host.cgroup_memory_limit(str(tmp_path)) == 2 << 30


def test_host_collect_limits_unlimited_memlock_is_none(tmp_path, monkeypatch):
    real = resource.getrlimit

    def fake(which):
        if which == resource.RLIMIT_MEMLOCK:
            return resource.RLIM_INFINITY, resource.RLIM_INFINITY
        if which == resource.RLIMIT_NOFILE:
            return 1024, 1048576
        return real(which)

    monkeypatch.setattr(host.resource, "getrlimit", fake)
    facts = host.collect(target(tmp_path), LINUX, root=str(tmp_path))
    assert (facts.nofile_soft, facts.nofile_hard, facts.memlock_soft) == (1024, 1048576, None)
    assert facts.shm_total_bytes is None and facts.cgroup_memory_limit_bytes is None
    assert facts.memory_total_bytes > 0 and facts.cpu_count >= 1
    # The section survives the JSON round trip.
    assert Facts.from_json(Facts(host=facts).to_json()).host == facts


# --------------------------------------------------------------------------- extensions

def test_build_roots_follow_torch_extensions_dir_and_xdg(tmp_path):
    ext = tmp_path / "ext"
    xdg = tmp_path / "xdg"
    (xdg / "torch_extensions").mkdir(parents=True)
    ext.mkdir()
    roots = extensions.build_roots({"TORCH_EXTENSIONS_DIR": str(ext), "XDG_CACHE_HOME": str(xdg)},
                                   str(tmp_path / "home"), "Linux")
    assert roots == [str(ext), str(xdg / "torch_extensions")]
    # Default: ~/.cache/torch_extensions, only when it exists.
    assert extensions.build_roots({}, str(tmp_path / "home"), "Linux") == []
    (tmp_path / "home" / ".cache" / "torch_extensions").mkdir(parents=True)
    assert extensions.build_roots({}, str(tmp_path / "home"), "Linux") == [
        str(tmp_path / "home" / ".cache" / "torch_extensions")]


def test_locks_are_found_two_levels_deep_and_no_deeper(tmp_path):
    root = tmp_path / "home" / ".cache" / "torch_extensions"
    make_build_dir(root, "fused_adam")  # root/py311_cu128/fused_adam/lock
    make_build_dir(root, "old_style", folder=None)  # root/old_style/lock (old torch, or TORCH_EXTENSIONS_DIR)
    make_build_dir(root, "clean", lock=False)
    deep = root / "py311_cu128" / "fused_adam" / "build" / "sub"
    deep.mkdir(parents=True)
    (deep / "lock").write_text("")  # three levels down: not a build lock
    facts = extensions.collect(target(tmp_path), LINUX)
    paths = sorted(lk.path for lk in facts.locks)
    assert paths == [str(root / "old_style" / "lock"), str(root / "py311_cu128" / "fused_adam" / "lock")]
    lock = next(lk for lk in facts.locks if "fused_adam" in lk.path)
    st = os.stat(lock.path)
    assert (lock.inode, lock.mtime) == (st.st_ino, st.st_mtime)
    assert 3500 < lock.age_s < 3700
    assert lock.holders == []


def test_a_process_working_in_the_build_dir_holds_it_until_it_dies(tmp_path):
    root = tmp_path / "home" / ".cache" / "torch_extensions"
    d = make_build_dir(root)
    proc = start_sleeper(cwd=d)
    try:
        facts = extensions.collect(target(tmp_path), LINUX)
        assert facts.locks[0].holders == [proc.pid]
    finally:
        stop(proc)
    facts = extensions.collect(target(tmp_path), LINUX)
    assert facts.locks[0].holders == [], "a killed builder leaves a stale lock"


def test_a_process_with_the_lock_open_holds_it(tmp_path):
    root = tmp_path / "home" / ".cache" / "torch_extensions"
    d = make_build_dir(root)
    proc = start_sleeper(cwd=tmp_path, hold=str(d / "lock"))
    try:
        assert extensions.holders(str(d)) == [proc.pid]
    finally:
        stop(proc)


def test_a_command_line_naming_the_build_dir_holds_it_but_a_sibling_prefix_does_not(tmp_path):
    root = tmp_path / "home" / ".cache" / "torch_extensions"
    d = make_build_dir(root, "ext")
    sibling = make_build_dir(root, "ext_v2")
    proc = start_sleeper(cwd=tmp_path, argv_extra=(f"-I{sibling}/include",))
    try:
        assert extensions.holders(str(d)) == []
        assert extensions.holders(str(sibling)) == [proc.pid]
    finally:
        stop(proc)


def test_build_evidence_is_a_lock_or_torch_cuda_arch_list_and_nothing_else(tmp_path):
    root = tmp_path / "home" / ".cache" / "torch_extensions"
    make_build_dir(root, "clean", lock=False)  # built here once, nothing under way
    assert extensions.collect(target(tmp_path, CUDA_HOME="/usr/local/cuda"), LINUX).build_evidence == []
    evidence = extensions.collect(target(tmp_path, TORCH_CUDA_ARCH_LIST="8.0;9.0+PTX"), LINUX).build_evidence
    assert evidence == ["TORCH_CUDA_ARCH_LIST=8.0;9.0+PTX is set (only extension builds read it)"]
    make_build_dir(root, "fused_adam")
    evidence = extensions.collect(target(tmp_path), LINUX).build_evidence
    assert evidence == [f"build lock {root / 'py311_cu128' / 'fused_adam' / 'lock'} (no process holds it)"]


def test_extensions_section_round_trips(tmp_path):
    make_build_dir(tmp_path / "ext")
    facts = extensions.collect(target(tmp_path, TORCH_EXTENSIONS_DIR=str(tmp_path / "ext")), LINUX)
    assert facts.build_dirs == 2  # py311_cu128 and py311_cu128/fused_adam
    assert Facts.from_json(Facts(extensions=facts).to_json()).extensions == facts


# --------------------------------------------------------------------------- nv_cache

def test_nv_cache_size_writable_and_disabled(tmp_path):
    cache = tmp_path / "home" / ".nv" / "ComputeCache"
    (cache / "a" / "b").mkdir(parents=True)
    (cache / "a" / "b" / "blob").write_bytes(b"x" * 1000)
    (cache / "index").write_bytes(b"y" * 24)
    facts = nv_cache.collect(target(tmp_path, CUDA_CACHE_DISABLE="1"), LINUX)
    assert facts.path == str(cache)
    assert (facts.exists, facts.size_bytes, facts.size_complete, facts.writable, facts.disabled) == (
        True, 1024, True, True, True)


def test_nv_cache_absent_uses_nearest_parent_and_cuda_cache_path(tmp_path, monkeypatch):
    checked = []

    def fake_access(path, mode):
        checked.append(path)
        return False  # a read-only HOME

    monkeypatch.setattr(nv_cache.os, "access", fake_access)
    (tmp_path / "ro").mkdir()
    facts = nv_cache.collect(target(tmp_path, CUDA_CACHE_PATH=str(tmp_path / "ro" / "nv" / "cache")), LINUX)
    assert (facts.exists, facts.size_bytes, facts.writable, facts.disabled) == (False, None, False, False)
    assert checked == [str(tmp_path / "ro")]


def test_nv_cache_walk_is_bounded(tmp_path):
    for i in range(30):
        (tmp_path / f"f{i}").write_bytes(b"z" * 10)
    assert nv_cache.tree_size(str(tmp_path), max_files=10) == (100, False)
    assert nv_cache.tree_size(str(tmp_path)) == (300, True)


# --------------------------------------------------------------------------- env

def test_env_keeps_behaviour_changing_variables_only():
    environ = {"CUDA_VISIBLE_DEVICES": "0,1", "NCCL_DEBUG": "INFO", "LD_LIBRARY_PATH": "/usr/local/cuda/lib64",
               "MASTER_PORT": "29500", "HOME": "/root", "PATH": "/usr/bin", "EDITOR": "vim", "RANKING": "x"}
    assert env_vars.select(environ) == {"CUDA_VISIBLE_DEVICES": "0,1", "LD_LIBRARY_PATH": "/usr/local/cuda/lib64",
                                        "MASTER_PORT": "29500", "NCCL_DEBUG": "INFO"}


@pytest.mark.parametrize("name", ["TORCH_API_KEY", "NCCL_AUTH_TOKEN", "PYTORCH_SECRET", "CUDA_PASSWORD",
                                  "TORCH_HUB_TOKEN", "TORCHELASTIC_CREDENTIALS", "TRITON_KEY"])
def test_secret_values_are_redacted(name):
    assert env_vars.select({name: "hunter2"}) == {name: "<redacted>"}


@pytest.mark.parametrize("name", ["TORCH_MONKEY_PATCH", "NCCL_IB_PKEY", "CUDA_KEYBOARD", "TORCH_APIS"])
def test_names_merely_containing_a_secret_word_stay_readable(name):
    assert env_vars.select({name: "1"}) == {name: "1"}


def test_env_collect_reads_the_target_environment_not_ours(tmp_path, monkeypatch):
    monkeypatch.setenv("NCCL_DEBUG", "TRACE")
    assert env_vars.collect(target(tmp_path, TORCH_LOGS="+dynamo"), LINUX).variables == {"TORCH_LOGS": "+dynamo"}


# --------------------------------------------------------------------------- network

def _listening_socket(reuse=False):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1 if reuse else 0)
    s.bind(("0.0.0.0", 0))
    s.listen(1)
    return s


def test_a_port_we_hold_is_reported_in_use_with_its_holder(tmp_path):
    with _listening_socket() as s:
        port = s.getsockname()[1]
        facts = network.collect(target(tmp_path, MASTER_PORT=str(port)), LINUX)
        assert (facts.master_port, facts.master_port_raw, facts.master_port_in_use) == (port, str(port), True)
        if sys.platform.startswith("linux"):  # /proc shows our own sockets' owner without privileges
            assert facts.master_port_holder.startswith(f"pid {os.getpid()} (")
    facts = network.collect(target(tmp_path, MASTER_PORT=str(port)), LINUX)
    assert facts.master_port_in_use is False and facts.master_port_holder is None


def test_time_wait_leftovers_do_not_count_as_in_use():
    # A finished run leaves the server side of its connections in TIME_WAIT. torch's store binds
    # with SO_REUSEADDR (as this listener does), so those do not stop the next run.
    with _listening_socket(reuse=True) as server:
        port = server.getsockname()[1]
        client = socket.create_connection(("127.0.0.1", port))
        conn, _ = server.accept()
        conn.close()  # the server side closes first: it goes to TIME_WAIT
        client.close()
    time.sleep(0.1)
    strict_refused = network._bind(port, reuse=False) != 0
    assert network.port_in_use(port) is False
    if sys.platform.startswith("linux"):
        assert strict_refused, "the test did not leave a TIME_WAIT connection behind"


@pytest.mark.parametrize("raw", ["29500x", "", "0", "70000", "-1"])
def test_invalid_master_port_is_kept_raw(tmp_path, raw):
    facts = network.collect(target(tmp_path, MASTER_PORT=raw), LINUX)
    assert (facts.master_port, facts.master_port_raw, facts.master_port_in_use) == (None, raw, None)


def test_unset_master_port_and_interfaces(tmp_path):
    facts = network.collect(target(tmp_path), LINUX)
    assert (facts.master_port, facts.master_port_raw, facts.master_port_in_use) == (None, None, None)
    names = {i.name: i for i in facts.interfaces}
    assert any(name.startswith("lo") for name in names)
    lo = next(i for n, i in names.items() if n.startswith("lo"))
    assert lo.up and "127.0.0.1" in lo.addresses
    assert Facts.from_json(Facts(network=facts).to_json()).network == facts
