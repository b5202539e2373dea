"""The domain schema: what one domain YAML may say, pydantic models with unknown keys
rejected (a config error names the file, the key path and what was expected, on one line:
see loader.py)."""

from __future__ import annotations

import os
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    field_validator,
    model_validator,
)

from jupiter.errors import JupiterError


class Strict(BaseModel):
    # NaN and infinities are refused in every number of a YAML (`lr: .nan` passed range
    # checks, since every comparison with NaN is false)
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)


def _iso_text(value: Any) -> Any:
    """YAML reads an unquoted `2024-05-01` as a date and `2024-05-01 12:00:00` as a
    datetime: both stand for their ISO 8601 text."""
    return value.isoformat() if isinstance(value, date | datetime) else value


def _check_iso(value: str) -> str:
    """An ISO 8601 date (2024-05-01) or date and time (2024-05-01T12:00:00Z); an epoch
    number is refused, as the exec_logs collector refuses it."""
    text = value.strip()
    text = text[:-1] + "+00:00" if text.endswith(("Z", "z")) else text
    try:
        if text.isdigit():
            raise ValueError
        datetime.fromisoformat(text)
    except ValueError:
        raise ValueError(
            "not an ISO 8601 date or time: write it like 2024-05-01 or 2024-05-01T12:00:00Z"
        ) from None
    return value


# an ISO 8601 date or time, quoted or not in the YAML
DateText = Annotated[str, BeforeValidator(_iso_text), AfterValidator(_check_iso)]
# numpy's seeds are 32-bit: a larger one fails deep inside a stage (OverflowError)
Seed = Annotated[int, Field(ge=0, le=2**32 - 1)]
# a name that becomes a folder or file name (runs/<name>/): short and portable
Name = Annotated[str, Field(pattern=r"^[A-Za-z0-9_\-]+$", max_length=64)]


# how a local or git source reads .py files: their API (docstrings) or their text
PythonAs = Literal["api", "text"]
# the same for .js/.ts files: their API (JSDoc comments, collect/jsapi.py) or their text
JavaScriptAs = Literal["api", "text"]
OpenApiAs = Literal["api", "text"]
# an API's spec, a JSON Schema, a GraphQL schema, an XML Schema and DocBook sources by their
# usual names (any other .json, .yaml or .xml is read where an include says)
SPEC_NAMES = (
    "openapi.json", "openapi.yaml", "openapi.yml", "swagger.json", "swagger.yaml", "*.schema.json",
    "*.graphql", "*.graphqls", "*.xsd", "*.dbk", "*.docbook", "*.sgml",
)  # fmt: skip
# SQL files: api, each documented table, view, type or routine a document (collect/sqlapi.py);
# text, each file as plain text
SqlAs = Literal["api", "text"]
# Go files: api, each exported name with a doc comment a document (collect/goapi.py); text,
# each file as plain text
GoAs = Literal["api", "text"]
# C and C++ headers: api, each declaration with a Doxygen comment (or, in a header without
# any, a plain comment right over it) a document, as Doxygen reads it (collect/capi.py);
# text, each file as plain text
CAs = Literal["api", "text"]
# Rust files: api, each public item with a doc comment a document, as rustdoc reads it
# (collect/rustapi.py); text, each file as plain text
RustAs = Literal["api", "text"]
# R documentation files (.Rd): api, each function a file's usage shows a document, as R's
# help shows it (collect/rdoc.py); text, each file as plain text
RAs = Literal["api", "text"]
# Kotlin files: api, each public or protected declaration with a KDoc comment a document,
# as Dokka reads it (collect/ktapi.py); text, each file as plain text
KotlinAs = Literal["api", "text"]
# C# files: api, each public or protected type and member with an XML doc comment a
# document, as the C# compiler's documentation file holds it (collect/csapi.py); text, each
# file as plain text
CSharpAs = Literal["api", "text"]
# Elixir files: api, each module, function, macro, type and callback with a @moduledoc, @doc
# or @typedoc a document, as ExDoc shows it (collect/exapi.py); text, each file as plain text
ElixirAs = Literal["api", "text"]
# Scala files: api, each public or protected declaration with a Scaladoc comment a document,
# as Scaladoc reads it (collect/scalaapi.py); text, each file as plain text
ScalaAs = Literal["api", "text"]
# Haskell files: api, each exported declaration with a Haddock comment a document, as
# Haddock shows it (collect/hsapi.py), and a built Haddock site's pages the same documents
# (collect/haddock.py); text, each file and page as plain text
HaskellAs = Literal["api", "text"]
# Java files: api, each public or protected item with a javadoc comment a document, as
# javadoc reads it (collect/javaapi.py); text, each file as plain text
JavaAs = Literal["api", "text"]
# PHP files: api, each public item with a docblock a document, as phpDocumentor reads it
# (collect/phpapi.py); text, each file as plain text
PhpAs = Literal["api", "text"]
# Ruby files: api, each public item with a doc comment a document, as YARD reads it
# (collect/rubyapi.py); text, each file as plain text
RubyAs = Literal["api", "text"]
# Perl files (.pm, .pl, .pod): api, each read as its POD documentation, as perldoc shows
# it (collect/pod.py); text, each file as plain text
PerlAs = Literal["api", "text"]
# Sphinx's object descriptions in a page (`.. function::`, `.. class::`, `.. c:function::`
# in reStructuredText): api, each a document of its own, the rest of the page another
# (collect/sphinxobj.py); text, each page as one document
SphinxAs = Literal["api", "text"]
# Vim help files (doc/*.txt of Vim, Neovim and plugins): api, each tagged entry (a command,
# option, function, mapping) a document `vim:<tag>` as `:help` shows it, the rest of the file
# a page (collect/vimhelp.py); text, each file as plain text
VimAs = Literal["api", "text"]
# Protocol Buffers files: api, each documented message, field, enum, value, service and rpc a
# document `proto:<package>.<name>`, as protoc-gen-doc shows it (collect/protoapi.py); text,
# each file as plain text
ProtoAs = Literal["api", "text"]
# Lua files: api, each documented function, method, field and class a document
# `lua:<module>.<name>`, as LDoc and lua-language-server (LuaCATS) show it
# (collect/luaapi.py); text, each file as plain text
LuaAs = Literal["api", "text"]
# Clojure files: api, each public var with a docstring (function, macro, multimethod,
# protocol) and each namespace a document `clojure:<ns>/<name>`, as `doc` and codox show it
# (collect/cljapi.py); text, each file as plain text
ClojureAs = Literal["api", "text"]
# OCaml interfaces (.mli; a .ml without one): api, each documented value, type, exception,
# module and module type a document `ocaml:<Module>.<name>`, as odoc shows it
# (collect/mliapi.py); text, each file as plain text
OcamlAs = Literal["api", "text"]
# JSON Schema files (a config or file format's schema: *.schema.json, any .json or
# .schema.yaml an include reads that is one): api, each described setting a document
# `jsonschema:<schema>:<path>` (collect/jsonschema.py); text, each file as plain text
JsonSchemaAs = Literal["api", "text"]
# GraphQL schemas (SDL files: *.graphql, *.graphqls; an introspection result a .json an
# include reads holds): api, each described type, field, enum value and directive a
# document `graphql:<schema>:<Type>.<field>` (collect/graphqlapi.py); text, as plain text
GraphqlAs = Literal["api", "text"]
# Ansible modules and plugins (a .py file with a DOCUMENTATION string, a plugin's .yml
# doc): api, the plugin, each option and each return value a document
# `ansible:<fqcn>:<option>`, as ansible-doc shows them (collect/ansibledoc.py); text, the
# file as its language's reader reads it
AnsibleAs = Literal["api", "text"]
# Solidity files: api, each contract, function, modifier, event, error, struct and enum
# with NatSpec a document `solidity:<Contract>.<name>`, as solc's NatSpec shows it
# (collect/solapi.py); text, each file as plain text
SolidityAs = Literal["api", "text"]
# Emacs Lisp files: api, each documented function, command, macro, variable, user option,
# face, mode and package a document `elisp:<symbol>`, as C-h f and C-h v show it
# (collect/elispapi.py); text, each file as plain text
ElispAs = Literal["api", "text"]
# XML Schemas (.xsd: an XML format's schema, read by default): api, each documented element
# and attribute a document `xsd:<schema>:<path>` (collect/xsdapi.py); text, as plain text
XsdAs = Literal["api", "text"]
# Configuration files documented by their comments (redis.conf, php.ini, postgresql.conf,
# squid.conf; a YAML or TOML file written that way): api, each documented setting a
# document `config:<file>:<key>`, its line first (collect/confdoc.py); text, as plain text
ConfigAs = Literal["api", "text"]
# Puppet manifests (.pp): api, each documented class, defined type, type alias, function
# and plan a document `puppet:<name>`, each documented parameter `puppet:<name>:<param>`,
# as `puppet strings` shows them (collect/puppetapi.py); text, as plain text
PuppetAs = Literal["api", "text"]
# Swift files: api, each documented public or open declaration a document
# `swift:<Module>.<Type>.<selector>`, as DocC shows it (collect/swiftapi.py); text, as text
SwiftAs = Literal["api", "text"]
# Dart files: api, each documented public declaration of a package's libraries a document
# `dart:<package>[/<library>].<Name>.<member>`, as dartdoc shows it (collect/dartapi.py);
# text, as text
DartAs = Literal["api", "text"]
# Terraform (and OpenTofu) files: api, each module a document, each documented input
# variable and output its own (`terraform:<module>:var.<name>`), as terraform-docs shows
# them (collect/tfapi.py); text, as text
TerraformAs = Literal["api", "text"]
# Nix module files: api, each declared option a document `nix:<option path>`, as the NixOS
# and home-manager manuals show it, and RFC 145 doc comments of library functions
# (collect/nixapi.py); text, as text
NixAs = Literal["api", "text"]


class PythonStdlibSource(Strict):
    type: Literal["python_stdlib"]
    topics: bool = True  # pydoc_data.topics: the language reference
    docstrings: bool = True  # docstrings of stdlib modules, classes and functions
    modules: list[str] = Field(default_factory=list)  # restrict to these modules; [] = all
    max_documents: int | None = Field(default=None, ge=1)


class LocalSource(Strict):
    type: Literal["local"]
    path: str  # a file or folder; relative paths resolve against the YAML's folder
    # gzip-compressed files are read through, and each glob matches them too ("*.txt":
    # FAQ.txt.gz); *.info (GNU info manuals) a document a node; *.pdf their text layer;
    # README, a folder's plain-text introduction; *.ipynb Jupyter notebooks as the Markdown
    # they render to; AsciiDoc (*.adoc, and *.txt files written in it: Git's manual) as the
    # Markdown it renders to (collect/asciidoc.py); LaTeX (*.tex) as the Markdown a reader of
    # its PDF sees, \input files read in place (collect/latex.py); Texinfo (*.texi) as the
    # manual it makes, a document per node (collect/texinfo.py)
    include: list[str] = Field(
        default_factory=lambda: [
            "*.md",
            "*.mdx",
            "*.rst",
            "*.txt",
            "*.html",
            "*.htm",
            "*.pdf",
            "*.py",
            "*.info",
            "*.info.gz",
            "*.info-[0-9]*",
            "*.ipynb",
            "*.adoc",
            "*.asciidoc",
            "*.org",
            "*.docx",
            "*.odt",
            "*.epub",
            "*.pod",
            "*.rdoc",
            "*.mediawiki",
            "*.wiki",
            "*.Rd",
            "*.Rmd",
            "*.qmd",
            "*.proto",
            "*.tex",
            "*.texi",
            "*.texinfo",
            "README",
            *SPEC_NAMES,
        ]
    )
    exclude: list[str] = Field(default_factory=list)
    max_documents: int | None = Field(default=None, ge=1)
    # read links whose target is outside `path` (else skipped, counted symlink_outside)
    follow_symlinks: bool = False
    # Python files: api, their public modules, classes and functions with docstrings, a
    # document each (parsed, never imported), a script written as a notebook (`# %%` cells,
    # a gallery's example) the page it renders to (collect/pyscript.py), and a built page's
    # mkdocstrings or pdoc objects each one (collect/mkdocstrings.py, pdocsite.py); text,
    # each file as plain text
    python: PythonAs = "api"
    # JavaScript and TypeScript files (when an include glob reads them): api, each public
    # documented name a document from its JSDoc comment (scanned, never run), and a built
    # TypeDoc or JSDoc page's declarations each one (collect/typedoc.py, jsdocsite.py);
    # text, as text
    javascript: JavaScriptAs = "api"
    # SQL files (when an include glob reads them): api, each documented table, view, type
    # and routine a document from COMMENT ON and the comments over and beside it; text, as text
    sql: SqlAs = "api"
    # OpenAPI and Swagger specs (openapi.yaml, swagger.json; any .json/.yaml an include
    # reads): api, each operation a document named by its operationId and each described
    # schema one, the API's description the rest (collect/openapi.py); text, as text
    openapi: OpenApiAs = "api"
    # Go files (when an include glob reads them): api, each exported function, method, type,
    # field and constant with a doc comment a document, as go doc reads it; text, as text
    go: GoAs = "api"
    # Rust files (when an include glob reads them): api, each public function, method, type,
    # field, variant and constant with a doc comment a document, as rustdoc reads it (the
    # crate named by its Cargo.toml, read whatever the globs), and a built rustdoc page's
    # items each a document named the same way (collect/rustdoc.py); text, as text
    rust: RustAs = "api"
    # C and C++ headers (when an include glob reads them): api, each documented function,
    # type, field, enumerator and macro a document, as Doxygen reads it, and a built
    # Doxygen page's members (collect/doxygen.py) or GTK-Doc or gi-docgen page's symbols
    # (gtkdoc.py, gidocgen.py) each one named the same way; text, as text
    c: CAs = "api"
    # Java files (when an include glob reads them): api, each public or protected class,
    # interface, enum, record, method, constructor, field and enum constant with a javadoc
    # comment a document, as javadoc reads it (overloads one document), and a built javadoc
    # page's members each a document named the same way; text, as text
    java: JavaAs = "api"
    # PHP files (when an include glob reads them): api, each public or protected class,
    # method, constant and property with a docblock a document; text, as text
    php: PhpAs = "api"
    # Ruby files (when an include glob reads them): api, each public module, class, method,
    # attribute and constant with a doc comment a document (YARD tags read); text, as text
    ruby: RubyAs = "api"
    # Perl files (when an include glob reads them; *.pod by default): api, each its POD
    # documentation as perldoc shows it; text, as text
    perl: PerlAs = "api"
    # R documentation (*.Rd, read by default): api, each function a file's \usage shows a
    # document `r:<package>::<name>` as R's help shows it, the package named by the
    # DESCRIPTION over it (collect/rdoc.py); text, as text
    r: RAs = "api"
    # Kotlin files (when an include glob reads them): api, each public or protected class,
    # object, function, property and constructor with a KDoc comment a document, as Dokka
    # reads it (overloads one document); text, as text
    kotlin: KotlinAs = "api"
    # C# files (when an include glob reads them): api, each public or protected type and
    # member with a `///` XML doc comment a document (overloads one document); text, as text
    csharp: CSharpAs = "api"
    # Elixir files (when an include glob reads them): api, each module, function, macro,
    # type and callback with its doc a document `elixir:Enum.map/2`, as ExDoc shows it; text,
    # as text
    elixir: ElixirAs = "api"
    # Scala files (when an include glob reads them): api, each public or protected class,
    # trait, object, def, val and type with a Scaladoc comment a document, as Scaladoc reads
    # it (overloads one document); text, as text
    scala: ScalaAs = "api"
    # Haskell files (when an include glob reads them): api, each exported function, type,
    # class, method, constructor and field with a Haddock comment a document; text, as text
    haskell: HaskellAs = "api"
    # Protocol Buffers files (*.proto, read by default): api, each documented message, field,
    # oneof, enum, enum value, service, rpc and extension a document `proto:<package>.<name>`
    # with its declaration, as protoc-gen-doc shows it; text, as text
    proto: ProtoAs = "api"
    # Lua files (when an include glob reads them): api, each documented function, method,
    # field and class a document `lua:pl.List:append`, its LDoc or LuaCATS tags read; text,
    # as text
    lua: LuaAs = "api"
    # Clojure files (when an include glob reads them): api, each public var with a docstring
    # a document `clojure:clojure.string/join`, its arities first; text, as text
    clojure: ClojureAs = "api"
    # OCaml files (when an include glob reads them): api, each documented item of an .mli
    # a document `ocaml:Map.S.add`, its declaration first, odoc's markup and tags read;
    # text, as text
    ocaml: OcamlAs = "api"
    # JSON Schemas (*.schema.json; any .json an include reads that is one): api, each
    # described setting a document `jsonschema:github-workflows:jobs.<name>.runs-on`, its
    # type, default, allowed values and constraints; text, as text
    jsonschema: JsonSchemaAs = "api"
    # GraphQL schemas (*.graphql, *.graphqls; an introspection .json an include reads): api,
    # each described type, field, enum value and directive a document
    # `graphql:github:Repository.issues`, its declaration first; text, as text
    graphql: GraphqlAs = "api"
    # Ansible modules and plugins (their DOCUMENTATION, EXAMPLES, RETURN; doc fragments
    # merged, a collection named by its path or galaxy.yml): api, a document per plugin,
    # option (`ansible:ansible.builtin.copy:dest`) and return value; text, the .py file as
    # the python setting says
    ansible: AnsibleAs = "api"
    # Solidity files (when an include glob reads them): api, each item with NatSpec a
    # document `solidity:ERC20.transfer`, its declaration first, @inheritdoc resolved;
    # text, as text
    solidity: SolidityAs = "api"
    # Emacs Lisp files (when an include glob reads them; .el.gz too): api, each documented
    # symbol a document `elisp:magit-status`, its call first, as C-h f shows it; a
    # package's commentary its own; text, as text
    elisp: ElispAs = "api"
    # XML Schemas (*.xsd, read by default): api, each documented element and attribute a
    # document `xsd:web-app_4_0:web-app/session-config/session-timeout`, its type and
    # occurrence first; text, as text
    xsd: XsdAs = "api"
    # configuration files an include reads (*.conf, *.ini, *.cnf, *.cfg, php.ini-*,
    # sshd_config; a .yml/.yaml/.toml whose settings are documented by comments): api,
    # each documented setting a document `config:redis.conf:maxmemory-policy`, its line
    # first, its default when the file states it; text, as text
    config: ConfigAs = "api"
    # Puppet manifests (*.pp an include reads; a module's metadata.json names it): api,
    # each documented class, defined type, type alias, function and plan a document
    # `puppet:apache::vhost`, each documented parameter `puppet:ntp:servers`; text, as text
    puppet: PuppetAs = "api"
    # Swift files (*.swift an include reads; a package's Package.swift names its modules):
    # api, each documented public or open declaration a document
    # `swift:ArgumentParser.ParsableCommand.main(_:)`, its declaration first; text, as text
    swift: SwiftAs = "api"
    # Dart files (*.dart an include reads; pubspec.yaml names the package): api, each
    # documented public declaration a library exports a document `dart:http.Client.send`,
    # its declaration first; text, as text
    dart: DartAs = "api"
    # Terraform files (*.tf, *.tf.json an include reads): api, each module a document,
    # each documented variable and output its own (`terraform:terraform-aws-vpc:var.cidr`),
    # its type and default first; text, as text
    terraform: TerraformAs = "api"
    # Nix files (*.nix an include reads): api, each option a module declares a document
    # `nix:programs.git.signing.key`, its type first, its default and example; a module's
    # options listed; text, as text
    nix: NixAs = "api"
    # Sphinx's object descriptions in reStructuredText pages (*.rst, and *.txt written in
    # it), MyST Markdown pages and built HTML pages: api, each `.. function::`, `.. class::`, `.. method::`, `.. c:function::`,
    # `.. js:function::` a document named as Sphinx names it, the page's other text its own;
    # text, each page as one document
    sphinx: SphinxAs = "api"
    # Vim help files (*.txt whose first line is `*name.txt*`, or with an ft=help modeline):
    # api, each tagged entry (`:delete`, `'tabstop'`, `abs()`, a plugin's `:Git`) a document
    # `vim:<tag>` as `:help` shows it, the file's other text a page; text, as text
    vim: VimAs = "api"


class WebSource(Strict):
    """Documentation sites: start URLs, crawled breadth-first on the same site (or the
    allowlist), robots.txt respected, pages cached so a re-run fetches nothing twice."""

    type: Literal["web"]
    urls: list[str] = Field(min_length=1)
    allow: list[str] = Field(default_factory=list)  # host names; [] = the start URLs' hosts
    max_pages: int = Field(default=200, ge=1)
    depth: int = Field(default=2, ge=0)
    delay: float = Field(default=1.0, ge=0.0)  # seconds between requests to one host
    user_agent: str = "JupiterBot/0.1 (+https://github.com/jupiter; domain-data collector)"
    timeout: float = Field(default=20.0, gt=0.0)
    include: list[str] = Field(default_factory=list)  # URL path globs to keep; [] = all
    exclude: list[str] = Field(default_factory=list)
    # a built Sphinx page's object descriptions (docs.python.org, Read the Docs): api, each
    # a document of its own named by its anchor, the page's other text its own; text, the
    # page as one document
    sphinx: SphinxAs = "api"
    # a javadoc page's members (JDK 9 and later): api, each a document as the java reader
    # names it (`java:org.example.Util.trim`); text, the page as one document
    java: JavaAs = "api"
    # a rustdoc page's items (docs.rs): api, each a document as the rust reader names it
    # (`rust:once_cell::sync::OnceCell::get`); text, the page as one document
    rust: RustAs = "api"
    # a Doxygen page's members or a GTK-Doc or gi-docgen page's symbols: api, each a
    # document as the C and C++ header reader names it (`c:git_blob_lookup`); text, the page
    # as one document
    c: CAs = "api"
    # a page's objects mkdocstrings or pdoc rendered (a Python API reference): api, each a
    # document as the Python reader names it (`python:httpx.Client.get`); text, the page
    python: PythonAs = "api"
    # a TypeDoc or JSDoc page's declarations: api, each a document as the JavaScript
    # reader names it (`javascript:Command.option`); text, the page as one document
    javascript: JavaScriptAs = "api"
    # a YARD page's methods, attributes and constants (rubydoc.info): api, each a document as
    # the Ruby reader names it (`ruby:Rack::Request#get_header`); text, the page as one
    ruby: RubyAs = "api"
    # a Haddock page's functions, types, classes, methods, constructors and fields (Hackage's
    # docs): api, each a document as the Haskell reader names it (`haskell:Data.Aeson.encode`);
    # text, the page as one
    haskell: HaskellAs = "api"
    # an OpenAPI or Swagger spec a URL serves (application/json, YAML): api, each operation
    # and described schema a document (collect/openapi.py); text, such URLs are no pages
    openapi: OpenApiAs = "api"


class GitSource(Strict):
    """A git repository (URL or local path) at a commit: docs and code by glob."""

    type: Literal["git"]
    url: str  # https://…, git@…, or a local path (relative to the YAML)
    ref: str = "HEAD"  # a commit, tag or branch
    include: list[str] = Field(
        default_factory=lambda: [
            "*.md",
            "*.mdx",
            "*.rst",
            "*.txt",
            "*.py",
            "*.js",
            "*.mjs",
            "*.cjs",
            "*.jsx",
            "*.ts",
            "*.tsx",
            "*.go",
            "*.rs",
            "*.java",
            "*.kt",
            "*.cs",
            "*.ex",
            "*.scala",
            "*.hs",
            "*.lua",
            "*.clj",
            "*.cljc",
            "*.cljs",
            "*.mli",
            "*.sol",
            "*.el",
            "*.proto",
            "*.tex",
            "*.texi",
            "*.texinfo",
            "*.php",
            "*.rb",
            "*.pm",
            "*.pod",
            "*.rdoc",
            "*.mediawiki",
            "*.wiki",
            "*.Rd",
            "*.Rmd",
            "*.qmd",
            "*.h",
            "*.hpp",
            "*.sql",
            "*.ipynb",
            "*.adoc",
            "*.org",
            "*.[1-9]",
            *SPEC_NAMES,
        ]  # fmt: skip
    )
    exclude: list[str] = Field(default_factory=list)
    max_documents: int | None = Field(default=None, ge=1)
    python: PythonAs = "api"  # as for a local source
    javascript: JavaScriptAs = "api"  # as for a local source
    sql: SqlAs = "api"  # as for a local source
    openapi: OpenApiAs = "api"  # as for a local source
    go: GoAs = "api"  # as for a local source
    rust: RustAs = "api"  # as for a local source
    c: CAs = "api"  # as for a local source
    java: JavaAs = "api"  # as for a local source
    php: PhpAs = "api"  # as for a local source
    ruby: RubyAs = "api"  # as for a local source
    perl: PerlAs = "api"  # as for a local source
    r: RAs = "api"  # as for a local source
    kotlin: KotlinAs = "api"  # as for a local source
    csharp: CSharpAs = "api"  # as for a local source
    elixir: ElixirAs = "api"  # as for a local source
    scala: ScalaAs = "api"  # as for a local source
    haskell: HaskellAs = "api"  # as for a local source
    sphinx: SphinxAs = "api"  # as for a local source
    vim: VimAs = "api"  # as for a local source
    proto: ProtoAs = "api"  # as for a local source
    lua: LuaAs = "api"  # as for a local source
    clojure: ClojureAs = "api"  # as for a local source
    ocaml: OcamlAs = "api"  # as for a local source
    jsonschema: JsonSchemaAs = "api"  # as for a local source
    graphql: GraphqlAs = "api"  # as for a local source
    ansible: AnsibleAs = "api"  # as for a local source
    solidity: SolidityAs = "api"  # as for a local source
    elisp: ElispAs = "api"  # as for a local source
    xsd: XsdAs = "api"  # as for a local source
    config: ConfigAs = "api"  # as for a local source
    puppet: PuppetAs = "api"  # as for a local source
    swift: SwiftAs = "api"  # as for a local source
    dart: DartAs = "api"  # as for a local source
    terraform: TerraformAs = "api"  # as for a local source
    nix: NixAs = "api"  # as for a local source


# what a dataset source's `columns` may map to column names
DATASET_ROLES = ("text", "question", "answer", "messages", "id", "title")


class DatasetSource(Strict):
    """JSONL, Parquet or CSV files, or a Hugging Face `datasets` dir saved on disk."""

    type: Literal["dataset"]
    path: str  # a file, or a dir (save_to_disk output); relative to the YAML
    # column mapping: the text, or a question/answer pair, or a messages column; plus id
    columns: dict[str, str] = Field(default_factory=lambda: {"text": "text"})
    max_documents: int | None = Field(default=None, ge=1)

    @field_validator("columns")
    @classmethod
    def _check_columns(cls, columns: dict[str, str]) -> dict[str, str]:
        unknown = sorted(set(columns) - set(DATASET_ROLES))
        if unknown:
            raise ValueError(
                f"unknown role(s) {', '.join(unknown)}: map {', '.join(DATASET_ROLES)} to "
                "column names"
            )
        modes = [
            m for m in (("text",), ("question", "answer"), ("messages",)) if set(m) & set(columns)
        ]
        if len(modes) != 1 or not set(modes[0]) <= set(columns):
            raise ValueError(
                "map exactly one of text, question + answer, or messages to a column, "
                f"got {', '.join(sorted(columns)) or 'none'}"
            )
        return columns


class PlaybookSource(Strict):
    """Agent playbooks and interaction logs (JSONL: agent, domain, score, success_rate,
    interactions, content), kept by quality and the top k per domain."""

    type: Literal["playbooks"]
    path: str
    min_score: float = 0.0  # graduation score
    min_interactions: int = Field(default=0, ge=0)
    min_success_rate: float = Field(default=0.0, ge=0.0, le=1.0)
    top_k: int = Field(default=5000, ge=1)  # per domain, by score


CodeLanguage = Literal["python", "javascript", "sql"]
CODE_LANGUAGES: tuple[CodeLanguage, ...] = ("python", "javascript", "sql")


class ExecLogSource(Strict):
    """Code execution logs (JSONL: code, language, stdout, stderr, exit_code, timestamp)."""

    type: Literal["exec_logs"]
    path: str
    languages: list[CodeLanguage] = Field(default_factory=lambda: list(CODE_LANGUAGES))
    successful_only: bool = True
    since: DateText | None = None  # ISO 8601 date or time; None = no bound
    until: DateText | None = None
    min_quality: float = Field(default=0.0, ge=0.0, le=1.0)

    @model_validator(mode="after")
    def _check_window(self) -> ExecLogSource:
        if self.since and self.until and _moment(self.since) > _moment(self.until):
            raise ValueError(
                f"since ({self.since}) is after until ({self.until}): no run "
                "can fall between them; swap them or drop one"
            )
        return self


def _moment(text: str) -> datetime:
    """An ISO date or time as an aware datetime (a date is its midnight, UTC)."""
    text = text.strip()
    text = text[:-1] + "+00:00" if text.endswith(("Z", "z")) else text
    when = datetime.fromisoformat(text)
    return when if when.tzinfo else when.replace(tzinfo=timezone.utc)


SOURCE_TYPES = ("python_stdlib", "local", "web", "git", "dataset", "playbooks", "exec_logs")
Source = Annotated[
    PythonStdlibSource
    | LocalSource
    | WebSource
    | GitSource
    | DatasetSource
    | PlaybookSource
    | ExecLogSource,
    Field(discriminator="type"),
]


class Chunking(Strict):
    max_chars: int = Field(default=1500, ge=100)
    overlap: int = Field(default=150, ge=0)
    # documents kept out of training for bpb and the auto eval set; at most half, so the
    # student has something to train on
    heldout_fraction: float = Field(default=0.05, ge=0.0, le=0.5)


class LLMConfig(Strict):
    """An LLM behind one of the backends: an OpenAI-compatible server (Ollama, llama.cpp,
    vLLM, LM Studio, mlx_lm.server, TGI, `jupiter serve`), a local model dir loaded with
    transformers or mlx-lm, or the generator endpoints of cluster.yaml load-balanced."""

    backend: Literal["openai", "transformers", "mlx", "cluster"] = "openai"
    base_url: str = "http://127.0.0.1:11434/v1"  # openai: the server's /v1 root (Ollama's)
    # openai: the served model's name; transformers / mlx: a model reference (a folder
    # relative to the YAML, a Hub id, a .gguf file or ollama:NAME; see models/reference.py)
    model: str = ""
    api: Literal["chat", "completions"] = "chat"  # openai: which endpoint
    api_key_env: str = ""  # openai: environment variable holding the API key; "" = none
    concurrency: int = Field(default=8, ge=1)  # requests in flight at once
    max_batch: int = Field(default=16, ge=1)  # transformers / mlx: prompts per forward pass
    timeout: float = Field(default=120.0, gt=0)  # seconds per request
    max_retries: int = Field(default=5, ge=0)  # on timeouts, 429 and 5xx, backing off
    temperature: float = Field(default=0.7, ge=0.0)
    top_p: float = Field(default=1.0, gt=0.0, le=1.0)
    max_tokens: int = Field(default=512, ge=1)
    # the recipe's JSON schema sent to the server, which then decodes only answers that
    # match it: json_schema = OpenAI's form (OpenAI, vLLM, llama.cpp's llama-server, Ollama,
    # LM Studio), json_object = {"type": "json_object", "schema": ...} (llama-cpp-python's
    # server, llama-server); text = none. The parser checks every answer either way.
    response_format: Literal["text", "json_schema", "json_object"] = "text"

    @model_validator(mode="after")
    def _check_model(self) -> LLMConfig:
        if self.backend in ("transformers", "mlx") and not self.model.strip():
            raise ValueError(
                f"backend {self.backend} loads a model here: set model to a model folder, a "
                ".gguf file, a Hub id or ollama:NAME (or use backend openai with a server)"
            )
        if self.backend in ("transformers", "mlx") and self.response_format != "text":
            raise ValueError(
                f"response_format {self.response_format} is decoded by a server: backend "
                f"{self.backend} has no constrained decoding (set response_format: text)"
            )
        if self.api == "completions" and self.response_format != "text":
            raise ValueError(
                f"response_format {self.response_format} goes with api: chat (the chat "
                "endpoint takes a response_format; set api: chat or response_format: text)"
            )
        return self


Recipe = Literal["grounded_qa", "explanation", "code_exercise", "evol_instruct", "multi_turn"]


class TaskConfig(Strict):
    """One task recipe of an LLM generator: a prompt template and a strict output parser."""

    recipe: Recipe
    count: int | None = Field(default=None, ge=0)  # requests per cycle; else by weight
    weight: float = Field(default=1.0, ge=0.0)  # share of generator.num_requests
    topics: list[str] = Field(default_factory=list)  # [] = the domain's topics
    system_prompt: str = ""  # the teacher's system message; "" = the recipe's own
    language: str = ""  # the output language; "" = the domain's
    template: str = ""  # an edited prompt template (Jinja2); "" = the shipped one
    temperature: float | None = Field(default=None, ge=0.0)  # None: the llm's


class RaftConfig(Strict):
    """RAFT examples (Zhang et al. 2024, "RAFT: Adapting Language Model to Domain Specific
    RAG"): a share of Q&A pairs asked open-book, the gold passage among distractors."""

    enabled: bool = False
    fraction: float = Field(default=0.3, ge=0.0, le=1.0)  # of Q&A examples, seeded draw
    distractors: int = Field(default=3, ge=0)  # the question's `retrieval` neighbours, other chunks
    # the paper's P: with 1 - p_gold the gold passage is left out, so the model also learns
    # to answer from what it knows when retrieval misses (RAFT found P = 0.8 best on most sets)
    p_gold: float = Field(default=0.8, ge=0.0, le=1.0)
    # characters per passage (the gold one centred on the quoted answer): 4 passages of a
    # 1500-character chunk would pass filters.max_chars (4000); 0 = whole chunks
    passage_chars: int = Field(default=700, ge=0)


# the extractive question templates (synth/questions.py TEMPLATES holds their code)
QUESTION_TEMPLATES = (
    "what_does",
    "arguments",
    "returns",
    "difference",
    "explain_topic",
    "signature",
    "define",
    "example",
    "cloze",
)


class RephraseConfig(Strict):
    """generator.rephrase: an LLM teacher's phrasings (synth/rephrase.py). For each accepted
    single-turn Q&A of a cycle the teacher writes `count` more questions the same answer
    answers, in a user's words (a task or situation, the other direction, other words); the
    answer stays the accepted one. Run at the end of the filter stage, filtered like any
    example. 0: off."""

    count: int = Field(default=0, ge=0, le=8)
    llm: LLMConfig | None = None  # the teacher; None: generator.llm (generator.type llm)
    template: str = ""  # an edited prompt template (Jinja2); "" = recipes/rephrase.j2
    max_sources: int | None = Field(default=None, ge=1)  # Q&A rephrased a cycle; None: all


class GeneratorConfig(Strict):
    type: Literal["extractive", "model", "llm"] = "extractive"
    # for type "model": a model reference (folder, Hub id, .gguf or ollama:NAME)
    model_path: str | None = None
    # type llm: a local LLM teacher writes the data through task recipes
    llm: LLMConfig = Field(default_factory=LLMConfig)
    tasks: list[TaskConfig] = Field(
        default_factory=lambda: [TaskConfig(recipe="grounded_qa")], min_length=1
    )
    num_requests: int = Field(default=200, ge=1)  # per cycle, shared by the tasks' weights
    templates: list[str] = Field(default_factory=lambda: list(QUESTION_TEMPLATES))
    max_questions_per_chunk: int = Field(default=3, ge=1)
    continuation: bool = True  # also queue raw-text continuation examples
    raft: RaftConfig = Field(default_factory=RaftConfig)  # extractive Q&A asked open-book
    rephrase: RephraseConfig = Field(default_factory=RephraseConfig)  # a teacher's phrasings
    max_new_tokens: int = Field(default=96, ge=1)  # for model generators
    seed: Seed = 0

    @field_validator("templates")
    @classmethod
    def _check_templates(cls, value: list[str]) -> list[str]:
        unknown = [t for t in value if t not in QUESTION_TEMPLATES]
        if unknown or not value:
            got = f"unknown template '{unknown[0]}'" if unknown else "no template"
            raise ValueError(f"{got}: list one or more of {', '.join(QUESTION_TEMPLATES)}")
        return value

    @model_validator(mode="after")
    def _check(self) -> GeneratorConfig:
        if self.type == "model" and not self.model_path:
            raise ValueError(
                "type model needs model_path: a model folder, .gguf file, Hub id or "
                "ollama:NAME (or set type: extractive or llm)"
            )
        if self.rephrase.count and self.rephrase.llm is None and self.type != "llm":
            raise ValueError(
                "rephrase.count needs an LLM teacher: set generator.rephrase.llm (e.g. "
                "{base_url: http://127.0.0.1:11434/v1, model: NAME}) or generator.type: llm, "
                "or set rephrase.count: 0"
            )
        return self


class DedupConfig(Strict):
    exact: bool = True
    near: bool = True
    threshold: float = Field(default=0.8, gt=0.0, le=1.0)  # Jaccard similarity
    num_perm: int = Field(default=128, ge=16, le=4096)  # 4096: 32x the default's work
    bands: int = Field(default=16, ge=1)  # LSH bands of num_perm / bands rows each
    shingle: int = Field(default=5, ge=1)  # word n-gram size
    memory_mb: int = Field(default=256, ge=1)  # near-dedup index in memory; beyond it, on disk

    @model_validator(mode="after")
    def _check(self) -> DedupConfig:
        if self.bands > self.num_perm or self.num_perm % self.bands:
            fits = [b for b in (4, 8, 16, 32, 64) if self.num_perm % b == 0]
            raise ValueError(
                f"bands ({self.bands}) must divide num_perm ({self.num_perm}) into rows of "
                f"equal size: e.g. bands {' or '.join(map(str, fits[:3])) or 1}"
            )
        return self


class JudgeConfig(Strict):
    """LLM-as-judge: a rubric score from 1 to 5 through any backend; below threshold, drop."""

    enabled: bool = False
    threshold: int = Field(default=3, ge=1, le=5)
    llm: LLMConfig | None = None  # None: the generator's llm
    template: str = ""  # an edited rubric prompt (Jinja2); "" = the shipped one


class FilterConfig(Strict):
    min_chars: int = Field(default=20, ge=0)
    max_chars: int = Field(default=4000, ge=1)
    min_answer_chars: int = Field(default=8, ge=0)
    max_dup_line_fraction: float = Field(default=0.3, ge=0.0, le=1.0)
    max_top_ngram_fraction: float = Field(default=0.2, ge=0.0, le=1.0)
    max_char_repeat_fraction: float = Field(default=0.3, ge=0.0, le=1.0)
    dedup: DedupConfig = Field(default_factory=DedupConfig)
    # decontamination against the eval questions: "ngram13" = any shared 13-gram (an item
    # under 13 words: the whole item), on text normalised so rewrapped lines still match;
    # "overlap" = a share of the item's decontam_ngram-grams
    decontam_method: Literal["ngram13", "overlap"] = "ngram13"
    decontam_ngram: int = Field(default=8, ge=3)
    decontam_threshold: float = Field(default=0.5, gt=0.0, le=1.0)
    # document-quality rules (filters/quality.py cites each threshold's source)
    gopher_quality: bool = False  # Gopher word, symbol, bullet, stop-word rules
    gopher_min_words: int = Field(default=5, ge=0)  # Gopher's 50 is for web pages
    gopher_repetition: bool = True  # Gopher duplicate line / paragraph / n-gram rules
    fineweb: bool = False  # FineWeb line rules (punctuation, short lines, duplicates)
    c4: bool = False  # C4 page rules (lorem ipsum, too few sentence lines)
    c4_reject_curly_bracket: bool = False  # C4 drops pages with "{"; code needs braces
    language_filter: bool = True  # keep text in the domain's `language`
    language_min_confidence: float = Field(default=0.65, ge=0.0, le=1.0)
    # shorter prose (code removed) is kept unjudged: on a signature and one sentence of API
    # docs, character n-grams guess other languages (log10, factorial, as_uri: measured)
    language_min_chars: int = Field(default=200, ge=0)
    relevance: bool = False  # keep text about the domain's topics and keywords
    relevance_min_score: float = Field(default=0.3, ge=0.0)
    judge: JudgeConfig = Field(default_factory=JudgeConfig)


# model.chat_template names (data/templates.py writes them), or a path to a .jinja file
CHAT_TEMPLATES = ("auto", "chatml", "gemma", "llama3", "mistral")


class ModelSection(Strict):
    preset: Literal["tiny", "small", "125m", "500m", "1b"] = "tiny"  # from scratch
    # or fine-tune an existing causal LM (Llama, Mistral, Qwen2, Gemma …): an HF folder
    # (relative to the YAML), a Hub id from the local HF cache, a .gguf file or ollama:NAME,
    # a GGUF imported once into runs/<domain>/models/ (models/reference.py). With a base
    # model, its own tokenizer and chat template are used and `preset`, `vocab_size` are
    # ignored.
    base: str | None = None
    # upper bounds: Gemma 3's 262,144-token vocabulary, Llama 3.1's 128K context; beyond
    # them a from-scratch model cannot be built in any memory
    vocab_size: int = Field(default=4096, ge=300, le=262_144)
    context_length: int = Field(default=256, ge=16, le=131_072)
    attention: Literal["auto", "sdpa", "flash_attention_2", "eager"] = "auto"
    # auto: the tokenizer's own template; a base model without one gets its family's
    # (gemma, llama3, mistral, chatml) or Jupiter's generic one. A name forces it; a
    # PATH.jinja (relative to the YAML) is read.
    chat_template: str = "auto"

    @field_validator("chat_template")
    @classmethod
    def _check_template(cls, value: str) -> str:
        if value not in CHAT_TEMPLATES and not value.endswith(".jinja"):
            raise ValueError(
                f"unknown chat template: choose {', '.join(CHAT_TEMPLATES)}, or a path to a "
                ".jinja file"
            )
        return value


class LoraConfig(Strict):
    """LoRA (Hu et al. 2021) defaults from the docs: r 64, alpha 128, dropout 0.05, on every
    attention and MLP projection ("all-linear" excludes the output head)."""

    r: int = Field(default=64, ge=1)
    alpha: int = Field(default=128, ge=1)
    dropout: float = Field(default=0.05, ge=0.0, lt=1.0)
    target_modules: list[str] | Literal["all-linear"] = "all-linear"
    # LoRA-FA: A stays at a start every engine draws the same from the seed, only B trains
    # (models/lora_fa.py): half the adapter trained and synced, and averaging B across
    # islands or federated clients averages the adapters' updates exactly
    freeze_a: bool = False


# what a consensus member's train config may change (train.consensus.strategies)
STRATEGY_KEYS = (
    "method",
    "lora",
    "lr",
    "min_lr",
    "warmup_steps",
    "epochs",
    "max_steps",
    "weight_decay",
    "raw_text_fraction",
    "grad_accum",
    "micro_batch_size",
)


Vary = Literal["seed", "shard", "strategy"]


class ConsensusConfig(Strict):
    """train.consensus: N members trained from the same start, voted on and merged
    (improve/consensus.py). Each member differs by what `vary` names: its seed (seed + i),
    its shard of the examples (i of N, by a hash of the example id), or its strategy
    (strategies[i % len], train keys such as method, lr, lora)."""

    members: int = Field(default=3, ge=2, le=16)
    vary: list[Vary] = Field(default_factory=lambda: list[Vary](["seed"]))
    strategies: list[dict[str, Any]] = Field(default_factory=list)
    # the merge goes ahead when at least this share of the members agree (are not outliers)
    threshold: float = Field(default=0.75, gt=0.0, le=1.0)
    # a member is an outlier when its weights lie further than max_distance × the median
    # member's distance from the coordinate-wise median, or its validation loss is above
    # (1 + max_loss_gap) × the median member's, or either is not finite
    max_distance: float = Field(default=3.0, gt=1.0)
    max_loss_gap: float = Field(default=0.10, ge=0.0)
    # of the agreeing members; greedy_soup and convex are fitted on the members' validation
    merge: Literal["linear", "greedy_soup", "convex", "median", "trimmed_mean", "ties"] = "linear"

    @model_validator(mode="after")
    def _check(self) -> ConsensusConfig:
        if "strategy" in self.vary and not self.strategies:
            raise ValueError("vary: strategy needs strategies: [{method: lora}, ...]")
        if self.strategies and "strategy" not in self.vary:
            raise ValueError("strategies are given but vary does not name strategy: add it")
        for i, st in enumerate(self.strategies):
            bad = [k for k in st if k not in STRATEGY_KEYS]
            if bad:
                raise ValueError(
                    f"strategies[{i}]: '{bad[0]}' cannot vary between members "
                    f"(use {', '.join(STRATEGY_KEYS)})"
                )
        return self


MetricsBackend = Literal["tensorboard", "wandb", "mlflow"]
DEFAULT_METRICS: tuple[MetricsBackend, ...] = ("tensorboard",)
MAX_STEPS = 10_000_000  # at 1 s a step, 116 days: 1e20 steps would never finish
MAX_EPOCHS = 1000
MAX_MICRO_BATCH = 4096


def _step_cap(value: Any) -> Any:
    """A number of steps beyond MAX_STEPS said as such (1e20 is a float too large for an
    int, which pydantic would report as a parsing error)."""
    if isinstance(value, int | float) and not isinstance(value, bool) and value > MAX_STEPS:
        raise ValueError(
            f"at most {MAX_STEPS:,} steps: lower it, or leave it unset to train by epochs"
        )
    return value


StepCount = Annotated[int, BeforeValidator(_step_cap), Field(ge=1)]


class KnowledgeConfig(Strict):
    """train.knowledge: per templated Q&A fact, `phrasings` more wordings of the question
    (name -> fact), `reverse` questions from the fact to the name, a usage question ("How do
    I ...?" -> "Use `X`"); per raw text, `permuted_copies` copies with the sentences of each
    paragraph in a new order (Allen-Zhu & Li 2023); `sentences` questions about every prose
    sentence of the documents (its condition <-> its effect, a name it holds <-> the
    sentence), not only the templated answers' first sentences; `definitions`: every
    definition of the documents (option, keyword, term, parameter) a fact of its own, asked
    like the generator's (which asks a few a chunk). All 0/false: the examples as queued."""

    phrasings: int = Field(default=0, ge=0, le=4)
    reverse: int = Field(default=0, ge=0, le=3)
    usage: bool = False
    permuted_copies: int = Field(default=0, ge=0, le=4)
    sentences: int = Field(default=0, ge=0, le=4)
    definitions: bool = False

    @property
    def enabled(self) -> bool:
        return bool(
            self.phrasings
            or self.reverse
            or self.usage
            or self.permuted_copies
            or self.sentences
            or self.definitions
        )


class ReplayConfig(Strict):
    """train.replay: `fraction` of the trained tokens are text the base wrote itself from bos
    (sampled once per base, cached in the workspace: improve/replay.py), so the student keeps
    the base's general ability. 0: no replay."""

    fraction: float = Field(default=0.0, ge=0.0, lt=1.0)
    samples: int = Field(default=64, ge=1, le=10_000)
    max_tokens: int = Field(default=192, ge=8, le=4096)
    # temperature 1 and no nucleus cut: the samples follow the base's own distribution, so
    # training on them pulls the student toward the base (a Monte-Carlo KL to it)
    temperature: float = Field(default=1.0, gt=0.0, le=2.0)
    top_p: float = Field(default=1.0, gt=0.0, le=1.0)
    # ce: cross-entropy on the sampled tokens; kl: the KL from the base's whole next-token
    # distribution at each of them instead (the base with its adapter off, or a frozen copy
    # of the start: one teacher forward without gradients per micro-batch; torch loop only)
    loss: Literal["ce", "kl"] = "ce"


class DistillConfig(Strict):
    """train.distill, for train.objective distill / sft+distill (context distillation: Snell
    et al. 2022): the teacher sees each Q&A's chunk before the question, the student the
    question alone; the student learns the teacher's next-token distribution on the answer."""

    # "base": the base model itself (LoRA: its adapter disabled; full: a frozen copy of the
    # run's starting weights), or an HF model dir relative to the YAML (same tokenizer)
    teacher: str = "base"
    kl_weight: float = Field(default=1.0, gt=0.0)  # the KL's weight beside the cross-entropy
    # softens both distributions; the KL is scaled by T^2 (Hinton et al. 2015)
    temperature: float = Field(default=1.0, gt=0.0)


class TrainConfig(Strict):
    method: Literal["full", "lora", "qlora"] = "full"
    lora: LoraConfig = Field(default_factory=LoraConfig)
    # Length: max_steps when set; else `epochs` over the data ("auto": 5 below 1k examples,
    # 4 to 10k, 3 to 50k, 2 to 100k, 1 above).
    epochs: int | Literal["auto"] = "auto"
    max_steps: StepCount | None = None
    # "auto": from the node's memory, the model size and the method (see models/memory.py)
    micro_batch_size: int | Literal["auto"] = "auto"
    grad_accum: int = Field(default=1, ge=1)
    # when set, grad_accum = global_batch_size / (micro_batch_size × world size)
    global_batch_size: int | None = Field(default=None, ge=1)
    lr: float = Field(default=3e-3, gt=0)
    min_lr: float = Field(default=3e-4, ge=0)
    warmup_steps: int = Field(default=30, ge=0)
    weight_decay: float = Field(default=0.1, ge=0)
    grad_clip: float = Field(default=1.0, gt=0)
    beta1: float = Field(default=0.9, ge=0.0, lt=1.0)  # Adam's betas lie in [0, 1)
    beta2: float = Field(default=0.95, ge=0.0, lt=1.0)
    # The mix (data/dataset.py mix_examples): raw domain text is capped at raw_text_fraction
    # of the trained tokens (0: none; 1: raw text only), but the cap never cuts it below
    # min_corpus_share of the train-split corpus per epoch, so scarce Q&A cannot starve it.
    # 1: every raw text, every epoch (as Axolotl and torchtune use each dataset whole);
    # 0: the bare cap, i.e. raw text cut to the chats' size.
    raw_text_fraction: float = Field(default=0.5, ge=0.0, le=1.0)
    min_corpus_share: float = Field(default=1.0, ge=0.0, le=1.0)
    # the order one epoch reads them in: "mixed", Q&A interleaved with the raw text in one
    # shuffle (Jiang et al. 2024: knowledge is taken in better with the Q&A beside the
    # documents than after them); "documents_first", the raw text packed into rows of its
    # own and each epoch's document rows read before its Q&A rows (continued pretraining,
    # then instruction tuning, in one run; the same rows a shorter run reads, reordered)
    order: Literal["mixed", "documents_first"] = "mixed"
    # the knowledge recipe (synth/knowledge.py): each fact asked several ways and both
    # directions, raw text in more than one sentence order; added when the data are packed
    knowledge: KnowledgeConfig = Field(default_factory=lambda: KnowledgeConfig())
    replay: ReplayConfig = Field(default_factory=lambda: ReplayConfig())
    # sft: cross-entropy on the gold answers; distill: the KL to a teacher that sees each Q&A's
    # chunk (train.distill), on the answer tokens; sft+distill: both. Torch loop only
    objective: Literal["sft", "distill", "sft+distill"] = "sft"
    distill: DistillConfig = Field(default_factory=lambda: DistillConfig())
    precision: Literal["auto", "bf16", "fp16", "fp32"] = "auto"
    gradient_checkpointing: bool | Literal["auto"] = "auto"
    compile: bool = False
    # the next-token loss: "fused" projects hidden states chunk by chunk and never holds the
    # whole vocabulary's logits (models/loss.py); "auto" takes it wherever the head allows
    # (not under FSDP or DeepSpeed, which shard it), with Liger's Triton kernel on CUDA when
    # liger-kernel is installed; "fused" = always Jupiter's torch chunks; "liger" = Liger's
    # kernel or a clear error; "plain" = logits + cross_entropy
    loss: Literal["auto", "fused", "liger", "plain"] = "auto"
    # the softmax of the training loss: "full" over the whole vocabulary; "corpus" over the
    # tokens of this run's training rows and a fresh sample of the others (train/loss.py
    # CorpusVocab, a sampled softmax): Gemma 3 270M LoRA steps ~4x faster on CPU, but a
    # 200-step run lost general text (docs/BENCHMARKS.md), so opt-in. Held-out loss, eval
    # and generation keep the whole vocabulary. Torch loop only.
    vocab: Literal["full", "corpus"] = "full"
    # RMSNorms keep their input for backward instead of fp32 copies (train/norm.py): the
    # same forward bit for bit, less memory; not under FSDP or DeepSpeed
    fused_norm: bool = True
    distributed: Literal["ddp", "fsdp", "deepspeed"] = "ddp"  # with more than one process
    zero_stage: Literal[2, 3] = 2  # for distributed: deepspeed
    checkpoint_every: int = Field(default=100, ge=1)  # steps
    checkpoint_every_epoch: bool = True
    keep_checkpoints: int = Field(default=2, ge=1)  # the newest K, plus the best
    resume: Literal["auto", "never"] = "auto"
    eval_every: int = Field(default=50, ge=1)  # held-out loss every N steps
    heldout_fraction: float = Field(default=0.02, ge=0.0, lt=0.5)  # examples kept out
    log_every: int = Field(default=10, ge=1)
    # metrics.jsonl is always written; these besides it
    metrics: list[MetricsBackend] = Field(default_factory=lambda: list(DEFAULT_METRICS))
    wandb_project: str = ""
    mlflow_tracking_uri: str = ""
    memory_gb: float | None = Field(default=None, gt=0)  # default: the device's own memory
    seed: Seed = 1234
    # previous: cycle > 1 continues the last student; base (or scratch): every cycle's
    # student starts again from model.base, or from fresh weights without one (anti-collapse)
    init: Literal["previous", "base", "scratch"] = "previous"
    # several members and a Byzantine-tolerant vote instead of one run (None: one run)
    consensus: ConsensusConfig | None = None

    @model_validator(mode="after")
    def _check(self) -> TrainConfig:
        if self.epochs != "auto" and not 1 <= self.epochs <= MAX_EPOCHS:
            raise ValueError(f"epochs must be from 1 to {MAX_EPOCHS} (or auto)")
        if self.micro_batch_size != "auto" and not 1 <= self.micro_batch_size <= MAX_MICRO_BATCH:
            raise ValueError(f"micro_batch_size must be from 1 to {MAX_MICRO_BATCH} (or auto)")
        if self.consensus is not None:
            for i in range(len(self.consensus.strategies)):
                try:  # each member's train config must itself be valid
                    self.member_config(i)
                except ValidationError as err:
                    e = err.errors()[0]
                    where = ".".join(str(p) for p in e["loc"])
                    raise ValueError(f"consensus.strategies[{i}]: {where}: {e['msg']}") from None
        return self

    def member_config(self, i: int) -> TrainConfig:
        """Consensus member i's train config: its seed and strategy applied, no consensus."""
        c = self.consensus
        assert c is not None
        data = self.model_dump(exclude={"consensus"})
        if "seed" in c.vary:
            data["seed"] = self.seed + i
        if "strategy" in c.vary:
            data |= c.strategies[i % len(c.strategies)]
        return TrainConfig.model_validate(data)


class CurriculumLevel(Strict):
    """One level of hierarchical training: its datasets, run after the previous level and
    starting from its weights."""

    name: Name
    # JSONL files (messages, alpaca, sharegpt, completions, Mistral text or {"text": ...}
    # documents), or "queue" for the cycle's accepted examples; relative to the YAML
    datasets: list[str] = Field(min_length=1)
    epochs: int | Literal["auto"] = "auto"
    max_steps: StepCount | None = None
    lr: float | None = Field(default=None, gt=0)  # default: train.lr

    @model_validator(mode="after")
    def _check(self) -> CurriculumLevel:
        if self.epochs != "auto" and not 1 <= self.epochs <= MAX_EPOCHS:
            raise ValueError(f"epochs must be from 1 to {MAX_EPOCHS} (or auto)")
        return self


class EvalConfig(Strict):
    # JSONL of {id, question, answer, source}; relative to the YAML's folder. Unset: an eval
    # set is made from the held-out documents at the first eval and frozen in the workspace
    qa_path: str = ""
    auto_max_items: int = Field(default=300, ge=1)  # cap on that automatic set
    # the exam in a user's words (improve/exams.py): multiple-choice JSONL whose items carry
    # a `source` and a verbatim `quote` (eval/userexam.py); scored beside the own exam by
    # every eval, the gate and the report. "" = none
    user_exam_path: str = ""
    user_exam_max_items: int | None = Field(default=None, ge=1)
    max_items: int | None = Field(default=None, ge=1)
    # at most 10: the LLM teacher sits multiple choice by letter, A to J
    mc_choices: int = Field(default=4, ge=2, le=10)
    # hard: answers of the same type, source kind and topic, nearest to the question (BM25);
    # random: any other items' answers, which a retriever tells apart by topic alone;
    # llm: written by the LLM teacher (config/recipes/distractors.j2), checked, topped up
    # with hard ones; auto: llm when the domain has a teacher (generator.type llm, or an
    # eval.judge_llm), else hard (eval/distractors.py)
    mc_distractors: Literal["auto", "hard", "random", "llm"] = "auto"
    max_new_tokens: int = Field(default=48, ge=1)
    heldout_max_bytes: int = Field(default=200_000, ge=1000)
    # general ability (forgetting shows here): bits-per-byte on text outside the domain, a
    # file or a folder of .txt/.md/.rst relative to the YAML; "" = the bundled English sample
    general_path: str = ""
    general_max_bytes: int = Field(default=40_000, ge=0)  # 0: not measured
    # pairwise LLM-as-judge of the student's answers against the generator's, both orders
    # judged (position bias cancels); judge_llm None: filters.judge.llm, else generator.llm
    judge: bool = False
    judge_llm: LLMConfig | None = None
    # open book (RAFT, Zhang et al. 2024): every model answers with the top_k passages of
    # the training chunks (`retrieval`) before the question, like the extractive generator,
    # which always answers by retrieval: the comparison is then like with like
    open_book: bool = False
    top_k: int = Field(default=3, ge=1)
    seed: Seed = 0
    # the weights' dtype while models sit the exam (every model of a comparison takes the
    # same one): "auto" is bf16 on CUDA and on a CPU that runs bf16 natively (AVX-512 BF16
    # or AMX), fp32 elsewhere. Gemma 3 270M on 2 AVX-512 BF16 cores: bf16 1.8x faster QA
    # decoding (batch 16) and 1.9x faster multiple choice than fp32
    dtype: Literal["auto", "float32", "bfloat16", "float16"] = "auto"
    # general benchmarks of lm-evaluation-harness (hellaswag, arc_easy, mmlu ...) run through
    # its Python API on the student and the untrained/base model at every eval, when their
    # datasets are in the local HF cache (a task whose dataset is not is skipped with a
    # warning saying how to fetch it); results in the cycle's eval.json under lm_eval
    lm_eval_tasks: list[Annotated[str, Field(pattern=r"^[A-Za-z0-9_.\-]+$")]] = Field(
        default_factory=list
    )
    lm_eval_limit: int | None = Field(default=None, ge=1)  # items per task; None = all
    lm_eval_fewshot: int | None = Field(default=None, ge=0)  # None: each task's own default
    lm_eval_include: str = ""  # a folder of extra task YAMLs, relative to the domain YAML


RetrievalKind = Literal["bm25", "embedding", "hybrid"]
MISSING_EMBEDDINGS = 'needs the sentence-transformers package: pip install "jupiter[retrieval]"'


class RetrievalConfig(Strict):
    """The domain's retrieval index for open book (eval.open_book, RAFT examples, `jupiter
    chat/serve --open-book`), saved with every student: BM25, a sentence-transformers
    embedding index (cosine), or both fused by reciprocal rank (synth/embedding.py)."""

    kind: RetrievalKind = "bm25"
    # embedding / hybrid: a sentence-transformers model, a folder (relative to the YAML;
    # copied beside each student) or a Hub id read from the local HF cache
    embedding_model: str = ""
    batch_size: int = Field(default=32, ge=1)  # passages per forward pass while indexing
    # hybrid: score = sum of 1 / (rrf_k + rank); 60 is Cormack et al. 2009's constant
    rrf_k: int = Field(default=60, ge=1)
    # student + retriever (synth/combined.py, promotion.candidate): the model reads its
    # reader_top_k passages, each cut to the passage_chars window that covers the most of
    # the question (its terms weighted by idf); its multiple-choice scores are summed with
    # evidence_weight x the retriever's and closed_book_weight x its own without the
    # passages, less each choice's prior (PMI; all z-scored)
    reader_top_k: int = Field(default=2, ge=1, le=10)
    passage_chars: int = Field(default=600, ge=0)
    evidence_weight: float = Field(default=1.0, ge=0.0, le=100.0)
    closed_book_weight: float = Field(default=0.0, ge=0.0, le=100.0)

    @model_validator(mode="after")
    def _check(self) -> RetrievalConfig:
        import importlib.util

        if self.kind == "bm25":
            return self
        if not self.embedding_model:
            raise ValueError(
                f"kind {self.kind} needs embedding_model: a sentence-transformers folder or "
                "Hub id (e.g. sentence-transformers/all-MiniLM-L6-v2)"
            )
        if importlib.util.find_spec("sentence_transformers") is None:
            raise ValueError(f"kind {self.kind} {MISSING_EMBEDDINGS}")
        return self


class PromotionConfig(Strict):
    """The gate (improve/decide.py) and the loop's guards against collapse."""

    metric: Literal["qa_f1", "mc_accuracy"] = "mc_accuracy"
    # which exam the metric is judged on: the own one, the user exam (eval.user_exam_path),
    # or both (the student must clear the rule on each); both are reported either way
    exam: Literal["own", "user", "both"] = "own"
    # who stands for the cycle at the gate: the student alone (closed book), or the student
    # reading retrieved passages with the retriever's evidence (synth/combined.py); promoted,
    # the latter writes the next cycle's data the same way. Both are reported either way
    candidate: Literal["student", "student+retriever"] = "student"
    # the lower end of the paired 95% bootstrap CI of student - generator on `metric` must
    # be above this (and the point estimate too): a gain inside the noise is no gain
    margin: float = 0.0
    # general ability: the student's bits-per-byte on out-of-domain text may exceed the
    # generator's (the base's when the generator is no model) by at most this many bits per
    # byte, absolute, on the point estimate; null = not checked. Not measured: not checked.
    max_general_drop: float | None = Field(default=0.05, ge=0.0)
    # stop `jupiter start` after this many rejected students in a row; 0 = never stop
    patience: int = Field(default=3, ge=0)
    # anti-collapse: at least this share of each cycle's training examples is grounded in
    # the documents (extractive Q&A, raw text, dataset rows); model-written ones beyond it
    # are set aside by a seeded draw. Shumailov et al. 2024 (Nature): keeping even 10% of
    # the original data keeps recursive training from collapsing; 0.25 leaves a margin.
    real_data_fraction: float = Field(default=0.25, ge=0.0, le=1.0)


class FederatedDP(Strict):
    """federated.dp: clip each client's update to clip_norm (on the server, or on the client
    with the server checking), add Gaussian noise of std noise_multiplier × clip_norm to the
    sum; ε at `delta` from an RDP accountant (federated/privacy.py)."""

    mode: Literal["off", "server", "client"] = "off"
    noise_multiplier: float = Field(default=1.0, gt=0.0, le=1000.0)
    clip_norm: float = Field(default=1.0, gt=0.0)
    delta: float = Field(default=1e-5, gt=0.0, lt=1.0)
    epsilon_budget: float | None = Field(default=None, gt=0.0)  # stop before passing it


class FederatedConfig(Strict):
    """federated: `jupiter federated server` defaults (its flags override them)."""

    rounds: int = Field(default=10, ge=1, le=100_000)
    local_steps: int = Field(default=20, ge=1, le=MAX_STEPS)  # a client's steps per round
    min_clients: int = Field(default=2, ge=1, le=10_000)  # connected before round 1 starts
    clients_per_round: int | None = Field(default=None, ge=1)  # None: every connected client
    # replies a round needs; None: 1 for fedavg, 3 for fedmedian/trimmed (one attacker
    # outvoted), 2 × byzantine + 3 for krum (Blanchard et al. 2017)
    min_results: int | None = Field(default=None, ge=1)
    strategy: Literal["fedavg", "fedmedian", "trimmed", "krum"] = "fedavg"
    trim_fraction: float = Field(default=0.25, ge=0.0, lt=0.5)
    byzantine: int = Field(default=1, ge=0)  # krum
    round_timeout_s: float = Field(default=3600.0, gt=0.0)
    straggler_wait_s: float = Field(default=120.0, ge=0.0)  # once min_results have answered
    wait_clients_s: float = Field(default=600.0, gt=0.0)  # for min_clients to connect
    address: str = "127.0.0.1:9092"
    dp: FederatedDP = Field(default_factory=FederatedDP)


class ExpertConfig(Strict):
    """One expert of a mixture: its examples are those matching its keywords best."""

    name: Name
    # added to the built-in set of that name (python, sql, javascript, debug, ml, api;
    # see data/experts.py); a custom name needs its own
    keywords: list[str] = Field(default_factory=list)


# Fine-tuning a pretrained base (model.base set): the train keys a YAML leaves out take these
# values instead of the from-scratch ones of TrainConfig. The recipe measured on Gemma 3 270M
# + LoRA (docs/BENCHMARKS.md, "Knowledge, not wording"): every fact asked several ways and
# both directions, every prose sentence asked, the raw text also in a new sentence order, a
# fifth of the tokens the base's own text scored by the KL to the base (general text kept),
# lr 2e-4 -> 2e-5. `knowledge` and `replay` are blocks: a YAML that writes either owns all of
# it. The full fine-tune's lr is the usual one for full SFT (Axolotl's and LLaMA-Factory's
# examples), not measured here.
FINETUNE_TRAIN: dict[str, Any] = {
    "warmup_steps": 10,
    "weight_decay": 0.0,
    "raw_text_fraction": 0.3,
    "knowledge": {
        "phrasings": 2,
        "reverse": 2,
        "usage": True,
        "permuted_copies": 1,
        "sentences": 2,
        # every definition a fact of its own: no user-exam gain on manual pages, so off
        "definitions": False,
    },
    "replay": {"fraction": 0.2, "samples": 128, "max_tokens": 128, "loss": "kl"},
}
FINETUNE_LR = {"lora": (2e-4, 2e-5), "qlora": (2e-4, 2e-5), "full": (2e-5, 2e-6)}
FINETUNE_EPOCHS = 2  # when neither epochs nor max_steps is written
# a pretrained base is fine-tuned with LoRA unless train.method says otherwise (what every
# figure of the recipe was measured with; LLaMA-Factory's and mlx-lm's default too), at the
# rank those runs used
FINETUNE_METHOD = "lora"
FINETUNE_LORA: dict[str, Any] = {"r": 16, "alpha": 32, "dropout": 0.05}


def finetune_defaults(train: dict[str, Any]) -> dict[str, Any]:
    """The fine-tuning defaults for the train keys missing from `train` (the YAML's train:
    section as written); {} for a train: that sets them all."""
    method = train.get("method", FINETUNE_METHOD)
    lr, min_lr = FINETUNE_LR.get(method, FINETUNE_LR["full"])
    # the KL needs a teacher forward: none in a consensus's members, and under full
    # fine-tuning it would hold a second, frozen copy of the model: cross-entropy there
    kl = method in ("lora", "qlora") and not train.get("consensus")
    replay = dict(FINETUNE_TRAIN["replay"], loss="kl" if kl else "ce")
    out = {
        "method": method,
        **FINETUNE_TRAIN,
        "replay": replay,
        "lr": lr,
        "min_lr": min_lr,
    }
    if method in ("lora", "qlora"):
        out["lora"] = FINETUNE_LORA
    if "epochs" not in train and "max_steps" not in train:
        out["epochs"] = FINETUNE_EPOCHS
    return {k: v for k, v in out.items() if k not in train}


class DomainConfig(Strict):
    name: Name
    description: str = ""
    language: str = "en"
    topics: list[str] = Field(default_factory=list)
    keywords: list[str] = Field(default_factory=list)  # with topics, for the relevance filter
    system_prompt: str = ""
    sources: list[Source] = Field(min_length=1)
    chunking: Chunking = Field(default_factory=Chunking)
    generator: GeneratorConfig = Field(default_factory=GeneratorConfig)
    filters: FilterConfig = Field(default_factory=FilterConfig)
    model: ModelSection = Field(default_factory=ModelSection)
    train: TrainConfig = Field(default_factory=TrainConfig)
    eval: EvalConfig = Field(default_factory=EvalConfig)
    retrieval: RetrievalConfig = Field(default_factory=RetrievalConfig)  # open book's index
    promotion: PromotionConfig = Field(default_factory=PromotionConfig)
    levels: list[CurriculumLevel] = Field(default_factory=list)  # curriculum, in order
    experts: list[ExpertConfig] = Field(default_factory=list)  # `jupiter data export --experts`
    federated: FederatedConfig = Field(default_factory=FederatedConfig)  # jupiter federated
    cycles: int = Field(default=1, ge=1, le=1000)
    max_examples: int | None = Field(default=None, ge=1)  # cap on generated examples per cycle
    quick: dict[str, Any] = Field(default_factory=dict)  # overrides applied by --quick

    # where the YAML lives: relative paths (local sources, eval set) resolve against it
    base_dir: Path = Field(default=Path("."), exclude=True)
    # the train keys that took the fine-tuning defaults, for the train stage to print
    _finetune_defaulted: list[str] = PrivateAttr(default_factory=list)

    @model_validator(mode="after")
    def _finetune(self) -> DomainConfig:
        """With model.base set, the train keys the YAML leaves out take the fine-tuning
        defaults (FINETUNE_TRAIN) instead of the from-scratch ones."""
        if self.model.base:
            given = self.train.model_dump(exclude_unset=True)
            filled = finetune_defaults(given)
            if filled:
                self.train = TrainConfig.model_validate({**filled, **given})
                self._finetune_defaulted = sorted(filled)
        return self

    @property
    def finetune_defaulted(self) -> list[str]:
        return self._finetune_defaulted

    @model_validator(mode="after")
    def _check(self) -> DomainConfig:
        if self.filters.min_chars >= self.filters.max_chars:
            raise ValueError("filters.min_chars must be below filters.max_chars")
        names = [lv.name for lv in self.levels]
        if len(set(names)) != len(names):
            raise ValueError("levels: every level needs its own name")
        if self.levels and self.train.consensus is not None:
            raise ValueError(
                "train.consensus and curriculum levels cannot be combined: drop one of them"
            )
        experts = [e.name for e in self.experts]
        if len(set(experts)) != len(experts) or "router" in experts:
            raise ValueError("experts: every expert needs its own name, and not 'router'")
        return self

    def resolve(self, path: str) -> Path:
        p = Path(os.path.expanduser(path))
        return p if p.is_absolute() else (self.base_dir / p).resolve()

    def chat_template(self) -> str:
        """model.chat_template with a .jinja path resolved against the YAML; JupiterError
        when that file is missing."""
        choice = self.model.chat_template
        if choice in CHAT_TEMPLATES:
            return choice
        path = self.resolve(choice)
        if not path.is_file():
            raise JupiterError(
                f"model.chat_template: {path} not found: write the Jinja template there, or "
                f"set it to one of {', '.join(CHAT_TEMPLATES)}"
            )
        return str(path)

    def retrieval_config(self) -> RetrievalConfig:
        """`retrieval` with an embedding_model folder resolved against the YAML (a Hub id,
        no such folder, stays as written)."""
        ref = self.retrieval.embedding_model
        if not ref or not self.resolve(ref).is_dir():
            return self.retrieval
        return self.retrieval.model_copy(update={"embedding_model": str(self.resolve(ref))})
