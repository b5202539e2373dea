"""Puppet modules read as their reference, what `puppet strings` writes as REFERENCE.md:
one document per documented class, defined type, type alias, function, plan and task, and
one per documented parameter, so that a question about `class ntp`'s `servers` has a
document to come from. Read as text a manifest gives its code; nothing is run.

Which files: `is_puppet` takes a `.pp` file (a manifest: `manifests/`, `types/`,
`functions/`, `plans/`). `takes` also takes, by their path, a module's Puppet 4.x Ruby
functions (`lib/puppet/functions/**/*.rb`), its Puppet 3.x ones
(`lib/puppet/parser/functions/*.rb`), its tasks (`tasks/*.json`), and its companions,
read for the others and giving no document of their own and never counted: the module's
`metadata.json` (MANIFEST) and its Hiera data (`data/**/*.yaml`, `.yml`).

Modules. A file's module root is the folder above its first `manifests`, `types`,
`functions`, `plans`, `tasks` or `data` folder (above `lib/puppet/` for Ruby). The module
is named by the `name` of the root's `metadata.json` when among the files
(`puppetlabs-ntp` or `puppetlabs/ntp`: `ntp`; its `summary` goes into the document of the
module's main class, the one named as the module), else by the root folder's name with
any `author-` prefix dropped (`puppetlabs-ntp/manifests/init.pp`: `ntp`), else by `top`
(the source's folder name) read so. Every document's meta has `module` (and `module_name`,
the metadata's full name, when known).

Parsing. A small lexer for the Puppet language, never a library: strings single-quoted
(`\\'` escapes) and double-quoted (escapes, `${...}` interpolations lexed as code to their
closing brace, strings inside them too), heredocs `@("END")`, `@(END:json/L)` whose body
(from the next line to the end-marker line `END`, `|  END`, `-END`, `|-END`) is skipped,
comments `#` and `/* */`, regexes `/.../` (on one line) where an operand is expected (after
an operator, an opening bracket, a comma, `}` or a keyword such as `node`, `if`, `and`),
else `/` divides; brackets must balance. A file whose text does not lex (an unterminated
string, comment or heredoc, brackets that do not match) is counted (`puppet_bad_syntax`)
and gives nothing. The declarations read are those at the top level (outside any bracket):
`class NAME (PARAMS) inherits PARENT {`, `define NAME (PARAMS) {`, `type NAME = TYPE`
(a name with its brackets), `function NAME (PARAMS) >> RETURN {`, `plan NAME (PARAMS) {`
(the parameter lists optional but for functions). A parameter is its type expression as
written, `$name` (`*$name` captures the rest) and its default expression as written; both
with whitespace normalized (one space; none after an opening `[`/`(` or before a closing
one at a line break, a trailing comma before it dropped), a default at most 300
characters ("..." when cut), 100 on a signature line.

Documentation is the comment block (`#` lines) directly above a declaration, blank lines
between them allowed, no code between; each line's `#` and the one space after it dropped
(as YARD does), lint, rubocop and encoding control comments and separator lines (`#####`,
`# ====`) dropped, then dedented. YARD tags as puppet-strings reads them: a tag at the
start of a line, its text on that line and the indented lines after it (blank lines inside
too); the text of a `@param`, `@option`, `@note`, `@see`, `@return`, `@raise` or
`@deprecated` begun on the tag's line also goes on over the unindented lines right after
it (a wrapped line). `@summary` (dropped when the description opens with it); free text
is the description (Markdown, kept as written: lines, lists, code; a line's trailing
`<br />` ends a paragraph; a first paragraph that only names the declaration, `# ntp`,
`Class: ntp`, dropped); `@param name text` (also `@param [Type] name` and `@param name
[Type]`, the type used when the code gives none, a `$` before the name dropped; `@attr`
read as `@param`); `@option param [Type] :key text` (listed under the param); `@example
Title` (its indented lines a fenced ```` ```puppet ```` block); `@note`, `@see`, `@return
[Type] text`, `@raise [Type] text`, `@since`, `@deprecated text`, `@api private` (and
`@private`: still documented, marked "Private: not part of the module's public API.");
`@author`, `@todo` and any other tag dropped. The legacy RDoc style: a heading line (`=`
to `====` at the start, `== Class: name`) naming the declaration (`Class:`, `Define:`,
`Type:`, `Resource:`, `Function:`) dropped; a heading with "param" in it (`=== Parameters`,
`==Parameters:`) starts the parameters: items `[*name*]` (at any indentation; `[name]`
inside a parameters section too) whose text is on the item's line and the lines indented
more than it, lines indented two more than that text fenced as code; items listed on
consecutive lines with no text share the next one's (`[*ssl_cert*]` `[*ssl_key*]`
`(optional) SSL files.`); a line `DEPRECATED` or `DEPRECATED PARAMETERS` marks the items
after it deprecated; `=== Examples` (`Example`, `Usage`, `Sample Usage`) gives examples,
indented lines fenced as puppet, others their titles; `Authors`, `Copyright` and `License`
sections dropped; any other heading becomes a `Title:` line of the description. A
paragraph about the license or the authors (copyright, "all rights reserved", "Licensed
under", "the License", `Author: ...`) is dropped.

What is documented: a class, defined type, function or plan whose documentation says
something (a summary, text, a documented parameter, an example, a note, a return); a type
alias always (its definition says what it accepts). A declaration without documentation
gives nothing; a file that gives nothing is counted (`puppet_no_api`), and so is one over
2 MB (`puppet_too_big`) or cut at 5000 documents (`puppet_cut`).

Names and kinds. Uris are `puppet:<name>`, lower-cased (`puppet:ntp`, `puppet:apache::vhost`,
`puppet:stdlib::absolutepath` for `Stdlib::Absolutepath`), kinds "class", "defined type",
"type alias", "function", "plan"; a parameter's `puppet:<name>:<param>` kind "parameter",
for a function's and a plan's too. A task is `puppet:task/<module>::<task>` (its json
file's stem; `tasks/init.json` the module's own task, `puppet:task/apache`), kind "task",
its parameters `puppet:task/apache:action`: a task's own name would be its module's main
class's (`puppet:apache`, class and task both). Of two files giving one uri the first in
path order is kept (a 4.x Ruby function before a 3.x one of its name).

Texts, Markdown; meta `language` "puppet", `signature` the first line, `line` where the
declaration (the parameter) stands.
- A class, defined type or plan: `class ntp` (`class nova inherits nova::params`,
  `define apache::vhost`, `plan mymod::deploy`), then the summary and the description,
  `Deprecated: ...`, `Private: ...`, notes (`Note: ...`), `Since: ...`, the module's
  summary for its main class (`Module: puppetlabs-ntp: ...`), `Parameters:` (at most 100,
  in the code's order; a define's documented `name` and `title` first) each "- `name`
  (`Type`, default `value`): the first sentence of its text" (deprecated ones say so),
  `Examples:` (a title line over each fenced block), `See also:`.
- A function: `function stdlib::ip_in_range(String $ipaddress, Variant[String, Array]
  $range) >> Boolean`, its text, `Parameters:`, `Returns: `Type` text`, `Raises:`,
  examples. A Ruby 4.x function (`Puppet::Functions.create_function(:'stdlib::foo') do`):
  the comment above `create_function` is its documentation, the comment above each
  `dispatch :m do` block (or, with none, above `def <name>(...)`) that signature's; its
  `param 'Type', :name`, `optional_param` (`Optional[Type]`), `repeated_param` and
  `required_repeated_param` (`*$name`), `block_param` (`&$name`, `Callable` when untyped),
  `return_type 'Type'`; one signature is the first line, several are listed under
  `Signatures:` (the first line `function merge`); a parameter's text is the first
  signature's that documents it. A Ruby 3.x function (`newfunction(:pick, type: :rvalue,
  doc: <<-EOS ... EOS)`, or a quoted doc string) is `function pick` over its doc string read
  as YARD and a line saying its API.
- A type alias: `type Stdlib::Absolutepath = Variant[Stdlib::Windowspath,
  Stdlib::Unixpath]`; one longer than 200 characters is `type Apache::OIDCSettings` with
  the definition as written (dedented, lint comments dropped, at most 4000 characters)
  under `Alias of:` in a
  fenced block after the documentation.
- A task: `task apache`, its `description`, `Parameters:`, `Supports noop.`, `Private: ...`.
- A parameter: `Optional[String] $config_dir = undef` (as written; a task's `Type $name`),
  its text, `Options:` ("- `:key` (`Type`): text"), `Deprecated.`, `Default: `value``
  (`Required: no default.` when the code gives none and no module data does; a Ruby
  function's `Optional.`, `Repeated: ...`, `A block (lambda).`), `Module data (Hiera,
  looked up before the code's default):` a list of the module's `data/` files setting
  `<class>::<param>` with their value in Puppet syntax (`common` first, at most 20),
  `Type: `...``, and `Of: class ntp` (with " (private)" for a private one). A parameter
  with no documentation text gives no document (its declaration's list still names it);
  the list shows the module data's `common` value as the default when there is one, since
  Hiera's wins over the code's.
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

import yaml

from jupiter.collect.result import CollectResult, SourceFile, api_document, count
from jupiter.records import Document

URI_PREFIX = "puppet:"
SUFFIXES = (".pp",)
MANIFEST = "metadata.json"
# reasons a file gave no document (or not all), as the collect stage counts them
PUPPET_NO_API = "puppet_no_api"
PUPPET_BAD_SYNTAX = "puppet_bad_syntax"
PUPPET_TOO_BIG = "puppet_too_big"
PUPPET_CUT = "puppet_cut"
_READ = (
    "Puppet modules read as their reference, what puppet strings writes (one document per "
    "documented class, defined type, type alias, function, plan, task and parameter): "
)
_TEXT = "; the source's puppet: text reads them as text"
FIXES = {
    PUPPET_NO_API: _READ + "a file with no documented declaration (no comment block above "
    "it) gives none" + _TEXT,
    PUPPET_BAD_SYNTAX: _READ + "a manifest whose strings, comments, heredocs or brackets "
    "do not close gives none" + _TEXT,
    PUPPET_TOO_BIG: _READ + "a file over 2 MB gives none" + _TEXT,
    PUPPET_CUT: _READ + "a file with more than 5000 documents gives its first 5000" + _TEXT,
}
MAX_BYTES = 2_000_000
MAX_DOCUMENTS = 5000  # of one file
_MAX_LISTED = 100
_MAX_SENTENCE = 200
_MAX_DEFAULT = 300
_MAX_INLINE_DEFAULT = 100
_MAX_ALIAS_LINE = 200
_MAX_ALIAS = 4000
_MAX_DATA = 20
_MAX_NESTING = 30  # interpolations inside interpolations
_LANG = {"language": "puppet"}
_KINDS = {"class": "class", "define": "defined type", "plan": "plan", "function": "function"}
_MARKERS = ("manifests", "types", "functions", "plans", "tasks", "data")

try:  # libyaml's loader: what `yaml.safe_load` does, faster
    _Loader: Any = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - PyYAML built without libyaml
    _Loader = yaml.SafeLoader
_LOAD_ERRORS = (yaml.YAMLError, ValueError, TypeError, OverflowError, RecursionError)


def is_puppet(name: str) -> bool:
    """Whether a file is a Puppet manifest (`.pp`)."""
    return name.lower().endswith(SUFFIXES)


def takes(name: str) -> bool:
    """Whether the reader takes a file, by its path in the source: a manifest, a Ruby
    function of a module's `lib/puppet/functions/` (or `lib/puppet/parser/functions/`), a
    task's json in `tasks/`, or a companion (`metadata.json`, Hiera data in `data/`)."""
    rel = PurePosixPath(name)
    return is_puppet(name) or _is_companion(rel) or _ruby_api(rel) != "" or _is_task(rel)


def _is_companion(rel: PurePosixPath) -> bool:
    return rel.name == MANIFEST or _data_root(rel) is not None


def _data_root(rel: PurePosixPath) -> PurePosixPath | None:
    """The module root of a Hiera data file (`<root>/data/**/*.yaml`), else None."""
    if rel.suffix.lower() not in (".yaml", ".yml") or "data" not in rel.parts[:-1]:
        return None
    i = rel.parts.index("data")
    return PurePosixPath(*rel.parts[:i]) if i else PurePosixPath(".")


def _ruby_api(rel: PurePosixPath) -> str:
    """ "4.x" for a `lib/puppet/functions/**/*.rb`, "3.x" for a
    `lib/puppet/parser/functions/*.rb`, else ""."""
    if rel.suffix != ".rb":
        return ""
    parts = rel.parts
    for i in range(len(parts) - 2):
        if parts[i] == "lib" and parts[i + 1] == "puppet":
            if parts[i + 2] == "functions":
                return "4.x"
            if parts[i + 2 : i + 4] == ("parser", "functions"):
                return "3.x"
    return ""


def _is_task(rel: PurePosixPath) -> bool:
    return rel.suffix == ".json" and rel.parent.name == "tasks"


def api_documents(
    files: list[SourceFile], source: str, rejects: CollectResult | None = None, top: str = ""
) -> list[Document]:
    """Documents for the Puppet modules among the files (with their `metadata.json` and
    Hiera data), sorted by uri; a file that gives none is counted in `rejects`. `top`, the
    source's folder name, names a module whose files stand at the source's root."""
    modules = _Modules(top)
    readable: list[SourceFile] = []
    for f in files:
        if f.rel.name == MANIFEST:
            modules.add_metadata(f)
        elif (root := _data_root(f.rel)) is not None and not is_puppet(f.rel.name):
            modules.add_data(root, f)
        else:
            readable.append(f)
    docs: dict[str, Document] = {}
    for f in sorted(readable, key=lambda f: f.rel):
        got = _file_documents(f, source, modules)
        if isinstance(got, str):
            count(rejects, got, f.where)
            continue
        if len(got) > MAX_DOCUMENTS:
            got = got[:MAX_DOCUMENTS]
            count(rejects, PUPPET_CUT, f.where)
        for doc in got:
            docs.setdefault(doc.uri, doc)
        if not got:
            count(rejects, PUPPET_NO_API, f.where)
    return [docs[uri] for uri in sorted(docs)]


def _file_documents(f: SourceFile, source: str, modules: _Modules) -> list[Document] | str:
    if len(f.text) > MAX_BYTES:
        return PUPPET_TOO_BIG
    module = modules.of(f.rel)
    if is_puppet(f.rel.name):
        return _manifest_documents(f, source, module)
    api = _ruby_api(f.rel)
    if api == "4.x":
        return _ruby4_documents(f, source, module)
    if api == "3.x":
        return _ruby3_documents(f, source, module)
    if _is_task(f.rel):
        return _task_documents(f, source, module)
    return []


# ----------------------------------------------------------------------------- modules
@dataclass
class _Module:
    name: str  # `ntp`; "" when unknown
    full: str = ""  # `puppetlabs-ntp`, from metadata.json
    summary: str = ""
    # `ntp::servers` -> [(data file, value)]
    data: dict[str, list[tuple[str, Any]]] = field(default_factory=dict)


def _short(name: str) -> str:
    """A module's name without its author: `puppetlabs-ntp` -> `ntp`."""
    return re.split(r"[-/]", name, maxsplit=1)[-1] if name else ""


def module_root(rel: PurePosixPath) -> PurePosixPath:
    """The module root a file stands in (see the module docstring)."""
    parts = rel.parts[:-1]
    for i in range(len(parts) - 1):
        if parts[i] == "lib" and parts[i + 1] == "puppet":
            return PurePosixPath(*parts[:i]) if i else PurePosixPath(".")
    for i, part in enumerate(parts):
        if part in _MARKERS:
            return PurePosixPath(*parts[:i]) if i else PurePosixPath(".")
    return rel.parent


class _Modules:
    """The modules of a source's files, by their root folder."""

    def __init__(self, top: str) -> None:
        self.top = top
        self.known: dict[PurePosixPath, _Module] = {}

    def module(self, root: PurePosixPath) -> _Module:
        if root not in self.known:
            folder = root.name if str(root) != "." else self.top
            self.known[root] = _Module(_short(folder))
        return self.known[root]

    def add_metadata(self, f: SourceFile) -> None:
        try:
            data = json.loads(f.text)
        except (ValueError, RecursionError):
            return
        if not isinstance(data, dict) or not isinstance(data.get("name"), str):
            return
        m = self.module(f.rel.parent)
        m.full = data["name"]
        m.name = _short(data["name"]) or m.name
        if isinstance(data.get("summary"), str):
            m.summary = " ".join(data["summary"].split())

    def add_data(self, root: PurePosixPath, f: SourceFile) -> None:
        try:
            data = yaml.load(f.text, Loader=_Loader)  # a safe loader (see `_Loader`)
        except _LOAD_ERRORS:
            return
        if not isinstance(data, dict):
            return
        rel = f.rel.relative_to(root / "data") if str(root) != "." else f.rel.relative_to("data")
        name = str(rel.with_suffix(""))
        m = self.module(root)
        for key, value in data.items():
            if isinstance(key, str) and "::" in key:
                m.data.setdefault(key.lower(), []).append((name, value))

    def of(self, rel: PurePosixPath) -> _Module:
        return self.module(module_root(rel))


def _puppet_value(value: Any, depth: int = 0) -> str:
    """A YAML value written as Puppet writes it: `'x'`, `undef`, `[...]`, `{ k => v }`."""
    if depth > 10:
        return "..."
    if value is None:
        return "undef"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, list):
        return "[" + ", ".join(_puppet_value(v, depth + 1) for v in value) + "]"
    if isinstance(value, dict):
        if not value:
            return "{}"
        inner = ", ".join(
            f"{_puppet_value(k, depth + 1)} => {_puppet_value(v, depth + 1)}"
            for k, v in value.items()
        )
        return "{ " + inner + " }"
    text = str(value)
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


# ----------------------------------------------------------------------------- lexer
class _LexError(ValueError):
    pass


@dataclass(frozen=True)
class _Tok:
    kind: str  # "name", "var", "str", "heredoc", "regex", "num", "op"
    text: str
    start: int
    end: int
    line: int
    gap: str  # what stands before it: "" nothing, " " blanks or comments, "\n" a line break


_WS = re.compile(r"[ \t\r\f\v]+")
_VAR = re.compile(r"\$(?:::)?\w+(?:::\w+)*")
_NAME = re.compile(r"(?:::)?[A-Za-z_]\w*(?:::[A-Za-z_]\w*)*(?:-\w+)*")
_NUM = re.compile(r"0[xX][0-9A-Fa-f]+|\d+(?:\.\d+)?(?:[eE][-+]?\d+)?\w*")
_OP = re.compile(
    r"<<\||\|>>|=>|\+>|->|~>|<-|<~|==|!=|=~|!~|>=|<=|>>|<<|<\||\|>|@@|[{}\[\]()=,;:?|<>!+\-*/%.@&^~]"
)
_SINGLE = re.compile(r"'(?:[^'\\]|\\.)*'", re.S)
_DOUBLE_RUN = re.compile(r'[^"\\$]+')
_REGEX = re.compile(r"/(?:\\.|[^/\\\n])*/")
_HEREDOC = re.compile(
    r"@\(\s*(?:\"(?P<q>[^\"\n]+)\"|(?P<u>[^):/\s\"][^):/\n]*?))\s*"
    r"(?::\s*[\w+./-]*)?\s*(?:/\s*[\w$]*)?\s*\)"
)
# names after which a `/` starts a regex, not a division
_REGEX_AFTER = frozenset({"if", "elsif", "unless", "case", "and", "or", "in", "not", "node"})
_OPERAND_OPS = frozenset({")", "]"})


class _Lexer:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens: list[_Tok] = []
        self.holes: dict[int, int] = {}  # a heredoc body's start -> where code resumes
        self.newlines = [m.start() for m in re.finditer("\n", text)]

    def line(self, pos: int) -> int:
        return bisect.bisect_left(self.newlines, pos) + 1

    def scan(self, i: int, nested: int) -> int:
        """Lex from `i`: the whole text (nested 0), or an interpolation's code to its
        closing brace (nested > 0: its tokens are not kept); the position after it."""
        if nested > _MAX_NESTING:
            raise _LexError("interpolations nested too deep")
        text, n = self.text, len(self.text)
        braces = 0
        gap = ""
        operand = False  # whether a `/` here divides
        while i < n:
            c = text[i]
            if c == "\n":
                gap = "\n"
                i += 1
                i = self.holes.get(i, i)
                continue
            if c in " \t\r\f\v":
                i = _WS.match(text, i).end()  # type: ignore[union-attr]
                gap = gap or " "
                continue
            if c == "#":
                j = text.find("\n", i)
                i = n if j < 0 else j
                gap = gap or " "
                continue
            if c == "/" and text.startswith("/*", i):
                j = text.find("*/", i + 2)
                if j < 0:
                    raise _LexError("a /* comment that never closes")
                gap = "\n" if "\n" in text[i:j] else gap or " "
                i = j + 2
                continue
            start = i
            if c == "'":
                m = _SINGLE.match(text, i)
                if m is None:
                    raise _LexError("a string that never closes")
                i, kind = m.end(), "str"
            elif c == '"':
                i, kind = self._double(i, nested), "str"
            elif c == "$" and (m := _VAR.match(text, i)):
                i, kind = m.end(), "var"
            elif c == "@" and text.startswith("@(", i) and (m := _HEREDOC.match(text, i)):
                i, kind = self._heredoc(m), "heredoc"
            elif c == "/" and not operand and (m := _REGEX.match(text, i)):
                i, kind = m.end(), "regex"
            elif c.isdigit():
                i, kind = _NUM.match(text, i).end(), "num"  # type: ignore[union-attr]
            elif (c.isalpha() or c in "_:") and (m := _NAME.match(text, i)):
                i, kind = m.end(), "name"
            else:
                m = _OP.match(text, i)
                i, kind = (m.end() if m else i + 1), "op"
            word = text[start:i]
            if nested:
                if word == "{":
                    braces += 1
                elif word == "}":
                    if braces == 0:
                        return i
                    braces -= 1
            else:
                self.tokens.append(_Tok(kind, word, start, i, self.line(start), gap))
            gap = ""
            if kind == "op":
                operand = word in _OPERAND_OPS
            elif kind == "name":
                operand = word not in _REGEX_AFTER
            else:
                operand = True
        if nested:
            raise _LexError("an interpolation that never closes")
        return i

    def _double(self, i: int, nested: int) -> int:
        text, n = self.text, len(self.text)
        j = i + 1
        while j < n:
            c = text[j]
            if c == '"':
                return j + 1
            if c == "\\":
                j += 2
            elif c == "$":
                j = self.scan(j + 2, nested + 1) if text.startswith("${", j) else j + 1
            else:
                j = _DOUBLE_RUN.match(text, j).end()  # type: ignore[union-attr]
        raise _LexError("a string that never closes")

    def _heredoc(self, m: re.Match[str]) -> int:
        tag = (m.group("q") or m.group("u") or "").strip()
        text = self.text
        eol = text.find("\n", m.end())
        if eol < 0 or not tag:
            raise _LexError("a heredoc with no body")
        begin = eol + 1
        body = self.holes.get(begin, begin)  # a second heredoc of one line follows the first
        marker = re.compile(
            r"^[ \t]*(?:\|[ \t]*)?(?:-[ \t]*)?" + re.escape(tag) + r"[ \t]*\r?$", re.M
        )
        found = marker.search(text, body)
        if found is None:
            raise _LexError("a heredoc that never ends")
        end = found.end()
        self.holes[begin] = end + 1 if end < len(text) else end
        return m.end()


def _lex(text: str) -> list[_Tok]:
    lexer = _Lexer(text)
    lexer.scan(0, 0)
    return lexer.tokens


_CLOSER = {"(": ")", "[": "]", "{": "}"}


def _matches(toks: list[_Tok]) -> dict[int, int]:
    """The index of each opening bracket's closing one; brackets that do not match raise."""
    out: dict[int, int] = {}
    stack: list[int] = []
    for i, t in enumerate(toks):
        if t.kind != "op":
            continue
        if t.text in _CLOSER:
            stack.append(i)
        elif t.text in (")", "]", "}"):
            if not stack or _CLOSER[toks[stack[-1]].text] != t.text:
                raise _LexError(f"an unmatched {t.text!r} at line {t.line}")
            out[stack.pop()] = i
    if stack:
        raise _LexError(f"an unclosed {toks[stack[-1]].text!r} at line {toks[stack[-1]].line}")
    return out


def _render(toks: list[_Tok], a: int, b: int) -> str:
    """Tokens a..b (inclusive) as written, whitespace normalized."""
    out: list[str] = []
    for k in range(a, b + 1):
        t = toks[k]
        nxt = toks[k + 1] if k < b else None
        if t.text == "," and nxt is not None and nxt.gap == "\n" and nxt.text in (")", "]", "}"):
            continue  # a trailing comma before a closing bracket on its own line
        if out and t.gap:
            prev = toks[k - 1].text
            tight = t.gap == "\n" and (prev in ("(", "[") or t.text in (")", "]"))
            if not tight:
                out.append(" ")
        out.append(t.text)
    return "".join(out)


def _capped(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 3].rstrip() + "..."


# ----------------------------------------------------------------------------- declarations
@dataclass
class _Param:
    name: str
    type: str
    default: str | None  # None: none given
    line: int
    rest: bool = False  # `*$name`
    block: bool = False  # a Ruby function's `&$name`
    optional: bool = False  # a Ruby function's optional_param
    implicit: bool = False  # a define's `name` or `title`, which are always given

    def written(self, limit: int = _MAX_INLINE_DEFAULT) -> str:
        """The parameter as written: `Optional[String] $x = undef`."""
        var = ("*" if self.rest else "&" if self.block else "") + "$" + self.name
        head = f"{self.type} {var}" if self.type else var
        if self.default is not None:
            head += " = " + _capped(self.default, limit)
        return head


@dataclass
class _Decl:
    keyword: str  # class, define, type, function, plan
    name: str
    line: int
    params: list[_Param] = field(default_factory=list)
    parent: str = ""  # a class's inherits
    returns: str = ""  # a function's `>> Type`
    alias: str = ""  # a type alias's type, whitespace normalized
    alias_written: str = ""  # as written, dedented
    doc: list[str] = field(default_factory=list)  # its comment block, `#` dropped


_DECL_KEYWORDS = frozenset({"class", "define", "type", "function", "plan"})


def _declarations(text: str) -> list[_Decl]:
    """The top-level declarations of a manifest, each with its comment block."""
    toks = _lex(text)
    match = _matches(toks)
    lines = text.split("\n")
    out: list[_Decl] = []
    i = 0
    while i < len(toks):
        t = toks[i]
        if (
            t.kind == "name"
            and t.text in _DECL_KEYWORDS
            and i + 1 < len(toks)
            and toks[i + 1].kind == "name"
        ):
            got = _declaration(toks, match, i)
            if got is not None:
                decl, nxt = got
                after = toks[i - 1].end if i else 0
                decl.doc = _comment_above(lines, t.line, text.count("\n", 0, after) + 1 if i else 0)
                if decl.keyword == "type":
                    decl.alias_written = _written_alias(text, toks, i, nxt - 1)
                out.append(decl)
                i = nxt
                continue
        if t.kind == "op" and t.text in _CLOSER:
            i = match[i] + 1
            continue
        i += 1
    return out


def _declaration(toks: list[_Tok], match: dict[int, int], i: int) -> tuple[_Decl, int] | None:
    """The declaration whose keyword is token i, and the index after it; None when the
    tokens after the keyword are no declaration."""
    n = len(toks)
    keyword, name = toks[i].text, toks[i + 1].text.lstrip(":")
    decl = _Decl(keyword, name, toks[i].line)
    j = i + 2

    def at(k: int, text: str) -> bool:
        return k < n and toks[k].kind == "op" and toks[k].text == text

    if keyword == "type":
        if not at(j, "="):
            return None
        k = j + 1
        if k >= n or toks[k].kind != "name":
            return None
        end = k
        while at(end + 1, "["):
            end = match[end + 1]
        decl.alias = _render(toks, k, end)
        return decl, end + 1
    if at(j, "("):
        decl.params = _params(toks, match, j)
        j = match[j] + 1
    elif keyword == "function":
        return None
    if keyword == "class" and j < n and toks[j].kind == "name" and toks[j].text == "inherits":
        if j + 1 >= n or toks[j + 1].kind != "name":
            return None
        decl.parent = toks[j + 1].text.lstrip(":")
        j += 2
    if keyword == "function" and at(j, ">>"):
        k = j + 1
        while k < n and not at(k, "{"):
            k = match[k] + 1 if toks[k].kind == "op" and toks[k].text in _CLOSER else k + 1
        if k >= n or k == j + 1:
            return None
        decl.returns = _render(toks, j + 1, k - 1)
        j = k
    if not at(j, "{"):
        return None
    return decl, match[j] + 1


def _params(toks: list[_Tok], match: dict[int, int], p: int) -> list[_Param]:
    """The parameters between the bracket at p and its match."""
    out: list[_Param] = []
    chunk: list[int] = []
    k, q = p + 1, match[p]
    chunks: list[list[int]] = []
    while k < q:
        t = toks[k]
        if t.kind == "op" and t.text == ",":
            chunks.append(chunk)
            chunk = []
            k += 1
            continue
        if t.kind == "op" and t.text in _CLOSER:
            chunk.extend(range(k, match[k] + 1))
            k = match[k] + 1
            continue
        chunk.append(k)
        k += 1
    chunks.append(chunk)
    for c in chunks:
        var = next((x for x in c if toks[x].kind == "var"), None)
        if var is None:
            continue
        before = [x for x in c if x < var]
        rest = bool(before) and toks[before[-1]].text == "*"
        if rest:
            before = before[:-1]
        typ = _render(toks, before[0], before[-1]) if before else ""
        after = [x for x in c if x > var]
        default = None
        if after and toks[after[0]].text == "=" and len(after) > 1:
            default = _capped(_render(toks, after[1], after[-1]), _MAX_DEFAULT)
        name = toks[var].text[1:].lstrip(":")
        out.append(_Param(name, typ, default, toks[var].line, rest=rest))
    return out


def _written_alias(text: str, toks: list[_Tok], i: int, end: int) -> str:
    """A type alias's declaration as written from its keyword, dedented."""
    start = text.rfind("\n", 0, toks[i].start) + 1
    lines = [x for x in text[start : toks[end].end].split("\n") if not _LINT_LINE.match(x)]
    return textwrap.dedent("\n".join(lines)).strip()


_LINT_LINE = re.compile(r"^\s*#\s*(?:lint:|rubocop:)")
_CONTROL = re.compile(r"^\s*(?:lint:|rubocop:|frozen_string_literal:|-\*-|vim?:|encoding:)")
_SEPARATOR = re.compile(r"^\s*(?:#{3,}|={4,}|-{4,}|\*{4,})\s*$")


def _comment_above(lines: list[str], line: int, after: int) -> list[str]:
    """The comment block above line `line` (1-based), blank lines between allowed, none of
    it on or before line `after`: its lines with `#` dropped."""
    k = line - 2  # index of the line above
    while k >= 0 and k + 1 > after and not lines[k].strip():
        k -= 1
    block: list[str] = []
    while k >= 0 and k + 1 > after and lines[k].lstrip().startswith("#"):
        block.append(lines[k].lstrip()[1:])
        k -= 1
    block.reverse()
    return block


# ----------------------------------------------------------------------------- doc comments
@dataclass
class _ParamDoc:
    text: str = ""
    type: str = ""
    options: list[tuple[str, str, str]] = field(default_factory=list)  # key, type, text
    deprecated: bool = False


@dataclass
class _Doc:
    summary: str = ""
    description: str = ""
    params: dict[str, _ParamDoc] = field(default_factory=dict)
    examples: list[tuple[str, str]] = field(default_factory=list)  # title, code
    notes: list[str] = field(default_factory=list)
    see: list[str] = field(default_factory=list)
    returns: list[tuple[str, str]] = field(default_factory=list)  # type, text
    raises: list[tuple[str, str]] = field(default_factory=list)
    private: bool = False
    deprecated: str | None = None
    since: str = ""

    def said(self) -> bool:
        return bool(
            self.summary
            or self.description
            or any(p.text or p.options for p in self.params.values())
            or self.examples
            or self.notes
            or self.returns
            or self.deprecated is not None
        )

    def param(self, name: str) -> _ParamDoc:
        return self.params.setdefault(name, _ParamDoc())


_TAG = re.compile(r"^@(\w+)(?:[ \t]+(.*))?$")
# tags whose text, begun on the tag's line, may go on on the unindented lines after it
_WRAPPED = frozenset({"param", "attr", "option", "note", "return", "raise", "see", "deprecated"})
# a paragraph about the license or the authors, not the thing documented
_LICENSE = re.compile(
    r"copyright\b|all rights reserved|licensed under|\blicenses/|apache license|"
    r"gnu (?:affero |lesser )?general public|without warrant|applicable law|"
    r"^\s*(?:authors?|maintainers?)\s*:",
    re.I,
)
_LICENSE_TERM = re.compile(r"\bthe License\b")


def _clean(raw: list[str]) -> list[str]:
    """Comment lines with control comments and separators dropped, one leading space
    dropped, tabs expanded, trailing blanks dropped, dedented, blank lines at the ends
    dropped."""
    kept = [  # a comment's `#` and the one space after it dropped, as YARD does
        (line[1:] if line.startswith(" ") else line).expandtabs(8).rstrip()
        for line in raw
        if not _CONTROL.match(line) and not _SEPARATOR.match(line)
    ]
    body = textwrap.dedent("\n".join(kept)).split("\n")
    while body and not body[0].strip():
        body.pop(0)
    while body and not body[-1].strip():
        body.pop()
    return body


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _dedent(lines: list[str]) -> list[str]:
    out = textwrap.dedent("\n".join(lines)).split("\n")
    while out and not out[0].strip():
        out.pop(0)
    while out and not out[-1].strip():
        out.pop()
    return out


def parse_doc(raw: list[str]) -> _Doc:
    """A doc comment's YARD tags, legacy RDoc sections and text (`raw`: its lines with the
    `#` dropped)."""
    lines = _clean(raw)
    doc = _Doc()
    free: list[str] = []
    i = 0
    while i < len(lines):
        m = _TAG.match(lines[i])
        if m is None:
            free.append(lines[i])
            i += 1
            continue
        first = (m.group(2) or "").strip()
        j = i + 1
        if first and m.group(1) in _WRAPPED:  # a wrapped first line goes on unindented
            while j < len(lines) and lines[j].strip() and not _TAG.match(lines[j]):
                j += 1
        while j < len(lines) and (not lines[j].strip() or lines[j].startswith(" ")):
            j += 1
        _tag(doc, m.group(1), first, _dedent(lines[i + 1 : j]))
        i = j
    _free_text(doc, free)
    flat = " ".join(doc.summary.split())
    if flat and " ".join(doc.description.split()).startswith(flat):
        doc.summary = ""  # the description opens with it
    return doc


def _tag(doc: _Doc, tag: str, first: str, body: list[str]) -> None:
    def text(head: str) -> str:
        return _markdown([head, *body] if head else body)

    if tag == "summary":
        doc.summary = " ".join(text(first).split())
    elif tag in ("param", "attr"):  # @attr: YARD's, some modules' for their parameters
        typ, rest = _typed(first)
        name, _, rest = rest.partition(" ")
        if not typ:
            typ, rest = _typed(rest.strip())
        name = name.lstrip("$*&")
        if name:
            p = doc.param(name)
            p.text = text(rest.strip())
            p.type = p.type or typ
    elif tag == "option":
        name, _, rest = first.partition(" ")
        typ, rest = _typed(rest.strip())
        key, _, rest = rest.partition(" ")
        if name and key:
            doc.param(name.lstrip("$")).options.append((key, typ, text(rest.strip())))
    elif tag == "example":
        code = "\n".join(body).strip("\n")
        if code or first:
            doc.examples.append((first, code))
    elif tag == "note":
        said = text(first)
        if said:
            doc.notes.append(said)
    elif tag == "see":
        said = text(first)
        if said:
            doc.see.append(" ".join(said.split()))
    elif tag in ("return", "raise"):
        typ, rest = _typed(first)
        said = text(rest)
        (doc.returns if tag == "return" else doc.raises).append((typ, said))
    elif tag == "api":
        if first.split()[:1] == ["private"]:
            doc.private = True
    elif tag == "private":
        doc.private = True
    elif tag == "deprecated":
        doc.deprecated = text(first)
    elif tag == "since":
        doc.since = " ".join(text(first).split())


def _typed(text: str) -> tuple[str, str]:
    """A leading `[Type]` (its brackets balanced: `[Array[String]]`) and what follows it."""
    if not text.startswith("["):
        return "", text
    depth = 0
    for k, c in enumerate(text):
        if c == "[":
            depth += 1
        elif c == "]":
            depth -= 1
            if depth == 0:
                return text[1:k].strip(), text[k + 1 :].lstrip()
    return "", text


_HEADING = re.compile(r"^ ?(={1,4})(?![=>~])\s*(.*?)\s*=*\s*$")
_TITLE = re.compile(r"^(?:class|define|definition|defined type|type|resource|function)\s*:", re.I)
_ITEM = re.compile(r"^(\s*)\[\*\$?([\w:.-]+)\*\]\s*(.*)$")
_BARE_ITEM = re.compile(r"^(\s*)\[\$?([\w:.-]+)\]\s*(.*)$")
_DEPRECATED_LINE = re.compile(r"^\s*DEPRECATED(?:\s+PARAM\w*)?\s*:?\s*$")


def _free_text(doc: _Doc, free: list[str]) -> None:
    """The description, with the legacy RDoc sections read out of it (see the module
    docstring)."""
    desc: list[str] = []
    section = "text"  # text, params, examples, drop
    deprecated = False
    example: list[str] = []
    sharing: list[_ParamDoc] = []
    i = 0

    def flush_example() -> None:
        if example:
            _rdoc_examples(doc, example)
            example.clear()

    while i < len(free):
        line = free[i]
        h = _HEADING.match(line)
        if h and h.group(2):
            title = h.group(2).rstrip(":").strip()
            low = title.lower()
            flush_example()
            if _TITLE.match(title):
                section = "text"
            elif "param" in low:
                section = "params"
                deprecated = "deprecated" in low
            elif low in ("example", "examples", "usage", "sample usage", "sample"):
                section = "examples"
            elif low.startswith(("author", "copyright", "licen")):
                section = "drop"
            else:
                section = "text"
                desc += ["", title + ":", ""]
            i += 1
            continue
        if _DEPRECATED_LINE.match(line):
            section, deprecated = "params", True
            i += 1
            continue
        m = _ITEM.match(line) or (_BARE_ITEM.match(line) if section == "params" else None)
        if m:
            flush_example()
            if section not in ("params",):
                section = "params"
            j = i + 1
            base = len(m.group(1))
            while j < len(free) and (not free[j].strip() or _indent(free[j]) > base):
                if _ITEM.match(free[j]) or _HEADING.match(free[j]):
                    break
                j += 1
            p = doc.param(m.group(2))
            p.text = _rdoc_text([m.group(3)] if m.group(3) else [], free[i + 1 : j])
            p.deprecated = p.deprecated or deprecated
            if not p.text and j < len(free) and _ITEM.match(free[j]):
                sharing.append(p)  # items listed together share the next one's text
            elif p.text:
                for q in sharing:
                    q.text = p.text
                sharing.clear()
            i = j
            continue
        if section == "drop":
            i += 1
            continue
        if section == "examples":
            example.append(line)
            i += 1
            continue
        if section == "params" and line.strip():
            section = "text"
        desc.append(line)
        i += 1
    flush_example()
    desc = [line for line in desc if not line.strip() or not _HEADING.match(line)]
    text = _markdown(desc)
    paragraphs = [
        p for p in text.split("\n\n") if not _LICENSE.search(p) and not _LICENSE_TERM.search(p)
    ]
    doc.description = "\n\n".join(paragraphs).strip()


def _rdoc_text(first: list[str], rest: list[str]) -> str:
    """A legacy item's text: lines indented two more than its text fenced as code."""
    lines = _dedent(rest)
    out: list[str] = [*first]
    code: list[str] = []
    base = min((_indent(x) for x in lines if x.strip()), default=0)

    def close() -> None:
        while code and not code[-1].strip():
            code.pop()
        if code:
            body = textwrap.dedent("\n".join(code))
            out.extend(["", "```", body, "```", ""])
            code.clear()

    for line in lines:
        if line.strip() and _indent(line) >= base + 2:
            code.append(line)
        elif not line.strip() and code:
            code.append("")
        else:
            close()
            out.append(line.strip())
    close()
    return _markdown(out)


def _rdoc_examples(doc: _Doc, lines: list[str]) -> None:
    """A legacy Examples section: unindented lines are titles (or text), indented ones code."""
    title: list[str] = []
    code: list[str] = []

    def close() -> None:
        body = textwrap.dedent("\n".join(code)).strip("\n")
        if body:
            doc.examples.append((" ".join(" ".join(title).split()), body))
            title.clear()
        code.clear()

    for line in lines:
        if line.strip() and _indent(line) == 0:
            if code:
                close()
            title.append(line.strip())
        else:
            code.append(line)
    close()


_BR = re.compile(r"\s*<br\s*/?>\s*$", re.I)


def _markdown(lines: list[str]) -> str:
    """Lines as Markdown text: dedented, trailing blanks and a line-ending `<br />` (a
    paragraph's end) dropped, runs of blank lines made one."""
    out: list[str] = []
    for line in _dedent([line.rstrip() for line in lines]):
        if _BR.search(line):
            out += [_BR.sub("", line), ""]
        else:
            out.append(line)
    text = "\n".join(out)
    return re.sub(r"\n{3,}", "\n\n", re.sub(r"[ \t]+\n", "\n", text)).strip()


_SENTENCE_END = re.compile(r"(?<!\be\.g)(?<!\bi\.e)(?<!\betc)(?<!\bvs)[.!?](?=\s|$)")
_DEFAULT_LINE = re.compile(r"^\s*(?:defaults? (?:to|value|is)|default:|example)", re.I)


def first_sentence(text: str) -> str:
    """The first sentence of a text's first paragraph, on one line (a line that starts
    `Defaults to` ends it too), at most 200 characters."""
    para: list[str] = []
    for line in text.split("\n"):
        if not line.strip() or line.startswith(("```", "    ")):
            break
        if para and _DEFAULT_LINE.match(line):
            break
        para.append(line.strip())
    flat = " ".join(" ".join(para).split())
    m = _SENTENCE_END.search(flat)
    if m:
        flat = flat[: m.end()]
    return _capped(flat, _MAX_SENTENCE)


# ----------------------------------------------------------------------------- documents
def _join(parts: Iterable[str]) -> str:
    return "\n\n".join(p for p in parts if p)


def _code(text: str) -> str:
    """Text in a code span, with enough backquotes."""
    fence = "``" if "`" in text else "`"
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _fenced(code: str, lang: str = "puppet") -> str:
    fence = "````" if "```" in code else "```"
    return f"{fence}{lang}\n{code}\n{fence}"


def _examples(examples: list[tuple[str, str]]) -> str:
    parts: list[str] = []
    for title, code in examples:
        block = [title] if title else []
        if code:
            block.append(_fenced(code))
        parts.append("\n".join(block))
    return "Examples:\n\n" + "\n\n".join(parts) if parts else ""


def _returns(items: list[tuple[str, str]], label: str) -> str:
    lines = []
    for typ, said in items:
        head = _code(typ) if typ else ""
        lines.append(" ".join(x for x in (head, said) if x))
    lines = [x for x in lines if x]
    if not lines:
        return ""
    if len(lines) == 1:
        return f"{label}: {lines[0]}"
    return f"{label}:\n" + "\n".join(f"- {x}" for x in lines)


def _see(items: list[str]) -> str:
    if not items:
        return ""
    if len(items) == 1:
        return f"See also: {items[0]}"
    return "See also:\n" + "\n".join(f"- {x}" for x in items)


def _notes(doc: _Doc) -> list[str]:
    out = [f"Note: {n}" for n in doc.notes]
    if doc.private:
        out.insert(0, "Private: not part of the module's public API.")
    if doc.deprecated is not None:
        out.insert(0, f"Deprecated: {doc.deprecated}" if doc.deprecated else "Deprecated.")
    if doc.since:
        out.append(f"Since: {doc.since}")
    return out


@dataclass
class _Item:
    """A documented thing's parameters and what its documents share."""

    f: SourceFile
    source: str
    module: _Module
    qual: str  # lower-cased name, the uri's
    context: str  # `class ntp`, for a parameter's `Of:` line
    private: bool

    def document(
        self, qual: str, text: str, kind: str, signature: str, line: int, **more: Any
    ) -> Document:
        mod: dict[str, Any] = {"module": self.module.name}
        if self.module.full:
            mod["module_name"] = self.module.full
        return api_document(
            self.source,
            URI_PREFIX,
            self.f,
            qual,
            text,
            kind,
            signature,
            line,
            **_LANG,
            **mod,
            **more,
        )


def _effective_default(item: _Item, p: _Param) -> str | None:
    common = [
        v
        for name, v in item.module.data.get(f"{item.qual}::{p.name.lower()}", [])
        if name == "common"
    ]
    if common:
        return _puppet_value(common[0])
    return p.default


def _listing(item: _Item, params: list[_Param], doc: _Doc) -> str:
    lines: list[str] = []
    for p in params[:_MAX_LISTED]:
        pd = doc.params.get(p.name)
        typ = p.type or (pd.type if pd else "")
        bits = [_code(typ)] if typ else []
        default = _effective_default(item, p)
        if default is not None:
            bits.append("default " + _code(_capped(default, 60)))
        head = _code(p.name) + (f" ({', '.join(bits)})" if bits else "")
        said = first_sentence(pd.text) if pd and pd.text else ""
        if pd and pd.deprecated:
            said = ("Deprecated. " + said).strip()
        lines.append(f"- {head}: {said}" if said else f"- {head}")
    if len(params) > _MAX_LISTED:
        lines.append(f"- ... and {len(params) - _MAX_LISTED} more")
    return "Parameters:\n" + "\n".join(lines) if lines else ""


def _param_document(item: _Item, p: _Param, pd: _ParamDoc | None, ruby: bool) -> Document | None:
    if pd is None or not (pd.text or pd.options):
        return None
    typ = p.type or pd.type
    signature = _Param(p.name, typ, p.default, p.line, p.rest, p.block).written()
    options = [
        "- " + _code(key) + (f" ({_code(t)})" if t else "") + (f": {said}" if said else "")
        for key, t, said in pd.options
    ]
    data = item.module.data.get(f"{item.qual}::{p.name.lower()}", [])
    data = sorted(data, key=lambda d: (d[0] != "common", d[0]))[:_MAX_DATA]
    facts: list[str] = []
    if pd.deprecated:
        facts.append("Deprecated.")
    if ruby:
        if p.optional:
            facts.append("Optional.")
        if p.rest:
            facts.append("Repeated: takes any number of arguments.")
        if p.block:
            facts.append("A block (lambda).")
    elif p.default is not None:
        facts.append("Default: " + _code(_capped(p.default, _MAX_DEFAULT)))
    elif not data and not p.rest and not p.implicit:
        facts.append("Required: no default.")
    body = [
        signature,
        pd.text,
        "Options:\n" + "\n".join(options) if options else "",
        *facts,
        "Module data (Hiera, looked up before the code's default):\n"
        + "\n".join(
            f"- {_code(name)}: {_code(_capped(_puppet_value(v), _MAX_DEFAULT))}" for name, v in data
        )
        if data
        else "",
        f"Type: {_code(typ)}" if typ else "",
        f"Of: {item.context}" + (" (private)" if item.private else ""),
    ]
    return item.document(
        f"{item.qual}:{p.name}",
        _join(body),
        "parameter",
        signature,
        p.line,
        name=p.name,
        parent=item.qual,
    )


def _manifest_documents(f: SourceFile, source: str, module: _Module) -> list[Document] | str:
    try:
        decls = _declarations(f.text.removeprefix("\ufeff"))
    except (_LexError, RecursionError):
        return PUPPET_BAD_SYNTAX
    out: list[Document] = []
    for d in decls:
        doc = parse_doc(d.doc)
        _untitled(doc, d.name)
        if d.keyword == "type":
            out.append(_alias_document(f, source, module, d, doc))
        elif doc.said():
            out += _decl_documents(f, source, module, d, doc)
    return out


_NAME_TITLE = re.compile(r"^(?:class|define|defined type|type|function|plan)?\s*:?\s*", re.I)


def _untitled(doc: _Doc, name: str) -> None:
    """The description less a first paragraph that only names the declaration (`# ntp`,
    `Class: ntp`)."""
    first, _, rest = doc.description.partition("\n\n")
    said = _NAME_TITLE.sub("", first.strip().strip("#*`= ").rstrip(":")).strip("`*: ")
    if "\n" not in first and said.lower().lstrip(":") == name.lower():
        doc.description = rest.strip()


def _alias_document(f: SourceFile, source: str, module: _Module, d: _Decl, doc: _Doc) -> Document:
    item = _Item(f, source, module, d.name.lower(), f"type alias {d.name}", doc.private)
    full = f"type {d.name} = {d.alias}"
    signature = full if len(full) <= _MAX_ALIAS_LINE else f"type {d.name}"
    written = _capped(d.alias_written, _MAX_ALIAS)
    body = [
        signature,
        doc.summary,
        doc.description,
        *_notes(doc),
        "Alias of:\n" + _fenced(written) if signature != full else "",
        _examples(doc.examples),
        _see(doc.see),
    ]
    return item.document(item.qual, _join(body), "type alias", signature, d.line, name=d.name)


def _decl_documents(
    f: SourceFile, source: str, module: _Module, d: _Decl, doc: _Doc
) -> list[Document]:
    kind = _KINDS[d.keyword]
    keyword = d.keyword
    item = _Item(f, source, module, d.name.lower(), f"{keyword} {d.name}", doc.private)
    params = list(d.params)
    if keyword == "define":  # a define's metaparameters, when documented
        known = {p.name for p in params}
        for meta in ("name", "title"):
            if meta in doc.params and meta not in known:
                params.insert(0, _Param(meta, "", None, d.line, implicit=True))
    if keyword == "function":
        signature = f"function {d.name}({', '.join(p.written() for p in params)})"
        if d.returns:
            signature += f" >> {d.returns}"
    else:
        signature = f"{keyword} {d.name}" + (f" inherits {d.parent}" if d.parent else "")
    main = module.summary if d.name.lower() == module.name.lower() and module.name else ""
    returns = doc.returns
    if keyword == "function" and d.returns and not any(t for t, _ in returns):
        returns = [(d.returns, returns[0][1] if returns else "")]
    body = [
        signature,
        doc.summary,
        doc.description,
        *_notes(doc),
        f"Module: {module.full or module.name}: {main}" if main else "",
        _listing(item, params, doc),
        _returns(returns, "Returns"),
        _returns(doc.raises, "Raises"),
        _examples(doc.examples),
        _see(doc.see),
    ]
    more: dict[str, Any] = {"name": d.name}
    if doc.private:
        more["private"] = True
    if d.parent:
        more["inherits"] = d.parent
    out = [item.document(item.qual, _join(body), kind, signature, d.line, **more)]
    for p in params:
        got = _param_document(item, p, doc.params.get(p.name), ruby=False)
        if got is not None:
            out.append(got)
    return out


# ----------------------------------------------------------------------------- Ruby functions
_CREATE = re.compile(r"Puppet::Functions\.create_function\(\s*:?(['\"]?)([\w:]+)\1")
_DISPATCH = re.compile(r"^(\s*)dispatch\s+:(\w+)\s+do\b")
_RUBY_PARAM = re.compile(
    r"^\s*(param|optional_param|repeated_param|optional_repeated_param|"
    r"required_repeated_param|block_param|optional_block_param)\b\s*\(?\s*"
    r"(?:(['\"])(.*?)\2\s*,\s*)?:(\w+)"
)
_RETURN_TYPE = re.compile(r"^\s*return_type\s*\(?\s*(['\"])(.*?)\1")
_DEF = re.compile(r"^(\s*)def\s+(\w+[?!]?)\s*(?:\((.*)\))?\s*$")


@dataclass
class _Signature:
    params: list[_Param]
    returns: str
    doc: _Doc

    def written(self, name: str) -> str:
        text = f"{name}({', '.join(p.written() for p in self.params)})"
        return text + (f" >> {self.returns}" if self.returns else "")


def _ruby_comment(lines: list[str], k: int) -> list[str]:
    """The `#` lines directly above line index k (blank lines between allowed)."""
    return _comment_above(lines, k + 1, 0)


def _ruby4_documents(f: SourceFile, source: str, module: _Module) -> list[Document] | str:
    m = _CREATE.search(f.text)
    if m is None:
        return []
    name = m.group(2).lstrip(":")
    lines = f.text.split("\n")
    at = f.text.count("\n", 0, m.start())
    doc = parse_doc(_ruby_comment(lines, at))
    short = name.rsplit("::", 1)[-1]
    sigs: list[_Signature] = []
    k = at + 1
    while k < len(lines):
        d = _DISPATCH.match(lines[k])
        if d:
            sig = _Signature([], "", parse_doc(_ruby_comment(lines, k)))
            indent = len(d.group(1))
            j = k + 1
            while j < len(lines) and not re.match(rf"^\s{{{indent}}}end\b", lines[j]):
                _ruby_param(sig, lines[j], j + 1)
                j += 1
            sigs.append(sig)
            k = j + 1
            continue
        k += 1
    if not sigs:  # no dispatch: the method named as the function
        for k in range(at + 1, len(lines)):
            d = _DEF.match(lines[k])
            if d and d.group(2) == short:
                sig = _Signature([], "", parse_doc(_ruby_comment(lines, k)))
                for arg in _ruby_args(d.group(3) or ""):
                    sig.params.append(_def_param(arg, k + 1))
                sigs.append(sig)
                break
    said = doc.said() or any(s.doc.said() for s in sigs)
    if not said:
        return []
    return _function_documents(f, source, module, name, doc, sigs, at + 1, "ruby 4.x")


def _ruby_param(sig: _Signature, line: str, number: int) -> None:
    p = _RUBY_PARAM.match(line)
    if p:
        how, typ, name = p.group(1), p.group(3) or "", p.group(4)
        block = how.endswith("block_param")
        if block and not typ:
            typ = "Callable"
        optional = how.startswith("optional")
        if optional:
            typ = f"Optional[{typ or 'Any'}]"
        sig.params.append(
            _Param(
                name,
                typ or "Any",
                None,
                number,
                rest="repeated" in how,
                block=block,
                optional=optional,
            )
        )
        return
    r = _RETURN_TYPE.match(line)
    if r:
        sig.returns = r.group(2)


def _ruby_args(text: str) -> list[str]:
    """A Ruby method's argument list split at its top-level commas."""
    out, depth, cur = [], 0, ""
    for c in text:
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        if c == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += c
    if cur.strip():
        out.append(cur.strip())
    return out


def _def_param(arg: str, line: int) -> _Param:
    name, _, default = arg.partition("=")
    name = name.strip()
    if name.startswith("&"):
        return _Param(name[1:], "Callable", None, line, block=True)
    if name.startswith("*"):
        return _Param(name.lstrip("*"), "Any", None, line, rest=True)
    name = name.rstrip(":")
    return _Param(name, "Any", default.strip() or None, line, optional=bool(default.strip()))


def _function_documents(
    f: SourceFile,
    source: str,
    module: _Module,
    name: str,
    doc: _Doc,
    sigs: list[_Signature],
    line: int,
    api: str,
) -> list[Document]:
    item = _Item(f, source, module, name.lower(), f"function {name}", doc.private)
    for s in sigs:  # what the signatures say of the function as a whole
        doc.private = doc.private or s.doc.private
        doc.examples += s.doc.examples
        doc.notes += s.doc.notes
        doc.see += s.doc.see
        doc.raises += s.doc.raises
    item.private = doc.private
    params: list[_Param] = []
    docs: dict[str, _ParamDoc] = {}
    for s in sigs:
        for p in s.params:
            if p.name not in {q.name for q in params}:
                params.append(p)
            pd = s.doc.params.get(p.name)
            if pd and (pd.text or pd.options) and p.name not in docs:
                docs[p.name] = pd
    listed = _Doc(params=docs)
    if len(sigs) == 1:
        signature = "function " + sigs[0].written(name)
        s = sigs[0]
        returns = [(t or s.returns, said) for t, said in s.doc.returns] or (
            [(s.returns, "")] if s.returns else []
        )
        signatures = ""
        extra = s.doc.summary, s.doc.description
    else:
        signature = f"function {name}"
        rows = []
        for s in sigs:
            said = " ".join(x for x in (s.doc.summary, first_sentence(s.doc.description)) if x)
            ret = next((r for _, r in s.doc.returns if r), "")
            tail = said or (f"Returns: {first_sentence(ret)}" if ret else "")
            rows.append(f"- {_code(s.written(name))}" + (f": {tail}" if tail else ""))
        signatures = "Signatures:\n" + "\n".join(rows) if rows else ""
        returns = []
        extra = ("", "")
    body = [
        signature,
        doc.summary,
        doc.description,
        *extra,
        *_notes(doc),
        signatures,
        _listing(item, params, listed),
        _returns(returns, "Returns"),
        _returns(doc.raises, "Raises"),
        _examples(doc.examples),
        _see(doc.see),
    ]
    more: dict[str, Any] = {"name": name, "api": api}
    if doc.private:
        more["private"] = True
    out = [item.document(item.qual, _join(body), "function", signature, line, **more)]
    for p in params:
        got = _param_document(item, p, docs.get(p.name), ruby=True)
        if got is not None:
            out.append(got)
    return out


_NEWFUNCTION = re.compile(r"newfunction\(\s*:?(['\"]?)(\w+)\1")
_DOC_HEREDOC = re.compile(r"(?::doc\s*=>|\bdoc:)\s*<<([-~]?)(['\"]?)(\w+)\2")
_DOC_STRING = re.compile(r"(?::doc\s*=>|\bdoc:)\s*(?:(['\"])((?:\\.|(?!\1).)*)\1)", re.S)


def _ruby3_documents(f: SourceFile, source: str, module: _Module) -> list[Document] | str:
    m = _NEWFUNCTION.search(f.text)
    if m is None:
        return []
    name = m.group(2)
    text = f.text[m.end() :]
    raw = ""
    h = _DOC_HEREDOC.search(text)
    s = _DOC_STRING.search(text)
    if h and (s is None or h.start() < s.start()):
        body_start = text.find("\n", h.end()) + 1
        end = re.compile(r"^\s*" + re.escape(h.group(3)) + r"\s*$", re.M).search(text, body_start)
        if body_start and end:
            raw = text[body_start : end.start()]
    elif s:
        raw = s.group(2).replace("\\n", "\n").replace('\\"', '"').replace("\\'", "'")
    doc = parse_doc(raw.split("\n"))
    if not doc.said():
        return []
    line = f.text.count("\n", 0, m.start()) + 1
    item = _Item(f, source, module, name.lower(), f"function {name}", doc.private)
    signature = f"function {name}"
    body = [
        signature,
        doc.summary,
        doc.description,
        *_notes(doc),
        "A function of Puppet's legacy Ruby 3.x API: its arguments are not declared.",
        _returns(doc.returns, "Returns"),
        _returns(doc.raises, "Raises"),
        _examples(doc.examples),
        _see(doc.see),
    ]
    more: dict[str, Any] = {"name": name, "api": "ruby 3.x"}
    if doc.private:
        more["private"] = True
    return [item.document(item.qual, _join(body), "function", signature, line, **more)]


# ----------------------------------------------------------------------------- tasks
def _task_documents(f: SourceFile, source: str, module: _Module) -> list[Document] | str:
    try:
        data = json.loads(f.text)
    except (ValueError, RecursionError):
        return []
    if not isinstance(data, dict):
        return []
    stem = f.rel.stem
    mod = module.name or "task"
    name = mod if stem == "init" else f"{mod}::{stem}"
    private = data.get("private") is True
    item = _Item(f, source, module, f"task/{name.lower()}", f"task {name}", private)
    raw = data.get("parameters")
    params: list[_Param] = []
    docs: dict[str, _ParamDoc] = {}
    for pname, spec in raw.items() if isinstance(raw, dict) else []:
        if not isinstance(spec, dict):
            spec = {}
        typ = str(spec.get("type") or "")
        params.append(_Param(str(pname), typ, None, 1, optional=typ.startswith("Optional[")))
        said = spec.get("description")
        if isinstance(said, str) and said.strip():
            docs[str(pname)] = _ParamDoc(text=_markdown(said.split("\n")))
    description = data.get("description")
    said = _markdown(description.split("\n")) if isinstance(description, str) else ""
    if not said and not docs:
        return []
    signature = f"task {name}"
    body = [
        signature,
        said,
        "Private: not part of the module's public API." if private else "",
        _listing(item, params, _Doc(params=docs)),
        "Supports noop." if data.get("supports_noop") is True else "",
    ]
    out = [item.document(item.qual, _join(body), "task", signature, 1, name=name)]
    for p in params:
        pd = docs.get(p.name)
        if pd is None:
            continue
        sig = p.written()
        text = _join(
            [
                sig,
                pd.text,
                "Optional." if p.optional else "",
                f"Type: {_code(p.type)}" if p.type else "",
                f"Of: task {name}" + (" (private)" if private else ""),
            ]
        )
        out.append(item.document(f"{item.qual}:{p.name}", text, "parameter", sig, 1, name=p.name))
    return out
