"""The generated bad-input families: from the config schema (config/domain.py), one case per field: a
value of the wrong type (yaml_type), each bound crossed (yaml_range), a misspelt choice
(yaml_enum), and a misspelt key in each section (yaml_unknown_key)."""

from __future__ import annotations

import json
import types
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

import annotated_types as at
from corpus import LOCAL, Case, dump
from pydantic import BaseModel

from jupiter import config as C

# a valid element for each list of models, so a field inside it can be set alone
LIST_ITEMS: dict[str, dict[str, Any]] = {
    "generator.tasks": {"recipe": "grounded_qa"},
    "levels": {"name": "a", "datasets": ["queue"]},
    "experts": {"name": "python"},
}
SOURCE_ITEMS: dict[str, dict[str, Any]] = {
    "python_stdlib": {"type": "python_stdlib"},
    "local": {"type": "local", "path": "docs"},
    "web": {"type": "web", "urls": ["http://127.0.0.1:9/docs/"]},
    "git": {"type": "git", "url": "repo"},
    "dataset": {"type": "dataset", "path": "rows.jsonl"},
    "playbooks": {"type": "playbooks", "path": "playbooks.jsonl"},
    "exec_logs": {"type": "exec_logs", "path": "logs.jsonl"},
}
# sections walked once: the judge's and the exam's llm are generator.llm's type again
SKIP = {"base_dir", "quick", "filters.judge.llm", "eval.judge_llm"}


def _strip(ann: Any) -> tuple[Any, list[Any]]:
    """(the type under Annotated, its metadata)."""
    meta: list[Any] = []
    while typing.get_origin(ann) is typing.Annotated:
        meta += list(ann.__metadata__)
        ann = ann.__origin__
    return ann, meta


def _members(ann: Any) -> list[Any]:
    ann, _ = _strip(ann)
    if typing.get_origin(ann) in (typing.Union, types.UnionType):
        return [_strip(a)[0] for a in typing.get_args(ann) if a is not type(None)]
    return [ann]


def _model_in(ann: Any) -> tuple[type[BaseModel] | None, bool]:
    """(the Strict model a field holds, whether in a list)."""
    for m in _members(ann):
        if isinstance(m, type) and issubclass(m, BaseModel):
            return m, False
        if typing.get_origin(m) is list:
            inner = _strip(typing.get_args(m)[0])[0]
            if isinstance(inner, type) and issubclass(inner, BaseModel):
                return inner, True
    return None, False


Leaf = tuple[list[Any], Any, list[Any]]  # (key path, annotation, metadata)


def leaves(cls: type[BaseModel], path: list[Any]) -> Iterator[Leaf]:
    for name, f in cls.model_fields.items():
        here = [*path, name]
        dotted = ".".join(str(p) for p in here if not isinstance(p, int))
        if name in SKIP or dotted in SKIP or name == "sources":
            continue
        model, in_list = _model_in(f.annotation)
        if model is not None:
            yield from leaves(model, [*here, 0] if in_list else here)
            continue
        yield here, f.annotation, list(f.metadata)


def source_leaves() -> Iterator[tuple[str, Leaf]]:
    for member in typing.get_args(_strip(C.Source)[0]):
        cls = _strip(member)[0]
        kind = typing.get_args(cls.model_fields["type"].annotation)[0]
        for name, f in cls.model_fields.items():
            if name != "type":
                yield kind, (["sources", 0, name], f.annotation, list(f.metadata))


def place(path: list[Any], value: Any, source: str = "local") -> dict[str, Any]:
    """The minimal valid config with `value` at `path` (a list index 0 holds a valid item)."""
    data: dict[str, Any] = json.loads(json.dumps(LOCAL))
    if path[:2] == ["sources", 0]:
        data["sources"] = [dict(SOURCE_ITEMS[source])]
    node: Any = data
    for i, key in enumerate(path[:-1]):
        nxt = path[i + 1]
        if isinstance(nxt, int):
            dotted = ".".join(str(p) for p in path[: i + 1] if not isinstance(p, int))
            node.setdefault(key, [dict(LIST_ITEMS.get(dotted, {}))])
            node = node[key][0]
            continue
        if isinstance(key, int):
            continue
        node = node.setdefault(key, {})
    node[path[-1]] = value
    return data


def dotted(path: list[Any]) -> str:
    return ".".join(str(p) for p in path)


def wrong_type(ann: Any) -> Any:
    """A value of the wrong type for a field, as a user might write it; None: no such."""
    kinds = _members(ann)
    base = [k for k in kinds if typing.get_origin(k) is not Literal]
    if not base:
        return None  # a pure choice: yaml_enum covers it
    k = base[0]
    origin = typing.get_origin(k)
    if k is bool:
        return "maybe"
    if k in (int, float):
        return "lots"
    if k is str:
        return ["one", "two"]
    if k is Path:
        return {"a": 1}
    if origin is list:
        return "just one"
    if origin is dict:
        return ["text"]
    return None


def yaml_type_cases() -> list[Case]:
    out = []
    for path, ann, _ in leaves(C.DomainConfig, []):
        value = wrong_type(ann)
        if value is not None:
            key = dotted(path)
            out.append(Case("yaml_type", key, dump(place(path, value)), mentions=(key,)))
    for kind, (path, ann, _) in source_leaves():
        value = wrong_type(ann)
        if value is not None:
            key = dotted(path)
            out.append(
                Case(
                    "yaml_type",
                    f"{kind}.{path[-1]}",
                    dump(place(path, value, kind)),
                    mentions=(key,),
                )
            )
    return out


def _beyond(ann: Any, meta: list[Any]) -> list[tuple[str, Any]]:
    """(bound, a value just beyond it) for each bound of a numeric or sized field."""
    kinds = [k for k in _members(ann) if typing.get_origin(k) is not Literal]
    is_int = bool(kinds) and kinds[0] is int
    out: list[tuple[str, Any]] = []
    for m in meta:
        if isinstance(m, at.Ge):
            out.append((f"ge{m.ge}", m.ge - 1 if is_int else m.ge - 0.5))
        elif isinstance(m, at.Gt):
            out.append((f"gt{m.gt}", m.gt))
        elif isinstance(m, at.Le):
            out.append((f"le{m.le}", m.le + 1 if is_int else m.le + 0.5))
        elif isinstance(m, at.Lt):
            out.append((f"lt{m.lt}", m.lt))
        elif isinstance(m, at.MinLen) and m.min_length == 1:
            out.append(("empty", []))
        elif isinstance(m, at.MaxLen):
            out.append((f"len{m.max_length}", "n" * (m.max_length + 1)))
    return out


def yaml_range_cases() -> list[Case]:
    out = []
    items = [("", leaf) for leaf in leaves(C.DomainConfig, [])] + list(source_leaves())
    for kind, (path, ann, meta) in items:
        for bound, value in _beyond(ann, meta):
            key = dotted(path)
            name = f"{kind + '.' if kind else ''}{path[-1] if kind else key}:{bound}"
            data = place(path, value, kind or "local")
            out.append(Case("yaml_range", name, dump(data), mentions=(key,)))
    # lists that must not be empty
    out.append(
        Case("yaml_range", "sources:empty", "name: bad\nsources: []\n", mentions=("sources",))
    )
    out.append(
        Case(
            "yaml_range",
            "generator.tasks:empty",
            dump(place(["generator", "tasks"], [])),
            mentions=("generator.tasks",),
        )
    )
    return out


def _typo(options: tuple[Any, ...]) -> Any:
    first = options[0]
    if isinstance(first, int):
        return max(o for o in options if isinstance(o, int)) + 1
    if first.upper() != first:
        return first.upper()
    return first + "x"


def yaml_enum_cases() -> list[Case]:
    out = []
    items = [("", leaf) for leaf in leaves(C.DomainConfig, [])] + list(source_leaves())
    for kind, (path, ann, _) in items:
        choices = [k for k in _members(ann) if typing.get_origin(k) is Literal]
        lists = [typing.get_args(k)[0] for k in _members(ann) if typing.get_origin(k) is list]
        free = [c for c in lists if typing.get_origin(_strip(c)[0]) is not Literal]
        choices += [c for c in lists if typing.get_origin(_strip(c)[0]) is Literal]
        if not choices or free or (path[-1] == "type" and path[0] == "sources"):
            continue  # no choice, or any name goes (train.lora.target_modules)
        options = typing.get_args(_strip(choices[0])[0])
        value = _typo(options)
        in_list = any(typing.get_origin(k) is list for k in _members(ann))
        data = place(path, [value] if in_list else value, kind or "local")
        key = dotted(path)
        out.append(
            Case(
                "yaml_enum",
                f"{kind + '.' if kind else ''}{key}",
                dump(data),
                mentions=(key, str(value)),
            )
        )
    return out


def _sections(cls: type[BaseModel], path: list[Any]) -> Iterator[tuple[list[Any], type[BaseModel]]]:
    yield path, cls
    for name, f in cls.model_fields.items():
        here = [*path, name]
        if name in SKIP or dotted([p for p in here if not isinstance(p, int)]) in SKIP:
            continue
        model, in_list = _model_in(f.annotation)
        if model is not None and name != "sources":
            yield from _sections(model, [*here, 0] if in_list else here)


def _misspell(name: str, taken: set[str]) -> str:
    for cand in (name[:-1] if len(name) > 3 else name + "s", name + "s", name.replace("_", "")):
        if cand not in taken and cand != name:
            return cand
    return name + "_x"


def yaml_unknown_key_cases() -> list[Case]:
    out = []
    for path, cls in _sections(C.DomainConfig, []):
        names = list(cls.model_fields)
        for which in sorted({names[0], names[-1]} - {"base_dir", "quick"}):
            typo = _misspell(which, set(names))
            data = place([*path, typo], 1) if path else {**LOCAL, typo: 1}
            key = dotted([*path, typo])
            out.append(Case("yaml_unknown_key", key, dump(data), mentions=(f"'{key}'",)))
    for kind, item in SOURCE_ITEMS.items():
        data = {**LOCAL, "sources": [{**item, "max_docs": 10}]}
        out.append(
            Case(
                "yaml_unknown_key", f"sources.{kind}", dump(data), mentions=("sources.0.max_docs",)
            )
        )
    return out


# ------------------------------------------------------------------------- hand-written
