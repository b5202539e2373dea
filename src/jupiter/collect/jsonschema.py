"""JSON Schema files read as the reference of the format they describe: a schema for a
config or file format (GitHub workflows, Docker Compose files, a tool's settings) is that
format's reference, one document per documented setting, the way a user reads it
("`jobs.<name>.runs-on`: the type of machine to run the job on ...").

The files a reader takes: `*.schema.json`, `schema.json`, any other `.json` (its content
decides), `*.schema.yaml` and `*.schema.yml` (and `schema.yaml`, `schema.yml`), YAML read
with `yaml.safe_load`. A file is a schema when its data is an object whose `$schema` names
json-schema.org (any draft), or that has `properties`, `definitions`, `$defs`,
`patternProperties`, `oneOf`, `anyOf` or `allOf` together with `type`, `title`, `$id`,
`description` or `$schema`, each of the right shape (`properties` an object of schemas, a
combinator a list of them, `type` a JSON Schema type), so that a data file (package.json,
tsconfig.json, a settings file) is none; a root that is only `definitions`/`$defs` and a
`$ref` or a combinator leading into them (snapcraft's) is one too. An OpenAPI or Swagger
spec (an `openapi` or `swagger` key) is not. A file that does not parse or is no schema is
counted (`jsonschema_not_schema`), and so is a schema with no description anywhere
(`jsonschema_no_api`): the caller reads those as text.

The schema's name is its file's name without `.schema.json`, `.json`, `.schema.yaml`,
`.schema.yml` (`github-workflows.json` -> `github-workflows`); a file named `schema.json`
takes its folder's name. Its root is the document `jsonschema:<name>` (kind "schema"): the
name, the root's title and description, and a `Settings:` list of its settings.

The settings are walked from the root, shallowest first and in document order at each
depth (breadth first), to a depth of 12 parts. A schema's members, each a setting: its
`properties` (the path's part is the key: `jobs`), the schema of its `patternProperties`
(the first pattern's) or `additionalProperties` (the part `<name>`: `jobs.<name>`), its
array `items` (the part `[]`, written without a dot: `steps[].uses`; a tuple's first item
schema). Parts are joined with dots: `jobs.<name>.steps[].uses`, its uri
`jsonschema:<name>:<path>` (`jsonschema:github-workflows:jobs.<name>.runs-on`). A schema's
own members come first, then those of what it `$ref`s, then those of its `allOf`, `anyOf`
and `oneOf` branches, merged: of a name two of them give, the first's.

`$ref`s inside the file are followed: `#`, `#/definitions/x`, `#/$defs/x`, any JSON pointer
(`#/properties/a/items`), with percent-encoding and the pointer escapes `~1` and `~0`
undone, and a ref that starts with the file's own `$id`. A ref to another file or URL (or
an anchor, `#name`) is not followed; the setting's text says "See `<ref>`.". The keys
beside a `$ref` win over its target's: the referencing property's own description wins
over the definition's, which it takes when it has none (the root's title and description,
reached by a `$ref: "#"`, are the file's and not taken). A definition whose members are
walked is expanded under one path only, the first (shallowest) that reaches it; a setting
at another path that reaches it says "Same as `that.path`." after its own description (when
something below that path is documented), and its members are not walked again there; this
is also what stops a cycle (a definition reached again below itself). The root is reached
first, so a `$ref: "#"` says "Same as the schema's root.". A setting that is nothing but a
`$ref` (a `$comment` beside it) to a definition another bare ref's document already says
gives no document of its own (its text would be that one's, path aside: renovate's 130
managers each take the 150 shared options); its section's list gives its description's first
sentence, as any other member's.

A setting gets a document (kind "setting"; "section" when it has a `Settings:` list)
only when it has something to say: a `markdownDescription` (VS Code's, preferred) or
`description` (its own, else its definition's; else, when it has none, the one that all
its described `anyOf`/`oneOf`/`allOf` branches share), a `title` that says more than the
setting's name (pydantic's "Common-Id" for `common-id` does not), allowed values with
descriptions (`enumDescriptions`, `markdownEnumDescriptions`, or `const` branches with
a description each), an `enum` of two values or more on a named setting (not an item's or
a `<name>`'s: its parent lists them; dependabot's `updates[].schedule.interval` has nothing
but its values), or a `deprecationMessage`. A setting with nothing to say gives no
document, but its members are walked all the same.

The text's first line is the signature, the path and its type: `jobs.<name>.runs-on:
string | array of string | object` (at most 200 characters, the last types cut as `…`).
The type phrase is the `const`'s JSON, else the `enum`'s values (`"daily" | "weekly"`,
when they are few and short; else their type), else the `type` (a list: each), an array
`array of <its items' type>` (items found beside the type or in its branches), a string
with a `format` `string (date-time)`, an object with members `object`; then the types of
its `anyOf`, `oneOf` and `allOf` branches (a `$ref` to a definition: its type), each type
once, `any` when nothing says. The body, Markdown, each part its paragraph: the title as a
sentence (when it is not the description's start), the description as written (Markdown
kept, a plain description's line breaks and links kept), "Same as `x`.", "See `<ref>`.",
`Required.` (when the parent's `required` lists it: the one beside the property, or one in
the parent's own or `allOf` layers), `Default: <JSON>` (a long one as a ```` ```json ````
block), `Allowed values:` a list ("- `value`: its description"; a string value as is, any
other as JSON; the values of `const`/`enum` branches when the setting has no `enum` of its
own, its items' when it is an array of them: `Allowed items:`), `Examples:` a
```` ```json ```` block of `examples` (or `example`), one `Constraints:` line (`pattern`,
`minimum`, `maximum`, `exclusiveMinimum`/`exclusiveMaximum` as numbers or draft 4's
booleans, `minLength`, `maxLength`, `minItems`, `maxItems`, `uniqueItems`, `format`),
`Deprecated: <deprecationMessage>` or `Deprecated.` (`deprecated: true`), and a section's
`Settings:` list of its members ("- `name` (type): the first sentence of its
description"; a member with no document of its own stands for its nearest documented
members, written by their path below the section: `[].uses`), at most 100 entries, the
rest counted ("… and 12 more.").

`if`/`then`/`else`, `not`, `dependencies`, `dependentSchemas`, `propertyNames`,
`prefixItems`, `contains` and `discriminator` are not read. One file gives at most 5000
documents (the shallowest, the root's first) and walks at most 50000 settings; a file cut
so is counted (`jsonschema_cut`) besides its documents. Lines: JSON has no cheap line
numbers, so each document stands at line 1.
"""

from __future__ import annotations

import json
import re
from collections import deque
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any
from urllib.parse import unquote

import yaml

from jupiter.collect.result import CollectResult, SourceFile, api_document, count, first_documents
from jupiter.records import Document

URI_PREFIX = "jsonschema:"
SUFFIXES = (".json", ".schema.yaml", ".schema.yml")
# reasons a file gave no document (or not all), as the collect stage counts them
SCHEMA_NOT = "jsonschema_not_schema"
SCHEMA_NO_API = "jsonschema_no_api"
SCHEMA_CUT = "jsonschema_cut"
_READ = (
    "JSON Schema files read as the reference of the format they describe (one document per "
    "described setting): "
)
FIXES = {
    SCHEMA_NOT: _READ + "a JSON file that does not parse or is no schema gives none; the "
    "source's jsonschema: text reads them as text",
    SCHEMA_NO_API: _READ + "a schema with no description anywhere gives none; the source's "
    "jsonschema: text reads them as text",
    SCHEMA_CUT: _READ + "a schema with more than 5000 described settings gives its 5000 "
    "shallowest; the source's jsonschema: text reads them as text",
}
MAX_DEPTH = 12  # parts of a setting's path
MAX_DOCUMENTS = 5000  # of one file
MAX_SETTINGS = 50000  # settings one file's walk visits, documented or not
_MAX_SIGNATURE = 200
_MAX_LISTED = 100  # entries of a Settings: or Allowed values: list
_MAX_INLINE = 100  # characters of a default shown on its line
_MAX_SENTENCE = 200
_TYPES = frozenset({"string", "number", "integer", "boolean", "object", "array", "null"})
_STRUCTURE = ("properties", "definitions", "$defs", "patternProperties", "oneOf", "anyOf", "allOf")
_MARKERS = ("type", "title", "$id", "description", "$schema")
_COMBINATORS = ("anyOf", "oneOf", "allOf")
_MISSING: Any = object()
_ROOT = "#"  # the root's ref: a `$ref: "#"` names it


def is_schema_file(name: str) -> bool:
    low = name.lower()
    return low.endswith(SUFFIXES) or low in ("schema.yaml", "schema.yml")


def takes(f: SourceFile) -> bool:
    """Whether a file an include read is a schema: by its name, then its content."""
    if not is_schema_file(f.rel.name):
        return False
    try:
        return is_schema(load(f.text, f.rel.name))
    except (ValueError, yaml.YAMLError):
        return False


def schema_name(rel: PurePosixPath) -> str:
    """`github-workflows.json` -> `github-workflows`, `ci/schema.json` -> `ci`."""
    name = rel.name
    for suffix in (".schema.json", ".schema.yaml", ".schema.yml", ".json", ".yaml", ".yml"):
        if name.lower().endswith(suffix):
            name = name[: -len(suffix)]
            break
    if name.lower() in ("", "schema"):
        return rel.parent.name or "schema"
    return name


def load(text: str, name: str) -> Any:
    if name.lower().endswith(".json"):
        return json.loads(text)
    return yaml.safe_load(text)


def _schemas(node: Any, kind: type) -> bool:
    """Whether `node` is a `kind` (dict or list) of schemas (objects or booleans)."""
    if isinstance(node, dict) and kind is dict:
        return all(isinstance(v, (dict, bool)) for v in node.values())
    if isinstance(node, list) and kind is list:
        return all(isinstance(v, (dict, bool)) for v in node)
    return False


def _has_local_ref(node: Any, depth: int = 0) -> bool:
    """Whether a combinator's branches (a few levels down) `$ref` into the file."""
    if depth > 6:
        return False
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#"):
            return True
        return any(_has_local_ref(node.get(k), depth + 1) for k in _COMBINATORS)
    if isinstance(node, list):
        return any(_has_local_ref(x, depth + 1) for x in node)
    return False


def is_schema(data: object) -> bool:
    """Whether `data` is a JSON Schema document (see the module's docstring)."""
    if not isinstance(data, dict) or "openapi" in data or "swagger" in data:
        return False
    said = data.get("$schema")
    if isinstance(said, str) and "json-schema.org" in said:
        return True
    shaped = {
        "properties": _schemas(data.get("properties"), dict),
        "patternProperties": _schemas(data.get("patternProperties"), dict),
        "definitions": _schemas(data.get("definitions"), dict),
        "$defs": _schemas(data.get("$defs"), dict),
        **{k: _schemas(data.get(k), list) and bool(data[k]) for k in _COMBINATORS},
    }
    if any(k in data and not ok for k, ok in shaped.items()):
        return False  # a data file's `properties: {"a": 1}`
    typ = data.get("type")
    types = typ if isinstance(typ, list) else [typ]
    markers = {
        "type": all(isinstance(t, str) and t in _TYPES for t in types),
        "title": isinstance(data.get("title"), str),
        "$id": isinstance(data.get("$id"), str),
        "description": isinstance(data.get("description"), str),
        "$schema": isinstance(said, str),
    }
    if any(k in data for k in _STRUCTURE) and any(k in data and markers[k] for k in _MARKERS):
        return not any(k in data and not markers[k] for k in ("type", "title", "description"))
    if "definitions" in data or "$defs" in data:  # a root that only points into them
        return _has_local_ref(data)
    return False


def api_documents(
    files: list[SourceFile], source: str, rejects: CollectResult | None = None, top: str = ""
) -> list[Document]:
    """Documents for the settings the files' schemas describe, sorted by uri; a file that
    gives none is counted in `rejects` (`top` is taken for the readers' common shape and
    not needed: a schema is named by its file)."""

    def read(f: SourceFile) -> list[Document] | str:
        try:
            data = load(f.text, f.rel.name)
        except (ValueError, yaml.YAMLError):
            return SCHEMA_NOT
        if not is_schema(data):
            return SCHEMA_NOT
        docs, cut = settings(data, schema_name(f.rel), f, source)
        if cut:
            count(rejects, SCHEMA_CUT, f.where)
        return docs

    return first_documents(files, rejects, read, SCHEMA_NO_API)


def settings(
    root: dict[str, Any],
    name: str,
    f: SourceFile,
    source: str,
    prefix: str = URI_PREFIX,
    language: str = "jsonschema",
    skip: frozenset[str] = frozenset(),
) -> tuple[list[Document], bool]:
    """(the documents of a schema's settings, whether the walk was cut at its limits): the
    schema `name`d, its documents' uris `prefix` + name (collect/crd.py's own), the root's
    members in `skip` not walked."""
    walk = _Walk(root, name, prefix, language, skip)
    docs = walk.documents(f, source)
    return docs, walk.cut


# ----------------------------------------------------------------------------- references
@dataclass
class _Chain:
    """A schema and what its `$ref`s lead to, nearest first: the keys of an earlier layer
    win; `refs` are the in-file refs followed, `outside` those that were not."""

    layers: list[dict[str, Any]]
    refs: list[str]
    outside: list[str]

    def first(self, key: str) -> Any:
        for layer in self.layers:
            if key in layer:
                return layer[key]
        return _MISSING


class _Refs:
    """`$ref`s inside one schema file, resolved and cached."""

    def __init__(self, root: dict[str, Any]) -> None:
        self.root = root
        ident = root.get("$id")
        self.base = ident.split("#")[0] if isinstance(ident, str) else ""
        self.targets: dict[str, Any] = {}
        self.chains: dict[int, _Chain] = {}

    def local(self, ref: str) -> str | None:
        """The ref as a fragment of this file (`#/definitions/x`), None for another file's."""
        if self.base and ref.startswith(self.base + "#"):
            ref = ref[len(self.base) :]
        return ref if ref.startswith("#") else None

    def target(self, ref: str) -> Any:
        """What an in-file ref points to, or _MISSING."""
        got = self.targets.get(ref, None)
        if got is not None:
            return got
        got = self._pointer(ref)
        self.targets[ref] = got
        return got

    def _pointer(self, ref: str) -> Any:
        fragment = unquote(ref[1:])  # the URI's escapes first, then the pointer's
        if not fragment:
            return self.root
        if not fragment.startswith("/"):
            return _MISSING  # an anchor (`#name`): not followed
        node: Any = self.root
        for raw in fragment[1:].split("/"):
            part = raw.replace("~1", "/").replace("~0", "~")
            if isinstance(node, dict) and part in node:
                node = node[part]
            elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
                node = node[int(part)]
            else:
                return _MISSING
        return node

    def chain(self, node: Any) -> _Chain:
        """The layers of `node` through its `$ref`s (a cycle or a long chain stopped)."""
        got = self.chains.get(id(node))
        if got is not None:
            return got
        layers: list[dict[str, Any]] = []
        refs: list[str] = []
        outside: list[str] = []
        here = node
        while isinstance(here, dict) and len(layers) < 16:
            layers.append(here)
            ref = here.get("$ref")
            if not isinstance(ref, str):
                break
            key = self.local(ref)
            if key is None or self.target(key) is _MISSING:
                outside.append(ref)
                break
            if key in refs or (key == _ROOT and layers[0] is not self.root):
                break  # the root's title and description are the file's, not a setting's
            refs.append(key)
            here = self.target(key)
        got = _Chain(layers, refs, outside)
        self.chains[id(node)] = got
        return got


# ----------------------------------------------------------------------------- the walk
@dataclass
class _Setting:
    path: str
    schema: Any
    depth: int
    required: bool = False
    children: list[int] = field(default_factory=list)
    same_as: list[str] = field(default_factory=list)
    documented: bool = False
    copy_of: str = ""  # a bare `$ref`'s setting: the path whose document it would repeat


@dataclass
class _Members:
    """What one setting's layers and branches give it: its members by part, in order, with
    whether they are required, and the paths where shared definitions were expanded."""

    found: dict[str, tuple[Any, bool]] = field(default_factory=dict)
    required: set[str] = field(default_factory=set)
    same_as: list[str] = field(default_factory=list)
    seen: set[str] = field(default_factory=set)
    alternative: set[str] = field(default_factory=set)  # members an anyOf/oneOf branch gave


class _Walk:
    def __init__(
        self,
        root: dict[str, Any],
        name: str,
        prefix: str = URI_PREFIX,
        language: str = "jsonschema",
        skip: frozenset[str] = frozenset(),
    ) -> None:
        self.name = name
        self.prefix = prefix  # the documents' uri prefix (collect/crd.py's own)
        self.lang = {"language": language}
        self.skip = skip  # the root's members not walked (a CRD's apiVersion, kind, metadata)
        self.refs = _Refs(root)
        self.homes: dict[str, str] = {_ROOT: ""}  # a definition -> where it is expanded
        self.settings: list[_Setting] = [_Setting("", root, 0)]
        self.cut = False
        self.phrases: dict[int, str] = {}
        self.listings: dict[int, str] = {}
        self.at: dict[str, int] = {}  # a path -> its setting
        self._walk()

    # members -------------------------------------------------------------------------
    def _walk(self) -> None:
        queue = deque([0])
        while queue:
            k = queue.popleft()
            s = self.settings[k]
            if s.depth >= MAX_DEPTH:
                continue
            got = _Members()
            self._gather(s.schema, s.path, got, always=True, depth=0)
            s.same_as = list(dict.fromkeys(got.same_as))
            for part, (sub, required) in got.found.items():
                if k == 0 and part in self.skip:
                    continue
                if len(self.settings) >= MAX_SETTINGS:
                    self.cut = True
                    return
                path = _join(s.path, part)
                need = required or part in got.required
                s.children.append(len(self.settings))
                queue.append(len(self.settings))
                self.settings.append(_Setting(path, sub, s.depth + 1, need))

    def _gather(
        self, schema: Any, path: str, got: _Members, always: bool, depth: int, alt: bool = False
    ) -> None:
        """Add `schema`'s members to `got`: its own, its `$ref`'s, its branches'. `always`:
        the schema's `required` holds for all members (not an anyOf/oneOf branch's); `alt`:
        the schema is (inside) such a branch."""
        if not isinstance(schema, dict) or depth > 10:
            return
        listed = schema.get("required")
        required = {x for x in listed if isinstance(x, str)} if isinstance(listed, list) else set()
        if always:
            got.required |= required
        props = schema.get("properties")
        if isinstance(props, dict):
            for name, sub in props.items():
                self._member(got, _part(name), sub, name in required, alt)
        for key in ("patternProperties", "additionalProperties"):
            sub = schema.get(key)
            if key == "patternProperties" and isinstance(sub, dict) and sub:
                sub = next(iter(sub.values()))
            if isinstance(sub, dict):
                got.found.setdefault("<name>", (sub, False))
        items = schema.get("items")
        if isinstance(items, list):
            items = next((x for x in items if isinstance(x, dict)), None)
        if isinstance(items, dict):
            got.found.setdefault("[]", (items, False))
        ref = schema.get("$ref")
        if isinstance(ref, str):
            self._gather_ref(ref, path, got, always, depth, alt)
        for comb in _COMBINATORS:
            branches = schema.get(comb)
            either = alt or comb != "allOf"
            for b in branches if isinstance(branches, list) else []:
                self._gather(b, path, got, always and comb == "allOf", depth + 1, either)

    def _member(self, got: _Members, part: str, sub: Any, required: bool, alt: bool) -> None:
        """A member found; one two anyOf/oneOf branches both give is either branch's (an
        output's `output_type`: `"execute_result" | "stream" | ...`, not the first's)."""
        old = got.found.get(part)
        if old is None:
            got.found[part] = (sub, required)
            if alt:
                got.alternative.add(part)
        elif alt and part in got.alternative and old[0] is not sub and old[0] != sub:
            either: dict[str, Any] = {"anyOf": [*_alternatives(old[0]), sub]}
            said = self._description(old[0]) or self._description(sub)
            if said:
                either["description"] = said
            got.found[part] = (either, old[1] and required)

    def _gather_ref(
        self, ref: str, path: str, got: _Members, always: bool, depth: int, alt: bool = False
    ) -> None:
        key = self.refs.local(ref)
        if key is None or key in got.seen:
            return
        target = self.refs.target(key)
        if target is _MISSING:
            return
        got.seen.add(key)
        home = self.homes.get(key)
        if home is not None and home != path:
            if self._has_members(target, 0):
                got.same_as.append(home)
            return
        before = len(got.found)
        self._gather(target, path, got, always, depth + 1, alt)
        if len(got.found) > before:
            self.homes.setdefault(key, path)

    def _has_members(self, schema: Any, depth: int) -> bool:
        if not isinstance(schema, dict) or depth > 4:
            return False
        if isinstance(schema.get("properties"), dict) and schema["properties"]:
            return True
        if any(isinstance(schema.get(k), (dict, list)) for k in ("items", "additionalProperties")):
            return True
        if isinstance(schema.get("patternProperties"), dict) and schema["patternProperties"]:
            return True
        ref = schema.get("$ref")
        if isinstance(ref, str):
            key = self.refs.local(ref)
            if key is not None and self._has_members(self.refs.target(key), depth + 1):
                return True
        return any(self._has_members(b, depth + 1) for b in _branches(schema, _COMBINATORS))

    # what a setting says ---------------------------------------------------------------
    def _description(self, schema: Any) -> str:
        """Its own (markdown) description, else its definition's, else the one its
        described branches share."""
        chain = self.refs.chain(schema)
        for layer in chain.layers:
            said = _text(layer.get("markdownDescription")) or _text(layer.get("description"))
            if said:
                return said
        shared: set[str] = set()
        for layer in chain.layers:
            for b in _branches(layer, _COMBINATORS):
                for inner in self.refs.chain(b).layers:
                    said = _text(inner.get("markdownDescription"))
                    said = said or _text(inner.get("description"))
                    if said:
                        shared.add(said)
                        break
        return shared.pop() if len(shared) == 1 else ""

    def _title(self, schema: Any, path: str, description: str) -> str:
        title = _text(self.refs.chain(schema).first("title"))
        if not title or "\n" in title:
            return ""
        name = path.rsplit(".", 1)[-1] if path else self.name
        if _letters(title) in (_letters(name), _letters(self.name)):
            return ""  # pydantic's "Common-Id" for `common-id`
        if _letters(description).startswith(_letters(title)):
            return ""
        return title if title[-1] in ".!?:" else title + "."

    def _allowed(self, schema: Any) -> tuple[str, list[tuple[Any, str]]]:
        """(the list's heading, its values with their descriptions): its own or its
        branches', else its items'."""
        got = self._values(schema, 0)
        if got:
            return "Allowed values:", got
        items = _items(self.refs, self.refs.chain(schema), 0)
        got = self._values(items, 0) if items is not None else []
        return ("Allowed items:", got) if got else ("", [])

    def _values(self, schema: Any, depth: int) -> list[tuple[Any, str]]:
        """The values a schema's `enum` or `const`, or its anyOf/oneOf branches' (a few
        levels down), allow, each once, with their descriptions."""
        chain = self.refs.chain(schema)
        got = _enum(chain)
        if got:
            return got
        const = chain.first("const")
        if const is not _MISSING:
            return [(const, self._description(schema))] if depth else [(const, "")]
        if depth > 3:
            return []
        out: dict[str, tuple[Any, str]] = {}
        for layer in chain.layers:
            for b in _branches(layer, ("anyOf", "oneOf")):
                for value, said in self._values(b, depth + 1):
                    out.setdefault(_json(value), (value, said))
        return list(out.values())

    def _says(self, s: _Setting) -> bool:
        chain = self.refs.chain(s.schema)
        description = self._description(s.schema)
        if description or self._title(s.schema, s.path, description):
            return True
        if _text(chain.first("deprecationMessage")):
            return True
        enum = chain.first("enum")
        if isinstance(enum, list) and len(enum) > 1 and not s.path.endswith(("[]", ">")):
            return True  # a named setting's allowed values are its reference
        return any(said for _, said in self._allowed(s.schema)[1])

    def _bare_ref(self, schema: Any) -> str:
        """The in-file ref a schema is nothing but (`{"$ref": ...}`, a `$comment` beside)."""
        if not isinstance(schema, dict) or set(schema) - {"$ref", "$comment"}:
            return ""
        ref = schema.get("$ref")
        key = self.refs.local(ref) if isinstance(ref, str) else None
        return key if key is not None and key != _ROOT else ""

    def phrase(self, schema: Any) -> str:
        got = self.phrases.get(id(schema))
        if got is None:
            got = " | ".join(_phrases(self.refs, schema, 0)) or "any"
            self.phrases[id(schema)] = got
        return got

    # documents -------------------------------------------------------------------------
    def documents(self, f: SourceFile, source: str) -> list[Document]:
        self.at = {s.path: k for k, s in enumerate(self.settings)}
        kept = 0
        copies: dict[str, str] = {}  # a leaf definition -> the bare ref documented with it
        for s in self.settings[1:]:
            if not self._says(s):
                continue
            key = self._bare_ref(s.schema)
            if key and key in copies and not s.children:
                s.copy_of = copies[key]
                continue
            if kept >= MAX_DOCUMENTS - 1:
                self.cut = True
                break
            s.documented = True
            kept += 1
            if key:
                copies[key] = s.path
        out: list[Document] = []
        root = self.settings[0]
        listed = self._listing(root)
        about = self._description(root.schema)
        if kept or about:
            title = self._title(root.schema, "", about)
            body = [title, about, listed]
            text = "\n\n".join([self.name, *(x for x in body if x)])
            out.append(
                api_document(source, self.prefix, f, self.name, text, "schema", "", 1, **self.lang)
            )
        for s in self.settings[1:]:
            if s.documented:
                out.append(self._document(s, f, source))
        return out

    def _document(self, s: _Setting, f: SourceFile, source: str) -> Document:
        signature = _signature(s.path, self.phrase(s.schema))
        listed = self._listing(s)
        body = [self._title(s.schema, s.path, self._description(s.schema))]
        body.append(self._description(s.schema))
        body += [_same_as(home) for home in s.same_as if self._expanded(home)]
        body += [f"See `{ref}`." for ref in self.refs.chain(s.schema).outside]
        body.append("Required." if s.required else "")
        body += self._details(s.schema)
        body.append(listed)
        text = "\n\n".join([signature, *(x for x in body if x)])
        kind = "section" if listed else "setting"
        qual = f"{self.name}:{s.path}"
        return api_document(source, self.prefix, f, qual, text, kind, signature, 1, **self.lang)

    def _expanded(self, home: str) -> bool:
        """Whether the setting at `home` has documented members (a "Same as" says more)."""
        k = self.at.get(home)
        return k is not None and bool(self._listing(self.settings[k]))

    def _details(self, schema: Any) -> list[str]:
        """Its default, allowed values, examples, constraints and deprecation."""
        chain = self.refs.chain(schema)
        out: list[str] = []
        default = chain.first("default")
        if default is not _MISSING:
            shown = _json(default)
            if len(shown) <= _MAX_INLINE:
                out.append(f"Default: {shown}")
            else:
                out.append(f"Default:\n```json\n{_json(default, 2)}\n```")
        heading, values = self._allowed(schema)
        if values:
            lines = [
                f"- `{_value(v)}`: {_one_line(d)}" if d else f"- `{_value(v)}`" for v, d in values
            ]
            out.append("\n".join([heading, *_capped(lines)]))
        examples = chain.first("examples")
        if not isinstance(examples, list):
            single = chain.first("example")
            examples = [] if single is _MISSING else [single]
        if examples:
            shown = "\n".join(_json(x, 2) for x in examples[:_MAX_LISTED])
            out.append(f"Examples:\n```json\n{shown}\n```")
        limits = _constraints(chain)
        if limits:
            out.append("Constraints: " + ", ".join(limits) + ".")
        message = _text(chain.first("deprecationMessage"))
        if message:
            out.append(f"Deprecated: {message}")
        elif chain.first("deprecated") is True:
            out.append("Deprecated.")
        return out

    def _listing(self, s: _Setting) -> str:
        """A section's `Settings:` list: its documented members (for one with no document,
        its nearest documented members), by their path below it."""
        got = self.listings.get(id(s))
        if got is None:
            got = self.listings[id(s)] = self._list(s)
        return got

    def _list(self, s: _Setting) -> str:
        lines: list[str] = []
        more = 0
        todo = list(s.children)
        while todo:
            k = todo.pop(0)
            c = self.settings[k]
            if not c.documented and not c.copy_of:
                todo[0:0] = c.children
                continue
            if len(lines) >= _MAX_LISTED:
                more += 1
                continue
            rel = c.path[len(s.path) :].lstrip(".") if s.path else c.path
            # a copy's entry says what it is, as any other's: 130 managers' lists each
            # saying "Same as `ansible.managerFilePatterns`" teach nothing
            first = _first_sentence(self._description(c.schema))
            typ = self.phrase(c.schema)
            lines.append(f"- `{rel}` ({typ}): {first}" if first else f"- `{rel}` ({typ})")
        if not lines:
            return ""
        if more:
            lines.append(f"… and {more} more.")
        return "\n".join(["Settings:", *lines])


# ----------------------------------------------------------------------------- phrases
def _phrases(refs: _Refs, schema: Any, depth: int) -> list[str]:
    """The types a schema allows, each once (see the module's docstring)."""
    if depth > 5 or schema is True:
        return []
    chain = refs.chain(schema)
    out: list[str] = []
    const = chain.first("const")
    enum = chain.first("enum")
    typ = chain.first("type")
    types = [t for t in (typ if isinstance(typ, list) else [typ]) if isinstance(t, str)]
    if const is not _MISSING:
        out.append(_json(const))
    elif isinstance(enum, list) and enum:
        shown = [_json(v) for v in enum]
        if len(shown) <= 6 and sum(len(x) for x in shown) <= 60:
            out += shown
        else:
            out += types or list(dict.fromkeys(_json_type(v) for v in enum))
    else:
        for t in types:
            if t == "array":
                items = _items(refs, chain, 0)
                inner = " | ".join(_phrases(refs, items, depth + 1)) if items is not None else ""
                out.append(f"array of {_wrap(inner)}" if inner else "array")
            elif t == "string" and isinstance(chain.first("format"), str):
                out.append(f"string ({chain.first('format')})")
            else:
                out.append(t)
        if not types:
            if any(
                isinstance(layer.get(k), dict) and layer[k]
                for layer in chain.layers
                for k in ("properties", "patternProperties", "additionalProperties")
            ):
                out.append("object")
            elif chain.first("items") is not _MISSING:
                items = _items(refs, chain, 0)
                inner = " | ".join(_phrases(refs, items, depth + 1)) if items is not None else ""
                out.append(f"array of {_wrap(inner)}" if inner else "array")
    for layer in chain.layers:
        for b in _branches(layer, _COMBINATORS):
            out += _phrases(refs, b, depth + 1)
    out = list(dict.fromkeys(out))
    # a bare `array` or `object` says less than an `array of x` beside it
    if "array" in out and any(x.startswith("array of ") for x in out):
        out.remove("array")
    return out


def _items(refs: _Refs, chain: _Chain, depth: int) -> Any:
    """An array's item schema: beside its type, else in its branches; None if none."""
    for layer in chain.layers:
        items = layer.get("items")
        if isinstance(items, list):
            items = next((x for x in items if isinstance(x, dict)), None)
        if isinstance(items, dict):
            return items
    if depth > 3:
        return None
    for layer in chain.layers:
        for b in _branches(layer, _COMBINATORS):
            got = _items(refs, refs.chain(b), depth + 1)
            if got is not None:
                return got
    return None


def _alternatives(schema: Any) -> list[Any]:
    """A member's schemas so far: one, or those a merge of branches gathered."""
    if isinstance(schema, dict) and set(schema) <= {"anyOf", "description"}:
        return list(schema["anyOf"])
    return [schema]


def _branches(schema: dict[str, Any], combinators: tuple[str, ...]) -> list[Any]:
    """The branches of a schema's `anyOf`, `oneOf`, `allOf` (those named), in that order."""
    out: list[Any] = []
    for comb in combinators:
        branches = schema.get(comb)
        if isinstance(branches, list):
            out += branches
    return out


def _wrap(phrase: str) -> str:
    return f"({phrase})" if " | " in phrase else phrase


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def _signature(path: str, phrase: str) -> str:
    """`path: type | type`, cut to at most 200 characters at a `|`."""
    head = f"{path}: "
    line = head + phrase
    if len(line) <= _MAX_SIGNATURE:
        return line
    room = _MAX_SIGNATURE - len(head) - len(" | …")
    kept: list[str] = []
    for part in phrase.split(" | "):
        if len(" | ".join([*kept, part])) > room:
            break
        kept.append(part)
    if not kept:
        return (head + phrase)[: _MAX_SIGNATURE - 1] + "…"
    return head + " | ".join([*kept, "…"])


# ----------------------------------------------------------------------------- helpers
def _join(path: str, part: str) -> str:
    if part == "[]":
        return path + part
    return f"{path}.{part}" if path else part


def _part(name: Any) -> str:
    return " ".join(str(name).split())  # a key with a line break stays on one line


def _text(node: Any) -> str:
    return node.strip() if isinstance(node, str) else ""


def _letters(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def _json(value: Any, indent: int | None = None) -> str:
    seps = (",", ": ") if indent else (", ", ": ")
    return json.dumps(value, indent=indent, separators=seps, ensure_ascii=False, default=str)


def _value(value: Any) -> str:
    """An allowed value as a user writes it: a string as is, any other as JSON."""
    return value if isinstance(value, str) else _json(value)


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _capped(lines: list[str]) -> list[str]:
    if len(lines) <= _MAX_LISTED:
        return lines
    return [*lines[:_MAX_LISTED], f"… and {len(lines) - _MAX_LISTED} more."]


def _same_as(home: str) -> str:
    return f"Same as `{home}`." if home else "Same as the schema's root."


def _enum(chain: _Chain) -> list[tuple[Any, str]]:
    """An `enum`'s values with their (markdown) descriptions, from the layer that has it."""
    for layer in chain.layers:
        values = layer.get("enum")
        if not isinstance(values, list):
            continue
        said = layer.get("markdownEnumDescriptions")
        if not isinstance(said, list):
            said = layer.get("enumDescriptions")
        said = said if isinstance(said, list) else []
        return [(v, _text(said[i]) if i < len(said) else "") for i, v in enumerate(values)]
    return []


_LIMITS = (
    ("minLength", "min length"),
    ("maxLength", "max length"),
    ("minItems", "min items"),
    ("maxItems", "max items"),
)


def _constraints(chain: _Chain) -> list[str]:
    out: list[str] = []
    pattern = chain.first("pattern")
    if isinstance(pattern, str):
        out.append(f"pattern `{pattern}`")
    for key, word in (("minimum", "minimum"), ("maximum", "maximum")):
        value = chain.first(key)
        exclusive = chain.first("exclusive" + key.capitalize())
        if _number(value):
            # draft 4: `exclusiveMinimum: true` makes the minimum exclusive
            out.append(f"{'exclusive ' if exclusive is True else ''}{word} {_json(value)}")
        if _number(exclusive):
            out.append(f"exclusive {word} {_json(exclusive)}")
    for key, word in _LIMITS:
        value = chain.first(key)
        if _number(value):
            out.append(f"{word} {_json(value)}")
    if chain.first("uniqueItems") is True:
        out.append("unique items")
    fmt = chain.first("format")
    if isinstance(fmt, str):
        out.append(f"format `{fmt}`")
    return out


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


_SENTENCE_END = re.compile(r"(?<!\be\.g)(?<!\bi\.e)(?<!\betc)[.!?](?=\s)")


def _first_sentence(text: str) -> str:
    """The first sentence of a description's first paragraph, on one line."""
    para = " ".join(text.strip().split("\n\n")[0].split())
    m = _SENTENCE_END.search(para)
    first = para[: m.end()] if m is not None else para
    if len(first) > _MAX_SENTENCE:
        first = first[: _MAX_SENTENCE - 1].rstrip() + "…"
    return first
