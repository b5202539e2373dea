"""GraphQL schemas read as the reference of the API they describe, as GraphiQL's
documentation explorer and graphql-markdown's pages show it: one document per described
type, field, argument-bearing field, input field, enum value and directive, and one for the
schema itself.

Two forms are read. SDL files (`.graphql`, `.graphqls`, `.gql`), lexed and parsed here by
the GraphQL spec's grammar (no GraphQL library): punctuators, names, numbers (`-?` an
integer part without a leading zero, a fraction, an exponent, never followed by a digit, a
`.` or a name), strings (`"..."` with the escapes `\\" \\\\ \\/ \\b \\f \\n \\r \\t`,
`\\uXXXX`, surrogate pairs and `\\u{...}`; no line break inside) and block strings
(`\"\"\"...\"\"\"`, where `\\\"\"\"` is the only escape, dedented by the spec's rule: the
smallest indentation of the lines after the first that are not blank taken off each of
them, leading and trailing blank lines dropped), `#` comments, and whitespace, line breaks,
commas and a byte order mark ignored. The type system's definitions and their extensions
are read: `schema`, `scalar`, `type`, `interface`, `union`, `enum`, `input`, `directive`,
`extend schema|scalar|type|interface|union|enum|input` (an extension adds its fields,
values, members, interfaces to the type it extends, whichever file defines it, the
definition before or after it), `implements A & B` (a leading `&`, and the old `A, B`
written without `&`), arguments and input fields with default values (any constant: lists
`[OPEN]`, objects `{a: 1}`, strings, enums, `null`), `repeatable` directives and directives
applied anywhere. An applied `@deprecated` is read as deprecation (`reason`, else "No
longer supported"), `@specifiedBy(url:)` as a scalar's specification, `@oneOf` as an input
whose fields are alternatives; every other applied directive is dropped from what is
shown. Executable definitions (`query`, `mutation`, `subscription`, `fragment`, an
anonymous `{ ... }`) are skipped; a file that holds nothing else is an executable document,
no schema, and is counted (`graphql_operations`). A file that does not lex or parse is
counted (`graphql_bad`) and gives nothing; the other files of its folder are read all the
same.

A description is the string or block string right before a definition, field, argument,
input field, enum value or directive definition, kept as the Markdown it is (block strings
dedented as above; leading blank lines and trailing whitespace dropped). A file that uses
no string description at all takes the old style: the run of `#` comments alone on their
lines right above an item (no blank line between) describes it, each line's `#` and one
space after it dropped.

Introspection results are the other form: a `.json` whose top-level object has
`__schema`, or `data.__schema` (what a server's introspection query returns, what Apollo
and Hydrogen ship as `schema.json`). Its `types` (kind, name, description, `fields` with
their `args`, `inputFields`, `enumValues`, `possibleTypes` of a union, `interfaces`,
`specifiedByURL`, `isOneOf`), `directives` (with `locations`, `isRepeatable`), root types
(`queryType`, `mutationType`, `subscriptionType`) and the schema's `description` make the
same schema the SDL would, so one API in both forms gives the same documents; its default
values (introspection prints them as GraphQL) are read and printed again the same way as
the SDL's: lists `[A, B]`, objects `{a: 1, b: "x"}`, strings in double quotes.

The SDL files of one folder are one schema (types split across files, `extend type` in
another); an introspection file is a schema of its own. The schema's name is its file's
stem (`github.graphql` -> `github`; `storefront.introspection.json` -> `storefront`, a
`.introspection` before `.json` dropped), its folder's name when that stem is `schema`,
`introspection` or `graphql`, or when the folder's schema comes from several SDL files
(`top`, the source's folder name, for files at the source's root). The uri is `graphql:`,
the schema's name, `:` and the item: `graphql:<schema>:<Type>` for a type,
`graphql:<schema>:<Type>.<field>` for a field or input field,
`graphql:<schema>:<Enum>.<VALUE>` for an enum value, `graphql:<schema>:@<directive>` for
a directive, `graphql:<schema>` for the schema itself when it has a description or any
root operation type (named by `schema { ... }`, else the types named `Query`, `Mutation`,
`Subscription`). Kinds: "object", "interface", "union", "enum", "input", "scalar",
"field", "input field", "enum value", "directive", "schema". The built-in scalars
(`String`, `Int`, `Float`, `Boolean`, `ID`), the introspection types (`__Schema`,
`__Type`, any name starting with `__`) and the built-in directives (`@skip`, `@include`,
`@deprecated`, `@specifiedBy`, `@oneOf`) give no document, whatever a file says of them.

A document's text is Markdown whose first line is its declaration (its signature too), on
one line, applied directives other than those read dropped:
- a field `issues(first: Int, after: String, states: [IssueState!] = [OPEN]): IssueConnection!`,
  then its description, a `:param name: (Type) description` line for each described
  argument (`(Type, deprecated)` for a deprecated one; a long or multi-paragraph
  description goes on under it, indented), `:returns: <Type> - first sentence` when its
  named type is one the schema defines (`:returns: <Type>` when that says nothing), and
  `Deprecated: <reason>`; no document for a field an interface of its type declares with
  the same description (the interface's says it) nor for a Relay connection's or edge's
  own `edges`, `nodes`, `pageInfo`, `totalCount`, `cursor`, `node` (the same words in
  every one), nor for a field (one with no arguments) or input field documented already
  under its name with the very same description in a type before it (Relay's
  `clientMutationId` on every mutation's input and payload); all stay in their type's
  `Fields:` list;
- an object or interface `type Repository implements Node & ProjectOwner`, its
  description, `Implements:` and `Member of:` lines (its interfaces; the unions that list
  it), its `Fields:` list, one line per field, described or not (``- `name(…)`: `Type` -
  first sentence``; arguments, when any, elided as `(…)`; a deprecated one marked
  ` (deprecated)`), and an interface's `Implemented by:` list (the types and interfaces of
  the schema that implement it, by name, each with its first sentence);
- an enum `enum IssueState`, its description, its `Values:` list (``- `OPEN`: first
  sentence``, deprecated ones marked); each described value its own document, first line
  `IssueState.OPEN`, with `Deprecated: <reason>`;
- a union `union SearchResultItem = App | Discussion | Issue`, its description and its
  `Members:` list with their first sentences;
- an input `input CreateIssueInput`, its description, `Exactly one of its fields must be
  set.` for a `@oneOf` input, its `Fields:` list (``- `title`: `String! = "x"` - first
  sentence``); each described input field its own document, first line `title: String!`
  (` = default` when it has one);
- a scalar `scalar DateTime`, its description and `Specified by: <url>`;
- a directive `directive @cacheControl(maxAge: Int) repeatable on FIELD_DEFINITION | OBJECT`,
  its description and its described arguments as `:param` lines;
- the schema `schema { query: QueryRoot, mutation: Mutation }`, its description and its
  `Root types:` list (``- query: `QueryRoot` - first sentence``).
A first sentence is that of the description's first paragraph, on one line (none when the
paragraph opens with code). A type gives a document only when it or one of its members
(field, argument, input field, value) has a description (a scalar: or a `@specifiedBy`
url); a field, input field or value only when it has a description (a field: or one of its
arguments has); one that has none still stands in its parent's list. A file read whose items give no
document (nothing in it described; an introspection result the same) is counted
(`graphql_no_api`). Lines: a document stands at the line of its declaration's keyword or
name (an SDL file's); an introspection file's at line 1.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_left
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any, NamedTuple

from jupiter.collect.result import CollectResult, SourceFile, api_document, count
from jupiter.records import Document

SUFFIXES = (".graphql", ".graphqls", ".gql")
URI_PREFIX = "graphql:"
# reasons a file gave no document, as the collect stage counts them
GRAPHQL_OPERATIONS = "graphql_operations"
GRAPHQL_BAD = "graphql_bad"
GRAPHQL_NO_API = "graphql_no_api"
_READ = (
    "GraphQL schemas (SDL files and introspection results) read as the reference of their "
    "API, one document per described type, field, enum value and directive: "
)
FIXES = {
    GRAPHQL_OPERATIONS: _READ + "a file of queries, mutations and fragments only is no "
    "schema and gives none; the source's graphql: text reads the files as text",
    GRAPHQL_BAD: _READ + "a file that does not lex or parse as GraphQL gives none; the "
    "source's graphql: text reads the files as text",
    GRAPHQL_NO_API: _READ + "a schema with no description anywhere gives none; the source's "
    "graphql: text reads the files as text",
}
_BUILTIN_TYPES = frozenset({"String", "Int", "Float", "Boolean", "ID"})
_BUILTIN_DIRECTIVES = frozenset({"skip", "include", "deprecated", "specifiedBy", "oneOf"})
_NO_REASON = "No longer supported"  # the spec's default reason of `@deprecated`
_OPERATIONS = ("query", "mutation", "subscription")
_EXECUTABLE = frozenset({*_OPERATIONS, "fragment"})
_PLAIN_STEMS = frozenset({"schema", "introspection", "graphql"})
_MAX_SENTENCE = 200


class _Bad(Exception):
    """The text does not lex or parse as GraphQL."""


def is_sdl(name: str) -> bool:
    return name.lower().endswith(SUFFIXES)


def is_introspection(data: object) -> bool:
    """Whether `data` is an introspection result: `{"__schema": {...}}` or
    `{"data": {"__schema": {...}}}`, its `types` a list."""
    return _schema_node(data) is not None


def takes_json(f: SourceFile) -> bool:
    """Whether a JSON file an include read is an introspection result."""
    if not f.rel.name.lower().endswith(".json") or "__schema" not in f.text:
        return False
    try:
        return is_introspection(json.loads(f.text))
    except ValueError:
        return False


def _schema_node(data: object) -> dict[str, Any] | None:
    if not isinstance(data, dict):
        return None
    node = data.get("__schema")
    if node is None and isinstance(data.get("data"), dict):
        node = data["data"].get("__schema")
    if isinstance(node, dict) and isinstance(node.get("types"), list):
        return node
    return None


def schema_name(rel: PurePosixPath, top: str = "") -> str:
    """`github.graphql` -> `github`, `api/schema.json` -> `api`,
    `storefront.introspection.json` -> `storefront`."""
    stem = rel.name
    for suffix in (*SUFFIXES, ".json"):
        if stem.lower().endswith(suffix):
            stem = stem[: -len(suffix)]
            break
    if rel.name.lower().endswith(".json"):
        stem = re.sub(r"\.introspection$", "", stem, flags=re.I)
    if stem.lower() in _PLAIN_STEMS or not stem:
        return _folder_name(rel.parent, top)
    return stem


def _folder_name(folder: PurePosixPath, top: str) -> str:
    return folder.name or top or "schema"


# ----------------------------------------------------------------------------- the model
@dataclass
class _Place:
    """Where an item stands: its file and line."""

    f: SourceFile
    line: int


@dataclass
class _Input:
    """An argument or an input field."""

    name: str
    type: str
    default: str | None
    desc: str
    deprecated: str | None
    at: _Place

    def declared(self) -> str:
        tail = f" = {self.default}" if self.default is not None else ""
        return f"{self.name}: {self.type}{tail}"


@dataclass
class _Field:
    name: str
    args: list[_Input]
    type: str
    desc: str
    deprecated: str | None
    at: _Place

    def declared(self) -> str:
        shown = f"({', '.join(a.declared() for a in self.args)})" if self.args else ""
        return f"{self.name}{shown}: {self.type}"


@dataclass
class _Value:
    name: str
    desc: str
    deprecated: str | None
    at: _Place


@dataclass
class _Type:
    kind: str  # object, interface, union, enum, input, scalar
    name: str
    at: _Place
    desc: str = ""
    defined: bool = False  # a definition seen, not only extensions
    interfaces: list[str] = field(default_factory=list)
    fields: dict[str, _Field] = field(default_factory=dict)
    inputs: dict[str, _Input] = field(default_factory=dict)
    values: dict[str, _Value] = field(default_factory=dict)
    members: list[str] = field(default_factory=list)
    specified_by: str = ""
    one_of: bool = False


@dataclass
class _Directive:
    name: str
    args: list[_Input]
    locations: list[str]
    repeatable: bool
    desc: str
    at: _Place


@dataclass
class _Schema:
    name: str
    desc: str = ""
    at: _Place | None = None
    roots: dict[str, str] = field(default_factory=dict)  # operation -> type
    types: dict[str, _Type] = field(default_factory=dict)
    directives: dict[str, _Directive] = field(default_factory=dict)
    defined: bool = False  # a `schema` definition seen, not only extensions

    def type(self, kind: str, name: str, at: _Place) -> _Type:
        """The type named so, made when none is yet (an extension may come first)."""
        got = self.types.get(name)
        if got is None:
            got = self.types[name] = _Type(kind, name, at)
        return got


_Described = _Field | _Input | _Value | _Type | _Directive | _Schema


# ----------------------------------------------------------------------------- lexing
class _Tok(NamedTuple):
    kind: str  # name, int, float, string, punct, eof
    value: str  # a string's value, unescaped; a block string's, dedented
    start: int


_LEXEME = re.compile(
    r"""(?P<space>[ \t\r\n,\ufeff]+)
    |(?P<comment>\#[^\n\r]*)
    |(?P<block>\"\"\")
    |(?P<string>"(?:[^"\\\n\r]|\\[^\n\r])*")
    |(?P<number>-?(?:0|[1-9][0-9]*)(?P<frac>(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)(?![.\w]))
    |(?P<name>[_A-Za-z][_0-9A-Za-z]*)
    |(?P<punct>\.\.\.|[!$&():=@\[\]{|}])""",
    re.X,
)
_ESCAPE = re.compile(r'\\(?:u\{([0-9A-Fa-f]{1,6})\}|u([0-9A-Fa-f]{4})|(["\\/bfnrt])|)')
_SIMPLE_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r"}
_SIMPLE_ESCAPES["t"] = "\t"


@dataclass
class _Lexed:
    tokens: list[_Tok]
    comments: dict[int, str]  # a line's number -> the comment alone on it
    newlines: list[int]

    def line(self, pos: int) -> int:
        return bisect_left(self.newlines, pos) + 1


def _lex(text: str) -> _Lexed:
    """The tokens of an SDL text, and its comments that stand alone on their lines."""
    tokens: list[_Tok] = []
    comments: dict[int, str] = {}
    newlines = [m.start() for m in re.finditer("\n", text)]
    lexed = _Lexed(tokens, comments, newlines)
    pos, n = 0, len(text)
    while pos < n:
        m = _LEXEME.match(text, pos)
        if m is None:
            raise _Bad(f"unexpected character at {pos}")
        kind = m.lastgroup
        if kind == "frac":
            kind = "number"
        if kind == "space":
            pos = m.end()
            continue
        if kind == "comment":
            start = text.rfind("\n", 0, pos) + 1
            if not text[start:pos].strip(" \t\ufeff,"):  # alone on its line: may describe
                comments[lexed.line(pos)] = m.group()[1:]
            pos = m.end()
            continue
        if kind == "block":
            value, end = _block_string(text, pos)
            tokens.append(_Tok("string", value, pos))
            pos = end
            continue
        word = m.group()
        if kind == "string":
            tokens.append(_Tok("string", _unescape(word[1:-1]), pos))
        elif kind == "number":
            tokens.append(_Tok("float" if m.group("frac") else "int", word, pos))
        else:
            tokens.append(_Tok(kind or "punct", word, pos))
        pos = m.end()
    tokens.append(_Tok("eof", "", n))
    return lexed


def _block_string(text: str, start: int) -> tuple[str, int]:
    """A block string opening at `start`: (its value, the index past it). Scanned by hand:
    only `\\\"\"\"` escapes, so a regex would backtrack over every backslash."""
    i = start + 3
    while True:
        k = text.find('"""', i)
        if k < 0:
            raise _Bad("unterminated block string")
        if text[k - 1] == "\\":
            i = k + 3
            continue
        raw = text[start + 3 : k].replace('\\"""', '"""')
        return block_value(raw), k + 3


def block_value(raw: str) -> str:
    """A block string's value by the spec's rule: the common indentation of the lines after
    the first (blank lines aside) removed, leading and trailing blank lines dropped."""
    lines = re.split(r"\r\n|[\n\r]", raw)
    indent: int | None = None
    for line in lines[1:]:
        width = len(line) - len(line.lstrip(" \t"))
        if width < len(line) and (indent is None or width < indent):
            indent = width
    if indent:
        lines = [lines[0], *(line[indent:] for line in lines[1:])]
    while lines and not lines[0].strip(" \t"):
        lines.pop(0)
    while lines and not lines[-1].strip(" \t"):
        lines.pop()
    return "\n".join(lines)


def _unescape(body: str) -> str:
    if "\\" not in body:
        return body

    def one(m: re.Match[str]) -> str:
        code = m.group(1) or m.group(2)
        if code is None:
            if m.group(3) is None:
                raise _Bad("bad escape")  # `\\q`: no escape the spec knows
            return _SIMPLE_ESCAPES[m.group(3)]
        point = int(code, 16)
        if point > 0x10FFFF:
            raise _Bad("bad escape")
        return chr(point)

    value = _ESCAPE.sub(one, body)
    if any("\ud800" <= c <= "\udfff" for c in value):  # pairs joined; a lone one replaced
        value = value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return value


def _quote(value: str) -> str:
    """A string value printed as GraphQL prints it (its JSON escapes are GraphQL's)."""
    return json.dumps(value, ensure_ascii=False)


# ----------------------------------------------------------------------------- parsing
_Applied = list[tuple[str, dict[str, tuple[str, str | None]]]]  # @name(arg: (shown, string))


class _Parser:
    """One SDL file's definitions, added to the folder's schema."""

    def __init__(self, lexed: _Lexed, f: SourceFile, schema: _Schema) -> None:
        self.toks = lexed.tokens
        self.lexed = lexed
        self.f = f
        self.schema = schema
        self.i = 0
        self.described: list[tuple[_Described, int]] = []  # items and their lines
        self.strings = False  # a string description seen
        self.type_system = False
        self.executable = False

    # tokens ----------------------------------------------------------------------------
    def peek(self, k: int = 0) -> _Tok:
        return self.toks[min(self.i + k, len(self.toks) - 1)]

    def is_punct(self, p: str) -> bool:
        t = self.toks[self.i]
        return t.kind == "punct" and t.value == p

    def accept(self, p: str) -> bool:
        if self.is_punct(p):
            self.i += 1
            return True
        return False

    def expect(self, p: str) -> None:
        if not self.accept(p):
            raise _Bad(f"expected {p}")

    def name(self) -> str:
        t = self.toks[self.i]
        if t.kind != "name":
            raise _Bad("expected a name")
        self.i += 1
        return t.value

    def is_word(self, word: str) -> bool:
        t = self.toks[self.i]
        return t.kind == "name" and t.value == word

    def place(self) -> _Place:
        return _Place(self.f, self.lexed.line(self.toks[self.i].start))

    def description(self) -> str:
        t = self.toks[self.i]
        if t.kind != "string":
            return ""
        self.i += 1
        self.strings = True
        return _clean(t.value)

    def note(self, item: _Described, at: _Place) -> None:
        """An item that `#` comments over it may describe."""
        self.described.append((item, at.line))

    # the document ----------------------------------------------------------------------
    def parse(self) -> None:
        while self.toks[self.i].kind != "eof":
            self.definition()
        if not self.strings:
            for item, line in self.described:
                if not item.desc:
                    item.desc = self.comment_above(line)

    def comment_above(self, line: int) -> str:
        lines: list[str] = []
        k = line - 1
        while k in self.lexed.comments:
            lines.append(self.lexed.comments[k])
            k -= 1
        lines = [x[1:] if x.startswith(" ") else x for x in reversed(lines)]
        return _clean("\n".join(lines))

    def definition(self) -> None:
        desc = self.description()
        t = self.toks[self.i]
        if t.kind == "punct" and t.value == "{":
            self.skip_executable()
            return
        if t.kind != "name":
            raise _Bad("expected a definition")
        word = t.value
        if word in _EXECUTABLE:
            self.skip_executable()
            return
        extend = word == "extend"
        if extend:
            self.i += 1
            word = self.peek().value if self.peek().kind == "name" else ""
        read = {
            "schema": self.schema_def,
            "scalar": self.scalar_def,
            "type": self.object_def,
            "interface": self.object_def,
            "union": self.union_def,
            "enum": self.enum_def,
            "input": self.input_def,
            "directive": self.directive_def,
        }.get(word)
        if read is None or (extend and word == "directive"):
            raise _Bad(f"unexpected {word!r}")
        self.type_system = True
        read("" if extend else desc, extend)

    def skip_executable(self) -> None:
        """An operation or fragment, read past: to its selection set's closing brace (a
        `{` inside its variables' parentheses is a default value's)."""
        self.executable = True
        parens = 0
        while True:
            t = self.toks[self.i]
            if t.kind == "eof":
                raise _Bad("unterminated operation")
            self.i += 1
            if t.kind != "punct":
                continue
            if t.value == "(":
                parens += 1
            elif t.value == ")":
                parens -= 1
            elif t.value == "{" and parens == 0:
                self.skip_braces()
                return

    def skip_braces(self) -> None:
        depth = 1
        while depth:
            t = self.toks[self.i]
            if t.kind == "eof":
                raise _Bad("unclosed brace")
            self.i += 1
            if t.kind == "punct":
                depth += {"{": 1, "}": -1}.get(t.value, 0)

    # pieces ----------------------------------------------------------------------------
    def type_ref(self) -> str:
        if self.accept("["):
            shown = f"[{self.type_ref()}]"
            self.expect("]")
        else:
            shown = self.name()
        return shown + "!" if self.accept("!") else shown

    def value(self, depth: int = 0) -> tuple[str, str | None]:
        """A value as GraphQL prints it, and a string's own value."""
        if depth > 64:
            raise _Bad("values nested too deep")
        t = self.toks[self.i]
        if t.kind == "string":
            self.i += 1
            return _quote(t.value), t.value
        if t.kind in ("int", "float", "name"):
            self.i += 1
            return t.value, None
        if self.accept("$"):
            return "$" + self.name(), None
        if self.accept("["):
            items: list[str] = []
            while not self.accept("]"):
                items.append(self.value(depth + 1)[0])
            return f"[{', '.join(items)}]", None
        if self.accept("{"):
            pairs: list[str] = []
            while not self.accept("}"):
                key = self.name()
                self.expect(":")
                pairs.append(f"{key}: {self.value(depth + 1)[0]}")
            return "{" + ", ".join(pairs) + "}", None
        raise _Bad("expected a value")

    def applied(self) -> _Applied:
        out: _Applied = []
        while self.accept("@"):
            name = self.name()
            args: dict[str, tuple[str, str | None]] = {}
            if self.accept("("):
                while not self.accept(")"):
                    key = self.name()
                    self.expect(":")
                    args[key] = self.value()
            out.append((name, args))
        return out

    def input_values(self, close: str) -> list[_Input]:
        """Argument or input field definitions up to `close`."""
        out: list[_Input] = []
        while not self.accept(close):
            desc = self.description()
            at = self.place()
            name = self.name()
            self.expect(":")
            typ = self.type_ref()
            default = self.value()[0] if self.accept("=") else None
            item = _Input(name, typ, default, desc, _deprecation(self.applied()), at)
            self.note(item, at)
            out.append(item)
        return out

    def implements(self) -> list[str]:
        names: list[str] = []
        if self.is_word("implements"):
            self.i += 1
            self.accept("&")
            names.append(self.name())
            while self.accept("&") or (self.peek().kind == "name" and not self.ends_header()):
                names.append(self.name())
        return names

    def ends_header(self) -> bool:
        """Whether the name here starts the next definition (`type A implements B` then
        `type C`), not another interface of an old `implements B, C`."""
        t, after = self.peek(), self.peek(1)
        starts = t.value in ("extend", *_EXECUTABLE) or (
            t.value in ("schema", "scalar", "type", "interface", "union", "enum", "input")
            and after.kind == "name"
        )
        return starts or (t.value == "directive" and after.value == "@")

    def define(self, kind: str, desc: str, extend: bool) -> tuple[_Type, bool]:
        """The type a definition or extension names (its keyword read here); whether this
        is the definition its description and place belong to."""
        self.i += 1
        at = self.place()
        typ = self.schema.type(kind, self.name(), at)
        first = not extend and not typ.defined
        if first:
            typ.defined, typ.kind, typ.at, typ.desc = True, kind, at, desc
            self.note(typ, at)
        return typ, first

    # definitions -----------------------------------------------------------------------
    def schema_def(self, desc: str, extend: bool) -> None:
        self.i += 1
        at = self.place()
        self.applied()
        if not extend and not self.schema.defined:
            self.schema.at, self.schema.desc, self.schema.defined = at, desc, True
            self.note(self.schema, at)
        elif self.schema.at is None:
            self.schema.at = at
        if not self.accept("{"):
            if extend:
                return
            raise _Bad("expected {")
        while not self.accept("}"):
            op = self.name()
            self.expect(":")
            self.schema.roots.setdefault(op, self.name())

    def scalar_def(self, desc: str, extend: bool) -> None:
        typ, _ = self.define("scalar", desc, extend)
        for name, args in self.applied():
            url = args.get("url", ("", None))[1]
            if name == "specifiedBy" and url and not typ.specified_by:
                typ.specified_by = url

    def object_def(self, desc: str, extend: bool) -> None:
        kind = "interface" if self.is_word("interface") else "object"
        typ, _ = self.define(kind, desc, extend)
        for name in self.implements():
            if name not in typ.interfaces:
                typ.interfaces.append(name)
        self.applied()
        if not self.accept("{"):
            return
        while not self.accept("}"):
            fdesc = self.description()
            at = self.place()
            name = self.name()
            args = self.input_values(")") if self.accept("(") else []
            self.expect(":")
            ftype = self.type_ref()
            item = _Field(name, args, ftype, fdesc, _deprecation(self.applied()), at)
            self.note(item, at)
            typ.fields.setdefault(name, item)

    def union_def(self, desc: str, extend: bool) -> None:
        typ, _ = self.define("union", desc, extend)
        self.applied()
        if not self.accept("="):
            return
        self.accept("|")
        names = [self.name()]
        while self.accept("|"):
            names.append(self.name())
        typ.members += [x for x in names if x not in typ.members]

    def enum_def(self, desc: str, extend: bool) -> None:
        typ, _ = self.define("enum", desc, extend)
        self.applied()
        if not self.accept("{"):
            return
        while not self.accept("}"):
            vdesc = self.description()
            at = self.place()
            name = self.name()
            if name in ("true", "false", "null"):
                raise _Bad("an enum value named true, false or null")
            item = _Value(name, vdesc, _deprecation(self.applied()), at)
            self.note(item, at)
            typ.values.setdefault(name, item)

    def input_def(self, desc: str, extend: bool) -> None:
        typ, _ = self.define("input", desc, extend)
        if any(name == "oneOf" for name, _ in self.applied()):
            typ.one_of = True
        if self.accept("{"):
            for item in self.input_values("}"):
                typ.inputs.setdefault(item.name, item)

    def directive_def(self, desc: str, extend: bool) -> None:
        self.i += 1
        self.expect("@")
        at = self.place()
        name = self.name()
        args = self.input_values(")") if self.accept("(") else []
        repeatable = self.is_word("repeatable")
        if repeatable:
            self.i += 1
        if not self.is_word("on"):
            raise _Bad("expected on")
        self.i += 1
        self.accept("|")
        locations = [self.name()]
        while self.accept("|"):
            locations.append(self.name())
        if name not in self.schema.directives:
            item = _Directive(name, args, locations, repeatable, desc, at)
            self.schema.directives[name] = item
            self.note(item, at)


def _deprecation(applied: _Applied) -> str | None:
    """The reason an applied `@deprecated` gives (the default when none), else None."""
    for name, args in applied:
        if name == "deprecated":
            reason = args.get("reason", ("", None))[1]
            return reason or _NO_REASON
    return None


def _clean(desc: str) -> str:
    """A description as shown: line breaks made `\\n`, leading blank lines and trailing
    whitespace dropped (a string description's closing `\\n`)."""
    desc = desc.replace("\r\n", "\n").replace("\r", "\n")
    return re.sub(r"\A(?:[ \t]*\n)+", "", desc).rstrip()


# ----------------------------------------------------------------------------- introspection
def _ref(node: Any, depth: int = 0) -> str:
    """A type reference (`{kind, name, ofType}`) as written in SDL; "" when malformed."""
    if not isinstance(node, dict) or depth > 16:
        return ""
    kind = node.get("kind")
    if kind in ("NON_NULL", "LIST"):
        inner = _ref(node.get("ofType"), depth + 1)
        if not inner:
            return ""
        return f"{inner}!" if kind == "NON_NULL" else f"[{inner}]"
    name = node.get("name")
    return name if isinstance(name, str) and name else ""


def _text(node: Any, key: str) -> str:
    got = node.get(key) if isinstance(node, dict) else None
    return got if isinstance(got, str) else ""


def _said_deprecated(node: dict[str, Any]) -> str | None:
    if node.get("isDeprecated") is not True:
        return None
    return _text(node, "deprecationReason") or _NO_REASON


def _printed_default(raw: Any) -> str | None:
    """Introspection's `defaultValue` (a GraphQL value as text), printed as the SDL's are."""
    if not isinstance(raw, str):
        return None
    try:
        lexed = _lex(raw)
        p = _Parser(lexed, SourceFile(PurePosixPath("."), "", ""), _Schema(""))
        shown = p.value()[0]
        return shown if p.peek().kind == "eof" else raw
    except (_Bad, RecursionError):
        return raw


def _inputs(nodes: Any, at: _Place) -> list[_Input]:
    out: list[_Input] = []
    for node in nodes if isinstance(nodes, list) else []:
        if not isinstance(node, dict):
            continue
        name, typ = _text(node, "name"), _ref(node.get("type"))
        if name and typ:
            default = _printed_default(node.get("defaultValue"))
            desc = _clean(_text(node, "description"))
            out.append(_Input(name, typ, default, desc, _said_deprecated(node), at))
    return out


_KINDS = {
    "OBJECT": "object",
    "INTERFACE": "interface",
    "UNION": "union",
    "ENUM": "enum",
    "INPUT_OBJECT": "input",
    "SCALAR": "scalar",
}


def _dicts(node: dict[str, Any], key: str) -> list[dict[str, Any]]:
    """The objects of a list an introspection node holds (a malformed entry skipped)."""
    got = node.get(key)
    return [x for x in got if isinstance(x, dict)] if isinstance(got, list) else []


def _read_type(node: dict[str, Any], typ: _Type, at: _Place) -> None:
    """One of introspection's `types` read into `typ`."""
    typ.defined, typ.desc = True, _clean(_text(node, "description"))
    typ.interfaces = [x["name"] for x in _dicts(node, "interfaces") if _text(x, "name")]
    for fnode in _dicts(node, "fields"):
        fname, ftype = _text(fnode, "name"), _ref(fnode.get("type"))
        if fname and ftype:
            fdesc = _clean(_text(fnode, "description"))
            args = _inputs(fnode.get("args"), at)
            made = _Field(fname, args, ftype, fdesc, _said_deprecated(fnode), at)
            typ.fields.setdefault(fname, made)
    for item in _inputs(node.get("inputFields"), at):
        typ.inputs.setdefault(item.name, item)
    for vnode in _dicts(node, "enumValues"):
        vname = _text(vnode, "name")
        if vname:
            vdesc = _clean(_text(vnode, "description"))
            typ.values.setdefault(vname, _Value(vname, vdesc, _said_deprecated(vnode), at))
    if typ.kind == "union":
        typ.members = [x["name"] for x in _dicts(node, "possibleTypes") if _text(x, "name")]
    typ.specified_by = _text(node, "specifiedByURL") or _text(node, "specifiedByUrl")
    typ.one_of = node.get("isOneOf") is True


def _introspected(root: dict[str, Any], f: SourceFile, name: str) -> _Schema:
    at = _Place(f, 1)
    schema = _Schema(name, _clean(_text(root, "description")), at)
    for op in _OPERATIONS:
        root_type = _text(root.get(f"{op}Type"), "name")
        if root_type:
            schema.roots[op] = root_type
    for node in _dicts(root, "types"):
        kind, tname = _KINDS.get(_text(node, "kind"), ""), _text(node, "name")
        if not kind or not tname or tname in schema.types:
            continue
        _read_type(node, schema.type(kind, tname, at), at)
    for dnode in _dicts(root, "directives"):
        dname = _text(dnode, "name")
        if dname and dname not in schema.directives:
            places = dnode.get("locations")
            locations = (
                [x for x in places if isinstance(x, str)] if isinstance(places, list) else []
            )
            args = _inputs(dnode.get("args"), at)
            desc = _clean(_text(dnode, "description"))
            repeatable = dnode.get("isRepeatable") is True
            schema.directives[dname] = _Directive(dname, args, locations, repeatable, desc, at)
    return schema


# ----------------------------------------------------------------------------- texts
_ABBREVIATION = re.compile(r"(?:\b(?:e\.g|i\.e|etc|vs|cf|approx|incl|esp)|\.\.)$")


def first_sentence(desc: str) -> str:
    """The first sentence of a description's first paragraph, on one line ("" when the
    paragraph opens with code)."""
    paragraph = re.split(r"\n[ \t]*\n", desc.strip("\n"), maxsplit=1)[0]
    if not paragraph or paragraph.startswith(("    ", "\t", "```", "~~~")):
        return ""
    flat = " ".join(paragraph.split())
    end = len(flat)
    for m in re.finditer(r"[.!?](?=\s|$)", flat):
        if _ABBREVIATION.search(flat[: m.start()]) or flat[m.end() :].lstrip()[:1].islower():
            continue
        end = m.end()
        break
    if end > _MAX_SENTENCE:
        return flat[: _MAX_SENTENCE - 1].rstrip() + "…"
    return flat[:end]


def _named(typ: str) -> str:
    return typ.strip("[]!")


# a line that is Markdown's structure, not prose: a list item, a table row, a quote, a
# heading, a fence, indented code; a description with one keeps its lines
_STRUCTURE = re.compile(r"\s*(?:[-*+]\s|\d+[.)]\s|[|>#]|```|~~~)|    ")


def _param(a: _Input) -> str:
    """`:param name: (Type) description`: a short one-paragraph description on the line,
    a longer one under it, indented."""
    said = f"{a.type}, deprecated" if a.deprecated is not None else a.type
    head = f":param {a.name}: ({said})"
    if "\n" not in a.desc:
        return f"{head} {a.desc}"
    lines = a.desc.split("\n")
    if not any(_STRUCTURE.match(x) or not x.strip() for x in lines):
        return f"{head} {' '.join(x.strip() for x in lines)}"
    return "\n".join([head, *(f"  {x}" if x.strip() else "" for x in lines)])


def _joined(*parts: str) -> str:
    return "\n\n".join(p for p in parts if p)


# the fields every Relay connection and edge type has, which say the same in each
_RELAY_FIELDS = frozenset({"edges", "nodes", "pageInfo", "totalCount", "cursor", "node"})


def _listing(title: str, lines: list[str]) -> str:
    return "\n".join([title, *lines]) if lines else ""


class _Writer:
    """The documents of one schema."""

    def __init__(self, schema: _Schema, source: str) -> None:
        self.s = schema
        self.source = source
        self.implementers: dict[str, list[str]] = {}
        self.unions: dict[str, list[str]] = {}
        for t in schema.types.values():
            for i in t.interfaces:
                self.implementers.setdefault(i, []).append(t.name)
            if t.kind == "union":
                for m in t.members:
                    self.unions.setdefault(m, []).append(t.name)
        self.docs: list[Document] = []
        self.said: set[tuple[str, str]] = set()  # (field name, description) documented

    def repeated(self, name: str, desc: str) -> bool:
        """Whether a field or input field of this name was documented with these very
        words already, in another type (Relay's `clientMutationId` on every mutation's
        input and payload): its first document says it; the rest list it."""
        if (name, desc) in self.said:
            return True
        self.said.add((name, desc))
        return False

    def sentence(self, type_name: str) -> str:
        t = self.s.types.get(type_name)
        return first_sentence(t.desc) if t is not None else ""

    def add(self, qual: str, text: str, kind: str, at: _Place) -> None:
        name = f"{self.s.name}:{qual}" if qual else self.s.name
        signature = text.split("\n", 1)[0]
        doc = api_document(
            self.source, URI_PREFIX, at.f, name, text, kind, signature, at.line, language="graphql"
        )
        self.docs.append(doc)

    def documents(self) -> list[Document]:
        self.schema_document()
        for t in self.s.types.values():
            if t.name in _BUILTIN_TYPES or t.name.startswith("__"):
                continue
            {
                "object": self.object_documents,
                "interface": self.object_documents,
                "union": self.union_document,
                "enum": self.enum_documents,
                "input": self.input_documents,
                "scalar": self.scalar_document,
            }[t.kind](t)
        for d in self.s.directives.values():
            if d.name not in _BUILTIN_DIRECTIVES and (d.desc or any(a.desc for a in d.args)):
                self.directive_document(d)
        return self.docs

    def roots(self) -> dict[str, str]:
        """The root operation types: the schema definition's, else those named by default."""
        if self.s.roots:
            return self.s.roots
        defaults = {op: op.capitalize() for op in _OPERATIONS}
        return {op: t for op, t in defaults.items() if t in self.s.types}

    def schema_document(self) -> None:
        roots = self.roots()
        if not roots and not self.s.desc:
            return
        shown = ", ".join(f"{op}: {t}" for op, t in roots.items())
        head = f"schema {{ {shown} }}" if roots else "schema"
        lines = []
        for op, t in roots.items():
            said = self.sentence(t)
            lines.append(f"- {op}: `{t}` - {said}" if said else f"- {op}: `{t}`")
        at = self.s.at
        if at is None:
            first = self.s.types.get(next(iter(roots.values()), ""))
            if first is None:
                return
            at = first.at
        self.add("", _joined(head, self.s.desc, _listing("Root types:", lines)), "schema", at)

    def type_list(self, names: list[str]) -> list[str]:
        out = []
        for name in names:
            said = self.sentence(name)
            out.append(f"- `{name}`: {said}" if said else f"- `{name}`")
        return out

    def object_documents(self, t: _Type) -> None:
        fields = list(t.fields.values())
        for fd in fields:
            if not (fd.desc or any(a.desc for a in fd.args)) or self.said_elsewhere(t, fd):
                continue
            if fd.args or not self.repeated(fd.name, fd.desc):
                self.field_document(t, fd)
        if not (t.desc or any(fd.desc or any(a.desc for a in fd.args) for fd in fields)):
            return
        keyword = "interface" if t.kind == "interface" else "type"
        head = f"{keyword} {t.name}"
        if t.interfaces:
            head += " implements " + " & ".join(t.interfaces)
        lines = []
        for fd in fields:
            label = f"{fd.name}(…)" if fd.args else fd.name
            mark = " (deprecated)" if fd.deprecated is not None else ""
            said = first_sentence(fd.desc)
            line = f"- `{label}`{mark}: `{fd.type}`"
            lines.append(f"{line} - {said}" if said else line)
        implements = ", ".join(f"`{x}`" for x in t.interfaces)
        member_of = ", ".join(f"`{x}`" for x in sorted(self.unions.get(t.name, [])))
        by = sorted(self.implementers.get(t.name, [])) if t.kind == "interface" else []
        text = _joined(
            head,
            t.desc,
            f"Implements: {implements}" if implements else "",
            f"Member of: {member_of}" if member_of else "",
            _listing("Fields:", lines),
            _listing("Implemented by:", self.type_list(by)),
        )
        self.add(t.name, text, t.kind, t.at)

    def said_elsewhere(self, t: _Type, fd: _Field) -> bool:
        """A field whose document would say what another already does: one an interface
        of its type declares with the same description (the interface's document says it;
        GitHub's 100 audit entries each repeat `AuditEntry.actorUrl`), and a Relay
        connection's or edge's own plumbing (`edges`, `nodes`, `pageInfo`, `totalCount`,
        `cursor`, `node`: "A list of edges." thousands of times). Both stay in the type's
        `Fields:` list."""
        for name in t.interfaces:
            other = self.s.types.get(name)
            inherited = other.fields.get(fd.name) if other is not None else None
            if inherited is not None and inherited.desc == fd.desc:
                return True
        relay = t.name.endswith(("Connection", "Edge")) and fd.name in _RELAY_FIELDS
        return relay and not any(a.desc for a in fd.args)

    def field_document(self, t: _Type, fd: _Field) -> None:
        params = "\n".join(_param(a) for a in fd.args if a.desc)
        named = _named(fd.type)
        returns = ""
        if named in self.s.types and named not in _BUILTIN_TYPES:
            said = self.sentence(named)
            returns = f":returns: {named} - {said}" if said else f":returns: {named}"
        fields = "\n".join(x for x in (params, returns) if x)
        deprecated = f"Deprecated: {fd.deprecated}" if fd.deprecated is not None else ""
        text = _joined(fd.declared(), fd.desc, fields, deprecated)
        self.add(f"{t.name}.{fd.name}", text, "field", fd.at)

    def union_document(self, t: _Type) -> None:
        if not t.desc:
            return
        head = f"union {t.name} = {' | '.join(t.members)}" if t.members else f"union {t.name}"
        self.add(
            t.name,
            _joined(head, t.desc, _listing("Members:", self.type_list(t.members))),
            "union",
            t.at,
        )

    def enum_documents(self, t: _Type) -> None:
        values = list(t.values.values())
        lines = []
        for v in values:
            mark = " (deprecated)" if v.deprecated is not None else ""
            said = first_sentence(v.desc)
            lines.append(f"- `{v.name}`{mark}: {said}" if said else f"- `{v.name}`{mark}")
            if v.desc:
                deprecated = f"Deprecated: {v.deprecated}" if v.deprecated is not None else ""
                text = _joined(f"{t.name}.{v.name}", v.desc, deprecated)
                self.add(f"{t.name}.{v.name}", text, "enum value", v.at)
        if t.desc or any(v.desc for v in values):
            text = _joined(f"enum {t.name}", t.desc, _listing("Values:", lines))
            self.add(t.name, text, "enum", t.at)

    def input_documents(self, t: _Type) -> None:
        inputs = list(t.inputs.values())
        lines = []
        for a in inputs:
            mark = " (deprecated)" if a.deprecated is not None else ""
            tail = f" = {a.default}" if a.default is not None else ""
            said = first_sentence(a.desc)
            line = f"- `{a.name}`{mark}: `{a.type}{tail}`"
            lines.append(f"{line} - {said}" if said else line)
            if a.desc and not self.repeated(a.name, a.desc):
                deprecated = f"Deprecated: {a.deprecated}" if a.deprecated is not None else ""
                self.add(
                    f"{t.name}.{a.name}",
                    _joined(a.declared(), a.desc, deprecated),
                    "input field",
                    a.at,
                )
        if t.desc or any(a.desc for a in inputs):
            one_of = "Exactly one of its fields must be set." if t.one_of else ""
            text = _joined(f"input {t.name}", t.desc, one_of, _listing("Fields:", lines))
            self.add(t.name, text, "input", t.at)

    def scalar_document(self, t: _Type) -> None:
        if t.desc or t.specified_by:
            url = f"Specified by: {t.specified_by}" if t.specified_by else ""
            self.add(t.name, _joined(f"scalar {t.name}", t.desc, url), "scalar", t.at)

    def directive_document(self, d: _Directive) -> None:
        shown = f"({', '.join(a.declared() for a in d.args)})" if d.args else ""
        again = " repeatable" if d.repeatable else ""
        head = f"directive @{d.name}{shown}{again} on {' | '.join(d.locations)}"
        params = "\n".join(_param(a) for a in d.args if a.desc)
        self.add(f"@{d.name}", _joined(head, d.desc, params), "directive", d.at)


# ----------------------------------------------------------------------------- reading
def api_documents(
    files: list[SourceFile], source: str, rejects: CollectResult | None = None, top: str = ""
) -> list[Document]:
    """Documents for what the files' schemas describe, sorted by uri: the SDL files of a
    folder read as one schema, an introspection `.json` as one of its own; a file that
    gives none is counted in `rejects`. `top`, the source's folder name, names a schema
    of several SDL files at the source's root."""
    docs: dict[str, Document] = {}
    folders: dict[PurePosixPath, list[SourceFile]] = {}
    for f in sorted(files, key=lambda f: f.rel):
        if is_sdl(f.rel.name):
            folders.setdefault(f.rel.parent, []).append(f)
            continue
        got = _introspection_documents(f, source, top)
        if isinstance(got, str):
            count(rejects, got, f.where)
            continue
        if not got:
            count(rejects, GRAPHQL_NO_API, f.where)
        for doc in got:
            docs.setdefault(doc.uri, doc)
    for folder, group in folders.items():
        for doc in _folder_documents(folder, group, source, rejects, top):
            docs.setdefault(doc.uri, doc)
    return [docs[uri] for uri in sorted(docs)]


def _introspection_documents(f: SourceFile, source: str, top: str) -> list[Document] | str:
    try:
        root = _schema_node(json.loads(f.text))
    except (ValueError, RecursionError):
        return GRAPHQL_BAD
    if root is None:
        return GRAPHQL_BAD
    return _Writer(_introspected(root, f, schema_name(f.rel, top)), source).documents()


def _folder_documents(
    folder: PurePosixPath,
    group: list[SourceFile],
    source: str,
    rejects: CollectResult | None,
    top: str,
) -> list[Document]:
    """One folder's SDL files read as one schema: each file parsed alone (a broken one
    adds nothing), then merged in path order."""
    schema = _Schema("")
    read: list[SourceFile] = []
    for f in group:
        part = _Schema("")
        try:
            p = _Parser(_lex(f.text), f, part)
            p.parse()
        except (_Bad, RecursionError):
            count(rejects, GRAPHQL_BAD, f.where)
            continue
        if p.executable and not p.type_system:
            count(rejects, GRAPHQL_OPERATIONS, f.where)
            continue
        _merge(schema, part)
        read.append(f)
    if not read:
        return []
    schema.name = schema_name(read[0].rel, top) if len(read) == 1 else _folder_name(folder, top)
    docs = _Writer(schema, source).documents()
    origins = {d.meta["origin"] for d in docs}
    for f in read:
        if f.where not in origins:
            count(rejects, GRAPHQL_NO_API, f.where)
    return docs


def _union(first: dict[str, Any], second: dict[str, Any]) -> dict[str, Any]:
    """`first`'s items, then those of `second` it lacks."""
    out = dict(first)
    for k, v in second.items():
        out.setdefault(k, v)
    return out


def _merge(into: _Schema, part: _Schema) -> None:
    """One file's schema added to its folder's: of an item both define, the first file's;
    a type's definition (its description, place, members first) wins over extensions of
    it read before."""
    if part.at is not None and (into.at is None or (part.desc and not into.desc)):
        into.at, into.desc = part.at, into.desc or part.desc
    into.roots = _union(into.roots, part.roots)
    into.directives = _union(into.directives, part.directives)
    for name, t in part.types.items():
        old = into.types.get(name)
        if old is None:
            into.types[name] = t
            continue
        first, second = (t, old) if t.defined and not old.defined else (old, t)
        old.kind, old.at, old.desc, old.defined = first.kind, first.at, first.desc, first.defined
        old.fields = _union(first.fields, second.fields)
        old.inputs = _union(first.inputs, second.inputs)
        old.values = _union(first.values, second.values)
        old.interfaces = list(dict.fromkeys([*first.interfaces, *second.interfaces]))
        old.members = list(dict.fromkeys([*first.members, *second.members]))
        old.specified_by = first.specified_by or second.specified_by
        old.one_of = first.one_of or second.one_of
