"""Fetch a Python package's source distribution from PyPI and unpack it where the library
corpora's YAMLs read it (config/domains/click-gemma.yaml): ~/.cache/jupiter/corpora/<name>-<version>.

A source distribution is what a user who clones the library has: its docs (when the
project ships them in the sdist), its package and its tests.

Usage: python benchmarks/quality/fetch_sdist.py click==8.1.8 [--dest DIR]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

DEST = Path.home() / ".cache" / "jupiter" / "corpora"


def fetch(spec: str, dest: Path) -> Path:
    """The unpacked folder of `spec`'s sdist under `dest` (downloaded once)."""
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:"]
        proc = subprocess.run([*cmd, "-q", "-d", tmp, spec], capture_output=True, text=True)
        if proc.returncode != 0:
            raise SystemExit(f"pip download {spec} failed: {proc.stderr.strip()[-300:]}")
        [archive] = [p for p in Path(tmp).iterdir() if p.name.endswith((".tar.gz", ".tgz"))]
        with tarfile.open(archive) as tar:
            top = {Path(m.name).parts[0] for m in tar.getmembers()}
            if len(top) != 1:
                raise SystemExit(f"{archive.name}: expected one top folder, found {sorted(top)}")
            folder = dest / top.pop()
            if folder.is_dir():
                return folder
            dest.mkdir(parents=True, exist_ok=True)
            tar.extractall(dest, filter="data")
    return folder


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("spec", help="a pip requirement pinned to a version, e.g. click==8.1.8")
    ap.add_argument("--dest", type=Path, default=DEST)
    args = ap.parse_args()
    print(fetch(args.spec, args.dest))


if __name__ == "__main__":
    main()
