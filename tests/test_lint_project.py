"""The project pass: facts one file's rules read from the other files of the same run (a Dataset
used by a DataLoader in train.py, set_epoch called in engine.py), and the cache following them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

DATA = textwrap.dedent('''\
    import json
    from torch.utils.data import Dataset

    class CocoCaptions(Dataset):
        def __init__(self, path):
            with open(path) as f:
                self.samples = json.load(f)["annotations"]

        def __len__(self):
            return len(self.samples)

        def __getitem__(self, i):
            return self.samples[i]["caption"]
''')
TRAIN = textwrap.dedent('''\
    import torch
    from torch.utils.data import DataLoader
    from data import CocoCaptions

    def main():
        loader = DataLoader(CocoCaptions("train.json"), batch_size=32, num_workers={workers})
        for batch in loader:
            pass

    if __name__ == "__main__":
        main()
''')
SAMPLER = textwrap.dedent('''\
    import torch
    import torch.distributed as dist
    from torch.utils.data import DataLoader
    from torch.utils.data.distributed import DistributedSampler
    from engine import train_one_epoch

    def main():
        dist.init_process_group("nccl")
        loader = DataLoader(train_set, batch_size=32, sampler=DistributedSampler(train_set, shuffle=True))
        for epoch in range(100):
            train_one_epoch(model, loader, optimizer, epoch)
''')
ENGINE = textwrap.dedent('''\
    def train_one_epoch(model, data_loader, optimizer, epoch):
        {line}
        for images, targets in data_loader:
            loss = model(images, targets)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
''')


def check(cwd, *args):
    proc = subprocess.run([sys.executable, "-m", "torchdoctor", "check", "--format", "json", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120, env={**os.environ, "NO_COLOR": "1"})
    assert proc.returncode in (0, 1), proc.stderr
    return json.loads(proc.stdout)["findings"]


def test_a_dataset_used_with_workers_in_another_file(tmp_path):
    (tmp_path / "data.py").write_text(DATA)
    (tmp_path / "train.py").write_text(TRAIN.format(workers=8))
    [f] = check(tmp_path, "--no-cache")
    assert (f["code"], f["path"], f["line"], f["severity"]) == ("TD111", "data.py", 7, "warning")
    assert "used with DataLoader(num_workers=8) at train.py:6" in f["message"]
    # The near miss: train.py uses no workers, so the container is a hint, not an error.
    (tmp_path / "train.py").write_text(TRAIN.format(workers=0))
    [f] = check(tmp_path, "--no-cache")
    assert f["severity"] == "note" and "only num_workers=0 DataLoaders use it in train.py" in f["message"]


def test_the_cache_follows_the_other_files(tmp_path):
    (tmp_path / "data.py").write_text(DATA)
    (tmp_path / "train.py").write_text(TRAIN.format(workers=0))
    assert [f["severity"] for f in check(tmp_path)] == ["note"]
    (tmp_path / "train.py").write_text(TRAIN.format(workers=4))  # data.py itself is unchanged
    assert [f["severity"] for f in check(tmp_path)] == ["warning"]


def test_set_epoch_called_in_the_engine_file(tmp_path):
    (tmp_path / "train.py").write_text(SAMPLER)
    (tmp_path / "engine.py").write_text(ENGINE.format(line="data_loader.sampler.set_epoch(epoch)"))
    assert [f for f in check(tmp_path, "--no-cache") if f["code"] == "TD105"] == []
    (tmp_path / "engine.py").write_text(ENGINE.format(line="model.train()"))
    [f] = [f for f in check(tmp_path, "--no-cache") if f["code"] == "TD105"]
    assert (f["path"], f["line"]) == ("train.py", 9)


def test_alone_a_library_dataset_keeps_the_default_wording(tmp_path):
    (tmp_path / "data.py").write_text(DATA)
    [f] = check(tmp_path, "--no-cache", "data.py")
    assert f["severity"] == "warning" and "with num_workers > 0" in f["message"]


def test_a_loader_passed_to_a_function_from_outside_the_project_is_not_judged(tmp_path):
    # `engine` is not a file of this run (an installed package): what it does is unknown.
    (tmp_path / "train.py").write_text(SAMPLER)
    assert [f for f in check(tmp_path, "--no-cache", "train.py") if f["code"] == "TD105"] == []


# The text prefilters judge one file's text, but the value-flow engine follows values into the
# project's other files: a file whose own words say nothing about numpy or evaluation can still
# hold the finding. These two pin that down, so a tighter prefilter that only reads the file's own
# words (numpy names for TD201, an eval()/val word next to `backward` for TD104) fails here.
AUDIO = textwrap.dedent('''\
    import soundfile

    def load_wav(path):
        data, sr = soundfile.read(path, dtype="int16")
        return {ret}, sr
''')
CLIPS = textwrap.dedent('''\
    import torch
    from torch.utils.data import Dataset
    from audio import load_wav

    class Clips(Dataset):
        def __init__(self, files):
            self.files = files

        def __getitem__(self, idx):
            audio, sr = load_wav(self.files[idx])
            return torch.FloatTensor(audio)
''')


def test_td201_array_returned_by_another_file_of_the_project(tmp_path):
    (tmp_path / "audio.py").write_text(AUDIO.format(ret="data"))
    (tmp_path / "clips.py").write_text(CLIPS)
    [f] = check(tmp_path, "--no-cache")
    assert (f["code"], f["path"], f["line"]) == ("TD201", "clips.py", 11)
    assert "int16 numpy array" in f["message"]
    # The near miss: the helper converts to a tensor itself, so clips.py never sees an array.
    (tmp_path / "audio.py").write_text("import torch\n" + AUDIO.format(ret="torch.from_numpy(data)"))
    assert check(tmp_path, "--no-cache") == []


BATCHES = textwrap.dedent('''\
    from torch.utils.data import DataLoader

    def make_batches(test_set):
        return DataLoader(test_set, batch_size=64)
''')
FIT = textwrap.dedent('''\
    import torch
    from batches import make_batches

    def fit(model, opt, train_batches, ds):
        for x, y in train_batches:
            opt.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            opt.step()
        batches = make_batches(ds)
        for x, y in batches:
            print(model(x).argmax(1))
''')


def test_td104_eval_loop_over_a_loader_built_in_another_file(tmp_path):
    (tmp_path / "batches.py").write_text(BATCHES)
    (tmp_path / "fit.py").write_text(FIT)
    [f] = check(tmp_path, "--no-cache")
    assert (f["code"], f["path"], f["line"]) == ("TD104", "fit.py", 11)
    assert "the loop over `batches` (line 10)" in f["message"]
    # The near miss: the same loop under no_grad.
    (tmp_path / "fit.py").write_text(FIT.replace(
        "    for x, y in batches:", "    with torch.no_grad():\n        for x, y in batches:").replace(
        "        print(model", "            print(model"))
    assert check(tmp_path, "--no-cache") == []
