"""Annotated configuration files read as the reference of the settings they document:
redis.conf, php.ini, postgresql.conf.sample, squid.conf, postfix's main.cf, dovecot's
conf.d/*.conf, sshd_config, alacritty.yml. Such a file documents each setting in the
comments around it; read as plain text, its questions would quote comment markers. Here
each documented setting becomes its own document, as a reference page about it reads, so
that "what does `maxmemory-policy` do in redis.conf?" has a document to come from
(`config:redis.conf:maxmemory-policy`).

Files. `is_config` takes, by name: `*.conf`, `*.cnf`, `*.cfg`, `*.ini`, `*.properties`,
their sample forms (`.conf.sample`, `.conf.example`, `.conf.dist`, `.conf.default`,
`.conf.ext`, `.ini.sample`, `.ini.example`, `.ini.dist`, `.ini-production`,
`.ini-development`, `php.ini*`), `main.cf`, `master.cf` (and `.dist`), `*_config`
(`sshd_config`, `ssh_config`) and `torrc` (and `.sample`). YAML (`*.yml`, `*.yaml`) and
TOML (`*.toml`) files are taken only when `looks_annotated` says so of their text (`takes`
says both); `api_documents` counts one that is not `config_not_annotated`.
`looks_annotated`: at least 3 setting lines (`key: value`, `key = value`, `key value`, a
YAML list item's `- key: value`, active or commented out right after the marker, `#key:`)
each right below at least 6 words of prose comments (`# ` and text; no blank line between),
and those at least a fifth of the file's setting lines; it reads 20,000 lines at most. A
binary file (a NUL) or one over 5 MB is counted `config_skipped`; a line is read to its
first 10,000 characters; nothing in a file is executed or imported.

Dialects. YAML by suffix (structure by indentation); squid's tag format when 3 or more
lines read `#  TAG: name`; else key-value lines: `key = value`, `key value` (not in INI or
TOML files), `key: value` (`.properties`), `!include x`, a bare `key` (active only);
`[section]` headers, TOML's `[a.b]` and `[[a]]` tables; blocks `name args {` ... `}` (nginx,
dovecot) and `<Name args>` ... `</Name>` (Apache); in `*_config` files, ssh's `Host x` and
`Match x`, each a section to the next one (a commented-out one to the next blank line). A
value ending in `,` or `\\` continues on the next, more indented line, and an active empty
one on more indented lines (postfix). Comment markers: `#`; `;` too in INI-named files
(`.ini`, `.cnf`, `.cfg`, `php.ini*`) and in files with `[sections]` and 3 lines starting
with `;`. A run of markers is one (dovecot's `## prose`). A trailing comment is a marker
after whitespace and before whitespace or the line's end, outside quotes (`#DD0000`,
`'#1d1f21'` and `"# x"` are values).

Commented-out settings. A comment line is one when its text parses as a setting whose
value is no prose (a `key value` line: not ending in a word and `.`, `,`, `:`, not
starting with `-`, `->`, `=>`, at most two words of letters besides yes/no/on/off-like
ones) and whose key is no common English word. Which to believe: a file whose
commented-out settings mostly stand right after the marker (3 or more `#key`, no fewer
than the `# key` ones: postgres, php.ini, dovecot, sshd_config, main.cf) is "tight": only
those are settings, and any line but a `# prose` one inside a commented-out block
(`#namespace {` ... `#}`); a `# key value` line there is prose or an example. Elsewhere
(redis.conf, ssh_config) the lines ending a comment paragraph (its blank-comment-delimited
lines), all at one indentation, are settings when their key is plausible: one of the
file's active keys, one with `=`, an identifier with `-`, `_`, `.`, an inner capital or a
digit, or a lowercase word when it stands alone or after a line ending a sentence; a
paragraph of 2 or more such lines takes its other words too (ssh_config's `Port 22`) when
half are plausible. A paragraph's tail indented past its prose is no setting (an example);
a whole paragraph of indented settings is (redis's `#   user ...`). YAML: `#key:` and
`#- item` right after the marker are commented-out structure, and so is a line below such
a line with 2 or more spaces after its marker (alacritty's `  #  columns: 0`), a `# - x`
item too; `# Key:` with one space is prose. A commented line's nesting column is its
marker's column plus the spaces after it.

Documentation. Blank lines, headings, block ends and lines that are no setting end a
block of lines. In a block, the prose since the previous setting documents the next one
(its "lead"); settings right after one another with no prose between, in one section,
none nested between, are a "run" and share the lead of the first (redis's `unixsocket` and
`unixsocketperm`, postgres's groups): each says whom it is "Documented together with"
(runs of at most 8), unless the lead's first sentence names some of them, which then keep
it alone with the first (postfix's `readme_directory:` over a stray `inet_protocols`). A
lead of one line of at most four words and no sentence over a run of 2 or more, or one a
blank line above, is a group label ("# Logging", "# Kerberos options"): it joins the
`Section:` and documents nobody. Prose between two settings that names the previous run's
key and not the next one, followed by a paragraph break or by a next setting with its own
trailing comment (postgres's "Caution: ... max_prepared_transactions ..."), goes to the
previous one instead. Prose ending a block after settings goes to those of its last run
it names, or all of them (redis's `min-replicas-*`). A block of prose alone, one blank
line above a block that starts with a setting, leads that setting (redis's `lazyfree-*`,
postgres's "The default values of these variables ..."), except in the file's opening. A
trailing comment documents its line (postgres's `#port = 5432  # (change requires
restart)`), with the comment-only lines right below it whose marker stands at its column
(within 2) or at column 24 or more. A nested setting (YAML, a block) takes only prose of
its own. Headings document nothing: a banner (`##### NETWORK #####`), a line between two
rule lines (`#----`, `;;;;`, `##`), an upper case line above a rule (squid), a `## Title`
line, postgres's `# - Memory -` (second level), and, in a file with none of those, an upper
case line standing alone (postfix's `# SOFT BOUNCE`). A heading before all prose and
settings is the file's title. A setting's `Section:` is "level 1 > level 2" in force, or
its INI section (`[Session]`) when no heading followed it, and its group label.

Names. One document per setting name and file: `config:<file>:<name>`, the file by its
name alone (`config:10-mail.conf:mail_location`). A YAML setting is named by its path
(`window.padding`), a TOML one by its table's (`[a.b]` `c` -> `a.b.c`). A key under INI
sections or blocks is named by its bare key, unless it is found under different ones in
the file: then each one under a section is named by the section path joined with `.`
(`sshd.enabled`; a block as `type[args]`: `service[imap].process_limit`, a commented-out
`#namespace {` as `namespace`). A block, mapping or ssh section is named as its part
(`unix_listener[auth-userdb]`, `Match[User anoncvs]`) and gets kind "section", with a
`Settings:` list of its documented children; else kind "setting"; signature its first
line, line its number.

Text. A name's occurrences are grouped (lines one right below another); its first lines
are its first active group's, else its last group's (redis's `save 3600 1 ...`, postfix's
three `#myorigin = ...`), as written less the comment marker and trailing comment (a YAML
setting with its whole name: `window.padding.x: 0`; a block or mapping: its lines, less
prose, at most 12). Then a blank line and its documentation in file order: each lead and
trailing prose once, the other groups fenced where they stand (with their trailing
comments: redis's `# bind ...` examples), a lead ending in `:` followed by its run's lines
fenced. Prose: markers stripped, the margin removed, rule lines dropped, paragraphs split
at blank comment lines, wrapped lines joined; list items one a line (`-`, `*`, `1)`,
`a)`, `-1:`, `word - text`, `word -> text`; `term  text` with two spaces first in its
paragraph or in a list; after a line ending in `:`, a `word (text)` line or a short one),
a hanging indent joined to its item or to its `NOTE 1:` line; a `NOTE 2:` line starts a
paragraph; a `key = value` line fenced; other lines indented past the margin fenced as
code, but an indented paragraph that reads as prose (sentences or `-` items, no code
shapes) is prose (a nested list indented by two spaces). Then facts, one a line, when the
file says them: `Default:` (a prose line `Default: x` or `Default Value: x`; `(default:
x)`; a trailing comment `default`, `defaults to x`, `default is x`; the value of the
commented-out line right below a prose line ending in "default is:" or "default:";
squid's `#Default:` block; else, in a file whose opening says its commented-out settings
show the default values (postgres, sshd_config, dovecot.conf), the distinct values of the
name's first commented-out group, joined by `; `); php.ini's `Development Value:` and
`Production Value:`; a trailing comment line in parentheses as a sentence ("Change
requires restart."); `Reference:` for a prose line that is only a URL or a `<doc/x.txt>`
path; `Section:`; `Documented together with:`; a section's `Settings:` list. A name whose
comments give no prose, no such value and no note (a link or an example only) gives no
document. The file's own document `config:<file>` (kind "file") holds its opening prose
(the prose blocks before its first setting, up to the second heading, at most about 4000
characters; paragraphs about a license or copyright dropped) and a `Settings:` list of
its documents with their first sentence (at most 100); it is given when the file documents
a setting. A file that documents none is counted `config_no_api`; one with more than 5000
documents gives its first 5000 by line, counted `config_cut`.

Squid's tag format: each `#  TAG: name [hint]` line opens a setting whose documentation is
every comment line up to `#Default:`; the comment lines below that up to a blank (comment)
line are its default (the tag's name cut); what follows up to the next tag, when it sets
something, is shown as written under `Set in this file:` fenced (30 lines at most). Its
first line is the tag line's text (`cache_mem (bytes)`), its `Section:` the upper case
heading in force.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from jupiter.collect.result import CollectResult, SourceFile, api_document, count, first_documents
from jupiter.collect.result import first_sentence as _first_sentence
from jupiter.records import Document

URI_PREFIX = "config:"
SUFFIXES = (
    ".conf", ".cnf", ".cfg", ".ini", ".properties",
    ".conf.sample", ".conf.example", ".conf.dist", ".conf.default", ".conf.ext",
    ".ini.sample", ".ini.example", ".ini.dist", ".ini-production", ".ini-development",
    "_config",
)  # fmt: skip
NAMES = frozenset(
    {"main.cf", "main.cf.dist", "master.cf", "master.cf.dist", "torrc", "torrc.sample"}
)
ANNOTATED_SUFFIXES = (".yml", ".yaml", ".toml")  # taken when looks_annotated says so
# reasons a file gave no document (or not all), as the collect stage counts them
CONFIG_NO_API = "config_no_api"
CONFIG_NOT_ANNOTATED = "config_not_annotated"
CONFIG_SKIPPED = "config_skipped"
CONFIG_CUT = "config_cut"
_READ = (
    "annotated configuration files read as the reference of their settings (one document "
    "per setting its comments document): "
)
FIXES = {
    CONFIG_NO_API: _READ + "a file whose comments document no setting gives none; the "
    "source's config: text reads them as text",
    CONFIG_NOT_ANNOTATED: _READ + "a YAML or TOML file is read so only when its settings "
    "carry comments of prose; the source's config: text reads them as text",
    CONFIG_SKIPPED: _READ + "a binary file or one over 5 MB is skipped; the source's config: "
    "text reads them as text",
    CONFIG_CUT: _READ + "a file with more than 5000 documented settings gives its first "
    "5000; the source's config: text reads them as text",
}
MAX_DOCUMENTS = 5000  # of one file
MAX_BYTES = 5_000_000
MAX_LINE = 10_000  # characters of a line read
_MAX_LISTED = 100
_MAX_SHOWN = 12  # lines of a block or mapping shown
_MAX_HEADER = 10  # lines of a name's first group shown
_MAX_RUN = 8  # a run longer than this says nobody is documented with it
_MAX_SENTENCE = 200
_MAX_SIGNATURE = 200
_MAX_HEADER_CHARS = 4000  # of a file's opening prose
_INI_NAMES = (".ini", ".cnf", ".cfg", ".ini-production", ".ini-development", ".ini.sample",
              ".ini.example", ".ini.dist")  # fmt: skip

_KEY = r"!?[A-Za-z_][\w.\-]*(?:\[[\w.\-]*\])?"
_EQ = re.compile(rf"^({_KEY})\s*=\s*(.*)$")
_COLON = re.compile(rf"^({_KEY})\s*:(?:\s+(.*))?$")
_WS = re.compile(rf"^({_KEY})\s+(\S.*)$")
_BARE = re.compile(rf"^({_KEY})$")
_OPEN = re.compile(r"^([A-Za-z_][\w.\-]*)((?:\s+[^{}\s]+)*)\s*\{$")
_APACHE_OPEN = re.compile(r"^<([A-Za-z][\w.\-]*)((?:\s+[^>]*)?)>$")
_APACHE_CLOSE = re.compile(r"^</([A-Za-z][\w.\-]*)\s*>$")
_SECTION = re.compile(r"^\[\s*([^\[\]]+?)\s*\]$")
_TOML_TABLE = re.compile(r"^\[\[?\s*([\w.\-\"' ]+?)\s*\]\]?$")
_TAG = re.compile(r"^#\s*TAG:\s*(\S+)(.*)$")
_DEFAULT_LINE = re.compile(r"^#\s*Default:\s*$")
_YAML_KEY = re.compile(r"^([\w.\-/$@]+|\"[^\"]*\"|'[^']*')\s*:(?:\s+(.*))?$")
_RULE_CHARS = frozenset("-=#*~_+;/.")
_ITEM = re.compile(
    r"^(?:[-*•+]\s+|\(?\d{1,2}[.)]\s+|[a-z][)]\s+|[-+]?\d+:\s|\S+\s+(?:-|->|=>|–)\s+\S)"
)
_TERM_ITEM = re.compile(r"^(?:\S+ )?\S*[^\s.,;!?]\s{2,}\S")
_CODE = re.compile(  # lines no prose has: `a = b`, `a: b`, `{`, `$ cmd`, `# comment`, `a_b c`
    r"^\s*[\w.\-]+\s*=\s*\S|^\s*[\w.\-]+:\s*[^\s/]\S*\s*$|[{};]\s*$"
    r"|^\s*(?:\$ |\./|<\w|[|+]-|[#;]\s|[a-z][a-z0-9]*_\w*\s+\S)"
)
_BULLET = re.compile(r"^[-*•+]\s")
_COLON_ITEM = re.compile(r"^[\w.\-<>/%]+\s*:\s+(?:\S+\s+){2,}\S")  # "term: three words"
_PAREN_ITEM = re.compile(r"^\S+\s+\(")
_CODE_LINE = re.compile(r"^[A-Za-z_][\w.\-]*\s*=(?!=)(?:\s*\S*\s*(?:[;#].*)?)$")
_NOTE = re.compile(r"^[A-Z][A-Z0-9 ]{1,15}:\s")  # "NOTE 2:" starts a paragraph
_LABEL = re.compile(r"^[A-Z][\w -]{0,20}:\s+")
_FACT = re.compile(r"^(Default(?: Value)?|Development Value|Production Value)\s*:\s*(\S.*)$", re.I)
_REFERENCE = re.compile(r"^<?(https?://\S+|[\w./\-]+\.(?:txt|html?|md))>?\.?$")
_PAREN = re.compile(r"^\(([^()]+)\)$")
_TRAILING_DEFAULT = re.compile(r"\bdefaults?(?: value)?(?: is| to|:)\s+([^;]+?)\s*;?$", re.I)
_PAREN_DEFAULT = re.compile(r"\(default:\s*([^()]{1,60})\)", re.I)
_BARE_DEFAULT = re.compile(r"^\(?(?:the )?default\)?\.?$", re.I)
_INTRO_DEFAULT = re.compile(r"\bdefaults?(?: value)?(?: is| are)?:$", re.I)
_SAYS_DEFAULTS = re.compile(
    r"(comment|shown|uncomment)[^.]*\bdefault values?\b|\bdefault values?\b[^.]*(comment|shown)",
    re.I,
)
_LICENSE = re.compile(r"licen[cs]e|copyright|all rights reserved", re.I)
_SENTENCE_END = re.compile(r"(?<!\be\.g)(?<!\bi\.e)(?<!\betc)(?<=[\w)\"'\]`])[.!?](?=\s+[^\sa-z])")
_WORD = re.compile(r"^[A-Za-z][a-z]+[,.;:!?]?$")
_VALUE_WORDS = frozenset(
    "yes no on off true false none null auto default all any local always never".split()
)
_STOPWORDS = frozenset(
    """a an the this that these those it its is are was be if to of in on at by for from
    with and or but not no so as you your we our they their there here when where which
    what who how why all any each some see note use set also only then than can may must
    should will would could do does just more most other such very default example
    examples usage e.g i.e for""".split()
)


def is_config(name: str) -> bool:
    """Whether a file is read as an annotated configuration file by its name alone."""
    low = name.lower()
    return low in NAMES or low.startswith("php.ini") or low.endswith(SUFFIXES)


def takes(name: str, text: str) -> bool:
    """Whether a file is read so: by its name, or a YAML or TOML file whose text
    `looks_annotated`."""
    if is_config(name):
        return True
    return name.lower().endswith(ANNOTATED_SUFFIXES) and looks_annotated(text)


_LOOKS_SETTING = re.compile(r"^(?:[\w.\-]+\s*[:=](?:\s|$)|[\w.\-]+\s+\S)")


def looks_annotated(text: str) -> bool:
    """Whether a file's text is a configuration file whose settings are documented by
    comments (see the module's docstring); reads at most its first 20,000 lines."""
    documented = settings = words = 0
    for raw in text.split("\n", 20000)[:20000]:
        s = raw.strip()
        if not s:
            words = 0
            continue
        if s[0] in "#;":
            body = s.lstrip("#;")
            if body[:1] not in (" ", "\t", "") or not body.strip():
                if body.strip() and _LOOKS_SETTING.match(body):
                    settings += 1
                    documented += words >= 6
                words = 0
                continue
            words += len(body.split())
            continue
        if _LOOKS_SETTING.match(s.lstrip("- ")):
            settings += 1
            documented += words >= 6
        words = 0
    return documented >= 3 and documented * 5 >= settings


def api_documents(
    files: list[SourceFile], source: str, rejects: CollectResult | None = None, top: str = ""
) -> list[Document]:
    """Documents for the settings the files' comments document, sorted by uri; a file that
    gives none is counted in `rejects` (`top` is taken for the readers' common shape and
    not needed: a setting is named by its file)."""

    def read(f: SourceFile) -> list[Document] | str:
        name = f.rel.name
        if "\x00" in f.text or len(f.text) > MAX_BYTES:
            return CONFIG_SKIPPED
        if not is_config(name):
            if not name.lower().endswith(ANNOTATED_SUFFIXES):
                return CONFIG_NO_API
            if not looks_annotated(f.text):
                return CONFIG_NOT_ANNOTATED
        docs = _documents(f, source)
        if len(docs) > MAX_DOCUMENTS:
            count(rejects, CONFIG_CUT, f.where)
            docs = docs[:MAX_DOCUMENTS]
        return docs

    return first_documents(files, rejects, read, CONFIG_NO_API)


# ----------------------------------------------------------------------------- lines
@dataclass
class _Line:
    """One line of the file, tabs expanded: a comment's marker column and text."""

    no: int  # 1-based
    raw: str
    comment: bool
    col: int  # the marker's column, or the text's
    body: str  # after the marker (a comment) or the stripped line
    gap: int  # spaces after the marker

    @property
    def blank(self) -> bool:
        return not self.raw.strip()


_BOX_EDGE = re.compile(r"(?<=\S)\s{2,}[#;]+$")


def _lines(text: str, markers: str) -> list[_Line]:
    out: list[_Line] = []
    for no, line in enumerate(text.replace("\r\n", "\n").replace("\r", "\n").split("\n"), 1):
        raw = line[:MAX_LINE].expandtabs(8).rstrip()
        s = raw.lstrip()
        col = len(raw) - len(s)
        if s and s[0] in markers:
            body = s.lstrip(s[0])  # `##` and `;;` prose are comments as `#` and `;`
            body = _BOX_EDGE.sub("", body)  # a boxed comment's right edge (collectd's)
            gap = len(body) - len(body.lstrip(" "))
            out.append(_Line(no, raw, True, col, body, gap))
        else:
            out.append(_Line(no, raw, False, col, s, 0))
    if out and out[-1].blank:
        out.pop()
    return out


def _split_trailing(s: str, markers: str) -> tuple[str, str | None, int]:
    """`s` cut before its trailing comment: (value part, the comment's text or None, the
    marker's index in `s`)."""
    quote = ""
    for i, ch in enumerate(s):
        if quote:
            if ch == quote:
                quote = ""
            continue
        if ch in "\"'" and (i == 0 or s[i - 1] in " \t=:,("):
            quote = ch
        elif ch in markers and i > 0 and s[i - 1] in " \t":
            nxt = s[i + 1 : i + 2]
            if nxt in ("", " ", "\t"):
                return s[:i].rstrip(), s[i + 1 :], i
    return s, None, -1


@dataclass
class _Parsed:
    key: str
    sep: str  # "=", ":", " " or "" (a bare key)
    value: str


def _parse(s: str, ws: bool, colon: bool) -> _Parsed | None:
    m = _EQ.match(s)
    if m:
        return _Parsed(m.group(1), "=", m.group(2).strip())
    if colon:
        m = _COLON.match(s)
        if m:
            return _Parsed(m.group(1), ":", (m.group(2) or "").strip())
    if ws:
        m = _WS.match(s)
        if m:
            return _Parsed(m.group(1), " ", m.group(2).strip())
    return None


def _value_like(value: str) -> bool:
    """Whether a `key value` line's value reads as a value, not as prose."""
    v = value.strip()
    if not v:
        return False
    if re.match(r"^(?:-|->|=>|–|—|:|=)(?:\s|$)", v):
        return False
    plain = re.sub(r"\"[^\"]*\"|'[^']*'|<[^>]*>|\[[^\]]*\]|\{[^}]*\}", " ", v)
    tokens = plain.split()
    if tokens and re.match(r"^[A-Za-z]+[.,:;!?]$", tokens[-1]):
        return False
    words = [t for t in tokens if _WORD.match(t) and t.lower() not in _VALUE_WORDS]
    return len(words) < 3


def _identifier(key: str) -> bool:
    """An identifier no sentence starts with: `a-b`, `a_b`, `a.b`, `camelCase`, `x11`."""
    k = key.lstrip("!")
    return bool(re.search(r"[A-Za-z0-9][-_.][A-Za-z0-9]|[a-z][A-Z]|[A-Za-z]\d", k))


# ----------------------------------------------------------------------------- headings
def _is_rule(ln: _Line, markers: str) -> bool:
    if not ln.comment:
        return False
    s = ln.body.strip()
    if len(s) >= 3 and set(s) <= _RULE_CHARS:
        return True
    whole = ln.raw.strip()
    return len(whole) >= 2 and set(whole) <= set(markers)


def _text_of(ln: _Line, markers: str) -> str:
    """A heading line's words: doubled markers and box sides cut."""
    return ln.body.strip().strip(markers + "-=~* ").strip()


def _headings(lines: list[_Line], markers: str) -> tuple[dict[int, tuple[int, str]], set[int]]:
    """Heading lines {index: (level, text)} and rule lines, by the docstring's rules."""
    rules = {i for i, ln in enumerate(lines) if _is_rule(ln, markers)}
    heads: dict[int, tuple[int, str]] = {}

    def prose(i: int) -> bool:
        if i < 0 or i >= len(lines) or i in rules:
            return False
        ln = lines[i]
        return ln.comment and bool(ln.body.strip())

    banner = re.compile(
        rf"^[{re.escape(markers)}]{{3,}}\s*(.*?[A-Za-z].*?)\s*[{re.escape(markers)}]{{3,}}$"
    )
    for i, ln in enumerate(lines):
        if not ln.comment or i in rules:
            continue
        text = _text_of(ln, markers)
        words = len(text.split())
        if not text or not re.search(r"[A-Za-z]", text):
            continue
        m = banner.match(ln.raw.strip())
        if m:
            heads[i] = (1, _text_of(_Line(0, "", True, 0, m.group(1), 0), markers))
        elif (i - 1 in rules and i + 1 in rules) and words <= 10 and not text.endswith("."):
            heads[i] = (1, text)
        elif (i + 1 in rules and not prose(i - 1) and words <= 8
              and not re.search(r"[a-z]", text)):  # fmt: skip
            heads[i] = (1, text)
        elif (re.match(rf"^([{re.escape(markers)}])\1+ ", ln.raw.strip()) and words <= 10
              and not text.endswith(".") and not prose(i - 1) and not prose(i + 1)):  # fmt: skip
            heads[i] = (1, text)  # "## Title"
        else:
            m2 = re.match(r"^-\s+(.+?)\s+-$", ln.body.strip())
            if m2:
                heads[i] = (2, m2.group(1))
    if not any(level == 1 for level, _ in heads.values()):
        for i, ln in enumerate(lines):
            if not ln.comment or i in rules or i in heads:
                continue
            text = ln.body.strip()
            if (len(re.findall(r"[A-Z]", text)) >= 3 and not re.search(r"[a-z]", text)
                    and len(text.split()) <= 8 and not text.endswith(".")
                    and not prose(i - 1) and not prose(i + 1)):  # fmt: skip
                heads[i] = (1, text)
    return heads, rules


# ----------------------------------------------------------------------------- items
@dataclass
class _Prose:
    """Comment lines' text (after the marker, its spaces kept; "" a paragraph break)."""

    lines: list[str]


@dataclass
class _Occ:
    """One occurrence of a setting (or of a block, mapping or section) in the file."""

    key: str
    path: tuple[str, ...]
    kind: str  # "setting" | "section"
    lines: list[str]  # as written, marker and trailing comment cut
    no: int
    commented: bool
    value: str
    nested: bool = False  # its path is its name's (YAML, TOML): always qualified
    trailing: list[str] = field(default_factory=list)
    tcol: int = -1  # the trailing comment marker's column
    block: list[str] = field(default_factory=list)  # a section's lines
    heading: str = ""
    lead: _Prose | None = None
    tails: list[_Prose] = field(default_factory=list)
    run: list[_Occ] = field(default_factory=list)
    default_intro: bool = False  # a paragraph ending "The default is:" stands above it
    name: str = ""
    label: str = ""  # the group label over it ("Kerberos options")
    col: int = 0  # its line's indentation
    written: list[str] = field(default_factory=list)  # its lines with trailing comments

    @property
    def end(self) -> int:
        """Its last line's number (continuation lines and trailing comment lines in)."""
        return self.no + len(self.lines) - 1 + max(0, len(self.trailing) - 1)


@dataclass
class _Item:
    kind: str  # blank, break, heading, rule, prose, setting, section
    text: str = ""  # prose: the comment's text; heading: its words
    level: int = 0
    occ: _Occ | None = None


@dataclass
class _Frame:
    part: str
    col: int
    commented: bool
    occ: _Occ | None = None
    ssh: bool = False  # an ssh `Host`/`Match` section: it lasts to the next one


def _show(stack: list[_Frame], ln: _Line) -> None:
    """A structural line shown in each open block's lines (uncommented, at its column)."""
    text = " " * (ln.col + ln.gap) + ln.body.strip() if ln.comment else ln.raw
    for fr in stack:
        if fr.occ is not None and len(fr.occ.block) <= _MAX_SHOWN:
            fr.occ.block.append(text)


def _documents(f: SourceFile, source: str) -> list[Document]:
    """A file's documents, by its dialect (see the module's docstring)."""
    low = f.rel.name.lower()
    if low.endswith((".yml", ".yaml")):
        items = _yaml_items(_lines(f.text, "#"))
    else:
        ini_name = low.endswith(_INI_NAMES) or low.startswith("php.ini")
        toml = low.endswith(".toml")
        markers = "#;" if ini_name else "#"
        raw = f.text.split("\n")
        if not toml and sum(x.startswith(";") for x in raw) >= 3:
            if any(_SECTION.match(x.strip()) for x in raw):
                markers = "#;"
        lines = _lines(f.text, markers)
        if sum(1 for ln in lines if ln.comment and _TAG.match(ln.raw.strip())) >= 3:
            return _tag_documents(f, source, lines)
        ssh = low.endswith("_config")
        items = _conf_items(lines, markers, ini_name, toml, low.endswith(".properties"), ssh)
    occs, header = _attach(items)
    said = [p for block in header for p in _paragraphs(block)]
    says_defaults = any(_SAYS_DEFAULTS.search(p) for p in said)
    return _build(f, source, occs, header, says_defaults)


def _conf_items(
    lines: list[_Line], markers: str, ini_name: bool, toml: bool, properties: bool, ssh: bool
) -> list[_Item]:
    """The key-value dialect's lines as items (see the module's docstring)."""
    heads, rules = _headings(lines, markers)
    ini = toml or any(not ln.comment and _SECTION.match(ln.body) for ln in lines)
    ws = not ini_name and not toml
    colon = properties

    def parse(s: str) -> _Parsed | None:
        value, _, _ = _split_trailing(s, markers)
        return _parse(value, ws, colon)

    active: set[str] = set()
    for ln in lines:
        if not ln.comment and not ln.blank:
            p = parse(ln.body)
            if p is not None:
                active.add(p.key)
    tight_n = spaced_n = 0
    for i, ln in enumerate(lines):
        if not ln.comment or i in rules or i in heads:
            continue
        p = parse(ln.body.strip())
        if p is None or (p.sep == " " and not _value_like(_split_trailing(p.value, markers)[0])):
            continue
        if ln.gap == 0:
            tight_n += 1
        elif p.sep == "=" or _identifier(p.key):
            spaced_n += 1
    tight = tight_n >= 3 and tight_n >= spaced_n
    chosen = _commented_settings(lines, rules, heads, markers, parse, active, tight)

    items: list[_Item] = []
    stack: list[_Frame] = []
    prev: _Occ | None = None  # the last setting, for continuation lines
    prev_line: _Line | None = None
    for i, ln in enumerate(lines):
        last, prev_line = prev_line, ln
        if ln.blank:
            items.append(_Item("blank"))
            prev = None
            while stack and stack[-1].ssh and stack[-1].commented:
                stack.pop()
            continue
        in_commented = any(fr.commented for fr in stack)
        if i in heads or i in rules:  # inside a commented-out block, no heading: a line
            # commented out twice there (collectd's `#\t#AuthType "md5"`)
            heading = i in heads and not (ln.comment and in_commented)
            items.append(_Item("heading", *heads[i][::-1]) if heading else _Item("rule"))
            prev = None
            continue
        if prev is not None and last is not None:
            how = _continues(prev, ln, last)
            if how == "comment":
                prev.trailing.append(ln.body)
                continue
            if how == "value":
                text = ln.body.rstrip() if ln.comment else ln.raw.rstrip()
                prev.lines.append(_split_trailing(text, markers)[0])
                prev.written.append(text)
                continue
        if ln.comment:
            s = ln.body.strip()
            if (s in ("}", "};") or _APACHE_CLOSE.match(s)) and in_commented:
                while stack and not stack[-1].commented:
                    stack.pop()
                _show(stack, ln)
                if stack:
                    stack.pop()
                items.append(_Item("break"))
                prev = None
                continue
            if in_commented and s[:1] in markers:  # commented out twice inside the block
                items.append(_Item("break"))
                prev = None
                continue
            opened = _block_open(s) if (ln.gap == 0 or (not tight and ln.gap <= 1)
                                         or in_commented) else None  # fmt: skip
            if opened is not None:
                prev = _open(items, stack, ln, opened, True)
                continue
            ok = i in chosen or (
                in_commented and ln.gap != 1 and _candidate(ln, parse, markers, active) is not None
            )
            p = parse(s) if ok else None
            if p is not None and ssh and p.key.lower() in ("host", "match"):
                prev = _ssh_section(items, stack, ln, p, True)
                continue
            if p is not None:
                _show(stack, ln)
                prev = _setting(items, stack, ln, s, p, True, markers, toml)
                continue
            items.append(_Item("prose", ln.body))
            prev = None
            continue
        # an active line
        s, _, _ = _split_trailing(ln.body, markers)
        if ini:
            m = _TOML_TABLE.match(s) if toml else _SECTION.match(s)
            if m:
                part = m.group(1).strip()
                stack = [_Frame(part, -1, False)]
                occ = _Occ(part, (), "section", [ln.raw.strip()], ln.no, False, "")
                items.append(_Item("section", part, occ=occ))
                prev = None
                continue
        if s in ("}", "};") or _APACHE_CLOSE.match(s):
            while stack and stack[-1].commented:
                stack.pop()
            _show(stack, ln)
            if stack and stack[-1].col >= 0:
                stack.pop()
            items.append(_Item("break"))
            prev = None
            continue
        opened = _block_open(s)
        if opened is not None:
            prev = _open(items, stack, ln, opened, False)
            continue
        p = _parse(s, ws, colon) or (_Parsed(s, "", "") if _BARE.match(s) else None)
        if p is None:
            items.append(_Item("break"))
            prev = None
            continue
        if ssh and p.key.lower() in ("host", "match"):
            prev = _ssh_section(items, stack, ln, p, False)
            continue
        _show(stack, ln)
        prev = _setting(items, stack, ln, ln.body, p, False, markers, toml)
    return items


def _ssh_section(
    items: list[_Item], stack: list[_Frame], ln: _Line, p: _Parsed, commented: bool
) -> _Occ:
    """An ssh `Host x`/`Match x` line: a section lasting to the next one (a commented-out
    one to the next blank line)."""
    while stack and stack[-1].ssh:
        stack.pop()
    part = f"{p.key}[{' '.join(p.value.split())}]"
    shown = ln.body.strip() if commented else ln.raw.strip()
    occ = _Occ(part, tuple(fr.part for fr in stack), "section", [shown], ln.no, commented, p.value)
    occ.block = [shown]
    stack.append(_Frame(part, ln.col, commented, occ, ssh=True))
    items.append(_Item("section", part, occ=occ))
    return occ


def _near(col: int, tcol: int) -> bool:
    """Whether a comment line standing at `col` continues a trailing comment at `tcol`:
    about the same column, or far right of any comment that starts a line."""
    return abs(col - tcol) <= 2 or col >= 24


def _continues(prev: _Occ, ln: _Line, last: _Line) -> str:
    """How `ln` continues the setting on the line above: "comment", its trailing comment's
    next line (a comment standing at about its column); "value", its value's next line
    (indented past it, after a value ending in `,` or `\\`, or an empty one); or ""."""
    if ln.blank:
        return ""
    if ln.comment and prev.tcol >= 0 and ln.col > 0 and _near(ln.col, prev.tcol):
        return "comment"
    if ln.comment != prev.commented or prev.trailing or prev.kind != "setting":
        return ""
    ends = prev.lines[-1].rstrip().endswith((",", "\\"))
    if not (ends or (prev.value == "" or len(prev.lines) > 1) and not ln.comment):
        return ""
    body = ln.body.strip()
    if body.endswith("{") or body in ("}", "};"):
        return ""
    if ln.comment:
        return "value" if ln.gap > 0 and ln.col == last.col else ""
    return "value" if ln.col > prev.col else ""


def _block_open(s: str) -> tuple[str, str] | None:
    m = _OPEN.match(s)
    if m:
        return m.group(1), " ".join(m.group(2).split())
    m = _APACHE_OPEN.match(s)
    if m and not s.startswith("</"):
        return m.group(1), " ".join(m.group(2).split())
    return None


def _open(
    items: list[_Item], stack: list[_Frame], ln: _Line, opened: tuple[str, str], commented: bool
) -> _Occ:
    kind, arg = opened
    part = f"{kind}[{arg}]" if arg else kind
    col = ln.col + (ln.gap if commented else 0)
    while stack and stack[-1].col >= col and stack[-1].commented == commented and col >= 0:
        stack.pop()  # an unclosed block at the same indentation
    path = tuple(fr.part for fr in stack if fr.col >= 0)
    _show(stack, ln)
    shown = ln.body.strip() if commented else ln.raw.strip()
    occ = _Occ(part, path, "section", [shown], ln.no, commented, arg)
    occ.block = [" " * col + shown]
    stack.append(_Frame(part, col, commented, occ))
    items.append(_Item("section", part, occ=occ))
    return occ


def _setting(
    items: list[_Item],
    stack: list[_Frame],
    ln: _Line,
    text: str,
    p: _Parsed,
    commented: bool,
    markers: str,
    toml: bool,
) -> _Occ:
    shown, comment, at = _split_trailing(text.strip(), markers)
    path = tuple(fr.part for fr in stack)
    key = p.key
    occ = _Occ(
        key, path, "setting", [shown], ln.no, commented, _split_trailing(p.value, markers)[0]
    )
    occ.nested = toml
    occ.col = ln.col
    occ.written = [text.strip()]
    if comment is not None:
        occ.trailing.append(comment)
        lead = len(ln.raw) - len(ln.raw.lstrip()) + (1 + ln.gap if commented else 0)
        occ.tcol = lead + at
    items.append(_Item("setting", occ=occ))
    return occ


def _commented_settings(
    lines: list[_Line],
    rules: set[int],
    heads: dict[int, tuple[int, str]],
    markers: str,
    parse: Callable[[str], _Parsed | None],
    active: set[str],
    tight: bool,
) -> set[int]:
    """The comment lines that are commented-out settings (see the module's docstring)."""
    chosen: set[int] = set()

    def candidate(i: int) -> _Parsed | None:
        return _candidate(lines[i], parse, markers, active)

    if tight:
        for i, ln in enumerate(lines):
            if ln.comment and ln.gap == 0 and i not in rules and i not in heads and candidate(i):
                chosen.add(i)
        return chosen
    i = 0
    while i < len(lines):
        if not _paragraph_line(lines[i], i, rules, heads):
            i += 1
            continue
        j = i
        while j < len(lines) and _paragraph_line(lines[j], j, rules, heads):
            j += 1
        para = list(range(i, j))
        i = j
        margin = min(lines[k].gap for k in para)
        tail: list[int] = []
        for k in reversed(para):
            if candidate(k) is None:
                break
            tail.insert(0, k)
        if not tail:
            continue
        whole = len(tail) == len(para)
        gaps = {lines[k].gap for k in tail}
        if len(gaps) > 1 or (not whole and lines[tail[0]].gap > margin):
            continue
        strong = [k for k in tail if _strong(candidate(k), active)]
        if whole and len(tail) >= 2 and 2 * len(strong) >= len(tail):
            chosen.update(tail)
            continue
        before = lines[tail[0] - 1].body.rstrip() if not whole else ""
        for k in tail:
            p = candidate(k)
            assert p is not None
            key = p.key
            if _strong(p, active) or (
                key.islower() and (whole or before.endswith((".", ":", ")", "!", "?")))
            ):
                chosen.add(k)
    return chosen


def _candidate(
    ln: _Line, parse: Callable[[str], _Parsed | None], markers: str, active: set[str]
) -> _Parsed | None:
    """A comment line's setting, when its text parses as one whose value is no prose."""
    p = parse(ln.body.strip())
    if p is None:
        return None
    if p.sep == " " and not _value_like(_split_trailing(p.value, markers)[0]):
        return None
    if p.key.lower() in _STOPWORDS and p.key not in active:
        return None
    return p


def _strong(p: _Parsed | None, active: set[str]) -> bool:
    return p is not None and (p.key in active or _identifier(p.key) or p.sep == "=")


def _paragraph_line(ln: _Line, i: int, rules: set[int], heads: dict[int, tuple[int, str]]) -> bool:
    return ln.comment and bool(ln.body.strip()) and i not in rules and i not in heads


# ----------------------------------------------------------------------------- YAML
def _yaml_items(lines: list[_Line]) -> list[_Item]:
    """YAML's lines as items: structure by indentation, commented-out structure too."""
    rules = {i for i, ln in enumerate(lines) if _is_rule(ln, "#")}
    items: list[_Item] = []
    stack: list[tuple[int, str, _Occ]] = []  # open mappings: (column, key, occurrence)
    value_col = -1  # lines deeper than this belong to a list item or a block scalar
    last = -1  # the column of the commented-out structure right above, or -1
    for i, ln in enumerate(lines):
        if ln.blank:
            items.append(_Item("blank"))
            last = -1
            continue
        if i in rules:
            items.append(_Item("rule"))
            last = -1
            continue
        if ln.comment:
            text = ln.body.strip()
            col = ln.col + ln.gap
            shaped = bool(_YAML_KEY.match(text)) or text.startswith("- ") or text == "-"
            structural = (
                (ln.gap == 0 and shaped and text[:1] != "#")
                or (last >= 0 and ln.gap >= 2 and (shaped or col > last))
                or (last >= 0 and ln.gap == 1 and text.startswith("- "))
            )
            if not structural:
                items.append(_Item("prose", ln.body))
                last = -1
                continue
            last = col
        else:
            col, text = ln.col, ln.body
            last = -1
        if value_col >= 0 and col > value_col:
            _yaml_show(stack, col, text)
            continue
        value_col = -1
        value, comment, at = _split_trailing(text, "#")
        if value.startswith("- ") or value == "-":
            while stack and stack[-1][0] > col:
                stack.pop()
            _yaml_show(stack, col, text)
            value_col = col
            continue
        m = _YAML_KEY.match(value)
        if not m:
            if value in ("---", "..."):
                stack.clear()
                items.append(_Item("break"))
            else:
                _yaml_show(stack, col, text)
            continue
        while stack and stack[-1][0] >= col:
            stack.pop()
        _yaml_show(stack, col, text)
        key = m.group(1).strip("\"'")
        val = (m.group(2) or "").strip()
        block_scalar = val[:1] in ("|", ">")
        kind = "setting" if val and not block_scalar else "section"
        occ = _Occ(key, tuple(k for _, k, _ in stack), kind, [value], ln.no, ln.comment, val)
        occ.nested = True
        occ.block = [value]
        if comment is not None:
            occ.trailing.append(comment)
            occ.tcol = ln.col + (1 + ln.gap if ln.comment else 0) + at
        items.append(_Item("setting", occ=occ))
        if kind == "section":
            stack.append((col, key, occ))
            if block_scalar:
                value_col = col
    return items


def _yaml_show(stack: list[tuple[int, str, _Occ]], col: int, text: str) -> None:
    """A line shown in each open mapping's lines, at its column below the mapping's."""
    for base, _, occ in stack:
        if len(occ.block) <= _MAX_SHOWN:
            occ.block.append(" " * max(0, col - base) + text)


# ----------------------------------------------------------------------------- attaching
def _mentions(text: str, key: str) -> bool:
    return bool(re.search(rf"(?<![\w.\-]){re.escape(key)}(?![\w\-]|\.\w)", text))


def _has_text(lines: list[str]) -> bool:
    return any(x.strip() for x in lines)


def _paras(lines: list[str]) -> list[list[str]]:
    out: list[list[str]] = [[]]
    for x in lines:
        if x.strip():
            out[-1].append(x)
        elif out[-1]:
            out.append([])
    return [p for p in out if p]


def _attach(items: list[_Item]) -> tuple[list[_Occ], list[list[str]]]:
    """Every occurrence with its prose attached, and the file's opening prose (blocks of
    comment text, a heading a block of its own)."""
    occs: list[_Occ] = []
    header: list[list[str]] = []
    opened = False
    level1 = level2 = section = ""
    carry: _Prose | None = None
    blanks = 0
    block: list[_Item] = []

    def close_block() -> None:
        nonlocal carry, opened, blanks
        if not block:
            return
        prose_only = _run_block(block, carry if blanks == 1 else None)
        block.clear()
        blanks = 0
        carry = None
        if prose_only is not None:
            if not opened:
                header.append(prose_only.lines)
            else:
                carry = prose_only

    for it in items:
        if it.kind in ("blank", "break", "heading"):
            close_block()
            if it.kind == "blank":
                blanks += 1
                continue
            carry = None
            if it.kind == "heading":
                if not opened and header:
                    opened = True
                elif not opened:
                    header.append([it.text])  # the file's title: no section
                    continue
                if it.level == 1:
                    level1, level2 = it.text, ""
                else:
                    level2 = it.text
            continue
        if it.occ is not None:
            occ = it.occ
            if (
                it.kind == "section"
                and not occ.path
                and occ.key == it.text
                and occ.lines[0].startswith("[")
            ):
                section, level1, level2 = occ.key, "", ""
            occ.heading = " > ".join(x for x in (level1, level2) if x) or (
                f"[{section}]" if section and occ.lines[0][:1] != "[" else ""
            )
            occs.append(occ)
            opened = opened or not occ.lines[0].startswith("[")
        block.append(it)
    close_block()
    return occs, header


def _run_block(block: list[_Item], carry: _Prose | None) -> _Prose | None:
    """Attach a block's prose to its settings; a block of prose alone is returned."""
    pending: list[str] = []
    run: list[_Occ] = []
    runs: list[tuple[list[_Occ], bool]] = []  # each run, and whether its lead was carried
    last: _Occ | None = None
    seen = False
    for it in block:
        if it.kind == "prose":
            pending.append(it.text)
            continue
        if it.kind == "rule":
            pending.append("")
            continue
        occ = it.occ
        if occ is None:
            continue
        if _has_text(pending):
            trail, lead = _split_between(pending, run, occ)
            if trail:
                _attach_tail(run, trail)
            occ.lead = _Prose(lead)
            filled = [x.strip() for x in lead if x.strip()]
            occ.default_intro = bool(filled) and bool(_INTRO_DEFAULT.search(filled[-1]))
            run = [occ]
            runs.append((run, False))
        elif not seen and carry is not None:
            occ.lead = carry
            run = [occ]
            runs.append((run, True))
        elif run and last is run[-1] and occ.path == last.path and occ.kind == last.kind:
            run.append(occ)
            occ.lead = run[0].lead
        elif run and len(occ.path) > len(run[0].path):
            pass  # nested under the run: only prose of its own
        else:
            run = [occ]
        occ.run = run
        last = occ
        pending = []
        seen = True
    for members, carried in runs:
        label = _label(members[0].lead)
        if label and (len(members) > 1 or carried):
            for o in members:  # "# Logging" over a group: a heading, not documentation
                o.lead, o.label = None, label
            continue
        prose = members[0].lead
        said = first_sentence(" ".join(_paragraphs(prose.lines)[:1])) if prose is not None else ""
        named = [o for o in members if _mentions(said, o.key)]
        if named and len(members) > 1:  # its first sentence names whom it documents: those
            kept = [o for o in members if o is members[0] or o in named]
            for o in members:
                if o not in kept:
                    o.lead, o.run = None, [o]
            members[:] = kept
    if _has_text(pending):
        if run:
            _attach_tail(run, pending)
        elif not seen:
            return _Prose(pending)
    return None


def _label(prose: _Prose | None) -> str:
    """A lead that only names a group ("Logging", "Authentication:"): one line of at most
    four words, no sentence."""
    said = [x.strip() for x in prose.lines if x.strip()] if prose is not None else []
    if len(said) != 1 or len(said[0].split()) > 4 or said[0].endswith((".", "!", "?")):
        return ""
    return said[0].rstrip(":")


def _split_between(pending: list[str], run: list[_Occ], nxt: _Occ) -> tuple[list[str], list[str]]:
    """Prose between a run and the next setting: (what the run keeps, what leads next)."""
    if not run:
        return [], pending
    paras = _paras(pending)
    keep = 0
    for k, para in enumerate(paras):
        text = " ".join(para)
        later = k + 1 < len(paras) or bool(nxt.trailing)
        if later and any(_mentions(text, o.key) for o in run) and not _mentions(text, nxt.key):
            keep = k + 1
        else:
            break
    if not keep:
        return [], pending
    trail = [x for p in paras[:keep] for x in [*p, ""]]
    lead = [x for p in paras[keep:] for x in [*p, ""]]
    return trail, lead


def _attach_tail(run: list[_Occ], lines: list[str]) -> None:
    text = " ".join(lines)
    prose = _Prose(lines)
    named = [o for o in run if _mentions(text, o.key)] or run
    for o in named:
        o.tails.append(prose)


# ----------------------------------------------------------------------------- prose
@dataclass
class _Facts:
    values: dict[str, str] = field(default_factory=dict)  # "Default" -> "On"
    notes: list[str] = field(default_factory=list)
    references: list[str] = field(default_factory=list)

    def add(self, label: str, value: str) -> None:
        self.values.setdefault(label, value)


def _prose(lines: list[str], facts: _Facts) -> list[str]:
    """Comment text as clean paragraphs (see the module's docstring); facts taken out."""
    kept: list[tuple[int, str]] = []
    filled = [x for x in lines if x.strip()]
    margin = min((len(x) - len(x.lstrip()) for x in filled), default=0)
    for x in lines:
        s = x.strip()
        if not s or (len(s) >= 3 and set(s) <= _RULE_CHARS):
            kept.append((0, ""))
            continue
        rel = len(x) - len(x.lstrip()) - margin
        if rel == 0:
            m = _FACT.match(s)
            if m:
                label = (
                    "Default" if m.group(1).lower().startswith("default") else m.group(1).title()
                )
                facts.add(label, m.group(2).strip())
                kept.append((0, ""))
                continue
            r = _REFERENCE.match(s)
            if r:
                facts.references.append(r.group(1))
                kept.append((0, ""))
                continue
        d = _PAREN_DEFAULT.search(s)
        if d:
            facts.add("Default", d.group(1).strip())
        kept.append((rel, s if rel == 0 else x[margin:].rstrip()))
    out: list[str] = []
    listing = False
    code_last = False  # the last block out is a fence: an indented paragraph joins it
    for para in _paras_of(kept):
        indented = all(rel > 0 for rel, _ in para)
        if re.match(r"^[#;]\s", para[0][1].strip()):  # a comment in the comment: an example
            out.append(_fence([(" " * rel + x.strip()) if rel == 0 else x for rel, x in para]))
            code_last = True
            continue
        if indented and _prose_like([x for _, x in para]):
            low = min(rel for rel, _ in para)
            nest = "  " if _BULLET.match(para[0][1].strip()) else ""
            para = [(rel - low, x.strip() if rel == low else x) for rel, x in para]
            blocks, listing = _paragraph(para, listing, nest)
            out += blocks
            code_last = bool(blocks) and blocks[-1].startswith("```")
            continue
        elif code_last and indented:
            out[-1] = out[-1][: -len("\n```")] + "\n\n" + _fence([s for _, s in para])[4:]
            continue
        blocks, listing = _paragraph(para, listing)
        out += blocks
        code_last = bool(blocks) and blocks[-1].startswith("```")
    return out


def _prose_like(lines: list[str]) -> bool:
    """Whether indented lines read as prose (sentences, list items), not as code."""
    if any(_CODE.search(x) for x in lines):
        return False
    wordy = sum(len(re.findall(r"\b[A-Za-z]{2,}\b", x)) >= 4 for x in lines)
    bullets = sum(bool(_BULLET.match(x.strip())) for x in lines)
    return 2 * wordy >= len(lines) or 2 * bullets >= len(lines)


def _paras_of(kept: list[tuple[int, str]]) -> list[list[tuple[int, str]]]:
    out: list[list[tuple[int, str]]] = [[]]
    for rel, s in kept:
        if s:
            out[-1].append((rel, s))
        elif out[-1]:
            out.append([])
    return [p for p in out if p]


def _item_like(s: str, listing: bool, first: bool = False) -> bool:
    """Whether a line is a list's item: by its shape; a `term  text` line (two spaces)
    first in its paragraph or in a list; after a line ending in `:` a `word (text)` or
    short line."""
    if re.search(r"\s[#;]\s", s):
        return False  # a trailing comment: an example's line
    if _ITEM.match(s):
        return True
    if (first or listing) and _TERM_ITEM.match(s) and re.search(r"[A-Za-z]{2}", s):
        return True
    if not listing or s.endswith(":"):
        return False
    return bool(_PAREN_ITEM.match(s) or _COLON_ITEM.match(s)) or len(s) < 50


def _item(s: str) -> str:
    """An item on one line: its term's gap kept at two spaces, other spaces collapsed."""
    s = s.strip()
    m = re.match(r"^((?:\S+ )?\S+)\s{2,}(\S.*)$", s)
    if (
        m
        and not re.match(r"^(?:-|->|=>|–)\s", m.group(2))
        and not re.match(r"^(?:[-*•+]|\(?\d{1,2}[.)]|[a-z][)])$", m.group(1))
    ):
        return m.group(1) + "  " + " ".join(m.group(2).split())
    return " ".join(s.split())


def _hang(s: str) -> int:
    """Where an item's text starts (its continuation lines' indentation)."""
    m = re.match(
        r"^(?:[-*•+]|\(?\d{1,2}[.)]|[a-z][)])\s+|^\S+\s+(?:-|->|=>|–)\s+|^(?:\S+ )?\S+\s{2,}"
        r"|^[\w.\-<>/%]+:\s+",
        s,
    )
    return m.end() if m else 2


def _paragraph(
    para: list[tuple[int, str]], listing: bool, nest: str = ""
) -> tuple[list[str], bool]:
    """One paragraph's blocks (prose joined, items one a line, `nest` before each, indented
    lines fenced) and whether it ends introducing a list (a line ending in `:`)."""
    out: list[str] = []
    prose: list[str] = []
    items: list[str] = []
    block: list[str] = []
    hang = 0  # the last item's continuation column
    label = -1  # where the text after a prose line's "NOTE 1:" starts
    in_list = False
    by_format = False  # the list's first item looks like one (`-`, `1)`, `a -> b`)

    def flush() -> None:
        if prose:
            out.append(" ".join(" ".join(prose).split()))
            prose.clear()
        if items:
            out.append("\n".join(nest + _item(x) for x in items))
            items.clear()

    def flush_block() -> None:
        if block:
            out.append(_fence(block))
            block.clear()

    for rel, s in para:
        text = s.strip()
        if rel > 0:
            if items and not block and rel >= hang:
                items[-1] += " " + text
            elif not block and (
                items
                or (listing and (_item_like(text, False, True) or _COLON_ITEM.match(text)))
                or _BULLET.match(text)
            ):
                if prose:
                    flush()
                items.append(text)
                hang = rel + _hang(text)
                in_list = True
            elif prose and not block and not listing and (rel <= 2 or rel == label):
                prose.append(text)  # a hanging line of prose
            else:
                flush()
                block.append(s)
            listing = False
            continue
        if _CODE_LINE.match(s):
            flush()
            block.append(s)
            continue
        flush_block()
        if _item_like(s, listing or in_list, not prose and not items) or (
            in_list and (by_format or len(s) < 50)
        ):
            if prose:
                flush()
            by_format = by_format or not items and _item_like(s, False, True)
            items.append(s)
            hang = _hang(s)
            in_list = True
        else:
            in_list = by_format = False
            if items or (prose and _NOTE.match(s)):
                flush()
            prose.append(s)
            m = _LABEL.match(s)
            label = m.end() if m else -1
        listing = s.endswith(":")
    flush()
    flush_block()
    return out, listing


def _fence(lines: list[str]) -> str:
    filled = [x for x in lines if x.strip()]
    margin = min((len(x) - len(x.lstrip()) for x in filled), default=0)
    body = "\n".join(x[margin:] for x in lines)
    return f"```\n{body}\n```"


def _paragraphs(lines: list[str]) -> list[str]:
    return [" ".join(" ".join(p).split()) for p in _paras(lines)]


def first_sentence(text: str) -> str:
    """The first sentence of a text's first paragraph, on one line."""
    return _first_sentence(text, _SENTENCE_END, _MAX_SENTENCE)


# ----------------------------------------------------------------------------- documents
def _names(occs: list[_Occ]) -> None:
    """Each occurrence's name: its key, or its path and key (see the module's docstring)."""
    paths: dict[str, set[tuple[str, ...]]] = {}
    for o in occs:
        paths.setdefault(o.key, set()).add(o.path)
    for o in occs:
        qualify = o.nested or len(paths[o.key]) > 1
        o.name = ".".join([*o.path, o.key]) if qualify and o.path else o.key


def _build(
    f: SourceFile,
    source: str,
    occs: list[_Occ],
    header: list[list[str]],
    says_defaults: bool,
) -> list[Document]:
    _names(occs)
    by_name: dict[str, list[_Occ]] = {}
    for o in occs:
        by_name.setdefault(o.name, []).append(o)
    file = f.rel.name
    docs: list[tuple[int, Document, str]] = []
    summaries: dict[str, str] = {}
    for name, group in by_name.items():
        if not any(_documented(o) for o in group):
            continue
        got = _text(name, group, occs, says_defaults)
        if got is None:
            continue
        text, first, summaries[name] = got
        kind = "section" if first.kind == "section" else "setting"
        signature = text.split("\n", 1)[0].strip()[:_MAX_SIGNATURE]
        doc = api_document(source, URI_PREFIX, f, f"{file}:{name}", text, kind, signature,
                           first.no, language="config", file=file, key=first.key)  # fmt: skip
        docs.append((first.no, doc, name))
    docs.sort(key=lambda d: (d[0], d[2]))
    out = [d for _, d, _ in docs]
    if out:
        out.insert(0, _file_document(f, source, header, [(n, summaries[n]) for _, _, n in docs]))
    return out


def _documented(o: _Occ) -> bool:
    if o.lead is not None and _has_text(o.lead.lines):
        return True
    return any(_has_text(t.lines) for t in o.tails) or _has_text(o.trailing)


def _groups(group: list[_Occ]) -> list[list[_Occ]]:
    """A name's occurrences in groups of lines one right below another."""
    out: list[list[_Occ]] = []
    for o in group:
        last = out[-1][-1] if out else None
        if last is not None and o.no == last.end + 1 and o.commented == last.commented:
            out[-1].append(o)
        else:
            out.append([o])
    return out


def _text(
    name: str, group: list[_Occ], occs: list[_Occ], says_defaults: bool
) -> tuple[str, _Occ, str] | None:
    """A name's text (see the module's docstring), its first occurrence and its summary;
    None when its comments say nothing of it."""
    groups = _groups(group)
    primary = next((g for g in groups if any(not o.commented for o in g)), groups[-1])
    first = primary[0]
    if first.kind == "section" and len(primary) == 1:
        head = _shown_block(first)
    else:
        head = [x for o in primary for x in o.lines][:_MAX_HEADER]
    if first.nested and first.path and head:  # YAML, TOML: the setting by its whole name
        head[0] = name + head[0][len(first.key) :] if head[0].startswith(first.key) else head[0]
    facts = _Facts()
    body: list[str] = []
    seen: set[int] = set()
    for g in groups:
        intro = False  # the lead ends introducing the lines below it
        for o in g:
            if o.lead is not None and id(o.lead) not in seen:
                seen.add(id(o.lead))
                body += _prose(o.lead.lines, facts)
                said = [x.strip() for x in o.lead.lines if x.strip()]
                intro = intro or (bool(said) and said[-1].endswith(":"))
        if g is not primary:
            body.append(_fence([x for o in g for x in o.block or o.written or o.lines]))
        elif intro and first.kind == "setting":
            body.append(_fence([x for o in g[0].run or g for x in o.lines]))
        for o in g:
            if o.trailing and (g is primary or not o.written):
                body += _trailing(o, facts)
            for t in o.tails:
                if id(t) not in seen:
                    seen.add(id(t))
                    body += _prose(t.lines, facts)
    prose = [p for p in body if not p.startswith("```")]
    if not prose and not facts.values and not facts.notes:
        return None  # a link or an example says nothing of its own
    summary = first_sentence(prose[0]) if prose else ""
    if "Default" not in facts.values:
        for o in group:
            if o.default_intro and o.commented and o.value:
                facts.add("Default", o.value)
                break
    if "Default" not in facts.values and says_defaults:
        commented = next((g for g in groups if all(o.commented for o in g)), None)
        if commented is not None and all(o.kind == "setting" for o in commented):
            values = list(dict.fromkeys(o.value for o in commented if o.value))
            if values:
                facts.add("Default", "; ".join(values))
    tail: list[str] = [f"{label}: {value}" for label, value in facts.values.items()]
    tail += facts.notes
    tail += [f"Reference: {r}" for r in dict.fromkeys(facts.references)]
    heading = " > ".join(x for x in (first.heading, first.label) if x)
    if heading:
        tail.append(f"Section: {heading}")
    run = first.run
    if first.lead is not None and 1 < len(run) <= _MAX_RUN:
        others = [o.name for o in run if o.name != name]
        if others:
            tail.append(
                "Documented together with: " + ", ".join(f"`{n}`" for n in dict.fromkeys(others))
            )
    parts = ["\n".join(head), *body]
    if tail:
        parts.append("\n".join(tail))
    if first.kind == "section":
        listed = _listed(first, occs)
        if listed:
            parts.append("Settings:\n" + "\n".join(listed))
    return "\n\n".join(p for p in parts if p.strip()), first, summary


def _trailing(o: _Occ, facts: _Facts) -> list[str]:
    """A trailing comment and its continuation lines as prose; a line in parentheses a
    note, `default` and `defaults to x` a default."""
    lines: list[str] = []
    for x in o.trailing:
        s = x.strip()
        m = _PAREN.match(s)
        if m:
            note = m.group(1).strip()
            facts.notes.append(note[:1].upper() + note[1:] + ("" if note.endswith(".") else "."))
            continue
        if _BARE_DEFAULT.match(s):
            if o.value:
                facts.add("Default", o.value)
            continue
        d = _TRAILING_DEFAULT.search(s)
        if d:
            facts.add("Default", d.group(1).strip())
        lines.append(x)
    return _prose(lines, facts)


def _shown_block(o: _Occ) -> list[str]:
    """A block's or mapping's lines as written (uncommented), at most _MAX_SHOWN."""
    lines = o.block or o.lines
    margin = min((len(x) - len(x.lstrip()) for x in lines if x.strip()), default=0)
    lines = [x[margin:] for x in lines]
    if len(lines) > _MAX_SHOWN:
        lines = [*lines[:_MAX_SHOWN], "…"]
    return lines


def _listed(o: _Occ, occs: list[_Occ]) -> list[str]:
    out: list[str] = []
    inside = (*o.path, o.key)
    for c in occs:
        if c.path == inside and c.no > o.no and _documented(c):
            lead = c.lead.lines if c.lead is not None else c.trailing
            sentence = first_sentence(" ".join(_paragraphs(list(lead))[:1]))
            entry = f"- `{c.name}`" + (f": {sentence}" if sentence else "")
            if entry not in out:
                out.append(entry)
    if len(out) > _MAX_LISTED:
        out = [*out[:_MAX_LISTED], f"… and {len(out) - _MAX_LISTED} more."]
    return out


def _file_document(
    f: SourceFile, source: str, header: list[list[str]], named: list[tuple[str, str]]
) -> Document:
    file = f.rel.name
    paras = [p for block in header for p in _prose(block, _Facts()) if not _LICENSE.search(p)]
    said: list[str] = []
    size = 0
    for p in paras:
        if size + len(p) > _MAX_HEADER_CHARS and said:
            break
        said.append(p)
        size += len(p)
    listed: list[str] = []
    for name, sentence in named[:_MAX_LISTED]:
        listed.append(f"- `{name}`" + (f": {sentence}" if sentence else ""))
    if len(named) > _MAX_LISTED:
        listed.append(f"… and {len(named) - _MAX_LISTED} more.")
    text = "\n\n".join([file, *said, "Settings:\n" + "\n".join(listed)])
    return api_document(source, URI_PREFIX, f, file, text, "file", file, 1, language="config",
                        file=file)  # fmt: skip


# ----------------------------------------------------------------------------- squid
def _tag_documents(f: SourceFile, source: str, lines: list[_Line]) -> list[Document]:
    """Squid's `#  TAG: name` format (see the module's docstring)."""
    heads, rules = _headings(lines, "#")
    file = f.rel.name
    tags = [i for i, ln in enumerate(lines) if ln.comment and _TAG.match(ln.raw.strip())]
    header: list[list[str]] = []
    for i, ln in enumerate(lines[: tags[0]] if tags else []):
        if i in heads:
            header += [[heads[i][1]], []]
        elif not header:
            header.append([])
        if i not in heads:
            header[-1].append(ln.body if ln.comment and i not in rules else "")
    level1 = ""
    first_prose = next((i for i, ln in enumerate(lines) if ln.comment and i not in heads
                        and i not in rules and ln.body.strip()), 0)  # fmt: skip
    head_at = [h for h in sorted(heads) if h > first_prose]  # one above all prose: a title
    docs: list[tuple[int, Document, str, str]] = []
    for n, start in enumerate(tags):
        end = tags[n + 1] if n + 1 < len(tags) else len(lines)
        for h in head_at:
            if h < start and heads[h][0] == 1:
                level1 = heads[h][1]
        m = _TAG.match(lines[start].raw.strip())
        assert m is not None
        key, hint = m.group(1), " ".join(m.group(2).split())
        doc_lines: list[str] = []
        default: list[str] = []
        rest: list[_Line] = []
        state = "doc"
        for k in range(start + 1, end):
            ln = lines[k]
            if k in heads or k in rules:
                state = "rest" if state != "doc" else state
                continue
            if state == "doc":
                if ln.comment and _DEFAULT_LINE.match(ln.raw.strip()):
                    state = "default"
                elif ln.comment:
                    doc_lines.append(ln.body)
                elif ln.blank:
                    doc_lines.append("")
                else:
                    state = "rest"
                    rest.append(ln)
            elif state == "default":
                if ln.comment and ln.body.strip():
                    default.append(ln.body.strip())
                else:
                    state = "rest"
                    if not ln.blank:
                        rest.append(ln)
            else:
                rest.append(ln)
        facts = _Facts()
        body = _prose(doc_lines, facts)
        if not body:
            continue
        if default:
            said = " ".join(default)
            if said.startswith(key + " "):
                said = said[len(key) + 1 :]
            facts.values["Default"] = said
        tail = [f"{label}: {value}" for label, value in facts.values.items()]
        tail += [f"Reference: {r}" for r in dict.fromkeys(facts.references)]
        if level1:
            tail.append(f"Section: {level1}")
        parts = [f"{key} {hint}".strip(), *body, "\n".join(tail)]
        while rest and (rest[-1].blank or rest[-1].comment):
            rest.pop()
        if any(not ln.comment and not ln.blank for ln in rest):
            while rest and (rest[0].blank or not rest[0].body.strip()):
                rest.pop(0)
            shown = [ln.raw for ln in rest if not (ln.comment and not ln.body.strip())][:30]
            parts.append("Set in this file:\n" + _fence(shown))
        text = "\n\n".join(p for p in parts if p.strip())
        doc = api_document(source, URI_PREFIX, f, f"{file}:{key}", text, "setting",
                           f"{key} {hint}".strip()[:_MAX_SIGNATURE], lines[start].no,
                           language="config", file=file, key=key)  # fmt: skip
        prose = [p for p in body if not p.startswith("```")]
        docs.append((lines[start].no, doc, key, first_sentence(prose[0]) if prose else ""))
    if not docs:
        return []
    named = [(key, summary) for _, _, key, summary in docs]
    out = [_file_document(f, source, header, named)]
    return out + [d for _, d, _, _ in docs]
