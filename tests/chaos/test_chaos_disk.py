"""A full disk and a read-only store (issue 18): a checkpoint that does not fit is one
line, leaves no half-written checkpoint, and the run resumes identical once there is room
(a write patched to raise ENOSPC, which runs anywhere; the tmpfs cases of
benchmarks/chaos/r8_disk.py need a mount namespace)."""

from __future__ import annotations

from pathlib import Path

import pytest
from r8_disk import checkpoint_case

from jupiter.errors import disk_problem

pytestmark = pytest.mark.slow


def test_checkpoint_on_a_full_disk_is_one_line_and_nothing_half_written(tmp_path: Path) -> None:
    fig = checkpoint_case(tmp_path, None)
    assert fig["jupiter_error"] and fig["one_line"], fig["error"]
    assert fig["error"].startswith("cannot write step-000015 in ") and "the disk is full" in fig[
        "error"]  # fmt: skip
    assert fig["left_in_run_dir"] == ["step-000005", "step-000010"]
    assert fig["older_intact"] and fig["resumed_identical"] and fig["max_abs_diff"] == 0.0


@pytest.mark.parametrize(
    ("err", "said"),
    [
        (OSError(28, "No space left on device"), "the disk is full"),
        (RuntimeError("Error while serializing: IoError(Os { code: 28, kind: StorageFull })"),
         "the disk is full"),
        (OSError(30, "Read-only file system"), "the folder is read-only"),
        (RuntimeError("shape mismatch"), None),
    ],
)  # fmt: skip
def test_disk_problems_are_told_apart(err: BaseException, said: str | None,
                                      tmp_path: Path) -> None:  # fmt: skip
    assert disk_problem(err, tmp_path) == said
