"""Issue 11, section 2: nothing torchdoctor writes lands outside where it belongs, whatever a hostile
repository, a hostile OUT path or a shared build cache contains.

- `check`'s cache lives in the user's cache dir, never in the checked tree: a repository that ships
  `.torchdoctor_cache/` links (to ~/.bashrc, to a folder elsewhere) gets nothing written through
  them, and what is read back from the cache is validated.
- `ckpt convert` never renames over a device node, a directory or (without --force) a link, and the
  file it writes has the umask's mode.
- `check --fix` edits a link's target (the link stays), keeps owner and mode, refuses read-only files.
- `env --fix` removes only a lock that is provably torch's, and never one that a process it cannot
  see (another PID namespace) holds open.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys

import pytest

from torchdoctor.facts import Target, extensions
from torchdoctor.facts.model import Facts, PythonFacts
from torchdoctor.fixes import apply
from torchdoctor.model import Status
from torchdoctor.registry import find_env_check
from torchdoctor.runner import run_check

from ext_dirs import make_build_dir

BAD = "import torch\ntorch.set_grad_enabled(False)\n"
NEEDS_FIX = "import torch\nstate = torch.load('ckpt.pt')\n"  # TD402: weights_only= (an unsafe fix)


def torchdoctor(cwd, *args, env=None, timeout=120):
    full = {**os.environ, "NO_COLOR": "1", "COLUMNS": "200", **(env or {})}
    return subprocess.run([sys.executable, "-m", "torchdoctor", *args], capture_output=True, text=True,
                          cwd=cwd, env=full, timeout=timeout)


# --------------------------------------------------------------------------- check's cache

def hostile_repo(tmp_path):
    """A repository whose committed .torchdoctor_cache points out of it, as in the report."""
    repo, outside = tmp_path / "repo", tmp_path / "home"
    repo.mkdir()
    outside.mkdir()
    (repo / "train.py").write_text(BAD)
    bashrc = outside / ".bashrc"
    bashrc.write_text("export PATH=$HOME/bin:$PATH\n")
    cache = repo / ".torchdoctor_cache"
    cache.mkdir()
    (cache / ".gitignore").symlink_to(outside / "created-by-gitignore-link")  # dangling
    (cache / "v1").symlink_to(outside)  # a symlinked cache folder
    return repo, outside, bashrc


def test_check_writes_nothing_through_a_committed_cache(tmp_path):
    repo, outside, bashrc = hostile_repo(tmp_path)
    before = sorted(os.listdir(outside))
    proc = torchdoctor(repo, "check", env={"XDG_CACHE_HOME": str(tmp_path / "xdg")})
    assert proc.returncode == 1 and "TD106" in proc.stdout, proc.stderr
    assert sorted(os.listdir(outside)) == before  # no file created through the dangling link
    assert bashrc.read_text() == "export PATH=$HOME/bin:$PATH\n"
    # The repository's cache folder is left exactly as shipped (nothing read, nothing written).
    assert sorted(os.listdir(repo / ".torchdoctor_cache")) == [".gitignore", "v1"]
    written = [os.path.join(r, f) for r, _, fs in os.walk(tmp_path / "xdg") for f in fs]
    assert len(written) == 1 and stat.S_IMODE(os.stat(written[0]).st_mode) == 0o600


def test_a_committed_cache_is_never_read(tmp_path):
    """A forged cache in the tree saying 'no findings' for train.py: the run still finds TD106."""
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "train.py").write_text(BAD)
    xdg = tmp_path / "xdg"
    first = torchdoctor(repo, "check", "--format", "json", env={"XDG_CACHE_HOME": str(xdg)})
    assert json.loads(first.stdout)["findings"]
    # The attacker commits the (now forged: no findings) cache file in the repository itself, as
    # the old layout kept it, and the victim runs with a fresh cache dir.
    (cache_file,) = [os.path.join(r, f) for r, _, fs in os.walk(xdg) for f in fs]
    forged = json.loads(open(cache_file).read())
    for entry in forged.values():
        entry["findings"] = []
    for version in ("v1", "v2"):
        d = repo / ".torchdoctor_cache" / version
        d.mkdir(parents=True)
        (d / os.path.basename(cache_file)).write_text(json.dumps(forged))
    again = torchdoctor(repo, "check", "--format", "json", env={"XDG_CACHE_HOME": str(tmp_path / "fresh")})
    assert json.loads(again.stdout)["findings"] == json.loads(first.stdout)["findings"]


def test_a_malformed_cache_entry_is_ignored_not_trusted(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "train.py").write_text(BAD)
    xdg = tmp_path / "xdg"
    first = torchdoctor(repo, "check", "--format", "json", env={"XDG_CACHE_HOME": str(xdg)})
    (cache_file,) = [os.path.join(r, f) for r, _, fs in os.walk(xdg) for f in fs]
    data = json.loads(open(cache_file).read())
    for entry in data.values():
        entry["files"] = "many"  # the wrong type
        entry["findings"] = [["TD999", "x", "/etc/passwd", 1, 1, 1, 1, "forged", "error", None, []]]
    with open(cache_file, "w") as fh:
        json.dump(data, fh)
    again = torchdoctor(repo, "check", "--format", "json", env={"XDG_CACHE_HOME": str(xdg)})
    assert again.returncode == 1 and "Traceback" not in again.stderr
    assert json.loads(again.stdout)["findings"] == json.loads(first.stdout)["findings"]


def test_a_cache_dir_others_can_write_is_not_used(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "train.py").write_text(BAD)
    shared = tmp_path / "xdg" / "torchdoctor"
    shared.mkdir(parents=True)
    os.chmod(shared, 0o777)  # anyone could plant or swap files here
    proc = torchdoctor(repo, "check", env={"XDG_CACHE_HOME": str(tmp_path / "xdg")})
    assert proc.returncode == 1 and "TD106" in proc.stdout
    assert os.listdir(shared) == []


def test_a_symlinked_cache_dir_is_not_followed(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "train.py").write_text(BAD)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    (tmp_path / "xdg").mkdir()
    (tmp_path / "xdg" / "torchdoctor").symlink_to(elsewhere)
    proc = torchdoctor(repo, "check", env={"XDG_CACHE_HOME": str(tmp_path / "xdg")})
    assert proc.returncode == 1 and "TD106" in proc.stdout
    assert os.listdir(elsewhere) == []


# --------------------------------------------------------------------------- check --fix

def test_fix_edits_a_links_target_and_keeps_the_link(tmp_path):
    real = tmp_path / "src"
    real.mkdir()
    (real / "train.py").write_text(NEEDS_FIX)
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "train.py").symlink_to(real / "train.py")
    proc = torchdoctor(repo, "check", "--fix", "--unsafe-fixes", "--no-cache", "--select", "TD402")
    assert "Fixed 1 finding in 1 file." in proc.stderr, proc.stderr
    assert (repo / "train.py").is_symlink()
    assert "weights_only=True" in (real / "train.py").read_text()


def test_fix_refuses_a_read_only_file(tmp_path):
    (tmp_path / "train.py").write_text(NEEDS_FIX)
    os.chmod(tmp_path / "train.py", 0o444)
    proc = torchdoctor(tmp_path, "check", "--fix", "--unsafe-fixes", "--no-cache", "--select", "TD402")
    assert "train.py: the file is read-only" in proc.stderr and "Fixed 0 findings" in proc.stderr
    assert (tmp_path / "train.py").read_text() == NEEDS_FIX
    assert stat.S_IMODE(os.stat(tmp_path / "train.py").st_mode) == 0o444


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can create a file owned by someone else")
def test_fix_as_root_keeps_the_files_owner(tmp_path):
    path = tmp_path / "train.py"
    path.write_text(NEEDS_FIX)
    os.chown(path, 4321, 4322)
    os.chmod(path, 0o640)
    proc = torchdoctor(tmp_path, "check", "--fix", "--unsafe-fixes", "--no-cache", "--select", "TD402")
    assert "Fixed 1 finding in 1 file." in proc.stderr, proc.stderr
    st = os.stat(path)
    assert (st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)) == (4321, 4322, 0o640)
    assert "weights_only=True" in path.read_text()


# --------------------------------------------------------------------------- ckpt convert OUT

@pytest.fixture
def state_dict_file(tmp_path):
    import torch

    path = tmp_path / "sd.pth"
    torch.save({"w": torch.arange(4.0)}, path)
    return path


def convert(tmp_path, *args):
    return torchdoctor(tmp_path, "ckpt", "convert", *map(str, args))


def test_convert_refuses_a_device_node_as_out(tmp_path, state_dict_file):
    # A node of our own (never the machine's /dev/null: before the fix, root's rename replaced it).
    node = tmp_path / "null"
    try:
        os.mknod(node, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except (PermissionError, AttributeError):
        node = tmp_path / "fifo"
        os.mkfifo(node)
    before = os.lstat(node)
    proc = convert(tmp_path, state_dict_file, node, "--force")
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "not a regular file" in proc.stderr
    after = os.lstat(node)
    assert stat.S_IFMT(after.st_mode) == stat.S_IFMT(before.st_mode) and after.st_ino == before.st_ino


def test_convert_refuses_a_directory_as_out_with_one_line(tmp_path, state_dict_file):
    (tmp_path / "outdir").mkdir()
    proc = convert(tmp_path, state_dict_file, tmp_path / "outdir", "--force")
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "is a directory" in proc.stderr
    assert "internal error" not in proc.stderr and os.listdir(tmp_path / "outdir") == []


def test_convert_refuses_a_link_as_out_and_never_writes_its_target(tmp_path, state_dict_file):
    victim = tmp_path / "victim"
    victim.write_text("keep me\n")
    (tmp_path / "out.pth").symlink_to(victim)
    proc = convert(tmp_path, state_dict_file, tmp_path / "out.pth")
    assert proc.returncode == 2 and "symbolic link" in proc.stderr and victim.read_text() == "keep me\n"
    (tmp_path / "dangling.pth").symlink_to(tmp_path / "nowhere")
    proc = convert(tmp_path, state_dict_file, tmp_path / "dangling.pth")
    assert proc.returncode == 2 and not (tmp_path / "nowhere").exists()
    # Asked to (--force): the link itself is replaced, its target still untouched.
    proc = convert(tmp_path, state_dict_file, tmp_path / "out.pth", "--force")
    assert proc.returncode == 0, proc.stderr
    assert not (tmp_path / "out.pth").is_symlink() and victim.read_text() == "keep me\n"


def test_convert_writes_with_the_umask_mode(tmp_path, state_dict_file):
    proc = subprocess.run(["sh", "-c", f'umask 022 && exec "{sys.executable}" -m torchdoctor ckpt convert '
                                       f'"{state_dict_file}" "{tmp_path / "out.pth"}"'],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert stat.S_IMODE(os.stat(tmp_path / "out.pth").st_mode) == 0o644


# --------------------------------------------------------------------------- env --fix

TE401 = find_env_check("TE401")


def env_findings(environ, home):
    section = extensions.collect(Target(environ=environ, home=str(home)), PythonFacts(system="Linux"))
    return [run_check(TE401, Facts(extensions=section))]


def test_a_file_named_lock_under_a_mis_set_extensions_dir_is_not_torchs(tmp_path):
    """TORCH_EXTENSIONS_DIR pointed at a project tree: its `lock` files are not build locks."""
    tree = tmp_path / "project"
    (tree / "db" / "data").mkdir(parents=True)
    (tree / "db" / "data" / "lock").write_text("4242\n")  # some database's pid lock
    (tree / "app").mkdir()
    (tree / "app" / "lock").write_text("")
    old = 1_600_000_000
    for p in (tree / "db" / "data" / "lock", tree / "app" / "lock"):
        os.utime(p, (old, old))
    findings = env_findings({"TORCH_EXTENSIONS_DIR": str(tree)}, tmp_path / "home")
    assert findings[0].status is Status.OK
    assert apply(findings) == []
    assert (tree / "db" / "data" / "lock").exists() and (tree / "app" / "lock").exists()


def hold_open(path):
    """A builder holding the lock open, as FileBaton does for a whole build."""
    code = "import os,sys,time\nfd=os.open(sys.argv[1], os.O_RDONLY)\nprint('ready',flush=True)\ntime.sleep(120)\n"
    proc = subprocess.Popen([sys.executable, "-c", code, str(path)], stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "ready"
    return proc


def test_a_lock_held_open_by_an_invisible_process_is_live(tmp_path, monkeypatch):
    """The builder runs in another PID namespace: no process table shows it (modelled by the
    process-table lookup finding nobody), but it has the lock open, and that the kernel knows."""
    d = make_build_dir(tmp_path / "home" / ".cache" / "torch_extensions")
    findings = env_findings({}, tmp_path / "home")
    assert findings[0].status is Status.ERROR
    builder = hold_open(d / "lock")
    try:
        monkeypatch.setattr("torchdoctor.fixes.holders", lambda build_dir: [])
        (result,) = apply(findings)
        assert result.outcome == "refused" and "another PID namespace" in result.detail, result.describe()
        assert (d / "lock").exists()
    finally:
        builder.kill()
        builder.wait()
        builder.stdout.close()
    (result,) = apply(findings)  # the builder is gone: now it is provably stale
    assert result.outcome == "removed", result.describe()


def test_a_lock_held_from_another_pid_namespace_is_never_removed(tmp_path):
    """The real thing: torchdoctor runs in its own PID namespace (a container), the builder outside."""
    if shutil.which("unshare") is None or subprocess.run(["unshare", "--pid", "--fork", "--mount-proc", "true"],
                                                         capture_output=True).returncode != 0:
        pytest.skip("cannot create a PID namespace here")
    d = make_build_dir(tmp_path / "home" / ".cache" / "torch_extensions")
    builder = hold_open(d / "lock")
    script = ("import dataclasses, json, sys\nfrom torchdoctor.facts import Target, extensions\n"
              "from torchdoctor.facts.model import Facts, PythonFacts\nfrom torchdoctor.fixes import apply\n"
              "from torchdoctor.registry import find_env_check\nfrom torchdoctor.runner import run_check\n"
              "te401 = find_env_check('TE401')\n"
              "s = extensions.collect(Target(environ={}, home=sys.argv[1]), PythonFacts(system='Linux'))\n"
              "seen = run_check(te401, Facts(extensions=s))\n"
              # As if the collector had missed it too: the fix's own proof must still refuse.
              "blind = dataclasses.replace(s, locks=[dataclasses.replace(lk, open_elsewhere=False) for lk in s.locks])\n"
              "forced = run_check(te401, Facts(extensions=blind))\n"
              "print(json.dumps({'status': seen.status.value, 'message': seen.message, 'forced': forced.status.value,\n"
              "                  'applied': [a.to_json() for a in apply([forced])]}))\n")
    try:
        proc = subprocess.run(["unshare", "--pid", "--fork", "--mount-proc", sys.executable, "-c", script,
                               str(tmp_path / "home")], capture_output=True, text=True, timeout=120)
    finally:
        builder.kill()
        builder.wait()
        builder.stdout.close()
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["status"] == "ok" and "cannot see" in out["message"], out  # reported as held, not stale
    assert out["forced"] == "error"
    (result,) = out["applied"]
    assert result["outcome"] == "refused" and "PID namespace" in result["detail"]
    assert (d / "lock").exists()
