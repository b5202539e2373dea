"""An OpenAPI (or Swagger 2.0) description read as the API it describes: a web service's
reference is often only its spec file (openapi.yaml, swagger.json), and read as text it was
JSON or YAML syntax, every description a string among braces and `$ref`s.

Each operation becomes a document named by its operationId, as an SDK names the call
(`openapi:issues.create` for GitHub's "issues/create"; method and path where it has none),
its text the form the question templates read for a function: `name(params)` over its
summary and description, the request's method and path, the deprecation, then
`:param x:` for each path, query, header and cookie parameter and each field of a JSON
request body, `:returns:` for the first success response. Each schema under
`components/schemas` (`definitions` in Swagger 2.0) with a description is a document of
its own (`openapi:Pet`), its properties as `:ivar x:` fields. The API's title, description
and its tags' descriptions are one document of prose. `$ref`s inside the file are followed
(others are left as named); a file with `openapi:` or `swagger:` at its top and `paths` is
a spec, any other JSON or YAML file is read as text, as before.
"""

from __future__ import annotations

import json
import re
from pathlib import PurePosixPath
from typing import Any

import yaml

from jupiter.collect.result import CollectResult, SourceFile, api_document
from jupiter.records import Document

URI_PREFIX = "openapi:"
SUFFIXES = (".json", ".yaml", ".yml")
METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
MAX_PARAMS = 40  # parameters and body fields of one operation, in its `name(params)` line


def is_spec_file(name: str) -> bool:
    return name.lower().endswith(SUFFIXES)


def load(text: str, name: str) -> Any:
    if name.lower().endswith(".json"):
        return json.loads(text)
    return yaml.safe_load(text)


def is_spec(data: Any) -> bool:
    return (
        isinstance(data, dict)
        and ("openapi" in data or "swagger" in data)
        and isinstance(data.get("paths"), dict)
    )


class _Refs:
    """`$ref`s inside one spec, followed (a cycle or an outside reference left as is)."""

    def __init__(self, spec: dict[str, Any]) -> None:
        self.spec = spec

    def get(self, node: Any, depth: int = 0) -> Any:
        while isinstance(node, dict) and isinstance(node.get("$ref"), str) and depth < 8:
            ref = node["$ref"]
            if not ref.startswith("#/"):
                return node
            target: Any = self.spec
            for part in ref[2:].split("/"):
                part = part.replace("~1", "/").replace("~0", "~")
                if not isinstance(target, dict) or part not in target:
                    return node
                target = target[part]
            node, depth = target, depth + 1
        return node


def op_name(op: dict[str, Any], method: str, path: str) -> str:
    """An operation's name: its operationId as an SDK calls it ("issues/create" ->
    "issues.create", "list-pets" -> "list_pets"), else its method and path."""
    raw = op.get("operationId")
    if isinstance(raw, str) and raw.strip():
        raw = raw.strip().replace("/", ".")
    else:
        raw = re.sub(r"\W+", "_", f"{method} {path}")
    name = re.sub(r"[^\w.]+", "_", raw).strip("_.")
    name = re.sub(r"\.{2,}", ".", name)
    return name if re.match(r"[A-Za-z_]", name) else f"op_{name}"


def _letters(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def _say(node: Any) -> str:
    """A description or summary, one paragraph a paragraph, or ""."""
    return node.strip() if isinstance(node, str) else ""


def _params(spec: _Refs, path_item: dict[str, Any], op: dict[str, Any]) -> list[tuple[str, str]]:
    """(name, description) of an operation's parameters (the path's, then its own, its own
    winning) and its JSON request body's fields."""
    seen: dict[str, str] = {}
    for node in [*path_item.get("parameters", []), *op.get("parameters", [])]:
        p = spec.get(node)
        if not isinstance(p, dict) or not isinstance(p.get("name"), str):
            continue
        if p.get("in") == "body":  # Swagger 2.0: the body is a parameter
            seen.update(_fields(spec, p.get("schema")))
            continue
        seen[p["name"]] = _say(p.get("description"))
    body = spec.get(op.get("requestBody"))
    if isinstance(body, dict):
        content: dict[str, Any] = body["content"] if isinstance(body.get("content"), dict) else {}
        media = next(
            (v for k, v in content.items() if "json" in k or "form" in k),
            next(iter(content.values()), None),
        )
        if isinstance(media, dict):
            for k, v in _fields(spec, media.get("schema")).items():
                seen.setdefault(k, v)
    return list(seen.items())[:MAX_PARAMS]


def _fields(spec: _Refs, schema: Any) -> dict[str, str]:
    """A schema's properties (through allOf) with their descriptions."""
    schema = spec.get(schema)
    out: dict[str, str] = {}
    if not isinstance(schema, dict):
        return out
    for part in schema.get("allOf", []):
        out.update(_fields(spec, part))
    props = schema.get("properties")
    if isinstance(props, dict):
        for name, prop in props.items():
            prop = spec.get(prop)
            out[str(name)] = _say(prop.get("description")) if isinstance(prop, dict) else ""
    return out


def _returns(spec: _Refs, op: dict[str, Any]) -> str:
    """The first success response as `201: description`, or ""."""
    responses = op.get("responses")
    if not isinstance(responses, dict):
        return ""
    for code in sorted(responses, key=str):
        if str(code).startswith("2"):
            r = spec.get(responses[code])
            said = _say(r.get("description")) if isinstance(r, dict) else ""
            return f"{code}: {said}" if said else str(code)
    return ""


def spec_documents(f: SourceFile, spec: dict[str, Any], source: str) -> list[Document]:
    """The documents of one spec: its prose, its operations, its described schemas."""
    refs = _Refs(spec)
    out: list[Document] = []
    info: dict[str, Any] = spec["info"] if isinstance(spec.get("info"), dict) else {}
    title = _say(info.get("title")) or f.rel.name
    prose = [f"# {title}", _say(info.get("description"))]
    for tag in spec.get("tags", []) if isinstance(spec.get("tags"), list) else []:
        if isinstance(tag, dict) and _say(tag.get("description")) and tag.get("name"):
            prose += [f"## {tag['name']}", _say(tag["description"])]
    if any(prose[1:]):
        meta = {**f.meta, "kind": "file", "format": "openapi"}
        out.append(Document(source, f.where, title, "\n\n".join(x for x in prose if x), meta))
    seen: set[str] = set()
    for path, item in spec["paths"].items():
        item = refs.get(item)
        if not isinstance(item, dict):
            continue
        for method in METHODS:
            op = item.get(method)
            if not isinstance(op, dict):
                continue
            name = op_name(op, method, str(path))
            if name in seen:
                continue
            seen.add(name)
            params = _params(refs, item, op)
            shown = ", ".join(p for p, _ in params)
            said = [_say(op.get("summary")), _say(op.get("description"))]
            if said[0] and said[1].startswith(said[0]):
                said = said[1:]
            lines = [f"Request: `{method.upper()} {path}`."]
            if op.get("deprecated") is True:
                lines.append("Deprecated.")
            fields = [f":param {p}: {d}" for p, d in params if d]
            returns = _returns(refs, op)
            if returns:
                fields.append(f":returns: {returns}")
            body = [x for x in said if x]
            if not body and not fields:
                continue
            text = "\n\n".join([f"{name}({shown})", *body, *lines, "\n".join(fields)])
            out.append(
                api_document(
                    source,
                    URI_PREFIX,
                    f,
                    name,
                    text.strip(),
                    "operation",
                    f"({shown})",
                    1,
                    language="openapi",
                    described=True,
                    request=f"{method.upper()} {path}",
                )
            )
    comps: dict[str, Any] = spec["components"] if isinstance(spec.get("components"), dict) else {}
    schemas = comps.get("schemas") or spec.get("definitions") or {}
    for sname, schema in schemas.items() if isinstance(schemas, dict) else []:
        schema = refs.get(schema)
        if not isinstance(schema, dict) or not re.fullmatch(r"[A-Za-z_][\w.-]*", str(sname)):
            continue
        about = _say(schema.get("description"))  # a title alone says only the name again
        if not about or str(sname) in seen or _letters(about) == _letters(str(sname)):
            continue  # "Timeline Committed Event" for timeline_committed_event says nothing
        name = re.sub(r"[^\w.]", "_", str(sname))
        props = [
            f":ivar {k}: {d}" for k, d in list(_fields(refs, schema).items())[:MAX_PARAMS] if d
        ]
        text = "\n\n".join(x for x in [name, about, "\n".join(props)] if x)
        out.append(
            api_document(
                source,
                URI_PREFIX,
                f,
                name,
                text,
                "schema",
                "",
                1,
                language="openapi",
                described=True,
            )
        )
    return out


def api_documents(
    files: list[SourceFile], source: str, rejects: CollectResult | None = None
) -> list[Document]:
    """The documents of the JSON and YAML files a source reads: a spec's as its API, any
    other file as text (as the source read it before)."""
    out: list[Document] = []
    for f in files:
        try:
            data = load(f.text, f.rel.name)
        except (ValueError, yaml.YAMLError):  # no spec: read as text, as before
            data = None
        if is_spec(data):
            out.extend(spec_documents(f, data, source))
        else:
            out.extend(as_text([f], source))
    return out


def as_text(
    files: list[SourceFile], source: str, rejects: CollectResult | None = None
) -> list[Document]:
    """The files as text, as a source reads a file no API reader takes."""
    out: list[Document] = []
    for f in files:
        if f.text.strip():
            suffix = PurePosixPath(f.rel.name).suffix.lower()
            meta = {**f.meta, "kind": "file", "suffix": suffix}
            out.append(Document(source, f.where, f.rel.name, f.text, meta))
    return out
