"""`jupiter init` and `jupiter config`: a new domain YAML, and the resolved configs."""

from __future__ import annotations

import fnmatch
import re
from pathlib import Path
from typing import Annotated

import typer
import yaml

from jupiter.cli_context import console
from jupiter.cli_types import Domain, Quick
from jupiter.config import LocalSource, config_root, domain_path, load_cluster, load_domain
from jupiter.errors import JupiterError

# what `init --source` adds to a JavaScript or TypeScript project's globs (collect/jsapi.py)
JS_GLOBS = ["*.js", "*.mjs", "*.cjs", "*.ts"]

commands = typer.Typer()  # merged into the app by jupiter/cli.py
config_app = typer.Typer(help="Inspect configuration.", no_args_is_help=True)
commands.add_typer(config_app, name="config")


@commands.command()
def init(
    domain: Domain,
    source: Annotated[
        list[str] | None,
        typer.Option(
            help="A source of documents, repeatable: a file or folder (Markdown, reST, text, "
            "HTML, PDF, GNU info; Python code read as its API, and JavaScript/TypeScript too in "
            "a folder with a package.json, Go in one with a go.mod, Rust in one with a Cargo.toml, "
            "Java and Kotlin in one with a pom.xml, build.gradle or build.gradle.kts, C# in one "
            "with a .csproj or .sln, Elixir in one with a mix.exs, Scala in one with a build.sbt, "
            "Haskell in one with a .cabal, Lua in one with a .rockspec, a .luarc.json or a lua/ "
            "folder, Clojure in one with a deps.edn, project.clj, build.boot, shadow-cljs.edn or "
            "bb.edn, "
            "OCaml interfaces in one with a dune-project or .opam, Solidity in one with a "
            "foundry.toml, hardhat.config.js/.ts or truffle-config.js, Emacs Lisp in one with "
            ".el files, a Cask or an Eask, Swift in one with a Package.swift, Dart in one with a "
            "pubspec.yaml, Terraform modules (.tf), Nix modules' options (.nix), Puppet modules (manifests, Ruby functions, tasks) "
            "in one with a manifests/ folder or a folder of modules, "
            "PHP in one with a "
            "composer.json, Ruby in one with a Gemfile or a .gemspec, "
            "Perl modules' POD in one with a Makefile.PL, an R package's .Rd help as its API, "
            "Protocol Buffers' .proto files as their API, JSON Schemas (*.schema.json) as the "
            "settings they describe (and plain .json schemas or a GraphQL introspection where the "
            "folder or its schema/ holds them), GraphQL schemas as their API, Ansible modules and plugins "
            "as ansible-doc shows them, Vim help files as :help shows them, "
            "LaTeX, Texinfo and DocBook sources as the documents they make (DocBook kept as .xml "
            "where the folder or its doc/, docs/ or man/ holds it), tutorials written as Python "
            "scripts (sphinx-gallery, # %% cells) as their pages, "
            "C and C++ headers where the folder holds them, SQL as its schema where "
            "the folder holds .sql files), a JSONL/CSV/Parquet dataset, "
            "an http(s) URL to crawl, or a git URL (ending in .git, or git@…). Writes a "
            "minimal YAML.",
        ),
    ] = None,
    base: Annotated[
        str | None,
        typer.Option(help="The model to fine-tune (HF dir or id, .gguf, ollama:NAME)."),
    ] = None,
    user_exam: Annotated[
        str | None,
        typer.Option(help="Your own multiple-choice exam (eval.user_exam_path)."),
    ] = None,
    description: Annotated[str, typer.Option(help="What the domain is about.")] = "",
    force: Annotated[bool, typer.Option(help="Overwrite an existing file.")] = False,
) -> None:
    """Create config/domains/NAME.yaml: with --source, a minimal YAML of your documents (every
    other key its default); without, the commented template of every key."""
    if not re.fullmatch(r"[A-Za-z0-9_\-]+", domain):
        raise JupiterError(f"invalid domain name '{domain}': use letters, digits, _ and -")
    target = Path.cwd() / "config" / "domains" / f"{domain}.yaml"
    if target.exists() and not force:
        raise JupiterError(f"{target} already exists (use --force to overwrite)")
    if source:
        text = minimal_domain(domain, source, base, user_exam, description)
        _check_written(text, target.parent)
        say = f"`jupiter start --domain {domain}`"
    elif base or user_exam:
        flag = "--base" if base else "--user-exam"
        raise JupiterError(f"{flag} needs --source: the documents to learn from")
    else:
        template = config_root() / "domains" / "_template.yaml"
        text = template.read_text(encoding="utf-8")
        text = text.replace("name: my_domain", f"name: {domain}", 1)
        say = f"edit its sources, then `jupiter start --domain {domain}`"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    console.print(f"wrote {target}: {say}")


def _has_docbook(path: Path) -> bool:
    """Whether a folder keeps DocBook as .xml: one of the first few .xml files at its top
    or in a doc/, docs/ or man/ folder is DocBook."""
    from jupiter.collect import docbook

    if not path.is_dir():
        return False
    folders = [path, *(path / d for d in ("doc", "docs", "man"))]
    found = [p for f in folders if f.is_dir() for p in sorted(f.glob("*.xml"))[:20]]
    for p in found:
        try:
            head = p.read_text(errors="replace")[:4000]
        except OSError:
            continue
        if docbook.is_docbook(head):
            return True
    return False


# a Puppet module's manifests, Ruby functions, tasks, metadata and Hiera data, at its root
# or in a folder of modules (collect/puppetapi.py takes them by their path)
PUPPET_GLOBS = [
    "*.pp",
    "metadata.json",
    "*lib/puppet/functions/*.rb",
    "*lib/puppet/parser/functions/*.rb",
    "*tasks/*.json",
    "*data/*.yaml",
]


def _near(path: Path, pattern: str) -> bool:
    """Whether a folder holds a file matching `pattern` at its top or one or two folders
    down (a monorepo's packages, a folder of modules, a control repo's site/)."""
    return path.is_dir() and any(next(path.glob(d + pattern), None) for d in ("", "*/", "*/*/"))


def _is_puppet(path: Path) -> bool:
    """Whether a folder holds Puppet modules: a manifest in a manifests/ folder."""
    return _near(path, "manifests/*.pp")


def _config_globs(path: Path) -> list[str]:
    """The globs of the configuration files a folder keeps documented by their comments
    (collect/confdoc.py): `*.conf`-like suffixes by their suffix, a YAML or TOML file by
    its name; read from the first 200 candidates at its top and one folder down."""
    from jupiter.collect import confdoc

    if not path.is_dir():
        return []
    found = [p for d in ("*", "*/*") for p in sorted(path.glob(d)) if p.is_file()]
    wanted = confdoc.ANNOTATED_SUFFIXES
    candidates = [p for p in found if confdoc.is_config(p.name) or p.name.endswith(wanted)]
    globs: list[str] = []
    for p in candidates[:200]:
        try:
            head = p.read_bytes()[:262144].decode("utf-8", errors="replace")
        except OSError:
            continue
        if not confdoc.looks_annotated(head):
            continue
        low = p.name.lower()
        suffix = next((x for x in confdoc.SUFFIXES if low.endswith(x)), None)
        glob = "*" + suffix if suffix is not None and not p.name.endswith(wanted) else p.name
        if glob not in globs:
            globs.append(glob)
    return globs


def _has_crds(path: Path) -> bool:
    """Whether a folder keeps Kubernetes CustomResourceDefinitions (collect/crd.py): one of
    the first 200 YAML files at its top or up to three folders down holds one."""
    if not path.is_dir():
        return False
    found = [
        p
        for d in ("", "*/", "*/*/", "*/*/*/")
        for g in ("*.yaml", "*.yml")
        for p in sorted(path.glob(d + g))
    ]
    for p in found[:200]:
        try:
            head = p.read_bytes()[:65536].decode("utf-8", errors="replace")
        except OSError:
            continue
        if re.search(r"^kind:\s*CustomResourceDefinition\s*$", head, re.M):
            return True
    return False


def _has_json_reference(path: Path) -> bool:
    """Whether a folder keeps a reference as plain .json files: one of the first few at its
    top or in a schema/, schemas/ folder is a JSON Schema (its `$schema` names
    json-schema.org) or a GraphQL introspection result (`__schema`)."""
    if not path.is_dir():
        return False
    folders = [path, *(path / d for d in ("schema", "schemas"))]
    for p in [p for f in folders if f.is_dir() for p in sorted(f.glob("*.json"))[:20]]:
        try:
            head = p.read_text(errors="replace")[:4000]
        except OSError:
            continue
        if re.search(r'"\$schema"\s*:\s*"[^"]*json-schema\.org', head) or '"__schema"' in head:
            return True
    return False


def source_entry(spec: str) -> dict[str, object]:
    """A `sources:` entry for what a user names on the command line."""
    if spec.startswith("git@") or re.match(r"^(https?|ssh|git)://\S+\.git/?$", spec):
        return {"type": "git", "url": spec}
    if re.match(r"^https?://\S+$", spec):
        return {"type": "web", "urls": [spec]}
    path = Path(spec).expanduser()
    if not path.exists():
        raise JupiterError(
            f"--source: no file or folder at {spec} (a path, an http(s) URL to crawl, or a git "
            "URL ending in .git)"
        )
    if path.is_file() and path.suffix.lower() in (".jsonl", ".json", ".csv", ".parquet"):
        return {"type": "dataset", "path": str(path.resolve())}
    entry: dict[str, object] = {"type": "local", "path": str(path.resolve())}
    default = LocalSource.model_fields["include"].get_default(call_default_factory=True)
    more: list[str] = []
    if path.is_file() and not any(fnmatch.fnmatch(path.name, g) for g in default):
        more.append(path.name)  # a file named on the command line is read whatever its name
    if (path / "package.json").is_file():  # a JavaScript or TypeScript project: its code too
        more += JS_GLOBS
    if (path / "go.mod").is_file():  # a Go module: its packages' API
        more.append("*.go")
    if (path / "Cargo.toml").is_file():  # a Rust crate or workspace: its crates' API
        more.append("*.rs")
    if any((path / b).is_file() for b in ("pom.xml", "build.gradle", "build.gradle.kts")):
        more.append("*.java")  # a Maven or Gradle project: its packages' API (javadoc)
        more.append("*.kt")  # and its Kotlin's (KDoc)
    if next(path.glob("*.csproj"), None) is not None or next(path.glob("*.sln"), None) is not None:
        more.append("*.cs")  # a .NET project or solution: its API (XML doc comments)
    if (path / "mix.exs").is_file():  # an Elixir project: its modules' API (@doc, @moduledoc)
        more.append("*.ex")
    if any((path / b).is_file() for b in ("build.sbt", "build.sc")):
        more.append("*.scala")  # an sbt or Mill project: its packages' API (Scaladoc)
    if (
        next(path.glob("*.cabal"), None) is not None
        or (path / "stack.yaml").is_file()
        or (path / "package.yaml").is_file()
    ):
        more.append("*.hs")  # a Haskell package: its modules' API (Haddock)
    lua = ("*.rockspec", ".luarc.json", "lua/*.lua", "lua/*/*.lua")  # a rock, a Neovim plugin
    if path.is_dir() and any(next(path.glob(g), None) for g in lua):
        more.append("*.lua")  # a Lua library or plugin: its modules' API (LDoc, LuaCATS)
    clj = ("project.clj", "deps.edn", "build.boot", "shadow-cljs.edn", "bb.edn")
    if any((path / b).is_file() for b in clj):  # a Clojure project: its namespaces' API
        more += ["*.clj", "*.cljc", "*.cljs"]
    if (path / "dune-project").is_file() or next(path.glob("*.opam"), None) is not None:
        more.append("*.mli")  # an OCaml project: its modules' interfaces (odoc)
    sol = ("foundry.toml", "hardhat.config.js", "hardhat.config.ts", "truffle-config.js")
    if any((path / b).is_file() for b in sol):  # a Solidity project: its contracts' NatSpec
        more.append("*.sol")
    if _has_docbook(path):  # DocBook sources kept as .xml (systemd's man/, GNOME's help)
        more.append("*.xml")
    if _has_json_reference(path):  # JSON Schemas or a GraphQL introspection as plain .json
        more.append("*.json")
    elisp = ("Cask", "Eask", "*-pkg.el", "*.el")  # an Emacs package: its symbols' docstrings
    if path.is_dir() and any(next(path.glob(g), None) for g in elisp):
        more.append("*.el")
    if _is_puppet(path):  # Puppet modules or a control repo: manifests, functions, tasks
        more += PUPPET_GLOBS
    more += _config_globs(path)  # configuration files whose comments document them
    if _has_crds(path):  # Kubernetes CRDs: the fields of the resources they define
        more += [g for g in ("*.yaml", "*.yml") if g not in more]
    if _near(path, "Package.swift"):  # Swift packages: their modules' API (DocC)
        more.append("*.swift")
    if _near(path, "pubspec.yaml"):  # Dart or Flutter packages: their API (dartdoc)
        more.append("*.dart")
    if _near(path, "*.tf"):  # Terraform modules: their inputs and outputs (terraform-docs)
        more += ["*.tf", "*.tf.json"]
    if _near(path, "*.nix"):  # Nix modules: the options they declare (the NixOS manual)
        more.append("*.nix")
    if (path / "composer.json").is_file():  # a PHP package: its classes' API (docblocks)
        more.append("*.php")
    if (path / "Gemfile").is_file() or next(path.glob("*.gemspec"), None) is not None:
        more.append("*.rb")  # a Ruby gem or application: its API (YARD comments)
    if any((path / b).is_file() for b in ("Makefile.PL", "Build.PL", "cpanfile", "META.json")):
        more += ["*.pm", "*.pl"]  # a Perl distribution: its modules' POD
    headers = ("*.h", "*.hpp")
    if path.is_dir() and any(
        next(path.glob(d + g), None) for d in ("", "*/", "*/*/") for g in headers
    ):
        more += ["*.h", "*.hpp"]  # a C or C++ library's headers: its API
    pages = ("*.[1-9]", "*.[1-9].gz", "*.[1-9][a-z]*.gz")
    if path.is_dir() and any(
        next(path.glob(d + g), None) for d in ("", "*/", "*/*/") for g in pages
    ):
        more += ["*.[1-9]", "*.[1-9][a-z]*"]  # manual pages, rendered as `man` prints them
    if path.is_dir() and any(next(path.glob(g), None) for g in ("*.sql", "*/*.sql", "*/*/*.sql")):
        more.append("*.sql")  # a database's schema and queries, read as their documentation
    if more:
        entry["include"] = [*default, *more]
    return entry


def minimal_domain(
    name: str, sources: list[str], base: str | None, user_exam: str | None, description: str
) -> str:
    """The YAML a user would write by hand: name, sources, and what they chose."""
    data: dict[str, object] = {"name": name, "description": description}
    data["sources"] = [source_entry(s) for s in sources]
    if base:
        data["model"] = {"base": base}
    if user_exam:
        exam = Path(user_exam).expanduser()
        if not exam.is_file():
            raise JupiterError(f"--user-exam: no file at {user_exam}")
        data["eval"] = {"user_exam_path": str(exam.resolve())}
    head = (
        f"# Written by `jupiter init`. Every key left out takes its default: `jupiter config "
        f"show --domain {name}` prints them all, config/domains/_template.yaml explains each.\n"
    )
    return head + yaml.safe_dump(data, sort_keys=False, allow_unicode=True)


def _check_written(text: str, folder: Path) -> None:
    """The YAML loads (one-line error otherwise) before anything is written."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        probe = Path(tmp) / "domain.yaml"
        probe.write_text(text, encoding="utf-8")
        load_domain(str(probe))


@config_app.command("show")
def config_show(domain: Domain, quick: Quick = False) -> None:
    """Print the resolved domain config (defaults filled in)."""
    cfg = load_domain(domain, quick=quick)
    data = cfg.model_dump(mode="json", exclude={"quick"})
    console.print(f"# {domain_path(domain)}" + (" (with --quick)" if quick else ""))
    console.print(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), end="", markup=False)


@config_app.command("cluster")
def config_cluster(
    path: Annotated[str | None, typer.Option(help="cluster.yaml to read.")] = None,
) -> None:
    """Print the resolved cluster config."""
    data = load_cluster(path).model_dump(mode="json")
    console.print(yaml.safe_dump(data, sort_keys=False), end="", markup=False)


@config_app.command("presets")
def config_presets(
    context: Annotated[int, typer.Option(min=1, help="Sequence length of the estimate.")] = 2048,
    batch: Annotated[int, typer.Option(min=1, help="Micro-batch of the estimate.")] = 1,
) -> None:
    """Fine-tuning presets by model size (1B … 120B): method, LoRA rank, memory estimates."""
    from rich.table import Table

    from jupiter.models.memory import SIZE_PRESETS, presets_table

    table = Table(
        title=f"memory of one process (no sharding), context {context}, micro-batch {batch}, GiB"
    )
    for col in ("size", "params", "method", "LoRA r/alpha", "no checkpointing", "checkpointing"):
        table.add_column(col, justify="left" if col in ("size", "method") else "right")
    for row in presets_table(context, batch):
        p = SIZE_PRESETS[str(row["size"])]
        lora = "" if row["method"] == "full" else f"{p.lora_r}/{p.lora_alpha}"
        star = " (recommended)" if row["recommended"] else ""
        table.add_row(
            str(row["size"]),
            f"{row['params_b']}B",
            f"{row['method']}{star}",
            lora,
            str(row["gb"]),
            str(row["gb_ckpt"]),
        )
    console.print(table)
