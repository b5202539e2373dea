"""Reading structure out of a chunk: API name and signature, prose paragraphs, sentences,
section headings.

A Chunk carries no document meta, so everything is derived from its uri, title and text:
docstring documents are `python:<qualified name>` and start with a one-line signature;
language-reference topics are `pydoc:topics/<key>`; anything else is a local document.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass
from typing import Literal

from jupiter.records import Chunk

API_PREFIX = "python:"
# collect/pyapi.py, jsapi.py, sqlapi.py, goapi.py, rustapi.py, capi.py, javaapi.py, phpapi.py,
# rubyapi.py, openapi.py, rdoc.py, ktapi.py, csapi.py, exapi.py, scalaapi.py, hsapi.py,
# vimhelp.py, protoapi.py, luaapi.py, cljapi.py, jsonschema.py, mliapi.py, graphqlapi.py,
# ansibledoc.py, solapi.py, elispapi.py, xsdapi.py, puppetapi.py, confdoc.py, swiftapi.py,
# dartapi.py, tfapi.py, nixapi.py
API_PREFIXES = (
    API_PREFIX,
    "javascript:",
    "sql:",
    "go:",
    "rust:",
    "c:",
    "java:",
    "php:",
    "ruby:",
    "openapi:",
    "r:",
    "kotlin:",
    "csharp:",
    "elixir:",
    "scala:",
    "haskell:",
    "vim:",
    "proto:",
    "lua:",
    "clojure:",
    "jsonschema:",
    "crd:",
    "ocaml:",
    "graphql:",
    "ansible:",
    "solidity:",
    "elisp:",
    "xsd:",
    "puppet:",
    "config:",
    "swift:",
    "dart:",
    "terraform:",
    "nix:",
)
TOPIC_PREFIX = "pydoc:topics/"
# documents whose indentation means code, a quote or a directive's content
MARKUP_SUFFIXES = (
    ".md", ".markdown", ".mdx", ".rst", ".ipynb", ".html", ".htm", ".xhtml", ".adoc", ".asciidoc",
    ".rdoc", ".mediawiki", ".wiki",
)  # fmt: skip

ChunkKind = Literal["api", "topic", "doc"]

# "name(args) -> result": $ in a JavaScript name (collect/jsapi.py); "::" in a Rust or PHP
# path, "\\" in a PHP namespace, "#" before a Ruby instance method; a Ruby method may end in
# ? ! or =, a Rust macro in !
_SIG_LINE = re.compile(
    r"^\s*(?P<name>[A-Za-z_$\\][\w.$\\]*(?:(?:::|#)[A-Za-z_$][\w.$]*)*[?!=]?"
    r"(?:(?:#|\.)(?:\[\]=?|[=!<>+\-*/%&|^~]{1,3}))?)\s*"  # a Ruby operator: #==, .[]
    r"(?P<sig>\(.*\)(?:\s*-{1,2}>\s*.+)?)\s*$"
)
# an old-style signature's line: "D.pop(k[,d]) -> v, remove specified key ...", "chain(
# *iterables) --> chain object", "partial(func, *args) - new function ...", "enable(file=
# sys.stderr): enable the fault handler": its name, then the call's parentheses
_OLD_CALL = re.compile(r"^\s*(?P<name>[A-Za-z_][\w.]*)(?=\()")
# what may follow the call: an arrow and its result, and a description after a dash, a colon
# or (after a result) a comma
_OLD_ARROW = re.compile(r"^\s*(?P<arrow>-{1,2}>)\s*")
_OLD_SAID = re.compile(r"^(?:\s+-{1,2}(?:\s+|$)|:(?:\s+|$))")
# a bare qualified name on a line of its own (a PHP property's "::$name")
_BARE_NAME = re.compile(r"\s*[A-Za-z_\\][\w.\\]*(?:(?:::|#)\$?[A-Za-z_]\w*)*[?!=]?\s*")
_QUALIFIER = re.compile(r"\.|::|#|\\")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\w\"'`(*\[])")
# a period after these ends an abbreviation, not a sentence
_ABBREVIATIONS = frozenset({"e.g.", "i.e.", "etc.", "vs.", "cf.", "resp.", "approx.", "no."})
_MD_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(?P<h>.+?)\s*#*\s*$")
_UNDERLINE = re.compile(r"^\s*([=\-*~^#+])\1{2,}\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")
# a word hyphenated at a line's end (groff's U+2010, a soft hyphen), and a compound broken at
# its own hyphen, unless the next word makes it a suspended one ("pre-\nand post-")
_WRAP_HYPHEN = re.compile(r"(\w)[\u2010\u00ad][ \t]*\n\s*(\w)")
_WRAP_DASH = re.compile(r"(\w-)[ \t]*\n\s*(?!(?:and|or|to|nor)\b)(\w)")
# markup that gives indentation a meaning (code, a quote, a directive's content): Markdown
# fences and headings, rst directives and link targets, literal blocks after "::"
_MARKUP_LINE = re.compile(r"^\s*(?:```|~~~|#{1,6}\s|\.\.\s+(?:[\w:|-]+::|_))|::\s*$", re.M)
# a numbered clause's or list item's number: "2.", "1.5.", "(a)", "iii)"
_ENUMERATOR = re.compile(r"^(?:\d+(?:\.\d+)*\.?|\(?[a-z]{1,4}\)|\(\d+\)|[a-z]\.)\s+")
# a word of running text, with the punctuation around it ("(or", "Your\")", "License,")
_PROSE_WORD = re.compile(r"^[(\"'“‘]*[A-Za-z][A-Za-z'’-]*[)\"'”’,.;:!?]*$")


# a declaration of a type, not of a member: it has no signature to ask about
_DECLARES_A_TYPE = {
    "solidity": r"^(?:(?:abstract )?contract|interface|library|struct|enum|type) ",
    "proto": r"^(?:message|enum|service|oneof|package) ",
    "graphql": r"^(?:type|interface|union|enum|input|scalar|schema|directive) ",
    # a type alias's `type X = Variant[...]` is asked as declared; a long one's is fenced
    "puppet": r"^(?:class|define|task) |^type (?!.* = )",
    # a Swift type's `public struct ArgumentVisibility: Hashable`; a Dart class's, a library's
    # `import 'package:http/retry.dart';`
    "swift": r"^(?:(?:@\w+|public|open|final|indirect|nonisolated) )*"
    r"(?:class|struct|enum|protocol|actor|extension) ",
    "dart": r"^(?:(?:abstract|base|interface|final|sealed|mixin) )*"
    r"(?:class|mixin|enum|extension(?: type)?) |^import ",
}


@dataclass(frozen=True)
class ChunkView:
    """The parts of a chunk that the question templates work from."""

    kind: ChunkKind
    name: str  # qualified API name ("json.dumps"), or the chunk's title
    signature: str  # "(obj, *, skipkeys=False)" when the chunk opens an API document, else ""
    body: str  # the text without the signature line
    is_head: bool  # the chunk starts its document (start == 0)
    is_module: bool = False  # a module's docstring (known only on its first chunk)
    section: str = ""  # a document's heading in force where the chunk starts
    in_code: bool = False  # the chunk starts inside a fenced code block of its document
    plain: bool = False  # plain text, where an indented paragraph may be prose (plain_chunk)
    language: str = ""  # an API document's language, from its uri ("python", "go", "c")
    program: str = ""  # the program a `.. program::` directive before the chunk named
    owners: tuple[tuple[int, str], ...] = ()  # the synopses it starts under (ChunkStart)
    subject: str = ""  # its document's subject as the document's first chunk read it


def view(
    chunk: Chunk,
    section: str = "",
    in_code: bool = False,
    program: str = "",
    owners: tuple[tuple[int, str], ...] = (),
    subject: str = "",
) -> ChunkView:
    """Classify a chunk and split off the signature line of a docstring document.
    For a document's chunk, `section` is the heading in force where it starts, `in_code`
    says it starts inside a fenced code block, `program` is the program a `.. program::`
    directive before it named and `owners` the commands whose synopses it starts indented
    under and `subject` its document's subject as its first chunk read it
    (`questions.chunk_starts`)."""
    if chunk.uri.startswith(API_PREFIXES):
        language, name = chunk.uri.split(":", 1)
        name = name or chunk.title
        if chunk.start != 0:
            return ChunkView("api", name, "", chunk.text, False, language=language)
        if language == "haskell":  # `foldr :: (a -> b -> b) -> b -> [a] -> b`, `data T a`
            return _haskell_view(chunk.text, name)
        if language == "lua":  # `pl.List:append(i)`: a method's `:`, or a field's `name = 10`
            head, _, body = chunk.text.partition("\n\n")
            call = re.match(r"^[\w.:]+(\(.*\))$", head.strip())
            signature = call.group(1) if call else ""
            module = head.strip() == name  # a module's document opens with its name
            return ChunkView("api", name, signature, body, True, module, language=language)
        if language in ("jsonschema", "xsd", "crd"):  # `jobs.<name>.runs-on: string | object`,
            head, _, body = chunk.text.partition("\n\n")
            root = head == name  # the schema's own document opens with its name
            return ChunkView("api", name, "" if root else head, body, True, root, language=language)
        if language == "ansible":  # `ansible.builtin.copy - Copy files ...`; an option's
            # `dest: path, required`, a return value's `content: str`
            head, _, body = chunk.text.partition("\n\n")
            member = ":" in name  # an option or a return value: its type after the name
            typ = head.partition(": ")[2] if member else ""
            module = not member and "/" not in name  # a lookup's `lookup/...` is no module
            return ChunkView("api", name, typ, body, True, module, language=language)
        if language == "ocaml":  # `val map : ('a -> 'b) -> 'a list -> 'b list`, `module List`
            head, _, body = chunk.text.partition("\n\n")
            module = head.startswith("module ")  # a module's, a functor's, a module type's
            declared = "" if module else head
            return ChunkView("api", name, declared, body, True, module, language=language)
        if language in ("proto", "graphql", "solidity", "puppet", "swift", "dart"):  # `rpc
            # Get(Req) returns
            # (Item);`, `string id = 1;`; a GraphQL field's `issues(first: Int): T!`; a Puppet
            # function's declaration, a parameter's `Optional[String] $config_dir = undef`; a
            # Swift or Dart declaration as written (a Dart library's: its import line)
            head, _, body = chunk.text.partition("\n\n")
            plain = re.match(_DECLARES_A_TYPE[language], head)
            library = language == "dart" and head.startswith("import ")
            return ChunkView(
                "api", name, "" if plain else head, body, True, library, language=language
            )
        if language == "terraform":  # a variable's `variable "cidr": string = "10.0.0.0/16"`,
            # an output's `output "vpc_id"`, a module's `module "terraform-aws-vpc"`
            head, _, body = chunk.text.partition("\n\n")
            signature = head if head.startswith("variable ") else ""
            return ChunkView("api", name, signature, body, True, False, language=language)
        if language == "nix":  # an option's `programs.git.signing.key: null or string`, a
            # library function's `concatStrings :: [string] -> string`; a module's list
            head, _, body = chunk.text.partition("\n\n")
            module = name.startswith("module:")
            return ChunkView(
                "api", name.removeprefix("module:"), "" if module else head, body, True,
                module, language=language,
            )  # fmt: skip
        if language == "config":  # `maxmemory-policy noeviction`: the setting's line(s) as
            # the file writes them, then its documentation; a file's own document its name
            head, _, body = chunk.text.partition("\n\n")
            return ChunkView("api", name, "", body, True, False, language=language)
        if language == "vim":  # `:[range]d[elete] [x]`, `abs({expr})`: its syntax lines
            syntax, _, body = chunk.text.partition("\n\n")
            return ChunkView("api", name, syntax, body, True, False, language=language)
        if language == "clojure":  # `(join coll)` and `(join separator coll)`: its arities
            head, _, body = chunk.text.partition("\n\n")
            calls = head if head.startswith("(") else ""  # a var's, a protocol's bare name
            namespace = "/" not in name  # a namespace's document: `clojure.string`
            return ChunkView("api", name, calls, body, True, namespace, language=language)
        if language == "elisp":  # `(magit-status &optional DIRECTORY CACHE)`, as C-h f shows
            head, _, body = chunk.text.partition("\n\n")
            form = head if head.startswith("(") else ""  # a variable's, a face's bare name
            return ChunkView("api", name, form, body, True, False, language=language)
        # an Elixir function's `/arity` is ExDoc's, its text's line `Enum.join(...)` has none
        bare = re.sub(r"/\d+$", "", name) if language == "elixir" else name
        signature, body, is_module = split_signature(chunk.text, bare)
        return ChunkView("api", name, signature, body, True, is_module, language=language)
    kind: ChunkKind = "topic" if chunk.uri.startswith(TOPIC_PREFIX) else "doc"
    return ChunkView(
        kind,
        chunk.title,
        "",
        chunk.text,
        chunk.start == 0,
        section=section,
        in_code=in_code,
        plain=plain_chunk(chunk),
        program=program,
        owners=owners,
        subject=subject,
    )


def plain_chunk(chunk: Chunk) -> bool:
    """A chunk of a plain-text document (a manual page rendered to text, a license, an RFC,
    an info node, a PDF's text), where indentation is a margin, not code or a quote: no
    markup format by its file name and no markup line in its text (is_plain)."""
    if chunk.uri.startswith((*API_PREFIXES, TOPIC_PREFIX)):
        return False
    name = chunk.uri.rsplit("/", 1)[-1].lower().removesuffix(".gz")
    return not name.endswith(MARKUP_SUFFIXES) and is_plain(chunk.text)


def split_signature(text: str, name: str) -> tuple[str, str, bool]:
    """(signature, body, is_module) of a docstring document's text.

    The collector opens a function, class or method document with `qualname(args)`, or
    with the bare `qualname` when there is no introspectable signature, in which case a
    builtin's docstring often opens with its own old-style line (`name(args) -> result`,
    `D.count(value) -- return ...`: `old_call`), read as the signature and, where it
    describes the call, the body's first sentence. A module's document is its docstring
    alone.
    """
    short = split_qualified(name)[1]
    first, _, rest = text.partition("\n")
    m = _SIG_LINE.match(first)
    if m is not None and split_qualified(m.group("name"))[1] == short:
        # the docstring's own old-style line repeats the call: its description stays
        return m.group("sig").strip(), _after_old_call(rest.lstrip("\n"), short)[1], False
    if not _BARE_NAME.fullmatch(first) or split_qualified(first.strip())[1] != short:
        return "", text, True
    return _after_old_call(rest.lstrip("\n"), short)


def _after_old_call(body: str, short: str) -> tuple[str, str, bool]:
    """(signature, body, False): the signature of the old-style line `body` opens with
    when it is `short`'s, and the body after it with the line's description first (on the
    next line when a dash ends the line: "Exception.add_note(note) --")."""
    first, _, rest = body.partition("\n")
    # the call's result continued on the lines after it: "check_values(values : Values)\n->
    # (values : Values)", "recv_fds(sock) -> (data, list of file\ndescriptors, address)"
    while rest and (
        first.count("(") > first.count(")") or re.match(r"\s*-{1,2}>", rest.partition("\n")[0])
    ):
        more, _, rest = rest.partition("\n")
        first = f"{first} {more.strip()}"
    call = old_call(first, short)
    if call is None:
        return "", body, False
    sig, said, dangling = call
    while not said and not dangling:  # more forms of the call: "alignment(C type) ->
        # integer\nalignment(C instance) -> integer\nReturn the alignment ..."
        line, _, after = rest.partition("\n")
        form = old_call(line, short)
        if form is None or form[1] or form[2]:
            break
        rest = after
    if dangling:
        said, rest = rest.strip(), ""
    rest = rest.lstrip("\n") if not said else rest
    if said:
        rest = f"{said[0].upper()}{said[1:]}\n{rest}".rstrip("\n")
    return sig, rest, False


def old_call(line: str, short: str) -> tuple[str, str, bool] | None:
    """(signature, description, whether a dash ends the line) of an old-style signature
    line of `short`'s, or None: "D.pop(k[,d]) -> v, remove specified key and return ..."
    -> ("(k[,d]) -> v", "remove specified key and return ...", False); "chain(*iterables)
    --> chain object" -> ("(*iterables) --> chain object", "", False); an arrow to a
    sentence ("zip(*iterables) --> Yield tuples until an input is exhausted.") says what
    the call does, not its result."""
    m = _OLD_CALL.match(line)
    if m is None or split_qualified(m.group("name"))[1] != short:
        return None
    args = _inside_parens(line[m.end() :])
    if args is None:
        return None
    sig, tail = f"({args})", line[m.end() + len(args) + 2 :]
    arrow = _OLD_ARROW.match(tail)
    if arrow is not None:
        result = tail[arrow.end() :]
        cut = _result_end(result)
        if cut is None and re.fullmatch(r"[A-Z][a-z]+(?:\s+\S+){2,}\.", result.strip()):
            return sig, result.strip(), False
        if cut is None:
            return f"{sig} {arrow.group('arrow')} {result.strip()}".rstrip(), "", False
        sig = f"{sig} {arrow.group('arrow')} {result[: cut.start()].strip()}"
        return sig, result[cut.end() :].strip(), False
    if not tail.strip():
        return sig, "", False
    said = _OLD_SAID.match(tail)
    if said is None:
        return None
    return sig, tail[said.end() :].strip(), not tail[said.end() :].strip()


def _result_end(result: str) -> re.Match[str] | None:
    """Where a call's result ends and its description starts: at a dash (" -- return
    first index"), or a comma outside brackets (", remove and return some pair")."""
    depth = 0
    for k, ch in enumerate(result):
        depth += (ch in "([{") - (ch in ")]}")
        if depth == 0 and ch == "-":
            m = _DASH_SAID.match(result, max(k - 1, 0))
            if m is not None and result[: m.start()].strip():
                return m
        # after a comma only a result of a few words: "-> D[k] if k in D, else d" is one
        if depth == 0 and ch == "," and 0 < len(result[:k].split()) <= 2:
            return _COMMA_SAID.match(result, k)
    return None


_DASH_SAID = re.compile(r"\s*-{1,2}\s+")
_COMMA_SAID = re.compile(r",\s*")


def _haskell_view(text: str, name: str) -> ChunkView:
    """A Haskell document: its first line the type signature Haddock shows (`name :: T`, its
    type the signature), a type's or class's head, or the module's description."""
    first, _, rest = text.partition("\n")
    m = re.match(r"^\(?[^\s()]+\)?\s*::\s*(.+)$", first)
    if m is not None:
        return ChunkView(
            "api", name, f" :: {m.group(1)}", rest.lstrip("\n"), True, False, language="haskell"
        )
    if re.match(r"^(?:data|newtype|class|type(?: family)?)\s", first):
        return ChunkView("api", name, "", rest.lstrip("\n"), True, False, language="haskell")
    return ChunkView("api", name, "", text, True, True, language="haskell")


def split_qualified(name: str) -> tuple[str, str]:
    """(parent, last part) of a qualified name: "json.dumps" -> ("json", "dumps"),
    "anyhow::Error::context" -> ("anyhow::Error", "context"); ("", name) for a bare name."""
    parts = list(_QUALIFIER.finditer(name))
    if not parts:
        return "", name
    last = parts[-1]
    return name[: last.start()], name[last.end() :]


def unwrap(text: str) -> str:
    """Words broken at a line's end made whole: a hyphenated word ("prob\u2010\nlems", groff's
    manual pages; a soft hyphen), a compound or an option broken at its own hyphen
    ("--enable-\nsource" -> "--enable-source"; "pre-\nand post-" stays apart)."""
    return _WRAP_DASH.sub(r"\1\2", _WRAP_HYPHEN.sub(r"\1\2", text))


def collapse(text: str) -> str:
    """One line, single spaces: the light cleanup answers get (line wrapping is not content)."""
    return " ".join(unwrap(text).split())


def raw_paragraphs(text: str) -> list[str]:
    """Blank-line separated blocks, with their original lines and indentation."""
    return [p for p in re.split(r"\n[ \t]*\n", text) if p.strip()]


def is_plain(text: str) -> bool:
    """Text without markup that makes indentation mean something (a manual page rendered to
    text, a license, an RFC): there an indented paragraph may be running text."""
    return _MARKUP_LINE.search(text) is None


def _indented_prose(paragraph: str) -> bool:
    """An indented paragraph of plain text that reads as sentences: it opens with a word,
    ends a sentence, and is mostly words (not a command line, an option or a table)."""
    lines = textwrap.dedent(paragraph.strip("\n")).splitlines()
    words = _ENUMERATOR.sub("", " ".join(lines)).split()
    if len(words) < 6 or not re.match(r"[(\"'“‘]*[A-Za-z]", words[0]):
        return False
    if any(line.rstrip().endswith(("{", "}", "\\")) for line in lines):
        return False
    last = words[-1].rstrip(")\"'”’")
    listed = last in ("and", "or") and words[-2].endswith((";", ","))  # "... License; and"
    if not (last.endswith((".", "!", "?", ":", ";")) or listed):
        return False
    return sum(_PROSE_WORD.match(w) is not None for w in words) >= 0.75 * len(words)


def is_prose(paragraph: str, plain: bool = False) -> bool:
    """Running text, not code, doctest, grammar, tables or a heading. In `plain` text
    (is_plain) an indented paragraph is prose when it reads as sentences."""
    lines = paragraph.strip("\n").splitlines()
    first = lines[0]
    if first[:1] in (" ", "\t") and not (plain and _indented_prose(paragraph)):
        return False
    if first.lstrip().startswith((">>>", "...", "|", "+-", "```")):
        return False
    if any(_UNDERLINE.match(line) for line in lines) or _MD_HEADING.match(first):
        return False
    if all(_SIG_LINE.match(line) for line in lines):
        return False  # "name(args) -> result" lines: an old-style signature, a method list
    # a paragraph without a single lower-case word is a table or a label, not prose
    return re.search(r"\b[a-z]{2,}\b", paragraph) is not None


def prose_paragraphs(text: str, plain: bool = False) -> list[str]:
    """Prose paragraphs of `text`, collapsed to one line each, skipping fenced code; in
    `plain` text (plain_chunk) indented paragraphs that read as sentences too."""
    out: list[str] = []
    in_fence = False
    for p in raw_paragraphs(text):
        fences = sum(1 for line in p.splitlines() if _FENCE.match(line))
        if in_fence or fences:
            in_fence = in_fence != (fences % 2 == 1)
            continue
        if is_prose(p, plain):
            out.append(collapse(p))
    return out


def section_intro(text: str, max_paragraphs: int = 2, max_chars: int = 1200) -> str:
    """The first prose paragraphs of a section. A paragraph that introduces a code or
    grammar block (ends in ':' or mid-sentence) keeps that block, dedented, so it does not
    dangle; the block does not count as a paragraph."""
    blocks = raw_paragraphs(text)
    groups: list[str] = []
    i = 0
    while i < len(blocks) and len(groups) < max_paragraphs:
        block = blocks[i]
        i += 1
        if not is_prose(block):
            continue
        para = clip_sentences(collapse(block), 700)
        nxt = blocks[i] if i < len(blocks) else ""
        if nxt and not para.endswith((".", "!", "?", ")", '"')) and _is_code(nxt):
            code = textwrap.dedent(nxt).strip("\n")
            if len(code) <= 600:
                para = f"{para}\n\n{code}"
            i += 1
        groups.append(para)
    out = groups[:1]
    for g in groups[1:]:
        if len("\n\n".join([*out, g])) > max_chars:
            break
        out.append(g)
    return "\n\n".join(out)


def _is_code(block: str) -> bool:
    """An indented block or a complete fenced block: code, grammar or a doctest."""
    lines = block.strip("\n").splitlines()
    if _FENCE.match(lines[0]):
        return len(lines) > 1 and _FENCE.match(lines[-1]) is not None
    return lines[0][:1] in (" ", "\t") or lines[0].lstrip().startswith(">>>")


def sentences(paragraph: str) -> list[str]:
    """Split a collapsed paragraph after . ! ? and a space, except after an abbreviation,
    a single letter ("e.g. one", "J. Smith") or an ellipsis ("0, 1, ... up to"). Docstrings
    often start a sentence with a lower-case parameter name, so the next word's case is not
    required."""
    out: list[str] = []
    for piece in _SENTENCE_END.split(paragraph):
        last = out[-1].rsplit(" ", 1)[-1].lower().lstrip("([\"'") if out else ""
        if out and (
            last in _ABBREVIATIONS or re.fullmatch(r"\(?\w\.", last) or last.endswith("...")
        ):
            out[-1] = f"{out[-1]} {piece}"
        else:
            out.append(piece)
    return [s.strip() for s in out if s.strip()]


# a paragraph that is a list, a field or a docstring's labelled section, not what its text
# is about: "* `template_name`: ...", ":param x: a number", "Args: user - ...", "WARNING:
# ..." (a summary is the first paragraph that is none of them, if any)
# a label over a name and nothing else (Django's "Asynchronous version: `aclear()`", an API
# reader's "Declaration: `public sealed class PtrSig : NonLeafSig`")
_LABEL_OVER_NAME = r"\*{0,2}[A-Z][A-Za-z -]{2,40}\*{0,2}:\s+`{1,2}[^`\n]+`{1,2}\.?\s*\Z"
# a label of one to three words over a list ("Settings:", "Allowed values:" and their
# items), collapsed; not a sentence that ends in one ("An NNTP client class based on: - RFC
# 977 ...")
_LABEL_OVER_LIST = r"\*{0,2}[A-Z][a-z]+(?: [a-z]+){0,2}\*{0,2}:\s+[*+-]\s"
# when a value comes back (an Ansible return value's `Returned when: success`)
_RETURNED_WHEN = r"Returned when:\s"
_NOT_A_SUMMARY = re.compile(
    r"^(?:[*+-]\s|:[\w][\w .*,\[\]|-]*:(?:\s|$)|(?i:args|arguments|keyword arguments|"
    r"parameters|params|returns?|raises|yields?|attributes|examples?|notes?|nb|warnings?|"
    r"see also|todo):(?:\s|$)"
    # a version note (Sphinx's words for versionadded/-changed, deprecated)
    r"|(?:New|Changed) in version [\w.]+:|Deprecated since version [\w.]+:"
    rf"|{_LABEL_OVER_NAME}|{_LABEL_OVER_LIST}|{_RETURNED_WHEN})"
)


def lead(text: str, max_chars: int = 600, plain: bool = False) -> str:
    """The first prose paragraph that is no list, no field, no version note and no label
    over a bare name or a list (the first paragraph when all are, unless it is such a label: then
    none), cut to whole sentences when it runs past `max_chars`."""
    paras = prose_paragraphs(text, plain)
    if not paras:
        return ""
    said = [p for p in paras if not _NOT_A_SUMMARY.match(p)]
    if not said and re.match(f"{_LABEL_OVER_NAME}|{_LABEL_OVER_LIST}|{_RETURNED_WHEN}", paras[0]):
        return ""  # a label over a name or a list of members says what a thing holds, not does
    return clip_sentences((said or paras)[0], max_chars)


def clip_sentences(paragraph: str, max_chars: int) -> str:
    """Whole sentences from the start of `paragraph`, at least one, up to `max_chars`."""
    if len(paragraph) <= max_chars:
        return paragraph
    out: list[str] = []
    for s in sentences(paragraph):
        if out and len(" ".join([*out, s])) > max_chars:
            break
        out.append(s)
    return " ".join(out)


def headings(text: str) -> list[tuple[str, int]]:
    """(heading text, offset just past the heading) for Markdown `#` and underlined RST
    headings, in order."""
    out: list[tuple[str, int]] = []
    lines = text.splitlines(keepends=True)
    pos = 0
    for i, line in enumerate(lines):
        end = pos + len(line)
        md = _MD_HEADING.match(line.rstrip("\n"))
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        if md:
            out.append((clean_heading(md.group("h")), end))
        elif line.strip() and _UNDERLINE.match(nxt) and len(nxt.strip()) >= 0.6 * len(line.strip()):
            out.append((clean_heading(line), end + len(nxt)))
        pos = end
    return [(h, off) for h, off in out if 3 <= len(h) <= 80]


def clean_heading(text: str) -> str:
    """Strip emphasis markup, a section number and a trailing colon from a heading."""
    h = strip_numbering(collapse(text).strip("*_` "))
    return h.rstrip(":").strip()


# a manual's section number before its title: "2.7.1. Tool-selection Option", "3.12 What",
# "A.2. Glossary", or a bare "2 Using" before a capital (not "3 ways", "2to3")
_NUMBERING = re.compile(
    r"^(?:(?:\d{1,3}\.)+(?:\d{1,3}(?=\s))?|\d{1,3}(?=\s+[A-Z])|[A-Z](?:\.\d{1,3})+\.?)\s+(?=\S)"
)


def strip_numbering(title: str) -> str:
    """A heading or title without the section number a manual puts before it ("2.1. What
    Valgrind does" -> "What Valgrind does"); a title that is only a number stays."""
    rest = _NUMBERING.sub("", title, count=1)
    return rest if re.search(r"[^\W\d_]", rest) else title


@dataclass(frozen=True)
class Param:
    """One parameter as written in a signature."""

    name: str  # bare name, without stars
    text: str  # as written: "skipkeys=False", "*args", "**kw"
    keyword_only: bool


def split_top_level(s: str) -> list[str]:
    """Split on commas that are outside brackets and quotes (a Rust lifetime, `&'a str`,
    opens no quote; the `>` of an arrow, `Fn(u8) -> u8`, closes no bracket)."""
    parts: list[str] = []
    depth, quote = 0, ""
    cur: list[str] = []
    for k, ch in enumerate(s):
        if quote:
            quote = "" if ch == quote else quote
        elif ch == "'" and _lifetime(s, k):
            pass
        elif ch in "'\"":
            quote = ch
        elif ch in "([{<":
            depth += 1
        elif ch in ")]}>" and not (ch == ">" and s[k - 1 : k] == "-"):
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
            continue
        cur.append(ch)
    parts.append("".join(cur).strip())
    return [p for p in parts if p]


_LIFETIME = re.compile(r"'[A-Za-z_]\w*(?=\s*(?:[,>+)]|$))")


def _lifetime(s: str, k: int) -> bool:
    """Whether the quote at `k` starts a Rust lifetime ('a, 'static) rather than a string:
    after `&` or `<`, or a name left unclosed where a string could not begin (not after
    `=`, an opening bracket or a quote)."""
    before = s[:k].rstrip()[-1:]
    if s[k - 1 : k] in ("&", "<"):
        return True
    return before not in ("", "=", "(", "[", "{", "'", '"') and bool(_LIFETIME.match(s, k))


# languages whose parameters are written "type name" (C, C++, Java) or "name type" (Go)
TYPE_FIRST = frozenset({"c", "java", "csharp", "solidity"})
NAME_FIRST = frozenset({"go"})
# languages whose signature is the declaration as written, the name before its parameters
DECLARED = frozenset({"solidity", "graphql", "puppet", "dart"})
_PHP_VAR = re.compile(r"\$([A-Za-z_]\w*)")
_NO_NAME = frozenset(
    "void const self this int char long short double float unsigned signed bool "
    "size_t auto volatile".split()
)
_LAST_NAME = re.compile(r"([A-Za-z_]\w*)\s*(?:\[[^\]]*\]\s*)*$")
_POINTER_NAME = re.compile(r"\(\s*[*&^]+\s*([A-Za-z_]\w*)\s*\)")


def parameters(signature: str, language: str = "") -> list[Param]:
    """Parameters of "(a, /, b=1, *, c, **kw) -> T", without self/cls and the `/`, `*` markers;
    for a language that writes "type name" (C, Java: `const char *path`) or "name type" (Go:
    `dir string`) the name is read from where it stands, and a type given no name is none."""
    if language == "scala":  # every parameter list: `(z: B)(op: (B, A) => B)(implicit o: O)`
        return _scala_parameters(signature.strip())
    if language == "vim":  # a function's `{expr}` arguments, `[, {msg}]` optional
        call = re.match(r"^[\w.#:]+\((.*)\)$", signature.split("\n", 1)[0].strip())
        names = re.findall(r"\{([\w-]+)\}", call.group(1)) if call else []
        return [Param(f"{{{n}}}", f"{{{n}}}", False) for n in dict.fromkeys(names)]
    if language == "swift":  # a function's, an initializer's, a subscript's, a case's list
        return _swift_parameters(signature)
    if language in DECLARED and "(" in signature:  # `function transfer(address to, ...)`,
        signature = signature[signature.index("(") :]  # `issues(first: Int): T`: its list
    inner = _inside_parens(signature.strip())
    if inner is None:
        return []
    if language == "dart":
        return _dart_parameters(inner)
    if language in TYPE_FIRST or language in NAME_FIRST:
        return _typed_parameters(inner, language in NAME_FIRST)
    if language == "elixir":  # `joiner \\ ""`: an argument's default after two backslashes
        found = [(p.split("\\\\", 1)[0].strip(), p) for p in split_top_level(inner)]
        return [Param(name, part, False) for name, part in found if name.isidentifier()]
    if language == "r":  # "na.rm = FALSE", "...": R's names have dots
        found = [(_r_name(p), p) for p in split_top_level(inner)]
        return [Param(name, part, False) for name, part in found if name]
    if language in ("php", "puppet"):  # "Type $name = default": the name is the variable's
        found = [(m.group(1), p) for p in split_top_level(inner) if (m := _PHP_VAR.search(p))]
        return [Param(name, part, False) for name, part in found]
    if re.search(r"\[\s*,|(?:^|,)\s*\[", inner):
        # builtin docstrings write optional arguments as "name[, default]" or "name, [a, b]":
        # not nesting
        inner = re.sub(r"[\[\]]", "", inner)
    out: list[Param] = []
    kw_only = False
    for part in split_top_level(inner):
        if part == "/":
            continue
        if part == "*":
            kw_only = True
            continue
        bare = part
        if language == "kotlin":  # "vararg xs: Int", "crossinline block: () -> Unit", `in`
            bare = re.sub(r"^(?:(?:vararg|crossinline|noinline)\s+)+", "", part).replace("`", "")
        name = re.split(r"[=:]", bare, maxsplit=1)[0].strip().lstrip("*").strip()
        if part.startswith("*") and not part.startswith("**"):
            kw_only = True  # everything after *args is keyword-only
        if re.fullmatch(r"\.{3}|\w+(?:\s+\S+)+", name):
            # a signature in words: "filter(function or None, iterable)", "attrgetter(attr,
            # ...)": its arguments cannot be counted from it
            return []
        if (name in ("self", "cls") and not out) or not name.isidentifier():
            continue
        out.append(Param(name, part, kw_only and not part.startswith("*")))
    return out


def _scala_parameters(signature: str) -> list[Param]:
    out: list[Param] = []
    rest = signature
    while (inner := _inside_parens(rest)) is not None:
        rest = rest[len(inner) + 2 :].lstrip()
        for part in split_top_level(inner):
            bare = re.sub(r"^(?:implicit|using)\s+", "", part).replace("`", "")
            name = bare.split(":", 1)[0].strip()
            if name.isidentifier():
                out.append(Param(name, part, False))
    return out


def _r_name(part: str) -> str:
    """An R argument's name ("na.rm = FALSE" -> "na.rm"; "..."); "" when it is none."""
    name = part.split("=", 1)[0].strip()
    return name if re.fullmatch(r"\.\.\.|[A-Za-z.][\w.]*", name) else ""


def _typed_parameters(inner: str, name_first: bool) -> list[Param]:
    out: list[Param] = []
    for part in split_top_level(inner):
        decl = re.split(r"\s=\s|=(?!=)", part, maxsplit=1)[0].strip()
        if name_first:
            m = re.match(r"([A-Za-z_]\w*)\s+\S", decl)
        else:
            m = _POINTER_NAME.search(decl) or (
                _LAST_NAME.search(decl) if len(re.findall(r"\w+", decl)) > 1 else None
            )
        if m is None or m.group(1) in _NO_NAME:  # `unsigned int`, `void`: a type alone
            continue
        out.append(Param(m.group(1), part, False))
    return out


# where a Swift declaration's parameter list opens: `func name<T>(`, `init?(`, `case x(`
_SWIFT_CALL = re.compile(
    r"\b(?:func\s+[^\s(<]+|init[?!]?|subscript|case\s+\w+)\s*(?:<[^()]*>)?\s*(?=\()"
)


def _swift_parameters(signature: str) -> list[Param]:
    """A Swift declaration's parameters, named by their name inside the body
    (`_ arguments: [String]? = nil` is `arguments`, `from decoder: Decoder` is `decoder`);
    a property's wrapper arguments (`@Option(help: ...)`) are none."""
    m = _SWIFT_CALL.search(signature)
    inner = _inside_parens(signature[m.end() :]) if m else None
    if inner is None:
        return []
    out: list[Param] = []
    for part in split_top_level(inner):
        named = re.match(r"^(?:[A-Za-z_]\w*\s+)?([A-Za-z_]\w*)\s*:", part)
        if named is not None and named.group(1) != "_":
            out.append(Param(named.group(1), part, False))
    return out


def _dart_parameters(inner: str) -> list[Param]:
    """A Dart parameter list's names: `{...}` named and `[...]` optional groups opened,
    `required`, `this.x` and `super.x` read (`super.statusCode` is `statusCode`), a default
    after `=` left out of the name, each part kept as written."""
    inner = re.sub(r"^\s*[{\[]|[}\]]\s*$|(?<=,)\s*[{\[]", " ", inner)
    out: list[Param] = []
    for part in split_top_level(inner):
        decl = re.split(r"\s*=(?!=)", part, maxsplit=1)[0].strip()
        m = re.search(r"(?:^|[\s.>?)])([A-Za-z_$][\w$]*)$", decl)
        if m is not None and (" " in decl or re.match(r"^(?:this|super)\.", decl)):
            out.append(Param(m.group(1), part, False))
    return out


def _inside_parens(signature: str) -> str | None:
    """The text between the opening parenthesis and its matching close."""
    if not signature.startswith("("):
        return None
    depth = 0
    for i, ch in enumerate(signature):
        depth += (ch == "(") - (ch == ")")
        if depth == 0:
            return signature[1:i]
    return None
