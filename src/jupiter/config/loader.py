"""Loading a config: the config folders, a domain by name or path, the YAML read strictly
(no key twice, no !!binary, dates checked), and a validation error said on one line."""

from __future__ import annotations

import copy
import difflib
import os
import typing
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from jupiter.config.cluster import ClusterConfig
from jupiter.config.domain import SOURCE_TYPES, DomainConfig
from jupiter.errors import JupiterError


def config_roots() -> list[Path]:
    """Config folders, first match wins: $JUPITER_CONFIG_DIR, ./config, the installed copy,
    the source checkout. A user's own ./config/domains/X.yaml shadows a shipped one."""
    env = os.environ.get("JUPITER_CONFIG_DIR")
    candidates = [Path(env)] if env else []
    candidates += [
        Path.cwd() / "config",
        Path(__file__).resolve().parents[1] / "_config",  # jupiter/_config in a wheel
        Path(__file__).resolve().parents[3] / "config",  # the source checkout's
    ]
    roots: list[Path] = []
    for c in candidates:
        if (c / "domains").is_dir() and c.resolve() not in [r.resolve() for r in roots]:
            roots.append(c)
    return roots


def config_root() -> Path:
    """The shipped config folder (the one holding the domain template)."""
    for root in config_roots():
        if (root / "domains" / "_template.yaml").is_file():
            return root
    raise JupiterError("cannot find Jupiter's config folder: set JUPITER_CONFIG_DIR to it")


def domain_path(domain: str) -> Path:
    """A domain name (config/domains/NAME.yaml) or a path to a YAML file."""
    if domain.endswith((".yaml", ".yml")) or os.sep in domain:
        p = Path(domain)
        if not p.is_file():
            raise JupiterError(f"domain file not found: {p}")
        return p.resolve()
    roots = config_roots()
    for root in roots:
        p = root / "domains" / f"{domain}.yaml"
        if p.is_file():
            return p
    known = sorted(
        {
            q.stem
            for r in roots
            for q in (r / "domains").glob("*.yaml")
            if not q.stem.startswith("_")
        }
    )
    where = " or ".join(str(r / "domains") for r in roots) or "config/domains"
    raise JupiterError(
        f"unknown domain '{domain}': no {domain}.yaml in {where}; known domains: "
        f"{', '.join(known)} (create one with: jupiter init --domain {domain})"
    )


class _Refused(yaml.constructor.ConstructorError):
    """YAML that parses but that a config must not hold (said without "malformed")."""


class _ConfigLoader(yaml.SafeLoader):
    """SafeLoader that refuses a key given twice in one mapping (PyYAML keeps the last
    silently) and !!binary values (bytes, which no config key takes)."""


def _unique_mapping(loader: yaml.SafeLoader, node: yaml.MappingNode) -> dict[Any, Any]:
    first: dict[Any, int] = {}
    for key_node, _ in node.value:
        if key_node.tag == "tag:yaml.org,2002:merge":  # `<<: *anchor` may override, by design
            continue
        key = loader.construct_object(key_node, deep=True)
        try:
            seen = first.get(key)
        except TypeError:  # an unhashable key: construct_mapping says so itself
            continue
        if seen is not None:
            raise _Refused(
                None,
                None,
                f"duplicate key '{key}' (first on line {seen + 1}): keep one",
                key_node.start_mark,
            )
        first[key] = key_node.start_mark.line
    loader.flatten_mapping(node)
    return loader.construct_mapping(node, deep=True)


def _no_binary(loader: yaml.SafeLoader, node: yaml.Node) -> Any:
    raise _Refused(
        None, None, "a !!binary value: write the text itself, without the tag", node.start_mark
    )


def _timestamp(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> Any:
    """An unquoted date; one like 2024-13-45 is refused with its line, not a ValueError."""
    try:
        return loader.construct_yaml_timestamp(node)
    except ValueError as err:
        raise _Refused(
            None,
            None,
            f"{node.value!r} is not a valid date ({err}): write it as YYYY-MM-DD",
            node.start_mark,
        ) from None


_ConfigLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _unique_mapping)
_ConfigLoader.add_constructor("tag:yaml.org,2002:binary", _no_binary)
_ConfigLoader.add_constructor("tag:yaml.org,2002:timestamp", _timestamp)


def _yaml_text(path: Path) -> str:
    """The file as text: UTF-8 (with or without a BOM), else one line saying what it is."""
    try:
        raw = path.read_bytes()
    except OSError as err:
        raise JupiterError(f"{path}: cannot read it ({err.strerror or err})") from None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
            what = "is UTF-16 text"
        else:
            line = raw.count(b"\n", 0, err.start) + 1
            what = f"line {line}: byte 0x{raw[err.start]:02x} is not UTF-8"
        raise JupiterError(f"{path}: {what}: save the file as UTF-8") from None


def _read_yaml(path: Path) -> dict[str, Any]:
    text = _yaml_text(path)
    try:
        data = yaml.load(text, Loader=_ConfigLoader)  # noqa: S506 - a SafeLoader
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f" line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(e, "problem", None) or (str(e).splitlines() or ["?"])[0]
        what = "" if isinstance(e, _Refused) else "malformed YAML: "
        raise JupiterError(f"{path}:{where}: {what}{problem}") from None
    except RecursionError:
        raise JupiterError(f"{path}: malformed YAML: nested too deeply") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise JupiterError(f"{path}: expected a mapping of keys at the top level")
    return data


# how a broken range or length reads: "must be at most 64", with the fix in the number
_BOUNDS = {
    "less_than_equal": "must be at most {le}",
    "less_than": "must be below {lt}",
    "greater_than_equal": "must be at least {ge}",
    "greater_than": "must be above {gt}",
    "string_too_long": "must be at most {max_length} characters",
    "too_short": "needs at least {min_length} item(s)",
}


def _location(loc: tuple[int | str, ...]) -> str:
    """The key path as written in the YAML: pydantic's tags of union members left out
    (sources.0.local.path is sources.0.path)."""
    parts = [p for p in loc if not str(p).startswith(("function-", "tagged-"))]
    keep = [
        p
        for i, p in enumerate(parts)
        if not (i >= 2 and parts[i - 2] == "sources" and isinstance(parts[i - 1], int))
        or p not in SOURCE_TYPES
    ]
    return ".".join(str(p) for p in keep)


# how pydantic tags the member of a union a value failed (train.epochs.int)
_MEMBER_TAGS = {"int", "float", "str", "bool", "none"}


def _member_free(loc: tuple[int | str, ...]) -> tuple[int | str, ...]:
    return tuple(
        p
        for p in loc
        if str(p) not in _MEMBER_TAGS and not str(p).startswith(("literal[", "list[", "dict["))
    )


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    """The pydantic models a field's annotation holds (list[Source], X | None, a union)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [m for arg in typing.get_args(annotation) for m in _models_in(arg)]


def _keys_at(model: type[BaseModel], loc: tuple[int | str, ...]) -> list[str]:
    """The keys valid beside the last part of `loc` (a key path under `model`): a union's
    members pooled (any source type's keys for a source); [] where the path leaves models."""
    models = [model]
    for part in loc[:-1]:
        if isinstance(part, int):  # a list's index
            continue
        owners = [cls for cls in models if part in cls.model_fields]
        if not owners:  # a union member's tag (sources.0.local.path): the same models
            continue
        models = [m for cls in owners for m in _models_in(cls.model_fields[part].annotation)]
        if not models:  # a plain field (a dict, a list of strings): no keys to suggest
            return []
    keys = {k for cls in models for k in cls.model_fields if not k.startswith("_")}
    return sorted(keys)


def _close_key(model: type[BaseModel], loc: tuple[int | str, ...]) -> str:
    """The valid key an unknown one is a misspelling of ("sources" for "source"), or ""."""
    if not loc or not isinstance(loc[-1], str):
        return ""
    close = difflib.get_close_matches(loc[-1], _keys_at(model, loc), n=1, cutoff=0.75)
    return close[0] if close else ""


def _explain(
    path: Path, err: ValidationError, where: str = "", model: type[BaseModel] = DomainConfig
) -> JupiterError:
    # an unknown key first: a misspelt key also makes its right spelling "missing"
    errors = err.errors()
    e = next((o for o in errors if o["type"] == "extra_forbidden"), errors[0])
    loc = _location(e["loc"]) or "(top level)"
    if e["type"] != "extra_forbidden":  # a union field: its name, and what else it takes
        bare = _member_free(e["loc"])
        loc = _location(bare) or "(top level)"
        others = [
            o["ctx"]["expected"]
            for o in err.errors()[1:]
            if o["type"] == "literal_error"
            and _member_free(o["loc"]) == bare
            and "expected" in o.get("ctx", {})
        ]
        if others and e["type"] != "literal_error":
            e = {**e, "msg": f"{e['msg']} (or {others[0]})"}
    same = {_member_free(o["loc"]) for o in errors}  # a union's members: one problem
    if e["type"] == "extra_forbidden":
        close = _close_key(model, e["loc"])
        # the misspelt key's right spelling, reported missing, is the same problem
        same.discard(_member_free((*e["loc"][:-1], close)))
        hint = (
            f"did you mean '{close}'?"
            if close
            else "see config/domains/_template.yaml for the valid keys"
        )
        msg = f"unknown key '{loc}' ({hint})"
    elif e["type"] == "missing":
        msg = f"missing required key '{loc}'"
    else:
        got = e.get("input")
        shown = repr(got) if len(repr(got)) <= 60 else repr(got)[:57] + "..."
        got_s = "" if isinstance(got, dict | list) else f", got {shown}"
        text = e["msg"].removeprefix("Value error, ")
        if e["type"] in _BOUNDS:
            text = _BOUNDS[e["type"]].format(**e.get("ctx", {}))
        elif e["type"] == "string_pattern_mismatch":
            text = "use only letters, digits, _ and -"
        msg = f"{loc}: {text}{got_s}"
    more = f" (and {len(same) - 1} more)" if len(same) > 1 else ""
    return JupiterError(f"{path}: {where}{msg}{more}")


def deep_merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(base)
    for k, v in over.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = deep_merge(out[k], v)
        else:
            out[k] = copy.deepcopy(v)
    return out


def load_domain(
    domain: str, quick: bool = False, overrides: dict[str, Any] | None = None
) -> DomainConfig:
    """Load and validate a domain; `quick` applies the YAML's `quick:` overrides."""
    path = domain_path(domain)
    data = _read_yaml(path)
    q = data.get("quick") or {}
    if not isinstance(q, dict):
        raise JupiterError(f"{path}: quick: expected a mapping of overrides")
    full = data
    if quick:
        data = deep_merge(data, q)
    if overrides:
        data = deep_merge(data, overrides)
    try:
        cfg = DomainConfig.model_validate(data)
    except ValidationError as err:
        raise _explain(path, err) from None
    if q and not quick:  # the overrides are checked now, not first on a --quick run
        try:
            DomainConfig.model_validate(deep_merge(full, q))
        except ValidationError as err:
            raise _explain(path, err, "quick: ") from None
    cfg.base_dir = path.parent
    try:
        cfg.chat_template()  # a missing template file is a config error, found now
    except JupiterError as err:
        raise JupiterError(f"{path}: {err}") from None
    return cfg


def load_cluster(path: str | None = None) -> ClusterConfig:
    p = Path(path) if path else config_root() / "cluster.yaml"
    if not p.is_file():
        raise JupiterError(f"cluster file not found: {p}")
    try:
        return ClusterConfig.model_validate(_read_yaml(p))
    except ValidationError as err:
        raise _explain(p, err, model=ClusterConfig) from None


def workspace(cfg: DomainConfig) -> Path:
    """runs/<domain>/ under JUPITER_HOME (default: the current directory)."""
    home = Path(os.environ.get("JUPITER_HOME", "."))
    return (home / "runs" / cfg.name).resolve()
