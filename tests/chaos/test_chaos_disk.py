"""A full disk and a read-only store: a checkpoint that does not fit is one
line, leaves no half-written checkpoint, and the run resumes identical once there is room
(a write patched to raise ENOSPC, which runs anywhere; the tmpfs cases of
tests/chaos/full_disk.py need a mount namespace)."""

from __future__ import annotations

from pathlib import Path

import pytest
from full_disk import checkpoint_case

from jupiter.errors import disk_problem

pytestmark = pytest.mark.slow


def test_checkpoint_on_a_full_disk_is_one_line_and_nothing_half_written(tmp_path: Path) -> None:
    fig = checkpoint_case(tmp_path, None)
    assert fig["jupiter_error"] and fig["one_line"], fig["error"]
    assert (
        fig["error"].startswith("cannot write step-000015 in ")
        and "the disk is full" in fig["error"]
    )
    assert fig["left_in_run_dir"] == ["step-000005", "step-000010"]
    assert fig["older_intact"] and fig["resumed_identical"] and fig["max_abs_diff"] == 0.0


@pytest.mark.parametrize(
    ("err", "said"),
    [
        (OSError(28, "No space left on device"), "the disk is full"),
        (
            RuntimeError("Error while serializing: IoError(Os { code: 28, kind: StorageFull })"),
            "the disk is full",
        ),
        (OSError(30, "Read-only file system"), "the folder is read-only"),
        (RuntimeError("shape mismatch"), None),
    ],
)
def test_disk_problems_are_told_apart(err: BaseException, said: str | None, tmp_path: Path) -> None:
    assert disk_problem(err, tmp_path) == said


def test_full_tmpfs_and_read_only_store_in_a_mount_namespace(tmp_path: Path) -> None:
    """The store on a full tmpfs (collect, generate) and bind-mounted read-only: one line
    each, the store sound or untouched, the rerun asking nothing twice. Needs `unshare`
    (root, or unprivileged user namespaces)."""
    import json
    import subprocess
    import sys

    from full_disk import __file__ as script
    from full_disk import namespace_command

    ns = namespace_command()
    if ns is None:
        pytest.skip("no mount namespace can be made here")
    out = tmp_path / "full_disk.json"
    cmd = [*ns, sys.executable, script, "--inside", "--no-checkpoint", "--out", str(out)]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    fig = json.loads(out.read_text())
    collect, gen, ro = fig["collect"], fig["generate"], fig["read_only"]
    assert (collect["exit"], collect["one_line"], collect["integrity"]) == (1, True, "ok")
    assert collect["documents_written"] == 0 and "is full" in collect["error"]
    assert (gen["exit"], gen["one_line"], gen["integrity"], gen["rerun_exit"]) == (1, True, "ok", 0)
    assert gen["answers_cached_before_full"] > 0 and gen["rerun_asked_again"] == 0
    assert gen["answered_at_end"] == gen["queue_rows_at_end"] == 200
    assert ro["store_unchanged"] and ro["generate"]["one_line"] and ro["generate"]["exit"] == 1
    assert "read-only" in ro["generate"]["error"]
