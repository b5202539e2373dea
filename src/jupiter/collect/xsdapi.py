"""W3C XML Schema files (`.xsd`) read as the reference of the XML format they describe: a
Java EE `web.xml`, Spring's bean files, Maven's POM, SVG, DocBook. One document per
documented element and attribute, named by its path, so that "what does
`<session-timeout>` do in web.xml?" has a document to come from
(`xsd:web-app_4_0:web-app/session-config/session-timeout`).

Parsing. The text is parsed with `xml.etree.ElementTree`, nothing is fetched: a file whose
text declares entities (`<!ENTITY` in a DOCTYPE, the billion laughs' way in) is rejected
before parsing, and so is one that is not well-formed or whose root is no `xs:schema` (in
the XML Schema namespace, under any prefix): counted `xsd_bad`. Namespace prefixes are read
from the file's declarations; a QName (`type="javaee:string"`) is looked up by its local
name; it is a built-in type (`xs:string`, written `string`, and not walked) when its prefix
names the XML Schema namespace, or when nothing visible defines it and its name is one of
XML Schema's built-ins.

Files of one source. The files are handed over together: an `xs:include`, `xs:import` or
`xs:redefine` whose `schemaLocation` ends in the file name of another of them makes that
file's global elements, attributes, types, groups and attribute groups visible, and the
ones it includes in turn (a name is looked up in the file itself first, then in what it
includes, in order). A `schemaLocation` among none of the files is skipped. An included
file's own documents still come from its own file.

Names. The schema's name is the file's stem (`web-app_4_0.xsd` -> `web-app_4_0`). Its root
document `xsd:<schema>` (kind "schema") holds the name, `Target namespace: ...`, its
top-level `xs:annotation/xs:documentation` paragraphs less those about the license (a
paragraph that mentions "license", "copyright", "Licensed under" or "All rights reserved"
is dropped: Java EE's schemas open with the CDDL/GPL notice), and an `Elements:` list of its
global elements with their first sentence. A schema with no global elements (a library of
types: `javaee_8.xsd`, `jsp_2_3.xsd`) lists its named types instead (`Types:`); their
elements are documented where a schema with global elements uses them. The root document
is given when the file documents an element or attribute, or has top-level documentation
that is no license (a namespace and a list alone say nothing): else the file is counted
`xsd_no_api`.

The walk. From each global element (`xs:element name=` at the top level, in document
order), breadth first so that a shared type is expanded at its shallowest path. An element
walks its type: a named `xs:complexType`/`xs:simpleType` by `type=`, or the anonymous one
inside it. A complex type's content model: `xs:sequence`, `xs:choice`, `xs:all` (nested),
`xs:group ref=`, `xs:complexContent` with `xs:extension base=` (the base's content first,
then the extension's) or `xs:restriction` (its own content only, as XML Schema says),
`xs:simpleContent` (its attributes). Its members: child elements (`xs:element name=`; an
`xs:element ref=` to a global element is not documented again under this path, it is
documented at the global element's own path, and the parent's list says "see `<x>`") and
attributes (`xs:attribute name=`, `xs:attribute ref=` to a global attribute, documented
under this path, `@xml:lang` for the XML namespace's; `xs:attributeGroup ref=`). Paths join
element names with `/` from the global element, an attribute as `@name`:
`web-app/session-config/session-timeout`, `beans/bean/@scope`; the uri is
`xsd:<schema>:<path>`. A named complex type with members reached at a second path is not
walked again there: that element's document says "Same as `first/path`." (this also stops
recursion: Spring's `<bean>` inside `<bean>`). Paths are at most 12 parts deep, a file gives
at most 5000 documents (the shallowest; a cut file is counted `xsd_cut`).

Occurrence. An element's occurrence is its `minOccurs`/`maxOccurs` times those of the
particles around it (a `xs:choice` of several makes each alternative optional): Java EE's
`<xsd:choice minOccurs="0" maxOccurs="unbounded">` makes each of web-app's children `0..*`.

Documents. An element or attribute gets one when it has documentation: its own
(`xs:annotation/xs:documentation` on the declaration, or on the global attribute it refs),
else its type's. A type that three or more differently named elements or attributes of the
source use (Java EE's `string`, `true-falseType`) documents a datatype, not an element: its
text is introduced as the type's ("The type `true-falseType`: ...") and it gives no first
sentence to a parent's list. Kinds: "attribute"; "section" for an element with child
elements or attributes listed; else "element". An undocumented attribute of type `xs:ID`
(Java EE's `id` on every element) is left out of the lists and does not make a section.

Documentation text: several documentation nodes are paragraphs, in order. A node's text
and its children's: XHTML or DocBook-ish markup is converted: `<p>`/`<para>`/`<div>` are
paragraphs, `<pre>`/`<programlisting>`/`<screen>` fenced blocks, `<ul>`/`<ol>`/
`<itemizedlist>`/`<orderedlist>` lists of their `<li>`/`<listitem>`, `<code>`/`<tt>`/
`<literal>`-like inline code, `<b>`/`<strong>` bold, `<i>`/`<em>`/`<emphasis>` italic,
`<a href>`/`<ulink url>` links, headings bold; any other element gives its text. Java EE's
`<![CDATA[[ ... ]]]>` leaves the text wrapped in `[` `]`: they are dropped. Plain text
is dedented (a first line on the tag's own line apart), split at blank lines into
paragraphs; a paragraph indented 4+ spaces after dedent (not the first), or one that
starts with `<` and ends with `>` (an XML example: Java EE's usage texts) is fenced
(```` ```xml ```` when it starts with `<`), a paragraph of `- ` / `* ` / `1.` lines keeps
one line per item, any other has its whitespace collapsed.

The text: the signature line `<path>: <type phrase>`, then the documentation, "Same as",
`Default: x` (`default=` or `fixed=`, "(fixed)"), `Allowed values:` (enumerations, each with
its documentation's first paragraph when it has one), one `Constraints:` line (`pattern`,
`minInclusive`/`maxInclusive`/`minExclusive`/`maxExclusive`, `length`/`minLength`/
`maxLength`, `totalDigits`/`fractionDigits`), a section's `Elements:` list ("- `<name>`
(phrase, occurrence): first sentence", a ref's "see `<x>`") and `Attributes:` list, each at
most 100 entries. The type phrase: a built-in by its name (`string`), a named type by its
name and what it is (`true-falseType (boolean)`, `servletType (element)`), `enum "a" |
"b"` for a restriction with enumerations, `list of x`, a union's members joined with ` | `,
`element` for element content, `empty` for none; an attribute adds `(required)` or
`(optional)` (with `, default x`), an element its occurrence when not `1..1` (`, 0..1`,
`, 1..*`, `, 0..*`, `, 0..3`). The signature is at most 200 characters. Facets are read
from the type and the named types it restricts, the nearest's first.

Not read: deprecation (Java EE says so in prose only; nothing marks it), `xs:any`,
`xs:anyAttribute`, substitution groups, identity constraints (`xs:unique`, `xs:key`),
`xs:notation`, namespaces beyond the prefix rules above. Lines: ElementTree keeps none; a
declaration's line is found by matching the file's `<x:element ... name="n"` starts (comments
blanked) to the declarations in document order, 1 when that fails.
"""

from __future__ import annotations

import re
import textwrap
from collections import deque
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import cast
from xml.etree import ElementTree as ET

from jupiter.collect.result import CollectResult, SourceFile, api_document, count, first_documents
from jupiter.collect.result import first_sentence as _first_sentence
from jupiter.records import Document

SUFFIXES = (".xsd",)
URI_PREFIX = "xsd:"
# reasons a file gave no document (or not all), as the collect stage counts them
XSD_BAD = "xsd_bad"
XSD_NO_API = "xsd_no_api"
XSD_CUT = "xsd_cut"
_READ = (
    "XML Schema files read as the reference of the XML format they describe (one document "
    "per documented element and attribute): "
)
FIXES = {
    XSD_BAD: _READ + "a file that is not well-formed XML, declares entities, or whose root is "
    "no xs:schema gives none; the source's xsd: text reads them as text",
    XSD_NO_API: _READ + "a schema with no documentation gives none; the source's xsd: text "
    "reads them as text",
    XSD_CUT: _READ + "a schema with more than 5000 documented elements and attributes gives "
    "its 5000 shallowest; the source's xsd: text reads them as text",
}
MAX_DEPTH = 12  # parts of a path
MAX_DOCUMENTS = 5000  # of one file
_MAX_NODES = 50000  # elements and attributes one file's walk visits
_MAX_SIGNATURE = 200
_MAX_LISTED = 100
_MAX_SENTENCE = 200
_GENERIC_USES = 3  # distinct names using a type that make it a datatype
XS = "http://www.w3.org/2001/XMLSchema"
_XML_NS = "http://www.w3.org/XML/1998/namespace"
_UNBOUNDED = -1
_BUILTINS = frozenset(
    "anyType anySimpleType string normalizedString token language Name NCName ID IDREF "
    "IDREFS ENTITY ENTITIES NMTOKEN NMTOKENS QName NOTATION anyURI base64Binary hexBinary "
    "boolean decimal integer nonPositiveInteger negativeInteger long int short byte "
    "nonNegativeInteger unsignedLong unsignedInt unsignedShort unsignedByte positiveInteger "
    "float double duration dateTime date time gYear gYearMonth gMonth gMonthDay gDay".split()
)
_LICENSE = re.compile(r"licen[cs]e|copyright|all rights reserved", re.IGNORECASE)
_ENTITY = re.compile(r"<!ENTITY", re.IGNORECASE)


def is_xsd(name: str) -> bool:
    return name.lower().endswith(SUFFIXES)


def schema_name(rel: PurePosixPath) -> str:
    """`web-app_4_0.xsd` -> `web-app_4_0`."""
    name = rel.name
    return name[: -len(".xsd")] if name.lower().endswith(".xsd") else name


def api_documents(
    files: list[SourceFile], source: str, rejects: CollectResult | None = None, top: str = ""
) -> list[Document]:
    """Documents for the elements and attributes the files' schemas describe, sorted by
    uri; a file that gives none is counted in `rejects` (`top` is taken for the readers'
    common shape and not needed: a schema is named by its file)."""
    parsed = {f.rel: _parse(f) for f in files if is_xsd(f.rel.name)}
    by_name: dict[str, _Schema] = {}  # what an include's schemaLocation names
    for rel in sorted(parsed):
        got = parsed[rel]
        if got is not None:
            by_name.setdefault(rel.name, got)
    uses = _type_uses(list(by_name.values()))

    def read(f: SourceFile) -> list[Document] | str:
        schema = parsed.get(f.rel)
        if schema is None:
            return XSD_BAD
        walk = _Walk(schema, _Scope(schema, by_name), uses)
        docs = walk.documents(source)
        if walk.cut:
            count(rejects, XSD_CUT, f.where)
        return docs

    return first_documents(files, rejects, read, XSD_NO_API)


# ----------------------------------------------------------------------------- parsing
def _local(tag: object) -> str:
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""


def _is_xs(el: ET.Element, name: str) -> bool:
    return el.tag == f"{{{XS}}}{name}"


def _xs(el: ET.Element, *names: str) -> list[ET.Element]:
    """`el`'s children in the XML Schema namespace named one of `names`."""
    return [c for c in el if isinstance(c.tag, str) and c.tag.startswith(f"{{{XS}}}")
            and _local(c.tag) in names]  # fmt: skip


@dataclass
class _Schema:
    file: SourceFile
    name: str
    root: ET.Element
    prefixes: dict[str, str]
    lines: dict[int, int]  # id of a declaration -> its line
    includes: list[str] = field(default_factory=list)  # file names, in order
    tables: dict[str, dict[str, ET.Element]] = field(default_factory=dict)


_TABLES = {
    "element": "element",
    "attribute": "attribute",
    "complexType": "type",
    "simpleType": "type",
    "group": "group",
    "attributeGroup": "attributeGroup",
}


def _parse(f: SourceFile) -> _Schema | None:
    if _ENTITY.search(f.text):
        return None  # entities are never expanded: the file is counted bad
    parser: ET.XMLPullParser = ET.XMLPullParser(events=("start-ns", "start"))
    prefixes: dict[str, str] = {}
    root: object = None
    try:
        parser.feed(f.text)
        parser.close()
    except ET.ParseError:
        return None
    for item in parser.read_events():
        event, got = cast("tuple[str, object]", item)  # the stubs say Elements only
        if event == "start-ns" and isinstance(got, tuple):
            prefixes.setdefault(str(got[0]), str(got[1]))
        elif root is None:
            root = got
    if not isinstance(root, ET.Element) or not _is_xs(root, "schema"):
        return None
    schema = _Schema(f, schema_name(f.rel), root, prefixes, _lines(f.text, root))
    redefined: list[ET.Element] = []
    for c in _xs(root, "include", "import", "redefine"):
        loc = c.get("schemaLocation", "")
        if loc:
            schema.includes.append(loc.replace("\\", "/").rsplit("/", 1)[-1])
        if _is_xs(c, "redefine"):
            redefined += list(c)
    for c in [*redefined, *root]:
        table = _TABLES.get(_local(c.tag)) if isinstance(c.tag, str) else None
        name = c.get("name")
        if table and name and c.tag.startswith(f"{{{XS}}}"):
            schema.tables.setdefault(table, {}).setdefault(name, c)
    return schema


_DECL = re.compile(r"<(?:[\w.-]+:)?(element|attribute)\b[^>]*?\bname\s*=\s*[\"']([^\"']+)")


def _lines(text: str, root: ET.Element) -> dict[int, int]:
    """The line of each named element or attribute declaration: the k-th declaration of a
    name in document order is the k-th `<x:element ... name="n"` of the text (comments
    blanked, their line breaks kept)."""
    blank = re.sub(r"<!--.*?-->", lambda m: "\n" * m.group().count("\n"), text, flags=re.S)
    starts: dict[tuple[str, str], deque[int]] = {}
    line, at = 1, 0  # counted on from the last declaration: a schema's text read once
    for m in _DECL.finditer(blank):
        line, at = line + blank.count("\n", at, m.start()), m.start()
        starts.setdefault((m.group(1), m.group(2)), deque()).append(line)
    out: dict[int, int] = {}
    for el in root.iter():
        name = el.get("name")
        kind = _local(el.tag)
        if name and kind in ("element", "attribute"):
            queue = starts.get((kind, name))
            if queue:
                out[id(el)] = queue.popleft()
    return out


def _type_uses(schemas: list[_Schema]) -> dict[str, set[str]]:
    """A type's local name -> the names of the elements and attributes declared with it."""
    uses: dict[str, set[str]] = {}
    for s in schemas:
        for el in s.root.iter():
            typ, name = el.get("type"), el.get("name")
            if typ and name and _local(el.tag) in ("element", "attribute"):
                uses.setdefault(typ.rsplit(":", 1)[-1], set()).add(name)
    return uses


@dataclass
class _Def:
    """A global definition and the schema it stands in (whose prefixes its QNames use)."""

    node: ET.Element
    schema: _Schema


class _Scope:
    """What one schema sees: its own global definitions, then its includes' (transitive)."""

    def __init__(self, schema: _Schema, schemas: dict[str, _Schema]) -> None:
        self.order: list[_Schema] = []
        todo = [schema]
        seen: set[str] = set()
        while todo:
            s = todo.pop(0)
            if s.name in seen:
                continue
            seen.add(s.name)
            self.order.append(s)
            todo += [schemas[n] for n in s.includes if n in schemas and n != s.file.rel.name]
        self.cache: dict[tuple[str, str], _Def | None] = {}

    def find(self, table: str, qname: str, where: _Schema) -> _Def | None:
        """A QName's definition, or None (a built-in type, or defined nowhere visible)."""
        prefix, _, local = qname.rpartition(":")
        if where.prefixes.get(prefix) == XS and table == "type":
            return None
        key = (table, local)
        if key not in self.cache:
            self.cache[key] = next(
                (_Def(s.tables[table][local], s) for s in self.order
                 if local in s.tables.get(table, {})),
                None,
            )  # fmt: skip
        return self.cache[key]


def _builtin(qname: str, where: _Schema) -> bool:
    prefix, _, local = qname.rpartition(":")
    return where.prefixes.get(prefix) == XS or local in _BUILTINS


# ----------------------------------------------------------------------------- documentation
_INLINE_CODE = frozenset(
    "code tt kbd samp var literal filename classname function varname constant command "
    "option parameter userinput systemitem sgmltag tag markup property type".split()
)
_ITALIC = frozenset({"i", "em", "emphasis", "cite", "dfn"})
_BOLD = frozenset({"b", "strong"})
_PARAGRAPH = frozenset(
    {"p", "para", "simpara", "div", "section", "blockquote", "note", "dd", "dt", "body"}
)
_PRE = frozenset({"pre", "programlisting", "screen", "literallayout", "xmp"})
_LIST = frozenset({"ul", "ol", "itemizedlist", "orderedlist", "dl", "variablelist"})
_HEADING = frozenset({"h1", "h2", "h3", "h4", "h5", "h6", "title"})
_BLOCK = _PARAGRAPH | _PRE | _LIST | _HEADING | {"table", "br"}


def documentation(node: ET.Element | None) -> str:
    """The Markdown of a declaration's `xs:annotation/xs:documentation` nodes."""
    if node is None:
        return ""
    parts: list[str] = []
    for ann in _xs(node, "annotation"):
        for doc in _xs(ann, "documentation"):
            parts += _unbracketed(_blocks(doc))
    return "\n\n".join(p for p in parts if p)


def _unbracketed(blocks: list[str]) -> list[str]:
    """Java EE writes `<![CDATA[[ text ]]>`: the text comes wrapped in `[` and `]`."""
    if blocks and blocks[0].startswith("[") and blocks[-1].endswith("]"):
        blocks = [*blocks]
        blocks[0] = blocks[0][1:].lstrip()
        blocks[-1] = blocks[-1][:-1].rstrip()
    return [b for b in blocks if b]


def _blocks(el: ET.Element) -> list[str]:
    """A documentation node's (or a block element's) paragraphs: its raw text runs read as
    plain text, its block children converted, its inline children as Markdown."""
    out: list[str] = []
    buf = [el.text or ""]
    for c in el:
        name = _local(c.tag).lower()
        if name in _BLOCK and name != "br":
            out += _plain("".join(buf))
            out += _block(c, name)
            buf = []
        else:
            buf.append("\n" if name == "br" else _inline(c))
        buf.append(c.tail or "")
    out += _plain("".join(buf))
    return [b for b in out if b]


def _block(el: ET.Element, name: str) -> list[str]:
    if name in _PRE:
        code = textwrap.dedent("".join(el.itertext()).expandtabs()).strip("\n")
        return [_fence(code)] if code.strip() else []
    if name in _LIST:
        items: list[str] = []
        for k, li in enumerate(c for c in el if isinstance(c.tag, str)):
            said = " ".join(" ".join(b.split()) for b in _blocks(li))
            if said:
                items.append(f"{k + 1}. {said}" if name in ("ol", "orderedlist") else f"- {said}")
        return ["\n".join(items)] if items else []
    if name in _HEADING:
        said = " ".join("".join(el.itertext()).split())
        return [f"**{said}**"] if said else []
    if name == "table":
        rows = []
        for tr in el.iter():
            if _local(tr.tag).lower() in ("tr", "row"):
                cells = [" ".join("".join(td.itertext()).split()) for td in tr]
                rows.append(" | ".join(c for c in cells if c))
        return ["\n".join(r for r in rows if r)] if rows else []
    return _blocks(el)


def _inline(el: ET.Element) -> str:
    name = _local(el.tag).lower()
    inner = (el.text or "") + "".join(_inline(c) + (c.tail or "") for c in el)
    said = " ".join(inner.split())
    if not said:
        return inner
    if name in _INLINE_CODE:
        return f"`{said}`"
    if name in _ITALIC:
        return f"*{said}*"
    if name in _BOLD:
        return f"**{said}**"
    href = el.get("href") or el.get("url")
    if name in ("a", "ulink", "link") and href:
        return f"[{said}]({href})"
    return inner


_ITEM = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")


def _plain(text: str) -> list[str]:
    """Plain documentation text as paragraphs (see the module's docstring)."""
    lines = text.expandtabs().split("\n")
    first = lines[0].strip()
    rest = textwrap.dedent("\n".join(lines[1:])).split("\n") if len(lines) > 1 else []
    # the text after the opening tag stands on its line unindented: dedent the rest alone
    lines = [first, *rest] if first else rest
    paras: list[list[str]] = [[]]
    for line in lines:
        if line.strip():
            paras[-1].append(line.rstrip())
        elif paras[-1]:
            paras.append([])
    out: list[str] = []
    code: list[str] = []  # indented paragraphs in a row: one block
    for k, para in enumerate(p for p in paras if p):
        indented = k > 0 and all(len(x) - len(x.lstrip()) >= 4 for x in para)
        if indented:
            code += ([""] if code else []) + para
            continue
        if code:
            out.append(_fence(textwrap.dedent("\n".join(code))))
            code = []
        out.append(_paragraph(para))
    if code:
        out.append(_fence(textwrap.dedent("\n".join(code))))
    return out


def _paragraph(para: list[str]) -> str:
    head, tail = para[0].strip(), para[-1].strip()
    if head.startswith("<") and tail.endswith(">") and len(para) > 1:
        return _fence(textwrap.dedent("\n".join(para)))  # an XML example
    if _ITEM.match(para[0]):
        items: list[str] = []
        for line in para:
            if _ITEM.match(line) or not items:
                items.append(line.strip())
            else:
                items[-1] += " " + line.strip()
        return "\n".join(" ".join(x.split()) for x in items)
    return " ".join(" ".join(para).split())


def _fence(code: str) -> str:
    lang = "xml" if code.lstrip().startswith("<") else ""
    return f"```{lang}\n{code.strip(chr(10))}\n```"


_SENTENCE_END = re.compile(r"(?<!\be\.g)(?<!\bi\.e)(?<!\betc)[.!?](?=\s)")


def first_sentence(text: str) -> str:
    """The first sentence of a text's first paragraph, on one line."""
    return _first_sentence(text, _SENTENCE_END, _MAX_SENTENCE)


# ----------------------------------------------------------------------------- types
@dataclass
class _Type:
    """What a declaration's type is: its phrase, whether its content holds elements, its
    facets (nearest first), enumerations with their documentation, its named definition."""

    phrase: str
    named: _Def | None = None
    complex: _Def | None = None  # the complex type whose members are walked
    anonymous: ET.Element | None = None
    facets: dict[str, str] = field(default_factory=dict)
    values: list[tuple[str, str]] = field(default_factory=list)


_FACETS = (
    "pattern minInclusive maxInclusive minExclusive maxExclusive length minLength maxLength "
    "totalDigits fractionDigits".split()
)


class _Types:
    def __init__(self, scope: _Scope) -> None:
        self.scope = scope

    def of(self, decl: ET.Element, where: _Schema) -> _Type:
        """The type of an element or attribute declaration."""
        qname = decl.get("type")
        if qname:
            found = self.scope.find("type", qname, where)
            if found is None:
                local = qname.rpartition(":")[2]
                return _Type(local if _builtin(qname, where) else local)
            inner = _Type("")
            self._fill(found.node, found.schema, inner, 0)
            name = found.node.get("name", "")
            phrase = name if inner.phrase in ("", name) else f"{name} ({inner.phrase})"
            inner.phrase = phrase
            inner.named = found
            return inner
        for c in _xs(decl, "complexType", "simpleType"):
            got = _Type("")
            got.anonymous = c
            self._fill(c, where, got, 0)
            return got
        if _is_xs(decl, "element"):
            return _Type("anyType")
        return _Type("anySimpleType")

    def _fill(self, node: ET.Element, where: _Schema, got: _Type, depth: int) -> None:
        """Fill `got` from a type definition: its phrase (the first found), facets and
        values (the nearest's kept), the complex type to walk."""
        if depth > 12:
            return
        if _is_xs(node, "complexType"):
            got.complex = got.complex or _Def(node, where)
            content = _xs(node, "simpleContent", "complexContent")
            if content and _is_xs(content[0], "simpleContent"):
                for d in _xs(content[0], "extension", "restriction"):
                    self._derive(d, where, got, depth)
                return
            if not got.phrase:
                got.phrase = "element" if self._has_elements(node, where, 0) else "empty"
            return
        for r in _xs(node, "restriction"):
            self._derive(r, where, got, depth)
        for lst in _xs(node, "list"):
            item = lst.get("itemType")
            inner = self._name_phrase(item, where) if item else self._anon(lst, where, depth)
            got.phrase = got.phrase or f"list of {inner}"
        for u in _xs(node, "union"):
            members = [self._name_phrase(m, where) for m in u.get("memberTypes", "").split()]
            members += [self._anon_one(s, where, depth) for s in _xs(u, "simpleType")]
            got.phrase = got.phrase or " | ".join(m for m in members if m)

    def _derive(self, d: ET.Element, where: _Schema, got: _Type, depth: int) -> None:
        """A restriction or extension: its own facets and values, then its base's."""
        for name in _FACETS:
            for f in _xs(d, name):
                got.facets.setdefault(name, f.get("value", ""))
        enums = _xs(d, "enumeration")
        if enums and not got.values:
            got.values = [(e.get("value", ""), documentation(e)) for e in enums]
            shown = " | ".join(_quote(v) for v, _ in got.values)
            got.phrase = got.phrase or f"enum {shown}"
        base = d.get("base")
        if base:
            found = self.scope.find("type", base, where)
            if found is None:
                got.phrase = got.phrase or base.rpartition(":")[2]
            else:
                self._fill(found.node, found.schema, got, depth + 1)
        else:
            for s in _xs(d, "simpleType"):
                self._fill(s, where, got, depth + 1)

    def _name_phrase(self, qname: str, where: _Schema) -> str:
        return qname.rpartition(":")[2]

    def _anon(self, node: ET.Element, where: _Schema, depth: int) -> str:
        got = _Type("")
        for s in _xs(node, "simpleType"):
            self._fill(s, where, got, depth + 1)
        return got.phrase or "anySimpleType"

    def _anon_one(self, node: ET.Element, where: _Schema, depth: int) -> str:
        got = _Type("")
        self._fill(node, where, got, depth + 1)
        return got.phrase

    def _has_elements(self, node: ET.Element, where: _Schema, depth: int) -> bool:
        """Whether a complex type's content (through bases and groups) declares elements."""
        if depth > 12:
            return False
        for el in node.iter():
            if _is_xs(el, "element"):
                return True
            ref = el.get("ref") if _is_xs(el, "group") else None
            base = el.get("base") if _local(el.tag) in ("extension", "restriction") else None
            for table, qname in (("group", ref), ("type", base)):
                found = self.scope.find(table, qname, where) if qname else None
                if found is not None and self._has_elements(found.node, found.schema, depth + 1):
                    return True
        return False


def _quote(value: str) -> str:
    return '"' + value.replace('"', '\\"') + '"'


# ----------------------------------------------------------------------------- the walk
@dataclass
class _Member:
    """A child element or attribute in a complex type's content, in order."""

    decl: ET.Element  # the declaration that names it (a ref's global one for attributes)
    where: _Schema
    attribute: bool
    part: str  # `name` or `@name`
    occurs: tuple[int, int] = (1, 1)
    use: ET.Element | None = None  # the attribute use (`ref=`, `use=`, `default=`)
    ref: str = ""  # an element ref: the global element's name, documented at its own path


@dataclass
class _Node:
    path: str
    member: _Member
    depth: int
    type: _Type
    children: list[_Member] = field(default_factory=list)
    same_as: str = ""
    documented: bool = False


class _Walk:
    def __init__(self, schema: _Schema, scope: _Scope, uses: dict[str, set[str]]) -> None:
        self.schema = schema
        self.scope = scope
        self.types = _Types(scope)
        self.uses = uses
        self.homes: dict[int, str] = {}  # a named complex type -> where it is expanded
        self.nodes: list[_Node] = []
        self.at: dict[str, _Node] = {}
        self.cut = False
        self.globals = [
            c for c in _xs(schema.root, "element") if c.get("name")
        ]  # in document order
        self._walk()

    def _walk(self) -> None:
        queue: deque[_Node] = deque()
        for g in self.globals:
            member = _Member(g, self.schema, False, g.get("name", ""))
            queue.append(self._node(member.part, member, 1))
        while queue:
            n = queue.popleft()
            if n.path in self.at:
                continue
            self.nodes.append(n)
            self.at[n.path] = n
            named = n.type.named
            if named is not None and n.type.complex is not None:
                key = id(named.node)
                home = self.homes.get(key)
                members = self._members(n.type)
                if home is not None and home != n.path and self._shown_members(members):
                    n.same_as = home
                    continue
                self.homes.setdefault(key, n.path)
            n.children = self._members(n.type)
            if n.depth >= MAX_DEPTH:
                continue
            for m in n.children:
                if m.ref:
                    continue
                if len(self.nodes) + len(queue) >= _MAX_NODES:
                    self.cut = True
                    return
                queue.append(self._node(f"{n.path}/{m.part}", m, n.depth + 1))

    def _node(self, path: str, m: _Member, depth: int) -> _Node:
        return _Node(path, m, depth, self.types.of(m.decl, m.where))

    # members ---------------------------------------------------------------------------
    def _shown_members(self, members: list[_Member]) -> bool:
        """Whether a type's members say something (a "Same as" worth it): elements, or an
        attribute a list shows; Java EE's `string` has nothing but an undocumented `id`."""
        return any(
            not m.attribute or self._listed(m, self.types.of(m.decl, m.where)) for m in members
        )

    def _members(self, t: _Type) -> list[_Member]:
        if t.complex is None:
            return []
        out: list[_Member] = []
        self._content(t.complex.node, t.complex.schema, out, (1, 1), set(), 0)
        seen: set[str] = set()
        kept: list[_Member] = []
        for m in out:  # a name two branches give: the first's
            if m.part not in seen:
                seen.add(m.part)
                kept.append(m)
        return kept

    def _content(
        self,
        node: ET.Element,
        where: _Schema,
        out: list[_Member],
        occurs: tuple[int, int],
        seen: set[int],
        depth: int,
    ) -> None:
        """Add the elements and attributes of a type, model group or attribute group, in
        order: a base's before an extension's."""
        if depth > 20 or id(node) in seen:
            return
        seen = seen | {id(node)}
        for c in node:
            if not isinstance(c.tag, str) or not c.tag.startswith(f"{{{XS}}}"):
                continue
            kind = _local(c.tag)
            if kind == "element":
                self._element(c, where, out, occurs)
            elif kind == "attribute":
                self._attribute(c, where, out)
            elif kind in ("sequence", "choice", "all"):
                inner = _times(occurs, _occurs(c))
                alternatives = [
                    x
                    for x in c
                    if _local(x.tag) in ("element", "sequence", "choice", "group", "any")
                ]
                if kind == "choice" and len(alternatives) > 1:
                    inner = (0, inner[1])  # each alternative is optional
                self._content(c, where, out, inner, seen, depth + 1)
            elif kind in ("group", "attributeGroup") and c.get("ref"):
                found = self.scope.find(kind, c.get("ref", ""), where)
                if found is not None:
                    inner = _times(occurs, _occurs(c)) if kind == "group" else occurs
                    self._content(found.node, found.schema, out, inner, seen, depth + 1)
            elif kind in ("complexContent", "simpleContent"):
                self._content(c, where, out, occurs, seen, depth + 1)
            elif kind in ("extension", "restriction"):
                base = c.get("base")
                found = self.scope.find("type", base, where) if base else None
                # a complex restriction restates the content it keeps; an extension (and
                # any simple content's base) adds to its base's attributes and content
                if found is not None and _is_xs(found.node, "complexType"):
                    if kind == "extension" or _local(node.tag) == "simpleContent":
                        self._content(found.node, found.schema, out, occurs, seen, depth + 1)
                self._content(c, where, out, occurs, seen, depth + 1)

    def _element(
        self, c: ET.Element, where: _Schema, out: list[_Member], occurs: tuple[int, int]
    ) -> None:
        own = _times(occurs, _occurs(c))
        ref = c.get("ref")
        if ref:
            found = self.scope.find("element", ref, where)
            name = ref.rpartition(":")[2]
            decl, home = (found.node, found.schema) if found else (c, where)
            out.append(_Member(decl, home, False, name, own, c, ref=name))
        elif c.get("name"):
            out.append(_Member(c, where, False, c.get("name", ""), own, c))

    def _attribute(self, c: ET.Element, where: _Schema, out: list[_Member]) -> None:
        if c.get("use") == "prohibited":
            return
        ref = c.get("ref")
        if ref:
            prefix, _, local = ref.rpartition(":")
            found = self.scope.find("attribute", ref, where)
            part = f"@xml:{local}" if where.prefixes.get(prefix) == _XML_NS else f"@{local}"
            if found is not None:
                out.append(_Member(found.node, found.schema, True, part, use=c))
            else:
                out.append(_Member(c, where, True, part, use=c))
        elif c.get("name"):
            out.append(_Member(c, where, True, f"@{c.get('name')}", use=c))

    # what a node says ------------------------------------------------------------------
    def _docs(self, m: _Member, t: _Type) -> tuple[str, bool]:
        """(its documentation, whether it is its own or its specific type's rather than a
        datatype's): its own, else its ref's, else its type's."""
        own = documentation(m.use) if m.use is not None and m.use is not m.decl else ""
        own = own or documentation(m.decl)
        if own:
            return own, True
        typ = t.named.node if t.named is not None else t.anonymous
        said = documentation(typ)
        if not said:
            return "", False
        if t.named is None:
            return said, True
        name = t.named.node.get("name", "")
        if len(self.uses.get(name, set())) >= _GENERIC_USES:
            return f"The type `{name}`: {said}", False
        return said, True

    def _listed(self, m: _Member, t: _Type) -> bool:
        """Whether a member shows in its parent's lists: an undocumented `xs:ID` does not."""
        if not m.attribute:
            return True
        typ = (m.decl.get("type") or "").rpartition(":")[2]
        return typ != "ID" or bool(self._docs(m, t)[0])

    def documents(self, source: str) -> list[Document]:
        f = self.schema.file
        for n in self.nodes:
            n.documented = bool(self._docs(n.member, n.type)[0])
        kept = [n for n in self.nodes if n.documented]
        if len(kept) > MAX_DOCUMENTS - 1:
            kept = kept[: MAX_DOCUMENTS - 1]
            self.cut = True
        out = [self._document(n, source) for n in kept]
        said = self._said()
        if out or said:  # a namespace and a list alone say nothing a document needs
            text = "\n\n".join([self.schema.name, *self._about(said)])
            line = 1
            out.append(api_document(source, URI_PREFIX, f, self.schema.name, text, "schema",
                                    "", line, language="xsd"))  # fmt: skip
        return out

    def _said(self) -> list[str]:
        """The schema's top-level documentation, less its license paragraphs."""
        out: list[str] = []
        for ann in _xs(self.schema.root, "annotation"):
            for doc in _xs(ann, "documentation"):
                out += [p for p in _unbracketed(_blocks(doc)) if not _LICENSE.search(p)]
        return out

    def _about(self, said: list[str]) -> list[str]:
        root = self.schema.root
        out: list[str] = []
        ns = root.get("targetNamespace")
        if ns:
            out.append(f"Target namespace: `{ns}`")
        out += said
        lines = []
        for g in self.globals:
            n = self.at.get(g.get("name", ""))
            first = first_sentence(self._docs(n.member, n.type)[0]) if n else ""
            name = g.get("name", "")
            lines.append(f"- `<{name}>`: {first}" if first else f"- `<{name}>`")
        if lines:
            out.append("\n".join(["Elements:", *_capped(lines)]))
        elif out:
            types = []
            for c in _xs(root, "complexType", "simpleType"):
                first = first_sentence(documentation(c))
                name = c.get("name", "")
                if name:
                    types.append(f"- `{name}`: {first}" if first else f"- `{name}`")
            if types:
                out.append("\n".join(["Types:", *_capped(types)]))
        return out

    def _document(self, n: _Node, source: str) -> Document:
        m = n.member
        signature = _signature(n.path, self._phrase(m, n.type))
        said, _ = self._docs(m, n.type)
        body = [said]
        if n.same_as:
            body.append(f"Same as `{n.same_as}`.")
        body += _details(m, n.type)
        elements, attributes = self._lists(n)
        body += [elements, attributes]
        text = "\n\n".join([signature, *(b for b in body if b)])
        kind = "attribute" if m.attribute else "section" if elements or attributes else "element"
        qual = f"{self.schema.name}:{n.path}"
        line = m.where.lines.get(id(m.decl), 1) if m.where is self.schema else 1
        if m.use is not None and m.use is not m.decl:
            line = self.schema.lines.get(id(m.use), line)
        return api_document(source, URI_PREFIX, self.schema.file, qual, text, kind, signature,
                            line, language="xsd")  # fmt: skip

    def _phrase(self, m: _Member, t: _Type, listed: bool = False) -> str:
        """Its type phrase; an attribute's use in parentheses, in a list after a comma."""
        if m.attribute:
            use = m.use if m.use is not None else m.decl
            words = ["required" if use.get("use") == "required" else "optional"]
            default = use.get("default") or m.decl.get("default")
            if default is not None:
                words.append(f"default {default}")
            return (
                f"{t.phrase}, {', '.join(words)}" if listed else f"{t.phrase} ({', '.join(words)})"
            )
        shown = _shown(m.occurs)
        return f"{t.phrase}, {shown}" if shown else t.phrase

    def _lists(self, n: _Node) -> tuple[str, str]:
        elements: list[str] = []
        attributes: list[str] = []
        for m in n.children:
            if m.ref:
                shown = _shown(m.occurs)
                where = f" ({shown})" if shown else ""
                elements.append(f"- `<{m.part}>`{where}: see `<{m.ref}>`.")
                continue
            t = self.at[f"{n.path}/{m.part}"].type if f"{n.path}/{m.part}" in self.at else None
            t = t or self.types.of(m.decl, m.where)
            if not self._listed(m, t):
                continue
            said, specific = self._docs(m, t)
            first = first_sentence(said) if specific else ""
            phrase = self._phrase(m, t, listed=True)
            if m.attribute:
                line = f"- `{m.part}` ({phrase})"
                attributes.append(f"{line}: {first}" if first else line)
            else:
                line = f"- `<{m.part}>` ({phrase})"
                elements.append(f"{line}: {first}" if first else line)
        out_e = "\n".join(["Elements:", *_capped(elements)]) if elements else ""
        out_a = "\n".join(["Attributes:", *_capped(attributes)]) if attributes else ""
        return out_e, out_a


def _details(m: _Member, t: _Type) -> list[str]:
    """Its default, allowed values and constraints."""
    out: list[str] = []
    use = m.use if m.use is not None else m.decl
    for key in ("default", "fixed"):
        value = use.get(key) if use.get(key) is not None else m.decl.get(key)
        if value is not None:
            out.append(f"Default: {value}" + (" (fixed)" if key == "fixed" else ""))
            break
    if t.values:
        lines = []
        for value, said in t.values:
            first = " ".join(said.split("\n\n")[0].split())
            lines.append(f"- `{value}`: {first}" if first else f"- `{value}`")
        out.append("\n".join(["Allowed values:", *_capped(lines)]))
    limits = [
        _facet(k, v) for k, v in sorted(t.facets.items(), key=lambda kv: _FACETS.index(kv[0]))
    ]
    if limits:
        out.append("Constraints: " + ", ".join(limits) + ".")
    return out


_FACET_WORDS = {
    "minInclusive": "minimum",
    "maxInclusive": "maximum",
    "minExclusive": "exclusive minimum",
    "maxExclusive": "exclusive maximum",
    "length": "length",
    "minLength": "min length",
    "maxLength": "max length",
    "totalDigits": "total digits",
    "fractionDigits": "fraction digits",
}


def _facet(key: str, value: str) -> str:
    if key == "pattern":
        return f"pattern `{value}`"
    return f"{_FACET_WORDS[key]} {value}"


def _occurs(el: ET.Element) -> tuple[int, int]:
    def number(raw: str | None, default: int) -> int:
        if raw is None:
            return default
        if raw.strip() == "unbounded":
            return _UNBOUNDED
        return int(raw) if raw.strip().isdigit() else default

    return number(el.get("minOccurs"), 1), number(el.get("maxOccurs"), 1)


def _times(a: tuple[int, int], b: tuple[int, int]) -> tuple[int, int]:
    high = _UNBOUNDED if _UNBOUNDED in (a[1], b[1]) else a[1] * b[1]
    return a[0] * b[0], high


def _shown(occurs: tuple[int, int]) -> str:
    low, high = occurs
    if (low, high) == (1, 1):
        return ""
    return f"{low}..{'*' if high == _UNBOUNDED else high}"


def _capped(lines: list[str]) -> list[str]:
    if len(lines) <= _MAX_LISTED:
        return lines
    return [*lines[:_MAX_LISTED], f"… and {len(lines) - _MAX_LISTED} more."]


def _signature(path: str, phrase: str) -> str:
    line = f"{path}: {phrase}"
    return line if len(line) <= _MAX_SIGNATURE else line[: _MAX_SIGNATURE - 1] + "…"
