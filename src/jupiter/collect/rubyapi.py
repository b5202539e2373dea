"""Ruby files read as their library's API, as YARD and RDoc read them: one document per
public module, class, method, attribute (`attr_reader`, `attr_writer`, `attr_accessor`,
each name its own) and constant that has a doc comment (the `#` lines over it; as YARD
does, one blank line may stand between them), and one per method or attribute a YARD
directive declares (`@!method`, `@!attribute`). The uri is Ruby's own notation:
`ruby:Rack::Request` for a module or class, `ruby:Rack::Request#get_header` for an
instance method, `ruby:Rack::Utils.escape` for a class method (`def self.x`, a
`class << self` block's, a `module_function`'s), `ruby:Rack::VERSION` for a constant. The
text is the form the question templates read for Python's docstrings: `name(params)` (the
parameters as written) over the comment, YARD's tags made fields and lines (`@param` a
`:param x:` line with its type, `@option` an item under it, `@return` `:returns:`,
`@raise` `:raises X:`, `@example` a fenced block), RDoc's markup made Markdown (`+code+`
and `<tt>` as code, `=== Heading` a heading, an indented block a fenced one, a labelled
list under a Parameters heading `:param` lines), a constant's value when short.

The files are scanned, never run: comments (`=begin`/`=end` blocks too), strings with their
`#{}` interpolation, `%q()`/`%w[]`/`%r{}` literals with any delimiter, heredocs, regexp,
character and symbol literals are told apart from code, so a `def`, `class` or `end` in a
string, heredoc or comment changes nothing; blocks are matched to their `end`
(`if`/`unless`/`while`/`until` as a modifier open none, an endless `def x = 1` none).
Private and protected methods and attributes (a `private` section, `private def x`,
`private :x`, `private_class_method`, `private_constant`) are not the API, nor is anything marked
`:nodoc:` (`:nodoc: all` a namespace's whole content), `@api private`, `@private` or
`@!visibility private`, or between `:stopdoc:` and `:startdoc:`; methods defined inside
other methods and blocks (`included do`, `class_eval`) are not read, nor are top-level
methods or singleton methods of a local object (`def obj.x`). Magic comments
(`# frozen_string_literal: true`, `# -*- coding`), rubocop directives, TODO notes and a file's
header (a license, or a comment set off by a blank line over the first code) are no doc.
Tests (`test/`, `tests/`, `spec/`, `*_test.rb`, `*_spec.rb`, `test_*.rb`) give no document
and are counted, and so is a file with nothing documented. The same name documented in two
files (a class reopened) is one document: the one in the file its namespace's name points to
(`Rack::Request` from rack/request.rb), else the first file's in path order.
"""

from __future__ import annotations

import re
import textwrap
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from jupiter.collect.codescan import closing
from jupiter.collect.result import CollectResult, SourceFile
from jupiter.collect.result import count as _count
from jupiter.records import Document

SUFFIXES = (".rb",)
URI_PREFIX = "ruby:"
# reasons a Ruby file gave no document, as the collect stage counts them
RUBY_TEST = "ruby_test"
RUBY_NO_API = "ruby_no_api"
_AS_TEXT = (
    "Ruby files read as their API (doc comments of public modules, classes, methods, "
    "attributes and constants): tests and files with nothing documented give none; the "
    "source's ruby: text reads them as text"
)
FIXES = {RUBY_TEST: _AS_TEXT, RUBY_NO_API: _AS_TEXT}
_TEST_DIRS = {"test", "tests", "spec"}
_TEST_NAME = re.compile(r"(?:_test|_spec)\.rb$|^test_\w*\.rb$")
_MAX_VALUE = 80  # characters of a constant's value shown

RubyFile = SourceFile  # its files, as the source hands them over


def is_ruby(name: str) -> bool:
    return name.lower().endswith(SUFFIXES)


def is_test(rel: PurePosixPath) -> bool:
    return bool(_TEST_DIRS & set(rel.parts[:-1])) or bool(_TEST_NAME.search(rel.name))


def api_documents(
    files: list[RubyFile], source: str, rejects: CollectResult | None = None
) -> list[Document]:
    """Documents for the documented public API the files define, sorted by uri; a file that
    gives none is counted in `rejects`. A name documented in two files is one document: the
    one from the file its namespace's name points to (`Rack::Request` rack/request.rb), else
    the first file's in path order."""
    docs: dict[str, tuple[Document, bool]] = {}
    for f in sorted(files, key=lambda f: f.rel):
        if is_test(f.rel):
            _count(rejects, RUBY_TEST, f.where)
            continue
        got = list(file_documents(f, source))
        stem = f.rel.with_suffix("").as_posix()
        for doc in got:
            home = f"/{stem}".endswith(f"/{_home(doc)}")
            if doc.uri not in docs or (home and not docs[doc.uri][1]):
                docs[doc.uri] = (doc, home)
        if not got:
            _count(rejects, RUBY_NO_API, f.where)
    return [docs[uri][0] for uri in sorted(docs)]


def _home(doc: Document) -> str:
    """The file a name's namespace lives in by Ruby's convention (`Rack::MockRequest#get`:
    rack/mock_request), whose doc is the one kept when a reopened class is documented in
    two files."""
    ns = re.split(r"[#.]", doc.meta["qualname"])[0]
    if doc.meta["kind"] == "constant":
        ns = ns.rpartition("::")[0]
    snake = [
        re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", p) for p in ns.split("::")
    ]
    return "/".join(snake).lower()


# ----------------------------------------------------------------------------- scanning
@dataclass
class _Comment:
    start: int
    end: int
    text: str  # after its `#`
    own: bool  # alone on its line (no code before it)
    block: bool = False  # an =begin/=end block


_VALUE, _OPERATOR, _EITHER = 0, 1, 2  # what may follow: a value, an operator, either
# words after which a value starts (a `/` there opens a regexp, a `<<` a heredoc)
_VALUE_WORDS = frozenset(
    "if unless while until and or not return when then else elsif do in case puts print p "
    "raise yield begin ensure rescue break next redo super".split()
)
_SPECIAL = re.compile(r"[\n#\"'`%/?:<$\\{}]")
_DEF_BEFORE = re.compile(r"(?:^|[^\w.:@$])def\s+(?:[\w:]+\s*\.\s*)?$")
_PERCENT = re.compile(r"%([qQwWiIrsx]?)([^\w\s])")
_CHAR = re.compile(r"\?(?:\\(?:u\{[^}\n]*\}|u[0-9a-fA-F]{4}|[MC]-(?:\\.|.)|c.|.)|[^\s\\])(?!\w)")
_SYMBOL_NAME = re.compile(
    r"(?:@@?|\$)?[A-Za-z_\x80-\U0010ffff][\w\x80-\U0010ffff]*(?:[?!]|=(?![=~>]))?"
)
_SYMBOL_OP = re.compile(r"\[\]=?|<=>|===?|=~|!=|!~|\*\*|<<|>>|<=|>=|[+\-]@|[-+*/%<>!~^&|`]")
_HEREDOC = re.compile(r"<<([~-]?)(?:([\"'`])([^\"'`\n]*)\2|([A-Za-z_]\w*))")
_REGEXP_LINE = re.compile(r"(?:[^\\/\n]|\\.)*/")
_PAIRS = {"(": ")", "[": "]", "{": "}", "<": ">"}
_MAX_NESTING = 60  # interpolation inside interpolation: deeper is read as text


class _Scanner:
    """Ruby source with its comments and literals blanked (same length, line breaks kept;
    a literal's delimiters kept, so `x = "a" if y` still reads a value before `if`), and
    its comments."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.n = len(text)
        self.out = list(text)
        self.comments: list[_Comment] = []
        self.heredocs: list[tuple[str, bool]] = []  # waiting for the line's end: (id, indented)
        self.nesting = 0

    def run(self) -> str:
        i = self._line_start(0)
        while i < self.n:
            i = self._code(i, False)
            i += 1  # a stray `}` at the top level: past it
        return "".join(self.out)

    def _blank(self, i: int, j: int) -> None:
        j = min(j, self.n)
        if j > i:
            self.out[i:j] = re.sub(r"[^\n]", " ", self.text[i:j])

    # the code: until the text's end, or (nested, inside `#{}`) the `}` that closes it
    def _code(self, i: int, nested: bool) -> int:
        text, n = self.text, self.n
        depth = 0
        while i < n:
            m = _SPECIAL.search(text, i)
            if m is None:
                return n
            i = m.start()
            c = text[i]
            if c == "\n":
                i = self._line_start(i + 1)
            elif c == "#":
                j = text.find("\n", i)
                j = n if j < 0 else j
                own = not text[text.rfind("\n", 0, i) + 1 : i].strip()
                self.comments.append(_Comment(i, j, text[i + 1 : j], own))
                self._blank(i, j)
                i = j
            elif c == "{":
                depth += 1
                i += 1
            elif c == "}":
                if nested and depth == 0:
                    return i
                depth = max(depth - 1, 0)
                i += 1
            elif c == "\\":
                i += 2
            elif c == "$":  # a global: $foo, and the one-character ones ($', $/, $")
                i += 1 + (len(m2.group(0)) if (m2 := re.match(r"\w+", text[i + 1 : i + 64])) else 1)
            elif c in "\"'`":
                if c == "`" and (self._method_name(i) or text[i - 1 : i] in (".", ":")):
                    i += 1
                else:
                    i = self._literal(i + 1, c, "", c != "'")
            elif c == "/":
                i = self._slash(i)
            elif c == "%":
                i = self._percent(i)
            elif c == "?":
                i = self._question(i)
            elif c == ":":
                i = self._colon(i)
            else:  # "<"
                i = self._heredoc(i)
        return n

    def _line_start(self, i: int) -> int:
        """At a line's start: the bodies of the heredocs its predecessor opened, an
        =begin/=end block, `__END__` (the rest is data)."""
        text, n = self.text, self.n
        for ident, indented in self.heredocs:
            k = i
            while k < n:
                e = text.find("\n", k)
                e = n if e < 0 else e
                line = text[k:e].rstrip("\r")
                if (line.strip() if indented else line) == ident:
                    break
                k = e + 1
            e = text.find("\n", k) if k < n else n
            e = n if e < 0 else e
            self._blank(i, e)
            i = min(e + 1, n)
        self.heredocs = []
        while text.startswith("=begin", i) and text[i + 6 : i + 7] in ("", " ", "\t", "\n", "\r"):
            m = re.compile(r"^=end\b[^\n]*", re.M).search(text, i + 6)
            e = n if m is None else m.end()
            self.comments.append(_Comment(i, e, text[i:e], True, True))
            self._blank(i, e)
            i = min(e + 1, n)
        if text.startswith("__END__", i) and text[i + 7 : i + 8] in ("", "\n", "\r"):
            self._blank(i, n)
            return n
        return i

    def _literal(self, j: int, close: str, open_: str, interp: bool) -> int:
        """Past the literal whose content starts at `j`, its content blanked."""
        text = self.text
        pattern = _delimiters(close, open_, interp and self.nesting < _MAX_NESTING)
        depth = 0
        k = j
        while True:
            m = pattern.search(text, k)
            if m is None:
                self._blank(j, self.n)
                return self.n
            k = m.start()
            c = text[k]
            if c == "\\":
                k += 2
            elif c == "#":
                if text.startswith("#{", k):
                    self.nesting += 1
                    k = self._code(k + 2, True) + 1
                    self.nesting -= 1
                else:
                    k += 1
            elif open_ and c == open_:
                depth += 1
                k += 1
            elif depth:
                depth -= 1
                k += 1
            else:
                self._blank(j, k)
                return k + 1

    def _before(self, i: int) -> int:
        """What may stand at `i`, by what comes before it on its line: a value (after an
        operator, an opening bracket, a keyword, at the line's start), an operator (after a
        value), or either (after a name and a space: `puts /x/`, `a / b`)."""
        text = self.text
        k = i - 1
        while k >= 0 and text[k] in " \t":
            k -= 1
        if k < 0 or text[k] == "\n":
            return _VALUE
        c = text[k]
        if c in "?!" and k and _word(text[k - 1]):
            k -= 1
            c = text[k]
        if _word(c):
            s = k
            while s > 0 and _word(text[s - 1]):
                s -= 1
            word = text[s:i].strip().rstrip("?!")
            if word in _VALUE_WORDS:
                return _VALUE
            if (
                word[:1].isdigit()
                or text[s - 1 : s] in ("@", "$")
                or (text[s - 1 : s] == ":" and text[s - 2 : s] != "::")
            ):
                return _OPERATOR
            return _OPERATOR if k == i - 1 else _EITHER
        return _OPERATOR if c in ")]}\"'`" else _VALUE

    def _method_name(self, i: int) -> bool:
        """Whether the operator at `i` is a method's name (`def /(other)`, `def self.%(x)`)."""
        return _DEF_BEFORE.search(self.text, _recent(self.text, i), i) is not None

    def _slash(self, i: int) -> int:
        text = self.text
        if self._method_name(i):
            return i + 1
        state = self._before(i)
        if state == _OPERATOR or (state == _EITHER and text[i + 1 : i + 2] in (" ", "=", "\t")):
            return i + 1
        if state == _EITHER and _REGEXP_LINE.match(text, i + 1) is None:
            return i + 1  # a regexp after a name closes on its line; else a division
        j = self._literal(i + 1, "/", "", True)
        m = re.compile(r"[a-z]*").match(text, j)
        return m.end() if m else j

    def _percent(self, i: int) -> int:
        text = self.text
        m = _PERCENT.match(text, i)
        if m is None or self._method_name(i):
            return i + 1
        state = self._before(i)
        kind, d = m.group(1), m.group(2)
        if state == _OPERATOR or (state == _EITHER and (text[i + 1] in " =" or d == "=")):
            return i + 1
        close = _PAIRS.get(d, d)
        j = self._literal(
            m.end(), close, d if close != d else "", kind in ("", "Q", "W", "I", "r", "x")
        )
        if kind == "r":
            f = re.compile(r"[a-z]*").match(text, j)
            return f.end() if f else j
        return j

    def _question(self, i: int) -> int:
        text = self.text
        if i and _word(text[i - 1]):
            return i + 1  # a method's name: empty?
        state = self._before(i)
        m = _CHAR.match(text, i)
        if m is None or state == _OPERATOR:
            return i + 1
        self._blank(i + 1, m.end())
        return m.end()

    def _colon(self, i: int) -> int:
        text = self.text
        if text.startswith("::", i):
            return i + 2
        prev = text[i - 1 : i]
        if prev and (_word(prev) or prev in ")]}\"'`?!"):
            return i + 1  # a label (`key: 1`, `"key": 1`) or a ternary's
        nxt = text[i + 1 : i + 2]
        if nxt in ('"', "'"):
            return self._literal(i + 2, nxt, "", nxt == '"')
        m = _SYMBOL_NAME.match(text, i + 1)
        if m is not None:
            return m.end()  # the name stays: `:end` is no keyword (the walker sees the colon)
        m = _SYMBOL_OP.match(text, i + 1)
        if m is not None and self._before(i) != _OPERATOR:
            self._blank(i + 1, m.end())
            return m.end()
        return i + 1

    def _heredoc(self, i: int) -> int:
        text = self.text
        if not text.startswith("<<", i):
            return i + 1
        m = _HEREDOC.match(text, i)
        if m is None:
            return i + 2
        state = self._before(i)
        ident = m.group(3) if m.group(2) else m.group(4)
        if state == _OPERATOR:
            return i + 2
        if state == _EITHER:
            after_class = re.search(r"\bclass\s*$", text[_recent(text, i) : i]) is not None
            if after_class or not (m.group(1) or m.group(2) or ident[:1].isupper()):
                return i + 2
        self.heredocs.append((ident, bool(m.group(1))))
        return m.end()


def _recent(text: str, i: int, back: int = 200) -> int:
    """Where the line of `i` starts, or `back` characters before `i` on a longer line (what
    is looked back at stays short: a minified line scans in linear time)."""
    return text.rfind("\n", max(0, i - back), i) + 1 or max(0, i - back)


def _word(c: str) -> bool:
    return c.isalnum() or c == "_" or c > "\x7f"


_DELIMITERS: dict[tuple[str, str, bool], re.Pattern[str]] = {}


def _delimiters(close: str, open_: str, interp: bool) -> re.Pattern[str]:
    key = (close, open_, interp)
    if key not in _DELIMITERS:
        chars = (
            "\\\\"
            + re.escape(close)
            + (re.escape(open_) if open_ else "")
            + ("#" if interp else "")
        )
        _DELIMITERS[key] = re.compile(f"[{chars}]")
    return _DELIMITERS[key]


def scan(text: str) -> tuple[str, list[_Comment]]:
    """(the code with comments and literals blanked, same length; the comments)."""
    s = _Scanner(text)
    code = s.run()
    return code, s.comments


# ----------------------------------------------------------------------------- doc text
_MAGIC = re.compile(
    r"^\s*(?:-\*-.*-\*-|(?:frozen_string_literal|warn_indent|warn_past_scope)\s*:\s*(?:true|false)"
    r"|(?:en)?coding\s*[:=]\s*[\w.-]+|typed:\s*(?:ignore|false|true|strict|strong)"
    r"|shareable_constant_value:\s*\w+|(?:rubocop|standard|steep|reek|sorbet)\s*:.*"
    r"|:(?:nocov|stopdoc|startdoc|enddoc|doc|title|main|include|section|category|"
    r"markup)\b.*|!/.*|vim?:.*|@!(?:group|endgroup)\b.*)\s*$",
    re.I,
)
_NOTE = re.compile(r"^\s*(?:TODO|FIXME|XXX|HACK|OPTIMIZE)\b")
_NOTE_LINE = "\0note"
_NODOC = re.compile(r"^\s*:nodoc:(?P<all>\s*all\b)?", re.I)
_LICENSE = re.compile(r"copyright|\blicen[cs]e|all rights reserved|\(c\)\s*\d", re.I)
_TAG = re.compile(r"^@(?P<tag>!?[a-z_]+)\b(?P<rest>.*)$")
_KNOWN_TAGS = frozenset(
    """param option return returns raise raises yield yieldparam yieldreturn example
    deprecated see since note abstract todo api private author version overload attr
    attr_reader attr_writer !method !attribute !scope !visibility !group !endgroup !macro
    !parse !domain""".split()
)
# tags whose text may go on at the comment's margin on the lines after them
_TEXT_TAGS = frozenset(
    "param option return returns raise raises yield yieldparam yieldreturn deprecated see "
    "since note abstract todo attr attr_reader attr_writer".split()
)
_HEADING = re.compile(r"^(?P<marks>={1,6})\s*(?P<title>[^=\s>~].*?)\s*=*\s*$")
_LABEL = re.compile(
    r"^(?P<term><tt>[^<]{1,60}</tt>|\+[^+\s]{1,60}\+|:\w+[?!]?|[^\s:][^:]{0,60}?)\s*::"
    r"(?:\s+(?P<desc>.*)|\s*$)"
)
_BRACKET_LABEL = re.compile(r"^\[(?P<term>[^\]\s][^\]]{0,40})\]\s+(?P<desc>\S.*)$")
_PARAM_TERM = re.compile(r"^(?P<name>[*&]{0,2}[a-z_]\w*[?!]?)\s*(?:<(?P<t1>.+)>|\((?P<t2>.+)\))?$")
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d{1,3}[.)])\s+\S")
_FENCE = re.compile(r"^\s*(```|~~~)")
_PARAM_SECTIONS = {"parameters", "params", "arguments", "args"}
_PARAM_LINE = re.compile(r"^[*&]{0,2}(?P<name>[a-z_]\w*)<(?P<types>[^>]+)>(?::\s*(?P<desc>\S.*))?$")
_EXAMPLE_SECTIONS = {"example", "examples", "usage"}
_SYMBOL_ITEM = re.compile(r"^(?P<key>:[\w?!]+)\s+-{1,2}\s+(?P<desc>\S.*)$")
# a line of code at the margin: a call (`ask("x")`, `copy_file "a", "b"`), an assignment
_CODE_LINE = re.compile(r"^[\w.:@$]+[?!]?(?:\(|[ \t]+[\"':\d\[{]|[ \t]*=[ \t]|\.\w)")
_RETURN_SECTIONS = {"returns", "return", "return value"}
_INLINE = [
    (re.compile(r"<(tt|code)>(.*?)</\1>", re.I), r"`\2`"),
    (re.compile(r"</?(?:b|i|em|strong)>", re.I), ""),
    (re.compile(r"(?<![\w+`])\+([\w.:#?!=@$/\[\]<>~-]+?)\+(?![\w+])"), r"`\1`"),
    (re.compile(r"(?<![\w*`])\*([A-Za-z0-9][\w.:#?!=-]*?)\*(?![\w*])"), r"\1"),
    (re.compile(r"(?<![\w_`])_([A-Za-z0-9][\w.:#?!=-]*?)_(?![\w_])"), r"\1"),
    # RDoc links: {text}[url], word[url]
    (re.compile(r"\{([^{}\n]+)\}\[(?:https?|rdoc-ref|link):[^\]\s]+\]"), r"\1"),
    (re.compile(r"(\w+)\[(?:https?|rdoc-ref|link):[^\]\s]+\]"), r"\1"),
]
# YARD links: {Foo::Bar}, {#method}, {.method title}, {http://x title}
_YARD_LINK = re.compile(
    r"\{(?P<ref>(?:[A-Z]\w*(?:::[A-Z]\w*)*)?(?:[#.][\w\[\]=?!<>+*/%~^&|-]+)?|https?://[^\s}]+)"
    r"(?:\s+(?P<title>[^{}]+))?\}"
)


_Entry = tuple[str, str, str, list[str]]  # ("text", "", "", lines) or ("tag", tag, rest, block)


@dataclass
class _Doc:
    text: str
    hidden: bool = False  # the item is left out (@api private, @private, :nodoc:, ...)
    hides_all: bool = False  # and so is everything inside it (:nodoc: all, @api private)
    quiet: bool = False  # a namespace's own members are left out (RDoc's :nodoc:)
    public: bool = False  # @!visibility public
    class_scope: bool = False  # @!scope class
    directives: list[_Directive] = field(default_factory=list)
    entries: list[_Entry] = field(default_factory=list)  # its own (the directives' out)

    @property
    def value_text(self) -> str:
        """The text for an attribute or a constant, whose @return says what it holds: that
        said as its text, its type a line after it."""
        return _render(self.entries, value=True)


@dataclass
class _Directive:
    kind: str  # "method" or "attribute"
    spec: str  # `name(params)`, or `[rw] name`
    doc: _Doc  # its indented block's, or (none) the text after it up to the next directive


def doc_text(lines: list[str]) -> _Doc:
    """A doc comment's text (its lines after their `#`) as the templates read it, and what
    its tags and RDoc directives say of its item."""
    # the `# ` margin off (`##`, `###` too), then the common indentation
    lines = [x.lstrip("#") for x in lines]
    lines = [x[1:] if x.startswith(" ") else x for x in lines]
    while lines and not lines[0].strip():
        lines = lines[1:]  # RDoc's `##` opening a comment; blank lines
    raw = textwrap.dedent("\n".join(x.rstrip() for x in lines)).split("\n")
    doc = _Doc("")
    kept: list[str] = []
    hiding = False
    for line in raw:
        s = line.strip()
        if s == "--":  # RDoc: text between `--` and `++` is no doc
            hiding = True
            continue
        if s == "++":
            hiding = False
            continue
        if hiding:
            continue
        nd = _NODOC.match(line)
        if nd is not None:
            doc.hidden = True
            doc.quiet = True
            doc.hides_all = doc.hides_all or bool(nd.group("all"))
            continue
        if _MAGIC.match(line):
            continue
        going_on = re.match(r"\s+\S|[a-z]", line)  # a note's next line: indented, or lower case
        if _NOTE.match(line) or (kept and kept[-1] is _NOTE_LINE and going_on):
            kept.append(_NOTE_LINE)  # a TODO: note is for the code's readers
            continue
        kept.append(line)
    kept = [x for x in kept if x is not _NOTE_LINE]
    return _doc_of(_entries(kept), doc)


def _doc_of(entries: list[_Entry], doc: _Doc | None = None) -> _Doc:
    """The doc of a comment's entries: its text, what its tags say of its item, and the
    directives among them, each with its indented block or (none there) the entries that
    follow it up to the next."""
    doc = doc or _Doc("")
    main: list[_Entry] = []
    k = 0
    while k < len(entries):
        kind, tag, rest, block = entries[k]
        k += 1
        if kind == "tag" and tag in ("!method", "!attribute"):
            if block:
                own = _entries(_dedented(block))
            else:
                j = k
                while j < len(entries) and not (
                    entries[j][0] == "tag" and entries[j][1] in ("!method", "!attribute")
                ):
                    j += 1
                own, k = entries[k:j], j
            doc.directives.append(_Directive(tag[1:], rest.strip(), _doc_of(own)))
            continue
        main.append(entries[k - 1])
        if kind != "tag":
            continue
        rest = rest.strip()
        if tag == "private" or (tag == "api" and rest.startswith("private")):
            doc.hidden = doc.hides_all = True
        elif tag == "!visibility":
            doc.hidden = doc.hidden or rest.startswith(("private", "protected"))
            doc.public = rest.startswith("public")
        elif tag == "!scope":
            doc.class_scope = rest.startswith("class")
    doc.text, doc.entries = _render(main), main
    return doc


def _entries(lines: list[str]) -> list[_Entry]:
    """The comment's text runs and tags, in order; a tag's block is the lines indented
    under it (blank lines inside it too)."""
    out: list[_Entry] = []
    text: list[str] = []
    i, n = 0, len(lines)
    while i < n:
        line = lines[i]
        m = _TAG.match(line)
        if m is None or m.group("tag") not in _KNOWN_TAGS:
            text.append(line)
            i += 1
            continue
        if text:
            out.append(("text", "", "", text))
            text = []
        j = i + 1
        block: list[str] = []
        while j < n:
            if lines[j][:1] in (" ", "\t"):
                block.append(lines[j])
                j += 1
                continue
            if not lines[j].strip():
                k = j
                while k < n and not lines[k].strip():
                    k += 1
                if k < n and lines[k][:1] in (" ", "\t"):
                    block.extend(lines[j:k])
                    j = k
                    continue
            elif (
                m.group("tag") in _TEXT_TAGS
                and lines[j - 1].strip()
                and _TAG.match(lines[j]) is None
                and not _HEADING.match(lines[j])
            ):  # a tag's text going on at the margin (`# @param x the\n# rest`)
                block.append(f" {lines[j]}")
                j += 1
                continue
            break
        out.append(("tag", m.group("tag"), m.group("rest"), block))
        i = j
    if text:
        out.append(("text", "", "", text))
    return out


def _dedented(block: list[str]) -> list[str]:
    return textwrap.dedent("\n".join(block)).strip("\n").split("\n") if block else []


def _types(text: str) -> tuple[str, str]:
    """(the types of a leading `[...]`, the rest), brackets inside it counted."""
    s = text.lstrip()
    if not s.startswith("["):
        return "", text.strip()
    close = closing(s, 0, "[]")
    return " ".join(s[1 : close - 1].split()), s[close:].strip()


def _inline(text: str) -> str:
    """RDoc's and YARD's inline markup as Markdown, code spans left alone."""
    parts = re.split(r"(`[^`]*`)", text)
    for k in range(0, len(parts), 2):
        p = parts[k]
        for pattern, repl in _INLINE:
            p = pattern.sub(repl, p)
        p = _YARD_LINK.sub(_yard_link, p)
        parts[k] = p
    return "".join(parts)


def _yard_link(m: re.Match[str]) -> str:
    ref, title = m.group("ref"), m.group("title")
    if not ref:
        return m.group(0)
    if title:
        return title.strip()
    return ref if ref.startswith("http") else f"`{ref}`"


def _tag_text(rest: str, block: list[str]) -> str:
    """A tag's text on one line, but for the list items under it, each kept on its own
    indented line (`@param opts [Hash] keys:` over `* :a - ...` lines)."""
    lines = [rest.strip()]
    for x in block:
        x = re.sub(r"^::\s*", "", x.strip())
        if not x:
            continue
        if _LIST_ITEM.match(x):
            lines.append(f"  {x}")
        else:
            lines[-1] = f"{lines[-1]} {x}".strip()
    return "\n".join(_inline(" ".join(x.split()) if k == 0 else x) for k, x in enumerate(lines))


def _typed(types: str, text: str) -> str:
    """A field's text: its types in parentheses (as code), then what it says."""
    return " ".join(x for x in (f"(`{types}`)" if types else "", text) if x)


# an option's key: a symbol, a quoted string or a name (not the first word of a sentence)
_OPTION_KEY = re.compile(r"""^(?::\w+[?!]?|["'][^"']+["']|[a-z_]\w*)(?:\[[^\]]*\])*$""")


def _option(rest: str, block: list[str]) -> tuple[str, str, str]:
    """(the hash parameter's name, its key, its item line) of `@option opts [Types] :key
    (default) desc`; no key where what stands there is none (`@option name [Type] Desc`:
    an @param written as an @option), the text then the parameter's."""
    text = _tag_text(rest, block)
    name, _, after = text.partition(" ")
    types, after = _types(after)
    key, _, after = after.partition(" ")
    more, after = _types(after)
    types = types or more
    if not _OPTION_KEY.match(key):
        return name.lstrip("*&"), "", _typed(types, f"{key} {after}".strip())
    default = ""
    if after.startswith("("):
        close = closing(after, 0, "()")
        default, after = after[1 : close - 1].strip(), after[close:].strip()
    said = "; ".join(
        x for x in (f"`{types}`" if types else "", f"default `{default}`" if default else "") if x
    )
    line = f"  - `{key}`" + (f" ({said})" if said else "") + (f": {after}" if after else "")
    return name.lstrip("*&"), key, line


def _param(rest: str, block: list[str]) -> tuple[str, str]:
    """(name, field text) of `@param [Types] name desc` or `@param name [Types] desc`."""
    types, after = _types(rest)
    m = re.match(r"[*&]{0,2}(\w+[?!]?)", after)
    if m is None:
        return "", ""
    more, after = _types(after[m.end() :])
    return m.group(1), _typed(types or more, _tag_text(after, block))


_LABELS = {"see": "See also", "since": "Since", "note": "Note"}


def _render(entries: list[_Entry], value: bool = False) -> str:
    """The entries as text: RDoc text runs made Markdown, tags made fields (joined without
    a blank line) and lines; @api, @private, @author, @version, @todo and the directives
    give none."""
    options: dict[str, list[str]] = {}
    params: set[str] = set()
    for _, tag, rest, block in entries:
        if tag == "option":
            name, key, line = _option(rest, block)
            if key:
                options.setdefault(name, []).append(line)
        elif tag == "param":
            params.add(_param(rest, block)[0])
    pieces: list[tuple[str, str]] = []  # (kind, text)
    placed: set[str] = set()
    for kind, tag, rest, block in entries:
        if kind == "text":
            got = _rdoc(block)
            if got.strip():
                pieces.append(("text", got))
            continue
        desc = _tag_text(rest, block)
        types, after = _types(desc)
        field = ""
        if tag in ("param", "option"):
            if tag == "param":
                name, text = _param(rest, block)
            else:
                name, key, text = _option(rest, block)
                if key and (name in params or name in placed):
                    continue
            if name:
                field = f":param {name}: {text}".rstrip()
                if name in options and name not in placed:
                    field += "\n" + "\n".join(options[name])
                placed.add(name)
        elif tag in ("return", "returns") and value:  # an attribute's value: what it holds
            if after:
                pieces.append(("text", after[:1].upper() + after[1:]))
            field = f"Type: `{types}`" if types else ""
        elif tag in ("return", "returns"):
            field = f":returns: {after}" if after else (f":returns: `{types}`" if types else "")
        elif tag in ("raise", "raises"):
            field = f":raises {types}: {after}" if types else f":raises: {after}"
        elif tag == "yield":
            head = f"Yields |{types}|" if types else "Yields"
            field = f"{head}: {after}" if after else f"{head}."
        elif tag in ("yieldparam", "attr", "attr_reader", "attr_writer"):
            name, text = _param(rest, block)
            word = "Block parameter" if tag == "yieldparam" else "Attribute"
            field = (f"{word} {name}: {text}" if text else f"{word} {name}.") if name else ""
        elif tag == "yieldreturn":
            field = f"Block returns: {_typed(types, after)}"
        elif tag in ("deprecated", "abstract"):
            field = f"{tag.capitalize()}: {desc}" if desc else f"{tag.capitalize()}."
        elif tag == "see" and desc:  # a reference (`#pop`, `Foo::Bar`) shown as code
            desc = re.sub(
                r"^([#.][\w\[\]=?!<>+*/%~^&|-]+|[A-Z]\w*(?:(?:::|#|\.)[\w?!=]+)*)(?=\s|$)",
                r"`\1`",
                desc,
            )
            field = f"See also: {desc}"
        elif tag in _LABELS and desc:
            field = f"{_LABELS[tag]}: {desc}"
        elif tag == "example":
            code = _dedented(block)
            while code and not code[-1].strip():
                code.pop()
            title = f"Example: {_inline(rest.strip())}" if rest.strip() else ""
            fenced = "```ruby\n" + "\n".join(x.rstrip() for x in code) + "\n```" if code else ""
            pieces.append(("block", "\n\n".join(x for x in (title, fenced) if x)))
        elif tag == "overload":
            inner = _render(_entries(_dedented(block)))
            pieces.append(
                ("block", f"Overload `{rest.strip()}`:" + (f"\n\n{inner}" if inner else ""))
            )
        if field:
            # a field (`:param x:`) joins the one before it; a line (Yields, See also) is
            # a paragraph of its own, so that no field after it is read as its text
            pieces.append(("field" if field.startswith(":") else "line", field.rstrip()))
    out, last = "", ""
    for kind, text in pieces:
        if out:
            out += "\n" if kind == last == "field" else "\n\n"
        out, last = out + text, kind
    return re.sub(r"\n{3,}", "\n\n", out).strip("\n")


def _rdoc(lines: list[str]) -> str:
    """A run of comment text (its tags taken out) as Markdown: RDoc headings, verbatim
    blocks fenced, labelled lists as items (a Parameters section's as `:param` fields, a
    Returns section's text as `:returns:`), inline markup; Markdown kept as it is."""
    out: list[str] = []
    section = ""
    fence = False
    prev = ""  # the last line that was not blank
    blank_before = True
    i, n = 0, len(lines)
    while i < n:
        line = lines[i].rstrip()
        s = line.strip()
        if _FENCE.match(line):
            fence = not fence
            out.append(s)
            prev, blank_before = s, False
            i += 1
            continue
        if fence:
            out.append(line)
            i += 1
            continue
        if not s:
            out.append("")
            blank_before = True
            i += 1
            continue
        indented = line[:1] in (" ", "\t")
        if s == ":call-seq:":
            j = i + 1
            while j < n and lines[j].strip():
                j += 1
            seq = _dedented(lines[i + 1 : j])
            if seq:
                out += ["", "Call sequence:", "", "```", *seq, "```", ""]
            i, prev, blank_before = j, "", True
            continue
        h = _HEADING.match(line)
        if h is not None and not indented:
            title = _inline(h.group("title"))
            out += ["", f"{'#' * len(h.group('marks'))} {title}", ""]
            section = title.strip("*_` :").lower()
            prev, blank_before = s, True
            i += 1
            continue
        if indented and (blank_before or prev.endswith(":") or not prev):
            j = i
            while j < n:
                if lines[j][:1] in (" ", "\t") and lines[j].strip():
                    j += 1
                    continue
                if not lines[j].strip():
                    k = j
                    while k < n and not lines[k].strip():
                        k += 1
                    if k < n and lines[k][:1] in (" ", "\t"):
                        j = k
                        continue
                break
            block = _dedented(lines[i:j])
            if _LIST_ITEM.match(block[0]) or _LABEL.match(block[0]) and "::" not in block[0][:2]:
                out += [_inline(x) for x in block]  # a list, indented: no code
            else:
                out += ["", "```", *block, "```", ""]
            i, prev, blank_before = j, block[-1], True
            continue
        label = _LABEL.match(line) if not indented else None
        if label is None and not indented and section not in _RETURN_SECTIONS:
            label = _BRACKET_LABEL.match(line)
        if label is not None:
            j = i + 1
            more: list[str] = []
            while j < n and lines[j][:1] in (" ", "\t") and lines[j].strip():
                more.append(re.sub(r"^::\s*", "", lines[j].strip()))
                j += 1
            term = label.group("term").strip()
            desc = " ".join([(label.group("desc") or "").strip(), *more]).strip()
            desc = _inline(re.sub(r"^-{1,2}\s+", "", desc))
            p = _PARAM_TERM.match(term)
            if section in _PARAM_SECTIONS and p is not None:
                types = p.group("t1") or p.group("t2")
                name = p.group("name").lstrip("*&")
                out.append(f":param {name}: {_typed(types or '', desc)}")
            elif section in _RETURN_SECTIONS:
                out.append(f":returns: {_typed(term, desc)}")
            else:
                out.append(f"- {_inline(term)}: {desc}".rstrip(": "))
            i, prev, blank_before = j, s, False
            continue
        o = _SYMBOL_ITEM.match(line)
        if o is not None:  # `:desc  - Description` (thor's option lists): an item
            out.append(f"- {o.group('key')}: {_inline(o.group('desc'))}")
            i, prev, blank_before = i + 1, s, False
            continue
        p = _PARAM_LINE.match(line) if section in _PARAM_SECTIONS else None
        if p is not None:  # `name<Type>` alone, or `name<Type>: text`
            types, desc = p.group("types"), _inline(p.group("desc") or "")
            out.append(f":param {p.group('name')}: {_typed(types, desc)}")
            i, prev, blank_before = i + 1, s, False
            continue
        if section in _EXAMPLE_SECTIONS and blank_before and _CODE_LINE.match(line):
            j = i + 1  # an example's code at the margin (thor's): its paragraphs fenced
            while j < n and (
                lines[j].strip()
                or j + 1 < n
                and _CODE_LINE.match(lines[j + 1])
                and not _HEADING.match(lines[j + 1])
            ):
                j += 1
            out += ["", "```", *_dedented(lines[i:j]), "```", ""]
            i, prev, blank_before = j, "", True
            continue
        if section in _RETURN_SECTIONS and blank_before and not _LIST_ITEM.match(line):
            j = i + 1
            while j < n and lines[j].strip() and not _HEADING.match(lines[j]):
                j += 1
            text = " ".join(x.strip() for x in lines[i:j])
            out.append(f":returns: {_inline(text)}")
            section = ""  # the section's first paragraph says it; the rest is text
            i, prev, blank_before = j, lines[j - 1].strip(), False
            continue
        in_list = bool(out) and bool(out[-1]) and (_LIST_ITEM.match(out[-1]) or out[-1][:1] == " ")
        out.append(_inline(line if in_list and indented else s))
        prev, blank_before = s, False
        i += 1
    text = "\n".join(out)
    return re.sub(r"\n{3,}", "\n\n", text).strip("\n")


# ----------------------------------------------------------------------------- walking
_TOKEN = re.compile(
    r"(?P<open>[{(\[])|(?P<close>[})\]])"
    r"|(?<![\w$@.:])(?P<kw>def|class|module|if|unless|while|until|case|begin|do|for|end"
    r"|private|protected|public|module_function|private_class_method|public_class_method"
    r"|private_constant|attr_reader|attr_writer|attr_accessor|attr|alias_method|alias)"
    r"(?![\w?!]|:[^:])"
    r"|(?<![\w$@.:])(?P<const>[A-Z]\w*)(?=[ \t]*=(?![=~>]))"
)
_OPERATOR_NAME = r"\[\]=?|<=>|===?|=~|!=|!~|\+@|-@|~@?|\*\*|<<|>>|<=|>=|[-+*/%<>!~^&|`]"
_DEF_HEAD = re.compile(
    r"[ \t]+(?:(?P<obj>self|[A-Z]\w*(?:::[A-Z]\w*)*|[a-z_]\w*)[ \t]*\.[ \t]*)?"
    rf"(?P<name>{_OPERATOR_NAME}|[A-Za-z_]\w*(?:[?!]|=(?![=~>]))?)"
)
# a constant path as a class or module statement names it (`::Rack::Utils`, `A :: B`)
_CONST_PATH = r"(?:::)?[A-Z]\w*(?:[ \t]*::[ \t]*[A-Z]\w*)*"
_CLASS_HEAD = re.compile(rf"[ \t]+(?P<name>{_CONST_PATH})" r"(?:[ \t]*<[ \t]*(?P<super>[^\n;]+))?")
_SCLASS_HEAD = re.compile(r"[ \t]*<<[ \t]*(?P<obj>self\b|[A-Z]\w*(?:::[A-Z]\w*)*)?")
_MODULE_HEAD = re.compile(rf"[ \t]+(?P<name>{_CONST_PATH})")
_NAMES = re.compile(r"(?<![:\w]):(?P<a>\w+[?!=]?)|(?P<q>[\"'])(?P<b>\w+[?!=]?)(?P=q)")
_VISIBILITY = ("private", "protected", "public")
# words after which an `if` or a `while` opens a block of its own (`x = if`, `else if`)
_STATEMENT_WORDS = frozenset("then do else begin and or not in when ensure elsif".split())
_NAMESPACES = ("top", "module", "class", "sclass")


@dataclass
class _Frame:
    kind: str  # top, module, class, sclass (namespaces); cond (if, case, ...); opaque; brace
    path: tuple[str, ...] = ()
    vis: str = "public"
    module_function: bool = False
    hidden: bool = False  # everything inside is left out
    quiet: bool = False  # its own members are left out


@dataclass
class _Item:
    path: tuple[str, ...]  # the namespace (a module's or class's own path for one)
    scope: str  # instance, class; "" for a namespace or constant
    name: str
    kind: str
    vis: str
    params: str | None  # as written, None for no parameter list
    doc: str
    at: int
    extra: list[str] = field(default_factory=list)
    alias_of: str = ""

    @property
    def qual(self) -> str:
        ns = "::".join(self.path)
        if self.scope == "instance":
            return f"{ns}#{self.name}"
        if self.scope == "class":
            return f"{ns}.{self.name}"
        return "::".join([*self.path, self.name]) if self.name else ns


@dataclass
class _File:
    source: str
    f: RubyFile
    code: str
    comments: list[_Comment]
    lines: list[int] = field(default_factory=list)  # where each line starts
    own: dict[int, _Comment] = field(default_factory=dict)  # line -> its own-line comment
    trailing: dict[int, str] = field(default_factory=dict)  # line -> a comment after code
    stops: list[tuple[int, bool]] = field(default_factory=list)  # :stopdoc:/:startdoc: lines
    first_code: int = 0  # the line of the first code
    items: list[_Item] = field(default_factory=list)
    vis_over: dict[tuple[tuple[str, ...], str, str], str] = field(default_factory=dict)
    module_functions: set[tuple[tuple[str, ...], str]] = field(default_factory=set)
    private_constants: set[tuple[str, ...]] = field(default_factory=set)
    runs: list[tuple[int, int]] = field(default_factory=list)  # directive comments: lines
    used_runs: set[int] = field(default_factory=set)
    uncommented: str = ""  # the source with its comments blanked (literals kept)

    def __post_init__(self) -> None:
        text = self.f.text
        pieces, last = [], 0
        for c in self.comments:
            pieces += [text[last : c.start], re.sub(r"[^\n]", " ", text[c.start : c.end])]
            last = c.end
        self.uncommented = "".join([*pieces, text[last:]])
        self.lines = [0] + [m.end() for m in re.finditer("\n", text)]
        for c in self.comments:
            line = self.line(c.start)
            if c.block:
                continue
            if c.own:
                self.own[line] = c
                low = c.text.strip().lower()
                if low.startswith((":stopdoc:", ":enddoc:")):
                    self.stops.append((line, True))
                elif low.startswith(":startdoc:"):
                    self.stops.append((line, False))
            else:
                self.trailing[line] = c.text
        m = re.search(r"\S", self.code)
        self.first_code = self.line(m.start()) if m else len(self.lines)
        run: list[int] = []
        for line in sorted(self.own):
            if run and line != run[-1] + 1:
                self._directive_run(run)
                run = []
            run.append(line)
        self._directive_run(run)

    def _directive_run(self, run: list[int]) -> None:
        if run and any(re.match(r"\s*@!(?:method|attribute)\b", self.own[k].text) for k in run):
            self.runs.append((run[0], run[-1]))

    def line(self, at: int) -> int:
        """The 0-based line of a position."""
        return bisect_right(self.lines, at) - 1

    def bare(self, a: int, b: int) -> str:
        """The source between a and b with its comments blanked (literals kept)."""
        return self.uncommented[a:b]

    def doc_lines(self, line: int) -> tuple[int, list[str]]:
        """(its first line, the comment lines) of the doc over the item on `line`: the run
        of own-line comments ending on the line over it, or (as YARD reads) the one over
        that when it is blank."""
        k = line - 1
        gap = k not in self.own and k >= 0 and not self._text_on(k)
        k -= gap
        got: list[str] = []
        while k in self.own:
            got.append(self.own[k].text)
            k -= 1
        got.reverse()
        start = k + 1
        if got and start < self.first_code and (gap or _LICENSE.search("\n".join(got))):
            return start, []  # the file's header (a license, what the file holds)
        return start, got

    def _text_on(self, line: int) -> bool:
        a = self.lines[line]
        b = self.lines[line + 1] if line + 1 < len(self.lines) else len(self.code)
        return bool(self.f.text[a:b].strip())

    def stopped(self, line: int) -> bool:
        state = False
        for at, stop in self.stops:
            if at >= line:
                break
            state = stop
        return state

    def document(self, item: _Item, kind: str, head: str, signature: str) -> Document:
        text = f"{head}\n\n{item.doc}" if item.doc else head
        more = "\n\n".join(x for x in item.extra if x)
        if more:
            text += f"\n\n{more}"
        qual = item.qual
        meta = {
            **self.f.meta,
            "kind": kind,
            "qualname": qual,
            "signature": signature,
            "origin": self.f.where,
            "line": self.line(item.at) + 1,
        }
        return Document(self.source, f"{URI_PREFIX}{qual}", qual, text, meta)


def file_documents(f: RubyFile, source: str) -> Iterator[Document]:
    """The documents of one file, in the order its items stand."""
    code, comments = scan(f.text)
    g = _File(source, f, code, comments)
    _walk(g)
    yield from _documents(g)


class _Stack:
    """The open blocks, each with the namespace a statement in it stands in (None inside a
    method or a block; conditionals and loops between are no obstacle, as YARD reads both
    branches) and the nearest namespace around it."""

    def __init__(self) -> None:
        top = _Frame("top")
        self.frames: list[_Frame] = [top]
        self.levels: list[_Frame | None] = [top]
        self.homes: list[_Frame] = [top]

    def push(self, frame: _Frame) -> None:
        named = frame.kind in _NAMESPACES
        self.frames.append(frame)
        self.homes.append(frame if named else self.homes[-1])
        self.levels.append(frame if named else self.levels[-1] if frame.kind == "cond" else None)

    def pop(self) -> _Frame:
        self.levels.pop()
        self.homes.pop()
        return self.frames.pop()

    def __len__(self) -> int:
        return len(self.frames)

    @property
    def top(self) -> _Frame:
        return self.frames[-1]

    @property
    def level(self) -> _Frame | None:
        return self.levels[-1]

    @property
    def home(self) -> _Frame:
        return self.homes[-1]


def _opener(code: str, i: int) -> bool:
    """Whether the `if`/`unless`/`while`/`until` at `i` opens a block (it starts a statement
    or a value) rather than modifying the statement before it."""
    k = i - 1
    while k >= 0:
        c = code[k]
        if c in " \t":
            k -= 1
            continue
        if c == "\n":
            j = k - 1
            while j >= 0 and code[j] in " \t\r":
                j -= 1
            if j >= 0 and code[j] == "\\":  # a continued line
                k = j - 1
                continue
            return True
        break
    if k < 0:
        return True
    c = code[k]
    if _word(c) or (c in "?!" and k and _word(code[k - 1])):
        s = k
        while s > 0 and _word(code[s - 1]):
            s -= 1
        return code[s : k + 1] in _STATEMENT_WORDS and code[s - 1 : s] != "."
    return c not in ")]}\"'`/?"  # a value ends there: a regexp's close, a ?c literal


def _statement_start(code: str, i: int) -> bool:
    """Whether nothing but a visibility word stands before `i` on its statement."""
    k = i - 1
    while k >= 0 and code[k] in " \t":
        k -= 1
    if k < 0 or code[k] in "\n;":
        return True
    s = k
    while s > 0 and _word(code[s - 1]):
        s -= 1
    if code[s : k + 1] in (*_VISIBILITY, "private_class_method", "public_class_method"):
        return _statement_start(code, s)
    return False


def _statement_end(code: str, j: int) -> int:
    """Where the statement going on at `j` ends: a `;` or a line break outside brackets
    that no operator, comma or leading `.` carries over."""
    n = len(code)
    k = j
    while k < n:
        c = code[k]
        if c in "([{":
            k = _close(code, k)
            continue
        if c == ";":
            return k
        if c == "\n":
            before = code[j:k].rstrip()
            nxt = code[k + 1 : k + 200].lstrip()
            if before.endswith(
                (",", "\\", "=", "+", "-", "*", "&&", "||", ".", "(")
            ) or nxt.startswith((".", "&.")):
                k += 1
                continue
            return k
        k += 1
    return n


_BRACKET = re.compile(r"[()\[\]{}]")


def _close(code: str, i: int, limit: int = 2000) -> int:
    """Past the bracket closing the one at `i`, looked for in the next `limit` characters
    (the line's end when none closes it there: garbled code reads in linear time)."""
    depth = 0
    for m in _BRACKET.finditer(code, i, i + limit):
        depth += 1 if m.group() in "([{" else -1
        if depth == 0:
            return m.end()
    e = code.find("\n", i)
    return len(code) if e < 0 else e


def _line_end(code: str, i: int) -> int:
    e = code.find("\n", i)
    return len(code) if e < 0 else e


def _walk(g: _File) -> None:
    code = g.code
    stack = _Stack()
    loop_do = -1  # a `while`/`until`/`for` line's end: a `do` before it is the loop's
    pending: tuple[str, int] = ("", -1)  # `private def x`: (visibility, the line's end)
    runs = list(g.runs)
    pos = 0
    while True:
        m = _TOKEN.search(code, pos)
        if m is None:
            break
        at = m.start()
        pos = m.end()
        kind = m.lastgroup
        kw = m.group("kw") or ""
        while runs and g.lines[runs[0][1]] < at:  # free-standing directive comments passed
            start, end = runs.pop(0)
            attached = kw in ("class", "module") and g.line(at) - end <= 2
            if start not in g.used_runs and not attached:
                g.used_runs.add(start)
                ns = stack.level
                if ns is not None and ns.path and not ns.hidden and not ns.quiet:
                    lines = [g.own[k].text for k in range(start, end + 1)]
                    _directives(g, doc_text(lines), ns, g.lines[start])
        if kind == "open":
            stack.push(_Frame("brace"))
            continue
        if kind == "close":
            if len(stack) > 1 and stack.top.kind == "brace":
                stack.pop()
            continue
        ns = stack.level
        if kind == "const":
            if ns is not None and _statement_start(code, at):
                _constant(g, ns, m.group("const"), at, code.index("=", m.end()) + 1)
            continue
        if kw == "end":
            while len(stack) > 1:
                if stack.pop().kind != "brace":
                    break
            continue
        if kw in ("if", "unless", "while", "until"):
            if _opener(code, at):
                stack.push(_Frame("cond"))
                if kw in ("while", "until"):
                    loop_do = _line_end(code, at)
            continue
        if kw in ("case", "begin", "for"):
            stack.push(_Frame("cond"))
            if kw == "for":
                loop_do = _line_end(code, at)
            continue
        if kw == "do":
            if at < loop_do:
                loop_do = -1
            else:
                stack.push(_Frame("opaque"))
            continue
        if kw == "def":
            pos = _def(g, stack, ns, at, pos, pending)
            continue
        if kw in ("class", "module"):
            _namespace(g, stack, ns, kw, at, pos)
            continue
        if ns is None or not _statement_start(code, at):
            continue
        # visibility, attributes, aliases: statements of a namespace's body
        end = _statement_end(code, pos)
        rest = code[pos:end].strip()
        raw = g.bare(pos, end)
        if kw in _VISIBILITY or kw == "module_function":
            if not rest:
                if kw == "module_function":
                    ns.module_function = True
                else:
                    ns.vis, ns.module_function = kw, False
            elif re.match(r"\(?\s*(?:def|attr|alias|define_method)\b", rest):
                pending = (kw, _line_end(code, pos))
            else:
                scope = "class" if ns.kind == "sclass" else "instance"
                for name in _names(raw):
                    if kw == "module_function":
                        g.module_functions.add((ns.path, name))
                    else:
                        g.vis_over[(ns.path, scope, name)] = kw
        elif kw in ("private_class_method", "public_class_method"):
            vis = kw.split("_")[0]
            if re.match(r"\(?\s*def\b", rest):
                pending = (vis, _line_end(code, pos))
            for name in _names(raw):
                g.vis_over[(ns.path, "class", name)] = vis
        elif kw == "private_constant":
            for name in _names(raw):
                g.private_constants.add((*ns.path, name))
        elif kw.startswith("attr"):
            vis = pending[0] if at < pending[1] else ns.vis
            _attributes(g, ns, kw, at, raw, vis)
        elif kw in ("alias", "alias_method"):
            names = _names(raw) if kw == "alias_method" else re.findall(r":?([\w$]+[?!=]?)", raw)
            if len(names) >= 2 and ns.path:
                doc = _item_doc(g, ns, at)
                if doc is not None and doc.text:
                    scope = "class" if ns.kind == "sclass" else "instance"
                    item = _Item(ns.path, scope, names[0], "method", ns.vis, None, doc.text, at)
                    item.alias_of = names[1]
                    g.items.append(item)


def _names(raw: str) -> list[str]:
    """The method or constant names a statement's arguments give as symbols or strings."""
    return [m.group("a") or m.group("b") for m in _NAMES.finditer(raw)]


def _item_doc(g: _File, ns: _Frame, at: int) -> _Doc | None:
    """The doc over the item at `at`, None when the item is not the API (:nodoc: after it
    or in its doc, @api private, in a :stopdoc: stretch, its namespace's members hidden)."""
    line = g.line(at)
    if g.stopped(line) or ns.hidden or ns.quiet:
        return None
    if _NODOC.match(g.trailing.get(line, "").strip()):
        return None
    start, lines = g.doc_lines(line)
    doc = doc_text(lines)
    if doc.hidden:
        return None
    return doc


def _def(
    g: _File, stack: _Stack, ns: _Frame | None, at: int, pos: int, pending: tuple[str, int]
) -> int:
    """A method's definition at `at`: its document, and its body's frame (none for an
    endless `def x = 1`). Returns where the walk goes on."""
    code = g.code
    h = _DEF_HEAD.match(code, pos)
    if h is None:
        stack.push(_Frame("opaque"))
        return pos
    name, obj = h.group("name"), h.group("obj")
    k = h.end()
    while k < len(code) and code[k] in " \t":
        k += 1
    params: str | None = None
    after = k
    if code[k : k + 1] == "(":
        close = _close(code, k)
        params = " ".join(g.bare(k + 1, close - 1).split())
        after = close
    elif k < len(code) and code[k] not in "\n;=#":
        e = _line_end(code, k)
        semi = code.find(";", k, e)
        e = semi if semi >= 0 else e
        params = " ".join(g.bare(k, e).split())
        after = e
    j = after
    while j < len(code) and code[j] in " \t":
        j += 1
    endless = code[j : j + 1] == "=" and code[j + 1 : j + 2] not in ("=", "~", ">")
    if not endless:
        stack.push(_Frame("opaque"))
    if ns is None:
        return after
    path = ns.path
    if obj is None:
        scope = "class" if ns.kind == "sclass" or ns.module_function else "instance"
        vis = "public" if ns.module_function and ns.kind != "sclass" else ns.vis
    elif obj == "self" or (path and obj == path[-1]):
        scope, vis = "class", "public"
    elif obj[:1].isupper():  # `def Other.name`: a class method of that constant
        path, scope, vis = (*path, *obj.split("::")), "class", "public"
    else:  # `def obj.name`: a singleton method of some object, no API
        return after
    if not path:  # a top-level method (Object's, private)
        return after
    if at < pending[1]:
        vis = pending[0]
    doc = _item_doc(g, ns, at)
    if doc is None:
        return after
    if doc.public:
        vis = "public"
    if doc.text:
        kind = "constructor" if name == "initialize" and scope == "instance" else "method"
        g.items.append(_Item(path, scope, name, kind, vis, params or "", doc.text, at))
    return after


def _namespace(g: _File, stack: _Stack, ns: _Frame | None, kw: str, at: int, pos: int) -> None:
    """A module or class (or a `class << self` block) opening at `at`: its frame, its
    document, and the methods and attributes its doc's directives declare."""
    code = g.code
    outer = ns or stack.home
    hidden = ns is None or outer.hidden
    if kw == "class":
        sc = _SCLASS_HEAD.match(code, pos)
        if sc is not None:
            obj = sc.group("obj")
            same = obj == "self" or (obj is not None and bool(outer.path) and obj == outer.path[-1])
            stack.push(_Frame("sclass", outer.path, hidden=hidden or not same, quiet=outer.quiet))
            return
        head = _CLASS_HEAD.match(code, pos)
    else:
        head = _MODULE_HEAD.match(code, pos)
    if head is None:
        stack.push(_Frame("opaque"))
        return
    written = re.sub(r"\s", "", head.group("name"))
    if written.startswith("::"):
        path = tuple(written[2:].split("::"))
    else:
        path = (*outer.path, *written.split("::"))
    frame = _Frame(kw, path, hidden=hidden)
    stack.push(frame)
    if hidden:
        return
    line = g.line(at)
    start, lines = g.doc_lines(line)
    doc = doc_text(lines)
    trailing = _NODOC.match(g.trailing.get(line, "").strip())
    if trailing is not None:
        doc.hidden = doc.quiet = True
        doc.hides_all = doc.hides_all or bool(trailing.group("all"))
    frame.quiet, frame.hidden = doc.quiet, doc.hides_all
    if doc.hidden or g.stopped(line):
        return
    if doc.directives:
        g.used_runs.add(start)
        _directives(g, doc, frame, at)
    if doc.text:
        extra: list[str] = []
        sup = (head.group("super") or "").strip() if kw == "class" else ""
        if re.fullmatch(r"(?:::)?[A-Z]\w*(?:::[A-Z]\w*)*", sup):
            extra.append(f"Superclass: `{sup}`")
        g.items.append(_Item(path, "", "", kw, "public", None, doc.text, at, extra))


def _directives(g: _File, doc: _Doc, ns: _Frame, at: int) -> None:
    """The methods and attributes YARD's `@!method` and `@!attribute` declare in `ns`."""
    for d in doc.directives:
        inner = d.doc
        if not inner.text or inner.hidden:
            continue
        singleton = ns.kind == "sclass" or doc.class_scope or inner.class_scope
        scope = "class" if singleton else "instance"
        if d.kind == "method":
            m = re.match(
                rf"(?:self\.)?(?P<name>{_OPERATOR_NAME}|[A-Za-z_]\w*[?!=]?)"
                r"\s*(?:\((?P<params>.*)\))?",
                d.spec,
            )
            if m is None:
                continue
            name = m.group("name")
            params = " ".join((m.group("params") or "").split())
            kind = "constructor" if name == "initialize" and scope == "instance" else "method"
            g.items.append(_Item(ns.path, scope, name, kind, "public", params, inner.text, at))
        else:
            m = re.match(r"(?:\[(?P<mode>\w*)\]\s*)?(?P<name>\w+[?!]?)", d.spec)
            if m is None:
                continue
            mode = m.group("mode") or "rw"
            kw = {"r": "attr_reader", "w": "attr_writer"}.get(mode, "attr_accessor")
            item = _Item(
                ns.path, scope, m.group("name"), "attribute", "public", None, inner.value_text, at
            )
            item.extra.append(_access(kw))
            g.items.append(item)


def _access(kw: str) -> str:
    return {
        "attr_reader": "Read-only attribute.",
        "attr_writer": "Write-only attribute.",
    }.get(kw, "Read-write attribute.")


def _attributes(g: _File, ns: _Frame, kw: str, at: int, raw: str, vis: str) -> None:
    if not ns.path:
        return
    doc = _item_doc(g, ns, at)
    if doc is None or not doc.text:
        return
    scope = "class" if ns.kind == "sclass" else "instance"
    if kw == "attr" and re.search(r",\s*true\b", raw):
        kw = "attr_accessor"  # attr :name, true (Ruby 1.8's writable attribute)
    for name in _names(raw):
        shown = f"{name}=" if kw == "attr_writer" else name
        item = _Item(
            ns.path,
            scope,
            shown,
            "attribute",
            "public" if doc.public else vis,
            None,
            doc.value_text,
            at,
        )
        item.extra.append(_access(kw if kw != "attr" else "attr_reader"))
        g.items.append(item)


def _constant(g: _File, ns: _Frame, name: str, at: int, value_at: int) -> None:
    doc = _item_doc(g, ns, at)
    if doc is None or not doc.text:
        return
    end = _statement_end(g.code, value_at)
    code = re.sub(r"\s+(?:do(?:\s*\|[^|]*\|)?|\{)\s*$", "", g.code[value_at:end])
    value = " ".join(g.bare(value_at, value_at + len(code)).split())
    balanced = sum(code.count(c) for c in "([{") == sum(code.count(c) for c in ")]}")
    short = balanced and value and len(value) <= _MAX_VALUE and "`" not in value
    extra = [f"Value: `{value}`" if short else ""]
    g.items.append(_Item(ns.path, "", name, "constant", "public", None, doc.value_text, at, extra))


def _documents(g: _File) -> Iterator[Document]:
    """The file's items as documents, what a later `private :x`, `module_function :x` or
    `private_constant :X` says of them applied."""
    hidden_paths = {p for p in g.private_constants}
    methods = {
        (it.path, it.scope, it.name): it for it in g.items if it.kind in ("method", "constructor")
    }
    for item in g.items:
        if item.kind in ("method", "constructor", "attribute"):
            if item.scope == "instance" and (item.path, item.name) in g.module_functions:
                item.scope, item.vis = "class", "public"
            item.vis = g.vis_over.get((item.path, item.scope, item.name), item.vis)
            if item.vis != "public":
                continue
        full = (*item.path, item.name) if item.kind == "constant" else item.path
        if any(full[: len(p)] == p for p in hidden_paths):
            continue
        if item.kind in ("module", "class"):
            yield g.document(item, item.kind, item.qual, "")
        elif item.kind == "constant":
            yield g.document(item, "constant", item.qual, "")
        elif item.kind == "attribute":
            kind = "class_attribute" if item.scope == "class" else "attribute"
            yield g.document(item, kind, item.qual, "")
        else:
            params = item.params
            if item.alias_of:
                old = methods.get((item.path, item.scope, item.alias_of))
                params = old.params if old is not None else ""
                item.extra.append(f"Alias of `{item.alias_of}`.")
            kind = item.kind if item.scope == "instance" else "class_method"
            sig = f"({params or ''})"
            yield g.document(item, kind, f"{item.qual}{sig}", sig)
