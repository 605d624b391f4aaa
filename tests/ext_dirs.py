"""Helpers for tests of extension build dirs: fake build trees and real live processes."""

from __future__ import annotations

import os
import subprocess
import sys
import time


def make_build_dir(root, name="fused_adam", folder="py311_cu128", lock=True, age=3600.0):
    d = root / folder / name if folder else root / name
    d.mkdir(parents=True)
    (d / "build.ninja").write_text("rule cxx\n")
    if lock:
        (d / "lock").write_text("")
        then = time.time() - age
        os.utime(d / "lock", (then, then))
        os.utime(d / "build.ninja", (then, then))
    return d


def start_sleeper(cwd=None, hold=None, argv_extra=()):
    """A live child: working in a directory, or holding a file open, or naming paths in its argv.

    The file to hold travels in the environment, so that only the open descriptor (not the
    command line) ties the child to it. Returns once the child is ready.
    """
    code = ("import os, time\n"
            "f = open(os.environ['HOLD']) if os.environ.get('HOLD') else None\n"
            "print('ready', flush=True)\n"
            "time.sleep(120)\n")
    env = {**os.environ, "HOLD": str(hold or "")}
    proc = subprocess.Popen([sys.executable, "-c", code, *argv_extra], cwd=cwd, env=env,
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "ready"
    return proc


def stop(proc):
    proc.kill()
    proc.wait()
    proc.stdout.close()
