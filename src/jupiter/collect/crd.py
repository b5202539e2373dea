"""Kubernetes CustomResourceDefinitions, read as `kubectl explain` shows the resources they
define: an operator's CRDs (cert-manager's Certificate, the Prometheus operator's
ServiceMonitor, the Gateway API's HTTPRoute) are the reference of the YAML its users write,
one document per described field.

A YAML or JSON file an include reads holds CRDs when one of its documents (a multi-document
YAML's `---` parts, a `kind: List`'s items) has `apiVersion: apiextensions.k8s.io/...` and
`kind: CustomResourceDefinition`; a file that does not parse is no CRD file. Of a CRD's
versions the one the API server stores (`storage: true`, else the last served; the
`v1beta1` form's `spec.validation`) gives its schema, `openAPIV3Schema`, read by the JSON
Schema reader's walk (collect/jsonschema.py: a field's path, type, description, required,
default, allowed values, constraints): the resource the document
`crd:<group>/<Kind>` (its name, "Kind `Certificate`, API version `cert-manager.io/v1`.",
its description and its fields' list), each described field `crd:<group>/<Kind>:<path>`
(`crd:cert-manager.io/Certificate:spec.dnsNames`), asked about as "the `spec.dnsNames`
field of a `Certificate`". Every resource's `apiVersion`, `kind`
and `metadata` (the same boilerplate in each CRD) are left out. A CRD with no schema, or
with no description anywhere, is counted `crd_no_schema`; a file whose CRDs give nothing is
read as text.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

import yaml

from jupiter.collect import jsonschema
from jupiter.collect.result import CollectResult, SourceFile, count
from jupiter.records import Document

URI_PREFIX = "crd:"
SUFFIXES = (".yaml", ".yml", ".json")
NO_SCHEMA = "crd_no_schema"
FIXES = {
    NO_SCHEMA: "a CustomResourceDefinition with no described schema: nothing to read",
}
_BOILERPLATE = frozenset({"apiVersion", "kind", "metadata"})
MAX_DOCUMENTS = 200  # YAML documents of one file looked at
_KIND = re.compile(r"""^\s*"?kind"?\s*:\s*"?CustomResourceDefinition"?\s*,?\s*$""", re.M)


def takes(f: SourceFile) -> bool:
    """Whether a file an include read looks like it holds a CustomResourceDefinition (its
    `kind:` line and API group; parsed once, by api_documents, which hands a file that holds
    none back to be read as text)."""
    name = f.rel.name.lower()
    if not name.endswith(SUFFIXES) or "apiextensions.k8s.io/" not in f.text:
        return False
    return _KIND.search(f.text) is not None


def definitions(text: str) -> list[dict[str, Any]]:
    """The CRDs a file's text holds ([] when it does not parse)."""
    try:
        parts = list(yaml.safe_load_all(text))[:MAX_DOCUMENTS]
    except yaml.YAMLError:
        return []
    out: list[dict[str, Any]] = []
    for part in parts:
        items = (
            part.get("items") if isinstance(part, dict) and part.get("kind") == "List" else [part]
        )
        for item in items if isinstance(items, list) else []:
            if _is_crd(item):
                out.append(item)
    return out


def _is_crd(data: Any) -> bool:
    return (
        isinstance(data, dict)
        and str(data.get("apiVersion", "")).startswith("apiextensions.k8s.io/")
        and data.get("kind") == "CustomResourceDefinition"
        and isinstance(data.get("spec"), dict)
    )


def _schema(spec: dict[str, Any]) -> tuple[str, dict[str, Any] | None]:
    """(version, its openAPIV3Schema) of the version the server stores."""
    versions = [v for v in spec.get("versions") or [] if isinstance(v, dict)]
    chosen = next((v for v in versions if v.get("storage")), None)
    if chosen is None:
        served = [v for v in versions if v.get("served", True)]
        chosen = served[-1] if served else None
    found: Any = None
    name = ""
    if chosen is not None:
        name = str(chosen.get("name", ""))
        found = (chosen.get("schema") or {}).get("openAPIV3Schema")
    if found is None:  # apiextensions.k8s.io/v1beta1: one schema for every version
        found = (spec.get("validation") or {}).get("openAPIV3Schema")
        name = name or str(spec.get("version", ""))
    return name, found if isinstance(found, dict) else None


def api_documents(
    files: list[SourceFile], source: str, rejects: CollectResult | None = None, top: str = ""
) -> tuple[list[Document], list[SourceFile]]:
    """(the documents of the files' CRDs, the files that gave none: read as text)."""
    docs: list[Document] = []
    left: list[SourceFile] = []
    for f in files:
        got: list[Document] = []
        for crd in definitions(f.text):
            spec = crd["spec"]
            names = spec.get("names") if isinstance(spec.get("names"), dict) else {}
            group = str(spec.get("group", ""))
            plural = str(names.get("plural", "")) or str((crd.get("metadata") or {}).get("name"))
            kind = str(names.get("kind", "")) or plural
            version, schema = _schema(spec)
            if schema is None:
                count(rejects, NO_SCHEMA, f"{f.where}#{plural}")
                continue
            qual = f"{group}/{kind}" if group else kind
            found, _ = jsonschema.settings(schema, qual, f, source, URI_PREFIX, "crd", _BOILERPLATE)
            if not found:
                count(rejects, NO_SCHEMA, f"{f.where}#{plural}")
                continue
            api = f"{group}/{version}" if group else version
            head = f"Kind `{kind}`, API version `{api}`."
            for doc in found:
                meta = {**doc.meta, "resource": kind, "group": group, "version": version}
                if doc.meta.get("kind") == "schema":  # the resource: its kind and API version
                    text = f"{qual}\n\n{head}{doc.text[len(qual) :]}"
                    got.append(replace(doc, title=f"{kind} ({api})", text=text, meta=meta))
                else:
                    got.append(replace(doc, meta=meta))
        if got:
            docs.extend(got)
        else:
            left.append(f)
    return docs, left
