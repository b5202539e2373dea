"""A folder committed as a git repository, and the git source that collects it: what the
collect tests of a language's API read from a repository."""

from __future__ import annotations

import subprocess
from pathlib import Path

from jupiter.collect import CollectResult
from jupiter.collect.git import collect_git
from jupiter.config import DomainConfig, GitSource


def commit_all(root: Path) -> str:
    """`git init` + commit everything under `root` (ignored files too); the commit's sha."""

    def git(*args: str) -> str:
        cmd = ["git", "-c", "user.name=T", "-c", "user.email=t@example.com", "-C", str(root)]
        return subprocess.run([*cmd, *args], check=True, capture_output=True, text=True).stdout

    git("init", "-q")
    git("add", "-A", "-f")
    git("commit", "-q", "-m", "one")
    return git("rev-parse", "HEAD").strip()


def collect_repo(tmp_path: Path, name: str = "repo") -> CollectResult:
    """A git source of `tmp_path/name` with its default globs, collected."""
    cfg = DomainConfig.model_validate({"name": "t", "sources": [{"type": "git", "url": name}]})
    cfg.base_dir = tmp_path
    src = cfg.sources[0]
    assert isinstance(src, GitSource)
    return collect_git(src, cfg, tmp_path / "cache")
