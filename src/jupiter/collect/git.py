"""The `git` source: docs and code from a git repository, read at one commit.

Python files are read as their API (collect/pyapi.py: public names with docstrings, a
document each) unless the source says `python: text`. Files are read from git's object
store (`ls-tree` + one `cat-file --batch` process), never from a checkout, so the result
depends only on the commit: uncommitted edits and untracked files in a local repository are
ignored. A remote repository is cloned once, blob-less
(`--filter=blob:none`), into the cache; only the blobs of matching files are fetched.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
from collections.abc import Collection, Generator, Iterator
from contextlib import closing
from pathlib import Path, PurePosixPath

from jupiter.collect import (
    ansibledoc,
    apis,
    asciidoc,
    docbook,
    languages,
    latex,
    manpage,
    notebook,
    office,
    orgmode,
    pod,
    pyscript,
    sites,
    sphinxobj,
    texinfo,
    vimhelp,
)
from jupiter.collect.local import (
    HTML_SUFFIXES,
    PARTED,
    _matches,
    as_markdown,
    built_page,
    decode,
    decode_page,
    html_text,
    page_readers,
)
from jupiter.collect.pdf import PDF_SUFFIX, pdf_or_reject
from jupiter.collect.pyapi import PyFile, api_documents, is_python
from jupiter.collect.result import CollectResult, SourceFile
from jupiter.config import DomainConfig, GitSource
from jupiter.errors import JupiterError
from jupiter.records import Document

SOURCE = "git"
# scp-like remote addresses: git@github.com:org/repo.git
_SCP_URL = re.compile(r"^[\w.+-]+@[\w.-]+:")
# No password prompts (a private URL fails at once) and messages in English for the user.
_QUIET = {"GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"}
LANGUAGES = {
    ".py": "python",
    ".pyi": "python",
    ".md": "markdown",
    ".mdx": "markdown",
    ".rmd": "markdown",
    ".qmd": "markdown",
    ".rd": "r",
    ".kt": "kotlin",
    ".cs": "csharp",
    ".ex": "elixir",
    ".scala": "scala",
    ".hs": "haskell",
    ".proto": "proto",
    ".lua": "lua",
    ".clj": "clojure",
    ".cljc": "clojure",
    ".cljs": "clojure",
    ".mli": "ocaml",
    ".ml": "ocaml",
    ".graphql": "graphql",
    ".graphqls": "graphql",
    ".gql": "graphql",
    ".sol": "solidity",
    ".el": "elisp",
    ".xsd": "xsd",
    ".pp": "puppet",
    ".swift": "swift",
    ".dart": "dart",
    ".tf": "terraform",
    ".nix": "nix",
    ".markdown": "markdown",
    ".rst": "restructuredtext",
    ".txt": "text",
    ".js": "javascript",
    ".mjs": "javascript",
    ".jsx": "javascript",
    ".cjs": "javascript",
    ".ts": "typescript",
    ".tsx": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".sql": "sql",
    ".html": "html",
    ".htm": "html",
    ".c": "c",
    ".h": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".hpp": "cpp",
    ".rs": "rust",
    ".go": "go",
    ".java": "java",
    ".rb": "ruby",
    ".php": "php",
    ".sh": "shell",
    ".yaml": "yaml",
    ".yml": "yaml",
    ".toml": "toml",
    ".json": "json",
    ".ipynb": "jupyter",
}


def collect_git(src: GitSource, cfg: DomainConfig, cache_dir: Path) -> CollectResult:
    """One document per matching text file at `src.ref`, in path order."""
    if is_remote(src.url):
        repo, git_dir = src.url, clone_once(src.url, cache_dir)
    else:
        git_dir = _local_repo(cfg.resolve(src.url))
        repo = str(git_dir)
    sha = resolve_ref(git_dir, src.ref, repo, remote=is_remote(src.url))
    result = CollectResult()
    readers = apis.active(src)  # other languages' API readers (JavaScript, SQL, Go, Rust)
    extra = apis.companions(readers)  # read for a reader whatever the globs (Cargo.toml)
    if src.ansible == "api":  # a collection's galaxy.yml names its plugins
        extra = {*extra, ansibledoc.GALAXY}
    wanted: list[tuple[str, str]] = []  # (object id, path)
    for mode, kind, oid, path in _tree(git_dir, sha):
        name = PurePosixPath(path).name
        if sites.is_snapshot(PurePosixPath(path)) and _matches(
            name, path, src.include, src.exclude
        ):
            result.reject(sites.SNAPSHOT, f"{repo}@{sha}:{path}")
            continue
        if not _matches(name, path, src.include, src.exclude):
            if name in extra and mode != "120000" and kind == "blob":
                wanted.append((oid, path))
            continue
        if kind != "blob" or mode == "120000":  # submodules and symlinks hold no text
            result.reject("submodule" if kind == "commit" else "symlink", f"{repo}@{sha}:{path}")
            continue
        wanted.append((oid, path))
    if _is_partial(git_dir):
        _prefetch(git_dir, sha, {oid for oid, _ in wanted})
    code: list[PyFile] = []  # read as their API, together: a package names its modules' objects
    plugins: list[SourceFile] = []  # Ansible's modules and plugins, their fragments
    batches = apis.Batches(readers)
    texts: dict[str, tuple[str, bytes]] = {}  # .txt and AsciiDoc files, read after the rest
    # Files with the same content share one object id: blobs are paired with paths by order.
    with closing(_blobs(git_dir, [oid for oid, _ in wanted])) as blobs:
        for (_, path), data in zip(wanted, blobs, strict=False):
            py = src.python == "api" and is_python(path)
            reader = apis.reader_for(readers, path)
            ansible = src.ansible == "api" and ansibledoc.candidate(path)
            if (py or reader is not None or ansible) and data is not None:
                text = decode(data) if b"\x00" not in data else None
                if ansible and text is not None and ansibledoc.takes(path, text):
                    meta = {"repo": repo, "commit": sha, "path": path, "language": "ansible"}
                    plugins.append(
                        SourceFile(PurePosixPath(path), f"{repo}@{sha}:{path}", text, meta)
                    )
                    continue
            if (py or reader is not None) and data is not None:
                if text is not None:
                    suffix = PurePosixPath(path).suffix.lower()
                    taken = reader.language if reader is not None else ""
                    language = "python" if py else LANGUAGES.get(suffix, taken)
                    meta = {"repo": repo, "commit": sha, "path": path, "language": language}
                    where = f"{repo}@{sha}:{path}"
                    rel = PurePosixPath(path)
                    if py and pyscript.is_script(path, text):  # a tutorial written as a script
                        title, page = pyscript.render(text)
                        page_meta = {**meta, "format": "script"}
                        result.documents.append(
                            Document(SOURCE, where, title or path, page, page_meta)
                        )
                    elif py:
                        code.append(PyFile(rel, where, text, meta))
                    elif reader is not None:
                        batches.add(reader, SourceFile(rel, where, text, meta))
                    continue
            name = PurePosixPath(path).name.lower()
            if data is not None and (
                name.endswith(".txt")
                or asciidoc.takes(name)
                or latex.takes(name)
                or texinfo.takes(name)
                or docbook.takes(name)
                or orgmode.takes(name)
            ):
                text = decode(data) if b"\x00" not in data else None
                if text is not None:  # AsciiDoc or not, and included or not, said below
                    texts[path] = (text, data)
                    continue
            if src.perl == "api" and pod.is_pod_file(name) and data is not None:
                text = decode(data) if b"\x00" not in data else None
                where = f"{repo}@{sha}:{path}"
                got = pod.document_or_reject(text, name, where, result) if text else None
                if got is not None:
                    meta = {"repo": repo, "commit": sha, "path": path, "language": "pod"}
                    result.documents.append(Document(SOURCE, where, got[0] or path, got[1], meta))
                continue
            if office.is_office(name):  # Word, OpenDocument, an e-book's chapters
                where = f"{repo}@{sha}:{path}"
                for part, title, text in office.documents_or_reject(
                    data, name, where, html_text, result
                ):
                    language = PurePosixPath(path).suffix.lstrip(".").lower()
                    meta = {"repo": repo, "commit": sha, "path": path, "language": language}
                    uri = f"{where}#{part}" if part else where
                    result.documents.append(Document(SOURCE, uri, title or path, text, meta))
                continue
            doc = _document(repo, sha, path, data, result)
            if doc is not None:
                result.documents.extend(_described(doc, path, data, page_readers(src), result))
                if src.max_documents and len(result.documents) >= src.max_documents:
                    return result
    result.documents.extend(_texts(repo, sha, texts, result, page_readers(src)))
    result.documents.extend(api_documents(code, SOURCE, result))
    result.documents.extend(batches.documents(SOURCE, result, _repo_name(repo)))
    result.documents.extend(ansibledoc.documents(plugins, SOURCE, result))
    result.documents = languages.keep_language(result.documents, cfg.language, result)
    result.documents = sphinxobj.unique(result.documents, result)
    if src.max_documents:
        del result.documents[src.max_documents :]
    return result


def _texts(
    repo: str,
    sha: str,
    texts: dict[str, tuple[str, bytes]],
    result: CollectResult,
    api: Collection[str] = frozenset({"sphinx"}),
) -> list[Document]:
    """Plain-text and AsciiDoc files, in path order: AsciiDoc as the Markdown it renders to
    (collect/asciidoc.py), a file another one includes read there, the rest as text (with
    "sphinx" in `api`, reStructuredText's object descriptions each a document,
    collect/sphinxobj.py)."""
    adoc, included = asciidoc.batch({p: t for p, (t, _) in texts.items()})
    tex, inputs = latex.batch({p: t for p, (t, _) in texts.items() if latex.takes(p)})
    manuals, texi_inputs = texinfo.batch({p: t for p, (t, _) in texts.items() if texinfo.takes(p)})
    parted = {  # DocBook's parts, a long Org file's sections
        fmt: m.batch({p: t for p, (t, _) in texts.items() if m.takes(p)})
        for fmt, m in PARTED.items()
    }
    inputs_of = {p: fmt for fmt, (_, inc) in parted.items() for p in inc}
    parts_of = {p: (fmt, got) for fmt, (read, _) in parted.items() for p, got in read.items()}
    out: list[Document] = []
    for path, (_, data) in texts.items():
        where = f"{repo}@{sha}:{path}"
        if path in included:
            result.reject(asciidoc.INCLUDED, where)
        elif path in inputs:
            result.reject(latex.INCLUDED, where)
        elif path in texi_inputs:
            result.reject(texinfo.INCLUDED, where)
        elif path in inputs_of:
            result.reject(PARTED[inputs_of[path]].INCLUDED, where)
        elif path in parts_of:  # DocBook: a man page, a chapter's section; Org: a section
            fmt, got = parts_of[path]
            for part, title, text in got:
                meta = {"repo": repo, "commit": sha, "path": path, "language": fmt}
                uri = f"{where}#{part}" if part else where
                out.append(Document(SOURCE, uri, title or path, text, meta))
        elif path in manuals:  # a Texinfo manual: a document per node
            for node, title, text in manuals[path]:
                meta = {"repo": repo, "commit": sha, "path": path, "language": "texinfo"}
                out.append(Document(SOURCE, f"{where}#{node}", title or node, text, meta))
        elif path in tex:
            title, text = tex[path]
            if text.strip():
                meta = {"repo": repo, "commit": sha, "path": path, "language": "latex"}
                out.append(Document(SOURCE, where, title or path, text, meta))
        elif latex.takes(path) or texinfo.takes(path):
            continue  # a LaTeX file with nothing to read (its preamble), Texinfo's settings
        elif path in adoc:
            title, text = adoc[path]
            if text.strip():
                meta = {"repo": repo, "commit": sha, "path": path, "language": "asciidoc"}
                out.append(Document(SOURCE, where, title or path, text, meta))
        else:
            doc = _document(repo, sha, path, data, result)
            if doc is not None:
                out.extend(_described(doc, path, data, api, result))
    return out


def _described(
    doc: Document,
    path: str,
    data: bytes | None,
    api: Collection[str],
    result: CollectResult | None = None,
) -> list[Document]:
    """A page's documents: with "sphinx" in `api`, its object descriptions each its own
    (collect/sphinxobj.py), reStructuredText's and a built page's; a built page's members
    by the other readers `api` names (local.built_page)."""
    if "vim" in api and vimhelp.takes(path) and vimhelp.is_help(doc.text):
        return vimhelp.split(doc)  # a Vim help file's entries (collect/vimhelp.py)
    if "sphinx" in api and (sphinxobj.is_rst(path) or sphinxobj.is_myst(path)):
        return sphinxobj.split(doc)
    if sphinxobj.is_html(path) and data is not None:
        return built_page(doc, decode_page(data) or "", api, rejects=result)
    return [doc]


def _repo_name(repo: str) -> str:
    """A repository's name from its URL or path ("https://x/y/anyhow.git" -> "anyhow")."""
    return re.sub(r"\.git$", "", re.split(r"[/:]", repo.rstrip("/"))[-1])


def is_remote(url: str) -> bool:
    return "://" in url or bool(_SCP_URL.match(url))


def clone_once(url: str, cache_dir: Path) -> Path:
    """The blob-less clone of `url` under `cache_dir`, made on first use only."""
    dest = cache_dir / hashlib.sha256(url.encode("utf-8")).hexdigest()[:16]
    if (dest / ".git").is_dir():
        return dest.resolve()
    cache_dir.mkdir(parents=True, exist_ok=True)
    # Cloned beside and renamed, so a killed clone never leaves a half repository in place.
    tmp = dest.with_name(f"{dest.name}.tmp-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    proc = _git(None, "clone", "--quiet", "--filter=blob:none", "--no-checkout", url, str(tmp))
    if proc.returncode != 0:
        shutil.rmtree(tmp, ignore_errors=True)
        raise JupiterError(f"cannot clone git repository {url}: {_last_line(proc.stderr)}")
    try:
        tmp.rename(dest)
    except OSError:  # another run finished the same clone first
        shutil.rmtree(tmp, ignore_errors=True)
    return dest.resolve()


def resolve_ref(git_dir: Path, ref: str, repo: str, remote: bool = False) -> str:
    """The full commit sha `ref` names; a clone fetches only when it lacks the ref."""
    found = _rev_parse(git_dir, ref, remote)
    if found is None and remote and not ref.startswith("-"):
        _git(git_dir, "fetch", "--quiet", "--tags", "origin")
        found = _rev_parse(git_dir, ref, remote)
        if found is None:  # a commit or ref outside the branches and tags
            if _git(git_dir, "fetch", "--quiet", "origin", ref).returncode == 0:
                found = _rev_parse(git_dir, ref, remote) or _rev_parse(git_dir, "FETCH_HEAD")
    if found is None:
        raise JupiterError(
            f"unknown ref '{ref}' in git repository {repo}: use a commit, tag or branch that"
            f" exists there (sources[].ref)"
        )
    return found


def _rev_parse(git_dir: Path, ref: str, remote: bool = False) -> str | None:
    if ref.startswith("-"):  # would be read as an option
        return None
    # In a clone, branches other than the default one exist only as origin/<name>.
    for name in [ref, f"origin/{ref}"] if remote else [ref]:
        proc = _git(git_dir, "rev-parse", "--verify", "--quiet", f"{name}^{{commit}}")
        if proc.returncode == 0:
            return proc.stdout.decode().strip()
    return None


def _local_repo(path: Path) -> Path:
    """`path` itself when it is a repository's root (or a bare repository)."""
    if not path.exists():
        raise JupiterError(f"git source not found: {path} (fix sources[].url in the domain YAML)")
    root = path.resolve()
    git_dir = _git(root, "rev-parse", "--absolute-git-dir")
    if git_dir.returncode != 0:
        raise JupiterError(f"not a git repository: {root} (sources[].url must be a repository)")
    if Path(git_dir.stdout.decode().strip()).resolve() == root:
        return root  # a bare repository, or its .git folder
    top = Path(_git(root, "rev-parse", "--show-toplevel").stdout.decode().strip()).resolve()
    if top != root:
        raise JupiterError(
            f"{root} is inside the git repository {top}, not its root: use url: {top} and an"
            f" include glob for the folder"
        )
    return root


def _tree(git_dir: Path, sha: str) -> Iterator[tuple[str, str, str, str]]:
    """(mode, type, object id, path) of every entry in the commit's tree."""
    proc = _git(git_dir, "ls-tree", "-r", "-z", "--full-tree", sha)
    if proc.returncode != 0:
        raise JupiterError(f"cannot list files of {sha} in {git_dir}: {_last_line(proc.stderr)}")
    for entry in proc.stdout.split(b"\0"):
        if entry:
            info, _, path = entry.partition(b"\t")
            mode, kind, oid = info.decode().split()
            yield mode, kind, oid, path.decode("utf-8", errors="replace")


def _is_partial(git_dir: Path) -> bool:
    return _git(git_dir, "config", "--get", "remote.origin.promisor").stdout.strip() == b"true"


def _prefetch(git_dir: Path, sha: str, oids: set[str]) -> None:
    """Fetch the blobs a partial clone lacks in one request, not one request per file."""
    listed = _git(git_dir, "rev-list", "--objects", "--no-walk", "--missing=print", sha)
    heads = (line.split(" ", 1)[0] for line in listed.stdout.decode().splitlines())
    missing = sorted(h[1:] for h in heads if h[:1] == "?" and h[1:] in oids)
    if missing:
        # The command git itself runs for lazy fetches (promisor-remote.c); should it fail,
        # cat-file still fetches each missing blob on its own.
        _git(
            git_dir,
            "-c",
            "fetch.negotiationAlgorithm=noop",
            "fetch",
            "--quiet",
            "origin",
            "--no-tags",
            "--no-write-fetch-head",
            "--recurse-submodules=no",
            "--filter=blob:none",
            "--stdin",
            stdin="\n".join(missing).encode() + b"\n",
        )


def _blobs(git_dir: Path, oids: list[str]) -> Generator[bytes | None, None, None]:
    """The content of each object, in order, from one `git cat-file --batch` process; None
    for an object that cannot be had."""
    proc = _popen(git_dir, "cat-file", "--batch")
    assert proc.stdin is not None and proc.stdout is not None
    try:
        # One request at a time, each answer read in full: no pipe can fill up and block.
        for oid in oids:
            proc.stdin.write(oid.encode() + b"\n")
            proc.stdin.flush()
            header = proc.stdout.readline().split()
            if len(header) != 3:  # "<oid> missing", or the process died
                yield None
                continue
            data = proc.stdout.read(int(header[2]))
            proc.stdout.read(1)  # the newline after each object
            yield data
    finally:
        proc.stdin.close()
        proc.stdout.close()
        proc.wait()


def _document(
    repo: str, sha: str, path: str, data: bytes | None, result: CollectResult
) -> Document | None:
    where = f"{repo}@{sha}:{path}"
    if data is None:
        result.reject("missing_blob", where)
        return None
    suffix = PurePosixPath(path).suffix.lower()
    if suffix == PDF_SUFFIX:  # a PDF in the repository (include "*.pdf"): its text layer
        got = pdf_or_reject(data, where, result)
        if got is None:
            return None
        meta = {"repo": repo, "commit": sha, "path": path, "language": "pdf"}
        return Document(SOURCE, where, got.title or path, got.text, meta)
    if b"\x00" in data:  # NULs do not occur in text files; they mark binary formats
        result.reject("binary", where)
        return None
    text = decode(data)
    if text is None:
        result.reject("bad_encoding", where)
        return None
    title = path
    lang = ""  # an HTML page's own language (collect/languages.py)
    if manpage.is_page_name(PurePosixPath(path).name) and manpage.is_roff(text):
        page = manpage.page_or_reject(data, text, where, result)
        if page is None:
            return None
        meta = {"repo": repo, "commit": sha, "path": path, "language": "man"}
        return Document(SOURCE, where, PurePosixPath(path).name, page, meta)
    if suffix in HTML_SUFFIXES:
        page = decode_page(data) or text
        lang = languages.page_language(page)
        text = html_text(page)[0]
    elif (marked := as_markdown(path, text)) is not None:  # Markdown, RDoc, MediaWiki
        heading, text = marked
        title = heading or path
    elif suffix == notebook.SUFFIX:  # the Markdown it renders to, titled by its heading
        rendered = notebook.notebook_or_reject(text, where, result)
        if rendered is None:
            return None
        heading, text = rendered
        title = heading or path
    if not text.strip():
        result.reject("empty", where)
        return None
    language = LANGUAGES.get(suffix, suffix.lstrip("."))
    meta = {"repo": repo, "commit": sha, "path": path, "language": language}
    if lang:
        meta["lang"] = lang
    return Document(SOURCE, where, title, text, meta)


def _git(
    cwd: Path | None, *args: str, stdin: bytes | None = None
) -> subprocess.CompletedProcess[bytes]:
    base = ["git"] if cwd is None else ["git", "-C", str(cwd)]
    try:
        return subprocess.run(
            [*base, *args],
            input=stdin,
            capture_output=True,
            env={**os.environ, **_QUIET},
            check=False,
        )
    except FileNotFoundError:
        raise _no_git() from None


def _popen(cwd: Path, *args: str) -> subprocess.Popen[bytes]:
    try:
        return subprocess.Popen(
            ["git", "-C", str(cwd), *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env={**os.environ, **_QUIET},
        )
    except FileNotFoundError:
        raise _no_git() from None


def _no_git() -> JupiterError:
    return JupiterError("git not found on PATH: install git to use sources of type: git")


def _last_line(stderr: bytes) -> str:
    lines = [ln.strip() for ln in stderr.decode(errors="replace").splitlines() if ln.strip()]
    return lines[-1] if lines else "git failed"
