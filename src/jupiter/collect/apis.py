"""The readers of a language's API beside Python's (collect/jsapi.py, sqlapi.py, goapi.py,
rustapi.py, ..., cljapi.py, mliapi.py, graphqlapi.py, solapi.py, elispapi.py,
xsdapi.py, puppetapi.py, confdoc.py, swiftapi.py, dartapi.py, tfapi.py, nixapi.py; jsonschema.py, a GraphQL introspection result, a YAML
file documented by its comments and openapi.py through one reader of JSON and YAML files): the source
setting that turns each on (`javascript: api`), the files it takes, and the files it reads
beside them whatever the include globs say (a crate's Cargo.toml, which names it). The
local and git sources hand each reader its files together, since a package's files name
one another's objects.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

from jupiter.collect import (
    capi,
    cljapi,
    confdoc,
    crd,
    csapi,
    dartapi,
    elispapi,
    exapi,
    goapi,
    graphqlapi,
    hsapi,
    javaapi,
    jsapi,
    jsonschema,
    ktapi,
    luaapi,
    mliapi,
    nixapi,
    openapi,
    phpapi,
    protoapi,
    puppetapi,
    rdoc,
    rubyapi,
    rustapi,
    scalaapi,
    solapi,
    sqlapi,
    swiftapi,
    tfapi,
    xsdapi,
)
from jupiter.collect.result import CollectResult, SourceFile
from jupiter.records import Document

# (files, source type, rejects, the source's folder name) -> documents
Read = Callable[[list[SourceFile], str, CollectResult | None, str], list[Document]]


@dataclass(frozen=True)
class ApiReader:
    setting: str  # the source's field that says api or text ("javascript", "rust")
    language: str  # meta language of its files where the suffix does not say it
    takes: Callable[[str], bool]  # a file name the reader reads
    read: Read
    companions: tuple[str, ...] = ()  # file names read for it beside its files
    # a file the reader takes by its path in the source, ahead of every reader's name test
    # (Puppet's `lib/puppet/functions/*.rb`, `tasks/*.json`); what it claims but cannot
    # read it hands on as the other readers would read it
    claims: Callable[[str], bool] | None = None


# the settings whose readers take JSON and YAML files, in the order they claim one
STRUCTURED = ("jsonschema", "graphql", "config", "openapi")


def _structured(on: frozenset[str]) -> ApiReader:
    """The one reader of JSON and YAML files a source's settings make (`on`: those of
    STRUCTURED it sets to api): a Kubernetes CustomResourceDefinition as the fields of the
    resource it defines (collect/crd.py, with `jsonschema`), a JSON Schema as the settings
    it describes (collect/jsonschema.py), a GraphQL introspection result as the API it describes
    (collect/graphqlapi.py), a YAML file whose comments document its settings as those
    settings (collect/confdoc.py: alacritty.yml, a chart's values.yaml), an OpenAPI spec as
    its operations; any other file as text."""

    def read(
        files: list[SourceFile], source: str, rejects: CollectResult | None, top: str
    ) -> list[Document]:
        crds: list[SourceFile] = []
        schemas: list[SourceFile] = []
        graphs: list[SourceFile] = []
        configs: list[SourceFile] = []
        others: list[SourceFile] = []
        for f in files:
            if "jsonschema" in on and crd.takes(f):
                crds.append(f)
            elif "jsonschema" in on and jsonschema.takes(f):
                schemas.append(f)
            elif "graphql" in on and graphqlapi.takes_json(f):
                graphs.append(f)
            elif "config" in on and confdoc.takes(f.rel.name, f.text):
                configs.append(f)
            else:
                others.append(f)
        rest = openapi.api_documents if "openapi" in on else openapi.as_text
        resources, unread = crd.api_documents(crds, source, rejects)
        others += unread
        return [
            *resources,
            *jsonschema.api_documents(schemas, source, rejects),
            *graphqlapi.api_documents(graphs, source, rejects, top),
            *confdoc.api_documents(configs, source, rejects, top),
            *rest(others, source, rejects),
        ]

    return ApiReader("openapi", "", openapi.is_spec_file, read)


def _config_file(name: str) -> bool:
    """A configuration file by its name, or a TOML file (read so when its comments
    document its settings: `confdoc.takes`)."""
    return confdoc.is_config(name) or name.lower().endswith(".toml")


def _config_documents(
    files: list[SourceFile], source: str, rejects: CollectResult | None, top: str
) -> list[Document]:
    """Annotated configuration files as their settings (collect/confdoc.py); a TOML file
    its comments do not document (a pyproject.toml) as text."""
    mine = [f for f in files if confdoc.takes(f.rel.name, f.text)]
    text = [f for f in files if not confdoc.takes(f.rel.name, f.text)]
    return [*confdoc.api_documents(mine, source, rejects, top), *openapi.as_text(text, source)]


READERS = (
    ApiReader(
        "javascript", "", jsapi.is_javascript, lambda f, s, r, _: jsapi.api_documents(f, s, r)
    ),
    ApiReader("sql", "sql", sqlapi.is_sql, lambda f, s, r, _: sqlapi.api_documents(f, s, r)),
    ApiReader("c", "c", capi.is_header, lambda f, s, r, _: capi.api_documents(f, s, r)),
    ApiReader("go", "go", goapi.is_go, lambda f, s, r, _: goapi.api_documents(f, s, r)),
    ApiReader("rust", "rust", rustapi.is_rust, rustapi.read, (rustapi.MANIFEST,)),
    ApiReader("java", "java", javaapi.is_java, lambda f, s, r, _: javaapi.api_documents(f, s, r)),
    ApiReader("php", "php", phpapi.is_php, lambda f, s, r, _: phpapi.api_documents(f, s, r)),
    ApiReader("ruby", "ruby", rubyapi.is_ruby, lambda f, s, r, _: rubyapi.api_documents(f, s, r)),
    ApiReader("r", "r", rdoc.is_rd, rdoc.read, (rdoc.MANIFEST,)),
    ApiReader("kotlin", "kotlin", ktapi.is_kotlin, lambda f, s, r, _: ktapi.api_documents(f, s, r)),
    ApiReader("csharp", "csharp", csapi.is_csharp, lambda f, s, r, _: csapi.api_documents(f, s, r)),
    ApiReader("elixir", "elixir", exapi.is_elixir, lambda f, s, r, _: exapi.api_documents(f, s, r)),
    ApiReader(
        "scala", "scala", scalaapi.is_scala, lambda f, s, r, _: scalaapi.api_documents(f, s, r)
    ),
    ApiReader(
        "haskell", "haskell", hsapi.is_haskell, lambda f, s, r, _: hsapi.api_documents(f, s, r)
    ),
    ApiReader(
        "proto", "proto", protoapi.is_proto, lambda f, s, r, _: protoapi.api_documents(f, s, r)
    ),
    ApiReader("lua", "lua", luaapi.is_lua, luaapi.api_documents),
    ApiReader("clojure", "clojure", cljapi.is_clojure, cljapi.api_documents),
    ApiReader("ocaml", "ocaml", mliapi.is_ocaml, mliapi.api_documents),
    ApiReader("graphql", "graphql", graphqlapi.is_sdl, graphqlapi.api_documents),
    ApiReader("solidity", "solidity", solapi.is_solidity, solapi.api_documents),
    ApiReader("elisp", "elisp", elispapi.is_elisp, elispapi.api_documents),
    ApiReader("xsd", "xsd", xsdapi.is_xsd, xsdapi.api_documents),
    ApiReader("swift", "swift", swiftapi.is_swift, swiftapi.api_documents, (swiftapi.MANIFEST,)),
    ApiReader("dart", "dart", dartapi.is_dart, dartapi.api_documents, (dartapi.MANIFEST,)),
    ApiReader("nix", "nix", nixapi.is_nix, nixapi.api_documents),
    # a `.tf.json` is Terraform's, ahead of the JSON and YAML reader
    ApiReader(
        "terraform",
        "terraform",
        tfapi.is_terraform,
        tfapi.api_documents,
        claims=lambda path: path.lower().endswith(".tf.json"),
    ),  # fmt: skip
    ApiReader("config", "config", _config_file, _config_documents),
)
FIXES = {
    **jsapi.FIXES,
    **sqlapi.FIXES,
    **capi.FIXES,
    **goapi.FIXES,
    **rustapi.FIXES,
    **javaapi.FIXES,
    **phpapi.FIXES,
    **rubyapi.FIXES,
    **rdoc.FIXES,
    **ktapi.FIXES,
    **csapi.FIXES,
    **exapi.FIXES,
    **scalaapi.FIXES,
    **hsapi.FIXES,
    **protoapi.FIXES,
    **luaapi.FIXES,
    **cljapi.FIXES,
    **mliapi.FIXES,
    **jsonschema.FIXES,
    **crd.FIXES,
    **graphqlapi.FIXES,
    **solapi.FIXES,
    **elispapi.FIXES,
    **xsdapi.FIXES,
    **puppetapi.FIXES,
    **confdoc.FIXES,
    **swiftapi.FIXES,
    **dartapi.FIXES,
    **tfapi.FIXES,
    **nixapi.FIXES,
}


def active(src: Any) -> list[ApiReader]:
    """The readers a source turns on (its setting `api`); JSON and YAML files first, by
    the one reader its JSON Schema, GraphQL and OpenAPI settings make; Puppet's ahead of
    all, since it takes files of theirs by their path."""
    on = [r for r in READERS if getattr(src, r.setting, "text") == "api"]
    structured = frozenset(k for k in STRUCTURED if getattr(src, k, "text") == "api")
    readers = [_structured(structured), *on] if structured else on
    if getattr(src, "puppet", "text") == "api":
        readers.insert(0, _puppet(readers))
    return readers


def _puppet(others: list[ApiReader]) -> ApiReader:
    """Puppet's reader (collect/puppetapi.py): manifests by their name; by their path a
    module's Ruby functions, tasks, metadata.json and Hiera data. Such a file in a folder
    that holds no manifest among the files (a `tasks/` or `data/` of another project) is
    read as it would be without Puppet: by the reader of `others` that takes it, else as
    text."""

    def read(
        files: list[SourceFile], source: str, rejects: CollectResult | None, top: str
    ) -> list[Document]:
        roots = {puppetapi.module_root(f.rel) for f in files if puppetapi.is_puppet(f.rel.name)}
        mine = [f for f in files if puppetapi.module_root(f.rel) in roots]
        rest = Batches(others)
        text: list[SourceFile] = []
        for f in files:
            if puppetapi.module_root(f.rel) not in roots:
                r = reader_for(others, f.rel.name)
                if r is not None:
                    rest.add(r, f)
                else:
                    text.append(f)
        return [
            *puppetapi.api_documents(mine, source, rejects, top),
            *rest.documents(source, rejects, top),
            *openapi.as_text(text, source, rejects),
        ]

    return ApiReader(
        "puppet", "puppet", puppetapi.is_puppet, read, (puppetapi.MANIFEST,), puppetapi.takes
    )


def reader_for(readers: list[ApiReader], name: str) -> ApiReader | None:
    """The reader that takes a file of this name (its path in the source: a reader may
    claim it by its path; else the reader it is a companion of, Dart's pubspec.yaml ahead
    of the JSON and YAML reader; else the first that takes its last part), if any."""
    for r in readers:
        if r.claims is not None and r.claims(PurePosixPath(name).as_posix()):
            return r
    base = PurePosixPath(name).name
    for r in readers:
        if base.lower() in {c.lower() for c in r.companions}:
            return r
    return next((r for r in readers if r.takes(base)), None)


def companions(readers: list[ApiReader]) -> set[str]:
    return {name for r in readers for name in r.companions}


@dataclass
class Batches:
    """Each active reader's files, gathered as a source reads them."""

    readers: list[ApiReader]
    files: dict[str, list[SourceFile]] = field(default_factory=dict)

    def add(self, reader: ApiReader, f: SourceFile) -> None:
        self.files.setdefault(reader.setting, []).append(f)

    def documents(
        self, source: str, rejects: CollectResult | None, top: str = ""
    ) -> list[Document]:
        """Every reader's documents, reader by reader."""
        out: list[Document] = []
        for r in self.readers:
            got = self.files.get(r.setting)
            if got and (r.claims is not None or any(r.takes(f.rel.name) for f in got)):
                out.extend(r.read(got, source, rejects, top))
        return out
