"""The one exception type users see: a message naming the problem and the fix."""

from __future__ import annotations

import errno
import shutil
from pathlib import Path


class JupiterError(Exception):
    """An error the user can act on. The CLI prints it on one line, without a traceback."""


# torch.save says a full disk as "file write failed", safetensors as StorageFull (os error 28)
FULL = ("No space left on device", "StorageFull", "os error 28", "file write failed")
MIN_FREE = 64 << 20  # a write failing with less room than this ran out of it


def disk_problem(err: BaseException, where: Path) -> str | None:
    """'the disk is full' or 'the folder is read-only' when that is why `err` happened."""
    text = str(err)
    code = err.errno if isinstance(err, OSError) else None
    if code in (errno.EROFS, errno.EACCES, errno.EPERM) or "Read-only file system" in text:
        return "the folder is read-only"
    if code in (errno.ENOSPC, errno.EDQUOT) or any(m in text for m in FULL[:3]):
        return "the disk is full"
    if FULL[3] in text:
        try:
            free = shutil.disk_usage(where).free
        except OSError:
            return None
        return "the disk is full" if free < MIN_FREE else None
    return None
