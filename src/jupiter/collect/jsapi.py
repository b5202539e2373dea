"""JavaScript and TypeScript files read as their API: one document per documented public
function, class, method, property, interface, type and constant, from its JSDoc comment
(`/** ... */` over the declaration), uri `javascript:<name>`, the text `name(params)` over
the comment in the form the question templates read for Python's docstrings
(`:param x: ...`, `:returns: ...`, examples as literal blocks). The templates then ask
"What does `Command.option()` do?" and "What is the `flags` parameter of ...?" instead of
reading code as prose ("What is / in lib/command.js?" answered by a comment's asterisks).

The files are scanned, never run: comments, strings, template literals and regular
expressions are told apart from code so that a brace inside a string does not end a class.
A name is public unless its comment says @private, @internal, @ignore or @hidden, it is
`private`/`protected` or starts with `_` or `#`, or (in a file with ES exports) it is a
top-level declaration the file does not export. Members are named after their class,
interface or namespace (`Command.option`); old-style JSDoc's @memberof and @name are
followed (lodash's `_.chunk`). The same name documented twice (lib/command.js and its
typings/index.d.ts) is one document: the first file in path order keeps it. Tests
(`test/`, `__tests__/`, `*.test.js`, `*.spec.ts`) and vendored code (`node_modules/`) are
skipped and counted.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from jupiter.collect.result import CollectResult, SourceFile
from jupiter.collect.result import count as _count
from jupiter.records import Document

SUFFIXES = (".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx")
URI_PREFIX = "javascript:"
# reasons a JavaScript or TypeScript file gave no document, as the collect stage counts them
JS_TEST = "javascript_test"
JS_VENDORED = "javascript_vendored"
JS_NO_API = "javascript_no_api"
JS_MINIFIED = "javascript_minified"
_AS_TEXT = (
    "JavaScript and TypeScript files read as their API (JSDoc comments): tests, vendored "
    "and minified code and files with nothing documented give none; the source's "
    "javascript: text reads them as text"
)
FIXES = {JS_TEST: _AS_TEXT, JS_VENDORED: _AS_TEXT, JS_NO_API: _AS_TEXT, JS_MINIFIED: _AS_TEXT}
# build output: read after the sources, so a name documented in both keeps the source's text
_BUILD_DIRS = {"dist", "build", "umd", "bundle", "bundles"}
# a name a bundler renamed to keep two apart (Axios$1): a copy, not a name users meet
_BUNDLER_NAME = re.compile(r"\$\d+$")
# what a document's kind says of it, best first: a name documented twice keeps its best
_KIND_RANK = {"property": 1, "attribute": 2, "module": 3}
_TEST_DIRS = {"test", "tests", "__tests__", "__mocks__", "spec"}
_TEST_NAME = re.compile(r"\.(test|spec)\.[cm]?[jt]sx?$|^test\.[cm]?[jt]s$", re.I)
_HIDDEN_TAGS = {"private", "internal", "ignore", "hidden", "protected", "package"}
_HIDDEN_ACCESS = {"private", "protected", "internal"}  # @access private, @api private
# a keyword after which "/" starts a regular expression, not a division
_REGEX_AFTER_WORD = {
    "return", "typeof", "case", "do", "else", "in", "of", "new", "delete", "void", "throw",
    "yield", "await", "instanceof",
}  # fmt: skip
_REGEX_AFTER_CHAR = set("(,=:[!&|?{};+-*%<>~^")
_MODIFIERS = re.compile(
    r"^(?:(?:export|default|declare|public|static|async|abstract|readonly|override|accessor)\s+)+"
)
_IDENT = r"[A-Za-z_$][\w$]*"
_FUNCTION = re.compile(rf"^function\s*\*?\s*({_IDENT})\s*(?:<[^(]*>)?\s*(\(.*)$", re.S)
_CLASS = re.compile(rf"^class\s+({_IDENT})")
_KIND_DECL = re.compile(rf"^(interface|type|enum|namespace|module)\s+({_IDENT})")
_VARIABLE = re.compile(rf"^(?:const|let|var)\s+({_IDENT})\s*(?::[^=]+)?=\s*(.*)$", re.S)
_ASSIGNED = re.compile(
    rf"^((?:{_IDENT}\.)*{_IDENT})\s*=\s*(.*)$", re.S
)  # exports.x = ..., Foo.prototype.bar = ..., Foo.bar = ...
_MEMBER_METHOD = re.compile(
    rf"^(?:(get|set)\s+)?(\*?\s*{_IDENT})\s*\??\s*(?:<[^(]*>)?\s*(\(.*)$", re.S
)
_MEMBER_FIELD = re.compile(rf"^({_IDENT})\s*[?!]?\s*(?::|=|$)")
_FUNCTION_VALUE = re.compile(
    rf"^(?:async\s+)?(?:function\s*\*?\s*(?:{_IDENT})?\s*(\(.*)|(\(.*?\))\s*(?::[^=]+)?=>|({_IDENT})\s*=>)",
    re.S,
)
_TAG = re.compile(r"^@(\w+)\s*(.*)$", re.S)
_PARAM_NAME = re.compile(
    r"^(\[)?\s*(?:\.\.\.)?([\w$]+(?:\[\])?(?:\.[\w$]+(?:\[\])?)*)(?:\.\.\.)?\s*(?:=\s*([^\]]*))?\s*(\])?\s*(?:-\s*)?(.*)$",
    re.S,
)
_INLINE_LINK = re.compile(r"\{@(?:link|linkcode|linkplain)\s+([^}|\s]+)(?:[|\s]+([^}]*))?\}")
_CAPTION = re.compile(r"^\s*<caption>(.*?)</caption>\s*", re.S)


def is_javascript(name: str) -> bool:
    return name.lower().endswith(SUFFIXES)


def is_test(rel: PurePosixPath) -> bool:
    return any(p in _TEST_DIRS for p in rel.parts[:-1]) or bool(_TEST_NAME.search(rel.name))


JsFile = SourceFile  # its files, as the source hands them over


@dataclass
class _Comment:
    start: int
    end: int  # just past "*/"
    text: str
    scopes: tuple[str, ...]  # the enclosing classes, interfaces and namespaces
    depth: int  # braces open where it stands
    scope_depth: int = 0  # braces open inside the innermost of `scopes` (0: none)


@dataclass
class _Scan:
    code: str  # the file with comments blanked and string contents blanked, same length
    comments: list[_Comment]
    bodies: dict[str, tuple[int, int]]  # class name -> its body's span in `code`


def api_documents(
    files: list[JsFile], source: str, rejects: CollectResult | None = None
) -> list[Document]:
    """Documents for the documented public API the files define, sorted by uri; a file that
    gives none is counted in `rejects` (a test, vendored code, nothing documented)."""
    docs: dict[str, Document] = {}
    order = sorted(
        files,
        key=lambda f: (
            bool(_BUILD_DIRS & set(f.rel.parts[:-1])),
            f.rel.suffix in (".ts", ".mts", ".cts"),
            f.rel,
        ),
    )
    for f in order:
        if "node_modules" in f.rel.parts:
            _count(rejects, JS_VENDORED, f.where)
            continue
        if is_test(f.rel):
            _count(rejects, JS_TEST, f.where)
            continue
        if ".min." in f.rel.name or _minified(f.text):
            _count(rejects, JS_MINIFIED, f.where)
            continue
        got = list(file_documents(f, source))
        for doc in got:
            # a name documented twice: a declaration over an assignment that re-exports it
            # ("exports.Route = Route", "Expose constructors."), else the first file's
            old = docs.get(doc.uri)
            if old is None or _rank(doc) < _rank(old):
                docs[doc.uri] = doc
        if not got:
            _count(rejects, JS_NO_API, f.where)
    return [docs[uri] for uri in sorted(docs)]


def _rank(doc: Document) -> int:
    return _KIND_RANK.get(str(doc.meta.get("kind")), 0)


def _minified(text: str) -> bool:
    """A minified bundle: a few very long lines (its comments are stripped anyway)."""
    lines = text.count("\n") + 1
    return len(text) > 5_000 and len(text) / lines > 500


def file_documents(f: JsFile, source: str) -> Iterator[Document]:
    """The documents of one file, in the order their comments stand."""
    scan = scan_file(f.text)
    # a module that says what it exports (ES `export`, CommonJS `module.exports` or
    # `exports.x =`) makes public only that; a plain script's top-level names are all public
    esm = re.search(r"(?m)^\s*export\b", scan.code) is not None
    cjs = re.search(r"\b(?:module\.exports|exports\.[\w$]+)\s*=", scan.code) is not None
    exported = _exported_names(scan.code) if esm or cjs else set()
    classes: dict[str, Document] = {}
    for c in scan.comments:
        block = parse_jsdoc(c.text)
        if block.hidden or block.kind == "module":  # a file's @module header: no declaration's
            continue
        if f.text[c.end :].lstrip().startswith("/*") and not block.name:
            continue  # nothing declared under it (a compiled-away interface's comment)
        decl = _declaration(scan.code, f.text, c.end)
        got = _describe(decl, c, block, scan, esm or cjs, exported, f)
        if got is None:
            continue
        name, kind, sig, params = got
        if kind == "constructor":  # documents its class when the class has no comment
            owner = name.rsplit(".", 1)[0]
            if owner in classes or not block.text:
                continue
            name, kind = owner, "class"
        if not block.text or any(_private(p) for p in name.split(".")):
            continue
        if _BUNDLER_NAME.search(name.split(".")[0]):
            continue
        doc = _document(
            source, name, kind, sig, params, block, f, f.text.count("\n", 0, c.start) + 1
        )
        if kind in ("class", "interface"):
            classes[name] = doc
        yield doc


def _private(part: str) -> bool:
    """`_name` and `#name` are private by convention; lodash's `_` itself is not."""
    return part.startswith("#") or (part.startswith("_") and part != "_")


def scan_file(text: str) -> _Scan:
    """Comments, strings, template literals and regular expressions told apart from code:
    `code` is `text` with every comment and literal's inside blanked (newlines kept), and
    each JSDoc comment is recorded with the classes it stands in."""
    out = list(text)
    comments: list[_Comment] = []
    bodies: dict[str, tuple[int, int]] = {}
    scopes: list[tuple[str, int, int]] = []  # (name, depth of its body, body start)
    templates: list[int] = []  # brace depths at which a template literal's ${ } closes
    depth = 0
    head = 0  # where the current statement's head starts in `out`
    i, n = 0, len(text)

    def blank(a: int, b: int) -> None:
        for k in range(a, b):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        ch = text[i]
        nxt = text[i + 1] if i + 1 < n else ""
        if ch == "/" and nxt == "/":
            j = text.find("\n", i)
            j = n if j < 0 else j
            blank(i, j)
            i = j
            continue
        if ch == "/" and nxt == "*":
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            if text.startswith("/**", i) and not text.startswith("/**/", i):
                names = tuple(s for s, _, _ in scopes)
                inner = scopes[-1][1] if scopes else 0
                comments.append(
                    _Comment(i, j, text[i + 3 : max(i + 3, j - 2)], names, depth, inner)
                )
            blank(i, j)
            i = j
            continue
        if ch in "'\"":
            j = i + 1
            while j < n and text[j] != ch and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            blank(i + 1, min(j, n))
            i = j + 1
            continue
        if ch == "`" or (ch == "}" and templates and templates[-1] == depth):
            if ch == "}":
                templates.pop()
            j = i + 1
            while j < n and text[j] != "`" and not text.startswith("${", j):
                j += 2 if text[j] == "\\" else 1
            blank(i + 1, min(j, n))
            if text.startswith("${", j):
                templates.append(depth)
                i = j + 2
            else:
                i = j + 1
            continue
        if ch == "/" and _regex_may_start(out, i):
            j, in_class = i + 1, False
            while j < n and text[j] != "\n":
                if text[j] == "\\":
                    j += 2
                    continue
                if text[j] == "[":
                    in_class = True
                elif text[j] == "]":
                    in_class = False
                elif text[j] == "/" and not in_class:
                    break
                j += 1
            blank(i + 1, min(j, n))
            i = j + 1
            continue
        if ch == "{":
            m = re.search(
                rf"\b(?:class|interface|namespace|enum|module)\s+({_IDENT})[^;{{}}]*$",
                "".join(out[head:i]),
            )
            if m:
                scopes.append((m.group(1), depth + 1, i + 1))
            depth += 1
            head = i + 1
        elif ch == "}":
            if scopes and scopes[-1][1] == depth:
                name, _, start = scopes.pop()
                bodies.setdefault(name, (start, i))
            depth = max(0, depth - 1)
            head = i + 1
        elif ch == ";":
            head = i + 1
        i += 1
    return _Scan("".join(out), comments, bodies)


def _regex_may_start(out: list[str], i: int) -> bool:
    """Whether "/" at `i` opens a regular expression: after an operator, an opening bracket,
    a keyword such as `return`, or at the start of the file."""
    k = i - 1
    while k >= 0 and out[k] in " \t\r\n":
        k -= 1
    if k < 0:
        return True
    if out[k] in _REGEX_AFTER_CHAR:
        return True
    m = re.search(r"[\w$]+$", "".join(out[max(0, k - 12) : k + 1]))
    return bool(m and m.group(0) in _REGEX_AFTER_WORD)


def _exported_names(code: str) -> set[str]:
    """Names an ES module exports by list (`export { a, b as c }`, `export default a`)."""
    names: set[str] = set()
    for m in re.finditer(r"\bexport\s*\{([^}]*)\}", code):
        for part in m.group(1).split(","):
            local = part.strip().split(" as ")[0].strip()
            if local:
                names.add(local)
    for m in re.finditer(rf"\bexport\s+default\s+({_IDENT})\s*;?\s*$", code, re.M):
        names.add(m.group(1))
    for m in re.finditer(rf"\bmodule\.exports\s*=\s*({_IDENT})\s*[;\n]", code):
        names.add(m.group(1))
    for m in re.finditer(rf"\bexports\.{_IDENT}\s*=\s*({_IDENT})\s*[;\n]", code):
        names.add(m.group(1))  # exports.Route = Route
    for m in re.finditer(r"\bmodule\.exports\s*=\s*\{([^{}]*)\}", code):
        for part in m.group(1).split(","):  # module.exports = { a, b: c }
            local = part.split(":")[-1].strip()
            if re.fullmatch(_IDENT, local):
                names.add(local)
    return names


def _declaration(code: str, text: str, start: int) -> str:
    """The declaration after a comment, whitespace collapsed: from its first word up to the
    `{`, `;` or `=>` that ends its head (a body's brace, a field's end), or the end of a
    line with its brackets closed; decorators (`@Input()`) skipped. Found in `code` (the
    scan's, literals blanked), read from `text` (default values as written)."""
    i, n = start, len(code)
    while True:
        while i < n and code[i].isspace():
            i += 1
        m = re.match(r"@[\w.$]+(\([^)]*\))?", code[i:])
        if not m:
            break
        i += m.end()
    depth, j = 0, i
    while j < n and j - i < 600:
        ch = code[j]
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif depth <= 0 and (ch in "{;" or code.startswith("=>", j)):
            if code.startswith("=>", j):
                j += 2
            break
        elif depth <= 0 and ch == "\n" and code[i:j].strip():
            rest = code[j:].lstrip()
            if not rest.startswith(
                ("=>", ":", "|", "&", ".", "?", "=", ",", "extends", "implements")
            ):
                break
        j += 1
    return " ".join(text[i:j].split())


def _params(text: str) -> tuple[str, list[str]]:
    """("(a, b = 1, ...rest)", [a, b, rest]) from text opening with "(": the balanced
    parenthesised list, types left out of the names but kept in the signature."""
    depth, end = 0, len(text)
    for k, ch in enumerate(text):
        if ch in "([{<":
            depth += 1
        elif ch in ")]}>" and not (ch == ">" and k and text[k - 1] == "="):
            depth -= 1
            if depth == 0:
                end = k + 1
                break
    sig = text[:end]
    shown = re.sub(r",?\s*\)$", ")", re.sub(r"^\(\s+", "(", " ".join(sig.split())))
    names: list[str] = []
    depth, cur = 0, ""
    for ch in sig[1:-1] + ",":
        if ch in "([{<":
            depth += 1
        elif ch in ")]}>":
            depth -= 1
        if ch == "," and depth == 0:
            m = re.match(rf"^\s*(?:\.\.\.)?({_IDENT})", cur)
            if m and m.group(1) not in ("this",):
                names.append(m.group(1))
            cur = ""
        else:
            cur += ch
    return shown, names


def _describe(
    decl: str,
    c: _Comment,
    block: JsDoc,
    scan: _Scan,
    declares: bool,
    exported: set[str],
    f: JsFile,
) -> tuple[str, str, str, list[str]] | None:
    """(qualified name, kind, signature, parameter names) of the declaration a comment
    documents, or None when it is not public API or not a declaration."""
    if re.search(r"\b(?:private|protected)\s", decl.split("(")[0] + " ") or decl.startswith("#"):
        return None
    member = bool(c.scopes) and c.depth == c.scope_depth
    owner = ".".join(c.scopes)
    if block.member_of:
        owner, member = block.member_of.replace("#", "."), True
    elif c.depth > c.scope_depth:  # inside a function or an object literal: not API
        return None
    top_level = not c.scopes and c.depth == 0
    is_exported = decl.startswith(("export ", "declare ")) or f.rel.name.endswith(".d.ts")
    bare = _MODIFIERS.sub("", decl)

    def qual(name: str) -> str:
        return f"{owner}.{name}" if member and owner else name

    def public(name: str) -> bool:  # @memberof says where users meet it, exported or not
        return not declares or not top_level or is_exported or name in exported or bool(owner)

    if block.name and not bare:  # @typedef Foo, @callback, @name x with no code after
        return (qual(block.name), block.kind or "attribute", "", [])
    m = _FUNCTION.match(bare)
    if m and (not member or block.member_of):  # lodash: function chunk() under @memberOf _
        sig, names = _params(m.group(2))
        return (qual(m.group(1)), "function", sig, names) if public(m.group(1)) else None
    m = _CLASS.match(bare)
    if m:
        name = m.group(1)
        sig, names = "", []
        if name in scan.bodies:
            a, b = scan.bodies[name]
            ctor = re.search(r"\bconstructor\s*(\(.*)", scan.code[a:b], re.S)
            if ctor:
                sig, names = _params(ctor.group(1))
        return (name, "class", sig, names) if public(name) else None
    m = _KIND_DECL.match(bare)
    if m:
        name = qual(m.group(2))
        return (name, m.group(1), "", []) if public(m.group(2)) else None
    m = _VARIABLE.match(bare)
    if m and (not member or block.member_of):
        name, value = m.group(1), m.group(2)
        if not public(name):
            return None
        return (qual(name), *_value(value, block))
    m = _ASSIGNED.match(bare)
    if m and "." in m.group(1) and not member:
        target, value = m.group(1), m.group(2)
        parts = target.split(".")
        if parts[0] in ("exports", "module"):
            parts = [p for p in parts if p not in ("module", "exports")]
        elif "prototype" in parts:
            parts = [p for p in parts if p != "prototype"]
        if not parts:
            return None
        return (".".join(parts), *_value(value, block))
    if member:
        m = _MEMBER_METHOD.match(bare)
        if m:
            name = m.group(2).lstrip("*").strip()
            sig, names = _params(m.group(3))
            if name == "constructor":
                return (f"{owner}.constructor", "constructor", sig, names)
            kind = "property" if m.group(1) else "method"
            return (qual(name), kind, "" if m.group(1) else sig, [] if m.group(1) else names)
        m = _MEMBER_FIELD.match(bare)
        if m:
            rest = bare[m.end() :].strip()
            got = _value(rest, block) if "=" in bare[: m.end()] else ("property", "", [])
            return (qual(m.group(1)), *got)
    if block.name:  # @name / @function over code it does not describe by itself
        return (qual(block.name), block.kind or "function", "", [])
    return None


def _value(value: str, block: JsDoc) -> tuple[str, str, list[str]]:
    """(kind, signature, names) of an assigned value: a function or arrow function, a
    class, or anything else (an attribute)."""
    value = re.sub(rf"^(?:(?:{_IDENT}\.)*{_IDENT}\s*=(?!=)\s*)+", "", value.strip())
    m = _FUNCTION_VALUE.match(value)
    if m:
        if m.group(3):
            return "function", f"({m.group(3)})", [m.group(3)]
        sig, names = _params(m.group(1) or m.group(2))
        return "function", sig, names
    if value.startswith("class"):
        return "class", "", []
    top = [p for p in block.params if "." not in p]
    if top and not block.kind:  # var isArray = createIsArray(): documented as a function
        return "function", f"({', '.join(top)})", top
    return block.kind or "attribute", "", []


@dataclass
class JsDoc:
    """A JSDoc comment read: its description and tags as reStructuredText field lists."""

    text: str = ""
    hidden: bool = False
    name: str = ""  # @name, @function x, @typedef {T} x, @callback x
    kind: str = ""
    member_of: str = ""
    params: list[str] = field(default_factory=list)


def parse_jsdoc(raw: str) -> JsDoc:
    """The comment's text without its asterisks; the description first, then
    `:param x: ...`, `:returns: ...`, `:raises E: ...`, a deprecation note and the examples
    (each an `Example::` literal block). {@link X} reads as `X`."""
    lines = []
    for ln in raw.splitlines():
        ln = re.sub(r"^\s*\*(?!/) ?", "", ln)
        lines.append(ln.rstrip())
    body = "\n".join(lines).strip("\n")
    parts = re.split(r"(?m)^\s*(?=@\w)", body)
    desc, tags = parts[0], parts[1:]
    out = JsDoc()
    fields: list[str] = []
    notes: list[str] = []
    examples: list[str] = []
    for tag in tags:
        m = _TAG.match(tag.strip("\n"))
        if not m:
            continue
        name, rest = m.group(1).lower(), m.group(2).rstrip()
        if name in _HIDDEN_TAGS or (name in ("access", "api") and rest.strip() in _HIDDEN_ACCESS):
            out.hidden = True
        elif name in ("description", "desc", "summary", "classdesc"):
            # date-fns writes its summary twice, as @summary and atop @description
            said = " ".join(desc.split())
            new = [p for p in re.split(r"\n\s*\n", rest) if " ".join(p.split()) not in said]
            desc = "\n\n".join([desc.strip(), *(p.strip("\n") for p in new)]).strip()
        elif name in ("param", "arg", "argument", "property", "prop"):
            got = _param_field(rest)
            if got:
                fields.extend([got[0]] if got[0] else [])
                out.params.append(got[1])
        elif name in ("returns", "return"):
            text = _inline(_strip_type(rest)).strip(" -")
            typ = _type_of(rest)
            fields.append(f":returns: {text or f'`{typ}`' if typ else text}".rstrip())
        elif name in ("throws", "exception"):
            typ, text = _type_of(rest), _inline(_strip_type(rest)).strip(" -")
            fields.append(f":raises {typ or 'Error'}: {text}".rstrip())
        elif name == "example":
            m2 = _CAPTION.match(rest)
            code = rest[m2.end() :] if m2 else rest
            code = "\n".join(
                "    " + ln if ln.strip() else "" for ln in code.strip("\n").splitlines()
            )
            if code.strip():
                examples.append(f"{(m2.group(1).strip() + ':') if m2 else 'Example:'}:\n\n{code}")
        elif name == "deprecated":
            notes.append(f"Deprecated{': ' + _inline(rest) if rest.strip() else '.'}")
        elif name in ("default", "defaultvalue") and rest.strip():
            notes.append(f"Default: `{rest.strip()}`.")
        elif name == "since" and rest.strip():
            notes.append(f"Since {rest.strip()}.")
        elif name in ("typedef", "callback", "function", "func", "method", "name", "constant",
                      "const", "namespace", "event", "class", "constructor", "module"):  # fmt: skip
            words = _strip_type(rest).split()
            if words:
                out.name = words[0]
            out.kind = {"typedef": "type", "callback": "type", "func": "function",
                        "method": "function", "name": "", "const": "attribute",
                        "constant": "attribute", "constructor": "class"}.get(name, name)  # fmt: skip
        elif name in ("memberof", "memberof!"):
            out.member_of = rest.strip().split()[0] if rest.strip() else ""
    text = _inline(desc).strip()
    pieces = [p for p in (text, *notes) if p]
    if fields:
        pieces.append("\n".join(fields))
    pieces.extend(examples)
    out.text = "\n\n".join(pieces) if text or fields else ""
    return out


def _type_of(rest: str) -> str:
    """The `{type}` a tag opens with ("{string|number}" -> "string|number"), or ""."""
    rest = rest.lstrip()
    if not rest.startswith("{"):
        return ""
    depth = 0
    for k, ch in enumerate(rest):
        depth += {"{": 1, "}": -1}.get(ch, 0)
        if depth == 0:
            return " ".join(rest[1:k].split())
    return ""


def _strip_type(rest: str) -> str:
    typ = _type_of(rest)
    if not typ and not rest.lstrip().startswith("{"):
        return rest.strip()
    rest = rest.lstrip()
    depth = 0
    for k, ch in enumerate(rest):
        depth += {"{": 1, "}": -1}.get(ch, 0)
        if depth == 0:
            return rest[k + 1 :].strip()
    return ""


def _param_field(rest: str) -> tuple[str, str] | None:
    """(":param name: description", name) of a @param tag's text; an optional parameter's
    default is said after its description."""
    m = _PARAM_NAME.match(_strip_type(rest))
    if not m:
        return None
    optional, name, default, desc = bool(m.group(1)), m.group(2), m.group(3), m.group(5)
    text = " ".join(_inline(desc).split())
    if optional and default:
        text = f"{text} Defaults to `{default.strip()}`.".strip()
    elif optional and text:
        text = f"{text} Optional."
    return (f":param {name}: {text}" if text else ""), name


def _inline(text: str) -> str:
    """{@link X}, {@link X|label}, {@link X label} as `X` or the label."""
    return _INLINE_LINK.sub(lambda m: m.group(2).strip() if m.group(2) else f"`{m.group(1)}`", text)


def _document(
    source: str,
    name: str,
    kind: str,
    sig: str,
    params: list[str],
    block: JsDoc,
    f: JsFile,
    line: int,
) -> Document:
    head = f"{name}{sig}" if kind in ("function", "method", "class") and sig else name
    if kind in ("function", "method") and not sig:
        head = f"{name}()"
    text = f"{head}\n\n{block.text}"
    meta = {
        **f.meta,
        "kind": kind,
        "qualname": name,
        "signature": sig,
        "params": params or block.params,
        "origin": f.where,
        "line": line,
    }
    return Document(source, f"{URI_PREFIX}{name}", name, text, meta)
