"""Paths inside a workspace, kept so that a copied or moved workspace works on its own
files: the store records them relative to the workspace's root, and a path recorded
absolute (an older store, an adapter's base) is looked up again under the workspace that
reads it when it points into another one."""

from __future__ import annotations

from pathlib import Path

WORKSPACE_MARK = "jupiter.sqlite"  # the store every workspace holds at its root


def workspace_of(path: Path) -> Path | None:
    """The workspace `path` is or sits inside (the nearest folder up holding the store)."""
    path = Path(path)
    for folder in (path, *path.parents):
        if (folder / WORKSPACE_MARK).is_file():
            return folder
    return None


def to_stored(path: str | Path, root: Path) -> str:
    """`path` as the store keeps it: relative (posix) when inside `root`, else as given."""
    if not str(path):
        return ""
    p, root = Path(path), Path(root)
    try:
        return p.resolve().relative_to(root.resolve()).as_posix() if p.is_absolute() else str(p)
    except ValueError:
        return str(path)


def from_stored(path: str, root: Path) -> str:
    """A stored path as a usable one: relative ones under `root`; an absolute one into
    another workspace (this one's original, before a copy or move) looked up again under
    `root` by its longest tail of at least two parts that exists here."""
    if not path:
        return path
    root = Path(root)
    p = Path(path)
    if not p.is_absolute():
        return str(root / p)
    if p == root or root in p.parents or p.exists() and workspace_of(p) in (None, root):
        return path
    return str(rebased(p, root) or p)


def rebased(path: Path, root: Path) -> Path | None:
    """`root` / the longest tail (two parts or more) of `path` that exists, or None."""
    parts = path.parts
    for i in range(1, len(parts) - 1):
        candidate = root.joinpath(*parts[i:])
        if candidate.exists():
            return candidate
    return None
