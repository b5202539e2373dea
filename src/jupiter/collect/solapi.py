"""Solidity files read as their contracts' API, as solc's NatSpec output (`solc --userdoc
--devdoc`) and docgen sites (OpenZeppelin's docs) show it: one document per documented
contract, interface, library, function, modifier, event, error, struct, enum, public state
variable and user-defined value type.

The files are scanned, never compiled: comments (`//` to the line's end, `/* */`) and
strings (`"..."`, `'...'` with their escapes; `hex"..."` and `unicode"..."` are a word and a
string) are told apart from code, and brackets matched, so a brace or a `function` in a
string or comment means nothing, a contract's body is known, and a function's body is
skipped whole (nothing inside it is API). A NatSpec comment is a run of `///` comments
alone on adjacent lines (a `////` line is a plain comment), or a `/** */` block (each
line's leading `*` off); the lines are dedented together. It documents the declaration it
stands right over: blank lines between are allowed, code or another (plain) comment is
not, except a linter's or formatter's directive (`// solhint-disable-next-line ...`,
`// slither-disable-...`, `// forge-lint: ...`), which speaks to a tool (solc keeps the doc
over it too). NatSpec comments on adjacent lines (no blank line between) are one: a
`/** @dev ... */` over a `/// @custom:...` line. `pragma`, `import` and `using ... for`
statements are skipped.

Tags: text before any tag is `@notice`; a tag's text runs to the next tag (a line that
starts with `@` and a word solc does not know is text). `@title` (a contract's: the
paragraph after its head), `@notice` (for users: the main description), `@dev` (for
developers: its own paragraph after the notice), `@param name text`, `@return [name] text`
(each its own `:returns:` line; `:returns: name - text` when its first word names one of
the function's declared returns), `@inheritdoc Base`, `@custom:xyz text` (a line
`Custom xyz: text`; `Custom xyz.` with no text); `@author` is dropped. `@inheritdoc Base`
takes the doc of the same member in the contract named `Base` (or the contracts it
inherits from, nearest first), searched in all the files handed over: the same name with
the same parameter types, else the same name and number of parameters, else the same
name; the member's own tags win over the inherited ones. Unresolved (no such contract or
member, or an undocumented one), the text says ``See `Base.name`.``. The notice and dev
texts keep their lines (Markdown lists and ```` ``` ```` fences as written); OpenZeppelin's
docgen markup becomes Markdown outside code: a cross reference `{ERC20}`, `{_mint}`,
`{IERC20-transfer}` a code span (`` `IERC20.transfer` ``; parameter types after the member
as `` `f(address,bytes)` ``: `{functionCall-address-bytes-}`), `{xref-...}[label]` and
`xref:page.adoc#anchor[label]` their label, an AsciiDoc `https://url[label]` link a Markdown
`[label](https://url)`, a `==== Heading` line a Markdown heading and a lone `====` block
delimiter dropped.

Items, at a file's top level or in a contract's body: `contract`, `abstract contract`,
`interface` and `library` (kind "contract", "interface", "library"; its head the declaration
line, `abstract contract ERC20 is Context, IERC20`), `function` (also `constructor`,
`fallback`, `receive`, and an unnamed Solidity 0.5 `function () external` as `fallback`;
its head the declaration as written up to its body or `;`, whitespace collapsed, its
visibility, mutability, modifiers and `returns (...)` kept), `modifier`, `event`, `error`,
`struct` (its members listed as `Fields:`, each with its `@param` text when the struct's
doc gives one), `enum` (its values listed as `Values:`), `type Name is T` (kind "type"),
and state variables (kind "variable"; its head the declaration up to its `=` or `;`):
inside a contract only `public` ones, at the top level (file-level constants) any. A
`private` function is left out; an `internal` one is kept (OpenZeppelin's docs show
internal functions such as `ERC20._mint` as API, `_`-prefixed names included). An item
without a NatSpec comment, or whose comment says nothing (only `@author`), gives no
document.

The uri is `solidity:` and the item's qualified name: a contract's member's
`<Contract>.<name>` (`solidity:ERC20.transfer`), the contract's own `<Contract>`
(`solidity:ERC20`), an item outside any contract `<file stem>.<name>`
(`solidity:draft-ERC7579Utils.eqCallType`). Overloads: the items a contract (or a file's top
level) documents are named in source order, the first of a name bare, each later one of
the same name with its parameter types, comma-separated without spaces, data locations,
parameter names, `indexed` and `address`'s `payable` dropped, `uint`/`int` written
`uint256`/`int256`: `solidity:Math.mulDiv(uint256,uint256,uint256,Rounding)`. Of a contract
name two files declare, the first file's in path order is kept (its documents, and the one
`@inheritdoc` reads).

The text: the head line, a blank line, then paragraphs: the title (contracts), the notice,
the dev note, the inherited-doc line, the `:param name: text` lines (for events and errors
too) with the `:returns:` lines, the `Custom xyz: text` lines, a struct's `Fields:` or an
enum's `Values:`, and for a contract that inherits, `Inherits: A, B` (its bases' names).
The document's signature (meta) is the head line, the declaration as written.

Tests (under `test/`, `tests/`, `mocks/`, `mock/`; `*.t.sol`, `*Test.sol`, `*.s.sol` scripts,
`Mock*.sol` and `*Mock.sol`) give no document and are counted, and so is a file with
nothing documented.
"""

from __future__ import annotations

import re
import textwrap
from bisect import bisect_right
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from jupiter.collect.codescan import blank
from jupiter.collect.result import CollectResult, SourceFile, api_document, first_documents
from jupiter.records import Document

SUFFIXES = (".sol",)
URI_PREFIX = "solidity:"
# reasons a Solidity file gave no document, as the collect stage counts them
SOL_TEST = "solidity_test"
SOL_NO_API = "solidity_no_api"
_AS_TEXT = (
    "Solidity files read as their contracts' API (the NatSpec comments of contracts, "
    "functions, modifiers, events, errors, structs, enums, public state variables and "
    "types): tests and files with nothing documented give none; the source's solidity: "
    "text reads them as text"
)
FIXES = {SOL_TEST: _AS_TEXT, SOL_NO_API: _AS_TEXT}
_TEST_FOLDERS = frozenset({"test", "tests", "mocks", "mock"})
_TEST_NAME = re.compile(r"\.t\.sol$|Test\.sol$|\.s\.sol$|^Mock.*\.sol$|Mock\.sol$")
_MAX_INHERIT = 12  # `@inheritdoc` hops followed (a cycle of them ends)


def is_solidity(name: str) -> bool:
    return name.lower().endswith(SUFFIXES)


def is_test(rel: PurePosixPath) -> bool:
    return bool(_TEST_FOLDERS & set(rel.parts[:-1])) or bool(_TEST_NAME.search(rel.name))


def api_documents(
    files: list[SourceFile], source: str, rejects: CollectResult | None = None, top: str = ""
) -> list[Document]:
    """Documents for the documented API the files' contracts define, sorted by uri; a file
    that gives none is counted in `rejects`. `top` (the source's folder name) names
    nothing here: a contract's name is its own."""
    scanned: dict[int, _File] = {}  # every file is read before any document is made:
    index = _Index()  # `@inheritdoc` may name a contract of a later file
    for f in sorted(files, key=lambda f: f.rel):
        if not is_test(f.rel):
            g = _File(f)
            scanned[id(f)] = g
            index.add(g)

    def read(f: SourceFile) -> list[Document] | str:
        g = scanned.get(id(f))
        return SOL_TEST if g is None else _file_documents(g, source, index)

    return first_documents(files, rejects, read, SOL_NO_API)


# ----------------------------------------------------------------------------- scanning
_LEXEME = re.compile(r"/[/*]|[\"']")
_STRING = {
    '"': re.compile(r'"(?:[^"\\\n]|\\[\s\S])*"?'),
    "'": re.compile(r"'(?:[^'\\\n]|\\[\s\S])*'?"),
}
_STAR_MARGIN = re.compile(r"[ \t]*\*(?!/)")


@dataclass
class _Comment:
    """A comment: where it stands, whether it is NatSpec, its lines without their marks."""

    start: int
    end: int
    doc: bool
    lines: list[str]


def _scan(text: str) -> tuple[str, str, list[_Comment]]:
    """(the code with comments and strings' contents blanked; the text with only its
    comments blanked; the comments, a run of `///` lines one), both texts as long as
    `text`, lines where they were."""
    code = list(text)
    bare = list(text)
    raw: list[tuple[int, int, str, str]] = []  # start, end, kind, the text inside its marks
    n = len(text)
    i = 0
    while (m := _LEXEME.search(text, i)) is not None:
        s = m.start()
        tok = m.group()
        if tok == "//":
            e = text.find("\n", s)
            e = n if e < 0 else e
            alone = not text[text.rfind("\n", 0, s) + 1 : s].strip()
            doc = alone and text.startswith("///", s) and not text.startswith("////", s)
            raw.append((s, e, "///" if doc else "//", text[s + 3 : e]))
        elif tok == "/*":
            close = text.find("*/", s + 2)
            e = n if close < 0 else close + 2
            doc = text.startswith("/**", s) and not text.startswith("/**/", s)
            raw.append((s, e, "/**" if doc else "/*", text[s + 3 : n if close < 0 else close]))
        else:
            lit = _STRING[tok].match(text, s)
            e = lit.end() if lit is not None else s + 1
            closed = e - s >= 2 and text[e - 1] == tok
            blank(code, s + 1, e - 1 if closed else e)  # the quotes kept: code stands there
            i = max(e, s + 1)
            continue
        blank(code, s, e)
        blank(bare, s, e)
        i = max(e, s + 1)
    return "".join(code), "".join(bare), _comments(text, raw)


def _comments(text: str, raw: list[tuple[int, int, str, str]]) -> list[_Comment]:
    """The scanned comments: `///` lines alone on adjacent lines joined as one NatSpec
    comment, a `/** */` block's lines without their star margin."""
    out: list[_Comment] = []
    run = False  # whether the last comment is a `///` run
    for s, e, kind, inside in raw:
        prev = out[-1] if out else None
        if kind == "///":
            if (
                prev is not None
                and run
                and text.count("\n", prev.end, s) == 1
                and not text[prev.end : s].strip()
            ):
                prev.end = e
                prev.lines.append(inside)
            else:
                out.append(_Comment(s, e, True, [inside]))
        elif kind == "/**":
            lines = [_STAR_MARGIN.sub("", x, count=1) for x in inside.split("\n")]
            out.append(_Comment(s, e, True, lines))
        else:
            out.append(_Comment(s, e, False, []))
        run = kind == "///"
    for c in out:
        if c.doc:
            c.lines = _doc_lines(c.lines)
    return out


def _doc_lines(lines: list[str]) -> list[str]:
    """A NatSpec comment's lines: the first's leading space off, the others dedented
    together (a `/** Text` block's first line stands apart from its margin)."""
    first = lines[0].strip() if lines else ""
    if not first:
        return _dedent(lines)
    return _dedent([first, *_dedent(lines[1:])]) if len(lines) > 1 else [first]


def _dedent(lines: list[str]) -> list[str]:
    """Lines dedented together, trailing space off, blank lines at either end dropped."""
    lines = textwrap.dedent("\n".join(x.rstrip() for x in lines)).split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    while lines and not lines[0].strip():
        lines.pop(0)
    return lines


def _brackets(code: str) -> dict[int, int]:
    """Each opening bracket's position -> past the one that closes it (an unclosed one is
    absent; a stray closer is ignored)."""
    match: dict[int, int] = {}
    stack: list[tuple[str, int]] = []
    opener = {")": "(", "]": "[", "}": "{"}
    for m in re.finditer(r"[(){}\[\]]", code):
        ch = m.group()
        if ch in "([{":
            stack.append((ch, m.start()))
        elif stack and stack[-1][0] == opener[ch]:
            match[stack.pop()[1]] = m.end()
    return match


# ----------------------------------------------------------------------------- NatSpec
_TAG = re.compile(r"@(title|author|notice|dev|param|return|inheritdoc|custom:[\w-]*)(?![\w:-])")


@dataclass
class _Natspec:
    title: str = ""
    notice: list[str] = field(default_factory=list)  # paragraphs, Markdown
    dev: list[str] = field(default_factory=list)
    params: list[tuple[str, str]] = field(default_factory=list)
    returns: list[str] = field(default_factory=list)
    inheritdoc: str = ""
    custom: list[tuple[str, str]] = field(default_factory=list)


def _natspec(lines: list[str]) -> _Natspec:
    """A NatSpec comment's lines read into its tags: text before any tag the notice."""
    tags: list[tuple[str, list[str]]] = [("", [])]  # the untagged text: a notice
    for line in lines:
        m = _TAG.match(line.strip())
        if m is not None:
            tags.append((m.group(1), [line.strip()[m.end() :].strip()]))
        else:
            tags[-1][1].append(line)
    out = _Natspec()
    for name, text in tags:
        if name in ("", "notice", "dev"):  # the lines after a tag's own stand apart from it
            said = _markdown([text[0], *_dedent(text[1:])] if name else text)
            if said:
                (out.dev if name == "dev" else out.notice).append(said)
            continue
        one = _inline(_labels(" ".join(" ".join(text).split())))
        if name == "title":
            out.title = " ".join(x for x in (out.title, one) if x)
        elif name == "param":
            word, _, rest = one.partition(" ")
            if word:
                out.params.append((word, rest.strip()))
        elif name == "return":
            if one:
                out.returns.append(one)
        elif name == "inheritdoc":
            out.inheritdoc = one.split(" ")[0]
        elif name.startswith("custom:"):
            out.custom.append((name[7:], one))
        # @author: dropped
    return out


def _inherited(own: _Natspec, base: _Natspec) -> _Natspec:
    """A member's doc with what its base's doc says where it says nothing itself."""
    said = dict(own.params)
    listed = {n for n, _ in base.params}
    params = [(n, said.get(n, t)) for n, t in base.params]
    params += [(n, t) for n, t in own.params if n not in listed]
    return _Natspec(
        own.title or base.title,
        own.notice or base.notice,
        own.dev or base.dev,
        params,
        own.returns or base.returns,
        "",
        own.custom or base.custom,
    )


# ----------------------------------------------------------------------------- markup
_FENCE = re.compile(r"\s*(```|~~~)")
# a label may run over a line break: `https://x[How\nto implement]`
_XREF_LABEL = re.compile(r"\{xref-[^{}\s]*\}\[([^\]]*)\]|xref:[^\s\[\]]*\[([^\]]*)\]")
_LINK = re.compile(r"(https?://[^\s\[\]]+)\[([^\]]*)\]")
_REF = re.compile(r"\{([A-Za-z_$][\w$.]*(?:-[\w$.]*)*)\}")
_HEADING = re.compile(r"(={2,6})\s+(\S.*)$")


def _ref(ref: str) -> str:
    """A docgen cross reference as code: `IERC20-transfer` -> `IERC20.transfer`,
    `functionCall-address-bytes-` -> `functionCall(address,bytes)`."""
    parts = ref.rstrip("-").split("-")
    head = parts[0]
    if len(parts) == 1:
        return head
    if head[:1].isupper():  # a contract's member; a bare member's name starts lowercase
        head, rest = f"{head}.{parts[1]}", parts[2:]
    else:
        rest = parts[1:]
    types: list[str] = []
    k = 0
    while k < len(rest):
        if rest[k] in ("struct", "enum", "contract") and k + 2 < len(rest):
            types.append(f"{rest[k + 1]}.{rest[k + 2]}")  # `struct-Lib-Name`
            k += 3
        else:
            types.append(rest[k])
            k += 1
    return f"{head}({','.join(t for t in types if t)})" if types else head


def _labels(text: str) -> str:
    """Labelled links as Markdown: docgen's `{xref-...}[label]` and `xref:page[label]` their
    label, `https://url[label]` a `[label](https://url)` link."""

    def label(m: re.Match[str]) -> str:
        return " ".join((m.group(1) if m.group(1) is not None else m.group(2)).split())

    def link(m: re.Match[str]) -> str:
        said = " ".join(m.group(2).split())
        return f"[{said}]({m.group(1)})" if said else m.group(1)

    return _LINK.sub(link, _XREF_LABEL.sub(label, text))


def _inline(line: str) -> str:
    """A line's `{Name-member}` cross references as code spans; code spans kept."""
    parts = re.split(r"(`[^`\n]*`)", line)
    for k in range(0, len(parts), 2):
        parts[k] = _REF.sub(lambda m: f"`{_ref(m.group(1))}`", parts[k])
    return "".join(parts)


def _markdown(lines: list[str]) -> str:
    """A notice's or dev note's lines as Markdown: fenced code kept as written; outside
    it, docgen's markup read, AsciiDoc headings made Markdown's and lone `====`
    delimiters dropped."""
    out: list[str] = []
    prose: list[str] = []
    fence = ""

    def flush() -> None:
        for line in _labels("\n".join(prose)).split("\n") if prose else []:
            s = line.strip()
            h = _HEADING.match(s)
            if h is not None:
                out.append("#" * len(h.group(1)) + " " + _inline(h.group(2)))
            elif not re.fullmatch(r"={4,}", s):
                out.append(_inline(line))
        prose.clear()

    for line in _dedent(lines):
        if fence:
            out.append(line)
            if line.strip().startswith(fence):
                fence = ""
            continue
        m = _FENCE.match(line)
        if m is not None:
            flush()
            fence = m.group(1)
            out.append(line)
            continue
        prose.append(line)
    flush()
    return re.sub(r"\n{3,}", "\n\n", "\n".join(out)).strip()


# ----------------------------------------------------------------------------- declarations
_ID = r"[A-Za-z_$][\w$]*"
_SKIPPED = re.compile(r"(?:pragma|import|using)\b")
_CONTRACT = re.compile(rf"(?:abstract\s+)?(contract|interface|library)\s+({_ID})")
_FUNCTION = re.compile(rf"function\b\s*({_ID})?\s*\(|(constructor|fallback|receive)\s*\(")
_NAMED = re.compile(rf"(modifier|event|error|struct|enum)\s+({_ID})")
_TYPE = re.compile(rf"type\s+({_ID})\s+is\b")
_STOP = re.compile(r"[(\[{;]")
_NONSPACE = re.compile(r"\S")
# a comment that speaks to a linter or formatter, not to a reader
_DIRECTIVE = re.compile(
    r"//\s*(?:solhint-|slither-|forge-?lint|forgefmt|forge-fmt|prettier-ignore|cspell|codespell)"
)
_WORD = re.compile(_ID)
_LOCATIONS = frozenset({"memory", "storage", "calldata", "indexed"})
_NOT_A_NAME = frozenset(
    {
        "memory", "storage", "calldata", "indexed", "payable", "public", "private",
        "internal", "external", "constant", "immutable", "override", "transient",
    }
)  # fmt: skip


@dataclass
class _Decl:
    """A declaration the walk found: its kind, name, head line, parameters (type, name),
    return names, a struct's members or an enum's values, a contract's bases and members,
    its NatSpec comment, where it stands; `qual` set when it is named."""

    kind: str
    name: str
    head: str
    at: int
    doc: _Comment | None
    params: list[tuple[str, str]] = field(default_factory=list)
    returns: list[str] = field(default_factory=list)
    fields: list[tuple[str, str]] = field(default_factory=list)
    bases: list[str] = field(default_factory=list)
    members: list[_Decl] = field(default_factory=list)
    qual: str = ""
    spec: _Natspec | None = None

    def types(self) -> tuple[str, ...]:
        return tuple(t for t, _ in self.params)


class _File:
    """A scanned file and the declarations it holds (contracts with their members)."""

    def __init__(self, f: SourceFile) -> None:
        self.f = f
        text = f.text.replace("\r\n", "\n")
        self.text = text
        self.code, self.bare, comments = _scan(text)
        self.comments = comments
        self.ends = [c.end for c in comments]
        self.newlines = [m.start() for m in re.finditer("\n", text)]
        self.match = _brackets(self.code)
        self.stem = f.rel.name[: -len(".sol")] if f.rel.name.endswith(".sol") else f.rel.stem
        self.decls = self._walk(0, len(self.code), False)
        _name(self.decls, self.stem)
        self.contracts = [d for d in self.decls if d.kind in ("contract", "interface", "library")]

    def line(self, at: int) -> int:
        return bisect_right(self.newlines, at - 1) + 1

    def doc_before(self, at: int) -> _Comment | None:
        """The NatSpec comment right over the code at `at`: the last comment before it,
        when nothing but space stands between them and it is NatSpec. A linter's
        directive between them (`// slither-disable-next-line ...`) is passed over: it
        speaks to a tool, and solc keeps the doc over it too."""
        k = bisect_right(self.ends, at) - 1
        while k >= 0 and not self.code[self.comments[k].end : at].strip():
            c = self.comments[k]
            if c.doc:
                return self._joined(k)
            if not _DIRECTIVE.match(self.text, c.start):
                return None
            at = c.start
            k -= 1
        return None

    def _joined(self, k: int) -> _Comment:
        """The NatSpec comment k with those on the lines right above it (no blank line
        between): a `/** @dev ... */` over a `/// @custom:...` line is one doc."""
        c = self.comments[k]
        lines = c.lines
        start = c.start
        while k > 0:
            p = self.comments[k - 1]
            between = self.text[p.end : start]
            if not p.doc or between.strip() or between.count("\n") != 1:
                break
            lines = [*p.lines, *lines]
            start = p.start
            k -= 1
        return c if start == c.start else _Comment(start, c.end, True, lines)

    def flat(self, a: int, b: int) -> str:
        """The text from a to b on one line: comments gone, space collapsed, none inside
        brackets' edges."""
        s = " ".join(self.bare[a:b].split())
        return re.sub(r"\s+([)\]])", r"\1", re.sub(r"([(\[])\s+", r"\1", s))

    def close(self, k: int, end: int) -> int:
        return min(self.match.get(k, end), end)

    # ------------------------------------------------------------------ the walk
    def _statements(self, a: int, b: int) -> list[tuple[int, int, int]]:
        """The statements from a to b: (start, where its head ends at its `{` or `;`,
        past its end)."""
        code = self.code
        out: list[tuple[int, int, int]] = []
        i = a
        while True:
            m = _NONSPACE.search(code, i, b)
            if m is None:
                return out
            i = m.start()
            if _SKIPPED.match(code, i):  # `import {A} from "a";`, `using {f as +} for T;`
                semi = code.find(";", i, b)
                i = b if semi < 0 else semi + 1
                continue
            if code[i] in ")]}":  # a stray closer: nothing starts there
                i += 1
                continue
            j = i
            while True:
                s = _STOP.search(code, j, b)
                if s is None:
                    out.append((i, b, b))
                    return out
                j = s.start()
                ch = code[j]
                if ch in "([":
                    j = self.close(j, b)
                    continue
                end = self.close(j, b) if ch == "{" else j + 1
                out.append((i, j, end))
                i = max(end, j + 1)
                break

    def _walk(self, a: int, b: int, inside: bool) -> list[_Decl]:
        """The declarations from a to b: in a contract's body when `inside`."""
        out: list[_Decl] = []
        for start, head_end, end in self._statements(a, b):
            d = self._declaration(start, head_end, end, inside)
            if d is not None:
                out.append(d)
        return out

    def _declaration(self, i: int, h: int, end: int, inside: bool) -> _Decl | None:
        code = self.code
        block = h < end and code[h] == "{"
        doc = self.doc_before(i)
        head = self.flat(i, h)
        m = _CONTRACT.match(code, i)
        if m is not None:
            d = _Decl(m.group(1), m.group(2), head, i, doc, bases=self._bases(m.end(), h))
            if block:
                d.members = self._walk(h + 1, max(h + 1, end - 1), True)
            return d
        m = _FUNCTION.match(code, i)
        if m is not None:
            name = m.group(1) or m.group(2) or ""
            if not name and not block and _visible(code[i:h]) != "public":
                return None  # a state variable of a function type
            if re.search(r"\bprivate\b", self._top_words(m.end() - 1, h)):
                return None
            paren = m.end() - 1
            close = self.close(paren, h)
            d = _Decl("function", name or "fallback", head, i, doc)
            d.params = self._params(paren, close)
            r = re.compile(r"\breturns\s*\(").search(code, close, h)
            if r is not None:
                d.returns = [n for _, n in self._params(r.end() - 1, self.close(r.end() - 1, h))]
            return d
        m = _NAMED.match(code, i)
        if m is not None:
            kind, name = m.group(1), m.group(2)
            d = _Decl(kind, name, head, i, doc)
            paren = code.find("(", m.end(), h)
            if kind in ("modifier", "event", "error") and paren >= 0:
                d.params = self._params(paren, self.close(paren, h))
            if kind == "struct" and block:
                d.fields = self._members(h + 1, end - 1)
            if kind == "enum" and block:
                values = self.code[h + 1 : max(h + 1, end - 1)].split(",")
                d.fields = [("", v.strip()) for v in values if _WORD.fullmatch(v.strip())]
            if kind in ("event", "error") and block:
                return None  # not a declaration Solidity knows
            return d
        m = _TYPE.match(code, i)
        if m is not None:
            return _Decl("type", m.group(1), head, i, doc)
        if block:
            return None
        return self._variable(i, h, doc, inside)

    def _variable(self, i: int, h: int, doc: _Comment | None, inside: bool) -> _Decl | None:
        """A state variable: a contract's public one, a file-level constant."""
        code = self.code
        eq = h
        j = i
        while j < h:  # the top-level `=` (a mapping's `=>` is in parentheses)
            ch = code[j]
            if ch in "([":
                j = self.close(j, h)
                continue
            if ch == "=" and code[j + 1 : j + 2] not in ("=", ">") and code[j - 1] not in "=!<>":
                eq = j
                break
            j += 1
        words = self._top_words(i, eq)
        names = _WORD.findall(words)
        if len(names) < 2 or names[-1] in _NOT_A_NAME:
            return None
        if inside and "public" not in names and "external" not in names:
            return None
        if not inside and "constant" not in names:
            return None
        return _Decl("variable", names[-1], self.flat(i, eq), i, doc)

    def _top_words(self, a: int, b: int) -> str:
        """The code from a to b with what stands in brackets left out."""
        out: list[str] = []
        j = a
        while j < b:
            s = _STOP.search(self.code, j, b)
            if s is None:
                out.append(self.code[j:b])
                break
            out.append(self.code[j : s.start()])
            j = self.close(s.start(), b) if self.code[s.start()] in "([{" else s.start() + 1
            out.append(" ")
        return "".join(out)

    def _bases(self, a: int, h: int) -> list[str]:
        """A contract's bases after its `is`: their names, constructor arguments off."""
        m = re.compile(r"\bis\b").search(self.code, a, h)
        if m is None:
            return []
        names = [
            re.match(rf"\s*({_ID}(?:\s*\.\s*{_ID})*)", p)
            for p in _split(self._top_words(m.end(), h))
        ]
        return [re.sub(r"\s+", "", x.group(1)) for x in names if x is not None]

    def _params(self, paren: int, close: int) -> list[tuple[str, str]]:
        """The (type, name) of each parameter between the brackets at paren and close."""
        inner = self.code[paren + 1 : max(paren + 1, close - 1)]
        return [_param(p) for p in _split_brackets(inner)]

    def _members(self, a: int, b: int) -> list[tuple[str, str]]:
        """A struct's members: (type, name) each."""
        out: list[tuple[str, str]] = []
        for part in self.code[a : max(a, b)].split(";"):
            if part.strip():
                out.append(_param(part))
        return out


def _visible(head: str) -> str:
    m = re.search(r"\b(public|external|internal|private)\b", head)
    return m.group(1) if m is not None else ""


def _split(text: str) -> list[str]:
    return [p for p in text.split(",") if p.strip()]


def _split_brackets(text: str) -> list[str]:
    """`text` split at the commas outside brackets."""
    parts: list[str] = []
    depth = last = 0
    for k, ch in enumerate(text):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth <= 0:
            parts.append(text[last:k])
            last = k + 1
    parts.append(text[last:])
    return [p for p in parts if p.strip()]


def _param(text: str) -> tuple[str, str]:
    """(the canonical type, the name) of a parameter or member: `uint256[] memory ids`
    -> ("uint256[]", "ids"); an unnamed one's name "". The type drops data locations,
    `indexed`, `address`'s `payable`; `uint`/`int` are `uint256`/`int256`."""
    flat = " ".join(text.split())
    flat = re.sub(r"\s*=>\s*", "=>", re.sub(r"([(\[.,])\s+", r"\1", flat))
    flat = re.sub(r"\s+([)\],.])", r"\1", flat)
    words = flat.split(" ")
    name = ""
    if len(words) > 1 and _WORD.fullmatch(words[-1]) and words[-1] not in _NOT_A_NAME:
        name = words.pop()
    words = [w for w in words if w not in _LOCATIONS]
    typ = " ".join(words).replace("address payable", "address")
    typ = re.sub(r"\b(u?int)\b(?!\d)", r"\g<1>256", typ)
    return typ.replace(" ", ""), name


# ----------------------------------------------------------------------------- names
def _name(decls: list[_Decl], stem: str) -> None:
    """Each documented declaration's qualified name (an undocumented one's stays ""): a
    contract's by itself, its members through it, a file-level item's through the file's
    stem; a later overload's with its parameter types."""
    top = [d for d in decls if d.kind not in ("contract", "interface", "library")]
    _name_members(top, stem)
    for d in decls:
        if d.kind in ("contract", "interface", "library"):
            d.spec = _natspec(d.doc.lines) if d.doc is not None else None
            d.qual = d.name
            _name_members(d.members, d.name)


def _name_members(members: list[_Decl], owner: str) -> None:
    seen: set[str] = set()
    for d in members:
        if d.doc is None:
            continue
        d.spec = _natspec(d.doc.lines)
        if d.name in seen:
            d.qual = f"{owner}.{d.name}({','.join(d.types())})"
        else:
            d.qual = f"{owner}.{d.name}"
            seen.add(d.name)


class _Index:
    """The contracts of all the files, by name (the first file's in path order), for
    `@inheritdoc`."""

    def __init__(self) -> None:
        self.contracts: dict[str, _Decl] = {}

    def add(self, g: _File) -> None:
        for d in g.contracts:
            self.contracts.setdefault(d.name, d)

    def member(self, base: str, like: _Decl) -> _Decl | None:
        """The documented member of `base` (or of its bases, nearest first) `like` is:
        same name and parameter types, else same name and number of parameters, else
        same name."""
        queue = [base]
        seen: set[str] = set()
        while queue and len(seen) < 64:
            name = queue.pop(0)
            if name in seen:
                continue
            seen.add(name)
            c = self.contracts.get(name.rsplit(".", 1)[-1])
            if c is None:
                continue
            same = [m for m in c.members if m.name == like.name and m.spec is not None]
            for test in (
                lambda m: m.types() == like.types(),
                lambda m: len(m.params) == len(like.params),
                lambda m: True,
            ):
                found = [m for m in same if test(m)]
                if found:
                    return found[0]
            queue.extend(c.bases)
        return None

    def resolve(self, d: _Decl, spec: _Natspec, depth: int = 0) -> tuple[_Natspec, str]:
        """A member's doc with `@inheritdoc` read: (the doc, "" or the `See` line when its
        base is not found)."""
        base = spec.inheritdoc
        if not base:
            return spec, ""
        see = f"See `{base}.{d.name}`."
        found = self.member(base, d) if depth < _MAX_INHERIT else None
        if found is None or found.spec is None or found is d:
            return spec, see
        inherited, missing = self.resolve(found, found.spec, depth + 1)
        if missing or not _has_text(inherited):
            return spec, missing or see
        return _inherited(spec, inherited), ""


def _has_text(spec: _Natspec) -> bool:
    return bool(spec.notice or spec.dev or spec.params or spec.returns or spec.custom)


# ----------------------------------------------------------------------------- documents
def _body(d: _Decl, spec: _Natspec, see: str) -> str:
    """The paragraphs after an item's head line; "" when its doc says nothing."""
    parts = [spec.title, *spec.notice, *spec.dev, see]
    lines: list[str] = []
    if d.kind != "struct":
        lines = [f":param {n}: {t}".rstrip() for n, t in spec.params]
    for r in spec.returns:
        word, _, rest = r.partition(" ")
        named = word in d.returns and rest.strip()
        lines.append(f":returns: {word} - {rest.strip()}" if named else f":returns: {r}")
    parts.append("\n".join(lines))
    parts.append("\n".join(f"Custom {k}: {t}" if t else f"Custom {k}." for k, t in spec.custom))
    body = "\n\n".join(x for x in parts if x)
    if not body and not (d.kind == "struct" and spec.params):
        return ""
    if d.kind == "struct" and d.fields:
        said = dict(spec.params)
        rows = [
            f"- {n} ({t}): {said[n]}" if said.get(n) else f"- {n} ({t})" for t, n in d.fields if n
        ]
        body = "\n\n".join(x for x in (body, "Fields:\n" + "\n".join(rows)) if x)
    if d.kind == "enum" and d.fields:
        body += "\n\nValues: " + ", ".join(n for _, n in d.fields)
    if d.bases:
        body += "\n\nInherits: " + ", ".join(d.bases)
    return body


def _documents_of(g: _File, source: str, index: _Index, decls: list[_Decl]) -> list[Document]:
    out: list[Document] = []
    for d in decls:
        if d.spec is not None and d.qual:
            spec, see = index.resolve(d, d.spec)
            body = _body(d, spec, see)
            if body:
                out.append(
                    api_document(
                        source,
                        URI_PREFIX,
                        g.f,
                        d.qual,
                        f"{d.head}\n\n{body}",
                        d.kind,
                        d.head,
                        g.line(d.at),
                        language="solidity",
                    )
                )
        if d.members:
            out.extend(_documents_of(g, source, index, d.members))
    return out


def _file_documents(g: _File, source: str, index: _Index) -> list[Document]:
    """The documents of one file, in the order its items stand; of a name given twice,
    the first."""
    seen: set[str] = set()
    out: list[Document] = []
    for doc in _documents_of(g, source, index, g.decls):
        if doc.uri not in seen:
            seen.add(doc.uri)
            out.append(doc)
    return out
