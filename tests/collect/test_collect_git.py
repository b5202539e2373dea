"""The git source: a real repository made in the test, read at a commit, locally and cloned."""

from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path
from typing import Any

import pytest

from builtpages import RUSTDOC
from jupiter.collect import git as git_source
from jupiter.collect.git import collect_git, is_remote
from jupiter.collect.result import CollectResult
from jupiter.config import DomainConfig, GitSource
from jupiter.errors import JupiterError

GUIDE_V1 = "# Guide\n\nInstall the widget.\n"
GUIDE_V2 = "# Guide\n\nInstall the widget, then spin it.\n"
APP = 'def spin(speed: int) -> None:\n    """Spin at `speed` turns a second."""\n'
# the API document a .py file becomes (collect/pyapi.py), and the uri that names it
APP_DOC = "spin(speed: int) -> None\n\nSpin at `speed` turns a second."
APP_URI = "python:app.spin"


def git(repo: Path, *args: str) -> str:
    cmd = ["git", "-c", "user.name=Test", "-c", "user.email=t@example.com", "-C", str(repo)]
    return subprocess.run([*cmd, *args], check=True, capture_output=True, text=True).stdout


def write(root: Path, files: dict[str, bytes]) -> None:
    for rel, data in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)


@pytest.fixture()
def repo(tmp_path: Path) -> tuple[Path, str, str]:
    """A repository with two commits: (path, first sha, second sha)."""
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    write(
        root,
        {
            "docs/guide.md": GUIDE_V1.encode(),
            "src/app.py": APP.encode(),
            "docs/logo.txt": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",  # binary, but *.txt
            "docs/legacy.txt": "caf\u00e9 cr\u00e8me".encode("latin-1"),
            "docs/empty.md": b"  \n",
            "build/out.md": b"# Generated\n",
            "data.bin": b"not included",
        },
    )
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "first")
    first = git(root, "rev-parse", "HEAD").strip()
    (root / "docs/guide.md").write_text(GUIDE_V2)
    git(root, "commit", "-q", "-am", "second")
    second = git(root, "rev-parse", "HEAD").strip()
    git(root, "tag", "v1", first)
    return root, first, second


def domain(base: Path, **source: Any) -> tuple[GitSource, DomainConfig]:
    cfg = DomainConfig.model_validate({"name": "t", "sources": [{"type": "git", **source}]})
    cfg.base_dir = base
    src = cfg.sources[0]
    assert isinstance(src, GitSource)
    return src, cfg


def by_path(result: CollectResult) -> dict[str, str]:
    return {d.meta["path"]: d.text for d in result.documents}


def test_reads_a_local_repo_at_a_commit(tmp_path: Path, repo: tuple[Path, str, str]) -> None:
    root, first, second = repo
    src, cfg = domain(tmp_path, url="repo", ref=first, exclude=["build/*"])
    result = collect_git(src, cfg, tmp_path / "cache")
    assert by_path(result) == {
        "docs/guide.md": GUIDE_V1,
        "docs/legacy.txt": "caf\u00e9 cr\u00e8me",  # latin-1 bytes, decoded
        "src/app.py": APP_DOC,
    }
    assert [d.meta["path"] for d in result.documents] == sorted(by_path(result))
    assert result.rejects == {"binary": 1, "empty": 1}
    repo_path = str(root.resolve())
    assert result.samples["binary"] == [f"{repo_path}@{first}:docs/logo.txt"]
    app = next(d for d in result.documents if d.meta["path"] == "src/app.py")
    assert app.source == "git"
    assert app.uri == APP_URI and app.title == "app.spin"
    assert app.meta == {
        "repo": repo_path,
        "commit": first,
        "path": "src/app.py",
        "language": "python",
        "kind": "function",
        "module": "app",
        "qualname": "spin",
        "signature": "(speed: int) -> None",
        "params": ["speed"],
        "origin": f"{repo_path}@{first}:src/app.py",
        "line": 1,
    }
    # python: text reads the file as it is
    as_text = collect_git(domain(tmp_path, url="repo", ref=first, python="text")[0], cfg, tmp_path)
    assert by_path(as_text)["src/app.py"] == APP
    assert f"{repo_path}@{first}:src/app.py" in {d.uri for d in as_text.documents}
    assert not (tmp_path / "cache").exists()  # a local repo is read in place

    head = collect_git(domain(tmp_path, url=str(root), exclude=["build/*"])[0], cfg, tmp_path)
    assert by_path(head)["docs/guide.md"] == GUIDE_V2
    assert {d.meta["commit"] for d in head.documents} == {second}
    tagged = collect_git(domain(tmp_path, url="repo", ref="v1")[0], cfg, tmp_path)
    assert by_path(tagged)["docs/guide.md"] == GUIDE_V1
    assert "build/out.md" in by_path(tagged)  # no exclude: kept


def test_uncommitted_changes_are_ignored(tmp_path: Path, repo: tuple[Path, str, str]) -> None:
    root, _, second = repo
    (root / "docs/guide.md").write_text("# Edited but not committed\n")
    (root / "docs/new.md").write_text("# Untracked\n")
    (root / "src/app.py").unlink()
    src, cfg = domain(tmp_path, url="repo", include=["*.md", "*.py"], max_documents=5)
    docs = by_path(collect_git(src, cfg, tmp_path / "cache"))
    assert docs == {
        "build/out.md": "# Generated\n",
        "docs/guide.md": GUIDE_V2,
        "src/app.py": APP_DOC,
    }
    capped = collect_git(domain(tmp_path, url="repo", max_documents=2)[0], cfg, tmp_path)
    assert [d.meta["path"] for d in capped.documents] == ["build/out.md", "docs/guide.md"]


def test_errors_name_the_ref_and_the_repo(tmp_path: Path, repo: tuple[Path, str, str]) -> None:
    root = repo[0].resolve()
    src, cfg = domain(tmp_path, url="repo", ref="no-such-branch")
    with pytest.raises(
        JupiterError, match=f"unknown ref 'no-such-branch' in git repository {root}"
    ):
        collect_git(src, cfg, tmp_path / "cache")
    (tmp_path / "plain").mkdir()
    with pytest.raises(JupiterError, match="not a git repository"):
        collect_git(domain(tmp_path, url="plain")[0], cfg, tmp_path / "cache")
    with pytest.raises(JupiterError, match="git source not found"):
        collect_git(domain(tmp_path, url="missing")[0], cfg, tmp_path / "cache")
    with pytest.raises(JupiterError, match="not its root"):
        collect_git(domain(tmp_path, url="repo/docs")[0], cfg, tmp_path / "cache")


def test_remote_is_cloned_once_into_the_cache(
    tmp_path: Path, repo: tuple[Path, str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root, first, second = repo
    # Let the file:// "server" honour blob filters, so the clone is a real partial clone.
    git(root, "config", "uploadpack.allowFilter", "true")
    git(root, "config", "uploadpack.allowAnySHA1InWant", "true")
    url = root.resolve().as_uri()
    assert is_remote(url) and is_remote("git@github.com:org/repo.git")
    assert not is_remote("repo") and not is_remote("/abs/repo")
    calls: list[list[str]] = []
    real_run = subprocess.run

    def spy(args: list[str], **kw: Any) -> Any:
        calls.append(list(args))
        return real_run(args, **kw)

    monkeypatch.setattr(git_source.subprocess, "run", spy)
    cache = tmp_path / "cache"
    src, cfg = domain(tmp_path, url=url, exclude=["build/*"])
    result = collect_git(src, cfg, cache)
    clone = cache / hashlib.sha256(url.encode()).hexdigest()[:16]
    assert [p.name for p in cache.iterdir()] == [clone.name]
    assert git(clone, "config", "--get", "remote.origin.promisor").strip() == "true"
    assert not (clone / "docs").exists()  # no checkout
    assert by_path(result)["docs/guide.md"] == GUIDE_V2
    assert result.documents[0].uri == f"{url}@{second}:docs/guide.md"
    assert result.rejects == {"binary": 1, "empty": 1}
    assert sum("clone" in c for c in calls) == 1
    assert sum("fetch" in c for c in calls) == 1  # the matching blobs, in one request

    calls.clear()
    inode = clone.stat().st_ino
    again = collect_git(domain(tmp_path, url=url, ref=first, exclude=["build/*"])[0], cfg, cache)
    assert by_path(again)["docs/guide.md"] == GUIDE_V1
    assert clone.stat().st_ino == inode
    # the first commit is in the clone already; only the old guide.md blob is fetched
    assert not any("clone" in c for c in calls)
    [fetch] = [c for c in calls if "fetch" in c]
    assert "--stdin" in fetch
    assert {d.uri for d in again.documents} == {
        f"{url}@{first}:{p}" for p in ("docs/guide.md", "docs/legacy.txt")
    } | {APP_URI}
    calls.clear()
    assert collect_git(src, cfg, cache).documents == result.documents
    assert not any("clone" in c or "fetch" in c for c in calls)  # everything is local now


def test_remote_fetches_a_ref_it_lacks(tmp_path: Path, repo: tuple[Path, str, str]) -> None:
    root, _, _ = repo
    url = root.resolve().as_uri()
    cache = tmp_path / "cache"
    src, cfg = domain(tmp_path, url=url, include=["*.md"])
    collect_git(src, cfg, cache)
    git(root, "checkout", "-q", "-b", "feature")
    (root / "docs/feature.md").write_text("# Feature\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "feature")
    result = collect_git(domain(tmp_path, url=url, ref="feature", include=["*.md"])[0], cfg, cache)
    assert by_path(result)["docs/feature.md"] == "# Feature\n"
    with pytest.raises(JupiterError, match=f"unknown ref 'nope' in git repository {url}"):
        collect_git(domain(tmp_path, url=url, ref="nope")[0], cfg, cache)
    bad = domain(tmp_path, url=(tmp_path / "gone").as_uri())[0]
    with pytest.raises(JupiterError, match="cannot clone git repository"):
        collect_git(bad, cfg, cache)


def test_identical_files_and_symlinks(tmp_path: Path) -> None:
    root = tmp_path / "twins"
    root.mkdir()
    git(root, "init", "-q")
    write(root, {"a.md": b"# Same\n", "b.md": b"# Same\n"})
    (root / "link.md").symlink_to("a.md")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "twins")
    result = collect_git(*domain(tmp_path, url="twins"), tmp_path / "cache")
    assert by_path(result) == {"a.md": "# Same\n", "b.md": "# Same\n"}  # one blob, two files
    assert result.rejects == {"symlink": 1}


def test_pdfs_in_a_repository_are_read_when_included(tmp_path: Path) -> None:
    from pdfs import pdf_bytes

    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    pages = [["The widget spins at the speed it is given."], ["It stops at the end."]]
    write(root, {"docs/manual.pdf": pdf_bytes(pages, title="Widget Manual")})
    write(root, {"docs/scan.pdf": pdf_bytes([[]]), "docs/notes.md": b"# Notes\n"})
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "docs")
    src, cfg = domain(tmp_path, url="repo", include=["*.md", "*.pdf"])
    result = collect_git(src, cfg, tmp_path / "cache")
    docs = {d.meta["path"]: d for d in result.documents}
    assert sorted(docs) == ["docs/manual.pdf", "docs/notes.md"]
    manual = docs["docs/manual.pdf"]
    assert manual.text == "The widget spins at the speed it is given.\n\nIt stops at the end."
    assert manual.title == "Widget Manual" and manual.meta["language"] == "pdf"
    assert result.rejects == {"pdf_no_text": 1}


def test_a_committed_rustdoc_sites_items_are_documents(tmp_path: Path) -> None:
    """A built rustdoc site in a repository (`doc/`): its pages' items, as a local folder
    gives them; rust: text reads the pages whole."""
    root = tmp_path / "site"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    pages = {k: v for k, v in RUSTDOC.items() if k.startswith("doc/spool/")}
    write(root, {k: v.encode() for k, v in pages.items()})
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "docs")
    src, cfg = domain(tmp_path, url="site", include=["doc/**/*.html"])
    result = collect_git(src, cfg, tmp_path / "cache")
    uris = sorted(d.uri for d in result.documents)
    assert len(uris) == 20 and uris[:3] == [
        "rust:spool",
        "rust:spool::Knot",
        "rust:spool::Knot::Bend",
    ]
    assert result.rejects["redirect_page"] == 1 and result.rejects["rustdoc_undocumented"] == 1
    src, cfg = domain(tmp_path, url="site", include=["doc/**/*.html"], rust="text")
    assert len(collect_git(src, cfg, tmp_path / "cache").documents) == 10  # the redirect not
