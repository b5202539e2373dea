"""Python source files read as their API, the way the standard library's docstrings are
read (`collect/docstrings.py`): one document per public module, class, function, method,
property and attribute (`timeout: int = 10` over its docstring) that has a docstring, uri `python:<name>`, the text `qualname(signature)`
over the docstring. The question templates then ask about a library's API as they ask
about the standard library's ("What does `click.echo()` do?", "What is the `nl`
parameter of `click.echo()`?") instead of reading code as prose ("What does the
documentation say about ) -> Result?").

The files are parsed with `ast`, never imported: nothing of a user's code runs, and its
dependencies need not be installed. An object is named where its users meet it: a
package's `__init__.py` that re-exports it (`from .core import Command`, or `*` from a
module) gives its public face, `click.Command` rather than `click.core.Command`; an object
defined in a private module (`attr._make`) is read only when a public package re-exports
it. Test files (`tests/`, `test_*.py`, `conftest.py`) and, beside a library's packages,
loose scripts (`examples/`, `bench/`, `docs/conf.py`) are not its API and are skipped.
"""

from __future__ import annotations

import ast
import copy
import inspect
from collections.abc import Iterator
from pathlib import PurePosixPath

from jupiter.collect.result import CollectResult, SourceFile
from jupiter.collect.result import count as _count
from jupiter.records import Document

SUFFIXES = (".py", ".pyi")
# reasons a Python file gave no document, as the collect stage counts them
PY_TEST = "python_test"
PY_SYNTAX = "python_syntax_error"
PY_NO_API = "python_no_api"
PY_LOOSE = "python_outside_package"
_TOP = {PurePosixPath("."), PurePosixPath("src")}
# one fix for each: the collect stage says it once after the reasons it covers
_AS_TEXT = (
    "Python files read as their API: tests, scripts beside the packages, files this Python "
    "cannot parse or with nothing documented give none; the source's python: text reads "
    "them as text"
)
FIXES = {PY_TEST: _AS_TEXT, PY_NO_API: _AS_TEXT, PY_SYNTAX: _AS_TEXT, PY_LOOSE: _AS_TEXT}
_TEST_DIRS = {"tests", "test"}
_PROPERTY = {"property", "cached_property"}
_DefNode = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
_TRY = (ast.Try, getattr(ast, "TryStar", ast.Try))  # try/except*: Python 3.11 on


PyFile = SourceFile  # its files, as the source hands them over


def is_python(name: str) -> bool:
    return name.lower().endswith(SUFFIXES)


def is_test(rel: PurePosixPath) -> bool:
    name = rel.name
    return (
        any(part in _TEST_DIRS for part in rel.parts[:-1])
        or name.startswith("test_")
        or name.removesuffix("i").endswith("_test.py")
        or name == "conftest.py"
    )


def module_name(rel: PurePosixPath, packages: set[PurePosixPath], root_name: str) -> str:
    """The dotted module a file defines: its folders up to the outermost one holding an
    `__init__.py` (so `src/click/core.py` is `click.core`); `root_name` names the source's
    own folder when that is itself a package."""
    stem = rel.name.split(".", 1)[0]
    parts = [] if stem == "__init__" else [stem]
    folder = rel.parent
    while folder in packages:
        parts.insert(0, folder.name if folder.parts else root_name)
        if not folder.parts:
            break
        folder = folder.parent
    return ".".join(p for p in parts if p) or stem


def is_private(module: str) -> bool:
    return any(part.startswith("_") for part in module.split("."))


def api_documents(
    files: list[PyFile], source: str, rejects: CollectResult | None = None, root_name: str = ""
) -> list[Document]:
    """Documents for the public API the files define, sorted by uri; a file that gives
    none is counted in `rejects` (a test file, one this Python cannot parse, one with no
    documented public name)."""
    packages = {f.rel.parent for f in files if f.rel.name.split(".", 1)[0] == "__init__"}
    modules: dict[str, tuple[PyFile, ast.Module, bool]] = {}
    for f in sorted(files, key=lambda f: f.rel):
        if is_test(f.rel):
            _count(rejects, PY_TEST, f.where)
            continue
        if packages and f.rel.parent not in packages and f.rel.parent not in _TOP:
            # beside a library's packages, a loose script (examples/, bench/, docs/conf.py)
            # is not its API; a single-module library sits at the top or in src/
            _count(rejects, PY_LOOSE, f.where)
            continue
        try:
            tree = ast.parse(f.text)
        # ValueError: a NUL byte in the source; RecursionError: nesting past the parser's
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            _count(rejects, PY_SYNTAX, f.where)
            continue
        name = module_name(f.rel, packages, root_name)
        modules.setdefault(name, (f, tree, f.rel.name.startswith("__init__.")))
    faces = _public_faces({m: (t, pkg) for m, (_, t, pkg) in modules.items()})
    docs: dict[str, Document] = {}
    for name, (f, tree, _) in sorted(modules.items()):
        got = list(_module_documents(name, tree, faces, f, source))
        for doc in got:
            docs.setdefault(doc.uri, doc)  # a name defined twice: the first keeps it
        if not got:
            _count(rejects, PY_NO_API, f.where)
    return [docs[uri] for uri in sorted(docs)]


def _statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """A module's or class's statements, those under `if`/`try` included (definitions made
    per platform or per Python version), not those inside functions."""
    for node in body:
        if isinstance(node, ast.If):
            yield from _statements(node.body)
            yield from _statements(node.orelse)
        elif isinstance(node, _TRY):
            for part in (node.body, node.orelse, node.finalbody):
                yield from _statements(part)
            for handler in node.handlers:
                yield from _statements(handler.body)
        else:
            yield node


def _public(tree: ast.Module) -> set[str] | None:
    """Names the module declares public: its `__all__` when written as a literal list or
    tuple of strings, else None (every name without a leading underscore)."""
    for node in _statements(tree.body):
        if not isinstance(node, ast.Assign):
            continue
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            try:
                value = ast.literal_eval(node.value)
            except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
                return None  # computed (`__all__ = base.__all__ + [...]`): not read
            if isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
                return set(value)
            return None
    return None


def _exported(name: str, public: set[str] | None) -> bool:
    """Whether a module makes `name` public (see `_public`)."""
    return name in public if public is not None else not name.startswith("_")


def _defined(tree: ast.Module) -> list[str]:
    return [
        n.name
        for n in _statements(tree.body)
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
    ]


def _public_faces(modules: dict[str, tuple[ast.Module, bool]]) -> dict[str, str]:
    """{defining module's name for an object: the name a public package gives it}, from
    the packages' `from .x import Y [as Z]` and `from .x import *` lines. Chains are
    followed (a package re-exporting a subpackage's re-export); of several faces the
    shortest (fewest dots, then fewest characters) wins."""
    candidates: dict[str, set[str]] = {}
    for module, (tree, is_package) in modules.items():
        if not is_package or is_private(module):
            continue
        public = _public(tree)
        for node in _statements(tree.body):
            if not isinstance(node, ast.ImportFrom):
                continue
            base = _resolve(node.module, node.level, module)
            if base is None:
                continue
            for alias in node.names:
                if alias.name == "*":
                    if base in modules:
                        star_tree = modules[base][0]
                        star_public = _public(star_tree)
                        for name in _defined(star_tree):
                            if _exported(name, star_public):
                                candidates.setdefault(f"{base}.{name}", set()).add(
                                    f"{module}.{name}"
                                )
                    continue
                shown = alias.asname or alias.name
                if not _exported(shown, public):
                    continue
                candidates.setdefault(f"{base}.{alias.name}", set()).add(f"{module}.{shown}")
    faces: dict[str, str] = {}
    for name, names in candidates.items():
        faces[name] = min(names, key=_rank)
    for _ in range(4):  # follow chains: a.b._c.X -> a.b.X -> a.X
        changed = False
        for name, face in faces.items():
            better = faces.get(face)
            if better is not None and better != face and _rank(better) < _rank(face):
                faces[name] = better
                changed = True
        if not changed:
            break
    return faces


def _rank(name: str) -> tuple[int, int]:
    return name.count("."), len(name)


def _resolve(module: str | None, level: int, importer: str) -> str | None:
    """The absolute module a `from` import names, seen from package `importer`."""
    if level == 0:
        return module
    parts = importer.split(".")
    if level - 1 > len(parts):
        return None
    base = parts[: len(parts) - (level - 1)]
    return ".".join([*base, module] if module else base) or None


def _module_documents(
    module: str, tree: ast.Module, faces: dict[str, str], f: PyFile, source: str
) -> Iterator[Document]:
    private = is_private(module)
    doc = ast.get_docstring(tree)
    if doc and not private:
        yield _document(source, module, "", "module", "", [], doc, f, 1)
    public = _public(tree)
    for attr, about, line in _attributes(tree.body):
        face = faces.get(f"{module}.{attr}") or (None if private else f"{module}.{attr}")
        if _exported(attr, public) and face is not None:
            home, short = face.rsplit(".", 1)
            yield _document(source, home, short, "attribute", "", [], about, f, line)
    for node in _statements(tree.body):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        if not _exported(node.name, public):
            continue
        full = f"{module}.{node.name}"
        face = faces.get(full) or (None if private else full)
        if face is None or _is_overload(node):
            continue
        home = face.rsplit(".", 1)[0]  # the module as users name it
        if isinstance(node, ast.ClassDef):
            yield from _class_documents(source, home, node, f)
        else:
            text = ast.get_docstring(node)
            if text:
                sig, params = _signature(node, drop_first=False)
                yield _document(
                    source, home, node.name, "function", sig, params, text, f, node.lineno
                )


def _class_documents(
    source: str, module: str, cls: ast.ClassDef, f: PyFile, outer: str = ""
) -> Iterator[Document]:
    qualname = f"{outer}{cls.name}"
    members = [n for n in _statements(cls.body) if isinstance(n, _DefNode)]
    init = next(
        (n for n in members if isinstance(n, ast.FunctionDef) and n.name == "__init__"), None
    )
    doc = ast.get_docstring(cls) or (ast.get_docstring(init) if init else None)
    if doc:
        sig, params = _signature(init, drop_first=True) if init else ("", [])
        yield _document(source, module, qualname, "class", sig, params, doc, f, cls.lineno)
    for attr, about, line in _attributes(cls.body):
        if not attr.startswith("_"):
            yield _document(
                source, module, f"{qualname}.{attr}", "attribute", "", [], about, f, line
            )
    for node in members:
        if node.name.startswith("_") or _is_overload(node):
            continue
        if isinstance(node, ast.ClassDef):
            yield from _class_documents(source, module, node, f, f"{qualname}.")
            continue
        text = ast.get_docstring(node)
        if not text:
            continue
        name = f"{qualname}.{node.name}"
        decorators = {_decorator_name(d) for d in node.decorator_list}
        if decorators & _PROPERTY:
            out = _document(source, module, name, "method", "", [], text, f, node.lineno)
            out.meta["property"] = True
            yield out
            continue
        sig, params = _signature(node, drop_first="staticmethod" not in decorators)
        yield _document(source, module, name, "method", sig, params, text, f, node.lineno)


def _attributes(body: list[ast.stmt]) -> Iterator[tuple[str, str, int]]:
    """(name, docstring, line) of each attribute documented the way Sphinx and mkdocstrings
    read it: an assignment (`timeout: int = 10`, `RED = 1`) followed by a string."""
    for a, b in zip(body, body[1:], strict=False):
        targets: list[ast.expr]
        if isinstance(a, ast.AnnAssign):
            targets = [a.target]
        elif isinstance(a, ast.Assign) and len(a.targets) == 1:
            targets = a.targets
        else:
            continue
        if not (isinstance(targets[0], ast.Name) and isinstance(b, ast.Expr)):
            continue
        if isinstance(b.value, ast.Constant) and isinstance(b.value.value, str):
            text = inspect.cleandoc(b.value.value).strip()
            if text:
                yield targets[0].id, text, a.lineno


def _decorator_name(node: ast.expr) -> str:
    """`property` for @property, @functools.cached_property, @x.setter's `setter`."""
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


def _is_overload(node: _DefNode) -> bool:
    return any(_decorator_name(d) == "overload" for d in node.decorator_list)


def _signature(
    fn: ast.FunctionDef | ast.AsyncFunctionDef, drop_first: bool
) -> tuple[str, list[str]]:
    """("(a, b=1, *, c=None) -> str", parameter names), without `self`/`cls` for a method."""
    args = copy.copy(fn.args)
    if drop_first:
        if args.posonlyargs:
            args.posonlyargs = args.posonlyargs[1:]
        elif args.args:
            args.args = args.args[1:]
        positional = len(args.posonlyargs) + len(args.args)
        args.defaults = args.defaults[len(args.defaults) - positional :] if positional else []
    text = f"({ast.unparse(args)})"
    if fn.returns is not None and fn.name != "__init__":
        text += f" -> {ast.unparse(fn.returns)}"
    names = [a.arg for a in (*args.posonlyargs, *args.args)]
    names += [args.vararg.arg] if args.vararg else []
    names += [a.arg for a in args.kwonlyargs]
    names += [args.kwarg.arg] if args.kwarg else []
    return " ".join(text.split()), names


def _document(
    source: str,
    module: str,
    qualname: str,
    kind: str,
    sig: str,
    params: list[str],
    doc: str,
    f: PyFile,
    line: int,
) -> Document:
    full = f"{module}.{qualname}" if qualname else module
    # the same text as a standard-library docstring's document (docstrings._record)
    text = doc if kind == "module" else f"{qualname}{sig}\n\n{doc}"
    text = text.encode("utf-8", "replace").decode("utf-8")  # lone surrogates
    meta = {
        **f.meta,
        "kind": kind,
        "module": module,
        "qualname": qualname,
        "signature": sig,
        "params": params,
        "origin": f.where,
        "line": line,
    }
    return Document(source, f"python:{full}", full, text, meta)
