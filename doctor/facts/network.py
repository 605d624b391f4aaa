"""Network facts for distributed runs: this host's interfaces and whether MASTER_PORT is free.

The port test binds a socket on this host and closes it again: no listen, no traffic, nothing
leaves the machine.
"""

from __future__ import annotations

import errno
import socket
import sys

from .model import NetworkFacts, NetworkInterface, PythonFacts


def interfaces() -> list[NetworkInterface]:
    import psutil

    stats = psutil.net_if_stats()
    addrs = psutil.net_if_addrs()
    out = []
    for name in sorted(set(stats) | set(addrs)):
        st = stats.get(name)
        addresses = [a.address.split("%")[0] for a in addrs.get(name, ())
                     if a.family in (socket.AF_INET, socket.AF_INET6)]
        out.append(NetworkInterface(name=name, up=bool(st and st.isup), addresses=addresses))
    return out


def parse_port(raw: str | None) -> int | None:
    if raw is None:
        return None
    try:
        port = int(raw.strip())
    except ValueError:
        return None
    return port if 1 <= port <= 65535 else None


def _bind(port: int, reuse: bool) -> int | None:
    """0 when 0.0.0.0:port could be bound, else the errno."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1 if reuse else 0)
        try:
            s.bind(("0.0.0.0", port))
        except OSError as exc:
            return exc.errno or -1
    return 0


def port_in_use(port: int) -> bool | None:
    """True: something on this host holds the port; None: cannot tell (a privileged port).

    The strict test binds without SO_REUSEADDR. On Linux a refusal is tried again with it, the way
    torch's TCPStore binds: connections of a finished run lingering in TIME_WAIT block only the
    strict bind, and do not stop the next run from listening.
    """
    err = _bind(port, reuse=False)
    if err == errno.EADDRINUSE and sys.platform.startswith("linux"):
        err = _bind(port, reuse=True)
    if err == 0:
        return False
    if err == errno.EADDRINUSE:
        return True
    return None


def port_holder(port: int) -> str | None:
    """'pid 1234 (python)' for the process listening on the port, when the OS lets us see it."""
    import psutil

    try:
        conns = psutil.net_connections(kind="tcp")
    except (psutil.AccessDenied, OSError):
        return None
    ranked = sorted((c for c in conns if c.laddr and c.laddr.port == port),
                    key=lambda c: (c.status != psutil.CONN_LISTEN, c.pid is None))
    for c in ranked:
        if c.pid is None:
            continue
        try:
            name = psutil.Process(c.pid).name()
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            return f"pid {c.pid}"
        return f"pid {c.pid} ({name})"
    return None


def collect(target, python: PythonFacts) -> NetworkFacts:
    raw = target.environ.get("MASTER_PORT")
    port = parse_port(raw)
    in_use = port_in_use(port) if port is not None else None
    return NetworkFacts(
        interfaces=interfaces(),
        master_port=port,
        master_port_raw=raw,
        master_port_in_use=in_use,
        master_port_holder=port_holder(port) if in_use else None,
    )
