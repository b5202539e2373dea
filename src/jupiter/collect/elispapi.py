"""Emacs Lisp files (`.el`) read as Emacs's own help shows them (`C-h f` describe-function,
`C-h v` describe-variable, `C-h P` describe-package): one document per documented
function, command, macro, variable, user option, face, mode, alias, group, struct, class
and package, so "what does `magit-status` do?" has a document to come from.

The files are read, never evaluated, by a reader of Emacs Lisp's syntax: lists `(...)`,
vectors `[...]`, records `#s(...)`, bytecode `#[...]` and propertized strings `#(...)`;
strings with their escapes (`\\"`, `\\\\`, `\\n`, `\\t`, `\\e`, `\\s`, `\\xNN`, `\\uNNNN`,
`\\N{...}`, octal, `\\^X`, a backslash-newline and backslash-space read as nothing, any
other `\\c` as `c`); character literals (`?a`, `?(`, `?\\(`, `?\\"`, `?\\C-x`,
`?\\M-\\C-a`, `?\\^I`; a `?` inside a symbol, `foo?`, is the symbol's); comments `;` to the
line's end (`;;;###autoload` cookies are comments too); quote `'`, backquote `` ` ``,
`,`, `,@` and `#'` put on the form after them; `\\` escaping the next character of a
symbol (`foo\\ bar`, read as `foo bar`); a dotted pair's `.` read as a symbol. A closing
bracket closes the innermost open form whatever its kind, one that closes nothing is
dropped, and forms left open end with the file, so any text reads without an error. The
reader is lazy, as a big file's function bodies are most of it: a list's items are read
only when asked for, and until then the list is only skipped over (strings, comments and
character literals told apart from its brackets), so a file costs about one pass.

The definitions read are the top-level forms and those inside a top-level `progn`,
`eval-and-compile`, `eval-when-compile`, `cl-eval-when`, `with-no-warnings`,
`with-eval-after-load`, `when` or `unless` (`(when (fboundp 'x) (defun ...))`):
- `defun`, `defsubst`, `define-inline`, `cl-defun`, `cl-defsubst`, `iter-defun`,
  `cl-iter-defun`, `defmacro`, `cl-defmacro`: `(head name arglist "doc"? body...)`, the
  docstring the string right after the arglist when more forms follow it (a string that
  is the whole body is the value returned, no doc). Kind "command" when the body, after
  the docstring and any `(declare ...)`, opens with `(interactive ...)`, else "function";
  the macros "macro". `(declare (obsolete NEW "VERSION"))` makes it obsolete, and
  `(declare (advertised-calling-convention ARGLIST "VERSION"))` gives the arglist shown.
- `cl-defgeneric`: `(cl-defgeneric name arglist "doc"? ...)`, the doc the string right
  after the arglist (kind "function"). `cl-defmethod`: only when it has a docstring, and
  then under the generic's name (kind "method"), its qualifiers (`:around`) and
  specializers (`(SEQUENCE array)`) shown in its signature; a `(setf name)` method none.
- `defvar`, `defvar-local` (kind "variable"; the text says that it becomes buffer-local
  when set), `defconst` ("constant"): `(head name value "doc")`, the docstring the third
  element; a `defvar` with no value has no doc. `defvar-keymap`: its `:doc`.
- `defcustom` (kind "user option"): `(defcustom name standard "doc" :key value...)`; its
  `:type`, `:group` (without one, the group of the file's last `defgroup` before it, as
  Emacs does), `:package-version` or else `:version`, `:safe` and `:options` are shown.
- `defface` (kind "face"): `(defface name spec "doc" :group g ...)`.
- `define-minor-mode` (kind "minor mode"): `(define-minor-mode name "doc" ...)`, its
  `:global` and `:lighter` (or the old positional INIT-VALUE LIGHTER KEYMAP after the
  doc); `define-globalized-minor-mode` and `define-global-minor-mode`: `(head name mode
  turn-on "doc"? ...)`, global. Both are commands `(name &optional ARG)`.
- `define-derived-mode` (kind "major mode"): `(define-derived-mode name parent "Name"
  "doc"? ...)`, a command `(name)` derived from its parent.
- `defalias`, `defvaralias`: `(defalias 'name #'target "doc")` a document only when it
  has a docstring, kind "alias", its text saying "An alias for `target`."; a `(lambda
  ...)` target documents a function with the lambda's arglist (its docstring when the
  defalias gives none). `define-obsolete-function-alias` and
  `define-obsolete-variable-alias` `(head 'old 'new "VERSION" "doc"?)`: always a document
  (kind "alias", obsolete since VERSION; that it is obsolete and what replaced it is
  worth telling with no docstring).
- `defgroup` (kind "group"): `(defgroup name members "doc" :group parent)`.
- `cl-defstruct` (kind "struct"): `(cl-defstruct name-or-(name options...) "doc" slots...)`,
  a document only when the docstring is there; its slots listed with each one's
  `:documentation`. `defclass` (EIEIO; kind "class"): `(defclass name (supers) (slots)
  "doc" options...)` or its `:documentation` option; its superclasses and slots listed.
- `transient-define-prefix`, `-suffix`, `-infix`, `-argument` (magit's transient): like
  `defun` (the string after the arglist is the doc whatever follows), kind "command".
- `define-skeleton` (`(define-skeleton name "doc" ...)`): kind "command".
Top-level `(make-obsolete 'old 'new "VERSION")` and `(make-obsolete-variable ...)`, before
or after the definition, make it obsolete; NEW may be nil or a string saying what to do.

A name holding `--` (`magit--refresh`) is internal, by Emacs's convention: no document;
nor a definition without a docstring. Emacs Lisp has one global namespace: the uri is
`elisp:` and the symbol (`elisp:magit-status`, `elisp:company-idle-delay`). A symbol
has a function, a variable, a face and a group of its own, all of one name: of the
definitions with a docstring the function's is the document (command, function, macro,
mode, function alias), then a method's, the face's (a `defvar` that names a face loses to
it), the variable's (option, variable, constant, variable alias), a struct's or class's,
the group's (`cus-edit.el`'s group `undo` does not hide the command); of two of one rank
the first (within a file, by position; across files, the first file's, by path).

The text: its first line the signature as `C-h f` shows it, `(magit-status &optional
DIRECTORY CACHE)`, the arguments upper-cased (a leading `_` dropped, as Emacs does) and
`&optional`, `&rest`, `&key`, `&body` kept; a cl-lib arglist as written, simplified: an
entry after `&optional`/`&key`/`&aux` that is a list `(type default)` shows its first
element (`((:kw var) x)` its var), one before them is a destructuring list shown as a list
of its own; a dotted `. rest` is `&rest REST`. A `(fn ARGS)` line ending the docstring
(after a blank line) takes the arguments' place, as `describe-function` does. A variable,
option, face, group, struct, class, alias or package shows its name alone (and records no
signature). Then a blank line and the docstring as Markdown: Emacs's markup read as
`substitute-command-keys` does (`` `foo' `` and `‘foo’` quoting -> `` `foo` ``,
`\\[command]` -> `` `M-x command` ``, `\\{keymap}`, `\\<keymap>` and `\\+` dropped, `\\=`
taking the next character literally), a first line that ends with "." its own paragraph,
the rest as written, lines indented 2 or more spaces after a blank line (or a line
ending `:`, as `Valid clauses include:` in `cl-loop`'s) fenced as ```` ```elisp ````
(dedented; fences the docstring has itself kept), and a buffer's or variable's earmuffed name (`*Help*`)
made a code span, as Markdown would read its stars as emphasis. After it, as lines: an
alias's "An alias for `target`." (before the docstring); a user option's `Type: <the
:type form as written, whitespace collapsed, quote dropped>`, `Default: <the standard
value as written>` (when it is at most 80 characters), `Group: g`, `Added in: <Emacs
:version>` or `Added in: <Package> <version>`, `Safe as a file-local variable when its
value satisfies `pred`.` and `Options: ...`; a face's `Face.`, `Group:` and `Added in:`; a
command's `Command: M-x name.` (a minor mode's also `Global minor mode.` and `Lighter:
...`, a major mode's `Derived from `parent`.`); a group's `Parent group: g`; and for
anything obsolete `Obsolete since VERSION; use `NEW` instead.`.

The package: the header line `;;; name.el --- summary  -*- ... -*-`, the header's
`Version:` (or `Package-Version:`), `Package-Requires:` and `Keywords:` lines, and the
`;;; Commentary:` section (up to `;;; Code:`, `;;; Change Log:` or `;;; History:`, or the
first line of code; each line's leading `;;` or `;` and one space stripped, a `;;;`
heading inside it a `##` Markdown heading, `;;;;` a `###` one, laid out as a docstring's
rest) give a document `elisp:<feature>` (kind "package"), the feature the `(provide
'name)` of the file, else the header's name, else the file's. When the file also
documents a symbol of that name (`grep.el`'s `grep` command), the symbol keeps the uri
and the package is `elisp:<feature>.el`. Its text: the feature, the summary, the header
lines as lines, the commentary.

Tests (under a `test/` or `tests/` folder; `*-test.el`, `*-tests.el`, `test-*.el`) and
generated files (`*-autoloads.el`, `*-pkg.el`, `loaddefs.el` and `*-loaddefs.el`, or a
first line `-*- ... no-byte-compile ... -*-` with "generated" in the first 3 lines)
give no document and are counted, and so is a file with nothing documented.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from jupiter.collect.result import (
    CollectResult,
    SourceFile,
    api_document,
    first_documents,
    renamed,
)
from jupiter.records import Document

SUFFIXES = (".el",)
URI_PREFIX = "elisp:"
# reasons an Emacs Lisp file gave no document, as the collect stage counts them
ELISP_TEST = "elisp_test"
ELISP_NO_API = "elisp_no_api"
ELISP_GENERATED = "elisp_generated"
_AS_TEXT = (
    "Emacs Lisp files read as Emacs's help shows them (the docstrings of their functions, "
    "commands, macros, variables, options, faces and modes, and the package's commentary): "
    "tests, generated files and files with nothing documented give none; the source's "
    "elisp: text reads them as text"
)
FIXES = {ELISP_TEST: _AS_TEXT, ELISP_NO_API: _AS_TEXT, ELISP_GENERATED: _AS_TEXT}
_TEST_FOLDERS = frozenset({"test", "tests"})
_TEST_NAME = re.compile(r"-tests?\.el$|^test-.*\.el$", re.I)
_GENERATED_NAME = re.compile(r"-autoloads\.el$|-pkg\.el$|(?:^|-)loaddefs\.el$", re.I)
_MAX_DEFAULT = 80  # characters of a user option's standard value shown
_MAX_DEPTH = 100  # forms deep a form is shown, and wrappers deep one is read
_MAX_SPAN = 4000  # characters of source past which a value is not worth showing

ElispFile = SourceFile  # its files, as the source hands them over


def is_elisp(name: str) -> bool:
    return name.lower().endswith(SUFFIXES)


def is_test(rel: PurePosixPath) -> bool:
    return bool(_TEST_FOLDERS & set(rel.parts[:-1])) or bool(_TEST_NAME.search(rel.name))


def is_generated(rel: PurePosixPath, text: str) -> bool:
    """Made by a tool (autoloads, a package descriptor, loaddefs): by its name, or a
    first line's `no-byte-compile` cookie with "generated" said in the first 3 lines."""
    if _GENERATED_NAME.search(rel.name):
        return True
    head = text[:2000].split("\n", 3)[:3]
    first = head[0] if head else ""
    if not re.search(r"-\*-.*no-byte-compile.*-\*-", first):
        return False
    return any("generated" in line.lower() for line in head)


def api_documents(
    files: list[ElispFile], source: str, rejects: CollectResult | None = None, top: str = ""
) -> list[Document]:
    """Documents for what the files document, sorted by uri; a file that gives none is
    counted in `rejects`. Of a symbol documented in two files, the lower rank's (a
    function's over a face's over a variable's over a group's), then the first file's; a
    package named like a symbol documented anywhere is `elisp:<feature>.el`. `top` (the
    source's folder name) is not needed: Emacs Lisp's names are global."""
    read_once: dict[int, list[tuple[int, Document]] | str] = {}
    for f in files:
        if is_test(f.rel):
            read_once[id(f)] = ELISP_TEST
        elif is_generated(f.rel, f.text):
            read_once[id(f)] = ELISP_GENERATED
        else:
            read_once[id(f)] = list(_documents(_read_file(f), source))
    best: dict[str, int] = {}
    for got in read_once.values():
        for rank, doc in got if not isinstance(got, str) else []:
            if doc.meta["kind"] != "package":
                best[doc.uri] = min(rank, best.get(doc.uri, rank))

    def read(f: ElispFile) -> list[Document] | str:
        got = read_once[id(f)]
        if isinstance(got, str):
            return got
        out: list[Document] = []
        for rank, doc in got:
            if doc.meta["kind"] == "package" and doc.uri in best:
                qual = doc.meta["qualname"]
                out.append(renamed(doc, URI_PREFIX, qual, f"{qual}.el", "\0"))
            elif rank <= best.get(doc.uri, rank):
                out.append(doc)
        return out

    return first_documents(files, rejects, read, ELISP_NO_API)


# ----------------------------------------------------------------------------- reading
_OPENERS = ("(", "[", "#s(", "#[", "#(")
_CLOSER = {"(": ")", "[": "]", "#s(": ")", "#[": "]", "#(": ")"}

# a character literal starts a token: a `?` inside a symbol (`foo?`) is the symbol's
_CHAR = r"""(?<![^\s()\[\]'`,@"])\?(?:\\[CMSHAs]-|\\\^)*(?:\\(?:x[0-9a-fA-F]+|[0-7]{1,3}|.)|.)?"""
_TOKEN = re.compile(
    rf"""
    (?P<ws>\s+)
    |(?P<comment>;[^\n]*)
    |(?P<str>"(?:[^"\\]|\\.)*"?)
    |(?P<char>{_CHAR})
    |(?P<open>\(|\[|\#s\(|\#\[|\#\()
    |(?P<close>[)\]])
    |(?P<prefix>,@|,|'|`|\#')
    |(?P<atom>(?:[^\s;"'()\[\]`,\\]|\\.)+|\\)
    |(?P<other>.)
    """,
    re.X | re.S,
)
# what matters when skipping a list: its brackets, and what may hide one
_SKIP = re.compile(rf"""{_CHAR}|"(?:[^"\\]|\\.)*"?|;[^\n]*|\\.|[()\[\]]""", re.S)


def _skip(text: str, pos: int, ends: dict[int, int]) -> int:
    """Where the list whose opening bracket ends at `pos` ends (after its closing
    bracket; the text's end when it is never closed). The ends of the lists inside it
    are kept in `ends` (by where their bracket stands), so that reading them later
    skips nothing twice."""
    opened = [pos - 1]
    for m in _SKIP.finditer(text, pos):
        at = m.start()
        c = text[at]
        if c == "(" or c == "[":
            opened.append(at)
        elif c == ")" or c == "]":
            ends[opened.pop()] = at + 1
            if not opened:
                return at + 1
    return len(text)


@dataclass(eq=False)
class Form:
    """A form read: a list-like (`kind` its opening bracket: `(`, `[`, `#s(`, `#[`, `#(`),
    its items read when first asked for; an atom (`sym`, `str`, `char`) with its `text` as
    written; or a prefix's form (`'`, `` ` ``, `,`, `,@`, `#'`) with the one form it takes.
    `start`/`end`: where it stands in `src`."""

    kind: str
    text: str
    start: int
    end: int
    src: str = field(default="", repr=False)
    _items: list[Form] | None = field(default=None, repr=False)
    ends: dict[int, int] = field(default_factory=dict, repr=False)  # of the lists in src

    @property
    def items(self) -> list[Form]:
        if self._items is None:
            inner = self.end - 1 if self.src[self.end - 1 : self.end] in (")", "]") else self.end
            self._items = _read(self.src, self.start + len(self.kind), inner, self.ends)
        return self._items


def _read(text: str, pos: int, stop: int, ends: dict[int, int]) -> list[Form]:
    """The forms between `pos` and `stop`, each list among them only skipped over."""
    out: list[Form] = []
    pending: list[tuple[str, int]] = []  # prefixes waiting for their form
    match = _TOKEN.match
    while pos < stop:
        m = match(text, pos)
        if m is None:  # pragma: no cover - `other` matches any character
            break
        kind = m.lastgroup
        pos = m.end()
        if kind in ("ws", "comment", "other"):
            continue
        tok = m.group()
        if kind == "close":
            pending.clear()  # a stray one: dropped, and the prefixes waiting with it
            continue
        if kind == "prefix":
            pending.append((tok, m.start()))
            continue
        if kind == "open":
            pos = ends.get(pos - 1) or _skip(text, pos, ends)
            form = Form(tok, tok, m.start(), pos, text, None, ends)
        else:
            form = Form(
                "sym" if kind == "atom" else kind or "", tok, m.start(), pos, "", [], _NO_ENDS
            )
        while pending:
            op, at = pending.pop()
            form = Form(op, op, at, form.end, "", [form], _NO_ENDS)
        out.append(form)
    return out


def read_forms(text: str) -> list[Form]:
    """The top-level forms of Emacs Lisp source, read (never evaluated): see the module's
    doc for what it reads."""
    return _read(text, 0, len(text), {})


_NO_ENDS: dict[int, int] = {}  # an atom's: it holds no list
_STR_ESCAPE = re.compile(
    r"\\(x[0-9a-fA-F]+(?:\\ )?|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|N\{[^}]*\}|[0-7]{1,3}|\^.|C-.|M-|.)",
    re.S,
)
_SIMPLE = {"n": "\n", "t": "\t", "r": "\r", "f": "\f", "e": "\x1b", "a": "\a", "b": "\b"}
_SIMPLE |= {"v": "\v", "d": "\x7f", "s": " ", "\n": "", " ": ""}


def _escape(m: re.Match[str]) -> str:
    e = m.group(1)
    try:
        if e[0] == "x" and len(e) > 1:
            return chr(int(e[1:].rstrip("\\ "), 16))
        if e[0] in "uU" and len(e) > 1:
            return chr(int(e[1:], 16))
        if e.startswith("N{"):
            name = e[2:-1]
            if name.upper().startswith("U+"):
                return chr(int(name[2:], 16))
            return unicodedata.lookup(name)
        if e[0] in "01234567":
            return chr(int(e, 8))
    except (ValueError, KeyError, OverflowError):
        return e
    if e[0] == "^" or e.startswith("C-"):  # a control character
        return chr(ord(e[-1].upper()) & 31) if e[-1] != "?" else "\x7f"
    if e == "M-":  # a meta character in a string: no text of its own
        return ""
    return _SIMPLE.get(e, e)


def string_value(form: Form) -> str:
    """A string literal's value: its escapes read."""
    t = form.text
    body = t[1:-1] if len(t) > 1 and t.endswith('"') and not _odd_end(t) else t[1:]
    return _STR_ESCAPE.sub(_escape, body) if "\\" in body else body


def _odd_end(t: str) -> bool:
    """An unterminated string whose last character is an escaped quote (`"a\\"`)."""
    run = len(t) - 1 - len(t[:-1].rstrip("\\"))
    return run % 2 == 1


def symbol_name(form: Form) -> str:
    """A symbol's name: its `\\` escapes read (`foo\\ bar` -> `foo bar`)."""
    return re.sub(r"\\(.)", r"\1", form.text, flags=re.S) if "\\" in form.text else form.text


def shown(form: Form, depth: int = 0) -> str:
    """A form as written, on one line: whitespace and comments collapsed; nested past
    100 forms deep, `...`."""
    if depth > _MAX_DEPTH:  # a recursion this deep is no value worth showing
        return "..."
    if form.kind in _CLOSER:
        inner = " ".join(shown(x, depth + 1) for x in form.items)
        return form.kind + inner + _CLOSER[form.kind]
    if form.kind in ("'", "`", ",", ",@", "#'"):
        return form.text + (shown(form.items[0], depth + 1) if form.items else "")
    return " ".join(form.text.split()) if form.kind == "str" else form.text


# ----------------------------------------------------------------------------- forms
def _head(form: Form) -> str:
    """The symbol a list opens with; "" if none."""
    if form.kind != "(":
        return ""
    items = form.items
    return items[0].text if items and items[0].kind == "sym" else ""


def _unquoted(form: Form) -> Form:
    """The form a quote holds: `'x`, `#'x`, `(quote x)`, `(function x)` -> x."""
    if form.kind in ("'", "#'", "`") and form.items:
        return form.items[0]
    if form.kind == "(" and _head(form) in ("quote", "function") and len(form.items) == 2:
        return form.items[1]
    return form


def _quoted_symbol(form: Form | None) -> str:
    """The name `'name` (or a bare symbol) gives; "" for anything else."""
    if form is None:
        return ""
    x = _unquoted(form)
    return symbol_name(x) if x.kind == "sym" else ""


def _keywords(items: list[Form]) -> dict[str, Form]:
    """`:key value` pairs, from the first keyword on."""
    out: dict[str, Form] = {}
    k = 0
    while k < len(items) - 1:
        if items[k].kind == "sym" and items[k].text.startswith(":"):
            out.setdefault(items[k].text, items[k + 1])
            k += 2
        else:
            k += 1
    return out


def _doc_at(items: list[Form], k: int, need_more: bool = False) -> str:
    """The docstring at items[k], when a string stands there (and, `need_more`, a form
    follows it: a string that is the whole body is the value returned)."""
    if len(items) > k and items[k].kind == "str" and (not need_more or len(items) > k + 1):
        return string_value(items[k])
    return ""


def _nil(form: Form | None) -> bool:
    return form is None or (form.kind == "sym" and form.text == "nil")


def _text_of(form: Form | None) -> str:
    """A value as text: a string's value, else the form as written."""
    if form is None:
        return ""
    return string_value(form) if form.kind == "str" else shown(form)


# ----------------------------------------------------------------------------- arglists
_AMP_SPEC = frozenset({"&optional", "&key", "&aux"})  # entries after these: (var default)


def _arg(form: Form, style: str, after: str, depth: int = 0) -> str:
    """One arglist entry shown: a symbol upper-cased (its leading `_` dropped); a list by
    where it stands (see the module doc)."""
    if form.kind == "sym":
        name = symbol_name(form)
        if name.startswith("&") or name.startswith(":"):
            return name
        return (name[1:] if name.startswith("_") and len(name) > 1 else name).upper()
    if form.kind != "(" or not form.items or depth > _MAX_DEPTH:
        return shown(form)
    items = form.items
    if after in _AMP_SPEC:  # (var default svar), (:kw var) or ((:kw var) default)
        first = items[0]
        if first.kind == "(" and len(first.items) == 2 and first.items[0].text.startswith(":"):
            first = first.items[1]
        return _arg(first, style, "", depth + 1) if first.kind == "sym" else shown(first)
    if style == "method" and not after:  # (NAME specializer)
        return "(" + " ".join([_arg(items[0], style, after), *map(shown, items[1:])]) + ")"
    if after == "&context":
        return shown(form)
    return "(" + _arglist_text(items, style, depth + 1) + ")"


def _arglist_text(items: list[Form], style: str, depth: int = 0) -> str:
    out: list[str] = []
    after = ""
    k = 0
    while k < len(items):
        x = items[k]
        if x.kind == "sym" and x.text == "." and k + 1 < len(items):
            out += ["&rest", _arg(items[k + 1], style, "&rest", depth)]
            break
        if x.kind == "sym" and x.text.startswith("&"):
            after = x.text
        out.append(_arg(x, style, after, depth))
        k += 1
    return " ".join(out)


def _signature(name: str, arglist: Form | None, style: str = "plain", quals: str = "") -> str:
    parts = [name, quals] if quals else [name]
    if arglist is not None and arglist.kind == "(":
        text = _arglist_text(arglist.items, style)
        parts += [text] if text else []
    return "(" + " ".join(parts) + ")"


_FN_USAGE = re.compile(r"(?:\A|\n\n)\(fn((?:[ \t][^\n]*)?)\)\s*\Z")


def _split_usage(doc: str) -> tuple[str, str | None]:
    """A docstring without its closing `(fn ARGS)` line, and those ARGS (None: none)."""
    m = _FN_USAGE.search(doc)
    if m is None:
        return doc, None
    return doc[: m.start()], m.group(1).strip()


# ----------------------------------------------------------------------------- text
_PROTECT = {"`": "\ue000", "'": "\ue001", "\\": "\ue002"}
_UNPROTECT = str.maketrans({v: k for k, v in _PROTECT.items()})
_MARKUP = re.compile(r"\\=(.?)|\\\[([^\]\n]*)\]|\\\{[^}\n]*\}|\\<[^>\n]*>|\\\+", re.S)
_CURVED = re.compile(r"‘([^’\n]*)’")
_OLD_QUOTE = re.compile(r"`([^`\n]+?)'")
_EARMUFFED = re.compile(r"(?<![`\w*])(\*[A-Za-z][\w.!?+<>=:/ -]*?[\w.!?+<>=:/-]\*)(?![`\w*])")
_CODE_INDENT = 2  # spaces that make lines after a blank line code


def _markup(m: re.Match[str]) -> str:
    whole = m.group()
    if whole.startswith("\\="):  # the next character as is, no markup
        return "".join(_PROTECT.get(c, c) for c in m.group(1))
    if whole.startswith("\\["):
        return f"{_PROTECT['`']}M-x {m.group(2)}{_PROTECT['`']}"
    return ""  # \{keymap}, \<keymap>, \+


def substitute(doc: str) -> str:
    """Emacs's docstring markup read as `substitute-command-keys` would, for Markdown:
    quotes as code spans, `\\[cmd]` as `M-x cmd`, keymap references dropped."""
    text = _MARKUP.sub(_markup, doc) if "\\" in doc else doc
    text = _OLD_QUOTE.sub(_code_span, _CURVED.sub(_code_span, text))
    return text.translate(_UNPROTECT)


def _code_span(m: re.Match[str]) -> str:
    """A quoted name as a code span; one holding a backtick (`\\=``) in double ones."""
    inner = m.group(1)
    return f"`` {inner} ``" if _PROTECT["`"] in inner or "`" in inner else f"`{inner}`"


def _quotes(text: str) -> str:
    """Emacs's quoting alone as code spans (a comment's `\\<` is a regexp's, no markup)."""
    return (
        _OLD_QUOTE.sub(r"`\1`", _CURVED.sub(r"`\1`", text)) if "`" in text or "‘" in text else text
    )


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _layout(lines: list[str], first_rule: bool) -> str:
    """Lines as Markdown: (`first_rule`) a first line ending "." its own paragraph; lines
    indented 2+ spaces after a blank line or a line ending ":" fenced as Emacs Lisp."""
    lines = [x.expandtabs(8).rstrip() for x in lines]
    while lines and not lines[0].strip():
        lines.pop(0)
    if not lines:
        return ""
    out: list[str] = []
    if first_rule:
        out.append(_EARMUFFED.sub(r"`\1`", lines[0].strip()))
        if lines[0].endswith(".") and len(lines) > 1 and lines[1].strip():
            out.append("")
        lines = lines[1:]
    held: list[str] = []
    fence = ""

    def close() -> None:
        gap = not held[-1].strip()
        while held and not held[-1].strip():
            held.pop()
        cut = min(_indent(x) for x in held if x.strip())
        out.extend(["```elisp", *(x[cut:] for x in held), "```", *([""] if gap else [])])
        held.clear()

    for line in lines:
        if fence:  # a Markdown fence the doc has itself: kept as is
            out.append(line)
            fence = "" if line.strip().startswith(fence) else fence
            continue
        if held:
            if not line.strip() or _indent(line) >= _CODE_INDENT:
                held.append(line)
                continue
            close()
        if line.lstrip().startswith("```"):
            fence = "```"
            out.append(line)
        elif (
            line.strip()
            and _indent(line) >= _CODE_INDENT
            and (not out or not out[-1] or out[-1].endswith(":"))
        ):
            held.append(line)
        else:
            out.append(_EARMUFFED.sub(r"`\1`", line))
    if held:
        close()
    return re.sub(r"\n{3,}", "\n\n", "\n".join(out)).strip()


def markdown(doc: str) -> str:
    """A docstring (its value) as Markdown: see the module's doc."""
    return _layout(substitute(doc.strip("\n")).split("\n"), first_rule=True)


# ----------------------------------------------------------------------------- definitions
@dataclass
class _Def:
    name: str
    kind: str
    doc: str
    start: int
    arglist: Form | None = None  # None: shows its name alone
    style: str = "plain"  # how its arglist reads: plain, cl, method
    quals: str = ""  # a method's qualifiers
    target: str | None = None  # an alias's (""; a target that is no symbol)
    notes: list[str] = field(default_factory=list)
    obsolete: tuple[str, str] | None = None  # (the replacement as said, version)
    cell: str = ""  # "variable": an alias of a variable's

    @property
    def rank(self) -> int:
        """Which of a symbol's definitions is its document: its function's, then its
        method's, face, variable, type, group (a lower rank wins)."""
        return 3 if self.cell == "variable" else _RANKS.get(self.kind, 0)


_RANKS = {"method": 1, "face": 2, "user option": 3, "variable": 3, "constant": 3}
_RANKS |= {"struct": 4, "class": 4, "group": 5, "package": 9}
_DEFUNS = {
    "defun": ("function", "plain"),
    "defsubst": ("function", "plain"),
    "define-inline": ("function", "plain"),
    "iter-defun": ("function", "plain"),
    "cl-defun": ("function", "cl"),
    "cl-defsubst": ("function", "cl"),
    "cl-iter-defun": ("function", "cl"),
    "defmacro": ("macro", "plain"),
    "cl-defmacro": ("macro", "cl"),
}
_TRANSIENT = frozenset(
    {
        "transient-define-prefix", "transient-define-suffix", "transient-define-infix",
        "transient-define-argument",
    }
)  # fmt: skip
_WRAPPERS = {
    "progn": 1, "eval-and-compile": 1, "eval-when-compile": 1, "with-no-warnings": 1,
    "cl-eval-when": 2, "with-eval-after-load": 2, "when": 2, "unless": 2,
}  # fmt: skip  # where their forms start


@dataclass
class _File:
    f: SourceFile
    text: str
    defs: list[_Def] = field(default_factory=list)
    obsolete: dict[str, tuple[str, str]] = field(default_factory=dict)
    group: str = ""  # the last defgroup's: a defcustom's without :group
    provides: str = ""
    newlines: list[int] = field(default_factory=list)

    def line(self, at: int) -> int:
        return bisect_right(self.newlines, at - 1) + 1


def _walk(g: _File, forms: list[Form], depth: int = 0) -> None:
    """The top-level forms read in order, and those inside the wrappers."""
    for form in forms:
        head = _head(form)
        if not head:
            continue
        if head in _WRAPPERS and depth < _MAX_DEPTH:
            _walk(g, form.items[_WRAPPERS[head] :], depth + 1)
            continue
        reader = _READERS.get(head)
        if reader is not None:
            got = reader(g, form, head)
            if got is not None:
                g.defs.append(got)
        elif head in ("make-obsolete", "make-obsolete-variable"):
            _make_obsolete(g, form.items)
        elif head == "provide" and not g.provides:
            g.provides = _quoted_symbol(form.items[1] if len(form.items) > 1 else None)


def _name(form: Form) -> str:
    """A definition's name (its second item): "" when it is no symbol."""
    items = form.items
    return symbol_name(items[1]) if len(items) > 1 and items[1].kind == "sym" else ""


def _declared(body: list[Form]) -> tuple[list[Form], list[Form]]:
    """The `(declare ...)` forms a body opens with, flattened, and the body after them."""
    decls: list[Form] = []
    while body and _head(body[0]) == "declare":
        decls += [x for x in body[0].items[1:] if x.kind == "("]
        body = body[1:]
    return decls, body


def _apply_declare(d: _Def, decls: list[Form]) -> None:
    for x in decls:
        head, items = _head(x), x.items
        if head == "obsolete" and len(items) >= 2:
            d.obsolete = (_text_of(items[1]), _text_of(items[2]) if len(items) > 2 else "")
        elif head == "advertised-calling-convention" and len(items) >= 2:
            if items[1].kind == "(":
                d.arglist = items[1]


def _defun(g: _File, form: Form, head: str) -> _Def | None:
    items = form.items
    name = _name(form)
    if not name or len(items) < 3:
        return None
    transient = head in _TRANSIENT
    kind, style = ("command", "plain") if transient else _DEFUNS[head]
    doc = _doc_at(items, 3, need_more=not transient)
    d = _Def(name, kind, doc, form.start, items[2], style)
    decls, body = _declared(items[4:] if doc else items[3:])
    _apply_declare(d, decls)
    if kind == "function" and body and _head(body[0]) == "interactive":
        d.kind = "command"
    return d


def _generic(g: _File, form: Form, head: str) -> _Def | None:
    items = form.items
    name = _name(form)
    if not name or len(items) < 3:
        return None
    doc = _doc_at(items, 3)
    rest = items[4:] if doc else items[3:]
    if not doc:  # its `(:documentation "doc")` option
        for x in rest:
            if _head(x) == ":documentation" and len(x.items) > 1 and x.items[1].kind == "str":
                doc = string_value(x.items[1])
    d = _Def(name, "function", doc, form.start, items[2], "cl")
    _apply_declare(d, _declared(rest)[0])
    return d


def _method(g: _File, form: Form, head: str) -> _Def | None:
    items = form.items
    name = _name(form)
    if not name:
        return None
    k = 2
    quals: list[str] = []
    while k < len(items) and items[k].kind != "(":  # :around, :extra "name"
        quals.append(shown(items[k]))
        k += 1
    doc = _doc_at(items, k + 1, need_more=True)
    if k >= len(items) or not doc:
        return None
    return _Def(name, "method", doc, form.start, items[k], "method", " ".join(quals))


def _variable(g: _File, form: Form, head: str) -> _Def | None:
    items = form.items
    name = _name(form)
    if head == "defvar-keymap":
        doc = _text_of(_keywords(items[2:]).get(":doc")) if name else ""
        return _Def(name, "variable", doc, form.start) if doc else None
    doc = _doc_at(items, 3)
    if not name or not doc:
        return None
    d = _Def(name, "constant" if head == "defconst" else "variable", doc, form.start)
    if head == "defvar-local":
        d.notes.append("Automatically becomes buffer-local when set.")
    return d


def _added(keys: dict[str, Form]) -> str:
    """`Added in:` of `:package-version '(Magit . "2.1")`, else `:version "24.1"`."""
    pv = keys.get(":package-version")
    if pv is not None:
        pair = _unquoted(pv)
        if pair.kind == "(" and pair.items:
            parts = [_text_of(x) for x in pair.items if x.text != "."]
            return f"Added in: {' '.join(parts)}"
    v = keys.get(":version")
    return f"Added in: Emacs {_text_of(v)}" if v is not None and not _nil(v) else ""


def _group(g: _File, keys: dict[str, Form]) -> str:
    group = _quoted_symbol(keys.get(":group")) or g.group
    return f"Group: {group}" if group else ""


def _short(form: Form, limit: int) -> str:
    """The form as written when it is at most `limit` characters; "" otherwise."""
    if form.end - form.start > _MAX_SPAN:
        return ""
    text = shown(form)
    return text if len(text) <= limit else ""


def _value_form(form: Form) -> tuple[str, str, dict[str, Form]] | None:
    """A `(defcustom NAME VALUE DOC KEYWORDS...)`-shaped form's name, docstring and
    keyword arguments (`defface`'s too); None with no name or no docstring."""
    name = _name(form)
    doc = _doc_at(form.items, 3)
    if not name or not doc:
        return None
    return name, doc, _keywords(form.items[4:])


def _custom(g: _File, form: Form, head: str) -> _Def | None:
    got = _value_form(form)
    if got is None:
        return None
    name, doc, keys = got
    items = form.items
    notes: list[str] = []
    if ":type" in keys and keys[":type"].end - keys[":type"].start <= _MAX_SPAN:
        notes.append(f"Type: {shown(_unquoted(keys[':type']))}")
    default = _short(items[2], _MAX_DEFAULT)
    notes.append(f"Default: {default}" if default else "")
    notes += [_group(g, keys), _added(keys)]
    safe = keys.get(":safe")
    if safe is not None:
        pred = _text_of(_unquoted(safe))
        notes.append(f"Safe as a file-local variable when its value satisfies `{pred}`.")
    options = keys.get(":options")
    if options is not None:
        listed = _unquoted(options)
        values = listed.items if listed.kind == "(" else [listed]
        notes.append("Options: " + ", ".join(f"`{shown(x)}`" for x in values))
    return _Def(name, "user option", doc, form.start, notes=[x for x in notes if x])


def _face(g: _File, form: Form, head: str) -> _Def | None:
    got = _value_form(form)
    if got is None:
        return None
    name, doc, keys = got
    notes = ["Face.", _group(g, keys), _added(keys)]
    return _Def(name, "face", doc, form.start, notes=[x for x in notes if x])


def _group_form(g: _File, form: Form, head: str) -> _Def | None:
    items = form.items
    name = _name(form)
    if name:
        g.group = name  # the group of the options and faces after it
    doc = _doc_at(items, 3)
    if not name or not doc:
        return None
    parent = _quoted_symbol(_keywords(items[4:]).get(":group"))
    notes = [f"Parent group: {parent}"] if parent else []
    return _Def(name, "group", doc, form.start, notes=notes)


def _mode_arglist(form: Form) -> Form:
    """The `(&optional arg)` a minor mode's command takes."""
    return Form("(", "(", form.start, form.start, "", read_forms("&optional arg"))


def _minor_mode(g: _File, form: Form, head: str) -> _Def | None:
    items = form.items
    name = _name(form)
    if head == "define-minor-mode":
        doc = _doc_at(items, 2)
        rest = items[3:] if doc else items[2:]
        keys = _keywords(rest)
        lighter = keys.get(":lighter")
        if rest and not (rest[0].kind == "sym" and rest[0].text.startswith(":")):
            positional = rest[:3]  # the old INIT-VALUE LIGHTER KEYMAP
            lighter = positional[1] if len(positional) > 1 else None
        glob = keys.get(":global")
        is_global = glob is not None and not _nil(glob)
    else:  # (define-globalized-minor-mode global mode turn-on "doc"? ...)
        doc = _doc_at(items, 4)
        rest = items[5:] if doc else items[4:]
        keys = _keywords(rest)
        lighter, is_global = None, True
    if not name or not doc:
        return None
    notes = [f"Command: M-x {name}."]
    notes += ["Global minor mode."] if is_global else []
    if lighter is not None and lighter.kind == "str" and string_value(lighter).strip():
        notes.append(f'Lighter: "{string_value(lighter)}"')
    notes += [x for x in [_group(g, keys) if ":group" in keys else ""] if x]
    return _Def(name, "minor mode", doc, form.start, _mode_arglist(form), notes=notes)


def _major_mode(g: _File, form: Form, head: str) -> _Def | None:
    items = form.items
    name = _name(form)
    doc = _doc_at(items, 4)
    if not name or not doc:
        return None
    parent = _quoted_symbol(items[2]) if len(items) > 2 else ""
    notes = [f"Derived from `{parent}`."] if parent and parent != "nil" else []
    notes.append(f"Command: M-x {name}.")
    empty = Form("(", "(", form.start, form.start, "", [])
    return _Def(name, "major mode", doc, form.start, empty, notes=notes)


def _alias(g: _File, form: Form, head: str) -> _Def | None:
    items = form.items
    name = _quoted_symbol(items[1]) if len(items) > 1 else ""
    if not name or len(items) < 3:
        return None
    if head.startswith("define-obsolete"):
        target = _quoted_symbol(items[2])
        version = _text_of(items[3]) if len(items) > 3 else ""
        doc = _doc_at(items, 4)
        d = _Def(name, "alias", doc, form.start, target=target)
        d.obsolete = (target, version)
        d.cell = "variable" if "variable" in head else ""
        return d
    doc = _doc_at(items, 3)
    value = _unquoted(items[2])
    if head == "defalias" and _head(value) == "lambda" and len(value.items) > 1:
        body = value.items
        own = _doc_at(body, 2, need_more=True)
        d = _Def(name, "function", doc or own, form.start, body[1])
        decls, rest = _declared(body[3:] if own else body[2:])
        _apply_declare(d, decls)
        d.kind = "command" if rest and _head(rest[0]) == "interactive" else "function"
        return d if d.doc else None
    if not doc:
        return None
    target = symbol_name(value) if value.kind == "sym" else ""
    cell = "variable" if head == "defvaralias" else ""
    return _Def(name, "alias", doc, form.start, target=target, cell=cell)


def _slot_lines(slots: list[Form], doc_key: str) -> list[str]:
    """`- `slot`: its documentation` for each slot (a symbol, or a list naming one)."""
    out: list[str] = []
    for s in slots:
        if s.kind == "sym":
            out.append(f"- `{symbol_name(s)}`")
        elif s.kind == "(" and s.items and s.items[0].kind == "sym":
            said = _keywords(s.items[1:]).get(doc_key)
            text = (
                " ".join(string_value(said).split())
                if said is not None and said.kind == "str"
                else ""
            )
            name = symbol_name(s.items[0])
            out.append(f"- `{name}`: {substitute(text)}" if text else f"- `{name}`")
    return out


def _struct(g: _File, form: Form, head: str) -> _Def | None:
    items = form.items
    if len(items) < 3:
        return None
    named = items[1]
    if named.kind == "(" and named.items:
        named = named.items[0]
    name = symbol_name(named) if named.kind == "sym" else ""
    doc = _doc_at(items, 2)
    if not name or not doc:
        return None
    slots = [x for x in items[3:] if not (x.kind == "sym" and x.text.startswith(":"))]
    lines = _slot_lines(slots, ":documentation")
    notes = ["Slots:\n" + "\n".join(lines)] if lines else []
    return _Def(name, "struct", doc, form.start, notes=notes)


def _class(g: _File, form: Form, head: str) -> _Def | None:
    items = form.items
    name = _name(form)
    if not name or len(items) < 4:
        return None
    doc = _doc_at(items, 4)
    if not doc:
        said = _keywords(items[4:]).get(":documentation")
        doc = string_value(said) if said is not None and said.kind == "str" else ""
    if not doc:
        return None
    notes = []
    supers = (
        [symbol_name(x) for x in items[2].items if x.kind == "sym"] if items[2].kind == "(" else []
    )
    if supers:
        notes.append("Superclasses: " + ", ".join(f"`{s}`" for s in supers))
    lines = _slot_lines(items[3].items if items[3].kind == "(" else [], ":documentation")
    if lines:
        notes.append("Slots:\n" + "\n".join(lines))
    return _Def(name, "class", doc, form.start, notes=notes)


def _skeleton(g: _File, form: Form, head: str) -> _Def | None:
    name = _name(form)
    doc = _doc_at(form.items, 2)
    if not name or not doc:
        return None
    empty = Form("(", "(", form.start, form.start, "", read_forms("&optional str arg"))
    return _Def(name, "command", doc, form.start, empty)


def _make_obsolete(g: _File, items: list[Form]) -> None:
    """`(make-obsolete 'old 'new "VERSION")`: noted for `old`, wherever it is defined."""
    name = _quoted_symbol(items[1]) if len(items) > 1 else ""
    if name and len(items) > 2:
        new = _unquoted(items[2])
        g.obsolete.setdefault(name, (_text_of(new), _text_of(items[3]) if len(items) > 3 else ""))


_READERS = {
    **dict.fromkeys(_DEFUNS, _defun),
    **dict.fromkeys(_TRANSIENT, _defun),
    "cl-defgeneric": _generic,
    "cl-defmethod": _method,
    **dict.fromkeys(("defvar", "defvar-local", "defconst", "defvar-keymap"), _variable),
    "defcustom": _custom,
    "defface": _face,
    "defgroup": _group_form,
    "define-minor-mode": _minor_mode,
    "define-globalized-minor-mode": _minor_mode,
    "define-global-minor-mode": _minor_mode,
    "define-derived-mode": _major_mode,
    **dict.fromkeys(
        (
            "defalias",
            "defvaralias",
            "define-obsolete-function-alias",
            "define-obsolete-variable-alias",
        ),
        _alias,
    ),  # fmt: skip
    "cl-defstruct": _struct,
    "defclass": _class,
    "define-skeleton": _skeleton,
}


# ----------------------------------------------------------------------------- package
_HEADER = re.compile(r";;;+\s*(\S+?)(?:\.el)?\s+---+\s*(.*)")
_COOKIE = re.compile(r"\s*-\*-.*?-\*-\s*")
_HEADER_KEY = re.compile(
    r";+\s*(Version|Package-Version|Package-Requires|Keywords)\s*:\s*(.*)", re.I
)
_COMMENTARY = re.compile(r";;;+\s*Commentary\s*:?\s*$", re.I)
_SECTION_END = re.compile(r";;;+\s*(?:Code|Change\s*Log|History)\s*:?", re.I)


@dataclass
class _Package:
    name: str  # the header's
    summary: str
    header: list[str]
    commentary: str


def _package(text: str) -> _Package:
    lines = text[:200_000].split("\n")
    m = _HEADER.match(lines[0])
    name = m.group(1) if m else ""
    summary = _COOKIE.sub(" ", m.group(2)).strip() if m else ""
    header: dict[str, str] = {}
    body: list[str] = []
    k = 1
    while k < len(lines):  # the header, up to the commentary or the code
        line = lines[k]
        if _COMMENTARY.match(line) or _SECTION_END.match(line):
            break
        if line.strip() and not line.startswith(";"):
            break
        h = _HEADER_KEY.match(line)
        if h is not None:
            key = h.group(1).lower()
            key = {"package-requires": "Package-Requires", "keywords": "Keywords"}.get(
                key, "Version"
            )
            header.setdefault(key, h.group(2).strip())
        k += 1
    if k < len(lines) and _COMMENTARY.match(lines[k]):
        for line in lines[k + 1 :]:
            if _SECTION_END.match(line) or (line.strip() and not line.startswith(";")):
                break
            body.append(_comment_line(line))
    order = ["Version", "Package-Requires", "Keywords"]
    said = [f"{key}: {header[key]}" for key in order if header.get(key)]
    return _Package(name, summary, said, _layout(body, first_rule=False) if body else "")


def _comment_line(line: str) -> str:
    """A commentary line without its comment marks: a `;;;` heading as Markdown's."""
    m = re.match(r";;;(;*)\s*(.*)", line)
    if m is not None and m.group(2).strip():
        text = _quotes(m.group(2).strip())
        return f"{'##' if not m.group(1) else '###'} {text}"
    m = re.match(r";+ ?", line)
    return _quotes(line[m.end() :] if m else line)


# ----------------------------------------------------------------------------- documents
def _obsolete_line(said: tuple[str, str]) -> str:
    new, version = said
    since = f"Obsolete since {version}" if version and version != "nil" else "Obsolete"
    if not new or new == "nil":
        return f"{since}."
    if " " in new:  # a string saying what to do instead
        return f"{since}; {substitute(new).rstrip('.')}."
    return f"{since}; use `{new}` instead."


def _signature_of(d: _Def, usage: str | None) -> str:
    if d.arglist is None:
        return ""
    if usage is not None:
        return f"({d.name} {usage})" if usage else f"({d.name})"
    return _signature(d.name, d.arglist, d.style, d.quals)


def _text(g: _File, d: _Def) -> tuple[str, str]:
    """The document's text and the signature it records."""
    doc, usage = _split_usage(d.doc)
    signature = _signature_of(d, usage)
    parts = [signature or d.name]
    if d.target is not None:
        parts.append(f"An alias for `{d.target}`." if d.target else "An alias.")
    parts.append(markdown(doc))
    notes = list(d.notes)
    if d.kind == "command":
        notes.append(f"Command: M-x {d.name}.")
    said = d.obsolete or g.obsolete.get(d.name)
    if said is not None:
        notes.append(_obsolete_line(said))
    parts.append("\n".join(notes))
    return "\n\n".join(x for x in parts if x), signature


def _read_file(f: SourceFile) -> _File:
    text = f.text.replace("\r\n", "\n")
    g = _File(f, text)
    g.newlines = [m.start() for m in re.finditer("\n", text)]
    _walk(g, read_forms(text))
    return g


def _documents(g: _File, source: str) -> Iterator[tuple[int, Document]]:
    """The file's documents, each with its rank: of a name defined twice, the definition
    of the lowest rank, then the first."""
    kept: dict[str, _Def] = {}
    for d in g.defs:
        if "--" in d.name or not (d.doc.strip() or d.obsolete):
            continue
        if d.name not in kept or d.rank < kept[d.name].rank:
            kept[d.name] = d
    pkg = _package(g.text)
    feature = g.provides or pkg.name or g.f.rel.name.removesuffix(".el")
    if (pkg.summary or pkg.commentary) and feature and "--" not in feature:
        qual = f"{feature}.el" if feature in kept else feature
        body = [qual, _quotes(pkg.summary), "\n".join(pkg.header), pkg.commentary]
        text = "\n\n".join(x for x in body if x)
        yield _RANKS["package"], _document(g, source, qual, text, "package", "", 0)
    for d in sorted(kept.values(), key=lambda d: d.start):
        text, signature = _text(g, d)
        if text.strip() != (signature or d.name):
            yield d.rank, _document(g, source, d.name, text, d.kind, signature, d.start)


def _document(
    g: _File, source: str, qual: str, text: str, kind: str, signature: str, at: int
) -> Document:
    return api_document(
        source, URI_PREFIX, g.f, qual, text, kind, signature, g.line(at), language="elisp"
    )


def file_documents(f: ElispFile, source: str) -> list[Document]:
    """The documents of one file (tests and generated files not told apart), the package
    first, then in the order its definitions stand."""
    return [doc for _, doc in _documents(_read_file(f), source)]
