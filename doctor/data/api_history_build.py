"""Building torch_api_history.json: which torch names a release added, and which it removed.

    python -m torchdoctor.data.api_history_build OUT.json torch-1.0.1-*.whl torch-1.1.0-*.whl ...

One wheel per minor release (any platform: only its Python sources and type stubs are read, with
`ast`; nothing in them is imported or run). A module's names are what its top level binds (defs,
classes, assignments, imports, `import *` of another torch module) and its submodules; torch's own
namespace also gets torch/_C/_VariableFunctions.pyi (a loop over `dir()` copies it in at import),
and `torch.Tensor` the methods of the Python class and of its C base in the stubs. Those stubs
took their present layout in torch 1.6, so `torch` and `torch.Tensor` are compared from 1.6 on.

A name is *added* in release N when it is in every release from N to the newest and in none
before; *removed* in N when it was in every release from its first to the one before N and in
none since. A name that came and went is neither: which one a user has cannot be told from the
message. A keyword argument is *added* in release N to a callable whose every earlier signature refused
it (no such parameter, no **kwargs: what **kwargs took is unknown) and whose every signature since names
it. Private modules churn every release and user code does not name them, so only public modules (and
the few private ones old code imported: torch._six, torch._utils, ...) are kept.
"""

from __future__ import annotations

import ast
import json
import re
import sys
import time
import warnings
import zipfile
from typing import Any, NamedTuple

from .tables import major_minor

# Private modules that code outside torch imported, and that users therefore see in errors.
PRIVATE_MODULES = frozenset({"torch._six", "torch._utils", "torch.utils._pytree", "torch._jit_internal", "torch._tensor"})
# Private names of torch's own namespace that are whole subsystems, named in user code and errors.
PRIVATE_TORCH_NAMES = frozenset({"_dynamo", "_inductor", "_export", "_functorch", "_higher_order_ops", "_library",
                                 "_logging", "_subclasses", "_prims", "_refs", "_decomp", "_six", "_utils"})
# Internal or test-only trees.
SKIP_MODULES = ("torch.testing", "torch.fx.experimental", "torch.utils.benchmark", "torch.utils.hipify",
                "torch.ao.quantization.fx", "torch.onnx.symbolic_opset", "torch.utils.data.datapipes", "torch.contrib",
                "torch.include")
# Names a module binds by importing them from elsewhere (the standard library, typing): nobody
# imports `os` from a torch module, and their comings and goings say nothing of torch's API.
IMPORTED = frozenset("""
os sys re math warnings functools itertools collections typing abc inspect logging copy weakref contextlib numbers
dataclasses dataclass field Enum auto Path torch nn F np numpy Optional List Dict Tuple Union Any Callable Sequence
Iterable Iterator TypeVar Type cast overload namedtuple OrderedDict defaultdict Mapping Set FrozenSet Generic Protocol
Literal Final ClassVar Tensor Number wraps partial reduce chain deque textwrap traceback threading io pickle struct
tempfile shutil subprocess glob json time datetime types operator enum builtins importlib platform ctypes string
random hashlib uuid zipfile tarfile errno signal queue socket pathlib gc atexit cached_property lru_cache
total_ordering NamedTuple TYPE_CHECKING annotations absolute_import division print_function unicode_literals
""".split())


def _module_name(path: str) -> str:
    parts = path.rsplit(".", 1)[0].split("/")
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


# Typing names a module imports are annotations, not its API.
_TYPING = ("typing", "typing_extensions", "collections.abc")


class _Module(NamedTuple):
    names: set[str]  # bound at the top level, unconditionally
    conditional: set[str]  # bound only under an if or a try: by the build, the platform, an optional package
    stars: list[tuple[int, str | None]]  # `from X import *`: (level, X)
    classes: dict[str, set[str]]
    exported: list[str] | None  # __all__, where it is a literal
    parameters: dict[str, set[str]]  # keyword parameters of each function, and of each class's __init__


def _bound(tree: ast.Module, stub: bool) -> _Module:
    """What the module's top level binds. A stub's own imports and private aliases (`_size`, `AnyStr`)
    are the stub's, not the module's; a name the top level deletes again is not bound."""
    found = _Module(set(), set(), [], {}, None, {})

    def keywords(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
        # A source file's @overload is for type checkers; the def that runs comes after it.
        if not stub and any((d.id if isinstance(d, ast.Name) else getattr(d, "attr", "")) == "overload"
                            for d in fn.decorator_list):
            return set()
        a = fn.args
        # "**" stands for **kwargs: such a callable refuses no keyword by its signature
        return {p.arg for p in [*a.args, *a.kwonlyargs] if p.arg not in ("self", "cls")} | ({"**"} if a.kwarg else set())
    exported: list[str] = []
    has_all = False

    def bind(name: str, conditional: bool) -> None:
        (found.conditional if conditional else found.names).add(name)

    def walk(body: list[ast.stmt], conditional: bool) -> None:
        nonlocal has_all
        for st in body:
            if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
                bind(st.name, conditional)
                # (a stub's overloads: the union of their parameters)
                found.parameters.setdefault(st.name, set()).update(keywords(st))
            elif isinstance(st, ast.ClassDef):
                bind(st.name, conditional)
                members = found.classes.setdefault(st.name, set())
                for b in st.body:
                    if isinstance(b, (ast.FunctionDef, ast.AsyncFunctionDef)) and b.name == "__init__":
                        found.parameters.setdefault(st.name, set()).update(keywords(b))
                    if isinstance(b, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                        members.add(b.name)
                    elif isinstance(b, ast.Assign):
                        members.update(t.id for t in b.targets if isinstance(t, ast.Name))
                    elif isinstance(b, ast.AnnAssign) and isinstance(b.target, ast.Name):
                        members.add(b.target.id)
            elif isinstance(st, (ast.Assign, ast.AugAssign)):
                targets = st.targets if isinstance(st, ast.Assign) else [st.target]
                for n in (n for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)):
                    if n.id == "__all__" and isinstance(st.value, (ast.List, ast.Tuple)):
                        has_all = True
                        exported.extend(e.value for e in st.value.elts
                                        if isinstance(e, ast.Constant) and isinstance(e.value, str))
                    bind(n.id, conditional)
            elif isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name):
                bind(st.target.id, conditional)
            elif isinstance(st, ast.Delete) and not conditional:
                for t in st.targets:
                    if isinstance(t, ast.Name):
                        found.names.discard(t.id)
                        found.conditional.discard(t.id)
            elif isinstance(st, ast.Import):
                if not stub:
                    for a in st.names:
                        bind(a.asname or a.name.split(".")[0], conditional)
            elif isinstance(st, ast.ImportFrom):
                if st.module in _TYPING or (stub and st.names[0].name != "*"):
                    continue
                for a in st.names:
                    if a.name == "*":
                        found.stars.append((st.level, st.module))
                    else:
                        bind(a.asname or a.name, conditional)
            elif isinstance(st, ast.If) and "TYPE_CHECKING" in ast.unparse(st.test):
                walk(st.orelse, True)  # what only a type checker sees is not there at run time
            elif isinstance(st, ast.With):
                walk(st.body, conditional)
            elif isinstance(st, (ast.If, ast.Try)) or type(st).__name__ == "TryStar":
                walk(st.body, True)
                for handler in getattr(st, "handlers", []):
                    walk(handler.body, True)
                walk(getattr(st, "orelse", []) or [], True)
                walk(getattr(st, "finalbody", []) or [], conditional)

    walk(tree.body, False)
    found.conditional.difference_update(found.names)
    if stub:
        for bound in (found.names, found.conditional):
            bound.difference_update({n for n in bound if n.startswith("_")})
        for members in found.classes.values():
            members.difference_update({n for n in members if n.startswith("_")})
    return found._replace(exported=exported if has_all else None)


def _served_by_getattr(tree: ast.Module) -> set[str]:
    """The strings of a module with a top-level `__getattr__` (PEP 562): names it may still serve,
    deprecated (`torch.has_cuda`) or imported lazily, after their definitions left the source."""
    if not any(isinstance(st, ast.FunctionDef) and st.name == "__getattr__" for st in tree.body):
        return set()
    return {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
            and n.value.isidentifier()}


class Surface(NamedTuple):
    modules: dict[str, set[str]]  # every name each module has
    conditional: dict[str, set[str]]  # of those, the ones only bound under an if or a try
    served: dict[str, set[str]]  # what a module's __getattr__ may answer for
    parameters: dict[str, set[str]]  # "module.callable": its keyword parameters


def surface(wheel: str) -> Surface:
    """The names of one torch wheel's modules."""
    read: dict[str, _Module] = {}
    served: dict[str, set[str]] = {}
    stars: dict[str, list[str]] = {}
    classes: dict[str, set[str]] = {}
    with zipfile.ZipFile(wheel) as z:
        for path in z.namelist():
            if not path.startswith("torch/") or not path.endswith((".py", ".pyi")) or "/include/" in path:
                continue
            module = _module_name(path)
            source = z.read(path).decode("utf-8", "replace")
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    tree = ast.parse(source)
                except SyntaxError:  # torch 1.0 still had a few Python 2 print statements
                    try:
                        tree = ast.parse(re.sub(r"^(\s*)print ", r"\1print_", source, flags=re.M))
                    except SyntaxError:
                        continue
            stub = path.endswith(".pyi")
            found = _bound(tree, stub)
            if module in read:  # a module and its stub: one module
                seen = read[module]
                seen.names.update(found.names)
                seen.conditional.update(found.conditional)
                seen.classes.update(found.classes)
                for name, params in found.parameters.items():
                    seen.parameters.setdefault(name, set()).update(params)
                if seen.exported is None and found.exported is not None:
                    read[module] = seen._replace(exported=found.exported)
            else:
                read[module] = found
            if not stub:
                served.setdefault(module, set()).update(_served_by_getattr(tree))
            package = path.endswith(("__init__.py", "__init__.pyi"))
            for level, target in found.stars:
                if level:
                    base = module.split(".") if package else module.split(".")[:-1]
                    base = base[:len(base) - (level - 1)]
                    target = ".".join(base + ([target] if target else []))
                # torch._C's stub lists more than the extension holds (typing names, JIT internals),
                # and torch exports only some of it: its functions come from _VariableFunctions below.
                if target and target != "torch._C":
                    stars.setdefault(module, []).append(target)
            for name, members in found.classes.items():
                classes.setdefault(f"{module}.{name}", set()).update(members)
    modules = {m: found.names | found.conditional for m, found in read.items()}
    conditional = {m: set(found.conditional) for m, found in read.items()}
    for module in list(modules):
        if "." in module:
            parent, child = module.rsplit(".", 1)
            modules.setdefault(parent, set()).add(child)
    for _ in range(3):  # `import *` of a module that itself imports * ...
        for module, targets in stars.items():
            for target in targets:
                if target not in read:
                    continue
                exported = read[target].exported
                # `import *` takes __all__, else the public names the module binds (not its submodules)
                names = set(exported) if exported is not None else {
                    n for n in read[target].names | read[target].conditional if not n.startswith("_")}
                modules[module].update(names)
                conditional.setdefault(module, set()).update(names & conditional.get(target, set()))
    modules["torch"].update(n for n in modules.get("torch._C._VariableFunctions", ()) if not n.startswith("__"))
    tensor: set[str] = set()
    for key in ("torch._tensor.Tensor", "torch.tensor.Tensor", "torch.Tensor", "torch._C._TensorBase", "torch._C.TensorBase"):
        tensor |= classes.get(key, set())
    modules["torch.Tensor"] = tensor
    parameters = {f"{m}.{name}": params for m, found in read.items() for name, params in found.parameters.items()}
    if "torch._C._VariableFunctions" in read:
        for name, params in read["torch._C._VariableFunctions"].parameters.items():
            parameters.setdefault(f"torch.{name}", set()).update(params)
    return Surface(modules, conditional, served, parameters)


def _kept(module: str, name: str) -> bool:
    if name.startswith("__") or name in IMPORTED or module.startswith(SKIP_MODULES):
        return False
    if any(part.startswith("_") for part in module.split(".")[1:]) and module not in PRIVATE_MODULES:
        return False
    if module == "torch.Tensor" and name.startswith("_"):
        return False  # Tensor's internals come and go with the C++ binding
    return not (module == "torch" and name.startswith("_") and name not in PRIVATE_TORCH_NAMES)


def _first_compared(versions: list[str], module: str) -> int:
    """The first release a module's names are compared from. torch's namespace and Tensor are read
    from stubs, whose layout changed in 1.6 (torch/__init__.pyi before, torch/_C/*.pyi after):
    compared across that change, names seem to come and go."""
    if module not in ("torch", "torch.Tensor"):
        return 0
    return next((i for i, v in enumerate(versions) if (major_minor(v) or (0, 0)) >= (1, 6)), 0)


def history(releases: list[tuple[str, Surface]]) -> dict[str, Any]:
    versions = [v for v, _ in releases]
    surfaces = [(v, s.modules) for v, s in releases]
    # What the newest release's module-level __getattr__ may still answer for is not removed.
    served = releases[-1][1].served
    # A name bound only under an if or a try in some release depends on the build (a backend, the
    # platform, an optional package): its absence says nothing of the torch's age.
    conditional: dict[str, set[str]] = {}
    for _, s in releases:
        for module, names in s.conditional.items():
            conditional.setdefault(module, set()).update(names)
    last = len(versions) - 1
    added: dict[str, dict[str, int]] = {}
    removed: dict[str, dict[str, list[int]]] = {}
    for module in sorted(set().union(*(set(s) for _, s in surfaces))):
        start = _first_compared(versions, module)
        for name in sorted(set().union(*(s.get(module, set()) for _, s in surfaces))):
            if not _kept(module, name) or name in conditional.get(module, ()):
                continue
            present = [i >= start and name in s.get(module, ()) for i, (_, s) in enumerate(surfaces)]
            at = [i for i, p in enumerate(present) if p]
            if not at:
                continue
            first, final = at[0], at[-1]
            if not all(present[first:final + 1]):
                continue  # came and went: not one history
            if final == last and first > start:
                added.setdefault(module, {})[name] = first
            elif final < last and final >= start and name not in served.get(module, ()):
                removed.setdefault(module, {})[name] = [first, final + 1]
    return {"versions": versions, "added": added, "removed": removed, "arguments": _arguments(releases)}


def _arguments(releases: list[tuple[str, Surface]]) -> dict[str, dict[str, int]]:
    """{callable's own name: {keyword: the release that added it}}, for the public callables of kept
    modules: the first release that names the keyword, where every earlier release of the callable
    refused it (no such parameter, no **kwargs) and every later one names it too. Keyed by the bare name, as
    "DataLoader.__init__() got an unexpected keyword argument ..." names it; where two torch callables
    share a name, the earlier release, and none where one of them never refused it."""
    out: dict[str, dict[str, int]] = {}
    always: set[tuple[str, str]] = set()  # (name, keyword) some callable of that name always took
    newest = releases[-1][1].parameters
    for key, params in newest.items():
        module, name = key.rsplit(".", 1)
        if name.startswith("_") or not _kept(module, name):
            continue
        start = _first_compared([v for v, _ in releases], module)
        seen = [(i, s.parameters.get(key)) for i, (_, s) in enumerate(releases) if i >= start]
        for keyword in params:
            if keyword.startswith("_") or keyword == "**":
                continue
            named = [i for i, p in seen if p is not None and keyword in p]
            first = min(named)
            if any(p is None or keyword not in p for i, p in seen if i >= first):
                continue  # came and went, or the callable went missing in between
            before = [p for i, p in seen if p is not None and i < first]
            if not before:  # there since the callable's first release
                always.add((name, keyword))
                continue
            if any("**" in p for p in before):
                continue  # taken by **kwargs before it was named: accepted, or refused further in, unknown
            known = out.setdefault(name, {})
            known[keyword] = min(known.get(keyword, first), first)
    for name, keyword in always:  # another callable of that name had it all along: no verdict
        out.get(name, {}).pop(keyword, None)
    # Nor where another callable of that name refuses it in the newest release (nn.Hardswish takes no
    # device=, a quantized Hardswish does; torch.jit.trace is defined in the private torch.jit._trace):
    # the message could be that one's, in any torch.
    for key, params in newest.items():
        name = key.rsplit(".", 1)[1]
        if name in out and "**" not in params:
            for keyword in [k for k in out[name] if k not in params]:
                del out[name][keyword]
    return {name: known for name, known in out.items() if known}


def main(argv: list[str]) -> int:
    if len(argv) < 3:
        print(__doc__.splitlines()[2].strip(), file=sys.stderr)
        return 2
    out, wheels = argv[1], argv[2:]
    surfaces = []
    for wheel in wheels:
        m = re.search(r"torch-(\d+)\.(\d+)", wheel.rsplit("/", 1)[-1])
        if not m:
            print(f"not a torch wheel name: {wheel}", file=sys.stderr)
            return 2
        surfaces.append(((int(m.group(1)), int(m.group(2))), surface(wheel)))
    surfaces.sort(key=lambda vs: vs[0])
    table = history([(f"{a}.{b}", s) for (a, b), s in surfaces])
    table["schema"] = 1
    table["source"] = ["https://pypi.org/project/torch/#history"]
    table["updated"] = time.strftime("%Y-%m")
    table["provenance"] = ("derived: torch wheels from PyPI, one per minor release; names bound at the top level of "
                           "each module's Python sources and type stubs, and keyword parameters of its callables "
                           "(doctor/data/api_history_build.py)")
    with open(out, "w", encoding="utf-8") as fh:
        json.dump(table, fh, sort_keys=True, separators=(",", ":"))
        fh.write("\n")
    print(f"{len(surfaces)} releases {table['versions'][0]}..{table['versions'][-1]}: "
          f"{sum(map(len, table['added'].values()))} names added, {sum(map(len, table['removed'].values()))} removed",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
