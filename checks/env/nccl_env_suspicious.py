from torchdoctor.facts.model import known
from torchdoctor.model import Fix, error, ok, warning
from torchdoctor.registry import Example, env_check

# Transports switched off: legitimate on some machines, slow when left on by habit.
DISABLES = {
    "NCCL_P2P_DISABLE": "GPU-to-GPU copies over NVLink/PCIe are off; traffic between local GPUs goes through host "
                        "memory (needed only where P2P is broken, e.g. some consumer GPUs)",
    "NCCL_IB_DISABLE": "InfiniBand/RoCE is off; traffic between machines falls back to TCP sockets",
    "NCCL_SHM_DISABLE": "the shared-memory transport between local processes is off",
}
# Old names that torch still reads but warns about.
RENAMED = {
    "NCCL_ASYNC_ERROR_HANDLING": "TORCH_NCCL_ASYNC_ERROR_HANDLING",
    "NCCL_BLOCKING_WAIT": "TORCH_NCCL_BLOCKING_WAIT",
    "NCCL_DESYNC_DEBUG": "TORCH_NCCL_DESYNC_DEBUG",
    "NCCL_ENABLE_TIMING": "TORCH_NCCL_ENABLE_TIMING",
}


# Loopback and container/VM bridges: never the interface to suggest for traffic between machines.
_VIRTUAL = ("lo", "docker", "veth", "virbr", "br-", "cni", "flannel", "cali")


def parse_nccl_ifname(value: str) -> tuple[bool, bool, list[str]]:
    """(exclude, exact, prefixes) as NCCL reads NCCL_SOCKET_IFNAME.

    `^` in front excludes the listed interfaces, `=` after it makes the names exact instead of
    prefixes; both apply to the whole comma-separated list; `name:port` ignores the port.
    """
    value = value.strip()
    exclude = value.startswith("^")
    if exclude:
        value = value[1:]
    exact = value.startswith("=")
    if exact:
        value = value[1:]
    names = [item.split(":", 1)[0].strip() for item in value.split(",")]
    return exclude, exact, [n for n in names if n]


def _matches(iface: str, names: list[str], exact: bool) -> bool:
    return any(iface == n if exact else iface.startswith(n) for n in names)


def _net(*ifaces):
    return {"interfaces": [{"name": n, "up": up, "addresses": []} for n, up in ifaces]}


_IFACES = _net(("lo", True), ("eth0", True), ("eth1", False), ("docker0", True))


@env_check(
    code="TE301",
    name="nccl-env-suspicious",
    title="NCCL and Gloo environment variables make sense on this machine",
    area="distributed",
    needs=("env.variables",),
    examples=[
        Example("error", {"env": {"variables": {"NCCL_SOCKET_IFNAME": "ens5"}}, "network": _IFACES},
                "names an interface this machine does not have", contains="ens5"),
        Example("error", {"env": {"variables": {"NCCL_SOCKET_IFNAME": "=eth1"}}, "network": _IFACES},
                "the only interface named is down", contains="down"),
        Example("ok", {"env": {"variables": {"NCCL_SOCKET_IFNAME": "eth"}}, "network": _IFACES},
                "a prefix that matches eth0"),
        Example("ok", {"env": {"variables": {"NCCL_SOCKET_IFNAME": "^docker,lo"}}, "network": _IFACES},
                "exclusions that leave eth0"),
        Example("error", {"env": {"variables": {"NCCL_SOCKET_IFNAME": "^eth,lo,docker"}}, "network": _IFACES},
                "exclusions that leave nothing"),
        Example("warning", {"env": {"variables": {"NCCL_SOCKET_IFNAME": "eth0,ib0"}}, "network": _IFACES},
                "one of two names is missing", contains="ib0"),
        Example("error", {"env": {"variables": {"GLOO_SOCKET_IFNAME": "eth"}}, "network": _IFACES},
                "Gloo wants exact names", contains="GLOO_SOCKET_IFNAME"),
        Example("warning", {"env": {"variables": {"NCCL_P2P_DISABLE": "1"}}},
                "a transport switched off", contains="unset NCCL_P2P_DISABLE"),
        Example("warning", {"env": {"variables": {"NCCL_ASYNC_ERROR_HANDLING": "1"}}},
                "a deprecated name", contains="TORCH_NCCL_ASYNC_ERROR_HANDLING"),
        Example("ok", {"env": {"variables": {"NCCL_P2P_DISABLE": "0", "TORCH_NCCL_BLOCKING_WAIT": "1"}}},
                "set to their defaults / the new names"),
        Example("ok", {"env": {"variables": {}}, "network": _IFACES}, "nothing set"),
    ],
)
def nccl_env_suspicious(facts):
    """
    ## What it checks
    `NCCL_SOCKET_IFNAME` and `GLOO_SOCKET_IFNAME` against this machine's interfaces (NCCL's
    rules: comma-separated prefixes, `^` to exclude, `=` for exact names); transports switched
    off (`NCCL_P2P_DISABLE`, `NCCL_IB_DISABLE`, `NCCL_SHM_DISABLE`); and the old names
    `NCCL_ASYNC_ERROR_HANDLING`, `NCCL_BLOCKING_WAIT` that torch replaced with `TORCH_NCCL_*`.

    ## Why it matters
    An interface name that matches nothing up on this machine stops NCCL during bootstrap
    (`no socket interface found`) or makes `init_process_group` hang; Gloo fails the same way.
    A copied `NCCL_P2P_DISABLE=1` or `NCCL_IB_DISABLE=1` keeps working but moves traffic onto a
    much slower path, with nothing in the logs to say so. The old variable names still work
    today with a deprecation warning, and stop working when torch drops them.

    ## How to fix
    Name an interface that exists and is up (`ip -br link`), or unset the variable and let NCCL
    choose; unset transport switches unless this machine needs them; rename the old variables.
    """
    variables = facts.env.variables
    interfaces = facts.get("network.interfaces")
    interfaces = interfaces if known(interfaces) else None
    errors: list[str] = []
    warnings: list[str] = []
    commands: list[str] = []
    evidence: dict[str, object] = {}

    for var, exact_only in (("NCCL_SOCKET_IFNAME", False), ("GLOO_SOCKET_IFNAME", True)):
        value = variables.get(var)
        if not value or interfaces is None:
            continue
        evidence[var] = value
        evidence["interfaces"] = ", ".join(f"{i.name} ({'up' if i.up else 'down'})" for i in interfaces)
        problem, fatal = _ifname_problem(var, value, interfaces, exact_only)
        if problem:
            (errors if fatal else warnings).append(problem)
            up = [i.name for i in interfaces if i.up and not i.name.startswith(_VIRTUAL)]
            commands.append(f"export {var}={up[0]}  # or another interface that reaches the other nodes"
                            if up else "ip -br link")

    for var, effect in DISABLES.items():
        value = variables.get(var, "").strip()
        if value and value != "0":
            evidence[var] = value
            warnings.append(f"{var}={value}: {effect}")
            commands.append(f"unset {var}  # unless this machine needs it")

    for old, new in RENAMED.items():
        if old in variables:
            evidence[old] = variables[old]
            warnings.append(f"{old} is deprecated: torch reads {new} instead")
            commands.append(f"export {new}=\"${old}\"; unset {old}")

    if not errors and not warnings:
        return ok("NCCL and Gloo variables are consistent with this machine", **evidence)
    message = "; ".join(errors + warnings)
    fix = Fix("Correct or unset the variables (check `ip -br link` for interface names)", tuple(commands))
    if errors:
        return error(message, fix=fix, evidence=evidence, related=("nccl-error",))
    return warning(message, fix=fix, evidence=evidence, related=("nccl-error",))


def _ifname_problem(var, value, interfaces, exact_only) -> tuple[str | None, bool]:
    """(what is wrong, whether NCCL/Gloo cannot start) for one *_SOCKET_IFNAME value."""
    if exact_only:  # Gloo: exact names, comma-separated
        exclude, exact, names = False, True, [n.strip() for n in value.split(",") if n.strip()]
    else:
        exclude, exact, names = parse_nccl_ifname(value)
    if exclude:
        left = [i.name for i in interfaces if i.up and not _matches(i.name, names, exact)]
        if not left:
            return f"{var}={value} excludes every interface that is up on this machine", True
        return None, False
    missing = [n for n in names if not any(_matches(i.name, [n], exact) for i in interfaces)]
    usable = [i.name for i in interfaces if i.up and _matches(i.name, names, exact)]
    down = [n for n in names if n not in missing and not any(i.up and _matches(i.name, [n], exact) for i in interfaces)]
    what = "interface" if exact else "interface name or prefix"
    parts = []
    if missing:
        parts.append(f"no {what} {', '.join(missing)} on this machine")
    if down:
        parts.append(f"{', '.join(down)} is down" if len(down) == 1 else f"{', '.join(down)} are down")
    if not parts:
        return None, False
    fatal = not usable
    lead = f"{var}={value}: " + "; ".join(parts)
    if fatal:
        return lead + (" — NCCL cannot bootstrap" if var.startswith("NCCL") else " — Gloo cannot start"), True
    return lead + f" (still usable: {', '.join(usable)})", False
