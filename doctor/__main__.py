"""The entry point of `torchdoctor` and `python -m torchdoctor`.

Importing torch in the child probe is the floor of `torchdoctor env`; the rest of the report fits
inside that time only if the child starts first. So a plain `torchdoctor env` launches it here,
before typer, rich or a single check has loaded, and the torch collector picks it up later.
"""

import sys

# Options after which the early probe would be wasted or aimed at the wrong interpreter/timeout.
_NO_EARLY_PROBE = ("--python", "--quick", "--facts", "--list", "--help", "-h", "--timeout")


def main() -> None:
    args = sys.argv[1:]
    if args[:1] == ["env"] and not any(a.split("=")[0] in _NO_EARLY_PROBE for a in args[1:]):
        from torchdoctor.facts import _probe_launch

        _probe_launch.prestart(sys.executable)
    from torchdoctor.cli import main as cli_main

    cli_main(args)


if __name__ == "__main__":
    main()
