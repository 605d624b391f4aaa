import ipaddress

from torchdoctor.facts.model import known
from torchdoctor.model import Fix, error, ok, skip
from torchdoctor.registry import Example, env_check

FREE_PORT = "python -c \"import socket; s = socket.socket(); s.bind(('', 0)); print(s.getsockname()[1])\""


def _net(port, raw=None, in_use=False, holder=None, addresses=("10.0.0.5",)):
    return {"network": {
        "interfaces": [{"name": "eth0", "up": True, "addresses": list(addresses)}],
        "master_port": port, "master_port_raw": raw if raw is not None else (None if port is None else str(port)),
        "master_port_in_use": in_use, "master_port_holder": holder}}


@env_check(
    code="TE302",
    name="master-port-in-use",
    title="MASTER_PORT is free on this host",
    area="distributed",
    needs=("network.master_port",),
    examples=[
        Example("error", _net(29500, in_use=True, holder="pid 4242 (python)"),
                "a previous run still holds the port", contains="pid 4242 (python)"),
        Example("error", _net(29500, in_use=True), "held by a process we cannot see", contains="ss -ltnp"),
        Example("error", _net(None, raw="29500x"), "not a port number", contains="'29500x'"),
        Example("error", _net(None, raw="70000"), "out of range", contains="1-65535"),
        Example("ok", {**_net(29500, in_use=True), "env": {"variables": {"MASTER_ADDR": "10.0.0.9"}}},
                "the master is another host: this host's port does not matter"),
        Example("error", {**_net(29500, in_use=True), "env": {"variables": {"MASTER_ADDR": "10.0.0.5"}}},
                "MASTER_ADDR is one of this host's addresses"),
        Example("ok", _net(29500), "set and free"),
        Example("ok", _net(None), "not set", contains="not set"),
        Example("skip", _net(80, in_use=None), "a privileged port cannot be tested without root"),
    ],
)
def master_port_in_use(facts):
    """
    ## What it checks
    `MASTER_PORT`: that it is a valid port number, and whether a process on this host already
    holds it (tested by binding it locally for an instant; nothing is sent anywhere).

    ## Why it matters
    The rank-0 process of `torchrun` or `init_process_group(init_method="env://")` listens on
    `MASTER_ADDR:MASTER_PORT`. When a previous run that did not exit (or another user's job) still
    holds the port, the new run fails with `Address already in use` / `The server socket has
    failed to listen on any local network address`, or its ranks join the old run's store. A value
    that is not a number fails at start-up.

    ## How to fix
    Stop the process that holds the port (`ss -ltnp 'sport = :PORT'` names it), or choose
    another port: `export MASTER_PORT=<free port>`, or `torchrun --master_port <free port>`.
    """
    net = facts.network
    port = net.master_port
    raw = net.master_port_raw if known(net.master_port_raw) else None
    if port is None:
        if raw is None:
            return ok("MASTER_PORT not set")
        return error(f"MASTER_PORT={raw!r} is not a port number (1-65535): the launcher fails at start-up",
                     fix=Fix("Set MASTER_PORT to a free port number", (FREE_PORT, "export MASTER_PORT=29500")),
                     evidence={"MASTER_PORT": raw}, related=("dist-env-missing",))
    in_use = net.master_port_in_use if known(net.master_port_in_use) else None
    if in_use is None:
        return skip(f"could not test whether port {port} is free (ports below 1024 need root)", MASTER_PORT=port)
    if not in_use:
        return ok(f"MASTER_PORT {port} is free on this host")
    master = _master_elsewhere(facts)
    if master:
        return ok(f"port {port} is in use here, but MASTER_ADDR={master} is another host: only that host listens "
                  "on MASTER_PORT", MASTER_PORT=port)
    holder = net.master_port_holder if known(net.master_port_holder) else None
    who = holder or "a process torchdoctor cannot see (another user's?)"
    return error(f"MASTER_PORT {port} is already in use on this host by {who}: the next launch fails with "
                 "'Address already in use'",
                 fix=Fix("Stop the process that holds the port, or launch on another port",
                         (f"ss -ltnp 'sport = :{port}'", FREE_PORT,
                          "export MASTER_PORT=<the free port>  # or: torchrun --master_port <the free port> ...")),
                 evidence={"MASTER_PORT": port, "held by": holder or "unknown"}, related=("dist-port-in-use",))


def _master_elsewhere(facts) -> str | None:
    """MASTER_ADDR when it is an IP address that none of this host's interfaces has.

    A host name could be this host under another name and cannot be resolved offline: it counts
    as this host, so the finding stays.
    """
    variables = facts.get("env.variables")
    interfaces = facts.get("network.interfaces")
    addr = variables.get("MASTER_ADDR", "").strip() if known(variables) else ""
    if not addr or not known(interfaces):
        return None
    try:
        ip = ipaddress.ip_address(addr)
    except ValueError:
        return None
    if ip.is_loopback or ip.is_unspecified:
        return None
    own = {_normal(a) for i in interfaces for a in i.addresses}
    return None if str(ip) in own else addr


def _normal(address: str) -> str:
    try:
        return str(ipaddress.ip_address(address))
    except ValueError:
        return address
