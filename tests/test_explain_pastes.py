"""What `explain` does with text as people really paste it: the paste clean-up (doctor/paste.py),
bare messages, stack dumps of a hang, possible causes, and another framework's errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from torchdoctor import paste
from torchdoctor.kb import explain, load
from torchdoctor.kb.matcher import CONFIDENT, possible_causes
from torchdoctor.kb.parse import parse

KB = load()
DEVICE = ("RuntimeError: Expected all tensors to be on the same device, but found at least two devices, "
          "cuda:0 and cpu! (when checking argument for argument mat1 in method wrapper_addmm)")


def first(text: str) -> str | None:
    matches = explain(text)
    return matches[0].id if matches else None


# ------------------------------------------------------------------ the paste clean-up

@pytest.mark.parametrize("pasted,line", [
    (f"**{DEVICE}**", DEVICE),
    (f"_**{DEVICE}**_", DEVICE),
    (f"I get `{DEVICE}` every time", DEVICE),
    ("RuntimeError: Can&#39;t pickle &lt;function &lt;lambda&gt; at 0x7f&gt;: attribute lookup &lt;lambda&gt; failed",
     "RuntimeError: Can't pickle <function <lambda> at 0x7f>: attribute lookup <lambda> failed"),
    ("运行时报错：RuntimeError：CUDA out of memory．", "RuntimeError: CUDA out of memory."),
    ("<details><summary>log</summary>RuntimeError: boom</details>", "RuntimeError: boom"),
])
def test_decoration_is_undone(pasted, line):
    assert line in paste.clean(pasted).lines


def test_colour_codes_are_undone_with_or_without_their_escape_byte():
    coloured = "\x1b[0;31mRuntimeError\x1b[0m: CUDA error: device-side assert triggered"
    assert paste.clean(coloured).lines == ["RuntimeError: CUDA error: device-side assert triggered"]
    # A web page that showed the log dropped the ESC bytes and kept the rest of each code.
    assert paste.clean(coloured.replace("\x1b", "")).lines == ["RuntimeError: CUDA error: device-side assert triggered"]
    assert first(coloured.replace("\x1b", "")) == "cuda-device-side-assert"


def test_a_bracket_that_is_not_a_colour_stays():
    """Without a reset code (`[0m`) on the line, `[1m` is read as the text it is."""
    assert paste.clean("IndexError: index [1m] is out of range").lines == ["IndexError: index [1m] is out of range"]


def test_a_file_name_github_turned_into_a_link_is_the_file_name_again():
    # OpenGVLab/InternVL#467: GitHub linked the .so name as if it were a domain; the path is one token again.
    so = "flash_attn_2_cuda.cpython-39-x86_64-linux-gnu.so"
    linked = (f"/home/ubuntu/miniconda3/envs/llm/lib/python3.9/site-packages/[{so}](http://{so}/): undefined symbol: "
              "_ZN2at4_ops9_pad_enum4callERKNS_6TensorEN3c108ArrayRefINS5_6SymIntEEElNS5_8optionalIdEE")
    assert f"site-packages/{so}: undefined symbol" in paste.clean(linked).lines[0]
    assert first(linked) == "extension-abi-mismatch"
    # A link whose text is not its address is the writer's own and stays.
    assert paste.clean("see [the docs](https://pytorch.org/docs)").lines == ["see [the docs](https://pytorch.org/docs)"]


TRACEBACK = ('Traceback (most recent call last):\n  File "train.py", line 12, in <module>\n    loss = model(x)\n'
             + DEVICE)


@pytest.mark.parametrize("prefix", [
    "worker-1: ",  # pdsh / DeepSpeed multi-node
    "[1,0]<stderr>:",  # mpirun --tag-output
    "(pid=28417) ",  # Ray
    "3: ",  # srun --label
    "trainer-1  | ",  # docker compose
    "Nov 25 10:11:12 gpu-node-3 python3[28417]: ",  # journald
    "2024-05-01T12:00:00.1234567Z ",  # GitHub Actions
    "2024-05-01 12:00:00.123 | ERROR    | __main__:main:42 - ",  # loguru
])
def test_a_launchers_line_prefix_is_undone(prefix):
    pasted = "Running on the cluster I get:\n" + "\n".join(prefix + line for line in TRACEBACK.split("\n"))
    assert paste.clean(pasted).lines == ["Running on the cluster I get:"] + TRACEBACK.split("\n")
    assert first(pasted) == "device-mismatch"


def test_line_numbers_before_every_line_are_undone():
    lines = TRACEBACK.split("\n")
    assert paste.clean("\n".join(f"{k:6d}\t{line}" for k, line in enumerate(lines, 9))).lines == lines
    assert paste.clean("\n".join(f"{k:>3} | {line}" for k, line in enumerate(lines, 1))).lines == lines


def test_what_only_looks_like_a_line_prefix_stays():
    # A prefix on a few lines only: a sentence, not a launcher.
    mixed = "note: see below\n" + TRACEBACK + "\nnote: it fails every time"
    assert paste.clean(mixed).lines == mixed.split("\n")
    # Prefixes the parser and the patterns read: ranks, c10 frames, warnings' locations, JSON records.
    ranked = "\n".join("[rank1]: " + line for line in TRACEBACK.split("\n"))
    assert paste.clean(ranked).lines == ranked.split("\n")
    frames = "\n".join(f"frame #{k}: c10::Error::Error(c10::SourceLocation) + 0x{k}a (0x7f in libc10.so)" for k in range(5))
    assert paste.clean(frames).lines == frames.split("\n")
    warned = "\n".join("/opt/x/torch/nn/modules/conv.py:456: UserWarning: " + message for message in (
        "Plan failed with a cudnnException", "TypedStorage is deprecated",
        "Using padding='same' with even kernel lengths and odd dilation may require a zero-padded copy of the input"))
    assert paste.clean(warned).lines == warned.split("\n")
    records = "\n".join(json.dumps({"log": line + "\n", "stream": "stderr"}) for line in TRACEBACK.split("\n"))
    assert [line for line in paste.clean(records).lines if line] == TRACEBACK.split("\n")  # JSON, not cut at `{"log":`
    # Words before every line are part of the messages (bitsandbytes' report).
    setup = "CUDA SETUP: Loading binary libbitsandbytes_cuda118.so...\nCUDA SETUP: Problem: no GPU\nCUDA SETUP: Solution 1"
    assert paste.clean(setup).lines == setup.split("\n")
    # A time's colons are not a prefix's end: the whole timestamp goes, or none of it.
    timed = "\n".join(f"12:00:0{k} step {k} loss 0.{k}" for k in range(5))
    assert paste.clean(timed).lines == timed.split("\n")


def test_a_pytest_failure_report_is_read_as_a_traceback():
    short = ("____ test_forward ____\ntests/test_model.py:12: in test_forward\n    loss = model(x)\n"
             "torch/nn/modules/linear.py:114: in forward\n    return F.linear(input, self.weight, self.bias)\n"
             "E   " + DEVICE)
    parsed = parse(short)
    assert parsed.final.text == DEVICE and parsed.final.frames == [
        "tests/test_model.py:12 in test_forward", "torch/nn/modules/linear.py:114 in forward"]
    assert first(short) == "device-mismatch"
    # The long format aligns `E` lines with the source, and a message goes on over several of them.
    long = ("    def test_load():\n>       torch.load(path)\n\nE       _pickle.UnpicklingError: Weights only load failed.\n"
            "E       \t(1) In PyTorch 2.6, we changed the default value of the `weights_only` argument")
    assert parse(long).final.message.startswith("Weights only load failed.\n(1) In PyTorch 2.6")


def test_lines_that_only_start_with_an_e_stay():
    glog = "E0501 12:00:00.123456 28417 process_group.cc:12] NCCL watchdog timeout"
    assert paste.clean(glog).lines == [glog]
    assert paste.clean("E  = mc^2 ").lines == ["E  = mc^2"]  # two spaces: not pytest's marker


def test_an_exceptions_repr_is_read_as_the_exception():
    optuna = ("[W 2024-05-01 12:00:00,123] Trial 0 failed because of the following error: "
              "RuntimeError('CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 1.96 GiB total capacity)').")
    assert "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 1.96 GiB total capacity)" \
        in paste.clean(optuna).lines
    assert parse(optuna).final.type == "RuntimeError"
    assert first(optuna) == "cuda-out-of-memory"
    # Escaped line breaks inside the repr are the message's own.
    listed = "errors: [RuntimeError(\"Error(s) in loading state_dict for Net:\\n\\tMissing key(s) in state_dict: \\\"fc.weight\\\".\")]"
    assert paste.clean(listed).lines[1:] == ["RuntimeError: Error(s) in loading state_dict for Net:",
                                             '\tMissing key(s) in state_dict: "fc.weight".']


def test_code_that_builds_an_exception_stays():
    for code in ('raise AssertionError("Torch not compiled with CUDA enabled")',
                 "    raise RuntimeError('Windows not yet supported for torch.compile')",
                 "err = ValueError('bad value')", "return TypeError('x')"):
        assert paste.clean(code).lines == [code]


def test_a_repr_inside_a_json_record_is_unescaped_twice():
    record = json.dumps({"level": "error", "error": repr(TRACEBACK)})
    assert paste.clean(record).lines == TRACEBACK.split("\n")
    # A field that only is quoted (no escapes inside) is left as written.
    quoted = json.dumps({"level": "error", "msg": "'fc.weight' is missing from the checkpoint"})
    assert paste.clean(quoted).lines == ["'fc.weight' is missing from the checkpoint"]


def test_a_notebooks_json_traceback_is_read():
    cell = json.dumps({"outputs": [{"ename": "RuntimeError", "evalue": "x", "output_type": "error", "traceback": [
        "\x1b[0;31m---------------------------------------------------------------------------\x1b[0m",
        "\x1b[0;31mRuntimeError\x1b[0m                              Traceback (most recent call last)",
        "Cell \x1b[0;32mIn[3], line 5\x1b[0m\n\x1b[0;32m----> 5\x1b[0m loss \x1b[38;5;241m=\x1b[39m model(x)\n",
        "\x1b[0;31m" + DEVICE + "\x1b[0m"]}]}, indent=1)
    lines = paste.clean(cell).lines
    assert DEVICE in lines and '  File "<cell 3>", line 5, in <module>' in lines
    assert parse(cell).final.text == DEVICE
    assert first(cell) == "device-mismatch"


def test_a_list_of_strings_outside_a_notebook_stays():
    code = 'devices = [\n    "cuda:0",\n    "cuda:1",\n]'
    assert paste.clean(code).lines == code.split("\n")


def test_the_frame_loguru_marks_is_a_frame():
    caught = ('Traceback (most recent call last):\n\n> File "train.py", line 12, in <module>\n    loss = model(x)\n'
              "    │      └ <function main at 0x7f3a2c1b5d30>\n\n" + DEVICE)
    assert parse(caught).final.frames == ["train.py:12 in <module>"]
    # A quoted line that names a file is not a frame.
    assert paste.clean('> File "notes.txt" is missing').lines == ['> File "notes.txt" is missing']


def test_a_web_pages_typography_is_undone():
    """Curly quotes and the multiplication sign where PyTorch printed ASCII (`128x256`)."""
    article = ("Have you ever been halted by a cryptic error message that reads \u201cRuntimeError: mat1 and mat2 "
               "shapes cannot be multiplied (128\u00d7256 and 32768\u00d71)\u201d? If so, you\u2019re not alone.")
    assert any("(128x256 and 32768x1)" in line for line in paste.clean(article).lines)
    assert first(article) == "shape-mismatch-matmul"
    # A multiplication sign in prose is not a shape, and nothing else reads it.
    assert first("The batch is 32 \u00d7 3 \u00d7 224 \u00d7 224 and training is fine.") is None


def test_quotes_are_undone_only_where_the_text_is_quoted():
    quoted = paste.clean("> Traceback (most recent call last):\n>   File \"a.py\", line 3, in f\n> KeyError: 'x'")
    assert quoted.lines == ["Traceback (most recent call last):", '  File "a.py", line 3, in f', "KeyError: 'x'"]
    # A `>>` inside a message that a page re-wrapped, and a Python prompt, stay as they are.
    assert paste.clean("If reserved memory is\n>> allocated memory try").lines[1] == ">> allocated memory try"
    assert paste.clean(">>> import torch").lines == [">>> import torch"]


def test_backticks_inside_a_real_message_stay():
    msg = "RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasSgemm( handle)`"
    assert paste.clean(msg).lines == [msg]


def test_dunder_names_are_not_emphasis():
    line = '  File "dataset.py", line 20, in __getitem__'
    assert paste.clean(line).lines == [line]


def test_an_exception_inside_a_sentence_starts_its_own_line_with_the_users_line_number():
    cleaned = paste.clean("hello\nWhen I run train.py I got an error: RuntimeError: boom")
    assert cleaned.lines == ["hello", "When I run train.py I got an error:", "RuntimeError: boom"]
    assert cleaned.origin == [1, 2, 2]
    # A launcher's prefix is not prose: the line is left for the parser to strip.
    assert paste.clean("[rank1]: RuntimeError: boom").lines == ["[rank1]: RuntimeError: boom"]


@pytest.mark.parametrize("pasted,head", [
    # a title that ran the raise's wrapped call and the final line together
    ("raise RuntimeError('Error(s) in loading state_dict for {}:\n"
     "\t{}'.format( RuntimeError: Error(s) in loading state_dict for Model: Unexpected key(s) in state_dict: \"b\".",
     "\t{}'.format("),
    # indented prose ending in a colon
    ("Hello,\n    I got this during training: RuntimeError: grad can be implicitly created only for scalar outputs",
     "    I got this during training:"),
])
def test_an_indented_line_whose_exception_follows_an_open_call_or_a_colon_is_split(pasted, head):
    cleaned = paste.clean(pasted)
    assert head in cleaned.lines
    final = parse(pasted).final
    assert final is not None and final.type == "RuntimeError" and final.line_no == 2


def test_source_code_that_names_an_exception_stays_whole():
    for code in ("    except RuntimeError: pass", "    def check(x) -> RuntimeError: ...",
                 "        raise RuntimeError(msg)"):
        assert paste.clean(code).lines == [code]
    text = ('Traceback (most recent call last):\n  File "a.py", line 3, in f\n    except RuntimeError: pass\n'
            "KeyError: 'x'\n")
    assert [b.text for b in parse(text).exceptions] == ["KeyError: 'x'"]


@pytest.mark.parametrize("width", [80, 100, 120])
def test_a_terminal_wrap_mid_word_is_joined(width):
    msg = ("RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 7.79 GiB total capacity; "
           "6.40 GiB already allocated; 12.44 MiB free; 6.52 GiB reserved in total by PyTorch) If reserved memory "
           "is >> allocated memory try setting max_split_size_mb to avoid fragmentation.")
    wrapped = "\n".join(msg[i:i + width] for i in range(0, len(msg), width))
    text = 'Traceback (most recent call last):\n  File "x.py", line 1, in <module>\n' + wrapped
    assert first(text) == "cuda-out-of-memory"
    block = parse(text).final
    assert "total capacity" in block.message.replace("\n", "") and block.line_no == 3


def _terminal(text: str, width: int) -> str:
    return "\n".join(line[i:i + width] for line in text.split("\n") for i in range(0, max(len(line), 1), width))


def test_a_frame_line_cut_inside_its_path_is_one_frame_again():
    text = ('Traceback (most recent call last):\n'
            '  File "C:\\Users\\me\\ComfyUI_windows_portable\\python_embeded\\Lib\\site-packages\\torch\\utils\\'
            'data\\dataloader.py", line 1133, in _try_get_data\n'
            '    data = self._data_queue.get(timeout=timeout)\n'
            '  File "C:\\Users\\me\\ComfyUI_windows_portable\\python_embeded\\Lib\\multiprocessing\\queues.py", '
            'line 113, in get\n'
            '    if not self._poll(timeout):\n'
            'RuntimeError: DataLoader worker (pid(s) 11060) exited unexpectedly')
    frames = parse(_terminal(text, 80)).final.frames
    assert [f.rsplit(" in ", 1)[1] for f in frames] == ["_try_get_data", "get"]
    assert frames[0].endswith("torch\\utils\\data\\dataloader.py:1133 in _try_get_data")
    # A whole frame line that happens to be as wide as the cut keeps its source line apart.
    exact = '  File "/opt/envs2/site-packages/torch/nn/modules/conv.py", line 460, in forward'
    assert len(exact) == 80
    lines = paste.clean(exact + "\n    return self._conv_forward(input, self.weight, self.bias)\n" + "x" * 80 + "\n"
                        + "y" * 80).lines
    assert lines[:2] == [exact, "    return self._conv_forward(input, self.weight, self.bias)"]


def test_lines_a_page_reflowed_to_the_same_length_are_not_a_terminal_cut():
    """Two re-flowed lines can be equally long by chance; where a cut falls between two words we
    know ("something" / "wrong") and none inside one, the unknown ones ("a" / "graph") are joined
    with a space too."""
    text = ("After I moved the model to the GPU and then started the training loop, something\n"
            "wrong happened when I assigned the node features living on the GPU (cuda:0) to a\n"
            "graph that was still on the CPU.")
    assert [len(x) for x in text.split("\n")[:2]] == [80, 80]
    assert paste.clean(text, KB.vocabulary()).lines == [text.replace("\n", " ")]
    # A terminal's cut inside a word is still joined without a space.
    cut = DEVICE[:80] + "\n" + DEVICE[80:160] + "\n" + DEVICE[160:]
    assert paste.clean(cut, KB.vocabulary()).lines == [DEVICE]


def test_a_message_wrapped_before_the_space_it_kept_is_still_read():
    report = ("# ComfyUI Error Report\n## Error Details\n- Node ID: 7\n- Node Type: KSampler\n"
              "- Exception Type: RuntimeError\n"
              "- Exception Message: mat1 and mat2 shapes cannot be multiplied (770x2048 and\n 768x320)")
    assert first(report) == "shape-mismatch-matmul"


def test_a_wrap_is_measured_on_the_text_as_pasted():
    """Full-width punctuation becomes two characters in the clean-up; the terminal cut the line as
    it was shown, so the cut is still seen as one at the terminal's width."""
    text = ("加载模型时报错。 OSError: [WinError 126] The specified module could not be found。 Error loading "
            '"C:\\Users\\me\\AppData\\Local\\Programs\\Python\\Python310\\Lib\\site-packages\\torch\\lib\\fbgemm.dll" '
            "or one of its dependencies. 请问怎么解决？"
            "我已经安装了 VC_redist.x64，也重新安装了 torch，还是一样的错误，请问还有什么办法吗？")
    wrapped = _terminal(text, 80)
    message = text[text.index("OSError"):text.index(" 请问")].replace("。", ". ")
    assert any(x.startswith(message) for x in paste.clean(wrapped).lines)
    assert first(wrapped) == "windows-dll-load-failure"


def test_equal_length_log_lines_are_not_a_wrap():
    line = ("[E ProcessGroupNCCL.cpp:737] [Rank {}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=4, "
            "OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 1802212 milliseconds before timing out.")
    text = "\n".join(line.format(r) for r in range(4))
    assert paste.clean(text).lines == text.split("\n")


def test_jupyter_traceback_becomes_a_plain_one():
    text = ("---------------------------------------------------------------------------\n"
            "RuntimeError                              Traceback (most recent call last)\n"
            "Cell In[5], line 3\n"
            "      1 x = torch.randn(2, 15)\n"
            "----> 3 model(x)\n"
            "File /opt/conda/lib/python3.10/site-packages/torch/nn/modules/linear.py:116, in Linear.forward(self, input)\n"
            "    115 def forward(self, input):\n"
            "--> 116     return F.linear(input, self.weight, self.bias)\n\n"
            "RuntimeError: mat1 and mat2 shapes cannot be multiplied (2x15 and 16x32)\n")
    parsed = parse(text)
    assert parsed.final.type == "RuntimeError" and parsed.final.message.startswith("mat1 and mat2")
    assert any("linear.py:116" in f for f in parsed.final.frames)
    assert first(text) == "shape-mismatch-matmul"


_JUPYTER_HEAD = ("---------------------------------------------------------------------------\n"
                 "{kind}                                Traceback (most recent call last)\n"
                 "<ipython-input-7-1f879dca0ffd> in <module>\n"
                 "----> 1 out = model(x)\n\n"
                 "~/anaconda3/lib/python3.8/site-packages/torch/nn/functional.py in linear(input, weight, bias)\n"
                 "   1751         return handle_torch_function(linear, tens_ops, input, weight, bias=bias)\n"
                 "-> 1753     return torch._C._nn.linear(input, weight, bias)\n\n")


def test_a_jupyter_final_line_without_its_type_takes_the_type_from_the_header():
    """Copied from a rendered notebook, the last line is often the message alone: the header
    above the frames still names the class."""
    text = _JUPYTER_HEAD.format(kind="RuntimeError") + "mat1 and mat2 shapes cannot be multiplied (2x15 and 16x32)\n"
    parsed = parse(text)
    assert [b.text for b in parsed.exceptions] == [
        "RuntimeError: mat1 and mat2 shapes cannot be multiplied (2x15 and 16x32)"]
    assert any("functional.py:0 in linear" in f for f in parsed.final.frames)
    assert parsed.final.line_no == 10  # the user's line
    assert first(text) == "shape-mismatch-matmul"


def test_a_jupyter_traceback_cut_after_its_frames_keeps_the_type_of_its_header():
    cut = _JUPYTER_HEAD.format(kind="AttributeError") + "3 frames\n"
    parsed = parse(cut)
    assert [(b.type, b.message, b.role) for b in parsed.exceptions] == [("AttributeError", "", "final")]
    assert parsed.final.line_no == 2  # the header, where the type was read
    # Complete: the final line is the exception, and the header adds nothing.
    whole = parse(_JUPYTER_HEAD.format(kind="RuntimeError") + "RuntimeError: boom\n")
    assert [b.text for b in whole.exceptions] == ["RuntimeError: boom"]
    # A plain traceback's header names no type: a cut one gives no exception.
    assert parse('Traceback (most recent call last):\n  File "a.py", line 3, in f\n    g(\n').exceptions == []


def test_colab_frames_are_frames():
    text = ("---------------------------------------------------------------------------\n"
            "IndexError                                Traceback (most recent call last)\n"
            "[<ipython-input-14-58747f1080e0>](https://localhost:8080/#) in <cell line: 48>()\n"
            "---> 48 print(decode(m.generate(idx, max_new_tokens=100)[0].tolist()))\n\n"
            "5 frames\n"
            "[/usr/local/lib/python3.10/dist-packages/torch/nn/functional.py](https://localhost:8080/#) in embedding("
            "input, weight, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse)\n"
            "-> 2210     return torch.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)\n\n"
            "IndexError: index out of range in self\n")
    parsed = parse(text)
    assert parsed.final.text == "IndexError: index out of range in self"
    assert parsed.final.frames[0].endswith("in <cell line: 48>")
    assert parsed.final.frames[-1].endswith("functional.py:0 in embedding")
    assert first(text) == "embedding-index-out-of-range"


def test_vllm_and_ray_log_prefixes_are_stripped_like_a_launchers():
    """vLLM logs every line of a traceback as `ERROR MM-DD HH:MM:SS [file.py:N] ...`, and its (and
    Ray's) worker processes prefix their output with `(EngineCore pid=N)`."""
    from torchdoctor.kb.parse import normalize_line

    prefix = "(EngineCore pid=12244) ERROR 07-15 21:01:01 [core.py:1240] "
    text = "\n".join(prefix + line for line in (
        "Traceback (most recent call last):",
        '  File "/venv/lib/python3.12/site-packages/vllm/v1/executor/multiproc_executor.py", line 394, in get_response',
        "    raise RuntimeError(",
        "RuntimeError: Worker failed with error 'CUDA error: an illegal memory access was encountered",
        "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be "
        "incorrect.",
    ))
    final = parse(text).final
    assert final.type == "RuntimeError" and final.frames == [
        "/venv/lib/python3.12/site-packages/vllm/v1/executor/multiproc_executor.py:394 in get_response"]
    assert "asynchronously reported" in final.message
    assert normalize_line("INFO 04-01 23:46:56 [engine.py:160] torch.OutOfMemoryError: CUDA out of memory.") == \
        "torch.OutOfMemoryError: CUDA out of memory."
    assert normalize_line("(RayWorkerWrapper pid=3, ip=10.0.0.1) ValueError: x") == "ValueError: x"
    # Words in brackets are not a process tag: only `name key=value` is.
    for line in ("(see above) RuntimeError: boom", "(most recent call first):", "ERROR: [Errno 98] in use"):
        assert normalize_line(line) == line


def _rich_traceback(width: int) -> str:
    """A traceback drawn by rich itself (as typer and Hugging Face tools print it), with locals."""
    import io

    from rich.console import Console
    from rich.traceback import Traceback

    def forward(batch):
        weights = [0.5, 0.25]
        raise RuntimeError(DEVICE.split(": ", 1)[1])

    out = io.StringIO()
    try:
        forward([1, 2, 3])
    except RuntimeError:
        Console(file=out, width=width, color_system=None).print(Traceback(show_locals=True, width=width))
    return out.getvalue()


@pytest.mark.parametrize("width", [80, 120, 240])
def test_a_rich_traceback_becomes_a_plain_one(width):
    text = _rich_traceback(width)
    assert "╭" in text and "❱" in text  # really rich's box (locals below or beside the code)
    cleaned = paste.clean(text)
    assert cleaned.lines[0] == "Traceback (most recent call last):"
    frames = [x for x in cleaned.lines if x.startswith('  File "')]
    assert len(frames) == 2 and frames[1].endswith("in forward")
    assert "weights = " not in cleaned.text and "│" not in cleaned.text  # no locals, no box
    parsed = parse(text)
    assert any(f.endswith("in forward") for f in parsed.final.frames)
    assert parsed.final.line_no == text.split("\n").index(next(x for x in text.split("\n") if x.startswith("RuntimeError"))) + 1
    assert first(text) == "device-mismatch"


def test_a_rich_frame_title_folded_over_rows_is_one_frame():
    pasted = ("│ /home/user/envs/kraken/lib/python3.8/site-packages/torch/utils/data/dataloader.py:1024  │\n"
              "│ in _try_get_data                                                                 │\n"
              "│                                                                                  │\n"
              "│ ❱ 1024 │   │   │   raise RuntimeError('DataLoader worker (pid(s) {}) exited unexp  │\n"
              "│ /home/user/envs/kraken/lib/python3.8/site-packages/torch/utils/data/_utils/signal_h│\n"
              "│ andling.py:66 in handler                                                         │\n"
              "╰──────────────────────────────────────────────────────────────────────────────────╯")
    lines = paste.clean(pasted).lines
    assert lines[0].endswith('dataloader.py", line 1024, in _try_get_data')
    assert lines[1].strip().startswith("raise RuntimeError('DataLoader worker")
    assert lines[2].endswith('_utils/signal_handling.py", line 66, in handler')


def test_a_table_drawn_with_box_characters_is_not_a_traceback():
    table = ("┏━━━━━━━━━┳━━━━━━━┓\n┃ package ┃ ver   ┃\n┡━━━━━━━━━╇━━━━━━━┩\n│ torch   │ 2.3.0 │\n"
             "│ 12 GPUs │ found │\n│ cuda    │ 12.1  │\n└─────────┴───────┘")
    assert paste.clean(table).lines == table.split("\n")


@pytest.mark.parametrize("pasted", [
    # a JSON log record
    '{"ts": "2024-05-01T10:00:00Z", "level": "ERROR", "msg": "Traceback (most recent call last):\\n  File \\"train.py\\", '
    'line 40, in <module>\\n    model.load_state_dict(sd)\\nRuntimeError: Error(s) in loading state_dict for Net:\\n\\t'
    'Missing key(s) in state_dict: \\"fc.weight\\", \\"fc.bias\\". "}',
    # a repr printed by a logger
    "error=RuntimeError('Error(s) in loading state_dict for Net:\\n\\tMissing key(s) in state_dict: \"fc.weight\", \"fc.bias\". ')",
])
def test_a_message_written_as_a_string_literal_is_read_as_lines(pasted):
    cleaned = paste.clean(pasted)
    assert any(x.startswith('\tMissing key(s) in state_dict: "fc.weight", "fc.bias".') for x in cleaned.lines)
    assert set(cleaned.origin) == {1}
    assert first(pasted) == "state-dict-key-mismatch"


def test_a_json_line_nested_too_deep_to_parse_is_left_as_it_is():
    line = '{"msg": "x y", "a": ' + "[" * 100000 + "]" * 100000 + "}"
    assert paste.clean(line).lines == [line]


def test_a_windows_path_is_not_a_string_literal():
    line = 'OSError: [WinError 126] Error loading "C:\\new\\torch\\lib\\c10.dll" or one of its dependencies.'
    assert paste.clean(line).lines == [line]


def test_a_message_quoted_with_its_first_letter_recased_is_recognised():
    from torchdoctor.kb.schema import Pattern

    assert Pattern("Expected input batch_size").matched_regex == "[Ee]xpected input batch_size"
    # Prose and symptom patterns say what they match themselves; a case-free pattern needs nothing.
    assert Pattern("expected x", scope="line").matched_regex == "expected x"
    assert Pattern("expected x", ignore_case=True).matched_regex == "expected x"
    assert Pattern(r"\bfoo").matched_regex == r"\bfoo"
    assert first("在训练时报错 expected input batch_size (64) to match target batch_size (400). 怎么办") \
        == "input-target-batch-size-mismatch"
    assert first("RuntimeError: Error(s) in loading state_dict for Net:\n\tSize mismatch for fc.weight: copying a "
                 "param with shape torch.Size([5, 10]) from checkpoint, the shape in current model is "
                 "torch.Size([6, 10]).") == "state-dict-size-mismatch"
    # Only the first letter: the rest of the message still has to be PyTorch's.
    assert first("在训练时报错 expected input size to match the target size") is None


def test_utf16_log_is_read(tmp_path):
    data = ("Traceback (most recent call last):\r\n" + DEVICE + "\r\n").encode("utf-16")
    assert first(data) == "device-mismatch"
    assert first(data[2:]) == "device-mismatch"  # no BOM


# ------------------------------------------------------------------ where the evidence is

def test_bare_message_without_its_type_is_answered():
    matches = explain("mat1 and mat2 shapes cannot be multiplied (2x15 and 16x32)")
    assert matches and matches[0].id == "shape-mismatch-matmul" and matches[0].confidence >= CONFIDENT


@pytest.mark.parametrize("cut,cause", [
    ("RuntimeError: CUDA error: device-side assert trig", "cuda-device-side-assert"),  # inside a word
    ("ValueError: Attempting to unscale FP16 gr", "amp-unscale-fp16-params"),
    ("Traceback (most recent call last):\n  File \"train.py\", line 9, in <module>\n    out = emb(ids)\n"
     "RuntimeError: Expected tensor for argument #1 'indices' to have one of the follo", "embedding-indices-not-integer"),
    ("grad can be implicitly created only for sc", "backward-non-scalar-output"),  # a bare message
])
def test_a_message_cut_short_is_read_from_the_words_it_still_has(cut, cause):
    matches = explain(cut)
    assert matches and matches[0].id == cause and matches[0].confidence >= CONFIDENT, \
        [(m.id, round(m.confidence, 2)) for m in matches]


def test_a_message_that_runs_on_in_chinese_is_cut_where_the_chinese_begins():
    text = ("刚接触PyTorch时,尝试手动修改参数时突然看到TypeError: cannot assign 'torch.cuda.FloatTensor' as "
            "parameter的报错信息,这种挫败感我深有体会。\n后面还有一段话。")
    matches = explain(text)
    assert matches and matches[0].id == "module-parameter-assign-tensor", matches[:2]
    # An English message with nothing of a pattern's head is not read as cut by the Chinese after it.
    assert first("RuntimeError: something went wrong in my own code 的报错信息") is None


def test_a_cut_message_that_several_causes_begin_with_gives_possible_causes_only():
    parsed = parse("RuntimeError: Error(s) in loading state_dict for Net:")
    assert explain(parsed) == []
    ids = [p.id for p in possible_causes(parsed, [])]
    assert "state-dict-key-mismatch" in ids and "state-dict-size-mismatch" in ids


def test_a_whole_message_or_too_short_a_head_is_not_read_as_cut():
    from torchdoctor.kb.matcher import _with_cut_hits

    # Too little left to name anything.
    assert _with_cut_hits(parse("RuntimeError: CUDA error: "), KB, [], 1.0) == []
    # The message is not where the text ends: nothing was cut.
    assert _with_cut_hits(parse("RuntimeError: CUDA error: device-side assert trig\n\nany idea why?"), KB, [], 1.0) == []
    # Another failure's whole message that begins like this one's.
    other = "RuntimeError: CUDA error: an illegal instruction was encountered"
    assert "cuda-illegal-memory-access" not in [m.id for m in explain(other, include_weak=True)]


def test_a_sentences_closing_punctuation_is_no_cut_word():
    """"No module named 'torch_scatter' occurred." ends on a full stop, which begins removed-private-api's
    ".utils.ffi" as it begins any word: the message was whole (BasicPBC#27), and torch_scatter is no removed torch
    module. A cut inside a word still reads (the letters left are the word's start)."""
    text = ("After `python setup.py develop`, I executed `python inference.py` and "
            "`ModuleNotFoundError: No module named 'torch_scatter'` occurred.\nPlease let me know how to handle this.")
    assert "removed-private-api" not in [m.id for m in explain(text)]
    assert first("ModuleNotFoundError: No module named 'torch.utils.f") == "removed-private-api"


def test_an_operating_system_error_string_ends_a_message_whole():
    """strerror texts ("No such file or directory") are complete: a message ending with one was not
    cut inside a pattern whose words only begin with it ("No such file or directory: 'ninja'")."""
    for whole in ("OSError: libGL.so.1: cannot open shared object file: No such file or directory",
                  "FileNotFoundError: [Errno 2] No such file or directory"):
        assert first(whole) is None
    assert first("OSError: [Errno 2] No such file or directory: 'ninja'") == "ninja-missing"
    # A message cut short elsewhere is still read from the words it has.
    assert first("RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before "
                 "calling NumCudaDevices() that might have already set an error? Error 804: forward compatibility "
                 "was att") == "cuda-forward-compat-unsupported"


def test_a_message_inside_prose_beside_other_exceptions_is_weaker_evidence():
    text = ("an earlier run said mat1 and mat2 shapes cannot be multiplied (2x15 and 16x32) somewhere\n\n"
            "Traceback (most recent call last):\n  File \"run.py\", line 3, in <module>\n"
            "SystemExit: 1\n")
    weak = {m.id: m.confidence for m in explain(text, include_weak=True)}
    bare = explain("mat1 and mat2 shapes cannot be multiplied (2x15 and 16x32)")[0].confidence
    assert weak["shape-mismatch-matmul"] < bare


PYSPY = """Process 4242: python train.py
Python v3.10.12 (/usr/bin/python3.10)

Thread 4242 (idle): "MainThread"
    wait (threading.py:320)
    get (queue.py:180)
    _try_get_data (torch/utils/data/dataloader.py:1133)
    _get_data (torch/utils/data/dataloader.py:1294)
    _next_data (torch/utils/data/dataloader.py:1332)
    __next__ (torch/utils/data/dataloader.py:631)
    train (train.py:88)
"""

FAULTHANDLER = """Timeout (0:05:00)!
Thread 0x00007f3b5c9ff700 (most recent call first):
  File "/usr/lib/python3.10/threading.py", line 320 in wait
  File "/usr/lib/python3.10/site-packages/torch/utils/file_baton.py", line 42 in wait
  File "/usr/lib/python3.10/site-packages/torch/utils/cpp_extension.py", line 1718 in _jit_compile
"""


def test_stack_dumps_are_read_as_frames():
    frames = [f for _, f in parse(PYSPY).frame_lines]
    assert "torch/utils/data/dataloader.py:1133 in _try_get_data" in frames
    frames = [f for _, f in parse(FAULTHANDLER).frame_lines]
    assert frames[1] == "/usr/lib/python3.10/site-packages/torch/utils/file_baton.py:42 in wait"


def test_frame_patterns_are_validated_and_matched():
    from torchdoctor.kb.schema import SchemaError
    from torchdoctor.kb.validate import entry_from_dict

    base = {"id": "x", "title": "t", "area": "Also frequent", "summary": "s", "explanation": "e",
            "fixes": [{"summary": "f"}], "examples": [{"text": "t", "source": "https://example.org/1"}]}
    with pytest.raises(SchemaError):
        entry_from_dict({**base, "patterns": [{"regex": "(", "scope": "frame"}]}, "x.toml")
    entry = entry_from_dict({**base, "patterns": [{"regex": r"file_baton\.py:\d+ in wait", "scope": "frame"}]},
                            "x.toml")
    assert entry.patterns[0].scope == "frame"


# ------------------------------------------------------------------ possible causes, honestly labelled

def test_a_question_in_words_gets_possible_causes_not_answers():
    parsed = parse("my training is slow and I wonder why the loader hangs after the first epoch with num_workers=8")
    answers = explain(parsed)
    possible = possible_causes(parsed, answers)
    assert 1 <= len(possible) <= 3
    assert all(p.score < 1 and p.why for p in possible)
    assert {p.id for p in possible}.isdisjoint({m.id for m in answers})


def test_a_weak_pattern_hit_says_where_it_stood_in_plain_words():
    # bitsandbytes' WindowsPath TypeError without its exception name is a weak pattern: a possible cause
    # that names the line, and the paste's "line" scope reads as "a line", not "a line line".
    parsed = parse("But I got:\n`argument of type 'WindowsPath' is not iterable`")
    possible = {p.id: p for p in possible_causes(parsed, explain(parsed))}
    why = possible["bitsandbytes-cuda-setup-failed"].why
    assert why == "its pattern matched a line (line 2)"


def test_every_pattern_scope_has_words_for_where_it_matched():
    from torchdoctor.kb.matcher import _WHERE
    from torchdoctor.kb.schema import SCOPES

    assert set(_WHERE) == set(SCOPES)


def test_other_forms_of_an_entrys_words_are_the_same_words():
    from torchdoctor.kb.retrieve import tokens

    assert tokens("it hung, the workers froze, processes crashed") == tokens("it hangs, the worker freezes, process crash")
    # Names are not words to inflect: identifiers and versions stay whole.
    assert tokens("num_workers pin_memory cu118") == ["num_workers", "pin_memory", "cu118"]
    # "is" and "was" are stop words, not "i" and "wa".
    assert tokens("this was slow") == ["slow"]
    # What a contraction leaves of its verb, and a thread's small talk, say nothing about the cause.
    assert tokens("I don't think it's the firewall, and we've checked that it doesn't hang") == ["firewall", "check",
                                                                                                  "hang"]



def test_other_words_for_a_failure_are_the_entries_words():
    from torchdoctor.kb.retrieve import tokens

    # "stuck" and "卡住" are the entries' "hang"; "显存" is GPU memory, "一直在增长" grows.
    assert "hang" in tokens("training is stuck after the first epoch")
    assert "hang" in tokens("训练卡住了，进度条不动")
    assert {"gpu", "memory", "grow"} <= set(tokens("显存一直在增长"))
    assert {"memory", "grow"} <= set(tokens("RAM usage increases every epoch"))
    # "memories" is "memory"; a CamelCase name brings its words, an exception's class name does not
    # (every traceback has one).
    assert tokens("GPU 0 gets more memories") == tokens("GPU 0 gets more memory")
    assert {"embed", "dropout"} <= set(tokens("FullEmbeddingDropout is on in eval"))
    assert "runtime" not in tokens("RuntimeError: boom") and "value" not in tokens("ValueError: x")
    # Freezing layers is not a hang, and a network's blocks are not a deadlock.
    assert "hang" not in tokens("freeze the backbone blocks and fine-tune the head")


def test_a_symptom_in_other_words_finds_the_entry():
    from torchdoctor.kb import load

    rank = lambda text: [c.id for c in load().retriever.rank(text, limit=3)]  # noqa: E731
    # "sluggish" is slow, and "上涨" (rising) GPU memory "显存" grows: each first found through
    # the synonym, the entries say "slower" and "GPU memory keeps growing".
    assert rank("DDP training is sluggish compared to one GPU")[0] == "ddp-communication-overhead"
    memory = load().retriever.rank("推理服务每次请求后显存都在上涨，不释放", limit=3)
    assert memory and all("memory" in c.id or "no-grad" in c.id for c in memory)
    assert "grow" in {w for c in memory for w in c.words}
    # A plain "loss" question stays away from the memory entries.
    assert "gpu-memory-grows-retained-graph" not in rank("loss becomes nan after a few thousand steps with fp16")


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "torchdoctor", *args], capture_output=True, text=True,
                          env={**os.environ, "NO_COLOR": "1", "COLUMNS": "100"}, timeout=120)


def test_cli_lists_possible_causes_in_text_and_json_and_exits_1():
    text = cli("explain", "workers stop responding at the end of the epoch")
    assert text.returncode == 1
    assert "Possible causes (not confident" in text.stdout
    doc = json.loads(cli("explain", "--format", "json", "workers stop responding at the end of the epoch").stdout)
    assert doc["matches"] == [] and doc["possible"] and {"id", "title", "score", "kind", "why"} <= set(doc["possible"][0])


def test_another_frameworks_error_is_not_answered_as_pytorchs():
    caffe = ("F0411 10:00:00.000 12345 math_functions.cu:79] Check failed: error == cudaSuccess\n"
             "    @     0x7f2f6f193a47  caffe::ScaleLayer<>::Backward_gpu()\n"
             "RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasSgemm( handle)`\n")
    torch_twin = caffe.replace("caffe::ScaleLayer<>::Backward_gpu()", "torch/nn/functional.py linear")
    assert first(torch_twin) == "cublas-failure"
    assert first(caffe) is None
    # A driver-level failure is the same whichever framework met it.
    tf = ("F tensorflow/stream_executor/cuda/cuda_driver.cc:94] Check failed: s.ok() could not find "
          "cuDevicePrimaryCtxSetFlags in libcuda DSO; dlerror: /usr/lib/libcuda.so.1: undefined symbol: "
          "cuDevicePrimaryCtxSetFlags")
    assert first(tf) == "cuda-driver-symbol-missing"
    # cuDNN's own API programmed directly (no framework at all): its status is not a PyTorch call's.
    graph_api = ("Summary: cuDNN Backend Graph API builds the fused conv+bias operation graph, but every engine fails\n"
                 "Finalizing execution plan...\n"
                 "ALL engines fail execution plan finalization with CUDNN_STATUS_NOT_SUPPORTED (3000).\n")
    assert first(graph_api) is None
    assert first("RuntimeError: cuDNN error: CUDNN_STATUS_NOT_SUPPORTED. This error may appear if you passed in "
                 "a non-contiguous input.") == "cudnn-execution-failed"


def test_cuda_errors_in_the_words_of_software_that_calls_cuda_itself_are_not_answered():
    """TensorRT's error recorder, ONNX Runtime's CUDA_CALL and a bare "[CUDA ERROR]:" prefix report CUDA's own
    statuses from code that is not PyTorch's; the same status raised through torch is answered."""
    trt = ("trtexec --useCudaGraph --onnx=test.onnx --fp16\n"
           "[E] Error[1]: [executionContext.cpp::handleTrainStationRunnerPhase1::146] Error Code 1: Cuda Runtime "
           "(operation not permitted when stream is capturing)\n")
    assert first(trt) is None
    assert first("CUDA Graph Error - CUDA failure 900: operation not permitted when stream is capturing") is None
    assert first("[CUDA ERROR]: Too many resources requested for launch\n") is None
    # Through torch the same statuses are PyTorch's causes.
    assert first("RuntimeError: CUDA error: operation not permitted when stream is capturing\n"
                 "CUDA kernel errors might be asynchronously reported at some other API call") is not None
    assert first("RuntimeError: CUDA error: too many resources requested for launch\n") is not None


def test_onnx_runtime_s_own_words_are_not_answered_as_pytorchs():
    """ONNX Runtime reports CUDA and cuDNN statuses in its own words (its CUDNN_CALL, a node's failed status, the
    loggers of its C++ core and its Rust binding); the same statuses raised through torch are answered."""
    ort = ('2023-02-03T00:55:30.909944Z  WARN onnxruntime::onnxruntime: "CUDNN failure 1: CUDNN_STATUS_NOT_INITIALIZED ; '
           'GPU=0 ; hostname=voicevox ; expr=status_; "\nINFO: "POST /synthesis?speaker=3 HTTP/1.1" 500 Internal Server Error\n')
    rust = ("2026-07-14T15:57:40.190040+00:00 ERROR ort::logging: Non-zero status code returned while running Gather "
            "node. Name:'Gather_3' Status Message: CUDA error cudaErrorNoKernelImageForDevice:no kernel image is "
            "available for execution on the device\n")
    assert first(ort) is None
    assert first(rust) is None
    # Through torch the same statuses are PyTorch's causes.
    assert first("RuntimeError: cuDNN error: CUDNN_STATUS_NOT_INITIALIZED\n") is not None
    assert first("RuntimeError: CUDA error: no kernel image is available for execution on the device\n") \
        == "cuda-no-kernel-image"


def test_julia_and_kaldi_cuda_errors_are_not_answered_as_pytorchs():
    """CUDA.jl (Julia's REPL and stack frames) and Kaldi's CUDA matrix code (Vosk) report CUDA statuses from stacks
    that never pass through torch; the same statuses raised through torch are answered."""
    julia = ("julia> @captured CuArray([1])\n"
             "ERROR: CUDA error: operation failed due to a previous error during capture (code 901, "
             "ERROR_STREAM_CAPTURE_INVALIDATED)\nStacktrace:\n  [1] throw_api_error(res::CUDA.cudaError_enum)\n"
             "    @ CUDA ~/Julia/pkg/CUDA/lib/cudadrv/error.jl:91\n")
    kaldi = ('ERROR (VoskAPI:AddMatMat():cu-matrix.cc:1329) cublasStatus_t 8 : "CUBLAS_STATUS_ARCH_MISMATCH" returned '
             "from 'cublas_gemm'\nterminate called after throwing an instance of 'kaldi::KaldiFatalError'\n"
             "  what():  kaldi::KaldiFatalError\nAborted (core dumped)\n")
    assert first(julia) is None
    assert first(kaldi) is None
    # what() is read as the type the C++ runtime said was thrown, torch's c10::Error only when it said none.
    from torchdoctor.kb.parse import parse
    assert [b.type for b in parse(kaldi).exceptions][0] == "kaldi::KaldiFatalError"
    torch_abort = ("terminate called after throwing an instance of 'c10::Error'\n"
                   "  what():  CUDA error: an illegal memory access was encountered\n")
    assert [b.type for b in parse(torch_abort).exceptions] == ["c10::Error"]
    assert [b.type for b in parse("  what():  CUDA error: an illegal memory access was encountered\n").exceptions] \
        == ["c10::Error"]
    # Through torch the same statuses are PyTorch's causes.
    assert first("RuntimeError: CUDA error: operation failed due to a previous error during capture\n"
                 "CUDA kernel errors might be asynchronously reported at some other API call") is not None
    assert first("RuntimeError: CUDA error: CUBLAS_STATUS_ARCH_MISMATCH when calling `cublasCreate(handle)`\n") \
        is not None


def test_a_post_whose_environment_names_another_framework_is_not_answered_as_pytorchs():
    """A forum post's environment header names its framework ("MindSpore版本: mindspore=2.6.0",
    "tensorflow==2.12.0"): a NaN loss there is that framework's, a possible cause at most."""
    symptom = "在FP32模式下训练正常,但开启混合精度后几个epoch就会出现NaN,随后loss突变为NaN。\n"
    assert first(symptom) == "nan-in-backward"
    assert first("MindSpore版本: mindspore=2.6.0\nPython版本: Python=3.9\n" + symptom) is None
    assert first("Environment: tensorflow==2.12.0, CUDA 11.8\nmy loss becomes nan after a few hundred steps\n") is None
    # The same header beside PyTorch's own: the post is PyTorch's again.
    assert first("tensorflow==2.12.0\ntorch==2.1.0\npytorch loss becomes nan after a few hundred steps\n") \
        == "nan-in-backward"
    # A framework named in passing, with no version, does not make the post another framework's.
    assert first("I ported this model from TensorFlow and now the loss becomes nan after 300 steps\n") \
        == "nan-in-backward"


def test_code_in_another_frameworks_import_alias_is_that_frameworks():
    """Pasted MXNet or TensorFlow code uses the frameworks' aliases (`mx.nd`, `mx.gpu(0)`, `tf.keras`): the
    memory growth or error told under it is that framework's; without the code the words are PyTorch's."""
    told = "Memory always remains in gpu, after several runs, stale memory in gpu keeps increasing until CUDA out of memory.\n"
    mxnet = "ctx = mx.gpu(0)\narr = mx.nd.ones((200,200), ctx=ctx)\ndel arr\nctx.empty_cache()\n" + told
    tf = "model = tf.keras.Sequential(layers)\nmodel.fit(ds, epochs=10)\n" + told
    assert first(told) is not None
    assert first(mxnet) is None
    assert first(tf) is None
    # Beside torch's own code the post is PyTorch's again.
    assert first("x = torch.zeros(3).cuda()\n" + mxnet) is not None


def test_a_match_over_several_lines_is_judged_by_the_line_it_ends_on():
    """A warning line is weaker evidence; a pattern that needs two lines (a generic build message
    and, lines before, torch's extension build) is judged by where the message is, not where the
    context began."""
    build = ("D:\\envs\\lib\\site-packages\\torch\\utils\\cpp_extension.py:184: UserWarning: Error checking compiler "
             "version for cl: [WinError 2] The system cannot find the file specified.\n"
             "building 'my_ops._C' extension\n"
             "error: Microsoft Visual C++ 14.0 is required. Get it with \"Microsoft Visual C++ Build Tools\"\n")
    assert first(build) == "extension-build-error"
    # The same message from any package pip builds, with no torch in sight: a possible cause only.
    pip = "pip install -r requirements.txt\n" + build.splitlines()[-1] + "\n"
    assert first(pip) is None
    assert "extension-build-error" in [p.id for p in possible_causes(parse(pip), [])]


def test_a_precise_cause_takes_the_place_of_the_generic_failure_it_explains():
    """`refined_by`: the assert line above "device-side assert triggered" names the cause."""
    text = ("../aten/src/ATen/native/cuda/Indexing.cu:1146: indexSelectLargeIndex: block: [336,0,0], thread: [0,0,0] "
            "Assertion `srcIndex < srcSelectDimSize` failed.\n"
            "Traceback (most recent call last):\n  File \"train.py\", line 9, in <module>\n"
            "    loss.backward()\n"
            "RuntimeError: CUDA error: device-side assert triggered\n")
    ids = [m.id for m in explain(text)]
    assert ids[:2] == ["embedding-index-out-of-range", "cuda-device-side-assert"]
    plain = "RuntimeError: CUDA error: device-side assert triggered\n"
    assert [m.id for m in explain(plain)][0] == "cuda-device-side-assert"


def test_refined_by_names_existing_entries():
    for entry in KB.entries.values():
        assert set(entry.refined_by) <= set(KB.entries), entry.id


def test_a_traceback_without_its_header_still_has_frames():
    text = ('  File "train.py", line 115, in train\n    for batch in val_loader:\n'
            '  File "/venv/lib/python3.11/site-packages/torch/utils/data/dataloader.py", line 1310, in _try_get_data\n'
            '    data = self._data_queue.get(timeout=timeout)\n'
            "RuntimeError: DataLoader worker (pid 4242) is killed by signal: Killed.\n")
    block = parse(text).final
    assert block.frames[-1].endswith("dataloader.py:1310 in _try_get_data")


def test_a_traceback_cut_before_its_message_keeps_its_last_source_line():
    """A paste that stops after the last frame (an excerpt, a truncated log) has no exception line; the source
    line torch printed under that frame is what is left of the message, so it is read as a plain line."""
    cut = ("Traceback (most recent call last):\n"
           '  File "test_ppo.py", line 15, in <module>\n    model = PPO.load("ppo_cartpole")\n'
           '  File "/envs/test/lib/python3.8/site-packages/torch/serialization.py", line 788, in load\n'
           "    raise pickle.UnpicklingError(UNSAFE_MESSAGE + str(e)) from None\n")
    matches = explain(cut)
    assert matches and matches[0].id == "weights-only-unpickling"
    # With the message there, the source line is the frame's, not a line of its own: the message decides.
    whole = cut + "_pickle.UnpicklingError: invalid load key, 'v'.\n"
    assert all(line != "    raise pickle.UnpicklingError(UNSAFE_MESSAGE + str(e)) from None" for _, line in parse(whole).lines)
    assert explain(whole)[0].id != "weights-only-unpickling"


# ------------------------------------------------------------------ a message written as a template

@pytest.mark.parametrize("text,entry", [
    # An article's placeholders where PyTorch printed values.
    ("RuntimeError: The size of tensor a (N) must match the size of tensor b (M) at non-singleton dimension D",
     "broadcast-shape-mismatch"),
    ("RuntimeError: mat1 and mat2 shapes cannot be multiplied (AxB and CxD)", "shape-mismatch-matmul"),
    # A message retyped or read off a screenshot, its letter case garbled.
    ("RuntimeError: Expected object of scaLar type Long but got scalar type FLoat for argument #2 'target' "
     "in call to _thnn_nll_loss_forward", "loss-target-format"),
])
def test_a_message_written_as_a_template_is_read_from_its_fixed_words(text, entry):
    matches = explain(text)
    assert matches and matches[0].id == entry
    # Read from its words alone, it is an answer, but a modest one.
    assert matches[0].confidence <= 0.6


@pytest.mark.parametrize("retyped,printed,entry", [
    ("runtimeerror: cudnn error: cudnn_status_execution_failed",
     "RuntimeError: cuDNN error: CUDNN_STATUS_EXECUTION_FAILED", "cudnn-execution-failed"),
    ("RUNTIMEERROR: CUDA ERROR: DEVICE-SIDE ASSERT TRIGGERED",
     "RuntimeError: CUDA error: device-side assert triggered", "cuda-device-side-assert"),
    ("runtimeerror: cuda error: device-side assert triggered",
     "RuntimeError: CUDA error: device-side assert triggered", "cuda-device-side-assert"),
    ("oserror: [winerror 1455] paging file too small", "OSError: [WinError 1455] paging file too small",
     "windows-pagefile-too-small"),
])
def test_a_whole_message_in_another_letter_case_is_a_modest_answer(retyped, printed, entry):
    matches = explain(retyped)
    assert matches and matches[0].id == entry and matches[0].confidence <= 0.65, matches[:2]
    # As printed, the same message is a fuller answer.
    assert explain(printed)[0].confidence > matches[0].confidence


def test_a_letter_case_reading_needs_the_whole_pattern_not_its_words():
    # The words of the cuDNN status, but not the status itself.
    assert first("cudnn status: execution failed") is None


def test_fixed_words_in_part_or_beside_a_whole_message_are_not_enough():
    # Too few of the message's fixed words, and not its head cut short (which is read: torch 0.3 said
    # "The size of tensor a must match the size of tensor b at non-singleton dimension 0"): nothing.
    assert first("RuntimeError: tensor a must match tensor b") is None
    # A message matched as written always outranks another's fixed words, which are then not read.
    text = ("RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 7.79 GiB total capacity)\n"
            "earlier: The size of tensor a (N) must match the size of tensor b (M) at non-singleton dimension D")
    assert [m.id for m in explain(text)] == ["cuda-out-of-memory"]


# ------------------------------------------------------------------ a pattern bound to an exception type

def test_a_typed_pattern_in_prose_needs_its_type_to_be_an_answer():
    # module-init-not-called's message counts only as an AttributeError.
    named = "I got `AttributeError: 'Net' object has no attribute '_modules'` when building the model"
    assert first(named) == "module-init-not-called"
    # The words alone, no type named: a possible cause to look at, never an answer.
    untyped = parse("I keep seeing object has no attribute '_modules' when I build my net")
    assert explain(untyped) == []
    assert "module-init-not-called" in [p.id for p in possible_causes(untyped, [])]
    # Another type named: the words are something else's.
    assert first("raised KeyError: object has no attribute '_modules' in my dict wrapper") is None


def test_a_terminal_screen_copied_without_line_breaks_is_split_at_its_padding():
    pad = " " * 40
    flattened = pad.join([
        "WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 899505 closing signal SIGTERM",
        "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) local_rank: 4 (pid: 899509) of binary: /usr/bin/python",
        "Traceback (most recent call last):",
        'File "/usr/bin/torchrun", line 33, in <module>',
    ])
    lines = paste.clean(flattened).lines
    assert lines[1].startswith("ERROR:torch.distributed") and lines[2] == "Traceback (most recent call last):"
    # The exit code -9 is then read on a line of its own, not discounted by the WARNING before it.
    assert first(flattened) == "host-oom-killed"
    # One wide gap in a long line is alignment, not a screen's padding.
    aligned = "torch 2.3.0+cu121" + pad + "x" * 200
    assert paste.clean(aligned).lines == [aligned]


def test_weak_hits_that_agree_stay_a_possible_cause(monkeypatch):
    """Three prose mentions, each below CONFIDENT, nudge each other up but never into an answer;
    one confident hit with the same agreement still is one."""
    from torchdoctor.kb import load
    from torchdoctor.kb import matcher
    from torchdoctor.kb.parse import parse

    kb = load()
    target = "cudnn-execution-failed"

    def hits(strength):
        def fake(head, parsed, stacks):
            if head.id != target:
                return []
            return [matcher.Hit("line", n, f"line {n}", strength, {}) for n in (1, 2, 3)]
        return fake

    monkeypatch.setattr(matcher, "_hits_for", hits(0.45))
    weak = matcher.match_parsed(parse("a\nb\nc\n"), kb)
    assert [m.id for m in weak] == [target]
    assert weak[0].confidence < matcher.CONFIDENT

    monkeypatch.setattr(matcher, "_hits_for", hits(0.55))
    strong = matcher.match_parsed(parse("a\nb\nd\n"), kb)
    assert strong[0].id == target and strong[0].confidence >= matcher.CONFIDENT


# Raised on torch 2.13: nn.BCEWithLogitsLoss()(torch.randn(4, 3), torch.randint(0, 2, (4, 3))).
BCE_WITH_INTEGER_LABELS = '''Traceback (most recent call last):
  File "train.py", line 41, in <module>
    loss = criterion(logits, labels)
  File "/usr/lib/python3.11/site-packages/torch/nn/modules/loss.py", line 838, in forward
    return F.binary_cross_entropy_with_logits(
  File "/usr/lib/python3.11/site-packages/torch/nn/functional.py", line 3693, in binary_cross_entropy_with_logits
    return torch.binary_cross_entropy_with_logits(
RuntimeError: result type Float can't be cast to the desired output type Long
'''
# cv516Buaa/tph-yolov5#48: the same message from an in-place clamp_ of integer grid indices.
INPLACE_CLAMP = '''  File "/content/drive/MyDrive/Yolo v5/utils/loss.py", line 240, in build_targets
    indices.append((b, a, gj.clamp_(0, gain[3] - 1), gi.clamp_(0, gain[2] - 1)))  # image, anchor, grid indices
RuntimeError: result type Float can't be cast to the desired output type long int
'''


def test_the_cast_message_from_inside_bce_is_the_loss_target():
    from torchdoctor.kb import explain

    assert [m.id for m in explain(BCE_WITH_INTEGER_LABELS)][:2] == ["loss-target-format", "inplace-result-type-cast"]
    assert [m.id for m in explain(INPLACE_CLAMP)][0] == "inplace-result-type-cast"
    assert "loss-target-format" not in [m.id for m in explain(INPLACE_CLAMP)]


# ------------------------------------------------------------------ words a hyphen joins

@pytest.mark.parametrize("text,expected", [
    # A blog's title, the message with its words hyphenated and re-cased.
    ("Only one-element tensors can be converted to Python scalars\n\n"
     "Tensors can only be converted to Python scalars if they have a single element.",
     "tensor-item-multiple-elements"),
    # Prose that names the failure in its hyphenated spelling.
    ("When fine-tuning a 7B model on my 24 GB card, PyTorch throws the dreaded CUDA out-of-memory error.",
     "cuda-out-of-memory"),
])
def test_a_message_whose_words_a_hyphen_joins_is_recognised(text, expected):
    matches = explain(text)
    assert matches and matches[0].id == expected
    # The evidence is the line as the user wrote it.
    assert "-" in matches[0].evidence[0].text


@pytest.mark.parametrize("text", [
    # Hyphenated words, but not the message: one-element tensors converting fine is no failure.
    "Converting one-element tensors to Python scalars with .item() is cheap and well-defined.",
    # Out-of-memory on the host, in the same spelling: not the GPU's.
    "The data-loading step hit an out-of-memory condition on the host after the 3rd epoch.",
    # A package name written with hyphens is not two words: no torch wheel is missing here.
    "ERROR: No matching distribution found for torch-scatter==2.1.2+pt21cu121",
])
def test_hyphenated_words_that_are_not_the_message_stay_quiet(text):
    assert first(text) not in ("tensor-item-multiple-elements", "cuda-out-of-memory", "no-wheel-for-python")


def test_a_message_matched_as_written_is_not_read_again_with_hyphens():
    text = ("RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 7.79 GiB total capacity)\n"
            "This out-of-memory error happens only with the one-element tensors path.")
    matches = explain(text)
    assert matches[0].id == "cuda-out-of-memory"
    assert "-" not in matches[0].evidence[0].text


# ------------------------------------------------------------------ a quoted head, then prose

POST = "在训练的时候遇到了下面的报错:\n\n{}\n\n这个错误通常是因为张量的形状不对,下面说说怎么解决。\n"


@pytest.mark.parametrize("quote,expected", [
    ("RuntimeError: mat1 and mat2 shapes cannot be", "shape-mismatch-matmul"),
    ("RuntimeError: one of the variables needed for gradient computation has been", "inplace-modified-for-grad"),
    ("RuntimeError: Sizes of tensors must match except in", "cat-size-mismatch"),
])
def test_a_message_quoted_short_before_the_posts_prose_is_read_as_cut(quote, expected):
    matches = explain(POST.format(quote))
    assert matches and matches[0].id == expected


@pytest.mark.parametrize("quote", [
    # A whole message of no entry, quoted the same way: nothing to read as cut.
    "ValueError: too many values to unpack (expected 2)",
    # A head several entries share names none of them.
    "RuntimeError: Error(s) in loading state_dict for",
    # A line that stops mid-word with more text after it was not cut there by the quote.
    "RuntimeError: mat1 and mat2 shapes cannot be multip",
])
def test_a_whole_or_shared_quoted_message_before_prose_is_not_read_as_cut(quote):
    assert explain(POST.format(quote)) == []


def test_an_exception_given_as_its_class_and_message_is_read_as_the_exception():
    # print(type(e), e)-style summaries (torch.onnx's "Exception summary", loggers) name the class in angle brackets.
    text = ("## Exception summary\n\n<class 'torch.OutOfMemoryError'>: CUDA out of memory. Tried to allocate 2.00 GiB. "
            "GPU 0 has a total capacity of 23.64 GiB of which 1.20 GiB is free.\n")
    blocks = parse(text).exceptions
    assert blocks and blocks[-1].type == "torch.OutOfMemoryError"
    assert first(text) == "cuda-out-of-memory"
    # A class named in prose, with no message after it, is no exception line.
    assert parse("the handler receives <class 'RuntimeError'> and logs it").exceptions == []


# ------------------------------------------------------------------ Jupyter frames and their arrow lines

_JUPYTER_CUT = """\
ImportError                               Traceback (most recent call last)
<ipython-input-3-b61a87f3> in <module>
      1 import torch
----> 2 from torch.utils import tensorboard

/opt/conda/lib/python3.6/site-packages/torch/utils/tensorboard/__init__.py in <module>
      2     from tensorboard.summary.writer.record_writer import RecordWriter  # noqa F401
      3 except ImportError:
----> 4     raise ImportError('TensorBoard logging requires TensorBoard with Python summary writer installed. '
      5                       'This should be available in 1.14 or above.')
"""


def test_an_ipython_frames_line_is_the_one_its_arrow_marks():
    block = parse(paste.clean(_JUPYTER_CUT).text).exceptions[0]
    assert [c.split()[:2] for c in block.code] == [["---->", "2"], ["---->", "4"]]


def test_a_notebook_paste_cut_before_its_message_is_read_from_the_raise_line():
    assert first(_JUPYTER_CUT) == "tensorboard-missing-or-too-old"


def test_a_context_line_around_the_arrow_is_not_evidence():
    # The message sits on a context line of a frame whose arrow points elsewhere: not the failing line.
    moved = _JUPYTER_CUT.replace("----> 4     raise", "      4     raise").replace(
        "      5                       'This", "----> 5                       'This")
    assert first(moved) != "tensorboard-missing-or-too-old"


def test_a_headerless_ipython_frame_keeps_only_its_arrow_line_as_a_plain_line():
    # Without a header the frame's line is also kept as a plain line: the arrow line, not the context before it.
    frames = "\n".join(_JUPYTER_CUT.splitlines()[5:]) + "\n"
    kept = [text.split()[:2] for _, text in parse(paste.clean(frames).text).lines]
    assert kept == [["---->", "4"]]
