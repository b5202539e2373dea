"""The record every doctor check returns, and what the checks are given."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

from jupiter.config import DomainConfig

Status = Literal["ok", "warn", "fail"]


@dataclass(frozen=True)
class Check:
    """One line of the report. `fix` is the exact command or setting that clears a warn or
    a fail; an ok line has none."""

    group: str  # system | gpu | packages | servers | models | cluster
    name: str
    status: Status
    detail: str
    fix: str = ""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def ok(group: str, name: str, detail: str) -> Check:
    return Check(group, name, "ok", detail)


def warn(group: str, name: str, detail: str, fix: str) -> Check:
    return Check(group, name, "warn", detail, fix)


def fail(group: str, name: str, detail: str, fix: str) -> Check:
    return Check(group, name, "fail", detail, fix)


@dataclass
class Context:
    """What the checks look at: the domain config (None without --domain), the cluster file
    (None: no node is probed), where runs are written, and the network timeout."""

    cfg: DomainConfig | None = None
    cluster_file: str | None = None
    home: Path = Path(".")
    timeout: float = 3.0
