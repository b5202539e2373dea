"""A copied or moved workspace works on its own files: the store keeps paths relative to
the workspace, and an adapter naming the original's base reads this workspace's copy."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from jupiter.models.loading import adapter_base
from jupiter.store import Store
from jupiter.wspath import from_stored, to_stored


def make_workspace(root: Path) -> Path:
    ws = root / "runs" / "d"
    final = ws / "cycles" / "cycle-001" / "train" / "final"
    base = ws / "models" / "sha256-abc"
    for d in (final, base):
        d.mkdir(parents=True)
    (base / "config.json").write_text("{}")
    # as training writes it: the base by absolute path
    (final / "adapter_config.json").write_text(json.dumps({"base_model_name_or_path": str(base)}))
    with Store(ws / "jupiter.sqlite") as store:
        store.add_generator("model:cycle-001", "model", str(final), 1, status="promoted")
        store.add_eval(1, "student:cycle-001", {"path": str(final), "mc_accuracy": 0.5})
        raw = store.db.execute("SELECT path FROM generators").fetchone()[0]
        assert raw == "cycles/cycle-001/train/final"  # relative in the file
    return ws


def test_a_copied_then_a_moved_workspace_reads_its_own_models(tmp_path: Path) -> None:
    original = make_workspace(tmp_path / "a")
    copy = tmp_path / "b" / "runs" / "d"
    shutil.copytree(original, copy)
    final = copy / "cycles" / "cycle-001" / "train" / "final"
    with Store(copy / "jupiter.sqlite") as store:
        assert store.generator("model:cycle-001")["path"] == str(final)
        assert store.evals()[0]["report"]["path"] == str(final)
    assert adapter_base(final) == (copy / "models" / "sha256-abc").resolve()
    moved = tmp_path / "c" / "d"
    moved.parent.mkdir()
    shutil.move(str(copy), moved)
    assert (
        adapter_base(moved / "cycles" / "cycle-001" / "train" / "final")
        == (moved / "models" / "sha256-abc").resolve()
    )
    # the original, untouched, still reads its own
    assert (
        adapter_base(original / "cycles" / "cycle-001" / "train" / "final")
        == (original / "models" / "sha256-abc").resolve()
    )


def test_an_older_store_with_absolute_paths_is_read_under_the_copy(tmp_path: Path) -> None:
    old = tmp_path / "old" / "runs" / "d"
    (old / "cycles" / "cycle-002" / "train" / "final").mkdir(parents=True)
    (old / "jupiter.sqlite").touch()
    new = tmp_path / "new" / "runs" / "d"
    shutil.copytree(old, new)
    recorded = str(old / "cycles" / "cycle-002" / "train" / "final")
    assert from_stored(recorded, new) == str(new / "cycles" / "cycle-002" / "train" / "final")
    outside = tmp_path / "my-model"  # a model of the user's, outside any workspace: as given
    outside.mkdir()
    assert from_stored(str(outside), new) == str(outside)
    assert to_stored(outside, new) == str(outside)
    assert to_stored(new / "x" / "y", new) == "x/y" and from_stored("x/y", new) == str(new / "x/y")
