"""Issue 14 item 6: `env --format markdown` redacts by value, everywhere, JSON facts included.

The user name, host name, home folder, IP addresses, MAC addresses and tokens are planted in every
place a report can carry them; none may survive, and the report must stay useful (versions, the
findings, interface names are kept)."""

from __future__ import annotations

import re

from torchdoctor.facts.model import Facts
from torchdoctor.model import Finding, Fix, Status
from torchdoctor.render import markdown
from torchdoctor.runner import run_env_checks

USER, HOST, HOME = "jdoe", "gpu-box-7.corp.example.com", "/u/x/qz"
IPS = ["10.23.4.56", "192.168.77.20", "fe80::1c2d:3eff:fe4f:5a6b", "2001:db8:85a3::8a2e:370:7334"]
MAC = "00:1c:42:2e:60:4a"
TOKEN = "hf_" + "AbCdEfGhIjKlMnOpQrStUvWx12"


def _planted() -> Facts:
    site = f"/home/{USER}/venv/lib/python3.11/site-packages"
    return Facts.partial(
        python={"executable": f"/home/{USER}/venv/bin/python", "version": "3.11.7", "system": "Linux",
                "user": USER, "hostname": HOST, "user_site": f"{HOME}/.local/lib/python3.11/site-packages",
                "sys_path": [site, f"{HOME}/.local/lib/python3.11/site-packages"], "prefix": f"/home/{USER}/venv"},
        packages={"distributions": [{"name": "torch", "version": "2.13.0+cu130", "location": site}]},
        torch={"import_status": "ok", "version": "2.13.0+cu130", "cuda": "13.0", "hip": None,
               "warnings": [f"UserWarning: {HOST.split('.')[0]} eth0 {MAC} could not reach {IPS[0]}"],
               "stderr_tail": f"token {TOKEN} from {HOME}/.cache/huggingface/token on {HOST}"},
        nvidia={"driver_version": None, "nvml_error": "NVML Shared Library Not Found", "gpus": []},
        env={"variables": {"LD_LIBRARY_PATH": f"/home/{USER}/cuda/lib64:{HOME}/lib", "MASTER_ADDR": IPS[1]}},
        network={"interfaces": [{"name": "eth0", "up": True, "addresses": [IPS[0], IPS[2]]},
                                {"name": "ib0", "up": True, "addresses": [IPS[1], IPS[3]]},
                                {"name": "lo", "up": True, "addresses": ["127.0.0.1", "::1"]}]},
    )


def test_markdown_redacts_every_planted_value():
    facts = _planted()
    findings = run_env_checks(facts) + [Finding(
        "TE999", "planted", "torch", Status.ERROR, "planted",
        f"{USER}@{HOST} ({IPS[3]}) wrote {HOME}/x", {"who": USER, "host": HOST.upper(), "mac": MAC.upper()},
        Fix(f"ssh {USER}@{IPS[0]}", (f"scp {HOME}/a {USER}@{HOST}:/tmp", f"export HF_TOKEN={TOKEN}")))]
    out = markdown.render_env(facts, findings)
    assert '"user":' in out and '"addresses":' in out  # the JSON facts block is there, values replaced
    lower = out.lower()
    for value in [USER, HOST, HOST.split(".")[0], HOME, MAC, TOKEN, *IPS]:
        assert value.lower() not in lower, f"{value!r} leaked"
    assert re.search(r'"user": "<user>"', out) and re.search(r'"hostname": "<host>"', out)
    assert "/home/<user>/venv" in out and "<home>/.local" in out and "<ip>" in out and "<mac>" in out
    assert "<token>" in out
    # still a useful report: versions, interface names and loopback survive
    assert "2.13.0+cu130" in out and '"eth0"' in out and "127.0.0.1" in out and "TE211" in out


def test_short_and_generic_user_names_do_not_shred_the_report():
    facts = Facts.partial(python={"user": "ml", "hostname": "x", "executable": "/home/ml/venv/bin/python",
                                  "version": "3.11.7", "system": "Linux"},
                          nvidia={"driver_version": None, "nvml_error": "libnvidia-ml.so.1: cannot open", "gpus": []})
    out = markdown.render_env(facts, run_env_checks(facts))
    assert "/home/ml/" not in out and "/home/<user>/venv" in out and "libnvidia-ml.so.1" in out
    root = Facts.partial(python={"user": "root", "hostname": "localhost", "version": "3.11.7",
                                 "executable": "/root/venv/bin/python"})
    assert "/root/venv/bin/python" in markdown.render_env(root, run_env_checks(root))
