"""Kubernetes CustomResourceDefinitions, read as `kubectl explain` shows their resources
(collect/crd.py)."""

from __future__ import annotations

import random
from pathlib import Path, PurePosixPath

from jupiter.collect.crd import NO_SCHEMA, api_documents, definitions
from jupiter.collect.local import collect_local
from jupiter.collect.result import CollectResult, SourceFile
from jupiter.config import DomainConfig

CRDS = """\
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.spool.example.com
spec:
  group: spool.example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
  - name: v1alpha1
    served: true
    storage: false
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, description: The old spec.}
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        description: A Widget spins jobs off a queue.
        type: object
        properties:
          apiVersion: {type: string, description: APIVersion defines the versioned schema.}
          kind: {type: string, description: Kind is a string value.}
          metadata: {type: object}
          spec:
            description: The desired state of the Widget.
            type: object
            required: [queue]
            properties:
              queue: {type: string, description: The queue the widget reads its jobs from.}
              replicas:
                type: integer
                default: 1
                minimum: 0
                description: How many workers spin the jobs.
              policy:
                type: string
                enum: [Never, Always]
                description: When a failed job is retried.
---
apiVersion: v1
kind: ConfigMap
metadata: {name: not-a-crd}
data: {a: b}
---
apiVersion: apiextensions.k8s.io/v1beta1
kind: CustomResourceDefinition
metadata: {name: gadgets.spool.example.com}
spec:
  group: spool.example.com
  version: v1beta1
  names: {kind: Gadget, plural: gadgets}
  validation:
    openAPIV3Schema:
      type: object
      properties:
        spec:
          type: object
          properties:
            size: {type: integer, description: The gadget's size in slots.}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: blanks.spool.example.com}
spec:
  group: spool.example.com
  names: {kind: Blank, plural: blanks}
  versions: [{name: v1, served: true, storage: true}]
"""


def _file(text: str, name: str = "crds.yaml") -> SourceFile:
    return SourceFile(PurePosixPath(name), f"/repo/{name}", text, {})


def test_a_crd_s_stored_version_is_read_as_its_resource_s_fields() -> None:
    rejects = CollectResult()
    docs, unread = api_documents([_file(CRDS)], "local", rejects)
    assert not unread
    by_uri = {d.uri: d for d in docs}
    assert sorted(by_uri) == [
        "crd:spool.example.com/Gadget",
        "crd:spool.example.com/Gadget:spec.size",  # its undescribed `spec` gives none
        "crd:spool.example.com/Widget",
        "crd:spool.example.com/Widget:spec",  # a section: it lists its documented fields
        "crd:spool.example.com/Widget:spec.policy",
        "crd:spool.example.com/Widget:spec.queue",
        "crd:spool.example.com/Widget:spec.replicas",
    ]  # no apiVersion, kind or metadata; v1, not v1alpha1 ("The old spec.")
    root = by_uri["crd:spool.example.com/Widget"]
    assert root.title == "Widget (spool.example.com/v1)"
    assert root.text.startswith(
        "spool.example.com/Widget\n\nKind `Widget`, API version `spool.example.com/v1`.\n\n"
        "A Widget spins jobs off a queue."
    )
    replicas = by_uri["crd:spool.example.com/Widget:spec.replicas"].text
    assert replicas.startswith("spec.replicas: integer\n\nHow many workers spin the jobs.")
    assert "Default: 1" in replicas and "minimum 0" in replicas
    assert "Required." in by_uri["crd:spool.example.com/Widget:spec.queue"].text
    assert by_uri["crd:spool.example.com/Widget:spec"].text.count("The desired state") == 1
    assert by_uri["crd:spool.example.com/Gadget:spec.size"].meta["version"] == "v1beta1"
    assert rejects.rejects == {NO_SCHEMA: 1}  # the Blank CRD, no schema


def test_files_without_crds_are_left_to_be_read_as_text() -> None:
    docs, unread = api_documents([_file("a: [1, 2\n"), _file("kind: List\nitems: [1]\n")], "x")
    assert docs == [] and len(unread) == 2
    listed = "apiVersion: v1\nkind: List\nitems:\n" + "".join(
        "- " + line + "\n" if k == 0 else "  " + line + "\n"
        for k, line in enumerate(CRDS.split("---\n")[1].splitlines())
    )
    assert [d["metadata"]["name"] for d in definitions(listed)] == ["widgets.spool.example.com"]


def test_a_crd_folder_is_read_and_asked_about_as_resources(tmp_path: Path) -> None:
    from jupiter.collect.chunking import chunk_document
    from jupiter.config import Chunking, GeneratorConfig
    from jupiter.synth.questions import make_questions

    root = tmp_path / "deploy"
    root.mkdir()
    (root / "crds.yaml").write_text(CRDS, encoding="utf-8")
    (root / "values.yaml").write_text("replicaCount: 2\n", encoding="utf-8")
    cfg = DomainConfig.model_validate(
        {"name": "t", "sources": [{"type": "local", "path": "deploy", "include": ["*.yaml"]}]}
    )
    cfg.base_dir = tmp_path
    docs = collect_local(cfg.sources[0], cfg)
    uris = sorted(d.uri for d in docs)
    assert "crd:spool.example.com/Widget:spec.queue" in uris
    assert any(u.endswith("values.yaml") for u in uris)  # no CRD: read as before
    asked: list[str] = []
    for d in docs:
        for chunk in chunk_document(d, Chunking(max_chars=1500, overlap=150, heldout_fraction=0)):
            made = make_questions(chunk, GeneratorConfig().templates, 20, random.Random(0))
            asked += [q.question for q in made if q.answer]
    assert "What is `spec.queue` for in `Widget`?" in asked or any(
        "`spec.queue`" in q and "`Widget`" in q for q in asked
    ), asked


def test_random_crd_fragments_read_without_an_error() -> None:
    rng = random.Random(3)
    lines = CRDS.splitlines()
    for _ in range(200):
        cut = lines[: rng.randrange(len(lines))]
        if rng.random() < 0.3:
            rng.shuffle(cut)
        docs, unread = api_documents([_file("\n".join(cut))], "x", CollectResult())
        assert len(unread) + bool(docs) == 1  # read as resources, or left to be read as text


def test_init_reads_the_yaml_of_a_folder_of_crds(tmp_path: Path) -> None:
    from jupiter.config.cli import source_entry

    crds = tmp_path / "op" / "config" / "crd" / "bases"
    crds.mkdir(parents=True)
    (crds / "spool.example.com_widgets.yaml").write_text(CRDS, encoding="utf-8")
    include = source_entry(str(tmp_path / "op"))["include"]
    assert isinstance(include, list) and "*.yaml" in include and "*.yml" in include
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "values.yaml").write_text("replicaCount: 2\n", encoding="utf-8")
    assert "include" not in source_entry(str(plain))
