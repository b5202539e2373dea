"""SQL files read as the documentation of the schema they define: one document per
documented table, view, type, function or other object, from `COMMENT ON ... IS '...'`
(PostgreSQL, Oracle), MySQL's `COMMENT 'x'` on a column or a table, a comment block right
over the `CREATE` statement (no blank line between), and comments beside a table's
columns. The question templates then ask "What does `cube_union()` do?" and "What is
`email` for in `users`?" instead of reading SQL as prose ("What is / in adminpack.sql?"
answered by a comment's asterisks).

A function, procedure or aggregate is an API document, uri `sql:<name>`, in the form the
templates read for Python's docstrings (`name(args)` over its description, `:returns:`
with its type); overloads of one name are one document. A table, view, type, domain or
other object is a Markdown page, uri `sql-<kind>:<name>`: its description, its columns
(each documented column a `- \\`name\\`: description` item) and its `CREATE` statement.

The files are scanned, never run: strings, quoted names, dollar-quoted bodies and comments
are told apart, so a `;` in a function's body does not end its statement. Names lose their
quotes and the default schema (`public.users` is `users`); a name created twice keeps the
last definition in path order (migrations), and a `COMMENT ON` anywhere in the source
documents the object it names. Tests (`test/`, `tests/`, `*_test.sql`) are skipped and
counted, and so is a file with nothing documented (data, a migration without comments).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

from jupiter.collect.result import CollectResult, SourceFile
from jupiter.collect.result import count as _count
from jupiter.records import Document

SUFFIXES = (".sql",)
URI_PREFIX = "sql:"  # routines: read as an API (synth/parse.API_PREFIXES)
# reasons a SQL file gave no document, as the collect stage counts them
SQL_TEST = "sql_test"
SQL_NO_API = "sql_no_api"
_AS_TEXT = (
    "SQL files read as their schema's documentation (COMMENT ON, comments over CREATE "
    "statements and beside columns): tests and files with nothing documented give none; "
    "the source's sql: text reads them as text"
)
FIXES = {SQL_TEST: _AS_TEXT, SQL_NO_API: _AS_TEXT}
ROUTINES = ("function", "procedure", "aggregate")
_TEST_DIRS = {"test", "tests", "regress", "spec"}
_TEST_NAME = re.compile(r"(?:^|[_.-])(?:test|spec)s?\.sql$|^test[_.-]", re.I)
_DEFAULT_SCHEMAS = {"public", "dbo"}
_MAX_STATEMENT = 1500  # characters of a CREATE statement shown under its description

_IDENT = r'(?:"(?:[^"]|"")+"|`[^`]+`|\[[^\]]+\]|[A-Za-z_][\w$]*)'
# a schema a script leaves to its runner: psql's :VAR, Flyway's ${var}, a template's {{ x }}
_PLACEHOLDER = r"(?::['\"]?[A-Za-z_]\w*['\"]?|\$\{\w+\}|\{\{\s*[\w.]+\s*\}\}|\{\w+\})"
_NAME = rf"(?:{_PLACEHOLDER}\s*\.\s*)?{_IDENT}(?:\s*\.\s*{_IDENT}){{0,2}}"
_KINDS = (
    r"MATERIALIZED\s+VIEW|VIEW|TABLE|FUNCTION|PROCEDURE|AGGREGATE|TYPE|DOMAIN|SEQUENCE|"
    r"SCHEMA|EXTENSION|(?:UNIQUE\s+)?INDEX|TRIGGER|ACCESS\s+METHOD|COLLATION|POLICY|RULE|"
    r"EVENT\s+TRIGGER|FOREIGN\s+TABLE|TEXT\s+SEARCH\s+\w+"
)
_CREATE = re.compile(
    r"^CREATE\s+(?:OR\s+(?:REPLACE|ALTER)\s+)?"
    r"(?:(?:GLOBAL|LOCAL|TEMP|TEMPORARY|UNLOGGED|CONSTRAINT|RECURSIVE|DEFINER\s*=\s*\S+|"
    r"ALGORITHM\s*=\s*\w+|SQL\s+SECURITY\s+\w+)\s+)*"
    rf"(?P<kind>{_KINDS})\s+(?:CONCURRENTLY\s+)?(?:IF\s+NOT\s+EXISTS\s+)?(?P<name>{_NAME})",
    re.I | re.S,
)
_COMMENT_ON = re.compile(
    rf"^COMMENT\s+ON\s+(?P<kind>COLUMN|{_KINDS}|CONSTRAINT|OPERATOR|CAST|LANGUAGE|ROLE|"
    rf"DATABASE|SERVER|TABLESPACE)\s+(?P<target>.+?)\s+IS\s+(?P<text>.+?)\s*$",
    re.I | re.S,
)
_ALTER_TABLE = re.compile(
    rf"^ALTER\s+TABLE\s+(?:ONLY\s+)?(?:IF\s+EXISTS\s+)?(?P<name>{_NAME})\s+(?P<rest>ADD\b.*)$",
    re.I | re.S,
)
_ADD_COLUMN = re.compile(
    rf"^\s*ADD\s+(?:COLUMN\s+)?(?:IF\s+NOT\s+EXISTS\s+)?(?P<col>{_IDENT})\s+(?P<def>.+)$",
    re.I | re.S,
)
# MySQL: COMMENT 'text' on a column, COMMENT [=] 'text' among a table's options
_INLINE_COMMENT = re.compile(r"\bCOMMENT\s*=?\s*(?P<lit>'(?:[^'\\]|''|\\.)*')", re.I)
_RETURNS = re.compile(
    r"\bRETURNS\s+(?P<type>.+?)(?=\s+(?:AS|LANGUAGE|IMMUTABLE|STABLE|VOLATILE|STRICT|CALLED|"
    r"SECURITY|COST|ROWS|PARALLEL|WINDOW|SET|BEGIN|RETURN|LEAKPROOF|NOT|SUPPORT|DETERMINISTIC|"
    r"READS|MODIFIES|CONTAINS|NO|COMMENT)\b|\s*$)",
    re.I | re.S,
)
# the words that end a column's type in its definition
_COLUMN_CONSTRAINT = re.compile(
    r"\s+(?:NOT\s+NULL|NULL|DEFAULT|PRIMARY|REFERENCES|UNIQUE|CHECK|COMMENT|GENERATED|COLLATE|"
    r"CONSTRAINT|AUTO_INCREMENT|IDENTITY|ON\s+UPDATE)\b.*$",
    re.I | re.S,
)
_TABLE_ELEMENT = re.compile(
    r"^(?:CONSTRAINT|PRIMARY|UNIQUE|FOREIGN|CHECK|EXCLUDE|LIKE|INDEX|KEY|FULLTEXT|SPATIAL|"
    r"PERIOD)\b",
    re.I,
)
# a line of its own that is no SQL: a psql command ("\\echo ..."), MySQL's "DELIMITER //",
# T-SQL's "GO"
_COMMAND = re.compile(r"[ \t]*(?:\\\S.*|DELIMITER[ \t]+(\S+)|GO)[ \t]*(?:\n|$)", re.I)
_DOLLAR = re.compile(r"\$(?:[A-Za-z_]\w*)?\$")
# a named query's first comment line: "name: get_user :one", ":name get-user :? :*",
# "get_user --"
_QUERY_NAME = re.compile(
    r"^(?:name:\s*|:name\s+)?([A-Za-z_][\w.-]*[\w])[!<>#*^$]?(?:\s+:[\w?*!]+)*\s*-*$"
)
# the line that names the next query in a query file ("-- name: x", "-- :name x", "-- x --")
_QUERY_MARK = re.compile(r"^\s*(?:name:\s*\S+|:name\s+\S+|[A-Za-z_][\w.-]*\s+--\s*$)")
_QUERY_VERB = re.compile(
    r"^(?:SELECT|INSERT|UPDATE|DELETE|WITH|MERGE|REPLACE|UPSERT|CALL|EXEC|EXECUTE|LISTEN|NOTIFY|COPY|"
    r"TRUNCATE|VALUES)\b",
    re.I,
)
# a comment line that is a rule or a banner ("-- ------", "/* ===== */"), not words
_RULE = re.compile(r"^[\W_]*$")


SqlFile = SourceFile  # its files, as the source hands them over


@dataclass
class Statement:
    start: int
    end: int  # past its ";" (or its line, for a psql command)
    code: str  # the statement with comments blanked, same length as the text it spans
    lead: str  # the comment block right over it (no blank line between), "" if none
    notes: list[tuple[int, str]]  # (offset in the file, text) of each comment inside it


@dataclass
class _Object:
    kind: str
    name: str  # as shown: quotes and a default schema off
    key: str  # as matched: lower case unless quoted
    statement: str  # the CREATE statement, comments off
    signature: str = ""  # a routine's "(args)"
    arg_types: str = ""  # a routine's argument types, normalised (overloads told apart)
    returns: str = ""
    lead: str = ""  # the comment over its CREATE, as a description
    comment: str = ""  # its COMMENT ON's text (PostgreSQL's own description comes first)
    columns: list[tuple[str, str, str]] = field(default_factory=list)  # (name, type, doc)
    where: str = ""
    line: int = 0
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def description(self) -> str:
        if self.comment and self.lead and self.lead not in self.comment:
            return f"{self.comment}\n\n{self.lead}"
        return self.comment or self.lead


def is_sql(name: str) -> bool:
    return name.lower().endswith(SUFFIXES)


def is_test(rel: PurePosixPath) -> bool:
    return any(p.lower() in _TEST_DIRS for p in rel.parts[:-1]) or bool(_TEST_NAME.search(rel.name))


# ----------------------------------------------------------------------------- scanning
def statements(text: str) -> Iterator[Statement]:
    """The file's statements in order: `;`-terminated SQL (MySQL's DELIMITER and T-SQL's GO
    lines understood), and psql's backslash commands a line each (skipped)."""
    n = len(text)
    i = 0
    delimiter = ";"
    code: list[str] = []
    notes: list[tuple[int, str]] = []
    lead = ""
    start = -1  # where the statement's first code character is
    pending: list[tuple[int, int, str]] = []  # comments before the statement: (start, end, text)
    line_start = True
    while i < n:
        c = text[i]
        if start < 0 and line_start:
            m = _COMMAND.match(text, i)
            if m:  # a psql command, a MySQL delimiter change, a T-SQL batch end
                delimiter = m.group(1) or delimiter
                i, pending = m.end(), []
                continue
        if text.startswith(("--", "/*"), i):
            if c == "/":  # a block's own first and last lines ("/*", " */") hold no text
                j = _block_end(text, i)
                body = re.sub(r"^[\s*]*\n|\n[\s*]*$", "", text[i + 2 : j - 2])
            else:
                j = text.find("\n", i)
                j = n if j < 0 else j
                body = text[i + 2 : j]
            if start >= 0 and line_start and _QUERY_MARK.match(body):
                # a query file's next name: the query before it ends (no ";" needed)
                if "".join(code).strip():
                    yield Statement(start, i, "".join(code), lead, notes)
                code, notes, pending, start = [], [], [], -1
            if start >= 0:  # inside a statement: blanked, kept as a note on its place
                code.append(re.sub(r"[^\n]", " ", text[i:j]))
                notes.append((i, body))
            else:
                pending.append((i, j, body))
            i = j
            continue
        if text.startswith(delimiter, i):
            if start >= 0 and "".join(code).strip():
                yield Statement(start, i + len(delimiter), "".join(code), lead, notes)
            code, notes, pending, start = [], [], [], -1
            i += len(delimiter)
            line_start = False
            continue
        if start < 0 and not c.isspace():
            start, lead = i, _lead(text, pending, i)
        if c in "'\"`[" or (c == "$" and _DOLLAR.match(text, i)):
            j = _quoted_end(text, i)
            code.append(text[i:j])
            i, line_start = j, False
            continue
        line_start = c == "\n" or (line_start and c in " \t")
        if start >= 0:
            code.append(c)
        i += 1
    if start >= 0 and "".join(code).strip():
        yield Statement(start, n, "".join(code), lead, notes)


def _lead(text: str, pending: list[tuple[int, int, str]], at: int) -> str:
    """The comment block that ends right over `at` (only whitespace, no blank line, between
    each comment and the next), its lines without their comment marks."""
    block: list[str] = []
    end = at
    for s, e, body in reversed(pending):
        gap = text[e:end]
        if gap.strip() or gap.count("\n") > 1:
            break
        block.insert(0, body)
        end = s
    return "\n".join(block)


def _block_end(text: str, i: int) -> int:
    """Past the "*/" closing the block comment at `i` (PostgreSQL's nest)."""
    depth, j = 0, i
    while j < len(text):
        if text.startswith("/*", j):
            depth += 1
            j += 2
        elif text.startswith("*/", j):
            depth -= 1
            j += 2
            if depth == 0:
                return j
        else:
            j += 1
    return len(text)


def _quoted_end(text: str, i: int) -> int:
    """Past the string, quoted name or dollar-quoted body opening at `i`."""
    c = text[i]
    if c == "$":
        tag = _DOLLAR.match(text, i)
        assert tag is not None
        j = text.find(tag.group(0), i + len(tag.group(0)))
        return len(text) if j < 0 else j + len(tag.group(0))
    close = "]" if c == "[" else c
    j = i + 1
    backslash = c == "'" and i > 0 and text[i - 1] in "eE"
    while j < len(text):
        if backslash and text[j] == "\\":
            j += 2
            continue
        if text[j] == close:
            if text.startswith(close * 2, j) and close != "]":
                j += 2  # '' or "" inside: an escaped quote
                continue
            return j + 1
        j += 1
    return len(text)


def literal(lit: str) -> str | None:
    """The text of a SQL string literal ('it''s', E'a\\nb', $$x$$); None for NULL."""
    lit = lit.strip()
    if lit.upper() == "NULL":
        return None
    m = re.fullmatch(r"\$(\w*)\$(.*)\$\1\$", lit, re.S)
    if m:
        return m.group(2)
    m = re.fullmatch(r"([eE])?'(.*)'", lit, re.S)
    if m is None:
        return None
    body = m.group(2).replace("''", "'")
    if m.group(1) or "\\'" in body:
        body = re.sub(r"\\(.)", lambda x: {"n": "\n", "t": "\t"}.get(x.group(1), x.group(1)), body)
    return body


# ----------------------------------------------------------------------------- names
def _parts(name: str) -> list[tuple[str, bool]]:
    """A dotted name's parts, each (text without quotes, quoted); a placeholder schema
    (":SCHEMA.jobs") is no part."""
    out: list[tuple[str, bool]] = []
    name = re.sub(rf"^\s*{_PLACEHOLDER}\s*\.\s*", "", name)
    for m in re.finditer(_IDENT, name):
        part = m.group(0)
        if part[0] in '"`[':
            out.append((part[1:-1].replace('""', '"'), True))
        else:
            out.append((part, False))
    return out


def shown_name(name: str) -> str:
    parts = _parts(name)
    if len(parts) > 1 and parts[0][0].lower() in _DEFAULT_SCHEMAS:
        parts = parts[1:]
    return ".".join(p for p, _ in parts)


def name_key(name: str) -> str:
    """How SQL matches a name: unquoted parts fold to lower case, the default schema off."""
    parts = [p if quoted else p.lower() for p, quoted in _parts(name)]
    if len(parts) > 1 and parts[0].lower() in _DEFAULT_SCHEMAS:
        parts = parts[1:]
    return ".".join(parts)


def _balanced(code: str, i: int) -> int:
    """Past the ")" matching the "(" at `i` (quotes were kept whole by the scanner)."""
    depth, j = 0, i
    while j < len(code):
        c = code[j]
        if c in "'\"":
            j = _quoted_end(code, j)
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return j + 1
        j += 1
    return len(code)


def _split_top(inner: str) -> list[tuple[int, str]]:
    """(offset, element) of a parenthesised list's top-level comma-separated elements."""
    out: list[tuple[int, str]] = []
    depth, last, j = 0, 0, 0
    while j < len(inner):
        c = inner[j]
        if c in "'\"`[":
            j = _quoted_end(inner, j)
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == "," and depth == 0:
            out.append((last, inner[last:j]))
            last = j + 1
        j += 1
    out.append((last, inner[last:]))
    return [(o, e) for o, e in out if e.strip()]


_ARG_MODE = re.compile(r"^(?:IN|OUT|INOUT|VARIADIC)\s+", re.I)


def _arg_types(args: str) -> str:
    """A routine's argument list as its types alone, lower case: "(p_id bigint, n int = 1)"
    and "(bigint, int)" both give "bigint,int" (how COMMENT ON FUNCTION names one)."""
    types: list[str] = []
    for _, a in _split_top(args.strip()[1:-1]):
        a = re.split(r"\s+DEFAULT\s+|\s*=\s*", _ARG_MODE.sub("", a.strip()), flags=re.I)[0]
        words = a.split()
        if len(words) > 1 and not re.match(r"(?i)double|character|bit|time|interval", words[0]):
            words = words[1:]  # "p_id bigint": the name goes
        types.append(" ".join(words).lower())
    return ",".join(types)


def _comment_lines(text: str) -> list[str]:
    """A comment's lines without their marks ("-- ", " * "), rules ("-- -----") and a
    runner's directives ("--! breaking-change") dropped."""
    lines = [re.sub(r"^\s*(?:-+|\*+)?\s?", "", raw).rstrip() for raw in text.splitlines()]
    return [x for x in lines if not (x and (_RULE.match(x) or x.startswith("!")))]


def _over(lead: str) -> str:
    """The paragraph of a comment block right over a statement that documents it: not a
    section's banner (text between empty comment lines, a line ending in ":" that opens
    a group of statements)."""
    lines = _comment_lines(lead)
    if not lines or not lines[-1].strip():
        return ""  # "--\n-- int2 ops\n--": a banner over the section
    start = max((i + 1 for i, x in enumerate(lines) if not x.strip()), default=0)
    paragraph = "\n".join(lines[start:])
    return "" if paragraph.rstrip().endswith(":") else paragraph


def _clean_doc(text: str, head: str = "") -> str:
    """A comment's text (its marks off: _comment_lines) as a description; "" when it says
    no more than the statement's own `head` ("-- bt_index_check()", "-- cube(float8[])") or
    holds a single word. A first line that only names the object goes."""
    lines = text.splitlines()
    named = {w.lower() for w in re.findall(r"\w+", head)} | {"function", "table", "view", "type"}

    def says_more(part: str) -> bool:
        return not {w.lower() for w in re.findall(r"\w+", part)} <= named

    body = [x for x in lines if x.strip()]
    if len(body) > 1 and not says_more(body[0]):  # "procrastinate_defer_job" over the text
        lines = lines[lines.index(body[0]) + 1 :]
    out = _dedent("\n".join(lines))
    if len(re.findall(r"\w+", out)) < 2 or not says_more(out):
        return ""
    return out


def _dedent(text: str) -> str:
    lines = text.splitlines()
    pad = min((len(x) - len(x.lstrip()) for x in lines if x.strip()), default=0)
    return "\n".join(x[pad:] for x in lines).strip()


# ----------------------------------------------------------------------------- reading
def file_objects(f: SqlFile) -> tuple[list[_Object], list[tuple[str, str, str, str]]]:
    """(objects the file creates, COMMENT ON statements as (kind, key, arg types, text))."""
    objects: list[_Object] = []
    comments: list[tuple[str, str, str, str]] = []
    for st in statements(f.text):
        flat = st.code.strip()
        line = f.text.count("\n", 0, st.start) + 1
        m = _COMMENT_ON.match(flat)
        if m:
            text = literal(m.group("text").rstrip(";").strip())
            kind = " ".join(m.group("kind").split()).lower()
            target = m.group("target").strip()
            args = ""
            paren = target.find("(")
            if paren > 0:
                args = _arg_types(target[paren : _balanced(target, paren)])
                target = target[:paren].strip()
            comments.append((kind, name_key(target), args, (text or "").strip()))
            continue
        m = _ALTER_TABLE.match(flat)
        if m:  # ALTER TABLE t ADD COLUMN c type: a column the table gains, as a comment
            added = [
                a
                for _, part in _split_top(m.group("rest"))
                if (a := _ADD_COLUMN.match(part)) and not _TABLE_ELEMENT.match(a.group("col"))
            ]
            for add in added:
                col, typ, doc = _column(add.group("col"), add.group("def"))
                if not doc and len(added) == 1:  # the comment over it documents one column
                    doc = _clean_doc(_over(st.lead))
                comments.append(("add column", f"{name_key(m.group('name'))}.{col}", typ, doc))
            continue
        m = _CREATE.match(flat)
        if m is None:
            query = _named_query(st, f, line)
            if query is not None:
                objects.append(query)
            continue
        kind = " ".join(m.group("kind").split()).lower().replace("unique ", "")
        obj = _Object(
            kind,
            shown_name(m.group("name")),
            name_key(m.group("name")),
            _dedent(_statement_text(f.text, st)),
            where=f"{f.where}:{line}",
            line=line,
            meta=f.meta,
        )
        rest = flat[m.end() :]
        if kind in ROUTINES:
            paren = rest.find("(")
            if paren >= 0 and not rest[:paren].strip():
                sig = rest[paren : _balanced(rest, paren)]
                obj.signature = re.sub(
                    r"\(\s+|\s+\)", lambda x: x.group(0).strip(), " ".join(sig.split())
                )
                obj.arg_types = _arg_types(sig)
                r = _RETURNS.search(rest[paren + len(sig) :])
                returns = " ".join(r.group("type").split()) if r else ""
                obj.returns = re.sub(rf"{_PLACEHOLDER}\s*\.\s*", "", returns)
        elif kind in ("table", "foreign table"):
            _read_columns(f.text, st, m.end(), rest, obj)
        obj.lead = _clean_doc(_over(st.lead), flat[: m.end() + 200])
        if kind in ("table", "foreign table"):
            tail = rest[_balanced(rest, rest.find("(")) :] if "(" in rest else rest
            c = _INLINE_COMMENT.search(tail)  # MySQL: ) ENGINE=InnoDB COMMENT='...'
            obj.comment = (literal(c.group("lit")) or "").strip() if c else ""
        objects.append(obj)
    return objects, comments


def _named_query(st: Statement, f: SqlFile, line: int) -> _Object | None:
    """A query a comment names, as the query files of aiosql, sqlc, HugSQL and their kin
    write them ("-- name: get_user", "-- :name get-user", "-- get_user --" over its
    description and the statement): a document of its own when it is described."""
    lines = [x for x in _comment_lines(st.lead) if x.strip()]
    if len(lines) < 2 or not _QUERY_VERB.match(st.code.strip()):
        return None
    m = _QUERY_NAME.match(lines[0].strip())
    if m is None:
        return None
    name = m.group(1)
    description = _clean_doc("\n".join(lines[1:]), name)
    if not description:
        return None
    return _Object(
        "query",
        name,
        name.lower(),
        _dedent(_statement_text(f.text, st)),
        lead=description,
        where=f"{f.where}:{line}",
        line=line,
        meta=f.meta,
    )


def _statement_text(text: str, st: Statement) -> str:
    """The statement as written, its comments off (blank lines they leave folded)."""
    kept = "\n".join(line.rstrip() for line in st.code.splitlines())
    return re.sub(r"\n\s*\n+", "\n", kept).strip()


def _read_columns(text: str, st: Statement, after: int, rest: str, obj: _Object) -> None:
    """A table's columns, each with the comment beside it (after its comma on its line, or
    the lines right over it) or its MySQL COMMENT."""
    paren = rest.find("(")
    if paren < 0 or rest[:paren].strip():
        return  # CREATE TABLE x AS SELECT ..., PARTITION OF ...
    flat_start = len(st.code) - len(st.code.lstrip())  # flat = st.code.strip()
    body_at = st.start + flat_start + after + paren + 1  # file offset of the list's inside
    inner = rest[paren + 1 : _balanced(rest, paren) - 1]
    elements = _split_top(inner)
    for k, (off, element) in enumerate(elements):
        el = element.strip()
        if not el or _TABLE_ELEMENT.match(el):
            continue
        m = re.match(rf"({_IDENT})\s+(.*)$", el, re.S)
        if m is None:
            continue
        col, typ, doc = _column(m.group(1), m.group(2))
        if not doc:
            lo = body_at + off
            hi = body_at + (elements[k + 1][0] if k + 1 < len(elements) else len(inner))
            doc = _beside(text, st.notes, lo, hi, el)
        obj.columns.append((col, typ, " ".join(doc.split())))


def _column(name: str, definition: str) -> tuple[str, str, str]:
    """(name, type, MySQL COMMENT's text or "") of a column's definition."""
    typ = " ".join(_COLUMN_CONSTRAINT.sub("", definition).split())
    c = _INLINE_COMMENT.search(definition)
    return _parts(name)[0][0], typ, (literal(c.group("lit")) or "") if c else ""


def _beside(text: str, notes: list[tuple[int, str]], lo: int, hi: int, element: str) -> str:
    """The comment that documents the element spanning [lo, hi) of the file: one on the
    element's last line (after its comma too), else the block on the lines right over it
    (not the previous element's own comment, on the line where this element's span opens)."""
    first = text.find(element[:20], lo, hi)
    first = lo if first < 0 else first
    line_end = text.find("\n", first + len(element) - 1)
    line_end = len(text) if line_end < 0 else line_end
    same = [b for at, b in notes if first <= at < line_end]
    if same:
        return _clean_doc("\n".join(_comment_lines(same[-1])))
    opened = text.find("\n", lo, first)
    over = [b for at, b in notes if opened >= 0 and opened < at < first]
    return _clean_doc("\n".join(_comment_lines("\n".join(over))))


# ----------------------------------------------------------------------------- documents
def api_documents(
    files: list[SqlFile], source: str, rejects: CollectResult | None = None
) -> list[Document]:
    """Documents for the documented objects the files create, sorted by uri; a file that
    documents nothing is counted in `rejects` (a test, data, no comment)."""
    objects: dict[tuple[str, str, str], _Object] = {}  # (kind family, key, argument types)
    created: dict[str, list[_Object]] = {}  # file -> what it creates
    said: list[tuple[str, tuple[str, str, str, str]]] = []  # (file, COMMENT ON)
    for f in sorted(files, key=lambda f: f.rel):
        if is_test(f.rel):
            _count(rejects, SQL_TEST, f.where)
            continue
        got, comments = file_objects(f)
        for obj in got:  # a name created again (a migration, CREATE OR REPLACE): the last
            ident = (_family(obj.kind), obj.key, obj.arg_types)  # stands, with what was said
            if ident in objects:  # of the one before and not of it (as COMMENT ON persists)
                _inherit(obj, objects[ident])
            objects[ident] = obj
        created[f.where] = got
        said += [(f.where, c) for c in comments]
    helped: set[str] = set()  # files whose COMMENT ON documents something
    for where, (kind, key, args, text) in said:
        target: _Object | None
        if kind in ("column", "add column"):
            table, _, col = key.rpartition(".")
            target = objects.get(("table", table, ""))
            if target is not None:
                _set_column(target, col, text, args)
            if not text:
                continue
        elif text:
            target = _match(objects, _family(kind), key, args)
            if target is not None:
                target.comment = text
        else:
            continue
        if target is not None:
            helped.add(where)
    docs: dict[str, Document] = {}
    routines: dict[str, list[_Object]] = {}
    for obj in objects.values():
        if not _documented(obj):
            continue
        if obj.kind in ROUTINES:
            routines.setdefault(obj.key, []).append(obj)
        else:
            doc = _page(obj, source)
            docs.setdefault(doc.uri, doc)
    for group in routines.values():
        doc = _routine(group, source)
        docs[doc.uri] = doc
    kept = {id(o) for o in objects.values() if _documented(o)}
    for where, got in created.items():
        if where not in helped and not any(id(o) in kept for o in got):
            _count(rejects, SQL_NO_API, where)
    return [docs[uri] for uri in sorted(docs)]


def _inherit(obj: _Object, old: _Object) -> None:
    obj.lead = obj.lead or old.lead
    obj.comment = obj.comment or old.comment
    said = {name.lower(): doc for name, _, doc in old.columns if doc}
    obj.columns = [(n, t, d or said.get(n.lower(), "")) for n, t, d in obj.columns]


def _documented(obj: _Object) -> bool:
    return bool(obj.description or any(doc for _, _, doc in obj.columns))


def _family(kind: str) -> str:
    """Kinds that share one name space in COMMENT ON's eyes."""
    return "table" if kind in ("table", "foreign table", "view", "materialized view") else kind


def _match(
    objects: dict[tuple[str, str, str], _Object], kind: str, key: str, args: str
) -> _Object | None:
    """The object a COMMENT ON names: by its argument types where they match as written,
    else the only one of that name, else the first of its overloads still undocumented."""
    exact = objects.get((kind, key, args))
    if exact is not None:
        return exact
    same = [o for (k, n, _), o in objects.items() if k == kind and n == key]
    if len(same) == 1:
        return same[0]
    return next((o for o in same if not o.comment), None)


def _set_column(obj: _Object, col: str, text: str, typ: str = "") -> None:
    """A column's description (COMMENT ON COLUMN) or a column ALTER TABLE adds: set on the
    table's column of that name, or the column added."""
    text = " ".join(text.split())
    for i, (name, old_type, old_text) in enumerate(obj.columns):
        if name.lower() == col or name == col:
            obj.columns[i] = (name, typ or old_type, text or old_text)
            return
    obj.columns.append((col, typ, text))


def _routine(group: list[_Object], source: str) -> Document:
    """One document for a routine's documented overloads: the first's signature heads it,
    the others follow with their own descriptions."""
    first = group[0]
    parts = [f"{first.name}{first.signature or '()'}", "", first.description]
    for other in group[1:]:
        parts += ["", f"Also `{other.name}{other.signature}`: {other.description}"]
    if first.returns:
        parts += ["", f":returns: `{first.returns}`"]
    meta = {
        **first.meta,
        "kind": first.kind,
        "qualname": first.name,
        "signature": first.signature,
        "origin": first.where,
        "line": first.line,
    }
    return Document(source, f"{URI_PREFIX}{first.name}", first.name, "\n".join(parts), meta)


def _page(obj: _Object, source: str) -> Document:
    """A table's, view's or type's page: a Markdown heading, its description, its columns
    (the documented ones as items) and its CREATE statement."""
    parts = [f"# {obj.name}", ""]
    if obj.description:
        parts += [obj.description, ""]
    if obj.columns:
        listed = ", ".join(f"`{n}` (`{t}`)" if t else f"`{n}`" for n, t, _ in obj.columns)
        parts += [f"Columns: {listed}.", ""]
        items = [f"- `{n}`: {_sentence(d)}" for n, _, d in obj.columns if d]
        if items:
            parts += [*items, ""]
    statement = obj.statement
    if len(statement) > _MAX_STATEMENT:
        statement = statement[:_MAX_STATEMENT].rsplit("\n", 1)[0] + "\n..."
    parts += ["```sql", statement + ";", "```"]
    meta = {
        **obj.meta,
        "kind": obj.kind,
        "qualname": obj.name,
        "origin": obj.where,
        "line": obj.line,
    }
    uri = f"sql-{obj.kind.replace(' ', '-')}:{obj.name}"
    return Document(source, uri, obj.name, "\n".join(parts), meta)


def _sentence(text: str) -> str:
    text = text.strip()
    return text if text.endswith((".", "!", "?", ")")) else f"{text}."
