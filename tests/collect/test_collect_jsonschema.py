"""A JSON Schema read as the reference of the format it describes: the root a document, each
described setting one, named by its path (`jsonschema:wf:jobs.<name>.runs-on`), its text
the path and type over its description, defaults, allowed values, examples, constraints."""

from __future__ import annotations

import json
import time
from pathlib import Path
from pathlib import PurePosixPath as P
from typing import Any

from jupiter.collect import CollectResult
from jupiter.collect.jsonschema import (
    FIXES,
    SCHEMA_CUT,
    SCHEMA_NO_API,
    SCHEMA_NOT,
    URI_PREFIX,
    api_documents,
    is_schema,
    is_schema_file,
    schema_name,
)
from jupiter.collect.result import SourceFile
from jupiter.records import Document

WORKFLOW: dict[str, Any] = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "title": "Workflow",
    "description": "A workflow file.",
    "type": "object",
    "required": ["jobs"],
    "properties": {
        "name": {
            "description": "The workflow's name. Shown in the list.",
            "type": "string",
            "default": "ci",
            "examples": ["build", {"long": True}],
            "minLength": 1,
            "maxLength": 40,
            "pattern": "^[a-z]+$",
        },
        "on": {
            "description": "What starts it.",
            "oneOf": [
                {"$ref": "#/definitions/event"},
                {"type": "array", "items": {"$ref": "#/definitions/event"}},
                {"type": "object", "properties": {"push": {"description": "On a push."}}},
            ],
        },
        "concurrency": {"$ref": "#/definitions/concurrency"},
        "jobs": {
            "type": "object",
            "patternProperties": {"^[a-z_]+$": {"$ref": "#/definitions/job"}},
        },
    },
    "definitions": {
        "event": {"type": "string", "enum": ["push", "pull_request"]},
        "concurrency": {
            "description": "One run at a time.",
            "type": "object",
            "properties": {"group": {"description": "The group's name.", "type": "string"}},
        },
        "job": {
            "description": "A job.",
            "type": "object",
            "required": ["runs-on"],
            "properties": {
                "runs-on": {
                    "description": "The machine.",
                    "anyOf": [
                        {"type": "string"},
                        {"type": "array", "items": {"type": "string"}},
                        {"type": "object"},
                    ],
                },
                "steps": {"type": "array", "items": {"$ref": "#/definitions/step"}},
                "concurrency": {
                    "$ref": "#/definitions/concurrency",
                    "description": "One run of this job at a time.",
                },
                "timeout": {
                    "type": "number",
                    "description": "Minutes.",
                    "minimum": 0,
                    "exclusiveMaximum": 360,
                    "deprecated": True,
                },
            },
        },
        "step": {
            "type": "object",
            "properties": {
                "uses": {
                    "description": "plain text",
                    "markdownDescription": "The **action** to run, see [docs](https://x.y).",
                    "type": "string",
                },
            },
        },
    },
}


def read(
    data: Any, name: str = "wf.json", rejects: CollectResult | None = None
) -> dict[str, Document]:
    text = data if isinstance(data, str) else json.dumps(data)
    docs = api_documents([SourceFile(P(name), name, text)], "local", rejects)
    return {d.uri: d for d in docs}


def test_a_schemas_settings_are_documents_named_by_their_path() -> None:
    rejects = CollectResult()
    docs = read(WORKFLOW, rejects=rejects)
    assert sorted(docs) == [
        "jsonschema:wf",
        "jsonschema:wf:concurrency",
        "jsonschema:wf:concurrency.group",
        "jsonschema:wf:jobs.<name>",
        "jsonschema:wf:jobs.<name>.concurrency",
        "jsonschema:wf:jobs.<name>.runs-on",
        "jsonschema:wf:jobs.<name>.steps[].uses",
        "jsonschema:wf:jobs.<name>.timeout",
        "jsonschema:wf:name",
        "jsonschema:wf:on",
        "jsonschema:wf:on.push",
    ]
    assert not rejects.rejects
    root = docs["jsonschema:wf"]
    assert root.meta["kind"] == "schema" and root.meta["language"] == "jsonschema"
    assert root.text == (
        "wf\n\nWorkflow.\n\nA workflow file.\n\nSettings:\n"
        "- `name` (string): The workflow's name.\n"
        '- `on` ("push" | "pull_request" | array of ("push" | "pull_request") | object):'
        " What starts it.\n"
        "- `concurrency` (object): One run at a time.\n"
        "- `jobs.<name>` (object): A job."
    )
    name = docs["jsonschema:wf:name"]
    assert name.meta["kind"] == "setting" and name.meta["signature"] == "name: string"
    assert name.meta["qualname"] == "wf:name" and name.meta["line"] == 1
    assert name.text == (
        'name: string\n\nThe workflow\'s name. Shown in the list.\n\nDefault: "ci"\n\n'
        'Examples:\n```json\n"build"\n{\n  "long": true\n}\n```\n\n'
        "Constraints: pattern `^[a-z]+$`, min length 1, max length 40."
    )
    # a combinator's branches: their types, their enum's values, their members
    on = docs["jsonschema:wf:on"]
    assert on.meta["kind"] == "section"
    assert on.text == (
        'on: "push" | "pull_request" | array of ("push" | "pull_request") | object\n\n'
        "What starts it.\n\nAllowed values:\n- `push`\n- `pull_request`\n\n"
        "Settings:\n- `push` (any): On a push."
    )
    runs_on = docs["jsonschema:wf:jobs.<name>.runs-on"]
    assert runs_on.meta["signature"] == "jobs.<name>.runs-on: string | array of string | object"
    assert runs_on.text == (
        "jobs.<name>.runs-on: string | array of string | object\n\nThe machine.\n\nRequired."
    )
    # an item's members: `[]`; markdownDescription preferred, its link kept
    assert docs["jsonschema:wf:jobs.<name>.steps[].uses"].text == (
        "jobs.<name>.steps[].uses: string\n\nThe **action** to run, see [docs](https://x.y)."
    )
    assert docs["jsonschema:wf:jobs.<name>.timeout"].text == (
        "jobs.<name>.timeout: number\n\nMinutes.\n\n"
        "Constraints: minimum 0, exclusive maximum 360.\n\nDeprecated."
    )
    # a shared definition expanded at its shallowest path; its own description wins
    assert docs["jsonschema:wf:concurrency"].text == (
        "concurrency: object\n\nOne run at a time.\n\nSettings:\n"
        "- `group` (string): The group's name."
    )
    assert docs["jsonschema:wf:jobs.<name>.concurrency"].text == (
        "jobs.<name>.concurrency: object\n\nOne run of this job at a time.\n\n"
        "Same as `concurrency`."
    )
    assert docs["jsonschema:wf:jobs.<name>"].text == (
        "jobs.<name>: object\n\nA job.\n\nSettings:\n"
        "- `runs-on` (string | array of string | object): The machine.\n"
        "- `steps[].uses` (string): The **action** to run, see [docs](https://x.y).\n"
        "- `concurrency` (object): One run of this job at a time.\n"
        "- `timeout` (number): Minutes."
    )


def test_refs_pointer_escapes_cycles_and_bare_refs() -> None:
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://example.com/tree.json",
        "type": "object",
        "properties": {
            "slash": {"$ref": "#/$defs/a~1b"},
            "tilde": {"$ref": "#/$defs/c~0d"},
            "percent": {"$ref": "#/$defs/e%25f"},
            "by-id": {"$ref": "https://example.com/tree.json#/$defs/a~1b"},
            "pointer": {"$ref": "#/$defs/node/properties/label"},
            "node": {"$ref": "#/$defs/node"},
            "other": {"$ref": "other.json#/x", "description": "Elsewhere."},
        },
        "$defs": {
            "a/b": {"description": "Slash.", "type": "integer"},
            "c~d": {"description": "Tilde.", "type": "boolean"},
            "e%f": {"description": "Percent.", "type": "string", "format": "uri"},
            "node": {
                "description": "A node.",
                "type": "object",
                "properties": {
                    "label": {"description": "Its label.", "type": "string"},
                    "children": {"type": "array", "items": {"$ref": "#/$defs/node"}},
                    "parent": {"$ref": "#/$defs/node", "description": "Its parent."},
                },
            },
        },
    }
    docs = read(schema, "tree.schema.json")
    assert sorted(docs) == [
        "jsonschema:tree",
        "jsonschema:tree:node",
        "jsonschema:tree:node.label",
        "jsonschema:tree:node.parent",
        "jsonschema:tree:other",
        "jsonschema:tree:percent",
        "jsonschema:tree:pointer",
        "jsonschema:tree:slash",
        "jsonschema:tree:tilde",
    ]
    assert docs["jsonschema:tree:slash"].text == "slash: integer\n\nSlash."
    assert docs["jsonschema:tree:tilde"].text == "tilde: boolean\n\nTilde."
    assert docs["jsonschema:tree:percent"].text == (
        "percent: string (uri)\n\nPercent.\n\nConstraints: format `uri`."
    )
    assert docs["jsonschema:tree:pointer"].text == "pointer: string\n\nIts label."
    # a ref to another file is not followed, only named
    assert docs["jsonschema:tree:other"].text == "other: any\n\nElsewhere.\n\nSee `other.json#/x`."
    # the cycle: the node's parent is the node again, not walked below itself; its
    # items, a bare ref to what `node` documents, give no document of their own, and the
    # list says what they are (not "Same as `node`": 130 renovate managers' lists said
    # "Same as `ansible.managerFilePatterns`" and nothing else)
    assert docs["jsonschema:tree:node.parent"].text == (
        "node.parent: object\n\nIts parent.\n\nSame as `node`."
    )
    assert docs["jsonschema:tree:node"].text == (
        "node: object\n\nA node.\n\nSettings:\n- `label` (string): Its label.\n"
        "- `children[]` (object): A node.\n- `parent` (object): Its parent."
    )
    # `by-id` (its ref through the file's $id) is a bare ref to what `slash` documents
    assert docs["jsonschema:tree"].text.endswith(
        "- `by-id` (integer): Slash.\n- `pointer` (string): Its label.\n"
        "- `node` (object): A node.\n- `other` (any): Elsewhere."
    )


def test_enums_with_descriptions_titles_and_additional_properties() -> None:
    schema = {
        "$schema": "http://json-schema.org/draft-04/schema#",
        "type": "object",
        "properties": {
            "level": {
                "type": "string",
                "enum": ["low", "high"],
                "enumDescriptions": ["Quiet.", "Loud."],
                "markdownEnumDescriptions": ["*Quiet*."],
            },
            "mode": {
                "title": "Run mode",
                "oneOf": [
                    {"const": "fast", "description": "Skip checks."},
                    {"const": 2, "description": "Twice."},
                ],
            },
            "Common-Id": {"title": "Common-Id", "type": "string"},
            "old": {"deprecationMessage": "Use `level`.", "type": "string"},
            "count": {
                "description": "How many.",
                "type": "integer",
                "minimum": 1,
                "exclusiveMinimum": True,
            },
            "env": {
                "description": "Variables.",
                "type": "object",
                "additionalProperties": {"type": "string", "description": "A variable."},
            },
            "tags": {
                "description": "Tags.",
                "type": "array",
                "items": {"enum": ["a", "b"]},
                "uniqueItems": True,
                "minItems": 1,
            },
        },
    }
    docs = read(schema, "tool.json")
    assert "jsonschema:tool:Common-Id" not in docs  # a title that is its name says nothing
    assert docs["jsonschema:tool:level"].text == (
        'level: "low" | "high"\n\nAllowed values:\n- `low`: *Quiet*.\n- `high`'
    )
    assert docs["jsonschema:tool:mode"].text == (
        'mode: "fast" | 2\n\nRun mode.\n\nAllowed values:\n- `fast`: Skip checks.\n- `2`: Twice.'
    )
    assert docs["jsonschema:tool:old"].text == "old: string\n\nDeprecated: Use `level`."
    assert docs["jsonschema:tool:count"].text == (
        "count: integer\n\nHow many.\n\nConstraints: exclusive minimum 1."
    )
    assert docs["jsonschema:tool:env.<name>"].text == "env.<name>: string\n\nA variable."
    assert docs["jsonschema:tool:env"].meta["kind"] == "section"
    assert docs["jsonschema:tool:env"].text == (
        "env: object\n\nVariables.\n\nSettings:\n- `<name>` (string): A variable."
    )
    assert docs["jsonschema:tool:tags"].text == (
        'tags: array of ("a" | "b")\n\nTags.\n\nAllowed items:\n- `a`\n- `b`\n\n'
        "Constraints: min items 1, unique items."
    )


def test_allof_members_required_and_a_yaml_schema() -> None:
    text = (
        "title: Build settings\n"
        "type: object\n"
        "allOf:\n"
        "  - required: [target]\n"
        "    properties:\n"
        "      target: {type: string, description: Where to build.}\n"
        "  - properties:\n"
        "      target: {description: Not this one.}\n"
        "      jobs: {type: integer, description: How many at once., default: 4}\n"
        "anyOf:\n"
        "  - required: [jobs]\n"
    )
    docs = read(text, "build.schema.yaml")
    assert sorted(docs) == ["jsonschema:build", "jsonschema:build:jobs", "jsonschema:build:target"]
    assert docs["jsonschema:build:target"].text == (
        "target: string\n\nWhere to build.\n\nRequired."
    )
    # required only in an anyOf branch: not always required
    assert docs["jsonschema:build:jobs"].text == (
        "jobs: integer\n\nHow many at once.\n\nDefault: 4"
    )
    assert docs["jsonschema:build"].text == (
        "build\n\nBuild settings.\n\nSettings:\n- `target` (string): Where to build.\n"
        "- `jobs` (integer): How many at once."
    )


def test_what_is_no_schema_is_counted() -> None:
    rejects = CollectResult()
    files = [
        SourceFile(P("package.json"), "package.json", '{"name": "x", "description": "A lib."}'),
        SourceFile(P("broken.json"), "broken.json", "{"),
        SourceFile(
            P("api.json"),
            "api.json",
            json.dumps(
                {
                    "openapi": "3.0.0",
                    "info": {},
                    "paths": {},
                    "type": "object",
                    "properties": {"a": {"description": "x"}},
                }
            ),
        ),
        SourceFile(
            P("bare.json"),
            "bare.json",
            json.dumps(
                {
                    "$schema": "http://json-schema.org/schema#",
                    "type": "object",
                    "properties": {"a": {"type": "string"}},
                }
            ),
        ),
    ]
    assert api_documents(files, "local", rejects) == []
    assert rejects.rejects == {SCHEMA_NOT: 3, SCHEMA_NO_API: 1}
    assert rejects.samples[SCHEMA_NO_API] == ["bare.json"]
    assert set(FIXES) == {SCHEMA_NOT, SCHEMA_NO_API, SCHEMA_CUT}
    assert all("jsonschema: text" in fix for fix in FIXES.values())


def test_what_is_a_schema_and_its_name() -> None:
    assert is_schema({"$schema": "https://json-schema.org/draft/2019-09/schema"})
    assert is_schema({"type": "object", "properties": {"a": {"type": "string"}}})
    assert is_schema({"$defs": {"A": {"type": "object"}}, "oneOf": [{"$ref": "#/$defs/A"}]})
    assert not is_schema({"openapi": "3.1.0", "type": "object", "properties": {}})
    assert not is_schema({"name": "pkg", "description": "x", "dependencies": {}})
    assert not is_schema({"type": "module", "properties": {"a": {}}})  # no JSON Schema type
    assert not is_schema({"description": "x", "properties": {"a": 1}})  # data, not schemas
    assert not is_schema({"compilerOptions": {"strict": True}, "extends": "x"})
    assert not is_schema([{"type": "object"}])
    assert is_schema_file("ci.schema.json") and is_schema_file("data.JSON")
    assert is_schema_file("x.schema.yml") and not is_schema_file("compose.yaml")
    assert schema_name(P("github-workflows.json")) == "github-workflows"
    assert schema_name(P("a/taskfile.schema.json")) == "taskfile"
    assert schema_name(P("ci/schema.json")) == "ci"
    assert URI_PREFIX == "jsonschema:"


def test_a_long_type_phrase_is_cut_and_many_settings_are_counted() -> None:
    values = [f"value-number-{i:02}" for i in range(30)]
    schema = {
        "type": "object",
        "description": "Many.",
        "properties": {
            "pick": {"description": "One of them.", "anyOf": [{"const": v} for v in values]},
            **{f"s{i}": {"type": "string", "description": f"Setting {i}."} for i in range(5100)},
        },
    }
    rejects = CollectResult()
    start = time.process_time()  # this process's CPU: other tests' load aside
    docs = read(schema, "many.json", rejects)
    assert time.process_time() - start < 1.5
    assert len(docs) == 5000 and rejects.rejects == {SCHEMA_CUT: 1}
    sig = docs["jsonschema:many:pick"].meta["signature"]
    assert len(sig) <= 200 and sig.startswith('pick: "value-number-00" | ') and sig.endswith(" | …")
    root = docs["jsonschema:many"].text
    assert root.endswith("- `s98` (string): Setting 98.\n… and 4899 more.")


def test_schemas_are_read_by_name_by_default_and_by_content_where_an_include_says(
    tmp_path: Path,
) -> None:
    from apitree import ask, write_tree
    from jupiter.collect.local import collect_local
    from jupiter.config import DomainConfig

    schema = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "title": "Deploy file",
        "type": "object",
        "required": ["target"],
        "properties": {
            "target": {
                "description": "The host the release is copied to, as user@host.",
                "type": "string",
            },
            "keep": {"description": "How many old releases stay.", "type": "integer"},
        },
    }
    write_tree(
        tmp_path / "p",
        {
            "deploy.schema.json": json.dumps(schema),
            "ci.json": json.dumps({**schema, "title": "CI file"}),
            "data.json": json.dumps({"target": "a@b", "keep": 3}),
        },
    )

    def read(**extra: object) -> dict[str, Document]:
        cfg = DomainConfig.model_validate(
            {"name": "t", "sources": [{"type": "local", "path": "p", **extra}]}
        )
        cfg.base_dir = tmp_path
        return {d.uri: d for d in collect_local(cfg.sources[0], cfg, CollectResult())}  # type: ignore[arg-type]

    # the defaults read `*.schema.json`, nothing else here
    assert sorted(read()) == [
        "jsonschema:deploy",
        "jsonschema:deploy:keep",
        "jsonschema:deploy:target",
    ]
    # an include's .json: a schema by its content, a data file as text
    got = read(include=["*.json"])
    assert sorted(u for u in got if u.startswith("jsonschema:")) == [
        "jsonschema:ci", "jsonschema:ci:keep", "jsonschema:ci:target",
        "jsonschema:deploy", "jsonschema:deploy:keep", "jsonschema:deploy:target",
    ]  # fmt: skip
    (text,) = [d for u, d in got.items() if not u.startswith("jsonschema:")]
    assert text.uri.endswith("data.json") and text.meta["kind"] == "file"
    target = got["jsonschema:deploy:target"]
    assert target.text == (
        "target: string\n\nThe host the release is copied to, as user@host.\n\nRequired."
    )
    assert ask(target)["what_does"] == "The host the release is copied to, as user@host."
    assert ask(target, ["signature"]) == {}  # a bare `string` says little
    assert ask(got["jsonschema:deploy:keep"], ["signature"]) == {}
    # jsonschema: text reads every .json as text; openapi: text leaves schemas read
    assert not any(u.startswith("jsonschema:") for u in read(include=["*.json"], jsonschema="text"))
    assert "jsonschema:ci:keep" in read(include=["*.json"], openapi="text")


def test_a_section_with_no_description_of_its_own_is_asked_nothing_about_its_list() -> None:
    """Found on the held-back schemas: a cache's `key` (titled "Cache Key", its one member
    described) answered "what is it used for?" with its Settings list, and "what type of
    value does it take?" with `object`."""
    from apitree import ask

    schema = {
        "type": "object",
        "properties": {
            "key": {
                "title": "Cache Key",
                "type": "object",
                "properties": {
                    "files": {
                        "type": "array",
                        "items": {"type": "string"},
                        "description": "Checksum of these file paths makes the cache key.",
                    }
                },
            }
        },
    }
    docs = read(schema, "s.json")
    key = docs["jsonschema:s:key"]
    assert key.text == (
        "key: object\n\nCache Key.\n\nSettings:\n"
        "- `files` (array of string): Checksum of these file paths makes the cache key."
    )
    assert ask(key) == {}
    assert ask(docs["jsonschema:s:key.files"], ["signature"]) == {"signature": "`array of string`"}


def test_a_member_two_alternatives_give_is_either_ones() -> None:
    """Found on the held-back nbformat schema: an output is one of four kinds, each with
    its own `output_type` value; the first kind's alone was the setting's only value."""
    kinds = {
        "a": {"output_type": {"description": "Type of cell output.", "enum": ["execute_result"]}},
        "b": {
            "output_type": {"description": "Type of cell output.", "enum": ["stream"]},
            "name": {"description": "The stream's name.", "type": "string"},
        },
        "c": {"output_type": {"enum": ["error"]}},
    }
    schema = {
        "type": "object",
        "properties": {
            "outputs": {
                "type": "array",
                "items": {"oneOf": [{"$ref": f"#/definitions/{k}"} for k in kinds]},
            },
            "both": {"allOf": [{"properties": {"x": {"type": "string", "description": "X."}}},
                               {"properties": {"x": {"maxLength": 3}}}]},
        },
        "definitions": {k: {"type": "object", "properties": p} for k, p in kinds.items()},
    }  # fmt: skip
    docs = read(schema, "nb.json")
    assert docs["jsonschema:nb:outputs[].output_type"].text == (
        'outputs[].output_type: "execute_result" | "stream" | "error"\n\nType of cell output.'
        "\n\nAllowed values:\n- `execute_result`\n- `stream`\n- `error`"
    )
    assert (
        docs["jsonschema:nb:outputs[].name"].text == "outputs[].name: string\n\nThe stream's name."
    )
    # allOf's branches all hold: the first's member stands
    assert docs["jsonschema:nb:both.x"].text == "both.x: string\n\nX."


def test_init_adds_json_for_a_folder_of_schemas_or_an_introspection(tmp_path: Path) -> None:
    """A folder of CI schemas named like any JSON (check-jsonschema's vendored
    `github-workflows.json`): `jupiter init --source` reads *.json there, and the schema's
    settings are collected; a folder of plain data JSON gets no *.json."""
    from apitree import write_tree
    from jupiter.collect.local import collect_local
    from jupiter.config import DomainConfig
    from jupiter.config.cli import source_entry

    schema = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": {
            "runs-on": {"description": "The machine the job runs on.", "type": "string"}
        },
    }
    write_tree(tmp_path / "ci", {"workflows.json": json.dumps(schema)})
    write_tree(tmp_path / "data", {"rows.json": json.dumps([{"a": 1}])})
    write_tree(tmp_path / "api", {"schema/github.json": json.dumps({"__schema": {"types": []}})})
    entry = source_entry(str(tmp_path / "ci"))
    assert "*.json" in entry["include"]  # type: ignore[operator]
    assert "*.json" not in source_entry(str(tmp_path / "data")).get("include", [])  # type: ignore[operator]
    assert "*.json" in source_entry(str(tmp_path / "api"))["include"]  # type: ignore[operator]
    cfg = DomainConfig.model_validate({"name": "t", "sources": [entry]})
    cfg.base_dir = tmp_path
    docs = {d.uri for d in collect_local(cfg.sources[0], cfg, CollectResult())}  # type: ignore[arg-type]
    assert "jsonschema:workflows:runs-on" in docs
