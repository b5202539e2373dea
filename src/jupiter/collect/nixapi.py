"""Nix module files read as the options reference they declare, what search.nixos.org,
`man home-configuration.nix` and `nixos-option` show: one document per declared option
(`nix:programs.git.signing.key`), so that a question about a NixOS, home-manager or
nix-darwin option has a document to come from. Read as text a module gives its code.

Which files: `is_nix` takes a `.nix` file. Tests (anything under a `test/` or `tests/`
folder) give no document and are counted (`nix_test`); so is a file over 2 MB
(`nix_too_big`), one that does not parse (`nix_bad_syntax`) and one declaring no option
and no documented library function (`nix_no_api`: a package, a module that only sets
options).

Parsing. A lexer and a parser of the Nix language, never a library and nothing run:
comments `#` and `/* */`, strings `"..."` with their escapes and `${...}` interpolations
(nested, strings inside them too; `$${` is literal), indented strings `''...''` with their
escapes (`'''`, `''$`, `''\\n`) and their indentation stripped as Nix strips it (the
fewest leading spaces of a line with text, an interpolation or an escape on it; a first
line of only spaces after `''` and a last one before `''` dropped), paths (`./a/b.nix`,
`~/x`, `<nixpkgs>`, `./x-${y}.nix`), URIs, numbers, `let ... in`, `with x;`, `inherit (x)
a b;`, functions (`x: ...`, `{ a, b ? 1, ... }@args: ...`), sets (`rec` too) with dotted
and `"${x}"` names, lists, `if`, `assert`, the operators at Nix's precedences (`.` and
`or`, application, `-`, `?`, `++`, `*` `/`, `+` `-`, `!`, `//`, comparisons, `&&`, `||`,
`->`, `|>` `<|`).

Evaluating. A module's options are what its value says, so the file is evaluated, lazily
and only as far as its options need: a small evaluator of sets, lists, strings, numbers,
functions, `let`, `with`, `rec`, `//`, `+`, `++`, comparisons and `if`. What the files do
not define stays opaque, named by how it is reached (`lib.types.str`, `pkgs.git`,
`config.programs.git`): a module's function is called with `lib`, `config`, `pkgs`,
`options` opaque (a formal's default used), so `with lib;`, `inherit (lib) mkOption
types;`, `let cfg = ...; in` and a file's own helpers (`mkNullableOption = args:
mkOption (args // { ... })`, `option // { readOnly = ...; }`) all work. The library
functions that build options and names are computed, known by their name's last part
(`lib.mkOption`, `mkOption` after `with lib;`): mkOption, mkEnableOption ("Whether to
enable x.", boolean, default false, example true), mkPackageOption (`pkgs "git" {
default, example, extraDescription, nullable, pkgsText }`: package, or null or package,
default `pkgs.git`, "The git package to use." and the extra description),
mkSinkUndeclaredOptions (internal), mkOptionType, mdDoc, literalExpression,
literalExample, literalMD, the option-module makers (below), mkDefault, mkIf, mkMerge,
setAttrByPath, genAttrs, mapAttrs, listToAttrs, optionalAttrs, recursiveUpdate, map,
foldl', concatStringsSep, optionalString, toString, attrNames, replaceStrings, pipe, ...
and `import` of another file handed over (its path resolved from the importing file's
folder; a folder, its `default.nix`). A file takes at most 400000 evaluation steps; one
cut so gives the options found until then and is counted (`nix_cut`).

Options. The module is the file's value (functions called): a set with `options`,
`config`, `imports`, `meta`, ... (a set with none of them only sets config; a module of
`_class = "service"`, a modular service's, is not read). Its `options` set is walked:
every attribute path leading to an option (`programs.git = { enable = mkEnableOption
"Git"; signing.key = mkOption { ... }; }`) is the option's name, parts that are no Nix
identifier quoted as the manual quotes them (`targets.darwin.defaults."com.apple.dock"`).
A name built from what is not known (`options.${name}`, `setAttrByPath modulePath`) is
left out and counted (`nix_dynamic_name`), and so is an option made by a function of a
file the reader cannot see (`lib.hm.shell.mkZshIntegrationOption`: `nix_unknown_helper`).
An `imports` entry that is no path (`(import ./mkModule.nix { ... })`, an inline set) is
read as a module of the file; a path there is a file read on its own. An internal option
(`internal = true`), an invisible one (`visible = false`, which hides its sub-options
too) and a `visible = "transparent"` one are left out, counted (`nix_hidden_option`);
`visible = "shallow"` hides only its sub-options. Sub-options: a type's submodules are
read as modules under the option's name (`types.submodule { options = ...; }`, a module
function `{ name, config, ... }: { ... }` whose `name` is "‹name›", a list of modules,
`submoduleWith { modules }`, a path or `import ./x.nix`, a module bound by a `let`),
under the placeholder part of the type holding them, as the NixOS manual writes it:
`attrsOf`, `lazyAttrsOf`, `attrsWith` (its `placeholder`) and home-manager's `dagOf` add
`<name>`, `listOf` `*`, `functionTo` `<function body>`; `nullOr`, `either`, `oneOf`,
`coercedTo`, `uniq`, `addCheck` look inside; an `attrTag`'s tags are options under its
name (`services.nginx.virtualHosts.<name>.root`). A file read through `import` while
another file's options are read gives its options only through that file (their names
need its prefix) and none of its own, counted (`nix_submodule_file`).

Documents. An option's uri is `nix:<name>`, kind "option", its title and meta `qualname`
the name, meta `option_type` its type. Its text: the signature `<name>: <type>`; the
description as Markdown (a string or an indented string; a `mdDoc` or `literalMD`
unwrapped; an interpolation not known written as in the source, `${cfg.x}`; common
indentation dropped; the NixOS roles `` {option}`x` ``, `{command}`, `{file}`, `{env}`,
`{var}`, `{manpage}` as code spans, `[](#opt-a._name_.b)` as `` `a.<name>.b` ``, old
DocBook (`<literal>`, `<option>`, `<filename>`, `<link>`, `<citerefentry>`, `<para>`,
...) converted); `Default: ...` from `defaultText` when given, else `default`; `Example:
...`; `Read only.` (`readOnly = true`); `Declared in: <file>`. A value is shown as the
manual shows it: a literalExpression's text as Nix, a literalMD's as Markdown, a plain
string `defaultText` as a Nix string; a value written in the file as written (a name
followed to its definition: `default = defaultPort;` shows the let's `8080`), a string,
number or boolean the file computes as Nix, else the expression as written; inline in
backquotes, in a ```` ```nix ```` block when over a line or 100 characters (at most 3000
characters). The type as nixpkgs' `lib/types.nix` describes it, parentheses where its
description classes need them: `types.nullOr types.str` "null or string",
`types.listOf types.package` "list of package", `types.enum [ "a" "b" ]` `one of "a",
"b"`, `types.attrsOf (types.submodule ...)` "attribute set of (submodule)" (a submodule
with a `freeformType`: that type's description), `types.port` "16 bit unsigned integer;
between 0 and 65535 (both inclusive)", `types.ints.between 1 9`, `types.either`,
`types.oneOf`, `types.coercedTo`, `types.strMatching`, `types.lines`, ...; a type made
with `mkOptionType`, its description; pkgs.formats' json, yaml and toml types "JSON
value", "YAML 1.1 value", "TOML value"; home-manager's `dagOf` ("DAG of x") and
`gvariant`; no type, "unspecified value"; a type the reader does not know, as written
(`tomlFormat.type`).

Library functions. A file declaring no option is read for RFC 145 doc comments
(`/** ... */` right before an attribute): each documented attribute of the set the
file's value is (under its functions, `let`s and `with`s; sets inside it too, four deep)
gives a document (kind "function" when its value is a function or its doc has a `# Type`
block, else "value") named by the file's place and the attribute's path: the path from
the file's last `lib` folder with `default.nix` dropped, else its whole path
(`lib/strings.nix`'s `concatStrings`: `nix:lib.strings.concatStrings`). Its text: the
signature (the name and the `# Type` block's `:: type`, else the name and the function's
parameters, `lib.strings.join sep { list }`), the comment dedented as Markdown, `Declared
in: <file>`. A library function without a doc comment gives nothing.

An option-module maker in `imports` (mkRenamedOptionModule, mkRenamedOptionModuleWith,
mkAliasOptionModule, mkRemovedOptionModule, mkChangedOptionModule, mkMergedOptionModule)
with its paths written out gives a document for the old name: kind "renamed option"
("The option has been renamed to `new`."), "alias", "removed option" (with its reason),
"changed option", "merged option". A file declaring options also gives one document
(kind "module", uri `nix:module:<path>`): `<path>: module declaring N options` and its
options listed with their types and first sentences (at most 100). Of an option two files
declare, the first file's in path order is kept (of two declarations in one file, the
first). Each document stands at the line of the option's attribute in its file (an option
declared in a file it imports: the line of the import).
"""

from __future__ import annotations

import json
import re
import textwrap
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from jupiter.collect.result import CollectResult, SourceFile, api_document, count, first_documents
from jupiter.records import Document

URI_PREFIX = "nix:"
SUFFIXES = (".nix",)
# reasons a file (or one of its options) gave no document, as the collect stage counts them
NIX_TEST = "nix_test"
NIX_BAD_SYNTAX = "nix_bad_syntax"
NIX_NO_API = "nix_no_api"
NIX_TOO_BIG = "nix_too_big"
NIX_CUT = "nix_cut"
NIX_HIDDEN = "nix_hidden_option"
NIX_DYNAMIC = "nix_dynamic_name"
NIX_HELPER = "nix_unknown_helper"
NIX_PART = "nix_submodule_file"
_READ = (
    "Nix module files read as the options reference they declare (one document per "
    "declared option, as the NixOS and home-manager manuals show them): "
)
_TEXT = "; the source's nix: text reads them as text"
FIXES = {
    NIX_TEST: _READ + "tests (under a test/ or tests/ folder) give none" + _TEXT,
    NIX_BAD_SYNTAX: _READ + "a file that does not parse as Nix gives none" + _TEXT,
    NIX_NO_API: _READ + "a file declaring no option and no documented library function "
    "(RFC 145 doc comments) gives none: a package, a module that only sets options" + _TEXT,
    NIX_TOO_BIG: _READ + "a file over 2 MB gives none" + _TEXT,
    NIX_CUT: _READ + "a file whose reading takes too many steps gives the options found "
    "until then" + _TEXT,
    NIX_HIDDEN: _READ + "an internal option (internal = true) or an invisible one "
    "(visible = false) is left out, as the manuals leave it out",
    NIX_HELPER: _READ + "an option made by a function another file defines (home-manager's "
    "lib.hm.shell.mkZshIntegrationOption) is left out",
    NIX_PART: _READ + "a file another file imports as a submodule gives its options under "
    "that file's option (`accounts.email.accounts.<name>.x`), none of its own",
    NIX_DYNAMIC: _READ + "an option whose name the file does not spell out (a name built from "
    "a function's argument: options.${name}) is left out",
}
MAX_BYTES = 2_000_000
MAX_STEPS = 400_000  # evaluation steps one file may take
MAX_DOCUMENTS = 5000  # of one file
_MAX_NESTING = 200  # brackets and interpolations inside each other
_MAX_PATH = 30  # parts of an option's name
_MAX_LISTED = 100  # options a module's document lists
_MAX_SENTENCE = 200
_MAX_INLINE = 100  # characters of a default shown on its line
_MAX_VALUE = 3000  # characters of a default or example shown
_LANG = {"language": "nix"}
_TEST_FOLDERS = frozenset({"test", "tests"})


def is_nix(name: str) -> bool:
    """Whether a file is a Nix file (`.nix`)."""
    return name.lower().endswith(SUFFIXES)


def is_test(rel: PurePosixPath) -> bool:
    """Whether a file is a test: anything under a `test/` or `tests/` folder."""
    return bool(_TEST_FOLDERS & set(rel.parts[:-1]))


# ----------------------------------------------------------------------------- lexing
class _Syntax(ValueError):
    """Text that is no Nix the reader can parse."""


@dataclass(slots=True, eq=False)
class _Tok:
    kind: str  # id int float path uri str istr, an operator or a keyword
    start: int
    end: int
    value: object = None  # an id's name, a number, a path's text, a string's parts
    doc: str | None = None  # the RFC 145 doc comment (`/** */`) just before it


# a string's parts: text, or an interpolation's tokens; an indented string's text marked
# "ind" (its leading spaces are indentation) or "esc" (an escape: never indentation)
_Part = tuple[str, object]

_PATH_CHARS = r"[a-zA-Z0-9._\-+]"
_TOKEN = re.compile(
    r"(?P<ws>[ \t\r\n]+)"
    r"|(?P<lc>#[^\n]*)"
    r"|(?P<bc>/\*)"
    r"|(?P<uri>[a-zA-Z][a-zA-Z0-9+\-.]*:[a-zA-Z0-9%/?:@&=+$,\-_.!~*']+)"
    rf"|(?P<pathi>(?:~|{_PATH_CHARS}*)(?:/{_PATH_CHARS}*)+(?=\$\{{))"
    rf"|(?P<path>{_PATH_CHARS}*(?:/{_PATH_CHARS}+)+/?)"
    rf"|(?P<hpath>~(?:/{_PATH_CHARS}+)+/?)"
    rf"|(?P<spath><{_PATH_CHARS}+(?:/{_PATH_CHARS}+)*>)"
    r"|(?P<float>(?:[1-9][0-9]*\.[0-9]*|0?\.[0-9]+)(?:[Ee][+-]?[0-9]+)?)"
    r"|(?P<int>[0-9]+)"
    r"|(?P<id>[a-zA-Z_][a-zA-Z0-9_'\-]*)"
    r"|(?P<op>\.\.\.|//|\+\+|==|!=|<=|>=|&&|\|\||->|\|>|<\||\$\{|[{}\[\]();:,=@?.+\-*/<>!])"
    r"|(?P<dq>\")"
    r"|(?P<sq>'')"
)
_KEYWORDS = frozenset({"if", "then", "else", "assert", "with", "let", "in", "rec", "inherit"})
_PATH_MORE = re.compile(rf"(?:{_PATH_CHARS}|/)*")
_DQ_STOP = re.compile(r'["\\$]')
_IND_STOP = re.compile(r"['$]")
_IND_OPEN = re.compile(r" *\n")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r"}


class _Lexer:
    def __init__(self, text: str) -> None:
        self.text = text
        self.doc: str | None = None

    def tokens(self, pos: int, depth: int, in_braces: bool) -> tuple[list[_Tok], int]:
        """The tokens from `pos`: to the end, or (`in_braces`: an interpolation's) to the
        `}` that closes the `${` before `pos`, and the position after them."""
        if depth > _MAX_NESTING:
            raise _Syntax("nested too deep")
        text, braces = self.text, 0
        toks: list[_Tok] = []
        match = _TOKEN.match
        while True:
            m = match(text, pos)
            if m is None:
                if pos >= len(text):
                    if in_braces:
                        raise _Syntax("unterminated interpolation")
                    return toks, pos
                raise _Syntax(f"unexpected character {text[pos]!r}")
            group, end = m.lastgroup, m.end()
            if group in ("ws", "lc"):
                pos = end
                continue
            if group == "bc":
                close = text.find("*/", pos + 2)
                if close < 0:
                    raise _Syntax("unterminated comment")
                if text.startswith("/**", pos) and close > pos + 2:
                    self.doc = text[pos + 3 : close]
                pos = close + 2
                continue
            if group == "dq":
                parts, end = self._string(pos + 1, depth)
                tok = _Tok("str", pos, end, parts)
            elif group == "sq":
                parts, end = self._indented(pos + 2, depth)
                tok = _Tok("istr", pos, end, parts)
            elif group == "id":
                word = m.group()
                tok = _Tok(word if word in _KEYWORDS else "id", pos, end, word)
            elif group == "op":
                op = m.group()
                if op in ("{", "${"):
                    braces += 1
                elif op == "}":
                    if braces == 0 and in_braces:
                        return toks, end
                    braces -= 1
                tok = _Tok(op, pos, end)
            elif group == "int":
                tok = _Tok("int", pos, end, int(m.group()))
            elif group == "float":
                tok = _Tok("float", pos, end, float(m.group()))
            elif group == "uri":
                tok = _Tok("uri", pos, end, m.group())
            elif group == "pathi":
                end = self._path_rest(end, depth)
                tok = _Tok("path", pos, end, text[pos:end])
            else:  # path, hpath, spath
                tok = _Tok("path", pos, end, m.group())
            if self.doc is not None:
                tok.doc, self.doc = self.doc, None
            toks.append(tok)
            pos = end

    def _path_rest(self, pos: int, depth: int) -> int:
        """The end of a path whose interpolation starts at `pos`."""
        text = self.text
        while text.startswith("${", pos):
            _, pos = self.tokens(pos + 2, depth + 1, True)
            more = _PATH_MORE.match(text, pos)
            pos = more.end() if more else pos
        return pos

    def _string(self, pos: int, depth: int) -> tuple[list[_Part], int]:
        """A `"..."` string's parts from after its quote, and the position after it."""
        text = self.text
        parts: list[_Part] = []
        buf: list[str] = []
        while True:
            m = _DQ_STOP.search(text, pos)
            if m is None:
                raise _Syntax("unterminated string")
            j = m.start()
            buf.append(text[pos:j])
            c = text[j]
            if c == '"':
                parts.append(("str", "".join(buf)))
                return parts, j + 1
            if c == "\\":
                if j + 1 >= len(text):
                    raise _Syntax("unterminated string")
                e = text[j + 1]
                buf.append(_ESCAPES.get(e, e))
                pos = j + 2
            elif text.startswith("${", j):
                parts.append(("str", "".join(buf)))
                buf = []
                toks, pos = self.tokens(j + 2, depth + 1, True)
                parts.append(("expr", (toks, j, pos)))
            elif text.startswith("$$", j):
                buf.append("$$")
                pos = j + 2
            else:
                buf.append("$")
                pos = j + 1

    def _indented(self, pos: int, depth: int) -> tuple[list[_Part], int]:
        """A `''...''` string's parts from after its quotes, and the position after it."""
        text = self.text
        parts: list[_Part] = []
        m = _IND_OPEN.match(text, pos)
        if m:
            pos = m.end()

        def add(kind: str, s: str) -> None:
            if parts and parts[-1][0] == kind == "ind":
                parts[-1] = ("ind", str(parts[-1][1]) + s)
            else:
                parts.append((kind, s))

        while True:
            m = _IND_STOP.search(text, pos)
            if m is None:
                raise _Syntax("unterminated indented string")
            j = m.start()
            if j > pos:
                add("ind", text[pos:j])
            if text.startswith("''", j):
                if text.startswith("'''", j):
                    add("esc", "''")
                    pos = j + 3
                elif text.startswith("''$", j):
                    add("esc", "$")
                    pos = j + 3
                elif text.startswith("''\\", j):
                    if j + 3 >= len(text):
                        raise _Syntax("unterminated indented string")
                    e = text[j + 3]
                    add("esc", _ESCAPES.get(e, e))
                    pos = j + 4
                else:
                    return parts, j + 2
            elif text[j] == "'":
                add("ind", "'")
                pos = j + 1
            elif text.startswith("${", j):
                toks, pos = self.tokens(j + 2, depth + 1, True)
                parts.append(("expr", (toks, j, pos)))
            elif text.startswith("$$", j):
                add("ind", "$$")
                pos = j + 2
            else:
                add("ind", "$")
                pos = j + 1


def _strip_indentation(parts: list[_Part]) -> list[_Part]:
    """An indented string's parts with their common indentation dropped, as Nix drops it:
    the fewest leading spaces of a line with anything but spaces on it (an interpolation
    or an escape counts), and a last line of nothing but spaces dropped."""
    least, indent, at_start = 1_000_000, 0, True
    for kind, value in parts:
        if kind != "ind":
            if at_start:
                at_start, least = False, min(least, indent)
            continue
        for k, seg in enumerate(str(value).split("\n")):
            if k:
                at_start, indent = True, 0
            if at_start and seg:
                stripped = seg.lstrip(" ")
                indent += len(seg) - len(stripped)
                if stripped:
                    at_start, least = False, min(least, indent)
    out: list[_Part] = []
    at_start, dropped = True, 0
    for kind, value in parts:
        if kind == "expr":
            at_start, dropped = False, 0
            out.append((kind, value))
            continue
        segs = str(value).split("\n")
        kept = []
        for k, seg in enumerate(segs):
            if k:
                at_start, dropped = True, 0
            if at_start and seg:
                stripped = seg.lstrip(" ")
                spaces = len(seg) - len(stripped)
                drop = max(0, min(spaces, least - dropped))
                dropped += spaces
                seg = seg[drop:]
                if stripped:
                    at_start, dropped = False, 0
            kept.append(seg)
        out.append(("str", "\n".join(kept)))
    if out and out[-1][0] == "str":
        last = str(out[-1][1])
        cut = last.rfind("\n")
        if cut >= 0 and not last[cut + 1 :].strip(" "):
            out[-1] = ("str", last[: cut + 1])
    return out


# ----------------------------------------------------------------------------- parsing
@dataclass(slots=True, eq=False)
class _Src:
    """A parsed file: its path, folder and text (what a node's source text is cut from)."""

    rel: PurePosixPath
    text: str = field(repr=False)


@dataclass(slots=True, eq=False)
class _Node:
    src: _Src
    start: int
    end: int


@dataclass(slots=True, eq=False)
class _Num(_Node):
    value: int | float


@dataclass(slots=True, eq=False)
class _Str(_Node):
    parts: list[str | _Node]


@dataclass(slots=True, eq=False)
class _Path(_Node):
    text: str


@dataclass(slots=True, eq=False)
class _Var(_Node):
    name: str


_Key = str | _Node  # an attribute name: spelled out, or a string to build


@dataclass(slots=True, eq=False)
class _Select(_Node):
    expr: _Node
    path: list[_Key]
    default: _Node | None


@dataclass(slots=True, eq=False)
class _Has(_Node):
    expr: _Node
    path: list[_Key]


@dataclass(slots=True, eq=False)
class _Apply(_Node):
    fn: _Node
    arg: _Node


@dataclass(slots=True, eq=False)
class _Lambda(_Node):
    arg: str | None
    formals: list[tuple[str, _Node | None]] | None
    body: _Node


@dataclass(slots=True, eq=False)
class _Bind:
    path: list[_Key]
    value: _Node
    start: int
    doc: str | None = None


@dataclass(slots=True, eq=False)
class _Inherit:
    source: _Node | None
    names: list[_Key]
    start: int


@dataclass(slots=True, eq=False)
class _Let(_Node):
    binds: list[_Bind | _Inherit]
    body: _Node


@dataclass(slots=True, eq=False)
class _With(_Node):
    env: _Node
    body: _Node


@dataclass(slots=True, eq=False)
class _Assert(_Node):
    body: _Node


@dataclass(slots=True, eq=False)
class _If(_Node):
    cond: _Node
    then: _Node
    other: _Node


@dataclass(slots=True, eq=False)
class _Attrs(_Node):
    rec: bool
    binds: list[_Bind | _Inherit]


@dataclass(slots=True, eq=False)
class _List(_Node):
    items: list[_Node]


@dataclass(slots=True, eq=False)
class _Op(_Node):
    op: str
    left: _Node
    right: _Node


@dataclass(slots=True, eq=False)
class _Unary(_Node):
    op: str  # "!" or "-"
    expr: _Node


# binary operators: precedence (higher binds tighter), associativity
_BINARY = {
    "|>": (1, "L"),
    "<|": (1, "R"),
    "->": (2, "R"),
    "||": (3, "L"),
    "&&": (4, "L"),
    "==": (5, "N"),
    "!=": (5, "N"),
    "<": (6, "N"),
    "<=": (6, "N"),
    ">": (6, "N"),
    ">=": (6, "N"),
    "//": (7, "R"),
    "+": (9, "L"),
    "-": (9, "L"),
    "*": (10, "L"),
    "/": (10, "L"),
    "++": (11, "R"),
}
_NOT_PREC = 8
_HAS_PREC = 12
_OPERAND_START = frozenset(
    {"id", "int", "float", "path", "uri", "str", "istr", "(", "{", "[", "rec"}
)


class _Parser:
    def __init__(self, src: _Src, toks: list[_Tok]) -> None:
        self.src = src
        self.toks = toks
        self.i = 0
        self.depth = 0

    # -- tokens
    def peek(self, k: int = 0) -> str:
        j = self.i + k
        return self.toks[j].kind if j < len(self.toks) else ""

    def tok(self) -> _Tok:
        if self.i >= len(self.toks):
            raise _Syntax("unexpected end of file")
        return self.toks[self.i]

    def take(self, kind: str) -> _Tok:
        t = self.tok()
        if t.kind != kind:
            raise _Syntax(f"expected {kind!r}, found {t.kind!r} at {t.start}")
        self.i += 1
        return t

    def last_end(self) -> int:
        return self.toks[self.i - 1].end if self.i else 0

    # -- expressions
    def whole(self) -> _Node:
        node = self.expr()
        if self.i != len(self.toks):
            raise _Syntax(f"unexpected {self.tok().kind!r} at {self.tok().start}")
        return node

    def expr(self) -> _Node:
        self.depth += 1
        if self.depth > _MAX_NESTING:
            raise _Syntax("nested too deep")
        try:
            return self._expr()
        finally:
            self.depth -= 1

    def _expr(self) -> _Node:
        t = self.tok()
        k, start, src = t.kind, t.start, self.src
        if k == "id" and self.peek(1) == ":":
            self.i += 2
            body = self.expr()
            return _Lambda(src, start, body.end, str(t.value), None, body)
        if k == "id" and self.peek(1) == "@" and self.peek(2) == "{":
            self.i += 2
            formals = self.formals()
            self.take(":")
            body = self.expr()
            return _Lambda(src, start, body.end, str(t.value), formals, body)
        if k == "{" and self.is_formals():
            formals = self.formals()
            arg = None
            if self.peek() == "@":
                self.i += 1
                arg = str(self.take("id").value)
            self.take(":")
            body = self.expr()
            return _Lambda(src, start, body.end, arg, formals, body)
        if k == "let" and self.peek(1) != "{":
            self.i += 1
            binds = self.binds("in")
            self.take("in")
            body = self.expr()
            return _Let(src, start, body.end, binds, body)
        if k == "with":
            self.i += 1
            env = self.expr()
            self.take(";")
            body = self.expr()
            return _With(src, start, body.end, env, body)
        if k == "assert":
            self.i += 1
            self.expr()
            self.take(";")
            body = self.expr()
            return _Assert(src, start, body.end, body)
        if k == "if":
            self.i += 1
            cond = self.expr()
            self.take("then")
            then = self.expr()
            self.take("else")
            other = self.expr()
            return _If(src, start, other.end, cond, then, other)
        return self.binary(0)

    def is_formals(self) -> bool:
        """Whether the `{` at hand opens a function's formals rather than a set."""
        a, b = self.peek(1), self.peek(2)
        if a == "}":
            return self.peek(2) in (":", "@")
        if a == "...":
            return True
        return a == "id" and (b in (",", "?") or (b == "}" and self.peek(3) in (":", "@")))

    def formals(self) -> list[tuple[str, _Node | None]]:
        self.take("{")
        out: list[tuple[str, _Node | None]] = []
        while self.peek() != "}":
            if self.peek() == "...":
                self.i += 1
            else:
                name = str(self.take("id").value)
                default = None
                if self.peek() == "?":
                    self.i += 1
                    default = self.expr()
                out.append((name, default))
            if self.peek() != ",":
                break
            self.i += 1
        self.take("}")
        return out

    def binary(self, least: int) -> _Node:
        left = self.unary()
        while True:
            k = self.peek()
            if k == "?" and _HAS_PREC >= least:
                self.i += 1
                path = self.attrpath()
                left = _Has(self.src, left.start, self.last_end(), left, path)
                continue
            spec = _BINARY.get(k)
            if spec is None or spec[0] < least:
                return left
            prec, assoc = spec
            self.i += 1
            right = self.binary(prec if assoc == "R" else prec + 1)
            left = _Op(self.src, left.start, right.end, k, left, right)
            if assoc == "N" and self.peek() in _BINARY and _BINARY[self.peek()][0] == prec:
                raise _Syntax("operator is not associative")

    def unary(self) -> _Node:
        t = self.tok()
        if t.kind == "-":
            self.i += 1
            e = self.unary()
            return _Unary(self.src, t.start, e.end, "-", e)
        if t.kind == "!":
            self.i += 1
            e = self.binary(_NOT_PREC)
            return _Unary(self.src, t.start, e.end, "!", e)
        return self.application()

    def application(self) -> _Node:
        fn = self.select()
        while self.peek() in _OPERAND_START:
            arg = self.select()
            fn = _Apply(self.src, fn.start, arg.end, fn, arg)
        return fn

    def select(self) -> _Node:
        e = self.primary()
        if self.peek() == ".":
            self.i += 1
            path = self.attrpath()
            default = None
            if self.peek() == "id" and self.tok().value == "or":
                self.i += 1
                default = self.select()
            end = default.end if default else self.last_end()
            return _Select(self.src, e.start, end, e, path, default)
        return e

    def attrpath(self) -> list[_Key]:
        path = [self.attrname()]
        while self.peek() == ".":
            self.i += 1
            path.append(self.attrname())
        return path

    def attrname(self) -> _Key:
        t = self.tok()
        if t.kind == "id" or t.kind in _KEYWORDS:
            self.i += 1
            return str(t.value) if t.kind == "id" else t.kind
        if t.kind == "str":
            self.i += 1
            node = self.string(t)
            if len(node.parts) == 1 and isinstance(node.parts[0], str):
                return node.parts[0]
            return node if node.parts else ""
        if t.kind == "${":
            self.i += 1
            e = self.expr()
            self.take("}")
            return e
        raise _Syntax(f"expected an attribute name at {t.start}")

    def primary(self) -> _Node:
        t = self.tok()
        k, src = t.kind, self.src
        if k == "id":
            self.i += 1
            return _Var(src, t.start, t.end, str(t.value))
        if k in ("int", "float"):
            self.i += 1
            value = t.value if isinstance(t.value, (int, float)) else 0
            return _Num(src, t.start, t.end, value)
        if k == "path":
            self.i += 1
            return _Path(src, t.start, t.end, str(t.value))
        if k == "uri":
            self.i += 1
            return _Str(src, t.start, t.end, [str(t.value)])
        if k in ("str", "istr"):
            self.i += 1
            return self.string(t)
        if k == "(":
            self.i += 1
            e = self.expr()
            self.take(")")
            return e
        if k == "[":
            self.i += 1
            items = []
            while self.peek() != "]":
                self.depth += 1
                if self.depth > _MAX_NESTING:
                    raise _Syntax("nested too deep")
                items.append(self.select())
                self.depth -= 1
            end = self.take("]").end
            return _List(src, t.start, end, items)
        if k == "rec" or k == "{":
            self.i += 1
            if k == "rec":
                self.take("{")
            binds = self.binds("}")
            end = self.take("}").end
            return _Attrs(src, t.start, end, k == "rec", binds)
        if k == "let" and self.peek(1) == "{":  # the old `let { ...; body = x; }`
            self.i += 2
            binds = self.binds("}")
            end = self.take("}").end
            attrs = _Attrs(src, t.start, end, True, binds)
            return _Select(src, t.start, end, attrs, ["body"], None)
        raise _Syntax(f"unexpected {k!r} at {t.start}")

    def binds(self, closer: str) -> list[_Bind | _Inherit]:
        out: list[_Bind | _Inherit] = []
        while self.peek() != closer:
            t = self.tok()
            if t.kind == "inherit":
                self.i += 1
                source = None
                if self.peek() == "(":
                    self.i += 1
                    source = self.expr()
                    self.take(")")
                names: list[_Key] = []
                while self.peek() != ";":
                    names.append(self.attrname())
                self.take(";")
                out.append(_Inherit(source, names, t.start))
                continue
            path = self.attrpath()
            self.take("=")
            value = self.expr()
            self.take(";")
            out.append(_Bind(path, value, t.start, t.doc))
        return out

    def string(self, t: _Tok) -> _Str:
        raw = t.value if isinstance(t.value, list) else []
        if t.kind == "istr":
            raw = _strip_indentation(raw)
        parts: list[str | _Node] = []
        for kind, value in raw:
            if kind == "expr":
                toks, start, end = value  # type: ignore[misc]
                sub = _Parser(self.src, toks)
                sub.depth = self.depth + 1
                if not toks:
                    raise _Syntax("empty interpolation")
                node = sub.whole()
                parts.append(node)
            elif value:
                if parts and isinstance(parts[-1], str):
                    parts[-1] += str(value)
                else:
                    parts.append(str(value))
        return _Str(self.src, t.start, t.end, parts)


def parse(text: str, rel: PurePosixPath | None = None) -> _Node:
    """A Nix file's expression; raises `_Syntax` where it does not parse."""
    toks, _ = _Lexer(text).tokens(0, 0, False)
    if not toks:
        raise _Syntax("empty file")
    return _Parser(_Src(rel or PurePosixPath("x.nix"), text), toks).whole()


# ----------------------------------------------------------------------------- values
class _Budget(Exception):
    """A file's reading ran out of evaluation steps."""


class _Thunk:
    """A value not yet computed: a node in its scope, or a function to call."""

    __slots__ = ("node", "env", "value", "busy", "make")

    def __init__(
        self,
        node: _Node | None = None,
        env: _Env | None = None,
        value: _V | None = None,
        make: Callable[[], _V] | None = None,
    ) -> None:
        self.node = node
        self.env = env
        self.value = value
        self.busy = False
        self.make = make


class _Env:
    """A scope: names bound by a let, a function or a rec set; or a `with`'s set."""

    __slots__ = ("vars", "parent", "with_")

    def __init__(
        self, vars: dict[str, _Thunk], parent: _Env | None, with_: _Thunk | None = None
    ) -> None:
        self.vars = vars
        self.parent = parent
        self.with_ = with_


class _V:
    __slots__ = ()


@dataclass(slots=True, eq=False)
class _AttrsV(_V):
    attrs: dict[str, _Thunk] = field(default_factory=dict)
    pos: dict[str, tuple[_Src, int]] = field(default_factory=dict)  # where a name is bound


@dataclass(slots=True, eq=False)
class _ListV(_V):
    items: list[_Thunk]


@dataclass(slots=True, eq=False)
class _StrV(_V):
    text: str
    exact: bool = True  # False: an interpolation not known, written as in the source


@dataclass(slots=True, eq=False)
class _NumV(_V):
    value: int | float


@dataclass(slots=True, eq=False)
class _ConstV(_V):
    value: bool | None


@dataclass(slots=True, eq=False)
class _PathV(_V):
    rel: PurePosixPath | None  # inside the source; None: outside it, or built
    text: str


@dataclass(slots=True, eq=False)
class _LambdaV(_V):
    node: _Lambda
    env: _Env


@dataclass(slots=True, eq=False)
class _PrimV(_V):
    name: str
    arity: int
    fn: Callable[[_Eval, tuple[_Thunk, ...]], _V]
    args: tuple[_Thunk, ...] = ()


@dataclass(slots=True, eq=False)
class _Opaque(_V):
    """A value the file does not define (`lib.types.str`, `pkgs.git`, `config.x`), by its
    dotted name ("" when not even that is known), with the arguments applied to it."""

    name: str
    args: tuple[_Thunk, ...] = ()


@dataclass(slots=True, eq=False)
class _OptionV(_V):
    attrs: _AttrsV  # mkOption's argument (or what a helper makes of its own)


@dataclass(slots=True, eq=False)
class _LiteralV(_V):
    text: str
    markdown: bool  # literalMD; else literalExpression


@dataclass(slots=True, eq=False)
class _RenameV(_V):
    kind: str  # renamed, alias, removed, changed, merged
    old: list[list[str]]
    new: list[str]
    reason: str = ""


@dataclass(slots=True, eq=False)
class _TypeV(_V):
    description: str
    cls: str | None


_UNKNOWN = _Opaque("")
_TRUE, _FALSE, _NULL = _ConstV(True), _ConstV(False), _ConstV(None)
_DYNAMIC = "\x00"  # starts the key of an attribute whose name could not be built
_BASE = "\x00base"  # the type a `type // { description = ...; }` overrides


def _done(v: _V) -> _Thunk:
    return _Thunk(value=v)


def _normal(path: PurePosixPath) -> PurePosixPath | None:
    parts: list[str] = []
    for p in path.parts:
        if p == "..":
            if not parts:
                return None
            parts.pop()
        elif p != ".":
            parts.append(p)
    return PurePosixPath(*parts) if parts else None


# ----------------------------------------------------------------------------- evaluating
class _Eval:
    """A lazy evaluator of the Nix the module files are written in, enough to see what they
    declare: what the files do not define (`lib`, `pkgs`, `config`) stays opaque, named;
    the few library functions that build options and names are computed (`_PRIMS`)."""

    def __init__(self, files: dict[PurePosixPath, SourceFile]) -> None:
        self.files = files
        self.parsed: dict[PurePosixPath, _Node | None] = {}
        self.values: dict[PurePosixPath, _Thunk] = {}
        self.imported: list[PurePosixPath] = []  # the files `import` read, in order
        self.steps = 0
        self.limit = MAX_STEPS
        self.top = _Env({}, None)
        self._eval: dict[type, Callable[[_Eval, _Node, _Env], _V]] = {
            _Num: _Eval._num,
            _Str: _Eval._str,
            _Path: _Eval._path,
            _Var: _Eval._var,
            _Select: _Eval._select,
            _Has: _Eval._has,
            _Apply: _Eval._apply,
            _Lambda: _Eval._lambda,
            _Let: _Eval._let,
            _With: _Eval._with,
            _Assert: _Eval._assert,
            _If: _Eval._if,
            _Attrs: _Eval._attrs,
            _List: _Eval._list,
            _Op: _Eval._op,
            _Unary: _Eval._unary,
        }

    # -- files
    def parse(self, rel: PurePosixPath) -> _Node | None:
        if rel not in self.parsed:
            f = self.files.get(rel)
            node = None
            if f is not None and len(f.text) <= MAX_BYTES:
                try:
                    node = parse(f.text, rel)
                except (_Syntax, RecursionError):
                    node = None
            self.parsed[rel] = node
        return self.parsed[rel]

    def file_value(self, rel: PurePosixPath) -> _Thunk | None:
        """A file's value (what `import` gives), computed once."""
        if rel not in self.files and (rel / "default.nix") in self.files:
            rel = rel / "default.nix"
        if rel not in self.values:
            node = self.parse(rel)
            if node is None:
                return None
            self.values[rel] = _Thunk(node, self.top)
        return self.values[rel]

    # -- forcing
    def force(self, t: _Thunk) -> _V:
        if t.value is not None:
            return t.value
        if t.busy:  # a value that needs itself: infinite recursion in Nix
            return _UNKNOWN
        t.busy = True
        try:
            if t.make is not None:
                v = t.make()
            elif t.node is not None and t.env is not None:
                v = self.eval(t.node, t.env)
            else:
                v = _UNKNOWN
        finally:
            t.busy = False
        t.value = v
        return v

    def eval(self, node: _Node, env: _Env) -> _V:
        self.steps += 1
        if self.steps > self.limit:
            raise _Budget
        return self._eval[type(node)](self, node, env)

    def thunk(self, node: _Node, env: _Env) -> _Thunk:
        """A node's value to come (a name's too: its own thunk, for its source text)."""
        if isinstance(node, (_Num, _Lambda)):
            return _Thunk(node, env, self.eval(node, env))
        return _Thunk(node, env)

    # -- names
    def lookup(self, name: str, env: _Env) -> _Thunk | None:
        """The thunk a name is bound to in a scope (a `let`, a function, a rec set; then a
        builtin; then the `with`s, innermost first); None when nothing binds it."""
        withs: list[_Thunk] = []
        e: _Env | None = env
        while e is not None:
            if e.with_ is not None:
                withs.append(e.with_)
            else:
                t = e.vars.get(name)
                if t is not None:
                    return t
            e = e.parent
        constant = _CONSTANTS.get(name)
        if constant is not None:
            return _done(constant)
        if name in _BUILTIN_NAMES:
            return _done(_named(name))
        unknown: _Opaque | None = None
        for w in withs:
            v = self.force(w)
            if isinstance(v, _AttrsV):
                t = v.attrs.get(name)
                if t is not None:
                    return t
            elif isinstance(v, _Opaque) and unknown is None:
                unknown = v
        if unknown is not None and unknown.name and not unknown.args:
            return _done(_named(f"{unknown.name}.{name}"))
        return None

    def key(self, key: _Key, env: _Env) -> str | None:
        """An attribute's name; None when it is built from what is not known."""
        if isinstance(key, str):
            return key
        v = self.eval(key, env)
        return v.text if isinstance(v, _StrV) and v.exact else None

    # -- nodes
    def _num(self, node: _Node, env: _Env) -> _V:
        assert isinstance(node, _Num)
        return _NumV(node.value)

    def _str(self, node: _Node, env: _Env) -> _V:
        assert isinstance(node, _Str)
        out, exact = [], True
        for part in node.parts:
            if isinstance(part, str):
                out.append(part)
                continue
            v = self.eval(part, env)
            text = _plain(v)
            if text is None or (isinstance(v, _StrV) and not v.exact):
                exact = False
                text = text if text is not None else "${" + _source(part) + "}"
            out.append(text)
        return _StrV("".join(out), exact)

    def _path(self, node: _Node, env: _Env) -> _V:
        assert isinstance(node, _Path)
        text = node.text
        if text.startswith(("/", "<", "~")) or "${" in text:
            return _PathV(None, text)
        return _PathV(_normal(node.src.rel.parent / text), text)

    def _var(self, node: _Node, env: _Env) -> _V:
        assert isinstance(node, _Var)
        t = self.lookup(node.name, env)
        return self.force(t) if t is not None else _named(node.name)

    def _select(self, node: _Node, env: _Env) -> _V:
        assert isinstance(node, _Select)
        v: _V | None = self.eval(node.expr, env)
        for key in node.path:
            name = self.key(key, env)
            if name is None:
                v = _UNKNOWN
                break
            v = self.attr(v, name) if v is not None else None
            if v is None:
                break
        if v is None or (v is _UNKNOWN and node.default is not None):
            return self.eval(node.default, env) if node.default is not None else _UNKNOWN
        return v

    def attr(self, v: _V, name: str) -> _V | None:
        """`v.name`: None when `v` is a set without it."""
        if isinstance(v, _OptionV):
            v = v.attrs
        if isinstance(v, _AttrsV):
            t = v.attrs.get(name)
            return self.force(t) if t is not None else None
        if name == "description" and isinstance(v, (_Opaque, _TypeV)) and v is not _UNKNOWN:
            phrase = _describe(self, _done(v))[0]  # a type's description, in a string
            return _UNKNOWN if phrase == "unspecified value" else _StrV(phrase)
        if isinstance(v, _Opaque) and v.name:
            return _named(f"{v.name}().{name}" if v.args else f"{v.name}.{name}")
        return _UNKNOWN

    def _has(self, node: _Node, env: _Env) -> _V:
        assert isinstance(node, _Has)
        v: _V | None = self.eval(node.expr, env)
        for key in node.path:
            name = self.key(key, env)
            if name is None or not isinstance(v, _AttrsV):
                return _UNKNOWN
            v = self.attr(v, name)
            if v is None:
                return _FALSE
        return _TRUE

    def _apply(self, node: _Node, env: _Env) -> _V:
        assert isinstance(node, _Apply)
        return self.call(self.eval(node.fn, env), self.thunk(node.arg, env))

    def call(self, fn: _V, arg: _Thunk) -> _V:
        self.steps += 1
        if isinstance(fn, _LambdaV):
            return self.enter(fn, arg)
        if isinstance(fn, _PrimV):
            args = (*fn.args, arg)
            if len(args) < fn.arity:
                return _PrimV(fn.name, fn.arity, fn.fn, args)
            return fn.fn(self, args)
        if isinstance(fn, _Opaque) and fn.name:
            return _Opaque(fn.name, (*fn.args, arg))
        if isinstance(fn, _AttrsV) and "__functor" in fn.attrs:
            return self.call(self.call(self.force(fn.attrs["__functor"]), _done(fn)), arg)
        return _UNKNOWN

    def enter(self, fn: _LambdaV, arg: _Thunk) -> _V:
        lam = fn.node
        scope: dict[str, _Thunk] = {}
        env = _Env(scope, fn.env)
        if lam.arg is not None:
            scope[lam.arg] = arg
        if lam.formals is not None:
            given = self.force(arg)
            for name, default in lam.formals:
                t = given.attrs.get(name) if isinstance(given, _AttrsV) else None
                if t is None:
                    t = _Thunk(default, env) if default is not None else _done(_named(name))
                scope[name] = t
        return self.eval(lam.body, env)

    def _lambda(self, node: _Node, env: _Env) -> _V:
        assert isinstance(node, _Lambda)
        return _LambdaV(node, env)

    def _let(self, node: _Node, env: _Env) -> _V:
        assert isinstance(node, _Let)
        scope = _AttrsV()
        inner = _Env(scope.attrs, env)
        self.bind(scope, node.binds, inner, inner)
        return self.eval(node.body, inner)

    def _with(self, node: _Node, env: _Env) -> _V:
        assert isinstance(node, _With)
        return self.eval(node.body, _Env({}, env, self.thunk(node.env, env)))

    def _assert(self, node: _Node, env: _Env) -> _V:
        assert isinstance(node, _Assert)
        return self.eval(node.body, env)

    def _if(self, node: _Node, env: _Env) -> _V:
        assert isinstance(node, _If)
        cond = self.eval(node.cond, env)
        if cond is _TRUE:
            return self.eval(node.then, env)
        if cond is _FALSE:
            return self.eval(node.other, env)
        return _UNKNOWN

    def _attrs(self, node: _Node, env: _Env) -> _V:
        assert isinstance(node, _Attrs)
        out = _AttrsV()
        inner = _Env(out.attrs, env) if node.rec else env
        self.bind(out, node.binds, inner, env)
        return out

    def bind(self, out: _AttrsV, binds: list[_Bind | _Inherit], inner: _Env, outer: _Env) -> None:
        """A set's (or a let's) bindings into `out`: values in the `inner` scope, a plain
        `inherit`'s names from the `outer` one."""
        for b in binds:
            if isinstance(b, _Inherit):
                source = self.thunk(b.source, inner) if b.source is not None else None
                for key in b.names:
                    name = self.key(key, inner)
                    if name is None:
                        continue
                    if source is not None and b.source is not None:
                        node = _Select(b.source.src, -1, -1, b.source, [name], None)
                        t = _Thunk(node, inner, make=self._picker(source, name))
                    else:
                        found = self.lookup(name, outer)
                        t = found if found is not None else _done(_named(name))
                    self.put(out, [name], t, b.start, None)
                continue
            names = []
            for key in b.path:
                name = self.key(key, inner)
                if name is None:
                    assert not isinstance(key, str)
                    name = _DYNAMIC + _source(key)
                names.append(name)
            value = b.value
            t = self.thunk(value, inner)
            scope = inner if isinstance(value, _Attrs) else None
            self.put(out, names, t, b.start, value.src, scope)

    def _picker(self, source: _Thunk, name: str) -> Callable[[], _V]:
        def pick() -> _V:
            v = self.attr(self.force(source), name)
            return v if v is not None else _UNKNOWN

        return pick

    def put(
        self,
        out: _AttrsV,
        names: list[str],
        t: _Thunk,
        start: int,
        src: _Src | None,
        scope: _Env | None = None,
    ) -> None:
        """`a.b.c = t` into a set: the sets on the way made or extended (a set written
        out, `a = { ... }`, takes later `a.x = ...` bindings), the first binding kept."""
        d = out
        for name in names[:-1]:
            cur = d.attrs.get(name)
            if cur is None:
                sub = _AttrsV()
            else:
                if cur.value is None and not isinstance(cur.node, _Attrs):
                    return
                v = self.force(cur)
                if not isinstance(v, _AttrsV):
                    return
                sub = _AttrsV(dict(v.attrs), dict(v.pos))
            d.attrs[name] = _done(sub)
            if src is not None and name not in d.pos:
                d.pos[name] = (src, start)
            d = sub
        last = names[-1]
        cur = d.attrs.get(last)
        if cur is None:
            d.attrs[last] = t
            if src is not None:
                d.pos[last] = (src, start)
            return
        node = t.node
        if isinstance(node, _Attrs) and scope is not None and not node.rec:
            known = cur.value is not None or isinstance(cur.node, _Attrs)
            prev = self.force(cur) if known else None
            if isinstance(prev, _AttrsV):
                merged = _AttrsV(dict(prev.attrs), dict(prev.pos))
                self.bind(merged, node.binds, scope, scope)
                d.attrs[last] = _done(merged)

    def _list(self, node: _Node, env: _Env) -> _V:
        assert isinstance(node, _List)
        return _ListV([self.thunk(item, env) for item in node.items])

    def _op(self, node: _Node, env: _Env) -> _V:
        assert isinstance(node, _Op)
        op = node.op
        if op in ("&&", "||", "->"):
            left = self.eval(node.left, env)
            if left is _UNKNOWN or not isinstance(left, _ConstV):
                return _UNKNOWN
            if op == "&&" and left is _FALSE:
                return _FALSE
            if op == "||" and left is _TRUE:
                return _TRUE
            if op == "->" and left is _FALSE:
                return _TRUE
            right = self.eval(node.right, env)
            return right if isinstance(right, _ConstV) else _UNKNOWN
        if op == "|>":
            return self.call(self.eval(node.right, env), self.thunk(node.left, env))
        if op == "<|":
            return self.call(self.eval(node.left, env), self.thunk(node.right, env))
        a, b = self.eval(node.left, env), self.eval(node.right, env)
        if op == "//":
            return _update(a, b, self.thunk(node.left, env))
        if op == "++":
            if isinstance(a, _ListV) and isinstance(b, _ListV):
                return _ListV(a.items + b.items)
            return _UNKNOWN
        if op == "+":
            if isinstance(a, _NumV) and isinstance(b, _NumV):
                return _NumV(a.value + b.value)
            if isinstance(a, _PathV) and isinstance(b, _StrV) and a.rel is not None:
                return _PathV(_normal(PurePosixPath(str(a.rel) + b.text)), a.text + b.text)
            if isinstance(a, (_StrV, _PathV)) or isinstance(b, _StrV):
                return _concat(a, b, node)
            return _UNKNOWN
        if op in ("==", "!="):
            same = _equal(a, b)
            if same is None:
                return _UNKNOWN
            return _TRUE if same == (op == "==") else _FALSE
        if isinstance(a, _NumV) and isinstance(b, _NumV):
            x, y = a.value, b.value
            if op == "-":
                return _NumV(x - y)
            if op == "*":
                return _NumV(x * y)
            if op == "/":
                if y == 0:
                    return _UNKNOWN
                return _NumV(x // y if isinstance(x, int) and isinstance(y, int) else x / y)
            result = {"<": x < y, "<=": x <= y, ">": x > y, ">=": x >= y}.get(op)
            if result is not None:
                return _TRUE if result else _FALSE
        return _UNKNOWN

    def _unary(self, node: _Node, env: _Env) -> _V:
        assert isinstance(node, _Unary)
        v = self.eval(node.expr, env)
        if node.op == "!":
            return _FALSE if v is _TRUE else _TRUE if v is _FALSE else _UNKNOWN
        return _NumV(-v.value) if isinstance(v, _NumV) else _UNKNOWN

    # -- helpers for the library functions
    def text(self, t: _Thunk) -> str | None:
        v = self.force(t)
        return v.text if isinstance(v, _StrV) else None

    def strings(self, t: _Thunk) -> list[str] | None:
        """A list of known strings (an attribute path); None when any is not known."""
        v = self.force(t)
        if isinstance(v, _StrV) and v.exact:
            return [v.text]
        if not isinstance(v, _ListV):
            return None
        out = []
        for item in v.items:
            s = self.force(item)
            if not (isinstance(s, _StrV) and s.exact):
                return None
            out.append(s.text)
        return out

    def items(self, t: _Thunk) -> list[_Thunk]:
        v = self.force(t)
        return v.items if isinstance(v, _ListV) else []

    def applied(self, fn: _Thunk, *args: _Thunk) -> _Thunk:
        """`fn args`, computed when needed."""

        def make() -> _V:
            v = self.force(fn)
            for a in args:
                v = self.call(v, a)
            return v

        return _Thunk(make=make)


def _plain(v: _V) -> str | None:
    """What a value reads as inside a string; None when not known."""
    if isinstance(v, _StrV):
        return v.text
    if isinstance(v, _PathV):
        return v.text
    if isinstance(v, _NumV):
        return str(v.value)
    return None


def _concat(a: _V, b: _V, node: _Op) -> _V:
    """`a + b` of strings (or a path and a string); a side not known written as an
    interpolation of its source."""
    left, right = _plain(a), _plain(b)
    exact = not any(isinstance(v, _StrV) and not v.exact for v in (a, b))
    if left is None:
        left, exact = "${" + _source(node.left) + "}", False
    if right is None:
        right, exact = "${" + _source(node.right) + "}", False
    return _StrV(left + right, exact)


def _equal(a: _V, b: _V) -> bool | None:
    if isinstance(a, _StrV) and isinstance(b, _StrV) and a.exact and b.exact:
        return a.text == b.text
    if isinstance(a, _NumV) and isinstance(b, _NumV):
        return a.value == b.value
    if isinstance(a, _ConstV) and isinstance(b, _ConstV):
        return a.value is b.value
    if (
        isinstance(a, _ConstV)
        and a.value is None
        and isinstance(b, (_StrV, _NumV, _ListV, _AttrsV))
    ):
        return False
    if (
        isinstance(b, _ConstV)
        and b.value is None
        and isinstance(a, (_StrV, _NumV, _ListV, _AttrsV))
    ):
        return False
    return None


def _update(a: _V, b: _V, left: _Thunk) -> _V:
    """`a // b`; a type updated with a set (`types.str // { description = ...; }`) is that
    set, the type kept under `_BASE`."""
    if isinstance(a, _AttrsV) and isinstance(b, _AttrsV):
        return _AttrsV({**a.attrs, **b.attrs}, {**a.pos, **b.pos})
    if isinstance(a, _OptionV) and isinstance(b, _AttrsV):  # an option with fields changed
        return _OptionV(_AttrsV({**a.attrs.attrs, **b.attrs}, {**a.attrs.pos, **b.pos}))
    if isinstance(b, _AttrsV) and isinstance(a, (_Opaque, _TypeV)) and a is not _UNKNOWN:
        return _AttrsV({_BASE: left, **b.attrs}, dict(b.pos))
    if isinstance(a, _AttrsV) and isinstance(b, _Opaque):
        return a  # `x // f y` with `f y` not known: what is known of it
    return _UNKNOWN


def _source(node: _Node) -> str:
    if node.start < 0 and isinstance(node, _Select):  # an `inherit (x) name;`'s
        return f"{_source(node.expr)}.{node.path[0]}"
    return node.src.text[node.start : node.end]


# ----------------------------------------------------------------------------- library
_Args = tuple[_Thunk, ...]


def _p_option(ev: _Eval, args: _Args) -> _V:
    v = ev.force(args[0])
    return _OptionV(_AttrsV(dict(v.attrs), dict(v.pos)) if isinstance(v, _AttrsV) else _AttrsV())


def _option(**fields: _V) -> _OptionV:
    return _OptionV(_AttrsV({k: _done(v) for k, v in fields.items()}))


def _p_enable(ev: _Eval, args: _Args) -> _V:
    v = ev.force(args[0])
    name = _plain(v)
    exact = isinstance(v, _StrV) and v.exact
    if name is None:
        name, exact = "${" + (_source(args[0].node) if args[0].node else "name") + "}", False
    return _option(
        type=_Opaque("lib.types.bool"),
        default=_FALSE,
        example=_TRUE,
        description=_StrV(f"Whether to enable {name}.", exact),
    )


def _p_package(ev: _Eval, args: _Args) -> _V:
    """`mkPackageOption pkgs name { default, example, extraDescription, nullable,
    pkgsText }` as nixpkgs' lib/options.nix defines it."""
    name = ev.strings(args[1]) or ["<name>"]
    opts = ev.force(args[2])
    attrs = opts.attrs if isinstance(opts, _AttrsV) else {}

    def given(key: str) -> _V | None:
        t = attrs.get(key)
        return ev.force(t) if t is not None else None

    nullable = given("nullable") is _TRUE
    pkgs_text = given("pkgsText")
    prefix = pkgs_text.text if isinstance(pkgs_text, _StrV) else "pkgs"
    default: list[str] | None = name
    if "default" in attrs:
        default = None if given("default") is _NULL else ev.strings(attrs["default"])
    extra = given("extraDescription")
    description = f"The {name[-1]} package to use."
    if isinstance(extra, _StrV) and extra.text:
        description += " " + extra.text
    package: _V = _Opaque("lib.types.package")
    fields: dict[str, _V] = {
        "type": _Opaque("lib.types.nullOr", (_done(package),)) if nullable else package,
        "description": _StrV(description),
    }
    if default is not None:
        fields["defaultText"] = _LiteralV(f"{prefix}." + ".".join(default), False)
    elif nullable:
        fields["default"] = _NULL
    example = given("example")
    if isinstance(example, _StrV):
        fields["example"] = _LiteralV(example.text, False)
    elif isinstance(example, _ListV) and (path := ev.strings(attrs["example"])):
        fields["example"] = _LiteralV(f"{prefix}." + ".".join(path), False)
    elif isinstance(example, _LiteralV):
        fields["example"] = example
    return _option(**fields)


def _p_sink(ev: _Eval, args: _Args) -> _V:
    return _option(internal=_TRUE, visible=_FALSE)


def _p_literal(markdown: bool) -> Callable[[_Eval, _Args], _V]:
    def literal(ev: _Eval, args: _Args) -> _V:
        v = ev.force(args[0])
        return _LiteralV(v.text, markdown) if isinstance(v, _StrV) else _UNKNOWN

    return literal


def _p_rename(kind: str) -> Callable[[_Eval, _Args], _V]:
    """mkRenamedOptionModule and its kin, as they stand in `imports`."""

    def rename(ev: _Eval, args: _Args) -> _V:
        if kind == "renamedWith":
            v = ev.force(args[0])
            if not isinstance(v, _AttrsV) or "from" not in v.attrs or "to" not in v.attrs:
                return _UNKNOWN
            old, new = ev.strings(v.attrs["from"]), ev.strings(v.attrs["to"])
            return _RenameV("renamed", [old], new) if old and new else _UNKNOWN
        if kind == "merged":
            olds = [ev.strings(t) for t in ev.items(args[0])]
            new = ev.strings(args[1])
            if not new or not olds or not all(olds):
                return _UNKNOWN
            return _RenameV(kind, [o for o in olds if o], new)
        old = ev.strings(args[0])
        if not old:
            return _UNKNOWN
        if kind == "removed":
            return _RenameV(kind, [old], [], ev.text(args[1]) or "")
        new = ev.strings(args[1])
        return _RenameV(kind, [old], new) if new else _UNKNOWN

    return rename


def _p_type(ev: _Eval, args: _Args) -> _V:
    v = ev.force(args[0])
    if not isinstance(v, _AttrsV):
        return _UNKNOWN
    name, description, cls = (
        ev.force(v.attrs[k]) if k in v.attrs else None
        for k in ("name", "description", "descriptionClass")
    )
    text = description if isinstance(description, _StrV) else name
    if not isinstance(text, _StrV):
        return _UNKNOWN
    return _TypeV(text.text, cls.text if isinstance(cls, _StrV) else None)


def _p_set_path(ev: _Eval, args: _Args) -> _V:
    path = ev.strings(args[0])
    if not path:
        node = args[0].node
        return _AttrsV({_DYNAMIC + (_source(node) if node else "?"): args[1]})
    out: _Thunk = args[1]
    for name in reversed(path):
        out = _done(_AttrsV({name: out}))
    return ev.force(out)


def _p_gen_attrs(ev: _Eval, args: _Args) -> _V:
    names = ev.strings(args[0])
    if names is None:
        return _UNKNOWN
    return _AttrsV({n: ev.applied(args[1], _done(_StrV(n))) for n in names})


def _p_gen_attrs_named(ev: _Eval, args: _Args) -> _V:
    pairs = [ev.applied(args[1], t) for t in ev.items(args[0])]
    return _p_list_to_attrs(ev, (_done(_ListV(pairs)),))


def _p_pipe(ev: _Eval, args: _Args) -> _V:
    out = args[0]
    for fn in ev.items(args[1]):
        out = ev.applied(fn, out)
    return ev.force(out)


def _p_map_attrs(ev: _Eval, args: _Args) -> _V:
    v = ev.force(args[1])
    if not isinstance(v, _AttrsV):
        return _UNKNOWN
    return _AttrsV(
        {n: ev.applied(args[0], _done(_StrV(n)), t) for n, t in v.attrs.items()}, dict(v.pos)
    )


def _p_map_attrs_named(ev: _Eval, args: _Args) -> _V:
    v = ev.force(args[1])
    if not isinstance(v, _AttrsV):
        return _UNKNOWN
    pairs = [ev.applied(args[0], _done(_StrV(n)), t) for n, t in v.attrs.items()]
    return _p_list_to_attrs(ev, (_done(_ListV(pairs)),))


def _p_list_to_attrs(ev: _Eval, args: _Args) -> _V:
    out = _AttrsV()
    for item in ev.items(args[0]):
        pair = ev.force(item)
        if not isinstance(pair, _AttrsV) or "value" not in pair.attrs:
            continue
        name = ev.text(pair.attrs["name"]) if "name" in pair.attrs else None
        if name is not None:
            out.attrs.setdefault(name, pair.attrs["value"])
    return out


def _p_pair(ev: _Eval, args: _Args) -> _V:
    return _AttrsV({"name": args[0], "value": args[1]})


def _p_optional_attrs(ev: _Eval, args: _Args) -> _V:
    return _AttrsV() if ev.force(args[0]) is _FALSE else ev.force(args[1])


def _p_optional(ev: _Eval, args: _Args) -> _V:
    return _ListV([] if ev.force(args[0]) is _FALSE else [args[1]])


def _p_optionals(ev: _Eval, args: _Args) -> _V:
    return _ListV([]) if ev.force(args[0]) is _FALSE else ev.force(args[1])


def _p_optional_string(ev: _Eval, args: _Args) -> _V:
    return _StrV("") if ev.force(args[0]) is _FALSE else ev.force(args[1])


def _deep_merge(ev: _Eval, a: _V, b: _V, depth: int = 0) -> _V:
    if not (isinstance(a, _AttrsV) and isinstance(b, _AttrsV)) or depth > 20:
        return b
    out = _AttrsV(dict(a.attrs), dict(a.pos))
    for name, t in b.attrs.items():
        if name in out.attrs:
            x, y = ev.force(out.attrs[name]), ev.force(t)
            both = isinstance(x, _AttrsV) and isinstance(y, _AttrsV)
            out.attrs[name] = _done(_deep_merge(ev, x, y, depth + 1)) if both else t
        else:
            out.attrs[name] = t
            if name in b.pos:
                out.pos[name] = b.pos[name]
    return out


def _p_recursive_update(ev: _Eval, args: _Args) -> _V:
    a, b = ev.force(args[0]), ev.force(args[1])
    if isinstance(a, _AttrsV) and isinstance(b, _AttrsV):
        return _deep_merge(ev, a, b)
    return _UNKNOWN


def _p_merge(ev: _Eval, args: _Args) -> _V:
    out: _V = _AttrsV()
    for item in ev.items(args[0]):
        v = ev.force(item)
        if isinstance(v, _AttrsV):
            out = _deep_merge(ev, out, v)
    return out


def _p_merge_list(ev: _Eval, args: _Args) -> _V:
    out = _AttrsV()
    for item in ev.items(args[0]):
        v = ev.force(item)
        if isinstance(v, _AttrsV):
            out.attrs.update(v.attrs)
            out.pos.update(v.pos)
    return out


def _p_fold(ev: _Eval, args: _Args) -> _V:
    acc = args[1]
    for item in ev.items(args[2]):
        acc = ev.applied(args[0], acc, item)
    return ev.force(acc)


def _p_foldr(ev: _Eval, args: _Args) -> _V:
    acc = args[1]
    for item in reversed(ev.items(args[2])):
        acc = ev.applied(args[0], item, acc)
    return ev.force(acc)


def _p_map(ev: _Eval, args: _Args) -> _V:
    v = ev.force(args[1])
    if not isinstance(v, _ListV):
        return _UNKNOWN
    return _ListV([ev.applied(args[0], t) for t in v.items])


def _p_concat_map(ev: _Eval, args: _Args) -> _V:
    out: list[_Thunk] = []
    for t in ev.items(args[1]):
        out.extend(ev.items(ev.applied(args[0], t)))
    return _ListV(out)


def _p_map_to_list(ev: _Eval, args: _Args) -> _V:
    v = ev.force(args[1])
    if not isinstance(v, _AttrsV):
        return _UNKNOWN
    return _ListV([ev.applied(args[0], _done(_StrV(n)), t) for n, t in sorted(v.attrs.items())])


def _p_filter(ev: _Eval, args: _Args) -> _V:
    kept = [t for t in ev.items(args[1]) if ev.force(ev.applied(args[0], t)) is not _FALSE]
    return _ListV(kept)


def _joined(ev: _Eval, sep: str, items: list[_Thunk]) -> _V:
    texts, exact = [], True
    for t in items:
        v = ev.force(t)
        text = _plain(v)
        if text is None:
            return _UNKNOWN
        exact = exact and not (isinstance(v, _StrV) and not v.exact)
        texts.append(text)
    return _StrV(sep.join(texts), exact)


def _p_concat_sep(ev: _Eval, args: _Args) -> _V:
    sep = ev.text(args[0])
    return _UNKNOWN if sep is None else _joined(ev, sep, ev.items(args[1]))


def _p_concat_map_sep(ev: _Eval, args: _Args) -> _V:
    sep = ev.text(args[0])
    if sep is None:
        return _UNKNOWN
    return _joined(ev, sep, [ev.applied(args[1], t) for t in ev.items(args[2])])


def _p_concat(ev: _Eval, args: _Args) -> _V:
    return _joined(ev, "", ev.items(args[0]))


def _p_concat_map_strings(ev: _Eval, args: _Args) -> _V:
    return _joined(ev, "", [ev.applied(args[0], t) for t in ev.items(args[1])])


def _p_to_string(ev: _Eval, args: _Args) -> _V:
    v = ev.force(args[0])
    if isinstance(v, _StrV):
        return v
    if isinstance(v, _ConstV):
        return _StrV("1" if v is _TRUE else "")
    if isinstance(v, _ListV):
        return _joined(ev, " ", v.items)
    text = _plain(v)
    return _StrV(text) if text is not None else _UNKNOWN


def _p_case(upper: bool) -> Callable[[_Eval, _Args], _V]:
    def case(ev: _Eval, args: _Args) -> _V:
        v = ev.force(args[0])
        if not isinstance(v, _StrV):
            return _UNKNOWN
        return _StrV(v.text.upper() if upper else v.text.lower(), v.exact)

    return case


def _p_attr_names(ev: _Eval, args: _Args) -> _V:
    v = ev.force(args[0])
    if not isinstance(v, _AttrsV):
        return _UNKNOWN
    return _ListV([_done(_StrV(n)) for n in sorted(v.attrs) if not n.startswith(_DYNAMIC)])


def _p_attr_values(ev: _Eval, args: _Args) -> _V:
    v = ev.force(args[0])
    if not isinstance(v, _AttrsV):
        return _UNKNOWN
    return _ListV([v.attrs[n] for n in sorted(v.attrs) if not n.startswith(_DYNAMIC)])


def _p_head(ev: _Eval, args: _Args) -> _V:
    items = ev.items(args[0])
    return ev.force(items[0]) if items else _UNKNOWN


def _p_last(ev: _Eval, args: _Args) -> _V:
    items = ev.items(args[0])
    return ev.force(items[-1]) if items else _UNKNOWN


def _p_length(ev: _Eval, args: _Args) -> _V:
    v = ev.force(args[0])
    return _NumV(len(v.items)) if isinstance(v, _ListV) else _UNKNOWN


def _p_elem(ev: _Eval, args: _Args) -> _V:
    x = ev.force(args[0])
    v = ev.force(args[1])
    if not isinstance(v, _ListV):
        return _UNKNOWN
    found = [_equal(x, ev.force(t)) for t in v.items]
    if True in found:
        return _TRUE
    return _FALSE if all(f is False for f in found) else _UNKNOWN


def _p_elem_at(ev: _Eval, args: _Args) -> _V:
    items, n = ev.items(args[0]), ev.force(args[1])
    if isinstance(n, _NumV) and isinstance(n.value, int) and 0 <= n.value < len(items):
        return ev.force(items[n.value])
    return _UNKNOWN


def _p_flip(ev: _Eval, args: _Args) -> _V:
    return ev.force(ev.applied(args[0], args[2], args[1]))


def _p_first(ev: _Eval, args: _Args) -> _V:
    return ev.force(args[0])


def _p_second(ev: _Eval, args: _Args) -> _V:
    return ev.force(args[1])


def _p_third(ev: _Eval, args: _Args) -> _V:
    return ev.force(args[2])


def _p_attr_by_path(ev: _Eval, args: _Args) -> _V:
    path = ev.strings(args[0])
    v: _V | None = ev.force(args[-1])
    for name in path or []:
        v = ev.attr(v, name) if v is not None else None
    if path is None or v is None:
        return ev.force(args[1]) if len(args) == 3 else _UNKNOWN
    return v


def _p_replace(ev: _Eval, args: _Args) -> _V:
    old, new, text = ev.strings(args[0]), ev.strings(args[1]), ev.text(args[2])
    if old is None or new is None or text is None or len(old) != len(new):
        return _UNKNOWN
    out, i = [], 0
    while i <= len(text):
        for o, n in zip(old, new, strict=True):
            if text.startswith(o, i):
                out.append(n)
                if o:
                    i += len(o)
                    break
                out.append(text[i : i + 1])
                i += 1
                break
        else:
            out.append(text[i : i + 1])
            i += 1
    return _StrV("".join(out))


def _p_import(ev: _Eval, args: _Args) -> _V:
    v = ev.force(args[0])
    if not isinstance(v, _PathV) or v.rel is None:
        return _UNKNOWN
    t = ev.file_value(v.rel)
    if t is None:
        return _UNKNOWN
    ev.imported.append(v.rel)
    return ev.force(t)


@dataclass(frozen=True)
class _Prim:
    arity: int
    fn: Callable[[_Eval, _Args], _V]
    anywhere: bool = False  # taken whatever set it comes from (`x.mkOption`), not only lib's


_PRIMS: dict[str, _Prim] = {
    "mkOption": _Prim(1, _p_option, True),
    "mkEnableOption": _Prim(1, _p_enable, True),
    "mkPackageOption": _Prim(3, _p_package, True),
    "mkPackageOptionMD": _Prim(3, _p_package, True),
    "mkSinkUndeclaredOptions": _Prim(1, _p_sink, True),
    "mkOptionType": _Prim(1, _p_type, True),
    "mdDoc": _Prim(1, _p_first, True),
    "literalExpression": _Prim(1, _p_literal(False), True),
    "literalExample": _Prim(1, _p_literal(False), True),
    "literalMD": _Prim(1, _p_literal(True), True),
    "literalDocBook": _Prim(1, _p_literal(True), True),
    "mkRenamedOptionModule": _Prim(2, _p_rename("renamed"), True),
    "mkRenamedOptionModuleWith": _Prim(1, _p_rename("renamedWith"), True),
    "mkAliasOptionModule": _Prim(2, _p_rename("alias"), True),
    "mkAliasOptionModuleMD": _Prim(2, _p_rename("alias"), True),
    "mkRemovedOptionModule": _Prim(2, _p_rename("removed"), True),
    "mkChangedOptionModule": _Prim(3, _p_rename("changed"), True),
    "mkMergedOptionModule": _Prim(3, _p_rename("merged"), True),
    "mkDefault": _Prim(1, _p_first, True),
    "mkOptionDefault": _Prim(1, _p_first, True),
    "mkForce": _Prim(1, _p_first, True),
    "mkOverride": _Prim(2, _p_second, True),
    "mkIf": _Prim(2, _p_second, True),
    "mkMerge": _Prim(1, _p_merge, True),
    "setAttrByPath": _Prim(2, _p_set_path),
    "genAttrs": _Prim(2, _p_gen_attrs),
    "genAttrs'": _Prim(2, _p_gen_attrs_named),
    "pipe": _Prim(2, _p_pipe),
    "mapAttrs": _Prim(2, _p_map_attrs),
    "mapAttrs'": _Prim(2, _p_map_attrs_named),
    "listToAttrs": _Prim(1, _p_list_to_attrs),
    "nameValuePair": _Prim(2, _p_pair),
    "optionalAttrs": _Prim(2, _p_optional_attrs),
    "optional": _Prim(2, _p_optional),
    "optionals": _Prim(2, _p_optionals),
    "optionalString": _Prim(2, _p_optional_string),
    "recursiveUpdate": _Prim(2, _p_recursive_update),
    "mergeAttrsList": _Prim(1, _p_merge_list),
    "foldl'": _Prim(3, _p_fold),
    "foldl": _Prim(3, _p_fold),
    "foldr": _Prim(3, _p_foldr),
    "map": _Prim(2, _p_map),
    "concatMap": _Prim(2, _p_concat_map),
    "mapAttrsToList": _Prim(2, _p_map_to_list),
    "filter": _Prim(2, _p_filter),
    "concatStringsSep": _Prim(2, _p_concat_sep),
    "concatMapStringsSep": _Prim(3, _p_concat_map_sep),
    "concatStrings": _Prim(1, _p_concat),
    "concatMapStrings": _Prim(2, _p_concat_map_strings),
    "toString": _Prim(1, _p_to_string),
    "toUpper": _Prim(1, _p_case(True)),
    "toLower": _Prim(1, _p_case(False)),
    "attrNames": _Prim(1, _p_attr_names),
    "attrValues": _Prim(1, _p_attr_values),
    "head": _Prim(1, _p_head),
    "last": _Prim(1, _p_last),
    "length": _Prim(1, _p_length),
    "elem": _Prim(2, _p_elem),
    "elemAt": _Prim(2, _p_elem_at),
    "flip": _Prim(3, _p_flip),
    "id": _Prim(1, _p_first),
    "const": _Prim(2, _p_first),
    "warn": _Prim(2, _p_second),
    "warnIf": _Prim(3, _p_third),
    "getAttrFromPath": _Prim(2, _p_attr_by_path),
    "attrByPath": _Prim(3, _p_attr_by_path),
    "replaceStrings": _Prim(3, _p_replace),
    "import": _Prim(1, _p_import),
}
_CONSTANTS: dict[str, _V] = {"true": _TRUE, "false": _FALSE, "null": _NULL}
# names Nix binds in every file (a `with` never hides them)
_BUILTIN_NAMES = frozenset(
    {
        "builtins",
        "import",
        "map",
        "toString",
        "baseNameOf",
        "dirOf",
        "throw",
        "abort",
        "removeAttrs",
        "isNull",
        "derivation",
        "placeholder",
        "fetchTarball",
        "fetchGit",
        "fetchurl",
        "scopedImport",
    }
)
_LIB_ROOTS = ("lib", "builtins")


def _named(name: str) -> _V:
    """What a name the files do not define stands for: a library function the reader
    computes (`lib.mkOption`, `mkOption` after `with lib;`), else an opaque value."""
    parts = name.split(".")
    prim = _PRIMS.get(parts[-1])
    if prim is not None and (prim.anywhere or len(parts) == 1 or parts[0] in _LIB_ROOTS):
        return _PrimV(parts[-1], prim.arity, prim.fn)
    return _Opaque(name)


# ----------------------------------------------------------------------------- types
# a type's description and its class, as nixpkgs' lib/types.nix writes them: the class
# says where the description needs parentheses inside another's
_Phrase = tuple[str, str | None]
_BASE_TYPES: dict[str, _Phrase] = {
    "raw": ("raw value", "noun"),
    "anything": ("anything", "noun"),
    "unspecified": ("unspecified value", "noun"),
    "bool": ("boolean", "noun"),
    "boolByOr": ("boolean (merged using or)", "noun"),
    "int": ("signed integer", "noun"),
    "float": ("floating point number", "noun"),
    "number": ("signed integer or floating point number", "conjunction"),
    "str": ("string", "noun"),
    "string": ("string", "noun"),
    "nonEmptyStr": ("non-empty string", "noun"),
    "singleLineStr": ("(optionally newline-terminated) single-line string", "noun"),
    "lines": ('strings concatenated with "\\n"', "noun"),
    "commas": ('strings concatenated with ","', "noun"),
    "envVar": ('strings concatenated with ":"', "noun"),
    "attrs": ("attribute set", None),
    "package": ("package", "noun"),
    "shellPackage": ("package", "noun"),
    "pkgs": ("Nixpkgs package set", "noun"),
    "path": ("path", "noun"),
    "pathInStore": ("path in the Nix store", "noun"),
    "externalPath": ("path not in the Nix store", "noun"),
    "deferredModule": ("module", "noun"),
    "optionType": ("optionType", "noun"),
    "port": ("16 bit unsigned integer; between 0 and 65535 (both inclusive)", "noun"),
    "ints.unsigned": ("unsigned integer, meaning >=0", "nonRestrictiveClause"),
    "ints.positive": ("positive integer, meaning >0", "nonRestrictiveClause"),
    "ints.u8": ("8 bit unsigned integer; between 0 and 255 (both inclusive)", "noun"),
    "ints.u16": ("16 bit unsigned integer; between 0 and 65535 (both inclusive)", "noun"),
    "ints.u32": ("32 bit unsigned integer; between 0 and 4294967295 (both inclusive)", "noun"),
    "ints.s8": ("8 bit signed integer; between -128 and 127 (both inclusive)", "noun"),
    "ints.s16": ("16 bit signed integer; between -32768 and 32767 (both inclusive)", "noun"),
    "ints.s32": (
        "32 bit signed integer; between -2147483648 and 2147483647 (both inclusive)",
        "noun",
    ),
    "numbers.nonnegative": (
        "nonnegative integer or floating point number, meaning >=0",
        "nonRestrictiveClause",
    ),
    "numbers.positive": (
        "positive integer or floating point number, meaning >0",
        "nonRestrictiveClause",
    ),
    # home-manager's own (its modules/lib/types.nix)
    "gvariant": ("GVariant value", None),
    "fontType": ("submodule", None),
    "selectorFunction": (
        "Function that takes an attribute set and returns a list containing a selection "
        "of the values of the input set",
        None,
    ),
    "overlayFunction": (
        "An overlay function, takes self and super and returns an attribute set "
        "overriding the desired attributes.",
        None,
    ),
}
# the types of nixpkgs' pkgs.formats (`(pkgs.formats.toml { }).type`)
_FORMATS = {
    "json": "JSON value",
    "yaml": "YAML 1.1 value",
    "yaml_1_1": "YAML 1.1 value",
    "yaml_1_2": "YAML 1.2 value",
    "toml": "TOML value",
}
_NOUN = ("noun",)
_NOUN_COMPOSITE = ("noun", "composite")
_NOUN_CONJUNCTION = ("noun", "conjunction")
# a type's sub-options stand under a placeholder part, as the NixOS manual names them
_PLACEHOLDERS = {
    "attrsOf": "<name>",
    "lazyAttrsOf": "<name>",
    "loaOf": "<name>",
    "dagOf": "<name>",
    "listOf": "*",
    "nonEmptyListOf": "*",
    "functionTo": "<function body>",
}
_WRAPPERS = {"nullOr": 0, "uniq": 0, "addCheck": 0, "unique": 1, "coercedTo": 2}
_ARITY = {"addCheck": 2, "unique": 2, "coercedTo": 3, "either": 2}
_IDENT = re.compile(r"[a-zA-Z_][a-zA-Z0-9_'\-]*")
_HELPER = re.compile(r"mk\w*Option$")


def _in(phrase: _Phrase, classes: tuple[str, ...]) -> str:
    """A type's description inside another's: in parentheses unless its class fits."""
    text, cls = phrase
    return text if cls in classes else f"({text})"


def _show_part(part: str) -> str:
    """An option name's part as the manual writes it: quoted unless an identifier or a
    placeholder."""
    if _IDENT.fullmatch(part) or part in ("*", "<function body>") or part.startswith("<"):
        return part
    return json.dumps(part, ensure_ascii=False)


def _option_name(path: tuple[str, ...]) -> str:
    return ".".join(_show_part(p) for p in path)


# ----------------------------------------------------------------------------- reading
@dataclass
class _Found:
    path: tuple[str, ...]
    attrs: dict[str, _Thunk]
    line: int


@dataclass
class _Renamed:
    rename: _RenameV
    line: int


class _Reader:
    """One file's options: its module's `options` walked, each `mkOption` an option, the
    submodules of its types walked under the placeholder parts."""

    def __init__(self, ev: _Eval, f: SourceFile, rejects: CollectResult) -> None:
        self.ev = ev
        self.f = f
        self.rejects = rejects
        self.found: list[_Found] = []
        self.renamed: list[_Renamed] = []
        self.parts: set[PurePosixPath] = set()  # files read as submodules
        self.active: set[int] = set()

    def count(self, reason: str, line: int) -> None:
        count(self.rejects, reason, f"{self.f.where}:{line}")

    def line(self, pos: tuple[_Src, int] | None, default: int) -> int:
        if pos is None or pos[0].rel != self.f.rel:
            return default
        src, offset = pos
        return src.text.count("\n", 0, offset) + 1

    def read(self) -> None:
        """The file's module read; a file its options `import` gives its options only
        through it (`options.x = import ./options.nix { ... }`)."""
        t = self.ev.file_value(self.f.rel)
        if t is None:
            return
        mark = len(self.ev.imported)
        try:
            self.module(t, (), False, 0, 1)
        finally:
            self.parts.update(self.ev.imported[mark:])

    def module(
        self, t: _Thunk, prefix: tuple[str, ...], inner: bool, depth: int, line: int
    ) -> None:
        """A module's options under `prefix`; `inner`: a submodule's (a path it imports
        is read too, and a file it imports gives its options only through it)."""
        if depth > 12:
            return
        mark = len(self.ev.imported)
        self._module(t, prefix, inner, depth, line)
        if inner:
            self.parts.update(self.ev.imported[mark:])

    def _module(
        self, t: _Thunk, prefix: tuple[str, ...], inner: bool, depth: int, line: int
    ) -> None:
        ev = self.ev
        v = ev.force(t)
        for _ in range(4):
            if not isinstance(v, _LambdaV):
                break
            v = ev.enter(v, _done(_module_args(inner)))
        if isinstance(v, _PathV):
            if inner and v.rel is not None and (ft := ev.file_value(v.rel)) is not None:
                self.parts.add(v.rel)
                self.module(ft, prefix, inner, depth + 1, line)
            return
        if isinstance(v, _ListV):
            for item in v.items:
                self.module(item, prefix, inner, depth + 1, line)
            return
        if not isinstance(v, _AttrsV) or not any(k in v.attrs for k in _MODULE_KEYS):
            return  # a set of config only, or no module
        if "_class" in v.attrs and ev.text(v.attrs["_class"]) in _OTHER_CLASSES:
            return
        if "imports" in v.attrs:
            at = self.line(v.pos.get("imports"), line)
            for item in ev.items(v.attrs["imports"]):
                iv = ev.force(item)
                if isinstance(iv, _RenameV):
                    if not prefix:
                        self.renamed.append(_Renamed(iv, at))
                elif not isinstance(iv, _PathV) or inner:
                    self.module(item, prefix, inner, depth + 1, at)
        if "options" in v.attrs:
            self.walk(v.attrs["options"], prefix, depth, self.line(v.pos.get("options"), line))

    def walk(self, t: _Thunk, path: tuple[str, ...], depth: int, line: int) -> None:
        if len(path) > _MAX_PATH or len(self.found) >= MAX_DOCUMENTS:
            return
        v = self.ev.force(t)
        if isinstance(v, _OptionV):
            self.option(path, v, depth, line)
        elif isinstance(v, _AttrsV):
            if id(v) in self.active:
                return
            self.active.add(id(v))
            for name, sub in list(v.attrs.items()):
                at = self.line(v.pos.get(name), line)
                if name == _BASE:
                    continue
                if name.startswith(_DYNAMIC):
                    if isinstance(self.ev.force(sub), (_OptionV, _AttrsV)):
                        self.count(NIX_DYNAMIC, at)
                    continue
                self.walk(sub, (*path, name), depth, at)
            self.active.discard(id(v))
        elif isinstance(v, _Opaque) and v.args and _HELPER.search(v.name):
            self.count(NIX_HELPER, line)  # an option a function of another file makes

    def option(self, path: tuple[str, ...], opt: _OptionV, depth: int, line: int) -> None:
        attrs = opt.attrs.attrs
        visible = self.ev.force(attrs["visible"]) if "visible" in attrs else _TRUE
        internal = "internal" in attrs and self.ev.force(attrs["internal"]) is _TRUE
        mode = visible.text if isinstance(visible, _StrV) else ""
        if internal or visible is _FALSE or mode == "transparent":
            self.count(NIX_HIDDEN, line)
        elif path:
            self.found.append(_Found(path, attrs, line))
        if visible is not _FALSE and mode != "shallow" and "type" in attrs:
            self.submodules(attrs["type"], path, depth + 1, line)

    def submodules(self, t: _Thunk, path: tuple[str, ...], depth: int, line: int) -> None:
        """The options of the submodules a type holds, under its placeholder parts."""
        ev = self.ev
        if depth > 12:
            return
        v = ev.force(t)
        if isinstance(v, _AttrsV) and _BASE in v.attrs:
            self.submodules(v.attrs[_BASE], path, depth + 1, line)
            return
        if not isinstance(v, _Opaque) or not v.args:
            return
        kind, args = v.name.rsplit(".", 1)[-1], v.args
        if len(args) < _ARITY.get(kind, 1):
            return
        if kind == "submodule":
            self.module(args[0], path, True, depth + 1, line)
        elif kind == "submoduleWith":
            spec = ev.force(args[0])
            if isinstance(spec, _AttrsV) and "modules" in spec.attrs:
                self.module(spec.attrs["modules"], path, True, depth + 1, line)
        elif kind in _PLACEHOLDERS:
            self.submodules(args[0], (*path, _PLACEHOLDERS[kind]), depth + 1, line)
        elif kind == "attrsWith":
            spec = ev.force(args[0])
            if isinstance(spec, _AttrsV) and "elemType" in spec.attrs:
                holder = ev.text(spec.attrs["placeholder"]) if "placeholder" in spec.attrs else None
                part = f"<{holder or 'name'}>"
                self.submodules(spec.attrs["elemType"], (*path, part), depth + 1, line)
        elif kind in _WRAPPERS:
            self.submodules(args[_WRAPPERS[kind]], path, depth + 1, line)
        elif kind == "either":
            for a in args[:2]:
                self.submodules(a, path, depth + 1, line)
        elif kind == "oneOf":
            for a in ev.items(args[0]):
                self.submodules(a, path, depth + 1, line)
        elif kind == "attrTag":  # each tag an option under the type's own path
            self.walk(args[0], path, depth + 1, line)


# module classes whose options stand under names the module does not know (a NixOS
# modular service's, under each service's name)
_OTHER_CLASSES = frozenset({"service"})
_MODULE_KEYS = (
    "options",
    "config",
    "imports",
    "_file",
    "_class",
    "key",
    "meta",
    "disabledModules",
    "freeformType",
)


def _module_args(inner: bool) -> _AttrsV:
    """What a module function is called with: the module system's arguments, opaque; a
    submodule's `name` is "‹name›", as the manual's evaluation has it."""
    names = ("lib", "config", "options", "pkgs", "modulesPath", "specialArgs")
    args = _AttrsV({n: _done(_Opaque(n)) for n in names})
    if inner:
        args.attrs["name"] = _done(_StrV("‹name›"))
    return args


# ----------------------------------------------------------------------------- writing
def _describe(ev: _Eval, t: _Thunk | None, depth: int = 0) -> _Phrase:
    """A type's description as the NixOS manual writes it; a type the reader does not
    know, as written."""
    if t is None:
        return _BASE_TYPES["unspecified"]
    v = ev.force(t)
    if depth > 20:
        return _written_type(t), None
    if isinstance(v, _TypeV):
        return v.description, v.cls
    if isinstance(v, _AttrsV):
        d = ev.force(v.attrs["description"]) if "description" in v.attrs else None
        c = ev.force(v.attrs["descriptionClass"]) if "descriptionClass" in v.attrs else None
        base = _describe(ev, v.attrs[_BASE], depth + 1) if _BASE in v.attrs else None
        cls = c.text if isinstance(c, _StrV) else base[1] if base else None
        if isinstance(d, _StrV):
            return d.text, cls
        if base is not None:
            return base[0], cls
    if isinstance(v, _Opaque) and v.name:
        parts = v.name.split(".")
        kind = parts[-1]
        if kind == "type" and len(parts) > 2 and parts[-3] == "formats":  # pkgs.formats
            known = _FORMATS.get(parts[-2].removesuffix("()"))
            if known:
                return known, None
        if len(parts) > 1 and parts[-2] in ("ints", "numbers"):
            kind = f"{parts[-2]}.{kind}"
        if not v.args and kind in _BASE_TYPES:
            return _BASE_TYPES[kind]
        if v.args:
            got = _parametric(ev, kind, v.args, depth + 1)
            if got is not None:
                return got
    return _written_type(t), None


def _parametric(ev: _Eval, kind: str, args: _Args, depth: int) -> _Phrase | None:
    def d(t: _Thunk) -> _Phrase:
        return _describe(ev, t, depth)

    n = len(args)
    a = args[0]
    if kind in ("listOf", "nonEmptyListOf") and n == 1:
        listed = f"list of {_in(d(a), _NOUN_COMPOSITE)}"
        if kind == "listOf":
            return listed, "composite"
        return f"non-empty ({listed})", "composite"
    if kind in ("attrsOf", "loaOf", "lazyAttrsOf") and n == 1:
        lazy = "lazy " if kind == "lazyAttrsOf" else ""
        return f"{lazy}attribute set of {_in(d(a), _NOUN_COMPOSITE)}", "composite"
    if kind == "attrsWith" and n == 1:
        spec = ev.force(a)
        if isinstance(spec, _AttrsV) and "elemType" in spec.attrs:
            lazy = "lazy " if "lazy" in spec.attrs and ev.force(spec.attrs["lazy"]) is _TRUE else ""
            inner = _in(d(spec.attrs["elemType"]), _NOUN_COMPOSITE)
            return f"{lazy}attribute set of {inner}", "composite"
        return None
    if kind == "nullOr" and n == 1:
        return f"null or {_in(d(a), _NOUN_CONJUNCTION)}", "conjunction"
    if kind == "uniq" and n == 1:
        return d(a)
    if kind == "unique" and n == 2:
        return d(args[1])
    if kind == "addCheck" and n == 2:
        return d(a)
    if kind == "functionTo" and n == 1:
        return f"function that evaluates to a(n) {_in(d(a), _NOUN_COMPOSITE)}", "composite"
    if kind == "submodule" and n == 1:
        return _submodule_phrase(ev, a, depth), None
    if kind == "submoduleWith" and n == 1:
        spec = ev.force(a)
        if isinstance(spec, _AttrsV) and "description" in spec.attrs:
            text = ev.text(spec.attrs["description"])
            if text:
                return text, None
        modules = spec.attrs.get("modules") if isinstance(spec, _AttrsV) else None
        return (_submodule_phrase(ev, modules, depth) if modules else "submodule"), None
    if kind == "attrTag" and n == 1:
        return "attribute-tagged union", "noun"
    if kind == "deferredModuleWith" and n == 1:
        return "module", "noun"
    if kind == "enum" and n == 1:
        return _enum(ev, a)
    if kind == "either" and n == 2:
        return _either(d(a), d(args[1]))
    if kind == "oneOf" and n == 1:
        items = ev.force(a)
        if not isinstance(items, _ListV) or not items.items:
            return None
        phrase = d(items.items[0])
        for t in items.items[1:]:
            phrase = _either(phrase, d(t))
        return phrase
    if kind == "coercedTo" and n == 3:
        return f"{_in(d(args[2]), _NOUN)} or {_in(d(a), _NOUN)} convertible to it", None
    if kind in ("ints.between", "numbers.between") and n == 2:
        low, high = ev.force(a), ev.force(args[1])
        if not (isinstance(low, _NumV) and isinstance(high, _NumV)):
            return None
        if kind == "ints.between":
            return f"integer between {low.value} and {high.value} (both inclusive)", "noun"
        span = f"{json.dumps(low.value)} and {json.dumps(high.value)} (both inclusive)"
        return f"integer or floating point number between {span}", "conjunction"
    if kind == "strMatching" and n == 1:
        pattern = ev.text(a)
        return (f"string matching the pattern {pattern}", "noun") if pattern is not None else None
    if kind == "separatedString" and n == 1:
        sep = ev.text(a)
        if sep is None:
            return None
        text = f"strings concatenated with {json.dumps(sep)}" if sep else "Concatenated string"
        return text, "noun"
    if kind == "passwdEntry" and n == 1:
        return f"{_in(d(a), _NOUN)}, not containing newlines or colons", "nonRestrictiveClause"
    if kind == "pathWith" and n == 1:
        spec = ev.force(a)
        attrs = spec.attrs if isinstance(spec, _AttrsV) else {}
        absolute = ev.force(attrs["absolute"]) if "absolute" in attrs else _NULL
        store = ev.force(attrs["inStore"]) if "inStore" in attrs else _NULL
        text = "absolute " if absolute is _TRUE else "relative " if absolute is _FALSE else ""
        text += "path"
        if store is _TRUE or store is _FALSE:
            text += " in the Nix store" if store is _TRUE else " not in the Nix store"
        return text, "noun"
    if kind in ("dagOf", "dagEntryOf") and n == 1:
        return f"{'DAG' if kind == 'dagOf' else 'DAG entry'} of {d(a)[0]}", None
    return None


def _either(a: _Phrase, b: _Phrase) -> _Phrase:
    if a[1] == "nonRestrictiveClause":
        return f"{a[0]}, or {_in(b, _NOUN_CONJUNCTION)}", "conjunction"
    return (
        f"{_in(a, _NOUN_CONJUNCTION)} or {_in(b, (*_NOUN_CONJUNCTION, 'composite'))}",
        "conjunction",
    )


def _enum(ev: _Eval, t: _Thunk) -> _Phrase | None:
    v = ev.force(t)
    if not isinstance(v, _ListV):
        return None
    shown = []
    for item in v.items:
        x = ev.force(item)
        if isinstance(x, _StrV) and x.exact:
            shown.append(f'"{x.text}"')
        elif isinstance(x, _NumV) and isinstance(x.value, int):
            shown.append(str(x.value))
        elif x is _TRUE or x is _FALSE:
            shown.append("true" if x is _TRUE else "false")
        elif isinstance(x, (_ConstV, _NumV, _ListV, _AttrsV)):  # as nixpkgs shows them
            shown.append(
                "<null>"
                if x is _NULL
                else "<float>"
                if isinstance(x, _NumV)
                else "<list>"
                if isinstance(x, _ListV)
                else "<set>"
            )
        else:
            shown.append(_written_type(item))
    if not shown:
        return "impossible (empty enum)", "noun"
    if len(shown) == 1:
        return f"value {shown[0]} (singular enum)", "noun"
    return "one of " + ", ".join(shown), "conjunction"


def _submodule_phrase(ev: _Eval, modules: _Thunk, depth: int) -> str:
    """ "submodule", or the description of its freeform type when a module sets one."""
    v = ev.force(modules)
    for t in v.items if isinstance(v, _ListV) else [modules]:
        m = ev.force(t)
        for _ in range(3):
            if not isinstance(m, _LambdaV):
                break
            m = ev.enter(m, _done(_module_args(True)))
        if isinstance(m, _AttrsV) and "freeformType" in m.attrs:
            return _describe(ev, m.attrs["freeformType"], depth + 1)[0]
    return "submodule"


def _written_type(t: _Thunk) -> str:
    """A type as written, on one line (a `with x;` before it dropped)."""
    node = t.node
    while isinstance(node, _With):
        node = node.body
    return " ".join(_source(node).split()) if node is not None else "unspecified value"


_LITERAL_NODES = (_Num, _Path, _List, _Attrs)


def _chase(ev: _Eval, t: _Thunk) -> _Thunk:
    """The thunk a name or a select leads to (`default = defaultPort;` -> the let's
    `8080`), followed while it is a name or a select."""
    for _ in range(20):
        node, env = t.node, t.env
        if node is None or env is None:
            return t
        if isinstance(node, _Var):
            found = ev.lookup(node.name, env)
            if found is None or found is t:
                return t
            t = found
        elif isinstance(node, _Select) and node.default is None:
            base = ev.eval(node.expr, env)
            for key in node.path[:-1]:
                name = ev.key(key, env)
                got = ev.attr(base, name) if name is not None else None
                if got is None:
                    return t
                base = got
            last = ev.key(node.path[-1], env)
            if not isinstance(base, _AttrsV) or last is None or last not in base.attrs:
                return t
            t = base.attrs[last]
        else:
            return t
    return t


def _is_literal(node: _Node) -> bool:
    if isinstance(node, _LITERAL_NODES):
        return True
    if isinstance(node, _Str):
        return all(isinstance(p, str) for p in node.parts)
    if isinstance(node, _Var):
        return node.name in _CONSTANTS
    return isinstance(node, _Unary) and isinstance(node.expr, _Num)


def _nix_string(text: str) -> str:
    if "\n" in text.rstrip("\n"):
        body = text.replace("''", "'''").replace("${", "''${")
        lines = [("  " + line) if line else "" for line in body.split("\n")]
        return "''\n" + "\n".join(lines).rstrip(" ") + ("" if text.endswith("\n") else "\n") + "''"
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("${", "\\${")
    return '"' + escaped.replace("\n", "\\n").replace("\t", "\\t") + '"'


def _value(ev: _Eval, t: _Thunk) -> tuple[str, bool] | None:
    """A default's or an example's text (and whether it is Markdown rather than Nix): a
    literalExpression's or literalMD's text, a value written out in the file (a name
    followed to it), else a string, number or boolean the file computes, else the
    expression as written; None when nothing is known of it."""
    v = ev.force(t)
    if isinstance(v, _LiteralV):
        return v.text.strip("\n"), v.markdown
    at = _chase(ev, t)
    node = at.node
    if node is not None and _is_literal(node):
        return _dedent(node), False
    if isinstance(v, _StrV) and v.exact:
        return _nix_string(v.text), False
    if isinstance(v, _NumV):
        return json.dumps(v.value), False
    if isinstance(v, _ConstV):
        return {True: "true", False: "false", None: "null"}[v.value], False
    if isinstance(v, _PathV):
        return v.text, False
    node = t.node or node
    if node is not None:
        return _dedent(node), False
    return None


def _dedent(node: _Node) -> str:
    """A node's source text, its lines after the first dedented."""
    lines = _source(node).split("\n")
    rest = [line for line in lines[1:] if line.strip()]
    if rest:
        cut = min(len(line) - len(line.lstrip(" ")) for line in rest)
        lines = lines[:1] + [line[cut:] for line in lines[1:]]
    return "\n".join(line.rstrip() for line in lines)


def _shown(label: str, value: tuple[str, bool]) -> str:
    text, markdown = value
    if len(text) > _MAX_VALUE:
        text = text[: text.rfind("\n", 0, _MAX_VALUE) + 1 or _MAX_VALUE].rstrip() + "\n..."
    if markdown:
        return f"{label}:\n\n{text}" if "\n" in text else f"{label}: {text}"
    if "\n" in text or len(text) > _MAX_INLINE:
        fence = "````" if "```" in text else "```"
        return f"{label}:\n{fence}nix\n{text}\n{fence}"
    tick = "``" if "`" in text else "`"
    pad = " " if tick == "``" else ""
    return f"{label}: {tick}{pad}{text}{pad}{tick}"


# ----------------------------------------------------------------------------- Markdown
_ROLE = re.compile(r"\{(\w+)\}(`+)(.+?)\2", re.S)
_DOCBOOK = re.compile(r"</?(?:literal|option|command|filename|varname|envar|code|link|para)\b")
_DB_CODE = re.compile(
    r"<(literal|option|command|filename|varname|envar|code|function|replaceable|package|"
    r"systemitem|constant|property|parameter|type|userinput|computeroutput|prompt|keycap)"
    r"(?:\s[^>]*)?>(.*?)</\1>",
    re.S,
)
_DB_EMPHASIS = re.compile(r"<emphasis(?:\s[^>]*)?>(.*?)</emphasis>", re.S)
_DB_LINK = re.compile(
    r'<(?:link|ulink)\s+(?:xlink:href|url)="([^"]*)"\s*>(.*?)</(?:link|ulink)>', re.S
)
_DB_BARE_LINK = re.compile(r'<(?:link|ulink)\s+(?:xlink:href|url)="([^"]*)"\s*/>')
_DB_XREF = re.compile(r'<xref\s+linkend="([^"]*)"\s*/>')
_DB_MAN = re.compile(
    r"<citerefentry>\s*<refentrytitle>(.*?)</refentrytitle>\s*<manvolnum>(.*?)</manvolnum>"
    r"\s*</citerefentry>",
    re.S,
)
_DB_LISTING = re.compile(r"<programlisting(?:\s[^>]*)?>(.*?)</programlisting>", re.S)
_DB_DROP = re.compile(
    r"</?(?:para|itemizedlist|orderedlist|variablelist|note|warning|simpara)\b[^>]*>"
)
_DB_ITEM = re.compile(r"<listitem>\s*")
_BLANKS = re.compile(r"\n{3,}")


def _code(text: str) -> str:
    tick = "``" if "`" in text else "`"
    pad = " " if tick == "``" else ""
    return f"{tick}{pad}{text}{pad}{tick}"


_OPTION_LINK = re.compile(r"\[\]\(#opt-([^)\s]+)\)")
_LINK_PLACEHOLDER = re.compile(r"(?<=\.)_([A-Za-z][\w-]*)_(?=\.|$)")


def _option_link(m: re.Match[str]) -> str:
    """`[](#opt-a._name_.b)`, a link the manual fills with the option's name."""
    return _code(_LINK_PLACEHOLDER.sub(r"<\1>", m.group(1)))


def _markdown(text: str) -> str:
    """A description as Markdown: the NixOS roles (`` {option}`x` ``, `{command}`,
    `{file}`, `{env}`, `{var}`, `{manpage}`, ...) as code spans; the DocBook of old
    descriptions (`<literal>`, `<option>`, `<link>`, `<citerefentry>`, `<para>`, ...)
    converted."""
    text = _ROLE.sub(lambda m: _code(m.group(3)), text)
    text = _OPTION_LINK.sub(_option_link, text)
    if _DOCBOOK.search(text):
        text = _DB_MAN.sub(lambda m: _code(f"{m.group(1)}({m.group(2)})"), text)
        text = _DB_CODE.sub(lambda m: _code(m.group(2)), text)
        text = _DB_EMPHASIS.sub(lambda m: f"*{m.group(1)}*", text)
        text = _DB_LINK.sub(lambda m: f"[{m.group(2)}]({m.group(1)})", text)
        text = _DB_BARE_LINK.sub(lambda m: f"<{m.group(1)}>", text)
        text = _DB_XREF.sub(lambda m: _code(m.group(1)), text)
        text = _DB_LISTING.sub(lambda m: "\n```\n" + m.group(1).strip("\n") + "\n```\n", text)
        text = _DB_ITEM.sub("\n- ", text.replace("</listitem>", ""))
        text = _DB_DROP.sub("\n\n", text)
        text = text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
    lines = [line.rstrip() for line in text.split("\n")]
    return textwrap.dedent(_BLANKS.sub("\n\n", "\n".join(lines)).strip("\n"))


_SENTENCE_END = re.compile(r"(?<!\be\.g)(?<!\bi\.e)(?<!\betc)(?<!\bvs)[.!?](?=\s|$)")


def first_sentence(text: str) -> str:
    """A description's first sentence, on one line (at most 200 characters)."""
    para = " ".join(text.strip().split("\n\n", 1)[0].split())
    m = _SENTENCE_END.search(para)
    out = para[: m.end()] if m else para
    return out if len(out) <= _MAX_SENTENCE else out[: _MAX_SENTENCE - 1].rstrip() + "…"


# ----------------------------------------------------------------------------- documents
def api_documents(
    files: list[SourceFile], source: str, rejects: CollectResult | None = None, top: str = ""
) -> list[Document]:
    """Documents for the options the files' modules declare, sorted by uri; a file that
    gives none is counted in `rejects` (`top` is taken for the readers' common shape and
    not needed: an option is named by its own path). Files are read in path order; of an
    option two files declare, the first file's is kept."""
    ev = _Eval({f.rel: f for f in files})
    got: dict[PurePosixPath, list[Document] | str] = {}
    counted: dict[PurePosixPath, CollectResult] = {}
    parts: set[PurePosixPath] = set()
    for f in sorted(files, key=lambda f: f.rel):
        counted[f.rel] = CollectResult()
        got[f.rel], found_parts = _file_documents(f, source, ev, counted[f.rel])
        parts |= found_parts
    if rejects is not None:  # what a file's options left out, when it gives them itself
        for rel in sorted(counted):
            if rel not in parts:
                rejects.add_rejects(counted[rel])

    def read(f: SourceFile) -> list[Document] | str:
        if f.rel in parts and not isinstance(got[f.rel], str):
            return NIX_PART
        return got[f.rel]

    return first_documents(files, rejects, read, NIX_NO_API)


def _file_documents(
    f: SourceFile, source: str, ev: _Eval, rejects: CollectResult
) -> tuple[list[Document] | str, set[PurePosixPath]]:
    """A file's documents (or the reason it gives none), and the files it read through
    `import`; what its options left out counted in `rejects`."""
    if is_test(f.rel):
        return NIX_TEST, set()
    if len(f.text) > MAX_BYTES:
        return NIX_TOO_BIG, set()
    if ev.parse(f.rel) is None:
        return NIX_BAD_SYNTAX, set()
    reader = _Reader(ev, f, rejects)
    ev.steps, ev.limit = 0, MAX_STEPS
    try:
        reader.read()
    except (_Budget, RecursionError):
        count(rejects, NIX_CUT, f.where)
    docs: list[Document] = []
    try:
        for found in reader.found:
            docs.append(_option_document(ev, f, source, found))
        for r in reader.renamed:
            docs.extend(_renamed_documents(f, source, r))
    except (_Budget, RecursionError):
        count(rejects, NIX_CUT, f.where)
    ev.steps, ev.limit = 0, MAX_STEPS
    options = [d for d in docs if d.meta["kind"] == "option"]
    if options:
        docs.append(_module_document(f, source, options))
    elif not docs:
        top = ev.parse(f.rel)
        if top is not None:
            docs = _lib_documents(f, source, top)
    return docs, reader.parts


def _option_document(ev: _Eval, f: SourceFile, source: str, found: _Found) -> Document:
    ev.limit = ev.steps + MAX_STEPS // 4  # what writing one option may take
    attrs = found.attrs
    name = _option_name(found.path)
    phrase = _describe(ev, attrs.get("type"))[0]
    signature = f"{name}: {phrase}"
    parts = [signature]
    description = ev.force(attrs["description"]) if "description" in attrs else None
    if isinstance(description, (_StrV, _LiteralV)) and description.text.strip():
        parts.append(_markdown(description.text))
    default = None
    if "defaultText" in attrs:
        default = _value(ev, attrs["defaultText"])
        if default is not None and not isinstance(ev.force(attrs["defaultText"]), _LiteralV):
            text = ev.force(attrs["defaultText"])
            if isinstance(text, _StrV) and text.exact:  # a plain string: shown as the manual
                default = _nix_string(text.text), False  # shows it, a Nix string
    if default is None and "default" in attrs:
        default = _value(ev, attrs["default"])
    if default is not None and default[0]:
        parts.append(_shown("Default", default))
    example = _value(ev, attrs["example"]) if "example" in attrs else None
    if example is not None and example[0]:
        parts.append(_shown("Example", example))
    if "readOnly" in attrs and ev.force(attrs["readOnly"]) is _TRUE:
        parts.append("Read only.")
    parts.append(f"Declared in: {f.rel}")
    ev.limit = MAX_STEPS
    return api_document(
        source,
        URI_PREFIX,
        f,
        name,
        "\n\n".join(parts),
        "option",
        signature,
        found.line,
        **_LANG,
        option_type=phrase,
    )


_RENAMES = {
    "renamed": ("renamed option", "The option has been renamed to {new}."),
    "alias": ("alias", "An alias of {new}."),
    "changed": ("changed option", "The option has been replaced by {new}, its value converted."),
    "merged": ("merged option", "The option has been merged into {new}."),
    "removed": ("removed option", "The option has been removed."),
}


def _renamed_documents(f: SourceFile, source: str, r: _Renamed) -> Iterator[Document]:
    kind, text = _RENAMES[r.rename.kind]
    body = text.format(new=f"`{_option_name(tuple(r.rename.new))}`")
    if r.rename.reason.strip():
        body += "\n\n" + _markdown(r.rename.reason)
    for old in r.rename.old:
        name = _option_name(tuple(old))
        signature = f"{name}: {kind}"
        text = f"{signature}\n\n{body}\n\nDeclared in: {f.rel}"
        yield api_document(source, URI_PREFIX, f, name, text, kind, signature, r.line, **_LANG)


def _module_document(f: SourceFile, source: str, options: list[Document]) -> Document:
    n = len(options)
    signature = f"{f.rel}: module declaring {n} option{'s' if n != 1 else ''}"
    lines = []
    for d in options[:_MAX_LISTED]:
        body = d.text.split("\n\n")
        sentence = first_sentence(body[1]) if len(body) > 2 else ""
        entry = f"- `{d.meta['qualname']}` ({d.meta['option_type']})"
        lines.append(f"{entry}: {sentence}" if sentence else entry)
    if n > _MAX_LISTED:
        lines.append(f"… and {n - _MAX_LISTED} more.")
    text = f"{signature}\n\nOptions:\n" + "\n".join(lines)
    return api_document(
        source, URI_PREFIX, f, f"module:{f.rel}", text, "module", signature, 1, **_LANG
    )


# ----------------------------------------------------------------------------- library docs
_TYPE_LINE = re.compile(r"^\s*#+\s*Type\s*$\s*```[^\n]*\n\s*([^\n]*?::[^\n]*)$", re.M)
_MAX_LIB_DEPTH = 4


def _lib_prefix(rel: PurePosixPath) -> str:
    """The name a library file's set is reached by: the path from its last `lib` folder,
    `default.nix` dropped (`lib/strings.nix` -> `lib.strings`, `lib/default.nix` -> `lib`);
    a file in no `lib` folder, its whole path so (`pkgs/x/default.nix` -> `pkgs.x`)."""
    parts = list(rel.with_suffix("").parts)
    if "lib" in parts[:-1]:
        parts = parts[len(parts) - 1 - parts[::-1].index("lib") :]
    if parts and parts[-1] == "default":
        parts.pop()
    return ".".join(parts)


def _lib_documents(f: SourceFile, source: str, top: _Node) -> list[Document]:
    """The RFC 145 doc comments (`/** ... */`) of a library file: each documented
    attribute of the set the file's value is (a function's body, a `let`'s, a `with`'s;
    sets inside it too) a document named by the file's prefix and its path."""
    node = top
    while isinstance(node, (_Lambda, _Let, _With, _Assert)):
        node = node.body
    docs: list[Document] = []
    if isinstance(node, _Attrs):
        _doc_binds(f, source, node, _lib_prefix(f.rel), docs, 0)
    return docs


def _doc_binds(
    f: SourceFile, source: str, node: _Attrs, prefix: str, docs: list[Document], depth: int
) -> None:
    for b in node.binds:
        if not isinstance(b, _Bind) or not all(isinstance(k, str) for k in b.path):
            continue
        name = ".".join(_show_part(str(k)) for k in b.path)
        qual = f"{prefix}.{name}" if prefix else name
        if b.doc is not None and b.doc.strip():
            docs.append(_lib_document(f, source, b, qual))
        if isinstance(b.value, _Attrs) and depth < _MAX_LIB_DEPTH:
            _doc_binds(f, source, b.value, qual, docs, depth + 1)


def _lib_document(f: SourceFile, source: str, b: _Bind, qual: str) -> Document:
    comment = b.doc or ""
    first, _, rest = comment.partition("\n")
    body = (first.strip() + "\n" + textwrap.dedent(rest)).strip("\n")
    m = _TYPE_LINE.search(body)
    signature = qual
    if m:
        signature = f"{qual} :: {m.group(1).split('::', 1)[1].strip()}"
    else:
        params: list[str] = []
        value = b.value
        while isinstance(value, _Lambda) and len(params) < 8:
            if value.formals is not None:
                params.append("{ " + ", ".join(n for n, _ in value.formals) + " }")
            else:
                params.append(value.arg or "_")
            value = value.body
        signature = " ".join([qual, *params])
    kind = "function" if isinstance(b.value, _Lambda) or m else "value"
    text = f"{signature}\n\n{_markdown(body)}\n\nDeclared in: {f.rel}"
    line = f.text.count("\n", 0, b.start) + 1
    return api_document(source, URI_PREFIX, f, qual, text, kind, signature, line, **_LANG)
