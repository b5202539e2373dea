"""Terraform (and OpenTofu) modules read as their reference, what terraform-docs writes and
the Terraform Registry shows: one document per documented input variable and output, and
one per module listing its requirements, inputs, outputs, the resources and data sources
it declares and the modules it calls, so that a question about `variable "cidr"` of
`terraform-aws-vpc` has a document to come from. Read as text a `.tf` file gives its code;
nothing is run, no provider or module is fetched.

Which files: `is_terraform` takes a `.tf` file (HCL native syntax) and a `.tf.json` file
(Terraform's JSON syntax: the same blocks as nested objects, a `"//"` key a comment).

Modules. The `.tf` files of one folder are one module. Its name: the root module (files at
the source's top) is named by `top`, the source's folder name (`terraform-aws-vpc`;
`root` when there is none); a folder below a `modules/` folder is a submodule, named as
Terraform's module sources address it, its package root, `//` and its path from that
`modules/` folder on (`terraform-aws-vpc//modules/vpc-endpoints`; a package root other
than the top by its path, `net//modules/subnets`); any other folder by its path from the
top (`network`, `live/prod/vpc`). Examples and test fixtures (a folder under `examples/`,
`example/`, `tests/` or `test/`) are usage, not reference: each of their files is counted
(`terraform_example`) and gives nothing; their package's module document names them.
Generated wrappers (under `wrappers/`, terraform-aws-modules' `for_each` wrappers of each
module, a copy of its inputs) are counted (`terraform_wrapper`) and skipped, and so are
the copies of fetched modules under `.terraform/` (`terraform_vendored`).

Parsing. A small reader of HCL's native syntax, never a library: a body is attributes
`name = expression` (ending at the line's end outside brackets) and blocks `type "label"
label {` ... `}` (one-line blocks too); expressions are kept as written: quoted strings
(escapes, `${...}` interpolations and `%{...}` directives read as code to their closing
brace, strings and objects inside them too, `$${` and `%%{` literal), heredocs `<<EOF` and
`<<-EOF` (to a line holding only the marker, indented or not), numbers, names (`-` inside
them), operators, brackets (tuples, objects with `=` or `:`, calls, `for` expressions,
conditionals over several lines inside brackets). Comments `#`, `//` and `/* */` are
skipped. A file whose text does not read (a string, heredoc or comment that does not
close, brackets that do not match, a body item that is neither) is counted
(`terraform_bad_syntax`) and gives nothing; so is a `.tf.json` that is not a JSON object.
An expression shown on one line has its whitespace normalized (one space; a line break in
an object becomes `, `; none after an opening bracket or before a closing one at a line
break, a trailing comma there dropped; comments dropped; a heredoc's lines joined); one
shown as written keeps its lines, those after the first dedented.

Documentation. A variable's or output's `description` (a string, its escapes read, or a
heredoc's text; Markdown as written; any other expression as written). With none (or an
empty one) the comment block right above the block is its documentation, as hand-written
modules often do it: `#` and `//` lines (and a `/* */` standing alone) ending on the line
above the block, no blank line between; each line's marker and one space dropped, then
dedented; a banner's separator lines (`####`, `# ----`) end it (only the lines after the
last one count, none for a banner right above), lint control comments (`tflint-ignore`,
`tfsec:`, `checkov:`, `trivy:`, `nosec`) dropped, and a block that is mostly
commented-out code is no documentation (in the JSON syntax: the block's `"//"` string).
A resource's, data source's and module call's comment block is the first sentence of
its entry in the module document. `locals`, `provider`, `moved`, `import`, `check`,
`removed` and `backend` blocks give nothing.

Names and kinds. Uris are `terraform:<module>` (kind "module"), `terraform:<module>:var.
<name>` (kind "variable") and `terraform:<module>:output.<name>` (kind "output"); the
title (and meta `qualname`) what follows `terraform:`; meta `language` "terraform",
`module` the module's name, `signature` the first line, `line` where the block stands.
Of two blocks giving one uri the first in path order is kept.

Texts, Markdown.
- A variable: `variable "cidr": string = "10.0.0.0/16"` (its type as written, `any` when
  none, an object type longer than 80 characters shortened, `object({...})`; its default
  at most 100 characters here, `(required)` when it has none), its documentation, then
  `Type: ...` and `Default: ...` (a code span, at most 300 characters; one written over
  several lines and longer than 80 characters a fenced ```` ```hcl ```` block as written,
  at most 3000 characters, a type 20000: it is the reference of a structured input),
  `Required: yes` when it has no default, `Sensitive: yes`, `Ephemeral: yes`, `Nullable:
  no`, one `Validation: <error_message> (condition: `...`)` per validation block, and `Of:
  module `<module>``. A variable without documentation gives no document: terraform-docs
  lists every variable, but a document must have something to be asked about; the module
  document lists it.
- An output: `output "vpc_id"`, its documentation, `Value: ...` (as a default is shown),
  `Sensitive: yes`, `Ephemeral: yes`, `Of: ...`. Without documentation none (listed).
- A module: `module "terraform-aws-vpc"`, a line counting what it has (and the package it
  is a submodule of), `Requirements:` (from `terraform { required_version,
  required_providers }`: "- terraform `>= 1.0`", "- aws (`hashicorp/aws`) `>= 5.0`"),
  `Inputs:` by name, each "- `cidr` (`string`, default `"10.0.0.0/16"`): the first
  sentence of its documentation" (`required` when it has no default; a default at most 60
  characters), `Outputs:` by name ("- `vpc_id`: first sentence"), `Resources:` by address
  (`aws_vpc.this`, data sources as `data.aws_iam_policy_document.flow_log`, each with
  `count` or `for_each` when it has one), `Modules:` its module calls ("- `vpc` (source
  `terraform-aws-modules/vpc/aws`, version `~> 5.0`, for_each)"), `Submodules:` (the root
  of a package: the modules below it) and `Examples:` (the example and test folders
  below it, not documented themselves); at most 200 entries a list, the rest counted. A
  folder with no variable, output, resource, data source, module call or requirement gives
  no module document. The README beside a module is the Markdown reader's.

A file that contributes nothing (no variable, output, resource, data source, module call
or requirement: only locals, providers, moved blocks) is counted (`terraform_no_api`),
and so is one over 2 MB (`terraform_too_big`).
"""

from __future__ import annotations

import bisect
import json
import re
import textwrap
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

from jupiter.collect.result import CollectResult, SourceFile, api_document, count
from jupiter.records import Document

URI_PREFIX = "terraform:"
SUFFIXES = (".tf", ".tf.json")
# reasons a file gave no document, as the collect stage counts them
TERRAFORM_NO_API = "terraform_no_api"
TERRAFORM_BAD_SYNTAX = "terraform_bad_syntax"
TERRAFORM_EXAMPLE = "terraform_example"
TERRAFORM_WRAPPER = "terraform_wrapper"
TERRAFORM_VENDORED = "terraform_vendored"
TERRAFORM_TOO_BIG = "terraform_too_big"
_READ = (
    "Terraform modules read as their reference, what terraform-docs and the Registry show "
    "(one document per module, per documented variable and per documented output): "
)
_TEXT = "; the source's terraform: text reads them as text"
FIXES = {
    TERRAFORM_NO_API: _READ + "a file with no variable, output, resource, data source, "
    "module call or requirement (only locals or providers) gives none" + _TEXT,
    TERRAFORM_BAD_SYNTAX: _READ + "a file whose strings, heredocs, comments or brackets do "
    "not close, or whose body holds neither an attribute nor a block, gives none" + _TEXT,
    TERRAFORM_EXAMPLE: _READ + "examples and test fixtures (examples/, tests/ folders) "
    "are usage, not reference: their module's document names them" + _TEXT,
    TERRAFORM_WRAPPER: _READ + "generated wrappers (wrappers/ folders) repeat their "
    "module's inputs and give none" + _TEXT,
    TERRAFORM_VENDORED: _READ + "copies of fetched modules under .terraform/ give none; "
    "add the module's own source to read it",
    TERRAFORM_TOO_BIG: _READ + "a file over 2 MB gives none" + _TEXT,
}
MAX_BYTES = 2_000_000
_MAX_LISTED = 200
_MAX_SENTENCE = 200
_MAX_INLINE = 300  # characters of an expression in a code span
_MAX_SIGNATURE_DEFAULT = 100
_MAX_LISTED_DEFAULT = 60
_MAX_SHORT_TYPE = 80
_MAX_FENCED = 3000
_MAX_FENCED_TYPE = 20_000  # a type is the reference of a structured input: kept whole
_MAX_NESTING = 30  # interpolations inside interpolations
_MAX_DEPTH = 64  # blocks inside blocks
_LANG = {"language": "terraform"}
_EXAMPLE_FOLDERS = frozenset({"examples", "example", "tests", "test"})
_LISTED_KINDS = frozenset({"variable", "output", "resource", "data", "module"})


def is_terraform(name: str) -> bool:
    """Whether a file is Terraform's (`.tf`, or `.tf.json` in the JSON syntax)."""
    return name.lower().endswith(SUFFIXES)


def api_documents(
    files: list[SourceFile], source: str, rejects: CollectResult | None = None, top: str = ""
) -> list[Document]:
    """Documents for the Terraform modules among the files (a folder's files one module),
    sorted by uri; a file that gives none is counted in `rejects`. `top`, the source's
    folder name, names the module whose files stand at the source's root."""
    folders: dict[PurePosixPath, list[tuple[SourceFile, list[_Block]]]] = {}
    examples: dict[PurePosixPath, list[str]] = {}
    for f in sorted(files, key=lambda f: f.rel):
        reason = _skipped(f.rel)
        if reason == TERRAFORM_EXAMPLE:
            root, name = _example_of(f.rel.parent)
            if name not in examples.setdefault(root, []):
                examples[root].append(name)
        if not reason and len(f.text) > MAX_BYTES:
            reason = TERRAFORM_TOO_BIG
        if not reason:
            try:
                blocks = _read(f)
            except _SyntaxError:
                reason = TERRAFORM_BAD_SYNTAX
        if reason:
            count(rejects, reason, f.where)
            continue
        if not any(_contributes(b) for b in blocks):
            count(rejects, TERRAFORM_NO_API, f.where)
        folders.setdefault(f.rel.parent, []).append((f, blocks))
    docs: dict[str, Document] = {}
    names = {folder: _module_name(folder, top) for folder in folders}
    for folder, read in sorted(folders.items()):
        module = _Module(names[folder], folder, read)
        package = _package_root(folder)
        module.examples = sorted(examples.get(folder, []))
        if package == folder:
            module.submodules = sorted(
                n for d, n in names.items() if d != folder and _package_root(d) == folder
            )
        else:
            module.package = _module_name(package, top)
        for doc in module.documents(source):
            docs.setdefault(doc.uri, doc)
    return [docs[uri] for uri in sorted(docs)]


def _contributes(b: _Block) -> bool:
    if b.type == "terraform":
        return "required_version" in b.attrs or any(
            s.type == "required_providers" for s in b.blocks
        )
    return b.type in _LISTED_KINDS


# ----------------------------------------------------------------------------- placement
def _skipped(rel: PurePosixPath) -> str:
    """Why a file gives nothing for the folder it stands in ("" when it is a module's)."""
    folders = rel.parts[:-1]
    if ".terraform" in folders:
        return TERRAFORM_VENDORED
    if "wrappers" in folders:
        return TERRAFORM_WRAPPER
    if _EXAMPLE_FOLDERS.intersection(folders):
        return TERRAFORM_EXAMPLE
    return ""


def _example_of(folder: PurePosixPath) -> tuple[PurePosixPath, str]:
    """An example folder's package root and its path from there (`examples/complete`)."""
    parts = folder.parts
    k = next(i for i, p in enumerate(parts) if p in _EXAMPLE_FOLDERS)
    return PurePosixPath(*parts[:k]), "/".join(parts[k:])


def _package_root(folder: PurePosixPath) -> PurePosixPath:
    """The folder above a submodule's first `modules/` folder; a module's own else."""
    parts = folder.parts
    return PurePosixPath(*parts[: parts.index("modules")]) if "modules" in parts else folder


def _module_name(folder: PurePosixPath, top: str) -> str:
    """A module's name (see the module docstring): `terraform-aws-vpc`,
    `terraform-aws-vpc//modules/vpc-endpoints`, `network`."""
    parts = folder.parts
    if "modules" in parts:
        k = parts.index("modules")
        return ("/".join(parts[:k]) or top or "root") + "//" + "/".join(parts[k:])
    return "/".join(parts) or top or "root"


# ----------------------------------------------------------------------------- lexer
class _SyntaxError(ValueError):
    pass


@dataclass(frozen=True)
class _Tok:
    kind: str  # "ident", "num", "str", "heredoc", "op"
    text: str
    start: int
    end: int
    gap: str  # what stands before it: "" nothing, " " blanks or comments, "\n" a line break


_TOKEN = re.compile(
    r"""
    (?P<nl>\n)
    |(?P<ws>[ \t\r\f\v\ufeff]+)
    |(?P<comment>(?:\#|//)[^\n]*)
    |(?P<block>/\*)
    |(?P<heredoc><<-?[^\W\d][\w-]*[ \t]*\r?(?=\n))
    |(?P<str>")
    |(?P<num>\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)
    |(?P<ident>[^\W\d][\w-]*)
    |(?P<op>==|!=|<=|>=|&&|\|\||=>|\.\.\.|[-+*/%<>=!?:.,(){}\[\]~])
    """,
    re.X,
)
_STR_RUN = re.compile(r'[^"\\$%\n]+')
_OPENERS = frozenset({"(", "[", "{"})
_CLOSERS = frozenset({")", "]", "}"})
_CLOSER = {"(": ")", "[": "]", "{": "}"}


class _Lexer:
    """The tokens of a text (those inside interpolations and heredocs are part of their
    string's token) and the comments standing alone on their lines, by line."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.toks: list[_Tok] = []
        self.comments: dict[int, str] = {}
        self.newlines = [m.start() for m in re.finditer("\n", text)]

    def line(self, pos: int) -> int:
        return bisect.bisect_left(self.newlines, pos) + 1

    def scan(self, i: int, nested: int) -> int:
        """Lex from `i`: the whole text (nested 0), or an interpolation's code to its
        closing brace (its tokens not kept); the position after it."""
        if nested > _MAX_NESTING:
            raise _SyntaxError("interpolations nested too deep")
        text, n = self.text, len(self.text)
        stack: list[str] = []
        gap = "\n"
        while i < n:
            m = _TOKEN.match(text, i)
            if m is None:
                raise _SyntaxError(f"line {self.line(i)}: unexpected {text[i]!r}")
            kind = m.lastgroup or ""
            end = m.end()
            if kind in ("nl", "ws", "comment", "block"):
                if kind == "block":
                    close = text.find("*/", i + 2)
                    if close < 0:
                        raise _SyntaxError(f"line {self.line(i)}: an unclosed comment")
                    end = close + 2
                if kind in ("comment", "block") and not nested and gap == "\n":
                    self._comment(i, end)
                new_line = kind == "nl" or (kind == "block" and "\n" in text[i:end])
                gap = "\n" if new_line else (gap or " ")
                i = end
                continue
            if kind == "str":
                end = self._string(i + 1, nested)
            elif kind == "heredoc":
                end = self._heredoc(m)
            elif kind == "op" and m.group() in _OPENERS:
                stack.append(m.group())
            elif kind == "op" and m.group() in _CLOSERS:
                if not stack:
                    if nested and m.group() == "}":
                        return end
                    raise _SyntaxError(f"line {self.line(i)}: an unopened {m.group()!r}")
                if _CLOSER[stack.pop()] != m.group():
                    raise _SyntaxError(f"line {self.line(i)}: a mismatched {m.group()!r}")
            if not nested:
                self.toks.append(_Tok(kind, text[i:end], i, end, gap))
            gap = ""
            i = end
        if stack or nested:
            raise _SyntaxError("an unclosed bracket or interpolation at the end")
        return i

    def _comment(self, i: int, end: int) -> None:
        """Keep a comment standing alone on its line(s), by line."""
        raw = self.text[i:end]
        first = self.line(i)
        if raw.startswith("/*"):
            body = raw[2:-2].split("\n")
            for k, line in enumerate(body):
                self.comments[first + k] = "# " + re.sub(r"^\s*\*? ?", "", line)
        else:
            self.comments[first] = raw

    def _string(self, i: int, nested: int) -> int:
        """The position after a quoted string whose text starts at `i`."""
        text, n = self.text, len(self.text)
        while True:
            m = _STR_RUN.match(text, i)
            if m is not None:
                i = m.end()
            if i >= n or text[i] == "\n":
                raise _SyntaxError(f"line {self.line(i)}: an unterminated string")
            c = text[i]
            if c == '"':
                return i + 1
            if c == "\\":
                i += 2
            elif text.startswith(c + c + "{", i):  # `$${`, `%%{`: literal
                i += 3
            elif text.startswith(c + "{", i):
                i = self.scan(i + 2, nested + 1)
            else:
                i += 1

    def _heredoc(self, m: re.Match[str]) -> int:
        """The position after a heredoc's closing marker line."""
        marker = m.group().strip().lstrip("<-")
        end = re.compile(rf"^[ \t]*{re.escape(marker)}[ \t]*\r?$", re.M)
        found = end.search(self.text, m.end() + 1)
        if found is None:
            raise _SyntaxError(f"line {self.line(m.start())}: an unterminated heredoc")
        return found.end()


def _matches(toks: list[_Tok]) -> dict[int, int]:
    """Each opening bracket's index -> its closing one's (the lexer checked they match)."""
    out: dict[int, int] = {}
    stack: list[int] = []
    for i, t in enumerate(toks):
        if t.kind == "op":
            if t.text in _OPENERS:
                stack.append(i)
            elif t.text in _CLOSERS:
                out[stack.pop()] = i
    return out


# ----------------------------------------------------------------------------- parser
@dataclass
class _Attr:
    name: str
    raw: str  # as written
    flat: str  # whitespace normalized, on one line
    line: int
    literal: str | None = None  # the text of a string or a heredoc
    items: dict[str, _Attr] = field(default_factory=dict)  # an object's


@dataclass
class _Block:
    type: str
    labels: list[str]
    line: int
    attrs: dict[str, _Attr] = field(default_factory=dict)
    blocks: list[_Block] = field(default_factory=list)
    comment: list[str] = field(default_factory=list)  # the comment lines right above


def _read(f: SourceFile) -> list[_Block]:
    if f.rel.name.lower().endswith(".json"):
        return _json_blocks(f.text)
    return _Parser(f.text).blocks()


class _Parser:
    def __init__(self, text: str) -> None:
        self.lexer = _Lexer(text.replace("\r\n", "\n"))
        self.lexer.scan(0, 0)
        self.toks = self.lexer.toks
        self.match = _matches(self.toks)

    def blocks(self) -> list[_Block]:
        return self.body(0, len(self.toks), 0)[1]

    def body(self, i: int, end: int, depth: int) -> tuple[dict[str, _Attr], list[_Block]]:
        if depth > _MAX_DEPTH:
            raise _SyntaxError("blocks nested too deep")
        toks, lx = self.toks, self.lexer
        attrs: dict[str, _Attr] = {}
        blocks: list[_Block] = []
        while i < end:
            t = toks[i]
            if t.kind != "ident":
                raise _SyntaxError(f"line {lx.line(t.start)}: {t.text!r} begins no item")
            if i + 1 < end and toks[i + 1].text == "=":
                j = self.expression_end(i + 2, end)
                if j == i + 2:
                    raise _SyntaxError(f"line {lx.line(t.start)}: {t.text} = nothing")
                attrs.setdefault(t.text, self.attr(t.text, i + 2, j))
                i = j
                continue
            labels: list[str] = []
            j = i + 1
            while j < end and toks[j].kind in ("str", "ident"):
                labels.append(_unquoted(toks[j].text) if toks[j].kind == "str" else toks[j].text)
                j += 1
            if j >= end or toks[j].text != "{":
                raise _SyntaxError(f"line {lx.line(t.start)}: {t.text!r} is no block")
            close = self.match[j]
            line = lx.line(t.start)
            block = _Block(t.text, labels, line, comment=_comment_above(lx.comments, line))
            block.attrs, block.blocks = self.body(j + 1, close, depth + 1)
            blocks.append(block)
            i = close + 1
        return attrs, blocks

    def expression_end(self, i: int, end: int) -> int:
        """Where an expression starting at `i` ends: a line break outside brackets, or the
        end of its body."""
        toks, j = self.toks, i
        while j < end:
            t = toks[j]
            if j > i and t.gap == "\n":
                break
            j = self.match[j] + 1 if t.kind == "op" and t.text in _OPENERS else j + 1
        return j

    def attr(self, name: str, a: int, b: int, item: bool = False) -> _Attr:
        """An attribute's expression, tokens a..b-1; an object's items read one level down
        (a provider's `source` and `version`), not those of an item (`item`)."""
        toks = self.toks
        raw = self.lexer.text[toks[a].start : toks[b - 1].end]
        out = _Attr(name, raw, _flat(toks, a, b), self.lexer.line(toks[a].start))
        if b == a + 1 and toks[a].kind in ("str", "heredoc"):
            out.literal = _string_text(toks[a])
        elif toks[a].text == "{" and self.match[a] == b - 1 and not item:
            out.items = self.items(a + 1, b - 1)
        return out

    def items(self, i: int, end: int) -> dict[str, _Attr]:
        """An object constructor's `key = value` (or `key: value`) items; none for a `for`."""
        toks = self.toks
        out: dict[str, _Attr] = {}
        while i < end:
            if toks[i].text == ",":
                i += 1
                continue
            key = toks[i]
            if key.kind not in ("ident", "str") or i + 1 >= end:
                return out
            if key.text == "for" or toks[i + 1].text not in ("=", ":"):
                return out
            j = i + 2
            while j < end and toks[j].text != "," and not (j > i + 2 and toks[j].gap == "\n"):
                j = self.match[j] + 1 if toks[j].text in _OPENERS else j + 1
            if j == i + 2:
                return out
            name = _unquoted(key.text) if key.kind == "str" else key.text
            out[name] = self.attr(name, i + 2, j, item=True)
            i = j
        return out


def _flat(toks: list[_Tok], a: int, b: int) -> str:
    """Tokens a..b-1 on one line, whitespace normalized (see the module docstring)."""
    out: list[str] = []
    stack: list[str] = []  # "(", "[", "{" (an object), "for" (a `{ for ... }`)
    for k in range(a, b):
        t = toks[k]
        closing = t.kind == "op" and t.text in _CLOSERS
        if k > a and t.gap:
            prev = toks[k - 1]
            if t.gap != "\n":
                out.append(" ")
            elif closing or (prev.kind == "op" and prev.text in _OPENERS):
                if closing and prev.text == ",":
                    out.pop()
            elif stack and stack[-1] == "{" and prev.text != ",":
                out.append(", ")
            else:
                out.append(" ")
        out.append(" ".join(t.text.split()) if t.kind == "heredoc" else t.text)
        if t.kind == "op" and t.text in _OPENERS:
            is_for = t.text == "{" and k + 1 < b and toks[k + 1].text == "for"
            stack.append("for" if is_for else t.text)
        elif closing and stack:
            stack.pop()
    return "".join(out)


_ESCAPE = re.compile(r"\\(u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|.)|\$\$\{|%%\{", re.S)
_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", '"': '"', "\\": "\\"}


def _unquoted(text: str) -> str:
    """A quoted string's text, its escapes read (`$${` is `${`)."""

    def one(m: re.Match[str]) -> str:
        whole = m.group()
        if whole in ("$${", "%%{"):
            return whole[1:]
        esc = m.group(1)
        if esc[0] in "uU" and len(esc) > 1:
            try:
                return chr(int(esc[1:], 16))
            except (ValueError, OverflowError):
                return whole
        return _ESCAPES.get(esc, whole)

    return _ESCAPE.sub(one, text[1:-1] if text.endswith('"') else text[1:])


def _string_text(t: _Tok) -> str:
    if t.kind == "str":
        return _unquoted(t.text)
    opener, _, rest = t.text.partition("\n")
    body = rest.rsplit("\n", 1)[0] if "\n" in rest else ""
    return textwrap.dedent(body) if opener.startswith("<<-") else body


# ----------------------------------------------------------------------------- JSON syntax
_JSON_LABELS = {"variable": 1, "output": 1, "module": 1, "resource": 2, "data": 2, "terraform": 0}


def _json_blocks(text: str) -> list[_Block]:
    """The blocks of a `.tf.json` file that the reader reads."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as e:
        raise _SyntaxError(str(e)) from e
    if not isinstance(data, dict):
        raise _SyntaxError("not a JSON object")
    blocks: list[_Block] = []
    try:
        for btype, labels in _JSON_LABELS.items():
            for names, body in _json_bodies(data.get(btype), labels):
                at = text.find(f'"{names[-1]}"') if names else 0
                blocks.append(_json_block(btype, names, body, text.count("\n", 0, max(0, at)) + 1))
    except RecursionError as e:
        raise _SyntaxError("nested too deep") from e
    return blocks


def _json_bodies(value: Any, labels: int) -> Iterable[tuple[list[str], dict[str, Any]]]:
    """The bodies under a block type's key, with their labels (a list: each in turn)."""
    values = value if isinstance(value, list) else [value]
    for v in values:
        if not isinstance(v, dict):
            continue
        if labels == 0:
            yield [], v
            continue
        for key, inner in v.items():
            if key != "//":
                for names, body in _json_bodies(inner, labels - 1):
                    yield [key, *names], body


def _json_block(btype: str, labels: list[str], body: dict[str, Any], line: int) -> _Block:
    block = _Block(btype, labels, line)
    comment = body.get("//")
    if isinstance(comment, str):
        block.comment = comment.splitlines()
    for key, value in body.items():
        if key == "//":
            continue
        inner = value if isinstance(value, list) else [value]
        if key in ("validation", "required_providers") and all(isinstance(v, dict) for v in inner):
            block.blocks += [_json_block(key, [], v, line) for v in inner]
        else:
            block.attrs[key] = _json_attr(key, value, line, expression=key == "type")
    return block


def _json_attr(
    name: str, value: Any, line: int, expression: bool = False, inner: bool = False
) -> _Attr:
    """An attribute of the JSON syntax: `type` a string holding an expression; any other
    value shown as JSON (a string as a quoted template, which is what it is)."""
    if expression and isinstance(value, str):
        return _Attr(name, value, " ".join(value.split()), line)
    raw = json.dumps(value, indent=2, ensure_ascii=False)
    flat = json.dumps(value, ensure_ascii=False)
    out = _Attr(name, raw, flat, line, value if isinstance(value, str) else None)
    if isinstance(value, dict) and not inner:
        out.items = {k: _json_attr(k, v, line, inner=True) for k, v in value.items() if k != "//"}
    return out


# ----------------------------------------------------------------------------- comments
_MARKER = re.compile(r"^(#+|/{2,})")
_SEPARATOR = re.compile(r"^\s*([#=*/~+-])\1{2,}\s*$")
_LINT = re.compile(
    r"^\s*(?:tflint-ignore|tfsec:|checkov:|trivy:|nosec|kics|terrascan|nosemgrep|"
    r"lint:|noinspection|terraform-docs-ignore|BEGIN_TF_DOCS|END_TF_DOCS)",
    re.I,
)
_CODE_LINE = re.compile(
    r"^\s*(?:[\w.\"-]+\s*=(?!=)\s*\S|"
    r"(?:resource|data|module|variable|output|locals|provider|dynamic)\b.*\{\s*$|"
    r"[}\])]+,?\s*$|.*[{\[(]\s*$)"
)


def _comment_above(comments: dict[int, str], line: int) -> list[str]:
    """The comment block ending right above a line (see the module docstring), cleaned."""
    raw: list[str] = []
    k = line - 1
    while k in comments:
        raw.append(comments[k])
        k -= 1
    lines: list[str] = []
    for text in reversed(raw):
        m = _MARKER.match(text)
        marker = m.group() if m else ""
        body = text[len(marker) :]
        body = body[1:] if body.startswith(" ") else body
        if _SEPARATOR.match(body) or (not body.strip() and len(marker) >= 3):
            lines = []  # a banner's line: what stands above it is no item's
            continue
        if not _LINT.match(body):
            lines.append(body.rstrip())
    lines = textwrap.dedent("\n".join(lines)).strip("\n").split("\n")
    code = sum(1 for x in lines if _CODE_LINE.match(x))
    if not any(x.strip() for x in lines) or code * 2 > len([x for x in lines if x.strip()]):
        return []
    return lines


# ----------------------------------------------------------------------------- text helpers
_SENTENCE_END = re.compile(r"(?<!\be\.g)(?<!\bi\.e)(?<!\betc)(?<!\bvs)[.!?](?=\s|$)")


def first_sentence(text: str) -> str:
    """The first sentence of a text's first paragraph, on one line, at most 200 characters."""
    para: list[str] = []
    for line in text.strip().split("\n"):
        if not line.strip() or line.lstrip().startswith("```"):
            break
        para.append(line.strip())
    flat = " ".join(" ".join(para).split())
    m = _SENTENCE_END.search(flat)
    if m:
        flat = flat[: m.end()]
    return _capped(flat, _MAX_SENTENCE)


def _capped(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 3].rstrip() + "..."


def _code(text: str) -> str:
    """Text in a code span, with enough backquotes."""
    fence = "``" if "`" in text else "`"
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _fenced(code: str) -> str:
    fence = "````" if "```" in code else "```"
    return f"{fence}hcl\n{code}\n{fence}"


def _written(raw: str, limit: int) -> str:
    """An expression as written, its lines after the first dedented, at most `limit`
    characters (cut at a line)."""
    first, _, rest = raw.partition("\n")
    lines = [first.rstrip(), *textwrap.dedent(rest).rstrip().split("\n")]
    out: list[str] = []
    size = 0
    for line in lines:
        size += len(line) + 1
        if size > limit:
            out.append("...")
            break
        out.append(line.rstrip())
    return "\n".join(out)


def _shown(label: str, attr: _Attr) -> str:
    """`Label: `expr`` on one line; a long expression written over lines fenced."""
    if "\n" in attr.raw.strip() and len(attr.flat) > _MAX_SHORT_TYPE:
        limit = _MAX_FENCED_TYPE if label == "Type" else _MAX_FENCED
        return f"{label}:\n{_fenced(_written(attr.raw.strip(), limit))}"
    return f"{label}: {_code(_capped(attr.flat, _MAX_INLINE))}"


_TYPE_HEAD = re.compile(r"^((?:[\w-]+\()+)([{\[]?)")


def _short_type(flat: str) -> str:
    """A type on a signature line: a long one's outer constructors, `map(object({...}))`."""
    if len(flat) <= _MAX_SHORT_TYPE:
        return flat
    m = _TYPE_HEAD.match(flat)
    if m is None:
        return _capped(flat, _MAX_SHORT_TYPE)
    inner = {"{": "}", "[": "]"}.get(m.group(2), "")
    return m.group(0) + "..." + inner + ")" * m.group(1).count("(")


def _is_true(attr: _Attr | None) -> bool:
    return attr is not None and attr.flat == "true"


def _join(parts: Iterable[str]) -> str:
    return "\n\n".join(p for p in parts if p)


def _listed(heading: str, entries: list[str]) -> str:
    if not entries:
        return ""
    more = len(entries) - _MAX_LISTED
    shown = entries[:_MAX_LISTED] + ([f"- ... and {more} more"] if more > 0 else [])
    return heading + "\n" + "\n".join(shown)


# ----------------------------------------------------------------------------- documents
def _documentation(b: _Block) -> tuple[str, str]:
    """A variable's or output's documentation and where it came from ("description",
    "comment"; "" when it has none)."""
    desc = b.attrs.get("description")
    if desc is not None:
        text = desc.literal if desc.literal is not None else desc.raw
        text = re.sub(r"[ \t]+\n", "\n", text).strip()
        if text:
            return text, "description"
    if b.comment:
        return "\n".join(b.comment).strip(), "comment"
    return "", ""


def _name(b: _Block) -> str:
    return b.labels[0] if b.labels else ""


@dataclass
class _Module:
    name: str
    folder: PurePosixPath
    files: list[tuple[SourceFile, list[_Block]]]
    package: str = ""  # the package root's module, for a submodule
    submodules: list[str] = field(default_factory=list)
    examples: list[str] = field(default_factory=list)

    def of(self, kind: str) -> list[tuple[SourceFile, _Block]]:
        """The module's blocks of a kind, the first of a name only, in path order."""
        seen: set[tuple[str, ...]] = set()
        out: list[tuple[SourceFile, _Block]] = []
        for f, blocks in self.files:
            for b in blocks:
                if b.type == kind and b.labels and tuple(b.labels) not in seen:
                    seen.add(tuple(b.labels))
                    out.append((f, b))
        return out

    def documents(self, source: str) -> list[Document]:
        out: list[Document] = []
        for f, b in self.of("variable"):
            doc = self.variable_document(source, f, b)
            if doc is not None:
                out.append(doc)
        for f, b in self.of("output"):
            doc = self.output_document(source, f, b)
            if doc is not None:
                out.append(doc)
        module = self.module_document(source)
        return [module, *out] if module is not None else out

    def document(
        self, source: str, f: SourceFile, qual: str, text: str, kind: str, line: int, **more: Any
    ) -> Document:
        signature = text.split("\n", 1)[0]
        meta = {**_LANG, "module": self.name, **more}
        return api_document(source, URI_PREFIX, f, qual, text, kind, signature, line, **meta)

    def variable_document(self, source: str, f: SourceFile, b: _Block) -> Document | None:
        doc, origin = _documentation(b)
        if not doc:
            return None
        name = _name(b)
        typ, default = b.attrs.get("type"), b.attrs.get("default")
        signature = f'variable "{name}": ' + _short_type(typ.flat if typ else "any")
        if default is not None:
            signature += " = " + _capped(default.flat, _MAX_SIGNATURE_DEFAULT)
        else:
            signature += " (required)"
        facts = [_shown("Type", typ) if typ else "Type: `any`"]
        facts.append(_shown("Default", default) if default else "Required: yes")
        facts += self.flags(b)
        if b.attrs.get("nullable") is not None and b.attrs["nullable"].flat == "false":
            facts.append("Nullable: no")
        for v in b.blocks:
            if v.type == "validation":
                facts.append(_validation(v))
        facts.append(f"Of: module {_code(self.name)}")
        text = _join([signature, doc, "\n".join(facts)])
        return self.document(
            source,
            f,
            f"{self.name}:var.{name}",
            text,
            "variable",
            b.line,
            name=name,
            described_by=origin,
        )

    def output_document(self, source: str, f: SourceFile, b: _Block) -> Document | None:
        doc, origin = _documentation(b)
        if not doc:
            return None
        name = _name(b)
        value = b.attrs.get("value")
        facts = [_shown("Value", value)] if value is not None else []
        facts += self.flags(b)
        facts.append(f"Of: module {_code(self.name)}")
        text = _join([f'output "{name}"', doc, "\n".join(facts)])
        return self.document(
            source,
            f,
            f"{self.name}:output.{name}",
            text,
            "output",
            b.line,
            name=name,
            described_by=origin,
        )

    @staticmethod
    def flags(b: _Block) -> list[str]:
        out = ["Sensitive: yes"] if _is_true(b.attrs.get("sensitive")) else []
        return out + (["Ephemeral: yes"] if _is_true(b.attrs.get("ephemeral")) else [])

    def module_document(self, source: str) -> Document | None:
        variables, outputs = self.of("variable"), self.of("output")
        resources, data, calls = self.of("resource"), self.of("data"), self.of("module")
        requirements = self.requirements()
        if not (variables or outputs or resources or data or calls or requirements):
            return None
        counts = [
            _counted(len(variables), "input"),
            _counted(len(outputs), "output"),
            _counted(len(resources), "resource"),
            _counted(len(data), "data source"),
            _counted(len(calls), "module call"),
        ]
        about = f"Terraform module {_code(self.name)}: " + ", ".join(counts) + "."
        if self.package:
            about += f" A submodule of {_code(self.package)}."
        resource_entries = [_resource_entry(b, "") for b in _by_name(resources)]
        resource_entries += [_resource_entry(b, "data.") for b in _by_name(data)]
        text = _join(
            [
                f'module "{self.name}"',
                about,
                _listed("Requirements:", requirements),
                _listed("Inputs:", [_input_entry(b) for b in _by_name(variables)]),
                _listed("Outputs:", [_output_entry(b) for b in _by_name(outputs)]),
                _listed("Resources:", resource_entries),
                _listed("Modules:", [_call_entry(b) for b in _by_name(calls)]),
                _listed("Submodules:", [f"- {_code(n)}" for n in self.submodules]),
                _listed("Examples:", [f"- {_code(n)}" for n in self.examples]),
            ]
        )
        f, line = self.anchor()
        return self.document(source, f, self.name, text, "module", line, folder=str(self.folder))

    def anchor(self) -> tuple[SourceFile, int]:
        """The file (and line) a module's document stands at: its `terraform` block's, else
        its `main.tf`, else its first file."""
        for f, blocks in self.files:
            for b in blocks:
                if b.type == "terraform":
                    return f, b.line
        for f, _ in self.files:
            if f.rel.name == "main.tf":
                return f, 1
        return self.files[0][0], 1

    def requirements(self) -> list[str]:
        out: list[str] = []
        seen: set[str] = set()
        for _, blocks in self.files:
            for b in blocks:
                if b.type != "terraform":
                    continue
                version = b.attrs.get("required_version")
                if version is not None and "terraform" not in seen:
                    seen.add("terraform")
                    out.append(f"- terraform {_code(_version(version))}")
                for rp in (s for s in b.blocks if s.type == "required_providers"):
                    for name, spec in rp.attrs.items():
                        if name not in seen:
                            seen.add(name)
                            out.append(_provider_entry(name, spec))
        return out


def _counted(n: int, what: str) -> str:
    return f"{n} {what}" + ("" if n == 1 else "s")


def _by_name(blocks: list[tuple[SourceFile, _Block]]) -> list[_Block]:
    return sorted((b for _, b in blocks), key=lambda b: b.labels)


def _version(attr: _Attr) -> str:
    return attr.literal if attr.literal is not None else attr.flat


def _provider_entry(name: str, spec: _Attr) -> str:
    """ "- aws (`hashicorp/aws`) `>= 5.0`"; an old-style `aws = ">= 2.0"` its version only."""
    if spec.literal is not None:
        return f"- {name} {_code(spec.literal)}"
    src, version = spec.items.get("source"), spec.items.get("version")
    entry = f"- {name}"
    if src is not None:
        entry += f" ({_code(_version(src))})"
    if version is not None:
        entry += f" {_code(_version(version))}"
    return entry


def _input_entry(b: _Block) -> str:
    typ, default = b.attrs.get("type"), b.attrs.get("default")
    shown = _short_type(typ.flat) if typ else "any"
    if default is not None:
        how = "default " + _code(_capped(default.flat, _MAX_LISTED_DEFAULT))
    else:
        how = "required"
    doc, _ = _documentation(b)
    said = first_sentence(doc) if doc else ""
    return f"- {_code(_name(b))} ({_code(shown)}, {how})" + (f": {said}" if said else "")


def _output_entry(b: _Block) -> str:
    doc, _ = _documentation(b)
    said = first_sentence(doc) if doc else ""
    sensitive = " (sensitive)" if _is_true(b.attrs.get("sensitive")) else ""
    return f"- {_code(_name(b))}{sensitive}" + (f": {said}" if said else "")


def _repetition(b: _Block) -> list[str]:
    return [key for key in ("count", "for_each") if key in b.attrs]


def _resource_entry(b: _Block, prefix: str) -> str:
    notes = (["data source"] if prefix else []) + _repetition(b)
    entry = f"- {_code(prefix + '.'.join(b.labels))}"
    entry += f" ({', '.join(notes)})" if notes else ""
    said = first_sentence("\n".join(b.comment)) if b.comment else ""
    return entry + (f": {said}" if said else "")


def _call_entry(b: _Block) -> str:
    notes: list[str] = []
    for key in ("source", "version"):
        attr = b.attrs.get(key)
        if attr is not None:
            notes.append(f"{key} {_code(_capped(_version(attr), _MAX_INLINE))}")
    notes += _repetition(b)
    entry = f"- {_code(_name(b))}" + (f" ({', '.join(notes)})" if notes else "")
    said = first_sentence("\n".join(b.comment)) if b.comment else ""
    return entry + (f": {said}" if said else "")


def _validation(v: _Block) -> str:
    message, condition = v.attrs.get("error_message"), v.attrs.get("condition")
    said = ""
    if message is not None:
        said = message.literal if message.literal is not None else message.flat
        said = " ".join(said.split())
    out = "Validation: " + (said or "(no message)")
    if condition is not None:
        out += f" (condition: {_code(_capped(condition.flat, _MAX_SENTENCE))})"
    return out
