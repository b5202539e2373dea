"""An OpenAPI or Swagger spec read as the API it describes: an operation a document named
by its operationId, a described schema one, the API's prose one; other JSON and YAML read
as text, as before."""

from __future__ import annotations

import json
from pathlib import Path

from apitree import ask, collect_tree
from jupiter.collect import CollectResult, openapi
from jupiter.collect.local import collect_local
from jupiter.config import DomainConfig

SPEC = """\
openapi: 3.0.3
info:
  title: Spool service
  description: Winds thread onto spools, over HTTP.
tags:
  - name: spools
    description: Spools and their thread.
paths:
  /spools/{spoolId}/wind:
    parameters:
      - $ref: '#/components/parameters/SpoolId'
    post:
      operationId: spools/wind
      summary: Wind thread onto a spool
      description: Each turn adds one loop of thread.
      parameters:
        - name: dry_run
          in: query
          description: Count the turns without winding.
      requestBody:
        content:
          application/json:
            schema:
              $ref: '#/components/schemas/WindRequest'
      responses:
        '201':
          description: The turns on the spool after winding.
        '400':
          description: Turns were negative.
  /spools:
    get:
      summary: List the spools
      deprecated: true
      responses:
        '200':
          $ref: '#/components/responses/Spools'
    delete:
      operationId: drop-all
      responses:
        '204':
          description: Gone.
components:
  parameters:
    SpoolId:
      name: spoolId
      in: path
      description: The spool's id.
  responses:
    Spools:
      description: Every spool.
  schemas:
    WindRequest:
      description: How to wind.
      properties:
        turns:
          description: How many turns to add.
        tight:
          type: boolean
    Spool:
      description: Spool
      properties:
        id: {type: string}
"""


def test_a_specs_operations_and_schemas_are_documents(tmp_path: Path) -> None:
    (tmp_path / "openapi.yaml").write_text(SPEC)  # read by the default include
    cfg = DomainConfig.model_validate({"name": "t", "sources": [{"type": "local", "path": "."}]})
    cfg.base_dir = tmp_path
    rejects = CollectResult()
    docs = {d.uri: d for d in collect_local(cfg.sources[0], cfg, rejects)}  # type: ignore[arg-type]
    assert set(docs) == {
        "openapi:WindRequest",
        "openapi:drop_all",
        "openapi:get_spools",
        "openapi:spools.wind",
        str(tmp_path / "openapi.yaml"),
    }
    wind = docs["openapi:spools.wind"]
    assert wind.text == (
        "spools.wind(spoolId, dry_run, turns, tight)\n\nWind thread onto a spool\n\n"
        "Each turn adds one loop of thread.\n\nRequest: `POST /spools/{spoolId}/wind`.\n\n"
        ":param spoolId: The spool's id.\n:param dry_run: Count the turns without winding.\n"
        ":param turns: How many turns to add.\n:returns: 201: The turns on the spool after winding."
    )
    assert (
        wind.meta["kind"] == "operation" and wind.meta["request"] == "POST /spools/{spoolId}/wind"
    )
    asked = ask(wind)
    assert asked["what_does"] == "Wind thread onto a spool"
    assert asked["returns"] == "201: The turns on the spool after winding."
    assert asked["arguments"].startswith("`spools.wind` takes 4 arguments: spoolId, dry_run,")
    # no operationId: named by method and path; a $ref'd response followed; deprecation said
    assert docs["openapi:get_spools"].text == (
        "get_spools()\n\nList the spools\n\nRequest: `GET /spools`.\n\nDeprecated.\n\n"
        ":returns: 200: Every spool."
    )
    # an operation that says only what it returns is that; a schema whose description is
    # its name (Spool) gives none; the API's prose is one document
    assert docs["openapi:drop_all"].text == (
        "drop_all()\n\nRequest: `DELETE /spools`.\n\n:returns: 204: Gone."
    )
    assert docs["openapi:WindRequest"].text == (
        "WindRequest\n\nHow to wind.\n\n:ivar turns: How many turns to add."
    )
    prose = docs[str(tmp_path / "openapi.yaml")]
    assert prose.title == "Spool service" and prose.text == (
        "# Spool service\n\nWinds thread onto spools, over HTTP.\n\n## spools\n\n"
        "Spools and their thread."
    )
    assert not rejects.rejects


def test_swagger_2_and_other_json_and_the_text_setting(tmp_path: Path) -> None:
    swagger = {
        "swagger": "2.0",
        "info": {"title": "Pets"},
        "paths": {
            "/pets": {
                "post": {
                    "operationId": "addPet",
                    "summary": "Add a pet.",
                    "parameters": [
                        {"in": "body", "name": "body", "schema": {"$ref": "#/definitions/Pet"}}
                    ],
                    "responses": {"200": {"description": "The pet added."}},
                }
            }
        },
        "definitions": {
            "Pet": {"description": "A pet.", "properties": {"name": {"description": "Its name."}}}
        },
    }
    tree = {
        "swagger.json": json.dumps(swagger),
        "data/settings.json": '{"color": "red"}',
        "data/broken.yaml": "a: [1,",
    }
    docs, _ = collect_tree(tmp_path, tree, ["*.json", "*.yaml"])
    assert docs["openapi:addPet"].text == (
        "addPet(name)\n\nAdd a pet.\n\nRequest: `POST /pets`.\n\n:param name: Its name.\n"
        ":returns: 200: The pet added."
    )
    assert docs["openapi:Pet"].text == "Pet\n\nA pet.\n\n:ivar name: Its name."
    # JSON and YAML that are no spec (or do not parse) are read as text, as before
    root = tmp_path / "project" / "data"
    assert docs[str(root / "settings.json")].text == '{"color": "red"}'
    assert docs[str(root / "broken.yaml")].text == "a: [1,"
    as_text, _ = collect_tree(tmp_path / "b", tree, ["*.json"], openapi="text")
    assert not any(u.startswith("openapi:") for u in as_text) and len(as_text) == 2


def test_operation_names_as_an_sdk_calls_them() -> None:
    assert openapi.op_name({"operationId": "issues/create"}, "post", "/x") == "issues.create"
    assert openapi.op_name({"operationId": "list-pets"}, "get", "/pets") == "list_pets"
    assert openapi.op_name({}, "get", "/pets/{petId}") == "get_pets_petId"
    assert openapi.op_name({"operationId": "2fa"}, "get", "/x") == "op_2fa"
