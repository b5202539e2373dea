"""Runs in a child interpreter: imports standard-library modules and prints their docstrings.

Usage: python -s -S docstrings.py MODULE...

It runs as a script in its own process (started by `jupiter.collect.stdlib`) so that
whatever a module does when imported (prints, threads, signal handlers, warnings, a
`sys.exit`) cannot touch the caller. It therefore imports nothing from jupiter. Output:
one JSON line per event on the original stdout: {"start": name}, then
{"done": name, "docs": [...]} or {"failed": name, "error": "..."}.
"""

from __future__ import annotations

import sys

# Run as a script, sys.path[0] is this folder; drop it so nothing here shadows the stdlib.
if sys.path and sys.path[0] and __name__ == "__main__":
    sys.path.pop(0)

import builtins  # noqa: E402
import importlib  # noqa: E402
import inspect  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import re  # noqa: E402
from typing import IO, Any  # noqa: E402

# Object reprs in default values carry addresses that change on every run; without this
# the document text (and so its content id) would differ between runs.
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def _stable(text: str) -> str:
    """A signature's text without what differs between runs or installs: object addresses,
    and the interpreter's path (platform.architecture's executable=sys.executable default
    would carry the virtualenv's folder, so two clones would collect different documents,
    split and shuffle them differently, and train on different first batches)."""
    text = _ADDRESS.sub("", text)
    if sys.executable:
        text = text.replace(repr(sys.executable), "sys.executable")
    return text


# C modules whose public face is not their name without the underscore.
FACES = {
    "_thread": "threading",
    "posix": "os",
    "nt": "os",
    "_sre": "re",
    "_collections_abc": "collections.abc",
    "_elementtree": "xml.etree.ElementTree",
}
# Docstrings generated for namedtuple fields and enum classes: boilerplate, not knowledge.
_GENERATED = re.compile(r"^(Alias for field number \d+|An enumeration\.)$")


def _boilerplate() -> set[str]:
    """Docstrings of the builtin classes and their members (e.g. "Initialize self. ...").

    Outside `builtins` itself, an object carrying one of these says nothing of its own.
    """
    docs: set[str] = set()
    for obj in vars(builtins).values():
        if not inspect.isclass(obj):
            continue
        for member in [obj, *vars(obj).values()]:
            doc = getattr(member, "__doc__", None)
            if isinstance(doc, str) and doc.strip():
                docs.add(inspect.cleandoc(doc))
    return docs


def _own_doc(obj: object, boiler: set[str]) -> str:
    """The object's own cleaned docstring, or "" when it has none worth keeping.

    `__doc__` rather than `inspect.getdoc`: getdoc also inherits from base classes, which
    would repeat a base class's text under every subclass.
    """
    raw = obj.__dict__.get("__doc__") if inspect.isclass(obj) else getattr(obj, "__doc__", None)
    if not isinstance(raw, str):
        return ""
    doc = inspect.cleandoc(raw).strip()
    if not doc or doc in boiler or _GENERATED.match(doc):
        return ""
    # lone surrogates cannot be written as UTF-8 (nor stored by SQLite)
    return doc.encode("utf-8", "replace").decode("utf-8")


def _split_params(sig: str) -> list[str]:
    """Parameter names of a signature written as text, e.g. "(obj, *, indent=None)"."""
    parts, depth, quote, cur = [], 0, "", ""
    for ch in sig[1:-1]:
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "({":  # [ ] mark optional arguments in builtin docstrings, not nesting
            depth += 1
        elif ch in ")}" and depth:
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
            continue
        cur += ch
    parts.append(cur)
    names = []
    for part in parts:
        m = re.match(r"^[\s\[\]]*\**\s*([A-Za-z_]\w*)", part)
        if m and m.group(1) not in names:
            names.append(m.group(1))
    return names


def _signature(obj: object, name: str, doc: str, method: bool) -> tuple[str, list[str], bool]:
    """(signature text, parameter names, whether the signature is the docstring's first line).

    Builtins often have no introspectable signature; their docstring then starts with one.
    """
    try:
        sig = inspect.signature(obj)  # type: ignore[arg-type]
    except Exception:  # C signatures can name attributes a module lacks (curses.ACS_*)
        sig = None
    if sig is not None:
        params = list(sig.parameters.values())
        if method and params and params[0].name in ("self", "cls"):
            params = params[1:]
            sig = sig.replace(parameters=params)
        return _stable(str(sig)), [p.name for p in params], False
    first = doc.split("\n", 1)[0]
    m = re.match(rf"^(?:\w+\.)*{re.escape(name)}\(", first)
    text = _parenthesized(first, m.end() - 1) if m else ""
    if text:
        return text, [p for p in _split_params(text) if p not in ("self", "cls")], True
    return "", [], False


def _parenthesized(line: str, i: int) -> str:
    """The balanced "(...)" that opens at line[i], or "" if it does not close."""
    depth = 0
    for j in range(i, len(line)):
        depth += {"(": 1, ")": -1}.get(line[j], 0)
        if depth == 0:
            return line[i : j + 1]
    return ""


def _record(
    module: str, qualname: str, kind: str, doc: str, obj: object | None, method: bool = False
) -> dict[str, Any]:
    sig, params, from_doc = "", list[str](), False
    if obj is not None:
        sig, params, from_doc = _signature(obj, qualname.rsplit(".", 1)[-1], doc, method)
    full = f"{module}.{qualname}" if qualname else module
    if kind == "module":
        text = doc
    elif from_doc:  # the docstring's first line already shows the call
        text = f"{qualname}\n\n{doc}"
    else:
        text = f"{qualname}{sig}\n\n{doc}"
    meta = {"kind": kind, "module": module, "qualname": qualname, "signature": sig}
    return {"uri": f"python:{full}", "title": full, "text": text, "meta": meta | {"params": params}}


def _belongs(obj: object, module: str, home: str) -> bool:
    """Defined in this module, or in the C module it fronts (`_heapq` for heapq, `posix`
    for os); a mere import of another module's object (functools' RLock) does not count."""
    owner = getattr(obj, "__module__", None)
    if not isinstance(owner, str):
        return False
    face = FACES.get(owner, owner.lstrip("_"))
    return owner == home or face in (module, home)


def _class_docs(module: str, attr: str, cls: type, boiler: set[str]) -> list[dict[str, Any]]:
    """The class and its own public methods, named by `attr`: the name the module gives it
    (socket.SocketType is _socket.socket, whose __name__ clashes with socket.socket)."""
    out = []
    doc = _own_doc(cls, boiler)
    if doc:
        out.append(_record(module, attr, "class", doc, cls))
    for name, raw in sorted(vars(cls).items()):
        if name.startswith("_"):
            continue
        qualname = f"{attr}.{name}"
        if isinstance(raw, property) or inspect.isgetsetdescriptor(raw):
            doc = _own_doc(raw, boiler)
            if doc:
                rec = _record(module, qualname, "method", doc, None)
                rec["meta"]["property"] = True
                out.append(rec)
            continue
        if not (inspect.isroutine(raw) or isinstance(raw, classmethod | staticmethod)):
            continue
        try:
            obj = getattr(cls, name)
        except Exception:  # a descriptor that refuses class access
            continue
        doc = _own_doc(obj, boiler)
        if doc:
            method = not isinstance(raw, staticmethod)
            out.append(_record(module, qualname, "method", doc, obj, method=method))
    return out


def module_docs(name: str, boiler: set[str]) -> list[dict[str, Any]]:
    """Documents for module `name` and its public classes, functions and methods."""
    mod = importlib.import_module(name)
    home = mod.__name__  # differs from `name` for aliases such as os.path -> posixpath
    out = []
    doc = _own_doc(mod, boiler) if name != "builtins" else _own_doc(mod, set())
    if doc:
        out.append(_record(name, "", "module", doc, None))
    if name == "builtins":
        boiler = set()  # builtins is where that text is the real documentation
    members = vars(mod)
    for attr, obj in sorted(members.items()):
        try:
            out.extend(_member_docs(name, home, attr, obj, members, boiler))
        except Exception:  # noqa: BLE001 - one odd object must not cost the whole module
            continue
    return out


def _member_docs(
    module: str, home: str, attr: str, obj: object, members: dict[str, Any], boiler: set[str]
) -> list[dict[str, Any]]:
    is_class = inspect.isclass(obj)
    if attr.startswith("_") or not (is_class or inspect.isroutine(obj)):
        return []
    if not _belongs(obj, module, home):
        return []
    real = getattr(obj, "__name__", attr)
    if real != attr and members.get(real) is obj:
        return []  # an alias: documented once, under its own name
    if is_class:
        return _class_docs(module, attr, obj, boiler)  # type: ignore[arg-type]
    doc = _own_doc(obj, boiler)
    return [_record(module, attr, "function", doc, obj)] if doc else []


def _claim_stdout() -> IO[str]:
    """Keep the real stdout for our JSON; anything a module prints goes to stderr instead."""
    sys.stdout.flush()
    fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return os.fdopen(fd, "w", encoding="utf-8")


def main(names: list[str]) -> None:
    out = _claim_stdout()
    boiler = _boilerplate()

    def emit(event: dict[str, Any]) -> None:
        out.write(json.dumps(event) + "\n")
        out.flush()

    for name in names:
        emit({"start": name})
        try:
            emit({"done": name, "docs": module_docs(name, boiler)})
        except BaseException as err:  # noqa: BLE001 - SystemExit on import counts as a failure
            emit({"failed": name, "error": f"{type(err).__name__}: {err}"[:300]})
    out.close()
    # Skip interpreter shutdown: imported modules may have left threads or atexit hooks.
    os._exit(0)


if __name__ == "__main__":
    main(sys.argv[1:])
