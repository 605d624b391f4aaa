"""What an interpreter says about itself. Standard library only and Python 3.8 syntax: this file is
also sent, as text, to the target interpreter with `python -c` when that is not the current one.
Every probe is guarded; a value that cannot be read is None, never an exception."""

import os
import platform
import site
import socket
import sys
import sysconfig


def _read(path, limit=65536):
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return fh.read(limit)
    except OSError:
        return None


def _os_release():
    for path in ("/etc/os-release", "/usr/lib/os-release"):
        text = _read(path)
        if text is None:
            continue
        for line in text.splitlines():
            key, _, value = line.partition("=")
            if key.strip() == "PRETTY_NAME":
                return value.strip().strip("\"'") or None
    if sys.platform == "darwin":
        release = platform.mac_ver()[0]
        return "macOS " + release if release else None
    if sys.platform == "win32":
        return " ".join(p for p in (platform.system(), platform.release(), platform.version()) if p) or None
    return None


def _container(environ):
    if environ.get("KUBERNETES_SERVICE_HOST"):
        return "kubernetes"
    if os.path.exists("/run/.containerenv"):
        return "podman"
    if os.path.exists("/.dockerenv"):
        return "docker"
    cgroup = (_read("/proc/1/cgroup") or "").lower()
    for needle, kind in (("kubepods", "kubernetes"), ("libpod", "podman"), ("docker", "docker"),
                         ("containerd", "container"), ("lxc", "lxc")):
        if needle in cgroup:
            return kind
    value = environ.get("container")  # set by systemd-nspawn, podman, lxc for the container's processes
    return value or None


def _user(environ):
    for key in ("USER", "LOGNAME", "USERNAME"):
        if environ.get(key):
            return environ[key]
    try:
        import pwd

        return pwd.getpwuid(os.getuid()).pw_name
    except (ImportError, KeyError, AttributeError, OSError):
        return None


def _sys_path(drop_first):
    """sys.path without the entry Python put first for this very run (the probe's cwd for `-c`,
    the torchdoctor script's folder in-process): the user's own script gets its own folder there."""
    path = list(sys.path)
    if drop_first and path and not getattr(sys.flags, "safe_path", False) and not sys.flags.isolated:
        first = path[0]
        main_dir = os.path.dirname(os.path.abspath(sys.argv[0])) if sys.argv and sys.argv[0] else None
        if first in ("", os.getcwd(), main_dir):
            path = path[1:]
    return path


def python_facts(environ, drop_first=True):
    """A dict of PythonFacts fields, JSON-ready."""
    try:
        libc, libc_version = platform.libc_ver()
    except (OSError, ValueError):
        libc, libc_version = "", ""
    base_prefix = getattr(sys, "base_prefix", sys.prefix)
    conda = [p for p in (sys.prefix, base_prefix) if os.path.isdir(os.path.join(p, "conda-meta"))]
    try:
        user_site = site.getusersitepackages()
    except Exception:  # a site module replaced by a distribution
        user_site = None
    proc_version = (_read("/proc/version") or "").lower()
    try:
        hostname = socket.gethostname()
    except OSError:
        hostname = platform.node()
    return {
        "executable": sys.executable,
        "version": platform.python_version(),
        "implementation": platform.python_implementation(),
        "free_threaded": bool(sysconfig.get_config_var("Py_GIL_DISABLED")),
        "platform": platform.platform(),
        "system": platform.system(),
        "machine": platform.machine(),
        "os_release": _os_release(),
        "glibc": libc_version if libc == "glibc" and libc_version else None,
        "container": _container(environ),
        "wsl": "microsoft" in proc_version or os.path.exists("/dev/dxg"),
        "prefix": sys.prefix,
        "virtual_env": sys.prefix if sys.prefix != base_prefix else None,
        "conda_prefix": conda[0] if conda else None,
        "sys_path": _sys_path(drop_first),
        "user_site": user_site,
        "user_site_enabled": bool(site.ENABLE_USER_SITE),
        "hostname": hostname,
        "user": _user(environ),
    }
